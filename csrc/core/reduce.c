/* csrc/core/reduce.c — the reduction entry points (sum, prod, mean, amax,
 * amin, max, min, any, all, argmax, argmin, var, std) and the driver that
 * runs a reduction kernel (reduce_kernels.c) over a layout: dtype rules and
 * validation, dims, out=, the layout of reduced and kept dims (from the
 * TensorIterator with is_reduction, or directly for contiguous leading /
 * trailing reductions), deterministic chunking over the thread pool, and the
 * final casts into the result.  Tensor data comes only from tl_tensor_empty*
 * (scratch buffers included); no malloc here. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "device_impl.h"
#include "iter_impl.h"
#include "kernels.h"
#include "parallel.h"
#include "reduce_impl.h"
#include "shape.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"

/* Note [Reduction layout]
 * A reduction sees its input as two groups of dims: the reduced dims R
 * (the output's stride is 0 there) and the kept dims K, each sorted by the
 * input's |stride|, fastest first.  Output element o (flat over K, dim 0
 * fastest) reduces M = prod(R sizes) input elements, walked by the flat
 * reduced index r (R dim 0 fastest).  Two kernel shapes:
 * - inner (rows): R[0] moves fastest in memory, so each output reduces
 *   runs along R[0] with a contiguous multi-lane loop (a full reduction, a
 *   sum over the last dim);
 * - outer (cols): K[0] moves fastest, so a tile of up to TL_REDUCE_TILE
 *   outputs along K[0] accumulates row after row with vectorisable loops
 *   over the tile (a sum over dim 0 of a C-contiguous matrix), never a
 *   column-by-column strided walk.
 * The layout comes from the TensorIterator built with is_reduction (which
 * broadcasts, orders and coalesces the dims; the output is the keepdim view
 * of the destination), or directly when the input is contiguous and the
 * reduced dims are a leading or trailing block (no per-dim work).
 *
 * Chunks and task sizes: Note [Reduction chunks] in reduce_impl.h. */
#define RCHUNK TL_REDUCE_RCHUNK
#define TASK_WORK TL_REDUCE_TASK_WORK
#define TILE TL_REDUCE_TILE

/* ---- names ----------------------------------------------------------------- */

static const char *const op_names[TL_REDUCE_OP_COUNT] = {
    [TL_REDUCE_SUM] = "sum",       [TL_REDUCE_PROD] = "prod",
    [TL_REDUCE_MEAN] = "mean",     [TL_REDUCE_AMAX] = "amax",
    [TL_REDUCE_AMIN] = "amin",     [TL_REDUCE_MAX] = "max",
    [TL_REDUCE_MIN] = "min",       [TL_REDUCE_ANY] = "any",
    [TL_REDUCE_ALL] = "all",       [TL_REDUCE_ARGMAX] = "argmax",
    [TL_REDUCE_ARGMIN] = "argmin", [TL_REDUCE_VAR] = "var",
    [TL_REDUCE_STD] = "std",       [TL_REDUCE_NANSUM] = "nansum",
    [TL_REDUCE_NANMEAN] = "nanmean",
    [TL_REDUCE_COUNT_NONZERO] = "count_nonzero",
};

const char *tl_reduce_name(int op)
{
    return op >= 0 && op < TL_REDUCE_OP_COUNT ? op_names[op] : NULL;
}

