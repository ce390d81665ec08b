/* tensorlib/view_complex.h — complex tensors as pairs of reals: the views
 * view_as_real, view_as_complex, real and imag, and the eager conj.
 * Conventions as tensorlib/view.h and tensorlib/ops.h: inputs are
 * borrowed; each function returns a new reference, or NULL after
 * tl_error (validated before anything is allocated).
 * Views share t's storage and version counter (writes through them reach
 * t); their element offsets and strides count the real dtype's elements,
 * twice the complex ones. */
#ifndef TENSORLIB_VIEW_COMPLEX_H
#define TENSORLIB_VIEW_COMPLEX_H

#include "tensorlib/tensor.h"

TL_EXTERN_C_BEGIN

/* complex64 -> float32, complex128 -> float64 (sizes + [2], last stride
 * 1).  Other dtypes: TL_ERR_TYPE.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_view_as_real(tl_tensor_impl *t);

/* float32 -> complex64, float64 -> complex128: t needs at least one dim,
 * a last dim of size 2 and stride 1, even strides elsewhere and an even
 * storage offset (TL_ERR_SHAPE naming which fails); other dtypes
 * TL_ERR_TYPE.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_view_as_complex(tl_tensor_impl *t);

/* The real (imag false) or imaginary (imag true) part of a complex t, as a
 * view of its real dtype.  A real t: real gives t itself (increfed), imag
 * is TL_ERR_TYPE, as PyTorch.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_view_real_imag(tl_tensor_impl *t, bool imag);

/* The complex conjugate as a new tensor (PyTorch's conj is a lazy view
 * with a conjugate bit; tensorlib copies); a non-complex t is returned
 * itself (increfed), as PyTorch.  Returns: new reference, or NULL. */
TL_API tl_tensor_impl *tl_op_conj(tl_tensor_impl *t);

TL_EXTERN_C_END

#endif /* TENSORLIB_VIEW_COMPLEX_H */
