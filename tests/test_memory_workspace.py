"""Workspace arenas and execution plans: the per-thread stack, carving with
alignment, chaining, reset (memory reused at once, or kept while exported),
stale tensors refused at every entry that touches data, locked metadata,
exhaustion, plans carved from one allocation with aligned offsets, and bad
input of every kind without leaks."""
import gc
import threading

import numpy as np
import pytest

import tensorlib as tl
from tensorlib import MemoryKind

W = MemoryKind.Workspace


def stats(kind=None):
    gc.collect()
    return tl.memory_stats("cpu", kind)


# ---- the workspace stack ---------------------------------------------------------

def test_workspace_basics():
    ws = tl.workspace(1 << 16)
    assert isinstance(ws, tl.WorkspaceArena)
    assert ws.capacity == 1 << 16 and ws.chunks == 1 and ws.used == 0
    assert ws.generation == 1 and ws.growable and ws.nbytes == 1 << 16
    assert not ws.active
    with ws as same:
        assert same is ws and ws.active
        assert tl._C._workspace_depth() == 1
        t = tl.ones(10, memory_kind=W)
        assert ws.used >= 40
    assert not ws.active and tl._C._workspace_depth() == 0
    assert ws.generation == 2 and ws.used == 0
    assert "WorkspaceArena" in repr(ws)
    with pytest.raises(TypeError):
        tl.WorkspaceArena()
    del t


def test_workspace_kind_outside_any_workspace():
    before = stats()
    for fn in (lambda: tl.empty(3, memory_kind=W),
               lambda: tl.zeros(2, 2, memory_kind="workspace"),
               lambda: tl.tensor([1, 2], memory_kind=W),
               lambda: tl.arange(4, memory_kind=W)):
        with pytest.raises(RuntimeError, match=r"with tensorlib\.workspace"):
            fn()
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]


def test_innermost_workspace_and_nesting():
    with tl.workspace(4096) as outer:
        a = tl.ones(4, memory_kind=W)
        with tl.workspace(4096) as inner:
            b = tl.ones(4, memory_kind=W)
            assert tl._C._block_generation(b) == inner.generation
            assert inner.stats()["alloc_count"] == 1
            assert outer.stats()["alloc_count"] == 1
        # Leaving the inner one reset it only.
        with pytest.raises(RuntimeError):
            b + 1
        with pytest.raises(RuntimeError):   # the same-layout fast path
            tl.ones(4) + b
        assert (a + 1).tolist() == [2.0] * 4
        assert tl._C._workspace_depth() == 1
    with pytest.raises(RuntimeError):
        a + 1


def test_workspace_stack_is_per_thread():
    seen = {}

    def other():
        try:
            tl.empty(2, memory_kind=W)
        except RuntimeError as e:
            seen["error"] = str(e)
        with tl.workspace(1024) as mine:
            seen["gen"] = tl._C._block_generation(
                tl.empty(2, memory_kind=W))
            seen["mine"] = mine.generation

    with tl.workspace(4096):
        th = threading.Thread(target=other)
        th.start()
        th.join()
    assert "active workspace" in seen["error"]
    assert seen["gen"] == seen["mine"] == 1


def test_exit_with_exception_still_resets_and_pops():
    with pytest.raises(KeyError):
        with tl.workspace(4096) as ws:
            t = tl.ones(3, memory_kind=W)
            raise KeyError("boom")
    assert tl._C._workspace_depth() == 0
    assert ws.generation == 2
    with pytest.raises(RuntimeError):
        t.tolist()


def test_exit_out_of_order_is_an_error():
    a = tl.workspace(1024)
    b = tl.workspace(1024)
    a.__enter__()
    b.__enter__()
    with pytest.raises(RuntimeError, match="innermost"):
        a.__exit__(None, None, None)
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)
    assert tl._C._workspace_depth() == 0


# ---- carving -------------------------------------------------------------------

@pytest.mark.parametrize("align", [1, 2, 16, 64, 256, 4096])
def test_carving_alignment(align):
    with tl.workspace(1 << 16) as ws:
        ws.empty(3, dtype=tl.uint8)               # misalign the bump
        t = ws.empty(5, dtype=tl.int16, alignment=align)
        assert t.data_ptr() % align == 0
        assert t.memory_kind is W and t.shape == (5,)
        z = ws.zeros(2, 3, dtype=tl.float64)
        assert z.tolist() == [[0.0] * 3] * 2


