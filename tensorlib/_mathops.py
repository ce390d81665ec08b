"""The issue-18 functions that are not one op-table row because they take
extra arguments, three operands or give two results: nan_to_num,
clamp_min, clamp_max, lerp, addcmul, addcdiv and frexp (float_power is a
table row).  Each is composed from tensorlib's own elementwise ops
(where, add with alpha, ldexp, ...), so it runs on every device those
run on; dtypes and refusals follow PyTorch, float16/bfloat16 compute in
float32 and round once on the way out."""
from __future__ import annotations

import collections
import numbers

from . import _C

# (largest finite, smallest finite) of each floating dtype.
_FINITE = {
    "float16": (65504.0, -65504.0),
    "bfloat16": (3.3895313892515355e38, -3.3895313892515355e38),
    "float32": (3.4028234663852886e38, -3.4028234663852886e38),
    "float64": (1.7976931348623157e308, -1.7976931348623157e308),
}
_HALF = ("float16", "bfloat16")

frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__module__ = "tensorlib.return_types"


def _dname(dt):
    return str(dt).split(".")[-1]


def _is_float(dt):
    return _dname(dt) in _FINITE


def _is_complex(dt):
    return _dname(dt).startswith("complex")


def _is_intlike(dt):
    return not _is_float(dt) and not _is_complex(dt)


def _check_tensor(x, fn, arg):
    if not isinstance(x, _C.Tensor):
        raise TypeError("%s(): argument '%s' must be Tensor, not %s"
                        % (fn, arg, type(x).__name__))


def _finish(r, dtype, out, fn):
    """r (in a compute dtype) as dtype, written into out when given."""
    if out is None:
        return r if r.dtype == dtype else r.to(dtype)
    _check_tensor(out, fn, "out")
    return _commit(out, r if r.dtype == dtype else r.to(dtype), fn, "out")


def _commit(dst, r, fn, what):
    """Copy r into dst (out= or the `_` forms' self): r's shape must be
    dst's (no broadcasting dst to a bigger shape) and r's dtype must cast
    to dst's safely (same kind or lower)."""
    if tuple(r.shape) != tuple(dst.shape):
        raise _C.ShapeError("%s(): the result's shape %s does not match "
                            "the %s's shape %s" % (fn, tuple(r.shape), what,
                                                   tuple(dst.shape)))
    if r.dtype != dst.dtype and not _C.can_cast(r.dtype, dst.dtype):
        raise TypeError("%s(): result type %s can't be cast to the "
                        "desired output type %s" % (fn, _dname(r.dtype),
                                                    _dname(dst.dtype)))
    return dst.copy_(r)


def _inplace(self, r, fn):
    return _commit(self, r, fn + "_", "input")


# ---- nan_to_num -------------------------------------------------------------

def _bound(v, dt, default, arg):
    if v is None:
        return default
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError("nan_to_num(): argument '%s' must be a real number, "
                        "not %s" % (arg, type(v).__name__))
    return float(v)


def _nan_to_num_real(x, nan, posinf, neginf):
    def full(v):
        # The replacement rounded to x's dtype (PyTorch: 1e10 in float16
        # is inf, as its cast gives).
        return _C.tensor(v, dtype=_C.float64, device=x.device).to(x.dtype)
    r = _C.where(_C.isnan(x), full(nan), x)
    r = _C.where(_C.isposinf(x), full(posinf), r)
    return _C.where(_C.isneginf(x), full(neginf), r)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None)

    NaN, +inf and -inf replaced by nan, posinf and neginf (by default 0,
    the dtype's largest and its lowest finite value); complex input in
    each part; bool and integer input is returned as a copy."""
    _check_tensor(input, "nan_to_num", "input")
    dt = input.dtype
    real = dt
    if _is_complex(dt):
        real = _C.float32 if _dname(dt) == "complex64" else _C.float64
    hi, lo = _FINITE.get(_dname(real), (0.0, 0.0))
    nan = _bound(nan, real, 0.0, "nan")
    posinf = _bound(posinf, real, hi, "posinf")
    neginf = _bound(neginf, real, lo, "neginf")
    if _is_intlike(dt):
        r = input.clone()
    elif _is_complex(dt):
        parts = _C.view_as_real(input)
        r = _C.view_as_complex(
            _nan_to_num_real(parts, nan, posinf, neginf).contiguous())
    else:
        r = _nan_to_num_real(input, nan, posinf, neginf)
    return _finish(r, dt, out, "nan_to_num")


def _nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """nan_to_num_(nan=0.0, posinf=None, neginf=None) -> Tensor: in place."""
    return _inplace(self, nan_to_num(self, nan, posinf, neginf),
                    "nan_to_num")


# ---- clamp_min, clamp_max ---------------------------------------------------

def clamp_min(input, min, *, out=None):  # noqa: A002 - PyTorch's name
    """clamp_min(input, min, *, out=None)

    clamp(input, min=min): max(input, min), NaN propagating; min a tensor
    or a number (the result dtype promotes as clamp's)."""
    _check_tensor(input, "clamp_min", "input")
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be a tensor or a "
                        "number, not None")
    return _C.clamp(input, min, None, out=out)


def clamp_max(input, max, *, out=None):  # noqa: A002 - PyTorch's name
    """clamp_max(input, max, *, out=None)

    clamp(input, max=max): min(input, max), NaN propagating; max a tensor
    or a number."""
    _check_tensor(input, "clamp_max", "input")
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be a tensor or a "
                        "number, not None")
    return _C.clamp(input, None, max, out=out)


