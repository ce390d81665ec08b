"""Random numbers: reproducibility, statistics, dtypes, refusals, leaks.

* reproducibility: a seed gives the same bits; 1 and 2 threads agree;
  a strided out= or in-place target gets what a contiguous one gets,
  element for element; get_state/set_state and fork_rng round trips;
  generators are independent of each other and of the default one;
* statistics at fixed seeds (so a result never changes from run to run;
  the thresholds sit far out in the tails, so only a broken sampler
  fails): chi-square on uniform and randint bins, Kolmogorov-Smirnov for
  normal and exponential, moments of every distribution, multinomial
  frequencies, randperm is a permutation;
* the float16/bfloat16 upper bound, result dtypes against torch, the
  refusals against torch (class from DESIGN.md, operands and generator
  state untouched), and a leak loop.
The Philox known-answer vectors are checked by tests/c/test_random.c.
"""
import gc
import math
import os
import sys
import tracemalloc

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing
FLOATS = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
INTS = [tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64]


def _np(t):
    if t.dtype == tl.bfloat16:
        t = t.to(tl.float32)
    return t.numpy().astype(np.float64) if t.dtype.is_floating_point \
        else t.numpy()


def _bits(t):
    if t.dtype == tl.bfloat16:      # exact in float32; NumPy has no bf16
        t = t.to(tl.float32)
    return t.contiguous().numpy().tobytes()


@pytest.fixture(autouse=True)
def _restore_threads():
    n = tl.get_num_threads()
    yield
    tl.set_num_threads(n)


def _every_op(g):
    """One call of every random op with generator g (lists of tensors)."""
    x = tl.empty(5, 7)
    return [
        tl.rand(40000, generator=g), tl.randn(40001, generator=g),
        tl.rand(33, dtype=tl.float16, generator=g),
        tl.randn(33, dtype=tl.bfloat16, generator=g),
        tl.randn(9, dtype=tl.float64, generator=g),
        tl.rand(4, dtype=tl.complex64, generator=g),
        tl.randint(-3, 1000, (50000,), generator=g),
        tl.randint(0, 2**40, (99,), generator=g),
        tl.randperm(1000, generator=g),
        tl.normal(2.0, 3.0, (17,), generator=g),
        tl.normal(tl.zeros(3, 1), tl.ones(4), generator=g),
        tl.bernoulli(tl.full((40,), 0.3), generator=g),
        tl.multinomial(tl.tensor([1.0, 2.0, 3.0]), 9, True, generator=g),
        tl.multinomial(tl.tensor([[1.0, 2.0, 3.0, 0.5]]), 3, generator=g),
        tl.poisson(tl.tensor([0.5, 4.0, 40.0, 4000.0]), generator=g),
        x.clone().uniform_(-2, 2, generator=g),
        x.clone().normal_(1, 2, generator=g),
        x.clone().random_(0, 100, generator=g),
        x.clone().random_(generator=g),
        x.clone().exponential_(2.0, generator=g),
        x.clone().geometric_(0.25, generator=g),
        x.clone().log_normal_(generator=g),
        x.clone().cauchy_(generator=g),
        x.clone().bernoulli_(0.5, generator=g),
        x.clone().bernoulli_(tl.rand(7, generator=g), generator=g),
    ]


# ---- reproducibility ------------------------------------------------------


def test_same_seed_same_bits_every_op():
    g = tl.Generator()
    g.manual_seed(1234)
    a = _every_op(g)
    g.manual_seed(1234)
    b = _every_op(g)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and _bits(x) == _bits(y)
    g.manual_seed(1235)
    c = _every_op(g)
    assert _bits(a[0]) != _bits(c[0]) and _bits(a[1]) != _bits(c[1])
    # Successive draws differ (the offset moves).
    assert _bits(a[0]) != _bits(tl.rand(40000, generator=g))


