"""Core paths that the broader suites do not reach (issue 23, "Coverage"):

- the private test hooks of tensorlib._C._testing given wrong arguments;
- linspace/logspace/complex/polar on the argument kinds the creation
  tests leave out (uint64-sized ends, complex ends with a real dtype,
  complex logspace, broadcast and dtype refusals), against NumPy/PyTorch;
- allocation failures (the fault hook of tests/test_faults.py) in the
  tensor paths that only tensors of more than TL_INLINE_DIMS (5) dims
  take (their sizes live on the heap), and in file mapping;
- views of empty tensors that would derive a stride of INT64_MIN
  (regression), search/sort refusals and unique(dim=) past the
  insertion-sort cutoff, the read-only source of a lazy clone exported,
  and matmul's matrix-vector path for every BLAS dtype.

The C-only refusals are in tests/c/test_coverage_core.c.  Every refusal
is checked for its exception class and message and that no operand
changed.
"""
import gc

import numpy as np
import pytest

import tensorlib as tl
from _joinindex_common import same_error

T = tl._C._testing


# ---- tensorlib._C._testing ---------------------------------------------

TENSOR_HOOKS = ["read_past_end", "impl_refcount", "storage_refcount",
                "block_refcount", "export_count", "flags", "storage_nbytes"]


@pytest.mark.parametrize("name", TENSOR_HOOKS)
@pytest.mark.parametrize("arg", [None, 3, np.zeros(2), [1.0, 2.0]],
                         ids=["None", "int", "ndarray", "list"])
def test_testing_hooks_refuse_non_tensors(name, arg):
    with pytest.raises(TypeError, match="expected a tensorlib.Tensor"):
        getattr(T, name)(arg)


def test_testing_hooks_read_tensors():
    t = tl.arange(12, dtype=tl.int16).reshape(3, 4)
    assert T.storage_nbytes(t) == 24
    assert T.storage_nbytes(t[1:, ::2]) == 24      # a view: the same storage
    assert (T.impl_refcount(t), T.storage_refcount(t),
            T.block_refcount(t), T.export_count(t)) == (1, 1, 1, 0)
    c = t.clone()
    s = c.untyped_storage()                  # a second storage reference
    assert (T.storage_refcount(c), T.block_refcount(c)) == (2, 1)
    del s
    assert T.storage_refcount(c) == 1
    a = np.asarray(t)                        # an export holds the storage
    d = np.from_dlpack(t)
    assert (T.storage_refcount(t), T.export_count(t)) == (3, 2)
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(d, a)
    del d
    del a
    assert (T.storage_refcount(t), T.export_count(t)) == (1, 0)


def test_read_past_end_needs_a_fresh_allocated_tensor():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    for bad in (t.t(), t[1:], tl.from_numpy(np.zeros(5, np.float32))):
        with pytest.raises(ValueError, match="needs a fresh contiguous "
                                             "tensor from an allocator"):
            T.read_past_end(bad)
    if T.sanitizer_build():
        return   # the read would be (rightly) reported: tests/conftest.py
    # 3 bytes of a pool block of at least one granule: the byte after
    # them is in the block.
    u = tl.zeros(3, dtype=tl.uint8)
    assert 0 <= T.read_past_end(u) <= 255
    assert u.tolist() == [0, 0, 0]


def test_set_allow_metadata_change_arguments():
    t = tl.zeros(2)
    with pytest.raises(TypeError):
        T.set_allow_metadata_change(t)
    with pytest.raises(TypeError, match="expected a tensorlib.Tensor"):
        T.set_allow_metadata_change(np.zeros(2), True)
    bit = T.flag_bits()["allow_tensor_metadata_change"]
    before = T.flags(t)
    T.set_allow_metadata_change(t, not (before & bit))
    assert T.flags(t) == before ^ bit
    T.set_allow_metadata_change(t, bool(before & bit))
    assert T.flags(t) == before


def test_fail_allocation_arguments():
    for bad in ("1", 1.5, None):
        with pytest.raises(TypeError):
            T.fail_allocation(bad)
    with pytest.raises(OverflowError):
        T.fail_allocation(2 ** 70)
    T.fail_allocation(-1)
    count, fired = T.allocation_state()
    assert count == 0 and fired is False


# ---- linspace, logspace, complex, polar --------------------------------

