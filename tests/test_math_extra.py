"""Issue 18's remaining functions: float_power (an op-table row with the
DOUBLE result rule), nan_to_num, clamp_min/clamp_max, lerp, addcmul,
addcdiv and frexp (tensorlib/_mathops.py).  Values against NumPy on the
inputs cast to the result dtype (float16/bfloat16 computed in float32 and
rounded once), on every layout and with broadcasting, special values,
out= and in-place forms; result dtypes and refusals against PyTorch;
a leak loop."""
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (COMPLEX, FLOATS, INTS, LAYOUTS, NP, RTOL, TORCH_FULL,
                         as_dtype, check, compute_dtype, finish, from_np,
                         rng_for, to_np, torch_dtype, view_as)

ALL_T = TORCH_FULL
NAN, INF = float("nan"), float("inf")
SPECIALS = [0.0, -0.0, INF, -INF, NAN, 1.0, -1.5, 1e-40, -1e-310, 3e38,
            1.7e308, 0.75, 6e-8, 65504.0, 2.0 ** -24]


def _name(d):
    return str(d).split(".")[-1]


def _rand(rng, shape, d, lo=-4.0, hi=4.0):
    if d == tl.bool:
        return rng.integers(0, 2, shape).astype(bool)
    if d in INTS:
        info = np.iinfo(NP[d])
        return rng.integers(max(info.min, -5), min(info.max, 6),
                            shape).astype(NP[d])
    x = rng.uniform(lo, hi, shape)
    if d in COMPLEX:
        x = x + 1j * rng.uniform(lo, hi, shape)
    return as_dtype(x, d)


def _torch_outcome(torch, fn):
    try:
        r = fn()
    except Exception:  # noqa: BLE001 - PyTorch's refusal, any class
        return "error"
    return r


def _same_outcome(torch, tfn, lfn):
    """PyTorch and tensorlib agree on the result dtype or on refusing."""
    want = _torch_outcome(torch, tfn)
    if want == "error":
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            lfn()
        return None
    got = lfn()
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            assert _name(g.dtype) == str(w.dtype).split(".")[-1]
    else:
        assert _name(got.dtype) == str(want.dtype).split(".")[-1], \
            (got.dtype, want.dtype)
    return got


# ---- float_power -----------------------------------------------------------

def _fp_dtype(*ds):
    return tl.complex128 if any(d in COMPLEX for d in ds) else tl.float64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [tl.int32, tl.uint8, tl.bool, tl.float16,
                               tl.bfloat16, tl.float32, tl.float64,
                               tl.complex64, tl.complex128])
def test_float_power_values(d, layout):
    rng = rng_for("float_power", str(d), layout)
    for shape in [(3, 5), (0, 2), ()]:
        x = _rand(rng, shape, d, 0.1, 3.0)
        y = _rand(rng, shape, d, -2.0, 2.0)
        r = tl.float_power(view_as(x, d, layout, rng),
                           view_as(y, d, layout, rng))
        rd = _fp_dtype(d)
        with np.errstate(all="ignore"):
            want = np.power(x.astype(NP[rd]), y.astype(NP[rd]))
        check(r, want, rd, exact=False, rtol=1e-13, atol=1e-300,
              what="float_power")