def test_default_generator_functions():
    tl.manual_seed(7)
    assert tl.initial_seed() == 7
    a = tl.rand(100)
    assert tl.manual_seed(7) is tl.default_generator
    assert _bits(tl.rand(100)) == _bits(a)
    s = tl.seed()
    assert tl.initial_seed() == s and 0 <= s < 2**64
    tl.manual_seed(-1)   # negatives wrap, as PyTorch
    assert tl.initial_seed() == 2**64 - 1
    tl.manual_seed(2**64 - 1)
    assert _bits(tl.rand(5)) == _bits(tl.rand(5, generator=tl.Generator()
                                              .manual_seed(-1)))


@pytest.mark.parametrize("threads", [2, 3])
def test_thread_count_does_not_change_numbers(threads):
    results = []
    for n in (1, threads):
        tl.set_num_threads(n)
        g = tl.Generator().manual_seed(99)
        results.append(_every_op(g))
    for x, y in zip(*results):
        assert _bits(x) == _bits(y)


def test_strided_out_and_inplace_match_contiguous():
    g = tl.Generator()
    views = [   # (a non-contiguous tensor, its shape)
        (lambda: tl.empty(60, 70).t(), (70, 60)),          # transposed
        (lambda: tl.empty(60, 70).flip(1), (60, 70)),      # negative strides
        (lambda: tl.empty(120, 140)[::2, 1::2], (60, 70)),  # sliced
    ]
    ops = [
        lambda t: t.uniform_(-1, 3, generator=g),
        lambda t: t.normal_(0, 2, generator=g),
        lambda t: t.random_(0, 77, generator=g),
        lambda t: t.exponential_(generator=g),
        lambda t: t.bernoulli_(0.25, generator=g),
        lambda t: t.geometric_(0.5, generator=g),
    ]
    for make, shape in views:
        for op in ops:
            g.manual_seed(5)
            ref = op(tl.empty(*shape))
            v = make()
            assert not v.is_contiguous()
            g.manual_seed(5)
            got = op(v)
            assert got is v
            np.testing.assert_array_equal(_np(got), _np(ref))
    # out= of the creation functions, strided
    g.manual_seed(11)
    ref = tl.randn(30, 40, generator=g)
    out = tl.empty(40, 30).t()
    g.manual_seed(11)
    r = tl.randn(30, 40, generator=g, out=out)
    assert r is out
    np.testing.assert_array_equal(_np(out), _np(ref))
    g.manual_seed(11)
    ref = tl.randint(0, 10**6, (30, 40), generator=g)
    out = tl.empty(30, 80, dtype=tl.int64)[:, ::2]
    g.manual_seed(11)
    tl.randint(0, 10**6, (30, 40), generator=g, out=out)
    np.testing.assert_array_equal(_np(out), _np(ref))


def test_state_round_trip_and_fork_rng():
    g = tl.Generator().manual_seed(3)
    tl.rand(10, generator=g)
    st = g.get_state()
    assert st.dtype == tl.uint8 and st.shape == (16,)
    a = tl.randn(1000, generator=g)
    g.set_state(st)
    assert _bits(tl.randn(1000, generator=g)) == _bits(a)
    # the default generator
    tl.manual_seed(4)
    s = tl.get_rng_state()
    a = tl.rand(50)
    tl.set_rng_state(s)
    assert _bits(tl.rand(50)) == _bits(a)
    tl.set_rng_state(s)
    with tl.random.fork_rng():
        tl.randn(1000)
        tl.manual_seed(12345)
    assert _bits(tl.rand(50)) == _bits(a)
    tl.set_rng_state(s)
    with tl.random.fork_rng(enabled=False):
        tl.rand(3)
    assert _bits(tl.rand(50)) != _bits(a)
    with pytest.raises(NotImplementedError, match="cuda"):
        with tl.random.fork_rng(devices=["cuda:0"]):
            pass


def test_generators_independent():
    tl.manual_seed(0)
    g1 = tl.Generator().manual_seed(0)
    a = tl.rand(20, generator=g1)
    tl.manual_seed(0)
    g2 = tl.Generator().manual_seed(0)
    tl.rand(1000)                      # the default moves, g2 does not
    assert _bits(tl.rand(20, generator=g2)) == _bits(a)
    assert repr(g1) == "tensorlib.Generator(device='cpu')"
    assert g1.device == tl.device("cpu")
    assert tl.Generator("cuda").device == tl.device("cuda:0")


