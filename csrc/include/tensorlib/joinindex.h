/* tensorlib/joinindex.h — joining (cat, stack) and the indexing operations
 * that address one dim through an index tensor (gather, scatter and its
 * reductions, index_select/add/copy/fill), plus the small creation kernels
 * (linspace).  Conventions as tensorlib/ops.h: dims may be negative and are
 * wrapped here; every check runs before anything is allocated or written;
 * a failed call leaves every operand unchanged.  CPU only unless said
 * otherwise: other devices are TL_ERR_NOT_IMPLEMENTED naming the op.
 * Each function returning a tensor: Returns: new reference (out when given),
 * or NULL after tl_error. */
#ifndef TENSORLIB_JOININDEX_H
#define TENSORLIB_JOININDEX_H

#include "tensorlib/ops.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* cat(tensors, dim): one output allocation, one copy per input into a
 * narrowed view of it (any device the copy path supports).  The result
 * dtype is the promotion of every input's dtype.  1-D empty inputs are
 * skipped, as PyTorch's legacy rule.  Errors: TL_ERR_SHAPE for no inputs,
 * a 0-dim input, other dims that differ (naming both shapes), an out that
 * overlaps an input; TL_ERR_INDEX for dim out of range; TL_ERR_TYPE when
 * the result cannot be cast to out's dtype. */
TL_API tl_tensor_impl *tl_op_cat(tl_tensor_impl *out, int n,
                                 tl_tensor_impl *const *ts, int64_t dim);

/* stack(tensors, dim): every input must have one shape (TL_ERR_SHAPE
 * naming the first that differs); dim in [-(ndim+1), ndim]. */
TL_API tl_tensor_impl *tl_op_stack(tl_tensor_impl *out, int n,
                                   tl_tensor_impl *const *ts, int64_t dim);

/* How scatter combines: TL_SCATTER_NONE writes (the last along dim wins). */
typedef enum tl_scatter_reduce {
    TL_SCATTER_NONE = 0,
    TL_SCATTER_SUM,
    TL_SCATTER_PROD,
    TL_SCATTER_MEAN,
    TL_SCATTER_AMAX,
    TL_SCATTER_AMIN,
} tl_scatter_reduce;

/* gather(self, dim, index): out[p] = self[p with p[dim] = index[p]].
 * index int64 with self's ndim and index.size(d) <= self.size(d) for
 * d != dim; every index in [0, self.size(dim)) (TL_ERR_INDEX naming it). */
TL_API tl_tensor_impl *tl_op_gather(tl_tensor_impl *out, tl_tensor_impl *self,
                                    int64_t dim, tl_tensor_impl *index);

/* scatter into dst in place: dst[p with p[dim] = index[p]] (op)= src[p]
 * (src NULL: the scalar value, converted to dst's dtype).  src has dst's
 * dtype and index.size(d) <= src.size(d) everywhere; include_self false
 * first resets every target to the reduction's identity (MEAN counts only
 * the scattered values then).  Repeated indices combine in index order
 * along dim, the same for any thread count.  Bumps dst's version.
 * Returns 0 or an error (dst unchanged). */
TL_API int tl_op_scatter_(tl_tensor_impl *dst, int64_t dim,
                          tl_tensor_impl *index, tl_tensor_impl *src,
                          const tl_scalar *value, int reduce,
                          bool include_self);

/* The out-of-place form: a clone of self (its layout kept) scattered
 * into, with the same checks.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_scatter(tl_tensor_impl *self, int64_t dim,
                                     tl_tensor_impl *index,
                                     tl_tensor_impl *src,
                                     const tl_scalar *value, int reduce,
                                     bool include_self);

/* index_select(self, dim, index): index a 0-d or 1-D int32/int64 tensor,
 * every entry in [0, size) (negative ones are TL_ERR_INDEX, as PyTorch). */
TL_API tl_tensor_impl *tl_op_index_select(tl_tensor_impl *out,
                                          tl_tensor_impl *self, int64_t dim,
                                          tl_tensor_impl *index);

/* index_add_/index_copy_/index_fill_/index_reduce_ in place:
 * dst.select(dim, index[i]) (op)= src.select(dim, i) (src NULL: value).
 * src must have dst's shape except size(dim) == len(index) and dst's
 * dtype.  reduce as tl_op_scatter_ (NONE copies).  Returns 0 or an error. */
TL_API int tl_op_index_scatter_(tl_tensor_impl *dst, int64_t dim,
                                tl_tensor_impl *index, tl_tensor_impl *src,
                                const tl_scalar *value, int reduce,
                                bool include_self, const char *opname);

/* linspace(start, end, steps) in dtype dt (PyTorch's two-sided formula:
 * the first half counts up from start, the second down from end), computed
 * in double (complex: per component) and rounded once.  steps < 0:
 * TL_ERR_SHAPE (a size).  base > 0 gives logspace: base ** value. */
TL_API tl_tensor_impl *tl_op_linspace(const tl_scalar *start,
                                      const tl_scalar *end, int64_t steps,
                                      double base, tl_dtype dt);

/* complex(real, imag): float32 -> complex64, float64 -> complex128 (both
 * the same dtype, else TL_ERR_TYPE), broadcast. */
TL_API tl_tensor_impl *tl_op_complex(tl_tensor_impl *re, tl_tensor_impl *im);

/* polar(abs, angle) = complex(abs * cos(angle), abs * sin(angle)). */
TL_API tl_tensor_impl *tl_op_polar(tl_tensor_impl *abs,
                                   tl_tensor_impl *angle);

TL_EXTERN_C_END

#endif /* TENSORLIB_JOININDEX_H */
