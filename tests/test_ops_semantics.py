"""Operator semantics: Python operators (reflected and in-place) with
tensors, Python and NumPy scalars and arrays on either side; functional
forms with out= (shape, resize and dtype-cast rules); in-place methods;
version counters; errors that leave every operand unchanged (integer
division by zero, bitwise ops on floats, read-only and overlapping
outputs); wrapping integer arithmetic, INT_MIN // -1, shifts, NaN
propagation; the thread count and fork safety."""
import multiprocessing
import operator
import sys

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (INTS, SIGNED, as_dtype, bits, check, from_np,
                         random_values, rng_for, to_np, view_as)

OPERATORS = {
    "add": (operator.add, operator.iadd, np.add),
    "sub": (operator.sub, operator.isub, np.subtract),
    "mul": (operator.mul, operator.imul, np.multiply),
    "div": (operator.truediv, operator.itruediv, np.true_divide),
    "floor_divide": (operator.floordiv, operator.ifloordiv,
                     np.floor_divide),
    "remainder": (operator.mod, operator.imod, np.remainder),
    "pow": (operator.pow, operator.ipow, np.power),
    "bitwise_and": (operator.and_, operator.iand, np.bitwise_and),
    "bitwise_or": (operator.or_, operator.ior, np.bitwise_or),
    "bitwise_xor": (operator.xor, operator.ixor, np.bitwise_xor),
    "bitwise_left_shift": (operator.lshift, operator.ilshift,
                           np.left_shift),
    "bitwise_right_shift": (operator.rshift, operator.irshift,
                            np.right_shift),
}


def _operands(op, rng):
    """(float64 values, int32 values, a float scalar, an int scalar) that
    keep op defined."""
    x = np.round(rng.uniform(0.5, 4, (3, 4)), 1)
    i = rng.integers(1, 6, (3, 4)).astype(np.int32)
    return x, i


@pytest.mark.parametrize("op", list(OPERATORS))
def test_operators_reflected_and_inplace_with_scalars(op):
    fwd, inplace, npf = OPERATORS[op]
    rng = rng_for("operators", op)
    x, i = _operands(op, rng)
    is_bitwise = op.startswith("bitwise")
    dt, vals = (tl.int32, i) if is_bitwise else (tl.float64, x)
    np_dt = vals.dtype
    for s in ([2, 3] if is_bitwise else [2, 3, 2.5, 0.5]):
        t = view_as(vals, dt, "transposed")
        sv = np.array(s).astype(np_dt)
        with np.errstate(all="ignore"):
            want_l = npf(vals, sv)
            want_r = npf(sv, vals)
        check(fwd(t, s), want_l, dt, exact=op != "pow", what=f"t {op} {s}")
        check(fwd(s, t), want_r, dt, exact=op != "pow", what=f"{s} {op} t")
        check(getattr(tl, op)(t, s), want_l, dt, exact=op != "pow")
        check(getattr(tl, op)(s, t), want_r, dt, exact=op != "pow")
        # In place: the same object back, values written, version bumped.
        base = from_np(vals, dt)
        t2 = base
        v0 = base._version
        t2 = inplace(t2, s)
        assert t2 is base
        assert base._version > v0
        check(base, want_l, dt, exact=op != "pow", what=f"t {op}= {s}")
        # Tensor with tensor (a broadcast row) and the method form.
        row = from_np(vals[0], dt)
        check(fwd(t, row), npf(vals, vals[0]), dt, exact=op != "pow")
        m = from_np(vals, dt)
        assert getattr(m, op + "_")(row) is m
        check(m, npf(vals, vals[0]), dt, exact=op != "pow")


def test_rich_comparisons_reflect():
    t = tl.tensor([1.0, 2.0, 3.0])
    assert (t < 2).tolist() == [True, False, False]
    assert (2 < t).tolist() == [False, False, True]  # reflected: t > 2
    assert (2 >= t).tolist() == [True, True, False]
    assert (2.0 == t).tolist() == [False, True, False]
    assert (t != 2).tolist() == [True, False, True]
    assert (t == None) is False  # noqa: E711 - the protocol is the point
    assert (t != None) is True  # noqa: E711
    for f in (operator.lt, operator.add, operator.and_):
        with pytest.raises(TypeError):
            f(t, "x")
        with pytest.raises(TypeError):
            f("x", t)
    with pytest.raises(TypeError):
        pow(t, 2, 3)


def test_numpy_operands_give_tensors():
    t = tl.tensor([1.0, 2.0, 3.0])
    arr = np.array([1.0, 1.0, 2.0])
    for r in (arr + t, t + arr, arr * t, arr - t, arr / t, arr ** t,
              arr < t, arr == t, np.float64(2) * t, t * np.float64(2),
              np.int64(3) + t, np.float32(0.5) - t, np.bool_(True) & (t > 1)):
        assert isinstance(r, tl.Tensor), type(r)
    assert (arr + t).tolist() == [2.0, 3.0, 5.0]
    assert (arr - t).tolist() == [0.0, -1.0, -1.0]
    assert (np.float64(2) * t).dtype == tl.float32  # a scalar, not a tensor
    assert (arr < t).tolist() == [False, True, True]
    # A NumPy array as the in-place right operand and with out=.
    u = tl.zeros(3)
    u += arr
    assert u.tolist() == [1.0, 1.0, 2.0]
    # An int tensor with a float64 array: the array is a dimensioned
    # float64 tensor.
    assert (tl.tensor([1, 2, 3]) + arr).dtype == tl.float64


