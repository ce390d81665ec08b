"""Conformance of tensorlib.array_api with the array API standard (2024.12).

Written from the published specification: every required name and its
signature (parameter names, kinds and defaults), the namespace and info
functions, the type promotion table (Python scalars weak, 0-d arrays
counting fully), the data type functions, the special cases of the
elementwise functions, and the standard's semantics where the PyTorch-named
top level differs (std/var correction, tuple axes, sort/argsort, unique_*,
concat, copy= keywords, include_initial, ...).  Values are checked against
NumPy on random shapes and layouts (transposed, flipped, sliced, 0-d,
size-0, broadcast)."""
import gc
import inspect
import math
import sys

import numpy as np
import pytest

import tensorlib as tl
import tensorlib.array_api as xp

RNG = np.random.default_rng(20)


@pytest.fixture(autouse=True, scope="module")
def _collect_garbage_after():
    # pytest.raises keeps tracebacks whose frames hold tensors in cycles:
    # free them here, not inside a later file's allocator-stats check.
    yield
    gc.collect()
INF, NAN = math.inf, math.nan

# ---- the names and signatures of the standard -------------------------------

# name -> the signature as inspect prints it without annotations.
SIGNATURES = {
    # creation
    "arange": "(start, /, stop=None, step=1, *, dtype=None, device=None)",
    "asarray": "(obj, /, *, dtype=None, device=None, copy=None)",
    "empty": "(shape, *, dtype=None, device=None)",
    "empty_like": "(x, /, *, dtype=None, device=None)",
    "eye": "(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)",
    "from_dlpack": "(x, /, *, device=None, copy=None)",
    "full": "(shape, fill_value, *, dtype=None, device=None)",
    "full_like": "(x, /, fill_value, *, dtype=None, device=None)",
    "linspace": "(start, stop, /, num, *, dtype=None, device=None, "
                "endpoint=True)",
    "meshgrid": "(*arrays, indexing='xy')",
    "ones": "(shape, *, dtype=None, device=None)",
    "ones_like": "(x, /, *, dtype=None, device=None)",
    "tril": "(x, /, *, k=0)",
    "triu": "(x, /, *, k=0)",
    "zeros": "(shape, *, dtype=None, device=None)",
    "zeros_like": "(x, /, *, dtype=None, device=None)",
    # data types
    "astype": "(x, dtype, /, *, copy=True, device=None)",
    "can_cast": "(from_, to, /)",
    "finfo": "(type, /)",
    "iinfo": "(type, /)",
    "isdtype": "(dtype, kind)",
    "result_type": "(*arrays_and_dtypes)",
    # elementwise (binary)
    **{n: "(x1, x2, /)" for n in (
        "add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
        "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal",
        "floor_divide", "greater", "greater_equal", "hypot", "less",
        "less_equal", "logaddexp", "logical_and", "logical_or",
        "logical_xor", "maximum", "minimum", "multiply", "nextafter",
        "not_equal", "pow", "remainder", "subtract")},
    # elementwise (unary)
    **{n: "(x, /)" for n in (
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh",
        "bitwise_invert", "ceil", "conj", "cos", "cosh", "exp", "expm1",
        "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p",
        "log2", "log10", "logical_not", "negative", "positive", "real",
        "reciprocal", "round", "sign", "signbit", "sin", "sinh", "square",
        "sqrt", "tan", "tanh", "trunc")},
    "clip": "(x, /, min=None, max=None)",
    # indexing
    "take": "(x, indices, /, *, axis=None)",
    "take_along_axis": "(x, indices, /, *, axis=-1)",
    # inspection
    "__array_namespace_info__": "()",
    # linear algebra
    "matmul": "(x1, x2, /)",
    "matrix_transpose": "(x, /)",
    "tensordot": "(x1, x2, /, *, axes=2)",
    "vecdot": "(x1, x2, /, *, axis=-1)",
    # manipulation
    "broadcast_arrays": "(*arrays)",
    "broadcast_shapes": "(*shapes)",
    "broadcast_to": "(x, /, shape)",
    "concat": "(arrays, /, *, axis=0)",
    "expand_dims": "(x, /, axis=0)",
    "flip": "(x, /, *, axis=None)",
    "moveaxis": "(x, source, destination, /)",
    "permute_dims": "(x, /, axes)",
    "repeat": "(x, repeats, /, *, axis=None)",
    "reshape": "(x, /, shape, *, copy=None)",
    "roll": "(x, /, shift, *, axis=None)",
    "squeeze": "(x, /, axis)",
    "stack": "(arrays, /, *, axis=0)",
    "tile": "(x, repetitions, /)",
    "unstack": "(x, /, *, axis=0)",
    # searching
    "argmax": "(x, /, *, axis=None, keepdims=False)",
    "argmin": "(x, /, *, axis=None, keepdims=False)",
    "count_nonzero": "(x, /, *, axis=None, keepdims=False)",
    "nonzero": "(x, /)",
    "searchsorted": "(x1, x2, /, *, side='left', sorter=None)",
    "where": "(condition, x1, x2, /)",
    # sets
    "unique_all": "(x, /)",
    "unique_counts": "(x, /)",
    "unique_inverse": "(x, /)",
    "unique_values": "(x, /)",
    # sorting
    "argsort": "(x, /, *, axis=-1, descending=False, stable=True)",
    "sort": "(x, /, *, axis=-1, descending=False, stable=True)",
    # statistical
    "cumulative_prod": "(x, /, *, axis=None, dtype=None, "
                       "include_initial=False)",
    "cumulative_sum": "(x, /, *, axis=None, dtype=None, "
                      "include_initial=False)",
    "max": "(x, /, *, axis=None, keepdims=False)",
    "mean": "(x, /, *, axis=None, keepdims=False)",
    "min": "(x, /, *, axis=None, keepdims=False)",
    "prod": "(x, /, *, axis=None, dtype=None, keepdims=False)",
    "std": "(x, /, *, axis=None, correction=0.0, keepdims=False)",
    "sum": "(x, /, *, axis=None, dtype=None, keepdims=False)",
    "var": "(x, /, *, axis=None, correction=0.0, keepdims=False)",
    # utility
    "all": "(x, /, *, axis=None, keepdims=False)",
    "any": "(x, /, *, axis=None, keepdims=False)",
    "diff": "(x, /, *, axis=-1, n=1, prepend=None, append=None)",
}

LINALG_SIGNATURES = {
    "cholesky": "(x, /, *, upper=False)",
    "cross": "(x1, x2, /, *, axis=-1)",
    "det": "(x, /)",
    "diagonal": "(x, /, *, offset=0)",
    "eigh": "(x, /)",
    "eigvalsh": "(x, /)",
    "inv": "(x, /)",
    "matmul": "(x1, x2, /)",
    "matrix_norm": "(x, /, *, keepdims=False, ord='fro')",
    "matrix_power": "(x, n, /)",
    "matrix_rank": "(x, /, *, rtol=None)",
    "matrix_transpose": "(x, /)",
    "outer": "(x1, x2, /)",
    "pinv": "(x, /, *, rtol=None)",
    "qr": "(x, /, *, mode='reduced')",
    "slogdet": "(x, /)",
    "solve": "(x1, x2, /)",
    "svd": "(x, /, *, full_matrices=True)",
    "svdvals": "(x, /)",
    "tensordot": "(x1, x2, /, *, axes=2)",
    "trace": "(x, /, *, offset=0, dtype=None)",
    "vecdot": "(x1, x2, /, *, axis=-1)",
    "vector_norm": "(x, /, *, axis=None, keepdims=False, ord=2)",
}

DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
               "uint32", "uint64", "float32", "float64", "complex64",
               "complex128")


