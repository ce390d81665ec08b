"""Allocator statistics from Python: the schema, the arithmetic of
allocate/free, block reuse by the caching pool, empty_cache, and loops that
must leave memory, reference counts and Python allocations flat."""
import contextlib
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import tensorlib as tl

KEYS = {"active_bytes", "active_bytes_peak", "reserved_bytes",
        "cached_bytes", "alloc_count", "free_count", "cache_hits",
        "cache_misses", "largest_free_block", "fragmentation_bytes",
        "mapped_bytes"}
T = tl._C._testing


@contextlib.contextmanager
def gc_paused():
    """No cyclic collection inside, so that garbage of earlier tests is not
    freed between two readings of the stats."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def delta(before, after):
    return {k: after[k] - before[k] for k in KEYS}


def test_schema():
    s = tl.memory_stats()
    assert set(s) == KEYS
    assert all(type(v) is int and v >= 0 for v in s.values())
    assert tl.memory_stats(device="cpu") == tl.memory_stats()
    assert tl.memory_stats(tl.device("cpu")) == s
    assert set(tl.memory_stats(kind="Default")) == KEYS
    assert set(tl.memory_stats(kind=tl.MemoryKind.Default)) == KEYS
    assert s["fragmentation_bytes"] == s["reserved_bytes"] - s["active_bytes"]
    assert s["cached_bytes"] <= s["reserved_bytes"]
    assert s["active_bytes"] <= s["active_bytes_peak"]
    assert s["largest_free_block"] <= s["cached_bytes"]


def test_memory_kind_enum():
    assert [k.name for k in tl.MemoryKind] == [
        "Default", "Persistent", "Workspace", "KVCache", "HostPinned",
        "HostPageable"]
    assert int(tl.MemoryKind.Workspace) == 2
    for k in tl.MemoryKind:
        assert set(tl.memory_stats(kind=k)) == KEYS
        assert set(tl.memory_stats(kind=k.name)) == KEYS


def test_memory_stats_bad_arguments():
    with pytest.raises(ValueError, match="'gpu'"):
        tl.memory_stats(device="gpu")
    with pytest.raises(ValueError, match="'nope'"):
        tl.memory_stats(kind="nope")
    with pytest.raises(TypeError):
        tl.memory_stats(device=1.5)
    with pytest.raises(TypeError):
        tl.memory_stats("cpu", None, 3)


@pytest.mark.parametrize("dtype, n", [("float64", 1000), ("uint8", 7),
                                      ("complex128", 4096), ("bool", 1),
                                      ("float32", 262144)])
def test_allocate_free_arithmetic(dtype, n):
    with gc_paused():
        s0 = tl.memory_stats()
        t = tl.empty(n, dtype=dtype)
        s1 = tl.memory_stats()
        nbytes = t.nbytes
        d = delta(s0, s1)
        assert d["active_bytes"] == nbytes
        assert d["alloc_count"] == 1
        assert d["free_count"] == 0
        assert d["cache_hits"] + d["cache_misses"] == 1
        assert s1["active_bytes_peak"] >= s1["active_bytes"]
        assert s1["reserved_bytes"] >= s1["active_bytes"]
        # Views, NumPy exports and Python references allocate nothing.
        v = t.as_strided((1,), (1,))
        a = t.numpy() if dtype != "bfloat16" else None
        m = memoryview(t)
        assert delta(s1, tl.memory_stats())["alloc_count"] == 0
        m.release()
        del t, v, a
        s2 = tl.memory_stats()
        d = delta(s1, s2)
        assert d["active_bytes"] == -nbytes
        assert d["free_count"] == 1
        assert d["alloc_count"] == 0
        assert s2["active_bytes"] == s0["active_bytes"]


def test_zero_size_tensors_hold_no_bytes():
    with gc_paused():
        s0 = tl.memory_stats()
        ts = [tl.empty(0), tl.zeros(3, 0), tl.ones((2 ** 62, 0))]
        assert tl.memory_stats()["active_bytes"] == s0["active_bytes"]
        assert [t.nbytes for t in ts] == [0, 0, 0]
        del ts
        assert tl.memory_stats()["active_bytes"] == s0["active_bytes"]


def test_large_block_is_reused():
    n = 16 * 1024 * 1024  # 64 MiB of float32
    with gc_paused():
        t = tl.empty(n, dtype=tl.float32)
        ptr = t.data_ptr()
        del t
        s1 = tl.memory_stats()
        assert s1["cached_bytes"] >= 64 * 2 ** 20
        t = tl.empty(n, dtype=tl.float32)
        s2 = tl.memory_stats()
        d = delta(s1, s2)
        assert d["cache_hits"] == 1
        assert d["cache_misses"] == 0
        assert d["reserved_bytes"] == 0
        assert d["active_bytes"] == 64 * 2 ** 20
        assert t.data_ptr() == ptr
        for _ in range(20):  # steady state: no new memory at all
            del t
            t = tl.zeros(n, dtype=tl.float32)
        s3 = tl.memory_stats()
        assert s3["reserved_bytes"] == s2["reserved_bytes"]
        assert s3["cache_misses"] == s2["cache_misses"]
        assert delta(s2, s3)["cache_hits"] == 20
        del t


def test_rounding_waste_is_bounded():
    with gc_paused():
        tl.empty_cache()
        for nbytes in (10 ** 6 + 1, 3 * 2 ** 20 + 7, 50 * 10 ** 6):
            s0 = tl.memory_stats()
            t = tl.empty(nbytes, dtype=tl.uint8)
            s1 = tl.memory_stats()
            grown = s1["reserved_bytes"] - s0["reserved_bytes"]
            if grown:  # a new segment for this block
                assert grown <= nbytes * 1.25 + 2 * 2 ** 20
            del t
        tl.empty_cache()


def test_peak_and_reset_peak():
    with gc_paused():
        base = tl.memory_stats()["active_bytes"]
        t = tl.empty(2 ** 20, dtype=tl.float64)
        u = tl.empty(2 ** 20, dtype=tl.float64)
        peak = tl.memory_stats()["active_bytes_peak"]
        assert peak >= base + 2 * 2 ** 23
        del u
        assert tl.memory_stats()["active_bytes_peak"] == peak
        tl.reset_peak_memory_stats()
        s = tl.memory_stats()
        assert s["active_bytes_peak"] == s["active_bytes"] == base + 2 ** 23
        del t


def test_empty_cache_releases_cached_blocks_only():
    with gc_paused():
        keep = tl.arange(1000, dtype=tl.float64)
        t = tl.empty(8 * 2 ** 20, dtype=tl.float32)
        del t
        s1 = tl.memory_stats()
        assert s1["cached_bytes"] >= 32 * 2 ** 20
        tl.empty_cache()
        s2 = tl.memory_stats()
        assert s2["cached_bytes"] < s1["cached_bytes"]
        assert s2["reserved_bytes"] <= s1["reserved_bytes"] - 32 * 2 ** 20
        assert s2["active_bytes"] == s1["active_bytes"]
        assert s2["reserved_bytes"] >= s2["active_bytes"]
        assert keep.tolist() == [float(i) for i in range(1000)]
        tl.empty_cache(device="cpu")
        tl.empty_cache(tl.device("cpu"))
        with pytest.raises(ValueError):
            tl.empty_cache(device="gpu")
        # A new allocation after empty_cache is a miss.
        t = tl.empty(8 * 2 ** 20, dtype=tl.float32)
        assert tl.memory_stats()["cache_misses"] == s2["cache_misses"] + 1
        del t


def test_allocator_name():
    assert tl._C._allocator_name() == "cpu_caching"
    assert tl._C._allocator_name("cpu", "Default") == "cpu_caching"


# ---- flat loops -------------------------------------------------------------


def _round_trips(a, t, iters):
    for i in range(iters):
        x = tl.empty(3, 4)
        y = tl.zeros((2, 5), dtype=tl.int32)
        z = tl.full((4,), 1.5, dtype=tl.float64)
        w = tl.tensor([[1, 2], [3, 4]])
        r = tl.arange(10)
        v = x.as_strided((2, 2), (1, 4), 1)
        s = x[1]
        n = z.numpy()
        m = memoryview(y)
        m.release()
        f = tl.from_numpy(a)
        g = tl.from_numpy(a[::-1])
        back = f.numpy()
        q = np.asarray(t)
        e = tl.empty_like(x)
        c = tl.tensor(t)
        _ = (x.shape, x.stride(), x.dtype, x.device, x.size(0), v.tolist(),
             s.numel(), len(r), int(r[3]), float(z[0]), hash(x),
             repr(w) if i % 50 == 0 else None)
        try:
            tl.empty(-1)
        except tl.ShapeError:
            pass
        try:
            tl.zeros(2, dtype="nope")
        except TypeError:
            pass
        try:
            x.item()
        except tl.ShapeError:
            pass
        del x, y, z, w, r, v, s, n, m, f, g, back, q, e, c


def _check_flat(iters):
    a = np.arange(12.0).reshape(3, 4)
    t = tl.arange(6, dtype=tl.float32)
    watched = [a, t, tl.float32, tl.int32, tl.float64, tl.device("cpu"),
               tl.contiguous_format, tl.ShapeError, tl.Tensor, tl.Size]
    _round_trips(a, t, 20)  # warm caches and interned objects
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    stats = tl.memory_stats()
    impl_rc, storage_rc = T.impl_refcount(t), T.storage_refcount(t)
    tracemalloc.start()
    try:
        _round_trips(a, t, iters // 10)
        gc.collect()
        snap1 = tracemalloc.take_snapshot()
        _round_trips(a, t, iters)
        gc.collect()
        snap2 = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in snap2.compare_to(snap1, "filename"))
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    assert after["reserved_bytes"] == stats["reserved_bytes"]
    assert (T.impl_refcount(t), T.storage_refcount(t)) == (impl_rc,
                                                           storage_rc)
    assert T.export_count(t) == 0
    # Python-side memory: a leak of even one small object per iteration
    # would show as iters * ~50 bytes.
    assert grown < 16 * 1024, grown


def test_loops_stay_flat_short():
    _check_flat(500)


@pytest.mark.slow
def test_loops_stay_flat_10000():
    _check_flat(10000)


def test_exports_and_numpy_release_memory():
    with gc_paused():
        base = tl.memory_stats()["active_bytes"]
        for _ in range(200):
            t = tl.empty(1000, dtype=tl.float64)
            n = t.numpy()
            m = memoryview(t)
            del t
            assert tl.memory_stats()["active_bytes"] == base + 8000
            m.release()
            del n
            assert tl.memory_stats()["active_bytes"] == base
