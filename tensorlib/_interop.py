"""Python-level interop: asarray (array API semantics), pickling with
storage sharing, copy and deepcopy.  The memory work is done in C
(csrc/python/interop.c); this module only decides which path to take."""
import copyreg
import re as _re
import struct as _struct
import pickle
import weakref

import numpy as _np

from . import _C


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def asarray(obj, dtype=None, device=None, copy=None):
    """Convert obj to a tensor, sharing memory when possible.

    obj may be a tensor, a NumPy array, a DLPack producer, any object with
    the buffer protocol (bytes, bytearray, array.array, memoryview) or
    nested sequences of numbers.  copy=None copies only when needed,
    copy=True always, copy=False never (ValueError when a copy is needed).
    Non-native byte order is converted to native order, which needs a
    copy."""
    if device is not None and str(_C.device(device)) != "cpu":
        raise RuntimeError(
            "asarray(device={!r}): this build of tensorlib has no such "
            "device".format(str(device)))
    if dtype is not None and not isinstance(dtype, _C.dtype):
        dtype = _C.empty(0, dtype=dtype).dtype
    t = None
    if _is_tensor(obj):
        t = obj
    elif isinstance(obj, _np.ndarray) or isinstance(obj, _np.generic):
        a = _np.asarray(obj)
        if not a.dtype.isnative:
            if copy is False:
                raise ValueError(
                    "asarray(copy=False): array of non-native byte order "
                    "{} needs a copy".format(a.dtype))
            a = a.astype(a.dtype.newbyteorder("="))
            copy = None if copy is None else False
        if a.dtype.kind in "OUSMm" or (
                a.dtype.kind == "V" and
                getattr(a.dtype.type, "__module__", "") != "ml_dtypes"):
            raise TypeError("asarray(): NumPy dtype {} has no tensorlib "
                            "equivalent".format(a.dtype))
        t = _C.from_numpy(a)
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        t = _C.from_dlpack(obj)
    else:
        try:
            mv = memoryview(obj)
        except TypeError:
            mv = None
        if mv is not None:
            _check_buffer_length(mv)
            a = _np.asarray(mv)
            if a.dtype.kind in "OUSV":
                raise TypeError(
                    "asarray(): buffer of format {!r} has no tensorlib "
                    "dtype".format(mv.format))
            t = _C.from_numpy(a)
        else:
            if copy is False:
                raise ValueError("asarray(copy=False): a Python sequence "
                                 "must be copied")
            return _C.tensor(obj, dtype=dtype)
    if dtype is not None and t.dtype != dtype:
        if copy is False:
            raise ValueError(
                "asarray(copy=False): converting {} to {} needs a "
                "copy".format(t.dtype, dtype))
        return t.to(dtype)
    if copy:
        return t.clone()
    return t


def _check_buffer_length(mv):
    """The buffer protocol carries a length: an exporter whose shape claims
    more or fewer bytes than that (a lying or broken exporter) is refused
    before any element is read (issue 23, found by tests/fuzz/fuzz_buffer)."""
    if not mv.format:
        # PEP 3118 has no empty format (NULL means "B"); NumPy crashes on it.
        raise BufferError("asarray(): the buffer has an empty format string")
    fmt = mv.format
    m = _re.fullmatch(r"([@=<>!]?)(Z?)([?bBhHiIlLqQnNefdg])", fmt)
    if m is None:
        # NumPy trusts an exporter's itemsize for structured formats and
        # crashes when it lies: only number formats are read here.
        raise TypeError("asarray(): buffer of format {!r} has no tensorlib "
                        "dtype".format(fmt))
    size = _struct.calcsize(m.group(1) + m.group(3)) * (2 if m.group(2)
                                                        else 1)
    if size != mv.itemsize:
        raise BufferError(
            "asarray(): the buffer's format {!r} has itemsize {}, the "
            "exporter says {}".format(fmt, size, mv.itemsize))
    n = mv.itemsize
    for s in mv.shape:
        n *= s
    if n != mv.nbytes:
        raise BufferError(
            "asarray(): the buffer's shape {} with itemsize {} needs {} "
            "bytes but the exporter says it holds {}".format(
                tuple(mv.shape), mv.itemsize, n, mv.nbytes))


