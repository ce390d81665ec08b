"""tensorlib.linalg against NumPy (float64 reference; tolerances scaled by
size and condition number) and PyTorch (result dtypes, refusals):
batched, real and complex, transposed / flipped / broadcast / empty
inputs; LinAlgError naming the batch element; operands unchanged after a
failure; a leak loop."""
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import outputs_at_every_width, rng_for

LA = tl.linalg
DTS = [tl.float32, tl.float64, tl.complex64, tl.complex128]
NPDT = {tl.float32: np.float32, tl.float64: np.float64,
        tl.complex64: np.complex64, tl.complex128: np.complex128}
EPS = {tl.float32: 1.2e-7, tl.complex64: 1.2e-7, tl.float64: 2.3e-16,
       tl.complex128: 2.3e-16}


def rand(rng, shape, dt):
    x = rng.standard_normal(shape)
    if dt in (tl.complex64, tl.complex128):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(NPDT[dt])


def well(rng, shape, dt):
    """Well-conditioned square matrices: random + n * I."""
    n = shape[-1]
    return (rand(rng, shape, dt) + n * np.eye(n)).astype(NPDT[dt])


def spd(rng, shape, dt):
    a = rand(rng, shape, dt)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)) \
        .astype(NPDT[dt])


def T(x):
    return tl.tensor(x)


def close(got, want, dt, scale=1.0):
    got = got.numpy() if isinstance(got, tl.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.size == 0:
        return
    n = max(want.shape[-1] if want.ndim else 1, 1)
    tol = EPS[dt] * 50 * n * scale * (np.abs(want).max() + 1)
    np.testing.assert_allclose(got.astype(np.complex128),
                               want.astype(np.complex128), atol=tol,
                               rtol=0)


def variants(t):
    """t, a transposed-layout copy, a flipped-layout copy."""
    return [t, t.mT.contiguous().mT, t.flip(-1).contiguous().flip(-1)]


SHAPES = [(4, 4), (3, 5, 5), (2, 2, 3, 3), (1, 1), (0, 3, 3)]


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_det_slogdet(dt, shape):
    rng = rng_for("solve", dt, shape)
    a = well(rng, shape, dt)
    b = rand(rng, shape[:-1] + (2,), dt)
    for ta in variants(T(a)):
        close(LA.solve(ta, T(b)), np.linalg.solve(a.astype(np.complex128),
                                                  b), dt)
        close(LA.inv(ta), np.linalg.inv(a.astype(np.complex128)), dt)
        close(LA.det(ta), np.linalg.det(a.astype(np.complex128)), dt,
              scale=shape[-1] ** 2)
        s, l = LA.slogdet(ta)
        ws, wl = np.linalg.slogdet(a.astype(np.complex128))
        close(s, ws, dt)
        close(l, wl, dt)
        assert LA.inv(ta).dtype == dt
        assert l.dtype == {tl.complex64: tl.float32,
                           tl.complex128: tl.float64}.get(dt, dt)


def test_solve_vector_broadcast_and_left():
    rng = rng_for("solve2")
    a = well(rng, (3, 4, 4), tl.float64)
    b = rand(rng, (4,), tl.float64)
    close(LA.solve(T(a), T(b)), np.linalg.solve(a, b[None, :, None])[..., 0]
          .reshape(3, 4), tl.float64)
    b2 = rand(rng, (2, 1, 4, 3), tl.float64)
    close(LA.solve(T(a), T(b2)), np.linalg.solve(a, b2), tl.float64)
    b3 = rand(rng, (3, 2, 4), tl.float64)
    close(LA.solve(T(a), T(b3), left=False),
          np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2),
                                      np.swapaxes(b3, -1, -2)), -1, -2),
          tl.float64)


def test_singular_matrices_raise_linalg_error():
    assert issubclass(LA.LinAlgError, ValueError)
    assert issubclass(LA.LinAlgError, RuntimeError)
    a = np.stack([np.eye(3), np.zeros((3, 3))])
    ta = T(a)
    before = ta.clone()
    with pytest.raises(LA.LinAlgError, match=r"batch element \(1,\)"):
        LA.inv(ta)
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve(ta, tl.ones(2, 3, 1, dtype=tl.float64))
    assert tl.eq(ta, before).all()
    assert LA.det(ta).tolist() == [1.0, 0.0]
    s, l = LA.slogdet(ta)
    assert s.tolist() == [1.0, 0.0] and l.tolist()[1] == float("-inf")
    with pytest.raises(LA.LinAlgError, match="positive-definite"):
        LA.cholesky(T(-np.eye(3)))