int tl_reduce_from_name(const char *name)
{
    for (int i = 0; i < TL_REDUCE_OP_COUNT; i++) {
        if (strcmp(name, op_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---- dtype rules ----------------------------------------------------------- */

static bool is_float_or_complex(int dt)
{
    int k = tl_dtype_kind_of(dt);
    return k == TL_KIND_FLOAT || k == TL_KIND_COMPLEX;
}

static int real_dtype(int dt)
{
    return dt == TL_DTYPE_COMPLEX64    ? TL_DTYPE_FLOAT32
           : dt == TL_DTYPE_COMPLEX128 ? TL_DTYPE_FLOAT64
                                       : dt;
}

/* A sum or product of `from` read natively gives exactly what it gives on
 * the input cast to `to` first (integers wrap mod 2^64 either way; float
 * widenings are exact and accumulate in float64 either way). */
static bool native_ok(int from, int to)
{
    if (from == to) {
        return true;
    }
    if (to == TL_DTYPE_INT64 && tl_dtype_is_intlike(from)) {
        return true;
    }
    if ((from == TL_DTYPE_FLOAT16 || from == TL_DTYPE_BFLOAT16) &&
        (to == TL_DTYPE_FLOAT32 || to == TL_DTYPE_FLOAT64)) {
        return true;
    }
    return (from == TL_DTYPE_FLOAT32 && to == TL_DTYPE_FLOAT64) ||
           (from == TL_DTYPE_COMPLEX64 && to == TL_DTYPE_COMPLEX128);
}

/* Result dtype (*rt) and the dtype the kernel reads (*kin: the input is
 * cast to it first when it differs from a). */
static int reduce_types(int op, int a, int dtype, int *rt, int *kin)
{
    const char *name = op_names[op];
    *kin = a;
    if (dtype >= 0 && !tl_dtype_valid(dtype)) {
        return tl_error(TL_ERR_TYPE, "%s(): invalid dtype %d", name, dtype);
    }
    switch (op) {
    case TL_REDUCE_COUNT_NONZERO:
        *rt = TL_DTYPE_INT64; /* reads every dtype as it is */
        return 0;
    case TL_REDUCE_NANSUM:
        if (tl_dtype_kind_of(a) == TL_KIND_COMPLEX) {
            return tl_error(TL_ERR_TYPE,
                            "nansum does not support complex inputs");
        }
        if (dtype >= 0 && tl_dtype_kind_of(dtype) == TL_KIND_COMPLEX) {
            return tl_error(TL_ERR_TYPE, "nansum(): dtype=%s: complex "
                            "dtypes are not supported",
                            tl_dtype_table[dtype].name);
        }
        /* the dtype rules of sum follow */
        /* fall through */
    case TL_REDUCE_SUM:
    case TL_REDUCE_PROD:
        if (dtype >= 0) {
            *rt = dtype;
            *kin = native_ok(a, dtype) ? a : dtype;
        } else {
            *rt = tl_dtype_is_intlike(a) ? TL_DTYPE_INT64 : a;
        }
        return 0;
    case TL_REDUCE_NANMEAN:
        if (tl_dtype_kind_of(a) != TL_KIND_FLOAT) {
            return tl_error(TL_ERR_TYPE,
                            "nanmean(): expected input to have floating "
                            "point dtype but got %s",
                            tl_dtype_table[a].name);
        }
        if (dtype >= 0 && tl_dtype_kind_of(dtype) != TL_KIND_FLOAT) {
            return tl_error(TL_ERR_TYPE,
                            "nanmean(): dtype=%s is not a floating point "
                            "dtype", tl_dtype_table[dtype].name);
        }
        /* the dtype rules of mean follow */
        /* fall through */
    case TL_REDUCE_MEAN:
        if (dtype >= 0) {
            if (!is_float_or_complex(dtype)) {
                return tl_error(TL_ERR_TYPE,
                                "mean(): dtype=%s is not a floating point "
                                "or complex dtype: an average needs one",
                                tl_dtype_table[dtype].name);
            }
            *rt = dtype;
            *kin = native_ok(a, dtype) ? a : dtype;
            return 0;
        }
        if (!is_float_or_complex(a)) {
            return tl_error(TL_ERR_TYPE,
                            "mean() of a tensor of dtype %s needs a "
                            "floating point or complex result dtype; pass "
                            "dtype=tensorlib.float32 (or another floating "
                            "dtype) to average in it",
                            tl_dtype_table[a].name);
        }
        *rt = a;
        return 0;
    case TL_REDUCE_AMAX:
    case TL_REDUCE_AMIN:
    case TL_REDUCE_MAX:
    case TL_REDUCE_MIN:
    case TL_REDUCE_ARGMAX:
    case TL_REDUCE_ARGMIN:
        if (dtype >= 0) {
            return tl_error(TL_ERR_TYPE, "%s() takes no dtype", name);
        }
        if (tl_dtype_kind_of(a) == TL_KIND_COMPLEX) {
            return tl_error(TL_ERR_TYPE,
                            "%s(): does not support complex input", name);
        }
        if (a == TL_DTYPE_BOOL &&
            (op == TL_REDUCE_ARGMAX || op == TL_REDUCE_ARGMIN)) {
            return tl_error(TL_ERR_TYPE, "%s(): does not support bool input",
                            name);
        }
        *rt = op == TL_REDUCE_ARGMAX || op == TL_REDUCE_ARGMIN
                  ? TL_DTYPE_INT64
                  : a;
        return 0;
    case TL_REDUCE_ANY:
    case TL_REDUCE_ALL:
        if (dtype >= 0) {
            return tl_error(TL_ERR_TYPE, "%s() takes no dtype", name);
        }
        *rt = a == TL_DTYPE_UINT8 ? TL_DTYPE_UINT8 : TL_DTYPE_BOOL;
        return 0;
    case TL_REDUCE_VAR:
    case TL_REDUCE_STD:
        if (dtype >= 0) {
            return tl_error(TL_ERR_TYPE, "%s() takes no dtype", name);
        }
        if (!is_float_or_complex(a)) {
            return tl_error(TL_ERR_TYPE, "%s() needs a floating point or "
                            "complex input, got %s: convert first, e.g. "
                            "t.to(tensorlib.float32)", name,
                            tl_dtype_table[a].name);
        }
        *rt = real_dtype(a);
        return 0;
    default:
        return tl_error(TL_ERR_VALUE, "unknown reduction %d", op);
    }
}

int tl_reduce_result_type(int op, tl_dtype a, int dtype, tl_dtype *out)
{
    int rt, kin;
    if (op < 0 || op >= TL_REDUCE_OP_COUNT || !tl_dtype_valid(a)) {
        return tl_error(TL_ERR_VALUE, "unknown reduction %d or dtype %d", op,
                        (int)a);
    }
    int rc = reduce_types(op, a, dtype, &rt, &kin);
    if (rc == 0) {
        *out = (tl_dtype)rt;
    }
    return rc;
}

/* ---- dims and shapes ---------------------------------------------------------- */

/* The mask of reduced dims.  dims NULL: all; an empty list: all when
 * empty_all, else none. */
static int dim_mask(const tl_tensor_impl *a, int ndims, const int64_t *dims,
                    bool empty_all, uint64_t *mask)
{
    const int nd = a->ndim;
    const uint64_t all = nd >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << nd) - 1);
    if (tl_tensor_check_live(a) < 0) { /* every reduction's input */
        return tl_error_kind();
    }
    if (!dims || (ndims == 0 && empty_all)) {
        *mask = all;
        return 0;
    }
    if (ndims < 0) {
        return tl_error(TL_ERR_VALUE, "negative number of dims %d", ndims);
    }
    uint64_t seen = 0;
    for (int i = 0; i < ndims; i++) {
        int w;
        if (tl_wrap_dim(dims[i], nd, &w) < 0) {
            return tl_error_kind();
        }
        if (seen & ((uint64_t)1 << w)) {
            return tl_error(TL_ERR_SHAPE,
                            "dim %d is named twice in dims=%s (a dim is "
                            "reduced once)", w,
                            tl_fmt_list(0, ndims, dims));
        }
        seen |= (uint64_t)1 << w;
    }
    *mask = seen & all; /* a 0-dim tensor has no dim to reduce */
    return 0;
}

static bool reduces(uint64_t mask, int d) { return (mask >> d) & 1; }

/* keepdim sizes (ks, a->ndim entries) and result sizes (rs, *rnd). */
static void result_shapes(const tl_tensor_impl *a, uint64_t mask,
                          bool keepdim, int64_t *ks, int *rnd, int64_t *rs)
{
    int n = 0;
    for (int d = 0; d < a->ndim; d++) {
        const bool r = reduces(mask, d);
        ks[d] = r ? 1 : a->sizes[d];
        if (!r || keepdim) {
            rs[n++] = ks[d];
        }
    }
    *rnd = n;
}

/* Reductions without an identity (max, argmax, ...) refuse empty inputs
 * without a dim, and reduced dims of size 0 (PyTorch's rule). */
static int check_nonempty(const char *name, const tl_tensor_impl *a,
                          uint64_t mask, bool dim_given)
{
    if (a->numel != 0) {
        return 0;
    }
    if (!dim_given) {
        return tl_error(TL_ERR_SHAPE,
                        "%s(): the input of shape %s is empty, and %s of no "
                        "elements has no value; pass dim= to reduce only "
                        "dims that are not empty", name,
                        tl_fmt_list(0, a->ndim, a->sizes), name);
    }
    for (int d = 0; d < a->ndim; d++) {
        if (reduces(mask, d) && a->sizes[d] == 0) {
            return tl_error(TL_ERR_SHAPE,
                            "%s(): dim %d of shape %s has size 0, and %s "
                            "has no value for an empty dim", name, d,
                            tl_fmt_list(0, a->ndim, a->sizes), name);
        }
    }
    return 0;
}

/* ---- out= -------------------------------------------------------------------- */

/* Validates out (see tensorlib/reduce.h).  *resize: out must be resized. */
static int check_out(tl_tensor_impl *out, const tl_tensor_impl *a, int rnd,
                     const int64_t *rs, int rt, int explicit_dtype,
                     bool *resize)
{
    *resize = false;
    if (!tl_device_eq(out->device, a->device)) {
        return tl_device_mismatch(a->device, out->device);
    }
    int rc = tl_tensor_check_writable(out);
    if (rc < 0) {
        return rc;
    }
    if (explicit_dtype >= 0 && out->dtype != explicit_dtype) {
        return tl_error(TL_ERR_TYPE,
                        "dtype=%s was asked for, but out= has dtype %s: "
                        "they must agree", tl_dtype_table[explicit_dtype].name,
                        tl_dtype_table[out->dtype].name);
    }
    if (!tl_can_cast((tl_dtype)rt, (tl_dtype)out->dtype)) {
        return tl_error(TL_ERR_TYPE,
                        "the result has dtype %s, which an output of dtype "
                        "%s cannot hold: can_cast(%s, %s) is False (no "
                        "downcast across categories)",
                        tl_dtype_table[rt].name,
                        tl_dtype_table[out->dtype].name,
                        tl_dtype_table[rt].name,
                        tl_dtype_table[out->dtype].name);
    }
    if (!tl_sizes_equal(out, rnd, rs)) {
        rc = tl_iter_check_out_resize(out, rnd, rs, true);
        *resize = rc == 0;
        return rc;
    }
    return tl_iter_check_writable_layout(out);
}

/* Where the result goes: out itself, or a fresh tensor (no out, an out
 * that must be resized, or one sharing memory with the input) copied into
 * out at the end. */
typedef struct rdest {
    tl_tensor_impl *out;  /* borrowed; NULL when none */
    tl_tensor_impl *dest; /* owned reference */
    bool resize;
    bool temp;            /* dest is fresh and must be copied into out */
} rdest;

static int dest_init(rdest *r, tl_tensor_impl *out, const tl_tensor_impl *a,
                     int rnd, const int64_t *rs, int rt, bool resize)
{
    r->out = out;
    r->resize = resize;
    r->temp = false;
    /* Device kernels write the result dtype only: another out dtype goes
     * through a temporary (and a converting copy_). */
    if (out && !resize && !tl_may_share_memory(out, a) &&
        (out->dtype == rt || a->device.type == TL_DEVICE_CPU)) {
        tl_tensor_incref(out);
        r->dest = out;
        return 0;
    }
    r->dest = tl_tensor_empty(rnd, rs, (tl_dtype)rt, a->device,
                              TL_MEMKIND_DEFAULT);
    if (!r->dest) {
        return tl_error_kind();
    }
    r->temp = out != NULL;
    return 0;
}

/* Commit, step 1: resizes out when it must be (validated by check_out, so
 * only memory can be missing).  Returns 0 or an error (out unchanged). */
static int dest_resize(rdest *r)
{
    if (r->out && r->temp && r->resize) {
        return tl_tensor_resize_(r->out, r->dest->ndim, r->dest->sizes);
    }
    return 0;
}

/* Commit, step 2: copies a temporary result into out (bumping its
 * version), or bumps the version of an out written directly.  Consumes
 * r->dest.  Returns: new reference to the result, or NULL. */
static tl_tensor_impl *dest_copy(rdest *r)
{
    if (!r->out) {
        return r->dest;
    }
    if (r->temp) {
        int rc = tl_op_copy_(r->out, r->dest);
        tl_tensor_decref(r->dest);
        if (rc < 0) {
            return NULL;
        }
        tl_tensor_incref(r->out);
        return r->out;
    }
    tl_tensor_bump_version(r->out);
    return r->dest;
}

/* Commits dest into out.  Returns: new reference to the result, or NULL
 * (out unchanged). */
static tl_tensor_impl *dest_finish(rdest *r)
{
    if (dest_resize(r) < 0) {
        tl_tensor_decref(r->dest);
        return NULL;
    }
    return dest_copy(r);
}

/* ---- layout ------------------------------------------------------------------ */

typedef struct rlayout {
    char *in;
    int nk;
    int64_t ksize[TL_MAX_DIMS];
    int64_t kin[TL_MAX_DIMS];         /* input byte strides of K */
    int64_t kout[2][TL_MAX_DIMS];     /* output byte strides of K */
    char *out[2];
    tl_rspace rs;
    bool outer;
    int64_t nout;
    int64_t M;
} rlayout;

static int64_t iabs64(int64_t x) { return x < 0 ? -x : x; }

/* Sorts R and K by |input stride| (stable) and decides inner or outer. */
static void layout_finish(rlayout *L, int nouts)
{
    for (int i = 1; i < L->rs.nr; i++) {
        for (int j = i; j > 0 && iabs64(L->rs.stride[j]) <
                                     iabs64(L->rs.stride[j - 1]); j--) {
            int64_t t = L->rs.stride[j];
            L->rs.stride[j] = L->rs.stride[j - 1];
            L->rs.stride[j - 1] = t;
            t = L->rs.size[j];
            L->rs.size[j] = L->rs.size[j - 1];
            L->rs.size[j - 1] = t;
        }
    }
    for (int i = 1; i < L->nk; i++) {
        for (int j = i; j > 0 && iabs64(L->kin[j]) < iabs64(L->kin[j - 1]);
             j--) {
            int64_t t = L->kin[j];
            L->kin[j] = L->kin[j - 1];
            L->kin[j - 1] = t;
            t = L->ksize[j];
            L->ksize[j] = L->ksize[j - 1];
            L->ksize[j - 1] = t;
            for (int q = 0; q < nouts; q++) {
                t = L->kout[q][j];
                L->kout[q][j] = L->kout[q][j - 1];
                L->kout[q][j - 1] = t;
            }
        }
    }
    L->M = 1;
    for (int d = 0; d < L->rs.nr; d++) {
        L->M *= L->rs.size[d];
    }
    L->nout = 1;
    for (int d = 0; d < L->nk; d++) {
        L->nout *= L->ksize[d];
    }
    L->outer = L->nk > 0 &&
               (L->rs.nr == 0 || iabs64(L->kin[0]) < iabs64(L->rs.stride[0]));
}

/* The direct layout of a contiguous input whose reduced dims (mask) are a
 * leading or trailing block, into contiguous destinations.  Returns false
 * when the shapes do not qualify (then the iterator builds the layout). */
static bool layout_direct(rlayout *L, tl_tensor_impl *in, uint64_t mask,
                          int nouts, tl_tensor_impl *const *dest)
{
    if (!(in->flags & TL_FLAG_CONTIGUOUS)) {
        return false;
    }
    for (int q = 0; q < nouts; q++) {
        if (!(dest[q]->flags & TL_FLAG_CONTIGUOUS)) {
            return false;
        }
    }
    /* Dims of size 1 do not matter.  The others read lead (kept), mid
     * (reduced), trail (kept), in order; anything else (a reduced dim
     * after a kept one after a reduced one) is not a block. */
    int64_t lead = 1, mid = 1, trail = 1;
    int phase = 0; /* 0: leading kept, 1: reduced block, 2: trailing kept */
    for (int d = 0; d < in->ndim; d++) {
        const int64_t n = in->sizes[d];
        if (n == 1) {
            continue;
        }
        if (reduces(mask, d)) {
            if (phase == 2) {
                return false;
            }
            phase = 1;
            mid *= n;
        } else if (phase == 0) {
            lead *= n;
        } else {
            phase = 2;
            trail *= n;
        }
    }
    if (lead > 1 && trail > 1) {
        return false; /* a middle block: the iterator's general layout */
    }
    const int64_t item = tl_itemsize(in->dtype);
    L->in = tl_impl_data(in);
    for (int q = 0; q < nouts; q++) {
        L->out[q] = tl_impl_data(dest[q]);
    }
    L->rs.nr = 0;
    L->nk = 0;
    if (mid > 1) {
        L->rs.size[0] = mid;
        L->rs.stride[0] = trail * item;
        L->rs.nr = 1;
    }
    const int64_t kept = lead * trail;
    if (kept > 1) {
        L->ksize[0] = kept;
        L->kin[0] = (trail > 1 ? 1 : mid) * item;
        for (int q = 0; q < nouts; q++) {
            L->kout[q][0] = tl_itemsize(dest[q]->dtype);
        }
        L->nk = 1;
    }
    layout_finish(L, nouts);
    return true;
}

/* The layout through the TensorIterator: the destinations' keepdim views as
 * outputs (stride 0 on reduced dims), in as the input, is_reduction. */
static int layout_iter(rlayout *L, tl_tensor_impl *in, int nouts,
                       tl_tensor_impl *const *kview)
{
    tl_iter it;
    tl_iter_config c;
    tl_iter_config_init(&c);
    for (int q = 0; q < nouts; q++) {
        tl_iter_config_add_output(&c, kview[q]);
    }
    tl_iter_config_add_input(&c, in);
    c.is_reduction = true;
    c.resize_outputs = false;
    c.check_all_same_dtype = false;
    c.check_mem_overlap = false;
    c.check_writable = false;
    c.device_kernels = true; /* only the layout is read from it */
    int rc = tl_iter_build(&it, &c);
    if (rc < 0) {
        return rc;
    }
    /* Outputs are given and the input is neither copied nor inlined (its
     * numel is above 1), so the pointers outlive the iterator. */
    const tl_iter_op *ip = &it.ops[nouts];
    L->in = ip->data;
    for (int q = 0; q < nouts; q++) {
        L->out[q] = it.ops[q].data;
    }
    L->rs.nr = 0;
    L->nk = 0;
    for (int d = 0; d < it.ndim; d++) {
        if (it.shape[d] == 1) {
            continue;
        }
        if (it.ops[0].strides[d] == 0) {
            L->rs.size[L->rs.nr] = it.shape[d];
            L->rs.stride[L->rs.nr] = ip->strides[d];
            L->rs.nr++;
        } else {
            L->ksize[L->nk] = it.shape[d];
            L->kin[L->nk] = ip->strides[d];
            for (int q = 0; q < nouts; q++) {
                L->kout[q][L->nk] = it.ops[q].strides[d];
            }
            L->nk++;
        }
    }
    tl_iter_release(&it);
    layout_finish(L, nouts);
    return 0;
}

/* The keepdim view of dest (result sizes, reduced dims dropped unless
 * keepdim).  Returns: new reference, or NULL. */
static tl_tensor_impl *keepdim_view(tl_tensor_impl *dest,
                                    const tl_tensor_impl *a, uint64_t mask,
                                    bool keepdim)
{
    if (keepdim || mask == 0) {
        tl_tensor_incref(dest);
        return dest;
    }
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < a->ndim; d++) {
        if (reduces(mask, d)) {
            sizes[d] = 1;
            strides[d] = 0;
        } else {
            sizes[d] = dest->sizes[k];
            strides[d] = dest->strides[k];
            k++;
        }
    }
    return tl_tensor_as_strided(dest, a->ndim, sizes, strides,
                                dest->storage_offset);
}

/* Builds the layout of in reduced over mask into the destinations (each of
 * result shape).  Returns 0 or an error. */
static int layout_build(rlayout *L, tl_tensor_impl *in, uint64_t mask,
                        bool keepdim, int nouts, tl_tensor_impl *const *dest)
{
    if (in->numel == 1) {
        L->in = tl_impl_data(in);
        for (int q = 0; q < nouts; q++) {
            L->out[q] = tl_impl_data(dest[q]);
        }
        L->rs.nr = 0;
        L->nk = 0;
        layout_finish(L, nouts);
        return 0;
    }
    if (layout_direct(L, in, mask, nouts, dest)) {
        return 0;
    }
    tl_tensor_impl *kv[2] = {NULL, NULL};
    int rc = 0;
    for (int q = 0; q < nouts && rc == 0; q++) {
        kv[q] = keepdim_view(dest[q], in, mask, keepdim);
        if (!kv[q]) {
            rc = tl_error_kind();
        }
    }
    if (rc == 0) {
        rc = layout_iter(L, in, nouts, kv);
    }
    tl_tensor_decref(kv[0]);
    tl_tensor_decref(kv[1]);
    return rc;
}

/* ---- the driver -------------------------------------------------------------- */

typedef struct rrun {
    const rlayout *L;
    const tl_rkernel *k;
    tl_rfinish fin;
    int nouts;
    int out_dtype[2];
    int res_dtype[2];
    bool out_index[2];     /* writes the record's index (int64) */
    bool out_slot1[2];     /* finishes from v slot 1 (aminmax's max) */
    tl_racc *raw;          /* instead of outputs: records by output index */
    const tl_racc *aux;    /* per output (var's means), or NULL */
    int64_t rchunk, nrc, oblock, nob;
    int64_t footprint;     /* input bytes read (tl_reduce_kernel_footprint) */
    tl_racc *partial;      /* nrc * nout records when nrc > 1 */
    int absorbed;          /* Note [Absorbing chunks]; atomic access */
    bool first_done;       /* partial[0] computed before the tasks ran */
} rrun;

/* Note [Absorbing chunks]
 * any() of a tensor whose first element is true reads one element in
 * NumPy; here every chunk of TL_REDUCE_RCHUNK elements ran (each stopping
 * after its first block), so `t.any()` of 4M true bools took 2.4x
 * NumPy's time.  For families whose kernel `absorbs` (any, all), a
 * whole reduction (one output, several chunks) raises `absorbed` when a
 * chunk's record equals the absorbing value, and a chunk that starts
 * after that stores the absorbing record without reading its elements.
 * The output is the same whichever chunks ran (OR with 1 is 1, AND with
 * 0 is 0), so results still do not depend on the thread count.  The
 * first chunk runs alone before anything else is set up (the partials'
 * scratch, the threads): when it absorbs, that is the result, and
 * `t.any()` of 4M random bools takes 0.3 us instead of 3-14 (NumPy 1.0);
 * otherwise its record is kept as the first partial and the other chunks
 * run as before. */

/* Pairwise (or in-order) accumulation of consecutive partial records. */
typedef struct cascade {
    tl_racc lv[64];
    uint64_t n;
} cascade;

static void cascade_push(const tl_rkernel *k, cascade *c, tl_racc t)
{
    if (!k->pairwise) {
        if (c->n++ == 0) {
            c->lv[0] = t;
        } else {
            k->combine(&c->lv[0], &t);
        }
        return;
    }
    int l = 0;
    while (c->n & ((uint64_t)1 << l)) {
        k->combine(&c->lv[l], &t);
        t = c->lv[l];
        l++;
    }
    c->lv[l] = t;
    c->n++;
}

static void cascade_result(const tl_rkernel *k, const cascade *c,
                           tl_racc *res)
{
    if (!k->pairwise) {
        *res = c->lv[0];
        return;
    }
    int l = 63;
    while (!(c->n & ((uint64_t)1 << l))) {
        l--;
    }
    *res = c->lv[l];
    for (l--; l >= 0; l--) {
        if (c->n & ((uint64_t)1 << l)) {
            k->combine(res, &c->lv[l]);
        }
    }
}

/* One output's reduction over reduced indices [rb, re) (inner layout). */
static void reduce_inner(const rrun *R, const char *p, int64_t rb,
                         int64_t re, const tl_racc *aux, tl_racc *res)
{
    const tl_rspace *rs = &R->L->rs;
    const tl_rkernel *k = R->k;
    if (rs->nr == 0) {
        k->row(p, 1, 0, 0, aux, res);
        return;
    }
    const int64_t n0 = rs->size[0], s0 = rs->stride[0];
    if (rs->nr == 1) {
        k->row(p + rb * s0, re - rb, s0, rb, aux, res);
        return;
    }
    cascade c;
    c.n = 0;
    for (int64_t r = rb; r < re;) {
        const int64_t i0 = r % n0;
        int64_t rest = r / n0, off = 0;
        for (int d = 1; d < rs->nr; d++) {
            off += (rest % rs->size[d]) * rs->stride[d];
            rest /= rs->size[d];
        }
        int64_t len = n0 - i0;
        if (len > re - r) {
            len = re - r;
        }
        tl_racc t;
        k->row(p + off + i0 * s0, len, s0, r, aux, &t);
        cascade_push(k, &c, t);
        r += len;
    }
    cascade_result(k, &c, res);
}

/* Byte offset of output o (flat over K) for strides st. */
static int64_t k_offset(const rlayout *L, int64_t o, const int64_t *st)
{
    int64_t off = 0;
    for (int d = 0; d < L->nk; d++) {
        off += (o % L->ksize[d]) * st[d];
        o /= L->ksize[d];
    }
    return off;
}

/* Length of the run of outputs from o along K[0], at most lim and TILE. */
static int64_t run_length(const rlayout *L, int64_t o, int64_t lim)
{
    int64_t n = lim - o;
    if (L->nk > 0 && n > L->ksize[0] - o % L->ksize[0]) {
        n = L->ksize[0] - o % L->ksize[0];
    }
    return n < TILE ? n : TILE;
}

/* Writes the records of outputs [o, o + n) (one run along K[0]). */
static void emit(const rrun *R, int64_t o, int64_t n, const tl_racc *buf)
{
    const rlayout *L = R->L;
    if (R->raw) {
        memcpy(R->raw + o, buf, (size_t)n * sizeof *buf);
        return;
    }
    _Alignas(16) unsigned char fbuf[TILE * 16];
    _Alignas(16) unsigned char rbuf[TILE * 16];
    for (int q = 0; q < R->nouts; q++) {
        int fdt;
        if (R->out_index[q]) {
            fdt = TL_DTYPE_INT64;
            for (int64_t i = 0; i < n; i++) {
                ((int64_t *)fbuf)[i] = buf[i].idx;
            }
        } else {
            fdt = R->k->final_dtype;
            const int64_t fi = tl_itemsize(fdt);
            if (!R->out_slot1[q]) {
                tl_reduce_finish_n(R->k, buf, n, &R->fin, fbuf);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    tl_racc t = buf[i];
                    t.v.u[0] = t.v.u[1];
                    R->k->finish(&t, &R->fin, fbuf + i * fi);
                }
            }
        }
        const unsigned char *src = fbuf;
        int sdt = fdt;
        if (fdt != R->res_dtype[q]) {
            tl_cvt_get(fdt, R->res_dtype[q])(
                (char *)rbuf, tl_itemsize(R->res_dtype[q]),
                (const char *)fbuf, tl_itemsize(fdt), n);
            src = rbuf;
            sdt = R->res_dtype[q];
        }
        char *dst = L->out[q] + k_offset(L, o, L->kout[q]);
        tl_cvt_get(sdt, R->out_dtype[q])(
            dst, L->nk > 0 ? L->kout[q][0] : 0, (const char *)src,
            tl_itemsize(sdt), n);
    }
}

