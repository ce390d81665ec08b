"""Indexing: basic keys (ints, slices of any step, None, Ellipsis, tuples)
give views, compared with NumPy in values and memory sharing; advanced keys
(integer tensors, lists, arrays, bool masks, ints mixed in) give copies with
NumPy's result shapes; __setitem__ with scalars, tensors and array-likes,
broadcast to the target, through views, with basic and advanced keys; the
errors (IndexError naming the index, the dim and its size; ShapeError for
values that do not broadcast), with the target left unchanged."""
import numpy as np
import pytest

import tensorlib as tl

from test_views import random_basic_key, random_shape, root_arange


def tensor_and_array(shape, dtype=np.float64):
    n = int(np.prod(shape))
    root = root_arange(max(n, 1), tl.float64)
    t = root[:n].view(shape)
    return root, t, np.arange(n, dtype=dtype).reshape(shape)


def assert_same(t, a):
    assert tuple(t.shape) == a.shape, (tuple(t.shape), a.shape)
    np.testing.assert_array_equal(t.numpy(), a)


# ---- basic indexing: views --------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_basic_keys_are_views_vs_numpy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        shape = random_shape(rng, 4, 5)
        root, t, a = tensor_and_array(shape)
        key = random_basic_key(rng, shape)
        if len(key) == 1 and rng.random() < 0.5:
            key = key[0]
        r, want = t[key], a[key]
        assert_same(r, want)
        # a view: same storage, root as base, shares memory as NumPy does
        assert r._base is root
        assert r.untyped_storage() is root.untyped_storage()
        if r.numel():
            assert tl.shares_memory(r, t)
            assert np.shares_memory(r.numpy(), t.numpy())
            assert np.shares_memory(r.numpy(), a) is False  # a is separate
        # strides in elements equal NumPy's (in bytes / itemsize), where a
        # dim has more than one element
        for s, ts, ns in zip(want.shape, r.stride(), want.strides):
            if s > 1:
                assert ts * 8 == ns, (key, r.stride(), want.strides)


def test_int_and_negative_int_indexing():
    root, t, a = tensor_and_array((3, 4, 5))
    for key in [0, -1, 2, -3, (1, -2), (-1, -1, -1), (0, 3, 4)]:
        assert_same(t[key], a[key])
    assert t[1, 2, 3].shape == () and t[1, 2, 3].item() == a[1, 2, 3]
    assert t[-1]._base is root


def test_slices_of_every_step():
    root, t, a = tensor_and_array((13,))
    for start in [None, -20, -13, -5, -1, 0, 3, 12, 13, 20]:
        for stop in [None, -20, -13, -5, -1, 0, 3, 12, 13, 20]:
            for step in [None, 1, 2, 3, 5, 13, 100, -1, -2, -3, -5, -13,
                         -100]:
                k = slice(start, stop, step)
                r = t[k]
                assert_same(r, a[k])
                if r.shape[0] > 1:
                    assert r.stride() == (step or 1,)


def test_negative_step_gives_negative_strides():
    root, t, a = tensor_and_array((4, 6))
    r = t[::-1, ::-2]
    assert r.stride() == (-6, -2)
    assert r.storage_offset() == 23
    assert_same(r, a[::-1, ::-2])
    r[0, 0] = -1.0  # writes land in the base
    assert root[23].item() == -1.0


def test_none_and_ellipsis():
    root, t, a = tensor_and_array((2, 3, 4))
    for key in [None, (None, None), Ellipsis, (Ellipsis, None), (None, ...),
                (..., 0), (0, ...), (0, ..., 1), (..., None, 1),
                (None, 1, None, ..., None), (slice(None), None, ..., 2),
                (0, 1, 2, ...), (..., 0, 1, 2)]:
        r = t[key]
        assert_same(r, a[key])
        assert r._base is root


