"""Reductions: sum, prod, mean, amax, amin, max/min, argmax/argmin, any, all,
var, std.

Values are checked against NumPy computed on the input's values (float64 /
complex128 references for floating sums, exact comparisons for integers,
max/min, arg* and any/all); result dtypes and error types against PyTorch
(the `torch` fixture skips without it).  Layouts: contiguous, transposed,
sliced with steps, flipped (negative strides), expanded (stride 0), 0-dim
and 0-size tensors."""
import math
import warnings
import zlib

import numpy as np
import pytest

import tensorlib as tl

ALL_DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32,
              tl.uint32, tl.int64, tl.uint64, tl.float16, tl.bfloat16,
              tl.float32, tl.float64, tl.complex64, tl.complex128]
INTS = [tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32, tl.uint32,
        tl.int64, tl.uint64]
FLOATS = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
COMPLEX = [tl.complex64, tl.complex128]
NAMES = {d: str(d).split(".")[-1] for d in ALL_DTYPES}
NP_OF = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8,
         "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
         "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
         "float16": np.float16, "bfloat16": np.float32,
         "float32": np.float32, "float64": np.float64,
         "complex64": np.complex64, "complex128": np.complex128}
# Relative precision of each floating result dtype (unit roundoff * 2).
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
       "float64": 2.0 ** -52, "complex64": 2.0 ** -23,
       "complex128": 2.0 ** -52}


def name(dt):
    return NAMES[dt]


def seed(*parts):
    """A seed that is the same in every process (hash() of str is not)."""
    return zlib.crc32(repr([str(p) for p in parts]).encode())


def is_int(dt):
    return dt in INTS or dt == tl.bool


def is_float(dt):
    return dt in FLOATS


def is_complex(dt):
    return dt in COMPLEX


def to_np(t):
    """The values of t as a NumPy array (bfloat16 widened exactly)."""
    if t.dtype == tl.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)


def make(shape, dt, rng, kind="normal"):
    """A contiguous tensor of dtype dt and the NumPy array of its values."""
    n = name(dt)
    if dt == tl.bool:
        src = rng.random(shape) < 0.5
    elif dt in INTS:
        info = np.iinfo(NP_OF[n])
        if kind == "small":
            lo, hi = max(info.min, -3), min(info.max, 3)
        else:
            lo, hi = info.min, info.max
        src = rng.integers(lo, hi, size=shape, endpoint=True,
                           dtype=NP_OF[n])
    elif is_complex(dt):
        if kind == "small":
            src = (rng.uniform(0.6, 1.4, shape) *
                   np.exp(1j * rng.uniform(-0.5, 0.5, shape)))
        else:
            src = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        src = src.astype(NP_OF[n])
    else:
        if kind == "small":
            src = rng.uniform(0.6, 1.4, shape)
        else:
            src = rng.standard_normal(shape) * 3
        src = src.astype(np.float32 if dt == tl.bfloat16 else NP_OF[n])
    t = tl.tensor(np.ascontiguousarray(src))
    if dt == tl.bfloat16:
        t = t.to(tl.bfloat16)
    assert t.dtype == dt
    return t, to_np(t)


def layouts(t, x, rng):
    """(label, tensor view, the same NumPy view) for several layouts."""
    out = [("contiguous", t, x)]
    if t.ndim >= 2:
        perm = list(range(t.ndim))[::-1]
        out.append(("transposed", t.permute(perm), np.transpose(x, perm)))
    if t.ndim >= 1 and t.shape[0] > 1:
        out.append(("sliced", t[::2], x[::2]))
    if t.ndim >= 1:
        d = t.ndim - 1
        out.append(("flipped", t.flip(d), np.flip(x, d)))
    if t.ndim >= 2:
        out.append(("flip-all-transposed", t.flip(tuple(range(t.ndim))).T,
                    np.flip(x).T))
    return out


def expanded(t, x):
    """t with a broadcast (stride 0) dim inserted in front and at dim 1."""
    if t.ndim == 0:
        return t.expand(3), np.broadcast_to(x, (3,))
    shape = (3,) + tuple(t.shape)
    v = t.unsqueeze(0).expand(*shape)
    return v, np.broadcast_to(x, shape)


def dim_choices(ndim, rng, allow_tuple=True):
    """dim arguments to try for a tensor of ndim dims."""
    if ndim == 0:
        return [None, 0, -1] + ([(), (0,)] if allow_tuple else [])
    out = [None] + list(range(ndim)) + [-1, -ndim]
    if allow_tuple:
        out += [(), tuple(range(ndim)), tuple(range(ndim))[::-1]]
        for _ in range(3):
            k = int(rng.integers(1, ndim + 1))
            dims = list(rng.permutation(ndim)[:k])
            dims = [int(d) - ndim if rng.random() < 0.4 else int(d)
                    for d in dims]
            out.append(tuple(dims))
    return out


def np_axis(dim, ndim, empty_all=True):
    """NumPy's axis for a PyTorch dim argument."""
    if dim is None:
        return None
    if isinstance(dim, tuple):
        if len(dim) == 0:
            return None if empty_all else ()
        return tuple(d % max(ndim, 1) for d in dim) if ndim else None
    return dim % ndim if ndim else None


SHAPES = [(), (1,), (7,), (0,), (3, 4), (4, 1), (5, 0), (0, 3), (2, 3, 4),
          (3, 1, 5), (2, 0, 2), (2, 3, 2, 3), (37, 5), (5, 300)]

# ---- result dtypes -----------------------------------------------------------


def sum_dtype(dt):
    return tl.int64 if is_int(dt) else dt


def real_of(dt):
    return {tl.complex64: tl.float32, tl.complex128: tl.float64}.get(dt, dt)


# ---- reference computations ---------------------------------------------------


