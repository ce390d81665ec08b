"""The memory system: memory kinds on every creation function, the
(device, kind) registry and its routing, pinned memory, allocator
statistics (one schema; the numbers add up), empty_cache and
reset_peak_memory_stats, the cache limit, reuse of large blocks, and a
multi-threaded stress run; then (its own section) the stats schema and
arithmetic, block reuse and loops that must leave memory, reference counts
and Python allocations flat.  Workspaces and plans:
test_memory_workspace.py.
"""
import contextlib
import gc
import os
import resource
import subprocess
import sys
import threading
import tracemalloc

import numpy as np
import pytest

import tensorlib as tl
from tensorlib import MemoryKind

KINDS_CPU = [MemoryKind.Default, MemoryKind.Persistent, MemoryKind.KVCache,
             MemoryKind.HostPinned, MemoryKind.HostPageable]

DEFAULT_ROUTES = {
    MemoryKind.Default: "cpu_caching",
    MemoryKind.Persistent: "cpu_caching",
    MemoryKind.KVCache: "cpu_caching",
    MemoryKind.HostPinned: "cpu_pinned",
    MemoryKind.HostPageable: "cpu_aligned",
    MemoryKind.Workspace: "workspace_arena",
}


@pytest.fixture(autouse=True)
def _restore_routes():
    yield
    for kind, name in DEFAULT_ROUTES.items():
        tl.memory.set_allocator(kind, name)


def stats(kind=None):
    gc.collect()
    return tl.memory_stats("cpu", kind)


# ---- memory kinds -----------------------------------------------------------

def test_memory_kind_enum():
    assert [k.name for k in MemoryKind] == [
        "Default", "Persistent", "Workspace", "KVCache", "HostPinned",
        "HostPageable"]
    assert tl.memory.MemoryKind is MemoryKind
    assert issubclass(MemoryKind, int)


def _creators(kind):
    base = tl.ones(2, 3)
    return {
        "empty": lambda: tl.empty(2, 3, memory_kind=kind),
        "zeros": lambda: tl.zeros(2, 3, memory_kind=kind),
        "ones": lambda: tl.ones((2, 3), memory_kind=kind),
        "full": lambda: tl.full((2, 3), 7.0, memory_kind=kind),
        "arange": lambda: tl.arange(6, memory_kind=kind),
        "tensor": lambda: tl.tensor([[1, 2, 3], [4, 5, 6]],
                                    memory_kind=kind),
        "tensor_np": lambda: tl.tensor(np.ones((2, 3)), memory_kind=kind),
        "empty_like": lambda: tl.empty_like(base, memory_kind=kind),
        "zeros_like": lambda: tl.zeros_like(base, memory_kind=kind),
        "ones_like": lambda: tl.ones_like(base, memory_kind=kind),
        "full_like": lambda: tl.full_like(base, 2, memory_kind=kind),
    }


CREATOR_NAMES = list(_creators(MemoryKind.Default))


@pytest.mark.parametrize("name", CREATOR_NAMES)
@pytest.mark.parametrize("kind", KINDS_CPU + ["persistent", "host_pinned",
                                              "KVCache"])
def test_every_creation_function_takes_memory_kind(name, kind):
    want = MemoryKind(kind) if not isinstance(kind, str) else {
        "persistent": MemoryKind.Persistent,
        "host_pinned": MemoryKind.HostPinned,
        "KVCache": MemoryKind.KVCache}[kind]
    before = stats(want)
    t = _creators(kind)[name]()
    assert t.memory_kind is want
    assert isinstance(t.memory_kind, MemoryKind)
    after = tl.memory_stats("cpu", want)
    # The tensor's bytes came from the allocator of that kind.
    assert after["alloc_count"] > before["alloc_count"]
    assert after["active_bytes"] >= before["active_bytes"] + t.nbytes
    assert t.is_pinned() == (want == MemoryKind.HostPinned)


