"""Saving and loading tensors: the safetensors format and NumPy's .npy/.npz.

``save(obj, path, metadata=None, format=None)`` writes a dict of name ->
tensor as safetensors (or one tensor as .npy); ``load(path, mmap=False,
device="cpu", mode="r")`` reads either (and .npz), eagerly or as views over
one memory mapping of the file; ``load_metadata(path)`` returns the
safetensors ``__metadata__`` map.  See docs/files.md.

Every file is data from anyone: each header field is validated before any
data is touched, every problem is a ``ValueError`` naming the tensor and
the rule, and nothing outside the file is ever read.  The JSON header is
parsed by Python's ``json`` module; .npy headers by ``ast.literal_eval``
(object dtypes are refused, never unpickled).  Writes are atomic: a
temporary file in the same folder, flushed and fsync'ed, then renamed.
"""
import ast
import json
import lzma
import os
import re
import struct
import sys
import tempfile
import zipfile
import zlib

from . import _C

__all__ = ["save", "load", "load_metadata"]

# The reference implementation's limit on the JSON header.
MAX_HEADER_BYTES = 100_000_000
# NumPy's default limit on a .npy header (np.load's max_header_size).
NPY_MAX_HEADER_BYTES = 10_000
# The data section of a file we write starts at a multiple of this.
DATA_ALIGN = 64
_INT64_MAX = 2 ** 63 - 1

# safetensors dtype codes <-> tensorlib dtype names.
_ST_CODES = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16",
    "U16": "uint16", "I32": "int32", "U32": "uint32", "I64": "int64",
    "U64": "uint64", "F16": "float16", "BF16": "bfloat16",
    "F32": "float32", "F64": "float64", "C64": "complex64",
    "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
}
_ST_NAMES = {v: k for k, v in _ST_CODES.items()}

# .npy type codes (kind + itemsize) <-> tensorlib dtype names.
_NPY_CODES = {
    "b1": "bool", "u1": "uint8", "i1": "int8", "i2": "int16",
    "u2": "uint16", "i4": "int32", "u4": "uint32", "i8": "int64",
    "u8": "uint64", "f2": "float16", "f4": "float32", "f8": "float64",
    "c8": "complex64", "c16": "complex128",
}
_NPY_NAMES = {v: k for k, v in _NPY_CODES.items()}
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = b"PK\x03\x04"
_NATIVE = "<" if sys.byteorder == "little" else ">"

_UMASK = os.umask(0)
os.umask(_UMASK)


def _dtype(name):
    return getattr(_C, name)


def _dtype_name(dt):
    return str(dt).rsplit(".", 1)[-1]


def _check_path(path, fname):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"{fname}(): path must be a str or os.PathLike, "
                        f"not {type(path).__name__}")
    return os.fsdecode(os.fspath(path))


def _count(shape, itemsize, what):
    """Element count and byte size of shape, refusing overflow of int64."""
    n = 1
    for s in shape:
        # Each size on its own too: after a 0 the product stays 0, but
        # a size past int64 still cannot be a tensor's (found by
        # test_fuzz_safetensors_long: shape [0, 2**63]).
        if s > _INT64_MAX:
            raise ValueError(f"{what}: size {s} in shape {list(shape)} "
                             f"does not fit in int64")
        n *= s
        if n > _INT64_MAX:
            raise ValueError(f"{what}: shape {list(shape)} has more "
                             f"elements than int64 can count")
    if n * itemsize > _INT64_MAX:
        raise ValueError(f"{what}: shape {list(shape)} of {itemsize}-byte "
                         f"elements overflows int64 bytes")
    return n, n * itemsize


# ---- atomic writes ----------------------------------------------------------

