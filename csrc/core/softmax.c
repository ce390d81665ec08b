/* csrc/core/softmax.c — softmax and log_softmax along one dim
 * (tl_softmax): numerically stable (the row maximum is subtracted before
 * exp), rows threaded, float32 exp vectorised (Note [softmax exp]). */
#include <math.h>
#include <string.h>

#include "device_impl.h"
#include "sortscan_impl.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"

/* Note [softmax exp]
 * x - max is <= 0 (or -inf) in every row that reaches these loops: rows
 * with a NaN, or whose maximum is +inf or -inf, take the scalar path with
 * libm.  exp(x) = 2^n exp(r), n = round(x / ln2), |r| <= ln2 / 2, exp(r)
 * by its Taylor polynomial to degree 7 (relative error below 2e-9 before
 * rounding to float), in float so that the loops vectorise: blocks of
 * VB elements with a constant trip count. */
#define VB 16
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
    /* 2^n for n >= -126; below, the result underflows to 0. */
    int32_t sb = (ni + 127) << 23;
    sb &= -(int32_t)(ni >= -126);
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

typedef struct sm_ctx {
    const char *in;
    char *out;
    int64_t outer, n, inner;
    int64_t rows_per_task, lane_blocks;
    bool log;
} sm_ctx;

/* One contiguous float32 row. */
static void row_f32(const float *restrict x, float *restrict y, int64_t n,
                    bool lg)
{
    const float lo = clamp_lo;
    float mv[VB];
    int32_t nv[VB];
    for (int k = 0; k < VB; k++) {
        mv[k] = -INFINITY;
        nv[k] = 0;
    }
    int64_t i0 = 0;
    for (; i0 + VB <= n; i0 += VB) {
        for (int k = 0; k < VB; k++) {
            const float v = x[i0 + k];
            mv[k] = v > mv[k] ? v : mv[k];
            nv[k] |= v != v;
        }
    }
    float m = -INFINITY;
    int nan = 0;
    for (int k = 0; k < VB; k++) {
        m = mv[k] > m ? mv[k] : m;
        nan |= nv[k];
    }
    for (; i0 < n; i0++) {
        m = x[i0] > m ? x[i0] : m;
        nan |= x[i0] != x[i0];
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
        if (!lg) {
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
        if (!lg) {
            y[i] = e;
        }
        s += e;
    }
    if (lg) {
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

/* One row of n elements at stride st (float64, or float32 off the
 * contiguous path). */
#define ROW_GENERIC(NAME, T)                                                \
    static void NAME(const T *x, T *y, int64_t n, int64_t st, bool lg)     \
    {                                                                       \
        double m = -INFINITY;                                               \
        int nan = 0;                                                        \
        for (int64_t i = 0; i < n; i++) {                                   \
            const double v = x[i * st];                                     \
            m = v > m ? v : m;                                              \
            nan |= v != v;                                                  \
        }                                                                   \
        if (nan) {                                                          \
            m = NAN;                                                        \
        }                                                                   \
        double s = 0;                                                       \
        for (int64_t i = 0; i < n; i++) {                                   \
            s += exp((double)x[i * st] - m);                                \
        }                                                                   \
        const double ls = log(s), inv = 1.0 / s;                            \
        for (int64_t i = 0; i < n; i++) {                                   \
            const double v = (double)x[i * st] - m;                         \
            y[i * st] = (T)(lg ? v - ls : exp(v) * inv);                   \
        }                                                                   \
    }
ROW_GENERIC(row_f64, double)

static void sm_rows_f32(void *vc, int64_t c)
{
    const sm_ctx *C = vc;
    int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;
    r1 = r1 > C->outer ? C->outer : r1;
    for (int64_t r = r0; r < r1; r++) {
        row_f32((const float *)C->in + r * C->n, (float *)C->out + r * C->n,
                C->n, C->log);
    }
}

static void sm_rows_f64(void *vc, int64_t c)
{
    const sm_ctx *C = vc;
    int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;
    r1 = r1 > C->outer ? C->outer : r1;
    for (int64_t r = r0; r < r1; r++) {
        row_f64((const double *)C->in + r * C->n,
                (double *)C->out + r * C->n, C->n, 1, C->log);
    }
}

/* inner > 1: the lanes of block c, each a strided row. */
#define SM_LANES(NAME, T)                                              \
    static void NAME(void *vc, int64_t c)                                   \
    {                                                                       \
        const sm_ctx *C = vc;                                               \
        const int64_t o = c / C->lane_blocks;                               \
        const int64_t i0 = (c % C->lane_blocks) * LANES;                    \
        const int64_t m = C->inner - i0 < LANES ? C->inner - i0 : LANES;    \
        const T *x = (const T *)C->in + o * C->n * C->inner + i0;           \
        T *y = (T *)C->out + o * C->n * C->inner + i0;                      \
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
        for (int64_t j = 0; j < C->n; j++) {                                \
            const T *xr = x + j * C->inner;                                 \
            for (int64_t i = 0; i < m; i++) {                               \
                s[i] += exp((double)xr[i] - mx[i]);                         \
            }                                                               \
        }                                                                   \
        for (int64_t i = 0; i < m; i++) {                                   \
            s[i] = C->log ? log(s[i]) : 1.0 / s[i];                         \
        }                                                                   \
        for (int64_t j = 0; j < C->n; j++) {                                \
            const T *xr = x + j * C->inner;                                 \
            T *yr = y + j * C->inner;                                       \
            for (int64_t i = 0; i < m; i++) {                               \
                const double v = (double)xr[i] - mx[i];                     \
                yr[i] = (T)(C->log ? v - s[i] : exp(v) * s[i]);             \
            }                                                               \
        }                                                                   \
    }
SM_LANES(sm_lanes_f32, float)
SM_LANES(sm_lanes_f64, double)

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
    const tl_dtype wt =
        rt == TL_DTYPE_FLOAT64 ? TL_DTYPE_FLOAT64 : TL_DTYPE_FLOAT32;
    ss_rows R;
    if (ss_rows_init(&R, a, d, wt) < 0) {
        return NULL;
    }
    tl_tensor_impl *res = tl_tensor_empty(a->ndim, a->sizes, wt, a->device,
                                          TL_MEMKIND_DEFAULT);
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
        C.log = lg;
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
        if (!c) {
            return NULL;
        }
        res = c;
    }
    return ss_commit(out, resize, res);
}
