"""Differential fuzzing of reductions, copies and casts (hypothesis).

Operands are random dtypes, random shapes (0..6 dims, sizes 0 and 1
included) and random views of them (slices with steps, negative steps,
flip, permute, expand, select, unsqueeze) holding NaN, inf and -0.0.  The
oracle is DESIGN.md's "Numeric semantics": result dtypes and which inputs
raise follow PyTorch (run on the same values), values follow NumPy computed
on the inputs cast to the result dtype; float sums are checked against a
long double reference with a pairwise-summation error bound.  On errors the
exception class follows DESIGN.md "Errors" and every operand (values and
`_version`) is unchanged."""
import contextlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import tensorlib as tl
from _ops_common import (COMPLEX, FLOATS, NAME, NP, TORCH_FULL, as_dtype,
                         broadcast_view, from_np, is_complex, is_float, is_int,
                         random_values, real_of, to_np, view_as)

DTYPES = TORCH_FULL      # the 12 dtypes PyTorch has kernels for
INTLIKE = [tl.bool] + [d for d in DTYPES if is_int(d)]
MAX_NUMEL = 360          # elements of a root tensor
BIG_NUMEL = 300_000      # elements of a root tensor in the big tests
# unit roundoff of each floating dtype, and of the dtype it accumulates in
EPS = {tl.float16: 2.0 ** -11, tl.bfloat16: 2.0 ** -8,
       tl.float32: 2.0 ** -24, tl.float64: 2.0 ** -53,
       tl.complex64: 2.0 ** -24, tl.complex128: 2.0 ** -53}
ACC = {tl.float16: 2.0 ** -24, tl.bfloat16: 2.0 ** -24,
       tl.float32: 2.0 ** -24, tl.float64: 2.0 ** -53,
       tl.complex64: 2.0 ** -24, tl.complex128: 2.0 ** -53}
# smallest normal number of each floating dtype
TINY = {tl.float16: 2.0 ** -14, tl.bfloat16: 2.0 ** -126,
        tl.float32: 2.0 ** -126, tl.float64: 2.0 ** -1022,
        tl.complex64: 2.0 ** -126, tl.complex128: 2.0 ** -1022}
HUGE = {tl.float16: 65504.0, tl.bfloat16: 3.38e38, tl.float32: 3.4e38,
        tl.float64: 1.79e308, tl.complex64: 3.4e38, tl.complex128: 1.79e308}
# Error classes tensorlib may raise for bad input (DESIGN.md "Errors").
SENSIBLE = (TypeError, ValueError, RuntimeError, IndexError, OverflowError,
            ZeroDivisionError)


def fp(d):
    return is_float(d) or is_complex(d)


def tdt(torch, d):
    return getattr(torch, NAME[d])


def to_torch(torch, x, d):
    """A contiguous torch tensor of dtype d holding x (tensorlib's stored
    values; bfloat16 as float32 bfloat16-exact numbers)."""
    x = np.array(x, copy=True, order="C")
    if d == tl.bfloat16:
        return torch.from_numpy(x.astype(np.float32)).to(torch.bfloat16)
    t = torch.from_numpy(x.copy())
    assert t.dtype == tdt(torch, d)
    return t