def test_nan_input_is_nan_or_error():
    a = T(np.full((3, 3), np.nan))
    for f in (LA.inv, LA.svdvals, LA.eigvalsh, LA.eigvals, LA.det):
        try:
            r = f(a)
        except (LA.LinAlgError, ValueError):
            continue
        assert r.isnan().any()


@pytest.mark.parametrize("dt", DTS)
def test_cholesky_eigh_eigvalsh(dt):
    rng = rng_for("chol", dt)
    a = spd(rng, (3, 4, 4), dt)
    for ta in variants(T(a)):
        L = LA.cholesky(ta)
        close(L, np.linalg.cholesky(a.astype(np.complex128)), dt, 10)
        U = LA.cholesky(ta, upper=True)
        close(U, np.conj(np.swapaxes(np.linalg.cholesky(
            a.astype(np.complex128)), -1, -2)), dt, 10)
        w, V = LA.eigh(ta)
        close(w, np.linalg.eigvalsh(a.astype(np.complex128)), dt, 10)
        assert w.dtype == {tl.complex64: tl.float32,
                           tl.complex128: tl.float64}.get(dt, dt)
        rec = (V.numpy() * w.numpy()[..., None, :]) @ \
            np.conj(np.swapaxes(V.numpy(), -1, -2))
        close(rec, a, dt, 10)
        close(LA.eigvalsh(ta, UPLO="U"),
              np.linalg.eigvalsh(a.astype(np.complex128), UPLO="U"), dt, 10)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3),
                                   (2, 3, 0)])
def test_qr_svd(dt, shape):
    rng = rng_for("qr", dt, shape)
    a = rand(rng, shape, dt)
    ta = T(a)
    for mode in ("reduced", "complete"):
        Q, R = LA.qr(ta, mode=mode)
        wq, wr = np.linalg.qr(a.astype(np.complex128), mode=mode)
        assert tuple(Q.shape) == wq.shape and tuple(R.shape) == wr.shape
        close(Q.numpy() @ R.numpy(), a, dt, 10)
        if Q.numel():
            eye = np.conj(np.swapaxes(Q.numpy(), -1, -2)) @ Q.numpy()
            close(eye, np.broadcast_to(np.eye(Q.shape[-1]), eye.shape), dt,
                  10)
    for full in (True, False):
        U, S, Vh = LA.svd(ta, full_matrices=full)
        wu, ws, wv = np.linalg.svd(a.astype(np.complex128),
                                   full_matrices=full)
        assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == \
            (wu.shape, ws.shape, wv.shape)
        close(S, ws, dt, 10)
        k = min(shape[-2:])
        close((U.numpy()[..., :k] * S.numpy()[..., None, :]) @
              Vh.numpy()[..., :k, :], a, dt, 10)
    close(LA.svdvals(ta), np.linalg.svd(a.astype(np.complex128),
                                        compute_uv=False), dt, 10)


@pytest.mark.parametrize("dt", DTS)
def test_eig_eigvals(dt):
    rng = rng_for("eig", dt)
    a = rand(rng, (2, 5, 5), dt)
    w, V = LA.eig(T(a))
    assert w.dtype == V.dtype == {tl.float32: tl.complex64,
                                  tl.float64: tl.complex128}.get(dt, dt)
    # A V = V diag(w)
    close(a @ V.numpy(), V.numpy() * w.numpy()[..., None, :], dt, 100)
    got = LA.eigvals(T(a)).numpy().astype(np.complex128)
    want = np.linalg.eigvals(a.astype(np.complex128))
    # the same multiset: every wanted value has a close one (order may
    # differ between LAPACK builds for near-equal real parts)
    dist = np.abs(got[..., :, None] - want[..., None, :]).min(-1)
    assert dist.max() < EPS[dt] * 1e4