def _sig(f):
    return str(inspect.signature(f))


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature(name):
    assert _sig(getattr(xp, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(LINALG_SIGNATURES))
def test_linalg_signature(name):
    assert _sig(getattr(xp.linalg, name)) == LINALG_SIGNATURES[name]


def test_constants_and_dtypes():
    assert xp.e == math.e and xp.pi == math.pi
    assert xp.inf == math.inf and math.isnan(xp.nan)
    assert xp.newaxis is None
    for n in DTYPE_NAMES:
        assert getattr(xp, n) is getattr(tl, n)
    assert xp.__array_api_version__ == "2024.12"


# ---- the namespace, the info object, the Tensor side ------------------------

def test_array_namespace():
    t = tl.arange(3.0)
    assert t.__array_namespace__() is xp
    for v in ("2021.12", "2022.12", "2023.12", "2024.12", None):
        assert t.__array_namespace__(api_version=v) is xp
    for bad in ("2020.10", "2025.12", "latest"):
        with pytest.raises(ValueError, match="version"):
            t.__array_namespace__(api_version=bad)


def test_array_api_compat_resolves_to_the_namespace():
    compat = pytest.importorskip("array_api_compat")
    t = tl.ones(2, 3)
    assert compat.array_namespace(t) is xp
    assert compat.array_namespace(t, tl.zeros(1)) is xp
    assert compat.array_namespace(t, api_version="2023.12") is xp
    assert compat.device(t) == tl.device("cpu")
    assert compat.size(t) == 6


def test_info():
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True
    assert caps["data-dependent shapes"] is True
    assert caps["max dimensions"] == 64
    assert info.default_device() == tl.device("cpu")
    assert tl.device("cpu") in info.devices()
    assert info.default_dtypes() == {
        "real floating": tl.float32, "complex floating": tl.complex64,
        "integral": tl.int64, "indexing": tl.int64}
    assert info.default_dtypes(device=tl.device("cpu")) == \
        info.default_dtypes()
    every = info.dtypes()
    assert sorted(every) == sorted(DTYPE_NAMES)
    assert all(every[n] is getattr(tl, n) for n in DTYPE_NAMES)
    assert set(info.dtypes(kind="bool")) == {"bool"}
    assert set(info.dtypes(kind="signed integer")) == {
        "int8", "int16", "int32", "int64"}
    assert set(info.dtypes(kind="unsigned integer")) == {
        "uint8", "uint16", "uint32", "uint64"}
    assert set(info.dtypes(kind="integral")) == {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64"}
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind="complex floating")) == {
        "complex64", "complex128"}
    assert set(info.dtypes(kind="numeric")) == set(DTYPE_NAMES) - {"bool"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {
        "bool", "complex64", "complex128"}
    assert info.dtypes(device="cpu") == every
    with pytest.raises(ValueError):
        info.dtypes(kind="floating")


def test_array_attributes():
    t = tl.arange(6.0).reshape(2, 3)
    assert isinstance(t.shape, tuple) and t.shape == (2, 3)
    assert t.ndim == 2 and t.dtype == xp.float32
    assert t.device == tl.device("cpu")
    assert xp.asarray(t.mT).shape == (3, 2)
    assert t.to_device("cpu") is t
    assert t.to_device(tl.device("cpu")) is t
    with pytest.raises(ValueError):
        t.to_device("nowhere")
    with pytest.raises(TypeError):
        t.to_device("cpu", stream="s")
    # the array API's size is math.prod(shape); Tensor.size stays a method
    assert math.prod(t.shape) == 6 and t.size() == (2, 3)


# ---- data type functions ----------------------------------------------------

SIGNED = [xp.int8, xp.int16, xp.int32, xp.int64]
UNSIGNED = [xp.uint8, xp.uint16, xp.uint32, xp.uint64]
FLOATS = [xp.float32, xp.float64]
COMPLEX = [xp.complex64, xp.complex128]
ALL = [xp.bool] + SIGNED + UNSIGNED + FLOATS + COMPLEX


def _promotion_table():
    """The standard's promotion table: (a, b) -> result for the pairs it
    defines (within bool, within integers, within floating kinds)."""
    table = {(xp.bool, xp.bool): xp.bool}
    bits = {d: d.itemsize * 8 for d in SIGNED + UNSIGNED}
    for a in SIGNED + UNSIGNED:
        for b in SIGNED + UNSIGNED:
            sa, sb = a in SIGNED, b in SIGNED
            if sa == sb:
                table[a, b] = a if bits[a] >= bits[b] else b
                continue
            u, s = (b, a) if sa else (a, b)
            if u == xp.uint64:
                continue                       # not defined
            need = max(bits[s], 2 * bits[u])
            table[a, b] = {8: xp.int8, 16: xp.int16, 32: xp.int32,
                           64: xp.int64}[need]
    fl = {xp.float32: (32, False), xp.float64: (64, False),
          xp.complex64: (32, True), xp.complex128: (64, True)}
    for a in FLOATS + COMPLEX:
        for b in FLOATS + COMPLEX:
            prec = max(fl[a][0], fl[b][0])
            cplx = fl[a][1] or fl[b][1]
            table[a, b] = {(32, False): xp.float32, (64, False): xp.float64,
                           (32, True): xp.complex64,
                           (64, True): xp.complex128}[prec, cplx]
    return table


PROMOTION = _promotion_table()


def test_promotion_table_against_numpy():
    # NumPy 2 follows the standard for every pair the standard defines:
    # an independent check of the table written above.
    for (a, b), r in PROMOTION.items():
        assert np.result_type(np.dtype(a.name), np.dtype(b.name)) == \
            np.dtype(r.name), (a, b)


@pytest.mark.parametrize("a,b", sorted(PROMOTION, key=str))
def test_result_type_and_binary_ops_promote(a, b):
    r = PROMOTION[a, b]
    assert xp.result_type(a, b) == r
    x1, x2 = xp.ones((2,), dtype=a), xp.ones((2,), dtype=b)
    assert xp.result_type(x1, x2) == r
    # 0-d arrays count fully (PyTorch's operators would keep the dtype of
    # the dimensioned operand)
    s1, s2 = xp.ones((), dtype=a), xp.ones((), dtype=b)
    assert xp.result_type(x1, s2) == r and xp.result_type(s1, x2) == r
    fn = xp.logical_and if r == xp.bool else xp.multiply
    assert fn(x1, s2).dtype == r
    assert fn(s1, x2).dtype == r
    assert fn(x1, x2).dtype == r
    if r != xp.bool:
        assert xp.equal(x1, s2).dtype == xp.bool
        assert xp.where(xp.asarray([True, False]), x1, s2).dtype == r


def test_result_type_many_and_scalars():
    assert xp.result_type(xp.int8, xp.uint8, xp.int16) == xp.int16
    assert xp.result_type(xp.float32, xp.complex64, xp.float64) == \
        xp.complex128
    # Python scalars are weak: they take the array's dtype when they fit
    for dt in SIGNED + UNSIGNED:
        assert xp.result_type(dt, 1) == dt
        assert xp.result_type(xp.ones(3, dtype=dt), True) == dt
    for dt in FLOATS:
        assert xp.result_type(dt, 1) == dt and xp.result_type(dt, 1.5) == dt
    assert xp.result_type(xp.float32, 1j) == xp.complex64
    assert xp.result_type(xp.float64, 1j) == xp.complex128
    assert xp.result_type(xp.complex64, 2.0) == xp.complex64
    assert xp.result_type(xp.bool, False) == xp.bool
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)
    with pytest.raises(TypeError):
        xp.result_type("float32")


@pytest.mark.parametrize("dt", SIGNED + UNSIGNED + FLOATS)
def test_binary_functions_take_scalars(dt):
    x = xp.asarray([1, 2, 3], dtype=dt)
    for out in (xp.add(x, 2), xp.add(2, x), xp.multiply(3, x),
                xp.subtract(x, 1), xp.maximum(1, x)):
        assert out.dtype == dt
    assert np.array_equal(xp.subtract(10, x).numpy(),
                          np.array([9, 8, 7], dtype=dt.name))
    assert xp.less(1, x).tolist() == [False, True, True]
    assert xp.equal(x, 2).dtype == xp.bool
    if dt in FLOATS:
        assert np.allclose(xp.divide(1, x).numpy(), 1 / np.arange(1, 4))
        assert xp.atan2(1, x).dtype == dt
    assert xp.pow(x, 2).dtype == dt
    with pytest.raises(TypeError):
        xp.add(1, 2)


def test_can_cast():
    for a in ALL:
        for b in ALL:
            r = xp.can_cast(a, b)
            if a == b:
                assert r
            elif (a, b) in PROMOTION and PROMOTION[a, b] == b:
                assert r, (a, b)        # promotes to b: a safe cast
            elif a in FLOATS + COMPLEX and b in SIGNED + UNSIGNED:
                assert not r, (a, b)
            elif a in COMPLEX and b in FLOATS:
                assert not r, (a, b)
            elif b == xp.bool:
                assert not r, (a, b)
    assert xp.can_cast(xp.ones(2, dtype=xp.int8), xp.int16)
    assert not xp.can_cast(xp.int64, xp.int8)
    assert not xp.can_cast(xp.float64, xp.float32)
    assert not xp.can_cast(xp.float64, xp.complex64)
    assert xp.can_cast(xp.float32, xp.complex128)
    with pytest.raises(TypeError):
        xp.can_cast("int8", xp.int16)


def test_isdtype():
    kinds = {"bool": [xp.bool], "signed integer": SIGNED,
             "unsigned integer": UNSIGNED, "integral": SIGNED + UNSIGNED,
             "real floating": FLOATS, "complex floating": COMPLEX,
             "numeric": SIGNED + UNSIGNED + FLOATS + COMPLEX}
    for kind, members in kinds.items():
        for dt in ALL:
            assert xp.isdtype(dt, kind) == (dt in members), (dt, kind)
    assert xp.isdtype(xp.float32, xp.float32)
    assert not xp.isdtype(xp.float32, xp.float64)
    assert xp.isdtype(xp.int8, ("real floating", xp.int8))
    assert xp.isdtype(tl.float16, "real floating")
    with pytest.raises(ValueError):
        xp.isdtype(xp.int8, "integer")
    with pytest.raises(TypeError):
        xp.isdtype("int8", "integral")


def test_finfo_iinfo_against_numpy():
    for dt in FLOATS + [tl.float16]:
        f, n = xp.finfo(dt), np.finfo(dt.name)
        assert f.bits == n.bits and f.eps == float(n.eps)
        assert f.max == float(n.max) and f.min == float(n.min)
        assert f.smallest_normal == float(n.smallest_normal)
        assert f.dtype == dt
    assert xp.finfo(xp.complex64).dtype == xp.float32
    assert xp.finfo(xp.complex128).bits == 64
    assert xp.finfo(xp.ones(2)).dtype == xp.float32
    bf = xp.finfo(tl.bfloat16)
    assert bf.bits == 16 and bf.eps == 2.0 ** -7
    assert bf.smallest_normal == xp.finfo(xp.float32).smallest_normal
    for dt in SIGNED + UNSIGNED:
        i, n = xp.iinfo(dt), np.iinfo(dt.name)
        assert (i.bits, i.min, i.max, i.dtype) == (n.bits, n.min, n.max, dt)
    assert xp.iinfo(xp.zeros(1, dtype=xp.uint8)).max == 255
    with pytest.raises(TypeError):
        xp.finfo(xp.int32)
    with pytest.raises(TypeError):
        xp.iinfo(xp.float32)


