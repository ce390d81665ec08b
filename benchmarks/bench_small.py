#!/usr/bin/env python3
"""The small-op table (issue 22): tensorlib vs NumPy vs PyTorch on tiny
tensors, where per-call overhead (dispatch, argument parsing, allocation,
object creation) is the whole cost.

    python benchmarks/bench_small.py            # full run (~1-2 min)
    python benchmarks/bench_small.py --quick    # a smoke run (< 1 min)
    python benchmarks/bench_small.py -k sum,add # only cases whose id matches
    python benchmarks/bench_small.py --markdown # also print a markdown table

Method: all libraries in ONE process; for each case the libraries are
interleaved repeat by repeat (the order rotates), each repeat is a
timeit-style loop compiled with its operands as fast locals, calibrated to
last at least --min-time seconds; time per call = (repeat - empty loop) /
loops, best over the repeats (noise only adds time).  Every library's
result is first checked against NumPy, so a case never times a wrong answer.

Peak bytes: for tensorlib, memory_stats()['active_bytes_peak'] above the
active bytes before one call (after reset_peak_memory_stats) -- every data
byte tensorlib allocates goes through the allocator registry; for NumPy,
tracemalloc's peak over one call (NumPy reports its data allocations to
tracemalloc, and the count includes Python objects' memory, which
tensorlib's column does not).  PyTorch's CPU allocator has no such counter.

Targets (issue 22): every case at most 0.2 of PyTorch's time; against
NumPy at most 0.5 for operations, 1.0 for views and attribute reads, 1.5
for t[1, 2] (NumPy returns a scalar, tensorlib a 0-d tensor).
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import sys
import time
import tracemalloc
from typing import Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tensorlib as tl  # noqa: E402

torch = None
if not os.environ.get("BENCH_SMALL_NO_TORCH"):
    try:
        import torch
    except Exception:  # noqa: BLE001 - any import failure: no torch column
        torch = None

F32 = np.float32

# (id, title, setup code (runs with L = the library module and the
#  per-library names below), {lib: stmt or None}, target vs np, kind)
# Setup is Python run once per library; it defines the operands.
_SETUP = {
    "vec10": "a = mk([0.5 * i - 2 for i in range(10)]); "
             "b = mk([0.25 * i + 1 for i in range(10)])",
    "m34": "t = mk([[float(4 * i + j) for j in range(4)] for i in range(3)])",
    "m44": "a = mk([[float(i - j) for j in range(4)] for i in range(4)]); "
           "b = mk([[float(i * j % 3) for j in range(4)] for i in range(4)])",
    "lst": "lst = [0.5 * i for i in range(10)]",
    "np10": "x = np.arange(10, dtype=np.float32)",
    "none": "",
}


def _same(s):
    return {"tl": s, "np": s, "torch": s}


OPS, VIEW = 0.5, 1.0
# id, title, setup key, statements, target vs NumPy
CASES = [
    ("add", "a + b (10 f32)", "vec10", _same("a + b"), OPS),
    ("mul_scalar", "a * 2.0 (10 f32)", "vec10", _same("a * 2.0"), OPS),
    ("empty", "empty((3, 4))", "none",
     {"tl": "L.empty((3, 4))", "np": "L.empty((3, 4), L.float32)",
      "torch": "L.empty((3, 4))"}, OPS),
    ("tensor_list", "tensor([10 floats])", "lst",
     {"tl": "L.tensor(lst)", "np": "L.array(lst, L.float32)",
      "torch": "L.tensor(lst)"}, OPS),
    ("reshape", "t.reshape(4, 3) (3x4)", "m34", _same("t.reshape(4, 3)"),
     OPS),
    ("sum", "t.sum() (10 f32)", "vec10", _same("a.sum()"), OPS),
    ("max", "t.max() (10 f32)", "vec10", _same("a.max()"), OPS),
    ("tolist", "t.tolist() (3x4)", "m34", _same("t.tolist()"), OPS),
    ("list_rows", "list(t) (3 rows)", "m34", _same("list(t)"), OPS),
    ("T_contig", "t.T.contiguous() (3x4)", "m34",
     {"tl": "t.T.contiguous()", "np": "L.ascontiguousarray(t.T)",
      "torch": "t.T.contiguous()"}, OPS),
    ("exp", "t.exp() (10 f32)", "vec10",
     {"tl": "a.exp()", "np": "L.exp(a)", "torch": "a.exp()"}, OPS),
    ("gt_any", "(t > 3).any() (10 f32)", "vec10", _same("(a > 3).any()"),
     OPS),
    ("double", "t.double() (10 f32)", "vec10",
     {"tl": "a.double()", "np": "a.astype(L.float64)",
      "torch": "a.double()"}, OPS),
    ("numpy_rt", "from_numpy(x).numpy() (10 f32)", "np10",
     {"tl": "L.from_numpy(x).numpy()", "np": "x.view().view()",
      "torch": "L.from_numpy(x).numpy()"}, OPS),
    ("cat", "cat of two (10 f32)", "vec10",
     {"tl": "L.cat((a, b))", "np": "L.concatenate((a, b))",
      "torch": "L.cat((a, b))"}, OPS),
    ("sort", "sort (10 f32)", "vec10",
     {"tl": "L.sort(a)", "np": "L.sort(a)", "torch": "L.sort(a)"}, OPS),
    ("cumsum", "cumsum (10 f32)", "vec10",
     {"tl": "L.cumsum(a, 0)", "np": "L.cumsum(a)",
      "torch": "L.cumsum(a, 0)"}, OPS),
    ("matmul", "matmul 4x4 f32", "m44", _same("a @ b"), OPS),
    ("slice", "t[1:3] (3x4)", "m34", _same("t[1:3]"), VIEW),
    ("T", "t.T (3x4)", "m34", _same("t.T"), VIEW),
    ("shape", "t.shape (3x4)", "m34", _same("t.shape"), VIEW),
    ("stride", "t.stride() (3x4)", "m34",
     {"tl": "t.stride()", "np": "t.strides", "torch": "t.stride()"}, VIEW),
    ("getitem", "t[1, 2] (3x4)", "m34", _same("t[1, 2]"), 1.5),
]


def _mk(key):
    if key == "tl":
        return lambda v: tl.tensor(v, dtype=tl.float32)
    if key == "np":
        return lambda v: np.array(v, dtype=F32)
    return lambda v: torch.tensor(v, dtype=torch.float32)


def _mods():
    mods = {"tl": tl, "np": np}
    if torch is not None:
        mods["torch"] = torch
    return mods


def _env(key, setup):
    env = {"L": _mods()[key], "np": np, "mk": _mk(key)}
    exec(_SETUP[setup], env)
    return env


def _timer(stmt, env):
    """A function f(n) -> seconds for n runs of stmt with env's names as
    fast locals (timeit's trick)."""
    names = sorted(k for k in env if not k.startswith("__"))
    src = ("def _outer({args}):\n"
           "    def _inner(_n, _clock):\n"
           "        _r = range(_n)\n"
           "        _t0 = _clock()\n"
           "        for _ in _r:\n"
           "            {stmt}\n"
           "        return _clock() - _t0\n"
           "    return _inner\n").format(args=", ".join(names), stmt=stmt)
    ns: dict = {}
    exec(compile(src, "<bench_small>", "exec"), ns)
    inner = ns["_outer"](*(env[k] for k in names))
    return lambda n: inner(n, time.perf_counter)


def _as_np(r):
    """Any library's result as a float64 (or bool) NumPy array."""
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        r = r[0]  # sort's (values, indices)
    elif isinstance(r, tuple) and len(r) == 2 and hasattr(r[0], "shape"):
        r = r[0]
    if isinstance(r, list):
        return np.array([_as_np(x) for x in r], dtype=np.float64)
    if isinstance(r, tuple):
        return np.array(r, dtype=np.float64)
    if hasattr(r, "numpy") and not isinstance(r, np.generic):
        r = r.numpy()
    r = np.asarray(r)
    return r if r.dtype == bool else r.astype(np.float64)


def _check(case, results):
    ref = _as_np(results["np"])
    for key, r in results.items():
        if key == "np" or case[0] == "empty":
            continue
        got = _as_np(r)
        if case[0] == "stride":  # NumPy's strides are in bytes
            got = np.asarray(got) * 4
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case[0]} / {key}")