def _atomic_write(path, write):
    """Calls write(fd) on a temporary file beside path, fsyncs it and
    renames it over path: a crash leaves the old file or the new one."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp", dir=folder)
    try:
        try:
            os.fchmod(fd, 0o666 & ~_UMASK)
            write(fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    # The folder is not fsynced: a crash may lose the rename (leaving the
    # old file), never leave a truncated one, and np.save + fsync (the
    # benchmark's reference) does not pay for it either.


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# ---- save ---------------------------------------------------------------------

def _extent(t):
    """Byte range [lo, hi) that t's elements span, or None when empty."""
    if t.numel() == 0:
        return None
    isz = t.element_size()
    lo = hi = t.data_ptr()
    for size, stride in zip(t.shape, t.stride()):
        if size > 1:
            span = (size - 1) * stride * isz
            if span < 0:
                lo += span
            else:
                hi += span
    return lo, hi + isz


def _check_no_sharing(items):
    """Refuses tensors that share memory, naming every pair."""
    spans = []
    for name, t in items:
        e = _extent(t)
        if e is not None:
            spans.append((e[0], e[1], name, t))
    spans.sort(key=lambda s: (s[0], s[1]))
    shared = []
    active = []
    for lo, hi, name, t in spans:
        active = [a for a in active if a[1] > lo]
        for alo, ahi, aname, at in active:
            if at.device == t.device and _C.shares_memory(at, t):
                shared.append((aname, name))
        active.append((lo, hi, name, t))
    if shared:
        pairs = ", ".join(f"'{a}' and '{b}'" for a, b in shared[:8])
        raise ValueError(
            f"save(): tensors share memory ({pairs}); a file holds each "
            f"tensor's own bytes, so sharing would be lost on load: pass "
            f"clones (t.clone()) of all but one")


