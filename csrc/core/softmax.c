/* csrc/core/softmax.c — softmax and log_softmax along one dim
 * (tl_softmax) and logsumexp over one dim (tl_logsumexp): numerically
 * stable (the row maximum is subtracted before exp), rows threaded,
 * float32 exp vectorised (Note [softmax exp]).  The three share the row
 * loops: logsumexp is softmax's first two passes, max + log(sum). */
#include "kernel_optimize.h" /* first of all: see its Note */

#include <math.h>
#include <string.h>

#include "device_impl.h"
#include "kernels.h"
#include "sortscan_impl.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"
#include "vecmath.h"

/* Note [softmax exp]
 * x - max is <= 0 (or -inf) in every row that reaches these loops: rows
 * with a NaN, or whose maximum is +inf or -inf, take the scalar path with
 * libm.  exp(x) = 2^n exp(r), n = round(x / ln2), |r| <= ln2 / 2, exp(r)
 * by its Taylor polynomial to degree 7 (relative error below 2e-9 before
 * rounding to float), in float so that the loops vectorise: blocks of
 * VB elements with a constant trip count. */
#define VB 16 /* row_f32's max takes a block as two 8-float vectors */
_Static_assert(VB == 16, "row_f32 reads a block as two 8-float vectors");
#define LANES 64
#define ROW_WORK 32768

/* The clamp's bound, read through a volatile once per row: with a
 * constant bound GCC specialises x <= bound into a branch (the result is 0
 * there), and the branch keeps the loop from vectorising. */
static volatile const float clamp_lo = -104.0f;

