"""Interop: DLPack both ways, __array_interface__, __array__, read-only
tensors, negative strides, asarray/frombuffer, pickle, copy, deepcopy and
tobytes — against NumPy and, where installed, PyTorch."""
import array
import copy
import gc
import pickle
import sys
import weakref

import numpy as np
import pytest

import tensorlib as tl
from tensorlib._C import _testing

DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "float16", "float32", "float64", "complex64",
          "complex128"]


def rand_array(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -100), min(info.max, 100),
                            size=shape, endpoint=True).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape)
                + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def strided_views(a):
    """A few strided views of a 2-D array, negative strides included."""
    yield a
    yield a[::-1]
    yield a[:, ::-2]
    yield a.T
    yield a[1:, 1::3]


# ---- DLPack ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_numpy_both_ways_share_memory(dtype):
    rng = np.random.default_rng(1)
    base = rand_array(rng, (5, 7), dtype)
    for a in strided_views(base):
        t = tl.from_dlpack(a)
        assert t.tolist() == a.tolist()
        assert t.dtype.name == dtype
        assert tl.from_numpy(a).data_ptr() == t.data_ptr()
        back = np.from_dlpack(t)
        assert np.shares_memory(back, a)
        np.testing.assert_array_equal(back, a)


def test_dlpack_write_through_both_sides():
    a = np.arange(12.0).reshape(3, 4)
    t = tl.from_dlpack(a)
    t[1, 2] = -5.0
    assert a[1, 2] == -5.0
    n = np.from_dlpack(t)
    n[0, 0] = 99.0
    assert t[0, 0].item() == 99.0


def test_dlpack_versioned_and_legacy_capsules():
    t = tl.arange(6.0)
    cap = t.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    legacy = t.__dlpack__()
    assert "dltensor" in repr(legacy) and "versioned" not in repr(legacy)
    u = tl.from_dlpack(cap)
    assert u.data_ptr() == t.data_ptr()
    assert "used_dltensor_versioned" in repr(cap)
    with pytest.raises(ValueError):
        tl.from_dlpack(cap)  # consumed once
    v = tl.from_dlpack(legacy)
    assert v.tolist() == t.tolist()


def test_dlpack_export_counts_until_deleter():
    t = tl.arange(8.0)
    assert _testing.export_count(t) == 0
    cap = t.__dlpack__(max_version=(1, 0))
    assert _testing.export_count(t) == 1
    with pytest.raises(BufferError):
        t.resize_(1000)  # memory would move while exported
    del cap  # never consumed: the capsule destructor runs the deleter
    gc.collect()
    assert _testing.export_count(t) == 0
    n = np.from_dlpack(t)
    assert _testing.export_count(t) == 1
    del n
    gc.collect()
    assert _testing.export_count(t) == 0
    t.resize_(1000)


def test_dlpack_source_outlives_as_needed():
    a = np.arange(10.0)
    ref = weakref.ref(a) if hasattr(a, "__weakref__") else None
    start = sys.getrefcount(a)
    t = tl.from_dlpack(a)
    assert sys.getrefcount(a) > start
    del a
    gc.collect()
    assert t.tolist() == list(np.arange(10.0))  # still alive, no UAF
    del t
    gc.collect()
    if ref is not None:
        assert ref() is None


def test_dlpack_readonly_flag_round_trip():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = tl.from_dlpack(a)
    assert t.is_readonly()
    with pytest.raises(ValueError):
        t[0] = 1.0
    with pytest.raises(BufferError):
        t.__dlpack__()  # legacy capsules cannot carry read-only
    b = np.from_dlpack(t)  # versioned: keeps the flag
    assert not b.flags.writeable
    c = tl.from_dlpack(t.__dlpack__(copy=True))
    assert not c.is_readonly()
    c[0] = 5.0
    assert a[0] == 0.0


def test_dlpack_bool_float16_bfloat16():
    for dt in (tl.bool, tl.float16, tl.bfloat16):
        t = tl.ones(3, dtype=dt)
        u = tl.from_dlpack(t.__dlpack__(max_version=(1, 0)))
        assert u.dtype == dt and u.tolist() == t.tolist()