def test_float_power_scalars_broadcast_specials():
    # C99 Annex F's pow (as tensorlib.pow): NumPy's array ** scalar
    # takes sqrt for 0.5 ((-inf) ** 0.5 would be NaN), so the oracle's
    # exponent is an array.
    x = np.array(SPECIALS)
    for e in [2, 0.5, -1, 0, NAN, INF, -0.0, 3.5, -0.5]:
        ee = np.full(x.shape, e)
        with np.errstate(all="ignore"):
            want = np.power(x, ee)
        check(tl.float_power(tl.tensor(x), e), want, tl.float64,
              exact=False, rtol=1e-14, atol=0, what=str(e))
        # a float32 base computes in float64: no float32 rounding
        with np.errstate(all="ignore"):
            x32 = x.astype(np.float32)
            want = np.power(x32.astype(np.float64), ee)
        check(tl.float_power(tl.tensor(x32), e), want, tl.float64,
              exact=False, rtol=1e-14, atol=0, what=str(e))
    a = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    b = np.array([[0.5], [-2.0]])
    check(tl.float_power(tl.tensor(a), tl.tensor(b)), np.power(a, b),
          tl.float64, exact=False, rtol=1e-14, atol=0)
    check(tl.float_power(2, tl.tensor(b)), np.power(2.0, b), tl.float64,
          exact=False, rtol=1e-14, atol=0)
    z = np.array([1 + 1j, -2 + 0j, 0j, 3j])
    with np.errstate(all="ignore"):
        want = np.power(z, 2.5)
    check(tl.float_power(tl.tensor(z), 2.5), want, tl.complex128,
          exact=False, rtol=1e-13, atol=1e-13)
    check(tl.float_power(tl.tensor(z), 2), z * z, tl.complex128)


def test_float_power_out_and_inplace():
    x = tl.tensor([1.5, 2.0, 3.0])
    out = tl.empty(3, dtype=tl.float64)
    r = tl.float_power(x, 2, out=out)
    assert r is out
    check(out, np.array([2.25, 4.0, 9.0]), tl.float64)
    before = to_np(x)
    with pytest.raises(TypeError, match="float64"):
        x.float_power_(2)           # float32 cannot hold the float64 result
    with pytest.raises(TypeError, match="float32"):
        tl.float_power(x, 2, out=tl.empty(3))
    np.testing.assert_array_equal(to_np(x), before)
    y = tl.tensor([1.5, 2.0, 3.0], dtype=tl.float64)
    assert y.float_power_(tl.tensor([2.0, 0.5, -1.0])) is y
    check(y, np.power([1.5, 2.0, 3.0], [2.0, 0.5, -1.0]), tl.float64,
          exact=False, rtol=1e-15, atol=0)


def test_float_power_dtypes_match_torch(torch):
    for da in ALL_T:
        for db in (tl.int64, tl.float32, tl.complex64, tl.bool):
            a, b = tl.ones(2, dtype=da), tl.ones(2, dtype=db)
            _same_outcome(
                torch,
                lambda: torch.float_power(torch.ones(2, dtype=torch_dtype(
                    torch, da)), torch.ones(2, dtype=torch_dtype(torch, db))),
                lambda: tl.float_power(a, b))
        for dto in (tl.float64, tl.float32, tl.complex128):
            tx = torch.ones(2, dtype=torch_dtype(torch, da))
            _same_outcome(
                torch,
                lambda: tx.clone().float_power_(2) if dto is None else
                torch.float_power(tx, 2, out=torch.empty(
                    2, dtype=torch_dtype(torch, dto))),
                lambda: tl.float_power(tl.ones(2, dtype=da), 2,
                                       out=tl.empty(2, dtype=dto)))


# ---- nan_to_num ------------------------------------------------------------

@pytest.mark.parametrize("d", FLOATS + COMPLEX)
def test_nan_to_num_values(d):
    rng = rng_for("nan_to_num", str(d))
    vals = np.array(SPECIALS)
    x = rng.choice(vals, (4, 5))
    if d in COMPLEX:
        x = x + 1j * rng.choice(vals, (4, 5))
    x = as_dtype(x, d)
    cd = compute_dtype(d)
    for kw in [{}, {"nan": 1.5}, {"posinf": 2.0, "neginf": -3.0},
               {"nan": -0.0, "posinf": 1e300}]:
        want = np.nan_to_num(x.astype(cd), **{"nan": 0.0, **kw}) if \
            d not in (tl.float16, tl.bfloat16) else None
        if want is None:            # the dtype's own finite bounds
            fin = {tl.float16: 65504.0, tl.bfloat16: 3.3895313892515355e38}
            kw2 = {"nan": 0.0, "posinf": fin[d], "neginf": -fin[d], **kw}
            with np.errstate(over="ignore"):
                want = finish(np.nan_to_num(x.astype(np.float64), **kw2), d)
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            check(tl.nan_to_num(t, **kw), want, d, what=str(kw))
        t = from_np(x, d)
        assert t.nan_to_num_(**kw) is t
        check(t, want, d)
        out = tl.empty(4, 5, dtype=d)
        assert tl.nan_to_num(from_np(x, d), out=out, **kw) is out
        check(out, want, d)