def test_astype_copy():
    x = xp.asarray([1.5, -2.5, 3.0])
    y = xp.astype(x, xp.float32)
    assert y is not x and not tl.shares_memory(x, y)
    assert xp.astype(x, xp.float32, copy=False) is x
    z = xp.astype(x, xp.int32, copy=False)         # must convert: copies
    assert z.dtype == xp.int32 and z.tolist() == [1, -2, 3]
    assert xp.astype(x, xp.complex64).dtype == xp.complex64
    assert xp.astype(x, xp.float64, device="cpu").dtype == xp.float64
    assert xp.astype(x, xp.float32, copy=False, device="cpu") is x


def test_broadcast_functions():
    a, b = xp.ones((3, 1)), xp.zeros((1, 4), dtype=xp.int8)
    ra, rb = xp.broadcast_arrays(a, b)
    assert ra.shape == rb.shape == (3, 4) and rb.dtype == xp.int8
    assert xp.broadcast_shapes((3, 1), (1, 4), (4,)) == (3, 4)
    assert type(xp.broadcast_shapes((2,), ())) is tuple
    assert xp.broadcast_to(a, (2, 3, 5)).shape == (2, 3, 5)
    with pytest.raises(ValueError):
        xp.broadcast_to(a, (2, 2))


# ---- special cases of the elementwise functions -----------------------------

PZ, NZ = 0.0, -0.0
FIN = [1.0, 2.5, -1.0, -2.5, 0.5, -0.5]

# (function, argument, expected): the standard's special cases for
# real-valued floating-point operands.
UNARY_CASES = [
    ("abs", NAN, NAN), ("abs", NZ, PZ), ("abs", -INF, INF),
    ("acos", NAN, NAN), ("acos", 1.5, NAN), ("acos", -1.5, NAN),
    ("acos", 1.0, PZ),
    ("acosh", NAN, NAN), ("acosh", 0.5, NAN), ("acosh", 1.0, PZ),
    ("acosh", INF, INF),
    ("asin", NAN, NAN), ("asin", 1.5, NAN), ("asin", -1.5, NAN),
    ("asin", PZ, PZ), ("asin", NZ, NZ),
    ("asinh", NAN, NAN), ("asinh", PZ, PZ), ("asinh", NZ, NZ),
    ("asinh", INF, INF), ("asinh", -INF, -INF),
    ("atan", NAN, NAN), ("atan", PZ, PZ), ("atan", NZ, NZ),
    ("atan", INF, math.pi / 2), ("atan", -INF, -math.pi / 2),
    ("atanh", NAN, NAN), ("atanh", -1.5, NAN), ("atanh", 1.5, NAN),
    ("atanh", -1.0, -INF), ("atanh", 1.0, INF), ("atanh", PZ, PZ),
    ("atanh", NZ, NZ),
    ("ceil", INF, INF), ("ceil", -INF, -INF), ("ceil", PZ, PZ),
    ("ceil", NZ, NZ), ("ceil", NAN, NAN), ("ceil", -0.5, NZ),
    ("cos", NAN, NAN), ("cos", PZ, 1.0), ("cos", NZ, 1.0),
    ("cos", INF, NAN), ("cos", -INF, NAN),
    ("cosh", NAN, NAN), ("cosh", PZ, 1.0), ("cosh", NZ, 1.0),
    ("cosh", INF, INF), ("cosh", -INF, INF),
    ("exp", NAN, NAN), ("exp", PZ, 1.0), ("exp", NZ, 1.0),
    ("exp", INF, INF), ("exp", -INF, PZ),
    ("expm1", NAN, NAN), ("expm1", PZ, PZ), ("expm1", NZ, NZ),
    ("expm1", INF, INF), ("expm1", -INF, -1.0),
    ("floor", INF, INF), ("floor", -INF, -INF), ("floor", PZ, PZ),
    ("floor", NZ, NZ), ("floor", NAN, NAN),
    ("isfinite", INF, False), ("isfinite", -INF, False),
    ("isfinite", NAN, False), ("isfinite", 1.0, True),
    ("isinf", INF, True), ("isinf", -INF, True), ("isinf", NAN, False),
    ("isinf", 1.0, False),
    ("isnan", NAN, True), ("isnan", INF, False), ("isnan", 0.0, False),
    ("log", NAN, NAN), ("log", -1.0, NAN), ("log", PZ, -INF),
    ("log", NZ, -INF), ("log", 1.0, PZ), ("log", INF, INF),
    ("log1p", NAN, NAN), ("log1p", -1.5, NAN), ("log1p", -1.0, -INF),
    ("log1p", PZ, PZ), ("log1p", NZ, NZ), ("log1p", INF, INF),
    ("log2", NAN, NAN), ("log2", -1.0, NAN), ("log2", PZ, -INF),
    ("log2", NZ, -INF), ("log2", 1.0, PZ), ("log2", INF, INF),
    ("log10", NAN, NAN), ("log10", -1.0, NAN), ("log10", PZ, -INF),
    ("log10", NZ, -INF), ("log10", 1.0, PZ), ("log10", INF, INF),
    ("negative", NZ, PZ), ("negative", PZ, NZ), ("negative", INF, -INF),
    ("positive", NZ, NZ), ("positive", NAN, NAN),
    ("reciprocal", PZ, INF), ("reciprocal", NZ, -INF),
    ("reciprocal", INF, PZ), ("reciprocal", -INF, NZ),
    ("reciprocal", NAN, NAN),
    ("round", INF, INF), ("round", -INF, -INF), ("round", PZ, PZ),
    ("round", NZ, NZ), ("round", NAN, NAN), ("round", 0.5, PZ),
    ("round", 1.5, 2.0), ("round", 2.5, 2.0), ("round", -0.5, NZ),
    ("round", -2.5, -2.0),
    ("sign", -2.5, -1.0), ("sign", 2.5, 1.0), ("sign", NAN, NAN),
    ("sign", INF, 1.0), ("sign", -INF, -1.0),
    ("signbit", PZ, False), ("signbit", NZ, True), ("signbit", INF, False),
    ("signbit", -INF, True), ("signbit", 1.0, False),
    ("signbit", -1.0, True), ("signbit", NAN, False),
    ("signbit", -NAN, True),
    ("sin", NAN, NAN), ("sin", PZ, PZ), ("sin", NZ, NZ),
    ("sin", INF, NAN), ("sin", -INF, NAN),
    ("sinh", NAN, NAN), ("sinh", PZ, PZ), ("sinh", NZ, NZ),
    ("sinh", INF, INF), ("sinh", -INF, -INF),
    ("square", NAN, NAN), ("square", -INF, INF), ("square", NZ, PZ),
    ("sqrt", NAN, NAN), ("sqrt", -1.0, NAN), ("sqrt", PZ, PZ),
    ("sqrt", NZ, NZ), ("sqrt", INF, INF),
    ("tan", NAN, NAN), ("tan", PZ, PZ), ("tan", NZ, NZ),
    ("tan", INF, NAN), ("tan", -INF, NAN),
    ("tanh", NAN, NAN), ("tanh", PZ, PZ), ("tanh", NZ, NZ),
    ("tanh", INF, 1.0), ("tanh", -INF, -1.0),
    ("trunc", INF, INF), ("trunc", -INF, -INF), ("trunc", PZ, PZ),
    ("trunc", NZ, NZ), ("trunc", NAN, NAN), ("trunc", -0.5, NZ),
]

# sign(+-0) is +-0 or 0 by the standard: checked with a tolerant compare.
UNARY_ZERO_EITHER = [("sign", PZ), ("sign", NZ)]

