"""NumPy and the buffer protocol: zero-copy both ways, export counting,
from_numpy for every dtype and layout (negative strides, unaligned, empty,
0-d), lifetimes and refcounts, __array__ with NumPy 2 semantics, and the
inputs that are refused."""
import array
import gc
import hashlib
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tensorlib as tl

try:
    import _testbuffer
except ImportError:  # pragma: no cover - CPython's test module
    _testbuffer = None

NUMPY_DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
                "int64", "uint64", "float16", "float32", "float64",
                "complex64", "complex128"]
FORMATS = {"bool": "?", "uint8": "B", "int8": "b", "int16": "h",
           "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
           "uint64": "Q", "float16": "e", "float32": "f", "float64": "d",
           "complex64": "Zf", "complex128": "Zd"}
T = tl._C._testing
needs_testbuffer = pytest.mark.skipif(_testbuffer is None,
                                      reason="no _testbuffer module")


def values(rng, shape, dtype):
    if dtype == "bool":
        return np.asarray(rng.integers(0, 2, shape)).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return np.asarray(rng.integers(info.min, info.max, shape,
                                       dtype=dtype, endpoint=True))
    if dtype.startswith("complex"):
        return np.asarray(rng.standard_normal(shape)
                          + 1j * rng.standard_normal(shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 10).astype(dtype)


def transposed(dtype="float32"):
    """A (3, 2) view with strides (1, 3): F- but not C-contiguous."""
    return tl.arange(6, dtype=dtype).as_strided((3, 2), (1, 3))


@pytest.fixture(autouse=True)
def _refcounting_only():
    """Tensors, views and exports must die by reference counting alone;
    with the cyclic collector paused, garbage of other tests is not freed
    between two readings of the allocator stats either."""
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


# ---- the buffer protocol --------------------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_memoryview_every_dtype(dtype):
    rng = np.random.default_rng(0)
    ref = values(rng, (3, 4), dtype)
    t = tl.from_numpy(ref)
    m = memoryview(t)
    assert m.format == FORMATS[dtype]
    assert m.shape == (3, 4)
    assert m.strides == ref.strides
    assert m.itemsize == ref.itemsize
    assert m.nbytes == ref.nbytes
    assert m.ndim == 2
    assert m.readonly is False
    assert m.c_contiguous
    assert m.obj is t
    back = np.asarray(m)
    assert back.dtype == ref.dtype
    np.testing.assert_array_equal(back, ref)
    assert np.shares_memory(back, ref)
    m.release()


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_memoryview_of_strided_views(dtype):
    rng = np.random.default_rng(1)
    ref = values(rng, (4, 6), dtype)
    for view in (ref[::2, 1::2], ref.T, ref[::-1], ref[:, ::-3], ref[1:3]):
        t = tl.from_numpy(view)
        with memoryview(t) as m:
            assert m.shape == view.shape
            assert m.strides == view.strides
            assert m.c_contiguous == view.flags.c_contiguous
            np.testing.assert_array_equal(np.asarray(m), view)
            assert m.tobytes() == view.tobytes()


def test_memoryview_zero_dim_and_empty():
    with memoryview(tl.tensor(2.5, dtype=tl.float64)) as m:
        assert m.ndim == 0 and m.shape == () and m.strides == ()
        assert m.tolist() == 2.5
    with memoryview(tl.zeros(0, 3, dtype=tl.int16)) as m:
        assert m.shape == (0, 3) and m.nbytes == 0


def test_memoryview_bfloat16_is_buffer_error():
    t = tl.zeros(3, dtype=tl.bfloat16)
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(t)
    assert T.export_count(t) == 0


def test_c_contiguous_request_from_transposed_is_buffer_error():
    t = transposed()
    # PyBUF_SIMPLE consumers (hashlib, array.frombytes) need C order.
    for f in (lambda: hashlib.md5(t), lambda: array.array("f").frombytes(t),
              lambda: np.frombuffer(t, dtype=np.float32)):
        with pytest.raises(BufferError):
            f()
    assert T.export_count(t) == 0
    # A strided consumer is fine.
    with memoryview(t) as m:
        assert not m.c_contiguous and m.f_contiguous
        assert m.tobytes() == np.arange(6, dtype=np.float32).reshape(
            2, 3).T.tobytes()
    assert bytes(t) == np.arange(6, dtype=np.float32).reshape(2, 3).T.tobytes()


@needs_testbuffer
@pytest.mark.parametrize("flag, c_ok, f_ok, other_ok", [
    ("PyBUF_C_CONTIGUOUS", True, False, False),
    ("PyBUF_F_CONTIGUOUS", False, True, False),
    ("PyBUF_ANY_CONTIGUOUS", True, True, False),
    ("PyBUF_SIMPLE", True, False, False),
    ("PyBUF_ND", True, False, False),
    ("PyBUF_CONTIG_RO", True, False, False),
    ("PyBUF_STRIDES", True, True, True),
    ("PyBUF_FULL_RO", True, True, True),
    ("PyBUF_RECORDS_RO", True, True, True),
])
def test_buffer_request_flags(flag, c_ok, f_ok, other_ok):
    tb = _testbuffer
    c = tl.arange(6, dtype=tl.float32).as_strided((2, 3), (3, 1))
    f = transposed()
    other = tl.arange(12, dtype=tl.float32).as_strided((2, 3), (6, 2))
    for t, ok in ((c, c_ok), (f, f_ok), (other, other_ok)):
        if ok:
            nd = tb.ndarray(t, getbuf=getattr(tb, flag))
            assert nd.tobytes() == np.asarray(t.tolist(),
                                              np.float32).tobytes()
            assert T.export_count(t) == 1
            del nd
        else:
            with pytest.raises(BufferError):
                tb.ndarray(t, getbuf=getattr(tb, flag))
        assert T.export_count(t) == 0


@needs_testbuffer
def test_simple_request_of_multidim_is_flat():
    tb = _testbuffer
    t = tl.arange(24, dtype=tl.int32).as_strided((2, 3, 4), (12, 4, 1))
    nd = tb.ndarray(t, getbuf=tb.PyBUF_SIMPLE)
    assert nd.ndim <= 1
    assert nd.tobytes() == np.arange(24, dtype=np.int32).tobytes()
    assert hashlib.sha1(t).hexdigest() == hashlib.sha1(
        np.arange(24, dtype=np.int32).tobytes()).hexdigest()


def test_readonly_tensor_exports_readonly():
    a = np.arange(6.0)
    a.flags.writeable = False
    t = tl.from_numpy(a)
    with memoryview(t) as m:
        assert m.readonly
    n = t.numpy()
    assert not n.flags.writeable
    with pytest.raises(ValueError):
        n[0] = 1.0
    with pytest.raises((BufferError, TypeError)):
        (np.ctypeslib.as_ctypes_type(np.float64) * 6).from_buffer(t)
    if _testbuffer is not None:
        with pytest.raises(BufferError, match="read-only"):
            _testbuffer.ndarray(t, getbuf=_testbuffer.PyBUF_WRITABLE)
    assert T.export_count(t) == 1  # n
    del n
    assert T.export_count(t) == 0


def test_writable_export_writes_through():
    t = tl.zeros(4, dtype=tl.int32)
    with memoryview(t) as m:
        m[1] = 7
        m[3] = -2
    assert t.tolist() == [0, 7, 0, -2]
    c = (np.ctypeslib.as_ctypes_type(np.int32) * 4).from_buffer(t)
    c[0] = 5
    assert t[0].item() == 5
    del c
    assert T.export_count(t) == 0


# ---- numpy() / asarray share memory ---------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_and_asarray_share_memory(dtype):
    rng = np.random.default_rng(2)
    src = values(rng, (5, 3), dtype)
    t = tl.tensor(src.tolist(), dtype=dtype)
    n = t.numpy()
    a = np.asarray(t)
    for arr in (n, a):
        assert arr.dtype == np.dtype(dtype)
        assert arr.shape == (5, 3)
        assert arr.ctypes.data == t.data_ptr()
        np.testing.assert_array_equal(arr, src)
    assert np.shares_memory(n, a)
    # Write through NumPy, read through tensorlib, and the other way.
    n[2, 1] = src[0, 0]
    assert t[2][1].item() == src[0, 0].item()
    with memoryview(t) as m, m.cast("B") as raw:
        k = (4 * 3 + 2) * m.itemsize
        raw[k:k + m.itemsize] = src[1, 1].tobytes()
    assert a[4, 2] == src[1, 1]


def test_numpy_of_views_keeps_layout():
    base = tl.arange(24, dtype=tl.float64)
    v = base.as_strided((3, 4), (1, 6), 2)
    n = v.numpy()
    assert n.strides == (8, 48)
    assert n.tolist() == v.tolist()
    assert n.ctypes.data == v.data_ptr()
    r = tl.from_numpy(np.arange(10.0)[::-2])
    assert r.numpy().strides == (-16,)
    assert r.numpy().tolist() == [9.0, 7.0, 5.0, 3.0, 1.0]
    z = tl.zeros((0, 3)).numpy()
    assert z.shape == (0, 3)
    s = tl.tensor(3.5).numpy()
    assert s.shape == () and s.item() == 3.5


def test_numpy_of_bfloat16_is_type_error(monkeypatch):
    # Without ml_dtypes (an import of it fails); test_numpy_dispatch.py
    # checks the conversions ml_dtypes makes possible.
    import sys

    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    t = tl.zeros(3, dtype=tl.bfloat16)
    before = tl.memory_stats()
    with pytest.raises(TypeError, match="bfloat16"):
        t.numpy()
    with pytest.raises(TypeError, match="bfloat16"):
        t.numpy(force=True)
    with pytest.raises(TypeError, match="bfloat16"):
        t.__array__()
    with pytest.raises((TypeError, BufferError)):
        np.asarray(t)
    assert T.export_count(t) == 0
    assert tl.memory_stats()["active_bytes"] == before["active_bytes"]


def test_export_counts_follow_lifetimes():
    t = tl.arange(8, dtype=tl.float32)
    assert T.export_count(t) == 0
    m = memoryview(t)
    assert T.export_count(t) == 1
    m2 = memoryview(t)
    assert T.export_count(t) == 2
    m.release()
    assert T.export_count(t) == 1
    del m2
    assert T.export_count(t) == 0
    n = t.numpy()
    assert T.export_count(t) == 1
    view = n[::2]
    del n
    assert T.export_count(t) == 1  # the view keeps the exporter
    del view
    assert T.export_count(t) == 0
    a = np.asarray(t)
    assert T.export_count(t) == 1
    del a
    assert T.export_count(t) == 0
    # Exports are counted on the storage, shared by every view.
    v = t.as_strided((2,), (3,), 1)
    n = v.numpy()
    assert T.export_count(t) == 1 and T.export_count(v) == 1
    del n
    assert T.export_count(t) == 0


def test_failed_exports_are_not_counted():
    t = transposed()
    for _ in range(3):
        with pytest.raises(BufferError):
            np.frombuffer(t, dtype=np.float32)
    assert T.export_count(t) == 0


def test_exports_outlive_the_tensor():
    before = tl.memory_stats()["active_bytes"]
    t = tl.arange(1000, dtype=tl.float64)
    m = memoryview(t)
    n = t.numpy()
    del t
    assert tl.memory_stats()["active_bytes"] == before + 8000
    assert m[999] == 999.0 and n[998] == 998.0
    m.release()
    del n
    assert tl.memory_stats()["active_bytes"] == before


# ---- from_numpy -------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_from_numpy_zero_copy_every_dtype(dtype):
    rng = np.random.default_rng(3)
    a = values(rng, (4, 5), dtype)
    t = tl.from_numpy(a)
    assert t.dtype.name == dtype
    assert t.shape == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    a[1, 2] = a[0, 0]
    assert t[1][2].item() == a[0, 0].item()
    assert np.shares_memory(t.numpy(), a)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_from_numpy_native_order_spellings(dtype):
    for spec in (dtype, np.dtype(dtype).newbyteorder("="),
                 np.dtype(dtype).newbyteorder("<")):
        a = np.zeros(3, dtype=spec)
        assert tl.from_numpy(a).dtype.name == dtype


@st.composite
def numpy_views(draw):
    ndim = draw(st.integers(0, 4))
    shape = draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim))
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    steps = draw(st.lists(st.sampled_from([1, 2, -1, -2, 3]), min_size=ndim,
                          max_size=ndim))
    transpose = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 16))
    return shape, dtype, steps, transpose, seed