@pytest.mark.parametrize("name", CREATOR_NAMES)
def test_every_creation_function_carves_from_workspace(name):
    with tl.workspace(1 << 16) as ws:
        t = _creators(MemoryKind.Workspace)[name]()
        assert t.memory_kind is MemoryKind.Workspace
        assert tl._C._block_generation(t) == ws.generation
        assert ws.stats()["alloc_count"] >= 1
    with pytest.raises(RuntimeError, match="workspace was reset"):
        t.tolist()


def test_default_kind_and_like_inheritance():
    t = tl.ones(3)
    assert t.memory_kind is MemoryKind.Default
    p = tl.ones(3, memory_kind="HostPinned")
    # *_like keeps the source's kind unless told otherwise ...
    assert tl.empty_like(p).memory_kind is MemoryKind.HostPinned
    assert tl.zeros_like(p, memory_kind="Default").memory_kind is \
        MemoryKind.Default
    # ... except Workspace: a copy does not inherit a scope.
    with tl.workspace(4096) as ws:
        w = ws.zeros(3)
        assert tl.zeros_like(w).memory_kind is MemoryKind.Default


def test_views_and_numpy_keep_the_kind():
    t = tl.arange(12, memory_kind=MemoryKind.KVCache).reshape(3, 4)
    assert t[1].memory_kind is MemoryKind.KVCache
    assert t.untyped_storage().memory_kind is MemoryKind.KVCache
    assert tl.from_numpy(np.ones(3)).memory_kind is MemoryKind.Default


@pytest.mark.parametrize("bad", ["Bogus", "", "workspaces", 99, -1])
@pytest.mark.parametrize("fn", [
    lambda k: tl.empty(2, memory_kind=k),
    lambda k: tl.zeros(2, memory_kind=k),
    lambda k: tl.full((2,), 1, memory_kind=k),
    lambda k: tl.arange(3, memory_kind=k),
    lambda k: tl.tensor([1], memory_kind=k),
    lambda k: tl.ones_like(tl.ones(2), memory_kind=k),
    lambda k: tl.memory_stats("cpu", k),
    lambda k: tl.memory.allocator_for("cpu", k),
    lambda k: tl.memory.set_allocator(k, "cpu_caching"),
])
def test_unknown_kind_names(bad, fn):
    before = stats()
    with pytest.raises(ValueError):
        fn(bad)
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]


def test_kind_of_wrong_type():
    with pytest.raises(TypeError):
        tl.empty(2, memory_kind=1.5)
    with pytest.raises(TypeError):
        tl.memory.set_allocator(None, "cpu_caching")


@pytest.mark.parametrize("kind", ["HostPinned", "HostPageable",
                                  MemoryKind.HostPinned])
@pytest.mark.parametrize("fn", [
    lambda k: tl.empty(2, device="cuda", memory_kind=k),
    lambda k: tl.zeros(2, device="cuda:1", memory_kind=k),
    lambda k: tl.tensor([1.0], device="cuda", memory_kind=k),
    lambda k: tl.empty_like(tl.ones(2), device="cuda", memory_kind=k),
    lambda k: tl.memory.allocator_for("cuda", k),
    lambda k: tl.memory.set_allocator(k, "cpu_pinned", device="cuda"),
    lambda k: tl.memory_stats("cuda", k),
])
def test_host_kind_on_cuda_is_an_error(kind, fn):
    # Never a silent fallback to host memory, built with CUDA or not.
    before = stats()
    with pytest.raises(ValueError, match="host kind"):
        fn(kind)
    assert stats()["active_bytes"] == before["active_bytes"]


# ---- the registry -------------------------------------------------------------

def test_default_routes():
    for kind, name in DEFAULT_ROUTES.items():
        assert tl.memory.allocator_for("cpu", kind) == name
        assert tl.memory.allocator_for(kind=kind.name.lower()) == name
    assert tl.memory.allocator_for() == "cpu_caching"
    assert sorted(tl.memory.allocators()) == sorted(set(
        DEFAULT_ROUTES.values()))