static inline float exp_neg(float x, float lo)
{
    x = x > lo ? x : lo;
    const float magic = 12582912.0f; /* 1.5 * 2^23: rounds to an int */
    const float t = x * 1.44269504f + magic;
    const float n = t - magic;
    float r = x - n * 0.693145752f;
    r = r - n * 1.42860677e-06f;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t tb;
    memcpy(&tb, &t, sizeof tb);
    /* t's low mantissa bits hold n (two's complement in the low 22). */
    int32_t ni = (int32_t)((uint32_t)tb << 10) >> 10;
    /* 2^n for n >= -126; below, the result underflows to 0 (the shift
     * unsigned: ni + 127 is negative there). */
    int32_t sb = (int32_t)((uint32_t)(ni + 127) << 23);
    sb &= -(int32_t)(ni >= -126);
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

/* What a row loop writes: softmax and log_softmax a row each, logsumexp
 * one value per row (the row's max plus the log of its sum). */
enum { SM_SOFTMAX, SM_LOG, SM_LSE };

typedef struct sm_ctx {
    const char *in;
    char *out;
    int64_t outer, n, inner;
    int64_t rows_per_task, lane_blocks;
    int mode;
} sm_ctx;

/* logsumexp of a row whose max m is +-inf or NaN (the finite rows add
 * log(s) to m): NaN stays, +inf gives +inf, an all -inf row -inf. */
static inline double lse_special(double m, int nan)
{
    return nan ? NAN : m;
}

/* One contiguous float32 row (y: the row's one value for SM_LSE). */
TL_MULTIVERSION
static void row_f32(const float *restrict x, float *restrict y, int64_t n,
                    int mode)
{
    const bool lg = mode == SM_LOG;
    const float lo = clamp_lo;
    /* the max through explicit 32-byte vectors (as Note [Vector extrema]
       in reduce_kernels.c): a compare and a bit blend per vector, NaNs
       ORed into a mask checked once per row */
    typedef float vf __attribute__((vector_size(32)));
    typedef int32_t vi __attribute__((vector_size(32)));
    vf m0, m1;
    for (int k = 0; k < 8; k++) {
        m0[k] = -INFINITY;
    }
    m1 = m0;
    vi nn = m0 != m0;
    int64_t i0 = 0;
    for (; i0 + VB <= n; i0 += VB) {
        vf a, b;
        memcpy(&a, x + i0, sizeof a);
        memcpy(&b, x + i0 + 8, sizeof b);
        const vi ga = a > m0, gb = b > m1;
        m0 = (vf)(((vi)a & ga) | ((vi)m0 & ~ga));
        m1 = (vf)(((vi)b & gb) | ((vi)m1 & ~gb));
        nn |= (a != a) | (b != b);
    }
    float m = -INFINITY;
    int nan = 0;
    for (int k = 0; k < 8; k++) {
        m = m0[k] > m ? m0[k] : m;
        m = m1[k] > m ? m1[k] : m;
        nan |= nn[k] != 0;
    }
    for (; i0 < n; i0++) {
        m = x[i0] > m ? x[i0] : m;
        nan |= x[i0] != x[i0];
    }
    if (mode == SM_LSE && (nan || m == INFINITY || m == -INFINITY)) {
        *y = (float)lse_special(m, nan);
        return;
    }
    if (nan || m == INFINITY || m == -INFINITY) {
        /* NaN rows, +inf rows and all -inf rows: libm's arithmetic. */
        double s = 0;
        const float mm = nan ? NAN : m;
        for (int64_t i = 0; i < n; i++) {
            s += exp((double)x[i] - mm);
        }
        for (int64_t i = 0; i < n; i++) {
            y[i] = lg ? (float)((double)x[i] - mm - log(s))
                       : (float)(exp((double)x[i] - mm) / s);
        }
        return;
    }
    /* VB partial sums in float, each of at most n / VB terms below 1
     * (exp of x - max), added in double at the end. */
    float sv[VB];
    for (int k = 0; k < VB; k++) {
        sv[k] = 0;
    }
    int64_t i = 0;
    for (; i + VB <= n; i += VB) {
        float e[VB];
        for (int k = 0; k < VB; k++) {
            e[k] = exp_neg(x[i + k] - m, lo);
            sv[k] += e[k];
        }
        if (mode == SM_SOFTMAX) {
            for (int k = 0; k < VB; k++) {
                y[i + k] = e[k];
            }
        }
    }
    double s = 0;
    for (int k = 0; k < VB; k++) {
        s += sv[k];
    }
    for (; i < n; i++) {
        const float e = exp_neg(x[i] - m, lo);
        if (mode == SM_SOFTMAX) {
            y[i] = e;
        }
        s += e;
    }
    if (mode == SM_LSE) {
        *y = (float)((double)m + log(s));
    } else if (lg) {
        const float ls = (float)log(s);
        i = 0;
        for (; i + VB <= n; i += VB) {
            for (int k = 0; k < VB; k++) {
                y[i + k] = (x[i + k] - m) - ls;
            }
        }
        for (; i < n; i++) {
            y[i] = (x[i] - m) - ls;
        }
    } else {
        const float inv = (float)(1.0 / s);
        i = 0;
        for (; i + VB <= n; i += VB) {
            for (int k = 0; k < VB; k++) {
                y[i + k] *= inv;
            }
        }
        for (; i < n; i++) {
            y[i] *= inv;
        }
    }
}

/* Note [softmax float64 exp]
 * float64 rows and lanes take exp from the vectorised loops of vecmath.h
 * (1 ulp, Note [Vectorised transcendental functions] in vecmath_body.h)
 * on blocks of at most EXPB values x - max on the stack; libm's scalar
 * exp per element bounded logsumexp of 2048^2 float64 at 1.9 of
 * PyTorch's time.  Rows with a NaN or an infinite maximum: logsumexp
 * takes lse_special; softmax subtracts a NaN maximum, which the loops
 * carry through as NaN, as libm's exp did. */
#define EXPB 256

static inline void exp_f64(double *v, int64_t n)
{
    tl_vecmath_unary(TL_VM_EXP, TL_DTYPE_FLOAT64, v, v, n);
}

#if defined(__GNUC__)
/* The maximum of a contiguous float64 row (n >= 8) and whether it holds
 * a NaN, in 4-wide vectors with a NaN mask (the scalar select and NaN
 * test ran at one element a cycle, 40% of the row).  Multiversioned: in
 * the SSE2 baseline gcc splits these 32-byte vectors and lowers the
 * 64-bit compare-and-blend to scalar compares and moves through the
 * stack, which took half of logsumexp's time over 2^22 float64 (32 ms,
 * where PyTorch took 11-29).  Returns the index of the first element
 * not looked at (a multiple of 8). */
TL_MULTIVERSION
static int64_t max_nan_f64(const double *x, int64_t n, double *mp,
                           int *nanp)
{
    typedef double v4d __attribute__((vector_size(32)));
    typedef int64_t v4i __attribute__((vector_size(32)));
    v4d m0, m1;
    v4i n0 = {0, 0, 0, 0}, n1 = n0;
    memcpy(&m0, x, sizeof m0);
    memcpy(&m1, x + 4, sizeof m1);
    int64_t i0;
    for (i0 = 8; i0 + 8 <= n; i0 += 8) {
        v4d a, b;
        memcpy(&a, x + i0, sizeof a);
        memcpy(&b, x + i0 + 4, sizeof b);
        const v4i ka = a > m0, kb = b > m1;
        m0 = (v4d)(((v4i)a & ka) | ((v4i)m0 & ~ka));
        m1 = (v4d)(((v4i)b & kb) | ((v4i)m1 & ~kb));
        n0 |= a != a;
        n1 |= b != b;
    }
    n0 |= (m0 != m0) | (m1 != m1) | n1;
    double m = *mp;
    int nan = *nanp;
    for (int k = 0; k < 4; k++) {
        m = m0[k] > m ? m0[k] : m;
        m = m1[k] > m ? m1[k] : m;
        nan |= n0[k] != 0;
    }
    *mp = m;
    *nanp = nan;
    return i0;
}
#endif

/* One float64 row of n elements at stride st. */
static void row_f64(const double *x, double *y, int64_t n, int64_t st,
                    int mode)
{
    const bool lg = mode == SM_LOG;
    double m = -INFINITY;
    int nan = 0;
    int64_t i0 = 0;
#if defined(__GNUC__)
    if (st == 1 && n >= 8) {
        i0 = max_nan_f64(x, n, &m, &nan);
    }
#endif
    for (int64_t i = i0; i < n; i++) {
        const double v = x[i * st];
        m = v > m ? v : m;
        nan |= v != v;
    }
    if (mode == SM_LSE && (nan || isinf(m))) {
        *y = lse_special(m, nan);
        return;
    }
    if (nan) {
        m = NAN;
    }
    /* softmax keeps exp(x - m) in y and scales it after the sum: one
     * exp per element (y may be x itself: each x is read before its y
     * is written) */
    const bool keep = mode == SM_SOFTMAX;
    double buf[EXPB];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int64_t i = 0; i < n; i += EXPB) {
        const int64_t len = n - i < EXPB ? n - i : EXPB;
        double *e = keep && st == 1 ? y + i : buf; /* exp in place in y */
        for (int64_t k = 0; k < len; k++) {
            e[k] = x[(i + k) * st] - m;
        }
        exp_f64(e, len);
        if (keep && st != 1) {
            for (int64_t k = 0; k < len; k++) {
                y[(i + k) * st] = buf[k];
            }
        }
        int64_t k = 0;
        for (; k + 4 <= len; k += 4) {
            s0 += e[k];
            s1 += e[k + 1];
            s2 += e[k + 2];
            s3 += e[k + 3];
        }
        for (; k < len; k++) {
            s0 += e[k];
        }
    }
    const double s = (s0 + s1) + (s2 + s3);
    if (mode == SM_LSE) {
        *y = m + log(s);
        return;
    }
    if (lg) {
        const double ls = log(s);
        for (int64_t i = 0; i < n; i++) {
            y[i * st] = (x[i * st] - m) - ls;
        }
        return;
    }
    const double inv = 1.0 / s;
    for (int64_t i = 0; i < n; i++) {
        y[i * st] *= inv;
    }
}

