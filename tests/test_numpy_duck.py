"""What code written against NumPy (dask's chunk functions, issue 20) needs
of tensors and dtypes, without dask: NumPy's keyword names accepted as
PyTorch's parser accepts them (axis=, keepdims=), dtype.type/kind/char,
Tensor.astype, np.*_like(..., shape=), a ufunc's dtype= naming the
result dtype, Tensor.__dask_tokenize__ and tensorlib.random.default_rng
(NumPy's generator API over tensorlib's Philox generator)."""
import gc
import pickle

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import rng_for


def layouts(a):
    """The values of a as tensors of several layouts: contiguous,
    transposed, sliced, flipped (negative strides)."""
    yield "contig", tl.from_numpy(a.copy())
    yield "transposed", tl.from_numpy(np.ascontiguousarray(a.T)).t()
    big = np.zeros((a.shape[0] * 2, a.shape[1] + 1), a.dtype)
    big[::2, 1:] = a
    yield "sliced", tl.from_numpy(big)[::2, 1:]
    yield "flipped", tl.from_numpy(a[::-1].copy()).flip(0)


# ---- axis= / keepdims= ----------------------------------------------------------

@pytest.mark.parametrize("method", ["sum", "mean", "amax", "amin", "prod",
                                    "std", "var", "argmax", "any", "all",
                                    "cumsum", "softmax",
                                    "squeeze"])
def test_numpy_keyword_aliases_like_torch(torch, method):
    rng = rng_for("alias", method)
    a = rng.standard_normal((3, 1, 4))
    for _, t in layouts(a.reshape(3, 4)):
        t = t.reshape(3, 1, 4)
        tt = torch.from_numpy(np.asarray(t).copy())
        kw_sets = [{"axis": 0}, {"axis": 2, "keepdims": True},
                   {"axis": -1, "keepdims": False}]
        if method in ("cumsum", "softmax", "squeeze"):
            kw_sets = [{"axis": 0}, {"axis": 1}]
        for kw in kw_sets:
            if method in ("squeeze",) and kw["axis"] == 0:
                continue
            if method in ("any", "all"):
                ours = getattr(t > 0, method)(**kw)
                want = getattr(tt > 0, method)(**kw)
            else:
                ours = getattr(t, method)(**kw)
                want = getattr(tt, method)(**kw)
            # the alias gives what the parameter's own name gives
            dim_kw = {"dim": kw["axis"]}
            if "keepdims" in kw:
                dim_kw["keepdim"] = kw["keepdims"]
            base = (t > 0) if method in ("any", "all") else t
            same = getattr(base, method)(**dim_kw)
            np.testing.assert_array_equal(np.asarray(ours),
                                          np.asarray(same))
            np.testing.assert_allclose(np.asarray(ours), want.numpy(),
                                       rtol=1e-12, atol=1e-12)
            assert tuple(ours.shape) == tuple(want.shape)


def test_numpy_keyword_aliases_module_functions(torch):
    t = tl.arange(12, dtype=tl.float64).reshape(3, 4)
    tt = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(tl.sum(t, axis=1,
                                                    keepdims=True)),
                                  torch.sum(tt, axis=1, keepdim=True))
    np.testing.assert_array_equal(np.asarray(tl.cat([t, t], axis=1)),
                                  torch.cat([tt, tt], axis=1))
    # both spellings at once: a TypeError, as in PyTorch
    with pytest.raises(TypeError):
        torch.sum(tt, dim=0, axis=0)
    with pytest.raises(TypeError, match="multiple values"):
        tl.sum(t, dim=0, axis=0)
    with pytest.raises(TypeError, match="multiple values"):
        t.sum(0, axis=0)
    with pytest.raises(TypeError, match="multiple values"):
        t.sum(dim=0, keepdim=True, keepdims=True)
    # a name that is no alias of any parameter stays an error
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        t.sum(axes=0)
    # an alias whose target the function does not take stays an error
    with pytest.raises(TypeError, match="'keepdims'"):
        tl.neg(t, keepdims=True)


# ---- dtype attributes ----------------------------------------------------------

ALL = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64",
       "uint64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", ALL)
def test_dtype_numpy_attributes(name):
    d = getattr(tl, name)
    nd = np.dtype(name)
    assert d.type is nd.type
    assert d.kind == nd.kind
    assert d.char == nd.char
    assert np.dtype(d) == nd
    assert issubclass(d.type, np.generic)


