"""Sorting and searching: sort, argsort, msort, topk, kthvalue, median,
nanmedian, quantile, nanquantile, mode, unique, unique_consecutive,
searchsorted, bucketize, isin, nonzero, argwhere, count_nonzero.

Values and indices against NumPy (stable orders) and PyTorch (result
dtypes, NaN placement, tie rules, refusals), on random shapes, dtypes and
layouts (transposed, stepped, flipped, negative steps, size 0, 0-d), with
out= forms; the named tuples are tensorlib.return_types types."""
import pickle

import numpy as np
import pytest

import tensorlib as tl
import tensorlib.return_types as rtypes
from _ops_common import (FLOATS, INTS, LAYOUTS, NAME, NP, TORCH_FULL,
                         as_dtype, from_np, is_complex, is_float, rng_for,
                         random_values, to_np, torch_dtype, view_as)

SHAPES = [(9,), (3, 5), (2, 3, 4), (0,), (4, 0, 3), (1,), (2, 1, 40)]
REAL = [d for d in TORCH_FULL if not is_complex(d)] + [tl.uint16,
                                                       tl.uint32, tl.uint64]


def values_for(shape, d, rng, nan=True):
    x = random_values(shape, d, rng, "small")
    if is_float(d) and nan and x.size > 3:
        x.flat[1] = np.nan
        x.flat[-2] = np.nan
        x.flat[0] = -0.0
    return np.asarray(as_dtype(x, d))


def np_stable_argsort(x, dim, desc):
    """The stable order PyTorch's sort gives: NaN largest (last ascending,
    first descending), -0 equal to +0, equal elements in index order."""
    x = np.asarray(x)
    if x.dtype == np.uint64:
        key = np.iinfo(np.uint64).max - x if desc else x
        return np.argsort(key, axis=dim, kind="stable")
    xf = x.astype(np.float64)
    if not desc:
        return np.argsort(xf + 0.0, axis=dim, kind="stable")
    nan = np.isnan(xf)
    sec = np.moveaxis(np.where(nan, 0.0, -xf) + 0.0, dim, -1)
    prim = np.moveaxis((~nan).astype(np.int8), dim, -1)
    out = np.empty(sec.shape, np.int64)
    for ix in np.ndindex(sec.shape[:-1]):
        out[ix] = np.lexsort((sec[ix], prim[ix]))
    return np.moveaxis(out, -1, dim)


@pytest.mark.parametrize("d", REAL, ids=NAME.get)
def test_sort_argsort(d):
    rng = rng_for("sort", d)
    for shape in SHAPES:
        x = values_for(shape, d, rng)
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(-len(shape), len(shape)):
                for desc in (False, True):
                    v, i = tl.sort(t, dim, desc)
                    assert v.dtype == d and i.dtype == tl.int64
                    assert tuple(v.shape) == shape
                    want = np_stable_argsort(x, dim, desc)
                    np.testing.assert_array_equal(to_np(i), want)
                    np.testing.assert_array_equal(
                        to_np(v), np.take_along_axis(
                            to_np(from_np(x, d)), want, dim))
                    a = tl.argsort(t, dim, desc)
                    np.testing.assert_array_equal(to_np(a), want)
                    m = t.sort(dim, descending=desc, stable=True)
                    assert np.array_equal(to_np(m.indices), want)


def test_sort_matches_torch_nan_zero(torch):
    x = np.array([0.0, -0.0, np.nan, -1.0, np.inf, np.nan, -np.inf, 0.0],
                 np.float32)
    for desc in (False, True):
        v, i = tl.sort(tl.tensor(x), descending=desc)
        tv, ti = torch.sort(torch.tensor(x), descending=desc, stable=True)
        np.testing.assert_array_equal(to_np(i), ti.numpy())
        assert np.array_equal(np.signbit(to_np(v)), np.signbit(tv.numpy()))