def _clamp_min_(self, min):  # noqa: A002
    """clamp_min_(min) -> Tensor: in place."""
    if min is None:
        raise TypeError("clamp_min_(): argument 'min' must be a tensor or a "
                        "number, not None")
    return self.clamp_(min, None)


def _clamp_max_(self, max):  # noqa: A002
    """clamp_max_(max) -> Tensor: in place."""
    if max is None:
        raise TypeError("clamp_max_(): argument 'max' must be a tensor or a "
                        "number, not None")
    return self.clamp_(None, max)


# ---- lerp -------------------------------------------------------------------

def _compute_dtype(dt):
    return _C.float32 if _dname(dt) in _HALF else dt


def lerp(input, end, weight, *, out=None):
    """lerp(input, end, weight, *, out=None)

    input + weight * (end - input), computed as PyTorch does
    (end - (end - input) * (1 - weight) where |weight| >= 0.5, exact at
    weight 1).  input and end share a floating or complex dtype; weight
    is a number or a tensor of that dtype."""
    _check_tensor(input, "lerp", "input")
    _check_tensor(end, "lerp", "end")
    dt = input.dtype
    if _is_intlike(dt):
        raise TypeError("lerp is not supported for %s (floating and complex "
                        "tensors only)" % _dname(dt))
    if end.dtype != dt:
        raise TypeError("lerp(): expected dtype %s for `end` but got dtype "
                        "%s" % (_dname(dt), _dname(end.dtype)))
    cdt = _compute_dtype(dt)
    if isinstance(weight, _C.Tensor) and weight.ndim == 0:
        # A 0-d weight acts as a number, of any dtype (PyTorch); a complex
        # one for real tensors is refused as a complex number is.
        if _is_complex(weight.dtype) and not _is_complex(dt):
            raise TypeError("lerp(): a complex weight (%s) needs complex "
                            "tensors (got %s)" % (_dname(weight.dtype),
                                                  _dname(dt)))
        w = weight.to(cdt)
    elif isinstance(weight, _C.Tensor):
        if weight.dtype != dt:
            raise TypeError("lerp(): expected dtype %s for `weight` but got "
                            "dtype %s" % (_dname(dt), _dname(weight.dtype)))
        w = weight.to(cdt)
    elif isinstance(weight, numbers.Number):
        if isinstance(weight, complex) and not _is_complex(dt):
            raise TypeError("lerp(): a complex weight needs complex tensors "
                            "(got %s)" % _dname(dt))
        w = _C.tensor(complex(weight) if _is_complex(cdt) else
                      float(weight), dtype=cdt, device=input.device)
    else:
        raise TypeError("lerp(): argument 'weight' must be a tensor or a "
                        "number, not %s" % type(weight).__name__)
    a = input.to(cdt)
    b = end.to(cdt)
    d = _C.sub(b, a)
    low = _C.add(a, _C.mul(w, d))
    one = _C.ones((), dtype=cdt, device=input.device)
    high = _C.sub(b, _C.mul(d, _C.sub(one, w)))
    r = _C.where(_C.lt(_C.abs(w), 0.5), low, high)
    return _finish(r, dt, out, "lerp")


def _lerp_(self, end, weight):
    """lerp_(end, weight) -> Tensor: in place."""
    return _inplace(self, lerp(self, end, weight), "lerp")


# ---- addcmul, addcdiv -------------------------------------------------------

def _promote(dts):
    r = dts[0]
    for d in dts[1:]:
        r = _C.promote_types(r, d)
    return r


def _result_type3(*ts):
    """PyTorch's result_type of tensors: a 0-d tensor raises the dtype of
    the dimensioned ones only when its category is higher."""
    dim = [t.dtype for t in ts if t.ndim > 0]
    zero = [t.dtype for t in ts if t.ndim == 0]
    if not dim or not zero:
        return _promote(dim or zero)
    return _C.result_type(_C.empty((0,), dtype=_promote(dim)),
                          _C.empty((), dtype=_promote(zero)))