# ---- out= -------------------------------------------------------------------

def test_out_shape_rules():
    a = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = tl.tensor([10.0, 20.0])
    # The right shape, any strides (a transposed view).
    storage = tl.zeros((2, 2))
    out = storage.T
    r = tl.add(a, b, out=out)
    assert r is out
    assert out.tolist() == [[11.0, 22.0], [13.0, 24.0]]
    assert storage.tolist() == [[11.0, 13.0], [22.0, 24.0]]
    # An empty, non-view tensor is resized to the result's shape.
    e = tl.empty(0)
    v0 = e._version
    assert tl.mul(a, b, out=e) is e
    assert tuple(e.shape) == (2, 2)
    assert e.tolist() == [[10.0, 40.0], [30.0, 80.0]]
    assert e._version > v0
    # Any other shape is an error, and out is untouched.
    for bad in (tl.zeros(4), tl.zeros((2, 1)), tl.zeros((1, 2, 2)),
                tl.zeros((3, 2))):
        before = bad.tolist()
        with pytest.raises(tl.ShapeError):
            tl.add(a, b, out=bad)
        assert bad.tolist() == before
    # An empty *view* is not resized.
    base = tl.zeros(5)
    with pytest.raises(tl.ShapeError):
        tl.add(a, b, out=base[2:2])
    assert base.tolist() == [0.0] * 5
    with pytest.raises(TypeError):
        tl.add(a, b, out=np.zeros((2, 2)))


def test_out_dtype_cast_rules(torch):
    """out's dtype may differ when torch.can_cast(result, out) (the result
    is cast on write); otherwise TypeError and nothing written."""
    ai = tl.tensor([1, 2, 3])
    af = tl.tensor([0.5, 1.5, 2.5])
    cases = [
        ("add", ai, ai, tl.float64, [2.0, 4.0, 6.0]),
        ("add", ai, ai, tl.int8, [2, 4, 6]),
        ("add", af, af, tl.float16, [1.0, 3.0, 5.0]),
        ("add", af, af, tl.complex64, [1 + 0j, 3 + 0j, 5 + 0j]),
        ("lt", ai, af, tl.int64, [0, 0, 0]),
        ("lt", af, ai, tl.float32, [1.0, 1.0, 1.0]),
        ("div", ai, ai, tl.float64, [1.0, 1.0, 1.0]),
        ("add", af, af, tl.int64, None),
        ("div", ai, ai, tl.int64, None),
        ("add", ai, ai, tl.bool, None),
        ("mul", tl.tensor([1j]), tl.tensor([1j]), tl.float64, None),
    ]
    for op, a, b, odt, want in cases:
        n = max(a.numel(), b.numel())
        out = tl.full((n,), 7, dtype=odt)
        v0 = out._version
        init = to_np(out).tolist()
        tt = torch.tensor(to_np(a)), torch.tensor(to_np(b))
        tout = torch.full((n,), 7, dtype=getattr(torch, str(odt).split(
            ".")[-1]))
        try:
            getattr(torch, op)(*tt, out=tout)
            torch_ok = True
        except RuntimeError:
            torch_ok = False
        assert torch_ok == (want is not None), (op, odt)
        if want is None:
            with pytest.raises(TypeError):
                getattr(tl, op)(a, b, out=out)
            assert out._version == v0
            assert to_np(out).tolist() == init
        else:
            assert getattr(tl, op)(a, b, out=out) is out
            assert out.dtype == odt
            assert to_np(out).tolist() == want
            assert out._version > v0


def test_inplace_dtype_and_shape_rules():
    t = tl.tensor([1, 2, 3])
    for f in (lambda: t.add_(1.5), lambda: t.div_(2), lambda: t.mul_(1j),
              lambda: t.sqrt_(), lambda: t.exp_(),
              lambda: t.__itruediv__(tl.tensor([2, 2, 2]))):
        v0 = t._version
        with pytest.raises(TypeError):
            f()
        assert t.tolist() == [1, 2, 3]
        assert t._version == v0
    with pytest.raises(TypeError):
        t /= 2
    assert t.tolist() == [1, 2, 3]
    f = tl.tensor([1.0, 2.0, 3.0])
    f.add_(tl.tensor([1, 1, 1]))  # int into float: fine
    f *= True
    assert f.tolist() == [2.0, 3.0, 4.0]
    f16 = tl.ones(2, dtype=tl.float16)
    f16 += tl.tensor([1.0, 2.0], dtype=tl.float64)  # cast on write
    assert f16.dtype == tl.float16 and f16.tolist() == [2.0, 3.0]
    # In place broadcasting: self must already have the broadcast shape.
    m = tl.zeros((3, 4))
    m += tl.arange(4)
    assert m.tolist()[2] == [0.0, 1.0, 2.0, 3.0]
    row = tl.zeros(4)
    with pytest.raises(tl.ShapeError):
        row += tl.ones((3, 4))
    assert row.tolist() == [0.0] * 4
    b = tl.tensor([True, False])
    with pytest.raises(TypeError):
        b -= b
    with pytest.raises(TypeError):
        t.add_(1, out=tl.empty(0))