def test_threads_drawing_get_disjoint_ranges():
    import threading
    g = tl.Generator().manual_seed(8)
    outs = []

    def work():
        for _ in range(20):
            outs.append(tl.rand(1000, generator=g))
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    # 80 draws of 250 blocks each: the offset moved by all of them, and
    # no two draws share a block (no two outputs are equal).
    assert int.from_bytes(_bits(g.get_state())[8:], "little") == 80 * 250
    assert len({_bits(o) for o in outs}) == 80


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_child_continues_the_same_stream():
    tl.manual_seed(21)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        os.write(w, _bits(tl.rand(8)))
        os._exit(0)
    os.close(w)
    child = os.read(r, 1024)
    os.close(r)
    os.waitpid(pid, 0)
    assert child == _bits(tl.rand(8))


# ---- statistics at fixed seeds ----------------------------------------------


def _chi2(counts, expected):
    counts = np.asarray(counts, dtype=np.float64)
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("dt", FLOATS)
def test_uniform_chi_square_and_bounds(dt):
    g = tl.Generator().manual_seed(100)
    n, bins = 200000, 50
    x = _np(tl.rand(n, dtype=dt, generator=g))
    assert x.min() >= 0.0 and x.max() < 1.0
    c, _ = np.histogram(x, bins=bins, range=(0, 1))
    if dt == tl.bfloat16:    # 256 values: bins of unequal counts of them
        edges = np.linspace(0, 1, bins + 1)
        vals = np.arange(256) / 256.0
        exp = np.histogram(vals, bins=edges)[0] / 256.0 * n
    else:
        exp = np.full(bins, n / bins)
    # chi-square with 49 degrees of freedom: mean 49, sd 9.9
    assert _chi2(c, exp) < 49 + 8 * 9.9
    y = _np(tl.empty(n, dtype=dt).uniform_(-3.0, 5.0, generator=g))
    assert y.min() >= -3.0 and y.max() < 5.0
    assert abs(y.mean() - 1.0) < 8 * 8 / math.sqrt(12 * n)


@pytest.mark.parametrize("dt", [tl.float16, tl.bfloat16, tl.float32])
def test_upper_bound_never_returned_after_rounding(dt):
    # 1 + u for the largest u rounds up to 2 in the dtype; it must not
    # appear.  A narrow range just under a large bound, likewise.
    g = tl.Generator().manual_seed(1)
    x = _np(tl.empty(1 << 18, dtype=dt).uniform_(1.0, 2.0, generator=g))
    assert x.max() < 2.0 and x.min() >= 1.0
    top = 1.0 - 2.0 ** -7
    y = _np(tl.empty(1 << 16, dtype=dt).uniform_(top, 1.0, generator=g))
    assert y.max() < 1.0


@pytest.mark.parametrize("dt", [tl.uint8, tl.int16, tl.int64, tl.float32,
                                tl.bool])
def test_randint_chi_square(dt):
    g = tl.Generator().manual_seed(200)
    lo, hi = (0, 2) if dt == tl.bool else (0, 37)
    n = 150000
    x = _np(tl.randint(lo, hi, (n,), dtype=dt, generator=g)).astype(np.int64)
    assert x.min() == lo and x.max() == hi - 1
    c = np.bincount(x - lo, minlength=hi - lo)
    k = hi - lo
    assert _chi2(c, n / k) < (k - 1) + 8 * math.sqrt(2 * (k - 1))
    # a range over 2^32 (two words and the 128-bit product)
    big = _np(tl.randint(-(2**40), 2**40, (n,), generator=g))
    assert big.min() >= -(2**40) and big.max() < 2**40
    assert abs(big.mean()) < 8 * 2**40 / math.sqrt(3 * n)
    # a range that rejects often (3 * 2^30: a quarter of words rejected)
    r = 3 * 2**30
    y = _np(tl.randint(0, r, (n,), generator=g)) // 2**30
    c = np.bincount(y, minlength=3)
    assert _chi2(c, n / 3) < 2 + 8 * 2