def same(a, b):
    """Exact equality of two NumPy arrays, NaN == NaN, -0.0 == 0.0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        with np.errstate(invalid="ignore"):
            a = a.astype(np.complex128) if a.dtype.kind == "c" or \
                b.dtype.kind == "c" else a.astype(np.float64)
            b = b.astype(a.dtype)
            eq = (a == b)
            if a.dtype.kind == "c":
                eq |= ((np.isnan(a.real) | np.isnan(a.imag)) &
                       (np.isnan(b.real) | np.isnan(b.imag)))
            else:
                eq |= np.isnan(a) & np.isnan(b)
        return bool(eq.all())
    return bool(np.array_equal(a, b))


def snapshot(*ts):
    return [(t, to_np(t), t._version) for t in ts]


def assert_unchanged(snap, what):
    for t, vals, ver in snap:
        assert t._version == ver, (what, "version changed", ver, t._version)
        assert same(to_np(t), vals), (what, "values changed")


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


# ---- operands ---------------------------------------------------------------


SMALL_SIZES = [0, 1, 1, 2, 2, 3, 3, 4, 5, 7]
# sizes around the kernels' thresholds: lanes (8, 16), SUM_LEAF (64), the
# copy tiles (64, tiled from 128), CAST_CHUNK (256), the reduction tile
# (512), RCHUNK (32768)
BIG_SIZES = [1, 2, 3, 7, 9, 17, 63, 65, 129, 200, 255, 257, 511, 513, 1025,
             32769, 70001]


@st.composite
def root_shapes(draw, max_ndim=6, min_ndim=0, big=False):
    ndim = draw(st.integers(min_ndim, max_ndim))
    shape = draw(st.lists(st.sampled_from(BIG_SIZES if big else
                                          SMALL_SIZES),
                          min_size=ndim, max_size=ndim))
    if not big and 0 not in shape and draw(st.integers(0, 9)) == 0 and ndim:
        shape[draw(st.integers(0, ndim - 1))] = draw(
            st.sampled_from([17, 40, 130]))
    limit = BIG_NUMEL if big else MAX_NUMEL
    while math.prod(shape) > limit:
        i = int(np.argmax(shape))
        shape[i] = max(1, shape[i] // 2)
    return tuple(shape)


def sprinkle(x, d, rng, frac):
    """NaN, inf, -inf, 0.0 and -0.0 at random places of a float or complex
    array (of stored values)."""
    if not fp(d) or x.size == 0 or frac == 0:
        return x
    x = x.copy()
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    mask = rng.random(x.shape) < frac
    vals = specials[rng.integers(0, len(specials), x.shape)]
    if is_complex(d):
        part = rng.random(x.shape) < 0.5
        re = np.where(mask & part, vals, x.real)
        im = np.where(mask & ~part, vals, x.imag)
        x = np.empty_like(x)   # not re + 1j * im: 1j * inf has a NaN
        x.real, x.imag = re, im
    else:
        x[mask] = vals[mask]
    return x


class Operand:
    """A tensorlib view `t`, its root `root`, the root's NumPy values
    `root_x` and the view's NumPy values `x` (a NumPy view of `root_x`
    made by the same steps, read-only where an expand was used).  `ops`
    replays the steps on another array."""

    def __init__(self, t, x, root, root_x, ops, d):
        self.t, self.x, self.root, self.root_x = t, x, root, root_x
        self.ops, self.d = ops, d

    def replay(self, a):
        for op in self.ops:
            a = apply_np(a, op)
        return a

    def __repr__(self):
        return (f"Operand({NAME[self.d]}, root {tuple(self.root.shape)}, "
                f"ops {self.ops}, view {tuple(self.t.shape)} strides "
                f"{self.t.stride()} offset {self.t.storage_offset()})")


def apply_tl(t, op):
    kind = op[0]
    if kind == "index":
        return t[op[1]]
    if kind == "flip":
        return t.flip(op[1])
    if kind == "permute":
        return t.permute(op[1])
    if kind == "transpose":
        return t.transpose(*op[1])
    if kind == "unsqueeze":
        return t.unsqueeze(op[1])
    if kind == "expand":
        return t.expand(*op[1])
    raise AssertionError(op)


def apply_np(a, op):
    kind = op[0]
    if kind == "index":   # the Ellipsis keeps a 0-d result a view
        return a[op[1] + (Ellipsis,)]
    if kind == "flip":
        return np.flip(a, op[1])
    if kind == "permute":
        return np.transpose(a, op[1])
    if kind == "transpose":
        return np.swapaxes(a, *op[1])
    if kind == "unsqueeze":
        return np.expand_dims(a, op[1])
    if kind == "expand":   # a writable stride-0 view
        shape = op[1]
        strides = [0 if s != a.shape[i] else a.strides[i]
                   for i, s in enumerate(shape)]
        return np.lib.stride_tricks.as_strided(a, shape, strides)
    raise AssertionError(op)


@st.composite
def view_ops(draw, shape, max_ops=3, allow_expand=True, max_ndim=6,
             max_numel=4 * MAX_NUMEL):
    """Up to max_ops view steps for an array of `shape`."""
    ops = []
    shape = list(shape)
    for _ in range(draw(st.integers(0, max_ops))):
        n = len(shape)
        kinds = ["unsqueeze"] if n < max_ndim else []
        if n:
            kinds += ["slice", "slice", "flip", "permute", "transpose",
                      "select"]
        if any(s >= 2 for s in shape):
            # one element cut from a flipped dim: a negative stride on a
            # size-1 dim, which output layouts copied from an input must
            # not keep (t.flip(0)[1:].permute(2, 0, 1) once broke them).
            kinds += ["flip_narrow"]
        if allow_expand and (1 in shape or n < max_ndim):
            kinds += ["expand", "expand"]
        if not kinds:
            break
        kind = draw(st.sampled_from(kinds))
        if kind == "slice":
            k = draw(st.integers(0, n - 1))
            size = shape[k]
            step = draw(st.sampled_from([1, 2, 3, -1, -2, -3]))
            start = draw(st.none() | st.integers(-size - 1, size + 1))
            stop = draw(st.none() | st.integers(-size - 1, size + 1))
            s = slice(start, stop, step)
            idx = (slice(None),) * k + (s,)
            ops.append(("index", idx))
            shape[k] = len(range(*s.indices(size)))
        elif kind == "flip_narrow":
            k = draw(st.sampled_from([i for i, s in enumerate(shape)
                                      if s >= 2]))
            i = draw(st.integers(0, shape[k] - 1))
            ops.append(("flip", (k,)))
            ops.append(("index", (slice(None),) * k + (slice(i, i + 1),)))
            shape[k] = 1
        elif kind == "select":
            k = draw(st.integers(0, n - 1))
            if shape[k] == 0:
                continue
            i = draw(st.integers(-shape[k], shape[k] - 1))
            ops.append(("index", (slice(None),) * k + (i,)))
            del shape[k]
        elif kind == "flip":
            dims = draw(st.lists(st.integers(0, n - 1), min_size=1,
                                 max_size=n, unique=True))
            dims = tuple(d - n if draw(st.booleans()) else d for d in dims)
            ops.append(("flip", dims))
        elif kind == "permute":
            perm = tuple(draw(st.permutations(range(n))))
            ops.append(("permute", perm))
            shape = [shape[p] for p in perm]
        elif kind == "transpose":
            a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            ops.append(("transpose", (a, b)))
            shape[a], shape[b] = shape[b], shape[a]
        elif kind == "unsqueeze":
            p = draw(st.integers(0, n))
            ops.append(("unsqueeze", p))
            shape.insert(p, 1)
        elif kind == "expand":
            new = list(shape)
            if n < max_ndim and (1 not in shape or draw(st.booleans())):
                p = draw(st.integers(0, n))
                ops.append(("unsqueeze", p))
                new.insert(p, 1)
                shape.insert(p, 1)
            ones = [i for i, s in enumerate(new) if s == 1]
            for i in ones:
                if draw(st.booleans()):
                    new[i] = draw(st.sampled_from([0, 2, 3]))
            if math.prod(new) > max_numel:
                continue
            ops.append(("expand", tuple(new)))
            shape = new
    return ops


@st.composite
def operands(draw, dtypes=DTYPES, d=None, max_ndim=6, min_ndim=0,
             allow_expand=True, kind=None, special=None, max_ops=3,
             big=False):
    d = d if d is not None else draw(st.sampled_from(dtypes))
    shape = draw(root_shapes(max_ndim=max_ndim, min_ndim=min_ndim, big=big))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    kind = kind or draw(st.sampled_from(["normal", "normal", "small"]))
    if kind == "near1":   # long products that stay in range
        kind = "normal" if fp(d) else "small"
        vals = random_values(shape, d, rng, kind)
        if fp(d):
            vals = as_dtype(1 + vals.astype(np.complex128 if is_complex(d)
                                            else np.float64) / 2 ** 14, d)
    else:
        vals = random_values(shape, d, rng, kind)
    if special is None:
        special = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
    vals = sprinkle(vals, d, rng, special)
    root = from_np(vals, d)
    root_x = to_np(root)
    ops = draw(view_ops(shape, max_ops=max_ops, allow_expand=allow_expand,
                        max_ndim=max_ndim, max_numel=(
                            2 * BIG_NUMEL if big else 4 * MAX_NUMEL)))
    t, x = root, root_x
    for op in ops:
        t, x = apply_tl(t, op), apply_np(x, op)
    op = Operand(t, x, root, root_x, ops, d)
    assert tuple(t.shape) == x.shape, op
    assert same(to_np(t), x), ("view values", op)
    return op


# ---- reductions: the oracle -------------------------------------------------

ALL_OPS = ["sum", "prod", "mean", "amax", "amin", "max", "min", "argmax",
           "argmin", "any", "all", "var", "std"]


@st.composite
def dim_args(draw, ndim, op):
    """A dim argument: None, an int (sometimes out of range), a tuple
    (sometimes () or with a repeated dim)."""
    n = max(ndim, 1)
    choices = ["none", "int", "int", "tuple", "empty", "bad_int"]
    if op in ("max", "min"):
        choices = ["none", "int", "int", "int", "bad_int"]
    c = draw(st.sampled_from(choices))
    if c == "none":
        return None
    if c == "int":
        return draw(st.integers(-n, n - 1))
    if c == "bad_int":
        return draw(st.sampled_from([n, -n - 1, n + 3]))
    if c == "empty":
        return ()
    dims = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n,
                         unique=True))
    dims = [d - n if draw(st.booleans()) else d for d in dims]
    if draw(st.integers(0, 7)) == 0:
        dims.append(dims[0] - n if dims[0] >= 0 else dims[0] + n)
    return tuple(dims)


def reduced_axes(op, dim, ndim):
    """The axes `op(dim=dim)` reduces, as a sorted tuple (PyTorch's meaning:
    dim=() reduces everything, except for any/all where it reduces
    nothing), or None when dim is invalid."""
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, tuple) else (dim,)
    if dim == () and op in ("any", "all"):
        return ()
    if dim == ():
        return tuple(range(ndim))
    n = max(ndim, 1)
    if any(not -n <= d < n for d in dims):
        return None
    norm = [d % n for d in dims]
    if len(set(norm)) != len(norm):
        return None
    return tuple(sorted(norm)) if ndim else ()


def result_shape(shape, axes, keepdim):
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def result_dtype(op, d, dtype):
    if op in ("sum", "prod"):
        if dtype is not None:
            return dtype
        return tl.int64 if d in INTLIKE else d
    if op == "mean":
        return dtype if dtype is not None else d
    if op in ("argmax", "argmin"):
        return tl.int64
    if op in ("any", "all"):
        return tl.uint8 if d == tl.uint8 else tl.bool
    if op in ("var", "std"):
        return real_of(d)
    return d


def call(mod_or_t, op, dim, keepdim, dtype, correction, out=None):
    """op on a tensor (tensorlib or torch) with only the arguments given."""
    kw = {}
    if dim is not None:
        kw["dim"] = dim
    if keepdim is not None:
        kw["keepdim"] = keepdim
    if dtype is not None:
        kw["dtype"] = dtype
    if correction is not None:
        kw["correction"] = correction
    if out is not None:
        kw["out"] = out
    return getattr(mod_or_t, op)(**kw)


def torch_call(torch, tt, op, dim, keepdim, dtype, correction):
    """The same call on torch; max/min/prod without dim take no keepdim."""
    if dim is None and op in ("max", "min", "prod"):
        keepdim = None
    tdtype = None if dtype is None else tdt(torch, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(tt, op, dim, keepdim, tdtype, correction)


def expected_error_class(msg, texc):
    """The exception class tensorlib owes for a PyTorch error (DESIGN.md
    "Errors", docs/differences.md "Error classes")."""
    low = msg.lower()
    if isinstance(texc, NotImplementedError) or "not implemented for" in low \
            or "dtype" in low or "support" in low or "complex" in low:
        return TypeError
    if "out of range" in low and isinstance(texc, IndexError):
        return IndexError
    if "multiple times" in low or "non-zero size" in low or "numel" in low \
            or "empty" in low or "reduction dim" in low:
        return tl.ShapeError
    return RuntimeError


def wide_ld(x):
    return x.astype(np.clongdouble if x.dtype.kind == "c" else np.longdouble)


def as_result(v, rt):
    """A long double reference rounded to the result dtype (overflow gives
    inf), as a float64 / complex128 array of rt-exact values."""
    v = np.asarray(v)
    with np.errstate(all="ignore"):
        if is_complex(rt):
            return v.astype(NP[rt]).astype(np.complex128)
        if rt == tl.bfloat16:
            return as_dtype(v.astype(np.float64), tl.bfloat16).astype(
                np.float64)
        return v.astype(NP[rt]).astype(np.float64)


def assert_close(got, ref, tol, rt, what):
    """got (result-dtype values) against a long double reference ref:
    non-finite references must be met exactly (component-wise for
    complex), finite ones within tol or equal to ref rounded to rt."""
    got = np.asarray(got)
    ref = np.asarray(ref)
    tol = np.broadcast_to(np.asarray(tol), ref.shape)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    rounded = as_result(ref, rt)
    parts = [("re", np.real), ("im", np.imag)] if is_complex(rt) else \
        [("", lambda a: a)]
    for pname, part in parts:
        g = part(got).astype(np.float64)
        r = part(ref).astype(np.longdouble)
        rr = part(rounded).astype(np.float64)
        # a complex tol holds each component's own tolerance
        t = (part(tol) if np.iscomplexobj(tol) else tol).astype(np.float64)
        with np.errstate(all="ignore"):
            fin = np.isfinite(r) & (np.abs(r) <= HUGE[rt])
            ok = np.where(
                fin, (np.abs(g.astype(np.longdouble) - r) <= t) |
                (g == rr),
                (g == rr) | (np.isnan(g) & np.isnan(rr)))
        if not ok.all():
            bad = np.argwhere(~ok)[:4]
            raise AssertionError(
                f"{what}{pname}: mismatch at {bad.tolist()}: got "
                f"{[g[tuple(i)] for i in bad]} want "
                f"{[float(r[tuple(i)]) for i in bad]} tol "
                f"{[float(t[tuple(i)]) for i in bad]}")


def div_n(v, n):
    """v / n for a count n, component-wise for complex v (NumPy divides by
    n + 0j, which turns inf + 1j into inf + nanj); NaN where n is 0."""
    v = np.array(v)
    if n == 0:
        return v * np.nan
    if v.dtype.kind == "c":
        out = np.empty_like(v)
        out.real = v.real / n
        out.imag = v.imag / n
        return out
    return v / n


def reference(op, x, d, rt, axes, keepdim, correction):
    """(reference values, tolerance or None for exact, skip mask) for op
    over `axes` of NumPy values x (of dtype d), the inputs first cast to
    the result dtype rt where the op has one."""
    shape = x.shape
    n = math.prod(shape[a] for a in axes) if axes else 1
    ax = axes
    kd = dict(axis=ax, keepdims=keepdim)
    if op in ("sum", "prod", "mean"):
        xr = as_dtype(x, rt)
        if rt == tl.bool:
            f = np.any if op == "sum" else np.all
            return f(xr, **kd), None, None
        if not fp(rt):
            with np.errstate(all="ignore"):
                f = np.sum if op == "sum" else np.prod
                return f(xr.astype(NP[rt]), dtype=NP[rt], **kd), None, None
        w = wide_ld(np.asarray(xr))
        mag = np.abs(w)
        with np.errstate(all="ignore"):
            if op == "prod":
                ref = np.prod(w, **kd)
                # intermediate products may overflow or underflow in the
                # accumulator: skip results whose partial products can
                big = np.sum(np.where(mag > 1, np.log2(mag), 0), **kd)
                small = np.sum(np.where((mag < 1) & (mag > 0),
                                        np.log2(mag), 0), **kd)
                acc_rt = tl.float64 if rt in (tl.float64, tl.complex128) \
                    else tl.float32
                skip = (big > math.log2(HUGE[acc_rt]) - 3) | \
                    (small < math.log2(TINY[acc_rt]) + 30) | \
                    (np.isnan(big) | np.isnan(small))
                if is_complex(rt):   # complex inf * 0 and friends
                    skip |= ~np.all(np.isfinite(w), **kd)
                tol = (EPS[rt] * 2 + 8 * (n + 2) * ACC[rt]) * np.abs(ref)
                return ref, tol, skip
            ref = np.sum(w, **kd)
            if op == "mean":   # component-wise (complex / real is not)
                ref = div_n(ref, n)
            steps = 2 * (math.ceil(math.log2(n + 1)) + 2)

            def part_tol(part):
                # per component: an inf imaginary part must not widen
                # (or NaN) the real part's tolerance
                scale = np.sum(np.abs(part(w)), **kd) / (
                    max(n, 1) if op == "mean" else 1)
                return (2 * EPS[rt] * np.abs(part(ref)) +
                        steps * ACC[rt] * scale + TINY[rt] * EPS[rt] * 4)
            if is_complex(rt):
                # set, not tr + 1j * ti: 1j * inf is nan + inf j
                tr, ti = part_tol(np.real), part_tol(np.imag)
                tol = np.empty(np.shape(tr), np.clongdouble)
                tol.real = tr
                tol.imag = ti
            else:
                tol = part_tol(lambda v: v)
            return ref, tol, None
    if op in ("amax", "amin", "max", "min"):
        f = np.max if op in ("amax", "max") else np.min
        return f(x, **kd), None, None
    if op in ("any", "all"):
        nz = x != 0
        if axes == () and x.ndim:
            return nz, None, None
        f = np.any if op == "any" else np.all
        return f(nz, **kd), None, None
    if op in ("var", "std"):
        w = wide_ld(x)
        with np.errstate(all="ignore"):
            mean = div_n(np.sum(w, axis=ax, keepdims=True), n)
            dev = w - mean   # re**2 + im**2 (hypot(nan, inf) is inf)
            dev = dev.real ** 2 + dev.imag ** 2 if dev.dtype.kind == "c" \
                else dev ** 2
            ss = np.sum(dev, **kd)
            denom = max(n - correction, 0)
            var = ss / denom if denom else ss / np.longdouble(0.0)
            scale = np.sum(np.abs(w) ** 2, **kd) / max(n, 1)
            steps = 4 * (math.ceil(math.log2(n + 1)) + 4)
            tol = (2 * EPS[rt] * np.abs(var) +
                   steps * ACC[rt] * scale * max(n, 1) / max(denom, 1)
                   + TINY[rt] * EPS[rt] * 4)
        return var, tol, None
    raise AssertionError(op)


def check_arg(op, x, axes, dim, keepdim, got, what):
    f = np.argmax if op in ("argmax", "max") else np.argmin
    xa = x.astype(np.int8) if x.dtype == bool else x
    if dim is None:
        ref = np.asarray(f(xa))
        if keepdim:
            ref = ref.reshape((1,) * x.ndim)
    else:
        ref = f(xa, axis=axes[0], keepdims=keepdim) if x.ndim else \
            np.asarray(0)
    assert same(got, ref), (what, "indices", got, ref)


def run_reduction(torch, op, a, dim, keepdim, dtype, correction):
    """Runs op on operand a and checks it against torch and NumPy."""
    t, x, d = a.t, a.x, a.d
    what = (op, a, dim, keepdim, dtype, correction)
    snap = snapshot(a.root, t)
    tt = to_torch(torch, x, d)
    texc = None
    try:
        tres = torch_call(torch, tt, op, dim, keepdim, dtype, correction)
    except TypeError as e:   # PyTorch has no such signature
        texc = e
    except (RuntimeError, IndexError, NotImplementedError) as e:
        texc = e
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = call(t, op, dim, keepdim, dtype, correction)
    except SENSIBLE as e:
        event(f"{op}: raised {type(e).__name__}")
        assert_unchanged(snap, what)
        assert str(e), (what, "an empty message")
        if texc is None and is_complex(d) and isinstance(e, TypeError) and \
                op in ("amax", "amin", "max", "min", "argmax", "argmin"):
            return None   # PyTorch skips its dtype check on empty results
        assert texc is not None, (what, "tensorlib raised", repr(e),
                                  "where torch gives", tres)
        if isinstance(texc, TypeError) and "argument" in str(texc):
            # a form PyTorch lacks (prod over a tuple of dims): tensorlib
            # may refuse it, or take it and check the dims as sum does
            if reduced_axes(op, dim, t.ndim) is None:
                assert isinstance(e, (IndexError, tl.ShapeError,
                                      TypeError)), what
            else:
                assert isinstance(e, TypeError), (what, repr(e),
                                                  repr(texc))
            return None
        want = (expected_error_class(str(texc), texc),)
        # an input with several faults may report any one of them
        if reduced_axes(op, dim, t.ndim) is None:
            want += (IndexError, tl.ShapeError)
        if is_complex(d) and op in ("amax", "amin", "max", "min", "argmax",
                                    "argmin"):
            want += (TypeError,)
        assert isinstance(e, want), (what, repr(e), "want", want,
                                     "torch:", repr(texc))
        return None
    assert_unchanged(snap, what)
    if texc is not None and not (isinstance(texc, TypeError) and
                                 "argument" in str(texc)):
        raise AssertionError((what, "tensorlib gives a result where torch "
                              "raises", repr(texc)))
    axes = reduced_axes(op, dim, t.ndim)
    assert axes is not None, (what, "an invalid dim was accepted")
    event(f"{op}: checked")
    rt = result_dtype(op, d, dtype)
    pair = op in ("max", "min") and dim is not None
    vals = res[0] if pair else res
    if texc is None:
        tv = tres[0] if pair else tres
        assert NAME[rt] == str(tv.dtype).split(".")[-1], (what, "oracle",
                                                          tv.dtype)
    assert vals.dtype == rt, (what, vals.dtype, rt)
    kd = keepdim if keepdim is not None else False
    want_shape = result_shape(x.shape, axes, kd)
    if texc is None and not (dim is None and kd and
                             op in ("max", "min", "prod")):
        assert tuple(tv.shape) == want_shape, (what, "oracle", tv.shape)
    assert tuple(vals.shape) == want_shape, (what, vals.shape, want_shape)
    got = to_np(vals)
    if op in ("argmax", "argmin"):
        check_arg(op, x, axes, dim, kd, got, what)
        if texc is None:
            assert same(got, tres.numpy()), (what, "vs torch", tres)
        return res
    ref, tol, skip = reference(op, x, d, rt, axes, kd, correction if
                               correction is not None else 1)
    if op == "std":   # compare std**2 with the variance
        with np.errstate(all="ignore"):
            g64 = got.astype(np.float64)
            got = np.where(np.isnan(g64) | np.isinf(g64), g64, g64 * g64)
            tol = tol + 4 * EPS[rt] * np.abs(ref)
            rt_cmp = tl.float64
            assert_close(got, ref, tol, rt_cmp, what)
    elif tol is None:
        assert same(got, ref), (what, got, ref)
    else:
        if skip is not None:
            ref = np.where(skip, np.nan, ref)
            got = np.where(skip, np.nan, got)
        assert_close(got, ref, tol, rt, what)
    if pair:
        idx = res[1]
        assert res.values is res[0] and res.indices is res[1]
        assert idx.dtype == tl.int64 and tuple(idx.shape) == want_shape
        gi = to_np(idx)
        check_arg(op, x, axes, dim, kd, gi, what)
        # the index points at an element equal to the value
        if x.size:
            ax = axes[0] if x.ndim else None
            if ax is not None:
                gik = gi if kd else np.expand_dims(gi, ax)
                picked = np.take_along_axis(x, gik, ax)
                picked = picked if kd else np.squeeze(picked, ax)
                assert same(picked, got), (what, "value at index")
        assert same(gi, tres[1].numpy()), (what, "indices vs torch")
    return res


# ---- reductions: the tests --------------------------------------------------


@st.composite
def reduction_cases(draw, ops, big=False):
    """An operand and several calls on it: (op, dim, keepdim, dtype=,
    correction=)."""
    op0 = draw(st.sampled_from(ops))
    dtypes = DTYPES
    if op0 in ("mean", "var", "std") and draw(st.integers(0, 4)):
        dtypes = FLOATS + COMPLEX   # mostly the dtypes they take
    a = draw(operands(dtypes=dtypes, big=big,
                      kind="near1" if big and op0 == "prod" else None))
    calls = []
    for i in range(draw(st.integers(1, 2 if big else 6))):
        op = op0 if i == 0 else draw(st.sampled_from(
            [o for o in ops if o != "prod" or not big]))
        dim = draw(dim_args(a.t.ndim, op))
        keepdim = draw(st.sampled_from([None, False, True]))
        dtype = None
        if op in ("sum", "prod", "mean") and draw(st.integers(0, 3)) == 0:
            dtype = draw(st.sampled_from(DTYPES))
        correction = None
        if op in ("var", "std"):
            correction = draw(st.sampled_from([None, 0, 1, 2]))
        calls.append((op, dim, keepdim, dtype, correction))
    return a, calls


def run_reductions(torch, case):
    a, calls = case
    for op, dim, keepdim, dtype, correction in calls:
        run_reduction(torch, op, a, dim, keepdim, dtype, correction)


@given(case=reduction_cases(["sum", "prod", "mean"]))
def test_fuzz_sum_prod_mean(torch, case):
    run_reductions(torch, case)


@given(case=reduction_cases(["amax", "amin", "max", "min", "argmax",
                             "argmin"]))
def test_fuzz_minmax_arg(torch, case):
    run_reductions(torch, case)


@given(case=reduction_cases(["any", "all", "var", "std"]))
def test_fuzz_any_all_var_std(torch, case):
    run_reductions(torch, case)


@given(case=reduction_cases(ALL_OPS, big=True))
def test_fuzz_big_reductions(torch, case):
    """Sizes around the kernels' lane, tile and chunk thresholds."""
    run_reductions(torch, case)


