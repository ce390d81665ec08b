"""gather, scatter (src / value, reduce=), scatter_add, scatter_reduce,
index_select, index_add, index_copy, index_fill, masked_fill,
masked_select, masked_scatter, take, take_along_dim, put, index_put and
the in-place forms: values against NumPy loops, dtypes and refusals
against PyTorch, on random shapes, dtypes and layouts; bounds checked
before anything is written; repeated indices deterministic for any
thread count; a leak loop."""
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl
from _joinindex_common import (as_dtype, assert_unchanged, rand_tensor,
                               same_error, snapshot, to_np, torch_dtype, tt)
from _ops_common import ALL, COMPLEX, FLOATS, INTS, rng_for

T = tl._C._testing
RED = ["sum", "prod", "mean", "amax", "amin"]
NUMERIC = [d for d in ALL if d != tl.bool]


def _setup(rng, d, dim_lo=1, for_scatter=False):
    ndim = int(rng.integers(dim_lo, 4))
    shape = [int(s) for s in rng.integers(1, 5, ndim)]
    dim = int(rng.integers(-ndim, ndim))
    self_t, self_v = rand_tensor(shape, d, rng)
    ishape = [int(rng.integers(0, s + 1)) for s in shape]
    ishape[dim % ndim] = int(rng.integers(0, 6))
    idx = rng.integers(0, shape[dim % ndim], ishape)
    idx_t = rand_tensor(ishape, tl.int64, rng)[0]
    idx_t.copy_(tl.tensor(idx))
    return self_t, self_v, dim, idx_t, idx


def _np_gather(v, dim, idx):
    d = dim % v.ndim
    sl = tuple(slice(None) if k == d else slice(0, idx.shape[k])
               for k in range(v.ndim))
    return np.take_along_axis(v[sl], idx, d)


def _combine(a, b, reduce):
    if reduce in ("sum", "mean"):
        return a + b
    if reduce == "prod":
        return a * b
    if reduce == "amax":
        return a if (a != a or a >= b) else b
    return a if (a != a or a <= b) else b


def _np_scatter(v, dim, idx, src, reduce=None, include_self=True):
    """The loop PyTorch documents, in index order; computed in float64
    (complex128, int64 for integers) and cast back by the caller."""
    d = dim % v.ndim
    kind = v.dtype.kind
    wide = {"f": np.float64, "c": np.complex128, "b": np.int64}.get(
        kind, np.int64 if kind == "i" else np.uint64)
    out = v.astype(wide)
    count = np.zeros(v.shape, np.int64)
    if reduce and not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1, "amax": -np.inf,
                 "amin": np.inf}[reduce]
        for p in np.ndindex(idx.shape):
            q = list(p)
            q[d] = idx[p]
            out[tuple(q)] = ident if kind in "fc" else (
                {"amax": np.iinfo(v.dtype).min if kind != "b" else 0,
                 "amin": np.iinfo(v.dtype).max if kind != "b" else 1}
                .get(reduce, ident))
    for p in np.ndindex(idx.shape):
        q = list(p)
        q[d] = idx[p]
        q = tuple(q)
        s = src[p] if isinstance(src, np.ndarray) else src
        if reduce is None:
            out[q] = s
        else:
            out[q] = _combine(out[q], wide(s), reduce)
            count[q] += 1
    if reduce == "mean":
        c = count + (1 if include_self else 0)
        c[c == 0] = 1
        out = out / c if kind in "fc" else out // c
    return out


def _cast_like(x, d):
    x = np.asarray(x)
    if d == tl.bool:
        return x != 0
    if d in INTS:
        return x.astype(np.int64).astype(to_np(tl.zeros(1, dtype=d)).dtype)
    return as_dtype(x, d)


def _close(got, want, d):
    g = to_np(got)
    w = _cast_like(want, d)
    if d in FLOATS or d in COMPLEX:
        tol = {tl.float16: 2e-3, tl.bfloat16: 2e-2}.get(d, 1e-6)
        np.testing.assert_allclose(g, w.astype(g.dtype), rtol=tol,
                                   atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w.astype(g.dtype))


