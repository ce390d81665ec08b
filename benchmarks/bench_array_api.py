#!/usr/bin/env python3
"""The array API namespace's adapter cost: tensorlib.array_api beside the
top-level tensorlib op it calls, and beside NumPy's own namespace.

    python benchmarks/bench_array_api.py            # every case
    python benchmarks/bench_array_api.py --quick    # fewer repeats

tensorlib.array_api is Python over the C ops, so a small call pays the
adapter (argument mapping, the standard's promotion check); a large one
should cost what the top level costs.  Each case runs the namespace call,
the equivalent top-level call and NumPy's, interleaved repeat by repeat;
the table gives the best time per call of each and the ratios
namespace / top level and namespace / NumPy (below 1.0: faster)."""
import argparse
import time

import numpy as np

import tensorlib as tl
import tensorlib.array_api as xp


def cases(rng):
    small = rng.standard_normal(16).astype(np.float32)
    big = rng.standard_normal((1024, 1024)).astype(np.float32)
    ts, tb = tl.tensor(small), tl.tensor(big)
    s0 = tl.tensor(2.0)
    return [
        ("add 16 + 0-d", lambda: xp.add(ts, s0), lambda: tl.add(ts, s0),
         lambda: np.add(small, 2.0)),
        ("add 16 + scalar", lambda: xp.add(ts, 2.0),
         lambda: tl.add(ts, 2.0), lambda: np.add(small, 2.0)),
        ("sin 16", lambda: xp.sin(ts), lambda: tl.sin(ts),
         lambda: np.sin(small)),
        ("sum 16", lambda: xp.sum(ts), lambda: tl.sum(ts),
         lambda: np.sum(small)),
        ("std 1024^2 axis=0", lambda: xp.std(tb, axis=0),
         lambda: tl.std(tb, 0, correction=0), lambda: np.std(big, axis=0)),
        ("max 1024^2 axis=(0,1)", lambda: xp.max(tb, axis=(0, 1)),
         lambda: tl.amax(tb, (0, 1)), lambda: np.max(big, axis=(0, 1))),
        ("sort 1024^2", lambda: xp.sort(tb),
         lambda: tl.sort(tb, stable=True).values,
         lambda: np.sort(big, kind="stable")),
        ("add 1024^2", lambda: xp.add(tb, tb), lambda: tl.add(tb, tb),
         lambda: np.add(big, big)),
    ]


def best(fn, reps, inner):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        t = min(t, (time.perf_counter() - t0) / inner)
    return t


def fmt(s):
    return f"{s * 1e6:10.2f} us" if s < 1e-3 else f"{s * 1e3:10.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    reps = 3 if args.quick else 7
    rng = np.random.default_rng(0)
    print(f"{'case':24} {'array_api':>13} {'top level':>13} {'numpy':>13}"
          f" {'xp/top':>7} {'xp/np':>7}")
    for name, f_xp, f_tl, f_np in cases(rng):
        inner = 2000 if "16" in name and "1024" not in name else 3
        if args.quick:
            inner = max(1, inner // 4)
        times = [float("inf")] * 3
        for _ in range(reps):                 # interleaved, best of
            for i, f in enumerate((f_xp, f_tl, f_np)):
                times[i] = min(times[i], best(f, 1, inner))
        print(f"{name:24} {fmt(times[0])} {fmt(times[1])} {fmt(times[2])}"
              f" {times[0] / times[1]:7.2f} {times[0] / times[2]:7.2f}")


if __name__ == "__main__":
    main()
