/* benchmarks/bounds/kernels.c — plain-C versions of the large cases of
 * benchmarks/run.py, the "C bound" column: what a straightforward,
 * cache-aware C loop (gcc -O3 -march=native) achieves on the same buffers,
 * timed in the same process and interleaved with the libraries, so that a
 * busy machine slows the bound and the libraries alike.
 *
 * run.py builds this into build/bench/libtlbounds.so with
 *   gcc -O3 -march=native -std=c11 -shared -fPIC -pthread
 * and calls it through ctypes (a few µs per call, nothing next to the
 * milliseconds of these cases).  Every function takes the thread count nt
 * and splits its outer loop over nt pthreads (nt = 1: the caller's thread).
 * Outputs are written into caller-provided, already faulted-in buffers: the
 * bound of an allocating op is the op with an allocator that costs
 * nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define TILE 64
#define MAXT 64

typedef struct {
    void (*fn)(void *ctx, int64_t lo, int64_t hi);
    void *ctx;
    int64_t lo, hi;
} part;

static void *part_main(void *p)
{
    part *j = p;
    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

/* Worker threads, started on first use and kept for the process, as the
 * libraries' own pools are: a pthread_create and join per call cost tens
 * of microseconds, a large part of a two-thread reduction of 16 MiB (100-
 * 400 us), and so does waking a thread blocked on a condition variable
 * on this VM.  So a worker spins on the job counter for a while (some
 * 100 us) before it blocks, as the caller does while it waits.  A
 * job is the parts of one par() call: the caller runs part 0, worker k
 * (k >= 1) part k; every started worker acknowledges every job, so none
 * can lag into the next one. */
#define POOL_SPINS 5000
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_go = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static int pool_workers;            /* started (under pool_mu) */
static _Atomic uint64_t pool_gen;   /* bumped for each job */
static _Atomic int pool_left;       /* workers yet to finish the job */
static uint64_t pool_gen0[MAXT];    /* pool_gen when worker k started */
static const part *pool_parts;      /* the job: set before pool_gen moves */
static int pool_used;

static void pool_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *pool_main(void *arg)
{
    const int id = (int)(intptr_t)arg;
    uint64_t seen = pool_gen0[id]; /* jobs after that one are ours */
    for (;;) {
        uint64_t g;
        int spins = 0;
        while ((g = atomic_load(&pool_gen)) == seen && spins < POOL_SPINS) {
            pool_pause();
            spins++;
        }
        if (g == seen) {
            pthread_mutex_lock(&pool_mu);
            while ((g = atomic_load(&pool_gen)) == seen) {
                pthread_cond_wait(&pool_go, &pool_mu);
            }
            pthread_mutex_unlock(&pool_mu);
        }
        seen = g;
        if (id < pool_used) {
            part p = pool_parts[id];
            part_main(&p);
        }
        if (atomic_fetch_sub(&pool_left, 1) == 1) {
            pthread_mutex_lock(&pool_mu);
            pthread_cond_signal(&pool_done);
            pthread_mutex_unlock(&pool_mu);
        }
    }
    return NULL;
}

/* Starts workers up to want (at most MAXT - 1), between jobs; returns how
 * many run. */
static int pool_start(int want)
{
    pthread_mutex_lock(&pool_mu);
    while (pool_workers < want) {
        pthread_t th;
        const int id = pool_workers + 1;
        pool_gen0[id] = atomic_load(&pool_gen);
        if (pthread_create(&th, NULL, pool_main, (void *)(intptr_t)id) != 0) {
            break;
        }
        pthread_detach(th);
        pool_workers++;
    }
    const int have = pool_workers;
    pthread_mutex_unlock(&pool_mu);
    return have;
}

