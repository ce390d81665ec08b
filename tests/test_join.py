"""cat (concat, concatenate), stack, hstack, vstack, dstack, column_stack,
tensor_split, hsplit, vsplit, dsplit: values against NumPy on inputs cast
to the result dtype, result dtypes and refusals against PyTorch, on random
shapes, dtypes and layouts (transposed, stepped, negative strides, empty),
with out=."""
import numpy as np
import pytest

import tensorlib as tl
from _joinindex_common import (TORCH_FULL, as_dtype, assert_unchanged,
                               rand_tensor, same_error, snapshot, to_np,
                               torch_dtype, tt)
from _ops_common import ALL, rng_for


def _shapes(rng, ndim, dim, n):
    base = list(rng.integers(0, 4, ndim))
    out = []
    for _ in range(n):
        s = list(base)
        s[dim] = int(rng.integers(0, 4))
        out.append(tuple(s))
    return out


@pytest.mark.parametrize("trial", range(30))
def test_cat_random(torch, trial):
    rng = rng_for("cat", trial)
    ndim = int(rng.integers(1, 4))
    dim = int(rng.integers(-ndim, ndim))
    n = int(rng.integers(1, 5))
    dts = [TORCH_FULL[i] for i in rng.integers(0, len(TORCH_FULL), n)]
    ts, vs = [], []
    for s, d in zip(_shapes(rng, ndim, dim % ndim, n), dts):
        t, v = rand_tensor(s, d, rng)
        ts.append(t)
        vs.append(v)
    r = tl.cat(ts, dim)
    want_dt = torch.cat([tt(torch, t) for t in ts], dim).dtype
    assert torch_dtype(torch, r.dtype) == want_dt
    want = np.concatenate([as_dtype(v, r.dtype) for v in vs], dim)
    np.testing.assert_array_equal(to_np(r), as_dtype(want, r.dtype))
    assert r.is_contiguous()


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_cat_contiguous_inputs(torch, dt):
    """Same-dtype contiguous inputs take the memcpy path (Note [Contiguous
    cat] in csrc/core/join.c): every dim, empty and legacy-empty inputs,
    and sizes below and past the parallel grain (the general path), each
    against NumPy, with the result's bytes exactly its own."""
    rng = rng_for("cat-contig", ALL.index(dt))
    for ndim in (1, 2, 3):
        for dim in range(-ndim, ndim):
            base = [int(x) for x in rng.integers(1, 4, ndim)]
            ts, vs = [], []
            for k in range(int(rng.integers(1, 5))):
                s = list(base)
                s[dim] = int(rng.integers(0, 4))
                t, v = rand_tensor(tuple(s), dt, rng, layout="contiguous")
                ts.append(t)
                vs.append(v)
            ts.insert(int(rng.integers(0, len(ts) + 1)),
                      tl.empty(0, dtype=dt))  # joins anything
            r = None  # (frees the last round's result first)
            before = tl.memory_stats()["active_bytes"]
            r = tl.cat(ts, dim)
            grown = tl.memory_stats()["active_bytes"] - before
            assert grown == r.numel() * r.element_size() or r.numel() == 0
            want = np.concatenate(vs, dim)
            assert r.dtype == dt and tuple(r.shape) == want.shape
            np.testing.assert_array_equal(to_np(r), as_dtype(want, dt))
    big = [rand_tensor((n, 3), dt, rng, layout="contiguous")
           for n in (7, 20000)]  # 60021 elements: past the grain
    r = tl.cat([t for t, _ in big], 0)
    np.testing.assert_array_equal(
        to_np(r), as_dtype(np.concatenate([v for _, v in big]), dt))