def test_empty_key_and_ellipsis_are_new_views():
    root, t, a = tensor_and_array((2, 3))
    for key in [(), Ellipsis, slice(None)]:
        r = t[key]
        assert r is not t and r._base is root
        assert r.shape == t.shape and r.stride() == t.stride()
    s = tl.tensor(5.0)
    assert s[()].shape == () and s[...].shape == () and s[None].shape == (1,)
    assert s[()]._base is s


def test_zero_dim_integer_tensor_and_numpy_int_index_like_ints():
    root, t, a = tensor_and_array((4, 5))
    for k in [tl.tensor(2), np.int64(-1), np.int32(3), np.array(1)]:
        kk = int(k)
        assert_same(t[k], a[kk])


# ---- advanced indexing: copies ----------------------------------------------


def random_index_array(rng, n, shape):
    """Indices into a dim of size n (negative too), in one of the accepted
    forms: list, NumPy array (various int dtypes), tensorlib tensor."""
    vals = rng.integers(-n, n, shape) if n else np.zeros(shape, np.int64)
    form = int(rng.integers(0, 5))
    if form == 0:
        return vals.tolist()
    if form == 1:
        return vals.astype(rng.choice([np.int64, np.int32, np.int16]))
    if form == 2:
        return tl.tensor(vals)
    if form == 3:
        return tl.tensor(vals.astype(np.int32))
    return tl.tensor(vals.astype(np.int8)) if n <= 127 else tl.tensor(vals)


def to_numpy_key(key):
    out = []
    for k in key:
        if isinstance(k, tl.Tensor):
            out.append(k.numpy())
        else:
            out.append(k)
    return tuple(out)


def random_advanced_key(rng, shape):
    """A key with at least one advanced index (arrays, lists, bool masks)
    mixed with ints, slices, None and Ellipsis."""
    n = len(shape)
    # (0-d integer arrays index like ints: basic, not advanced)
    bshape = random_shape(rng, 2, 3, 1) or (2,)
    key = []
    d = 0
    used_adv = False
    while d < n:
        r = rng.random()
        if r < 0.35:
            key.append(random_index_array(rng, shape[d], bshape))
            used_adv = True
            d += 1
        elif r < 0.45 and d < n:
            k = int(rng.integers(1, min(2, n - d) + 1))
            mask = rng.random(shape[d:d + k]) < 0.5
            key.append(mask if rng.random() < 0.5 else tl.tensor(mask))
            used_adv = True
            d += k
        elif r < 0.55 and shape[d] > 0:
            key.append(int(rng.integers(-shape[d], shape[d])))
            d += 1
        elif r < 0.62:
            key.append(None)
        elif r < 0.7:
            break  # leave the remaining dims implicit
        else:
            step = int(rng.choice([1, 2, -1, -2]))
            key.append(slice(None, None, step))
            d += 1
    if not used_adv:
        if n == 0:
            return None
        key = [random_index_array(rng, shape[0], bshape)] + key[1:]
    if rng.random() < 0.2:
        key.insert(int(rng.integers(0, len(key) + 1)), None)
    return tuple(key)


@pytest.mark.parametrize("seed", range(30))
def test_advanced_getitem_vs_numpy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        shape = random_shape(rng, 4, 4)
        root, t, a = tensor_and_array(shape)
        key = random_advanced_key(rng, shape)
        if key is None:
            continue
        nkey = to_numpy_key(key)
        try:
            want = a[nkey]
        except IndexError:
            with pytest.raises(IndexError):
                t[key]
            continue
        r = t[key]
        assert_same(r, want)
        # a copy: its own storage, no base, shares nothing with t
        assert r._base is None and not r._is_view()
        assert r.untyped_storage() is not root.untyped_storage()
        assert not tl.shares_memory(r, t)
        assert r.is_contiguous()


