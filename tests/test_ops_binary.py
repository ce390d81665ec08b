"""Binary elementwise operators against the NumPy oracle.

Every binary op x every dtype, on contiguous, transposed, stepped,
flipped (negative stride) and expanded (stride 0) operands, 0-d and empty
shapes, every dtype pair (values computed on the inputs cast to the result
dtype), IEEE special values, and big tensors that take the threaded and
vectorised paths.  Result dtypes are checked against PyTorch in
test_ops_promotion.py; error semantics in test_ops_semantics.py."""
import itertools
import operator

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (ALL, COMPLEX, FLOATS, INTS, LAYOUTS, NP, RTOL,
                         as_dtype, bits, broadcast_view, check, compute_dtype,
                         finish, from_np, is_complex, is_float, is_int,
                         np_lshift, np_rshift, random_values, rng_for, to_np,
                         view_as)

try:
    from hypothesis import given, strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None


# name -> (NumPy oracle on values in the compute dtype, kind)
# kinds: arith (result dtype R), cmp / logical (bool result, compared in R)
OPS = {
    "add": (np.add, "arith"),
    "sub": (np.subtract, "arith"),
    "mul": (np.multiply, "arith"),
    "div": (np.true_divide, "arith"),
    "floor_divide": (np.floor_divide, "arith"),
    "remainder": (np.remainder, "arith"),
    "pow": (np.power, "arith"),
    "maximum": (np.maximum, "arith"),
    "minimum": (np.minimum, "arith"),
    "eq": (np.equal, "cmp"),
    "ne": (np.not_equal, "cmp"),
    "lt": (np.less, "cmp"),
    "le": (np.less_equal, "cmp"),
    "gt": (np.greater, "cmp"),
    "ge": (np.greater_equal, "cmp"),
    "logical_and": (np.logical_and, "logical"),
    "logical_or": (np.logical_or, "logical"),
    "logical_xor": (np.logical_xor, "logical"),
    "bitwise_and": (np.bitwise_and, "arith"),
    "bitwise_or": (np.bitwise_or, "arith"),
    "bitwise_xor": (np.bitwise_xor, "arith"),
    "bitwise_left_shift": (None, "arith"),
    "bitwise_right_shift": (None, "arith"),
}
# Ops whose float results are not exactly reproducible from NumPy's loops
# (NumPy's own pow differs from libm's by an ulp): compared within a
# tolerance.  floor_divide and remainder follow NumPy's divmod exactly.
INEXACT = {"pow"}


def supported(op, r, da=None, db=None):
    """Whether op accepts operands whose promoted dtype is r (PyTorch's
    rules, ops.h)."""
    if op == "sub":
        return tl.bool not in (da, db) and r != tl.bool
    if op in ("floor_divide", "remainder"):
        return r != tl.bool and not is_complex(r)
    if op == "pow":
        return r != tl.bool
    if op in ("maximum", "minimum", "lt", "le", "gt", "ge"):
        return not is_complex(r)
    if op.startswith("bitwise_") and op.endswith("shift"):
        return is_int(r)
    if op.startswith("bitwise_"):
        return is_int(r) or r == tl.bool
    return True


def result_dtype(op, r):
    kind = OPS[op][1]
    if kind in ("cmp", "logical"):
        return tl.bool
    if op == "div" and (is_int(r) or r == tl.bool):
        return tl.float32
    return r


def operand_kinds(op, r):
    """Value kinds (a, b) that keep op well defined in dtype r."""
    if op == "pow":
        if is_int(r):
            return "small", "positive"
        return "positive", "small"
    if op in ("div", "floor_divide", "remainder"):
        if is_int(r) or r == tl.bool:
            return "normal", "nonzero"
        return "normal", "nonzero"
    if op.endswith("shift"):
        return "normal", "shift"
    if op in ("mul",) and (is_float(r) or is_complex(r)):
        return "normal", "normal"
    return "normal", "normal"


def values(shape, d, kind, rng, r=None):
    if kind == "shift":
        # Counts from -2 to beyond the bit width (negative only for signed).
        lo = -2 if d in (tl.int8, tl.int16, tl.int32, tl.int64) else 0
        return rng.integers(lo, bits(r or d) + 3, size=shape).astype(NP[d])
    return random_values(shape, d, rng, kind)


