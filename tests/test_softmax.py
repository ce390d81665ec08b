"""softmax and log_softmax: values against a float64 NumPy reference
(the maximum subtracted first), NaN and +-inf rows, result dtypes and
refusals against PyTorch, every layout, dtype=, out=."""
import numpy as np
import pytest

import tensorlib as tl
from _ops_common import (FLOATS, LAYOUTS, NAME, TORCH_FULL, as_dtype,
                         from_np, rng_for, random_values, to_np, torch_dtype,
                         view_as)

SHAPES = [(7,), (3, 5), (2, 3, 4), (0,), (4, 0, 3), (1,), (2, 1, 70),
          (3, 130, 2)]


def np_softmax(x, dim, log):
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy()
    m = np.max(x, axis=dim, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(x - m)
        s = np.sum(e, axis=dim, keepdims=True)
        return (x - m) - np.log(s) if log else e / s


def tol(d):
    return {tl.float16: 2e-3, tl.bfloat16: 1.6e-2, tl.float32: 2e-6}.get(
        d, 1e-12)


@pytest.mark.parametrize("d", FLOATS, ids=NAME.get)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_values(d, log):
    rng = rng_for("softmax", d, log)
    fn = tl.log_softmax if log else tl.softmax
    for shape in SHAPES:
        x = random_values(shape, d, rng) * 4
        for layout in LAYOUTS:
            t = view_as(x, d, layout, rng)
            for dim in range(-len(shape), len(shape)):
                r = fn(t, dim)
                assert r.dtype == d and tuple(r.shape) == shape
                want = np_softmax(as_dtype(x, d), dim, log)
                np.testing.assert_allclose(to_np(r), want, rtol=tol(d) * 4,
                                           atol=tol(d) * 4)
                m = t.log_softmax(dim) if log else t.softmax(dim)
                assert np.array_equal(to_np(m), to_np(r))


def test_softmax_special_rows(torch):
    inf, nan = np.inf, np.nan
    rows = [[1.0, inf], [-inf, -inf], [nan, 1.0], [1.0, -inf],
            [inf, inf], [-inf, 3.0], [1e30, -1e30], [0.0, 0.0]]
    for d in (tl.float32, tl.float64):
        for log in (False, True):
            x = np.array(rows)
            fn = "log_softmax" if log else "softmax"
            for dim, xs in ((1, x), (0, x.T.copy())):
                got = to_np(getattr(tl, fn)(from_np(xs, d), dim))
                want = getattr(torch, fn)(
                    torch.tensor(xs, dtype=torch_dtype(torch, d)), dim
                ).numpy()
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_softmax_big_values_stable():
    x = tl.tensor([[1000.0, 1001.0, 1002.0]])
    r = tl.softmax(x, 1)
    want = np_softmax(np.array([[1000.0, 1001.0, 1002.0]]), 1, False)
    np.testing.assert_allclose(to_np(r), want, rtol=1e-6)
    np.testing.assert_allclose(to_np(tl.log_softmax(x, 1)),
                               np_softmax(to_np(x), 1, True), rtol=1e-6)


@pytest.mark.filterwarnings("ignore:Casting complex")
def test_softmax_dtype_and_errors(torch):
    for d in TORCH_FULL:
        x = from_np(np.ones((2, 3)), d)
        tx = torch.ones((2, 3), dtype=torch_dtype(torch, d))
        try:
            tr = torch.softmax(tx, 1)
        except (RuntimeError, NotImplementedError):
            tr = None
        if tr is None:
            with pytest.raises(TypeError, match="softmax"):
                tl.softmax(x, 1)
        else:
            assert NAME[tl.softmax(x, 1).dtype] == \
                str(tr.dtype).split(".")[-1]
        for dt in (tl.float32, tl.float64):
            r = tl.softmax(x, 1, dtype=dt)
            tr = torch.softmax(tx, 1, dtype=torch_dtype(torch, dt))
            assert NAME[r.dtype] == str(tr.dtype).split(".")[-1]
            np.testing.assert_allclose(to_np(r), tr.numpy(), rtol=1e-6)
    x = tl.ones(2, 3)
    with pytest.raises(IndexError):
        tl.softmax(x, 2)
    with pytest.raises(IndexError):
        tl.log_softmax(x, -3)
    with pytest.raises(TypeError):
        tl.softmax(x)
    with pytest.raises(TypeError):
        tl.softmax(x, 1, dtype=tl.int32)


def test_softmax_half_input_float_dtype():
    x = tl.tensor([[1.0, 2.0, 3.0]], dtype=tl.float16)
    r = tl.log_softmax(x, -1, dtype=tl.float32)
    assert r.dtype == tl.float32
    np.testing.assert_allclose(to_np(r), np_softmax([[1, 2, 3]], -1, True),
                               rtol=1e-6)


def test_softmax_out():
    x = tl.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = tl.empty(0)
    r = tl.softmax(x, 1, out=out)
    assert r is out and tuple(out.shape) == (3, 4)
    np.testing.assert_allclose(to_np(out), np_softmax(to_np(x), 1, False),
                               rtol=1e-6)
    bad = tl.zeros(4, 3)
    v = bad._version
    with pytest.raises(tl.ShapeError, match=r"\[4, 3\]"):
        tl.log_softmax(x, 1, out=bad)
    assert bad._version == v and to_np(bad).sum() == 0
    with pytest.raises(TypeError):
        tl.softmax(x, 1, out=tl.zeros(3, 4, dtype=tl.int64))


def test_softmax_0d():
    z = tl.tensor(3.0)
    assert tl.softmax(z, 0).item() == 1.0
    assert tl.log_softmax(z, -1).item() == 0.0


def test_softmax_threads_do_not_change_results():
    rng = np.random.default_rng(1)
    x = tl.tensor(rng.standard_normal((300, 500)).astype(np.float32))
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        a = to_np(tl.softmax(x, 1))
        b = to_np(tl.softmax(x, 0))
        tl.set_num_threads(2)
        assert np.array_equal(a, to_np(tl.softmax(x, 1)))
        assert np.array_equal(b, to_np(tl.softmax(x, 0)))
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("n", [255, 256, 257, 1000, 4099])
def test_softmax_logsumexp_float64_long_rows(n):
    """float64 rows take the vectorised exp in blocks of 256 (Note
    [softmax float64 exp]): rows and lanes (dim 0 of an (n, 3) matrix)
    longer than a block, against the float64 NumPy reference."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n)) * 30
    x[1, n // 2] = -np.inf
    for dim, xs in ((1, x), (0, np.ascontiguousarray(x.T))):
        t = from_np(xs, tl.float64)
        for log in (False, True):
            fn = tl.log_softmax if log else tl.softmax
            # log_softmax cancels near the row's log-sum: absolute error
            np.testing.assert_allclose(to_np(fn(t, dim)),
                                       np_softmax(xs, dim, log),
                                       rtol=1e-13,
                                       atol=1e-13 if log else 1e-300)
        m = xs.max(axis=dim, keepdims=True)
        want = (m + np.log(np.exp(xs - m).sum(axis=dim, keepdims=True))
                ).squeeze(dim)
        np.testing.assert_allclose(to_np(tl.logsumexp(t, dim)), want,
                                   rtol=1e-14)