def test_linspace_uint64_sized_end(torch):
    # An end past int64 arrives as an unsigned scalar.
    r = tl.linspace(0, 2 ** 63, 3, dtype=tl.float64)
    want = torch.linspace(0, 2 ** 63, 3, dtype=torch.float64).numpy()
    np.testing.assert_array_equal(r.numpy(), want)
    r = tl.logspace(0, 2 ** 64 - 1, 1, base=1.0, dtype=tl.float64)
    assert r.tolist() == [1.0]


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "uint8"])
def test_linspace_complex_end_needs_complex_dtype(torch, dt):
    for start, end in ((0j, 1), (0, 1 + 2j)):
        for fn in ("linspace", "logspace"):
            e = same_error(
                lambda: getattr(torch, fn)(start, end, 3,
                                           dtype=getattr(torch, dt)),
                lambda: getattr(tl, fn)(start, end, 3,
                                        dtype=getattr(tl, dt)), TypeError)
            assert "complex start or end needs a complex dtype, not " + dt \
                in str(e)
            assert fn + "()" in str(e)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("steps", [1, 2, 7, 16])
def test_logspace_complex_values(torch, dt, steps):
    rng = np.random.default_rng(steps)
    a = complex(*rng.uniform(-2, 2, 2))
    b = complex(*rng.uniform(-2, 2, 2))
    for base in (10.0, 2.0, 0.5):
        r = tl.logspace(a, b, steps, base=base, dtype=getattr(tl, dt))
        want = torch.logspace(a, b, steps, base=base,
                              dtype=getattr(torch, dt)).numpy()
        assert r.dtype == getattr(tl, dt)
        tol = 1e-5 if dt == "complex64" else 1e-12
        np.testing.assert_allclose(r.numpy(), want, rtol=tol, atol=tol)
        ref = base ** np.linspace(a, b, steps)
        np.testing.assert_allclose(r.numpy(), ref.astype(want.dtype),
                                   rtol=10 * tol, atol=10 * tol)


def test_complex_and_polar_refusals(torch):
    re = tl.ones(2)
    im = tl.ones(3)
    e = same_error(lambda: torch.complex(torch.ones(2), torch.ones(3)),
                   lambda: tl.complex(re, im))
    assert "[2]" in str(e) and "[3]" in str(e)
    f64 = tl.ones(2, dtype=tl.float64)
    e = same_error(lambda: torch.polar(torch.ones(2),
                                       torch.ones(2, dtype=torch.float64)),
                   lambda: tl.polar(re, f64), TypeError)
    assert "float32" in str(e) and "float64" in str(e)
    for dt in ("int32", "int64", "float16", "bool"):
        x = tl.ones(2, dtype=getattr(tl, dt))
        tx = torch.ones(2, dtype=getattr(torch, dt))
        if dt == "float16":
            # PyTorch accepts float16; tensorlib's polar needs float32/64
            with pytest.raises(TypeError, match="float16"):
                tl.polar(x, x)
            continue
        e = same_error(lambda: torch.polar(tx, tx),
                       lambda: tl.polar(x, x), TypeError)
        assert "float32 or float64" in str(e) and dt in str(e)
    assert re.tolist() == [1.0, 1.0] and re._version == 0
    assert f64._version == 0


# ---- allocation failures in paths of many-dimensional tensors ---------

def _state(ts):
    st = tl.memory_stats()
    return ([T.impl_refcount(t) for t in ts],
            [T.storage_refcount(t) for t in ts],
            [t._version for t in ts],
            [(tuple(t.shape), t.stride(), t.storage_offset()) for t in ts],
            st["active_bytes"], st["alloc_count"] - st["free_count"])


def _sweep(make, fn, limit=200):
    """fn(*make()) with the n-th allocation failing, n = 0, 1, ...: each
    run raises MemoryError leaving the operands as they were, until one
    succeeds without the fault firing."""
    fn(*make())
    fn(*make())
    ops = make()
    vals = [t.numpy().tobytes() for t in ops]
    for n in range(limit):
        before = _state(ops)
        T.fail_allocation(n)
        try:
            r = fn(*ops)
        except MemoryError:
            fired = T.allocation_state()[1]
            T.fail_allocation(-1)
            assert fired, n
        else:
            count, fired = T.allocation_state()
            T.fail_allocation(-1)
            del r
            assert not fired, "n=%d: the failure was swallowed" % n
            return n
        finally:
            T.fail_allocation(-1)
        assert _state(ops) == before, n
        assert [t.numpy().tobytes() for t in ops] == vals, n
    raise AssertionError("no success after %d" % limit)


SHAPE7 = (2, 1, 3, 1, 2, 1, 2)


