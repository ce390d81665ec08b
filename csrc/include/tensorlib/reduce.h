/* tensorlib/reduce.h — reductions: sum, prod, mean, amax, amin, max, min
 * (with and without dim), argmax, argmin, any, all, var and std, over
 * dim=None | int | tuple of ints, with keepdim, dtype= and out=.
 *
 * Conventions (as tensorlib/ops.h):
 * - Inputs are borrowed.  `out` is borrowed; NULL asks for a new tensor.
 *   Functions returning a tensor return a new reference (to `out`,
 *   increfed, when one was given), or NULL after recording an error.
 * - Everything is validated before anything is allocated or written: a
 *   failed call leaves every operand as it was.
 * - dims: `dims == NULL` is dim=None (every dim).  Otherwise `ndims`
 *   entries, each wrapped into [-ndim, ndim) (a 0-dim tensor accepts -1 and
 *   0): out of range is TL_ERR_INDEX "Dimension out of range (expected to
 *   be in range of [-2, 1], but got 2)"; a dim named twice is TL_ERR_SHAPE
 *   "dim 0 appears multiple times in the list of dims".  An empty list
 *   (ndims == 0, dims != NULL) reduces every dim, as PyTorch's dim=(),
 *   except for any/all, where PyTorch reduces nothing.
 * - keepdim: reduced dims stay as size 1.  Results are contiguous.
 * - out=: out must have the result's shape, or have no elements and own its
 *   storage (base NULL, storage offset 0), in which case it is resized;
 *   its dtype may differ when tl_can_cast(result dtype, out dtype) (else
 *   TL_ERR_TYPE naming can_cast(result, out)), and the result is cast
 *   on write; with an explicit dtype= the out dtype must be that dtype
 *   (TL_ERR_TYPE "dtype=float64 was asked for, but out= has dtype float32:
 *   they must agree").  A read-only out is
 *   TL_ERR_READONLY; an out that overlaps itself is TL_ERR_SHAPE; an out
 *   sharing memory with the input is written only after the whole input
 *   was read.  Every successful write into out bumps its version.
 *
 * Result dtypes (PyTorch's):
 * - sum, prod: bool and integers give int64; others keep their dtype;
 *   dtype= casts the input to dtype first (as PyTorch) and gives dtype.
 * - mean: floating and complex only (else TL_ERR_TYPE "mean(): could not
 *   infer output dtype. Input dtype must be either a floating point or
 *   complex dtype. Got: Long"); dtype= must be floating or complex too.
 * - amax, amin, max, min: the input dtype; complex is TL_ERR_TYPE.
 *   uint16/uint32/uint64 are supported (PyTorch has no CPU kernel for them;
 *   NumPy's semantics are used).
 * - argmax, argmin, and the indices of max/min with dim: int64; bool
 *   (argmax/argmin only) and complex are TL_ERR_TYPE.
 * - any, all: bool (uint8 for a uint8 input, as PyTorch).
 * - var, std: floating and complex only (else TL_ERR_TYPE "std and var only
 *   support floating point and complex dtypes"); complex gives its real
 *   dtype.
 *
 * Values (DESIGN.md "Numeric semantics"): NumPy's, computed on the input
 * cast to the result dtype.  Accumulation: integer sums and products wrap in
 * 64-bit unsigned arithmetic (no undefined behaviour); float16, bfloat16
 * and float32 accumulate in float64 and round once; float64 sums add
 * contiguous runs in blocks of 64 (a tree per lane) accumulated with
 * two-sum compensation, and pairwise sums across rows and chunks; complex
 * follows its real parts.  amax/amin/max/min
 * propagate NaN; argmax/argmin and the indices of max/min give the first
 * maximal (minimal) element, or the first NaN.  var/std are two-pass
 * (mean, then the sum of squared deviations with the compensation term of
 * Chan, Golub and LeVeque), divided by max(0, N - correction).
 * Empty reductions: sum 0, prod 1, mean/var/std NaN, any false, all true;
 * amax/amin/max/min/argmax/argmin of an empty reduced dim are TL_ERR_SHAPE
 * "max(): Expected reduction dim 0 to have non-zero size." (PyTorch raises
 * IndexError there).
 *
 * Determinism: the reduced elements are split into chunks whose size
 * depends only on the shapes, never on the thread count, and partial
 * results are combined in a fixed (pairwise) order, so results are
 * bit-identical for any tl_set_num_threads. */
#ifndef TENSORLIB_REDUCE_H
#define TENSORLIB_REDUCE_H

#include "tensorlib/base.h"
#include "tensorlib/dtype.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

