"""Reductions and elementwise ops across sizes, side by side with NumPy and
PyTorch in one process (issue 19).

Two tables:
  * a size sweep: 10^2 ... 10^7 (powers of 10) and 2^22, 2^24 float32
    elements, one thread and all threads, for a + b (allocating and out=),
    a * 2.0, a cast (float32 -> float64), a comparison (a < b), exp and sin
    (costlier per element: a smaller threading grain), sum, amax, argmax,
    mean and var;
  * a reductions table: every reduction over the whole tensor and per dim
    (innermost, outermost and middle, and short innermost rows of 16 and
    60) for float32, float64 and int32 (bool for any/all), one thread
    (--red-threads K: K threads).

    python benchmarks/bench_reduce.py            # full run (minutes)
    python benchmarks/bench_reduce.py --quick    # fewer sizes and repeats
    python benchmarks/bench_reduce.py --markdown PATH   # also write tables
    python benchmarks/run.py --reduce            # run.py appends these
                                                 # tables to RESULTS.md

Timing: each case runs the libraries interleaved, repeat by repeat, with
the order rotating, each repeat a loop calibrated to last at least
--min-time seconds; the reported time is the best repeat per call (noise
only adds time).  Every result is checked against NumPy's before timing.
Warm calls: every timed loop follows one untimed call of the same
library.  The three libraries' copies of a 16 MB array do not all fit in
the 32 MB L3, so a library's first call after the others ran reads from
memory; a library slow enough that its loop is a single call was timed
cold every repeat while a faster one spread that cost over several calls
(the middle-dim float32 sum read 2.4-2.75 ms that way and 0.8-1.1 ms
warm).  Now each library is timed as a loop of the same op sees it.
Runs (--runs K): the whole table K times, each on freshly made arrays, and
per case each library's best over all of them.  On the shared 2-vCPU VMs
here a case's time moves by 1.5-2x between runs of the same build -- how
much of a 16 MB array an L3 shared with other tenants keeps, and whether
an array's pages are huge pages, change from run to run and from array to
array -- and a fresh array per run lets every library meet its good
case.
Shared input (--shared-input, reductions table only): the three libraries
read the same buffer, so where its pages sit (huge pages or not, which L3
sets) is the same for all; on two threads at 16-32 MB a copy each moved
rows by 10-40% between runs.
Ratios: tensorlib time / other time (below 1.0: tensorlib faster); `best`
is tensorlib over the faster of the two peers (the issue's target: <= 1.0).
NumPy is single-threaded: its "all threads" time is its one-thread time,
except its BLAS calls (vector_norm's dot): OpenBLAS takes the table's
thread count (OPENBLAS_NUM_THREADS, set from --red-threads before NumPy
loads unless the environment sets it), where it had taken every core in
the one-thread table.
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def _red_threads(argv):
    """--red-threads's value in argv (as a string; "1" when absent)."""
    for i, a in enumerate(argv):
        if a == "--red-threads" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--red-threads="):
            return a.split("=", 1)[1]
    return "1"


if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", _red_threads(sys.argv))

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tensorlib as tl  # noqa: E402

try:
    import torch
except Exception:  # noqa: BLE001 - any import failure: no torch
    torch = None
try:
    from scipy.special import logsumexp as sp_logsumexp
except Exception:  # noqa: BLE001
    sp_logsumexp = None

LIBS = ("tl", "np", "torch")


def set_threads(k):
    tl.set_num_threads(k)
    if torch is not None:
        torch.set_num_threads(k)


def calibrate(fn, min_time):
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or n >= 1 << 20:
            return n
        n *= 2 if dt <= 0 else max(2, min(16, int(min_time / dt) + 1))


def time_case(fns, repeats, min_time):
    """fns: {lib: callable or None}.  Returns {lib: best seconds/call}."""
    live = {k: f for k, f in fns.items() if f is not None}
    loops = {k: calibrate(f, min_time) for k, f in live.items()}
    best = {k: float("inf") for k in live}
    keys = list(live)
    for r in range(repeats):
        order = keys[r % len(keys):] + keys[:r % len(keys)]
        for k in order:
            f, n = live[k], loops[k]
            f()  # warm: see "Warm calls" in the module docstring
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[k] = min(best[k], (time.perf_counter() - t0) / n)
    return best