static void sm_rows_f32(void *vc, int64_t c)
{
    const sm_ctx *C = vc;
    int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;
    r1 = r1 > C->outer ? C->outer : r1;
    const int64_t ost = C->mode == SM_LSE ? 1 : C->n;
    for (int64_t r = r0; r < r1; r++) {
        row_f32((const float *)C->in + r * C->n, (float *)C->out + r * ost,
                C->n, C->mode);
    }
}

static void sm_rows_f64(void *vc, int64_t c)
{
    const sm_ctx *C = vc;
    int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;
    r1 = r1 > C->outer ? C->outer : r1;
    const int64_t ost = C->mode == SM_LSE ? 1 : C->n;
    for (int64_t r = r0; r < r1; r++) {
        row_f64((const double *)C->in + r * C->n,
                (double *)C->out + r * ost, C->n, 1, C->mode);
    }
}

/* inner > 1: the lanes of block c, each a strided row. */
/* exp of n values in place: libm (the float32 fallback) or vecmath. */
static inline void exp_libm(double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        v[i] = exp(v[i]);
    }
}

#define SM_LANES(NAME, T, EXPV)                                        \
    static void NAME(void *vc, int64_t c)                                   \
    {                                                                       \
        const sm_ctx *C = vc;                                               \
        const int64_t o = c / C->lane_blocks;                               \
        const int64_t i0 = (c % C->lane_blocks) * LANES;                    \
        const int64_t m = C->inner - i0 < LANES ? C->inner - i0 : LANES;    \
        const T *x = (const T *)C->in + o * C->n * C->inner + i0;           \
        T *y = (T *)C->out +                                                \
               (C->mode == SM_LSE ? o : o * C->n) * C->inner + i0;          \
        double mx[LANES], s[LANES];                                         \
        int nan[LANES];                                                     \
        for (int64_t i = 0; i < m; i++) {                                   \
            mx[i] = -INFINITY;                                              \
            s[i] = 0;                                                       \
            nan[i] = 0;                                                     \
        }                                                                   \
        for (int64_t j = 0; j < C->n; j++) {                                \
            const T *xr = x + j * C->inner;                                 \
            for (int64_t i = 0; i < m; i++) {                               \
                const double v = xr[i];                                     \
                mx[i] = v > mx[i] ? v : mx[i];                              \
                nan[i] |= v != v;                                           \
            }                                                               \
        }                                                                   \
        for (int64_t i = 0; i < m; i++) {                                   \
            mx[i] = nan[i] ? NAN : mx[i];                                   \
        }                                                                   \
        double e[LANES];                                                    \
        for (int64_t j = 0; j < C->n; j++) {                                \
            const T *xr = x + j * C->inner;                                 \
            for (int64_t i = 0; i < m; i++) {                               \
                e[i] = (double)xr[i] - mx[i];                               \
            }                                                               \
            EXPV(e, m);                                                     \
            for (int64_t i = 0; i < m; i++) {                               \
                s[i] += e[i];                                               \
            }                                                               \
        }                                                                   \
        if (C->mode == SM_LSE) {                                            \
            /* (a lane whose max is not finite takes lse_special) */       \
            for (int64_t i = 0; i < m; i++) {                               \
                y[i] = (T)(isfinite(mx[i]) ? mx[i] + log(s[i])              \
                                           : lse_special(mx[i], nan[i]));   \
            }                                                               \
            return;                                                         \
        }                                                                   \
        for (int64_t i = 0; i < m; i++) {                                   \
            s[i] = C->mode == SM_LOG ? log(s[i]) : 1.0 / s[i];              \
        }                                                                   \
        for (int64_t j = 0; j < C->n; j++) {                                \
            const T *xr = x + j * C->inner;                                 \
            T *yr = y + j * C->inner;                                       \
            for (int64_t i = 0; i < m; i++) {                               \
                e[i] = (double)xr[i] - mx[i];                               \
            }                                                               \
            if (C->mode == SM_LOG) {                                        \
                for (int64_t i = 0; i < m; i++) {                           \
                    yr[i] = (T)(e[i] - s[i]);                               \
                }                                                           \
            } else {                                                        \
                EXPV(e, m);                                                 \
                for (int64_t i = 0; i < m; i++) {                           \
                    yr[i] = (T)(e[i] * s[i]);                               \
                }                                                           \
            }                                                               \
        }                                                                   \
    }
