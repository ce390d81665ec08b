/* csrc/core/view.c — metadata-only views: every function here computes new
 * sizes, strides and an offset from an existing impl and hands them to
 * tl_impl_view, which shares the storage and version counter and points
 * the view's base at the root.  No data is read or written.  Derived
 * strides and offsets use checked arithmetic; a view of a valid tensor
 * that only narrows, permutes or reverses stays inside its storage, so no
 * further bounds check is needed for those.
 *
 * Note [Empty views keep their offset]
 * An empty tensor reaches no element, so its strides are unbounded
 * ((2**62, 0) with strides (2**40, 1) is valid).  A view of an empty
 * tensor (select, slice, narrow, diagonal, flip) keeps the storage offset
 * as it is instead of adding index * stride to it, which could leave a
 * huge offset that overflows once scaled by the itemsize.  Strides that a
 * view does use (a slice of length > 1, unfold) are still checked, and
 * a derived stride of INT64_MIN counts as overflowing: no tensor has one
 * (tl_check_in_bounds refuses it, since layout code takes |stride|), but
 * stride times step (slice, unfold) or the sum of two (diagonal) of an
 * empty tensor's unbounded strides can land on it exactly: x[:, 3::-2]
 * of an empty x with strides (1, 2**62) made one. */
#include <inttypes.h>
#include <string.h>

#include "shape.h"
#include "tensor_impl.h"
#include "tensorlib/iter.h"
#include "tensorlib/view.h"

int tl_wrap_dim(int64_t dim, int ndim, int *out)
{
    int n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n) {
        return tl_error(TL_ERR_INDEX,
                        "dim %" PRId64 " is out of range for a %d-d tensor: "
                        "valid dims are %d to %d", dim, ndim, -n, n - 1);
    }
    *out = (int)(dim < 0 ? dim + n : dim);
    return 0;
}

int tl_infer_view_shape(int64_t numel, int ndim, const int64_t *sizes,
                        int64_t *out)
{
    int infer = -1;
    int64_t prod = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == -1) {
            if (infer >= 0) {
                return tl_error(TL_ERR_SHAPE,
                                "shape %s has more than one -1: only one "
                                "size can be inferred",
                                tl_fmt_list(0, ndim, sizes));
            }
            infer = d;
        } else if (sizes[d] < 0) {
            return tl_error(TL_ERR_SHAPE, "invalid shape dimension %" PRId64
                            " in %s", sizes[d], tl_fmt_list(0, ndim, sizes));
        } else if (tl_mul_overflow_i64(prod, sizes[d], &prod)) {
            return tl_error(TL_ERR_OVERFLOW, "shape %s overflows int64",
                            tl_fmt_list(0, ndim, sizes));
        }
        out[d] = sizes[d];
    }
    if (infer >= 0) {
        if (prod == 0 || numel % prod != 0) {
            return tl_error(TL_ERR_SHAPE,
                            "shape %s cannot hold the input's %" PRId64
                            " elements: no size for the -1 fits",
                            tl_fmt_list(0, ndim, sizes), numel);
        }
        out[infer] = numel / prod;
    } else if (prod != numel) {
        return tl_error(TL_ERR_SHAPE,
                        "shape %s holds %" PRId64 " elements, not the "
                        "input's %" PRId64, tl_fmt_list(0, ndim, sizes), prod,
                        numel);
    }
    return 0;
}

/* Note [View strides]
 * A view of (sizes, strides) as new_sizes exists when the new dims can be
 * cut out of "chunks" of the old ones: a chunk is a maximal run of old dims
 * that are contiguous with respect to each other (stride[d-1] ==
 * size[d] * stride[d], size-1 dims skipped).  Walking both shapes from the
 * last dim, each chunk must be covered exactly by a run of new dims, whose
 * strides are then the chunk's base stride times the running product.
 * This is PyTorch's rule for view()/reshape(), written anew here. */