def _ks(x, cdf):
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = len(x)
    f = cdf(x)
    d = max((np.arange(1, n + 1) / n - f).max(), (f - np.arange(n) / n).max())
    return d * math.sqrt(n)


_erf = np.vectorize(math.erf)


def _normal_cdf(x):
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


@pytest.mark.parametrize("dt", [tl.float32, tl.float64])
def test_normal_ks_and_moments(dt):
    g = tl.Generator().manual_seed(300)
    n = 100000
    x = _np(tl.randn(n, dtype=dt, generator=g))
    # sqrt(n) D: P(> 2.0) ~ 0.0007 for a true normal
    assert _ks(x, _normal_cdf) < 2.0
    assert abs(x.mean()) < 6 / math.sqrt(n)
    assert abs(x.var() - 1) < 6 * math.sqrt(2 / n)
    assert abs((x ** 3).mean()) < 6 * math.sqrt(15 / n)
    assert abs((x ** 4).mean() - 3) < 6 * math.sqrt(96 / n)
    # tails: about 2.7 per 1000 beyond 3 sigma
    tail = (np.abs(x) > 3).mean()
    assert 0.0027 * 0.6 < tail < 0.0027 * 1.4
    y = _np(tl.empty(n, dtype=dt).normal_(5.0, 0.5, generator=g))
    assert abs(y.mean() - 5) < 6 * 0.5 / math.sqrt(n)
    assert abs(y.std() - 0.5) < 6 * 0.5 / math.sqrt(2 * n)


@pytest.mark.parametrize("dt", [tl.float16, tl.bfloat16, tl.complex64,
                                tl.complex128])
def test_normal_other_dtypes(dt):
    g = tl.Generator().manual_seed(301)
    n = 60000
    t = tl.randn(n, dtype=dt, generator=g)
    assert t.dtype == dt
    if dt.is_complex:
        z = t.numpy()
        for part in (z.real, z.imag):   # each part has variance 1/2
            assert abs(part.mean()) < 6 * math.sqrt(0.5 / n)
            assert abs(part.var() - 0.5) < 6 * 0.5 * math.sqrt(2 / n)
        return
    x = _np(t)
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 6 / math.sqrt(n)
    assert abs(x.var() - 1) < 6 * math.sqrt(2 / n) + 0.01


@pytest.mark.parametrize("dt", [tl.float32, tl.float64])
def test_exponential_ks(dt):
    g = tl.Generator().manual_seed(400)
    n = 100000
    x = _np(tl.empty(n, dtype=dt).exponential_(2.5, generator=g))
    assert x.min() >= 0
    assert _ks(x, lambda v: 1 - np.exp(-2.5 * v)) < 2.0
    assert abs(x.mean() - 0.4) < 6 * 0.4 / math.sqrt(n)


