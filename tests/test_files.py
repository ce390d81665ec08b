"""tensorlib.save / load / load_metadata: safetensors and .npy/.npz.

Round trips for every dtype, shape (0-d, empty, larger) and layout
(transposed, sliced, flipped, expanded); cross-reading with the
safetensors package (its NumPy and PyTorch savers and loaders) and with
NumPy's np.save / np.load / np.savez; every validation rule of the issue
(a ValueError naming the tensor and the rule); atomic writes.
"""
import json
import os
import struct

import numpy as np
import pytest

import tensorlib as tl

safetensors = pytest.importorskip("safetensors")
import safetensors.numpy as stn  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - CI installs torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

ALL = ["bool", "uint8", "int8", "int16", "uint16", "int32", "uint32",
       "int64", "uint64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128", "float8_e4m3fn", "float8_e5m2"]
ST = [d for d in ALL if d != "complex128"]
NPY = [d for d in ALL if d not in ("bfloat16", "float8_e4m3fn",
                                   "float8_e5m2")]


def rand(shape, dtype, seed=0):
    """A tensor of dtype with values every dtype holds exactly."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    a = rng.integers(-8, 9, size=n).astype(np.float64) / 2
    if dtype == "bool":
        a = a > 0
    elif dtype.startswith("u"):
        a = np.abs(a * 2)
    elif dtype.startswith("int"):
        a = a * 2
    t = tl.tensor(a.reshape(shape).tolist() if shape else a[0].item(),
                  dtype=tl.float64).to(getattr(tl, dtype))
    return t


def f64(t):
    """Values as float64 NumPy (complex as complex128) for comparison."""
    dt = str(t.dtype).rsplit(".", 1)[-1]
    if dt.startswith("complex"):
        return t.to(tl.complex128).numpy()
    return t.to(tl.float64).numpy()


def same(a, b):
    assert a.dtype == b.dtype
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(f64(a), f64(b))


def layouts(dtype):
    def base(seed):  # each layout over its own storage (no sharing)
        return rand((4, 6), dtype, seed=seed)
    return {
        "contig": base(1),
        "transposed": base(2).t(),
        "sliced": base(3)[1:, ::2],
        "flipped": base(4).flip(0),
        "expanded": rand((1, 6), dtype).expand(3, 6),
        "zero_d": rand((), dtype),
        "empty": rand((0, 3), dtype),
        "three_d": rand((2, 3, 4), dtype, seed=5).permute(2, 0, 1),
    }


# ---- safetensors round trips ----------------------------------------------

@pytest.mark.parametrize("dtype", ST)
def test_safetensors_round_trip_every_dtype_and_layout(tmp_path, dtype):
    d = layouts(dtype)
    p = tmp_path / "x.safetensors"
    tl.save(d, p)
    for mmap in (False, True):
        r = tl.load(p, mmap=mmap)
        assert set(r) == set(d)
        for k in d:
            same(r[k], d[k])
            assert r[k].is_contiguous()


def test_safetensors_large_and_metadata(tmp_path):
    t = tl.arange(1 << 20, dtype=tl.float32).reshape(1024, 1024)
    p = tmp_path / "big.safetensors"
    tl.save({"w": t, "b": tl.ones(3, dtype=tl.int8)}, p,
            metadata={"format": "pt", "note": "é ✓"})
    r = tl.load(p)
    np.testing.assert_array_equal(r["w"].numpy(), t.numpy())
    assert tl.load_metadata(p) == {"format": "pt", "note": "é ✓"}
    tl.save({"a": t[:2]}, p)
    assert tl.load_metadata(p) == {}


def test_safetensors_layout_of_written_file(tmp_path):
    """Largest itemsize first, names in order, data 64-byte aligned, no
    holes, logical C-order little-endian bytes."""
    d = {"z8": tl.ones(3, dtype=tl.uint8), "a2": tl.ones(2, dtype=tl.int16),
         "b8": tl.arange(3, dtype=tl.float64).flip(0),
         "c4": tl.arange(6, dtype=tl.int32).reshape(2, 3).t()}
    p = tmp_path / "l.safetensors"
    tl.save(d, p)
    raw = p.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 64 == 0
    h = json.loads(raw[8:8 + n])
    assert list(h) == ["b8", "c4", "a2", "z8"]
    assert h["b8"]["data_offsets"] == [0, 24]
    assert h["c4"] == {"dtype": "I32", "shape": [3, 2],
                       "data_offsets": [24, 48]}
    data = raw[8 + n:]
    assert np.frombuffer(data[0:24], "<f8").tolist() == [2, 1, 0]
    assert np.frombuffer(data[24:48], "<i4").tolist() == [0, 3, 1, 4, 2, 5]
    assert len(data) == 24 + 24 + 4 + 3


def test_safetensors_refusals(tmp_path):
    p = tmp_path / "r.safetensors"
    t = tl.arange(10.)
    with pytest.raises(ValueError, match="'a' and 'b'|'b' and 'a'"):
        tl.save({"a": t, "b": t[2:5]}, p)
    with pytest.raises(ValueError, match="share memory"):
        tl.save({"a": t, "b": t}, p)
    assert not p.exists()
    # Disjoint views of one storage do not share memory.
    tl.save({"a": t[:5], "b": t[5:]}, p)
    with pytest.raises(ValueError, match="complex128.*npy"):
        tl.save({"c": tl.zeros(2, dtype=tl.complex128)}, p)
    with pytest.raises(TypeError, match="metadata"):
        tl.save({"a": t}, p, metadata={"k": 1})
    with pytest.raises(TypeError, match="names must be str"):
        tl.save({1: t}, p)
    with pytest.raises(TypeError, match="not a tensorlib.Tensor"):
        tl.save({"a": np.zeros(2)}, p)
    with pytest.raises(TypeError, match="dict of name"):
        tl.save(t, tmp_path / "x.safetensors")
    with pytest.raises(ValueError, match="format"):
        tl.save({"a": t}, p, format="pickle")
    with pytest.raises(TypeError, match="path"):
        tl.save({"a": t}, 3)


# ---- cross-reading with the safetensors package ----------------------------

def test_reads_safetensors_numpy_saver(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {
        "f32": rng.standard_normal((3, 4)).astype(np.float32),
        "f64": rng.standard_normal(5),
        "f16": rng.standard_normal((2, 2)).astype(np.float16),
        "i64": rng.integers(-9, 9, (7,)),
        "u8": rng.integers(0, 255, (2, 3)).astype(np.uint8),
        "b": rng.integers(0, 2, (4,)).astype(bool),
        "scalar": np.array(3.5, dtype=np.float32),
        "empty": np.zeros((0, 2), np.int32),
        "c64": (rng.standard_normal(3) + 1j).astype(np.complex64),
    }
    p = tmp_path / "np.safetensors"
    stn.save_file(arrays, str(p), metadata={"m": "v"})
    for mmap in (False, True):
        r = tl.load(p, mmap=mmap)
        for k, a in arrays.items():
            np.testing.assert_array_equal(r[k].numpy(), a)
            assert r[k].numpy().dtype == a.dtype
    assert tl.load_metadata(p) == {"m": "v"}


def test_safetensors_numpy_loader_reads_ours(tmp_path):
    d = {"a": tl.arange(12, dtype=tl.int16).reshape(3, 4).t(),
         "b": tl.tensor([[1.5, 2.5]], dtype=tl.float64).expand(3, 2),
         "c": tl.tensor(True)}
    p = tmp_path / "ours.safetensors"
    tl.save(d, p, metadata={"x": "y"})
    r = stn.load_file(str(p))
    for k, t in d.items():
        np.testing.assert_array_equal(r[k], t.numpy())


@needs_torch
@pytest.mark.parametrize("dtype", ST)
def test_cross_read_with_torch_saver(tmp_path, dtype):
    import safetensors.torch as stt
    t = rand((3, 5), dtype, seed=7)
    tt = getattr(torch, dtype)
    ref = torch.tensor(f64(t).real if dtype != "complex64" else f64(t))
    ref = ref.to(tt) if dtype != "bool" else ref.bool()
    p = tmp_path / "t.safetensors"
    stt.save_file({"x": ref, "y": ref.t().contiguous()}, str(p))
    r = tl.load(p)
    same(r["x"], t)
    same(r["y"], t.t())
    q = tmp_path / "o.safetensors"
    tl.save({"x": t, "y": t.t().clone()}, q)
    back = stt.load_file(str(q))
    assert back["x"].dtype == tt
    assert torch.equal(back["x"], ref)
    assert torch.equal(back["y"], ref.t())


# ---- .npy / .npz ------------------------------------------------------------

@pytest.mark.parametrize("dtype", NPY)
def test_npy_round_trip_and_numpy_cross_read(tmp_path, dtype):
    for name, t in layouts(dtype).items():
        p = tmp_path / f"{name}.npy"
        tl.save(t, p)
        a = np.load(p)
        np.testing.assert_array_equal(a, t.numpy())
        for mmap in (False, True):
            same(tl.load(p, mmap=mmap), t)
        np.save(p, np.array(t.numpy(), order="F"))
        r = tl.load(p)
        same(r, t)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_header_versions_and_fortran(tmp_path, version):
    a = np.asfortranarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    p = tmp_path / "v.npy"
    with open(p, "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    for mmap in (False, True):
        t = tl.load(p, mmap=mmap)
        np.testing.assert_array_equal(t.numpy(), a)
        assert t.stride() == (1, 2, 6)  # Fortran order is kept


def test_npy_non_native_byte_order(tmp_path):
    a = np.arange(6, dtype=">i4").reshape(2, 3)
    p = tmp_path / "be.npy"
    np.save(p, a)
    t = tl.load(p)
    assert t.dtype == tl.int32
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="byte order"):
        tl.load(p, mmap=True)
    np.save(p, np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3)))
    np.testing.assert_array_equal(tl.load(p).numpy(),
                                  np.arange(6.).reshape(2, 3))


def test_npz_compressed_and_not(tmp_path):
    arrays = {"a": np.arange(5), "b": np.eye(3, dtype=np.float32),
              "c": np.asfortranarray(np.ones((2, 3), dtype=np.int8)),
              "d": np.array(2.5)}
    for save in (np.savez, np.savez_compressed):
        p = tmp_path / "z.npz"
        save(p, **arrays)
        r = tl.load(p)
        assert set(r) == set(arrays)
        for k, a in arrays.items():
            np.testing.assert_array_equal(r[k].numpy(), a)
        with pytest.raises(ValueError, match="npz"):
            tl.load(p, mmap=True)


def test_npy_refusals(tmp_path):
    p = tmp_path / "o.npy"
    np.save(p, np.array([1, "a", None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="object"):
        tl.load(p)
    np.save(p, np.zeros(2, dtype=[("x", "<i4")]))
    with pytest.raises(ValueError, match="structured"):
        tl.load(p)
    np.save(p, np.zeros(2, dtype="<U3"))
    with pytest.raises(ValueError, match="dtype"):
        tl.load(p)
    p.write_bytes(b"\x93NUMPX\x01\x00" + b"\x00" * 20)
    with pytest.raises(ValueError):  # not npy magic -> safetensors rules
        tl.load(p)
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b" " * 60000
    p.write_bytes(head)
    with pytest.raises(ValueError, match="limit"):
        tl.load(p)
    np.save(p, np.arange(10))
    raw = p.read_bytes()
    p.write_bytes(raw[:-8])
    with pytest.raises(ValueError, match="needs"):
        tl.load(p)
    with pytest.raises(ValueError, match="bfloat16"):
        tl.save(tl.zeros(2, dtype=tl.bfloat16), tmp_path / "b.npy")
    with pytest.raises(ValueError, match="metadata"):
        tl.save(tl.zeros(2), tmp_path / "m.npy", metadata={})
    with pytest.raises(TypeError, match="one tensor"):
        tl.save({"a": tl.zeros(2)}, tmp_path / "d.npy")


def test_format_argument(tmp_path):
    t = tl.arange(4.)
    tl.save(t, tmp_path / "plain", format="npy")
    np.testing.assert_array_equal(np.load(tmp_path / "plain"), t.numpy())
    tl.save({"t": t}, tmp_path / "weights.bin")
    np.testing.assert_array_equal(
        tl.load(tmp_path / "weights.bin")["t"].numpy(), t.numpy())


# ---- validation of safetensors files ---------------------------------------

def st_file(path, header, data=b"", raw_header=None, pad=True):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    if pad:
        h += b" " * ((-len(h)) % 8)
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)
    return path


def t_entry(dtype="F32", shape=(2,), offs=(0, 8)):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": list(offs)}


BAD = [
    ("short", None, r"too short"),
    ("hdr_past_end", None, r"runs past the end"),
    ("hdr_too_big", None, r"above the limit"),
    ("not_utf8", None, r"not UTF-8"),
    ("not_json", None, r"not valid JSON"),
    ("not_object", None, r"not a JSON object"),
    ("deep", None, r"nests too deeply|not valid JSON"),
    ("unknown_dtype", {"w": t_entry(dtype="F128")}, r"'w'.*unknown dtype"),
    ("dtype_type", {"w": t_entry(dtype=3)}, r"'w'.*unknown dtype"),
    ("shape_neg", {"w": t_entry(shape=(-2,))}, r"'w'.*shape"),
    ("shape_float", {"w": t_entry(shape=(2.0,))}, r"'w'.*shape"),
    ("shape_bool", {"w": t_entry(shape=(True, 2))}, r"'w'.*shape"),
    ("overflow", {"w": t_entry(shape=(2 ** 40, 2 ** 40))}, r"'w'.*int64"),
    # an empty tensor with a size past int64 (test_fuzz_safetensors_long)
    ("size_past_int64", {"w": t_entry(shape=(0, 2 ** 63), offs=(0, 0))},
     r"'w'.*size 9223372036854775808.*int64"),
    ("span", {"w": t_entry(shape=(3,), offs=(0, 8))}, r"'w'.*needs 12"),
    ("offs_len", {"w": t_entry(offs=(0,))}, r"'w'.*data_offsets"),
    ("offs_rev", {"w": t_entry(offs=(8, 0))}, r"'w'.*end before"),
    ("overlap", {"a": t_entry(), "b": t_entry(offs=(4, 12))},
     r"overlaps"),
    ("hole", {"a": t_entry(), "b": t_entry(offs=(12, 20))}, r"hole"),
    ("past_end", {"a": t_entry(), "b": t_entry(offs=(8, 16))},
     r"'b'.*past the end"),
    ("trailing", {"a": t_entry(shape=(1,), offs=(0, 4))}, r"cover 4"),
    ("missing_key", {"w": {"dtype": "F32", "shape": [2]}},
     r"'w'.*data_offsets"),
    ("entry_type", {"w": [1, 2]}, r"'w'.*not an object"),
    ("meta_type", {"__metadata__": {"k": 1}, "w": t_entry()},
     r"__metadata__"),
    ("meta_list", {"__metadata__": ["k"], "w": t_entry()}, r"__metadata__"),
    ("dup", None, r"duplicate key 'w'"),
]


@pytest.mark.parametrize("case,header,msg", BAD, ids=[b[0] for b in BAD])
def test_validation(tmp_path, case, header, msg):
    p = tmp_path / "bad.safetensors"
    data = bytes(range(8))
    if case == "short":
        p.write_bytes(b"\x01\x00\x00")
    elif case == "hdr_past_end":
        p.write_bytes(struct.pack("<Q", 1000) + b"{}")
    elif case == "hdr_too_big":
        p.write_bytes(struct.pack("<Q", 200_000_000) + b"{}")
    elif case == "not_utf8":
        st_file(p, None, raw_header=b'{"\xff": 1}')
    elif case == "not_json":
        st_file(p, None, raw_header=b'{"a": ')
    elif case == "not_object":
        st_file(p, None, raw_header=b"[1, 2]")
    elif case == "deep":
        st_file(p, None, raw_header=b"[" * 100_000 + b"]" * 100_000)
    elif case == "dup":
        st_file(p, None, data, raw_header=(
            b'{"w": ' + json.dumps(t_entry()).encode() + b', "w": ' +
            json.dumps(t_entry()).encode() + b"}"))
    else:
        n = max((e["data_offsets"][1] for k, e in header.items()
                 if k != "__metadata__" and isinstance(e, dict) and
                 isinstance(e.get("data_offsets"), list) and
                 len(e["data_offsets"]) == 2), default=8)
        if case == "trailing":
            n = 8
        st_file(p, header, bytes(max(0, min(n, 16)) if case != "past_end"
                                 else bytes(12)))
    for fn in (tl.load, lambda q: tl.load(q, mmap=True)):
        with pytest.raises(ValueError, match=msg):
            fn(p)


def test_empty_file_and_header_only(tmp_path):
    p = tmp_path / "e.safetensors"
    p.write_bytes(b"")
    with pytest.raises(ValueError, match="too short"):
        tl.load(p)
    st_file(p, {})
    assert tl.load(p) == {}
    assert tl.load(p, mmap=True) == {}
    assert tl.load_metadata(p) == {}


# ---- atomic writes ------------------------------------------------------------

def test_atomic_write_failure_leaves_old_file(tmp_path, monkeypatch):
    p = tmp_path / "w.safetensors"
    tl.save({"a": tl.ones(3)}, p)
    before = p.read_bytes()

    def boom(fd, t):
        os.write(fd, b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(tl._C, "_files_write", boom)
    with pytest.raises(OSError, match="disk full"):
        tl.save({"a": tl.zeros(1000)}, p)
    assert p.read_bytes() == before
    assert os.listdir(tmp_path) == ["w.safetensors"]  # no temp file left


def test_save_permissions_follow_umask(tmp_path):
    p = tmp_path / "perm.npy"
    tl.save(tl.ones(2), p)
    np.save(tmp_path / "ref.npy", np.ones(2))
    assert (os.stat(p).st_mode & 0o777) == \
        (os.stat(tmp_path / "ref.npy").st_mode & 0o777)


def test_load_to_device_cpu(tmp_path):
    p = tmp_path / "d.safetensors"
    tl.save({"a": tl.ones(2)}, p)
    r = tl.load(p, device=tl.device("cpu"))
    assert r["a"].device == tl.device("cpu")
    with pytest.raises(ValueError, match="mode"):
        tl.load(p, mode="w")


def test_leak_loop(tmp_path):
    """save/load/mmap repeated: allocator stats and refcounts stay flat."""
    import gc
    import sys
    p = tmp_path / "leak.safetensors"
    t = tl.arange(1000, dtype=tl.float32)
    tl.save({"t": t}, p)

    def once():
        tl.save({"t": t, "u": t[::2].clone()}, p)
        r = tl.load(p)
        m = tl.load(p, mmap=True)
        np.testing.assert_array_equal(r["t"].numpy(), m["t"].numpy())

    for _ in range(3):
        once()
    gc.collect()
    s0 = tl.memory_stats()
    rc = sys.getrefcount(t)
    for _ in range(30):
        once()
    gc.collect()
    s1 = tl.memory_stats()
    assert s1["active_bytes"] == s0["active_bytes"]
    assert s1["mapped_bytes"] == s0["mapped_bytes"]
    assert sys.getrefcount(t) == rc