def test_sort_long_row():
    rng = np.random.default_rng(5)
    # the long-row split, packed words for 32-bit keys (float32, int32,
    # uint32), and radix digits from few varying bits up to all 64
    wide = rng.integers(-(2**63), 2**63 - 1, 300_001, dtype=np.int64)
    cases = [(dt, None) for dt in (np.float32, np.float64, np.int64,
                                   np.int32, np.uint32, np.int16, np.uint8)]
    cases += [(np.int64, wide), (np.float32, "rounded"),
              (np.int32, "wide32")]
    for dt, kind in cases:
        if isinstance(kind, np.ndarray):
            x = kind
        elif kind == "rounded":  # many equal keys: stability
            x = np.round(rng.standard_normal(300_001) * 4).astype(dt)
            x[3::501] = -0.0
        elif kind == "wide32":
            x = rng.integers(-(2**31), 2**31 - 1, 300_001, dtype=np.int32)
        elif dt in (np.float32, np.float64):
            x = rng.standard_normal(300_001).astype(dt)
            x[::1000] = np.nan
            x[5::777] = 0.0
            x[7::555] = -0.0
        else:
            x = rng.integers(0, 100, 300_001).astype(dt)
        v, i = tl.sort(tl.tensor(x))
        want = np.argsort(x, kind="stable")
        np.testing.assert_array_equal(to_np(i), want)
        np.testing.assert_array_equal(to_np(v), x[want])
        vd, idd = tl.sort(tl.tensor(x), descending=True)
        want = np_stable_argsort(x, 0, True)
        np.testing.assert_array_equal(to_np(idd), want)
        np.testing.assert_array_equal(to_np(vd), x[want])
        # -0.0 and +0.0 tie: the values keep each element's own sign
        assert np.array_equal(np.signbit(to_np(vd)), np.signbit(x[want]))


def test_sort_rows_wide_digits():
    # rows long enough for 12-bit digits, several rows (the per-row path)
    rng = np.random.default_rng(9)
    for dt in (np.float32, np.int64, np.int32):
        if dt == np.float32:
            x = rng.standard_normal((3, 20_006)).astype(dt)
        else:
            x = rng.integers(-(2**30), 2**30, (3, 20_006)).astype(dt)
        x[:, 1::7] = x[:, ::7]  # equal keys (20_006 = 7 * 2858)
        for desc in (False, True):
            v, i = tl.sort(tl.tensor(x), 1, descending=desc)
            want = np_stable_argsort(x, 1, desc)
            np.testing.assert_array_equal(to_np(i), want)
            np.testing.assert_array_equal(
                to_np(v), np.take_along_axis(x, want, 1))


def test_sort_out_and_errors(torch):
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    vo, io = tl.empty(0), tl.empty(0, dtype=tl.int64)
    r = tl.sort(x, 1, out=(vo, io))
    assert r.values is vo and r.indices is io
    assert vo.tolist() == [[1, 2, 3], [-1, 0, 5]]
    assert io.tolist() == [[1, 2, 0], [1, 0, 2]]
    bad = tl.zeros(2, 2)
    with pytest.raises(tl.ShapeError, match=r"\[2, 2\]"):
        tl.sort(x, 1, out=(bad, tl.empty(0, dtype=tl.int64)))
    assert bad.tolist() == [[0, 0], [0, 0]]
    with pytest.raises(IndexError):
        tl.sort(x, 2)
    with pytest.raises(IndexError):
        tl.argsort(x, -3)
    with pytest.raises(TypeError, match="complex"):
        tl.sort(tl.ones(3, dtype=tl.complex64))
    with pytest.raises(RuntimeError, match="complex"):
        torch.sort(torch.ones(3, dtype=torch.complex64))
    z = tl.tensor(2.5)
    v, i = tl.sort(z)
    assert v.item() == 2.5 and i.item() == 0 and v.shape == ()
    o = tl.empty(0, dtype=tl.int64)
    assert tl.argsort(x, out=o) is o


def test_msort(torch):
    x = np.array([[3, 1, 2], [1, 2, 0], [2, 0, 1]], np.int32)
    assert tl.msort(tl.tensor(x)).tolist() == np.sort(x, 0).tolist()
    assert tl.tensor(x).msort().tolist() == \
        torch.msort(torch.tensor(x)).tolist()


@pytest.mark.parametrize("d", REAL, ids=NAME.get)
def test_topk(d):
    rng = rng_for("topk", d)
    for shape in SHAPES + [(3, 2000)]:
        x = values_for(shape, d, rng)
        for layout in LAYOUTS[:3]:
            t = view_as(x, d, layout, rng)
            for dim in range(len(shape)):
                n = shape[dim]
                for k in sorted({0, min(1, n), min(3, n), n}):
                    for largest in (True, False):
                        v, i = tl.topk(t, k, dim, largest)
                        order = np_stable_argsort(x, dim, largest)
                        want = np.take(order, np.arange(k), axis=dim)
                        np.testing.assert_array_equal(to_np(i), want)
                        np.testing.assert_array_equal(
                            to_np(v), np.take_along_axis(
                                to_np(from_np(x, d)), want, dim))


