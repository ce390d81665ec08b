"""Errors of bad input: every bad input of creation, the Tensor type and
the memory functions gets the right exception type, a message that names
the sizes/dtypes/strings involved, and nothing allocated or changed
(validate, then allocate, then commit); then (its own section) the error
messages reviewed as a set, one per class of user error."""
import contextlib
import gc
import re
import sys

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing
CREATORS = {
    "empty": lambda **kw: tl.empty(2, 3, **kw),
    "zeros": lambda **kw: tl.zeros((2, 3), **kw),
    "ones": lambda **kw: tl.ones([2, 3], **kw),
    "full": lambda **kw: tl.full((2, 3), 1, **kw),
    "arange": lambda **kw: tl.arange(6, **kw),
    "tensor": lambda **kw: tl.tensor([[1, 2], [3, 4]], **kw),
}
LIKE = {
    "empty_like": lambda src, **kw: tl.empty_like(src, **kw),
    "zeros_like": lambda src, **kw: tl.zeros_like(src, **kw),
    "ones_like": lambda src, **kw: tl.ones_like(src, **kw),
    "full_like": lambda src, **kw: tl.full_like(src, 2, **kw),
}


@contextlib.contextmanager
def gc_paused():
    """No cyclic collection inside: garbage of earlier tests must not be
    freed in the middle of a before/after comparison.  (Tensors die by
    reference counting, so no gc pass is needed for the call itself.)"""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def nothing_allocated():
    """Asserts that the block allocated nothing that survived and made no
    allocation at all."""
    with gc_paused():
        before = tl.memory_stats()
        yield
        after = tl.memory_stats()
    assert after["active_bytes"] == before["active_bytes"]
    assert after["alloc_count"] == before["alloc_count"]


@contextlib.contextmanager
def nothing_leaked():
    """Asserts that whatever was allocated was given back."""
    with gc_paused():
        before = tl.memory_stats()["active_bytes"]
        yield
        after = tl.memory_stats()["active_bytes"]
    assert after == before


def raises(exc, f, *needles):
    """Calls f, expecting exc with every needle in its message."""
    with pytest.raises(exc) as info:
        f()
    msg = str(info.value)
    for n in needles:
        assert str(n) in msg, (n, msg)
    return info.value


def snapshot(t):
    return (t.shape, t.stride(), t.storage_offset(), t.dtype, t.data_ptr(),
            t.tolist(), T.export_count(t), T.storage_refcount(t))


# ---- negative sizes ---------------------------------------------------------


@pytest.mark.parametrize("call, shape", [
    (lambda: tl.empty(-1), [-1]),
    (lambda: tl.zeros(2, -3), [2, -3]),
    (lambda: tl.ones((4, -1)), [4, -1]),
    (lambda: tl.empty([3, 0, -2], dtype=tl.int8), [3, 0, -2]),
    (lambda: tl.full((-2,), 1.0), [-2]),
    (lambda: tl.full([5, -7], 1, dtype=tl.complex128), [5, -7]),
    (lambda: tl.empty(-5, memory_format=tl.contiguous_format), [-5]),
    (lambda: tl.zeros(2 ** 62, -1), [2 ** 62, -1]),
])
def test_negative_sizes(call, shape):
    with nothing_allocated():
        e = raises(tl.ShapeError, call, str(shape), str(min(shape)))
    assert isinstance(e, ValueError) and isinstance(e, RuntimeError)


def test_negative_size_in_as_strided():
    t = tl.arange(10)
    before = snapshot(t)
    with nothing_allocated():
        raises(tl.ShapeError, lambda: t.as_strided((3, -1), (1, 1)),
               "[3, -1]", "-1")
    assert snapshot(t) == before


# ---- numel and byte-size overflow -------------------------------------------


E62 = str(2 ** 62)