# ---- out= -------------------------------------------------------------------

WIDER = {tl.bool: tl.int64, tl.uint8: tl.int16, tl.int8: tl.int32,
         tl.int16: tl.int64, tl.int32: tl.int64, tl.int64: tl.float64,
         tl.float16: tl.float32, tl.bfloat16: tl.float64,
         tl.float32: tl.float64, tl.float64: tl.complex128,
         tl.complex64: tl.complex128, tl.complex128: tl.complex128}


@st.composite
def out_cases(draw):
    op = draw(st.sampled_from([o for o in ALL_OPS if o not in
                               ("max", "min")]))
    dtypes = DTYPES
    if op in ("mean", "var", "std"):
        dtypes = FLOATS + COMPLEX
    if op in ("amax", "amin", "argmax", "argmin"):
        dtypes = [d for d in DTYPES if not is_complex(d) and
                  not (op.startswith("arg") and d == tl.bool)]
    a = draw(operands(dtypes=dtypes, special=draw(st.sampled_from(
        [0.0, 0.1]))))
    dim = draw(st.none() | st.integers(-max(a.t.ndim, 1),
                                       max(a.t.ndim, 1) - 1))
    keepdim = draw(st.booleans())
    mode = draw(st.sampled_from(["exact", "fresh", "wider", "wrong",
                                 "strided", "alias"]))
    return op, a, dim, keepdim, mode, draw(st.integers(0, 2 ** 16))


