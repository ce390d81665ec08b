"""Storages shrunk under live views (issue 23).

t.untyped_storage().resize_(n) may shrink a storage below what a live view
of it reaches.  Such a view then raises RuntimeError — naming the storage's
size and the bytes it needs — on every data access: reads, writes,
exports, tolist/item, kernels inside and outside the iterator; its repr
says so instead of raising; growing the storage back makes it usable.
A view that still fits inside the shrunk storage is unaffected.  The
access paths are a TABLE: a new one joins by a line."""
import os
import pickle
import tempfile

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing


def _shrunk(n_keep=16):
    """A (3, 4) float32 tensor whose storage is shrunk to n_keep bytes
    (it needs 48), its original values, and a fitting view (the first
    row's first n_keep // 4 elements)."""
    base = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    vals = np.arange(12, dtype=np.float32).reshape(3, 4)
    fit = base.view(12)[: n_keep // 4]
    base.untyped_storage().resize_(n_keep)
    return base, vals, fit


ACCESS = [
    # reads: the iterator, reductions, other kernels
    ("add", lambda t: t + 1),
    ("radd", lambda t: 1.5 + t),
    ("exp", lambda t: t.exp()),
    ("binary other operand", lambda t: tl.ones(3, 4) * t),
    # Note [Same-layout fast path]: no iterator, same check
    ("same-layout add", lambda t: t + t),
    ("same-layout sub, shrunk second", lambda t: tl.ones(3, 4) - t),
    ("same-layout unary", lambda t: t.neg()),
    ("same-layout scalar", lambda t: t * 2.0),
    ("sum", lambda t: t.sum()),
    ("amax(dim)", lambda t: t.amax(1)),
    ("mean", lambda t: t.mean()),
    ("argmax", lambda t: t.argmax()),
    ("clone", lambda t: t.clone()),
    ("contiguous(t)", lambda t: t.t().contiguous()),
    ("to(float64)", lambda t: t.to(tl.float64)),
    ("cumsum", lambda t: t.cumsum(0)),
    ("sort", lambda t: t.sort(1)),
    ("topk", lambda t: t.topk(2)),
    ("softmax", lambda t: t.softmax(1)),
    ("matmul", lambda t: t @ tl.ones(4, 2)),
    ("matmul(rhs)", lambda t: tl.ones(2, 3) @ t),
    ("cat", lambda t: tl.cat([t, t])),
    ("stack", lambda t: tl.stack([t, t])),
    ("index_select", lambda t: t.index_select(0, tl.tensor([0, 2]))),
    ("gather", lambda t: t.gather(1, tl.zeros(3, 1, dtype=tl.int64))),
    ("advanced getitem", lambda t: t[tl.tensor([0, 2])]),
    ("mask getitem", lambda t: t[tl.ones(3, 4, dtype=tl.bool)]),
    ("where", lambda t: tl.where(tl.ones(3, 4, dtype=tl.bool), t, 0.0)),
    ("clamp", lambda t: t.clamp(0, 1)),
    ("eq", lambda t: t == 1),
    ("equal", lambda t: tl.equal(t, t)),
    ("isnan", lambda t: t.isnan()),
    ("nonzero", lambda t: t.nonzero()),
    ("unique", lambda t: tl.unique(t)),
    ("flip", lambda t: t.flip(0) + 0),
    ("roll", lambda t: t.roll(1, 0)),
    ("det", lambda t: t[:, :3].det()),
    ("einsum", lambda t: tl.einsum("ij->j", t)),
    # element access, lists, bytes
    ("tolist", lambda t: t.tolist()),
    ("item", lambda t: t[2, 3].item()),
    ("float()", lambda t: float(t[2, 3])),
    ("getitem scalar", lambda t: t[2][3].item()),
    ("tobytes", lambda t: t.tobytes()),
    ("iter", lambda t: [r.tolist() for r in t]),
    ("bool", lambda t: bool(t[2, 3])),
    # writes
    ("fill_", lambda t: t.fill_(1)),
    ("zero_", lambda t: t.zero_()),
    ("iadd", lambda t: t.__iadd__(1)),
    ("mul_", lambda t: t.mul_(2)),
    ("copy_", lambda t: t.copy_(tl.ones(3, 4))),
    ("copy_ (as source)", lambda t: tl.zeros(3, 4).copy_(t)),
    ("setitem", lambda t: t.__setitem__((2, 3), 5.0)),
    ("setitem slice", lambda t: t.__setitem__(slice(None), 0.0)),
    ("index_put_", lambda t: t.index_put_((tl.tensor([2]),),
                                          tl.tensor(1.0))),
    ("out=", lambda t: tl.add(tl.ones(3, 4), 1, out=t)),
    ("uniform_", lambda t: t.uniform_()),
    ("exp_", lambda t: t.exp_()),
    # exports
    ("numpy", lambda t: t.numpy()),
    ("np.asarray", lambda t: np.asarray(t)),
    ("__array_interface__", lambda t: t.__array_interface__),
    ("__dlpack__", lambda t: t.__dlpack__()),
    ("memoryview", lambda t: memoryview(t)),
    ("pickle", lambda t: pickle.dumps(t)),
    ("save npy", lambda t: _save(t)),
]


def _save(t):
    with tempfile.TemporaryDirectory() as d:
        tl.save(t, os.path.join(d, "a.npy"))


@pytest.mark.parametrize("name,fn", ACCESS, ids=[a[0] for a in ACCESS])
def test_shrunk_view_refuses_access(name, fn):
    t, vals, fit = _shrunk()
    with pytest.raises(RuntimeError) as e:
        fn(t)
    msg = str(e.value)
    assert "needs" in msg and "shrunk to 16 bytes" in msg, msg
    # the view that fits is still fine, the refused one unchanged after
    # growing back
    assert fit.tolist() == [0.0, 1.0, 2.0, 3.0]
    t.untyped_storage().resize_(48)
    np.testing.assert_array_equal(t.numpy(), vals)
    fn(t)                          # usable again


@pytest.mark.parametrize("view", [
    lambda b: b.t(), lambda b: b[1:], lambda b: b.flip(1), lambda b: b[:, 3],
    lambda b: b.expand(2, 3, 4), lambda b: b[::2, ::3],
])
def test_views_of_shrunk_storage(view):
    base = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    v = view(base)
    vals = v.numpy().copy()
    base.untyped_storage().resize_(20)     # elements 0..4 remain
    with pytest.raises(RuntimeError, match="was shrunk to 20 bytes"):
        v.tolist()
    with pytest.raises(RuntimeError, match="was shrunk"):
        v + 1
    base.untyped_storage().resize_(48)
    np.testing.assert_array_equal(v.numpy(), vals)


def test_fitting_views_and_empty_views_are_unaffected():
    base = tl.arange(12, dtype=tl.float32)
    fit = base[:4]
    e = base[:0]
    row = base[1:4]                        # bytes 4..16: fits exactly
    past = base[1:5]                       # needs 20 bytes
    base.untyped_storage().resize_(16)
    assert (fit + 1).tolist() == [1.0, 2.0, 3.0, 4.0]
    assert e.tolist() == [] and (e + 1).shape == (0,)
    assert row.sum().item() == 6.0
    with pytest.raises(RuntimeError, match="needs 20 bytes"):
        past.sum()
    # indexing the overhanging tensor is refused too (as for a stale
    # workspace tensor: the key parser is a data entry point)
    with pytest.raises(RuntimeError, match="was shrunk"):
        base[:2]


def test_repr_says_so():
    t, vals, fit = _shrunk()
    r = repr(t)
    assert "was shrunk to 16 bytes" in r and "48 bytes" in r, r
    assert "size=(3, 4)" in r, r
    assert "was shrunk" in str(t)
    t.untyped_storage().resize_(48)
    assert "was shrunk" not in repr(t)


def test_shrink_to_zero_and_grow_past_capacity():
    t = tl.arange(6, dtype=tl.int32)
    s = t.untyped_storage()
    s.resize_(0)
    with pytest.raises(RuntimeError, match="needs 24 bytes"):
        t.tolist()
    s.resize_(4096)                         # a new, larger block
    assert len(t.tolist()) == 6             # its bytes: the 0 kept ones
    assert (t * 0).tolist() == [0] * 6


def test_resize_of_the_tensor_itself_is_not_refused():
    t = tl.arange(12, dtype=tl.float32)
    v = t[4:]
    t.resize_(2)                            # storage keeps its 48 bytes
    assert v.tolist() == list(np.arange(4, 12, dtype=np.float32))
    assert t.tolist() == [0.0, 1.0]


def test_workspace_tensor_still_reports_the_workspace():
    with tl.workspace(1 << 12) as ws:
        a = ws.empty(4)
        ws.reset()
        with pytest.raises(RuntimeError, match="workspace"):
            a.tolist()
        assert "workspace" in repr(a)
