"""tensorlib.load(..., mmap=True): views over one mapping of the file.

Laziness is checked through the process's resident memory (/proc/self/
statm) and the mapping's lifetime through /proc/self/maps: mapped on
load, unmapped when the last tensor, view or export of it dies.  Modes
"r" (read-only), "c" (private copy-on-write pages) and "r+" (writes reach
the file); memory_stats()["mapped_bytes"]; memory kind HostPageable.
"""
import gc
import os
import struct
import sys

import numpy as np
import pytest

import tensorlib as tl

linux = pytest.mark.skipif(not sys.platform.startswith("linux"),
                           reason="reads /proc/self")
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def mapped(path):
    real = os.path.realpath(path)
    with open("/proc/self/maps") as f:
        return any(line.rstrip("\n").endswith(real) for line in f)


@pytest.fixture
def big_file(tmp_path):
    """A safetensors file of 64 MiB of float32 (written in pieces, so the
    test itself never holds it), and its page cache dropped."""
    p = tmp_path / "big.safetensors"
    n = 16 << 20  # elements
    tl.save({"w": tl.arange(n, dtype=tl.float32),
             "b": tl.arange(10, dtype=tl.float32)}, p)
    gc.collect()
    fd = os.open(p, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return p, n


@linux
def test_mmap_is_lazy_and_unmapped_with_last_view(big_file):
    p, n = big_file
    gc.collect()
    before = rss()
    d = tl.load(p, mmap=True)
    after = rss()
    assert after - before < 8 << 20  # 64 MiB mapped, next to nothing read
    assert mapped(p)
    assert tl.memory_stats()["mapped_bytes"] >= n * 4
    w = d["w"]
    assert w.memory_kind == tl.MemoryKind.HostPageable
    assert w.is_readonly()
    # Touching every page brings it in.
    assert float(w[-1]) == n - 1
    assert float(w.sum()) > 0
    assert rss() - before > 32 << 20
    view = w[::1000]
    arr = d["b"].numpy()
    del d, w
    gc.collect()
    assert mapped(p)  # a view keeps the mapping
    del view
    gc.collect()
    assert mapped(p)  # and so does a NumPy export
    np.testing.assert_array_equal(arr, np.arange(10, dtype=np.float32))
    del arr
    gc.collect()
    assert not mapped(p)
    assert tl.memory_stats()["mapped_bytes"] == 0


@linux
def test_mmap_load_time_does_not_grow_with_size(tmp_path):
    import time
    times = {}
    for n in (1 << 10, 16 << 20):
        p = tmp_path / f"s{n}.safetensors"
        tl.save({"w": tl.zeros(n, dtype=tl.float32)}, p)
        best = 1e9
        for _ in range(5):
            t0 = time.perf_counter()
            d = tl.load(p, mmap=True)
            best = min(best, time.perf_counter() - t0)
            del d
        times[n] = best
    # Generous: 64 MiB vs 4 KiB; eager loading would be ~1000x.
    assert times[16 << 20] < 20 * times[1 << 10] + 1e-3


def test_mode_r_is_read_only(tmp_path):
    p = tmp_path / "r.safetensors"
    tl.save({"a": tl.arange(6.)}, p)
    a = tl.load(p, mmap=True)["a"]
    assert a.is_readonly()
    with pytest.raises(ValueError, match="read-only"):
        a.add_(1)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        a.fill_(0)
    with pytest.raises(ValueError, match="read-only"):
        tl.add(a, 1, out=a)
    assert not a.numpy().flags.writeable
    assert memoryview(a).readonly
    c = a + 1  # reads are fine
    assert c.tolist() == [1., 2., 3., 4., 5., 6.]


def test_mode_c_private_and_r_plus_writes_through(tmp_path):
    p = tmp_path / "c.safetensors"
    tl.save({"a": tl.arange(6.), "b": tl.ones(2, dtype=tl.int64)}, p)
    orig = p.read_bytes()
    d = tl.load(p, mmap=True, mode="c")
    d["a"].mul_(10)
    d["b"][0] = 7
    assert d["a"].tolist() == [0., 10., 20., 30., 40., 50.]
    assert p.read_bytes() == orig  # private pages
    del d
    d = tl.load(p, mmap=True, mode="r+")
    d["a"].add_(1)
    d["b"].fill_(3)
    del d
    gc.collect()
    r = tl.load(p)
    assert r["a"].tolist() == [1., 2., 3., 4., 5., 6.]
    assert r["b"].tolist() == [3, 3]


def test_npy_mmap_modes(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.arange(12, dtype=np.int32).reshape(3, 4))
    t = tl.load(p, mmap=True)
    assert t.is_readonly()
    assert t.memory_kind == tl.MemoryKind.HostPageable
    t = tl.load(p, mmap=True, mode="r+")
    t[1].fill_(-1)
    del t
    gc.collect()
    np.testing.assert_array_equal(np.load(p)[1], [-1] * 4)
    t = tl.load(p, mmap=True, mode="c")
    t.zero_()
    del t
    np.testing.assert_array_equal(np.load(p)[1], [-1] * 4)
    # NumPy's memmap sees our writes through r+ and vice versa.
    m = np.load(p, mmap_mode="r+")
    m[0, 0] = 99
    m.flush()
    del m
    assert tl.load(p, mmap=True)[0, 0].item() == 99


def test_mmap_offsets_and_alignment_of_foreign_file(tmp_path):
    """A file from the reference writer (8-byte header padding) maps
    with unaligned-to-64 tensors; values are right."""
    import safetensors.numpy as stn
    p = tmp_path / "f.safetensors"
    arrays = {"a": np.arange(3, dtype=np.int8),
              "b": np.arange(5, dtype=np.float64),
              "c": np.arange(4, dtype=np.float16)}
    stn.save_file(arrays, str(p))
    d = tl.load(p, mmap=True)
    for k, a in arrays.items():
        np.testing.assert_array_equal(d[k].numpy(), a)
    (n,) = struct.unpack("<Q", p.read_bytes()[:8])
    assert (8 + n) % 8 == 0


def test_mmap_errors(tmp_path):
    p = tmp_path / "gone.safetensors"
    with pytest.raises(FileNotFoundError):
        tl.load(p, mmap=True)
    with pytest.raises(ValueError, match="mode"):
        tl.load(p, mmap=True, mode="w+")


def test_mmap_survives_unlink(tmp_path):
    """Deleting the file while mapped is harmless (documented; truncating
    it is not)."""
    p = tmp_path / "u.safetensors"
    tl.save({"a": tl.arange(1000.)}, p)
    a = tl.load(p, mmap=True)["a"]
    os.unlink(p)
    assert float(a.sum()) == 999 * 1000 / 2
