"""Views: every view op against NumPy on random shapes and on random chains
of views (values, np.shares_memory, one storage, the root as _base, one
version counter, writes through the view reaching the base), reshape's
view-or-copy decision and view's strides against PyTorch, flip as an O(1)
view, broadcasting helpers, and the errors of bad input (each the exception
DESIGN.md assigns, operands unchanged)."""
import itertools

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided as np_as_strided
from numpy.lib.stride_tricks import sliding_window_view

import tensorlib as tl

SEEDS = range(40)


# ---- helpers --------------------------------------------------------------


def root_arange(n, dtype=tl.float64):
    """A root tensor (no _base) holding 0..n-1: every element's value is
    its flat position in the storage."""
    r = tl.arange(n, dtype=dtype)
    assert r._base is None and not r._is_view()
    return r


def random_shape(rng, max_ndim=4, max_size=4, min_size=0):
    ndim = int(rng.integers(0, max_ndim + 1))
    return tuple(int(s) for s in rng.integers(min_size, max_size + 1, ndim))


def factor_shape(rng, numel, max_ndim=4):
    """A random shape whose product is numel (1s sprinkled in)."""
    if numel == 0:
        shape = list(random_shape(rng, max_ndim, 3))
        if 0 not in shape:
            shape.append(0)
        rng.shuffle(shape)
        return tuple(shape)
    shape = []
    left = numel
    while left > 1 and len(shape) < max_ndim:
        divs = [d for d in range(1, left + 1) if left % d == 0]
        d = int(rng.choice(divs))
        shape.append(d)
        left //= d
    if left > 1:
        if shape:
            shape[-1] *= left
        else:
            shape.append(left)
    if rng.random() < 0.3 and len(shape) < max_ndim:
        shape.insert(int(rng.integers(0, len(shape) + 1)), 1)
    return tuple(shape)


def assert_same(t, a):
    """t (tensorlib) equals a (NumPy) in shape and values."""
    assert tuple(t.shape) == a.shape, (tuple(t.shape), a.shape)
    np.testing.assert_array_equal(t.numpy(), a)


def assert_view_of(v, root):
    """v is a view of root: same storage object, root as _base, shares
    memory (as NumPy sees it too), one version counter."""
    assert v._is_view()
    assert v._base is root
    assert v.untyped_storage() is root.untyped_storage()
    assert v._version == root._version
    if v.numel() > 0:
        assert np.shares_memory(v.numpy(), root.numpy())
        assert tl.shares_memory(v, root)
        assert tl.may_share_memory(v, root)


def check_write_through(v, root):
    """Writing through v changes exactly the base elements v reaches.  The
    root holds 0..n-1, so v's values are the flat positions it reaches."""
    if v.numel() == 0:
        return
    reach = v.numpy().astype(np.int64).ravel()
    if len(np.unique(reach)) != reach.size:
        return  # overlapping view (expand, unfold): writing it is refused
    before = root.numpy().copy()
    version = root._version
    v.fill_(-1.0)
    assert root._version > version and v._version == root._version
    after = root.numpy()
    expected = before.copy()
    expected[reach] = -1.0
    np.testing.assert_array_equal(after, expected)
    root.copy_(tl.tensor(before))  # restore for the next step


# ---- random view ops: each returns (tensorlib result, NumPy result) --------


def op_view(rng, t, a):
    shape = list(factor_shape(rng, t.numel()))
    if shape and rng.random() < 0.6 and t.numel() > 0:
        shape[int(rng.integers(0, len(shape)))] = -1
    try:
        r = t.view(shape)
    except tl.ShapeError:
        # Not expressible with these strides: reshape must copy then.
        c = t.reshape(shape)
        assert not tl.shares_memory(c, t) or t.numel() == 0
        return None
    return r, a.reshape(tuple(r.shape))


def op_reshape(rng, t, a):
    shape = factor_shape(rng, t.numel())
    try:
        t.view(shape)
        can_view = True
    except tl.ShapeError:
        can_view = False
    r = t.reshape(shape)
    if not can_view:
        assert r.untyped_storage() is not t.untyped_storage()
        assert_same(r, a.reshape(shape))
        return None
    assert r.untyped_storage() is t.untyped_storage()
    return r, a.reshape(shape)


def op_flatten(rng, t, a):
    n = t.ndim
    if n == 0:
        s, e = 0, -1
    else:
        s = int(rng.integers(0, n))
        e = int(rng.integers(s, n))
    try:
        shape = tuple(t.shape[:s]) + (-1,) + tuple(t.shape[e + 1:]) \
            if n else (1,)
        t.view(shape if t.numel() else tuple(t.shape[:s]) + (
            int(np.prod(t.shape[s:e + 1])),) + tuple(t.shape[e + 1:]))
    except tl.ShapeError:
        return None
    r = t.flatten(s - n if n and rng.random() < 0.5 else s, e)
    if n == 0:
        return r, a.reshape(1)
    shape = a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:]
    return r, a.reshape(shape)


def op_unflatten(rng, t, a):
    if t.ndim == 0:
        return None
    d = int(rng.integers(0, t.ndim))
    parts = list(factor_shape(rng, t.shape[d], 3)) or [1]
    if t.shape[d] > 0 and rng.random() < 0.5:
        parts[int(rng.integers(0, len(parts)))] = -1
    r = t.unflatten(d - t.ndim if rng.random() < 0.3 else d, parts)
    return r, a.reshape(tuple(r.shape))


def op_transpose(rng, t, a):
    n = max(t.ndim, 1)
    d0, d1 = (int(x) for x in rng.integers(-n, n, 2))
    if t.ndim == 0:
        return t.transpose(d0, d1), a
    fn = [t.transpose, t.swapaxes, t.swapdims][int(rng.integers(0, 3))]
    return fn(d0, d1), np.swapaxes(a, d0, d1)


def op_permute(rng, t, a):
    perm = [int(p) for p in rng.permutation(t.ndim)]
    neg = [p - t.ndim if rng.random() < 0.3 else p for p in perm]
    r = t.permute(*neg) if rng.random() < 0.5 else t.permute(neg)
    return r, np.transpose(a, perm)


def op_t(rng, t, a):
    if t.ndim > 2:
        return None
    return t.t(), a.T


def op_T(rng, t, a):
    return t.T, np.transpose(a)


def op_mT(rng, t, a):
    if t.ndim < 2:
        return None
    return t.mT, np.swapaxes(a, -1, -2)


