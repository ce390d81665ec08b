"""Assertions for users' own test suites: ``tensorlib.testing.assert_close``
with PyTorch's semantics (``torch.testing.assert_close``) and messages.

The one deliberate difference: a tensor may be compared with a NumPy array,
a Python scalar or a (nested) sequence on the other side, which is first
made a tensor as ``tensorlib.asarray`` would (PyTorch refuses mixed types
with a TypeError); see docs/differences.md.
"""
from __future__ import annotations

import cmath
import collections.abc
import math
from typing import Any, Callable, Optional, Union

import numpy as np

import tensorlib as _tl

__all__ = ["assert_close"]

# PyTorch's default (rtol, atol) per dtype; every other dtype compares
# exactly (0, 0).
_DTYPE_PRECISIONS = {
    _tl.float16: (0.001, 1e-5),
    _tl.bfloat16: (0.016, 1e-5),
    _tl.float32: (1.3e-6, 1e-5),
    _tl.float64: (1e-7, 1e-7),
    _tl.complex64: (1.3e-6, 1e-5),
    _tl.complex128: (1e-7, 1e-7),
}

# The dtypes PyTorch gives Python numbers here (not the tensor() defaults).
_NUMBER_DTYPES = {bool: _tl.bool, int: _tl.int64, float: _tl.float64,
                  complex: _tl.complex128}


class _Failure(Exception):
    def __init__(self, exc: type, msg: str, item: tuple = ()):
        super().__init__(msg)
        self.exc = exc
        self.msg = msg
        self.item = item


def _tolerances(dtypes, rtol, atol, item):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError,
                       "Both 'rtol' and 'atol' must be either specified or "
                       "omitted, but got no %s."
                       % ("rtol" if rtol is None else "atol"), item)
    if rtol is not None:
        return rtol, atol
    rs, ats = zip(*(_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes))
    return max(rs), max(ats)


def _is_number(x) -> bool:
    return (isinstance(x, (bool, int, float, complex, np.number))
            and not isinstance(x, np.datetime64))


def _is_tensorlike(x) -> bool:
    return isinstance(x, (_tl.Tensor, np.ndarray))


def _is_sequence(x) -> bool:
    return (isinstance(x, collections.abc.Sequence)
            and not isinstance(x, (str, bytes)))


def _mismatch_msg(identifier: str, extra: Optional[str], abs_diff,
                  abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        if idx is None:
            m = "%s difference: %s" % (kind.title(), diff)
        else:
            m = "Greatest %s difference: %s at index %s" % (kind, diff, idx)
        if not equality:
            m += " (up to %s allowed)" % (tol,)
        return m + "\n"

    msg = "%s are not %s!\n\n" % (identifier,
                                  "equal" if equality else "close")
    if extra:
        msg += extra.strip() + "\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype,
                     item):
    a = actual.item() if isinstance(actual, np.number) else actual
    e = expected.item() if isinstance(expected, np.number) else expected
    if check_dtype and type(a) is not type(e):
        raise _Failure(AssertionError,
                       "The (d)types do not match: %s != %s."
                       % (type(a), type(e)), item)
    rtol, atol = _tolerances([_NUMBER_DTYPES[type(a)],
                              _NUMBER_DTYPES[type(e)]], rtol, atol, item)
    if a == e:
        return
    if equal_nan and cmath.isnan(a) and cmath.isnan(e):
        return
    diff = abs(a - e)
    if (cmath.isfinite(a) and cmath.isfinite(e)
            and diff <= atol + rtol * abs(e)):
        return
    rel = float("inf") if e == 0 else diff / abs(e)
    raise _Failure(AssertionError, _mismatch_msg(
        "Scalars", "Expected %s but got %s." % (e, a), diff, None, atol,
        rel, None, rtol), item)


def _as_tensor(x, like: Optional[_tl.Tensor]):
    if isinstance(x, _tl.Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _tl.asarray(x)
    if _is_number(x) and not isinstance(x, np.number):
        return _tl.tensor(x, dtype=_NUMBER_DTYPES[type(x)])
    return _tl.asarray(x)


def _values(t: _tl.Tensor) -> np.ndarray:
    """t's values as a NumPy array on the host (float16 and bfloat16
    widened to float32, exactly)."""
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == _tl.bfloat16:
        t = t.to(_tl.float32)
    return np.asarray(t.numpy())


def _isclose(a: np.ndarray, e: np.ndarray, rtol, atol, equal_nan):
    """torch.isclose on NumPy arrays of one dtype."""
    if a.dtype.kind in "biu" and rtol == 0 and atol == 0:
        return a == e
    if a.dtype.kind in "biu":
        a = a.astype(np.float64)
        e = e.astype(np.float64)
    with np.errstate(all="ignore"):
        close = a == e
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        diff = np.abs(a - e)
        close |= np.isfinite(diff) & (diff <= atol + rtol * np.abs(e))
    return close


def _unravel(flat: int, shape) -> tuple:
    if not shape:
        return ()
    idx = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        idx.append(mod)
    return tuple(reversed(idx))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype,
                     check_device, check_stride, item):
    a = _as_tensor(actual, None)
    e = _as_tensor(expected, a)

    def attr(name, x, y):
        raise _Failure(AssertionError,
                       "The values for attribute '%s' do not match: "
                       "%s != %s." % (name, x, y), item)

    if tuple(a.shape) != tuple(e.shape):
        attr("shape", a.shape, e.shape)
    if check_stride and a.stride() != e.stride():
        attr("stride()", a.stride(), e.stride())
    if check_device and a.device != e.device:
        attr("device", a.device, e.device)
    if check_dtype and a.dtype != e.dtype:
        attr("dtype", a.dtype, e.dtype)
    rtol, atol = _tolerances([a.dtype, e.dtype], rtol, atol, item)
    av, ev = _values(a), _values(e)
    if a.dtype != e.dtype:
        common = _tl.promote_types(a.dtype, e.dtype)
        dt = np.result_type(av.dtype, ev.dtype) if common == _tl.bfloat16 \
            else _values(_tl.empty(0, dtype=common)).dtype
        av, ev = av.astype(dt), ev.astype(dt)
    matches = _isclose(av, ev, rtol, atol, equal_nan)
    if matches.all():
        return
    if av.ndim == 0:
        raise _Failure(AssertionError, _scalar_msg(av, ev, rtol, atol), item)
    n = matches.size
    bad = n - int(matches.sum())
    extra = "Mismatched elements: %d / %d (%.1f%%)" % (bad, n,
                                                       100.0 * bad / n)
    af, ef, mf = av.ravel(), ev.ravel(), matches.ravel()
    if af.dtype.kind in "biu":
        af, ef = af.astype(np.int64), ef.astype(np.int64)
    with np.errstate(all="ignore"):
        absd = np.abs(af - ef)
        absd[mf] = 0
        reld = absd / np.abs(ef)
        reld[mf] = 0
    ia = _nanargmax(absd)
    ir = _nanargmax(reld)
    raise _Failure(AssertionError, _mismatch_msg(
        "Tensor-likes", extra, absd[ia].item(), _unravel(ia, av.shape), atol,
        reld[ir].item(), _unravel(ir, av.shape), rtol), item)


