"""Edge cases of the vector reduction kernels (csrc/core/reduce_kernels.c,
Note [Vector extrema], the float64-lane prod and var passes) and the float32
sum's accuracy against a float64 reference.

The vector kernels take contiguous runs in 32-byte vectors, four at a time,
with scalar tails, argmax/argmin in blocks of 1024 and max/min cols in
groups of 8 rows: the lengths below straddle every one of those
boundaries, a NaN is placed in every lane position, integer extremes sit at
every position, and signed zeros, empty dims and non-contiguous views are
covered.  Values against NumPy (exact for extrema and indices)."""
import math
import warnings

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import outputs_at_every_width

# Lengths around the lane counts (4..32 per vector, x4 unrolled), the
# argmax block (1024) and the reduction chunk (32768).
LENGTHS = [1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1023,
           1024, 1025, 2049, 32767, 32769]
INT_TYPES = [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32,
             np.int64, np.uint64]


def t(a):
    return tl.from_numpy(np.ascontiguousarray(a))


def val(x):
    return x.numpy() if hasattr(x, "numpy") else x


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 33, 64, 65, 129, 1025, 2049])
def test_nan_every_position(dt, n):
    rng = np.random.default_rng(n)
    base = rng.standard_normal(n).astype(dt)
    # every position for short runs; a spread of positions for long ones
    positions = range(n) if n <= 129 else sorted(
        set([0, 1, 31, 32, 63, 64, 1023, 1024, n - 1]) & set(range(n)))
    for pos in positions:
        a = base.copy()
        a[pos] = np.nan
        x = t(a)
        for f in ("amax", "amin"):
            assert np.isnan(float(getattr(tl, f)(x).item())), (f, n, pos)
        assert int(x.argmax().item()) == pos
        assert int(x.argmin().item()) == pos
        # two NaNs: the first one wins
        if pos + 1 < n:
            a[n - 1] = np.nan
            assert int(t(a).argmax().item()) == pos


@pytest.mark.parametrize("dt", [np.float32, np.float64] + INT_TYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_extrema_lengths(dt, n):
    rng = np.random.default_rng(1000 + n)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    else:
        a = rng.standard_normal(n).astype(dt)
    x = t(a)
    assert val(tl.amax(x)) == a.max()
    assert val(tl.amin(x)) == a.min()
    assert int(x.argmax().item()) == int(a.argmax())
    assert int(x.argmin().item()) == int(a.argmin())


@pytest.mark.parametrize("dt", INT_TYPES)
def test_int_extremes_every_position(dt):
    info = np.iinfo(dt)
    n = 70
    for pos in range(n):
        a = np.zeros(n, dtype=dt)
        a[pos] = info.max
        x = t(a)
        assert val(tl.amax(x)) == info.max
        assert int(x.argmax().item()) == pos
        a[pos] = info.min
        x = t(a)
        assert val(tl.amin(x)) == info.min
        expect = pos if info.min < 0 else 0
        assert int(x.argmin().item()) == expect
    # ties keep the first index, also across argmax blocks
    a = np.full(3000, info.max, dtype=dt)
    assert int(t(a).argmax().item()) == 0
    a[:1500] = 0
    assert int(t(a).argmax().item()) == 1500


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32,
                                np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 63, 64, 65, 127, 129, 255,
                               256, 257, 1000, 1023, 1025, 2049])
def test_argmax_rows_ties_vs_numpy(dt, n):
    # Note [One-pass vector argmax]: lanes carry their own indices (16
    # lanes x 4 accumulators per iteration for 32-bit types), merged by
    # value then index.  Few distinct values make ties in many lanes at
    # once; each row is a separate call of the row kernel.
    rng = np.random.default_rng(n)
    rows = 9
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        vals = np.array([info.min, 0, 1, info.max], dtype=dt)
    else:
        vals = np.array([-np.inf, -0.0, 0.0, 1.5, np.inf], dtype=dt)
    a = rng.choice(vals, (rows, n))
    a[0] = vals[0]       # all equal: index 0
    a[1, -1] = vals[-1]  # the extreme only in the scalar tail
    if np.issubdtype(dt, np.floating):
        a[2, n // 2] = np.nan  # the first NaN wins
        a[2, -1] = np.nan
        a[3] = np.where(rng.random(n) < 0.5, -0.0, 0.0)  # zeros tie
    x = t(a)
    np.testing.assert_array_equal(x.argmax(dim=1).numpy(), a.argmax(axis=1))
    np.testing.assert_array_equal(x.argmin(dim=1).numpy(), a.argmin(axis=1))
    for r in range(rows):
        assert int(t(a[r]).argmax().item()) == int(a[r].argmax())
        assert int(t(a[r]).argmin().item()) == int(a[r].argmin())


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32,
                                np.uint32, np.int64, np.uint64, np.int8,
                                np.uint16, np.float16])
@pytest.mark.parametrize("threads", [1, 2])
def test_argmax_row_runs_views(dt, threads):
    # argmax/argmin hand the driver's runs of rows to one kernel call
    # (DEF_ARG_ROWS: the one-pass argmax a row for the 32- and 64-bit
    # types, the row kernel for the others): rows spaced apart, rows with
    # a column step (the strided row kernel), a run cut between threads,
    # and NaNs in some rows; indices as NumPy's.
    rng = np.random.default_rng(np.dtype(dt).itemsize * 10 + threads)
    if np.issubdtype(dt, np.integer):
        a = rng.integers(0, 6, (97, 300)).astype(dt)
    else:
        a = rng.choice(np.array([-1.0, 0.0, 2.0, np.nan], dtype=dt),
                       (97, 300), p=[0.4, 0.4, 0.19, 0.01])
    x = tl.from_numpy(a)
    old = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        for view in (np.s_[:, :], np.s_[::3, :], np.s_[1::2, 5:290],
                     np.s_[:, ::2], np.s_[::-1, 3:], np.s_[:, :17]):
            v, av = x[view], a[view]
            for op in ("argmax", "argmin"):
                got = getattr(v, op)(dim=1).numpy()
                np.testing.assert_array_equal(
                    got, getattr(av, op)(axis=1), err_msg=f"{op} {view}")
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32,
                                np.uint32, np.int64, np.uint64])
def test_argmax_overlapping_steps(dt):
    # Note [One-pass vector argmax]: the first step reads q[0..4L), the
    # next ones start at the first aligned element and the last one ends
    # at q[n-1], so steps overlap by up to 4L-1 elements.  Every start
    # offset within 64 bytes and lengths around the step's multiples, with
    # few distinct values (ties everywhere) and the extreme placed in the
    # overlaps: the first index, as NumPy's.
    rng = np.random.default_rng(7)
    size = np.dtype(dt).itemsize
    step4 = 4 * 64 // size
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        lo, hi = info.min, info.max
    else:
        lo, hi = -np.inf, np.inf
    base = np.zeros(4 * step4 + 64 // size + 8, dtype=dt)
    for n in (1, 3, step4 - 1, step4, step4 + 1, step4 + 5, 2 * step4 - 1,
              2 * step4 + 3, 3 * step4 + 7):
        for k in range(64 // size):
            for case in range(6):
                a = base.copy()
                v = a[k:k + n]
                v[:] = rng.integers(0, 3, n).astype(dt)
                if case == 1:      # extremes in the first step's overlap
                    v[min(n - 1, step4 - 2)] = hi
                    v[min(n - 1, step4 - 3)] = lo
                elif case == 2:    # extremes in the last step's overlap
                    v[max(0, n - step4 + 1)] = hi
                    v[max(0, n - step4)] = lo
                elif case == 3:    # ties across both overlaps
                    v[[0, n // 2, n - 1]] = hi
                elif case == 4 and not np.issubdtype(dt, np.integer):
                    v[n - 1] = np.nan
                elif case == 5:
                    v[:] = v[0]
                x = t(a)[k:k + n]
                assert int(x.argmax()) == int(np.argmax(v)), (n, k, case)
                assert int(x.argmin()) == int(np.argmin(v)), (n, k, case)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int8, np.uint16,
                                np.int32, np.uint32, np.int64, np.uint64])
def test_extrema_overlapping_last_step(dt):
    # Note [Vector extrema]: a run that does not end on a step takes one
    # more step over its last 4L elements, overlapping the one before.
    # The extreme (or a NaN) only in the part the last step adds, or only
    # in the overlap, at every start offset: NumPy's values.
    rng = np.random.default_rng(11)
    size = np.dtype(dt).itemsize
    step4 = 4 * 32 // size
    flt = np.issubdtype(dt, np.floating)
    hi, lo = (np.array(100, dt), np.array(-100 if flt else 0, dt))
    for n in (step4 + 1, 2 * step4 - 1, 3 * step4 + 5, 5 * step4 + 2):
        for k in range(0, 64 // size, max(1, 16 // size)):
            for where in (n - 1, n - step4, n - step4 - 1):
                for case in ("hi", "lo", "nan"):
                    if case == "nan" and not flt:
                        continue
                    a = (rng.integers(1, 50, n + k)).astype(dt)
                    if case == "nan":
                        a[k + where] = np.nan
                    else:
                        a[k + where] = hi if case == "hi" else lo
                    v = a[k:]
                    y = t(a)[k:]
                    for got, ref in ((y.amax(), v.max()), (y.amin(), v.min())):
                        g = got.item()
                        if case == "nan":
                            assert np.isnan(g), (n, k, where)
                        else:
                            assert g == ref, (n, k, where, case)


@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.int64, np.uint64])
def test_int_extrema_short_rows_every_width(dt):
    # DEF_VEXT_INT: a row of fewer than L elements goes element by element,
    # one of L..4L-1 takes one vector (steps of L, the last overlapping),
    # longer ones four; each folds in halves.  Every width up to 5L + 1,
    # the extreme at every position of some row, at every start offset of
    # the rows (the row runs' aligned head), and the whole tensor too.
    info = np.iinfo(dt)
    lanes = 32 // np.dtype(dt).itemsize
    rng = np.random.default_rng(23)
    for w in range(1, 5 * lanes + 2):
        rows = 2 * w + 3
        for k in (0, 1, lanes // 2):
            a = rng.integers(-50 if info.min < 0 else 1, 50,
                             rows * w + k).astype(dt)
            m = a[k:].reshape(rows, w).copy()
            for j in range(rows):
                m[j, j % w] = info.max if j % 2 else info.min
                if j % 3 == 0:
                    m[j, (j + 1) % w] = info.min if j % 2 else info.max
            a[k:] = m.ravel()
            x = t(a)[k:].reshape(rows, w)
            for f in ("amax", "amin"):
                got = getattr(tl, f)(x, dim=1).numpy()
                want = getattr(np, f)(m, axis=1)
                assert np.array_equal(got, want), (dt, w, k, f, got, want)
            for j in range(min(rows, w)):
                r = t(m[j])
                assert val(tl.amax(r)) == m[j].max(), (dt, w, j)
                assert val(tl.amin(r)) == m[j].min(), (dt, w, j)


@pytest.mark.parametrize("dt", [np.float32, np.int32])
def test_argmax_across_reduction_chunks(dt):
    # reduce.c hands the row kernels runs of at most 32768 elements and
    # combines their (value, index) records: ties across runs keep the
    # first, a NaN in a later run wins.
    c = 32768
    a = np.zeros(3 * c, dtype=dt)
    a[5] = 3
    a[c + 7] = 3
    assert int(t(a).argmax().item()) == 5
    a[2 * c + 9] = 4
    assert int(t(a).argmax().item()) == 2 * c + 9
    a[3] = -2
    a[c + 11] = -2
    assert int(t(a).argmin().item()) == 3
    if dt == np.float32:
        a[2 * c + 20] = np.nan
        assert int(t(a).argmax().item()) == 2 * c + 20
        assert int(t(a).argmin().item()) == 2 * c + 20
        a[c - 1] = np.nan
        assert int(t(a).argmax().item()) == c - 1


def test_signed_zero_ties():
    a = np.array([-0.0, 0.0] * 40, dtype=np.float32)
    x = t(a)
    assert int(x.argmax().item()) == 0
    assert int(x.argmin().item()) == 0
    b = a[::-1].copy()
    assert int(t(b).argmax().item()) == 0
    assert float(tl.amax(x).item()) == 0.0


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8])
@pytest.mark.parametrize("rows", [1, 7, 8, 9, 17, 64])
def test_cols_outer_dim(dt, rows):
    rng = np.random.default_rng(rows)
    cols = 531  # a tile tail past the 512 tile and past every lane count
    if np.issubdtype(dt, np.integer):
        a = rng.integers(0, 100, (rows, cols)).astype(dt)
    else:
        a = rng.standard_normal((rows, cols)).astype(dt)
        a[rows // 2, 5] = np.nan
        a[rows - 1, cols - 1] = np.nan
    x = t(a)
    with np.errstate(invalid="ignore"):
        for f, g in (("amax", np.max), ("amin", np.min)):
            got = getattr(tl, f)(x, dim=0).numpy()
            np.testing.assert_array_equal(got, g(a, axis=0))
    if not np.issubdtype(dt, np.integer):
        np.testing.assert_allclose(x.var(dim=0).numpy(),
                                   a.astype(np.float64).var(axis=0, ddof=1)
                                   if rows > 1 else np.full(cols, np.nan),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16,
                                np.int8, np.int32, np.uint64])