def test_nan_to_num_ints_copy_and_refusals():
    i = tl.tensor([1, -2, 3])
    r = tl.nan_to_num(i)
    assert r.dtype == tl.int64 and r.data_ptr() != i.data_ptr()
    check(r, np.array([1, -2, 3]), tl.int64)
    with pytest.raises(TypeError):
        tl.nan_to_num(np.array([1.0]))
    with pytest.raises(TypeError):
        tl.nan_to_num(tl.tensor([1.0]), nan="x")
    with pytest.raises(tl.ShapeError):
        tl.nan_to_num(tl.tensor([1.0, NAN]), out=tl.empty(3))


def test_nan_to_num_matches_torch(torch):
    for d in ALL_T:
        a = tl.tensor([0.0, 1.0, 2.0]).to(d)
        _same_outcome(torch, lambda: torch.nan_to_num(torch.zeros(
            3, dtype=torch_dtype(torch, d))), lambda: tl.nan_to_num(a))
    for d in (tl.float16, tl.bfloat16, tl.float32, tl.complex64):
        x = torch.tensor([NAN, INF, -INF, 1.0]).to(torch_dtype(torch, d))
        want = torch.nan_to_num(x, nan=0.25)
        got = tl.nan_to_num(tl.tensor([NAN, INF, -INF, 1.0]).to(d),
                            nan=0.25)
        if d == tl.complex64:
            np.testing.assert_array_equal(to_np(got), want.numpy())
        else:
            np.testing.assert_array_equal(to_np(got),
                                          want.float().numpy().astype(
                                              to_np(got).dtype))


# ---- clamp_min, clamp_max --------------------------------------------------

@pytest.mark.parametrize("d", [tl.int8, tl.uint8, tl.int64, tl.float16,
                               tl.bfloat16, tl.float32, tl.float64])
def test_clamp_min_max_values(d):
    rng = rng_for("clamp_minmax", str(d))
    x = _rand(rng, (3, 4), d)
    if d in FLOATS:
        x[0, 0] = np.nan
    lo = _rand(rng, (4,), d)
    for layout in LAYOUTS:
        t = view_as(x, d, layout, rng)
        check(tl.clamp_min(t, from_np(lo, d)), np.maximum(x, lo), d)
        check(t.clamp_max(from_np(lo, d)), np.minimum(x, lo), d)
        check(tl.clamp_min(t, 2), np.maximum(x, as_dtype(2, d)), d)
        check(tl.clamp_max(t, 1), np.minimum(x, as_dtype(1, d)), d)
    t = from_np(x, d)
    assert t.clamp_min_(1) is t
    check(t, np.maximum(x, as_dtype(1, d)), d)
    assert t.clamp_max_(from_np(lo, d)) is t
    check(t, np.minimum(np.maximum(x, as_dtype(1, d)), lo), d)
    out = tl.empty(3, 4, dtype=d)
    assert tl.clamp_max(from_np(x, d), 0, out=out) is out
    check(out, np.minimum(x, as_dtype(0, d)), d)
    with pytest.raises(TypeError):
        tl.clamp_min(from_np(x, d), None)
    # clamp/clip take tensor bounds (broadcast) as PyTorch does
    hi = lo + as_dtype(3, d) if d != tl.uint8 else lo
    want = np.minimum(np.maximum(x, lo), hi)
    check(tl.clamp(from_np(x, d), from_np(lo, d), from_np(hi, d)), want, d)
    check(tl.clip(from_np(x, d), min=from_np(lo, d), max=from_np(hi, d)),
          want, d)