def oracle(op, x, y, r):
    """Expected values of op(x, y) where r is the promoted dtype."""
    fn, kind = OPS[op]
    rd = result_dtype(op, r)
    cd = compute_dtype(r)
    if op == "div" and (is_int(r) or r == tl.bool):
        cd = np.float32
    xc = as_dtype(x, r)
    yc = as_dtype(y, r)
    if cd is not np.bool_:
        xc = xc.astype(cd)
        yc = yc.astype(cd)
    with np.errstate(all="ignore"):
        if op == "bitwise_left_shift":
            v = np_lshift(xc, yc, r)
        elif op == "bitwise_right_shift":
            v = np_rshift(xc, yc, r)
        elif op == "pow" and is_int(r):
            # NumPy's integer power wraps like tensorlib's; it refuses
            # negative exponents, which the operands avoid.
            v = np.power(xc, yc)
        else:
            v = fn(xc, yc)
    if kind in ("cmp", "logical"):
        return np.asarray(v, bool)
    return finish(v, rd)


def call(op, a, b, **kw):
    return getattr(tl, op)(a, b, **kw)


def run_case(op, x, y, da, db, a, b, what=""):
    # result_type, not promote_types: a 0-d operand of a higher dtype in
    # the same category does not promote (checked against PyTorch in
    # test_ops_promotion.py).
    r = tl.result_type(a, b)
    got = call(op, a, b)
    want = oracle(op, x, y, r)
    rd = result_dtype(op, r)
    exact = op not in INEXACT
    if op == "div" and is_complex(rd):
        exact = False
    if op == "mul" and is_complex(rd):
        exact = False
    check(got, want, rd, exact=exact, what=what)


SHAPES = [(3, 5), (2, 3, 4), (7,), (), (0, 3), (4, 1)]


@pytest.mark.parametrize("dt", ALL, ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", list(OPS))
def test_same_dtype_all_layouts(op, dt):
    rng = rng_for("same", op, dt)
    if not supported(op, dt, dt, dt):
        a = from_np(random_values((3,), dt, rng), dt)
        with pytest.raises(TypeError):
            call(op, a, a)
        return
    ka, kb = operand_kinds(op, dt)
    pairs = [("contiguous", "contiguous"), ("transposed", "flipped"),
             ("stepped", "neg_stepped"), ("flipped", "transposed"),
             ("neg_stepped", "stepped")]
    for shape in SHAPES:
        x = values(shape, dt, ka, rng)
        y = values(shape, dt, kb, rng, dt)
        for la, lb in pairs:
            a = view_as(x, dt, la)
            b = view_as(y, dt, lb)
            run_case(op, x, y, dt, dt, a, b,
                     what=f"{op} {dt} {shape} {la}/{lb}")


BROADCASTS = [((3, 1, 4), (5, 1)), ((4,), (3, 4)), ((), (2, 3)),
              ((2, 0, 3), (1, 3)), ((1,), (0,)), ((2, 1), (1, 6)),
              ((1, 1), ())]


@pytest.mark.parametrize("dt", [tl.bool, tl.uint8, tl.int32, tl.int64,
                                tl.float16, tl.bfloat16, tl.float64,
                                tl.complex64],
                         ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", list(OPS))
def test_broadcast_and_expanded(op, dt):
    """Broadcast shapes, given both as plain size-1 dims and as expanded
    stride-0 views of the full shape."""
    if not supported(op, dt, dt, dt):
        pytest.skip("unsupported dtype (errors are tested elsewhere)")
    rng = rng_for("bcast", op, dt)
    ka, kb = operand_kinds(op, dt)
    for sa, sb in BROADCASTS:
        full = np.broadcast_shapes(sa, sb)
        x = values(sa, dt, ka, rng)
        y = values(sb, dt, kb, rng, dt)
        what = f"{op} {dt} {sa} {sb}"
        run_case(op, np.broadcast_to(x, full), np.broadcast_to(y, full),
                 dt, dt, from_np(x, dt), from_np(y, dt), what)
        # Expanded stride-0 views (and the reverse operand order's layout).
        a = broadcast_view(x, dt, full)
        b = view_as(np.ascontiguousarray(np.broadcast_to(y, full)), dt,
                    "flipped" if len(full) else "contiguous")
        run_case(op, np.broadcast_to(x, full), np.broadcast_to(y, full),
                 dt, dt, a, b, what + " expanded")


@pytest.mark.parametrize("op", list(OPS))
def test_every_dtype_pair(op):
    """All 15 x 15 operand dtype pairs (small values, exact in every
    dtype): the result dtype is promote_types' and the values are the
    oracle's on inputs cast to it."""
    rng = rng_for("pairs", op)
    for da, db in itertools.product(ALL, ALL):
        r = tl.promote_types(da, db)
        x = random_values((2, 3), da, rng, "small")
        if op.endswith("shift"):
            y = random_values((2, 3), db, rng, "positive")
        elif op in ("div", "floor_divide", "remainder"):
            y = random_values((2, 3), db, rng, "nonzero")
        elif op == "pow":
            y = random_values((2, 3), db, rng, "positive")
            x = random_values((2, 3), da, rng, "positive")
        else:
            y = random_values((2, 3), db, rng, "small")
        a = view_as(x, da, "transposed")
        b = view_as(y, db, "flipped")
        if not supported(op, r, da, db):
            with pytest.raises(TypeError):
                call(op, a, b)
            continue
        run_case(op, x, y, da, db, a, b, what=f"{op} {da} {db}")


SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0,
            1e-3, -7.0, 0.5]


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "floor_divide",
                                "remainder", "pow", "maximum", "minimum",
                                "eq", "ne", "lt", "le", "gt", "ge",
                                "logical_and", "logical_or", "logical_xor"])
