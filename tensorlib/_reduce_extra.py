"""Comparison helpers and reductions of issue 18 that need no new kernel:
isclose, allclose, equal, nansum, nanmean, logsumexp, aminmax, var_mean
and std_mean, each composed from tensorlib's existing elementwise ops and
reductions (csrc/core/reduce.c's machinery: its dims, keepdim, dtype= and
out= rules, its deterministic accumulation) with PyTorch's signatures,
result dtypes and refusals.

Most live in Python: each is a handful of C-implemented ops, so the cost
over a fused C version is one temporary per step (documented in
docs/differences.md).  nansum, nanmean, logsumexp and (on the CPU) aminmax
check their arguments here and run one C kernel.
"""
from __future__ import annotations

import collections
from typing import Any, Optional

from . import _C

def _is_float(dt) -> bool:
    return dt.is_floating_point


def _is_complex(dt) -> bool:
    return dt.is_complex


def _check_tensor(x, name: str, arg: str):
    if not isinstance(x, _C.Tensor):
        raise TypeError("%s(): argument '%s' must be Tensor, not %s"
                        % (name, arg, type(x).__name__))


def _dims(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False):
    """isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)

    Elementwise |input - other| <= atol + rtol * |other|, broadcast, as a
    bool tensor; infinities are close only to themselves, NaN only to NaN
    with equal_nan.  input and other must have one dtype (PyTorch's
    rule); bool and integer tensors compare exactly beyond the tolerance
    (computed in float64)."""
    _check_tensor(input, "isclose", "input")
    _check_tensor(other, "isclose", "other")
    if input.dtype != other.dtype:
        raise TypeError("isclose(): %s did not match %s"
                        % (input.dtype, other.dtype))
    if rtol < 0:
        raise ValueError("rtol must be greater than or equal to zero, "
                         "but got %s" % (rtol,))
    if atol < 0:
        raise ValueError("atol must be greater than or equal to zero, "
                         "but got %s" % (atol,))
    if _is_complex(input.dtype) and equal_nan:
        raise TypeError("isclose with equal_nan=True is not supported for "
                        "complex inputs.")
    close = _C.eq(input, other)
    if input.dtype == _C.bool:
        return close
    a, b = input, other
    if not _is_float(a.dtype) and not _is_complex(a.dtype):
        a = a.to(_C.float64)
        b = b.to(_C.float64)
    if equal_nan:
        close = _C.logical_or(close, _C.logical_and(_C.isnan(a),
                                                    _C.isnan(b)))
    diff = _C.abs(_C.sub(a, b))
    allowed = _C.add(_C.mul(_C.abs(b), rtol), atol)
    within = _C.logical_and(_C.isfinite(diff), _C.le(diff, allowed))
    return _C.logical_or(close, within)


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)

    Whether isclose holds everywhere (a Python bool)."""
    return bool(_C.all(isclose(input, other, rtol, atol, equal_nan)))


def equal(input, other) -> bool:
    """equal(input, other)

    True when both have the same shape and the same values (NaN is never
    equal); operands of different dtypes are compared after promotion, as
    PyTorch does."""
    _check_tensor(input, "equal", "input")
    _check_tensor(other, "equal", "other")
    if tuple(input.shape) != tuple(other.shape):
        return False
    if input.numel() == 0:
        return True
    return bool(_C.all(_C.eq(input, other)))


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):
    """nansum(input, dim=None, keepdim=False, *, dtype=None, out=None)

    sum with NaN counted as zero; dtypes, dims and out= as sum.  Complex
    inputs are refused, as PyTorch.  One pass in C (tensorlib._C.nansum)."""
    _check_tensor(input, "nansum", "input")
    return _C.nansum(input, dim, keepdim, dtype=dtype, out=out)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None,
            out=None):
    """nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None)

    mean of the non-NaN elements (NaN where all are NaN); floating point
    only, as PyTorch.  One pass in C (tensorlib._C.nanmean)."""
    _check_tensor(input, "nanmean", "input")
    return _C.nanmean(input, dim, keepdim, dtype=dtype, out=out)


def _copy_out(res, out):
    if tuple(out.shape) != tuple(res.shape):
        if out.numel() != 0:
            raise _C.ShapeError(
                "out= has shape %s, but the result has shape %s"
                % (tuple(out.shape), tuple(res.shape)))
        out.resize_(res.shape)
    out.copy_(res)
    return out


def logsumexp(input, dim, keepdim: bool = False, *, out=None):
    """logsumexp(input, dim, keepdim=False, *, out=None)

    log(sum(exp(input))) over dim, computed stably as m + log(sum(exp(input
    - m))) with m the maximum (0 where it is infinite).  Integer and bool
    inputs give float32, as PyTorch; an empty reduction gives -inf."""
    _check_tensor(input, "logsumexp", "input")
    x = input
    if not _is_float(x.dtype) and not _is_complex(x.dtype):
        x = x.to(_C.float32)
    if _is_complex(x.dtype):
        raise TypeError("logsumexp(): complex inputs are not supported")
    dims = _dims(dim, x.ndim)
    if dims is not None and len(dims) == 0:
        dims = None
    if x.numel() == 0:
        res = _C.log(_C.sum(_C.exp(x), dims, keepdim))
    else:
        # the reduced dims (checked by a sum over a 0-element view, which
        # raises the core's errors) become one last dim, which the fused
        # kernel reduces: max + log(sum(exp(x - max))), two reads of x
        _C.sum(x.narrow(0, 0, 0) if x.ndim else x, dims, True)
        nd = max(x.ndim, 1)
        red = sorted({d % nd for d in dims}) if dims is not None \
            else list(range(nd))
        if x.ndim == 0:
            res = _C._logsumexp(x, 0)
        elif len(red) == 1:
            res = _C._logsumexp(x, red[0])
        else:
            keep = [d for d in range(nd) if d not in red]
            y = x.permute(keep + red).reshape(
                tuple(x.shape[d] for d in keep) + (-1,))
            res = _C._logsumexp(y, -1)
        if keepdim:
            res = res.reshape(tuple(1 if d in red else s
                                    for d, s in enumerate(x.shape)))
    if out is not None:
        return _copy_out(res, out)
    return res


def _squeeze_dims(t, dims, ndim):
    if ndim == 0:
        return t.reshape(())
    if dims is None:
        return t.reshape(())
    wrapped = sorted({d % ndim for d in dims})
    shape = [s for i, s in enumerate(t.shape) if i not in wrapped]
    return t.reshape(tuple(shape))


aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
aminmax_result.__module__ = "tensorlib.return_types"


def aminmax(input, *, dim: Optional[int] = None, keepdim: bool = False,
            out: Any = None):
    """aminmax(input, *, dim=None, keepdim=False, out=None)

    (min, max) of input over dim (an int, or None for all), NaN
    propagating; out= takes a (min, max) pair of tensors."""
    _check_tensor(input, "aminmax", "input")
    if dim is not None and not isinstance(dim, int):
        raise TypeError("aminmax(): argument 'dim' must be int, not %s"
                        % type(dim).__name__)
    if _is_complex(input.dtype):
        raise TypeError("aminmax(): %s is not supported" % (input.dtype,))
    if input.numel() == 0 and dim is None:
        raise _C.ShapeError("aminmax(): cannot compute aminmax over an "
                            "empty dimension as the operation has no "
                            "identity.")
    omin = omax = None
    if out is not None:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("aminmax(): out must be a (min, max) pair of "
                            "tensors")
        omin, omax = out
    if input.device.type == "cpu":
        # One read of the input (Note [Aminmax in one read]).
        lo, hi = _C._aminmax(input, dim, keepdim, min_out=omin,
                             max_out=omax)
    else:
        lo = _C.amin(input, dim, keepdim, out=omin)
        hi = _C.amax(input, dim, keepdim, out=omax)
    return aminmax_result(lo, hi)


def _var_args(name, unbiased, correction):
    if unbiased is not None and correction is not None:
        raise TypeError("%s(): pass unbiased or correction, not both"
                        % name)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return correction


def var_mean(input, dim=None, unbiased: Optional[bool] = None,
             keepdim: bool = False, *, correction=None):
    """var_mean(input, dim=None, unbiased=None, keepdim=False, *,
    correction=None)

    (var, mean) over dim in one call, as PyTorch; var's rules."""
    _check_tensor(input, "var_mean", "input")
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    c = _var_args("var_mean", unbiased, correction)
    v = _C.var(input, dim, keepdim=keepdim, correction=c)
    return v, _C.mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased: Optional[bool] = None,
             keepdim: bool = False, *, correction=None):
    """std_mean(input, dim=None, unbiased=None, keepdim=False, *,
    correction=None)

    (std, mean) over dim in one call, as PyTorch; std's rules."""
    _check_tensor(input, "std_mean", "input")
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    c = _var_args("std_mean", unbiased, correction)
    s = _C.std(input, dim, keepdim=keepdim, correction=c)
    return s, _C.mean(input, dim, keepdim)


def _install_methods():
    """Tensor methods for the functions PyTorch also has as methods."""
    for name, fn in (("isclose", isclose), ("allclose", allclose),
                     ("equal", equal), ("nansum", nansum),
                     ("nanmean", nanmean), ("logsumexp", logsumexp),
                     ("aminmax", aminmax)):
        if not hasattr(_C.Tensor, name):
            setattr(_C.Tensor, name, fn)