def wide(x):
    """x in float64 / complex128 (values exact)."""
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def check_close(res, ref, scale, rt, what):
    """|res - ref| within the rounding of rt plus float64 accumulation."""
    res = np.asarray(res)
    ref = np.asarray(ref)
    assert res.shape == ref.shape, (what, res.shape, ref.shape)
    eps = EPS[name(rt)]
    # the reference rounded to the result dtype (overflow and underflow
    # included), as NumPy would give it computed in that dtype
    rounded = to_np(tl.tensor(np.ascontiguousarray(ref)).to(rt))
    with np.errstate(invalid="ignore", over="ignore"):
        # float32 outer sums add blocks of 8 rows in float32 first
        acc = 2.0 ** -52 if rt not in (tl.float32, tl.complex64) else \
            2.0 ** -24 / 32
        tol = 2 * eps * np.abs(ref) + 256 * acc * np.asarray(scale)
        tol = tol + (eps * 2.0 ** -14 if rt == tl.float16 else 0)
        bad = ~((np.abs(res - ref) <= tol) | (res == rounded) |
                (np.isnan(res) & np.isnan(ref)) | (res == ref))
    assert not bad.any(), (what, res[bad][:5], ref[bad][:5])


def ref_int_sum(x, axis, keepdims, prod=False):
    w = x.astype(np.uint64) if x.dtype == np.uint64 else x.astype(np.int64)
    with np.errstate(over="ignore"):
        r = (np.prod if prod else np.sum)(w, axis=axis, keepdims=keepdims)
    return np.asarray(r).astype(np.int64)


# ---- sum, mean, prod ----------------------------------------------------------


@pytest.mark.parametrize(
    "op,dt",
    [(op, dt) for op in ("sum", "mean", "prod") for dt in ALL_DTYPES
     if not (op == "mean" and is_int(dt))],   # an error: test_dtype_argument
    ids=lambda v: v if isinstance(v, str) else name(v))