def test_float_special_values(op, dt):
    """NaN, infinities and signed zeros against NumPy (every ordered pair).
    Signs of zero results are checked for add/sub/mul/div/maximum/minimum."""
    v = as_dtype(np.array(SPECIALS), dt)
    x, y = np.meshgrid(v, v, indexing="ij")
    a, b = from_np(x, dt), from_np(y, dt)
    got = call(op, a, b)
    want = oracle(op, x, y, dt)
    rd = result_dtype(op, dt)
    check(got, want, rd, exact=op not in INEXACT, what=f"{op} {dt}")
    if op in ("add", "sub", "mul", "div"):
        g = to_np(got)
        zero = g == 0
        assert (np.signbit(g[zero]) ==
                np.signbit(np.asarray(want, np.float64)[zero])).all(), op


@pytest.mark.parametrize("dt", [tl.float32, tl.float64, tl.int32, tl.uint8,
                                tl.float16, tl.int64],
                         ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", ["add", "mul", "sub", "maximum", "lt",
                                "bitwise_xor", "div", "remainder"])
def test_large_threaded_paths(op, dt):
    """Operands above the parallel grain size: contiguous (vectorised
    inner loop), transposed (cache-blocked), broadcast rows."""
    if not supported(op, dt, dt, dt):
        pytest.skip("unsupported dtype")
    rng = rng_for("large", op, dt)
    ka, kb = operand_kinds(op, dt)
    x = values((300, 257), dt, ka, rng)
    y = values((300, 257), dt, kb, rng, dt)
    run_case(op, x, y, dt, dt, from_np(x, dt), from_np(y, dt), "contig")
    run_case(op, x, y, dt, dt, view_as(x, dt, "transposed"),
             from_np(y, dt), "transposed")
    row = y[:1]
    run_case(op, x, np.broadcast_to(row, x.shape), dt, dt, from_np(x, dt),
             from_np(row, dt), "row broadcast")
    # Unaligned-offset slice (element offset 1) of a contiguous tensor.
    xb = values((300 * 257 + 1,), dt, ka, rng)
    yb = values((300 * 257 + 1,), dt, kb, rng, dt)
    run_case(op, xb[1:], yb[:-1], dt, dt, from_np(xb, dt)[1:],
             from_np(yb, dt)[:-1], "offset")


