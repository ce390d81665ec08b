/* tensorlib/view.h — metadata-only views.  Each returns a new impl that
 * shares the storage and the version counter of t; its base is t's root
 * (views never chain).  Dims are already wrapped into [0, ndim) by the
 * caller unless said otherwise; everything else is validated here, every
 * derived stride and offset with checked arithmetic.
 * Each function: Returns: new reference, or NULL after tl_error. */
#ifndef TENSORLIB_VIEW_H
#define TENSORLIB_VIEW_H

#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* Wraps dim into [0, ndim) (a 0-dim tensor accepts -1 and 0).  Returns 0 or
 * TL_ERR_INDEX naming the valid range. */
TL_API int tl_wrap_dim(int64_t dim, int ndim, int *out);

/* Resolves one -1 in sizes against numel and checks the product.
 * Errors: TL_ERR_SHAPE (two -1, a negative size, product mismatch).
 * Returns 0. */
TL_API int tl_infer_view_shape(int64_t numel, int ndim, const int64_t *sizes,
                               int64_t *out);

/* Strides for viewing (sizes, strides) as new_sizes without a copy, as
 * PyTorch's rule; returns 1 and fills out when possible, 0 when not. */
TL_API int tl_view_strides(int ndim, const int64_t *sizes,
                           const int64_t *strides, int new_ndim,
                           const int64_t *new_sizes, int64_t *out);

/* view(*shape): TL_ERR_SHAPE when the strides cannot express it (naming
 * shape and strides, suggesting .reshape()). sizes may hold one -1. */
TL_API tl_tensor_impl *tl_view_view(tl_tensor_impl *t, int ndim,
                                    const int64_t *sizes);
TL_API tl_tensor_impl *tl_view_transpose(tl_tensor_impl *t, int d0, int d1);
/* perm: a permutation of [0, ndim) (checked). */
TL_API tl_tensor_impl *tl_view_permute(tl_tensor_impl *t, const int *perm);
/* All dims in reverse order (.T): the permutation that needs no check. */
TL_API tl_tensor_impl *tl_view_reverse_dims(tl_tensor_impl *t);
/* expand to sizes (ndim >= t's; -1 keeps a size). */
TL_API tl_tensor_impl *tl_view_expand(tl_tensor_impl *t, int ndim,
                                      const int64_t *sizes);
/* Removes the dims in mask that have size 1 (others are kept). */
TL_API tl_tensor_impl *tl_view_squeeze(tl_tensor_impl *t, uint64_t mask);
/* Inserts a size-1 dim at position dim in [0, ndim]. */
TL_API tl_tensor_impl *tl_view_unsqueeze(tl_tensor_impl *t, int dim);
TL_API tl_tensor_impl *tl_view_select(tl_tensor_impl *t, int dim,
                                      int64_t index);
/* Elements start, start+step, ... (length of them) along dim; step may be
 * negative; start in [0, size] and the span already adjusted as Python's
 * slice.indices does. */
TL_API tl_tensor_impl *tl_view_slice(tl_tensor_impl *t, int dim,
                                     int64_t start, int64_t step,
                                     int64_t length);
TL_API tl_tensor_impl *tl_view_narrow(tl_tensor_impl *t, int dim,
                                      int64_t start, int64_t length);
TL_API tl_tensor_impl *tl_view_unfold(tl_tensor_impl *t, int dim,
                                      int64_t size, int64_t step);
TL_API tl_tensor_impl *tl_view_diagonal(tl_tensor_impl *t, int64_t offset,
                                        int d1, int d2);
/* Reverses the dims in mask: negative strides, O(1). */
TL_API tl_tensor_impl *tl_view_flip(tl_tensor_impl *t, uint64_t mask);
/* A view with the same metadata (detach, alias). */
TL_API tl_tensor_impl *tl_view_alias(tl_tensor_impl *t);

/* The broadcast of two shapes: tl_iter_infer_size for a pair.  out needs
 * TL_MAX_DIMS entries and must not alias a or b.  Errors name both shapes,
 * both sizes and the dim.  Returns the result ndim, or a negative status. */
TL_API int tl_broadcast_shapes(int na, const int64_t *a, int nb,
                               const int64_t *b, int64_t *out);

TL_EXTERN_C_END

#endif /* TENSORLIB_VIEW_H */