def test_sum_mean_prod_vs_numpy(op, dt):
    rng = np.random.default_rng(seed(op, dt))
    kind = "small" if op == "prod" else "normal"
    rt = sum_dtype(dt)
    ncases = 0
    for shape in SHAPES:
        base, xb = make(shape, dt, rng, kind)
        views = layouts(base, xb, rng) + [("expanded",) + expanded(base, xb)]
        for label, t, x in views:
            for dim in dim_choices(t.ndim, rng):
                for keepdim in (False, True):
                    r = getattr(t, op)(dim=dim, keepdim=keepdim)
                    axis = np_axis(dim, t.ndim)
                    what = (op, name(dt), shape, label, dim, keepdim)
                    assert r.dtype == rt, what
                    exp_shape = np.sum(np.zeros(x.shape), axis=axis,
                                       keepdims=keepdim).shape
                    assert tuple(r.shape) == exp_shape, what
                    assert r.is_contiguous()
                    res = to_np(r)
                    if is_int(dt):
                        ref = ref_int_sum(x, axis, keepdim, op == "prod")
                        assert np.array_equal(res, ref), what
                    else:
                        xw = wide(x)
                        with np.errstate(all="ignore"), \
                                warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            f = {"sum": np.sum, "mean": np.mean,
                                 "prod": np.prod}[op]
                            ref = f(xw, axis=axis, keepdims=keepdim)
                            scale = np.sum(np.abs(xw), axis=axis,
                                           keepdims=keepdim)
                            if op == "mean":
                                n = max(x.size // max(np.size(ref), 1), 1)
                                scale = scale / n
                            if op == "prod":
                                cnt = x.size // max(np.size(ref), 1)
                                scale = np.abs(ref) * (cnt + 1)
                        check_close(res, ref, scale, rt, what)
                    ncases += 1
    assert ncases > 100


@pytest.mark.parametrize("dt", FLOATS + COMPLEX, ids=name)
def test_functional_forms_and_out(dt):
    rng = np.random.default_rng(1)
    t, x = make((4, 5), dt, rng)
    for op in ("sum", "mean", "prod"):
        a = getattr(tl, op)(t, 1, True)
        b = getattr(t, op)(1, keepdim=True)
        assert np.array_equal(to_np(a), to_np(b), equal_nan=True)
        out = tl.empty((4, 1), dtype=dt)
        r = getattr(tl, op)(t, dim=1, keepdim=True, out=out)
        assert r is out
        assert np.array_equal(to_np(out), to_np(b), equal_nan=True)


# ---- amax, amin, max, min -------------------------------------------------------

MINMAX_DTYPES = [d for d in ALL_DTYPES if not is_complex(d)]


def with_nans(t, x, rng, frac=0.15):
    """Float tensors get NaNs at random places (in both t and x)."""
    if not is_float(t.dtype) or x.size == 0:
        return t, x
    x = x.copy()
    mask = rng.random(x.shape) < frac
    x[mask] = np.nan
    t2 = tl.tensor(x.astype(np.float32) if t.dtype == tl.bfloat16 else x)
    return t2.to(t.dtype), x


@pytest.mark.parametrize("dt", MINMAX_DTYPES, ids=name)
@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_vs_numpy(op, dt):
    rng = np.random.default_rng(seed(op, dt))
    npf = np.max if op == "amax" else np.min
    for shape in SHAPES:
        base, xb = make(shape, dt, rng)
        for nan in (False, True):
            b, xx = with_nans(base, xb, rng) if nan else (base, xb)
            views = layouts(b, xx, rng) + [("expanded",) + expanded(b, xx)]
            for label, t, x in views:
                for dim in dim_choices(t.ndim, rng):
                    axis = np_axis(dim, t.ndim)
                    reduced = (range(x.ndim) if axis is None else
                               np.atleast_1d(axis))
                    if x.size == 0 and (axis is None or any(
                            x.shape[d] == 0 for d in reduced)):
                        with pytest.raises(tl.ShapeError):
                            getattr(t, op)(dim=dim)
                        continue
                    for keepdim in (False, True):
                        r = getattr(t, op)(dim=dim, keepdim=keepdim)
                        ref = npf(x, axis=axis, keepdims=keepdim)
                        what = (op, name(dt), shape, label, dim, keepdim)
                        assert r.dtype == dt, what
                        assert np.array_equal(to_np(r), ref,
                                              equal_nan=x.dtype.kind == "f"),\
                            what


@pytest.mark.parametrize("dt", MINMAX_DTYPES, ids=name)
def test_max_min_forms(dt):
    rng = np.random.default_rng(7)
    for shape in [(), (6,), (3, 4), (2, 3, 4), (4, 1, 3)]:
        base, xb = make(shape, dt, rng)
        for nan in (False, True):
            b, xx = with_nans(base, xb, rng) if nan else (base, xb)
            for label, t, x in layouts(b, xx, rng):
                eqn = x.dtype.kind == "f"
                # full reduction: a 0-dim value
                for op, npf in (("max", np.max), ("min", np.min)):
                    r = getattr(t, op)()
                    assert r.shape == () and r.dtype == dt
                    assert np.array_equal(to_np(r), npf(x), equal_nan=eqn)
                    assert np.array_equal(to_np(getattr(tl, op)(t)), npf(x),
                                          equal_nan=eqn)
                # with dim: (values, indices)
                for d in range(-max(t.ndim, 1), max(t.ndim, 1)):
                    for keepdim in (False, True):
                        for op, npf, npa in (("max", np.max, np.argmax),
                                             ("min", np.min, np.argmin)):
                            res = getattr(t, op)(d, keepdim)
                            v, i = res
                            assert res.values is v and res.indices is i
                            assert type(res).__name__ == op
                            axis = d % t.ndim if t.ndim else None
                            what = (op, name(dt), shape, label, d, keepdim)
                            assert v.dtype == dt and i.dtype == tl.int64
                            ref_v = npf(x, axis=axis, keepdims=keepdim)
                            xa = x.astype(np.int8) if dt == tl.bool else x
                            ref_i = npa(xa, axis=axis, keepdims=keepdim)
                            assert np.array_equal(to_np(v), ref_v,
                                                  equal_nan=eqn), what
                            assert np.array_equal(to_np(i), ref_i), what
                            f = getattr(tl, op)(t, dim=d, keepdim=keepdim)
                            assert np.array_equal(to_np(f.indices), ref_i)


def test_max_binary_form():
    a = tl.tensor([[1.0, 5.0], [float("nan"), 2.0]])
    b = tl.tensor([3.0, 3.0])
    assert np.array_equal(to_np(a.max(b)), [[3, 5], [np.nan, 3]],
                          equal_nan=True)
    assert np.array_equal(to_np(tl.min(a, b)), [[1, 3], [np.nan, 2]],
                          equal_nan=True)
    out = tl.empty((2, 2))
    assert tl.max(a, b, out=out) is out


def test_max_dim_out_tuple():
    t = tl.tensor([[1.0, 7.0, 3.0], [9.0, 2.0, 9.0]])
    v, i = tl.empty(2), tl.empty(2, dtype=tl.int64)
    res = tl.max(t, 1, out=(v, i))
    assert res.values is v and res.indices is i
    assert to_np(v).tolist() == [7, 9] and to_np(i).tolist() == [1, 0]
    with pytest.raises(TypeError):
        tl.max(t, 1, out=v)
    with pytest.raises(tl.ShapeError):  # values and indices share memory
        w = tl.empty(4, dtype=tl.int64)
        tl.max(t.long(), 1, out=(w[:2], w[1:3]))


# ---- argmax, argmin ------------------------------------------------------------

ARG_DTYPES = [d for d in MINMAX_DTYPES if d != tl.bool]


@pytest.mark.parametrize("dt", ARG_DTYPES, ids=name)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin_vs_numpy(op, dt):
    rng = np.random.default_rng(seed(op, dt))
    npf = np.argmax if op == "argmax" else np.argmin
    for shape in SHAPES:
        base, xb = make(shape, dt, rng, "small")   # small ints: many ties
        for nan in (False, True):
            b, xx = with_nans(base, xb, rng) if nan else (base, xb)
            views = layouts(b, xx, rng) + [("expanded",) + expanded(b, xx)]
            for label, t, x in views:
                for dim in dim_choices(t.ndim, rng, allow_tuple=False):
                    axis = np_axis(dim, t.ndim)
                    if x.size == 0 and (axis is None or x.shape[axis] == 0):
                        with pytest.raises(tl.ShapeError):
                            getattr(t, op)(dim)
                        continue
                    for keepdim in (False, True):
                        r = getattr(t, op)(dim, keepdim)
                        what = (op, name(dt), shape, label, dim, keepdim)
                        assert r.dtype == tl.int64, what
                        if axis is None and keepdim:
                            ref = np.reshape(npf(x), (1,) * x.ndim)
                        else:
                            ref = npf(x, axis=axis, keepdims=keepdim)
                        assert np.array_equal(to_np(r), ref), what


def test_arg_first_occurrence_and_nan():
    nan = float("nan")
    assert tl.tensor([3.0, 1.0, 3.0]).argmax().item() == 0
    assert tl.tensor([1.0, 0.0, 0.0]).argmin().item() == 1
    assert tl.tensor([1.0, nan, 3.0, nan]).argmax().item() == 1
    assert tl.tensor([1.0, nan, 3.0, nan]).argmin().item() == 1
    assert tl.tensor([nan, 5.0]).argmin().item() == 0
    v, i = tl.tensor([[1.0, nan, 3.0], [2.0, 2.0, 0.0]]).max(1)
    assert np.isnan(to_np(v)[0]) and to_np(i).tolist() == [1, 0]
    # A long row split into chunks (and threads): the first maximum wins.
    x = np.zeros(300000, dtype=np.float32)
    x[[70000, 150000, 299999]] = 5
    assert tl.tensor(x).argmax().item() == 70000
    x[200000] = np.nan
    assert tl.tensor(x).argmax().item() == 200000
    x[100] = np.nan
    assert tl.tensor(x).argmin().item() == 100
    y = np.ones((100000, 3), dtype=np.int32)
    y[[5, 90000], 1] = 7
    assert to_np(tl.tensor(y).argmax(0)).tolist() == [0, 5, 0]


# ---- any, all ----------------------------------------------------------------------


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=name)
@pytest.mark.parametrize("op", ["any", "all"])
def test_any_all_vs_numpy(op, dt):
    rng = np.random.default_rng(seed(op, dt))
    npf = np.any if op == "any" else np.all
    rt = tl.uint8 if dt == tl.uint8 else tl.bool
    for shape in SHAPES:
        base, xb = make(shape, dt, rng, "small")
        # sprinkle zeros (and for floats NaN and -0.0, which count as
        # nonzero and zero)
        if xb.size:
            xz = xb.copy()
            xz[rng.random(xz.shape) < 0.5] = 0
            if is_float(dt):
                xz[rng.random(xz.shape) < 0.1] = np.nan
                xz[rng.random(xz.shape) < 0.1] = -0.0
            src = xz.astype(np.float32) if dt == tl.bfloat16 else xz
            base, xb = tl.tensor(src).to(dt), xz
        views = layouts(base, xb, rng) + [("expanded",) + expanded(base, xb)]
        for label, t, x in views:
            for dim in dim_choices(t.ndim, rng):
                for keepdim in (False, True):
                    r = getattr(t, op)(dim=dim, keepdim=keepdim)
                    axis = np_axis(dim, t.ndim, empty_all=False)
                    what = (op, name(dt), shape, label, dim, keepdim)
                    assert r.dtype == rt, what
                    if axis == ():   # PyTorch: dim=() reduces nothing
                        ref = x != 0
                    else:
                        ref = npf(x, axis=axis, keepdims=keepdim)
                    assert np.array_equal(to_np(r).astype(bool), ref), what


