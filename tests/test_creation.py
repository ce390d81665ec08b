"""Creation: empty, zeros, ones, full, arange, tensor and the *_like forms,
with dtype= and device=; dtype inference as PyTorch; values against NumPy
on random shapes and every dtype."""
import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tensorlib as tl

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"]
NUMPY_DTYPES = [d for d in ALL_DTYPES if d != "bfloat16"]
INT_DTYPES = ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64",
              "uint64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]


def np_dtype(name):
    return np.dtype(name)


def random_shape(rng, max_ndim=4, max_size=5):
    ndim = int(rng.integers(0, max_ndim + 1))
    return tuple(int(s) for s in rng.integers(0, max_size + 1, ndim))


def dense_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def as_float_list(values):
    """Nested lists with every number converted to float (bfloat16 checks)."""
    if isinstance(values, list):
        return [as_float_list(v) for v in values]
    return float(values)


def bf16_round(x):
    """Round a float to bfloat16 directly (one rounding, nearest even), as a
    float: 8 significant bits, float32's exponent range."""
    if x == 0 or math.isnan(x) or math.isinf(x):
        return x
    if abs(x) < 2.0 ** -126:  # subnormal: a multiple of 2**-133
        return math.ldexp(round(math.ldexp(x, 133)), -133)
    m, e = math.frexp(x)  # x = m * 2**e, 0.5 <= |m| < 1
    if e > 128:  # |x| >= 2**128: beyond bfloat16's largest finite value
        return math.copysign(math.inf, x)
    r = math.ldexp(round(m * 256.0), e - 8)  # round() is half-to-even
    return r if abs(r) < 2.0 ** 128 else math.copysign(math.inf, x)


# ---- empty / zeros / ones ---------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda f: f(2, 3), lambda f: f((2, 3)), lambda f: f([2, 3]),
    lambda f: f(tl.Size([2, 3])), lambda f: f(np.int64(2), np.int32(3)),
])
def test_size_forms(call):
    for f in (tl.empty, tl.zeros, tl.ones):
        t = call(f)
        assert t.shape == (2, 3)
        assert isinstance(t.shape, tl.Size)
        assert t.stride() == (3, 1)
        assert t.dtype is tl.float32
        assert t.device == tl.device("cpu")
        assert t.is_contiguous()
        assert t.storage_offset() == 0


def test_zero_dim_and_empty_shapes():
    t = tl.empty(())
    assert t.shape == () and t.ndim == 0 and t.numel() == 1
    t = tl.zeros([])
    assert t.shape == () and t.item() == 0.0
    for shape in [(0,), (3, 0), (0, 4, 5), (2, 0, 0, 1)]:
        t = tl.zeros(shape)
        assert t.shape == shape
        assert t.numel() == 0
        assert t.tolist() == np.zeros(shape).tolist()
        assert t.is_contiguous()


