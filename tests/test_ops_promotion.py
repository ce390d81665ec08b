"""Type promotion against PyTorch: the full 15 x 15 promote_types table,
result dtypes (and refusals) of add/sub/mul/div/floor_divide/remainder/
pow/maximum/comparisons/logical/bitwise/shift ops for every dtype pair,
0-dim tensors versus dimensioned ones, Python int/float/bool/complex
scalars on either side, NumPy scalars, and can_cast.

Where PyTorch refuses a promotion (uint16/uint32/uint64 with other
integer, bool or complex types), tensorlib follows NumPy (DESIGN.md
"Numeric semantics"), so those cells are checked against
numpy.promote_types.  PyTorch also lacks kernels for most ops on
uint16/32/64; tensorlib has them, so refusals are compared only on the
dtypes PyTorch fully supports."""
import itertools

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (ALL, NAME, TORCH_FULL, from_np, is_complex,
                         is_float, is_int, torch_dtype)

def tname(d):
    return str(d).split(".")[-1]


def same(tl_dt, torch_dt):
    """tensorlib has no complex32 (PyTorch's float16 + complex result):
    its nearest, complex64, stands in."""
    want = tname(torch_dt)
    if want == "complex32":
        want = "complex64"
    return tname(tl_dt) == want


def numpy_promote(a, b):
    return np.promote_types(np.dtype(NAME[a]), np.dtype(NAME[b])).name


def test_promote_types_full_table(torch):
    """All 225 ordered pairs: PyTorch's answer where it has one, NumPy's
    where PyTorch refuses; and the table is symmetric."""
    for a, b in itertools.product(ALL, ALL):
        got = tl.promote_types(a, b)
        assert got == tl.promote_types(b, a)
        try:
            want = torch.promote_types(torch_dtype(torch, a),
                                       torch_dtype(torch, b))
        except RuntimeError:
            assert tl.bfloat16 not in (a, b), (a, b)
            assert tname(got) == numpy_promote(a, b), (a, b, got)
            continue
        assert same(got, want), (a, b, got, want)


def test_promote_types_accepts_dtype_spellings():
    assert tl.promote_types("uint8", "int8") == tl.int16
    assert tl.promote_types(np.float16, tl.bfloat16) == tl.float32
    assert tl.promote_types(tl.float64, tl.complex64) == tl.complex128
    assert tl.promote_types(tl.uint64, tl.int64) == tl.float64
    with pytest.raises((TypeError, ValueError)):
        tl.promote_types("nope", tl.int8)


def test_can_cast_full_table(torch):
    for a, b in itertools.product(ALL, ALL):
        want = torch.can_cast(torch_dtype(torch, a), torch_dtype(torch, b))
        assert tl.can_cast(a, b) == want, (a, b)


BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow",
          "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
          "logical_and", "logical_or", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "bitwise_right_shift"]


def _ones(torch, d, shape=(2,)):
    return torch.ones(shape, dtype=torch_dtype(torch, d))


def _tl_ones(d, shape=(2,)):
    return tl.ones(shape, dtype=d)


def torch_result(torch, op, a, b):
    try:
        return getattr(torch, op)(a, b).dtype
    except (RuntimeError, TypeError, NotImplementedError):
        return None


@pytest.mark.parametrize("op", BINARY)
def test_op_result_dtype_table(torch, op):
    """Every pair of PyTorch's fully supported dtypes: tensorlib raises
    TypeError exactly where PyTorch raises and otherwise has PyTorch's
    result dtype.  Pairs with uint16/32/64 (no PyTorch kernels): the dtype
    is promote_types' (bool for comparisons and logical ops, float32 for
    integer true division)."""
    for a, b in itertools.product(ALL, ALL):
        ta, tb = _tl_ones(a), _tl_ones(b)
        if a in TORCH_FULL and b in TORCH_FULL:
            want = torch_result(torch, op, _ones(torch, a), _ones(torch, b))
            if want is None:
                with pytest.raises(TypeError):
                    getattr(tl, op)(ta, tb)
                continue
            got = getattr(tl, op)(ta, tb).dtype
            assert same(got, want), (op, a, b, got, want)
        else:
            r = tl.promote_types(a, b)
            try:
                got = getattr(tl, op)(ta, tb).dtype
            except TypeError:
                # Refused for the promoted dtype's category only (or a
                # bool operand of sub).
                assert (op.startswith("bitwise") and not is_int(r)) or (
                    op == "sub" and tl.bool in (a, b)) or (
                    is_complex(r) and op in ("floor_divide", "remainder",
                                             "maximum", "minimum", "lt",
                                             "le", "gt", "ge")), (op, a, b)
                continue
            if op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                      "logical_or", "logical_xor"):
                assert got == tl.bool
            elif op == "div" and not (is_float(r) or is_complex(r)):
                assert got == tl.float32
            else:
                assert got == r, (op, a, b, got, r)


