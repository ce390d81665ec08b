"""Unary elementwise operators against the NumPy oracle.

Every unary op x every dtype on contiguous, transposed, stepped, flipped,
negative-step and expanded inputs, 0-d and empty shapes; IEEE special
values; in-place forms on strided views; out= into strided outputs; result
dtypes and refused dtypes against PyTorch.  Floating results of
transcendental functions are compared within a per-dtype tolerance
(float16/bfloat16 computed in float32 and rounded once)."""
import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (ALL, COMPLEX, FLOATS, INTS, LAYOUTS, RTOL,
                         TORCH_FULL,
                         as_dtype, check, compute_dtype, finish, from_np,
                         is_complex, is_int, random_values,
                         real_of, rng_for, to_np, torch_dtype, view_as)


def _sign(x):
    if x.dtype == np.bool_:
        return x.copy()
    return np.sign(x)


def _sgn(x):
    if np.iscomplexobj(x):
        a = np.abs(x)
        with np.errstate(all="ignore"):
            return np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(
                x.dtype)
    return _sign(x)


def _rounding(fn):
    def f(x):
        if x.dtype.kind in "iub":
            return x.copy()
        return fn(x)
    return f


# name -> (oracle on values in the compute dtype, result kind, domain)
# result kinds: same | float (ints and bool -> float32) | real (complex ->
# its real dtype) | bool | square (bool -> int64)
OPS = {
    "neg": (np.negative, "same", "normal"),
    "abs": (np.abs, "real", "normal"),
    "sign": (_sign, "same", "normal"),
    "sgn": (_sgn, "same", "normal"),
    "sqrt": (np.sqrt, "float", "positive"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), "float", "positive"),
    "exp": (np.exp, "float", "smallnormal"),
    "exp2": (np.exp2, "float", "smallnormal"),
    "expm1": (np.expm1, "float", "smallnormal"),
    "log": (np.log, "float", "positive"),
    "log1p": (np.log1p, "float", "positive"),
    "log2": (np.log2, "float", "positive"),
    "log10": (np.log10, "float", "positive"),
    "sin": (np.sin, "float", "smallnormal"),
    "cos": (np.cos, "float", "smallnormal"),
    "tan": (np.tan, "float", "small"),
    "tanh": (np.tanh, "float", "smallnormal"),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), "float", "smallnormal"),
    "relu": (lambda x: np.maximum(x, np.zeros((), x.dtype)), "same",
             "normal"),
    "floor": (_rounding(np.floor), "same", "normal"),
    "ceil": (_rounding(np.ceil), "same", "normal"),
    "round": (_rounding(np.round), "same", "normal"),
    "trunc": (_rounding(np.trunc), "same", "normal"),
    "reciprocal": (lambda x: 1 / x, "float", "nonzero"),
    "square": (lambda x: x * x, "square", "normal"),
    "logical_not": (np.logical_not, "bool", "normal"),
    "bitwise_not": (np.invert, "same", "normal"),
    "isnan": (np.isnan, "bool", "normal"),
    "isinf": (np.isinf, "bool", "normal"),
    "isfinite": (np.isfinite, "bool", "normal"),
}
EXACT = {"neg", "sign", "relu", "floor", "ceil", "round", "trunc",
         "square", "logical_not", "bitwise_not", "isnan", "isinf",
         "isfinite", "abs"}
# Exact for real dtypes only: complex abs is a hypot and complex square a
# product whose rounding (FMA or not) may differ from NumPy's by an ulp.
INEXACT_COMPLEX = {"abs", "square"}
NO_INPLACE = {"isnan", "isinf", "isfinite"}


def supported(op, d):
    if op in ("neg", "abs") and d == tl.bool:
        return False
    if op == "sign" and is_complex(d):
        return False
    if op in ("relu", "floor", "ceil", "round", "trunc"):
        return d != tl.bool and not is_complex(d)
    if op == "bitwise_not":
        return is_int(d) or d == tl.bool
    return True


