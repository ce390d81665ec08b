#!/usr/bin/env python3
"""What bounds each benchmark case: the analysis behind benchmarks/README.md
"What bounds each case".

    python benchmarks/bounds/run_bounds.py              # everything
    python benchmarks/bounds/run_bounds.py --only overhead
    python benchmarks/bounds/run_bounds.py --only bandwidth --threads 2

Parts:
  overhead   C-level timings of the core pieces of a small op (build/bench/
             overhead, linked against build/libtensorlib.so from `make`),
             Python-level timings of the same ops in this process, and the
             breakdown of tensorlib's `a + b` on 10 elements into Python
             layer, iterator set-up, kernel and allocation.
  bandwidth  plain-C bounds of the large cases (build/bench/bandwidth):
             memcpy, add, sum, cast, broadcast, naive vs tiled transposes,
             first-touch page-fault cost.
  callgrind  instruction counts per call by function (valgrind), which do
             not depend on machine load: see callgrind_ops.py.

The C and Python timings are best-of-many (a preempted run only adds
time), and the C and Python halves are run in alternation --rounds times,
keeping each number's best, so that both see the machine in the same state.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(ROOT, "build", "bench")
sys.path.insert(0, os.path.dirname(HERE))

import run as runner  # noqa: E402  benchmarks/run.py: the timing loop


def sh(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def build(tree):
    """Builds tree/build/libtensorlib.so (make) and the two harnesses."""
    os.makedirs(BENCH, exist_ok=True)
    lib = os.path.join(tree, "build")
    try:
        sh(["make", "-s", "-C", tree, "build/libtensorlib.so"])
    except subprocess.CalledProcessError:
        if not os.path.exists(os.path.join(lib, "libtensorlib.so")):
            raise
        print("warning: make failed; using the existing "
              "build/libtensorlib.so", flush=True)
    common = ["-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE"]
    sh(["gcc", "-O2", *common, "-I" + os.path.join(tree, "csrc", "include"),
        "benchmarks/bounds/overhead.c", "-L" + lib, "-ltensorlib",
        "-Wl,-rpath," + lib, "-lpthread",
        "-o", os.path.join(BENCH, "overhead")])
    sh(["gcc", "-O3", "-march=native", *common,
        "benchmarks/bounds/bandwidth.c", "-lpthread",
        "-o", os.path.join(BENCH, "bandwidth")])


# ---- overhead ---------------------------------------------------------------

def c_overhead(n=200000):
    out = subprocess.run([os.path.join(BENCH, "overhead"), str(n)],
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"(\S+)\s+([\d.]+)\s+(.*)", line)
        if m:
            res[m.group(1)] = (float(m.group(2)), m.group(3))
    return res


PY_STMTS = [
    # key, statement, tensorlib only?
    ("getter", "a.ndim"),
    ("add", "a + b"),
    ("add_fn", "L.add(a, b)"),
    ("add_out", "L.add(a, b, out=c)"),
    ("iadd", "x += b"),
    ("add_scalar", "a + 1.0"),
    ("empty10", "L.empty((10,))"),
    ("empty3x4", "L.empty((3, 4))"),
    ("slice", "t[1:3]"),
]


def py_overhead(min_time=0.002, repeats=60):
    import numpy as np
    import tensorlib as tl
    libs = runner.load_libs(False)
    tl.set_num_threads(1)
    timers = {}
    for key, lib in libs.items():
        mk = lib.convert
        ns = {"L": lib.mod,
              "a": mk(np.arange(10, dtype=np.float32)),
              "b": mk(np.ones(10, dtype=np.float32)),
              "c": mk(np.zeros(10, dtype=np.float32)),
              "x": mk(np.zeros(10, dtype=np.float32)),
              "t": mk(np.zeros((8, 8), dtype=np.float32))}
        for name, stmt in PY_STMTS:
            s = stmt
            if key == "np" and name.startswith("empty"):
                s = stmt[:-1] + ", L.float32)"
            t = runner.make_timer(s, ns)
            t(1000)
            timers[(key, name)] = (t, runner.calibrate(t, int(min_time * 1e9)))
    loop = runner.empty_loop_ns()
    best = {k: float("inf") for k in timers}
    for _ in range(repeats):
        for k, (t, n) in timers.items():
            best[k] = min(best[k], t(n) / n - loop)
    tl.set_num_threads(runner.Threads(libs, None).tl_default)
    return best


def overhead(rounds):
    cbest, pbest = {}, {}
    for r in range(rounds):
        for k, (v, what) in c_overhead().items():
            if k not in cbest or v < cbest[k][0]:
                cbest[k] = (v, what)
        for k, v in py_overhead().items():
            pbest[k] = min(pbest.get(k, float("inf")), v)
    print("\nC core (build/libtensorlib.so, 1 thread), ns per call:")
    for k, (v, what) in cbest.items():
        print(f"  {k:18s} {v:8.1f}  {what}")
    print("\nPython level (this process), ns per call, loop cost removed:")
    print(f"  {'statement':22s} {'tensorlib':>9s} {'NumPy':>9s} {'tl/np':>6s}")
    for name, stmt in PY_STMTS:
        t, n = pbest[("tl", name)], pbest[("np", name)]
        print(f"  {stmt:22s} {t:9.1f} {n:9.1f} {t / n:6.2f}")

    def c(k):
        return cbest[k][0]

    def p(k):
        return pbest[("tl", k)]

    py_add, core_alloc = p("add"), c("op_add_alloc")
    core_out = c("op_add_out")
    alloc = c("empty10_free")
    kernel = c("c_loop_add10")
    build_out = c("iter_new_out") - c("malloc_free")  # heap iterator
    rest = core_out - build_out - kernel
    glue_alloc = py_add - core_alloc
    print("\nWhere tensorlib's `a + b` (10 float32) goes, ns (estimates: "
          "differences of the timings above):")
    rows = [
        ("Python layer: nb_add dispatch, operand(), tl_py_wrap "
         "(tp_alloc), tensor_dealloc (tp_free)", glue_alloc),
        ("  of which argument parsing + operand() with out= (add_out - "
         "op_add_out)", p("add_out") - core_out),
        ("core: output tensor alloc + free (tl_tensor_empty + decref: "
         "pool, 4 mallocs, atomics)", alloc),
        ("core: iterator build with out given (tl_iter_new - malloc)",
         build_out),
        ("core: kernel on 10 elements (plain C loop)", kernel),
        ("core: the rest of tl_op_binary (binary_types, for_each, "
         "needs_buffering, version bump)", rest),
        ("core total tl_op_binary(NULL, a, b) + decref", core_alloc),
        ("Python total `a + b`", py_add),
        ("NumPy total `a + b`", pbest[("np", "add")]),
    ]
    for what, v in rows:
        print(f"  {v:8.1f}  {what}")
    return cbest, pbest


# ---- bandwidth ----------------------------------------------------------------

def bandwidth(threads):
    for nt in threads:
        print()
        out = subprocess.run([os.path.join(BENCH, "bandwidth"), str(nt)],
                             check=True, capture_output=True, text=True)
        print(out.stdout, end="")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=["overhead", "bandwidth", "callgrind"],
                   action="append")
    p.add_argument("--threads", type=int, action="append",
                   help="bandwidth thread counts (default: 1 and all cores)")
    p.add_argument("--rounds", type=int, default=3,
                   help="alternations of the C and Python overhead runs")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--tree", default=ROOT,
                   help="source tree whose libtensorlib.so the C harness "
                        "links (default: this repository)")
    args = p.parse_args()
    parts = args.only or ["overhead", "bandwidth"]
    if not args.no_build and ("overhead" in parts or "bandwidth" in parts):
        build(os.path.abspath(args.tree))
    if "overhead" in parts:
        overhead(args.rounds)
    if "bandwidth" in parts:
        cores = len(os.sched_getaffinity(0))
        bandwidth(args.threads or sorted({1, cores}))
    if "callgrind" in parts:
        sh([sys.executable, os.path.join(HERE, "callgrind_ops.py")])


if __name__ == "__main__":
    main()
