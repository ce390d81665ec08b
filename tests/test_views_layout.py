"""Layouts of fresh results copied from an input (Note [Layouts copied
from an input] in csrc/core/iter_build.c): the strides of size-1 dims are
ignored, so a view may carry any stride there, a negative one included
(one element cut from a flipped dim); a result laid out like such a view
takes the layout of its dims of size >= 2 and never a negative stride.

The regression: t = arange(24.).reshape(2, 3, 4); u = t.flip(0)[1:]
.permute(2, 0, 1) has shape (4, 1, 3), strides (1, -12, 4); u + 1, -u,
u.exp(), u > 1 and where(u > 1, u, 0.) raised "empty_strided: negative
stride -12 at dim 1"."""
import numpy as np
import pytest

import tensorlib as tl


def the_view():
    t = tl.arange(24.0).reshape(2, 3, 4)
    u = t.flip(0)[1:].permute(2, 0, 1)
    want = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    want = np.flip(want, 0)[1:].transpose(2, 0, 1)
    return u, want


def test_the_view_has_a_negative_stride_on_its_size_1_dim():
    u, want = the_view()
    assert tuple(u.shape) == (4, 1, 3)
    assert u.stride() == (1, -12, 4)
    np.testing.assert_array_equal(u.numpy(), want)


OPS = {
    "u + 1": (lambda u: u + 1, lambda a: a + 1),
    "1 - u": (lambda u: 1 - u, lambda a: 1 - a),
    "-u": (lambda u: -u, lambda a: -a),
    "u.exp()": (lambda u: u.exp(), np.exp),
    "u > 1": (lambda u: u > 1, lambda a: a > 1),
    "u * u": (lambda u: u * u, lambda a: a * a),
    "add(u, u, alpha=2)": (lambda u: tl.add(u, u, alpha=2),
                           lambda a: a + 2 * a),
    "where(u > 1, u, 0.)": (lambda u: tl.where(u > 1, u, 0.0),
                            lambda a: np.where(a > 1, a, np.float32(0))),
    "clamp(u, 2, 20)": (lambda u: u.clamp(2, 20),
                        lambda a: np.clip(a, 2, 20)),
}


@pytest.mark.parametrize("name", list(OPS))
def test_elementwise_ops_on_the_view(name):
    f, ref = OPS[name]
    u, want = the_view()
    r = f(u)
    assert tuple(r.shape) == (4, 1, 3)
    assert all(s >= 0 for s in r.stride()), r.stride()
    # The layout of the dims of size >= 2 is u's (dim 0 fastest).
    assert r.stride()[0] == 1 and r.stride()[2] == 4, r.stride()
    np.testing.assert_allclose(r.numpy(), ref(want), rtol=1e-6)
    # u itself is untouched.
    assert u.stride() == (1, -12, 4)
    np.testing.assert_array_equal(u.numpy(), want)


@pytest.mark.parametrize("op", ["add_", "neg_", "exp_"])
def test_inplace_and_out_on_the_view(op):
    u, want = the_view()
    v = u.clone()
    if op == "add_":
        v.add_(1)
        want = want + 1
    elif op == "neg_":
        v.neg_()
        want = -want
    else:
        v.exp_()
        want = np.exp(want)
    np.testing.assert_allclose(v.numpy(), want, rtol=1e-6)
    # out= a tensor of the view's layout (negative size-1 stride)
    u2, w2 = the_view()
    o, _ = the_view()
    tl.add(u2, 1, out=o)
    assert o.stride() == (1, -12, 4)
    np.testing.assert_array_equal(o.numpy(), w2 + 1)


@pytest.mark.parametrize("conv", [
    lambda u: u.double(), lambda u: u.half(), lambda u: u.to(tl.int32),
    lambda u: u.clone(), lambda u: tl.empty_like(u),
    lambda u: tl.zeros_like(u), lambda u: u.to(tl.float32, copy=True),
])
def test_copies_never_keep_a_negative_stride(conv):
    u, want = the_view()
    r = conv(u)
    assert r.data_ptr() != u.data_ptr()
    assert tuple(r.shape) == (4, 1, 3)
    assert all(s >= 0 for s in r.stride()), r.stride()


def test_float_of_a_float32_view_is_the_view_itself():
    # As in PyTorch, a conversion to the dtype it already has returns the
    # tensor itself (no copy), so its strides are the view's own.
    u, _ = the_view()
    assert u.float() is u


@pytest.mark.parametrize("seed", range(30))
def test_negative_size_1_strides_under_random_permutations(seed):
    """Random dense bases, one dim cut to one element from a flipped base,
    permuted: every elementwise result is right and non-negative."""
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(3, 6))
    shape = [int(s) for s in rng.integers(2, 4, nd)]
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = tl.from_numpy(a.copy())
    # Leading dims (outermost in memory), so the view stays dense.
    cut = list(range(int(rng.integers(1, nd - 1))))
    idx = tuple(slice(1, 2) if k in cut else slice(None) for k in range(nd))
    t = t.flip(cut)[idx]
    a = np.flip(a, cut)[idx]
    # A permutation that leaves the view non-contiguous (its dims of size
    # >= 2 out of order), so results copy its layout.
    while True:
        perm = [int(p) for p in rng.permutation(nd)]
        kept = [p for p in perm if p not in cut]
        if kept != sorted(kept):
            break
    t = t.permute(*perm)
    a = a.transpose(perm)
    assert any(s < 0 for s, n in zip(t.stride(), t.shape) if n == 1)
    assert not t.is_contiguous()
    for r, want in [(t + 1, a + 1), (-t, -a), (t.exp(), np.exp(a)),
                    (t > 3, a > 3), (t * t, a * a),
                    (tl.where(t > 3, t, 0.0), np.where(a > 3, a, 0.0)),
                    (t.float(), a.astype(np.float32)),
                    (t.clone(), a)]:
        assert tuple(r.shape) == a.shape
        assert all(s >= 0 for s in r.stride()), (perm, cut, r.stride())
        np.testing.assert_allclose(r.numpy(), want, rtol=1e-6)