def test_topk_vs_torch(torch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3000)).astype(np.float32)
    x[1, 7] = np.nan
    for k in (1, 10, 200, 3000):
        for largest in (True, False):
            v, i = tl.topk(tl.tensor(x), k, 1, largest)
            tv, ti = torch.topk(torch.tensor(x), k, 1, largest)
            np.testing.assert_array_equal(to_np(v), tv.numpy())
    v = tl.tensor(x).topk(3, largest=False, sorted=False).values
    assert tuple(v.shape) == (5, 3)
    with pytest.raises(IndexError, match="3001"):
        tl.topk(tl.tensor(x), 3001)
    with pytest.raises(IndexError):
        tl.topk(tl.tensor(x), -1)
    with pytest.raises(RuntimeError):
        torch.topk(torch.tensor(x), 3001)


@pytest.mark.parametrize("d", [tl.float32, tl.float64, tl.int64, tl.int8,
                               tl.uint8, tl.bfloat16, tl.float16],
                         ids=NAME.get)
def test_kthvalue_median_mode(torch, d):
    rng = rng_for("select", d)
    for shape in [(9,), (3, 5), (2, 3, 4), (2, 1, 40), (4, 6)]:
        x = values_for(shape, d, rng)
        xt = torch.tensor(to_np(from_np(x, d))).to(torch_dtype(torch, d))
        xn = np.where(np.isnan(x), 0.5, x) if is_float(d) else x
        xt_nonan = torch.tensor(to_np(from_np(xn, d))).to(
            torch_dtype(torch, d))
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            t_nonan = view_as(xn, d, layout, rng)
            for dim in range(-len(shape), len(shape)):
                for keepdim in (False, True):
                    k = 1 + shape[dim] // 2
                    for name, args in (("kthvalue", (k,)), ("median", ()),
                                       ("nanmedian", ()), ("mode", ())):
                        src, srct = t, xt
                        if name == "mode":
                            # PyTorch's mode of rows with NaN depends on
                            # its comparison sort's order (NaN breaks it)
                            src, srct = t_nonan, xt_nonan
                        r = getattr(tl, name)(src, *args, dim, keepdim)
                        assert type(r) is getattr(rtypes, name)
                        tr = getattr(torch, name)(srct, *args, dim, keepdim)
                        np.testing.assert_array_equal(
                            to_np(r.values).astype(np.float64),
                            tr.values.double().numpy())
                        # ties make PyTorch's index any of the equal
                        # elements: the index must hold the value
                        ix = to_np(r.indices)
                        got = np.take_along_axis(
                            to_np(src),
                            ix if keepdim else np.expand_dims(ix, dim), dim)
                        np.testing.assert_array_equal(
                            got if keepdim else got.squeeze(dim),
                            to_np(r.values), err_msg=name)
        for name in ("median", "nanmedian"):
            got = getattr(tl, name)(t)
            want = getattr(torch, name)(xt)
            assert got.shape == () and got.dtype == d
            np.testing.assert_array_equal(to_np(got).astype(np.float64),
                                          want.double().numpy())


def test_select_errors_and_out(torch):
    x = tl.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
    with pytest.raises(IndexError, match="size 3"):
        tl.kthvalue(x, 4)
    with pytest.raises(IndexError):
        tl.kthvalue(x, 0)
    with pytest.raises(IndexError):
        tl.median(x, 2)
    with pytest.raises(tl.ShapeError, match="size 0"):
        tl.median(tl.ones(0, 3), 0)
    with pytest.raises(IndexError):
        torch.median(torch.ones(0, 3), 0)
    assert np.isnan(tl.median(tl.ones(0)).item())
    vo, io = tl.empty(0), tl.empty(0, dtype=tl.int64)
    r = tl.median(x, 1, out=(vo, io))
    assert r.values is vo and vo.tolist() == [2.0, 3.0]
    assert io.tolist() == [2, 2]
    r = x.mode(0, True)
    assert tuple(r.values.shape) == (1, 3)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher",
                                    "midpoint", "nearest"])
