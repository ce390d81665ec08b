"""The unary, where and clamp loops (csrc/core/kernels_unary.c) and the
casts (csrc/core/kernels_copy.c) over every dtype and row shape: a
contiguous row (vector body and tail, and the vecmath loops of float32 /
float64), a strided row and a transposed matrix (the element loops), for
the unary ops of the table; where by item size (1, 2, 4, 8, 16 bytes) with
contiguous and broadcast operands; clamp per dtype with scalar bounds (the
stride-0 fast row) and tensor bounds, NaN bounds for floats.

Values against NumPy on the inputs cast to the compute dtype (float16 /
bfloat16 compute in float32 and round once); result dtypes and which
dtypes are refused against torch, as tests/test_kernel_sweep.py."""
import math
import warnings

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import ALL, COMPLEX, FLOATS, INTS, NAME, as_dtype, rng_for
from test_kernel_sweep import (EPS, make, npv, rand_values, run_or_refused,
                               to_f64, torch_verdict)


def _vec(f):
    return np.vectorize(f, otypes=[np.float64])


def _sgn(x):
    if np.iscomplexobj(x):
        a = np.abs(x)
        return np.where(a == 0, 0, x / np.where(a == 0, 1, a))
    return np.sign(x)


def _logit(x):
    return np.log(x / (1 - x))


# PyTorch has complex forms of these; tensorlib refuses complex for now
# (as tests/test_math_unary.py).
COMPLEX_LATER = {"sinh", "cosh", "sinc"}
# An absolute bound (in units of the result's epsilon) where the value
# crosses zero: sinc at the integers is exactly 0 here, lgamma at 1, 2.
ATOL = {"sinc": 1, "lgamma": 8}

# name -> NumPy reference (on float64 / complex128 values, or the integer
# / bool array for the exact ops); None: the rows are checked against
# each other only (erfinv, digamma: no NumPy function).
UNARY = {
    "neg": np.negative, "abs": np.abs,
    "sign": lambda x: x if x.dtype == bool else np.sign(x),
    "sgn": lambda x: x if x.dtype == bool else _sgn(x),
    "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "exp": np.exp,
    "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "relu": lambda x: np.where((x > 0) | (x != x), x, 0).astype(x.dtype),
    "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "trunc": np.trunc, "reciprocal": lambda x: 1 / x,
    "square": lambda x: x * x, "logical_not": np.logical_not,
    "bitwise_not": np.invert, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "exp2": np.exp2, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg,
    "sinc": np.sinc, "erf": _vec(math.erf), "erfc": _vec(math.erfc),
    "erfinv": None,
    "lgamma": _vec(lambda v: math.inf if math.isinf(v) else v if v != v
                   else math.inf if v <= 0 and v == math.floor(v)
                   else math.lgamma(v)),
    "digamma": None, "logit": _logit,
    "frac": lambda x: x - np.trunc(x), "signbit": np.signbit,
    "isposinf": np.isposinf, "isneginf": np.isneginf,
    "isreal": lambda x: np.isreal(x) if np.iscomplexobj(x) else
    np.ones(x.shape, bool),
}


def values(rng, d, n, specials):
    v = rand_values(rng, d, (n,))
    if d in FLOATS and specials:
        v = v.copy()
        sp = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -2.5])
        m = rng.random(n) < 0.3
        v[m] = sp[rng.integers(0, len(sp), int(m.sum()))]
        v = as_dtype(v, d)
    if d in FLOATS:   # some values in (-1, 1): asin, atanh, erfinv
        v = v.copy()
        k = rng.random(n) < 0.3
        v[k] = as_dtype(rng.uniform(-0.99, 0.99, int(k.sum())), d)
    return v


def ref_of(name, x, d, rd):
    """NumPy reference of unary op `name` on values x of dtype d."""
    f = UNARY[name]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if rd == tl.bool or rd in INTS:
            return f(np.asarray(x))
        # integers and bool compute in the (float) result dtype
        cd = rd if d in INTS or d == tl.bool else d
        return f(to_f64(as_dtype(x, cd)))