def to_np(x):
    if torch is not None and isinstance(x, torch.Tensor):
        return x.numpy()
    if isinstance(x, tl.Tensor):
        return x.numpy()
    if isinstance(x, tuple):
        return tuple(to_np(v) for v in x)
    return np.asarray(x)


def check(fns, ref):
    """Every library's result against ref (NumPy's, or None to skip)."""
    if ref is None:
        return
    want = to_np(ref)
    for k, f in fns.items():
        if f is None or k == "np":
            continue
        got = to_np(f())
        if isinstance(want, tuple):
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g, np.float64),
                                           np.asarray(w, np.float64),
                                           rtol=1e-4, atol=1e-4)
        else:
            np.testing.assert_allclose(np.asarray(got, np.float64),
                                       np.asarray(want, np.float64),
                                       rtol=1e-4, atol=1e-4)


def fmt_t(s):
    if s == float("inf") or s is None:
        return "—"
    for unit, f in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if s * f >= 1:
            return f"{s * f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_r(a, b):
    if a is None or b is None or b == float("inf") or a == float("inf"):
        return "—"
    return f"{a / b:.2f}"


# ---- size sweep ----------------------------------------------------------

def sweep_cases(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    A, B = tl.from_numpy(a.copy()), tl.from_numpy(b.copy())
    C = tl.empty(n)
    c = np.empty_like(a)
    cases = {}
    if torch is not None:
        ta, tb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
        tc = torch.empty(n)
    else:
        ta = tb = tc = None

    def T(f):
        return f if torch is not None else None

    cases["a + b"] = dict(tl=lambda: A + B, np=lambda: a + b,
                          torch=T(lambda: ta + tb))
    cases["add out="] = dict(tl=lambda: tl.add(A, B, out=C),
                             np=lambda: np.add(a, b, out=c),
                             torch=T(lambda: torch.add(ta, tb, out=tc)))
    cases["a * 2.0"] = dict(tl=lambda: A * 2.0, np=lambda: a * np.float32(2),
                            torch=T(lambda: ta * 2.0))
    cases["f32->f64"] = dict(tl=lambda: A.to(tl.float64),
                             np=lambda: a.astype(np.float64),
                             torch=T(lambda: ta.to(torch.float64)))
    cases["a < b"] = dict(tl=lambda: A < B, np=lambda: a < b,
                          torch=T(lambda: ta < tb))
    # two costlier families, whose threading grain is smaller (Note [Grain
    # per op] in csrc/core/ops.c)
    cases["exp"] = dict(tl=lambda: A.exp(), np=lambda: np.exp(a),
                        torch=T(lambda: ta.exp()))
    cases["sin"] = dict(tl=lambda: A.sin(), np=lambda: np.sin(a),
                        torch=T(lambda: ta.sin()))
    cases["sum"] = dict(tl=lambda: A.sum(), np=lambda: a.sum(),
                        torch=T(lambda: ta.sum()))
    cases["amax"] = dict(tl=lambda: tl.amax(A), np=lambda: a.max(),
                         torch=T(lambda: torch.amax(ta)))
    cases["argmax"] = dict(tl=lambda: A.argmax(), np=lambda: a.argmax(),
                           torch=T(lambda: ta.argmax()))
    cases["mean"] = dict(tl=lambda: A.mean(), np=lambda: a.mean(),
                         torch=T(lambda: ta.mean()))
    cases["var"] = dict(tl=lambda: A.var(), np=lambda: a.var(ddof=1),
                        torch=T(lambda: ta.var()))
    return cases


def run_sweep(sizes, thread_counts, repeats, min_time, ops=None):
    rows = []
    for n in sizes:
        cases = sweep_cases(n)
        for name, fns in cases.items():
            if ops and name not in ops:
                continue
            check(fns, fns["np"]())
            for k in thread_counts:
                set_threads(k)
                best = time_case(fns, repeats, min_time)
                rows.append((name, n, k, best))
                print_row(f"{name}, n={n}", k, best)
    return rows


def print_row(label, k, best):
    t, n_, p = (best.get(x) for x in LIBS)
    peer = min(v for v in (n_, p) if v is not None)
    print(f"  {label:34s} thr {k}  tl {fmt_t(t):>9s}  np {fmt_t(n_):>9s}  "
          f"torch {fmt_t(p):>9s}  tl/np {fmt_r(t, n_):>5s}  "
          f"tl/torch {fmt_r(t, p):>5s}  tl/best {fmt_r(t, peer):>5s}"
          + (f"  C {fmt_t(best['c']):>9s}  tl/bound "
             f"{fmt_r(t, best['c']):>5s}" if best.get("c") else ""),
          flush=True)


# ---- reductions table ----------------------------------------------------

RED_OPS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax",
           "argmin", "var", "std", "any", "all", "count_nonzero", "nansum",
           "logsumexp", "nanmean", "vector_norm", "aminmax"]