@given(numpy_views())
def test_from_numpy_any_layout_vs_numpy(case):
    shape, dtype, steps, transpose, seed = case
    rng = np.random.default_rng(seed)
    big = values(rng, [s * abs(k) for s, k in zip(shape, steps)], dtype)
    view = big[tuple(slice(None, None, k) for k in steps) + (Ellipsis,)]
    if transpose:
        view = view.T
    t = tl.from_numpy(view)
    assert t.shape == view.shape
    assert t.stride() == tuple(s // view.itemsize for s in view.strides)
    if view.size:
        assert t.data_ptr() == view.ctypes.data
    assert t.tolist() == view.tolist()
    assert t.is_contiguous() == (view.flags.c_contiguous or view.size == 0
                                 or view.ndim == 0)
    back = t.numpy()
    assert back.strides == view.strides or view.size == 0
    np.testing.assert_array_equal(back, view)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64",
                                   "complex64", "complex128", "uint16",
                                   "float16"])
def test_from_numpy_unaligned(dtype):
    itemsize = np.dtype(dtype).itemsize
    buf = bytearray(itemsize * 11 + 1)
    a = np.frombuffer(buf, dtype=dtype, offset=1, count=10)
    assert not a.flags.aligned
    a[:] = np.arange(10) * 3 - 7 if not dtype.startswith("uint") else \
        np.arange(10) * 3
    t = tl.from_numpy(a)
    assert t.data_ptr() % itemsize == 1 % itemsize
    assert t.tolist() == a.tolist()
    assert [t[i].item() for i in range(10)] == a.tolist()
    assert t[3].item() == a[3].item()
    with memoryview(t) as m:
        assert m.tobytes() == a.tobytes()
    n = t.numpy()
    assert n.ctypes.data == a.ctypes.data and not n.flags.aligned
    assert n.tolist() == a.tolist()
    del n
    c = tl.tensor(t)  # a copy through the copy kernel, from unaligned memory
    assert c.tolist() == a.tolist()
    assert c.data_ptr() % itemsize == 0
    rev = tl.from_numpy(a[::-3])
    assert rev.tolist() == a[::-3].tolist()
    assert repr(t).startswith("tensor([")