/* Runs fn over [0, n) in nt contiguous parts aligned to `align`. */
static void par(void (*fn)(void *, int64_t, int64_t), void *ctx, int64_t n,
                int nt, int64_t align)
{
    if (nt <= 1 || n < 2 * align) {
        fn(ctx, 0, n);
        return;
    }
    if (nt > MAXT) {
        nt = MAXT;
    }
    part parts[MAXT];
    int64_t per = (n + nt - 1) / nt;
    per = (per + align - 1) / align * align;
    int used = 0;
    for (int t = 0; t < nt; t++) {
        int64_t lo = t * per, hi = lo + per < n ? lo + per : n;
        if (lo >= n) {
            break;
        }
        parts[t] = (part){fn, ctx, lo, hi};
        used++;
    }
    const int workers = pool_start(used - 1);
    const int pooled = workers + 1 < used ? workers + 1 : used;
    pthread_mutex_lock(&pool_mu);
    pool_parts = parts;
    pool_used = pooled;
    atomic_store(&pool_left, workers);
    atomic_fetch_add(&pool_gen, 1); /* publishes the job (seq_cst) */
    pthread_cond_broadcast(&pool_go);
    pthread_mutex_unlock(&pool_mu);
    part_main(&parts[0]);
    for (int t = pooled; t < used; t++) {
        part_main(&parts[t]); /* no worker for it: do it here */
    }
    for (int spins = 0; atomic_load(&pool_left) > 0 && spins < POOL_SPINS;
         spins++) {
        pool_pause();
    }
    pthread_mutex_lock(&pool_mu);
    while (atomic_load(&pool_left) > 0) {
        pthread_cond_wait(&pool_done, &pool_mu);
    }
    pthread_mutex_unlock(&pool_mu);
}

/* ---- c = a + b ----------------------------------------------------------- */

typedef struct {
    const float *a, *b;
    float *c;
    int64_t n;
} add_ctx;

static void add_part(void *vc, int64_t lo, int64_t hi)
{
    const add_ctx *x = vc;
    const float *restrict a = x->a, *restrict b = x->b;
    float *restrict c = x->c;
    for (int64_t i = lo; i < hi; i++) {
        c[i] = a[i] + b[i];
    }
}

void tlb_add_f32(const float *a, const float *b, float *c, int64_t n, int nt)
{
    add_ctx x = {a, b, c, n};
    par(add_part, &x, n, nt, 4096);
}

/* ---- (m,1) + (1,n) --------------------------------------------------------- */

typedef struct {
    const float *col, *row;
    float *c;
    int64_t m, n;
} bc_ctx;

static void bcast_part(void *vc, int64_t lo, int64_t hi)
{
    const bc_ctx *x = vc;
    for (int64_t i = lo; i < hi; i++) {
        const float v = x->col[i];
        const float *restrict r = x->row;
        float *restrict c = x->c + i * x->n;
        for (int64_t j = 0; j < x->n; j++) {
            c[j] = v + r[j];
        }
    }
}

void tlb_bcast_add_f32(const float *col, const float *row, float *c,
                       int64_t m, int64_t n, int nt)
{
    bc_ctx x = {col, row, c, m, n};
    par(bcast_part, &x, m, nt, 1);
}

/* ---- c = a.T + a and c = a.T, n x n, in TILE x TILE tiles ---------------- */

typedef struct {
    const float *a;
    float *c;
    int64_t n;
} sq_ctx;

static void tadd_part(void *vc, int64_t lo, int64_t hi)
{
    const sq_ctx *x = vc;
    const int64_t n = x->n;
    const float *restrict a = x->a;
    float *restrict c = x->c;
    for (int64_t ii = lo; ii < hi; ii += TILE) {
        const int64_t ie = ii + TILE < hi ? ii + TILE : hi;
        for (int64_t jj = 0; jj < n; jj += TILE) {
            const int64_t je = jj + TILE < n ? jj + TILE : n;
            for (int64_t i = ii; i < ie; i++) {
                for (int64_t j = jj; j < je; j++) {
                    c[i * n + j] = a[j * n + i] + a[i * n + j];
                }
            }
        }
    }
}

void tlb_tadd_f32(const float *a, float *c, int64_t n, int nt)
{
    sq_ctx x = {a, c, n};
    par(tadd_part, &x, n, nt, TILE);
}

static void tcopy_part(void *vc, int64_t lo, int64_t hi)
{
    const sq_ctx *x = vc;
    const int64_t n = x->n;
    const float *restrict a = x->a;
    float *restrict c = x->c;
    for (int64_t ii = lo; ii < hi; ii += TILE) {
        const int64_t ie = ii + TILE < hi ? ii + TILE : hi;
        for (int64_t jj = 0; jj < n; jj += TILE) {
            const int64_t je = jj + TILE < n ? jj + TILE : n;
            for (int64_t i = ii; i < ie; i++) {
                for (int64_t j = jj; j < je; j++) {
                    c[i * n + j] = a[j * n + i];
                }
            }
        }
    }
}