def test_clamp_min_max_dtypes_match_torch(torch):
    for d in ALL_T:
        td = torch_dtype(torch, d)
        for b in (2, 2.5, True):
            if d == tl.bool and b is True:
                continue    # bool clamp works (docs/differences.md)
            _same_outcome(torch,
                          lambda: torch.clamp_min(torch.ones(2, dtype=td), b),
                          lambda: tl.clamp_min(tl.ones(2, dtype=d), b))
        for db in (tl.int32, tl.float64):
            _same_outcome(
                torch,
                lambda: torch.clamp_max(torch.ones(2, dtype=td), torch.ones(
                    2, dtype=torch_dtype(torch, db))),
                lambda: tl.clamp_max(tl.ones(2, dtype=d),
                                     tl.ones(2, dtype=db)))


# ---- lerp ------------------------------------------------------------------

def _np_lerp(a, b, w):
    d = b - a
    return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))


@pytest.mark.parametrize("d", FLOATS + COMPLEX)
def test_lerp_values(d):
    rng = rng_for("lerp", str(d))
    a, b = _rand(rng, (3, 4), d), _rand(rng, (3, 4), d)
    w = as_dtype(rng.uniform(-0.5, 1.5, (4,)), d)
    w[0] = 1.0
    cd = compute_dtype(d)
    A, B, W = a.astype(cd), b.astype(cd), w.astype(cd)
    rt = RTOL[d] * 4
    for layout in LAYOUTS:
        ta, tb = view_as(a, d, layout, rng), view_as(b, d, layout, rng)
        check(tl.lerp(ta, tb, from_np(w, d)), finish(_np_lerp(A, B, W), d),
              d, exact=False, rtol=rt, atol=rt)
        check(ta.lerp(tb, 0.25), finish(_np_lerp(A, B, cd(0.25)), d), d,
              exact=False, rtol=rt, atol=rt)
    # weight 1 gives end exactly, 0 gives input exactly
    check(tl.lerp(from_np(a, d), from_np(b, d), 1.0), b, d)
    check(tl.lerp(from_np(a, d), from_np(b, d), 0.0), a, d)
    t = from_np(a, d)
    assert t.lerp_(from_np(b, d), 0.75) is t
    check(t, finish(_np_lerp(A, B, cd(0.75)), d), d, exact=False, rtol=rt,
          atol=rt)
    out = tl.empty(3, 4, dtype=d)
    assert tl.lerp(from_np(a, d), from_np(b, d), 0.5, out=out) is out
    with pytest.raises(tl.ShapeError):
        from_np(w, d).lerp_(from_np(b, d), 0.5)     # would broadcast self


def test_lerp_refusals_match_torch(torch):
    cases = [(tl.int64, tl.int64, 0.5), (tl.float32, tl.float64, 0.5),
             (tl.float32, tl.float32, "f64"), (tl.float32, tl.float32, "f32"),
             (tl.float16, tl.float16, "f32"), (tl.float64, tl.float64, 2),
             (tl.complex64, tl.complex64, 0.5j), (tl.float32, tl.float32, 1j),
             (tl.float32, tl.float32, True), (tl.float32, tl.float32, "i64"),
             (tl.float32, tl.float32, "f64v")]
    for da, db, w in cases:
        def mk(lib, dt):
            return lib.ones(2, dtype=dt)
        tw = w
        lw = w
        if w == "f64":
            tw, lw = torch.tensor(0.5, dtype=torch.float64), \
                tl.tensor(0.5, dtype=tl.float64)
        elif w == "f32":
            tw, lw = torch.tensor(0.5), tl.tensor(0.5)
        elif w == "i64":
            tw, lw = torch.tensor(2), tl.tensor(2)
        elif w == "f64v":
            tw, lw = torch.tensor([0.5], dtype=torch.float64), \
                tl.tensor([0.5], dtype=tl.float64)
        _same_outcome(
            torch,
            lambda: torch.lerp(mk(torch, torch_dtype(torch, da)),
                               mk(torch, torch_dtype(torch, db)), tw),
            lambda: tl.lerp(mk(tl, da), mk(tl, db), lw))