def test_set_allocator_routes_new_tensors():
    tl.memory.set_allocator(MemoryKind.Persistent, "cpu_aligned")
    assert tl.memory.allocator_for("cpu", "Persistent") == "cpu_aligned"
    before = stats(MemoryKind.HostPageable)   # the aligned allocator
    w = tl.empty(1000, dtype=tl.float64, memory_kind="Persistent")
    mid = tl.memory_stats("cpu", MemoryKind.HostPageable)
    assert mid["active_bytes"] - before["active_bytes"] == 8000
    assert mid["alloc_count"] - before["alloc_count"] == 1
    # The kind's own stats now are the aligned allocator's.
    assert tl.memory_stats("cpu", "Persistent") == mid
    del w


def test_rerouting_never_frees_memory_in_use():
    tl.memory.set_allocator("Persistent", "cpu_aligned")
    before = stats(MemoryKind.HostPageable)
    weights = [tl.full((256,), float(i), dtype=tl.float32,
                       memory_kind="Persistent") for i in range(5)]
    # Route Persistent elsewhere while the old allocator's tensors live.
    tl.memory.set_allocator("Persistent", "cpu_caching")
    newer = tl.ones(256, memory_kind="Persistent")
    mid = tl.memory_stats("cpu", MemoryKind.HostPageable)
    assert mid["active_bytes"] - before["active_bytes"] == 5 * 1024
    for i in range(5):                        # still valid, still theirs
        assert weights[i].sum().item() == 256.0 * i
    del weights
    gc.collect()
    after = tl.memory_stats("cpu", MemoryKind.HostPageable)
    # They went back to the allocator that made them: stats consistent.
    assert after["active_bytes"] == before["active_bytes"]
    assert after["free_count"] - before["free_count"] == 5
    assert after["alloc_count"] - before["alloc_count"] == 5
    assert newer.sum().item() == 256.0


def test_device_totals_survive_a_reroute():
    # Pinned tensors made before HostPinned is rerouted still count in the
    # device totals, and empty_cache still reaches their allocator.
    before = stats()
    p = tl.empty(1 << 16, dtype=tl.uint8, memory_kind="HostPinned")
    tl.memory.set_allocator("HostPinned", "cpu_aligned")
    mid = tl.memory_stats()
    assert mid["active_bytes"] - before["active_bytes"] == 1 << 16
    q = tl.empty(100, dtype=tl.uint8, memory_kind="HostPinned")
    assert not q.is_pinned()          # plain memory now, and says so
    assert p.is_pinned()
    del p, q
    gc.collect()
    tl.empty_cache()
    after = tl.memory_stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert tl.memory_stats("cpu", "HostPinned")["active_bytes"] == 0


def test_set_allocator_bad_input():
    with pytest.raises(ValueError, match="unknown allocator 'nope'"):
        tl.memory.set_allocator("Default", "nope")
    with pytest.raises(TypeError):
        tl.memory.set_allocator("Default", 3)
    with pytest.raises(ValueError):
        tl.memory.set_allocator("Default", "cpu_caching", device="gpu")
    # A CPU allocator cannot serve a CUDA device.
    with pytest.raises(ValueError):
        tl.memory.set_allocator("Default", "cpu_caching", device="cuda")
    assert tl.memory.allocator_for() == "cpu_caching"


def test_reset_allocator():
    tl.memory.set_allocator("KVCache", "cpu_aligned")
    tl.memory.reset_allocator("KVCache")
    assert tl.memory.allocator_for(kind="KVCache") == "cpu_caching"
    with pytest.raises(ValueError):
        tl.memory.reset_allocator("KVCache", device="cuda")


def test_route_workspace_kind_to_a_pool():
    # Outside a workspace, Workspace is an error ... unless rerouted.
    with pytest.raises(RuntimeError, match="tensorlib.workspace"):
        tl.empty(3, memory_kind="Workspace")
    tl.memory.set_allocator("Workspace", "cpu_caching")
    t = tl.ones(3, memory_kind="Workspace")
    assert t.memory_kind is MemoryKind.Workspace
    assert tl._C._block_generation(t) == 0       # not from an arena
    t.resize_(5)                                 # so its layout is free


def test_route_persistent_to_the_arena():
    tl.memory.set_allocator("Persistent", "workspace_arena")
    with tl.workspace(4096) as ws:
        t = tl.ones(4, memory_kind="Persistent")
        assert tl._C._block_generation(t) == ws.generation
    with pytest.raises(RuntimeError):
        t.tolist()