# (function, x1, x2, expected); None for x1/x2 stands for "each of FIN".
BINARY_CASES = [
    ("add", NAN, 1.0, NAN), ("add", 1.0, NAN, NAN), ("add", INF, -INF, NAN),
    ("add", -INF, INF, NAN), ("add", INF, INF, INF),
    ("add", -INF, -INF, -INF), ("add", INF, 1.0, INF),
    ("add", NZ, NZ, NZ), ("add", NZ, PZ, PZ), ("add", PZ, NZ, PZ),
    ("add", PZ, PZ, PZ), ("add", 2.5, -2.5, PZ),
    ("atan2", NAN, 1.0, NAN), ("atan2", 1.0, NAN, NAN),
    ("atan2", 1.0, PZ, math.pi / 2), ("atan2", 1.0, NZ, math.pi / 2),
    ("atan2", PZ, 1.0, PZ), ("atan2", PZ, PZ, PZ),
    ("atan2", PZ, NZ, math.pi), ("atan2", PZ, -1.0, math.pi),
    ("atan2", NZ, 1.0, NZ), ("atan2", NZ, PZ, NZ),
    ("atan2", NZ, NZ, -math.pi), ("atan2", NZ, -1.0, -math.pi),
    ("atan2", -1.0, PZ, -math.pi / 2), ("atan2", -1.0, NZ, -math.pi / 2),
    ("atan2", 1.0, INF, PZ), ("atan2", 1.0, -INF, math.pi),
    ("atan2", -1.0, INF, NZ), ("atan2", -1.0, -INF, -math.pi),
    ("atan2", INF, 1.0, math.pi / 2), ("atan2", -INF, 1.0, -math.pi / 2),
    ("atan2", INF, INF, math.pi / 4), ("atan2", INF, -INF, 3 * math.pi / 4),
    ("atan2", -INF, INF, -math.pi / 4),
    ("atan2", -INF, -INF, -3 * math.pi / 4),
    ("copysign", 2.5, NZ, -2.5), ("copysign", -2.5, PZ, 2.5),
    ("copysign", INF, -1.0, -INF), ("copysign", NAN, 1.0, NAN),
    ("copysign", PZ, -INF, NZ),
    ("divide", NAN, 1.0, NAN), ("divide", INF, INF, NAN),
    ("divide", PZ, PZ, NAN), ("divide", NZ, PZ, NAN),
    ("divide", PZ, 1.0, PZ), ("divide", NZ, 1.0, NZ),
    ("divide", PZ, -1.0, NZ), ("divide", NZ, -1.0, PZ),
    ("divide", 1.0, PZ, INF), ("divide", 1.0, NZ, -INF),
    ("divide", -1.0, PZ, -INF), ("divide", -1.0, NZ, INF),
    ("divide", INF, 1.0, INF), ("divide", INF, -1.0, -INF),
    ("divide", -INF, 1.0, -INF), ("divide", -INF, -1.0, INF),
    ("divide", 1.0, INF, PZ), ("divide", 1.0, -INF, NZ),
    ("divide", -1.0, INF, NZ), ("divide", -1.0, -INF, PZ),
    ("floor_divide", NAN, 1.0, NAN), ("floor_divide", INF, -INF, NAN),
    ("floor_divide", PZ, NZ, NAN), ("floor_divide", PZ, 1.0, PZ),
    ("floor_divide", NZ, 1.0, NZ), ("floor_divide", PZ, -1.0, NZ),
    ("floor_divide", NZ, -1.0, PZ), ("floor_divide", 1.0, PZ, INF),
    ("floor_divide", 1.0, NZ, -INF), ("floor_divide", -1.0, PZ, -INF),
    ("floor_divide", -1.0, NZ, INF), ("floor_divide", 1.0, INF, PZ),
    ("floor_divide", -1.0, -INF, PZ), ("floor_divide", 2.5, 1.0, 2.0),
    ("floor_divide", -2.5, 1.0, -3.0),
    ("hypot", INF, NAN, INF), ("hypot", NAN, -INF, INF),
    ("hypot", PZ, -2.5, 2.5), ("hypot", -2.5, NZ, 2.5),
    ("hypot", 1.0, NAN, NAN), ("hypot", NAN, NAN, NAN),
    ("logaddexp", NAN, 1.0, NAN), ("logaddexp", 1.0, NAN, NAN),
    ("logaddexp", INF, 1.0, INF), ("logaddexp", 1.0, INF, INF),
    ("logaddexp", -INF, -INF, -INF),
    ("maximum", NAN, 1.0, NAN), ("maximum", 1.0, NAN, NAN),
    ("minimum", NAN, 1.0, NAN), ("minimum", 1.0, NAN, NAN),
    ("multiply", NAN, 1.0, NAN), ("multiply", INF, PZ, NAN),
    ("multiply", NZ, -INF, NAN), ("multiply", -1.0, PZ, NZ),
    ("multiply", INF, -2.5, -INF), ("multiply", -INF, -INF, INF),
    ("nextafter", NAN, 1.0, NAN), ("nextafter", 1.0, NAN, NAN),
    ("nextafter", NZ, PZ, PZ), ("nextafter", PZ, NZ, NZ),
    ("pow", 2.5, NAN, NAN), ("pow", NAN, PZ, 1.0), ("pow", NAN, NZ, 1.0),
    ("pow", NAN, 1.0, NAN), ("pow", 1.0, NAN, 1.0), ("pow", 1.0, INF, 1.0),
    ("pow", 2.5, INF, INF), ("pow", 2.5, -INF, PZ),
    ("pow", -1.0, INF, 1.0), ("pow", -1.0, -INF, 1.0),
    ("pow", 0.5, INF, PZ), ("pow", 0.5, -INF, INF),
    ("pow", INF, 1.0, INF), ("pow", INF, -1.0, PZ),
    ("pow", -INF, 3.0, -INF), ("pow", -INF, 2.0, INF),
    ("pow", -INF, -3.0, NZ), ("pow", -INF, -2.0, PZ),
    ("pow", PZ, 1.0, PZ), ("pow", PZ, -1.0, INF),
    ("pow", NZ, 3.0, NZ), ("pow", NZ, 2.0, PZ),
    ("pow", NZ, -3.0, -INF), ("pow", NZ, -2.0, INF),
    ("pow", -2.5, 0.5, NAN),
    ("remainder", NAN, 1.0, NAN), ("remainder", 1.0, NAN, NAN),
    ("remainder", INF, 1.0, NAN), ("remainder", 1.0, PZ, NAN),
    ("remainder", PZ, 1.0, PZ), ("remainder", NZ, 1.0, PZ),
    ("remainder", PZ, -1.0, NZ), ("remainder", NZ, -1.0, NZ),
    ("remainder", 2.5, INF, 2.5), ("remainder", -2.5, -INF, -2.5),
    ("remainder", 2.5, -1.0, -0.5), ("remainder", -2.5, 1.0, 0.5),
    ("subtract", INF, INF, NAN), ("subtract", -INF, -INF, NAN),
    ("subtract", NZ, PZ, NZ), ("subtract", PZ, PZ, PZ),
    ("subtract", INF, 1.0, INF),
]

# Cases where the standard lets a library follow Python instead: either
# answer passes.
BINARY_EITHER = [
    ("floor_divide", INF, 2.5, (INF, NAN)),
    ("floor_divide", -INF, 2.5, (-INF, NAN)),
    ("floor_divide", 1.0, -INF, (NZ, -1.0)),
    ("floor_divide", -1.0, INF, (NZ, -1.0)),
    ("remainder", 2.5, -INF, (-INF, 2.5, NAN)),
    ("remainder", -2.5, INF, (INF, -2.5, NAN)),
]


def _same(got, want):
    if isinstance(want, bool):
        return got is want or got == want
    if math.isnan(want):
        return math.isnan(got)
    if got != want and not (math.isfinite(want) and
                            math.isclose(got, want, rel_tol=1e-6)):
        return False
    if want == 0:
        return math.copysign(1.0, got) == math.copysign(1.0, want)
    return True


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name,x,want", UNARY_CASES,
                         ids=lambda v: repr(v))
def test_unary_special_case(dt, name, x, want):
    out = getattr(xp, name)(xp.asarray([x, x], dtype=getattr(xp, dt)))
    got = out.tolist()[1]
    assert _same(got, want), (name, x, got, want)


@pytest.mark.parametrize("name,x", UNARY_ZERO_EITHER)
def test_sign_of_zero(name, x):
    got = getattr(xp, name)(xp.asarray([x])).tolist()[0]
    assert got == 0.0


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("name,a,b,want", BINARY_CASES,
                         ids=lambda v: repr(v))
def test_binary_special_case(dt, name, a, b, want):
    d = getattr(xp, dt)
    out = getattr(xp, name)(xp.asarray([a], dtype=d), xp.asarray([b],
                                                                 dtype=d))
    assert out.dtype == d
    got = out.tolist()[0]
    assert _same(got, want), (name, a, b, got, want)


@pytest.mark.parametrize("name,a,b,wants", BINARY_EITHER)
def test_binary_special_case_either(name, a, b, wants):
    got = getattr(xp, name)(xp.asarray([a], dtype=xp.float64),
                            xp.asarray([b], dtype=xp.float64)).tolist()[0]
    assert any(_same(got, w) for w in wants), (name, a, b, got)


def test_complex_special_cases():
    c = xp.asarray([complex(INF, NAN), complex(NAN, -INF), complex(0, 0),
                    complex(-0.0, 3.0), complex(3.0, 4.0)],
                   dtype=xp.complex128)
    assert xp.abs(c).tolist()[:4] == [INF, INF, 0.0, 3.0]
    assert xp.abs(c).dtype == xp.float64
    assert xp.isinf(c).tolist() == [True, True, False, False, False]
    assert xp.isnan(c).tolist() == [True, True, False, False, False]
    assert xp.isfinite(c).tolist() == [False, False, True, True, True]
    s = xp.sign(c).tolist()
    assert s[2] == 0 and s[4] == pytest.approx(complex(0.6, 0.8))
    assert xp.round(xp.asarray([2.5 - 1.5j])).tolist() == [2 - 2j]
    assert xp.real(c).dtype == xp.imag(c).dtype == xp.float64
    assert xp.conj(xp.asarray([1 + 2j])).tolist() == [1 - 2j]
    e = xp.exp(xp.asarray([complex(0.0, 0.0), complex(-0.0, 0.0)],
                          dtype=xp.complex128)).tolist()
    assert e == [1 + 0j, 1 + 0j]


def test_integer_elementwise_keep_dtype():
    for dt in SIGNED + UNSIGNED:
        x = xp.asarray([1, 2, 3], dtype=dt)
        for f in (xp.ceil, xp.floor, xp.trunc, xp.round, xp.abs,
                  xp.positive, xp.square):
            assert f(x).dtype == dt, (f, dt)
            assert f(x).tolist() == [f_(v) for v in [1, 2, 3]
                                     for f_ in [_INT_REF[f.__name__]]]
    # real/imag/conj of real input
    x = xp.asarray([1.5, -2.0])
    assert xp.real(x) is x and xp.imag(x).tolist() == [0.0, 0.0]
    assert xp.conj(x).tolist() == [1.5, -2.0]


_INT_REF = {"ceil": lambda v: v, "floor": lambda v: v, "trunc": lambda v: v,
            "round": lambda v: v, "abs": abs, "positive": lambda v: v,
            "square": lambda v: v * v}


# ---- the standard's semantics where the top level differs -------------------

