"""Builds libtensorlib and the C unit tests (tests/c/) with the Makefile and
runs them, so that the README's test command runs everything."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
def test_c_unit_tests():
    if shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("make and gcc are needed for the C tests")
    # PYTHON: the interpreter whose scipy_openblas64 the Makefile links.
    proc = subprocess.run(["make", "-s", "ctest",
                           "PYTHON=" + sys.executable], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-8000:]
    assert " 0 failures" in out, out[-8000:]