def test_cuda_without_a_build():
    if "cuda" in tl.memory.allocators():
        pytest.skip("built with CUDA")
    try:
        tl.memory.allocator_for("cuda")
    except RuntimeError as e:
        assert "no allocator registered" in str(e)


# ---- pinned memory ----------------------------------------------------------------

def test_pin_memory():
    t = tl.arange(1000, dtype=tl.float32).reshape(10, 100)
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p is not t
    assert p.is_pinned() and p.memory_kind is MemoryKind.HostPinned
    assert p.tolist() == t.tolist()
    assert p.data_ptr() != t.data_ptr()
    assert p.pin_memory() is p                    # already pinned
    # A view of a non-contiguous tensor pins as a dense copy.
    q = t.T.pin_memory()
    assert q.is_pinned() and q.tolist() == t.T.tolist()
    assert tl.memory.allocator_for(kind="HostPinned") == "cpu_pinned"


def test_pinned_is_locked_is_reported():
    p = tl.empty(1 << 16, memory_kind="HostPinned")
    info = tl.memory.pinned_info()
    assert set(info) == {"locked_bytes", "unlocked_bytes", "lock_failures",
                         "last_locked"}
    assert info["locked_bytes"] + info["unlocked_bytes"] >= p.nbytes
    locked = tl.memory.pinned_is_locked()
    assert isinstance(locked, bool)
    if not locked:       # mlock refused: plain memory, and said so
        assert info["unlocked_bytes"] > 0 and info["lock_failures"] > 0
    summary = tl.memory_summary()
    assert "page-locked" in summary


def test_pinned_beyond_memlock_limit():
    # A pinned block beyond RLIMIT_MEMLOCK still works: locked where the
    # process may lock that much (CAP_IPC_LOCK), else plain memory with the
    # refusal counted -- and the report agrees with what happened.
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    if soft == resource.RLIM_INFINITY or soft > (64 << 20):
        pytest.skip("RLIMIT_MEMLOCK is too high to exceed cheaply")
    before = tl.memory.pinned_info()["lock_failures"]
    n = (soft + (4 << 20)) // 4
    p = tl.ones(n, dtype=tl.float32, memory_kind="HostPinned")
    assert p.is_pinned()
    assert p[-1].item() == 1.0
    info = tl.memory.pinned_info()
    refused = info["lock_failures"] > before
    assert tl.memory.pinned_is_locked() == (not refused)
    del p
    gc.collect()
    tl.empty_cache()


def test_pinned_fallback_is_reported():
    # Fault injection: every mlock refused, as beyond RLIMIT_MEMLOCK
    # without privilege.
    tl.empty_cache()
    before = tl.memory.pinned_info()
    tl._C._pinned_refuse_lock(True)
    try:
        p = tl.full((1 << 16,), 2.0, memory_kind="HostPinned")
        info = tl.memory.pinned_info()
        assert info["lock_failures"] > before["lock_failures"]
        assert info["unlocked_bytes"] >= p.nbytes
        assert not tl.memory.pinned_is_locked()
        assert p.is_pinned() and p.sum().item() == 2.0 * (1 << 16)
        assert "unlocked fallback" in tl.memory_summary()
        del p
        gc.collect()
        tl.empty_cache()
        assert tl.memory.pinned_info()["unlocked_bytes"] == 0
    finally:
        tl._C._pinned_refuse_lock(False)
    q = tl.empty(10, memory_kind="HostPinned")
    assert tl.memory.pinned_is_locked() == (
        tl.memory.pinned_info()["locked_bytes"] > 0)
    del q


def test_pin_memory_bad_input():
    with pytest.raises(AttributeError):
        tl.ones(2).pin_memory = 3
    # A tensor of a reset workspace cannot be pinned (it is dead).
    with tl.workspace(4096) as ws:
        w = ws.zeros(3)
    with pytest.raises(RuntimeError, match="workspace"):
        w.pin_memory()