@given(case=out_cases())
def test_fuzz_out(torch, case):
    op, a, dim, keepdim, mode, s = case
    t, x = a.t, a.x
    axes = reduced_axes(op, dim, t.ndim)
    if x.size == 0 and op in ("amax", "amin", "argmax", "argmin") and any(
            x.shape[i] == 0 for i in (axes or range(x.ndim))):
        return   # an error: covered by the fuzz tests above
    with quiet():
        ref = call(t, op, dim, keepdim, None, None)
    rt = ref.dtype
    shape = tuple(ref.shape)
    rng = np.random.default_rng(s)
    if mode == "exact":
        out = from_np(random_values(shape, rt, rng), rt)
    elif mode == "fresh":
        out = tl.empty(0, dtype=rt)
    elif mode == "wider":
        rt = WIDER[rt]
        out = from_np(random_values(shape, rt, rng), rt)
    elif mode == "strided":   # a transposed, flipped view of a bigger tensor
        big = from_np(random_values(shape[::-1] + (2,), rt, rng), rt)
        out = big[..., 1].permute(list(range(len(shape)))[::-1])
        if len(shape):
            out = out.flip(0)
        assert tuple(out.shape) == shape
    elif mode == "alias":   # a view of the input's own root
        flat = a.root.reshape(-1)
        k = math.prod(shape)
        if rt != a.d or k > flat.numel() or not tl.shares_memory(flat,
                                                                 a.root):
            return
        start = s % (flat.numel() - k + 1)
        out = flat[start:start + k].reshape(shape)
        if s % 2 and len(shape):
            out = out.flip(0)
    else:   # any other shape with elements: refused
        wrong = [s + 1 for s in shape] + [2] * int(rng.integers(0, 2))
        wrong = wrong or [3]
        out = from_np(random_values(wrong, rt, rng), rt)
    base = out._base if out._base is not None else out
    snap = snapshot(a.root, t, base)
    if mode == "alias":
        with quiet():
            res = getattr(tl, op)(t, dim=dim, keepdim=keepdim, out=out)
        assert res is out
        want = as_dtype(to_np(ref), rt)
        assert same(to_np(out), want), (op, a, dim, keepdim, "alias",
                                        to_np(out), want)
        root = snap[0][1].copy()
        root.reshape(-1)[start:start + k] = (
            np.flip(want, 0) if s % 2 and len(shape) else want).reshape(-1)
        assert same(to_np(a.root), root), (op, a, dim, "alias: root")
        return
    what = (op, a, dim, keepdim, mode, tuple(out.shape), rt)
    if mode == "wrong":
        with pytest.raises(tl.ShapeError):
            with quiet():
                getattr(tl, op)(t, dim=dim, keepdim=keepdim, out=out)
        assert_unchanged(snap, what)
        return
    with quiet():
        res = getattr(tl, op)(t, dim=dim, keepdim=keepdim, out=out)
    assert res is out, what
    assert out._version > snap[2][2], what
    assert tuple(out.shape) == shape and out.dtype == rt, what
    want = as_dtype(to_np(ref), rt)
    assert same(to_np(out), want), (what, to_np(out), want)
    assert_unchanged(snap[:2], what)
    if mode == "strided":   # the other half of the bigger tensor untouched
        assert same(to_np(base)[..., 0], snap[2][1][..., 0]), what