def _save_safetensors(obj, path, metadata):
    if not isinstance(obj, dict):
        raise TypeError(f"save(): safetensors holds a dict of name -> "
                        f"tensor, not {type(obj).__name__} (save one tensor "
                        f"as {{'name': t}}, or as .npy)")
    items = []
    for name, t in obj.items():
        if not isinstance(name, str):
            raise TypeError(f"save(): tensor names must be str, not "
                            f"{type(name).__name__} ({name!r})")
        if name == "__metadata__":
            raise ValueError("save(): '__metadata__' is reserved for the "
                             "metadata map; pass metadata= instead")
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"save(): '{name}' is a {type(t).__name__}, "
                            f"not a tensorlib.Tensor")
        dname = _dtype_name(t.dtype)
        if dname not in _ST_NAMES:
            raise ValueError(f"save(): '{name}' is {dname}, which has no "
                             f"safetensors dtype code; save it as .npy "
                             f"(format='npy') or convert it first")
        items.append((name, t))
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str)
                for k, v in metadata.items()):
            raise TypeError("save(): metadata must be a dict of str -> str")
    _check_no_sharing(items)
    # As the reference writer: largest itemsize first (each tensor then
    # starts aligned to its itemsize, with no holes), names in order.
    items.sort(key=lambda it: (-it[1].element_size(), it[0]))
    header = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, t in items:
        n = t.numel() * t.element_size()
        header[name] = {"dtype": _ST_NAMES[_dtype_name(t.dtype)],
                        "shape": list(t.shape),
                        "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False)
    raw = text.encode("utf-8")
    # Pad with spaces so that the data starts 64-byte aligned.
    raw += b" " * ((-(8 + len(raw))) % DATA_ALIGN)
    head = struct.pack("<Q", len(raw)) + raw

    def write(fd):
        _write_all(fd, head)
        for _, t in items:
            _C._files_write(fd, t)

    _atomic_write(path, write)


def _npy_header(t):
    dname = _dtype_name(t.dtype)
    if dname not in _NPY_NAMES:
        raise ValueError(f"save(): .npy has no {dname} dtype (NumPy has "
                         f"none); save it as safetensors or convert it first")
    code = _NPY_NAMES[dname]
    order = "|" if t.element_size() == 1 else "<"
    shape = tuple(t.shape)
    d = ("{'descr': '%s%s', 'fortran_order': False, 'shape': %r, }"
         % (order, code, shape))
    for major, fmt in ((1, "<H"), (2, "<I")):
        pre = len(_NPY_MAGIC) + 2 + struct.calcsize(fmt)
        pad = (-(pre + len(d) + 1)) % DATA_ALIGN
        body = (d + " " * pad + "\n").encode("latin1")
        if major == 2 or len(body) < 65536:
            return (_NPY_MAGIC + bytes([major, 0]) +
                    struct.pack(fmt, len(body)) + body)


def _save_npy(obj, path):
    if not isinstance(obj, _C.Tensor):
        raise TypeError(f"save(): .npy holds one tensor, not "
                        f"{type(obj).__name__}")
    head = _npy_header(obj)

    def write(fd):
        _write_all(fd, head)
        _C._files_write(fd, obj)

    _atomic_write(path, write)


def save(obj, path, metadata=None, format=None):
    """Saves obj to path atomically.

    format: ``"safetensors"`` (obj a dict of name -> tensor, metadata an
    optional dict of str -> str) or ``"npy"`` (obj one tensor); by default
    ``.npy`` paths are npy and every other path safetensors.  Tensors are
    written as their logical C-order bytes, whatever their layout; tensors
    that share memory are refused (ValueError), and nothing is written.
    """
    path = _check_path(path, "save")
    if format is None:
        format = "npy" if path.endswith(".npy") else "safetensors"
    if format == "safetensors":
        _save_safetensors(obj, path, metadata)
    elif format == "npy":
        if metadata is not None:
            raise ValueError("save(): .npy files carry no metadata")
        _save_npy(obj, path)
    else:
        raise ValueError(f"save(): format must be 'safetensors' or 'npy', "
                         f"not {format!r}")


# ---- safetensors headers -----------------------------------------------------

def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError(f"safetensors header: duplicate key '{k}'")
        d[k] = v
    return d


def _is_uint(x):
    return type(x) is int and x >= 0


def _parse_st_header(raw, data_len, path):
    """Validates a safetensors header (raw bytes) for a data section of
    data_len bytes.  Returns (metadata, [(name, dtype name, shape, start,
    end)] in header order)."""
    where = f"'{path}'"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: the safetensors header is not UTF-8 "
                         f"({e.reason} at byte {e.start})") from None
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise ValueError(f"{where}: the safetensors header nests too "
                         f"deeply") from None
    except ValueError as e:
        raise ValueError(f"{where}: the safetensors header is not valid "
                         f"JSON: {e}") from None
    if not isinstance(header, dict):
        raise ValueError(f"{where}: the safetensors header is not a JSON "
                         f"object")
    metadata = header.pop("__metadata__", None)
    if metadata is None:
        metadata = {}
    elif not isinstance(metadata, dict) or not all(
            isinstance(v, str) for v in metadata.values()):
        raise ValueError(f"{where}: __metadata__ must be a map of string "
                         f"to string")
    entries = []
    for name, info in header.items():
        what = f"{where}: tensor '{name}'"
        if not isinstance(info, dict):
            raise ValueError(f"{what}: its entry is not an object")
        for key in ("dtype", "shape", "data_offsets"):
            if key not in info:
                raise ValueError(f"{what}: its entry has no '{key}'")
        code = info["dtype"]
        if not isinstance(code, str) or code not in _ST_CODES:
            raise ValueError(f"{what}: unknown dtype {code!r} (known: "
                             f"{', '.join(_ST_CODES)})")
        shape = info["shape"]
        if not isinstance(shape, list) or not all(_is_uint(s)
                                                  for s in shape):
            raise ValueError(f"{what}: shape must be a list of "
                             f"non-negative integers, not {shape!r}")
        if len(shape) > 64:
            raise ValueError(f"{what}: shape has {len(shape)} dimensions; "
                             f"at most 64 are supported")
        offs = info["data_offsets"]
        if (not isinstance(offs, list) or len(offs) != 2 or
                not all(_is_uint(o) for o in offs)):
            raise ValueError(f"{what}: data_offsets must be a list of two "
                             f"non-negative integers, not {offs!r}")
        start, end = offs
        if end < start:
            raise ValueError(f"{what}: data_offsets [{start}, {end}] end "
                             f"before they start")
        dname = _ST_CODES[code]
        _, nbytes = _count(shape, _dtype(dname).itemsize, what)
        if end - start != nbytes:
            raise ValueError(f"{what}: data_offsets [{start}, {end}] span "
                             f"{end - start} bytes but shape {shape} of "
                             f"{code} needs {nbytes}")
        entries.append((name, dname, shape, start, end))
    # The tensors must tile the data section: sorted by offsets, each
    # starts where the previous one ended, and the last ends at the end.
    pos = 0
    prev = None
    for name, _, _, start, end in sorted(entries, key=lambda e: (e[3],
                                                                 e[4])):
        if start != pos:
            if start < pos:
                raise ValueError(
                    f"{where}: tensor '{name}' at bytes [{start}, {end}) "
                    f"overlaps tensor '{prev}' (which ends at {pos})")
            raise ValueError(
                f"{where}: tensor '{name}' starts at byte {start} but the "
                f"previous tensor ends at {pos}: the data section has a "
                f"hole")
        pos = end
        prev = name
    if pos != data_len:
        if pos > data_len:
            raise ValueError(f"{where}: tensor '{prev}' ends at byte {pos} "
                             f"past the end of the data section "
                             f"({data_len} bytes)")
        raise ValueError(f"{where}: the tensors cover {pos} bytes of a "
                         f"data section of {data_len} bytes")
    return metadata, entries