def test_from_numpy_empty_and_zero_dim():
    for shape in [(0,), (3, 0), (0, 4, 2)]:
        a = np.zeros(shape, dtype=np.float32)
        t = tl.from_numpy(a)
        assert t.shape == shape and t.numel() == 0
        assert t.tolist() == a.tolist()
    a = np.zeros((3, 0))[::-1]
    assert tl.from_numpy(a).shape == (3, 0)
    s = np.array(7, dtype=np.int16)
    t = tl.from_numpy(s)
    assert t.shape == () and t.ndim == 0 and t.item() == 7
    assert t.data_ptr() == s.ctypes.data
    s[()] = 9
    assert t.item() == 9


def test_from_numpy_readonly_array_is_readonly():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = tl.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert not t.numpy().flags.writeable


def test_from_numpy_keeps_array_alive_and_releases_it():
    a = np.arange(100.0)
    w = weakref.ref(a)
    t = tl.from_numpy(a)
    v = t[5]
    del a
    assert w() is not None
    del t
    assert w() is not None and v.item() == 5.0
    del v
    assert w() is None


def test_from_numpy_refcount_returns_to_start():
    a = np.arange(12.0).reshape(3, 4)
    start = sys.getrefcount(a)
    t = tl.from_numpy(a)
    assert sys.getrefcount(a) == start + 1
    views = [t[i] for i in range(3)] + [t.as_strided((2,), (5,), 1)]
    n = t.numpy()
    m = memoryview(t)
    assert sys.getrefcount(a) == start + 1  # one reference, from the block
    del t, views, n
    m.release()
    del m
    assert sys.getrefcount(a) == start
    for _ in range(100):
        tl.from_numpy(a).numpy()
        tl.from_numpy(a[::-1, 1:])
    assert sys.getrefcount(a) == start


