"""Fuzzes from_dlpack with DLPack capsules crafted by ctypes: legacy
(DLManagedTensor, "dltensor") and versioned (DLManagedTensorVersioned,
"dltensor_versioned") structs with hostile ndim, shapes, strides (NULL,
zero, negative, overflowing), byte offsets, dtypes (codes, bits, lanes),
devices, versions and flags.  DLPack carries no length, so the harness
backs exactly the byte extent the struct claims with real memory whenever
that extent is sane; claims whose extent overflows must be refused.  The
capsule is handed over directly or through a producer object's __dlpack__.
The deleter must run exactly once for an accepted capsule, never for a
refused one."""
import ctypes

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

MAX_DIMS = 64
BACKED_LIMIT = 1 << 20


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


def _capsule_name(cap):
    return _get_name(cap) or b""


NAMES = [b"dltensor", b"dltensor_versioned", b"used_dltensor",
         b"used_dltensor_versioned", b"other"]

deleted = []
# Structs and memory of capsules not yet deleted: they must outlive every
# tensor over them, also one kept alive by a traceback.
alive = {}


@DELETER
def _deleter(ptr):
    deleted.append(ptr)
    alive.pop(ptr, None)


CODES = [(0, 8), (0, 16), (0, 32), (0, 64), (1, 8), (1, 16), (1, 32),
         (1, 64), (2, 16), (2, 32), (2, 64), (4, 16), (5, 64), (5, 128),
         (6, 8), (6, 1), (2, 8), (3, 64), (7, 8), (2, 0), (0, 1), (255, 255)]
DEVICES = [1, 1, 1, 1, 3, 2, 4, 7, 13, 0, -1, 2 ** 31 - 1]
EDGE = [0, 1, -1, 2, 3, -3, 7, 2 ** 31, 2 ** 62, -2 ** 62, 2 ** 63 - 1,
        -2 ** 63, 2 ** 32 + 1]


def int64(fdp, small):
    if fdp.ConsumeIntInRange(0, 5) == 0:
        return fdp.PickValueInList(EDGE)
    return fdp.ConsumeIntInRange(-small, small)


class Producer:
    def __init__(self, cap, dev):
        self.cap, self.dev = cap, dev

    def __dlpack__(self, stream=None, max_version=None, **kw):
        return self.cap

    def __dlpack_device__(self):
        return self.dev