def test_any_all_short_circuit_long():
    x = np.zeros(1 << 20, dtype=np.uint8)
    assert not tl.tensor(x).any().item()
    x[-1] = 1
    assert tl.tensor(x).any().item() == 1
    assert tl.tensor(x.astype(bool)).any().item() is True
    assert tl.tensor(np.ones(1 << 20, bool)).all().item() is True


# ---- var, std ---------------------------------------------------------------------------


@pytest.mark.parametrize("dt", FLOATS + COMPLEX, ids=name)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_vs_numpy(op, dt):
    rng = np.random.default_rng(seed(op, dt))
    npf = np.var if op == "var" else np.std
    rt = real_of(dt)
    for shape in SHAPES:
        base, xb = make(shape, dt, rng)
        views = layouts(base, xb, rng) + [("expanded",) + expanded(base, xb)]
        for label, t, x in views:
            for dim in dim_choices(t.ndim, rng):
                for keepdim in (False, True):
                    for corr in (1, 0, 2.5):
                        r = getattr(t, op)(dim, keepdim=keepdim,
                                           correction=corr)
                        axis = np_axis(dim, t.ndim)
                        what = (op, name(dt), shape, label, dim, keepdim,
                                corr)
                        assert r.dtype == rt, what
                        with np.errstate(all="ignore"), \
                                warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            ref = npf(wide(x), axis=axis, ddof=corr,
                                      keepdims=keepdim)
                            scale = np.mean(np.abs(wide(x)) ** 2,
                                            axis=axis, keepdims=keepdim)
                            if op == "std":   # sqrt of a near-zero var
                                scale = np.sqrt(scale) * 2.0 ** 26
                        check_close(to_np(r), ref, scale, rt, what)


def test_var_unbiased_and_correction_forms():
    t = tl.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    x = to_np(t)
    assert math.isclose(t.var().item(), np.var(x, ddof=1))
    assert math.isclose(t.var(False).item(), np.var(x))
    assert math.isclose(t.var(unbiased=False).item(), np.var(x))
    assert np.allclose(to_np(t.var(0, False)), np.var(x, 0))
    assert np.allclose(to_np(t.var(0, True, True)),
                       np.var(x, 0, ddof=1, keepdims=True))
    assert np.allclose(to_np(tl.std(t, 1, correction=0)), np.std(x, 1))
    assert np.allclose(to_np(t.std(dim=(0, 1), correction=2)),
                       np.std(x, ddof=2))
    with pytest.raises(TypeError):
        t.var(0, correction=0, unbiased=True)
    with pytest.raises(TypeError):
        t.var(0, correction="a")
    # degrees of freedom <= 0: NaN (0/0) or inf
    assert math.isnan(tl.tensor([1.0]).var().item())
    assert math.isinf(tl.tensor([1.0, 2.0]).var(correction=2).item())
    assert math.isnan(tl.tensor([1.0, 1.0]).var(correction=2).item())
    # complex: the variance of |x - mean|, real dtype
    z = tl.tensor([1 + 1j, 2 + 0j, 0 - 1j])
    assert z.var().dtype == tl.float32
    assert math.isclose(z.var().item(),
                        np.var(np.array([1 + 1j, 2, -1j]), ddof=1),
                        rel_tol=1e-6)


def test_var_large_offset_is_stable():
    rng = np.random.default_rng(3)
    noise = rng.standard_normal(100001)
    x = 1e8 + noise
    ref = np.var(noise, ddof=1)           # the offset changes nothing exact
    for t in (tl.tensor(x), tl.tensor(x.reshape(-1, 1)).T,
              tl.tensor(np.ascontiguousarray(np.stack([x, x], 1)))[:, 0]):
        got = t.var().item() if t.ndim == 1 else t.var(dim=(0, 1)).item()
        assert abs(got - ref) / ref < 1e-7, (got, ref)
    # along dim 0 of a matrix (the cols layout)
    m = np.stack([x, x + 5, x * 0 + 1e8], 1)
    got = to_np(tl.tensor(m).var(0))
    assert np.allclose(got[:2], ref, rtol=1e-7)
    assert got[2] == 0
    # float32 with a large offset: the float64 accumulation keeps it
    x32 = (np.float32(1e4) + rng.standard_normal(50000).astype(np.float32))
    r32 = tl.tensor(x32).var().item()
    assert math.isclose(r32, np.var(x32.astype(np.float64), ddof=1),
                        rel_tol=1e-6)


# ---- NaN, inf --------------------------------------------------------------------------


def test_nan_propagation():
    nan, inf = float("nan"), float("inf")
    t = tl.tensor([[1.0, nan, 3.0], [-inf, 2.0, inf]])
    assert math.isnan(t.sum().item())
    assert to_np(t.sum(1))[1] != to_np(t.sum(1))[1]        # inf - inf
    assert math.isnan(t.amax().item()) and math.isnan(t.amin().item())
    assert math.isnan(t.max().item()) and math.isnan(t.min().item())
    assert np.array_equal(to_np(t.amax(1)), [nan, inf], equal_nan=True)
    assert np.array_equal(to_np(t.amin(1)), [nan, -inf], equal_nan=True)
    assert np.array_equal(to_np(t.amax(0)), [1, nan, inf], equal_nan=True)
    assert math.isnan(t.mean().item()) and math.isnan(t.var().item())
    assert t.any().item() and t.all().item()
    for dt in (tl.float16, tl.bfloat16):
        h = t.to(dt)
        assert math.isnan(h.amax().item()) and h.argmax().item() == 1
    # many NaN positions in a long contiguous run (the lane kernels)
    x = np.arange(1000, dtype=np.float64)
    for pos in (0, 5, 7, 8, 500, 999):
        y = x.copy()
        y[pos] = np.nan
        assert math.isnan(tl.tensor(y).amax().item())
        assert math.isnan(tl.tensor(y.astype(np.float32)).amin().item())
        assert tl.tensor(y).argmax().item() == pos