def test_many_dims_heap_sizes():
    # sizes/strides live inline up to 5 dims and on the heap above.
    for shape in [(2, 1, 3, 1, 2), (2, 1, 3, 1, 2, 2), (1, 2) * 5,
                  (1,) * 63 + (3,)]:
        t = tl.ones(shape, dtype=tl.int16)
        ref = np.ones(shape, dtype=np.int16)
        assert t.shape == shape and t.ndim == len(shape)
        assert t.stride() == tuple(s // 2 for s in ref.strides)
        assert t.tolist() == ref.tolist()
        assert t.is_contiguous()
        f = tl.from_numpy(ref.transpose())
        assert f.stride() == tuple(s // 2 for s in ref.transpose().strides)
        assert f.tolist() == ref.transpose().tolist()
    with pytest.raises(ValueError, match="64"):
        tl.zeros((1,) * 65)


# Shapes on both sides of empty's one-pass path for small row-major shapes
# (Note [Small row-major shapes] in csrc/core/tensor.c: at most 4 dims,
# each size below 2**14) and the checked passes every other shape takes.
_EDGE_SHAPES = [
    (), (1,), (7,), (16383,), (16384,), (0,), (3, 4), (1, 16383), (16383, 1),
    (2, 1, 3), (0, 5), (5, 0, 3), (1, 1, 1, 1), (2, 3, 1, 4), (2, 3, 1, 4, 2),
    (16384, 0), (0, 16384), (0, 16383, 16383, 16383), (3, 0, 2 ** 40),
    (1, 2 ** 20), (1,) * 6,
]


@pytest.mark.parametrize("shape", _EDGE_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["bool", "float32", "complex128"])
def test_small_shape_path_matches_torch(shape, dtype, torch):
    for fmt in (None, tl.contiguous_format, tl.preserve_format):
        kw = {} if fmt is None else {"memory_format": fmt}
        t = tl.empty(shape, dtype=getattr(tl, dtype), **kw)
        ref = torch.empty(shape, dtype=getattr(torch, dtype))
        assert t.shape == tuple(ref.shape)
        assert t.stride() == ref.stride()
        assert t.numel() == ref.numel()
        assert t.is_contiguous() == ref.is_contiguous()
        assert (t.untyped_storage().nbytes()
                == ref.untyped_storage().nbytes())


@pytest.mark.parametrize("shape", [
    (-1,), (3, -1), (2, -5, 0), (0, 2 ** 62, 4), (2 ** 62, 4, 0),
    (2 ** 31, 2 ** 31, 2 ** 2), (-(2 ** 63),),
])
def test_small_shape_path_errors_as_torch(shape, torch):
    with pytest.raises(RuntimeError) as ref:
        torch.empty(shape)
    err = (ValueError, RuntimeError, OverflowError, MemoryError)
    with pytest.raises(err) as got:
        tl.empty(shape)
    assert str(shape[0]) in str(got.value) or "overflow" in str(got.value)
    # Just past the small path's bound, the checked path's byte count.
    with pytest.raises(MemoryError, match=str(4 * 2 ** 56)):
        tl.empty((2 ** 14,) * 4)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_values_every_dtype(dtype):
    rng = np.random.default_rng(sum(map(ord, dtype)))
    for _ in range(8):
        shape = random_shape(rng)
        z = tl.zeros(shape, dtype=dtype)
        o = tl.ones(*shape, dtype=getattr(tl, dtype)) if shape else \
            tl.ones((), dtype=getattr(tl, dtype))
        e = tl.empty(shape, dtype=dtype)
        for t in (z, o, e):
            assert t.dtype is getattr(tl, dtype)
            assert t.shape == shape
            assert t.stride() == dense_strides(shape)
        if dtype == "bfloat16":
            assert z.tolist() == as_float_list(np.zeros(shape).tolist())
            assert o.tolist() == as_float_list(np.ones(shape).tolist())
        else:
            assert z.tolist() == np.zeros(shape, np_dtype(dtype)).tolist()
            assert o.tolist() == np.ones(shape, np_dtype(dtype)).tolist()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_full_values_every_dtype(dtype):
    rng = np.random.default_rng(7 + len(dtype))
    if dtype == "bool":
        fills = [True, False, 0, 3]
    elif dtype.startswith("uint"):
        fills = [0, 1, 200, np.iinfo(np_dtype(dtype)).max]
    elif dtype.startswith("int"):
        info = np.iinfo(np_dtype(dtype))
        fills = [0, -1, int(info.min), int(info.max), True]
    elif dtype.startswith("complex"):
        fills = [1.5 - 2j, 0, -3, 2.25]
    else:
        # 1e30 fits every dtype but float16 (an OverflowError there, as
        # PyTorch's checked conversion: test_fuzz_reduce.py)
        fills = [0.1, -2.5, 3, float("inf"), True] + (
            [1e30] if dtype != "float16" else [65504.0])
    for fill in fills:
        shape = random_shape(rng)
        t = tl.full(shape, fill, dtype=dtype)
        assert t.dtype.name == dtype and t.shape == shape
        if dtype == "bfloat16":
            want = bf16_round(float(fill))
            flat = np.array(t.tolist(), dtype=np.float64).reshape(-1)
            assert all(v == want for v in flat)
        else:
            want = np.full(shape, fill, dtype=np_dtype(dtype))
            np.testing.assert_array_equal(
                np.array(t.tolist(), dtype=np_dtype(dtype)).reshape(shape),
                want)


def test_full_nan_every_float_dtype():
    for dtype in FLOAT_DTYPES + ["complex64", "complex128"]:
        t = tl.full((3,), float("nan"), dtype=dtype)
        for v in t.tolist():
            assert (v != v)


@pytest.mark.parametrize("fill", [
    True, False, 3, -7, 2.5, 1e30, 1 + 2j, 0j,
    np.float64(1.5), np.float32(2.0), np.float16(0.5), np.int32(3),
    np.int8(-1), np.uint8(200), np.int64(5), np.complex128(1j),
])
def test_full_dtype_inference_as_torch(fill, torch):
    want = torch.full((2,), fill).dtype
    got = tl.full((2,), fill)
    assert got.dtype.name == str(want).replace("torch.", "")
    np.testing.assert_array_equal(np.asarray(got.tolist()),
                                  torch.full((2,), fill).numpy())


def test_full_numpy_bool_and_complex64_fill():
    # Documented choice: a NumPy scalar fill value infers the default dtype
    # of its kind, so numpy.bool_ gives bool and numpy.complex64 complex64.
    # (PyTorch 2.13 gives float32 for both: it reads them as a float Scalar
    # and drops the imaginary part.)
    assert tl.full((2,), np.bool_(True)).dtype is tl.bool
    assert tl.full((2,), np.bool_(True)).tolist() == [True, True]
    t = tl.full((2,), np.complex64(2 + 1j))
    assert t.dtype is tl.complex64
    assert t.tolist() == [2 + 1j, 2 + 1j]


@pytest.mark.parametrize("value, dtype", [
    (1.5, "float64"), (3, "int8"), (True, "bool"), (1j, "complex128"),
    (2.5, "bfloat16"), (7, "uint8")])
def test_full_with_zero_dim_tensor_fill_as_torch(value, dtype, torch):
    fill = tl.tensor(value, dtype=dtype)
    want = torch.full((2,), torch.tensor(value, dtype=getattr(torch, dtype)))
    got = tl.full((2,), fill)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    assert got.tolist() == want.tolist()
    assert tl.full_like(tl.zeros(3, dtype=tl.complex64), fill).tolist() == \
        [complex(value)] * 3
    with pytest.raises(TypeError):
        tl.full((2,), tl.tensor([value], dtype=dtype))  # as torch: 0-d only
    with pytest.raises(TypeError):
        torch.full((2,), torch.tensor([value]))


def test_full_like_uses_input_dtype(torch):
    for dtype in ["int64", "int32", "uint8", "float16", "bool"]:
        src = tl.zeros(2, 3, dtype=dtype)
        got = tl.full_like(src, 2.75)
        want = torch.full_like(torch.zeros(2, 3, dtype=getattr(torch, dtype)),
                               2.75)
        assert got.dtype.name == dtype
        assert got.tolist() == want.tolist()


# ---- dtype= and device= forms ----------------------------------------------


@pytest.mark.parametrize("spec, name", [
    (tl.float64, "float64"), ("float64", "float64"),
    ("tensorlib.int16", "int16"), ("float", "float32"), ("double", "float64"),
    ("half", "float16"), ("long", "int64"), ("int", "int32"),
    ("short", "int16"), ("cfloat", "complex64"), ("cdouble", "complex128"),
    (np.float64, "float64"), (np.dtype("int8"), "int8"), (np.uint16, "uint16"),
    (np.dtype("complex64"), "complex64"), (np.bool_, "bool"),
    (float, "float64"), (int, "int64"), (bool, "bool"),
    (complex, "complex128"),
    (None, "float32"),
])
def test_dtype_argument_forms(spec, name):
    for f in (lambda: tl.empty(2, dtype=spec), lambda: tl.zeros(2, dtype=spec),
              lambda: tl.ones(2, dtype=spec),
              lambda: tl.full((2,), 1, dtype=spec) if spec is not None
              else tl.full((2,), 1.0),
              lambda: tl.tensor([1, 0], dtype=spec) if spec is not None
              else tl.tensor([1.0, 0.0])):
        assert f().dtype.name == name


def test_python_type_dtypes_as_torch(torch):
    for py in (float, int, bool, complex):
        assert (tl.empty(1, dtype=py).dtype.name
                == str(torch.empty(1, dtype=py).dtype).replace("torch.", ""))


def test_dtype_aliases():
    assert tl.half is tl.float16
    assert tl.float is tl.float32
    assert tl.double is tl.float64
    assert tl.long is tl.int64
    assert tl.int is tl.int32
    assert tl.short is tl.int16
    assert tl.cfloat is tl.complex64
    assert tl.cdouble is tl.complex128


@pytest.mark.parametrize("device", ["cpu", tl.device("cpu"), "cpu:0", None])
def test_device_argument_cpu(device):
    for t in (tl.empty(2, device=device), tl.zeros(2, device=device),
              tl.ones(2, device=device), tl.full((2,), 3, device=device),
              tl.arange(3, device=device), tl.tensor([1], device=device),
              tl.empty_like(tl.zeros(2), device=device)):
        assert t.device == tl.device("cpu")
        assert t.device.type == "cpu"
        assert t.is_cpu and not t.is_cuda


@pytest.mark.skipif(tl.cuda.is_available(),
                    reason="a CUDA device is available (tests/test_cuda.py)")
def test_device_cuda_without_cuda_build_is_runtime_error():
    # DESIGN.md: a CUDA tensor without a device is a RuntimeError.
    src = tl.zeros(2)
    before = tl.memory_stats()
    for f in (lambda: tl.empty(2, device="cuda"),
              lambda: tl.zeros(2, device="cuda:1"),
              lambda: tl.ones(2, device=tl.device("cuda", 0)),
              lambda: tl.empty_like(src, device="cuda")):
        with pytest.raises(RuntimeError, match="(?i)cuda"):
            f()
    after = tl.memory_stats()
    assert after["alloc_count"] == before["alloc_count"]
    assert after["active_bytes"] == before["active_bytes"]


def test_bad_device_strings_in_creation():
    for bad in ["gpu", "cuda:x", "cpu:1", "", "CUDA"]:
        with pytest.raises(ValueError, match=re.escape("'%s'" % bad)):
            tl.zeros(2, device=bad)


# ---- arange -----------------------------------------------------------------


ARANGE_ARGS = [(10,), (0,), (3, 11), (-3, 7, 2), (7, -3, -2), (0, 10, 3),
               (1.5,), (0, 1, 0.1), (0.1, 2.3, 0.2), (-1.0, 1.0, 0.25),
               (5, -5, -1.5), (1e6, 1e6 + 10, 0.7), (2, 2), (np.int32(4),),
               (np.int16(1), np.int64(9), np.int8(2)), (np.float32(2.5),),
               (np.float64(0.5), 3)]


@pytest.mark.parametrize("args", ARANGE_ARGS)
def test_arange_dtype_and_values_as_torch(args, torch):
    want = torch.arange(*args)
    got = tl.arange(*args)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    assert got.tolist() == want.tolist()
    assert got.shape == tuple(want.shape)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32",
                                   "float64", "int64"])
