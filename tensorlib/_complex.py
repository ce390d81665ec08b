"""Complex-number helpers of issue 18 that build on the C views of
csrc/core/view_complex.c (tensorlib.real, imag, view_as_real,
view_as_complex, conj, conj_physical): angle and positive, and the Tensor
methods and the ``.real`` / ``.imag`` attributes (views for complex
tensors, as PyTorch; assigning to them copies into the view)."""
from __future__ import annotations

import math

from . import _C


def angle(input):
    """angle(input)

    The argument of each element: atan2(imag, real) for complex input (in
    its real dtype); pi for negative reals, 0 for the others, NaN for NaN
    (bool and integer inputs give float32, as PyTorch)."""
    if not isinstance(input, _C.Tensor):
        raise TypeError("angle(): argument 'input' must be Tensor, not %s"
                        % type(input).__name__)
    if input.dtype.is_complex:
        re = _C.real(input).contiguous()
        im = _C.imag(input).contiguous()
        if input.device.type == "cpu":
            return _C._vecmath_apply("atan2", im, re)
        raise NotImplementedError("angle(): complex CUDA tensors are not "
                                  "supported yet")
    x = input if input.dtype.is_floating_point else input.to(_C.float32)
    zero = _C.zeros((), dtype=x.dtype, device=x.device)
    pi = _C.full((), math.pi, dtype=x.dtype, device=x.device)
    return _C.where(_C.isnan(x), x, _C.where(_C.lt(x, 0), pi, zero))


def positive(input):
    """positive(input)

    input itself (as PyTorch); bool tensors are refused."""
    if not isinstance(input, _C.Tensor):
        raise TypeError("positive(): argument 'input' must be Tensor, not %s"
                        % type(input).__name__)
    if input.dtype == _C.bool:
        raise TypeError("positive() does not take bool tensors (+ on a "
                        "bool tensor is refused, as PyTorch refuses it)")
    return input


def _set_real(self, value):
    _C.real(self).copy_(value if isinstance(value, _C.Tensor)
                        else _C.tensor(value))


def _set_imag(self, value):
    _C.imag(self).copy_(value if isinstance(value, _C.Tensor)
                        else _C.tensor(value))


def _conj(self):
    """conj() -> Tensor: see tensorlib.conj."""
    return _C.conj(self)


def _conj_physical(self):
    """conj_physical() -> Tensor: see tensorlib.conj_physical."""
    return _C.conj_physical(self)


def _install_methods():
    T = _C.Tensor
    for name, fn in (("conj", _conj), ("conj_physical", _conj_physical),
                     ("angle", angle), ("positive", positive)):
        if not hasattr(T, name):
            setattr(T, name, fn)
    if not hasattr(T, "real"):
        T.real = property(_C.real, _set_real,
                          doc="The real part (a view for complex tensors).")
    if not hasattr(T, "imag"):
        T.imag = property(_C.imag, _set_imag,
                          doc="The imaginary part (a view; complex only).")
