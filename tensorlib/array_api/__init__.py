"""tensorlib.array_api: the Python array API standard (2024.12) namespace.

`Tensor.__array_namespace__()` returns this module, so code written against
the standard (`xp = array_api_compat.array_namespace(x)`, scikit-learn,
SciPy, array-api-extra) runs on tensorlib tensors.  The arrays are plain
`tensorlib.Tensor`s; only the functions differ.  Every function here is a
thin adapter over the PyTorch-named top level (the C ops), following the
standard where it differs from PyTorch: `axis=`/`keepdims=` instead of
`dim=`/`keepdim=`, `correction=` for std/var, tuple axes, `sort` returning
one array, `unique_*`, the standard's type promotion (Python scalars weak,
0-d arrays counting fully), `copy=` keywords and so on.  The top level
never changes for it; docs/differences.md lists where a Tensor's own
methods and operators keep PyTorch's meaning instead.
"""
import builtins as _b
import math as _math
from typing import NamedTuple as _NamedTuple

import numpy as _np

import tensorlib as _tl

from . import linalg  # noqa: F401  (the linalg extension)

__array_api_version__ = "2024.12"

#: The published versions this namespace answers for (all with the
#: 2024.12 functions: each later version only adds to the earlier ones).
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

# ---- constants and dtypes -------------------------------------------------

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

bool = _tl.bool  # noqa: A001 - the standard's name
int8 = _tl.int8
int16 = _tl.int16
int32 = _tl.int32
int64 = _tl.int64
uint8 = _tl.uint8
uint16 = _tl.uint16
uint32 = _tl.uint32
uint64 = _tl.uint64
float32 = _tl.float32
float64 = _tl.float64
complex64 = _tl.complex64
complex128 = _tl.complex128

_Tensor = _tl.Tensor
_CPU = _tl.device("cpu")

_SIGNED = (int8, int16, int32, int64)
_UNSIGNED = (uint8, uint16, uint32, uint64)
_INTEGRAL = _SIGNED + _UNSIGNED
# float16 and bfloat16 are extensions beyond the standard's dtypes: they
# count as real floating for isdtype but are not listed by dtypes().
_REAL_FLOATING = (float32, float64, _tl.float16, _tl.bfloat16)
_COMPLEX = (complex64, complex128)
# sum/prod of these dtypes keep them: the top level's own dtype rule.
_FAST_FLOATING = frozenset(_REAL_FLOATING + _COMPLEX)
_DEFAULT_FLOAT = float32
_DEFAULT_COMPLEX = complex64
_DEFAULT_INT = int64
_DEFAULT_UINT = uint64


def _is_tensor(x):
    return isinstance(x, _Tensor)


def _check_device(device, fn):
    """A device for the namespace's device= keywords (None: the default)."""
    if device is None:
        return None
    if isinstance(device, str):
        device = _tl.device(device)
    if not isinstance(device, _tl.device):
        raise TypeError(f"{fn}(): device must be a tensorlib.device or a "
                        f"string, not {type(device).__name__}")
    return device


# ---- the namespace info object --------------------------------------------

class _Info:
    """What `__array_namespace_info__()` returns: capabilities, devices and
    dtypes of this namespace."""

    __slots__ = ()

    def capabilities(self):
        """The optional features this namespace has."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        """The device arrays are created on when no device= is given."""
        return _CPU

    def devices(self):
        """Every device this process can create arrays on."""
        out = [_CPU]
        try:
            n = _tl.cuda.device_count() if _tl.cuda.is_available() else 0
        except RuntimeError:
            n = 0
        out.extend(_tl.device("cuda", i) for i in range(n))
        return out

    def default_dtypes(self, *, device=None):
        """The default dtype of each kind (the same on every device)."""
        _check_device(device, "default_dtypes")
        return {"real floating": _DEFAULT_FLOAT,
                "complex floating": _DEFAULT_COMPLEX,
                "integral": _DEFAULT_INT, "indexing": _DEFAULT_INT}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes of one kind (or of a tuple of kinds, or all
        of them when kind is None), as a dict name -> dtype."""
        _check_device(device, "dtypes")
        every = (bool,) + _INTEGRAL + (float32, float64) + _COMPLEX
        return {dt.name: dt for dt in every
                if kind is None or isdtype(dt, kind)}


_INFO = _Info()


def __array_namespace_info__():
    """The namespace's inspection object (capabilities, devices, dtypes)."""
    return _INFO


# ---- data type functions ----------------------------------------------------

def isdtype(dtype, kind):
    """Whether dtype is of kind: a dtype, one of the names 'bool', 'signed
    integer', 'unsigned integer', 'integral', 'real floating', 'complex
    floating', 'numeric', or a tuple of those (any matches)."""
    if not isinstance(dtype, _tl.dtype):
        raise TypeError(f"isdtype(): dtype must be a tensorlib.dtype, not "
                        f"{type(dtype).__name__}")
    if isinstance(kind, tuple):
        return _b.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _tl.dtype):
        return dtype == kind
    if not isinstance(kind, str):
        raise TypeError(f"isdtype(): kind must be a dtype, a str or a tuple, "
                        f"not {type(kind).__name__}")
    if kind == "bool":
        return dtype == bool
    if kind == "signed integer":
        return dtype in _SIGNED
    if kind == "unsigned integer":
        return dtype in _UNSIGNED
    if kind == "integral":
        return dtype in _INTEGRAL
    if kind == "real floating":
        return dtype in _REAL_FLOATING
    if kind == "complex floating":
        return dtype in _COMPLEX
    if kind == "numeric":
        return dtype in _INTEGRAL or dtype in _REAL_FLOATING or \
            dtype in _COMPLEX
    raise ValueError(f"isdtype(): unknown kind {kind!r}; expected 'bool', "
                     f"'signed integer', 'unsigned integer', 'integral', "
                     f"'real floating', 'complex floating' or 'numeric'")