def _nanargmax(v: np.ndarray) -> int:
    """torch.max's index: the first NaN if there is one, else the first
    maximum."""
    if v.dtype.kind in "fc":
        nan = np.nonzero(np.isnan(v))[0]
        if len(nan):
            return int(nan[0])
    return int(np.argmax(v))


def _scalar_msg(av, ev, rtol, atol) -> str:
    a, e = av.item(), ev.item()
    diff = abs(a - e)
    rel = float("inf") if e == 0 else diff / abs(e)
    return _mismatch_msg("Scalars", "Expected %s but got %s." % (e, a),
                         diff, None, atol, rel, None, rtol)


def _compare(actual, expected, opts, item):
    if actual is None or expected is None:
        if actual is None and expected is None:
            return
        raise _Failure(AssertionError, "None mismatch: %s is not %s"
                       % (actual, expected), item)
    if _is_tensorlike(actual) or _is_tensorlike(expected):
        ok = (_is_tensorlike, _is_number, _is_sequence)
        if not (any(f(actual) for f in ok) and any(f(expected) for f in ok)):
            raise _Failure(TypeError, _no_pair(actual, expected), item)
        return _compare_tensors(actual, expected, *opts, item=item)
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        ka, ke = set(actual.keys()), set(expected.keys())
        if ka != ke:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                "Missing keys in the actual mapping: %s\n"
                "Additional keys in the actual mapping: %s"
                % (sorted(ke - ka), sorted(ka - ke)), item)
        try:
            keys = sorted(ka)
        except TypeError:
            keys = list(ka)
        for k in keys:
            _compare(actual[k], expected[k], opts, item + (k,))
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           "The length of the sequences mismatch: %d != %d"
                           % (len(actual), len(expected)), item)
        for i, (x, y) in enumerate(zip(actual, expected)):
            _compare(x, y, opts, item + (i,))
        return
    if _is_number(actual) and _is_number(expected):
        rtol, atol, equal_nan, check_dtype = opts[:4]
        return _compare_numbers(actual, expected, rtol, atol, equal_nan,
                                check_dtype, item)
    raise _Failure(TypeError, _no_pair(actual, expected), item)


def _no_pair(actual, expected) -> str:
    return ("No comparison pair was able to handle inputs of type %s and "
            "%s." % (type(actual), type(expected)))


def assert_close(actual: Any, expected: Any, *,
                 rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = False, check_dtype: bool = True,
                 check_device: bool = True, check_stride: bool = False,
                 msg: Union[str, Callable[[str], str], None] = None) -> None:
    """Asserts that actual and expected are close, as
    ``torch.testing.assert_close``.

    Tensors, NumPy arrays, Python and NumPy scalars, and (nested) sequences
    and mappings of them are accepted on either side.  Tensor-likes must
    have the same shape and, unless switched off, device and dtype (and,
    with ``check_stride=True``, strides); their values must satisfy
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with
    infinities equal and NaN equal to NaN only when ``equal_nan``.  The
    default ``rtol``/``atol`` are PyTorch's per dtype (float16 1e-3/1e-5,
    bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7,
    complex64 and complex128 as their floats, exact for the others); give
    both or neither.

    Raises AssertionError saying how many elements mismatch out of how
    many, the greatest absolute and relative differences and their
    indices, and which sequence item failed; ``msg`` (a string, or a
    callable taking the generated message) replaces the message.
    ValueError for a lone rtol or atol; TypeError for inputs that cannot
    be compared.
    """
    opts = (rtol, atol, equal_nan, check_dtype, check_device, check_stride)
    try:
        _compare(actual, expected, opts, ())
    except _Failure as f:
        text = f.msg
        if f.exc is AssertionError and msg is not None:
            text = msg(text) if callable(msg) else msg
        elif f.item:
            text += "\n\nThe failure occurred for item %s" % "".join(
                str([i]) for i in f.item)
        raise f.exc(text) from None