def close(g, ref, rd, what, ulps, atol=0):
    g = np.asarray(g)
    ref = np.asarray(ref)
    if rd == tl.bool or rd in INTS:
        np.testing.assert_array_equal(g, ref.astype(g.dtype), err_msg=what)
        return
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = to_f64(as_dtype(ref, rd))
        gf = to_f64(g)
        mag = np.abs(r)
        tol = ulps * EPS[rd] * np.where(np.isfinite(mag), mag, 0) + (
            1e-300 if rd in (tl.float64, tl.complex128) else 1e-37) + \
            atol * EPS[rd]
        if rd in COMPLEX:
            tol = tol + ulps * EPS[rd] * 1e-3
        ok = (gf == r) | (np.abs(gf - r) <= tol)
        if np.iscomplexobj(gf):
            ok |= (np.isnan(gf.real) | np.isnan(gf.imag)) & \
                (np.isnan(r.real) | np.isnan(r.imag))
        else:
            ok |= np.isnan(gf) & np.isnan(r)
    assert ok.all(), (what, np.asarray(g)[~ok][:4], r[~ok][:4])


# Functions whose float results may be a few ulps from the correctly
# rounded value (docs/accuracy.md), and a looser bound where the
# float32 computation of float16/bfloat16 is exact anyway.
ULPS = {"lgamma": 16, "digamma": 64, "erfinv": 64, "tan": 16,
        "sinc": 64, "logit": 16, "acosh": 16, "asinh": 16, "atanh": 16,
        "expm1": 8, "erfc": 16, "sigmoid": 8}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_every_dtype_and_row_shape(name, torch):
    op = getattr(tl, name)
    for d in ALL:
        r = run_or_refused(torch, name, d,
                           lambda: op(tl.ones((2, 3), dtype=d)),
                           lambda t, tt: getattr(t, name)(tt), COMPLEX_LATER)
        if r is None:
            continue
        rd = r.dtype
        rng = rng_for("unary", name, d)
        rows = []
        for n in (1, 7, 9, 33, 70):
            x = values(rng, d, n, d not in COMPLEX)
            rows.append((f"contig{n}", x, make(x, d)))
        x = values(rng, d, 60, d not in COMPLEX)
        if d in FLOATS:   # every special value in the strided row
            x = x.copy()
            x[0:27:3] = [np.nan, np.inf, -np.inf, 0.0, -0.0, -200.0,
                         200.0, 1e-30, -1.0]
            x = as_dtype(x, d)
        rows.append(("strided", x[::3], make(x, d)[::3]))
        x = values(rng, d, 35, d not in COMPLEX).reshape(5, 7)
        rows.append(("transposed", x.T, make(x, d).T))
        ulps = ULPS.get(name, 4) if rd not in COMPLEX else 64
        outs = []
        for what, xv, tx in rows:
            got = op(tx)
            assert got.dtype == rd
            outs.append(npv(got))
            if UNARY[name] is None:
                continue
            close(npv(got), ref_of(name, xv, d, rd), rd,
                  f"{name} {NAME[d]} {what}", ulps, ATOL.get(name, 0))
        if UNARY[name] is None:
            # erfinv, digamma: a strided row of the same values gives the
            # contiguous row's values (within the vector loop's bound)
            x = values(rng, d, 40, True)
            a = npv(op(make(x, d)))
            b = npv(op(make(np.repeat(x, 2), d)[::2]))
            close(b, a, rd, f"{name} {NAME[d]} strided", 4)


# ---- where --------------------------------------------------------------