# ---- gather / scatter ----------------------------------------------------


@pytest.mark.parametrize("trial", range(30))
def test_gather_random(torch, trial):
    rng = rng_for("gather", trial)
    d = ALL[trial % len(ALL)]
    t, v, dim, it, i = _setup(rng, d)
    r = tl.gather(t, dim, it)
    assert r.dtype == d and tuple(r.shape) == i.shape
    np.testing.assert_array_equal(to_np(r), _np_gather(v, dim, i).astype(
        to_np(r).dtype))
    np.testing.assert_array_equal(to_np(t.gather(dim, it)), to_np(r))
    out = tl.empty(0, dtype=d)
    assert tl.gather(t, dim, it, out=out) is out
    np.testing.assert_array_equal(to_np(out), to_np(r))


@pytest.mark.parametrize("trial", range(30))
def test_scatter_random(torch, trial):
    rng = rng_for("scatter", trial)
    d = ALL[trial % len(ALL)]
    t, v, dim, it, i = _setup(rng, d)
    src_shape = [s + int(rng.integers(0, 2)) for s in i.shape]
    src, sv = rand_tensor(src_shape, d, rng)
    s = snapshot(t, src, it)
    r = tl.scatter(t, dim, it, src)
    assert_unchanged(s, t, src, it)
    _close(r, _np_scatter(v, dim, i, sv), d)
    c = t.clone()
    ver = c._version
    assert c.scatter_(dim, it, src) is c
    assert c._version > ver
    _close(c, _np_scatter(v, dim, i, sv), d)
    val = 1 if d in INTS or d == tl.bool else 2.5
    _close(t.scatter(dim, it, val), _np_scatter(v, dim, i, val), d)
    _close(t.scatter(dim, it, value=val), _np_scatter(v, dim, i, val), d)


@pytest.mark.parametrize("reduce", RED)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("trial", range(6))
def test_scatter_reduce_random(torch, reduce, include_self, trial):
    rng = rng_for("sred", reduce, include_self, trial)
    pool = [x for x in NUMERIC if not (x in COMPLEX and reduce in (
        "amax", "amin", "mean"))]
    d = pool[int(rng.integers(len(pool)))]
    t, v, dim, it, i = _setup(rng, d)
    src, sv = rand_tensor(i.shape, d, rng)
    r = tl.scatter_reduce(t, dim, it, src, reduce,
                          include_self=include_self)
    assert r.dtype == d
    _close(r, _np_scatter(v, dim, i, sv, reduce, include_self), d)
    if d not in (tl.uint16, tl.uint32, tl.uint64) and not (
            d in COMPLEX and reduce != "sum"):
        q = tt(torch, t).scatter_reduce(dim, tt(torch, it), tt(torch, src),
                                        reduce, include_self=include_self)
        assert q.dtype == torch_dtype(torch, d)
    c = t.clone()
    c.scatter_reduce_(dim, it, src, reduce, include_self=include_self)
    np.testing.assert_array_equal(to_np(c), to_np(r))


@pytest.mark.parametrize("trial", range(12))
def test_scatter_add_and_legacy_reduce(trial):
    rng = rng_for("sadd", trial)
    d = [tl.float32, tl.float64, tl.int64, tl.int16, tl.float16,
         tl.complex64][trial % 6]
    t, v, dim, it, i = _setup(rng, d)
    src, sv = rand_tensor(i.shape, d, rng)
    _close(tl.scatter_add(t, dim, it, src),
           _np_scatter(v, dim, i, sv, "sum"), d)
    c = t.clone()
    c.scatter_add_(dim, it, src)
    _close(c, _np_scatter(v, dim, i, sv, "sum"), d)
    _close(t.scatter(dim, it, src, reduce="add"),
           _np_scatter(v, dim, i, sv, "sum"), d)
    _close(t.scatter(dim, it, src, reduce="multiply"),
           _np_scatter(v, dim, i, sv, "prod"), d)
    _close(t.scatter(dim, it, 2, reduce="multiply"),
           _np_scatter(v, dim, i, 2, "prod"), d)