@pytest.mark.parametrize("dt", DTS)
def test_lu_family(dt):
    rng = rng_for("lu", dt)
    for shape in [(4, 4), (2, 5, 3), (3, 5)]:
        a = rand(rng, shape, dt)
        P, L, U = LA.lu(T(a))
        close(P.numpy() @ L.numpy() @ U.numpy(), a, dt, 10)
        LU, piv = LA.lu_factor(T(a))
        assert piv.dtype == tl.int32
    a = well(rng, (2, 4, 4), dt)
    b = rand(rng, (2, 4, 3), dt)
    LU, piv = LA.lu_factor(T(a))
    close(LA.lu_solve(LU, piv, T(b)), np.linalg.solve(a, b), dt, 10)
    ah = np.conj(np.swapaxes(a, -1, -2))
    close(LA.lu_solve(LU, piv, T(b), adjoint=True), np.linalg.solve(ah, b),
          dt, 10)
    b2 = rand(rng, (2, 3, 4), dt)
    want = np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2),
                                       np.swapaxes(b2, -1, -2)), -1, -2)
    close(LA.lu_solve(LU, piv, T(b2), left=False), want, dt, 10)


@pytest.mark.parametrize("dt", DTS)
def test_solve_triangular_lstsq_pinv_rank_power(dt):
    rng = rng_for("tri", dt)
    a = np.triu(well(rng, (2, 4, 4), dt))
    b = rand(rng, (2, 4, 3), dt)
    close(LA.solve_triangular(T(a), T(b), upper=True),
          np.linalg.solve(a, b), dt, 10)
    lo = np.swapaxes(a, -1, -2).copy()
    close(LA.solve_triangular(T(lo), T(b), upper=False),
          np.linalg.solve(lo, b), dt, 10)
    b2 = rand(rng, (2, 3, 4), dt)
    close(LA.solve_triangular(T(a), T(b2), upper=True, left=False),
          b2 @ np.linalg.inv(a), dt, 10)
    m = rand(rng, (6, 3), dt)
    y = rand(rng, (6, 2), dt)
    r = LA.lstsq(T(m), T(y))
    want = np.linalg.lstsq(m.astype(np.complex128), y, rcond=None)
    close(r.solution, want[0], dt, 10)
    close(r.residuals, want[1], dt, 10)
    assert int(r.rank) == want[2]
    close(LA.pinv(T(m)), np.linalg.pinv(m.astype(np.complex128)), dt, 10)
    low = (rand(rng, (5, 2), dt) @ rand(rng, (2, 4), dt))
    assert int(LA.matrix_rank(T(low))) == 2
    sq = rand(rng, (3, 3), dt) / 2
    for n in (0, 1, 2, 5, -2):
        close(LA.matrix_power(T(sq + 2 * np.eye(3, dtype=sq.dtype)), n),
              np.linalg.matrix_power((sq + 2 * np.eye(3)).astype(
                  np.complex128), n), dt, 100)


@pytest.mark.parametrize("dt", DTS)
def test_norms(dt):
    rng = rng_for("norm", dt)
    x = rand(rng, (3, 4), dt)
    for ordv in (2, 1, float("inf"), float("-inf"), 0, 3.5):
        close(LA.vector_norm(T(x), ordv),
              np.linalg.norm(x.reshape(-1), ordv), dt, 10)
        close(LA.vector_norm(T(x), ordv, dim=1, keepdim=True),
              np.linalg.norm(x, ordv, axis=1, keepdims=True), dt, 10)
    for ordm in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        close(LA.matrix_norm(T(x), ordm), np.linalg.norm(x, ordm), dt, 10)
    close(LA.norm(T(x)), np.linalg.norm(x), dt, 10)
    close(tl.norm(T(x), dim=1), np.linalg.norm(x, axis=1), dt, 10)
    close(tl.norm(T(x), p=1, dim=0), np.linalg.norm(x, 1, axis=0), dt, 10)
    close(T(x).norm(), np.linalg.norm(x), dt, 10)
    y = rand(rng, (3, 4), dt)
    close(LA.vecdot(T(x), T(y)), np.sum(np.conj(x) * y, -1), dt, 10)
    assert LA.diagonal(T(x)).tolist() == T(np.diagonal(x)).tolist()