def op_movedim(rng, t, a):
    if t.ndim == 0:
        return None
    k = int(rng.integers(1, t.ndim + 1))
    src = [int(x) for x in rng.choice(t.ndim, k, replace=False)]
    dst = [int(x) for x in rng.choice(t.ndim, k, replace=False)]
    if k == 1 and rng.random() < 0.5:
        return t.movedim(src[0], dst[0]), np.moveaxis(a, src[0], dst[0])
    fn = t.movedim if rng.random() < 0.5 else t.moveaxis
    return fn(src, dst), np.moveaxis(a, src, dst)


def op_expand(rng, t, a):
    lead = int(rng.integers(0, 3))
    if t.ndim + lead > 6:
        lead = 0
    sizes = [int(rng.integers(0, 4)) for _ in range(lead)]
    for s in t.shape:
        if s == 1:
            sizes.append(int(rng.integers(0, 4)))
        else:
            sizes.append(-1 if rng.random() < 0.5 else s)
    target = tuple(sizes[:lead]) + tuple(
        s if w == -1 else w for s, w in zip(t.shape, sizes[lead:]))
    how = int(rng.integers(0, 4))
    if how == 0:
        r = t.expand(*sizes)
    elif how == 1:
        r = t.expand(sizes)
    elif how == 2:
        r = t.broadcast_to(target)
    else:
        r = t.expand_as(tl.empty(target))
    return r, np.broadcast_to(a, target)


def op_squeeze(rng, t, a):
    how = int(rng.integers(0, 3))
    if how == 0 or t.ndim == 0:
        return t.squeeze(), np.squeeze(a)
    if how == 1:
        d = int(rng.integers(-t.ndim, t.ndim))
        r = t.squeeze(d)
        return r, (np.squeeze(a, d) if a.shape[d] == 1 else a)
    k = int(rng.integers(0, t.ndim + 1))
    dims = [int(x) for x in rng.choice(t.ndim, k, replace=False)]
    r = t.squeeze(tuple(dims))
    ones = tuple(d for d in dims if a.shape[d] == 1)
    return r, np.squeeze(a, ones) if ones else a


def op_unsqueeze(rng, t, a):
    if t.ndim >= 6:
        return None
    d = int(rng.integers(-t.ndim - 1, t.ndim + 1))
    return t.unsqueeze(d), np.expand_dims(a, d)


def op_narrow(rng, t, a):
    if t.ndim == 0:
        return None
    d = int(rng.integers(0, t.ndim))
    n = t.shape[d]
    start = int(rng.integers(0, n + 1))
    length = int(rng.integers(0, n - start + 1))
    s = start - n if (rng.random() < 0.3 and start < n) else start
    r = t.narrow(d, s, length)
    idx = [slice(None)] * t.ndim
    idx[d] = slice(start, start + length)
    return r, a[tuple(idx)]


def op_select(rng, t, a):
    if t.ndim == 0:
        return None
    d = int(rng.integers(0, t.ndim))
    if t.shape[d] == 0:
        return None
    i = int(rng.integers(-t.shape[d], t.shape[d]))
    return t.select(d, i), np.take(a, i, axis=d)


def op_unfold(rng, t, a):
    if t.ndim == 0 or t.ndim >= 6:
        return None
    d = int(rng.integers(0, t.ndim))
    size = int(rng.integers(0, t.shape[d] + 1))
    step = int(rng.integers(1, 4))
    r = t.unfold(d, size, step)
    w = sliding_window_view(a, size, axis=d)
    idx = [slice(None)] * w.ndim
    idx[d] = slice(None, None, step)
    return r, w[tuple(idx)]


def op_diagonal(rng, t, a):
    if t.ndim < 2:
        return None
    d1, d2 = (int(x) for x in rng.choice(t.ndim, 2, replace=False))
    off = int(rng.integers(-4, 5))
    if rng.random() < 0.5:
        d1 -= t.ndim
    r = t.diagonal(off, d1, d2) if rng.random() < 0.5 else t.diagonal(
        offset=off, dim1=d1, dim2=d2)
    return r, np.diagonal(a, off, d1, d2)