# ---- addcmul, addcdiv ------------------------------------------------------

@pytest.mark.parametrize("fn", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("d", [tl.int32, tl.float16, tl.bfloat16,
                               tl.float32, tl.float64, tl.complex128])
def test_addc_values(fn, d):
    if fn == "addcdiv" and d == tl.int32:
        d = tl.float32
    rng = rng_for(fn, str(d))
    a, b = _rand(rng, (3, 4), d), _rand(rng, (4,), d)
    c = _rand(rng, (3, 1), d, 0.5, 3.0)
    cd = compute_dtype(d)
    value = 2 if d == tl.int32 else -0.5
    A, B, C = a.astype(cd), b.astype(cd), c.astype(cd)
    want = A + value * (B * C if fn == "addcmul" else B / C)
    want = finish(want.astype(cd), d)
    rt = RTOL.get(d, 0) * 4
    f = getattr(tl, fn)
    for layout in LAYOUTS:
        r = f(view_as(a, d, layout, rng), view_as(b, d, layout, rng),
              view_as(c, d, layout, rng), value=value)
        check(r, want, d, exact=d == tl.int32, rtol=rt, atol=rt)
    t = from_np(a, d)
    assert getattr(t, fn + "_")(from_np(b, d), from_np(c, d),
                                value=value) is t
    check(t, want, d, exact=d == tl.int32, rtol=rt, atol=rt)
    out = tl.empty(3, 4, dtype=d)
    assert f(from_np(a, d), from_np(b, d), from_np(c, d), value=value,
             out=out) is out
    check(out, want, d, exact=d == tl.int32, rtol=rt, atol=rt)
    with pytest.raises(tl.ShapeError):
        f(from_np(a, d), from_np(b, d), tl.ones(5, dtype=d))


def test_addc_dtypes_and_refusals_match_torch(torch):
    combos = [(tl.int64, tl.int64, tl.int64), (tl.float32, tl.int64,
                                               tl.int64),
              (tl.int64, tl.float32, tl.int64), (tl.float16, tl.float32,
                                                 tl.int32),
              (tl.float32, tl.float32, tl.float64),
              (tl.bool, tl.bool, tl.bool), (tl.int8, tl.bool, tl.float32),
              (tl.complex64, tl.float32, tl.float32)]
    for fn in ("addcmul", "addcdiv"):
        for da, db, dc in combos:
            for value in (1, 2):
                def run(lib, dts, fn=fn, value=value):
                    return getattr(lib, fn)(
                        *[lib.ones(2, dtype=x) for x in dts], value=value)
                _same_outcome(
                    torch,
                    lambda: run(torch, [torch_dtype(torch, x)
                                        for x in (da, db, dc)]),
                    lambda: run(tl, (da, db, dc)))
    # a 0-d tensor of a higher category raises the result dtype
    r = tl.addcmul(tl.ones(2, dtype=tl.int32), tl.ones(2, dtype=tl.int32),
                   tl.tensor(2.0, dtype=tl.float64))
    assert r.dtype == tl.float64 and torch.addcmul(
        torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.int32),
        torch.tensor(2.0, dtype=torch.float64)).dtype == torch.float64
    r = tl.addcmul(tl.ones(2, dtype=tl.float32), tl.ones(2, dtype=tl.int32),
                   tl.tensor(2.0, dtype=tl.float64))
    assert r.dtype == tl.float32      # same category: the 0-d one does not


def test_addc_value_refusals():
    i = tl.ones(2, dtype=tl.int32)
    with pytest.raises(TypeError):
        tl.addcmul(i, i, i, value=0.5)      # no float value for ints
    f = tl.ones(2)
    with pytest.raises(TypeError):
        tl.addcdiv(f, f, f, value=1j)
    with pytest.raises(TypeError, match="integer division"):
        tl.addcdiv(f, i, i)
    before = to_np(f)
    with pytest.raises(TypeError):
        f.addcdiv_(i, i)
    np.testing.assert_array_equal(to_np(f), before)


