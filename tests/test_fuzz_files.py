"""Fuzzing the file readers with mutated valid files (hypothesis).

A valid safetensors / .npy / .npz file is written, then mutated: bytes
flipped, the file cut or extended, the header length changed, JSON fields
replaced by random values (dtype, shape, data_offsets, metadata),
duplicate or deeply nested keys.  The only acceptable outcomes are a clean
load (every tensor then readable, eagerly and memory-mapped) or a
ValueError: never another exception, never a crash or a read outside the
file (the sanitizer run catches the latter).
"""
import io
import json
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorlib as tl

CODES = ["BOOL", "U8", "I8", "I16", "U16", "I32", "U32", "I64", "U64",
         "F16", "BF16", "F32", "F64", "C64", "F8_E4M3", "F8_E5M2"]

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
    st.floats(allow_nan=True), st.text(max_size=8))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=5), inner,
                                            max_size=3)),
    max_leaves=8)
small_ints = st.one_of(st.integers(0, 64), st.integers(-3, 2 ** 64 + 3),
                       st.sampled_from([2 ** 31, 2 ** 32, 2 ** 62, 2 ** 63]))


def valid_safetensors(seed):
    rng = np.random.default_rng(seed)
    d = {}
    for i in range(int(rng.integers(1, 4))):
        shape = tuple(int(s) for s in rng.integers(0, 4,
                                                   rng.integers(0, 3)))
        dt = [tl.float32, tl.int64, tl.uint8, tl.bfloat16,
              tl.float8_e5m2][int(rng.integers(0, 5))]
        d[f"t{i}"] = tl.ones(shape, dtype=dt)
    buf = io.BytesIO()
    import tempfile
    import os
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "v.safetensors")
        tl.save(d, p, metadata={"k": "v"} if seed % 2 else None)
        with open(p, "rb") as f:
            buf.write(f.read())
    return buf.getvalue()


def split(raw):
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def join(header_bytes, data):
    return struct.pack("<Q", len(header_bytes)) + header_bytes + data


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10 ** 6), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("extend"), st.binary(max_size=40)),
    st.tuples(st.just("hlen"), small_ints),
    st.tuples(st.just("dtype"), st.integers(0, 9),
              st.one_of(st.sampled_from(CODES), json_values)),
    st.tuples(st.just("shape"), st.integers(0, 9),
              st.one_of(st.lists(small_ints, max_size=4), json_values)),
    st.tuples(st.just("offsets"), st.integers(0, 9),
              st.one_of(st.lists(small_ints, min_size=2, max_size=2),
                        json_values)),
    st.tuples(st.just("meta"), json_values),
    st.tuples(st.just("entry"), st.text(max_size=6), json_values),
    st.tuples(st.just("dup"), st.integers(0, 9)),
    st.tuples(st.just("nest"), st.integers(1, 5000)),
    st.tuples(st.just("raw_header"), st.binary(max_size=64)),
)


def mutate(raw, m):
    kind = m[0]
    if kind == "flip":
        if not raw:
            return raw
        i = m[1] % len(raw)
        return raw[:i] + bytes([raw[i] ^ m[2]]) + raw[i + 1:]
    if kind == "cut":
        return raw[:m[1] % (len(raw) + 1)]
    if kind == "extend":
        return raw + m[1]
    if kind == "hlen":
        return struct.pack("<Q", m[1] % 2 ** 64) + raw[8:]
    if kind == "raw_header":
        return join(m[1], split(raw)[1])
    header, data = split(raw)
    names = [k for k in header if k != "__metadata__"]
    if kind in ("dtype", "shape", "offsets", "dup") and names:
        name = names[m[1] % len(names)]
        field = {"dtype": "dtype", "shape": "shape",
                 "offsets": "data_offsets"}.get(kind)
        if kind == "dup":
            text = json.dumps(header)
            entry = json.dumps(header[name])
            text = text[:-1] + f', {json.dumps(name)}: {entry}' + "}"
            return join(text.encode(), data)
        header[name][field] = m[2]
    elif kind == "meta":
        header["__metadata__"] = m[1]
    elif kind == "entry":
        header[m[1]] = m[2]
    elif kind == "nest":
        text = json.dumps(header)
        text = text[:-1] + (', "deep": ' if header else '"deep": ') + \
            "[" * m[1] + "]" * m[1] + "}"
        return join(text.encode(), data)
    return join(json.dumps(header).encode(), data)