def test_chaining_keeps_earlier_tensors_valid():
    with tl.workspace(4096) as ws:
        a = ws.zeros(700)                 # 2800 bytes
        a += 1
        b = ws.zeros(700)                 # does not fit: a second chunk
        b += 2
        assert ws.chunks == 2
        c = ws.zeros(5000)                # larger than a chunk
        c += 3
        assert ws.chunks == 3
        assert a.sum().item() == 700 and b.sum().item() == 1400
        s = ws.stats()
        assert s["cache_misses"] == 2 and s["alloc_count"] == 3
        assert s["active_bytes"] == 2800 * 2 + 20000
    assert ws.chunks == 3                 # kept for the next generation


def test_fixed_workspace_exhaustion():
    before = stats()
    with tl.workspace(4096, growable=False) as ws:
        a = ws.empty(800)
        with pytest.raises(MemoryError, match="exhausted"):
            ws.empty(800)
        with pytest.raises(MemoryError, match="exhausted"):
            tl.empty(800, memory_kind=W)
        assert ws.chunks == 1 and not ws.growable
        ws.reset()
        a = ws.empty(800)                 # fits again after a reset
        del a
    del ws
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["reserved_bytes"] == before["reserved_bytes"]


def test_reset_reuses_memory_at_once():
    with tl.workspace(1 << 16) as ws:
        a = ws.empty(100)
        p = a.data_ptr()
        ws.reset()
        assert ws.generation == 2
        b = ws.empty(100)
        assert b.data_ptr() == p          # the same bytes, at once
        assert ws.stats()["reserved_bytes"] == 1 << 16
        with pytest.raises(RuntimeError,
                           match=r"generation 1, now 2"):
            a.tolist()
        assert b.memory_kind is W


def test_reset_is_cheap_with_many_tensors():
    with tl.workspace(1 << 20) as ws:
        ts = [ws.empty(4) for _ in range(5000)]
        s = ws.stats()
        assert s["alloc_count"] == 5000
        ws.reset()
        s = ws.stats()
        assert s["active_bytes"] == 0 and s["free_count"] == 5000
        del ts                            # releases nothing more
        gc.collect()
        assert ws.stats()["free_count"] == 5000


def test_stats_add_up_in_a_workspace():
    with tl.workspace(1 << 14) as ws:
        sizes = [10, 300, 7, 1024]
        ts = [ws.empty(n, dtype=tl.uint8) for n in sizes]
        s = ws.stats()
        assert s["active_bytes"] == sum(sizes)
        assert s["alloc_count"] == 4 and s["free_count"] == 0
        assert s["reserved_bytes"] == 1 << 14
        assert s["fragmentation_bytes"] == (1 << 14) - sum(sizes)
        assert s["cached_bytes"] == (1 << 14) - ws.used
        del ts[1]                         # freed before the reset
        gc.collect()
        s = ws.stats()
        assert s["active_bytes"] == sum(sizes) - 300 and s["free_count"] == 1
        assert s["active_bytes_peak"] == sum(sizes)
        g = tl.memory_stats("cpu", W)
        assert g["active_bytes"] >= s["active_bytes"]
    s = ws.stats()
    assert s["active_bytes"] == 0 and s["free_count"] == 4


# ---- stale tensors -----------------------------------------------------------------

def _stale():
    with tl.workspace(1 << 16) as ws:
        t = ws.zeros(4, 4)
        t += 1
        v = t[1:3]
        one = ws.zeros(1)
    return t, v, one


STALE_TOUCHES = {
    "tolist": lambda t, v, o: t.tolist(),
    "item": lambda t, v, o: o.item(),
    "float": lambda t, v, o: float(o),
    "bool": lambda t, v, o: bool(o),
    "numpy": lambda t, v, o: t.numpy(),
    "np.asarray": lambda t, v, o: np.asarray(t),
    "memoryview": lambda t, v, o: memoryview(t),
    "dlpack": lambda t, v, o: t.__dlpack__(),
    "array_interface": lambda t, v, o: t.__array_interface__,
    "tobytes": lambda t, v, o: t.tobytes(),
    "add": lambda t, v, o: t + 1,
    "radd": lambda t, v, o: tl.ones(4, 4) + t,
    "iadd": lambda t, v, o: t.__iadd__(1),
    "view": lambda t, v, o: v * 2,
    "copy_from": lambda t, v, o: tl.zeros(4, 4).copy_(t),
    "copy_into": lambda t, v, o: t.copy_(tl.zeros(4, 4)),
    "fill_": lambda t, v, o: t.fill_(3),
    "clone": lambda t, v, o: t.clone(),
    "contiguous": lambda t, v, o: t.T.contiguous(),
    "sum": lambda t, v, o: t.sum(),
    "amax": lambda t, v, o: t.amax(0),
    "getitem": lambda t, v, o: t[0],
    "advanced_index": lambda t, v, o: t[[0, 1]],
    "index_with_stale": lambda t, v, o: tl.zeros(4)[o.long()],
    "setitem": lambda t, v, o: t.__setitem__(0, 5.0),
    "tensor_of": lambda t, v, o: tl.tensor(t),
    "pin_memory": lambda t, v, o: t.pin_memory(),
    "storage_resize": lambda t, v, o: t.untyped_storage().resize_(1 << 20),
}