def test_scatter_zero_dim_and_empty():
    t = tl.tensor(3.0)
    r = tl.scatter(t, 0, tl.tensor(0), tl.tensor(5.0))
    assert r.item() == 5.0 and r.ndim == 0
    assert tl.gather(t, 0, tl.tensor(0)).item() == 3.0
    a = tl.zeros(3, 4)
    e = tl.empty(0, 4, dtype=tl.int64)
    np.testing.assert_array_equal(to_np(a.scatter_add(0, e, a)), to_np(a))
    assert tuple(tl.gather(a, 0, e).shape) == (0, 4)


def test_gather_scatter_refusals(torch):
    a = tl.arange(12.0).reshape(3, 4)
    q = torch.arange(12.0).reshape(3, 4)
    i = tl.tensor([[0, 1], [2, 3]])
    qi = torch.tensor([[0, 1], [2, 3]])
    s = snapshot(a, i)
    e = same_error(lambda: q.gather(0, qi), lambda: a.gather(0, i),
                   IndexError)
    assert "3" in str(e) and isinstance(e, IndexError)
    same_error(lambda: q.gather(0, qi.int()), lambda: a.gather(0, i.int()),
               TypeError)
    same_error(lambda: q.gather(0, -qi), lambda: a.gather(0, -i),
               IndexError)
    same_error(lambda: q.gather(2, qi), lambda: a.gather(2, i))
    same_error(lambda: q.gather(0, qi[0]), lambda: a.gather(0, i[0]))
    same_error(lambda: q.gather(1, torch.zeros(4, 1, dtype=torch.int64)),
               lambda: a.gather(1, tl.zeros(4, 1, dtype=tl.int64)))
    # scatter: bad indices and shape mismatches write nothing
    c, qc = a.clone(), q.clone()
    sc = snapshot(c)
    same_error(lambda: qc.scatter_(1, qi + 1, q[:2, :2] + 1),
               lambda: c.scatter_(1, i + 1, a[:2, :2] + 1), IndexError)
    same_error(lambda: qc.scatter_(0, qi, q.double()),
               lambda: c.scatter_(0, i, a.double()), TypeError)
    same_error(lambda: qc.scatter_(0, qi, q[:1, :1]),
               lambda: c.scatter_(0, i, a[:1, :1]))
    same_error(lambda: qc.scatter_reduce_(0, qi, q, "max"),
               lambda: c.scatter_reduce_(0, i, a, "max"), ValueError)
    same_error(lambda: qc.scatter_(0, qi, q, reduce="mean"),
               lambda: c.scatter_(0, i, a, reduce="mean"), ValueError)
    # the partly written fresh result of a bad out-of-place scatter is
    # never seen; the in-place form checks first
    with pytest.raises(IndexError):
        tl.scatter_add(a, 1, tl.tensor([[0, 9]]), a[:1, :2])
    big = tl.zeros(1000)
    with pytest.raises(IndexError, match="1000"):
        big.scatter_add_(0, tl.tensor([5] * 500 + [1000]), tl.ones(501))
    assert to_np(big).sum() == 0 and big._version == 0
    assert_unchanged(s, a, i)
    assert_unchanged(sc, c)
    # out= of the wrong dtype or shape
    with pytest.raises(TypeError):
        tl.gather(a, 1, i, out=tl.empty(2, 2, dtype=tl.float64))
    with pytest.raises(tl.ShapeError):
        tl.gather(a, 1, i, out=tl.empty(3, 3))


def test_scatter_overlapping_src_and_readonly():
    a = tl.arange(8.0)
    want = to_np(a).copy()
    idx = np.array([7, 6, 5, 4])
    want[idx] = want[:4]
    a.scatter_(0, tl.tensor(idx), a[:4])
    np.testing.assert_array_equal(to_np(a), want)
    x = tl.zeros(2, 3).expand(4, 2, 3)
    with pytest.raises(tl.ShapeError):
        x.scatter_(0, tl.zeros(1, 2, 3, dtype=tl.int64), tl.ones(1, 2, 3))
    arr = np.zeros(4, np.float32)
    arr.flags.writeable = False
    ro = tl.from_numpy(arr)
    with pytest.raises(ValueError):
        ro.scatter_(0, tl.tensor([1]), tl.ones(1))