# ---- stats --------------------------------------------------------------------------

def test_one_schema_for_every_allocator():
    keys = set(tl.memory.STATS_KEYS)
    for kind in MemoryKind:
        assert set(tl.memory_stats("cpu", kind)) == keys
    assert set(tl.memory_stats()) == keys
    with tl.workspace(1024) as ws:
        assert set(ws.stats()) == keys


def _check_invariants(s):
    assert s["reserved_bytes"] >= s["cached_bytes"] >= 0
    assert s["fragmentation_bytes"] == s["reserved_bytes"] - \
        s["active_bytes"]
    assert s["active_bytes_peak"] >= s["active_bytes"] >= 0
    assert s["alloc_count"] >= s["free_count"]
    assert s["largest_free_block"] <= s["cached_bytes"] or \
        s["cached_bytes"] == 0


def test_stats_add_up_aligned_allocator():
    # The aligned allocator counts exactly: a scripted sequence.
    k = MemoryKind.HostPageable
    before = stats(k)
    sizes = [100, 4000, 64, 1 << 16, 3]
    ts = [tl.empty(n, dtype=tl.uint8, memory_kind=k) for n in sizes]
    s1 = tl.memory_stats("cpu", k)
    assert s1["active_bytes"] - before["active_bytes"] == sum(sizes)
    assert s1["alloc_count"] - before["alloc_count"] == len(sizes)
    assert s1["cache_misses"] - before["cache_misses"] == len(sizes)
    assert s1["cache_hits"] == before["cache_hits"] == 0
    assert s1["reserved_bytes"] == s1["active_bytes"]
    _check_invariants(s1)
    del ts[1], ts[2]          # 4000 and 1 << 16 go
    gc.collect()
    s2 = tl.memory_stats("cpu", k)
    assert s2["active_bytes"] - before["active_bytes"] == 100 + 64 + 3
    assert s2["free_count"] - before["free_count"] == 2
    assert s2["active_bytes_peak"] >= s1["active_bytes"]
    tl.reset_peak_memory_stats()
    s3 = tl.memory_stats("cpu", k)
    assert s3["active_bytes_peak"] == s3["active_bytes"]
    del ts
    gc.collect()
    s4 = tl.memory_stats("cpu", k)
    assert s4["active_bytes"] == before["active_bytes"]
    assert s4["alloc_count"] - s4["free_count"] == \
        before["alloc_count"] - before["free_count"]


def test_stats_add_up_caching_pool():
    tl.empty_cache()
    k = MemoryKind.Default
    before = stats(k)
    a = tl.empty(1 << 20, dtype=tl.uint8)           # 1 MiB: a miss
    b = tl.empty(1000, dtype=tl.uint8)
    s1 = tl.memory_stats("cpu", k)
    assert s1["active_bytes"] - before["active_bytes"] == (1 << 20) + 1000
    assert s1["alloc_count"] - before["alloc_count"] == 2
    assert (s1["cache_hits"] + s1["cache_misses"]) - \
        (before["cache_hits"] + before["cache_misses"]) == 2
    _check_invariants(s1)
    del a
    gc.collect()
    s2 = tl.memory_stats("cpu", k)
    assert s2["cached_bytes"] >= s1["cached_bytes"] + (1 << 20)
    assert s2["free_count"] - before["free_count"] == 1
    a = tl.empty(1 << 20, dtype=tl.uint8)           # the same: a hit
    s3 = tl.memory_stats("cpu", k)
    assert s3["cache_hits"] - s2["cache_hits"] == 1
    assert s3["cache_misses"] == s2["cache_misses"]
    assert s3["reserved_bytes"] == s2["reserved_bytes"]
    _check_invariants(s3)
    del a, b
    gc.collect()
    s4 = tl.memory_stats("cpu", k)
    assert s4["active_bytes"] == before["active_bytes"]


def test_device_stats_sum_distinct_allocators():
    total = stats()
    per = {}
    for kind in MemoryKind:
        per[tl.memory.allocator_for(kind=kind)] = tl.memory_stats("cpu",
                                                                  kind)
    for key in ("active_bytes", "reserved_bytes", "alloc_count",
                "free_count", "cache_hits", "cache_misses",
                "cached_bytes"):
        assert total[key] == sum(s[key] for s in per.values()), key
    assert total["largest_free_block"] == max(
        s["largest_free_block"] for s in per.values())


