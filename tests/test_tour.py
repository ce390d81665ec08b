"""`python -m tensorlib.tour` (the README's first command) runs cleanly and
prints every section."""
import os
import subprocess
import sys
import time

import tensorlib

SECTIONS = [
    "== Creating tensors",
    "== Shape, strides and the storage underneath",
    "== Views: slicing, transposes, flips, expands",
    "== Broadcasting",
    "== In-place ops and versions",
    "== NumPy round trip, zero copy",
    "== Memory kinds and allocator statistics",
    "== Errors are clear",
    "== Whole programs: everyday ops, math, the array API",
]


def run_tour(tmp_path):
    # The same tensorlib as this test process: its parent directory first on
    # PYTHONPATH, run from an empty directory so that no other checkout is
    # picked up.
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(
        tensorlib.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                  if p])
    return subprocess.run([sys.executable, "-m", "tensorlib.tour"],
                          cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=120)


def test_tour_runs_and_prints_every_section(tmp_path):
    r = run_tour(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    out = r.stdout
    assert out.startswith("tensorlib " + tensorlib.__version__)
    positions = [out.find(s) for s in SECTIONS]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)
    # A few facts each section shows.
    assert "tensor([ 0.,  1.,  2.," in out
    assert "tensorlib.Size([3, 4])" in out
    assert "m.numpy()[0, 0] = 100 -> a[0]" in out and "100.0" in out
    assert "(-1,)" in out  # from_numpy of a reversed array
    assert "('f', (12,))" in out  # memoryview format and shape
    assert "cache hits / misses" in out
    for err in ("OverflowError", "ShapeError"):
        assert err in out
    assert "4611686018427387904" in out
    # Views drawn as storage cells in visiting order, and a reshape
    # explained.
    assert "      order   0  3  6  9  1  4  7 10  2  5  8 11" in out
    assert "      order   8  9 10 11  4  5  6  7  0  1  2  3" in out
    assert "      times   2  2  2  2  .  .  .  .  .  .  .  ." in out
    assert "-> (2, 6): a VIEW" in out and "-> (12,): a COPY" in out
    assert "tl.broadcast_shapes((3, 1), (4,))  tensorlib.Size([3, 4])" in out
    assert "after w.add_(5): v                 [0.0, 5.0, 5.0, 0.0]" in out
    assert "np.from_dlpack(a)[1] = -2 -> a[1]  -2.0" in out
    for fact in ("tensorlib.Size([4, 3])", "tensorlib.float64", "(4.0, nan)",
                 "tensorlib.array_api", "np.sin(x) is a Tensor              Tensor",
                 "needs 32 bytes of its storage, but the storage was shrunk "
                 "to 16 bytes", "grown back: v.sum()                22.0"):
        assert fact in out, fact
    for mem in ("memory_kind=...)     Persistent", "workspace_arena",
                "RuntimeError: this tensor's workspace was reset",
                "ExecutionPlan workspace_bytes      33792",
                "tensorlib memory summary: device cpu"):
        assert mem in out, mem


def test_tour_is_fast(tmp_path):
    t0 = time.perf_counter()
    r = run_tour(tmp_path)
    assert r.returncode == 0, r.stderr
    assert time.perf_counter() - t0 < 5.0


def test_tour_uses_this_tensorlib(tmp_path):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(
        tensorlib.__file__)))
    env["PYTHONPATH"] = root
    r = subprocess.run([sys.executable, "-c",
                        "import tensorlib; print(tensorlib.__file__)"],
                       cwd=str(tmp_path), env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert os.path.samefile(r.stdout.strip(), tensorlib.__file__)