def _x7():
    return (tl.tensor(np.arange(24, dtype=np.float32).reshape(SHAPE7)),)


def _resize7(x):
    y = x.clone()
    y.resize_(3, 2, 2, 1, 1, 1, 2)
    return y


def _set7(x):
    y = tl.empty(0)
    y.set_(x.untyped_storage(), 0, (1, 2, 1, 3, 1, 2, 2))
    return y


A7 = np.arange(24, dtype=np.float32).reshape(SHAPE7)

# (name, operands, call, the result's values by NumPy)
MANY_DIMS = [
    ("zeros", lambda: (), lambda: tl.zeros(SHAPE7),
     np.zeros(SHAPE7, np.float32)),
    ("empty_strided", lambda: (),
     lambda: tl.empty_strided(SHAPE7, (12, 12, 4, 4, 2, 2, 1)).fill_(3),
     np.full(SHAPE7, 3, np.float32)),
    ("reshape", _x7, lambda x: x.reshape(1, 2, 3, 2, 2, 1, 1),
     A7.reshape(1, 2, 3, 2, 2, 1, 1)),
    ("permute", _x7, lambda x: x.permute(6, 5, 4, 3, 2, 1, 0),
     A7.transpose(6, 5, 4, 3, 2, 1, 0)),
    ("clone", _x7, lambda x: x.clone(), A7),
    ("add", _x7, lambda x: x + x, A7 + A7),
    ("sum", _x7, lambda x: x.sum(dim=2, keepdim=True),
     A7.sum(axis=2, keepdims=True)),
    ("resize_", _x7, _resize7, A7.reshape(3, 2, 2, 1, 1, 1, 2)),
    ("set_", _x7, _set7, A7.reshape(1, 2, 1, 3, 1, 2, 2)),
    ("from_numpy", lambda: (),
     lambda: tl.from_numpy(np.ones(SHAPE7, np.float64)),
     np.ones(SHAPE7)),
]


@pytest.mark.parametrize("name,make,fn,want", MANY_DIMS,
                         ids=[c[0] for c in MANY_DIMS])
def test_fault_sweep_many_dims(name, make, fn, want):
    enabled = gc.isenabled()
    gc.disable()
    try:
        n = _sweep(make, fn)
    finally:
        T.fail_allocation(-1)
        if enabled:
            gc.enable()
    assert n >= 1
    r = fn(*make())
    assert r.ndim == 7 and r.numpy().dtype == want.dtype
    np.testing.assert_array_equal(r.numpy(), want)


def test_fault_sweep_file_mapping(tmp_path):
    p = tmp_path / "raw.bin"
    data = np.arange(10, dtype=np.float32)
    p.write_bytes(data.tobytes())
    specs = [(0, (2, 5), tl.float32, False), (8, (3,), tl.float32, False)]

    def fn():
        return tl._C._files_map(str(p), "r", specs)

    gc.disable()
    try:
        n = _sweep(lambda: (), fn)
    finally:
        T.fail_allocation(-1)
        gc.enable()
    assert n >= 2
    a, b = fn()
    np.testing.assert_array_equal(a.numpy(), data.reshape(2, 5))
    np.testing.assert_array_equal(b.numpy(), data[2:5])


# ---- views that would derive a stride of INT64_MIN ----------------------

def test_views_never_derive_int64_min_strides():
    # Regression: an empty tensor's strides are unbounded, and a negative
    # slice step (or a flip then diagonal/unfold) made a stride of exactly
    # -2**63, which as_strided and every constructor refuse (its
    # negation overflows in layout code).  Now an OverflowError.
    h = 2 ** 62
    x = tl.empty_strided((0, 4, 4), (1, h, h))
    f = x.flip(1, 2)
    assert f.stride() == (1, -h, -h)
    for bad in (lambda: x[:, 3::-2], lambda: f[:, ::2],
                lambda: f.diagonal(0, 1, 2), lambda: f.unfold(1, 1, 2)):
        with pytest.raises(OverflowError, match="overflows int64"):
            bad()
    with pytest.raises(OverflowError, match="overflows int64"):
        x.diagonal(0, 1, 2)              # 2**62 + 2**62
    assert x.stride() == (1, h, h) and f.stride() == (1, -h, -h)
    # The neighbours that stay in range still work.
    assert x[:, 3::-1].stride() == (1, -h, h)
    assert f.unfold(1, 2, 1).stride() == (1, -h, -h, -h)
    with pytest.raises(OverflowError):
        x.as_strided((0, 4), (1, -2 ** 63))