def test_empty_cache_returns_cached_memory():
    keep = tl.full((1 << 18,), 3.0)                     # 1 MiB in use
    junk = [tl.empty(1 << 20, dtype=tl.uint8) for _ in range(4)]
    pinned = tl.empty(1 << 18, memory_kind="HostPinned")
    del junk, pinned
    gc.collect()
    before = stats()
    assert before["cached_bytes"] >= 4 << 20
    tl.empty_cache()
    after = tl.memory_stats()
    assert after["reserved_bytes"] <= before["reserved_bytes"] - (4 << 20)
    assert after["active_bytes"] == before["active_bytes"]   # untouched
    assert keep.sum().item() == 3.0 * (1 << 18)
    assert tl.memory_stats("cpu", "HostPinned")["reserved_bytes"] == 0


def test_reset_peak_covers_every_allocator():
    with tl.workspace(1 << 16) as ws:
        w = ws.empty(1000)
        p = tl.empty(1000, memory_kind="HostPinned")
        del w, p
    gc.collect()
    tl.reset_peak_memory_stats()
    for kind in MemoryKind:
        s = tl.memory_stats("cpu", kind)
        assert s["active_bytes_peak"] == s["active_bytes"], kind


def test_memory_summary():
    with tl.workspace(1 << 12):
        s = tl.memory_summary()
    assert s is not None and isinstance(s, str)
    for kind in MemoryKind:
        assert kind.name in s
    for name in ("cpu_caching", "cpu_aligned", "cpu_pinned",
                 "workspace_arena", "active", "reserved", "total"):
        assert name in s
    assert tl.memory_summary("cpu") .count("\n") > 8
    assert tl.memory_summary is tl.memory.memory_summary
    with pytest.raises(ValueError):
        tl.memory_summary("tpu")


def test_memory_stats_bad_input():
    with pytest.raises(ValueError):
        tl.memory_stats("tpu")
    with pytest.raises(TypeError):
        tl.memory_stats(kind=2.5)


# ---- bad sizes ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS_CPU)
def test_bad_sizes_leak_nothing(kind):
    before = stats()
    with pytest.raises(ValueError):
        tl.empty(-1, memory_kind=kind)
    with pytest.raises(ValueError):
        tl.zeros(3, -2, memory_kind=kind)
    with pytest.raises((MemoryError, OverflowError)):
        tl.empty(2 ** 62, memory_kind=kind)
    with pytest.raises((MemoryError, OverflowError)):
        tl.empty(2 ** 40, 2 ** 30, memory_kind=kind)
    with pytest.raises(OverflowError):
        tl.empty(2 ** 64, memory_kind=kind)
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["alloc_count"] - after["free_count"] == \
        before["alloc_count"] - before["free_count"]


# ---- caching allocator quality ---------------------------------------------------------

def test_large_blocks_reused_without_page_faults():
    n = 64 << 20
    t = tl.zeros(n, dtype=tl.uint8)
    del t
    gc.collect()
    before = tl.memory_stats()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t = tl.zeros(n, dtype=tl.uint8)                 # writes every page
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    after = tl.memory_stats()
    assert after["cache_hits"] - before["cache_hits"] == 1
    assert after["cache_misses"] == before["cache_misses"]
    assert after["reserved_bytes"] == before["reserved_bytes"]
    # 64 MiB is 16384 small pages: a fresh mapping would fault on each.
    assert faults < 1000, faults
    del t


_LIMIT_SCRIPT = r"""
import gc, json, tensorlib as tl
tl.empty_cache()
worst = 0
for i in range(12):
    live = [tl.empty((4 << 20) + i * 4096, dtype=tl.uint8) for _ in range(2)]
    del live
    gc.collect()
    s = tl.memory_stats("cpu", "Default")
    worst = max(worst, s["reserved_bytes"] - s["active_bytes"])
print(json.dumps({"worst_cached": worst, "final": tl.memory_stats()}))
"""


