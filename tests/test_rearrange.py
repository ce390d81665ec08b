"""repeat, tile, repeat_interleave, roll, rot90, tril, triu (and tril_,
triu_, out=), diag, diag_embed, diagflat, ravel, view_as, reshape_as,
atleast_1d/2d/3d: values against NumPy, dtypes and refusals against
PyTorch, on random shapes, dtypes and layouts."""
import numpy as np
import pytest

import tensorlib as tl
from _joinindex_common import (assert_unchanged, rand_tensor, same_error,
                               snapshot, to_np, tt)
from _ops_common import ALL, rng_for


def _rand(trial, name, ndim_lo=0, ndim_hi=4, d=None):
    rng = rng_for(name, trial)
    ndim = int(rng.integers(ndim_lo, ndim_hi))
    shape = tuple(int(s) for s in rng.integers(0, 4, ndim))
    if d is None:
        d = ALL[int(rng.integers(len(ALL)))]
    t, v = rand_tensor(shape, d, rng)
    return rng, t, v


def _eq(got, want, d=None):
    g = to_np(got)
    np.testing.assert_array_equal(g, np.asarray(want).astype(g.dtype))
    if d is not None:
        assert got.dtype == d


@pytest.mark.parametrize("trial", range(20))
def test_repeat_tile(trial):
    rng, t, v = _rand(trial, "repeat")
    reps = [int(r) for r in rng.integers(0, 3, t.ndim + int(
        rng.integers(0, 2)))]
    r = t.repeat(*reps)
    _eq(r, np.tile(v, reps), t.dtype)
    assert r.is_contiguous()
    _eq(t.repeat(reps), np.tile(v, reps))
    treps = reps[:max(0, len(reps) - 1)]
    _eq(tl.tile(t, treps), np.tile(v, treps))
    _eq(t.tile(treps), np.tile(v, treps))


@pytest.mark.parametrize("trial", range(20))
def test_repeat_interleave(trial):
    rng, t, v = _rand(trial, "rint", 1, 4)
    dim = int(rng.integers(-t.ndim, t.ndim))
    r = int(rng.integers(0, 3))
    _eq(tl.repeat_interleave(t, r, dim), np.repeat(v, r, dim), t.dtype)
    _eq(t.repeat_interleave(r), np.repeat(v.reshape(-1), r))
    reps = rng.integers(0, 3, t.shape[dim])
    _eq(tl.repeat_interleave(t, tl.tensor(reps), dim),
        np.repeat(v, reps, dim))
    _eq(tl.repeat_interleave(tl.tensor(reps)),
        np.repeat(np.arange(len(reps)), reps))


def test_repeat_refusals(torch):
    a, q = tl.zeros(2, 3), torch.zeros(2, 3)
    e = same_error(lambda: q.repeat(2), lambda: a.repeat(2))
    assert isinstance(e, tl.ShapeError)
    same_error(lambda: q.repeat(2, -1), lambda: a.repeat(2, -1))
    same_error(lambda: torch.repeat_interleave(q, -1),
               lambda: tl.repeat_interleave(a, -1))
    same_error(lambda: torch.repeat_interleave(q, torch.tensor([1, 2]), 1),
               lambda: tl.repeat_interleave(a, tl.tensor([1, 2]), 1))
    same_error(lambda: torch.repeat_interleave(q, 2, 2),
               lambda: tl.repeat_interleave(a, 2, 2))


@pytest.mark.parametrize("trial", range(20))
def test_roll(trial):
    rng, t, v = _rand(trial, "roll", 1, 4)
    k = int(rng.integers(1, t.ndim + 1))
    dims = [int(d) for d in rng.choice(t.ndim, k, replace=False)]
    shifts = [int(s) for s in rng.integers(-7, 8, k)]
    _eq(tl.roll(t, shifts, dims), np.roll(v, shifts, dims), t.dtype)
    _eq(t.roll(shifts[0]), np.roll(v, shifts[0]))
    r = tl.roll(t, 0, 0)
    assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


def test_roll_refusals(torch):
    a, q = tl.zeros(2, 3), torch.zeros(2, 3)
    same_error(lambda: torch.roll(q, (1, 2), 0),
               lambda: tl.roll(a, (1, 2), 0))
    same_error(lambda: torch.roll(q, 1, 2), lambda: tl.roll(a, 1, 2))


@pytest.mark.parametrize("trial", range(12))
def test_rot90(trial):
    rng, t, v = _rand(trial, "rot90", 2, 4)
    k = int(rng.integers(-5, 6))
    dims = [int(d) for d in rng.choice(t.ndim, 2, replace=False)]
    r = tl.rot90(t, k, dims)
    _eq(r, np.rot90(v, k, dims), t.dtype)
    assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    _eq(t.rot90(), np.rot90(v))