@pytest.mark.parametrize("args", ARANGE_ARGS)
def test_arange_with_dtype_as_torch(args, dtype, torch):
    try:
        want = torch.arange(*args, dtype=getattr(torch, dtype))
    except (RuntimeError, ValueError):  # "step must be nonzero" after the
        with pytest.raises(ValueError, match="step"):  # cast to int64
            tl.arange(*args, dtype=dtype)
        return
    got = tl.arange(*args, dtype=dtype)
    assert got.dtype.name == dtype
    assert got.shape == tuple(want.shape)
    if dtype == "float64":
        # PyTorch's vectorised kernel rounds twice (base + lane * step), so
        # the last bit may differ; tensorlib computes start + i * step once.
        np.testing.assert_allclose(got.tolist(), want.tolist(), rtol=1e-15,
                                   atol=1e-15)
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8"])
def test_arange_narrow_ints_cast_inputs_like_int64(dtype):
    # Inputs are cast to the (integer) result type first, for every integer
    # dtype (PyTorch does this for int64 only; narrower ints count in
    # double there).  Values wrap into the narrow type, as a cast.
    for args in [(10,), (3, 11), (-3, 7, 2), (5, -5, -1.5), (1.5,),
                 (-1, 300, 7)]:
        wide = tl.arange(*args, dtype="int64").tolist()
        got = tl.arange(*args, dtype=dtype).tolist()
        assert got == np.array(wide, dtype=np.int64).astype(dtype).tolist()
    with pytest.raises(ValueError, match="step"):
        tl.arange(0, 5, 0.5, dtype=dtype)