static void run_task(void *vctx, int64_t c)
{
    const rrun *R = vctx;
    const rlayout *L = R->L;
    const int64_t ob = c / R->nrc, rc = c % R->nrc;
    const int64_t o0 = ob * R->oblock;
    const int64_t o1 = o0 + R->oblock < L->nout ? o0 + R->oblock : L->nout;
    const int64_t rb = rc * R->rchunk;
    const int64_t re = rb + R->rchunk < L->M ? rb + R->rchunk : L->M;
    const int64_t kin0 = L->nk > 0 ? L->kin[0] : 0;
    if (c == 0 && R->first_done) {
        return;
    }
    tl_reduce_kernel_footprint(R->footprint);
    tl_racc buf[TILE];
    const bool absorbs = R->k->absorbs && L->nout == 1 && R->nrc > 1;
    if (absorbs && __atomic_load_n(&R->absorbed, __ATOMIC_RELAXED)) {
        memset(&buf[0], 0, sizeof buf[0]);
        buf[0].v.u[0] = R->k->absorb;
        R->partial[rc] = buf[0];
        return;
    }
    for (int64_t o = o0; o < o1;) {
        const int64_t n = run_length(L, o, o1);
        const char *base = L->in + k_offset(L, o, L->kin);
        const tl_racc *aux = R->aux ? R->aux + o : NULL;
        if (L->outer) {
            R->k->cols(base, n, kin0, &L->rs, rb, re, aux, buf);
        } else if (L->rs.nr == 1) {
            /* reduce_inner's one-dim case, without a call a row */
            const int64_t s0 = L->rs.stride[0];
            const char *p = base + rb * s0;
            if (R->k->rows) {
                R->k->rows(p, n, kin0, re - rb, s0, rb, aux, buf);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    R->k->row(p + i * kin0, re - rb, s0, rb,
                              aux ? aux + i : NULL, &buf[i]);
                }
            }
        } else {
            for (int64_t i = 0; i < n; i++) {
                reduce_inner(R, base + i * kin0, rb, re, aux ? aux + i : NULL,
                             &buf[i]);
            }
        }
        if (R->nrc > 1) {
            memcpy(R->partial + rc * L->nout + o, buf,
                   (size_t)n * sizeof *buf);
            if (absorbs && buf[0].v.u[0] == R->k->absorb) {
                /* the one field tasks write (R is the caller's) */
                __atomic_store_n((int *)&R->absorbed, 1, __ATOMIC_RELAXED);
            }
        } else {
            emit(R, o, n, buf);
        }
        o += n;
    }
}