# ---- frexp -----------------------------------------------------------------

@pytest.mark.parametrize("d", FLOATS)
def test_frexp_values(d):
    rng = rng_for("frexp", str(d))
    x = np.concatenate([np.array(SPECIALS),
                        rng.standard_normal(30) * 10.0 **
                        rng.integers(-30, 30, 30)])
    if d == tl.float64:
        x = np.concatenate([x, [5e-324, -2.2e-308, 1.7976931348623157e308,
                                1 - 2 ** -53, 2 ** -1022]])
    with np.errstate(over="ignore"):
        x = as_dtype(x, d)
    # NumPy's frexp on the value (float16 natively; bfloat16's values
    # are float32 values)
    m_want, e_want = np.frexp(x)
    e_want = np.where(np.isfinite(x), e_want, 0).astype(np.int32)
    for layout in LAYOUTS:
        m, e = tl.frexp(view_as(x.reshape(5, -1), d, layout, rng))
        check(m, m_want.reshape(5, -1), d, what="mantissa")
        check(e, e_want.reshape(5, -1), tl.int32, what="exponent")
    r = from_np(x, d).frexp()
    assert r.mantissa.dtype == d and r.exponent.dtype == tl.int32
    om, oe = tl.empty(x.shape, dtype=d), tl.empty(x.shape, dtype=tl.int32)
    r = tl.frexp(from_np(x, d), out=(om, oe))
    assert r[0] is om and r[1] is oe
    check(om, m_want, d)
    check(oe, e_want, tl.int32)
    # mantissa * 2 ** exponent gives x back
    back = tl.ldexp(om.double(), oe.double())
    check(back, np.where(np.isnan(x), np.nan, x).astype(np.float64),
          tl.float64)


def test_frexp_refusals_match_torch(torch):
    for d in ALL_T:
        _same_outcome(
            torch, lambda: torch.frexp(torch.ones(2, dtype=torch_dtype(
                torch, d))),
            lambda: tl.frexp(tl.ones(2, dtype=d)))
    x = tl.ones(2)
    with pytest.raises(TypeError):
        tl.frexp(x, out=(tl.empty(2), tl.empty(2)))


# ---- memory ----------------------------------------------------------------

def _round(a, b, i):
    r = [tl.float_power(a, 2), tl.nan_to_num(a), a.nan_to_num(posinf=1.0),
         tl.clamp_min(a, 0.0), a.clamp_max(b), tl.lerp(a, b, 0.3),
         tl.lerp(a, b, b), tl.addcmul(a, a, b, value=2),
         tl.addcdiv(a, b, b), tl.frexp(a)]
    c = a.clone()
    c.clamp_min_(0.1).lerp_(b, 0.5).addcmul_(b, b).nan_to_num_()
    for fn in (lambda: tl.addcdiv(a, i, i), lambda: tl.lerp(i, i, 0.5),
               lambda: tl.frexp(i), lambda: a.float_power_(2),
               lambda: tl.lerp(a, tl.ones(5), 0.5)):
        try:
            fn()
        except (TypeError, ValueError):
            pass
    return r


def test_leak_loop_flat():
    a = tl.arange(12.0).reshape(3, 4) / 7 - 0.5
    b = tl.ones(4) * 0.25
    i = tl.arange(4, dtype=tl.int32)
    for _ in range(10):
        _round(a, b, i)
    gc.collect()
    refs = [sys.getrefcount(o) for o in (a, b, i)]
    stats = tl.memory_stats()
    for _ in range(60):
        _round(a, b, i)
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in (a, b, i)] == refs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]


# ---- complex inverse trigonometric and hyperbolic functions ---------------

CINV = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
        "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}