def _kind_rank(dt):
    """0 bool, 1 integer, 2 real floating, 3 complex."""
    if dt == bool:
        return 0
    if dt in _INTEGRAL:
        return 1
    if dt in _COMPLEX:
        return 3
    return 2


def _complex_of(dt):
    return complex128 if dt == float64 else complex64


def _weak(dt, scalar):
    """The dtype of (an array of dtype dt) op (a Python scalar): the array's
    dtype when the scalar's kind fits it (the standard), else PyTorch's
    choice for the mixed kinds the standard leaves open."""
    if isinstance(scalar, _b.bool):
        return dt
    k = _kind_rank(dt)
    if isinstance(scalar, _b.int):
        return _DEFAULT_INT if k == 0 else dt
    if isinstance(scalar, _b.float):
        return _DEFAULT_FLOAT if k < 2 else dt
    if isinstance(scalar, _b.complex):
        if k == 3:
            return dt
        return _complex_of(dt) if k == 2 else _DEFAULT_COMPLEX
    raise TypeError(f"result_type(): expected arrays, dtypes or Python "
                    f"scalars, got {type(scalar).__name__}")


def result_type(*arrays_and_dtypes):
    """The dtype of an elementwise op on these operands by the standard's
    promotion rules: arrays (0-d ones included) and dtypes promote fully,
    Python scalars are weak (they take the arrays' dtype when their kind
    fits).  Pairs the standard leaves open (mixed kinds, uint64 with a
    signed integer) promote as tensorlib.promote_types does."""
    dts, scalars = [], []
    for a in arrays_and_dtypes:
        if _is_tensor(a):
            dts.append(a.dtype)
        elif isinstance(a, _tl.dtype):
            dts.append(a)
        elif isinstance(a, (_b.bool, _b.int, _b.float, _b.complex)):
            scalars.append(a)
        else:
            raise TypeError(f"result_type(): expected arrays, dtypes or "
                            f"Python scalars, got {type(a).__name__}")
    if not dts:
        raise ValueError("result_type(): at least one array or dtype is "
                         "required")
    dt = dts[0]
    for other in dts[1:]:
        if other != dt:
            dt = _tl.promote_types(dt, other)
    for s in scalars:
        dt = _weak(dt, s)
    return dt


def can_cast(from_, to, /):
    """Whether from_ (a dtype or an array) casts to `to` under the
    standard's rules: only to a dtype that from_ promotes to (bool to
    anything but not back, integers to wider integers and to floats, ...)."""
    if _is_tensor(from_):
        from_ = from_.dtype
    if not isinstance(from_, _tl.dtype) or not isinstance(to, _tl.dtype):
        raise TypeError("can_cast(): from_ must be a dtype or an array and "
                        "to a dtype")
    if from_ == to:
        return True
    kf, kt = _kind_rank(from_), _kind_rank(to)
    if kf > kt:
        return False
    if kf < kt:
        # bool -> anything; integers -> any floating (the standard leaves
        # mixed kinds open; NumPy's and PyTorch's can_cast allow them);
        # real floating -> complex of at least its precision.
        if kf == 2 and kt == 3:
            return not (from_ == float64 and to == complex64)
        return True
    return _tl.promote_types(from_, to) == to