@pytest.mark.parametrize("op", ["scatter_add", "index_add", "index_put",
                                "put"])
def test_repeated_indices_deterministic(op):
    rng = rng_for("det", op)
    n = 1 << 16
    vals = tl.tensor(rng.standard_normal(n).astype(np.float32) * 1e3)
    idx = tl.tensor(rng.integers(0, 37, n))
    dst = tl.zeros(37)

    def run():
        if op == "scatter_add":
            return dst.scatter_add(0, idx, vals)
        if op == "index_add":
            return dst.index_add(0, idx, vals)
        if op == "index_put":
            return dst.index_put((idx,), vals, accumulate=True)
        return dst.put(idx, vals, accumulate=True)

    old = tl.get_num_threads()
    try:
        results = []
        for nt in (1, 2, 3, 1, 4):
            tl.set_num_threads(nt)
            results.append(to_np(run()))
    finally:
        tl.set_num_threads(old)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    # equal to the sequential sum in index order
    want = np.zeros(37, np.float32)
    for j, v in zip(to_np(idx), to_np(vals)):
        want[j] = np.float32(want[j] + v)
    np.testing.assert_array_equal(results[0], want)


def test_scatter_add_2d_threads():
    rng = rng_for("det2")
    src = tl.tensor(rng.standard_normal((300, 200)).astype(np.float32))
    idx = tl.tensor(rng.integers(0, 5, (300, 200)))
    old = tl.get_num_threads()
    try:
        outs = []
        for nt in (1, 2, 4):
            tl.set_num_threads(nt)
            for dim in (0, 1):
                outs.append(to_np(tl.zeros(300, 200).scatter_add(
                    dim, idx, src)))
    finally:
        tl.set_num_threads(old)
    for k in range(2):
        for r in outs[2 + k::2]:
            np.testing.assert_array_equal(r, outs[k])


# ---- index_select and the index_* family ---------------------------------


@pytest.mark.parametrize("trial", range(24))
def test_index_family_random(torch, trial):
    rng = rng_for("indexfam", trial)
    d = ALL[trial % len(ALL)]
    ndim = int(rng.integers(0, 4))
    shape = [int(s) for s in rng.integers(1, 5, ndim)]
    t, v = rand_tensor(shape, d, rng)
    dim = int(rng.integers(-max(ndim, 1), max(ndim, 1)))
    size = shape[dim] if ndim else 1
    m = int(rng.integers(0, 6))
    idx = rng.integers(0, size, m)
    it = tl.tensor(idx) if trial % 2 else tl.tensor(idx.astype(np.int32))
    vv = v.reshape(1) if ndim == 0 else v
    dd = dim % max(ndim, 1)
    if ndim == 0 and m != 1:
        same_error(lambda: tt(torch, t).index_select(dim, torch.from_numpy(
            idx)), lambda: t.index_select(dim, it))
        return
    r = tl.index_select(t, dim, it)
    want = np.take(vv, idx, dd)
    np.testing.assert_array_equal(to_np(r).reshape(want.shape),
                                  want.astype(to_np(r).dtype))
    if d not in (tl.uint16, tl.uint32, tl.uint64):
        q = torch.index_select(tt(torch, t), dim, torch.from_numpy(idx))
        assert tuple(q.shape) == tuple(r.shape)
    sshape = list(vv.shape)
    sshape[dd] = m
    src, sv = rand_tensor(sshape, d, rng)
    if ndim == 0:
        src = src.reshape(())
    # index_add: in index order, duplicates add
    want = vv.astype(np.complex128 if d in COMPLEX else np.float64
                     if d in FLOATS else np.int64).copy()
    for j, k in enumerate(idx):
        sl = [slice(None)] * vv.ndim
        sl[dd] = k
        ss = [slice(None)] * vv.ndim
        ss[dd] = j
        if d == tl.bool:
            want[tuple(sl)] = want[tuple(sl)] | sv[tuple(ss)]
        else:
            want[tuple(sl)] = want[tuple(sl)] + sv[tuple(ss)]
    got = t.index_add(dim, it, src)
    _close(got.reshape(vv.shape), want.reshape(vv.shape), d)
    c = t.clone()
    assert c.index_add_(dim, it, src) is c
    np.testing.assert_array_equal(to_np(c), to_np(got))
    # index_copy: the last duplicate wins
    want = vv.copy()
    for j, k in enumerate(idx):
        sl = [slice(None)] * vv.ndim
        sl[dd] = k
        ss = [slice(None)] * vv.ndim
        ss[dd] = j
        want[tuple(sl)] = sv[tuple(ss)]
    _close(tl.index_copy(t, dim, it, src).reshape(vv.shape), want, d)
    # index_fill with negative indices
    want = vv.copy()
    nidx = idx - size
    sl = [slice(None)] * vv.ndim
    sl[dd] = idx
    want[tuple(sl)] = 1
    _close(t.index_fill(dim, tl.tensor(nidx), 1).reshape(vv.shape), want, d)
    c = t.clone()
    c.index_fill_(dim, tl.tensor(nidx), tl.tensor(1))
    _close(c.reshape(vv.shape), want, d)