def test_dtypes_and_refusals_follow_torch(torch):
    for f in ("inv", "det", "cholesky", "svdvals", "eigvalsh"):
        with pytest.raises(RuntimeError):
            getattr(torch.linalg, f)(torch.eye(3, dtype=torch.int64))
        with pytest.raises(TypeError):
            getattr(LA, f)(tl.ones(3, 3, dtype=tl.int64))
    for f in ("inv", "det", "eigvals"):
        with pytest.raises(RuntimeError):
            getattr(torch.linalg, f)(torch.ones(2, 3))
        with pytest.raises(tl.ShapeError):
            getattr(LA, f)(tl.ones(2, 3))
    with pytest.raises(RuntimeError):
        torch.linalg.solve(torch.eye(3), torch.ones(4))
    with pytest.raises(tl.ShapeError, match=r"\[3, 3\].*\[4\]"):
        LA.solve(tl.ones(3, 3), tl.ones(4))
    with pytest.raises(RuntimeError):
        torch.linalg.solve(torch.eye(3), torch.ones(3, dtype=torch.float64))
    with pytest.raises(TypeError):
        LA.solve(tl.ones(3, 3), tl.ones(3, dtype=tl.float64))
    # result dtypes
    t = torch.eye(3, dtype=torch.complex64)
    assert str(torch.linalg.svdvals(t).dtype) == "torch.float32"
    assert LA.svdvals(tl.tensor(np.eye(3, dtype=np.complex64))).dtype == \
        tl.float32
    assert str(torch.linalg.eigvals(torch.eye(2)).dtype) == \
        "torch.complex64"
    assert LA.eigvals(tl.tensor(np.eye(2, dtype=np.float32))).dtype == \
        tl.complex64
    assert str(torch.linalg.lu_factor(torch.eye(2))[1].dtype) == \
        "torch.int32"


def test_out_arguments():
    a = tl.tensor(np.eye(3) * 2)
    out = tl.empty(0, dtype=tl.float64)
    assert LA.inv(a, out=out) is out
    assert out.tolist()[0][0] == 0.5
    with pytest.raises(TypeError):
        LA.inv(a, out=tl.empty(3, 3))


def test_leak_loop_flat():
    rng = np.random.default_rng(1)
    a = T(well(rng, (2, 4, 4), tl.float64))
    s = T(spd(rng, (4, 4), tl.float64))

    def rnd():
        LA.inv(a)
        LA.solve(a, a)
        LA.det(a)
        LA.cholesky(s)
        LA.qr(a)
        LA.svd(a)
        LA.eigh(s)
        LA.eig(a)
        LA.lstsq(a, a)
        try:
            LA.inv(tl.zeros(2, 2, dtype=tl.float64))
        except LA.LinAlgError:
            pass
    for _ in range(10):
        rnd()
    gc.collect()
    refs = [sys.getrefcount(o) for o in (a, s)]
    stats = tl.memory_stats()
    for _ in range(60):
        rnd()
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in (a, s)] == refs
    assert after["active_bytes"] == stats["active_bytes"]


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64",
                                "complex64", "complex128"])