SM_LANES(sm_lanes_f32_libm, float, exp_libm)
SM_LANES(sm_lanes_f64, double, exp_f64)

/* inner > 1, float32: lanes whose maxima are all finite take exp_neg in
 * float (summed in double, one sum per lane); a block with a NaN or an
 * infinite maximum takes the libm loop above. */
TL_MULTIVERSION
static void sm_lanes_f32(void *vc, int64_t c)
{
    const sm_ctx *C = vc;
    const int64_t o = c / C->lane_blocks;
    const int64_t i0 = (c % C->lane_blocks) * LANES;
    const int64_t m = C->inner - i0 < LANES ? C->inner - i0 : LANES;
    const float *x = (const float *)C->in + o * C->n * C->inner + i0;
    float *y = (float *)C->out +
               (C->mode == SM_LSE ? o : o * C->n) * C->inner + i0;
    float mx[LANES];
    int bad[LANES];
    for (int64_t i = 0; i < m; i++) {
        mx[i] = -INFINITY;
        bad[i] = 0;
    }
    for (int64_t j = 0; j < C->n; j++) {
        const float *xr = x + j * C->inner;
        for (int64_t i = 0; i < m; i++) {
            const float v = xr[i];
            mx[i] = v > mx[i] ? v : mx[i];
            bad[i] |= v != v;
        }
    }
    int any_bad = 0;
    for (int64_t i = 0; i < m; i++) {
        any_bad |= bad[i] | (mx[i] == INFINITY) | (mx[i] == -INFINITY);
    }
    if (any_bad) {
        sm_lanes_f32_libm(vc, c);
        return;
    }
    const float lo = clamp_lo;
    double s[LANES];
    for (int64_t i = 0; i < m; i++) {
        s[i] = 0;
    }
    for (int64_t j = 0; j < C->n; j++) {
        const float *xr = x + j * C->inner;
        for (int64_t i = 0; i < m; i++) {
            s[i] += exp_neg(xr[i] - mx[i], lo);
        }
    }
    if (C->mode == SM_LSE) {
        for (int64_t i = 0; i < m; i++) {
            y[i] = (float)((double)mx[i] + log(s[i]));
        }
        return;
    }
    float f[LANES]; /* log(s) for log_softmax, 1 / s for softmax */
    for (int64_t i = 0; i < m; i++) {
        f[i] = C->mode == SM_LOG ? (float)log(s[i]) : (float)(1.0 / s[i]);
    }
    for (int64_t j = 0; j < C->n; j++) {
        const float *xr = x + j * C->inner;
        float *yr = y + j * C->inner;
        if (C->mode == SM_LOG) {
            for (int64_t i = 0; i < m; i++) {
                yr[i] = (xr[i] - mx[i]) - f[i];
            }
        } else {
            for (int64_t i = 0; i < m; i++) {
                yr[i] = exp_neg(xr[i] - mx[i], lo) * f[i];
            }
        }
    }
}

