"""Copy-on-write clones: t.lazy_clone().

A lazy clone is semantically a copy (its own storage object and version
counter, shares_memory false) that shares the bytes until either side is
first written.  Every write path materialises: in-place ops, out=,
setitem, copy_, fill_/zero_, writable buffer / NumPy / __array__ /
DLPack exports.  Reads and data_ptr() do not (a documented difference
from PyTorch).  The last holder of tensorlib memory takes the bytes over
without copying; borrowed memory (NumPy, DLPack, a file) is always
copied.
"""
import gc
import sys
import threading

import numpy as np
import pytest

import tensorlib as tl


def pair(n=12, dtype=tl.float32):
    a = tl.arange(n, dtype=dtype).reshape(3, n // 3)
    return a, a.lazy_clone()


def vals(t):
    return t.tolist()


def test_clone_is_a_copy_sharing_bytes():
    a, b = pair()
    assert b.data_ptr() == a.data_ptr()  # shared until written
    assert not tl.shares_memory(a, b)
    assert not tl.may_share_memory(a, b)
    assert a.untyped_storage() is not b.untyped_storage()
    assert b._version == 0
    assert vals(b) == vals(a)
    assert b.shape == a.shape and b.stride() == a.stride()
    assert b.dtype == a.dtype
    # Reads never materialise.
    float(b.sum()), b.tolist(), b[1, 2].item(), repr(b), b + 1
    assert b.data_ptr() == a.data_ptr()


def test_views_and_strides_preserved():
    base = tl.arange(24.).reshape(4, 6)
    v = base.t()[1:, ::2].flip(0)
    c = v.lazy_clone()
    assert c.stride() == v.stride()
    assert vals(c) == vals(v)
    c.add_(100)
    assert vals(base) == vals(tl.arange(24.).reshape(4, 6))
    assert vals(c) == [[x + 100 for x in row] for row in vals(v)]
    # A view of the clone follows the clone's materialisation.
    d = base.lazy_clone()
    dv = d[1]
    d.zero_()
    assert vals(dv) == [0.] * 6
    assert vals(base)[1] == [6., 7., 8., 9., 10., 11.]


WRITES = {
    "add_": lambda t: t.add_(1),
    "mul_": lambda t: t.mul_(2),
    "out": lambda t: tl.add(t, 1, out=t),
    "out_other": lambda t: tl.neg(tl.ones_like(t), out=t),
    "setitem": lambda t: t.__setitem__((0, 0), 99),
    "setitem_slice": lambda t: t.__setitem__(slice(None), 5),
    "setitem_mask": lambda t: t.__setitem__(t > 3, -1),
    "copy_": lambda t: t.copy_(tl.zeros_like(t)),
    "fill_": lambda t: t.fill_(7),
    "zero_": lambda t: t.zero_(),
    "clamp_": lambda t: t.clamp_(0, 2),
    "iadd": lambda t: t.__iadd__(3),
    "sum_out": lambda t: tl.sum(tl.ones(3, 4), dim=1, out=t[:, 0]),
    "numpy": lambda t: t.numpy().__setitem__((0, 0), 42),
    "array": lambda t: np.asarray(t).__setitem__((0, 0), 42),
    "buffer": lambda t: memoryview(t).__setitem__((0, 0), 42.0),
    "dlpack": lambda t: np.from_dlpack(t).__setitem__((0, 0), 42),
}


@pytest.mark.parametrize("which", ["clone", "source"])
@pytest.mark.parametrize("path", sorted(WRITES))
def test_every_write_path_materialises(path, which):
    a, b = pair()
    ref = vals(a)
    w, other = (b, a) if which == "clone" else (a, b)
    WRITES[path](w)
    if path in ("numpy", "array", "buffer", "dlpack"):
        assert vals(w)[0][0] == 42
    assert vals(other) == ref, f"{path} on the {which} leaked through"
    assert w.data_ptr() != other.data_ptr() or w.numel() == 0


def test_last_holder_takes_over_without_copy():
    a, b = pair()
    p = a.data_ptr()
    del a
    gc.collect()
    b.add_(1)
    assert b.data_ptr() == p  # no copy: the only holder kept the bytes
    assert vals(b)[0] == [1., 2., 3., 4.]
    # Source side: the clone went away first.
    a, b = pair()
    p = a.data_ptr()
    del b
    a.mul_(3)
    assert a.data_ptr() == p
    # The writer of a pair copies, then the other side takes over.
    a, b = pair()
    p = a.data_ptr()
    b.add_(1)
    assert b.data_ptr() != p
    a.add_(2)
    assert a.data_ptr() == p


def test_borrowed_memory_is_always_copied(tmp_path):
    # NumPy may write its array behind our checks: copied at once.
    x = np.arange(6.)
    a = tl.from_numpy(x)
    b = a.lazy_clone()
    assert b.data_ptr() != a.data_ptr()
    x[0] = 50
    assert vals(b) == list(np.arange(6.))
    a.add_(10)  # the source still aliases x
    np.testing.assert_array_equal(x, np.array([60., 11, 12, 13, 14, 15]))
    # A private file mapping is shared lazily, and its last holder still
    # copies (other tensors of the file may map the same pages).
    p = tmp_path / "b.safetensors"
    tl.save({"a": tl.arange(6.)}, p)
    a = tl.load(p, mmap=True)["a"]
    b = a.lazy_clone()
    ptr = a.data_ptr()
    assert b.data_ptr() == ptr
    del a
    gc.collect()
    b.fill_(1)
    assert b.data_ptr() != ptr
    assert vals(b) == [1.] * 6
    assert tl.load(p)["a"].tolist() == [0., 1., 2., 3., 4., 5.]
    # A shared ("r+") mapping can be written by others: copied at once.
    a = tl.load(p, mmap=True, mode="r+")["a"]
    assert a.lazy_clone().data_ptr() != a.data_ptr()


def test_read_only_source_gives_writable_clone(tmp_path):
    x = np.arange(4.)
    x.flags.writeable = False
    a = tl.from_numpy(x)
    assert a.is_readonly()
    b = a.lazy_clone()
    assert not b.is_readonly()
    b[1] = 7
    assert x[1] == 1
    p = tmp_path / "ro.safetensors"  # a read-only mapping, shared lazily
    tl.save({"a": tl.arange(4.)}, p)
    a = tl.load(p, mmap=True)["a"]
    assert a.is_readonly()
    b = a.lazy_clone()
    assert b.data_ptr() == a.data_ptr()
    assert not b.is_readonly()
    b[0] = 9
    assert vals(b) == [9., 1., 2., 3.]
    assert vals(a) == [0., 1., 2., 3.]
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1
    assert a.is_readonly()
    assert not np.from_dlpack(b).flags.writeable is False
    # A read-only view stays read-only; its clone does not.
    v = tl._C._readonly_view(tl.arange(3.))
    c = v.lazy_clone()
    c.add_(1)
    assert vals(c) == [1., 2., 3.]


def test_version_counters_are_separate():
    a, b = pair()
    a.add_(1)
    assert a._version == 1 and b._version == 0
    b.add_(1)
    b.add_(1)
    assert a._version == 1 and b._version == 2


def test_clone_of_clone_and_chains():
    a = tl.arange(5.)
    b = a.lazy_clone()
    c = b.lazy_clone()
    d = a.lazy_clone()
    assert len({a.data_ptr(), b.data_ptr(), c.data_ptr(),
                d.data_ptr()}) == 1
    c.add_(1)
    b.add_(2)
    assert vals(a) == vals(d) == [0., 1., 2., 3., 4.]
    assert vals(b) == [2., 3., 4., 5., 6.]
    assert vals(c) == [1., 2., 3., 4., 5.]
    del a
    d.add_(5)
    assert vals(d) == [5., 6., 7., 8., 9.]


def test_workspace_and_exported_sources_copy_at_once():
    with tl.workspace(1 << 16):
        w = tl.ones(8, memory_kind="Workspace")
        c = w.lazy_clone()
        assert c.data_ptr() != w.data_ptr()
    assert vals(c) == [1.] * 8  # survives the reset
    a = tl.arange(4.)
    arr = a.numpy()  # a live export: the consumer may write
    b = a.lazy_clone()
    assert b.data_ptr() != a.data_ptr()
    arr[0] = 100
    assert vals(b)[0] == 0
    del arr
    # __array_interface__ hands out an untracked pointer: never lazy again.
    e = tl.arange(3.)
    np.asarray(e.__array_interface__ and e)
    e.__array_interface__
    f = e.lazy_clone()
    assert f.data_ptr() != e.data_ptr()


def test_sub_storage_and_resize():
    a, b = pair()
    b.resize_(100)  # grows: a new block of its own
    b.view(-1)[:12].zero_() if b.is_contiguous() else None
    assert vals(a) == vals(tl.arange(12.).reshape(3, 4))
    a2, b2 = pair()
    b2.resize_(2, 2)  # shrinking keeps sharing until a write
    b2.add_(1)
    assert vals(a2)[0] == [0., 1., 2., 3.]


def test_mmap_copy_mode_composes(tmp_path):
    p = tmp_path / "m.safetensors"
    tl.save({"a": tl.arange(6.)}, p)
    for mode in ("r", "c"):
        a = tl.load(p, mmap=True, mode=mode)["a"]
        b = a.lazy_clone()
        assert b.data_ptr() == a.data_ptr()
        assert b.memory_kind == tl.MemoryKind.HostPageable
        b.add_(1)  # file memory is borrowed: always copied
        assert b.memory_kind == tl.MemoryKind.Default
        assert vals(a) == [0., 1., 2., 3., 4., 5.]
        assert vals(b) == [1., 2., 3., 4., 5., 6.]
        if mode == "c":
            a.mul_(2)
            assert vals(a) == [0., 2., 4., 6., 8., 10.]
    assert tl.load(p)["a"].tolist() == [0., 1., 2., 3., 4., 5.]


def test_two_threads_write_both_sides():
    for _ in range(20):
        a = tl.arange(1 << 16, dtype=tl.float32)
        b = a.lazy_clone()
        barrier = threading.Barrier(2)
        errors = []

        def work(t, k):
            try:
                barrier.wait()
                for _ in range(3):
                    t.add_(k)
            except BaseException as e:  # pragma: no cover
                errors.append(e)

        th = [threading.Thread(target=work, args=(a, 1.)),
              threading.Thread(target=work, args=(b, 2.))]
        for t in th:
            t.start()
        for t in th:
            t.join()
        assert not errors
        assert a.data_ptr() != b.data_ptr()
        base = np.arange(1 << 16, dtype=np.float32)
        np.testing.assert_array_equal(a.numpy(), base + 3)
        np.testing.assert_array_equal(b.numpy(), base + 6)


def test_dtypes_and_shapes():
    for dt in (tl.bool, tl.int8, tl.float16, tl.bfloat16, tl.complex128,
               tl.float8_e4m3fn):
        for shape in ((), (0,), (2, 3)):
            a = tl.ones(shape, dtype=dt)
            b = a.lazy_clone()
            b.zero_()
            assert vals(a) == vals(tl.ones(shape, dtype=dt))


def test_leak_loop():
    """lazy clones, materialisations and takeovers leave allocator stats
    and refcounts flat."""
    src = tl.arange(1000.)

    def once():
        b = src.lazy_clone()
        c = b.lazy_clone()
        c.add_(1)
        b[0] = 3
        d = src.lazy_clone()
        del d
        e = src.lazy_clone()
        e.numpy()

    for _ in range(3):
        once()
    gc.collect()
    s0 = tl.memory_stats()
    rc = sys.getrefcount(src)
    for _ in range(50):
        once()
    gc.collect()
    s1 = tl.memory_stats()
    assert s1["active_bytes"] == s0["active_bytes"]
    assert sys.getrefcount(src) == rc
    assert vals(src)[:3] == [0., 1., 2.]