def test_dlpack_zero_size_and_zero_dim():
    for shape in [(0,), (3, 0), ()]:
        a = np.zeros(shape, dtype=np.float32)
        t = tl.from_dlpack(a)
        assert tuple(t.shape) == shape
        back = np.from_dlpack(t)
        assert back.shape == shape


def test_from_dlpack_rejects_garbage():
    with pytest.raises(TypeError):
        tl.from_dlpack([1, 2, 3])


def test_dlpack_device():
    assert tl.zeros(2).__dlpack_device__() == (1, 0)


def test_torch_round_trip(torch):
    t = tl.arange(12.0).reshape(3, 4)
    pt = torch.from_dlpack(t)
    assert pt.data_ptr() == t.data_ptr()
    pt[0, 0] = 42.0
    assert t[0, 0].item() == 42.0
    src = torch.arange(10, dtype=torch.int32)[2:]
    u = tl.from_dlpack(src)
    assert u.data_ptr() == src.data_ptr()
    assert u.tolist() == src.tolist()
    u[0] = -1
    assert src[0].item() == -1
    bf = torch.ones(3, dtype=torch.bfloat16)
    assert tl.from_dlpack(bf).dtype == tl.bfloat16


def test_torch_source_lifetime(torch):
    src = torch.arange(1000, dtype=torch.float64)
    u = tl.from_dlpack(src)
    del src
    gc.collect()
    assert u[999].item() == 999.0


# ---- array interface and __array__ ---------------------------------------------

def test_array_interface():
    t = tl.arange(12, dtype=tl.int32).reshape(3, 4)
    ai = t.__array_interface__
    assert ai["version"] == 3 and ai["typestr"] == "<i4"
    assert ai["shape"] == (3, 4) and ai["strides"] is None
    v = t.T
    arr = np.asarray(_AI(v))
    np.testing.assert_array_equal(arr, np.arange(12).reshape(3, 4).T)
    assert arr.ctypes.data == v.data_ptr()
    # once handed out, the storage is not resizable any more
    assert not v.untyped_storage().resizable()


class _AI:
    def __init__(self, t):
        self.__array_interface__ = t.__array_interface__
        self._keep = t


def test_array_interface_readonly_and_offset():
    a = np.arange(10.0)
    a.flags.writeable = False
    t = tl.from_numpy(a)[3:]
    ai = t.__array_interface__
    assert ai["data"][1] is True
    assert ai["data"][0] == t.data_ptr()
    arr = np.asarray(_AI(t))
    assert not arr.flags.writeable
    np.testing.assert_array_equal(arr, a[3:])


def test_array_copy_semantics():
    t = tl.arange(6.0)
    a = np.asarray(t)
    assert np.shares_memory(a, t.numpy())
    c = t.__array__(copy=True)
    c[0] = 100
    assert t[0].item() == 0.0
    with pytest.raises(ValueError):
        t.__array__(dtype=np.float64, copy=False)
    f = t.__array__(dtype=np.float64)
    assert f.dtype == np.float64
    assert t.__array__(dtype=np.float32, copy=False).ctypes.data == \
        t.data_ptr()
    assert np.array(t, copy=False).ctypes.data == t.data_ptr()


# ---- read-only tensors ------------------------------------------------------------

def readonly_tensor():
    a = np.arange(6.0).reshape(2, 3)
    a.flags.writeable = False
    return a, tl.from_numpy(a)


def test_readonly_writes_refused_operands_unchanged():
    a, t = readonly_tensor()
    before = t.tolist()
    v0 = t._version
    attempts = [
        lambda: t.__setitem__((0, 0), 5.0),
        lambda: t.add_(1),
        lambda: t.fill_(3),
        lambda: t.zero_(),
        lambda: t.copy_(tl.zeros(2, 3, dtype=tl.float64)),
        lambda: tl.add(t, 1, out=t),
        lambda: t.__iadd__(1),
    ]
    for f in attempts:
        with pytest.raises(ValueError):
            f()
    assert t.tolist() == before and t._version == v0
    assert a.tolist() == before