def _thunk(stmt, env):
    """A compiled zero-argument function running stmt (so a measurement
    counts the op, not the compiler)."""
    return eval(compile("lambda: (" + stmt + ")", "<bench_small>", "eval"),
                dict(env))


def _peak_tl(stmt, env):
    f = _thunk(stmt, env)
    f()  # warm (caches, lazy imports)
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    tl.reset_peak_memory_stats()
    f()
    return tl.memory_stats()["active_bytes_peak"] - before


def _peak_np(stmt, env):
    f = _thunk(stmt, env)
    f()
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        r = f()
        _, peak = tracemalloc.get_traced_memory()
        del r
    finally:
        tracemalloc.stop()
    return peak


def _empty_loop_ns():
    f = _timer("pass", {})
    return min(f(100000) for _ in range(5)) / 100000 * 1e9


def run_case(case, repeats, min_time, empty_ns):
    cid, title, setup, stmts, tgt = case
    mods = _mods()
    envs, timers, results = {}, {}, {}
    for key in mods:
        stmt = stmts.get(key)
        if stmt is None:
            continue
        env = _env(key, setup)
        envs[key] = env
        results[key] = eval(stmt, dict(env))
        timers[key] = _timer(stmt, env)
    _check(case, results)
    loops = {}
    for key, f in timers.items():  # calibrate
        n = 1
        while True:
            if f(n) >= min_time / 4 or n >= 1 << 22:
                break
            n *= 4
        loops[key] = max(1, int(n * min_time / max(f(n), 1e-9)))
    best = {k: float("inf") for k in timers}
    keys = list(timers)
    gcold = gc.isenabled()
    gc.disable()
    try:
        for rep in range(repeats):
            rot = keys[rep % len(keys):] + keys[:rep % len(keys)]
            for key in rot:
                t = timers[key](loops[key]) / loops[key] * 1e9 - empty_ns
                best[key] = min(best[key], t)
    finally:
        if gcold:
            gc.enable()
    peaks = {"tl": _peak_tl(stmts["tl"], envs["tl"]),
             "np": _peak_np(stmts["np"], envs["np"])}
    return {"id": cid, "title": title, "best": best, "target_np": tgt,
            "peak": peaks}


