"""CUDA, side by side: tensorlib's kernels vs PyTorch's on the same GPU in
one process (elementwise ops, casts, copies both ways, reductions of every
schedule of csrc/cuda/reduce.cu).

    python benchmarks/bench_cuda.py [--sizes 20,24,26] [-k sum]

Needs a CUDA build of tensorlib (TENSORLIB_CUDA=1) on a machine with a GPU
(it exits with a message on the emulated build, which times nothing real),
and PyTorch with CUDA for the second column.  Each case is checked against
PyTorch before it is timed; a time is the best of three runs of `--reps`
calls, each run closed by a device synchronisation, in microseconds per
call.  Prints a markdown table.
"""
import argparse
import sys
import time

import numpy as np

import tensorlib as tl


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="10,20,24,26",
                   help="comma-separated log2 element counts")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("-k", default="", help="only cases containing these "
                   "comma-separated substrings")
    return p.parse_args()


def best(fn, sync, reps):
    fn()
    sync()
    t = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        t = min(t, (time.perf_counter() - t0) / reps)
    return t


def cases(n, a, b, torch):
    """(name, tensorlib call, torch call) for n float32 elements a, b."""
    ta, tb = tl.tensor(a).cuda(), tl.tensor(b).cuda()
    pa, pb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    td, pd = ta.to(tl.float64), pa.to(torch.float64)
    ti, pi = (ta * 100).to(tl.int64), (pa * 100).to(torch.int64)
    th, ph = ta.to(tl.float16), pa.to(torch.float16)
    out = [
        ("add f32", lambda: ta + tb, lambda: pa + pb),
        ("mul scalar f32", lambda: ta * 2.0, lambda: pa * 2.0),
        ("exp f32", lambda: tl.exp(ta), lambda: torch.exp(pa)),
        ("cast f32->f16", lambda: ta.to(tl.float16),
         lambda: pa.to(torch.float16)),
        ("H2D f32", lambda: tl.from_numpy(a).cuda(),
         lambda: torch.from_numpy(a).cuda()),
        ("D2H f32", lambda: ta.cpu(), lambda: pa.cpu()),
        ("sum f32", lambda: ta.sum(), lambda: pa.sum()),
        ("sum f64", lambda: td.sum(), lambda: pd.sum()),
        ("sum i64", lambda: ti.sum(), lambda: pi.sum()),
        ("mean f16", lambda: th.mean(), lambda: ph.mean()),
        ("amax f32", lambda: ta.amax(), lambda: pa.amax()),
    ]
    if n >= 1 << 16:
        m = int(n ** 0.5)
        ta2, pa2 = ta[:m * m].reshape(m, m), pa[:m * m].reshape(m, m)
        out += [
            ("sum dim1 f32 (square)", lambda: ta2.sum(1),
             lambda: pa2.sum(1)),
            ("sum dim0 f32 (square)", lambda: ta2.sum(0),
             lambda: pa2.sum(0)),
            ("amax dim0 f32 (square)", lambda: ta2.amax(0),
             lambda: pa2.amax(0)),
            ("sum dim1 f32 (8, n/8)", lambda: ta.reshape(8, -1).sum(1),
             lambda: pa.reshape(8, -1).sum(1)),
            ("sum dim0 f32 (n/8, 8)", lambda: ta.reshape(-1, 8).sum(0),
             lambda: pa.reshape(-1, 8).sum(0)),
            ("T.contiguous f32 (square)", lambda: ta2.T.contiguous(),
             lambda: pa2.T.contiguous()),
        ]
    return out


def main():
    args = parse()
    if not tl.cuda.is_available() or tl.cuda.is_emulated():
        sys.exit("bench_cuda: needs a CUDA build of tensorlib and a GPU "
                 "(is_available=%s, emulated=%s)"
                 % (tl.cuda.is_available(), tl.cuda.is_emulated()))
    try:
        import torch
    except ImportError:
        sys.exit("bench_cuda: needs PyTorch with CUDA")
    if not torch.cuda.is_available():
        sys.exit("bench_cuda: torch sees no GPU")
    keys = [k for k in args.k.split(",") if k]
    rng = np.random.default_rng(0)
    print("GPU:", torch.cuda.get_device_name(0), "| torch", torch.__version__)
    print()
    print("| case | n | tensorlib µs | torch µs | ratio |")
    print("|---|---|---|---|---|")
    for e in [int(x) for x in args.sizes.split(",")]:
        n = 1 << e
        a = rng.random(n, dtype=np.float32)
        b = rng.random(n, dtype=np.float32)
        for name, f1, f2 in cases(n, a, b, torch):
            if keys and not any(k in name for k in keys):
                continue
            try:
                np.testing.assert_allclose(
                    np.asarray(f1().cpu().to(tl.float64).numpy()),
                    f2().cpu().double().numpy(), rtol=2e-3)
                x = best(f1, tl.cuda.synchronize, args.reps)
                y = best(f2, torch.cuda.synchronize, args.reps)
                print(f"| {name} | 2^{e} | {x * 1e6:.1f} | {y * 1e6:.1f} "
                      f"| {x / y:.2f} |", flush=True)
            except Exception as exc:  # noqa: BLE001
                print(f"| {name} | 2^{e} | error: {type(exc).__name__}: "
                      f"{exc} | | |", flush=True)


if __name__ == "__main__":
    main()