# ---- empty reductions ---------------------------------------------------------------------


def test_empty_reductions():
    e = tl.empty((0, 3))
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert np.isnan(to_np(e.mean(0))).all() and e.mean(0).shape == (3,)
    assert e.sum(1).shape == (0,)
    assert e.any().item() is False and e.all().item() is True
    assert to_np(e.sum(0)).tolist() == [0, 0, 0]
    assert to_np(e.prod(0)).tolist() == [1, 1, 1]
    assert math.isnan(e.var().item()) and math.isnan(e.std().item())
    assert e.long().sum().dtype == tl.int64
    assert tl.empty(0, dtype=tl.complex64).mean().dtype == tl.complex64
    # reductions without an identity
    with pytest.raises(tl.ShapeError, match=r"amax\(\): dim 0 of shape "
                       r"\[0, 3\] has size 0"):
        e.amax(0)
    with pytest.raises(RuntimeError, match=r"max\(\): the input of shape "
                       r"\[0, 3\] is empty.*pass dim="):
        e.max()
    with pytest.raises(tl.ShapeError, match="argmax"):
        e.argmax()
    with pytest.raises(tl.ShapeError, match=r"max\(\): dim 0 of shape "
                       r"\[0, 3\] has size 0"):
        e.max(0)
    with pytest.raises(tl.ShapeError):
        e.argmin(0)
    assert e.amax(1).shape == (0,)
    v, i = e.max(1)
    assert v.shape == (0,) and i.shape == (0,) and i.dtype == tl.int64
    assert e.argmax(1).shape == (0,)
    assert tl.empty((3, 0)).amax(0).shape == (0,)


def test_zero_dim():
    t = tl.tensor(5.0)
    for dim in (None, 0, -1, (), (0,)):
        assert t.sum(dim).item() == 5
        assert t.sum(dim, keepdim=True).shape == ()
    assert t.max(0).values.item() == 5 and t.max(0).indices.item() == 0
    assert t.argmax().item() == 0 and t.argmax(0).item() == 0
    assert t.argmax(keepdim=True).shape == ()
    assert math.isnan(t.var().item())
    assert t.var(correction=0).item() == 0
    with pytest.raises(IndexError, match=r"dim 1 is out of range for a 0-d "
                       r"tensor: valid dims are -1 to 0"):
        t.sum(1)


# ---- dtype=, out= --------------------------------------------------------------------------


def test_dtype_argument():
    x = np.array([[100, 100, 100], [-7, 3, 120]], dtype=np.int8)
    t = tl.tensor(x)
    assert t.sum().dtype == tl.int64 and t.sum().item() == 416
    r = t.sum(dtype=tl.float32)
    assert r.dtype == tl.float32 and r.item() == 416
    r = t.sum(1, dtype=tl.int8)      # cast first, sum wraps in int8
    assert r.dtype == tl.int8 and to_np(r).tolist() == [44, 116]
    r = t.prod(1, dtype=tl.float64)
    assert r.dtype == tl.float64 and to_np(r).tolist() == [1e6, -2520]
    assert t.float().sum(dtype=tl.float64).dtype == tl.float64
    f = tl.tensor([1.7, 2.7, -0.5])
    assert f.sum(dtype=tl.int32).item() == 3     # the input is cast first
    assert t.mean(dtype=tl.float64).item() == pytest.approx(416 / 6)
    assert t.mean(1, dtype=tl.complex64).dtype == tl.complex64
    b = tl.tensor([True, False, True])
    assert b.sum().item() == 2 and b.sum(dtype=tl.bool).item() is True
    h = tl.tensor([1.0, 2.0]).half()
    assert h.sum(dtype=tl.float32).dtype == tl.float32
    assert tl.tensor([1 + 2j]).sum(dtype=tl.float32).item() == 1.0
    with pytest.raises(TypeError, match="mean\\(\\) of a tensor of dtype int8 "
                       "needs a floating point or complex result"):
        t.mean()
    with pytest.raises(TypeError, match="dtype=int64 is not a floating "
                       "point or complex dtype"):
        t.mean(dtype=tl.int64)
    with pytest.raises(TypeError):
        tl.amax(t, 0, dtype=tl.float32)