def test_readonly_inherited_by_views_and_storage_paths():
    a, t = readonly_tensor()
    for v in (t[0], t.T, t.flip(0), t.reshape(6), t.as_strided((2,), (1,)),
              t.detach()):
        assert v.is_readonly()
        with pytest.raises(ValueError):
            v.fill_(1)
    w = tl.empty(0, dtype=tl.float64)
    w.set_(t.untyped_storage(), 0, (6,), (1,))
    assert w.is_readonly()  # the memory is read-only, whatever the view
    with pytest.raises(ValueError):
        w[0] = 1.0


def test_readonly_buffer_round_trip():
    _, t = readonly_tensor()
    mv = memoryview(t)
    assert mv.readonly
    with pytest.raises(TypeError):
        mv[0, 0] = 1.0  # memoryview refuses writes into read-only memory
    back = tl.asarray(mv)  # the flag survives the buffer protocol
    assert back.is_readonly()
    assert back.data_ptr() == t.data_ptr()
    del back
    mv.release()
    n = t.numpy()
    assert not n.flags.writeable
    assert tl.asarray(bytes(8)).is_readonly()


def test_writable_tensor_is_not_readonly():
    assert not tl.zeros(2).is_readonly()


# ---- negative strides ------------------------------------------------------------------

def test_negative_strides_zero_copy_everywhere():
    a = np.arange(20.0).reshape(4, 5)
    for v in (a[::-1], a[:, ::-1], a[::-2, ::-3]):
        t = tl.from_numpy(v)
        assert t.tolist() == v.tolist()
        assert np.shares_memory(t.numpy(), a)
        assert np.shares_memory(np.from_dlpack(t), a)
    t = tl.arange(10.0)
    f = t.flip(0)
    n = f.numpy()
    assert n.strides == (-4,)
    assert np.shares_memory(n, t.numpy())
    np.testing.assert_array_equal(n, np.arange(10.0, dtype=np.float32)[::-1])


# ---- bad inputs -----------------------------------------------------------------------------

