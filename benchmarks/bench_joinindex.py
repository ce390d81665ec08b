"""Joining and indexing ops: tensorlib beside NumPy and PyTorch in one process.

    python benchmarks/bench_joinindex.py [--quick] [--repeats N]

The cases of issue 17 ("Done means"): cat of ten 1024x1024 float32 tensors,
gather / index_select / scatter_add on 2**22 elements.  tensorlib and
PyTorch run on 2 threads; NumPy is single-threaded.  Each repeat runs the
libraries round-robin (rotating the order) and the table reports the best
time per call and the ratios tensorlib / PyTorch and tensorlib / NumPy
(<= 1.0 meets the target).  Results are checked against NumPy first.
"""
import argparse
import time

import numpy as np

import tensorlib as tl

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None


def _best(fn, repeats, min_time):
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or loops >= 1 << 16:
            break
        loops *= 2
    return loops


def cases():
    rng = np.random.default_rng(0)
    tens = [rng.standard_normal((1024, 1024), dtype=np.float32)
            for _ in range(10)]
    n = 1 << 22
    rows, cols = 1 << 11, 1 << 11
    src = rng.standard_normal((rows, cols), dtype=np.float32)
    gidx = rng.integers(0, cols, (rows, cols))
    sel = rng.integers(0, rows, rows)
    vals = rng.standard_normal(n, dtype=np.float32)
    sidx = rng.integers(0, 1 << 16, n)
    dst = np.zeros(1 << 16, np.float32)

    def np_scatter_add():
        r = dst.copy()
        np.add.at(r, sidx, vals)
        return r

    out = []
    t_t = [tl.tensor(x) for x in tens]
    out.append(("cat 10 x 1024^2 f32 dim 0",
                lambda: tl.cat(t_t),
                (lambda tt=[torch.from_numpy(x.copy()) for x in tens]:
                 torch.cat(tt)) if torch else None,
                lambda: np.concatenate(tens)))
    out.append(("cat 10 x 1024^2 f32 dim 1",
                lambda: tl.cat(t_t, 1),
                (lambda tt=[torch.from_numpy(x.copy()) for x in tens]:
                 torch.cat(tt, 1)) if torch else None,
                lambda: np.concatenate(tens, 1)))
    ts, ti = tl.tensor(src), tl.tensor(gidx)
    if torch:
        qs, qi = torch.from_numpy(src.copy()), torch.from_numpy(gidx.copy())
    out.append(("gather 2^22 f32 dim 1",
                lambda: tl.gather(ts, 1, ti),
                (lambda: torch.gather(qs, 1, qi)) if torch else None,
                lambda: np.take_along_axis(src, gidx, 1)))
    tsel = tl.tensor(sel)
    if torch:
        qsel = torch.from_numpy(sel.copy())
    out.append(("index_select 2^22 f32 dim 0 (rows)",
                lambda: tl.index_select(ts, 0, tsel),
                (lambda: torch.index_select(qs, 0, qsel)) if torch else None,
                lambda: np.take(src, sel, 0)))
    out.append(("index_select 2^22 f32 dim 1 (cols)",
                lambda: tl.index_select(ts, 1, tsel),
                (lambda: torch.index_select(qs, 1, qsel)) if torch else None,
                lambda: np.take(src, sel, 1)))
    tv, tsi, td = tl.tensor(vals), tl.tensor(sidx), tl.tensor(dst)
    if torch:
        qv, qsi, qd = (torch.from_numpy(vals.copy()),
                       torch.from_numpy(sidx.copy()),
                       torch.from_numpy(dst.copy()))
    out.append(("scatter_add 2^22 f32 into 2^16",
                lambda: tl.scatter_add(td, 0, tsi, tv),
                (lambda: torch.scatter_add(qd, 0, qsi, qv)) if torch else None,
                np_scatter_add))
    tv2 = tl.tensor(src)
    if torch:
        qv2 = torch.from_numpy(src.copy())
    sidx2 = rng.integers(0, rows, (rows, cols))
    tsi2 = tl.tensor(sidx2)
    if torch:
        qsi2 = torch.from_numpy(sidx2.copy())
    d2 = np.zeros((rows, cols), np.float32)
    td2 = tl.tensor(d2)
    if torch:
        qd2 = torch.from_numpy(d2.copy())
    out.append(("scatter_add 2^22 f32 2-D dim 0",
                lambda: tl.scatter_add(td2, 0, tsi2, tv2),
                (lambda: torch.scatter_add(qd2, 0, qsi2, qv2))
                if torch else None,
                None))
    return out


def check(name, a, b, c):
    ref = np.asarray(c()) if c else None
    ours = a().numpy()
    if ref is not None:
        np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-3,
                                   err_msg=name)
    if b is not None:
        np.testing.assert_allclose(ours, b().numpy(), rtol=1e-4, atol=1e-3,
                                   err_msg=name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("-k", default="")
    args = ap.parse_args()
    repeats = 3 if args.quick else args.repeats
    min_time = 0.02 if args.quick else 0.05
    tl.set_num_threads(args.threads)
    if torch:
        torch.set_num_threads(args.threads)
    rows = []
    for name, a, b, c in cases():
        if args.k and args.k not in name:
            continue
        check(name, a, b, c)
        fns = [f for f in (a, b, c)]
        loops = [(_best(f, repeats, min_time) if f else 0) for f in fns]
        best = [float("inf")] * 3
        for r in range(repeats):
            order = [(r + i) % 3 for i in range(3)]
            for i in order:
                f = fns[i]
                if f is None:
                    continue
                t0 = time.perf_counter()
                for _ in range(loops[i]):
                    f()
                best[i] = min(best[i], (time.perf_counter() - t0) / loops[i])
        rows.append((name, best))
    hdr = ("| case | tensorlib ms | PyTorch ms | NumPy ms | tl/torch "
           "| tl/numpy |")
    print(hdr)
    print("|---|---|---|---|---|---|")
    for name, (t, q, n) in rows:
        def ms(x):
            return "-" if x == float("inf") else f"{x * 1e3:.2f}"

        def ratio(x):
            return "-" if x == float("inf") else f"{t / x:.2f}"
        print(f"| {name} | {ms(t)} | {ms(q)} | {ms(n)} | {ratio(q)} "
              f"| {ratio(n)} |")


if __name__ == "__main__":
    main()
