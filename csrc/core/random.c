/* csrc/core/random.c — Philox generators (seed, offset, the lock that
 * reserves counter ranges, the per-device defaults) and the fills of
 * tensorlib/random.h: uniform, normal, integers, exponential, geometric,
 * log-normal, Cauchy, Bernoulli, Poisson, multinomial and randperm.  Every
 * number is a pure function of (seed, the op's offset, element index)
 * (Note [Philox counter layout] in philox.h); threads split the elements
 * into fixed tiles only for speed.  Scratch memory comes from tensors
 * (tl_tensor_empty), never malloc. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "dtype_impl.h"
#include "../alloc/fault.h"
#include "parallel.h"
#include "philox.h"
#include "random_impl.h"
#include "tensor_impl.h"
#include "tensorlib/alloc.h"
#include "tensorlib/iter.h"
#include "tensorlib/ops.h"

/* Kernels: vectoriser on, no errno from libm, no trapping math (as the
 * other kernel files; see kernels.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-math-errno", "no-trapping-math", "vect-cost-model=dynamic")
#endif
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) &&      \
    defined(__linux__) && !defined(TL_NO_TARGET_CLONES)
#define RNG_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define RNG_MULTIVERSION
#endif

/* ---- generators ----------------------------------------------------------- */

tl_generator *tl_generator_new(tl_device dev)
{
    if (dev.type < 0 || dev.type >= TL_DEVICE_TYPE_COUNT || dev.index < 0 ||
        dev.index > TL_MAX_DEVICE_INDEX) {
        tl_error(TL_ERR_VALUE, "Generator: invalid device (type %d, index %d)",
                 dev.type, dev.index);
        return NULL;
    }
    tl_generator *g = tl_fault_calloc(1, sizeof *g);
    if (!g) {
        tl_error(TL_ERR_MEMORY, "Generator: out of memory");
        return NULL;
    }
    atomic_init(&g->refcnt, 1);
    pthread_mutex_init(&g->mu, NULL);
    g->seed = TL_DEFAULT_SEED;
    g->offset = 0;
    g->device = dev;
    return g;
}

void tl_generator_incref(tl_generator *g)
{
    if (g && !g->is_default) {
        atomic_fetch_add_explicit(&g->refcnt, 1, memory_order_relaxed);
    }
}

void tl_generator_decref(tl_generator *g)
{
    if (!g || g->is_default) {
        return;
    }
    if (atomic_fetch_sub_explicit(&g->refcnt, 1, memory_order_acq_rel) == 1) {
        pthread_mutex_destroy(&g->mu);
        free(g);
    }
}

/* The defaults, made on first use; a CAS publishes each once. */
static _Atomic(tl_generator *)
    defaults[TL_DEVICE_TYPE_COUNT][TL_MAX_DEVICE_INDEX + 1];

tl_generator *tl_generator_default(tl_device dev)
{
    if (dev.type < 0 || dev.type >= TL_DEVICE_TYPE_COUNT || dev.index < 0 ||
        dev.index > TL_MAX_DEVICE_INDEX) {
        tl_error(TL_ERR_VALUE, "default_generator: invalid device (type %d, "
                 "index %d)", dev.type, dev.index);
        return NULL;
    }
    _Atomic(tl_generator *) *slot = &defaults[dev.type][dev.index];
    tl_generator *g = atomic_load_explicit(slot, memory_order_acquire);
    if (g) {
        return g;
    }
    tl_generator *fresh = tl_generator_new(dev);
    if (!fresh) {
        return NULL;
    }
    fresh->is_default = true;
    tl_generator *expected = NULL;
    if (!atomic_compare_exchange_strong(slot, &expected, fresh)) {
        pthread_mutex_destroy(&fresh->mu);
        free(fresh);
        return expected;
    }
    return fresh;
}

tl_device tl_generator_device(const tl_generator *g) { return g->device; }

void tl_generator_manual_seed(tl_generator *g, uint64_t seed)
{
    pthread_mutex_lock(&g->mu);
    g->seed = seed;
    g->offset = 0;
    pthread_mutex_unlock(&g->mu);
}

uint64_t tl_generator_seed(tl_generator *g)
{
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        s = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^
            (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)g;
    }
    tl_generator_manual_seed(g, s);
    return s;
}

uint64_t tl_generator_initial_seed(tl_generator *g)
{
    pthread_mutex_lock(&g->mu);
    uint64_t s = g->seed;
    pthread_mutex_unlock(&g->mu);
    return s;
}

void tl_generator_get_state(tl_generator *g, uint64_t *seed,
                            uint64_t *offset)
{
    pthread_mutex_lock(&g->mu);
    *seed = g->seed;
    *offset = g->offset;
    pthread_mutex_unlock(&g->mu);
}

void tl_generator_set_state(tl_generator *g, uint64_t seed, uint64_t offset)
{
    pthread_mutex_lock(&g->mu);
    g->seed = seed;
    g->offset = offset;
    pthread_mutex_unlock(&g->mu);
}

/* This thread's mark (Note [Taking back a draw]), or NULL. */
static _Thread_local tl_draw_mark *active_mark;

int tl_generator_reserve(tl_generator *g, uint64_t nblocks, uint64_t *seed,
                         uint64_t *offset)
{
    pthread_mutex_lock(&g->mu);
    if (g->offset > UINT64_MAX - nblocks) {
        uint64_t o = g->offset;
        pthread_mutex_unlock(&g->mu);
        return tl_error(TL_ERR_OVERFLOW, "generator: the Philox offset %llu "
                        "plus %llu blocks overflows 2^64; reseed it",
                        (unsigned long long)o, (unsigned long long)nblocks);
    }
    *seed = g->seed;
    *offset = g->offset;
    g->offset += nblocks;
    if (active_mark && active_mark->g == g) {
        active_mark->drawn += nblocks;
    }
    pthread_mutex_unlock(&g->mu);
    return 0;
}

/* Note [Taking back a draw]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A refused call draws nothing (every check runs before the reservation),
 * and most ops allocate everything they need before drawing.  A few make
 * memory after the draw -- poisson's and multinomial's results come from
 * the core and get their Python objects after, normal(mean, std) combines
 * the drawn numbers with new temporaries -- so an allocation failure there
 * would leave the generator moved by a call that failed.  Such a call
 * marks the generator first; on failure it takes the draw back: under
 * g's lock, when g's seed is the marked one and its offset moved by
 * exactly what this thread reserved from g since the mark, the offset
 * returns to the mark's.  Anything else (another thread drew from g, or
 * reseeded it) leaves g alone: undoing it would hand out numbers twice. */

void tl_generator_mark(tl_generator *g, tl_draw_mark *m)
{
    if (!g) {
        g = tl_generator_default(tl_device_cpu());
    }
    m->g = g;
    m->drawn = 0;
    m->seed = m->offset = 0;
    if (g) {
        tl_generator_get_state(g, &m->seed, &m->offset);
        active_mark = m;
    }
}

bool tl_generator_take_back(tl_draw_mark *m)
{
    tl_generator *g = m->g;
    bool undone = false;
    if (!g || m->drawn == 0) {
        return false;
    }
    pthread_mutex_lock(&g->mu);
    if (g->seed == m->seed && g->offset - m->offset == m->drawn) {
        g->offset = m->offset;
        m->drawn = 0;
        undone = true;
    }
    pthread_mutex_unlock(&g->mu);
    return undone;
}

void tl_generator_unmark(tl_draw_mark *m)
{
    if (active_mark == m) {
        active_mark = NULL;
    }
}

void tl_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                      uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    tl_philox10(c, key[0], key[1]);
    memcpy(out, c, sizeof c);
}

/* ---- bulk Philox ------------------------------------------------------------
 * Words of blocks block0 .. block0 + nblocks - 1 (sub 0) in stream order,
 * 4 per block. */