def test_index_add_alpha(torch):
    a = tl.zeros(3, 2)
    r = a.index_add(0, tl.tensor([0, 0, 2]), tl.ones(3, 2), alpha=2.5)
    np.testing.assert_array_equal(to_np(r), [[5, 5], [0, 0], [2.5, 2.5]])
    ai = tl.zeros(3, dtype=tl.int64)
    r = tl.index_add(ai, 0, tl.tensor([1]), tl.ones(1, dtype=tl.int64),
                     alpha=3)
    assert r.tolist() == [0, 3, 0]


def test_index_family_refusals(torch):
    a = tl.arange(12.0).reshape(3, 4)
    q = torch.arange(12.0).reshape(3, 4)
    s = snapshot(a)
    same_error(lambda: q.index_select(0, torch.tensor([3])),
               lambda: a.index_select(0, tl.tensor([3])), IndexError)
    same_error(lambda: q.index_select(0, torch.tensor([-1])),
               lambda: a.index_select(0, tl.tensor([-1])), IndexError)
    same_error(lambda: q.index_select(0, torch.tensor([0.0])),
               lambda: a.index_select(0, tl.tensor([0.0])), TypeError)
    same_error(lambda: q.index_select(0, torch.tensor([[0]])),
               lambda: a.index_select(0, tl.tensor([[0]])), IndexError)
    same_error(lambda: q.index_select(2, torch.tensor([0])),
               lambda: a.index_select(2, tl.tensor([0])))
    c, qc = a.clone(), q.clone()
    sc = snapshot(c)
    same_error(lambda: qc.index_add_(0, torch.tensor([0, 5]),
                                     torch.ones(2, 4)),
               lambda: c.index_add_(0, tl.tensor([0, 5]), tl.ones(2, 4)),
               IndexError)
    same_error(lambda: qc.index_add_(0, torch.tensor([0, 1]),
                                     torch.ones(2, 3)),
               lambda: c.index_add_(0, tl.tensor([0, 1]), tl.ones(2, 3)))
    same_error(lambda: qc.index_copy_(0, torch.tensor([0, 1]),
                                      torch.ones(2, 4).double()),
               lambda: c.index_copy_(0, tl.tensor([0, 1]),
                                     tl.ones(2, 4).double()), TypeError)
    same_error(lambda: qc.index_fill_(0, torch.tensor([-4]), 1.0),
               lambda: c.index_fill_(0, tl.tensor([-4]), 1.0), IndexError)
    assert_unchanged(s, a)
    assert_unchanged(sc, c)