ADV_CASES = [
    ([0, 2],),
    (slice(None), [1, 3]),
    ([0, 2], [1, 3]),
    ([0, 2], slice(None), [1, 3]),          # separated: to the front
    (slice(None), [0, 1], [1, 3]),          # adjacent: in place
    (0, slice(None), [1, 2]),               # an int counts as advanced
    (slice(None), 0, [1, 2]),               # adjacent int + array
    (1, [0, 2], slice(None)),
    (Ellipsis, [1, -1]),
    (None, [0, 1], None),
    ([[0], [2]], [[1, 2]]),                 # broadcasting index arrays
    ([0, 1], [[0], [1]], slice(None, None, -2)),
    (slice(None, None, -1), [2, 0]),
    ([], ),
    ([[]], ),
    (slice(None), [], 1),
    ([True, False, True],),
    (slice(None), [False, True, True, False]),
    (True,),
    (False,),
    (0, slice(None), True),                 # a 0-d bool is advanced
    (True, [0, 1]),
    (slice(None), True, [0, 1, 2, 3]),
    (True, 0),
    ([-1, -3, 0],),
    ([2, 2, 2, 0],),
]


@pytest.mark.parametrize("key", ADV_CASES, ids=[str(i) for i in
                                                range(len(ADV_CASES))])
def test_advanced_getitem_cases(key):
    root, t, a = tensor_and_array((3, 4, 5))
    r = t[key]
    assert_same(r, a[key])
    assert not tl.shares_memory(r, t)


def test_bool_masks_vs_numpy():
    rng = np.random.default_rng(1)
    for _ in range(40):
        shape = random_shape(rng, 3, 4, 1)
        root, t, a = tensor_and_array(shape)
        k = int(rng.integers(1, len(shape) + 1)) if shape else 0
        mask = rng.random(shape[:k]) < 0.5
        for m in (mask, tl.tensor(mask)):
            assert_same(t[m], a[mask])
        # a mask built from the tensor itself
        assert_same(t[t > 3.0], a[a > 3.0])
        if len(shape) >= 2:
            m2 = rng.random(shape[1]) < 0.5
            assert_same(t[:, tl.tensor(m2)], a[:, m2])


def test_zero_dim_bool_tensor_masks():
    root, t, a = tensor_and_array((2, 3))
    assert_same(t[tl.tensor(True)], a[np.True_])
    assert_same(t[tl.tensor(False)], a[np.False_])
    assert_same(t[tl.tensor(True), [0, 1]], a[np.True_, [0, 1]])
    assert_same(t[0, tl.tensor(True)], a[0, np.True_])


def test_index_tensor_of_many_int_dtypes():
    root, t, a = tensor_and_array((6,))
    for dt in [tl.int8, tl.int16, tl.int32, tl.int64, tl.uint8]:
        idx = tl.tensor([5, 0, 3], dtype=dt)
        assert_same(t[idx], a[[5, 0, 3]])


def test_advanced_index_through_view_and_strided_indices():
    root, t, a = tensor_and_array((6, 5))
    v, av = t.t()[1:, ::-2], a.T[1:, ::-2]
    idx = tl.tensor([[3, 0], [1, 2], [0, 3]]).t()  # non-contiguous index
    assert_same(v[idx], av[idx.numpy()])
    ex = tl.tensor([1]).expand(4)  # a zero-stride index
    assert_same(v[:, ex], av[:, [1, 1, 1, 1]])


# ---- __setitem__ ------------------------------------------------------------


def random_value(rng, target_shape, dtype=np.float64):
    """A value that broadcasts to target_shape, in a random form."""
    form = int(rng.integers(0, 6))
    if form == 0:
        return float(rng.integers(-100, 100)), None
    if form == 1:
        return int(rng.integers(-100, 100)), None
    shape = list(target_shape)
    # drop leading dims / set some to 1
    drop = int(rng.integers(0, len(shape) + 1))
    shape = shape[drop:]
    shape = [1 if rng.random() < 0.3 else s for s in shape]
    vals = rng.integers(-100, 100, shape).astype(dtype)
    if form == 2:
        return tl.tensor(vals), vals
    if form == 3:
        return vals, vals
    if form == 4 and vals.size:  # (nested lists cannot hold a 0 size)
        return vals.tolist() if vals.ndim else float(vals), vals
    return tl.tensor(vals.astype(np.float32)), vals