/* Partial records lo .. hi-1 of output o, combined pairwise in order. */
static tl_racc combine_partials(const rrun *R, int64_t o, int64_t lo,
                                int64_t hi)
{
    if (hi - lo == 1) {
        return R->partial[lo * R->L->nout + o];
    }
    const int64_t mid = lo + (hi - lo) / 2;
    tl_racc a = combine_partials(R, o, lo, mid);
    tl_racc b = combine_partials(R, o, mid, hi);
    R->k->combine(&a, &b);
    return a;
}

static void combine_task(void *vctx, int64_t c)
{
    const rrun *R = vctx;
    const rlayout *L = R->L;
    const int64_t o0 = c * TILE;
    const int64_t o1 = o0 + TILE < L->nout ? o0 + TILE : L->nout;
    tl_racc buf[TILE];
    for (int64_t o = o0; o < o1;) {
        const int64_t n = run_length(L, o, o1);
        for (int64_t i = 0; i < n; i++) {
            buf[i] = combine_partials(R, o + i, 0, R->nrc);
        }
        emit(R, o, n, buf);
        o += n;
    }
}

/* Scratch memory (from the allocator, as tensor data). */
static tl_tensor_impl *scratch(int64_t nbytes)
{
    int64_t n = nbytes > 0 ? nbytes : 1;
    return tl_tensor_empty(1, &n, TL_DTYPE_UINT8, tl_device_cpu(),
                           TL_MEMKIND_DEFAULT);
}

