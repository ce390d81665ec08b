"""aminmax's one-read kernels (csrc/core/reduce_kernels.c, Note [Aminmax in
one read]): the fused vector rows and 8-row cols of int32, uint32, float32
and float64 and the two-kernel paths of the other dtypes, against amin and
amax (the same values, exact, NaN where they give NaN) and NumPy, on
lengths around every vector width and block, NaNs at chosen positions,
signed zeros, views (strided, flipped, transposed), every layout (whole,
innermost, outermost, middle), one and two threads, and each vector
width (TENSORLIB_VECMATH)."""
import sys

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import outputs_at_every_width

DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int8, np.uint8,
          np.int16, np.int64, np.uint64, np.float16, np.bool_]


def data(shape, dt, seed, nan_frac=0.0):
    rng = np.random.default_rng(seed)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt,
                            endpoint=True)
    a = (rng.standard_normal(shape) * 100).astype(dt)
    if nan_frac:
        a[rng.random(shape) < nan_frac] = np.nan
    return a


def same(got, want):
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_array_equal(g, w)   # NaN equals NaN here


def check(x, dim, keepdim=False):
    r = tl.aminmax(x, dim=dim, keepdim=keepdim)
    same(r.min, x.amin(dim, keepdim) if dim is not None else
         x.amin(None, keepdim))
    same(r.max, x.amax(dim, keepdim) if dim is not None else
         x.amax(None, keepdim))
    return r


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128,
                               129, 1000, 16385, 32767, 32769, 70001])
def test_whole_lengths(dt, n):
    a = data(n, dt, n)
    r = check(tl.from_numpy(a), None)
    assert r.min.item() == a.min() and r.max.item() == a.max()
    # every start within a vector (the fused rows align their loads)
    x = tl.from_numpy(a)
    for k in (1, 2, 3, 5):
        if k < n:
            check(x[k:], None)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [7, 64, 65, 129, 1025, 40000])
def test_nan_positions(dt, n):
    base = data(n, dt, 3 * n)
    for pos in sorted({0, 1, 15, 16, 31, 32, 63, n // 2, n - 2, n - 1}
                      & set(range(n))):
        a = base.copy()
        a[pos] = np.nan
        r = check(tl.from_numpy(a), None)
        assert np.isnan(r.min.item()) and np.isnan(r.max.item())


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (9, 17), (16, 64), (37, 129),
                                   (203, 301), (8, 2049), (1030, 24)])
def test_every_dim_and_view(dt, shape):
    a = data(shape, dt, shape[0] * shape[1], nan_frac=0.01)
    x = tl.from_numpy(a)
    pairs = [(x, a), (x.flip(0), a[::-1]), (x.flip(1), a[:, ::-1]),
             (x[:, 1:], a[:, 1:]), (x[::2, ::3], a[::2, ::3]), (x.t(), a.T)]
    for t, v in pairs:
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                r = check(t, dim, keepdim)
                np.testing.assert_array_equal(
                    r.min.numpy(), v.min(axis=dim, keepdims=keepdim))
                np.testing.assert_array_equal(
                    r.max.numpy(), v.max(axis=dim, keepdims=keepdim))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32,
                                np.uint32, np.int64, np.float16])
@pytest.mark.parametrize("shape", [(4, 33, 9), (17, 40, 64), (5, 300, 37),
                                   (3, 16, 2048)])
def test_middle_and_outer_dims(dt, shape):
    a = data(shape, dt, sum(shape), nan_frac=0.0)
    x = tl.from_numpy(a)
    for dim in (0, 1, 2):
        r = check(x, dim)
        np.testing.assert_array_equal(r.min.numpy(), a.min(axis=dim))
        np.testing.assert_array_equal(r.max.numpy(), a.max(axis=dim))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [8, 9, 16, 23, 300])