def _layouts(shape, dtype="float64"):
    """The same values as a contiguous, transposed, flipped and sliced
    tensor (each checked against the NumPy array)."""
    base = RNG.standard_normal(shape).astype(dtype)
    out = [(tl.tensor(base), base)]
    if len(shape) >= 2:
        t = tl.tensor(np.ascontiguousarray(base.swapaxes(-1, -2)))
        out.append((t.transpose(-1, -2), base))
    if len(shape) >= 1 and shape[0] > 0:
        out.append((tl.tensor(base[::-1].copy()).flip(0), base))
        big = np.concatenate([base, base], axis=0)
        out.append((tl.tensor(big)[::2][: shape[0]], big[::2][: shape[0]]))
    return out


SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (1, 4, 1)]


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _axes_for(shape):
    n = len(shape)
    out = [None]
    if n:
        out += [0, -1, tuple(range(n))]
    if n >= 2:
        out += [(0, n - 1), (-1, 0)]
    return out


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
@pytest.mark.parametrize("shape", SHAPES)
def test_std_var_correction(shape):
    for t, a in _layouts(shape):
        for axis in _axes_for(shape):
            for corr in (0.0, 1, 0.5):
                for keep in (False, True):
                    for fn, nf in ((xp.std, np.std), (xp.var, np.var)):
                        with np.errstate(all="ignore"):
                            want = nf(a, axis=axis, ddof=corr,
                                      keepdims=keep)
                        got = fn(t, axis=axis, correction=corr,
                                 keepdims=keep)
                        assert got.shape == np.shape(want)
                        np.testing.assert_allclose(got.numpy(), want,
                                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
def test_max_min_tuple_axis(shape):
    for t, a in _layouts(shape):
        for axis in _axes_for(shape):
            for keep in (False, True):
                for fn, nf in ((xp.max, np.max), (xp.min, np.min)):
                    got = fn(t, axis=axis, keepdims=keep)
                    assert isinstance(got, tl.Tensor)
                    np.testing.assert_array_equal(
                        got.numpy(), nf(a, axis=axis, keepdims=keep))


def test_max_propagates_nan_and_empty_axis():
    x = xp.asarray([[1.0, NAN], [2.0, 3.0]])
    assert math.isnan(xp.max(x).item())
    assert xp.max(x, axis=0).tolist()[0] == 2.0
    assert xp.max(x, axis=()).shape == (2, 2)


@pytest.mark.parametrize("shape", SHAPES)
def test_sum_prod_mean_dtypes_and_values(shape):
    for t, a in _layouts(shape):
        for axis in _axes_for(shape) + [()]:
            np.testing.assert_allclose(
                xp.sum(t, axis=axis).numpy(), np.sum(a, axis=axis),
                rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(
                xp.prod(t, axis=axis, keepdims=True).numpy(),
                np.prod(a, axis=axis, keepdims=True), rtol=1e-12)
            if 0 not in shape:
                np.testing.assert_allclose(
                    xp.mean(t, axis=axis).numpy(), np.mean(a, axis=axis),
                    rtol=1e-12)
    # default accumulation dtypes
    for dt in SIGNED:
        assert xp.sum(xp.ones(3, dtype=dt)).dtype == xp.int64
    for dt in UNSIGNED:
        x = xp.asarray([250, 10], dtype=dt)
        assert xp.sum(x).dtype == xp.uint64 and xp.sum(x).item() == 260
        assert xp.prod(x).dtype == xp.uint64
    assert xp.sum(xp.asarray([True, True])).dtype == xp.int64
    assert xp.sum(xp.ones(3, dtype=xp.int8), dtype=xp.int8).dtype == xp.int8
    assert xp.sum(xp.ones(3), dtype=xp.float64).dtype == xp.float64
    assert xp.sum(xp.ones(3, dtype=xp.complex64)).dtype == xp.complex64


def test_sort_argsort_stable_descending():
    for shape in [(0,), (7,), (4, 9), (2, 3, 5)]:
        ints = RNG.integers(0, 4, size=shape)
        for t, a in ((tl.tensor(ints), ints),
                     (tl.tensor(ints.astype("float32")),
                      ints.astype("float32"))):
            for axis in range(-len(shape), len(shape)):
                want = np.argsort(a, axis=axis, kind="stable")
                got = xp.argsort(t, axis=axis)
                assert isinstance(got, tl.Tensor) and got.dtype == xp.int64
                np.testing.assert_array_equal(got.numpy(), want)
                # descending and stable: equal elements keep their order
                want_d = np.argsort(-a, axis=axis, kind="stable")
                np.testing.assert_array_equal(
                    xp.argsort(t, axis=axis, descending=True).numpy(),
                    want_d)
                np.testing.assert_array_equal(
                    xp.sort(t, axis=axis).numpy(), np.sort(a, axis=axis))
                np.testing.assert_array_equal(
                    xp.sort(t, axis=axis, descending=True).numpy(),
                    -np.sort(-a, axis=axis))
                assert xp.sort(t, axis=axis, stable=False).shape == shape
    assert xp.sort(xp.asarray(3.0)).item() == 3.0


def test_unique_functions():
    a = np.array([[3.0, 1.0, NAN], [1.0, 2.0, NAN], [3.0, 3.0, 0.0]])
    t = tl.tensor(a).mT            # non-contiguous
    at = a.T
    vals = xp.unique_values(t)
    want = np.unique(at.reshape(-1), equal_nan=False)
    np.testing.assert_array_equal(vals.numpy(), want)   # NaNs distinct
    r = xp.unique_all(t)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    w = np.unique(at.reshape(-1), return_index=True, return_inverse=True,
                  return_counts=True, equal_nan=False)
    np.testing.assert_array_equal(r.values.numpy(), w[0])
    np.testing.assert_array_equal(r.indices.numpy(), w[1])
    assert r.inverse_indices.shape == t.shape
    np.testing.assert_array_equal(r.inverse_indices.numpy().reshape(-1),
                                  w[2].reshape(-1))
    np.testing.assert_array_equal(r.counts.numpy(), w[3])
    c = xp.unique_counts(t)
    assert c._fields == ("values", "counts")
    np.testing.assert_array_equal(c.counts.numpy(), w[3])
    i = xp.unique_inverse(t)
    assert i._fields == ("values", "inverse_indices")
    assert i.inverse_indices.shape == t.shape
    # the inverse rebuilds x (NaN positions aside)
    rebuilt = xp.take(i.values, xp.reshape(i.inverse_indices, (-1,)))
    np.testing.assert_array_equal(rebuilt.numpy(), at.reshape(-1))
    empty = xp.unique_all(xp.zeros((0, 3)))
    assert empty.values.shape == (0,) and empty.inverse_indices.shape == \
        (0, 3)
    ints = xp.asarray([5, 5, 2, 7, 2], dtype=xp.int16)
    assert xp.unique_values(ints).dtype == xp.int16
    assert xp.unique_all(ints).indices.tolist() == [2, 0, 3]


def test_concat_stack_permute_transpose():
    a = tl.tensor(RNG.standard_normal((2, 3)))
    b = tl.tensor(RNG.integers(0, 9, (4, 3)), dtype=tl.int8)
    out = xp.concat([a, b], axis=0)
    assert out.dtype == xp.float64 and out.shape == (6, 3)
    flat = xp.concat((a, b.mT), axis=None)
    np.testing.assert_array_equal(
        flat.numpy(), np.concatenate([a.numpy().ravel(),
                                      b.numpy().T.ravel()]))
    assert xp.concat([a, a], axis=-1).shape == (2, 6)
    s = xp.stack([a, a.flip(0)], axis=1)
    np.testing.assert_array_equal(
        s.numpy(), np.stack([a.numpy(), a.numpy()[::-1]], axis=1))
    assert xp.stack([xp.ones(2, dtype=xp.int8), xp.ones(2)]).dtype == \
        xp.float32
    x = tl.tensor(RNG.standard_normal((2, 3, 4)))
    p = xp.permute_dims(x, (2, 0, 1))
    np.testing.assert_array_equal(p.numpy(),
                                  x.numpy().transpose(2, 0, 1))
    assert tl.shares_memory(p, x)
    m = xp.matrix_transpose(x)
    assert m.shape == (2, 4, 3) and tl.shares_memory(m, x)
    assert xp.linalg.matrix_transpose(x).shape == (2, 4, 3)
    with pytest.raises(ValueError):
        xp.matrix_transpose(xp.ones(3))


def test_manipulation_functions():
    x = tl.tensor(RNG.standard_normal((2, 1, 3)))
    a = x.numpy()
    assert xp.expand_dims(x, axis=0).shape == (1, 2, 1, 3)
    assert xp.expand_dims(x, axis=-1).shape == (2, 1, 3, 1)
    assert xp.expand_dims(x, axis=3).shape == (2, 1, 3, 1)
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=4)
    assert xp.expand_dims(x, axis=(0, -1)).shape == (1, 2, 1, 3, 1)
    assert xp.expand_dims(x, axis=(1, 2)).shape == (2, 1, 1, 1, 3)
    assert tl.shares_memory(xp.expand_dims(x, axis=(0,)), x)
    with pytest.raises(ValueError):
        xp.expand_dims(x, axis=(0, -5))
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=(5,))
    np.testing.assert_array_equal(xp.flip(x).numpy(), np.flip(a))
    np.testing.assert_array_equal(xp.flip(x, axis=(0, 2)).numpy(),
                                  np.flip(a, axis=(0, 2)))
    np.testing.assert_array_equal(xp.flip(x, axis=-1).numpy(),
                                  np.flip(a, axis=-1))
    np.testing.assert_array_equal(xp.moveaxis(x, 0, -1).numpy(),
                                  np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(xp.moveaxis(x, (0, 1), (2, 0)).numpy(),
                                  np.moveaxis(a, (0, 1), (2, 0)))
    np.testing.assert_array_equal(xp.repeat(x, 2, axis=2).numpy(),
                                  np.repeat(a, 2, axis=2))
    np.testing.assert_array_equal(xp.repeat(x, 2).numpy(), np.repeat(a, 2))
    reps = xp.asarray([1, 0, 2])
    np.testing.assert_array_equal(xp.repeat(x, reps, axis=2).numpy(),
                                  np.repeat(a, [1, 0, 2], axis=2))
    np.testing.assert_array_equal(xp.roll(x, 1).numpy(), np.roll(a, 1))
    np.testing.assert_array_equal(xp.roll(x, (1, -1), axis=(0, 2)).numpy(),
                                  np.roll(a, (1, -1), axis=(0, 2)))
    assert xp.squeeze(x, axis=1).shape == (2, 3)
    assert xp.squeeze(x, axis=(1,)).shape == (2, 3)
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)
    np.testing.assert_array_equal(xp.tile(x, (2, 1, 2)).numpy(),
                                  np.tile(a, (2, 1, 2)))
    u = xp.unstack(x, axis=2)
    assert isinstance(u, tuple) and len(u) == 3 and u[0].shape == (2, 1)
    np.testing.assert_array_equal(u[2].numpy(), a[:, :, 2])
    g = xp.meshgrid(xp.arange(2), xp.arange(3))
    assert isinstance(g, tuple) and g[0].shape == (3, 2)
    assert xp.meshgrid(xp.arange(2), xp.arange(3), indexing="ij")[0].shape \
        == (2, 3)


