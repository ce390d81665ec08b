"""NumPy's dispatch protocols for Tensor: __array_ufunc__ (NEP 13),
__array_function__ (NEP 18) and creation with like= (NEP 35).

A NumPy ufunc or function that tensorlib implements runs in tensorlib and
returns Tensors; the translation from NumPy's names and arguments
(axis/keepdims, np.absolute, np.true_divide, ...) to tensorlib's lives in
the tables below.  Functions are looked up by name on the tensorlib module
at call time, so an op that lands later is picked up without a change
here.  Anything else -- a ufunc or function tensorlib lacks, an argument
it does not take (where=, casting=, order=, ...), or an input tensorlib
refuses -- is computed by NumPy on zero-copy views of the tensors and
returns NumPy's result, exactly as a plain ndarray would."""
import numpy as _np

from . import _C

# ---- the name tables -------------------------------------------------------

# NumPy ufunc name -> tensorlib function name, where they differ.  A ufunc
# not listed is looked up under its own name (np.sin -> tensorlib.sin).
UFUNC_NAMES = {
    "absolute": "abs",
    "fabs": "abs",
    "true_divide": "div",
    "divide": "div",
    "power": "pow",
    "negative": "neg",
    "subtract": "sub",
    "multiply": "mul",
    "equal": "eq",
    "not_equal": "ne",
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
    "invert": "bitwise_not",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "bitwise_left_shift": "bitwise_left_shift",
    "bitwise_right_shift": "bitwise_right_shift",
    "bitwise_invert": "bitwise_not",
    "conjugate": "conj",
    "rint": "round",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "atan2": "atan2",
    "pow": "pow",
    "mod": "remainder",
}

# ufunc.reduce / ufunc.accumulate: NumPy ufunc name -> tensorlib reduction.
UFUNC_REDUCE = {
    "add": "sum",
    "multiply": "prod",
    "maximum": "amax",
    "minimum": "amin",
    "logical_and": "all",
    "logical_or": "any",
}
UFUNC_ACCUMULATE = {
    "add": "cumsum",
    "multiply": "cumprod",
}

# NumPy reductions (np.sum, np.max, ...) -> (tensorlib name, takes dtype=).
REDUCTIONS = {
    "sum": ("sum", True),
    "prod": ("prod", True),
    "mean": ("mean", True),
    "max": ("amax", False),
    "amax": ("amax", False),
    "min": ("amin", False),
    "amin": ("amin", False),
    "all": ("all", False),
    "any": ("any", False),
}


class _Fallback(Exception):
    """Raised by a translation that cannot express its call in tensorlib."""


def _tl(name):
    """The tensorlib function of that name, or _Fallback."""
    f = getattr(_C, name, None)
    if f is None:
        import tensorlib

        f = getattr(tensorlib, name, None)
    if f is None:
        raise _Fallback(name)
    return f


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def _to_numpy(x):
    """x with every tensor (also inside lists, tuples, dicts) replaced by
    its zero-copy NumPy view."""
    if _is_tensor(x):
        return _np.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return x


