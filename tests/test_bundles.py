"""A fresh tensor's impl, storage, version counter and block record share
one allocation (Note [Metadata bundles] in csrc/core/tensor.c), but each
lives as long as its own holders.  Every order in which the four die must
keep the survivors' data intact and, once all are gone, return both the
allocator's bytes and the C heap to where they were."""
import ctypes
import ctypes.util
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl


def _mallinfo():
    """Bytes the C heap has handed out (glibc's mallinfo2), or None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        fn = libc.mallinfo2
    except (OSError, AttributeError):
        return None

    class Info(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost")]
    fn.restype = Info
    return lambda: fn().uordblks


HEAP = _mallinfo()


def _fresh(rng, n=12):
    x = rng.standard_normal(n).astype(np.float32)
    t = tl.empty(n, dtype=tl.float32)
    t.copy_(tl.from_numpy(x))
    return x, t


def view_outlives_root(rng):
    x, t = _fresh(rng)
    v = t[2:7]
    del t
    np.testing.assert_array_equal(v.numpy(), x[2:7])


def export_outlives_tensor(rng):
    x, t = _fresh(rng)
    a = t.numpy()
    del t
    np.testing.assert_array_equal(a, x)


def dlpack_outlives_tensor(rng):
    x, t = _fresh(rng)
    a = np.from_dlpack(t)
    del t
    np.testing.assert_array_equal(a, x)


def storage_outlives_tensor(rng):
    x, t = _fresh(rng)
    s = t.untyped_storage()
    del t
    u = tl.empty(0)
    u.set_(s, 3, (4,), (1,))
    del s
    np.testing.assert_array_equal(u.numpy(), x[3:7])
    u.add_(1)  # the moved storage is still writable
    np.testing.assert_array_equal(u.numpy(), x[3:7] + 1)


def storage_moves_by_set(rng):
    x, t = _fresh(rng)
    u = tl.empty(0)
    u.set_(t)
    t.set_(tl.zeros(3))  # t's own storage now lives on in u only
    del t
    np.testing.assert_array_equal(u.numpy(), x)


def block_replaced_by_resize(rng):
    x, t = _fresh(rng)
    t.resize_(1000)  # the bundled block dies first, the rest with t
    np.testing.assert_array_equal(t[:12].numpy(), x)
    t.resize_(1)
    t.untyped_storage().resize_(4)  # shrink the storage's new block
    np.testing.assert_array_equal(t[:1].numpy(), x[:1])


def detach_shares_storage(rng):
    x, t = _fresh(rng)
    d = t.detach()
    v = t[::2]
    del t
    d.mul_(2)
    np.testing.assert_array_equal(v.numpy(), 2 * x[::2])


def from_numpy_parts(rng):
    x = rng.standard_normal(12)
    t = tl.from_numpy(x)  # external memory: a wrapped block in the bundle
    v = t[3:]
    s = t.untyped_storage()
    del t
    np.testing.assert_array_equal(v.numpy(), x[3:])
    del v
    assert s.nbytes() == 96


def frombuffer_parts(rng):
    buf = bytearray(rng.bytes(16))
    t = tl.frombuffer(buf, dtype=tl.uint8)
    u = tl.empty(0, dtype=tl.uint8)
    u.set_(t.untyped_storage(), 4, (4,), (1,))
    del t
    assert bytes(u.numpy()) == bytes(buf[4:8])
    with pytest.raises(BufferError):
        buf.append(0)  # still exported: u holds the buffer
    del u
    buf.append(0)  # every part gone: the buffer is released


def whole(rng):
    x, t = _fresh(rng)
    np.testing.assert_array_equal((t + t).numpy(), x + x)


SCENARIOS = [view_outlives_root, export_outlives_tensor,
             dlpack_outlives_tensor, storage_outlives_tensor,
             storage_moves_by_set, block_replaced_by_resize,
             detach_shares_storage, from_numpy_parts, frombuffer_parts,
             whole]


def test_from_numpy_releases_the_array():
    x = np.arange(10.0)
    refs = sys.getrefcount(x)
    for _ in range(200):
        t = tl.from_numpy(x)
        a = t[2:].numpy()
        del t
        assert a[0] == 2.0
        del a
    assert sys.getrefcount(x) == refs


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_parts_die_in_any_order(scenario):
    rng = np.random.default_rng(7)
    rounds = 400

    def run():
        for _ in range(rounds):
            scenario(rng)
        gc.collect()

    run()  # warm caches, free lists and the pool
    stats = tl.memory_stats()
    heap = HEAP() if HEAP else None
    run()
    after = tl.memory_stats()
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    if heap is not None and heap > 0:
        # A leaked bundle is ~400 bytes: 400 rounds would leak >= 160 KB.
        grown = HEAP() - heap
        assert grown < 64 * 1024, (scenario.__name__, grown)


def test_whole_death_frees_at_once():
    """The common death (nothing else holds any part) gives the bytes back
    as the tensor goes."""
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    t = tl.empty(1000, dtype=tl.float64)
    assert tl.memory_stats()["active_bytes"] - before >= 8000
    del t
    assert tl.memory_stats()["active_bytes"] == before


def test_workspace_tensors_take_separate_structs():
    """A workspace arena makes its own block records: its tensors are not
    bundled, and still die cleanly (a view outliving its root included)."""
    with tl.workspace(1 << 20):
        for _ in range(50):
            t = tl.empty(100, memory_kind=tl.MemoryKind.Workspace)
            t.fill_(1)
            v = t[10:20]
            del t
            assert float(v.sum()) == 10.0
            del v


@pytest.mark.parametrize("memory_kind", ["Persistent", "HostPageable"])
def test_other_memory_kinds_bundle(memory_kind):
    kind = getattr(tl.MemoryKind, memory_kind)
    gc.collect()
    before = tl.memory_stats("cpu", memory_kind)["active_bytes"]
    for _ in range(50):
        t = tl.ones(64, memory_kind=kind)
        a = t.numpy()
        del t
        assert a.sum() == 64
        del a
    assert tl.memory_stats("cpu", memory_kind)["active_bytes"] == before