def test_bad_numpy_inputs():
    with pytest.raises(ValueError):
        tl.from_numpy(np.arange(4, dtype=">i4"))
    with pytest.raises(TypeError):
        tl.from_numpy(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        tl.from_numpy(np.array([object()]))
    odd = np.lib.stride_tricks.as_strided(np.zeros(16, np.uint8)[1:],
                                          shape=(3,), strides=(3,)).view(
        np.uint8)
    rec = np.zeros(3, dtype=[("a", "u1"), ("b", "<i4")])["b"]
    with pytest.raises(ValueError):
        tl.from_numpy(rec)
    assert tl.from_numpy(odd).tolist() == [0, 0, 0]


def test_asarray_byte_order_copy_only_when_allowed():
    big = np.arange(4, dtype=">i4")
    t = tl.asarray(big)
    assert t.tolist() == [0, 1, 2, 3] and t.dtype == tl.int32
    with pytest.raises(ValueError):
        tl.asarray(big, copy=False)


# ---- asarray / frombuffer -------------------------------------------------------------------

def test_asarray_sources():
    t = tl.arange(3.0)
    assert tl.asarray(t) is t
    assert tl.asarray(t, copy=True).data_ptr() != t.data_ptr()
    a = np.arange(5)
    assert tl.asarray(a).data_ptr() == a.ctypes.data
    assert tl.asarray(b"\x01\x02").tolist() == [1, 2]
    ba = bytearray(b"\x00\x00")
    u = tl.asarray(ba)
    u[0] = 7
    assert ba[0] == 7
    arr = array.array("i", [1, 2, 3])
    v = tl.asarray(arr)
    assert v.dtype == tl.int32 and v.tolist() == [1, 2, 3]
    assert tl.asarray(memoryview(arr)).tolist() == [1, 2, 3]
    assert tl.asarray([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert tl.asarray([1, 2], dtype=tl.float64).dtype == tl.float64
    assert tl.asarray(a, dtype=tl.float32).dtype == tl.float32
    with pytest.raises(ValueError):
        tl.asarray(a, dtype=tl.float32, copy=False)
    with pytest.raises(ValueError):
        tl.asarray([1, 2], copy=False)


def test_asarray_dlpack_producer(torch):
    src = torch.arange(4)
    t = tl.asarray(src)
    assert t.data_ptr() == src.data_ptr()


def test_frombuffer():
    buf = bytearray(np.arange(6, dtype=np.int32).tobytes())
    t = tl.frombuffer(buf, dtype=tl.int32)
    assert t.tolist() == list(range(6))
    t[0] = 9
    assert np.frombuffer(buf, dtype=np.int32)[0] == 9
    u = tl.frombuffer(buf, dtype=tl.int32, count=2, offset=8)
    assert u.tolist() == [2, 3]
    r = tl.frombuffer(bytes(8), dtype=tl.float32)
    assert r.is_readonly()
    with pytest.raises(ValueError):
        tl.frombuffer(bytearray(7), dtype=tl.int32)
    with pytest.raises(ValueError):
        tl.frombuffer(bytearray(8), dtype=tl.int32, count=3)
    with pytest.raises(ValueError):
        tl.frombuffer(bytearray(8), dtype=tl.int32, offset=9)


def test_frombuffer_keeps_buffer_alive():
    buf = bytearray(b"\x01\x00\x00\x00")
    start = sys.getrefcount(buf)
    t = tl.frombuffer(buf, dtype=tl.int32)
    with pytest.raises(BufferError):
        buf.extend(b"x")  # exported: bytearray cannot resize
    del t
    gc.collect()
    assert sys.getrefcount(buf) == start
    buf.extend(b"x")


# ---- pickle, copy, deepcopy, tobytes -------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + ["bfloat16"])
def test_pickle_dtypes(dtype):
    t = tl.arange(6).to(getattr(tl, dtype)).reshape(2, 3)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype == t.dtype and u.tolist() == t.tolist()
    assert u.stride() == t.stride()


def test_pickle_preserves_sharing_and_readonly():
    base = tl.arange(12.0).reshape(3, 4)
    views = [base, base[1:], base.T, base[:, ::-1]]
    out = pickle.loads(pickle.dumps(views))
    for o, v in zip(out, views):
        assert o.tolist() == v.tolist()
        assert o.untyped_storage() is out[0].untyped_storage()
    out[1][0, 0] = -7.0
    assert out[0][1, 0].item() == -7.0
    _, ro = readonly_tensor()
    assert pickle.loads(pickle.dumps(ro)).is_readonly()


def test_copy_and_deepcopy():
    base = tl.arange(6.0)
    c = copy.copy(base)
    assert c is not base and c.data_ptr() == base.data_ptr()
    v = base[2:]
    d0, d1 = copy.deepcopy([base, v])
    assert d0.data_ptr() != base.data_ptr()
    assert d1.untyped_storage() is d0.untyped_storage()
    d1[0] = 100.0
    assert d0[2].item() == 100.0 and base[2].item() == 2.0


def test_tobytes_matches_numpy():
    rng = np.random.default_rng(3)
    a = rand_array(rng, (4, 5), "float32")
    for v in strided_views(a):
        assert tl.from_numpy(v).tobytes() == v.tobytes()


def test_refcounts_flat_over_many_round_trips():
    a = np.arange(100.0)
    start = sys.getrefcount(a)
    stats0 = tl.memory_stats()["active_bytes"]
    for _ in range(2000):
        t = tl.from_dlpack(a)
        n = np.from_dlpack(t)
        u = tl.asarray(n)
        p = pickle.loads(pickle.dumps(u[::3]))
        del t, n, u, p
    gc.collect()
    assert sys.getrefcount(a) == start
    assert tl.memory_stats()["active_bytes"] == stats0