def result_dtype(op, d):
    kind = OPS[op][1]
    if kind == "bool":
        return tl.bool
    if kind == "float" and (is_int(d) or d == tl.bool):
        return tl.float32
    if kind == "real":
        return real_of(d)
    if kind == "square" and d == tl.bool:
        return tl.int64
    return d


def oracle(op, x, d):
    """Expected op(x) for x holding values of dtype d."""
    fn, kind, _ = OPS[op]
    rd = result_dtype(op, d)
    # The input is computed on in the result dtype when that is a wider
    # float (ints -> float32); else in its own dtype.
    cd_of = rd if kind in ("float", "square") else d
    xc = as_dtype(x, cd_of)
    if cd_of != tl.bool:
        xc = xc.astype(compute_dtype(cd_of))
    with np.errstate(all="ignore"):
        v = np.asarray(fn(xc))
    if rd == tl.bool:
        return v.astype(bool)
    return finish(v, rd)


def domain_values(shape, d, dom, rng):
    if dom == "smallnormal":
        if is_int(d) or d == tl.bool:
            return random_values(shape, d, rng, "small")
        v = rng.standard_normal(shape) * 2
        if is_complex(d):
            v = v + 1j * rng.standard_normal(shape)
        return as_dtype(np.array(v), d)
    if dom == "small" and is_complex(d):
        return random_values(shape, d, rng, "positive")
    if dom == "normal" and (is_int(d) or d == tl.bool):
        return random_values(shape, d, rng, "normal")
    if is_int(d) and dom != "nonzero":
        dom = "positive" if dom == "positive" else "small"
    return random_values(shape, d, rng, dom)


def tolerance(op, rd, d=None):
    if op in EXACT and not (op in INEXACT_COMPLEX and is_complex(d)):
        return dict(exact=True)
    if op in ("sin", "cos", "tan", "expm1", "log1p") or is_complex(rd):
        # Absolute error relative to the argument's size near the zeros.
        rtol = {tl.float16: 2.0 ** -9, tl.bfloat16: 2.0 ** -6,
                tl.float32: 4e-6, tl.float64: 1e-13,
                tl.complex64: 1e-5, tl.complex128: 1e-12}[rd]
        return dict(exact=False, rtol=rtol, atol=rtol * 4)
    # rd's own tolerance, also when the result is cast into a wider out=
    # (a float32 exp within an ulp stays an ulp off in a float64 out)
    return dict(exact=False, rtol=RTOL.get(rd))


SHAPES = [(4, 5), (2, 3, 4), (9,), (), (0, 4), (3, 1)]