@pytest.mark.parametrize("op", ["add", "mul", "div", "eq", "bitwise_and",
                                "maximum"])
def test_zero_dim_operands(torch, op):
    """A 0-dim tensor takes part in promotion only when its category is
    higher (int < float < complex) than the dimensioned operand's; two
    0-dim tensors promote normally."""
    for a, b in itertools.product(TORCH_FULL, TORCH_FULL):
        for sa, sb in (((), (2,)), ((2,), ()), ((), ())):
            want = torch_result(torch, op, _ones(torch, a, sa),
                                _ones(torch, b, sb))
            ta, tb = _tl_ones(a, sa), _tl_ones(b, sb)
            if want is None and torch.result_type(
                    _ones(torch, a, sa),
                    _ones(torch, b, sb)) == torch.complex32:
                continue  # PyTorch's complex32 lacks kernels
            if want is None:
                with pytest.raises(TypeError):
                    getattr(tl, op)(ta, tb)
                continue
            got = getattr(tl, op)(ta, tb)
            assert same(got.dtype, want), (op, a, sa, b, sb, got.dtype,
                                           want)
            assert tuple(got.shape) == tuple(np.broadcast_shapes(sa, sb))
            assert same(tl.result_type(ta, tb),
                        torch.result_type(_ones(torch, a, sa),
                                          _ones(torch, b, sb)))


SCALARS = [True, False, 3, -2, 0, 2.5, -0.0, 1e300, 1 + 2j, 2j]
# Ops PyTorch takes a Python scalar for (maximum, minimum and the logical
# ops need a tensor there: their expected dtype comes from result_type).
TORCH_SCALAR_OPS = ["add", "sub", "mul", "div", "floor_divide", "remainder",
                    "pow", "eq", "lt", "bitwise_and", "bitwise_left_shift"]


@pytest.mark.parametrize("op", TORCH_SCALAR_OPS + ["maximum", "logical_or"])
def test_python_scalar_promotion(torch, op):
    """tensor <op> scalar and scalar <op> tensor (the operator or the
    reflected operator where one exists): PyTorch's result dtype, and an
    error exactly where PyTorch has one."""
    import operator
    pyop = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
            "div": operator.truediv, "floor_divide": operator.floordiv,
            "remainder": operator.mod, "pow": operator.pow,
            "bitwise_and": operator.and_,
            "bitwise_left_shift": operator.lshift}.get(op)
    for d in TORCH_FULL:
        for s in SCALARS:
            if isinstance(s, float) and abs(s) > 1e10 and op == "pow":
                continue
            if op == "pow" and d == tl.bool and isinstance(s, bool):
                # PyTorch special-cases the exponents 0 and 1 before its
                # dtype check (pow(bool, True) copies); tensorlib refuses
                # pow on bool uniformly (ops.h).
                continue
            tt = _ones(torch, d, (3,))
            t = _tl_ones(d, (3,))
            for swap in (False, True):
                if swap and pyop is None:
                    continue
                what = (op, d, s, swap)
                if op not in TORCH_SCALAR_OPS:
                    r = torch.result_type(tt, s)
                    if op == "maximum" and r.is_complex:
                        with pytest.raises(TypeError):
                            getattr(tl, op)(t, s)
                        continue
                    got = getattr(tl, op)(t, s)
                    want_dt = torch.bool if op == "logical_or" else r
                    assert same(got.dtype, want_dt), (what, got.dtype)
                    continue
                if swap:
                    want = _try(lambda: pyop(s, tt))
                    got = _try(lambda: pyop(s, t))
                else:
                    want = _try(lambda: getattr(torch, op)(tt, s))
                    got = _try(lambda: getattr(tl, op)(t, s))
                if isinstance(want, Exception):
                    if d == tl.float16 and isinstance(s, complex):
                        continue  # PyTorch's complex32 lacks kernels
                    # Same refusal (a TypeError, or for values a scalar
                    # cannot take, an error of the documented kind).
                    assert isinstance(got, (TypeError, ValueError,
                                            OverflowError,
                                            ZeroDivisionError)), (what,
                                                                  got)
                    continue
                assert not isinstance(got, Exception), (what, got)
                assert same(got.dtype, want.dtype), (what, got.dtype,
                                                     want.dtype)