@pytest.mark.parametrize("rows", [1, 2, 9, 32769])
def test_arg_cols_steps(dt, rows):
    """argmax/argmin and max/min with indices over an outer or middle dim
    of contiguous columns take one branch-free step a row (Note [Arg cols
    steps]): few distinct values so ties abound (the first row wins), NaNs
    in some columns (the first NaN wins), and rows past the reduction
    chunk (32768), where calls' row counters restart."""
    rng = np.random.default_rng(rows)
    cols = 19 if rows > 1000 else 131
    a = rng.integers(0, 4, (rows, cols)).astype(dt)
    if np.issubdtype(dt, np.floating):
        a[rows // 2, 3] = np.nan
        a[rows - 1, 3] = np.nan
        a[rows - 1, cols - 1] = np.nan
    b = np.ascontiguousarray(a.reshape(1, rows, cols).repeat(2, axis=0))
    for arr, d in ((a, 0), (b, 1)):
        x = t(arr)
        np.testing.assert_array_equal(x.argmax(dim=d).numpy(),
                                      arr.argmax(axis=d))
        np.testing.assert_array_equal(x.argmin(dim=d).numpy(),
                                      arr.argmin(axis=d))
        v, i = x.max(dim=d)
        np.testing.assert_array_equal(i.numpy(), arr.argmax(axis=d))
        np.testing.assert_array_equal(v.numpy(), arr.max(axis=d))
        v, i = x.min(dim=d)
        np.testing.assert_array_equal(i.numpy(), arr.argmin(axis=d))
        np.testing.assert_array_equal(v.numpy(), arr.min(axis=d))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16,
                                np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("rows", [1, 7, 8, 9, 16, 63, 64, 65, 200])
def test_cols_sum_prod_blocks_of_8(dt, rows):
    """Outer-dim sums and products take contiguous columns in blocks of 8
    rows (Note [Cols in blocks of 8 rows]): row counts around the block
    and the pairwise leaf (64), a middle dim, and a strided view."""
    rng = np.random.default_rng(rows)
    cols = 37
    if np.issubdtype(dt, np.integer):
        a = rng.integers(0, 100, (rows, cols)).astype(dt)
        b = rng.integers(1, 3, (rows, cols)).astype(dt)
    else:
        a = rng.standard_normal((rows, cols)).astype(dt)
        b = (1 + 0.01 * rng.standard_normal((rows, cols))).astype(dt)
    rtol = {np.float16: 2e-3, np.float32: 1e-5}.get(dt, 1e-12)
    x, y = t(a), t(b)
    for tens, arr in ((x, a), (x[:, ::2], a[:, ::2])):
        got = tens.sum(dim=0).numpy()
        if np.issubdtype(dt, np.integer):
            # integer sums wrap in int64 (bool/uint8 promote to int64)
            ref = arr.astype(np.int64).sum(axis=0)
            np.testing.assert_array_equal(got.astype(np.int64), ref)
        else:
            np.testing.assert_allclose(
                got, arr.astype(np.float64).sum(axis=0), rtol=rtol,
                atol=rtol * np.sqrt(rows))
    got = y.prod(dim=0).numpy()
    if np.issubdtype(dt, np.integer):
        ref = b.astype(np.int64).prod(axis=0)
        np.testing.assert_array_equal(got.astype(np.int64), ref)
    else:
        np.testing.assert_allclose(got, b.astype(np.float64).prod(axis=0),
                                   rtol=rtol)
    # a middle dim: (2, rows, cols) reduced over dim 1
    m = np.stack([a, a[::-1]])
    got = t(m).sum(dim=1).numpy()
    np.testing.assert_allclose(got.astype(np.float64),
                               m.astype(np.float64).sum(axis=1),
                               rtol=rtol, atol=rtol * np.sqrt(rows))


def test_cols_blocks_wrap_and_specials():
    # int64 sums wrap, whatever the order the blocks add in
    a = np.full((24, 3), 2 ** 62, np.int64)
    assert t(a).sum(dim=0).numpy().tolist() == a.sum(axis=0).tolist()
    # inf and nan inside a block of 8 rows
    f = np.ones((16, 4), np.float64)
    f[3, 0] = np.inf
    f[5, 1] = np.nan
    f[2, 2], f[6, 2] = np.inf, -np.inf
    got = t(f).sum(dim=0).numpy()
    assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2])
    assert got[3] == 16
    p = t(f).prod(dim=0).numpy()
    assert p[0] == np.inf and np.isnan(p[1]) and p[2] == -np.inf