def _read_st_header(f, size, path):
    """Reads and validates the header of an open safetensors file of size
    bytes.  Returns (data offset, metadata, entries)."""
    if size < 8:
        raise ValueError(f"'{path}': {size} bytes is too short for a "
                         f"safetensors file (an 8-byte header length "
                         f"comes first)")
    (n,) = struct.unpack("<Q", f.read(8))
    if n > MAX_HEADER_BYTES:
        raise ValueError(f"'{path}': the safetensors header length {n} is "
                         f"above the limit of {MAX_HEADER_BYTES} bytes")
    if n > size - 8:
        raise ValueError(f"'{path}': the safetensors header length {n} "
                         f"runs past the end of the file ({size} bytes)")
    raw = f.read(n)
    if len(raw) != n:
        raise ValueError(f"'{path}': the file ended inside its header")
    metadata, entries = _parse_st_header(raw, size - 8 - n, path)
    return 8 + n, metadata, entries


# ---- .npy headers --------------------------------------------------------------

_DESCR = re.compile(r"^([<>|=])([a-zA-Z])(\d*)$")


def _parse_npy_header(head, path):
    """head: the bytes from the magic on (at least the whole header).
    Returns (header end offset, dtype name, shape, fortran, byte order)
    where byte order is '<', '>' or '|'."""
    where = f"'{path}'"
    if len(head) < 10 or head[:6] != _NPY_MAGIC:
        raise ValueError(f"{where}: not a .npy file (bad magic)")
    major, minor = head[6], head[7]
    if major == 1:
        (hlen,) = struct.unpack("<H", head[8:10])
        start = 10
    elif major in (2, 3):
        if len(head) < 12:
            raise ValueError(f"{where}: truncated .npy header")
        (hlen,) = struct.unpack("<I", head[8:12])
        start = 12
    else:
        raise ValueError(f"{where}: unsupported .npy format version "
                         f"{major}.{minor}")
    if hlen > NPY_MAX_HEADER_BYTES:
        raise ValueError(f"{where}: .npy header of {hlen} bytes is above "
                         f"the limit of {NPY_MAX_HEADER_BYTES}")
    if len(head) < start + hlen:
        raise ValueError(f"{where}: the file ended inside its .npy header")
    raw = head[start:start + hlen]
    try:
        text = raw.decode("utf-8" if major == 3 else "latin1")
        d = ast.literal_eval(text)
    except (UnicodeDecodeError, SyntaxError, ValueError, TypeError,
            MemoryError, RecursionError) as e:
        raise ValueError(f"{where}: the .npy header is not a Python "
                         f"literal ({type(e).__name__})") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order",
                                             "shape"}:
        raise ValueError(f"{where}: the .npy header must be a dict with "
                         f"keys 'descr', 'fortran_order' and 'shape'")
    descr, fortran, shape = d["descr"], d["fortran_order"], d["shape"]
    if not isinstance(descr, str):
        raise ValueError(f"{where}: .npy descr {descr!r} is a structured "
                         f"or object dtype, which tensorlib does not load")
    m = _DESCR.match(descr)
    if not m:
        raise ValueError(f"{where}: unknown .npy dtype {descr!r}")
    order, kind, size = m.groups()
    if kind == "O":
        raise ValueError(f"{where}: .npy object arrays are refused (they "
                         f"would need unpickling)")
    code = kind + size
    if code not in _NPY_CODES:
        raise ValueError(f"{where}: .npy dtype {descr!r} has no tensorlib "
                         f"dtype")
    if order == "=":
        order = _NATIVE
    if order == "|" and int(size) != 1:
        raise ValueError(f"{where}: .npy dtype {descr!r} has no byte order")
    if type(fortran) is not bool:
        raise ValueError(f"{where}: .npy fortran_order must be True or "
                         f"False, not {fortran!r}")
    if not isinstance(shape, tuple) or not all(_is_uint(s) for s in shape):
        raise ValueError(f"{where}: .npy shape must be a tuple of "
                         f"non-negative integers, not {shape!r}")
    if len(shape) > 64:
        raise ValueError(f"{where}: .npy shape has {len(shape)} "
                         f"dimensions; at most 64 are supported")
    return start + hlen, _NPY_CODES[code], list(shape), fortran, order


