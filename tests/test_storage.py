"""Storage, identity and versions: untyped_storage() (PyTorch's
UntypedStorage plus memory_kind and use_count) and its identity across
views; _base, _is_view and the shared version counter bumped by every
in-place write; detach; the allow_tensor_metadata_change flag; resize_,
set_ and untyped_storage().resize_() (validated before anything changes,
BufferError under a live export, never a dangling pointer);
shares_memory / may_share_memory against NumPy; memory formats against
PyTorch."""
import gc

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing


def layout(t):
    """Everything a refused operation must leave as it was."""
    return (tuple(t.shape), t.stride(), t.storage_offset(), t.data_ptr(),
            t.untyped_storage().nbytes(), t.untyped_storage().data_ptr(),
            t._version, t.numpy().copy())


def assert_layout(t, before):
    now = layout(t)
    assert now[:7] == before[:7]
    np.testing.assert_array_equal(now[7], before[7])


# ---- the storage object -----------------------------------------------------


def test_storage_api():
    t = tl.arange(10, dtype=tl.float32)
    s = t.untyped_storage()
    assert isinstance(s, tl.UntypedStorage)
    assert s.nbytes() == 40 and s.size() == 40 and len(s) == 40
    assert s.data_ptr() == t.data_ptr()
    assert s.device == tl.device("cpu") and str(s.device) == "cpu"
    assert s.resizable() is True
    assert s.memory_kind == tl.MemoryKind.Default
    assert isinstance(s.memory_kind, tl.MemoryKind)
    assert "40 bytes" in repr(s)
    with pytest.raises(TypeError):
        tl.UntypedStorage()


def test_storage_api_vs_torch(torch):
    for dt, tdt in [(tl.float32, torch.float32), (tl.int16, torch.int16),
                    (tl.complex128, torch.complex128)]:
        t, tt = tl.zeros(3, 5, dtype=dt), torch.zeros(3, 5, dtype=tdt)
        s, ts = t[1:, ::2].untyped_storage(), tt[1:, ::2].untyped_storage()
        assert s.nbytes() == ts.nbytes()
        assert s.data_ptr() == t.data_ptr()
        assert s.resizable() == ts.resizable()


def test_storage_is_one_object_for_all_views():
    t = tl.arange(24, dtype=tl.float64)
    s = t.untyped_storage()
    views = [t.view(2, 3, 4), t[::3], t.flip(0), t.view(4, 6).t()[1],
             t.as_strided((2, 2), (5, 1), 3), t.unfold(0, 4, 2), t.detach()]
    for v in views:
        assert v.untyped_storage() is s
    assert s.data_ptr() == t.data_ptr()
    assert views[1][2:].untyped_storage() is s
    # the storage keeps its identity and bytes after the tensors are gone
    del t, views
    gc.collect()
    assert s.nbytes() == 24 * 8
    # a copy has its own storage
    u = tl.arange(3, dtype=tl.float64)
    assert u.clone().untyped_storage() is not u.untyped_storage()


def test_storage_offset_views_report_the_whole_storage():
    t = tl.arange(10, dtype=tl.int64)
    v = t[4:]
    assert v.untyped_storage().nbytes() == 80
    assert v.untyped_storage().data_ptr() == t.data_ptr()
    assert v.data_ptr() == t.data_ptr() + 32


def test_use_count_counts_tensors_and_exports():
    t = tl.arange(8, dtype=tl.float64)
    s = t.untyped_storage()
    base = s.use_count()
    assert base >= 1
    v = t[2:]
    # A view borrows its root's reference (Note [Views borrow from their
    # base]); a detached alias holds one of its own.
    assert s.use_count() == base
    d = v.detach()
    assert s.use_count() == base + 1
    del d
    m = memoryview(t)
    assert s.use_count() >= base + 1
    with_m = s.use_count()
    n = t.numpy()
    assert s.use_count() >= with_m
    del v, n
    m.release()
    gc.collect()
    assert s.use_count() == base


def test_storage_survives_its_tensor():
    t = tl.full((100,), 7.0, dtype=tl.float64)
    s = t.untyped_storage()
    ptr = s.data_ptr()
    del t
    gc.collect()
    assert s.data_ptr() == ptr and s.nbytes() == 800


# ---- _base, _is_view, versions ----------------------------------------------


def test_base_and_is_view():
    root = tl.arange(12, dtype=tl.float64)
    assert root._base is None and not root._is_view()
    v = root.view(3, 4)
    w = v[1:].t()
    assert v._base is root and w._base is root
    assert v._is_view() and w._is_view()
    c = w.clone()
    assert c._base is None and not c._is_view()
    assert w.contiguous()._base is None