@pytest.mark.parametrize("call, needles", [
    (lambda: tl.empty(2 ** 62, 4), [E62, "[%s, 4]" % E62]),
    (lambda: tl.empty((2 ** 62, 4, 0)), ["[%s, 4, 0]" % E62]),
    (lambda: tl.zeros(2 ** 31, 2 ** 31, 4), ["[2147483648, 2147483648, 4]"]),
    (lambda: tl.ones(2 ** 62, dtype=tl.float32), [E62, "itemsize 4"]),
    (lambda: tl.empty(2 ** 61, 2, dtype=tl.int64),
     ["[%d, 2]" % 2 ** 61, "itemsize 8"]),
    (lambda: tl.empty(2 ** 60, 8, dtype=tl.complex128),
     ["[%d, 8]" % 2 ** 60]),
    (lambda: tl.full((2 ** 62, 4), 1.5), ["[%s, 4]" % E62]),
    (lambda: tl.empty(2 ** 63), [str(2 ** 63)]),
    (lambda: tl.zeros(3, 2 ** 64), [str(2 ** 64)]),
    (lambda: tl.empty_like(tl.zeros(2), dtype=tl.int8).as_strided(
        (2, 2), (2 ** 62, 2 ** 62)), ["[2, 2]", "[%s, %s]" % (E62, E62)]),
    (lambda: tl.arange(2 ** 62, dtype=tl.float64), [E62, "itemsize 8"]),
])
def test_size_overflow(call, needles):
    with nothing_leaked():
        raises(OverflowError, call, *needles)


EMPTY_WIDE = (0, 2 ** 62, 4)  # no elements, but its strides overflow


def test_empty_shape_with_overflowing_strides(torch):
    # Where a new dense layout is made for the shape, it is refused as
    # empty() refuses it (torch: "Stride calculation overflowed"); a view
    # of an empty tensor keeps the wrapped strides, as torch's does.
    for call in (lambda: tl.empty(EMPTY_WIDE),
                 lambda: tl.empty(0).resize_(*EMPTY_WIDE),
                 lambda: tl.empty(0).set_(tl.empty(0).untyped_storage(), 0,
                                          EMPTY_WIDE),
                 lambda: tl.workspace(1 << 10).empty(EMPTY_WIDE),
                 lambda: tl.ExecutionPlan().add_buffer("b", EMPTY_WIDE)):
        with nothing_leaked():
            raises(OverflowError, call, E62)
    with pytest.raises(RuntimeError):
        torch.empty(0).resize_(*EMPTY_WIDE)
    for shape_op in ("view", "reshape"):
        ours = getattr(tl.empty(0), shape_op)(*EMPTY_WIDE)
        theirs = getattr(torch.empty(0), shape_op)(*EMPTY_WIDE)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.stride() == theirs.stride()


def test_size_overflow_allocates_nothing():
    for call in (lambda: tl.empty(2 ** 62, 4),
                 lambda: tl.zeros((2 ** 62, 4, 0)),
                 lambda: tl.ones(2 ** 61, 2, dtype=tl.int64),
                 lambda: tl.full((2 ** 63,), 0)):
        with nothing_allocated():
            with pytest.raises(OverflowError):
                call()


def test_running_product_order_as_torch(torch):
    # (2**62, 0) is a valid empty shape; (2**62, 4, 0) overflows before the
    # 0 is seen, as in PyTorch.
    t = tl.empty((2 ** 62, 0))
    assert t.shape == (2 ** 62, 0) and t.numel() == 0 and t.nbytes == 0
    assert torch.empty((2 ** 62, 0)).shape == (2 ** 62, 0)
    with pytest.raises(RuntimeError):
        torch.empty((2 ** 62, 4, 0))
    with pytest.raises(OverflowError):
        tl.empty((2 ** 62, 4, 0))
    # (0, 2**62, 4) has a valid numel (0) but its strides overflow, which
    # PyTorch refuses too ("Stride calculation overflowed").
    with pytest.raises(RuntimeError, match="[Ss]tride"):
        torch.empty((0, 2 ** 62, 4))
    with nothing_allocated():
        raises(OverflowError, lambda: tl.zeros(0, 2 ** 62, 4), "stride",
               "[0, 4611686018427387904, 4]")
        raises(OverflowError, lambda: tl.empty(
            (1, 2 ** 62, 0, 4), memory_format=tl.channels_last), "stride")
    assert tl.empty(0, 2 ** 62, 1).stride() == \
        torch.empty((0, 2 ** 62, 1)).stride()
    assert tl.empty(0, 2 ** 63 - 1).stride() == (2 ** 63 - 1, 1)


def test_allocation_failure_is_memory_error():
    # 2^53 bytes: beyond any x86-64 user address space, so it fails even
    # where the kernel overcommits (16 TiB did not fail on a 128 GiB GPU
    # machine with overcommit on)
    with nothing_allocated():
        raises(MemoryError, lambda: tl.empty(2 ** 50, dtype=tl.float64),
               str(2 ** 53))