@pytest.mark.parametrize("dt", ALL, ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", list(OPS))
def test_unary_all_layouts(op, dt):
    rng = rng_for("unary", op, dt)
    if not supported(op, dt):
        with pytest.raises(TypeError):
            getattr(tl, op)(from_np(random_values((3,), dt, rng), dt))
        return
    dom = OPS[op][2]
    rd = result_dtype(op, dt)
    tol = tolerance(op, rd, dt)
    for shape in SHAPES:
        x = domain_values(shape, dt, dom, rng)
        want = oracle(op, x, dt)
        for layout in LAYOUTS:
            t = view_as(x, dt, layout)
            check(getattr(tl, op)(t), want, rd,
                  what=f"{op} {dt} {shape} {layout}", **tol)
        if shape:
            # Expanded (stride-0) input: a new dim of 3 in front.
            t = from_np(x, dt).expand(3, *shape)
            check(getattr(t, op)(), np.broadcast_to(want, (3,) + shape), rd,
                  what=f"{op} {dt} {shape} expanded", **tol)


@pytest.mark.parametrize("dt", FLOATS + COMPLEX,
                         ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", [o for o in OPS if o not in NO_INPLACE])
def test_unary_inplace_on_strided_views(op, dt):
    """t.op_() on a transposed slice writes op(t) into exactly the viewed
    elements and bumps the version; the rest of the base is untouched."""
    if not supported(op, dt) or result_dtype(op, dt) != dt:
        pytest.skip("no in-place form for this dtype")
    rng = rng_for("inplace", op, dt)
    x = domain_values((6, 5), dt, OPS[op][2], rng)
    base = from_np(x, dt)
    view = base.T[1:4, ::-2]
    want_view = oracle(op, x.T[1:4, ::-2], dt)
    before = to_np(base)
    v0 = base._version
    r = getattr(view, op + "_")()
    assert r is view
    assert base._version > v0
    check(view, want_view, dt, what=f"{op}_ {dt}", **tolerance(op, dt, dt))
    after = to_np(base)
    mask = np.ones(x.shape, bool)
    mask.T[1:4, ::-2] = False
    np.testing.assert_array_equal(after[mask], before[mask])


@pytest.mark.parametrize("op", ["exp", "neg", "sqrt", "isnan", "floor",
                                "abs", "square", "logical_not"])
def test_unary_out_strided(op):
    """out= may be any writable view of the result's shape (here a
    transposed, negatively strided one); out's dtype may be wider."""
    rng = rng_for("out", op)
    dt = tl.float32
    x = domain_values((4, 3), dt, OPS[op][2], rng)
    rd = result_dtype(op, dt)
    storage = tl.zeros((3, 8), dtype=rd)
    out = storage[:, ::-2].T
    assert tuple(out.shape) == (4, 3)
    r = getattr(tl, op)(view_as(x, dt, "flipped"), out=out)
    assert r is out
    check(out, oracle(op, x, dt), rd, **tolerance(op, rd))
    np.testing.assert_array_equal(to_np(storage[:, -2::-2]), 0)
    wide = tl.empty((4, 3), dtype=tl.float64 if rd != tl.bool else tl.int64)
    getattr(tl, op)(from_np(x, dt), out=wide)
    np.testing.assert_allclose(to_np(wide),
                               oracle(op, x, dt).astype(to_np(wide).dtype),
                               rtol=4e-6)


SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5,
            2.5, -2.5, 3.5, -3.5, 1e-30, 1e4, -1e4, 88.8, -104.0, 1e38,
            -0.75, 700.0]


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", list(OPS))
def test_float_special_values(op, dt):
    """NaN, infinities, signed zeros, halfway cases for round, overflow and
    underflow, negative arguments of sqrt/log (NaN), as NumPy."""
    if not supported(op, dt):
        pytest.skip("unsupported")
    x = as_dtype(np.array(SPECIALS), dt)
    got = getattr(tl, op)(from_np(x, dt))
    want = oracle(op, x, dt)
    rd = result_dtype(op, dt)
    tol = tolerance(op, rd)
    if not tol["exact"]:
        # Far from zero, sin/cos/tan of huge arguments differ between libm
        # implementations only by the argument reduction: keep those out.
        keep = np.ones(x.shape, bool)
        if op in ("sin", "cos", "tan"):
            keep = ~(np.abs(x) > 100)
        check(tl.tensor(to_np(got)[keep]).to(rd), want[keep], rd,
              what=f"{op} {dt}", **tol)
    else:
        check(got, want, rd, what=f"{op} {dt}")
    # (relu(-0.0) is -0.0 in PyTorch and tensorlib, +0.0 in NumPy's
    # maximum: not checked.)
    if op in ("neg", "abs", "floor", "ceil", "round", "trunc", "square",
              "sqrt"):
        g = to_np(got).astype(np.float64)
        w = np.asarray(want, np.float64)
        z = (g == 0) & (w == 0)
        assert (np.signbit(g[z]) == np.signbit(w[z])).all(), (op, dt)


@pytest.mark.parametrize("dt", [tl.float16, tl.bfloat16, tl.float32,
                                tl.float64],
                         ids=lambda d: str(d).split(".")[-1])
def test_round_half_to_even(dt):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.5, 5.5, -6.5,
                  0.49, 0.51, 126.5, 127.5])
    x = as_dtype(x, dt)
    got = tl.round(from_np(x, dt))
    check(got, as_dtype(np.round(np.asarray(x, np.float64)), dt), dt)
    assert to_np(got)[:3].tolist() == [0.0, 2.0, 2.0]