RNG_MULTIVERSION
static void philox_words(uint64_t seed, uint64_t block0, int64_t nblocks,
                         uint32_t *out)
{
    const uint32_t key0 = (uint32_t)seed, key1 = (uint32_t)(seed >> 32);
    const uint32_t hi = (uint32_t)(block0 >> 32);
    int64_t b = 0;
    /* Blocks whose counter's low word does not wrap: one loop over them,
     * the 10 rounds unrolled inside, which the compiler vectorises across
     * blocks. */
    const uint32_t lo0 = (uint32_t)block0;
    int64_t nowrap = (int64_t)(UINT64_C(0x100000000) - lo0);
    int64_t nfast = nblocks < nowrap ? nblocks : nowrap;
    for (b = 0; b < nfast; b++) {
        uint32_t c0 = lo0 + (uint32_t)b, c1 = hi, c2 = 0, c3 = 0;
        uint32_t k0 = key0, k1 = key1;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 10
#endif
        for (int r = 0; r < TL_PHILOX_ROUNDS; r++) {
            uint64_t p0 = (uint64_t)TL_PHILOX_M0 * c0;
            uint64_t p1 = (uint64_t)TL_PHILOX_M1 * c2;
            uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
            uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
            c1 = (uint32_t)p1;
            c3 = (uint32_t)p0;
            c0 = n0;
            c2 = n2;
            k0 += TL_PHILOX_W0;
            k1 += TL_PHILOX_W1;
        }
        out[4 * b + 0] = c0;
        out[4 * b + 1] = c1;
        out[4 * b + 2] = c2;
        out[4 * b + 3] = c3;
    }
    for (; b < nblocks; b++) {
        tl_philox_block(seed, block0 + (uint64_t)b, 0, out + 4 * b);
    }
}

/* An element's private stream of extra words (Note [Philox counter
 * layout]): block `block`, draws sub = 0, 1, 2, ... */
typedef struct {
    uint64_t seed, block, sub;
    uint32_t w[4];
    int pos;
} elem_stream;

static void stream_init(elem_stream *s, uint64_t seed, uint64_t block)
{
    s->seed = seed;
    s->block = block;
    s->sub = 0;
    s->pos = 4;
}

static uint32_t stream_u32(elem_stream *s)
{
    if (s->pos == 4) {
        tl_philox_block(s->seed, s->block, s->sub++, s->w);
        s->pos = 0;
    }
    return s->w[s->pos++];
}

static uint64_t stream_u64(elem_stream *s)
{
    uint64_t lo = stream_u32(s);
    return lo | ((uint64_t)stream_u32(s) << 32);
}

/* [0, 1) with 53 bits. */
static double stream_unit(elem_stream *s)
{
    return (double)(stream_u64(s) >> 11) * 1.1102230246251565e-16;
}

/* ---- vectorisable float32 log and sincos ------------------------------------
 * Note [Normal sampling]
 * Normals come from Box-Muller on pairs of elements: words 2j and 2j+1 of
 * the op's stream give u1 in (0, 1] and u2 in [0, 1), and elements 2j and
 * 2j+1 are r cos(2 pi u2) and r sin(2 pi u2), r = sqrt(-2 log u1).  u1
 * uses all 32 bits of its word (2^-32 <= u1 <= 1), so the tails reach
 * 6.66 sigma.  float32 (and float16/bfloat16) use the branch-free log and
 * sincos below, which the compiler vectorises; their error (a few ulp) is
 * far below what a sample can show.  NumPy's ziggurat is faster per
 * number in scalar code but branches; measured on this design (docs/
 * random.md) the vectorised Box-Muller wins.  float64 uses libm. */

typedef union {
    float f;
    uint32_t u;
    int32_t i;
} fbits;

/* log(x) for normal positive x: x = 2^e m, m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716, by its series
 * to s^9 (truncation below 1e-9). */
static inline float vlogf(float x)
{
    fbits b = {.f = x};
    int32_t adj = b.i - 0x3f3504f3; /* bits of sqrt(1/2) */
    int32_t e = adj >> 23;          /* arithmetic shift: floor */
    fbits m = {.i = (adj & 0x007fffff) + 0x3f3504f3};
    float s = (m.f - 1.0f) / (m.f + 1.0f);
    float s2 = s * s;
    float p = 1.0f + s2 * (1.0f / 3.0f +
                           s2 * (1.0f / 5.0f +
                                 s2 * (1.0f / 7.0f + s2 * (1.0f / 9.0f))));
    float fe = (float)e;
    return fe * 0.693145751953125f + (fe * 1.428606765330187e-06f +
                                      2.0f * s * p);
}

/* sin and cos of 2 pi u for u in [0, 1): quarter turns q = round(4u),
 * x = 2 pi (u - q/4) in [-pi/4, pi/4] by Taylor series (truncation below
 * 2e-9), then the quadrant's swap and signs as selects. */
static inline void vsincos2pi(float u, float *sn, float *cs)
{
    int32_t q = (int32_t)(u * 4.0f + 0.5f);
    float x = (u - (float)q * 0.25f) * 6.2831853071795865f;
    float x2 = x * x;
    float s = x * (1.0f + x2 * (-1.0f / 6.0f +
                                x2 * (1.0f / 120.0f +
                                      x2 * (-1.0f / 5040.0f +
                                            x2 * (1.0f / 362880.0f)))));
    float c = 1.0f + x2 * (-0.5f +
                           x2 * (1.0f / 24.0f +
                                 x2 * (-1.0f / 720.0f +
                                       x2 * (1.0f / 40320.0f +
                                             x2 * (-1.0f / 3628800.0f)))));
    float sr = (q & 1) ? c : s;
    float cr = (q & 1) ? s : c;
    *sn = (q & 2) ? -sr : sr;
    *cs = ((q + 1) & 2) ? -cr : cr;
}

/* sqrt(x) for x >= 0 as x / sqrt(x) from an estimate of 1 / sqrt(x) (the
 * exponent-halving bit trick, 3.4% off) and three Newton steps (error
 * below 1e-10 before rounding): sqrtf itself keeps the loop scalar,
 * since gcc's per-function no-math-errno does not reach it. */
static inline float vsqrtf(float x)
{
    fbits b = {.f = x};
    fbits y = {.u = 0x5f3759dfu - (b.u >> 1)};
    float r = y.f;
    const float h = 0.5f * x;
    r = r * (1.5f - h * r * r);
    r = r * (1.5f - h * r * r);
    r = r * (1.5f - h * r * r);
    return x * r;
}

/* u1 in [2^-32, 1] from a whole word (Note [Normal sampling]). */
static inline float open_unit_f(uint32_t w)
{
    return ((float)(int32_t)(w >> 1) + 0.5f) * 4.656612873077393e-10f;
}

/* ---- per-dtype helpers --------------------------------------------------- */

/* Significand bits of a floating dtype (random_'s 2^digits). */
static int float_digits(tl_dtype dt)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16:
        return 11;
    case TL_DTYPE_BFLOAT16:
        return 8;
    case TL_DTYPE_FLOAT32:
    case TL_DTYPE_COMPLEX64:
        return 24;
    default:
        return 53;
    }
}

static double float_max(tl_dtype dt)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16:
        return 65504.0;
    case TL_DTYPE_BFLOAT16:
        return 3.3895313892515355e+38;
    case TL_DTYPE_FLOAT32:
    case TL_DTYPE_COMPLEX64:
        return FLT_MAX;
    default:
        return DBL_MAX;
    }
}

/* The real dtype of a complex one's components (else dt). */
static tl_dtype real_dtype(tl_dtype dt)
{
    return dt == TL_DTYPE_COMPLEX64    ? TL_DTYPE_FLOAT32
           : dt == TL_DTYPE_COMPLEX128 ? TL_DTYPE_FLOAT64
                                       : dt;
}

/* v rounded to dt (a real floating dtype), as a double. */
static double round_to(tl_dtype dt, double v)
{
    switch (dt) {
    case TL_DTYPE_FLOAT16:
        return tl_half_to_float(tl_half_from_double(v));
    case TL_DTYPE_BFLOAT16:
        return tl_bf16_to_float(tl_bf16_from_double(v));
    case TL_DTYPE_FLOAT32:
        return (float)v;
    default:
        return v;
    }
}

/* The largest value of dt below v (v finite and representable in dt). */
static double below_in(tl_dtype dt, double v)
{
    if (dt == TL_DTYPE_FLOAT16 || dt == TL_DTYPE_BFLOAT16) {
        uint16_t h = dt == TL_DTYPE_FLOAT16 ? tl_half_from_double(v)
                                            : tl_bf16_from_double(v);
        if ((h & 0x7fffu) == 0) {
            h = 0x8001u;
        } else if (h & 0x8000u) {
            h++;
        } else {
            h--;
        }
        return dt == TL_DTYPE_FLOAT16 ? tl_half_to_float(h)
                                      : tl_bf16_to_float(h);
    }
    if (dt == TL_DTYPE_FLOAT32) {
        return nextafterf((float)v, -INFINITY);
    }
    return nextafter(v, -INFINITY);
}

