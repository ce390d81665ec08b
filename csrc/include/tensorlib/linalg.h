/* tensorlib/linalg.h — matrix products and the batched LAPACK drivers
 * behind tensorlib.linalg, on OpenBLAS (scipy-openblas64, ILP64).
 *
 * Conventions (besides those of tensorlib/ops.h for tl_op_*):
 * - The tl_lapack_* drivers work in place on tensors the caller prepared:
 *   every matrix column major (stride of dim -2 is 1, of dim -1 at least
 *   max(1, rows)), of float32, float64, complex64 or complex128, batched
 *   over any leading dims (any strides).  Companion outputs (pivots,
 *   singular values, ...) are contiguous with the listed shape.  `info`
 *   is a contiguous int64 tensor with one entry per batch element that
 *   receives LAPACK's info (0: success; > 0: the routine's failure, e.g.
 *   a zero pivot or no convergence; < 0: LAPACKE's NaN check refused the
 *   matrix, left as it was).  Failures of single matrices are not errors
 *   of the call: the caller reads info.
 *   Shapes and dtypes are checked (TL_ERR_SHAPE, TL_ERR_TYPE) before
 *   anything is written.  Returns 0 or an error.
 * - OpenBLAS uses tl_get_num_threads() threads. */
#ifndef TENSORLIB_LINALG_H
#define TENSORLIB_LINALG_H

#include "tensorlib/base.h"
#include "tensorlib/status.h"
#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* a @ b with NumPy's and PyTorch's rules: 1-D a is a row (its dim
 * dropped from the result), 1-D b a column; batch dims broadcast.  Both
 * operands have one dtype (else TL_ERR_TYPE), every dtype: float16 and
 * bfloat16 accumulate in float32 and round once; integers wrap exactly;
 * bool is any(a & b).  A 0-d operand or mismatched inner sizes:
 * TL_ERR_SHAPE naming both shapes.  out= must have the result dtype.
 * Returns: new reference (out when given), or NULL. */
TL_API tl_tensor_impl *tl_op_matmul(tl_tensor_impl *out, tl_tensor_impl *a,
                                    tl_tensor_impl *b);

/* The number of threads OpenBLAS uses (tl_get_num_threads() once synced).
 */
TL_API int tl_blas_get_num_threads(void);

/* A new tensor of a's sizes in dtype dt whose matrices (last two dims) are
 * column major and batch dims contiguous: the layout the drivers take.
 * a needs ndim >= 2.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_lapack_fortran_copy(tl_tensor_impl *a,
                                              tl_dtype dt);

/* LU with partial pivoting of a (..., m, n): ipiv (..., min(m, n)) int64,
 * 1-based as LAPACK's.  info > 0: U[info-1, info-1] is exactly zero. */
TL_API int tl_lapack_getrf(tl_tensor_impl *a, tl_tensor_impl *ipiv,
                           tl_tensor_impl *info);
/* Solves op(A) X = B from getrf's factors: lu (..., n, n), b (..., n, k)
 * with the same batch sizes, overwritten by X.  trans: 'N', 'T', 'C'. */
TL_API int tl_lapack_getrs(tl_tensor_impl *lu, tl_tensor_impl *ipiv,
                           tl_tensor_impl *b, char trans,
                           tl_tensor_impl *info);
/* The inverse from getrf's factors, in place of lu (..., n, n). */
TL_API int tl_lapack_getri(tl_tensor_impl *lu, tl_tensor_impl *ipiv,
                           tl_tensor_impl *info);
/* Cholesky of a (..., n, n) in place (the other triangle is left as it
 * was).  upper selects A = U^H U.  info > 0: not positive definite. */
TL_API int tl_lapack_potrf(tl_tensor_impl *a, bool upper,
                           tl_tensor_impl *info);
/* QR: geqrf of a (..., m, n) into reflectors and tau (..., min(m, n));
 * orgqr then turns the first k = tau's last size columns of a
 * (..., m, ncols) into Q's columns. */
TL_API int tl_lapack_geqrf(tl_tensor_impl *a, tl_tensor_impl *tau,
                           tl_tensor_impl *info);
TL_API int tl_lapack_orgqr(tl_tensor_impl *a, tl_tensor_impl *tau,
                           tl_tensor_impl *info);
/* Hermitian eigen-decomposition of a (..., n, n) using the upper or lower
 * triangle: w (..., n) real ascending; vectors in a when vectors. */
TL_API int tl_lapack_syevd(tl_tensor_impl *a, tl_tensor_impl *w,
                           bool upper, bool vectors, tl_tensor_impl *info);
/* SVD of a (..., m, n): s (..., min(m, n)) real, descending; jobz 'N'
 * (u, vt unused, may be NULL), 'S' (u (..., m, k), vt (..., k, n)) or 'A'
 * (u (..., m, m), vt (..., n, n)); both column major.  info > 0: no
 * convergence. */
TL_API int tl_lapack_gesdd(tl_tensor_impl *a, tl_tensor_impl *s,
                           tl_tensor_impl *u, tl_tensor_impl *vt, char jobz,
                           tl_tensor_impl *info);
/* General eigen-decomposition of a (..., n, n): w (..., n) complex of
 * a's precision, v (..., n, n) complex column major (right vectors,
 * normalised; NULL for none). */
TL_API int tl_lapack_geev(tl_tensor_impl *a, tl_tensor_impl *w,
                          tl_tensor_impl *v, tl_tensor_impl *info);
/* Least squares min |A X - B| of a (..., m, n), b (..., max(m, n), k)
 * (solution in its first n rows), s (..., min(m, n)) real singular values,
 * rank (...) int64; rcond < 0 means machine precision. */
TL_API int tl_lapack_gelsd(tl_tensor_impl *a, tl_tensor_impl *b,
                           tl_tensor_impl *s, tl_tensor_impl *rank,
                           double rcond, tl_tensor_impl *info);
/* Triangular solve op(A) X = B of a (..., n, n), b (..., n, k) in place.
 * info > 0: a zero on the diagonal. */
TL_API int tl_lapack_trtrs(tl_tensor_impl *a, tl_tensor_impl *b, bool upper,
                           char trans, bool unit, tl_tensor_impl *info);

/* A new tensor holding the complex conjugate of a (a copy of a for real
 * dtypes).  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_linalg_conj(tl_tensor_impl *a);

TL_EXTERN_C_END

#endif /* TENSORLIB_LINALG_H */