def test_vector_norm_2_one_pass(dt):
    """vector_norm(ord=2) in one pass (Note [The 2-norm as var's second
    pass]): within one rounding of the float64 (complex128) norm of the
    same values, NaN and infinities propagating, over every dim choice
    and keepdim, on a view; a real result dtype; 0 over an empty dim; and
    no overflow in the squares of float32 values past 1.8e19."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 7, 5))
    if dt.startswith("complex"):
        a = a + 1j * rng.standard_normal(a.shape)
    a[0, 0, 0], a[1, 2, 3], a[2, 1, 0] = np.nan, -np.inf, -0.0
    x = tl.tensor(a).to(getattr(tl, dt))[:, ::2]
    v = x.to(tl.complex128 if dt.startswith("complex") else
             tl.float64).numpy()
    real = {"complex64": tl.float32, "complex128": tl.float64}.get(
        dt, getattr(tl, dt))
    eps = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24,
           "complex64": 2.0 ** -24}.get(dt, 2.0 ** -52)
    for dim in (None, 0, 1, (0, 2), (-1,)):
        for keepdim in (False, True):
            kw = {"dim": dim} if dim is not None else {}
            got = tl.linalg.vector_norm(x, 2, keepdim=keepdim, **kw)
            axis = dim if dim is not None else (0, 1, 2)
            with np.errstate(invalid="ignore"):
                ref = np.sqrt((np.abs(v) ** 2).sum(axis=axis,
                                                   keepdims=keepdim))
            assert got.dtype == real and tuple(got.shape) == ref.shape
            g = got.to(tl.float64).numpy()
            assert np.array_equal(np.isnan(g), np.isnan(ref))
            fin = np.isfinite(ref)
            assert np.array_equal(g[~fin & ~np.isnan(ref)],
                                  ref[~fin & ~np.isnan(ref)])
            assert np.all(np.abs(g[fin] - ref[fin]) <= 2 * eps * ref[fin]), \
                (dim, keepdim)
    e = tl.linalg.vector_norm(tl.zeros((3, 0), dtype=real), dim=1)
    assert e.tolist() == [0.0, 0.0, 0.0]
    if dt == "float32":
        big = tl.tensor([1e20, 3e20], dtype=tl.float32)
        assert abs(float(tl.linalg.vector_norm(big)) - 10 ** 0.5 * 1e20) \
            <= 1e14
    if dt == "float16":  # x * x in float16 overflowed past 256
        h = tl.tensor([300.0, 400.0], dtype=tl.float16)
        assert float(tl.linalg.vector_norm(h)) == 500.0


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape, dim", [((100003,), None), ((7, 33), 1),
                                        ((3, 70001), 1), ((301, 70), 0),
                                        ((5000, 9), 0), ((9, 300, 37), 1),
                                        ((6, 2000, 130), 1),
                                        ((40, 8, 2100), 1)])
def test_vector_norm_2_lanes_strips_and_blocks(dt, shape, dim):
    """The norm's own kernels (Note [Norm rows without the deviations]):
    rows in 32 float64 lanes, far rows in blocks of 8, close rows in the
    squared strips.  Against math.fsum of the exact squares: float32
    within one rounding of the float32 result, float64 within 2^-47
    (NumPy's dot sums n / 16 squares a lane); the same bits on one and two
    threads; views (reversed, strided) and keepdim alike."""
    import math
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) * 3).astype(dt)
    tol = 2.0 ** -23 if dt == "float32" else 2.0 ** -47
    old = tl.get_num_threads()
    try:
        t = tl.tensor(a)
        for x, v in ((t, a), (t.flip(0), a[::-1]), (t[..., ::2], a[..., ::2])):
            kw = {} if dim is None else {"dim": dim}
            got = []
            for n in (1, 2):
                tl.set_num_threads(n)
                got.append(tl.linalg.vector_norm(x, **kw).numpy())
            assert got[0].tobytes() == got[1].tobytes()
            vv = np.asarray(v, np.float64)
            if dim is None:
                ref = np.array(math.sqrt(math.fsum((vv * vv).ravel())))
            else:
                ref = np.sqrt(np.apply_along_axis(
                    lambda c: math.fsum(c * c), dim, vv))
            g = got[0].astype(np.float64)
            assert np.all(np.abs(g - ref) <= tol * ref), (np.max(
                np.abs(g - ref) / ref), x.stride())
            k = tl.linalg.vector_norm(x, keepdim=True, **kw)
            assert k.numpy().reshape(got[0].shape).tobytes() == \
                got[0].tobytes()
    finally:
        tl.set_num_threads(old)


_NORM_LEVELS = r"""
import hashlib
import numpy as np
import tensorlib as tl
rng = np.random.default_rng(4)
h = hashlib.sha256()
for dt in (np.float32, np.float64):
    for shape, dim in (((100003,), None), ((3, 70001), 1), ((301, 70), 0),
                       ((9, 300, 37), 1), ((6, 2000, 130), 1)):
        a = rng.standard_normal(shape).astype(dt)
        kw = {} if dim is None else {"dim": dim}
        h.update(tl.linalg.vector_norm(tl.tensor(a), **kw).numpy().tobytes())
print(h.hexdigest())
"""


def test_vector_norm_2_same_bits_every_vector_width():
    """The AVX-512 and AVX2 (fused multiply-add) and baseline clones of
    the norm's kernels give the same bits (TENSORLIB_VECMATH caps them)."""
    out = outputs_at_every_width(_NORM_LEVELS)
    assert len(out["auto"]) == 64
    assert out["baseline"] == out["avx2"] == out["auto"]