/* Outputs per task of an outer (cols) layout: a whole tile, so that each
 * row is read in long runs (TL_REDUCE_TILE), unless the tasks would then
 * be fewer than the threads: the outputs then split evenly over the
 * threads, in multiples of 64 and at least OUTER_MIN_BLOCK.  A block never
 * changes a value (Note [Reduction chunks]: a cols kernel computes each
 * column on its own), so this may follow the thread count. */
#define OUTER_MIN_BLOCK 512
static int64_t outer_block(int64_t nout, int64_t nrc)
{
    const int64_t nt = tl_get_num_threads();
    if (nt <= 1 || nrc * ((nout + TILE - 1) / TILE) >= nt) {
        return TILE;
    }
    const int64_t nob = (nt + nrc - 1) / nrc;
    int64_t ob = (nout + nob - 1) / nob;
    ob = (ob + 63) / 64 * 64;
    return ob < OUTER_MIN_BLOCK ? OUTER_MIN_BLOCK : ob > TILE ? TILE : ob;
}

/* Runs R over its layout (M >= 1, nout >= 1).  pins: tensors whose memory
 * is read or written (kept alive while the GIL is released), the input
 * first.
 * Returns 0 or an error (nothing written then). */
static int run(rrun *R, tl_tensor_impl *const *pins, int npins)
{
    const rlayout *L = R->L;
    R->footprint = L->M * L->nout * tl_itemsize(pins[0]->dtype);
    R->nrc = L->M > RCHUNK ? (L->M + RCHUNK - 1) / RCHUNK : 1;
    R->rchunk = R->nrc > 1 ? RCHUNK : L->M;
    int64_t ob = TASK_WORK / R->rchunk;
    if (ob < 1) {
        ob = 1;
    }
    if (L->outer && ob < TILE) {
        ob = outer_block(L->nout, R->nrc);
    }
    R->oblock = ob;
    R->nob = (L->nout + ob - 1) / ob;
    tl_racc first;
    R->first_done = false;
    if (R->k->absorbs && L->nout == 1 && R->nrc > 1) {
        /* Note [Absorbing chunks]: the first chunk alone, first */
        R->partial = &first;
        run_task(R, 0);
        if (first.v.u[0] == R->k->absorb) {
            memset(&first, 0, sizeof first);
            first.v.u[0] = R->k->absorb;
            emit(R, 0, 1, &first);
            return 0;
        }
        R->first_done = true;
    }
    tl_tensor_impl *part = NULL;
    R->partial = NULL;
    if (R->nrc > 1) {
        part = scratch(R->nrc * L->nout * (int64_t)sizeof(tl_racc));
        if (!part) {
            return tl_error_kind();
        }
        R->partial = (tl_racc *)tl_impl_data(part);
        if (R->first_done) {
            R->partial[0] = first;
        }
    }
    const int64_t ntasks = R->nob * R->nrc;
    const int64_t ncomb = (L->nout + TILE - 1) / TILE;
    if (L->M * L->nout < TL_ITER_GRAIN) {
        for (int64_t c = 0; c < ntasks; c++) {
            run_task(R, c);
        }
        for (int64_t c = 0; R->nrc > 1 && c < ncomb; c++) {
            combine_task(R, c);
        }
    } else {
        /* Keep the memory alive while the GIL is released (DESIGN.md
         * "Threads"). */
        tl_block *pinned[4];
        for (int i = 0; i < npins; i++) {
            pinned[i] = pins[i]->storage->block;
            tl_block_pin(pinned[i]);
        }
        void *token = tl_parallel_release();
        tl_parallel_chunks(ntasks, run_task, R);
        if (R->nrc > 1) {
            tl_parallel_chunks(ncomb, combine_task, R);
        }
        tl_parallel_reacquire(token);
        for (int i = 0; i < npins; i++) {
            tl_block_unpin(pinned[i]);
        }
    }
    tl_tensor_decref(part);
    return 0;
}

