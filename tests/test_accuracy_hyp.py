"""Issue 18's 1-ulp bound for the inverse and hyperbolic functions and
float64 log10 (scalar_math.h's double-doubles, Note [Double-double]; the
float32 ones computed in double and rounded once): random arguments over
each domain against np.longdouble (x87 80-bit where the platform has it,
else mpmath), special values against NumPy, exact powers of ten."""
import warnings

import numpy as np
import pytest

import tensorlib as tl

LD_OK = np.finfo(np.longdouble).nmant >= 63
FUNCS = ["sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan",
         "log10"]


def _args(f, n, rng):
    s = rng.choice([-1.0, 1.0], n)
    if f in ("sinh", "cosh"):
        x = np.concatenate([np.exp2(rng.uniform(-40, 9.47, n)),
                            rng.uniform(700, 710.47, n // 8)])
    elif f in ("asinh", "atan"):
        x = np.exp2(rng.uniform(-40, 1023, n))
    elif f == "acosh":
        return np.concatenate([1 + np.exp2(rng.uniform(-52, 0, n)),
                               np.exp2(rng.uniform(0, 1023, n // 2))])
    elif f in ("atanh", "asin", "acos"):
        x = np.concatenate([np.exp2(rng.uniform(-40, 0, n)),
                            1 - np.exp2(rng.uniform(-52, -1, n // 2))])
        x = x[x < 1]
    else:  # log10
        return np.concatenate([np.exp2(rng.uniform(-1074, 1023, n)),
                               rng.uniform(0.5, 2, n)])
    return x * np.resize(s, x.size)


def _ulps(res, ref, dtype):
    fi = np.finfo(dtype)
    a = np.abs(ref)
    _, e = np.frexp(a)
    e = np.maximum(e.astype(np.int64) - 1, fi.minexp)
    u = np.ldexp(np.ones_like(a), (e - fi.nmant).astype(np.int32))
    return (np.abs(res.astype(ref.dtype) - ref) / u).astype(np.float64)


def _reference(f, x):
    if LD_OK:
        return getattr(np, f)(x.astype(np.longdouble))
    mp = pytest.importorskip("mpmath")
    mp.mp.prec = 80
    return np.array([getattr(mp, f)(mp.mpf(float(v))) for v in x[:2000]],
                    dtype=object)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f", FUNCS)
def test_within_one_ulp(f, dtype):
    rng = np.random.default_rng(18)
    n = 20000 if LD_OK else 2000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float32 overflow in the cast
        x = _args(f, n, rng).astype(dtype)
    x = x[np.isfinite(x)]
    if not LD_OK:
        x = x[:2000]
    res = getattr(tl, f)(tl.from_numpy(x)).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _reference(f, x)
        if ref.dtype == object:
            ref = ref.astype(np.float64).astype(np.longdouble)
        fin = np.abs(ref) <= np.finfo(dtype).max
    err = _ulps(res[fin], ref[fin], dtype)
    assert err.max() < 1.0, (f, dtype, x[fin][np.argmax(err)], err.max())
    # beyond the largest finite result the function overflows to inf
    assert np.all(np.isinf(res[~fin]))


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5,
           1e-300, 5e-324, -5e-324, 1e-30, 1.7976931348623157e308,
           710.4758600739439, 710.476, -710.476, 89.4, -89.4, 89.5, 1000.0,
           22.0, 21.999999999999996, 0.9999999999999999,
           1.0000000000000002, 3.4028234663852886e38, 1.401298464324817e-45]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("f", FUNCS)
def test_special_values(f, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array(SPECIAL).astype(dtype)
        want = getattr(np, f)(x)
    got = getattr(tl, f)(tl.from_numpy(x)).numpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    # zeros and infinities exactly, with their signs (C99 Annex F)
    exact = ok & ((want == 0) | np.isinf(want))
    np.testing.assert_array_equal(got[exact], want[exact])
    np.testing.assert_array_equal(np.signbit(got[exact]),
                                  np.signbit(want[exact]))
    fin = ok & ~exact
    np.testing.assert_array_equal(np.isinf(got[fin]), False)
    np.testing.assert_array_equal(np.signbit(got[fin]), np.signbit(want[fin]))


def test_log10_exact_powers_of_ten():
    k = np.arange(-22, 23)
    x = np.array([float(f"1e{j}") for j in k])
    got = tl.log10(tl.from_numpy(x)).numpy()
    exact = k >= 0  # 10^k is a double exactly for 0 <= k <= 22
    np.testing.assert_array_equal(got[exact], k[exact].astype(np.float64))
    assert not np.signbit(got[k == 0][0])
    np.testing.assert_allclose(got, k, rtol=0, atol=4e-15)
    g32 = tl.log10(tl.from_numpy(np.array([1.0, 10.0, 1000.0, 1e6],
                                          np.float32))).numpy()
    np.testing.assert_array_equal(g32, [0, 1, 3, 6])


@pytest.mark.parametrize("f", ["sinh", "cosh", "asinh", "acosh", "atanh",
                               "log10"])
def test_strided_matches_contiguous(f):
    rng = np.random.default_rng(3)
    x = (1.0 + rng.uniform(0, 0.9, (7, 9))) if f in ("acosh", "log10") \
        else rng.uniform(-0.9, 0.9, (7, 9))
    t = tl.from_numpy(x)
    got = getattr(tl, f)(t.t()).numpy()
    np.testing.assert_array_equal(got, getattr(tl, f)(
        tl.from_numpy(np.ascontiguousarray(x.T))).numpy())


@pytest.mark.skipif(not LD_OK, reason="needs an 80-bit np.longdouble")
@pytest.mark.parametrize("f", ["sinh", "cosh", "asinh", "acosh", "atanh"])
def test_float32_every_kind_of_bit_pattern(f):
    # random float32 bit patterns (both signs, subnormals, infinities,
    # NaNs, outside the domain): contiguous rows run the float64 vector
    # loops (Note [float32 hyperbolics through the float64 loops]) and a
    # strided view libm; both within one ulp of the long double result,
    # with its NaNs and its signs
    bits = np.random.default_rng(7).integers(0, 2 ** 32, 1 << 18,
                                             dtype=np.uint64)
    x = bits.astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        want = getattr(np, "arc" + f[1:] if f.startswith("a") else f)(
            x.astype(np.longdouble)).astype(np.float32)
    for got in (getattr(tl, f)(tl.from_numpy(x)).numpy(),
                getattr(tl, f)(tl.from_numpy(
                    np.stack([x, x], 1))[:, 0]).numpy()):
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(np.signbit(got[~nan]),
                                      np.signbit(want[~nan]))
        gi = got[~nan].view(np.int32).astype(np.int64)
        wi = want[~nan].view(np.int32).astype(np.int64)
        assert np.abs(gi - wi).max() <= 1, f