def _cinv_points(rng, n):
    """Random points over many magnitudes, both sides of every branch cut
    (the real axis beyond +-1, the imaginary axis beyond +-i, with +0 and
    -0), and near the branch points."""
    mag = np.exp(rng.uniform(-40, 40, n))
    z = rng.standard_normal(n) * mag + 1j * rng.standard_normal(n) * \
        np.exp(rng.uniform(-40, 40, n))
    re = rng.uniform(-5, 5, 40)
    cuts = np.concatenate([re + 0j, re - 0j, np.array(re) * 1j,
                           -0.0 + re * 1j, 1 + 1e-9 * re * 1j,
                           -1 - 1e-9 * re * 1j, re * 1e-12 + 1j])
    # complex() keeps the signs of zero that arithmetic would lose
    cuts = np.array([complex(c.real, c.imag) for c in cuts] +
                    [complex(r, -0.0) for r in re] +
                    [complex(-0.0, r) for r in re])
    return np.concatenate([z, cuts])


def _close_or_same(g, w, rtol):
    """Componentwise: both NaN, or equal with the same sign (zeros and
    infinities), or within rtol of |w| (the error norm of a complex
    result)."""
    def part(a, b):
        return (np.isnan(a) & np.isnan(b)) | \
            ((a == b) & (np.signbit(a) == np.signbit(b))) | \
            (np.abs(a - b) <= rtol * np.abs(w))
    return part(g.real, w.real) & part(g.imag, w.imag)


@pytest.mark.parametrize("op", list(CINV))
@pytest.mark.parametrize("d", COMPLEX)
def test_complex_inverse_functions_vs_numpy(op, d):
    rng = rng_for("cinv", op, str(d))
    nd = NP[d]
    with np.errstate(all="ignore"):
        z = _cinv_points(rng, 400).astype(nd)
        w = CINV[op](z.astype(np.complex128))
    g = to_np(getattr(tl, op)(tl.tensor(z)))
    assert g.dtype == nd
    # complex128: a few ulp; complex64: computed in double, rounded once
    rtol = 4e-15 if d == tl.complex128 else 2.0 ** -23
    with np.errstate(all="ignore"):
        ok = _close_or_same(g.astype(np.complex128),
                            w.astype(nd).astype(np.complex128), rtol)
    bad = np.nonzero(~ok)[0][:5]
    assert ok.all(), [(z[i], g[i], w[i]) for i in bad]
    # the signs of every component agree with NumPy's (branch cuts)
    wn = w.astype(nd)
    finite = np.isfinite(wn)
    assert (np.signbit(g.real) == np.signbit(wn.real))[finite].all()
    assert (np.signbit(g.imag) == np.signbit(wn.imag))[finite].all()


@pytest.mark.parametrize("op", list(CINV))
def test_complex_inverse_special_values(op):
    v = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, INF, -INF, NAN, 1e-310, 1e300]
    z = np.array([complex(a, b) for a in v for b in v])
    with np.errstate(all="ignore"):
        w = CINV[op](z)
    g = to_np(getattr(tl, op)(tl.tensor(z)))
    ok = _close_or_same(g, w, 4e-16)
    bad = np.nonzero(~ok)[0][:5]
    assert ok.all(), [(z[i], g[i], w[i]) for i in bad]


@pytest.mark.parametrize("op", list(CINV))
def test_complex_inverse_layouts_inplace_out(op):
    rng = rng_for("cinv_layout", op)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)))
    w = CINV[op](z)
    for layout in LAYOUTS:
        t = view_as(z, tl.complex128, layout, rng)
        check(getattr(tl, op)(t), w, tl.complex128, exact=False,
              rtol=4e-15, atol=4e-15)
    t = tl.tensor(z)
    assert getattr(t, op + "_")() is t
    check(t, w, tl.complex128, exact=False, rtol=4e-15, atol=4e-15)
    out = tl.empty(3, 4, dtype=tl.complex128)
    assert getattr(tl, op)(tl.tensor(z), out=out) is out
    with pytest.raises(TypeError):
        getattr(tl, op)(tl.tensor(z), out=tl.empty(3, 4))