def test_rot90_refusals(torch):
    a, q = tl.zeros(2, 3), torch.zeros(2, 3)
    same_error(lambda: torch.rot90(q, 1, (0, 0)),
               lambda: tl.rot90(a, 1, (0, 0)))
    same_error(lambda: torch.rot90(q, 1, (0,)), lambda: tl.rot90(a, 1, (0,)))
    same_error(lambda: torch.rot90(torch.zeros(3)),
               lambda: tl.rot90(tl.zeros(3)))


@pytest.mark.parametrize("trial", range(20))
def test_tril_triu(torch, trial):
    rng, t, v = _rand(trial, "tri", 2, 5)
    k = int(rng.integers(-3, 4))
    _eq(tl.tril(t, k), np.tril(v, k), t.dtype)
    _eq(t.triu(k), np.triu(v, k), t.dtype)
    assert tt(torch, tl.tril(t, k)).dtype == torch.tril(tt(torch, t),
                                                        k).dtype
    c = t.clone()
    ver = c._version
    assert c.tril_(k) is c
    assert c._version > ver
    _eq(c, np.tril(v, k))
    c = t.clone()
    c.triu_(k)
    _eq(c, np.triu(v, k))
    out = tl.empty(0, dtype=t.dtype)
    tl.triu(t, k, out=out)
    _eq(out, np.triu(v, k))
    same_error(lambda: torch.tril(torch.zeros(3)),
               lambda: tl.tril(tl.zeros(3)))


@pytest.mark.parametrize("trial", range(16))
def test_diag_family(torch, trial):
    rng = rng_for("diag", trial)
    d = ALL[int(rng.integers(len(ALL)))]
    k = int(rng.integers(-3, 4))
    n = int(rng.integers(0, 5))
    t1, v1 = rand_tensor((n,), d, rng)
    _eq(tl.diag(t1, k), np.diag(v1, k), d)
    t2, v2 = rand_tensor(tuple(int(s) for s in rng.integers(0, 5, 2)), d,
                         rng)
    r = tl.diag(t2, k)
    _eq(r, np.diag(v2, k), d)
    if r.numel():
        assert r.untyped_storage().data_ptr() != \
            t2.untyped_storage().data_ptr()
    _eq(t2.diagflat(k), np.diagflat(v2, k), d)
    t3, v3 = rand_tensor(tuple(int(s) for s in rng.integers(0, 4, 3)), d,
                         rng)
    dims = [int(x) for x in rng.choice(4, 2, replace=False)]
    got = tl.diag_embed(t3, k, dims[0], dims[1])
    want = torch.diag_embed(tt(torch, t3), k, dims[0], dims[1])
    assert tt(torch, got).dtype == want.dtype
    _eq(got, want.float().numpy() if d == tl.bfloat16 else want.numpy())


def test_diag_refusals(torch):
    same_error(lambda: torch.diag(torch.zeros(2, 2, 2)),
               lambda: tl.diag(tl.zeros(2, 2, 2)))
    same_error(lambda: torch.diag_embed(torch.zeros(2), 0, 0, 0),
               lambda: tl.diag_embed(tl.zeros(2), 0, 0, 0))


def test_ravel_view_as_reshape_as(torch):
    a = tl.arange(12.0).reshape(3, 4)
    r = tl.ravel(a)
    assert tuple(r.shape) == (12,)
    assert r.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    rt = a.t().ravel()
    _eq(rt, to_np(a).T.reshape(-1))
    other = tl.zeros(2, 6)
    assert tuple(a.view_as(other).shape) == (2, 6)
    assert tuple(a.t().reshape_as(other).shape) == (2, 6)
    _eq(a.t().reshape_as(other), to_np(a).T.reshape(2, 6))
    same_error(lambda: torch.zeros(3, 4).t().view_as(torch.zeros(12)),
               lambda: a.t().view_as(tl.zeros(12)))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_atleast(torch, n):
    f, g = getattr(tl, f"atleast_{n}d"), getattr(torch, f"atleast_{n}d")
    for shape in [(), (2,), (2, 3), (2, 3, 4)]:
        a = tl.zeros(shape)
        assert tuple(f(a).shape) == tuple(g(torch.zeros(shape)).shape)
    got = f(tl.zeros(()), tl.zeros(2))
    want = g(torch.zeros(()), torch.zeros(2))
    assert [tuple(x.shape) for x in got] == [tuple(x.shape) for x in want]
    got = f([tl.zeros(()), tl.zeros(2)])
    assert isinstance(got, tuple) and len(got) == 2


def test_failed_rearrange_leaves_operands():
    a = tl.arange(6.0).reshape(2, 3)
    s = snapshot(a)
    for fn in (lambda: a.repeat(1), lambda: tl.roll(a, 1, 5),
               lambda: tl.rot90(a, 1, (1, 1)), lambda: tl.tril(a[0]),
               lambda: tl.triu(a, out=tl.zeros(5, 5))):
        with pytest.raises(Exception):
            fn()
    assert_unchanged(s, a)
