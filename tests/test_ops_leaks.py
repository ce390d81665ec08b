"""Operations loop many times with flat memory and reference counts.

Every op family of the iterator issue, on its success paths and on its
error paths (which must release whatever they allocated before raising):
binary ops with tensors, Python and NumPy scalars, out= and in-place
forms; unary ops and round(decimals=); where, clamp, copy_, fill_, casts
and memory formats; reductions with dims, keepdim, dtype= and out=; the
partial-overlap copy of x += x.flip(0); and the refusals (division by
zero, broadcast and out= mismatches, overflowing scalars, self-overlapping
outputs).  After a warm-up, another round of iterations must leave the
allocator's active bytes and counts, the operands' reference counts and
Python's traced memory where they were."""
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


def _ops_round(a, b, i8, z, big):
    r = [
        a + b, a - 2.5, 3 * a, a / b, a // 2, a % 3, a ** 2, -a, abs(a),
        tl.add(a, b, alpha=2), tl.maximum(a, b), tl.eq(a, b), a < 1,
        tl.logical_and(i8, tl.tensor(256, dtype=tl.int16)),
        tl.logical_xor(a, tl.tensor(1e-50, dtype=tl.float64)),
        i8 & 3, i8 << 2, ~i8, a + np.float64(2), np.ones(4) + a,
        a.exp(), a.sqrt(), a.sigmoid(), a.round(decimals=2),
        tl.round(a, decimals=-1), a.isnan(), tl.where(a > 0, a, 0.0),
        tl.where(a > 0, i8, 7), a.clamp(0, 1), a.clamp(min=b),
        a.to(tl.float64), a.t().contiguous(), a.clone(), big.t() + big,
        z.contiguous(memory_format=tl.channels_last),
        a.sum(), a.sum(dim=1, keepdim=True), a.mean(0), a.prod(1),
        a.amax((0, 1)), a.max(1), a.argmin(), a.var(1, correction=0),
        a.std(), a.any(), i8.all(0), a.sum(dtype=tl.float64),
        tl.div(i8, 3, rounding_mode="trunc"), a.div(b, rounding_mode="floor"),
        tl.divide(a, b, rounding_mode="trunc"),
    ]
    out = tl.empty(3, 4)
    tl.mul(a, b, out=out)
    tl.sum(a, 1, out=tl.empty(0))
    tl.round(a, decimals=1, out=out)
    c = a.clone()
    c += 1
    c.mul_(b)
    c.copy_(b)
    c.fill_(0.5)
    c += c.flip(0)                 # partial overlap: copied first
    c.round_(decimals=1)
    x = i8.clone()
    x.pow_(tl.tensor([[-1], [2], [0]], dtype=tl.int8))
    # refusals: each raises, leaves its operands, leaks nothing
    _expect(ZeroDivisionError, lambda: i8 // 0)
    _expect(tl.ShapeError, lambda: a + tl.ones(5))
    _expect(tl.ShapeError, lambda: tl.add(a, b, out=tl.empty(2)))
    _expect(TypeError, lambda: tl.add(a, b, out=tl.empty(3, 4,
                                                        dtype=tl.int32)))
    _expect(OverflowError, lambda: tl.add(i8, i8, alpha=300))
    _expect(OverflowError, lambda: tl.where(a > 0, i8, 300))
    _expect(OverflowError, lambda: a.half() ** 70000)
    _expect(ValueError, lambda: i8 ** -1)
    _expect(OverflowError, lambda: tl.full((2,), 1e10, dtype=tl.float16))
    _expect(TypeError, lambda: i8.round(decimals=-1))
    _expect(ZeroDivisionError, lambda: i8.div(0, rounding_mode="trunc"))
    _expect(ValueError, lambda: a.div(b, rounding_mode="up"))
    _expect(tl.ShapeError, lambda: tl.zeros(3).expand(2, 3).add_(1))
    # sizes (4, 3), strides (2, 3): [3, 0] and [0, 2] are one element
    _expect(tl.ShapeError, lambda: tl.neg(
        a.t(), out=tl.zeros(20).as_strided((4, 3), (2, 3))))
    _expect(IndexError, lambda: a.sum(5))
    _expect(tl.ShapeError, lambda: tl.ones(0, 3).amax(0))
    _expect(TypeError, lambda: i8.var())
    _expect(ValueError, lambda: a.t().contiguous(
        memory_format=tl.preserve_format))
    return r


def _check_flat(iters):
    a = tl.arange(12.0).reshape(3, 4) / 7 - 0.5
    b = tl.ones(4) * 0.25
    i8 = tl.arange(12, dtype=tl.int8).reshape(3, 4)
    z = tl.zeros(2, 3, 4, 5)
    big = tl.ones(200, 200)       # big enough for the tiled 2-D walk
    watched = [a, b, i8, z, big, tl.float32, tl.int8, tl.ShapeError]
    for _ in range(20):           # warm caches and interned objects
        _ops_round(a, b, i8, z, big)
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    impl_rcs = [T.impl_refcount(t) for t in (a, b, i8, z, big)]
    stats = tl.memory_stats()
    versions = [t._version for t in (a, b, i8, z, big)]
    tracemalloc.start()
    try:
        for _ in range(iters // 10):
            _ops_round(a, b, i8, z, big)
        gc.collect()
        snap1 = tracemalloc.take_snapshot()
        for _ in range(iters):
            _ops_round(a, b, i8, z, big)
        gc.collect()
        snap2 = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in snap2.compare_to(snap1, "filename"))
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert [T.impl_refcount(t) for t in (a, b, i8, z, big)] == impl_rcs
    assert [t._version for t in (a, b, i8, z, big)] == versions
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    assert after["reserved_bytes"] == stats["reserved_bytes"]
    assert grown < 32 * 1024, grown


def test_ops_loop_flat_short():
    _check_flat(60)


@pytest.mark.slow
def test_ops_loop_flat_long():
    _check_flat(1500)