def _swapped(src, offset, dname, shape, fortran, order):
    """A tensor from non-native-order bytes (converted through NumPy)."""
    import numpy as np
    dt = np.dtype(order + _NPY_NAMES[dname])
    n, nbytes = _count(shape, dt.itemsize, "npy")
    if isinstance(src, int):
        raw = os.pread(src, nbytes, offset)
    else:
        raw = bytes(memoryview(src)[offset:offset + nbytes])
    if len(raw) != nbytes:
        raise ValueError(f"npy data: the file ends before the {nbytes} "
                         f"bytes of data")
    arr = np.ndarray(tuple(shape), dt, raw, order="F" if fortran else "C")
    return _C.from_numpy(arr.astype(dt.newbyteorder("="), order="K"))


def _load_npy_bytes(buf, path):
    """A tensor from the bytes of a whole .npy file (an .npz member)."""
    end, dname, shape, fortran, order = _parse_npy_header(
        bytes(buf[:NPY_MAX_HEADER_BYTES + 12]), path)
    _, nbytes = _count(shape, _dtype(dname).itemsize, f"'{path}'")
    if len(buf) - end < nbytes:
        raise ValueError(f"'{path}': {len(buf) - end} bytes of data, but "
                         f"shape {shape} of {dname} needs {nbytes}")
    if order not in ("|", _NATIVE):
        return _swapped(buf, end, dname, shape, fortran, order)
    return _C._files_read(buf, end, shape, _dtype(dname), fortran)


# ---- load ------------------------------------------------------------------------

def _to_device(d, device):
    dev = _C.device(device) if not isinstance(device, _C.device) else device
    if dev.type == "cpu":
        return d
    return {k: v.to(dev) for k, v in d.items()}