@given(start=st.integers(-1000, 1000), length=st.integers(0, 300),
       step=st.integers(-50, 50).filter(bool))
def test_arange_integers_vs_numpy(start, length, step):
    end = start + length * step // max(1, abs(step) // 3 or 1)
    if (step > 0 and end < start) or (step < 0 and end > start):
        end = start
    got = tl.arange(start, end, step)
    want = np.arange(start, end, step, dtype=np.int64)
    assert got.dtype is tl.int64
    assert got.tolist() == want.tolist()


@given(start=st.floats(-100, 100), span=st.floats(0, 100),
       step=st.floats(0.01, 10))
def test_arange_floats_vs_numpy_float64(start, span, step):
    end = start + span
    got = tl.arange(start, end, step, dtype=tl.float64)
    want = np.arange(start, end, step, dtype=np.float64)
    assert got.shape == want.shape
    # The values are start + i * step, rounded once.
    assert got.tolist() == [start + i * step for i in range(len(want))]
    # NumPy fills with a rounded delta, so it drifts from the closed form.
    np.testing.assert_allclose(got.tolist(), want, rtol=1e-9,
                               atol=1e-9 * max(1.0, abs(start), abs(end)))


def test_arange_underflowing_count_as_numpy():
    # (end - start) / step underflows to 0 while the span is not empty:
    # start is still in [start, end), one element, as NumPy (PyTorch
    # computes the count as 0).
    for args in [(0.0, 5e-324, 2.0), (0.0, -5e-324, -2.0),
                 (0.0, 1e-300, 1e10)]:
        got = tl.arange(*args, dtype=tl.float64).tolist()
        assert got == np.arange(*args).tolist() == [0.0]
    assert tl.arange(1.0, 1.0, 0.5).tolist() == []


def test_arange_errors():
    with pytest.raises(ValueError, match="step"):
        tl.arange(0, 10, 0)
    with pytest.raises(ValueError, match="10"):
        tl.arange(10, 0)
    with pytest.raises(ValueError, match="finite"):
        tl.arange(float("inf"))
    with pytest.raises(ValueError, match="finite"):
        tl.arange(0, float("nan"))
    with pytest.raises(TypeError, match="bool"):
        tl.arange(3, dtype=tl.bool)
    with pytest.raises(TypeError, match="complex64"):
        tl.arange(3, dtype=tl.complex64)
    with pytest.raises(TypeError, match="str"):
        tl.arange("3")
    with pytest.raises(TypeError):
        tl.arange()


# ---- tensor(): shapes and dtype inference ---------------------------------


INFER_CASES = [
    1, 2.5, True, 1j, -0.0, 2 ** 62, [], [[]], [[], []], [[[]]],
    [1, 2], [1.0, 2], [True, 2], [True, False], [1, 2.5, 3j],
    [[1, 2], [3, 4.0]], [[True], [1]], [[1j]], [0.5, True],
    [[[1, 2]], [[3, 4]]], [1.0, 1j, True],
    np.float64(1.5), np.float32(1.5), np.float16(1.5), np.int8(3),
    np.int16(3), np.int32(3), np.int64(3), np.uint8(3), np.bool_(True),
    np.complex64(1j), np.complex128(1j),
    [np.float64(1.5), 2], [2, np.float64(1.5)], [np.float16(1), 2.0],
    [2.0, np.float16(1)], [np.int32(1), 1], [np.int8(1), np.uint8(2)],
    [np.uint8(1), np.int8(2)], [np.uint8(1), True], [np.float16(1), 1],
    [np.float64(1), 1j], [np.float16(1), 1j], [np.complex64(1), 1.5],
    [np.complex64(1), np.float64(1)], [np.int32(1), 1.0],
    [np.float16(1), np.float32(1)], [[np.int8(1)], [np.int16(2)]],
    [np.bool_(True), np.bool_(False)], [np.int64(1), np.float16(2)],
    [np.float32(1), np.complex128(2)],
]


@pytest.mark.parametrize("data", INFER_CASES,
                         ids=lambda d: repr(d)[:40])
def test_tensor_dtype_and_shape_as_torch(data, torch):
    want = torch.tensor(data)
    got = tl.tensor(data)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    assert got.shape == tuple(want.shape)
    if want.dtype == torch.bfloat16:
        return
    np.testing.assert_array_equal(np.array(got.tolist(), dtype=object),
                                  np.array(want.tolist(), dtype=object))


