"""matmul / @ and the matrix products built on it (mm, bmm, mv, dot, vdot,
inner, outer, addmm, addmv, addbmm, baddbmm, tensordot, kron, trace,
cross): values against NumPy (float64 reference, tolerances scaled by the
contracted size), dtypes and refusals against PyTorch, on random shapes,
batch broadcasts, transposed / sliced / flipped / expanded / empty
operands; the OpenBLAS thread count, fork, and a leak loop."""
import gc
import os
import sys

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import ALL, NAME, rng_for

FLOATC = [tl.float32, tl.float64, tl.complex64, tl.complex128]
EPS = {tl.float32: 1.2e-7, tl.complex64: 1.2e-7, tl.float64: 2.3e-16,
       tl.complex128: 2.3e-16, tl.float16: 1e-3, tl.bfloat16: 8e-3}


def rand(rng, shape, dt):
    if dt == tl.bool:
        return rng.integers(0, 2, shape).astype(bool)
    if dt in (tl.complex64, tl.complex128):
        return (rng.standard_normal(shape) +
                1j * rng.standard_normal(shape)).astype(NAME[dt])
    if dt in (tl.float16, tl.bfloat16, tl.float32, tl.float64):
        x = rng.standard_normal(shape)
        if dt == tl.bfloat16:
            return tl.tensor(x.astype(np.float32)).to(tl.bfloat16).float() \
                .numpy()
        return x.astype(NAME[dt])
    info = np.iinfo(NAME[dt])
    return rng.integers(info.min, info.max, shape, dtype=NAME[dt],
                        endpoint=True)


def T(x, dt=None):
    t = tl.tensor(x)
    return t.to(dt) if dt is not None else t


def np_of(t):
    if t.dtype == tl.bfloat16:
        return t.float().numpy()
    return t.numpy()


def check_close(got, want, dt, k):
    got = np_of(got).astype(np.complex128)
    want = np.asarray(want).astype(np.complex128)
    assert got.shape == want.shape
    if want.size == 0:
        return
    tol = EPS[dt] * (k + 2) * 4 * (np.abs(want).max() + 1)
    np.testing.assert_allclose(got, want, atol=tol, rtol=0)


SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
          ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((2, 1, 2, 3),
                                                      (4, 3, 5)),
          ((4,), (2, 4, 3)), ((2, 4, 3), (3,)), ((0, 3), (3, 4)),
          ((2, 0), (0, 4)), ((3, 2, 0, 4), (4, 5)), ((1, 7), (7, 1)),
          ((64, 65), (65, 63))]


@pytest.mark.parametrize("dt", FLOATC)
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_float_shapes(dt, sa, sb):
    rng = rng_for("mm", dt, sa, sb)
    a, b = rand(rng, sa, dt), rand(rng, sb, dt)
    r = T(a) @ T(b)
    assert r.dtype == dt
    check_close(r, np.matmul(a.astype(np.complex128),
                             b.astype(np.complex128)), dt, sa[-1])


def _layouts(t):
    """The same values in several layouts: contiguous, transposed copy,
    sliced, flipped, and an expanded (stride-0) form where possible."""
    out = [("contig", t)]
    if t.ndim >= 2:
        tt = t.mT.contiguous().mT
        out.append(("transposed", tt))
        big = tl.zeros(*t.shape[:-1], t.shape[-1] * 2, dtype=t.dtype)
        big[..., ::2].copy_(t)
        out.append(("sliced", big[..., ::2]))
        out.append(("flipped", t.flip(-1).contiguous().flip(-1)))
        out.append(("flipped_rows", t.flip(-2).contiguous().flip(-2)))
    return out


@pytest.mark.parametrize("dt", FLOATC + [tl.int32, tl.float16])
def test_matmul_layouts(dt):
    rng = rng_for("layouts", dt)
    a = rand(rng, (3, 17, 9), dt)
    b = rand(rng, (9, 11), dt)
    want = np.matmul(a.astype(np.complex128), b.astype(np.complex128))
    if dt == tl.int32:
        want = np.matmul(a, b)
    if dt == tl.float16:
        want = np.matmul(a.astype(np.float32), b.astype(np.float32)) \
            .astype(np.float16)
    for na, ta in _layouts(T(a)):
        for nb, tb in _layouts(T(b)):
            r = ta @ tb
            if dt == tl.int32:
                assert np.array_equal(r.numpy(), want), (na, nb)
            elif dt == tl.float16:
                np.testing.assert_allclose(r.numpy().astype(np.float32),
                                           want.astype(np.float32),
                                           rtol=2e-3, atol=2e-3)
            else:
                check_close(r, want, dt, 9)