def test_out_semantics():
    t = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    # right shape
    out = tl.empty(3)
    v0 = out._version
    assert tl.sum(t, 0, out=out) is out
    assert to_np(out).tolist() == [5, 7, 9] and out._version > v0
    # keepdim shape
    out = tl.empty((1, 3))
    tl.amax(t, 0, keepdim=True, out=out)
    assert to_np(out).tolist() == [[4, 5, 6]]
    # empty and owning: resized
    out = tl.empty(0)
    tl.mean(t, 1, out=out)
    assert out.shape == (2,) and to_np(out).tolist() == [2, 5]
    # another dtype the result can be cast to
    out = tl.empty(2, dtype=tl.float64)
    tl.sum(t, 1, out=out)
    assert to_np(out).tolist() == [6, 15]
    out = tl.empty(3, dtype=tl.float32)
    tl.sum(t.long(), 0, out=out)
    assert to_np(out).tolist() == [5, 7, 9]
    out = tl.empty((), dtype=tl.int32)
    tl.argmax(t, out=out)
    assert out.item() == 5
    # wrong shape, an empty view: errors, out unchanged
    out = tl.zeros(5)
    with pytest.raises(tl.ShapeError, match="the output has shape"):
        tl.sum(t, 0, out=out)
    assert to_np(out).tolist() == [0] * 5
    view = tl.zeros(4)[2:2]
    with pytest.raises(tl.ShapeError):
        tl.sum(t, 0, out=view)
    # dtype that the result cannot be cast to
    out = tl.zeros(3, dtype=tl.int64)
    with pytest.raises(TypeError, match="cannot hold"):
        tl.sum(t, 0, out=out)
    with pytest.raises(TypeError, match="dtype=float64 was asked for, but out= "
                       "has dtype float32"):
        tl.sum(t, 0, dtype=tl.float64, out=tl.empty(3))
    assert to_np(out).tolist() == [0, 0, 0]
    # empty outs that cannot grow: refused before anything is computed
    ext = tl.from_numpy(np.zeros(0))
    with pytest.raises(RuntimeError, match="not resizable"):
        tl.sum(t, 0, out=ext)
    assert ext.shape == (0,)
    exp = tl.empty(0)
    held = memoryview(exp)
    with pytest.raises(BufferError):
        tl.sum(t, 0, out=exp)
    held.release()
    assert exp.shape == (0,)
    vals, idx = tl.empty(0), tl.empty(0, dtype=tl.int64)
    held = memoryview(idx)
    with pytest.raises(BufferError):
        tl.max(t, 0, out=(vals, idx))
    held.release()
    assert vals.shape == (0,) and idx.shape == (0,)   # neither resized
    # read-only out
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        tl.sum(t, 0, out=tl.from_numpy(ro))
    # an out that overlaps itself
    with pytest.raises(tl.ShapeError):
        tl.sum(t, 0, out=tl.zeros(1).expand(3))
    # out sharing memory with the input: right answer all the same
    u = tl.tensor(np.arange(12.0).reshape(3, 4))
    tl.sum(u, 0, out=u[0])
    assert to_np(u)[0].tolist() == [12, 15, 18, 21]
    u = tl.tensor(np.arange(12.0).reshape(3, 4))
    tl.amax(u.T, 0, out=u[:, 0])
    assert to_np(u)[:, 0].tolist() == [3, 7, 11]
    for op in ("prod", "amin", "any", "all", "var", "std", "argmin"):
        ref = getattr(t, op)(1)
        out = tl.empty(0, dtype=ref.dtype)
        getattr(tl, op)(t, 1, out=out)
        assert np.array_equal(to_np(out), to_np(ref))


def test_transposed_output_layout():
    t = tl.tensor(np.arange(24.0).reshape(2, 3, 4))
    out = tl.empty((4, 2)).T     # (2, 4) with strides (1, 2)
    tl.sum(t, 1, out=out)
    assert np.array_equal(to_np(out), np.arange(24.0).reshape(2, 3, 4)
                          .sum(1))


# ---- threads and determinism ---------------------------------------------------------------


def test_thread_count_independence():
    rng = np.random.default_rng(11)
    x32 = rng.standard_normal((1000, 3001)).astype(np.float32)
    x64 = rng.standard_normal(2_000_003)
    cases = [
        lambda: tl.tensor(x32).sum(),
        lambda: tl.tensor(x32).sum(0),
        lambda: tl.tensor(x32).sum(1),
        lambda: tl.tensor(x32).T.sum(0),
        lambda: tl.tensor(x32)[:, ::3].mean(1),
        lambda: tl.tensor(x32).var(0),
        lambda: tl.tensor(x64).sum(),
        lambda: tl.tensor(x64).std(),
        lambda: tl.tensor(x64.reshape(-1, 1)).expand(-1, 3).sum(0),
        lambda: tl.tensor(x64[:2_000_000].reshape(2000, 1000)).prod(0),
        lambda: tl.tensor(x64).argmax(),
        lambda: tl.tensor(x32).max(0).indices,
        lambda: tl.tensor(x32.astype(np.complex64)).sum(1),
    ]
    old = tl.get_num_threads()
    try:
        results = {}
        for n in (1, 2, 3):
            tl.set_num_threads(n)
            results[n] = [to_np(f()).tobytes() for f in cases]
        assert results[1] == results[2] == results[3]
    finally:
        tl.set_num_threads(old)


# ---- accuracy --------------------------------------------------------------------------------


def _sum_errors(x, ref, t):
    ours = abs(float(t) - ref)
    theirs = abs(float(x.sum()) - ref)
    return ours, theirs


@pytest.mark.slow
def test_accuracy_float32_1e7():
    rng = np.random.default_rng(5)
    x = (rng.random(10_000_000) + 0.5).astype(np.float32)  # no cancellation
    ref = float(x.astype(np.float64).sum())                 # exact enough
    ours, theirs = _sum_errors(x, ref, tl.tensor(x).sum().item())
    assert ours <= theirs, (ours, theirs)
    assert ours <= 0.5 * np.spacing(np.float32(ref))
    # with cancellation, against float64 references
    y = rng.standard_normal(10_000_000).astype(np.float32)
    ref = float(np.sum(y.astype(np.float64)))
    ours, theirs = _sum_errors(y, ref, tl.tensor(y).sum().item())
    assert ours <= theirs + 0.5 * np.spacing(np.float32(ref)), (ours, theirs)
    # an outer reduction: per column, against NumPy's errors
    z = (rng.random((1_250_000, 8)) + 0.5).astype(np.float32)
    ref = z.astype(np.float64).sum(0)
    ours = np.abs(to_np(tl.tensor(z).sum(0)).astype(np.float64) - ref).sum()
    theirs = np.abs(z.sum(0).astype(np.float64) - ref).sum()
    assert ours <= theirs, (ours, theirs)


@pytest.mark.slow
def test_accuracy_float64_1e7():
    rng = np.random.default_rng(6)
    x = rng.random(10_000_000) + 0.5
    ref = x.astype(np.longdouble).sum()
    ours = abs(np.longdouble(tl.tensor(x).sum().item()) - ref)
    theirs = abs(np.longdouble(x.sum()) - ref)
    assert ours <= theirs, (ours, theirs)
    y = rng.standard_normal(10_000_000) * 1e3
    ref = math.fsum(y[:2_000_000])
    ours = abs(tl.tensor(y[:2_000_000]).sum().item() - ref)
    theirs = abs(float(y[:2_000_000].sum()) - ref)
    assert ours <= theirs, (ours, theirs)
    # an outer reduction
    z = rng.random((1_000_000, 10)) + 0.5
    ref = z.astype(np.longdouble).sum(0)
    ours = np.abs(to_np(tl.tensor(z).sum(0)).astype(np.longdouble) - ref)
    theirs = np.abs(z.sum(0).astype(np.longdouble) - ref)
    assert ours.sum() <= theirs.sum(), (ours, theirs)
    # mean of a contiguous complex128 run
    c = x[:1_000_000] + 1j * x[1_000_000:2_000_000]
    got = tl.tensor(c).mean().item()
    exp = complex(math.fsum(c.real) / c.size, math.fsum(c.imag) / c.size)
    assert abs(got - exp) <= 4 * np.spacing(abs(exp))