/* Runs mode along dim d of a (checked) into a new tensor of rn dims rs:
 * a's rows in float32 (float64 for rt float64), threaded over rows or
 * lane blocks, the result cast to rt.  Returns: new reference, or NULL. */
static tl_tensor_impl *run_rows(tl_tensor_impl *a, int d, tl_dtype rt,
                                int rn, const int64_t *rs, int mode)
{
    const tl_dtype wt =
        rt == TL_DTYPE_FLOAT64 ? TL_DTYPE_FLOAT64 : TL_DTYPE_FLOAT32;
    ss_rows R;
    if (ss_rows_init(&R, a, d, wt) < 0) {
        return NULL;
    }
    tl_tensor_impl *res =
        tl_tensor_empty(rn, rs, wt, a->device, TL_MEMKIND_DEFAULT);
    if (!res) {
        ss_rows_free(&R);
        return NULL;
    }
    if (a->numel > 0) {
        sm_ctx C;
        memset(&C, 0, sizeof C);
        C.in = R.data;
        C.out = tl_impl_data(res);
        C.outer = R.outer;
        C.n = R.n;
        C.inner = R.inner;
        C.mode = mode;
        tl_tensor_impl *pins[2] = {R.t, res};
        if (R.inner == 1) {
            C.rows_per_task = ROW_WORK / R.n + 1;
            ss_parallel((R.outer + C.rows_per_task - 1) / C.rows_per_task,
                        a->numel,
                        wt == TL_DTYPE_FLOAT32 ? sm_rows_f32 : sm_rows_f64,
                        &C, pins, 2);
        } else {
            C.lane_blocks = (R.inner + LANES - 1) / LANES;
            ss_parallel(R.outer * C.lane_blocks, a->numel,
                        wt == TL_DTYPE_FLOAT32 ? sm_lanes_f32 : sm_lanes_f64,
                        &C, pins, 2);
        }
    }
    ss_rows_free(&R);
    if (wt != rt) {
        tl_tensor_impl *c = tl_op_to_dtype(res, rt, false);
        tl_tensor_decref(res);
        res = c;
    }
    return res;
}

