"""isclose, allclose, equal, nansum, nanmean, logsumexp, aminmax, var_mean
and std_mean (issue 18): values against torch (which computes them the
same way, in the same dtypes) and NumPy, result dtypes and refusals as
torch, strided / flipped / broadcast / empty / 0-d inputs, dims as ints
and tuples with keepdim, dtype= and out=, and a flat-memory loop."""
import gc

import numpy as np
import pytest

import tensorlib as tl

SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (4, 0, 2)]


def make(shape, dtype=np.float32, nan=True, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype) * 3
    if nan and x.size:
        x.flat[rng.choice(x.size, size=max(1, x.size // 4))] = np.nan
    return x


def views(x):
    """The array as contiguous, transposed, flipped and sliced tensors
    (with their NumPy twins)."""
    out = [(tl.tensor(x), x)]
    if x.ndim >= 2:
        t = tl.tensor(np.ascontiguousarray(x.swapaxes(0, 1)))
        out.append((t.transpose(0, 1), x))
    if x.ndim >= 1 and x.shape[0]:
        out.append((tl.tensor(x).flip(0), x[::-1]))
        out.append((tl.tensor(x)[::2], x[::2]))
    return out


def to_torch(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a))


def close(ours, theirs, rtol=1e-6, atol=1e-6):
    o = ours.numpy() if hasattr(ours, "numpy") else np.asarray(ours)
    t = theirs.numpy() if hasattr(theirs, "numpy") else np.asarray(theirs)
    assert o.shape == t.shape, (o.shape, t.shape)
    np.testing.assert_allclose(o, t, rtol=rtol, atol=atol, equal_nan=True)


def dims_for(ndim):
    out = [None]
    if ndim:
        out += [0, -1, tuple(range(ndim))]
    if ndim >= 2:
        out += [(0, -1), 1]
    return out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nansum_nanmean_against_torch(shape, dt, torch):
    x = make(shape, dt)
    for t, a in views(x):
        ta = to_torch(torch, a)
        for dim in dims_for(len(shape)):
            for keepdim in (False, True):
                kw = {} if dim is None else {"dim": dim}
                r = tl.nansum(t, keepdim=keepdim, **kw) if dim is not None \
                    else tl.nansum(t)
                e = torch.nansum(ta, keepdim=keepdim, **kw) \
                    if dim is not None else torch.nansum(ta)
                close(r, e, rtol=1e-5, atol=1e-5)
                assert str(r.dtype).split(".")[1] == str(e.dtype).split(".")[1]
                r = tl.nanmean(t, keepdim=keepdim, **kw) \
                    if dim is not None else tl.nanmean(t)
                e = torch.nanmean(ta, keepdim=keepdim, **kw) \
                    if dim is not None else torch.nanmean(ta)
                close(r, e, rtol=1e-5, atol=1e-5)


def test_nansum_integers_dtype_and_out(torch):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    r = tl.nansum(tl.tensor(x), 1)
    assert r.dtype == tl.int64
    np.testing.assert_array_equal(r.numpy(), x.sum(1))
    r = tl.nansum(tl.tensor(make((3, 4))), 0, dtype=tl.float64)
    assert r.dtype == tl.float64
    out = tl.empty(0)
    got = tl.nansum(tl.tensor(make((3, 4))), 1, out=out)
    assert got is out and out.shape == (3,)
    out = tl.empty(0)
    got = tl.nanmean(tl.tensor(make((3, 4))), 1, out=out)
    assert got is out and out.shape == (3,)


def test_refusals_like_torch(torch):
    z = tl.tensor([1 + 1j])
    for fn in (lambda m, t: m.nansum(t), lambda m, t: m.nanmean(t)):
        with pytest.raises(Exception):
            fn(torch, torch.tensor([1 + 1j]))
        with pytest.raises(TypeError):
            fn(tl, z)
    with pytest.raises(Exception):
        torch.nanmean(torch.tensor([1, 2]))
    with pytest.raises(TypeError):
        tl.nanmean(tl.tensor([1, 2]))
    with pytest.raises(Exception):
        torch.isclose(torch.ones(2), torch.ones(2, dtype=torch.float64))
    with pytest.raises(TypeError):
        tl.isclose(tl.ones(2), tl.ones(2, dtype=tl.float64))
    with pytest.raises(ValueError):
        tl.isclose(tl.ones(2), tl.ones(2), rtol=-1)
    with pytest.raises(TypeError):
        tl.isclose(tl.ones(2), 1.0)
    with pytest.raises(Exception):
        torch.aminmax(torch.ones(0))
    with pytest.raises(tl.ShapeError):
        tl.aminmax(tl.ones(0))
    with pytest.raises(IndexError):
        tl.logsumexp(tl.ones(2, 3), 2)
    with pytest.raises(IndexError):
        tl.nansum(tl.ones(2, 3), 5)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (0, 3)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_logsumexp_against_torch(shape, dt, torch):
    x = make(shape, dt, nan=False)
    if x.size:
        x.flat[0] = -np.inf
    for t, a in views(x):
        ta = to_torch(torch, a)
        for dim in dims_for(len(shape))[1:]:
            for keepdim in (False, True):
                r = tl.logsumexp(t, dim, keepdim)
                e = torch.logsumexp(ta, dim, keepdim)
                close(r, e, rtol=2e-6, atol=1e-6)
                assert r.dtype == getattr(tl, str(e.dtype).split(".")[1])


def test_logsumexp_stable_infinite_and_integer(torch):
    x = tl.tensor([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 1.0]])
    r = tl.logsumexp(x, 1)
    e = torch.logsumexp(torch.tensor([[1000.0, 1000.0], [-np.inf, -np.inf],
                                      [np.inf, 1.0]]), 1)
    close(r, e)
    r = tl.logsumexp(tl.tensor([[1, 2], [3, 4]]), (0, 1))
    assert r.dtype == tl.float32
    close(r, torch.logsumexp(torch.tensor([[1, 2], [3, 4]]), (0, 1)))
    out = tl.empty(0)
    assert tl.logsumexp(tl.ones(3, 2), 1, out=out) is out


def np_logsumexp(x, axis):
    """float64 reference: max + log(sum(exp(x - max))), PyTorch's special
    rows (NaN stays NaN, +inf gives +inf, all -inf gives -inf)."""
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m0 = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        s = np.sum(np.exp(x - m0), axis=axis, keepdims=True)
        r = np.log(s) + m0
    return np.squeeze(r, axis=axis)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
def test_logsumexp_fused_rows_and_lanes(dt, torch):
    # rows long enough for the vector loop, lanes (a reduced dim that is
    # not last), rows with NaN, +inf and only -inf, every float dtype
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((6, 37, 5)) * 20).astype(np.float32)
    x[0, 3, :] = np.nan
    x[1, :, 2] = -np.inf
    x[2, 7, 1] = np.inf
    x[3, :, 0] = np.inf
    x[4, 5, 3] = -np.inf
    t = tl.tensor(x).to(getattr(tl, dt))
    xs = t.double().numpy()  # the input as stored in dt
    tt = torch.tensor(x).to(getattr(torch, dt))
    tol = {"float16": 2e-3, "bfloat16": 1e-2}.get(dt, 1e-6)
    for v, xv, tv in ((t, xs, tt), (t.transpose(0, 2), xs.transpose(2, 1, 0),
                                    tt.transpose(0, 2)), (t[:, ::-2], xs[:, ::-2],
                                                          tt.flip(1)[:, ::2])):
        for dim in (0, 1, 2, (0, 2), None):
            r = tl.logsumexp(v, dim if dim is not None else (0, 1, 2))
            e = torch.logsumexp(tv, dim if dim is not None else (0, 1, 2))
            assert str(r.dtype) == str(e.dtype).replace("torch", "tensorlib")
            axis = dim if dim is not None else (0, 1, 2)
            want = np_logsumexp(xv, axis)
            got = r.double().numpy()
            assert np.array_equal(np.isnan(got), np.isnan(want)), (dim, dt)
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol,
                                       err_msg=f"{dt} dim={dim}")