_F64_DISTS = {
    "normal": lambda r, n: r.standard_normal(n) * 1e3,
    "positive": lambda r, n: r.random(n) + 0.5,
    "wide": lambda r, n: r.lognormal(0.0, 3.0, n) * r.choice([-1.0, 1.0], n),
}


@pytest.mark.parametrize("dist", sorted(_F64_DISTS))
@pytest.mark.parametrize("n", [7, 8, 9, 16, 31, 63, 64, 65, 129, 1000, 4099,
                               100_003])
def test_accuracy_float64_blocks(dist, n):
    # Note [Float64 lane blocks]: float64 sum, nansum and var's sum of
    # squares add blocks of 64 as trees and two-sum the block sums.  Each
    # sample's error against math.fsum stays within 3 eps sum|x| (the
    # trees) plus an ulp of the result, and over 24 samples the RMS error
    # is at most that of NumPy's pairwise sum.
    u = np.finfo(np.float64).eps / 2
    ours2 = theirs2 = nan_ours2 = nan_theirs2 = 0.0
    for seed in range(24):
        rng = np.random.default_rng([n, seed])
        x = _F64_DISTS[dist](rng, n)
        ref = math.fsum(x)
        got = tl.tensor(x).sum().item()
        bound = 3 * u * float(np.abs(x).sum()) * (1 + 1e-9) + np.spacing(abs(ref))
        assert abs(got - ref) <= bound, (seed, got, ref, bound)
        ours2 += (got - ref) ** 2
        theirs2 += (float(x.sum()) - ref) ** 2
        # nansum: NaNs anywhere, the same bound without them
        y = x.copy()
        y[rng.random(n) < 0.1] = np.nan
        kept = y[~np.isnan(y)]
        ref = math.fsum(kept)
        got = tl.tensor(y).nansum().item()
        bound = 3 * u * float(np.abs(kept).sum()) * (1 + 1e-9) + np.spacing(abs(ref))
        assert abs(got - ref) <= bound, (seed, got, ref, bound)
        nan_ours2 += (got - ref) ** 2
        nan_theirs2 += (float(np.nansum(y)) - ref) ** 2
        # var: the squared deviations are all positive, so a few ulp
        if n > 1:
            m = math.fsum(x) / n
            ref = math.fsum((x - m) ** 2) / (n - 1)
            got = tl.tensor(x).var().item()
            assert abs(got - ref) <= 16 * u * ref, (seed, got, ref)
    assert ours2 <= theirs2, (ours2, theirs2)
    assert nan_ours2 <= nan_theirs2, (nan_ours2, nan_theirs2)


def test_big_layouts_match_numpy():
    rng = np.random.default_rng(8)
    b = rng.random((4096, 4096), dtype=np.float32)
    t = tl.tensor(b)
    ref0 = b.astype(np.float64).sum(0)
    assert np.allclose(to_np(t.sum(0)), ref0, rtol=1e-6)
    assert np.allclose(to_np(t.sum(1)), b.astype(np.float64).sum(1),
                       rtol=1e-6)
    assert np.allclose(to_np(t.T.sum(1)), ref0, rtol=1e-6)
    assert np.allclose(to_np(t[::2, ::3].sum(0)),
                       b[::2, ::3].astype(np.float64).sum(0), rtol=1e-6)
    assert np.array_equal(to_np(t.amax(0)), b.max(0))
    assert np.array_equal(to_np(t.argmin(1)), b.argmin(1))


# ---- bad input -------------------------------------------------------------------------------


def test_bad_dims():
    t = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v0 = t._version
    for op in ("sum", "prod", "mean", "amax", "amin", "any", "all", "var",
               "std"):
        f = getattr(t, op)
        with pytest.raises(IndexError, match=r"dim 2 is out of range for a "
                           r"2-d tensor: valid dims are -2 to 1"):
            f(2)
        with pytest.raises(IndexError):
            f((0, -3))
        with pytest.raises(tl.ShapeError, match=r"dim 0 is named twice in "
                           r"dims=\[0, -2\]"):
            f((0, -2))
        with pytest.raises(RuntimeError):
            f((1, 1))
        with pytest.raises(TypeError):
            f(1.5)
        with pytest.raises(TypeError):
            f("a")
        with pytest.raises(TypeError):
            f((0, None))
    for op in ("argmax", "argmin", "max", "min"):
        with pytest.raises(IndexError):
            getattr(t, op)(-3)
        with pytest.raises(TypeError):
            getattr(t, op)((0, 1))
    with pytest.raises(TypeError):
        t.sum(True)                  # a bool is not a dim
    with pytest.raises(TypeError):
        t.sum(0, keepdim="yes")
    with pytest.raises(TypeError):
        t.sum(0, False, tl.float32)  # dtype is keyword-only
    with pytest.raises(TypeError):
        tl.sum([1, 2])
    with pytest.raises(TypeError):
        tl.sum(t, out=[1])
    assert t._version == v0
    assert to_np(t).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_bad_dtypes():
    z = tl.tensor([1 + 1j, 2 + 0j])
    for op in ("amax", "amin", "max", "min", "argmax", "argmin"):
        with pytest.raises(TypeError, match="complex"):
            getattr(z, op)()
    with pytest.raises(TypeError, match="complex"):
        z.max(0)
    b = tl.tensor([True, False])
    with pytest.raises(TypeError, match="bool"):
        b.argmax()
    assert b.max().item() is True and b.max(0).indices.item() == 0
    for dt in INTS + [tl.bool]:
        t = tl.zeros(3, dtype=dt)
        with pytest.raises(TypeError, match="var\\(\\) needs a floating "
                           "point or complex input"):
            t.var()
        with pytest.raises(TypeError):
            t.std(0)
        with pytest.raises(TypeError, match="mean"):
            t.mean()