@pytest.mark.parametrize("dt", [tl.int8, tl.uint8, tl.int32, tl.int64,
                                tl.float16, tl.bfloat16, tl.float32,
                                tl.float64, tl.complex128],
                         ids=lambda d: str(d).split(".")[-1])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha(op, dt):
    rng = rng_for("alpha", op, dt)
    x = random_values((4, 3), dt, rng, "small")
    y = random_values((4, 3), dt, rng, "small")
    alphas = [2, -3, 0]
    if is_float(dt) or is_complex(dt):
        alphas += [0.5, -1.25]
    if is_complex(dt):
        alphas += [1 + 2j]
    for alpha in alphas:
        got = getattr(tl, op)(view_as(x, dt, "transposed"),
                              view_as(y, dt, "flipped"), alpha=alpha)
        cd = compute_dtype(dt)
        with np.errstate(all="ignore"):
            xa = as_dtype(x, dt).astype(cd)
            yb = as_dtype(y, dt).astype(cd)
            if is_int(dt):
                ys = yb * np.array(alpha).astype(cd)
            else:
                ys = yb * alpha
            v = xa + ys if op == "add" else xa - ys
        check(got, finish(v, dt), dt, exact=not (is_complex(dt) or
                                                 dt in (tl.float16,
                                                        tl.bfloat16)),
              what=f"{op} alpha={alpha}")
    if is_int(dt):
        with pytest.raises(TypeError):
            getattr(tl, op)(from_np(x, dt), from_np(y, dt), alpha=1.5)
    if not is_complex(dt):
        with pytest.raises(TypeError):
            getattr(tl, op)(from_np(x, dt), from_np(y, dt), alpha=1j)


def test_add_bool_alpha():
    a = tl.tensor([True, False, False])
    b = tl.tensor([True, True, False])
    got = tl.add(a, b, alpha=True)
    check(got, np.array([True, True, False]), tl.bool)
    with pytest.raises(TypeError):
        tl.add(tl.tensor([1, 2]), tl.tensor([1, 2]), alpha=True)


PY_OPERATORS = {"add": operator.add, "sub": operator.sub,
                "mul": operator.mul, "div": operator.truediv,
                "floor_divide": operator.floordiv,
                "remainder": operator.mod, "pow": operator.pow,
                "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
                "le": operator.le, "gt": operator.gt, "ge": operator.ge,
                "bitwise_and": operator.and_, "bitwise_or": operator.or_,
                "bitwise_xor": operator.xor,
                "bitwise_left_shift": operator.lshift,
                "bitwise_right_shift": operator.rshift}


@pytest.mark.parametrize("op", list(PY_OPERATORS))
def test_operator_method_and_function_agree(op):
    rng = rng_for("forms", op)
    dt = tl.int32 if op.startswith("bitwise") else tl.float64
    ka, kb = operand_kinds(op, dt)
    x = values((3, 4), dt, ka, rng)
    y = values((3, 4), dt, kb, rng, dt)
    a, b = view_as(x, dt, "transposed"), view_as(y, dt, "neg_stepped")
    want = to_np(getattr(tl, op)(a, b))
    for got in (PY_OPERATORS[op](a, b), getattr(a, op)(b)):
        np.testing.assert_array_equal(to_np(got), want)


if given is not None:
    _dtypes = st.sampled_from([tl.uint8, tl.int16, tl.int64, tl.float32,
                               tl.float64, tl.float16, tl.complex64,
                               tl.bool])

    @given(data=st.data(), op=st.sampled_from(list(OPS)), da=_dtypes,
           db=_dtypes)
    def test_hypothesis_broadcast_layouts(data, op, da, db):
        """Random broadcastable shapes, layouts and dtype pairs."""
        shapes = data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=0, max_dims=4, max_side=4))
        sa, sb = shapes.input_shapes
        r = tl.promote_types(da, db)
        la = data.draw(st.sampled_from(LAYOUTS))
        lb = data.draw(st.sampled_from(LAYOUTS))
        s = data.draw(st.integers(0, 2 ** 31))
        rng = np.random.default_rng(s)
        ka, kb = operand_kinds(op, r)
        if kb == "shift":
            kb = "positive"
        if op == "pow":
            ka = "positive"
        x = random_values(sa, da, rng, "small" if ka == "normal" else ka)
        y = random_values(sb, db, rng, "small" if kb == "normal" else kb)
        a, b = view_as(x, da, la), view_as(y, db, lb)
        r = tl.result_type(a, b)
        if not supported(op, r, da, db):
            with pytest.raises(TypeError):
                call(op, a, b)
            return
        full = shapes.result_shape
        run_case(op, np.broadcast_to(x, full), np.broadcast_to(y, full),
                 da, db, a, b, what=f"{op} {da} {db} {sa} {sb} {la} {lb}")


