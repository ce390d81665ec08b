"""The Tensor type: inspection (shape, size, stride, offset, dtype, device,
contiguity), scalars and lists, the Python protocols, identity and
lifetime, as_strided, and repr against PyTorch's."""
import gc
import operator
import pickle
import re
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tensorlib as tl

ALL_DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
              "int64", "uint64", "float16", "bfloat16", "float32", "float64",
              "complex64", "complex128"]
NUMPY_DTYPES = [d for d in ALL_DTYPES if d != "bfloat16"]
T = tl._C._testing


def random_values(rng, shape, dtype):
    """A NumPy array of the given shape and dtype with varied values."""
    if dtype == "bool":
        return np.asarray(rng.integers(0, 2, shape)).astype(bool)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return np.asarray(rng.integers(info.min, info.max, shape,
                                       dtype=dtype, endpoint=True))
    if dtype.startswith("complex"):
        return np.asarray(rng.standard_normal(shape) * 100
                          + 1j * rng.standard_normal(shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 100).astype(dtype)


def random_shape(rng, max_ndim=4, max_size=5):
    ndim = int(rng.integers(0, max_ndim + 1))
    return tuple(int(s) for s in rng.integers(0, max_size + 1, ndim))


def strided(sizes, strides, dtype=tl.float32, offset=0):
    """A view with the given sizes/strides (non-negative) over a fresh
    storage just large enough."""
    extent = offset + 1 + sum((s - 1) * abs(st_)
                              for s, st_ in zip(sizes, strides) if s > 0)
    return tl.zeros(extent, dtype=dtype).as_strided(sizes, strides, offset)


@pytest.fixture(autouse=True)
def _refcounting_only():
    """Tensors, views and exports must die by reference counting alone;
    with the cyclic collector paused, garbage of other tests is not freed
    between two readings of the allocator stats either."""
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


# ---- Size ---------------------------------------------------------------


def test_shape_is_size_tuple_subclass(torch):
    t = tl.empty(2, 3)
    s = t.shape
    assert isinstance(s, tl.Size) and isinstance(s, tuple)
    assert s == (2, 3) and s == tl.Size([2, 3])
    assert repr(s) == "tensorlib.Size([2, 3])"
    assert repr(s) == repr(torch.Size([2, 3])).replace("torch.", "tensorlib.")
    assert repr(tl.empty(()).shape) == "tensorlib.Size([])"
    assert str(s) == repr(s)
    assert s[0] == 2 and s[-1] == 3 and len(s) == 2
    assert isinstance(s[0:1], tl.Size) and s[0:1] == (2,)
    assert isinstance(s[::-1], tl.Size) and s[::-1] == (3, 2)
    assert s.numel() == 6 and tl.Size([]).numel() == 1
    assert t.size() == s and isinstance(t.size(), tl.Size)
    assert hash(s) == hash((2, 3))
    assert pickle.loads(pickle.dumps(s)) == s
    assert type(pickle.loads(pickle.dumps(s))) is tl.Size
    assert tl.Size([np.int64(4), 5]) == (4, 5)
    with pytest.raises(TypeError):
        tl.Size([1.5])
    # Concatenation and repetition stay a Size, as torch.Size.
    ts = torch.Size([2, 3])
    for f in (lambda x: x + (4,), lambda x: (4,) + x, lambda x: x * 2,
              lambda x: 3 * x, lambda x: x + x, lambda x: x[:1] + x[1:]):
        r = f(s)
        assert type(r) is tl.Size
        assert repr(r) == repr(f(ts)).replace("torch.", "tensorlib.")
    with pytest.raises(TypeError):
        s + [4]


# ---- size / stride / storage_offset ---------------------------------------


def test_size_and_stride_with_dims(torch):
    rng = np.random.default_rng(0)
    for _ in range(30):
        shape = tuple(int(s) for s in rng.integers(1, 5, rng.integers(1, 6)))
        t = tl.empty(shape)
        ref = torch.empty(shape)
        for d in range(-len(shape), len(shape)):
            assert t.size(d) == ref.size(d)
            assert t.stride(d) == ref.stride(d)
            assert t.size(dim=d) == ref.size(d)
        assert t.stride() == ref.stride()
        for bad in (len(shape), -len(shape) - 1, 100):
            with pytest.raises(IndexError, match=re.escape(str(bad))):
                t.size(bad)
            with pytest.raises(IndexError):
                t.stride(bad)
            with pytest.raises(IndexError):
                ref.size(bad)


def test_size_and_stride_of_zero_dim(torch):
    t = tl.tensor(1.0)
    assert t.size() == () and t.stride() == ()
    for d in (0, -1):
        with pytest.raises(IndexError, match="0-d .*no dims"):
            t.size(d)
        with pytest.raises(IndexError, match="0-d .*no dims"):
            t.stride(d)
        with pytest.raises(IndexError):
            torch.tensor(1.0).size(d)


@pytest.mark.parametrize("items", [[1.5], [2, "x"], [None], [1, 2.0]])
def test_size_of_non_integers_names_the_element(torch, items):
    with pytest.raises(TypeError):
        torch.Size(items)
    bad = next(i for i, v in enumerate(items) if not isinstance(v, int))
    with pytest.raises(TypeError, match="element %d is %s" % (
            bad, type(items[bad]).__name__)):
        tl.Size(items)


def test_size_of_integer_likes_as_torch(torch):
    items = [np.int64(3), True, 0]
    assert tuple(tl.Size(items)) == tuple(torch.Size(items)) == (3, 1, 0)
    assert tl.Size([tl.tensor(4)]) == (4,)
    with pytest.raises(TypeError, match="keyword"):
        tl.Size(sizes=(1,))


def test_size_stride_argument_types():
    t = tl.empty(2, 3)
    assert t.size(np.int64(1)) == 3
    for bad in ("0", 1.0, [0]):
        with pytest.raises(TypeError):
            t.size(bad)
        with pytest.raises(TypeError):
            t.stride(bad)


def test_storage_offset_and_data_ptr():
    base = tl.arange(20, dtype=tl.float64)
    v = base.as_strided((2, 3), (5, 1), 7)
    assert v.storage_offset() == 7
    assert base.storage_offset() == 0
    assert v.data_ptr() == base.data_ptr() + 7 * 8
    assert v.tolist() == [[7.0, 8.0, 9.0], [12.0, 13.0, 14.0]]
    assert base[3].storage_offset() == 3
    a = np.arange(10, dtype=np.int32)
    t = tl.from_numpy(a[2:])
    assert t.data_ptr() == a[2:].ctypes.data
    r = tl.from_numpy(a[::-1])
    assert r.data_ptr() == a[::-1].ctypes.data
    assert r.storage_offset() == 9
    assert tl.zeros(4).data_ptr() % 64 == 0  # 64-byte aligned allocator


# ---- dtype objects ----------------------------------------------------------


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_dtype_properties_as_torch(name, torch):
    d = getattr(tl, name)
    td = getattr(torch, name)
    assert isinstance(d, tl.dtype)
    assert d.name == name
    assert repr(d) == "tensorlib." + name
    assert repr(d) == repr(td).replace("torch.", "tensorlib.")
    assert d.itemsize == td.itemsize
    assert d.is_floating_point == td.is_floating_point
    assert d.is_complex == td.is_complex
    assert d.is_signed == td.is_signed
    assert pickle.loads(pickle.dumps(d)) is d
    assert tl.empty(1, dtype=name).dtype is d
    if name != "bfloat16":
        assert d.itemsize == np.dtype(name).itemsize
    with pytest.raises(TypeError):
        type(d)()


def test_dtype_identity_and_hash():
    assert tl.float32 == tl.float32 and tl.float32 != tl.float64
    assert len({getattr(tl, n) for n in ALL_DTYPES}) == len(ALL_DTYPES)


# ---- devices ----------------------------------------------------------------


@pytest.mark.parametrize("spec", ["cpu", "cuda:0", "cuda:1", "cuda:63"])
def test_device_parsing_as_torch(spec, torch):
    d = tl.device(spec)
    td = torch.device(spec)
    assert d.type == td.type
    assert d.index == td.index
    assert str(d) == str(td)
    assert repr(d) == repr(td)
    assert d == tl.device(spec) and hash(d) == hash(tl.device(spec))
    assert pickle.loads(pickle.dumps(d)) == d
    assert tl.device(d) == d


def test_device_cuda_without_index_as_torch(torch):
    d, td = tl.device("cuda"), torch.device("cuda")
    assert (d.index, str(d), repr(d)) == (td.index, str(td), repr(td))
    # Not equal to cuda:0 (as torch), equal to itself, and it round-trips.
    assert (d == tl.device("cuda:0")) == (td == torch.device("cuda:0"))
    assert d == tl.device("cuda") and hash(d) == hash(tl.device("cuda"))
    assert hash(d) != hash(tl.device("cuda:0"))
    assert pickle.loads(pickle.dumps(d)) == d and tl.device(d) is d
    assert tl.device("cuda", 0) == tl.device("cuda:0")
    assert tl.device("cuda", 0).index == 0


def test_device_type_and_index_forms(torch):
    assert tl.device("cuda", 1) == tl.device("cuda:1")
    assert tl.device("cuda", 1) != tl.device("cuda:0")
    assert tl.device("cuda:2").index == 2
    assert tl.device("cpu").index is None
    assert tl.device("cpu") != tl.device("cuda:0")
    assert tl.device(3) == tl.device("cuda:3")
    assert tl.device("cpu") == tl.empty(1).device
    with pytest.raises(ValueError):
        tl.device("cuda:1", 1)
    with pytest.raises(ValueError):
        tl.device("cpu", 1)


@pytest.mark.parametrize("bad", ["gpu", "cuda:", "cuda:-1", "cuda:x", " cpu",
                                 "CPU", "cuda:1:2", "", "cpu:1", "cuda:64",
                                 "mps", "cuda:01"])
def test_bad_device_strings_value_error(bad):
    with pytest.raises(ValueError) as e:
        tl.device(bad)
    assert "'%s'" % bad in str(e.value)
    with pytest.raises(ValueError):
        tl.empty(1, device=bad)


def test_device_wrong_types():
    for bad in (1.5, None, [0], b"cpu"):
        with pytest.raises(TypeError):
            tl.device(bad)
    with pytest.raises(TypeError):
        tl.empty(1, device=1.5)


# ---- ndim, numel, sizes in bytes -------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_counts_vs_numpy(dtype):
    rng = np.random.default_rng(len(dtype))
    for _ in range(10):
        shape = random_shape(rng)
        t = tl.empty(shape, dtype=dtype)
        ref = np.empty(shape, dtype="float16" if dtype == "bfloat16"
                       else dtype)
        assert t.ndim == ref.ndim == t.dim() == t.ndimension()
        assert t.numel() == ref.size == t.nelement()
        assert t.element_size() == t.itemsize == ref.itemsize
        assert t.nbytes == ref.nbytes
        assert t.shape == ref.shape


# ---- is_contiguous against torch --------------------------------------------


def _perm_strides(sizes, order):
    """Dense strides for sizes laid out with dims in `order` (fastest
    first)."""
    strides = [0] * len(sizes)
    acc = 1
    for d in order:
        strides[d] = acc
        acc *= max(sizes[d], 1)
    return strides


@st.composite
def layouts(draw):
    ndim = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    kind = draw(st.sampled_from(["perm", "channels_last", "random"]))
    if kind == "perm":
        order = draw(st.permutations(range(ndim)))
        strides = _perm_strides(sizes, order)
    elif kind == "channels_last" and ndim in (4, 5):
        order = [1] + list(range(ndim - 1, 1, -1)) + [0]
        strides = _perm_strides(sizes, order)
    else:
        strides = draw(st.lists(st.integers(0, 30), min_size=ndim,
                                max_size=ndim))
    # Odd strides on size-1 dims do not matter for contiguity.
    for d in range(ndim):
        if sizes[d] == 1 and draw(st.booleans()):
            strides[d] = draw(st.integers(0, 50))
    return tuple(sizes), tuple(strides)


@given(layout=layouts())
def test_is_contiguous_as_torch(layout, torch):
    sizes, strides = layout
    t = strided(sizes, strides)
    ref = torch.empty_strided(sizes, strides)
    assert t.shape == sizes and t.stride() == strides
    assert t.is_contiguous() == ref.is_contiguous()
    assert (t.is_contiguous(memory_format=tl.contiguous_format)
            == ref.is_contiguous(memory_format=torch.contiguous_format))
    assert (t.is_contiguous(memory_format=tl.channels_last)
            == ref.is_contiguous(memory_format=torch.channels_last))
    assert (t.is_contiguous(memory_format=tl.channels_last_3d)
            == ref.is_contiguous(memory_format=torch.channels_last_3d))


@pytest.mark.parametrize("sizes, fmt", [
    ((2, 3, 4, 5), "channels_last"), ((1, 3, 1, 1), "channels_last"),
    ((2, 1, 4, 5), "channels_last"), ((2, 3, 4, 5, 6), "channels_last_3d"),
    ((1, 1, 2, 1, 3), "channels_last_3d"), ((0, 3, 4, 5), "channels_last"),
    ((2, 0, 4, 5), "channels_last"), ((2, 3, 4, 0), "channels_last"),
    ((1, 0, 1, 1), "channels_last"), ((2, 0, 4, 5, 2), "channels_last_3d"),
    ((2, 3, 4, 5, 0), "channels_last_3d"),
])
def test_is_contiguous_channels_last_layouts(sizes, fmt, torch):
    ref = torch.empty(sizes, memory_format=getattr(torch, fmt))
    t = strided(sizes, ref.stride())
    for f in ("contiguous_format", "channels_last", "channels_last_3d"):
        assert (t.is_contiguous(memory_format=getattr(tl, f))
                == ref.is_contiguous(memory_format=getattr(torch, f))), f
    made = tl.empty(sizes, memory_format=getattr(tl, fmt))
    assert made.stride() == ref.stride()
    assert made.is_contiguous(memory_format=getattr(tl, fmt))


def test_is_contiguous_bad_format():
    t = tl.empty(2, 3, 4, 5)
    with pytest.raises(ValueError, match="preserve_format"):
        t.is_contiguous(memory_format=tl.preserve_format)
    with pytest.raises(TypeError):
        t.is_contiguous(memory_format="channels_last")
    with pytest.raises(TypeError):
        t.is_contiguous(memory_format=1)


def test_memory_format_objects():
    for name in ("contiguous_format", "channels_last", "channels_last_3d",
                 "preserve_format"):
        f = getattr(tl, name)
        assert isinstance(f, tl.memory_format)
        assert repr(f) == "tensorlib." + name
        assert pickle.loads(pickle.dumps(f)) is f


# ---- tolist / item ----------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_tolist_and_item_vs_numpy(dtype):
    rng = np.random.default_rng(5)
    for _ in range(10):
        shape = random_shape(rng)
        ref = random_values(rng, shape, dtype)
        t = tl.from_numpy(ref)
        assert t.tolist() == ref.tolist()
        out = t.tolist()
        if shape:
            assert isinstance(out, list)
        if ref.size:
            one = ref.reshape(-1)[:1].reshape(())
            s = tl.from_numpy(one).item()
            assert s == one.item()
            assert type(s) is type(one.item())


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_tolist_of_strided_views_vs_numpy(dtype):
    rng = np.random.default_rng(6)
    ref = random_values(rng, (6, 8), dtype)
    for view in (ref[::2, 1::3], ref[::-1], ref[:, ::-2], ref.T, ref[2:4],
                 ref[::-3, ::-1].T):
        assert tl.from_numpy(view).tolist() == view.tolist()


def test_item_of_bfloat16_and_float16_is_exact(torch):
    vals = [0.1, 1 / 3, 65504.0, 1e-7, -2.5, 3.0e38]
    for name in ("bfloat16", "float16"):
        t = tl.tensor(vals, dtype=name)
        ref = torch.tensor(vals, dtype=torch.float64).to(getattr(torch, name))
        assert t.tolist() == ref.tolist()
        assert [t[i].item() for i in range(len(vals))] == ref.tolist()


def test_item_types():
    assert type(tl.tensor(True).item()) is bool
    assert type(tl.tensor(3).item()) is int
    assert type(tl.tensor(3.0).item()) is float
    assert type(tl.tensor(1j).item()) is complex
    assert tl.tensor(2 ** 64 - 1, dtype=tl.uint64).item() == 2 ** 64 - 1
    assert tl.tensor(-2 ** 63).item() == -2 ** 63
    assert tl.tensor([[[5]]]).item() == 5


def test_item_many_elements_is_shape_error(torch):
    for shape in [(2,), (0,), (2, 3), (1, 0)]:
        t = tl.zeros(shape)
        with pytest.raises(tl.ShapeError, match=str(t.numel())):
            t.item()
        with pytest.raises(ValueError):
            t.item()
        with pytest.raises(RuntimeError):
            t.item()
        with pytest.raises(RuntimeError):
            torch.zeros(shape).item()


def test_shape_error_hierarchy():
    assert issubclass(tl.ShapeError, ValueError)
    assert issubclass(tl.ShapeError, RuntimeError)
    assert tl.ShapeError.__module__ == "tensorlib"
    assert tl.ShapeError.__name__ == "ShapeError"


# ---- Python protocols -------------------------------------------------------


def test_len(torch):
    assert len(tl.zeros(4, 2)) == 4
    assert len(tl.zeros(0, 3)) == 0
    with pytest.raises(TypeError, match="0-d"):
        len(tl.tensor(1.0))
    with pytest.raises(TypeError):
        len(torch.tensor(1.0))


def test_bool(torch):
    assert bool(tl.tensor(1.0)) is True
    assert bool(tl.tensor([0])) is False
    assert bool(tl.tensor([[0.5]])) is True
    assert bool(tl.tensor(0j)) is False
    assert bool(tl.tensor(float("nan"))) is True
    for shape in [(2,), (0,), (2, 2)]:
        with pytest.raises(tl.ShapeError, match="exactly one element"):
            bool(tl.zeros(shape))
        with pytest.raises(RuntimeError):
            bool(torch.zeros(shape))
    with pytest.raises(ValueError):
        if tl.zeros(3):
            pass


def test_iter_over_first_dim():
    a = np.arange(24.0).reshape(4, 3, 2)
    t = tl.from_numpy(a)
    rows = list(t)
    assert len(rows) == 4
    for r, ref in zip(rows, a):
        assert isinstance(r, tl.Tensor)
        assert r.shape == (3, 2)
        assert r.tolist() == ref.tolist()
        assert r.data_ptr() == ref.ctypes.data
    assert [x.item() for x in tl.arange(5)] == [0, 1, 2, 3, 4]
    assert list(tl.zeros(0, 3)) == []
    x, y = tl.tensor([1, 2])
    assert (x.item(), y.item()) == (1, 2)
    with pytest.raises(TypeError, match="0-d"):
        iter(tl.tensor(1.0))


def test_iterator_protocol():
    """iter(t) is an iterator of its own (not the sequence protocol's):
    rows as views, a length hint, exhausted stays exhausted, a resize
    between steps is seen, and nothing leaks."""
    import operator
    rng = np.random.default_rng(3)
    for shape in [(5,), (4, 3), (2, 3, 4), (0, 2), (1, 1, 1)]:
        a = rng.uniform(-1, 1, shape)
        for view in (a, a[::-1], a[::2] if a.ndim else a):
            t = tl.from_numpy(view)
            it = iter(t)
            assert iter(it) is it
            assert operator.length_hint(it) == len(view)
            got = [r.tolist() for r in it]
            assert got == [np.asarray(r).tolist() for r in view]
            assert operator.length_hint(it) == 0
            assert list(it) == [] and next(it, None) is None
    t = tl.arange(6.0).reshape(3, 2)
    it = iter(t)
    assert next(it).tolist() == [0.0, 1.0]
    t.resize_(2, 2)            # one row left
    assert [r.tolist() for r in it] == [[2.0, 3.0]]
    t = tl.arange(6.0).reshape(3, 2)
    it = iter(t)
    t.set_(tl.tensor(5.0))     # now 0-d: the iteration just ends
    assert list(it) == []
    t = tl.arange(12.0).reshape(4, 3)
    before = sys.getrefcount(t)
    for _ in range(200):
        list(t)
        it = iter(t)
        next(it)
        del it
    assert sys.getrefcount(t) == before
    with pytest.raises(TypeError):
        type(iter(t))()


def test_indexing_first_dim_bounds():
    t = tl.arange(5)
    assert t[-1].item() == 4
    with pytest.raises(IndexError, match="5"):
        t[5]
    with pytest.raises(IndexError):
        t[-6]


def test_index_int_float_complex(torch):
    assert operator.index(tl.tensor(3)) == 3
    assert [10, 20, 30, 40][tl.tensor(2)] == 30
    assert list(range(tl.tensor(3, dtype=tl.uint8))) == [0, 1, 2]
    assert operator.index(tl.tensor([[True]])) == 1
    for bad in (tl.tensor(1.5), tl.tensor([1, 2]), tl.tensor(1j)):
        with pytest.raises(TypeError, match="index"):
            operator.index(bad)
    assert int(tl.tensor([[2.7]])) == int(torch.tensor([[2.7]])) == 2
    assert int(tl.tensor(-2.7)) == -2
    assert int(tl.tensor(2 ** 64 - 1, dtype=tl.uint64)) == 2 ** 64 - 1
    assert float(tl.tensor([3])) == float(torch.tensor([3])) == 3.0
    assert isinstance(float(tl.tensor(True)), float)
    assert complex(tl.tensor(2)) == complex(torch.tensor(2)) == 2 + 0j
    assert complex(tl.tensor([1 + 2j])) == 1 + 2j
    with pytest.raises(TypeError):
        float(tl.tensor(1j))
    for f in (int, float, complex):
        with pytest.raises(tl.ShapeError, match="2"):
            f(tl.zeros(2))
        with pytest.raises(ValueError):
            f(tl.zeros(0))
        with pytest.raises((ValueError, RuntimeError)):
            f(torch.zeros(2))


def test_hash_is_identity():
    a = tl.zeros(2)
    b = tl.zeros(2)
    assert hash(a) == hash(a) == id(a)  # as torch.Tensor.__hash__
    assert hash(a) != hash(b)
    s = {a, b}
    assert len(s) == 2 and a in s
    d = {a: 1}
    assert d[a] == 1


# ---- identity and lifetime --------------------------------------------------


def test_weakref_and_impl_refcounts():
    t = tl.zeros(6)
    w = weakref.ref(t)
    assert w() is t
    assert T.impl_refcount(t) == 1
    assert T.storage_refcount(t) == 1
    v = t.as_strided((2, 3), (3, 1))
    # A view shares the storage and holds its root as base; the storage
    # it borrows from the root (Note [Views borrow from their base]).
    assert T.storage_refcount(t) == 1
    assert T.impl_refcount(t) == 2
    d = v.detach()  # not a view: it holds the storage itself
    assert T.storage_refcount(t) == 2
    del d
    views = [t[i] for i in range(6)]
    assert T.impl_refcount(t) == 8
    del views, v
    assert T.impl_refcount(t) == 1
    assert T.storage_refcount(t) == 1
    del t
    assert w() is None


def test_set_on_a_root_keeps_what_its_views_borrow():
    # Views borrow the root's storage; set_ on the root must not free it
    # under them (Note [Views borrow from their base]).
    t = tl.arange(6.0)
    v = t[1:4]
    vv = v[1:]
    t.set_(tl.zeros(2).untyped_storage())
    assert t.tolist() == [0.0, 0.0]
    assert v.tolist() == [1.0, 2.0, 3.0] and vv.tolist() == [2.0, 3.0]
    w = t[:1]  # a view of the new storage, beside the old ones
    v += 1
    assert vv.tolist() == [3.0, 4.0] and w.tolist() == [0.0]
    d = vv.detach()
    del t, v, w
    assert d.tolist() == [3.0, 4.0] and vv.tolist() == [3.0, 4.0]
    # set_ on a view replaces only the view's storage.
    r = tl.arange(4.0)
    s = r[2:]
    s.set_(tl.ones(3).untyped_storage())
    assert s.tolist() == [1.0, 1.0, 1.0] and r.tolist() == [0, 1, 2, 3]
    assert T.storage_refcount(r) == 1 and T.storage_refcount(s) == 1


def test_set_without_views_holds_nothing_back():
    before = tl.memory_stats()["active_bytes"]
    t = tl.zeros(1000)
    for _ in range(50):
        t.set_(tl.zeros(1000).untyped_storage())
    assert T.storage_refcount(t) == 1
    assert tl.memory_stats()["active_bytes"] - before == 4000
    del t
    assert tl.memory_stats()["active_bytes"] == before


def test_views_keep_memory_alive():
    before = tl.memory_stats()["active_bytes"]
    t = tl.arange(1000, dtype=tl.float64)
    v = t.as_strided((10,), (100,), 5)
    del t
    assert v.tolist() == [5.0 + 100 * i for i in range(10)]
    assert tl.memory_stats()["active_bytes"] == before + 8000
    del v
    assert tl.memory_stats()["active_bytes"] == before


def test_numpy_base_chain_keeps_storage_alive():
    before = tl.memory_stats()["active_bytes"]
    t = tl.arange(100, dtype=tl.int32)
    n = t.numpy()
    sub = n[::10]
    assert type(n.base).__name__ == "_StorageExport"
    del t, n
    assert tl.memory_stats()["active_bytes"] == before + 400
    assert sub.tolist() == list(range(0, 100, 10))
    del sub
    assert tl.memory_stats()["active_bytes"] == before


def test_from_numpy_keeps_array_alive_until_last_view_dies():
    a = np.arange(12.0)
    w = weakref.ref(a)
    t = tl.from_numpy(a)
    v = t.as_strided((3,), (4,), 1)
    del a
    assert w() is not None
    del t
    assert w() is not None
    assert v.tolist() == [1.0, 5.0, 9.0]
    del v
    assert w() is None


def test_same_impl_gives_same_python_object():
    # The impl's PyObject slot: while a Python object of an impl lives,
    # every path back to that impl returns that object; once it dies, a new
    # one is made (and then kept while it lives).
    t = tl.zeros(3)
    v = t[1]
    if not hasattr(v, "_base"):
        pytest.skip("no _base yet")
    assert v._base is t
    w = weakref.ref(t)
    del t
    # v holds the root's impl, not its Python object, which died...
    assert w() is None
    b1 = v._base  # ...so the impl gets a new one, kept while it lives
    assert b1 is v._base is v._base
    assert b1.data_ptr() == v.data_ptr() - 4
    assert b1.tolist() == [0.0, 0.0, 0.0]
    w1 = weakref.ref(b1)
    del b1
    assert w1() is None
    assert v._base.shape == (3,)


# ---- as_strided -------------------------------------------------------------


@st.composite
def strided_cases(draw):
    n = draw(st.integers(1, 40))
    ndim = draw(st.integers(0, 4))
    sizes = draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim))
    strides = draw(st.lists(st.integers(-6, 6), min_size=ndim,
                            max_size=ndim))
    offset = draw(st.integers(0, n + 2))
    dtype = draw(st.sampled_from(["int32", "float64", "uint8", "complex64",
                                  "int16"]))
    return n, tuple(sizes), tuple(strides), offset, dtype