/* Stores v (already within range for integers) into element i of p. */
static inline void store_f64(tl_dtype dt, char *p, int64_t i, double v)
{
    switch (dt) {
    case TL_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case TL_DTYPE_UINT8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case TL_DTYPE_INT8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case TL_DTYPE_INT16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case TL_DTYPE_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case TL_DTYPE_INT32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case TL_DTYPE_UINT32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case TL_DTYPE_INT64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case TL_DTYPE_UINT64:
        ((uint64_t *)p)[i] = (uint64_t)v;
        break;
    case TL_DTYPE_FLOAT16:
        ((uint16_t *)p)[i] = tl_half_from_double(v);
        break;
    case TL_DTYPE_BFLOAT16:
        ((uint16_t *)p)[i] = tl_bf16_from_double(v);
        break;
    case TL_DTYPE_FLOAT32:
        ((float *)p)[i] = (float)v;
        break;
    default:
        ((double *)p)[i] = v;
        break;
    }
}

/* Stores the integer v (within dt's range) into element i of p. */
static inline void store_int(tl_dtype dt, char *p, int64_t i, int64_t v)
{
    switch (dt) {
    case TL_DTYPE_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    case TL_DTYPE_UINT8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case TL_DTYPE_INT8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case TL_DTYPE_INT16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case TL_DTYPE_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case TL_DTYPE_INT32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case TL_DTYPE_UINT32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case TL_DTYPE_INT64:
    case TL_DTYPE_UINT64:
        ((int64_t *)p)[i] = v;
        break;
    default:
        store_f64(dt, p, i, (double)v);
        break;
    }
}

/* ---- the fill driver ------------------------------------------------------- */

#define TILE 1024 /* elements per tile: a multiple of 4 (block aligned) */

typedef struct job job;
/* Fills elements [begin, end) of the job; begin is a multiple of TILE. */
typedef void (*tile_fn)(const job *j, int64_t begin, int64_t end);

struct job {
    tile_fn fn;
    char *data;       /* element 0 of a contiguous destination */
    tl_dtype dt;      /* the real dtype stored (complex: its components) */
    int64_t n;        /* elements (complex: 2 per number) */
    uint64_t seed;
    uint64_t offset;  /* first block of the fixed-width words */
    uint64_t offset2; /* first block of the per-element streams */
    double a, b;      /* the distribution's parameters */
    double lo, hi;    /* uniform: clamp range in the dtype */
    int64_t low;      /* integers: the lowest value */
    uint64_t range;   /* integers: the number of values (0: 2^64) */
    const double *p;  /* per-element parameters (bernoulli, poisson) */
};

static void tiles_task(void *ctx, int64_t tb, int64_t te)
{
    const job *j = ctx;
    for (int64_t t = tb; t < te; t++) {
        int64_t begin = t * TILE;
        int64_t end = begin + TILE < j->n ? begin + TILE : j->n;
        j->fn(j, begin, end);
    }
}

/* Runs j over its n elements on the pool, releasing the GIL around big
 * runs with the memory of `pin` kept alive. */
static void run_job(job *j, tl_tensor_impl *pin)
{
    const int64_t ntiles = (j->n + TILE - 1) / TILE;
    if (j->n < TL_ITER_GRAIN) {
        tiles_task(j, 0, ntiles);
        return;
    }
    tl_block *b = pin->storage->block;
    tl_block_pin(b);
    void *token = tl_parallel_release();
    tl_parallel_for(ntiles, 4, tiles_task, j);
    tl_parallel_reacquire(token);
    tl_block_unpin(b);
}

/* What a fill writes into: t itself when it is C-contiguous, else a
 * contiguous temporary copied into t at the end (so a strided t gets
 * exactly the values a contiguous one would). */
typedef struct {
    tl_tensor_impl *t;
    tl_tensor_impl *tmp; /* owned; NULL when writing t directly */
    tl_generator *g;     /* borrowed */
} target;

static const char *device_str(tl_device d, char *buf, size_t n)
{
    tl_device_format(d, buf, n);
    return buf;
}

/* Checks t and g for a fill named what and sets up the target.
 * Returns 0 or an error (nothing allocated on failure). */
static int target_begin(const char *what, tl_tensor_impl *t,
                        tl_generator *g, target *tg)
{
    char b1[32], b2[32];
    memset(tg, 0, sizeof *tg);
    if (t->device.type != TL_DEVICE_CPU) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "%s: random numbers on %s "
                        "tensors are not implemented (tensorlib draws them "
                        "on the CPU only)", what,
                        device_str(t->device, b1, sizeof b1));
    }
    if (!g) {
        g = tl_generator_default(t->device);
        if (!g) {
            return tl_error_kind();
        }
    }
    if (!tl_device_eq(g->device, t->device)) {
        return tl_error(TL_ERR_RUNTIME, "%s: expected a generator for %s, "
                        "got one for %s", what,
                        device_str(t->device, b1, sizeof b1),
                        device_str(g->device, b2, sizeof b2));
    }
    int rc = tl_tensor_check_live(t);
    if (rc < 0 || (rc = tl_tensor_check_writable(t)) < 0) {
        return rc;
    }
    if (tl_iter_has_internal_overlap(t)) {
        return tl_error(TL_ERR_SHAPE, "%s: more than one element of the "
                        "written-to tensor refers to a single memory "
                        "location; clone() it first", what);
    }
    tg->t = t;
    tg->g = g;
    if (!tl_tensor_is_contiguous(t, TL_FORMAT_CONTIGUOUS)) {
        tg->tmp = tl_tensor_empty(t->ndim, t->sizes, (tl_dtype)t->dtype,
                                  t->device, TL_MEMKIND_DEFAULT);
        if (!tg->tmp) {
            return tl_error_kind();
        }
    }
    return 0;
}

static tl_tensor_impl *target_tensor(const target *tg)
{
    return tg->tmp ? tg->tmp : tg->t;
}

/* Reserves nblocks + nstreams blocks for j (offset: the fixed-width
 * words; offset2: one stream per element).  Returns 0 or an error. */
static int target_reserve(target *tg, job *j, uint64_t nblocks,
                          uint64_t nstreams)
{
    uint64_t seed, off;
    int rc = tl_generator_reserve(tg->g, nblocks + nstreams, &seed, &off);
    if (rc < 0) {
        return rc;
    }
    j->seed = seed;
    j->offset = off;
    j->offset2 = off + nblocks;
    return 0;
}

/* Copies the temporary into t (or bumps t's version) and frees it.
 * Returns 0 or an error. */
static int target_end(target *tg, int rc)
{
    if (rc == 0) {
        if (tg->tmp) {
            rc = tl_op_copy_(tg->t, tg->tmp);
        } else {
            tl_tensor_bump_version(tg->t);
        }
    }
    tl_tensor_decref(tg->tmp);
    tg->tmp = NULL;
    return rc;
}

/* Blocks holding n elements of k words each. */
static uint64_t blocks_for(int64_t n, int k)
{
    return ((uint64_t)n * (uint64_t)k + 3) / 4;
}

/* Sets up j to fill target tensor tt: real dtype, element count (complex
 * counts components), data. */
static void job_on(job *j, tl_tensor_impl *tt, tile_fn fn)
{
    tl_dtype dt = (tl_dtype)tt->dtype;
    j->fn = fn;
    j->data = tl_impl_data(tt);
    j->dt = real_dtype(dt);
    j->n = tt->numel * (dt == j->dt ? 1 : 2);
}

/* ---- uniform ------------------------------------------------------------- */

RNG_MULTIVERSION
static void unif_f32_loop(float *dst, const uint32_t *w, int64_t m, float a,
                          float span, float hi)
{
    for (int64_t i = 0; i < m; i++) {
        float v = a + (float)(w[i] >> 8) * 5.9604644775390625e-08f * span;
        dst[i] = v < hi ? v : hi;
    }
}

/* Floats of a 16-bit dtype: u with its significand's bits. */
static void unif_small_loop(float *dst, const uint32_t *w, int64_t m,
                            int bits, float a, float span, float hi)
{
    const float scale = 1.0f / (float)(1u << bits);
    for (int64_t i = 0; i < m; i++) {
        float v = a + (float)(w[i] >> (32 - bits)) * scale * span;
        dst[i] = v < hi ? v : hi;
    }
}

