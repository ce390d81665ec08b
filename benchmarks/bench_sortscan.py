#!/usr/bin/env python3
"""Sorting, scans and softmax: tensorlib beside NumPy and PyTorch.

    python benchmarks/bench_sortscan.py            # every case
    python benchmarks/bench_sortscan.py --quick    # fewer repeats
    python benchmarks/bench_sortscan.py -k sort    # cases whose id has 'sort'

The cases of issue 17's "Done means": sort/argsort of 2^20 float32,
topk(10) of 2^20, unique of 2^20 int64, cumsum of 2^24 float32, softmax
over the rows of a 4096 x 4096 float32 matrix.  tensorlib and PyTorch run
on --threads threads (default 2); NumPy is single-threaded.  All three run
in one process, interleaved repeat by repeat; the table gives the best of
the repeats (noise only adds time) and the ratios tensorlib / PyTorch and
tensorlib / NumPy (below 1.0: tensorlib is faster).  Every library's result
is checked against NumPy's before anything is timed."""
import argparse
import sys
import time

import numpy as np

import tensorlib as tl

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None


def np_softmax(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    e /= e.sum(axis=1, keepdims=True)
    return e


def cases(rng):
    f20 = rng.standard_normal(1 << 20).astype(np.float32)
    i20 = rng.integers(0, 1 << 16, 1 << 20).astype(np.int64)
    f24 = rng.standard_normal(1 << 24).astype(np.float32)
    m4k = rng.standard_normal((4096, 4096)).astype(np.float32)
    return [
        ("sort f32 2^20", f20,
         lambda a: tl.sort(a).values, lambda a: torch.sort(a).values,
         lambda a: np.sort(a), "values"),
        ("argsort f32 2^20", f20,
         lambda a: tl.argsort(a), lambda a: torch.argsort(a, stable=True),
         lambda a: np.argsort(a, kind="stable"), "exact"),
        ("topk(10) f32 2^20", f20,
         lambda a: tl.topk(a, 10).values, lambda a: torch.topk(a, 10).values,
         lambda a: -np.sort(-np.partition(a, -10)[-10:]), "values"),
        ("unique i64 2^20", i20,
         lambda a: tl.unique(a), lambda a: torch.unique(a),
         lambda a: np.unique(a), "values"),
        ("cumsum f32 2^24", f24,
         lambda a: tl.cumsum(a, 0), lambda a: torch.cumsum(a, 0),
         lambda a: np.cumsum(a), "cumsum"),
        ("softmax rows 4096^2", m4k,
         lambda a: tl.softmax(a, 1), lambda a: torch.softmax(a, 1),
         np_softmax, "close"),
    ]


def best(fn, arg, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(arg)
        ts.append(time.perf_counter() - t0)
    return min(ts)


def check(name, got, want, how):
    got = np.asarray(got)
    if how in ("values", "exact"):
        assert np.array_equal(got, want), name
    elif how == "cumsum":
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="3 repeats")
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("-k", default="", help="only cases whose id contains it")
    args = p.parse_args(argv)
    reps = 3 if args.quick else args.repeats
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    rows = []
    for name, x, f_tl, f_torch, f_np, how in cases(rng):
        if args.k and args.k not in name:
            continue
        a_tl = tl.tensor(x)
        a_t = torch.from_numpy(x.copy()) if torch is not None else None
        # the reference: NumPy's float32 cumsum rounds at every step,
        # so the cumsum case is checked against float64 sums
        want = (np.cumsum(x.astype(np.float64)) if how == "cumsum"
                else f_np(x))
        check(name, f_tl(a_tl).numpy(), want, how)
        if torch is not None:
            check(name, f_torch(a_t).numpy(), want, how)
        t = {"tl": [], "torch": [], "np": []}
        for r in range(reps):
            order = [("tl", f_tl, a_tl), ("np", f_np, x)]
            if torch is not None:
                order.append(("torch", f_torch, a_t))
            order = order[r % len(order):] + order[:r % len(order)]
            for key, fn, arg in order:
                t[key].append(best(fn, arg, 1))
        tt = min(t["tl"])
        tn = min(t["np"])
        tp = min(t["torch"]) if t["torch"] else float("nan")
        rows.append((name, tt, tp, tn))
    print(f"threads: tensorlib {tl.get_num_threads()}, torch "
          f"{torch.get_num_threads() if torch else '-'}, NumPy 1; "
          f"best of {reps}")
    print(f"| case | tensorlib ms | PyTorch ms | NumPy ms | tl/torch | "
          f"tl/NumPy |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, tt, tp, tn in rows:
        print(f"| {name} | {tt * 1e3:.2f} | {tp * 1e3:.2f} | {tn * 1e3:.2f} "
              f"| {tt / tp:.2f} | {tt / tn:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