@pytest.mark.parametrize("d", [tl.float32, tl.float64], ids=NAME.get)
def test_quantile(torch, d, interp):
    rng = rng_for("quantile", d, interp)
    qs = [0.0, 0.1, 0.25, 0.5, 0.77, 1.0]
    for shape in [(9,), (3, 5), (2, 3, 4), (1,), (4, 6)]:
        x = values_for(shape, d, rng, nan=False)
        xn = x.copy()
        if xn.size > 3:
            xn.flat[2] = np.nan
        for xx in (x, xn):
            xt = torch.tensor(xx)
            for layout in LAYOUTS[:3]:
                t = view_as(xx, d, layout, rng)
                for dim in [None] + list(range(len(shape))):
                    for keepdim in (False, True):
                        for q in (0.3, qs):
                            for fn in ("quantile", "nanquantile"):
                                got = getattr(tl, fn)(
                                    t, q, dim, keepdim,
                                    interpolation=interp)
                                want = getattr(torch, fn)(
                                    xt, torch.tensor(q, dtype=xt.dtype),
                                    dim, keepdim, interpolation=interp)
                                assert tuple(got.shape) == \
                                    tuple(want.shape)
                                np.testing.assert_allclose(
                                    to_np(got), want.numpy(), rtol=1e-6,
                                    atol=1e-6, equal_nan=True)
                                if fn == "quantile" and not np.isnan(
                                        xx).any() and dim is not None:
                                    npw = np.quantile(
                                        xx, q, axis=dim, keepdims=keepdim,
                                        method=interp)
                                    np.testing.assert_allclose(
                                        to_np(got), npw, rtol=1e-5,
                                        atol=1e-6)


def test_quantile_errors(torch):
    x = tl.tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        tl.quantile(x, 1.5)
    with pytest.raises(TypeError):
        tl.quantile(tl.tensor([1, 2]), 0.5)
    with pytest.raises(TypeError):
        tl.quantile(x, tl.tensor([0.5], dtype=tl.float64))
    with pytest.raises(tl.ShapeError):
        tl.quantile(x, tl.ones(2, 2) * 0.5)
    with pytest.raises(ValueError, match="interpolation"):
        tl.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(IndexError):
        tl.quantile(x, 0.5, 1)
    out = tl.empty(0)
    assert tl.quantile(x, [0.5, 1.0], out=out) is out
    assert out.tolist() == [2.0, 3.0]
    assert x.quantile(0.5).item() == 2.0
    assert x.nanquantile(0.5).item() == 2.0


@pytest.mark.parametrize("d", REAL, ids=NAME.get)
def test_unique(torch, d):
    rng = rng_for("unique", d)
    for shape in [(9,), (3, 5), (2, 3, 4), (0,), (4, 0, 3), (1,)]:
        x = values_for(shape, d, rng)
        for layout in LAYOUTS[:4]:
            t = view_as(x, d, layout, rng)
            v, inv, cnt = tl.unique(t, return_inverse=True,
                                    return_counts=True)
            xs = to_np(from_np(x, d))
            nn = xs if not is_float(d) else xs[~np.isnan(xs)]
            wv, winv, wc = np.unique(nn, return_inverse=True,
                                     return_counts=True)
            nnan = xs.size - nn.size
            gv = to_np(v)
            np.testing.assert_array_equal(gv[:len(wv)], wv)
            assert len(gv) == len(wv) + nnan
            assert np.isnan(gv[len(wv):]).all()
            assert inv.shape == t.shape and inv.dtype == tl.int64
            np.testing.assert_array_equal(gv[to_np(inv)], xs)
            assert to_np(cnt).sum() == xs.size
            np.testing.assert_array_equal(to_np(cnt)[:len(wc)], wc)
            assert tl.unique(t).tolist() == v.tolist() or is_float(d)
            u = t.unique(sorted=False)
            assert sorted(to_np(u)[~np.isnan(to_np(u).astype(float))]
                          .tolist()) == sorted(wv.tolist())


def test_unique_matches_torch(torch):
    x = np.array([3.0, np.nan, 1.0, 3.0, np.nan, -0.0, 0.0], np.float32)
    r = tl.unique(tl.tensor(x), return_inverse=True, return_counts=True)
    w = torch.unique(torch.tensor(x), return_inverse=True,
                     return_counts=True)
    for a, b in zip(r, w):
        np.testing.assert_array_equal(to_np(a), b.numpy())
    assert isinstance(r, tuple) and len(r) == 3
    assert len(tl.unique(tl.tensor(x), return_counts=True)) == 2


@pytest.mark.parametrize("d", [tl.int64, tl.float32, tl.bool, tl.int8],
                         ids=NAME.get)
