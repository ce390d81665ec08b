"""Fuzzes the import of objects exposing __array_interface__ with hostile
metadata over real memory: shape, typestr (any kind, size, byte order),
strides (zero, negative, unaligned, not a multiple of the itemsize),
offsets into the allocation, read-only flags, descr, versions and wrong
types for every field.  tensorlib reads __array_interface__ through
NumPy (asarray/from_numpy of np.asarray(obj)); tensor() and asarray() of
the object itself must refuse it cleanly.  DLPack-like, the protocol
carries no length, so the harness backs the extent it claims."""
import ctypes

import numpy as np

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

TYPESTRS = ["<f4", "<f8", "<i8", "<i4", "|u1", "|i1", "|b1", "<f2", "<c8",
            "<c16", ">f8", ">i4", "<u2", "<u4", "<u8", "<i2", "|V4", "<M8",
            "<U2", "|O", "<f16", "<i3", "x", "", "<V0"]
BACKED_LIMIT = 1 << 20
COPY_LIMIT = 1 << 26


class Exposer:
    def __init__(self, ai):
        self.__array_interface__ = ai


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    typestr = fdp.PickValueInList(TYPESTRS)
    try:
        isz = np.dtype(typestr).itemsize
    except (TypeError, ValueError):
        isz = 1
    nd = fdp.ConsumeIntInRange(0, 4) if fdp.ConsumeIntInRange(0, 7) else \
        fdp.PickValueInList([33, 64, 65])
    shape = [fdp.ConsumeIntInRange(0, 4) if fdp.ConsumeIntInRange(0, 7)
             else fdp.PickValueInList([-1, 2 ** 31, 2 ** 63, 1])
             for _ in range(nd)]
    ks = fdp.ConsumeIntInRange(0, 3)
    strides = None if ks == 0 else [
        fdp.ConsumeIntInRange(-40, 40) if ks != 3 else
        fdp.ConsumeIntInRange(-4, 4) * isz for _ in range(nd)]
    eff = strides
    if eff is None:
        eff, acc = [], isz
        for n in reversed(shape):
            eff.insert(0, acc)
            acc *= max(n, 1)
    lo = hi = 0
    if all(n > 0 for n in shape):
        for n, s in zip(shape, eff):
            span = (n - 1) * s
            lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
        hi += isz
    if any(n < 0 or n >= 2 ** 31 for n in shape) or hi - lo > BACKED_LIMIT:
        backed = False
        size = 64
    else:
        backed = True
        size = max(hi - lo, 1)
    mis = fdp.ConsumeIntInRange(0, 7)  # misalign the data pointer
    mem = ctypes.create_string_buffer(size + 8)
    addr = ctypes.addressof(mem) + mis - (lo if backed else 0)
    ai = {"shape": tuple(shape), "typestr": typestr,
          "data": (addr, fdp.ConsumeBool()), "version": 3}
    if strides is not None:
        ai["strides"] = tuple(strides)
    k = fdp.ConsumeIntInRange(0, 12)
    if k == 0:
        ai["version"] = fdp.PickValueInList([0, 2, 4, "3", None])
    elif k == 1:
        ai["shape"] = fdp.PickValueInList([None, "3", [2, "a"], (1.5,), 5])
    elif k == 2:
        # (NumPy reads a bytes object's buffer without checking that it
        # holds the claimed extent: no longer backed.)
        ai["data"] = fdp.PickValueInList([None, (addr,), ("x", False),
                                          (addr, False, 3), b"abc"])
        backed = False
    elif k == 3:
        ai["descr"] = fdp.PickValueInList([[("", typestr)], [("a", "<f4")],
                                           "bad", [("", "<f4", (2,))]])
    elif k == 4:
        ai["strides"] = fdp.PickValueInList([(1,), "x", (None,), ()])
    elif k == 5:
        del ai["typestr"]
    obj = Exposer(ai)
    op = fdp.ConsumeIntInRange(0, 2)
    try:
        if op == 0:
            tl.tensor(obj)
        elif op == 1:
            tl.asarray(obj)
        if op != 2:
            return
    except EXPECTED:
        return
    if not backed:
        return  # NumPy would take the claim at its word: nothing to read
    try:
        a = np.asarray(obj)
    except (*EXPECTED, AttributeError):
        return
    # asarray() converts a non-native byte order with a copy of the whole
    # logical size: overlapping strides claim 2**31 elements over a few
    # bytes, and their 16 GiB copy (NumPy's astype would make the same)
    # is an honest request, not a finding (CI's seed-1 OOM).  Past
    # COPY_LIMIT bytes only the zero-copy from_numpy() is fuzzed.
    try:
        use_asarray = fdp.ConsumeBool() and a.nbytes <= COPY_LIMIT
        t = tl.asarray(a) if use_asarray else tl.from_numpy(a)
    except EXPECTED:
        return
    _common.touch(t)
    if a.dtype.isnative and a.dtype.kind in "biufc" and 0 < t.numel() < 4096:
        ref = np.asarray(t.tolist(), dtype=a.dtype).reshape(a.shape)
        same = (ref == a) | (ref != ref)
        if not np.all(same):
            raise AssertionError("imported values differ from NumPy's")
    del mem


if __name__ == "__main__":
    _common.main(TestOneInput)
