#!/usr/bin/env python3
"""Random numbers: tensorlib beside NumPy's default_rng() and PyTorch.

    python benchmarks/bench_random.py            # 2^24 elements, 7 repeats
    python benchmarks/bench_random.py --quick    # 2^22 elements, 3 repeats

Cases (the issue's): rand and randn of 2^24 float32 with 1 thread and with
all threads, randint(0, 1000) of 2^24 int64, randperm(10^6).  NumPy's
Generator is single-threaded, so its time is the same in both thread
settings; tensorlib and PyTorch get set_num_threads(1) or their default.
All three run in one process, interleaved repeat by repeat (the order
rotates), and the reported time is the minimum over the repeats (load from
elsewhere only ever adds time).  Prints a Markdown table with the ratios
tensorlib / NumPy and tensorlib / PyTorch (below 1: tensorlib is faster).
"""
import argparse
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import tensorlib as tl  # noqa: E402

try:
    import torch
except ImportError:  # PyTorch is optional here
    torch = None


def cases(n):
    rng = np.random.default_rng(0)
    out = [
        ("rand float32 (%d)" % n,
         lambda: tl.rand(n),
         lambda: rng.random(n, dtype=np.float32),
         (lambda: torch.rand(n)) if torch else None),
        ("randn float32 (%d)" % n,
         lambda: tl.randn(n),
         lambda: rng.standard_normal(n, dtype=np.float32),
         (lambda: torch.randn(n)) if torch else None),
        ("randint(0, 1000) int64 (%d)" % n,
         lambda: tl.randint(0, 1000, (n,)),
         lambda: rng.integers(0, 1000, n),
         (lambda: torch.randint(0, 1000, (n,))) if torch else None),
        ("randperm(10^6) int64",
         lambda: tl.randperm(10**6),
         lambda: rng.permutation(10**6),
         (lambda: torch.randperm(10**6)) if torch else None),
    ]
    return out


def time_case(fns, repeats):
    """Minimum seconds per call of each fn, interleaved repeat by repeat."""
    best = [float("inf")] * len(fns)
    for r in range(repeats):
        order = list(range(len(fns)))
        order = order[r % len(order):] + order[:r % len(order)]
        for i in order:
            if fns[i] is None:
                continue
            t = time.perf_counter()
            fns[i]()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


def set_threads(n):
    tl.set_num_threads(n)
    if torch:
        torch.set_num_threads(n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="2^22 elements and 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    n = 1 << (22 if args.quick else 24)
    repeats = args.repeats or (3 if args.quick else 7)
    all_threads = os.cpu_count() or 1
    tl_default = tl.get_num_threads()
    torch_default = torch.get_num_threads() if torch else None
    rows = []
    for threads in (1, all_threads):
        set_threads(threads)
        if threads == all_threads:
            tl.set_num_threads(tl_default)
            if torch:
                torch.set_num_threads(torch_default)
        for name, *fns in cases(n):
            for f in fns:           # warm-up (allocator caches, pools)
                if f:
                    f()
            t = time_case(fns, repeats)
            rows.append((name, tl.get_num_threads(), t))
    set_threads(tl_default)
    if torch:
        torch.set_num_threads(torch_default)
    print("machine: %s, %d cores; numpy %s, torch %s" % (
        platform.processor() or platform.machine(), all_threads,
        np.__version__, torch.__version__ if torch else "-"))
    print()
    print("| case | threads | tensorlib ms | NumPy ms | PyTorch ms | "
          "tl / NumPy | tl / PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for name, threads, (a, b, c) in rows:
        cs = "%.2f" % (c * 1e3) if c != float("inf") else "-"
        rc = "%.2f" % (a / c) if c != float("inf") else "-"
        print("| %s | %d | %.2f | %.2f | %s | %.2f | %s |" % (
            name, threads, a * 1e3, b * 1e3, cs, a / b, rc))


if __name__ == "__main__":
    main()