@given(a=operands(dtypes=[d for d in DTYPES if not is_complex(d)],
                  min_ndim=1, special=0.1),
       op=st.sampled_from(["max", "min"]), keepdim=st.booleans(),
       mode=st.sampled_from(["exact", "fresh", "wrong"]),
       data=st.data())
def test_fuzz_max_min_dim_out(a, op, keepdim, mode, data):
    t, x = a.t, a.x
    n = max(t.ndim, 1)
    dim = data.draw(st.integers(-n, n - 1))
    if t.ndim and x.shape[dim] == 0:
        return
    ref = getattr(t, op)(dim, keepdim)
    shape = tuple(ref.values.shape)
    if mode == "exact":
        v, i = tl.zeros(shape, dtype=a.d), tl.zeros(shape, dtype=tl.int64)
    elif mode == "fresh":
        v, i = tl.empty(0, dtype=a.d), tl.empty(0, dtype=tl.int64)
    else:   # values of another shape (with elements)
        v = tl.zeros(tuple(s + 1 for s in shape) + (2,), dtype=a.d)
        i = tl.zeros(shape, dtype=tl.int64)
    snap = snapshot(a.root, v, i)
    if mode == "wrong":
        with pytest.raises(tl.ShapeError):
            getattr(tl, op)(t, dim, keepdim, out=(v, i))
        assert_unchanged(snap, (op, a, dim))
        return
    res = getattr(tl, op)(t, dim, keepdim, out=(v, i))
    assert res.values is v and res.indices is i
    assert same(to_np(v), to_np(ref.values))
    assert same(to_np(i), to_np(ref.indices))