/* ---- input preparation ------------------------------------------------------ */

/* a as read by the kernel: cast to kin when it differs, copied when its data
 * is not aligned for its dtype.  Returns: new reference, or NULL. */
static tl_tensor_impl *prepare_input(tl_tensor_impl *a, int kin)
{
    if (a->dtype != kin) {
        return tl_op_to_dtype(a, (tl_dtype)kin, false);
    }
    if (a->numel > 0 && !(a->flags & TL_FLAG_ALIGNED)) {
        return tl_op_clone(a, TL_FORMAT_CONTIGUOUS);
    }
    tl_tensor_incref(a);
    return a;
}

/* The value an empty reduction gives. */
static int fill_empty(int op, tl_tensor_impl *dest)
{
    if (dest->numel == 0) {
        return 0;
    }
    tl_scalar s;
    switch (op) {
    case TL_REDUCE_SUM:
    case TL_REDUCE_NANSUM:
    case TL_REDUCE_ANY:
    case TL_REDUCE_COUNT_NONZERO:
        s = tl_scalar_int(0);
        break;
    case TL_REDUCE_PROD:
    case TL_REDUCE_ALL:
        s = tl_scalar_int(1);
        break;
    default: /* mean, nanmean, var, std */
        s = tl_dtype_kind_of(dest->dtype) == TL_KIND_COMPLEX
                ? tl_scalar_complex(NAN, NAN)
                : tl_scalar_float(NAN);
        break;
    }
    return tl_op_fill_(dest, &s);
}

/* kin: the dtype the kernel reads (nansum of an integer or bool input is
 * its sum: nothing to skip). */
static int family_of(int op, int kin)
{
    switch (op) {
    case TL_REDUCE_NANSUM:
        return tl_dtype_kind_of(kin) == TL_KIND_FLOAT ? TL_RF_NANSUM_NC
                                                      : TL_RF_SUM;
    case TL_REDUCE_NANMEAN:
        return tl_dtype_kind_of(kin) == TL_KIND_FLOAT ? TL_RF_NANSUM
                                                      : TL_RF_SUM;
    case TL_REDUCE_SUM:
    case TL_REDUCE_MEAN:
        return TL_RF_SUM;
    case TL_REDUCE_PROD:
        return TL_RF_PROD;
    case TL_REDUCE_COUNT_NONZERO:
        return TL_RF_COUNT_NONZERO;
    case TL_REDUCE_AMAX:
    case TL_REDUCE_MAX:
        return TL_RF_MAX;
    case TL_REDUCE_AMIN:
    case TL_REDUCE_MIN:
        return TL_RF_MIN;
    case TL_REDUCE_ANY:
        return TL_RF_ANY;
    case TL_REDUCE_ALL:
        return TL_RF_ALL;
    case TL_REDUCE_ARGMAX:
        return TL_RF_ARGMAX;
    case TL_REDUCE_ARGMIN:
        return TL_RF_ARGMIN;
    default:
        return TL_RF_VAR;
    }
}

static const tl_rkernel *kernel_for(const char *name, int fam, int dt)
{
    const tl_rkernel *k = tl_reduce_kernel_get(fam, dt);
    if (!k) {
        tl_error(TL_ERR_TYPE, "%s is not supported for %s", name,
                 tl_dtype_table[dt].name);
    }
    return k;
}

/* A layout handed to the device row (Note [Device kernel table] in
 * device_table.c).  Returns 0 or an error. */
static int run_device(int op, const rlayout *L, const tl_tensor_impl *in,
                      const tl_tensor_impl *dest, int rt)
{
    tl_dev_reduce r;
    memset(&r, 0, sizeof r);
    r.op = op;
    r.device = in->device;
    r.in = L->in;
    r.in_dtype = in->dtype;
    r.out = L->out[0];
    r.out_dtype = dest->dtype;
    r.res_dtype = rt;
    r.nk = L->nk;
    r.nr = L->rs.nr;
    for (int d = 0; d < L->nk; d++) {
        r.ksize[d] = L->ksize[d];
        r.kin[d] = L->kin[d];
        r.kout[d] = L->kout[0][d];
    }
    for (int d = 0; d < L->rs.nr; d++) {
        r.rsize[d] = L->rs.size[d];
        r.rstride[d] = L->rs.stride[d];
    }
    r.nout = L->nout;
    r.M = L->M;
    return tl_device_reduce(&r);
}

/* ---- entry points ----------------------------------------------------------- */

tl_tensor_impl *tl_reduce(int op, tl_tensor_impl *out, tl_tensor_impl *a,
                          int ndims, const int64_t *dims, bool keepdim,
                          int dtype)
{
    if (op < 0 || op >= TL_REDUCE_OP_COUNT ||
        (op >= TL_REDUCE_ARGMAX && op <= TL_REDUCE_STD)) {
        tl_error(TL_ERR_VALUE, "tl_reduce: bad reduction %d", op);
        return NULL;
    }
    const char *name = op_names[op];
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s: the input is NULL", name);
        return NULL;
    }
    int rt, kin;
    uint64_t mask = 0;
    if (reduce_types(op, a->dtype, dtype, &rt, &kin) < 0 ||
        dim_mask(a, ndims, dims, op != TL_REDUCE_ANY && op != TL_REDUCE_ALL,
                 &mask) < 0) {
        return NULL;
    }
    const int fam = family_of(op, kin);
    if (fam == TL_RF_MAX || fam == TL_RF_MIN) {
        if (check_nonempty(name, a, mask, dims && ndims > 0) < 0) {
            return NULL;
        }
    }
    const tl_rkernel *k = kernel_for(name, fam, kin);
    if (!k) {
        return NULL;
    }
    int64_t ks[TL_MAX_DIMS], rs[TL_MAX_DIMS];
    int rnd;
    bool resize = false;
    result_shapes(a, mask, keepdim, ks, &rnd, rs);
    if (out && check_out(out, a, rnd, rs, rt, dtype, &resize) < 0) {
        return NULL;
    }
    tl_tensor_impl *in = prepare_input(a, kin);
    if (!in) {
        return NULL;
    }
    rdest d;
    if (dest_init(&d, out, in, rnd, rs, rt, resize) < 0) {
        tl_tensor_decref(in);
        return NULL;
    }
    int rc;
    if (in->numel == 0) {
        rc = fill_empty(op, d.dest);
    } else {
        rlayout L;
        rc = layout_build(&L, in, mask, keepdim, 1, &d.dest);
        if (rc == 0 && in->device.type != TL_DEVICE_CPU &&
            op == TL_REDUCE_COUNT_NONZERO) {
            rc = tl_error(TL_ERR_TYPE, "count_nonzero: tensors on the CPU "
                          "only");
        } else if (rc == 0 && in->device.type != TL_DEVICE_CPU) {
            rc = run_device(op, &L, in, d.dest, rt);
        } else if (rc == 0) {
            rrun R;
            memset(&R, 0, sizeof R);
            R.L = &L;
            R.k = k;
            R.fin.count = L.M;
            R.fin.mean = op == TL_REDUCE_MEAN || op == TL_REDUCE_NANMEAN;
            R.nouts = 1;
            R.out_dtype[0] = d.dest->dtype;
            R.res_dtype[0] = rt;
            tl_tensor_impl *pins[2] = {in, d.dest};
            rc = run(&R, pins, 2);
        }
    }
    tl_tensor_decref(in);
    if (rc < 0) {
        tl_tensor_decref(d.dest);
        return NULL;
    }
    return dest_finish(&d);
}

