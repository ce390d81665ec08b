"""Scans: cumsum, cumprod, logcumsumexp, cummax, cummin, diff.

Values against NumPy (computed on the input cast to the result dtype),
result dtypes and refusals against PyTorch, on random shapes, dtypes and
layouts (transposed, stepped, flipped, negative steps, size 0, 0-d), with
out= and the in-place forms; the thread count does not change results."""
import numpy as np
import pytest

import tensorlib as tl
from _ops_common import (ALL, FLOATS, INTS, LAYOUTS, NAME, NP, TORCH_FULL,
                         as_dtype, from_np, is_complex, is_float, rng_for,
                         random_values, to_np, torch_dtype, view_as)

SHAPES = [(7,), (3, 5), (2, 3, 4), (0,), (4, 0, 3), (1,), (2, 1, 6)]
REAL = [d for d in TORCH_FULL if not is_complex(d)]


def result_dtype(d, dtype=None):
    if dtype is not None:
        return dtype
    return tl.int64 if (d == tl.bool or d in INTS) else d


def tol(d):
    return {tl.float16: 2e-2, tl.bfloat16: 6e-2, tl.float32: 1e-4,
            tl.complex64: 1e-4}.get(d, 1e-9)


def np_scan(fn, x, dim, rt):
    xs = as_dtype(x, rt).astype(np.float64 if is_float(rt) else NP[rt])
    if rt == tl.int64:
        xs = x.astype(np.int64)
    r = fn(xs, axis=dim)
    return r


@pytest.mark.parametrize("d", TORCH_FULL, ids=NAME.get)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_values(op, d):
    rng = rng_for(op, d)
    for shape in SHAPES:
        x = random_values(shape, d, rng, "small")
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(-len(shape), len(shape)):
                r = getattr(tl, op)(t, dim)
                rt = result_dtype(d)
                assert r.dtype == rt
                assert tuple(r.shape) == shape
                want = np_scan(getattr(np, op), x, dim, rt)
                got = to_np(r)
                if is_float(rt) or is_complex(rt):
                    np.testing.assert_allclose(got, want, rtol=tol(rt),
                                               atol=tol(rt))
                else:
                    np.testing.assert_array_equal(got, want.astype(NP[rt]))
                # the method form agrees
                assert np.array_equal(to_np(getattr(t, op)(dim)), got,
                                      equal_nan=is_float(rt))


@pytest.mark.filterwarnings("ignore:Casting complex")
def test_scan_dtypes_match_torch(torch):
    for d in TORCH_FULL:
        x = from_np(np.ones((2, 3)), d)
        tx = torch.ones((2, 3), dtype=torch_dtype(torch, d))
        for op in ("cumsum", "cumprod"):
            assert NAME[getattr(tl, op)(x, 1).dtype] == \
                str(getattr(torch, op)(tx, 1).dtype).split(".")[-1]
            for dt in (tl.float64, tl.int32, tl.float16):
                r = getattr(tl, op)(x, 0, dtype=dt)
                tr = getattr(torch, op)(tx, 0, dtype=torch_dtype(torch, dt))
                assert NAME[r.dtype] == str(tr.dtype).split(".")[-1]
                np.testing.assert_allclose(to_np(r).astype(np.float64),
                                           tr.double().numpy()
                                           if not tr.is_complex()
                                           else tr.numpy(), rtol=1e-3)
        ok_lse = True
        try:
            torch.logcumsumexp(tx, 0)
        except (RuntimeError, NotImplementedError):
            ok_lse = False
        if ok_lse and not tx.is_complex():
            assert tl.logcumsumexp(x, 0).dtype == d
        elif not ok_lse:
            with pytest.raises(TypeError):
                tl.logcumsumexp(x, 0)


def test_cumsum_int_wraps_like_numpy():
    x = np.array([2 ** 62, 2 ** 62, 2 ** 62], np.int64)
    assert to_np(tl.cumsum(tl.tensor(x), 0)).tolist() == \
        np.cumsum(x).tolist()
    assert to_np(tl.cumprod(tl.tensor(np.array([255, 2], np.uint8)), 0,
                            dtype=tl.uint8)).tolist() == [255, 254]


