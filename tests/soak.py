"""Soak: a random program over tensorlib's public API checked step by step
against a NumPy model of the same program (issue 23, "Soak").

The program keeps a pool of live tensors, each paired with a NumPy array
that models it; views are modelled by NumPy views of the same arrays, so
in-place writes through one view show through the others in both.  Each
step is one of: make a tensor, make a view (slices, transposes, select,
unsqueeze, reshape of a contiguous tensor), an in-place op (add_, mul_,
setitem, fill_, copy_, clamp_), an out-of-place op or reduction, shrinking
and growing a root's storage under its views (overhanging views must
raise, fitting ones keep their values), exports (NumPy, DLPack, buffer
protocol), a workspace round, a pickle round trip, two threads running
ops at once, and dropping tensors.  Every 64 steps and at the end every
live tensor is compared with its model; at the end, with the pool
dropped, the allocator's live bytes and blocks, the reference counts of a
few shared objects and the resident memory must be where they were after
the warm-up.

    python tests/soak.py --steps 1000000 [--seed N]   # the long run
    python tests/soak.py --steps 100000               # what CI runs
"""
import argparse
import gc
import os
import pickle
import sys
import threading
import time

import numpy as np

import tensorlib as tl

MAX_LIVE = 24


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class Soak:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.pool = []            # [tensor, model, root index or None]
        self.counts = {}

    # ---- helpers ------------------------------------------------------
    def pick(self):
        return self.pool[self.rng.integers(len(self.pool))]

    def add(self, t, a):
        if not isinstance(a, np.ndarray):
            a = np.array(a)          # a fresh 0-d result, no aliasing
        assert tuple(t.shape) == a.shape, (t.shape, a.shape)
        self.pool.append([t, a])
        if len(self.pool) > MAX_LIVE:
            del self.pool[self.rng.integers(len(self.pool))]

    def check(self, t, a, what):
        got = np.asarray(t.tolist(), dtype=a.dtype).reshape(a.shape)
        if not np.allclose(got, a, rtol=1e-9, atol=1e-9, equal_nan=True):
            raise AssertionError("%s: tensor %s differs from its model %s"
                                 % (what, got, a))

    def check_all(self, what):
        for t, a in self.pool:
            self.check(t, a, what)

    def shape(self):
        nd = int(self.rng.integers(0, 4))
        return tuple(int(self.rng.integers(0, 5)) for _ in range(nd))

    # ---- steps --------------------------------------------------------
    def s_new(self):
        shp = self.shape()
        if self.rng.random() < 0.2:
            a = self.rng.integers(-5, 5, shp).astype(np.float64)
        else:
            a = np.round(self.rng.standard_normal(shp), 3)
        self.add(tl.tensor(a), a.copy())

    def s_view(self):
        t, a = self.pick()
        k = int(self.rng.integers(6))
        if a.ndim == 0:
            self.add(t.unsqueeze(0), a[None])
        elif k == 0:
            n = a.shape[0]
            lo = int(self.rng.integers(0, n + 1))
            step = int(self.rng.integers(1, 3))
            self.add(t[lo::step], a[lo::step])
        elif k == 1:
            self.add(t.transpose(0, a.ndim - 1),
                     np.swapaxes(a, 0, a.ndim - 1))
        elif k == 2 and a.shape[0] > 0:
            i = int(self.rng.integers(a.shape[0]))
            self.add(t.select(0, i), a[i, ...])
        elif k == 3:
            d = int(self.rng.integers(a.ndim + 1))
            self.add(t.unsqueeze(d), np.expand_dims(a, d))
        elif k == 4 and t.is_contiguous() and a.flags.c_contiguous:
            self.add(t.view(-1), a.reshape(-1))
        else:
            n = int(self.rng.integers(a.shape[0] + 1))
            self.add(t.narrow(0, 0, n), a[:n])

    def s_inplace(self):
        t, a = self.pick()
        if not a.flags.writeable:
            return
        k = int(self.rng.integers(6))
        v = float(np.round(self.rng.standard_normal(), 2))
        if k == 0:
            t.add_(v)
            a += v
        elif k == 1:
            t.mul_(v)
            a *= v
        elif k == 2:
            t.fill_(v)
            a[...] = v
        elif k == 3:
            t.clamp_(-0.5, 0.5)
            np.clip(a, -0.5, 0.5, out=a)
        elif k == 4 and a.ndim >= 1 and a.shape[0] > 0:
            i = int(self.rng.integers(a.shape[0]))
            t[i] = v
            a[i] = v
        else:
            src = np.round(self.rng.standard_normal(a.shape), 2)
            t.copy_(tl.tensor(src))
            a[...] = src

    def s_binary(self):
        t, a = self.pick()
        u, b = self.pick()
        if a.shape != b.shape:
            u, b = tl.tensor(a * 0.5 + 1), a * 0.5 + 1
        k = int(self.rng.integers(5))
        if k == 0:
            r, m = t + u, a + b
        elif k == 1:
            r, m = t * u - 1.5, a * b - 1.5
        elif k == 2:
            r, m = tl.maximum(t, u), np.maximum(a, b)
        elif k == 3:
            r, m = (t > u).to(tl.float64), (a > b).astype(np.float64)
        else:
            r, m = tl.where(t > 0, t, u), np.where(a > 0, a, b)
        self.check(r, m, "binary %d" % k)
        self.add(r, m.copy())

    def s_reduce(self):
        t, a = self.pick()
        if a.ndim == 0 or a.size == 0:
            self.check(t.sum(), np.asarray(a.sum()), "sum")
            return
        d = int(self.rng.integers(a.ndim))
        self.check(t.sum(d), a.sum(d), "sum(dim)")
        self.check(t.amax(d), a.max(d), "amax") if a.shape[d] else None
        self.check(t.mean(), np.asarray(a.mean()), "mean")
        self.check(t.cumsum(d), np.cumsum(a, d), "cumsum")

    def s_shrink(self):
        base = np.round(self.rng.standard_normal(12), 2)
        root = tl.tensor(base)
        views = [(root[:3], base[:3]), (root[6:], base[6:]),
                 (root.view(3, 4).t(), base.reshape(3, 4).T)]
        keep = int(self.rng.integers(0, 97))
        s = root.untyped_storage()
        s.resize_(keep)
        for v, m in views:
            off = v.storage_offset()
            need = 0 if v.numel() == 0 else 8 * (off + 1 + sum(
                (n - 1) * st for n, st in zip(v.shape, v.stride())
                if st > 0))
            if need <= keep:
                self.check(v, m, "fitting view of a shrunk storage")
            else:
                try:
                    v.tolist()
                except RuntimeError as e:
                    assert "was shrunk" in str(e), e
                else:
                    raise AssertionError("an overhanging view read data")
        s.resize_(96)
        for v, m in views:
            self.check(v, m, "view after growing back")
        self.add(*views[int(self.rng.integers(3))])

    def s_export(self):
        t, a = self.pick()
        k = int(self.rng.integers(4))
        if k == 0:
            self.check(t, np.asarray(t), "np.asarray")
        elif k == 1 and t.is_contiguous():
            self.check(t, np.array(memoryview(t)), "memoryview")
        elif k == 2:
            back = tl.from_dlpack(np.array(a, order="C"))
            self.add(back, a.copy())
        else:
            n = a.copy()
            self.add(tl.from_numpy(n), n)   # shares n's memory: same model

    def s_workspace(self):
        t, a = self.pick()
        with tl.workspace(1 << 16) as ws:
            y = float((t * 2 + 1).sum())   # computed in the arena
            ws.reset()
        self.check(tl.tensor(y, dtype=tl.float64), np.asarray((a * 2 + 1).sum()), "workspace")

    def s_pickle(self):
        t, a = self.pick()
        proto = int(self.rng.integers(2, 6))
        u = pickle.loads(pickle.dumps(t, protocol=proto))
        self.check(u, a, "pickle")
        self.add(u, a.copy())

    def s_threads(self):
        pairs = [self.pick() for _ in range(2)]
        out = [None, None]

        def work(i):
            t, a = pairs[i]
            out[i] = (t * 3 - 1).exp().sum()

        ths = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        for (t, a), r in zip(pairs, out):
            self.check(r, np.asarray(np.exp(a * 3 - 1).sum()), "threads")

    def s_drop(self):
        if self.pool:
            del self.pool[self.rng.integers(len(self.pool))]

    STEPS = [(s_new, 12), (s_view, 14), (s_inplace, 18), (s_binary, 14),
             (s_reduce, 8), (s_shrink, 3), (s_export, 8), (s_workspace, 3),
             (s_pickle, 4), (s_threads, 2), (s_drop, 10)]

    def run(self, steps, check_every=64):
        fns = [f for f, _ in self.STEPS]
        w = np.array([w for _, w in self.STEPS], dtype=float)
        choice = self.rng.choice(len(fns), size=steps, p=w / w.sum())
        for i, c in enumerate(choice):
            if not self.pool:
                self.s_new()
            fns[c](self)
            self.counts[fns[c].__name__] = \
                self.counts.get(fns[c].__name__, 0) + 1
            if i % check_every == 0:
                self.check_all("step %d" % i)
        self.check_all("end")


