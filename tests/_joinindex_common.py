"""Helpers shared by the joining / rearranging / creation / indexing-op
suites (test_join.py, test_rearrange.py, test_creation_ops.py,
test_index_ops.py, test_fuzz_joinindex.py)."""
import numpy as np
import pytest

import tensorlib as tl
from _ops_common import (LAYOUTS, NAME, TORCH_FULL, as_dtype,  # noqa: F401
                         from_np, random_values, to_np, torch_dtype,
                         view_as)


def tt(torch, t):
    """A torch tensor holding t's values and dtype (bfloat16 through
    float32)."""
    if t.dtype == tl.bfloat16:
        return torch.from_numpy(to_np(t)).to(torch.bfloat16)
    return torch.from_numpy(to_np(t))


def same_error(torch_fn, tl_fn, cls=None):
    """Both calls raise; tensorlib's exception is of the class PyTorch's
    is (ShapeError counts as RuntimeError and ValueError), or of cls where
    DESIGN.md "Errors" assigns another (a bad dtype is TypeError, a bad
    value ValueError, where PyTorch raises RuntimeError).  Returns
    tensorlib's exception."""
    with pytest.raises(Exception) as te:
        torch_fn()
    with pytest.raises(Exception) as ours:
        tl_fn()
    want = te.type if cls is None else cls
    if want is NotImplementedError:
        want = RuntimeError
    assert isinstance(ours.value, want), (ours.type, te.type,
                                          str(ours.value))
    return ours.value


def snapshot(*ts):
    """(values, version) of each tensor, to prove a failed call left
    them alone."""
    return [(to_np(t), t._version) for t in ts]


def assert_unchanged(snap, *ts):
    for (v, ver), t in zip(snap, ts):
        np.testing.assert_array_equal(to_np(t), v)
        assert t._version == ver


def rand_tensor(shape, d, rng, layout=None):
    """A random tensor of dtype d and shape in a random (or the given)
    layout; also returns its values as a NumPy array."""
    v = random_values(shape, d, rng, "small")
    if layout is None:
        layout = LAYOUTS[rng.integers(len(LAYOUTS))]
    return view_as(v, d, layout), np.asarray(as_dtype(v, d))
