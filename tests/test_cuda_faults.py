"""The error paths of the CUDA plug-in (issue 23): every CUDA runtime call
an operation makes is failed in turn, over the emulated runtime's fault
hook (Note [Emulated CUDA faults] in csrc/cuda/cuda_prim_emulated.c).

For each operation of the table and n = 0, 1, 2, ... until the operation
completes without the fault firing, the n-th emulated runtime call fails
once.  Each faulted run must
- raise MemoryError when the call was an allocation (cudaMalloc,
  cudaMallocHost) and RuntimeError naming the failed call otherwise, or
  complete correctly when a layer absorbs the failure (the pool frees its
  cache and retries a failed cudaMalloc; best-effort clean-up reports to
  stderr and goes on);
- leave its operands' values unchanged;
- leak nothing: the device allocator's active bytes, and the emulated
  runtime's live ranges, streams and events, are flat after gc;
- leave the device usable: a later operation works.
Sticky errors (every call of one primitive fails) are checked separately.

Skipped unless the emulated CUDA build is loaded (TENSORLIB_CUDA=emulate,
.ci/run phase "cuda").
"""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorlib as tl

cuda = tl.cuda
EMULATED = cuda.is_built() and cuda.is_emulated() and cuda.is_available()
pytestmark = pytest.mark.skipif(
    not EMULATED, reason="needs the emulated CUDA build (TENSORLIB_CUDA="
                         "emulate)")
T = tl._C._testing
ALLOC_CALLS = ("cudaMalloc", "cudaMallocHost")
LIMIT = 200  # runtime calls one operation may make


def host(t):
    return t.cpu().numpy() if t.is_cuda else t.numpy()


def settle():
    """Frees what can be freed: collected tensors, finished copies, the
    device and page-locked caches."""
    gc.collect()
    for i in range(cuda.device_count()):
        cuda.synchronize(i)
        cuda.empty_cache(i)
    tl._C.empty_cache(device="cpu")


def measure():
    settle()
    live = T.cuda_live()
    return {"device_active": [cuda.memory_stats(i)["active_bytes"]
                              for i in range(cuda.device_count())],
            "pinned_active": tl._C.memory_stats(
                device="cpu", kind="HostPinned")["active_bytes"],
            "ranges": live["ranges"], "streams": live["streams"],
            "events": live["events"]}


def still_works():
    x = tl.arange(5.0, device="cuda")
    assert ((x * 2).sum().cpu().item()) == 20.0
    assert host(x + 1).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


def check_error(exc, fired):
    if fired in ALLOC_CALLS:
        assert isinstance(exc, MemoryError), (fired, exc)
    else:
        assert type(exc) is RuntimeError, (fired, exc)
        assert fired in str(exc), (fired, exc)


def sweep(make, op, check):
    """Runs op(*make()) with the n-th CUDA call failing, n = 0, 1, ...
    Returns the faults that fired, as (n, call, outcome)."""
    seen = []
    for n in range(LIMIT):
        operands = make()
        before = [host(o) for o in operands if isinstance(o, tl.Tensor)]
        base = measure()
        result = exc = None
        T.cuda_fail_call(n)
        try:
            result = op(*operands)
        except (MemoryError, RuntimeError) as e:
            exc = e
        finally:
            count, fired = T.cuda_fault_state()
            T.cuda_fail_call(-1)
        if fired is None:
            assert exc is None, exc
            check(result, *operands)
            del result
            assert measure() == base
            return seen
        if exc is None:
            check(result, *operands)  # absorbed: the result must be right
        else:
            check_error(exc, fired)
        seen.append((n, fired, "absorbed" if exc is None else
                     type(exc).__name__))
        after = [host(o) for o in operands if isinstance(o, tl.Tensor)]
        for b, a in zip(before, after):
            np.testing.assert_array_equal(a, b)
        del result, exc
        assert measure() == base, (n, fired)
        still_works()
    pytest.fail("the operation made more than {} CUDA calls".format(LIMIT))


# ---- the table ---------------------------------------------------------------

A = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
B = np.linspace(-1, 2, 12, dtype=np.float32).reshape(3, 4)


def cpu_a():
    return (tl.tensor(A),)


def dev_a():
    return (tl.tensor(A).cuda(),)


def dev_long():
    # few outputs over many elements: the split reduction schedules, whose
    # scratch block is one more allocation (csrc/cuda/reduce.cu)
    a = np.random.default_rng(5).uniform(-1, 1, (3, 20000))
    return (tl.tensor(a).cuda(),)


def dev_wide():
    # an outer split whose scratch (512 KiB) needs a segment of its own
    a = np.random.default_rng(6).uniform(-1, 1, (64, 8192))
    return (tl.tensor(a).cuda(),)


def dev_ab():
    return (tl.tensor(A).cuda(), tl.tensor(B).cuda())


def equals(want):
    def check(result, *operands):
        np.testing.assert_allclose(host(result), want(*[host(o)
                                                         for o in operands]),
                                   rtol=1e-6)
    return check


def is_cuda_with(want):
    def check(result, *operands):
        assert result.is_cuda
        np.testing.assert_allclose(host(result), want, rtol=1e-6)
    return check


def is_empty7(result):
    assert result.is_cuda and tuple(result.shape) == (7,)


def non_blocking_to_host(d):
    h = d.to("cpu", non_blocking=True)
    return h


def copy_into_device(x):
    dst = tl.empty(3, 4, device="cuda")
    dst.copy_(x, non_blocking=True)
    return dst


def copy_into_host(d):
    dst = tl.empty(3, 4)
    dst.copy_(d)
    return dst


def streams_round(d):
    s = cuda.Stream()
    with cuda.stream(s):
        r = d * 3
    s.synchronize()
    assert s.query()
    return r


def record_and_free(d):
    # x, of the default stream, used on s: freeing it records an event on
    # s and defers the block (the pool's stream backend).
    s = cuda.Stream()
    x = d + 1
    with cuda.stream(s):
        y = x.sum()
    x.record_stream(s)
    del x
    gc.collect()
    return y


def non_blocking_read(d):
    # The first host read waits for the pending copy (its event).
    h = d.to("cpu", non_blocking=True)
    return h + 0


def non_blocking_then_synchronize(x):
    # The source stays alive until synchronize polls the copy's event.
    r = x.cuda(non_blocking=True)
    cuda.synchronize()
    return r


def pinned_round(x):
    p = tl.empty(3, 4, memory_kind=tl.MemoryKind.HostPinned)
    p.copy_(x)
    return p.to("cuda", non_blocking=True)


def int_div(a):
    n = (a.to(tl.int32) + 100)
    return n // (n - 50)


def synchronize_after(d):
    r = d - 1
    cuda.synchronize()
    return r


def cache_round(d):
    r = d.clone()
    cuda.empty_cache()
    assert cuda.memory_stats()["active_bytes"] > 0
    return r