def test_messages_carry_their_numbers():
    # PyErr_Format has no %g: Python 3.11 printed "%g" literally, 3.12
    # raised SystemError (seen on the GPU machine's Python 3.12)
    for f, num in ((lambda: tl.logspace(0, 1, 3, base=-2.0), "-2"),
                   (lambda: tl.normal(tl.zeros(3), -1.5), "-1.5"),
                   (lambda: tl.normal(tl.zeros(3),
                                      tl.tensor([1.0, -0.25, 1.0])), "-0.25")):
        with pytest.raises(ValueError) as info:
            f()
        assert num in str(info.value) and "%" not in str(info.value)


# ---- dtype and device strings ----------------------------------------------


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("bad", ["float33", "torch.float32", "Float32", "",
                                 "f4x", "int128"])
def test_unknown_dtype_strings(name, bad):
    with nothing_allocated():
        raises(TypeError, lambda: CREATORS[name](dtype=bad), "'%s'" % bad)


@pytest.mark.parametrize("name", sorted(LIKE))
def test_unknown_dtype_strings_like(name):
    src = tl.zeros(2, 3)
    before = snapshot(src)
    with nothing_allocated():
        raises(TypeError, lambda: LIKE[name](src, dtype="float33"),
               "'float33'")
    assert snapshot(src) == before


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("bad", ["gpu", "cuda:", "cuda:-1", "cpu:1", "",
                                 "CUDA", "cuda:1:2", "cuda:999"])
def test_unknown_device_strings(name, bad):
    with nothing_allocated():
        raises(ValueError, lambda: CREATORS[name](device=bad), "'%s'" % bad)


@pytest.mark.parametrize("name", sorted(LIKE))
def test_unknown_device_strings_like(name):
    src = tl.ones(3)
    before = snapshot(src)
    with nothing_allocated():
        raises(ValueError, lambda: LIKE[name](src, device="tpu"), "'tpu'")
    assert snapshot(src) == before


def test_dtype_numpy_without_equivalent():
    with nothing_allocated():
        raises(TypeError, lambda: tl.zeros(2, dtype=np.dtype("U3")), "U3")
        raises(TypeError, lambda: tl.zeros(2, dtype=object), "object")
        raises(ValueError, lambda: tl.zeros(2, dtype=np.dtype(">f4")),
               "byte order")


# ---- as_strided -------------------------------------------------------------


@pytest.mark.parametrize("size, stride, offset, needles", [
    ((4, 4), (4, 1), 0, ["[4, 4]", "[4, 1]", "48 bytes"]),
    ((13,), (1,), 0, ["[13]", "[1]", "48 bytes"]),
    ((2,), (1,), 11, ["[2]", "[1]", "11", "48 bytes"]),
    ((3,), (-1,), 1, ["[3]", "[-1]", "48 bytes"]),
    ((2, 2), (6, 6), 0, ["[2, 2]", "[6, 6]", "48 bytes"]),
    ((1,), (1,), 12, ["12", "48 bytes"]),
])
def test_as_strided_beyond_storage(size, stride, offset, needles):
    t = tl.arange(12, dtype=tl.float32)
    v = t.as_strided((3,), (2,), 1)
    for src in (t, v):
        before = snapshot(src)
        with nothing_allocated():
            raises(tl.ShapeError,
                   lambda: src.as_strided(size, stride, offset), *needles)
        assert snapshot(src) == before


def test_as_strided_negative_offset():
    t = tl.arange(12, dtype=tl.float32)
    before = snapshot(t)
    with nothing_allocated():
        raises(tl.ShapeError, lambda: t.as_strided((2,), (1,), -1),
               "offset", "-1")
        raises(tl.ShapeError,
               lambda: t.as_strided((2,), (1,), storage_offset=-2 ** 40),
               str(-2 ** 40))
    assert snapshot(t) == before


def test_as_strided_argument_errors():
    t = tl.arange(12, dtype=tl.float32)
    before = snapshot(t)
    with nothing_allocated():
        raises(tl.ShapeError, lambda: t.as_strided((2, 3), (1,)), "2", "1")
        raises(TypeError, lambda: t.as_strided((2.5,), (1,)), "float")
        raises(TypeError, lambda: t.as_strided((2,), (1,), "0"), "str")
        raises(TypeError, lambda: t.as_strided(2, 1))
        raises(TypeError, lambda: t.as_strided((2,)))
        raises(TypeError, lambda: t.as_strided((2,), (1,), 0, 0))
        raises(TypeError, lambda: t.as_strided(size=(2,), stride=(1,), x=1),
               "x")
    assert snapshot(t) == before


# ---- item, bool, scalars ----------------------------------------------------