SCALAR_LEAVES = [True, 1, 2.5, 1j, np.bool_(True), np.uint8(1), np.int8(1),
                 np.int16(1), np.int32(1), np.int64(1), np.float16(1),
                 np.float32(1), np.float64(1), np.complex64(1),
                 np.complex128(1), np.uint16(1), np.uint32(1), np.uint64(1)]
_PY_DEFAULT = {bool: "bool", int: "int64", float: "float32",
               complex: "complex64"}


def _leaf_dtype(x):
    if isinstance(x, np.generic):
        return x.dtype
    return np.dtype(_PY_DEFAULT[type(x)])


@pytest.mark.parametrize("a, b", list(itertools.product(SCALAR_LEAVES,
                                                         repeat=2)),
                         ids=lambda x: type(x).__name__)
def test_tensor_pairwise_inference_as_torch(a, b, torch):
    for data in ([a, b], [[a], [b]], [[a, b], [b, a]]):
        got = tl.tensor(data).dtype.name
        try:
            want = str(torch.tensor(data).dtype).replace("torch.", "")
        except RuntimeError as e:
            # PyTorch refuses uint16/32/64 with other types: NumPy's rule.
            assert "Promotion" in str(e)
            want = np.promote_types(_leaf_dtype(a), _leaf_dtype(b)).name
        except TypeError:
            # PyTorch fails to *store* numpy.bool_ into an integer tensor;
            # the inferred dtype is still the promotion of the two.
            want = np.promote_types(_leaf_dtype(a), _leaf_dtype(b)).name
        assert got == want, (data, got, want)


def test_tensor_of_zero_dim_tensors_keeps_their_dtype(torch):
    a = tl.tensor(1.5, dtype=tl.float64)
    b = tl.tensor(2, dtype=tl.int8)
    c = tl.tensor(True)
    for data, tdata in [
            ([a, 2], [torch.tensor(1.5, dtype=torch.float64), 2]),
            ([b, c], [torch.tensor(2, dtype=torch.int8), torch.tensor(True)]),
            ([b, 1.0], [torch.tensor(2, dtype=torch.int8), 1.0])]:
        got = tl.tensor(data)
        want = torch.tensor(tdata)
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
        assert got.tolist() == want.tolist()


def test_tensor_from_tuples_and_mixed_sequences(torch):
    data = ((1, 2), [3, 4], range(5, 7))
    got = tl.tensor(data)
    assert got.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert got.dtype is tl.int64
    assert got.shape == tuple(torch.tensor([[1, 2], [3, 4], [5, 6]]).shape)


def test_tensor_ragged_and_bad_leaves(torch):
    for data in ([[1, 2], [3]], [[1], 2], [1, [2]], [[[1]], [2]]):
        with pytest.raises(ValueError):
            tl.tensor(data)
        with pytest.raises((ValueError, TypeError)):
            torch.tensor(data)
    for data in ("abc", [1, "a"], None, [None], object(), [b"x"], {1: 2}):
        with pytest.raises(TypeError):
            tl.tensor(data)


def test_tensor_deep_nesting_limit():
    data = 1.0
    for _ in range(64):
        data = [data]
    assert tl.tensor(data).ndim == 64
    with pytest.raises(ValueError, match="64"):
        tl.tensor([data])


def _nested_strategy(dtype):
    if dtype == "bool":
        leaf = st.booleans()
    elif dtype in INT_DTYPES:
        info = np.iinfo(np_dtype(dtype))
        leaf = st.integers(int(info.min), int(info.max))
    elif dtype.startswith("complex"):
        leaf = st.complex_numbers(max_magnitude=1e30, allow_nan=False)
    else:
        leaf = st.floats(-1e4, 1e4, width=16 if dtype == "float16" else 64)
    return leaf


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@given(data=st.data())
def test_tensor_values_vs_numpy(dtype, data):
    shape = data.draw(st.lists(st.integers(0, 4), max_size=3), label="shape")
    n = int(np.prod(shape)) if shape else 1
    flat = data.draw(st.lists(_nested_strategy(dtype), min_size=n,
                              max_size=n), label="values")
    ref = np.array(flat, dtype=np_dtype(dtype)).reshape(shape)
    nested = ref.tolist() if shape else flat[0]
    # Nested lists lose the sizes after a 0 ([] for (0, 3)): NumPy's shape
    # of the same lists is the oracle.
    ref = np.array(nested, dtype=np_dtype(dtype))
    got = tl.tensor(nested, dtype=dtype)
    assert got.shape == ref.shape
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(
        np.array(got.tolist(), dtype=np_dtype(dtype)).reshape(ref.shape), ref)


@given(values=st.lists(st.floats(allow_nan=False), min_size=1,
                       max_size=20))
def test_tensor_bfloat16_values_round_once(values):
    # DESIGN.md: float16/bfloat16 round to nearest even directly from
    # float64 (PyTorch goes through float32 and can round twice).
    got = tl.tensor(values, dtype=tl.bfloat16).tolist()
    assert got == [bf16_round(v) for v in values]


@given(values=st.lists(st.floats(allow_nan=False), min_size=1,
                       max_size=20))
def test_tensor_float16_values_vs_numpy(values):
    got = tl.tensor(values, dtype=tl.float16).tolist()
    with np.errstate(over="ignore"):
        want = np.array(values, dtype=np.float64).astype(np.float16)
    assert got == want.astype(np.float64).tolist()