def test_logsumexp_long_row_and_threads():
    x = np.random.default_rng(4).standard_normal(300_000).astype(np.float32)
    want = np_logsumexp(x, 0)
    old = tl.get_num_threads()
    try:
        got = []
        for n in (1, 2):
            tl.set_num_threads(n)
            got.append(tl.logsumexp(tl.tensor(x), 0).item())
    finally:
        tl.set_num_threads(old)
    assert got[0] == got[1]
    assert abs(got[0] - want) <= 1e-6 * abs(want)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int8])
def test_aminmax_against_torch(dt, torch):
    x = (make((3, 5), np.float64, nan=dt in (np.float32, np.float64)) * 10
         ).astype(dt) if dt in (np.float32, np.float64) else \
        np.random.default_rng(1).integers(-100, 100, (3, 5)).astype(dt)
    for t, a in views(x):
        ta = to_torch(torch, a)
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                r = tl.aminmax(t, dim=dim, keepdim=keepdim)
                e = torch.aminmax(ta, dim=dim, keepdim=keepdim)
                close(r.min, e.min)
                close(r.max, e.max)
                assert r[0] is r.min and r[1] is r.max
    mn, mx = tl.empty(0), tl.empty(0)
    x = tl.tensor(make((3, 4), nan=False))
    r = tl.aminmax(x, dim=1, out=(mn, mx))
    assert r.min is mn and r.max is mx and mn.shape == (3,)


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
def test_var_std_mean_against_torch(fn, torch):
    x = make((3, 4, 5), np.float64, nan=False)
    for t, a in views(x):
        ta = to_torch(torch, a)
        for dim in (None, 0, (1, 2), -1):
            for keepdim in (False, True):
                for kw in ({}, {"correction": 0}, {"unbiased": False}):
                    r = getattr(tl, fn)(t, dim, keepdim=keepdim, **kw)
                    e = getattr(torch, fn)(ta, dim, keepdim=keepdim, **kw)
                    close(r[0], e[0], rtol=1e-12)
                    close(r[1], e[1], rtol=1e-12)
    r = tl.var_mean(tl.tensor(x), True)   # old form: unbiased positional
    e = torch.var_mean(torch.from_numpy(x), True)
    close(r[0], e[0], rtol=1e-12)
    with pytest.raises(TypeError):
        tl.var_mean(tl.tensor([1, 2, 3]))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
