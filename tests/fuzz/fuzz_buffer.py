"""Fuzzes the buffer-protocol import (asarray, tensor, frombuffer) with
memoryviews whose Py_buffer is crafted through ctypes
(PyMemoryView_FromBuffer): any ndim, shape, strides, itemsize, format and
readonly flag over a real allocation of ``len`` bytes.  The buffer
protocol carries that length, so a shape that claims more or fewer
elements than ``len`` holds (a lying exporter) must be refused; strides are
backed with real memory (an exporter's strides cannot be checked)."""
import ctypes

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()


class Py_buffer(ctypes.Structure):
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
_from_buffer.argtypes = [ctypes.POINTER(Py_buffer)]

FORMATS = [(b"B", 1), (b"b", 1), (b"h", 2), (b"H", 2), (b"i", 4), (b"I", 4),
           (b"l", 8), (b"q", 8), (b"Q", 8), (b"f", 4), (b"d", 8), (b"e", 2),
           (b"?", 1), (b"Zf", 8), (b"Zd", 16), (b"<i", 4), (b">d", 8),
           (b"=q", 8), (b"x", 1), (b"2i", 8), (b"T{i:a:}", 4), (b"O", 8),
           (b"", 1), (b"c", 1), (b"P", 8)]
BACKED_LIMIT = 1 << 20


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    fmt, isz = fdp.PickValueInList(FORMATS)
    if fdp.ConsumeIntInRange(0, 7) == 0:
        isz = fdp.PickValueInList([0, 1, 3, 16, -1, 2 ** 40])
    nd = fdp.ConsumeIntInRange(0, 5) if fdp.ConsumeIntInRange(0, 7) else \
        fdp.PickValueInList([64, 65, -1])
    nreal = max(0, min(nd, 64))
    shape = [fdp.ConsumeIntInRange(0, 5) if fdp.ConsumeIntInRange(0, 7)
             else fdp.PickValueInList([-1, 2 ** 40, 2 ** 62, 7])
             for _ in range(nreal)]
    contiguous = fdp.ConsumeBool()
    if contiguous:
        strides = []
        acc = max(isz, 1)
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
    else:
        strides = [fdp.ConsumeIntInRange(-64, 64) for _ in range(nreal)]
    numel = 1
    for n in shape:
        numel *= n
    honest = numel * isz if numel >= 0 and isz > 0 else 0
    length = honest if fdp.ConsumeIntInRange(0, 3) else \
        max(0, honest + fdp.ConsumeIntInRange(-16, 16))
    lying = length != honest or numel < 0 or isz <= 0
    # Real memory for the whole strided extent, and for len.
    lo = hi = 0
    if numel > 0 and isz > 0:
        for n, s in zip(shape, strides):
            span = (n - 1) * s
            lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
        hi += isz
    if hi - lo > BACKED_LIMIT or length > BACKED_LIMIT:
        return
    size = max(hi - lo, length, 1)
    mem = ctypes.create_string_buffer(size)
    info = Py_buffer()
    info.buf = ctypes.addressof(mem) - lo
    info.obj = None
    info.len = length
    info.itemsize = isz
    info.readonly = fdp.ConsumeBool()
    info.ndim = nd
    info.format = fmt if fdp.ConsumeIntInRange(0, 7) else None
    shape_arr = (ctypes.c_ssize_t * max(nreal, 1))(
        *[min(x, 2 ** 63 - 1) for x in shape])
    strides_arr = (ctypes.c_ssize_t * max(nreal, 1))(*strides)
    info.shape = shape_arr if fdp.ConsumeIntInRange(0, 15) or nd == 0 \
        else None
    info.strides = strides_arr if fdp.ConsumeIntInRange(0, 7) else None
    if not info.strides and not contiguous:
        return  # NULL strides means C-contiguous: those were made above
    if not info.shape:
        return  # CPython itself requires shape for ndim > 0 consumers
    try:
        mv = _from_buffer(ctypes.byref(info))
    except (*EXPECTED, SystemError):  # CPython refusing the Py_buffer
        return
    op = fdp.ConsumeIntInRange(0, 2)
    try:
        if op == 0:
            t = tl.asarray(mv)
        elif op == 1:
            t = tl.tensor(mv)
        else:
            t = tl.frombuffer(mv, dtype=fdp.PickValueInList(
                ["uint8", "int32", "float64", "bool", "complex64"]))
    except EXPECTED:
        return
    if lying and op == 0:
        raise AssertionError(
            "a buffer whose shape {} x itemsize {} disagrees with its "
            "length {} was accepted".format(shape, isz, length))
    _common.touch(t)
    del t, mv
    del mem


if __name__ == "__main__":
    _common.main(TestOneInput)