int tl_view_strides(int ndim, const int64_t *sizes, const int64_t *strides,
                    int new_ndim, const int64_t *new_sizes, int64_t *out)
{
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        numel *= sizes[d];
    }
    if (numel == 0 && ndim == new_ndim &&
        memcmp(sizes, new_sizes, (size_t)ndim * sizeof(int64_t)) == 0) {
        /* PyTorch keeps the strides of an empty tensor viewed as its own
         * shape. */
        memcpy(out, strides, (size_t)ndim * sizeof(int64_t));
        return 1;
    }
    if (numel == 0 || ndim == 0) {
        /* An overflowing stride of an empty shape addresses nothing: kept
         * wrapped, as PyTorch's view does ((0, 2**62, 4) -> (0, 4, 1)). */
        (void)tl_dense_strides(new_ndim, new_sizes, TL_FORMAT_CONTIGUOUS,
                               out);
        return 1;
    }
    int vd = new_ndim - 1;
    int64_t base = strides[ndim - 1];
    int64_t chunk_numel = 1, view_numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        chunk_numel *= sizes[d];
        bool chunk_ends = d == 0 || (sizes[d - 1] != 1 &&
                                     strides[d - 1] != chunk_numel * base);
        if (!chunk_ends) {
            continue;
        }
        while (vd >= 0 && (view_numel < chunk_numel || new_sizes[vd] == 1)) {
            out[vd] = view_numel * base;
            view_numel *= new_sizes[vd];
            vd--;
        }
        if (view_numel != chunk_numel) {
            return 0;
        }
        if (d > 0) {
            base = strides[d - 1];
            chunk_numel = 1;
            view_numel = 1;
        }
    }
    return vd == -1;
}

tl_tensor_impl *tl_view_view(tl_tensor_impl *t, int ndim,
                             const int64_t *sizes)
{
    int64_t shape[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (ndim > TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "a tensor has at most %d dims, got %d",
                 TL_MAX_DIMS, ndim);
        return NULL;
    }
    if (tl_infer_view_shape(t->numel, ndim, sizes, shape) < 0) {
        return NULL;
    }
    if (tl_impl_rowmajor_exact(t)) {
        return tl_impl_view_rowmajor(t, ndim, shape);
    }
    if (!tl_view_strides(t->ndim, t->sizes, t->strides, ndim, shape,
                         strides)) {
        tl_error(TL_ERR_SHAPE,
                 "view(): sizes %s with strides %s cannot be viewed as "
                 "%s: a new dim would have to step over elements that are "
                 "not evenly spaced in memory; use .reshape() (it copies "
                 "then) or .contiguous() first",
                 tl_fmt_list(0, t->ndim, t->sizes),
                 tl_fmt_list(1, t->ndim, t->strides),
                 tl_fmt_list(2, ndim, shape));
        return NULL;
    }
    return tl_impl_view(t, ndim, shape, strides, t->storage_offset);
}

tl_tensor_impl *tl_view_transpose(tl_tensor_impl *t, int d0, int d1)
{
    int perm[TL_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        perm[d] = d;
    }
    if (t->ndim == 0) {
        return tl_view_alias(t);
    }
    perm[d0] = d1;
    perm[d1] = d0;
    return tl_view_permute(t, perm);
}

tl_tensor_impl *tl_view_permute(tl_tensor_impl *t, const int *perm)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    uint64_t seen = 0;
    for (int d = 0; d < t->ndim; d++) {
        int p = perm[d];
        if (p < 0 || p >= t->ndim || (seen >> p) & 1u) {
            tl_error(TL_ERR_SHAPE,
                     "permute(): dims must be a permutation of 0..%d, got a "
                     "repeated or out-of-range dim %d at position %d",
                     t->ndim - 1, p, d);
            return NULL;
        }
        seen |= (uint64_t)1 << p;
        sizes[d] = t->sizes[p];
        strides[d] = t->strides[p];
    }
    return tl_impl_view_layout(
        t, t->ndim, sizes, strides, t->storage_offset,
        tl_layout_flags_permuted(t, t->ndim, sizes, strides));
}

tl_tensor_impl *tl_view_reverse_dims(tl_tensor_impl *t)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    const int n = t->ndim;
    for (int d = 0; d < n; d++) {
        sizes[d] = t->sizes[n - 1 - d];
        strides[d] = t->strides[n - 1 - d];
    }
    return tl_impl_view_layout(t, n, sizes, strides, t->storage_offset,
                               tl_layout_flags_permuted(t, n, sizes,
                                                        strides));
}