@pytest.mark.parametrize("name", list(STALE_TOUCHES))
def test_stale_tensor_raises_when_touched(name):
    t, v, o = _stale()
    with pytest.raises(RuntimeError, match="workspace was reset"):
        STALE_TOUCHES[name](t, v, o)


def test_stale_tensor_repr_says_why_instead_of_raising():
    t, v, o = _stale()
    r = repr(v)
    assert r.startswith("tensor(<") and "workspace was reset" in r, r
    assert "size=(2, 4)" in r, r
    with pytest.raises(RuntimeError, match="workspace was reset"):
        str(v.tolist())


def test_stale_tensor_metadata_still_readable():
    t, v, o = _stale()
    assert t.shape == (4, 4) and t.dtype == tl.float32
    assert t.memory_kind is W and not t.is_pinned()


def test_stale_message_names_generations():
    with tl.workspace(4096) as ws:
        t = ws.zeros(2)
        ws.reset()
        ws.reset()
        with pytest.raises(RuntimeError) as e:
            t.tolist()
    msg = str(e.value)
    assert "this tensor's workspace was reset (generation 1, now 3)" in msg


def test_closed_workspace():
    ws = tl.workspace(4096)
    t = ws.zeros(3)
    del ws
    gc.collect()
    with pytest.raises(RuntimeError, match="it is closed"):
        t.tolist()


# ---- exports across a reset --------------------------------------------------------

def test_export_keeps_memory_across_reset():
    before = stats(W)
    with tl.workspace(1 << 16) as ws:
        t = ws.zeros(1000)
        t += 7
        arr = t.numpy()
        old = t.data_ptr()
    # The reset could not reuse exported memory: the arena continued in a
    # fresh chunk and the NumPy array still reads its own bytes.
    assert ws.chunks == 0
    with ws:
        u = ws.zeros(1000)
        u += 1
        assert u.data_ptr() != old
        assert ws.chunks == 1
    assert arr.sum() == 7000.0
    held = tl.memory_stats("cpu", W)
    assert held["reserved_bytes"] == before["reserved_bytes"] + (2 << 16)
    del arr
    gc.collect()
    after = tl.memory_stats("cpu", W)
    assert after["reserved_bytes"] == before["reserved_bytes"] + (1 << 16)


@pytest.mark.parametrize("export", [
    lambda t: memoryview(t),
    lambda t: np.from_dlpack(t),
    lambda t: np.asarray(t),
])
def test_other_exports_across_reset(export):
    with tl.workspace(1 << 14) as ws:
        t = ws.zeros(256, dtype=tl.int32)
        t += 5
        ex = export(t)
    with ws:
        junk = ws.empty(256, dtype=tl.int32)
        junk.fill_(-1)
    assert int(np.asarray(ex).sum()) == 5 * 256
    del ex
    gc.collect()
    assert ws.chunks == 1


def test_reset_while_a_kernel_runs_keeps_its_input():
    # A kernel pins its operands' memory before releasing the GIL; a reset
    # from another thread meanwhile must not hand that memory to new
    # tensors.  (Timing decides whether the reset lands inside a kernel;
    # either way every result must be right.)
    n = 1 << 22
    results, errors = [], []
    ws = tl.workspace(n * 4 + 4096)
    with ws:
        x = ws.zeros(n)
        x += 1
        go = threading.Event()

        def kernel():
            go.set()
            try:
                while True:
                    results.append((x * 2).sum().item())
            except RuntimeError as e:       # x went stale: done
                errors.append(str(e))

        th = threading.Thread(target=kernel)
        th.start()
        go.wait()
        for _ in range(20):
            if not th.is_alive():
                break
            threading.Event().wait(0.002)
        ws.reset()
        junk = ws.empty(n)
        junk.fill_(7)
        th.join()
    assert all(r == 2.0 * n for r in results), results[-3:]
    assert errors and "workspace was reset" in errors[0]