static void store_floats(tl_dtype dt, char *p, const float *v, int64_t m)
{
    if (dt == TL_DTYPE_FLOAT16) {
        uint16_t *d = (uint16_t *)p;
        for (int64_t i = 0; i < m; i++) {
            d[i] = tl_half_from_float(v[i]);
        }
    } else {
        uint16_t *d = (uint16_t *)p;
        for (int64_t i = 0; i < m; i++) {
            d[i] = tl_bf16_from_float(v[i]);
        }
    }
}

static void uniform_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[2 * TILE];
    const int64_t m = end - begin;
    const int k = j->dt == TL_DTYPE_FLOAT64 ? 2 : 1;
    philox_words(j->seed, j->offset + (uint64_t)(begin * k / 4),
                 (int64_t)blocks_for(m, k), w);
    switch (j->dt) {
    case TL_DTYPE_FLOAT32:
        unif_f32_loop((float *)j->data + begin, w, m, (float)j->a,
                      (float)(j->b - j->a), (float)j->hi);
        break;
    case TL_DTYPE_FLOAT64: {
        double *d = (double *)j->data + begin;
        for (int64_t i = 0; i < m; i++) {
            double v = j->a + tl_u64_to_unit_d(w[2 * i], w[2 * i + 1]) *
                                  (j->b - j->a);
            d[i] = v < j->hi ? v : j->hi;
        }
        break;
    }
    default: {
        float f[TILE];
        unif_small_loop(f, w, m, float_digits(j->dt), (float)j->a,
                        (float)(j->b - j->a), (float)j->hi);
        store_floats(j->dt, j->data + 2 * begin, f, m);
        break;
    }
    }
}

static int check_floating(const char *what, tl_tensor_impl *t, bool cplx)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (tl_dtype_is_floating(dt) || (cplx && tl_dtype_is_complex(dt))) {
        return 0;
    }
    return tl_error(TL_ERR_TYPE, "%s: expected a floating%s dtype, got %s",
                    what, cplx ? " or complex" : "",
                    tl_dtype_info_of(dt)->name);
}

int tl_random_uniform_(tl_tensor_impl *t, double from, double to,
                       tl_generator *g)
{
    static const char what[] = "uniform_";
    int rc = check_floating(what, t, true);
    if (rc < 0) {
        return rc;
    }
    tl_dtype rdt = real_dtype((tl_dtype)t->dtype);
    const double mx = float_max(rdt);
    if (!(from >= -mx && from <= mx)) {
        return tl_error(TL_ERR_VALUE, "%s: from=%g is out of bounds for %s",
                        what, from, tl_dtype_info_of(rdt)->name);
    }
    if (!(to >= -mx && to <= mx)) {
        return tl_error(TL_ERR_VALUE, "%s: to=%g is out of bounds for %s",
                        what, to, tl_dtype_info_of(rdt)->name);
    }
    if (from > to) {
        return tl_error(TL_ERR_VALUE, "%s expects to return a [from, to) "
                        "range, but found from=%g > to=%g", what, from, to);
    }
    if (!(to - from <= mx)) {
        return tl_error(TL_ERR_VALUE, "%s: to - from = %g overflows %s",
                        what, to - from, tl_dtype_info_of(rdt)->name);
    }
    target tg;
    if ((rc = target_begin(what, t, g, &tg)) < 0) {
        return rc;
    }
    job j = {0};
    job_on(&j, target_tensor(&tg), uniform_tile);
    j.a = from;
    j.b = to;
    /* Clamp below to as rounded to the dtype (from == to fills from;
     * a range so narrow that from rounds to to's value gives the largest
     * value below it). */
    const double lo = round_to(rdt, from), hi = round_to(rdt, to);
    j.hi = from == to ? lo : below_in(rdt, hi);
    rc = target_reserve(&tg, &j, blocks_for(j.n, rdt == TL_DTYPE_FLOAT64
                                                       ? 2 : 1), 0);
    if (rc == 0) {
        run_job(&j, target_tensor(&tg));
    }
    return target_end(&tg, rc);
}

/* ---- normal, log-normal -------------------------------------------------- */

RNG_MULTIVERSION
static void normal_f32_loop(float *dst, const uint32_t *w, int64_t npairs,
                            float mean, float std)
{
    for (int64_t j = 0; j < npairs; j++) {
        float u1 = open_unit_f(w[2 * j]);
        float u2 = (float)(w[2 * j + 1] >> 8) * 5.9604644775390625e-08f;
        float l = -2.0f * vlogf(u1);
        float r = vsqrtf(l > 0.0f ? l : 0.0f) * std;
        float s, c;
        vsincos2pi(u2, &s, &c);
        dst[2 * j] = mean + r * c;
        dst[2 * j + 1] = mean + r * s;
    }
}

/* Normal(a, b) of elements [begin, end) into f (float32 values). */
static void normal_f32_tile(const job *j, int64_t begin, int64_t end,
                            float *f)
{
    uint32_t w[TILE + 4];
    const int64_t m = end - begin;
    const int64_t npairs = (m + 1) / 2;
    philox_words(j->seed, j->offset + (uint64_t)(begin / 4),
                 (int64_t)blocks_for(2 * npairs, 1), w);
    normal_f32_loop(f, w, npairs, (float)j->a, (float)j->b);
}

static void normal_f64_tile(const job *j, int64_t begin, int64_t end,
                            double *d)
{
    uint32_t w[2 * TILE + 8];
    const int64_t m = end - begin;
    const int64_t npairs = (m + 1) / 2;
    philox_words(j->seed, j->offset + (uint64_t)(begin / 2),
                 (int64_t)blocks_for(2 * npairs, 2), w);
    for (int64_t q = 0; q < npairs; q++) {
        double u1 = tl_u64_to_open_unit_d(w[4 * q], w[4 * q + 1]);
        double u2 = tl_u64_to_unit_d(w[4 * q + 2], w[4 * q + 3]);
        double r = sqrt(-2.0 * log(u1)) * j->b;
        double th = 6.283185307179586 * u2;
        d[2 * q] = j->a + r * cos(th);
        d[2 * q + 1] = j->a + r * sin(th);
    }
}

/* Tiles hold an even count, so a pair never straddles two tiles; an odd
 * last element computes its pair and keeps the first. */
static void normal_tile(const job *j, int64_t begin, int64_t end)
{
    const int64_t m = end - begin;
    if (j->dt == TL_DTYPE_FLOAT64) {
        double d[TILE + 1];
        normal_f64_tile(j, begin, end, d);
        memcpy((double *)j->data + begin, d, (size_t)m * sizeof(double));
        return;
    }
    if (j->dt == TL_DTYPE_FLOAT32 && m % 2 == 0) {
        normal_f32_tile(j, begin, end, (float *)j->data + begin);
        return;
    }
    float f[TILE + 1];
    normal_f32_tile(j, begin, end, f);
    if (j->dt == TL_DTYPE_FLOAT32) {
        memcpy((float *)j->data + begin, f, (size_t)m * sizeof(float));
    } else {
        store_floats(j->dt, j->data + 2 * begin, f, m);
    }
}

static void log_normal_tile(const job *j, int64_t begin, int64_t end)
{
    const int64_t m = end - begin;
    if (j->dt == TL_DTYPE_FLOAT64) {
        double d[TILE + 1];
        normal_f64_tile(j, begin, end, d);
        double *o = (double *)j->data + begin;
        for (int64_t i = 0; i < m; i++) {
            o[i] = exp(d[i]);
        }
        return;
    }
    float f[TILE + 1];
    normal_f32_tile(j, begin, end, f);
    for (int64_t i = 0; i < m; i++) {
        f[i] = expf(f[i]);
    }
    if (j->dt == TL_DTYPE_FLOAT32) {
        memcpy((float *)j->data + begin, f, (size_t)m * sizeof(float));
    } else {
        store_floats(j->dt, j->data + 2 * begin, f, m);
    }
}