# ---- masked ops ---------------------------------------------------------


@pytest.mark.parametrize("trial", range(16))
def test_masked_ops(torch, trial):
    rng = rng_for("masked", trial)
    d = ALL[trial % len(ALL)]
    ndim = int(rng.integers(0, 4))
    shape = [int(s) for s in rng.integers(0, 4, ndim)]
    t, v = rand_tensor(shape, d, rng)
    mshape = [s if rng.random() < 0.7 else 1 for s in shape]
    m, mv = rand_tensor(mshape, tl.bool, rng)
    val = 1 if d in INTS or d == tl.bool else -2.5
    bt, bm = np.broadcast_arrays(v, mv)
    want = np.where(bm, _cast_like(val, d), bt)
    _close(tl.masked_fill(t, m, val), want, d)
    _close(t.masked_fill(m, tl.tensor(val)), want, d)
    c = t.clone()
    ver = c._version
    assert c.masked_fill_(m, val) is c
    assert c._version > ver
    _close(c, want, d)
    _close(tl.masked_select(t, m), bt[bm], d)
    n = int(bm.sum())
    src, sv = rand_tensor([n + 2], d, rng)
    w = bt.copy()
    w[bm] = sv[:n]
    _close(t.masked_scatter(m, src), w, d)
    c = t.clone()
    c.masked_scatter_(m, src)
    _close(c, w, d)
    if d not in (tl.uint16, tl.uint32, tl.uint64):
        q = tt(torch, t).masked_fill(tt(torch, m), val)
        assert q.dtype == torch_dtype(torch, d)


def test_masked_refusals(torch):
    a, q = tl.zeros(2, 3), torch.zeros(2, 3)
    same_error(lambda: q.masked_fill(torch.ones(2, 3, dtype=torch.int64), 1),
               lambda: a.masked_fill(tl.ones(2, 3, dtype=tl.int64), 1),
               TypeError)
    same_error(lambda: q.masked_fill_(torch.ones(4, dtype=torch.bool), 1),
               lambda: a.masked_fill_(tl.ones(4, dtype=tl.bool), 1))
    same_error(lambda: q.masked_fill(torch.ones(2, 3, dtype=torch.bool),
                                     torch.ones(2)),
               lambda: a.masked_fill(tl.ones(2, 3, dtype=tl.bool),
                                     tl.ones(2)))
    same_error(lambda: q.masked_scatter_(torch.ones(2, 3, dtype=torch.bool),
                                         torch.ones(2)),
               lambda: a.masked_scatter_(tl.ones(2, 3, dtype=tl.bool),
                                         tl.ones(2)))
    same_error(lambda: torch.zeros(2, dtype=torch.int8).masked_fill(
        torch.ones(2, dtype=torch.bool), 300),
        lambda: tl.zeros(2, dtype=tl.int8).masked_fill(
            tl.ones(2, dtype=tl.bool), 300), OverflowError)
    assert to_np(a).sum() == 0 and a._version == 0


# ---- take, take_along_dim, put, index_put ---------------------------------


@pytest.mark.parametrize("trial", range(16))
def test_take_put(torch, trial):
    rng = rng_for("take", trial)
    d = ALL[trial % len(ALL)]
    shape = [int(s) for s in rng.integers(1, 4, int(rng.integers(0, 4)))]
    t, v = rand_tensor(shape, d, rng)
    n = v.size
    ishape = [int(s) for s in rng.integers(0, 3, int(rng.integers(0, 3)))]
    idx = rng.integers(-n, n, ishape)
    it = rand_tensor(ishape, tl.int64, rng)[0]
    it.copy_(tl.tensor(idx))
    r = tl.take(t, it)
    _close(r, np.take(v.reshape(-1), idx), d)
    assert tuple(r.shape) == tuple(ishape)
    src, sv = rand_tensor(ishape, d, rng)
    w = v.copy().reshape(-1)
    for j, k in zip(idx.reshape(-1), sv.reshape(-1)):
        w[j] = k
    _close(t.put(it, src).reshape(-1), w, d)
    c = t.clone()
    ver = c._version
    assert c.put_(it, src) is c
    assert c._version > ver or idx.size == 0
    if d not in (tl.bool,):
        wa = v.astype(np.complex128 if d in COMPLEX else np.float64).reshape(
            -1).copy()
        for j, k in zip(idx.reshape(-1), sv.reshape(-1)):
            wa[j] += k
        _close(t.put(it, src, accumulate=True).reshape(-1), wa, d)
    # non-contiguous self: written through and back
    if len(shape) >= 2:
        tt_ = t.transpose(0, 1)
        w2 = to_np(tt_).copy().reshape(-1)
        for j, k in zip(idx.reshape(-1), sv.reshape(-1)):
            w2[j] = k
        tt_.put_(it, src)
        _close(tt_.reshape(-1), w2, d)