def test_locked_metadata():
    with tl.workspace(1 << 14) as ws:
        for t in (ws.zeros(4, 4), tl.zeros(4, 4, memory_kind=W),
                  ws.zeros(16)[2:6]):
            with pytest.raises(RuntimeError, match="not allowed"):
                t.resize_(100)
            with pytest.raises(RuntimeError, match="not allowed"):
                t.set_(tl.zeros(3).untyped_storage())
            t.fill_(2)                    # data is free to change


# ---- empty_cache on the arena --------------------------------------------------------

def test_empty_cache_releases_unused_chunks():
    ws = tl.workspace(1 << 16)
    with ws:
        live = ws.zeros(10)
        tl.empty_cache()                  # in use: untouched
        assert ws.chunks == 1 and live.sum().item() == 0
    tl.empty_cache()                      # nothing carved now: returned
    assert ws.chunks == 0 and ws.capacity == 0
    with ws:
        again = ws.zeros(10)              # a fresh chunk on demand
        again += 1
        assert again.sum().item() == 10
        assert ws.chunks == 1


# ---- bad input -----------------------------------------------------------------------

def test_workspace_bad_input():
    before = stats()
    with pytest.raises(ValueError, match="non-negative"):
        tl.workspace(-1)
    with pytest.raises(MemoryError):
        tl.workspace(2 ** 62)
    with pytest.raises(OverflowError):
        tl.workspace(2 ** 64)
    with pytest.raises(TypeError):
        tl.workspace("big")
    with pytest.raises(TypeError):
        tl.workspace()
    with tl.workspace(4096) as ws:
        for bad in (3, 0, -8, 8192):
            with pytest.raises(ValueError, match="power of two"):
                ws.empty(4, alignment=bad)
        with pytest.raises(ValueError):
            ws.empty(-1)
        with pytest.raises((MemoryError, OverflowError)):
            ws.empty(2 ** 62)
        with pytest.raises(TypeError):
            ws.empty(2, dtype="nope")
        assert ws.stats()["alloc_count"] == 0
    del ws
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["reserved_bytes"] == before["reserved_bytes"]


def test_zero_workspace_grows_lazily():
    with tl.workspace(0) as ws:
        assert ws.capacity == 0
        t = ws.zeros(100)
        t += 1
        assert ws.capacity >= 400 and t.sum().item() == 100


# ---- execution plans -------------------------------------------------------------------

def test_plan_one_allocation_offsets_alignment():
    plan = tl.ExecutionPlan()
    plan.add_buffer("x", (3, 5), tl.float32)                 # 60 bytes
    plan.add_buffer("idx", [7], dtype=tl.int64, alignment=128)
    plan.add_buffer("big", (2, 2), tl.float64, alignment=4096)
    plan.add_buffer("tiny", (), tl.uint8, alignment=1)
    plan.add_view_buffer("row1", "x", (5,), offset=5)
    plan.add_view_buffer("colT", "x", (5, 3), stride=(1, 5))
    assert len(plan) == 6
    assert plan.names == ["x", "idx", "big", "tiny", "row1", "colT"]
    assert plan.offsets == {"x": 0, "idx": 128, "big": 4096, "tiny": 4128,
                            "row1": 20, "colT": 0}
    assert plan.workspace_bytes == 4129
    assert plan.allocation_count == 1
    before = stats()
    bufs = plan.prepare()
    after = tl.memory_stats()
    assert after["alloc_count"] - before["alloc_count"] == 1
    assert after["active_bytes"] - before["active_bytes"] == 4129
    base = bufs["x"].data_ptr()
    assert base % 4096 == 0
    for name, off in plan.offsets.items():
        assert bufs[name].data_ptr() == base + off
    assert bufs["idx"].data_ptr() % 128 == 0
    assert bufs["big"].shape == (2, 2) and bufs["tiny"].shape == ()
    x = bufs["x"]
    x.copy_(tl.arange(15, dtype=tl.float32).reshape(3, 5))
    assert bufs["row1"].tolist() == [5.0, 6.0, 7.0, 8.0, 9.0]
    assert bufs["colT"].tolist() == x.T.tolist()
    assert tl.shares_memory(x, bufs["colT"])
    assert not tl.may_share_memory(x, bufs["idx"])
    for t in bufs.values():
        with pytest.raises(RuntimeError, match="not allowed"):
            t.resize_(1000)
    del bufs, x, t
    gc.collect()
    assert tl.memory_stats()["active_bytes"] == before["active_bytes"]