def test_isclose_allclose_equal_against_torch(dt, torch):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((4, 5)) * 10).astype(dt)
    b = a.copy()
    if dt != np.int64:
        b = b + (rng.standard_normal((4, 5)) * 1e-5).astype(dt)
        a[0, 0] = b[0, 0] = np.nan
        a[1, 1] = b[1, 1] = np.inf
        a[2, 2], b[2, 2] = np.inf, -np.inf
    else:
        b[0, :2] += 1
    for rtol, atol, equal_nan in ((1e-5, 1e-8, False), (1e-3, 1e-3, True),
                                  (0.0, 0.0, False), (0.2, 2.0, True)):
        for (ta, aa), (tb, bb) in zip(views(a), views(b)):
            r = tl.isclose(ta, tb, rtol, atol, equal_nan)
            e = torch.isclose(to_torch(torch, aa), to_torch(torch, bb),
                              rtol, atol, equal_nan)
            np.testing.assert_array_equal(r.numpy(), e.numpy())
            assert tl.allclose(ta, tb, rtol, atol, equal_nan) == \
                torch.allclose(to_torch(torch, aa), to_torch(torch, bb),
                               rtol, atol, equal_nan)
            assert tl.equal(ta, tb) == torch.equal(
                to_torch(torch, aa), to_torch(torch, bb))
            assert tl.equal(ta, ta.clone()) == torch.equal(
                to_torch(torch, aa), to_torch(torch, aa).clone())
    # broadcasting
    r = tl.isclose(tl.tensor(a), tl.tensor(a[:1]))
    e = torch.isclose(torch.from_numpy(a), torch.from_numpy(a[:1]))
    np.testing.assert_array_equal(r.numpy(), e.numpy())
    assert not tl.equal(tl.ones(2), tl.ones(3))
    assert tl.equal(tl.zeros(0), tl.zeros(0))


def test_methods():
    x = tl.tensor(make((3, 4)))
    assert x.nansum(1).shape == (3,)
    assert x.nanmean().shape == ()
    assert x.logsumexp(0).shape == (4,)
    assert x.aminmax(dim=0).min.shape == (4,)
    assert x.isclose(x, equal_nan=True).all()
    assert x.allclose(x, equal_nan=True)
    assert x.equal(x) is False      # NaN != NaN


def test_loop_leaves_memory_flat():
    x = tl.tensor(make((30, 40)))
    y = tl.tensor(make((30, 40), seed=1))

    def round_():
        tl.nansum(x, 1)
        tl.nanmean(x, (0, 1), keepdim=True)
        tl.logsumexp(x, 1)
        tl.aminmax(x, dim=0)
        tl.var_mean(x, 1)
        tl.std_mean(x)
        tl.isclose(x, y)
        tl.allclose(x, y)
        tl.equal(x, y)
        with pytest.raises(TypeError):
            tl.isclose(x, y.double())

    for _ in range(5):
        round_()
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    for _ in range(100):
        round_()
    gc.collect()
    assert tl.memory_stats()["active_bytes"] == before
