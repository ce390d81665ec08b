"""Complex tensors as pairs of reals (issue 18): view_as_real,
view_as_complex, real, imag (functions and attributes, views that share
memory), conj / conj_physical (eager copies), angle and positive: values
and strides against torch and NumPy on contiguous, transposed, sliced and
flipped inputs, refusals, and a flat-memory loop."""
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl


def cdata(shape, dt=np.complex64, seed=0):
    rng = np.random.default_rng(seed)
    return np.asarray(rng.standard_normal(shape) +
                      1j * rng.standard_normal(shape)).astype(dt)


def variants(a):
    t = tl.tensor(a)
    out = [(t, a)]
    if a.ndim >= 2:
        out.append((t.transpose(0, 1), a.swapaxes(0, 1)))
    if a.ndim >= 1 and a.shape[0] > 1:
        out.append((t[1:], a[1:]))
        out.append((t.flip(0), a[::-1]))
        out.append((t[::2], a[::2]))
    return out


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 2)])
def test_view_as_real_and_back(shape, dt, torch):
    for t, a in variants(cdata(shape, dt)):
        r = tl.view_as_real(t)
        tr = torch.view_as_real(torch.from_numpy(a.copy()))
        assert r.shape == tuple(tr.shape)
        assert r.dtype == getattr(tl, str(tr.dtype).split(".")[1])
        np.testing.assert_array_equal(r.numpy(), tr.numpy())
        assert r.stride() == tuple(2 * s for s in t.stride()) + (1,)
        assert tl.shares_memory(r, t) or t.numel() == 0
        c = tl.view_as_complex(r)
        assert c.dtype == t.dtype and c.stride() == t.stride()
        np.testing.assert_array_equal(c.numpy(), a)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_real_imag_are_views(dt, torch):
    for t, a in variants(cdata((3, 4), dt)):
        re, im = tl.real(t), tl.imag(t)
        np.testing.assert_array_equal(re.numpy(), a.real)
        np.testing.assert_array_equal(im.numpy(), a.imag)
        np.testing.assert_array_equal(t.real.numpy(), a.real)
        np.testing.assert_array_equal(t.imag.numpy(), a.imag)
        ta = torch.from_numpy(a.copy())
        assert re.dtype == getattr(tl, str(ta.real.dtype).split(".")[1])
    t = tl.tensor(cdata((2, 3), dt))
    v0 = t._version
    t.imag.fill_(7)
    assert (t.numpy().imag == 7).all()
    assert t._version > v0
    t.real = tl.zeros(2, 3, dtype=t.real.dtype)
    assert (t.numpy().real == 0).all()


def test_real_of_real_is_itself_and_imag_refused(torch):
    x = tl.ones(3)
    assert tl.real(x) is x and x.real is x
    assert torch.real(torch.ones(3)) is not None
    with pytest.raises(Exception):
        torch.imag(torch.ones(3))
    with pytest.raises(TypeError):
        tl.imag(x)
    with pytest.raises(TypeError):
        x.imag


def test_view_as_real_complex_refusals(torch):
    with pytest.raises(Exception):
        torch.view_as_real(torch.ones(3))
    with pytest.raises(TypeError):
        tl.view_as_real(tl.ones(3))
    with pytest.raises(TypeError):
        tl.view_as_complex(tl.ones(3, 2, dtype=tl.int32))
    for bad in (tl.ones(()), tl.ones(3, 3), tl.ones(2, 3).t(),
                tl.ones(3, 3)[:, :2], tl.ones(7)[1:].reshape(3, 2)):
        with pytest.raises(tl.ShapeError):
            tl.view_as_complex(bad)
    for bad in (torch.ones(()), torch.ones(3, 3), torch.ones(2, 3).t(),
                torch.ones(3, 3)[:, :2], torch.ones(7)[1:].reshape(3, 2)):
        with pytest.raises(Exception):
            torch.view_as_complex(bad)
    with pytest.raises(TypeError):
        tl.view_as_real([1j])


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_conj_is_an_eager_copy(dt, torch):
    for t, a in variants(cdata((3, 4), dt)):
        for fn in (tl.conj, tl.conj_physical, lambda x: x.conj(),
                   lambda x: x.conj_physical()):
            c = fn(t)
            np.testing.assert_array_equal(c.numpy(), np.conj(a))
            assert c.dtype == t.dtype
            assert not tl.shares_memory(c, t)
            tc = torch.conj_physical(torch.from_numpy(a.copy()))
            np.testing.assert_array_equal(c.numpy(), tc.numpy())
    x = tl.arange(3.0)
    assert tl.conj(x) is x and tl.conj_physical(x) is x


@pytest.mark.parametrize("dt", [np.complex64, np.complex128, np.float32,
                                np.float64, np.int64])
def test_angle_against_torch(dt, torch):
    if np.dtype(dt).kind == "c":
        a = cdata((4, 5), dt)
        a.flat[:4] = [0, -1 + 0j, complex(0, -2), complex(-0.0, 0)]
    elif np.dtype(dt).kind == "f":
        a = np.array([-1.0, 0.0, -0.0, 2.0, np.nan, np.inf, -np.inf],
                     dtype=dt)
    else:
        a = np.array([-3, 0, 4], dtype=dt)
    for t, aa in variants(a):
        r = tl.angle(t)
        e = torch.angle(torch.from_numpy(aa.copy()))
        assert r.dtype == getattr(tl, str(e.dtype).split(".")[1])
        np.testing.assert_allclose(r.numpy(), e.numpy(), rtol=1e-6,
                                   equal_nan=True)
        np.testing.assert_allclose(t.angle().numpy(), e.numpy(), rtol=1e-6,
                                   equal_nan=True)


def test_positive(torch):
    x = tl.ones(3)
    assert tl.positive(x) is x and x.positive() is x
    with pytest.raises(Exception):
        torch.positive(torch.ones(3, dtype=torch.bool))
    with pytest.raises(TypeError):
        tl.positive(tl.ones(3, dtype=tl.bool))


def test_loop_leaves_memory_flat():
    z = tl.tensor(cdata((10, 10)))
    x = tl.ones(5)

    def round_():
        tl.view_as_complex(tl.view_as_real(z))
        tl.real(z.t()), tl.imag(z[::2])
        z.conj(), tl.conj_physical(z), tl.angle(z), tl.angle(x)
        z.real, z.imag, tl.positive(x)
        for bad in (lambda: tl.imag(x), lambda: tl.view_as_real(x),
                    lambda: tl.view_as_complex(x)):
            with pytest.raises(Exception):
                bad()

    for _ in range(5):
        round_()
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    rc = sys.getrefcount(z)
    for _ in range(200):
        round_()
    gc.collect()
    assert tl.memory_stats()["active_bytes"] == before
    assert sys.getrefcount(z) == rc