def test_base_vs_torch_for_view_ops(torch):
    x, tx = tl.arange(24, dtype=tl.float64), torch.arange(24.0)
    for f in [lambda t: t.view(2, 12), lambda t: t[3:],
              lambda t: t.view(4, 6).t(),
              lambda t: t.unsqueeze(0), lambda t: t.narrow(0, 2, 3),
              lambda t: t.detach(), lambda t: t.view(4, 6).t().reshape(24),
              lambda t: t.reshape(4, 6), lambda t: t.clone()]:
        r, tr = f(x), f(tx)
        assert r._is_view() == tr._is_view()
        assert (r._base is None) == (tr._base is None)


INPLACE_WRITES = [
    ("add_", lambda t: t.add_(1.0)),
    ("add_ tensor", lambda t: t.add_(tl.ones(t.shape))),
    ("mul_", lambda t: t.mul_(2.0)),
    ("sub_", lambda t: t.sub_(1.0)),
    ("copy_", lambda t: t.copy_(tl.zeros(t.shape))),
    ("copy_ broadcast", lambda t: t.copy_(tl.tensor(3.0))),
    ("fill_", lambda t: t.fill_(5.0)),
    ("zero_", lambda t: t.zero_()),
    ("setitem int", lambda t: t.__setitem__(0, 1.0)),
    ("setitem slice", lambda t: t.__setitem__(slice(None), tl.ones(4))),
    ("setitem adv", lambda t: t.__setitem__([0, 2], 9.0)),
    ("setitem mask", lambda t: t.__setitem__(t > 1.0, 9.0)),
    ("iadd", lambda t: t.__iadd__(1.0)),
    ("imul", lambda t: t.__imul__(tl.ones(4))),
    ("out=", lambda t: tl.add(tl.ones(4), 1.0, out=t)),
    ("out= self", lambda t: tl.mul(t, t, out=t)),
    ("clamp_", lambda t: t.clamp_(0.0, 1.0)),
    ("neg_", lambda t: t.neg_()),
]


@pytest.mark.parametrize("name,write", INPLACE_WRITES,
                         ids=[w[0] for w in INPLACE_WRITES])
def test_every_inplace_write_bumps_the_shared_version(name, write):
    root = tl.arange(8, dtype=tl.float64)
    t = root[::2]              # a view
    others = [root, root.view(2, 4), root.flip(0), t.detach()]
    before = t._version
    assert all(o._version == before for o in others)
    write(t)
    assert t._version >= before + 1
    assert all(o._version == t._version for o in others)


def test_reads_and_views_do_not_bump():
    t = tl.arange(6, dtype=tl.float64)
    v0 = t._version
    _ = t + 1, t.sum(), t.view(2, 3), t[::2], t.numpy(), t.tolist(), t.clone()
    _ = t[[0, 1]], t[t > 2.0], t.contiguous(), t.flip(0).contiguous()
    assert t._version == v0


def test_failed_inplace_write_does_not_bump():
    t = tl.arange(6, dtype=tl.float64)
    with pytest.raises(tl.ShapeError):
        t.add_(tl.ones(4))
    with pytest.raises(tl.ShapeError):
        t.copy_(tl.ones(2, 3))
    with pytest.raises(IndexError):
        t[10] = 1.0
    assert t._version == 0
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_version_counts_like_torch(torch):
    x, tx = tl.zeros(4), torch.zeros(4)
    for f in [lambda t: t.add_(1), lambda t: t.mul_(2),
              lambda t: t.__setitem__(0, 5), lambda t: t.zero_(),
              lambda t: t.__setitem__(slice(None), 1),
              lambda t: t.fill_(2), lambda t: t.copy_(t.flip(0))]:
        f(x)
        f(tx)
        assert x._version == tx._version


def test_new_tensors_start_at_version_zero():
    for t in [tl.tensor(np.arange(3.0)), tl.tensor([1.0, 2.0]), tl.zeros(3),
              tl.arange(3.0), tl.empty(2), tl.arange(3.0).clone()]:
        assert t._version == 0


def test_clone_has_its_own_version_counter():
    t = tl.zeros(3)
    t.add_(1.0)
    c = t.clone()
    assert c._version == 0
    c.add_(1.0)
    assert t._version == 1 and c._version == 1
    c.add_(1.0)
    assert t._version == 1