def test_matmul_broadcast_operand_expanded():
    rng = rng_for("expanded")
    a = rand(rng, (1, 5, 4), tl.float64)
    b = rand(rng, (4, 3), tl.float64)
    ta = T(a).expand(6, 5, 4)        # batch stride 0
    tb = T(b[:, :1]).expand(4, 3)    # column stride 0
    check_close(ta @ tb, np.matmul(np.broadcast_to(a, (6, 5, 4)),
                                   np.broadcast_to(b[:, :1], (4, 3))),
                tl.float64, 4)


@pytest.mark.parametrize("dt", [d for d in ALL if d not in FLOATC])
def test_matmul_every_other_dtype(dt):
    rng = rng_for("dtypes", dt)
    a, b = rand(rng, (2, 5, 70), dt), rand(rng, (70, 3), dt)
    r = T(a, dt) @ T(b, dt)
    assert r.dtype == dt
    if dt in (tl.float16, tl.bfloat16):
        # float32 accumulation, one rounding
        want = np.matmul(a.astype(np.float32), b.astype(np.float32))
        want = np_of(tl.tensor(want).to(dt))
        np.testing.assert_allclose(np_of(r), want, rtol=1e-2, atol=1e-2)
    else:
        # integers wrap exactly (NumPy's own integer matmul wraps too);
        # bool is any(a & b)
        assert np.array_equal(r.numpy(), np.matmul(a, b))


def test_matmul_int64_wraps():
    a = tl.tensor([[2 ** 62, 2 ** 62]], dtype=tl.int64)
    b = tl.tensor([[2], [2]], dtype=tl.int64)
    assert (a @ b).tolist() == [[0]]
    u = tl.tensor([[255, 255]], dtype=tl.uint8)
    assert (u @ tl.tensor([[255], [1]], dtype=tl.uint8)).tolist() == \
        [[(255 * 255 + 255) % 256]]


def test_matmul_dtypes_and_errors_follow_torch(torch):
    for dt in [tl.int8, tl.uint8, tl.int16, tl.int32, tl.int64,
               tl.float16, tl.bfloat16, tl.float32, tl.float64,
               tl.complex64, tl.complex128]:
        tdt = getattr(torch, NAME[dt])
        r = torch.ones(2, 3, dtype=tdt) @ torch.ones(3, 2, dtype=tdt)
        assert NAME[dt] == str(r.dtype).split(".")[-1]
        assert (tl.ones(2, 3, dtype=dt) @ tl.ones(3, 2, dtype=dt)).dtype \
            == dt
    # mixed dtypes: refused by both
    with pytest.raises(RuntimeError):
        torch.ones(2, 3) @ torch.ones(3, 2, dtype=torch.float64)
    with pytest.raises(TypeError, match="float32 and float64"):
        tl.ones(2, 3) @ tl.ones(3, 2, dtype=tl.float64)
    with pytest.raises(RuntimeError):
        torch.ones(2, 3) @ torch.ones(4, 2)
    with pytest.raises(tl.ShapeError, match=r"\[2, 3\] and \[4, 2\]"):
        tl.ones(2, 3) @ tl.ones(4, 2)
    with pytest.raises(RuntimeError):
        torch.matmul(torch.ones(()), torch.ones(3))
    with pytest.raises(tl.ShapeError):
        tl.matmul(tl.ones(()), tl.ones(3))
    with pytest.raises(RuntimeError):
        torch.ones(2, 2, 3) @ torch.ones(3, 3, 4)
    with pytest.raises(tl.ShapeError, match="batch"):
        tl.ones(2, 2, 3) @ tl.ones(3, 3, 4)
    with pytest.raises(TypeError):
        tl.ones(2, 2) @ [[1, 2], [3, 4]]


def test_matmul_out():
    rng = rng_for("out")
    a, b = rand(rng, (4, 5), tl.float64), rand(rng, (5, 3), tl.float64)
    want = a @ b
    out = tl.empty(4, 3, dtype=tl.float64)
    v = out._version
    r = tl.matmul(T(a), T(b), out=out)
    assert r is out and out._version > v
    check_close(out, want, tl.float64, 5)
    # a non-contiguous out
    big = tl.zeros(3, 4, dtype=tl.float64)
    tl.matmul(T(a), T(b), out=big.t())
    check_close(big.t(), want, tl.float64, 5)
    # an empty out is resized
    e = tl.empty(0, dtype=tl.float64)
    tl.matmul(T(a), T(b), out=e)
    assert tuple(e.shape) == (4, 3)
    # refusals leave out unchanged
    keep = tl.zeros(4, 3)
    with pytest.raises(TypeError, match="dtype"):
        tl.matmul(T(a), T(b), out=keep)
    keep2 = tl.zeros(4, 4, dtype=tl.float64)
    with pytest.raises(tl.ShapeError):
        tl.matmul(T(a), T(b), out=keep2)
    assert keep.tolist() == [[0.0] * 3] * 4
    assert not keep2.any()