def test_small_floats_do_not_round_twice(torch):
    # Just above the halfway point between two bfloat16 (float16) values,
    # but rounding to exactly that halfway point in float32: one rounding
    # goes up, two roundings (via float32) tie to even and go down.
    x = 1 + 2.0 ** -8 + 2.0 ** -30
    assert tl.tensor([x], dtype=tl.bfloat16).item() == 1 + 2.0 ** -7
    assert tl.full((1,), x, dtype=tl.bfloat16).item() == 1 + 2.0 ** -7
    assert torch.tensor([x], dtype=torch.bfloat16).item() == 1.0  # twice
    y = 1 + 2.0 ** -11 + 2.0 ** -40
    assert tl.tensor([y], dtype=tl.float16).item() == 1 + 2.0 ** -10
    assert np.float16(y) == 1 + 2.0 ** -10
    assert tl.tensor([-y], dtype=tl.float16).item() == -(1 + 2.0 ** -10)


@pytest.mark.parametrize("value", [2 ** 64, 2 ** 70 + 1, -(2 ** 80), 2 ** 200,
                                   3 ** 300, 2 ** 1100], ids=str)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32",
                                   "float64", "complex64", "complex128"])
def test_ints_past_64_bits_into_float_elements_as_torch(value, dtype, torch):
    # an int that no integer dtype holds is still a number for a floating
    # or complex element: rounded to a double, then to the dtype (inf
    # where the dtype's range ends), as torch does; past float64's range
    # both raise OverflowError
    want = got = None
    try:
        want = torch.tensor([value, 1], dtype=getattr(torch, dtype))
    except OverflowError:
        with pytest.raises(OverflowError):
            tl.tensor([value, 1], dtype=getattr(tl, dtype))
        return
    got = tl.tensor([value, 1], dtype=getattr(tl, dtype))
    w = want.to(torch.complex128 if want.is_complex() else torch.float64)
    assert got.to(tl.complex128 if got.dtype.is_complex
                  else tl.float64).tolist() == w.tolist()
    # a float in the list makes the inferred dtype floating: same values
    inferred = tl.tensor([value, 1.5])
    assert inferred.dtype == tl.float32
    assert inferred.tolist() == torch.tensor([value, 1.5]).tolist()


def test_tensor_value_range_errors():
    with pytest.raises(OverflowError, match="300"):
        tl.tensor([1, 300], dtype=tl.uint8)
    with pytest.raises(OverflowError, match="-1"):
        tl.tensor([-1], dtype=tl.uint32)
    with pytest.raises(OverflowError):
        tl.tensor([2 ** 64])
    with pytest.raises(OverflowError):
        tl.tensor(2 ** 63)  # int64 inferred
    assert tl.tensor(2 ** 63, dtype=tl.uint64).item() == 2 ** 63
    assert tl.tensor([2 ** 64 - 1], dtype=tl.uint64).tolist() == [2 ** 64 - 1]
    with pytest.raises(TypeError, match="complex"):
        tl.tensor([1j], dtype=tl.float32)
    with pytest.raises(OverflowError):
        tl.tensor([float("nan")], dtype=tl.int32)
    with pytest.raises(OverflowError):
        tl.tensor([1e10], dtype=tl.int32)


# ---- tensor() from tensors and arrays copies --------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_tensor_of_ndarray_copies(dtype):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 4)) * 50).astype(dtype)
    t = tl.tensor(a)
    assert t.dtype.name == dtype
    assert t.shape == a.shape
    assert t.is_contiguous()
    assert t.tolist() == a.tolist()
    assert not np.shares_memory(t.numpy(), a)
    before = a.copy()
    a[...] = 0
    assert t.tolist() == before.tolist()


def test_tensor_of_strided_ndarray_copies_contiguous():
    a = np.arange(24.0).reshape(4, 6)[::-2, 1::2]
    t = tl.tensor(a)
    assert t.tolist() == a.tolist()
    assert t.is_contiguous()
    assert t.stride() == dense_strides(a.shape)


def test_tensor_of_ndarray_with_dtype():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tl.tensor(a, dtype=tl.float64)
    assert t.dtype is tl.float64
    assert t.tolist() == a.astype(np.float64).tolist()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tensor_of_tensor_copies(dtype):
    src = tl.ones(2, 3, dtype=dtype)
    t = tl.tensor(src)
    assert t.dtype is src.dtype
    assert t.shape == src.shape
    assert t.tolist() == src.tolist()
    assert t is not src
    assert t.data_ptr() != src.data_ptr()
    if dtype != "bfloat16":
        src.numpy()[...] = 0
        assert t.tolist() == tl.ones(2, 3, dtype=dtype).tolist()


def test_tensor_of_tensor_view_and_dtype():
    base = tl.arange(12, dtype=tl.float32)
    view = base.as_strided((3, 2), (1, 3), 2)
    t = tl.tensor(view, dtype=tl.int16)
    assert t.dtype is tl.int16
    assert t.tolist() == [[2, 5], [3, 6], [4, 7]]
    assert t.is_contiguous()


# ---- *_like -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_like_keeps_dtype_shape_device(dtype):
    rng = np.random.default_rng(11)
    for _ in range(4):
        shape = random_shape(rng)
        src = tl.full(shape, 1, dtype=dtype)
        for f, val in ((tl.empty_like, None), (tl.zeros_like, 0),
                       (tl.ones_like, 1),
                       (lambda x: tl.full_like(x, 1), 1)):
            t = f(src)
            assert t.dtype is src.dtype
            assert t.shape == shape
            assert t.device == src.device
            assert t.stride() == src.stride()
            assert t.data_ptr() != src.data_ptr() or t.numel() == 0
            if val is not None:
                assert (np.array(t.tolist(), dtype=object).reshape(-1)
                        == val).all()