void tlb_tcopy_f32(const float *a, float *c, int64_t n, int nt)
{
    sq_ctx x = {a, c, n};
    par(tcopy_part, &x, n, nt, TILE);
}

/* ---- sums ------------------------------------------------------------------ */

/* Blocks of 4096 summed in 16 float lanes (vectorised), block sums added
 * in double: accurate to well within the runner's check, at read speed. */
static double sum_range(const float *restrict a, int64_t lo, int64_t hi)
{
    double total = 0;
    for (int64_t b = lo; b < hi; b += 4096) {
        const int64_t e = b + 4096 < hi ? b + 4096 : hi;
        float acc[16] = {0};
        int64_t i = b;
        for (; i + 16 <= e; i += 16) {
            for (int k = 0; k < 16; k++) {
                acc[k] += a[i + k];
            }
        }
        float s = 0;
        for (; i < e; i++) {
            s += a[i];
        }
        for (int k = 0; k < 16; k++) {
            s += acc[k];
        }
        total += s;
    }
    return total;
}

typedef struct {
    const float *a;
    double partial[MAXT];
    int64_t per;
} sum_ctx;

static void sum_part(void *vc, int64_t lo, int64_t hi)
{
    sum_ctx *x = vc;
    x->partial[lo / x->per] = sum_range(x->a, lo, hi);
}

double tlb_sum_f32(const float *a, int64_t n, int nt)
{
    if (nt < 1) {
        nt = 1;
    }
    if (nt > MAXT) {
        nt = MAXT;
    }
    sum_ctx x;
    x.a = a;
    /* the same part size par() uses, so lo / per names the part */
    int64_t per = (n + nt - 1) / nt;
    x.per = (per + 4095) / 4096 * 4096;
    if (x.per == 0) {
        x.per = 4096;
    }
    memset(x.partial, 0, sizeof x.partial);
    par(sum_part, &x, n, n < 2 * 4096 ? 1 : nt, 4096);
    double s = 0;
    for (int t = 0; t < MAXT; t++) {
        s += x.partial[t];
    }
    return s;
}

/* out[j] = sum_i a[i, j] over an m x n row-major a: whole rows are added
 * into the output row (which stays in cache); threads take column ranges. */
typedef struct {
    const float *a;
    float *out;
    int64_t m, n;
} sum0_ctx;

static void sum0_part(void *vc, int64_t lo, int64_t hi)
{
    const sum0_ctx *x = vc;
    float *restrict o = x->out;
    for (int64_t j = lo; j < hi; j++) {
        o[j] = 0;
    }
    for (int64_t i = 0; i < x->m; i++) {
        const float *restrict r = x->a + i * x->n;
        for (int64_t j = lo; j < hi; j++) {
            o[j] += r[j];
        }
    }
}

void tlb_sum0_f32(const float *a, float *out, int64_t m, int64_t n, int nt)
{
    sum0_ctx x = {a, out, m, n};
    par(sum0_part, &x, n, nt, 16);
}

/* ---- cast, in-place flip add ---------------------------------------------- */

typedef struct {
    const float *a;
    double *d;
} cast_ctx;

static void cast_part(void *vc, int64_t lo, int64_t hi)
{
    const cast_ctx *x = vc;
    const float *restrict a = x->a;
    double *restrict d = x->d;
    for (int64_t i = lo; i < hi; i++) {
        d[i] = (double)a[i];
    }
}

void tlb_cast_f32_f64(const float *a, double *d, int64_t n, int nt)
{
    cast_ctx x = {a, d};
    par(cast_part, &x, n, nt, 4096);
}

/* x += x[::-1] in place: x[i] and x[n-1-i] both become their sum, one
 * read and one write pass, no temporary. */
typedef struct {
    float *x;
    int64_t n;
} flip_ctx;

static void flip_part(void *vc, int64_t lo, int64_t hi)
{
    const flip_ctx *f = vc;
    float *x = f->x;
    const int64_t n = f->n;
    /* Blocks of 64 from the front and the mirrored block from the back,
     * through small buffers so that the loops vectorise. */
    for (int64_t b = lo; b < hi; b += 64) {
        const int64_t m = b + 64 < hi ? 64 : hi - b;
        float front[64], back[64], s[64];
        memcpy(front, x + b, (size_t)m * sizeof(float));
        memcpy(back, x + n - b - m, (size_t)m * sizeof(float));
        for (int64_t k = 0; k < m; k++) {
            s[k] = front[k] + back[m - 1 - k];
        }
        memcpy(x + b, s, (size_t)m * sizeof(float));
        for (int64_t k = 0; k < m; k++) {
            back[m - 1 - k] = s[k];
        }
        memcpy(x + n - b - m, back, (size_t)m * sizeof(float));
    }
}