def _dim(axis):
    """NumPy's axis as tensorlib's dim (axis=() reduces nothing in NumPy
    but everything in PyTorch, so it falls back)."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        if len(axis) == 0:
            raise _Fallback("axis=()")
        return tuple(int(a) for a in axis)
    return int(axis)


def _with_out(f, args, kwargs, out):
    if out is None:
        return f(*args, **kwargs)
    if not _is_tensor(out):
        raise _Fallback("out")
    f(*args, out=out, **kwargs)
    return out


# ---- NEP 13: ufuncs ----------------------------------------------------------

_UFUNC_CALL_KW = {"out", "dtype"}


def _ufunc_call(ufunc, inputs, kwargs):
    if set(kwargs) - _UFUNC_CALL_KW:
        raise _Fallback("keyword")
    dtype = kwargs.get("dtype")
    if dtype is not None:
        if kwargs.get("out") is not None:
            raise _Fallback("dtype with out")
        # dtype= naming the dtype tensorlib computes in anyway (dask's
        # np.add(a, b, dtype=a.dtype)) changes nothing; any other falls
        # back to NumPy, which casts the inputs.
        res = _ufunc_call(ufunc, inputs,
                          {k: v for k, v in kwargs.items() if k != "dtype"})
        if _is_tensor(res) and _np.dtype(res.dtype) == _np.dtype(dtype):
            return res
        raise _Fallback("dtype")
    out = kwargs.get("out")
    if out is not None:
        if ufunc.nout != 1 or len(out) != 1 or not _is_tensor(out[0]):
            raise _Fallback("out")
        out = out[0]
    if ufunc.nout != 1:
        raise _Fallback("nout")
    f = _tl(UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__))
    return _with_out(f, inputs, {}, out)


def _ufunc_reduce(ufunc, inputs, kwargs):
    name = UFUNC_REDUCE.get(ufunc.__name__)
    if name is None or len(inputs) != 1:
        raise _Fallback("reduce")
    kw = dict(kwargs)
    axis = kw.pop("axis", 0)
    keepdims = kw.pop("keepdims", False)
    dtype = kw.pop("dtype", None)
    out = kw.pop("out", None)
    if kw:
        raise _Fallback("keyword")
    if out is not None:
        if len(out) != 1:
            raise _Fallback("out")
        out = out[0]
    call = {"dim": _dim(axis), "keepdim": bool(keepdims)}
    if dtype is not None:
        if name not in ("sum", "prod"):
            raise _Fallback("dtype")
        call["dtype"] = dtype
    return _with_out(_tl(name), inputs, call, out)


def _ufunc_accumulate(ufunc, inputs, kwargs):
    name = UFUNC_ACCUMULATE.get(ufunc.__name__)
    if name is None or len(inputs) != 1:
        raise _Fallback("accumulate")
    kw = dict(kwargs)
    axis = kw.pop("axis", 0)
    dtype = kw.pop("dtype", None)
    out = kw.pop("out", None)
    if kw or axis is None:
        raise _Fallback("keyword")
    if out is not None:
        if len(out) != 1:
            raise _Fallback("out")
        out = out[0]
    call = {"dim": int(axis)}
    if dtype is not None:
        call["dtype"] = dtype
    return _with_out(_tl(name), inputs, call, out)


_UFUNC_METHODS = {
    "__call__": _ufunc_call,
    "reduce": _ufunc_reduce,
    "accumulate": _ufunc_accumulate,
}


def _numpy_ufunc(ufunc, method, inputs, kwargs):
    """NumPy's own answer on zero-copy views; out= tensors are written in
    place and returned as themselves."""
    out = kwargs.get("out")
    np_kwargs = _to_numpy(kwargs)
    res = getattr(ufunc, method)(*_to_numpy(inputs), **np_kwargs)
    if out is not None and any(_is_tensor(o) for o in out):
        if method == "at":
            return res
        return out[0] if len(out) == 1 else tuple(out)
    return res


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """Tensor.__array_ufunc__ (NEP 13): tensorlib's op where it has one,
    NumPy's computation on zero-copy views otherwise."""
    handler = _UFUNC_METHODS.get(method)
    if handler is not None:
        try:
            return handler(ufunc, inputs, kwargs)
        except _Fallback:
            pass
        except (TypeError, ValueError, RuntimeError, IndexError):
            # tensorlib refuses these operands (a dtype it lacks, ...):
            # NumPy decides, raising its own error if it refuses too.
            pass
    for x in inputs + tuple(kwargs.get("out") or ()):
        if not (_is_tensor(x) or isinstance(x, _np.ndarray) or
                _np.isscalar(x) or isinstance(x, (list, tuple)) or
                x is None or isinstance(x, _np.generic)):
            if hasattr(type(x), "__array_ufunc__"):
                return NotImplemented
    return _numpy_ufunc(ufunc, method, inputs, kwargs)


# ---- NEP 18: functions ------------------------------------------------------

_NoValue = object()


def _reduction(np_name):
    tl_name, takes_dtype = REDUCTIONS[np_name]

    def impl(a, axis=None, dtype=None, out=None, keepdims=False,
             initial=_NoValue, where=_NoValue):
        if initial is not _NoValue or where is not _NoValue:
            raise _Fallback("initial/where")
        call = {"dim": _dim(axis), "keepdim": bool(keepdims)}
        if dtype is not None:
            if not takes_dtype:
                raise _Fallback("dtype")
            call["dtype"] = dtype
        return _with_out(_tl(tl_name), (a,), call, out)

    return impl