def test_like_dtype_override():
    src = tl.zeros(2, 3, dtype=tl.int32)
    assert tl.zeros_like(src, dtype=tl.float64).dtype is tl.float64
    assert tl.ones_like(src, dtype="bool").tolist() == [[True] * 3] * 2
    assert tl.full_like(src, 2.5, dtype=tl.float16).tolist() == [[2.5] * 3] * 2
    assert tl.empty_like(src, dtype=np.int8).dtype is tl.int8


def _strided(sizes, strides, dtype=tl.float32):
    extent = 1 + sum((s - 1) * abs(st_) for s, st_ in zip(sizes, strides)
                     if s > 0)
    base = tl.zeros(extent, dtype=dtype)
    return base.as_strided(sizes, strides)


DENSE_LAYOUTS = [
    ((2, 3, 4), (1, 2, 6)),               # fully reversed
    ((2, 3, 4, 5), (60, 1, 15, 3)),       # channels_last
    ((2, 3, 4, 5, 6), (360, 1, 90, 18, 3)),  # channels_last_3d
    ((3, 4), (1, 3)),                     # transposed
    ((4, 1, 3), (3, 7, 1)),               # size-1 dim with odd stride
    ((2, 3, 4), (4, 8, 1)),               # permuted
]


@pytest.mark.parametrize("sizes, strides", DENSE_LAYOUTS)
def test_like_preserves_dense_layouts_as_torch(sizes, strides, torch):
    src = _strided(sizes, strides)
    tsrc = torch.empty_strided(sizes, strides)
    for f, tf in ((tl.empty_like, torch.empty_like),
                  (tl.zeros_like, torch.zeros_like),
                  (tl.ones_like, torch.ones_like)):
        t = f(src)
        assert t.stride() == tf(tsrc).stride()
        assert t.shape == sizes
    t = tl.full_like(src, 3)
    assert t.stride() == torch.full_like(tsrc, 3).stride()
    assert (np.array(t.tolist()) == 3).all()


@pytest.mark.parametrize("sizes, strides", [
    ((4,), (2,)), ((3, 4), (8, 2)), ((2, 3), (0, 1)), ((3, 3), (1, 1)),
])
def test_like_of_non_dense_is_contiguous(sizes, strides, torch):
    src = _strided(sizes, strides)
    t = tl.empty_like(src)
    assert t.stride() == torch.empty_like(
        torch.empty_strided(sizes, strides)).stride()
    assert t.is_contiguous()


def test_like_of_negative_strides_is_contiguous():
    a = np.arange(12.0).reshape(3, 4)[::-1, ::-1]
    src = tl.from_numpy(a)
    assert src.stride() == (-4, -1)
    for f in (tl.empty_like, tl.zeros_like, tl.ones_like):
        t = f(src)
        assert t.stride() == (4, 1)
    assert tl.full_like(src, 1.5).tolist() == [[1.5] * 4] * 3


def test_like_memory_format_argument(torch):
    src = _strided((2, 3, 4, 5), (60, 1, 15, 3))
    t = tl.empty_like(src, memory_format=tl.contiguous_format)
    assert t.stride() == (60, 20, 5, 1)
    c = tl.zeros(2, 3, 4, 5)
    t = tl.zeros_like(c, memory_format=tl.channels_last)
    want = torch.zeros_like(torch.zeros(2, 3, 4, 5),
                            memory_format=torch.channels_last)
    assert t.stride() == want.stride()
    assert t.is_contiguous(memory_format=tl.channels_last)
    c5 = tl.zeros(2, 3, 4, 5, 6)
    t = tl.ones_like(c5, memory_format=tl.channels_last_3d)
    want = torch.ones_like(torch.zeros(2, 3, 4, 5, 6),
                           memory_format=torch.channels_last_3d)
    assert t.stride() == want.stride()
    assert tl.empty_like(c, memory_format=tl.preserve_format).stride() == \
        c.stride()


def test_creation_memory_format(torch):
    t = tl.empty(2, 3, 4, 5, memory_format=tl.channels_last)
    want = torch.empty(2, 3, 4, 5, memory_format=torch.channels_last)
    assert t.stride() == want.stride()
    t = tl.zeros((1, 3, 1, 2, 2), memory_format=tl.channels_last_3d)
    want = torch.empty((1, 3, 1, 2, 2), memory_format=torch.channels_last_3d)
    assert t.stride() == want.stride()
    assert t.tolist() == np.zeros((1, 3, 1, 2, 2)).tolist()
    t = tl.ones((2, 3, 2, 2), memory_format=tl.channels_last)
    assert t.stride() == torch.empty(
        (2, 3, 2, 2), memory_format=torch.channels_last).stride()
    assert t.tolist() == np.ones((2, 3, 2, 2)).tolist()
    assert tl.ones(2, 3, memory_format=tl.contiguous_format).stride() == (3, 1)


def test_like_rejects_non_tensors():
    for f in (tl.empty_like, tl.zeros_like, tl.ones_like):
        with pytest.raises(TypeError):
            f(np.zeros(2))
        with pytest.raises(TypeError):
            f([1, 2])
    with pytest.raises(TypeError):
        tl.full_like(tl.zeros(2))