@pytest.mark.parametrize("dt", INTS, ids=lambda d: str(d).split(".")[-1])
def test_integer_unary_extremes(dt):
    """neg/abs/square of INT_MIN and the unsigned maximum wrap; sign of
    unsigned is 0 or 1; rounding ops copy integers."""
    info = np.iinfo(as_dtype(np.zeros(1), dt).dtype)
    x = np.array([info.min, info.max, 0, 1, info.min + 1],
                 dtype=as_dtype(np.zeros(1), dt).dtype)
    t = from_np(x, dt)
    with np.errstate(all="ignore"):
        check(tl.neg(t), np.negative(x), dt)
        check(tl.abs(t), np.abs(x), dt)
        check(tl.square(t), x * x, dt)
        check(tl.sign(t), np.sign(x), dt)
        check(tl.bitwise_not(t), np.invert(x), dt)
    for op in ("floor", "ceil", "round", "trunc"):
        check(getattr(tl, op)(t), x, dt)


@pytest.mark.parametrize("op", list(OPS))
def test_result_dtypes_and_errors_vs_torch(torch, op):
    """For every dtype PyTorch handles, tensorlib refuses exactly what
    PyTorch refuses and otherwise gives PyTorch's result dtype."""
    for dt in TORCH_FULL:
        t = from_np(np.ones(2), dt) if dt != tl.bool else tl.tensor(
            [True, False])
        tt = torch.ones(2, dtype=torch_dtype(torch, dt))
        try:
            want = getattr(torch, op)(tt).dtype
        except (RuntimeError, TypeError, NotImplementedError):
            want = None
        if want is None:
            with pytest.raises(TypeError):
                getattr(tl, op)(t)
        else:
            got = getattr(tl, op)(t).dtype
            assert str(got).split(".")[-1] == str(want).split(".")[-1], (
                op, dt)


def test_method_function_and_operator_forms_agree():
    rng = rng_for("forms")
    x = domain_values((3, 4), tl.float32, "positive", rng)
    t = view_as(x, tl.float32, "transposed")
    for op in OPS:
        if not supported(op, tl.float32):
            continue
        np.testing.assert_array_equal(to_np(getattr(t, op)()),
                                      to_np(getattr(tl, op)(t)))
    np.testing.assert_array_equal(to_np(-t), to_np(tl.neg(t)))
    np.testing.assert_array_equal(to_np(abs(t)), to_np(tl.abs(t)))
    np.testing.assert_array_equal(to_np(tl.negative(t)), to_np(tl.neg(t)))
    assert (+t) is t
    i = from_np(random_values((3, 4), tl.int16, rng), tl.int16)
    np.testing.assert_array_equal(to_np(~i), np.invert(to_np(i)))


def test_big_unary_threaded():
    """Above the grain size the loop is split across threads; transposed
    inputs take the blocked path.  Values as the small-tensor oracle."""
    rng = rng_for("big")
    x = rng.standard_normal((513, 301)).astype(np.float32)
    for op in ("exp", "sigmoid", "tanh", "neg", "log1p", "abs"):
        xs = np.abs(x) if op == "log1p" else x
        for t in (from_np(xs, tl.float32), view_as(xs, tl.float32,
                                                    "transposed")):
            check(getattr(tl, op)(t), oracle(op, xs, tl.float32),
                  tl.float32, what=op, **tolerance(op, tl.float32))


try:
    from hypothesis import given, strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None