@pytest.mark.parametrize("seed", range(30))
def test_setitem_basic_keys_vs_numpy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        shape = random_shape(rng, 4, 4)
        root, t, a = tensor_and_array(shape)
        key = random_basic_key(rng, shape)
        target = a[key].shape
        value, nvalue = random_value(rng, target)
        version = t._version
        t[key] = value
        a[key] = value if nvalue is None else nvalue
        np.testing.assert_array_equal(t.numpy(), a)
        assert t._version == root._version == version + 1


@pytest.mark.parametrize("seed", range(30))
def test_setitem_advanced_keys_vs_numpy(seed):
    rng = np.random.default_rng(seed + 100)
    for _ in range(30):
        shape = random_shape(rng, 4, 4)
        root, t, a = tensor_and_array(shape)
        key = random_advanced_key(rng, shape)
        if key is None:
            continue
        nkey = to_numpy_key(key)
        try:
            target = a[nkey].shape
        except IndexError:
            continue
        value, nvalue = random_value(rng, target)
        version = t._version
        a[nkey] = value if nvalue is None else nvalue
        t[key] = value
        np.testing.assert_array_equal(t.numpy(), a, err_msg=str(key))
        assert t._version == version + 1


def test_setitem_repeated_indices_last_write_wins():
    t = tl.zeros(5)
    t[[1, 3, 1, 1, 3]] = tl.tensor([10.0, 20.0, 30.0, 40.0, 50.0])
    a = np.zeros(5)
    a[[1, 3, 1, 1, 3]] = [10.0, 20.0, 30.0, 40.0, 50.0]
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.tolist() == [0.0, 40.0, 0.0, 50.0, 0.0]
    m = tl.zeros(3, 3)
    m[[0, 0, 2], [1, 1, 0]] = tl.tensor([1.0, 2.0, 3.0])
    assert m[0, 1].item() == 2.0 and m[2, 0].item() == 3.0
    r = tl.zeros(4, 2)
    r[[2, 2]] = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert r[2].tolist() == [3.0, 4.0]


def test_setitem_through_views_changes_base():
    root = root_arange(24)
    b = root.view(4, 6)
    v = b.t()[::2]                  # (3, 4), strides (2, 6)
    v[0] = -1.0
    v[1, [0, 3]] = tl.tensor([-2.0, -3.0])
    v[v > 20.0] = 0.0
    v[..., 1:2] = tl.tensor([[7.0], [8.0], [9.0]])
    a = np.arange(24.0).reshape(4, 6)
    av = a.T[::2]
    av[0] = -1.0
    av[1, [0, 3]] = [-2.0, -3.0]
    av[av > 20.0] = 0.0
    av[..., 1:2] = [[7.0], [8.0], [9.0]]
    np.testing.assert_array_equal(root.numpy(), a.ravel())


def test_setitem_value_aliasing_the_target():
    x = root_arange(10)
    x[1:] = x[:-1]
    assert x.tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    x = root_arange(10)
    x[:] = x.flip(0)
    assert x.tolist() == list(range(9, -1, -1))
    x = root_arange(10)
    x[[1, 2, 3]] = x[:3]
    assert x.tolist() == [0, 0, 1, 2, 4, 5, 6, 7, 8, 9]
    x = root_arange(10)
    x[x[2:5].long()] = x[0:3]
    assert x.tolist() == [0, 1, 0, 1, 2, 5, 6, 7, 8, 9]


