"""The binary functions of issue 18 (op-table rows with scalar_math.h
functions): values against NumPy on random inputs, IEEE special values
(every pair of +-0, +-inf, NaN, subnormals, finite values), layouts and
broadcasting, out= and in-place forms, float16/bfloat16 computed in
float32 and rounded once, integer gcd/lcm/fmod, and result dtypes and
refusals against PyTorch."""
import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (FLOATS, INTS, LAYOUTS, RTOL, TORCH_FULL, as_dtype,
                         check, compute_dtype, finish, from_np, is_int,
                         rng_for, to_np, torch_dtype, view_as)


def _xlogy(x, y):
    with np.errstate(all="ignore"):
        r = x * np.log(y)
    r = np.where(x == 0, 0, r)
    return np.where(np.isnan(y), np.nan, r).astype(r.dtype)


def _ldexp(x, y):
    return np.ldexp(x, np.clip(y, -9999, 9999).astype(np.int32))


def _heaviside(x, y):
    return np.heaviside(x, y).astype(x.dtype)


# name -> (NumPy oracle, exact, integer exponent on the right)
FLOAT_OPS = {
    "atan2": (np.arctan2, False),
    "hypot": (np.hypot, False),
    "logaddexp": (np.logaddexp, False),
    "logaddexp2": (np.logaddexp2, False),
    "xlogy": (_xlogy, False),
    "fmod": (np.fmod, True),
    "copysign": (np.copysign, True),
    "nextafter": (np.nextafter, True),
    "ldexp": (_ldexp, True),
    "heaviside": (_heaviside, True),
    "fmax": (np.fmax, True),
    "fmin": (np.fmin, True),
}
# PyTorch has complex forms of these; tensorlib refuses complex for now.
COMPLEX_LATER = {"logaddexp", "ldexp"}
INT_OPS = {"gcd": np.gcd, "lcm": np.lcm, "fmod": np.fmod,
           "fmax": np.fmax, "fmin": np.fmin}
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5,
                     -3.0, 1e-310, -1e-310, 1e300, -1e300, 0.5])


def _oracle(op, x, y, d):
    fn, _ = FLOAT_OPS[op]
    cd = compute_dtype(d)
    if op == "nextafter" and d in (tl.float16, tl.bfloat16):
        # the bit-level step works in the dtype itself (issue 18)
        cd = np.float16 if d == tl.float16 else \
            pytest.importorskip("ml_dtypes").bfloat16
        with np.errstate(all="ignore"):
            v = np.asarray(fn(x.astype(cd), y.astype(cd)))
        # x == y gives y (C99, PyTorch, NumPy's float32): NumPy's float16
        # loop gives x, so nextafter(0, -0) would be +0 there
        v = np.where(x == y, y.astype(cd), v)
        return finish(v.astype(np.float32), d)
    with np.errstate(all="ignore"):
        v = np.asarray(fn(x.astype(cd), y.astype(cd)))
    return finish(v.astype(cd), d)


def _check(op, got, want, d):
    if FLOAT_OPS[op][1]:
        check(got, want, d, what=op)
    else:
        check(got, want, d, exact=False, rtol=RTOL[d] * 2,
              atol=RTOL[d] / 1e3, what=op)


@pytest.mark.parametrize("op", list(FLOAT_OPS))
@pytest.mark.parametrize("d", FLOATS)
def test_values_layouts_and_broadcast(op, d):
    rng = rng_for("math_binary", op, str(d))
    for shape in [(4, 6), (0, 3), ()]:
        x = as_dtype(rng.standard_normal(shape) * 3, d)
        if op == "ldexp":
            y = as_dtype(rng.integers(-20, 20, shape), d)
        elif op == "xlogy":
            y = as_dtype(rng.uniform(0.01, 5, shape), d)
            x = np.where(rng.random(shape) < 0.2, 0, x).astype(x.dtype)
        else:
            y = as_dtype(rng.standard_normal(shape) * 3, d)
        if op in ("fmod",):
            y = np.where(y == 0, 1, y).astype(y.dtype)
        want = _oracle(op, x, y, d)
        for layout in LAYOUTS:
            a, b = view_as(x, d, layout), view_as(y, d, "flipped")
            _check(op, getattr(tl, op)(a, b), want, d)
            _check(op, getattr(a, op)(b), want, d)
    # broadcasting: a row against a column
    x = as_dtype(rng.standard_normal((3, 1)), d)
    y = as_dtype(rng.integers(-3, 4, (1, 5)) if op == "ldexp"
                 else rng.uniform(0.5, 2, (1, 5)), d)
    got = getattr(tl, op)(from_np(x, d), from_np(y, d))
    xb, yb = np.broadcast_arrays(x, y)
    _check(op, got, _oracle(op, xb, yb, d), d)


