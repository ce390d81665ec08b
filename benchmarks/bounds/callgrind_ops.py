#!/usr/bin/env python3
"""Counts the instructions one call of a small op costs, by function, under
valgrind's callgrind: deterministic, so it works on a busy machine where
wall-clock timings do not.

    python benchmarks/bounds/callgrind_ops.py            # default ops
    python benchmarks/bounds/callgrind_ops.py -s "a + b" -s "L.empty((3, 4))"

For each (statement, library) it runs the statement N times in a fresh
interpreter under callgrind, and again 0 times, and reports the difference
divided by N: instructions per call in total, and the functions that
account for them (self = exclusive, incl = inclusive).  Needs valgrind and
callgrind_annotate on PATH.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

SNIPPET = r'''
import sys
import numpy as np
N = int(sys.argv[1]); lib = sys.argv[2]; stmt = sys.argv[3]
if lib == "tl":
    import tensorlib as L
    mk = lambda a: L.from_numpy(a).clone()
elif lib == "torch":
    import torch as L
    mk = lambda a: torch.from_numpy(a).clone()
else:
    L = np
    mk = lambda a: a.copy()
if lib == "torch":
    import torch
a = mk(np.arange(10, dtype=np.float32))
b = mk(np.arange(10, dtype=np.float32) + 1)
c = mk(np.zeros(10, dtype=np.float32))
t = mk(np.arange(64, dtype=np.float32).reshape(8, 8))
src = "def f(L, a, b, c, t, n):\n    for _ in range(n):\n        " + stmt
exec(src)
f(L, a, b, c, t, 200)
f(L, a, b, c, t, N)
'''

DEFAULT = ["a + b", "L.add(a, b, out=c)", "a + 1.0", "t[1:3]"]


def annotate(path, inclusive):
    out = subprocess.run(
        ["callgrind_annotate", "--threshold=100",
         "--inclusive=" + ("yes" if inclusive else "no"), path],
        capture_output=True, text=True, check=True).stdout
    total = None
    funcs = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        rest = m.group(2)
        if "PROGRAM TOTALS" in rest:
            total = n
            continue
        # file:function [object]  ->  function [object basename]
        fm = re.match(r"(?:.*?:)?([^:\s\[]+(?:'\d+)?)\s*(?:\[(.*)\])?$", rest)
        if not fm:
            continue
        name = fm.group(1)
        obj = os.path.basename(fm.group(2) or "")
        funcs[f"{name} [{obj}]" if obj else name] += n
    return total, funcs


def profile(stmt, lib, n, tmp):
    res = {}
    for k in (0, n):
        path = os.path.join(tmp, f"cg.{lib}.{k}")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + path,
             sys.executable, "-c", SNIPPET, str(k), lib, stmt],
            capture_output=True, check=True)
        res[k] = (annotate(path, False), annotate(path, True))
    (t0, s0), (_, i0) = res[0]
    (t1, s1), (_, i1) = res[n]
    per_call = (t1 - t0) / n
    self_d = {f: (s1[f] - s0.get(f, 0)) / n for f in s1}
    incl_d = {f: (i1[f] - i0.get(f, 0)) / n for f in i1}
    return per_call, self_d, incl_d


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-s", "--stmt", action="append",
                   help="statement over L (module), a, b, c (10 float32), "
                        "t (8x8 float32); repeatable")
    p.add_argument("-l", "--libs", default="tl,np",
                   help="comma list of tl, np, torch (default tl,np)")
    p.add_argument("-n", type=int, default=20000, help="calls (default 20000)")
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("valgrind / callgrind_annotate not found")
    stmts = args.stmt or DEFAULT
    with tempfile.TemporaryDirectory() as tmp:
        for stmt in stmts:
            for lib in args.libs.split(","):
                per_call, self_d, incl_d = profile(stmt, lib, args.n, tmp)
                print(f"\n== {lib}: {stmt}   {per_call:.0f} instructions "
                      f"per call (loop included)")
                print(f"   {'self':>7} {'incl':>7}  function")
                rows = sorted(self_d.items(), key=lambda kv: -kv[1])
                shown = 0
                for f, v in rows:
                    if v < 1.5:
                        break
                    print(f"   {v:7.0f} {incl_d.get(f, 0):7.0f}  {f}")
                    shown += 1
                    if shown >= args.top:
                        break


if __name__ == "__main__":
    main()