def op_split(rng, t, a):
    if t.ndim == 0:
        return None
    d = int(rng.integers(0, t.ndim))
    n = t.shape[d]
    how = int(rng.integers(0, 4))
    if how == 0:
        each = int(rng.integers(1, n + 2)) if n else int(rng.integers(0, 3))
        parts = t.split(each, d)
        bounds = list(range(0, n, each)) + [n] if each else [0, 0]
        if n == 0:
            bounds = [0, 0]
    elif how == 1:
        cuts = sorted(int(x) for x in rng.integers(0, n + 1, 2))
        sections = [cuts[0], cuts[1] - cuts[0], n - cuts[1]]
        parts = t.split(sections, d)
        bounds = [0, cuts[0], cuts[1], n]
    elif how == 2:
        chunks = int(rng.integers(1, 5))
        parts = t.chunk(chunks, d)
        each = -(-n // chunks) if n else 1
        # an empty dim gives `chunks` empty pieces (as PyTorch)
        bounds = list(range(0, n, each)) + [n] if n else [0] * (chunks + 1)
    else:
        parts = t.unbind(d)
        assert len(parts) == n
        if n == 0:
            return None
        k = int(rng.integers(0, n))
        return parts[k], np.take(a, k, axis=d)
    assert len(parts) == len(bounds) - 1
    for p, lo, hi in zip(parts, bounds[:-1], bounds[1:]):
        idx = [slice(None)] * t.ndim
        idx[d] = slice(lo, hi)
        assert_same(p, a[tuple(idx)])
        assert p.untyped_storage() is t.untyped_storage()
    k = int(rng.integers(0, len(parts)))
    idx = [slice(None)] * t.ndim
    idx[d] = slice(bounds[k], bounds[k + 1])
    return parts[k], a[tuple(idx)]


def op_flip(rng, t, a):
    k = int(rng.integers(0, t.ndim + 1))
    dims = [int(x) for x in rng.choice(max(t.ndim, 1), k, replace=False)] \
        if t.ndim else []
    r = t.flip(dims) if rng.random() < 0.5 else t.flip(*dims)
    return r, np.flip(a, tuple(dims)) if dims else a


def random_basic_item(rng, n):
    """Key items for one dim of size n (a None may come along)."""
    r = rng.random()
    if r < 0.25 and n > 0:
        return [int(rng.integers(-n, n))]
    if r < 0.35:
        return [None, slice(None)]
    start = int(rng.integers(-n - 2, n + 3)) if rng.random() < 0.7 else None
    stop = int(rng.integers(-n - 2, n + 3)) if rng.random() < 0.7 else None
    step = int(rng.choice([1, 1, 2, 3, -1, -2, -3, 7, -7])) \
        if rng.random() < 0.8 else None
    return [slice(start, stop, step)]


def random_basic_key(rng, shape):
    """A basic index: ints (negative too), slices of any step, None,
    Ellipsis."""
    n = len(shape)
    c1 = int(rng.integers(0, n + 1))
    key = []
    for d in range(c1):
        key += random_basic_item(rng, shape[d])
    if rng.random() < 0.4:
        key.append(Ellipsis)
        c2 = int(rng.integers(0, n - c1 + 1))
        for d in range(n - c2, n):
            key += random_basic_item(rng, shape[d])
    if rng.random() < 0.2:
        key.insert(int(rng.integers(0, len(key) + 1)), None)
    return tuple(key)


def op_getitem(rng, t, a):
    key = random_basic_key(rng, tuple(t.shape))
    if len(key) == 1 and rng.random() < 0.5:
        key = key[0]
    return t[key], a[key]


def op_as_strided(rng, t, a, root):
    n = root.numel()
    if n == 0:
        return None
    sizes = random_shape(rng, 3, 3)
    strides = tuple(int(s) for s in rng.integers(0, 4, len(sizes)))
    span = sum((s - 1) * st for s, st in zip(sizes, strides) if s > 0)
    if 0 in sizes:
        span = 0
    if span >= n:
        return None
    off = int(rng.integers(0, n - span))
    r = t.as_strided(sizes, strides, off)
    flat = root.numpy()
    want = np_as_strided(flat[off:], sizes,
                         tuple(s * flat.itemsize for s in strides))
    return r, want


OPS = [op_view, op_reshape, op_flatten, op_unflatten, op_transpose,
       op_permute, op_t, op_T, op_mT, op_movedim, op_expand, op_squeeze,
       op_unsqueeze, op_narrow, op_select, op_unfold, op_diagonal,
       op_split, op_flip, op_getitem]


# ---- every op on random shapes ---------------------------------------------


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__[3:])
@pytest.mark.parametrize("seed", range(12))
def test_view_op_vs_numpy(op, seed):
    rng = np.random.default_rng(seed * 1000 + OPS.index(op))
    done = 0
    for _ in range(30):
        shape = random_shape(rng, 4, 4)
        n = int(np.prod(shape))
        root = root_arange(max(n, 1))
        t = root[:n].view(shape) if n else root[:0].view(shape)
        a = np.arange(n, dtype=np.float64).reshape(shape)
        res = op(rng, t, a)
        if res is None:
            continue
        r, want = res
        assert_same(r, want)
        assert_view_of(r, root)
        done += 1
    assert done > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_view_chains_vs_numpy(seed):
    """A random chain of view ops on tensorlib and the same chain on NumPy:
    equal values at every step, every result a view of the root (one
    storage object, the root as _base, np.shares_memory and
    tl.shares_memory agree), and writing through it reaches the base."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 97))
    root = root_arange(n)
    a = np.arange(n, dtype=np.float64)
    t = root
    # Start from a non-trivial layout sometimes: a strided window.
    if rng.random() < 0.5 and n > 4:
        step = int(rng.choice([1, 2, -1, -2]))
        t, a = t[::step], a[::step]
    ops = OPS + [op_as_strided]
    for _ in range(int(rng.integers(3, 9))):
        op = ops[int(rng.integers(0, len(ops)))]
        if t.numel() > 2000 or t.ndim >= 6:
            break
        res = op(rng, t, a, root) if op is op_as_strided else op(rng, t, a)
        if res is None:
            continue
        t2, a2 = res
        assert_same(t2, a2)
        assert_view_of(t2, root)
        if t2.numel() > 0:
            assert tl.shares_memory(t2, t) == np.shares_memory(
                t2.numpy(), t.numpy())
        t, a = t2, a2
    check_write_through(t, root)


def test_views_never_chain_bases():
    root = root_arange(24)
    v = root.view(2, 3, 4)
    w = v.transpose(0, 2)[1:].flip(0).unsqueeze(1).expand(3, 5, 3, 2)
    for x in (v, w, w[0], w.select(1, 2), w.diagonal(0, 0, 2)):
        assert x._base is root and x._base._base is None
    assert root._base is None and not root._is_view()


def test_writing_through_views_changes_base():
    root = root_arange(24)
    b = root.view(4, 6)
    b.t()[2].fill_(100.0)
    b.flip(1)[0, 0:2] = 7.0
    b.diagonal().zero_()
    b.unfold(1, 2, 2)[3, 1].add_(1000.0)
    want = np.arange(24, dtype=np.float64).reshape(4, 6)
    want[:, 2] = 100.0
    want[0, -2:] = 7.0
    np.fill_diagonal(want, 0.0)
    want[3, 2:4] += 1000.0
    np.testing.assert_array_equal(b.numpy(), want)
    np.testing.assert_array_equal(root.numpy(), want.ravel())


def test_views_share_the_version_counter():
    root = root_arange(12)
    views = [root.view(3, 4), root[::2], root.flip(0), root.unfold(0, 3, 3),
             root.as_strided((2, 2), (1, 2), 3), root.view(3, 4).t()]
    v0 = root._version
    views[1].add_(1.0)
    assert all(v._version == v0 + 1 for v in views + [root])
    views[-1][0, 0] = 5.0
    assert all(v._version == v0 + 2 for v in views + [root])


# ---- op-specific semantics --------------------------------------------------


def test_view_infers_one_dim():
    t = root_arange(24)
    assert t.view(-1, 4).shape == (6, 4)
    assert t.view(2, -1, 3).shape == (2, 4, 3)
    assert t.view(-1).shape == (24,)
    assert tl.empty(0, 3).view(-1, 3).shape == (0, 3)
    assert tl.empty(0, 3).view(5, 0).shape == (5, 0)
    s = tl.tensor(3.0)
    assert s.view(1, 1).shape == (1, 1) and s.view(-1).shape == (1,)
    assert s.view(()).shape == () and t[:1].view([]).shape == ()


def test_transpose_t_T_mT_shapes_and_strides():
    x = root_arange(24).view(2, 3, 4)
    assert x.transpose(0, 2).stride() == (1, 4, 12)
    assert x.swapaxes(-1, 0).shape == (4, 3, 2)
    assert x.T.shape == (4, 3, 2) and x.T.stride() == (1, 4, 12)
    assert x.mT.shape == (2, 4, 3) and x.mT.stride() == (12, 1, 4)
    m = x[0]
    assert m.t().shape == (4, 3) and m.t().stride() == (1, 4)
    v = root_arange(5)
    assert v.t().shape == (5,) and v.t()._base is v
    s = tl.tensor(1.0)
    assert s.t().shape == () and s.T.shape == ()
    assert s.transpose(0, -1).shape == ()


def test_movedim_functional_and_method_agree():
    x = root_arange(120).view(2, 3, 4, 5)
    a = np.arange(120.0).reshape(2, 3, 4, 5)
    for src, dst in [(0, 3), (-1, 0), ((0, 1), (2, 3)), ([3, 0], [0, 3]),
                     ((1,), (-1,))]:
        assert_same(x.movedim(src, dst), np.moveaxis(a, src, dst))
        assert_same(tl.movedim(x, src, dst), np.moveaxis(a, src, dst))
        assert_same(tl.moveaxis(x, src, dst), np.moveaxis(a, src, dst))


def test_expand_gives_zero_strides():
    x = root_arange(3).view(3, 1)
    e = x.expand(2, 3, 4)
    assert e.shape == (2, 3, 4) and e.stride() == (0, 1, 0)
    assert e.untyped_storage() is x.untyped_storage()
    assert x.expand(3, 0).shape == (3, 0)
    assert x.expand(-1, -1).stride() == x.stride()
    assert tl.broadcast_to(x, (5, 3, 2)).stride() == (0, 1, 0)
    x.fill_(2.0)
    assert e.numpy().min() == 2.0  # the same memory


def test_squeeze_unsqueeze_details():
    x = root_arange(6).view(1, 2, 1, 3, 1)
    assert x.squeeze().shape == (2, 3)
    assert x.squeeze(0).shape == (2, 1, 3, 1)
    assert x.squeeze(1).shape == (1, 2, 1, 3, 1)  # size != 1: no-op
    assert x.squeeze((0, 2, -1)).shape == (2, 3)
    assert x.squeeze(dim=-1).shape == (1, 2, 1, 3)
    assert tl.squeeze(x, 2).shape == (1, 2, 3, 1)
    s = tl.tensor(1.0)
    assert s.squeeze().shape == () and s.squeeze(0).shape == ()
    assert s.unsqueeze(0).shape == (1,) and s.unsqueeze(-1).shape == (1,)
    y = root_arange(6).view(2, 3)
    assert y.unsqueeze(-1).shape == (2, 3, 1)
    assert y.unsqueeze(0).stride() == (6, 3, 1)
    assert tl.unsqueeze(y, 1).shape == (2, 1, 3)


def test_unsqueeze_strides_vs_torch(torch):
    rng = np.random.default_rng(5)
    for _ in range(50):
        sizes, strides = random_layout(rng)
        n = storage_extent(sizes, strides)
        x = tl.empty(n).as_strided(sizes, strides)
        tx = torch.empty(n).as_strided(sizes, strides)
        for d in range(-len(sizes) - 1, len(sizes) + 1):
            assert x.unsqueeze(d).stride() == tx.unsqueeze(d).stride()


def test_flatten_unflatten_functional():
    x = root_arange(24).view(2, 3, 4)
    assert tl.flatten(x).shape == (24,)
    assert x.flatten(1).shape == (2, 12)
    assert x.flatten(0, 1).shape == (6, 4)
    assert x.flatten(-2, -1).shape == (2, 12)
    assert x.flatten(1, 1).shape == (2, 3, 4)
    assert tl.tensor(5.0).flatten().shape == (1,)
    assert x.unflatten(2, (2, 2)).shape == (2, 3, 2, 2)
    assert tl.unflatten(x, -1, (-1, 1, 2)).shape == (2, 3, 2, 1, 2)
    # flatten of a non-viewable layout copies (as reshape)
    f = x.transpose(0, 2).flatten()
    np.testing.assert_array_equal(
        f.numpy(), np.arange(24.0).reshape(2, 3, 4).transpose(2, 1, 0).ravel())
    assert not tl.shares_memory(f, x)


def test_narrow_select_functional():
    x = root_arange(24).view(4, 6)
    assert_same(tl.narrow(x, 1, -3, 2), np.arange(24.0).reshape(4, 6)[:, 3:5])
    assert_same(tl.select(x, 0, -1), np.arange(18.0, 24.0))
    assert x.narrow(0, 4, 0).shape == (0, 6)
    assert x.narrow(dim=0, start=1, length=2).shape == (2, 6)


def test_unfold_strides_and_values():
    x = root_arange(10)
    u = x.unfold(0, 3, 2)
    assert u.shape == (4, 3) and u.stride() == (2, 1)
    np.testing.assert_array_equal(u.numpy(), [[0, 1, 2], [2, 3, 4],
                                              [4, 5, 6], [6, 7, 8]])
    assert x.unfold(0, 0, 1).shape == (11, 0)
    assert x.unfold(0, 10, 100).shape == (1, 10)
    s = tl.tensor(7.0)
    assert s.unfold(0, 1, 1).shape == (1,)
    m = root_arange(12).view(3, 4)
    assert m.unfold(1, 2, 1).shape == (3, 3, 2)
    assert m.unfold(-2, 2, 1).stride() == (4, 1, 4)


def test_diagonal_functional_and_offsets():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = root_arange(60).view(3, 4, 5)
    for off in range(-5, 7):
        for d1, d2 in itertools.permutations(range(3), 2):
            assert_same(x.diagonal(off, d1, d2), np.diagonal(a, off, d1, d2))
    assert_same(tl.diagonal(x, 1), np.diagonal(a, 1))
    assert x.diagonal(100).shape == (5, 0)
    for off in (2 ** 63 - 1, -(2 ** 63), -(2 ** 62), 2 ** 62):
        assert x.diagonal(off).shape == (5, 0)


def test_split_chunk_unbind_functional():
    x = root_arange(10)
    assert [p.shape[0] for p in x.split(3)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in tl.split(x, [2, 0, 8])] == [2, 0, 8]
    assert [p.shape[0] for p in x.chunk(3)] == [4, 4, 2]
    assert [p.shape[0] for p in tl.chunk(x, 4)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in x.chunk(20)] == [1] * 10
    assert len(tl.unbind(x.view(2, 5), 1)) == 5
    for p in x.split(4) + x.chunk(2) + x.unbind():
        assert p._base is x and p.untyped_storage() is x.untyped_storage()


def test_split_chunk_counts_vs_torch(torch):
    for n in range(0, 9):
        for k in range(1, 6):
            x, tx = tl.empty(n, 2), torch.empty(n, 2)
            assert [p.shape for p in x.chunk(k)] == \
                [tuple(p.shape) for p in tx.chunk(k)], (n, k)
            if n or k:
                assert [p.shape for p in x.split(k)] == \
                    [tuple(p.shape) for p in tx.split(k)], (n, k)


# ---- flip: an O(1) view (PyTorch copies) ------------------------------------


def test_flip_is_a_view_with_negative_strides(torch):
    x = root_arange(24).view(2, 3, 4)
    f = x.flip(0, 2)
    assert f.stride() == (-12, 4, -1)
    assert f.storage_offset() == 12 + 3
    assert f._base is x._base and f.untyped_storage() is x.untyped_storage()
    assert tl.shares_memory(f, x)
    tf = torch.arange(24, dtype=torch.float64).view(2, 3, 4).flip(0, 2)
    np.testing.assert_array_equal(f.numpy(), tf.numpy())
    # flipping twice gives back the original layout
    ff = f.flip(0, 2)
    assert ff.stride() == x.stride()
    assert ff.storage_offset() == x.storage_offset()
    # a write through the flipped view lands in the base
    f[0, 0, 0] = -5.0
    assert x[1, 0, 3].item() == -5.0
    assert tl.flip(x, [1]).stride() == (12, -4, 1)
    assert x.flip().stride() == x.stride()  # no dims: an alias
    e = tl.empty(0, 3).flip(0, 1)
    assert e.shape == (0, 3) and e.storage_offset() == 0


@pytest.mark.parametrize("seed", range(10))
def test_flip_values_vs_torch(torch, seed):
    rng = np.random.default_rng(seed)
    shape = random_shape(rng, 4, 4)
    vals = rng.standard_normal(shape)
    dims = [int(d) for d in rng.choice(max(len(shape), 1),
                                       int(rng.integers(0, len(shape) + 1)),
                                       replace=False)] if shape else []
    got = tl.tensor(vals).flip(dims).numpy()
    np.testing.assert_array_equal(got, torch.tensor(vals).flip(dims).numpy())


def test_flip_is_constant_time():
    big = tl.empty(1 << 22, dtype=tl.uint8)
    f = big.flip(0)
    assert f.data_ptr() == big.data_ptr() + (1 << 22) - 1
    assert f.untyped_storage() is big.untyped_storage()


# ---- broadcasting helpers ---------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_broadcast_shapes_vs_numpy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        base = random_shape(rng, 4, 3)
        shapes = []
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, len(base) + 1))
            s = list(base[len(base) - k:])
            for i in range(len(s)):
                if rng.random() < 0.4:
                    s[i] = 1
            shapes.append(tuple(s))
        want = np.broadcast_shapes(*shapes)
        assert tl.broadcast_shapes(*shapes) == want
        ts = [root_arange(max(int(np.prod(s)), 1))[:int(np.prod(s))].view(s)
              for s in shapes]
        arrays = [np.arange(int(np.prod(s)), dtype=np.float64).reshape(s)
                  for s in shapes]
        outs = tl.broadcast_tensors(*ts)
        assert tl.broadcast_tensors(ts)[0].shape == want
        for o, t, w in zip(outs, ts, np.broadcast_arrays(*arrays)):
            assert_same(o, w)
            assert o.untyped_storage() is t.untyped_storage()


def test_broadcast_shapes_ints_and_errors():
    assert tl.broadcast_shapes() == ()
    assert tl.broadcast_shapes(3, (2, 1)) == (2, 3)
    assert tl.broadcast_shapes((0,), (1,)) == (0,)
    with pytest.raises(tl.ShapeError, match=r"3.*2|2.*3"):
        tl.broadcast_shapes((2, 3), (3, 2))
    with pytest.raises(tl.ShapeError):
        tl.broadcast_tensors(tl.empty(2), tl.empty(3))
    with pytest.raises(tl.ShapeError):
        tl.broadcast_shapes((-1,), (2,))


def test_broadcast_shapes_vs_torch(torch):
    cases = [((2, 1), (1, 3)), ((5, 1, 4), (3, 1)), ((0, 1), (1, 7)),
             ((1,), ()), ((), ()), ((4,), (1, 1, 4))]
    for a, b in cases:
        assert tl.broadcast_shapes(a, b) == tuple(torch.broadcast_shapes(a, b))


# ---- reshape / view against PyTorch -----------------------------------------


def random_layout(rng, max_ndim=4):
    """Random (sizes, strides): a permuted dense layout with gaps, with
    size-1 dims of arbitrary stride, some zero (broadcast) strides."""
    sizes = random_shape(rng, max_ndim, 4)
    n = len(sizes)
    order = rng.permutation(n)
    strides = [0] * n
    expected = 1
    for d in order[::-1]:
        expected *= int(rng.choice([1, 1, 1, 2, 3]))  # a gap sometimes
        strides[d] = expected
        expected *= max(sizes[d], 1)
    for d in range(n):
        if sizes[d] == 1 and rng.random() < 0.5:
            strides[d] = int(rng.integers(0, 30))
        elif rng.random() < 0.1:
            strides[d] = 0
    return tuple(sizes), tuple(strides)


def storage_extent(sizes, strides):
    if 0 in sizes:
        return 1
    return 1 + sum((s - 1) * st for s, st in zip(sizes, strides))


@pytest.mark.parametrize("seed", range(25))
def test_reshape_view_or_copy_matches_torch(torch, seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        sizes, strides = random_layout(rng)
        n = storage_extent(sizes, strides)
        vals = np.arange(n, dtype=np.float64)
        x = tl.tensor(vals).as_strided(sizes, strides)
        tx = torch.tensor(vals).as_strided(sizes, strides)
        numel = int(np.prod(sizes))
        for _ in range(4):
            shape = factor_shape(rng, numel)
            r, tr = x.reshape(shape), tx.reshape(shape)
            t_view = tr.untyped_storage().data_ptr() == \
                tx.untyped_storage().data_ptr()
            l_view = r.untyped_storage() is x.untyped_storage()
            assert l_view == t_view, (sizes, strides, shape)
            if l_view:
                assert r.data_ptr() == x.data_ptr() or numel == 0
                assert r.stride() == tr.stride(), (sizes, strides, shape)
                assert r._base is x._base
            else:
                # a copy is a fresh tensor, not a view (as PyTorch's
                # _unsafe_view): no _base
                assert r._base is None and not r._is_view()
                assert tr._base is None
            np.testing.assert_array_equal(r.numpy(), tr.numpy())
            # view() succeeds exactly when reshape() views
            try:
                v = x.view(shape)
                ok = True
            except tl.ShapeError as e:
                ok = False
                msg = str(e)
                assert "reshape" in msg and str(list(sizes)) in msg \
                    and str(list(strides)) in msg
            try:
                tv = tx.view(shape)
                tok = True
            except RuntimeError:
                tok = False
            assert ok == tok == l_view, (sizes, strides, shape)
            if ok:
                assert v.stride() == tv.stride(), (sizes, strides, shape)


def test_reshape_of_contiguous_is_a_view():
    x = root_arange(24)
    for shape in [(2, 12), (4, -1), (1, 24, 1), (2, 3, 2, 2)]:
        r = x.reshape(shape)
        assert r.untyped_storage() is x.untyped_storage()
        assert r._base is x
    assert tl.reshape(x, (6, 4)).shape == (6, 4)
    assert x.reshape(shape=(3, 8)).shape == (3, 8)


def test_reshape_negative_strides_values():
    rng = np.random.default_rng(0)
    for _ in range(40):
        shape = random_shape(rng, 3, 4, 1)
        a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        x = tl.tensor(a)
        dims = tuple(int(d) for d in range(len(shape)) if rng.random() < 0.5)
        f, fa = x.flip(dims), np.flip(a, dims)
        target = factor_shape(rng, a.size)
        assert_same(f.reshape(target), fa.reshape(target))


# ---- as_strided -------------------------------------------------------------


def test_as_strided_vs_numpy():
    rng = np.random.default_rng(3)
    root = root_arange(50)
    flat = root.numpy()
    for _ in range(100):
        res = op_as_strided(rng, root, None, root)
        if res is None:
            continue
        r, want = res
        assert_same(r, want)
        if r.numel():
            assert_view_of(r, root)


def test_as_strided_offset_is_absolute():
    root = root_arange(20)
    v = root[5:]
    assert v.as_strided((3,), (1,)).storage_offset() == 5
    assert v.as_strided((3,), (1,), 0).storage_offset() == 0
    assert v.as_strided((3,), (1,), 0)[0].item() == 0.0


# ---- bad input --------------------------------------------------------------


def snapshot(t):
    return (tuple(t.shape), t.stride(), t.storage_offset(), t._version,
            t.numpy().copy())


def assert_unchanged(t, snap):
    assert (tuple(t.shape), t.stride(), t.storage_offset(), t._version) == \
        snap[:4]
    np.testing.assert_array_equal(t.numpy(), snap[4])


BAD = [
    # (description, fn, exception, regex on message)
    ("view non-viewable", lambda x: x.t().view(24), tl.ShapeError,
     r"(?s)\[6, 4\].*\[1, 6\].*reshape"),
    ("two -1", lambda x: x.view(-1, -1), tl.ShapeError, r"one"),
    ("two -1 reshape", lambda x: x.reshape(-1, 2, -1), tl.ShapeError,
     r"one"),
    ("bad product", lambda x: x.view(5, 5), tl.ShapeError, r"24"),
    ("bad product reshape", lambda x: x.reshape(7, -1), tl.ShapeError,
     r"24"),
    ("negative size", lambda x: x.view(-2, -12), tl.ShapeError, r"-2"),
    ("expand non-1", lambda x: x.expand(3, 6), tl.ShapeError,
     r"(?s)3.*4"),
    ("expand fewer dims", lambda x: x.expand(6), tl.ShapeError, None),
    ("expand -1 leading", lambda x: x.expand(-1, 4, 6), tl.ShapeError, None),
    ("broadcast_to", lambda x: x.broadcast_to((4, 5)), tl.ShapeError, None),
    ("transpose dim", lambda x: x.transpose(0, 2), IndexError,
     r"dim 2 .*valid dims are -2 to 1"),
    ("permute dim", lambda x: x.permute(0, 5), IndexError, r"5"),
    ("permute repeat", lambda x: x.permute(0, 0), tl.ShapeError, None),
    ("permute count", lambda x: x.permute(0), tl.ShapeError, None),
    ("movedim dim", lambda x: x.movedim(3, 0), IndexError, r"3"),
    ("movedim repeat", lambda x: x.movedim((0, 0), (0, 1)), tl.ShapeError,
     None),
    ("squeeze dim", lambda x: x.squeeze(2), IndexError, r"2"),
    ("unsqueeze dim", lambda x: x.unsqueeze(3), IndexError, r"3"),
    ("unsqueeze neg", lambda x: x.unsqueeze(-4), IndexError, r"-4"),
    ("flatten dims", lambda x: x.flatten(1, 0), tl.ShapeError, None),
    ("flatten range", lambda x: x.flatten(0, 2), IndexError, r"2"),
    ("unflatten product", lambda x: x.unflatten(1, (4, 4)), tl.ShapeError,
     r"6"),
    ("narrow end", lambda x: x.narrow(1, 4, 3), IndexError, r"(?s)4.*3.*6"),
    ("narrow start", lambda x: x.narrow(1, 7, 0), IndexError, r"7"),
    ("narrow neg length", lambda x: x.narrow(1, 0, -1), IndexError, None),
    ("narrow dim", lambda x: x.narrow(2, 0, 1), IndexError, r"2"),
    ("select index", lambda x: x.select(1, 6), IndexError,
     r"(?s)6.*1.*6"),
    ("select neg", lambda x: x.select(0, -5), IndexError, r"-5.*4"),
    ("select dim", lambda x: x.select(-3, 0), IndexError, r"-3"),
    ("unfold size", lambda x: x.unfold(1, 7, 1), tl.ShapeError, r"(?s)6.*7"),
    ("unfold step", lambda x: x.unfold(1, 2, 0), tl.ShapeError, r"0"),
    ("unfold dim", lambda x: x.unfold(2, 1, 1), IndexError, r"2"),
    ("diagonal same dims", lambda x: x.diagonal(0, 1, -1), tl.ShapeError,
     None),
    ("diagonal dim", lambda x: x.diagonal(0, 0, 2), IndexError, r"2"),
    ("flip repeat", lambda x: x.flip(0, -2), tl.ShapeError, None),
    ("flip dim", lambda x: x.flip(2), IndexError, r"2"),
    ("split sum", lambda x: x.split([2, 3], 1), tl.ShapeError, r"6"),
    ("split neg", lambda x: x.split(-1), tl.ShapeError, None),
    ("chunk zero", lambda x: x.chunk(0), tl.ShapeError, r"0"),
    ("unbind dim", lambda x: x.unbind(2), IndexError, r"2"),
    ("as_strided outside", lambda x: x.as_strided((5,), (6,)),
     tl.ShapeError, r"(?s)\[5\].*\[6\]"),
    ("as_strided offset", lambda x: x.as_strided((2,), (1,), 23),
     tl.ShapeError, r"23"),
    ("as_strided neg offset", lambda x: x.as_strided((2,), (1,), -1),
     tl.ShapeError, r"-1"),
    ("as_strided neg stride", lambda x: x.as_strided((2,), (-1,), 0),
     tl.ShapeError, None),
    ("as_strided len", lambda x: x.as_strided((2, 2), (1,)), tl.ShapeError,
     None),
    ("t of 3-D", lambda x: x.view(2, 3, 4).t(), tl.ShapeError, r"3"),
    ("mT of 1-D", lambda x: x[0].mT, tl.ShapeError, r"1"),
    ("view float size", lambda x: x.view(4.0, 6), TypeError, None),
]


@pytest.mark.parametrize("desc,fn,exc,pattern", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_and_changes_nothing(desc, fn, exc, pattern):
    root = root_arange(24)
    x = root.view(4, 6)
    snap, rsnap = snapshot(x), snapshot(root)
    with pytest.raises(exc, match=pattern):
        fn(x)
    assert_unchanged(x, snap)
    assert_unchanged(root, rsnap)


def test_shape_error_is_value_and_runtime_error():
    x = root_arange(6)
    for e in (ValueError, RuntimeError):
        with pytest.raises(e):
            x.view(4, 2)


def test_bad_input_same_kind_as_torch(torch):
    """Where PyTorch raises, tensorlib raises too (the exception kinds are
    DESIGN.md's; PyTorch's RuntimeError maps to ShapeError)."""
    x, tx = root_arange(24).view(4, 6), torch.arange(24.0).view(4, 6)
    calls = [("view", (24,)), ("expand", (3, 6)), ("unfold", (1, 7, 1)),
             ("narrow", (1, 4, 3)), ("select", (1, 6)), ("permute", (0, 0)),
             ("diagonal", (0, 1, 1)), ("flatten", (1, 0))]
    for name, args in calls:
        xx, tt = (x.t(), tx.t()) if name == "view" else (x, tx)
        with pytest.raises((RuntimeError, IndexError)):
            getattr(tt, name)(*args)
        with pytest.raises((tl.ShapeError, IndexError)):
            getattr(xx, name)(*args)


# ---- overflow: never a wrapped stride or offset -----------------------------


def huge_empty():
    """A valid tensor with a huge dim and a zero dim: (2**62, 0) with
    strides (2**40, 1) reaches no element, so any (sizes, strides) are in
    bounds, and every derived stride/offset must be overflow-checked."""
    return tl.empty(1).as_strided((2 ** 62, 0), (2 ** 40, 1))


@pytest.mark.parametrize("fn", [
    lambda h: h[::2 ** 30],
    lambda h: h.unfold(0, 2, 2 ** 30),
    lambda h: h.T[:, ::2 ** 40],
    lambda h: h.flip(0)[::-(2 ** 30)],
    lambda h: h.as_strided((2, 0), (-(2 ** 63), 1)).flip(0),
], ids=["step", "unfold", "T-step", "flip-step", "flip-min-stride"])
def test_overflowing_strides_raise(fn):
    """A stride that a view uses (a dim of length > 1) must not wrap."""
    h = huge_empty()
    snap = (tuple(h.shape), h.stride(), h.storage_offset())
    with pytest.raises(OverflowError, match="overflow|negated"):
        fn(h)
    assert (tuple(h.shape), h.stride(), h.storage_offset()) == snap


@pytest.mark.parametrize("fn", [
    lambda h: h[2 ** 61:],
    lambda h: h[2 ** 61],
    lambda h: h[-1],
    lambda h: h.select(0, 2 ** 61),
    lambda h: h.narrow(0, 2 ** 61, 5),
    lambda h: h.flip(0).flip(0)[2 ** 61:],
    lambda h: h.flip(0)[2 ** 62 - 1],
    lambda h: h.T.diagonal(-(2 ** 61)),
    lambda h: h[2 ** 61:, :][5:][::-1][2:],
], ids=["start", "int", "last", "select", "narrow", "flip-slice",
        "flip-last", "diagonal", "chain"])
def test_views_of_empty_tensors_keep_the_offset(fn):
    """Index * stride may overflow for an empty tensor (its strides are
    unbounded); such views reach nothing and keep the storage offset, so
    no huge offset is ever formed (Note [Empty views keep their offset])."""
    h = huge_empty()
    r = fn(h)
    assert r.numel() == 0
    assert r.storage_offset() == 0
    assert r.data_ptr() == h.data_ptr()


def test_views_of_huge_empty_that_fit():
    h = huge_empty()
    assert h.diagonal(2 ** 61, 1, 0).shape == (0,)
    assert h.flip(0).stride() == (-(2 ** 40), 1)
    assert h.flip(0).storage_offset() == 0
    u = h.unsqueeze(0)  # size * stride overflows: any stride will do
    assert u.shape == (1, 2 ** 62, 0)
    assert h.view(-1).shape == (0,)


def test_huge_step_on_small_tensor_is_fine():
    x = root_arange(10)
    assert x[::2 ** 62].shape == (1,)
    assert x[::-(2 ** 63)].shape == (1,) and x[::-(2 ** 63)].item() == 9.0
    assert x[2 ** 62:].shape == (0,)
    assert x[-(2 ** 63):2 ** 63 - 1:2 ** 62].item() == 0.0


def test_as_strided_huge_strides_raise():
    x = root_arange(10)
    for sizes, strides, off in [((2,), (2 ** 62,), 0), ((3,), (2 ** 62,), 0),
                                ((2, 2), (2 ** 62, 2 ** 62), 0),
                                ((2,), (1,), 2 ** 63 - 1),
                                ((2,), (-(2 ** 63),), 2 ** 62),
                                ((2 ** 62, 4), (1, 1), 0)]:
        with pytest.raises((OverflowError, tl.ShapeError)):
            x.as_strided(sizes, strides, off)


def test_expand_overflowing_numel_raises():
    x = root_arange(1).view(1, 1)
    with pytest.raises(OverflowError):
        x.expand(2 ** 62, 4)
    assert x.expand(2 ** 62, 0).shape == (2 ** 62, 0)


def test_narrow_huge_start_or_length_raises():
    x = root_arange(10)
    for start, length in [(2 ** 62, 1), (-(2 ** 62), 1), (2, 2 ** 62),
                          (2 ** 63 - 1, 0), (5, 2 ** 63 - 1)]:
        with pytest.raises(IndexError):
            x.narrow(0, start, length)
    with pytest.raises((OverflowError, IndexError)):
        x.narrow(0, 2 ** 63, 1)
    assert x.narrow(0, 10, 0).shape == (0,)


TORCH_VIEW_OPS = [
    ("transpose", lambda t, r: t.transpose(0, -1)),
    ("permute", lambda t, r: t.permute(*reversed(range(t.ndim)))),
    ("T", lambda t, r: t.T if t.ndim == 2 else t.mT),
    ("movedim", lambda t, r: t.movedim(0, -1)),
    ("expand", lambda t, r: t.unsqueeze(0).expand(3, *t.shape)),
    ("squeeze", lambda t, r: t.squeeze()),
    ("unsqueeze", lambda t, r: t.unsqueeze(1)),
    ("narrow", lambda t, r: t.narrow(-1, t.shape[-1] // 2,
                                     (t.shape[-1] + 1) // 2)),
    ("select", lambda t, r: t.select(0, t.shape[0] - 1)),
    ("unfold", lambda t, r: t.unfold(-1, min(2, t.shape[-1]), 2)),
    ("diagonal", lambda t, r: t.diagonal(1, 0, -1)),
    ("slice", lambda t, r: t[1::2]),
    ("split", lambda t, r: t.split(2, -1)[-1]),
    ("chunk", lambda t, r: t.chunk(2, 0)[-1]),
    ("unbind", lambda t, r: t.unbind(-1)[0]),
    ("flatten", lambda t, r: t.flatten(0, 1) if t.is_contiguous() else t),
    ("unflatten", lambda t, r: t.unflatten(0, (1, t.shape[0]))),
    ("as_strided", lambda t, r: t.as_strided((2, 2), (1, 2), 1)),
]


@pytest.mark.parametrize("name,fn", TORCH_VIEW_OPS,
                         ids=[o[0] for o in TORCH_VIEW_OPS])
def test_view_metadata_vs_torch(torch, name, fn):
    """Sizes, strides and storage offsets of views equal PyTorch's for
    random (size, stride) layouts."""
    rng = np.random.default_rng(len(name))
    for _ in range(40):
        sizes, strides = random_layout(rng, 4)
        if len(sizes) < 2 or 0 in sizes:
            continue
        n = storage_extent(sizes, strides) + 4
        x = tl.arange(n, dtype=tl.float32).as_strided(sizes, strides, 1)
        tx = torch.arange(n, dtype=torch.float32).as_strided(sizes, strides,
                                                              1)
        r, tr = fn(x, rng), fn(tx, rng)
        assert tuple(r.shape) == tuple(tr.shape), (sizes, strides)
        if name == "slice":
            # a slice of length <= 1 keeps its stride (any stride will do
            # there; PyTorch multiplies it by the step)
            assert [st for st, n in zip(r.stride(), r.shape) if n > 1] == \
                [st for st, n in zip(tr.stride(), tr.shape) if n > 1]
        else:
            assert r.stride() == tr.stride(), (sizes, strides)
        if r.numel():
            # (an empty slice keeps the offset where PyTorch moves it past
            # the end: nothing is reachable either way)
            assert r.storage_offset() == tr.storage_offset(), (sizes,
                                                               strides)
        np.testing.assert_array_equal(r.numpy(), tr.numpy())


def test_unfold_overflowing_numel_raises():
    e = tl.zeros(1).expand(2 ** 59, 2)
    with pytest.raises(OverflowError):
        e.unfold(0, 2 ** 31, 1)
    assert e.unfold(0, 2, 2 ** 58).shape == (2, 2, 2)


def test_as_strided_empty_with_huge_offset_raises():
    x = root_arange(4)
    with pytest.raises((OverflowError, tl.ShapeError)):
        x.as_strided((0,), (1,), 2 ** 63 - 1)



def test_split_into_too_many_pieces_raises():
    h = huge_empty()
    with pytest.raises(OverflowError, match="too many"):
        h.split(1)
    with pytest.raises(tl.ShapeError, match="int64|sum"):
        h.split([2 ** 62, 2 ** 62, 2 ** 62])
    assert [p.shape[0] for p in h.split(2 ** 61)] == [2 ** 61, 2 ** 61]
    assert len(h.chunk(3)) == 3


SEQUENCE_KEYWORD_CALLS = [
    ("reshape", (), {"shape": (6,)}),
    ("reshape", (), {"size": (6,)}),
    ("reshape", (6,), {"shape": (6,)}),
    ("reshape", (), {"shape": (6,), "dims": 0}),
    ("permute", (), {"dims": (1, 0)}),
    ("permute", (), {"foo": (1, 0)}),
    ("permute", (1,), {"dims": (1, 0)}),
    ("flip", (), {"dims": (1,)}),
    ("flip", (), {"dim": (1,)}),
    ("flip", (1,), {"dims": (1,)}),
]


@pytest.mark.parametrize("name, args, kwargs", SEQUENCE_KEYWORD_CALLS)
def test_shape_and_dims_keywords_as_torch(torch, name, args, kwargs):
    # reshape(shape=), permute(dims=), flip(dims=) stand for the positional
    # sequence; any other keyword, or both forms at once, is a TypeError
    # naming it (tensorlib used to take any single keyword).
    x, tx = tl.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    try:
        want = getattr(tx, name)(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError) as info:
            getattr(x, name)(*args, **kwargs)
        bad = set(kwargs) - {"shape", "dims"}
        assert name + "()" in str(info.value)
        assert all(repr(k) in str(info.value) for k in bad)
        return
    for got in (getattr(x, name)(*args, **kwargs),
                getattr(tl, name)(x, *args, **kwargs)):
        assert got.tolist() == want.tolist()
