/* csrc/core/scan.c — the scans: cumsum, cumprod, logcumsumexp (tl_scan),
 * cummax and cummin (tl_scan_minmax), and diff (tl_diff).  Note [Scan
 * blocks] says how long rows are threaded without the result depending on
 * the thread count. */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "device_impl.h"
#include "shape.h"
#include "sortscan_impl.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"

/* Note [Scan blocks]
 * A scan reads its input as (outer, n, inner) rows (ss_rows).  Rows with
 * inner > 1 are scanned a lane block at a time (lanes are independent, so
 * the loop over them vectorises); rows with inner == 1 run down the row.
 * A row of at least LONG_ROW elements is cut into sub-blocks of SUB
 * elements: pass 1 finds each sub-block's total, a serial pass turns the
 * totals into each sub-block's carry-in, and pass 2 scans groups of four
 * sub-blocks with four interleaved chains (four independent dependency
 * chains hide the latency of the adds).  The cut depends only on n, so
 * the result is the same on every thread count. */
#define SUB 16384
#define LONG_ROW (8 * SUB)
#define LANES 256
#define ROW_WORK 65536

typedef double complex cdouble;
typedef float complex cfloat;

static double lse(double x, double y)
{
    if (isnan(x) || isnan(y)) {
        return x + y;
    }
    double m = x > y ? x : y, mn = x > y ? y : x;
    if (mn == -INFINITY || m == INFINITY) {
        return m;
    }
    return m + log1p(exp(mn - m));
}

/* Complex products by the schoolbook formula, as NumPy and PyTorch (C's
 * operator recovers infinities from NaN products, Annex G, and calls
 * __muldc3). */
static inline cdouble cmul(cdouble a, cdouble b)
{
    const double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    return CMPLX(ar * br - ai * bi, ar * bi + ai * br);
}

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_CPROD(a, b) cmul((a), (b))
#define OP_LSE(a, b) lse((a), (b))

typedef struct scan_ctx {
    const char *in;
    char *out;
    int64_t outer, n, inner;
    int64_t rows_per_task;  /* inner == 1, short rows */
    int64_t lane_blocks;    /* inner > 1: blocks of LANES per outer */
    int64_t nsub;           /* long rows: sub-blocks per row */
    void *totals;           /* long rows: outer * nsub accumulators */
} scan_ctx;