class finfo_object(_NamedTuple):
    """Machine limits of a floating dtype (what finfo() returns)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: object


class iinfo_object(_NamedTuple):
    """Machine limits of an integer dtype (what iinfo() returns)."""

    bits: int
    max: int
    min: int
    dtype: object


# bits, mantissa bits (without the hidden one), max exponent
_FLOAT_LAYOUT = {"float16": (16, 10, 15), "bfloat16": (16, 7, 127),
                 "float32": (32, 23, 127), "float64": (64, 52, 1023)}


def finfo(type, /):  # noqa: A002 - the standard's parameter name
    """Machine limits of a floating dtype (of an array's dtype); a complex
    dtype answers for its real part."""
    dt = type.dtype if _is_tensor(type) else type
    if dt in _COMPLEX:
        dt = float64 if dt == complex128 else float32
    if dt not in _REAL_FLOATING:
        raise TypeError(f"finfo(): {dt} is not a floating dtype")
    bits, mant, emax = _FLOAT_LAYOUT[dt.name]
    fmax = (2.0 - 2.0 ** -mant) * 2.0 ** emax
    return finfo_object(bits, 2.0 ** -mant, fmax, -fmax,
                        2.0 ** (1 - emax), dt)


def iinfo(type, /):  # noqa: A002 - the standard's parameter name
    """Machine limits of an integer dtype (of an array's dtype)."""
    dt = type.dtype if _is_tensor(type) else type
    if dt not in _INTEGRAL:
        raise TypeError(f"iinfo(): {dt} is not an integer dtype")
    bits = dt.itemsize * 8
    if dt in _UNSIGNED:
        return iinfo_object(bits, 2 ** bits - 1, 0, dt)
    return iinfo_object(bits, 2 ** (bits - 1) - 1, -2 ** (bits - 1), dt)


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to dtype (and device): a new array unless copy=False and
    nothing changes (then x itself)."""
    device = _check_device(device, "astype")
    if not copy and x.dtype == dtype and (device is None or
                                          device == x.device):
        return x
    if device is None:
        return x.to(dtype, copy=True)
    return x.to(device, dtype=dtype, copy=True)


def broadcast_arrays(*arrays):
    """The arrays broadcast against each other (views), as a tuple."""
    return tuple(_tl.broadcast_tensors(*arrays))


def broadcast_to(x, /, shape):
    """x broadcast to shape (a view)."""
    return _tl.broadcast_to(x, tuple(shape))


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to, as a tuple."""
    return tuple(_tl.broadcast_shapes(*shapes))


# ---- promotion for the elementwise adapters ---------------------------------

def _scalar_tensor(s, like, fn):
    """A Python scalar operand as a 0-d tensor of the dtype the standard
    gives (scalar, array) (for calls whose first operand is the scalar)."""
    return _tl.tensor(s, dtype=_weak(like.dtype, s), device=like.device)


def _pair(x1, x2, fn):
    """(x1, x2) ready for the top-level op: tensors of the standard's common
    dtype where PyTorch would choose otherwise (a 0-d tensor of a higher
    dtype than the other operand's counts fully), a Python scalar left for
    the op (weak both ways)."""
    t1, t2 = _is_tensor(x1), _is_tensor(x2)
    if t1 and t2:
        d1, d2 = x1.dtype, x2.dtype
        if d1 != d2 and (x1.ndim == 0 or x2.ndim == 0):
            dt = _tl.promote_types(d1, d2)
            if d1 != dt:
                x1 = x1.to(dt)
            if d2 != dt:
                x2 = x2.to(dt)
        return x1, x2
    if t1:
        return x1, x2
    if t2:
        return _scalar_tensor(x1, x2, fn), x2
    raise TypeError(f"{fn}(): at least one argument must be an array, got "
                    f"{type(x1).__name__} and {type(x2).__name__}")


def _common(x1, x2, fn):
    """(x1, x2) as tensors of their result_type, for the ops (matmul,
    tensordot, vecdot, the linalg functions) that take one dtype only."""
    x1, x2 = _pair(x1, x2, fn)
    if not _is_tensor(x2):
        x2 = _scalar_tensor(x2, x1, fn)
    if x1.dtype != x2.dtype:
        dt = _tl.promote_types(x1.dtype, x2.dtype)
        x1, x2 = x1.to(dt), x2.to(dt)
    return x1, x2


def _make_unary(name, impl, doc):
    def f(x, /):
        return impl(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f.__module__ = __name__
    return f


def _via_numpy(npf, x):
    """npf computed by NumPy on the zero-copy view of a CPU tensor, as a
    tensor of NumPy's result (which keeps x's complex dtype)."""
    with _np.errstate(all="ignore"):
        out = npf(x.numpy())
    return _tl.from_numpy(_np.ascontiguousarray(out))


def _make_complex_unary(name, impl, npf, doc):
    """A unary function whose top-level op refuses complex tensors for now
    (docs/differences.md): complex inputs go to NumPy's C99 forms on the
    zero-copy view until the top level takes them, then to the top level
    (it is tried first)."""
    def f(x, /):
        if x.dtype in _COMPLEX:
            try:
                return impl(x)
            except TypeError:
                return _via_numpy(npf, x)
        return impl(x)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f.__module__ = __name__
    return f


def _make_binary(name, impl, doc):
    def f(x1, x2, /):
        x1, x2 = _pair(x1, x2, name)
        return impl(x1, x2)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    f.__module__ = __name__
    return f


# ---- elementwise functions --------------------------------------------------

abs = _make_unary("abs", _tl.abs, "|x| elementwise (complex: the modulus, "
                  "of the real dtype).")
acos = _make_complex_unary("acos", _tl.acos, _np.arccos,
                           "Inverse cosine elementwise.")
acosh = _make_complex_unary("acosh", _tl.acosh, _np.arccosh,
                            "Inverse hyperbolic cosine elementwise.")
asin = _make_complex_unary("asin", _tl.asin, _np.arcsin,
                           "Inverse sine elementwise.")
asinh = _make_complex_unary("asinh", _tl.asinh, _np.arcsinh,
                            "Inverse hyperbolic sine elementwise.")
atan = _make_complex_unary("atan", _tl.atan, _np.arctan,
                           "Inverse tangent elementwise.")
atanh = _make_complex_unary("atanh", _tl.atanh, _np.arctanh,
                            "Inverse hyperbolic tangent elementwise.")
bitwise_invert = _make_unary("bitwise_invert", _tl.bitwise_not,
                             "~x elementwise (bool: logical not).")
ceil = _make_unary("ceil", _tl.ceil, "Smallest integer >= x elementwise "
                   "(integer inputs returned as they are, same dtype).")
conj = _make_unary("conj", _tl.conj, "Complex conjugate elementwise (real "
                   "inputs: x itself).")
cos = _make_unary("cos", _tl.cos, "Cosine elementwise.")
cosh = _make_complex_unary("cosh", _tl.cosh, _np.cosh,
                           "Hyperbolic cosine elementwise.")
exp = _make_unary("exp", _tl.exp, "e**x elementwise.")
expm1 = _make_unary("expm1", _tl.expm1, "e**x - 1 elementwise, accurate "
                    "near 0.")
floor = _make_unary("floor", _tl.floor, "Largest integer <= x "
                    "elementwise (integer inputs: same dtype).")
isfinite = _make_unary("isfinite", _tl.isfinite,
                       "Whether x is finite, elementwise.")
isinf = _make_unary("isinf", _tl.isinf, "Whether x is +-infinity (complex: "
                    "either part), elementwise.")
isnan = _make_unary("isnan", _tl.isnan, "Whether x is NaN (complex: either "
                    "part), elementwise.")
log = _make_unary("log", _tl.log, "Natural logarithm elementwise.")
log1p = _make_unary("log1p", _tl.log1p, "log(1 + x) elementwise, accurate "
                    "near 0.")
log2 = _make_unary("log2", _tl.log2, "Base-2 logarithm elementwise.")
log10 = _make_unary("log10", _tl.log10, "Base-10 logarithm elementwise.")
logical_not = _make_unary("logical_not", _tl.logical_not,
                          "not x elementwise (bool result).")
negative = _make_unary("negative", _tl.neg, "-x elementwise.")
positive = _make_unary("positive", _tl.positive, "+x (x itself).")
reciprocal = _make_unary("reciprocal", _tl.reciprocal, "1 / x elementwise.")
signbit = _make_unary("signbit", _tl.signbit, "Whether the sign bit of x "
                      "is set (-0.0 and negative NaNs included).")
sin = _make_unary("sin", _tl.sin, "Sine elementwise.")
sinh = _make_complex_unary("sinh", _tl.sinh, _np.sinh,
                           "Hyperbolic sine elementwise.")
square = _make_unary("square", _tl.square, "x * x elementwise.")
sqrt = _make_unary("sqrt", _tl.sqrt, "Square root elementwise (principal "
                   "root for complex).")
tan = _make_unary("tan", _tl.tan, "Tangent elementwise.")
tanh = _make_unary("tanh", _tl.tanh, "Hyperbolic tangent elementwise.")
trunc = _make_unary("trunc", _tl.trunc, "x rounded toward zero "
                    "elementwise (integer inputs: same dtype).")


def real(x, /):
    """The real part of x (a real x: x itself)."""
    if x.dtype in _COMPLEX:
        return _tl.real(x)
    return x


def imag(x, /):
    """The imaginary part of x (a real x: zeros of its dtype)."""
    if x.dtype in _COMPLEX:
        return _tl.imag(x)
    return _tl.zeros_like(x)


def round(x, /):  # noqa: A001 - the standard's name
    """x rounded to the nearest integer, halves to even (complex: each
    part)."""
    if x.dtype in _COMPLEX:
        return _tl.complex(_tl.round(_tl.real(x)), _tl.round(_tl.imag(x)))
    return _tl.round(x)


def sign(x, /):
    """-1, 0 or 1 by the sign of x (NaN for NaN); complex: x / |x| (0 at
    0)."""
    if x.dtype in _COMPLEX:
        return _tl.sgn(x)
    return _tl.sign(x)


add = _make_binary("add", _tl.add, "x1 + x2 elementwise.")
atan2 = _make_binary("atan2", _tl.atan2, "The angle of the point (x2, x1) "
                     "elementwise, C99's atan2 special cases.")
bitwise_and = _make_binary("bitwise_and", _tl.bitwise_and,
                           "x1 & x2 elementwise.")
bitwise_left_shift = _make_binary("bitwise_left_shift",
                                  _tl.bitwise_left_shift,
                                  "x1 << x2 elementwise.")
bitwise_or = _make_binary("bitwise_or", _tl.bitwise_or,
                          "x1 | x2 elementwise.")
bitwise_right_shift = _make_binary("bitwise_right_shift",
                                   _tl.bitwise_right_shift,
                                   "x1 >> x2 elementwise (arithmetic for "
                                   "signed types).")
bitwise_xor = _make_binary("bitwise_xor", _tl.bitwise_xor,
                           "x1 ^ x2 elementwise.")
copysign = _make_binary("copysign", _tl.copysign, "|x1| with the sign of "
                        "x2, elementwise.")
divide = _make_binary("divide", _tl.div, "x1 / x2 elementwise (true "
                      "division: integers give the default float).")
equal = _make_binary("equal", _tl.eq, "x1 == x2 elementwise.")
floor_divide = _make_binary("floor_divide", _tl.floor_divide,
                            "floor(x1 / x2) elementwise.")
greater = _make_binary("greater", _tl.gt, "x1 > x2 elementwise.")
greater_equal = _make_binary("greater_equal", _tl.ge,
                             "x1 >= x2 elementwise.")
hypot = _make_binary("hypot", _tl.hypot, "sqrt(x1**2 + x2**2) without "
                     "overflow, elementwise.")
less = _make_binary("less", _tl.lt, "x1 < x2 elementwise.")
less_equal = _make_binary("less_equal", _tl.le, "x1 <= x2 elementwise.")
logaddexp = _make_binary("logaddexp", _tl.logaddexp,
                         "log(exp(x1) + exp(x2)) elementwise, without "
                         "overflow.")
logical_and = _make_binary("logical_and", _tl.logical_and,
                           "x1 and x2 elementwise (bool result).")
logical_or = _make_binary("logical_or", _tl.logical_or,
                          "x1 or x2 elementwise (bool result).")
logical_xor = _make_binary("logical_xor", _tl.logical_xor,
                           "x1 xor x2 elementwise (bool result).")
maximum = _make_binary("maximum", _tl.maximum, "The larger of x1 and x2 "
                       "elementwise (NaN if either is NaN).")
minimum = _make_binary("minimum", _tl.minimum, "The smaller of x1 and x2 "
                       "elementwise (NaN if either is NaN).")
multiply = _make_binary("multiply", _tl.mul, "x1 * x2 elementwise.")
nextafter = _make_binary("nextafter", _tl.nextafter, "The next "
                         "representable value after x1 toward x2.")
not_equal = _make_binary("not_equal", _tl.ne, "x1 != x2 elementwise.")
pow = _make_binary("pow", _tl.pow, "x1 ** x2 elementwise.")  # noqa: A001
remainder = _make_binary("remainder", _tl.remainder, "x1 - floor(x1 / x2) "
                         "* x2 elementwise (the sign of x2, as Python's %).")
subtract = _make_binary("subtract", _tl.sub, "x1 - x2 elementwise.")


def clip(x, /, min=None, max=None):  # noqa: A002 - the standard's names
    """x limited to [min, max] elementwise (either bound may be None, a
    scalar or an array broadcasting to x); the result has x's shape and
    dtype, and NaN in x or in a bound gives NaN."""
    if min is None and max is None:
        return _tl.clone(x)
    out = _tl.clip(x, min, max)
    if out.dtype != x.dtype:
        out = out.to(x.dtype)
    if tuple(out.shape) != tuple(x.shape):
        raise _tl.ShapeError(f"clip(): the bounds broadcast x of shape "
                             f"{list(x.shape)} to {list(out.shape)}")
    return out


# ---- creation functions -----------------------------------------------------

def _shape(shape):
    return (shape,) if isinstance(shape, _b.int) else tuple(shape)


def _kw(dtype, device, fn):
    device = _check_device(device, fn)
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    if device is not None:
        kw["device"] = device
    return kw


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop) (or [0, start)) with step;
    integers give the default integer dtype, any float the default float."""
    if stop is None:
        start, stop = 0, start
    kw = _kw(dtype, device, "arange")
    if step != 0 and (stop - start) * step <= 0:
        # an empty range (PyTorch refuses a step pointing away from stop)
        if dtype is None:
            ints = _b.all(isinstance(v, _b.int) for v in (start, stop, step))
            kw["dtype"] = _DEFAULT_INT if ints else _DEFAULT_FLOAT
        return _tl.empty((0,), **kw)
    return _tl.arange(start, stop, step, **kw)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """obj as an array: copy=None shares memory when it can, copy=True
    always copies, copy=False never does (ValueError when it must)."""
    return _tl.asarray(obj, dtype=dtype, device=_check_device(
        device, "asarray"), copy=copy)


def empty(shape, *, dtype=None, device=None):
    """An uninitialised array of shape."""
    return _tl.empty(_shape(shape), **_kw(dtype, device, "empty"))


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialised array of x's shape (and dtype and device unless
    given)."""
    return _tl.empty_like(x, **_kw(dtype, device, "empty_like"))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere."""
    m = n_rows if n_cols is None else n_cols
    out = _tl.zeros((n_rows, m), **_kw(dtype, device, "eye"))
    if -n_rows < k < m:
        _tl.diagonal(out, k).fill_(1)
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from a DLPack producer: its memory when copy is None or
    False (ValueError from the producer when copy=False cannot be honoured),
    a copy when copy=True; device= moves it (a copy)."""
    device = _check_device(device, "from_dlpack")
    if copy is None and device is None:
        return _tl.from_dlpack(x)
    want = None if device is None else (
        (1, 0) if device.type == "cpu" else None)
    try:
        kw = {"max_version": (1, 0)}
        if copy is not None:
            kw["copy"] = copy
        if want is not None:
            kw["dl_device"] = want
        cap = x.__dlpack__(**kw)
        out = _tl.from_dlpack(cap)
    except TypeError:
        # A producer without the 2023.12 keywords: import, then copy here.
        out = _tl.from_dlpack(x)
        if copy:
            out = _tl.clone(out)
    if device is not None and out.device != device:
        if copy is False:
            raise ValueError(f"from_dlpack(copy=False): the data is on "
                             f"{out.device}, moving it to {device} copies")
        out = out.to(device)
    return out


def full(shape, fill_value, *, dtype=None, device=None):
    """An array of shape filled with fill_value (dtype from the value when
    not given: bool, the default integer, float or complex dtype)."""
    return _tl.full(_shape(shape), fill_value, **_kw(dtype, device, "full"))


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """An array of x's shape filled with fill_value (x's dtype unless
    given)."""
    return _tl.full_like(x, fill_value, **_kw(dtype, device, "full_like"))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """num evenly spaced values from start to stop (stop left out when
    endpoint is False)."""
    kw = _kw(dtype, device, "linspace")
    if isinstance(start, _b.complex) or isinstance(stop, _b.complex) or (
            dtype is not None and dtype in _COMPLEX):
        dt = dtype if dtype is not None else _DEFAULT_COMPLEX
        start, stop = _b.complex(start), _b.complex(stop)
        kw.pop("dtype", None)
        rdt = float64 if dt == complex128 else float32
        re = linspace(start.real, stop.real, num, dtype=rdt,
                      endpoint=endpoint, device=device)
        im = linspace(start.imag, stop.imag, num, dtype=rdt,
                      endpoint=endpoint, device=device)
        return _tl.complex(re, im)
    if endpoint:
        return _tl.linspace(start, stop, num, **kw)
    if num == 0:
        return _tl.linspace(start, stop, 0, **kw)
    return _tl.linspace(start, stop, num + 1, **kw)[:num]


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays from 1-D arrays ('xy': Cartesian, 'ij': matrix
    indexing), as a tuple."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', not "
                         f"{indexing!r}")
    if not arrays:
        return ()
    return tuple(_tl.meshgrid(*arrays, indexing=indexing))


def ones(shape, *, dtype=None, device=None):
    """An array of shape filled with ones."""
    return _tl.ones(_shape(shape), **_kw(dtype, device, "ones"))


def ones_like(x, /, *, dtype=None, device=None):
    """Ones of x's shape (x's dtype unless given)."""
    return _tl.ones_like(x, **_kw(dtype, device, "ones_like"))


def tril(x, /, *, k=0):
    """x with the elements above the k-th diagonal zeroed (the last two
    dims)."""
    return _tl.tril(x, k)


def triu(x, /, *, k=0):
    """x with the elements below the k-th diagonal zeroed (the last two
    dims)."""
    return _tl.triu(x, k)


def zeros(shape, *, dtype=None, device=None):
    """An array of shape filled with zeros."""
    return _tl.zeros(_shape(shape), **_kw(dtype, device, "zeros"))


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros of x's shape (x's dtype unless given)."""
    return _tl.zeros_like(x, **_kw(dtype, device, "zeros_like"))


# ---- linear algebra (main namespace) ----------------------------------------

def matmul(x1, x2, /):
    """The matrix product (NumPy's matmul rules: 1-D operands promoted to
    matrices, batch dims broadcast)."""
    x1, x2 = _common(x1, x2, "matmul")
    return _tl.matmul(x1, x2)


def matrix_transpose(x, /):
    """x with its last two dims swapped (a view)."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose(): x must have at least 2 dims, "
                         f"got shape {list(x.shape)}")
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    """Contraction over the last `axes` dims of x1 and the first of x2, or
    over the pairs of dims given as two sequences."""
    x1, x2 = _common(x1, x2, "tensordot")
    return _tl.tensordot(x1, x2, dims=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """sum(conj(x1) * x2) over axis, the other dims broadcast."""
    x1, x2 = _common(x1, x2, "vecdot")
    return _tl.linalg.vecdot(x1, x2, dim=axis)


# ---- manipulation -----------------------------------------------------------

def concat(arrays, /, *, axis=0):
    """The arrays joined along axis (None: flattened first), promoted to
    their result_type."""
    arrays = list(arrays)
    dt = result_type(*arrays)
    arrays = [a if a.dtype == dt else a.to(dt) for a in arrays]
    if axis is None:
        return _tl.cat([_tl.reshape(a, (-1,)) for a in arrays], 0)
    return _tl.cat(arrays, axis)


def expand_dims(x, /, axis=0):
    """x with a new dim of size 1 at axis (in [-x.ndim - 1, x.ndim]); a
    tuple of axes (the next standard's form) inserts one dim at each
    position of the result."""
    if isinstance(axis, tuple):
        m = x.ndim + len(axis)
        pos = []
        for a in axis:
            if not -m <= a < m:
                raise IndexError(f"expand_dims(): axis {a} is out of range "
                                 f"for a result of {m} dims")
            pos.append(a + m if a < 0 else a)
        if len(set(pos)) != len(pos):
            raise ValueError(f"expand_dims(): repeated axis in {axis!r}")
        shape = iter(x.shape)
        return _tl.reshape(x, tuple(1 if i in pos else next(shape)
                                    for i in range(m)))
    n = x.ndim
    if not -n - 1 <= axis <= n:
        raise IndexError(f"expand_dims(): axis {axis} is out of range for "
                         f"an array of {n} dims (expected [-{n + 1}, {n}])")
    return _tl.unsqueeze(x, axis)


def flip(x, /, *, axis=None):
    """x reversed along axis (an int, a tuple, or every dim for None)."""
    if axis is None:
        axis = tuple(range(x.ndim))
    elif isinstance(axis, _b.int):
        axis = (axis,)
    return _tl.flip(x, tuple(axis))


def moveaxis(x, source, destination, /):
    """x with the dims at source moved to destination (a view)."""
    return _tl.moveaxis(x, source, destination)


def permute_dims(x, /, axes):
    """x with its dims permuted (a view)."""
    return _tl.permute(x, tuple(axes))


def repeat(x, repeats, /, *, axis=None):
    """Each element of x repeated (repeats: an int or an array broadcast
    along axis); axis None flattens x first."""
    return _tl.repeat_interleave(x, repeats, dim=axis)


def reshape(x, /, shape, *, copy=None):
    """x with a new shape: a view when possible (copy=None), always a copy
    (copy=True), or a view or ValueError (copy=False)."""
    shape = tuple(shape)
    if copy:
        return _tl.reshape(_tl.clone(x), shape)
    if copy is False:
        try:
            return x.view(shape)
        except _tl.ShapeError:
            _tl.reshape(x, shape)      # a bad shape raises its own error
            raise ValueError(f"reshape(copy=False): an array of shape "
                             f"{list(x.shape)} and strides {list(x.stride())} "
                             f"cannot be viewed as {list(shape)} without a "
                             f"copy") from None
    return _tl.reshape(x, shape)


def roll(x, /, shift, *, axis=None):
    """x rolled by shift along axis (None: over the flattened array)."""
    if axis is None:
        return _tl.roll(x, shift)
    return _tl.roll(x, shift, axis)


def squeeze(x, /, axis):
    """x without the size-1 dims at axis (ValueError when one has another
    size)."""
    axes = (axis,) if isinstance(axis, _b.int) else tuple(axis)
    n = x.ndim
    for a in axes:
        if not -n <= a < n:
            raise IndexError(f"squeeze(): axis {a} is out of range for an "
                             f"array of {n} dims")
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): dim {a} of shape {list(x.shape)} "
                             f"has size {x.shape[a]}, not 1")
    return _tl.squeeze(x, axes)