def test_reshape_copy():
    x = tl.arange(12.0).reshape(3, 4)
    v = xp.reshape(x, (4, 3))
    assert tl.shares_memory(v, x)
    c = xp.reshape(x, (4, 3), copy=True)
    assert not tl.shares_memory(c, x)
    np.testing.assert_array_equal(c.numpy(), x.numpy().reshape(4, 3))
    assert tl.shares_memory(xp.reshape(x, (-1,), copy=False), x)
    with pytest.raises(ValueError, match="copy"):
        xp.reshape(x.mT, (12,), copy=False)
    assert xp.reshape(x.mT, (12,)).shape == (12,)
    with pytest.raises(ValueError):
        xp.reshape(x, (5, 3))
    assert xp.reshape(x, [2, 6]).shape == (2, 6)


def test_take_and_take_along_axis():
    x = tl.tensor(RNG.standard_normal((3, 5)))
    a = x.numpy()
    idx = xp.asarray([4, 0, -1, 2])
    np.testing.assert_array_equal(xp.take(x, idx, axis=1).numpy(),
                                  np.take(a, [4, 0, -1, 2], axis=1))
    np.testing.assert_array_equal(
        xp.take(x.mT, xp.asarray([1, 1]), axis=0).numpy(),
        np.take(a.T, [1, 1], axis=0))
    np.testing.assert_array_equal(xp.take(x[0], idx).numpy(),
                                  np.take(a[0], [4, 0, -1, 2]))
    with pytest.raises(ValueError):
        xp.take(x, idx)
    with pytest.raises(IndexError):
        xp.take(x, xp.asarray([5]), axis=1)
    order = xp.argsort(x, axis=1)
    np.testing.assert_array_equal(
        xp.take_along_axis(x, order, axis=1).numpy(), np.sort(a, axis=1))
    np.testing.assert_array_equal(
        xp.take_along_axis(x, xp.asarray([[0], [-1], [2]]), axis=-1).numpy(),
        np.take_along_axis(a, np.array([[0], [-1], [2]]), axis=-1))
    with pytest.raises(IndexError):
        xp.take_along_axis(x, order, axis=2)


def test_searchsorted():
    s = xp.asarray([1.0, 2.0, 2.0, 3.0, 5.0])
    v = xp.asarray([[0.0, 2.0], [4.0, 9.0]])
    for side in ("left", "right"):
        got = xp.searchsorted(s, v, side=side)
        assert got.dtype == xp.int64
        np.testing.assert_array_equal(
            got.numpy(), np.searchsorted(s.numpy(), v.numpy(), side=side))
    assert xp.searchsorted(s, 2.0).item() == 1
    assert xp.searchsorted(s, 2, side="right").item() == 3
    unsorted = xp.asarray([3.0, 1.0, 2.0])
    sorter = xp.argsort(unsorted)
    assert xp.searchsorted(unsorted, xp.asarray([2.5]),
                           sorter=sorter).tolist() == [2]
    with pytest.raises(ValueError):
        xp.searchsorted(s, v, side="middle")
    with pytest.raises(ValueError):
        xp.searchsorted(xp.ones((2, 2)), v)


@pytest.mark.parametrize("fn,nf,init", [
    ("cumulative_sum", np.cumulative_sum, 0),
    ("cumulative_prod", np.cumulative_prod, 1)])
def test_cumulative(fn, nf, init):
    f = getattr(xp, fn)
    for t, a in _layouts((3, 4)):
        for axis in (0, 1, -1):
            for inc in (False, True):
                got = f(t, axis=axis, include_initial=inc)
                want = nf(a, axis=axis, include_initial=inc)
                assert got.shape == want.shape
                np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    one = xp.asarray([1, 2, 3], dtype=xp.int8)
    got = f(one, include_initial=True)
    assert got.dtype == xp.int64 and got.tolist()[0] == init
    assert f(xp.asarray([1, 2], dtype=xp.uint8)).dtype == xp.uint64
    assert f(one, dtype=xp.float32).dtype == xp.float32
    assert f(xp.zeros((0,)), include_initial=True).tolist() == [init]
    with pytest.raises(ValueError):
        f(xp.ones((2, 2)))


def test_diff_count_nonzero_clip():
    for t, a in _layouts((4, 5)):
        for axis in (0, -1):
            for n in (1, 2):
                np.testing.assert_allclose(
                    xp.diff(t, axis=axis, n=n).numpy(),
                    np.diff(a, axis=axis, n=n))
        pre = xp.zeros((4, 1), dtype=xp.float64)
        np.testing.assert_allclose(
            xp.diff(t, prepend=pre, append=pre).numpy(),
            np.diff(a, prepend=np.zeros((4, 1)), append=np.zeros((4, 1))))
    z = tl.tensor(RNG.integers(0, 2, (3, 4, 2)))
    zn = z.numpy()
    for axis in (None, 0, (0, 2), -1, ()):
        for keep in (False, True):
            got = xp.count_nonzero(z, axis=axis, keepdims=keep)
            want = np.count_nonzero(zn, axis=axis, keepdims=keep)
            assert got.dtype == xp.int64 and got.shape == np.shape(want)
            np.testing.assert_array_equal(got.numpy(), want)
    x = xp.asarray([-3.0, 0.5, NAN, 7.0])
    got = xp.clip(x, -1.0, 2)
    assert got.dtype == xp.float32
    assert got.tolist()[:2] == [-1.0, 0.5] and math.isnan(got.tolist()[2])
    assert xp.clip(x, max=0).tolist()[3] == 0.0
    assert xp.clip(x).tolist()[3] == 7.0
    i = xp.asarray([1, 5, 9], dtype=xp.int16)
    assert xp.clip(i, 2, 6).dtype == xp.int16
    lo = xp.asarray([0, 6, 0], dtype=xp.int16)
    assert xp.clip(i, lo, 8).tolist() == [1, 6, 8]
    with pytest.raises(ValueError):
        xp.clip(xp.ones(2), xp.ones((3, 2)))


def test_searching_functions():
    x = tl.tensor(RNG.standard_normal((3, 4)))
    a = x.numpy()
    for axis in (None, 0, -1):
        for keep in (False, True):
            np.testing.assert_array_equal(
                xp.argmax(x, axis=axis, keepdims=keep).numpy(),
                np.argmax(a, axis=axis, keepdims=keep))
            np.testing.assert_array_equal(
                xp.argmin(x.mT, axis=axis, keepdims=keep).numpy(),
                np.argmin(a.T, axis=axis, keepdims=keep))
    nz = xp.nonzero(x > 0)
    assert isinstance(nz, tuple) and len(nz) == 2
    for g, w in zip(nz, np.nonzero(a > 0)):
        np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(1.0))
    w = xp.where(x > 0, x, 0.0)
    np.testing.assert_array_equal(w.numpy(), np.where(a > 0, a, 0.0))
    assert xp.where(x > 0, 1, x).dtype == xp.float64
    assert xp.where(xp.asarray([True]), xp.asarray([1], dtype=xp.int8),
                    xp.asarray(2, dtype=xp.int32)).dtype == xp.int32
    assert xp.all(x > -100) .item() and not xp.any(x > 100).item()
    assert xp.all(x > 0, axis=(0, 1), keepdims=True).shape == (1, 1)
    assert xp.any(x > 0, axis=()).shape == (3, 4)
    assert xp.isin(xp.asarray([1, 2, 3]), xp.asarray([2])).tolist() == \
        [False, True, False]


# ---- creation ---------------------------------------------------------------