def red_fns(op, x, X, TX, dim):
    """(tl, np, torch) callables of op over dim (None: whole tensor)."""
    ax = dim
    if op in ("max", "min"):
        if dim is None:
            return (lambda: getattr(X, op)(), lambda: getattr(x, op)(),
                    TX is not None and (lambda: getattr(TX, op)()))
        return (lambda: getattr(tl, op)(X, dim=dim),
                lambda: (getattr(x, op)(axis=ax),
                         getattr(x, "arg" + op)(axis=ax)),
                TX is not None and (lambda: getattr(torch, op)(TX, dim=dim)))
    if op in ("var", "std"):
        kw = {} if dim is None else {"dim": dim}
        return (lambda: getattr(X, op)(**kw),
                lambda: getattr(x, op)(axis=ax, ddof=1),
                TX is not None and (lambda: getattr(TX, op)(**kw)))
    if op == "logsumexp":
        d = tuple(range(x.ndim)) if dim is None else dim
        return (lambda: tl.logsumexp(X, dim=d),
                sp_logsumexp and (lambda: sp_logsumexp(x, axis=ax)),
                TX is not None and (lambda: torch.logsumexp(TX, dim=d)))
    if op == "vector_norm":  # the 2-norm; NumPy's np.linalg.norm
        kw = {} if dim is None else {"dim": dim}
        return (lambda: tl.linalg.vector_norm(X, **kw),
                lambda: np.linalg.norm(x, axis=ax),
                TX is not None and (
                    lambda: torch.linalg.vector_norm(TX, **kw)))
    if op == "aminmax":  # NumPy has no one-pass form: its min and max
        kw = {} if dim is None else {"dim": dim}
        return (lambda: tuple(tl.aminmax(X, **kw)),
                lambda: (np.min(x, axis=ax), np.max(x, axis=ax)),
                TX is not None and (lambda: tuple(torch.aminmax(TX, **kw))))
    if op == "count_nonzero":
        kw = {} if dim is None else {"dim": dim}
        return (lambda: tl.count_nonzero(X, **kw),
                lambda: np.count_nonzero(x, axis=ax),
                TX is not None and (lambda: torch.count_nonzero(TX, **kw)))
    npop = {"amax": "max", "amin": "min"}.get(op, op)
    kw = {} if dim is None else {"dim": dim}
    return (lambda: getattr(tl, op)(X, **kw),
            lambda: getattr(np, npop)(x, axis=ax),
            TX is not None and (lambda: getattr(torch, op)(TX, **kw)))


# The plain-C bound of a reductions row (tlb_reduce in bounds/kernels.c):
# the op family it times, by the table's op, and the dtype codes.
BOUND_OP = {"sum": 0, "mean": 0, "nansum": 0, "nanmean": 0, "prod": 1,
            "amax": 2,
            "max": 2, "argmax": 2, "any": 2, "amin": 3, "min": 3,
            "argmin": 3, "all": 3, "count_nonzero": 4, "var": 5, "std": 5,
            "vector_norm": 6}
BOUND_DTYPE = {np.dtype(np.float32): 0, np.dtype(np.float64): 1,
               np.dtype(np.int32): 2, np.dtype(np.bool_): 3}