def test_version_counter():
    base = tl.zeros((3, 4))
    view = base[1]
    assert base._version == view._version == 0
    view.add_(1)
    assert base._version == view._version == 1
    base.mul_(2)
    assert view._version == 2
    tl.add(view, 1, out=view)  # out= is a write
    assert base._version == 3
    _ = base + 1  # a new tensor: no write to base
    assert base._version == 3
    assert (base + 1)._version == 0
    view -= 1
    base.neg_()
    base.clamp_(0, 1)
    assert base._version == 6
    with pytest.raises(ZeroDivisionError):
        tl.tensor([1]).floor_divide_(0)


# ---- errors leave operands unchanged ----------------------------------------

@pytest.mark.parametrize("dt", INTS + [tl.bool],
                         ids=lambda d: str(d).split(".")[-1])
def test_integer_division_by_zero(dt):
    a = from_np(np.array([5, 6, 7, 8]), dt)
    b = from_np(np.array([1, 2, 0, 1]), dt)
    if dt == tl.bool:
        with pytest.raises(TypeError):
            tl.floor_divide(a, b)
        return
    out = tl.full((4,), 9, dtype=dt)
    snap = (to_np(a).tolist(), to_np(b).tolist())
    for op in ("floor_divide", "remainder"):
        with pytest.raises(ZeroDivisionError):
            getattr(tl, op)(a, b)
        with pytest.raises(ZeroDivisionError):
            getattr(tl, op)(a, b, out=out)
        with pytest.raises(ZeroDivisionError):
            getattr(a, op + "_")(b)
        with pytest.raises(ZeroDivisionError):
            getattr(a, op)(0)
        assert to_np(out).tolist() == [9] * 4
        assert (to_np(a).tolist(), to_np(b).tolist()) == snap
        assert a._version == 0 and out._version == 0
    with pytest.raises(ZeroDivisionError):
        a //= 0
    with pytest.raises(ZeroDivisionError):
        a %= b
    with pytest.raises(ZeroDivisionError):
        _ = 3 // b
    assert (to_np(a).tolist(), to_np(b).tolist()) == snap
    # True division of ints by zero is float division (inf / nan).
    q = tl.div(a, b)
    assert q.dtype == tl.float32 and q.tolist()[2] == float("inf")
    # An empty divisor has nothing to divide: no error.
    assert tl.floor_divide(a[:0], b[:0]).numel() == 0
    # A zero that is broadcast away does not exist.
    assert tl.remainder(a, b[:1]).numel() == 4


