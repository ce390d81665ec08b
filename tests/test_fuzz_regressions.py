"""Regression tests for what the atheris harnesses (tests/fuzz/) found,
and a replay of their seed corpus and saved crash inputs.

Each finding is pinned twice: a direct test below that needs no fuzzer,
and its crashing input under tests/fuzz/regressions/<harness>/, replayed
through the harness (when atheris is installed)."""
import ctypes
import glob
import importlib
import os
import sys

import pytest

import tensorlib as tl

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.join(HERE, "fuzz")


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p),
                ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
                ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
                ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
                ("internal", ctypes.c_void_p)]


_from_buffer = ctypes.pythonapi.PyMemoryView_FromBuffer
_from_buffer.restype = ctypes.py_object
_from_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]


def crafted_memoryview(mem, length, fmt, itemsize, shape, strides=None):
    """A memoryview whose Py_buffer says whatever it is told (a lying
    exporter), over the real allocation mem."""
    info = _PyBuffer()
    info.buf = ctypes.addressof(mem)
    info.len = length
    info.itemsize = itemsize
    info.ndim = len(shape)
    info.format = fmt
    keep = [(ctypes.c_ssize_t * max(len(shape), 1))(*shape)]
    info.shape = keep[0]
    if strides is not None:
        keep.append((ctypes.c_ssize_t * max(len(shape), 1))(*strides))
        info.strides = keep[1]
    return _from_buffer(ctypes.byref(info))


def test_asarray_refuses_a_shape_that_disagrees_with_the_length():
    mem = ctypes.create_string_buffer(64)
    # claims 4 x 4 x 8 = 128 bytes over a 16-byte length
    mv = crafted_memoryview(mem, 16, b"d", 8, [4, 4], [8, 8])
    with pytest.raises(BufferError, match="needs 128 bytes.*holds 16"):
        tl.asarray(mv)
    # and fewer: a (0, 0) shape over 2 bytes
    mv = crafted_memoryview(mem, 2, b"d", 8, [0, 0], [8, 8])
    with pytest.raises(BufferError):
        tl.asarray(mv)


def test_asarray_refuses_formats_numpy_would_misread():
    mem = ctypes.create_string_buffer(400)
    mv = crafted_memoryview(mem, 35, b"", 1, [7, 5], [5, 1])
    with pytest.raises(BufferError, match="empty format"):
        tl.asarray(mv)
    # a format of 1-byte items claimed to be 4 bytes wide
    mv = crafted_memoryview(mem, 80, b"B", 4, [4, 5], [20, 4])
    with pytest.raises(BufferError, match="itemsize"):
        tl.asarray(mv)
    # structured formats: NumPy trusts the exporter's itemsize
    mv = crafted_memoryview(mem, 400, b"T{i:a:}", 16, [5, 5], [80, 16])
    with pytest.raises(TypeError, match="no tensorlib dtype"):
        tl.asarray(mv)


