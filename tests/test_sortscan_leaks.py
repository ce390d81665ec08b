"""Sorting, scans and softmax loop many times with flat memory and
reference counts, on their success paths (dims, out=, named tuples, the
long-row and threaded paths) and their refusals (which must release what
they allocated before raising): allocator stats, operand reference counts,
versions and Python's traced memory stay where they were."""
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing


def _expect(exc, fn):
    try:
        fn()
    except exc:
        return
    raise AssertionError("expected {} from {}".format(exc.__name__, fn))


def _round(a, i, big, seq):
    r = [
        tl.sort(a, 1), tl.sort(a, 0, True), tl.argsort(a.t()), a.msort(),
        tl.topk(a, 2), tl.topk(big, 5), tl.kthvalue(a, 2, 0, True),
        tl.median(a), tl.median(a, 1), tl.nanmedian(a, 0), tl.mode(i, 1),
        tl.quantile(a, [0.1, 0.9], 1, interpolation="midpoint"),
        tl.nanquantile(a, 0.5), tl.unique(i, return_inverse=True,
                                          return_counts=True),
        tl.unique(i, dim=1), tl.unique_consecutive(i, True, True),
        tl.searchsorted(seq, a), tl.searchsorted(seq, 0.5, right=True),
        tl.bucketize(a, seq), tl.isin(i, tl.tensor([1, 3])),
        tl.nonzero(i), tl.nonzero(i, as_tuple=True), tl.argwhere(a),
        tl.count_nonzero(i, 0),
        tl.cumsum(a, 1), tl.cumprod(i, 0), tl.logcumsumexp(a, 0),
        tl.cummax(a, 1), tl.cummin(i, 0), tl.diff(a, 2, 1),
        tl.diff(a, 1, 0, prepend=a, append=a), tl.cumsum(big, 0),
        tl.softmax(a, 1), tl.log_softmax(a.t(), 1, dtype=tl.float64),
        tl.sort(big.flatten()),
    ]
    tl.cumsum(a, 1, out=tl.empty(0))
    tl.sort(a, 1, out=(tl.empty(0), tl.empty(0, dtype=tl.int64)))
    tl.softmax(a, 0, out=tl.empty(3, 4))
    c = i.clone()
    c.cumsum_(1)
    # refusals
    _expect(IndexError, lambda: tl.sort(a, 3))
    _expect(IndexError, lambda: tl.topk(a, 9))
    _expect(IndexError, lambda: tl.kthvalue(a, 0))
    _expect(TypeError, lambda: tl.sort(a.to(tl.complex64)))
    _expect(tl.ShapeError, lambda: tl.cumsum(a, 1, out=tl.empty(2)))
    _expect(tl.ShapeError, lambda: tl.sort(a, out=(tl.empty(2), tl.empty(
        0, dtype=tl.int64))))
    _expect(TypeError, lambda: tl.softmax(i, 0))
    _expect(ValueError, lambda: tl.quantile(a, 2.0))
    _expect(tl.ShapeError, lambda: tl.searchsorted(tl.ones(2, 3), a))
    _expect(IndexError, lambda: tl.searchsorted(
        seq, a, sorter=tl.tensor([9, 0, 1, 2, 3])))
    _expect(tl.ShapeError, lambda: tl.diff(a, 1, 1, prepend=tl.ones(2)))
    _expect(tl.ShapeError, lambda: tl.median(tl.ones(0, 2), 0))
    return r


def _check_flat(iters):
    a = tl.arange(12.0).reshape(3, 4) / 7 - 0.5
    i = tl.tensor([[1, 3, 3, 0], [2, 2, 1, 1], [0, 0, 5, 1]])
    big = tl.tensor(np.random.default_rng(0).standard_normal(
        (300_000,)).astype(np.float32)).reshape(600, 500)
    seq = tl.tensor([-0.5, -0.25, 0.0, 0.25, 0.5])
    watched = [a, i, big, seq, tl.float32, tl.ShapeError]
    for _ in range(5):
        _round(a, i, big, seq)
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    impl_rcs = [T.impl_refcount(t) for t in (a, i, big, seq)]
    stats = tl.memory_stats()
    versions = [t._version for t in (a, i, big, seq)]
    tracemalloc.start()
    try:
        for _ in range(max(1, iters // 10)):
            _round(a, i, big, seq)
        gc.collect()
        snap1 = tracemalloc.take_snapshot()
        for _ in range(iters):
            _round(a, i, big, seq)
        gc.collect()
        snap2 = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in snap2.compare_to(snap1, "filename"))
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert [T.impl_refcount(t) for t in (a, i, big, seq)] == impl_rcs
    assert [t._version for t in (a, i, big, seq)] == versions
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    assert grown < 32 * 1024, grown


def test_sortscan_loop_flat_short():
    _check_flat(10)


@pytest.mark.slow
def test_sortscan_loop_flat_long():
    _check_flat(200)