@pytest.mark.parametrize("op", list(FLOAT_OPS))
@pytest.mark.parametrize("d", [tl.float32, tl.float64])
def test_special_values_every_pair(op, d):
    """Every pair of special values, as NumPy (C99 Annex F) gives it."""
    x, y = np.meshgrid(SPECIALS, SPECIALS, indexing="ij")
    x, y = as_dtype(x, d), as_dtype(y, d)
    if op == "ldexp":
        y = np.where(np.isfinite(y), np.trunc(y), 0).astype(y.dtype)
    want = _oracle(op, x, y, d)
    got = to_np(getattr(tl, op)(from_np(x, d), from_np(y, d)))
    nan_ok = np.isnan(got) == np.isnan(want)
    assert nan_ok.all(), (op, x[~nan_ok], y[~nan_ok], got[~nan_ok])
    inf = np.isinf(want) | np.isinf(got)
    assert (got[inf] == want[inf]).all(), (op, x[inf], y[inf], got[inf])
    z = want == 0
    assert (np.signbit(got[z]) == np.signbit(want[z])).all(), (
        op, x[z], y[z], got[z], want[z])
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=RTOL[d] * 2,
                               atol=1e-300)


@pytest.mark.parametrize("d", INTS)
def test_integer_ops(d):
    rng = rng_for("math_binary_int", str(d))
    info = np.iinfo(as_dtype(np.zeros(1), d).dtype)
    x = as_dtype(rng.integers(max(info.min, -1000), min(info.max, 1000),
                              (5, 7), endpoint=True), d)
    y = as_dtype(rng.integers(max(info.min, -60), 60, (5, 7),
                              endpoint=True), d)
    y[y == 0] = 3
    for op, fn in INT_OPS.items():
        with np.errstate(all="ignore"):
            want = fn(x, y).astype(x.dtype)
        for layout in ("contiguous", "transposed", "neg_stepped"):
            check(getattr(tl, op)(view_as(x, d, layout),
                                  view_as(y, d, "flipped")), want, d,
                  what=op)
    with pytest.raises(ZeroDivisionError, match="fmod"):
        tl.fmod(from_np(x, d), tl.zeros((), dtype=d))
    check(tl.gcd(from_np(x, d), tl.zeros((), dtype=d)),
          np.gcd(x, np.zeros((), x.dtype)).astype(x.dtype), d)


def test_integer_edge_cases():
    i8 = np.array([-128, -128, 0, 0, -7, 7], np.int8)
    j8 = np.array([-1, 0, 0, 5, 2, -2], np.int8)
    t, u = tl.tensor(i8), tl.tensor(j8)
    check(tl.gcd(t, u), np.gcd(i8, j8), tl.int8)
    check(tl.lcm(t, u), np.lcm(i8, j8), tl.int8)
    nz = j8 != 0
    check(tl.fmod(tl.tensor(i8[nz]), tl.tensor(j8[nz])),
          np.fmod(i8[nz], j8[nz]), tl.int8)


@pytest.mark.parametrize("op", list(FLOAT_OPS))
@pytest.mark.parametrize("d", [tl.float32, tl.float16, tl.bfloat16])
def test_out_and_inplace(op, d):
    rng = rng_for("math_binary_ip", op, str(d))
    x = as_dtype(rng.uniform(0.5, 3, (4, 6)), d)
    y = as_dtype(rng.integers(1, 5, (4, 6)), d)
    want = _oracle(op, x, y, d)
    v = from_np(np.ascontiguousarray(x.T), d).t()
    r = getattr(v, op + "_")(from_np(y, d))
    assert r is v
    _check(op, v, want, d)
    o = tl.zeros((4, 12), dtype=d)[:, ::2].flip(0)
    assert getattr(tl, op)(from_np(x, d), from_np(y, d), out=o) is o
    _check(op, o, want, d)


