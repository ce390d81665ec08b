/* csrc/core/index_ops.c — the indexing operations that address one dim of
 * a tensor through an index tensor: gather, scatter (write, value and the
 * reductions sum/prod/mean/amax/amin), and index_select / index_add /
 * index_copy / index_fill, which are the same walks over an index expanded
 * along the other dims.  Every index is checked before anything is
 * written; repeated indices combine in a fixed order (Note [Deterministic
 * scatter]).  CPU only: other devices are TL_ERR_NOT_IMPLEMENTED. */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"
#include "tensor_impl.h"
#include "tensorlib/iter.h"
#include "tensorlib/joinindex.h"
#include "tensorlib/view.h"

/* Note [Deterministic scatter]
 * The walk runs over the index tensor's positions.  Dim `dim` is walked
 * innermost-but-one in index order; the other dims are split across
 * threads.  A target element (p with p[dim] replaced by the index) is only
 * ever reached from positions that share p's other coordinates, so it is
 * touched by exactly one thread, which visits its contributions in
 * ascending order along dim: the combined value is the same for every
 * run and thread count.  When dim is not the last dim, the last dim is the
 * inner loop (a row), so rows stay contiguous for the cache; a thread's
 * range then covers whole (outer position, row range) units. */

typedef struct sg_plan sg_plan;

/* One run of n positions: idx/op advance by is/os bytes; the target is
 * tgt + k * tk + index * td. */
typedef void (*run_fn)(const sg_plan *p, int64_t n, const char *idx,
                       int64_t is, char *op, int64_t os, char *tgt,
                       int64_t tk, int64_t td);

struct sg_plan {
    int ndim, dim, row;           /* row: the inner dim, or -1 */
    int64_t isz;                  /* itemsize of tgt and op */
    int64_t sizes[TL_MAX_DIMS];   /* the index shape */
    const char *idx;
    int64_t is[TL_MAX_DIMS];      /* byte strides of the index */
    char *tgt;                    /* the tensor addressed through index */
    int64_t ts[TL_MAX_DIMS];
    char *op;                     /* gather: out; scatter: src or value */
    int64_t os[TL_MAX_DIMS];
    run_fn run;
    /* Fused bounds check (into fresh results only, Note [Fused bounds
     * checks]): an index >= lim (unsigned, so negatives too) sets *bad and
     * ends the run.  lim is UINT64_MAX when the caller checked already. */
    uint64_t lim;
    atomic_int *bad;
};

/* Note [Fused bounds checks]
 * A result that nobody else sees yet (gather's output, the clone an
 * out-of-place scatter writes) is checked inside the walk: a bad index
 * stops its run and flags the walk, and the result is dropped before
 * anything is visible, so the rule "checked before anything is written"
 * holds for every tensor the caller can see at the cost of one compare per
 * element instead of a second pass over the index.  Writes into existing
 * tensors (scatter_, out=) check in a pass of their own first. */
#define BAD_INDEX(v)                                                        \
    if ((uint64_t)(v) >= p->lim) {                                         \
        atomic_store(p->bad, 1);                                           \
        return;                                                            \
    }

/* ---- runs --------------------------------------------------------------- */

#define LDIDX(q) (*(const int64_t *)(q))

#define COPY_RUNS(SZ)                                                       \
    static void gather_##SZ(const sg_plan *p, int64_t n, const char *idx,  \
                            int64_t is, char *op, int64_t os, char *tgt,   \
                            int64_t tk, int64_t td)                        \
    {                                                                      \
        if (is == 0 && os == SZ && tk == SZ) {                             \
            BAD_INDEX(LDIDX(idx));                                         \
            memcpy(op, tgt + LDIDX(idx) * td, (size_t)(n * SZ));           \
            return;                                                        \
        }                                                                  \
        for (int64_t k = 0; k < n; k++) {                                  \
            int64_t v = LDIDX(idx + k * is);                               \
            BAD_INDEX(v);                                                  \
            memcpy(op + k * os, tgt + k * tk + v * td, SZ);                \
        }                                                                  \
    }                                                                      \
    static void scatter_##SZ(const sg_plan *p, int64_t n, const char *idx, \
                             int64_t is, char *op, int64_t os, char *tgt,  \
                             int64_t tk, int64_t td)                       \
    {                                                                      \
        if (is == 0 && os == SZ && tk == SZ) {                             \
            BAD_INDEX(LDIDX(idx));                                         \
            memcpy(tgt + LDIDX(idx) * td, op, (size_t)(n * SZ));           \
            return;                                                        \
        }                                                                  \
        for (int64_t k = 0; k < n; k++) {                                  \
            int64_t v = LDIDX(idx + k * is);                               \
            BAD_INDEX(v);                                                  \
            memcpy(tgt + k * tk + v * td, op + k * os, SZ);                \
        }                                                                  \
    }

COPY_RUNS(1)
COPY_RUNS(2)
COPY_RUNS(4)
COPY_RUNS(8)
COPY_RUNS(16)

/* The common gather run along the last dim (index_select of columns,
 * gather(dim=-1) of a contiguous tensor): contiguous int64 index and
 * output, source elements adjacent along dim, aligned data: typed loads
 * and stores, so the loop is one load of the index, one of the source
 * and one store per element. */