@given(strided_cases())
def test_as_strided_vs_numpy(case):
    n, sizes, strides, offset, dtype = case
    base_np = np.arange(n).astype(dtype)
    base = tl.from_numpy(base_np)
    itemsize = np.dtype(dtype).itemsize
    empty = 0 in sizes
    lo = offset + sum((s - 1) * st_ for s, st_ in zip(sizes, strides)
                      if st_ < 0 and not empty)
    hi = offset + sum((s - 1) * st_ for s, st_ in zip(sizes, strides)
                      if st_ > 0 and not empty)
    ok = (empty or (lo >= 0 and hi < n))
    before = (base.shape, base.stride(), base.storage_offset(),
              base.tolist())
    if not ok:
        with pytest.raises(tl.ShapeError) as e:
            base.as_strided(sizes, strides, offset)
        msg = str(e.value)
        assert str(list(sizes)) in msg and str(list(strides)) in msg
        assert str(offset) in msg and str(n * itemsize) in msg
        assert (base.shape, base.stride(), base.storage_offset(),
                base.tolist()) == before
        return
    v = base.as_strided(sizes, strides, offset)
    assert v.shape == sizes
    assert v.stride() == strides
    assert v.storage_offset() == offset
    assert v.dtype is base.dtype
    if empty:
        assert v.tolist() == np.zeros(sizes).tolist()
        return
    arr = base.numpy()
    ref = np.lib.stride_tricks.as_strided(
        arr[offset:],
        shape=sizes, strides=[s * itemsize for s in strides])
    assert v.tolist() == ref.tolist()
    assert v.data_ptr() == base.data_ptr() + offset * itemsize