def test_plan_many_buffers_one_allocation():
    plan = tl.ExecutionPlan()
    for i in range(50):
        plan.add_buffer(f"b{i}", (i + 1,), tl.float32, alignment=64)
    before = stats()
    bufs = plan.prepare()
    assert tl.memory_stats()["alloc_count"] - before["alloc_count"] == 1
    ptrs = sorted(b.data_ptr() for b in bufs.values())
    assert all(p % 64 == 0 for p in ptrs)
    assert len(set(ptrs)) == 50
    # Every buffer is its own sub-storage of the one allocation.
    for i in range(50):
        assert bufs[f"b{i}"].untyped_storage().nbytes() == 4 * (i + 1)


def test_plan_in_a_workspace():
    plan = tl.ExecutionPlan()
    plan.add_buffer("a", (16,), tl.float32, memory_kind=W)
    plan.add_buffer("b", (16,), tl.float32, memory_kind="Workspace",
                    alignment=256)
    with pytest.raises(RuntimeError, match="workspace"):
        plan.prepare()
    with tl.workspace(1 << 14) as ws:
        bufs = plan.prepare()
        assert ws.stats()["alloc_count"] == 1     # one carving
        assert bufs["a"].memory_kind is W
        assert bufs["b"].data_ptr() - bufs["a"].data_ptr() == 256
        bufs["a"].fill_(1)
    with pytest.raises(RuntimeError, match="workspace was reset"):
        bufs["a"].sum()


def test_plan_kinds_and_devices():
    plan = tl.ExecutionPlan()
    plan.add_buffer("w", (8,), tl.float32, memory_kind="Persistent")
    plan.add_buffer("k", (8,), tl.float32, memory_kind=MemoryKind.KVCache)
    plan.add_buffer("p", (8,), tl.float32, memory_kind="HostPinned")
    assert plan.allocation_count == 3
    bufs = plan.prepare()
    assert bufs["w"].memory_kind is MemoryKind.Persistent
    assert bufs["k"].memory_kind is MemoryKind.KVCache
    assert bufs["p"].is_pinned()
    with pytest.raises(ValueError, match="host kind"):
        plan.add_buffer("bad", (2,), tl.float32, device="cuda",
                        memory_kind="HostPinned")


def test_plan_bad_input():
    plan = tl.ExecutionPlan()
    plan.add_buffer("a", (4, 4), tl.float32)
    for bad in (3, 0, -64, 6, 8192):
        with pytest.raises(ValueError, match="power of two"):
            plan.add_buffer("b", (2,), tl.float32, alignment=bad)
    with pytest.raises(ValueError, match="already has"):
        plan.add_buffer("a", (2,), tl.float32)
    with pytest.raises(ValueError):
        plan.add_buffer("", (2,), tl.float32)
    with pytest.raises(ValueError):
        plan.add_buffer("neg", (-1, 2), tl.float32)
    with pytest.raises((OverflowError, MemoryError)):
        plan.add_buffer("huge", (2 ** 62, 8), tl.float32)
    with pytest.raises(ValueError):
        plan.add_buffer("k", (2,), tl.float32, memory_kind="Nope")
    with pytest.raises(TypeError):
        plan.add_buffer(3, (2,), tl.float32)
    with pytest.raises((KeyError, ValueError), match="no buffer named"):
        plan.add_view_buffer("v", "missing", (2,))
    with pytest.raises(tl.ShapeError, match="does not fit"):
        plan.add_view_buffer("v", "a", (17,))
    with pytest.raises(tl.ShapeError):
        plan.add_view_buffer("v", "a", (4,), offset=13)
    with pytest.raises(tl.ShapeError):
        plan.add_view_buffer("v", "a", (4, 4), stride=(5, 1))
    with pytest.raises(tl.ShapeError):
        plan.add_view_buffer("v", "a", (2, 2), stride=(1,))
    with pytest.raises(tl.ShapeError):
        plan.add_view_buffer("v", "a", (2,), offset=-1)
    plan.add_view_buffer("v", "a", (4,), stride=(4,), offset=1)
    with pytest.raises(ValueError, match="is a view"):
        plan.add_view_buffer("vv", "v", (1,))
    with pytest.raises(TypeError):
        tl.ExecutionPlan(3)
    # Nothing of the failures was declared.
    assert plan.names == ["a", "v"]
    assert plan.workspace_bytes == 64
    bufs = plan.prepare()
    assert bufs["v"].stride() == (4,)


def test_empty_plan():
    plan = tl.ExecutionPlan()
    assert plan.prepare() == {}
    assert plan.workspace_bytes == 0 and "ExecutionPlan" in repr(plan)
