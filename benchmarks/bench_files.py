"""Saving and loading tensors: tensorlib beside NumPy, PyTorch and the
safetensors package (issue 21).

    python benchmarks/bench_files.py            # 1 GiB of float32
    python benchmarks/bench_files.py --quick    # 64 MiB, fewer repeats
    python benchmarks/bench_files.py --size-mib 256 --repeats 5

Cases (best of the repeats, warm page cache, files in --dir; the saves
round-robin over the writers, one warm-up round first):
- save: tl.save (safetensors, atomic: temp file, fsync, rename) and
  tl.save(.npy) against np.save followed by os.fsync of the file,
  torch.save (+ fsync) and safetensors.numpy.save_file (+ fsync);
- eager load: tl.load against np.load, torch.load and
  safetensors.numpy.load_file;
- mmap load: tl.load(mmap=True) against np.load(mmap_mode="r"),
  torch.load(mmap=True) and safetensors' safe_open, at the full size and
  at 1/64 of it (mmap load should not depend on the size).
Targets: save within 1.1 of np.save + fsync, eager load within 1.1 of
np.load, mmap load independent of file size.  Ratios are tensorlib's time
over the other's (below 1: tensorlib is faster).
"""
import argparse
import gc
import os
import sys
import tempfile
import time

import numpy as np

import tensorlib as tl

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
try:
    import safetensors.numpy as stn
    from safetensors import safe_open
except ImportError:  # pragma: no cover
    stn = None


def best(fn, repeats, after=None):
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
        if after:
            after(r)
        del r
    return min(times)


def fsynced(write, path):
    def run():
        write()
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return run


def fmt(s):
    return f"{s * 1e3:10.3f} ms" if s >= 1e-3 else f"{s * 1e6:10.1f} us"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="64 MiB and 2 repeats")
    ap.add_argument("--size-mib", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--dir", default=None,
                    help="folder for the files (default: a temporary one)")
    args = ap.parse_args(argv)
    mib = args.size_mib or (64 if args.quick else 1024)
    reps = args.repeats or (2 if args.quick else 3)
    n = mib * (1 << 20) // 4
    tmp = tempfile.TemporaryDirectory(dir=args.dir)
    d = tmp.name
    rows = []

    def row(case, ours, other, name):
        rows.append((case, fmt(ours), name, fmt(other),
                     f"{ours / other:6.2f}"))

    a = np.arange(n, dtype=np.float32)
    t = tl.from_numpy(a).clone()
    p_st = os.path.join(d, "t.safetensors")
    p_npy = os.path.join(d, "t.npy")
    p_np = os.path.join(d, "np.npy")
    p_pt = os.path.join(d, "t.pt")
    p_sn = os.path.join(d, "sn.safetensors")

    # ---- save: round-robin over the writers, rotating the order each
    # round, so that the disk's slow spells (fsync on a shared machine)
    # hit every writer alike; best of the rounds.
    savers = [("tl", lambda: tl.save({"w": t}, p_st)),
              ("tl_npy", lambda: tl.save(t, p_npy)),
              ("np", fsynced(lambda: np.save(p_np, a), p_np))]
    if torch is not None:
        tt = torch.from_numpy(a)
        savers.append(("pt", fsynced(lambda: torch.save({"w": tt}, p_pt),
                                     p_pt)))
    if stn is not None:
        savers.append(("sn", fsynced(lambda: stn.save_file({"w": a}, p_sn),
                                     p_sn)))
    sbest = {k: 1e9 for k, _ in savers}
    for rnd in range(reps + 1):
        order = savers[rnd % len(savers):] + savers[:rnd % len(savers)]
        for k, fn in order:
            gc.collect()
            t0 = time.perf_counter()
            fn()
            sbest[k] = min(sbest[k], time.perf_counter() - t0)
    row("save", sbest["tl"], sbest["np"], "np.save+fsync")
    row("save .npy", sbest["tl_npy"], sbest["np"], "np.save+fsync")
    if "pt" in sbest:
        row("save", sbest["tl"], sbest["pt"], "torch.save+fsync")
    if "sn" in sbest:
        row("save", sbest["tl"], sbest["sn"], "safetensors+fsync")
    del t

    # ---- eager load
    l_tl = best(lambda: tl.load(p_st), reps)
    l_tl_npy = best(lambda: tl.load(p_npy), reps)
    l_np = best(lambda: np.load(p_np), reps)
    row("load", l_tl, l_np, "np.load")
    row("load .npy", l_tl_npy, l_np, "np.load")
    if torch is not None:
        l_pt = best(lambda: torch.load(p_pt), reps)
        row("load", l_tl, l_pt, "torch.load")
    if stn is not None:
        l_sn = best(lambda: stn.load_file(p_sn), reps)
        row("load", l_tl, l_sn, "safetensors")

    # ---- mmap load, full size and 1/64 of it
    small = os.path.join(d, "small.safetensors")
    tl.save({"w": tl.zeros(max(1, n // 64), dtype=tl.float32)}, small)
    r = max(reps, 20)
    m_tl = best(lambda: tl.load(p_st, mmap=True), r)
    m_tl_small = best(lambda: tl.load(small, mmap=True), r)
    m_np = best(lambda: np.load(p_np, mmap_mode="r"), r)
    row("mmap load", m_tl, m_np, "np.load(mmap_mode=r)")
    row("mmap load", m_tl, m_tl_small, f"tl at {mib // 64 or 1} MiB")
    if torch is not None:
        m_pt = best(lambda: torch.load(p_pt, mmap=True), r)
        row("mmap load", m_tl, m_pt, "torch.load(mmap)")
    if stn is not None:
        def st_lazy():
            with safe_open(p_sn, framework="numpy") as f:
                return f.get_slice("w")
        m_sn = best(st_lazy, r)
        row("mmap load", m_tl, m_sn, "safe_open+get_slice")

    print(f"# tensorlib files: {mib} MiB of float32, best of {reps} "
          f"(mmap: {r}); python {sys.version.split()[0]}, numpy "
          f"{np.__version__}"
          + (f", torch {torch.__version__}" if torch else "")
          + (", safetensors " + __import__("safetensors").__version__
             if stn else ""))
    print()
    print("| case | tensorlib | other | other's time | ratio |")
    print("|---|---:|---|---:|---:|")
    for case, ours, name, other, ratio in rows:
        print(f"| {case} | {ours} | {name} | {other} | {ratio} |")
    tmp.cleanup()


if __name__ == "__main__":
    main()