def check_load(path):
    for kw in ({}, {"mmap": True}):
        try:
            r = tl.load(path, **kw)
        except ValueError:
            continue
        items = r.items() if isinstance(r, dict) else [("", r)]
        for _, t in items:  # every byte of every tensor is readable
            t.to(tl.float64).sum() if t.dtype != tl.complex128 else t.sum()
            # tolist() of an empty tensor still builds a list per index
            # before its first 0-size dim: a header's (2**32, 20, 0, 300)
            # asks for 2**32 * 20 lists (tens of GB, as NumPy's tolist
            # would), so only shapes with a bounded list count are listed.
            lists = 1
            for s in t.shape:
                if s == 0:
                    break
                lists *= s
            if lists <= 1 << 20:
                t.tolist()
        del r
    try:
        tl.load_metadata(path)
    except ValueError:
        pass


SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(seed=st.integers(0, 50), muts=st.lists(mutation, min_size=1,
                                               max_size=3))
def test_fuzz_safetensors(tmp_path, seed, muts):
    raw = valid_safetensors(seed)
    for m in muts:
        try:
            raw = mutate(raw, m)
        except (ValueError, struct.error, UnicodeDecodeError,
                RecursionError, TypeError, AttributeError, KeyError):
            pass  # the mutator could not parse an already mutated file
    p = tmp_path / "f.safetensors"
    p.write_bytes(raw)
    check_load(p)


def valid_npy(seed, fortran):
    rng = np.random.default_rng(seed)
    dt = ["<f4", ">i2", "|u1", "<c16", "|b1", "<f2"][seed % 6]
    shape = tuple(int(s) for s in rng.integers(0, 4, rng.integers(0, 4)))
    a = np.zeros(shape, dtype=dt)
    if fortran:
        a = np.asfortranarray(a)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, version=[(1, 0), (2, 0), (3, 0)][
        seed % 3])
    return buf.getvalue()


npy_mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10 ** 6), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("extend"), st.binary(max_size=40)),
    st.tuples(st.just("dict"), st.sampled_from(["descr", "shape",
                                                "fortran_order", "extra"]),
              st.one_of(json_values, st.sampled_from(
                  ["<f8", "|O", "<V3", "<U2", ">f4", "=i8", "<b1"]),
                  st.lists(small_ints, max_size=3).map(tuple))),
)


def mutate_npy(raw, m):
    if m[0] in ("flip", "cut", "extend"):
        return mutate(raw, m)
    major = raw[6]
    hl = 2 if major == 1 else 4
    (n,) = struct.unpack("<H" if hl == 2 else "<I", raw[8:8 + hl])
    d = eval(raw[8 + hl:8 + hl + n].decode("latin1"))  # our own bytes
    d[m[1]] = m[2]
    text = repr(d).encode("latin1", "replace") + b"\n"
    fmt = "<H" if hl == 2 else "<I"
    if hl == 2 and len(text) > 65535:
        text = text[:65535]
    return raw[:8] + struct.pack(fmt, len(text)) + text + raw[8 + hl + n:]


@SETTINGS
@given(seed=st.integers(0, 30), fortran=st.booleans(),
       muts=st.lists(npy_mutation, min_size=1, max_size=3),
       as_npz=st.booleans(), compress=st.booleans())
def test_fuzz_npy_npz(tmp_path, seed, fortran, muts, as_npz, compress):
    raw = valid_npy(seed, fortran)
    for m in muts:
        try:
            raw = mutate_npy(raw, m)
        except (SyntaxError, ValueError, struct.error, IndexError,
                TypeError, NameError, UnicodeDecodeError, RecursionError):
            pass  # the mutator could not parse an already mutated file
    if as_npz:
        p = tmp_path / "f.npz"
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED if compress
                             else zipfile.ZIP_STORED) as z:
            z.writestr("a.npy", raw)
        if seed % 3 == 0:  # a damaged archive too
            b = bytearray(p.read_bytes())
            b[seed % len(b)] ^= 0x5A
            p.write_bytes(bytes(b))
    else:
        p = tmp_path / "f.npy"
        p.write_bytes(raw)
    check_load(p)


def test_valid_files_load():
    """The unmutated seeds load (so the fuzzing starts from real files)."""
    import tempfile
    import os
    for seed in range(10):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "v.safetensors")
            with open(p, "wb") as f:
                f.write(valid_safetensors(seed))
            assert isinstance(tl.load(p), dict)
            q = os.path.join(tmp, "v.npy")
            with open(q, "wb") as f:
                f.write(valid_npy(seed, seed % 2 == 0))
            assert isinstance(tl.load(q), tl.Tensor)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(seed=st.integers(0, 200), muts=st.lists(mutation, min_size=1,
                                                max_size=6))
def test_fuzz_safetensors_long(tmp_path, seed, muts):
    test_fuzz_safetensors.hypothesis.inner_test(tmp_path, seed, muts)