def test_creation_functions():
    assert xp.arange(5).dtype == xp.int64
    assert xp.arange(1, 2, 0.25).dtype == xp.float32
    np.testing.assert_allclose(xp.arange(1, 2, 0.25).numpy(),
                               np.arange(1, 2, 0.25))
    assert xp.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    for args in [(5, 0), (0, 5, -1), (3, 3), (2.5, 1.0)]:
        e = xp.arange(*args)
        assert e.shape == (0,) and e.dtype == (
            xp.int64 if all(isinstance(v, int) for v in args) else
            xp.float32)
    assert xp.arange(3, dtype=xp.float64).dtype == xp.float64
    assert xp.empty(3).shape == (3,) and xp.empty((2, 0)).shape == (2, 0)
    assert xp.zeros((2, 3), dtype=xp.int8).dtype == xp.int8
    assert xp.ones(4, device="cpu").device == tl.device("cpu")
    assert xp.full((2,), True).dtype == xp.bool
    assert xp.full((2,), 7).dtype == xp.int64
    assert xp.full(2, 1.5).dtype == xp.float32
    assert xp.full((2,), 1j).dtype == xp.complex64
    x = xp.ones((2, 3), dtype=xp.int16)
    for f in (xp.empty_like, xp.zeros_like, xp.ones_like):
        assert f(x).dtype == xp.int16 and f(x).shape == (2, 3)
        assert f(x, dtype=xp.float64).dtype == xp.float64
    assert xp.full_like(x, 4).tolist() == [[4] * 3] * 2
    for n, m, k in [(3, None, 0), (3, 5, 1), (4, 2, -1), (3, 3, 5),
                    (2, 3, -3), (0, 2, 0)]:
        np.testing.assert_array_equal(xp.eye(n, m, k=k).numpy(),
                                      np.eye(n, m, k=k))
    assert xp.eye(2, dtype=xp.int32).dtype == xp.int32
    for num, endpoint in [(5, True), (5, False), (1, True), (0, False)]:
        np.testing.assert_allclose(
            xp.linspace(0.0, 1.0, num, endpoint=endpoint,
                        dtype=xp.float64).numpy(),
            np.linspace(0.0, 1.0, num, endpoint=endpoint))
    lc = xp.linspace(0, 1 + 2j, 3)
    assert lc.dtype == xp.complex64
    np.testing.assert_allclose(lc.numpy(), np.linspace(0, 1 + 2j, 3),
                               rtol=1e-6)
    t = tl.tensor(RNG.standard_normal((3, 3)))
    np.testing.assert_array_equal(xp.tril(t, k=-1).numpy(),
                                  np.tril(t.numpy(), -1))
    np.testing.assert_array_equal(xp.triu(t.mT, k=1).numpy(),
                                  np.triu(t.numpy().T, 1))


def test_asarray_copy():
    base = np.arange(6.0)
    shared = xp.asarray(base)
    assert np.shares_memory(shared.numpy(), base)
    assert np.shares_memory(xp.asarray(base, copy=False).numpy(), base)
    copied = xp.asarray(base, copy=True)
    assert not np.shares_memory(copied.numpy(), base)
    t = tl.arange(3.0)
    assert xp.asarray(t) is t or tl.shares_memory(xp.asarray(t), t)
    assert not tl.shares_memory(xp.asarray(t, copy=True), t)
    with pytest.raises(ValueError):
        xp.asarray([1, 2], copy=False)          # a list must be copied
    with pytest.raises(ValueError):
        xp.asarray(base, dtype=xp.float32, copy=False)
    assert xp.asarray([1, 2]).dtype == xp.int64
    assert xp.asarray([1.0, 2]).dtype == xp.float32
    assert xp.asarray([True]).dtype == xp.bool
    assert xp.asarray([1j]).dtype == xp.complex64
    assert xp.asarray(2.5, dtype=xp.float64).dtype == xp.float64
    assert xp.asarray([[1, 2]], device="cpu").shape == (1, 2)


def test_from_dlpack_copy_and_device():
    src = np.arange(6.0).reshape(2, 3)
    a = xp.from_dlpack(src)
    assert np.shares_memory(a.numpy(), src)
    b = xp.from_dlpack(src, copy=True)
    assert not np.shares_memory(b.numpy(), src)
    np.testing.assert_array_equal(b.numpy(), src)
    c = xp.from_dlpack(src, copy=False)
    assert np.shares_memory(c.numpy(), src)
    d = xp.from_dlpack(src, device="cpu")
    assert d.device == tl.device("cpu")
    t = tl.arange(4.0)
    assert tl.shares_memory(xp.from_dlpack(t), t)
    assert not tl.shares_memory(xp.from_dlpack(t, copy=True), t)
    e = xp.from_dlpack(t, copy=False, device=tl.device("cpu"))
    assert tl.shares_memory(e, t)


# ---- linalg extension -------------------------------------------------------

def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_linalg_extension_against_numpy():
    la = xp.linalg
    a = _spd(3, (2,))
    t = tl.tensor(a)
    np.testing.assert_allclose(la.cholesky(t).numpy(), np.linalg.cholesky(a))
    np.testing.assert_allclose(la.cholesky(t, upper=True).numpy(),
                               np.swapaxes(np.linalg.cholesky(a), -1, -2))
    np.testing.assert_allclose(la.det(t).numpy(), np.linalg.det(a))
    np.testing.assert_allclose(la.inv(t).numpy(), np.linalg.inv(a))
    np.testing.assert_allclose(la.eigvalsh(t).numpy(),
                               np.linalg.eigvalsh(a))
    w, v = la.eigh(t)
    np.testing.assert_allclose((v @ (w[..., None] * v.mT)).numpy(), a,
                               atol=1e-10)
    s, l = la.slogdet(t)
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_allclose(s.numpy(), ws)
    np.testing.assert_allclose(l.numpy(), wl)
    np.testing.assert_allclose(la.diagonal(t, offset=1).numpy(),
                               np.diagonal(a, 1, -2, -1))
    np.testing.assert_allclose(la.trace(t, offset=-1).numpy(),
                               np.trace(a, -1, -2, -1))
    assert la.trace(tl.ones(2, 2, dtype=tl.int8)).dtype == xp.int64
    np.testing.assert_allclose(la.matrix_power(t, 3).numpy(),
                               np.linalg.matrix_power(a, 3))
    np.testing.assert_allclose(la.matrix_power(t, -1).numpy(),
                               np.linalg.inv(a))
    for ord_ in ("fro", "nuc", 1, -1, 2, -2, INF, -INF):
        np.testing.assert_allclose(
            la.matrix_norm(t, ord=ord_).numpy(),
            np.linalg.matrix_norm(a, ord=ord_), rtol=1e-10)
    assert la.matrix_norm(t, keepdims=True).shape == (2, 1, 1)
    x = tl.tensor(RNG.standard_normal((3, 4)))
    xn = x.numpy()
    for ord_ in (2, 1, INF, -INF, 0, 3):
        for axis in (None, 0, (0, 1), -1):
            np.testing.assert_allclose(
                la.vector_norm(x, axis=axis, ord=ord_).numpy(),
                np.linalg.vector_norm(xn, axis=axis, ord=ord_), rtol=1e-10)
    assert la.vector_norm(x, axis=1, keepdims=True).shape == (3, 1)
    np.testing.assert_allclose(la.pinv(x).numpy(), np.linalg.pinv(xn),
                               atol=1e-10)
    assert la.matrix_rank(x).item() == 3
    assert la.matrix_rank(tl.tensor(np.outer(xn[0], xn[0]))).item() == 1
    q, r = la.qr(x.mT)
    np.testing.assert_allclose((q @ r).numpy(), xn.T, atol=1e-10)
    assert la.qr(x.mT, mode="complete")[0].shape == (4, 4)
    with pytest.raises(ValueError):
        la.qr(x, mode="raw")
    u, sv, vh = la.svd(x, full_matrices=False)
    np.testing.assert_allclose((u * sv[None]) @ vh, xn, atol=1e-10)
    assert la.svd(x)[0].shape == (3, 3) and la.svd(x)[2].shape == (4, 4)
    np.testing.assert_allclose(la.svdvals(x).numpy(),
                               np.linalg.svdvals(xn))
    b = RNG.standard_normal((2, 3, 2))
    np.testing.assert_allclose(la.solve(t, tl.tensor(b)).numpy(),
                               np.linalg.solve(a, b))
    b1 = RNG.standard_normal(3)
    np.testing.assert_allclose(la.solve(t, tl.tensor(b1)).numpy(),
                               np.linalg.solve(a, b1[:, None])[..., 0])
    # (2, 3) against (2, 3, 3): a stack of matrices by the standard, not
    # PyTorch's batch of vectors (broadcast: (3, 3) batch dims)
    b2 = RNG.standard_normal((3, 3))
    np.testing.assert_allclose(la.solve(t, tl.tensor(b2)).numpy(),
                               np.linalg.solve(a, b2[None]))
    u3, v3 = tl.tensor(RNG.standard_normal((2, 3))), \
        tl.tensor(RNG.standard_normal((2, 3)))
    np.testing.assert_allclose(la.cross(u3, v3).numpy(),
                               np.cross(u3.numpy(), v3.numpy()))
    np.testing.assert_allclose(la.cross(u3.mT, v3.mT, axis=0).numpy(),
                               np.cross(u3.numpy().T, v3.numpy().T, axis=0))
    np.testing.assert_allclose(la.cross(u3, v3[0]).numpy(),
                               np.cross(u3.numpy(), v3.numpy()[0]))
    np.testing.assert_allclose(la.outer(u3[0], v3[1]).numpy(),
                               np.outer(u3.numpy()[0], v3.numpy()[1]))
    with pytest.raises(ValueError):
        la.outer(u3, v3)
    np.testing.assert_allclose(la.vecdot(u3, v3).numpy(),
                               np.sum(u3.numpy() * v3.numpy(), -1))
    np.testing.assert_allclose(xp.vecdot(u3, v3, axis=0).numpy(),
                               np.sum(u3.numpy() * v3.numpy(), 0))
    cz = xp.asarray([1 + 1j, 2j])
    assert xp.vecdot(cz, cz).item() == pytest.approx(6 + 0j)   # conj(x1)
    np.testing.assert_allclose(la.tensordot(x, x, axes=([1], [1])).numpy(),
                               np.tensordot(xn, xn, axes=([1], [1])))
    np.testing.assert_allclose(xp.tensordot(x, x.mT, axes=1).numpy(),
                               np.tensordot(xn, xn.T, axes=1))
    np.testing.assert_allclose(la.matmul(x, x.mT).numpy(), xn @ xn.T)
    assert xp.matmul(xp.ones((2, 3), dtype=xp.int8),
                     xp.ones(3, dtype=xp.int16)).dtype == xp.int16