void tlb_flip_iadd_f32(float *x, int64_t n, int nt)
{
    flip_ctx f = {x, n};
    par(flip_part, &f, n / 2, nt, 4096);
    if (n % 2) {
        x[n / 2] += x[n / 2];
    }
}

/* ---- reductions: the bound column of bench_reduce.py's table -------------
 *
 * tlb_reduce reduces a C-contiguous (outer, red, inner) array over its
 * middle axis into out (outer * inner doubles): a whole tensor is
 * (1, n, 1), an innermost dim (rows, n, 1), an outermost (1, rows, cols)
 * and a middle one (a, b, c).  Each op is the plain loop a C programmer
 * writes, in the input's own type where that is exact enough for a bound
 * (float32 sums add in float32): inner == 1 reduces each row into
 * RB_LANES independent accumulators, inner > 1
 * folds whole rows into an accumulator row that stays in L1.  No NaN
 * checks, no compensation, no index tracking: what reading the bytes
 * costs with a little arithmetic on them.  var is two passes (each
 * output's mean, then the squared deviations from it); the sum of squares
 * (TLB_SUMSQ) is vector_norm's, without the square root; bench_reduce.py
 * times argmax/argmin against the max/min bound (an index can only add
 * to it).  Threads split the rows of outer when there are enough of
 * them, otherwise the columns of inner, otherwise (a whole tensor) the
 * range, each part reducing into its own partial. */
enum { TLB_F32, TLB_F64, TLB_I32, TLB_U8 };
enum { TLB_SUM, TLB_PROD, TLB_MAX, TLB_MIN, TLB_NNZ, TLB_VAR, TLB_SUMSQ };

typedef struct {
    const void *x;
    double *out;         /* outer * inner results */
    const double *means; /* TLB_VAR's second pass: each output's mean */
    int64_t outer, red, inner;
    int dtype, op;
    int split; /* 0: rows of outer, 1: columns of inner, 2: the range */
    int64_t per;         /* split 2: the part size */
    double partial[MAXT]; /* split 2: each part's result */
} red_ctx;

/* STEP(s, v, m): one element v into accumulator s (m: the mean, for
 * var); COMB(s, t): accumulator t into s. */
#define ST_SUM(s, v, m) ((s) += (v))
#define ST_PROD(s, v, m) ((s) *= (v))
#define ST_MAX(s, v, m) ((s) = (v) > (s) ? (v) : (s))
#define ST_MIN(s, v, m) ((s) = (v) < (s) ? (v) : (s))
#define ST_NNZ(s, v, m) ((s) += (v) != 0)
#define ST_VAR(s, v, m) ((s) += ((v) - (m)) * ((v) - (m)))
#define ST_SUMSQ(s, v, m) ((s) += (v) * (v))
#define CB_ST_SUM(s, t) ((s) += (t))
#define CB_ST_PROD(s, t) ((s) *= (t))
#define CB_ST_MAX(s, t) ST_MAX(s, t, 0)
#define CB_ST_MIN(s, t) ST_MIN(s, t, 0)
#define CB_ST_NNZ(s, t) ((s) += (t))
#define CB_ST_VAR(s, t) ((s) += (t))
#define CB_ST_SUMSQ(s, t) ((s) += (t))

/* rb_row_T_STEP: n elements at q into one value, through RB_LANES
 * independent accumulators (lane k takes the elements k mod RB_LANES: the
 * loop over k vectorises into several vector accumulators, so no add
 * waits on the one before); rb_cols_T_STEP: columns [j0, j1) of a (red,
 * inner) slab into out[j0, j1). */