@pytest.mark.parametrize("d", [tl.float32, tl.float64], ids=NAME.get)
def test_logcumsumexp(torch, d):
    rng = rng_for("lcse", d)
    for shape in SHAPES:
        x = random_values(shape, d, rng) * 10
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(len(shape)):
                got = to_np(tl.logcumsumexp(t, dim))
                want = torch.logcumsumexp(torch.tensor(x), dim).numpy()
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    x = np.array([-np.inf, -np.inf, 0.0, np.inf, 1.0, np.nan, 2.0])
    got = to_np(tl.logcumsumexp(tl.tensor(x), 0))
    want = torch.logcumsumexp(torch.tensor(x), 0).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("d", REAL + [tl.uint16, tl.uint32, tl.uint64],
                         ids=NAME.get)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin(torch, op, d):
    rng = rng_for(op, d)
    for shape in SHAPES:
        x = random_values(shape, d, rng, "small")
        if is_float(d) and x.size > 2:
            x.flat[1] = np.nan
            x.flat[-1] = np.nan
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(len(shape)):
                v, i = getattr(tl, op)(t, dim)
                assert v.dtype == d and i.dtype == tl.int64
                assert type(v) is tl.Tensor
                r = getattr(tl, op)(t, dim)
                assert r.values is not None and r.indices is not None
                if d in (tl.uint16, tl.uint32, tl.uint64):
                    xs = x.astype(np.int64 if d != tl.uint64 else np.float64)
                    tv, ti = getattr(torch, op)(torch.tensor(xs), dim)
                else:
                    tv, ti = getattr(torch, op)(
                        torch.tensor(as_dtype(x, d).astype(np.float32)
                                     if d == tl.bfloat16 else x)
                        .to(torch_dtype(torch, d)), dim)
                np.testing.assert_array_equal(to_np(i), ti.numpy())
                np.testing.assert_array_equal(
                    to_np(v).astype(np.float64), tv.double().numpy())


def test_cummax_values_out():
    x = tl.tensor([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]])
    vo, io = tl.empty(0), tl.empty(0, dtype=tl.int64)
    r = tl.cummax(x, 1, out=(vo, io))
    assert r.values is vo and r.indices is io
    assert vo.tolist() == [[3, 3, 4], [1, 5, 9]]
    assert io.tolist() == [[0, 0, 2], [0, 1, 2]]
    # a failed call leaves out as it was
    bad = tl.zeros(5)
    with pytest.raises(tl.ShapeError):
        tl.cummax(x, 1, out=(bad, tl.empty(0, dtype=tl.int64)))
    assert bad.tolist() == [0] * 5


@pytest.mark.parametrize("d", TORCH_FULL, ids=NAME.get)
def test_diff(torch, d):
    rng = rng_for("diff", d)
    for shape in [(7,), (3, 5), (2, 3, 4), (0,), (4, 0, 3)]:
        x = random_values(shape, d, rng, "small")
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(-len(shape), len(shape)):
                for n in (0, 1, 2, 5):
                    r = tl.diff(t, n, dim)
                    tx = torch.tensor(to_np(from_np(x, d))).to(
                        torch_dtype(torch, d))
                    tr = torch.diff(tx, n, dim)
                    assert tuple(r.shape) == tuple(tr.shape)
                    assert NAME[r.dtype] == str(tr.dtype).split(".")[-1]
                    if d == tl.bool:
                        np.testing.assert_array_equal(to_np(r), tr.numpy())
                    else:
                        np.testing.assert_allclose(
                            to_np(r).astype(np.complex128),
                            tr.to(torch.complex128).numpy(), rtol=tol(d),
                            atol=tol(d) * 4)