def extent(shape, strides, itemsize):
    """[lo, hi) bytes relative to element 0, or None when empty."""
    if any(s == 0 for s in shape):
        return None
    lo = hi = 0
    for n, s in zip(shape, strides):
        span = (n - 1) * s * itemsize
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi + itemsize


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    versioned = fdp.ConsumeBool()
    nd = fdp.ConsumeIntInRange(0, 6) if fdp.ConsumeIntInRange(0, 7) else \
        fdp.PickValueInList([-1, MAX_DIMS, MAX_DIMS + 1, 1000, -2 ** 31])
    nreal = max(0, min(nd, MAX_DIMS + 1))
    shape = [int64(fdp, 4) if fdp.ConsumeIntInRange(0, 7) == 0 else
             fdp.ConsumeIntInRange(0, 4) for _ in range(nreal)]
    code, bits = fdp.PickValueInList(CODES)
    lanes = 1 if fdp.ConsumeIntInRange(0, 7) else fdp.PickValueInList(
        [0, 2, 4, 65535])
    itemsize = max(1, bits // 8)
    kstr = fdp.ConsumeIntInRange(0, 3)
    if kstr == 0:
        strides = None  # compact row-major
    else:
        strides = [int64(fdp, 8) for _ in range(nreal)]
    if strides is None:
        eff = []
        acc = 1
        for n in reversed(shape):
            eff.insert(0, acc)
            acc *= max(n, 1)
    else:
        eff = strides
    byte_offset = fdp.ConsumeIntInRange(0, 64) if fdp.ConsumeIntInRange(
        0, 7) else fdp.PickValueInList([2 ** 63, 2 ** 64 - 1, 2 ** 62])
    device = (fdp.PickValueInList(DEVICES),
              fdp.PickValueInList([0, 0, 1, -1, 2 ** 31 - 1]))
    flags = fdp.ConsumeIntInRange(0, 7) if fdp.ConsumeBool() else \
        fdp.ConsumeIntInRange(0, 2 ** 64 - 1)
    major = 1 if fdp.ConsumeIntInRange(0, 7) else fdp.ConsumeIntInRange(
        0, 2 ** 32 - 1)
    via_producer = fdp.ConsumeBool()
    name = NAMES[1 if versioned else 0] if fdp.ConsumeIntInRange(0, 15) \
        else fdp.PickValueInList(NAMES)

    # Back the claimed extent with real memory, or decide it cannot be.
    valid = 0 <= nd == nreal and all(x >= 0 for x in shape)
    ext = extent(shape, eff, itemsize) if valid else None
    if valid:
        numel = 1
        for n in shape:
            numel *= n
        if numel * itemsize >= 2 ** 63:
            valid = False
        if ext is not None and not (-2 ** 63 <= ext[0] and
                                    ext[1] < 2 ** 63):
            valid = False
    if valid and ext is not None and ext[1] - ext[0] > BACKED_LIMIT:
        return  # a real extent too large to back here
    keep = []
    lo, hi = ext if valid and ext is not None else (0, 0)
    mem = ctypes.create_string_buffer(max(hi - lo, 1) + 16)
    keep.append(mem)
    # Element 0 sits at data + byte_offset; its lowest byte lands on mem
    # (through unsigned wrap-around when byte_offset is huge).
    data_ptr = (ctypes.addressof(mem) - lo - byte_offset) % 2 ** 64
    sane = valid

    shape_arr = (ctypes.c_int64 * max(nreal, 1))(
        *[x % 2 ** 64 - (2 ** 64 if x % 2 ** 64 >= 2 ** 63 else 0)
          for x in shape])
    strides_arr = None if strides is None else (ctypes.c_int64 * max(
        nreal, 1))(*[x % 2 ** 64 - (2 ** 64 if x % 2 ** 64 >= 2 ** 63 else 0)
                     for x in strides])
    keep += [shape_arr, strides_arr]
    m = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    keep.append(m)
    dl = m.dl_tensor
    dl.data = data_ptr
    dl.device = DLDevice(device[0], device[1])
    dl.ndim = nd
    dl.dtype = DLDataType(code, bits, lanes)
    dl.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    if strides_arr is not None:
        dl.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    dl.byte_offset = byte_offset
    m.deleter = _deleter
    if versioned:
        m.version = DLPackVersion(major, fdp.ConsumeIntInRange(0, 5))
        m.flags = flags
    addr = ctypes.addressof(m)
    alive[addr] = keep
    cap = _new_capsule(addr, name, None)
    obj = Producer(cap, device) if via_producer else cap
    del deleted[:]
    try:
        t = tl.from_dlpack(obj)
    except EXPECTED:
        # Refused before consuming: the producer still owns it (no deleter
        # call); refused after renaming the capsule "used_...": the
        # consumer owned it and must have called the deleter once.
        used = _capsule_name(cap).startswith(b"used_") and \
            not name.startswith(b"used_")
        if deleted != ([addr] if used else []):
            raise AssertionError("a refused capsule's deleter ran {} times "
                                 "(consumed: {})".format(len(deleted), used))
        alive.pop(addr, None)
        return
    if not sane:
        raise AssertionError(
            "from_dlpack accepted a capsule whose extent cannot exist: "
            "ndim {} shape {} strides {} itemsize {} byte_offset {}".format(
                nd, shape, strides, itemsize, byte_offset))
    if deleted:
        raise AssertionError("the deleter ran while the tensor lives")
    if device[0] in (1, 3):
        _common.touch(t)
    del t, obj, cap
    if deleted != [addr]:
        raise AssertionError("the deleter ran {} times, expected once".format(
            len(deleted)))


if __name__ == "__main__":
    _common.main(TestOneInput)