def test_as_strided_zero_and_negative_strides():
    base = tl.arange(10)
    b = base.as_strided((3, 4), (0, 1))
    assert b.tolist() == [[0, 1, 2, 3]] * 3
    assert not b.is_contiguous()
    r = base.as_strided((10,), (-1,), 9)
    assert r.tolist() == list(range(9, -1, -1))
    r2 = base.as_strided((2, 3), (-3, -1), 9)
    assert r2.tolist() == [[9, 8, 7], [6, 5, 4]]
    # All the memory of a view of a view is still the root's storage.
    rr = r.as_strided((5,), (-2,), 9)
    assert rr.tolist() == [9, 7, 5, 3, 1]
    assert base.as_strided((0, 5), (100, 100), 50).numel() == 0


def test_as_strided_errors():
    base = tl.arange(12, dtype=tl.float32)
    with pytest.raises(tl.ShapeError) as e:
        base.as_strided((4, 4), (4, 1))
    msg = str(e.value)
    assert "[4, 4]" in msg and "[4, 1]" in msg and "48" in msg
    with pytest.raises(tl.ShapeError, match="-1"):
        base.as_strided((2,), (1,), -1)
    with pytest.raises(tl.ShapeError, match="-1"):
        base.as_strided((2,), (-1,), 0)
    with pytest.raises(tl.ShapeError, match="length"):
        base.as_strided((2, 3), (1,))
    with pytest.raises(tl.ShapeError):
        base.as_strided((-1,), (1,))
    with pytest.raises(TypeError):
        base.as_strided((2.0,), (1,))
    with pytest.raises(TypeError):
        base.as_strided((2,), ("1",))
    with pytest.raises(TypeError):
        base.as_strided((2,))
    with pytest.raises(TypeError):
        base.as_strided((2,), (1,), 0.5)
    with pytest.raises(OverflowError):
        base.as_strided((2, 2), (2 ** 62, 2 ** 62))
    assert base.shape == (12,) and base.stride() == (1,)
    assert base.tolist() == list(map(float, range(12)))