# ---- thread count -----------------------------------------------------------


@settings(max_examples=30)   # 2**16 and more elements each
@given(d=st.sampled_from([tl.float32, tl.float64, tl.float16, tl.bfloat16,
                          tl.complex64]),
       layout=st.sampled_from(["contiguous", "transposed", "stepped",
                               "flipped", "neg_stepped", "expanded"]),
       shape=st.sampled_from([(1 << 16,), (3, 30011), (257, 300),
                              (70000, 1), (2, 5, 6600)]),
       op=st.sampled_from(["sum", "mean", "var", "std", "prod"]),
       dim=st.sampled_from([None, 0, -1, "all"]), s=st.integers(0, 99))
def test_fuzz_thread_count(d, layout, shape, op, dim, s):
    rng = np.random.default_rng(s)
    kind = "positive" if op == "prod" else "normal"
    if layout == "expanded":
        x = random_values(shape[1:], d, rng, kind)
        t = broadcast_view(x, d, shape)
    else:
        x = random_values(shape, d, rng, kind)
        if op == "prod":   # keep products in range: values near 1
            x = as_dtype(1 + (x.astype(np.complex128 if is_complex(d) else
                                      np.float64) - 1) / 64, d)
        t = view_as(x, d, layout, rng)
    dim = tuple(range(len(shape))) if dim == "all" else dim
    old = tl.get_num_threads()
    try:
        outs = []
        for n in (1, 2):
            tl.set_num_threads(n)
            outs.append(to_np(getattr(t, op)(dim)).tobytes())
        assert outs[0] == outs[1], (op, d, layout, shape, dim)
    finally:
        tl.set_num_threads(old)
    assert tl.get_num_threads() == old


# ---- copy_, to, contiguous, clone, fill_, zero_ -----------------------------


def write_expected(dst, src_vals):
    """The root values of dst's operand after writing src_vals (already of
    dst's dtype, broadcast to dst's shape) through the view."""
    root = dst.root_x.copy()
    view = dst.replay(root)
    view[...] = src_vals
    return root


def self_overlapping(t):
    return t.numel() > 1 and any(st_ == 0 and sz > 1 for sz, st_ in
                                 zip(t.shape, t.stride()))


@st.composite
def src_for(draw, dst_shape, d=None):
    """A source operand whose shape broadcasts to dst_shape (or, rarely,
    does not), in a random layout."""
    d = d if d is not None else draw(st.sampled_from(DTYPES))
    shape = list(dst_shape)
    drop = draw(st.integers(0, len(shape)))
    shape = shape[drop:]
    shape = [1 if draw(st.integers(0, 3)) == 0 else s for s in shape]
    bad = False
    if draw(st.integers(0, 15)) == 0:
        shape = shape + [2] if not shape or shape[-1] != 2 else shape + [3]
        bad = True
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    vals = sprinkle(random_values(shape, d, rng), d, rng,
                    draw(st.sampled_from([0.0, 0.2])))
    layout = draw(st.sampled_from(["contiguous", "transposed", "stepped",
                                   "flipped", "neg_stepped", "expanded"]))
    if layout == "expanded":
        small = vals[(slice(0, 1),) + (Ellipsis,)] if len(shape) and \
            shape[0] else vals
        if len(shape) and shape[0]:
            t = broadcast_view(small, d, tuple(shape))
            vals = np.broadcast_to(as_dtype(small, d), shape)
        else:
            t = from_np(vals, d)
    else:
        t = view_as(vals, d, layout, rng)
    x = as_dtype(np.asarray(vals), d)
    assert same(to_np(t), x), (layout, shape)
    return t, x, bad


@given(dst=operands(max_ops=3), data=st.data())
def test_fuzz_copy(torch, dst, data):
    src, sx, bad = data.draw(src_for(dst.t.shape))
    t = dst.t
    what = (dst, NAME[src.dtype], tuple(src.shape), src.stride())
    snap = snapshot(dst.root, src)
    try:
        np.broadcast_to(sx, dst.x.shape)
        fits = True
    except ValueError:
        fits = False
    if not fits or self_overlapping(t):
        # torch: a shape error / an output that overlaps itself
        with pytest.raises(tl.ShapeError):
            with quiet():
                t.copy_(src)
        assert_unchanged(snap, what)
        return
    v0 = t._version
    with quiet():
        r = t.copy_(src)
    assert r is t, what
    assert t._version > v0 or t.numel() == 0, what
    want = as_dtype(np.broadcast_to(sx, dst.x.shape), dst.d)
    assert same(to_np(t), want), (what, to_np(t), want)
    assert same(to_np(dst.root), write_expected(dst, want)), (what,
                                                              "root")
    assert_unchanged(snap[1:], what)
    # PyTorch agrees on the values (where its casts are defined)
    if not (is_int(dst.d) and fp(src.dtype)):
        tdst = torch.zeros(dst.x.shape, dtype=tdt(torch, dst.d))
        with quiet():
            tdst.copy_(to_torch(torch, sx, src.dtype))
        tv = tdst.float() if dst.d == tl.bfloat16 else tdst
        assert same(to_np(t), tv.numpy()), (what, "vs torch")


@st.composite
def overlap_cases(draw):
    d = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(1, 40))
    rows = draw(st.sampled_from([None, 1, 3]))
    shape = (n,) if rows is None else (n, rows)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    vals = random_values(shape, d, rng)
    k = draw(st.integers(0, n))

    def piece():
        step = draw(st.sampled_from([1, 1, 2, -1, -2, 3]))
        if k == 0:
            return slice(0, 0, step)
        span = (k - 1) * abs(step) + 1
        if span > n:
            return None
        start = draw(st.integers(0, n - span))
        if step > 0:
            return slice(start, start + span, step)
        stop = start - 1 if start else None
        return slice(start + span - 1, stop, step)

    a, b = piece(), piece()
    assume(a is not None and b is not None)
    return d, vals, a, b, draw(st.booleans())


@given(case=overlap_cases())
def test_fuzz_copy_overlap(case):
    """x[a].copy_(x[b]) with the two views overlapping in part: the source
    is read as it was before the copy (NumPy's rule, DESIGN.md)."""
    d, vals, a, b, flip_cols = case
    root = from_np(vals, d)
    x = to_np(root)
    dst, src = root[a], root[b]
    xd, xs = x[a], x[b]
    if flip_cols and root.ndim == 2:
        src, xs = src.flip(1), xs[:, ::-1]
    assert tuple(dst.shape) == tuple(src.shape)
    want = x.copy()
    want[a] = xs.copy()
    dst.copy_(src)
    assert same(to_np(root), want), (NAME[d], vals.shape, a, b, flip_cols,
                                     to_np(root), want)


