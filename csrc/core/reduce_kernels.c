/* csrc/core/reduce_kernels.c — the CPU reduction kernels: for each family
 * (sum, prod, max, min, argmax, argmin, any, all, and the second pass of
 * var) and each input dtype, a row kernel (one output, its reduced elements
 * along a run: contiguous runs take vectorisable multi-lane loops) and a
 * cols kernel (a tile of outputs whose inputs are adjacent in memory,
 * accumulated row by row with vectorisable inner loops: the layout of a
 * sum over dim 0 of a C-contiguous matrix).  See Note [Reduction
 * accumulators] in reduce_impl.h for what each family keeps. */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "reduce_impl.h"
#include "vecmath.h"
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>     /* the CPU family (Note [Prefetch in the lane kernels]) */
#include <immintrin.h> /* the AVX-512 float32 cols strip, the float extrema */
#endif

/* Note [Summation accuracy]
 * - Rows (inner reductions): float16/bfloat16 accumulate in float64
 *   lanes.  Contiguous float32 (and complex64) runs add blocks of 512
 *   floats in 64 float32 lanes, 8 elements deep, the lanes' 8 vectors
 *   as a tree in float32 and everything above it in float64 (Note
 *   [Float32 lane blocks]): shallower in
 *   float32 than NumPy's pairwise sum at every level.  The partials of
 *   runs of up to TL_REDUCE_RCHUNK (reduce_impl.h) elements and of
 *   chunks combine pairwise in float64.
 * - float64 (and complex128) runs add blocks of 64 doubles, 8 per lane
 *   as a tree, and accumulate the block sums in 8 compensated lanes
 *   (Knuth's two-sum: each lane carries its rounding error; Note
 *   [Float64 lane blocks]), so a run's error is at most about 3 eps
 *   sum|x| plus half an ulp whatever its length; partials of runs and
 *   chunks combine as compensated pairs.
 * - Cols (outer reductions, e.g. dim 0 of a C-contiguous matrix):
 *   float32 adds blocks of 8 rows as a tree in float32 and accumulates
 *   the blocks in float64 (Note [Float32 cols in blocks of 8 rows]), or
 *   over close rows sums each column in order in float64 (Note [Float32
 *   cols in register strips]); float16/bfloat16/float64 (and complex) sum rows
 *   pairwise in float64 (blocks of SUM_LEAF rows in order, blocks combined
 *   as a binary tree).  Both beat NumPy's row-by-row accumulation of an
 *   outer axis in the input dtype (and PyTorch's float32 one).
 * Integer sums and products wrap in uint64 arithmetic (no UB). */
#define SUM_LEAF 64
#define SUM_MAXDEPTH 10
#define TILE TL_REDUCE_TILE

/* Note [AVX2 dispatch]
 * The build targets baseline x86-64 (SSE2).  The hottest loops (the
 * float32 and float64 row sums, the float32 cols sum, and every 8-row
 * cols block of DEF_COLS8: sums, products and count_nonzero of every
 * dtype) are compiled a second time for AVX2 from the same always-inline
 * body and chosen at run time when the CPU has it.  For the DEF_COLS8
 * blocks, one thread, Zen 4: float64 sums and products over dim 0 of
 * (2048, 128) 44-47 -> 32 us, int32 and int64 products 146 -> 93-103 us,
 * int32 sums 0.62-0.68 of the time, the middle dim of (128, 256, 128)
 * float64 3.1-3.4 -> 2.2-2.6 ms.  TENSORLIB_VECMATH=baseline keeps every
 * kernel on its baseline clone (have_avx2).  The same operations in the
 * same order on wider registers, so results are bit-identical either way
 * (no FMA contraction: -ffp-contract does not apply to separate
 * statements and the bodies use no fused forms;
 * tests/test_reduce_vector.py and tests/test_reduce_clones.py compare
 * them), but for the sign of a NaN where two NaNs meet in one operation
 * (a NaN of the data times the NaN of 0 * inf): x86 keeps the first
 * operand's, and the compiler may order a commutative operation's
 * operands differently in each clone. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define TL_AVX2_DISPATCH 1
#define TL_ALWAYS_INLINE inline __attribute__((always_inline))
#define TL_TARGET_AVX2 __attribute__((target("avx2")))
/* TENSORLIB_VECMATH=baseline (vecmath.h) caps these kernels too, so that
 * the baseline clones can be run and compared with the AVX2 ones
 * (tests/test_reduce_vector.py): tl_vecmath_level decides for both. */
/* tl_vecmath_level(), read once when the library loads (before any
 * thread can read it; lane_prefetch_init below): a call to it per row
 * was a few percent of a sum over rows of 60 floats. */
static int reduce_isa_level;
static inline int have_avx2(void) { return reduce_isa_level >= 1; }
/* AVX-512 (F, VL, BW, DQ) for the one-pass argmax (Note [One-pass vector
 * argmax]); TENSORLIB_VECMATH=avx2 or baseline caps it. */
#define TL_TARGET_AVX512                                                    \
    __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq")))
static inline int have_avx512(void) { return reduce_isa_level >= 2; }
#else
#define TL_ALWAYS_INLINE inline
#endif

/* name(args) runs name_avx2 or name_base, both built from name_body.
 * DISPATCH_TO makes name_base and the dispatcher for a name_avx2 written
 * by hand (Note [Float extrema with vmaxps]). */
#ifdef TL_AVX2_DISPATCH
#define DISPATCH_TO(name, params, args)                                     \
    static void name##_base params { name##_body args; }                   \
    static void name params                                                 \
    {                                                                       \
        if (have_avx2()) {                                                  \
            name##_avx2 args;                                               \
        } else {                                                            \
            name##_base args;                                               \
        }                                                                   \
    }
#define DISPATCHED(name, params, args)                                      \
    TL_TARGET_AVX2 static void name##_avx2 params { name##_body args; }    \
    DISPATCH_TO(name, params, args)
#else
#define DISPATCHED(name, params, args)                                      \
    static void name params { name##_body args; }
#endif

/* name(args) on the AVX-512 clone where the CPU has it, else as
 * DISPATCHED: for loops gcc vectorises to 512-bit registers. */
#ifdef TL_AVX2_DISPATCH
#define DISPATCHED3(name, params, args)                                     \
    TL_TARGET_AVX512 static void name##_avx512 params { name##_body args; } \
    TL_TARGET_AVX2 static void name##_avx2 params { name##_body args; }    \
    static void name##_base params { name##_body args; }                   \
    static void name params                                                 \
    {                                                                       \
        if (have_avx512()) {                                                \
            name##_avx512 args;                                             \
        } else if (have_avx2()) {                                           \
            name##_avx2 args;                                               \
        } else {                                                            \
            name##_base args;                                               \
        }                                                                   \
    }
#else
#define DISPATCHED3(name, params, args)                                     \
    static void name params { name##_body args; }
#endif

/* ---- loads -------------------------------------------------------------- */

/* A v4d from the four floats of a v4f x.  gcc 12 lowers
 * __builtin_convertvector(x, v4d) to two 2-lane conversions and an
 * insert, through the stack; this form is one vcvtps2pd on AVX2 (and
 * the same two cvtps2pd on the SSE2 baseline).  Exact either way. */
#define CVT4D(x) ((v4d){(x)[0], (x)[1], (x)[2], (x)[3]})

#define LDH(x) tl_k_half_to_float(x)
#define LDBF(x) tl_k_bf16_to_float(x)
#define LDID(x) (x)
#define LDB(x) ((uint8_t)((x) != 0))

/* To the uint64 accumulator of integer sums: sign extension for signed
 * types, so that wrapping uint64 arithmetic equals int64 arithmetic. */
#define U64S(x) ((uint64_t)(int64_t)(x))
#define U64U(x) ((uint64_t)(x))
#define U64B(x) ((uint64_t)((x) != 0))

static inline void two_sum(double a, double b, double *s, double *e)
{
    const double x = a + b;
    const double bp = x - a;
    *e = (a - (x - bp)) + (b - bp);
    *s = x;
}

/* Note [Compensated sums and non-finite values]
 * A compensated sum carries (hi, lo).  Once hi is inf or NaN (an inf
 * input, or a sum past DBL_MAX), the error term is inf - inf = NaN and
 * means nothing: the value is hi alone, as a plain sum would give (NumPy
 * and PyTorch: sum([1, inf]) is inf, sum([1e308, 1e308]) inf).  dd_add
 * drops lo then, and dd_value is how every finish reads a pair. */

/* (hi, lo) += (bhi, blo), compensated. */
static inline void dd_add(double *hi, double *lo, double bhi, double blo)
{
    double s, e;
    two_sum(*hi, bhi, &s, &e);
    if (!isfinite(s)) {
        *hi = s;
        *lo = 0;
        return;
    }
    e += *lo + blo;
    *hi = s + e;
    *lo = e - (*hi - s);
}

/* The value of a compensated pair. */
static inline double dd_value(double hi, double lo)
{
    return isfinite(hi) ? hi + lo : hi;
}

/* (*h, *l) += x: one step of a compensated (two-sum) accumulation. */
static inline void dd_acc(double *h, double *l, double x)
{
    const double t = *h + x;
    const double bp = t - *h;
    *l += (*h - (t - bp)) + (x - bp);
    *h = t;
}

/* Folds 8 compensated lanes (h[k], l[k]) as a tree: lane k + 4 into lane
 * k, then k + 2 into k, so that h[0] + l[0] holds the even lanes and
 * h[1] + l[1] the odd ones (the real and imaginary parts of a complex
 * run); levels of independent dd_adds, where adding the lanes one after
 * another into one pair was a chain of 8 (some 200 cycles a row: a tenth
 * of a float64 row of 2048). */
static inline void dd_fold8(double h[8], double l[8])
{
    for (int k = 0; k < 4; k++) {
        dd_add(&h[k], &l[k], h[k + 4], l[k + 4]);
    }
    for (int k = 0; k < 2; k++) {
        dd_add(&h[k], &l[k], h[k + 2], l[k + 2]);
    }
}

/* ---- shared combine / finish -------------------------------------------- */

static void comb_u_add(tl_racc *a, const tl_racc *b) { a->v.u[0] += b->v.u[0]; }
static void comb_u_mul(tl_racc *a, const tl_racc *b) { a->v.u[0] *= b->v.u[0]; }
static void comb_u_or(tl_racc *a, const tl_racc *b) { a->v.u[0] |= b->v.u[0]; }
static void comb_u_and(tl_racc *a, const tl_racc *b) { a->v.u[0] &= b->v.u[0]; }
static void comb_d_add(tl_racc *a, const tl_racc *b) { a->v.d[0] += b->v.d[0]; }
static void comb_d_mul(tl_racc *a, const tl_racc *b) { a->v.d[0] *= b->v.d[0]; }

static void comb_dd_add(tl_racc *a, const tl_racc *b)
{
    dd_add(&a->v.d[0], &a->v.d[1], b->v.d[0], b->v.d[1]);
}

static void comb_c_add(tl_racc *a, const tl_racc *b)
{
    a->v.d[0] += b->v.d[0];
    a->v.d[1] += b->v.d[1];
}

static void comb_cdd_add(tl_racc *a, const tl_racc *b)
{
    dd_add(&a->v.d[0], &a->v.d[2], b->v.d[0], b->v.d[2]);
    dd_add(&a->v.d[1], &a->v.d[3], b->v.d[1], b->v.d[3]);
}

static void comb_c_mul(tl_racc *a, const tl_racc *b)
{
    tl_c128 x = CMPLX(a->v.d[0], a->v.d[1]);
    tl_c128 y = CMPLX(b->v.d[0], b->v.d[1]);
    tl_c128 z = x * y;
    a->v.d[0] = creal(z);
    a->v.d[1] = cimag(z);
}

/* var accumulators: d[0] + d[3] the compensated sum of squared
 * deviations, d[1] and d[2] the sums of the (real, imaginary)
 * deviations. */
static void comb_var(tl_racc *a, const tl_racc *b)
{
    dd_add(&a->v.d[0], &a->v.d[3], b->v.d[0], b->v.d[3]);
    a->v.d[1] += b->v.d[1];
    a->v.d[2] += b->v.d[2];
}

static void fin_u(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    memcpy(dst, &a->v.u[0], 8); /* int64 or uint64: the same bits */
}

static void fin_s(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    memcpy(dst, &a->v.s[0], 8);
}

static void fin_bool(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    *(uint8_t *)dst = a->v.u[0] != 0;
}

static void fin_d(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    double v = a->v.d[0];
    if (f->mean) {
        v /= (double)f->count;
    }
    *(double *)dst = v;
}

/* A mean divides both halves (no overflow of hi + lo near DBL_MAX). */
static double dd_mean(double hi, double lo, int64_t count)
{
    return isfinite(hi) ? hi / (double)count + lo / (double)count
                        : hi / (double)count;
}

static void fin_dd(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    *(double *)dst = f->mean ? dd_mean(a->v.d[0], a->v.d[1], f->count)
                             : dd_value(a->v.d[0], a->v.d[1]);
}

static void fin_c(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    double re = a->v.d[0], im = a->v.d[1];
    if (f->mean) {
        re /= (double)f->count;
        im /= (double)f->count;
    }
    ((double *)dst)[0] = re;
    ((double *)dst)[1] = im;
}

static void fin_cdd(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    double re = dd_value(a->v.d[0], a->v.d[2]);
    double im = dd_value(a->v.d[1], a->v.d[3]);
    if (f->mean) {
        re = dd_mean(a->v.d[0], a->v.d[2], f->count);
        im = dd_mean(a->v.d[1], a->v.d[3], f->count);
    }
    ((double *)dst)[0] = re;
    ((double *)dst)[1] = im;
}

static void fin_var(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    if (f->sumsq) { /* tl_reduce_norm2: the squares from 0, undivided */
        const double ss = dd_value(a->v.d[0], a->v.d[3]);
        *(double *)dst = f->take_sqrt ? sqrt(ss) : ss;
        return;
    }
    const double n = (double)f->count;
    double ss = dd_value(a->v.d[0], a->v.d[3]) -
                (a->v.d[1] * a->v.d[1] + a->v.d[2] * a->v.d[2]) / n;
    if (ss < 0) {
        ss = 0;
    }
    double div = n - f->correction;
    if (div < 0) {
        div = 0;
    }
    double v = ss / div;
    *(double *)dst = f->take_sqrt ? sqrt(v) : v;
}

/* ---- sums: contiguous lane kernels --------------------------------------- */

/* Note [Prefetch in the lane kernels]
 * On the development VM a single sequential read stream reaches about
 * 11 GB/s: the hardware prefetcher alone keeps too few lines in flight.
 * A software prefetch 4 KiB ahead, once per 64-byte line, doubles it
 * (measured on a plain C loop over 64 MiB: 6.3 -> 3.5 ms).  On an AMD
 * EPYC VM (26 Nov 2026) it still gains 10-25% on the float64 sum at
 * 2^22-2^24 elements and 12% on the float32 one at 2^22, and is within
 * noise (0.9-1.1) at 2^24 floats.  That VM's CPU was a Zen 3 EPYC
 * (family 25 model 1, 512 KB L2).  On a Zen 4 EPYC VM (27 Nov 2026,
 * family 25 model 17, 1 MB L2, AVX-512; quiet; the same build with and
 * without it, one thread) it costs instead: at 2^24 elements amax 2.13
 * -> 2.55 ms, sum 1.92 -> 2.57, argmax 2.35 -> 3.2 of float32, amax 4.27
 * -> 5.15 and sum 4.96 -> 5.66 of float64; 5-10% at 2^22 (in L3).  So it
 * runs except on AMD CPUs with AVX-512 (Zen 4 on; gcc 12 names it znver3,
 * so the ISA tells them apart).  On a Zen 3 EPYC VM again (29 Nov
 * 2026, family 25 model 1, 32 MB L3; one thread, alternating runs, tl /
 * the faster peer) it helped only in cache: without it, the float64
 * sum, prod and amax of 2^22 (32 MiB, whole and innermost) took
 * 0.91-1.23, 0.91-1.03 and 0.91-1.04, with it 1.03-1.21, 1.07-1.24 and
 * 0.99-1.16; the float32 sum of 2^24 0.96-1.11 without, 1.28-1.39 with;
 * but the float32 amax and argmax of 2^22 (16 MiB, in L3) 0.85-1.14 and
 * 0.98-1.07 without, 0.72-1.05 and 0.70-1.06 with.  So on AMD CPUs
 * without AVX-512 it runs only for a reduction that reads at most
 * LANE_NEAR_BYTES, which the driver passes (tl_reduce_kernel_footprint)
 * before each task; elsewhere it runs whatever the size, as before.  The
 * policies are set once, when the library loads (before any thread can
 * read them).  On a Zen 5 EPYC VM (3 Dec 2026, family 26 model 2, 1 MB
 * L2, full-width AVX-512; one thread, tl / PyTorch) the prefetch 16 KiB
 * ahead (the row runs' distance, Note [Row runs]) paid wherever the
 * input outgrows L2: without it / with it, the float32 sum of 2^24 1.38
 * / 0.98, its prod 1.27 / 0.91, its mean 1.32 / 1.01, the float64 sum
 * of 2^22 1.32 / 1.07, its nansum 1.34 / 0.59 and amax 0.92 / 0.66
 * (4 KiB ahead helped the float32 sum of 2^24 only to 1.04 and slowed
 * the float64 one); at 2^16 (in L2) it cost, the float64 sum 0.93 ->
 * 1.15.  So on AMD family 26 and later it runs 16 KiB ahead for a
 * reduction that reads more than LANE_FROM_BYTES (as the row runs do);
 * Zen 4 (family 25 with AVX-512) keeps it off as measured above.  It
 * changes no
 * arithmetic, so results stay bit-identical; addresses past the end are
 * only prefetched (never loaded), which cannot fault, and are formed as
 * integers so that no out-of-bounds pointer is computed. */
#define LANE_NEAR_BYTES ((int64_t)16 << 20)
#define LANE_FROM_BYTES ((int64_t)1 << 20)
#if defined(__GNUC__)
/* Whether the lane kernels prefetch for a reduction that reads at most
 * LANE_NEAR_BYTES (near) or more (far), only above lane_prefetch_from
 * bytes, and how far ahead; set once, when the library loads (before any
 * thread can read them). */
static int lane_prefetch_near, lane_prefetch_far;
static int64_t lane_prefetch_from, lane_prefetch_ahead = 4096;
/* What this thread's current reduction does (tl_reduce_kernel_footprint).
 * (Not initial-exec TLS: a module loaded after others may find no static
 * TLS block left.) */
static _Thread_local int lane_prefetch;
/* The input bytes of this thread's current reduction (Note [Row folds
 * over close rows]). */
static _Thread_local int64_t reduce_footprint;

__attribute__((constructor)) static void lane_prefetch_init(void)
{
#ifdef TL_AVX2_DISPATCH
    reduce_isa_level = tl_vecmath_level();
#endif
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const int amd = __builtin_cpu_is("amd");
    lane_prefetch_near = !(amd && __builtin_cpu_supports("avx512f"));
    lane_prefetch_far = lane_prefetch_near && !amd;
    unsigned eax, ebx, ecx, edx;
    if (amd && __get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
        unsigned family = (eax >> 8) & 0xf;
        if (family == 0xf) {
            family += (eax >> 20) & 0xff;
        }
        if (family >= 26) {
            lane_prefetch_near = lane_prefetch_far = 1;
            lane_prefetch_from = LANE_FROM_BYTES;
            lane_prefetch_ahead = 16384;
        }
    }
#else
    lane_prefetch_near = lane_prefetch_far = 1;
#endif
}

void tl_reduce_kernel_footprint(int64_t bytes)
{
    reduce_footprint = bytes;
    lane_prefetch = bytes <= lane_prefetch_from  ? 0
                    : bytes <= LANE_NEAR_BYTES ? lane_prefetch_near
                                               : lane_prefetch_far;
}

#define PREFETCH_AHEAD(p)                                                   \
    do {                                                                    \
        if (lane_prefetch) {                                                \
            __builtin_prefetch(                                             \
                (const void *)((uintptr_t)(p) + lane_prefetch_ahead));      \
        }                                                                   \
    } while (0)
#else
#define PREFETCH_AHEAD(p) ((void)0)
static _Thread_local int64_t reduce_footprint;
void tl_reduce_kernel_footprint(int64_t bytes) { reduce_footprint = bytes; }
#endif

/* Sums m floats at q; even-indexed elements go to out[0], odd ones to
 * out[1] (real and imaginary parts of complex64).  See Note [Float32
 * lane blocks]. */
#define F32_BLOCK 512

#if defined(__GNUC__)
typedef float tl_v8f __attribute__((vector_size(32)));
typedef int32_t tl_v8i __attribute__((vector_size(32)));

/* The 64 floats at p into the tl_v8f variables v0 .. v7. */
#define LOAD64(v, p)                                                        \
    do {                                                                    \
        memcpy(&v##0, (p), sizeof v##0);                                    \
        memcpy(&v##1, (p) + 8, sizeof v##1);                                \
        memcpy(&v##2, (p) + 16, sizeof v##2);                               \
        memcpy(&v##3, (p) + 24, sizeof v##3);                               \
        memcpy(&v##4, (p) + 32, sizeof v##4);                               \
        memcpy(&v##5, (p) + 40, sizeof v##5);                               \
        memcpy(&v##6, (p) + 48, sizeof v##6);                               \
        memcpy(&v##7, (p) + 56, sizeof v##7);                               \
    } while (0)

/* a0 .. a7 += the 64 floats at q + j, q + j + 64, ... below q + end (j
 * ends at end): the adds of a float32 lane block (Note [Float32 lane
 * blocks]). */
#define ADD64_RUN(a, q, j, end)                                             \
    for (; (j) < (end); (j) += 64) {                                        \
        tl_v8f x0, x1, x2, x3, x4, x5, x6, x7;                              \
        PREFETCH_AHEAD((q) + (j));                                          \
        PREFETCH_AHEAD((q) + (j) + 16);                                     \
        PREFETCH_AHEAD((q) + (j) + 32);                                     \
        PREFETCH_AHEAD((q) + (j) + 48);                                     \
        LOAD64(x, (q) + (j));                                               \
        a##0 += x0;                                                         \
        a##1 += x1;                                                         \
        a##2 += x2;                                                         \
        a##3 += x3;                                                         \
        a##4 += x4;                                                         \
        a##5 += x5;                                                         \
        a##6 += x6;                                                         \
        a##7 += x7;                                                         \
    }
#endif

/* s = the tree sum of c (1..8, in scope) vectors: V(0) .. V(c-2) and
 * t, the last (a partial lane block, Note [Float32 lane blocks] and
 * [Float64 lane blocks]): at most 3 deep, as a whole block's. */
#define TREE_OF_C(V, t, s)                                                  \
    switch (c) {                                                            \
    case 1: s = t; break;                                                   \
    case 2: s = V(0) + t; break;                                            \
    case 3: s = (V(0) + V(1)) + t; break;                                   \
    case 4: s = (V(0) + V(1)) + (V(2) + t); break;                          \
    case 5: s = ((V(0) + V(1)) + (V(2) + V(3))) + t; break;                 \
    case 6: s = ((V(0) + V(1)) + (V(2) + V(3))) + (V(4) + t); break;        \
    case 7:                                                                 \
        s = ((V(0) + V(1)) + (V(2) + V(3))) + ((V(4) + V(5)) + t);          \
        break;                                                              \
    default:                                                                \
        s = ((V(0) + V(1)) + (V(2) + V(3))) + ((V(4) + V(5)) + (V(6) + t)); \
        break;                                                              \
    }

/* Lanes j >= 8 - r of the last 8 elements: *_tail_mask + r, 8 of them. */
static const int32_t f32_tail_mask[16] = {0,  0,  0,  0,  0,  0,  0,  0,
                                          -1, -1, -1, -1, -1, -1, -1, -1};
static const int64_t f64_tail_mask[16] = {0,  0,  0,  0,  0,  0,  0,  0,
                                          -1, -1, -1, -1, -1, -1, -1, -1};

#if defined(__GNUC__)
/* The float32 partial block from q + i (q, m and i in scope): its c
 * vectors of 8 from w, the last one t, the run's last 8 floats q[m-8..m)
 * with the elements before i masked to zero (lane j kept when j >= 8 -
 * r, r of them the block's own). */
#define PARTIAL_8F_LOAD(c, t, w)                                            \
    const int64_t c = (m - i + 7) / 8;                                      \
    tl_v8f t;                                                               \
    do {                                                                    \
        const int64_t r_ = (m - i) - 8 * (c - 1);                           \
        tl_v8i k_;                                                          \
        memcpy(&t, q + m - 8, sizeof t);                                    \
        memcpy(&k_, f32_tail_mask + r_, sizeof k_);                         \
        t = (tl_v8f)((tl_v8i)t & k_);                                       \
    } while (0);                                                            \
    const float *w = q + i
#endif

/* Note [Float32 lane blocks]
 * A float32 sum runs at memory speed only if its adds stay in float32:
 * converting every element to float64 (one vcvtps2pd per four floats)
 * bounds the loop in cache and with two threads.  So a run is cut into
 * blocks of F32_BLOCK floats; a block goes into 8 vectors of 8 float32
 * lanes (lane k of vector j takes the elements 64i + 8j + k), so each
 * lane adds 8 elements in float32, 7 roundings deep; the 8 vectors then
 * add as a tree in float32 (3 more: 10 at most on any element's path),
 * the 8 lane sums of that convert exactly to float64, and the blocks
 * accumulate in float64.  NumPy's pairwise float32 sum rounds 15 times
 * in each of its 8 accumulators of a 128-element leaf, 3 times more
 * combining them and once more at every level of its tree above, all in
 * float32: this is shallower everywhere (tests/test_reduce_vector.py
 * measures both against a float64 reference).  (The 8 vectors had each
 * converted to float64, 16 conversions and 15 float64 adds a block: over
 * rows of 64 to 500 floats most of a row's time, 1.2-1.8x PyTorch's in
 * cache; with the tree, the partial block joined to a short last block
 * and the AVX-512 run clone (Note [Row runs]), (2621, 100) float32 10.2
 * -> 6.9 ns a row, PyTorch 5.9-7.2, one thread, Zen 5.)  A block whose float64 sum is not finite (an
 * infinity or NaN in it, or a float32 lane that overflowed where the
 * float64 sum would not) is summed again in float64, element by element:
 * lanes never overflow where the old all-float64 sum did not.  When the
 * last whole block is short (fewer than F32_BLOCK floats), the partial
 * block's c <= 8 vectors of 8 (the last one masked as below) add to its
 * first c vectors, each lane one element more, 8 at most, and the two
 * are one block.  Otherwise, below the last whole block (the partial
 * block), the c <= 8 vectors of 8 left,
 * the last one the run's last 8 floats with those before the partial
 * block masked to zero, add as a tree (TREE_OF_C: at most 3 deep, so
 * each lane 3 roundings at most, within the block's bound), converted and
 * checked the same way; only a run of fewer than 8 floats goes one by
 * one in float64.  (They all had: a row of 60 floats was a chain of 30
 * dependent float64 adds; then the whole vectors went in a chain of up to
 * 7 and the last 7 floats or fewer one by one.  sum(dim=1) of (17476, 60)
 * float32, one thread, Zen 4: 403 -> 198 us with the chain and
 * lanes1_f32, PyTorch 105, NumPy 492; (4369, 60) 26.7 -> 23.3 us with the
 * tree, PyTorch 22.4.)  The
 * operations and their order are the same on the AVX2 and baseline
 * builds, so results are bit-identical on either. */
static TL_ALWAYS_INLINE void lanes_f32_body(const float *q, int64_t m,
                                            double out[2])
{
    double e = 0, o = 0;
    int64_t i = 0;
#if defined(__GNUC__)
    typedef float v4f __attribute__((vector_size(16)));
    typedef double v4d __attribute__((vector_size(32)));
#define LO4(x) ((v4f){(x)[0], (x)[1], (x)[2], (x)[3]})
#define HI4(x) ((v4f){(x)[4], (x)[5], (x)[6], (x)[7]})
#define WIDE(x) (CVT4D(LO4(x)) + CVT4D(HI4(x)))
/* tot += the float64 lane sums b of q[start..end), or that range again
 * in float64 when b is not finite (Note [Float32 lane blocks]). */
#define F32_BLOCK_TAKE(b, start, end)                                       \
    do {                                                                    \
        if (TL_UNLIKELY(!isfinite(((b)[0] + (b)[1]) + ((b)[2] + (b)[3])))) { \
            double be = 0, bo = 0;                                          \
            int64_t j = (start);                                            \
            for (; j + 2 <= (end); j += 2) {                                \
                be += (double)q[j];                                         \
                bo += (double)q[j + 1];                                     \
            }                                                               \
            if (j < (end)) {                                                \
                be += (double)q[j];                                         \
            }                                                               \
            e += be;                                                        \
            o += bo;                                                        \
        } else {                                                            \
            tot += (b);                                                     \
        }                                                                   \
    } while (0)
    v4d tot = {0, 0, 0, 0};
    while (i + 64 <= m) {
        const int64_t start = i;
        const int64_t end = m - i >= F32_BLOCK ? i + F32_BLOCK
                                               : i + (m - i) / 64 * 64;
        tl_v8f a0, a1, a2, a3, a4, a5, a6, a7;
        LOAD64(a, q + i);
        i += 64;
        ADD64_RUN(a, q, i, end);
        int64_t stop = end;
        if (end - start < F32_BLOCK && i < m) {
            /* The partial block joins this last, short block: its c
             * vectors of 8 (the last q[m-8..m) with the elements before
             * i masked to zero, lane j kept when j >= 8 - r) add to
             * a0 .. a(c-1), each lane one element more, 8 at most. */
            PARTIAL_8F_LOAD(c, t, w);
#define V8(k) ({ tl_v8f v_; memcpy(&v_, w + 8 * (k), sizeof v_); v_; })
            switch (c) {
            case 8: a6 += V8(6); /* fall through */
            case 7: a5 += V8(5); /* fall through */
            case 6: a4 += V8(4); /* fall through */
            case 5: a3 += V8(3); /* fall through */
            case 4: a2 += V8(2); /* fall through */
            case 3: a1 += V8(1); /* fall through */
            case 2: a0 += V8(0); /* fall through */
            default: break;
            }
#undef V8
            switch (c) {
            case 1: a0 += t; break;
            case 2: a1 += t; break;
            case 3: a2 += t; break;
            case 4: a3 += t; break;
            case 5: a4 += t; break;
            case 6: a5 += t; break;
            case 7: a6 += t; break;
            default: a7 += t; break;
            }
            stop = i = m;
        }
        const tl_v8f s8 = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
        const v4d b = WIDE(s8);
        F32_BLOCK_TAKE(b, start, stop);
    }
    if (m >= 8 && i < m) {
        /* Below a block: c vectors of 8 lanes, the last one q[m-8..m)
         * with the elements before start masked to zero (lane j kept
         * when j >= 8 - r: the element's index has j's parity, m being
         * even for complex64), as a tree of c (Note [Float32 lane
         * blocks]). */
        const int64_t start = i;
        PARTIAL_8F_LOAD(c, t, w);
#define V8(k) ({ tl_v8f v_; memcpy(&v_, w + 8 * (k), sizeof v_); v_; })
        tl_v8f a;
        TREE_OF_C(V8, t, a)
#undef V8
        const v4d b = WIDE(a);
        F32_BLOCK_TAKE(b, start, m);
        i = m;
    }
    e += tot[0] + tot[2];
    o += tot[1] + tot[3];
#undef LO4
#undef HI4
#undef WIDE
#undef F32_BLOCK_TAKE
#endif
    for (; i + 2 <= m; i += 2) {
        e += (double)q[i];
        o += (double)q[i + 1];
    }
    if (i < m) {
        e += (double)q[i];
    }
    out[0] = e;
    out[1] = o;
}

DISPATCHED(lanes_f32, (const float *q, int64_t m, double out[2]),
           (q, m, out))

/* *out = the sum of lanes_f32's two halves, in registers: sum_row_f32
 * read them back from the 16-byte store lanes_f32 ended with, a stalled
 * store forward on every row (a third of its time over rows of 60). */
static TL_ALWAYS_INLINE void lanes1_f32_body(const float *q, int64_t m,
                                             double *out)
{
    double o[2];
    lanes_f32_body(q, m, o);
    *out = o[0] + o[1];
}

DISPATCHED(lanes1_f32, (const float *q, int64_t m, double *out),
           (q, m, out))

/* Note [Float64 lane blocks]
 * A float64 row sum keeps 8 compensated lanes (two-sum: each lane
 * carries its rounding error in a second double).  Two-summing every
 * element costs 7 additions per vector of 4 doubles: 32 GB/s a core, a
 * third of the speed of PyTorch's cascade sum out of cache (2^18
 * doubles: 66 us against 24).  So a run is taken in blocks of 64
 * doubles, 8 per lane: each lane adds its 8 as a tree ((a + b) + (c +
 * d)) + ((e + f) + (g + h)) in plain float64, and only the 8 block sums
 * are two-summed into the lanes: 14 additions per 64 doubles, memory
 * speed (2^18: 21 us, as fast as a plain sum; a C loop, Zen 4).  The
 * first block's sums are the lanes themselves (two-summed into zero
 * lanes they would be exact): sum(dim=1) of (4096, 64) float64 in cache
 * 8.8 -> 6.9 ns a row, PyTorch 6.0-6.6 (one thread, Zen 5).  The
 * float64 and complex128 sums (and so mean), the float64 nansum and
 * nanmean rows and var's second pass over float64 rows all add this way.
 * In the sums the rest below the last block (the partial block) is one
 * more block: its c <= 8 vectors of 8, the last one the run's last 8
 * doubles with those before the partial block masked to zero, as a tree
 * of c (TREE_OF_C) two-summed into the lanes (a run shorter than a block
 * starts the lanes with it; one shorter than 8 puts each element in a
 * lane of its own); in nansum and var it is two-summed element by
 * element.  (It had been in the sums too: with the lanes' fold
 * (lanes1_f64) and the row runs (Note [Row runs]), sum(dim=1) of (8192,
 * 16) float64, one thread, Zen 4, 120 -> 44 us, PyTorch 26-38.)
 * Accuracy: the tree's rounding is at most 3 ulp of each block's
 * magnitude, and nothing above the blocks rounds, so the error is at
 * most about 3 eps sum|x| + half an ulp of the result, whatever the
 * length; NumPy's pairwise sum's bound grows with log2(n), and on
 * random data its RMS error is 1.3 to 4 times ours (tests/test_reduce.py::
 * test_accuracy_float64_blocks measures both against math.fsum).  A
 * fully compensated sum's extra digits survive only cancellation of
 * more than a few digits, which neither NumPy nor PyTorch keeps. */
#define F64_BLOCK 64

#if defined(__GNUC__)
typedef double tl_v4d __attribute__((vector_size(32)));

/* s = the tree sum of the 8 vectors at p, p + 8, ..., p + 56: one lane
 * block of 4 lanes (Note [Float64 lane blocks]).  Macros, not functions:
 * a function returning a 32-byte vector changes the ABI by target. */
#define TREE8_4D(s, p)                                                      \
    do {                                                                    \
        tl_v4d v0_, v1_, v2_, v3_, v4_, v5_, v6_, v7_;                      \
        memcpy(&v0_, (p), sizeof v0_);                                      \
        memcpy(&v1_, (p) + 8, sizeof v1_);                                  \
        memcpy(&v2_, (p) + 16, sizeof v2_);                                 \
        memcpy(&v3_, (p) + 24, sizeof v3_);                                 \
        memcpy(&v4_, (p) + 32, sizeof v4_);                                 \
        memcpy(&v5_, (p) + 40, sizeof v5_);                                 \
        memcpy(&v6_, (p) + 48, sizeof v6_);                                 \
        memcpy(&v7_, (p) + 56, sizeof v7_);                                 \
        (s) = ((v0_ + v1_) + (v2_ + v3_)) + ((v4_ + v5_) + (v6_ + v7_));   \
    } while (0)

/* sq = the tree sum of the squared deviations from mv of the 8 vectors
 * at p, p + 8, ..., p + 56 (TREE8_4D's block), d = the tree sum of the
 * deviations. */
#define VAR_DEV4(d, p, mv)                                                  \
    tl_v4d d;                                                               \
    memcpy(&d, (p), sizeof d);                                              \
    d -= (mv)
#define VAR_TREE8_4D(sq, d, p, mv)                                          \
    do {                                                                    \
        VAR_DEV4(d0_, (p), mv);                                             \
        VAR_DEV4(d1_, (p) + 8, mv);                                         \
        VAR_DEV4(d2_, (p) + 16, mv);                                        \
        VAR_DEV4(d3_, (p) + 24, mv);                                        \
        VAR_DEV4(d4_, (p) + 32, mv);                                        \
        VAR_DEV4(d5_, (p) + 40, mv);                                        \
        VAR_DEV4(d6_, (p) + 48, mv);                                        \
        VAR_DEV4(d7_, (p) + 56, mv);                                        \
        (d) = ((d0_ + d1_) + (d2_ + d3_)) + ((d4_ + d5_) + (d6_ + d7_));   \
        (sq) = ((d0_ * d0_ + d1_ * d1_) + (d2_ * d2_ + d3_ * d3_)) +        \
               ((d4_ * d4_ + d5_ * d5_) + (d6_ * d6_ + d7_ * d7_));         \
    } while (0)

/* The 8 doubles of the two 4-lane vectors v0, v1 to p. */
#define STORE_2V4D(p, v0, v1)                                               \
    do {                                                                    \
        memcpy((p), &(v0), sizeof(v0));                                     \
        memcpy((p) + 4, &(v1), sizeof(v1));                                 \
    } while (0)

/* (h, l) += x in 4 lanes: dd_acc's two-sum. */
#define TWO_SUM_4D(h, l, x)                                                 \
    do {                                                                    \
        const tl_v4d t_ = (h) + (x);                                        \
        const tl_v4d b_ = t_ - (h);                                         \
        (l) += ((h) - (t_ - b_)) + ((x) - b_);                              \
        (h) = t_;                                                           \
    } while (0)

typedef int64_t tl_v4di __attribute__((vector_size(32)));
typedef double tl_v2d __attribute__((vector_size(16)));
typedef int64_t tl_v2di __attribute__((vector_size(16)));

/* The partial block's setup (lanes_f64_acc, nanlanes_f64_acc): its c
 * vectors of 8 and the count r of the last one's elements that are its
 * own (1..8), the last vector's masks k0, k1 (lanes j >= 8 - r) and its
 * two halves ta, tb, the last 8 elements q[m-8..m). */
#define PARTIAL_8D_LOAD(c, r, k0, k1, ta, tb)                               \
    const int64_t c = (m - i + 7) / 8, r = (m - i) - 8 * (c - 1);           \
    memcpy(&(k0), f64_tail_mask + r, sizeof(k0));                           \
    memcpy(&(k1), f64_tail_mask + r + 4, sizeof(k1));                       \
    memcpy(&(ta), q + m - 8, sizeof(ta));                                   \
    memcpy(&(tb), q + m - 4, sizeof(tb))
/* The partial block's tree sums s0, s1 into the lanes: the lanes
 * themselves when no block came before. */
#define PARTIAL_8D_TAKE(s0, s1)                                             \
    do {                                                                    \
        if (i == 0) {                                                       \
            h0 = (s0);                                                      \
            h1 = (s1);                                                      \
        } else {                                                            \
            TWO_SUM_4D(h0, l0, (s0));                                       \
            TWO_SUM_4D(h1, l1, (s1));                                       \
        }                                                                   \
    } while (0)

/* dd_add in every lane of vectors of type T (TI: its integer lanes):
 * (h, l) += (bh, bl), h = the plain sum and l = 0 where it is not finite
 * (Note [Compensated sums and non-finite values]); the same operations
 * as dd_add, so the same bits. */
#define DD_ADD_V(T, TI, h, l, bh, bl)                                       \
    do {                                                                    \
        const T s_ = (h) + (bh);                                            \
        const T bp_ = s_ - (h);                                             \
        T e_ = ((h) - (s_ - bp_)) + ((bh) - bp_);                           \
        e_ += (l) + (bl);                                                   \
        const T u_ = s_ + e_;                                               \
        const T w_ = e_ - (u_ - s_);                                        \
        const TI fin_ = (s_ - s_) == (T){0};                                \
        (h) = (T)(((TI)u_ & fin_) | ((TI)s_ & ~fin_));                      \
        (l) = (T)((TI)w_ & fin_);                                           \
    } while (0)
#endif

#if defined(__GNUC__)
/* The 8 compensated lanes (*H0, *L0: lanes 0-3, *H1, *L1: lanes 4-7) of
 * the sum of m >= 1 doubles at q (Note [Float64 lane blocks]).  GCC
 * vector extensions: the SLP vectoriser splits the 8 lanes unevenly;
 * explicit 4-wide vectors (two xmm on SSE2, one ymm on AVX2) keep every
 * lane vectorised.  Lane k of h0 is element 8j + k of the run, lane k of
 * h1 element 8j + 4 + k. */
static TL_ALWAYS_INLINE void lanes_f64_acc(const double *q, int64_t m,
                                           tl_v4d *H0, tl_v4d *H1,
                                           tl_v4d *L0, tl_v4d *L1)
{
    int64_t i = 0;
    tl_v4d h0 = {0, 0, 0, 0}, h1 = h0, l0 = h0, l1 = h0;
    for (; i + F64_BLOCK <= m; i += F64_BLOCK) {
        for (int k = 0; k < F64_BLOCK; k += 8) {
            PREFETCH_AHEAD(q + i + k); /* 8 doubles: one line */
        }
        tl_v4d s0, s1;
        TREE8_4D(s0, q + i);
        TREE8_4D(s1, q + i + 4);
        if (i == 0) { /* the first block is the lanes, exactly */
            h0 = s0;
            h1 = s1;
        } else {
            TWO_SUM_4D(h0, l0, s0);
            TWO_SUM_4D(h1, l1, s1);
        }
    }
    if (m >= 8 && i < m) {
        /* The partial block: c vectors of 8, the last one q[m-8..m) with
         * the elements before the partial block masked to zero (lane j
         * kept when j >= 8 - r: the same lane parity as the element's
         * index, m being even for the complex128 halves), summed as one
         * more block's tree (Note [Float64 lane blocks]), a tree of c. */
        tl_v4di k0, k1;
        tl_v4d ta, tb;
        PARTIAL_8D_LOAD(c, r, k0, k1, ta, tb);
        ta = (tl_v4d)((tl_v4di)ta & k0);
        tb = (tl_v4d)((tl_v4di)tb & k1);
        const double *w = q + i;
#define VA(k) ({ tl_v4d v_; memcpy(&v_, w + 8 * (k), sizeof v_); v_; })
#define VB(k) ({ tl_v4d v_; memcpy(&v_, w + 8 * (k) + 4, sizeof v_); v_; })
        tl_v4d s0, s1;
        TREE_OF_C(VA, ta, s0)
        TREE_OF_C(VB, tb, s1)
#undef VA
#undef VB
        PARTIAL_8D_TAKE(s0, s1);
        i = m;
    } else if (i < m) {
        /* fewer than 8: each in a lane of its own, exactly */
        double t[8] = {0};
        for (int64_t k = 0; k < m; k++) {
            t[k] = q[k];
        }
        memcpy(&h0, t, sizeof h0);
        memcpy(&h1, t + 4, sizeof h1);
        i = m;
    }
    *H0 = h0;
    *H1 = h1;
    *L0 = l0;
    *L1 = l1;
}
#endif

/* Sum of m doubles at q in 8 compensated lanes (Note [Float64 lane
 * blocks]); even-indexed elements go to (hi[0], lo[0]), odd ones to
 * (hi[1], lo[1]). */
static TL_ALWAYS_INLINE void lanes_f64_body(const double *q, int64_t m,
                                            double hi[2], double lo[2])
{
#if defined(__GNUC__)
    tl_v4d h0, h1, l0, l1;
    lanes_f64_acc(q, m, &h0, &h1, &l0, &l1);
    /* dd_fold8's tree in vectors: lane k + 4 into k, then k + 2 into k */
    DD_ADD_V(tl_v4d, tl_v4di, h0, l0, h1, l1);
    tl_v2d g0 = {h0[0], h0[1]}, g1 = {h0[2], h0[3]};
    tl_v2d e0 = {l0[0], l0[1]}, e1 = {l0[2], l0[3]};
    DD_ADD_V(tl_v2d, tl_v2di, g0, e0, g1, e1);
    hi[0] = g0[0];
    lo[0] = e0[0];
    hi[1] = g0[1];
    lo[1] = e0[1];
#else
    int64_t i = 0;
    double h[8] = {0}, l[8] = {0};
    for (; i + F64_BLOCK <= m; i += F64_BLOCK) {
        for (int k = 0; k < 8; k++) {
            const double *e = q + i + k;
            dd_acc(&h[k], &l[k],
                   ((e[0] + e[8]) + (e[16] + e[24])) +
                       ((e[32] + e[40]) + (e[48] + e[56])));
        }
    }
    for (; i + 8 <= m; i += 8) {
        for (int k = 0; k < 8; k++) {
            dd_acc(&h[k], &l[k], q[i + k]);
        }
    }
    for (int k = 0; i < m; i++, k++) {
        dd_acc(&h[k], &l[k], q[i]);
    }
    dd_fold8(h, l);
    hi[0] = h[0];
    lo[0] = l[0];
    hi[1] = h[1];
    lo[1] = l[1];
#endif
}

DISPATCHED(lanes_f64, (const double *q, int64_t m, double hi[2],
                       double lo[2]),
           (q, m, hi, lo))

/* The compensated sum of m >= 1 doubles at q to (*hi, *lo), in registers
 * (sum_row_f64 had read two halves back from lanes_f64's vector stores,
 * a stalled forward every row, a third of a sum over rows of 16
 * doubles).  The 8 lanes fold as a plain tree, each add's rounding error
 * (two-sum) set aside with the lanes' own and added once at the end: the
 * tree's adds are the only chain, where folding compensated pairs
 * (dd_add, each on the one before) was three times longer, most of a sum
 * over rows of 16 doubles.  The error terms are what dd_add would carry,
 * so the pair is as exact; hi is the plain sum when that is not finite
 * (Note [Compensated sums and non-finite values]). */
#if defined(__GNUC__)
static TL_ALWAYS_INLINE void lanes_f64_fold(const tl_v4d *H0, const tl_v4d *H1,
                                            const tl_v4d *L0, const tl_v4d *L1,
                                            double *hi, double *lo)
{
    const tl_v4d h0 = *H0, h1 = *H1, l0 = *L0, l1 = *L1;
    const tl_v4d s = h0 + h1;
    const tl_v4d bp = s - h0;
    const tl_v4d e = ((h0 - (s - bp)) + (h1 - bp)) + (l0 + l1);
    const tl_v2d sa = {s[0], s[1]}, sb = {s[2], s[3]};
    const tl_v2d s2 = sa + sb;
    const tl_v2d bp2 = s2 - sa;
    const tl_v2d e2 = ((sa - (s2 - bp2)) + (sb - bp2)) +
                      ((tl_v2d){e[0], e[1]} + (tl_v2d){e[2], e[3]});
    const double s3 = s2[0] + s2[1];
    const double bp3 = s3 - s2[0];
    const double e3 = ((s2[0] - (s3 - bp3)) + (s2[1] - bp3)) + (e2[0] + e2[1]);
    *hi = s3;
    *lo = isfinite(s3) ? e3 : 0.0;
}
#endif

static TL_ALWAYS_INLINE void lanes1_f64_body(const double *q, int64_t m,
                                             double *hi, double *lo)
{
#if defined(__GNUC__)
    tl_v4d h0, h1, l0, l1;
    lanes_f64_acc(q, m, &h0, &h1, &l0, &l1);
    lanes_f64_fold(&h0, &h1, &l0, &l1, hi, lo);
#else
    double h[2], l[2];
    lanes_f64_body(q, m, h, l);
    dd_add(&h[0], &l[0], h[1], l[1]);
    *hi = h[0];
    *lo = l[0];
#endif
}

DISPATCHED(lanes1_f64, (const double *q, int64_t m, double *hi, double *lo),
           (q, m, hi, lo))

/* Compensated strided sum of n doubles (byte stride s). */
static void strided_f64(const char *p, int64_t n, int64_t s, double *hi,
                        double *lo)
{
    double h = 0, l = 0;
    for (int64_t i = 0; i < n; i++) {
        dd_acc(&h, &l, *(const double *)(p + i * s));
    }
    *hi = h;
    *lo = isfinite(h) ? l : 0;
}

/* ---- sums: integers and bool --------------------------------------------- */

/* Note [Cols in blocks of 8 rows]
 * A cols kernel that updates its accumulators row by row loads and
 * stores the accumulator once per element read, and follows one row
 * stream at a time: the float64 sum over dim 0 of a 2048^2 matrix ran at
 * half NumPy's speed that way (and the float32 prod at a third).  On
 * contiguous columns, blocks of 8 rows now combine as a tree first
 * (((r0 op r1) op (r2 op r3)) op ((r4 op r5) op (r6 op r7))) and update
 * the accumulator once: 8 streams in flight and one accumulator update
 * per 8 elements.  For float sums the tree is also more accurate than
 * the row-by-row order it replaces; integer sums wrap as before (the
 * order does not change a wrapping sum); float products round in
 * another order (in float64, both within the rounding NumPy's own
 * float32/float64 products make).  The block loop has an AVX-512 clone
 * (DISPATCHED3; the same operations, so the same bits): the float32
 * product's float64 tree converts and multiplies 8 doubles an
 * instruction there, and over dim 0 of 2048^2 on a Zen 5 (full-width
 * AVX-512) took 297-319 us against the AVX2 clone's 366-439 (NumPy
 * 273-321). */
#define DEF_COLS8(NAME, AT, T, CV, OP, UPDATE)                              \
    static TL_ALWAYS_INLINE void NAME##_body(                                \
        AT *restrict acc, const T *restrict q0, const T *restrict q1,        \
        const T *restrict q2, const T *restrict q3, const T *restrict q4,    \
        const T *restrict q5, const T *restrict q6, const T *restrict q7,    \
        int64_t n)                                                           \
    {                                                                       \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] UPDATE((CV(q0[j]) OP CV(q1[j])) OP                       \
                          (CV(q2[j]) OP CV(q3[j]))) OP                      \
                         ((CV(q4[j]) OP CV(q5[j])) OP                       \
                          (CV(q6[j]) OP CV(q7[j])));                        \
        }                                                                   \
    }                                                                       \
    DISPATCHED3(NAME,                                                       \
                (AT *restrict acc, const T *restrict q0,                    \
                 const T *restrict q1, const T *restrict q2,                \
                 const T *restrict q3, const T *restrict q4,                \
                 const T *restrict q5, const T *restrict q6,                \
                 const T *restrict q7, int64_t n),                          \
                (acc, q0, q1, q2, q3, q4, q5, q6, q7, n))

/* Note [Prefetch of short rows]
 * A block of 8 rows of a cols kernel is 8 read streams.  When the rows
 * are short (a middle-dim reduction of a (128, 256, 128) float32 tensor:
 * 512 bytes a row), each stream ends after a few lines, before the
 * hardware prefetchers have locked on, and the loads wait on memory:
 * that sum ran at half PyTorch's speed.  So while a block of short rows
 * is summed, the next block's rows are prefetched, guessed from this
 * block's row step (a wrong guess at a dim boundary only prefetches
 * lines that are not needed; prefetches never fault, and the addresses
 * are formed as integers).  A plain C model of that reduction: 1020 ->
 * 642 us.  The prefetches go to L2 (locality 2, prefetcht1), not L1:
 * 64 lines a block of L1 prefetches held the fill buffers the block's own
 * loads needed, and from memory (the cache flushed before each call) the
 * float32 middle-dim sum took 2.66 ms, int32 amax 2.1, float64 sum 3.6;
 * to L2: 1.75, 1.09, 2.3 ms (NumPy 1.06, 0.93, 1.7).  In L3 the float64
 * sum went 3.2 -> 1.7 ms.  Two blocks ahead instead of one, or
 * prefetchnta, measured no better. */
#define SHORT_ROW_BYTES 1024

static inline void prefetch_rows8(const char *base, int64_t off,
                                  const void *q0, const void *q1,
                                  int64_t bytes)
{
    const uintptr_t step = (uintptr_t)q1 - (uintptr_t)q0;
    uintptr_t p = (uintptr_t)base + (uintptr_t)off;
    for (int k = 0; k < 8; k++, p += step) {
        for (int64_t b = 0; b < bytes; b += 64) {
            __builtin_prefetch((const void *)(p + (uintptr_t)b), 0, 2);
        }
    }
}

/* The next 8 rows of (rs, idx, off) into q[8] as T pointers; advances
 * off past them and prefetches the 8 after them when rows of n T are
 * short (Note [Prefetch of short rows]). */
#define ROWS8(T, q, base, rs, idx, off, n)                                  \
    do {                                                                    \
        for (int k_ = 0; k_ < 8; k_++) {                                    \
            (q)[k_] = (const T *)((base) + (off));                          \
            (off) = tl_rspace_next((rs), (idx), (off));                     \
        }                                                                   \
        if ((n) * (int64_t)sizeof(T) <= SHORT_ROW_BYTES) {                  \
            prefetch_rows8((base), (off), (q)[0], (q)[1],                   \
                           (n) * (int64_t)sizeof(T));                       \
        }                                                                   \
    } while (0)

/* On contiguous columns (cs the size of T), FN on the rows from r on in
 * blocks of 8 while 8 are left before re; r and off advance past them. */
#define COLS8_RUN(FN, T, acc, base, rs, idx, off, r, re, cs, n)             \
    do {                                                                    \
        if ((cs) == (int64_t)sizeof(T)) {                                   \
            for (; (re) - (r) >= 8; (r) += 8) {                             \
                COLS8_CALL(FN, T, acc, base, rs, idx, off, n);              \
            }                                                               \
        }                                                                   \
    } while (0)

/* Calls FN on the next 8 rows of (rs, idx, off) as T pointers and
 * advances off past them. */
#define COLS8_CALL(FN, T, acc, base, rs, idx, off, n)                       \
    do {                                                                    \
        const T *q_[8];                                                     \
        ROWS8(T, q_, base, rs, idx, off, n);                                \
        FN((acc), q_[0], q_[1], q_[2], q_[3], q_[4], q_[5], q_[6], q_[7],   \
           (n));                                                            \
    } while (0)

#define DEF_ISUM(N, T, CVU) DEF_ISUM_NAMED(sum, N, T, CVU)
/* NAME##_row_##N and NAME##_cols_##N: the wrapping uint64 sum of CVU(x)
 * (sums of integers; count_nonzero with CVU a 0/1 predicate). */
#define DEF_ISUM_NAMED(NAME, N, T, CVU)                                     \
    DEF_ISUM_LANES(NAME, N, T, CVU)                                         \
    DEF_ISUM_ROWCOLS(NAME, N, T, CVU, NAME##_lanes_##N)
/* contiguous: NAME_lanes_N(q, n, out), *out = the sum of n elements at
 * q, in 8 lanes */
#define DEF_ISUM_LANES(NAME, N, T, CVU)                                     \
    static TL_ALWAYS_INLINE void NAME##_lanes_##N##_body(                    \
        const T *q, int64_t n, uint64_t *out)                               \
    {                                                                       \
        uint64_t acc[8] = {0};                                              \
        int64_t i = 0;                                                      \
        for (; i + 8 <= n; i += 8) {                                        \
            for (int k = 0; k < 8; k++) {                                   \
                acc[k] += CVU(q[i + k]);                                    \
            }                                                               \
        }                                                                   \
        for (; i < n; i++) {                                                \
            acc[0] += CVU(q[i]);                                            \
        }                                                                   \
        uint64_t t = 0;                                                     \
        for (int k = 0; k < 8; k++) {                                       \
            t += acc[k];                                                    \
        }                                                                   \
        *out = t;                                                           \
    }                                                                       \
    DISPATCHED(NAME##_lanes_##N, (const T *q, int64_t n, uint64_t *out),    \
               (q, n, out))
/* NAME_row_N (contiguous rows through LANES, as NAME_lanes_N) and
 * NAME_cols_N, with NAME8_N for the 8-row blocks. */
#define DEF_ISUM_ROWCOLS(NAME, N, T, CVU, LANES)                            \
    DEF_COLS8(NAME##8_##N, uint64_t, T, CVU, +, +=)                         \
    static void NAME##_row_##N(const char *p, int64_t n, int64_t s,             \
                            int64_t idx0, const tl_racc *aux, tl_racc *res)  \
    {                                                                       \
        if (s == (int64_t)sizeof(T)) {                                      \
            LANES((const T *)p, n, &res->v.u[0]);                           \
            return;                                                         \
        }                                                                   \
        uint64_t acc[8] = {0};                                              \
        for (int64_t i = 0; i < n; i++) {                                   \
            acc[i & 7] += CVU(*(const T *)(p + i * s));                     \
        }                                                                   \
        uint64_t t = 0;                                                     \
        for (int k = 0; k < 8; k++) {                                       \
            t += acc[k];                                                    \
        }                                                                   \
        res->v.u[0] = t;                                                    \
    }                                                                       \
    static void NAME##_cols_##N(const char *base, int64_t n, int64_t cs,        \
                             const tl_rspace *rs, int64_t rb, int64_t re,    \
                             const tl_racc *aux, tl_racc *res)               \
    {                                                                       \
        uint64_t acc[TILE];                                                 \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 0;                                                     \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        int64_t r = rb;                                                     \
        COLS8_RUN(NAME##8_##N, T, acc, base, rs, idx, off, r, re, cs, n);   \
        for (; r < re; r++) {                                               \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) {                                 \
                const T *q = (const T *)p;                                  \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] += CVU(q[j]);                                    \
                }                                                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] += CVU(*(const T *)(p + j * cs));                \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.u[0] = acc[j];                                         \
        }                                                                   \
    }

DEF_ISUM(b, uint8_t, U64B)
DEF_ISUM(u8, uint8_t, U64U)
DEF_ISUM(i8, int8_t, U64S)
DEF_ISUM(i16, int16_t, U64S)
DEF_ISUM(u16, uint16_t, U64U)
DEF_ISUM(i32, int32_t, U64S)
DEF_ISUM(u32, uint32_t, U64U)
DEF_ISUM(i64, int64_t, U64S)
DEF_ISUM(u64, uint64_t, U64U)

/* ---- sums: floats -------------------------------------------------------- */

/* Pairwise cols accumulation (Note [Summation accuracy]).  acc holds n
 * float64 sums (zeroed by the caller); tmp has SUM_MAXDEPTH rows of
 * TILE. */
#define FCV_(LD) (double)LD
#define DEF_FCOLS(N, T, LD)                                                 \
    DEF_COLS8(fsum8_##N, double, T, FCV_(LD), +, +=)                        \
    static void fcols_##N(const char *base, int64_t n, int64_t cs,           \
                          const tl_rspace *rs, int64_t rb, int64_t re,       \
                          double *acc, double *tmp, int depth)               \
    {                                                                       \
        if (re - rb > SUM_LEAF && depth < SUM_MAXDEPTH) {                   \
            const int64_t mid = rb + (re - rb) / 2;                         \
            fcols_##N(base, n, cs, rs, rb, mid, acc, tmp, depth + 1);       \
            double *t = tmp + (int64_t)depth * TILE;                        \
            for (int64_t j = 0; j < n; j++) {                               \
                t[j] = 0;                                                   \
            }                                                               \
            fcols_##N(base, n, cs, rs, mid, re, t, tmp, depth + 1);         \
            for (int64_t j = 0; j < n; j++) {                               \
                acc[j] += t[j];                                             \
            }                                                               \
            return;                                                         \
        }                                                                   \
        if (FCOLS_LEAF_##N(base, n, cs, rs, rb, re, acc)) {                 \
            return;                                                         \
        }                                                                   \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        int64_t r = rb;                                                     \
        COLS8_RUN(fsum8_##N, T, acc, base, rs, idx, off, r, re, cs, n);     \
        for (; r < re; r++) {                                               \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) {                                 \
                const T *q = (const T *)p;                                  \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] += (double)LD(q[j]);                             \
                }                                                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] += (double)LD(*(const T *)(p + j * cs));         \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
    }                                                                       \
    static void sum_cols_##N(const char *base, int64_t n, int64_t cs,        \
                             const tl_rspace *rs, int64_t rb, int64_t re,    \
                             const tl_racc *aux, tl_racc *res)               \
    {                                                                       \
        double acc[TILE];                                                   \
        double tmp[SUM_MAXDEPTH * TILE];                                    \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 0;                                                     \
        }                                                                   \
        fcols_##N(base, n, cs, rs, rb, re, acc, tmp, 0);                    \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = acc[j];                                         \
            res[j].v.d[1] = 0;                                              \
        }                                                                   \
    }

#define FCOLS_LEAF_f16(...) 0
#define FCOLS_LEAF_bf16(...) 0
#define FCOLS_LEAF_f32g(...) 0
DEF_FCOLS(f16, uint16_t, LDH)
DEF_FCOLS(bf16, uint16_t, LDBF)
DEF_FCOLS(f32g, float, LDID)

/* Note [Float32 cols in blocks of 8 rows]
 * float32 cols over rows further apart than the strips take (dim 0 of a
 * C-contiguous matrix): each block of 8 rows adds as a pairwise tree in
 * float32 (three roundings per element, each at most 2^-24 of the
 * magnitudes summed so far: an error below 3 * 2^-24 of the block's sum of
 * magnitudes), and the block sums accumulate in float64, which adds
 * nothing a float32 result can see over a call's rows.  NumPy adds an outer
 * axis row by row in float32 (up to rows - 1 roundings per element); the
 * float32 lane blocks of the row sums (Note [Float32 lane blocks]) allow
 * 7.  A column whose block sum is not finite (an overflow in float32, or
 * an inf or NaN input) adds that block again in float64, column by column,
 * so a column's value never depends on its neighbours (output blocks and
 * tiles never change a value; Note [Reduction chunks]).  Converting every
 * element to float64 instead (the earlier tree) was compute-bound in cache:
 * one thread, Zen 4, dim 0 of 2048^2 float32 1.23 -> 1.08 of NumPy's time,
 * of (1000, 600) 1.0 -> 0.69.  The arrays are restrict so the loops
 * vectorise without alias checks. */
static TL_ALWAYS_INLINE void cols8_f32_body(double *restrict acc,
                                            const float *restrict q0,
                      const float *restrict q1, const float *restrict q2,
                      const float *restrict q3, const float *restrict q4,
                      const float *restrict q5, const float *restrict q6,
                      const float *restrict q7, int64_t n)
{
    float blk[TILE];
    uint32_t bad = 0;
    for (int64_t j = 0; j < n; j++) {
        const float s = ((q0[j] + q1[j]) + (q2[j] + q3[j])) +
                        ((q4[j] + q5[j]) + (q6[j] + q7[j]));
        uint32_t u;
        memcpy(&u, &s, sizeof u);
        /* sets bit 31 exactly when the exponent is all ones */
        bad |= (u & 0x7f800000u) + 0x00800000u;
        blk[j] = s;
    }
    if (!(bad & 0x80000000u)) {
        for (int64_t j = 0; j < n; j++) {
            acc[j] += (double)blk[j];
        }
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        if (isfinite(blk[j])) {
            acc[j] += (double)blk[j];
        } else {
            acc[j] += (((double)q0[j] + (double)q1[j]) +
                       ((double)q2[j] + (double)q3[j])) +
                      (((double)q4[j] + (double)q5[j]) +
                       ((double)q6[j] + (double)q7[j]));
        }
    }
}

DISPATCHED(cols8_f32,
           (double *restrict acc, const float *restrict q0,
            const float *restrict q1, const float *restrict q2,
            const float *restrict q3, const float *restrict q4,
            const float *restrict q5, const float *restrict q6,
            const float *restrict q7, int64_t n),
           (acc, q0, q1, q2, q3, q4, q5, q6, q7, n))

/* Note [Float32 cols blocks in AVX-512]
 * The 8-row blocks of cols8_f32, 16 columns at a time in AVX-512
 * registers: the float32 tree, one fpclass test for an infinite or NaN
 * block sum, and the float64 update of acc straight from the registers.
 * cols8_f32 stores a call's block sums to a stack array and converts them
 * in a second loop; over dim 0 of a 2048^2 float32 matrix (8 KiB rows:
 * the 8 rows' loads and that array share L1 sets) a C model of it took
 * 340-380 us, these 16-column steps 280-300 (a plain sum of the same 16
 * MiB: 205); in tensorlib, one thread, 353-391 -> 304-324 us.  A step
 * whose block sums are not all finite is redone by cols8_f32_base over
 * its 16 columns before acc is touched, so every column gets the bits
 * cols8_f32 gives it.  Returns the columns done (a multiple of 16); the
 * caller does the rest. */
#ifdef TL_AVX2_DISPATCH
TL_TARGET_AVX512 static int64_t cols8_f32_512(double *restrict acc,
                                              const float *const *q,
                                              int64_t n)
{
    int64_t j = 0;
    for (; n - j >= 16; j += 16) {
        const __m512 s = _mm512_add_ps(
            _mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(q[0] + j),
                                        _mm512_loadu_ps(q[1] + j)),
                          _mm512_add_ps(_mm512_loadu_ps(q[2] + j),
                                        _mm512_loadu_ps(q[3] + j))),
            _mm512_add_ps(_mm512_add_ps(_mm512_loadu_ps(q[4] + j),
                                        _mm512_loadu_ps(q[5] + j)),
                          _mm512_add_ps(_mm512_loadu_ps(q[6] + j),
                                        _mm512_loadu_ps(q[7] + j))));
        /* fpclass 0x99: quiet NaN, +inf, -inf, signalling NaN */
        if (_mm512_fpclass_ps_mask(s, 0x99)) {
            cols8_f32_base(acc + j, q[0] + j, q[1] + j, q[2] + j, q[3] + j,
                           q[4] + j, q[5] + j, q[6] + j, q[7] + j, 16);
            continue;
        }
        const __m512d lo = _mm512_cvtps_pd(_mm512_castps512_ps256(s));
        const __m512d hi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(s, 1));
        _mm512_storeu_pd(acc + j, _mm512_add_pd(_mm512_loadu_pd(acc + j), lo));
        _mm512_storeu_pd(acc + j + 8,
                         _mm512_add_pd(_mm512_loadu_pd(acc + j + 8), hi));
    }
    return j;
}
#endif

static void cols1_f32(double *restrict acc, const float *restrict q,
                      int64_t n)
{
    for (int64_t j = 0; j < n; j++) {
        acc[j] += (double)q[j];
    }
}

static void sum_cols_f32_tree(const char *base, int64_t n,
                              const tl_rspace *rs, int64_t rb, int64_t re,
                              tl_racc *res)
{
    double acc[TILE];
    for (int64_t j = 0; j < n; j++) {
        acc[j] = 0;
    }
    int64_t idx[TL_MAX_DIMS];
    int64_t off = tl_rspace_seek(rs, rb, idx);
    int64_t r = rb;
    for (; re - r >= 8; r += 8) {
        const float *q[8];
        ROWS8(float, q, base, rs, idx, off, n);
        int64_t j = 0;
#ifdef TL_AVX2_DISPATCH
        if (have_avx512()) {
            j = cols8_f32_512(acc, q, n);
        }
#endif
        if (j < n) {
            cols8_f32(acc + j, q[0] + j, q[1] + j, q[2] + j, q[3] + j,
                      q[4] + j, q[5] + j, q[6] + j, q[7] + j, n - j);
        }
    }
    for (; r < re; r++) {
        cols1_f32(acc, (const float *)(base + off), n);
        off = tl_rspace_next(rs, idx, off);
    }
    for (int64_t j = 0; j < n; j++) {
        res[j].v.d[0] = acc[j];
        res[j].v.d[1] = 0;
    }
}

/* Note [Float32 cols in register strips]
 * When consecutive rows are close (a row step of at most FSTRIP_MAX_STEP
 * bytes: a middle-dim reduction such as dim 1 of (128, 256, 128)), float32
 * sums and products (and float64 products) over contiguous columns fold each
 * column row by row in float64 held in registers: a strip of columns (16
 * vectors of 8 float64 with AVX-512, 8 of 4 otherwise) runs down every row
 * of the call, then the next strip. The tree of 8-row blocks (above; then
 * converting 8 rows at a time to float64) updates a float64 array in memory
 * once a block; on such rows the strips took 0.6 of its time or less (one
 * thread, Zen 4, dim 1 of (128, 256, 128): float32 sum 0.60 -> 0.36 ms,
 * float64 product 2.07 -> 0.96 ms; float32 sum of (32, 64, 128): 42 -> 30
 * us). Float64 sums keep their pairwise tree of SUM_LEAF-row leaves
 * (DEF_FCOLS) and sum each leaf in strips (dsum_leaf; the same dim: 2.1-2.4
 * -> 1.1 ms, NumPy 1.34). Max and min do the same with their own strips
 * (DEF_VSTRIP). Rows further apart keep the tree: a strip reads a few lines
 * of a row before it moves to the next, and across pages the hardware
 * prefetchers do not follow it (dim 0 of a 4096^2 float32 matrix, from
 * memory: 1.23 -> 1.7 of NumPy's time with strips). The choice depends on
 * the tensor's layout only, never on the thread count or the ISA. A column's
 * order in a strip is fixed (its rows in order, from 0.0 or 1.0) whatever
 * the strip width, so the AVX-512, AVX2 and baseline strips give
 * bit-identical results (and so do the whole-row folds that replace
 * the strips without AVX-512 on rows wider than one strip: Note [Row
 * folds over close rows]).
 * A float64 sum of float32 values loses nothing a
 * float32 result can see over a call's rows (at most TL_REDUCE_RCHUNK;
 * chunks then combine pairwise): the error is below 2^-38 of the sum of
 * magnitudes. */
#define FSTRIP_MAX_STEP 2048
/* NAME_body: the strip of K vectors VD from column col (of T), folded
 * with OP from INIT down rows [rb, re); out gets K * lanes float64. */
#define DEF_FSTRIP(NAME, ATTR, T, VD, K, LOADCVT, OP, INIT)                 \
    ATTR static TL_ALWAYS_INLINE void NAME##_body(                           \
        double *restrict out, const char *base, int64_t col,                 \
        const tl_rspace *rs, int64_t rb, int64_t re)                         \
    {                                                                       \
        enum { L_ = sizeof(VD) / sizeof(double) };                          \
        VD a[K];                                                            \
        for (int k = 0; k < K; k++) {                                       \
            a[k] = (VD){0} + (INIT);                                        \
        }                                                                   \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            const T *q = (const T *)(base + off) + col;                     \
            for (int k = 0; k < K; k++) {                                   \
                a[k] = a[k] OP LOADCVT(q + k * L_);                         \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int k = 0; k < K; k++) {                                       \
            memcpy(out + k * L_, &a[k], sizeof a[k]);                       \
        }                                                                   \
    }

typedef double fs_v4d __attribute__((vector_size(32)));
typedef float fs_v4f __attribute__((vector_size(16)));
/* Four floats at p as a fs_v4d: one vcvtps2pd on AVX2 (see CVT4D). */
#define FS_LOAD4(p)                                                         \
    __extension__({                                                         \
        fs_v4f x_;                                                          \
        memcpy(&x_, (p), sizeof x_);                                        \
        (fs_v4d){x_[0], x_[1], x_[2], x_[3]};                               \
    })
#define FS_LOAD8(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
/* The same for float64 columns: plain loads. */
#define FD_LOAD4(p)                                                         \
    __extension__({                                                         \
        fs_v4d x_;                                                          \
        memcpy(&x_, (p), sizeof x_);                                        \
        x_;                                                                 \
    })
#define FD_LOAD8(p) _mm512_loadu_pd(p)
#define FS_PARAMS                                                           \
    (double *restrict out, const char *base, int64_t col,                   \
     const tl_rspace *rs, int64_t rb, int64_t re)
#define FS_ARGS (out, base, col, rs, rb, re)

/* float32 reductions that read more than this fold their rows (Note [Row
 * folds over close rows]); smaller ones keep the strips. */
#define FOLD_FAR_BYTES ((int64_t)8 << 20)
/* Prefetches (to L1) the w bytes FOLD_AHEAD_ROWS row steps after row
 * (Note [Row folds over close rows]).  The address is formed as an
 * integer: past the last row it is a line that is not needed, and a
 * prefetch never faults. */
#define FOLD_AHEAD_ROWS 4
static inline void prefetch_row_ahead(const char *row, int64_t step,
                                      int64_t w)
{
    const uintptr_t p =
        (uintptr_t)row + (uintptr_t)(FOLD_AHEAD_ROWS * step);
    for (int64_t b = 0; b < w; b += 64) {
        __builtin_prefetch((const void *)(p + (uintptr_t)b), 0, 3);
    }
}

/* NAME##_strips_to(base, n, rs, rb, re, acc): the columns [0, n) of T
 * folded with OP from INIT into acc[0..n) (Note [Float32 cols in
 * register strips]); NAME##_strips (DEF_FSTRIPS_RES): the same into
 * res[j].v.d[0]. */
/* DEF_FSTRIPS_X: the same with XF(x) of each converted element x in
 * place of x (the LOADs apply it to their vectors). */
#define FS_ID(x) (x)
#define DEF_FSTRIPS(NAME, T, OP, INIT, LOAD4, LOAD8)                        \
    DEF_FSTRIPS_X(NAME, T, OP, INIT, LOAD4, LOAD8, FS_ID)
#define DEF_FSTRIPS_X(NAME, T, OP, INIT, LOAD4, LOAD8, XF)                  \
    DEF_FSTRIP(NAME##32, , T, fs_v4d, 8, LOAD4, OP, INIT)                   \
    DISPATCHED(NAME##32, FS_PARAMS, FS_ARGS)                                \
    FS_STRIP512(NAME, T, OP, INIT, LOAD8)                                   \
    static TL_ALWAYS_INLINE void NAME##_fold_body(                          \
        double *restrict a, const T *restrict q, int64_t n)                 \
    {                                                                       \
        for (int64_t k = 0; k < n; k++) {                                   \
            a[k] = a[k] OP XF((double)q[k]);                                \
        }                                                                   \
    }                                                                       \
    DISPATCHED(NAME##_fold,                                                 \
               (double *restrict a, const T *restrict q, int64_t n),        \
               (a, q, n))                                                   \
    static void NAME##_strips_to(const char *base, int64_t n,               \
                                 const tl_rspace *rs, int64_t rb,           \
                                 int64_t re, double *acc)                   \
    {                                                                       \
        int64_t j = 0;                                                      \
        FS_RUN512(NAME, acc, base, rs, rb, re, j, n);                       \
        /* Note [Row folds over close rows]: rows wider than a strip    */ \
        /* fold whole without AVX-512 (the tail below, from 0).          */ \
        if (!(n > 32 && FS_FOLD_ROWS() &&                                   \
              (sizeof(T) == sizeof(double) ||                               \
               reduce_footprint > FOLD_FAR_BYTES))) {                       \
            for (; n - j >= 32; j += 32) {                                  \
                NAME##32(acc + j, base, j, rs, rb, re);                     \
            }                                                               \
        }                                                                   \
        if (j < n) {                                                        \
            /* the columns [j, n) in one pass, rows in order */            \
            double *a = acc + j;                                            \
            const int64_t w = (n - j) * (int64_t)sizeof(T);                 \
            int64_t idx[TL_MAX_DIMS];                                       \
            int64_t off = tl_rspace_seek(rs, rb, idx);                      \
            for (int64_t k = 0; k < n - j; k++) {                           \
                a[k] = (INIT);                                              \
            }                                                               \
            for (int64_t r = rb; r < re; r++) {                             \
                const char *row = base + off + j * (int64_t)sizeof(T);      \
                prefetch_row_ahead(row, rs->stride[0], w);                  \
                NAME##_fold(a, (const T *)row, n - j);                      \
                off = tl_rspace_next(rs, idx, off);                         \
            }                                                               \
        }                                                                   \
    }
#define DEF_FSTRIPS_RES(NAME)                                               \
    static void NAME##_strips(const char *base, int64_t n,                  \
                              const tl_rspace *rs, int64_t rb, int64_t re,  \
                              tl_racc *res)                                 \
    {                                                                       \
        double acc[TILE];                                                   \
        NAME##_strips_to(base, n, rs, rb, re, acc);                         \
        for (int64_t k = 0; k < n; k++) {                                   \
            res[k].v.d[0] = acc[k];                                         \
            res[k].v.d[1] = 0;                                              \
        }                                                                   \
    }
#ifdef TL_AVX2_DISPATCH
#define FS_STRIP512(NAME, T, OP, INIT, LOAD8)                              \
    DEF_FSTRIP(NAME##128, TL_TARGET_AVX512, T, __m512d, 16, LOAD8, OP,      \
               INIT)                                                        \
    TL_TARGET_AVX512 static void NAME##128 FS_PARAMS                        \
    {                                                                       \
        NAME##128_body FS_ARGS;                                             \
    }
#define FS_RUN512(NAME, acc, base, rs, rb, re, j, n)                        \
    do {                                                                    \
        if (have_avx512()) {                                                \
            for (; (n) - (j) >= 128; (j) += 128) {                          \
                NAME##128((acc) + (j), (base), (j), (rs), (rb), (re));      \
            }                                                               \
        }                                                                   \
    } while (0)
#define FS_FOLD_ROWS() (!have_avx512())
#else
#define FS_STRIP512(NAME, T, OP, INIT, LOAD8)
#define FS_RUN512(NAME, acc, base, rs, rb, re, j, n) ((void)0)
#define FS_FOLD_ROWS() 1
#endif

DEF_FSTRIPS(fsum, float, +, 0.0, FS_LOAD4, FS_LOAD8)
DEF_FSTRIPS_RES(fsum)
DEF_FSTRIPS(fprod, float, *, 1.0, FS_LOAD4, FS_LOAD8)
DEF_FSTRIPS_RES(fprod)
DEF_FSTRIPS(dprod, double, *, 1.0, FD_LOAD4, FD_LOAD8)
DEF_FSTRIPS_RES(dprod)
DEF_FSTRIPS(dsum, double, +, 0.0, FD_LOAD4, FD_LOAD8)

/* Whether the rows of rs are close enough for the strips. */
static inline bool fstrip_rows(const tl_rspace *rs)
{
    return rs->nr > 0 && rs->stride[0] >= -FSTRIP_MAX_STEP &&
           rs->stride[0] <= FSTRIP_MAX_STEP;
}

/* A leaf of the float64 pairwise cols sum (DEF_FCOLS: at most SUM_LEAF
 * rows, in order) over close contiguous rows: the strips.  Returns 0
 * (nothing done) otherwise. */
static int dsum_leaf(const char *base, int64_t n, int64_t cs,
                     const tl_rspace *rs, int64_t rb, int64_t re,
                     double *acc)
{
    if (cs != (int64_t)sizeof(double) || !fstrip_rows(rs)) {
        return 0;
    }
    double part[TILE];
    dsum_strips_to(base, n, rs, rb, re, part);
    for (int64_t j = 0; j < n; j++) {
        acc[j] += part[j];
    }
    return 1;
}
#define FCOLS_LEAF_f64(...) dsum_leaf(__VA_ARGS__)
DEF_FCOLS(f64, double, LDID)

static void sum_cols_f32(const char *base, int64_t n, int64_t cs,
                         const tl_rspace *rs, int64_t rb, int64_t re,
                         const tl_racc *aux, tl_racc *res)
{
    if (cs != (int64_t)sizeof(float)) {
        sum_cols_f32g(base, n, cs, rs, rb, re, aux, res);
    } else if (fstrip_rows(rs)) {
        fsum_strips(base, n, rs, rb, re, res);
    } else {
        sum_cols_f32_tree(base, n, rs, rb, re, res);
    }
}

/* float16 / bfloat16: converted element by element. */
#define DEF_HSUM_ROW(N, LD)                                                 \
    static void sum_row_##N(const char *p, int64_t n, int64_t s,             \
                            int64_t idx0, const tl_racc *aux, tl_racc *res)  \
    {                                                                       \
        double acc[8] = {0};                                                \
        for (int64_t i = 0; i < n; i++) {                                   \
            acc[i & 7] += (double)LD(*(const uint16_t *)(p + i * s));       \
        }                                                                   \
        res->v.d[0] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) +             \
                      ((acc[4] + acc[5]) + (acc[6] + acc[7]));              \
    }

DEF_HSUM_ROW(f16, LDH)
DEF_HSUM_ROW(bf16, LDBF)

static void sum_row_f32(const char *p, int64_t n, int64_t s, int64_t idx0,
                        const tl_racc *aux, tl_racc *res)
{
    if (s == (int64_t)sizeof(float)) {
        lanes1_f32((const float *)p, n, &res->v.d[0]);
        return;
    }
    double acc[4] = {0};
    for (int64_t i = 0; i < n; i++) {
        acc[i & 3] += (double)*(const float *)(p + i * s);
    }
    res->v.d[0] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

static void sum_row_f64(const char *p, int64_t n, int64_t s, int64_t idx0,
                        const tl_racc *aux, tl_racc *res)
{
    if (s == (int64_t)sizeof(double)) {
        lanes1_f64((const double *)p, n, &res->v.d[0], &res->v.d[1]);
        return;
    }
    strided_f64(p, n, s, &res->v.d[0], &res->v.d[1]);
}

/* Note [Row runs]
 * Over short innermost rows (a sum(dim=1) of rows of 16-250 floats) a
 * row's cost was mostly its calls: the driver's call through the table,
 * the row kernel's to the dispatcher and the dispatcher's to the clone,
 * none of which the compiler can see through, and so no overlap of one
 * row's fold with the next row's loads.  A kernel's rows entry takes a
 * run of rows (up to a tile of outputs) in one call, and its loop over
 * them sits in the clone, the row body inlined: the same body, so the
 * same bits as row() a row.  Strided rows go through row() one by one.
 * Adjacent short rows (at most ROW_RUN_PF_ROW bytes) of a reduction that
 * reads more than L2 holds are prefetched ROW_RUN_PF_AHEAD bytes ahead,
 * every line: the hardware prefetcher alone left sum(dim=1) of (69905,
 * 60) float64 (32 MiB) at 1.43 ms, 1.76x PyTorch's time, and 1.11-1.12
 * ms with it (PyTorch 0.81-0.89; one thread, Zen 4); it changes no
 * value, and an address past the end is only prefetched, formed as an
 * integer.  2048 bytes ahead was measured best on Zen 4; on Zen 5
 * (full-width AVX-512, 1 MiB L2) 16384 beat 2048, 4096, 8192, 32768 and
 * 65536: sum(dim=1) of (262144, 16) float64 1.16-1.23 -> 0.91-0.97 of
 * PyTorch's time, of (69905, 60) float64 1.19-1.30 -> 0.69-0.80, float32
 * and nansum no worse (one thread).  The run loops are also compiled for
 * AVX-512 (DISPATCHED3): the same 256-bit operations in the same order,
 * but 32 vector registers, so a float32 lane block's 16 vectors no
 * longer spill; sum(dim=1) of (4096, 64) float32 in cache 8.0 -> 5.1 ns
 * a row (PyTorch 5.1). */
#define ROW_RUN_PF_ROW 1024
#define ROW_RUN_PF_AHEAD 16384
#define ROW_RUN_PF_BYTES ((int64_t)1 << 20)
#if defined(__GNUC__)
#define ROW_RUN_PREFETCH(a) __builtin_prefetch((const void *)(a))
#else
#define ROW_RUN_PREFETCH(a) ((void)(a))
#endif
/* In a loop over m rows of n T (row j at p + j * rs): whether to
 * prefetch (pf_), then the lines of the row at q ROW_RUN_PF_AHEAD on. */
#define ROW_RUN_PF_DECL(T)                                                  \
    const int64_t rb_ = n * (int64_t)sizeof(T);                             \
    const bool pf_ = rb_ <= ROW_RUN_PF_ROW && rs == rb_ &&                  \
                     reduce_footprint > ROW_RUN_PF_BYTES
#define ROW_RUN_PF_LINES(q)                                                 \
    for (int64_t b_ = 0; pf_ && b_ < rb_; b_ += 64) {                       \
        ROW_RUN_PREFETCH((uintptr_t)(q) + ROW_RUN_PF_AHEAD + b_);           \
    }
#define DEF_ROW_RUN(NAME, T, ROW, CALL)                                     \
    static TL_ALWAYS_INLINE void NAME##_run_body(const char *p, int64_t m,  \
                                                 int64_t rs, int64_t n,      \
                                                 tl_racc *res)               \
    {                                                                       \
        ROW_RUN_PF_DECL(T);                                                 \
        for (int64_t j = 0; j < m; j++) {                                   \
            const T *q = (const T *)(p + j * rs);                           \
            tl_racc *r = &res[j];                                           \
            ROW_RUN_PF_LINES(q);                                            \
            CALL;                                                           \
        }                                                                   \
    }                                                                       \
    DISPATCHED3(NAME##_run, (const char *p, int64_t m, int64_t rs,           \
                            int64_t n, tl_racc *res),                       \
               (p, m, rs, n, res))                                          \
    static void NAME##_rows(const char *p, int64_t m, int64_t rs, int64_t n, \
                            int64_t s, int64_t idx0, const tl_racc *aux,     \
                            tl_racc *res)                                    \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            for (int64_t j = 0; j < m; j++) {                               \
                ROW(p + j * rs, n, s, idx0, aux ? aux + j : NULL, &res[j]);  \
            }                                                               \
            return;                                                         \
        }                                                                   \
        NAME##_run(p, m, rs, n, res);                                       \
    }

DEF_ROW_RUN(sum_f32, float, sum_row_f32, lanes1_f32_body(q, n, &r->v.d[0]))
DEF_ROW_RUN(sum_f64, double, sum_row_f64,
            lanes1_f64_body(q, n, &r->v.d[0], &r->v.d[1]))
/* Integer sums take runs of rows too: sum(dim=1) of (16384, 16) int32 in
 * cache had been 1.12x PyTorch's time, a call to the dispatcher a row. */
#define DEF_ISUM_RUN(N, T)                                                  \
    DEF_ROW_RUN(sum_##N, T, sum_row_##N,                                    \
                sum_lanes_##N##_body(q, n, &r->v.u[0]))
DEF_ISUM_RUN(b, uint8_t)
DEF_ISUM_RUN(u8, uint8_t)
DEF_ISUM_RUN(i8, int8_t)
DEF_ISUM_RUN(i16, int16_t)
DEF_ISUM_RUN(u16, uint16_t)
DEF_ISUM_RUN(i32, int32_t)
DEF_ISUM_RUN(u32, uint32_t)
DEF_ISUM_RUN(i64, int64_t)
DEF_ISUM_RUN(u64, uint64_t)
#undef DEF_ISUM_RUN

/* ---- sums: complex ------------------------------------------------------- */

static void sum_row_c64(const char *p, int64_t n, int64_t s, int64_t idx0,
                        const tl_racc *aux, tl_racc *res)
{
    if (s == (int64_t)sizeof(tl_c64)) {
        double o[2];
        lanes_f32((const float *)p, 2 * n, o);
        res->v.d[0] = o[0];
        res->v.d[1] = o[1];
        return;
    }
    double re = 0, im = 0;
    for (int64_t i = 0; i < n; i++) {
        const float *z = (const float *)(p + i * s);
        re += (double)z[0];
        im += (double)z[1];
    }
    res->v.d[0] = re;
    res->v.d[1] = im;
}

static void sum_row_c128(const char *p, int64_t n, int64_t s, int64_t idx0,
                         const tl_racc *aux, tl_racc *res)
{
    if (s == (int64_t)sizeof(tl_c128)) {
        double hi[2], lo[2];
        lanes_f64((const double *)p, 2 * n, hi, lo);
        res->v.d[0] = hi[0];
        res->v.d[2] = lo[0];
        res->v.d[1] = hi[1];
        res->v.d[3] = lo[1];
        return;
    }
    strided_f64(p, n, s, &res->v.d[0], &res->v.d[2]);
    strided_f64(p + sizeof(double), n, s, &res->v.d[1], &res->v.d[3]);
}

/* Complex cols: the real and imaginary parts as two float cols passes. */
static void sum_cols_c64(const char *base, int64_t n, int64_t cs,
                         const tl_rspace *rs, int64_t rb, int64_t re,
                         const tl_racc *aux, tl_racc *res)
{
    double acc[TILE];
    double tmp[SUM_MAXDEPTH * TILE];
    for (int part = 0; part < 2; part++) {
        for (int64_t j = 0; j < n; j++) {
            acc[j] = 0;
        }
        /* One part of each complex64: strided float columns (cs is at
         * least 8, or 0). */
        fcols_f32g(base + part * (int64_t)sizeof(float), n, cs, rs, rb, re,
                  acc, tmp, 0);
        for (int64_t j = 0; j < n; j++) {
            res[j].v.d[part] = acc[j];
        }
    }
}

static void sum_cols_c128(const char *base, int64_t n, int64_t cs,
                          const tl_rspace *rs, int64_t rb, int64_t re,
                          const tl_racc *aux, tl_racc *res)
{
    double acc[TILE];
    double tmp[SUM_MAXDEPTH * TILE];
    for (int part = 0; part < 2; part++) {
        for (int64_t j = 0; j < n; j++) {
            acc[j] = 0;
        }
        fcols_f64(base + part * (int64_t)sizeof(double), n, cs, rs, rb, re,
                  acc, tmp, 0);
        for (int64_t j = 0; j < n; j++) {
            res[j].v.d[part] = acc[j];
            res[j].v.d[part + 2] = 0;
        }
    }
}

/* ---- products ------------------------------------------------------------ */

#define DEF_IPROD(N, T, CVU)                                                \
    static void prod_row_##N(const char *p, int64_t n, int64_t s,            \
                             int64_t idx0, const tl_racc *aux, tl_racc *res) \
    {                                                                       \
        uint64_t acc[8] = {1, 1, 1, 1, 1, 1, 1, 1};                         \
        for (int64_t i = 0; i < n; i++) {                                   \
            acc[i & 7] *= CVU(*(const T *)(p + i * s));                     \
        }                                                                   \
        uint64_t t = 1;                                                     \
        for (int k = 0; k < 8; k++) {                                       \
            t *= acc[k];                                                    \
        }                                                                   \
        res->v.u[0] = t;                                                    \
    }                                                                       \
    static void prod_cols_##N(const char *base, int64_t n, int64_t cs,       \
                              const tl_rspace *rs, int64_t rb, int64_t re,   \
                              const tl_racc *aux, tl_racc *res)              \
    {                                                                       \
        uint64_t acc[TILE];                                                 \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 1;                                                     \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            const char *p = base + off;                                     \
            for (int64_t j = 0; j < n; j++) {                               \
                acc[j] *= CVU(*(const T *)(p + j * cs));                    \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.u[0] = acc[j];                                         \
        }                                                                   \
    }

/* Note [Integer products in vector lanes]
 * An integer product is the wrapping uint64 product of the elements
 * widened: exact modulo 2^64, so any order of the multiplies and any lane
 * count give the same bits.  Contiguous rows multiply into 16 lanes and
 * contiguous cols into the tile's accumulators, loops gcc vectorises:
 * with AVX-512 (DQ: vpmullq) eight 64-bit products per instruction, with
 * AVX2 the 32-bit partial products; the strided paths above keep the
 * scalar loop.  One thread, int32 of 2^22 (the 1-d whole, rows of 2048,
 * dim 0 of 2048^2) took 2.3-2.4 ms, 1.8 over dim 0, against 0.3-0.6 for
 * the plain C bound (benchmarks/bounds/kernels.c) -- and 1.75 for NumPy
 * over dim 0. */
#define DEF_IPRODV(N, T, CVU)                                               \
    DEF_IPROD(N, T, CVU)                                                    \
    static TL_ALWAYS_INLINE void prod_vrow_##N##_body(const T *restrict q,  \
                                                      int64_t n,            \
                                                      uint64_t *out)        \
    {                                                                       \
        uint64_t acc[16];                                                   \
        for (int k = 0; k < 16; k++) {                                      \
            acc[k] = 1;                                                     \
        }                                                                   \
        int64_t i = 0;                                                      \
        for (; i + 16 <= n; i += 16) {                                      \
            for (int k = 0; k < 16; k++) {                                  \
                acc[k] *= CVU(q[i + k]);                                    \
            }                                                               \
        }                                                                   \
        uint64_t t = 1;                                                     \
        for (int k = 0; k < 16; k++) {                                      \
            t *= acc[k];                                                    \
        }                                                                   \
        for (; i < n; i++) {                                                \
            t *= CVU(q[i]);                                                 \
        }                                                                   \
        *out = t;                                                           \
    }                                                                       \
    DISPATCHED3(prod_vrow_##N, (const T *restrict q, int64_t n,             \
                                uint64_t *out), (q, n, out))                \
    static TL_ALWAYS_INLINE void prod_vcol_##N##_body(                       \
        uint64_t *restrict acc, const T *restrict q, int64_t n)             \
    {                                                                       \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] *= CVU(q[j]);                                            \
        }                                                                   \
    }                                                                       \
    DISPATCHED3(prod_vcol_##N, (uint64_t *restrict acc, const T *restrict q, \
                                int64_t n), (acc, q, n))                    \
    static void prod_irow_##N(const char *p, int64_t n, int64_t s,           \
                              int64_t idx0, const tl_racc *aux,              \
                              tl_racc *res)                                  \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            prod_row_##N(p, n, s, idx0, aux, res);                          \
            return;                                                         \
        }                                                                   \
        prod_vrow_##N((const T *)p, n, &res->v.u[0]);                       \
    }                                                                       \
    static void prod_icols_##N(const char *base, int64_t n, int64_t cs,      \
                               const tl_rspace *rs, int64_t rb, int64_t re,  \
                               const tl_racc *aux, tl_racc *res)             \
    {                                                                       \
        if (cs != (int64_t)sizeof(T)) {                                     \
            prod_cols_##N(base, n, cs, rs, rb, re, aux, res);               \
            return;                                                         \
        }                                                                   \
        uint64_t acc[TILE];                                                 \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 1;                                                     \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            prod_vcol_##N(acc, (const T *)(base + off), n);                 \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.u[0] = acc[j];                                         \
        }                                                                   \
    }

DEF_IPRODV(b, uint8_t, U64B)
DEF_IPRODV(u8, uint8_t, U64U)
DEF_IPRODV(i8, int8_t, U64S)
DEF_IPRODV(i16, int16_t, U64S)
DEF_IPRODV(u16, uint16_t, U64U)
DEF_IPRODV(i32, int32_t, U64S)
DEF_IPRODV(u32, uint32_t, U64U)
DEF_IPRODV(i64, int64_t, U64S)
DEF_IPRODV(u64, uint64_t, U64U)

#define DEF_FPROD(N, T, LD)                                                 \
    DEF_COLS8(fprod8_##N, double, T, FCV_(LD), *, *=)                       \
    static void prod_row_##N(const char *p, int64_t n, int64_t s,            \
                             int64_t idx0, const tl_racc *aux, tl_racc *res) \
    {                                                                       \
        double acc = 1;                                                     \
        for (int64_t i = 0; i < n; i++) {                                   \
            acc *= (double)LD(*(const T *)(p + i * s));                     \
        }                                                                   \
        res->v.d[0] = acc;                                                  \
    }                                                                       \
    static void prod_cols_##N(const char *base, int64_t n, int64_t cs,       \
                              const tl_rspace *rs, int64_t rb, int64_t re,   \
                              const tl_racc *aux, tl_racc *res)              \
    {                                                                       \
        double acc[TILE];                                                   \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 1;                                                     \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        int64_t r = rb;                                                     \
        COLS8_RUN(fprod8_##N, T, acc, base, rs, idx, off, r, re, cs, n);    \
        for (; r < re; r++) {                                               \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) {                                 \
                const T *q = (const T *)p;                                  \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] *= (double)LD(q[j]);                             \
                }                                                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] *= (double)LD(*(const T *)(p + j * cs));         \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = acc[j];                                         \
        }                                                                   \
    }

DEF_FPROD(f16, uint16_t, LDH)
DEF_FPROD(bf16, uint16_t, LDBF)
DEF_FPROD(f32, float, LDID)

/* float32 and float64 products over close contiguous rows: the strips
 * (Note [Float32 cols in register strips]); otherwise the 8-row blocks.
 * prod_cols_##N##s, for the kernel table. */
#define DEF_PROD_COLS_S(N, T, STRIPS)                                       \
    static void prod_cols_##N##s(const char *base, int64_t n, int64_t cs,    \
                                 const tl_rspace *rs, int64_t rb,            \
                                 int64_t re, const tl_racc *aux,             \
                                 tl_racc *res)                               \
    {                                                                       \
        if (cs == (int64_t)sizeof(T) && fstrip_rows(rs)) {                  \
            STRIPS(base, n, rs, rb, re, res);                               \
        } else {                                                            \
            prod_cols_##N(base, n, cs, rs, rb, re, aux, res);               \
        }                                                                   \
    }
DEF_PROD_COLS_S(f32, float, fprod_strips)
DEF_FPROD(f64, double, LDID)
DEF_PROD_COLS_S(f64, double, dprod_strips)

/* Contiguous float32 / float64 products: 16 float64 lanes (four 4-wide
 * vectors) instead of one serial chain; the lanes multiply together
 * at the end.  The order of the products differs from a serial loop only
 * in the rounding of float64 partials (and can avoid an intermediate
 * overflow the serial order would hit; the result of any order is a valid
 * product).  float32 takes 32 lanes (eight chains): with four, each
 * chain's multiply waits on the last (3-4 cycles), about 5 floats a
 * cycle, short of what two threads read from L3 (float32 prod of 2^22 on
 * two threads: 185-191 us against PyTorch's 119-136).  The whole vectors
 * of the last n % 32 (n % 16) go into the lane vectors too, one each,
 * where they joined the serial chain of the last 3 or fewer: prod(dim=1)
 * of (17476, 60), one thread, Zen 4: float32 575 -> 265 us (PyTorch
 * 318), float64 354 -> 201 (PyTorch 129); of (4194, 250) float32 201 ->
 * 115 us (PyTorch 104). */
static TL_ALWAYS_INLINE void prod_lanes_f32_body(const float *q, int64_t n,
                                                 double *out)
{
    typedef float v4f __attribute__((vector_size(16)));
    typedef double v4d __attribute__((vector_size(32)));
    v4d a0 = {1, 1, 1, 1}, a1 = a0, a2 = a0, a3 = a0;
    v4d a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        v4f x0, x1, x2, x3, x4, x5, x6, x7;
        PREFETCH_AHEAD(q + i);
        PREFETCH_AHEAD(q + i + 16);
        memcpy(&x0, q + i, sizeof x0);
        memcpy(&x1, q + i + 4, sizeof x1);
        memcpy(&x2, q + i + 8, sizeof x2);
        memcpy(&x3, q + i + 12, sizeof x3);
        memcpy(&x4, q + i + 16, sizeof x4);
        memcpy(&x5, q + i + 20, sizeof x5);
        memcpy(&x6, q + i + 24, sizeof x6);
        memcpy(&x7, q + i + 28, sizeof x7);
        a0 *= CVT4D(x0);
        a1 *= CVT4D(x1);
        a2 *= CVT4D(x2);
        a3 *= CVT4D(x3);
        a4 *= CVT4D(x4);
        a5 *= CVT4D(x5);
        a6 *= CVT4D(x6);
        a7 *= CVT4D(x7);
    }
    /* The whole vectors of the last n % 32, one a lane vector, each
     * loaded in its case: a loop of memcpy into an array of them was a
     * memcpy call and a stalled store forward a row (float32 rows of 16:
     * 17.6 ns a row). */
    const int64_t v = (n - i) / 4;
#define MUL4F(a, k)                                                         \
    do {                                                                    \
        v4f x_;                                                             \
        memcpy(&x_, q + i + 4 * (k), sizeof x_);                            \
        (a) *= CVT4D(x_);                                                   \
    } while (0)
    switch (v) {
    case 7: MUL4F(a6, 6); __attribute__((fallthrough));
    case 6: MUL4F(a5, 5); __attribute__((fallthrough));
    case 5: MUL4F(a4, 4); __attribute__((fallthrough));
    case 4: MUL4F(a3, 3); __attribute__((fallthrough));
    case 3: MUL4F(a2, 2); __attribute__((fallthrough));
    case 2: MUL4F(a1, 1); __attribute__((fallthrough));
    case 1: MUL4F(a0, 0); __attribute__((fallthrough));
    default: break;
    }
#undef MUL4F
    i += 4 * v;
    a0 = ((a0 * a1) * (a2 * a3)) * ((a4 * a5) * (a6 * a7));
    double r = (a0[0] * a0[1]) * (a0[2] * a0[3]);
    for (; i < n; i++) {
        r *= (double)q[i];
    }
    *out = r;
}

DISPATCHED(prod_lanes_f32, (const float *q, int64_t n, double *out),
           (q, n, out))

static TL_ALWAYS_INLINE void prod_lanes_f64_body(const double *q, int64_t n,
                                                 double *out)
{
    typedef double v4d __attribute__((vector_size(32)));
    v4d a0 = {1, 1, 1, 1}, a1 = a0, a2 = a0, a3 = a0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        v4d x0, x1, x2, x3;
        PREFETCH_AHEAD(q + i);
        PREFETCH_AHEAD(q + i + 8);
        memcpy(&x0, q + i, sizeof x0);
        memcpy(&x1, q + i + 4, sizeof x1);
        memcpy(&x2, q + i + 8, sizeof x2);
        memcpy(&x3, q + i + 12, sizeof x3);
        a0 *= x0;
        a1 *= x1;
        a2 *= x2;
        a3 *= x3;
    }
    /* The whole vectors of the last n % 16, one a lane vector. */
    if (n - i >= 4) {
        v4d x0;
        memcpy(&x0, q + i, sizeof x0);
        a0 *= x0;
        i += 4;
    }
    if (n - i >= 4) {
        v4d x1;
        memcpy(&x1, q + i, sizeof x1);
        a1 *= x1;
        i += 4;
    }
    if (n - i >= 4) {
        v4d x2;
        memcpy(&x2, q + i, sizeof x2);
        a2 *= x2;
        i += 4;
    }
    a0 = (a0 * a1) * (a2 * a3);
    double r = (a0[0] * a0[1]) * (a0[2] * a0[3]);
    for (; i < n; i++) {
        r *= q[i];
    }
    *out = r;
}

DISPATCHED(prod_lanes_f64, (const double *q, int64_t n, double *out),
           (q, n, out))

static void prod_frow_f32(const char *p, int64_t n, int64_t s, int64_t idx0,
                          const tl_racc *aux, tl_racc *res)
{
    if (s != (int64_t)sizeof(float)) {
        prod_row_f32(p, n, s, idx0, aux, res);
        return;
    }
    prod_lanes_f32((const float *)p, n, &res->v.d[0]);
}

static void prod_frow_f64(const char *p, int64_t n, int64_t s, int64_t idx0,
                          const tl_racc *aux, tl_racc *res)
{
    if (s != (int64_t)sizeof(double)) {
        prod_row_f64(p, n, s, idx0, aux, res);
        return;
    }
    prod_lanes_f64((const double *)p, n, &res->v.d[0]);
}
DEF_ROW_RUN(prod_f32, float, prod_frow_f32,
            prod_lanes_f32_body(q, n, &r->v.d[0]))
DEF_ROW_RUN(prod_f64, double, prod_frow_f64,
            prod_lanes_f64_body(q, n, &r->v.d[0]))
#define prod_frow_f16 prod_row_f16
#define prod_frow_bf16 prod_row_bf16

/* Complex products in complex128, in order (C's complex multiplication,
 * Annex G infinities included). */
#define DEF_CPROD(N, RT)                                                    \
    static void prod_row_##N(const char *p, int64_t n, int64_t s,            \
                             int64_t idx0, const tl_racc *aux, tl_racc *res) \
    {                                                                       \
        tl_c128 acc = 1;                                                    \
        for (int64_t i = 0; i < n; i++) {                                   \
            const RT *z = (const RT *)(p + i * s);                          \
            acc *= CMPLX((double)z[0], (double)z[1]);                         \
        }                                                                   \
        res->v.d[0] = creal(acc);                                           \
        res->v.d[1] = cimag(acc);                                           \
    }                                                                       \
    static void prod_cols_##N(const char *base, int64_t n, int64_t cs,       \
                              const tl_rspace *rs, int64_t rb, int64_t re,   \
                              const tl_racc *aux, tl_racc *res)              \
    {                                                                       \
        tl_c128 acc[TILE];                                                  \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = 1;                                                     \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            const char *p = base + off;                                     \
            for (int64_t j = 0; j < n; j++) {                               \
                const RT *z = (const RT *)(p + j * cs);                     \
                acc[j] *= CMPLX((double)z[0], (double)z[1]);                  \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = creal(acc[j]);                                  \
            res[j].v.d[1] = cimag(acc[j]);                                  \
        }                                                                   \
    }

DEF_CPROD(c64, float)
DEF_CPROD(c128, double)

/* ---- max / min ----------------------------------------------------------- */

/* The record's value: floats in d[0] (exact), signed integers and bool in
 * s[0], unsigned integers in u[0].  ISNAN_F / ISNAN_I: NaN test of the
 * value type (always false for integers). */
#define ISNAN_F(x) ((x) != (x))
#define ISNAN_I(x) 0
/* HAS_NAN_##ISNAN: whether the value type has NaNs, a constant, so that
 * the integer kernels hold no NaN search (gcc drops an `if (0 && x)`
 * block even at -O0, where the gcov build would count its branches). */
#define HAS_NAN_ISNAN_F 1
#define HAS_NAN_ISNAN_I 0
/* CONTIG_ROWS_##N: whether the scalar row kernels of max/min and
 * argmax/argmin (DEF_MINMAX, DEF_ARG) see contiguous rows.  Not for the
 * dtypes with vector rows: their frow and rows kernels (DEF_VROWS) take
 * the contiguous rows and pass only strided ones on, so the scalar
 * kernels keep only their strided loop. */
#define CONTIG_ROWS_b 1
#define CONTIG_ROWS_f16 1
#define CONTIG_ROWS_bf16 1
#define CONTIG_ROWS_u8 0
#define CONTIG_ROWS_i8 0
#define CONTIG_ROWS_i16 0
#define CONTIG_ROWS_u16 0
#define CONTIG_ROWS_i32 0
#define CONTIG_ROWS_u32 0
#define CONTIG_ROWS_i64 0
#define CONTIG_ROWS_u64 0
#define CONTIG_ROWS_f32 0
#define CONTIG_ROWS_f64 0
#define PUT_F(r, x) ((r)->v.d[0] = (double)(x))
#define PUT_S(r, x) ((r)->v.s[0] = (int64_t)(x))
#define PUT_U(r, x) ((r)->v.u[0] = (uint64_t)(x))
#define GET_F(r) ((r)->v.d[0])
#define GET_S(r) ((r)->v.s[0])
#define GET_U(r) ((r)->v.u[0])

/* NaN-propagating max (CMP >) or min (CMP <).  Contiguous runs (of the
 * dtypes with CONTIG_ROWS_N) take 8 lanes with a separate NaN flag,
 * which vectorises. */
#define DEF_MINMAX(NAME, CMP, N, T, V, LD, ISNAN, PUT, GET)                 \
    static void NAME##_row_##N(const char *p, int64_t n, int64_t s,          \
                               int64_t idx0, const tl_racc *aux,             \
                               tl_racc *res)                                 \
    {                                                                       \
        const V first = LD(*(const T *)p);                                  \
        V m[8] = {first, first, first, first, first, first, first, first};  \
        int nan = 0;                                                        \
        int64_t i = 0;                                                      \
        if (CONTIG_ROWS_##N && s == (int64_t)sizeof(T)) {                   \
            const T *q = (const T *)p;                                      \
            for (; i + 8 <= n; i += 8) {                                    \
                for (int k = 0; k < 8; k++) {                               \
                    const V x = LD(q[i + k]);                               \
                    m[k] = x CMP m[k] ? x : m[k];                           \
                    nan |= ISNAN(x);                                        \
                }                                                           \
            }                                                               \
        }                                                                   \
        for (; i < n; i++) {                                                \
            const V x = LD(*(const T *)(p + i * s));                        \
            m[0] = x CMP m[0] ? x : m[0];                                   \
            nan |= ISNAN(x);                                                \
        }                                                                   \
        V r = m[0];                                                         \
        for (int k = 1; k < 8; k++) {                                       \
            r = m[k] CMP r ? m[k] : r;                                      \
        }                                                                   \
        if (HAS_NAN_##ISNAN && nan) {                                       \
            for (i = 0; i < n; i++) {                                       \
                const V x = LD(*(const T *)(p + i * s));                    \
                if (ISNAN(x)) {                                             \
                    r = x;                                                  \
                    break;                                                  \
                }                                                           \
            }                                                               \
        }                                                                   \
        PUT(res, r);                                                        \
    }                                                                       \
    static void NAME##_cols_##N(const char *base, int64_t n, int64_t cs,     \
                                const tl_rspace *rs, int64_t rb, int64_t re, \
                                const tl_racc *aux, tl_racc *res)            \
    {                                                                       \
        V m[TILE];                                                          \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t j = 0; j < n; j++) {                                   \
            m[j] = LD(*(const T *)(base + off + j * cs));                   \
        }                                                                   \
        for (int64_t r = rb; r < re; r++) {                                 \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) {                                 \
                const T *q = (const T *)p;                                  \
                for (int64_t j = 0; j < n; j++) {                           \
                    const V x = LD(q[j]);                                   \
                    m[j] = ((x CMP m[j]) | ISNAN(x)) ? x : m[j];            \
                }                                                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    const V x = LD(*(const T *)(p + j * cs));               \
                    m[j] = ((x CMP m[j]) | ISNAN(x)) ? x : m[j];            \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            PUT(&res[j], m[j]);                                             \
        }                                                                   \
    }                                                                       \
    static void NAME##_comb_##N(tl_racc *a, const tl_racc *b)                \
    {                                                                       \
        if (ISNAN(GET(a))) {                                                \
            return;                                                         \
        }                                                                   \
        if (ISNAN(GET(b)) || GET(b) CMP GET(a)) {                           \
            *a = *b;                                                        \
        }                                                                   \
    }

/* In the cols loop a NaN replaces m[j] and then stays: x CMP NaN is false
 * and ISNAN(x) only for a later NaN, which is NaN too. */

#define DEF_MINMAX_BOTH(N, T, V, LD, ISNAN, PUT, GET)                       \
    DEF_MINMAX(max, >, N, T, V, LD, ISNAN, PUT, GET)                        \
    DEF_MINMAX(min, <, N, T, V, LD, ISNAN, PUT, GET)

DEF_MINMAX_BOTH(b, uint8_t, uint8_t, LDB, ISNAN_I, PUT_S, GET_S)
DEF_MINMAX_BOTH(u8, uint8_t, uint8_t, LDID, ISNAN_I, PUT_U, GET_U)
DEF_MINMAX_BOTH(i8, int8_t, int8_t, LDID, ISNAN_I, PUT_S, GET_S)
DEF_MINMAX_BOTH(i16, int16_t, int16_t, LDID, ISNAN_I, PUT_S, GET_S)
DEF_MINMAX_BOTH(u16, uint16_t, uint16_t, LDID, ISNAN_I, PUT_U, GET_U)
DEF_MINMAX_BOTH(i32, int32_t, int32_t, LDID, ISNAN_I, PUT_S, GET_S)
DEF_MINMAX_BOTH(u32, uint32_t, uint32_t, LDID, ISNAN_I, PUT_U, GET_U)
DEF_MINMAX_BOTH(i64, int64_t, int64_t, LDID, ISNAN_I, PUT_S, GET_S)
DEF_MINMAX_BOTH(u64, uint64_t, uint64_t, LDID, ISNAN_I, PUT_U, GET_U)
DEF_MINMAX_BOTH(f16, uint16_t, float, LDH, ISNAN_F, PUT_F, GET_F)
DEF_MINMAX_BOTH(bf16, uint16_t, float, LDBF, ISNAN_F, PUT_F, GET_F)
DEF_MINMAX_BOTH(f32, float, float, LDID, ISNAN_F, PUT_F, GET_F)
DEF_MINMAX_BOTH(f64, double, double, LDID, ISNAN_F, PUT_F, GET_F)

/* ---- argmax / argmin ----------------------------------------------------- */

/* BETTER(x, best): x replaces best.  Floats: never once best is NaN; a NaN
 * x always; otherwise strictly greater (less).  Ties keep the first. */
#define BETTER_MAX_F(x, b) (!ISNAN_F(b) && !((x) <= (b)))
#define BETTER_MIN_F(x, b) (!ISNAN_F(b) && !((x) >= (b)))
#define BETTER_MAX_I(x, b) ((x) > (b))
#define BETTER_MIN_I(x, b) ((x) < (b))

/* Note [Arg cols steps]
 * argmax/argmin (and max/min with indices) over contiguous columns take
 * each row as one branch-free step over the tile: where x is better than
 * the column's best (the same BETTER rule: strictly, a NaN once and then
 * kept) the best takes x and the column's row counter takes the row, as
 * selects that vectorise (AVX2 clone and baseline).  The row counter is
 * the row's offset in the call, a uint32 (a call's rows are at most
 * TL_REDUCE_RCHUNK).  Over the middle dim of (128, 256, 128), one
 * thread, int32 argmax took 3.9-4.9 ms with the branch per element these
 * steps replace and takes 1.28-1.41 ms (float32 5.3-8.7 -> 1.7-2.3 ms).
 * Same rule, same rows in the same order: the same result. */
_Static_assert(TL_REDUCE_RCHUNK <= UINT32_MAX,
               "arg cols row counters are uint32 (Note [Arg cols steps])");

#define DEF_ARG(NAME, BETTER, N, T, V, LD, PUT, GET)                        \
    static TL_ALWAYS_INLINE void NAME##_cstep_##N##_body(                    \
        V *restrict best, uint32_t *restrict bk, const T *restrict q,        \
        int64_t n, uint32_t rr)                                              \
    {                                                                       \
        for (int64_t j = 0; j < n; j++) {                                   \
            const V x = LD(q[j]);                                           \
            const V b = best[j];                                            \
            const bool c = BETTER(x, b);                                    \
            best[j] = c ? x : b;                                            \
            bk[j] = c ? rr : bk[j];                                         \
        }                                                                   \
    }                                                                       \
    DISPATCHED(NAME##_cstep_##N,                                            \
               (V *restrict best, uint32_t *restrict bk,                    \
                const T *restrict q, int64_t n, uint32_t rr),               \
               (best, bk, q, n, rr))                                        \
    static void NAME##_row_##N(const char *p, int64_t n, int64_t s,          \
                               int64_t idx0, const tl_racc *aux,             \
                               tl_racc *res)                                 \
    {                                                                       \
        V best = LD(*(const T *)p);                                         \
        int64_t bi = 0;                                                     \
        if (CONTIG_ROWS_##N && s == (int64_t)sizeof(T)) {                   \
            const T *q = (const T *)p;                                      \
            for (int64_t i = 1; i < n; i++) {                               \
                const V x = LD(q[i]);                                       \
                if (BETTER(x, best)) {                                      \
                    best = x;                                               \
                    bi = i;                                                 \
                }                                                           \
            }                                                               \
        } else {                                                            \
            for (int64_t i = 1; i < n; i++) {                               \
                const V x = LD(*(const T *)(p + i * s));                    \
                if (BETTER(x, best)) {                                      \
                    best = x;                                               \
                    bi = i;                                                 \
                }                                                           \
            }                                                               \
        }                                                                   \
        PUT(res, best);                                                     \
        res->idx = idx0 + bi;                                               \
    }                                                                       \
    static void NAME##_cols_##N(const char *base, int64_t n, int64_t cs,     \
                                const tl_rspace *rs, int64_t rb, int64_t re, \
                                const tl_racc *aux, tl_racc *res)            \
    {                                                                       \
        V best[TILE];                                                       \
        int64_t bi[TILE];                                                   \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        if (cs == (int64_t)sizeof(T)) {                                     \
            /* Note [Arg cols steps] */                                     \
            uint32_t bk[TILE];                                              \
            const T *q0 = (const T *)(base + off);                          \
            for (int64_t j = 0; j < n; j++) {                               \
                best[j] = LD(q0[j]);                                        \
                bk[j] = 0;                                                  \
            }                                                               \
            for (int64_t r = rb + 1; r < re; r++) {                         \
                off = tl_rspace_next(rs, idx, off);                         \
                NAME##_cstep_##N(best, bk, (const T *)(base + off), n,      \
                                 (uint32_t)(r - rb));                       \
            }                                                               \
            for (int64_t j = 0; j < n; j++) {                               \
                PUT(&res[j], best[j]);                                      \
                res[j].idx = rb + (int64_t)bk[j];                           \
            }                                                               \
            return;                                                         \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            best[j] = LD(*(const T *)(base + off + j * cs));                \
            bi[j] = rb;                                                     \
        }                                                                   \
        for (int64_t r = rb + 1; r < re; r++) {                             \
            off = tl_rspace_next(rs, idx, off);                             \
            const char *p = base + off;                                     \
            for (int64_t j = 0; j < n; j++) {                               \
                const V x = LD(*(const T *)(p + j * cs));                   \
                if (BETTER(x, best[j])) {                                   \
                    best[j] = x;                                            \
                    bi[j] = r;                                              \
                }                                                           \
            }                                                               \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            PUT(&res[j], best[j]);                                          \
            res[j].idx = bi[j];                                             \
        }                                                                   \
    }                                                                       \
    static void NAME##_comb_##N(tl_racc *a, const tl_racc *b)                \
    {                                                                       \
        if (BETTER(GET(b), GET(a))) {                                       \
            *a = *b;                                                        \
        }                                                                   \
    }

#define DEF_ARG_I(N, T, V, LD, PUT, GET)                                    \
    DEF_ARG(argmax, BETTER_MAX_I, N, T, V, LD, PUT, GET)                    \
    DEF_ARG(argmin, BETTER_MIN_I, N, T, V, LD, PUT, GET)
#define DEF_ARG_F(N, T, LD)                                                 \
    DEF_ARG(argmax, BETTER_MAX_F, N, T, double, LD, PUT_F, GET_F)           \
    DEF_ARG(argmin, BETTER_MIN_F, N, T, double, LD, PUT_F, GET_F)

DEF_ARG_I(b, uint8_t, uint8_t, LDB, PUT_S, GET_S)
DEF_ARG_I(u8, uint8_t, uint8_t, LDID, PUT_U, GET_U)
DEF_ARG_I(i8, int8_t, int8_t, LDID, PUT_S, GET_S)
DEF_ARG_I(i16, int16_t, int16_t, LDID, PUT_S, GET_S)
DEF_ARG_I(u16, uint16_t, uint16_t, LDID, PUT_U, GET_U)
DEF_ARG_I(i32, int32_t, int32_t, LDID, PUT_S, GET_S)
DEF_ARG_I(u32, uint32_t, uint32_t, LDID, PUT_U, GET_U)
DEF_ARG_I(i64, int64_t, int64_t, LDID, PUT_S, GET_S)
DEF_ARG_I(u64, uint64_t, uint64_t, LDID, PUT_U, GET_U)
DEF_ARG_F(f16, uint16_t, LDH)
DEF_ARG_F(bf16, uint16_t, LDBF)
DEF_ARG_F(f32, float, LDID)
DEF_ARG_F(f64, double, LDID)

/* ---- max / min / argmax / argmin: vector runs ---------------------------- */

/* Note [Vector extrema]
 * A contiguous run of a non-half type goes through explicit 32-byte GCC
 * vectors (two xmm on the SSE2 baseline, one ymm in the AVX2 clone): four
 * accumulators take x where x CMP m (a compare and a bit blend, no branch)
 * and a fifth ORs a NaN mask (x != x), one check per run instead of a
 * branch per element.  Only when the mask is set does a second scan find
 * the first NaN, which is the result as before (max/min propagate NaN).
 * argmax/argmin take the extreme value from that pass (per block of
 * ARG_BLOCK) and then find the first index holding it (or the first NaN)
 * in the first block holding it, scanning groups of 64 with a
 * vectorisable equality OR: the same index the one-pass rule "strictly
 * better replaces, ties keep the first" gives, since x == r also holds for
 * a zero of the other sign.  The lane order does not change a value: max
 * and min are exact.  A run of 4L elements or more that does not end on a
 * step takes a last step over its last 4L elements, overlapping the one
 * before, where the rest went one element at a time in a chain of
 * compare-and-selects (max and min are idempotent, so an element seen
 * twice changes nothing but, among equal zeros, which one a lane holds;
 * every clone has the same lanes and steps). */
#define VBYTES 32

/* Inside a loop over i of the vector bodies below: loads x0..x3, four
 * vectors of VB bytes from P, and keeps in m0..m3 the lanes where
 * x CMP m (c0..c3 the masks; a compare and a bit blend, no branch). */
#define LOAD4_KEEP_BETTER(P, CMP, VB)                                        \
    vt x0, x1, x2, x3;                                                      \
    memcpy(&x0, (P), VB);                                                   \
    memcpy(&x1, (P) + L, VB);                                               \
    memcpy(&x2, (P) + 2 * L, VB);                                           \
    memcpy(&x3, (P) + 3 * L, VB);                                           \
    KEEP4_BETTER(CMP)
/* LOAD4_KEEP_BETTER on x0..x3 already loaded. */
#define KEEP4_BETTER(CMP)                                                   \
    const vi c0 = x0 CMP m0, c1 = x1 CMP m1;                                \
    const vi c2 = x2 CMP m2, c3 = x3 CMP m3;                                \
    m0 = (vt)(((vi)x0 & c0) | ((vi)m0 & ~c0));                              \
    m1 = (vt)(((vi)x1 & c1) | ((vi)m1 & ~c1));                              \
    m2 = (vt)(((vi)x2 & c2) | ((vi)m2 & ~c2));                              \
    m3 = (vt)(((vi)x3 & c3) | ((vi)m3 & ~c3))

#define DEF_VEXT(NAME, CMP, N, T, IT)                                       \
    DEF_VEXT_BODY(NAME, CMP, N, T, IT)                                      \
    DISPATCHED(NAME##_vext_##N, (const T *q, int64_t n, T *out, int *nan),  \
               (q, n, out, nan))
#define DEF_VEXT_BODY(NAME, CMP, N, T, IT)                                  \
    static TL_ALWAYS_INLINE void NAME##_vext_##N##_body(const T *q,          \
                                                         int64_t n, T *out,  \
                                                         int *nan)           \
    {                                                                       \
        typedef T vt __attribute__((vector_size(VBYTES)));                  \
        typedef IT vi __attribute__((vector_size(VBYTES)));                 \
        enum { L = VBYTES / sizeof(T) };                                    \
        vt m0;                                                              \
        for (int k = 0; k < L; k++) {                                       \
            m0[k] = q[0];                                                   \
        }                                                                   \
        vt m1 = m0, m2 = m0, m3 = m0;                                       \
        vi nn = m0 != m0;                                                   \
        int64_t i = 0;                                                      \
        for (; i + 4 * L <= n; i += 4 * L) {                                \
            PREFETCH_AHEAD(q + i);                                          \
            PREFETCH_AHEAD(q + i + 2 * L);                                  \
            LOAD4_KEEP_BETTER(q + i, CMP, VBYTES);                          \
            nn |= (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3);        \
        }                                                                   \
        /* The last 4L, overlapping (Note [Vector extrema]). */            \
        if (i < n && i > 0) {                                               \
            LOAD4_KEEP_BETTER(q + n - 4 * L, CMP, VBYTES);                  \
            nn |= (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3);        \
            i = n;                                                          \
        }                                                                   \
        const vi c1 = m1 CMP m0, c3 = m3 CMP m2;                            \
        m0 = (vt)(((vi)m1 & c1) | ((vi)m0 & ~c1));                          \
        m2 = (vt)(((vi)m3 & c3) | ((vi)m2 & ~c3));                          \
        const vi c2 = m2 CMP m0;                                            \
        m0 = (vt)(((vi)m2 & c2) | ((vi)m0 & ~c2));                          \
        T r = m0[0];                                                        \
        int f = 0;                                                          \
        for (int k = 0; k < L; k++) {                                       \
            r = m0[k] CMP r ? m0[k] : r;                                    \
            f |= nn[k] != 0;                                                \
        }                                                                   \
        for (; i < n; i++) {                                                \
            const T x = q[i];                                               \
            r = x CMP r ? x : r;                                            \
            f |= x != x;                                                    \
        }                                                                   \
        *out = r;                                                           \
        *nan = f;                                                           \
    }

/* Note [Float extrema with vmaxps]
 * In the float32/float64 AVX2 clone, gcc compiled DEF_VEXT's compare and
 * bit blend to a compare and a vpblendvb per vector, plus a register copy
 * and a NaN compare: about 30 instructions per 32 floats, and float32
 * amax of 10^5-10^6 elements (in L2/L3) ran 1.17-1.22 of NumPy's AVX-512
 * loop.  vmaxps(x, m) is by definition x > m ? x : m (m when x is NaN or
 * equal to m, zeros of either sign included), and vminps(x, m) is
 * x < m ? x : m: the same selection, so each step is one instruction and
 * every value -- which zero, which NaN -- is bit-identical to the
 * baseline clone's (tests/test_reduce_vector.py compares them).  One
 * unordered compare covers two loads for the NaN flag.  The folds keep
 * DEF_VEXT's order. */
#ifdef TL_AVX2_DISPATCH
#define VX_T_f32 __m256
#define VX_T_f64 __m256d
#define VX_f32(op) _mm256_##op##_ps
#define VX_f64(op) _mm256_##op##_pd
#define DEF_VEXT_FLOAT(NAME, CMP, N, T, IT)                                 \
    DEF_VEXT_BODY(NAME, CMP, N, T, IT)                                      \
    TL_TARGET_AVX2 static void NAME##_vext_##N##_avx2(const T *q, int64_t n, \
                                                      T *out, int *nan)      \
    {                                                                       \
        enum { L = 32 / sizeof(T) };                                        \
        VX_T_##N m0 = VX_##N(set1)(q[0]);                                   \
        VX_T_##N m1 = m0, m2 = m0, m3 = m0;                                 \
        VX_T_##N nn = VX_##N(cmp)(m0, m0, _CMP_UNORD_Q);                    \
        int64_t i = 0;                                                      \
        /* Steps of 4L, the last over the last 4L, overlapping the one  \
         * before (Note [Vector extrema]). */                              \
        while (n >= 4 * L && i < n) {                                       \
            const T *t_ = i + 4 * L <= n ? q + i : q + n - 4 * L;           \
            PREFETCH_AHEAD(t_);                                             \
            PREFETCH_AHEAD(t_ + 2 * L);                                     \
            const VX_T_##N x0 = VX_##N(loadu)(t_);                          \
            const VX_T_##N x1 = VX_##N(loadu)(t_ + L);                      \
            const VX_T_##N x2 = VX_##N(loadu)(t_ + 2 * L);                  \
            const VX_T_##N x3 = VX_##N(loadu)(t_ + 3 * L);                  \
            m0 = VX_##N(NAME)(x0, m0);                                      \
            m1 = VX_##N(NAME)(x1, m1);                                      \
            m2 = VX_##N(NAME)(x2, m2);                                      \
            m3 = VX_##N(NAME)(x3, m3);                                      \
            nn = VX_##N(or)(nn,                                             \
                            VX_##N(or)(VX_##N(cmp)(x0, x1, _CMP_UNORD_Q),   \
                                       VX_##N(cmp)(x2, x3, _CMP_UNORD_Q))); \
            i = i + 4 * L <= n ? i + 4 * L : n;                             \
        }                                                                   \
        m0 = VX_##N(NAME)(m1, m0);                                          \
        m2 = VX_##N(NAME)(m3, m2);                                          \
        m0 = VX_##N(NAME)(m2, m0);                                          \
        T a[L];                                                             \
        VX_##N(storeu)(a, m0);                                              \
        T r = a[0];                                                         \
        for (int k = 0; k < L; k++) {                                       \
            r = a[k] CMP r ? a[k] : r;                                      \
        }                                                                   \
        int f = VX_##N(movemask)(nn) != 0;                                  \
        for (; i < n; i++) {                                                \
            const T x = q[i];                                               \
            r = x CMP r ? x : r;                                            \
            f |= x != x;                                                    \
        }                                                                   \
        *out = r;                                                           \
        *nan = f;                                                           \
    }                                                                       \
    DISPATCH_TO(NAME##_vext_##N, (const T *q, int64_t n, T *out, int *nan), \
                (q, n, out, nan))
#else
#define DEF_VEXT_FLOAT DEF_VEXT
#endif

/* 32- and 64-bit integers have no NaN to track: four vector accumulators
 * keep the better lanes by a select a lane (VEXT_INT_KEEP), which gcc
 * turns into the ISA's max/min instructions (vpmaxsd and friends on
 * AVX2: one operation per vector, where the float compare-and-blend
 * takes two): int32 argmax of 2^16 in L2 4.7 -> 2.9 us (NumPy 3.5).  A row shorter
 * than 4L takes one vector (steps of L, the last overlapping) and a
 * shorter one goes element by element; the four, then the one, fold in
 * halves: amax(dim=1) of (4096, 16) int32 in cache had been 4.1 ns a row
 * (PyTorch 3.7), four accumulators initialised and folded for a row that
 * fills two vectors and the row then taken element by element, and is
 * 2.2.  The 8- and 16-bit types keep DEF_VEXT: with 64-128 lanes to
 * fold, rows of 256 int8 ran 1.5x slower this way. */
/* m keeps the lanes where x CMP m (vectors of L lanes, inside
 * DEF_VEXT_INT's body): a select a lane, which gcc emits as one vpmaxsd
 * and friends where the ISA has them (a mask compare and a blend would
 * stay two instructions). */
#define VEXT_INT_KEEP(CMP, m, x)                                            \
    do {                                                                    \
        for (int k_ = 0; k_ < L; k_++) {                                    \
            (m)[k_] = (x)[k_] CMP(m)[k_] ? (x)[k_] : (m)[k_];               \
        }                                                                   \
    } while (0)
#define DEF_VEXT_INT(NAME, CMP, N, T, IT)                                   \
    static TL_ALWAYS_INLINE void NAME##_vext_##N##_body(const T *q,         \
                                                         int64_t n, T *out, \
                                                         int *nan)          \
    {                                                                       \
        typedef T vt __attribute__((vector_size(VBYTES)));                  \
        typedef T vh __attribute__((vector_size(VBYTES / 2)));              \
        enum { L = VBYTES / sizeof(T) };                                    \
        *nan = 0;                                                           \
        if (n < L) {                                                        \
            T r = q[0];                                                     \
            for (int64_t i = 1; i < n; i++) {                               \
                r = q[i] CMP r ? q[i] : r;                                  \
            }                                                               \
            *out = r;                                                       \
            return;                                                         \
        }                                                                   \
        vt m0, x0;                                                          \
        memcpy(&m0, q, VBYTES);                                             \
        int64_t i = L;                                                      \
        if (n >= 4 * L) {                                                   \
            vt m1, m2, m3, x1, x2, x3;                                      \
            memcpy(&m1, q + L, VBYTES);                                     \
            memcpy(&m2, q + 2 * L, VBYTES);                                 \
            memcpy(&m3, q + 3 * L, VBYTES);                                 \
            for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {                   \
                memcpy(&x0, q + i, VBYTES);                                 \
                memcpy(&x1, q + i + L, VBYTES);                             \
                memcpy(&x2, q + i + 2 * L, VBYTES);                         \
                memcpy(&x3, q + i + 3 * L, VBYTES);                         \
                VEXT_INT_KEEP(CMP, m0, x0);                                 \
                VEXT_INT_KEEP(CMP, m1, x1);                                 \
                VEXT_INT_KEEP(CMP, m2, x2);                                 \
                VEXT_INT_KEEP(CMP, m3, x3);                                 \
            }                                                               \
            VEXT_INT_KEEP(CMP, m0, m1);                                     \
            VEXT_INT_KEEP(CMP, m2, m3);                                     \
            VEXT_INT_KEEP(CMP, m0, m2);                                     \
        }                                                                   \
        /* Then steps of one vector, the last overlapping (Note [Vector     \
         * extrema]; an element seen twice changes nothing). */             \
        for (; i + L <= n; i += L) {                                        \
            memcpy(&x0, q + i, VBYTES);                                     \
            VEXT_INT_KEEP(CMP, m0, x0);                                     \
        }                                                                   \
        if (i < n) {                                                        \
            memcpy(&x0, q + n - L, VBYTES);                                 \
            VEXT_INT_KEEP(CMP, m0, x0);                                     \
        }                                                                   \
        /* The vector's halves, then the half's lanes. */                   \
        vh lo, hi;                                                          \
        memcpy(&lo, &m0, VBYTES / 2);                                       \
        memcpy(&hi, (const char *)&m0 + VBYTES / 2, VBYTES / 2);            \
        for (int k = 0; k < L / 2; k++) {                                   \
            lo[k] = hi[k] CMP lo[k] ? hi[k] : lo[k];                        \
        }                                                                   \
        if (L / 2 == 4) {                                                   \
            typedef T vq __attribute__((vector_size(2 * sizeof(T))));       \
            vq lo2, hi2;                                                    \
            memcpy(&lo2, &lo, sizeof lo2);                                  \
            memcpy(&hi2, (const char *)&lo + sizeof lo2, sizeof hi2);       \
            for (int k = 0; k < 2; k++) {                                   \
                lo2[k] = hi2[k] CMP lo2[k] ? hi2[k] : lo2[k];               \
            }                                                               \
            *out = lo2[1] CMP lo2[0] ? lo2[1] : lo2[0];                     \
            return;                                                         \
        }                                                                   \
        T r = lo[0];                                                        \
        for (int k = 1; k < L / 2; k++) {                                   \
            r = lo[k] CMP r ? lo[k] : r;                                    \
        }                                                                   \
        *out = r;                                                           \
    }                                                                       \
    DISPATCHED(NAME##_vext_##N, (const T *q, int64_t n, T *out, int *nan),  \
               (q, n, out, nan))

/* Index of the first element of q[0..n) equal to v; n when none.
 * DISPATCHED: on the SSE2 baseline the search ran at a third of the
 * extreme pass's speed and dominated argmax over short rows (Note [Vector
 * extrema]). */
#define DEF_VFIND(N, T)                                                     \
    static TL_ALWAYS_INLINE void vfind_##N##_run_body(const T *q, int64_t n, \
                                                   T v, int64_t *out)        \
    {                                                                       \
        int64_t i = 0;                                                      \
        for (; i + 64 <= n; i += 64) {                                      \
            int hit = 0;                                                    \
            for (int k = 0; k < 64; k++) {                                  \
                hit |= q[i + k] == v;                                       \
            }                                                               \
            if (hit) {                                                      \
                break;                                                      \
            }                                                               \
        }                                                                   \
        /* Then groups of 8 (the hit group is not scanned one by one). */  \
        for (; i + 8 <= n; i += 8) {                                        \
            int hit = 0;                                                    \
            for (int k = 0; k < 8; k++) {                                   \
                hit |= q[i + k] == v;                                       \
            }                                                               \
            if (hit) {                                                      \
                break;                                                      \
            }                                                               \
        }                                                                   \
        for (; i < n && !(q[i] == v); i++) {                                \
        }                                                                   \
        *out = i;                                                           \
    }                                                                       \
    DISPATCHED(vfind_##N##_run, (const T *q, int64_t n, T v, int64_t *out), \
               (q, n, v, out))                                              \
    static int64_t vfind_##N(const T *q, int64_t n, T v)                    \
    {                                                                       \
        int64_t i;                                                          \
        vfind_##N##_run(q, n, v, &i);                                       \
        return i;                                                           \
    }

/* Index of the first NaN of q[0..n) (n when none): float types only.  The
 * row kernels test FNAN && nan, which the compiler folds away for the
 * integer types (FNAN 0), whose vfindnan is a macro never evaluated. */
#define DEF_VFINDNAN(N, T)                                                  \
    static int64_t vfindnan_##N(const T *q, int64_t n)                      \
    {                                                                       \
        int64_t i = 0;                                                      \
        for (; i < n && q[i] == q[i]; i++) {                                \
        }                                                                   \
        return i;                                                           \
    }

/* Row kernels: contiguous runs through the vector pass, the rest through
 * the generic kernels above. */
/* argmax/argmin: the vector pass runs over blocks of ARG_BLOCK elements,
 * keeping the first block that holds the extreme value (a strictly better
 * block replaces it), so the index search scans one block only. */
#define ARG_BLOCK 1024
/* Note [Vector loads from aligned addresses]
 * NumPy's large buffers start 16 bytes into a cache line, so half the
 * 32-byte loads of a contiguous run from NumPy's memory (and every
 * 64-byte one) split two lines.  One thread, float32 of 2^22 (in L3),
 * views of one buffer at offsets 0-48 bytes, interleaved, Zen 5: amax
 * 211-213 us aligned and 229-245 at the other offsets, argmax 265-330;
 * with the head taken first, amax 198-204 and argmax 227-269 at every
 * offset.  So the extreme pass (NAME##_vexta_##N) takes the elements
 * before the first aligned address one at a time and runs the vector
 * loop from there; the one-pass argmax (NAME##_varg_##N) reads its first
 * step from q and the rest from the aligned address on (Note [One-pass
 * vector argmax]).  The value is the same (max and min are exact;
 * the head is earlier, so it wins ties, and a NaN anywhere is still
 * found first by the search), as is every index; which zero of equal
 * zeros max returns can follow the buffer's alignment, as the lane order
 * already decides it.  Sums keep their loads: the lane an element adds
 * into must not depend on where the buffer starts (and the float32 sum,
 * timed the same way, ran 191-208 us at every offset; loading its
 * vectors as two aligned halves made the offset-16 runs slower, 175 ->
 * 205 us, so that was left out). */
#define DEF_VEXTA(NAME, CMP, N, T)                                          \
    static void NAME##_vexta_##N(const T *q, int64_t n, T *out, int *nan)   \
    {                                                                       \
        const int64_t h =                                                   \
            (int64_t)((0u - (uintptr_t)q) % VBYTES) / (int64_t)sizeof(T);   \
        if ((uintptr_t)q % sizeof(T) != 0 || h == 0 ||                      \
            n - h < 4 * (int64_t)(VBYTES / sizeof(T))) {                    \
            NAME##_vext_##N(q, n, out, nan);                                \
            return;                                                         \
        }                                                                   \
        T r = q[0];                                                         \
        int f = 0;                                                          \
        for (int64_t i = 0; i < h; i++) {                                   \
            const T x = q[i];                                               \
            r = x CMP r ? x : r;                                            \
            f |= x != x;                                                    \
        }                                                                   \
        T b;                                                                \
        int fb;                                                             \
        NAME##_vext_##N(q + h, n - h, &b, &fb);                             \
        *out = b CMP r ? b : r;                                             \
        *nan = f | fb;                                                      \
    }
/* Note [Which zero an extreme is]
 * Every element equal to a float extreme has the same bits but for
 * zeros: +0 == -0, and which one the vector pass keeps depends on the
 * lane it fell in, and so, through the alignment head, on the data's
 * address (tests/test_reduce_vector.py saw amin of the same 65 float32
 * answer -0 at some offsets of a buffer and +0 at others).  The rule
 * instead: an extreme is the first element, in index order, equal to it;
 * a row with a NaN answers its first NaN.  The element-by-element paths
 * (strided rows, tiny rows, the cols folds in row order) keep the first of
 * equal values already, and the combine of two chunks keeps the earlier
 * on a tie; the vector passes find the first zero again when the extreme
 * is a zero (a find from the row's start that stops there: a second pass
 * only for rows whose extreme is 0).  XROW_FIRST(N, FNAN, q, n, nan, r):
 * r, the extreme of q[0..n) with nan its NaN flag, made that element. */
#define XROW_FIRST(N, FNAN, q, n, nan, r)                                   \
    do {                                                                    \
        if (FNAN && (nan)) {                                                \
            (r) = (q)[vfindnan_##N((q), (n))];                              \
        } else if (FNAN && (r) == 0) {                                      \
            (r) = (q)[vfind_##N((q), (n), (r))];                            \
        }                                                                   \
    } while (0)
/* Note [Extrema of tiny rows]
 * Rows of at most 16 elements (8 for argmax/argmin; the last dim of a
 * (10^6, 4) tensor) go through a loop unrolled for their length: the
 * vector pass's setup, its alignment head and its tail had cost several
 * nanoseconds a row, where a row of 4 is three compares (one thread,
 * Zen 5: max over dim 1 of (2^20, 4) float32 4.2 ms, PyTorch 3.0; int32
 * 2.6, PyTorch 1.4).  The loads are memcpy (a tensor's data need not be
 * aligned to its element); a row with a NaN answers its first NaN, as
 * the vector pass does.  A loop over the length at run time instead
 * measured up to twice as slow for int32 (Zen 3, amax of rows of 2-8,
 * argmax of rows of 8).  The tiny rows run in the dispatcher, not in each
 * ISA clone: the same scalar code twice had been 3,500 more branches in
 * the gcov build. */
/* The start of row j of a run of tiny rows, q, its lines prefetched
 * ahead like the vector rows' (pf_: ROW_RUN_PF_DECL). */
#define TINY_ROW_AT(q, j)                                                   \
    const char *q = p + (j) * rs;                                           \
    if (pf_) {                                                              \
        ROW_RUN_PREFETCH((uintptr_t)q + ROW_RUN_PF_AHEAD);                  \
    }
/* The first NaN of the K elements of T at q, s bytes apart, into r, and
 * its index into i (a row known to hold one). */
#define TINY_FIRST_NAN(T, q, K, s, r, i)                                    \
    for ((i) = 0; (i) < (K); (i)++) {                                       \
        memcpy(&(r), (q) + (size_t)(i) * (size_t)(s), sizeof(T));           \
        if ((r) != (r)) {                                                   \
            break;                                                          \
        }                                                                   \
    }
/* CASE(K, ...) for each length K of the unrolled tiny rows, the cases
 * of a switch over the row length (XROWS_TINY, DEF_ARG_ROWS). */
#define TINY_CASES_1_8(CASE, ...)                                           \
    CASE(1, __VA_ARGS__); CASE(2, __VA_ARGS__); CASE(3, __VA_ARGS__);       \
    CASE(4, __VA_ARGS__); CASE(5, __VA_ARGS__); CASE(6, __VA_ARGS__);       \
    CASE(7, __VA_ARGS__); CASE(8, __VA_ARGS__);
#define TINY_CASES_9_16(CASE, ...)                                          \
    CASE(9, __VA_ARGS__); CASE(10, __VA_ARGS__); CASE(11, __VA_ARGS__);     \
    CASE(12, __VA_ARGS__); CASE(13, __VA_ARGS__); CASE(14, __VA_ARGS__);    \
    CASE(15, __VA_ARGS__); CASE(16, __VA_ARGS__);
/* The extremes of the m rows of K elements (1 <= K <= XROWS_TINY_MAX)
 * into res, and return. */
#define XROWS_TINY_MAX 16
#define XROWS_TINY_RUN(K, CMP, T, PUT, FNAN)                                \
    for (int64_t j = 0; j < m; j++) {                                       \
        TINY_ROW_AT(q, j)                                                   \
        T r;                                                                \
        memcpy(&r, q, sizeof r);                                            \
        int f = r != r;                                                     \
        for (int i = 1; i < (K); i++) {                                     \
            T x;                                                            \
            memcpy(&x, q + (size_t)i * sizeof x, sizeof x);                 \
            r = x CMP r ? x : r;                                            \
            f |= x != x;                                                    \
        }                                                                   \
        if (FNAN && f) {                                                    \
            int i_;                                                         \
            TINY_FIRST_NAN(T, q, K, sizeof r, r, i_)                        \
        }                                                                   \
        PUT(&res[j], r);                                                    \
    }                                                                       \
    return
#define XROWS_TINY_CASE(K, CMP, T, PUT, FNAN)                               \
    case K:                                                                 \
        XROWS_TINY_RUN(K, CMP, T, PUT, FNAN)
/* Rows of at most XROWS_TINY_MAX elements through XROWS_TINY_RUN, each
 * length its own case (its loops unrolled), and return: in the dispatcher,
 * outside the ISA clones (the same scalar code in each). */
#define XROWS_TINY(CMP, T, PUT, FNAN)                                       \
    do {                                                                    \
        ROW_RUN_PF_DECL(T);                                                 \
        switch (n) {                                                        \
            TINY_CASES_1_8(XROWS_TINY_CASE, CMP, T, PUT, FNAN)              \
            TINY_CASES_9_16(XROWS_TINY_CASE, CMP, T, PUT, FNAN)             \
        default:                                                            \
            break;                                                          \
        }                                                                   \
    } while (0)
/* The extreme of each of m contiguous rows of n (row j at p + j * rs)
 * through VEXT, as NAME##_vexta_##N and NAME##_frow_##N would take it
 * (Note [Row runs]); the dispatcher takes rows of at most XROWS_TINY_MAX
 * first (XROWS_TINY). */
#define XROWS_LOOP(NAME, CMP, N, T, PUT, FNAN, VEXT)                        \
    ROW_RUN_PF_DECL(T);                                                     \
    for (int64_t j = 0; j < m; j++) {                                       \
        const T *q = (const T *)(p + j * rs);                               \
        ROW_RUN_PF_LINES(q);                                                \
        const int64_t h =                                                   \
            (int64_t)((0u - (uintptr_t)q) % VBYTES) / (int64_t)sizeof(T);   \
        T r;                                                                \
        int nan;                                                            \
        if ((uintptr_t)q % sizeof(T) != 0 || h == 0 ||                      \
            n - h < 4 * (int64_t)(VBYTES / sizeof(T))) {                    \
            VEXT(q, n, &r, &nan);                                           \
        } else {                                                            \
            T a = q[0];                                                     \
            int f = 0;                                                      \
            for (int64_t i = 0; i < h; i++) {                               \
                const T x = q[i];                                           \
                a = x CMP a ? x : a;                                        \
                f |= x != x;                                                \
            }                                                               \
            VEXT(q + h, n - h, &r, &nan);                                   \
            r = r CMP a ? r : a;                                            \
            nan |= f;                                                       \
        }                                                                   \
        XROW_FIRST(N, FNAN, q, n, nan, r);                                  \
        PUT(&res[j], r);                                                    \
    }
#define XROWS_PARAMS                                                        \
    (const char *p, int64_t m, int64_t rs, int64_t n, tl_racc *res)
#ifdef TL_AVX2_DISPATCH
/* flatten: the clone's vector pass inlined into the loop over rows. */
#define DEF_XROWS(NAME, CMP, N, T, PUT, FNAN)                               \
    __attribute__((flatten)) static void NAME##_xrows_##N##_base            \
        XROWS_PARAMS                                                        \
    {                                                                       \
        XROWS_LOOP(NAME, CMP, N, T, PUT, FNAN, NAME##_vext_##N##_base)      \
    }                                                                       \
    TL_TARGET_AVX2 __attribute__((flatten)) static void                     \
        NAME##_xrows_##N##_avx2 XROWS_PARAMS                                \
    {                                                                       \
        XROWS_LOOP(NAME, CMP, N, T, PUT, FNAN, NAME##_vext_##N##_avx2)      \
    }                                                                       \
    static void NAME##_xrows_##N XROWS_PARAMS                               \
    {                                                                       \
        XROWS_TINY(CMP, T, PUT, FNAN);                                      \
        if (have_avx2()) {                                                  \
            NAME##_xrows_##N##_avx2(p, m, rs, n, res);                      \
        } else {                                                            \
            NAME##_xrows_##N##_base(p, m, rs, n, res);                      \
        }                                                                   \
    }
#else
#define DEF_XROWS(NAME, CMP, N, T, PUT, FNAN)                               \
    static void NAME##_xrows_##N XROWS_PARAMS                               \
    {                                                                       \
        XROWS_TINY(CMP, T, PUT, FNAN);                                      \
        XROWS_LOOP(NAME, CMP, N, T, PUT, FNAN, NAME##_vext_##N)             \
    }
#endif
#define DEF_VROWS(NAME, CMP, ARGNAME, N, T, PUT, TRY, FNAN)                 \
    DEF_VEXTA(NAME, CMP, N, T)                                              \
    DEF_XROWS(NAME, CMP, N, T, PUT, FNAN)                                   \
    static void NAME##_frow_##N(const char *p, int64_t n, int64_t s,         \
                                int64_t idx0, const tl_racc *aux,            \
                                tl_racc *res)                                \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            NAME##_row_##N(p, n, s, idx0, aux, res);                        \
            return;                                                         \
        }                                                                   \
        const T *q = (const T *)p;                                          \
        T r;                                                                \
        int nan;                                                            \
        NAME##_vexta_##N(q, n, &r, &nan);                                   \
        XROW_FIRST(N, FNAN, q, n, nan, r);                                  \
        PUT(res, r);                                                        \
    }                                                                       \
    static void NAME##_rows_##N(const char *p, int64_t m, int64_t rs,       \
                                int64_t n, int64_t s, int64_t idx0,          \
                                const tl_racc *aux, tl_racc *res)            \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            for (int64_t j = 0; j < m; j++) {                               \
                NAME##_row_##N(p + j * rs, n, s, idx0, NULL, &res[j]);      \
            }                                                               \
            return;                                                         \
        }                                                                   \
        NAME##_xrows_##N(p, m, rs, n, res);                                 \
    }                                                                       \
    static void ARGNAME##_frow_##N(const char *p, int64_t n, int64_t s,      \
                                   int64_t idx0, const tl_racc *aux,         \
                                   tl_racc *res)                             \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            ARGNAME##_row_##N(p, n, s, idx0, aux, res);                     \
            return;                                                         \
        }                                                                   \
        const T *q = (const T *)p;                                          \
        TRY(NAME, N, q, n, idx0, res, PUT)                                  \
        T best = q[0];                                                      \
        int64_t bb = 0, i = -1;                                             \
        for (int64_t b = 0; b < n; b += ARG_BLOCK) {                        \
            const int64_t m = n - b < ARG_BLOCK ? n - b : ARG_BLOCK;        \
            T r;                                                            \
            int nan;                                                        \
            NAME##_vexta_##N(q + b, m, &r, &nan);                           \
            if (FNAN && nan) {                                              \
                i = b + vfindnan_##N(q + b, m);                             \
                break;                                                      \
            }                                                               \
            if (r CMP best) {                                               \
                best = r;                                                   \
                bb = b;                                                     \
            }                                                               \
        }                                                                   \
        if (i < 0) {                                                        \
            const int64_t m = n - bb < ARG_BLOCK ? n - bb : ARG_BLOCK;      \
            i = bb + vfind_##N(q + bb, m, best);                            \
        }                                                                   \
        PUT(res, q[i]);                                                     \
        res->idx = idx0 + i;                                                \
    }

/* Note [One-pass vector argmax]
 * With AVX-512, argmax/argmin of 32- and 64-bit elements take one pass
 * that carries each lane's index, instead of the extreme pass and the
 * search above (which reads up to a block twice).  Four (value,
 * position) accumulator pairs of 64-byte vectors: where x CMP m (strict,
 * so a lane keeps its first occurrence of its best value) the lane takes
 * x and the step's position (a vector of the first element's index,
 * plus 4L a step); an unordered compare of two loads ORs a NaN mask, off
 * the compare chain, and a run with a NaN is answered by the search for
 * its first NaN, as above.  An element's index is position + accumulator
 * * L + lane, rebuilt after the loop; every lane starts at q[0] with
 * position -1, read as index 0.  The first step reads q[0..4L), the next
 * ones start at the first 64-byte aligned element (Note [Vector loads
 * from aligned addresses]) and the last one ends at q[n-1]: so steps can
 * overlap, and an element seen twice is seen at its own index, which
 * cannot change the answer (a lane still holds the first occurrence of
 * its best among what it saw, and the true first extreme stays in the
 * lane that saw it).  A run shorter than 4L is copied to a buffer padded
 * with q[0], which never replaces a lane's value.  (The head and the
 * tail had gone one element at a time: with NumPy's rows of 2048
 * float32 starting 16 bytes into a line, 64 elements a row in a
 * compare-and-select chain of a few cycles each; one thread, Zen 4,
 * argmax(dim=1) of 2048^2 went 441-450 -> 272-360 us.)  The accumulators
 * merge keeping the better value or, for equal values (x == r also
 * holds for zeros of the other sign), the smaller index; the lanes then
 * give the extreme value and the smallest index holding it: the first
 * index of the extreme value, what the scalar rule gives.  Indices live
 * in the lanes' integer width (int32 for float32): the runs reaching a row
 * kernel are at most TL_REDUCE_RCHUNK elements (reduce.c cuts longer
 * ones and combines the chunks' records by the same rule).  On AVX2 the
 * same loop ran 1.6x slower than the two passes (sixteen registers: the
 * accumulators spill, and every select is a blend instruction where
 * AVX-512 has mask registers), so AVX2 and the baseline keep the two
 * passes; the index is the same either way.  The loop prefetches each of
 * its four lines ahead as the lane kernels do (Note [Prefetch in the lane
 * kernels]); on the Zen 5 VM (3 Dec 2026, one thread, alternated builds)
 * float32 argmax of 2^24 went 1.63-1.69 -> 1.34-1.49 ms (NumPy 2.04-2.1)
 * and of 2^20 43 -> 38 us (NumPy 45).  Whether to prefetch is a
 * thread-local (lane_prefetch), and reading one from a loaded module is a
 * call: made inside the kernel, once a row, it had the vector state
 * spilled around it, and argmax(dim=1) of 4096 x 128 float64 went 75 ->
 * 95 us.  So the caller reads it and passes it in, and a run of rows is
 * one call (DEF_ARG_ROWS) that reads it once: 75-80 us.  (Rows of
 * 64-256 float64 still take 20-37 ns a row against NumPy's 11-32: the
 * merge of the lanes after the loop, a chain of cross-lane steps, is most
 * of a short row.  The two passes for those rows measured 2-3x slower.) */
_Static_assert(TL_REDUCE_RCHUNK <= ((int64_t)1 << 30),
               "argmax lane indices are int32 (Note [One-pass vector argmax])");

/* (m, k) of a vector to (mh, kh) of half its width: lane j of the result
 * is the better of lanes j and j + L/2, the smaller index on a tie. */
#define VARG_HALF(VH, IH, CMP, m, k, mh, kh)                                \
    do {                                                                    \
        VH lo_, hi_;                                                        \
        IH klo_, khi_;                                                      \
        memcpy(&lo_, &(m), sizeof lo_);                                     \
        memcpy(&hi_, (const char *)&(m) + sizeof lo_, sizeof hi_);          \
        memcpy(&klo_, &(k), sizeof klo_);                                   \
        memcpy(&khi_, (const char *)&(k) + sizeof klo_, sizeof khi_);       \
        const IH c_ = (hi_ CMP lo_) | ((hi_ == lo_) & (khi_ < klo_));       \
        (mh) = (VH)(((IH)hi_ & c_) | ((IH)lo_ & ~c_));                      \
        (kh) = (khi_ & c_) | (klo_ & ~c_);                                  \
    } while (0)

#ifdef TL_AVX2_DISPATCH
/* A NaN in either of two 64-byte vectors of floats: one unordered
 * compare (integers have none). */
#define VARG_NAN2_f32(a, b)                                                 \
    ((unsigned)_mm512_cmp_ps_mask((__m512)(a), (__m512)(b), _CMP_UNORD_Q))
#define VARG_NAN2_f64(a, b)                                                 \
    ((unsigned)_mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_UNORD_Q))
#define VARG_NAN2_i32(a, b) 0u
#define VARG_NAN2_u32(a, b) 0u
#define VARG_NAN2_i64(a, b) 0u
#define VARG_NAN2_u64(a, b) 0u
/* The lanes that took x (masks c0..c3) marked with the step's position
 * it, the NaN flag, the next position. */
#define VARG_TAKE(N)                                                        \
    k0 = (it & c0) | (k0 & ~c0);                                            \
    k1 = (it & c1) | (k1 & ~c1);                                            \
    k2 = (it & c2) | (k2 & ~c2);                                            \
    k3 = (it & c3) | (k3 & ~c3);                                            \
    nn |= VARG_NAN2_##N(x0, x1) | VARG_NAN2_##N(x2, x3);                    \
    it += 4 * L
/* AVX-512 max/min of two vectors, the extreme of a vector's lanes and
 * the lanes equal (zeros of either sign included) as a bit mask, by
 * element type: the short runs of the one-pass argmax, NaN-free. */
#define VX512_max_f32(a, b) ((vt)_mm512_max_ps((__m512)(a), (__m512)(b)))
#define VX512_min_f32(a, b) ((vt)_mm512_min_ps((__m512)(a), (__m512)(b)))
#define VX512_max_f64(a, b) ((vt)_mm512_max_pd((__m512d)(a), (__m512d)(b)))
#define VX512_min_f64(a, b) ((vt)_mm512_min_pd((__m512d)(a), (__m512d)(b)))
#define VX512_I(op, a, b) ((vt)op((__m512i)(a), (__m512i)(b)))
#define VX512_max_i32(a, b) VX512_I(_mm512_max_epi32, a, b)
#define VX512_min_i32(a, b) VX512_I(_mm512_min_epi32, a, b)
#define VX512_max_u32(a, b) VX512_I(_mm512_max_epu32, a, b)
#define VX512_min_u32(a, b) VX512_I(_mm512_min_epu32, a, b)
#define VX512_max_i64(a, b) VX512_I(_mm512_max_epi64, a, b)
#define VX512_min_i64(a, b) VX512_I(_mm512_min_epi64, a, b)
#define VX512_max_u64(a, b) VX512_I(_mm512_max_epu64, a, b)
#define VX512_min_u64(a, b) VX512_I(_mm512_min_epu64, a, b)
#define VRED512_max_f32(v) _mm512_reduce_max_ps((__m512)(v))
#define VRED512_min_f32(v) _mm512_reduce_min_ps((__m512)(v))
#define VRED512_max_f64(v) _mm512_reduce_max_pd((__m512d)(v))
#define VRED512_min_f64(v) _mm512_reduce_min_pd((__m512d)(v))
#define VRED512_max_i32(v) _mm512_reduce_max_epi32((__m512i)(v))
#define VRED512_min_i32(v) _mm512_reduce_min_epi32((__m512i)(v))
#define VRED512_max_u32(v) _mm512_reduce_max_epu32((__m512i)(v))
#define VRED512_min_u32(v) _mm512_reduce_min_epu32((__m512i)(v))
#define VRED512_max_i64(v) _mm512_reduce_max_epi64((__m512i)(v))
#define VRED512_min_i64(v) _mm512_reduce_min_epi64((__m512i)(v))
#define VRED512_max_u64(v) _mm512_reduce_max_epu64((__m512i)(v))
#define VRED512_min_u64(v) _mm512_reduce_min_epu64((__m512i)(v))
#define VEQ512_f32(a, b)                                                    \
    _mm512_cmp_ps_mask((__m512)(a), (__m512)(b), _CMP_EQ_OQ)
#define VEQ512_f64(a, b)                                                    \
    _mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_EQ_OQ)
#define VEQ512_i32(a, b) _mm512_cmpeq_epi32_mask((__m512i)(a), (__m512i)(b))
#define VEQ512_u32 VEQ512_i32
#define VEQ512_i64(a, b) _mm512_cmpeq_epi64_mask((__m512i)(a), (__m512i)(b))
#define VEQ512_u64 VEQ512_i64
/* The smallest of the lanes of the index vector k (vi) that mask keeps. */
#define VMINIDX512(mask, k)                                                 \
    (sizeof((k)[0]) == 4                                                    \
         ? (int64_t)_mm512_mask_reduce_min_epi32((__mmask16)(mask),         \
                                                 (__m512i)(k))              \
         : (int64_t)_mm512_mask_reduce_min_epi64((__mmask8)(mask),          \
                                                 (__m512i)(k)))
/* The lanes of the index vector k whose value in m is not the extreme
 * b_ made the largest index, so that one minimum over the lanes of the
 * four accumulators (VARG_MIN_INTO, then one VMINIDX512) finds the first
 * index of the extreme: four masked horizontal minima had been a chain of
 * shuffles per accumulator. */
#define VARG_KEEP_EQ(k, m)                                                  \
    do {                                                                    \
        const vi e_ = (vi)((m) == b_);                                      \
        (k) = ((k) & e_) | (big_ & ~e_);                                    \
    } while (0)
#define VARG_MIN_INTO(a, b)                                                 \
    do {                                                                    \
        const vi c_ = (vi)((b) < (a));                                      \
        (a) = ((b) & c_) | ((a) & ~c_);                                     \
    } while (0)
/* One step of the one-pass argmax below: the four vectors at P (the
 * elements at positions it + 0 .. 4L-1) into the accumulators, the lanes
 * that took x marked with it. */
#define VARG_STEP(P, CMP, N)                                                \
    do {                                                                    \
        LOAD4_KEEP_BETTER(P, CMP, 64);                                      \
        VARG_TAKE(N);                                                       \
    } while (0)
/* x = vector j of a run of n < 4L elements at q (L lanes of T), lanes
 * past n holding q[0]: one masked load (no lane past n is read), where
 * a buffer padded in memory stalled the vector loads on its stores
 * (int32 argmax over rows of 16: 51 ns a row). */
#define VARG_MLOAD(x, j, T, L)                                              \
    do {                                                                    \
        const int64_t c_ = n - (int64_t)(j) * (L);                          \
        const unsigned mk_ = c_ >= (L) ? (unsigned)((1ull << (L)) - 1)      \
                             : c_ > 0  ? (unsigned)((1ull << c_) - 1)       \
                                       : 0u;                                \
        const T *a_ = c_ > 0 ? q + (j) * (L) : q;                           \
        vt pad_;                                                            \
        for (int k_ = 0; k_ < (L); k_++) {                                  \
            pad_[k_] = q[0];                                                \
        }                                                                   \
        __m512i v_, p_;                                                     \
        memcpy(&p_, &pad_, 64);                                             \
        if (sizeof(T) == 4) {                                               \
            v_ = _mm512_mask_loadu_epi32(p_, (__mmask16)mk_, a_);           \
        } else {                                                            \
            v_ = _mm512_mask_loadu_epi64(p_, (__mmask8)mk_, a_);            \
        }                                                                   \
        memcpy(&(x), &v_, 64);                                              \
    } while (0)
/* Index of the first extreme of q[0..n), or -1 when a NaN is there
 * (Note [One-pass vector argmax]); pf: whether to prefetch ahead (the
 * caller's read of lane_prefetch, a thread-local whose read is a call:
 * made here, once a row, it had the vector state spilled around it). */
#define DEF_VARG512(NAME, CMP, N, T, IT, FNAN)                              \
    TL_TARGET_AVX512 static int64_t NAME##_varg_##N(const T *q, int64_t n,  \
                                                    int pf)                 \
    {                                                                       \
        typedef T vt __attribute__((vector_size(64)));                      \
        typedef IT vi __attribute__((vector_size(64)));                     \
        enum { L = 64 / sizeof(T) };                                        \
        vt m0;                                                              \
        vi k0, lane, it;                                                    \
        for (int k = 0; k < L; k++) {                                       \
            m0[k] = q[0];                                                   \
            k0[k] = -1;                                                     \
            lane[k] = (IT)k;                                                \
            it[k] = 0;                                                      \
        }                                                                   \
        vt m1 = m0, m2 = m0, m3 = m0;                                       \
        vi k1 = k0, k2 = k0, k3 = k0;                                       \
        unsigned nn = 0;                                                    \
        if (n < 4 * L) {                                                    \
            /* A short run, in registers: masked loads padded with q[0]    \
             * (an element: a pad equal to the extreme comes after index   \
             * 0, which holds it too), the extreme, then the first lane    \
             * equal to it (zeros of either sign compare equal). */        \
            vt x0, x1, x2, x3;                                              \
            VARG_MLOAD(x0, 0, T, L);                                        \
            VARG_MLOAD(x1, 1, T, L);                                        \
            VARG_MLOAD(x2, 2, T, L);                                        \
            VARG_MLOAD(x3, 3, T, L);                                        \
            if (FNAN && (VARG_NAN2_##N(x0, x1) | VARG_NAN2_##N(x2, x3))) {  \
                return -1;                                                  \
            }                                                               \
            const vt e_ = VX512_##NAME##_##N(VX512_##NAME##_##N(x0, x1),    \
                                             VX512_##NAME##_##N(x2, x3));   \
            vt b_;                                                          \
            const T r_ = VRED512_##NAME##_##N(e_);                          \
            for (int k = 0; k < L; k++) {                                   \
                b_[k] = r_;                                                 \
            }                                                               \
            const uint64_t hit_ =                                           \
                (uint64_t)VEQ512_##N(x0, b_) |                              \
                (uint64_t)VEQ512_##N(x1, b_) << L |                         \
                (uint64_t)VEQ512_##N(x2, b_) << (2 * L) |                   \
                (uint64_t)VEQ512_##N(x3, b_) << (3 * L);                    \
            return (int64_t)__builtin_ctzll(hit_);                          \
        } else {                                                            \
            /* The first step from q, then from the first 64-byte aligned \
             * element on, the last ending at q[n-1]: steps overlap, and   \
             * an element seen twice is seen at its own position. */       \
            VARG_STEP(q, CMP, N);                                           \
            int64_t i = (uintptr_t)q % sizeof(T) != 0                       \
                            ? 4 * L                                         \
                            : (int64_t)((0u - (uintptr_t)q) % 64) /         \
                                  (int64_t)sizeof(T);                       \
            i = i > 0 ? i : 4 * L;                                          \
            it = (it - it) + (IT)i;                                         \
            for (; i + 4 * L <= n; i += 4 * L) {                            \
                if (pf) {                                                   \
                    VARG_PREFETCH(q + i);                                   \
                    VARG_PREFETCH(q + i + L);                               \
                    VARG_PREFETCH(q + i + 2 * L);                           \
                    VARG_PREFETCH(q + i + 3 * L);                           \
                }                                                           \
                VARG_STEP(q + i, CMP, N);                                   \
            }                                                               \
            if (i < n) {                                                    \
                it = (it - it) + (IT)(n - 4 * L);                           \
                VARG_STEP(q + n - 4 * L, CMP, N);                           \
            }                                                               \
        }                                                                   \
        if (FNAN && nn != 0) {                                              \
            return -1;                                                      \
        }                                                                   \
        /* Positions to indices (-1: index 0, the start value). */          \
        k0 = (k0 + lane) & (k0 >= 0);                                       \
        k1 = (k1 + L + lane) & (k1 >= 0);                                   \
        k2 = (k2 + 2 * L + lane) & (k2 >= 0);                               \
        k3 = (k3 + 3 * L + lane) & (k3 >= 0);                               \
        /* The extreme of the lanes, then the smallest index among the  \
         * lanes holding it (a masked minimum, unmasked lanes as the      \
         * largest index): where merging the accumulators as (value,     \
         * index) pairs and halving them took a chain of blends and      \
         * stores, a quarter of a row of 2048. */                         \
        const vt e_ = VX512_##NAME##_##N(VX512_##NAME##_##N(m0, m1),        \
                                         VX512_##NAME##_##N(m2, m3));       \
        vt b_;                                                              \
        const T r_ = VRED512_##NAME##_##N(e_);                              \
        vi big_;                                                            \
        for (int k = 0; k < L; k++) {                                       \
            b_[k] = r_;                                                     \
            big_[k] = (IT)((uint64_t)-1 >> (65 - 8 * sizeof(IT)));          \
        }                                                                   \
        VARG_KEEP_EQ(k0, m0);                                               \
        VARG_KEEP_EQ(k1, m1);                                               \
        VARG_KEEP_EQ(k2, m2);                                               \
        VARG_KEEP_EQ(k3, m3);                                               \
        VARG_MIN_INTO(k0, k1);                                              \
        VARG_MIN_INTO(k2, k3);                                              \
        VARG_MIN_INTO(k0, k2);                                              \
        return VMINIDX512(~0u, k0);                                         \
    }
/* A prefetch lane_prefetch_ahead bytes past p (PREFETCH_AHEAD without
 * the thread-local read). */
#define VARG_PREFETCH(p)                                                    \
    __builtin_prefetch((const void *)((uintptr_t)(p) + lane_prefetch_ahead))
/* The extreme of the row q[0..n) and its index into res, by the one-pass
 * argmax. */
#define VARG_ONE(NAME, N, q, n, pf, idx0, res, PUT)                         \
    do {                                                                    \
        int64_t bi_ = NAME##_varg_##N(q, n, pf);                            \
        if (bi_ < 0) {                                                      \
            bi_ = vfindnan_##N(q, n);                                       \
        }                                                                   \
        PUT(res, (q)[bi_]);                                                 \
        (res)->idx = (idx0) + bi_;                                          \
    } while (0)
#define VARG_TRY(NAME, N, q, n, idx0, res, PUT)                             \
    if (have_avx512()) {                                                    \
        VARG_ONE(NAME, N, q, n, lane_prefetch, idx0, res, PUT);             \
        return;                                                             \
    }
/* VARG_TRY for m contiguous rows rs bytes apart: the prefetch flag read
 * once, no call a row through the kernel table. */
#define VARG_ROWS_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)           \
    if (have_avx512() && (s) == (int64_t)sizeof(T)) {                       \
        const int pf_ = lane_prefetch;                                      \
        for (int64_t j_ = 0; j_ < (m); j_++) {                              \
            const T *q_ = (const T *)((p) + j_ * (rs));                     \
            VARG_ONE(NAME, N, q_, n, pf_, idx0, &(res)[j_], PUT);           \
        }                                                                   \
        return;                                                             \
    }
#else
#define DEF_VARG512(NAME, CMP, N, T, IT, FNAN)
#define VARG_TRY(NAME, N, q, n, idx0, res, PUT)
#define VARG_ROWS_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)
#endif
/* Note [Argmax of short rows]
 * Without AVX-512, argmax/argmin of a row longer than the unrolled tiny
 * rows (Note [Extrema of tiny rows]) went through the vector extreme and
 * then the vector find, each with the setup, the unrolled steps and the
 * tails meant for long rows: about 30 ns a row of 17-24 int32 (one thread,
 * Zen 3: argmax(dim=1) of (2^23 / 17, 17) int32 15.0 ms, PyTorch 7.6).
 * Rows of at most SROW_MAX vectors here take one accumulator of one
 * vector, steps of a vector (the last ending at the row's end,
 * overlapping the one before: harmless for an extreme), the extreme
 * folded across the lanes in three permutes so every lane holds it, then
 * the same steps again comparing for equality until the first vector
 * holding it (a step that overlaps the one before sees again only
 * elements that the step before found unequal).  A row with a NaN answers
 * -1 and the caller finds its first NaN.  AVX2 only: the baseline clone
 * keeps the long-row pair; AVX-512 has the one-pass argmax. */
#ifdef TL_AVX2_DISPATCH
#define SROW_MAX 512
/* Whether NAME##_srows_##N prefetches each row's lines ROW_RUN_PF_AHEAD
 * ahead: contiguous rows of at most SROW_PF_ROW bytes. */
#define SROW_PF_ROW 8192
#define SROW_PFROW(T, rs, n)                                                \
    ((rs) == (n) * (int64_t)sizeof(T) && (rs) <= SROW_PF_ROW &&             \
     reduce_footprint > ROW_RUN_PF_BYTES)
#define SR_V_f32 __m256
#define SR_V_f64 __m256d
#define SR_V_i32 __m256i
#define SR_V_u32 __m256i
#define SR_V_i64 __m256i
#define SR_LD_f32(q) _mm256_loadu_ps(q)
#define SR_LD_f64(q) _mm256_loadu_pd(q)
#define SR_LD_i32(q) _mm256_loadu_si256((const __m256i *)(const void *)(q))
#define SR_LD_u32 SR_LD_i32
#define SR_LD_i64 SR_LD_i32
#define SR_max_f32 _mm256_max_ps
#define SR_min_f32 _mm256_min_ps
#define SR_max_f64 _mm256_max_pd
#define SR_min_f64 _mm256_min_pd
#define SR_max_i32 _mm256_max_epi32
#define SR_min_i32 _mm256_min_epi32
#define SR_max_u32 _mm256_max_epu32
#define SR_min_u32 _mm256_min_epu32
#define SR_max_i64(a, b) _mm256_blendv_epi8((b), (a), _mm256_cmpgt_epi64((a), (b)))
#define SR_min_i64(a, b) _mm256_blendv_epi8((b), (a), _mm256_cmpgt_epi64((b), (a)))
/* The lanes equal to b as bits, one bit a lane. */
#define SR_EQ_f32(a, b) _mm256_movemask_ps(_mm256_cmp_ps((a), (b), _CMP_EQ_OQ))
#define SR_EQ_f64(a, b) _mm256_movemask_pd(_mm256_cmp_pd((a), (b), _CMP_EQ_OQ))
#define SR_EQ_i32(a, b)                                                     \
    _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32((a), (b))))
#define SR_EQ_u32 SR_EQ_i32
#define SR_EQ_i64(a, b)                                                     \
    _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64((a), (b))))
/* Whether any lane of a or b is NaN, as bits for the int nn. */
#define SR_NAN2_f32(a, b)                                                   \
    _mm256_movemask_ps(_mm256_cmp_ps((a), (b), _CMP_UNORD_Q))
#define SR_NAN2_f64(a, b)                                                   \
    _mm256_movemask_pd(_mm256_cmp_pd((a), (b), _CMP_UNORD_Q))
#define SR_NAN2_i32(a, b) 0
#define SR_NAN2_u32(a, b) 0
#define SR_NAN2_i64(a, b) 0
#define SR_NAN_f32(x) SR_NAN2_f32(x, x)
#define SR_NAN_f64(x) SR_NAN2_f64(x, x)
#define SR_NAN_i32(x) 0
#define SR_NAN_u32(x) 0
#define SR_NAN_i64(x) 0
/* v with every lane the extreme of v's lanes. */
#define SR_FOLD32(OP, v, PERM2, SHUF)                                       \
    do {                                                                    \
        (v) = OP((v), PERM2((v), (v), 1));                                  \
        (v) = OP((v), SHUF((v), 0x4E));                                     \
        (v) = OP((v), SHUF((v), 0xB1));                                     \
    } while (0)
#define SR_FOLD_f32(OP, v) SR_FOLD32(OP, v, _mm256_permute2f128_ps, _mm256_permute_ps)
#define SR_FOLD_i32(OP, v)                                                  \
    SR_FOLD32(OP, v, _mm256_permute2x128_si256, _mm256_shuffle_epi32)
#define SR_FOLD_u32 SR_FOLD_i32
#define SR_FOLD_f64(OP, v)                                                  \
    do {                                                                    \
        (v) = OP((v), _mm256_permute2f128_pd((v), (v), 1));                 \
        (v) = OP((v), _mm256_permute_pd((v), 0x5));                         \
    } while (0)
#define SR_FOLD_i64(OP, v)                                                  \
    do {                                                                    \
        (v) = OP((v), _mm256_permute2x128_si256((v), (v), 1));              \
        (v) = OP((v), _mm256_shuffle_epi32((v), 0x4E));                     \
    } while (0)
/* NAME##_srows_##N: for each of m contiguous rows of n T (L <= n <=
 * SROW_MAX * L, row j at p + j * rs) the index of the first extreme into
 * res[j].idx, -1 for a row with a NaN. */
#define DEF_SROWS(NAME, N, T)                                               \
    TL_TARGET_AVX2 static void NAME##_srows_##N(const char *p, int64_t m,   \
                                                int64_t rs, int64_t n,      \
                                                int pfrow, int pflane,      \
                                                tl_racc *res)               \
    {                                                                       \
        enum { L = 32 / sizeof(T) };                                        \
        const int64_t rb_ = n * (int64_t)sizeof(T);                         \
        for (int64_t j = 0; j < m; j++) {                                   \
            const T *q = (const T *)(const void *)(p + j * rs);             \
            for (int64_t b_ = 0; pfrow && b_ < rb_; b_ += 64) {             \
                ROW_RUN_PREFETCH((uintptr_t)q + ROW_RUN_PF_AHEAD + b_);     \
            }                                                               \
            SR_V_##N e0 = SR_LD_##N(q), e1 = e0, e2 = e0, e3 = e0;          \
            int nn = SR_NAN_##N(e0);                                        \
            int64_t i = L;                                                  \
            /* four accumulators while four vectors remain (the compare's \
             * latency), then one vector a step */                          \
            for (; i + 4 * L <= n; i += 4 * L) {                            \
                if (pflane) {                                               \
                    VARG_PREFETCH(q + i);                                   \
                    VARG_PREFETCH(q + i + 2 * L);                           \
                }                                                           \
                const SR_V_##N x0 = SR_LD_##N(q + i);                       \
                const SR_V_##N x1 = SR_LD_##N(q + i + L);                   \
                const SR_V_##N x2 = SR_LD_##N(q + i + 2 * L);               \
                const SR_V_##N x3 = SR_LD_##N(q + i + 3 * L);               \
                e0 = SR_##NAME##_##N(x0, e0);                               \
                e1 = SR_##NAME##_##N(x1, e1);                               \
                e2 = SR_##NAME##_##N(x2, e2);                               \
                e3 = SR_##NAME##_##N(x3, e3);                               \
                nn |= SR_NAN2_##N(x0, x1) | SR_NAN2_##N(x2, x3);            \
            }                                                               \
            for (; i < n; i += L) {                                         \
                const SR_V_##N x = SR_LD_##N(q + (i + L <= n ? i : n - L)); \
                e0 = SR_##NAME##_##N(x, e0);                                \
                nn |= SR_NAN2_##N(x, x);                                    \
            }                                                               \
            if (nn) {                                                       \
                res[j].idx = -1;                                            \
                continue;                                                   \
            }                                                               \
            e0 = SR_##NAME##_##N(SR_##NAME##_##N(e0, e1),                   \
                                 SR_##NAME##_##N(e2, e3));                  \
            SR_FOLD_##N(SR_##NAME##_##N, e0);                               \
            for (int64_t i = 0;; i += L) {                                  \
                const int64_t o = i + L <= n ? i : n - L;                   \
                const unsigned hit =                                        \
                    (unsigned)SR_EQ_##N(SR_LD_##N(q + o), e0);              \
                if (hit) {                                                  \
                    res[j].idx = o + __builtin_ctz(hit);                    \
                    break;                                                  \
                }                                                           \
            }                                                               \
        }                                                                   \
    }
/* The short rows of argmax/argmin through NAME##_srows_##N where the CPU
 * has AVX2, their values and indices from idx0 by PUT. */
#define SROWS_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)               \
    if (have_avx2() && (s) == (int64_t)sizeof(T) &&                         \
        (n) >= 32 / (int64_t)sizeof(T) &&                                   \
        (n) <= SROW_MAX * 32 / (int64_t)sizeof(T)) {                        \
        NAME##_srows_##N(p, m, rs, n, SROW_PFROW(T, rs, n), lane_prefetch,  \
                         res);                                              \
        for (int64_t j_ = 0; j_ < (m); j_++) {                              \
            const T *q_ = (const T *)(const void *)((p) + j_ * (rs));       \
            int64_t bi_ = (res)[j_].idx;                                    \
            if (bi_ < 0) {                                                  \
                bi_ = vfindnan_##N(q_, n);                                  \
            }                                                               \
            PUT(&(res)[j_], q_[bi_]);                                       \
            (res)[j_].idx = (idx0) + bi_;                                   \
        }                                                                   \
        return;                                                             \
    }
#else
#define DEF_SROWS(NAME, N, T)
#define SROWS_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)
#endif
/* argmax/argmin of m rows of K elements s bytes apart, K at most 8 (Note
 * [Extrema of tiny rows]): the extreme, then the first element equal to
 * it (a row's selects as branches mispredicted on every other row), the
 * first NaN of a row with one. */
#define ARG_TINY_MAX 8
#define ARG_ROWS_TINY_RUN(K, CMP, T, PUT, FNAN)                             \
    for (int64_t j = 0; j < m; j++) {                                       \
        TINY_ROW_AT(q, j)                                                   \
        T x[ARG_TINY_MAX];                                                  \
        for (int i = 0; i < (K); i++) {                                     \
            memcpy(&x[i], q + i * s, sizeof x[i]);                          \
        }                                                                   \
        T r = x[0];                                                         \
        int f = r != r;                                                     \
        for (int i = 1; i < (K); i++) {                                     \
            r = x[i] CMP r ? x[i] : r;                                      \
            f |= x[i] != x[i];                                              \
        }                                                                   \
        /* the first element equal to the extreme (zeros of either          \
         * sign compare equal): a mask, no branch a step */                 \
        unsigned hit = 0;                                                   \
        for (int i = 0; i < (K); i++) {                                     \
            hit |= (unsigned)(x[i] == r) << i;                              \
        }                                                                   \
        int64_t bi = __builtin_ctz(hit | (1u << (K)));                      \
        if (FNAN && f) {                                                    \
            TINY_FIRST_NAN(T, q, K, s, r, bi)                               \
        }                                                                   \
        PUT(&res[j], r);                                                    \
        res[j].idx = idx0 + bi;                                             \
    }                                                                       \
    return
#define ARG_ROWS_TINY_CASE(K, CMP, T, PUT, FNAN)                            \
    case K:                                                                 \
        ARG_ROWS_TINY_RUN(K, CMP, T, PUT, FNAN)
/* argmax/argmin over m rows rs bytes apart (the driver's rows entry); rows of
 * at most 8 through ARG_ROWS_TINY_CASE. */
#define DEF_ARG_ROWS(NAME, CMP, ARGNAME, N, T, PUT, FNAN, ROWS_TRY,      \
                     SHORT_TRY)                                             \
    static void ARGNAME##_rows_##N(const char *p, int64_t m, int64_t rs,    \
                                   int64_t n, int64_t s, int64_t idx0,      \
                                   const tl_racc *aux, tl_racc *res)        \
    {                                                                       \
        ROW_RUN_PF_DECL(T);                                                 \
        switch (n) {                                                        \
            TINY_CASES_1_8(ARG_ROWS_TINY_CASE, CMP, T, PUT, FNAN)           \
        default:                                                            \
            break;                                                          \
        }                                                                   \
        ROWS_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)                \
        SHORT_TRY(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)               \
        for (int64_t j = 0; j < m; j++) {                                   \
            ARGNAME##_frow_##N(p + j * rs, n, s, idx0,                      \
                               aux != NULL ? aux + j : NULL, &res[j]);      \
        }                                                                   \
    }

#define DEF_VEXT_ALL(VEXT, N, T, IT, PUT, FNAN)                             \
    VEXT(max, >, N, T, IT)                                                  \
    VEXT(min, <, N, T, IT)                                                  \
    DEF_VFIND(N, T)                                                         \
    DEF_VROWS(max, >, argmax, N, T, PUT, NO_VARG, FNAN)                     \
    DEF_VROWS(min, <, argmin, N, T, PUT, NO_VARG, FNAN)                     \
    DEF_ARG_ROWS(max, >, argmax, N, T, PUT, FNAN, NO_VARG_ROWS,              \
                 NO_VARG_ROWS)                                              \
    DEF_ARG_ROWS(min, <, argmin, N, T, PUT, FNAN, NO_VARG_ROWS,              \
                 NO_VARG_ROWS)
#define NO_VARG_ROWS(NAME, N, T, p, m, rs, n, s, idx0, res, PUT)
#define NO_VARG(NAME, N, q, n, idx0, res, PUT)
#define DEF_VEXT_WIDE(VEXT, N, T, IT, PUT, FNAN, SHORT)                     \
    VEXT(max, >, N, T, IT)                                                  \
    VEXT(min, <, N, T, IT)                                                  \
    DEF_VFIND(N, T)                                                         \
    DEF_VARG512(max, >, N, T, IT, FNAN)                                     \
    DEF_VARG512(min, <, N, T, IT, FNAN)                                     \
    DEF_VROWS(max, >, argmax, N, T, PUT, VARG_TRY, FNAN)                    \
    DEF_VROWS(min, <, argmin, N, T, PUT, VARG_TRY, FNAN)                    \
    SHORT##_DEF(max, N, T)                                                  \
    SHORT##_DEF(min, N, T)                                                  \
    DEF_ARG_ROWS(max, >, argmax, N, T, PUT, FNAN, VARG_ROWS_TRY,             \
                 SHORT##_TRY)                                               \
    DEF_ARG_ROWS(min, <, argmin, N, T, PUT, FNAN, VARG_ROWS_TRY,             \
                 SHORT##_TRY)
/* DEF_VEXT_WIDE's SHORT: the short rows of Note [Argmax of short rows], or
 * none (uint64, whose compare AVX2 lacks). */
#define SROWS_DEF DEF_SROWS
#define NO_SROWS_DEF(NAME, N, T)
#define NO_SROWS_TRY NO_VARG_ROWS

/* An integer run holds no NaN (never evaluated: see DEF_VFINDNAN). */
#define vfindnan_u8(q, n) (n)
#define vfindnan_i8(q, n) (n)
#define vfindnan_i16(q, n) (n)
#define vfindnan_u16(q, n) (n)
#define vfindnan_i32(q, n) (n)
#define vfindnan_u32(q, n) (n)
#define vfindnan_i64(q, n) (n)
#define vfindnan_u64(q, n) (n)
DEF_VFINDNAN(f32, float)
DEF_VFINDNAN(f64, double)

DEF_VEXT_ALL(DEF_VEXT, u8, uint8_t, int8_t, PUT_U, 0)
DEF_VEXT_ALL(DEF_VEXT, i8, int8_t, int8_t, PUT_S, 0)
DEF_VEXT_ALL(DEF_VEXT, i16, int16_t, int16_t, PUT_S, 0)
DEF_VEXT_ALL(DEF_VEXT, u16, uint16_t, int16_t, PUT_U, 0)
DEF_VEXT_WIDE(DEF_VEXT_INT, i32, int32_t, int32_t, PUT_S, 0, SROWS)
DEF_VEXT_WIDE(DEF_VEXT_INT, u32, uint32_t, int32_t, PUT_U, 0, SROWS)
DEF_VEXT_WIDE(DEF_VEXT_INT, i64, int64_t, int64_t, PUT_S, 0, SROWS)
DEF_VEXT_WIDE(DEF_VEXT_INT, u64, uint64_t, int64_t, PUT_U, 0, NO_SROWS)
DEF_VEXT_WIDE(DEF_VEXT_FLOAT, f32, float, int32_t, PUT_F, 1, SROWS)
DEF_VEXT_WIDE(DEF_VEXT_FLOAT, f64, double, int64_t, PUT_F, 1, SROWS)

/* bool and the half types keep the generic rows (their loads convert). */
#define max_frow_b max_row_b
#define min_frow_b min_row_b
#define max_frow_f16 max_row_f16
#define min_frow_f16 min_row_f16
#define max_frow_bf16 max_row_bf16
#define min_frow_bf16 min_row_bf16
#define max_rows_b NULL
#define min_rows_b NULL
#define max_rows_f16 NULL
#define min_rows_f16 NULL
#define max_rows_bf16 NULL
#define min_rows_bf16 NULL
#define argmax_rows_b NULL
#define argmin_rows_b NULL
#define argmax_rows_f16 NULL
#define argmin_rows_f16 NULL
#define argmax_rows_bf16 NULL
#define argmin_rows_bf16 NULL
#define argmax_frow_b argmax_row_b
#define argmin_frow_b argmin_row_b
#define argmax_frow_f16 argmax_row_f16
#define argmin_frow_f16 argmin_row_f16
#define argmax_frow_bf16 argmax_row_bf16
#define argmin_frow_bf16 argmin_row_bf16

/* Note [Integer extrema blocks in AVX-512]
 * The 8-row blocks of an integer max/min over far rows (dim 0 of a
 * matrix), 64 bytes of columns a step in AVX-512 registers: a tree of
 * vpmax/vpmin (one instruction a step, where the portable vectors below
 * compare and blend, and the 256-bit steps read half of each row's line
 * at a time).  Integers have no NaN and equal values are identical, so
 * the values are those of the portable kernel.  One thread, Zen 4 EPYC
 * VM, dim 0 of a 2048^2 int32 matrix (16 MiB, in L3): a C model of this
 * step 284-312 us, of NumPy's row-at-a-time max 389-512; tensorlib's
 * numbers are in benchmarks/RESULTS.md (sixteenth session).  Returns the
 * columns done (a multiple of the register's lanes); the caller does
 * the rest. */
#ifdef TL_AVX2_DISPATCH
#define DEF_VZCOLS8(NAME, N, T, OPI)                                        \
    TL_TARGET_AVX512 static int64_t NAME##_cols8z_##N(T *m,                  \
                                                      const T *const *q,    \
                                                      int64_t n)            \
    {                                                                       \
        enum { L = 64 / sizeof(T) };                                        \
        int64_t j = 0;                                                      \
        for (; n - j >= L; j += L) {                                        \
            const __m512i a = OPI(                                          \
                OPI(OPI(_mm512_loadu_si512(q[0] + j),                       \
                        _mm512_loadu_si512(q[1] + j)),                      \
                    OPI(_mm512_loadu_si512(q[2] + j),                       \
                        _mm512_loadu_si512(q[3] + j))),                     \
                OPI(OPI(_mm512_loadu_si512(q[4] + j),                       \
                        _mm512_loadu_si512(q[5] + j)),                      \
                    OPI(_mm512_loadu_si512(q[6] + j),                       \
                        _mm512_loadu_si512(q[7] + j))));                    \
            _mm512_storeu_si512(m + j, OPI(_mm512_loadu_si512(m + j), a));  \
        }                                                                   \
        return j;                                                           \
    }
#define DEF_VZCOLS8_BOTH(N, T, S)                                           \
    DEF_VZCOLS8(max, N, T, _mm512_max_##S)                                  \
    DEF_VZCOLS8(min, N, T, _mm512_min_##S)
DEF_VZCOLS8_BOTH(u8, uint8_t, epu8)
DEF_VZCOLS8_BOTH(i8, int8_t, epi8)
DEF_VZCOLS8_BOTH(u16, uint16_t, epu16)
DEF_VZCOLS8_BOTH(i16, int16_t, epi16)
DEF_VZCOLS8_BOTH(u32, uint32_t, epu32)
DEF_VZCOLS8_BOTH(i32, int32_t, epi32)
DEF_VZCOLS8_BOTH(u64, uint64_t, epu64)
DEF_VZCOLS8_BOTH(i64, int64_t, epi64)
#define VZCOLS8_INT(NAME, N, m, q, n)                                       \
    (have_avx512() ? NAME##_cols8z_##N((m), (q), (n)) : 0)
#else
#define VZCOLS8_INT(NAME, N, m, q, n) 0
#endif
/* VZCOLS8_NAME_N(m, q, n): the columns an AVX-512 block step did (0 for
 * floats, whose NaNs and signed zeros take the portable compare). */
#define VZCOLS8_max_u8(m, q, n) VZCOLS8_INT(max, u8, m, q, n)
#define VZCOLS8_min_u8(m, q, n) VZCOLS8_INT(min, u8, m, q, n)
#define VZCOLS8_max_i8(m, q, n) VZCOLS8_INT(max, i8, m, q, n)
#define VZCOLS8_min_i8(m, q, n) VZCOLS8_INT(min, i8, m, q, n)
#define VZCOLS8_max_u16(m, q, n) VZCOLS8_INT(max, u16, m, q, n)
#define VZCOLS8_min_u16(m, q, n) VZCOLS8_INT(min, u16, m, q, n)
#define VZCOLS8_max_i16(m, q, n) VZCOLS8_INT(max, i16, m, q, n)
#define VZCOLS8_min_i16(m, q, n) VZCOLS8_INT(min, i16, m, q, n)
#define VZCOLS8_max_u32(m, q, n) VZCOLS8_INT(max, u32, m, q, n)
#define VZCOLS8_min_u32(m, q, n) VZCOLS8_INT(min, u32, m, q, n)
#define VZCOLS8_max_i32(m, q, n) VZCOLS8_INT(max, i32, m, q, n)
#define VZCOLS8_min_i32(m, q, n) VZCOLS8_INT(min, i32, m, q, n)
#define VZCOLS8_max_u64(m, q, n) VZCOLS8_INT(max, u64, m, q, n)
#define VZCOLS8_min_u64(m, q, n) VZCOLS8_INT(min, u64, m, q, n)
#define VZCOLS8_max_i64(m, q, n) VZCOLS8_INT(max, i64, m, q, n)
#define VZCOLS8_min_i64(m, q, n) VZCOLS8_INT(min, i64, m, q, n)
#define VZCOLS8_max_f32(m, q, n) 0
#define VZCOLS8_min_f32(m, q, n) 0
#define VZCOLS8_max_f64(m, q, n) 0
#define VZCOLS8_min_f64(m, q, n) 0

/* Cols kernels of max/min over contiguous columns: eight rows fold into
 * the tile's accumulators per pass (a tree of the same compare-and-blend,
 * NaN-propagating at every step), so the accumulators are read and written
 * once per eight rows, as the float32 cols sum does. */
#define MMX(CMP, a, b) ((((b) CMP (a)) | ((b) != (b))) ? (b) : (a))
#define VMMX(CMP, a, b, c)                                                  \
    ((c) = ((b)CMP(a)) | ((b) != (b)),                                      \
     (vt)(((vi)(b) & (c)) | ((vi)(a) & ~(c))))
#define DEF_VCOLS(NAME, CMP, N, T, IT)                                      \
    static TL_ALWAYS_INLINE void NAME##_cols8_##N##_body(                    \
        T *m, const T *q0, const T *q1, const T *q2, const T *q3,           \
        const T *q4, const T *q5, const T *q6, const T *q7, int64_t n)      \
    {                                                                       \
        typedef T vt __attribute__((vector_size(VBYTES)));                  \
        typedef IT vi __attribute__((vector_size(VBYTES)));                 \
        enum { L = VBYTES / sizeof(T) };                                    \
        int64_t j = 0;                                                      \
        for (; j + L <= n; j += L) {                                        \
            vt x0, x1, x2, x3, x4, x5, x6, x7, acc;                         \
            vi c;                                                           \
            memcpy(&x0, q0 + j, VBYTES);                                    \
            memcpy(&x1, q1 + j, VBYTES);                                    \
            memcpy(&x2, q2 + j, VBYTES);                                    \
            memcpy(&x3, q3 + j, VBYTES);                                    \
            memcpy(&x4, q4 + j, VBYTES);                                    \
            memcpy(&x5, q5 + j, VBYTES);                                    \
            memcpy(&x6, q6 + j, VBYTES);                                    \
            memcpy(&x7, q7 + j, VBYTES);                                    \
            memcpy(&acc, m + j, VBYTES);                                    \
            x0 = VMMX(CMP, x0, x1, c);                                      \
            x2 = VMMX(CMP, x2, x3, c);                                      \
            x4 = VMMX(CMP, x4, x5, c);                                      \
            x6 = VMMX(CMP, x6, x7, c);                                      \
            x0 = VMMX(CMP, x0, x2, c);                                      \
            x4 = VMMX(CMP, x4, x6, c);                                      \
            x0 = VMMX(CMP, x0, x4, c);                                      \
            acc = VMMX(CMP, acc, x0, c);                                    \
            memcpy(m + j, &acc, VBYTES);                                    \
        }                                                                   \
        for (; j < n; j++) {                                                \
            const T a = MMX(CMP, q0[j], q1[j]), b = MMX(CMP, q2[j], q3[j]); \
            const T c = MMX(CMP, q4[j], q5[j]), d = MMX(CMP, q6[j], q7[j]); \
            const T e = MMX(CMP, a, b), f = MMX(CMP, c, d);                 \
            m[j] = MMX(CMP, m[j], MMX(CMP, e, f));                          \
        }                                                                   \
    }                                                                       \
    DISPATCHED(NAME##_cols8_##N,                                            \
               (T *m, const T *q0, const T *q1, const T *q2, const T *q3,   \
                const T *q4, const T *q5, const T *q6, const T *q7,         \
                int64_t n),                                                 \
               (m, q0, q1, q2, q3, q4, q5, q6, q7, n))                      \
    static void NAME##_fcols_##N(const char *base, int64_t n, int64_t cs,    \
                                 const tl_rspace *rs, int64_t rb,            \
                                 int64_t re, const tl_racc *aux,             \
                                 tl_racc *res)                               \
    {                                                                       \
        if (NAME##_vstrips_##N(base, n, cs, rs, rb, re, res)) {             \
            return;                                                         \
        }                                                                   \
        if (cs != (int64_t)sizeof(T) || re - rb < 8) {                      \
            NAME##_cols_##N(base, n, cs, rs, rb, re, aux, res);             \
            return;                                                         \
        }                                                                   \
        T m[TILE];                                                          \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        memcpy(m, base + off, (size_t)n * sizeof(T));                       \
        int64_t r = rb;                                                     \
        for (; re - r >= 8; r += 8) {                                       \
            const T *q[8];                                                  \
            ROWS8(T, q, base, rs, idx, off, n);                             \
            const int64_t j = VZCOLS8_##NAME##_##N(m, q, n);                \
            if (j < n) {                                                    \
                NAME##_cols8_##N(m + j, q[0] + j, q[1] + j, q[2] + j,       \
                                 q[3] + j, q[4] + j, q[5] + j, q[6] + j,    \
                                 q[7] + j, n - j);                          \
            }                                                               \
        }                                                                   \
        for (; r < re; r++) {                                               \
            const T *q = (const T *)(base + off);                           \
            for (int64_t j = 0; j < n; j++) {                               \
                m[j] = MMX(CMP, m[j], q[j]);                                \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            PUT##N(&res[j], m[j]);                                          \
        }                                                                   \
    }

/* Max/min over close rows in register strips, as the float32 sums
 * (Note [Float32 cols in register strips]): a strip of K vectors of VB
 * bytes from column col folds rows [rb, re) (at least one) with the
 * NaN-propagating compare-and-blend, in row order; max and min are exact
 * and the fold keeps the first of equal values (a zero of either sign)
 * and the last NaN, as the 8-row tree does, so the strip width (the ISA)
 * changes nothing.  Float types only: dim 1 of (128, 256, 128) float32
 * amin ran at 1.7x PyTorch's time, float64 amax at 1.4x NumPy's. */
#define DEF_VSTRIP(NAME, ATTR, CMP, T, IT, VB, K)                           \
    ATTR static TL_ALWAYS_INLINE void NAME##_body(                           \
        T *restrict out, const char *base, int64_t col, const tl_rspace *rs, \
        int64_t rb, int64_t re)                                              \
    {                                                                       \
        typedef T vt __attribute__((vector_size(VB)));                      \
        typedef IT vi __attribute__((vector_size(VB)));                     \
        enum { L = VB / sizeof(T) };                                        \
        vt a[K];                                                            \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        const T *q = (const T *)(base + off) + col;                         \
        for (int k = 0; k < K; k++) {                                       \
            memcpy(&a[k], q + k * L, VB);                                   \
        }                                                                   \
        for (int64_t r = rb + 1; r < re; r++) {                             \
            off = tl_rspace_next(rs, idx, off);                             \
            q = (const T *)(base + off) + col;                              \
            for (int k = 0; k < K; k++) {                                   \
                vt x;                                                       \
                vi c;                                                       \
                memcpy(&x, q + k * L, VB);                                  \
                a[k] = VMMX(CMP, a[k], x, c);                               \
            }                                                               \
        }                                                                   \
        memcpy(out, a, sizeof a);                                           \
    }
#define VS_PARAMS(T)                                                        \
    (T *restrict out, const char *base, int64_t col, const tl_rspace *rs,   \
     int64_t rb, int64_t re)
#define VS_ARGS (out, base, col, rs, rb, re)
#ifdef TL_AVX2_DISPATCH
#define VS_512(NAME, CMP, N, T, IT)                                         \
    DEF_VSTRIP(NAME##_vs1k_##N, TL_TARGET_AVX512, CMP, T, IT, 64, 16)       \
    TL_TARGET_AVX512 static void NAME##_vs1k_##N VS_PARAMS(T)               \
    {                                                                       \
        NAME##_vs1k_##N##_body VS_ARGS;                                     \
    }                                                                       \
    DEF_VSTRIP(NAME##_vs512_##N, TL_TARGET_AVX512, CMP, T, IT, 64, 8)       \
    TL_TARGET_AVX512 static void NAME##_vs512_##N VS_PARAMS(T)              \
    {                                                                       \
        NAME##_vs512_##N##_body VS_ARGS;                                    \
    }
/* With AVX-512, strips of 1 KiB of each row (16 vectors), then of 512
 * bytes: a strip per row of up to 1 KiB, read once, where narrower
 * strips would come back to the rows. */
#define VS_RUN512(NAME, N, T, m, base, rs, rb, re, j, n)                    \
    do {                                                                    \
        enum { W1_ = 1024 / sizeof(T), W_ = 512 / sizeof(T) };              \
        if (have_avx512()) {                                                \
            for (; (n) - (j) >= W1_; (j) += W1_) {                          \
                NAME##_vs1k_##N((m) + (j), (base), (j), (rs), (rb), (re));  \
            }                                                               \
            for (; (n) - (j) >= W_; (j) += W_) {                            \
                NAME##_vs512_##N((m) + (j), (base), (j), (rs), (rb), (re)); \
            }                                                               \
        }                                                                   \
    } while (0)
#define VS_FOLD_ROWS() (!have_avx512())
#else
#define VS_512(NAME, CMP, N, T, IT)
#define VS_RUN512(NAME, N, T, m, base, rs, rb, re, j, n) ((void)0)
#define VS_FOLD_ROWS() 1
#endif
/* Note [Row folds over close rows]
 * Without AVX-512 a row wider than one strip (8 vectors of 32 bytes) is
 * folded whole into the tile's accumulators, row after row in order (the
 * same blends in the same order: the same bits), so the rows are read as
 * one stream, where the strips came back to every row once a strip.
 * Zen 3, one thread, dim 1 of (128, 256, 128) float64 (four strips a
 * row): amax 5.8-12.7 -> 2.6-2.9 ms, amin 5.8-10.4 -> 2.7-3.0 (NumPy
 * 3.2-3.9); float32 and int32 (two strips), and rows of 1024 elements,
 * within the noise either way.  With AVX-512 the strips of 1 KiB read a
 * row of up to 1 KiB once already (measured there; unchanged).  The
 * float64 sums and products of the float strips (Note [Float32 cols in
 * register strips]) fold float64 rows the same way, in float64 from 0.0
 * or 1.0 in row order as the strips do: the same dim, sum 4.0-4.5 ->
 * 2.3-3.2 ms (NumPy 2.6-3.7), prod 3.5-3.6 -> 2.7-3.0 (NumPy 2.6-3.5).
 * float32 sums and products of more than FOLD_FAR_BYTES (read from
 * memory, not cache) fold the same way, and each fold prefetches (to L1)
 * the row FOLD_AHEAD_ROWS steps ahead: a stream of short rows ends
 * before the hardware prefetchers lock on.  Zen 3, one thread,
 * alternating builds, best of 60 calls, float32 from memory (tl/faster
 * peer, three rounds): dim 1 of (128, 256, 128) sum 1.23-1.27 ->
 * 0.61-0.86, prod 1.03-1.22 -> 0.78-1.02; of (128, 256, 256) sum
 * 1.43-1.54 -> 0.81-0.83; of (64, 256, 512) 1.80-2.06 -> 0.78-0.94.
 * Without the prefetch the folds took 0.91-1.04 of the peers there;
 * fetching 8 rows ahead measured the same as 4; blocks of 2, 4 or 8 rows
 * a fold (fewer accumulator loads and stores) were slower from memory.
 * In cache PyTorch's float32 strips stay ahead (no conversion to
 * float64), and ours beat the folds: (16, 256, 128) 1.2-1.4 of it with
 * the strips, 1.4-2.1 with the folds; (256, 64, 128) (8 MiB) 1.5-1.9,
 * 1.6-2.6.  So smaller float32 reductions keep the strips (the driver
 * passes the footprint: tl_reduce_kernel_footprint); the choice never
 * changes a bit. */
/* NAME##_vstrips_##N: the strips path of NAME##_fcols_##N; returns 0
 * (nothing done) unless the columns are contiguous and the rows close. */
#define DEF_VSTRIPS(NAME, CMP, N, T, IT)                                    \
    DEF_VSTRIP(NAME##_vs_##N, , CMP, T, IT, VBYTES, 8)                      \
    DISPATCHED(NAME##_vs_##N, VS_PARAMS(T), VS_ARGS)                        \
    VS_512(NAME, CMP, N, T, IT)                                             \
    static TL_ALWAYS_INLINE void NAME##_vfold_##N##_body(                    \
        T *restrict m, const T *restrict q, int64_t n)                      \
    {                                                                       \
        for (int64_t k = 0; k < n; k++) {                                   \
            m[k] = MMX(CMP, m[k], q[k]);                                    \
        }                                                                   \
    }                                                                       \
    DISPATCHED(NAME##_vfold_##N,                                            \
               (T *restrict m, const T *restrict q, int64_t n), (m, q, n))  \
    static int NAME##_vstrips_##N(const char *base, int64_t n, int64_t cs,  \
                                  const tl_rspace *rs, int64_t rb,          \
                                  int64_t re, tl_racc *res)                 \
    {                                                                       \
        enum { W = 8 * VBYTES / sizeof(T) };                                \
        if (cs != (int64_t)sizeof(T) || !fstrip_rows(rs) || re <= rb) {     \
            return 0;                                                       \
        }                                                                   \
        T m[TILE];                                                          \
        int64_t j = 0;                                                      \
        VS_RUN512(NAME, N, T, m, base, rs, rb, re, j, n);                   \
        if (n > W && VS_FOLD_ROWS()) {                                      \
            /* Note [Row folds over close rows] */                          \
            j = n;                                                          \
            int64_t idx[TL_MAX_DIMS];                                       \
            int64_t off = tl_rspace_seek(rs, rb, idx);                      \
            memcpy(m, base + off, (size_t)n * sizeof(T));                   \
            for (int64_t r = rb + 1; r < re; r++) {                         \
                off = tl_rspace_next(rs, idx, off);                         \
                NAME##_vfold_##N(m, (const T *)(base + off), n);            \
            }                                                               \
        }                                                                   \
        for (; n - j >= W; j += W) {                                        \
            NAME##_vs_##N(m + j, base, j, rs, rb, re);                      \
        }                                                                   \
        if (j < n) {                                                        \
            /* the last n - j < W columns: one pass, the same order */     \
            int64_t idx[TL_MAX_DIMS];                                       \
            int64_t off = tl_rspace_seek(rs, rb, idx);                      \
            memcpy(m + j, base + off + j * (int64_t)sizeof(T),              \
                   (size_t)(n - j) * sizeof(T));                            \
            for (int64_t r = rb + 1; r < re; r++) {                         \
                off = tl_rspace_next(rs, idx, off);                         \
                const T *q = (const T *)(base + off);                       \
                for (int64_t k = j; k < n; k++) {                           \
                    m[k] = MMX(CMP, m[k], q[k]);                            \
                }                                                           \
            }                                                               \
        }                                                                   \
        for (int64_t k = 0; k < n; k++) {                                   \
            PUT##N(&res[k], m[k]);                                          \
        }                                                                   \
        return 1;                                                           \
    }
#define PUTu8 PUT_U
#define PUTi8 PUT_S
#define PUTi16 PUT_S
#define PUTu16 PUT_U
#define PUTi32 PUT_S
#define PUTu32 PUT_U
#define PUTi64 PUT_S
#define PUTu64 PUT_U
#define PUTf32 PUT_F
#define PUTf64 PUT_F
/* Every real dtype's max/min takes the strips over close rows: integers
 * too, whose 8-row tree stores its accumulators once a block (int32 dim 1
 * of (128, 256, 128), one thread: amax 0.47 -> 0.35 ms, amin 0.55 -> 0.29
 * ms). */
#define DEF_VCOLS_BOTH(N, T, IT)                                            \
    DEF_VSTRIPS(max, >, N, T, IT)                                           \
    DEF_VSTRIPS(min, <, N, T, IT)                                           \
    DEF_VCOLS(max, >, N, T, IT)                                             \
    DEF_VCOLS(min, <, N, T, IT)
DEF_VCOLS_BOTH(u8, uint8_t, int8_t)
DEF_VCOLS_BOTH(i8, int8_t, int8_t)
DEF_VCOLS_BOTH(i16, int16_t, int16_t)
DEF_VCOLS_BOTH(u16, uint16_t, int16_t)
DEF_VCOLS_BOTH(i32, int32_t, int32_t)
DEF_VCOLS_BOTH(u32, uint32_t, int32_t)
DEF_VCOLS_BOTH(i64, int64_t, int64_t)
DEF_VCOLS_BOTH(u64, uint64_t, int64_t)
DEF_VCOLS_BOTH(f32, float, int32_t)
DEF_VCOLS_BOTH(f64, double, int64_t)
#define max_fcols_b max_cols_b
#define min_fcols_b min_cols_b
#define max_fcols_f16 max_cols_f16
#define min_fcols_f16 min_cols_f16
#define max_fcols_bf16 max_cols_bf16
#define min_fcols_bf16 min_cols_bf16
/* argmax/argmin keep their cols kernels (they track indices). */
#define argmax_fcols_b argmax_cols_b
#define argmin_fcols_b argmin_cols_b
#define argmax_fcols_u8 argmax_cols_u8
#define argmin_fcols_u8 argmin_cols_u8
#define argmax_fcols_i8 argmax_cols_i8
#define argmin_fcols_i8 argmin_cols_i8
#define argmax_fcols_i16 argmax_cols_i16
#define argmin_fcols_i16 argmin_cols_i16
#define argmax_fcols_u16 argmax_cols_u16
#define argmin_fcols_u16 argmin_cols_u16
#define argmax_fcols_i32 argmax_cols_i32
#define argmin_fcols_i32 argmin_cols_i32
#define argmax_fcols_u32 argmax_cols_u32
#define argmin_fcols_u32 argmin_cols_u32
#define argmax_fcols_i64 argmax_cols_i64
#define argmin_fcols_i64 argmin_cols_i64
#define argmax_fcols_u64 argmax_cols_u64
#define argmin_fcols_u64 argmin_cols_u64
#define argmax_fcols_f16 argmax_cols_f16
#define argmin_fcols_f16 argmin_cols_f16
#define argmax_fcols_bf16 argmax_cols_bf16
#define argmin_fcols_bf16 argmin_cols_bf16
#define argmax_fcols_f32 argmax_cols_f32
#define argmin_fcols_f32 argmin_cols_f32
#define argmax_fcols_f64 argmax_cols_f64
#define argmin_fcols_f64 argmin_cols_f64

/* ---- aminmax ------------------------------------------------------------- */

/* Note [Aminmax in one read]
 * aminmax was amin and then amax, two passes, and past the last-level
 * cache each pass runs at memory speed: float64 of 2^22 (32 MiB) took
 * 1.6x PyTorch's one-pass time, int32 (16 MiB) 1.9x.  The pair family
 * reads each element once and keeps both.  int32, uint32, float32 and
 * float64 with AVX2 or AVX-512 take fused kernels (DEF_PAIRK):
 * - contiguous rows: min and max vectors over the same loads
 *   (vminps/vpminsd and friends), from the first aligned element, and
 *   one NaN flag; when the flag is set both results are the row's first
 *   NaN, as amin's and amax's vector rows give;
 * - contiguous cols: blocks of 8 rows loaded once and folded by a min
 *   tree and a max tree into two tile accumulators, then the rows left
 *   one at a time; a NaN flag in the vector columns sends the tile to
 *   the exact two-kernel path.
 * Otherwise (strided rows or cols, the other dtypes, no AVX2) the min
 * kernel and then the max kernel: rows in pieces of PAIR_ROW_BYTES, so
 * that the second read comes from cache, cols over the whole run of
 * rows, two passes as before.
 * Every value is the one amin and amax give (both are exact; of equal
 * values the first is kept, a zero of either sign; a NaN propagates,
 * which NaN's payload may differ).  The record holds the min in v slot 0
 * and the max in slot 1, each as the single-kernel record would (d, s or
 * u). */
#define PAIR_ROW_BYTES ((int64_t)64 << 10)

typedef void (*pair_row_fn)(const char *, int64_t, int64_t, int64_t,
                            const tl_racc *, tl_racc *);
typedef void (*pair_cols_fn)(const char *, int64_t, int64_t,
                             const tl_rspace *, int64_t, int64_t,
                             const tl_racc *, tl_racc *);
typedef void (*pair_comb_fn)(tl_racc *, const tl_racc *);

/* Slot 0 of a fresh record holding v. */
static inline tl_racc pair_slot(uint64_t v)
{
    tl_racc t;
    memset(&t, 0, sizeof t);
    t.v.u[0] = v;
    return t;
}

static void pair_comb(pair_comb_fn cmin, pair_comb_fn cmax, tl_racc *a,
                      const tl_racc *b)
{
    tl_racc lo = pair_slot(a->v.u[0]), hi = pair_slot(a->v.u[1]);
    const tl_racc blo = pair_slot(b->v.u[0]), bhi = pair_slot(b->v.u[1]);
    cmin(&lo, &blo);
    cmax(&hi, &bhi);
    a->v.u[0] = lo.v.u[0];
    a->v.u[1] = hi.v.u[0];
}

/* The two-kernel row: rmin and rmax over pieces of PAIR_ROW_BYTES. */
static void pair_row(pair_row_fn rmin, pair_row_fn rmax, pair_comb_fn cmin,
                     pair_comb_fn cmax, int64_t isz, const char *p, int64_t n,
                     int64_t s, tl_racc *res)
{
    const int64_t step = s > isz ? s : s < -isz ? -s : isz;
    int64_t piece = PAIR_ROW_BYTES / step;
    if (piece < 64) {
        piece = 64;
    }
    tl_racc lo = pair_slot(0), hi = pair_slot(0);
    for (int64_t i = 0; i < n; i += piece) {
        const int64_t m = n - i < piece ? n - i : piece;
        tl_racc a, b;
        rmin(p + i * s, m, s, 0, NULL, &a);
        rmax(p + i * s, m, s, 0, NULL, &b);
        if (i == 0) {
            lo = pair_slot(a.v.u[0]);
            hi = pair_slot(b.v.u[0]);
        } else {
            cmin(&lo, &a);
            cmax(&hi, &b);
        }
    }
    memset(res, 0, sizeof *res);
    res->v.u[0] = lo.v.u[0];
    res->v.u[1] = hi.v.u[0];
}

/* The two-kernel cols: kmin, then kmax, over rows [rb, re). */
static void pair_cols(pair_cols_fn kmin, pair_cols_fn kmax, const char *base,
                      int64_t n, int64_t cs, const tl_rspace *rs, int64_t rb,
                      int64_t re, tl_racc *res)
{
    tl_racc t[TILE];
    kmax(base, n, cs, rs, rb, re, NULL, t);
    kmin(base, n, cs, rs, rb, re, NULL, res);
    for (int64_t j = 0; j < n; j++) {
        const uint64_t lo = res[j].v.u[0];
        memset(&res[j], 0, sizeof res[j]);
        res[j].v.u[0] = lo;
        res[j].v.u[1] = t[j].v.u[0];
    }
}

/* Stores lo and hi (T) as slots 0 and 1 of *res through PUT. */
#define PAIR_PUT(PUT, res, lo, hi)                                          \
    do {                                                                    \
        tl_racc t_;                                                         \
        memset((res), 0, sizeof *(res));                                    \
        PUT(&t_, lo);                                                       \
        (res)->v.u[0] = t_.v.u[0];                                          \
        PUT(&t_, hi);                                                       \
        (res)->v.u[1] = t_.v.u[0];                                          \
    } while (0)

#define DEF_AMINMAX_COMMON(N)                                               \
    static void aminmax_comb_##N(tl_racc *a, const tl_racc *b)               \
    {                                                                       \
        pair_comb(min_comb_##N, max_comb_##N, a, b);                        \
    }

/* bool and the half types: the two-kernel paths only. */
#define DEF_AMINMAX_GENERIC(N, T)                                           \
    DEF_AMINMAX_COMMON(N)                                                   \
    static void aminmax_row_##N(const char *p, int64_t n, int64_t s,         \
                                int64_t idx0, const tl_racc *aux,            \
                                tl_racc *res)                                \
    {                                                                       \
        (void)idx0;                                                         \
        (void)aux;                                                          \
        pair_row(min_frow_##N, max_frow_##N, min_comb_##N, max_comb_##N,    \
                 (int64_t)sizeof(T), p, n, s, res);                         \
    }                                                                       \
    static void aminmax_cols_##N(const char *base, int64_t n, int64_t cs,    \
                                 const tl_rspace *rs, int64_t rb,            \
                                 int64_t re, const tl_racc *aux,             \
                                 tl_racc *res)                               \
    {                                                                       \
        (void)aux;                                                          \
        pair_cols(min_fcols_##N, max_fcols_##N, base, n, cs, rs, rb, re,    \
                  res);                                                     \
    }

/* The fused kernels of one vector width (Note [Aminmax in one read]).
 * VMIN(x, m) / VMAX(x, m): x < m ? x : m (x > m): vminps/vpminsd and
 * friends, which keep m on ties and give m when either is NaN, so the
 * NaN flag (NT: NACC ORs an unordered compare of two vectors into it,
 * NANY tests it) decides and a NaN run is redone by the exact paths.
 * NAME##_r: a contiguous row, returns the NaN flag; NAME##_c8: 8 rows of
 * n columns folded into lo / hi, returns the columns done (a multiple
 * of L) and ORs the NaN flag into *nan. */
#define DEF_PAIRK(NAME, ATTR, T, VT, L, LOAD, STORE, VMIN, VMAX, NT, NINIT,  \
                  NACC, NANY)                                               \
    ATTR static int NAME##_r(const T *q, int64_t n, T *plo, T *phi)         \
    {                                                                       \
        T rl = q[0], rh = q[0];                                             \
        int f = 0;                                                          \
        /* up to the vector's alignment one at a time: a load that     */   \
        /* splits two cache lines costs two (NumPy's buffers start 16  */   \
        /* bytes into a line; int32 of 2^22 in L3, views of one buffer */   \
        /* at 16-48 bytes: 281-301 -> 244-251 us, aligned 229-249)     */   \
        int64_t i = (int64_t)((0u - (uintptr_t)q) % sizeof(VT)) /          \
                    (int64_t)sizeof(T);                                     \
        if ((uintptr_t)q % sizeof(T) != 0 || i > n) {                       \
            i = 0;                                                          \
        }                                                                   \
        for (int64_t k = 1; k < i; k++) {                                   \
            const T x = q[k];                                               \
            rl = x < rl ? x : rl;                                           \
            rh = x > rh ? x : rh;                                           \
            f |= x != x;                                                    \
        }                                                                   \
        if (n - i >= 4 * L) {                                               \
            q += i;                                                         \
            n -= i;                                                         \
            i = 0;                                                          \
            const T hl = rl, hh = rh;                                       \
            VT l0 = LOAD(q), l1 = LOAD(q + L);                              \
            VT l2 = LOAD(q + 2 * L), l3 = LOAD(q + 3 * L);                  \
            VT h0 = l0, h1 = l1, h2 = l2, h3 = l3;                          \
            NT nn = NINIT;                                                  \
            NACC(nn, l0, l1);                                               \
            NACC(nn, l2, l3);                                               \
            for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {                   \
                PREFETCH_AHEAD(q + i);                                      \
                PREFETCH_AHEAD(q + i + 2 * L);                              \
                const VT x0 = LOAD(q + i), x1 = LOAD(q + i + L);            \
                const VT x2 = LOAD(q + i + 2 * L);                          \
                const VT x3 = LOAD(q + i + 3 * L);                          \
                l0 = VMIN(x0, l0);                                          \
                l1 = VMIN(x1, l1);                                          \
                l2 = VMIN(x2, l2);                                          \
                l3 = VMIN(x3, l3);                                          \
                h0 = VMAX(x0, h0);                                          \
                h1 = VMAX(x1, h1);                                          \
                h2 = VMAX(x2, h2);                                          \
                h3 = VMAX(x3, h3);                                          \
                NACC(nn, x0, x1);                                           \
                NACC(nn, x2, x3);                                           \
            }                                                               \
            l0 = VMIN(VMIN(l3, l2), VMIN(l1, l0));                          \
            h0 = VMAX(VMAX(h3, h2), VMAX(h1, h0));                          \
            T a[L], b[L];                                                   \
            STORE(a, l0);                                                   \
            STORE(b, h0);                                                   \
            rl = a[0];                                                      \
            rh = b[0];                                                      \
            for (int k = 1; k < L; k++) {                                   \
                rl = a[k] < rl ? a[k] : rl;                                 \
                rh = b[k] > rh ? b[k] : rh;                                 \
            }                                                               \
            /* the head's (earlier elements) on ties */                    \
            rl = rl < hl ? rl : hl;                                         \
            rh = rh > hh ? rh : hh;                                         \
            f |= NANY(nn);                                                  \
        }                                                                   \
        for (; i < n; i++) {                                                \
            const T x = q[i];                                               \
            rl = x < rl ? x : rl;                                           \
            rh = x > rh ? x : rh;                                           \
            f |= x != x;                                                    \
        }                                                                   \
        *plo = rl;                                                          \
        *phi = rh;                                                          \
        return f;                                                           \
    }                                                                       \
    ATTR static int64_t NAME##_c8(T *lo, T *hi, const T *const *q,          \
                                  int64_t n, int *nan)                      \
    {                                                                       \
        NT nn = NINIT;                                                      \
        int64_t j = 0;                                                      \
        for (; j + L <= n; j += L) {                                        \
            const VT x0 = LOAD(q[0] + j), x1 = LOAD(q[1] + j);              \
            const VT x2 = LOAD(q[2] + j), x3 = LOAD(q[3] + j);              \
            const VT x4 = LOAD(q[4] + j), x5 = LOAD(q[5] + j);              \
            const VT x6 = LOAD(q[6] + j), x7 = LOAD(q[7] + j);              \
            NACC(nn, x0, x1);                                               \
            NACC(nn, x2, x3);                                               \
            NACC(nn, x4, x5);                                               \
            NACC(nn, x6, x7);                                               \
            const VT l = VMIN(VMIN(VMIN(x7, x6), VMIN(x5, x4)),             \
                              VMIN(VMIN(x3, x2), VMIN(x1, x0)));            \
            const VT h = VMAX(VMAX(VMAX(x7, x6), VMAX(x5, x4)),             \
                              VMAX(VMAX(x3, x2), VMAX(x1, x0)));            \
            STORE(lo + j, VMIN(l, LOAD(lo + j)));                           \
            STORE(hi + j, VMAX(h, LOAD(hi + j)));                           \
        }                                                                   \
        *nan |= NANY(nn);                                                   \
        return j;                                                           \
    }

#ifdef TL_AVX2_DISPATCH
#define PK_NONE_T int
#define PK_NONE_INIT 0
#define PK_NONE_ACC(nn, a, b) ((void)0)
#define PK_NONE_ANY(nn) ((void)(nn), 0)
#define PK_PS_ACC(nn, a, b) ((nn) = _mm256_or_ps((nn), _mm256_cmp_ps((a), (b), \
                                                              _CMP_UNORD_Q)))
#define PK_PD_ACC(nn, a, b) ((nn) = _mm256_or_pd((nn), _mm256_cmp_pd((a), (b), \
                                                              _CMP_UNORD_Q)))
#define PK_Z_ACC_PS(nn, a, b) ((nn) |= _mm512_cmp_ps_mask((a), (b), _CMP_UNORD_Q))
#define PK_Z_ACC_PD(nn, a, b) ((nn) |= _mm512_cmp_pd_mask((a), (b), _CMP_UNORD_Q))
#define PK_MASK_ANY(nn) ((nn) != 0)
#define PK_LDI(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define PK_STI(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define PK_LDZ(p) _mm512_loadu_si512((const void *)(p))
#define PK_STZ(p, v) _mm512_storeu_si512((void *)(p), (v))
/* Both widths of one dtype.  S2 / SZ: the AVX2 / AVX-512 suffix. */
#define DEF_PAIRK_INT(N, T, S2, SZ)                                         \
    DEF_PAIRK(pk2_##N, TL_TARGET_AVX2, T, __m256i, (int)(32 / sizeof(T)),   \
              PK_LDI, PK_STI, _mm256_min_##S2, _mm256_max_##S2, PK_NONE_T,  \
              PK_NONE_INIT, PK_NONE_ACC, PK_NONE_ANY)                       \
    DEF_PAIRK(pkz_##N, TL_TARGET_AVX512, T, __m512i, (int)(64 / sizeof(T)), \
              PK_LDZ, PK_STZ, _mm512_min_##SZ, _mm512_max_##SZ, PK_NONE_T,  \
              PK_NONE_INIT, PK_NONE_ACC, PK_NONE_ANY)
DEF_PAIRK_INT(i32, int32_t, epi32, epi32)
DEF_PAIRK_INT(u32, uint32_t, epu32, epu32)
DEF_PAIRK(pk2_f32, TL_TARGET_AVX2, float, __m256, 8, _mm256_loadu_ps,
          _mm256_storeu_ps, _mm256_min_ps, _mm256_max_ps, __m256,
          _mm256_setzero_ps(), PK_PS_ACC, _mm256_movemask_ps)
DEF_PAIRK(pkz_f32, TL_TARGET_AVX512, float, __m512, 16, _mm512_loadu_ps,
          _mm512_storeu_ps, _mm512_min_ps, _mm512_max_ps, __mmask16, 0,
          PK_Z_ACC_PS, PK_MASK_ANY)
DEF_PAIRK(pk2_f64, TL_TARGET_AVX2, double, __m256d, 4, _mm256_loadu_pd,
          _mm256_storeu_pd, _mm256_min_pd, _mm256_max_pd, __m256d,
          _mm256_setzero_pd(), PK_PD_ACC, _mm256_movemask_pd)
DEF_PAIRK(pkz_f64, TL_TARGET_AVX512, double, __m512d, 8, _mm512_loadu_pd,
          _mm512_storeu_pd, _mm512_min_pd, _mm512_max_pd, __mmask8, 0,
          PK_Z_ACC_PD, PK_MASK_ANY)
/* Which fused width runs: 2 (AVX-512), 1 (AVX2) or 0 (none: the
 * two-kernel paths). */
static inline int pk_level(void)
{
    return have_avx512() ? 2 : have_avx2() ? 1 : 0;
}
#define PK_ROW(N, q, n, lo, hi)                                             \
    (pk_level() == 2 ? pkz_##N##_r((q), (n), (lo), (hi))                    \
                     : pk2_##N##_r((q), (n), (lo), (hi)))
#define PK_C8(N, lo, hi, q, n, nan)                                         \
    (pk_level() == 2 ? pkz_##N##_c8((lo), (hi), (q), (n), (nan))            \
                     : pk2_##N##_c8((lo), (hi), (q), (n), (nan)))
#else
static inline int pk_level(void) { return 0; }
#define PK_ROW(N, q, n, lo, hi) 0
#define PK_C8(N, lo, hi, q, n, nan) 0
#endif

/* The fused types (Note [Aminmax in one read]): i32, u32, f32, f64. */
#define DEF_AMINMAX_VEC(N, T, FNAN)                                         \
    DEF_AMINMAX_COMMON(N)                                                   \
    static void aminmax_row_##N(const char *p, int64_t n, int64_t s,         \
                                int64_t idx0, const tl_racc *aux,            \
                                tl_racc *res)                                \
    {                                                                       \
        (void)idx0;                                                         \
        (void)aux;                                                          \
        if (s != (int64_t)sizeof(T) || pk_level() == 0) {                   \
            pair_row(min_frow_##N, max_frow_##N, min_comb_##N,              \
                     max_comb_##N, (int64_t)sizeof(T), p, n, s, res);       \
            return;                                                         \
        }                                                                   \
        const T *q = (const T *)p;                                          \
        T lo = q[0], hi = q[0];                                             \
        const int nan_ = PK_ROW(N, q, n, &lo, &hi);                         \
        XROW_FIRST(N, FNAN, q, n, nan_, lo);                                \
        XROW_FIRST(N, FNAN, q, n, nan_, hi);                                \
        PAIR_PUT(PUT##N, res, lo, hi);                                      \
    }                                                                       \
    static void aminmax_cols_##N(const char *base, int64_t n, int64_t cs,    \
                                 const tl_rspace *rs, int64_t rb,            \
                                 int64_t re, const tl_racc *aux,             \
                                 tl_racc *res)                               \
    {                                                                       \
        (void)aux;                                                          \
        if (cs != (int64_t)sizeof(T) || re - rb < 8 || pk_level() == 0) {   \
            pair_cols(min_fcols_##N, max_fcols_##N, base, n, cs, rs, rb,    \
                      re, res);                                             \
            return;                                                         \
        }                                                                   \
        T lo[TILE], hi[TILE];                                               \
        int64_t idx[TL_MAX_DIMS];                                           \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        memcpy(lo, base + off, (size_t)n * sizeof(T));                      \
        memcpy(hi, base + off, (size_t)n * sizeof(T));                      \
        int nan = 0;                                                        \
        int64_t r = rb;                                                     \
        for (; re - r >= 8; r += 8) {                                       \
            const T *q[8];                                                  \
            ROWS8(T, q, base, rs, idx, off, n);                             \
            const int64_t j = PK_C8(N, lo, hi, q, n, &nan);                 \
            for (int64_t k = j; k < n; k++) {                               \
                for (int b = 0; b < 8; b++) {                               \
                    lo[k] = MMX(<, lo[k], q[b][k]);                         \
                    hi[k] = MMX(>, hi[k], q[b][k]);                         \
                }                                                           \
            }                                                               \
        }                                                                   \
        for (; r < re; r++) {                                               \
            const T *q = (const T *)(base + off);                           \
            for (int64_t j = 0; j < n; j++) {                               \
                lo[j] = MMX(<, lo[j], q[j]);                                \
                hi[j] = MMX(>, hi[j], q[j]);                                \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        if (nan) {                                                          \
            /* a NaN in the vector columns: the exact two-kernel path */   \
            pair_cols(min_fcols_##N, max_fcols_##N, base, n, cs, rs, rb,    \
                      re, res);                                             \
            return;                                                         \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            PAIR_PUT(PUT##N, &res[j], lo[j], hi[j]);                        \
        }                                                                   \
    }
DEF_AMINMAX_GENERIC(b, uint8_t)
DEF_AMINMAX_GENERIC(u8, uint8_t)
DEF_AMINMAX_GENERIC(i8, int8_t)
DEF_AMINMAX_GENERIC(i16, int16_t)
DEF_AMINMAX_GENERIC(u16, uint16_t)
DEF_AMINMAX_VEC(i32, int32_t, 0)
DEF_AMINMAX_VEC(u32, uint32_t, 0)
DEF_AMINMAX_GENERIC(i64, int64_t)
DEF_AMINMAX_GENERIC(u64, uint64_t)
DEF_AMINMAX_GENERIC(f16, uint16_t)
DEF_AMINMAX_GENERIC(bf16, uint16_t)
DEF_AMINMAX_VEC(f32, float, 1)
DEF_AMINMAX_VEC(f64, double, 1)

/* ---- any / all ----------------------------------------------------------- */

/* Nonzero tests: NaN is nonzero; float16/bfloat16 by their bits (either
 * zero has only the sign bit set); complex when either part is nonzero. */
#define NZ_ID(x) ((x) != 0)
#define NZ_H(x) (((x) & 0x7fffu) != 0)
#define NZ_C(x) (((const float *)&(x))[0] != 0 || ((const float *)&(x))[1] != 0)
#define NZ_Z(x)                                                             \
    (((const double *)&(x))[0] != 0 || ((const double *)&(x))[1] != 0)

/* any: OP |, identity 0, stop at 1; all: OP &, identity 1, stop at 0.
 * Contiguous runs go in blocks of ANYALL_BLOCK bytes with an early exit
 * between them, inside one call: NAME##_blk_##N(q, e, out): *out = the OP
 * of the nonzero tests of q[0..e) (a call per block was 83 us for any()
 * of 4M false bools, one thread, against 53 now; NumPy 63).  Real dtypes
 * test a vector at a time (x != 0 gives lanes of 0 or all ones; any:
 * some bit set, all: every bit set), so a block is read at memory speed:
 * any() of 4M false bools, one thread, Zen 4: 268 -> 51 us, all() of 4M
 * true ones 273 -> 50 us (NumPy 62); the unsigned accumulator widened
 * each byte to 32 bits before.  all() looks for a zero lane rather than
 * ANDing nonzero tests: one compare and OR a vector either way (an AND
 * of x != 0 took 79 us).  any() ORs the elements' bits, with a float's
 * sign bit masked off (-0.0 is zero; a NaN or a subnormal has magnitude
 * bits and is nonzero, as x != 0 says): gcc compiled the OR of x != 0 to
 * a compare and a blend chained through the accumulator, and any() of
 * 4M false bools took 139-146 us (Zen 4; all() of true ones 54-80, NumPy
 * 76-80), and 51-52 us this way (NumPy 59-62).
 *
 * Note [Any/all first vector]
 * A run of 8 vectors or more tests its first vector alone before the
 * blocks: a row decided at its start (random bools) then reads 32 bytes,
 * not a whole block.  any/all over dim 1 of random bools (2048, 2048),
 * one thread, Zen 3: 82-95 -> 23-25 us (NumPy 91-96); of all-false or
 * all-true rows unchanged (87-92 us, NumPy 125-139).  Shorter runs keep
 * one block: a second test per row showed in rows of 64 bools. */
#define ANYALL_BLOCK 4096
#define DEF_ANYALL_BLK_V(NAME, OP, ID, N, T, IT)                            \
    static TL_ALWAYS_INLINE void NAME##_blk_##N##_body(                      \
        const T *q, int64_t e, unsigned *out)                                \
    {                                                                       \
        typedef T vt __attribute__((vector_size(VBYTES)));                  \
        typedef IT vi __attribute__((vector_size(VBYTES)));                 \
        enum { L = VBYTES / sizeof(T), B_ = ANYALL_BLOCK / sizeof(T) };     \
        int64_t k = 0;                                                      \
        int64_t blk = e >= 8 * L ? L : B_; /* Note [Any/all first vector] */\
        /* the bits an element is nonzero by: all but a float's sign */    \
        const IT mag = (T)0.5 != 0                                          \
                           ? (IT)(((uint64_t)1 << (8 * sizeof(IT) - 1)) - 1) \
                           : (IT)-1;                                        \
        while (k + L <= e) {                                                \
            const int64_t stop = e - k > blk ? k + blk : k + (e - k) / L * L; \
            blk = B_;                                                       \
            /* any: bits of nonzero lanes; all: lanes that are zero */      \
            vi m = {0};                                                     \
            for (; k < stop; k += L) {                                      \
                vt x;                                                       \
                memcpy(&x, q + k, VBYTES);                                  \
                if (ID) {                                                   \
                    m |= (vi)(x == 0);                                      \
                } else {                                                    \
                    vi u;                                                   \
                    memcpy(&u, &x, VBYTES);                                 \
                    m |= u & mag;                                           \
                }                                                           \
            }                                                               \
            uint64_t w[VBYTES / 8];                                         \
            memcpy(w, &m, VBYTES);                                          \
            uint64_t f = 0;                                                 \
            for (int l = 0; l < VBYTES / 8; l++) {                          \
                f |= w[l];                                                  \
            }                                                               \
            if (f != 0) { /* decided: a nonzero (any), a zero (all) */      \
                *out = !(ID);                                               \
                return;                                                     \
            }                                                               \
        }                                                                   \
        unsigned b = ID;                                                    \
        for (; k < e; k++) {                                                \
            b OP## = (unsigned)(q[k] != 0);                                 \
        }                                                                   \
        *out = b;                                                           \
    }                                                                       \
    DISPATCHED(NAME##_blk_##N, (const T *q, int64_t e, unsigned *out),      \
               (q, e, out))
#define DEF_ANYALL_BLK_S(NAME, OP, ID, N, T, NZ)                            \
    static void NAME##_blk_##N(const T *q, int64_t e, unsigned *out)         \
    {                                                                       \
        enum { B_ = ANYALL_BLOCK / sizeof(T) };                             \
        unsigned b = ID;                                                    \
        for (int64_t i = 0; i < e && b == ID; i += B_) {                    \
            const int64_t stop = e - i < B_ ? e : i + B_;                   \
            for (int64_t k = i; k < stop; k++) {                            \
                b OP## = (unsigned)NZ(q[k]);                                \
            }                                                               \
        }                                                                   \
        *out = b;                                                           \
    }
#define NZC_(NZ) (uint8_t)NZ
#define DEF_ANYALL(NAME, OP, ID, N, T, NZ)                                  \
    DEF_COLS8(NAME##8_##N, uint8_t, T, NZC_(NZ), OP, OP## =)                \
    static void NAME##_row_##N(const char *p, int64_t n, int64_t s,          \
                               int64_t idx0, const tl_racc *aux,             \
                               tl_racc *res)                                 \
    {                                                                       \
        unsigned r = ID;                                                    \
        if (s == (int64_t)sizeof(T)) {                                      \
            NAME##_blk_##N((const T *)p, n, &r);                            \
        } else {                                                            \
            for (int64_t i = 0; i < n && r == ID; i++) {                    \
                r = (unsigned)NZ(*(const T *)(p + i * s));                  \
            }                                                               \
        }                                                                   \
        res->v.u[0] = r;                                                    \
    }                                                                       \
    static void NAME##_cols_##N(const char *base, int64_t n, int64_t cs,     \
                                const tl_rspace *rs, int64_t rb, int64_t re, \
                                const tl_racc *aux, tl_racc *res)            \
    {                                                                       \
        uint8_t acc[TILE];                                                  \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            acc[j] = ID;                                                    \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        int64_t r = rb;                                                     \
        COLS8_RUN(NAME##8_##N, T, acc, base, rs, idx, off, r, re, cs, n);   \
        for (; r < re; r++) {                                               \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) { /* typed: vectorises */         \
                const T *q = (const T *)p;                                  \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] OP## = (uint8_t)NZ(q[j]);                        \
                }                                                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] OP## = (uint8_t)NZ(*(const T *)(p + j * cs));    \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.u[0] = acc[j];                                         \
        }                                                                   \
    }

#define DEF_ANYALL_BOTH(N, T, NZ)                                           \
    DEF_ANYALL(any, |, 0, N, T, NZ)                                         \
    DEF_ANYALL(all, &, 1, N, T, NZ)
/* Real dtypes (IT: the signed integer of T's width): vector blocks. */
#define DEF_ANYALL_BOTH_V(N, T, IT)                                         \
    DEF_ANYALL_BLK_V(any, |, 0, N, T, IT)                                   \
    DEF_ANYALL_BLK_V(all, &, 1, N, T, IT)                                   \
    DEF_ANYALL_BOTH(N, T, NZ_ID)
#define DEF_ANYALL_BOTH_S(N, T, NZ)                                         \
    DEF_ANYALL_BLK_S(any, |, 0, N, T, NZ)                                   \
    DEF_ANYALL_BLK_S(all, &, 1, N, T, NZ)                                   \
    DEF_ANYALL_BOTH(N, T, NZ)

DEF_ANYALL_BOTH_V(b, uint8_t, int8_t)
DEF_ANYALL_BOTH_V(u8, uint8_t, int8_t)
DEF_ANYALL_BOTH_V(i8, int8_t, int8_t)
DEF_ANYALL_BOTH_V(i16, int16_t, int16_t)
DEF_ANYALL_BOTH_V(u16, uint16_t, int16_t)
DEF_ANYALL_BOTH_V(i32, int32_t, int32_t)
DEF_ANYALL_BOTH_V(u32, uint32_t, int32_t)
DEF_ANYALL_BOTH_V(i64, int64_t, int64_t)
DEF_ANYALL_BOTH_V(u64, uint64_t, int64_t)
DEF_ANYALL_BOTH_S(f16, uint16_t, NZ_H)
DEF_ANYALL_BOTH_S(bf16, uint16_t, NZ_H)
DEF_ANYALL_BOTH_V(f32, float, int32_t)
DEF_ANYALL_BOTH_V(f64, double, int64_t)
DEF_ANYALL_BOTH_S(c64, tl_c64, NZ_C)
DEF_ANYALL_BOTH_S(c128, tl_c128, NZ_Z)

/* ---- count_nonzero --------------------------------------------------------- */

/* The wrapping uint64 sum of (x != 0): one pass, no bool temporary.  A
 * NaN counts (it is not zero), -0.0 does not, as in NumPy and PyTorch. */
#define CNZ_ID(x) ((uint64_t)NZ_ID(x))
#define CNZ_H(x) ((uint64_t)NZ_H(x))
#define CNZ_C(x) ((uint64_t)(NZ_C(x)))
#define CNZ_Z(x) ((uint64_t)(NZ_Z(x)))
DEF_ISUM_NAMED(cnz, b, uint8_t, CNZ_ID)
DEF_ISUM_NAMED(cnz, i8, uint8_t, CNZ_ID)
DEF_ISUM_NAMED(cnz, i16, uint16_t, CNZ_ID)
DEF_ISUM_NAMED(cnz, h, uint16_t, CNZ_H)
DEF_ISUM_NAMED(cnz, c64, tl_c64, CNZ_C)
DEF_ISUM_NAMED(cnz, c128, tl_c128, CNZ_Z)

/* Contiguous rows of 32-bit elements count in 16 uint32 lanes: a compare and
 * a subtract per vector, where the uint64 lanes above widen each 0/1 first
 * (int32 or float32, 2^22 elements or rows of 2048^2, one thread: 0.50-0.55
 * -> 0.24 ms; NumPy's int32 0.37). A row reaching a row kernel holds at most
 * TL_REDUCE_RCHUNK elements, so a lane cannot wrap. Counts are exact: the
 * lane order changes nothing.  Their rows and cols are DEF_ISUM_ROWCOLS's,
 * contiguous rows through these lanes. */
_Static_assert(TL_REDUCE_RCHUNK <= UINT32_MAX,
               "count_nonzero's row lanes are uint32");
/* 64-bit elements count in uint64 lanes the same way (a compare gives a
 * 64-bit mask): float64 rows went through the baseline loop of
 * DEF_ISUM_NAMED before, 2^20 doubles in 435-505 us against 131-147 us for
 * a plain C count (benchmarks/bounds/kernels.c, tlb_reduce). */
#define DEF_CNZ32(N, T) DEF_CNZV(N, T, uint32_t)
#define DEF_CNZ64(N, T) DEF_CNZV(N, T, uint64_t)
#define DEF_CNZV(N, T, LT)                                                  \
    static TL_ALWAYS_INLINE void cnzv_##N##_body(const T *q, int64_t n,     \
                                                  uint64_t *out)             \
    {                                                                       \
        LT acc[16] = {0};                                                   \
        int64_t i = 0;                                                      \
        for (; i + 16 <= n; i += 16) {                                      \
            for (int k = 0; k < 16; k++) {                                  \
                acc[k] += (LT)(q[i + k] != 0);                              \
            }                                                               \
        }                                                                   \
        uint64_t t = 0;                                                     \
        for (int k = 0; k < 16; k++) {                                      \
            t += acc[k];                                                    \
        }                                                                   \
        for (; i < n; i++) {                                                \
            t += (uint64_t)(q[i] != 0);                                     \
        }                                                                   \
        *out = t;                                                           \
    }                                                                       \
    DISPATCHED(cnzv_##N, (const T *q, int64_t n, uint64_t *out),           \
               (q, n, out))                                                 \
    DEF_ISUM_ROWCOLS(cnz, N, T, CNZ_ID, cnzv_##N)
DEF_CNZ32(i32, uint32_t)
DEF_CNZ32(f32, float)
DEF_CNZ64(i64, uint64_t)
DEF_CNZ64(f64, double)

/* ---- var / std, second pass ---------------------------------------------- */

/* Real inputs: deviations from aux->v.d[0] in 8 lanes. */
#define DEF_VAR_REAL(N, T, LD)                                              \
    static void var_row_##N(const char *p, int64_t n, int64_t s,             \
                            int64_t idx0, const tl_racc *aux, tl_racc *res)  \
    {                                                                       \
        const double m = aux->v.d[0];                                       \
        double ss[8] = {0}, sl[8] = {0}, c[8] = {0};                        \
        int64_t i = 0;                                                      \
        if (s == (int64_t)sizeof(T)) {                                      \
            const T *q = (const T *)p;                                      \
            for (; i + 8 <= n; i += 8) {                                    \
                for (int k = 0; k < 8; k++) {                               \
                    const double d = (double)LD(q[i + k]) - m;              \
                    c[k] += d;                                              \
                    dd_acc(&ss[k], &sl[k], d * d);                          \
                }                                                           \
            }                                                               \
        }                                                                   \
        for (; i < n; i++) {                                                \
            const double d = (double)LD(*(const T *)(p + i * s)) - m;       \
            c[i & 7] += d;                                                  \
            dd_acc(&ss[i & 7], &sl[i & 7], d * d);                          \
        }                                                                   \
        double h = 0, l = 0;                                                \
        for (int k = 0; k < 8; k++) {                                       \
            dd_add(&h, &l, ss[k], sl[k]);                                   \
        }                                                                   \
        res->v.d[0] = h;                                                    \
        res->v.d[3] = l;                                                    \
        res->v.d[1] = ((c[0] + c[1]) + (c[2] + c[3])) +                     \
                      ((c[4] + c[5]) + (c[6] + c[7]));                      \
        res->v.d[2] = 0;                                                    \
    }                                                                       \
    static void var_cols_##N(const char *base, int64_t n, int64_t cs,        \
                             const tl_rspace *rs, int64_t rb, int64_t re,    \
                             const tl_racc *aux, tl_racc *res)               \
    {                                                                       \
        double ss[TILE], sl[TILE], c[TILE], m[TILE];                        \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            ss[j] = 0;                                                      \
            sl[j] = 0;                                                      \
            c[j] = 0;                                                       \
            m[j] = aux[j].v.d[0];                                           \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            const char *p = base + off;                                     \
            for (int64_t j = 0; j < n; j++) {                               \
                const double d = (double)LD(*(const T *)(p + j * cs)) - m[j]; \
                c[j] += d;                                                  \
                dd_acc(&ss[j], &sl[j], d * d);                              \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = ss[j];                                          \
            res[j].v.d[3] = isfinite(ss[j]) ? sl[j] : 0;                    \
            res[j].v.d[1] = c[j];                                           \
            res[j].v.d[2] = 0;                                              \
        }                                                                   \
    }

DEF_VAR_REAL(f16, uint16_t, LDH)
DEF_VAR_REAL(bf16, uint16_t, LDBF)
DEF_VAR_REAL(f32, float, LDID)
DEF_VAR_REAL(f64, double, LDID)

/* Contiguous float32 rows of var's second pass: a float32 value minus the
 * mean and its square are computed in float64, where the sum of squares of
 * float32-sized deviations needs no compensation for a float32 result
 * (relative error about n * 2^-53 against the result's 2^-24), so 16 plain
 * float64 lanes (four 4-wide vectors) run at memory speed. */
static TL_ALWAYS_INLINE void var_lanes_f32_body(const float *q, int64_t n,
                                                double m, double out[3])
{
    typedef float v4f __attribute__((vector_size(16)));
    typedef double v4d __attribute__((vector_size(32)));
    v4d s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
    v4d c0 = s0, c1 = s0, c2 = s0, c3 = s0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        v4f x0, x1, x2, x3;
        PREFETCH_AHEAD(q + i);
        memcpy(&x0, q + i, sizeof x0);
        memcpy(&x1, q + i + 4, sizeof x1);
        memcpy(&x2, q + i + 8, sizeof x2);
        memcpy(&x3, q + i + 12, sizeof x3);
        const v4d d0 = CVT4D(x0) - m;
        const v4d d1 = CVT4D(x1) - m;
        const v4d d2 = CVT4D(x2) - m;
        const v4d d3 = CVT4D(x3) - m;
        c0 += d0;
        c1 += d1;
        c2 += d2;
        c3 += d3;
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
    }
    s0 = (s0 + s1) + (s2 + s3);
    c0 = (c0 + c1) + (c2 + c3);
    double ss = (s0[0] + s0[1]) + (s0[2] + s0[3]);
    double c = (c0[0] + c0[1]) + (c0[2] + c0[3]);
    for (; i < n; i++) {
        const double d = (double)q[i] - m;
        c += d;
        ss += d * d;
    }
    out[0] = ss;
    out[1] = 0; /* no compensation term */
    out[2] = c;
}

DISPATCHED(var_lanes_f32, (const float *q, int64_t n, double m,
                           double out[3]),
           (q, n, m, out))

/* A row of var's second pass: contiguous ones through var_lanes_N, whose
 * out[] is the (hi, lo) sum of squared deviations and the sum of the
 * deviations; strided ones through var_row_N. */
#define DEF_VAR_FROW(N, T)                                                  \
    static void var_frow_##N(const char *p, int64_t n, int64_t s,            \
                             int64_t idx0, const tl_racc *aux, tl_racc *res) \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            var_row_##N(p, n, s, idx0, aux, res);                           \
            return;                                                         \
        }                                                                   \
        double o[3];                                                        \
        var_lanes_##N((const T *)p, n, aux->v.d[0], o);                     \
        res->v.d[0] = o[0];                                                 \
        res->v.d[3] = o[1];                                                 \
        res->v.d[1] = o[2];                                                 \
        res->v.d[2] = 0;                                                    \
    }
DEF_VAR_FROW(f32, float)
#define var_frow_f16 var_row_f16
#define var_frow_bf16 var_row_bf16

/* Contiguous float64 rows of var's second pass: the squared deviations
 * in lane blocks, two-summed into 8 lanes (Note [Float64 lane blocks]:
 * every term is positive, so the tree's rounding is a few ulp of the
 * block and the sum keeps about one ulp); the deviations themselves,
 * the small correction term, add plainly as var_row_f64's do.  The
 * remainder below a block goes element by element as var_row_f64.
 * out: the (hi, lo) sum of squares and the sum of deviations. */
static TL_ALWAYS_INLINE void var_lanes_f64_body(const double *q, int64_t n,
                                                double m, double out[3])
{
    double ss[8] = {0}, sl[8] = {0}, c[8] = {0};
    int64_t i = 0;
#if defined(__GNUC__)
    const tl_v4d mv = {m, m, m, m};
    tl_v4d h0 = {0, 0, 0, 0}, h1 = h0, l0 = h0, l1 = h0, c0 = h0, c1 = h0;
    for (; i + F64_BLOCK <= n; i += F64_BLOCK) {
        tl_v4d sq0, sq1, d0, d1;
        for (int k = 0; k < F64_BLOCK; k += 8) {
            PREFETCH_AHEAD(q + i + k);
        }
        VAR_TREE8_4D(sq0, d0, q + i, mv);
        VAR_TREE8_4D(sq1, d1, q + i + 4, mv);
        c0 += d0;
        c1 += d1;
        TWO_SUM_4D(h0, l0, sq0);
        TWO_SUM_4D(h1, l1, sq1);
    }
    STORE_2V4D(ss, h0, h1);
    STORE_2V4D(sl, l0, l1);
    STORE_2V4D(c, c0, c1);
#endif
    for (; i < n; i++) { /* i % 8 is the lane: blocks end at multiples of 8 */
        const double d = q[i] - m;
        c[i & 7] += d;
        dd_acc(&ss[i & 7], &sl[i & 7], d * d);
    }
    dd_fold8(ss, sl);
    dd_add(&ss[0], &sl[0], ss[1], sl[1]);
    out[0] = ss[0];
    out[1] = sl[0];
    out[2] = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
}

DISPATCHED(var_lanes_f64, (const double *q, int64_t n, double m,
                           double out[3]),
           (q, n, m, out))
DEF_VAR_FROW(f64, double)
#define var_frow_c64 var_row_c64
#define var_frow_c128 var_row_c128

/* Four rows of var_fcols_f32: the accumulators are read and written once
 * per four rows. */
static TL_ALWAYS_INLINE void var_cols4_f32_body(double *restrict ss,
                                                double *restrict c,
                                                const double *restrict m,
                                                const float *restrict q0,
                                                const float *restrict q1,
                                                const float *restrict q2,
                                                const float *restrict q3,
                                                int64_t n)
{
    for (int64_t j = 0; j < n; j++) {
        const double d0 = (double)q0[j] - m[j], d1 = (double)q1[j] - m[j];
        const double d2 = (double)q2[j] - m[j], d3 = (double)q3[j] - m[j];
        c[j] += (d0 + d1) + (d2 + d3);
        ss[j] += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
    }
}

DISPATCHED(var_cols4_f32,
           (double *restrict ss, double *restrict c,
            const double *restrict m, const float *restrict q0,
            const float *restrict q1, const float *restrict q2,
            const float *restrict q3, int64_t n),
           (ss, c, m, q0, q1, q2, q3, n))

/* float32 cols of var's second pass over contiguous columns: plain float64
 * accumulation per column (see var_lanes_f32), a loop over the tile that
 * vectorises. */
static void var_fcols_f32(const char *base, int64_t n, int64_t cs,
                          const tl_rspace *rs, int64_t rb, int64_t re,
                          const tl_racc *aux, tl_racc *res)
{
    double ss[TILE], c[TILE], m[TILE];
    int64_t idx[TL_MAX_DIMS];
    if (cs != (int64_t)sizeof(float)) {
        var_cols_f32(base, n, cs, rs, rb, re, aux, res);
        return;
    }
    for (int64_t j = 0; j < n; j++) {
        ss[j] = 0;
        c[j] = 0;
        m[j] = aux[j].v.d[0];
    }
    int64_t off = tl_rspace_seek(rs, rb, idx);
    int64_t r = rb;
    for (; re - r >= 4; r += 4) {
        const float *q[4];
        for (int k = 0; k < 4; k++) {
            q[k] = (const float *)(base + off);
            off = tl_rspace_next(rs, idx, off);
        }
        var_cols4_f32(ss, c, m, q[0], q[1], q[2], q[3], n);
    }
    for (; r < re; r++) {
        const float *q = (const float *)(base + off);
        for (int64_t j = 0; j < n; j++) {
            const double d = (double)q[j] - m[j];
            c[j] += d;
            ss[j] += d * d;
        }
        off = tl_rspace_next(rs, idx, off);
    }
    for (int64_t j = 0; j < n; j++) {
        res[j].v.d[0] = ss[j];
        res[j].v.d[3] = 0;
        res[j].v.d[1] = c[j];
        res[j].v.d[2] = 0;
    }
}
/* Note [Float64 var cols in blocks of 8 rows]
 * var's second pass over contiguous float64 columns two-summed every
 * squared deviation into its column's (hi, lo) pair, one element at a
 * time (var_cols_f64: some 20 dependent operations an element), and dim
 * 0 of a 2048^2 float64 matrix took 5.7 ms, one thread, against NumPy's
 * 5.45 and 3.1 for the plain C loop.  Here each block of 8 rows adds
 * its 8 squared deviations as a tree (three roundings, each within 2^-53
 * of the block's sum: every term is positive) and two-sums the block
 * into the pair, as the float64 lane blocks do for rows (Note [Float64
 * lane blocks]); the deviations' sum, the small correction term, adds
 * plainly in a tree the same way.  Every column on its own, in row
 * order from the chunk's first row, so neither the tile, the thread
 * count nor the vector width changes a bit; rows left over (fewer than
 * 8) go one at a time as before. */
static TL_ALWAYS_INLINE void var_c8_f64_body(double *restrict h,
                                             double *restrict l,
                                             double *restrict c,
                                             const double *restrict m,
                                             const double *const *q,
                                             int64_t n)
{
    const double *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];
    const double *q4 = q[4], *q5 = q[5], *q6 = q[6], *q7 = q[7];
    for (int64_t j = 0; j < n; j++) {
        const double mj = m[j];
        const double d0 = q0[j] - mj, d1 = q1[j] - mj, d2 = q2[j] - mj;
        const double d3 = q3[j] - mj, d4 = q4[j] - mj, d5 = q5[j] - mj;
        const double d6 = q6[j] - mj, d7 = q7[j] - mj;
        c[j] += ((d0 + d1) + (d2 + d3)) + ((d4 + d5) + (d6 + d7));
        const double x = ((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3)) +
                         ((d4 * d4 + d5 * d5) + (d6 * d6 + d7 * d7));
        const double t = h[j] + x;
        const double bp = t - h[j];
        l[j] += (h[j] - (t - bp)) + (x - bp);
        h[j] = t;
    }
}
DISPATCHED(var_c8_f64,
           (double *restrict h, double *restrict l, double *restrict c,
            const double *restrict m, const double *const *q, int64_t n),
           (h, l, c, m, q, n))

static void var_fcols_f64(const char *base, int64_t n, int64_t cs,
                          const tl_rspace *rs, int64_t rb, int64_t re,
                          const tl_racc *aux, tl_racc *res)
{
    if (cs != (int64_t)sizeof(double) || re - rb < 8) {
        var_cols_f64(base, n, cs, rs, rb, re, aux, res);
        return;
    }
    double h[TILE], l[TILE], c[TILE], m[TILE];
    for (int64_t j = 0; j < n; j++) {
        h[j] = 0;
        l[j] = 0;
        c[j] = 0;
        m[j] = aux[j].v.d[0];
    }
    int64_t idx[TL_MAX_DIMS];
    int64_t off = tl_rspace_seek(rs, rb, idx);
    int64_t r = rb;
    for (; re - r >= 8; r += 8) {
        const double *q[8];
        ROWS8(double, q, base, rs, idx, off, n);
        var_c8_f64(h, l, c, m, q, n);
    }
    for (; r < re; r++) {
        const double *q = (const double *)(base + off);
        for (int64_t j = 0; j < n; j++) {
            const double d = q[j] - m[j];
            c[j] += d;
            dd_acc(&h[j], &l[j], d * d);
        }
        off = tl_rspace_next(rs, idx, off);
    }
    for (int64_t j = 0; j < n; j++) {
        res[j].v.d[0] = h[j];
        res[j].v.d[3] = isfinite(h[j]) ? l[j] : 0;
        res[j].v.d[1] = c[j];
        res[j].v.d[2] = 0;
    }
}
#define var_fcols_f16 var_cols_f16
#define var_fcols_bf16 var_cols_bf16
#define var_fcols_c64 var_cols_c64
#define var_fcols_c128 var_cols_c128

/* ---- the 2-norm's sum of squares ------------------------------------------ */

/* Note [Norm rows without the deviations]
 * linalg.vector_norm(ord=2) ran var's second pass with every mean 0
 * (Note [The 2-norm as var's second pass], reduce.c): each element minus
 * the mean, the deviations summed beside the squares, and float64's
 * squares two-summed, twice the work the norm needs; one thread, 2^22
 * elements, float32 took 2.2x NumPy's BLAS sdot, float64 2.2x its ddot,
 * rows of 2048 float32 1.26x PyTorch.  The norm family keeps var's record
 * and finish but reads contiguous float32 and float64 rows into 32 plain
 * float64 lanes (8 vectors of 4, enough adds in flight to run at memory
 * speed): x * x and a float64 add per element.  A float32 square is
 * exact in float64 and a float64 sum of up to TL_REDUCE_RCHUNK / 32
 * squares a lane loses below 2^-43 of the row's sum, far under a float32
 * result's rounding; float64 squares and their sum round (every term is
 * positive, so the error is at most about n / 32 ulp of the sum a lane
 * and typically its square root: 1-2 ulp of the norm at 2^15 elements a
 * chunk; chunks combine pairwise), where NumPy's ddot sums n / 16 terms
 * a lane over the whole vector.  float32 cols over close rows take the
 * sum's float64 strips with each element squared (Note [Float32 cols in
 * register strips]); other layouts and dtypes keep var's kernels, with
 * mean 0. */
#if defined(__GNUC__)
typedef float n2_v4f __attribute__((vector_size(16)));
typedef double n2_v4d __attribute__((vector_size(32)));
/* The 32 lanes' sum (lane l of vector k in s[k]) and the rest q[i..n)
 * after it (under 32: vectors of 4 in lanes of their own, the last n % 4
 * one by one), in one fixed order for every clone: inlined in each, so
 * that the lanes stay in registers (they had been stored for a shared
 * fold, and the rest gone one float at a time in a chain of scalar
 * conversions, each also waiting on the one before -- cvtss2sd keeps its
 * destination's upper half: 80 ns a row of 60 floats). */
static TL_ALWAYS_INLINE double norm2_fold_f32(const n2_v4d *s, const float *q,
                                              int64_t i, int64_t n)
{
    typedef n2_v4d v4d; /* CVT4D's */
    double ss = 0;
    if (i > 0) { /* lanes of zeros add nothing (the squares are >= 0) */
        const n2_v4d t = ((s[0] + s[1]) + (s[2] + s[3])) +
                         ((s[4] + s[5]) + (s[6] + s[7]));
        ss = (t[0] + t[1]) + (t[2] + t[3]);
    }
    n2_v4d r0 = {0, 0, 0, 0}, r1 = r0;
    for (; i + 8 <= n; i += 8) {
        n2_v4f x, y;
        memcpy(&x, q + i, sizeof x);
        memcpy(&y, q + i + 4, sizeof y);
        const n2_v4d dx = CVT4D(x), dy = CVT4D(y);
        r0 += dx * dx;
        r1 += dy * dy;
    }
    if (i + 4 <= n) {
        n2_v4f x;
        memcpy(&x, q + i, sizeof x);
        const n2_v4d dx = CVT4D(x);
        r0 += dx * dx;
        i += 4;
    }
    r0 += r1;
    ss += (r0[0] + r0[1]) + (r0[2] + r0[3]);
    const double e0 = i < n ? (double)q[i] * (double)q[i] : 0.0;
    const double e1 = i + 1 < n ? (double)q[i + 1] * (double)q[i + 1] : 0.0;
    const double e2 = i + 2 < n ? (double)q[i + 2] * (double)q[i + 2] : 0.0;
    return ss + ((e0 + e1) + e2);
}

/* float32: element i + 4 k + l of each block of 32 goes to lane l of
 * vector k.  The AVX2 and AVX-512 clones fuse the multiply and add: a
 * float32 square is exact in float64, so one rounding either way and
 * the same bits; the AVX-512 clone's vector j holds vectors 2 j and
 * 2 j + 1. */
static void norm2_lanes_f32_base(const float *q, int64_t n, double *out)
{
    typedef n2_v4d v4d; /* CVT4D's */
    n2_v4d s[8];
    for (int k = 0; k < 8; k++) {
        s[k] = (n2_v4d){0, 0, 0, 0};
    }
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        PREFETCH_AHEAD(q + i); /* 32 floats: two lines */
        PREFETCH_AHEAD(q + i + 16);
        for (int k = 0; k < 8; k++) {
            n2_v4f x;
            memcpy(&x, q + i + 4 * k, sizeof x);
            const n2_v4d d = CVT4D(x);
            s[k] += d * d;
        }
    }
    *out = norm2_fold_f32(s, q, i, n);
}
#ifdef TL_AVX2_DISPATCH
__attribute__((target("avx2,fma"))) static void
norm2_lanes_f32_avx2(const float *q, int64_t n, double *out)
{
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, s4 = s0;
    __m256d s5 = s0, s6 = s0, s7 = s0;
    int64_t i = 0;
#define N2SQ(acc, k)                                                        \
    do {                                                                    \
        const __m256d d_ = _mm256_cvtps_pd(_mm_loadu_ps(q + i + 4 * (k)));  \
        (acc) = _mm256_fmadd_pd(d_, d_, (acc));                             \
    } while (0)
    for (; i + 32 <= n; i += 32) {
        PREFETCH_AHEAD(q + i); /* 32 floats: two lines */
        PREFETCH_AHEAD(q + i + 16);
        N2SQ(s0, 0);
        N2SQ(s1, 1);
        N2SQ(s2, 2);
        N2SQ(s3, 3);
        N2SQ(s4, 4);
        N2SQ(s5, 5);
        N2SQ(s6, 6);
        N2SQ(s7, 7);
    }
#undef N2SQ
    const n2_v4d v[8] = {(n2_v4d)s0, (n2_v4d)s1, (n2_v4d)s2, (n2_v4d)s3,
                         (n2_v4d)s4, (n2_v4d)s5, (n2_v4d)s6, (n2_v4d)s7};
    *out = norm2_fold_f32(v, q, i, n);
}
TL_TARGET_AVX512 static void norm2_lanes_f32_avx512(const float *q,
                                                    int64_t n, double *out)
{
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    int64_t i = 0;
#define N2SQ(acc, k)                                                        \
    do {                                                                    \
        const __m512d d_ =                                                  \
            _mm512_cvtps_pd(_mm256_loadu_ps(q + i + 8 * (k)));              \
        (acc) = _mm512_fmadd_pd(d_, d_, (acc));                             \
    } while (0)
    for (; i + 32 <= n; i += 32) {
        PREFETCH_AHEAD(q + i); /* 32 floats: two lines */
        PREFETCH_AHEAD(q + i + 16);
        N2SQ(s0, 0);
        N2SQ(s1, 1);
        N2SQ(s2, 2);
        N2SQ(s3, 3);
    }
#undef N2SQ
#define N2LO(x) ((n2_v4d)_mm512_castpd512_pd256(x))
#define N2HI(x) ((n2_v4d)_mm512_extractf64x4_pd((x), 1))
    const n2_v4d v[8] = {N2LO(s0), N2HI(s0), N2LO(s1), N2HI(s1),
                         N2LO(s2), N2HI(s2), N2LO(s3), N2HI(s3)};
#undef N2LO
#undef N2HI
    *out = norm2_fold_f32(v, q, i, n);
}
#endif
#else
static void norm2_lanes_f32_base(const float *q, int64_t n, double *out)
{
    double a[32] = {0};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int k = 0; k < 32; k++) {
            a[k] += (double)q[i + k] * (double)q[i + k];
        }
    }
    double t[4];
    for (int l = 0; l < 4; l++) {
        t[l] = ((a[l] + a[4 + l]) + (a[8 + l] + a[12 + l])) +
               ((a[16 + l] + a[20 + l]) + (a[24 + l] + a[28 + l]));
    }
    double ss = (t[0] + t[1]) + (t[2] + t[3]);
    for (; i < n; i++) {
        ss += (double)q[i] * (double)q[i];
    }
    *out = ss;
}
#endif
static void norm2_lanes_f32(const float *q, int64_t n, double *out)
{
#ifdef TL_AVX2_DISPATCH
    if (have_avx512()) {
        norm2_lanes_f32_avx512(q, n, out);
        return;
    }
    if (have_avx2()) {
        norm2_lanes_f32_avx2(q, n, out);
        return;
    }
#endif
    norm2_lanes_f32_base(q, n, out);
}

static TL_ALWAYS_INLINE void norm2_lanes_f64_body(const double *q, int64_t n,
                                                  double *out)
{
    typedef double v4d __attribute__((vector_size(32)));
    /* Named, not an array: the array lived in memory, zeroed with a rep
     * stos a row (a third of a norm over rows of 16 doubles). */
    v4d s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0;
    v4d s6 = s0, s7 = s0;
    int64_t i = 0;
#define NORM2_SQ4(acc, k)                                                   \
    do {                                                                    \
        v4d x_;                                                             \
        memcpy(&x_, q + i + 4 * (k), sizeof x_);                            \
        (acc) += x_ * x_;                                                   \
    } while (0)
    for (; i + 32 <= n; i += 32) {
        PREFETCH_AHEAD(q + i);
        PREFETCH_AHEAD(q + i + 16);
        NORM2_SQ4(s0, 0);
        NORM2_SQ4(s1, 1);
        NORM2_SQ4(s2, 2);
        NORM2_SQ4(s3, 3);
        NORM2_SQ4(s4, 4);
        NORM2_SQ4(s5, 5);
        NORM2_SQ4(s6, 6);
        NORM2_SQ4(s7, 7);
    }
#undef NORM2_SQ4
    /* The rest (under 32) in vectors of 4 in two lanes of their own,
     * the last n % 4 one by one (as norm2_fold_f32: not one chain). */
    v4d r0 = {0, 0, 0, 0}, r1 = r0;
    for (; i + 8 <= n; i += 8) {
        v4d x, y;
        memcpy(&x, q + i, sizeof x);
        memcpy(&y, q + i + 4, sizeof y);
        r0 += x * x;
        r1 += y * y;
    }
    if (i + 4 <= n) {
        v4d x;
        memcpy(&x, q + i, sizeof x);
        r0 += x * x;
        i += 4;
    }
    const v4d t = (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) +
                  (r0 + r1);
    const double e0 = i < n ? q[i] * q[i] : 0.0;
    const double e1 = i + 1 < n ? q[i + 1] * q[i + 1] : 0.0;
    const double e2 = i + 2 < n ? q[i + 2] * q[i + 2] : 0.0;
    *out = ((t[0] + t[1]) + (t[2] + t[3])) + ((e0 + e1) + e2);
}
DISPATCHED(norm2_lanes_f64, (const double *q, int64_t n, double *out),
           (q, n, out))

/* A row of the norm: var's record with no deviations and no low part;
 * strided rows through var's, with the mean (aux) 0. */
#define DEF_NORM2_ROW(N, T)                                                 \
    static void norm2_row_##N(const char *p, int64_t n, int64_t s,           \
                              int64_t idx0, const tl_racc *aux,              \
                              tl_racc *res)                                  \
    {                                                                       \
        if (s != (int64_t)sizeof(T)) {                                      \
            var_row_##N(p, n, s, idx0, aux, res);                           \
            return;                                                         \
        }                                                                   \
        double ss;                                                          \
        norm2_lanes_##N((const T *)p, n, &ss);                              \
        res->v.d[0] = ss;                                                   \
        res->v.d[1] = res->v.d[2] = res->v.d[3] = 0;                        \
        res->idx = 0;                                                       \
    }
DEF_NORM2_ROW(f32, float)
DEF_NORM2_ROW(f64, double)

/* Row runs of the norm (Note [Row runs]): norm2_row's record a row. */
#define NORM2_PUT(r, ss)                                                    \
    do {                                                                    \
        (r)->v.d[0] = (ss);                                                 \
        (r)->v.d[1] = (r)->v.d[2] = (r)->v.d[3] = 0;                        \
        (r)->idx = 0;                                                       \
    } while (0)
#define NORM2_RUN_LOOP(LANES)                                               \
    ROW_RUN_PF_DECL(float);                                                 \
    for (int64_t j = 0; j < m; j++) {                                       \
        double ss_;                                                         \
        ROW_RUN_PF_LINES(p + j * rs);                                       \
        LANES((const float *)(p + j * rs), n, &ss_);                        \
        NORM2_PUT(&res[j], ss_);                                            \
    }
#if defined(__GNUC__) && defined(TL_AVX2_DISPATCH)
/* flatten: each clone's lanes inlined into its loop over rows. */
__attribute__((flatten)) static void
norm2_run_f32_base(const char *p, int64_t m, int64_t rs, int64_t n,
                   tl_racc *res)
{
    NORM2_RUN_LOOP(norm2_lanes_f32_base)
}
__attribute__((target("avx2,fma"), flatten)) static void
norm2_run_f32_avx2(const char *p, int64_t m, int64_t rs, int64_t n,
                   tl_racc *res)
{
    NORM2_RUN_LOOP(norm2_lanes_f32_avx2)
}
TL_TARGET_AVX512 __attribute__((flatten)) static void
norm2_run_f32_avx512(const char *p, int64_t m, int64_t rs, int64_t n,
                     tl_racc *res)
{
    NORM2_RUN_LOOP(norm2_lanes_f32_avx512)
}
static void norm2_run_f32(const char *p, int64_t m, int64_t rs, int64_t n,
                          tl_racc *res)
{
    if (have_avx512()) {
        norm2_run_f32_avx512(p, m, rs, n, res);
    } else if (have_avx2()) {
        norm2_run_f32_avx2(p, m, rs, n, res);
    } else {
        norm2_run_f32_base(p, m, rs, n, res);
    }
}
#else
static void norm2_run_f32(const char *p, int64_t m, int64_t rs, int64_t n,
                          tl_racc *res)
{
    NORM2_RUN_LOOP(norm2_lanes_f32)
}
#endif
static void norm2_f32_rows(const char *p, int64_t m, int64_t rs, int64_t n,
                           int64_t s, int64_t idx0, const tl_racc *aux,
                           tl_racc *res)
{
    if (s != (int64_t)sizeof(float)) {
        for (int64_t j = 0; j < m; j++) {
            norm2_row_f32(p + j * rs, n, s, idx0, aux ? aux + j : NULL,
                          &res[j]);
        }
        return;
    }
    norm2_run_f32(p, m, rs, n, res);
}
DEF_ROW_RUN(norm2_f64, double, norm2_row_f64, {
    double ss_;
    norm2_lanes_f64_body(q, n, &ss_);
    NORM2_PUT(r, ss_);
})

/* The squares of the float32 strips (Note [Norm rows without the
 * deviations]).  FS_SQ squares a float64 vector or scalar. */
#define FS_SQ(x)                                                            \
    __extension__({                                                         \
        __typeof__(x) sq_ = (x);                                            \
        sq_ * sq_;                                                          \
    })
#define FS_LOAD4_SQ(p) FS_SQ(FS_LOAD4(p))
#define FS_LOAD8_SQ(p) FS_SQ(FS_LOAD8(p))
DEF_FSTRIPS_X(fsumsq, float, +, 0.0, FS_LOAD4_SQ, FS_LOAD8_SQ, FS_SQ)

#define FD_LOAD4_SQ(p) FS_SQ(FD_LOAD4(p))
#define FD_LOAD8_SQ(p) FS_SQ(FD_LOAD8(p))
DEF_FSTRIPS_X(dsumsq, double, +, 0.0, FD_LOAD4_SQ, FD_LOAD8_SQ, FS_SQ)

/* NAME norm2_cols_N: the norm's cols over contiguous columns of T.  Close
 * rows in the squared strips (STRIPS##_strips_to), rows in order; far
 * rows in blocks of 8 (norm2_c8_N: a tree of the 8 squares per column,
 * then one add; every column on its own, so the vector width changes
 * nothing), then the rows left one at a time; other columns through
 * FALLBACK (var's, with mean 0).  Plain float64 sums of positive terms
 * (Note [Norm rows without the deviations]); NumPy's axis sums of x * x
 * add row after row. */
#define DEF_NORM2_COLS(N, T, STRIPS, FALLBACK)                              \
    static TL_ALWAYS_INLINE void norm2_c8_##N##_body(                        \
        double *restrict acc, const T *const *q, int64_t n)                 \
    {                                                                       \
        const T *q0 = q[0], *q1 = q[1], *q2 = q[2], *q3 = q[3];             \
        const T *q4 = q[4], *q5 = q[5], *q6 = q[6], *q7 = q[7];             \
        for (int64_t j = 0; j < n; j++) {                                   \
            const double a0 = q0[j], a1 = q1[j], a2 = q2[j], a3 = q3[j];    \
            const double a4 = q4[j], a5 = q5[j], a6 = q6[j], a7 = q7[j];    \
            acc[j] += ((a0 * a0 + a1 * a1) + (a2 * a2 + a3 * a3)) +         \
                      ((a4 * a4 + a5 * a5) + (a6 * a6 + a7 * a7));          \
        }                                                                   \
    }                                                                       \
    DISPATCHED(norm2_c8_##N,                                                \
               (double *restrict acc, const T *const *q, int64_t n),        \
               (acc, q, n))                                                 \
    static void norm2_cols_##N(const char *base, int64_t n, int64_t cs,      \
                               const tl_rspace *rs, int64_t rb, int64_t re,  \
                               const tl_racc *aux, tl_racc *res)             \
    {                                                                       \
        if (cs != (int64_t)sizeof(T)) {                                     \
            FALLBACK(base, n, cs, rs, rb, re, aux, res);                    \
            return;                                                         \
        }                                                                   \
        double acc[TILE];                                                   \
        if (fstrip_rows(rs)) {                                              \
            STRIPS##_strips_to(base, n, rs, rb, re, acc);                   \
        } else {                                                            \
            int64_t idx[TL_MAX_DIMS];                                       \
            int64_t off = tl_rspace_seek(rs, rb, idx);                      \
            for (int64_t j = 0; j < n; j++) {                               \
                acc[j] = 0;                                                 \
            }                                                               \
            int64_t r = rb;                                                 \
            for (; re - r >= 8; r += 8) {                                   \
                const T *q[8];                                              \
                ROWS8(T, q, base, rs, idx, off, n);                         \
                norm2_c8_##N(acc, q, n);                                    \
            }                                                               \
            for (; r < re; r++) {                                           \
                const T *q = (const T *)(base + off);                       \
                for (int64_t j = 0; j < n; j++) {                           \
                    acc[j] += (double)q[j] * (double)q[j];                  \
                }                                                           \
                off = tl_rspace_next(rs, idx, off);                         \
            }                                                               \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            memset(&res[j], 0, sizeof res[j]);                              \
            res[j].v.d[0] = acc[j];                                         \
        }                                                                   \
    }
DEF_NORM2_COLS(f64, double, dsumsq, var_cols_f64)
DEF_NORM2_COLS(f32, float, fsumsq, var_fcols_f32)

#define DEF_VAR_CPX(N, RT)                                                  \
    static void var_row_##N(const char *p, int64_t n, int64_t s,             \
                            int64_t idx0, const tl_racc *aux, tl_racc *res)  \
    {                                                                       \
        const double mr = aux->v.d[0], mi = aux->v.d[1];                    \
        double ss[2] = {0, 0}, sl[2] = {0, 0}, cr = 0, ci = 0;              \
        for (int64_t i = 0; i < n; i++) {                                   \
            const RT *z = (const RT *)(p + i * s);                          \
            const double dr = (double)z[0] - mr, di = (double)z[1] - mi;    \
            cr += dr;                                                       \
            ci += di;                                                       \
            dd_acc(&ss[i & 1], &sl[i & 1], dr * dr + di * di);              \
        }                                                                   \
        dd_add(&ss[0], &sl[0], ss[1], sl[1]);                               \
        res->v.d[0] = ss[0];                                                \
        res->v.d[3] = sl[0];                                                \
        res->v.d[1] = cr;                                                   \
        res->v.d[2] = ci;                                                   \
    }                                                                       \
    static void var_cols_##N(const char *base, int64_t n, int64_t cs,        \
                             const tl_rspace *rs, int64_t rb, int64_t re,    \
                             const tl_racc *aux, tl_racc *res)               \
    {                                                                       \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = res[j].v.d[1] = res[j].v.d[2] = 0;              \
            res[j].v.d[3] = 0;                                              \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        for (int64_t r = rb; r < re; r++) {                                 \
            const char *p = base + off;                                     \
            for (int64_t j = 0; j < n; j++) {                               \
                const RT *z = (const RT *)(p + j * cs);                     \
                const double dr = (double)z[0] - aux[j].v.d[0];             \
                const double di = (double)z[1] - aux[j].v.d[1];             \
                dd_acc(&res[j].v.d[0], &res[j].v.d[3], dr * dr + di * di);  \
                res[j].v.d[1] += dr;                                        \
                res[j].v.d[2] += di;                                        \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            if (!isfinite(res[j].v.d[0])) {                                 \
                res[j].v.d[3] = 0;                                          \
            }                                                               \
        }                                                                   \
    }

DEF_VAR_CPX(c64, float)
DEF_VAR_CPX(c128, double)

/* ---- nansum / nanmean ---------------------------------------------------- */

/* NaN-skipping sums of the real float types.  Records: the sum in d[0] +
 * d[1] (a compensated pair for float64, d[1] = 0 otherwise, as the sum
 * family keeps them) and in u[2] the count of non-NaN elements, nanmean's
 * divisor.  A NaN adds 0 and is not counted (a select, no branch: the
 * lane loops vectorise); infinities are values. */
#define NAN_ADD_PLAIN(h, l, x) ((h) += (x))
#define NAN_ADD_COMP(h, l, x) dd_acc(&(h), &(l), (x))
/* The contiguous part of a row, m a multiple of 8, into the 8 lanes of
 * h, l and c (kept in locals inside the loop so that they stay in
 * registers); DISPATCHED (Note [AVX2 dispatch]) for float32/float64. */
#define DEF_NANLANES(N, T, LD, ADD)                                         \
    static TL_ALWAYS_INLINE void nanlanes_##N##_body(                       \
        const T *q, int64_t m, double *ho, double *lo, uint64_t *co)        \
    {                                                                       \
        double h[8] = {0}, l[8] = {0};                                      \
        uint64_t c[8] = {0};                                                \
        for (int64_t i = 0; i < m; i += 8) {                                \
            for (int k = 0; k < 8; k++) {                                   \
                const double x = (double)LD(q[i + k]);                      \
                const int ok = x == x;                                      \
                ADD(h[k], l[k], ok ? x : 0.0);                              \
                c[k] += (uint64_t)ok;                                       \
            }                                                               \
        }                                                                   \
        memcpy(ho, h, sizeof h);                                            \
        memcpy(lo, l, sizeof l);                                            \
        memcpy(co, c, sizeof c);                                            \
    }
#define DEF_NANSUM(N, T, LD, ADD, LANES, COLROW, COLS8)                     \
    static void nansum_row_##N(const char *p, int64_t n, int64_t s,          \
                               int64_t idx0, const tl_racc *aux,             \
                               tl_racc *res)                                 \
    {                                                                       \
        double h[8] = {0}, l[8] = {0};                                      \
        uint64_t c[8] = {0};                                                \
        int64_t i = 0;                                                      \
        if (s == (int64_t)sizeof(T)) {                                      \
            i = n - n % 8;                                                  \
            LANES((const T *)p, i, h, l, c);                                \
        }                                                                   \
        for (; i < n; i++) {                                                \
            const double x = (double)LD(*(const T *)(p + i * s));           \
            const int ok = x == x;                                          \
            ADD(h[i & 7], l[i & 7], ok ? x : 0.0);                          \
            c[i & 7] += (uint64_t)ok;                                       \
        }                                                                   \
        uint64_t cnt = 0;                                                   \
        for (int k = 0; k < 8; k++) {                                       \
            cnt += c[k];                                                    \
        }                                                                   \
        dd_fold8(h, l);                                                     \
        dd_add(&h[0], &l[0], h[1], l[1]);                                   \
        res->v.d[0] = h[0];                                                 \
        res->v.d[1] = isfinite(h[0]) ? l[0] : 0;                            \
        res->v.u[2] = cnt;                                                  \
    }                                                                       \
    static void nansum_cols_##N(const char *base, int64_t n, int64_t cs,     \
                                const tl_rspace *rs, int64_t rb, int64_t re, \
                                const tl_racc *aux, tl_racc *res)            \
    {                                                                       \
        double h[TILE], l[TILE];                                            \
        uint64_t c[TILE];                                                   \
        int64_t idx[TL_MAX_DIMS];                                           \
        for (int64_t j = 0; j < n; j++) {                                   \
            h[j] = 0;                                                       \
            l[j] = 0;                                                       \
            c[j] = 0;                                                       \
        }                                                                   \
        int64_t off = tl_rspace_seek(rs, rb, idx);                          \
        int64_t r = rb;                                                     \
        if (cs == (int64_t)sizeof(T)) {                                     \
            /* Note [Nansum cols in blocks of 8 rows] */                    \
            for (; re - r >= 8; r += 8) {                                   \
                const T *q8[8];                                             \
                ROWS8(T, q8, base, rs, idx, off, n);                        \
                COLS8(h, l, c, q8, n);                                      \
            }                                                               \
        }                                                                   \
        for (; r < re; r++) {                                               \
            const char *p = base + off;                                     \
            if (cs == (int64_t)sizeof(T)) {                                 \
                COLROW(h, l, c, (const T *)p, n);                           \
            } else {                                                        \
                for (int64_t j = 0; j < n; j++) {                           \
                    const double x = (double)LD(*(const T *)(p + j * cs));  \
                    const int ok = x == x;                                  \
                    ADD(h[j], l[j], ok ? x : 0.0);                          \
                    c[j] += (uint64_t)ok;                                   \
                }                                                           \
            }                                                               \
            off = tl_rspace_next(rs, idx, off);                             \
        }                                                                   \
        for (int64_t j = 0; j < n; j++) {                                   \
            res[j].v.d[0] = h[j];                                           \
            res[j].v.d[1] = isfinite(h[j]) ? l[j] : 0;                      \
            res[j].v.u[2] = c[j];                                           \
        }                                                                   \
    }

DEF_NANLANES(f16, uint16_t, LDH, NAN_ADD_PLAIN)
DEF_NANLANES(bf16, uint16_t, LDBF, NAN_ADD_PLAIN)

/* float64 (float32 rows: Note [Float32 nansum in lane blocks]): the same
 * lanes and operations as DEF_NANLANES in explicit 4-wide vectors (gcc
 * does not if-convert the scalar form's select, so it ran a
 * compare-and-branch per element): the not-NaN mask keeps x or makes it
 * +0 and, as -1, counts itself. */
#if defined(__GNUC__)
typedef float nan_v4f __attribute__((vector_size(16)));
typedef double nan_v4d __attribute__((vector_size(32)));
typedef int64_t nan_v4i __attribute__((vector_size(32)));
#define NAN_KEEP(x, k) ((nan_v4d)((nan_v4i)(x) & (k)))
/* v = the 4 doubles at p with NaNs made +0, k their not-NaN mask. */
#define NAN_LD4(v, k, p)                                                    \
    nan_v4d v;                                                              \
    memcpy(&v, (p), sizeof v);                                              \
    const nan_v4i k = v == v;                                               \
    v = NAN_KEEP(v, k)
/* s = the tree sum of the 8 vectors at p, p + 8, ..., p + 56 with NaNs
 * made +0 (TREE8_4D's block), nn = minus the count of the rest. */
#define NAN_TREE8_4D(s, nn, p)                                              \
    do {                                                                    \
        NAN_LD4(v0_, k0_, (p));                                             \
        NAN_LD4(v1_, k1_, (p) + 8);                                         \
        NAN_LD4(v2_, k2_, (p) + 16);                                        \
        NAN_LD4(v3_, k3_, (p) + 24);                                        \
        NAN_LD4(v4_, k4_, (p) + 32);                                        \
        NAN_LD4(v5_, k5_, (p) + 40);                                        \
        NAN_LD4(v6_, k6_, (p) + 48);                                        \
        NAN_LD4(v7_, k7_, (p) + 56);                                        \
        (nn) = ((k0_ + k1_) + (k2_ + k3_)) + ((k4_ + k5_) + (k6_ + k7_));   \
        (s) = ((v0_ + v1_) + (v2_ + v3_)) + ((v4_ + v5_) + (v6_ + v7_));   \
    } while (0)

/* Note [Nansum blocks without NaN]
 * A block adds its 64 doubles in the float64 sum's trees first, as they
 * are; only when a lane of the two trees came out NaN (a NaN read, or
 * infinities of both signs) does it add them again with each NaN made
 * +0 under its compare mask, and count them.  Without a NaN the masks
 * keep every value's bits, so both ways give the same sums.  From memory
 * the masks' 32 extra vector operations per block cost a quarter of the
 * time (2^22 doubles, one thread, Zen 3: 3.2-3.5 ms against the sum's
 * 2.3-2.6): the loop fits fewer blocks in the core's window of loads in
 * flight.  A block with a NaN pays both trees, so the NAN_MASKED_BLOCKS
 * blocks after it take the masks at once (where NaNs are dense, in
 * cache, paying both trees on every block cost 30-60 %).
 *
 * count false: co is not written (nansum's kernels, Note [Nansum without
 * the count]). */
#define NAN_MASKED_BLOCKS 16
/* The 8 compensated lanes of the sum of the non-NaN elements of q[0..m)
 * (m >= 1), and with count their counts, as lanes_f64_acc's. */
static TL_ALWAYS_INLINE void nanlanes_f64_acc(const double *q, int64_t m,
                                              nan_v4d *H0, nan_v4d *H1,
                                              nan_v4d *L0, nan_v4d *L1,
                                              nan_v4i *C0, nan_v4i *C1,
                                              bool count)
{
    nan_v4d h0 = {0, 0, 0, 0}, h1 = h0, l0 = h0, l1 = h0;
    nan_v4i c0 = {0, 0, 0, 0}, c1 = c0;
    int64_t i = 0;
    /* Blocks of 64 as the float64 sum's (Note [Float64 lane blocks]),
     * NaNs made +0 before the tree (Note [Nansum blocks without NaN]). */
    const int64_t mb = m - m % F64_BLOCK;
    while (i < mb) {
        /* Blocks without a NaN: the sum's trees, then a check. */
        for (; i < mb; i += F64_BLOCK) {
            nan_v4d s0, s1;
            for (int k = 0; k < F64_BLOCK; k += 8) {
                PREFETCH_AHEAD(q + i + k);
            }
            TREE8_4D(s0, q + i);
            TREE8_4D(s1, q + i + 4);
            const nan_v4d u = s0 + s1;
            const double any = (u[0] + u[1]) + (u[2] + u[3]);
            if (__builtin_expect(any != any, 0)) {
                break;
            }
            if (count) {
                c0 += F64_BLOCK / 8;
                c1 += F64_BLOCK / 8;
            }
            TWO_SUM_4D(h0, l0, s0);
            TWO_SUM_4D(h1, l1, s1);
        }
        /* That block again, and NAN_MASKED_BLOCKS more, NaNs made +0. */
        const int64_t end = mb - i > (NAN_MASKED_BLOCKS + 1) * F64_BLOCK
                                ? i + (NAN_MASKED_BLOCKS + 1) * F64_BLOCK
                                : mb;
        for (; i < end; i += F64_BLOCK) {
            nan_v4d s0, s1;
            nan_v4i n0, n1;
            for (int k = 0; k < F64_BLOCK; k += 8) {
                PREFETCH_AHEAD(q + i + k);
            }
            NAN_TREE8_4D(s0, n0, q + i);
            NAN_TREE8_4D(s1, n1, q + i + 4);
            if (count) {
                c0 -= n0;
                c1 -= n1;
            }
            TWO_SUM_4D(h0, l0, s0);
            TWO_SUM_4D(h1, l1, s1);
        }
    }
    if (m >= 8 && i < m) {
        /* The partial block as the sum's (lanes_f64_acc), NaNs made +0
         * and counted out under the same masks. */
        const double *w = q + i;
        nan_v4i k0, k1;
        nan_v4d ta, tb;
        PARTIAL_8D_LOAD(c, r, k0, k1, ta, tb);
        k0 &= ta == ta;
        k1 &= tb == tb;
        ta = NAN_KEEP(ta, k0);
        tb = NAN_KEEP(tb, k1);
        c0 -= k0;
        c1 -= k1;
#define VA(j) ({ nan_v4d v_; memcpy(&v_, w + 8 * (j), sizeof v_);           \
                 const nan_v4i e_ = v_ == v_; c0 -= e_; NAN_KEEP(v_, e_); })
#define VB(j) ({ nan_v4d v_; memcpy(&v_, w + 8 * (j) + 4, sizeof v_);       \
                 const nan_v4i e_ = v_ == v_; c1 -= e_; NAN_KEEP(v_, e_); })
        nan_v4d s0, s1;
        TREE_OF_C(VA, ta, s0)
        TREE_OF_C(VB, tb, s1)
#undef VA
#undef VB
        PARTIAL_8D_TAKE(s0, s1);
        i = m;
    } else if (i < m) {
        /* fewer than 8: each in a lane of its own, exactly */
        double t[8] = {0};
        int64_t tc[8] = {0};
        for (int64_t k = 0; k < m; k++) {
            t[k] = q[k] == q[k] ? q[k] : 0.0;
            tc[k] = q[k] == q[k];
        }
        memcpy(&h0, t, sizeof h0);
        memcpy(&h1, t + 4, sizeof h1);
        memcpy(&c0, tc, sizeof c0);
        memcpy(&c1, tc + 4, sizeof c1);
        i = m;
    }
    *H0 = h0;
    *H1 = h1;
    *L0 = l0;
    *L1 = l1;
    if (count) {
        *C0 = c0;
        *C1 = c1;
    }
}

/* nanlanes_f64_acc's lanes to ho[0..8), lo[0..8) and co[0..8). */
static TL_ALWAYS_INLINE void nanlanes_f64_impl(const double *q, int64_t m,
                                               double *ho, double *lo,
                                               uint64_t *co, bool count)
{
    nan_v4d h0, h1, l0, l1;
    nan_v4i c0, c1;
    nanlanes_f64_acc(q, m, &h0, &h1, &l0, &l1, &c0, &c1, count);
    STORE_2V4D(ho, h0, h1);
    STORE_2V4D(lo, l0, l1);
    if (count) {
        memcpy(co, &c0, sizeof c0);
        memcpy(co + 4, &c1, sizeof c1);
    }
}
static TL_ALWAYS_INLINE void nanlanes_f64_body(const double *q, int64_t m,
                                               double *ho, double *lo,
                                               uint64_t *co)
{
    nanlanes_f64_impl(q, m, ho, lo, co, true);
}
#undef NAN_TREE8_4D
#undef NAN_LD4
#undef NAN_KEEP
#else
DEF_NANLANES(f32, float, LDID, NAN_ADD_PLAIN)
DEF_NANLANES(f64, double, LDID, NAN_ADD_COMP)
DISPATCHED(nanlanes_f32,
           (const float *q, int64_t m, double *h, double *l, uint64_t *c),
           (q, m, h, l, c))
#endif

#if defined(__GNUC__)
/* Note [Float32 nansum in lane blocks]
 * A contiguous float32 run of nansum/nanmean adds as the float32 sum
 * does (Note [Float32 lane blocks]: blocks of F32_BLOCK floats in 64
 * float32 lanes, 8 deep, their 8 vectors as a tree, then float64), a
 * NaN made +0 under its compare
 * mask and counted out of the same mask in one int32 vector (at most
 * F32_BLOCK a block).  Converting every element to float64, as the
 * other nansums do, bounded it at 1.6-1.9x PyTorch's time (one thread:
 * 2^22 floats 0.54 -> 0.48 ms, rows of 2048^2 0.64 -> 0.57 ms; PyTorch
 * 0.44-0.50 in the same runs).  A block whose float64 sum is not finite (an
 * infinity, or a float32 lane that overflowed) is summed again in
 * float64 without its NaNs.  The same operations in the same order on
 * every ISA.  Results go to ho[0] and co[0] (the other lanes 0).  Below
 * the last block the partial block adds as the sum's does, a tree of its
 * vectors of 8 with a masked last one (a run shorter than 8 goes one by
 * one): over rows of 16 and 60 floats the rows had gone element by
 * element, 2.5-4.7x PyTorch's time.
 *
 * Plain blocks first: the compare and mask per vector made a NaN-free
 * float32 nansum 1.04-1.24x PyTorch's time (2^22 floats, one thread: 312-
 * 326 us, our sum 251-254, PyTorch's nansum 288-294).  So a block is
 * first added without them.  If its float64 sum is finite, no element
 * was NaN (a NaN makes the sum NaN), every element counts, and the sum
 * is the masked one bit for bit (the mask keeps a non-NaN x unchanged).
 * Otherwise the block is added again under the masks, from L1, and the
 * rest of the run goes masked at once (a run with one NaN block likely
 * has more; this costs at most one plain block per run on NaN-rich
 * data).  Which way a block went never changes its sum. */
static TL_ALWAYS_INLINE void nanblocks_f32_impl(const float *q, int64_t m,
                                                double *ho, double *lo,
                                                uint64_t *co, const bool count)
{
    typedef int32_t v8i __attribute__((vector_size(32)));
    typedef float v4f __attribute__((vector_size(16)));
    typedef double v4d __attribute__((vector_size(32)));
#define LO4(x) ((v4f){(x)[0], (x)[1], (x)[2], (x)[3]})
#define HI4(x) ((v4f){(x)[4], (x)[5], (x)[6], (x)[7]})
#define WIDE(x) (CVT4D(LO4(x)) + CVT4D(HI4(x)))
#define KEEP8(x) ((tl_v8f)((v8i)(x) & ((x) == (x))))
    v4d tot = {0, 0, 0, 0};
    double e = 0;
    int64_t cnt = 0;
    int64_t i = 0;
    bool masked = false; /* plain blocks first (see above) */
    while (i + 64 <= m) {
        const int64_t start = i;
        const int64_t end = m - i >= F32_BLOCK ? i + F32_BLOCK
                                               : i + (m - i) / 64 * 64;
        const tl_v8f z = {0, 0, 0, 0, 0, 0, 0, 0};
        tl_v8f a0 = z, a1 = z, a2 = z, a3 = z, a4 = z, a5 = z, a6 = z,
               a7 = z;
        if (!masked) {
            int64_t j = start;
            ADD64_RUN(a, q, j, end);
            const v4d b = WIDE(((a0 + a1) + (a2 + a3)) +
                               ((a4 + a5) + (a6 + a7)));
            if (TL_LIKELY(isfinite((b[0] + b[1]) + (b[2] + b[3])))) {
                tot += b;
                cnt += end - start;
                i = end;
                continue;
            }
            masked = true;
            a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = z;
        }
        v8i nn = {0, 0, 0, 0, 0, 0, 0, 0};
        for (; i < end; i += 64) {
            tl_v8f x0, x1, x2, x3, x4, x5, x6, x7;
            PREFETCH_AHEAD(q + i);
            PREFETCH_AHEAD(q + i + 16);
            PREFETCH_AHEAD(q + i + 32);
            PREFETCH_AHEAD(q + i + 48);
            LOAD64(x, q + i);
            if (count) {
                nn += (((x0 == x0) + (x1 == x1)) +
                       ((x2 == x2) + (x3 == x3))) +
                      (((x4 == x4) + (x5 == x5)) +
                       ((x6 == x6) + (x7 == x7)));
            }
            a0 += KEEP8(x0);
            a1 += KEEP8(x1);
            a2 += KEEP8(x2);
            a3 += KEEP8(x3);
            a4 += KEEP8(x4);
            a5 += KEEP8(x5);
            a6 += KEEP8(x6);
            a7 += KEEP8(x7);
        }
        for (int k = 0; k < 8; k++) {
            cnt -= nn[k];
        }
        const v4d b = WIDE(((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)));
        if (TL_UNLIKELY(!isfinite((b[0] + b[1]) + (b[2] + b[3])))) {
            double be = 0;
            for (int64_t j = start; j < end; j++) {
                const double x = (double)q[j];
                be += x == x ? x : 0.0;
            }
            e += be;
        } else {
            tot += b;
        }
    }
    if (m >= 8 && i < m) {
        /* The partial block as the sum's (Note [Float32 lane blocks]):
         * c vectors of 8, the last q[m-8..m) with the elements before
         * start masked off, NaNs made +0, as a tree; counted under the
         * same masks. */
        const int64_t start = i;
        const int64_t c = (m - i + 7) / 8, r = (m - i) - 8 * (c - 1);
        const float *w = q + i;
        tl_v8f t;
        v8i k;
        memcpy(&t, q + m - 8, sizeof t);
        memcpy(&k, f32_tail_mask + r, sizeof k);
        if (count) {
            v8i nn = (t == t) & k;
            for (int64_t j = 0; j + 1 < c; j++) {
                tl_v8f x;
                memcpy(&x, w + 8 * j, sizeof x);
                nn += x == x;
            }
            for (int j = 0; j < 8; j++) {
                cnt -= nn[j];
            }
        }
        t = (tl_v8f)((v8i)KEEP8(t) & k);
#define V8(j) ({ tl_v8f v_; memcpy(&v_, w + 8 * (j), sizeof v_); KEEP8(v_); })
        tl_v8f a;
        TREE_OF_C(V8, t, a)
#undef V8
        const v4d b = WIDE(a);
        if (TL_UNLIKELY(!isfinite((b[0] + b[1]) + (b[2] + b[3])))) {
            double be = 0;
            for (int64_t j = start; j < m; j++) {
                const double x = (double)q[j];
                be += x == x ? x : 0.0;
            }
            e += be;
        } else {
            tot += b;
        }
        i = m;
    }
#undef LO4
#undef HI4
#undef WIDE
#undef KEEP8
    e += (tot[0] + tot[1]) + (tot[2] + tot[3]);
    for (; i < m; i++) {
        const double x = (double)q[i];
        const int ok = x == x;
        e += ok ? x : 0.0;
        cnt += ok;
    }
    if (!count) {
        *ho = e;
        return;
    }
    for (int k = 0; k < 8; k++) {
        ho[k] = 0;
        lo[k] = 0;
        co[k] = 0;
    }
    ho[0] = e;
    co[0] = (uint64_t)cnt;
}
static TL_ALWAYS_INLINE void nanblocks_f32_body(const float *q, int64_t m,
                                                double *ho, double *lo,
                                                uint64_t *co)
{
    nanblocks_f32_impl(q, m, ho, lo, co, true);
}
DISPATCHED(nanblocks_f32,
           (const float *q, int64_t m, double *h, double *l, uint64_t *c),
           (q, m, h, l, c))
/* Note [Nansum without the count]
 * nanmean divides by the count of non-NaN elements; nansum never reads
 * it, and counting was a fifth of a float32 row's time (2^22 floats, one
 * thread: 371 -> 295 us without it).  So nansum has its own family,
 * TL_RF_NANSUM_NC, whose float32 row kernel adds the same blocks without
 * the count and leaves u[2] 0; its other kernels are nanmean's (a count
 * no one reads). */
static TL_ALWAYS_INLINE void nanblocks_nc_f32_body(const float *q, int64_t m,
                                                   double *e)
{
    nanblocks_f32_impl(q, m, e, NULL, NULL, false);
}
DISPATCHED(nanblocks_nc_f32, (const float *q, int64_t m, double *e),
           (q, m, e))

/* One float32 row of nansum: the blocks, then the tail in float64. */
static void nansum_nc_row_f32(const char *p, int64_t n, int64_t s,
                              int64_t idx0, const tl_racc *aux, tl_racc *res)
{
    double e = 0;
    int64_t i = 0;
    if (s == (int64_t)sizeof(float)) {
        i = n;
        nanblocks_nc_f32((const float *)p, n, &e);
    }
    for (; i < n; i++) {
        const double x = (double)*(const float *)(p + i * s);
        e += x == x ? x : 0.0;
    }
    res->v.d[0] = e;
    res->v.d[1] = 0;
    res->v.u[2] = 0;
}
DEF_ROW_RUN(nansum_nc_f32, float, nansum_nc_row_f32, {
    nanblocks_nc_f32_body(q, n, &r->v.d[0]);
    r->v.d[1] = 0;
    r->v.u[2] = 0;
})
#define NANSUM_NC_ROW_f32 nansum_nc_row_f32
#define NANSUM_NC_ROWS_f32 nansum_nc_f32_rows
#define NANSUM_ROW_LANES_f32 nanblocks_f32
#else
#define NANSUM_ROW_LANES_f32 nanlanes_f32
#define NANSUM_NC_ROW_f32 nansum_row_f32
#define NANSUM_NC_ROWS_f32 NULL
#endif
DISPATCHED(nanlanes_f64,
           (const double *q, int64_t m, double *h, double *l, uint64_t *c),
           (q, m, h, l, c))

/* One contiguous row of n columns into the per-column records (h, l, c)
 * of a nansum cols kernel.  The scalar form (j from 0 on, or the tail
 * of the vector form) adds in the same order per column as the vector
 * one, so both give the same bits. */
#define DEF_NANCOLROW_TAIL(N, T, LD, ADD)                                   \
    static TL_ALWAYS_INLINE void nancolrow_##N##_tail(                      \
        double *h, double *l, uint64_t *c, const T *q, int64_t j,           \
        int64_t n)                                                          \
    {                                                                       \
        for (; j < n; j++) {                                                \
            const double x = (double)LD(q[j]);                              \
            const int ok = x == x;                                          \
            ADD(h[j], l[j], ok ? x : 0.0);                                  \
            c[j] += (uint64_t)ok;                                           \
        }                                                                   \
    }
#define DEF_NANCOLROW_SCALAR(N, T, LD, ADD)                                 \
    DEF_NANCOLROW_TAIL(N, T, LD, ADD)                                       \
    static void nancolrow_##N(double *h, double *l, uint64_t *c,            \
                              const T *q, int64_t n)                        \
    {                                                                       \
        nancolrow_##N##_tail(h, l, c, q, 0, n);                             \
    }
DEF_NANCOLROW_SCALAR(f16, uint16_t, LDH, NAN_ADD_PLAIN)
DEF_NANCOLROW_SCALAR(bf16, uint16_t, LDBF, NAN_ADD_PLAIN)
#if defined(__GNUC__)
#define nancolrow_f32 nancolrow_v_f32
#define nancolrow_f64 nancolrow_v_f64
DEF_NANCOLROW_TAIL(s_f32, float, LDID, NAN_ADD_PLAIN)
DEF_NANCOLROW_TAIL(s_f64, double, LDID, NAN_ADD_COMP)
#define NAN_KEEP(x, k) ((nan_v4d)((nan_v4i)(x) & (k)))

/* Four columns at a time, as nanlanes_*_body: the not-NaN mask keeps x
 * or makes it +0 and, as -1, counts itself (gcc leaves the scalar
 * select a branch: nansum over dim 0 ran 2-2.8x PyTorch's time). */
static TL_ALWAYS_INLINE void nancolrow_v_f32_body(double *h, double *l,
                                                  uint64_t *c,
                                                  const float *q, int64_t n)
{
    typedef nan_v4d v4d; /* for CVT4D */
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        nan_v4f x4;
        nan_v4d hv;
        nan_v4i cv;
        memcpy(&x4, q + j, sizeof x4);
        memcpy(&hv, h + j, sizeof hv);
        memcpy(&cv, c + j, sizeof cv);
        const v4d x = CVT4D(x4);
        const nan_v4i k = x == x;
        hv += NAN_KEEP(x, k);
        cv -= k;
        memcpy(h + j, &hv, sizeof hv);
        memcpy(c + j, &cv, sizeof cv);
    }
    nancolrow_s_f32_tail(h, l, c, q, j, n);
}

static TL_ALWAYS_INLINE void nancolrow_v_f64_body(double *h, double *l,
                                                  uint64_t *c,
                                                  const double *q, int64_t n)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        nan_v4d x, hv, lv;
        nan_v4i cv;
        memcpy(&x, q + j, sizeof x);
        memcpy(&hv, h + j, sizeof hv);
        memcpy(&lv, l + j, sizeof lv);
        memcpy(&cv, c + j, sizeof cv);
        const nan_v4i k = x == x;
        const nan_v4d y = NAN_KEEP(x, k);
        const nan_v4d t = hv + y; /* dd_acc, 4 columns */
        const nan_v4d b = t - hv;
        lv += (hv - (t - b)) + (y - b);
        cv -= k;
        memcpy(h + j, &t, sizeof t);
        memcpy(l + j, &lv, sizeof lv);
        memcpy(c + j, &cv, sizeof cv);
    }
    nancolrow_s_f64_tail(h, l, c, q, j, n);
}
#undef NAN_KEEP
DISPATCHED(nancolrow_v_f32,
           (double *h, double *l, uint64_t *c, const float *q, int64_t n),
           (h, l, c, q, n))
DISPATCHED(nancolrow_v_f64,
           (double *h, double *l, uint64_t *c, const double *q, int64_t n),
           (h, l, c, q, n))
#else
DEF_NANCOLROW_SCALAR(f32, float, LDID, NAN_ADD_PLAIN)
DEF_NANCOLROW_SCALAR(f64, double, LDID, NAN_ADD_COMP)
#endif

/* Note [Nansum cols in blocks of 8 rows]
 * A nansum over rows further apart (dim 0 of a matrix) took each row
 * into the per-column records (h, l, c) one row at a time: three loads
 * and three stores per element read, and for float64 the two-sum of
 * every element.  Over dim 0 of a 2048^2 float64 matrix that was 4.0-4.4
 * ms, four times our own sum (0.94-1.2 ms) and 2.3 times a plain C sum
 * (1.76 ms; PyTorch's nansum 3.3-4.5 ms); float32 1.7-2.1 ms against
 * 0.8.  Now 8 rows at a time, as the sums' blocks do (Note [Cols in
 * blocks of 8 rows]): each column's 8 values, NaNs made +0, add as a
 * pairwise tree in float64, and the block sum goes into the records once
 * (a two-sum for float64, so the compensated sum runs over block sums:
 * the tree adds at most 3 roundings, each within 2^-53 of the block's
 * magnitudes, where NumPy adds the rows one by one); the not-NaN masks
 * add up to the block's count.  Each column's order depends on its own
 * rows only (blocks start at the call's first row), and the vector form
 * and its scalar tail do the same operations, so the AVX2 and baseline
 * clones and any tile width give the same bits. */
#define DEF_NANCOLS8_TAIL(N, T, LD, ADD)                                    \
    static TL_ALWAYS_INLINE void nancols8_##N##_tail(                       \
        double *h, double *l, uint64_t *c, const T *const *q, int64_t j,    \
        int64_t n)                                                          \
    {                                                                       \
        for (; j < n; j++) {                                                \
            double y[8];                                                    \
            uint64_t cnt = 0;                                               \
            for (int k = 0; k < 8; k++) {                                   \
                const double x = (double)LD(q[k][j]);                       \
                const int ok = x == x;                                      \
                y[k] = ok ? x : 0.0;                                        \
                cnt += (uint64_t)ok;                                        \
            }                                                               \
            ADD(h[j], l[j],                                                 \
                ((y[0] + y[1]) + (y[2] + y[3])) +                           \
                    ((y[4] + y[5]) + (y[6] + y[7])));                       \
            c[j] += cnt;                                                    \
        }                                                                   \
    }
#define DEF_NANCOLS8_SCALAR(N, T, LD, ADD)                                  \
    DEF_NANCOLS8_TAIL(N, T, LD, ADD)                                        \
    static void nancols8_##N(double *h, double *l, uint64_t *c,             \
                             const T *const *q, int64_t n)                  \
    {                                                                       \
        nancols8_##N##_tail(h, l, c, q, 0, n);                              \
    }
DEF_NANCOLS8_SCALAR(f16, uint16_t, LDH, NAN_ADD_PLAIN)
DEF_NANCOLS8_SCALAR(bf16, uint16_t, LDBF, NAN_ADD_PLAIN)
#if defined(__GNUC__)
DEF_NANCOLS8_TAIL(s_f32, float, LDID, NAN_ADD_PLAIN)
DEF_NANCOLS8_TAIL(s_f64, double, LDID, NAN_ADD_COMP)
#define NAN_KEEP(x, k) ((nan_v4d)((nan_v4i)(x) & (k)))
/* y[r] = the 4 values of row r at column j with NaNs made +0, k[r] their
 * not-NaN masks; LOAD4(x, p) loads 4 values at p as a nan_v4d. */
#define NANCOLS8_LOAD(y, k, q, j, LOAD4)                                    \
    for (int r_ = 0; r_ < 8; r_++) {                                        \
        nan_v4d x_;                                                         \
        LOAD4(x_, (q)[r_] + (j));                                           \
        (k)[r_] = x_ == x_;                                                 \
        (y)[r_] = NAN_KEEP(x_, (k)[r_]);                                    \
    }
#define NAN_TREE8(v)                                                        \
    (((v)[0] + (v)[1]) + ((v)[2] + (v)[3])) +                               \
        (((v)[4] + (v)[5]) + ((v)[6] + (v)[7]))
#define NAN_LOAD4_F64(x, p) memcpy(&(x), (p), sizeof(x))
#define NAN_LOAD4_F32(x, p)                                                 \
    do {                                                                    \
        typedef nan_v4d v4d; /* for CVT4D */                                \
        nan_v4f f_;                                                         \
        memcpy(&f_, (p), sizeof f_);                                        \
        (x) = CVT4D(f_);                                                    \
    } while (0)

static TL_ALWAYS_INLINE void nancols8_v_f32_body(double *h, double *l,
                                                 uint64_t *c,
                                                 const float *const *q,
                                                 int64_t n)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        nan_v4d y[8], hv;
        nan_v4i k[8], cv;
        NANCOLS8_LOAD(y, k, q, j, NAN_LOAD4_F32)
        memcpy(&hv, h + j, sizeof hv);
        memcpy(&cv, c + j, sizeof cv);
        hv += NAN_TREE8(y);
        cv -= NAN_TREE8(k);
        memcpy(h + j, &hv, sizeof hv);
        memcpy(c + j, &cv, sizeof cv);
    }
    nancols8_s_f32_tail(h, l, c, q, j, n);
}

static TL_ALWAYS_INLINE void nancols8_v_f64_body(double *h, double *l,
                                                 uint64_t *c,
                                                 const double *const *q,
                                                 int64_t n)
{
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        nan_v4d y[8], hv, lv;
        nan_v4i k[8], cv;
        NANCOLS8_LOAD(y, k, q, j, NAN_LOAD4_F64)
        memcpy(&hv, h + j, sizeof hv);
        memcpy(&lv, l + j, sizeof lv);
        memcpy(&cv, c + j, sizeof cv);
        const nan_v4d s = NAN_TREE8(y);
        const nan_v4d t = hv + s; /* dd_acc, 4 columns */
        const nan_v4d b = t - hv;
        lv += (hv - (t - b)) + (s - b);
        cv -= NAN_TREE8(k);
        memcpy(h + j, &t, sizeof t);
        memcpy(l + j, &lv, sizeof lv);
        memcpy(c + j, &cv, sizeof cv);
    }
    nancols8_s_f64_tail(h, l, c, q, j, n);
}
#undef NAN_KEEP
DISPATCHED(nancols8_v_f32,
           (double *h, double *l, uint64_t *c, const float *const *q,
            int64_t n),
           (h, l, c, q, n))
DISPATCHED(nancols8_v_f64,
           (double *h, double *l, uint64_t *c, const double *const *q,
            int64_t n),
           (h, l, c, q, n))
#define nancols8_f32 nancols8_v_f32
#define nancols8_f64 nancols8_v_f64
#else
DEF_NANCOLS8_SCALAR(f32, float, LDID, NAN_ADD_PLAIN)
DEF_NANCOLS8_SCALAR(f64, double, LDID, NAN_ADD_COMP)
#endif
DEF_NANSUM(f16, uint16_t, LDH, NAN_ADD_PLAIN, nanlanes_f16_body,
           nancolrow_f16, nancols8_f16)
DEF_NANSUM(bf16, uint16_t, LDBF, NAN_ADD_PLAIN, nanlanes_bf16_body,
           nancolrow_bf16, nancols8_bf16)
DEF_NANSUM(f32, float, LDID, NAN_ADD_PLAIN, NANSUM_ROW_LANES_f32,
           nancolrow_f32, nancols8_f32)
DEF_NANSUM(f64, double, LDID, NAN_ADD_COMP, nanlanes_f64, nancolrow_f64,
           nancols8_f64)

#if defined(__GNUC__)
/* The nansum of the contiguous n >= 1 doubles at q into *res (u[2] 0):
 * the lanes of nanlanes_f64_acc folded as lanes1_f64 folds the sum's, in
 * registers (the lanes had gone through memory into dd_fold8). */
static TL_ALWAYS_INLINE void nansum1_nc_f64_body(const double *q, int64_t n,
                                                 tl_racc *res)
{
    nan_v4d h0, h1, l0, l1;
    nanlanes_f64_acc(q, n, &h0, &h1, &l0, &l1, NULL, NULL, false);
    lanes_f64_fold(&h0, &h1, &l0, &l1, &res->v.d[0], &res->v.d[1]);
    res->v.u[2] = 0;
}
DISPATCHED(nansum1_nc_f64, (const double *q, int64_t n, tl_racc *res),
           (q, n, res))

/* nansum_row_f64 without the count (Note [Nansum without the count]):
 * the same lanes, folded in registers; u[2] is 0. */
static void nansum_nc_row_f64(const char *p, int64_t n, int64_t s,
                              int64_t idx0, const tl_racc *aux, tl_racc *res)
{
    if (s != (int64_t)sizeof(double)) {
        nansum_row_f64(p, n, s, idx0, aux, res);
        res->v.u[2] = 0;
        return;
    }
    nansum1_nc_f64((const double *)p, n, res);
}
DEF_ROW_RUN(nansum_nc_f64, double, nansum_nc_row_f64,
            nansum1_nc_f64_body(q, n, r))
#define NANSUM_NC_ROW_f64 nansum_nc_row_f64
#define NANSUM_NC_ROWS_f64 nansum_nc_f64_rows
#else
#define NANSUM_NC_ROW_f64 nansum_row_f64
#define NANSUM_NC_ROWS_f64 NULL
#endif

#ifdef TL_AVX2_DISPATCH
/* float32 nansum over close rows with AVX-512: 128 columns in register
 * strips (Note [Float32 cols in register strips]): sixteen float64 sums
 * and eight int32 counts of the non-NaN elements (a call has at most
 * TL_REDUCE_RCHUNK rows), a NaN made +0 before it converts.  Each
 * column adds in row order from 0, as nancolrow_f32 does, so the bits
 * are the same either way.  Dim 1 of (128, 256, 128), one thread:
 * 1.16 -> 0.67 ms (PyTorch 1.0-1.1). */
TL_TARGET_AVX512 static void nanstrip128_f32(double *h, uint64_t *c,
                                             const char *base, int64_t col,
                                             const tl_rspace *rs,
                                             int64_t rb, int64_t re)
{
    __m512d a[16];
    __m512i k1[8];
    for (int k = 0; k < 16; k++) {
        a[k] = _mm512_setzero_pd();
    }
    for (int k = 0; k < 8; k++) {
        k1[k] = _mm512_setzero_si512();
    }
    const __m512i minus1 = _mm512_set1_epi32(-1);
    int64_t idx[TL_MAX_DIMS];
    int64_t off = tl_rspace_seek(rs, rb, idx);
    for (int64_t r = rb; r < re; r++) {
        const float *q = (const float *)(base + off) + col;
        for (int k = 0; k < 8; k++) {
            const __m512 x = _mm512_loadu_ps(q + 16 * k);
            const __mmask16 ok = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
            const __m512 y = _mm512_maskz_mov_ps(ok, x);
            a[2 * k] = _mm512_add_pd(
                a[2 * k], _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
            a[2 * k + 1] = _mm512_add_pd(
                a[2 * k + 1], _mm512_cvtps_pd(_mm512_extractf32x8_ps(y, 1)));
            k1[k] = _mm512_mask_sub_epi32(k1[k], ok, k1[k], minus1);
        }
        off = tl_rspace_next(rs, idx, off);
    }
    for (int k = 0; k < 16; k++) {
        _mm512_storeu_pd(h + 8 * k, a[k]);
    }
    for (int k = 0; k < 8; k++) {
        uint32_t n32[16];
        _mm512_storeu_si512((void *)n32, k1[k]);
        for (int i = 0; i < 16; i++) {
            c[16 * k + i] = n32[i];
        }
    }
}
#endif

static void nansum_cols_f32s(const char *base, int64_t n, int64_t cs,
                             const tl_rspace *rs, int64_t rb, int64_t re,
                             const tl_racc *aux, tl_racc *res)
{
    int64_t j = 0;
#ifdef TL_AVX2_DISPATCH
    if (cs == (int64_t)sizeof(float) && fstrip_rows(rs) && have_avx512()) {
        double h[128];
        uint64_t c[128];
        for (; n - j >= 128; j += 128) {
            nanstrip128_f32(h, c, base, j, rs, rb, re);
            for (int k = 0; k < 128; k++) {
                res[j + k].v.d[0] = h[k];
                res[j + k].v.d[1] = 0;
                res[j + k].v.u[2] = c[k];
            }
        }
    }
#endif
    if (j < n) {
        nansum_cols_f32(base + j * cs, n - j, cs, rs, rb, re,
                        aux ? aux + j : NULL, res + j);
    }
}

static void comb_nansum(tl_racc *a, const tl_racc *b)
{
    dd_add(&a->v.d[0], &a->v.d[1], b->v.d[0], b->v.d[1]);
    a->v.u[2] += b->v.u[2];
}

/* nansum: the sum; nanmean: the sum over the non-NaN count (NaN when every
 * element is NaN, as PyTorch). */
static void fin_nansum(const tl_racc *a, const tl_rfinish *f, void *dst)
{
    double v;
    if (!f->mean) {
        v = dd_value(a->v.d[0], a->v.d[1]);
    } else if (a->v.u[2] == 0) {
        v = NAN;
    } else {
        v = dd_mean(a->v.d[0], a->v.d[1], (int64_t)a->v.u[2]);
    }
    *(double *)dst = v;
}

/* ---- tables -------------------------------------------------------------- */

#define K(FIN_DT, PAIR, COMB, ROW, COLS, FIN)                               \
    {FIN_DT, PAIR, COMB, ROW, COLS, FIN}
/* K with a rows entry (Note [Row runs]). */
#define KR(FIN_DT, PAIR, COMB, ROW, COLS, FIN, ROWS)                        \
    {FIN_DT, PAIR, COMB, ROW, COLS, FIN, .rows = ROWS}

#define SUM_I(N, DN)                                                        \
    [TL_DTYPE_##DN] = KR(TL_DTYPE_INT64, true, comb_u_add, sum_row_##N,     \
                         sum_cols_##N, fin_u, sum_##N##_rows)
static const tl_rkernel sum_k[TL_DTYPE_COUNT] = {
    SUM_I(b, BOOL), SUM_I(u8, UINT8), SUM_I(i8, INT8), SUM_I(i16, INT16),
    SUM_I(u16, UINT16), SUM_I(i32, INT32), SUM_I(u32, UINT32),
    SUM_I(i64, INT64), SUM_I(u64, UINT64),
    [TL_DTYPE_FLOAT16] = K(TL_DTYPE_FLOAT64, true, comb_d_add, sum_row_f16,
                           sum_cols_f16, fin_d),
    [TL_DTYPE_BFLOAT16] = K(TL_DTYPE_FLOAT64, true, comb_d_add, sum_row_bf16,
                            sum_cols_bf16, fin_d),
    [TL_DTYPE_FLOAT32] = KR(TL_DTYPE_FLOAT64, true, comb_d_add, sum_row_f32,
                            sum_cols_f32, fin_d, sum_f32_rows),
    [TL_DTYPE_FLOAT64] = KR(TL_DTYPE_FLOAT64, true, comb_dd_add, sum_row_f64,
                            sum_cols_f64, fin_dd, sum_f64_rows),
    [TL_DTYPE_COMPLEX64] = K(TL_DTYPE_COMPLEX128, true, comb_c_add,
                             sum_row_c64, sum_cols_c64, fin_c),
    [TL_DTYPE_COMPLEX128] = K(TL_DTYPE_COMPLEX128, true, comb_cdd_add,
                              sum_row_c128, sum_cols_c128, fin_cdd),
};

#define PROD_I(N, DN)                                                       \
    [TL_DTYPE_##DN] = K(TL_DTYPE_INT64, false, comb_u_mul, prod_irow_##N,   \
                        prod_icols_##N, fin_u)
#define PROD_F(N, DN)                                                       \
    [TL_DTYPE_##DN] = K(TL_DTYPE_FLOAT64, false, comb_d_mul, prod_frow_##N, \
                        prod_cols_##N, fin_d)
#define PROD_C(N, DN)                                                       \
    [TL_DTYPE_##DN] = K(TL_DTYPE_COMPLEX128, false, comb_c_mul,             \
                        prod_row_##N, prod_cols_##N, fin_c)
static const tl_rkernel prod_k[TL_DTYPE_COUNT] = {
    PROD_I(b, BOOL), PROD_I(u8, UINT8), PROD_I(i8, INT8),
    PROD_I(i16, INT16), PROD_I(u16, UINT16), PROD_I(i32, INT32),
    PROD_I(u32, UINT32), PROD_I(i64, INT64), PROD_I(u64, UINT64),
    PROD_F(f16, FLOAT16), PROD_F(bf16, BFLOAT16),
    [TL_DTYPE_FLOAT32] = KR(TL_DTYPE_FLOAT64, false, comb_d_mul,
                            prod_frow_f32, prod_cols_f32s, fin_d,
                            prod_f32_rows),
    [TL_DTYPE_FLOAT64] = KR(TL_DTYPE_FLOAT64, false, comb_d_mul,
                            prod_frow_f64, prod_cols_f64s, fin_d,
                            prod_f64_rows),
    PROD_C(c64, COMPLEX64), PROD_C(c128, COMPLEX128),
};

/* Value-keeping families (max, min, argmax, argmin): the final dtype by
 * the record's slot. */
#define VK(NAME, N, DN, FDT, FIN, R)                                        \
    [TL_DTYPE_##DN] = KR(FDT, false, NAME##_comb_##N, NAME##_frow_##N,      \
                         NAME##_fcols_##N, FIN, R(NAME, N))
#define ROWS_OF(NAME, N) NAME##_rows_##N
#define VALUE_TABLE(NAME, R)                                                \
    static const tl_rkernel NAME##_k[TL_DTYPE_COUNT] = {                    \
        VK(NAME, b, BOOL, TL_DTYPE_INT64, fin_s, R),                        \
        VK(NAME, u8, UINT8, TL_DTYPE_UINT64, fin_u, R),                     \
        VK(NAME, i8, INT8, TL_DTYPE_INT64, fin_s, R),                       \
        VK(NAME, i16, INT16, TL_DTYPE_INT64, fin_s, R),                     \
        VK(NAME, u16, UINT16, TL_DTYPE_UINT64, fin_u, R),                   \
        VK(NAME, i32, INT32, TL_DTYPE_INT64, fin_s, R),                     \
        VK(NAME, u32, UINT32, TL_DTYPE_UINT64, fin_u, R),                   \
        VK(NAME, i64, INT64, TL_DTYPE_INT64, fin_s, R),                     \
        VK(NAME, u64, UINT64, TL_DTYPE_UINT64, fin_u, R),                   \
        VK(NAME, f16, FLOAT16, TL_DTYPE_FLOAT64, fin_d, R),                 \
        VK(NAME, bf16, BFLOAT16, TL_DTYPE_FLOAT64, fin_d, R),               \
        VK(NAME, f32, FLOAT32, TL_DTYPE_FLOAT64, fin_d, R),                 \
        VK(NAME, f64, FLOAT64, TL_DTYPE_FLOAT64, fin_d, R),                 \
    };

/* fin_d on a max record: f->mean is false for these families.  max and
 * min take runs of rows (Note [Row runs]). */
VALUE_TABLE(max, ROWS_OF)
VALUE_TABLE(min, ROWS_OF)
VALUE_TABLE(argmax, ROWS_OF)
VALUE_TABLE(argmin, ROWS_OF)
/* aminmax: fin_* read slot 0, the min; reduce.c finishes the max from a
 * copy of slot 1 (Note [Aminmax in one read]). */
#define AMM(N, DN, FDT, FIN)                                                \
    [TL_DTYPE_##DN] = K(FDT, false, aminmax_comb_##N, aminmax_row_##N,      \
                        aminmax_cols_##N, FIN)
static const tl_rkernel aminmax_k[TL_DTYPE_COUNT] = {
    AMM(b, BOOL, TL_DTYPE_INT64, fin_s),
    AMM(u8, UINT8, TL_DTYPE_UINT64, fin_u),
    AMM(i8, INT8, TL_DTYPE_INT64, fin_s),
    AMM(i16, INT16, TL_DTYPE_INT64, fin_s),
    AMM(u16, UINT16, TL_DTYPE_UINT64, fin_u),
    AMM(i32, INT32, TL_DTYPE_INT64, fin_s),
    AMM(u32, UINT32, TL_DTYPE_UINT64, fin_u),
    AMM(i64, INT64, TL_DTYPE_INT64, fin_s),
    AMM(u64, UINT64, TL_DTYPE_UINT64, fin_u),
    AMM(f16, FLOAT16, TL_DTYPE_FLOAT64, fin_d),
    AMM(bf16, BFLOAT16, TL_DTYPE_FLOAT64, fin_d),
    AMM(f32, FLOAT32, TL_DTYPE_FLOAT64, fin_d),
    AMM(f64, FLOAT64, TL_DTYPE_FLOAT64, fin_d),
};

#define AA(NAME, N, DN, COMB, STOP)                                         \
    [TL_DTYPE_##DN] = {TL_DTYPE_BOOL, false, COMB, NAME##_row_##N,          \
                       NAME##_cols_##N, fin_bool, true, STOP}
#define ANYALL_TABLE(NAME, COMB, S)                                         \
    static const tl_rkernel NAME##_k[TL_DTYPE_COUNT] = {                    \
        AA(NAME, b, BOOL, COMB, S), AA(NAME, u8, UINT8, COMB, S),           \
        AA(NAME, i8, INT8, COMB, S), AA(NAME, i16, INT16, COMB, S),         \
        AA(NAME, u16, UINT16, COMB, S), AA(NAME, i32, INT32, COMB, S),      \
        AA(NAME, u32, UINT32, COMB, S), AA(NAME, i64, INT64, COMB, S),      \
        AA(NAME, u64, UINT64, COMB, S), AA(NAME, f16, FLOAT16, COMB, S),    \
        AA(NAME, bf16, BFLOAT16, COMB, S),                                  \
        AA(NAME, f32, FLOAT32, COMB, S), AA(NAME, f64, FLOAT64, COMB, S),   \
        AA(NAME, c64, COMPLEX64, COMB, S),                                  \
        AA(NAME, c128, COMPLEX128, COMB, S),                                \
    };
ANYALL_TABLE(any, comb_u_or, 1)
ANYALL_TABLE(all, comb_u_and, 0)

/* Integers of one width share a kernel: x != 0 does not see the sign. */
#define CNZ(N, DN)                                                          \
    [TL_DTYPE_##DN] = K(TL_DTYPE_INT64, true, comb_u_add, cnz_row_##N,      \
                        cnz_cols_##N, fin_u)
static const tl_rkernel cnz_k[TL_DTYPE_COUNT] = {
    CNZ(b, BOOL), CNZ(i8, UINT8), CNZ(i8, INT8), CNZ(i16, INT16),
    CNZ(i16, UINT16), CNZ(i32, INT32), CNZ(i32, UINT32), CNZ(i64, INT64),
    CNZ(i64, UINT64), CNZ(h, FLOAT16), CNZ(h, BFLOAT16), CNZ(f32, FLOAT32),
    CNZ(f64, FLOAT64), CNZ(c64, COMPLEX64), CNZ(c128, COMPLEX128),
};

#define VAR(N, DN)                                                          \
    [TL_DTYPE_##DN] = K(TL_DTYPE_FLOAT64, true, comb_var, var_frow_##N,     \
                        var_fcols_##N, fin_var)
static const tl_rkernel var_k[TL_DTYPE_COUNT] = {
    VAR(f16, FLOAT16), VAR(bf16, BFLOAT16), VAR(f32, FLOAT32),
    VAR(f64, FLOAT64), VAR(c64, COMPLEX64), VAR(c128, COMPLEX128),
};
/* The 2-norm's squares: var's record, finish (sumsq) and kernels but for
 * float32 and float64 rows and float32 cols (Note [Norm rows without the
 * deviations]). */
static const tl_rkernel norm2_k[TL_DTYPE_COUNT] = {
    VAR(f16, FLOAT16), VAR(bf16, BFLOAT16),
    [TL_DTYPE_FLOAT32] = KR(TL_DTYPE_FLOAT64, true, comb_var, norm2_row_f32,
                            norm2_cols_f32, fin_var, norm2_f32_rows),
    [TL_DTYPE_FLOAT64] = KR(TL_DTYPE_FLOAT64, true, comb_var, norm2_row_f64,
                            norm2_cols_f64, fin_var, norm2_f64_rows),
    VAR(c64, COMPLEX64), VAR(c128, COMPLEX128),
};

#define NANSUM(N, DN)                                                       \
    [TL_DTYPE_##DN] = K(TL_DTYPE_FLOAT64, true, comb_nansum, nansum_row_##N, \
                        nansum_cols_##N, fin_nansum)
static const tl_rkernel nansum_k[TL_DTYPE_COUNT] = {
    NANSUM(f16, FLOAT16), NANSUM(bf16, BFLOAT16),
    [TL_DTYPE_FLOAT32] = K(TL_DTYPE_FLOAT64, true, comb_nansum,
                           nansum_row_f32, nansum_cols_f32s, fin_nansum),
    NANSUM(f64, FLOAT64),
};
static const tl_rkernel nansum_nc_k[TL_DTYPE_COUNT] = {
    NANSUM(f16, FLOAT16), NANSUM(bf16, BFLOAT16),
    [TL_DTYPE_FLOAT32] = KR(TL_DTYPE_FLOAT64, true, comb_nansum,
                            NANSUM_NC_ROW_f32, nansum_cols_f32s, fin_nansum,
                            NANSUM_NC_ROWS_f32),
    [TL_DTYPE_FLOAT64] = KR(TL_DTYPE_FLOAT64, true, comb_nansum,
                            NANSUM_NC_ROW_f64, nansum_cols_f64, fin_nansum,
                            NANSUM_NC_ROWS_f64),
};

/* Note [Batch finish of compensated pairs]
 * The values of n compensated records (hi in d[0], lo in d[lo_at]) into
 * o: dd_value when c is 0, dd_mean over the count c when c > 0, over each
 * record's own count in u[2] when c < 0 (nanmean: NaN where it is 0).  The
 * same operations as dd_value/dd_mean (both divisions done, the
 * non-finite case selected), written as selects so the loop vectorises:
 * the branch and the two scalar divisions a row were a fifth of a
 * float64 mean over rows of 16 (one thread, Zen 5: 1.90 ms against the
 * sum's 1.52). */
static TL_ALWAYS_INLINE void fin_dd_n_body(const tl_racc *restrict a,
                                           int64_t n, int lo_at, double c,
                                           double *restrict o)
{
    if (c == 0) {
        for (int64_t i = 0; i < n; i++) {
            const double hi = a[i].v.d[0], s = hi + a[i].v.d[lo_at];
            o[i] = fabs(hi) <= DBL_MAX ? s : hi;
        }
    } else if (c > 0) {
        for (int64_t i = 0; i < n; i++) {
            const double hi = a[i].v.d[0];
            const double q = hi / c, s = q + a[i].v.d[lo_at] / c;
            o[i] = fabs(hi) <= DBL_MAX ? s : q;
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            const double hi = a[i].v.d[0], ci = (double)a[i].v.u[2];
            const double q = hi / ci, s = q + a[i].v.d[lo_at] / ci;
            const double v = fabs(hi) <= DBL_MAX ? s : q;
            o[i] = a[i].v.u[2] == 0 ? NAN : v;
        }
    }
}
DISPATCHED3(fin_dd_n, (const tl_racc *restrict a, int64_t n, int lo_at,
                       double c, double *restrict o),
            (a, n, lo_at, c, o))

/* o[i] = sqrt(o[i]) for i < n: the norm's finish.  A vector square
 * root is correctly rounded as the scalar one is, so the same bits on
 * every clone; the scalar loop (sqrtsd, and a branch for libm's errno
 * on a negative) had been a quarter of vector_norm(dim=1) over rows of
 * 16 floats, 1.5x PyTorch's time (one thread, Zen 5). */
static void sqrt_n_base(double *o, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        o[i] = sqrt(o[i]);
    }
}
#ifdef TL_AVX2_DISPATCH
TL_TARGET_AVX2 static void sqrt_n_avx2(double *o, int64_t n)
{
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        _mm256_storeu_pd(o + i, _mm256_sqrt_pd(_mm256_loadu_pd(o + i)));
    }
    sqrt_n_base(o + i, n - i);
}
TL_TARGET_AVX512 static void sqrt_n_avx512(double *o, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm512_storeu_pd(o + i, _mm512_sqrt_pd(_mm512_loadu_pd(o + i)));
    }
    sqrt_n_base(o + i, n - i);
}
#endif
static void sqrt_n(double *o, int64_t n)
{
#ifdef TL_AVX2_DISPATCH
    if (have_avx512()) {
        sqrt_n_avx512(o, n);
        return;
    }
    if (have_avx2()) {
        sqrt_n_avx2(o, n);
        return;
    }
#endif
    sqrt_n_base(o, n);
}

void tl_reduce_finish_n(const tl_rkernel *k, const tl_racc *a, int64_t n,
                        const tl_rfinish *f, void *dst)
{
    double *o = dst;
    if (k->finish == fin_d && !f->mean) {
        for (int64_t i = 0; i < n; i++) {
            o[i] = a[i].v.d[0];
        }
    } else if (k->finish == fin_d) {
        const double c = (double)f->count;
        for (int64_t i = 0; i < n; i++) {
            o[i] = a[i].v.d[0] / c;
        }
    } else if (k->finish == fin_dd && (!f->mean || f->count > 0)) {
        fin_dd_n(a, n, 1, f->mean ? (double)f->count : 0, o);
    } else if (k->finish == fin_nansum) {
        fin_dd_n(a, n, 1, f->mean ? -1 : 0, o);
    } else if (k->finish == fin_var && f->sumsq) {
        fin_dd_n(a, n, 3, 0, o);
        if (f->take_sqrt) {
            sqrt_n(o, n);
        }
    } else if (k->finish == fin_s || k->finish == fin_u) {
        for (int64_t i = 0; i < n; i++) {
            memcpy((char *)dst + 8 * i, &a[i].v.u[0], 8);
        }
    } else {
        const int64_t fi = tl_itemsize(k->final_dtype);
        for (int64_t i = 0; i < n; i++) {
            k->finish(&a[i], f, (char *)dst + i * fi);
        }
    }
}

const tl_rkernel *tl_reduce_kernel_get(int fam, int dt)
{
    static const tl_rkernel *const tables[TL_RF_COUNT] = {
        [TL_RF_SUM] = sum_k,       [TL_RF_PROD] = prod_k,
        [TL_RF_MAX] = max_k,       [TL_RF_MIN] = min_k,
        [TL_RF_ARGMAX] = argmax_k, [TL_RF_ARGMIN] = argmin_k,
        [TL_RF_ANY] = any_k,       [TL_RF_ALL] = all_k,
        [TL_RF_VAR] = var_k,       [TL_RF_NANSUM] = nansum_k,
        [TL_RF_NANSUM_NC] = nansum_nc_k,
        [TL_RF_COUNT_NONZERO] = cnz_k,
        [TL_RF_AMINMAX] = aminmax_k,
        [TL_RF_NORM2] = norm2_k,
    };
    if (fam < 0 || fam >= TL_RF_COUNT || !tl_dtype_valid(dt)) {
        return NULL;
    }
    const tl_rkernel *k = &tables[fam][dt];
    return k->row ? k : NULL;
}