#define RB_LANES 64
#define RB_KERNELS(T, ACC, INIT, STEP)                                      \
    static double rb_row_##T##_##STEP(const T *restrict q, int64_t n,         \
                                      double m)                             \
    {                                                                       \
        ACC a[RB_LANES];                                                    \
        (void)m;                                                            \
        for (int k = 0; k < RB_LANES; k++) {                                \
            a[k] = INIT;                                                    \
        }                                                                   \
        int64_t i = 0;                                                      \
        for (; i + RB_LANES <= n; i += RB_LANES) {                          \
            for (int k = 0; k < RB_LANES; k++) {                            \
                STEP(a[k], q[i + k], m);                                    \
            }                                                               \
        }                                                                   \
        for (; i < n; i++) {                                                \
            STEP(a[0], q[i], m);                                            \
        }                                                                   \
        ACC s = a[0];                                                       \
        for (int k = 1; k < RB_LANES; k++) {                                \
            CB_##STEP(s, a[k]);                                             \
        }                                                                   \
        return (double)s;                                                   \
    }                                                                       \
    static void rb_cols_##T##_##STEP(const T *restrict q, int64_t red,        \
                                     int64_t inner, int64_t j0, int64_t j1,  \
                                     const double *mrow, double *out)        \
    {                                                                       \
        ACC acc[RB_COLS_MAX];                                               \
        const int64_t w = j1 - j0;                                          \
        (void)mrow;                                                         \
        for (int64_t j = 0; j < w; j++) {                                   \
            acc[j] = INIT;                                                  \
        }                                                                   \
        for (int64_t k = 0; k < red; k++) {                                 \
            const T *restrict r = q + k * inner + j0;                       \
            for (int64_t j = 0; j < w; j++) {                               \
                STEP(acc[j], r[j], mrow[j0 + j]);                           \
            }                                                               \
        }                                                                   \
        for (int64_t j = 0; j < w; j++) {                                   \
            out[j0 + j] = (double)acc[j];                                   \
        }                                                                   \
    }
#define RB_COLS_MAX 2048
#define RB_ALL(T, ACC, ACCV, LO, HI)                                        \
    RB_KERNELS(T, ACC, 0, ST_SUM)                                           \
    RB_KERNELS(T, ACC, 1, ST_PROD)                                          \
    RB_KERNELS(T, T, LO, ST_MAX)                                            \
    RB_KERNELS(T, T, HI, ST_MIN)                                            \
    RB_KERNELS(T, int64_t, 0, ST_NNZ)                                       \
    RB_KERNELS(T, ACCV, 0, ST_VAR)                                          \
    RB_KERNELS(T, ACC, 0, ST_SUMSQ)

RB_ALL(float, float, float, -__builtin_inff(), __builtin_inff())
RB_ALL(double, double, double, -__builtin_inf(), __builtin_inf())
RB_ALL(int32_t, int64_t, double, INT32_MIN, INT32_MAX)
RB_ALL(uint8_t, int64_t, double, 0, 1)

/* FN(T, STEP) for the ctx's op. */
#define RB_BY_OP(c, FN, T)                                                  \
    switch ((c)->op) {                                                      \
    case TLB_SUM: FN(T, ST_SUM); break;                                     \
    case TLB_PROD: FN(T, ST_PROD); break;                                   \
    case TLB_MAX: FN(T, ST_MAX); break;                                     \
    case TLB_MIN: FN(T, ST_MIN); break;                                     \
    case TLB_NNZ: FN(T, ST_NNZ); break;                                     \
    case TLB_SUMSQ: FN(T, ST_SUMSQ); break;                                 \
    default: FN(T, ST_VAR); break;                                          \
    }
#define RB_BY_TYPE(c, FN)                                                   \
    switch ((c)->dtype) {                                                   \
    case TLB_F32: RB_BY_OP(c, FN, float) break;                             \
    case TLB_F64: RB_BY_OP(c, FN, double) break;                            \
    case TLB_I32: RB_BY_OP(c, FN, int32_t) break;                           \
    default: RB_BY_OP(c, FN, uint8_t) break;                                \
    }

static double rb_row(const red_ctx *c, const void *q, int64_t n, double m)
{
    double r = 0;
#define RB_ROW_CALL(T, STEP) r = rb_row_##T##_##STEP(q, n, m)
    RB_BY_TYPE(c, RB_ROW_CALL)
#undef RB_ROW_CALL
    return r;
}