/* var/std (sumsq false) or, with sumsq, the 2-norm: var's second pass
 * with every mean 0 and a finish that neither subtracts the mean's term
 * nor divides (Note [The 2-norm as var's second pass]).  name: for
 * errors.  Returns: new reference, or NULL. */
static tl_tensor_impl *reduce_var_impl(const char *name, tl_tensor_impl *out,
                                       tl_tensor_impl *a, int ndims,
                                       const int64_t *dims,
                                       double correction, bool keepdim,
                                       bool take_sqrt, bool sumsq)
{
    const int op = take_sqrt ? TL_REDUCE_STD : TL_REDUCE_VAR;
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s: the input is NULL", name);
        return NULL;
    }
    if (tl_device_cpu_only(a, name) < 0) {
        return NULL;
    }
    int rt, kin;
    uint64_t mask = 0;
    if (reduce_types(op, a->dtype, -1, &rt, &kin) < 0 ||
        dim_mask(a, ndims, dims, true, &mask) < 0) {
        return NULL;
    }
    if (isnan(correction)) {
        tl_error(TL_ERR_VALUE, "%s(): correction must not be NaN", name);
        return NULL;
    }
    const tl_rkernel *k1 = kernel_for(name, TL_RF_SUM, kin);
    const tl_rkernel *k2 =
        kernel_for(name, sumsq ? TL_RF_NORM2 : TL_RF_VAR, kin);
    if (!k1 || !k2) {
        return NULL;
    }
    int64_t ks[TL_MAX_DIMS], rs[TL_MAX_DIMS];
    int rnd;
    bool resize = false;
    result_shapes(a, mask, keepdim, ks, &rnd, rs);
    if (out && check_out(out, a, rnd, rs, rt, -1, &resize) < 0) {
        return NULL;
    }
    tl_tensor_impl *in = prepare_input(a, kin);
    if (!in) {
        return NULL;
    }
    rdest d;
    if (dest_init(&d, out, in, rnd, rs, rt, resize) < 0) {
        tl_tensor_decref(in);
        return NULL;
    }
    int rc;
    if (in->numel == 0) {
        rc = fill_empty(sumsq ? TL_REDUCE_SUM : op, d.dest);
    } else {
        rlayout L;
        rc = layout_build(&L, in, mask, keepdim, 1, &d.dest);
        tl_tensor_impl *means = NULL;
        if (rc == 0) {
            means = scratch(L.nout * (int64_t)sizeof(tl_racc));
            rc = means ? 0 : tl_error_kind();
        }
        tl_tensor_impl *pins[2] = {in, d.dest};
        rrun R;
        if (rc == 0 && sumsq) {
            memset(tl_impl_data(means), 0,
                   (size_t)L.nout * sizeof(tl_racc));
        } else if (rc == 0) {
            tl_racc *m = (tl_racc *)tl_impl_data(means);
            memset(&R, 0, sizeof R);
            R.L = &L;
            R.k = k1;
            R.fin.count = L.M;
            R.raw = m;
            rc = run(&R, pins, 2);
            /* The means, in float64 (complex: re, im). */
            for (int64_t o = 0; rc == 0 && o < L.nout; o++) {
                double v[2];
                k1->finish(&m[o], &R.fin, v);
                m[o].v.d[0] = v[0] / (double)L.M;
                m[o].v.d[1] = tl_dtype_kind_of(kin) == TL_KIND_COMPLEX
                                  ? v[1] / (double)L.M
                                  : 0;
            }
        }
        if (rc == 0) {
            memset(&R, 0, sizeof R);
            R.L = &L;
            R.k = k2;
            R.fin.count = L.M;
            R.fin.correction = correction;
            R.fin.take_sqrt = take_sqrt;
            R.fin.sumsq = sumsq;
            R.nouts = 1;
            R.out_dtype[0] = d.dest->dtype;
            R.res_dtype[0] = rt;
            R.aux = (const tl_racc *)tl_impl_data(means);
            rc = run(&R, pins, 2);
        }
        tl_tensor_decref(means);
    }
    tl_tensor_decref(in);
    if (rc < 0) {
        tl_tensor_decref(d.dest);
        return NULL;
    }
    return dest_finish(&d);
}

tl_tensor_impl *tl_reduce_var(tl_tensor_impl *out, tl_tensor_impl *a,
                              int ndims, const int64_t *dims,
                              double correction, bool keepdim, bool take_sqrt)
{
    return reduce_var_impl(op_names[take_sqrt ? TL_REDUCE_STD : TL_REDUCE_VAR],
                           out, a, ndims, dims, correction, keepdim,
                           take_sqrt, false);
}

/* Note [The 2-norm as var's second pass]
 * sqrt(sum |x|^2) over dims is var's second pass with every mean 0: the
 * same kernels square each element in float64 (exact for float32, whose
 * squares need 48 bits) and add the squares compensated, in one pass with
 * no temporary, where (x * x).sum().sqrt() wrote and read back a
 * temporary (2.3-5.7 of the faster peer whole and innermost).  The finish
 * skips the mean's correction term and the division.  An empty reduction
 * gives 0; an infinity gives inf, a NaN NaN.  The float32 and float64
 * kernels are the norm's own (TL_RF_NORM2: no deviations to form, plain
 * float64 lanes, squared strips; Note [Norm rows without the deviations]
 * in reduce_kernels.c); the other dtypes keep var's, with mean 0. */
tl_tensor_impl *tl_reduce_norm2(tl_tensor_impl *out, tl_tensor_impl *a,
                                int ndims, const int64_t *dims,
                                bool keepdim)
{
    return reduce_var_impl("linalg.vector_norm", out, a, ndims, dims, 0,
                           keepdim, true, true);
}

tl_tensor_impl *tl_reduce_arg(int op, tl_tensor_impl *out, tl_tensor_impl *a,
                              const int64_t *dim, bool keepdim)
{
    if (op != TL_REDUCE_ARGMAX && op != TL_REDUCE_ARGMIN) {
        tl_error(TL_ERR_VALUE, "tl_reduce_arg: bad reduction %d", op);
        return NULL;
    }
    const char *name = op_names[op];
    if (!a) {
        tl_error(TL_ERR_VALUE, "%s: the input is NULL", name);
        return NULL;
    }
    if (tl_device_cpu_only(a, name) < 0) {
        return NULL;
    }
    int rt, kin;
    uint64_t mask = 0;
    if (reduce_types(op, a->dtype, -1, &rt, &kin) < 0 ||
        dim_mask(a, dim ? 1 : 0, dim, true, &mask) < 0 ||
        check_nonempty(name, a, mask, dim != NULL) < 0) {
        return NULL;
    }
    const tl_rkernel *k = kernel_for(name, family_of(op, kin), kin);
    if (!k) {
        return NULL;
    }
    int64_t ks[TL_MAX_DIMS], rs[TL_MAX_DIMS];
    int rnd;
    bool resize = false;
    result_shapes(a, mask, keepdim, ks, &rnd, rs);
    if (out && check_out(out, a, rnd, rs, rt, -1, &resize) < 0) {
        return NULL;
    }
    /* dim=None: the index into the flattened (row-major) input. */
    tl_tensor_impl *in = dim ? prepare_input(a, kin)
                             : tl_op_contiguous(a, TL_FORMAT_CONTIGUOUS);
    if (in && !(in->flags & TL_FLAG_ALIGNED) && in->numel > 0) {
        tl_tensor_impl *c = tl_op_clone(in, TL_FORMAT_CONTIGUOUS);
        tl_tensor_decref(in);
        in = c;
    }
    if (!in) {
        return NULL;
    }
    rdest d;
    if (dest_init(&d, out, in, rnd, rs, rt, resize) < 0) {
        tl_tensor_decref(in);
        return NULL;
    }
    int rc = 0;
    if (d.dest->numel > 0) {
        rlayout L;
        if (dim) {
            rc = layout_build(&L, in, mask, keepdim, 1, &d.dest);
        } else {
            /* One reduced dim of numel elements. */
            L.in = tl_impl_data(in);
            L.out[0] = tl_impl_data(d.dest);
            L.nk = 0;
            L.rs.nr = in->numel > 1 ? 1 : 0;
            L.rs.size[0] = in->numel;
            L.rs.stride[0] = tl_itemsize(in->dtype);
            layout_finish(&L, 1);
        }
        if (rc == 0) {
            rrun R;
            memset(&R, 0, sizeof R);
            R.L = &L;
            R.k = k;
            R.fin.count = L.M;
            R.nouts = 1;
            R.out_dtype[0] = d.dest->dtype;
            R.res_dtype[0] = TL_DTYPE_INT64;
            R.out_index[0] = true;
            tl_tensor_impl *pins[2] = {in, d.dest};
            rc = run(&R, pins, 2);
        }
    }
    tl_tensor_decref(in);
    if (rc < 0) {
        tl_tensor_decref(d.dest);
        return NULL;
    }
    return dest_finish(&d);
}