def fmt_ns(t):
    if t is None or t == float("inf"):
        return "—"
    return f"{t:.0f} ns" if t >= 10 else f"{t:.1f} ns"


HEADER = ["case", "tensorlib", "NumPy", "torch", "tl/np", "target",
          "tl/torch", "met", "tl bytes", "np peak bytes"]


def rows_of(results):
    rows = []
    for r in results:
        b = r["best"]
        rn = b["tl"] / b["np"] if b.get("np") else None
        rt = b["tl"] / b["torch"] if b.get("torch") else None
        ok = (rn is None or rn <= r["target_np"]) and \
            (rt is None or rt <= 0.2)
        missed = []
        if rn is not None and rn > r["target_np"]:
            missed.append("np")
        if rt is not None and rt > 0.2:
            missed.append("torch")
        rows.append([r["title"], fmt_ns(b["tl"]), fmt_ns(b.get("np")),
                     fmt_ns(b.get("torch")),
                     "—" if rn is None else f"{rn:.2f}",
                     f"≤ {r['target_np']:g}",
                     "—" if rt is None else f"{rt:.2f}",
                     "yes" if ok else "**NO** (" + ", ".join(missed) + ")",
                     str(r["peak"]["tl"]), str(r["peak"]["np"])])
    return rows


def text_table(rows):
    w = [max(len(h), *(len(x[i]) for x in rows)) for i, h in
         enumerate(HEADER)]
    out = ["  ".join(h.ljust(w[i]) for i, h in enumerate(HEADER)),
           "  ".join("-" * w[i] for i in range(len(HEADER)))]
    out += ["  ".join(c.ljust(w[i]) for i, c in enumerate(x)) for x in rows]
    return "\n".join(out)