def test_other_distributions_moments():
    g = tl.Generator().manual_seed(500)
    n = 100000
    geo = _np(tl.empty(n).geometric_(0.2, generator=g))
    assert geo.min() == 1 and geo.dtype == np.float64
    assert abs(geo.mean() - 5) < 6 * math.sqrt(0.8 / 0.04 / n)
    gi = _np(tl.empty(n, dtype=tl.int32).geometric_(0.7, generator=g))
    c = np.bincount(gi)[1:4] / n
    np.testing.assert_allclose(c, [0.7, 0.21, 0.063], atol=0.01)
    ln = _np(tl.empty(n, dtype=tl.float64).log_normal_(1.0, 0.5,
                                                       generator=g))
    assert ln.min() > 0
    assert abs(np.log(ln).mean() - 1) < 6 * 0.5 / math.sqrt(n)
    assert abs(np.log(ln).std() - 0.5) < 0.01
    ca = _np(tl.empty(n).cauchy_(2.0, 3.0, generator=g))
    assert abs(np.median(ca) - 2) < 0.1
    q1, q3 = np.percentile(ca, [25, 75])
    assert abs((q3 - q1) / 2 - 3) < 0.15
    for dt in (tl.bool, tl.int8, tl.float16, tl.float64):
        b = _np(tl.empty(n, dtype=dt).bernoulli_(0.3, generator=g))
        assert set(np.unique(b).tolist()) <= {0, 1}
        assert abs(b.mean() - 0.3) < 6 * math.sqrt(0.21 / n)
    assert _np(tl.empty(100).bernoulli_(0.0, generator=g)).max() == 0
    assert _np(tl.empty(100).bernoulli_(1.0, generator=g)).min() == 1
    p = tl.tensor([0.0, 0.1, 0.5, 0.9, 1.0])
    b = _np(tl.bernoulli(p.expand(20000, 5).contiguous(), generator=g))
    np.testing.assert_allclose(b.mean(0), [0, 0.1, 0.5, 0.9, 1], atol=0.015)
    b = _np(tl.empty(20000, 5).bernoulli_(p, generator=g))
    np.testing.assert_allclose(b.mean(0), [0, 0.1, 0.5, 0.9, 1], atol=0.015)


@pytest.mark.parametrize("lam", [0.0, 0.5, 7.0, 10.0, 30.0, 1000.0])
def test_poisson_moments(lam):
    g = tl.Generator().manual_seed(600)
    n = 50000
    x = _np(tl.poisson(tl.full((n,), lam, dtype=tl.float64), generator=g))
    assert (x == np.round(x)).all() and x.min() >= 0
    if lam == 0:
        assert x.max() == 0
        return
    assert abs(x.mean() - lam) < 6 * math.sqrt(lam / n)
    assert abs(x.var() / lam - 1) < 6 * math.sqrt(2 / n) + 2 / n
    if lam <= 10:   # the full pmf
        k = np.arange(25)
        pmf = np.exp(-lam + k * math.log(lam) -
                     np.array([math.lgamma(v + 1) for v in k]))
        c = np.bincount(x.astype(np.int64), minlength=25)[:25]
        keep = pmf * n > 20
        assert _chi2(c[keep], pmf[keep] * n) < keep.sum() + 8 * math.sqrt(
            2 * keep.sum())
    r = tl.poisson(tl.tensor([[1.0, 2.0]], dtype=tl.float16), generator=g)
    assert r.dtype == tl.float16 and r.shape == (1, 2)


def test_multinomial_frequencies():
    g = tl.Generator().manual_seed(700)
    w = np.array([1.0, 0.0, 2.0, 3.0, 4.0])
    n = 100000
    x = _np(tl.multinomial(tl.tensor(w), n, True, generator=g))
    c = np.bincount(x, minlength=5)
    assert c[1] == 0
    keep = w > 0
    assert _chi2(c[keep], (w / w.sum() * n)[keep]) < 3 + 8 * math.sqrt(6)
    # 2-D, without replacement: each row distinct, zero weights last
    rows = tl.tensor(np.tile(w, (20000, 1)))
    s = _np(tl.multinomial(rows, 4, generator=g))
    assert s.shape == (20000, 4) and s.dtype == np.int64
    assert all(len(set(r)) == 4 for r in s[:500])
    assert not (s == 1).any()
    first = np.bincount(s[:, 0], minlength=5)
    assert _chi2(first[keep], (w / w.sum() * 20000)[keep]) < 3 + 8 * \
        math.sqrt(6)
    # second draw of weights (1, 2) after the first took 2 of (1, 2, 0):
    # P(second = 0 | first = 2) = 1 (only one non-zero left)
    s2 = _np(tl.multinomial(tl.tensor([[1.0, 2.0, 0.0]] * 3000), 2,
                            generator=g))
    assert set(map(tuple, s2.tolist())) == {(0, 1), (1, 0)}
    frac = (s2[:, 0] == 1).mean()
    assert abs(frac - 2 / 3) < 6 * math.sqrt(2 / 9 / 3000)
    # Tensor method, out=
    out = tl.empty(3, dtype=tl.int64)
    r = tl.multinomial(tl.tensor([1.0, 1.0]), 3, True, out=out, generator=g)
    assert r is out
    assert tl.tensor([5.0, 1.0]).multinomial(2).tolist() in ([0, 1], [1, 0])


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 100003])
def test_randperm_is_a_permutation(n):
    g = tl.Generator().manual_seed(800)
    p = _np(tl.randperm(n, generator=g))
    assert p.dtype == np.int64
    np.testing.assert_array_equal(np.sort(p), np.arange(n))
    if n >= 1000:
        assert (p != np.arange(n)).mean() > 0.99