class _List(list):
    """A list subclass: tensor() reads it through the general nested walk,
    the oracle of the flat fast path for exact lists and tuples."""


def _flat_cases(rng):
    f64 = np.finfo(np.float64)
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e300, -1e300,
                5e-324, float(np.finfo(np.float32).max) * 1.0000001, f64.max]
    ints = [0, -1, 2**63 - 1, -2**63, 2**62, 7]
    for n in (1, 2, 10, 33):
        yield [float(x) for x in rng.normal(0, 1e3, n)]
        yield [specials[i] for i in rng.integers(0, len(specials), n)]
        yield [int(x) for x in rng.integers(-2**40, 2**40, n)]
        yield [ints[i] for i in rng.integers(0, len(ints), n)]
    # the first item picks the mode; a later item of another type, a bool,
    # or an int past int64 goes back to the general path
    yield [1.0, 2, 3.5]
    yield [1, 2.0, 3]
    yield [1, True, 3]
    yield [True, 1]
    yield [1.0, True]
    yield [1, 2**63]
    yield [2**64, 1]
    yield [1, -2**63 - 1]
    yield [1, 1j]
    yield [1.5, np.float64(2.5)]
    yield [1, np.int32(2)]
    yield [1.0, [2.0]]
    yield [1, "2"]


@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64",
                                   "int32", "bool", "float16"])
def test_tensor_flat_lists_match_general_path(dtype, torch):
    """tensor() of a flat list or tuple of floats or ints takes a typed
    one-pass path (creation.c flat_numbers): same dtype, values and errors
    as the general walk (a list subclass), dtypes and refusals as torch."""
    rng = np.random.default_rng(22)
    dt = getattr(tl, dtype) if dtype else None
    for data in _flat_cases(rng):
        for seq in (data, tuple(data)):
            want = want_err = None
            try:
                want = tl.tensor(_List(data), dtype=dt)
            except Exception as e:  # the general path's refusal
                want_err = e
            if want_err is not None:
                with pytest.raises(type(want_err)) as got:
                    tl.tensor(seq, dtype=dt)
                assert str(got.value) == str(want_err)
                huge = any(isinstance(x, int) and not -2**63 <= x < 2**64
                           for x in data)
                if not huge:  # (torch casts those to a float or bool dtype)
                    with pytest.raises(Exception):
                        torch.tensor(list(data), dtype=(
                            getattr(torch, dtype) if dtype else None))
                continue
            got = tl.tensor(seq, dtype=dt)
            assert got.dtype == want.dtype and got.shape == want.shape
            a, b = got.numpy(), want.numpy()
            assert a.tobytes() == b.tobytes(), (data, a, b)
            if all(isinstance(x, (int, float)) for x in data):
                tt = torch.tensor(list(data), dtype=(
                    getattr(torch, dtype) if dtype else None))
                assert str(tt.dtype).split(".")[-1] == got.dtype.name


class _IntSub(int):
    pass


class _FloatSub(float):
    pass


_SCALAR_EDGE_CASES = [
    # (id, call over a module m); torch's dtype and values are the oracle
    ("bool-of-uint", lambda m: m.tensor([2**63, 0], dtype=m.bool)),
    ("uint64-of-uint", lambda m: m.tensor([2**63], dtype=m.uint64)),
    ("float32-of-uint", lambda m: m.tensor([2**63 + 5], dtype=m.float32)),
    ("complex64-of-uint", lambda m: m.tensor([2**63], dtype=m.complex64)),
    ("int-subclass", lambda m: m.tensor([_IntSub(4), 2])),
    ("float-subclass", lambda m: m.tensor([_FloatSub(1.5), 2.5])),
    ("full-int-subclass", lambda m: m.full((2,), _IntSub(7))),
    ("full-float-subclass", lambda m: m.full((2,), _FloatSub(7.5))),
    ("add-int-subclass", lambda m: m.ones(2) + _IntSub(2)),
    ("fill-bool-of-uint", lambda m: m.zeros(2, dtype=m.bool).fill_(2**63)),
    ("numpy-float16", lambda m: m.tensor(np.float16(1.5))),
]


@pytest.mark.parametrize("name,call", _SCALAR_EDGE_CASES,
                         ids=[c[0] for c in _SCALAR_EDGE_CASES])
def test_scalar_conversion_edges_as_torch(name, call, torch):
    """Python scalars of the rarer kinds (ints past int64 into bool, uint64,
    floats and complex; int and float subclasses; NumPy scalars) convert as
    PyTorch converts them (csrc/python/scalars.c)."""
    got, want = call(tl), call(torch)
    assert got.dtype.name == str(want.dtype).split(".")[-1]
    assert got.tolist() == want.tolist()


def test_uint64_from_large_floats_as_numpy():
    # PyTorch refuses a float for uint64 data ("an integer is required");
    # tensorlib truncates as NumPy's astype does, within uint64's range,
    # and refuses what is past it.
    vals = [1e19, 2.0**63, 2.0**64 - 2048, 3.7]
    got = tl.tensor(vals, dtype=tl.uint64).tolist()
    assert got == np.array(vals).astype(np.uint64).tolist()
    for bad in (2.0**64, -1.0, math.inf, math.nan):
        with pytest.raises(OverflowError, match="out of range for uint64"):
            tl.tensor([bad], dtype=tl.uint64)