if given is not None:
    @given(data=st.data(), op=st.sampled_from(list(OPS)),
           dt=st.sampled_from(ALL), odt=st.sampled_from(ALL))
    def test_hypothesis_unary_layouts_and_out(data, op, dt, odt):
        """Random shapes and layouts; out= of any dtype the result can be
        cast to (else TypeError, out untouched)."""
        if not supported(op, dt):
            return
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4,
                                           min_side=0, max_side=4))
        rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
        x = domain_values(shape, dt, OPS[op][2], rng)
        t = view_as(x, dt, data.draw(st.sampled_from(LAYOUTS)))
        rd = result_dtype(op, dt)
        want = oracle(op, x, dt)
        check(getattr(tl, op)(t), want, rd, **tolerance(op, rd, dt))
        init = random_values(shape, odt, rng, "small")
        out = view_as(init, odt, data.draw(st.sampled_from(LAYOUTS)))
        if not tl.can_cast(rd, odt):
            with pytest.raises(TypeError):
                getattr(tl, op)(t, out=out)
            check(out, as_dtype(init, odt), odt)
            return
        assert getattr(tl, op)(t, out=out) is out
        tol = tolerance(op, rd, dt)
        if odt in (tl.float16, tl.bfloat16) and rd != odt:
            tol = dict(exact=False)  # a second rounding of an inexact value
        if is_int(odt) or odt == tl.bool:
            tol = dict(exact=True)
        check(out, as_dtype(want, odt), odt, what=f"{op} {dt} -> {odt}",
              **tol)


@pytest.mark.parametrize("op", ["exp", "log", "log2", "log10", "sigmoid",
                                "sqrt", "rsqrt", "reciprocal"])
def test_float32_within_one_ulp_of_correctly_rounded(op):
    """ops.h: float32 exp/log/log2/log10 are computed in double and
    rounded once -- within 1 ulp of the correctly rounded result (here the
    float64 result); sqrt and reciprocal are IEEE operations.  sigmoid
    (only its exp in double, then a float32 division) and rsqrt (1/sqrtf:
    two roundings) get 3 ulp."""
    rng = rng_for("ulp", op)
    if op in ("exp", "sigmoid"):
        x = rng.uniform(-87, 88, 20000)
    else:
        x = np.exp(rng.uniform(-80, 80, 20000))
    x = x.astype(np.float32)
    f64 = {"exp": np.exp, "log": np.log, "log2": np.log2,
           "log10": np.log10, "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
           "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v),
           "reciprocal": lambda v: 1 / v}[op]
    with np.errstate(all="ignore"):
        ref = f64(x.astype(np.float64))
    got = to_np(getattr(tl, op)(tl.tensor(x))).astype(np.float64)
    ok = np.isfinite(ref) & (np.abs(ref) > np.finfo(np.float32).tiny) & \
        (np.abs(ref) < np.finfo(np.float32).max)
    spacing = np.spacing(np.abs(ref[ok].astype(np.float32))).astype(
        np.float64)
    err = np.abs(got[ok] - ref[ok]) / spacing
    bound = 3.0 if op in ("sigmoid", "rsqrt") else 1.0
    assert err.max() <= bound, (op, err.max())
    if op in ("sqrt",):  # IEEE: correctly rounded
        np.testing.assert_array_equal(got[ok], ref[ok].astype(np.float32))


# ---- round(decimals=) -------------------------------------------------------

@pytest.mark.parametrize("d", [tl.float16, tl.float32, tl.float64])
@pytest.mark.parametrize("decimals", [-3, -1, 1, 2, 5])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "flipped"])
def test_round_decimals_matches_numpy(d, decimals, layout):
    """NumPy's recipe in the tensor's dtype (Note [Rounding to decimals]):
    scale, round half to even, scale back; ties such as 2.5 at -1 land
    on even tens; NaN and inf pass through."""
    rng = rng_for("round_decimals", d, decimals, layout)
    x = as_dtype(rng.standard_normal((5, 7)) * 10.0 ** rng.integers(
        -2, 4, size=(5, 7)), d)
    x.flat[:6] = [np.nan, np.inf, -np.inf, 25.0, -35.0, 0.125]
    x = as_dtype(x, d)
    t = view_as(x, d, layout)
    with np.errstate(all="ignore"):  # float16 * 10**5 overflows to inf
        want = np.round(x, decimals)
    got = tl.round(t, decimals=decimals)
    assert got.dtype == d and got.shape == t.shape
    np.testing.assert_array_equal(to_np(got), want)
    np.testing.assert_array_equal(to_np(t.round(decimals=decimals)), want)
    # out= of a wider dtype takes the rounded values, cast on write
    out = tl.empty((5, 7), dtype=tl.float64)
    tl.round(t, decimals=decimals, out=out)
    np.testing.assert_array_equal(to_np(out), want.astype(np.float64))
    # in place, on a strided view: one version bump
    v = t._version
    assert t.round_(decimals=decimals) is t
    np.testing.assert_array_equal(to_np(t), want)
    assert t._version == v + 1