def test_method_signatures():
    assert tl.Tensor.sum.__text_signature__ == \
        "($self, dim=None, keepdim=False, *, dtype=None)"
    assert tl.sum.__text_signature__ == \
        "(input, dim=None, keepdim=False, *, dtype=None, out=None)"
    for op in ("prod", "mean", "amax", "amin", "max", "min", "argmax",
               "argmin", "any", "all", "var", "std"):
        assert getattr(tl.Tensor, op).__text_signature__.startswith(
            "($self, dim=None")
        assert getattr(tl, op).__text_signature__.startswith(
            "(input, dim=None")


# ---- PyTorch: dtypes and errors ------------------------------------------------------------

TORCH_OPS = {
    "sum": lambda m, t: t.sum(),
    "sum0": lambda m, t: t.sum(0),
    "sum_keep": lambda m, t: t.sum((0, 1), keepdim=True),
    "prod": lambda m, t: t.prod(),
    "prod0": lambda m, t: t.prod(0),
    "mean": lambda m, t: t.mean(),
    "mean1": lambda m, t: t.mean(1),
    "amax": lambda m, t: t.amax(),
    "amin0": lambda m, t: t.amin(0),
    "max": lambda m, t: t.max(),
    "max0": lambda m, t: t.max(0)[0],
    "max0_idx": lambda m, t: t.max(0)[1],
    "min1": lambda m, t: t.min(1)[0],
    "argmax": lambda m, t: t.argmax(),
    "argmin0": lambda m, t: t.argmin(0),
    "any": lambda m, t: t.any(),
    "all0": lambda m, t: t.all(0),
    "var": lambda m, t: t.var(),
    "std0": lambda m, t: t.std(0),
    "sum_dtype": lambda m, t: t.sum(dtype=m.float64),
}


@pytest.mark.parametrize("op", sorted(TORCH_OPS))
def test_result_dtypes_vs_torch(torch, op):
    f = TORCH_OPS[op]
    for dt in ALL_DTYPES:
        tdt = getattr(torch, name(dt))
        tt = torch.ones(2, 3, dtype=tdt)
        ours = tl.ones((2, 3), dtype=dt)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expect = f(torch, tt)
        except NotImplementedError:
            if is_complex(dt):   # no complex max: a TypeError here
                with pytest.raises(TypeError):
                    f(tl, ours)
                continue
            # PyTorch has no CPU kernel (uint16/32/64 max, argmax):
            # tensorlib follows NumPy there and keeps the input dtype.
            assert dt in (tl.uint16, tl.uint32, tl.uint64), (op, dt)
            r = f(tl, ours)
            assert r.dtype in (dt, tl.int64)
            continue
        except (RuntimeError, TypeError) as e:
            with pytest.raises((TypeError, RuntimeError)) as ei:
                f(tl, ours)
            # unsupported dtypes are TypeErrors here (DESIGN.md "Errors")
            assert isinstance(ei.value, TypeError), (op, dt, e, ei.value)
            continue
        r = f(tl, ours)
        assert name(r.dtype) == str(expect.dtype).split(".")[-1], (op, dt)
        assert tuple(r.shape) == tuple(expect.shape), (op, dt)


def test_values_vs_torch(torch):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((5, 6, 7)).astype(np.float32)
    x[1, 2, 3] = np.nan
    t, tt = tl.tensor(x), torch.from_numpy(x.copy())
    for dim in (0, 1, 2, -1):
        for keepdim in (False, True):
            a = t.max(dim, keepdim)
            b = tt.max(dim, keepdim)
            assert np.array_equal(to_np(a.values), b.values.numpy(),
                                  equal_nan=True)
            assert np.array_equal(to_np(a.indices), b.indices.numpy())
            assert np.array_equal(to_np(t.argmin(dim, keepdim)),
                                  tt.argmin(dim, keepdim).numpy())
    y = np.nan_to_num(x)
    t, tt = tl.tensor(y), torch.from_numpy(y)
    for dim in ((0, 2), (1,), None):
        for corr in (0, 1, 3):
            assert np.allclose(to_np(t.var(dim, correction=corr)),
                               tt.var(dim, correction=corr).numpy(),
                               rtol=1e-5, atol=1e-6)
        assert np.allclose(to_np(t.std(dim, False)),
                           tt.std(dim, False).numpy(), rtol=1e-5)
        assert np.allclose(to_np(t.mean(dim)), tt.mean(dim).numpy(),
                           rtol=1e-5, atol=1e-6)
    u = (rng.random((4, 5)) < 0.5).astype(np.uint8)
    assert np.array_equal(to_np(tl.tensor(u).any(1)),
                          torch.from_numpy(u).any(1).numpy())


def test_errors_vs_torch(torch):
    cases = [
        lambda m: m.ones(2, 3).sum(2),
        lambda m: m.ones(2, 3).sum((0, 0)),
        lambda m: m.ones(2, 3).amax((1, -1)),
        lambda m: m.zeros(0, 3).amax(0),
        lambda m: m.zeros(0, 3).argmax(),
        lambda m: m.ones(3, dtype=m.int64).mean(),
        lambda m: m.ones(3, dtype=m.int32).var(),
        lambda m: m.ones(3, dtype=m.complex64).argmax(),
        lambda m: m.ones(3, dtype=m.bool).argmin(),
    ]
    for i, f in enumerate(cases):
        with pytest.raises(Exception) as te:
            f(torch)
        with pytest.raises(Exception) as oe:
            f(tl)
        # every PyTorch exception class here is an IndexError or a
        # RuntimeError; tensorlib maps dtype errors to TypeError and the
        # empty-reduction IndexError to ShapeError (a RuntimeError).
        if isinstance(te.value, IndexError) and "non-zero" not in \
                str(te.value) and "numel" not in str(te.value):
            assert isinstance(oe.value, IndexError), i
        elif "dtype" in str(te.value) or "support" in str(te.value):
            assert isinstance(oe.value, TypeError), i
        else:
            assert isinstance(oe.value, RuntimeError), i
