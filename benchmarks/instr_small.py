#!/usr/bin/env python3
"""Instruction counts per call for the small-op table (issue 22), from
valgrind's callgrind: deterministic, so a regression shows as a number
even on a loaded machine where timings are noise.

    python benchmarks/instr_small.py            # every case, tl and np
    python benchmarks/instr_small.py -k add,sum --loops 500 --torch

How: one valgrind run.  Inside it, every (case, library) statement runs
once to warm up, then --loops times inside a single eval(); callgrind
collects only inside builtin_eval (--toggle-collect) and dumps a profile
after each eval (--dump-after), so each dump is one (case, library).  The
per-call count is (dump's instructions - the empty loop's) / loops.
Needs valgrind (apt-get install valgrind); takes a few minutes.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(args) -> None:
    """Runs inside valgrind: the evals, in the order the plan file lists."""
    sys.path.insert(0, HERE)
    sys.path.insert(0, ROOT)
    import bench_small as B
    with open(args.plan) as f:
        plan = json.load(f)
    loops = plan["loops"]
    cases = {c[0]: c for c in B.CASES}
    mods = B._mods()
    empty = compile(f"for _ in range({loops}):\n    pass\n", "<e>", "exec")
    eval(empty, {})
    for cid, key in plan["runs"]:
        if cid is None:
            eval(empty, {})
            continue
        c = cases[cid]
        stmt = c[3][key]
        env = B._env(key, c[2])
        env["L"] = mods[key]
        code = compile(f"for _ in range({loops}):\n    {stmt}\n", "<c>",
                       "exec")
        exec(compile(stmt, "<w>", "exec"), env)  # warm up (lazy imports)
        eval(code, env)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", "--cases", default="")
    p.add_argument("--loops", type=int, default=1000)
    p.add_argument("--torch", action="store_true",
                   help="count PyTorch too (its import under valgrind takes "
                        "minutes)")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--child", metavar="PLAN", dest="plan",
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.plan:
        child(args)
        return 0
    if not args.torch:
        os.environ["BENCH_SMALL_NO_TORCH"] = "1"
    sys.path.insert(0, HERE)
    import bench_small as B
    sel = [s.strip() for s in args.cases.split(",") if s.strip()]
    keys = ["tl", "np"] + (["torch"] if B.torch is not None else [])
    runs = [(None, None)]  # the empty loop
    if sel and not any(s in c[0] for c in B.CASES for s in sel):
        print("no small-op case id matches", args.cases, "(ids:",
              ", ".join(c[0] for c in B.CASES) + ")")
        return 2
    for c in B.CASES:
        if sel and not any(s in c[0] for s in sel):
            continue
        for k in keys:
            if c[3].get(k) is not None:
                runs.append((c[0], k))
    tmp = tempfile.mkdtemp(prefix="instr_small.")
    plan = os.path.join(tmp, "plan.json")
    with open(plan, "w") as f:
        json.dump({"loops": args.loops, "runs": runs}, f)
    out = os.path.join(tmp, "cg.out")
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONHASHSEED"] = "0"  # dict probes of the names: same each run
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
           "--toggle-collect=builtin_eval", "--dump-after=builtin_eval",
           f"--callgrind-out-file={out}", sys.executable,
           os.path.abspath(__file__), "--child", plan]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    dumps = sorted(glob.glob(out + ".*"),
                   key=lambda s: int(s.rsplit(".", 1)[1]))
    totals = []
    for d in dumps:
        with open(d) as f:
            m = re.search(r"^summary:\s*(\d+)", f.read(), re.M)
        totals.append(int(m.group(1)) if m else 0)
    # Imports may eval() too: ours are the last len(runs) dumps (the first
    # of them the measured empty loop).
    if len(totals) < len(runs):
        print(f"expected {len(runs)} dumps, got {len(totals)}",
              file=sys.stderr)
        return 1
    totals = totals[-len(runs):]
    base = totals[0]
    per = {}
    for (cid, k), tot in zip(runs[1:], totals[1:]):
        per.setdefault(cid, {})[k] = (tot - base) / args.loops
    titles = {c[0]: c[1] for c in B.CASES}
    head = ["case"] + [f"{k} instr/call" for k in keys] + ["tl/np"]
    rows = []
    for cid, d in per.items():
        r = [titles[cid]] + [f"{d[k]:.0f}" if k in d else "—" for k in keys]
        r.append(f"{d['tl'] / d['np']:.2f}" if d.get("np") else "—")
        rows.append(r)
    w = [max([len(h)] + [len(r[i]) for r in rows])
         for i, h in enumerate(head)]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    for r in rows:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    if args.markdown:
        print()
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