# ---- search.c: refusals and the row merge sort of unique(dim=) ---------

def test_search_refusals_match_torch(torch):
    seq = tl.tensor([1.0, 2.0, 3.0])
    v = tl.tensor([2.5])
    e = same_error(lambda: torch.searchsorted(torch.tensor(1.0),
                                              torch.tensor([1.0])),
                   lambda: tl.searchsorted(tl.tensor(1.0), v))
    assert "0-d" in str(e)
    e = same_error(
        lambda: torch.searchsorted(torch.tensor([1.0, 2, 3]),
                                   torch.tensor([2.5]),
                                   sorter=torch.tensor([0, 1])),
        lambda: tl.searchsorted(seq, v, sorter=tl.tensor([0, 1])))
    assert "[3] and [2]" in str(e)
    for fn in ("unique", "unique_consecutive"):
        e = same_error(lambda: getattr(torch, fn)(torch.tensor(1.0), dim=0),
                       lambda: getattr(tl, fn)(tl.tensor(1.0), dim=0))
        assert fn + "(): a 0-d tensor has no dim 0" in str(e)
    assert seq.tolist() == [1.0, 2.0, 3.0] and seq._version == 0


@pytest.mark.parametrize("rows", [17, 33, 64, 65, 130])
@pytest.mark.parametrize("dt", ["int16", "float32", "float64", "uint8"])
def test_unique_dim_many_rows_matches_torch(torch, rows, dt):
    # More rows than the insertion-sort cutoff: the merge sort of rows.
    rng = np.random.default_rng(rows)
    base = rng.integers(0, 4, (rows, 3)).astype(dt)
    for dim, a in ((0, base), (1, base.T.copy())):
        x = tl.tensor(a)
        u, inv, cnt = tl.unique(x, dim=dim, return_inverse=True,
                                return_counts=True)
        tu, tinv, tcnt = torch.unique(torch.from_numpy(a), dim=dim,
                                      return_inverse=True,
                                      return_counts=True)
        assert u.dtype == getattr(tl, dt)
        np.testing.assert_array_equal(u.numpy(), tu.numpy())
        np.testing.assert_array_equal(inv.numpy(), tinv.numpy())
        np.testing.assert_array_equal(cnt.numpy(), tcnt.numpy())
        want = np.unique(a, axis=dim)
        np.testing.assert_array_equal(u.numpy(), want)


# ---- cow.c: exporting the read-only source of a lazy clone -------------

def test_export_of_readonly_mapping_source_of_lazy_clone(tmp_path):
    # A read-only mapping that a lazy clone shares: exporting the source
    # needs no copy (nothing can write through it); the clone's first
    # write copies, and neither the file nor the export changes.
    p = tmp_path / "x.bin"
    data = np.arange(6, dtype=np.float32)
    p.write_bytes(data.tobytes())
    a, = tl._C._files_map(str(p), "r", [(0, (6,), tl.float32, False)])
    c = a.lazy_clone()
    assert T.block_refcount(a) == 2           # shared, not copied
    n = np.asarray(a)
    assert not n.flags.writeable
    assert T.block_refcount(a) == 2 and T.export_count(a) == 1
    np.testing.assert_array_equal(n, data)
    c[0] = 7
    assert c.tolist() == [7.0, 1, 2, 3, 4, 5]
    assert a.tolist() == data.tolist()
    np.testing.assert_array_equal(n, data)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1
    del n
    assert np.fromfile(p, np.float32).tolist() == data.tolist()


# ---- matmul: matrix-vector products (gemv) of every BLAS dtype ----------

def _rand(rng, shape, dt):
    x = rng.uniform(-1, 1, shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dt)


@pytest.mark.parametrize("dt", ["float32", "float64", "complex64",
                                "complex128"])
# (real products of at most 512 multiply-adds take a loop of tensorlib's
# own, not BLAS: the larger shapes reach gemv)
@pytest.mark.parametrize("m,k,n", [(1, 7, 9), (9, 7, 1), (17, 8, 1),
                                   (1, 33, 5), (1, 1, 1), (1, 65, 9),
                                   (70, 9, 1)])