def _moment(tl_name):
    def impl(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
             where=_NoValue, mean=_NoValue, correction=_NoValue):
        if where is not _NoValue or mean is not _NoValue or dtype is not None:
            raise _Fallback("keyword")
        corr = ddof if correction is _NoValue else correction
        return _with_out(_tl(tl_name), (a,),
                         {"dim": _dim(axis), "keepdim": bool(keepdims),
                          "correction": corr}, out)

    return impl


def _arg_reduction(tl_name):
    def impl(a, axis=None, out=None, *, keepdims=False):
        return _with_out(_tl(tl_name), (a,),
                         {"dim": None if axis is None else int(axis),
                          "keepdim": bool(keepdims)}, out)

    return impl


def _where(condition, x=_NoValue, y=_NoValue):
    if x is _NoValue or y is _NoValue:
        raise _Fallback("where(condition)")
    return _tl("where")(condition, x, y)


def _concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    if axis is None or dtype is not None or casting is not None:
        raise _Fallback("keyword")
    try:
        f = _tl("concatenate")
    except _Fallback:
        f = _tl("cat")
    return _with_out(f, (list(arrays),), {"dim": int(axis)}, out)


def _stack(arrays, axis=0, out=None, *, dtype=None, casting=None):
    if dtype is not None or casting is not None:
        raise _Fallback("keyword")
    return _with_out(_tl("stack"), (list(arrays),), {"dim": int(axis)}, out)


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    # Sorted values do not depend on stability, so kind/stable are moot.
    if axis is None or order is not None:
        raise _Fallback("axis=None/order")
    r = _tl("sort")(a, dim=int(axis))
    return r[0] if isinstance(r, tuple) else r


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    if axis is None or order is not None:
        raise _Fallback("axis=None/order")
    kw = {"dim": int(axis)}
    if stable or kind == "stable":
        kw["stable"] = True
    return _tl("argsort")(a, **kw)


def _transpose(a, axes=None):
    if axes is None:
        axes = tuple(range(a.dim() - 1, -1, -1))
    return _tl("permute")(a, tuple(axes))


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    if order != "C" or copy is not None or shape is None:
        raise _Fallback("order/copy")
    return _tl("reshape")(a, tuple(shape) if isinstance(shape, (list, tuple))
                          else (int(shape),))


def _squeeze(a, axis=None):
    if axis is None:
        return _tl("squeeze")(a)
    return _tl("squeeze")(a, _dim(axis))


def _expand_dims(a, axis):
    if not isinstance(axis, int):
        raise _Fallback("tuple axis")
    return _tl("unsqueeze")(a, axis)


def _moveaxis(a, source, destination):
    return _tl("movedim")(a, source, destination)


def _swapaxes(a, axis1, axis2):
    return _tl("swapaxes")(a, axis1, axis2)


def _flip(m, axis=None):
    if axis is None:
        axis = tuple(range(m.dim()))
    elif isinstance(axis, int):
        axis = (axis,)
    return _tl("flip")(m, tuple(axis))


def _clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue,
          max=_NoValue, **kwargs):
    if kwargs:
        raise _Fallback("keyword")
    lo = a_min if min is _NoValue else min
    hi = a_max if max is _NoValue else max
    lo = None if lo is _NoValue else lo
    hi = None if hi is _NoValue else hi
    if _is_tensor(lo) or _is_tensor(hi) or isinstance(
            lo, _np.ndarray) or isinstance(hi, _np.ndarray):
        raise _Fallback("tensor bounds")
    return _with_out(_tl("clamp"), (a, lo, hi), {}, out)


def _broadcast_to(array, shape, subok=False):
    return _tl("broadcast_to")(array, tuple(shape) if isinstance(
        shape, (list, tuple)) else (int(shape),))


def _broadcast_arrays(*args, subok=False):
    return tuple(_tl("broadcast_tensors")(*args))


def _round(a, decimals=0, out=None):
    if decimals != 0:
        raise _Fallback("decimals")
    return _with_out(_tl("round"), (a,), {}, out)