def test_randperm_uniform_and_dtypes():
    g = tl.Generator().manual_seed(801)
    firsts = np.array([_np(tl.randperm(6, generator=g))[0]
                       for _ in range(6000)])
    assert _chi2(np.bincount(firsts, minlength=6), 1000) < 5 + 8 * math.sqrt(
        10)
    for dt in (tl.int8, tl.int32, tl.float16, tl.float32):
        p = tl.randperm(100, dtype=dt, generator=g)
        assert p.dtype == dt
        np.testing.assert_array_equal(np.sort(_np(p)), np.arange(100))


# ---- dtypes and signatures against torch --------------------------------------


def test_result_dtypes_match_torch(torch):
    tg = torch.Generator().manual_seed(0)
    cases = [
        (lambda m, **k: m.rand(3, **k), {}),
        (lambda m, **k: m.rand(3, **k), {"dtype": "float64"}),
        (lambda m, **k: m.rand(3, **k), {"dtype": "float16"}),
        (lambda m, **k: m.rand(3, **k), {"dtype": "complex64"}),
        (lambda m, **k: m.randn(3, 2, **k), {"dtype": "bfloat16"}),
        (lambda m, **k: m.randint(0, 5, (3,), **k), {}),
        (lambda m, **k: m.randint(5, (3,), **k), {"dtype": "int8"}),
        (lambda m, **k: m.randint(0, 2, (3,), **k), {"dtype": "bool"}),
        (lambda m, **k: m.randint(0, 5, (3,), **k), {"dtype": "float16"}),
        (lambda m, **k: m.randperm(4, **k), {}),
        (lambda m, **k: m.randperm(4, **k), {"dtype": "float32"}),
        (lambda m, **k: m.normal(0.0, 1.0, (2,), **k), {}),
        (lambda m, **k: m.normal(m.zeros(2, dtype=m.float64), m.ones(2)),
         {}),
        (lambda m, **k: m.normal(m.zeros(2, 1), 2.0), {}),
        (lambda m, **k: m.bernoulli(m.ones(3, dtype=m.float64) / 2), {}),
        (lambda m, **k: m.bernoulli(m.zeros(3, dtype=m.int32), 0.5), {}),
        (lambda m, **k: m.multinomial(m.ones(2, 3), 2), {}),
        (lambda m, **k: m.poisson(m.ones(3, dtype=m.float16)), {}),
        (lambda m, **k: m.rand_like(m.zeros(2, dtype=m.float64)), {}),
        (lambda m, **k: m.randn_like(m.zeros(2), **k), {"dtype": "float16"}),
        (lambda m, **k: m.randint_like(m.zeros(2), 5), {}),
        (lambda m, **k: m.randint_like(m.zeros(2, dtype=m.int8), 1, 5), {}),
        (lambda m, **k: m.empty(3, dtype=m.int32).random_(), {}),
        (lambda m, **k: m.empty(3, dtype=m.int16).geometric_(0.5), {}),
        (lambda m, **k: m.empty(3, dtype=m.uint8).bernoulli_(0.5), {}),
    ]
    for fn, kw in cases:
        a = fn(tl, **{k: getattr(tl, v) for k, v in kw.items()})
        b = fn(torch, **{k: getattr(torch, v) for k, v in kw.items()})
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
    del tg


# ---- refusals -------------------------------------------------------------------


