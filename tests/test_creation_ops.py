"""linspace, logspace, eye, meshgrid(indexing=), empty_strided,
tril_indices, triu_indices, complex, polar: values against NumPy, dtypes
and refusals against PyTorch."""
import numpy as np
import pytest

import tensorlib as tl
from _joinindex_common import same_error, to_np, torch_dtype
from _ops_common import rng_for

DTS = [tl.float32, tl.float64, tl.float16, tl.bfloat16, tl.int64, tl.int32,
       tl.uint8, tl.complex64, tl.complex128]


@pytest.mark.parametrize("trial", range(24))
def test_linspace_logspace(torch, trial):
    rng = rng_for("lin", trial)
    start, end = (float(x) for x in np.round(rng.uniform(-10, 10, 2), 2))
    steps = int(rng.integers(0, 40))
    d = DTS[trial % len(DTS)]
    try:
        q = torch.linspace(start, end, steps, dtype=torch_dtype(torch, d))
    except RuntimeError:
        # start or end does not fit d (a negative uint8): refused as full()
        with pytest.raises(OverflowError):
            tl.linspace(start, end, steps, dtype=d)
        return
    r = tl.linspace(start, end, steps, dtype=d)
    assert r.dtype == d and tuple(r.shape) == (steps,)
    want = np.linspace(start, end, steps)
    g = to_np(r).astype(np.complex128 if d.is_complex else np.float64)
    if d in (tl.int64, tl.int32, tl.uint8):
        # integer linspace: PyTorch's values (its formula truncated)
        np.testing.assert_array_equal(to_np(r), q.numpy())
    else:
        tol = {tl.float16: 1e-2, tl.bfloat16: 5e-2}.get(d, 1e-6)
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol)
    if steps:
        f64 = tl.float64
        assert to_np(r)[0] == to_np(tl.tensor(start, dtype=f64).to(d))
        assert to_np(r)[-1] == to_np(tl.tensor(end if steps > 1 else start,
                                               dtype=f64).to(d))
    if d in (tl.float32, tl.float64):
        base = float(rng.uniform(0.5, 4))
        s2, e2 = start / 4, end / 4
        lg = tl.logspace(s2, e2, steps, base, dtype=d)
        np.testing.assert_allclose(to_np(lg),
                                   np.logspace(s2, e2, steps, base=base),
                                   rtol=1e-5)
        assert tl.logspace(s2, e2, steps).dtype == tl.float32


def test_linspace_defaults_out_and_refusals(torch):
    assert tl.linspace(0, 1, 5).dtype == tl.float32
    assert tl.linspace(0, 1j, 3).dtype == tl.complex64
    np.testing.assert_allclose(to_np(tl.linspace(0, 1j, 3)),
                               np.linspace(0, 1j, 3))
    assert tl.linspace(tl.tensor(0.0), tl.tensor(2.0), 3).tolist() == \
        [0.0, 1.0, 2.0]
    out = tl.empty(0, dtype=tl.float64)
    assert tl.linspace(0, 1, 5, out=out) is out
    np.testing.assert_allclose(to_np(out), np.linspace(0, 1, 5))
    same_error(lambda: torch.linspace(0, 1, -1),
               lambda: tl.linspace(0, 1, -1))
    same_error(lambda: torch.logspace(0, 1, -2),
               lambda: tl.logspace(0, 1, -2))
    same_error(lambda: torch.linspace(0, 1, 2.5),
               lambda: tl.linspace(0, 1, 2.5))
    with pytest.raises(tl.ShapeError):
        tl.linspace(0, 1, 5, out=tl.zeros(3))


@pytest.mark.parametrize("n,m", [(0, None), (3, None), (2, 5), (4, 1),
                                 (0, 3)])
@pytest.mark.parametrize("d", [tl.float32, tl.int64, tl.bool,
                               tl.complex64])
def test_eye(torch, n, m, d):
    r = tl.eye(n, m, dtype=d)
    q = torch.eye(n, n if m is None else m, dtype=torch_dtype(torch, d))
    assert r.dtype == d
    np.testing.assert_array_equal(to_np(r), q.numpy())
    assert tl.eye(3).dtype == tl.float32
    out = tl.empty(0)
    tl.eye(2, 3, out=out)
    np.testing.assert_array_equal(to_np(out), np.eye(2, 3))
    same_error(lambda: torch.eye(-1), lambda: tl.eye(-1))


