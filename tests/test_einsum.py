"""einsum against np.einsum: fixed cases (implicit and explicit output,
'...', repeated subscripts, sums, outer products, many operands) and
random subscripts."""
import numpy as np
import pytest

import tensorlib as tl
from _ops_common import rng_for

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i", [(2, 3), (3,)]),
    ("i...->...", [(3, 2, 2)]),
    ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ab,ab->", [(0, 3), (0, 3)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
    ("ij,kl->ijkl", [(2, 3), (1, 2)]),
    ("bii->bi", [(2, 3, 3)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
]


def _rand(rng, shape, dt=np.float64):
    return rng.standard_normal(shape).astype(dt)


@pytest.mark.parametrize("eq,shapes", CASES)
def test_einsum_cases(eq, shapes):
    rng = rng_for("einsum", eq)
    xs = [_rand(rng, s) for s in shapes]
    want = np.einsum(eq, *xs)
    got = tl.einsum(eq, *[tl.tensor(x) for x in xs])
    assert tuple(got.shape) == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)


def test_einsum_list_form_and_out_and_complex():
    rng = rng_for("einsum2")
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    b = rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))
    got = tl.einsum("ij,jk->ik", [tl.tensor(a), tl.tensor(b)])
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-12)
    out = tl.empty(0, dtype=tl.complex128)
    tl.einsum("ij,jk->ik", tl.tensor(a), tl.tensor(b), out=out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)
    i = tl.arange(6).reshape(2, 3)
    assert tl.einsum("ij,kj->ik", i, i).tolist() == \
        np.einsum("ij,kj->ik", np.arange(6).reshape(2, 3),
                  np.arange(6).reshape(2, 3)).tolist()


def test_einsum_errors(torch):
    a = tl.ones(2, 3)
    with pytest.raises(RuntimeError):
        torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(4, 5))
    with pytest.raises(tl.ShapeError):
        tl.einsum("ij,jk->ik", a, tl.ones(4, 5))
    with pytest.raises(tl.ShapeError):
        tl.einsum("ijk", a)
    with pytest.raises(ValueError):
        tl.einsum("ij,jk", a)
    with pytest.raises(ValueError):
        tl.einsum("ij->q", a)
    with pytest.raises(TypeError):
        tl.einsum("ij,jk", a, tl.ones(3, 2, dtype=tl.float64))
    with pytest.raises(ValueError):
        tl.einsum("i1", a)


def _random_case(rng):
    letters = "abcdefg"
    nops = int(rng.integers(1, 4))
    sizes = {c: int(rng.integers(1, 4)) for c in letters}
    terms = []
    for _ in range(nops):
        nd = int(rng.integers(0, 4))
        terms.append("".join(rng.choice(list(letters[:5]), nd)))
    used = sorted(set("".join(terms)))
    if rng.integers(0, 2) and used:
        k = int(rng.integers(0, len(used) + 1))
        out = "".join(rng.permutation(used)[:k])
        eq = ",".join(terms) + "->" + out
    else:
        eq = ",".join(terms)
    shapes = [tuple(sizes[c] for c in t) for t in terms]
    return eq, shapes


@pytest.mark.parametrize("seed", range(60))
def test_einsum_random_subscripts(seed):
    rng = np.random.default_rng(seed)
    eq, shapes = _random_case(rng)
    xs = [rng.standard_normal(s) for s in shapes]
    want = np.einsum(eq, *xs)
    got = tl.einsum(eq, *[tl.tensor(x) for x in xs])
    assert tuple(got.shape) == np.shape(want), eq
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-9, atol=1e-9,
                               err_msg=eq)