def _refusals(m, g):
    f = m.zeros(4)
    i = m.zeros(4, dtype=m.int32)
    return [
        lambda: m.randint(5, 5, (3,), generator=g),
        lambda: m.randint(0, 300, (3,), dtype=m.uint8, generator=g),
        lambda: m.randint(-1, 3, (3,), dtype=m.uint8, generator=g),
        lambda: m.randint(0, 3, (3,), dtype=m.complex64, generator=g),
        lambda: m.rand(3, dtype=m.int32, generator=g),
        lambda: m.randn(3, dtype=m.int64, generator=g),
        lambda: m.rand(-1, generator=g),
        lambda: m.randperm(-1, generator=g),
        lambda: m.randperm(300, dtype=m.int8, generator=g),
        lambda: m.randperm(5, dtype=m.bool, generator=g),
        lambda: f.normal_(0, -1, generator=g),
        lambda: f.normal_(0, float("nan"), generator=g),
        lambda: i.normal_(generator=g),
        lambda: f.uniform_(2, 1, generator=g),
        lambda: f.uniform_(0, float("inf"), generator=g),
        lambda: i.uniform_(generator=g),
        lambda: f.exponential_(0, generator=g),
        lambda: f.exponential_(-1, generator=g),
        lambda: i.exponential_(generator=g),
        lambda: f.geometric_(0, generator=g),
        lambda: f.geometric_(1, generator=g),
        lambda: m.zeros(3, dtype=m.bool).geometric_(0.5, generator=g),
        lambda: f.log_normal_(0, -1, generator=g),
        lambda: i.log_normal_(generator=g),
        lambda: f.cauchy_(0, 0, generator=g),
        lambda: i.cauchy_(generator=g),
        lambda: f.bernoulli_(1.5, generator=g),
        lambda: f.bernoulli_(-0.1, generator=g),
        lambda: f.bernoulli_(m.tensor([0.5, 2.0, 0.1, 0.0]), generator=g),
        lambda: m.bernoulli(m.tensor([0.5, float("nan")]), generator=g),
        lambda: m.bernoulli(m.tensor([1, 0]), generator=g),
        lambda: i.random_(0, 2**40, generator=g),
        lambda: m.zeros(3, dtype=m.int8).random_(-200, 3, generator=g),
        lambda: m.multinomial(m.tensor([1.0, -1.0]), 1, generator=g),
        lambda: m.multinomial(m.tensor([0.0, 0.0]), 1, generator=g),
        lambda: m.multinomial(m.tensor([1.0, float("nan")]), 1, generator=g),
        lambda: m.multinomial(m.tensor([1.0, float("inf")]), 1, generator=g),
        lambda: m.multinomial(m.tensor([1.0, 1.0]), 3, generator=g),
        lambda: m.multinomial(m.tensor([1.0, 1.0]), 0, generator=g),
        lambda: m.multinomial(m.tensor([1, 1]), 1, generator=g),
        lambda: m.multinomial(m.ones(2, 2, 2), 1, generator=g),
        lambda: m.poisson(m.tensor([-1.0]), generator=g),
        lambda: m.poisson(m.tensor([float("nan")]), generator=g),
        lambda: m.poisson(m.tensor([1, 2]), generator=g),
        lambda: m.normal(m.zeros(3), m.tensor([1.0, -1.0, 1.0]),
                         generator=g),
        lambda: m.normal(m.zeros(3, dtype=m.int64), m.ones(3), generator=g),
        lambda: m.zeros(2, 3).expand(4, 2, 3).uniform_(generator=g),
        lambda: m.Generator().set_state(m.zeros(3, dtype=m.uint8)),
        lambda: m.Generator().set_state(m.zeros(16)),
        lambda: m.Generator().manual_seed(2**64),
        lambda: m.Generator().manual_seed(1.5),
    ]


# DESIGN.md's class for each refusal (same order as _refusals).
_CLASSES = [{"V": ValueError, "T": TypeError}[c] for c in
            "VVVTTTVVVT" "VVTVVTVVTV" "VTVTVTVVVV" "TVVVVVVVVT"
            "VVVTVTVVTVT"]