@st.composite
def overlapping_views(draw):
    """Two views of one root with the same shape that overlap in part:
    root[1:] and root[:-1] (one of them maybe flipped), then the same
    random view steps on both."""
    d = draw(st.sampled_from(DTYPES))
    shape = list(draw(root_shapes(min_ndim=1)))
    shape[0] = max(shape[0], 2)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    vals = random_values(shape, d, rng)
    sub = [shape[0] - 1] + shape[1:]
    ops = draw(view_ops(sub, allow_expand=False))
    flip = draw(st.none() | st.lists(st.integers(0, len(shape) - 1),
                                     min_size=1, unique=True).map(tuple))
    swap = draw(st.booleans())
    return d, vals, ops, flip, swap


@given(case=overlapping_views())
def test_fuzz_copy_overlap_views(case):
    d, vals, ops, flip, swap = case
    root = from_np(vals, d)
    x = to_np(root)

    def views(r, flipper):
        a, b = r[1:], r[:-1]
        if flip is not None:
            b = flipper(b)
        if swap:
            a, b = b, a
        for op in ops:
            a, b = apply_tl(a, op), apply_tl(b, op)
        return a, b

    dst, src = views(root, lambda v: v.flip(flip))
    want = x.copy()
    a_np, b_np = want[1:], want[:-1]
    if flip is not None:
        b_np = np.flip(b_np, flip)
    if swap:
        a_np, b_np = b_np, a_np
    for op in ops:
        a_np, b_np = apply_np(a_np, op), apply_np(b_np, op)
    a_np[...] = b_np.copy()
    dst.copy_(src)
    assert same(to_np(root), want), (NAME[d], vals.shape, ops, flip, swap)


@given(a=operands(), d=st.sampled_from(DTYPES))
def test_fuzz_to(torch, a, d):
    t, x = a.t, a.x
    snap = snapshot(a.root)
    with quiet():
        r = t.to(d)
    assert r.dtype == d and tuple(r.shape) == x.shape
    if d == a.d:
        assert r is t          # as PyTorch: no copy
    else:   # preserve_format: the strides PyTorch gives the same layout
        tm = torch_mirror(torch, a)
        if tm is not None:
            with quiet():
                ts = tm.to(tdt(torch, d)).stride()
            assert tuple(r.stride()) == tuple(ts), (a, NAME[d], r.stride(),
                                                    ts)
    want = as_dtype(x, d)
    assert same(to_np(r), want), (a, NAME[d], to_np(r), want)
    assert_unchanged(snap, (a, d))
    if d != a.d:   # a copy: writing to it leaves the source alone
        r.zero_()
        assert_unchanged(snap, (a, d))
    if not (is_int(d) and fp(a.d)):   # torch's float->int casts are UB
        with quiet():
            tr = to_torch(torch, x, a.d).to(tdt(torch, d))
        tv = tr.float() if d == tl.bfloat16 else tr
        assert same(want, tv.numpy()), (a, NAME[d], "oracle vs torch")


def torch_mirror(torch, a):
    """a torch tensor with a's sizes, strides and storage offset over a
    copy of a's root values, or None where torch cannot have the layout
    (negative strides)."""
    t = a.t
    if any(s < 0 for s in t.stride()):
        return None
    base = to_torch(torch, a.root_x, a.d).reshape(-1)
    return base.as_strided(tuple(t.shape), t.stride(), t.storage_offset())


@given(a=operands(min_ndim=4, max_ndim=4, max_ops=3),
       how=st.sampled_from(["contiguous", "clone"]),
       fmt=st.sampled_from(["channels_last", "contiguous_format",
                            "preserve_format", None]))
def test_fuzz_memory_format(torch, a, how, fmt):
    t, x = a.t, a.x
    mf = None if fmt is None else getattr(tl, fmt)
    tm = torch_mirror(torch, a)
    snap = snapshot(a.root)
    kw = {} if fmt is None else {"memory_format": mf}
    tkw = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
    if how == "contiguous" and fmt == "preserve_format":
        # PyTorch refuses it unless the tensor is already contiguous
        if t.is_contiguous():
            assert t.contiguous(**kw) is t
            assert tm is None or tm.contiguous(**tkw) is tm
        else:
            with pytest.raises(ValueError, match="not contiguous"):
                t.contiguous(**kw)
            if tm is not None:
                with pytest.raises(RuntimeError):
                    tm.contiguous(**tkw)
        return
    if t.ndim != 4 and fmt == "channels_last":
        with pytest.raises((ValueError, RuntimeError)):
            getattr(t, how)(**kw)
        assert_unchanged(snap, a)
        return
    r = getattr(t, how)(**kw)
    assert r.dtype == a.d and tuple(r.shape) == x.shape
    assert same(to_np(r), x), (a, how, fmt)
    assert_unchanged(snap, a)
    if fmt == "channels_last":
        assert r.is_contiguous(memory_format=tl.channels_last), (
            a, how, r.stride())
    elif how == "contiguous" or fmt == "contiguous_format":
        assert r.is_contiguous(), (a, how, fmt, r.stride())
    if how == "clone":
        assert r is not t
        if r.numel():
            r.zero_()
            assert_unchanged(snap, (a, "clone shares memory"))
    elif (fmt == "channels_last" and t.is_contiguous(
            memory_format=tl.channels_last)) or (
            fmt != "channels_last" and t.is_contiguous()):
        assert r is t, (a, how, fmt)
    if tm is not None:
        tr = getattr(tm, how)(**tkw)
        if how == "contiguous" and tr.data_ptr() == tm.data_ptr():
            assert r is t or r.stride() == tr.stride(), (a, how, fmt)
        else:
            assert tuple(r.stride()) == tuple(tr.stride()), (
                a, how, fmt, r.stride(), tr.stride())


SCALARS = st.one_of(
    st.booleans(), st.integers(-300, 300), st.sampled_from(
        [0, -1, 127, 128, 255, 256, -129, 2 ** 31, 2 ** 63 - 1, -2 ** 63,
         2 ** 64, 65504, 65520, 1e10]),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([-128.9, 0.5, -0.0, 2.5, 3.4e38, 1e300, 1e-300]),
    st.complex_numbers(max_magnitude=1e6, allow_nan=False) | st.sampled_from(
        [1 + 0j, 2j, complex("nan+1j")]))


def int_fits(v, d):
    """tensorlib's integer fill_: a float is truncated, then range checked
    (docs/differences.md); out-of-range Python ints raise OverflowError."""
    if isinstance(v, complex):
        return v.imag == 0 and int_fits(v.real, d)
    if isinstance(v, float):
        if not math.isfinite(v):
            return False
        v = math.trunc(v)
    info = np.iinfo(NP[d])
    return info.min <= v <= info.max


def torch_fill_raises(torch, d, v):
    """PyTorch's verdict on fill_(v) for dtype d, taken on a two-element
    tensor: PyTorch's fill_ skips its range check on one-element tensors
    (tensorlib checks always, as PyTorch's full() does)."""
    try:
        with quiet():
            torch.zeros(2, dtype=tdt(torch, d)).fill_(v)
    except (RuntimeError, TypeError, OverflowError) as e:
        return e
    return None


@given(a=operands(allow_expand=True), v=SCALARS,
       zero=st.integers(0, 5), as_tensor=st.integers(0, 3))
