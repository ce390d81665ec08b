/* tensorlib/index.h — advanced (integer-array) indexing: gather, scatter
 * and nonzero.  Basic indexing is made of views (tensorlib/view.h). */
#ifndef TENSORLIB_INDEX_H
#define TENSORLIB_INDEX_H

#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* out[b..., r...] = src[..] where src's dims adv_dims[k] take idx[k][b]
 * and its other dims, in order, run over r.  idx are int64 tensors of one
 * shape B (broadcast by the caller; any strides).  Indices may be negative
 * (counted from the end); any out of range is TL_ERR_INDEX naming the
 * index, the dim and its size, found before anything is allocated.
 * Returns: new reference to a contiguous tensor of shape B + R, or NULL. */
TL_API tl_tensor_impl *tl_index_gather(tl_tensor_impl *src, int nadv,
                                       const int *adv_dims,
                                       tl_tensor_impl *const *idx);

/* The inverse: dst[..] = values[b..., r...] with the same addressing;
 * values must have dst's dtype and shape B + R (broadcast by the caller;
 * any strides).  Repeated indices: the last write wins.  Validates
 * everything (indices, writability) before writing; bumps dst's version.
 * Returns 0 or an error. */
TL_API int tl_index_scatter_(tl_tensor_impl *dst, int nadv,
                             const int *adv_dims, tl_tensor_impl *const *idx,
                             tl_tensor_impl *values);

/* The coordinates of the nonzero elements of t, as an int64 tensor of
 * shape (n, ndim), in C order.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_index_nonzero(tl_tensor_impl *t);

TL_EXTERN_C_END

#endif /* TENSORLIB_INDEX_H */