def test_diff_prepend_append(torch):
    x = tl.tensor([[1, 4, 9], [2, 3, 5]])
    pre = tl.tensor([[0.5], [1.5]])
    app = tl.tensor([[10], [20]])
    r = tl.diff(x, 1, 1, pre, app)
    tr = torch.diff(torch.tensor(x.tolist()), 1, 1,
                    torch.tensor(pre.tolist()), torch.tensor(app.tolist()))
    assert r.dtype == tl.float32 and str(tr.dtype) == "torch.float32"
    assert r.tolist() == tr.tolist()
    assert x.diff(append=app).tolist() == \
        torch.tensor(x.tolist()).diff(append=torch.tensor(app.tolist())
                                      ).tolist()
    with pytest.raises(tl.ShapeError, match=r"\[3\]"):
        tl.diff(x, 1, 1, prepend=tl.ones(3))
    with pytest.raises(tl.ShapeError):
        tl.diff(tl.tensor(1.0))
    with pytest.raises(ValueError):
        tl.diff(x, -1)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_scan_out(op):
    x = tl.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    want = getattr(tl, op)(x, 1)
    out = tl.empty(0)
    r = getattr(tl, op)(x, 1, out=out)
    assert r is out and out.tolist() == want.tolist()
    out2 = tl.zeros(3, 4, dtype=tl.float64)
    getattr(tl, op)(x, 1, out=out2)
    np.testing.assert_allclose(to_np(out2), to_np(want), rtol=1e-6)
    bad = tl.zeros(2, 2)
    v = bad._version
    with pytest.raises(tl.ShapeError, match=r"\[2, 2\]"):
        getattr(tl, op)(x, 1, out=bad)
    assert bad._version == v and bad.tolist() == [[0, 0], [0, 0]]
    with pytest.raises(TypeError):
        getattr(tl, op)(x, 1, out=tl.zeros(3, 4, dtype=tl.int32))


def test_scan_in_place():
    x = tl.tensor([1, 2, 3, 4], dtype=tl.int32)
    r = x.cumsum_(0)
    assert r is x and x.dtype == tl.int32 and x.tolist() == [1, 3, 6, 10]
    y = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    y.t().cumprod_(0)
    assert y.tolist() == [[1.0, 2.0], [3.0, 12.0]]


def test_scan_errors(torch):
    x = tl.ones(2, 3)
    for op in ("cumsum", "cumprod", "logcumsumexp"):
        with pytest.raises(IndexError, match="-3 to 2|range"):
            getattr(tl, op)(x, 2)
        with pytest.raises(TypeError):
            getattr(tl, op)(x)
    with pytest.raises(IndexError):
        tl.cummax(x, -3)
    with pytest.raises(TypeError):
        tl.cummax(tl.ones(3, dtype=tl.complex64), 0)
    with pytest.raises(TypeError):
        tl.logcumsumexp(tl.ones(3, dtype=tl.int64), 0)
    # 0-d: dim 0 and -1
    z = tl.tensor(5.0)
    assert tl.cumsum(z, 0).item() == 5.0 and tl.cumsum(z, -1).shape == ()
    assert tl.cummax(z, 0).indices.item() == 0


@pytest.mark.slow
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_long_rows_independent_of_threads(op):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 300_001)) * 0.001 + 1).astype(np.float32)
    t = tl.tensor(x)
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        a = to_np(getattr(tl, op)(t, 1))
        tl.set_num_threads(2)
        b = to_np(getattr(tl, op)(t, 1))
        tl.set_num_threads(3)
        c = to_np(getattr(tl, op)(t, 1))
    finally:
        tl.set_num_threads(old)
    assert np.array_equal(a, b) and np.array_equal(b, c)
    ref = getattr(np, op if op != "logcumsumexp" else "cumsum")(
        x.astype(np.float64) if op != "logcumsumexp"
        else np.exp(x.astype(np.float64)), axis=1)
    if op == "logcumsumexp":
        ref = np.log(ref)
    np.testing.assert_allclose(a, ref, rtol=1e-4)


def test_scan_long_row_values():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(1 << 18)
    np.testing.assert_allclose(to_np(tl.cumsum(tl.tensor(x), 0)),
                               np.cumsum(x), rtol=1e-9, atol=1e-9)
    xi = rng.integers(-100, 100, 1 << 18)
    assert np.array_equal(to_np(tl.cumsum(tl.tensor(xi), 0)), np.cumsum(xi))


def test_scan_cuda_not_implemented():
    if not hasattr(tl, "cuda") or not tl.cuda.is_available():
        pytest.skip("no CUDA device")
    x = tl.ones(3, device="cuda")
    with pytest.raises(NotImplementedError, match="cumsum"):
        tl.cumsum(x, 0)