/* Kernels of one (op, storage type T, accumulator A). */
#define SCAN_KERNELS(NAME, T, A, OP, IDENT)                                 \
    static void NAME##_rows(void *vc, int64_t c)                            \
    {                                                                       \
        const scan_ctx *C = vc;                                             \
        int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;      \
        if (r1 > C->outer) {                                                \
            r1 = C->outer;                                                  \
        }                                                                   \
        for (int64_t r = r0; r < r1; r++) {                                 \
            const T *x = (const T *)C->in + r * C->n;                       \
            T *y = (T *)C->out + r * C->n;                                  \
            A acc = IDENT;                                                  \
            for (int64_t i = 0; i < C->n; i++) {                            \
                acc = OP(acc, (A)x[i]);                                     \
                y[i] = (T)acc;                                              \
            }                                                               \
        }                                                                   \
    }                                                                       \
    static void NAME##_lanes(void *vc, int64_t c)                           \
    {                                                                       \
        const scan_ctx *C = vc;                                             \
        const int64_t o = c / C->lane_blocks;                               \
        const int64_t i0 = (c % C->lane_blocks) * LANES;                    \
        const int64_t m =                                                   \
            C->inner - i0 < LANES ? C->inner - i0 : LANES;                  \
        A acc[LANES];                                                       \
        for (int64_t i = 0; i < m; i++) {                                   \
            acc[i] = IDENT;                                                 \
        }                                                                   \
        const T *x = (const T *)C->in + o * C->n * C->inner + i0;           \
        T *y = (T *)C->out + o * C->n * C->inner + i0;                      \
        for (int64_t j = 0; j < C->n; j++) {                                \
            for (int64_t i = 0; i < m; i++) {                               \
                acc[i] = OP(acc[i], (A)x[i]);                               \
                y[i] = (T)acc[i];                                           \
            }                                                               \
            x += C->inner;                                                  \
            y += C->inner;                                                  \
        }                                                                   \
    }                                                                       \
    /* Pass 1: the total of sub-block c (of row c / nsub). */               \
    static void NAME##_totals(void *vc, int64_t c)                          \
    {                                                                       \
        const scan_ctx *C = vc;                                             \
        const int64_t r = c / C->nsub, b = c % C->nsub;                     \
        const int64_t i0 = b * SUB;                                         \
        const int64_t m = C->n - i0 < SUB ? C->n - i0 : SUB;                \
        const T *x = (const T *)C->in + r * C->n + i0;                      \
        A a0 = IDENT, a1 = IDENT, a2 = IDENT, a3 = IDENT;                   \
        int64_t i = 0;                                                      \
        for (; i + 4 <= m; i += 4) {                                        \
            a0 = OP(a0, (A)x[i]);                                           \
            a1 = OP(a1, (A)x[i + 1]);                                       \
            a2 = OP(a2, (A)x[i + 2]);                                       \
            a3 = OP(a3, (A)x[i + 3]);                                       \
        }                                                                   \
        for (; i < m; i++) {                                                \
            a0 = OP(a0, (A)x[i]);                                           \
        }                                                                   \
        ((A *)C->totals)[c] = OP(OP(a0, a1), OP(a2, a3));                   \
    }                                                                       \
    /* Serial: totals of a row to carries-in (exclusive scan). */           \
    static void NAME##_carries(A *t, int64_t nsub)                          \
    {                                                                       \
        A acc = IDENT;                                                      \
        for (int64_t b = 0; b < nsub; b++) {                                \
            A v = t[b];                                                     \
            t[b] = acc;                                                     \
            acc = OP(acc, v);                                               \
        }                                                                   \
    }                                                                       \
    /* Pass 2: sub-blocks 4g .. 4g+3 of a row, four chains at once. */      \
    static void NAME##_chains(void *vc, int64_t c)                          \
    {                                                                       \
        const scan_ctx *C = vc;                                             \
        const int64_t ngroups = (C->nsub + 3) / 4;                          \
        const int64_t r = c / ngroups, g = c % ngroups;                     \
        const A *carry = (const A *)C->totals + r * C->nsub;                \
        const T *x = (const T *)C->in + r * C->n;                           \
        T *y = (T *)C->out + r * C->n;                                      \
        int64_t b0 = 4 * g;                                                 \
        if (b0 + 4 <= C->nsub && (b0 + 4) * SUB <= C->n) {                  \
            A a0 = carry[b0], a1 = carry[b0 + 1], a2 = carry[b0 + 2],       \
              a3 = carry[b0 + 3];                                           \
            const T *x0 = x + b0 * SUB;                                     \
            T *y0 = y + b0 * SUB;                                           \
            for (int64_t i = 0; i < SUB; i++) {                             \
                a0 = OP(a0, (A)x0[i]);                                      \
                a1 = OP(a1, (A)x0[i + SUB]);                                \
                a2 = OP(a2, (A)x0[i + 2 * SUB]);                            \
                a3 = OP(a3, (A)x0[i + 3 * SUB]);                            \
                y0[i] = (T)a0;                                              \
                y0[i + SUB] = (T)a1;                                        \
                y0[i + 2 * SUB] = (T)a2;                                    \
                y0[i + 3 * SUB] = (T)a3;                                    \
            }                                                               \
            return;                                                         \
        }                                                                   \
        for (int64_t b = b0; b < b0 + 4 && b < C->nsub; b++) {              \
            A acc = carry[b];                                               \
            const int64_t i0 = b * SUB;                                     \
            const int64_t m = C->n - i0 < SUB ? C->n - i0 : SUB;            \
            for (int64_t i = 0; i < m; i++) {                               \
                acc = OP(acc, (A)x[i0 + i]);                                \
                y[i0 + i] = (T)acc;                                         \
            }                                                               \
        }                                                                   \
    }                                                                       \
    static void NAME##_run(scan_ctx *C, tl_tensor_impl *const *pins)        \
    {                                                                       \
        const int64_t total = C->outer * C->n * C->inner;                   \
        if (C->inner > 1) {                                                 \
            C->lane_blocks = (C->inner + LANES - 1) / LANES;                \
            ss_parallel(C->outer * C->lane_blocks, total, NAME##_lanes, C,  \
                        pins, 3);                                           \
        } else if (C->n >= LONG_ROW) {                                      \
            C->nsub = (C->n + SUB - 1) / SUB;                               \
            ss_parallel(C->outer * C->nsub, total, NAME##_totals, C, pins,  \
                        3);                                                 \
            for (int64_t r = 0; r < C->outer; r++) {                        \
                NAME##_carries((A *)C->totals + r * C->nsub, C->nsub);      \
            }                                                               \
            ss_parallel(C->outer * ((C->nsub + 3) / 4), total,              \
                        NAME##_chains, C, pins, 3);                         \
        } else {                                                            \
            C->rows_per_task = ROW_WORK / (C->n ? C->n : 1) + 1;            \
            ss_parallel((C->outer + C->rows_per_task - 1) /                 \
                            C->rows_per_task,                               \
                        total, NAME##_rows, C, pins, 3);                    \
        }                                                                   \
    }

SCAN_KERNELS(sum_i64, int64_t, uint64_t, OP_SUM, 0)
SCAN_KERNELS(sum_f32, float, double, OP_SUM, 0)
SCAN_KERNELS(sum_f64, double, double, OP_SUM, 0)
SCAN_KERNELS(sum_c64, cfloat, cdouble, OP_SUM, 0)
SCAN_KERNELS(sum_c128, cdouble, cdouble, OP_SUM, 0)
SCAN_KERNELS(prod_i64, int64_t, uint64_t, OP_PROD, 1)
SCAN_KERNELS(prod_f32, float, double, OP_PROD, 1)
SCAN_KERNELS(prod_f64, double, double, OP_PROD, 1)
SCAN_KERNELS(prod_c64, cfloat, cdouble, OP_CPROD, 1)
SCAN_KERNELS(prod_c128, cdouble, cdouble, OP_CPROD, 1)
SCAN_KERNELS(lse_f32, float, double, OP_LSE, -INFINITY)
SCAN_KERNELS(lse_f64, double, double, OP_LSE, -INFINITY)

static const char *scan_name(int op)
{
    return op == TL_SCAN_CUMSUM    ? "cumsum"
           : op == TL_SCAN_CUMPROD ? "cumprod"
                                   : "logcumsumexp";
}

/* The dtype the kernel stores in for result dtype rt. */
static tl_dtype work_dtype(tl_dtype rt)
{
    switch (tl_dtype_table[rt].kind) {
    case TL_KIND_BOOL:
    case TL_KIND_UINT:
    case TL_KIND_INT:
        return TL_DTYPE_INT64;
    case TL_KIND_COMPLEX:
        return rt;
    default:
        return rt == TL_DTYPE_FLOAT64 ? TL_DTYPE_FLOAT64 : TL_DTYPE_FLOAT32;
    }
}

tl_tensor_impl *tl_scan(int op, tl_tensor_impl *out, tl_tensor_impl *a,
                        int64_t dim, int dtype)
{
    if (op < TL_SCAN_CUMSUM || op > TL_SCAN_LOGCUMSUMEXP) {
        tl_error(TL_ERR_VALUE, "tl_scan: bad scan %d", op);
        return NULL;
    }
    const char *name = scan_name(op);
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s(): the input is NULL", name);
        return NULL;
    }
    if (tl_tensor_check_live(a) < 0 || tl_device_cpu_only(a, name) < 0) {
        return NULL;
    }
    tl_dtype rt;
    if (tl_dtype_check_computable(name, a->dtype) < 0 ||
        tl_dtype_check_computable(name, dtype) < 0) {
        return NULL;
    }
    if (dtype >= 0) {
        if (!tl_dtype_valid(dtype)) {
            tl_error(TL_ERR_TYPE, "%s(): bad dtype %d", name, dtype);
            return NULL;
        }
        rt = (tl_dtype)dtype;
    } else if (op != TL_SCAN_LOGCUMSUMEXP &&
               tl_dtype_is_integral((tl_dtype)a->dtype, true)) {
        rt = TL_DTYPE_INT64;
    } else {
        rt = (tl_dtype)a->dtype;
    }
    if (op == TL_SCAN_LOGCUMSUMEXP && !tl_dtype_is_floating(rt)) {
        tl_error(TL_ERR_TYPE, "logcumsumexp(): expected a floating point "
                 "input, got %s%s", tl_dtype_table[rt].name,
                 tl_dtype_is_complex(rt) ? " (complex logcumsumexp is not "
                                           "supported)" : "");
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
    const tl_dtype wt = work_dtype(rt);
    ss_rows R;
    if (ss_rows_init(&R, a, d, wt) < 0) {
        return NULL;
    }
    tl_tensor_impl *res = tl_tensor_empty(a->ndim, a->sizes, wt, a->device,
                                          TL_MEMKIND_DEFAULT);
    tl_tensor_impl *tot = NULL;
    if (!res) {
        goto fail;
    }
    if (a->numel > 0) {
        scan_ctx C;
        memset(&C, 0, sizeof C);
        C.in = R.data;
        C.out = tl_impl_data(res);
        C.outer = R.outer;
        C.n = R.n;
        C.inner = R.inner;
        if (R.inner == 1 && R.n >= LONG_ROW) {
            tot = ss_scratch(R.outer * ((R.n + SUB - 1) / SUB) *
                             (int64_t)sizeof(cdouble));
            if (!tot) {
                goto fail;
            }
            C.totals = tl_impl_data(tot);
        }
        tl_tensor_impl *pins[3] = {R.t, res, tot ? tot : res};
        const bool cplx = tl_dtype_is_complex(wt);
        const bool c64 = wt == TL_DTYPE_COMPLEX64;
        switch (op) {
        case TL_SCAN_CUMSUM:
            if (wt == TL_DTYPE_INT64) {
                sum_i64_run(&C, pins);
            } else if (cplx) {
                c64 ? sum_c64_run(&C, pins) : sum_c128_run(&C, pins);
            } else {
                wt == TL_DTYPE_FLOAT32 ? sum_f32_run(&C, pins)
                                       : sum_f64_run(&C, pins);
            }
            break;
        case TL_SCAN_CUMPROD:
            if (wt == TL_DTYPE_INT64) {
                prod_i64_run(&C, pins);
            } else if (cplx) {
                c64 ? prod_c64_run(&C, pins) : prod_c128_run(&C, pins);
            } else {
                wt == TL_DTYPE_FLOAT32 ? prod_f32_run(&C, pins)
                                       : prod_f64_run(&C, pins);
            }
            break;
        default:
            wt == TL_DTYPE_FLOAT32 ? lse_f32_run(&C, pins)
                                   : lse_f64_run(&C, pins);
            break;
        }
    }
    tl_tensor_decref(tot);
    tot = NULL;
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
fail:
    tl_tensor_decref(tot);
    tl_tensor_decref(res);
    ss_rows_free(&R);
    return NULL;
}

/* ---- cummax, cummin ----------------------------------------------------------- */

typedef struct cm_ctx {
    const char *in;
    char *vals;
    int64_t *idx;
    int64_t outer, n, inner;
    int64_t rows_per_task;
    bool is_max;
} cm_ctx;

/* A new running extreme: x reaches it (>=, the last of equals), or x is
 * a NaN (a NaN extreme stays, with the index of the latest NaN, as
 * PyTorch). */
#define CM_KERNEL(NAME, T, ISNAN)                                           \
    static void NAME(void *vc, int64_t c)                                   \
    {                                                                       \
        const cm_ctx *C = vc;                                               \
        int64_t r0 = c * C->rows_per_task, r1 = r0 + C->rows_per_task;      \
        if (r1 > C->outer * C->inner) {                                     \
            r1 = C->outer * C->inner;                                       \
        }                                                                   \
        for (int64_t r = r0; r < r1; r++) {                                 \
            const int64_t o = r / C->inner, i = r % C->inner;               \
            const int64_t base = o * C->n * C->inner + i;                   \
            const T *x = (const T *)C->in + base;                           \
            T *y = (T *)C->vals + base;                                     \
            int64_t *ix = C->idx + base;                                    \
            T cur = x[0];                                                   \
            int64_t ci = 0;                                                 \
            for (int64_t j = 0; j < C->n; j++) {                            \
                T v = x[j * C->inner];                                      \
                if (ISNAN(v) ||                                             \
                    (!ISNAN(cur) && (C->is_max ? v >= cur : v <= cur))) {   \
                    cur = v;                                                \
                    ci = j;                                                 \
                }                                                           \
                y[j * C->inner] = cur;                                      \
                ix[j * C->inner] = ci;                                      \
            }                                                               \
        }                                                                   \
    }

#define NO_NAN(x) ((void)(x), 0)
CM_KERNEL(cm_u8, uint8_t, NO_NAN)
CM_KERNEL(cm_i8, int8_t, NO_NAN)
CM_KERNEL(cm_i16, int16_t, NO_NAN)
CM_KERNEL(cm_u16, uint16_t, NO_NAN)
CM_KERNEL(cm_i32, int32_t, NO_NAN)
CM_KERNEL(cm_u32, uint32_t, NO_NAN)
CM_KERNEL(cm_i64, int64_t, NO_NAN)
CM_KERNEL(cm_u64, uint64_t, NO_NAN)
CM_KERNEL(cm_f32, float, isnan)
CM_KERNEL(cm_f64, double, isnan)

int tl_scan_minmax(bool is_max, tl_tensor_impl *values_out,
                   tl_tensor_impl *indices_out, tl_tensor_impl *a,
                   int64_t dim, tl_tensor_impl **values,
                   tl_tensor_impl **indices)
{
    const char *name = is_max ? "cummax" : "cummin";
    int rc, d;
    if (!a) {
        return tl_error(TL_ERR_VALUE, "%s(): the input is NULL", name);
    }
    if ((rc = tl_tensor_check_live(a)) < 0 ||
        (rc = tl_device_cpu_only(a, name)) < 0 ||
        (rc = ss_check_sortable(name, (tl_dtype)a->dtype)) < 0 ||
        (rc = tl_wrap_dim(dim, a->ndim, &d)) < 0) {
        return rc;
    }
    const tl_dtype rt = (tl_dtype)a->dtype;
    bool rs[2];
    if ((rc = ss_check_out(name, values_out, a, a->ndim, a->sizes, rt,
                           &rs[0])) < 0 ||
        (rc = ss_check_out(name, indices_out, a, a->ndim, a->sizes,
                           TL_DTYPE_INT64, &rs[1])) < 0) {
        return rc;
    }
    if (values_out && indices_out &&
        tl_may_share_memory(values_out, indices_out)) {
        return tl_error(TL_ERR_SHAPE, "%s(): the values and indices out= "
                        "tensors share memory", name);
    }
    const tl_dtype wt =
        (rt == TL_DTYPE_FLOAT16 || rt == TL_DTYPE_BFLOAT16) ? TL_DTYPE_FLOAT32
        : rt == TL_DTYPE_BOOL                               ? TL_DTYPE_UINT8
                                                            : rt;
    ss_rows R;
    if ((rc = ss_rows_init(&R, a, d, wt)) < 0) {
        return rc;
    }
    tl_tensor_impl *v = tl_tensor_empty(a->ndim, a->sizes, wt, a->device,
                                        TL_MEMKIND_DEFAULT);
    tl_tensor_impl *ix = tl_tensor_empty(a->ndim, a->sizes, TL_DTYPE_INT64,
                                         a->device, TL_MEMKIND_DEFAULT);
    if (!v || !ix) {
        goto fail;
    }
    if (a->numel > 0) {
        cm_ctx C = {R.data, tl_impl_data(v), (int64_t *)tl_impl_data(ix),
                    R.outer, R.n, R.inner, 0, is_max};
        C.rows_per_task = ROW_WORK / R.n + 1;
        void (*fn)(void *, int64_t) = NULL;
        switch (wt) {
        case TL_DTYPE_UINT8: fn = cm_u8; break;
        case TL_DTYPE_INT8: fn = cm_i8; break;
        case TL_DTYPE_INT16: fn = cm_i16; break;
        case TL_DTYPE_UINT16: fn = cm_u16; break;
        case TL_DTYPE_INT32: fn = cm_i32; break;
        case TL_DTYPE_UINT32: fn = cm_u32; break;
        case TL_DTYPE_INT64: fn = cm_i64; break;
        case TL_DTYPE_UINT64: fn = cm_u64; break;
        case TL_DTYPE_FLOAT32: fn = cm_f32; break;
        default: fn = cm_f64; break;
        }
        const int64_t nrows = R.outer * R.inner;
        tl_tensor_impl *pins[3] = {R.t, v, ix};
        ss_parallel((nrows + C.rows_per_task - 1) / C.rows_per_task,
                    a->numel, fn, &C, pins, 3);
    }
    ss_rows_free(&R);
    if (wt != rt) {
        tl_tensor_impl *c = tl_op_to_dtype(v, rt, false);
        tl_tensor_decref(v);
        v = c;
        if (!v) {
            tl_tensor_decref(ix);
            return tl_error_kind();
        }
    }
    if (values_out && rs[0] &&
        tl_tensor_resize_(values_out, a->ndim, a->sizes) < 0) {
        goto fail_noR;
    }
    if (indices_out && rs[1] &&
        tl_tensor_resize_(indices_out, a->ndim, a->sizes) < 0) {
        goto fail_noR;
    }
    *values = ss_commit(values_out, false, v);
    if (!*values) {
        tl_tensor_decref(ix);
        return tl_error_kind();
    }
    *indices = ss_commit(indices_out, false, ix);
    if (!*indices) {
        tl_tensor_decref(*values);
        return tl_error_kind();
    }
    return 0;
fail:
    ss_rows_free(&R);
fail_noR:
    tl_tensor_decref(v);
    tl_tensor_decref(ix);
    return tl_error_kind();
}

/* ---- diff ------------------------------------------------------------------------ */

tl_tensor_impl *tl_diff(tl_tensor_impl *out, tl_tensor_impl *a, int64_t n,
                        int64_t dim, tl_tensor_impl *prepend,
                        tl_tensor_impl *append)
{
    const char *name = "diff";
    if (!a) {
        tl_error(TL_ERR_VALUE, "diff(): the input is NULL");
        return NULL;
    }
    if (tl_tensor_check_live(a) < 0 || tl_device_cpu_only(a, name) < 0) {
        return NULL;
    }
    if (a->ndim == 0) {
        tl_error(TL_ERR_SHAPE, "diff(): expects input to be at least "
                 "one-dimensional (got a 0-d tensor)");
        return NULL;
    }
    if (n < 0) {
        tl_error(TL_ERR_VALUE, "diff(): order must be non-negative but got "
                 "%lld", (long long)n);
        return NULL;
    }
    int d;
    if (tl_wrap_dim(dim, a->ndim, &d) < 0) {
        return NULL;
    }
    tl_tensor_impl *parts[3] = {prepend, a, append};
    tl_tensor_impl *ops[3];
    int nops = 0;
    int64_t total = 0;
    for (int i = 0; i < 3; i++) {
        tl_tensor_impl *p = parts[i];
        if (!p) {
            continue;
        }
        if (tl_tensor_check_live(p) < 0 || tl_device_cpu_only(p, name) < 0) {
            return NULL;
        }
        bool ok = p->ndim == a->ndim;
        for (int k = 0; ok && k < a->ndim; k++) {
            ok = k == d || p->sizes[k] == a->sizes[k];
        }
        if (!ok) {
            tl_error(TL_ERR_SHAPE, "diff(): %s of shape %s does not match "
                     "the input of shape %s in every dim but dim %d",
                     i == 0 ? "prepend" : "append",
                     tl_fmt_list(0, p->ndim, p->sizes),
                     tl_fmt_list(1, a->ndim, a->sizes), d);
            return NULL;
        }
        ops[nops++] = p;
        total += p->sizes[d];
    }
    const tl_dtype rt = tl_result_type(nops, ops);
    int64_t rsz[TL_MAX_DIMS];
    memcpy(rsz, a->sizes, sizeof(int64_t) * (size_t)a->ndim);
    rsz[d] = total > n ? total - n : 0;
    bool resize;
    if (ss_check_out(name, out, a, a->ndim, rsz, rt, &resize) < 0) {
        return NULL;
    }
    /* cat(prepend, a, append) along d, in rt. */
    tl_tensor_impl *cur;
    if (nops == 1) {
        cur = tl_op_to_dtype(a, rt, false);
    } else {
        int64_t csz[TL_MAX_DIMS];
        memcpy(csz, a->sizes, sizeof(int64_t) * (size_t)a->ndim);
        csz[d] = total;
        cur = tl_tensor_empty(a->ndim, csz, rt, a->device,
                              TL_MEMKIND_DEFAULT);
        int64_t at = 0;
        for (int i = 0; cur && i < nops; i++) {
            tl_tensor_impl *dst =
                tl_view_narrow(cur, d, at, ops[i]->sizes[d]);
            if (!dst || (dst->numel && tl_copy_unchecked(dst, ops[i]) < 0)) {
                tl_tensor_decref(dst);
                tl_tensor_decref(cur);
                return NULL;
            }
            tl_tensor_decref(dst);
            at += ops[i]->sizes[d];
        }
    }
    for (int64_t k = 0; cur && k < n; k++) {
        const int64_t len = cur->sizes[d];
        const int64_t m = len > 0 ? len - 1 : 0;
        tl_tensor_impl *hi = tl_view_narrow(cur, d, len - m, m);
        tl_tensor_impl *lo = tl_view_narrow(cur, d, 0, m);
        tl_tensor_impl *nx = NULL;
        if (hi && lo) {
            nx = tl_op_binary(rt == TL_DTYPE_BOOL ? TL_BINARY_LOGICAL_XOR
                                                  : TL_BINARY_SUB,
                              NULL, hi, lo, NULL);
        }
        tl_tensor_decref(hi);
        tl_tensor_decref(lo);
        tl_tensor_decref(cur);
        cur = nx;
        if (m == 0) {
            break;
        }
    }
    if (!cur) {
        return NULL;
    }
    if (cur == a || !(cur->flags & TL_FLAG_CONTIGUOUS)) {
        tl_tensor_impl *c = tl_op_clone(cur, TL_FORMAT_CONTIGUOUS);
        tl_tensor_decref(cur);
        if (!c) {
            return NULL;
        }
        cur = c;
    }
    return ss_commit(out, resize, cur);
}