def test_dtype_bfloat16_attributes():
    ml = pytest.importorskip("ml_dtypes")
    assert tl.bfloat16.type is ml.bfloat16
    assert tl.bfloat16.kind == np.dtype(ml.bfloat16).kind


def test_iscomplexobj_and_issubdtype():
    t = tl.zeros(3, dtype=tl.complex64)
    assert issubclass(t.dtype.type, np.complexfloating)
    assert np.issubdtype(tl.float32, np.floating)
    assert not issubclass(tl.float32.type, np.complexfloating)


# ---- Tensor.astype ---------------------------------------------------------------

@pytest.mark.parametrize("src,dst", [
    ("float64", "float32"), ("float32", "float64"), ("float64", "int32"),
    ("int64", "float64"), ("int32", "int64"), ("float32", "bool"),
    ("bool", "float32"), ("float64", "complex128"), ("int64", "int8"),
])
def test_astype_matches_numpy(src, dst):
    rng = rng_for("astype", src, dst)
    a = (rng.standard_normal((4, 5)) * 50).astype(src)
    for _, t in layouts(a):
        for spelled in (dst, np.dtype(dst), np.dtype(dst).type,
                        getattr(tl, dst), np.dtype(dst).str):
            r = t.astype(spelled)
            assert isinstance(r, tl.Tensor)
            assert r.dtype == getattr(tl, dst)
            want = a.astype(dst) if not (np.dtype(src).kind == "f"
                                         and np.dtype(dst).kind in "iu") \
                else np.trunc(a).astype(dst)
            np.testing.assert_array_equal(np.asarray(r), want)


def test_astype_copy_semantics():
    t = tl.arange(6, dtype=tl.float64)
    c = t.astype(np.float64)
    assert c.data_ptr() != t.data_ptr()  # copy=True: always a new tensor
    same = t.astype(tl.float64, copy=False)
    assert same.data_ptr() == t.data_ptr()
    other = t.astype(np.float32, copy=False)
    assert other.dtype == tl.float32 and other.data_ptr() != t.data_ptr()
    v = tl.arange(12, dtype=tl.float64).reshape(3, 4).t()
    assert v.astype("f8", order="C").is_contiguous()
    assert not v.astype("f8", order="K").is_contiguous()


def test_astype_refusals_leave_input_unchanged():
    t = tl.tensor([1.5, -2.5], dtype=tl.float64)
    with pytest.raises(TypeError, match="float64 to int32.*'safe'"):
        t.astype(np.int32, casting="safe")
    with pytest.raises(TypeError, match="same_kind"):
        t.astype("i8", casting="same_kind")
    with pytest.raises(ValueError, match="order='F'"):
        t.astype(np.float32, order="F")
    with pytest.raises(TypeError):
        t.astype("not-a-dtype")
    np.testing.assert_array_equal(np.asarray(t), [1.5, -2.5])
    assert t.astype(np.float32, casting="same_kind").dtype == tl.float32
    assert t.astype(np.complex128, casting="safe").dtype == tl.complex128


# ---- np.*_like(shape=) and ufunc dtype= ------------------------------------------

@pytest.mark.parametrize("fn,args", [
    (np.ones_like, ()), (np.zeros_like, ()), (np.empty_like, ()),
    (np.full_like, (2.5,)),
])
def test_like_with_shape(fn, args):
    t = tl.ones((2, 3), dtype=tl.float32)
    for shape, dtype in [((4, 1), None), (5, None), ((), np.float64),
                         ((0, 2), np.int32)]:
        r = fn(t, *args, shape=shape, dtype=dtype)
        want = fn(np.ones((2, 3), np.float32), *args, shape=shape,
                  dtype=dtype)
        assert isinstance(r, tl.Tensor)
        assert tuple(r.shape) == want.shape
        assert np.dtype(r.dtype) == want.dtype
        if fn is not np.empty_like:
            np.testing.assert_array_equal(np.asarray(r), want)


def test_ufunc_dtype_keyword():
    a = tl.arange(5, dtype=tl.float64)
    r = np.add(a, a, dtype=np.float64)
    assert isinstance(r, tl.Tensor)
    np.testing.assert_array_equal(np.asarray(r), 2 * np.arange(5.0))
    assert isinstance(np.multiply(a, 2, dtype="f8"), tl.Tensor)
    # another dtype: NumPy computes it (casting the inputs), as NumPy would
    r32 = np.add(a, a, dtype=np.float32)
    want = np.add(np.arange(5.0), np.arange(5.0), dtype=np.float32)
    assert np.asarray(r32).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(r32), want)
    # with out=: written once, by NumPy, and out returned
    out = tl.zeros(5, dtype=tl.float64)
    assert np.add(a, a, out=out, dtype=np.float64) is out
    np.testing.assert_array_equal(np.asarray(out), 2 * np.arange(5.0))