def test_rtol_table_covers_floats():
    assert set(RTOL) == set(FLOATS) | set(COMPLEX)
    assert set(INTS) <= set(ALL)


if given is not None:
    _out_dtypes = st.sampled_from(ALL)

    @given(data=st.data(), op=st.sampled_from(["add", "sub", "mul", "div",
                                               "maximum", "lt", "eq",
                                               "bitwise_or", "remainder",
                                               "logical_xor"]),
           da=_dtypes, db=_dtypes, do=_out_dtypes)
    def test_hypothesis_out_dtype_and_layout(data, op, da, db, do):
        """out= of any castable dtype and any layout (transposed, stepped,
        flipped): the result computed in the promoted dtype, cast once on
        write; an uncastable out is a TypeError with out untouched."""
        shapes = data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=1, max_dims=3, min_side=1, max_side=4))
        sa, sb = shapes.input_shapes
        full = shapes.result_shape
        rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 31)))
        kb = "nonzero" if op in ("div", "remainder") else "small"
        x = random_values(sa, da, rng, "small")
        y = random_values(sb, db, rng, kb)
        a = view_as(x, da, data.draw(st.sampled_from(LAYOUTS)))
        b = view_as(y, db, data.draw(st.sampled_from(LAYOUTS)))
        r = tl.result_type(a, b)
        if not supported(op, r, da, db):
            return
        rd = result_dtype(op, r)
        init = random_values(full, do, rng, "small")
        out = view_as(init, do, data.draw(st.sampled_from(LAYOUTS)))
        if not tl.can_cast(rd, do):
            with pytest.raises(TypeError):
                call(op, a, b, out=out)
            check(out, as_dtype(init, do), do)
            return
        got = call(op, a, b, out=out)
        assert got is out
        want = oracle(op, np.broadcast_to(x, full), np.broadcast_to(y, full),
                      r)
        want = as_dtype(want, do)
        exact = not (is_complex(rd) and op == "div")
        check(out, want, do, exact=exact, what=f"{op} {da} {db} -> {do}")


@pytest.mark.parametrize("half", [tl.float16, tl.bfloat16],
                         ids=["float16", "bfloat16"])