def test_matmul_out_aliases_input_and_imatmul():
    rng = rng_for("alias")
    a = rand(rng, (4, 4), tl.float64)
    ta = T(a)
    tl.matmul(ta, ta, out=ta)
    check_close(ta, a @ a, tl.float64, 4)
    tb = T(a)
    c = tb
    tb @= T(a)
    assert tb is c
    check_close(tb, a @ a, tl.float64, 4)
    with pytest.raises(tl.ShapeError):
        x = tl.ones(4, 4, dtype=tl.float64)
        x @= tl.ones(4, 2, dtype=tl.float64)


def test_rmatmul_and_method():
    a, b = tl.ones(2, 3), tl.ones(3)
    assert (a @ b).tolist() == [3.0, 3.0]
    assert a.matmul(b).tolist() == [3.0, 3.0]
    assert b.__rmatmul__(a).tolist() == [3.0, 3.0]


# ---- the other products --------------------------------------------------

def test_mm_bmm_mv_dot_vdot():
    rng = rng_for("prods")
    a, b = rand(rng, (4, 5), tl.complex128), rand(rng, (5, 3), tl.complex128)
    check_close(tl.mm(T(a), T(b)), a @ b, tl.complex128, 5)
    check_close(T(a).mm(T(b)), a @ b, tl.complex128, 5)
    x, y = rand(rng, (3, 4, 5), tl.float32), rand(rng, (3, 5, 2), tl.float32)
    check_close(tl.bmm(T(x), T(y)), x @ y, tl.float32, 5)
    v = rand(rng, (5,), tl.complex128)
    check_close(tl.mv(T(a), T(v)), a @ v, tl.complex128, 5)
    w = rand(rng, (5,), tl.complex128)
    check_close(tl.dot(T(v), T(w)), np.dot(v, w), tl.complex128, 5)
    check_close(tl.vdot(T(v), T(w)), np.vdot(v, w), tl.complex128, 5)
    check_close(T(v).vdot(T(w)), np.vdot(v, w), tl.complex128, 5)
    with pytest.raises(tl.ShapeError):
        tl.mm(T(x), T(y))
    with pytest.raises(tl.ShapeError):
        tl.bmm(T(a), T(b))
    with pytest.raises(tl.ShapeError):
        tl.bmm(tl.ones(2, 3, 4), tl.ones(3, 4, 5))
    with pytest.raises(tl.ShapeError):
        tl.mv(T(a), T(a))
    with pytest.raises(tl.ShapeError):
        tl.dot(tl.ones(3), tl.ones(4))
    with pytest.raises(TypeError):
        tl.dot(tl.ones(3), tl.ones(3, dtype=tl.float64))


def test_inner_outer_tensordot_kron_trace():
    rng = rng_for("others")
    a, b = rand(rng, (2, 3, 4), tl.float64), rand(rng, (5, 4), tl.float64)
    check_close(tl.inner(T(a), T(b)), np.inner(a, b), tl.float64, 4)
    u, v = rand(rng, (3,), tl.float64), rand(rng, (4,), tl.float64)
    check_close(tl.outer(T(u), T(v)), np.outer(u, v), tl.float64, 1)
    assert tl.outer(tl.ones(2, dtype=tl.int32), tl.ones(2)).dtype == \
        tl.float32
    c = rand(rng, (4, 3, 6), tl.float64)
    check_close(tl.tensordot(T(a), T(c), ([1, 2], [1, 0])),
                np.tensordot(a, c, ([1, 2], [1, 0])), tl.float64, 12)
    check_close(tl.tensordot(T(a), T(a), 3),
                np.tensordot(a, a, 3), tl.float64, 24)
    check_close(tl.tensordot(T(a), T(b), 0), np.tensordot(a, b, 0),
                tl.float64, 1)
    with pytest.raises(tl.ShapeError):
        tl.tensordot(T(a), T(b), ([1], [1]))
    k1, k2 = rand(rng, (2, 3), tl.float64), rand(rng, (4, 1, 2), tl.float64)
    check_close(tl.kron(T(k1), T(k2)), np.kron(k1, k2), tl.float64, 1)
    m = rand(rng, (4, 6), tl.float64)
    check_close(tl.trace(T(m)), np.trace(m), tl.float64, 4)
    assert tl.trace(tl.ones(3, 3, dtype=tl.int32)).dtype == tl.int64
    with pytest.raises(tl.ShapeError):
        tl.trace(tl.ones(3))