def test_refusals_match_torch_and_leave_state(torch):
    g = tl.Generator().manual_seed(5)
    tg = torch.Generator().manual_seed(5)
    ours, theirs = _refusals(tl, g), _refusals(torch, tg)
    assert len(ours) == len(_CLASSES)
    for k, (a, b, cls) in enumerate(zip(ours, theirs, _CLASSES)):
        with pytest.raises(Exception):
            b()
        before = _bits(g.get_state())
        with pytest.raises(cls):
            a()
        assert _bits(g.get_state()) == before, k
    # A failed in-place fill leaves the tensor as it was.
    f = tl.arange(4.0)
    for bad in (lambda: f.normal_(0, -1), lambda: f.uniform_(3, 1),
                lambda: f.bernoulli_(tl.tensor([0.5, 2.0, 0.0, 0.0]))):
        with pytest.raises(ValueError):
            bad()
        assert f.tolist() == [0.0, 1.0, 2.0, 3.0] and f._version == 0
    ro = T.readonly_view(tl.zeros(3)) if hasattr(T, "readonly_view") else \
        tl._C._readonly_view(tl.zeros(3))
    with pytest.raises(ValueError):
        ro.uniform_()


def test_refusals_messages_and_devices():
    with pytest.raises(ValueError, match="from=5 >= to=5"):
        tl.randint(5, 5, (3,))
    with pytest.raises(ValueError, match="uint8"):
        tl.randint(0, 300, (3,), dtype=tl.uint8)
    with pytest.raises(ValueError, match="std"):
        tl.randn(3).normal_(0, -1)
    with pytest.raises(NotImplementedError, match="rand"):
        tl.rand(3, device="cuda")
    with pytest.raises(NotImplementedError, match="randperm"):
        tl.randperm(3, device="cuda")
    with pytest.raises(RuntimeError, match="generator"):
        tl.rand(3, generator=tl.Generator("cuda"))
    with pytest.raises(TypeError, match="generator"):
        tl.rand(3, generator=5)
    with pytest.raises(TypeError, match="dtype"):
        tl.rand(3, dtype=tl.float64, out=tl.empty(3))
    with pytest.raises(tl.ShapeError):
        tl.rand(3, out=tl.empty(4))
    out = tl.empty(0)
    assert tl.rand(2, 3, out=out).shape == (2, 3)   # resized, as out= ops


# ---- leaks ----------------------------------------------------------------------


def _leak_round(g, x, p):
    _every_op(g)
    for bad in _refusals(tl, g):
        try:
            bad()
        except Exception:
            pass
    x.uniform_(generator=g)
    tl.rand(3, 4, out=x)
    tl.randn(4, 3, out=x.t())
    tl.bernoulli(p, generator=g)


def test_leak_loop_flat():
    g = tl.Generator().manual_seed(1)
    x = tl.empty(3, 4)
    p = tl.rand(20)
    watched = [g, x, p, tl.float32, tl.default_generator]
    for _ in range(5):
        _leak_round(g, x, p)
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    impl_rcs = [T.impl_refcount(t) for t in (x, p)]
    stats = tl.memory_stats()
    tracemalloc.start()
    try:
        for _ in range(5):
            _leak_round(g, x, p)
        gc.collect()
        snap1 = tracemalloc.take_snapshot()
        for _ in range(30):
            _leak_round(g, x, p)
        gc.collect()
        snap2 = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in snap2.compare_to(snap1, "filename"))
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert [T.impl_refcount(t) for t in (x, p)] == impl_rcs
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    assert grown < 32 * 1024, grown


def test_generator_objects_do_not_leak():
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(200):
            tl.Generator().manual_seed(3).get_state()
        gc.collect()
        s1 = tracemalloc.take_snapshot()
        for _ in range(2000):
            tl.Generator().manual_seed(3).get_state()
        gc.collect()
        s2 = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert sum(s.size_diff for s in s2.compare_to(s1, "filename")) < 16384