def test_half_compute_rounds_inputs_and_wider_out(half, torch):
    """float16/bfloat16 ops compute in float32, but the inputs are first
    cast to the half dtype (an int64 2049 is 2048 in float16; 257 is 256
    in bfloat16) and the result is rounded to it even when out= is wider
    -- the values NumPy gives on inputs cast to the result dtype, and
    PyTorch's."""
    tname = str(half).split(".")[-1]
    th = getattr(torch, tname)
    big = [2049, 4097, 257, -2051, 3]
    ints = tl.tensor(big)
    h = tl.tensor([0.5, 0.25, 0.5, 0.5, 0.5]).to(half)
    tints, th_h = torch.tensor(big), torch.tensor(
        [0.5, 0.25, 0.5, 0.5, 0.5]).to(th)
    for op in ("add", "sub", "mul", "div", "maximum", "eq", "gt"):
        got = getattr(tl, op)(ints, h)
        want = getattr(torch, op)(tints, th_h)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(
            ".")[-1]
        np.testing.assert_array_equal(to_np(got.float() if got.dtype != tl.bool
                                            else got),
                                      want.float().numpy() if
                                      want.dtype != torch.bool else
                                      want.numpy(), err_msg=op)
        # The same with the half operand 0-dim (lower priority, same
        # category rule: the result is still the half dtype).
        got0 = getattr(tl, op)(ints, h[0])
        want0 = getattr(torch, op)(tints, th_h[0])
        np.testing.assert_array_equal(
            to_np(got0.float() if got0.dtype != tl.bool else got0),
            want0.float().numpy() if want0.dtype != torch.bool
            else want0.numpy(), err_msg=op + " 0-dim")
    # A wider out= receives the half-rounded result: the half result
    # widened exactly (and PyTorch's, where it takes such an out=).
    x = tl.tensor([3.0, 1.1, 7.7]).to(half)
    tx = torch.tensor([3.0, 1.1, 7.7]).to(th)
    d = tl.tensor([1.3]).to(half)
    td = torch.tensor([1.3]).to(th)
    cases = [
        ("div", lambda o=None: tl.div(x, d, out=o),
         lambda o: torch.div(tx, td, out=o)),
        ("exp", lambda o=None: tl.exp(x, out=o),
         lambda o: torch.exp(tx, out=o)),
        ("sigmoid", lambda o=None: tl.sigmoid(x, out=o),
         lambda o: torch.sigmoid(tx, out=o)),
        ("clamp", lambda o=None: tl.clamp(x * 1.01, 0.5, 5, out=o),
         lambda o: torch.clamp(tx * 1.01, 0.5, 5, out=o)),
        ("int_mul", lambda o=None: tl.mul(ints, h, out=o),
         lambda o: torch.mul(tints, th_h, out=o))]
    for odt in (tl.float32, tl.float64, tl.complex64):
        todt = getattr(torch, str(odt).split(".")[-1])
        for name, f, tf in cases:
            plain = f()
            assert plain.dtype == half
            o = tl.empty(tuple(plain.shape), dtype=odt)
            assert f(o) is o
            np.testing.assert_array_equal(to_np(o), to_np(plain.to(odt)),
                                          err_msg=f"{name} -> {odt}")
            to = torch.empty(tuple(plain.shape), dtype=todt)
            try:
                tf(to)
            except RuntimeError:
                continue  # PyTorch wants out's dtype to match here
            np.testing.assert_array_equal(to_np(o), to.numpy(),
                                          err_msg=f"{name} -> {odt} torch")


def test_half_inplace_with_wide_integer_operand(torch):
    """a.add_(b) with a float16 and b int32: b rounds to float16 first."""
    for half in ("float16", "bfloat16"):
        a = tl.tensor([0.5, 0.5, 0.5]).to(getattr(tl, half))
        ta = torch.tensor([0.5, 0.5, 0.5]).to(getattr(torch, half))
        b = [2049, 4097, 257]
        a.add_(tl.tensor(b, dtype=tl.int32))
        ta.add_(torch.tensor(b, dtype=torch.int32))
        np.testing.assert_array_equal(to_np(a.float()), ta.float().numpy())
        a.clamp_(tl.tensor(b, dtype=tl.int32))
        ta.clamp_(torch.tensor(b, dtype=torch.int32))
        np.testing.assert_array_equal(to_np(a.float()), ta.float().numpy())


def test_half_rounding_big_strided_and_overlapping():
    """The half-rounding path above the grain size: a transposed float64
    out, an in-place float16 update by an int64 tensor, and an out that
    is a shifted view of another tensor."""
    rng = rng_for("half-big")
    x = rng.integers(-5000, 5000, (300, 257))
    h = as_dtype(rng.standard_normal((257, 300)) * 100, tl.float16)
    out = tl.empty((257, 300), dtype=tl.float64).T
    tl.add(tl.tensor(x), from_np(h, tl.float16).T, out=out)
    x16 = x.astype(np.float16).astype(np.float32)
    want = (x16 + h.T.astype(np.float32)).astype(np.float16)
    check(out, want.astype(np.float64), tl.float64)
    a16 = from_np(h, tl.float16)
    a16 += tl.tensor(np.ascontiguousarray(x.T))
    check(a16, (h.astype(np.float32) + x16.T).astype(np.float16),
          tl.float16)
    v = tl.zeros(100001, dtype=tl.float32)
    ints = np.arange(100000) * 3001
    tl.mul(tl.ones(100000, dtype=tl.float16), tl.tensor(ints), out=v[1:])
    check(v[1:], ints.astype(np.float16).astype(np.float32), tl.float32)
    assert v[0].item() == 0.0