def test_unique_dim_and_consecutive(torch, d):
    rng = rng_for("unique_dim", d)
    for shape in [(6, 3), (3, 5, 2), (7,), (4, 1)]:
        x = random_values(shape, d, rng, "small")
        x = np.concatenate([x, x[:2]], axis=0)  # repeated slices
        xs = to_np(from_np(x, d))
        xt = torch.tensor(xs).to(torch_dtype(torch, d))
        t = view_as(xs, d, "transposed", rng)
        for dim in range(len(shape)):
            got = tl.unique(t, return_inverse=True, return_counts=True,
                            dim=dim)
            want = torch.unique(xt, return_inverse=True, return_counts=True,
                                dim=dim)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(to_np(a), b.numpy())
            got = tl.unique_consecutive(t, True, True, dim)
            want = torch.unique_consecutive(xt, True, True, dim)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(to_np(a), b.numpy())
        got = tl.unique_consecutive(t, return_inverse=True,
                                    return_counts=True)
        want = torch.unique_consecutive(xt, return_inverse=True,
                                        return_counts=True)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(to_np(a), b.numpy())
        assert t.unique_consecutive().tolist() == \
            torch.unique_consecutive(xt).tolist()
    with pytest.raises(IndexError):
        tl.unique(tl.ones(2, 2), dim=2)


@pytest.mark.parametrize("d", [tl.float32, tl.float64, tl.int64, tl.int32,
                               tl.uint8, tl.float16], ids=NAME.get)
def test_searchsorted_bucketize(torch, d):
    rng = rng_for("search", d)
    seq = np.sort(random_values((11,), d, rng, "small"))
    vals = random_values((4, 5), d, rng, "small")
    tseq, tvals = from_np(seq, d), from_np(vals, d)
    for right in (False, True):
        got = tl.searchsorted(tseq, tvals, right=right)
        np.testing.assert_array_equal(
            to_np(got), np.searchsorted(to_np(tseq), to_np(tvals),
                                        "right" if right else "left"))
        side = "right" if right else "left"
        assert tl.searchsorted(tseq, tvals, side=side).tolist() == \
            got.tolist()
        b = tl.bucketize(tvals, tseq, right=right)
        tb = torch.bucketize(torch.tensor(to_np(tvals)),
                             torch.tensor(to_np(tseq)), right=right)
        np.testing.assert_array_equal(to_np(b), tb.numpy())
    # N-d boundaries: one sorted row per leading index
    s2 = np.sort(random_values((4, 7), d, rng, "small"), axis=1)
    v2 = random_values((4, 3), d, rng, "small")
    got = tl.searchsorted(from_np(s2, d).t().contiguous().t(),
                          view_as(v2, d, "flipped", rng))
    want = torch.searchsorted(torch.tensor(to_np(from_np(s2, d))),
                              torch.tensor(to_np(from_np(v2, d))))
    np.testing.assert_array_equal(to_np(got), want.numpy())
    # sorter
    perm = rng.permutation(11)
    shuffled = to_np(tseq)[perm]
    sorter = np.argsort(shuffled, kind="stable")
    got = tl.searchsorted(from_np(shuffled, d), tvals,
                          sorter=tl.tensor(sorter))
    np.testing.assert_array_equal(to_np(got), np.searchsorted(
        to_np(tseq), to_np(tvals)))
    assert tl.searchsorted(tseq, tvals, out_int32=True).dtype == tl.int32