def _addc(fn, input, tensor1, tensor2, value, out):
    _check_tensor(input, fn, "input")
    _check_tensor(tensor1, fn, "tensor1")
    _check_tensor(tensor2, fn, "tensor2")
    if not isinstance(value, numbers.Number):
        raise TypeError("%s(): argument 'value' must be a number, not %s"
                        % (fn, type(value).__name__))
    dts = (input.dtype, tensor1.dtype, tensor2.dtype)
    if fn == "addcdiv" and _is_intlike(tensor1.dtype) and \
            _is_intlike(tensor2.dtype):
        raise TypeError("addcdiv(): integer division with addcdiv is not "
                        "supported (tensor1 %s, tensor2 %s); divide by a "
                        "floating tensor" % (_dname(tensor1.dtype),
                                             _dname(tensor2.dtype)))
    dt = _result_type3(input, tensor1, tensor2)
    if dt == _C.bool:
        raise TypeError("%s is not supported for bool tensors (%s)"
                        % (fn, ", ".join(_dname(d) for d in dts)))
    cdt = _compute_dtype(dt)
    a, b, c = input.to(cdt), tensor1.to(cdt), tensor2.to(cdt)
    p = _C.mul(b, c) if fn == "addcmul" else _C.true_divide(b, c)
    # add's alpha rule judges value: no float value for an integer result,
    # no complex one for a real result.
    r = _C.add(a, p, alpha=value)
    return _finish(r, dt, out, fn)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """addcmul(input, tensor1, tensor2, *, value=1, out=None)

    input + value * tensor1 * tensor2, broadcast, in the promoted dtype."""
    return _addc("addcmul", input, tensor1, tensor2, value, out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """addcdiv(input, tensor1, tensor2, *, value=1, out=None)

    input + value * tensor1 / tensor2, broadcast, in the promoted dtype;
    tensor1 and tensor2 both integer is refused (as PyTorch)."""
    return _addc("addcdiv", input, tensor1, tensor2, value, out)


def _addcmul_(self, tensor1, tensor2, *, value=1):
    """addcmul_(tensor1, tensor2, *, value=1) -> Tensor: in place."""
    return _inplace(self, addcmul(self, tensor1, tensor2, value=value),
                    "addcmul")


def _addcdiv_(self, tensor1, tensor2, *, value=1):
    """addcdiv_(tensor1, tensor2, *, value=1) -> Tensor: in place."""
    return _inplace(self, addcdiv(self, tensor1, tensor2, value=value),
                    "addcdiv")


# ---- frexp ------------------------------------------------------------------

def frexp(input, *, out=None):
    """frexp(input, *, out=None)

    (mantissa, exponent) with input == mantissa * 2 ** exponent, 0.5 <=
    |mantissa| < 1 (C's frexp); 0, inf and NaN give themselves and
    exponent 0.  The exponent is int32; float16/bfloat16 are decomposed
    exactly (their values are float32 values)."""
    _check_tensor(input, "frexp", "input")
    dt = input.dtype
    if not _is_float(dt):
        raise TypeError("frexp() only supports floating-point dtypes (got "
                        "%s)" % _dname(dt))
    x = input.to(_compute_dtype(dt))
    ax = _C.abs(x)
    special = _C.logical_or(_C.eq(ax, 0), _C.logical_not(_C.isfinite(x)))
    one = _C.ones((), dtype=x.dtype, device=x.device)
    safe = _C.where(special, one, ax)
    # floor(log2 |x|) + 1 is the exponent or one off it (log2 rounds):
    # one correction step each way makes 0.5 <= |m| < 1 exactly (the
    # scalings by 2 ** -e and by 2 are exact, subnormals included).
    e = _C.add(_C.floor(_C.log2(safe)), 1)
    m = _C.ldexp(_C.where(special, one, x), _C.neg(e))
    big = _C.ge(_C.abs(m), 1)
    m = _C.where(big, _C.mul(m, 0.5), m)
    e = _C.where(big, _C.add(e, 1), e)
    small = _C.lt(_C.abs(m), 0.5)
    m = _C.where(small, _C.mul(m, 2), m)
    e = _C.where(small, _C.sub(e, 1), e)
    zero = _C.zeros((), dtype=x.dtype, device=x.device)
    m = _C.where(special, x, m)
    e = _C.where(special, zero, e).to(_C.int32)
    if out is None:
        return frexp_result(m.to(dt) if m.dtype != dt else m, e)
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("frexp(): out must be a (mantissa, exponent) pair "
                        "of tensors")
    om, oe = out
    _check_tensor(om, "frexp", "out")
    _check_tensor(oe, "frexp", "out")
    if om.dtype != dt or oe.dtype != _C.int32:
        raise TypeError("frexp(): expected out dtypes %s and int32, got %s "
                        "and %s" % (_dname(dt), _dname(om.dtype),
                                    _dname(oe.dtype)))
    _finish(m, dt, om, "frexp")
    _finish(e, _C.int32, oe, "frexp")
    return frexp_result(om, oe)


def _install_methods():
    """The Tensor methods PyTorch has for these functions."""
    T = _C.Tensor
    for name, fn in (("nan_to_num", nan_to_num),
                     ("nan_to_num_", _nan_to_num_),
                     ("clamp_min", clamp_min), ("clamp_max", clamp_max),
                     ("clamp_min_", _clamp_min_), ("clamp_max_", _clamp_max_),
                     ("lerp", lerp), ("lerp_", _lerp_),
                     ("addcmul", addcmul), ("addcmul_", _addcmul_),
                     ("addcdiv", addcdiv), ("addcdiv_", _addcdiv_),
                     ("frexp", frexp)):
        if not hasattr(T, name):
            setattr(T, name, fn)