def test_asarray_still_reads_honest_buffers():
    import array
    assert tl.asarray(array.array("d", [1, 2])).tolist() == [1.0, 2.0]
    assert tl.asarray(b"ab").tolist() == [97, 98]
    m = memoryview(bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")).cast("i")
    assert tl.asarray(m).tolist() == [1, 2]
    m = memoryview(bytearray(16)).cast("Q", (2, 1))
    assert tuple(tl.asarray(m).shape) == (2, 1)


def test_tensor_of_a_buffer_with_a_negative_length_raises():
    # len(mv) is -1 without an exception: once a SystemError; now the
    # exported shape's check refuses it before its length is asked
    mem = ctypes.create_string_buffer(8)
    mv = crafted_memoryview(mem, 0, b"Q", 8, [-1, 0], [8, 8])
    with pytest.raises(BufferError, match="does not match its length"):
        tl.tensor(mv)

    class Broken(list):  # a sequence whose __len__ lies without raising
        def __len__(self):
            return -1
    with pytest.raises(ValueError):
        tl.tensor(Broken([1, 2]))


def test_tensor_refuses_a_sequence_whose_buffer_lies():
    # tensor() reads a memoryview item by item; CPython's item access trusts
    # the exporter's shape, so a shape of 2^62 items over 1 byte segfaulted
    # (fuzz_buffer, crash-f800ef1e...): the exported shape is checked first
    mem = ctypes.create_string_buffer(1)
    mv = crafted_memoryview(mem, 0, None, -1, [2 ** 62], [1])
    with pytest.raises(BufferError, match="does not match its length"):
        tl.tensor(mv)
    mv = crafted_memoryview(mem, 1, b"B", 1, [4], [1])  # 4 items, 1 byte
    with pytest.raises(BufferError):
        tl.tensor(mv)
    with pytest.raises(BufferError):
        tl.tensor([[1, 2, 3, 4], mv])  # at any depth
    # honest exporters still read as sequences of numbers, as PyTorch
    assert tl.tensor(memoryview(bytearray(b"\x01\x02"))).tolist() == [1, 2]
    assert tl.tensor(memoryview(bytearray(8)).cast("f")).dtype == tl.float32


def test_fill_of_an_expanded_view_writes_each_element_once():
    # fuzz_strided (timeout-8bdc0e9b...): fill_ of a (2^31, 4, 1, 4) view
    # with a stride-0 dim wrote the same 16 elements 2^31 times (minutes)
    t = tl.arange(30).to(tl.uint8)
    v0 = t._version
    r = t.as_strided((2 ** 31, 4, 1, 4), (0, 3, 6, 4), 0)
    r.fill_(200)
    hit = sorted({j * 3 + k * 4 for j in range(4) for k in range(4)})
    want = [200 if i in hit else i for i in range(30)]
    assert t.tolist() == want
    assert t._version == v0 + 1
    e = tl.zeros(2, 3)[:, :1].expand(2, 5)
    e.fill_(7)
    assert e.tolist() == [[7.0] * 5] * 2


def test_as_strided_refuses_int64_min_stride():
    t = tl.arange(5.0)
    with pytest.raises(OverflowError, match="overflows int64 when negated"):
        t.as_strided((1,), (-2 ** 63,))
    with pytest.raises(OverflowError):
        t.as_strided((0, 2), (-2 ** 63, 1))
    with pytest.raises(OverflowError):
        tl.empty(0).set_(t.untyped_storage(), 0, (1, 1), (1, -2 ** 63))
    # size-1 dims keep accepting any other stride, and clone them
    v = t.as_strided((1, 2), (-2 ** 63 + 1, 1), 1)
    assert v.clone().tolist() == [[1.0, 2.0]]
    # (tolist and clone once multiplied that stride by the item size: a
    # signed overflow that Python's -fwrapv hid from UBSan)
    assert v.tolist() == [[1.0, 2.0]]
    assert v.T.contiguous().tolist() == [[1.0], [2.0]]


@pytest.mark.parametrize("sign", [1, -1])
def test_from_dlpack_refuses_strides_whose_spans_sum_past_int64(sign):
    """Each dim's byte span fits int64 but their sum does not: the extent
    was added with a signed overflow (UBSan, once -fwrapv was off)."""
    pytest.importorskip("atheris_no_libfuzzer")
    os.environ["TENSORLIB_FUZZ_REPLAY"] = "1"
    sys.path.insert(0, FUZZ)
    try:
        dlp = importlib.import_module("fuzz_dlpack")
    finally:
        sys.path.remove(FUZZ)
    mem = ctypes.create_string_buffer(16)
    shape = (ctypes.c_int64 * 3)(2, 2, 2)
    strides = (ctypes.c_int64 * 3)(*[sign * 2 ** 62] * 3)
    m = dlp.DLManagedTensor()
    m.dl_tensor.data = ctypes.addressof(mem)
    m.dl_tensor.device = dlp.DLDevice(1, 0)
    m.dl_tensor.ndim = 3
    m.dl_tensor.dtype = dlp.DLDataType(1, 8, 1)     # uint8
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.strides = ctypes.cast(strides,
                                      ctypes.POINTER(ctypes.c_int64))
    m.deleter = dlp._deleter
    cap = dlp._new_capsule(ctypes.addressof(m), b"dltensor", None)
    with pytest.raises(BufferError, match="strides overflow"):
        tl.from_dlpack(cap)
    # refused before it was consumed: the producer still owns it
    assert dlp._capsule_name(cap) == b"dltensor"


def _harness_inputs():
    out = []
    for path in sorted(glob.glob(os.path.join(FUZZ, "fuzz_*.py"))):
        name = os.path.basename(path)[len("fuzz_"):-3]
        files = sorted(glob.glob(os.path.join(FUZZ, "corpus", name, "*")) +
                       glob.glob(os.path.join(FUZZ, "regressions", name,
                                              "*")))
        out.append(pytest.param(name, files, id=name))
    return out


@pytest.mark.parametrize("name,files", _harness_inputs())
def test_replay_fuzz_inputs(name, files):
    """Every seed and every saved crash input runs clean through its
    harness (needs atheris for the FuzzedDataProvider)."""
    pytest.importorskip("atheris_no_libfuzzer")
    assert files, "no corpus for fuzz_" + name
    os.environ["TENSORLIB_FUZZ_REPLAY"] = "1"
    sys.path.insert(0, FUZZ)
    try:
        mod = importlib.import_module("fuzz_" + name)
    finally:
        sys.path.remove(FUZZ)
    for f in files:
        with open(f, "rb") as fh:
            mod.TestOneInput(fh.read())