@pytest.mark.parametrize("shape", [(2,), (0,), (3, 4), (1, 0), (2, 1, 1)])
def test_item_on_many_elements(shape):
    t = tl.zeros(shape)
    n = t.numel()
    before = snapshot(t)
    with nothing_allocated():
        raises(tl.ShapeError, t.item, str(n))
        for f in (int, float, complex):
            raises(tl.ShapeError, lambda: f(t), str(n))
        with pytest.raises(tl.ShapeError):
            bool(t)
        with pytest.raises(TypeError):
            t.__index__()
    assert snapshot(t) == before


def test_len_and_iter_of_zero_dim():
    t = tl.tensor(5)
    with nothing_allocated():
        raises(TypeError, lambda: len(t), "0-d")
        raises(TypeError, lambda: iter(t), "0-d")
        with pytest.raises(IndexError):
            t[0]


# ---- .numpy() of bfloat16 ---------------------------------------------------


def test_numpy_of_bfloat16(monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as if missing
    t = tl.ones(2, 2, dtype=tl.bfloat16)
    before = snapshot(t)
    with nothing_allocated():
        raises(TypeError, t.numpy, "bfloat16")
        raises(TypeError, lambda: np.asarray(t), "bfloat16")
        raises(BufferError, lambda: memoryview(t), "bfloat16")
    assert snapshot(t) == before


# ---- wrong argument types ---------------------------------------------------


WRONG_TYPES = [
    (lambda: tl.empty("3"), "str"),
    (lambda: tl.empty(2.0), "float"),
    (lambda: tl.empty([2, None]), "NoneType"),
    (lambda: tl.zeros((2, 3.5)), "float"),
    (lambda: tl.ones(2, dtype=3), "int"),
    (lambda: tl.ones(2, dtype=[1]), "list"),
    (lambda: tl.empty(2, device=1.5), "float"),
    (lambda: tl.empty(2, device=["cpu"]), "list"),
    (lambda: tl.empty(2, memory_format="channels_last"), "str"),
    (lambda: tl.empty(2, memory_kind=1.5), "float"),
    (lambda: tl.empty(2, bogus=1), "bogus"),
    (lambda: tl.empty(), "size"),
    (lambda: tl.full(2, 1.0, dtype=tl.float32, device="cpu", extra=1),
     "extra"),
    (lambda: tl.full("2", 1), "str"),
    (lambda: tl.full((2,), "x"), "str"),
    (lambda: tl.full((2,), None), "NoneType"),
    (lambda: tl.full((2,)), ""),
    (lambda: tl.full((2,), 1j, dtype=tl.float32), "complex"),
    (lambda: tl.arange("3"), "str"),
    (lambda: tl.arange(3, dtype=tl.bool), "bool"),
    (lambda: tl.arange(3, dtype=tl.complex128), "complex128"),
    (lambda: tl.arange(1, 2, 3, 4), ""),
    (lambda: tl.tensor("abc"), "str"),
    (lambda: tl.tensor([1, "a"]), "str"),
    (lambda: tl.tensor([[1, 2], [3, None]]), "NoneType"),
    (lambda: tl.tensor(object()), "object"),
    (lambda: tl.tensor({1: 2}), "dict"),
    (lambda: tl.tensor(), "data"),
    (lambda: tl.tensor([1], dtype="float33"), "float33"),
    (lambda: tl.zeros_like([1, 2]), ""),
    (lambda: tl.ones_like(np.zeros(2)), ""),
    (lambda: tl.full_like(tl.zeros(2), "x"), "str"),
    (lambda: tl.from_numpy([1, 2]), "list"),
    (lambda: tl.from_numpy(np.zeros(2, dtype=object)), "O"),
    (lambda: tl.memory_stats(device=2.5), "float"),
    (lambda: tl.memory_stats(kind=[0]), "list"),
    (lambda: tl.zeros(2).size("0"), "str"),
    (lambda: tl.zeros(2).stride(0.0), "float"),
    (lambda: tl.zeros(2).is_contiguous(memory_format="channels_last"),
     "str"),
    (lambda: tl.zeros(2).is_contiguous(tl.channels_last, 1), ""),
    (lambda: tl.zeros(2).numpy(True), ""),
    (lambda: tl.device(None), "NoneType"),
    (lambda: tl.device("cpu", "0"), ""),
    (lambda: tl.Tensor(), ""),
    (lambda: tl.dtype(), ""),
]


@pytest.mark.parametrize("call, needle", WRONG_TYPES,
                         ids=[str(i) for i in range(len(WRONG_TYPES))])
def test_wrong_argument_types(call, needle):
    with nothing_leaked():
        raises(TypeError, call, needle)


# ---- other bad values -------------------------------------------------------


BAD_VALUES = [
    (lambda: tl.empty(2, 3, memory_format=tl.channels_last), tl.ShapeError,
     ["4-D", "[2, 3]"]),
    (lambda: tl.zeros(1, 2, 3, 4, memory_format=tl.channels_last_3d),
     tl.ShapeError, ["5-D", "[1, 2, 3, 4]"]),
    (lambda: tl.empty(*([1] * 65)), ValueError, ["64", "65"]),
    (lambda: tl.tensor([[1, 2], [3]]), ValueError, ["2", "1"]),
    (lambda: tl.tensor([[1], 2]), ValueError, ["depth"]),
    (lambda: tl.arange(0, 10, 0), ValueError, ["step"]),
    (lambda: tl.arange(10, 0, 1), ValueError, ["10", "0"]),
    (lambda: tl.arange(float("nan")), ValueError, ["finite"]),
    (lambda: tl.empty(2, memory_kind="bogus"), ValueError, ["'bogus'"]),
    (lambda: tl.empty(2, memory_kind=99), ValueError, ["99"]),
    (lambda t=tl.zeros(2): t.is_contiguous(memory_format=tl.preserve_format),
     ValueError, ["preserve_format"]),
    (lambda: tl.full((2,), 256, dtype=tl.uint8), OverflowError,
     ["256", "uint8"]),
    (lambda: tl.full((2,), -1, dtype=tl.uint64), OverflowError,
     ["-1", "uint64"]),
    (lambda: tl.full((2,), 2 ** 70), OverflowError, [str(2 ** 70)]),
    (lambda: tl.full((2,), float("inf"), dtype=tl.int32), OverflowError,
     ["inf", "int32"]),
    (lambda: tl.from_numpy(np.zeros(2, ">i4")), ValueError, ["byte order"]),
    (lambda: tl.device("cuda:64"), ValueError, ["'cuda:64'"]),
    (lambda: tl.device("cpu", 1), ValueError, ["1"]),
]


@pytest.mark.parametrize("call, exc, needles", BAD_VALUES,
                         ids=[str(i) for i in range(len(BAD_VALUES))])
def test_bad_values(call, exc, needles):
    with nothing_allocated():
        raises(exc, call, *needles)


def test_tensor_value_errors_leak_nothing():
    # The value check of tensor() runs while the data is stored, after the
    # allocation: the tensor is released again.
    for data, dtype in [([1, 2, 300], tl.uint8), ([0.5, 1e10], tl.int32),
                        ([[1, 2], [3, 2 ** 64]], None),
                        ([1.0, float("nan")], tl.int64),
                        ([1, 2j], tl.float64)]:
        with nothing_leaked():
            with pytest.raises((OverflowError, TypeError)):
                tl.tensor(data, dtype=dtype)


def test_like_failures_leave_source_unchanged():
    src = tl.arange(6, dtype=tl.float32).as_strided((2, 3), (1, 2))
    n = src.numpy()
    before = snapshot(src)
    for call in (lambda: tl.full_like(src, "x"),
                 lambda: tl.full_like(src, 300, dtype=tl.uint8),
                 lambda: tl.zeros_like(src, dtype="nope"),
                 lambda: tl.ones_like(src, device="gpu"),
                 lambda: tl.empty_like(src, memory_format=tl.channels_last),
                 lambda: tl.empty_like(src, memory_kind="nope")):
        with nothing_allocated():
            with pytest.raises((TypeError, ValueError, OverflowError)):
                call()
        assert snapshot(src) == before
    del n


def test_errors_do_not_leave_error_state():
    # A failing call must not poison the next one (the thread-local core
    # error record is cleared when it becomes an exception).
    for _ in range(3):
        with pytest.raises(tl.ShapeError):
            tl.empty(-1)
        assert tl.zeros(2).tolist() == [0.0, 0.0]
        with pytest.raises(OverflowError):
            tl.empty(2 ** 62, 4)
        assert tl.arange(3).tolist() == [0, 1, 2]


def test_messages_are_readable():
    e = raises(tl.ShapeError, lambda: tl.empty(3, -4))
    assert re.search(r"negative", str(e))
    e = raises(TypeError, lambda: tl.zeros(2, dtype="nope"))
    assert "float32" in str(e) and "int64" in str(e)  # lists the choices
    e = raises(ValueError, lambda: tl.zeros(2, device="gpu"))
    assert "cpu" in str(e) and "cuda" in str(e)


# ---- error messages, reviewed as a set ------------------------------------
# Error messages, reviewed as a set.
#
# Each class of user error is triggered once, and its message must name what
# was given and what was expected, and -- where there is a fix -- say it
# (e.g. "use .reshape()" after a view that the strides cannot express).  The
# exception types are checked too: they are part of the API (ShapeError is
# both a ValueError and a RuntimeError).


def message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def has_all(msg, *parts):
    for p in parts:
        assert p in msg, "{!r} lacks {!r}".format(msg, p)


@pytest.fixture
def t():
    return tl.arange(6.0).reshape(2, 3)


# ---- shapes and views -------------------------------------------------------

def test_view_that_strides_cannot_express(t):
    msg = message(tl.ShapeError, lambda: t.t().view(6))
    # given: the sizes, strides and asked-for shape; the fixes
    has_all(msg, "[3, 2]", "[1, 3]", "[6]", ".reshape(", ".contiguous()")


def test_view_with_wrong_element_count(t):
    has_all(message(tl.ShapeError, lambda: t.view(4)), "[4]",
            "holds 4 elements, not the input's 6")
    has_all(message(tl.ShapeError, lambda: t.view(4, -1)), "[4, -1]",
            "input's 6 elements")
    has_all(message(tl.ShapeError, lambda: t.reshape(4, 2)), "[4, 2]", "6")
    has_all(message(tl.ShapeError, lambda: t.view(-1, -1)), "[-1, -1]",
            "only one size can be inferred")


def test_broadcast_mismatch(t):
    msg = message(tl.ShapeError, lambda: t + tl.ones(4))
    has_all(msg, "[2, 3]", "[4]", "sizes are 3 and 4", "dimension 1")
    msg = message(tl.ShapeError, lambda: tl.ones(2, 1) + t + tl.ones(5, 1))
    has_all(msg, "[2, 3]", "[5, 1]", "sizes are 2 and 5", "dimension 0")
    msg = message(tl.ShapeError, lambda: t.expand(4, 4))
    has_all(msg, "[4, 4]", "[2, 3]", "dimension 1", "has size 3")
    msg = message(tl.ShapeError, lambda: t.expand(-1, 2, 3))
    has_all(msg, "leading dimension 0", "got -1")


def test_permute_and_movedim(t):
    msg = message(tl.ShapeError, lambda: t.permute(0))
    has_all(msg, "1 dims given for a 2-d tensor", "each of the 2 dims")
    assert "sparse" not in msg
    msg = message(tl.ShapeError, lambda: t.permute(0, 0))
    has_all(msg, "0..1", "dim 0")
    msg = message(tl.ShapeError, lambda: t.movedim((0, 0), (0, 1)))
    has_all(msg, "source", "dim 0")
    msg = message(tl.ShapeError, lambda: t.movedim((0, 1), (1, 1)))
    has_all(msg, "destination", "dim 1")
    msg = message(tl.ShapeError, lambda: t.flip(0, 0))
    has_all(msg, "dim 0", "multiple times")


def test_narrow_unfold_as_strided(t):
    has_all(message(IndexError, lambda: t.narrow(1, 2, 5)),
            "start (2)", "length (5)", "size (3)", "dim 1")
    has_all(message(tl.ShapeError, lambda: t.unfold(1, 5, 1)),
            "dimension 1", "is 3", "size is 5")
    has_all(message(tl.ShapeError, lambda: t.as_strided((10,), (1,))),
            "[10]", "[1]", "0..9", "24 bytes")


def test_bad_sizes():
    has_all(message(tl.ShapeError, lambda: tl.empty(-1)), "-1", "dim 0")
    has_all(message(TypeError, lambda: tl.empty(2.5)), "size[0]", "int",
            "float")
    has_all(message(TypeError, lambda: tl.full((2,), "x")), "fill_value",
            "number", "str")
    has_all(message(ValueError, lambda: tl.tensor([[1, 2], [3]])),
            "length 2", "dim 1", "length 1")


def test_scalar_conversion_of_many_elements(t):
    has_all(message(tl.ShapeError, lambda: t.item()), "6 elements",
            "exactly one")
    has_all(message(tl.ShapeError, lambda: int(t)), "one element", "6")
    msg = message(tl.ShapeError, lambda: bool(t))
    has_all(msg, "6 elements", "exactly one element", ".any()", ".all()")


# ---- dims and indices -------------------------------------------------------

def test_dim_out_of_range(t):
    msg = message(IndexError, lambda: t.sum(5))
    has_all(msg, "dim 5", "2-d tensor", "valid dims are -2 to 1")
    has_all(message(IndexError, lambda: t.unsqueeze(5)), "dim 5",
            "valid dims are -3 to 2")


def test_index_out_of_range(t):
    has_all(message(IndexError, lambda: t[5]), "index 5", "dimension 0",
            "size 2")
    has_all(message(IndexError, lambda: t[0, 7]), "index 7", "dimension 1",
            "size 3")
    has_all(message(IndexError, lambda: t[tl.tensor([0, 9])]), "index 9",
            "size 2")
    has_all(message(IndexError, lambda: t[0, 0, 0]), "3 given",
            "2-d tensor")
    has_all(message(IndexError, lambda: t[(0,) * 80]), "80 entries",
            "dimension 2")


def test_bad_index_type(t):
    msg = message(IndexError, lambda: t["a"])
    has_all(msg, "got str", "an int", "a slice", "None", "bool tensor")
    msg = message(IndexError, lambda: t[tl.tensor([True, False, True])])
    has_all(msg, "size 3", "size 2", "dim 0")


# ---- dtypes -----------------------------------------------------------------

def test_bad_dtype():
    msg = message(TypeError, lambda: tl.zeros(2, dtype="float33"))
    has_all(msg, "'float33'", "float32", "int64")
    has_all(message(TypeError, lambda: tl.zeros(2, dtype=5)),
            "tensorlib.dtype", "not int")
    has_all(message(TypeError, lambda: tl.zeros(2, dtype=str)), "not str",
            "(a type)")


def test_dtype_not_supported_by_op(t):
    has_all(message(TypeError, lambda: t & t), "bitwise_and", "float32")
    ints = tl.tensor([1, 2])
    msg = message(TypeError, lambda: ints.var())
    has_all(msg, "floating point", "int64", "t.to(tensorlib.float32)")
    msg = message(TypeError, lambda: ints.mean())
    has_all(msg, "dtype int64", "dtype=tensorlib.float32")
    has_all(message(TypeError, lambda: tl.where(t, t, t)), "dtype bool",
            "not float32")


def test_no_numpy_equivalent(t, monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as if missing
    has_all(message(TypeError, lambda: t.to(tl.bfloat16).numpy()),
            "bfloat16", "t.to(tensorlib.float32)")
    has_all(message(TypeError, lambda: tl.from_numpy(np.array(["a"]))),
            "<U1", "supported:")


# ---- devices and memory kinds -----------------------------------------------

def test_bad_device():
    has_all(message(ValueError, lambda: tl.zeros(2, device="gpu")), "'gpu'",
            "'cpu'", "'cuda:N'")
    has_all(message(ValueError, lambda: tl.device("cuda:x")), "'cuda:x'",
            "0 to")
    has_all(message(TypeError, lambda: tl.zeros(2, device=1.5)), "not float",
            "tensorlib.device")


@pytest.mark.skipif(tl.cuda.is_built(), reason="CPU-only build message")
def test_cuda_in_cpu_build():
    has_all(message(RuntimeError, lambda: tl.zeros(2, device="cuda")),
            "without CUDA", "cuda:0")


def test_bad_memory_kind():
    msg = message(ValueError, lambda: tl.zeros(2, memory_kind="fast"))
    has_all(msg, "'fast'", "Default", "HostPageable")
    msg = message(ValueError, lambda: tl.zeros(2, memory_kind=9))
    has_all(msg, "9", "Default", "HostPageable")
    has_all(message(TypeError, lambda: tl.zeros(2, memory_kind=1.5)),
            "not float", "MemoryKind")
    has_all(message(ValueError,
                    lambda: tl.memory.set_allocator("Default", "nope")),
            "'nope'", "cpu_caching")


def test_bad_memory_format(t):
    has_all(message(TypeError, lambda: t.contiguous(memory_format="x")),
            "not str", "channels_last")
    has_all(message(tl.ShapeError,
                    lambda: t.contiguous(memory_format=tl.channels_last)),
            "4-D", "2-D", "[2, 3]")


# ---- writes -----------------------------------------------------------------

def test_write_into_read_only(t):
    ro = tl._C._readonly_view(t)
    for fn in (lambda: ro.__setitem__(0, 1), lambda: ro.add_(1),
               lambda: tl.add(t, 1, out=ro)):
        msg = message(ValueError, fn)
        has_all(msg, "read-only", "float32", "[2, 3]", "t.clone()")
    fb = tl.frombuffer(b"\0" * 16, dtype=tl.float32)
    has_all(message(ValueError, lambda: fb.fill_(1)), "read-only memory",
            "[4]")


def test_out_of_the_wrong_shape_or_dtype(t):
    has_all(message(tl.ShapeError, lambda: tl.add(t, 1, out=tl.empty(3))),
            "[3]", "[2, 3]")
    msg = message(tl.ShapeError, lambda: tl.sum(t, 0, out=tl.empty(2)))
    has_all(msg, "[2]", "[3]", "only an empty output")
    msg = message(TypeError,
                  lambda: tl.add(t, 1, out=tl.empty(2, 3, dtype=tl.int32)))
    has_all(msg, "float32", "int32", "can_cast(float32, int32) is False")


def test_write_into_self_overlapping_tensor():
    e = tl.zeros(3).expand(2, 3)
    for fn in (lambda: e.add_(1), lambda: e.__setitem__(tl.tensor([0]), 1.0),
               lambda: tl.add(e, 1, out=e)):
        msg = message(tl.ShapeError, fn)
        has_all(msg, "[2, 3]", "[0, 1]", "elements share memory",
                "clone()")
    for fn in (lambda: e.copy_(tl.ones(3)), lambda: tl.sum(
            tl.ones(4, 2), 0, out=tl.zeros(1).expand(2))):
        has_all(message(tl.ShapeError, fn), "elements share memory")


def test_set_with_a_tensor_and_geometry(t):
    msg = message(TypeError, lambda: t.set_(tl.zeros(6), 0, (6,), (1,)))
    has_all(msg, "no offset, size or stride", "untyped_storage()")
    msg = message(TypeError, lambda: t.set_(tl.zeros(6, dtype=tl.int64)))
    has_all(msg, "float32", "int64")


def test_in_place_broadcast_and_cast():
    has_all(message(tl.ShapeError, lambda: tl.ones(3).add_(tl.ones(2, 3))),
            "[3]", "[2, 3]")
    msg = message(TypeError,
                  lambda: tl.ones(3, dtype=tl.int32).add_(1.5))
    has_all(msg, "float32", "int32", "can_cast(float32, int32) is False")


def test_resize_of_exported_storage():
    a = tl.zeros(4)
    cap = a.__dlpack__()
    msg = message(BufferError, lambda: a.resize_(1000))
    has_all(msg, "16", "4000", "exported", "release the export",
            "t.clone()")
    del cap
    gc.collect()
    b = tl.zeros(4)
    arr = np.asarray(b)  # __array_interface__: never resizable again
    msg = message((BufferError, RuntimeError), lambda: b.resize_(1000))
    assert re.search(r"16\b", msg) and "4000" in msg, msg
    del arr


def test_workspace_errors():
    def exhaust():
        with tl.workspace(1024, growable=False) as w:
            w.empty(100000)
    msg = message(MemoryError, exhaust)
    has_all(msg, "400000 bytes", "4096", "growable=False", "make it larger")

    def use_after_reset():
        with tl.workspace(1024) as w:
            x = w.empty(4)
        x + 1
    msg = message(RuntimeError, use_after_reset)
    has_all(msg, "reset", "generation 1, now 2", "t.clone()")
    has_all(message(ValueError, lambda: tl.workspace(-1)), "non-negative",
            "-1")


def test_execution_plan_errors():
    p = tl.ExecutionPlan()
    p.add_buffer("a", (4,))
    msg = message(tl.ShapeError, lambda: p.add_view_buffer("b", "a", (8,)))
    has_all(msg, "'b'", "'a'", "[4]", "[8]")
    has_all(message(ValueError,
                    lambda: p.add_view_buffer("c", "zz", (8,))),
            "'c'", "'zz'")


def test_numbers_out_of_their_domain(t):
    has_all(message(ValueError, lambda: tl.set_num_threads(0)),
            "[1, 1024]", "got 0")
    has_all(message(ValueError, lambda: tl.arange(0, 5, 0)), "step",
            "nonzero")
    has_all(message(ValueError,
                    lambda: tl.frombuffer(b"abc", dtype=tl.float32)),
            "3 bytes", "element size (4)")
    has_all(message(ValueError,
                    lambda: tl.frombuffer(b"abcd", dtype=tl.uint8,
                                          offset=10)),
            "offset 10", "4 bytes")
    has_all(message(tl.ShapeError, lambda: t.chunk(0)), "greater than 0",
            "got: 0")


def test_size_of_non_ints():
    msg = message(TypeError, lambda: tl.Size([1.5]))
    has_all(msg, "float")