typedef enum tl_reduce_op {
    TL_REDUCE_SUM = 0,
    TL_REDUCE_PROD,
    TL_REDUCE_MEAN,
    TL_REDUCE_AMAX,
    TL_REDUCE_AMIN,
    TL_REDUCE_MAX,    /* amax over the given dims, named "max" in errors */
    TL_REDUCE_MIN,    /* amin, named "min" */
    TL_REDUCE_ANY,
    TL_REDUCE_ALL,
    TL_REDUCE_ARGMAX, /* tl_reduce_arg only */
    TL_REDUCE_ARGMIN, /* tl_reduce_arg only */
    TL_REDUCE_VAR,    /* tl_reduce_var only */
    TL_REDUCE_STD,    /* tl_reduce_var only */
    TL_REDUCE_NANSUM, /* sum with NaN counted as zero (tl_reduce) */
    TL_REDUCE_NANMEAN, /* mean of the non-NaN elements (tl_reduce) */
    TL_REDUCE_COUNT_NONZERO, /* int64 count of x != 0 (tl_reduce, CPU) */
    TL_REDUCE_OP_COUNT
} tl_reduce_op;

/* Returns: static name of op ("sum"), or NULL for a bad op. */
TL_API const char *tl_reduce_name(int op);
/* Returns the tl_reduce_op named, or -1 (no error recorded). */
TL_API int tl_reduce_from_name(const char *name);

/* The result dtype of op on an input of dtype a with an optional dtype=
 * (-1: none), or an error (TL_ERR_TYPE as listed above).  For var/std
 * dtype must be -1. */
TL_API int tl_reduce_result_type(int op, tl_dtype a, int dtype,
                                 tl_dtype *out);

/* sum, prod, mean, amax, amin, max, min, any, all, nansum, nanmean over
 * dims.  dtype: a tl_dtype for sum/prod/mean/nansum/nanmean, or -1 (others
 * must pass -1: TL_ERR_TYPE).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_reduce(int op, tl_tensor_impl *out,
                                 tl_tensor_impl *a, int ndims,
                                 const int64_t *dims, bool keepdim,
                                 int dtype);

/* var (take_sqrt false) or std (true) over dims with the given correction
 * (1 is Bessel's correction; PyTorch's unbiased=False is 0).
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_reduce_var(tl_tensor_impl *out, tl_tensor_impl *a,
                                     int ndims, const int64_t *dims,
                                     double correction, bool keepdim,
                                     bool take_sqrt);

/* The 2-norm sqrt(sum |x|^2) over dims (all when ndims is 0) of a floating
 * point or complex tensor, in one pass; the result's dtype is real.
 * Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_reduce_norm2(tl_tensor_impl *out, tl_tensor_impl *a,
                                       int ndims, const int64_t *dims,
                                       bool keepdim);

/* argmax / argmin (op TL_REDUCE_ARGMAX or TL_REDUCE_ARGMIN) along *dim, or
 * over the flattened tensor when dim is NULL (keepdim then keeps every dim
 * as size 1).  The index of the first maximal (minimal) element, or of the
 * first NaN.  Returns: new reference (int64), or NULL. */
TL_API tl_tensor_impl *tl_reduce_arg(int op, tl_tensor_impl *out,
                                     tl_tensor_impl *a, const int64_t *dim,
                                     bool keepdim);

/* max / min along dim (op TL_REDUCE_MAX or TL_REDUCE_MIN; AMAX/AMIN are
 * accepted as the same): values (a's dtype) and indices (int64, as
 * argmax).  values_out / indices_out: optional out= tensors (each NULL or
 * given); they must not share memory with each other.  On success
 * *values and *indices receive new references.  Returns 0 or an error. */
TL_API int tl_reduce_minmax_dim(int op, tl_tensor_impl *values_out,
                                tl_tensor_impl *indices_out,
                                tl_tensor_impl *a, int64_t dim, bool keepdim,
                                tl_tensor_impl **values,
                                tl_tensor_impl **indices);

/* min and max over dims (all when ndims is 0) in one read of the input,
 * NaN propagating, each in a's dtype (PyTorch's aminmax).  min_out /
 * max_out: optional out= tensors, not sharing memory.  On success *mins
 * and *maxs receive new references.  CPU tensors only.  Returns 0 or an
 * error. */
TL_API int tl_reduce_aminmax(tl_tensor_impl *min_out, tl_tensor_impl *max_out,
                             tl_tensor_impl *a, int ndims,
                             const int64_t *dims, bool keepdim,
                             tl_tensor_impl **mins, tl_tensor_impl **maxs);

TL_EXTERN_C_END

#endif /* TENSORLIB_REDUCE_H */