#define GATHER_DENSE(SZ, T)                                                 \
    static void gather_dense_##SZ(const sg_plan *p, int64_t n,             \
                                  const char *idx, int64_t is, char *op,   \
                                  int64_t os, char *tgt, int64_t tk,       \
                                  int64_t td)                              \
    {                                                                      \
        if (is != 8 || os != SZ || tk != 0 || td != SZ ||                  \
            (((uintptr_t)op | (uintptr_t)tgt | (uintptr_t)idx) % SZ)) {   \
            gather_##SZ(p, n, idx, is, op, os, tgt, tk, td);               \
            return;                                                        \
        }                                                                  \
        const int64_t *ip = (const int64_t *)(const void *)idx;            \
        const T *src = (const T *)(const void *)tgt;                       \
        T *dst = (T *)(void *)op;                                          \
        const uint64_t lim = p->lim;                                       \
        for (int64_t k = 0; k < n; k++) {                                  \
            int64_t v = ip[k];                                             \
            if ((uint64_t)v >= lim) {                                      \
                atomic_store(p->bad, 1);                                   \
                return;                                                    \
            }                                                              \
            dst[k] = src[v];                                               \
        }                                                                  \
    }

GATHER_DENSE(1, uint8_t)
GATHER_DENSE(2, uint16_t)
GATHER_DENSE(4, uint32_t)
GATHER_DENSE(8, uint64_t)

static run_fn copy_run(int64_t isz, bool gather)
{
    switch (isz) {
    case 1: return gather ? gather_dense_1 : scatter_1;
    case 2: return gather ? gather_dense_2 : scatter_2;
    case 4: return gather ? gather_dense_4 : scatter_4;
    case 8: return gather ? gather_dense_8 : scatter_8;
    default: return gather ? gather_16 : scatter_16;
    }
}

/* Reductions: A is the accumulation type, LD/ST convert from/to storage
 * (through memcpy: imported data may be unaligned). */
#define RED_RUN(NAME, T, A, LD, ST, COMBINE)                                \
    static void NAME(const sg_plan *p, int64_t n, const char *idx,         \
                     int64_t is, char *op, int64_t os, char *tgt,          \
                     int64_t tk, int64_t td)                               \
    {                                                                      \
        if (is == 8 && os == (int64_t)sizeof(T) && tk == 0 &&             \
            td == (int64_t)sizeof(T) &&                                    \
            ((uintptr_t)op | (uintptr_t)tgt | (uintptr_t)idx) %            \
                    _Alignof(T) == 0) {                                    \
            /* dense along dim and aligned: typed loads and stores */      \
            const int64_t *ip = (const int64_t *)(const void *)idx;        \
            T *dst = (T *)(void *)tgt;                                     \
            const T *src = (const T *)(const void *)op;                    \
            for (int64_t k = 0; k < n; k++) {                              \
                int64_t v = ip[k];                                         \
                BAD_INDEX(v);                                              \
                A a = LD(dst[v]), b = LD(src[k]);                          \
                a = COMBINE(a, b);                                         \
                dst[v] = ST(a);                                            \
            }                                                              \
            return;                                                        \
        }                                                                  \
        for (int64_t k = 0; k < n; k++) {                                  \
            int64_t v = LDIDX(idx + k * is);                               \
            BAD_INDEX(v);                                                  \
            char *t = tgt + k * tk + v * td;                               \
            T ra, rb;                                                      \
            memcpy(&ra, t, sizeof(T));                                     \
            memcpy(&rb, op + k * os, sizeof(T));                           \
            A a = LD(ra), b = LD(rb);                                      \
            a = COMBINE(a, b);                                             \
            ra = ST(a);                                                    \
            memcpy(t, &ra, sizeof(T));                                     \
        }                                                                  \
    }

#define ID(x) (x)
#define WADD(a, b) ((a) + (b))
#define WMUL(a, b) ((a) * (b))
/* Integer sum and product wrap (unsigned arithmetic: no overflow UB). */
#define IADD(a, b) ((__typeof__(a))((uint64_t)(a) + (uint64_t)(b)))
#define IMUL(a, b) ((__typeof__(a))((uint64_t)(a) * (uint64_t)(b)))
#define IMAX(a, b) ((a) >= (b) ? (a) : (b))
#define IMIN(a, b) ((a) <= (b) ? (a) : (b))
/* NaN propagates: a NaN already there stays, a NaN coming in wins. */
#define FMAX(a, b) ((isnan(a) || (a) >= (b)) ? (a) : (b))
#define FMIN(a, b) ((isnan(a) || (a) <= (b)) ? (a) : (b))
#define BOR(a, b) ((uint8_t)((a) || (b)))
#define BAND(a, b) ((uint8_t)((a) && (b)))
#define H2F(x) tl_half_to_float(x)
#define F2H(x) tl_half_from_float(x)
#define B2F(x) tl_bf16_to_float(x)
#define F2B(x) tl_bf16_from_float(x)