static int normal_like(const char *what, tl_tensor_impl *t, double mean,
                       double std, tl_generator *g, tile_fn fn, bool cplx)
{
    int rc = check_floating(what, t, cplx);
    if (rc < 0) {
        return rc;
    }
    if (!(std >= 0.0) || isinf(std)) {
        return tl_error(TL_ERR_VALUE, "%s expects std >= 0.0 (finite), but "
                        "found std %g", what, std);
    }
    if (!isfinite(mean)) {
        return tl_error(TL_ERR_VALUE, "%s expects a finite mean, but found "
                        "mean %g", what, mean);
    }
    target tg;
    if ((rc = target_begin(what, t, g, &tg)) < 0) {
        return rc;
    }
    job j = {0};
    job_on(&j, target_tensor(&tg), fn);
    j.a = mean;
    /* Complex: each part gets half the variance (as PyTorch). */
    j.b = tl_dtype_is_complex((tl_dtype)t->dtype) ? std * M_SQRT1_2 : std;
    /* Pairs: float64 takes 4 words per pair, the others 2. */
    const int64_t npairs = (j.n + 1) / 2;
    rc = target_reserve(&tg, &j, blocks_for(2 * npairs,
                                            j.dt == TL_DTYPE_FLOAT64 ? 2 : 1),
                        0);
    if (rc == 0) {
        run_job(&j, target_tensor(&tg));
    }
    return target_end(&tg, rc);
}

int tl_random_normal_(tl_tensor_impl *t, double mean, double std,
                      tl_generator *g)
{
    return normal_like("normal_", t, mean, std, g, normal_tile, true);
}

int tl_random_log_normal_(tl_tensor_impl *t, double mean, double std,
                          tl_generator *g)
{
    if (!(std > 0.0)) {
        return tl_error(TL_ERR_VALUE, "log_normal_ expects std > 0.0, but "
                        "found std=%g", std);
    }
    return normal_like("log_normal_", t, mean, std, g, log_normal_tile,
                       false);
}

/* ---- integers ------------------------------------------------------------ */

/* Note [Bounded integers]
 * Lemire's multiply-shift: for range R <= 2^32 one word w gives
 * floor(w R / 2^32), accepted unless the low half of w R falls below
 * 2^32 mod R (then every value is exactly equally likely); above 2^32 two
 * words and a 128-bit product do the same.  A rejected element (rare:
 * probability < R / 2^32) draws again from its own stream (block
 * offset2 + i), so the other elements never shift. */

static uint64_t bounded_retry(const job *j, int64_t i, bool wide)
{
    elem_stream s;
    stream_init(&s, j->seed, j->offset2 + (uint64_t)i);
    const uint64_t R = j->range;
    for (;;) {
        if (!wide) {
            uint64_t m = (uint64_t)stream_u32(&s) * R;
            uint32_t l = (uint32_t)m;
            if (l >= (uint32_t)((UINT64_C(1) << 32) % R)) {
                return m >> 32;
            }
        } else {
            unsigned __int128 m = (unsigned __int128)stream_u64(&s) * R;
            uint64_t l = (uint64_t)m;
            if (l >= (uint64_t)(-R) % R) {
                return (uint64_t)(m >> 64);
            }
        }
    }
}

static void integers_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[2 * TILE];
    int64_t v[TILE];
    const int64_t m = end - begin;
    const uint64_t R = j->range;
    const bool wide = R == 0 || R > (UINT64_C(1) << 32);
    const int k = wide ? 2 : 1;
    philox_words(j->seed, j->offset + (uint64_t)(begin * k / 4),
                 (int64_t)blocks_for(m, k), w);
    if (R == 0) {
        for (int64_t i = 0; i < m; i++) {
            v[i] = (int64_t)((uint64_t)w[2 * i] |
                             ((uint64_t)w[2 * i + 1] << 32));
        }
    } else if (R == (UINT64_C(1) << 32)) {
        for (int64_t i = 0; i < m; i++) {
            v[i] = (int64_t)((uint64_t)j->low + w[i]);
        }
    } else if (!wide) {
        const uint32_t thr = (uint32_t)((UINT64_C(1) << 32) % R);
        for (int64_t i = 0; i < m; i++) {
            uint64_t p = (uint64_t)w[i] * R;
            uint64_t x = (uint32_t)p >= thr ? p >> 32
                                            : bounded_retry(j, begin + i,
                                                            false);
            v[i] = (int64_t)((uint64_t)j->low + x);
        }
    } else {
        const uint64_t thr = (uint64_t)(-R) % R;
        for (int64_t i = 0; i < m; i++) {
            uint64_t x64 = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
            unsigned __int128 p = (unsigned __int128)x64 * R;
            uint64_t x = (uint64_t)p >= thr ? (uint64_t)(p >> 64)
                                            : bounded_retry(j, begin + i,
                                                            true);
            v[i] = (int64_t)((uint64_t)j->low + x);
        }
    }
    char *p = j->data;
    switch (j->dt) {
    case TL_DTYPE_INT64:
    case TL_DTYPE_UINT64:
        memcpy((int64_t *)p + begin, v, (size_t)m * sizeof(int64_t));
        break;
    case TL_DTYPE_INT32: {
        int32_t *d = (int32_t *)p + begin;
        for (int64_t i = 0; i < m; i++) {
            d[i] = (int32_t)v[i];
        }
        break;
    }
    case TL_DTYPE_FLOAT32: {
        float *d = (float *)p + begin;
        for (int64_t i = 0; i < m; i++) {
            d[i] = (float)v[i];
        }
        break;
    }
    default:
        for (int64_t i = 0; i < m; i++) {
            store_int(j->dt, p, begin + i, v[i]);
        }
        break;
    }
}

/* The value range of an integer dtype (bool: 0, 1). */
static void int_range(tl_dtype dt, int64_t *lo, uint64_t *hi)
{
    switch (dt) {
    case TL_DTYPE_BOOL:
        *lo = 0, *hi = 1;
        break;
    case TL_DTYPE_UINT8:
        *lo = 0, *hi = UINT8_MAX;
        break;
    case TL_DTYPE_INT8:
        *lo = INT8_MIN, *hi = INT8_MAX;
        break;
    case TL_DTYPE_INT16:
        *lo = INT16_MIN, *hi = INT16_MAX;
        break;
    case TL_DTYPE_UINT16:
        *lo = 0, *hi = UINT16_MAX;
        break;
    case TL_DTYPE_INT32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        break;
    case TL_DTYPE_UINT32:
        *lo = 0, *hi = UINT32_MAX;
        break;
    case TL_DTYPE_UINT64:
        *lo = 0, *hi = UINT64_MAX;
        break;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        break;
    }
}

int tl_random_check_bounds(const char *what, tl_dtype dt, int64_t low,
                           int64_t high, bool high_inclusive)
{
    const char *name = tl_dtype_info_of(dt)->name;
    if (tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "%s: random integers need an integral, "
                        "floating-point or bool dtype, got %s", what, name);
    }
    if (!high_inclusive && low >= high) {
        return tl_error(TL_ERR_VALUE, "%s expects 'from' to be less than "
                        "'to', but got from=%lld >= to=%lld", what,
                        (long long)low, (long long)high);
    }
    int64_t top = high_inclusive ? high : high - 1;
    if (tl_dtype_is_floating(dt)) {
        const int64_t lim = INT64_C(1) << float_digits(dt);
        if (float_digits(dt) < 63 && (low < -lim || top > lim)) {
            return tl_error(TL_ERR_VALUE, "%s: [%lld, %lld] is out of the "
                            "range [-2^%d, 2^%d] where %s holds every "
                            "integer", what, (long long)low, (long long)top,
                            float_digits(dt), float_digits(dt), name);
        }
        return 0;
    }
    int64_t lo;
    uint64_t hi;
    int_range(dt, &lo, &hi);
    if (low < lo || (low >= 0 && (uint64_t)low > hi)) {
        return tl_error(TL_ERR_VALUE, "%s: from=%lld is out of bounds for %s",
                        what, (long long)low, name);
    }
    if (top < lo || (top >= 0 && (uint64_t)top > hi)) {
        return tl_error(TL_ERR_VALUE, "%s: to - 1 = %lld is out of bounds "
                        "for %s", what, (long long)top, name);
    }
    return 0;
}

static int integers(const char *what, tl_tensor_impl *t, int64_t low,
                    uint64_t range, tl_generator *g)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "%s: random integers need an integral, "
                        "floating-point or bool dtype, got %s", what,
                        tl_dtype_info_of(dt)->name);
    }
    target tg;
    int rc = target_begin(what, t, g, &tg);
    if (rc < 0) {
        return rc;
    }
    job j = {0};
    job_on(&j, target_tensor(&tg), integers_tile);
    j.low = low;
    j.range = range;
    const bool wide = range == 0 || range > (UINT64_C(1) << 32);
    rc = target_reserve(&tg, &j, blocks_for(j.n, wide ? 2 : 1),
                        (uint64_t)j.n);
    if (rc == 0) {
        run_job(&j, target_tensor(&tg));
    }
    return target_end(&tg, rc);
}