def test_fuzz_fill_zero(torch, a, v, zero, as_tensor):
    t, d = a.t, a.d
    snap = snapshot(a.root)
    what = (a, v)
    if zero == 0:
        v0 = t._version
        r = t.zero_()
        assert r is t and (t._version > v0 or t.numel() == 0)
        want = as_dtype(np.zeros(a.x.shape), d)
        assert same(to_np(t), want), what
        assert same(to_np(a.root), write_expected(a, want)), what
        return
    if as_tensor == 0 and not isinstance(v, complex):
        # a 0-d tensor value: cast to t's dtype as copy_ does
        vd = tl.float64 if isinstance(v, float) else (
            tl.bool if isinstance(v, bool) else tl.int64)
        if vd == tl.int64 and not -2 ** 63 <= v < 2 ** 63:
            return
        vt = tl.tensor(v, dtype=vd)
        if self_overlapping(t):   # as PyTorch: a tensor value is copied
            with pytest.raises(tl.ShapeError):
                t.fill_(vt)
            assert_unchanged(snap, what)
            return
        with quiet():
            r = t.fill_(vt)
        want = as_dtype(np.broadcast_to(np.asarray(
            to_np(vt)), a.x.shape), d)
        assert same(to_np(t), want), (what, to_np(t))
        assert same(to_np(a.root), write_expected(a, want)), what
        return
    texc = torch_fill_raises(torch, d, v)
    try:
        with quiet():
            r = t.fill_(v)
    except SENSIBLE as e:
        assert_unchanged(snap, what)
        if is_int(d) and not int_fits(v, d):
            assert isinstance(e, (OverflowError, TypeError)), (what, e)
            return
        if d == tl.bool or not is_int(d):
            assert texc is not None, (what, "tensorlib raises", repr(e))
            return
        raise
    if d != tl.bool and is_int(d):
        assert int_fits(v, d), (what, "accepted", to_np(t))
    elif texc is not None:
        raise AssertionError((what, "torch raises", repr(texc)))
    assert r is t
    want = as_dtype(np.broadcast_to(np.asarray(v), a.x.shape), d)
    assert same(to_np(t), want), (what, to_np(t), want)
    assert same(to_np(a.root), write_expected(a, want)), what


# ---- regressions the fuzzing found ------------------------------------------


# Float64/complex128 sums over a contiguous run (compensated two-sum lanes)
# gave NaN when an element was +-inf (inf - inf in the error term) or the
# sum overflowed: Note [Compensated sums and non-finite values].
@pytest.mark.parametrize("vals,want", [
    ([np.inf], np.inf), ([-np.inf], -np.inf), ([1.0, np.inf, 2.0], np.inf),
    ([3.0] * 20 + [-np.inf], -np.inf)])
def test_float64_sum_of_inf(vals, want):
    x = np.array(vals, dtype=np.float64)
    assert tl.tensor(x).sum().item() == want == np.sum(x)
    assert tl.tensor(x).mean().item() == want


def test_complex128_sum_of_inf():
    z = np.array([1 + 1j, complex(np.inf, 0)], dtype=np.complex128)
    got = tl.tensor(z).sum().item()
    assert got.real == np.inf and got.imag == 1.0


def test_float64_row_sum_of_inf():
    x = np.array([[1.0, np.inf], [2.0, 3.0]])
    t = tl.tensor(x)
    assert to_np(t.sum(0)).tolist() == [3.0, np.inf]
    assert to_np(t.sum(1)).tolist() == [np.inf, 5.0]
    assert to_np(t.mean(1)).tolist() == [np.inf, 2.5]


def test_float64_sum_overflow():
    x = np.array([1e308, 1e308])
    assert tl.tensor(x).sum().item() == np.inf
    assert tl.tensor(x).mean().item() == np.inf
    assert tl.tensor(x)[::-1].sum().item() == np.inf        # strided
    v = tl.tensor(np.array([1e308, -1e308, np.inf, 1.0]))
    assert v.var().item() != v.var().item()                 # NaN, as NumPy


@pytest.mark.parametrize("d,v", [
    (tl.float16, 65519.0), (tl.float16, 1e10), (tl.float16, -1e10),
    (tl.bfloat16, 1e39), (tl.float32, 1e39), (tl.complex64, 1e39)])
def test_fill_and_full_refuse_values_beyond_the_dtype(torch, d, v):
    """fill_ and full() convert with PyTorch's overflow check (on more
    than one element, PyTorch's fill_ too): full() used to round 65519 to
    65504 and 1e10 to inf in float16 while fill_ refused them."""
    t = tl.zeros(2, dtype=d)
    with pytest.raises(OverflowError, match="out of range"):
        t.fill_(v)
    assert t.tolist() == [0, 0] and t._version == 0
    with pytest.raises(OverflowError, match="out of range"):
        tl.full((2,), v, dtype=d)
    with pytest.raises(OverflowError, match="out of range"):
        tl.full_like(t, v)
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(2, dtype=tdt(torch, d)).fill_(v)
    with pytest.raises(RuntimeError, match="overflow"):
        torch.full((2,), v, dtype=tdt(torch, d))
    # inf is no overflow, and the largest finite value fits
    assert tl.full((2,), float("inf"), dtype=d).tolist()[0] == float("inf")
    big = {tl.float16: 65504.0}.get(d)
    if big is not None:
        assert t.fill_(big).tolist() == [big, big]


def _var_ref(x, axis):
    xl = x.astype(np.clongdouble if x.dtype.kind == "c" else np.longdouble)
    n = xl.shape[axis]
    d = xl - xl.sum(axis=axis, keepdims=True) / n
    d2 = d.real ** 2 + d.imag ** 2 if x.dtype.kind == "c" else d ** 2
    return d2.sum(axis=axis) / (n - 1)


# var/std of float64 and complex128 summed the squared deviations plainly,
# 10-40x less accurate than NumPy's pairwise var; they are compensated now.
@pytest.mark.parametrize("layout", ["c128_row", "f64_cols", "f64_row",
                                    "c128_cols"])
def test_float64_var_accuracy(layout):
    rng = np.random.default_rng(1)
    if layout in ("c128_row", "f64_row"):
        x = rng.standard_normal(70001)
        if layout == "c128_row":
            x = x + 1j * rng.standard_normal(70001)
        got, ref = tl.tensor(x).var().item(), _var_ref(x, 0)
        theirs = np.var(x, ddof=1)
    elif layout == "c128_cols":
        x = rng.standard_normal(70001) + 1j * rng.standard_normal(70001)
        m = np.ascontiguousarray(np.stack([x, x], 1))
        got, ref = to_np(tl.tensor(m).var(0))[0], _var_ref(x, 0)
        theirs = np.var(x, ddof=1)
    else:
        x = rng.standard_normal(70001)
        # dim 0 of a C-contiguous matrix: the cols kernel
        m = np.ascontiguousarray(np.stack([x, x], 1))
        got, ref = to_np(tl.tensor(m).var(0))[0], _var_ref(x, 0)
        theirs = np.var(x, ddof=1)
    ours = abs(np.longdouble(got) - ref) / ref
    theirs = abs(np.longdouble(theirs) - ref) / ref
    assert ours <= max(2 * theirs, 4 * 2.0 ** -53), (float(ours),
                                                     float(theirs))