# ---- refusals ---------------------------------------------------------------

def test_bad_input_leaves_operands_and_raises_the_right_class():
    x = tl.arange(6.0).reshape(2, 3)
    before = x.clone()
    for exc, fn in [
            (IndexError, lambda: xp.sum(x, axis=2)),
            (ValueError, lambda: xp.sum(x, axis=(0, 0))),
            (IndexError, lambda: xp.max(x, axis=-3)),
            (ValueError, lambda: xp.linalg.trace(xp.ones(3))),
            (ValueError, lambda: xp.meshgrid(x, indexing="yx")),
            (TypeError, lambda: xp.take(x, xp.asarray([0.5]), axis=0)),
            (TypeError, lambda: xp.zeros(2, device=3)),
            (tl.ShapeError, lambda: xp.add(x, xp.ones(4))),
            (ValueError, lambda: xp.add(x, xp.ones(4))),
            (IndexError, lambda: xp.cumulative_sum(x, axis=2))]:
        with pytest.raises(exc):
            fn()
    assert tl.equal(x, before)


# ---- memory: flat over many calls -------------------------------------------

def _round(x, i):
    return [xp.sum(x, axis=(0, 1)), xp.std(x, correction=1), xp.max(x, axis=0),
            xp.sort(x), xp.argsort(x, descending=True), xp.unique_all(i),
            xp.concat([x, x], axis=None), xp.astype(x, xp.float64),
            xp.add(x, xp.asarray(1.0, dtype=xp.float64)), xp.add(2, x),
            xp.cumulative_sum(x, axis=1, include_initial=True),
            xp.take(x, xp.asarray([0, -1]), axis=1), xp.clip(x, 0, 1),
            xp.count_nonzero(x, axis=0, keepdims=True), xp.eye(3, k=1),
            xp.reshape(x, (-1,), copy=True), xp.searchsorted(i, 2),
            xp.linalg.vector_norm(x, axis=1), xp.result_type(x, 1.0),
            xp.from_dlpack(x, copy=True), xp.linalg.solve(
                xp.eye(3) * 2, xp.ones(3))]


def test_namespace_loop_flat():
    x = tl.tensor(RNG.standard_normal((3, 4)).astype("float32"))
    i = xp.asarray([3, 1, 2, 2, 1])
    for _ in range(10):
        _round(x, i)
    gc.collect()
    refs = [sys.getrefcount(o) for o in (x, i)]
    stats = tl.memory_stats()
    for _ in range(50):
        _round(x, i)
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in (x, i)] == refs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]


COMPLEX_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos",
                 "cosh", "exp", "expm1", "log", "log1p", "log2", "log10",
                 "sin", "sinh", "sqrt", "tan", "tanh", "square",
                 "reciprocal"]
_NP_NAME = {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin",
            "asinh": "arcsinh", "atan": "arctan", "atanh": "arctanh"}


@pytest.mark.parametrize("name", COMPLEX_UNARY)
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_unary_against_numpy(name, dt):
    vals = np.array([0.5 + 0.5j, -1 + 2j, 3 - 0.25j, -0.75 - 1.5j, 0j,
                     complex(0.0, -2.0)], dtype=dt)
    x = tl.tensor(vals[::-1].copy()).flip(0)          # a negative stride
    out = getattr(xp, name)(x)
    assert out.dtype == getattr(xp, dt)
    with np.errstate(all="ignore"):
        want = getattr(np, _NP_NAME.get(name, name))(vals)
    tol = 1e-5 if dt == "complex64" else 1e-12
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol)
    # conj symmetry the standard requires of these functions
    if name in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh",
                "sinh", "cos", "sin", "exp", "log", "sqrt", "tan", "tanh"):
        np.testing.assert_allclose(
            getattr(xp, name)(xp.conj(x)).numpy(), np.conj(want),
            rtol=tol, atol=tol)


def test_complex_special_values_of_the_inverse_functions():
    z = xp.asarray([complex(0.0, 0.0), complex(INF, 1.0),
                    complex(1.0, INF)], dtype=xp.complex128)
    acos = xp.acos(z).tolist()
    assert acos[0].real == pytest.approx(math.pi / 2) and acos[0].imag == 0
    assert acos[1] == complex(0.0, -INF)                   # +0 - inf j
    assert acos[2].real == pytest.approx(math.pi / 2) and \
        acos[2].imag == -INF
    assert xp.acosh(z).tolist()[0] == pytest.approx(complex(0, math.pi / 2))
    assert xp.asinh(z).tolist()[1].real == INF
    assert xp.atanh(xp.asarray([complex(1.0, 0.0)])).tolist()[0].real == INF


# ---- against PyTorch through array_api_compat's torch namespace ----------

def test_against_array_api_compat_torch(torch):
    tx = pytest.importorskip("array_api_compat.torch")
    td = {n: getattr(torch, n) for n in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "float32",
        "float64", "complex64", "complex128")}
    # result dtypes of binary functions, 0-d operands counting fully
    for (a, b), r in PROMOTION.items():
        if a.name not in td or b.name not in td:
            continue                 # torch lacks full uint16/32/64 support
        ta = tx.ones((2,), dtype=td[a.name])
        tb = tx.ones((), dtype=td[b.name])
        fn = "logical_and" if r == xp.bool else "multiply"
        want = getattr(tx, fn)(ta, tb).dtype
        got = getattr(xp, fn)(xp.ones((2,), dtype=a),
                              xp.ones((), dtype=b)).dtype
        assert got.name == str(want).replace("torch.", ""), (a, b)
    # values of the functions whose semantics differ from torch's top level
    arr = RNG.standard_normal((3, 4, 5))
    t, tt = tl.tensor(arr), torch.tensor(arr)
    pairs = [
        (lambda m, x: m.std(x, axis=(0, 2), correction=1)),
        (lambda m, x: m.var(x, axis=-1, keepdims=True)),
        (lambda m, x: m.max(x, axis=(1, 2))),
        (lambda m, x: m.min(x, axis=0, keepdims=True)),
        (lambda m, x: m.sort(x, axis=1, descending=True)),
        (lambda m, x: m.argsort(m.round(x), axis=-1, stable=True)),
        (lambda m, x: m.cumulative_sum(x, axis=2, include_initial=True)),
        (lambda m, x: m.permute_dims(x, (2, 0, 1))),
        (lambda m, x: m.matrix_transpose(x)),
        (lambda m, x: m.concat([x, x], axis=None)),
        (lambda m, x: m.take(x, m.asarray([3, 0]), axis=1)),
        (lambda m, x: m.linalg.vector_norm(x, axis=(0, 1), ord=3)),
        (lambda m, x: m.count_nonzero(m.round(x), axis=(0, 2))),
    ]
    for f in pairs:
        np.testing.assert_allclose(f(xp, t).numpy(), f(tx, tt).numpy(),
                                   rtol=1e-10, atol=1e-12)
    for fn in ("unique_values", "unique_counts"):
        ints = tl.tensor(RNG.integers(0, 5, 20))
        got, want = getattr(xp, fn)(ints), getattr(tx, fn)(
            torch.tensor(ints.numpy()))
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            np.testing.assert_array_equal(g.numpy(), w.numpy())


# The standard's complex special cases are C99's Annex G, which NumPy
# implements: every function on the grid of special components (both
# signs of zero, +-1, +-inf, NaN) against NumPy, component by component.
_SPECIAL = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 2.5]
_CGRID = np.array([complex(a, b) for a in _SPECIAL for b in _SPECIAL],
                  dtype=np.complex128)


def _same_component(got, want, sign_free=False):
    if np.isnan(want):
        return np.isnan(got)
    if sign_free and (np.isinf(want) or want == 0):
        # Annex G (and the standard) leave the sign unspecified here.
        return abs(got) == abs(want)
    if got != want and not (np.isfinite(want) and
                            abs(got - want) <= 1e-12 * max(1.0, abs(want))):
        return False
    return want != 0 or np.signbit(got) == np.signbit(want)


@pytest.mark.parametrize("name", [
    "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos",
    "tan", "sinh", "cosh", "tanh", "square", "abs", "asin", "acos", "atan",
    "asinh", "acosh", "atanh"])
def test_complex_special_grid(name):
    npn = _NP_NAME.get(name, name)
    with np.errstate(all="ignore"):
        want = getattr(np, npn)(_CGRID)
    got = getattr(xp, name)(xp.asarray(_CGRID)).numpy()
    # Where one component of the answer is NaN, Annex G leaves the sign of
    # an infinite or zero other component unspecified (e.g. acos(inf+NaNj)
    # is NaN +- inf j): NumPy and tensorlib may pick differently.
    bad = [(z, g, w) for z, g, w in zip(_CGRID, got, want)
           if not (_same_component(np.real(g), np.real(w),
                                   np.isnan(np.imag(w))) and
                   _same_component(np.imag(g), np.imag(w),
                                   np.isnan(np.real(w))))]
    assert not bad, bad[:5]


def test_complex_sign_special_cases():
    z = xp.asarray([0j, complex(-0.0, 0.0), complex(NAN, 1.0),
                    complex(3.0, -4.0)], dtype=xp.complex128)
    s = xp.sign(z).tolist()
    assert s[0] == 0 and s[1] == 0
    assert math.isnan(s[2].real) or math.isnan(s[2].imag)
    assert s[3] == pytest.approx(complex(0.6, -0.8))