def test_as_strided_high_dims():
    base = tl.zeros(1)
    for ndim in (5, 6, 20, 64):
        v = base.as_strided((1,) * ndim, (0,) * ndim)
        assert v.ndim == ndim and v.shape == (1,) * ndim
        assert v.stride() == (0,) * ndim
        assert v.item() == 0.0
    with pytest.raises(ValueError, match="64"):
        base.as_strided((1,) * 65, (0,) * 65)


# ---- repr against torch -----------------------------------------------------


def _norm(s):
    """Undo the wrapping of suffixes: 'tensorlib.' is 4 characters longer
    than 'torch.', so a suffix may wrap in one and not the other."""
    return re.sub(r",\n +(dtype|size|device)=", r", \1=", s)


REPR_VALUES = [
    [1.0, 2.0], [[1.5, 2.0], [3.0, 4.25]], [0.1, 100.0, 1e-5], [1e10, 1.0],
    [float("nan"), float("inf"), -float("inf"), 1.0], [1, 2, 3],
    [[-1, 200], [3, 4]], [True, False], [1 + 2j, -3.5 - 1j], [0.0],
    [-0.0, 1.0], 3.5, 7, True, 2j, -0.0, [], [[]], [123456789.0, 1.0],
    [1e-10, 1e-12], list(range(20)), [[1.0] * 30], [0.5] * 2000,
    list(range(1100)), [1e-3, 1.0], [1.0, 1000.0], [1.0, 1001.0],
    [-1.5, 2.25], [[[1]]], [1.0, 2.5e-9], [3e8, 1.0], [1 + 0j, -0.0 - 0.0j],
    [complex(float("nan"), float("inf"))], [[1, -2], [-3, 4]],
]
REPR_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32",
               "int16", "int8", "uint8", "bool", "complex64", "complex128",
               None]


