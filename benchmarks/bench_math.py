"""Transcendental functions side by side: tensorlib's vectorised loops
(csrc/core/vecmath, on the instruction set the CPU selects), tensorlib's
public op as it is today, NumPy and PyTorch, one thread, 2^22 elements of
float32 and float64, in one process (best of several interleaved
repetitions, each allocating its result as the libraries do).

    python benchmarks/bench_math.py            # 2^22 elements, 7 repeats
    python benchmarks/bench_math.py --quick    # 2^18 elements, 3 repeats
    python benchmarks/bench_math.py --write    # also record docs/math.md

Ratios are tensorlib's vectorised time over the other's: below 1.0 means
tensorlib is faster (issue 18's target: at most 1.0 against both).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tensorlib as tl  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except ImportError:  # pragma: no cover - torch is optional here
    torch = None

try:
    import scipy.special as sps
except ImportError:  # pragma: no cover
    sps = None


def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name, numpy function, torch name, tensorlib public name, domain
CASES = [
    ("exp", np.exp, "exp", "exp", (-80, 80)),
    ("expm1", np.expm1, "expm1", "expm1", (-5, 5)),
    ("log", np.log, "log", "log", (1e-3, 1e3)),
    ("log1p", np.log1p, "log1p", "log1p", (-0.9, 100)),
    ("log2", np.log2, "log2", "log2", (1e-3, 1e3)),
    ("sin", np.sin, "sin", "sin", (-100, 100)),
    ("cos", np.cos, "cos", "cos", (-100, 100)),
    ("tan", np.tan, "tan", "tan", (-1.5, 1.5)),
    ("tanh", np.tanh, "tanh", "tanh", (-5, 5)),
    ("sigmoid", _np_sigmoid, "sigmoid", "sigmoid", (-10, 10)),
    ("erf", sps.erf if sps else None, "erf", "erf", (-3, 3)),
    ("pow", np.power, "pow", "pow", (0.1, 10)),
    ("atan2", np.arctan2, "atan2", "atan2", (-10, 10)),
]


def _best(fn, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(n: int, reps: int):
    rng = np.random.default_rng(0)
    rows = []
    for name, npf, thname, tlname, (lo, hi) in CASES:
        for dt in (np.float32, np.float64):
            x = rng.uniform(lo, hi, n).astype(dt)
            binary = name in ("pow", "atan2")
            y = (rng.uniform(-3, 3, n) if binary else x).astype(dt)
            tx, ty = tl.from_numpy(x), tl.from_numpy(y)
            fns = {}
            if binary:
                fns["vec"] = lambda: tl._C._vecmath_apply(name, tx, ty)
            else:
                fns["vec"] = lambda: tl._C._vecmath_apply(name, tx)
            if tlname:
                pub = getattr(tl, tlname)
                fns["public"] = (lambda: pub(tx, ty)) if binary else \
                    (lambda: pub(tx))
            if npf is not None:
                fns["numpy"] = (lambda: npf(x, y)) if binary else \
                    (lambda: npf(x))
            if torch is not None:
                g = getattr(torch, thname)
                px, py = torch.from_numpy(x), torch.from_numpy(y)
                fns["torch"] = (lambda: g(px, py)) if binary else \
                    (lambda: g(px))
            times = {k: float("inf") for k in fns}
            with np.errstate(all="ignore"):
                for fn in fns.values():  # warm up
                    fn()
                for _ in range(reps):    # interleaved repetitions
                    for k, fn in fns.items():
                        times[k] = min(times[k], _best(fn, 1))
            rows.append((name, np.dtype(dt).name, times))
    return rows


def table(rows, n) -> str:
    ms = lambda t: "%.2f" % (t * 1e3) if t != float("inf") else "–"  # noqa
    out = ["| function | dtype | tensorlib vec (ms) | tensorlib today | "
           "NumPy | PyTorch | vec / NumPy | vec / PyTorch |",
           "|---|---|---|---|---|---|---|---|"]
    for name, dt, t in rows:
        v = t["vec"]
        rn = "%.2f" % (v / t["numpy"]) if "numpy" in t else "–"
        rt = "%.2f" % (v / t["torch"]) if "torch" in t else "–"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, dt, ms(v), ms(t.get("public", float("inf"))),
            ms(t.get("numpy", float("inf"))),
            ms(t.get("torch", float("inf"))), rn, rt))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="2^18 elements, 3 repeats")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--write", action="store_true",
                    help="record the table in docs/math.md")
    a = ap.parse_args(argv)
    n = a.n or (1 << 18 if a.quick else 1 << 22)
    reps = 3 if a.quick else 7
    tl.set_num_threads(1)
    rows = run(n, reps)
    head = ("%d elements, one thread, vectorised loops on %s "
            "(best of %d)" % (n, tl._C._vecmath_isa(), reps))
    t = table(rows, n)
    print(head)
    print(t)
    if a.write:
        path = os.path.join(ROOT, "docs", "math.md")
        with open(path) as f:
            doc = f.read()
        start = doc.index("<!-- bench-table -->")
        end = doc.index("<!-- /bench-table -->")
        doc = (doc[:start] + "<!-- bench-table -->\n\n" + head + ", "
               "`python benchmarks/bench_math.py --write`:\n\n" + t + "\n\n"
               + doc[end:])
        with open(path, "w") as f:
            f.write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
