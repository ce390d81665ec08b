"""Fuzzes tensor()'s parser of nested Python data: ragged and deep lists,
tuples, mixed element kinds (bool, int of any size, float incl. NaN/inf,
complex, None, str, bytes, tensors, NumPy scalars and arrays), with and
without dtype=.  A success is then read back; a failure must be one of the
documented exception classes."""
import sys

import numpy as np

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

DTYPES = [None, "bool", "uint8", "int8", "int16", "int32", "int64", "uint16",
          "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"]
INTS = [0, 1, -1, 127, 128, 255, 256, -129, 2 ** 31, 2 ** 63 - 1, -2 ** 63,
        2 ** 63, 2 ** 64, -2 ** 64 - 1, 10 ** 30]
FLOATS = [0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf"), 1e308,
          5e-324, 65504.0, 1e39]


def element(fdp, depth):
    k = fdp.ConsumeIntInRange(0, 15)
    if k == 0:
        return fdp.ConsumeBool()
    if k == 1:
        return fdp.PickValueInList(INTS)
    if k == 2:
        return fdp.ConsumeIntInRange(-300, 300)
    if k == 3:
        return fdp.PickValueInList(FLOATS)
    if k == 4:
        return fdp.ConsumeRegularFloat()
    if k == 5:
        return complex(fdp.PickValueInList(FLOATS), fdp.ConsumeRegularFloat())
    if k == 6:
        return fdp.PickValueInList([None, "x", b"b", object(), 1j, ...])
    if k == 7:
        n = fdp.ConsumeIntInRange(0, 3)
        return tl.tensor([fdp.ConsumeIntInRange(-5, 5) for _ in range(n)]) \
            if fdp.ConsumeBool() else tl.tensor(fdp.ConsumeRegularFloat())
    if k == 8:
        return fdp.PickValueInList([np.int8(-3), np.uint64(2 ** 64 - 1),
                                    np.float16(1.5), np.bool_(True),
                                    np.complex64(1 + 2j), np.float64("nan")])
    if k == 9:
        n = fdp.ConsumeIntInRange(0, 3)
        return np.arange(n, dtype=fdp.PickValueInList(
            ["int32", "float32", "uint16", "complex128", ">f8"])) \
            if fdp.ConsumeBool() else np.ones(n, dtype=bool)
    if depth >= 40:
        return 0
    n = fdp.ConsumeIntInRange(0, 4)
    items = [element(fdp, depth + 1) for _ in range(n)]
    return tuple(items) if k == 10 else items


def regular(fdp, depth):
    """A (mostly) rectangular nest: ragged only where the bytes say so."""
    nd = fdp.ConsumeIntInRange(0, 5)
    shape = [fdp.ConsumeIntInRange(0, 3) for _ in range(nd)]

    def build(d):
        if d == nd:
            return element(fdp, 60) if fdp.ConsumeIntInRange(0, 7) == 0 \
                else fdp.ConsumeIntInRange(-1000, 1000)
        n = shape[d] + (1 if fdp.ConsumeIntInRange(0, 15) == 0 else 0)
        return [build(d + 1) for _ in range(n)]
    return build(0)


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    obj = regular(fdp, 0) if fdp.ConsumeBool() else element(fdp, 0)
    if fdp.ConsumeIntInRange(0, 7) == 0:
        # Deep nesting: must end in an error, never a C stack overflow.
        for _ in range(fdp.ConsumeIntInRange(0, 100000)):
            obj = [obj]
    dtype = fdp.PickValueInList(DTYPES)
    try:
        t = tl.tensor(obj, dtype=dtype)
    except EXPECTED:
        return
    except RecursionError:
        return
    _common.touch(t)


if __name__ == "__main__":
    _common.main(TestOneInput)