@pytest.mark.parametrize("d", [tl.float16, tl.bfloat16])
def test_nextafter_small_floats_steps_in_the_dtype(d):
    """nextafter of float16/bfloat16 steps in the dtype itself, as
    PyTorch and NumPy (ml_dtypes for bfloat16) do: every pair of special
    values and of the format's edges (the largest finite, the smallest
    normal and subnormal, both signs), bit for bit but NaN's payload."""
    big = 65504.0 if d == tl.float16 else float(
        np.float32(2.0 ** 127 * (2 - 2.0 ** -7)))
    tiny = 2.0 ** -14 if d == tl.float16 else 2.0 ** -126
    sub = 2.0 ** -24 if d == tl.float16 else 2.0 ** -133
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5,
                     big, -big, tiny, -tiny, sub, -sub, 3 * sub, 0.1])
    x, y = np.meshgrid(vals, vals, indexing="ij")
    x, y = as_dtype(x, d), as_dtype(y, d)
    want = _oracle("nextafter", x, y, d)
    for layout in LAYOUTS:
        got = to_np(tl.nextafter(view_as(x, d, layout),
                                 view_as(y, d, "flipped")))
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all()
        assert np.array_equal(got[~nan], want[~nan])
        assert (np.signbit(got[~nan]) == np.signbit(want[~nan])).all()
    # a step actually moves: 1 -> 1 + eps of the dtype, not back to 1
    one = from_np(np.array([1.0]), d)
    eps = 2.0 ** -10 if d == tl.float16 else 2.0 ** -7
    assert to_np(tl.nextafter(one, one * 2)).tolist() == [1 + eps]
    assert to_np(one.nextafter_(one * 0)).tolist() == [1 - eps / 2]


def test_nextafter_small_floats_bits_vs_torch(torch):
    """Bit patterns against torch.nextafter on random float16/bfloat16
    pairs (NaN results compared as NaN)."""
    rng = rng_for("math_binary", "nextafter_bits")
    for d in (tl.float16, tl.bfloat16):
        td = torch_dtype(torch, d)
        bits = rng.integers(0, 1 << 16, (2, 4096)).astype(np.int16)
        tx = torch.from_numpy(bits[0]).view(td)
        ty = torch.from_numpy(bits[1]).view(td)
        want = torch.nextafter(tx, ty).float().numpy()
        got = to_np(tl.nextafter(from_np(tx.float().numpy(), d),
                                 from_np(ty.float().numpy(), d)))
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all()
        assert np.array_equal(got[~nan], want[~nan])
        assert (np.signbit(got[~nan]) == np.signbit(want[~nan])).all()


@pytest.mark.parametrize("op", list(FLOAT_OPS) + ["gcd", "lcm",
                                                  "arctan2"])
def test_result_dtypes_and_refusals_vs_torch(torch, op):
    for da in TORCH_FULL:
        for db in (da, tl.int64, tl.float32):
            a = from_np(np.array([2, 0]), da)
            b = from_np(np.array([3, 1]), db)
            ta = torch.tensor([2, 0]).to(torch_dtype(torch, da))
            tb = torch.tensor([3, 1]).to(torch_dtype(torch, db))
            try:
                want = getattr(torch, op)(ta, tb).dtype
            except (RuntimeError, TypeError, NotImplementedError):
                want = None
            if op == "heaviside" and da != db:
                # PyTorch refuses mixed dtypes; tensorlib promotes
                # (docs/differences.md)
                continue
            if want is not None and op in COMPLEX_LATER and (
                    str(want).endswith(("complex64", "complex128"))):
                # docs/differences.md: no complex forms yet
                with pytest.raises(TypeError, match="complex"):
                    getattr(tl, op)(a, b)
                continue
            if want is None:
                with pytest.raises((TypeError, ZeroDivisionError)):
                    getattr(tl, op)(a, b)
            else:
                got = getattr(tl, op)(a, b).dtype
                assert str(got).split(".")[-1] == \
                    str(want).split(".")[-1], (op, da, db)