def test_cat_aliases_and_out():
    a = tl.arange(6.0).reshape(2, 3)
    b = tl.ones(1, 3)
    want = np.concatenate([to_np(a), to_np(b)])
    for f in (tl.cat, tl.concat):
        np.testing.assert_array_equal(to_np(f([a, b])), want)
        np.testing.assert_array_equal(to_np(f((a, b), dim=0)), want)
    np.testing.assert_array_equal(
        to_np(tl.concatenate([a, b.reshape(3, 1).t()], axis=0)), want)
    out = tl.empty(3, 3)
    v = out._version
    assert tl.cat([a, b], out=out) is out
    assert out._version > v
    np.testing.assert_array_equal(to_np(out), want)
    grow = tl.empty(0)
    tl.cat([a, b], out=grow)
    assert tuple(grow.shape) == (3, 3)
    # out of another dtype: the result is cast when the cast is safe
    o64 = tl.empty(3, 3, dtype=tl.float64)
    tl.cat([a, b], out=o64)
    np.testing.assert_array_equal(to_np(o64), want)
    bad = tl.zeros(2, 2)
    s = snapshot(bad, a, b)
    with pytest.raises(tl.ShapeError, match=r"\[2, 2\].*\[3, 3\]"):
        tl.cat([a, b], out=bad)
    with pytest.raises(TypeError):
        tl.cat([a, b], out=tl.zeros(3, 3, dtype=tl.int32))
    assert_unchanged(s, bad, a, b)
    # an out that overlaps an input is refused
    big = tl.zeros(4, 3)
    with pytest.raises(tl.ShapeError, match="output memory"):
        tl.cat([big[:2], big[2:]], out=big)
    # an out whose elements share memory (expanded) is refused
    with pytest.raises(tl.ShapeError, match="single memory"):
        tl.cat([a, b], out=tl.zeros(3).expand(3, 3))


def test_cat_legacy_empty_and_strided():
    a = tl.arange(12.0).reshape(3, 4)
    e = tl.empty(0)
    r = tl.cat([e, a, e, a.t().t()], 0)
    assert tuple(r.shape) == (6, 4)
    r = tl.cat([e, e])
    assert tuple(r.shape) == (0,)
    # transposed / flipped / stepped inputs, dim 1
    x = a.t().contiguous().t()
    r = tl.cat([x, a.flip(1), a[:, ::2]], 1)
    want = np.concatenate([to_np(a), to_np(a)[:, ::-1], to_np(a)[:, ::2]], 1)
    np.testing.assert_array_equal(to_np(r), want)


def test_cat_refusals(torch):
    a, b = tl.zeros(2, 3), tl.zeros(2, 4)
    qa, qb = torch.zeros(2, 3), torch.zeros(2, 4)
    e = same_error(lambda: torch.cat([qa, qb]), lambda: tl.cat([a, b]))
    assert "[2, 3]" in str(e) and "[2, 4]" in str(e)
    same_error(lambda: torch.cat([]), lambda: tl.cat([]))
    same_error(lambda: torch.cat([qa], 2), lambda: tl.cat([a], 2))
    same_error(lambda: torch.cat([torch.tensor(1.0)]),
               lambda: tl.cat([tl.tensor(1.0)]))
    same_error(lambda: torch.cat([qa, qa.reshape(6)]),
               lambda: tl.cat([a, a.reshape(6)]))
    same_error(lambda: torch.cat(qa), lambda: tl.cat(a))
    same_error(lambda: torch.cat([qa, 1]), lambda: tl.cat([a, 1]))
    same_error(lambda: torch.cat([qa, qa], 1.5),
               lambda: tl.cat([a, a], 1.5))


@pytest.mark.parametrize("trial", range(12))
def test_stack_random(torch, trial):
    rng = rng_for("stack", trial)
    ndim = int(rng.integers(0, 4))
    shape = tuple(int(s) for s in rng.integers(0, 4, ndim))
    dim = int(rng.integers(-ndim - 1, ndim + 1))
    n = int(rng.integers(1, 4))
    d = ALL[int(rng.integers(len(ALL)))]
    ts, vs = zip(*[rand_tensor(shape, d, rng) for _ in range(n)])
    r = tl.stack(list(ts), dim)
    np.testing.assert_array_equal(to_np(r), np.stack(vs, dim).astype(
        to_np(r).dtype))
    assert r.dtype == d
    out = tl.empty(0, dtype=d)
    tl.stack(list(ts), dim, out=out)
    np.testing.assert_array_equal(to_np(out), to_np(r))