def test_detach_shares_storage_and_version():
    t = tl.arange(6, dtype=tl.float64).view(2, 3)
    d = t.detach()
    assert d is not t
    assert d.untyped_storage() is t.untyped_storage()
    assert d.data_ptr() == t.data_ptr()
    assert d.shape == t.shape and d.stride() == t.stride()
    assert d._base is None and not d._is_view()   # as PyTorch
    v0 = t._version
    d.add_(10.0)
    assert t._version == v0 + 1 == d._version
    assert t[0, 0].item() == 10.0
    # its metadata may change without touching the original
    d.resize_(3)
    assert d.shape == (3,) and t.shape == (2, 3)
    d.set_()
    assert t.shape == (2, 3) and t[1, 2].item() == 15.0


def test_detach_vs_torch(torch):
    t = tl.arange(6, dtype=tl.float64).view(2, 3)
    tt = torch.arange(6.0, dtype=torch.float64).view(2, 3)
    d, td = t.detach(), tt.detach()
    assert d._is_view() == td._is_view()
    assert (d._base is None) == (td._base is None)
    d.add_(1)
    td.add_(1)
    assert t._version == tt._version


# ---- allow_tensor_metadata_change -------------------------------------------


def test_locked_metadata_refuses_resize_and_set():
    t = tl.arange(6, dtype=tl.float64)
    other = tl.zeros(10, dtype=tl.float64)
    T.set_allow_metadata_change(t, False)
    before = layout(t)
    for f in [lambda: t.resize_(10), lambda: t.resize_(2),
              lambda: t.resize_(2, 3), lambda: t.set_(),
              lambda: t.set_(other),
              lambda: t.set_(other.untyped_storage(), 0, (2,), (1,))]:
        with pytest.raises(RuntimeError, match="metadata|layout"):
            f()
        assert_layout(t, before)
    if hasattr(t, "as_strided_"):
        with pytest.raises(RuntimeError):
            t.as_strided_((2,), (1,))
        assert_layout(t, before)
    # data writes and views are still fine
    t.add_(1.0)
    assert t.view(2, 3)[1, 2].item() == 6.0
    T.set_allow_metadata_change(t, True)
    t.resize_(2)
    assert t.shape == (2,)


# ---- resize_ ----------------------------------------------------------------