def _run_limit(env_value):
    env = dict(os.environ)
    if env_value is None:
        env.pop("TENSORLIB_CPU_CACHE_LIMIT", None)
    else:
        env["TENSORLIB_CPU_CACHE_LIMIT"] = env_value
    proc = subprocess.run([sys.executable, "-c", _LIMIT_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cache_limit_gives_memory_back():
    limited = _run_limit("1M")
    # Beyond the limit freed blocks go back to the system: what is
    # reserved stays below limit + live (+ one small segment of 2 MiB
    # that the interpreter's own small tensors keep).
    assert limited["worst_cached"] <= (1 << 20) + (2 << 20), limited
    unlimited = _run_limit(None)
    assert unlimited["worst_cached"] >= 8 << 20, unlimited


def test_cache_limit_bad_value_is_reported():
    env = dict(os.environ, TENSORLIB_CPU_CACHE_LIMIT="lots")
    proc = subprocess.run([sys.executable, "-c",
                           "import tensorlib as tl; tl.ones(3)"],
                          env=env, capture_output=True, text=True,
                          timeout=120)
    # Either refused loudly or ignored with the default: never a crash.
    assert proc.returncode in (0, 1), proc.stderr
    assert "Segmentation" not in proc.stderr


def test_stress_threads_gil_released():
    before = stats()
    r = tl._C._memory_stress(threads=8, iters=1500, max_bytes=1 << 14)
    assert r["corruptions"] == 0 and r["failures"] == 0
    assert r["allocs"] == r["frees"] == 8 * 1500
    assert r["resets"] > 0
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["alloc_count"] - after["free_count"] == \
        before["alloc_count"] - before["free_count"]
    with pytest.raises(ValueError):
        tl._C._memory_stress(threads=0)


@pytest.mark.slow
def test_stress_threads_long():
    r = tl._C._memory_stress(threads=16, iters=5000, max_bytes=1 << 16,
                             live=48, seed=3)
    assert r["corruptions"] == 0 and r["allocs"] == r["frees"]


def test_python_threads_allocate_concurrently():
    errors = []
    before = stats()

    def work(i):
        try:
            with tl.workspace(1 << 14) as ws:
                for j in range(200):
                    a = tl.full((64 + j,), float(i), memory_kind=(
                        "Default", "Persistent", "HostPinned")[j % 3])
                    w = ws.zeros(64 + j)
                    w += a
                    assert w.sum().item() == float(i) * (64 + j)
                    if j % 25 == 0:
                        ws.reset()
                    del a, w
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    after = stats()
    assert after["active_bytes"] == before["active_bytes"]


@pytest.mark.parametrize("bad", [True, False])
def test_memory_kind_refuses_bools(bad):
    # bool is an int subclass; True would silently mean Persistent.
    with pytest.raises(TypeError, match="bool"):
        tl.empty(2, memory_kind=bad)


def test_storage_allocator_names_the_owner_across_a_reroute():
    t = tl.zeros(8, memory_kind=tl.MemoryKind.Persistent)
    before = tl.memory.allocator_for("cpu", tl.MemoryKind.Persistent)
    assert t.untyped_storage().allocator == before
    other = "cpu_aligned" if before != "cpu_aligned" else "cpu_caching"
    tl.memory.set_allocator(tl.MemoryKind.Persistent, other)
    try:
        u = tl.zeros(8, memory_kind=tl.MemoryKind.Persistent)
        assert u.untyped_storage().allocator == other
        assert t.untyped_storage().allocator == before  # the owner stays
    finally:
        tl.memory.reset_allocator(tl.MemoryKind.Persistent)
    assert tl.from_numpy(np.zeros(2)).untyped_storage().allocator is None


# ---- allocator statistics from Python -------------------------------------
# Allocator statistics from Python: the schema, the arithmetic of
# allocate/free, block reuse by the caching pool, empty_cache, and loops that
# must leave memory, reference counts and Python allocations flat.


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


def test_memory_kind_enum_stats_schema():
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
