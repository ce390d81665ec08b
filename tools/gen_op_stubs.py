#!/usr/bin/env python3
"""Writes the op-table entries of the type stubs from the operator table.

    python tools/gen_op_stubs.py           # rewrite the marked blocks
    python tools/gen_op_stubs.py --check   # exit 1 (and say where) on drift

The elementwise unary and binary ops are rows of one X-macro table,
csrc/include/tensorlib/op_table.h; the built module describes them with
tensorlib._C._op_table().  This script turns that description into the
stub lines between the "BEGIN op table" / "END op table" markers of
tensorlib/_C.pyi (Tensor methods, module functions) and
tensorlib/__init__.pyi (re-exports).  Its output is checked in, and
tests/test_ops_table.py runs --check, so a stub that disagrees with the
table fails the suite.  Run it after adding a row (docs/adding-an-op.md).
Needs the built extension importable (run from the repository root after
building in place).
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C_PYI = os.path.join(ROOT, "tensorlib", "_C.pyi")
INIT_PYI = os.path.join(ROOT, "tensorlib", "__init__.pyi")
BEGIN = "# BEGIN op table (tools/gen_op_stubs.py writes this block)"
END = "# END op table"

OUT = "out: Tensor | None = None"
ALPHA = "alpha: _Number | None = None"


def _rows():
    sys.path.insert(0, ROOT)
    from tensorlib import _C  # noqa: E402  (the built module)
    return _C._op_table()


def _entries(rows):
    """(name, method lines, function line) for every generated name."""
    ops = [r for r in rows if r["kind"] != "alias"]
    by_py = {r["py"]: r for r in ops}
    out = []

    def add(py, kind, alpha, inplace):
        if kind == "binary":
            kw = ", *, " + (ALPHA + ", " if alpha else "") + OUT
            meth = [f"def {py}(self, other: _TensorOrNumber{kw}) -> Tensor: ..."]
            if inplace:
                ip = f", *, {ALPHA}" if alpha else ""
                meth.append(f"def {py}_(self, other: _TensorOrNumber{ip}) -> Self: ...")
            fn = (f"def {py}(input: _TensorOrNumber, other: _TensorOrNumber"
                  f"{kw}) -> Tensor: ...")
        else:
            meth = [f"def {py}(self, *, {OUT}) -> Tensor: ..."]
            if inplace:
                meth.append(f"def {py}_(self) -> Self: ...")
            fn = f"def {py}(input: Tensor, *, {OUT}) -> Tensor: ..."
        out.append((py, meth, fn))

    for r in ops:
        if "custom_py" in r["flags"]:
            continue
        add(r["py"], r["kind"], "alpha" in r["flags"], "inplace" in r["flags"])
    for r in rows:
        if r["kind"] == "alias":
            target = by_py[r["of"]]
            add(r["py"], target["kind"], r["sig"] == "ALPHA", False)
    return out


def _blocks(rows):
    ents = _entries(rows)
    meth = ["    " + BEGIN]
    fns = [BEGIN]
    for _, m, f in ents:
        meth += ["    " + line for line in m]
        fns.append(f)
    meth.append("    " + END)
    fns.append(END)
    names = sorted(py for py, _, _ in ents)
    init = [BEGIN, "from ._C import ("]
    init += [f"    {n} as {n}," for n in names]
    init += [")", END]
    return meth, fns, init


def _replace(text, block, indent):
    """text with the marked block at the given indent replaced (the first
    such block at that indent, searching from the previous one's end)."""
    lines = text.split("\n")
    out, i, done = [], 0, False
    while i < len(lines):
        line = lines[i]
        if not done and line == indent + BEGIN:
            j = lines.index(indent + END, i)
            out += block
            i = j + 1
            done = True
            continue
        out.append(line)
        i += 1
    if not done:
        raise SystemExit(f"no '{indent}{BEGIN}' marker found")
    return "\n".join(out)


def generate():
    rows = _rows()
    meth, fns, init = _blocks(rows)
    with open(C_PYI) as f:
        c_text = f.read()
    with open(INIT_PYI) as f:
        i_text = f.read()
    new_c = _replace(_replace(c_text, meth, "    "), fns, "")
    new_i = _replace(i_text, init, "")
    return {C_PYI: (c_text, new_c), INIT_PYI: (i_text, new_i)}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true",
                   help="only compare; exit 1 when a stub block is stale")
    args = p.parse_args(argv)
    stale = []
    for path, (old, new) in generate().items():
        if old != new:
            stale.append(path)
            if not args.check:
                with open(path, "w") as f:
                    f.write(new)
    if args.check and stale:
        print("stale op-table stubs (run python tools/gen_op_stubs.py): "
              + ", ".join(os.path.relpath(p, ROOT) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