tl_tensor_impl *tl_softmax(tl_tensor_impl *out, tl_tensor_impl *a,
                           int64_t dim, int dtype, bool lg)
{
    const char *name = lg ? "log_softmax" : "softmax";
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s(): the input is NULL", name);
        return NULL;
    }
    if (tl_tensor_check_live(a) < 0 || tl_device_cpu_only(a, name) < 0) {
        return NULL;
    }
    if (dtype >= 0 && !tl_dtype_valid(dtype)) {
        tl_error(TL_ERR_TYPE, "%s(): bad dtype %d", name, dtype);
        return NULL;
    }
    const tl_dtype rt = dtype >= 0 ? (tl_dtype)dtype : (tl_dtype)a->dtype;
    if (tl_dtype_check_computable(name, a->dtype) < 0 ||
        tl_dtype_check_computable(name, rt) < 0) {
        return NULL;
    }
    if (!tl_dtype_is_floating(rt)) {
        tl_error(TL_ERR_TYPE, "%s(): expected a floating point input (or "
                 "dtype=), got %s", name, tl_dtype_table[rt].name);
        return NULL;
    }
    int d;
    if (tl_wrap_dim(dim, a->ndim, &d) < 0) {
        return NULL;
    }
    bool resize;
    if (ss_check_out(name, out, a, a->ndim, a->sizes, rt, &resize) < 0) {
        return NULL;
    }
    tl_tensor_impl *res = run_rows(a, d, rt, a->ndim, a->sizes,
                                   lg ? SM_LOG : SM_SOFTMAX);
    if (!res) {
        return NULL;
    }
    return ss_commit(out, resize, res);
}

tl_tensor_impl *tl_logsumexp(tl_tensor_impl *a, int64_t dim)
{
    const char *name = "logsumexp";
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s(): the input is NULL", name);
        return NULL;
    }
    if (tl_tensor_check_live(a) < 0 || tl_device_cpu_only(a, name) < 0 ||
        tl_dtype_check_computable(name, a->dtype) < 0) {
        return NULL;
    }
    if (!tl_dtype_is_floating(a->dtype)) {
        tl_error(TL_ERR_TYPE, "%s(): expected a floating point input, got "
                 "%s", name, tl_dtype_table[a->dtype].name);
        return NULL;
    }
    int d;
    if (tl_wrap_dim(dim, a->ndim, &d) < 0) {
        return NULL;
    }
    if (a->ndim > 0 && a->sizes[d] == 0) {
        tl_error(TL_ERR_SHAPE, "%s(): dim %d has size 0 (the callers give "
                 "-inf for an empty reduction)", name, d);
        return NULL;
    }
    int64_t rs[TL_MAX_DIMS];
    int rn = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (i != d) {
            rs[rn++] = a->sizes[i];
        }
    }
    return run_rows(a, d, (tl_dtype)a->dtype, rn, rs, SM_LSE);
}
