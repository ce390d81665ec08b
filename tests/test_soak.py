"""The soak (tests/soak.py): a random program over the public API checked
against a NumPy model, with allocator bytes, refcounts and RSS flat at the
end.  10^5 steps here (slow: ~45 s on a loaded 2-core machine; the main CI
phase runs it); a 3000-step version runs everywhere, the sanitizer phase
included.  The long run: python tests/soak.py --steps 1000000."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import soak  # noqa: E402


def test_soak_short():
    r = soak.soak(3000, seed=1)
    assert all(r["counts"].get(n, 0) > 0 for n in (
        "s_view", "s_inplace", "s_shrink", "s_export", "s_workspace",
        "s_pickle", "s_threads")), r["counts"]


@pytest.mark.slow
def test_soak_1e5():
    r = soak.soak(100000, seed=0)
    assert r["steps"] == 100000