@pytest.mark.parametrize("n", [64, 65, 511, 512, 513, 1100, 40000])
def test_sum_f32_lane_blocks_specials(n):
    """Note [Float32 lane blocks]: a block whose float32 lanes overflow is
    summed again in float64, so huge values that cancel give the float64
    answer; infinities and NaNs give what a float64 sum gives."""
    big = np.float32(3e38)
    a = np.zeros(n, np.float32)
    # positions 0 and 64 share a lane: 3e38 + 3e38 overflows float32
    a[0] = big
    a[min(64, n - 1)] += big
    a[1] = -big
    a[min(65, n - 2)] += -big
    ref = a.astype(np.float64).sum()
    assert float(t(a).sum().item()) == ref
    assert float(t(a).mean().item()) == pytest.approx(ref / n)
    c = a.astype(np.complex64)  # complex64 sums through the same lanes
    assert complex(t(c).sum().item()) == complex(ref, 0)
    for k in (0, n // 2, n - 1):
        b = np.ones(n, np.float32)
        b[k] = np.inf
        assert float(t(b).sum().item()) == np.inf
        b[(k + 64) % n] = -np.inf if n > 64 else np.inf
        with np.errstate(invalid="ignore"):
            ref = float(b.astype(np.float64).sum())
        assert str(float(t(b).sum().item())) == str(ref)
        b[k] = np.nan
        assert np.isnan(float(t(b).sum().item()))


@pytest.mark.parametrize("n", [8, 9, 15, 16, 40, 63, 64 + 8, 64 + 63,
                               512 + 17, 1024 + 56])
def test_sum_f32_vectors_below_a_block(n):
    """Note [Float32 lane blocks]: below the last whole block, whole
    vectors of 8 add into one (a tree at most 3 deep) and are checked like a
    block: lanes that overflow float32 are summed again in float64;
    even and odd lanes stay apart (complex64); the last 7 or fewer go
    one by one.  Each row of a matrix is a separate run."""
    big = np.float32(3e38)
    start = n // 64 * 64
    a = np.zeros(n, np.float32)
    if n - start >= 16:   # two elements of one lane below the block
        a[start], a[start + 8] = big, big
        a[start + 1], a[start + 9] = -big, -big
        assert float(t(a).sum().item()) == a.astype(np.float64).sum()
    rng = np.random.default_rng(n)
    m = rng.standard_normal((5, n)).astype(np.float32)
    got = t(m).sum(dim=1).numpy().astype(np.float64)
    np.testing.assert_allclose(got, m.astype(np.float64).sum(axis=1),
                               rtol=2e-6, atol=2e-6 * np.sqrt(n))
    c = (m[:, :n // 2] + 1j * m[:, n // 2:2 * (n // 2)]).astype(np.complex64)
    gc = t(c).sum(dim=1).numpy().astype(np.complex128)
    np.testing.assert_allclose(gc, c.astype(np.complex128).sum(axis=1),
                               rtol=2e-6, atol=2e-6 * np.sqrt(n))
    b = np.ones(n, np.float32)
    b[n - 1 - (n - start) % 8 if n - start >= 8 else 0] = np.inf
    assert float(t(b).sum().item()) == np.inf
    b[0] = np.nan
    assert np.isnan(float(t(b).sum().item()))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_row_runs_every_short_width(dt):
    """Note [Row runs]: sum, mean, prod, amax, amin, nansum, nanmean and
    the 2-norm over short innermost rows, one kernel call for a run of rows: every
    width from 1 to 140 (the partial lane blocks' masked last vector, Note
    [Float32 lane blocks] and [Float64 lane blocks]), rows adjacent, rows apart (a
    column slice), starting off a vector boundary, and strided rows (the
    row-by-row path); against NumPy on the float64 values, each row as
    its own reduction, and NaN, inf and -inf in chosen rows."""
    rng = np.random.default_rng(int(np.dtype(dt).itemsize))
    u = np.finfo(dt).eps
    for w in range(1, 141):
        base = rng.standard_normal((9, w + 5)).astype(dt)
        base[2, w // 2] = np.nan
        base[4, w - 1] = np.inf
        base[5, 0] = -np.inf
        views = [base[:, :w], base[:, 5:w + 5], np.ascontiguousarray(
            base[:, 1:w + 1])]
        if w > 1:
            views.append(base[:, : 2 * (w // 2): 2])
        for x in views:
            xd = x.astype(np.float64)
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ref = {"sum": xd.sum(1), "mean": xd.mean(1),
                       "amax": xd.max(1), "amin": xd.min(1),
                       "nansum": np.nansum(xd, 1),
                       "nanmean": np.nanmean(xd, 1)}
            tx = t(x)
            for op, r in ref.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    got = getattr(tl, op)(tx, dim=1).numpy().astype(
                        np.float64)
                tol = 0 if op in ("amax", "amin") else \
                    4 * u * np.nansum(np.abs(xd), 1) / (
                        x.shape[1] if op in ("mean", "nanmean") else 1)
                with np.errstate(invalid="ignore"):
                    ok = (np.abs(got - r) <= tol) | (got == r) | \
                        (np.isnan(got) & np.isnan(r))
                assert ok.all(), (w, op, x.strides, got, r)
            with np.errstate(invalid="ignore", over="ignore"):
                nref = np.sqrt((xd * xd).sum(1))
            got = tl.linalg.vector_norm(tx, dim=1).numpy().astype(np.float64)
            ok = (np.abs(got - nref) <= 4 * u * nref) | (got == nref) | \
                (np.isnan(got) & np.isnan(nref))
            assert ok.all(), (w, "vector_norm", x.strides, got, nref)
            p = (1 + 0.01 * rng.standard_normal(x.shape)).astype(dt)
            got = t(p).prod(dim=1).numpy().astype(np.float64)
            np.testing.assert_allclose(got, p.astype(np.float64).prod(1),
                                       rtol=4 * w * u)
            # the one-row reduction of each row gives the same bits
            rows = np.stack([tx[j].sum().numpy() for j in range(x.shape[0])])
            assert rows.tobytes() == tx.sum(dim=1).numpy().tobytes(), w


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_batch_finish_special_rows(dt):
    """Note [Batch finish of compensated pairs]: mean, nansum, nanmean and
    the 2-norm over more rows than a tile (the finish runs a tile's
    records at a time), rows of every kind mixed: all NaN (nanmean NaN,
    nansum 0), inf and -inf (NaN), one inf, a sum past the float range
    (inf for float64's 1e308s), zeros of both signs, huge values with
    small ones (the compensation's low part), against NumPy on the float64
    values; and the same bits as each row reduced alone."""
    rng = np.random.default_rng(7)
    w = 6
    x = rng.standard_normal((3001, w)).astype(dt)
    big = np.finfo(dt).max / 2
    kinds = [np.full(w, np.nan), [np.inf, -np.inf, 1, 2, 3, 4],
             [np.inf, 1, 2, 3, 4, 5], [big, big, big, 1, 1, 1],
             [-0.0] * w, [0.0, -0.0] * (w // 2),
             [1e30, 1, -1e30, 1e-3, 2, np.nan], [1e16, 1, -1e16, 1, 1, 1]]
    for j in range(x.shape[0]):
        if j % 5 == 0:
            x[j] = np.asarray(kinds[(j // 5) % len(kinds)], np.float64)
    xd = x.astype(np.float64)
    tx = t(x)
    with np.errstate(invalid="ignore", over="ignore"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        refs = {"mean": xd.sum(1) / w, "nansum": np.nansum(xd, 1),
                "nanmean": np.nanmean(xd, 1),
                "vector_norm": np.sqrt((xd * xd).sum(1))}
        refs = {k: v.astype(dt).astype(np.float64) for k, v in refs.items()}
        for op, ref in refs.items():
            f = tl.linalg.vector_norm if op == "vector_norm" else \
                getattr(tl, op)
            got = f(tx, dim=1).numpy().astype(np.float64)
            tol = 4 * np.finfo(dt).eps * np.nansum(np.abs(xd), 1)
            ok = (np.abs(got - ref) <= tol) | (got == ref) | \
                (np.isnan(got) & np.isnan(ref))
            assert ok.all(), (op, np.flatnonzero(~ok)[:5], got[~ok][:5],
                              ref[~ok][:5])
            if op == "mean" and dt == np.float64:
                # the low part counts: within 2 ulp of the exact mean
                fin = np.isfinite(xd).all(1) & (np.abs(xd).max(1) < big)
                ex = np.array([math.fsum(r) / w for r in xd[fin]])
                assert (np.abs(got[fin] - ex) <=
                        2 * np.spacing(np.abs(ex))).all()
            one = np.stack([f(tx[j]).numpy() for j in range(0, 3001, 7)])
            assert one.tobytes() == f(tx, dim=1).numpy()[::7].tobytes(), op


@pytest.mark.parametrize("w", [9, 15, 17, 63, 65, 127, 130, 511, 513])
def test_row_runs_float32_overflowing_partial_block(w):
    """A float32 partial lane block whose lanes overflow (or hold inf and
    NaN) is summed again in float64 from its first element, an odd count
    of them included (Note [Float32 lane blocks])."""
    big = np.float32(3e38)
    a = np.ones((4, w), np.float32)
    h = (w + 1) // 2
    a[0, :h], a[0, h:] = big, -big   # lanes overflow, the sum is exact
    a[1, :h], a[1, h:] = -big, big
    a[2, w - 2] = np.inf
    a[3, w - 1] = np.nan
    got = t(a).sum(dim=1).numpy()
    ref = a.astype(np.float64).sum(1).astype(np.float32)
    np.testing.assert_array_equal(got, ref)
    assert np.isfinite(got[:2]).all()


def test_sum_f32_more_accurate_than_numpy_on_average():
    """Over many random arrays the float32 sum's error against a float64
    reference is below NumPy's pairwise sum's (root mean square), and
    each error stays within the bound of Note [Float32 lane blocks]: 10
    float32 roundings per element plus the final rounding."""
    u = 2.0 ** -24
    for kind in ("normal", "wide", "shifted"):
        e_ours, e_np = [], []
        for seed in range(24):
            rng = np.random.default_rng(1000 + seed)
            n = int(rng.integers(1000, 200000))
            if kind == "normal":
                a = rng.standard_normal(n)
            elif kind == "wide":
                a = rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))
            else:
                a = rng.standard_normal(n) + 100
            a = a.astype(np.float32)
            ref = np.sum(a.astype(np.float64))
            ours = float(t(a).sum().item())
            e = abs(ours - ref)
            bound = 11 * u * float(np.abs(a.astype(np.float64)).sum()) + \
                float(np.spacing(np.float32(abs(ref))))
            assert e <= bound, (kind, seed, e, bound)
            e_ours.append(e)
            e_np.append(abs(float(np.sum(a)) - ref))
        assert np.sqrt(np.mean(np.square(e_ours))) <= \
            np.sqrt(np.mean(np.square(e_np))), kind


def test_noncontiguous_and_empty():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((40, 300)).astype(np.float32)
    x = t(a)
    for view, ref in ((x.t(), a.T), (x[:, ::3], a[:, ::3]),
                      (tl.flip(x, [1]), a[:, ::-1])):
        for d in (0, 1):
            np.testing.assert_array_equal(tl.amax(view, dim=d).numpy(),
                                          ref.max(axis=d))
            np.testing.assert_array_equal(view.argmin(dim=d).numpy(),
                                          ref.argmin(axis=d))
            np.testing.assert_allclose(
                (1 + 0.01 * view).prod(dim=d).numpy(),
                (1 + 0.01 * ref.astype(np.float64)).prod(axis=d), rtol=1e-5)
    e = t(np.zeros((0, 5), np.float32))
    assert tl.amax(e, dim=1).shape == (0,)
    assert e.prod(dim=0).numpy().tolist() == [1.0] * 5
    with pytest.raises(Exception):
        tl.amax(e, dim=0)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 3, 4, 7, 15, 16, 17, 20, 31, 33, 60,
                               100, 4099])
def test_prod_lanes(dt, n):
    # The lanes, then the last whole vectors one a lane vector, then the
    # last 3 or fewer; a zero or an infinity anywhere, rows of a matrix.
    rng = np.random.default_rng(n)
    a = (1 + 0.01 * rng.standard_normal(n)).astype(dt)
    got = float(t(a).prod().item())
    ref = float(np.prod(a.astype(np.float64)))
    assert got == pytest.approx(ref, rel=1e-6 if dt == np.float32 else 1e-12)
    if n < 2:
        return
    b = a.copy()
    b[n - 1] = np.inf
    b[0] = 0
    assert np.isnan(float(t(b).prod().item()))
    b[0] = np.nan
    assert np.isnan(float(t(b).prod().item()))
    m = (1 + 0.01 * rng.standard_normal((6, n))).astype(dt)
    m[1, n // 2] = 0
    m[2, n - 1] = np.inf
    m[3, n - 2] = -np.inf
    np.testing.assert_allclose(t(m).prod(dim=1).numpy(),
                               m.astype(np.float64).prod(axis=1),
                               rtol=1e-6 if dt == np.float32 else 1e-12)


@pytest.mark.parametrize("n", [4, 17, 1000, 100003])
def test_var_f32_lanes(n):
    rng = np.random.default_rng(n)
    a = (1000 + rng.standard_normal(n)).astype(np.float32)
    ref = a.astype(np.float64).var(ddof=1)
    assert float(t(a).var().item()) == pytest.approx(ref, rel=2e-6)
    m = a[: (n // 2) * 2].reshape(2, -1)
    np.testing.assert_allclose(t(m).var(dim=1).numpy(),
                               m.astype(np.float64).var(axis=1, ddof=1),
                               rtol=2e-6)


@pytest.mark.parametrize("n", [10 ** 4, 10 ** 6 + 7])
@pytest.mark.parametrize("kind", ["normal", "positive", "wide"])
def test_sum_f32_accuracy_vs_numpy(n, kind):
    """float32 sums at least as accurate as NumPy's pairwise float32 sum,
    measured against a float64 reference (inner dims and outer dims)."""
    rng = np.random.default_rng(n)
    if kind == "normal":
        a = rng.standard_normal(n).astype(np.float32)
    elif kind == "positive":
        a = rng.random(n).astype(np.float32)
    else:
        a = (rng.standard_normal(n) *
             np.exp(rng.uniform(-20, 20, n))).astype(np.float32)
    ref = np.sum(a.astype(np.float64))
    ours = float(t(a).sum().item())
    theirs = float(np.sum(a))
    err_ours = abs(ours - ref)
    err_np = abs(theirs - ref)
    ulp = np.spacing(np.float32(abs(ref)))
    assert err_ours <= max(err_np, ulp), (err_ours, err_np, ulp)
    assert float(t(a).mean().item()) == pytest.approx(
        ref / n, rel=2 ** -22, abs=float(ulp) / n)
    # outer dim: columns of a (rows, 8) matrix
    rows = n // 8
    m = a[: rows * 8].reshape(rows, 8)
    ref0 = m.astype(np.float64).sum(axis=0)
    e_ours = np.abs(t(m).sum(dim=0).numpy().astype(np.float64) - ref0)
    e_np = np.abs(m.sum(axis=0).astype(np.float64) - ref0)
    assert np.all(e_ours <= np.maximum(e_np, np.spacing(
        np.abs(ref0).astype(np.float32)))), (e_ours, e_np)


@pytest.mark.parametrize("kind", ["normal", "wide", "shifted"])
def test_float32_cols_blocks_accuracy(kind):
    """Note [Float32 cols in blocks of 8 rows]: over rows far apart (dim 0
    of (rows, 700) float32: a row step above the strips' 2 KiB) each
    column's error against a float64 reference is within 3 float32
    roundings of its magnitudes plus the final rounding, and the root mean
    square error is below NumPy's (which adds the rows in float32)."""
    e_ours, e_np = [], []
    for seed in range(6):
        rng = np.random.default_rng(50 + seed)
        rows = int(rng.integers(200, 3000))
        shape = (rows, 700)
        if kind == "normal":
            a = rng.standard_normal(shape)
        elif kind == "wide":
            a = rng.standard_normal(shape) * \
                np.exp(rng.uniform(-20, 20, shape))
        else:
            a = rng.standard_normal(shape) + 100
        a = a.astype(np.float32)
        a64 = a.astype(np.float64)
        ref = a64.sum(axis=0)
        got = t(a).sum(dim=0).numpy()
        e = np.abs(got.astype(np.float64) - ref)
        bound = 3 * 2.0 ** -24 * np.abs(a64).sum(axis=0) + \
            np.spacing(np.abs(ref).astype(np.float32))
        assert np.all(e <= bound), (kind, seed, rows)
        e_ours.append(e)
        e_np.append(np.abs(a.sum(axis=0).astype(np.float64) - ref))
    rms = lambda v: np.sqrt(np.mean(np.square(np.concatenate(v))))
    assert rms(e_ours) <= rms(e_np), kind


def test_float32_cols_blocks_overflow_and_columns_independent():
    """A block whose float32 sum overflows adds again in float64 for that
    column only: the result is the float64 sum rounded, inf/NaN inputs
    give what float64 gives, and no other column's bits change (the same
    columns summed alone, or with another thread count, give the same)."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((67, 2600)).astype(np.float32)
    big = np.float32(3e38)
    a[8:11, 5] = (big, big, -big)      # finite in float64, inf in float32
    a[16, 700], a[40, 700] = np.inf, -np.inf
    a[3, 2100] = np.nan
    a[20:22, 2599] = (big, big)        # overflows in float64's float32 cast
    ref = a.astype(np.float64).sum(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref.astype(np.float32)
    got = t(a).sum(dim=0).numpy()
    assert got[5] == want[5] and np.isfinite(got[5])
    assert np.isnan(got[700]) and np.isnan(got[2100])
    assert got[2599] == np.inf
    tol = 3 * 2.0 ** -24 * np.abs(a.astype(np.float64)).sum(axis=0) + \
        np.spacing(np.abs(ref).astype(np.float32))
    ok = np.abs(ref) < np.finfo(np.float32).max
    assert np.all(np.abs(got[ok] - ref[ok]) <= tol[ok])
    for lo, hi in ((0, 5), (6, 700), (0, 1000), (701, 2599)):
        alone = t(np.ascontiguousarray(a)).sum(dim=0)[lo:hi].numpy()
        part = t(a)[:, lo:hi].sum(dim=0).numpy()
        assert part.tobytes() == alone.tobytes() == got[lo:hi].tobytes()
    old = tl.get_num_threads()
    try:
        for k in (1, 2, 3):
            tl.set_num_threads(k)
            big_m = t(np.tile(a, (40, 1)))
            r = big_m.sum(dim=0).numpy().tobytes()
            if k == 1:
                r1 = r
            assert r == r1
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("dt", [np.uint8, np.int8, np.int16, np.uint16,
                                np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("shape,dim", [
    ((3, 41, 300), 1), ((7, 50, 33), 1), ((2, 9, 1, 160), 1),
    ((4, 20, 2000), 1), ((5, 11, 700), 1), ((6, 4, 3, 129), (1, 2))])
def test_int_max_min_strips_vs_numpy(dt, shape, dim):
    """Integer amax/amin over close rows (the max/min strips: 1 KiB, 512
    byte and narrow strips, and the tail) equal NumPy's, with the dtype's
    extremes present and on reversed views."""
    rng = np.random.default_rng(sum(shape) + np.dtype(dt).itemsize)
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    flat = a.reshape(-1)
    flat[rng.integers(0, flat.size, 5)] = info.min
    flat[rng.integers(0, flat.size, 5)] = info.max
    axis = dim if isinstance(dim, int) else tuple(dim)
    for x in (a, a[..., ::-1]):
        np.testing.assert_array_equal(tl.amax(t(x), dim=dim).numpy(),
                                      x.max(axis=axis))
        np.testing.assert_array_equal(tl.amin(t(x), dim=dim).numpy(),
                                      x.min(axis=axis))


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8, np.int16,
                                np.uint16, np.int32, np.uint32, np.int64,
                                np.uint64, np.float32, np.float64])
def test_any_all_vector_blocks(dt):
    """any/all of contiguous rows in vector blocks (ANYALL_BLOCK bytes,
    then the lanes, then a scalar tail): one deciding element anywhere
    (a block edge, the tail, a later chunk) is found; -0.0 is zero, NaN,
    subnormals and values whose low byte is zero (256) are nonzero (any()
    ORs the bits but a float's sign); strided views agree."""
    rng = np.random.default_rng(np.dtype(dt).itemsize)
    odd = {np.bool_: True, np.float32: -0.0, np.float64: -0.0}
    for n in (1, 7, 31, 33, 255, 4095, 4097, 70001):
        edge = min(n - 1, 4096 // np.dtype(dt).itemsize)
        pos = sorted({0, n - 1, n // 2, edge, int(rng.integers(0, n))})
        for k in pos:
            z = np.zeros(n, dt)
            if dt in (np.float32, np.float64):
                z[:] = -0.0
                vals = (np.nan, 1e-30, -1.0, -np.inf,
                        np.finfo(dt).smallest_subnormal)
            elif dt is np.bool_:
                vals = (True,)
            else:
                vals = (1, 256 if np.dtype(dt).itemsize > 1 else
                        np.iinfo(dt).max)
            assert bool(t(z).any().item()) is False
            assert bool(t(z).all().item()) is False
            for v in vals:
                z[k] = v
                assert bool(t(z).any().item()) is True, (n, k, v)
                z[k] = 0
            o = np.ones(n, dt)
            if dt not in odd:
                o[:] = 256 if np.dtype(dt).itemsize > 1 else np.iinfo(dt).max
            assert bool(t(o).all().item()) is True
            o[k] = odd.get(dt, 0) if dt is not np.bool_ else False
            assert bool(t(o).all().item()) is False, (n, k)
            assert bool(t(o[::2]).all().item()) == bool(o[::2].all())
            assert bool(t(o).any().item()) == bool(o.any())


def test_thread_count_independent():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(300001).astype(np.float32)
    x = t(a)
    old = tl.get_num_threads()
    try:
        res = []
        for k in (1, 2, 3):
            tl.set_num_threads(k)
            res.append([val(f()).tobytes() if hasattr(val(f()), "tobytes")
                        else val(f()) for f in
                        (lambda: x.sum(), lambda: x.prod(), lambda: x.var(),
                         lambda: tl.amax(x), lambda: x.argmax())])
        assert res[0] == res[1] == res[2]
    finally:
        tl.set_num_threads(old)


# ---- nansum / nanmean (one C pass, TL_RF_NANSUM) ---------------------------

@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape,dim", [((1000,), None), ((37, 70), 1),
                                       ((37, 70), 0), ((5, 6, 7), (0, 2)),
                                       ((600, 3), 0), ((0, 4), 1)])
def test_nansum_nanmean_values(dt, shape, dim):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dt)
    a[rng.random(shape) < 0.2] = np.nan
    if a.ndim == 2 and a.shape[0] > 3:
        a[3, :] = np.nan  # a row entirely NaN
    x = t(a)
    ax = dim
    a64 = a.astype(np.float64)
    rtol = 1e-2 if dt == np.float16 else 1e-5
    with np.errstate(invalid="ignore", divide="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want_sum = np.nansum(a64, axis=ax)
            want_mean = np.nanmean(a64, axis=ax)
    np.testing.assert_allclose(tl.nansum(x, dim=dim).numpy().astype(
        np.float64), want_sum, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(tl.nanmean(x, dim=dim).numpy().astype(
        np.float64), want_mean, rtol=rtol, atol=rtol)
    assert tl.nansum(x, dim=dim).dtype == x.dtype
    got = x.nanmean(dim=dim, keepdim=True)
    assert got.ndim == (x.ndim if dim is not None else x.ndim)


def test_nansum_nanmean_rules(torch):
    a = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
    x, ta = t(a), torch.from_numpy(a)
    for f in ("nansum", "nanmean"):
        for kw in ({}, {"dim": 1}, {"dim": 0, "keepdim": True},
                   {"dtype": tl.float64}):
            tkw = dict(kw)
            if "dtype" in tkw:
                tkw["dtype"] = torch.float64
            want = getattr(torch, f)(ta, **tkw)
            got = getattr(tl, f)(x, **kw)
            assert str(got.dtype).split(".")[-1] == \
                str(want.dtype).split(".")[-1]
            np.testing.assert_allclose(got.numpy(), want.numpy(),
                                       equal_nan=True)
    i = np.array([[1, 2], [3, 4]], np.int32)
    assert tl.nansum(t(i)).dtype == tl.int64
    assert int(tl.nansum(t(i)).item()) == int(torch.nansum(
        torch.from_numpy(i)))
    with pytest.raises(TypeError):
        tl.nanmean(t(i))
    with pytest.raises(TypeError):
        tl.nansum(t(np.ones(3, np.complex64)))
    out = tl.empty(2)
    r = tl.nansum(x, dim=1, out=out)
    assert r.data_ptr() == out.data_ptr()
    np.testing.assert_array_equal(out.numpy(), [4.0, 0.0])
    # infinities are values, NaN skipped
    b = np.array([np.inf, np.nan, 1.0], np.float64)
    assert float(tl.nansum(t(b)).item()) == np.inf
    assert np.isnan(float(tl.nansum(t(np.array([np.inf, -np.inf]))).item()))
    # whole-tensor nanmean of an empty tensor: NaN; nansum: 0
    e = t(np.zeros(0, np.float32))
    assert np.isnan(float(tl.nanmean(e).item()))
    assert float(tl.nansum(e).item()) == 0.0


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [8, 16, 63, 200])
def test_nansum_vector_lanes_specials(dt, n):
    """Infinities and NaNs inside the vectorised lanes (not only the
    tail): an inf stays inf through the compensated lanes, inf - inf is
    NaN, and nanmean counts exactly the non-NaN elements of every lane."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dt)
    for k in range(n):
        if k % 5 == 3:
            a[k] = np.nan
    got_mean = float(tl.nanmean(t(a)).item())
    want_mean = float(np.nanmean(a.astype(np.float64)))
    assert abs(got_mean - want_mean) <= 1e-5 * max(1.0, abs(want_mean))
    b = a.copy()
    b[1] = np.inf
    assert float(tl.nansum(t(b)).item()) == np.inf
    assert float(tl.nanmean(t(b)).item()) == np.inf
    b[6] = -np.inf
    assert np.isnan(float(tl.nansum(t(b)).item()))
    c = np.full(n, np.nan, dt)
    assert float(tl.nansum(t(c)).item()) == 0.0
    assert np.isnan(float(tl.nanmean(t(c)).item()))


def test_nansum_long_accuracy():
    rng = np.random.default_rng(11)
    a = rng.standard_normal(300001).astype(np.float32)
    a[::7] = np.nan
    ref = np.nansum(a.astype(np.float64))
    got = float(tl.nansum(t(a)).item())
    assert abs(got - ref) <= max(abs(float(np.nansum(a)) - ref),
                                 float(np.spacing(np.float32(abs(ref)))))
    cnt = np.count_nonzero(~np.isnan(a))
    assert float(tl.nanmean(t(a)).item()) == pytest.approx(ref / cnt,
                                                           rel=1e-6)


def test_nansum_f32_lane_blocks_vs_numpy():
    """Note [Float32 nansum in lane blocks]: over random float32 arrays
    with NaNs (narrow, wide-ranged and shifted data) the RMS error of
    nansum against a float64 reference is below NumPy's, nanmean divides
    by the count of non-NaN elements, and a block holding an infinity or
    overflowing float32 lanes is summed again in float64."""
    for kind in ("normal", "wide", "shifted"):
        e_ours, e_np = [], []
        for seed in range(16):
            rng = np.random.default_rng(2000 + seed)
            n = int(rng.integers(1000, 100000))
            a = rng.standard_normal(n)
            if kind == "wide":
                a = a * np.exp(rng.uniform(-15, 15, n))
            elif kind == "shifted":
                a = a + 100
            a = a.astype(np.float32)
            a[rng.random(n) < 0.15] = np.nan
            ref = np.nansum(a.astype(np.float64))
            e_ours.append(abs(float(tl.nansum(t(a)).item()) - ref))
            e_np.append(abs(float(np.nansum(a)) - ref))
            cnt = np.count_nonzero(~np.isnan(a))
            assert float(tl.nanmean(t(a)).item()) == pytest.approx(
                ref / cnt, rel=1e-6, abs=1e-6)
        assert np.sqrt(np.mean(np.square(e_ours))) <= \
            np.sqrt(np.mean(np.square(e_np))), kind
    b = np.full(2000, 3e38, np.float32)
    b[::5] = np.nan
    b[1999] = -3e38
    ref = np.nansum(b.astype(np.float64))
    assert float(tl.nansum(t(b).double()).item()) == pytest.approx(ref)
    assert float(tl.nansum(t(b)).item()) == np.float32(ref)  # inf
    b[:] = 1
    b[::3] = np.nan
    b[700] = -np.inf
    assert float(tl.nansum(t(b)).item()) == -np.inf
    # float32 lanes overflow (8 of +-3e38 each) where the float64 sum is 0
    c = np.zeros(2048, np.float32)
    c[::64], c[1::64], c[2::64] = 3e38, -3e38, np.nan
    assert float(tl.nansum(t(c)).item()) == 0.0
    assert float(tl.nanmean(t(c)).item()) == 0.0


@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.float32,
                                np.int64, np.uint64, np.float64])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 70001])
def test_count_nonzero_uint32_lanes(dt, n):
    """count_nonzero of contiguous 32-bit rows (uint32 lanes, rows cut at
    TL_REDUCE_RCHUNK) and 64-bit rows (uint64 lanes): NumPy's counts;
    -0.0 is zero, NaN is not."""
    rng = np.random.default_rng(n)
    a = rng.integers(0, 3, n).astype(dt)
    if np.issubdtype(dt, np.floating):
        a[rng.random(n) < 0.1] = -0.0
        a[rng.random(n) < 0.1] = np.nan
    assert int(tl.count_nonzero(t(a)).item()) == np.count_nonzero(a)
    m = np.concatenate([a, a[::-1]]).reshape(2, n)
    np.testing.assert_array_equal(tl.count_nonzero(t(m), dim=1).numpy(),
                                  np.count_nonzero(m, axis=1))
    np.testing.assert_array_equal(
        tl.count_nonzero(t(m)[:, ::-1], dim=1).numpy(),
        np.count_nonzero(m[:, ::-1], axis=1))


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8, np.int16,
                                np.uint16, np.int32, np.uint32, np.int64,
                                np.uint64])
@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000, 70001])
def test_int_sum_lanes(dt, n):
    """Contiguous integer rows sum in 8 uint64 lanes (the AVX2 clone of
    DEF_ISUM_NAMED's row): NumPy's int64 sums, wrapping, on rows, reversed
    rows and a strided view."""
    rng = np.random.default_rng(n)
    if dt == np.bool_:
        a = rng.random(n) < 0.5
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    want = a.astype(np.uint64).sum(dtype=np.uint64) if dt == np.uint64 \
        else a.astype(np.int64).sum(dtype=np.int64)
    got = t(a).sum().numpy()
    assert got.astype(want.dtype) == want
    m = np.concatenate([a, a[::-1]]).reshape(2, n)
    for x in (m, m[:, ::-1], m[:, ::2]):
        ref = x.astype(np.uint64 if dt == np.uint64 else np.int64).sum(
            axis=1)
        np.testing.assert_array_equal(
            t(x).sum(dim=1).numpy().astype(ref.dtype), ref)


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8, np.int16,
                                np.uint16, np.int32, np.uint32, np.int64,
                                np.uint64])
def test_int_sum_row_runs(dt):
    """Integer sums over short innermost rows go a run of rows a call
    (Note [Row runs]): every width 1 to 70 and a few past, rows adjacent,
    rows apart (a column slice), off a vector boundary and strided, more
    rows than a tile; NumPy's wrapping int64 (uint64) sums, each row as
    its own reduction."""
    rng = np.random.default_rng(int(np.dtype(dt).itemsize) + 40)
    acc = np.uint64 if dt == np.uint64 else np.int64
    for w in list(range(1, 71)) + [127, 129, 300]:
        rows = 1100 if w in (3, 16, 33) else 9
        if dt == np.bool_:
            base = rng.random((rows, w + 3)) < 0.5
        else:
            info = np.iinfo(dt)
            base = rng.integers(info.min, info.max, (rows, w + 3), dtype=dt,
                                endpoint=True)
        views = [base[:, :w], base[:, 3:w + 3],
                 np.ascontiguousarray(base[:, 1:w + 1])]
        if w > 1:
            views.append(base[:, : 2 * (w // 2): 2])
        for x in views:
            ref = x.astype(acc).sum(axis=1, dtype=acc)
            got = t(x).sum(dim=1).numpy().astype(acc)
            np.testing.assert_array_equal(got, ref, err_msg=str((w, x.strides)))


def test_reduce_vector_leak_loop():
    """The new kernels and nansum/nanmean (incl. their error paths) keep
    allocator stats and refcounts flat."""
    import gc
    import sys
    rng = np.random.default_rng(5)
    a = t(rng.standard_normal((64, 130)).astype(np.float32))
    i = t(rng.integers(-9, 9, 3000).astype(np.int32))
    z = t(np.ones(4, np.complex64))
    out = tl.empty(64)

    def one_round():
        tl.amax(a), tl.amin(a, dim=0), a.argmax(), a.argmin(dim=1)
        a.prod(dim=1), a.var(dim=0), a.std(), tl.amax(i), i.argmin()
        tl.nansum(a, dim=1, out=out), tl.nanmean(a, dim=(0, 1))
        tl.nansum(i), a.nansum(keepdim=True)
        for f, x in ((tl.nansum, z), (tl.nanmean, i)):
            try:
                f(x)
            except TypeError:
                pass

    for _ in range(10):
        one_round()
    gc.collect()
    watched = [a, i, z, out]
    refs = [sys.getrefcount(o) for o in watched]
    stats = tl.memory_stats()
    for _ in range(200):
        one_round()
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]


# ---- count_nonzero (its own family) and any/all short-circuits -------------

CNZ_TYPES = [np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32,
             np.uint32, np.int64, np.uint64, np.float16, np.float32,
             np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", CNZ_TYPES)
@pytest.mark.parametrize("shape,dim", [((1000,), None), ((37, 70), 1),
                                       ((37, 70), 0), ((5, 6, 7), (0, 2)),
                                       ((70000,), None), ((0, 4), 1),
                                       ((3, 33, 9), 1)])
def test_count_nonzero_every_dtype(dt, shape, dim):
    rng = np.random.default_rng(len(shape) * 31 + 7 * len(repr(dim)))
    a = (rng.integers(0, 3, shape) * rng.integers(1, 100, shape)).astype(dt)
    if np.issubdtype(dt, np.floating) and a.size:
        flat = a.reshape(-1)
        flat[::7] = -0.0                 # negative zero is zero
        flat[3 % flat.size] = np.nan     # NaN is not zero
    if np.issubdtype(dt, np.complexfloating) and a.size:
        a.reshape(-1)[::5] = 1j          # only the imaginary part nonzero
    nd = a.ndim
    rev = tuple(range(nd - 1, -1, -1))
    dims = None if dim is None else (dim if isinstance(dim, tuple)
                                      else (dim,))
    views = [(t(a), a, dims),
             (t(a).flip(-1), a[..., ::-1], dims),
             (t(a).permute(*rev), a.transpose(rev),
              None if dims is None else tuple(nd - 1 - k for k in dims))]
    for x, arr, d in views:
        got = tl.count_nonzero(x) if d is None else tl.count_nonzero(x, d)
        assert got.dtype == tl.int64
        np.testing.assert_array_equal(np.asarray(val(got)),
                                      np.count_nonzero(arr, axis=d))


def test_count_nonzero_bad_dim():
    x = t(np.ones((2, 3), np.float32))
    with pytest.raises(IndexError, match="range"):
        tl.count_nonzero(x, 5)


@pytest.mark.parametrize("dt", [np.bool_, np.float32, np.int64])
@pytest.mark.parametrize("pos", [0, 1, 32767, 32768, 100000, 199999])
def test_any_all_whole_short_circuit(dt, pos):
    """Note [Absorbing chunks]: a whole any()/all() over several chunks
    stops starting chunks once one decides it; the answer must not
    depend on where the deciding element sits or on the thread count."""
    n = 200000
    z = np.zeros(n, dt)
    o = np.ones(n, dt)
    z1 = z.copy()
    z1[pos] = 1
    o0 = o.copy()
    o0[pos] = 0
    old = tl.get_num_threads()
    try:
        for k in (1, 2):
            tl.set_num_threads(k)
            assert not bool(t(z).any().item())
            assert bool(t(z1).any().item())
            assert bool(t(o).all().item())
            assert not bool(t(o0).all().item())
            assert bool(t(z1).any().item()) == bool(np.any(z1))
            # a strided view of the same data
            assert bool(t(z1)[pos % 2::2].any().item()) == \
                bool(np.any(z1[pos % 2::2]))
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("cols", [1, 3, 4, 5, 8, 13])
def test_nansum_cols_vector_columns(dt, cols):
    """nansum/nanmean over dim 0 take contiguous columns four at a time:
    NaNs and infinities at every column position, against NumPy."""
    rng = np.random.default_rng(cols)
    rows = 21
    a = rng.standard_normal((rows, cols)).astype(dt)
    a[rng.integers(0, rows, cols), np.arange(cols)] = np.nan
    a[3, cols - 1] = np.nan
    if cols > 2:
        a[5, 1] = np.inf
        a[:, 2] = np.nan                 # a column of NaNs only: 0 / nan
    x = t(a)
    with np.errstate(invalid="ignore"):
        ref = np.nansum(a.astype(np.float64), axis=0)
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            refm = np.nanmean(a.astype(np.float64), axis=0)
    rtol = 2e-3 if dt == np.float16 else 1e-6
    np.testing.assert_allclose(tl.nansum(x, dim=0).numpy().astype(np.float64),
                               ref, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(tl.nanmean(x, dim=0).numpy().astype(np.float64),
                               refm, rtol=rtol, atol=rtol)


_DISPATCH_SCRIPT = r"""
import hashlib, sys
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(12)
h = hashlib.sha256()
names = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
         "int64", "uint64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
for name in names:
    dt = getattr(tl, name)
    for shape, dim in [((37, 19), 0), ((5, 37, 19), 1), ((3, 41, 300), 1),
                       ((1003,), None), ((9, 530), 1), ((4, 3000), 1),
                       ((40, 600), 0), ((6, 7), 1), ((6, 16), 1),
                       ((5, 61), 1), ((4, 250), 1)]:
        x = rng.uniform(0.9, 1.1, shape)
        if dim == 1 and len(shape) == 2:
            x[1, shape[1] // 3] = np.nan  # argmax's first-NaN rule
        t = tl.tensor(x * (3 if name != "bool" else 1)).to(dt)
        kw = {} if dim is None else {"dim": dim}
        ops = ["sum", "prod", "count_nonzero", "any", "all"]
        if not dt.is_complex and name != "bool":
            ops += ["amax", "amin", "argmax", "argmin"]
        if dt.is_floating_point or dt.is_complex:
            ops += ["mean"]
        if name in ("float32", "float64"):
            ops += ["vector_norm"]  # the vector square roots of its finish
        for op in ops:
            f = tl.linalg.vector_norm if op == "vector_norm" else \
                getattr(tl, op)
            r = f(t, **kw)
            h.update(op.encode() + name.encode())
            h.update(r.to(tl.complex128 if dt.is_complex else
                          tl.float64).numpy().tobytes())
# float32 over far rows with block sums that overflow, inf and NaN among
# finite columns of the same 16 (Note [Float32 cols blocks in AVX-512])
a = rng.standard_normal((67, 700)).astype(np.float32)
big = np.float32(3e38)
a[8:11, 21] = (big, big, -big)
a[16, 40], a[40, 40] = np.inf, -np.inf
a[3, 47] = np.nan
a[20:22, 50] = (big, big)
for x in (a, a[::-1], a[:, 3:], a[5:60, 1:]):
    h.update(tl.from_numpy(x).sum(dim=0).numpy().tobytes())
# nansum and nanmean over far rows in blocks of 8 (Note [Nansum cols in
# blocks of 8 rows]): NaNs, infinities and -0.0 in the vector columns and
# the scalar tail
for dt in (np.float16, np.float32, np.float64):
    b = rng.standard_normal((43, 37)).astype(dt)
    b[rng.random(b.shape) < 0.15] = np.nan
    b[5, 2], b[9, 3], b[17, 3], b[1, 36] = np.inf, np.inf, -np.inf, -0.0
    for x in (b, b[::-1], b[:, 1:], b[3:, ::1]):
        y = tl.from_numpy(x)
        h.update(tl.nansum(y, dim=0).numpy().tobytes())
        h.update(tl.nanmean(y, dim=0).numpy().tobytes())
print(h.hexdigest())
"""


@pytest.mark.parametrize("shape,dim", [
    ((128, 256, 128), 1), ((3, 41, 300), 1), ((7, 50, 33), 1),
    ((513, 5), 0), ((2, 9, 1, 160), 1), ((6, 4, 3, 129), (1, 2)),
    ((300, 600), 0)])
def test_float32_cols_strips_vs_float64(shape, dim):
    """Note [Float32 cols in register strips]: float32 sums and products
    over close rows are within one float32 ulp of the float64 result, on
    views too (the 8-row blocks over far rows, the last case, within the
    bound of Note [Float32 cols in blocks of 8 rows]); float64 products
    and sums agree with NumPy's."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(np.float32)
    axis = dim if isinstance(dim, int) else tuple(dim)
    for x in (a, a[..., ::-1] if a.ndim > 2 else a[::-1]):
        got = t(x).sum(dim=dim).numpy()
        ref = x.astype(np.float64).sum(axis=axis)
        assert got.dtype == np.float32
        tol = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
        if shape == (300, 600):
            tol += 3 * 2.0 ** -24 * np.abs(x.astype(np.float64)).sum(axis)
        assert np.all(np.abs(got - ref) <= tol), (shape, dim)
        np.testing.assert_allclose(t(x).mean(dim=dim).numpy(),
                                   ref / (x.size // ref.size), rtol=2e-7,
                                   atol=1e-7)
    p = (1 + 0.01 * a).astype(np.float32)
    np.testing.assert_allclose(t(p).prod(dim=dim).numpy(),
                               p.astype(np.float64).prod(axis=axis),
                               rtol=3e-7)
    p64 = 1 + 0.01 * a.astype(np.float64)
    np.testing.assert_allclose(t(p64).prod(dim=dim).numpy(),
                               p64.prod(axis=axis), rtol=1e-13)
    s64 = a.astype(np.float64) * 1e3
    scale = np.abs(s64).sum(axis=axis)
    assert np.all(np.abs(t(s64).sum(dim=dim).numpy() - s64.sum(axis=axis))
                  <= 1e-14 * scale)


@pytest.mark.parametrize("shape", [(128, 256, 128), (3, 41, 300),
                                   (2, 50, 512), (4, 33, 40), (5, 70, 33),
                                   (6, 9, 64), (3, 200, 96)])
def test_close_rows_fold_in_row_order(shape):
    """Note [Row folds over close rows]: over rows at most 2 KiB apart,
    each column of a float32 sum or product, and of a float64 product, is
    its rows in order in float64 (the strips and the whole-row folds
    alike), so it equals NumPy's row-by-row float64 reduction of the
    middle axis bit for bit, on views too; rows further apart (the 8-row
    blocks) are skipped.  Without AVX-512 the float32 (128, 256, 128)
    (16 MiB, above FOLD_FAR_BYTES) takes the folds, the smaller ones the
    strips."""
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(np.float32)
    checked = 0
    for x in (a, a[..., ::-1], a[:, ::2], a[:, :, 1:]):
        p = (1 + 0.01 * x).astype(np.float32)
        cases = [(x, "sum"), (p, "prod"),
                 (p.astype(np.float64), "prod")]
        for y, op in cases:
            if abs(y.strides[1]) > 2048:
                continue
            got = getattr(t(y), op)(dim=1).numpy()
            ref = getattr(y.astype(np.float64), op)(axis=1).astype(y.dtype)
            assert got.tobytes() == ref.tobytes(), (shape, y.strides, op)
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(128, 256, 128), (3, 41, 300),
                                   (5, 9, 700), (4, 7, 33), (2, 300, 5)])
def test_extrema_cols_strips_nan_and_zeros(dt, shape):
    """The max/min register strips over close rows: NumPy's values, NaN
    wherever a column holds one, and the first of equal zeros kept."""
    rng = np.random.default_rng(shape[-1])
    a = rng.standard_normal(shape).astype(dt)
    ncol = shape[2]
    cols = rng.choice(ncol, size=min(ncol, 7), replace=False)
    a[0, rng.integers(shape[1]), cols[0]] = np.nan
    a[-1, shape[1] - 1, cols[-1]] = np.nan
    z = a[1 % shape[0]]
    z[:, cols[1:3]] = 0.0
    z[0, cols[1:3]] = -0.0  # first in row order
    for op in ("amax", "amin"):
        got = getattr(tl, op)(t(a), dim=1).numpy()
        ref = getattr(np, op)(a, axis=1)
        np.testing.assert_array_equal(got, ref)
        assert np.array_equal(np.signbit(got[1 % shape[0], cols[1:3]]),
                              [True] * len(cols[1:3])), op


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [8, 9, 16, 23, 64])
def test_extrema_cols_blocks_nan_and_zeros(dt, rows):
    """The 8-row max/min blocks over far rows (the portable
    compare-and-blend of DEF_VCOLS for floats): NumPy's values, NaN wherever a
    column holds one (first, last or middle row of a block), the first
    of equal zeros in row order kept, infinities, on column counts around
    the 64-byte step and views."""
    rng = np.random.default_rng(rows)
    ncol = 600 if dt == np.float64 else 1100  # rows over 2 KiB apart
    a = rng.standard_normal((rows, ncol)).astype(dt)
    cols = rng.choice(ncol - 8, size=9, replace=False)
    a[0, cols[0]] = np.nan
    a[rows - 1, cols[1]] = np.nan
    a[3, cols[2]], a[5, cols[2]] = np.nan, np.inf
    a[:, cols[3:5]] = 0.0
    a[0, cols[3:5]] = -0.0  # first in row order
    a[:, cols[5]] = -0.0
    a[2, cols[5]] = 0.0
    a[4, cols[6]], a[6, cols[7]] = np.inf, -np.inf
    for x in (a, a[:, 3:], a[1:, :-5]):
        for op in ("amax", "amin"):
            got = getattr(tl, op)(t(x), dim=0).numpy()
            np.testing.assert_array_equal(got, getattr(np, op)(x, axis=0))
        if x is a:  # -0.0 comes first in these columns, so it is kept
            for op in ("amax", "amin"):
                got = getattr(tl, op)(t(x), dim=0).numpy()
                assert np.all(np.signbit(got[cols[3:6]])), op


@pytest.mark.parametrize("shape", [(16, 40, 128), (3, 33, 300),
                                   (2, 5, 260)])
def test_nansum_cols_strips(shape):
    """float32 nansum/nanmean over close rows (the AVX-512 strips, 128
    columns at a time, then the row-by-row tail): NumPy's float64 result
    rounded, and each column's count of non-NaN elements."""
    rng = np.random.default_rng(shape[-1])
    a = rng.standard_normal(shape).astype(np.float32)
    a[rng.random(shape) < 0.2] = np.nan
    a[:, :, 7] = np.nan  # a column of NaNs only: sum 0, mean NaN
    ref = np.nansum(a.astype(np.float64), axis=1)
    got = tl.nansum(t(a), dim=1).numpy()
    assert np.all(np.abs(got - ref) <= np.spacing(
        np.abs(ref).astype(np.float32)))
    with np.errstate(invalid="ignore"):
        mref = np.nanmean(a.astype(np.float64), axis=1)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(tl.nanmean(t(a), dim=1).numpy(), mref,
                                   rtol=3e-7, atol=1e-7)


def test_baseline_and_avx2_reduction_clones_agree():
    # Note [AVX2 dispatch] (reduce_kernels.c): the AVX2 clones of the row
    # and 8-row cols kernels do the baseline's operations in the same
    # order, so every reduction family gives the same bits with
    # TENSORLIB_VECMATH=baseline (which caps them) as without; "avx2"
    # keeps the two-pass argmax where AVX-512 takes the one-pass kernel
    # (Note [One-pass vector argmax]): the same indices
    out = outputs_at_every_width(_DISPATCH_SCRIPT)
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["avx2"] == out["auto"]


_ZEROS_SCRIPT = r"""
import hashlib
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(5)
h = hashlib.sha256()
for dt in (np.float32, np.float64):
    for n in (1, 7, 31, 32, 33, 64, 65, 127, 128, 129, 1000, 4099):
        for case in range(4):
            x = -np.abs(rng.standard_normal(n)).astype(dt)
            z = rng.random(n) < 0.3
            x[z] = np.where(rng.random(z.sum()) < 0.5, 0.0, -0.0)
            if case == 1:
                x[rng.integers(n)] = np.nan
            if case == 2:
                x[:] = np.where(rng.random(n) < 0.5, 0.0, -0.0)
            if case == 3:
                x = -x  # the minimum is a zero of either sign
            t = tl.from_numpy(x)
            for op in ("amax", "amin", "max", "min"):
                r = getattr(t, op)().numpy()
                h.update(op.encode() + np.signbit(r).tobytes() + r.tobytes())
            r = t.reshape(1, n).amax(dim=1).numpy()
            h.update(np.signbit(r).tobytes() + r.tobytes())
print(h.hexdigest())
"""


def test_float_extrema_clones_agree_on_zeros_and_nan():
    """Note [Float extrema with vmaxps]: the AVX2 float max/min runs take
    the same zero (sign included) and the same NaN as the baseline clone,
    for every run length around the 4-vector block."""
    import os
    import subprocess
    import sys
    out = {}
    for cap in ("baseline", "auto"):
        env = dict(os.environ, TENSORLIB_VECMATH=cap)
        out[cap] = subprocess.run(
            [sys.executable, "-c", _ZEROS_SCRIPT], env=env, check=True,
            capture_output=True, text=True).stdout.strip()
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["auto"]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 7, 8, 9, 16, 17, 63, 64, 65, 300])
def test_nansum_cols_blocks_of_8(dt, rows):
    """Note [Nansum cols in blocks of 8 rows]: nansum and nanmean over dim
    0 (rows far apart) against a float64 reference with NaNs made 0,
    around the block of 8 and the vector width (37 columns: 9 vectors and
    a tail), on views; a column of NaNs gives 0 and nanmean NaN; +inf and
    -inf in one column give NaN; and the same bits on 1 and 2 threads."""
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 37)).astype(dt)
    a[rng.random(a.shape) < 0.2] = np.nan
    a[:, 5] = np.nan
    a[0, 7] = np.inf
    a[-1, 8], a[0, 8] = np.inf, -np.inf
    tol = {np.float16: 1e-3, np.float32: 1e-6}.get(dt, 1e-15)
    for x in (a, a[::-1], a[:, 1:], a[:, ::2]):
        z = np.where(np.isnan(x), 0, x.astype(np.float64))
        cnt = (~np.isnan(x)).sum(axis=0)
        with np.errstate(invalid="ignore"):
            ref = z.sum(axis=0)
            mref = ref / cnt
        got = tl.nansum(t(x), dim=0).numpy().astype(np.float64)
        scale = np.abs(z).sum(axis=0)
        fin = np.isfinite(ref)
        assert np.all(np.abs(got[fin] - ref[fin]) <= tol * scale[fin] + tol)
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.array_equal(got[~fin & ~np.isnan(ref)],
                              ref[~fin & ~np.isnan(ref)])
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gm = tl.nanmean(t(x), dim=0).numpy().astype(np.float64)
        np.testing.assert_allclose(gm, mref, rtol=max(tol, 1e-14),
                                   atol=tol)
    old = tl.get_num_threads()
    try:
        outs = []
        for k in (1, 2):
            tl.set_num_threads(k)
            outs.append(tl.nansum(t(a), dim=0).numpy().tobytes())
        assert outs[0] == outs[1]
    finally:
        tl.set_num_threads(old)


@pytest.mark.parametrize("dt", [np.uint8, np.int8, np.uint16, np.int16,
                                np.uint32, np.int32, np.uint64, np.int64])
def test_int_extrema_cols_blocks(dt):
    """Note [Integer extrema blocks in AVX-512]: max/min over far rows of
    every integer width, the extremes of the type included, with column
    counts around the 64-byte step and its portable tail, on views."""
    info = np.iinfo(dt)
    rng = np.random.default_rng(np.dtype(dt).itemsize)
    # rows more than 2 KiB apart take the blocks (closer ones the strips)
    for rows, cols in ((8, 64), (17, 1031), (9, 7), (64, 300), (9, 2100)):
        a = rng.integers(info.min, info.max, (rows, cols), dtype=dt,
                         endpoint=True)
        a[rng.integers(rows), rng.integers(cols)] = info.max
        a[rng.integers(rows), rng.integers(cols)] = info.min
        for x in (a, a[::-1], a[:, 1:], a[1:, :-3]):
            for op, ref in (("amax", np.max), ("amin", np.min)):
                np.testing.assert_array_equal(
                    getattr(tl, op)(t(x), dim=0).numpy(), ref(x, axis=0))
            v, i = tl.max(t(x), dim=0)
            np.testing.assert_array_equal(v.numpy(), x.max(axis=0))


def test_nansum_without_count_rows_and_threads():
    """Note [Nansum without the count]: float32 nansum rows (any length,
    NaNs and infinities anywhere) against a float64 reference, nanmean
    still dividing by the non-NaN count, and the same bits whatever the
    thread count."""
    rng = np.random.default_rng(77)
    for n in (1, 7, 8, 63, 64, 65, 1000, 4099):
        a = rng.standard_normal((5, n)).astype(np.float32)
        a[rng.random((5, n)) < 0.2] = np.nan
        a[3, ::17] = np.inf
        ref = np.nansum(a.astype(np.float64), axis=1)
        got = tl.nansum(t(a), dim=1).numpy().astype(np.float64)
        fin = np.isfinite(ref)
        np.testing.assert_array_equal(got[~fin], ref[~fin])
        bound = 3 * np.finfo(np.float32).eps * np.nansum(
            np.abs(a.astype(np.float64)), axis=1) + 1e-30
        assert np.all(np.abs(got[fin] - ref[fin]) <= bound[fin]), n
        cnt = np.sum(~np.isnan(a), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            want_mean = ref / cnt
        np.testing.assert_allclose(
            tl.nanmean(t(a), dim=1).numpy().astype(np.float64), want_mean,
            rtol=1e-6, atol=1e-6)
    big = rng.standard_normal(1 << 20).astype(np.float32)
    big[rng.random(1 << 20) < 0.1] = np.nan
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        one = tl.nansum(t(big)).item(), tl.nansum(t(big.reshape(64, -1)), 1)
        tl.set_num_threads(2)
        two = tl.nansum(t(big)).item(), tl.nansum(t(big.reshape(64, -1)), 1)
    finally:
        tl.set_num_threads(old)
    assert one[0] == two[0]
    np.testing.assert_array_equal(one[1].numpy(), two[1].numpy())


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nansum_plain_blocks_first(dt):
    """Note [Float32 nansum in lane blocks], plain blocks first (and the
    float64 blocks): a NaN anywhere sums as a +0 there, bit for bit,
    whichever way its block and the blocks after it went (NaN-free blocks
    before and after a NaN block, one NaN, NaN-rich rows, an inf); nanmean
    divides by the count of the rest."""
    rng = np.random.default_rng(91)
    n = 5000  # nine full blocks of 512 floats and a tail
    base = rng.standard_normal((8, n)).astype(dt)
    nan = base.copy()
    nan[1, 2600] = np.nan                      # one NaN, mid-row
    nan[2, [0, 511, 512, 4999]] = np.nan       # block edges and the tail
    nan[3, rng.random(n) < 0.3] = np.nan       # NaN-rich
    nan[4, 100] = np.nan                       # NaN block, then NaN-free
    nan[5, 4000:] = np.nan                     # NaN-free, then all NaN
    nan[6, :] = np.nan
    nan[7, 3000] = np.inf
    nan[7, 10] = np.nan
    zero = np.where(np.isnan(nan), dt(0), nan)
    got = tl.nansum(t(nan), dim=1).numpy()
    want = tl.nansum(t(zero), dim=1).numpy()
    np.testing.assert_array_equal(got, want)
    for r in range(8):  # whole-tensor runs too
        assert tl.nansum(t(nan[r])).item() == tl.nansum(t(zero[r])).item()
    assert got[7] == np.inf
    cnt = np.sum(~np.isnan(nan), axis=1)
    ref = np.nansum(nan.astype(np.float64), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        want_mean = ref / cnt
    np.testing.assert_allclose(tl.nanmean(t(nan), dim=1).numpy(), want_mean,
                               rtol=1e-6, equal_nan=True)


def test_nansum_f64_blocks_without_nan():
    """Note [Nansum blocks without NaN]: float64 rows whose NaNs start the
    masked runs (a NaN block and the 16 blocks of 64 after it), end them,
    start them again, reach the last block or only the tail, or come from
    inf - inf in a NaN-free block: nansum gives the bits of the same row
    with each NaN made +0 (which takes no masked run), whole and per row,
    and nanmean divides by the count of the rest."""
    rng = np.random.default_rng(19)
    n = 64 * 60 + 37
    base = rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))
    places = [[], [5], [64 * 3 + 1, 64 * 21, 64 * 40 + 63],
              [64 * 17 + 2, 64 * 18 + 2], [64 * 59 + 1], [n - 1],
              list(range(0, n, 3)), [64 * 2, 64 * 20 - 1, 64 * 37]]
    rows = []
    for idx in places:
        r = base.copy()
        r[idx] = np.nan
        rows.append(r)
    r = base.copy()
    r[64 * 10], r[64 * 10 + 9] = np.inf, -np.inf   # NaN only in the trees
    rows.append(r)
    r = base.copy()
    r[64 * 2] = np.nan
    r[64 * 30] = np.inf
    rows.append(r)
    a = np.stack(rows)
    zero = np.where(np.isnan(a), 0.0, a)
    # (-inf + inf stays NaN in both)
    zero[len(places), [64 * 10, 64 * 10 + 9]] = np.inf, -np.inf
    got = tl.nansum(t(a), dim=1).numpy()
    want = tl.nansum(t(zero), dim=1).numpy()
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[len(places)]) and got[-1] == np.inf
    for k in range(len(rows)):
        g, w = tl.nansum(t(a[k])).item(), tl.nansum(t(zero[k])).item()
        assert g == w or (np.isnan(g) and np.isnan(w)), k
        cnt = np.count_nonzero(~np.isnan(a[k]))
        m = tl.nanmean(t(a[k])).item()
        if np.isfinite(g):
            assert m == pytest.approx(g / cnt, rel=1e-14), k
    means = tl.nanmean(t(a), dim=1).numpy()
    cnts = np.sum(~np.isnan(a), axis=1)
    fin = np.isfinite(got)
    np.testing.assert_allclose(means[fin], got[fin] / cnts[fin], rtol=1e-14)


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int8, np.int16,
                                np.int32, np.int64, np.float16, np.float32,
                                np.float64, np.complex64])
def test_any_all_blocks_in_one_call(dt):
    """any/all of contiguous runs test blocks of 4 KiB with an early exit
    between them inside one call: the deciding element anywhere (first,
    last of a block, first of the next, the tail), and runs with none.
    Runs of 8 vectors or more test their first vector alone (Note [Any/all
    first vector]), so blocks then end 32 bytes past each 4 KiB."""
    for n in (1, 31, 255, 256, 257, 4095, 4097, 70001):
        positions = {0, n - 1, n // 2}
        for edge in (32, 4096, 4128, 8192, 8224):
            for pos in (edge // np.dtype(dt).itemsize - 1,
                        edge // np.dtype(dt).itemsize):
                if pos < n:
                    positions.add(pos)
        zeros, ones = np.zeros(n, dt), np.ones(n, dt)
        assert not tl.tensor(zeros).any().item()
        assert tl.tensor(ones).all().item()
        for pos in sorted(positions):
            a, b = zeros.copy(), ones.copy()
            a[pos], b[pos] = 1, 0
            assert tl.tensor(a).any().item(), (n, pos)
            assert not tl.tensor(b).all().item(), (n, pos)
            if np.dtype(dt).kind == "f":
                a[pos] = -0.0           # a zero: any stays false
                assert not tl.tensor(a).any().item(), (n, pos)
                b[pos] = np.nan         # nonzero: all stays true
                assert tl.tensor(b).all().item(), (n, pos)


_IPROD_SCRIPT = r"""
import hashlib
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(7)
h = hashlib.sha256()
for dt in (np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32,
           np.uint32, np.int64, np.uint64):
    for shape, dim in (((1,), None), ((15,), None), ((16,), None),
                       ((17,), None), ((1000,), None), ((3, 70001), 1),
                       ((301, 70), 0), ((9, 40, 37), 1), ((5, 33), 0)):
        # odd factors (a zero, or 64 factors of 2, would make the product
        # 0), so the products wrap modulo 2^64 and stay odd; then a few 2s
        vals = [True] if dt == np.bool_ else \
            [-3, -1, 1, 3] if np.issubdtype(dt, np.signedinteger) else \
            [1, 3, 5, 7]
        a = rng.choice(np.array(vals), shape).astype(dt)
        a.reshape(-1)[rng.integers(a.size, size=3)] = \
            (rng.random() < 0.5) if dt == np.bool_ else 2
        x = tl.from_numpy(a)
        for v, nv in ((x, a), (x.flip(-1), a[..., ::-1]),
                      (x[..., ::2], a[..., ::2])):
            got = v.prod() if dim is None else v.prod(dim)
            # NumPy's int64/uint64 products wrap modulo 2^64 as ours do
            want = nv.astype(np.uint64 if dt in (np.uint64,) else
                             np.int64).prod(axis=dim)
            assert np.array_equal(got.numpy().astype(np.uint64),
                                  np.asarray(want).astype(np.uint64)), \
                (dt, shape, dim)
            h.update(got.numpy().tobytes())
print(h.hexdigest())
"""


def test_integer_prod_lanes_every_width():
    """Note [Integer products in vector lanes]: integer products (wrapping
    modulo 2^64, as NumPy's int64 products) in the AVX-512, AVX2 and
    baseline clones, contiguous rows around the 16 lanes and cols, and
    the strided paths: the same bits at every width, equal to NumPy's."""
    out = outputs_at_every_width(_IPROD_SCRIPT)
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["avx2"] == out["auto"]


@pytest.mark.parametrize("shape, dim", [((301, 70), 0), ((8, 5), 0),
                                        ((9, 33), 0), ((17, 300, 37), 1),
                                        ((2000, 3), 0)])
def test_float64_var_cols_blocks_of_8(shape, dim):
    """Note [Float64 var cols in blocks of 8 rows]: var and std over an
    outer or middle dim of float64 against an exact reference (math.fsum
    of the exact mean's squared deviations), within 4 ulp; a large mean
    (the deviations' correction term), views, NaN and inf columns; the
    same bits on one and two threads (every vector width: the test
    below)."""
    from fractions import Fraction
    rng = np.random.default_rng(shape[0])
    a = rng.standard_normal(shape) * 10 + 1e6
    a[(0,) * (len(shape) - 1) + (1,)] = np.nan
    a[(1,) * (len(shape) - 1) + (2,)] = np.inf
    x = t(a)
    old = tl.get_num_threads()
    try:
        got = []
        for nt in (1, 2):
            tl.set_num_threads(nt)
            got.append(x.var(dim, correction=0).numpy())
        assert got[0].tobytes() == got[1].tobytes()
    finally:
        tl.set_num_threads(old)

    def exact(col):
        if not np.all(np.isfinite(col)):
            return np.nan
        fr = [Fraction(float(v)) for v in col]
        mu = sum(fr) / len(fr)
        return float(sum((f - mu) ** 2 for f in fr) / len(fr))
    ref = np.apply_along_axis(exact, dim, a)
    g = got[0]
    assert np.array_equal(np.isnan(g), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert np.all(np.abs(g[ok] - ref[ok]) <= 4 * 2.0 ** -52 * ref[ok])
    s = x.std(dim).numpy()
    np.testing.assert_allclose(s[ok], np.sqrt(ref[ok] * shape[dim] /
                                              (shape[dim] - 1)), rtol=1e-14)
    # a reversed view reads the same columns in the other row order
    r = x.flip(dim).var(dim, correction=0).numpy()
    assert np.all(np.abs(r[ok] - ref[ok]) <= 4 * 2.0 ** -52 * ref[ok])


_VAR64_SCRIPT = r"""
import hashlib
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(8)
h = hashlib.sha256()
for shape, dim in (((301, 70), 0), ((17, 300, 37), 1), ((9, 2049), 0)):
    a = rng.standard_normal(shape) * 3 + 100
    x = tl.from_numpy(a)
    h.update(x.var(dim).numpy().tobytes())
    h.update(x[:, 1:].var(0).numpy().tobytes())
print(h.hexdigest())
"""


def test_float64_var_cols_every_width():
    out = outputs_at_every_width(_VAR64_SCRIPT)
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["avx2"] == out["auto"]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64,
                                np.uint32, np.int8, np.uint16])
def test_extrema_every_start_alignment(dt):
    """Note [Vector loads from aligned addresses]: runs starting at every
    element offset within 64 bytes (the head before the first aligned
    element goes one at a time), with the extreme in the head, in the
    body and in both (the first index wins), and a NaN in the head or
    the body: values and indices as NumPy's."""
    rng = np.random.default_rng(12)
    n = 3000
    if np.issubdtype(dt, np.integer):
        base = rng.integers(0, 50, n + 64).astype(dt)
        hi, lo = np.array(100, dt), np.array(0, dt)
    else:
        base = rng.standard_normal(n + 64).astype(dt)
        hi, lo = np.array(100, dt), np.array(-100, dt)
    step = 64 // np.dtype(dt).itemsize
    for k in range(step + 1):
        for case in ("plain", "head", "body", "both", "nan_head",
                     "nan_body"):
            if case.startswith("nan") and np.issubdtype(dt, np.integer):
                continue
            a = base.copy()
            pos = {"head": [k + 1], "body": [k + 2000],
                   "both": [k + 2, k + 1500], "nan_head": [k + 1],
                   "nan_body": [k + 2500]}.get(case, [])
            for p in pos:
                if case.startswith("nan"):
                    a[p] = np.nan
                else:
                    a[p], a[p + 1] = hi, lo
            v = a[k:]
            y = t(a)[k:]
            assert int(y.argmax()) == int(np.argmax(v)), (k, case)
            assert int(y.argmin()) == int(np.argmin(v)), (k, case)
            if case.startswith("nan"):
                assert np.isnan(float(y.amax())) and np.isnan(float(y.amin()))
            else:
                assert y.amax().item() == v.max() and \
                    y.amin().item() == v.min(), (k, case)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16,
                                np.int32, np.uint32, np.uint8, np.int64,
                                np.uint64, np.uint16, np.int8, np.int16])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lengths", ["tiny", "short"])
def test_tiny_rows_extrema(dt, threads, lengths):
    # Note [Extrema of tiny rows]: rows of 1..16 elements take a loop
    # unrolled per length (1..8 for argmax/argmin), longer rows the
    # vector pass.  Few distinct values (ties in most rows), signed zeros,
    # NaNs in some rows at every position, unaligned data, a column step
    # (argmax's strided rows) and enough rows that a run is cut between
    # threads; values and first indices as NumPy's.  "short": the AVX2
    # short rows of argmax/argmin (Note [Argmax of short rows]), one vector
    # to SROW_MAX vectors, lengths around the vector steps.
    rng = np.random.default_rng(np.dtype(dt).itemsize * 100 + threads)
    old = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        ns = (range(1, 18) if lengths == "tiny" else
              (3, 4, 5, 15, 16, 17, 31, 32, 33, 40, 63, 65, 255, 257, 1023,
               2048, 4095, 4096, 4097))
        for n in ns:
            # in one thread, tiny rows past 1 MiB: they prefetch ahead
            big = lengths == "tiny" and threads == 1
            m = max(8, ((1 << 20) // np.dtype(dt).itemsize + 4096) // n
                    if big else 40000 // n)
            if np.issubdtype(dt, np.integer):
                a = rng.integers(0, 4, (m, n)).astype(dt)
            else:
                a = rng.choice(np.array([-1.0, -0.0, 0.0, 2.0], dtype=dt),
                               (m, n))
                rows = rng.choice(m, m // 20, replace=False)
                a[rows, rng.integers(0, n, rows.size)] = np.nan
            # the same values at an odd byte address
            buf = np.zeros(a.nbytes + 1, dtype=np.uint8)
            ua = np.frombuffer(buf.data, dtype=dt, count=a.size,
                               offset=1).reshape(m, n)
            ua[...] = a
            wide = np.repeat(a, 2, axis=1)
            for name, src, view in (("contig", a, np.s_[:, :]),
                                    ("unaligned", ua, np.s_[:, :]),
                                    ("rows", a, np.s_[3::2, :]),
                                    ("colstep", wide, np.s_[:, ::2])):
                x = tl.from_numpy(src)[view]
                av = src[view]
                for op, ref in (("amax", np.max), ("amin", np.min)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = ref(av, axis=1)
                    np.testing.assert_array_equal(
                        getattr(x, op)(dim=1).numpy(), want,
                        err_msg=f"{op} n={n} {name}")
                for op in ("argmax", "argmin"):
                    np.testing.assert_array_equal(
                        getattr(x, op)(dim=1).numpy(),
                        getattr(av, op)(axis=1),
                        err_msg=f"{op} n={n} {name}")
                vals, idx = x.max(dim=1)
                np.testing.assert_array_equal(idx.numpy(), av.argmax(axis=1),
                                              err_msg=f"max n={n} {name}")
                np.testing.assert_array_equal(
                    vals.numpy(), np.take_along_axis(
                        av, av.argmax(axis=1)[:, None], 1)[:, 0])
    finally:
        tl.set_num_threads(old)


def _first_extreme(v, axis_fn):
    """The rule of Note [Which zero an extreme is]: the first NaN of a row
    with one, else the first element equal to the row's extreme."""
    out = np.empty(v.shape[0], dtype=v.dtype)
    for j, row in enumerate(v):
        nan = np.flatnonzero(np.isnan(row))
        out[j] = row[nan[0]] if nan.size else \
            row[np.flatnonzero(row == axis_fn(row))[0]]
    return out


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 2])
def test_extreme_zero_is_first_at_every_address(dt, threads):
    # Note [Which zero an extreme is]: amax/amin/max/min/aminmax of rows
    # whose extreme is a zero of both signs answer the first such zero, bit for
    # bit, at every element offset of the data (the vector pass's alignment
    # head moves with the address), whole or over the last dim, in one
    # thread or two; the bits compared, since -0.0 == 0.0.
    rng = np.random.default_rng(17 + threads)
    old = tl.get_num_threads()
    tl.set_num_threads(threads)
    bits = np.uint32 if dt == np.float32 else np.uint64
    try:
        for n in (5, 16, 17, 31, 33, 64, 65, 127, 129, 1000, 4099, 70001):
            m = 1 if n > 5000 else 24
            for case in ("max0", "min0", "nan"):
                mag = np.abs(rng.standard_normal((m, n))).astype(dt) + 1
                a = -mag if case == "max0" else mag
                z = rng.random((m, n)) < 0.3
                a[z] = rng.choice(np.array([0.0, -0.0], dtype=dt), z.sum())
                if case == "nan":
                    a[:, rng.integers(n)] = np.nan
                for off in range(8):
                    buf = np.zeros(m * n + 8, dtype=dt)
                    x = buf[off:off + m * n].reshape(m, n)
                    x[...] = a
                    t = tl.from_numpy(x)
                    for op, fn in (("amax", np.max), ("amin", np.min)):
                        want = _first_extreme(x, fn).view(bits)
                        got = getattr(t, op)(dim=1).numpy().view(bits)
                        np.testing.assert_array_equal(
                            got, want, err_msg=f"{op} n={n} {case} off={off}")
                        one = getattr(t[m // 2], op)().numpy()
                        assert one.view(bits) == want[m // 2], \
                            (op, n, case, off)
                        short = "max" if op == "amax" else "min"
                        one = getattr(t[m // 2], short)().numpy()
                        assert one.view(bits) == want[m // 2], \
                            (short, n, case, off)
                        for r in (tl.aminmax(t[m // 2]),
                                  t.aminmax(dim=1)):
                            got = getattr(r, short).numpy().view(bits)
                            np.testing.assert_array_equal(
                                got.reshape(-1),
                                want[m // 2:m // 2 + 1] if got.size == 1
                                else want,
                                err_msg=f"aminmax n={n} {case} off={off}")
    finally:
        tl.set_num_threads(old)
