"""The notebooks in examples/ execute headlessly without a cell error
(.ci/notebook.py: nbclient + ipykernel), against this tensorlib.

Without nbclient, nbformat or ipykernel the tests skip, unless
TENSORLIB_REQUIRE_NOTEBOOK=1 (CI), where they fail instead."""
import glob
import importlib
import os
import subprocess
import sys

import pytest

import tensorlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, ".ci", "notebook.py")


@pytest.fixture(scope="module")
def notebook_tools():
    missing = []
    for mod in ("nbclient", "nbformat", "ipykernel"):
        try:
            importlib.import_module(mod)
        except ImportError:
            missing.append(mod)
    if missing:
        msg = "notebook tools not installed: " + ", ".join(missing)
        if os.environ.get("TENSORLIB_REQUIRE_NOTEBOOK", "") not in ("", "0"):
            pytest.fail(msg + " (TENSORLIB_REQUIRE_NOTEBOOK=1)")
        pytest.skip(msg)


def run_runner(args, tmp_path):
    # The kernel imports the same tensorlib as this test process.
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(
        tensorlib.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                      if p])
    return subprocess.run([sys.executable, RUNNER] + args, cwd=str(tmp_path),
                          env=env, capture_output=True, text=True,
                          timeout=600)


def test_examples_has_the_tour_notebook():
    nbs = sorted(os.path.basename(p) for p in
                 glob.glob(os.path.join(ROOT, "examples", "*.ipynb")))
    assert "tour.ipynb" in nbs


def test_every_example_notebook_runs(notebook_tools, tmp_path):
    before = {p: open(p, "rb").read() for p in
              glob.glob(os.path.join(ROOT, "examples", "*.ipynb"))}
    r = run_runner(["--timeout", "120"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    for p in before:
        assert "ok examples/" + os.path.basename(p) in r.stdout
        # Running never rewrites the committed notebooks (only --write).
        assert open(p, "rb").read() == before[p]


def test_a_failing_cell_fails_the_run(notebook_tools, tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[
        new_code_cell("import tensorlib as tl\nt = tl.zeros(3)"),
        new_code_cell("t.reshape(4)"),  # a ShapeError
    ])
    path = tmp_path / "bad.ipynb"
    nbformat.write(nb, str(path))
    r = run_runner(["--timeout", "60", str(path)], tmp_path)
    assert r.returncode != 0
    assert "ShapeError" in r.stderr


def test_committed_tour_outputs_have_no_errors():
    import json

    with open(os.path.join(ROOT, "examples", "tour.ipynb")) as f:
        nb = json.load(f)
    kinds = set()
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error"
            kinds.update(out.get("data", {}))
    # Executed outputs are committed: the pictures show on GitHub.
    assert "text/html" in kinds