def test_searchsorted_errors(torch):
    seq = tl.tensor([[1.0, 2.0, 3.0]])
    with pytest.raises(tl.ShapeError, match=r"\[1, 3\].*\[2, 1\]"):
        tl.searchsorted(seq, tl.tensor([[1.0], [2.0]]))
    with pytest.raises(RuntimeError):
        torch.searchsorted(torch.tensor([[1.0, 2.0, 3.0]]),
                           torch.tensor([[1.0], [2.0]]))
    s = tl.tensor([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        tl.searchsorted(s, tl.tensor([2.0]), sorter=tl.tensor([0, 1, 5]))
    with pytest.raises(TypeError):
        tl.searchsorted(s, tl.tensor([2.0]), sorter=tl.tensor([0, 1, 2],
                                                              dtype=tl.int32))
    with pytest.raises(ValueError):
        tl.searchsorted(s, tl.tensor([2.0]), right=False, side="right")
    with pytest.raises(tl.ShapeError):
        tl.bucketize(tl.tensor([1.0]), seq)
    assert tl.searchsorted(s, 2).item() == 1
    assert tl.searchsorted(s, float("nan")).item() == 3
    out = tl.empty(0, dtype=tl.int64)
    assert tl.searchsorted(s, tl.tensor([2.5]), out=out) is out
    assert out.tolist() == [2]


def test_isin(torch):
    rng = np.random.default_rng(8)
    for d in (tl.int64, tl.float32, tl.int8, tl.float64):
        e = from_np(rng.integers(-5, 5, (4, 6)), d)
        t = from_np(rng.integers(-5, 5, 7), d)
        for inv in (False, True):
            got = tl.isin(e, t, invert=inv)
            want = np.isin(to_np(e), to_np(t), invert=inv)
            np.testing.assert_array_equal(to_np(got), want)
    x = tl.tensor([1, 2, 3])
    assert tl.isin(x, tl.tensor([1.0, 3.5])).tolist() == \
        torch.isin(torch.tensor([1, 2, 3]),
                   torch.tensor([1.0, 3.5])).tolist()
    assert tl.isin(x, 2).tolist() == [False, True, False]
    assert tl.isin(2, x).item() is True
    assert tl.isin(tl.tensor([float("nan")]),
                   tl.tensor([float("nan")])).tolist() == [False]
    with pytest.raises(TypeError):
        tl.isin(1, 2)


def test_nonzero_argwhere_count(torch):
    rng = np.random.default_rng(9)
    for d in (tl.float32, tl.int32, tl.bool, tl.complex64):
        for shape in [(3, 4), (5,), (2, 0, 3), (), (2, 3, 2)]:
            x = rng.integers(0, 2, shape) * (rng.integers(1, 3, shape))
            t = from_np(x, d)
            tt = torch.tensor(x).to(torch_dtype(torch, d))
            nz = tl.nonzero(t)
            assert nz.tolist() == torch.nonzero(tt).tolist()
            assert tl.argwhere(t).tolist() == torch.argwhere(tt).tolist()
            assert t.argwhere().tolist() == torch.argwhere(tt).tolist()
            a = tl.nonzero(t, as_tuple=True)
            b = torch.nonzero(tt, as_tuple=True)
            assert len(a) == len(b)
            for p, q in zip(a, b):
                assert p.tolist() == q.tolist()
            assert [c.tolist() for c in t.nonzero(as_tuple=True)] == \
                [c.tolist() for c in b]
            assert tl.count_nonzero(t).item() == np.count_nonzero(x)
            for dim in range(len(shape)):
                np.testing.assert_array_equal(
                    to_np(tl.count_nonzero(t, dim)),
                    np.count_nonzero(x, axis=dim))
                assert t.count_nonzero(dim).dtype == tl.int64
            if len(shape) >= 2:
                assert tl.count_nonzero(t, (0, 1)).tolist() == \
                    torch.count_nonzero(tt, (0, 1)).tolist()
    out = tl.empty(0, dtype=tl.int64)
    assert tl.nonzero(tl.tensor([0, 3, 4]), out=out) is out
    assert out.tolist() == [[1], [2]]


def test_return_types_module():
    for name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode",
                 "cummax", "cummin", "max", "min"):
        tp = getattr(rtypes, name)
        assert tp.__module__ == "tensorlib.return_types"
        assert tp.__name__ == name
    r = tl.sort(tl.tensor([2.0, 1.0]))
    assert isinstance(r, rtypes.sort) and isinstance(r, tuple)
    assert r.values.tolist() == [1.0, 2.0] and r[1].tolist() == [1, 0]
    assert type(tl.max(tl.ones(2, 2), 0)) is rtypes.max
    r2 = pickle.loads(pickle.dumps(tl.topk(tl.tensor([1.0, 3.0]), 1)))
    assert r2.values.tolist() == [3.0] and r2.indices.tolist() == [1]


def test_threads_do_not_change_results():
    rng = np.random.default_rng(11)
    x = tl.tensor(rng.integers(0, 50, 400_000).astype(np.float32))
    old = tl.get_num_threads()
    try:
        res = []
        for n in (1, 2, 3):
            tl.set_num_threads(n)
            res.append((to_np(tl.sort(x).indices), to_np(tl.topk(x, 7)[1]),
                        to_np(tl.unique(x))))
        for r in res[1:]:
            for a, b in zip(res[0], r):
                assert np.array_equal(a, b)
    finally:
        tl.set_num_threads(old)