def _ravel(a, order="C"):
    if order not in ("C", "K", "A"):
        raise _Fallback("order")
    return _tl("flatten")(a)


def _copy(a, order="K", subok=False):
    return _tl("clone")(a)


def _like(tl_name):
    def impl(prototype, dtype=None, order="K", subok=True, shape=None, *,
             device=None, fill_value=_NoValue):
        if device is not None and device != "cpu":
            raise _Fallback("device")
        if shape is not None:
            # NumPy's shape=: the prototype's kind of array (and dtype,
            # unless dtype= is given) in a new shape; dask makes its
            # chunks this way (np.ones_like(meta, shape=...)).
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            fill = () if fill_value is _NoValue else (fill_value,)
            return _tl(tl_name[:-len("_like")])(
                shape, *fill,
                dtype=prototype.dtype if dtype is None else dtype,
                device=prototype.device)
        args = (prototype,) if fill_value is _NoValue else (prototype,
                                                            fill_value)
        return _tl(tl_name)(*args, dtype=dtype)

    return impl


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None,
               *, device=None):
    return _like("full_like")(a, dtype, order, subok, shape, device=device,
                              fill_value=fill_value)


def _shares_memory(a, b, max_work=None):
    return _tl("shares_memory")(a, b)


def _may_share_memory(a, b, max_work=None):
    return _tl("may_share_memory")(a, b)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    return _tl("diagonal")(a, offset, axis1, axis2)


def _cumulative(tl_name):
    def impl(a, axis=None, dtype=None, out=None):
        if axis is None:
            raise _Fallback("axis=None")
        kw = {"dim": int(axis)}
        if dtype is not None:
            kw["dtype"] = dtype
        return _with_out(_tl(tl_name), (a,), kw, out)

    return impl


def _as_tensor(x):
    """An ndarray operand as a zero-copy tensor (tensorlib's functions take
    tensors); anything else as it is."""
    if isinstance(x, _np.ndarray):
        import tensorlib

        return tensorlib.asarray(x)
    return x


def _tl_linalg(name):
    """tensorlib.linalg's function of that name, or _Fallback."""
    import tensorlib

    f = getattr(getattr(tensorlib, "linalg", None), name, None)
    if f is None:
        raise _Fallback("linalg." + name)
    return f


def _plain(tl_name, np_params, renames=None, defaults=None, lookup=_tl,
           npos=1):
    """A translation for a NumPy function whose tensorlib twin (found by
    lookup(tl_name)) takes the same arguments, some renamed: np_params are
    NumPy's parameter names in order, the first npos passed positionally
    (all of them required), the rest by keyword; an argument renamed to
    None has no tensorlib twin and is dropped when it is defaults[name],
    else the call falls back."""
    renames = renames or {}
    defaults = defaults or {}

    def impl(*args, **kwargs):
        if len(args) > len(np_params) or not args:
            raise _Fallback("arguments")
        given = dict(zip(np_params, args))
        for k, v in kwargs.items():
            if k not in np_params or k in given:
                raise _Fallback(k)
            given[k] = v
        if any(k not in given for k in np_params[:npos]):
            raise _Fallback("arguments")
        call = {}
        for k in np_params[npos:]:
            if k not in given:
                continue
            v = given[k]
            to = renames.get(k, k)
            if to is None:
                if k in defaults and (v is defaults[k] or (
                        isinstance(v, (bool, int, str, type(None))) and
                        v == defaults[k])):
                    continue
                raise _Fallback(k)
            call[to] = v
        return lookup(tl_name)(*(_as_tensor(given[k])
                                 for k in np_params[:npos]), **call)

    return impl


def _tensordot(a, b, axes=2):
    if isinstance(axes, (list, tuple)):
        axes = [list(x) if isinstance(x, (list, tuple)) else [x]
                for x in axes]
    return _tl("tensordot")(a, b, dims=axes)


def _einsum(*operands, out=None, optimize=False, **kwargs):
    if kwargs or not operands or not isinstance(operands[0], str):
        raise _Fallback("einsum form")
    return _with_out(_tl("einsum"), (operands[0],) + tuple(operands[1:]), {},
                     out)