def test_setitem_casts_to_the_target_dtype():
    x = tl.arange(6, dtype=tl.int32)
    x[0] = 1.7
    x[1:3] = tl.tensor([2.9, -3.9])
    x[[5]] = 7.9
    x[4] = True
    a = np.arange(6, dtype=np.int32)
    a[0] = 1.7
    a[1:3] = [2.9, -3.9]
    a[[5]] = 7.9
    a[4] = True
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.dtype == tl.int32
    b = tl.zeros(3, dtype=tl.bool)
    b[1] = 5
    assert b.tolist() == [False, True, False]


def test_setitem_scalar_forms():
    x = tl.zeros(4)
    x[0] = np.float32(1.5)
    x[1] = tl.tensor(2.5)
    x[2:] = np.array(3.5)
    assert x.tolist() == [1.5, 2.5, 3.5, 3.5]
    c = tl.zeros(2, dtype=tl.complex64)
    c[0] = 1 + 2j
    assert c[0].item() == 1 + 2j


def test_setitem_bumps_version_each_time():
    x = tl.zeros(3, 4)
    v0 = x._version
    x[0] = 1.0
    x[:, 1] = tl.ones(3)
    x[[0, 2]] = 2.0
    x[x > 1.0] = 3.0
    x[...] = [1.0, 2.0, 3.0, 4.0]
    assert x._version == v0 + 5


# ---- errors -----------------------------------------------------------------


@pytest.mark.parametrize("key,pattern", [
    (3, r"index 3 .*dimension 0 .*size 3"),
    (-4, r"index -4 .*dimension 0 .*size 3"),
    ((0, 4), r"index 4 .*dimension 1 .*size 4"),
    ((0, 0, -6), r"index -6 .*dimension 2 .*size 5"),
    ((..., 5), r"index 5 .*dimension 2 .*size 5"),
    ((None, 1, 4), r"index 4 .*dimension 1 .*size 4"),
    ([0, 3], r"index 3 .*dimension 0 .*size 3"),
    ((slice(None), [1, -5]), r"index -5 .*dimension 1 .*size 4"),
    ((slice(None), 0, tl.tensor([5])), r"index 5 .*dimension 2 .*size 5"),
    (2 ** 63, r"9223372036854775808"),
    (-(2 ** 63) - 1, r"-9223372036854775809"),
    ((0, 2 ** 64), r"18446744073709551616.*dimension 1"),
    (([0], 2 ** 63), r"9223372036854775808"),
    ([2 ** 63 - 1], r"9223372036854775807 .*dimension 0 .*size 3"),
    ([-(2 ** 63)], r"-9223372036854775808 .*dimension 0"),
    (tl.tensor(2 ** 64 - 1, dtype=tl.uint64), r"18446744073709551615"),
    ((0, 0, 0, 0), r"too many indices"),
    ((..., ...), r"ellipsis"),
    (1.5, r"float"),
    ("a", r"str"),
    (tl.tensor([0.5]), r"float"),
    (([0, 1], [0, 1, 2]), r"shape mismatch"),
    (np.ones((3, 5), dtype=bool), r"mask"),
    ((slice(None), [True, False]), r"mask"),
])
def test_getitem_errors(key, pattern):
    root, t, a = tensor_and_array((3, 4, 5))
    with pytest.raises(IndexError, match=pattern):
        t[key]
    with pytest.raises(IndexError):
        t[key] = 0.0
    np.testing.assert_array_equal(t.numpy(), a)
    assert t._version == 0


def test_slice_step_zero_is_value_error():
    t = tl.zeros(3)
    with pytest.raises(ValueError, match="zero"):
        t[::0]
    with pytest.raises(ValueError):
        np.zeros(3)[::0]