def test_cols_nan_redo(dt, rows):
    """A NaN anywhere in a column gives NaN for that column only; the
    vector columns (a multiple of the width) and the tail ones alike."""
    a = data((rows, 37), dt, rows)
    for col in (0, 5, 31, 32, 36):
        b = a.copy()
        b[rows // 2, col] = np.nan
        for dim in (0,):
            r = check(tl.from_numpy(b), dim)
            lo, hi = r.min.numpy(), r.max.numpy()
            assert np.isnan(lo[col]) and np.isnan(hi[col])
            rest = np.arange(37) != col
            np.testing.assert_array_equal(lo[rest], b.min(0)[rest])
            np.testing.assert_array_equal(hi[rest], b.max(0)[rest])


def test_signed_zeros_and_infinities():
    a = np.array([0.0, -0.0, np.inf, -np.inf, 1.0] * 20, np.float32)
    r = check(tl.from_numpy(a), None)
    assert r.min.item() == -np.inf and r.max.item() == np.inf
    z = np.where(np.random.default_rng(0).random((40, 33)) < 0.5, 0.0, -0.0)
    for dt in (np.float32, np.float64):
        x = tl.from_numpy(z.astype(dt))
        for dim in (None, 0, 1):
            check(x, dim)


def test_threads_do_not_change_bits():
    old = tl.get_num_threads()
    a = data((300, 4099), np.float32, 9, nan_frac=1e-4)
    b = data((2, 5000000), np.int32, 10)
    try:
        got = []
        for n in (1, 2):
            tl.set_num_threads(n)
            rs = [tl.aminmax(tl.from_numpy(a), dim=d) for d in (None, 0, 1)]
            rs += [tl.aminmax(tl.from_numpy(b), dim=d) for d in (None, 0, 1)]
            got.append([(r.min.numpy().tobytes(), r.max.numpy().tobytes())
                        for r in rs])
    finally:
        tl.set_num_threads(old)
    assert got[0] == got[1]


def test_bool_as_pytorch(torch):
    a = np.array([[True, False, True], [True, True, True]])
    for dim in (None, 0, 1):
        r = tl.aminmax(tl.from_numpy(a), dim=dim)
        e = torch.aminmax(torch.from_numpy(a), dim=dim)
        assert r.min.dtype == tl.bool and r.max.dtype == tl.bool
        assert r.min.tolist() == e.min.tolist()
        assert r.max.tolist() == e.max.tolist()


def test_out_and_refusals():
    x = tl.from_numpy(data((6, 7), np.float32, 1))
    lo, hi = tl.empty(0), tl.empty(0)
    r = tl.aminmax(x, dim=1, out=(lo, hi))
    assert r.min is lo and r.max is hi
    same(lo, x.amin(1))
    same(hi, x.amax(1))
    o = tl.empty(6)
    with pytest.raises(tl.ShapeError, match="share memory"):
        tl.aminmax(x, dim=1, out=(o, o))
    assert o._version == 0
    # out= dtypes follow amin's rule (a cast the result can take)
    wide = tl.empty(6, dtype=tl.float64)
    tl.aminmax(x, dim=1, out=(wide, tl.empty(6)))
    same(wide, x.amin(1).to(tl.float64))
    bad = tl.zeros(6, dtype=tl.int32)
    with pytest.raises(TypeError, match="float32"):
        tl.aminmax(x, dim=1, out=(tl.empty(6), bad))
    assert bad._version == 0
    with pytest.raises(TypeError):
        tl.aminmax(tl.ones(3, dtype=tl.complex64))
    with pytest.raises(tl.ShapeError):
        tl.aminmax(tl.ones(0, 3), dim=0)
    assert tl.aminmax(tl.ones(0, 3), dim=1).min.shape == (0,)
    with pytest.raises(IndexError):
        tl.aminmax(x, dim=2)


def test_loop_leaves_refcounts_flat():
    x = tl.from_numpy(data((64, 65), np.float64, 2))
    before = sys.getrefcount(x)
    for _ in range(2000):
        tl.aminmax(x)
        tl.aminmax(x, dim=0)
        tl.aminmax(x, dim=1, keepdim=True)
    assert sys.getrefcount(x) == before


_LEVELS_SCRIPT = r"""
import hashlib
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(11)
h = hashlib.sha256()
for dt in (np.float32, np.float64, np.int32, np.uint32):
    for shape in ((70001,), (203, 301), (17, 40, 64), (9, 2049)):
        if np.issubdtype(dt, np.integer):
            a = rng.integers(0, 2**31 - 1, shape).astype(dt)
        else:
            a = rng.standard_normal(shape).astype(dt)
            z = rng.random(shape) < 0.05
            a[z] = np.where(rng.random(z.sum()) < 0.5, 0.0, -0.0)
        for case in range(2):
            if case == 1 and not np.issubdtype(dt, np.integer):
                a.reshape(-1)[rng.integers(a.size)] = np.nan
            x = tl.from_numpy(a)
            for dim in [None] + list(range(len(shape))):
                r = tl.aminmax(x, dim=dim)
                h.update(r.min.numpy().tobytes())
                h.update(r.max.numpy().tobytes())
print(h.hexdigest())
"""


def test_vector_widths_give_the_same_bits():
    """The fused AVX-512 and AVX2 kernels and the two-kernel baseline
    paths (TENSORLIB_VECMATH caps the width) give the same bits, signed
    zeros and NaNs included."""
    out = outputs_at_every_width(_LEVELS_SCRIPT)
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["avx2"] == out["auto"]