_BOUNDS = []


def bounds_lib():
    """benchmarks/run.py's compiled bound kernels (None if no compiler)."""
    if not _BOUNDS:
        import run as runner  # benchmarks/run.py: builds libtlbounds.so
        lib, note = runner.load_bounds()
        if lib is None:
            print(f"  (no C bound: {note})", flush=True)
        _BOUNDS.append(lib.mod if lib is not None else None)
    return _BOUNDS[0]


def bound_fn(op, x, dim, nthreads):
    """A callable running the plain-C bound of op over dim of x (the
    buffer tensorlib reads), or None where there is none (logsumexp is
    bound by exp, not by reading); checked against NumPy first."""
    K = bounds_lib()
    if K is None or op not in BOUND_OP or x.dtype not in BOUND_DTYPE \
            or not x.flags.c_contiguous:
        return None
    shape = x.shape
    if dim is None:
        oshape = (1, x.size, 1)
    else:
        oshape = (int(np.prod(shape[:dim])), shape[dim],
                  int(np.prod(shape[dim + 1:])))
    out = np.empty(oshape[0] * oshape[2])
    means = np.empty_like(out)
    code, dt = BOUND_OP[op], BOUND_DTYPE[x.dtype]
    ptr, mptr = x.ctypes.data, means.ctypes.data

    def f(x=x, means=means):  # holds the buffers behind the two pointers
        return K.tlb_reduce(ptr, dt, code, *oshape, out, mptr, nthreads)

    if f() != 0:
        return None
    npf = {0: np.sum, 1: np.prod, 2: np.max, 3: np.min,
           4: np.count_nonzero, 5: np.var,
           6: lambda a, axis: np.sum(a * a, axis=axis)}[code]
    ref = npf(x.reshape(oshape).astype(np.float64), axis=1).ravel()
    if not np.allclose(out, ref, rtol=1e-3, atol=1e-3 * max(
            1.0, float(np.abs(ref).max(initial=0)))):
        print(f"  C bound of {op} {x.dtype} {shape}, {dim} disagrees with "
              f"NumPy: left out", flush=True)
        return None
    return f