#define INT_RUNS(S, T)                                                      \
    RED_RUN(sum_##S, T, T, ID, ID, IADD)                                   \
    RED_RUN(prod_##S, T, T, ID, ID, IMUL)                                  \
    RED_RUN(amax_##S, T, T, ID, ID, IMAX)                                  \
    RED_RUN(amin_##S, T, T, ID, ID, IMIN)
#define FLT_RUNS(S, T, A, LD, ST)                                           \
    RED_RUN(sum_##S, T, A, LD, ST, WADD)                                   \
    RED_RUN(prod_##S, T, A, LD, ST, WMUL)                                  \
    RED_RUN(amax_##S, T, A, LD, ST, FMAX)                                  \
    RED_RUN(amin_##S, T, A, LD, ST, FMIN)

RED_RUN(sum_b, uint8_t, uint8_t, ID, ID, BOR)
RED_RUN(prod_b, uint8_t, uint8_t, ID, ID, BAND)
RED_RUN(amax_b, uint8_t, uint8_t, ID, ID, BOR)
RED_RUN(amin_b, uint8_t, uint8_t, ID, ID, BAND)
INT_RUNS(u8, uint8_t)
INT_RUNS(i8, int8_t)
INT_RUNS(i16, int16_t)
INT_RUNS(u16, uint16_t)
INT_RUNS(i32, int32_t)
INT_RUNS(u32, uint32_t)
INT_RUNS(i64, int64_t)
INT_RUNS(u64, uint64_t)
FLT_RUNS(f16, uint16_t, float, H2F, F2H)
FLT_RUNS(bf16, uint16_t, float, B2F, F2B)
FLT_RUNS(f32, float, float, ID, ID)
FLT_RUNS(f64, double, double, ID, ID)
RED_RUN(sum_c64, tl_c64, tl_c64, ID, ID, WADD)
RED_RUN(prod_c64, tl_c64, tl_c64, ID, ID, WMUL)
RED_RUN(sum_c128, tl_c128, tl_c128, ID, ID, WADD)
RED_RUN(prod_c128, tl_c128, tl_c128, ID, ID, WMUL)

/* The run for reduce (SUM, PROD, AMAX, AMIN) on dt, or NULL when dt has
 * none (complex amax/amin). */
static run_fn reduce_run(int reduce, int dt)
{
#define PICK(S)                                                             \
    return reduce == TL_SCATTER_SUM    ? sum_##S                           \
           : reduce == TL_SCATTER_PROD ? prod_##S                          \
           : reduce == TL_SCATTER_AMAX ? amax_##S                          \
                                       : amin_##S
    switch (dt) {
    case TL_DTYPE_BOOL: PICK(b);
    case TL_DTYPE_UINT8: PICK(u8);
    case TL_DTYPE_INT8: PICK(i8);
    case TL_DTYPE_INT16: PICK(i16);
    case TL_DTYPE_UINT16: PICK(u16);
    case TL_DTYPE_INT32: PICK(i32);
    case TL_DTYPE_UINT32: PICK(u32);
    case TL_DTYPE_INT64: PICK(i64);
    case TL_DTYPE_UINT64: PICK(u64);
    case TL_DTYPE_FLOAT16: PICK(f16);
    case TL_DTYPE_BFLOAT16: PICK(bf16);
    case TL_DTYPE_FLOAT32: PICK(f32);
    case TL_DTYPE_FLOAT64: PICK(f64);
    case TL_DTYPE_COMPLEX64:
        return reduce == TL_SCATTER_SUM    ? sum_c64
               : reduce == TL_SCATTER_PROD ? prod_c64
                                           : NULL;
    default:
        return reduce == TL_SCATTER_SUM    ? sum_c128
               : reduce == TL_SCATTER_PROD ? prod_c128
                                           : NULL;
    }
#undef PICK
}

/* ---- the walk (Note [Deterministic scatter]) ---------------------------- */

static void walk_range(void *ctx, int64_t begin, int64_t end)
{
    const sg_plan *p = ctx;
    const int dim = p->dim, row = p->row;
    const int64_t rowlen = row >= 0 ? p->sizes[row] : 1;
    const int64_t L = p->sizes[dim];
    int64_t pos = begin;
    while (pos < end) {
        int64_t o = pos / rowlen, k0 = pos % rowlen;
        int64_t n = rowlen - k0;
        if (n > end - pos) {
            n = end - pos;
        }
        /* Decode the outer position o over the dims other than dim and
         * row, last dim fastest. */
        int64_t io = 0, oo = 0, to = 0;
        for (int d = p->ndim - 1; d >= 0; d--) {
            if (d == dim || d == row) {
                continue;
            }
            int64_t c = o % p->sizes[d];
            o /= p->sizes[d];
            io += c * p->is[d];
            oo += c * p->os[d];
            to += c * p->ts[d];
        }
        if (row >= 0) {
            io += k0 * p->is[row];
            oo += k0 * p->os[row];
            to += k0 * p->ts[row];
            for (int64_t j = 0; j < L; j++) {
                p->run(p, n, p->idx + io + j * p->is[dim], p->is[row],
                       p->op + oo + j * p->os[dim], p->os[row], p->tgt + to,
                       p->ts[row], p->ts[dim]);
            }
        } else {
            p->run(p, L, p->idx + io, p->is[dim], p->op + oo, p->os[dim],
                   p->tgt + to, 0, p->ts[dim]);
        }
        pos += n;
    }
}

/* Runs the plan.  Returns true when a fused bounds check failed. */
static bool walk(sg_plan *p)
{
    atomic_int bad = 0;
    p->bad = &bad;
    int64_t units = 1, per_unit;
    for (int d = 0; d < p->ndim; d++) {
        if (d != p->dim) {
            units *= p->sizes[d];
        }
    }
    per_unit = p->sizes[p->dim];
    if (units == 0 || per_unit == 0) {
        p->bad = NULL; /* (bad dies with this frame) */
        return false;
    }
    int64_t grain = TL_ITER_GRAIN / per_unit;
    tl_parallel_for(units, grain < 1 ? 1 : grain, walk_range, p);
    p->bad = NULL;
    return atomic_load(&bad) != 0;
}

/* Fills the byte strides of t (treated as 1-D [1] when 0-dim). */
static void byte_strides(const tl_tensor_impl *t, int ndim, int64_t *out)
{
    int64_t isz = tl_itemsize(t->dtype);
    for (int d = 0; d < ndim; d++) {
        out[d] = t->ndim == 0 ? 0 : t->strides[d] * isz;
    }
}

/* Sets up the plan over index (int64, ndim >= 1 once 0-dim counts as 1). */
static void plan_init(sg_plan *p, tl_tensor_impl *index, int dim,
                      tl_tensor_impl *tgt, tl_tensor_impl *op,
                      const void *value, run_fn run)
{
    memset(p, 0, sizeof(*p));
    p->ndim = index->ndim == 0 ? 1 : index->ndim;
    p->dim = dim;
    p->row = (dim != p->ndim - 1) ? p->ndim - 1 : -1;
    p->isz = tl_itemsize(tgt->dtype);
    for (int d = 0; d < p->ndim; d++) {
        p->sizes[d] = index->ndim == 0 ? 1 : index->sizes[d];
    }
    p->idx = tl_impl_data(index);
    byte_strides(index, p->ndim, p->is);
    p->tgt = tl_impl_data(tgt);
    byte_strides(tgt, p->ndim, p->ts);
    if (op) {
        p->op = tl_impl_data(op);
        byte_strides(op, p->ndim, p->os);
    } else {
        p->op = (char *)value; /* strides stay 0 */
    }
    p->run = run;
    p->lim = UINT64_MAX;
}

/* ---- validation --------------------------------------------------------- */

/* Records the error for the first element of the contiguous int64 idx
 * outside [lo, hi).  Returns TL_ERR_INDEX (or 0 when there is none). */
static int first_bad(const tl_tensor_impl *idx, int64_t lo, int64_t hi,
                     int dim, const char *op)
{
    const int64_t *v = (const int64_t *)tl_impl_data(idx);
    for (int64_t i = 0; i < idx->numel; i++) {
        if (v[i] < lo || v[i] >= hi) {
            return tl_error(TL_ERR_INDEX, "%s(): index %" PRId64 " is out "
                            "of bounds for dimension %d with size %" PRId64,
                            op, v[i], dim, hi);
        }
    }
    return 0;
}

typedef struct {
    const int64_t *v;
    int64_t lo, hi;
    atomic_int bad;
} bounds_job;

/* AVX2 has the 64-bit compares that SSE2 lacks: 4 indices per step.
 * (TL_NO_TARGET_CLONES, as kernels.h: the TSan build has no ifuncs.) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) &&      \
    defined(__linux__) && !defined(TL_NO_TARGET_CLONES)
__attribute__((target_clones("avx2", "default")))
#endif
static void bounds_range(void *ctx, int64_t b, int64_t e)
{
    bounds_job *j = ctx;
    int bad = 0;
    for (int64_t i = b; i < e; i++) {
        bad |= (j->v[i] < j->lo) | (j->v[i] >= j->hi);
    }
    if (bad) {
        atomic_store(&j->bad, 1);
    }
}

/* Checks every element of the contiguous int64 tensor idx lies in
 * [lo, hi).  Returns 0 or TL_ERR_INDEX naming the first bad one. */
static int check_bounds(const tl_tensor_impl *idx, int64_t lo, int64_t hi,
                        int dim, const char *op)
{
    bounds_job j = {(const int64_t *)tl_impl_data(idx), lo, hi, 0};
    tl_parallel_for(idx->numel, 1 << 16, bounds_range, &j);
    if (!atomic_load(&j.bad)) {
        return 0;
    }
    return first_bad(idx, lo, hi, dim, op);
}

static int check_cpu(const tl_tensor_impl *t, const char *op)
{
    if (t->device.type != TL_DEVICE_CPU) {
        return tl_error(TL_ERR_NOT_IMPLEMENTED, "%s() is not implemented "
                        "for CUDA tensors in tensorlib (CPU only)", op);
    }
    return tl_tensor_check_live(t);
}

/* 0-dim counts as 1-D for the dim checks, as PyTorch's
 * ensure_nonempty_dim. */
static int nonempty_ndim(const tl_tensor_impl *t)
{
    return t->ndim == 0 ? 1 : t->ndim;
}
static int64_t nonempty_size(const tl_tensor_impl *t, int d)
{
    return t->ndim == 0 ? 1 : t->sizes[d];
}

/* index as a contiguous int64 tensor (index itself increfed when it is
 * one already).  int32 is accepted only when allow_int32.
 * Returns: new reference, or NULL. */
static tl_tensor_impl *index_i64(tl_tensor_impl *index, bool allow_int32,
                                 const char *op)
{
    if (index->dtype != TL_DTYPE_INT64 &&
        !(allow_int32 && index->dtype == TL_DTYPE_INT32)) {
        tl_error(TL_ERR_TYPE, "%s(): Expected dtype int%s64 for index, "
                 "but got %s", op, allow_int32 ? "32/int" : "",
                 tl_dtype_info_of((tl_dtype)index->dtype)->name);
        return NULL;
    }
    tl_tensor_impl *c = tl_op_to_dtype(index, TL_DTYPE_INT64, false);
    if (!c) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_contiguous(c, TL_FORMAT_CONTIGUOUS);
    tl_tensor_decref(c);
    return r;
}

/* Writes the result r into out (shape, dtype and writability checked
 * first; out resized when empty and owning its storage).  Steals: r.
 * Returns: new reference to out, or NULL. */
static tl_tensor_impl *commit_out(tl_tensor_impl *out, tl_tensor_impl *r,
                                  const char *op)
{
    if (!out || !r) {
        return r;
    }
    int rc = tl_tensor_check_writable(out);
    if (rc == 0 && out->dtype != r->dtype) {
        rc = tl_error(TL_ERR_TYPE, "%s(): expected out to have dtype %s, "
                      "but got %s", op,
                      tl_dtype_info_of((tl_dtype)r->dtype)->name,
                      tl_dtype_info_of((tl_dtype)out->dtype)->name);
    }
    bool same = out->ndim == r->ndim &&
                memcmp(out->sizes, r->sizes,
                       (size_t)r->ndim * sizeof(int64_t)) == 0;
    if (rc == 0 && !same) {
        if (out->numel == 0 && !out->base && out->storage_offset == 0) {
            rc = tl_tensor_resize_(out, r->ndim, r->sizes);
        } else {
            rc = tl_error(TL_ERR_SHAPE, "%s(): out has shape %s but the "
                          "result has shape %s", op,
                          tl_fmt_list(0, out->ndim, out->sizes),
                          tl_fmt_list(1, r->ndim, r->sizes));
        }
    }
    if (rc == 0) {
        rc = tl_op_copy_(out, r);
    }
    tl_tensor_decref(r);
    if (rc < 0) {
        return NULL;
    }
    tl_tensor_incref(out);
    return out;
}

/* ---- gather ------------------------------------------------------------- */

/* Shape rule shared by gather and scatter: index.size(d) <= t.size(d) for
 * every d (but dim, unless all_dims). */
static int check_index_shape(const tl_tensor_impl *index,
                             const tl_tensor_impl *t, int dim, bool all_dims,
                             const char *tname, const char *op)
{
    if (nonempty_ndim(index) != nonempty_ndim(t)) {
        return tl_error(TL_ERR_SHAPE, "%s(): Index tensor must have the "
                        "same number of dimensions as %s tensor (%d vs %d)",
                        op, tname, index->ndim, t->ndim);
    }
    for (int d = 0; d < nonempty_ndim(t); d++) {
        if ((all_dims || d != dim) &&
            nonempty_size(index, d) > nonempty_size(t, d)) {
            return tl_error(TL_ERR_SHAPE, "%s(): Size does not match at "
                            "dimension %d expected index %s to be smaller "
                            "than %s %s apart from dimension %d", op, d,
                            tl_fmt_list(0, index->ndim, index->sizes), tname,
                            tl_fmt_list(1, t->ndim, t->sizes), dim);
        }
    }
    return 0;
}

tl_tensor_impl *tl_op_gather(tl_tensor_impl *out, tl_tensor_impl *self,
                             int64_t dim, tl_tensor_impl *index)
{
    int d;
    tl_tensor_impl *idx = NULL, *res = NULL;
    if (check_cpu(self, "gather") < 0 || check_cpu(index, "gather") < 0 ||
        tl_dtype_check_computable("gather", self->dtype) < 0 ||
        tl_wrap_dim(dim, self->ndim, &d) < 0) {
        return NULL;
    }
    if (index->dtype != TL_DTYPE_INT64) {
        tl_error(TL_ERR_TYPE, "gather(): Expected dtype int64 for index, "
                 "but got %s",
                 tl_dtype_info_of((tl_dtype)index->dtype)->name);
        return NULL;
    }
    if (check_index_shape(index, self, d, false, "input", "gather") < 0) {
        return NULL;
    }
    idx = index_i64(index, false, "gather");
    if (!idx) {
        goto done;
    }
    res = tl_tensor_empty(index->ndim, index->sizes,
                          (tl_dtype)self->dtype, tl_device_cpu(),
                          TL_MEMKIND_DEFAULT);
    if (!res) {
        goto done;
    }
    if (res->numel > 0) {
        sg_plan p;
        plan_init(&p, idx, d, self, res, NULL,
                  copy_run(tl_itemsize(self->dtype), true));
        p.lim = (uint64_t)nonempty_size(self, d);
        if (walk(&p)) {
            first_bad(idx, 0, nonempty_size(self, d), d, "gather");
            tl_tensor_decref(res);
            res = NULL;
            goto done;
        }
    }
    res = commit_out(out, res, "gather");
done:
    tl_tensor_decref(idx);
    return res;
}

/* ---- scatter ------------------------------------------------------------ */

/* The identity of reduce in dt, as bytes. */
static void identity_bytes(int reduce, tl_dtype dt, void *buf)
{
    tl_scalar s;
    bool lo = reduce == TL_SCATTER_AMAX;
    switch (reduce) {
    case TL_SCATTER_PROD:
        s = tl_scalar_int(1);
        break;
    case TL_SCATTER_AMAX:
    case TL_SCATTER_AMIN:
        if (tl_dtype_is_floating(dt)) {
            s = tl_scalar_float(lo ? -INFINITY : INFINITY);
        } else if (dt == TL_DTYPE_BOOL) {
            s = tl_scalar_bool(!lo);
        } else {
            int64_t bits = 8 * tl_itemsize(dt);
            if (dt == TL_DTYPE_UINT64) {
                s.kind = TL_KIND_UINT;
                s.v.u = lo ? 0 : UINT64_MAX;
            } else if (!tl_dtype_is_signed(dt)) {
                s = tl_scalar_int(lo ? 0 : (int64_t)((1ull << bits) - 1));
            } else if (bits == 64) {
                s = tl_scalar_int(lo ? INT64_MIN : INT64_MAX);
            } else {
                int64_t m = (int64_t)1 << (bits - 1);
                s = tl_scalar_int(lo ? -m : m - 1);
            }
        }
        break;
    default:
        s = tl_scalar_int(0);
        break;
    }
    memset(buf, 0, 16);
    tl_tensor_impl *t = tl_scalar_to_tensor(&s);
    tl_tensor_impl *c = t ? tl_op_to_dtype(t, dt, false) : NULL;
    if (c) {
        memcpy(buf, tl_impl_data(c), (size_t)tl_itemsize(dt));
    }
    tl_error_clear();
    tl_tensor_decref(c);
    tl_tensor_decref(t);
}

/* Converts value to dt's bytes with full()'s checks.  Returns 0 / error. */
static int value_bytes(const tl_scalar *v, tl_dtype dt, void *buf)
{
    int rc = tl_scalar_check_fill(v, dt);
    if (rc < 0) {
        return rc;
    }
    tl_tensor_impl *t = tl_scalar_to_tensor(v);
    tl_tensor_impl *c = t ? tl_op_to_dtype(t, dt, false) : NULL;
    if (c) {
        memset(buf, 0, 16);
        memcpy(buf, tl_impl_data(c), (size_t)tl_itemsize(dt));
    }
    tl_tensor_decref(c);
    tl_tensor_decref(t);
    return c ? 0 : -1;
}

static const char *reduce_name(int reduce)
{
    static const char *const names[] = {"none", "sum", "prod", "mean",
                                        "amax", "amin"};
    return names[reduce];
}

/* The shared scatter core: idx (contiguous int64, or an expanded view the
 * caller validated) walks dst; src (or value bytes) supplies.  Everything
 * is validated but, when lim is not UINT64_MAX, the index bounds (Note
 * [Fused bounds checks]: dst is then a fresh tensor).  Returns 0, 1 for a
 * bad index (dst partly written), or an error. */
static int scatter_core(tl_tensor_impl *dst, int d, tl_tensor_impl *idx,
                        tl_tensor_impl *src, const void *vbytes, int reduce,
                        bool include_self, uint64_t lim)
{
    tl_dtype dt = (tl_dtype)dst->dtype;
    tl_tensor_impl *cnt = NULL;
    if (idx->numel == 0) {
        return 0;
    }
    if (reduce == TL_SCATTER_MEAN) {
        int64_t one = 1;
        cnt = tl_tensor_empty(dst->ndim, dst->sizes, TL_DTYPE_INT64,
                              tl_device_cpu(), TL_MEMKIND_DEFAULT);
        if (!cnt) {
            return -1;
        }
        memset(tl_impl_data(cnt), 0, (size_t)cnt->numel * 8);
        sg_plan c;
        plan_init(&c, idx, d, cnt, NULL, &one,
                  reduce_run(TL_SCATTER_SUM, TL_DTYPE_INT64));
        c.lim = lim;
        if (walk(&c)) {
            tl_tensor_decref(cnt);
            return 1;
        }
    }
    sg_plan p;
    if (!include_self && reduce != TL_SCATTER_NONE) {
        unsigned char idb[16];
        identity_bytes(reduce == TL_SCATTER_MEAN ? TL_SCATTER_SUM : reduce,
                       dt, idb);
        plan_init(&p, idx, d, dst, NULL, idb, copy_run(tl_itemsize(dt),
                                                       false));
        p.lim = lim;
        if (walk(&p)) {
            tl_tensor_decref(cnt);
            return 1;
        }
    }
    run_fn run = reduce == TL_SCATTER_NONE
                     ? copy_run(tl_itemsize(dt), false)
                     : reduce_run(reduce == TL_SCATTER_MEAN ? TL_SCATTER_SUM
                                                            : reduce,
                                  dt);
    plan_init(&p, idx, d, dst, src, vbytes, run);
    p.lim = lim;
    if (walk(&p)) {
        tl_tensor_decref(cnt);
        return 1;
    }
    int rc = 0;
    if (cnt) {
        /* mean = total / count (count of the values, plus self). */
        int64_t *c = (int64_t *)tl_impl_data(cnt);
        for (int64_t i = 0; i < cnt->numel; i++) {
            c[i] += include_self ? 1 : 0;
            if (c[i] == 0) {
                c[i] = 1;
            }
        }
        /* Integers divide by counts of their own dtype (uint64 / int64
         * would promote to float64, which uint64 cannot hold). */
        bool integral = tl_dtype_is_integral(dt, true);
        tl_tensor_impl *cd = integral ? tl_op_to_dtype(cnt, dt, false)
                                      : cnt;
        tl_tensor_impl *r = cd ? tl_op_binary(
            integral ? TL_BINARY_FLOOR_DIVIDE : TL_BINARY_DIV, dst, dst, cd,
            NULL) : NULL;
        if (integral) {
            tl_tensor_decref(cd);
        }
        rc = r ? 0 : -1;
        tl_tensor_decref(r);
        tl_tensor_decref(cnt);
    }
    return rc;
}

/* Checks a reduce argument against dt.  Returns 0 or TL_ERR_TYPE. */
static int check_reduce(int reduce, tl_dtype dt, const char *op)
{
    if (reduce < TL_SCATTER_NONE || reduce > TL_SCATTER_AMIN) {
        return tl_error(TL_ERR_VALUE, "%s(): bad reduce %d", op, reduce);
    }
    int rc = tl_dtype_check_computable(op, dt);
    if (rc < 0) {
        return rc;
    }
    if (tl_dtype_is_complex(dt) &&
        (reduce == TL_SCATTER_AMAX || reduce == TL_SCATTER_AMIN)) {
        return tl_error(TL_ERR_TYPE, "%s(): reduce=\"%s\" is not supported "
                        "for %s", op, reduce_name(reduce),
                        tl_dtype_info_of(dt)->name);
    }
    if (dt == TL_DTYPE_BOOL && reduce == TL_SCATTER_MEAN) {
        return tl_error(TL_ERR_TYPE, "%s(): reduce=\"mean\" is not "
                        "supported for bool", op);
    }
    return 0;
}

/* src (or NULL) as a tensor safe to read while dst is written: a copy
 * when it shares memory with dst.  Returns: new reference (NULL in ->
 * NULL out without error), or NULL with an error when *failed. */
static tl_tensor_impl *unaliased(tl_tensor_impl *dst, tl_tensor_impl *t,
                                 bool *failed)
{
    *failed = false;
    if (!t) {
        return NULL;
    }
    if (tl_iter_overlap(dst, t) != TL_OVERLAP_NO) {
        tl_tensor_impl *c = tl_op_clone(t, TL_FORMAT_CONTIGUOUS);
        *failed = c == NULL;
        return c;
    }
    tl_tensor_incref(t);
    return t;
}

static int check_dst(tl_tensor_impl *dst, const char *op)
{
    int rc = check_cpu(dst, op);
    if (rc == 0) {
        rc = tl_tensor_check_writable(dst);
    }
    if (rc == 0 && tl_iter_has_internal_overlap(dst)) {
        rc = tl_error(TL_ERR_SHAPE, "%s(): unsupported operation: more "
                      "than one element of the written-to tensor refers to "
                      "a single memory location; clone() it first", op);
    }
    return rc;
}

/* tl_op_scatter_, with fresh: dst is a new tensor nobody sees yet (bounds
 * checked inside the walk). */
static int scatter_impl(tl_tensor_impl *dst, int64_t dim,
                        tl_tensor_impl *index, tl_tensor_impl *src,
                        const tl_scalar *value, int reduce,
                        bool include_self, bool fresh)
{
    const char *op = reduce == TL_SCATTER_NONE ? "scatter"
                                               : "scatter_reduce";
    tl_dtype dt = (tl_dtype)dst->dtype;
    unsigned char vb[16];
    int d, rc;
    bool failed;
    tl_tensor_impl *idx = NULL, *s = NULL;
    if ((rc = check_dst(dst, op)) < 0 || (rc = check_cpu(index, op)) < 0 ||
        (src && (rc = check_cpu(src, op)) < 0) ||
        (rc = tl_wrap_dim(dim, dst->ndim, &d)) < 0 ||
        (rc = check_reduce(reduce, dt, op)) < 0) {
        return rc;
    }
    if (index->dtype != TL_DTYPE_INT64) {
        return tl_error(TL_ERR_TYPE, "%s(): Expected dtype int64 for index, "
                        "but got %s", op,
                        tl_dtype_info_of((tl_dtype)index->dtype)->name);
    }
    if (src && src->dtype != dst->dtype) {
        return tl_error(TL_ERR_TYPE, "%s(): Expected self.dtype to be equal "
                        "to src.dtype (%s vs %s)", op,
                        tl_dtype_info_of(dt)->name,
                        tl_dtype_info_of((tl_dtype)src->dtype)->name);
    }
    if ((rc = check_index_shape(index, dst, d, false, "self", op)) < 0 ||
        (src && (rc = check_index_shape(index, src, d, true, "src", op)) <
                    0)) {
        return rc;
    }
    if (!src && (rc = value_bytes(value, dt, vb)) < 0) {
        return rc;
    }
    if (index->numel == 0) {
        tl_tensor_bump_version(dst); /* an in-place call, as PyTorch */
        return 0;
    }
    idx = index_i64(index, false, op);
    if (!idx) {
        return -1;
    }
    if (!fresh &&
        (rc = check_bounds(idx, 0, nonempty_size(dst, d), d, op)) < 0) {
        goto done;
    }
    s = unaliased(dst, src, &failed);
    if (failed) {
        rc = -1;
        goto done;
    }
    if (tl_iter_overlap(dst, idx) != TL_OVERLAP_NO) {
        tl_tensor_impl *c = tl_op_clone(idx, TL_FORMAT_CONTIGUOUS);
        if (!c) {
            rc = -1;
            goto done;
        }
        tl_tensor_decref(idx);
        idx = c;
    }
    rc = scatter_core(dst, d, idx, s, vb, reduce, include_self,
                      fresh ? (uint64_t)nonempty_size(dst, d) : UINT64_MAX);
    if (rc == 1) {
        rc = first_bad(idx, 0, nonempty_size(dst, d), d, op);
    }
    tl_tensor_bump_version(dst);
done:
    tl_tensor_decref(s);
    tl_tensor_decref(idx);
    return rc;
}

int tl_op_scatter_(tl_tensor_impl *dst, int64_t dim, tl_tensor_impl *index,
                   tl_tensor_impl *src, const tl_scalar *value, int reduce,
                   bool include_self)
{
    return scatter_impl(dst, dim, index, src, value, reduce, include_self,
                        false);
}

tl_tensor_impl *tl_op_scatter(tl_tensor_impl *self, int64_t dim,
                              tl_tensor_impl *index, tl_tensor_impl *src,
                              const tl_scalar *value, int reduce,
                              bool include_self)
{
    if (check_cpu(self, reduce ? "scatter_reduce" : "scatter") < 0) {
        return NULL;
    }
    tl_tensor_impl *r = tl_op_clone(self, TL_FORMAT_PRESERVE);
    if (r && scatter_impl(r, dim, index, src, value, reduce, include_self,
                          true) < 0) {
        tl_tensor_decref(r);
        r = NULL;
    }
    return r;
}

/* ---- index_select and the index_* family -------------------------------- */

/* A 0-d or 1-D index as contiguous int64 with every entry checked against
 * [-size, size) (negative wrapped) when wrap, else [0, size).
 * Returns: new reference, or NULL. */
static tl_tensor_impl *index_1d(tl_tensor_impl *index, int64_t size, int d,
                                bool wrap, const char *op)
{
    if (index->ndim > 1) {
        tl_error(TL_ERR_INDEX, "%s(): Index is supposed to be a vector "
                 "(0-d or 1-D), but got %d dims", op, index->ndim);
        return NULL;
    }
    tl_tensor_impl *idx = index_i64(index, true, op);
    if (!idx) {
        return NULL;
    }
    if (wrap) {
        if (check_bounds(idx, -size, size, d, op) < 0) {
            tl_tensor_decref(idx);
            return NULL;
        }
        bool neg = false;
        const int64_t *v = (const int64_t *)tl_impl_data(idx);
        for (int64_t i = 0; i < idx->numel; i++) {
            neg |= v[i] < 0;
        }
        if (neg) {
            tl_tensor_impl *c = tl_tensor_empty(idx->ndim, idx->sizes,
                                                TL_DTYPE_INT64,
                                                tl_device_cpu(),
                                                TL_MEMKIND_DEFAULT);
            if (!c) {
                tl_tensor_decref(idx);
                return NULL;
            }
            int64_t *w = (int64_t *)tl_impl_data(c);
            for (int64_t i = 0; i < idx->numel; i++) {
                w[i] = v[i] < 0 ? v[i] + size : v[i];
            }
            tl_tensor_decref(idx);
            idx = c;
        }
    } else if (check_bounds(idx, 0, size, d, op) < 0) {
        tl_tensor_decref(idx);
        return NULL;
    }
    return idx;
}

/* The 1-D idx seen with shape `shape` (ndim dims, 1-D for 0-dim): stride
 * 1 along d, 0 elsewhere.  Returns: new reference, or NULL. */
static tl_tensor_impl *expand_index(tl_tensor_impl *idx, int ndim,
                                    const int64_t *shape, int d)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int n = ndim == 0 ? 1 : ndim;
    for (int k = 0; k < n; k++) {
        sizes[k] = ndim == 0 ? 1 : shape[k];
        strides[k] = 0;
    }
    sizes[d] = idx->numel;
    strides[d] = 1;
    return tl_impl_view(idx, n, sizes, strides, idx->storage_offset);
}

tl_tensor_impl *tl_op_index_select(tl_tensor_impl *out, tl_tensor_impl *self,
                                   int64_t dim, tl_tensor_impl *index)
{
    int d;
    tl_tensor_impl *idx = NULL, *ex = NULL, *res = NULL;
    if (check_cpu(self, "index_select") < 0 ||
        check_cpu(index, "index_select") < 0 ||
        tl_wrap_dim(dim, self->ndim, &d) < 0) {
        return NULL;
    }
    if (self->ndim == 0 && index->numel != 1) {
        tl_error(TL_ERR_SHAPE, "index_select(): Index to scalar can have "
                 "only 1 value, got %" PRId64 " value(s)", index->numel);
        return NULL;
    }
    idx = index_1d(index, nonempty_size(self, d), d, false, "index_select");
    if (!idx) {
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS];
    int nd = nonempty_ndim(self);
    for (int k = 0; k < nd; k++) {
        sizes[k] = nonempty_size(self, k);
    }
    sizes[d] = idx->numel;
    /* PyTorch: a 0-dim self with a 1-element index stays 0-dim. */
    res = tl_tensor_empty(self->ndim, sizes, (tl_dtype)self->dtype,
                          tl_device_cpu(), TL_MEMKIND_DEFAULT);
    ex = res ? expand_index(idx, nd, sizes, d) : NULL;
    if (!ex) {
        tl_tensor_decref(res);
        res = NULL;
        goto done;
    }
    if (res->numel > 0) {
        sg_plan p;
        plan_init(&p, ex, d, self, res, NULL,
                  copy_run(tl_itemsize(self->dtype), true));
        walk(&p);
    }
    res = commit_out(out, res, "index_select");
done:
    tl_tensor_decref(ex);
    tl_tensor_decref(idx);
    return res;
}

int tl_op_index_scatter_(tl_tensor_impl *dst, int64_t dim,
                         tl_tensor_impl *index, tl_tensor_impl *src,
                         const tl_scalar *value, int reduce,
                         bool include_self, const char *op)
{
    tl_dtype dt = (tl_dtype)dst->dtype;
    unsigned char vb[16];
    int d, rc;
    bool failed;
    tl_tensor_impl *idx = NULL, *ex = NULL, *s = NULL;
    if ((rc = check_dst(dst, op)) < 0 || (rc = check_cpu(index, op)) < 0 ||
        (src && (rc = check_cpu(src, op)) < 0) ||
        (rc = tl_wrap_dim(dim, dst->ndim, &d)) < 0 ||
        (rc = check_reduce(reduce, dt, op)) < 0) {
        return rc;
    }
    if (index->ndim > 1) {
        return tl_error(TL_ERR_INDEX, "%s(): Index is supposed to be a "
                        "vector (0-d or 1-D), but got %d dims", op,
                        index->ndim);
    }
    int64_t m = index->numel;
    if (dst->ndim == 0 && m != 1) {
        return tl_error(TL_ERR_SHAPE, "%s(): Index to scalar can have only "
                        "1 value, got %" PRId64 " value(s)", op, m);
    }
    int nd = nonempty_ndim(dst);
    int64_t shape[TL_MAX_DIMS];
    for (int k = 0; k < nd; k++) {
        shape[k] = nonempty_size(dst, k);
    }
    shape[d] = m;
    if (src) {
        if (src->dtype != dst->dtype) {
            return tl_error(TL_ERR_TYPE, "%s(): self (%s) and source (%s) "
                            "must have the same scalar type", op,
                            tl_dtype_info_of(dt)->name,
                            tl_dtype_info_of((tl_dtype)src->dtype)->name);
        }
        bool ok = nonempty_ndim(src) == nd;
        for (int k = 0; ok && k < nd; k++) {
            ok = nonempty_size(src, k) == shape[k];
        }
        if (!ok) {
            return tl_error(TL_ERR_SHAPE, "%s(): source of shape %s does not "
                            "fit self of shape %s with %" PRId64 " indices "
                            "along dim %d (expected %s)", op,
                            tl_fmt_list(0, src->ndim, src->sizes),
                            tl_fmt_list(1, dst->ndim, dst->sizes), m, d,
                            tl_fmt_list(2, nd, shape));
        }
    } else if ((rc = value_bytes(value, dt, vb)) < 0) {
        return rc;
    }
    idx = index_1d(index, nonempty_size(dst, d), d,
                   strcmp(op, "index_fill") == 0, op);
    if (!idx) {
        return -1;
    }
    s = unaliased(dst, src, &failed);
    if (failed) {
        rc = -1;
        goto done;
    }
    if (m > 0) {
        ex = expand_index(idx, nd, shape, d);
        if (!ex) {
            rc = -1;
            goto done;
        }
        rc = scatter_core(dst, d, ex, s, vb, reduce, include_self,
                          UINT64_MAX);
    }
    tl_tensor_bump_version(dst);
done:
    tl_tensor_decref(s);
    tl_tensor_decref(ex);
    tl_tensor_decref(idx);
    return rc;
}