def test_from_numpy_does_not_allocate():
    a = np.zeros(100000)
    before = tl.memory_stats()
    t = tl.from_numpy(a)
    after = tl.memory_stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["alloc_count"] == before["alloc_count"]
    del t


def test_from_numpy_round_trip_is_same_memory():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    b = tl.from_numpy(a).numpy()
    assert np.shares_memory(a, b)
    assert b.ctypes.data == a.ctypes.data
    t2 = tl.from_numpy(tl.arange(5).numpy())
    assert t2.tolist() == [0, 1, 2, 3, 4]


# ---- from_numpy: refused inputs ---------------------------------------------


@pytest.mark.parametrize("spec", [">f4", ">i8", ">c16", ">u2", ">f2"])
def test_from_numpy_non_native_byte_order(spec):
    a = np.zeros(3, dtype=spec)
    before = tl.memory_stats()
    with pytest.raises(ValueError, match="byte order"):
        tl.from_numpy(a)
    assert tl.memory_stats()["active_bytes"] == before["active_bytes"]
    # the suggested fix works
    assert tl.from_numpy(a.astype(a.dtype.newbyteorder("="))).numel() == 3


@pytest.mark.parametrize("spec", ["O", "U3", "S3", "V4", "M8[s]", "m8[s]",
                                  "longdouble", "clongdouble",
                                  [("a", "i1"), ("b", "f4")]])