tl_tensor_impl *tl_view_expand(tl_tensor_impl *t, int ndim,
                               const int64_t *want)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (ndim < t->ndim) {
        tl_error(TL_ERR_SHAPE,
                 "expand: the number of sizes provided (%d) must be greater "
                 "or equal to the number of dimensions in the tensor (%d)",
                 ndim, t->ndim);
        return NULL;
    }
    if (ndim > TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "a tensor has at most %d dims", TL_MAX_DIMS);
        return NULL;
    }
    for (int i = ndim - 1; i >= 0; i--) {
        int od = i - (ndim - t->ndim); /* the tensor's dim, or < 0 */
        int64_t w = want[i];
        if (od < 0) {
            if (w < 0) {
                tl_error(TL_ERR_SHAPE,
                         "expand: new leading dimension %d needs a size >= 0, "
                         "got %" PRId64 " (-1 keeps only an existing "
                         "dimension)", i, w);
                return NULL;
            }
            sizes[i] = w;
            strides[i] = 0;
            continue;
        }
        int64_t have = t->sizes[od];
        if (w == -1) {
            w = have;
        }
        if (w < 0) {
            tl_error(TL_ERR_SHAPE, "expand: invalid size %" PRId64
                     " at dimension %d", w, i);
            return NULL;
        }
        if (have == w) {
            sizes[i] = w;
            strides[i] = t->strides[od];
        } else if (have == 1) {
            sizes[i] = w;
            strides[i] = 0;
        } else {
            tl_error(TL_ERR_SHAPE,
                     "expand: cannot expand shape %s to %s: dimension %d "
                     "has size %" PRId64 ", and only a size-1 dimension can "
                     "become %" PRId64,
                     tl_fmt_list(1, t->ndim, t->sizes),
                     tl_fmt_list(0, ndim, want), i, have, w);
            return NULL;
        }
    }
    if (tl_safe_numel_bytes(ndim, sizes, tl_itemsize(t->dtype), NULL,
                            NULL) < 0) {
        return NULL;
    }
    return tl_impl_view(t, ndim, sizes, strides, t->storage_offset);
}

tl_tensor_impl *tl_view_squeeze(tl_tensor_impl *t, uint64_t mask)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (((mask >> d) & 1u) && t->sizes[d] == 1) {
            continue;
        }
        sizes[n] = t->sizes[d];
        strides[n] = t->strides[d];
        n++;
    }
    return tl_impl_view(t, n, sizes, strides, t->storage_offset);
}

tl_tensor_impl *tl_view_unsqueeze(tl_tensor_impl *t, int dim)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (dim < 0 || dim > t->ndim || t->ndim >= TL_MAX_DIMS) {
        tl_error(TL_ERR_INDEX, "unsqueeze: dim %d out of range for a %d-dim "
                 "tensor", dim, t->ndim);
        return NULL;
    }
    for (int d = 0, k = 0; d <= t->ndim; d++) {
        if (d == dim) {
            sizes[d] = 1;
            /* The stride of a size-1 dim is free; PyTorch's choice keeps
             * contiguity: size * stride of the next dim. */
            strides[d] = 1;
            if (dim < t->ndim &&
                tl_mul_overflow_i64(t->sizes[dim], t->strides[dim],
                                    &strides[d])) {
                /* Only possible for an empty tensor; any stride will do
                 * for a size-1 dim. */
                strides[d] = t->strides[dim];
            }
        } else {
            sizes[d] = t->sizes[k];
            strides[d] = t->strides[k];
            k++;
        }
    }
    return tl_impl_view(t, t->ndim + 1, sizes, strides, t->storage_offset);
}

tl_tensor_impl *tl_view_select(tl_tensor_impl *t, int dim, int64_t index)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (t->ndim == 0) {
        tl_error(TL_ERR_INDEX, "select() cannot be applied to a 0-dim "
                 "tensor");
        return NULL;
    }
    int64_t size = t->sizes[dim];
    if (index < -size || index >= size) {
        tl_error(TL_ERR_INDEX,
                 "index %" PRId64 " is out of bounds for dimension %d with "
                 "size %" PRId64, index, dim, size);
        return NULL;
    }
    if (index < 0) {
        index += size;
    }
    int64_t off = t->storage_offset;
    if (t->numel > 0 &&
        (tl_mul_overflow_i64(index, t->strides[dim], &off) ||
         tl_add_overflow_i64(off, t->storage_offset, &off))) {
        tl_error(TL_ERR_OVERFLOW, "select: offset overflows int64");
        return NULL;
    }
    for (int d = 0, k = 0; d < t->ndim; d++) {
        if (d != dim) {
            sizes[k] = t->sizes[d];
            strides[k] = t->strides[d];
            k++;
        }
    }
    return tl_impl_view(t, t->ndim - 1, sizes, strides, off);
}

