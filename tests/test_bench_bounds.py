"""The plain-C bound of bench_reduce.py's reductions table
(benchmarks/bounds/kernels.c tlb_reduce, compiled by benchmarks/run.py on
first use): every op family, dtype and layout of the table, on one and
two threads (the persistent pool), agrees with NumPy.  bound_fn checks
the bound's result against NumPy and returns None on a mismatch."""
import os
import shutil
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None and
                                not os.environ.get("CC"),
                                reason="no C compiler for the bound kernels")


@pytest.fixture(scope="module")
def br():
    import bench_reduce
    if bench_reduce.bounds_lib() is None:
        pytest.fail("the bound kernels did not build")
    return bench_reduce


@pytest.mark.parametrize("nt", [1, 2])
def test_bound_matches_numpy(br, nt):
    rng = np.random.default_rng(nt)
    layouts = [((20000,), None), ((9, 20000), 1), ((300, 70), 0),
               ((6, 50, 33), 1), ((2, 3000), 1)]
    checked = 0
    for shape, dim in layouts:
        base = rng.standard_normal(shape)
        arrays = {"float32": base.astype(np.float32), "float64": base,
                  "int32": rng.integers(-9, 9, shape).astype(np.int32),
                  "bool": base > 0.5}
        for name, x in arrays.items():
            ops = ["amax", "amin"] if name == "bool" else \
                ["sum", "amax", "amin", "count_nonzero", "var",
                 "vector_norm"]
            for op in ops:
                assert br.bound_fn(op, x, dim, nt) is not None, \
                    (op, name, shape, dim)
                checked += 1
        p = (1 + 1e-3 * base).astype(np.float32)
        assert br.bound_fn("prod", p, dim, nt) is not None, (shape, dim)
    assert checked == 5 * (3 * 6 + 2)
    # no bound for ops bounded by arithmetic, or for non-contiguous input
    x = rng.standard_normal((8, 8))
    assert br.bound_fn("logsumexp", x, 1, nt) is None
    assert br.bound_fn("sum", x[:, ::2], 1, nt) is None