int tl_random_integers_(tl_tensor_impl *t, int64_t low, uint64_t range,
                        tl_generator *g)
{
    return integers("random_", t, low, range, g);
}

int tl_random_random_full_(tl_tensor_impl *t, tl_generator *g)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (tl_dtype_is_floating(dt)) {
        /* [0, 2^digits] inclusive, as PyTorch's random_(). */
        return integers("random_", t, 0,
                        (UINT64_C(1) << float_digits(dt)) + 1, g);
    }
    int64_t lo;
    uint64_t hi;
    int_range(dt, &lo, &hi);
    (void)lo;
    /* [0, max]: max + 1 values (2^64 for uint64 is 0). */
    return integers("random_", t, 0, hi + 1, g);
}

/* ---- exponential, geometric, cauchy, bernoulli ----------------------------- */

RNG_MULTIVERSION
static void expo_f32_loop(float *dst, const uint32_t *w, int64_t m,
                          float inv)
{
    for (int64_t i = 0; i < m; i++) {
        dst[i] = -vlogf(open_unit_f(w[i])) * inv;
    }
}

static void exponential_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[2 * TILE];
    const int64_t m = end - begin;
    const int k = j->dt == TL_DTYPE_FLOAT64 ? 2 : 1;
    philox_words(j->seed, j->offset + (uint64_t)(begin * k / 4),
                 (int64_t)blocks_for(m, k), w);
    if (j->dt == TL_DTYPE_FLOAT64) {
        double *d = (double *)j->data + begin;
        for (int64_t i = 0; i < m; i++) {
            d[i] = -log(tl_u64_to_open_unit_d(w[2 * i], w[2 * i + 1])) / j->a;
        }
    } else if (j->dt == TL_DTYPE_FLOAT32) {
        expo_f32_loop((float *)j->data + begin, w, m, (float)(1.0 / j->a));
    } else {
        float f[TILE];
        expo_f32_loop(f, w, m, (float)(1.0 / j->a));
        store_floats(j->dt, j->data + 2 * begin, f, m);
    }
}

/* Geometric, Cauchy: computed in double from 53-bit uniforms in (0, 1). */
static void geometric_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[2 * TILE];
    const int64_t m = end - begin;
    philox_words(j->seed, j->offset + (uint64_t)(begin / 2),
                 (int64_t)blocks_for(m, 2), w);
    const double inv = 1.0 / log1p(-j->a);
    int64_t lo;
    uint64_t hi;
    int_range(j->dt, &lo, &hi);
    const double top = tl_dtype_is_floating(j->dt) ? INFINITY : (double)hi;
    for (int64_t i = 0; i < m; i++) {
        uint64_t x = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
        double u = ((double)(x >> 11) + 0.5) * 1.1102230246251565e-16;
        double v = ceil(log(u) * inv);
        v = v < 1.0 ? 1.0 : v;
        store_f64(j->dt, j->data, begin + i, v < top ? v : top);
    }
}

static void cauchy_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[2 * TILE];
    const int64_t m = end - begin;
    philox_words(j->seed, j->offset + (uint64_t)(begin / 2),
                 (int64_t)blocks_for(m, 2), w);
    for (int64_t i = 0; i < m; i++) {
        uint64_t x = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
        double u = ((double)(x >> 11) + 0.5) * 1.1102230246251565e-16;
        store_f64(j->dt, j->data, begin + i,
                  j->a + j->b * tan(M_PI * (u - 0.5)));
    }
}

/* 1 when the word, as a fraction of 2^32, is below p. */
static void bernoulli_tile(const job *j, int64_t begin, int64_t end)
{
    uint32_t w[TILE];
    const int64_t m = end - begin;
    philox_words(j->seed, j->offset + (uint64_t)(begin / 4),
                 (int64_t)blocks_for(m, 1), w);
    for (int64_t i = 0; i < m; i++) {
        double p = j->p ? j->p[begin + i] : j->a;
        store_int(j->dt, j->data, begin + i,
                  (double)w[i] < p * 4294967296.0 ? 1 : 0);
    }
}

/* A fill with k words per element and no streams. */
static int simple_fill(const char *what, tl_tensor_impl *t, tl_generator *g,
                       tile_fn fn, int k, double a, double b,
                       const double *p)
{
    target tg;
    int rc = target_begin(what, t, g, &tg);
    if (rc < 0) {
        return rc;
    }
    job j = {0};
    job_on(&j, target_tensor(&tg), fn);
    j.a = a;
    j.b = b;
    j.p = p;
    if (k == 0) {
        k = j.dt == TL_DTYPE_FLOAT64 ? 2 : 1;
    }
    rc = target_reserve(&tg, &j, blocks_for(j.n, k), 0);
    if (rc == 0) {
        run_job(&j, target_tensor(&tg));
    }
    return target_end(&tg, rc);
}

int tl_random_exponential_(tl_tensor_impl *t, double lambd, tl_generator *g)
{
    int rc = check_floating("exponential_", t, false);
    if (rc < 0) {
        return rc;
    }
    if (!(lambd > 0.0) || isinf(lambd)) {
        return tl_error(TL_ERR_VALUE, "exponential_ expects lambda > 0.0 "
                        "(finite), but found lambda=%g", lambd);
    }
    return simple_fill("exponential_", t, g, exponential_tile, 0, lambd, 0,
                       NULL);
}

int tl_random_geometric_(tl_tensor_impl *t, double p, tl_generator *g)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (dt == TL_DTYPE_BOOL || tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "geometric_: expected an integral or "
                        "floating dtype, got %s", tl_dtype_info_of(dt)->name);
    }
    if (!(p > 0.0 && p < 1.0)) {
        return tl_error(TL_ERR_VALUE, "geometric_ expects p to be in (0, 1), "
                        "but got p=%g", p);
    }
    return simple_fill("geometric_", t, g, geometric_tile, 2, p, 0, NULL);
}

int tl_random_cauchy_(tl_tensor_impl *t, double median, double sigma,
                      tl_generator *g)
{
    int rc = check_floating("cauchy_", t, false);
    if (rc < 0) {
        return rc;
    }
    if (!(sigma > 0.0) || isinf(sigma) || !isfinite(median)) {
        return tl_error(TL_ERR_VALUE, "cauchy_ expects sigma > 0.0 and "
                        "finite median and sigma, but found median=%g, "
                        "sigma=%g", median, sigma);
    }
    return simple_fill("cauchy_", t, g, cauchy_tile, 2, median, sigma, NULL);
}

int tl_random_bernoulli_(tl_tensor_impl *t, double p, tl_generator *g)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "bernoulli_: expected a real dtype, "
                        "got %s", tl_dtype_info_of(dt)->name);
    }
    if (!(p >= 0.0 && p <= 1.0)) {
        return tl_error(TL_ERR_VALUE, "bernoulli_ expects p to be in [0, 1], "
                        "but got p=%g", p);
    }
    return simple_fill("bernoulli_", t, g, bernoulli_tile, 1, p, 0, NULL);
}

/* p as a contiguous float64 tensor of t's shape (broadcast).
 * Returns: new reference, or NULL. */