def test_take_along_dim(torch):
    rng = rng_for("tad")
    a = tl.tensor(rng.standard_normal((3, 4, 5)))
    q = torch.from_numpy(to_np(a))
    i = rng.integers(0, 4, (3, 2, 1))
    np.testing.assert_array_equal(
        to_np(tl.take_along_dim(a, tl.tensor(i), 1)),
        torch.take_along_dim(q, torch.from_numpy(i), 1).numpy())
    i2 = rng.integers(0, 60, (7,))
    np.testing.assert_array_equal(to_np(a.take_along_dim(tl.tensor(i2))),
                                  to_np(a).reshape(-1)[i2])
    same_error(lambda: torch.take_along_dim(q, torch.from_numpy(i)[0], 1),
               lambda: tl.take_along_dim(a, tl.tensor(i)[0], 1))
    same_error(lambda: torch.take_along_dim(q, torch.from_numpy(i).int(), 1),
               lambda: tl.take_along_dim(a, tl.tensor(i).int(), 1),
               TypeError)


def test_take_put_refusals(torch):
    a, q = tl.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    s = snapshot(a)
    same_error(lambda: q.take(torch.tensor([6])),
               lambda: a.take(tl.tensor([6])), IndexError)
    same_error(lambda: q.take(torch.tensor([-7])),
               lambda: a.take(tl.tensor([-7])), IndexError)
    same_error(lambda: q.take(torch.tensor([1]).int()),
               lambda: a.take(tl.tensor([1]).int()), TypeError)
    same_error(lambda: q.put_(torch.tensor([0, 6]), torch.ones(2)),
               lambda: a.put_(tl.tensor([0, 6]), tl.ones(2)), IndexError)
    same_error(lambda: q.put_(torch.tensor([0, 1]), torch.ones(3)),
               lambda: a.put_(tl.tensor([0, 1]), tl.ones(3)), tl.ShapeError)
    same_error(lambda: q.index_put_((torch.tensor([0, 2]),),
                                    torch.ones(2, 3), accumulate=True),
               lambda: a.index_put_((tl.tensor([0, 2]),), tl.ones(2, 3),
                                    accumulate=True), IndexError)
    assert_unchanged(s, a)


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("trial", range(10))
def test_index_put(torch, accumulate, trial):
    rng = rng_for("iput", accumulate, trial)
    d = [tl.float32, tl.float64, tl.int64, tl.int32, tl.complex64,
         tl.float16][trial % 6]
    shape = [int(s) for s in rng.integers(1, 5, int(rng.integers(1, 4)))]
    t, v = rand_tensor(shape, d, rng)
    k = int(rng.integers(1, len(shape) + 1))
    m = int(rng.integers(0, 6))
    idx = [rng.integers(-s, s, m) for s in shape[:k]]
    vals, vv = rand_tensor([m] + shape[k:], d, rng)
    qt = tt(torch, t)
    want = qt.index_put(tuple(torch.from_numpy(i) for i in idx),
                        tt(torch, vals), accumulate=accumulate)
    got = t.index_put(tuple(tl.tensor(i) for i in idx), vals,
                      accumulate=accumulate)
    if accumulate or len({tuple(p) for p in np.stack(idx, 1) % np.array(
            shape[:k])}) == m:
        _close(got, want.numpy(), d)
    # a non-contiguous self (transposed storage) is written through
    c = t.clone()
    if t.ndim >= 2:
        tr = t.transpose(0, 1)
        c = tr.reshape(-1).clone().view(tr.shape).transpose(0, 1)
    c.index_put_(tuple(tl.tensor(i) for i in idx), vals,
                 accumulate=accumulate)
    if accumulate:
        _close(c, want.numpy(), d)
    # a bool mask index
    mask = v.real > 0 if d in COMPLEX else v > 0
    n = int(mask.sum())
    src, sv = rand_tensor([n], d, rng)
    got = t.index_put((tl.tensor(mask),), src, accumulate=accumulate)
    w = v.astype(np.complex128 if d in COMPLEX else np.float64).copy()
    if accumulate:
        w[mask] += sv
    else:
        w[mask] = sv
    _close(got, w, d)


