/* csrc/core/view_complex.c — complex tensors seen as pairs of reals
 * (tensorlib/view_complex.h): metadata-only views that change the dtype
 * between a complex type and its real type, and the eager conjugate
 * built on them.  No data is touched except by tl_op_conj. */
#include <inttypes.h>

#include "tensor_impl.h"
#include "tensorlib/ops.h"
#include "tensorlib/view.h"
#include "tensorlib/view_complex.h"

static int real_of(tl_dtype dt, tl_dtype *out)
{
    if (dt == TL_DTYPE_COMPLEX64) {
        *out = TL_DTYPE_FLOAT32;
    } else if (dt == TL_DTYPE_COMPLEX128) {
        *out = TL_DTYPE_FLOAT64;
    } else {
        return -1;
    }
    return 0;
}

/* A view of t with another dtype of the same storage (metadata already
 * validated against it).  Returns: new reference, or NULL. */
static tl_tensor_impl *retyped_view(tl_tensor_impl *t, tl_dtype dt, int ndim,
                                    const int64_t *sizes,
                                    const int64_t *strides, int64_t offset)
{
    if (tl_check_in_bounds(ndim, sizes, strides, offset, tl_itemsize(dt),
                           t->storage->nbytes) < 0) {
        return NULL;
    }
    tl_tensor_impl *v = tl_impl_view(t, ndim, sizes, strides, offset);
    if (!v) {
        return NULL;
    }
    v->dtype = (int16_t)dt;
    tl_impl_refresh_flags(v);
    return v;
}

/* strides * 2 and offset * 2 (+ add) with checked arithmetic. */
static int doubled(const tl_tensor_impl *t, int64_t *strides, int64_t add,
                   int64_t *offset)
{
    for (int d = 0; d < t->ndim; d++) {
        if (__builtin_mul_overflow(t->strides[d], 2, &strides[d])) {
            return tl_error(TL_ERR_OVERFLOW, "stride %" PRId64 " of dim %d "
                            "overflows int64 when doubled", t->strides[d],
                            d);
        }
    }
    if (__builtin_mul_overflow(t->storage_offset, 2, offset) ||
        __builtin_add_overflow(*offset, add, offset)) {
        return tl_error(TL_ERR_OVERFLOW, "storage offset %" PRId64
                        " overflows int64 when doubled", t->storage_offset);
    }
    return 0;
}

tl_tensor_impl *tl_view_as_real(tl_tensor_impl *t)
{
    tl_dtype rdt;
    if (real_of((tl_dtype)t->dtype, &rdt) < 0) {
        tl_error(TL_ERR_TYPE, "view_as_real is only supported for complex "
                 "tensors, not %s", tl_dtype_info_of(t->dtype)->name);
        return NULL;
    }
    if (t->ndim + 1 > TL_MAX_DIMS) {
        tl_error(TL_ERR_SHAPE, "view_as_real of a %d-d tensor would have "
                 "more than %d dims", t->ndim, TL_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS], offset;
    if (doubled(t, strides, 0, &offset) < 0) {
        return NULL;
    }
    for (int d = 0; d < t->ndim; d++) {
        sizes[d] = t->sizes[d];
    }
    sizes[t->ndim] = 2;
    strides[t->ndim] = 1;
    return retyped_view(t, rdt, t->ndim + 1, sizes, strides, offset);
}

tl_tensor_impl *tl_view_as_complex(tl_tensor_impl *t)
{
    tl_dtype cdt;
    if (t->dtype == TL_DTYPE_FLOAT32) {
        cdt = TL_DTYPE_COMPLEX64;
    } else if (t->dtype == TL_DTYPE_FLOAT64) {
        cdt = TL_DTYPE_COMPLEX128;
    } else {
        tl_error(TL_ERR_TYPE, "view_as_complex is only supported for "
                 "float32 and float64 tensors, not %s",
                 tl_dtype_info_of(t->dtype)->name);
        return NULL;
    }
    int n = t->ndim;
    if (n == 0) {
        tl_error(TL_ERR_SHAPE, "view_as_complex: the input tensor must have "
                 "one or more dimensions");
        return NULL;
    }
    if (t->sizes[n - 1] != 2) {
        tl_error(TL_ERR_SHAPE, "view_as_complex: the last dimension must "
                 "have size 2, not %" PRId64, t->sizes[n - 1]);
        return NULL;
    }
    if (t->strides[n - 1] != 1) {
        tl_error(TL_ERR_SHAPE, "view_as_complex: the last dimension must "
                 "have stride 1, not %" PRId64, t->strides[n - 1]);
        return NULL;
    }
    int64_t strides[TL_MAX_DIMS];
    for (int d = 0; d < n - 1; d++) {
        if (t->strides[d] % 2 != 0) {
            tl_error(TL_ERR_SHAPE, "view_as_complex: every stride but the "
                     "last must be divisible by 2 (dim %d has stride %"
                     PRId64 ")", d, t->strides[d]);
            return NULL;
        }
        strides[d] = t->strides[d] / 2;
    }
    if (t->storage_offset % 2 != 0) {
        tl_error(TL_ERR_SHAPE, "view_as_complex: the storage offset must be "
                 "divisible by 2, not %" PRId64, t->storage_offset);
        return NULL;
    }
    return retyped_view(t, cdt, n - 1, t->sizes, strides,
                        t->storage_offset / 2);
}

tl_tensor_impl *tl_view_real_imag(tl_tensor_impl *t, bool imag)
{
    tl_dtype rdt;
    if (real_of((tl_dtype)t->dtype, &rdt) < 0) {
        if (!imag) {
            tl_tensor_incref(t);
            return t;
        }
        tl_error(TL_ERR_TYPE, "imag is not implemented for tensors with "
                 "non-complex dtypes (got %s)",
                 tl_dtype_info_of(t->dtype)->name);
        return NULL;
    }
    int64_t strides[TL_MAX_DIMS], offset;
    if (doubled(t, strides, imag ? 1 : 0, &offset) < 0) {
        return NULL;
    }
    return retyped_view(t, rdt, t->ndim, t->sizes, strides, offset);
}

tl_tensor_impl *tl_op_conj(tl_tensor_impl *t)
{
    tl_dtype rdt;
    if (real_of((tl_dtype)t->dtype, &rdt) < 0) {
        tl_tensor_incref(t);
        return t;
    }
    tl_tensor_impl *out = NULL, *im = NULL, *r = NULL;
    out = tl_op_clone(t, TL_FORMAT_CONTIGUOUS);
    if (!out) {
        goto fail;
    }
    im = tl_view_real_imag(out, true);
    if (!im) {
        goto fail;
    }
    /* exact aliasing: the iterator needs no temporary */
    r = tl_op_unary(tl_op_unary_from_name("neg"), im, im);
    if (!r) {
        goto fail;
    }
    tl_tensor_decref(r);
    tl_tensor_decref(im);
    return out;
fail:
    tl_tensor_decref(im);
    tl_tensor_decref(out);
    return NULL;
}