static tl_tensor_impl *float64_like(tl_tensor_impl *t, tl_tensor_impl *p)
{
    tl_tensor_impl *d = tl_tensor_empty(t->ndim, t->sizes, TL_DTYPE_FLOAT64,
                                        tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (d && tl_copy_unchecked(d, p) < 0) {
        tl_tensor_decref(d);
        return NULL;
    }
    return d;
}

int tl_random_bernoulli_tensor_(tl_tensor_impl *t, tl_tensor_impl *p,
                                tl_generator *g)
{
    tl_dtype dt = (tl_dtype)t->dtype;
    if (tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "bernoulli_: expected a real dtype, "
                        "got %s", tl_dtype_info_of(dt)->name);
    }
    if (tl_dtype_is_complex((tl_dtype)p->dtype)) {
        return tl_error(TL_ERR_TYPE, "bernoulli_: p must be real, got %s",
                        tl_dtype_info_of((tl_dtype)p->dtype)->name);
    }
    if (p->device.type != TL_DEVICE_CPU) {
        char buf[32];
        tl_device_format(p->device, buf, sizeof buf);
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "bernoulli_: random numbers "
                        "on %s tensors are not implemented (tensorlib draws "
                        "them on the CPU only)", buf);
    }
    if (t->device.type != TL_DEVICE_CPU) {
        target tg; /* records the not-implemented error, allocates nothing */
        return target_begin("bernoulli_", t, g, &tg);
    }
    int rc = tl_tensor_check_live(p);
    if (rc < 0) {
        return rc;
    }
    /* p must broadcast to t (not the other way round). */
    if (p->ndim > t->ndim) {
        return tl_error(TL_ERR_SHAPE, "bernoulli_: p of %d dims does not "
                        "broadcast to the %d-dim tensor", p->ndim, t->ndim);
    }
    for (int d = 0; d < p->ndim; d++) {
        int64_t ps = p->sizes[p->ndim - 1 - d];
        int64_t ts = t->sizes[t->ndim - 1 - d];
        if (ps != 1 && ps != ts) {
            return tl_error(TL_ERR_SHAPE, "bernoulli_: p's size %lld at dim "
                            "%d does not broadcast to %lld", (long long)ps,
                            p->ndim - 1 - d, (long long)ts);
        }
    }
    tl_tensor_impl *pd = float64_like(t, p);
    if (!pd) {
        return tl_error_kind();
    }
    const double *pv = (const double *)tl_impl_data(pd);
    for (int64_t i = 0; i < pd->numel; i++) {
        if (!(pv[i] >= 0.0 && pv[i] <= 1.0)) {
            rc = tl_error(TL_ERR_VALUE, "bernoulli: expected every "
                          "probability in [0, 1], but found p=%g", pv[i]);
            tl_tensor_decref(pd);
            return rc;
        }
    }
    rc = simple_fill("bernoulli_", t, g, bernoulli_tile, 1, 0, 0, pv);
    tl_tensor_decref(pd);
    return rc;
}

/* ---- poisson ---------------------------------------------------------------
 * Note [Poisson sampling]
 * Rates below 10: multiply uniforms until the product falls to exp(-lam)
 * (Knuth).  From 10 on: Hormann's transformed rejection with squeeze
 * (PTRS, "The transformed rejection method for generating Poisson random
 * variables", 1993), the method NumPy uses; O(1) draws for any rate.  Each
 * element draws from its own stream (block offset + i). */

static double poisson_one(elem_stream *s, double lam)
{
    if (lam == 0.0) {
        return 0.0;
    }
    if (lam < 10.0) {
        const double L = exp(-lam);
        double prod = 1.0;
        double k = -1.0;
        do {
            k += 1.0;
            prod *= stream_unit(s);
        } while (prod > L);
        return k;
    }
    const double slam = sqrt(lam), loglam = log(lam);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    const double vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        double U = stream_unit(s) - 0.5;
        double V = stream_unit(s);
        double us = 0.5 - fabs(U);
        double k = floor((2.0 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) {
            return k;
        }
        if (k < 0.0 || (us < 0.013 && V > us)) {
            continue;
        }
        int sg;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <=
            -lam + k * loglam - lgamma_r(k + 1.0, &sg)) {
            return k;
        }
    }
}

static void poisson_tile(const job *j, int64_t begin, int64_t end)
{
    for (int64_t i = begin; i < end; i++) {
        elem_stream s;
        stream_init(&s, j->seed, j->offset2 + (uint64_t)i);
        store_f64(j->dt, j->data, i, poisson_one(&s, j->p[i]));
    }
}

tl_tensor_impl *tl_random_poisson(tl_tensor_impl *rates, tl_generator *g)
{
    static const char what[] = "poisson";
    tl_tensor_impl *out = NULL, *rd = NULL;
    if (check_floating(what, rates, false) < 0) {
        return NULL;
    }
    if (rates->device.type != TL_DEVICE_CPU) {
        target_begin(what, rates, g, &(target){0});
        return NULL;
    }
    if (tl_tensor_check_live(rates) < 0) {
        return NULL;
    }
    rd = float64_like(rates, rates);
    if (!rd) {
        return NULL;
    }
    const double *pv = (const double *)tl_impl_data(rd);
    for (int64_t i = 0; i < rd->numel; i++) {
        if (!(pv[i] >= 0.0) || isinf(pv[i])) {
            tl_error(TL_ERR_VALUE, "poisson: invalid rate %g, expected every "
                     "rate to be non-negative and finite", pv[i]);
            goto fail;
        }
    }
    out = tl_tensor_empty(rates->ndim, rates->sizes, (tl_dtype)rates->dtype,
                          rates->device, TL_MEMKIND_DEFAULT);
    target tg;
    if (!out || target_begin(what, out, g, &tg) < 0) {
        goto fail;
    }
    job j = {0};
    job_on(&j, out, poisson_tile);
    j.p = pv;
    if (target_reserve(&tg, &j, 0, (uint64_t)j.n) < 0) {
        target_end(&tg, -1);
        goto fail;
    }
    run_job(&j, out);
    target_end(&tg, 0);
    tl_tensor_decref(rd);
    return out;
fail:
    tl_tensor_decref(rd);
    tl_tensor_decref(out);
    return NULL;
}

/* ---- multinomial ------------------------------------------------------------
 * Note [Multinomial sampling]
 * With replacement: sample s of row r takes 53-bit word pair r * n + s and
 * finds its category by binary search in the row's running sums.
 * Without: every category c of row r gets the key E / w_c, E exponential
 * from word pair r * ncat + c; the num_samples smallest keys, in order,
 * are a draw of weighted sampling without replacement (the exponential
 * race), and zero weights (key +inf) never win. */