def _repr_pairs(torch):
    rng = np.random.default_rng(0)
    values = REPR_VALUES + [
        rng.standard_normal((40, 40)).tolist(),
        rng.standard_normal((3, 400)).tolist(),
        (rng.standard_normal((11, 10, 12)) * 1000).tolist(),
        rng.integers(-1000, 1000, (50, 30)).tolist(),
        (rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5)))
        .tolist(),
    ]
    for v in values:
        for d in REPR_DTYPES:
            try:
                ref = torch.tensor(v, dtype=getattr(torch, d) if d else None)
            except (RuntimeError, TypeError, OverflowError):
                continue
            yield v, d, ref


def test_repr_matches_torch(torch):
    mismatches = []
    n = 0
    for v, d, ref in _repr_pairs(torch):
        try:
            t = tl.tensor(v, dtype=d)
        except OverflowError:
            continue  # torch wraps out-of-range ints; tensorlib refuses
        n += 1
        want = _norm(repr(ref).replace("torch.", "tensorlib."))
        got = _norm(repr(t))
        if got != want:
            mismatches.append((str(v)[:50], d, want, got))
    assert n > 300
    assert not mismatches, mismatches[:3]


def test_repr_suffix_wrapping_matches_torch(torch):
    # Where the suffix placement cannot depend on the 4 extra characters of
    # "tensorlib." (the last line is short enough for both or too long for
    # both), the whole repr must match, suffix wrapping included.
    counts = {"wrapped": 0, "inline": 0}
    rng = np.random.default_rng(1)
    for rows in range(1, 12):
        for cols in (1, 3, 7, 9, 13):
            for d in ("float64", "float16", "int32", "complex128"):
                v = (rng.standard_normal((rows, cols)) * 10).round(2)
                if d == "int32":
                    v = v.astype(np.int64)
                data = v.tolist() if rows > 1 else v[0].tolist()
                want = repr(torch.tensor(data, dtype=getattr(torch, d)))
                body = want.split(",\n       dtype=")[0].split(", dtype=")[0]
                last = len(body) - body.rfind("\n") + 1
                short = len("dtype=torch." + d) + 2
                if last + short <= 80 < last + short + 4:
                    continue  # fits after "torch." only
                counts["wrapped" if last + short > 80 else "inline"] += 1
                got = repr(tl.tensor(data, dtype=d))
                assert got == want.replace("torch.", "tensorlib."), (d, data)
    assert counts["wrapped"] > 5 and counts["inline"] > 5, counts