def _try(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the caller compares kinds
        return e


@pytest.mark.parametrize("d", ALL, ids=tname)
def test_result_type_with_scalars(torch, d):
    t = _tl_ones(d, (2,))
    for s in (True, 7, 2.5, 1j):
        got = tl.result_type(t, s)
        assert got == tl.result_type(s, t)
        if d in TORCH_FULL:
            want = torch.result_type(_ones(torch, d), s)
            assert same(got, want), (d, s, got, want)
        else:
            # uint16/32/64 follow the same category rule.
            if isinstance(s, bool) or (isinstance(s, int) and is_int(d)):
                assert got == d
            elif isinstance(s, float):
                assert got == tl.float32
            elif isinstance(s, complex):
                assert got == tl.complex64


def test_scalar_only_result_types(torch):
    """Two Python scalars: the default dtypes (int64, float32, complex64;
    bool for two bools), as torch.result_type."""
    for a, b in itertools.product([True, 3, 2.5, 1j], repeat=2):
        got = tl.result_type(a, b)
        assert same(got, torch.result_type(a, b)), (a, b, got)


@pytest.mark.parametrize("d", TORCH_FULL, ids=tname)
def test_numpy_scalars_and_arrays(torch, d):
    """NumPy scalars act as Python scalars of their kind (PyTorch's rule);
    a NumPy array operand is a dimensioned tensor of its dtype."""
    t = _tl_ones(d, (3,))
    tt = _ones(torch, d, (3,))
    # (np.bool_: PyTorch's argument parser reads it as a float; tensorlib
    # as a bool, NumPy's kind -- checked below.)
    for s in (np.float64(2.0), np.int64(3), np.float32(0.5),
              np.complex128(1j)):
        want = _try(lambda: tt * s)
        got = _try(lambda: t * s)
        if isinstance(want, Exception):
            continue
        assert not isinstance(got, Exception), (d, s, got)
        assert isinstance(got, tl.Tensor)
        assert same(got.dtype, want.dtype), (d, type(s), got.dtype,
                                             want.dtype)
        got_r = s * t
        assert isinstance(got_r, tl.Tensor), type(got_r)
        assert got_r.dtype == got.dtype
    assert (t * np.bool_(True)).dtype == (t * True).dtype
    if d == tl.bfloat16:
        return
    arr = np.ones(3, dtype=np.float64)
    got = t + arr
    assert isinstance(got, tl.Tensor)
    assert same(got.dtype, (tt + torch.from_numpy(arr)).dtype)
    got = arr + t
    assert isinstance(got, tl.Tensor), type(got)
    assert same(got.dtype, (torch.from_numpy(arr) + tt).dtype)


def test_mixed_categories_values_follow_result_dtype():
    """int8 tensor + 2.5 computes in float32; uint8 tensor + 300 wraps in
    uint8 (as PyTorch); bool + bool adds as logical or."""
    t = from_np(np.array([1, -3, 100], np.int8), tl.int8)
    r = t + 2.5
    assert r.dtype == tl.float32
    assert r.tolist() == [3.5, -0.5, 102.5]
    u = from_np(np.array([1, 200], np.uint8), tl.uint8)
    assert (u + 300).tolist() == [45, 244]
    b = tl.tensor([True, False, False])
    assert (b + tl.tensor([True, True, False])).tolist() == [True, True,
                                                               False]
    assert (b + 1).dtype == tl.int64
    assert (b * 1.5).dtype == tl.float32
    f16 = tl.ones(2, dtype=tl.float16)
    assert (f16 + 1e5).dtype == tl.float16
    assert (f16 + 1e5).tolist() == [float("inf")] * 2
    assert (tl.ones(2, dtype=tl.float64) * 1j).dtype == tl.complex128