@pytest.mark.parametrize("indexing", [None, "ij", "xy"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_meshgrid(torch, indexing, n):
    rng = rng_for("mesh", indexing, n)
    vs = [rng.standard_normal(int(rng.integers(0, 4))) for _ in range(n)]
    if n == 2:
        vs[1] = np.float64(3.0)
    got = tl.meshgrid(*[tl.tensor(v) for v in vs], indexing=indexing)
    want = np.meshgrid(*[np.atleast_1d(v) for v in vs],
                       indexing=indexing or "ij")
    assert len(got) == n
    for g, w in zip(got, want):
        np.testing.assert_array_equal(to_np(g), w)
    got = tl.meshgrid([tl.tensor(v) for v in vs], indexing=indexing)
    assert len(got) == n


def test_meshgrid_refusals(torch):
    same_error(lambda: torch.meshgrid(torch.zeros(2, 2), indexing="ij"),
               lambda: tl.meshgrid(tl.zeros(2, 2), indexing="ij"))
    same_error(lambda: torch.meshgrid(torch.zeros(2), indexing="yx"),
               lambda: tl.meshgrid(tl.zeros(2), indexing="yx"), ValueError)
    same_error(lambda: torch.meshgrid(torch.zeros(2),
                                      torch.zeros(2, dtype=torch.int64),
                                      indexing="ij"),
               lambda: tl.meshgrid(tl.zeros(2), tl.zeros(2, dtype=tl.int64),
                                   indexing="ij"), TypeError)


def test_empty_strided(torch):
    t = tl.empty_strided((2, 3), (1, 2))
    assert tuple(t.shape) == (2, 3) and t.stride() == (1, 2)
    assert t.dtype == tl.float32
    t = tl.empty_strided([2, 3], [0, 1], dtype=tl.int64)
    assert t.stride() == (0, 1) and t.dtype == tl.int64
    assert t.untyped_storage().nbytes() == 3 * 8
    same_error(lambda: torch.empty_strided((2, 3), (1,)),
               lambda: tl.empty_strided((2, 3), (1,)))
    same_error(lambda: torch.empty_strided((2, -3), (1, 1)),
               lambda: tl.empty_strided((2, -3), (1, 1)))


@pytest.mark.parametrize("row,col,off", [(4, 3, 0), (3, 5, 1), (5, 5, -2),
                                         (0, 3, 0), (3, 0, 1), (1, 1, 9)])
def test_tri_indices(torch, row, col, off):
    for name in ("tril_indices", "triu_indices"):
        got = getattr(tl, name)(row, col, off)
        want = getattr(torch, name)(row, col, off)
        assert got.dtype == tl.int64
        np.testing.assert_array_equal(to_np(got), want.numpy())
    assert tl.tril_indices(3, 3, dtype=tl.int32).dtype == tl.int32
    same_error(lambda: torch.tril_indices(-1, 3),
               lambda: tl.tril_indices(-1, 3))


@pytest.mark.parametrize("d", [tl.float32, tl.float64])
def test_complex_polar(torch, d):
    rng = rng_for("complex", str(d))
    re = rng.standard_normal((3, 4))
    im = rng.standard_normal(4)
    tre = tl.tensor(re).to(d)
    tim = tl.tensor(im).to(d)
    r = tl.complex(tre, tim)
    want = to_np(tre) + 1j * to_np(tim)
    assert r.dtype == (tl.complex64 if d == tl.float32 else tl.complex128)
    np.testing.assert_array_equal(to_np(r), want)
    r = tl.complex(tre.t().contiguous().t().flip(0), tim)
    np.testing.assert_array_equal(to_np(r), np.flip(to_np(tre), 0) +
                                  1j * to_np(tim))
    p = tl.polar(tl.tensor(np.abs(re)).to(d), tim)
    rtol = 1e-6 if d == tl.float32 else 1e-14
    np.testing.assert_allclose(to_np(p), np.abs(re) * np.exp(1j * im),
                               rtol=rtol, atol=rtol)
    out = tl.empty(0, dtype=r.dtype)
    tl.complex(tre, tim, out=out)
    np.testing.assert_array_equal(to_np(out), want)
    q = torch.complex(torch.zeros(2, dtype=torch_dtype(torch, d)),
                      torch.zeros(2, dtype=torch_dtype(torch, d)))
    assert torch_dtype(torch, r.dtype) == q.dtype
    same_error(lambda: torch.complex(torch.zeros(2), torch.zeros(2).double()),
               lambda: tl.complex(tl.zeros(2), tl.zeros(2).double()),
               TypeError)
    same_error(lambda: torch.complex(torch.zeros(2, dtype=torch.int64),
                                     torch.zeros(2, dtype=torch.int64)),
               lambda: tl.complex(tl.zeros(2, dtype=tl.int64),
                                  tl.zeros(2, dtype=tl.int64)), TypeError)
    same_error(lambda: torch.polar(torch.zeros(2), torch.zeros(3)),
               lambda: tl.polar(tl.zeros(2), tl.zeros(3)))
