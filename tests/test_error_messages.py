"""Error messages, reviewed as a set.

Each class of user error is triggered once, and its message must name what
was given and what was expected, and -- where there is a fix -- say it
(e.g. "use .reshape()" after a view that the strides cannot express).  The
exception types are checked too: they are part of the API (ShapeError is
both a ValueError and a RuntimeError).
"""
import gc
import re

import numpy as np
import pytest

import tensorlib as tl


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


def test_no_numpy_equivalent(t):
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