def markdown_table(rows):
    out = ["| " + " | ".join(HEADER) + " |",
           "|" + "|".join("---" for _ in HEADER) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in x) + " |"
            for x in rows]
    return "\n".join(out)


BEGIN, END = "<!-- small-ops:begin -->", "<!-- small-ops:end -->"


def write_section(path, rows, env_lines):
    """Puts the table into path (RESULTS.md) between the small-ops markers,
    replacing an earlier one; run.py keeps this section when it rewrites
    the file."""
    body = [BEGIN, "", "## Small-op table (issue 22, `bench_small.py`)", "",
            "Generated by `python benchmarks/bench_small.py --results "
            "benchmarks/RESULTS.md`. Ratios are tensorlib time / other time "
            "(lower is better for tensorlib). Targets: every case at most "
            "0.2 of PyTorch's time; against NumPy at most 0.5 for "
            "operations, 1.0 for views and attribute reads, 1.5 for "
            "`t[1, 2]`. Peak bytes: tensorlib's allocator "
            "(`memory_stats()['active_bytes_peak']`), NumPy's through "
            "`tracemalloc` (which also counts its Python objects). "
            "Instruction counts per case, and what bounds each missed "
            "case: [README.md](README.md#small-ops-issue-22).", "",
            *env_lines, "", markdown_table(rows), "", END]
    old = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        new = head + "\n".join(body) + tail
    else:
        new = old.rstrip("\n") + "\n\n" + "\n".join(body) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", "--cases", default="",
                   help="comma-separated substrings of case ids")
    p.add_argument("--repeats", type=int, default=25)
    p.add_argument("--min-time", type=float, default=0.004,
                   help="seconds one repeat lasts at least")
    p.add_argument("--quick", action="store_true",
                   help="7 repeats of >= 2 ms: the table in well under a "
                        "minute")
    p.add_argument("--markdown", action="store_true",
                   help="also print the table as markdown")
    p.add_argument("--results", metavar="PATH",
                   help="write the table into PATH's small-op section "
                        "(benchmarks/RESULTS.md)")
    args = p.parse_args(argv)
    if args.quick:
        args.repeats, args.min_time = 7, 0.002
    sel = [s.strip() for s in args.cases.split(",") if s.strip()]
    cases = [c for c in CASES if not sel or any(s in c[0] for s in sel)]
    if not cases:
        print("no small-op case matches", args.cases)
        return 0
    if torch is not None:
        torch.set_num_threads(1)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"# small-op table; NumPy {np.__version__}; torch "
          f"{torch.__version__ if torch is not None else 'not importable'};"
          f" load {load}", flush=True)
    empty_ns = _empty_loop_ns()
    t0 = time.time()
    results = [run_case(c, args.repeats, args.min_time, empty_ns)
               for c in cases]
    rows = rows_of(results)
    print(text_table(rows))
    if args.markdown:
        print()
        print(markdown_table(rows))
    with open("/proc/loadavg") as f:
        load_after = " ".join(f.read().split()[:3])
    print(f"# {time.time() - t0:.1f} s; empty loop {empty_ns:.1f} ns "
          f"subtracted; load after {load_after}")
    if args.results:
        import datetime
        import platform
        env_lines = [
            "- Date: " + datetime.datetime.now().astimezone().isoformat(
                timespec="seconds"),
            f"- Python {sys.version.split()[0]}; NumPy {np.__version__}; "
            f"torch {torch.__version__ if torch is not None else 'absent'}"
            f" (1 thread); {platform.machine()}, {os.cpu_count()} cores",
            f"- Load average before / after: {load} / {load_after} (other "
            "builds and test runs shared the 2 cores: ratios are noisy)",
            f"- Method: {args.repeats} interleaved repeats of ≥ "
            f"{args.min_time * 1e3:g} ms per library; best repeat per call "
            f"minus the {empty_ns:.1f} ns empty loop",
        ]
        write_section(args.results, rows, env_lines)
        print(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
