"""Measures the cost per element of every elementwise op of the operator
table and writes csrc/core/op_grain.h, the threading grain of each
(op, compute-dtype kind): the element count of one thread's share below
which the op's loop stays on one thread.

    python benchmarks/grain.py            # measure, print, write the header
    python benchmarks/grain.py --check    # measure and print only

Why per op (issue 19): a share of the loop must cost more than handing it
to a worker.  On the 2-vCPU VMs here a worker that is already spinning
takes a share within about 0.5 us, so a share of a few microseconds halves
the time; but the ops' costs per element span three orders of magnitude
(isnan of int32 0.02 ns, add of float32 0.12 ns, exp 0.45 ns, tanh of
float64 3.7 ns, erfinv 70 ns, asinh of complex64 120 ns), so one element
count either leaves the expensive ops on one thread up to 2^15 elements
(sin of 2^15 float32: 25 us where two threads take 13) or splits the
cheap ones into shares that cost less than the hand-over.  Each op and
kind gets the class of its measured cost, sized so one share is about
3-13 us of work:

    class  cost per element   grain (elements per share)
    a      < 0.4 ns           32768   (memory-bound: add, compare, cast)
    b      < 1.6 ns            8192   (exp, log, sin of float32)
    c      < 6.4 ns            2048   (exp, tanh of float64, pow of float32)
    d      < 25.6 ns            512   (libm per element: fmod, lgamma)
    e      otherwise            128   (erfinv, complex transcendentals)

The bounds sit between the clusters of measured costs: the memory-bound
loops of float64 and complex64 cost 0.24-0.3 ns, and a bound at 0.25
flipped them between classes from run to run.

Measured on one thread, out= given, 2^15 elements in cache (so the cost
is the kernel's, not memory's), best of 9 runs of at least 2 ms.  The
classes are coarse on purpose: a factor of 4 between classes absorbs the
noise of this machine and of the next CPU.
"""
import argparse
import os
import platform
import sys
import time

import numpy as np

import tensorlib as tl
from bench_reduce import calibrate

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "csrc", "core", "op_grain.h")
N = 1 << 15
# (kind letter in the header, dtype measured for it, dtypes it stands for)
KINDS = [("i", "int32", "bool and the integers"),
         ("f", "float32", "float32; float16/bfloat16 compute in float32"),
         ("d", "float64", "float64"),
         ("c", "complex64", "complex64"),
         ("z", "complex128", "complex128")]
CLASSES = [("a", 0.4), ("b", 1.6), ("c", 6.4), ("d", 25.6), ("e", None)]


def best_time(f, reps=9):
    """Seconds per call: the best of reps loops of at least 2 ms."""
    f()
    n = calibrate(f, 0.002)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, time.perf_counter() - t0)
    return best / n


def operands(row, dt, rng):
    """Inputs in every op's domain (positive, below 1 for atanh/erfinv,
    small integers for shifts and powers)."""
    if dt == "int32":
        x = rng.integers(1, 8, N).astype(dt)
        y = rng.integers(1, 8, N).astype(dt)
    elif dt.startswith("complex"):
        x = (rng.uniform(0.1, 0.9, N) + 1j * rng.uniform(0.1, 0.9, N))
        y = (rng.uniform(0.1, 0.9, N) + 1j * rng.uniform(0.1, 0.9, N))
        x, y = x.astype(dt), y.astype(dt)
    else:
        x = rng.uniform(0.05, 0.95, N).astype(dt)
        y = rng.uniform(0.05, 0.95, N).astype(dt)
    if row["name"] == "acosh":
        x = x + 1
    return tl.from_numpy(x), tl.from_numpy(y)


def classify(ns):
    for letter, bound in CLASSES:
        if bound is None or ns < bound:
            return letter
    raise AssertionError


def measure():
    tl.set_num_threads(1)
    rng = np.random.default_rng(0)
    table = {}
    for row in tl._C._op_table():
        if row["kind"] == "alias":
            continue
        fn = getattr(tl, row["py"])
        letters = []
        for letter, dt, _ in KINDS:
            if dt not in row["cpu_kernels"] and not (
                    letter == "i" and "bool" in row["cpu_kernels"]):
                letters.append("-")
                continue
            if dt not in row["cpu_kernels"]:
                dt = "bool"
            a, b = operands(row, dt, rng)
            if dt == "bool":
                a, b = a != 0, b != 0
            unary = row["kind"] == "unary"
            r = fn(a) if unary else fn(a, b)
            o = tl.empty_like(r)
            if unary:
                ns = best_time(lambda: fn(a, out=o)) / N * 1e9
            else:
                ns = best_time(lambda: fn(a, b, out=o)) / N * 1e9
            letters.append(classify(ns))
            print(f"{row['kind']:6s} {row['name']:16s} {dt:10s} "
                  f"{ns:8.3f} ns  {letters[-1]}", flush=True)
        table[(row["kind"], row["name"])] = "".join(letters)
    return table


def write_header(table):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    lines = [
        "/* csrc/core/op_grain.h -- GENERATED by benchmarks/grain.py; "
        "rerun it after",
        " * adding an op or changing a kernel (tests/test_ops_table.py "
        "fails for an",
        " * op without a class).  Measured " + time.strftime("%Y-%m-%d")
        + " on " + cpu[:50] + ".",
        " *",
        " * Per op, one cost class per compute-dtype kind, in the order "
        "of",
        " * TL_GRAIN_KINDS:",
    ] + [f" *   {k}: {d}" for k, _, d in KINDS] + [
        " * Classes a-e are grains of 32768, 8192, 2048, 512 and 128 "
        "elements per",
        " * thread (benchmarks/grain.py says how they were chosen); '-' "
        "is a kind",
        " * without a kernel.  Included by csrc/core/ops.c only. */",
        '#define TL_GRAIN_KINDS "' + "".join(k for k, _, _ in KINDS) + '"',
        "",
    ]
    for kind in ("unary", "binary"):
        lines.append(f"static const char {kind}_grain"
                     f"[TL_{kind.upper()}_OP_COUNT][sizeof TL_GRAIN_KINDS] "
                     f"= {{")
        for (k, name), s in table.items():
            if k == kind:
                lines.append(f'    [TL_{kind.upper()}_{name.upper()}] = '
                             f'"{s}",')
        lines.append("};")
        lines.append("")
    with open(HEADER, "w") as f:
        f.write("\n".join(lines))
    print("wrote", os.path.relpath(HEADER))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="measure and print; do not write the header")
    args = ap.parse_args(argv)
    table = measure()
    if not args.check:
        write_header(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