# ---- __dask_tokenize__ -----------------------------------------------------------

def test_dask_tokenize_method():
    t = tl.arange(12, dtype=tl.float64).reshape(3, 4)
    tok = t.__dask_tokenize__()
    assert tok == tl.arange(12, dtype=tl.float64).reshape(3, 4) \
        .__dask_tokenize__()
    # the same values in another layout: the same token
    f = tl.from_numpy(np.asfortranarray(np.arange(12.0).reshape(3, 4)))
    assert f.__dask_tokenize__() == tok
    assert (t + 1).__dask_tokenize__() != tok
    assert t.to(tl.float32).__dask_tokenize__() != tok
    assert t.reshape(4, 3).__dask_tokenize__() != tok
    assert tl.empty((0, 2)).__dask_tokenize__() != tl.empty(
        (2, 0)).__dask_tokenize__()
    b = tl.ones(3, dtype=tl.bfloat16)
    assert b.__dask_tokenize__() != tl.ones(3).__dask_tokenize__()
    assert b.__dask_tokenize__() == pickle.loads(
        pickle.dumps(b)).__dask_tokenize__()


# ---- tensorlib.random.default_rng ------------------------------------------------

def test_default_rng_reproducible_and_spawned():
    g1, g2 = tl.random.default_rng(42), tl.random.default_rng(42)
    a, b = g1.random((3, 4)), g2.random((3, 4))
    assert isinstance(a, tl.Tensor) and a.dtype == tl.float64
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # a generator moves on; another seed draws others
    assert not np.array_equal(np.asarray(g1.random((3, 4))), np.asarray(a))
    assert not np.array_equal(
        np.asarray(tl.random.default_rng(43).random((3, 4))), np.asarray(a))
    kids = tl.random.default_rng(42).spawn(3)
    draws = [np.asarray(k.random(50)) for k in kids]
    assert not np.array_equal(draws[0], draws[1])
    assert tl.random.default_rng(g1) is g1
    ss = np.random.SeedSequence(7)
    np.testing.assert_array_equal(
        np.asarray(tl.random.default_rng(ss).standard_normal(5)),
        np.asarray(tl.random.default_rng(np.random.SeedSequence(7))
                   .standard_normal(5)))


def test_default_rng_distributions():
    g = tl.random.default_rng(3)
    u = np.asarray(g.random(20000))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    assert g.random(5, dtype=np.float32).dtype == tl.float32
    assert g.random().dim() == 0
    z = np.asarray(g.normal(3.0, 0.5, size=20000))
    assert abs(z.mean() - 3.0) < 0.03 and abs(z.std() - 0.5) < 0.03
    w = np.asarray(g.uniform(-2.0, 4.0, size=(100, 100)))
    assert w.min() >= -2.0 and w.max() < 4.0
    e = np.asarray(g.exponential(2.0, size=20000))
    assert e.min() >= 0 and abs(e.mean() - 2.0) < 0.1
    i = np.asarray(g.integers(5, size=1000))
    assert i.dtype == np.int64 and set(np.unique(i)) == set(range(5))
    j = np.asarray(g.integers(-3, 3, size=1000, endpoint=True,
                              dtype=np.int32))
    assert j.dtype == np.int32 and j.min() == -3 and j.max() == 3
    loc = np.array([0.0, 100.0])
    p = np.asarray(g.normal(loc, 1.0, size=(1000, 2)))
    assert abs(p[:, 1].mean() - 100.0) < 0.2
    with pytest.raises(TypeError, match="float64 or float32"):
        g.random(3, dtype=np.int32)


def test_default_rng_memory_flat():
    g = tl.random.default_rng(0)
    for _ in range(3):
        g.random((100,)), g.integers(0, 9, size=50), g.normal(size=(10, 10))
    gc.collect()
    before = tl.memory.memory_stats()["active_bytes"]
    for _ in range(50):
        g.random((100,)), g.integers(0, 9, size=50), g.normal(size=(10, 10))
        tl.arange(10.0).astype(np.float32)
    gc.collect()
    assert tl.memory.memory_stats()["active_bytes"] == before