def test_stack_refusals(torch):
    same_error(lambda: torch.stack([torch.zeros(2), torch.zeros(3)]),
               lambda: tl.stack([tl.zeros(2), tl.zeros(3)]))
    same_error(lambda: torch.stack([]), lambda: tl.stack([]))
    same_error(lambda: torch.stack([torch.zeros(2)], 2),
               lambda: tl.stack([tl.zeros(2)], 2))


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack",
                                  "column_stack"])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_hvd_stack(torch, name, ndim):
    rng = rng_for(name, ndim)
    shape = tuple(int(s) for s in rng.integers(1, 4, ndim))
    if name == "column_stack" and ndim > 2:
        shape = shape[:2]
    a, va = rand_tensor(shape, tl.float32, rng)
    b, vb = rand_tensor(shape, tl.int16, rng)
    r = getattr(tl, name)([a, b])
    q = getattr(torch, name)([tt(torch, a), tt(torch, b)])
    assert torch_dtype(torch, r.dtype) == q.dtype
    np.testing.assert_array_equal(to_np(r), q.numpy())
    out = tl.empty(0, dtype=r.dtype)
    getattr(tl, name)([a, b], out=out)
    np.testing.assert_array_equal(to_np(out), q.numpy())


@pytest.mark.parametrize("trial", range(20))
def test_tensor_split_random(torch, trial):
    rng = rng_for("tsplit", trial)
    ndim = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(0, 7, ndim))
    dim = int(rng.integers(-ndim, ndim))
    t, v = rand_tensor(shape, tl.float64, rng)
    if trial % 3 == 0:
        ios = int(rng.integers(1, 8))
    elif trial % 3 == 1:
        ios = [int(i) for i in np.sort(rng.integers(-8, 9, 3))]
    else:
        ios = tl.tensor(int(rng.integers(1, 5)))
    q = torch.from_numpy(v)
    qios = torch.tensor(ios.item()) if isinstance(ios, tl.Tensor) else ios
    got = tl.tensor_split(t, ios, dim)
    want = torch.tensor_split(q, qios, dim)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(to_np(g), w.numpy())
    # the pieces are views of t
    for g in t.tensor_split(ios, dim):
        if g.numel():
            assert g.untyped_storage().data_ptr() == \
                t.untyped_storage().data_ptr()


@pytest.mark.parametrize("name,ndim", [("hsplit", 1), ("hsplit", 2),
                                       ("vsplit", 2), ("dsplit", 3)])
def test_hvd_split(torch, name, ndim):
    shape = (4, 6, 2)[:ndim]
    t = tl.arange(float(np.prod(shape))).reshape(shape)
    q = torch.arange(float(np.prod(shape))).reshape(shape)
    for ios in (2, [1, 3]):
        got = getattr(tl, name)(t, ios)
        want = getattr(torch, name)(q, ios)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(to_np(g), w.numpy())
    same_error(lambda: getattr(torch, name)(q, 5),
               lambda: getattr(tl, name)(t, 5))
    same_error(lambda: getattr(torch, name)(torch.tensor(1.0), 1),
               lambda: getattr(tl, name)(tl.tensor(1.0), 1))


def test_tensor_split_refusals(torch):
    same_error(lambda: torch.tensor_split(torch.zeros(3), 0),
               lambda: tl.tensor_split(tl.zeros(3), 0))
    same_error(lambda: torch.tensor_split(torch.zeros(3), 1, 1),
               lambda: tl.tensor_split(tl.zeros(3), 1, 1))
    same_error(lambda: torch.tensor_split(torch.tensor(1.0), 1),
               lambda: tl.tensor_split(tl.tensor(1.0), 1))
