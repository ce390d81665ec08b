"""Tensorlib from several Python threads at once (issue 23 "Data races").

Each test is correct under any interleaving and checks its results; its
real job is to run under ThreadSanitizer (tools/tsan.sh builds the core
and the extension with -fsanitize=thread and runs this file), where any
unsynchronised access in tensorlib's C code is reported.  Big operands
make the ops release the GIL (DESIGN.md "Threads"), so the C code of
several threads really runs at once, also beside tensorlib's own intra-op
worker threads.
"""
import os
import threading

import numpy as np
import pytest

import tensorlib as tl

if os.environ.get("TENSORLIB_EXPECT_TSAN"):
    # tools/tsan.sh must test its ThreadSanitizer build
    assert "build-tsan" in tl._C.__file__, tl._C.__file__

NTHREADS = 8
BIG = 1 << 16   # elements: above the size where ops release the GIL


def run_threads(fn, n=NTHREADS):
    """Runs fn(i) in n threads started together; re-raises the first error."""
    errors = []
    barrier = threading.Barrier(n)

    def body(i):
        try:
            barrier.wait()
            fn(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@pytest.fixture(params=[1, 2], ids=["intraop1", "intraop2"])
def intra_op_threads(request):
    old = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(old)


def test_allocator_stress_from_eight_threads():
    r = tl._C._memory_stress(threads=8, iters=300, max_bytes=1 << 15,
                             live=16, seed=7, workspace=True)
    assert r["allocs"] == 8 * 300


def test_ops_on_disjoint_views(intra_op_threads):
    x = tl.arange(NTHREADS * BIG, dtype=tl.float32).reshape(NTHREADS, BIG)
    ref = np.arange(NTHREADS * BIG, dtype=np.float32).reshape(NTHREADS, BIG)

    def work(i):
        row = x[i]
        for _ in range(3):
            row.mul_(2).add_(1)
        x[i, ::2].neg_()
    run_threads(work)
    for _ in range(3):
        ref = ref * 2 + 1
    ref[:, ::2] *= -1
    np.testing.assert_array_equal(np.asarray(x.tolist(), np.float32), ref)


def test_ops_reading_shared_views(intra_op_threads):
    x = tl.rand(4, BIG, generator=tl.Generator().manual_seed(3))
    xt = x.t()
    want_sum = x.sum().item()
    results = [None] * NTHREADS

    def work(i):
        out = tl.empty(4, BIG)
        acc = 0.0
        for _ in range(3):
            tl.mul(x, x, out=out)       # shared input, private output
            acc += (xt * 2).sum().item() - 2 * want_sum
            acc += float((x[:, i::NTHREADS] + 1).sum().item())
        results[i] = (out.sum().item(), acc)
    run_threads(work)
    sq = (x * x).sum().item()
    for i, (s, acc) in enumerate(results):
        assert s == pytest.approx(sq, rel=1e-4)
        want = 3 * float((x[:, i::NTHREADS] + 1).sum().item())
        assert acc == pytest.approx(want, rel=1e-3, abs=1.0)


def test_generator_shared_between_threads():
    """Every draw takes its own block of the shared generator's stream:
    the draws of all threads are the sequential draws in some order."""
    n, per = 4096, 6
    g = tl.Generator().manual_seed(11)
    got = []
    lock = threading.Lock()

    def work(i):
        for _ in range(per):
            t = tl.rand(n, generator=g)
            with lock:
                got.append(tuple(t.tolist()))
    run_threads(work)
    g2 = tl.Generator().manual_seed(11)
    want = [tuple(tl.rand(n, generator=g2).tolist())
            for _ in range(NTHREADS * per)]
    assert sorted(got) == sorted(want)


def test_default_generator_and_inplace_random_from_threads():
    bufs = [tl.empty(BIG) for _ in range(NTHREADS)]

    def work(i):
        for _ in range(3):
            bufs[i].uniform_(0, 1)
            bufs[i].normal_()
            tl.randn(BIG // 4)
    run_threads(work)
    for b in bufs:
        assert bool(tl.isfinite(b).all())


def test_resize_and_set_racing_with_readers():
    """One thread keeps resizing a tensor and re-pointing it with set_;
    readers keep reading it.  A reader sees some consistent state or a
    clean error, never freed memory (the iterator pins the storage's
    block while it runs without the GIL)."""
    t = tl.ones(BIG)
    storages = [tl.full((BIG * 2,), float(k)).untyped_storage()
                for k in range(3)]
    stop = threading.Event()

    def writer():
        k = 0
        while not stop.is_set() and k < 300:
            k += 1
            if k % 3 == 0:
                t.set_(storages[k % 3], 0, (BIG,), (1,))
            elif k % 3 == 1:
                t.resize_(BIG * 2 if k % 2 else BIG // 2)
            else:
                # (no writes to the data: a write beside a reader of the
                # same elements is the user's race, which TSan rightly
                # reports; metadata changes are tensorlib's to order)
                t.resize_(BIG)

    def reader(i):
        for _ in range(60):
            try:
                s = t.sum().item()
                c = t.clone()
                assert s == s and c.numel() >= 0
                (t * 2).max()
            except RuntimeError:
                pass  # a shape that changed between two Python calls

    def work(i):
        if i == 0:
            try:
                writer()
            finally:
                stop.set()
        else:
            reader(i)
    run_threads(work, n=4)


def test_workspaces_and_plans_from_several_threads():
    plan = tl.ExecutionPlan()
    plan.add_buffer("x", (64, 64), tl.float32)
    plan.add_buffer("idx", (128,), tl.int64, alignment=256)
    plan.add_view_buffer("x0", "x", (64,), offset=0)

    def work(i):
        for k in range(20):
            with tl.workspace(1 << 20) as ws:
                a = ws.empty(256, dtype=tl.float32)
                a.fill_(float(i))
                b = tl.empty(512, memory_kind=tl.MemoryKind.Workspace)
                b.fill_(float(k))
                assert a.sum().item() == 256.0 * i
                assert b.sum().item() == 512.0 * k
                del a, b
            bufs = plan.prepare()
            bufs["x"].fill_(float(i))
            assert bufs["x0"].sum().item() == 64.0 * i
            del bufs
    run_threads(work)


def test_tensors_freed_in_other_threads():
    """Tensors made in one thread and dropped in another (refcounts and
    the caching pool's free lists cross threads)."""
    made = [[tl.empty(1 << (8 + j % 6)) for j in range(30)]
            for _ in range(NTHREADS)]

    def work(i):
        mine = made[(i + 1) % NTHREADS]
        while mine:
            t = mine.pop()
            t.fill_(1.0)
            del t
        for _ in range(50):
            tl.empty(1 << (8 + i % 6)).fill_(2.0)
    run_threads(work)