def _dot(a, b, out=None):
    # np.dot is matmul for 1-d and 2-d operands (N-d dot is not matmul).
    if not all(getattr(x, "ndim", _np.ndim(x)) in (1, 2) for x in (a, b)):
        raise _Fallback("dot of these ranks")
    return _with_out(_tl("matmul"), (a, b), {}, out)


def _diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    kw = {"n": n, "dim": axis}
    if prepend is not _NoValue:
        kw["prepend"] = prepend
    if append is not _NoValue:
        kw["append"] = append
    return _tl("diff")(a, **kw)


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if offset or axis1 != 0 or axis2 != 1 or dtype is not None or \
            out is not None or a.dim() != 2:
        raise _Fallback("trace form")
    return _tl("trace")(a)


def _nonzero(a):
    return tuple(_tl("nonzero")(a, as_tuple=True))


def _count_nonzero(a, axis=None, *, keepdims=False):
    if keepdims:
        raise _Fallback("keepdims")
    return _tl("count_nonzero")(a, dim=_dim(axis))


def _unique(ar, return_index=False, return_inverse=False,
            return_counts=False, axis=None, *, equal_nan=True, sorted=True):
    if return_index or return_inverse or return_counts or axis is not None \
            or not equal_nan or not sorted:
        raise _Fallback("unique form")
    r = _tl("unique")(ar)
    return r[0] if isinstance(r, tuple) else r


def _linalg(tl_name, np_params, renames=None, defaults=None, npos=1):
    return _plain(tl_name, np_params, renames, defaults, lookup=_tl_linalg,
                  npos=npos)


# NumPy function name (in module numpy) -> its tensorlib translation.
FUNCTIONS = {name: _reduction(name) for name in REDUCTIONS}
FUNCTIONS.update({
    "std": _moment("std"),
    "var": _moment("var"),
    "argmax": _arg_reduction("argmax"),
    "argmin": _arg_reduction("argmin"),
    "where": _where,
    "concatenate": _concatenate,
    "concat": _concatenate,
    "stack": _stack,
    "sort": _sort,
    "argsort": _argsort,
    "transpose": _transpose,
    "permute_dims": _transpose,
    "reshape": _reshape,
    "squeeze": _squeeze,
    "expand_dims": _expand_dims,
    "moveaxis": _moveaxis,
    "swapaxes": _swapaxes,
    "flip": _flip,
    "clip": _clip,
    "broadcast_to": _broadcast_to,
    "broadcast_arrays": _broadcast_arrays,
    "round": _round,
    "around": _round,
    "ravel": _ravel,
    "copy": _copy,
    "empty_like": _like("empty_like"),
    "zeros_like": _like("zeros_like"),
    "ones_like": _like("ones_like"),
    "full_like": _full_like,
    "shares_memory": _shares_memory,
    "may_share_memory": _may_share_memory,
    "diagonal": _diagonal,
    "cumsum": _cumulative("cumsum"),
    "cumprod": _cumulative("cumprod"),
    "tensordot": _tensordot,
    "einsum": _einsum,
    "dot": _dot,
    "diff": _diff,
    "trace": _trace,
    "nonzero": _nonzero,
    "count_nonzero": _count_nonzero,
    "unique": _unique,
    "outer": _plain("outer", ("a", "b", "out"), {"out": None},
                    {"out": None}, npos=2),
    "tril": _plain("tril", ("m", "k"), {"k": "diagonal"}),
    "triu": _plain("triu", ("m", "k"), {"k": "diagonal"}),
    "isclose": _plain("isclose", ("a", "b", "rtol", "atol", "equal_nan"),
                      npos=2),
    "allclose": _plain("allclose", ("a", "b", "rtol", "atol", "equal_nan"),
                       npos=2),
    "take_along_axis": _plain("take_along_dim", ("arr", "indices", "axis"),
                              npos=3),
    "searchsorted": _plain("searchsorted", ("a", "v", "side", "sorter"),
                           {"sorter": None}, {"sorter": None}, npos=2),
})