def test_from_numpy_unsupported_dtypes(spec):
    a = np.zeros(3, dtype=spec)
    with pytest.raises(TypeError, match="dtype"):
        tl.from_numpy(a)


def test_from_numpy_odd_byte_strides():
    s = np.zeros(4, dtype=[("a", "i1"), ("b", "f4")])
    with pytest.raises(ValueError, match="5"):
        tl.from_numpy(s["b"])  # stride 5, itemsize 4
    odd = np.lib.stride_tricks.as_strided(np.zeros(10, np.int32), (3,), (6,))
    with pytest.raises(ValueError, match="6"):
        tl.from_numpy(odd)
    odd2 = np.lib.stride_tricks.as_strided(np.zeros(20, np.float64),
                                           (2, 2), (16, 12))
    with pytest.raises(ValueError, match="12"):
        tl.from_numpy(odd2)
    # Every dim's stride is checked, as torch.from_numpy does, even where
    # the size is 1 and the stride is never used.
    one = np.lib.stride_tricks.as_strided(np.zeros(10, np.int32), (1, 3),
                                          (7, 4))
    with pytest.raises(ValueError, match="7"):
        tl.from_numpy(one)
    # A 0 stride (broadcast) is a multiple of every itemsize.
    b = np.broadcast_to(np.arange(3.0), (4, 3))
    t = tl.from_numpy(b)
    assert t.stride() == (0, 1) and t.tolist() == b.tolist()


