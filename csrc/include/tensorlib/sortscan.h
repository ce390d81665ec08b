/* tensorlib/sortscan.h — sorting and searching (sort, argsort, topk,
 * kthvalue, median, nanmedian, quantile, mode, unique, unique_consecutive,
 * searchsorted, isin, count_nonzero), scans (cumsum, cumprod, cummax,
 * cummin, logcumsumexp, diff) and the softmax family.
 *
 * Conventions (as tensorlib/ops.h and tensorlib/reduce.h):
 * - Inputs are borrowed; `out` arguments are borrowed and NULL asks for a
 *   new tensor.  Functions returning a tensor return a new reference (to
 *   out when one was given), or NULL after recording an error; functions
 *   with two results return 0 and store new references, or an error.
 * - Validation comes first: a failed call leaves every operand unchanged.
 * - dim is wrapped into [-ndim, ndim) (a 0-d tensor accepts -1 and 0);
 *   out of range is TL_ERR_INDEX.  Results are contiguous.
 * - CPU only: a tensor on another device is TL_ERR_NOT_IMPLEMENTED naming
 *   the op.  Complex inputs of the ordering ops are TL_ERR_TYPE.
 * - Order (sort, argsort, topk, kthvalue, median, mode, unique,
 *   searchsorted): NaN ranks above +inf (last ascending, first
 *   descending), -0 equals +0; sorts are stable (equal elements keep their
 *   order, descending too), so results do not depend on the thread count.
 * - Scans split long rows into fixed blocks (the same on every thread
 *   count): results depend on the input only. */
#ifndef TENSORLIB_SORTSCAN_H
#define TENSORLIB_SORTSCAN_H

#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* ---- scans ---------------------------------------------------------------- */

enum {
    TL_SCAN_CUMSUM = 0,
    TL_SCAN_CUMPROD = 1,
    TL_SCAN_LOGCUMSUMEXP = 2,
};

/* cumsum/cumprod/logcumsumexp along dim.  dtype < 0: the default (bool and
 * integers give int64 for cumsum/cumprod; logcumsumexp takes floating
 * inputs only); otherwise the input is cast to dtype first.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_scan(int op, tl_tensor_impl *out, tl_tensor_impl *a,
                               int64_t dim, int dtype);

/* cummax/cummin: running max (min) along dim and the index where it was
 * reached (the last of equal values; a NaN stays, with its index).
 * Returns 0 or an error. */
TL_API int tl_scan_minmax(bool is_max, tl_tensor_impl *values_out,
                          tl_tensor_impl *indices_out, tl_tensor_impl *a,
                          int64_t dim, tl_tensor_impl **values,
                          tl_tensor_impl **indices);

/* n-th forward difference along dim of cat(prepend, a, append) (either may
 * be NULL); bool gives logical xor.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_diff(tl_tensor_impl *out, tl_tensor_impl *a,
                               int64_t n, int64_t dim,
                               tl_tensor_impl *prepend,
                               tl_tensor_impl *append);

/* ---- softmax -------------------------------------------------------------- */

/* softmax (log_softmax when log) along dim, input cast to dtype first when
 * dtype >= 0; floating dtypes only.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_softmax(tl_tensor_impl *out, tl_tensor_impl *a,
                                  int64_t dim, int dtype, bool log);

/* logsumexp of a floating tensor over dim (removed from the result, whose
 * dtype is a's): max + log(sum(exp(a - max))), float16/bfloat16/float32
 * computed in float32, float64 in float64; NaN rows give NaN, a +inf
 * gives +inf, an all -inf row -inf.  dim must not be empty.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_logsumexp(tl_tensor_impl *a, int64_t dim);

/* ---- sorting ---------------------------------------------------------------- */

/* Stable sort along dim: values and int64 indices.  Returns 0 or an error. */
TL_API int tl_sort(tl_tensor_impl *values_out, tl_tensor_impl *indices_out,
                   tl_tensor_impl *a, int64_t dim, bool descending,
                   tl_tensor_impl **values, tl_tensor_impl **indices);

/* The k largest (smallest) along dim, sorted or in index order.
 * k > size of dim is TL_ERR_INDEX.  Returns 0 or an error. */
TL_API int tl_topk(tl_tensor_impl *values_out, tl_tensor_impl *indices_out,
                   tl_tensor_impl *a, int64_t k, int64_t dim, bool largest,
                   bool sorted, tl_tensor_impl **values,
                   tl_tensor_impl **indices);

enum {
    TL_SELECT_KTH = 0,       /* kthvalue(k) */
    TL_SELECT_MEDIAN = 1,    /* the lower median; NaN if any */
    TL_SELECT_NANMEDIAN = 2, /* the lower median of the non-NaN */
    TL_SELECT_MODE = 3,      /* the most frequent (smallest of ties) */
};

/* kthvalue / median / nanmedian / mode along dim.  Returns 0 or an error. */
TL_API int tl_select(int op, tl_tensor_impl *values_out,
                     tl_tensor_impl *indices_out, tl_tensor_impl *a,
                     int64_t k, int64_t dim, bool keepdim,
                     tl_tensor_impl **values, tl_tensor_impl **indices);

/* median()/nanmedian() of every element: a 0-d tensor.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_median_all(tl_tensor_impl *a, bool ignore_nan);

enum {
    TL_INTERP_LINEAR = 0,
    TL_INTERP_LOWER = 1,
    TL_INTERP_HIGHER = 2,
    TL_INTERP_MIDPOINT = 3,
    TL_INTERP_NEAREST = 4,
};

/* quantile/nanquantile: q a 0-d or 1-d tensor of a's dtype (float32 or
 * float64) with values in [0, 1]; dim NULL flattens.  The result has q's
 * dims first.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_quantile(tl_tensor_impl *out, tl_tensor_impl *a,
                                   tl_tensor_impl *q, const int64_t *dim,
                                   bool keepdim, int interpolation,
                                   bool ignore_nan);

/* ---- unique ---------------------------------------------------------------- */

/* unique (consecutive: unique_consecutive) of the flattened input
 * (dim NULL) or of the slices along *dim.  inverse/counts may be NULL
 * when not wanted.  Returns 0 or an error. */
TL_API int tl_unique(tl_tensor_impl *a, bool consecutive, const int64_t *dim,
                     tl_tensor_impl **values, tl_tensor_impl **inverse,
                     tl_tensor_impl **counts);

/* ---- searching -------------------------------------------------------------- */

/* Insertion indices of values into the sorted last dim of seq (1-d, or
 * with values' leading dims); sorter: int64 indices sorting seq, or NULL.
 * Returns: new reference (int64, or int32 when out_int32), or NULL. */
TL_API tl_tensor_impl *tl_searchsorted(tl_tensor_impl *out,
                                       tl_tensor_impl *seq,
                                       tl_tensor_impl *values, bool right,
                                       tl_tensor_impl *sorter,
                                       bool out_int32);

/* Whether each element of elements is in test (bool), inverted when
 * invert.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_isin(tl_tensor_impl *out, tl_tensor_impl *elements,
                               tl_tensor_impl *test, bool invert);

/* Number of nonzero elements over dims (NULL: all).  Returns: new
 * reference (int64), or NULL. */
TL_API tl_tensor_impl *tl_count_nonzero(tl_tensor_impl *a, int ndims,
                                        const int64_t *dims);

/* The coordinates of the nonzero elements of a, (n, ndim) int64, into
 * out when given.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_nonzero(tl_tensor_impl *out, tl_tensor_impl *a);

TL_EXTERN_C_END

#endif /* TENSORLIB_SORTSCAN_H */