def test_resize_grow_keeps_prefix_and_makes_contiguous():
    t = tl.arange(6, dtype=tl.float64)
    s = t.untyped_storage()
    t.resize_(3, 4)
    assert t.shape == (3, 4) and t.stride() == (4, 1)
    assert t.untyped_storage() is s and s.nbytes() == 96
    assert t.view(-1)[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_resize_shrink_keeps_capacity_and_data():
    t = tl.arange(10, dtype=tl.float64)
    ptr = t.data_ptr()
    t.resize_(2, 2)
    assert t.shape == (2, 2) and t.untyped_storage().nbytes() == 80
    assert t.data_ptr() == ptr
    t.resize_(10)                   # back within capacity: same memory
    assert t.data_ptr() == ptr
    assert t.tolist() == [float(i) for i in range(10)]
    t.resize_(0)
    assert t.shape == (0,) and t.untyped_storage().nbytes() == 80


def test_resize_views_see_the_new_block():
    t = tl.arange(4, dtype=tl.float64)
    v = t[1:3]
    t.resize_(100000)
    assert v.untyped_storage() is t.untyped_storage()
    assert v.tolist() == [1.0, 2.0]
    t[1] = 42.0
    assert v[0].item() == 42.0
    assert v.data_ptr() == t.data_ptr() + 8


def test_resize_with_storage_offset():
    t = tl.arange(10, dtype=tl.float64)
    v = t[5:]
    v.resize_(8)
    assert v.storage_offset() == 5
    assert v.untyped_storage().nbytes() == (5 + 8) * 8
    assert v[:5].tolist() == [5.0, 6.0, 7.0, 8.0, 9.0]


def test_resize_same_size_keeps_strides():
    t = tl.arange(6, dtype=tl.float64).view(2, 3).t()
    v0 = t._version
    t.resize_(3, 2)
    assert t.stride() == (1, 3) and t._version == v0


@pytest.mark.parametrize("seed", range(10))
def test_resize_vs_torch(torch, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    t = tl.arange(n, dtype=tl.float32)
    tt = torch.arange(n, dtype=torch.float32)
    off = int(rng.integers(0, n))
    t, tt = t[off:], tt[off:]
    v0, tv0 = t._version, tt._version
    for _ in range(6):
        ndim = int(rng.integers(0, 4))
        shape = tuple(int(s) for s in rng.integers(0, 6, ndim))
        if rng.random() < 0.3 and t.ndim >= 2:
            t, tt = t.transpose(0, 1), tt.transpose(0, 1)
        t.resize_(shape)
        tt.resize_(shape)
        assert t.shape == tuple(tt.shape)
        assert t.stride() == tt.stride()
        assert t.storage_offset() == tt.storage_offset()
        assert t.untyped_storage().nbytes() == tt.untyped_storage().nbytes()
        assert t._version - v0 == tt._version - tv0
        # the bytes both libraries defined (the original prefix) agree
        k = min(t.numel(), max(0, n - off))
        if k:
            np.testing.assert_array_equal(
                t.contiguous().view(-1)[:k].numpy(),
                tt.contiguous().view(-1)[:k].clone().numpy())
            # (torch's .numpy() makes a storage non-resizable: clone first)


@pytest.mark.parametrize("sizes,exc", [
    ((-1,), tl.ShapeError),
    ((2, -3), tl.ShapeError),
    ((2 ** 62, 4), OverflowError),
    ((2 ** 61, 2 ** 61), OverflowError),
    ((2 ** 63 - 1,), (OverflowError, MemoryError)),
    ((1,) * 65, (ValueError, tl.ShapeError)),
])
def test_refused_resize_changes_nothing(sizes, exc):
    t = tl.arange(6, dtype=tl.float64).view(2, 3).t()
    before = layout(t)
    with pytest.raises(exc):
        t.resize_(sizes)
    assert_layout(t, before)


def test_resize_under_live_memoryview_raises_buffer_error():
    t = tl.arange(6, dtype=tl.float64)
    m = memoryview(t)
    before = layout(t)
    with pytest.raises(BufferError, match="export"):
        t.resize_(1 << 20)
    assert_layout(t, before)
    # the memoryview is still valid: the memory did not move
    assert m.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert m.tobytes() == np.arange(6.0).tobytes()
    # shrinking the tensor is fine (the storage keeps its bytes)
    t.resize_(2)
    assert m.tolist()[:2] == [0.0, 1.0]
    t.resize_(6)
    m.release()
    t.resize_(1 << 20)
    assert t.shape == (1 << 20,)
    assert t[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_resize_under_live_numpy_array_raises_buffer_error():
    t = tl.arange(6, dtype=tl.float64)
    a = t.numpy()
    view_of_a = a[2:]
    before = layout(t)
    with pytest.raises(BufferError):
        t.resize_(1 << 20)
    with pytest.raises(BufferError):
        t.untyped_storage().resize_(1 << 23)
    with pytest.raises(BufferError):
        t.untyped_storage().resize_(8)
    assert_layout(t, before)
    a[0] = 100.0                    # still the tensor's memory
    assert t[0].item() == 100.0
    del a
    gc.collect()
    with pytest.raises(BufferError):  # a view of the array still exports
        t.resize_(1 << 20)
    del view_of_a
    gc.collect()
    t.resize_(1 << 20)
    assert t[:3].tolist() == [100.0, 1.0, 2.0]


def test_resize_of_view_of_exported_storage():
    t = tl.arange(8, dtype=tl.float64)
    m = memoryview(t[2:4])
    v = t[4:]
    with pytest.raises(BufferError):
        v.resize_(1 << 20)
    assert v.shape == (4,)
    m.release()
    v.resize_(1 << 20)
    assert t.untyped_storage() is v.untyped_storage()


def test_resize_of_non_resizable_storage():
    a = np.arange(4.0)
    t = tl.from_numpy(a)
    s = t.untyped_storage()
    assert s.resizable() is False
    before = layout(t)
    with pytest.raises((RuntimeError, BufferError)):
        t.resize_(1000)
    with pytest.raises((RuntimeError, BufferError)):
        s.resize_(8000)
    assert_layout(t, before)
    t.resize_(2)                    # shrinking the tensor needs no memory
    assert t.tolist() == [0.0, 1.0]


def test_storage_resize_grow_and_shrink():
    t = tl.arange(4, dtype=tl.float64)
    v = t[1:]
    s = t.untyped_storage()
    assert s.resize_(1 << 16) is s
    assert s.nbytes() == 1 << 16
    assert t.untyped_storage() is s and v.untyped_storage() is s
    assert t.data_ptr() == s.data_ptr() and v.data_ptr() == s.data_ptr() + 8
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and v.tolist() == [1.0, 2.0, 3.0]
    s.resize_(8)                    # shrink: capacity kept
    assert s.nbytes() == 8
    # t and v overhang the shrunk storage: their data is refused
    # (tests/test_shrunk_storage.py has every access path)
    with pytest.raises(RuntimeError, match="shrunk to 8 bytes"):
        t.tolist()
    with pytest.raises(RuntimeError, match="needs 32 bytes"):
        v.sum()
    with pytest.raises(tl.ShapeError):
        t.view(2, 2).as_strided((4,), (1,))  # now beyond the storage
    s.resize_(32)
    assert t.tolist()[:1] == [0.0]
    with pytest.raises(ValueError):
        s.resize_(-1)
    assert s.nbytes() == 32


def test_storage_grow_within_capacity_under_export_is_allowed():
    t = tl.arange(16, dtype=tl.float64)
    s = t.untyped_storage()
    head = t[:2]                    # fits the shrunk storage (t does not)
    s.resize_(16)                   # shrink while nothing is exported
    m = memoryview(head)
    ptr = s.data_ptr()
    s.resize_(128)                  # back within the block: nothing moves
    assert s.data_ptr() == ptr and s.nbytes() == 128
    with pytest.raises(BufferError):
        s.resize_(1 << 20)          # beyond the block: would move
    assert s.nbytes() == 128 and m.tolist() == [0.0, 1.0]
    m.release()


def test_resize_vs_torch_storage_sizes(torch):
    for n, shapes in [(3, [(5,), (2,), (2, 4), (0,), (7,)]),
                      (10, [(1, 1, 1), (11,), (3, 4)])]:
        t, tt = tl.zeros(n), torch.zeros(n)
        for s in shapes:
            t.resize_(s)
            tt.resize_(s)
            assert t.untyped_storage().nbytes() == \
                tt.untyped_storage().nbytes()


# ---- set_ -------------------------------------------------------------------


def test_set_tensor():
    src = tl.arange(12, dtype=tl.float64).view(3, 4).t()[1:]
    t = tl.zeros(2, dtype=tl.float64)
    v0 = t._version
    assert t.set_(src) is t
    assert t.untyped_storage() is src.untyped_storage()
    assert t.shape == src.shape and t.stride() == src.stride()
    assert t.storage_offset() == src.storage_offset()
    np.testing.assert_array_equal(t.numpy(), src.numpy())
    assert t._version == v0 + 1     # an in-place op, as PyTorch
    assert t._base is None          # rebinding does not make a view
    t[0, 0] = -1.0
    assert src[0, 0].item() == -1.0


def test_set_storage_offset_size_stride():
    w = tl.arange(12, dtype=tl.float64)
    t = tl.zeros(1, dtype=tl.float64)
    t.set_(w.untyped_storage(), 2, (2, 3), (1, 2))
    assert t.tolist() == [[2.0, 4.0, 6.0], [3.0, 5.0, 7.0]]
    t.set_(source=w.untyped_storage(), storage_offset=1, size=(3,))
    assert t.tolist() == [1.0, 2.0, 3.0] and t.stride() == (1,)
    t.set_(w.untyped_storage())
    assert t.shape == (12,)
    i = tl.zeros(1, dtype=tl.int16)
    i.set_(w.untyped_storage())     # an untyped storage: sized in int16s
    assert i.shape == (48,)


def test_set_no_args():
    t = tl.arange(5, dtype=tl.float64)
    s = t.untyped_storage()
    t.set_()
    assert t.shape == (0,) and t.numel() == 0
    assert t.untyped_storage() is not s
    assert t.untyped_storage().nbytes() == 0


def test_set_vs_torch(torch):
    w, tw = tl.arange(12.0), torch.arange(12.0)
    t, tt = tl.zeros(1), torch.zeros(1)
    t.set_(w.untyped_storage(), 3, (2, 2), (4, 1))
    tt.set_(tw.untyped_storage(), 3, (2, 2), (4, 1))
    np.testing.assert_array_equal(t.numpy(), tt.numpy())
    assert t._version == tt._version
    t.set_()
    tt.set_()
    assert t.shape == tuple(tt.shape) and t._version == tt._version


@pytest.mark.parametrize("args,exc", [
    ((None, 0, (13,), (1,)), tl.ShapeError),        # past the end
    ((None, 10, (3,), (1,)), tl.ShapeError),
    ((None, -1, (2,), (1,)), tl.ShapeError),
    ((None, 0, (2, 2), (1,)), tl.ShapeError),       # len mismatch
    ((None, 0, (2,), (2 ** 62,)), (OverflowError, tl.ShapeError)),
    ((None, 2 ** 62, (2,), (1,)), (OverflowError, tl.ShapeError)),
    ((None, 0, (-1,), (1,)), tl.ShapeError),
])
def test_refused_set_changes_nothing(args, exc):
    w = tl.arange(12, dtype=tl.float64)
    t = tl.arange(4, dtype=tl.float64).view(2, 2).t()
    before = layout(t)
    with pytest.raises(exc):
        t.set_(w.untyped_storage(), *args[1:])
    assert_layout(t, before)


def test_set_refuses_other_dtype_and_types():
    t = tl.zeros(2)
    before = layout(t)
    with pytest.raises(TypeError):
        t.set_(tl.zeros(2, dtype=tl.int32))
    with pytest.raises(TypeError):
        t.set_(np.zeros(2))
    with pytest.raises(TypeError):
        t.set_(tl.zeros(3), 0)
    assert_layout(t, before)


def test_set_away_from_an_exported_storage_is_allowed():
    t = tl.arange(4, dtype=tl.float64)
    m = memoryview(t)
    t.set_(tl.zeros(3, dtype=tl.float64))
    assert t.tolist() == [0.0, 0.0, 0.0]
    assert m.tolist() == [0.0, 1.0, 2.0, 3.0]  # the old memory is intact
    m.release()


# ---- shares_memory / may_share_memory ---------------------------------------


def random_strided_view(rng, root, n):
    """A random view of root (n elements): as_strided with non-negative
    strides, then maybe flipped."""
    for _ in range(100):
        ndim = int(rng.integers(1, 4))
        sizes = tuple(int(s) for s in rng.integers(1, 5, ndim))
        strides = tuple(int(s) for s in rng.integers(0, 7, ndim))
        span = sum((s - 1) * st for s, st in zip(sizes, strides))
        if span < n:
            off = int(rng.integers(0, n - span))
            v = root.as_strided(sizes, strides, off)
            dims = [d for d in range(ndim) if rng.random() < 0.3]
            return v.flip(dims) if dims else v
    return root


@pytest.mark.parametrize("seed", range(20))
def test_shares_memory_vs_numpy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 60))
    root = tl.zeros(n, dtype=rng.choice([tl.float64, tl.int16, tl.uint8]))
    for _ in range(50):
        a = random_strided_view(rng, root, n)
        b = random_strided_view(rng, root, n)
        na, nb = a.numpy(), b.numpy()
        assert tl.shares_memory(a, b) == np.shares_memory(na, nb), \
            (a.shape, a.stride(), a.storage_offset(),
             b.shape, b.stride(), b.storage_offset())
        assert tl.shares_memory(a, b) == tl.shares_memory(b, a)
        assert tl.may_share_memory(a, b) == np.may_share_memory(na, nb)
        try:
            r = tl.shares_memory(a, b, max_work=3)
            assert r == np.shares_memory(na, nb)
        except tl.TooHardError:
            pass


def test_shares_memory_basic_cases():
    x = tl.arange(20, dtype=tl.float64)
    e, o = x[::2], x[1::2]
    assert not tl.shares_memory(e, o)
    assert tl.may_share_memory(e, o)
    assert tl.shares_memory(x, x) and tl.shares_memory(x, x.flip(0))
    assert tl.shares_memory(x[:10], x[9:])
    assert not tl.shares_memory(x[:10], x[10:])
    assert not tl.may_share_memory(x[:10], x[10:])
    assert not tl.shares_memory(x, tl.arange(20, dtype=tl.float64))
    assert not tl.shares_memory(x[:0], x) and not tl.may_share_memory(x[:0], x)
    assert tl.shares_memory(x[3:4].expand(5), x[::3])
    assert tl.shares_memory(a=x[2:3], b=x, max_work=None)


def test_shares_memory_across_imports_of_one_array():
    a = np.arange(10.0)
    t1, t2 = tl.from_numpy(a), tl.from_numpy(a[1:])
    assert tl.shares_memory(t1, t2) and tl.may_share_memory(t1, t2)
    t3 = tl.from_numpy(a[5:])
    assert not tl.shares_memory(tl.from_numpy(a[:5]), t3)
    assert not tl.shares_memory(tl.from_numpy(a[::2]), tl.from_numpy(a[1::2]))


def test_shares_memory_too_hard():
    x = tl.arange(64, dtype=tl.float64)
    e, o = x[::2], x[1::2]
    with pytest.raises(tl.TooHardError, match="max_work"):
        tl.shares_memory(e, o, max_work=1)
    assert issubclass(tl.TooHardError, RuntimeError)
    assert tl.shares_memory(e, o, max_work=None) is False
    assert tl.shares_memory(e, o, max_work=10 ** 6) is False
    # a hard case: strides with no common structure
    base = tl.zeros(5000, dtype=tl.uint8)
    a = base.as_strided((30, 30, 4), (97, 61, 1), 0)
    b = base.as_strided((30, 30, 4), (89, 53, 1), 5)
    with pytest.raises(tl.TooHardError):
        tl.shares_memory(a, b, max_work=2)
    assert tl.shares_memory(a, b) == np.shares_memory(a.numpy(), b.numpy())


def test_shares_memory_argument_errors():
    x = tl.zeros(3)
    with pytest.raises(TypeError):
        tl.shares_memory(x, np.zeros(3))
    with pytest.raises(TypeError):
        tl.may_share_memory(x)


# ---- memory formats ---------------------------------------------------------


def test_empty_with_memory_format_vs_torch(torch):
    for shape in [(2, 3, 4, 5), (1, 3, 1, 1), (2, 1, 4, 1), (0, 3, 2, 2),
                  (2, 0, 4, 5), (3, 1, 1, 1), (1, 1, 1, 1)]:
        x = tl.empty(shape, memory_format=tl.channels_last)
        tx = torch.empty(shape, memory_format=torch.channels_last)
        assert x.stride() == tx.stride(), shape
        assert x.is_contiguous(memory_format=tl.channels_last) == \
            tx.is_contiguous(memory_format=torch.channels_last)
        assert x.is_contiguous() == tx.is_contiguous(), shape
    for shape in [(2, 3, 4, 5, 6), (1, 2, 1, 1, 3), (2, 0, 1, 2, 2)]:
        x = tl.empty(shape, memory_format=tl.channels_last_3d)
        tx = torch.empty(shape, memory_format=torch.channels_last_3d)
        assert x.stride() == tx.stride(), shape
    for fn in (tl.zeros, tl.ones, tl.empty):
        assert fn(2, 3, 4, 5, memory_format=tl.channels_last).stride() == \
            (60, 1, 15, 3)
    assert tl.empty(2, 3, memory_format=tl.contiguous_format).stride() == \
        (3, 1)


def test_memory_format_needs_the_right_rank():
    with pytest.raises(tl.ShapeError, match="4"):
        tl.empty(2, 3, memory_format=tl.channels_last)
    with pytest.raises(tl.ShapeError, match="5"):
        tl.empty(2, 3, 4, 5, memory_format=tl.channels_last_3d)
    with pytest.raises((TypeError, ValueError)):
        tl.empty(2, memory_format="sideways")
    with pytest.raises(ValueError):
        tl.empty(2).is_contiguous(memory_format=tl.preserve_format)


def permuted_layouts(shape, rng, count):
    """Dense strides for shape in random dim orders, plus some with
    arbitrary strides on size-1 dims and a few with gaps."""
    n = len(shape)
    out = []
    for _ in range(count):
        order = rng.permutation(n)
        strides = [0] * n
        expected = 1
        for d in order[::-1]:
            strides[d] = expected
            expected *= max(shape[d], 1)
            if rng.random() < 0.1:
                expected *= 2
        for d in range(n):
            if shape[d] == 1 and rng.random() < 0.4:
                strides[d] = int(rng.integers(0, 50))
        out.append(tuple(strides))
    return out


def make_pair(torch, shape, strides):
    extent = 1 + sum((s - 1) * st for s, st in zip(shape, strides)
                     if s > 0) if 0 not in shape else 1
    x = tl.zeros(extent).as_strided(shape, strides)
    tx = torch.zeros(extent).as_strided(shape, strides)
    return x, tx


@pytest.mark.parametrize("seed", range(12))
def test_is_contiguous_memory_formats_vs_torch(torch, seed):
    rng = np.random.default_rng(seed)
    fmts = [(tl.contiguous_format, torch.contiguous_format),
            (tl.channels_last, torch.channels_last),
            (tl.channels_last_3d, torch.channels_last_3d)]
    for _ in range(25):
        ndim = int(rng.choice([4, 4, 5, 3]))
        shape = tuple(int(s) for s in rng.choice([0, 1, 1, 2, 3], ndim,
                                                 p=[.05, .35, .2, .2, .2]))
        for strides in permuted_layouts(shape, rng, 4):
            x, tx = make_pair(torch, shape, strides)
            for f, tf in fmts:
                assert x.is_contiguous(memory_format=f) == \
                    tx.is_contiguous(memory_format=tf), (shape, strides, f)


def dense(shape, strides):
    """Non-overlapping and dense (c10's rule: size-1 dims ignored)."""
    dims = sorted((st, s) for s, st in zip(shape, strides) if s != 1)
    if any(s == 0 for s in shape):
        return True
    expected = 1
    for st, s in dims:
        if st != expected:
            return False
        expected *= s
    return True


def random_layouts_4_5_3(seed, count=20, dims=(4, 5, 3)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        ndim = int(rng.choice(dims))
        shape = tuple(int(s) for s in rng.choice([1, 2, 3, 4], ndim))
        for strides in permuted_layouts(shape, rng, 3):
            yield shape, strides


def channels_last_pair(torch, ndim):
    if ndim == 4:
        return tl.channels_last, torch.channels_last
    if ndim == 5:
        return tl.channels_last_3d, torch.channels_last_3d
    return None, None


@pytest.mark.parametrize("seed", range(8))
def test_clone_and_contiguous_layouts_vs_torch(torch, seed):
    for shape, strides in random_layouts_4_5_3(seed):
        x, tx = make_pair(torch, shape, strides)
        ctx = (shape, strides)
        assert x.clone().stride() == tx.clone().stride(), ctx
        assert x.clone(memory_format=tl.preserve_format).stride() == \
            tx.clone(memory_format=torch.preserve_format).stride(), ctx
        assert x.clone(memory_format=tl.contiguous_format).stride() == \
            tx.clone(memory_format=torch.contiguous_format).stride(), ctx
        assert x.contiguous().stride() == tx.contiguous().stride(), ctx
        f, tf = channels_last_pair(torch, len(shape))
        if f is None:
            continue
        assert x.contiguous(memory_format=f).stride() == \
            tx.contiguous(memory_format=tf).stride(), ctx
        assert x.clone(memory_format=f).stride() == \
            tx.clone(memory_format=tf).stride(), ctx


@pytest.mark.parametrize("seed", range(8))
def test_empty_like_layouts_of_dense_inputs_vs_torch(torch, seed):
    for shape, strides in random_layouts_4_5_3(seed):
        x, tx = make_pair(torch, shape, strides)
        ctx = (shape, strides)
        f, tf = channels_last_pair(torch, len(shape))
        if f is not None:
            assert tl.empty_like(x, memory_format=f).stride() == \
                torch.empty_like(tx, memory_format=tf).stride(), ctx
        assert tl.empty_like(x, memory_format=tl.contiguous_format) \
            .stride() == torch.empty_like(
                tx, memory_format=torch.contiguous_format).stride(), ctx
        if not dense(shape, strides):
            continue
        assert tl.empty_like(x).stride() == torch.empty_like(tx).stride(), ctx
        assert tl.empty_like(x, memory_format=tl.preserve_format).stride() \
            == torch.empty_like(tx, memory_format=torch.preserve_format) \
            .stride(), ctx


def test_empty_like_of_non_dense_input_keeps_dim_order(torch):
    x = tl.zeros(40).as_strided((3, 3, 2), (1, 6, 18))
    tx = torch.zeros(40).as_strided((3, 3, 2), (1, 6, 18))
    assert tl.empty_like(x).stride() == torch.empty_like(tx).stride() == \
        x.clone().stride()


def test_channels_last_tag_survives_ambiguous_sizes(torch):
    """(N, C, 1, 1) channels-last strides are also row-major contiguous:
    both answers are true, and preserve_format keeps the layout."""
    x = tl.empty(2, 3, 1, 1, memory_format=tl.channels_last)
    tx = torch.empty(2, 3, 1, 1, memory_format=torch.channels_last)
    assert x.stride() == tx.stride() == (3, 1, 3, 3)
    assert x.is_contiguous() and x.is_contiguous(
        memory_format=tl.channels_last)
    assert tl.empty_like(x).stride() == torch.empty_like(tx).stride()
    assert x.clone().stride() == tx.clone().stride()
    y = tl.empty(4, 1, 2, 2, memory_format=tl.channels_last)
    ty = torch.empty(4, 1, 2, 2, memory_format=torch.channels_last)
    assert y.stride() == ty.stride()
    assert tl.empty_like(y).stride() == torch.empty_like(ty).stride()
    assert y.clone().stride() == ty.clone().stride()


def test_contiguous_returns_self_when_already_in_format():
    x = tl.empty(2, 3, 4, 5)
    assert x.contiguous() is x
    c = tl.empty(2, 3, 4, 5, memory_format=tl.channels_last)
    assert c.contiguous(memory_format=tl.channels_last) is c
    assert c.contiguous() is not c and c.contiguous().is_contiguous()