def _load_npz(path):
    out = {}
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                name = info.filename
                key = name[:-4] if name.endswith(".npy") else name
                if key in out:
                    raise ValueError(f"'{path}': duplicate member '{name}'")
                where = f"'{path}' member '{name}'"
                # Read the header first: the size it promises bounds
                # what is read (no zip bombs).
                with z.open(info) as f:
                    head = f.read(NPY_MAX_HEADER_BYTES + 12)
                    end, dname, shape, _, _ = _parse_npy_header(head, where)
                    _, nbytes = _count(shape, _dtype(dname).itemsize, where)
                    if info.file_size < end + nbytes:
                        raise ValueError(
                            f"{where}: {info.file_size - end} bytes of data, "
                            f"but shape {shape} of {dname} needs {nbytes}")
                    need = end + nbytes - len(head)
                    rest = f.read(need) if need > 0 else b""
                buf = head + rest
                out[key] = _load_npy_bytes(buf, where)
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError,
            NotImplementedError, OverflowError, RuntimeError, OSError) as e:
        raise ValueError(f"'{path}': not a readable .npz file "
                         f"({type(e).__name__}: {e})") from None
    return out


def load(path, mmap=False, device="cpu", mode="r"):
    """Loads a safetensors file (a dict of name -> tensor), a .npy file (a
    tensor) or a .npz file (a dict), recognised by their first bytes.

    mmap=True maps the file once; the tensors are views over the mapping,
    which is unmapped when the last of them (and their views and exports)
    dies, and nothing is read until touched.  mode: ``"r"`` read-only
    tensors, ``"c"`` private copy-on-write pages, ``"r+"`` writes go to
    the file.  A malformed file raises ValueError naming the problem.
    """
    path = _check_path(path, "load")
    if mode not in ("r", "c", "r+"):
        raise ValueError(f"load(): mode must be 'r', 'c' or 'r+', not "
                         f"{mode!r}")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        magic = f.read(8)
        f.seek(0)
        if magic.startswith(_ZIP_MAGIC):
            if mmap:
                raise ValueError(f"load(): '{path}' is an .npz archive, "
                                 f"which cannot be memory-mapped; load it "
                                 f"with mmap=False")
            return _to_device(_load_npz(path), device)
        if magic.startswith(_NPY_MAGIC):
            head = f.read(NPY_MAX_HEADER_BYTES + 12)
            end, dname, shape, fortran, order = _parse_npy_header(head, path)
            _, nbytes = _count(shape, _dtype(dname).itemsize, f"'{path}'")
            if size - end < nbytes:
                raise ValueError(f"'{path}': {size - end} bytes of data, but "
                                 f"shape {shape} of {dname} needs {nbytes}")
            native = order in ("|", _NATIVE)
            if mmap:
                if not native:
                    raise ValueError(
                        f"load(): '{path}' is stored in non-native byte "
                        f"order ({order}), which cannot be memory-mapped; "
                        f"load it with mmap=False (that converts it)")
                t = _C._files_map(path, mode, [(end, shape, _dtype(dname),
                                                fortran)])[0]
            elif native:
                t = _C._files_read(f.fileno(), end, shape, _dtype(dname),
                                   fortran)
            else:
                t = _swapped(f.fileno(), end, dname, shape, fortran, order)
            return _to_device({"": t}, device)[""]
        start, _, entries = _read_st_header(f, size, path)
        if mmap:
            specs = [(start + s, shape, _dtype(d), False)
                     for _, d, shape, s, _ in entries]
            tensors = _C._files_map(path, mode, specs) if specs else []
            out = {e[0]: t for e, t in zip(entries, tensors)}
        else:
            fd = f.fileno()
            out = {name: _C._files_read(fd, start + s, shape, _dtype(d),
                                        False)
                   for name, d, shape, s, _ in entries}
    return _to_device(out, device)


def load_metadata(path):
    """The ``__metadata__`` map of a safetensors file ({} when it has
    none), after validating the whole header."""
    path = _check_path(path, "load_metadata")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        _, metadata, _ = _read_st_header(f, size, path)
    return metadata
