"""Pickle protocol 5 (PEP 574): a tensor's storage bytes travel out-of-band
as a PickleBuffer over the storage's own memory; loading wraps a writable
buffer without copying and copies a read-only one unless the pickled
tensor was read-only itself; views keep sharing one storage."""
import gc
import io
import pickle

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import rng_for


def address(buf):
    m = memoryview(buf)
    return np.frombuffer(m.cast("B") if m.format != "B" else m,
                         np.uint8).__array_interface__["data"][0]


def dump5(obj):
    bufs = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=bufs.append)
    return data, bufs


DTYPES = [tl.float32, tl.float64, tl.int8, tl.int64, tl.uint16, tl.bool,
          tl.float16, tl.bfloat16, tl.complex64]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_out_of_band_zero_copy(dt):
    rng = rng_for("p5", dt)
    t = tl.tensor(rng.uniform(-3, 3, size=(3, 5)).astype(np.float32)).to(dt)
    data, bufs = dump5(t)
    assert len(bufs) == 1
    pb = bufs[0]
    assert isinstance(pb, pickle.PickleBuffer)
    assert address(pb.raw()) == t.data_ptr()  # no copy on the way out
    assert pb.raw().nbytes == t.untyped_storage().nbytes()
    assert len(data) < 400  # the bytes are not in the pickle
    u = pickle.loads(data, buffers=bufs)
    assert u.data_ptr() == t.data_ptr()  # wrapped, not copied
    assert u.dtype == dt and tuple(u.shape) == (3, 5)
    assert not u.is_readonly()
    assert tl.eq(u.to(tl.float64), t.to(tl.float64)).all().item()


def test_read_only_buffer_is_copied_for_a_writable_tensor():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    data, bufs = dump5(t)
    u = pickle.loads(data, buffers=[bytes(b.raw()) for b in bufs])
    assert u.data_ptr() != t.data_ptr()
    assert not u.is_readonly()
    u.fill_(7)
    assert t[0, 1].item() == 1.0 and u[0, 1].item() == 7.0


def test_read_only_tensor_stays_read_only_without_copy():
    a = np.arange(6.0)
    a.flags.writeable = False
    t = tl.from_numpy(a)
    assert t.is_readonly()
    data, bufs = dump5(t)
    assert bufs[0].raw().readonly
    ro = bytes(bufs[0].raw())
    u = pickle.loads(data, buffers=[ro])
    assert u.is_readonly()
    assert address(ro) == u.data_ptr()  # read-only in, read-only view
    # in-band: written as bytes, loaded read-only again
    u = pickle.loads(pickle.dumps(t, protocol=5))
    assert u.is_readonly() and u.tolist() == a.tolist()


def test_in_band_protocol5_and_older_protocols():
    rng = rng_for("p5 inband")
    t = tl.tensor(rng.standard_normal((4, 3)).astype(np.float32))
    for proto in range(0, pickle.HIGHEST_PROTOCOL + 1):
        u = pickle.loads(pickle.dumps(t, protocol=proto))
        assert u.data_ptr() != t.data_ptr()
        assert not u.is_readonly()
        np.testing.assert_array_equal(np.asarray(u), np.asarray(t))


@pytest.mark.parametrize("band", ["out", "in"])
def test_views_share_storage(band):
    base = tl.arange(24, dtype=tl.float64).reshape(4, 6)
    views = [base, base[1], base.transpose(0, 1), base[:, ::2],
             base.flip(0), base[2, 3], base.reshape(24)[5:9]]
    if band == "out":
        data, bufs = dump5(views)
        assert len(bufs) == 1  # one storage, handed out once
        out = pickle.loads(data, buffers=bufs)
    else:
        out = pickle.loads(pickle.dumps(views, protocol=5))
    ptr = out[0].untyped_storage().data_ptr()
    for v, w in zip(views, out):
        assert w.untyped_storage().data_ptr() == ptr
        assert w.storage_offset() == v.storage_offset()
        assert tuple(w.stride()) == tuple(v.stride())
        np.testing.assert_array_equal(np.asarray(w), np.asarray(v))
    out[0].fill_(-1)
    assert all((np.asarray(w) == -1).all() for w in out)


def test_read_only_view_of_writable_storage():
    r = tl.arange(4, dtype=tl.float32)
    r_ro = tl._C._tensor_from_storage(r.untyped_storage(), 0, (4,), (1,),
                                      r.dtype, True)
    data, bufs = dump5([r, r_ro])
    a, b = pickle.loads(data, buffers=bufs)
    assert not a.is_readonly() and b.is_readonly()
    assert a.data_ptr() == b.data_ptr() == r.data_ptr()


def test_pickler_object_and_empty_tensors():
    for t in (tl.empty(0), tl.zeros(2, 0, 3), tl.tensor(3.5)):
        f = io.BytesIO()
        bufs = []
        pickle.Pickler(f, protocol=5, buffer_callback=bufs.append).dump(t)
        u = pickle.Unpickler(io.BytesIO(f.getvalue()), buffers=bufs).load()
        assert tuple(u.shape) == tuple(t.shape)
        assert u.tolist() == t.tolist()


def test_separate_tensors_separate_buffers():
    a, b = tl.ones(3), tl.zeros(3)
    data, bufs = dump5([a, b, a])
    assert len(bufs) == 2
    x, y, z = pickle.loads(data, buffers=bufs)
    assert x.data_ptr() == z.data_ptr() == a.data_ptr()
    assert y.data_ptr() == b.data_ptr()


def test_pickle5_leaks():
    t = tl.arange(64, dtype=tl.float32)

    def step():
        data, bufs = dump5([t, t[3:]])
        pickle.loads(data, buffers=bufs)
        pickle.loads(data, buffers=[bytes(b.raw()) for b in bufs])
        pickle.loads(pickle.dumps(t, protocol=5))

    for _ in range(10):
        step()
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    for _ in range(200):
        step()
    gc.collect()
    assert tl.memory_stats()["active_bytes"] == before
    assert t.untyped_storage().use_count() >= 1