def test_round_decimals_bfloat16_rounds_each_step():
    x = np.array([1.234567, -98.7654, 0.015625, 1234.5], np.float32)
    t = tl.tensor(x).to(tl.bfloat16)
    xb = to_np(t)  # the bfloat16 values, as float32

    def bf(v):
        return to_np(tl.tensor(np.asarray(v, np.float32)).to(tl.bfloat16))

    want = bf(np.rint(bf(xb * np.float32(100.0))) / np.float32(100.0))
    np.testing.assert_array_equal(to_np(t.round(decimals=2)), want)


def test_round_decimals_errors_and_dtypes(torch):
    f = tl.tensor([1.25, 2.5])
    before = f.tolist(), f._version
    # decimals is keyword-only and an int, as in PyTorch
    for bad in (lambda: f.round(2), lambda: tl.round(f, 2),
                lambda: f.round(decimals=2.0), lambda: f.round(decimals=True),
                lambda: f.round(decimals="2")):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(TypeError):
        torch.tensor([1.25]).round(2)
    with pytest.raises(TypeError):
        torch.tensor([1.25]).round(decimals=2.0)
    # an out= the float result cannot be cast to: nothing written
    out = tl.zeros(2, dtype=tl.int32)
    with pytest.raises(TypeError):
        tl.round(f, decimals=1, out=out)
    assert out.tolist() == [0, 0] and out._version == 0
    # bool and complex have no round; integers only for decimals >= 0
    # (a copy: integers have no decimals); PyTorch refuses integer round
    with pytest.raises(TypeError):
        tl.tensor([True]).round(decimals=1)
    with pytest.raises(TypeError):
        tl.tensor([1 + 1j]).round(decimals=1)
    i = tl.tensor([15, 25])
    with pytest.raises(TypeError, match="decimals=-1"):
        i.round(decimals=-1)
    assert i.round(decimals=2).tolist() == [15, 25]
    assert (f.tolist(), f._version) == before
    # huge decimals: 10**400 is inf in a double, giving NaN as PyTorch does
    assert np.isnan(tl.round(tl.tensor([1.5]), decimals=400).item())
    assert np.isnan(torch.round(torch.tensor([1.5]), decimals=400).item())
    # float32 values agree with PyTorch's float32 recipe
    x = np.random.default_rng(7).standard_normal(1000).astype(np.float32)
    for dec in (-1, 2, 4):
        np.testing.assert_array_equal(
            to_np(tl.round(tl.tensor(x), decimals=dec)),
            torch.round(torch.from_numpy(x), decimals=dec).numpy())


def test_exp2_integer_powers_exact_and_complex(torch):
    """exp2 (added through the op table, docs/adding-an-op.md): integers
    give float32 exact powers of two, as torch.exp2; complex is NumPy's
    exp(z ln 2); in place on a float view."""
    k = np.arange(-20, 21)
    got = tl.exp2(tl.tensor(k))
    assert got.dtype == tl.float32
    assert to_np(got).tolist() == (2.0 ** k).astype(np.float32).tolist()
    assert to_np(got).tolist() == torch.exp2(torch.tensor(k)).tolist()
    z = np.array([0.5 + 1j, -2 - 0.25j, 3j, 1.5 + 0j])
    np.testing.assert_allclose(to_np(tl.exp2(tl.tensor(z))), np.exp2(z),
                               rtol=1e-13)
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    v = x._version
    assert x.exp2_() is x and x._version == v + 1
    assert to_np(x).tolist() == [[2.0, 8.0], [4.0, 16.0]]
