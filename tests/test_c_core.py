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
    # One job per core: the build and the tests (each test's output kept
    # whole).
    jobs = "-j%d" % (os.cpu_count() or 1)
    proc = subprocess.run(["make", "-s", jobs, "--output-sync=target",
                           "ctest", "PYTHON=" + sys.executable], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-8000:]
    assert " 0 failures" in out, out[-8000:]


def test_umbrella_header_includes_every_public_header(tmp_path):
    """tensorlib/tensorlib.h includes every header of csrc/include/tensorlib,
    and compiles on its own (C11, no internal macro defined, no warning)."""
    inc = os.path.join(ROOT, "csrc", "include", "tensorlib")
    with open(os.path.join(inc, "tensorlib.h")) as f:
        umbrella = f.read()
    missing = [h for h in sorted(os.listdir(inc))
               if h.endswith(".h") and h != "tensorlib.h"
               and f'#include "tensorlib/{h}"' not in umbrella]
    assert not missing, f"tensorlib.h does not include {missing}"
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to compile the umbrella header")
    src = tmp_path / "umbrella.c"
    src.write_text('#include "tensorlib/tensorlib.h"\n'
                   "int main(void) { return TL_OK; }\n")
    proc = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                           "-fsyntax-only", "-I",
                           os.path.join(ROOT, "csrc", "include"), str(src)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-4000:]