def test_huge_steps_and_offsets_do_not_wrap():
    x = root_arange(10)
    assert x[::2 ** 62].tolist() == [0.0]
    assert x[::-(2 ** 63)].tolist() == [9.0]
    assert x[2 ** 63:].shape == (0,)
    assert x[-(2 ** 70):2 ** 70:2 ** 70].tolist() == [0.0]
    assert x[5::2 ** 63].tolist() == [5.0]
    m = root_arange(12).view(3, 4)
    assert m[::2 ** 62, ::-(2 ** 62)].tolist() == [[3.0]]


@pytest.mark.parametrize("key,value", [
    (slice(0, 3), tl.ones(4)),
    (slice(None), tl.ones(2, 5)),
    (0, [1.0, 2.0]),
    ((slice(None), 0), tl.ones(4)),
    ([0, 1], tl.ones(3)),
    (([0, 1], slice(None)), tl.ones(2, 3)),
    (tl.tensor([True, False, True]), tl.ones(3, 5)),
    (slice(0, 2), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
])
def test_setitem_value_that_does_not_broadcast(key, value):
    root, t, a = tensor_and_array((3, 5))
    v0 = t._version
    with pytest.raises(tl.ShapeError):
        t[key] = value
    np.testing.assert_array_equal(t.numpy(), a)
    assert t._version == v0


def test_setitem_failed_index_writes_nothing():
    t = root_arange(10)
    with pytest.raises(IndexError, match="20"):
        t[[0, 1, 20]] = 5.0
    with pytest.raises(IndexError):
        t[[0, 1, 20]] = tl.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == list(range(10)) and t._version == 0


def test_setitem_bad_value_types():
    t = tl.zeros(3)
    with pytest.raises(TypeError):
        t[0:3] = "abc"
    with pytest.raises(TypeError):
        t[0] = object()
    with pytest.raises(TypeError):
        del t[0]
    assert t.tolist() == [0.0, 0.0, 0.0] and t._version == 0


def test_setitem_into_read_only_memory():
    buf = np.frombuffer(bytes(80), dtype=np.float64)
    r = tl.from_numpy(buf)
    for key in (0, slice(None), [0, 1], r > 1.0):
        with pytest.raises(ValueError, match="read-only"):
            r[key] = 1.0
    assert not buf.any()


@pytest.mark.parametrize("key,value", [
    (slice(None), tl.arange(4.0)),
    ([0, 1], tl.arange(2.0)),
    (tl.tensor([True, False, True, True]), tl.arange(3.0)),
    ([2], 1.0),
], ids=["slice", "list", "mask", "one-index"])
def test_setitem_into_self_overlapping_target_is_refused(key, value):
    """Writing one element of an expanded tensor would change the others:
    a ShapeError (DESIGN.md: overlapping outputs), nothing written."""
    base = tl.zeros(1)
    e = base.expand(4)
    v0 = base._version
    with pytest.raises(tl.ShapeError, match="share memory"):
        e[key] = value
    assert base.item() == 0.0 and base._version == v0


def test_setitem_into_overlapping_windows_is_refused():
    u = tl.zeros(6).unfold(0, 3, 1)
    with pytest.raises(tl.ShapeError):
        u[[0, 1]] = 1.0   # (PyTorch lets this through: it cannot tell)
    u[0, 1] = 7.0  # a single element is fine
    assert u._base.tolist() == [0.0, 7.0, 0.0, 0.0, 0.0, 0.0]


def test_setitem_into_huge_expanded_target_does_not_loop():
    e = tl.zeros(1).expand(2 ** 59, 2)
    with pytest.raises(tl.ShapeError):
        e[:, [1]] = 1.0


def test_advanced_index_of_empty_tensor_with_huge_strides():
    """(2**62, 0) with stride 2**40: indices are in range, but index *
    stride overflows int64; nothing is addressed, nothing may overflow."""
    h = tl.empty(1).as_strided((2 ** 62, 0), (2 ** 40, 1))
    assert h[[2 ** 61, 5]].shape == (2, 0)
    assert h[tl.tensor([-1])].shape == (1, 0)
    h[[2 ** 61]] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        h[[2 ** 62]]