def test_cross():
    rng = rng_for("cross")
    a, b = rand(rng, (5, 3), tl.float64), rand(rng, (1, 3), tl.float64)
    check_close(tl.linalg.cross(T(a), T(b)), np.cross(a, b), tl.float64, 2)
    check_close(tl.cross(T(a.T.copy()), T(b.T.copy()), dim=0),
                np.cross(a, b).T, tl.float64, 2)
    check_close(T(a).cross(T(b)), np.cross(a, b), tl.float64, 2)
    with pytest.raises(tl.ShapeError):
        tl.linalg.cross(tl.ones(4, 2), tl.ones(4, 2))


@pytest.mark.parametrize("fn", ["addmm", "addmv", "addbmm", "baddbmm"])
def test_add_products(fn, torch):
    rng = rng_for(fn)
    shapes = {"addmm": ((3, 1), (3, 4), (4, 5)),
              "addmv": ((3,), (3, 4), (4,)),
              "addbmm": ((3, 5), (2, 3, 4), (2, 4, 5)),
              "baddbmm": ((2, 1, 5), (2, 3, 4), (2, 4, 5))}[fn]
    xs = [rand(rng, s, tl.float64) for s in shapes]
    for beta, alpha in ((1, 1), (0.5, -2.0), (0, 3)):
        want = getattr(torch, fn)(*[torch.from_numpy(x) for x in xs],
                                  beta=beta, alpha=alpha).numpy()
        got = getattr(tl, fn)(*[T(x) for x in xs], beta=beta, alpha=alpha)
        check_close(got, want, tl.float64, 8)
        got = getattr(T(xs[0]), fn)(T(xs[1]), T(xs[2]), beta=beta,
                                     alpha=alpha)
        check_close(got, want, tl.float64, 8)
    # beta = 0 ignores NaN in input, as PyTorch
    nan_in = T(np.full(shapes[0], np.nan))
    r = getattr(tl, fn)(nan_in, T(xs[1]), T(xs[2]), beta=0)
    assert not r.isnan().any()
    out = tl.empty(0, dtype=tl.float64)
    getattr(tl, fn)(*[T(x) for x in xs], out=out)
    assert out.numel() > 0


# ---- threads, fork, CUDA, leaks ------------------------------------------

def test_blas_threads_follow_set_num_threads():
    n = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        tl.ones(64, 64) @ tl.ones(64, 64)
        assert tl._C._blas_get_num_threads() == 1
        tl.set_num_threads(2)
        assert tl._C._blas_get_num_threads() == 2
    finally:
        tl.set_num_threads(n)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_matmul_after_fork():
    # the parent uses both pools: tensorlib's (a big elementwise op) and
    # OpenBLAS's (a big matmul)
    a = tl.ones(512, 512)
    (a + a).sum()
    (a @ a).sum()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            r = (a @ a)[0, 0].item() + (a + a).sum().item()
            code = 0 if r == 512.0 + 2 * 512 * 512 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_cuda_tensors_not_implemented():
    if not hasattr(tl._C, "_cuda_device_count") or \
            not tl.cuda.is_available():
        pytest.skip("no CUDA device")
    a = tl.ones(2, 2, device="cuda")
    with pytest.raises(NotImplementedError, match="matmul"):
        a @ a


def _round(a, b, i8):
    a @ b
    tl.matmul(a, b.t().contiguous().t())
    i8 @ i8.t()
    tl.linalg.inv(b[:4, :4])
    tl.einsum("ij,jk->ik", a, b)
    for bad in (lambda: a @ tl.ones(3), lambda: a @ i8,
                lambda: tl.linalg.inv(tl.zeros(3, 3))):
        try:
            bad()
        except (ValueError, TypeError, RuntimeError):
            pass


def test_leak_loop_flat():
    rng = np.random.default_rng(0)
    a = T(rng.standard_normal((6, 5)).astype(np.float32))
    b = T(rng.standard_normal((5, 5)).astype(np.float32) + 5 * np.eye(5,
          dtype=np.float32))
    i8 = tl.ones(3, 4, dtype=tl.int8)
    for _ in range(20):
        _round(a, b, i8)
    gc.collect()
    refs = [sys.getrefcount(o) for o in (a, b, i8)]
    stats = tl.memory_stats()
    for _ in range(200):
        _round(a, b, i8)
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in (a, b, i8)] == refs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
