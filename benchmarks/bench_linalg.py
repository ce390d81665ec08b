"""Linear algebra, side by side: tensorlib vs NumPy vs PyTorch in one
process, with one fixed thread count for all three (OpenBLAS's, NumPy's
and torch's), against the targets of issue 15.

    python benchmarks/bench_linalg.py [--threads N] [--quick] [-k matmul]

Prints a markdown table: the best time per call of each library (minimum
over interleaved repeats: noise only adds time), tensorlib's ratio to
NumPy and to PyTorch, and the target where the issue sets one.  Results
are checked against NumPy before timing.
"""
import argparse
import os
import sys
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=None,
                   help="thread count for every library (default: cores)")
    p.add_argument("--quick", action="store_true",
                   help="few repeats, and no 4096^2 matmul")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("-k", default="", help="only cases containing these "
                   "comma-separated substrings")
    p.add_argument("--no-torch", action="store_true")
    return p.parse_args()


ARGS = parse()
NT = ARGS.threads or len(os.sched_getaffinity(0))
# NumPy's OpenBLAS reads these when it loads: set them before importing it.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(NT)

import numpy as np  # noqa: E402

import tensorlib as tl  # noqa: E402

torch = None
if not ARGS.no_torch:
    try:
        import torch  # noqa: E402
        torch.set_num_threads(NT)
    except ImportError:
        torch = None
tl.set_num_threads(NT)


def rnd(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def spd_like(rng, n, dtype=np.float64):
    return (rng.standard_normal((n, n)) + n * np.eye(n)).astype(dtype)


# Each case: id, operand builder (NumPy arrays), statement per library
# (a function of the converted operands), target (ratio, against what).
def cases(quick):
    rng = np.random.default_rng(0)
    out = []

    def add(cid, arrays, np_f, tl_f, torch_f, target=None, heavy=False):
        if quick and heavy:
            return
        out.append((cid, arrays, np_f, tl_f, torch_f, target))

    mm = (lambda a, b: a @ b)
    add("matmul 8x8 f32", [rnd(rng, 8, 8), rnd(rng, 8, 8)], mm, mm, mm,
        ("numpy", 0.8))
    add("matmul 1024^2 f32", [rnd(rng, 1024, 1024), rnd(rng, 1024, 1024)],
        mm, mm, mm, ("numpy", 1.05))
    add("matmul 4096^2 f32", [rnd(rng, 4096, 4096), rnd(rng, 4096, 4096)],
        mm, mm, mm, ("numpy", 1.05), heavy=True)
    add("matmul 64x(128x128) f32", [rnd(rng, 64, 128, 128),
                                    rnd(rng, 64, 128, 128)], mm, mm, mm)
    add("mv 4096^2 f32", [rnd(rng, 4096, 4096), rnd(rng, 4096)], mm, mm, mm)
    add("bmm 64x(128x128) f32", [rnd(rng, 64, 128, 128),
                                 rnd(rng, 64, 128, 128)],
        np.matmul, tl.bmm, torch.bmm if torch else None)
    eq = "bij,bjk->bik"
    add("einsum bij,bjk->bik 64x128^2", [rnd(rng, 64, 128, 128),
                                         rnd(rng, 64, 128, 128)],
        lambda a, b: np.einsum(eq, a, b, optimize=True),
        lambda a, b: tl.einsum(eq, a, b),
        (lambda a, b: torch.einsum(eq, a, b)) if torch else None,
        ("bmm", 1.1))
    add("solve 1024^2 f64", [spd_like(rng, 1024), rnd(rng, 1024, 1,
                                                      dtype=np.float64)],
        np.linalg.solve, tl.linalg.solve,
        torch.linalg.solve if torch else None)
    add("svd 512^2 f64", [rnd(rng, 512, 512, dtype=np.float64)],
        lambda a: np.linalg.svd(a)[1], lambda a: tl.linalg.svd(a)[1],
        (lambda a: torch.linalg.svd(a)[1]) if torch else None)
    return out


def to_np(x):
    if isinstance(x, np.ndarray):
        return x
    if torch is not None and isinstance(x, torch.Tensor):
        return x.numpy()
    return x.numpy()


def time_call(f, ops, min_time=0.05):
    """Best time per call of f(*ops) in one repeat of >= min_time."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f(*ops)
        dt = time.perf_counter() - t0
        if dt >= min_time or n >= 1 << 20:
            return dt / n
        n *= 2 if dt == 0 else max(2, int(min_time / dt * 1.2))


def main():
    libs = ["numpy", "tensorlib"] + (["torch"] if torch else [])
    conv = {"numpy": lambda a: a.copy(), "tensorlib": tl.tensor,
            "torch": (lambda a: torch.from_numpy(a.copy()))}
    repeats = ARGS.repeats or (3 if ARGS.quick else 7)
    want = [k for k in ARGS.k.split(",") if k]
    rows, best_all = [], {}
    for cid, arrays, np_f, tl_f, torch_f, target in cases(ARGS.quick):
        if want and not any(k in cid for k in want):
            continue
        fs = {"numpy": np_f, "tensorlib": tl_f, "torch": torch_f}
        ops = {lib: [conv[lib](a) for a in arrays] for lib in libs
               if fs.get(lib)}
        ref = np_f(*[a.astype(np.float64) for a in arrays])
        for lib in ops:
            got = to_np(fs[lib](*ops[lib]))
            np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-3 * (
                np.abs(ref).max() + 1), err_msg=f"{cid}: {lib}")
        best = {lib: float("inf") for lib in ops}
        heavy = arrays[0].size >= 4096 * 4096
        reps = max(2, repeats // 2) if heavy else repeats
        order = list(ops)
        for r in range(reps):
            order = order[1:] + order[:1]
            for lib in order:
                best[lib] = min(best[lib], time_call(fs[lib], ops[lib],
                                                     0.0 if heavy else 0.05))
        best_all[cid] = best
        rows.append((cid, best, target))
    print(f"threads: {NT} for every library (OpenBLAS via "
          f"tensorlib {tl._C._blas_get_num_threads()}); numpy "
          f"{np.__version__}, torch "
          f"{torch.__version__ if torch else 'n/a'}; best of {repeats}")
    print()
    print("| case | numpy | torch | tensorlib | tl / numpy | tl / torch | "
          "target |")
    print("|---|---|---|---|---|---|---|")

    def fmt(s):
        if s == float("inf") or s is None:
            return "n/a"
        for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
            if s >= scale:
                return f"{s / scale:.3g} {unit}"
        return f"{s * 1e9:.3g} ns"
    for cid, best, target in rows:
        t = best.get("tensorlib")
        n = best.get("numpy")
        p = best.get("torch")
        tgt = ""
        if target:
            what, lim = target
            if what == "bmm":
                b = best_all.get("bmm 64x(128x128) f32", {}).get("tensorlib")
                r = t / b if b else None
                tgt = (f"≤ {lim} × tl.bmm: {r:.2f} "
                       f"{'✓' if r is not None and r <= lim else '✗'}"
                       if r else "")
            else:
                r = t / n
                tgt = f"≤ {lim} × numpy {'✓' if r <= lim else '✗'}"
        print(f"| {cid} | {fmt(n)} | {fmt(p)} | {fmt(t)} | "
              f"{t / n:.2f} | {(t / p) if p else float('nan'):.2f} | "
              f"{tgt} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