def test_matmul_matrix_vector_every_dtype(dt, m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = _rand(rng, (m, k), dt)
    b = _rand(rng, (k, n), dt)
    tol = 1e-5 if dt in ("float32", "complex64") else 1e-12
    # each operand as given and transposed in memory (Fortran order)
    for fa in (False, True):
        for fb in (False, True):
            ta = tl.tensor(np.asfortranarray(a) if fa else a)
            tb = tl.tensor(b)
            if fb:
                tb = tl.tensor(np.ascontiguousarray(b.T)).t()
            r = tl.matmul(ta, tb)
            assert r.dtype == getattr(tl, dt) and tuple(r.shape) == (m, n)
            np.testing.assert_allclose(r.numpy(), a @ b, rtol=tol,
                                       atol=tol * k)
    # 1-D operands: (m, k) @ (k,) and (k,) @ (k, n)
    r = tl.matmul(tl.tensor(a), tl.tensor(b[:, 0]))
    np.testing.assert_allclose(r.numpy(), a @ b[:, 0], rtol=tol,
                               atol=tol * k)
    r = tl.matmul(tl.tensor(a[0]), tl.tensor(b))
    np.testing.assert_allclose(r.numpy(), a[0] @ b, rtol=tol, atol=tol * k)


def test_matmul_out_read_only():
    a = tl.ones(2, 3)
    b = tl.ones(3, 2)
    out = tl.from_numpy(np.zeros((2, 2), np.float32))
    ro = tl._C._readonly_view(out)
    with pytest.raises(ValueError, match="read-only"):
        tl.matmul(a, b, out=ro)
    assert out.tolist() == [[0, 0], [0, 0]] and out._version == 0


# ---- sort.c: refusals reachable from Python ----------------------------

@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "bool"])
def test_integer_median_of_nothing_is_refused(torch, fn, dt):
    # PyTorch returns the dtype's minimum, which is no median; tensorlib
    # refuses (a float input gives NaN, as in PyTorch).
    x = tl.zeros(0, dtype=getattr(tl, dt))
    with pytest.raises(RuntimeError, match=fn + r"\(\): the input of shape "
                       r"\[0\] is empty, and an integer median"):
        getattr(tl, fn)(x)
    r = getattr(tl, fn)(tl.zeros(0))
    assert np.isnan(r.item())
    w = getattr(torch, fn)(torch.zeros(0))
    assert np.isnan(w.item())


@pytest.mark.parametrize("shape,dim", [((0,), None), ((2, 0), 1),
                                       ((0, 3), 0)])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_of_empty_matches_torch(torch, shape, dim, fn):
    e = same_error(lambda: getattr(torch, fn)(torch.zeros(shape), 0.5,
                                             dim=dim),
                   lambda: getattr(tl, fn)(tl.zeros(shape), 0.5, dim=dim))
    assert "is empty along the reduced dims" in str(e)


def test_sort_out_values_and_indices_may_not_share_memory():
    x = tl.tensor([3, 1, 2])
    o = tl.zeros(3, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="the values and indices out= "
                       "tensors share memory"):
        tl.sort(x, out=(o, o))
    assert o.tolist() == [0, 0, 0] and o._version == 0
    assert x.tolist() == [3, 1, 2]


def test_unique_dim_of_no_rows_matches_torch(torch):
    for dt in ("float32", "int64"):
        x = tl.zeros((0, 3), dtype=getattr(tl, dt))
        u, inv, cnt = tl.unique(x, dim=0, return_inverse=True,
                                return_counts=True)
        tu, tinv, tcnt = torch.unique(torch.zeros((0, 3),
                                                  dtype=getattr(torch, dt)),
                                      dim=0, return_inverse=True,
                                      return_counts=True)
        assert u.dtype == x.dtype
        assert tuple(u.shape) == tuple(tu.shape) == (0, 3)
        assert tuple(inv.shape) == tuple(tinv.shape)
        assert tuple(cnt.shape) == tuple(tcnt.shape)


def test_add_with_an_alpha_past_int64():
    # alpha as an unsigned scalar (a Python int past int64) into uint64
    a = tl.tensor(np.array([1, 2], np.uint64))
    r = tl.add(a, a, alpha=2 ** 63)
    want = np.array([1, 2], np.uint64) + np.array([1, 2], np.uint64) * \
        np.uint64(2 ** 63)
    assert r.dtype == tl.uint64
    assert r.tolist() == want.tolist()
    s = tl.sub(a, a, alpha=2 ** 63)
    want = np.array([1, 2], np.uint64) - np.array([1, 2], np.uint64) * \
        np.uint64(2 ** 63)
    assert s.tolist() == want.tolist()
    i = tl.ones(2, dtype=tl.int32)
    with pytest.raises(OverflowError, match="alpha 9223372036854775808 is "
                       "out of range for int32"):
        tl.add(i, i, alpha=2 ** 63)
    assert i.tolist() == [1, 1] and i._version == 0