# ---- a leak loop --------------------------------------------------------


def _expect(exc, fn):
    try:
        fn()
    except exc:
        return
    raise AssertionError(f"expected {exc.__name__}")


def _round(a, i, m, src):
    r = [
        tl.cat([a, a]), tl.stack([a, a], 1), tl.hstack([a, a]),
        tl.gather(a, 1, i), a.scatter(1, i, 2.0), a.scatter_add(1, i, src),
        a.scatter_reduce(1, i, src, "mean", include_self=False),
        a.index_select(0, i[0]), a.index_add(1, i[0], a[:, :2]),
        a.index_fill(1, i[0], 1.0), a.masked_fill(m, 3.0),
        a.masked_select(m), a.masked_scatter(m, a), a.take(i),
        a.put(i, src, accumulate=True),
        a.index_put((i[0],), a[:2], accumulate=True),
        a.repeat(2, 1), a.roll(1, 0), a.tril(), tl.rot90(a),
        tl.diag_embed(a), tl.linspace(0, 1, 9), tl.eye(3),
        tl.complex(a, a), tl.meshgrid(a[0], a[1], indexing="xy"),
        tl.tensor_split(a, 2), a.repeat_interleave(tl.tensor([1, 2, 0]), 0),
    ]
    c = a.clone()
    c.scatter_add_(1, i, src)
    c.index_copy_(1, i[0], a[:, :2])
    c.masked_fill_(m, 0.0)
    tl.cat([a, a], out=tl.empty(0))
    tl.gather(a, 1, i, out=tl.empty(0))
    _expect(IndexError, lambda: a.gather(1, i + 10))
    _expect(IndexError, lambda: c.scatter_add_(1, i + 10, src))
    _expect(IndexError, lambda: tl.scatter_add(a, 1, i + 10, src))
    _expect(IndexError, lambda: a.index_select(0, i[0] + 10))
    _expect(tl.ShapeError, lambda: tl.cat([a, a[:, :2]]))
    _expect(tl.ShapeError, lambda: tl.cat([]))
    _expect(TypeError, lambda: a.gather(1, i.int()))
    _expect(tl.ShapeError, lambda: a.repeat(1))
    _expect(IndexError, lambda: a.take(i + 100))
    _expect(tl.ShapeError, lambda: tl.linspace(0, 1, -1))
    return r


def _check_flat(iters):
    a = tl.arange(12.0).reshape(3, 4)
    i = tl.tensor([[0, 1], [2, 3], [1, 1]])
    m = a > 5
    src = tl.ones(3, 2)
    watched = [a, i, m, src, tl.float32]
    for _ in range(10):
        _round(a, i, m, src)
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    impl_rcs = [T.impl_refcount(t) for t in (a, i, m, src)]
    stats = tl.memory_stats()
    for _ in range(iters):
        _round(a, i, m, src)
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert [T.impl_refcount(t) for t in (a, i, m, src)] == impl_rcs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]


def test_joinindex_leak_loop_short():
    _check_flat(30)


@pytest.mark.slow
def test_joinindex_leak_loop_long():
    _check_flat(600)