/* The driver of the two-output reductions: max/min along a dim (values
 * and indices: index1) and aminmax (min and max: v slots 0 and 1).  k:
 * the kernel for kin; mask: the reduced dims (validated, none empty); rt0,
 * rt1: the result dtypes; out0 / out1: optional out= tensors.  On success
 * *res0 and *res1 receive new references.  Returns 0 or an error. */
static int reduce_pair(const char *name, const tl_rkernel *k,
                       tl_tensor_impl *a, int kin, uint64_t mask,
                       bool keepdim, int rt0, int rt1, bool index1,
                       tl_tensor_impl *out0, tl_tensor_impl *out1,
                       tl_tensor_impl **res0, tl_tensor_impl **res1)
{
    int rc;
    int64_t ks[TL_MAX_DIMS], rs[TL_MAX_DIMS];
    int rnd;
    bool rsz[2] = {false, false};
    result_shapes(a, mask, keepdim, ks, &rnd, rs);
    if (out0 && (rc = check_out(out0, a, rnd, rs, rt0, -1, &rsz[0])) < 0) {
        return rc;
    }
    if (out1 && (rc = check_out(out1, a, rnd, rs, rt1, -1, &rsz[1])) < 0) {
        return rc;
    }
    if (out0 && out1 && tl_may_share_memory(out0, out1)) {
        return tl_error(TL_ERR_SHAPE, "%s(): the two out= tensors share "
                        "memory", name);
    }
    tl_tensor_impl *in = prepare_input(a, kin);
    if (!in) {
        return tl_error_kind();
    }
    rdest d[2];
    if (dest_init(&d[0], out0, in, rnd, rs, rt0, rsz[0]) < 0) {
        tl_tensor_decref(in);
        return tl_error_kind();
    }
    if (dest_init(&d[1], out1, in, rnd, rs, rt1, rsz[1]) < 0) {
        tl_tensor_decref(d[0].dest);
        tl_tensor_decref(in);
        return tl_error_kind();
    }
    rc = 0;
    if (d[0].dest->numel > 0) {
        rlayout L;
        tl_tensor_impl *dests[2] = {d[0].dest, d[1].dest};
        rc = layout_build(&L, in, mask, keepdim, 2, dests);
        if (rc == 0) {
            rrun R;
            memset(&R, 0, sizeof R);
            R.L = &L;
            R.k = k;
            R.fin.count = L.M;
            R.nouts = 2;
            R.out_dtype[0] = d[0].dest->dtype;
            R.res_dtype[0] = rt0;
            R.out_dtype[1] = d[1].dest->dtype;
            R.res_dtype[1] = rt1;
            R.out_index[1] = index1;
            R.out_slot1[1] = !index1;
            tl_tensor_impl *pins[3] = {in, d[0].dest, d[1].dest};
            rc = run(&R, pins, 3);
        }
    }
    tl_tensor_decref(in);
    if (rc < 0) {
        tl_tensor_decref(d[0].dest);
        tl_tensor_decref(d[1].dest);
        return rc;
    }
    /* Resize both outs (validated: only memory can fail, and then the
     * first may be resized but neither is written), then copy. */
    if (dest_resize(&d[0]) < 0 || dest_resize(&d[1]) < 0) {
        tl_tensor_decref(d[0].dest);
        tl_tensor_decref(d[1].dest);
        return tl_error_kind();
    }
    tl_tensor_impl *v = dest_copy(&d[0]);
    if (!v) {
        tl_tensor_decref(d[1].dest);
        return tl_error_kind();
    }
    tl_tensor_impl *ix = dest_copy(&d[1]);
    if (!ix) {
        tl_tensor_decref(v);
        return tl_error_kind();
    }
    *res0 = v;
    *res1 = ix;
    return 0;
}

int tl_reduce_minmax_dim(int op, tl_tensor_impl *values_out,
                         tl_tensor_impl *indices_out, tl_tensor_impl *a,
                         int64_t dim, bool keepdim, tl_tensor_impl **values,
                         tl_tensor_impl **indices)
{
    bool is_max;
    if (op == TL_REDUCE_MAX || op == TL_REDUCE_AMAX) {
        is_max = true;
        op = TL_REDUCE_MAX;
    } else if (op == TL_REDUCE_MIN || op == TL_REDUCE_AMIN) {
        is_max = false;
        op = TL_REDUCE_MIN;
    } else {
        return tl_error(TL_ERR_VALUE, "tl_reduce_minmax_dim: bad reduction "
                        "%d", op);
    }
    const char *name = op_names[op];
    if (!a) {
        return tl_error(TL_ERR_VALUE, "%s: the input is NULL", name);
    }
    if (tl_device_cpu_only(a, name) < 0) {
        return tl_error_kind();
    }
    int rt, kin, rc;
    uint64_t mask = 0;
    if ((rc = reduce_types(op, a->dtype, -1, &rt, &kin)) < 0 ||
        (rc = dim_mask(a, 1, &dim, true, &mask)) < 0 ||
        (rc = check_nonempty(name, a, mask, true)) < 0) {
        return rc;
    }
    const tl_rkernel *k =
        kernel_for(name, is_max ? TL_RF_ARGMAX : TL_RF_ARGMIN, kin);
    if (!k) {
        return tl_error_kind();
    }
    return reduce_pair(name, k, a, kin, mask, keepdim, rt, TL_DTYPE_INT64,
                       true, values_out, indices_out, values, indices);
}

int tl_reduce_aminmax(tl_tensor_impl *min_out, tl_tensor_impl *max_out,
                      tl_tensor_impl *a, int ndims, const int64_t *dims,
                      bool keepdim, tl_tensor_impl **mins,
                      tl_tensor_impl **maxs)
{
    const char *name = "aminmax";
    if (!a) {
        return tl_error(TL_ERR_VALUE, "%s: the input is NULL", name);
    }
    if (tl_device_cpu_only(a, name) < 0) {
        return tl_error_kind();
    }
    int rt = 0, kin = 0, rc;
    uint64_t mask = 0;
    if ((rc = reduce_types(TL_REDUCE_AMAX, a->dtype, -1, &rt, &kin)) < 0 ||
        (rc = dim_mask(a, ndims, dims, true, &mask)) < 0 ||
        (rc = check_nonempty(name, a, mask, dims && ndims > 0)) < 0) {
        return rc;
    }
    const tl_rkernel *k = kernel_for(name, TL_RF_AMINMAX, kin);
    if (!k) {
        return tl_error_kind();
    }
    return reduce_pair(name, k, a, kin, mask, keepdim, rt, rt, false,
                       min_out, max_out, mins, maxs);
}
