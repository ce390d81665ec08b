"""No hidden memory (issue 22): every op allocates exactly its output's
bytes, plus the temporaries docs/memory.md ("What each op
allocates") documents, checked through the
allocator's own counters (memory_stats()['active_bytes_peak'] after
reset_peak_memory_stats()), one test per op family.  Views allocate
nothing.  After the result is dropped the active bytes are back where
they were (no leak).

Also the small-op fast paths of issue 22: t[int, ...] (one view from a
tuple of ints) against NumPy on random shapes and strides, and the cached
.shape/.stride() tuples, which must follow every metadata change."""
import gc
import sys

import numpy as np
import pytest

import tensorlib as tl

F32 = np.float32


def _active():
    return tl.memory_stats()["active_bytes"]


def peak_of(fn):
    """(result, bytes allocated at the peak of one call of fn, bytes still
    held by the result).  fn runs once before to warm lazy state."""
    fn()
    before = _active()
    tl.reset_peak_memory_stats()
    r = fn()
    peak = tl.memory_stats()["active_bytes_peak"] - before
    held = _active() - before
    return r, peak, held


def out_bytes(r):
    """Bytes of the storages a result owns (views own none)."""
    if isinstance(r, (tuple, list)):
        return sum(out_bytes(x) for x in r)
    if isinstance(r, tl.Tensor):
        if r._base is not None:
            return 0
        return r.numel() * r.element_size()
    return 0


def check(fn, extra=0, new=True):
    """fn allocates its output (new=False: it returns an existing tensor,
    out= or in place, and allocates none) plus `extra` documented temporary
    bytes, and nothing survives the result."""
    fn()  # warm: lazy state (a first cached wrapped number) stays
    base = _active()
    r, peak, held = peak_of(fn)
    want = out_bytes(r) if new else 0
    assert held == want, f"the result holds {held} bytes, its storages {want}"
    assert peak == want + extra, (
        f"peak {peak} bytes: output {want} + documented temporaries "
        f"{extra}; {peak - want - extra:+d} hidden")
    del r
    assert _active() == base
    return peak


def t32(rng, *shape):
    return tl.tensor(rng.standard_normal(shape).astype(F32))


# shapes up to a few thousand elements: below the parallel grain, where
# no op needs per-thread partials (docs/memory.md)
SIZES = [0, 1, 7, 300]


@pytest.fixture
def rng():
    return np.random.default_rng(22)


# ---- elementwise -----------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_elementwise_allocates_its_output(rng, n):
    a, b = t32(rng, n), t32(rng, n)
    m = tl.tensor(rng.standard_normal((n, 3)).astype(F32)).T  # transposed
    f = a.flip(0)
    mask = a > b
    for fn in (lambda: a + b, lambda: a * b, lambda: -a, lambda: a.exp(),
               lambda: a > b, lambda: tl.where(mask, a, b),
               lambda: m + m, lambda: f - a, lambda: tl.maximum(a, f),
               lambda: a[None, :] + b[:, None] if n <= 7 else a + b):
        check(fn)
    out = tl.empty(n)
    check(lambda: tl.add(a, b, out=out), new=False)   # out=: nothing
    c = a.clone()
    check(lambda: c.mul_(b), new=False)               # in place: nothing


@pytest.mark.parametrize("n", [1, 7, 300])
def test_elementwise_documented_temporaries(rng, n):
    a = t32(rng, n)
    # a Python int or float operand of an operator reuses a cached wrapped
    # number: nothing beyond the output
    check(lambda: a * 2.0)
    check(lambda: a + 2)
    check(lambda: 2.0 - a)
    # other scalars are a wrapped 0-d tensor for the call: their itemsize
    check(lambda: a + True, extra=1)
    check(lambda: a + 2 ** 63, extra=8)             # uint64
    check(lambda: a * 1j, extra=16)
    # a partly overlapping input is copied first (NumPy's rule)
    c = a.clone()
    check(lambda: c.add_(c.flip(0)), extra=n * 4 if n > 1 else 0, new=False)


