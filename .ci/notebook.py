#!/usr/bin/env python3
"""Executes every notebook in examples/ headlessly (nbclient + ipykernel)
and exits non-zero when any cell raises.

    python .ci/notebook.py [--timeout SECONDS] [--write] [NOTEBOOK ...]

The kernel is ipykernel running under this very interpreter (a temporary
"python3" kernelspec pins sys.executable, so a kernelspec elsewhere that
names a bare `python` cannot pick another environment) and inherits this
process's environment: set PYTHONPATH to choose the tensorlib it imports.
Cells run from the notebook's own directory.

--write stores the executed notebooks back, with their outputs and without
timing metadata, so that committed outputs change only when results do.
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pinned_kernelspec(tmp):
    """A JUPYTER_PATH directory whose python3 kernel is this interpreter."""
    kdir = os.path.join(tmp, "kernels", "python3")
    os.makedirs(kdir)
    with open(os.path.join(kdir, "kernel.json"), "w") as f:
        json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher",
                            "-f", "{connection_file}"],
                   "display_name": "Python 3 (tensorlib CI)",
                   "language": "python"}, f)
    return tmp


def clean(nb):
    """Drops what changes from run to run without the results changing."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    return nb


def run_one(path, timeout, write):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": os.path.dirname(path)}})
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as e:
        print("FAILED {}:\n{}".format(path, e), file=sys.stderr)
        return False
    # Belt and braces: no cell may carry an error output.
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                print("FAILED {}: cell {} raised {}: {}".format(
                    path, i, out.get("ename"), out.get("evalue")),
                    file=sys.stderr)
                return False
    if write:
        nbformat.write(clean(nb), path)
    ncode = sum(c.cell_type == "code" for c in nb.cells)
    print("ok {} ({} code cells)".format(os.path.relpath(path, ROOT), ncode))
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*",
                    help="default: every examples/*.ipynb")
    ap.add_argument("--timeout", type=int, default=120,
                    help="seconds per cell (default 120)")
    ap.add_argument("--write", action="store_true",
                    help="store the executed outputs back")
    args = ap.parse_args(argv)
    paths = args.notebooks or sorted(
        glob.glob(os.path.join(ROOT, "examples", "*.ipynb")))
    if not paths:
        print("no notebooks found in examples/", file=sys.stderr)
        return 1
    tmp = tempfile.mkdtemp(prefix="tl-kernels-")
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [pinned_kernelspec(tmp)] + ([old] if old else []))
    try:
        ok = True
        for p in paths:
            ok = run_one(os.path.abspath(p), args.timeout, args.write) and ok
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