OPS = {
    "to_cuda": (cpu_a, lambda x: x.to("cuda"), equals(lambda a: a)),
    "cuda_non_blocking": (cpu_a, lambda x: x.cuda(non_blocking=True),
                          equals(lambda a: a)),
    "cuda_cast": (cpu_a, lambda x: x.to("cuda", tl.float64),
                  equals(lambda a: a)),
    "cuda_transposed": (cpu_a, lambda x: x.t().cuda(),
                        equals(lambda a: a.T)),
    "cpu": (dev_a, lambda d: d.cpu(), equals(lambda a: a)),
    "cpu_non_blocking": (dev_a, non_blocking_to_host, equals(lambda a: a)),
    "cpu_non_blocking_read": (dev_a, non_blocking_read,
                              equals(lambda a: a)),
    "cuda_non_blocking_sync": (cpu_a, non_blocking_then_synchronize,
                               equals(lambda a: a)),
    "cpu_strided": (dev_a, lambda d: d[:, ::2].cpu(),
                    equals(lambda a: a[:, ::2])),
    "copy_into_device": (cpu_a, copy_into_device, equals(lambda a: a)),
    "copy_into_host": (dev_a, copy_into_host, equals(lambda a: a)),
    "clone": (dev_a, lambda d: d.clone(), equals(lambda a: a)),
    "contiguous": (dev_a, lambda d: d.t().contiguous(),
                   equals(lambda a: a.T)),
    "empty": (tuple, lambda: tl.empty(7, device="cuda"), is_empty7),
    "zeros": (tuple, lambda: tl.zeros(2, 3, device="cuda"),
              is_cuda_with(np.zeros((2, 3)))),
    "full": (tuple, lambda: tl.full((4,), 2.5, device="cuda"),
             is_cuda_with(np.full(4, 2.5))),
    "arange": (tuple, lambda: tl.arange(6, device="cuda"),
               is_cuda_with(np.arange(6))),
    "tensor": (tuple, lambda: tl.tensor([[1, 2], [3, 4]], device="cuda"),
               is_cuda_with(np.array([[1, 2], [3, 4]]))),
    "add": (dev_ab, lambda a, b: a + b, equals(lambda a, b: a + b)),
    "mul_scalar": (dev_a, lambda d: d * 2, equals(lambda a: a * 2)),
    "neg": (dev_a, lambda d: -d, equals(lambda a: -a)),
    "exp": (dev_a, lambda d: d.exp(), equals(np.exp)),
    "where": (dev_ab, lambda a, b: tl.where(a > 0, a, b),
              equals(lambda a, b: np.where(a > 0, a, b))),
    "clamp": (dev_a, lambda d: d.clamp(-1, 1),
              equals(lambda a: np.clip(a, -1, 1))),
    "int_div": (dev_a, int_div,
                equals(lambda a: (a.astype(np.int32) + 100) //
                       (a.astype(np.int32) + 50))),
    "sum": (dev_a, lambda d: d.sum(), equals(lambda a: a.sum())),
    "sum_dim": (dev_a, lambda d: d.sum(0), equals(lambda a: a.sum(0))),
    "sum_split_inner": (dev_long, lambda d: d.sum(1),
                        equals(lambda a: a.sum(1))),
    "amax_split_outer": (dev_long, lambda d: d.t().contiguous().amax(0),
                         equals(lambda a: a.T.max(0))),
    "sum_split_outer": (dev_wide, lambda d: d.sum(0),
                        equals(lambda a: a.sum(0))),
    "mean": (dev_a, lambda d: d.mean(1), equals(lambda a: a.mean(1))),
    "item": (dev_a, lambda d: tl.tensor(d.max().item()),
             equals(lambda a: a.max())),
    "streams": (dev_a, streams_round, equals(lambda a: a * 3)),
    "record_stream": (dev_a, record_and_free, equals(lambda a: (a + 1).sum())),
    "synchronize": (dev_a, synchronize_after, equals(lambda a: a - 1)),
    "empty_cache": (dev_a, cache_round, equals(lambda a: a)),
    "pinned": (cpu_a, pinned_round, equals(lambda a: a)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_call_fails_cleanly(name):
    make, op, check = OPS[name]
    seen = sweep(make, op, check)
    assert seen, "no CUDA call was made"


# ---- the stream API --------------------------------------------------------


def test_stream_api_faults():
    base = measure()
    for call, f in [
            ("cudaStreamCreateWithPriority", lambda: cuda.Stream()),
            ("cudaStreamQuery", lambda: cuda.Stream().query()),
            ("cudaStreamSynchronize", lambda: cuda.Stream().synchronize()),
            ("cudaDeviceSynchronize", lambda: cuda.synchronize()),
    ]:
        T.cuda_fail_always(call)
        try:
            with pytest.raises(RuntimeError, match=call):
                f()
        finally:
            T.cuda_fail_always(call, False)
        gc.collect()
        assert measure() == base, call
        still_works()
    # A failing cudaStreamDestroy still releases the stream (the owner
    # swallows the error at collection).
    s = cuda.Stream()
    T.cuda_fail_always("cudaStreamDestroy")
    try:
        with pytest.raises(RuntimeError, match="cudaStreamDestroy"):
            tl._C._cuda_stream_free(0, s.cuda_stream)
        s._owned = False
    finally:
        T.cuda_fail_always(None)
    assert measure() == base


# ---- sticky errors -------------------------------------------------------------


def sticky(call, f, exc_type, match):
    base = measure()
    T.cuda_fail_always(call)
    try:
        with pytest.raises(exc_type, match=match):
            f()
    finally:
        T.cuda_fail_always(None)
    assert measure() == base, call
    still_works()


def test_out_of_device_memory_is_memory_error():
    # The pool frees its cache and retries once; a device that stays full
    # is a MemoryError.
    sticky("cudaMalloc", lambda: tl.empty(1 << 22, device="cuda"),
           MemoryError, "failed to allocate")
    x = tl.tensor(A)
    sticky("cudaMalloc", lambda: x.cuda(), MemoryError, "failed to allocate")
    np.testing.assert_array_equal(x.numpy(), A)


def test_out_of_page_locked_memory_is_memory_error():
    sticky("cudaMallocHost",
           lambda: tl.empty(1 << 20, memory_kind=tl.MemoryKind.HostPinned),
           MemoryError, None)


@pytest.mark.parametrize("what,f", [
    ("elementwise", lambda d, i: d + 1),
    ("elementwise", lambda d, i: d.to(tl.float64)),
    ("reduction", lambda d, i: d.sum()),
    ("scan", lambda d, i: i // i),  # the divisor's zero check first
])
def test_failed_launch_names_the_kernel(what, f):
    d = tl.tensor(A).cuda()
    i = tl.tensor(np.abs(A).astype(np.int32) + 1).cuda()
    sticky("cudaLaunchKernel", lambda: f(d, i), RuntimeError,
           "launching the {} kernel".format(what))
    np.testing.assert_array_equal(host(d), A)


@pytest.mark.parametrize("call", ["cudaMemcpyAsync", "cudaStreamSynchronize",
                                  "cudaGetDevice"])
def test_broken_copies_raise_runtime_error(call):
    x = tl.tensor(A)
    sticky(call, lambda: x.cuda(), (RuntimeError, MemoryError), None)
    np.testing.assert_array_equal(x.numpy(), A)


def test_failing_releases_are_reported_and_release():
    # cudaFree / cudaEventDestroy errors: reported on stderr by the
    # allocator paths that cannot raise; the memory is gone anyway.
    base = measure()
    x = tl.empty(1 << 22, device="cuda")
    h = x.to("cpu", non_blocking=True)
    del x, h
    T.cuda_fail_always("cudaFree")
    T.cuda_fail_always("cudaEventDestroy")
    T.cuda_fail_always("cudaFreeHost")
    try:
        settle()
    finally:
        T.cuda_fail_always(None)
    assert measure() == base
    still_works()


@pytest.mark.parametrize("call", ["cudaEventCreateWithFlags",
                                  "cudaEventRecord"])
def test_untracked_non_blocking_copy_is_waited_for(call):
    # Without its event nothing tracks a queued non-blocking copy: it is
    # waited for (cudaStreamSynchronize) before the error is reported, so
    # the destination freed on the error path is not written afterwards.
    # With the wait failing too, that failure is the one reported.
    x = tl.tensor(A)
    d = x.cuda()
    base = measure()
    for f in (lambda: x.cuda(non_blocking=True),
              lambda: d.to("cpu", non_blocking=True)):
        T.cuda_fail_always(call)
        try:
            with pytest.raises(RuntimeError, match=call):
                f()
            T.cuda_fail_always("cudaStreamSynchronize")
            with pytest.raises(RuntimeError, match="cudaStreamSynchronize"):
                f()
        finally:
            T.cuda_fail_always(None)
        assert measure() == base
        still_works()
    np.testing.assert_array_equal(host(d), A)


def test_failing_event_queries_do_not_hang_or_leak():
    base = measure()
    x = tl.tensor(A)
    for call in ("cudaEventQuery", "cudaEventSynchronize", "cudaEventRecord",
                 "cudaEventCreateWithFlags"):
        T.cuda_fail_always(call)
        try:
            try:
                d = x.cuda(non_blocking=True)
                h = d.to("cpu", non_blocking=True)
                np.testing.assert_array_equal(h.numpy(), A)
            except RuntimeError as e:
                assert call in str(e)
            d = h = None
            gc.collect()
        finally:
            T.cuda_fail_always(None)
        assert measure() == base, call
        still_works()


def test_runtime_info_faults():
    info = T.cuda_runtime_info(0)
    assert info["multiprocessors"] >= 1
    for call in ("cudaGetDeviceProperties", "cudaRuntimeGetVersion",
                 "cudaDriverGetVersion"):
        T.cuda_fail_always(call)
        try:
            with pytest.raises(RuntimeError, match=call):
                T.cuda_runtime_info(0)
        finally:
            T.cuda_fail_always(None)
    with pytest.raises(RuntimeError, match="cudaErrorInvalidDevice"):
        T.cuda_runtime_info(99)
    with pytest.raises(ValueError):
        T.cuda_fail_always("cudaNoSuchCall")


# ---- two devices -------------------------------------------------------------

MULTI = r"""
import sys
sys.path.insert(0, {tests!r})
import numpy as np
import tensorlib as tl
import test_cuda_faults as m
assert tl.cuda.device_count() == 2, tl.cuda.device_count()


def peer(d):
    return d.to("cuda:1")


def peer_back(d):
    return d.to("cuda:1").to("cuda:0") + 1


def on_one(x):
    return (x.to("cuda:1") * 2).sum()


for make, op, check in [
        (m.dev_a, peer, m.equals(lambda a: a)),
        (m.dev_a, peer_back, m.equals(lambda a: a + 1)),
        (m.cpu_a, on_one, m.equals(lambda a: (a * 2).sum())),
]:
    seen = m.sweep(make, op, check)
    assert seen
    print(op.__name__, len(seen), sorted({{c for _, c, _ in seen}}))
tl.cuda.synchronize(1)
print("ok")
"""


def test_peer_copies_on_two_devices():
    env = dict(os.environ, TENSORLIB_CUDA_EMULATE_DEVICES="2")
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", MULTI.format(tests=here)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("ok"), r.stdout
    assert "cudaMemcpyPeerAsync" in r.stdout
    assert "cudaSetDevice" in r.stdout


# ---- the device guard and missing devices ---------------------------------


def test_releases_survive_a_failing_device_guard():
    # A stream or a segment whose device cannot be made current is still
    # released (the stream's owner cannot retry: it swallows the error).
    base = measure()
    s = cuda.Stream()
    x = tl.empty(1 << 22, device="cuda")
    del x
    gc.collect()
    T.cuda_fail_always("cudaGetDevice")
    try:
        with pytest.raises(RuntimeError, match="cudaGetDevice"):
            tl._C._cuda_stream_free(0, s.cuda_stream)
        s._owned = False
        cuda.empty_cache()  # reports on stderr, frees anyway
    finally:
        T.cuda_fail_always(None)
    assert measure() == base
    still_works()


def test_missing_device_index_is_refused():
    n = cuda.device_count()
    base = measure()
    for f in (lambda: tl.empty(2, device=tl.device("cuda", n)),
              lambda: tl.ones(2).to(tl.device("cuda", n)),
              lambda: cuda.Stream(n),
              lambda: cuda.synchronize(n),
              lambda: tl._C._cuda_set_stream(n, 0),
              lambda: tl._C._cuda_stream_free(n, 1),
              lambda: tl._C._cuda_stream_query(n, 0),
              lambda: tl._C._cuda_stream_synchronize(n, 0)):
        with pytest.raises(RuntimeError,
                           match="cuda:{} is not available".format(n)):
            f()
    assert measure() == base