def _divmod_pairs(n, rng):
    """float32 (a, b) pairs for fmod/remainder/floor_divide: random bit
    patterns, wide-ranged finite values with zeros, infinities and NaNs
    sprinkled in, and quotients at and one float step either side of an
    integer (where a rounded quotient is one too large)."""
    bits = rng.integers(0, 2 ** 32, (2, n), dtype=np.uint64)
    yield tuple(bits.astype(np.uint32).view(np.float32))
    a = (rng.standard_normal(n) * rng.choice([1, 1e3, 1e6, 1e9], n))
    b = rng.standard_normal(n) * rng.choice([1e-3, 1, 10], n)
    a, b = a.astype(np.float32), b.astype(np.float32)
    b[::97], b[::101], a[::103], a[::107] = 0, np.inf, np.nan, -0.0
    b[::109], a[::113] = -0.0, -np.inf
    yield a, b
    b = (rng.uniform(0.1, 10, n) * rng.choice([-1, 1], n)).astype(np.float32)
    a = (rng.integers(-2 ** 23, 2 ** 23, n) * b).astype(np.float32)
    for step in (0, np.inf, -np.inf):
        yield (a if step == 0 else np.nextafter(a, np.float32(step))), b


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_float32_divmod_bit_exact(name):
    # Note [float32 divmod in vectors]: the vector loops' fast formula and
    # the scalar fallback give NumPy's bits (fmod is exact; remainder and
    # floor_divide are npy_divmod), for contiguous rows of odd lengths
    # (chunk tails), a scalar divisor, in place and strided
    ref = getattr(np, name)
    rng = np.random.default_rng(22)
    for a, b in _divmod_pairs(20011, rng):
        with np.errstate(all="ignore"):
            want = ref(a, b)
            want_s = [ref(a, np.float32(s)) for s in (2.5, -0.75, 0.0)]
        views = [getattr(tl, name)(tl.from_numpy(a), tl.from_numpy(b)),
                 getattr(tl, name)(tl.from_numpy(np.stack([a, a], 1))[:, 1],
                                   tl.from_numpy(np.stack([b, b], 1))[:, 0])]
        t = tl.from_numpy(a.copy())
        getattr(t, name + "_")(tl.from_numpy(b))
        views.append(t)
        for got in views:
            np.testing.assert_array_equal(got.numpy().view(np.uint32)[
                ~np.isnan(want)], want.view(np.uint32)[~np.isnan(want)])
            np.testing.assert_array_equal(np.isnan(got.numpy()),
                                          np.isnan(want))
        for s, w in zip((2.5, -0.75, 0.0), want_s):
            got = getattr(tl, name)(tl.from_numpy(a), s).numpy()
            np.testing.assert_array_equal(got.view(np.uint32)[~np.isnan(w)],
                                          w.view(np.uint32)[~np.isnan(w)])
            np.testing.assert_array_equal(np.isnan(got), np.isnan(w))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_vector_rows(dtype):
    # Note [logaddexp in vectors]: contiguous rows (chunk tails included)
    # through the vector exp/log1p, special elements through the scalar
    # function; within two ulps of the largest of |a|, |b| and the result
    # of NumPy's (docs/accuracy.md: the formula's error is an ulp of
    # max(a, b), plus log1p's and exp's own), the special values
    # exactly as NumPy, and a strided row (the scalar path) alike
    rng = np.random.default_rng(5)
    n = 5003
    a = (rng.standard_normal(n) * rng.choice([1, 30, 1e30], n)).astype(dtype)
    b = (a + rng.standard_normal(n) * rng.choice([0, 1e-3, 1, 100], n)
         ).astype(dtype)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0,
                         np.finfo(dtype).max, -np.finfo(dtype).max],
                        dtype)
    i = rng.integers(0, n, 400)
    a[i] = rng.choice(specials, i.size)
    b[rng.integers(0, n, 400)] = rng.choice(specials, 400)
    with np.errstate(all="ignore"):
        want = np.logaddexp(a, b)
    with np.errstate(all="ignore"):
        big = np.where(np.isfinite(a) & np.isfinite(b),
                       np.maximum(np.maximum(np.abs(a), np.abs(b)),
                                  np.abs(want)), np.abs(want))
        tol = np.spacing(big.astype(dtype))
    got_c = tl.logaddexp(tl.from_numpy(a), tl.from_numpy(b)).numpy()
    got_s = tl.logaddexp(tl.from_numpy(np.stack([a, a], 1))[:, 0],
                         tl.from_numpy(np.stack([b, b], 1))[:, 1]).numpy()
    t = tl.from_numpy(a.copy())
    t.logaddexp_(tl.from_numpy(b)) if hasattr(t, "logaddexp_") else None
    for got in (got_c, got_s) + ((t.numpy(),) if hasattr(t, "logaddexp_")
                                 else ()):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        fin = np.isfinite(want)
        np.testing.assert_array_equal(got[~fin & ~np.isnan(want)],
                                      want[~fin & ~np.isnan(want)])
        assert np.all(np.abs(got[fin] - want[fin]) <= 2 * tol[fin])
    eq = (a == b) & np.isfinite(a)
    np.testing.assert_array_equal(got_c[eq], got_s[eq])
