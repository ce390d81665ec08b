#!/usr/bin/env python3
"""Times tensorlib side by side with NumPy and (when importable) PyTorch.

    python benchmarks/run.py                 # every case, writes RESULTS.md
    python benchmarks/run.py --json out.json # also the raw samples as JSON
    python benchmarks/run.py -k add,sum      # only cases whose id contains
    python benchmarks/run.py --list          # the cases and what they time

All libraries are timed in ONE process, case by case, and within a case the
libraries are interleaved repeat by repeat (the order rotates each repeat),
so that a burst of load from elsewhere hits every library alike.  Each
(case, library) runs a timeit-style loop whose statement is compiled inline
with its operands as fast locals; the loop count is calibrated so one
repeat takes at least --min-time seconds (short: a short repeat is seldom
preempted), and there are up to --repeats repeats, fewer for slow cases
(--budget seconds per case, at least 5).  The per-call time is the
repeat's time minus the cost of the empty loop, divided by the loop
count.  The reported time is the minimum over the repeats (noise only ever
adds time); the median and the spread are kept in the JSON and flagged in
the table.

Before anything is timed, every library's result is computed once and
checked against a float64 NumPy reference (np.testing.assert_allclose), so
a benchmark can never time a wrong answer.  A case whose tensorlib API does
not exist yet is reported as "n/a (not implemented)" and is picked up
automatically once the API appears.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import itertools
import json
import os
import platform
import statistics
import sys
import time
import traceback
from typing import Callable, Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# libraries


class Lib:
    """One library: its module and how to put a NumPy array into it (a copy
    in memory the library allocated itself, so no library times another's
    allocator or alignment)."""

    def __init__(self, key: str, label: str, mod, convert: Callable):
        self.key = key
        self.label = label
        self.mod = mod
        self.convert = convert


def load_libs(want_torch: bool) -> Dict[str, Lib]:
    libs: Dict[str, Lib] = {}
    import tensorlib as tl

    libs["tl"] = Lib("tl", "tensorlib", tl,
                     lambda a: tl.from_numpy(np.ascontiguousarray(a)).clone())
    libs["np"] = Lib("np", "NumPy", np, lambda a: np.array(a, copy=True))
    if want_torch:
        try:
            import torch
        except Exception:  # noqa: BLE001 - any import failure: no torch
            torch = None
        if torch is not None:
            libs["torch"] = Lib(
                "torch", "torch", torch,
                lambda a: torch.from_numpy(np.ascontiguousarray(a)).clone())
    return libs


BOUNDS_SRC = os.path.join(HERE, "bounds", "kernels.c")
BOUNDS_LIB = os.path.join(os.path.dirname(HERE), "build", "bench",
                          "libtlbounds.so")


def load_bounds():
    """The plain-C bound kernels (benchmarks/bounds/kernels.c) through
    ctypes, compiled on first use.  Returns (Lib or None, note)."""
    import ctypes
    import shutil
    import subprocess
    try:
        stale = (not os.path.exists(BOUNDS_LIB) or
                 os.path.getmtime(BOUNDS_LIB) < os.path.getmtime(BOUNDS_SRC))
        if stale:
            cc = os.environ.get("CC") or shutil.which("gcc") or \
                shutil.which("cc")
            if not cc:
                return None, "no C compiler"
            os.makedirs(os.path.dirname(BOUNDS_LIB), exist_ok=True)
            tmp = BOUNDS_LIB + f".{os.getpid()}.tmp"
            # (not under a sanitizer runtime preloaded for the tests)
            env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
            subprocess.run([cc, "-O3", "-march=native", "-std=c11",
                            "-D_GNU_SOURCE", "-shared", "-fPIC", "-pthread",
                            BOUNDS_SRC, "-o", tmp], check=True,
                           capture_output=True, text=True, env=env)
            os.replace(tmp, BOUNDS_LIB)
        k = ctypes.CDLL(BOUNDS_LIB)
    except (OSError, subprocess.CalledProcessError) as e:
        msg = getattr(e, "stderr", "") or str(e)
        return None, "bound kernels unavailable: " + msg.strip()[:200]
    f4 = np.ctypeslib.ndpointer(np.float32, flags="C_CONTIGUOUS")
    f8 = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    i8, i4 = ctypes.c_int64, ctypes.c_int
    sig = {
        "tlb_add_f32": ([f4, f4, f4, i8, i4], None),
        "tlb_bcast_add_f32": ([f4, f4, f4, i8, i8, i4], None),
        "tlb_tadd_f32": ([f4, f4, i8, i4], None),
        "tlb_tcopy_f32": ([f4, f4, i8, i4], None),
        "tlb_sum_f32": ([f4, i8, i4], ctypes.c_double),
        "tlb_sum0_f32": ([f4, f4, i8, i8, i4], None),
        "tlb_cast_f32_f64": ([f4, f8, i8, i4], None),
        "tlb_flip_iadd_f32": ([f4, i8, i4], None),
        "tlb_reduce": ([ctypes.c_void_p, i4, i4, i8, i8, i8, f8,
                        ctypes.c_void_p, i4], ctypes.c_int),
    }
    for name, (args, res) in sig.items():
        fn = getattr(k, name)
        fn.argtypes = args
        fn.restype = res
    return Lib("c", "C bound", k, lambda a: np.array(a, copy=True)), ""


def to_numpy(r) -> np.ndarray:
    """A result of any library as a NumPy array (0-d for scalars)."""
    if isinstance(r, np.ndarray):
        return r
    if hasattr(r, "numpy") and not isinstance(r, np.generic):
        return np.asarray(r.numpy())
    return np.asarray(r)


# ---------------------------------------------------------------------------
# cases

F32 = np.float32
N24 = 1 << 24
N2 = 4096


@dataclasses.dataclass
class Case:
    id: str
    title: str                       # the operation, as the table shows it
    what: str                        # what the case measures (README/--list)
    inputs: Callable                 # rng -> {name: ndarray}
    stmt: Dict[str, Optional[str]]   # lib key -> statement (None: no peer)
    expect: Callable                 # inputs (float64 copies) -> ndarray
    result: Optional[str] = None     # expression read after one run of stmt
    target_np: Optional[float] = None
    target_torch: Optional[float] = None
    threads: Optional[int] = None    # None: the run's thread setting;
    #                                  -1: all cores; n: n threads
    requires: Optional[Callable] = None  # tl module -> bool (API exists)
    rtol: float = 1e-6
    atol: float = 0.0
    check_values: bool = True        # False: shape and dtype only
    expect_dtype: Optional[str] = None  # dtype name the result must have
    # The plain-C bound (benchmarks/bounds/kernels.c, module K, thread count
    # T): its statement, the outputs it writes (name -> (shape, dtype),
    # allocated and faulted in beforehand) and the expression read after.
    bound: Optional[str] = None
    bound_out: Dict[str, tuple] = dataclasses.field(default_factory=dict)
    bound_result: Optional[str] = None


def f32(rng, *shape):
    return rng.standard_normal(shape, dtype=F32)


def has_attr(path: str) -> Callable:
    """requires= helper: tensorlib has the dotted attribute path."""
    def check(tl):
        obj = tl
        for part in path.split("."):
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return check


def _same(stmt: str) -> Dict[str, str]:
    return {"tl": stmt, "np": stmt, "torch": stmt}


CASES: List[Case] = [
    Case("add_10", "a + b, 10 float32",
         "Per-call overhead of a tiny elementwise op: operator dispatch, "
         "argument conversion, iterator set-up, allocation of the result "
         "and its Python object. The kernel itself is a few ns.",
         lambda rng: {"a": f32(rng, 10), "b": f32(rng, 10)},
         _same("a + b"), lambda d: d["a"] + d["b"],
         target_np=1.0, target_torch=0.4),
    Case("add_scalar_10", "a + 1.0, 10 float32",
         "Tiny op with a Python scalar operand (wrapped-number promotion).",
         lambda rng: {"a": f32(rng, 10)},
         _same("a + 1.0"), lambda d: d["a"] + 1.0),
    Case("empty_3x4", "empty((3,4))",
         "Small-tensor creation: shape parsing, storage from the caching "
         "pool, impl and Python object.",
         lambda rng: {},
         {"tl": "L.empty((3, 4))", "np": "L.empty((3, 4), L.float32)",
          "torch": "L.empty((3, 4))"},
         lambda d: np.empty((3, 4), F32), check_values=False,
         expect_dtype="float32", target_np=1.0),
    Case("tensor_list_10", "tensor(list of 10 floats)",
         "Creation from a small Python list (type inference, conversion).",
         lambda rng: {"xs": f32(rng, 10)},
         {"tl": "L.tensor(lst)", "np": "L.array(lst, L.float32)",
          "torch": "L.tensor(lst)"},
         lambda d: d["xs"].astype(F32), expect_dtype="float32"),
    Case("view_slice", "t[1:3] (8x8)",
         "View creation: basic indexing makes a new impl sharing storage.",
         lambda rng: {"t": f32(rng, 8, 8)},
         _same("t[1:3]"), lambda d: d["t"][1:3], target_np=1.0),
    Case("index_list", "t[[0, 2]] (8x8)",
         "Advanced indexing with a list: index conversion and a gather.",
         lambda rng: {"t": f32(rng, 8, 8)},
         _same("t[[0, 2]]"), lambda d: d["t"][[0, 2]]),
    Case("sum_10", "t.sum(), 10 float32",
         "Per-call overhead of a tiny full reduction.",
         lambda rng: {"t": f32(rng, 10)},
         _same("t.sum()"), lambda d: d["t"].sum(),
         requires=has_attr("Tensor.sum"), rtol=1e-5, atol=1e-6),
    Case("numpy_roundtrip", "from_numpy(x).numpy(), 10 float32",
         "Zero-copy NumPy bridge both ways (NumPy has no counterpart).",
         lambda rng: {"x": f32(rng, 10)},
         {"tl": "L.from_numpy(xnp).numpy()", "np": None,
          "torch": "L.from_numpy(xnp).numpy()"},
         lambda d: d["x"]),
    Case("add_out_1t", "add(a, b, out=c), 2^24 f32, 1 thread",
         "Large contiguous add into an existing output on one thread: "
         "should run at the memory-bandwidth limit (3 x 64 MiB streams).",
         lambda rng: {"a": f32(rng, N24), "b": f32(rng, N24),
                      "c": np.zeros(N24, F32)},
         {"tl": "L.add(a, b, out=c)", "np": "L.add(a, b, out=c)",
          "torch": "L.add(a, b, out=c)"},
         lambda d: d["a"] + d["b"], result="c", threads=1, target_np=1.0,
         bound="K.tlb_add_f32(a, b, c, a.size, T)", bound_result="c"),
    Case("add_out_mt", "add(a, b, out=c), 2^24 f32, all threads",
         "The same with every core (NumPy stays single-threaded).",
         lambda rng: {"a": f32(rng, N24), "b": f32(rng, N24),
                      "c": np.zeros(N24, F32)},
         {"tl": "L.add(a, b, out=c)", "np": "L.add(a, b, out=c)",
          "torch": "L.add(a, b, out=c)"},
         lambda d: d["a"] + d["b"], result="c", threads=-1,
         bound="K.tlb_add_f32(a, b, c, a.size, T)", bound_result="c"),
    Case("add_alloc", "a + b, 2^24 f32 (allocating)",
         "Large add that allocates its 64 MiB output each call: NumPy pays "
         "mmap + page faults on first touch; a caching allocator need not.",
         lambda rng: {"a": f32(rng, N24), "b": f32(rng, N24)},
         _same("a + b"), lambda d: d["a"] + d["b"], target_np=0.6,
         bound="K.tlb_add_f32(a, b, c, a.size, T)",
         bound_out={"c": ((N24,), F32)}, bound_result="c"),
    Case("bcast_add", "(4096,1) + (1,4096) f32",
         "Broadcast add producing 4096x4096: two stride-0 inputs, one "
         "output stream.",
         lambda rng: {"a": f32(rng, N2, 1), "b": f32(rng, 1, N2)},
         _same("a + b"), lambda d: d["a"] + d["b"], target_np=0.8,
         bound="K.tlb_bcast_add_f32(a, b, c, N2, N2, T)",
         bound_out={"c": ((N2, N2), F32)}, bound_result="c"),
    Case("transpose_add", "a.T + a, 4096x4096 f32",
         "Add of a transposed and a contiguous operand: one of them is read "
         "with a 16 KiB stride unless the loop is cache-blocked.",
         lambda rng: {"a": f32(rng, N2, N2)},
         _same("a.T + a"), lambda d: d["a"].T + d["a"], target_np=0.3,
         bound="K.tlb_tadd_f32(a, c, N2, T)",
         bound_out={"c": ((N2, N2), F32)}, bound_result="c"),
    Case("transpose_contig", "a.T.contiguous(), 4096x4096 f32",
         "Transposed copy into a new contiguous tensor "
         "(NumPy: np.ascontiguousarray(a.T)).",
         lambda rng: {"a": f32(rng, N2, N2)},
         {"tl": "a.T.contiguous()", "np": "L.ascontiguousarray(a.T)",
          "torch": "a.T.contiguous()"},
         lambda d: d["a"].T, target_np=0.3,
         bound="K.tlb_tcopy_f32(a, c, N2, T)",
         bound_out={"c": ((N2, N2), F32)}, bound_result="c"),
    Case("sum_all", "sum of 2^24 f32",
         "Full reduction of 64 MiB (accuracy at least pairwise).",
         lambda rng: {"a": f32(rng, N24)},
         {"tl": "L.sum(a)", "np": "L.sum(a)", "torch": "L.sum(a)"},
         lambda d: d["a"].sum(), requires=has_attr("sum"),
         rtol=1e-4, atol=1e-2, target_np=1.0,
         bound="K.tlb_sum_f32(a, a.size, T)"),
    Case("sum_dim0", "4096x4096 f32 .sum(dim=0)",
         "Reduction over the outer dim: 4096 columns accumulated row by row.",
         lambda rng: {"a": f32(rng, N2, N2)},
         {"tl": "a.sum(dim=0)", "np": "a.sum(axis=0)",
          "torch": "a.sum(dim=0)"},
         lambda d: d["a"].sum(axis=0), requires=has_attr("Tensor.sum"),
         rtol=1e-4, atol=1e-3, target_np=1.0,
         bound="K.tlb_sum0_f32(a, o, N2, N2, T)",
         bound_out={"o": ((N2,), F32)}, bound_result="o"),
    Case("cast_f64", "2^24 f32 -> float64",
         "dtype conversion: 64 MiB read, 128 MiB written (allocating).",
         lambda rng: {"a": f32(rng, N24)},
         {"tl": "a.to(L.float64)", "np": "a.astype(L.float64)",
          "torch": "a.to(L.float64)"},
         lambda d: d["a"], expect_dtype="float64", target_np=0.6,
         bound="K.tlb_cast_f32_f64(a, o, a.size, T)",
         bound_out={"o": ((N24,), np.float64)}, bound_result="o"),
    Case("overlap_iadd", "x += x.flip(0), 2^20 f32",
         "In-place add of a reversed view of itself: tensorlib's flip is a "
         "view, so the iterator must copy the overlapping input first "
         "(NumPy: x += x[::-1], which also copies; torch's flip copies).",
         lambda rng: {"x": f32(rng, 1 << 20)},
         {"tl": "x += x.flip(0)", "np": "x += x[::-1]",
          "torch": "x += x.flip(0)"},
         lambda d: d["x"] + d["x"][::-1], result="x",
         requires=has_attr("Tensor.flip"),
         bound="K.tlb_flip_iadd_f32(x, x.size, T)", bound_result="x"),
]


# ---------------------------------------------------------------------------
# timing


def make_timer(stmt: str, ns: dict):
    """A function inner(n, clock) running stmt n times with every name of
    ns bound as a fast local (as timeit does), returning elapsed ns."""
    names = sorted(ns)
    src = ["def _bench_inner(_n, _clock, _ns, _repeat):"]
    for k in names:
        src.append(f"    {k} = _ns[{k!r}]")
    src.append("    _t0 = _clock()")
    src.append("    for _ in _repeat(None, _n):")
    for line in stmt.splitlines():
        src.append("        " + line)
    src.append("    _t1 = _clock()")
    src.append("    return _t1 - _t0")
    glb: dict = {}
    exec(compile("\n".join(src), f"<bench {stmt!r}>", "exec"), glb)
    fn = glb["_bench_inner"]

    def inner(n: int) -> int:
        return fn(n, time.perf_counter_ns, ns, itertools.repeat)

    return inner


def run_stmt_once(stmt: str, ns: dict, result: Optional[str]):
    """Runs stmt once in ns; returns the expression's value (or `result`'s)."""
    if result is None:
        return eval(compile(stmt, "<check>", "eval"), {}, ns)
    exec(compile(stmt, "<check>", "exec"), {}, ns)
    return eval(result, {}, ns)


def calibrate(inner, min_time_ns: int, max_loops: int = 1 << 24) -> int:
    """Smallest loop count (1, 2, 5, 10, 20, 50, ...) whose time reaches
    min_time_ns, like timeit.Timer.autorange."""
    n = 1
    while True:
        for m in (1, 2, 5):
            loops = n * m
            t = inner(loops)
            if t >= min_time_ns or loops >= max_loops:
                return loops
        n *= 10


_EMPTY_LOOP_NS: Optional[float] = None


def empty_loop_ns() -> float:
    """Per-iteration cost of the timing loop itself (subtracted): the best
    of many short runs, as for the cases."""
    global _EMPTY_LOOP_NS
    if _EMPTY_LOOP_NS is None:
        inner = make_timer("pass", {})
        n = 20_000
        inner(n)
        _EMPTY_LOOP_NS = min(inner(n) for _ in range(200)) / n
    return _EMPTY_LOOP_NS


def fmt_time(ns: Optional[float]) -> str:
    if ns is None:
        return "—"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e9:.3g} s"


# ---------------------------------------------------------------------------
# threads


class Threads:
    """Sets tensorlib's and torch's intra-op thread counts per case."""

    def __init__(self, libs: Dict[str, Lib], run_threads: Optional[int]):
        self.libs = libs
        self.cores = len(os.sched_getaffinity(0)) if hasattr(
            os, "sched_getaffinity") else (os.cpu_count() or 1)
        tl = libs["tl"].mod
        self.tl_default = (tl.get_num_threads()
                           if hasattr(tl, "get_num_threads") else 1)
        self.torch_default = (libs["torch"].mod.get_num_threads()
                              if "torch" in libs else None)
        self.run_threads = run_threads

    def resolve(self, case_threads: Optional[int]) -> Optional[int]:
        """None: library defaults; otherwise a thread count."""
        if case_threads is None:
            return self.run_threads
        if case_threads == -1:
            return self.cores
        return case_threads

    def apply(self, n: Optional[int]) -> None:
        tl_n = self.tl_default if n is None else n
        if hasattr(self.libs["tl"].mod, "set_num_threads"):
            self.libs["tl"].mod.set_num_threads(tl_n)
        if "torch" in self.libs:
            self.libs["torch"].mod.set_num_threads(
                self.torch_default if n is None else n)

    def describe(self, n: Optional[int]) -> str:
        if n is None:
            t = f"tl {self.tl_default}"
            if self.torch_default is not None:
                t += f", torch {self.torch_default}"
            return "default (" + t + ")"
        return str(n)

    def short(self, n: Optional[int]) -> str:
        if n is None:
            n = self.tl_default
        return str(n)


# ---------------------------------------------------------------------------
# running a case


@dataclasses.dataclass
class LibResult:
    status: str                       # "ok", "n/a", "error", "none"
    # (per-call ns of each timed repeat in samples_ns)
    note: str = ""
    loops: int = 0
    samples_ns: List[float] = dataclasses.field(default_factory=list)

    @property
    def best(self) -> Optional[float]:
        return min(self.samples_ns) if self.samples_ns else None

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.samples_ns) if self.samples_ns else None

    @property
    def spread(self) -> Optional[float]:
        """median / min - 1."""
        if not self.samples_ns or self.best <= 0:
            return None
        return self.median / self.best - 1.0


def check_result(case: Case, lib: Lib, value, exp: np.ndarray) -> None:
    got = to_numpy(value)
    if case.expect_dtype is not None and str(got.dtype) != case.expect_dtype:
        raise AssertionError(
            f"{lib.label}: dtype {got.dtype}, expected {case.expect_dtype}")
    if got.shape != exp.shape:
        raise AssertionError(
            f"{lib.label}: shape {got.shape}, expected {exp.shape}")
    if case.check_values:
        np.testing.assert_allclose(
            got.astype(np.float64), exp, rtol=case.rtol, atol=case.atol,
            err_msg=f"{lib.label} computed a wrong result for {case.id}")


def build_ns(case: Case, lib: Lib, data: dict, nthreads: int) -> dict:
    ns = {"L": lib.mod}
    for k, v in data.items():
        ns[k] = lib.convert(v)
    if lib.key == "c":
        ns.update(K=lib.mod, T=nthreads, N2=N2)
        for name, (shape, dt) in case.bound_out.items():
            ns[name] = np.full(shape, 0, dt)  # written: faulted in
    if case.id == "tensor_list_10":
        ns["lst"] = [float(x) for x in data["xs"]]
    if case.id == "numpy_roundtrip":
        ns["xnp"] = data["x"].copy()
    return ns


def run_case(case: Case, libs: Dict[str, Lib], threads: Threads,
             repeats: int, min_time: float, budget: float, verbose: bool,
             min_repeats: int = 5) -> dict:
    out: Dict[str, LibResult] = {}
    nthreads = threads.resolve(case.threads)
    # The C bound runs on as many threads as tensorlib does.
    bound_threads = nthreads if nthreads is not None else threads.tl_default
    tl = libs["tl"].mod
    rng = np.random.default_rng(12345)
    data = case.inputs(rng)
    # The reference, computed once in float64.
    expected = np.asarray(case.expect(
        {k: v.astype(np.float64) for k, v in data.items()}))
    active = []
    threads.apply(nthreads)
    try:
        inners = {}
        for key, lib in libs.items():
            stmt = case.bound if key == "c" else case.stmt.get(key)
            result = case.bound_result if key == "c" else case.result
            if stmt is None:
                out[key] = LibResult("none", "no counterpart")
                continue
            if key == "tl" and case.requires and not case.requires(tl):
                out[key] = LibResult("n/a", "not implemented")
                continue
            try:
                ns = build_ns(case, lib, data, bound_threads)
                # Correctness first, on fresh operands.
                check_result(case, lib, run_stmt_once(stmt, ns, result),
                             expected)
                inner = make_timer(stmt, ns)
                inner(1)  # warm-up (first-touch, caches, lazy init)
                loops = calibrate(inner, int(min_time * 1e9))
                inners[key] = inner
                out[key] = LibResult("ok", loops=loops)
                active.append(key)
            except AssertionError as e:
                lines = [ln.strip() for ln in str(e).splitlines()
                         if ln.strip()]
                out[key] = LibResult("error", "WRONG RESULT: " +
                                     "; ".join(lines[:5])[:300])
                if verbose:
                    traceback.print_exc()
            except Exception as e:  # noqa: BLE001 - reported in the table
                out[key] = LibResult("error", f"{type(e).__name__}: {e}"[:200])
                if verbose:
                    traceback.print_exc()
        loop_ns = empty_loop_ns()
        # As many repeats as the time budget allows (slow cases get fewer,
        # never less than min_repeats): many short repeats make the best
        # one more likely to be a run that was not preempted.
        per_round = 0.0
        for key in active:
            t0 = time.perf_counter()
            inners[key](out[key].loops)
            per_round += time.perf_counter() - t0
        if per_round > 0:
            repeats = max(min(repeats, min_repeats),
                          min(repeats, int(budget / per_round)))
        gc_was = gc.isenabled()
        gc.disable()
        try:
            for r in range(repeats):
                k = r % max(1, len(active))
                for key in active[k:] + active[:k]:
                    res = out[key]
                    t = inners[key](res.loops)
                    res.samples_ns.append(max(t / res.loops - loop_ns, 0.0))
        finally:
            if gc_was:
                gc.enable()
    finally:
        threads.apply(None)
        del data, expected
        gc.collect()
        if hasattr(tl, "empty_cache"):
            tl.empty_cache()
    return {"case": case, "threads": nthreads, "libs": out,
            "repeats": repeats}


# ---------------------------------------------------------------------------
# report


def ratio(a: LibResult, b: Optional[LibResult]) -> Optional[float]:
    if b is None or a.best is None or b.best is None or b.best <= 0:
        return None
    return a.best / b.best


def lib_cell(res: Optional[LibResult]) -> str:
    if res is None:
        return "—"
    if res.status == "ok":
        return fmt_time(res.best)
    if res.status == "n/a":
        return "n/a (not implemented)"
    if res.status == "none":
        return "—"
    return "error"


def verdict(case: Case, r_np, r_torch, tl_res: LibResult):
    """(target text, met text)."""
    parts, met = [], []
    for name, tgt, r in (("np", case.target_np, r_np),
                         ("torch", case.target_torch, r_torch)):
        if tgt is None:
            continue
        parts.append(f"≤ {tgt:g} vs {name}")
        if r is None:
            met.append(None)
        else:
            met.append((name, r <= tgt))
    if not parts:
        return "—", "—"
    if tl_res.status == "n/a":
        return ", ".join(parts), "n/a"
    if tl_res.status == "error":
        return ", ".join(parts), "error"
    known = [m for m in met if m is not None]
    if not known:
        return ", ".join(parts), "?"
    missed = [n for n, ok in known if not ok]
    if not missed:
        return ", ".join(parts), "yes"
    if len(known) == 1:
        return ", ".join(parts), "**NO**"
    return ", ".join(parts), "**NO** (" + ", ".join(missed) + ")"


def fmt_ratio(r: Optional[float]) -> str:
    return "—" if r is None else f"{r:.2f}"


NOISY = 0.10  # median more than 10% above the minimum


def table_rows(results: List[dict], libs: Dict[str, Lib],
               threads: Threads) -> List[List[str]]:
    rows = []
    for res in results:
        case: Case = res["case"]
        L = res["libs"]
        tlr = L["tl"]
        r_np = ratio(tlr, L.get("np"))
        r_torch = ratio(tlr, L.get("torch"))
        tgt, met = verdict(case, r_np, r_torch, tlr)
        spreads = [x.spread for x in L.values() if x.spread is not None]
        noisy = max(spreads) if spreads else None
        noise = "—" if noisy is None else f"{100 * noisy:.0f}%"
        if noisy is not None and noisy > NOISY:
            noise += " ⚠"
        r_bound = ratio(tlr, L.get("c"))
        rows.append([case.title, threads.short(res["threads"]),
                     lib_cell(tlr), lib_cell(L.get("np")),
                     lib_cell(L.get("torch")) if "torch" in libs else "—",
                     lib_cell(L.get("c")),
                     fmt_ratio(r_np), fmt_ratio(r_torch), tgt, met,
                     fmt_ratio(r_bound), noise])
    return rows


HEADER = ["case", "threads", "tensorlib", "NumPy", "torch", "C bound",
          "tl/np", "tl/torch", "target", "met", "tl/bound", "spread"]


def markdown_table(rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |",
             "|" + "|".join("---" for _ in HEADER) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r)
                     + " |")
    return "\n".join(lines)


def text_table(rows: List[List[str]]) -> str:
    w = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
         for i, h in enumerate(HEADER)]
    out = ["  ".join(h.ljust(w[i]) for i, h in enumerate(HEADER)),
           "  ".join("-" * w[i] for i in range(len(HEADER)))]
    for r in rows:
        out.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def cpu_model() -> str:
    """Model name from /proc/cpuinfo, with family/model/stepping (a VM may
    hide the name) and the cache sizes the kernel reports."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    info.setdefault(k.strip(), v.strip())
                elif info:
                    break  # first processor only
    except OSError:
        pass
    name = info.get("model name") or platform.processor() or "unknown"
    if "cpu family" in info:
        name += (f" (family {info['cpu family']}, model "
                 f"{info.get('model', '?')}, stepping "
                 f"{info.get('stepping', '?')})")
    caches = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for idx in sorted(os.listdir(base)):
            d = os.path.join(base, idx)
            with open(os.path.join(d, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(d, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(d, "size")) as f:
                size = f.read().strip()
            if kind != "Instruction":
                caches.append(f"L{level} {size}")
    except OSError:
        pass
    if caches:
        name += ", " + " / ".join(caches)
    return name


def loadavg() -> Optional[str]:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def environment(libs: Dict[str, Lib], threads: Threads, args) -> dict:
    tl = libs["tl"].mod
    env = {
        "date": datetime.datetime.now().astimezone().isoformat(
            timespec="seconds"),
        "cpu": cpu_model(),
        "cores_online": os.cpu_count(),
        "cores_usable": threads.cores,
        "machine": platform.machine(),
        "kernel": platform.release(),
        "python": sys.version.split()[0] + " (" +
        platform.python_implementation() + ")",
        "numpy": np.__version__,
        "tensorlib": getattr(tl, "__version__", "?"),
        "tensorlib_module": getattr(getattr(tl, "_C", None), "__file__", "?"),
        "tensorlib_threads_default": threads.tl_default,
        "torch": libs["torch"].mod.__version__ if "torch" in libs
        else "not importable",
        "torch_threads_default": threads.torch_default,
        "run_threads": threads.describe(threads.run_threads),
        "repeats": args.repeats,
        "budget_s": args.budget,
        "min_time_s": args.min_time,
        "empty_loop_ns": round(empty_loop_ns(), 2),
        "env_vars": {k: os.environ[k] for k in sorted(os.environ)
                     if k.startswith(("OMP_", "MKL_", "OPENBLAS_",
                                      "NUMPY_", "TENSORLIB_"))},
    }
    try:
        from numpy._core import _multiarray_umath as mu  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core import _multiarray_umath as mu
    feats = getattr(mu, "__cpu_features__", {})
    disp = getattr(mu, "__cpu_dispatch__", [])
    env["numpy_simd"] = "baseline " + ",".join(
        getattr(mu, "__cpu_baseline__", [])) + "; dispatch available " + \
        ",".join(d for d in disp if feats.get(d))
    return env


def write_results(path: str, env: dict, rows, results, args) -> None:
    env_lines = [
        f"- Date: {env['date']}",
        f"- CPU: {env['cpu']} ({env['machine']}), "
        f"{env['cores_usable']} usable cores of {env['cores_online']}; "
        f"kernel {env['kernel']}",
        f"- Load average before / after: {env.get('load_before')} / "
        f"{env.get('load_after')}",
        f"- Python {env['python']}; NumPy {env['numpy']} "
        f"({env['numpy_simd']}); torch {env['torch']}; "
        f"tensorlib {env['tensorlib']} (`{env['tensorlib_module']}`)",
        "- Threads: the `threads` column is the count given to "
        "tensorlib.set_num_threads and torch.set_num_threads for the case "
        "(and to the C bound); cases that do not fix one ran with "
        f"{env['run_threads']}. NumPy's elementwise loops and reductions "
        "are single-threaded.",
        "- Thread-related environment: "
        + (", ".join(f"{k}={v}" for k, v in env["env_vars"].items())
           or "none set"),
        f"- Method: up to {env['repeats']} repeats per library (at least 5; "
        f"fewer for slow cases, {env['budget_s']} s per case), interleaved "
        f"and rotating the order; each repeat ≥ {env['min_time_s']} s of "
        f"calls; time = best repeat, per call, minus the "
        f"{env['empty_loop_ns']} ns of the empty loop. "
        f"`spread` = median/best − 1 over the repeats (⚠ above "
        f"{int(NOISY * 100)}%: the machine was busy).",
        f"- C bound: {env['bound']}; outputs pre-allocated and faulted "
        f"in, so for allocating cases it is the op with a free allocator.",
        f"- Command: `{env['command']}`",
    ]
    notes = []
    for res in results:
        for key, r in res["libs"].items():
            if r.status == "error":
                notes.append(f"- {res['case'].id} / {key}: {r.note}")
    body = ["# Benchmark results", "",
            "Generated by `python benchmarks/run.py` (overwritten on each "
            "run). Ratios are tensorlib time / other time (lower is better "
            "for tensorlib); targets come from issue 3, \"Speed\". What "
            "bounds each case whose target is missed: "
            "[README.md](README.md#what-bounds-each-case).", "",
            *env_lines, "", markdown_table(rows), ""]
    if notes:
        body += ["Errors:", "", *notes, ""]
    # Keep what follows this table in the previous file: bench_small.py's
    # section (from its marker on), the issues' notes and bench_reduce.py's
    # tables, which --reduce appends again (so its old copy goes).
    try:
        with open(path, encoding="utf-8") as f:
            prev = f.read()
        b = "<!-- small-ops:begin -->"
        if b in prev:
            tail = b + prev.split(b, 1)[1]
            red = "## Reductions and sizes (benchmarks/bench_reduce.py)"
            if args.reduce and red in tail:
                tail = tail.split(red, 1)[0]
            body += ["", tail.rstrip("\n"), ""]
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(body))


def to_json(env, results) -> dict:
    cases = []
    for res in results:
        c: Case = res["case"]
        entry = {"id": c.id, "title": c.title, "threads": res["threads"],
                 "repeats": res["repeats"],
                 "target_np": c.target_np, "target_torch": c.target_torch,
                 "libs": {}}
        for key, r in res["libs"].items():
            entry["libs"][key] = {
                "status": r.status, "note": r.note, "loops": r.loops,
                "best_ns": r.best, "median_ns": r.median,
                "samples_ns": r.samples_ns}
        tlr = res["libs"]["tl"]
        entry["ratio_np"] = ratio(tlr, res["libs"].get("np"))
        entry["ratio_torch"] = ratio(tlr, res["libs"].get("torch"))
        entry["ratio_bound"] = ratio(tlr, res["libs"].get("c"))
        cases.append(entry)
    return {"environment": env, "cases": cases}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", "--cases", default="",
                   help="comma-separated substrings of case ids to run")
    p.add_argument("--repeats", type=int, default=30,
                   help="most timed repeats per library (default 30)")
    p.add_argument("--min-time", type=float, default=0.002,
                   help="seconds one repeat lasts at least (default 0.002: "
                        "short repeats are seldom preempted)")
    p.add_argument("--budget", type=float, default=6.0,
                   help="seconds of timed repeats per case, all libraries "
                        "together; slow cases get fewer repeats, at least 5 "
                        "(default 6)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 5 repeats, 1 s budget per case")
    p.add_argument("--threads", type=int, default=None,
                   help="thread count for tensorlib and torch in the cases "
                        "that do not fix one (default: library defaults)")
    p.add_argument("--no-torch", action="store_true",
                   help="leave PyTorch out even when importable")
    p.add_argument("--no-bound", action="store_true",
                   help="leave out the plain-C bound column "
                        "(benchmarks/bounds/kernels.c, compiled with gcc)")
    p.add_argument("--json", metavar="PATH",
                   help="also write every sample and the environment as JSON")
    p.add_argument("--results", metavar="PATH", default=None,
                   help="markdown output (default benchmarks/RESULTS.md, "
                        "none with --quick); '-' to write none")
    p.add_argument("--list", action="store_true",
                   help="list the cases and exit")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print tracebacks of failing cases")
    p.add_argument("--reduce", action="store_true",
                   help="also run benchmarks/bench_reduce.py (size sweep and "
                        "reductions table) and append its tables to the "
                        "results file")
    args = p.parse_args(argv)
    if args.results is None:
        # a smoke run does not replace the recorded results
        args.results = "-" if args.quick else os.path.join(HERE,
                                                           "RESULTS.md")
    if args.quick:
        args.repeats, args.budget = 5, 1.0
    if args.quick and not args.list:
        # Issue 22: the small-op table first (well under a minute), so a
        # quick check of any change shows per-call overhead.
        sys.path.insert(0, HERE)
        import bench_small
        bench_small.main(["--quick"] + (["-k", args.cases] if args.cases
                                        else []))

    if args.list:
        for c in CASES:
            print(f"{c.id:18s} {c.title}\n{'':18s} {c.what}")
        return 0

    sel = [s.strip() for s in args.cases.split(",") if s.strip()]
    cases = [c for c in CASES if not sel or any(s in c.id for s in sel)]
    if not cases:
        print("no case matches", args.cases, file=sys.stderr)
        return 2

    libs = load_libs(not args.no_torch)
    bound_note = "left out (--no-bound)"
    if not args.no_bound:
        blib, bound_note = load_bounds()
        if blib is not None:
            libs["c"] = blib
            bound_note = ("benchmarks/bounds/kernels.c, gcc -O3 "
                          "-march=native, on tensorlib's thread count")
        else:
            print("note: " + bound_note, file=sys.stderr)
    threads = Threads(libs, args.threads)
    env = environment(libs, threads, args)
    env["command"] = "python " + " ".join(
        [os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else
         "benchmarks/run.py"] + (argv if argv is not None else sys.argv[1:]))
    env["load_before"] = loadavg()
    env["bound"] = bound_note
    print(f"# {env['cpu']}, {threads.cores} cores; Python {env['python']}; "
          f"NumPy {env['numpy']}; torch {env['torch']}; tensorlib "
          f"{env['tensorlib']}; load {env['load_before']}", flush=True)

    results = []
    t_start = time.time()
    for c in cases:
        t0 = time.time()
        res = run_case(c, libs, threads, args.repeats, args.min_time,
                       args.budget, args.verbose)
        results.append(res)
        row = table_rows([res], libs, threads)[0]
        print(f"  {c.id:18s} tl {row[2]:>9s}  np {row[3]:>9s}  "
              f"torch {row[4]:>9s}  C {row[5]:>9s}  tl/np {row[6]:>5s}  "
              f"tl/torch {row[7]:>5s}  met {row[9]:>6s}  tl/bound "
              f"{row[10]:>5s}  ({time.time() - t0:.1f} s)", flush=True)
    env["load_after"] = loadavg()
    env["wall_s"] = round(time.time() - t_start, 1)

    rows = table_rows(results, libs, threads)
    print()
    print(text_table(rows))
    for res in results:
        for key, r in res["libs"].items():
            if r.status == "error":
                print(f"error: {res['case'].id} / {key}: {r.note}")
    if args.results != "-":
        write_results(args.results, env, rows, results, args)
        print(f"\nwrote {os.path.relpath(args.results)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(to_json(env, results), f, indent=1)
        print(f"wrote {os.path.relpath(args.json)}")
    if args.reduce:
        sys.path.insert(0, HERE)
        import bench_reduce
        md = bench_reduce.main(["--quick"] if args.quick else [])
        if args.results != "-":
            with open(args.results, "a", encoding="utf-8") as f:
                f.write("\n" + md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
