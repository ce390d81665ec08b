"""tensorlib's OpenBLAS (scipy-openblas64, 64-bit indices) stays private to
tensorlib._C: SciPy's own OpenBLAS, loaded after tensorlib, keeps working
(scipy.linalg.svd failed with "Too large work array required" when the
library was loaded RTLD_GLOBAL; scikit-learn's PCA and LDA call it).  Run
in a fresh interpreter, since import order is the point."""
import os
import subprocess
import sys

import pytest

CODE = """
import tensorlib as tl
import numpy as np
import scipy.linalg as sl
rng = np.random.default_rng(0)
for shape in [(50, 6), (7, 30), (64, 64)]:
    x = rng.standard_normal(shape)
    s = sl.svd(x, full_matrices=False)[1]
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False),
                               rtol=1e-10)
    np.testing.assert_allclose(sl.solve(x @ x.T + np.eye(shape[0]),
                                        np.ones(shape[0])),
                               np.linalg.solve(x @ x.T + np.eye(shape[0]),
                                               np.ones(shape[0])),
                               rtol=1e-8)
    # and tensorlib's own LAPACK/BLAS still answer
    t = tl.from_numpy(x.copy())
    np.testing.assert_allclose(np.asarray(tl.linalg.svdvals(t)), s,
                               rtol=1e-10)
    np.testing.assert_allclose(np.asarray(t @ t.T), x @ x.T, rtol=1e-12)
print("ok")
"""


def test_scipy_lapack_after_tensorlib():
    pytest.importorskip("scipy.linalg")
    import tensorlib

    # the tensorlib this process tests (a build directory in CI's
    # sanitizer phase), first on the child's path
    root = os.path.dirname(os.path.dirname(os.path.abspath(
        tensorlib.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    res = subprocess.run([sys.executable, "-c", CODE], cwd=root, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "ok"