# ---- reductions --------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_reductions_allocate_their_output(rng, n):
    a = t32(rng, n)
    pos = a > 0
    m = t32(rng, 3, max(n // 3, 1))
    fns = [lambda: a.sum(), lambda: a.mean(), lambda: a.prod(),
           lambda: pos.any(), lambda: m.sum(0), lambda: m.sum(1),
           lambda: m.T.sum(1), lambda: m.amax(1), lambda: m.argmax(1),
           lambda: m.max(1)]
    if n:
        fns += [lambda: a.max(), lambda: a.argmin()]
    for fn in fns:
        check(fn)


def test_variance_welford_state(rng):
    # var/std keep a Welford state of 40 bytes per output element
    # (docs/memory.md)
    a = t32(rng, 50)
    m = t32(rng, 6, 9)
    check(lambda: a.std(), extra=40)
    check(lambda: m.var(0), extra=40 * 9)


# ---- views -------------------------------------------------------------------

def test_views_allocate_nothing(rng):
    t = t32(rng, 3, 4)
    for fn in (lambda: t[1:3], lambda: t.T, lambda: t.reshape(4, 3),
               lambda: t[1, 2], lambda: t[-1], lambda: t[:, None],
               lambda: t.transpose(0, 1), lambda: t.flip(0),
               lambda: t.unsqueeze(0).expand(2, 3, 4), lambda: t.view(12),
               lambda: t.squeeze(), lambda: t.narrow(1, 1, 2),
               lambda: t.diagonal(), lambda: t[..., 0]):
        r, peak, held = peak_of(fn)
        assert r._base is not None and peak == 0 and held == 0


# ---- creation ----------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (3, 4), (2, 3, 5)])
def test_creation_allocates_its_output(shape):
    n = int(np.prod(shape))
    check(lambda: tl.empty(shape))
    check(lambda: tl.zeros(shape, dtype=tl.float64))
    check(lambda: tl.ones(shape, dtype=tl.int8))
    check(lambda: tl.full(shape, 2.5))
    check(lambda: tl.tensor(np.ones(shape, F32).tolist()))
    check(lambda: tl.arange(n))
    # from_numpy shares NumPy's memory: tensorlib allocates nothing
    x = np.ones(shape, F32)
    r, peak, held = peak_of(lambda: tl.from_numpy(x))
    assert peak == 0 and held == 0


# ---- indexing ----------------------------------------------------------------

def test_indexing_allocations(rng):
    v = t32(rng, 20)
    m = v > 0
    k = int(m.sum().item())
    idx = tl.tensor([3, -1, 0])
    pidx = idx.abs()
    # a gather computes one int64 element offset per index position
    check(lambda: v[idx], extra=8 * 3)
    check(lambda: v[[3, -1]], extra=8 * 2 + 8 * 2)   # + the list as int64
    check(lambda: tl.index_select(v, 0, pidx))
    # a boolean mask: the int64 positions of its true elements, then the
    # gather's offsets
    check(lambda: v[m], extra=16 * k)
    w = v.clone()
    check(lambda: w.__setitem__(slice(2, 5), 1.0), new=False)  # a fill


# ---- joins -------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_joins_allocate_their_output(rng, n):
    a, b = t32(rng, n), t32(rng, n)
    check(lambda: tl.cat((a, b)))
    check(lambda: tl.stack((a, b)))
    check(lambda: tl.cat((a.flip(0), b)))


# ---- sort / scan -------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 7, 300])
def test_sort_scan_allocations(rng, n):
    a = t32(rng, n)
    check(lambda: tl.cumsum(a, 0))
    check(lambda: tl.cumprod(a, 0))
    # the radix sort's scratch: two key buffers (each rounded up to 8
    # bytes) and the uint32 index pair (8 bytes per element); up to 2 KiB
    # of it lives on the stack (Note [Small sort scratch])
    scratch = 2 * (-(-4 * n // 8) * 8) + 8 * n
    if scratch <= 2048:
        scratch = 0
    check(lambda: tl.sort(a), extra=scratch)
    check(lambda: tl.argsort(a), extra=scratch)


# ---- linalg ------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 4, 33])
def test_linalg_allocations(rng, n):
    a, b = t32(rng, n, n), t32(rng, n, n)
    v = t32(rng, n)
    check(lambda: a @ b)
    check(lambda: a @ v)
    check(lambda: tl.matmul(a.T, b))
    check(lambda: tl.dot(v, v))


# ---- casts -------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_casts_allocate_their_output(rng, n):
    a = t32(rng, n)
    m = t32(rng, 3, n)
    check(lambda: a.double())
    check(lambda: a.to(tl.int32))
    check(lambda: a.to(tl.bool))
    check(lambda: m.T.contiguous())
    check(lambda: a.clone())
    r, peak, held = peak_of(lambda: a.float())   # same dtype: itself
    assert peak == 0 and held == 0


# ---- t[int, ...] fast path ---------------------------------------------------

def _layouts(rng):
    base = rng.standard_normal((4, 5, 3)).astype(F32)
    t = tl.tensor(base)
    yield base, t
    yield base.transpose(2, 0, 1), t.permute(2, 0, 1)
    yield base[::-1], t.flip(0)
    yield base[1:, ::2], t[1:, ::2]
    yield np.broadcast_to(base[:1], (3, 5, 3)), t[:1].expand(3, 5, 3)


def test_int_key_matches_numpy(rng):
    for x, t in _layouts(rng):
        for _ in range(30):
            k = int(rng.integers(1, x.ndim + 1))
            key = tuple(int(rng.integers(-s, s)) for s in x.shape[:k])
            r = t[key if k > 1 else key[0]]
            want = x[key if k > 1 else key[0]]
            np.testing.assert_array_equal(r.numpy(), want)
            assert r.shape == np.shape(want)
            assert r._base is not None  # a view


def test_int_key_views_share_version_and_readonly(rng):
    t = t32(rng, 3, 4)
    v = t[1, 2]
    before = t._version
    v.fill_(7.0)
    assert t[1, 2].item() == 7.0 and t._version == before + 1
    x = np.arange(12, dtype=F32).reshape(3, 4)
    x.setflags(write=False)
    ro = tl.from_numpy(x)
    e = ro[1, 2]
    with pytest.raises((RuntimeError, ValueError)):
        e.fill_(1.0)


def test_int_key_errors_as_general_path(rng):
    t = t32(rng, 3, 4)
    with pytest.raises(IndexError, match="out of bounds for dimension 1"):
        t[0, 4]
    with pytest.raises(IndexError, match="out of bounds for dimension 0"):
        t[-4]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(IndexError):
        t[0, 2 ** 70]
    e = tl.empty(0, 3)
    with pytest.raises(IndexError):
        e[0]
    # bools and NumPy ints are not the fast path's, and keep their meaning
    np.testing.assert_array_equal(t[np.int64(1), np.int32(2)].numpy(),
                                  t.numpy()[1, 2])
    assert t[True].shape == (1, 3, 4)


# ---- cached .shape / .stride() -------------------------------------------

def _meta(t):
    return tuple(t.shape), t.stride()


def test_shape_stride_follow_metadata_changes():
    t = tl.arange(24.0)
    assert _meta(t) == ((24,), (1,))
    s0 = t.shape
    assert t.shape is s0                      # cached while unchanged
    assert type(s0) is tl.Size
    t.resize_(4, 6)
    assert _meta(t) == ((4, 6), (6, 1))
    t.set_(tl.arange(6.0).reshape(2, 3).T)
    assert _meta(t) == ((3, 2), (1, 3))
    t.resize_(2, 2, 2)
    assert _meta(t) == ((2, 2, 2), (4, 2, 1))
    t.set_(tl.zeros(5))
    assert _meta(t) == ((5,), (1,))
    t.resize_(0)
    assert _meta(t) == ((0,), (1,))
    assert s0 == (24,)                        # handed-out tuples unchanged
    z = tl.tensor(3.0)
    assert z.shape == () and z.stride() == ()
    assert t.size() == t.shape and t.stride(0) == 1


def test_shape_stride_caches_follow_every_metadata_path():
    # Each path that changes an existing tensor's sizes or strides, with
    # both tuples cached before it; shape and stride are cached apart, so
    # each is also read alone after a change.
    t = tl.arange(6.0)
    _meta(t)
    base = tl.arange(12.0)
    t.set_(base.untyped_storage(), 0, (2, 3), (3, 1))
    assert _meta(t) == ((2, 3), (3, 1))
    t.set_(base.untyped_storage(), 0, (2, 3), (1, 2))   # same sizes
    assert t.stride() == (1, 2) and t.shape == (2, 3)
    t.set_(base.untyped_storage(), 1, (2, 3), (1, 2))   # same layout
    assert _meta(t) == ((2, 3), (1, 2))
    t.resize_(3, 2)
    assert t.stride() == (2, 1)
    assert t.shape == (3, 2)
    # out= of the wrong size is resized in place
    out = tl.empty(0)
    _meta(out)
    tl.add(tl.ones(2, 5), 1.0, out=out)
    assert _meta(out) == ((2, 5), (5, 1))
    tl.add(tl.ones(5, 2).T, 1.0, out=out)                 # already fits
    assert _meta(out) == ((2, 5), (5, 1))
    # in-place metadata change of a root leaves its views' tuples alone
    r = tl.zeros(4, 4)
    v = r[1:3]
    vm = _meta(v)
    r.resize_(16)
    assert _meta(v) == vm == ((2, 4), (4, 1))
    assert _meta(r) == ((16,), (1,))
    # a failed resize_ changes nothing, cached tuples included
    w = tl.zeros(2, 3)[:, :2]
    wm = _meta(w)
    with pytest.raises(Exception):
        w.resize_(-1)
    assert _meta(w) == wm


def test_recycled_tensor_objects_start_clean():
    # Dead Tensor objects are reused (Note [Tensor object free list]): a
    # reused one must carry nothing of its last life.
    import weakref
    for _ in range(3):
        a = tl.arange(12.0).reshape(3, 4)
        _meta(a)
        wr = weakref.ref(a)
        del a
        gc.collect()
        assert wr() is None
        b = [tl.zeros(5, 1) for _ in range(80)]
        for x in b:
            assert _meta(x) == ((5, 1), (1, 1))
            assert weakref.getweakrefcount(x) == 0
        del b


def test_shape_cache_is_freed():
    t = tl.zeros(3, 4)
    s, st = t.shape, t.stride()
    rs, rst = sys.getrefcount(s), sys.getrefcount(st)
    del t
    gc.collect()
    assert sys.getrefcount(s) == rs - 1 and sys.getrefcount(st) == rst - 1


# ---- leak loop ---------------------------------------------------------------

def test_fast_paths_leak_nothing(rng):
    t = t32(rng, 3, 4)
    a = t32(rng, 10)

    def round_():
        for _ in range(50):
            t[1, 2], t[-1], t[1, 2:], t.shape, t.stride(), t.size()
            try:
                t[0, 9]
            except IndexError:
                pass
            a * 2.0, tl.sort(a), a[a > 0]
    round_()
    gc.collect()
    stats = tl.memory_stats()
    refs = sys.getrefcount(t), sys.getrefcount(a)
    round_()
    gc.collect()
    after = tl.memory_stats()
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]
    assert (sys.getrefcount(t), sys.getrefcount(a)) == refs


# ---- small copies (contiguous()/clone() of small views) --------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8",
                                   "int64", "bool", "complex128"])
def test_small_contiguous_matches_numpy(rng, dtype):
    for _ in range(20):
        shape = tuple(int(s) for s in rng.integers(0, 5, rng.integers(0, 5)))
        x = np.asarray((rng.standard_normal(shape) * 10).astype(dtype))
        t = tl.from_numpy(x.copy())
        views = [(x, t)]
        if x.ndim:
            views.append((x[::-1], t.flip(0)))
            views.append((x[1:], t[1:]))
        if x.ndim >= 2:
            views.append((np.swapaxes(x, 0, -1), t.transpose(0, -1)))
            views.append((x[:, ::2], t[:, ::2]))
        if x.ndim and x.shape[0]:
            views.append((np.broadcast_to(x[:1], (3,) + x.shape[1:]),
                          t[:1].expand(3, *x.shape[1:])))
        for xv, tv in views:
            c = tv.contiguous()
            assert c.is_contiguous() and c.dtype == tv.dtype
            np.testing.assert_array_equal(c.numpy(), xv)
            k = tv.clone()
            np.testing.assert_array_equal(k.numpy(), xv)
            assert k.data_ptr() != tv.data_ptr() or k.numel() == 0


# ---- the cached wrapped numbers of operators --------------------------------

def test_cached_scalars_values_and_dtypes(torch):
    a = tl.tensor([1.5, -2.0, 3.0])
    i = tl.tensor([1, 2, 3], dtype=tl.int32)
    ta = torch.tensor([1.5, -2.0, 3.0])
    ti = torch.tensor([1, 2, 3], dtype=torch.int32)
    for k in (2.0, -0.5, 3, -7, 0, 2 ** 40, float("inf")):
        for x, tx in ((a, ta), (i, ti)):
            for r, tr in ((x * k, tx * k), (k - x, k - tx), (x + k, tx + k),
                          (x < k, tx < k)):
                assert str(r.dtype).split(".")[-1] == \
                    str(tr.dtype).split(".")[-1]
                np.testing.assert_array_equal(r.numpy(), tr.numpy())
    # two scalars at once: the second cannot reuse the busy cached tensor
    assert tl.add(2.0, 3.0).item() == 5.0
    assert tl.mul(4, 5).item() == 20
    assert (tl.sub(2.5, 0.5) == tl.tensor(2.0, dtype=tl.float64)).item()


def test_cached_scalars_across_threads():
    import threading
    n = 1 << 20                     # big enough to release the GIL
    base = tl.ones(n)
    errors = []

    def work(k):
        for _ in range(20):
            r = base * float(k)
            if r[0].item() != k or r[n - 1].item() != k:
                errors.append(k)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