# ---- pickling -------------------------------------------------------------

def _rebuild_storage(data, readonly):
    return _C._storage_from_bytes(data, readonly)


def _reduce_storage(s):
    # The storage object is unique per storage while it lives, so pickle's
    # memo shares it between every view pickled together.
    ro = False
    return (_rebuild_storage, (_C._storage_bytes(s), ro))


copyreg.pickle(_C.UntypedStorage, _reduce_storage)


def _rebuild_tensor(storage, offset, size, stride, dtype, readonly):
    return _C._tensor_from_storage(storage, offset, size, stride, dtype,
                                   readonly)


# Protocol 5 (PEP 574): a storage's bytes travel as a PickleBuffer over its
# own memory, handed to buffer_callback out-of-band (no copy) or written
# in-band (bytearray when writable, bytes when read-only).  copyreg's
# reducers do not see the protocol, so the tensor's __reduce_ex__ swaps the
# storage for a _Protocol5Storage; one per storage while a pickle is being
# written (the pickler's memo holds it), so views keep sharing storage.
_p5_wrappers = weakref.WeakValueDictionary()


class _Protocol5Storage:
    __slots__ = ("storage", "__weakref__")

    def __init__(self, storage):
        self.storage = storage

    def __reduce__(self):
        s = self.storage
        data = _C._tensor_from_storage(s, 0, (s.nbytes(),), (1,), "uint8",
                                       False)
        writable = not data.is_readonly()
        return (_rebuild_storage_p5, (pickle.PickleBuffer(data), writable))


def _p5_storage(s):
    w = _p5_wrappers.get(id(s))
    if w is None or w.storage is not s:
        w = _Protocol5Storage(s)
        _p5_wrappers[id(s)] = w
    return w


def _rebuild_storage_p5(buf, writable):
    """A storage over buf's memory (no copy), or over a copy when buf is
    read-only and the pickled storage was writable."""
    m = memoryview(buf)
    if m.format != "B" or m.ndim != 1:
        m = m.cast("B")
    if m.readonly and writable:
        return _C._storage_from_bytes(m, False)
    return _C.from_numpy(_np.frombuffer(m, dtype=_np.uint8)).untyped_storage()


def _check_extent(t, storage):
    # As tl_tensor_check_extent: a view past the end of a storage shrunk
    # under it has no data to pickle.
    if t.numel() == 0:
        return
    hi = t.storage_offset() + sum((n - 1) * s for n, s in
                                  zip(t.shape, t.stride()) if s > 0)
    need = (hi + 1) * t.element_size()
    if need > storage.nbytes():
        raise RuntimeError(
            "tensor of shape {} needs {} bytes of its storage, but the "
            "storage was shrunk to {} bytes (untyped_storage().resize_()); "
            "grow the storage back to at least {} bytes to use it".format(
                list(t.shape), need, storage.nbytes(), need))


def _tensor_reduce_ex(self, protocol):
    storage = self.untyped_storage()
    _check_extent(self, storage)
    if protocol >= 5 and str(storage.device) == "cpu":
        storage = _p5_storage(storage)
    return (_rebuild_tensor,
            (storage, self.storage_offset(),
             tuple(self.shape), self.stride(), self.dtype.name,
             self.is_readonly()))


def _tensor_copy(self):
    # As PyTorch: a new tensor object over the same storage.
    return _C._tensor_from_storage(self.untyped_storage(),
                                   self.storage_offset(), tuple(self.shape),
                                   self.stride(), self.dtype,
                                   self.is_readonly())


def _tensor_deepcopy(self, memo):
    import copy as _copy

    if id(self) in memo:
        return memo[id(self)]
    storage = _copy.deepcopy(self.untyped_storage(), memo)
    out = _C._tensor_from_storage(storage, self.storage_offset(),
                                  tuple(self.shape), self.stride(),
                                  self.dtype, self.is_readonly())
    memo[id(self)] = out
    return out


def install():
    """Attach the pickling and copying hooks to the extension's types."""
    T = _C.Tensor
    T.__reduce_ex__ = _tensor_reduce_ex
    T.__copy__ = _tensor_copy
    T.__deepcopy__ = _tensor_deepcopy
    from . import _numpy_dispatch

    _numpy_dispatch.install()
