"""Differential fuzzing of the joining and indexing ops (cat, stack,
gather, scatter / scatter_add / scatter_reduce, index_select, index_add,
index_copy, index_fill, take, masked_fill) against NumPy.

Random dtypes (all 15), random shapes of 1..4 dims (sizes 0 and 1
included), operands in random layouts (transposed, stepped, flipped,
negative steps), random dims, and indices that are sometimes out of range.
The oracles: values from NumPy loops on the inputs (in the tensor's
dtype); a call with a bad index raises IndexError and leaves every operand
(values and _version) as it was; the in-place and out-of-place forms
agree."""
import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (ALL, LAYOUTS, as_dtype, random_values, to_np,
                         view_as)

try:
    from hypothesis import given, note, strategies as st
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    given = None

pytestmark = [pytest.mark.skipif(given is None, reason="needs hypothesis")]

if given is not None:
    dtypes = st.sampled_from(ALL)
    layouts = st.sampled_from(LAYOUTS)
    shapes = st.lists(st.integers(0, 4), min_size=1, max_size=4)
    seeds = st.integers(0, 2 ** 32 - 1)
else:  # pragma: no cover
    dtypes = layouts = shapes = seeds = None


def _make(shape, d, layout, rng):
    v = np.asarray(as_dtype(random_values(shape, d, rng, "small"), d))
    return view_as(v, d, layout), v


def _eq(got, want):
    g = to_np(got)
    w = np.asarray(want).astype(g.dtype)
    np.testing.assert_array_equal(g, w)


def _state(*ts):
    return [(to_np(t).copy(), t._version) for t in ts]


def _same_state(before, *ts):
    for (v, ver), t in zip(before, ts):
        np.testing.assert_array_equal(to_np(t), v)
        assert t._version == ver


@given(d=dtypes, shape=shapes, n=st.integers(1, 4), layout=layouts,
       seed=seeds, data=st.data())
def test_fuzz_cat_stack(d, shape, n, layout, seed, data):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    ts, vs = [], []
    for _ in range(n):
        s = list(shape)
        s[dim] = int(rng.integers(0, 4))
        t, v = _make(s, d, layout, rng)
        ts.append(t)
        vs.append(v)
    _eq(tl.cat(ts, dim), np.concatenate(vs, dim))
    same = [_make(shape, d, layout, rng) for _ in range(n)]
    sd = data.draw(st.integers(-len(shape) - 1, len(shape)))
    _eq(tl.stack([t for t, _ in same], sd),
        np.stack([v for _, v in same], sd))


def _np_scatter(v, dim, idx, src, reduce):
    out = v.copy()
    for p in np.ndindex(idx.shape):
        q = list(p)
        q[dim] = idx[p]
        q = tuple(q)
        s = src[p] if isinstance(src, np.ndarray) else src
        if reduce is None:
            out[q] = s
        elif reduce == "sum":
            out[q] = out[q] | s if out.dtype == bool else out[q] + s
        elif reduce == "amax":
            out[q] = max(out[q], s)
    return out


@given(d=dtypes, shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
       layout=layouts, seed=seeds, data=st.data(),
       bad=st.booleans(), reduce=st.sampled_from([None, "sum", "amax"]))
def test_fuzz_gather_scatter(d, shape, layout, seed, data, bad, reduce):
    if reduce == "amax" and d in (tl.complex64, tl.complex128):
        reduce = "sum"
    if reduce == "sum" and d in (tl.float16, tl.bfloat16):
        reduce = None  # rounding of each partial sum: tested elsewhere
    rng = np.random.default_rng(seed)
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    t, v = _make(shape, d, layout, rng)
    ishape = [int(rng.integers(0, s + 1)) for s in shape]
    ishape[dim] = int(rng.integers(0, 5))
    idx = rng.integers(0, shape[dim], ishape)
    if bad and idx.size:
        idx.flat[int(rng.integers(idx.size))] = shape[dim] + int(
            rng.integers(0, 3)) if rng.random() < 0.5 else -1
    it, _ = _make(ishape, tl.int64, layout, rng)
    it.copy_(tl.tensor(idx))
    src, sv = _make(ishape, d, layout, rng)
    note(f"dim={dim} idx={idx.tolist()}")
    before = _state(t, it, src)
    if bad and idx.size:
        with pytest.raises(IndexError):
            tl.gather(t, dim, it)
        with pytest.raises(IndexError):
            tl.scatter(t, dim, it, src)
        c = t.clone()
        cb = _state(c)
        with pytest.raises(IndexError):
            if reduce is None:
                c.scatter_(dim, it, src)
            else:
                c.scatter_reduce_(dim, it, src, reduce)
        _same_state(cb, c)
        _same_state(before, t, it, src)
        return
    dd = dim % ndim
    sl = tuple(slice(None) if k == dd else slice(0, ishape[k])
               for k in range(ndim))
    _eq(tl.gather(t, dim, it), np.take_along_axis(v[sl], idx, dd))
    want = _np_scatter(v, dd, idx, sv, reduce)
    if reduce is None:
        got = tl.scatter(t, dim, it, src)
    else:
        got = tl.scatter_reduce(t, dim, it, src, reduce)
    _eq(got, want)
    c = t.clone()
    if reduce is None:
        c.scatter_(dim, it, src)
    else:
        c.scatter_reduce_(dim, it, src, reduce)
    _eq(c, want)
    _same_state(before, t, it, src)


@given(d=dtypes, shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       layout=layouts, seed=seeds, data=st.data(), bad=st.booleans())
def test_fuzz_index_family(d, shape, layout, seed, data, bad):
    rng = np.random.default_rng(seed)
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    dd = dim % ndim
    t, v = _make(shape, d, layout, rng)
    m = int(rng.integers(0, 5))
    idx = rng.integers(0, shape[dd], m)
    if bad and m:
        idx[int(rng.integers(m))] = shape[dd] + int(rng.integers(0, 3))
    it = tl.tensor(idx)
    sshape = list(shape)
    sshape[dd] = m
    src, sv = _make(sshape, d, layout, rng)
    before = _state(t, src)
    if bad and m:
        for fn in (lambda: tl.index_select(t, dim, it),
                   lambda: t.clone().index_add_(dim, it, src),
                   lambda: t.index_copy(dim, it, src),
                   lambda: t.index_fill(dim, it, 1),
                   lambda: tl.take(t, tl.tensor(idx * 0 + v.size))):
            with pytest.raises(IndexError):
                fn()
        _same_state(before, t, src)
        return
    _eq(tl.index_select(t, dim, it), np.take(v, idx, dd))
    want = v.copy()
    for j, k in enumerate(idx):
        a = [slice(None)] * ndim
        a[dd] = k
        b = [slice(None)] * ndim
        b[dd] = j
        want[tuple(a)] = sv[tuple(b)]
    _eq(t.index_copy(dim, it, src), want)
    want = v.copy()
    a = [slice(None)] * ndim
    a[dd] = idx
    want[tuple(a)] = 1
    _eq(t.index_fill(dim, it, 1), want)
    flat = rng.integers(-v.size, v.size, m)
    _eq(tl.take(t, tl.tensor(flat)), v.reshape(-1)[flat])
    mask, mv = _make(shape, tl.bool, layout, rng)
    _eq(t.masked_fill(mask, 1), np.where(mv, np.asarray(1).astype(v.dtype),
                                         v))
    _same_state(before, t, src)