/* Columns [j0, j1) of the slab at q into out, RB_COLS_MAX at a time. */
static void rb_cols(const red_ctx *c, const void *q, int64_t j0,
                    int64_t j1, const double *mrow, double *out)
{
    for (int64_t a = j0; a < j1; a += RB_COLS_MAX) {
        const int64_t b = j1 - a > RB_COLS_MAX ? a + RB_COLS_MAX : j1;
#define RB_COLS_CALL(T, STEP)                                               \
    rb_cols_##T##_##STEP(q, c->red, c->inner, a, b, mrow, out)
        RB_BY_TYPE(c, RB_COLS_CALL)
#undef RB_COLS_CALL
    }
}

static int64_t rb_itemsize(int dtype)
{
    return dtype == TLB_F64 ? 8 : dtype == TLB_U8 ? 1 : 4;
}

static void red_part(void *vc, int64_t lo, int64_t hi)
{
    red_ctx *c = vc;
    const char *x = c->x;
    const int64_t is = rb_itemsize(c->dtype);
    static const double zero[RB_COLS_MAX * 2];
    if (c->split == 2) { /* a range of the one row */
        c->partial[lo / c->per] =
            rb_row(c, x + lo * is, hi - lo, c->means ? c->means[0] : 0);
        return;
    }
    const int64_t o0 = c->split == 0 ? lo : 0;
    const int64_t o1 = c->split == 0 ? hi : c->outer;
    const int64_t j0 = c->split == 1 ? lo : 0;
    const int64_t j1 = c->split == 1 ? hi : c->inner;
    for (int64_t o = o0; o < o1; o++) {
        const char *slab = x + o * c->red * c->inner * is;
        const double *m = c->means ? c->means + o * c->inner : NULL;
        if (c->inner == 1) {
            c->out[o] = rb_row(c, slab, c->red, m ? m[0] : 0);
        } else {
            rb_cols(c, slab, j0, j1, m ? m : zero, c->out + o * c->inner);
        }
    }
}

static void red_run(red_ctx *c, int nt)
{
    if (c->outer >= nt || nt <= 1 || (c->inner == 1 && c->red < 2 * 4096)) {
        c->split = 0;
        par(red_part, c, c->outer, nt, 1);
        return;
    }
    if (c->inner > 1) {
        c->split = 1;
        par(red_part, c, c->inner, nt, 16);
        return;
    }
    c->split = 2; /* outer == 1 (< nt), inner == 1: the range */
    const int64_t per = (c->red + nt - 1) / nt;
    c->per = (per + 4095) / 4096 * 4096;
    const int64_t parts = (c->red + c->per - 1) / c->per;
    par(red_part, c, c->red, nt, 4096);
    double s = c->partial[0];
    for (int64_t t = 1; t < parts; t++) {
        const double v = c->partial[t];
        s = c->op == TLB_PROD ? s * v
          : c->op == TLB_MAX ? (v > s ? v : s)
          : c->op == TLB_MIN ? (v < s ? v : s) : s + v;
    }
    c->out[0] = s;
}

/* out (outer * inner doubles) = op over the middle axis of the
 * C-contiguous (outer, red, inner) array x of dtype (TLB_*); TLB_VAR is
 * the population variance, in two passes; TLB_SUMSQ the sum of squares.  means: NULL, or (TLB_VAR)
 * outer * inner doubles of scratch.  Returns 0, or -1 for a bad
 * argument. */
int tlb_reduce(const void *x, int dtype, int op, int64_t outer, int64_t red,
               int64_t inner, double *out, double *means, int nt)
{
    if (dtype < TLB_F32 || dtype > TLB_U8 || op < TLB_SUM || op > TLB_SUMSQ ||
        outer < 1 || red < 1 || inner < 1 || inner > RB_COLS_MAX * 2 ||
        (op == TLB_VAR && means == NULL)) {
        return -1;
    }
    nt = nt < 1 ? 1 : nt > MAXT ? MAXT : nt;
    red_ctx c = {.x = x, .out = out, .outer = outer, .red = red,
                 .inner = inner, .dtype = dtype, .op = op};
    if (op != TLB_VAR) {
        red_run(&c, nt);
        return 0;
    }
    c.op = TLB_SUM;
    c.out = means;
    red_run(&c, nt);
    for (int64_t i = 0; i < outer * inner; i++) {
        means[i] /= (double)red;
    }
    c.op = TLB_VAR;
    c.out = out;
    c.means = means;
    red_run(&c, nt);
    for (int64_t i = 0; i < outer * inner; i++) {
        out[i] /= (double)red;
    }
    return 0;
}