tl_tensor_impl *tl_view_slice(tl_tensor_impl *t, int dim, int64_t start,
                              int64_t step, int64_t length)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int64_t size = t->sizes[dim];
    if (step == 0) {
        tl_error(TL_ERR_VALUE, "slice step cannot be zero");
        return NULL;
    }
    if (length < 0 || start < 0 || start > size ||
        (length > 0 && (start >= size))) {
        tl_error(TL_ERR_INDEX, "slice start %" PRId64 " and length %" PRId64
                 " out of range for dimension %d with size %" PRId64, start,
                 length, dim, size);
        return NULL;
    }
    if (length > 0) {
        /* The last element start + (length - 1) * step must be in range. */
        int64_t last;
        if (tl_mul_overflow_i64(length - 1, step, &last) ||
            tl_add_overflow_i64(last, start, &last) || last < 0 ||
            last >= size) {
            tl_error(TL_ERR_INDEX, "slice of %" PRId64 " elements from %"
                     PRId64 " by %" PRId64 " leaves dimension %d of size %"
                     PRId64, length, start, step, dim, size);
            return NULL;
        }
    }
    for (int d = 0; d < t->ndim; d++) { /* a few dims: no memcpy call */
        sizes[d] = t->sizes[d];
        strides[d] = t->strides[d];
    }
    int64_t off = t->storage_offset;
    if (length > 0 && t->numel > 0) {
        int64_t delta;
        if (tl_mul_overflow_i64(start, t->strides[dim], &delta) ||
            tl_add_overflow_i64(off, delta, &off)) {
            tl_error(TL_ERR_OVERFLOW, "slice: offset overflows int64");
            return NULL;
        }
    }
    /* The new stride is stride * step.  The stride of a dim of size <= 1
     * is never used to address anything, so there the original is kept:
     * x[::2**62] of a short x is fine, and no huge meaningless stride is
     * handed on to code that scales strides by the itemsize (PyTorch
     * multiplies anyway).  A stride that is used must not overflow. */
    if (length > 1 &&
        (tl_mul_overflow_i64(t->strides[dim], step, &strides[dim]) ||
         strides[dim] == INT64_MIN)) {
        tl_error(TL_ERR_OVERFLOW,
                 "slice: stride %" PRId64 " times step %" PRId64
                 " overflows int64", t->strides[dim], step);
        return NULL;
    }
    sizes[dim] = length;
    return tl_impl_view(t, t->ndim, sizes, strides, off);
}

tl_tensor_impl *tl_view_narrow(tl_tensor_impl *t, int dim, int64_t start,
                               int64_t length)
{
    if (t->ndim == 0) {
        tl_error(TL_ERR_INDEX, "narrow() cannot be applied to a 0-dim "
                 "tensor");
        return NULL;
    }
    int64_t size = t->sizes[dim];
    if (start < -size || start > size) {
        tl_error(TL_ERR_INDEX,
                 "narrow(): start %" PRId64 " out of range for dimension %d "
                 "with size %" PRId64, start, dim, size);
        return NULL;
    }
    if (start < 0) {
        start += size;
    }
    if (length < 0 || length > size - start) {
        tl_error(TL_ERR_INDEX,
                 "narrow(): start (%" PRId64 ") + length (%" PRId64
                 ") exceeds dimension size (%" PRId64 ") of dim %d", start,
                 length, size, dim);
        return NULL;
    }
    return tl_view_slice(t, dim, length > 0 ? start : 0, 1, length);
}