# AddressSanitizer keeps freed blocks in a quarantine (256 MiB unless
# ASAN_OPTIONS says quarantine_size_mb) before it reuses them, so under a
# sanitizer build the resident size grows until that fills, whatever the
# program does: the RSS bound there allows the quarantine on top.  The
# allocator's byte and block counts and the refcounts stay exact checks.
_ASAN_QUARANTINE = 256 << 20


def soak(steps, seed=0, rss_slack=32 << 20):
    """Runs the soak; raises AssertionError on any difference or growth.
    Returns: a dict of what ran and what was measured."""
    if tl._C._testing.sanitizer_build():
        rss_slack += _ASAN_QUARANTINE
    watched = [tl.float64, tl.float32, tl.Tensor, tl.ShapeError]
    warm = Soak(seed + 1)
    warm.run(min(2000, steps))
    del warm
    gc.collect()
    refs = [sys.getrefcount(o) for o in watched]
    stats = tl.memory_stats()
    rss0 = _rss_bytes()
    t0 = time.perf_counter()
    s = Soak(seed)
    s.run(steps)
    counts = s.counts
    del s
    gc.collect()
    dt = time.perf_counter() - t0
    after = tl.memory_stats()
    rss1 = _rss_bytes()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert after["active_bytes"] == stats["active_bytes"], (stats, after)
    assert (after["alloc_count"] - after["free_count"] ==
            stats["alloc_count"] - stats["free_count"]), (stats, after)
    assert rss1 - rss0 < rss_slack, (rss0, rss1)
    return {"steps": steps, "seconds": dt, "rss_growth": rss1 - rss0,
            "counts": counts}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=100000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    r = soak(args.steps, args.seed)
    print("soak: %d steps in %.1f s, RSS growth %d bytes; steps run: %s"
          % (r["steps"], r["seconds"], r["rss_growth"], r["counts"]))


if __name__ == "__main__":
    main()