def red_layouts(quick):
    n = 1 << (20 if quick else 22)
    side = 1 << (10 if quick else 11)
    mid = (64, 256, 64) if quick else (128, 256, 128)
    # short innermost rows: each row's own cost (a kernel call, the lanes'
    # fold, the finish) next to its reads (Note [Row runs])
    return [("whole 1-d", (n,), None), ("innermost", (side, side), 1),
            ("outermost", (side, side), 0), ("middle", mid, 1),
            ("rows of 16", (n // 16, 16), 1), ("rows of 60", (n // 60, 60), 1)]


def red_cases(ops, fam):
    """(op, variant) pairs of the table for one dtype family: any/all run
    once per bool variant (on the float32 pass), mean/var/std/logsumexp/
    nansum/nanmean/vector_norm skip int32."""
    for op in RED_OPS:
        if ops and op not in ops:
            continue
        if op in ("any", "all"):
            if fam == "float32":
                yield op, None
                yield op, "full"
            continue
        if fam == "int32" and op in ("mean", "var", "std", "logsumexp",
                                     "nansum", "nanmean", "vector_norm"):
            continue
        yield op, None


def run_reductions(quick, repeats, min_time, ops=None, nthreads=1,
                   shared=False, bound=True, layouts=None):
    """shared: the three libraries read one buffer (NumPy's) instead of
    a copy each (see 'Shared input' in the module docstring); bound: time
    the plain-C bound too (bound_fn), on tensorlib's buffer; layouts: the
    names of red_layouts to run (default all)."""
    own = (lambda a: a) if shared else (lambda a: a.copy())
    rows = []
    set_threads(nthreads)
    rng = np.random.default_rng(0)
    for layout, shape, dim in red_layouts(quick):
        if layouts and layout not in layouts:
            continue
        base = rng.standard_normal(shape)
        for fam in ("float32", "float64", "int32"):
            if fam == "int32":
                x = rng.integers(-1000, 1000, shape).astype(np.int32)
            else:
                x = base.astype(fam)
            X = tl.from_numpy(own(x))
            TX = torch.from_numpy(own(x)) if torch is not None else None
            for op, variant in red_cases(ops, fam):
                if op in ("any", "all"):
                    # random bools decide at once; "bool, full": every
                    # element is read (any of all-false, all of all-true)
                    xb = x > 0 if variant is None else \
                        np.full(shape, op == "all")
                    Xb = tl.from_numpy(own(xb))
                    TXb = torch.from_numpy(own(xb)) if TX is not None \
                        else None
                    f_tl, f_np, f_t = red_fns(op, xb, Xb, TXb, dim)
                    famname = "bool" if variant is None else "bool, full"
                    tl_in = Xb
                else:
                    f_tl, f_np, f_t = red_fns(op, x, X, TX, dim)
                    famname = fam
                    tl_in = X
                if op == "prod":
                    # values near 1 so the product stays finite
                    xp = (1 + 1e-3 * base).astype(x.dtype) \
                        if fam != "int32" else np.ones(shape, np.int32)
                    Xp = tl.from_numpy(own(xp))
                    TXp = torch.from_numpy(own(xp)) if TX is not None \
                        else None
                    f_tl, f_np, f_t = red_fns(op, xp, Xp, TXp, dim)
                    tl_in = Xp
                fns = {"tl": f_tl, "np": f_np or None, "torch": f_t or None}
                try:
                    check(fns, fns["np"]() if fns["np"] else None)
                except AssertionError as e:
                    print(f"  MISMATCH {op} {famname} {layout}: {e}")
                    continue
                if bound:
                    # the bound reads the buffer tensorlib reads
                    fns["c"] = bound_fn(op, tl_in.numpy(), dim, nthreads)
                best = time_case(fns, repeats, min_time)
                rows.append((op, famname, layout, shape, dim, best))
                print_row(f"{op} {famname} {layout}", nthreads, best)
    return rows


def merge_best(old, new):
    """Rows of two runs of one table, case by case (the last field is the
    {lib: seconds} dict): each library's faster time."""
    if not old:
        return new
    out = []
    for a, b in zip(old, new):
        assert a[:-1] == b[:-1], (a[:-1], b[:-1])
        best = {k: min(a[-1].get(k, float("inf")), v)
                for k, v in b[-1].items()}
        out.append(tuple(a[:-1]) + (best,))
    return out


# ---- markdown ------------------------------------------------------------

def md_sweep(rows):
    out = ["| op | n | threads | tensorlib | NumPy | torch | tl/np | "
           "tl/torch | tl/best |", "|---|---|---|---|---|---|---|---|---|"]
    for name, n, k, best in rows:
        t, a, b = best.get("tl"), best.get("np"), best.get("torch")
        peer = min(v for v in (a, b) if v is not None)
        out.append(f"| {name} | {n} | {k} | {fmt_t(t)} | {fmt_t(a)} | "
                   f"{fmt_t(b)} | {fmt_r(t, a)} | {fmt_r(t, b)} | "
                   f"{fmt_r(t, peer)} |")
    return "\n".join(out)


def md_red(rows):
    out = ["| op | dtype | layout | shape, dim | tensorlib | NumPy | torch "
           "| C bound | tl/np | tl/torch | tl/best | tl/bound |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for op, fam, layout, shape, dim, best in rows:
        t, a, b = best.get("tl"), best.get("np"), best.get("torch")
        c = best.get("c")
        peers = [v for v in (a, b) if v is not None]
        peer = min(peers) if peers else None
        out.append(f"| {op} | {fam} | {layout} | {shape}, {dim} | "
                   f"{fmt_t(t)} | {fmt_t(a)} | {fmt_t(b)} | {fmt_t(c)} | "
                   f"{fmt_r(t, a)} | {fmt_r(t, b)} | {fmt_r(t, peer)} | "
                   f"{fmt_r(t, c)} |")
    return "\n".join(out)


def markdown(sweep, red, args):
    cores = os.cpu_count()
    load = open("/proc/loadavg").read().split()[:3] \
        if os.path.exists("/proc/loadavg") else ["?"]
    red_flag = (f" --red-threads {args.red_threads}"
                if args.red_threads != 1 else "")
    if args.shared_input:
        red_flag += " --shared-input"
    head = [
        "## Reductions and sizes (benchmarks/bench_reduce.py)", "",
        f"- Command: `python benchmarks/bench_reduce.py"
        f"{' --quick' if args.quick else ''}"
        f"{f' --runs {args.runs}' if args.runs > 1 else ''}"
        f"{red_flag}`; "
        f"{args.repeats} interleaved repeats"
        f"{f' in each of {args.runs} runs on fresh arrays' if args.runs > 1 else ''}"
        f", best of, each at least {args.min_time} s; load average "
        f"at the end {' '.join(load)} on {cores} cores.",
        f"- NumPy {np.__version__}; torch "
        f"{torch.__version__ if torch is not None else 'absent'}; "
        f"logsumexp's NumPy column is scipy.special.logsumexp.",
        "- tl/best: tensorlib over the faster of NumPy and torch "
        "(target: at most 1.0).", ""]
    parts = head
    if sweep:
        parts += ["### Size sweep (float32)", "", md_sweep(sweep), ""]
    if red:
        k = args.red_threads
        what = "one thread" if k == 1 else f"{k} threads"
        parts += [f"### Reductions ({what})", "", md_red(red), ""]
    return "\n".join(parts)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="sizes up to 10^6 and 2^22, 3 repeats, smaller "
                        "reduction shapes")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--min-time", type=float, default=0.002)
    p.add_argument("--only", choices=("sweep", "reductions"), default=None)
    p.add_argument("--ops", default="",
                   help="comma-separated op names to run (default all)")
    p.add_argument("--runs", type=int, default=1,
                   help="run the whole table this many times, on fresh "
                        "arrays, and keep each library's best per case "
                        "(see 'Runs' in the module docstring)")
    p.add_argument("--red-threads", type=int, default=1, metavar="K",
                   help="threads for the reductions table (default 1; "
                        "NumPy is single-threaded at any K)")
    p.add_argument("--shared-input", action="store_true",
                   help="reductions table: every library reads NumPy's "
                        "buffer instead of its own copy")
    p.add_argument("--no-bound", action="store_true",
                   help="reductions table: leave out the plain-C bound "
                        "column (bounds/kernels.c tlb_reduce)")
    p.add_argument("--layouts", default="",
                   help="reductions table: comma-separated layout names "
                        "to run (default all: 'whole 1-d', innermost, "
                        "outermost, middle, 'rows of 16', 'rows of 60')")
    p.add_argument("--markdown", metavar="PATH",
                   help="write the tables as markdown to PATH ('-': stdout)")
    args = p.parse_args(argv)
    if args.repeats is None:
        args.repeats = 3 if args.quick else 7
    ops = [s for s in args.ops.split(",") if s]
    cores = os.cpu_count() or 1
    threads = sorted({1, cores})
    if args.quick:
        sizes = [10 ** 2, 10 ** 4, 10 ** 6, 1 << 22]
    else:
        sizes = [10 ** k for k in range(2, 8)] + [1 << 22, 1 << 24]
    old = tl.get_num_threads()
    sweep = red = []
    try:
        for run in range(max(1, args.runs)):
            if args.only in (None, "sweep"):
                print(f"# size sweep, run {run + 1}", flush=True)
                sweep = merge_best(sweep, run_sweep(
                    sizes, threads, args.repeats, args.min_time, ops))
            if args.only in (None, "reductions"):
                print(f"# reductions, run {run + 1}", flush=True)
                red = merge_best(red, run_reductions(
                    args.quick, args.repeats, args.min_time, ops,
                    args.red_threads, args.shared_input,
                    not args.no_bound,
                    [s for s in args.layouts.split(",") if s]))
    finally:
        tl.set_num_threads(old)
    md = markdown(sweep, red, args)
    if args.markdown == "-":
        print(md)
    elif args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(md + "\n")
        print(f"wrote {args.markdown}")
    return md


if __name__ == "__main__":
    main()