def stack(arrays, /, *, axis=0):
    """The arrays (one shape) joined along a new dim at axis."""
    arrays = list(arrays)
    dt = result_type(*arrays)
    return _tl.stack([a if a.dtype == dt else a.to(dt) for a in arrays],
                     axis)


def tile(x, repetitions, /):
    """x repeated repetitions[i] times along dim i."""
    return _tl.tile(x, tuple(repetitions))


def unstack(x, /, *, axis=0):
    """The slices of x along axis, as a tuple of views."""
    return tuple(_tl.unbind(x, axis))


# ---- indexing ---------------------------------------------------------------

def _wrap_indices(indices, n):
    """Negative indices counted from the end (the standard allows them)."""
    if indices.dtype == bool or indices.dtype not in _INTEGRAL:
        raise TypeError(f"take(): indices must have an integer dtype, not "
                        f"{indices.dtype}")
    if indices.dtype in _SIGNED and indices.numel() and \
            _tl.any(indices < 0).item():
        indices = _tl.where(indices < 0, indices + n, indices)
    return indices


def take(x, indices, /, *, axis=None):
    """The elements of x at indices (a 1-D integer array) along axis (may
    be left out for a 1-D x)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take(): axis is required for an array of "
                             f"{x.ndim} dims")
        axis = 0
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"take(): axis {axis} is out of range for an array "
                         f"of {x.ndim} dims")
    if indices.ndim != 1:
        raise ValueError(f"take(): indices must be 1-D, got shape "
                         f"{list(indices.shape)}")
    return _tl.index_select(x, axis, _wrap_indices(indices, x.shape[axis]))


def take_along_axis(x, indices, /, *, axis=-1):
    """The elements of x at indices along axis (indices has x's number of
    dims; the other dims broadcast)."""
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"take_along_axis(): axis {axis} is out of range "
                         f"for an array of {x.ndim} dims")
    return _tl.take_along_dim(x, _wrap_indices(indices, x.shape[axis]),
                              dim=axis)


# ---- searching --------------------------------------------------------------

def argmax(x, /, *, axis=None, keepdims=False):
    """The index of the first maximum (over the flattened x for None)."""
    return _tl.argmax(x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """The index of the first minimum (over the flattened x for None)."""
    return _tl.argmin(x, axis, keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """The number of non-zero elements over axis (default integer dtype)."""
    axes = _axes(x, axis)
    if not axes:
        out = (x != 0).to(_DEFAULT_INT)
        return out
    out = _tl.count_nonzero(x, axes if axis is not None else None)
    if keepdims:
        out = _keep(out, x.ndim, axes)
    return out


def nonzero(x, /):
    """The indices of the non-zero elements, one array per dim of x."""
    if x.ndim == 0:
        raise ValueError("nonzero(): a 0-d array has no dims to index; "
                         "reshape it to 1-D first")
    return tuple(_tl.nonzero(x, as_tuple=True))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Where x2's elements would be inserted into the 1-D sorted x1 to keep
    it sorted (side 'left': before equal elements, 'right': after)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', "
                         f"not {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted(): x1 must be 1-D, got shape "
                         f"{list(x1.shape)}")
    if not _is_tensor(x2):
        x2 = _scalar_tensor(x2, x1, "searchsorted")
    else:
        x1, x2 = _pair(x1, x2, "searchsorted")
    return _tl.searchsorted(x1, x2, side=side, sorter=sorter)


def where(condition, x1, x2, /):
    """x1 where condition is true, else x2 (broadcast; promoted to their
    result_type)."""
    if not _is_tensor(x1) and not _is_tensor(x2):
        raise TypeError("where(): x1 or x2 must be an array")
    x1, x2 = _pair(x1, x2, "where")
    return _tl.where(condition, x1, x2)


# ---- set functions ----------------------------------------------------------

class UniqueAllResult(_NamedTuple):
    """unique_all(): values, first indices, inverse indices, counts."""

    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(_NamedTuple):
    """unique_counts(): values and counts."""

    values: object
    counts: object


class UniqueInverseResult(_NamedTuple):
    """unique_inverse(): values and inverse indices (x's shape)."""

    values: object
    inverse_indices: object


def _unique(x, inverse, counts):
    flat = _tl.reshape(x, (-1,))
    return _tl.unique(flat, sorted=True, return_inverse=inverse,
                      return_counts=counts)


def unique_all(x, /):
    """The distinct values of x (sorted; every NaN distinct), the index of
    each one's first occurrence in the flattened x, the inverse indices
    (x's shape) and the counts."""
    values, inv, counts = _unique(x, True, True)
    n = inv.shape[0]
    first = _tl.full((values.shape[0],), n, dtype=_DEFAULT_INT,
                     device=x.device)
    if n:
        first = _tl.scatter_reduce(first, 0, inv, _tl.arange(
            n, dtype=_DEFAULT_INT, device=x.device), "amin")
    return UniqueAllResult(values, first, _tl.reshape(inv, tuple(x.shape)),
                           counts)


def unique_counts(x, /):
    """The distinct values of x (sorted; every NaN distinct) and how often
    each occurs."""
    values, counts = _unique(x, False, True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """The distinct values of x (sorted; every NaN distinct) and, for each
    element of x, the index of its value (x's shape)."""
    values, inv = _unique(x, True, False)
    return UniqueInverseResult(values, _tl.reshape(inv, tuple(x.shape)))


def unique_values(x, /):
    """The distinct values of x, sorted (every NaN distinct)."""
    return _unique(x, False, False)


def isin(x1, x2, /, *, invert=False):
    """Whether each element of x1 is in x2 (not in x2 with invert=True)."""
    if not _is_tensor(x1):
        x1 = _scalar_tensor(x1, x2, "isin")
    if not _is_tensor(x2):
        x2 = _scalar_tensor(x2, x1, "isin")
    return _tl.isin(x1, x2, invert=invert)


# ---- sorting ----------------------------------------------------------------

def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices that sort x along axis (stable by default: equal
    elements keep their order, also when descending)."""
    if x.ndim == 0:
        return _tl.zeros((), dtype=_DEFAULT_INT, device=x.device)
    return _tl.argsort(x, axis, descending, stable=stable)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """x sorted along axis (one array; stable by default)."""
    if x.ndim == 0:
        return _tl.clone(x)
    return _tl.sort(x, axis, descending, stable=stable).values


# ---- statistical ------------------------------------------------------------

def _axes(x, axis):
    """axis as a tuple of non-negative dims (None: every dim)."""
    n = x.ndim
    if axis is None:
        return tuple(range(n))
    axes = (axis,) if isinstance(axis, _b.int) else tuple(axis)
    out = []
    for a in axes:
        if not -n <= a < n and not (n == 0 and a in (0, -1)):
            raise IndexError(f"axis {a} is out of range for an array of "
                             f"{n} dims")
        a = a + n if a < 0 else a
        if a in out:
            raise ValueError(f"axis {a} appears twice in {axis!r}")
        out.append(a)
    return tuple(out)


def _keep(out, ndim, axes):
    """A reduction's result with the reduced dims put back as size 1."""
    shape = list(out.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return _tl.reshape(out, tuple(shape)) if ndim else out


def _reduce(fn, x, axis, keepdims, **kw):
    """fn(x, dim=..., keepdim=...) with the standard's axis conventions:
    None every dim, () none (the input itself, through fn's dtype rules)."""
    if x.ndim == 0:
        _axes(x, axis)
        return fn(x, **kw)
    axes = _axes(x, axis)
    if not axes:
        return None
    return fn(x, axes, keepdims, **kw)


def _sum_dtype(x, dtype):
    """The accumulation dtype of sum/prod/cumulative_*: dtype, or the
    default integer (unsigned integer for unsigned x) for narrower
    integers and bool."""
    if dtype is not None:
        return dtype
    dt = x.dtype
    if dt in _UNSIGNED:
        return _DEFAULT_UINT
    if dt == bool or dt in _SIGNED:
        return _DEFAULT_INT
    return dt


def _sumlike(fn, name, x, axis, dtype, keepdims):
    dt = _sum_dtype(x, dtype)
    acc = _DEFAULT_INT if dt == _DEFAULT_UINT and dtype is None else dt
    out = _reduce(fn, x, axis, keepdims, dtype=acc)
    if out is None:        # axis=(): no dims reduced
        out = x.to(acc, copy=True)
    if out.dtype != dt:
        out = out.to(dt)
    return out


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    """The sum over axis (None: all dims); integers and bool accumulate in
    the default (unsigned) integer dtype unless dtype is given."""
    if axis is None and dtype is None and not keepdims and \
            x.dtype in _FAST_FLOATING:
        return _tl.sum(x)          # the common case without the adapter
    return _sumlike(_tl.sum, "sum", x, axis, dtype, keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """The product over axis (None: all dims); integers and bool accumulate
    in the default (unsigned) integer dtype unless dtype is given."""
    if axis is None and dtype is None and not keepdims and \
            x.dtype in _FAST_FLOATING:
        return _tl.prod(x)
    return _sumlike(_tl.prod, "prod", x, axis, dtype, keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    """The arithmetic mean over axis (floating inputs)."""
    if axis is None and not keepdims:
        return _tl.mean(x)
    out = _reduce(_tl.mean, x, axis, keepdims)
    return _tl.clone(x) if out is None else out


def _minmax(fn, name, x, axis, keepdims):
    if axis is None and not keepdims and x.ndim:
        return fn(x)
    if x.ndim == 0:
        _axes(x, axis)
        return _tl.clone(x)
    axes = _axes(x, axis)
    if not axes:
        return _tl.clone(x)
    return fn(x, axes, keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The maximum over axis (one array; NaN propagates)."""
    return _minmax(_tl.amax, "max", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The minimum over axis (one array; NaN propagates)."""
    return _minmax(_tl.amin, "min", x, axis, keepdims)


def _stdvar(fn, x, axis, correction, keepdims):
    if x.ndim == 0:
        _axes(x, axis)
        return fn(x, correction=correction)
    axes = _axes(x, axis)
    if not axes:
        return fn(_tl.unsqueeze(x, -1), -1, False, correction=correction)
    return fn(x, axes, keepdim=keepdims, correction=correction)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The standard deviation over axis, dividing by N - correction
    (correction 0: the population value, 1: Bessel's correction)."""
    return _stdvar(_tl.std, x, axis, correction, keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """The variance over axis, dividing by N - correction."""
    return _stdvar(_tl.var, x, axis, correction, keepdims)


def _cumulative(fn, name, x, axis, dtype, include_initial, initial):
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}(): axis is required for an array of "
                             f"{x.ndim} dims")
        axis = 0
    if x.ndim == 0:
        x = _tl.reshape(x, (1,))
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"{name}(): axis {axis} is out of range for an "
                         f"array of {x.ndim} dims")
    dt = _sum_dtype(x, dtype)
    acc = _DEFAULT_INT if dt == _DEFAULT_UINT and dtype is None else dt
    out = fn(x, axis, dtype=acc)
    if out.dtype != dt:
        out = out.to(dt)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        first = _tl.full(tuple(shape), initial, dtype=dt, device=x.device)
        out = _tl.cat([first, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The running sum along axis (may be left out for a 1-D x), with a
    leading 0 when include_initial is True; dtype rules as sum()."""
    return _cumulative(_tl.cumsum, "cumulative_sum", x, axis, dtype,
                       include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The running product along axis, with a leading 1 when
    include_initial is True; dtype rules as prod()."""
    return _cumulative(_tl.cumprod, "cumulative_prod", x, axis, dtype,
                       include_initial, 1)


# ---- utility ----------------------------------------------------------------

def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Whether every element over axis is true (non-zero)."""
    out = _reduce(_tl.all, x, axis, keepdims)
    return (x != 0) if out is None else out


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """Whether any element over axis is true (non-zero)."""
    out = _reduce(_tl.any, x, axis, keepdims)
    return (x != 0) if out is None else out


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th forward difference along axis (prepend/append joined to x
    first)."""
    return _tl.diff(x, n, axis, prepend, append)


# ---- the Tensor side --------------------------------------------------------

def _array_namespace(self, /, *, api_version=None):
    """This module, the array API namespace for tensors (api_version: one of
    the published versions 2021.12 ... 2024.12, or None for 2024.12)."""
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"__array_namespace__(): unknown array API version "
                         f"{api_version!r}; this namespace implements "
                         f"{', '.join(SUPPORTED_VERSIONS)}")
    import sys
    return sys.modules[__name__]


def _to_device(self, device, /, *, stream=None):
    """The tensor on device (itself when it is there already)."""
    if stream is not None and not isinstance(stream, _b.int):
        raise TypeError(f"to_device(): stream must be None or an int, not "
                        f"{type(stream).__name__}")
    return self.to(_check_device(device, "to_device"))


def _install(tensor_type):
    """Give Tensor the standard's __array_namespace__ and to_device."""
    _array_namespace.__name__ = "__array_namespace__"
    _array_namespace.__qualname__ = "Tensor.__array_namespace__"
    _to_device.__name__ = "to_device"
    _to_device.__qualname__ = "Tensor.to_device"
    tensor_type.__array_namespace__ = _array_namespace
    tensor_type.to_device = _to_device