def test_repr_of_views_and_empties(torch):
    base = tl.arange(24, dtype=tl.float32)
    tbase = torch.arange(24, dtype=torch.float32)
    for size, stride, off in [((4, 3), (1, 4), 0), ((2, 3), (0, 2), 5),
                              ((3,), (7,), 1), ((2, 2, 2), (12, 1, 3), 2)]:
        got = repr(base.as_strided(size, stride, off))
        want = repr(tbase.as_strided(size, stride, off))
        assert got == want.replace("torch.", "tensorlib.")
    for shape in [(0,), (2, 0), (0, 3, 1), ()]:
        for d in ["float32", "int64", "bool", "float64", "complex64",
                  "bfloat16"]:
            want = repr(torch.zeros(shape, dtype=getattr(torch, d)))
            got = repr(tl.zeros(shape, dtype=d))
            assert got == want.replace("torch.", "tensorlib.")
    r = tl.from_numpy(np.arange(6.0)[::-1])
    assert repr(r) == ("tensor([5., 4., 3., 2., 1., 0.], "
                       "dtype=tensorlib.float64)")


def test_repr_unsigned_wide_types():
    # Types torch prints the same way as other ints.
    assert repr(tl.tensor([1, 2], dtype=tl.uint16)) == \
        "tensor([1, 2], dtype=tensorlib.uint16)"
    assert repr(tl.tensor([2 ** 64 - 1], dtype=tl.uint64)) == \
        "tensor([18446744073709551615], dtype=tensorlib.uint64)"
    assert repr(tl.tensor([2 ** 32 - 1, 0], dtype=tl.uint32)) == \
        "tensor([4294967295,          0], dtype=tensorlib.uint32)"