@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_where_every_item_size(d):
    rng = rng_for("where", d)
    for n in (1, 9, 33):
        c = rng.random(n) < 0.5
        a = rand_values(rng, d, (n,))
        b = rand_values(rng, d, (n,))
        got = tl.where(tl.from_numpy(c), make(a, d), make(b, d))
        np.testing.assert_array_equal(npv(got), np.where(c, a, b))
    # strided operands, a broadcast condition and a scalar side
    c = rng.random((4, 1)) < 0.5
    a = rand_values(rng, d, (4, 12))
    b = rand_values(rng, d, (6,))
    got = tl.where(tl.from_numpy(c), make(a, d)[:, ::2], make(b, d))
    np.testing.assert_array_equal(npv(got), np.where(c, a[:, ::2], b))
    c = rng.random((5, 3)) < 0.5
    a = rand_values(rng, d, (3, 5))
    got = tl.where(tl.from_numpy(c), make(a, d).T, make(a[:1, :1], d))
    np.testing.assert_array_equal(npv(got), np.where(c, a.T, a[0, 0]))


# ---- clamp --------------------------------------------------------------

@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_clamp_every_dtype(d, torch):
    verdict, tname = torch_verdict(torch, d, lambda t, tt: t.clamp(
        tt, tt, tt))
    one = tl.ones((2, 3), dtype=d)
    try:
        r = tl.clamp(one, one, one)
    except TypeError:
        assert verdict != "ok", d
        return
    assert verdict != "refused", d
    if verdict == "ok":
        assert NAME[r.dtype] == tname
    rng = rng_for("clamp", d)
    for n in (1, 9, 33):
        x = rand_values(rng, d, (n,))
        lo, hi = np.sort(rand_values(rng, d, (2,)))
        got = tl.clamp(make(x, d), make(np.array([lo]), d).reshape(()),
                       make(np.array([hi]), d).reshape(()))
        ref = np.minimum(np.maximum(x, lo), hi) if d != tl.bool else \
            (x | lo) & hi
        np.testing.assert_array_equal(npv(got), ref, err_msg=f"{n}")
    # tensor bounds, strided, lo > hi in places (hi wins)
    x = rand_values(rng, d, (20,))
    lo = rand_values(rng, d, (10,))
    hi = rand_values(rng, d, (30,))
    got = tl.clamp(make(x, d)[::2], make(lo, d), make(hi, d)[::3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if d == tl.bool:
            ref = (x[::2] | lo) & hi[::3]
        else:
            m = np.where(x[::2] < lo, lo, x[::2])
            ref = np.where(m > hi[::3], hi[::3], m)
            if d in FLOATS:
                ref = np.where(np.isnan(lo), lo, ref)
                ref = np.where(np.isnan(hi[::3]) & ~np.isnan(lo),
                               hi[::3], ref)
                ref = np.where(np.isnan(x[::2]) & ~np.isnan(lo) &
                               ~np.isnan(hi[::3]), x[::2], ref)
    np.testing.assert_array_equal(npv(got), ref)
    if d in FLOATS:
        # NaN bounds give NaN; a NaN input stays NaN
        x = as_dtype(np.array([1.0, np.nan, -3.0, 7.0]), d)
        for lo, hi in ((np.nan, 2.0), (0.0, np.nan), (0.0, 2.0)):
            t_lo = make(as_dtype(np.array([lo]), d), d).reshape(())
            t_hi = make(as_dtype(np.array([hi]), d), d).reshape(())
            got = npv(tl.clamp(make(x, d), t_lo, t_hi))
            if np.isnan(lo) or np.isnan(hi):
                assert np.isnan(got).all(), (lo, hi, got)
            else:
                np.testing.assert_array_equal(
                    got, as_dtype(np.array([1.0, np.nan, 0.0, 2.0]), d))


# ---- casts --------------------------------------------------------------

@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_casts_every_pair_and_row_shape(d):
    """x.to(e) for every pair: a contiguous row, a strided row and a
    transposed matrix (kernels_copy.c's contiguous and strided loops),
    against NumPy's conversion as tensorlib defines it (as_dtype)."""
    rng = rng_for("cast", d)
    x = rand_values(rng, d, (40,))
    if d in FLOATS:
        x = x.copy()
        x[[1, 5, 9]] = [np.nan, np.inf, -np.inf]
        x = as_dtype(x, d)
    t = make(x, d)
    m = rand_values(rng, d, (5, 6))
    tm = make(m, d)
    for e in ALL:
        for what, xv, tv in (("contig", x, t), ("strided", x[::3], t[::3]),
                             ("transposed", m.T, tm.T)):
            got = tv.to(e)
            assert got.dtype == e
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                src = xv
                if d == tl.bool:
                    src = xv.astype(np.uint8)
                if e == tl.bool:   # either part nonzero
                    np.testing.assert_array_equal(
                        npv(got), xv != 0, err_msg=f"{d}->{e} {what}")
                    continue
                if e in INTS and d in FLOATS + COMPLEX:
                    src = np.real(src)
                    ok = np.isfinite(src)
                    ref = as_dtype(np.where(ok, src, 0), e)
                    g = npv(got)
                    # non-finite floats to integers: not this sweep's
                    # question (DESIGN.md defines them elsewhere)
                    np.testing.assert_array_equal(
                        g[ok], ref[ok], err_msg=f"{d}->{e} {what}")
                    continue
                ref = as_dtype(src, e)
            g = npv(got)
            if e in FLOATS + COMPLEX:
                np.testing.assert_array_equal(
                    g, ref, err_msg=f"{d}->{e} {what}")
            else:
                np.testing.assert_array_equal(
                    g, ref, err_msg=f"{d}->{e} {what}")


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_blocked_transposed_copies_and_fills(d):
    """Note [Blocked transposed copy]: a transposed source (tiles walked
    along the destination's rows) and a transposed destination (tiles
    walked along its columns), with partial tiles (70 x 40, tiles of 64
    or 32); fills of every item size, contiguous and strided, with a
    value whose bytes are all equal (memset) and one whose are not."""
    rng = rng_for("copy2d", d)
    m = rand_values(rng, d, (40, 70))
    tm = make(m, d)
    for e in ALL:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            src = np.real(m) if (d in COMPLEX and e not in COMPLEX) else m
            if d == tl.bool:
                src = src.astype(np.uint8)
            # to bool: either part nonzero
            ref = (m != 0) if e == tl.bool else as_dtype(src, e)
        got = tm.T.to(e)   # source transposed
        np.testing.assert_array_equal(npv(got), ref.T, err_msg=f"{d}->{e}")
        got = tm[:, ::-1].T.to(e)   # ... and reversed (a negative stride)
        np.testing.assert_array_equal(npv(got), ref[:, ::-1].T,
                                      err_msg=f"{d}->{e} reversed")
        dst = tl.zeros((70, 40), dtype=e)
        dst.T.copy_(tm)    # destination transposed
        np.testing.assert_array_equal(npv(dst), ref.T, err_msg=f"{d}->{e}")
    vals = [0, 1] if d == tl.bool else [0, 5] if d not in COMPLEX else \
        [0, 1 - 2j]
    for v in vals:
        for n in (1, 9, 33):
            t = make(rand_values(rng, d, (2 * n,)), d)
            t[::2].fill_(v)
            t[1::2].fill_(v)
            np.testing.assert_array_equal(
                npv(t), as_dtype(np.full(2 * n, v), d))
            t = tl.full((n,), v, dtype=d)
            np.testing.assert_array_equal(npv(t),
                                          as_dtype(np.full(n, v), d))


@pytest.mark.parametrize("d", COMPLEX, ids=NAME.get)
def test_complex_predicates_with_special_parts(d):
    """isnan / isinf / isfinite / isreal of complex values whose real or
    imaginary part (or both) is NaN, infinite or zero: either part
    decides, contiguous and strided."""
    sp = [0.0, 1.5, np.nan, np.inf, -np.inf]
    re, im = np.meshgrid(sp, sp)
    z = as_dtype((re + 0j).ravel(), d)
    z.imag = im.ravel()
    for what, zv, tz in (("contig", z, make(z, d)),
                         ("strided", z[::2], make(z, d)[::2])):
        for name, f in (("isnan", np.isnan), ("isinf", np.isinf),
                        ("isfinite", np.isfinite), ("isreal", np.isreal)):
            np.testing.assert_array_equal(npv(getattr(tl, name)(tz)),
                                          f(zv), err_msg=f"{name} {what}")