def test_float_division_by_zero_as_numpy():
    a = tl.tensor([1.0, -1.0, 0.0, 5.5])
    z = tl.zeros(4)
    with np.errstate(all="ignore"):
        x = np.array([1.0, -1.0, 0.0, 5.5], np.float32)
        zz = np.zeros(4, np.float32)
        check(a // z, np.floor_divide(x, zz), tl.float32)
        check(a % z, np.remainder(x, zz), tl.float32)
        check(a / z, x / zz, tl.float32)


@pytest.mark.parametrize("dt", [tl.float16, tl.bfloat16, tl.float32,
                                tl.float64, tl.complex64],
                         ids=lambda d: str(d).split(".")[-1])
def test_bitwise_on_float_is_type_error(dt):
    a = tl.ones(3, dtype=dt)
    i = tl.ones(3, dtype=tl.int32)
    for f in (lambda: a & a, lambda: a | i, lambda: i ^ a, lambda: ~a,
              lambda: a << 1, lambda: 1 >> a, lambda: a.bitwise_and_(i),
              lambda: tl.bitwise_or(a, 1), lambda: i.bitwise_xor_(a),
              lambda: tl.bitwise_not(a)):
        with pytest.raises(TypeError):
            f()
    assert to_np(a).tolist() == [1, 1, 1] and to_np(i).tolist() == [1] * 3
    with pytest.raises(TypeError):
        i & 1.5  # a float scalar makes the result float


def _readonly(shape=(3,), dtype=np.float32):
    arr = np.zeros(shape, dtype)
    arr.flags.writeable = False
    return arr, tl.from_numpy(arr)


def test_readonly_out_and_inplace():
    arr, ro = _readonly()
    a = tl.ones(3)
    with pytest.raises(ValueError):
        tl.add(a, a, out=ro)
    with pytest.raises(ValueError):
        ro.add_(1)
    with pytest.raises(ValueError):
        ro += 1
    with pytest.raises(ValueError):
        tl.exp(a, out=ro)
    with pytest.raises(ValueError):
        ro.neg_()
    with pytest.raises(ValueError):
        tl.where(a > 0, a, a, out=ro)
    with pytest.raises(ValueError):
        tl.clamp(a, 0, 1, out=ro)
    with pytest.raises(ValueError):
        ro.clamp_(0, 1)
    assert arr.tolist() == [0.0] * 3 and ro._version == 0
    # A read-only tensor as an input is fine.
    assert (ro + 1).tolist() == [1.0] * 3


def test_overlapping_outputs_and_inputs():
    # An output that overlaps itself (stride 0) is refused.
    x = tl.zeros(3)
    e = x.expand(4, 3)
    with pytest.raises(tl.ShapeError):
        e.add_(tl.ones((4, 3)))
    with pytest.raises(tl.ShapeError):
        tl.mul(tl.ones((4, 3)), 2, out=e)
    with pytest.raises(tl.ShapeError):
        e.exp_()
    assert x.tolist() == [0.0] * 3
    # Exact aliasing needs no copy.
    a = tl.arange(6, dtype=tl.float64)
    a.add_(a)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    # Partial overlap: the input is copied first (NumPy's rule).
    v = tl.arange(10)
    v += v.flip(0)
    assert v.tolist() == [9] * 10
    v = tl.arange(10)
    v[1:] += v[:-1]
    assert v.tolist() == [0] + [2 * k + 1 for k in range(9)]
    v = tl.arange(10)
    tl.mul(v[:-2], v[2:], out=v[1:-1])
    assert v.tolist() == [0] + [k * (k + 2) for k in range(8)] + [9]
    m = tl.arange(16, dtype=tl.float32).reshape(4, 4)
    want = np.arange(16, dtype=np.float32).reshape(4, 4)
    m.sub_(m.T)
    np.testing.assert_array_equal(to_np(m), want - want.T)
    m = tl.arange(16, dtype=tl.float32).reshape(4, 4)
    tl.neg(m.T, out=m)
    np.testing.assert_array_equal(to_np(m), -want.T)


def test_every_error_leaves_operands_unchanged():
    a = tl.tensor([[1, 2, 3], [4, 5, 6]], dtype=tl.int16)
    b = tl.tensor([0, 1, 2], dtype=tl.int16)
    out = tl.full((2, 3), 5, dtype=tl.int16)
    snap = lambda: (a.tolist(), b.tolist(), out.tolist(),  # noqa: E731
                    a._version, b._version, out._version)
    before = snap()
    failing = [
        lambda: tl.floor_divide(a, b, out=out),   # zero division
        lambda: a.remainder_(b),
        lambda: tl.add(a, 1.5, out=out),          # float result into int
        lambda: tl.add(a, tl.ones(4), out=out),   # shape
        lambda: out.add_(tl.ones((3, 2, 3))),     # in-place broadcast
        lambda: tl.pow(a, -1, out=out),           # negative int power
        lambda: a.pow_(-2),
        lambda: a.sub_(1, alpha=0.5),             # float alpha
        lambda: tl.bitwise_and(a, 1.0, out=out),  # bitwise on float
        lambda: tl.where(a, a, b, out=out),       # non-bool condition
        lambda: tl.clamp(a, out=out),             # no bounds
        lambda: tl.lt(a, 1j),                     # complex ordering
        lambda: tl.maximum(a, 1j, out=out),
        lambda: out.copy_(tl.ones(4)),
        lambda: out.fill_(70000),                 # overflow
        lambda: out.sqrt_(),                      # float result
    ]
    for f in failing:
        with pytest.raises((TypeError, ValueError, ZeroDivisionError,
                            OverflowError)):
            f()
        assert snap() == before, f


# ---- integer and float arithmetic semantics ---------------------------------

@pytest.mark.parametrize("dt", INTS, ids=lambda d: str(d).split(".")[-1])
def test_integer_arithmetic_wraps(dt):
    npd = as_dtype(np.zeros(1), dt).dtype
    info = np.iinfo(npd)
    x = np.array([info.max, info.min, info.max, info.min + 1], npd)
    y = np.array([1, 1, 2, 3], npd)
    t, u = from_np(x, dt), from_np(y, dt)
    with np.errstate(all="ignore"):
        check(t + u, x + y, dt)
        check(t - u, x - y, dt)
        check(t * u, x * y, dt)
        check(t * t, x * x, dt)
        check(-t, -x, dt)
        check(t ** 3, x ** np.array(3, npd), dt)
        # Python ints out of the dtype's range (but within int64) wrap
        # like PyTorch's.
        if bits(dt) < 32:
            check(t + (2 ** bits(dt) + 1), x + np.array(1, npd), dt)


@pytest.mark.parametrize("dt", SIGNED, ids=lambda d: str(d).split(".")[-1])
def test_int_min_floor_divide_and_remainder_by_minus_one(dt):
    npd = as_dtype(np.zeros(1), dt).dtype
    mn = int(np.iinfo(npd).min)
    t = from_np(np.array([mn, mn, -7, 7, -7, 7]), dt)
    d = from_np(np.array([-1, 1, 2, -2, -2, 2]), dt)
    assert to_np(t // d).tolist() == [mn, mn, -4, -4, 3, 3]
    assert to_np(t % d).tolist() == [0, 0, 1, -1, -1, 1]
    assert to_np(tl.floor_divide(t, -1)).tolist()[0] == mn
    assert to_np(tl.remainder(t, -1)).tolist() == [0] * 6


@pytest.mark.parametrize("dt", INTS, ids=lambda d: str(d).split(".")[-1])
def test_shifts_beyond_width_and_negative(dt):
    npd = as_dtype(np.zeros(1), dt).dtype
    nb = bits(dt)
    signed = dt in SIGNED
    vals = [1, 5, int(np.iinfo(npd).max)] + ([-1, -8] if signed else [])
    counts = [0, 1, nb - 1, nb, nb + 1, 2 * nb] + ([-1, -nb] if signed
                                                   else [])
    for v in vals:
        for c in counts:
            t = from_np(np.array([v]), dt)
            cc = from_np(np.array([c]), dt)
            lsh = to_np(t << cc).tolist()[0]
            rsh = to_np(t >> cc).tolist()[0]
            if 0 <= c < nb:
                want_l = int((np.array([v], npd) << np.array([c], npd))[0])
                want_r = v >> c
            else:
                want_l = 0
                want_r = -1 if v < 0 else 0
            assert lsh == want_l, (dt, v, c, lsh)
            assert rsh == want_r, (dt, v, c, rsh)
    with pytest.raises(TypeError):
        tl.tensor([True]) << tl.tensor([True])


def test_nan_propagation():
    nan = float("nan")
    a = tl.tensor([nan, 1.0, nan, -0.0, 2.0])
    b = tl.tensor([1.0, nan, nan, 0.0, 1.0])
    for f in (tl.maximum, tl.minimum):
        got = f(a, b).tolist()
        assert all(np.isnan(got[:3])) and not np.isnan(got[4])
    assert all(np.isnan(tl.clamp(a, 0.0, 1.0).tolist()[i]) for i in (0, 2))
    assert np.isnan(tl.clamp(tl.tensor([0.5]), tl.tensor(nan),
                             1.0).item())
    for f in (operator.add, operator.mul, operator.truediv, operator.pow,
              operator.mod, operator.floordiv):
        assert np.isnan(f(a, 1.0).tolist()[0])
    assert (a == a).tolist() == [False, True, False, True, True]
    assert (a != a).tolist()[0] is True
    assert tl.isnan(tl.sign(a)).tolist()[0]
    assert tl.relu(a).tolist()[1] == 1.0 and np.isnan(tl.relu(a).tolist()[0])


def test_half_to_even_rounding_and_casts():
    t = tl.tensor([0.5, 1.5, 2.5, -2.5, -0.5, 1e16 + 2])
    assert tl.round(t.double()).tolist()[:5] == [0.0, 2.0, 2.0, -2.0, -0.0]
    assert tl.tensor([2.5, 3.5, -1.5]).to(tl.int32).tolist() == [2, 3, -1]
    assert tl.tensor([float("nan"), 1e20, -1e20]).to(tl.int16).tolist() == \
        [0, 32767, -32768]


def test_pow_negative_exponent_judged_in_its_own_dtype(torch):
    """Only a Python-scalar exponent below 0 is refused on integers, and
    judged as given: uint8 ** -1 is refused (as PyTorch) although -1 would
    cast to 255; int8 ** 255 does not fit int8 (PyTorch refuses it too).
    Note [Negative integer powers] in csrc/core/ops.c."""
    u = tl.tensor([2, 3], dtype=tl.uint8)
    before = u.tolist(), u._version
    with pytest.raises(ValueError, match="negative power -1"):
        u ** -1
    with pytest.raises(RuntimeError):
        torch.tensor([2, 3], dtype=torch.uint8) ** -1
    with pytest.raises(ValueError, match="negative power -2"):
        u.pow_(-2)
    # Empty operands are judged too, as PyTorch does.
    with pytest.raises(ValueError, match="negative power"):
        tl.ones(0, dtype=tl.int64) ** -1
    with pytest.raises(RuntimeError):
        torch.ones(0, dtype=torch.int64) ** -1
    with pytest.raises(OverflowError, match="exponent 255"):
        tl.tensor([2], dtype=tl.int8) ** 255
    with pytest.raises(RuntimeError):
        torch.tensor([2], dtype=torch.int8) ** 255
    assert (u.tolist(), u._version) == before
    # A 0-d tensor exponent is a tensor, not a number: 255 is -1 in int8,
    # so 1 ** -1 == 1, 2 ** -1 == 0 (PyTorch's integer powi).
    r = tl.pow(tl.tensor([1, 2], dtype=tl.int8), tl.tensor(255))
    assert r.dtype == tl.int8
    assert r.tolist() == [1, 0]
    assert (tl.pow(tl.tensor([2], dtype=tl.int8), tl.tensor(-129))
            .tolist() == [0])
    assert (tl.tensor([2, 3]) ** tl.tensor([0, 2])).tolist() == [1, 9]
    # A float exponent makes it a float power.
    assert (u ** -1.0).tolist() == [0.5, 1 / 3.0] or \
        np.allclose((u ** -1.0).tolist(), [0.5, 1 / 3.0])


# ---- threads and fork -------------------------------------------------------

@pytest.fixture
def restore_threads():
    n = tl.get_num_threads()
    yield
    tl.set_num_threads(n)


def test_set_and_get_num_threads(restore_threads):
    tl.set_num_threads(3)
    assert tl.get_num_threads() == 3
    tl.set_num_threads(1)
    assert tl.get_num_threads() == 1
    for bad in (0, -1, 100000):
        with pytest.raises(ValueError):
            tl.set_num_threads(bad)
    with pytest.raises(TypeError):
        tl.set_num_threads(2.5)
    assert tl.get_num_threads() == 1


def _big_results():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((700, 300)).astype(np.float32)
    y = rng.standard_normal((700, 300)).astype(np.float32)
    a, b = tl.tensor(x), tl.tensor(y)
    at = view_as(x, tl.float32, "transposed")
    return [to_np(r) for r in (a + b, a * b, tl.exp(a), tl.sigmoid(at),
                               at - b, tl.maximum(a, at), a.to(tl.float16),
                               tl.where(a > 0, a, b), tl.clamp(at, -1, 1))]


def test_results_independent_of_thread_count(restore_threads):
    results = []
    for n in (1, 2, 4, 7):
        tl.set_num_threads(n)
        results.append(_big_results())
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_array_equal(got, want)


def _child(q):
    try:
        x = tl.arange(400000, dtype=tl.float64)
        y = (x * 2 + 1).sum().item()
        z = tl.exp(tl.zeros((600, 600))).sum().item()
        q.put((y, z))
    except Exception as e:  # pragma: no cover - reported to the parent
        q.put(repr(e))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_fork_after_thread_pool_ran(restore_threads):
    tl.set_num_threads(2)
    _big_results()  # the pool has run
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    p.join(60)
    if p.is_alive():
        p.kill()
        pytest.fail("the forked child hung (thread pool not reset)")
    assert p.exitcode == 0
    got = q.get(timeout=5)
    n = 400000
    assert got == (float(n * (n - 1) + n), 360000.0)
    # And the parent still works.
    assert (tl.arange(300000) * 2).sum().item() == 300000 * 299999


_STRESS = r"""
import sys, time
import tensorlib as tl
tl.set_num_threads(16)
n = 1 << 17
a = tl.arange(n, dtype=tl.float32)
b = tl.ones(n, dtype=tl.float64)
c = tl.empty(n, dtype=tl.int32)
m = tl.arange(300 * 300, dtype=tl.float32).reshape(300, 300)
t0 = time.time()
while time.time() - t0 < float(sys.argv[1]):
    r = a + b
    c.copy_(a)
    s = m.T.contiguous()
    e = tl.exp(a[:1000])
    assert r[-1].item() == n and c[-1].item() == n - 1
    assert s[1, 0].item() == 1.0
print("ok")
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="pthread pool")
def test_thread_pool_back_to_back_jobs_stress():
    """Many short parallel loops from different call paths with more
    threads than cores: no crash, every result right (a regression: a
    worker woken after its job had finished joined the next job with the
    old task and a dangling ctx).  Runs in a child process so that a crash
    fails this test only."""
    import subprocess
    p = subprocess.run([sys.executable, "-c", _STRESS, "4"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert p.stdout.strip() == "ok"


def test_random_ops_values_with_threads_and_layouts(restore_threads):
    """A mixed-layout expression evaluated with 1 and 2 threads equals the
    NumPy oracle (catches a split that mishandles negative strides)."""
    rng = rng_for("threads-layouts")
    x = random_values((257, 129), tl.int32, rng)
    y = random_values((257, 129), tl.int32, rng)
    with np.errstate(all="ignore"):
        want = (x ^ y[::-1]) + x * 3
    for n in (1, 2):
        tl.set_num_threads(n)
        a = view_as(x, tl.int32, "transposed")
        b = view_as(np.ascontiguousarray(y[::-1]), tl.int32, "flipped")
        check((a ^ b) + a * 3, want, tl.int32)


@pytest.mark.parametrize("dt,alpha,ok_add,ok_sub", [
    (tl.int8, 127, True, True), (tl.int8, 300, False, False),
    (tl.int8, -129, False, False), (tl.int8, 128, False, True),
    (tl.int8, -128, True, False), (tl.uint8, -1, True, True),
    (tl.uint8, -255, True, True), (tl.uint8, -256, False, False),
    (tl.uint8, 256, False, False), (tl.int64, 2 ** 63 - 1, True, True),
    (tl.int64, 2 ** 63, False, True), (tl.float32, 1e40, False, False),
    (tl.float32, float("inf"), True, True),
    (tl.float16, 65504.0, True, True), (tl.float16, 65519.0, False, False),
    (tl.float16, 1e5, False, False), (tl.bfloat16, 3.3e38, True, True),
    (tl.bfloat16, 3.4e38, False, False), (tl.float64, 1e300, True, True),
    (tl.complex64, 1e39j, False, False), (tl.complex128, 1e39j, True, True)],
    ids=str)
def test_alpha_must_fit_the_compute_dtype(torch, dt, alpha, ok_add, ok_sub):
    """alpha is converted to the result dtype with PyTorch's overflow
    check (sub converts -alpha); an unsigned dtype also takes negatives
    down to -max (they wrap).  A refused alpha is an OverflowError and
    writes nothing."""
    name = str(dt).split(".")[-1]
    a = tl.ones(3, dtype=dt)
    ta = torch.ones(3, dtype=getattr(torch, name))
    for op, ok in (("add", ok_add), ("sub", ok_sub)):
        try:
            getattr(torch, op)(ta, ta, alpha=alpha)
            torch_ok = True
        except RuntimeError:
            torch_ok = False
        assert torch_ok == ok, (op, dt, alpha)
        if ok:
            getattr(tl, op)(a, a, alpha=alpha)
        else:
            with pytest.raises(OverflowError):
                getattr(tl, op)(a, a, alpha=alpha)
            with pytest.raises(OverflowError):
                getattr(a, op + "_")(a, alpha=alpha)
            assert a._version == 0
            assert to_np(a).tolist() == [1, 1, 1]
    if ok_add and dt == tl.uint8:
        # uint8 a + alpha * b wraps: 1 + (-1) = 0.
        assert to_np(tl.add(a, a, alpha=alpha)).tolist() == [
            (1 + alpha) % 256] * 3


@pytest.mark.parametrize("call", [
    lambda out: tl.add(tl.tensor(1.0), 2, out=out),
    lambda out: tl.exp(tl.tensor(0.0), out=out),
    lambda out: tl.where(tl.tensor(True), tl.tensor(1.0), tl.tensor(2.0),
                         out=out),
    lambda out: tl.clamp(tl.tensor(7.0), 0, 1, out=out)],
    ids=["add", "exp", "where", "clamp"])
def test_zero_dim_result_resizes_empty_out(call):
    """Only 0-dim inputs: an empty out is resized to () (a regression:
    the same-shape set-up once took out's shape as the broadcast shape)."""
    out = tl.empty(0)
    r = call(out)
    assert r is out
    assert tuple(out.shape) == ()
    assert out.numel() == 1


@pytest.mark.parametrize("call", [
    lambda out: tl.add(tl.tensor(1.0), 2, out=out),
    lambda out: tl.exp(tl.tensor(0.0), out=out),
    lambda out: tl.clamp(tl.tensor(7.0), 0, 1, out=out)],
    ids=["add", "exp", "clamp"])
def test_zero_dim_result_refuses_out_of_another_shape(call):
    """... and an out of any other shape is a ShapeError, not filled."""
    out = tl.zeros(5)
    with pytest.raises(tl.ShapeError):
        call(out)
    assert out.tolist() == [0.0] * 5


@pytest.mark.parametrize("dt,lo,hi,ok", [
    (tl.int8, -128, 127, True), (tl.int8, -129, None, False),
    (tl.int8, None, 128, False), (tl.uint8, -255, None, True),
    (tl.uint8, -256, None, False), (tl.uint8, None, 256, False),
    (tl.int64, None, 2 ** 63, False), (tl.float16, 0, 65504.0, True),
    (tl.float16, 0, 1e5, False), (tl.float16, -1e5, None, False),
    (tl.float32, None, 1e39, False), (tl.bfloat16, None, 3.4e38, False),
    (tl.float32, None, float("inf"), True),
    (tl.int8, 0.5, None, True),  # a float bound promotes to float32
    (tl.int8, None, 1e10, True)], ids=str)
def test_clamp_scalar_bounds_must_fit(torch, dt, lo, hi, ok):
    """Python-scalar bounds are converted to the result dtype with
    PyTorch's overflow check: clamp(int8, max=300) is an OverflowError,
    not a clamp at 300 - 256 = 44."""
    name = str(dt).split(".")[-1]
    tt = torch.ones(3, dtype=getattr(torch, name)) * 100
    try:
        want = torch.clamp(tt, lo, hi)
    except RuntimeError:
        want = None
    assert (want is not None) == ok
    t = tl.ones(3, dtype=dt) * 100
    if not ok:
        with pytest.raises(OverflowError):
            tl.clamp(t, lo, hi)
        with pytest.raises(OverflowError):
            t.clamp_(lo, hi)
        assert t._version == 0 and to_np(t).tolist() == [100] * 3
        return
    got = tl.clamp(t, lo, hi)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(to_np(got), want.float().numpy())


def test_alpha_only_for_add_and_sub(torch):
    """alpha scales the second operand of add/sub only; any other op
    refuses it (PyTorch: an unexpected keyword) instead of ignoring it."""
    a = tl.tensor([1.0, 2.0])
    for op in ("mul", "div", "eq", "maximum", "pow", "remainder"):
        with pytest.raises(TypeError, match="alpha"):
            getattr(tl, op)(a, a, alpha=2)
        with pytest.raises(TypeError, match="alpha"):
            getattr(a, op)(a, alpha=2)
        with pytest.raises(TypeError):
            getattr(torch, op)(torch.ones(2), torch.ones(2), alpha=2)
    with pytest.raises(TypeError, match="alpha"):
        a.mul_(a, alpha=2)
    assert a.tolist() == [1.0, 2.0] and a._version == 0
    assert tl.add(a, a, alpha=None).tolist() == [2.0, 4.0]
    assert tl.mul(a, a, alpha=None).tolist() == [1.0, 4.0]


@pytest.mark.parametrize("dt", INTS)
def test_pow_tensor_exponents_below_zero_match_torch(torch, dt):
    """Integer tensors to negative tensor powers compute PyTorch's powi
    (1 ** -n == 1, (-1) ** -n == +-1, else 0) instead of raising; the
    rest wraps as NumPy's integer power does.  Random bases and
    exponents, broadcast, strided and 0-d exponents."""
    name = str(dt).split(".")[-1]
    tdt = getattr(torch, name, None)
    if tdt is None or dt in (tl.uint16, tl.uint32, tl.uint64):
        pytest.skip("PyTorch has no pow kernel for " + name)
    rng = rng_for("pow_neg", name)
    lo = -5 if dt in SIGNED else 0
    base = rng.integers(lo, 6, size=(4, 1, 5)).astype(np.int64)
    exp = rng.integers(-4, 5, size=(3, 10))[:, ::2]  # strided
    if dt not in SIGNED:
        exp = np.abs(exp)
    a = from_np(base, dt)
    b = tl.tensor(exp.tolist())
    got = tl.pow(a, b)
    want = torch.pow(torch.tensor(base.tolist(), dtype=tdt),
                     torch.tensor(exp.tolist()))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert got.tolist() == want.tolist()
    e0 = int(rng.integers(-3, 0)) if dt in SIGNED else 2
    got0 = tl.pow(a, tl.tensor(e0))
    want0 = torch.pow(torch.tensor(base.tolist(), dtype=tdt),
                      torch.tensor(e0))
    assert got0.dtype == dt
    assert got0.tolist() == want0.tolist()


def test_self_overlapping_outputs_found_exactly():
    """Note [Internal overlap]: an output two of whose indices reach one
    element is refused before anything is written, also for as_strided
    layouts that no stride-0 or stride-multiple rule catches (sizes (4, 3)
    with strides (2, 3): 3 * 2 == 2 * 3); every other layout is written
    element for element.  Checked against enumerating the offsets."""
    rng = rng_for("internal_overlap")
    refused = written = hard = 0
    for _ in range(400):
        nd = int(rng.integers(1, 4))
        sizes = [int(s) for s in rng.integers(1, 6, size=nd)]
        strides = [int(s) if n > 1 else abs(int(s)) for n, s in
                   zip(sizes, rng.integers(-7, 8, size=nd))]
        idx = np.indices(sizes).reshape(nd, -1).T
        offs = idx @ np.array(strides)
        off0 = int(-offs.min())
        base = tl.zeros(int(offs.max()) + off0 + 1)
        o = base.as_strided(sizes, strides, off0) if min(strides) >= 0 \
            else None
        if o is None:
            # negative strides: flip the dims that have them
            pos = [abs(s) for s in strides]
            start = off0 + sum((n - 1) * s for n, s in zip(sizes, strides)
                               if s < 0)
            o = base.as_strided(sizes, pos, start)
            o = o.flip([d for d, s in enumerate(strides) if s < 0])
        assert list(o.stride()) == strides
        x = tl.arange(1.0, o.numel() + 1).reshape(sizes)
        if len(set(offs.tolist())) < len(offs):
            with pytest.raises(tl.ShapeError, match="share memory"):
                tl.mul(x, 2, out=o)
            assert (base == 0).all().item()
            refused += 1
            hard += not _simple_overlap_rule(sizes, strides)
        else:
            tl.mul(x, 2, out=o)
            np.testing.assert_array_equal(to_np(o), to_np(x) * 2)
            written += 1
    assert refused > 50 and written > 50 and hard > 5


def _simple_overlap_rule(sizes, strides):
    """The cheap rule alone: a stride 0, or (sorted by |stride|) a stride
    that is k times the one below it with k < that dim's size."""
    dims = sorted((abs(s), n) for n, s in zip(sizes, strides) if n > 1)
    if any(s == 0 for s, _ in dims):
        return True
    return any(s1 % s0 == 0 and s1 // s0 < n0
               for (s0, n0), (s1, _) in zip(dims, dims[1:]))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_mode(torch, mode):
    """div/divide(rounding_mode=): integers stay integers, by C's division
    ('trunc') or Python's ('floor'), wrapping like floor_divide; floats are
    np.trunc(a / b) or np.floor_divide in their own dtype (Note [Division
    with rounding]).  Dtypes and refusals as PyTorch; broadcast and
    strided operands, out= and in place."""
    rng = rng_for("div_rounding", mode)
    for dt in [tl.int8, tl.int16, tl.int32, tl.int64, tl.uint8,
               tl.float16, tl.float32, tl.float64]:
        name = str(dt).split(".")[-1]
        x = random_values((4, 6), dt, rng)
        y = random_values((6,), dt, rng, "nonzero")
        a = view_as(x, dt, "transposed")
        b = from_np(y, dt).flip(0)
        yf = y[::-1]
        got = tl.div(a, b, rounding_mode=mode)
        with np.errstate(all="ignore"):
            xn, yn = as_dtype(x, dt), as_dtype(yf, dt)
            if dt in INTS:
                want = torch.div(torch.from_numpy(np.ascontiguousarray(xn)),
                                 torch.from_numpy(np.ascontiguousarray(yn)),
                                 rounding_mode=mode).numpy()
            elif mode == "trunc":
                want = np.trunc(np.divide(xn, yn))
            else:
                want = np.floor_divide(xn, yn)
        check(got, want, dt, what=f"div {mode} {name}")
        assert tl.divide(a, b, rounding_mode=mode).tolist() == got.tolist()
        out = tl.empty((4, 6), dtype=tl.float64)
        assert tl.div(a, b, rounding_mode=mode, out=out) is out
        np.testing.assert_array_equal(to_np(out), to_np(got).astype(
            np.float64))
        c = a.clone()
        v = c._version
        assert c.div_(b, rounding_mode=mode) is c and c._version == v + 1
        assert c.tolist() == got.tolist()
    # INT_MIN / -1 wraps, as floor_divide
    m = tl.tensor([-128, 7], dtype=tl.int8)
    assert tl.div(m, -1, rounding_mode=mode).tolist() == [-128, -7]
    # refusals leave the operands as they were
    i = tl.tensor([7, -7])
    before = i.tolist(), i._version
    with pytest.raises(ZeroDivisionError):
        i.div_(tl.tensor([1, 0]), rounding_mode=mode)
    with pytest.raises(ValueError, match="rounding_mode"):
        i.div(2, rounding_mode="round")
    with pytest.raises(RuntimeError):
        torch.tensor([7]).div(2, rounding_mode="round")
    with pytest.raises(TypeError):
        i.div_(2.5, rounding_mode=mode)   # float result into int64
    with pytest.raises(RuntimeError):
        torch.tensor([7]).div_(2.5, rounding_mode=mode)
    for bad in (tl.tensor([True]), tl.tensor([1 + 1j])):
        with pytest.raises(TypeError):
            tl.div(bad, bad, rounding_mode=mode)
    assert (i.tolist(), i._version) == before
    # None is true division, and / stays true division
    assert tl.div(i, 2, rounding_mode=None).tolist() == [3.5, -3.5]
    assert (i / 2).tolist() == [3.5, -3.5]