# numpy.linalg function name -> its translation to tensorlib.linalg
# (looked up at call time: the functions tensorlib.linalg has run there).
LINALG_FUNCTIONS = {
    "inv": _linalg("inv", ("a",)),
    "det": _linalg("det", ("a",)),
    "slogdet": _linalg("slogdet", ("a",)),
    "solve": _linalg("solve", ("a", "b"), npos=2),
    "cholesky": _linalg("cholesky", ("a", "upper")),
    "eigh": _linalg("eigh", ("a", "UPLO")),
    "eigvalsh": _linalg("eigvalsh", ("a", "UPLO")),
    "qr": _linalg("qr", ("a", "mode")),
    "svd": _linalg("svd", ("a", "full_matrices", "compute_uv", "hermitian"),
                   {"compute_uv": None, "hermitian": None},
                   {"compute_uv": True, "hermitian": False}),
    "svdvals": _linalg("svdvals", ("x",)),
    "matrix_power": _linalg("matrix_power", ("a", "n"), npos=2),
    "norm": _linalg("norm", ("x", "ord", "axis", "keepdims"),
                    {"axis": "dim", "keepdims": "keepdim"}),
    "matrix_norm": _linalg("matrix_norm", ("x", "keepdims", "ord"),
                           {"keepdims": "keepdim"}),
    "vector_norm": _linalg("vector_norm", ("x", "axis", "keepdims", "ord"),
                           {"axis": "dim", "keepdims": "keepdim"}),
    "cross": _linalg("cross", ("x1", "x2", "axis"), {"axis": "dim"},
                     npos=2),
    "matmul": _linalg("matmul", ("x1", "x2"), npos=2),
    "outer": _linalg("outer", ("x1", "x2"), npos=2),
}


# ---- NEP 35: creation with like= -------------------------------------------

def _np_default_dtype(dtype):
    # NumPy's creation functions default to float64; with like= they keep
    # NumPy's defaults (the caller wrote NumPy code).
    return _np.float64 if dtype is None else dtype


def _check_order(order):
    if order not in (None, "C", "K", "A"):
        raise _Fallback("order")


def _from_any(obj, dtype=None, copy=None):
    import tensorlib

    if _is_tensor(obj) or isinstance(obj, _np.ndarray):
        return tensorlib.asarray(obj, dtype=dtype, copy=copy)
    # NumPy infers the dtype (float64, int64 ...), then one zero-copy view.
    a = _np.asarray(obj, dtype=dtype)
    return tensorlib.asarray(a, copy=False if copy is None else copy)


def _asarray(a, dtype=None, order=None, *, device=None, copy=None):
    _check_order(order)
    if device is not None and str(device) != "cpu":
        raise _Fallback("device")
    return _from_any(a, dtype, copy)


def _array(object, dtype=None, *, copy=True, order="K", subok=False,
           ndmin=0, ndmax=0):
    _check_order(order)
    if ndmin or ndmax:
        raise _Fallback("ndmin")
    return _from_any(object, dtype, True if copy else None)


def _ascontiguousarray(a, dtype=None):
    t = _from_any(a, dtype)
    return t.contiguous() if t.dim() else t


def _creation(tl_name):
    def impl(shape, dtype=None, order="C", *, device=None):
        _check_order(order)
        if device is not None and str(device) != "cpu":
            raise _Fallback("device")
        shape = tuple(shape) if isinstance(shape, (list, tuple)) else (
            int(shape),)
        return _tl(tl_name)(shape, dtype=_np_default_dtype(dtype))

    return impl


def _full(shape, fill_value, dtype=None, order="C", *, device=None):
    _check_order(order)
    if device is not None and str(device) != "cpu":
        raise _Fallback("device")
    if dtype is None:
        dtype = _np.asarray(fill_value).dtype
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (
        int(shape),)
    return _tl("full")(shape, fill_value, dtype=dtype)


def _arange(start_or_stop, stop=None, step=None, dtype=None, *,
            device=None, **kwargs):
    if kwargs or (device is not None and str(device) != "cpu"):
        raise _Fallback("keyword")
    if stop is None:
        start, stop = 0, start_or_stop
    else:
        start = start_or_stop
    step = 1 if step is None else step
    if dtype is None:
        dtype = _np.result_type(start, stop, step)
    return _tl("arange")(start, stop, step, dtype=dtype)