typedef struct {
    double key;
    int64_t idx;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

tl_tensor_impl *tl_random_multinomial(tl_tensor_impl *probs,
                                      int64_t num_samples, bool replacement,
                                      tl_generator *g)
{
    static const char what[] = "multinomial";
    tl_tensor_impl *pd = NULL, *out = NULL, *scratch = NULL;
    if (!tl_dtype_is_floating((tl_dtype)probs->dtype)) {
        tl_error(TL_ERR_TYPE, "multinomial only supports floating-point "
                 "dtypes for input, got %s",
                 tl_dtype_info_of((tl_dtype)probs->dtype)->name);
        return NULL;
    }
    if (probs->ndim != 1 && probs->ndim != 2) {
        tl_error(TL_ERR_SHAPE, "multinomial: prob_dist must be 1 or 2 dim, "
                 "got %d dims", probs->ndim);
        return NULL;
    }
    if (probs->device.type != TL_DEVICE_CPU) {
        target_begin(what, probs, g, &(target){0});
        return NULL;
    }
    const int64_t ncat = probs->sizes[probs->ndim - 1];
    const int64_t rows = probs->ndim == 2 ? probs->sizes[0] : 1;
    if (num_samples <= 0) {
        tl_error(TL_ERR_VALUE, "multinomial: cannot sample num_samples=%lld "
                 "<= 0 samples", (long long)num_samples);
        return NULL;
    }
    if (ncat == 0) {
        tl_error(TL_ERR_VALUE, "multinomial: the distribution has no "
                 "categories");
        return NULL;
    }
    if (!replacement && num_samples > ncat) {
        tl_error(TL_ERR_VALUE, "multinomial: cannot sample num_samples=%lld "
                 "> %lld categories without replacement",
                 (long long)num_samples, (long long)ncat);
        return NULL;
    }
    if (tl_tensor_check_live(probs) < 0) {
        return NULL;
    }
    pd = float64_like(probs, probs);
    if (!pd) {
        return NULL;
    }
    double *w = (double *)tl_impl_data(pd);
    for (int64_t r = 0; r < rows; r++) {
        double sum = 0.0;
        int64_t nz = 0;
        for (int64_t c = 0; c < ncat; c++) {
            double v = w[r * ncat + c];
            if (!(v >= 0.0) || isinf(v)) {
                tl_error(TL_ERR_VALUE, "multinomial: probability tensor "
                         "contains inf, nan or an element < 0 (%g in row "
                         "%lld)", v, (long long)r);
                goto fail;
            }
            sum += v;
            nz += v > 0.0;
        }
        if (!(sum > 0.0) || isinf(sum)) {
            tl_error(TL_ERR_VALUE, "multinomial: invalid distribution (sum "
                     "of probabilities %g in row %lld)", sum, (long long)r);
            goto fail;
        }
        if (!replacement && nz < num_samples) {
            tl_error(TL_ERR_VALUE, "multinomial: row %lld has %lld non-zero "
                     "weights, fewer than num_samples=%lld without "
                     "replacement", (long long)r, (long long)nz,
                     (long long)num_samples);
            goto fail;
        }
    }
    int64_t osz[2] = {rows, num_samples};
    out = probs->ndim == 2
              ? tl_tensor_empty(2, osz, TL_DTYPE_INT64, tl_device_cpu(),
                                TL_MEMKIND_DEFAULT)
              : tl_tensor_empty(1, &num_samples, TL_DTYPE_INT64,
                                tl_device_cpu(), TL_MEMKIND_DEFAULT);
    if (!out) {
        goto fail;
    }
    if (!replacement) {
        int64_t ssz = ncat * (int64_t)(sizeof(keyed) / sizeof(int64_t));
        scratch = tl_tensor_empty(1, &ssz, TL_DTYPE_INT64, tl_device_cpu(),
                                  TL_MEMKIND_DEFAULT);
        if (!scratch) {
            goto fail;
        }
    }
    tl_generator *gen = g ? g : tl_generator_default(tl_device_cpu());
    if (!gen) {
        goto fail;
    }
    if (!tl_device_eq(gen->device, probs->device)) {
        target_begin(what, out, g, &(target){0});
        goto fail;
    }
    const int64_t per_row = replacement ? num_samples : ncat;
    uint64_t seed, off;
    if (tl_generator_reserve(gen, blocks_for(rows * per_row, 2), &seed,
                             &off) < 0) {
        goto fail;
    }
    int64_t *o = (int64_t *)tl_impl_data(out);
    for (int64_t r = 0; r < rows; r++) {
        double *row = w + r * ncat;
        const int64_t e0 = r * per_row; /* first element index of the row */
        if (replacement) {
            int64_t last = 0;
            for (int64_t c = 0; c < ncat; c++) {
                last = row[c] > 0.0 ? c : last;
                row[c] += c ? row[c - 1] : 0.0; /* running sums */
            }
            const double total = row[ncat - 1];
            for (int64_t s = 0; s < num_samples; s++) {
                uint32_t blk[4];
                int64_t e = e0 + s;
                tl_philox_block(seed, off + (uint64_t)(e / 2), 0, blk);
                double u = tl_u64_to_unit_d(blk[2 * (e % 2)],
                                            blk[2 * (e % 2) + 1]);
                double target_v = u * total;
                int64_t lo = 0, hi = ncat - 1;
                while (lo < hi) { /* first c with sum[c] > target_v */
                    int64_t mid = lo + (hi - lo) / 2;
                    if (row[mid] > target_v) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                o[r * num_samples + s] = lo > last ? last : lo;
            }
        } else {
            keyed *ks = (keyed *)tl_impl_data(scratch);
            for (int64_t c = 0; c < ncat; c++) {
                uint32_t blk[4];
                int64_t e = e0 + c;
                tl_philox_block(seed, off + (uint64_t)(e / 2), 0, blk);
                double u = tl_u64_to_open_unit_d(blk[2 * (e % 2)],
                                                 blk[2 * (e % 2) + 1]);
                ks[c].key = row[c] > 0.0 ? -log(u) / row[c] : INFINITY;
                ks[c].idx = c;
            }
            qsort(ks, (size_t)ncat, sizeof(keyed), keyed_cmp);
            for (int64_t s = 0; s < num_samples; s++) {
                o[r * num_samples + s] = ks[s].idx;
            }
        }
    }
    tl_tensor_decref(pd);
    tl_tensor_decref(scratch);
    return out;
fail:
    tl_tensor_decref(pd);
    tl_tensor_decref(out);
    tl_tensor_decref(scratch);
    return NULL;
}

/* ---- randperm ---------------------------------------------------------------
 * Note [Random permutations]
 * Fisher-Yates from the top: for i = n-1 down to 1, swap a[i] with a[j],
 * j uniform on [0, i] from word i of the op's stream by Lemire's method
 * (Note [Bounded integers]; a rejected word redraws from element i's own
 * stream).  The draws are generated in vectorised tiles and only the
 * swaps are sequential, so the permutation depends only on (seed,
 * offset, n).  (A sort by random keys was measured first: its bucket
 * pass over 10^6 keys cost twice NumPy's shuffle.) */

static uint64_t perm_draw(const job *j, int64_t i, uint32_t lo, uint32_t hi,
                          bool wide)
{
    const uint64_t R = (uint64_t)i + 1;
    if (!wide) {
        uint64_t m = (uint64_t)lo * R;
        if ((uint32_t)m >= (uint32_t)((UINT64_C(1) << 32) % R)) {
            return m >> 32;
        }
    } else {
        uint64_t x = (uint64_t)lo | ((uint64_t)hi << 32);
        unsigned __int128 m = (unsigned __int128)x * R;
        if ((uint64_t)m >= (uint64_t)(-R) % R) {
            return (uint64_t)(m >> 64);
        }
    }
    job jj = *j;
    jj.range = R;
    return bounded_retry(&jj, i, wide);
}

int tl_random_randperm_(tl_tensor_impl *t, tl_generator *g)
{
    static const char what[] = "randperm";
    tl_dtype dt = (tl_dtype)t->dtype;
    tl_tensor_impl *scratch = NULL;
    if (dt == TL_DTYPE_BOOL || tl_dtype_is_complex(dt)) {
        return tl_error(TL_ERR_TYPE, "randperm: not implemented for %s",
                        tl_dtype_info_of(dt)->name);
    }
    if (t->ndim != 1) {
        return tl_error(TL_ERR_SHAPE, "randperm: expected a 1-dim tensor, "
                        "got %d dims", t->ndim);
    }
    const int64_t n = t->numel;
    if (n > 0 && tl_random_check_bounds(what, dt, 0, n - 1, true) < 0) {
        return tl_error(TL_ERR_VALUE, "randperm: n=%lld does not fit %s "
                        "(its largest element %lld is out of bounds)",
                        (long long)n, tl_dtype_info_of(dt)->name,
                        (long long)(n - 1));
    }
    target tg;
    int rc = target_begin(what, t, g, &tg);
    if (rc < 0) {
        return rc;
    }
    tl_tensor_impl *tt = target_tensor(&tg);
    int64_t *a;
    if (dt == TL_DTYPE_INT64) {
        a = (int64_t *)tl_impl_data(tt);
    } else {
        scratch = tl_tensor_empty(1, &n, TL_DTYPE_INT64, tl_device_cpu(),
                                  TL_MEMKIND_DEFAULT);
        if (!scratch) {
            return target_end(&tg, tl_error_kind());
        }
        a = (int64_t *)tl_impl_data(scratch);
    }
    const bool wide = n > (INT64_C(1) << 32);
    const int k = wide ? 2 : 1;
    job j = {0};
    if ((rc = target_reserve(&tg, &j, blocks_for(n, k), (uint64_t)n)) < 0) {
        tl_tensor_decref(scratch);
        return target_end(&tg, rc);
    }
    for (int64_t i = 0; i < n; i++) {
        a[i] = i;
    }
    const int64_t ntiles = (n + TILE - 1) / TILE;
    for (int64_t tile = ntiles - 1; tile >= 0; tile--) {
        uint32_t w[2 * TILE];
        const int64_t b = tile * TILE;
        const int64_t m = n - b < TILE ? n - b : TILE;
        philox_words(j.seed, j.offset + (uint64_t)(b * k / 4),
                     (int64_t)blocks_for(m, k), w);
        for (int64_t q = m - 1; q >= 0; q--) {
            const int64_t i = b + q;
            if (i == 0) {
                break;
            }
            uint64_t r = perm_draw(&j, i, w[k * q], wide ? w[k * q + 1] : 0,
                                   wide);
            int64_t x = a[i];
            a[i] = a[r];
            a[r] = x;
        }
    }
    if (scratch) {
        char *dst = tl_impl_data(tt);
        for (int64_t i = 0; i < n; i++) {
            store_int(dt, dst, i, a[i]);
        }
        tl_tensor_decref(scratch);
    }
    return target_end(&tg, 0);
}