def test_str_is_repr():
    t = tl.tensor([[1, 2], [3, 4]])
    assert str(t) == repr(t)


def test_set_printoptions_as_torch(torch):
    from tensorlib import _printing
    old = _printing.get_printoptions()
    old_t = torch._tensor_str.get_printoptions()
    try:
        for opts in [dict(precision=2), dict(threshold=5),
                     dict(edgeitems=1, threshold=3), dict(linewidth=30),
                     dict(sci_mode=True), dict(sci_mode=False),
                     dict(profile="short"), dict(profile="full")]:
            _printing.set_printoptions(**opts)
            torch.set_printoptions(**opts)
            for v in ([1.12345, 2.5, 1e-6], list(range(12)),
                      [[0.5] * 8] * 8, [1 + 1j] * 9):
                want = _norm(repr(torch.tensor(v)).replace(
                    "torch.", "tensorlib."))
                assert _norm(repr(tl.tensor(v))) == want, opts
            _printing.set_printoptions(profile="default")
            torch.set_printoptions(profile="default")
        with pytest.raises(ValueError):
            _printing.set_printoptions(profile="nope")
    finally:
        _printing.set_printoptions(**old)
        torch.set_printoptions(**old_t)


def test_repr_refcounts_flat():
    t = tl.tensor([[1.5, 2.0], [3.0, 4.0]])
    repr(t)
    rc = sys.getrefcount(t)
    for _ in range(50):
        repr(t)
    assert sys.getrefcount(t) == rc