def test_from_numpy_non_ndarray():
    for bad in ([1, 2], (1.0,), 3.0, np.float64(1.0), memoryview(b"ab"),
                tl.zeros(2), None, "abc"):
        with pytest.raises(TypeError, match="ndarray"):
            tl.from_numpy(bad)


def test_from_numpy_matrix_subclass_ok():
    m = np.ma.masked_array([1.0, 2.0])
    t = tl.from_numpy(m)
    assert t.tolist() == [1.0, 2.0]


# ---- __array__ with NumPy 2 semantics ---------------------------------------


def test_array_protocol_copy_semantics():
    t = tl.arange(6, dtype=tl.float64)
    a = t.__array__()
    assert np.shares_memory(a, t.numpy())
    assert not np.shares_memory(t.__array__(copy=True), a)
    assert np.shares_memory(t.__array__(copy=False), a)
    assert np.shares_memory(t.__array__(copy=None), a)
    assert np.shares_memory(t.__array__(dtype=np.float64, copy=False), a)
    c = t.__array__(dtype=np.float32)
    assert c.dtype == np.float32 and not np.shares_memory(c, a)
    assert c.tolist() == list(map(float, range(6)))
    with pytest.raises(ValueError, match="copy"):
        t.__array__(dtype=np.float32, copy=False)
    with pytest.raises(ValueError):
        np.array(t, dtype=np.int32, copy=False)
    assert np.shares_memory(np.array(t, copy=False), a)
    assert not np.shares_memory(np.array(t), a)  # np.array copies
    assert np.shares_memory(np.asarray(t), a)
    assert not np.shares_memory(np.asarray(t, dtype=np.float32), a)
    assert np.asarray(t, dtype=np.int8).tolist() == list(range(6))
    assert T.export_count(t) == 1  # a
    del a, c
    assert T.export_count(t) == 0


def test_array_protocol_dtype_spellings():
    t = tl.tensor([1, 2, 3], dtype=tl.int16)
    for spec in ("int16", np.int16, np.dtype("int16"), "=i2"):
        assert np.shares_memory(t.__array__(dtype=spec, copy=False),
                                t.numpy())
    with pytest.raises(TypeError):
        t.__array__(dtype="not a dtype")


# ---- tensor(ndarray) copies -------------------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_tensor_of_ndarray_is_a_copy(dtype):
    rng = np.random.default_rng(4)
    a = values(rng, (3, 5), dtype)[:, ::2]
    t = tl.tensor(a)
    assert t.dtype.name == dtype
    assert t.tolist() == a.tolist()
    assert t.is_contiguous()
    assert not np.shares_memory(t.numpy(), a)
    old = a.tolist()
    a[...] = a[0, 0]
    assert t.tolist() == old


def test_tensor_of_ndarray_copies_layouts_from_numpy_refuses():
    # tensor() copies anyway, so what from_numpy refuses for its layout
    # alone is converted (DESIGN.md: "refused, or copied where the caller
    # allows a copy"; torch.tensor() refuses other byte orders).
    a = np.arange(6, dtype=">f8").reshape(2, 3)[:, ::-1]
    t = tl.tensor(a)
    assert t.dtype is tl.float64 and t.tolist() == a.tolist()
    s = np.zeros(4, dtype=[("a", "i1"), ("b", "<i4")])
    s["b"] = [1, -2, 3, -4]
    t = tl.tensor(s["b"])
    assert t.dtype is tl.int32 and t.tolist() == [1, -2, 3, -4]
    b = np.arange(5, dtype=">u2")
    assert tl.tensor(b, dtype=tl.float32).tolist() == [0.0, 1.0, 2.0, 3.0,
                                                       4.0]
    assert b.dtype.byteorder == ">"  # the source is untouched


def test_tensor_of_ndarray_errors():
    for bad in (np.zeros(2, dtype=object), np.zeros(2, dtype="U3"),
                np.zeros(2, dtype=">U3"), np.zeros(2, dtype="M8[s]")):
        with pytest.raises(TypeError, match="dtype"):
            tl.tensor(bad)