def _identity(n, dtype=None):
    t = _tl("zeros")((n, n), dtype=_np_default_dtype(dtype))
    if n:
        _tl("diagonal")(t, 0, 0, 1).fill_(1)
    return t


LIKE_FUNCTIONS = {
    "asarray": _asarray,
    "asanyarray": _asarray,
    "array": _array,
    "ascontiguousarray": _ascontiguousarray,
    "empty": _creation("empty"),
    "zeros": _creation("zeros"),
    "ones": _creation("ones"),
    "full": _full,
    "arange": _arange,
    "identity": _identity,
}


def array_function(self, func, types, args, kwargs):
    """Tensor.__array_function__ (NEP 18/35): tensorlib's function where it
    has one, NumPy's computation on zero-copy views otherwise."""
    for t in types:
        if not (issubclass(t, _C.Tensor) or issubclass(t, _np.ndarray)):
            return NotImplemented
    name = getattr(func, "__name__", None)
    module = getattr(func, "__module__", None)
    kwargs = dict(kwargs)
    like = kwargs.pop("like", None)
    impl = None
    if module == "numpy.linalg":
        impl = LINALG_FUNCTIONS.get(name)
    elif module == "numpy":
        impl = FUNCTIONS.get(name)
        if impl is None and (like is not None or name in LIKE_FUNCTIONS):
            # like= is stripped by NumPy before it calls us; a creation
            # function only reaches us through like= (its arguments are
            # not dispatched on).
            impl = LIKE_FUNCTIONS.get(name)
    if impl is not None:
        try:
            return impl(*args, **kwargs)
        except _Fallback:
            pass
        except (TypeError, ValueError, RuntimeError, IndexError):
            pass
    out = kwargs.get("out")
    res = func(*_to_numpy(args), **_to_numpy(kwargs))
    if _is_tensor(out):
        return out
    return res


def _tensor_astype(self, dtype, order="K", casting="unsafe", subok=True,
                   copy=True):
    """astype(dtype, order='K', casting='unsafe', subok=True, copy=True)
    --

    NumPy's ndarray.astype: this tensor's values as dtype (a tensorlib or
    NumPy dtype), a new tensor unless copy=False and nothing changes.
    casting= refuses casts NumPy's rule of that name refuses (TypeError);
    order='C' gives a contiguous result, 'K' and 'A' keep the layout (as
    .to() does), 'F' is refused (ValueError); subok is accepted and
    ignored (there are no Tensor subclasses to keep)."""
    src = _np.dtype(self.dtype)
    dst = _np.dtype(dtype)
    if not isinstance(dtype, _C.dtype):
        dtype = dst  # "f8", np.float64, ... as the NumPy dtype
    if casting != "unsafe" and not _np.can_cast(src, dst, casting=casting):
        raise TypeError("astype(): cannot cast from {} to {} according to "
                        "the rule {!r}".format(src, dst, casting))
    if order not in ("K", "A", "C"):
        raise ValueError("astype(): order={!r} is not supported (tensorlib "
                         "keeps 'K', 'A' or 'C')".format(order))
    out = self.to(dtype=dtype, copy=bool(copy))
    if order == "C":
        out = out.contiguous()
    return out


def _tensor_dask_tokenize(self):
    """__dask_tokenize__(): dask's deterministic token for this tensor --
    its dtype, shape, device and a hash of its values (equal tensors
    share a token whatever their strides)."""
    import hashlib

    t = self.detach() if hasattr(self, "detach") else self
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.contiguous()
    h = hashlib.blake2b(digest_size=16)
    if t.numel():
        try:
            h.update(t)
        except (TypeError, ValueError, BufferError):
            # bfloat16 and float8 have no buffer format: float32 holds
            # their values exactly.
            h.update(t.to(_C.float32).contiguous())
    digest = h.hexdigest()
    return ("tensorlib.Tensor", str(self.dtype), tuple(self.shape),
            str(self.device), digest)


def install():
    """Attach the protocols to the extension's Tensor type."""
    T = _C.Tensor
    T.__array_ufunc__ = array_ufunc
    T.__array_function__ = array_function
    T.astype = _tensor_astype
    T.__dask_tokenize__ = _tensor_dask_tokenize