tl_tensor_impl *tl_view_unfold(tl_tensor_impl *t, int dim, int64_t size,
                               int64_t step)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    int64_t have = t->ndim ? t->sizes[dim] : 1;
    int64_t st = t->ndim ? t->strides[dim] : 1;
    if (t->ndim >= TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "unfold: too many dims");
        return NULL;
    }
    if (size < 0 || size > have) {
        tl_error(TL_ERR_SHAPE,
                 "unfold: maximum size for tensor at dimension %d is %" PRId64
                 " but size is %" PRId64, dim, have, size);
        return NULL;
    }
    if (step <= 0) {
        tl_error(TL_ERR_SHAPE, "unfold: step is %" PRId64
                 " but must be > 0", step);
        return NULL;
    }
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof(int64_t));
    int n = t->ndim;
    if (n > 0) {
        sizes[dim] = (have - size) / step + 1;
        if (tl_mul_overflow_i64(st, step, &strides[dim]) ||
            strides[dim] == INT64_MIN) {
            tl_error(TL_ERR_OVERFLOW, "unfold: stride overflows int64");
            return NULL;
        }
    }
    sizes[n] = size;
    strides[n] = st;
    /* Overlapping windows multiply the element count: it must still fit
     * (with the itemsize), as for expand. */
    if (tl_safe_numel_bytes(n + 1, sizes, tl_itemsize(t->dtype), NULL,
                            NULL) < 0) {
        return NULL;
    }
    return tl_impl_view(t, n + 1, sizes, strides, t->storage_offset);
}

tl_tensor_impl *tl_view_diagonal(tl_tensor_impl *t, int64_t offset, int d1,
                                 int d2)
{
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    if (t->ndim < 2) {
        tl_error(TL_ERR_SHAPE, "diagonal() needs at least 2 dims, got %d",
                 t->ndim);
        return NULL;
    }
    if (d1 == d2) {
        tl_error(TL_ERR_SHAPE, "diagonal dimensions cannot be identical "
                 "%d, %d", d1, d2);
        return NULL;
    }
    int64_t s1 = t->sizes[d1], s2 = t->sizes[d2];
    int64_t len, off = t->storage_offset;
    /* Compared without negating offset (which may be INT64_MIN). */
    if (offset >= 0) {
        len = offset >= s2 ? 0 : (s1 < s2 - offset ? s1 : s2 - offset);
    } else {
        len = offset <= -s1 ? 0 : (s1 + offset < s2 ? s1 + offset : s2);
    }
    if (len > 0 && t->numel > 0) {
        /* Here -s1 < offset: -offset cannot overflow. */
        int64_t delta;
        bool bad = offset >= 0
                       ? tl_mul_overflow_i64(offset, t->strides[d2], &delta)
                       : tl_mul_overflow_i64(-offset, t->strides[d1], &delta);
        if (bad || tl_add_overflow_i64(off, delta, &off)) {
            tl_error(TL_ERR_OVERFLOW, "diagonal: offset overflows int64");
            return NULL;
        }
    }
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d != d1 && d != d2) {
            sizes[n] = t->sizes[d];
            strides[n] = t->strides[d];
            n++;
        }
    }
    sizes[n] = len;
    if (tl_add_overflow_i64(t->strides[d1], t->strides[d2], &strides[n]) ||
        strides[n] == INT64_MIN) {
        tl_error(TL_ERR_OVERFLOW, "diagonal: stride overflows int64");
        return NULL;
    }
    return tl_impl_view(t, n + 1, sizes, strides, off);
}

tl_tensor_impl *tl_view_flip(tl_tensor_impl *t, uint64_t mask)
{
    int64_t strides[TL_MAX_DIMS];
    int64_t off = t->storage_offset;
    bool empty = t->numel == 0;
    for (int d = 0; d < t->ndim; d++) {
        strides[d] = t->strides[d];
        if (!((mask >> d) & 1u) || t->sizes[d] <= 1) {
            continue;
        }
        if (t->strides[d] == INT64_MIN) {
            /* Only an empty tensor can have it; -INT64_MIN overflows. */
            tl_error(TL_ERR_OVERFLOW, "flip: stride %" PRId64 " of dim %d "
                     "cannot be negated", t->strides[d], d);
            return NULL;
        }
        if (!empty) {
            /* Element 0 becomes the old last element along d (in bounds,
             * so no overflow). */
            off += (t->sizes[d] - 1) * t->strides[d];
        }
        strides[d] = -t->strides[d];
    }
    return tl_impl_view(t, t->ndim, t->sizes, strides, off);
}

tl_tensor_impl *tl_view_alias(tl_tensor_impl *t)
{
    return tl_impl_view(t, t->ndim, t->sizes, t->strides, t->storage_offset);
}

int tl_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b,
                        int64_t *out)
{
    const int ndims[2] = {na, nb};
    const int64_t *const sizes[2] = {a, b};
    int n;
    int rc = tl_iter_infer_size(2, ndims, sizes, &n, out);
    return rc < 0 ? rc : n;
}