@pytest.mark.parametrize("fn", ["floor_divide", "remainder"])
def test_integer_division_of_shapes_that_do_not_broadcast(torch, fn):
    # The zero-divisor scan runs before the op; shapes that do not
    # broadcast still get the iterator's shape error.
    a = tl.ones(2, dtype=tl.int64)
    b = tl.ones(3, dtype=tl.int64)
    e = same_error(lambda: getattr(torch, fn)(torch.ones(2, dtype=torch.int64),
                                              torch.ones(3,
                                                         dtype=torch.int64)),
                   lambda: getattr(tl, fn)(a, b))
    assert "[2] and [3]" in str(e)


@pytest.mark.parametrize("dt", ["float32", "float64", "complex128"])
def test_matmul_of_operands_not_aligned_to_their_element_size(dt):
    # A view at an odd byte address: BLAS gets an aligned copy.
    rng = np.random.default_rng(3)
    a = _rand(rng, (9, 40), dt)
    b = _rand(rng, (40, 17), dt)
    buf = bytearray(1) + bytearray(a.tobytes())
    x = tl.frombuffer(buf, dtype=getattr(tl, dt), offset=1).reshape(9, 40)
    buf2 = bytearray(3) + bytearray(b.tobytes())
    y = tl.frombuffer(buf2, dtype=getattr(tl, dt), offset=3).reshape(40, 17)
    assert x.data_ptr() % 2 == 1
    tol = 1e-5 if dt == "float32" else 1e-12
    r = tl.matmul(x, y)
    np.testing.assert_allclose(r.numpy(), a @ b, rtol=tol, atol=tol * 40)
    assert bytes(buf[1:]) == a.tobytes()


def test_out_whose_layout_is_owned_elsewhere_is_not_resized():
    x = tl.arange(6, dtype=tl.float32)
    out = tl.empty(0)
    T.set_allow_metadata_change(out, False)
    with pytest.raises(RuntimeError, match=r"cannot resize an out= tensor "
                       r"whose layout is owned elsewhere \(allow_tensor_"
                       r"metadata_change is false\) to shape \[6\]"):
        tl.add(x, x, out=out)
    assert tuple(out.shape) == (0,) and out._version == 0
    T.set_allow_metadata_change(out, True)
    tl.add(x, x, out=out)
    assert out.tolist() == [0, 2, 4, 6, 8, 10]


def test_resize_and_set_between_heap_and_inline_dims():
    # Sizes of more than 5 dims live on the heap: resize_/set_ from one
    # heap array to another of another length, and back to inline ones.
    a = np.arange(24, dtype=np.float32)
    y = tl.tensor(a.reshape(SHAPE7))
    y.resize_(1, 2, 1, 3, 1, 2, 1, 2)
    assert y.ndim == 8 and y.stride()[-1] == 1
    np.testing.assert_array_equal(y.numpy().ravel(), a)
    y.resize_(4, 6)
    np.testing.assert_array_equal(y.numpy(), a.reshape(4, 6))
    y.resize_(2, 1, 2, 1, 3, 1, 2)
    np.testing.assert_array_equal(y.numpy().ravel(), a)
    z = tl.empty(0)
    z.set_(y.untyped_storage(), 0, (2, 2, 1, 3, 1, 2, 1, 1))
    np.testing.assert_array_equal(z.numpy().ravel(), a)
    z.set_(y.untyped_storage(), 4, (5,))
    assert z.tolist() == [4.0, 5, 6, 7, 8]    # (offset in elements)


def test_alpha_past_int64_into_floats(torch):
    # An unsigned alpha against a float dtype's range: float32 holds
    # 2**64 - 1 (rounded), float16 does not (PyTorch refuses it too).
    big = 2 ** 64 - 1
    r = tl.add(tl.ones(2), tl.ones(2), alpha=big)
    w = torch.add(torch.ones(2), torch.ones(2), alpha=big)
    np.testing.assert_array_equal(r.numpy(), w.numpy())
    assert r.dtype == tl.float32
    h = tl.ones(2, dtype=tl.float16)
    e = same_error(lambda: torch.add(torch.ones(2, dtype=torch.float16),
                                     torch.ones(2, dtype=torch.float16),
                                     alpha=big),
                   lambda: tl.add(h, h, alpha=big), OverflowError)
    assert "alpha 18446744073709551615 is out of range for float16" in str(e)
    assert h.tolist() == [1.0, 1.0] and h._version == 0
