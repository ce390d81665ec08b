"""The native readers and writers under tensorlib.serialization
(csrc/python/files.c: _files_read, _files_write, _files_map): every
refusal raises the right exception with the numbers involved, allocates
nothing that outlives it, and a good call round-trips against NumPy.
The public load/save tests reach the good paths; these reach the error
paths a hostile or truncated file takes (issue 23's coverage gaps)."""
import gc
import os

import numpy as np
import pytest

import tensorlib as tl
from tensorlib import _C


@pytest.fixture
def datafile(tmp_path):
    x = np.arange(24, dtype=np.float32)
    p = tmp_path / "data.bin"
    p.write_bytes(x.tobytes())
    return str(p), x


def _active():
    gc.collect()
    return tl.memory_stats()["active_bytes"]


def test_read_from_fd_and_buffer_match_numpy(datafile):
    path, x = datafile
    with open(path, "rb") as f:
        t = _C._files_read(f.fileno(), 8, (2, 3), tl.float32, False)
        np.testing.assert_array_equal(t.numpy(), x[2:8].reshape(2, 3))
        t = _C._files_read(f.fileno(), 0, [3, 2], tl.float32, True)
        np.testing.assert_array_equal(t.numpy(),
                                      x[:6].reshape(3, 2, order="F"))
    buf = x.tobytes()
    t = _C._files_read(buf, 4, (5,), tl.float32, False)
    np.testing.assert_array_equal(t.numpy(), x[1:6])
    assert _C._files_read(b"", 0, (0,), tl.float32, False).numel() == 0


@pytest.mark.parametrize("args, exc, words", [
    ((0, 0, (1,), tl.float32), TypeError, "_files_read"),
    ((b"abcd", 0, 3, tl.float32, False), TypeError, "shape"),
    ((b"abcd", 0, (1,), "no-such-dtype", False), (TypeError, ValueError),
     "dtype"),
    ((b"abcd", "x", (1,), tl.float32, False), TypeError, "offset"),
    ((b"abcd", 0, (2,), tl.float32, False), ValueError, "4 bytes"),
    ((b"abcd", -1, (1,), tl.float32, False), ValueError, "outside"),
    ((b"abcd", 2, (1,), tl.float32, False), ValueError, "outside"),
    ((b"abcd", 0, (-1,), tl.float32, False), (ValueError, RuntimeError),
     "-1"),
    ((object(), 0, (1,), tl.float32, False), TypeError, ""),
])
def test_read_refusals(args, exc, words):
    before = _active()
    with pytest.raises(exc) as e:
        _C._files_read(*args)
    assert words in str(e.value)
    assert _active() == before


def test_read_past_the_end_of_a_file(datafile):
    path, _ = datafile
    before = _active()
    with open(path, "rb") as f:
        with pytest.raises(ValueError, match="file ends before the 16 "
                                             "bytes at offset 90"):
            _C._files_read(f.fileno(), 90, (4,), tl.float32, False)
    assert _active() == before


def test_read_from_a_bad_descriptor(tmp_path):
    r, w = os.pipe()
    os.close(r)
    os.close(w)  # both numbers now name nothing
    with pytest.raises(OSError):
        _C._files_read(r, 0, (1,), tl.float32, False)
    with pytest.raises(OverflowError):
        _C._files_read(1 << 80, 0, (1,), tl.float32, False)


def test_write_round_trip_and_refusals(tmp_path):
    p = tmp_path / "w.bin"
    t = tl.arange(12, dtype=tl.float64).reshape(3, 4).T  # not contiguous
    with open(p, "wb") as f:
        _C._files_write(f.fileno(), t)
    np.testing.assert_array_equal(
        np.frombuffer(p.read_bytes(), np.float64),
        np.arange(12.0).reshape(3, 4).T.ravel())
    with pytest.raises(TypeError, match="_files_write"):
        _C._files_write(0, np.zeros(3))
    with pytest.raises(TypeError, match="_files_write"):
        _C._files_write(0)
    with pytest.raises(TypeError):
        _C._files_write("fd", t)
    with open(p, "rb") as f:  # a read-only descriptor
        with pytest.raises(OSError):
            _C._files_write(f.fileno(), t)


def test_map_modes_and_specs(datafile):
    path, x = datafile
    ts = _C._files_map(path, "r", [(0, (2, 2), tl.float32, False),
                                   (16, (4,), tl.float32, True)])
    np.testing.assert_array_equal(ts[0].numpy(), x[:4].reshape(2, 2))
    np.testing.assert_array_equal(ts[1].numpy(), x[4:8])
    c = _C._files_map(path, "c", [(0, (3,), tl.float32, False)])[0]
    c.fill_(7)  # a private copy: the file keeps its bytes
    np.testing.assert_array_equal(
        np.fromfile(path, np.float32)[:3], x[:3])
    del ts, c
    gc.collect()


@pytest.mark.parametrize("mode, specs, exc, words", [
    ("w", [], ValueError, "'r', 'c' or 'r+'"),
    (1, [], TypeError, "_files_map"),
    ("r", (), TypeError, "_files_map"),
    ("r", [(0, (1,), tl.float32)], TypeError, "each spec"),
    ("r", [[0, (1,), tl.float32, False]], TypeError, "each spec"),
    ("r", [(-4, (1,), tl.float32, False)], ValueError, "negative offset"),
    ("r", [("a", (1,), tl.float32, False)], TypeError, "offset"),
    ("r", [(0, 5, tl.float32, False)], TypeError, "shape"),
    ("r", [(0, (1,), "no-such-dtype", False)], (TypeError, ValueError),
     "dtype"),
    ("r", [(80, (8,), tl.float32, False)], (ValueError, RuntimeError),
     "96"),
])
def test_map_refusals(datafile, mode, specs, exc, words):
    path, _ = datafile
    mapped = _C._mapped_bytes()
    with pytest.raises(exc) as e:
        _C._files_map(path, mode, specs)
    assert words in str(e.value), str(e.value)
    gc.collect()
    assert _C._mapped_bytes() == mapped


def test_map_a_missing_file(tmp_path):
    # (tl.load opens the file itself first: FileNotFoundError there)
    with pytest.raises(RuntimeError, match="cannot open .*nothing-here.* "
                                           "No such file"):
        _C._files_map(str(tmp_path / "nothing-here"), "r",
                      [(0, (1,), tl.float32, False)])
    with pytest.raises(FileNotFoundError):
        tl.load(str(tmp_path / "nothing-here"), mmap=True)
    with pytest.raises(TypeError):
        _C._files_map(12.5, "r", [])
