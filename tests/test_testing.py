"""tensorlib.testing.assert_close against torch.testing.assert_close: the
same cases built in both libraries must pass or fail alike, with the same
exception class and message (module names aside); plus what only
tensorlib accepts (NumPy arrays, scalars and sequences beside tensors)."""
import math

import numpy as np
import pytest

import tensorlib as tl
from tensorlib.testing import assert_close

NAN, INF = float("nan"), float("inf")

# (actual, expected, kwargs) as nested Python data; "T(data, dtype)" marks
# a tensor.


class T:
    def __init__(self, data, dtype="float32", t=False):
        self.data, self.dtype, self.t = data, dtype, t

    def build(self, lib):
        x = lib.tensor(self.data, dtype=getattr(lib, self.dtype))
        return x.t() if self.t else x


def build(obj, lib):
    if isinstance(obj, T):
        return obj.build(lib)
    if isinstance(obj, list):
        return [build(o, lib) for o in obj]
    if isinstance(obj, tuple):
        return tuple(build(o, lib) for o in obj)
    if isinstance(obj, dict):
        return {k: build(v, lib) for k, v in obj.items()}
    return obj


CASES = [
    (T([1., 2., 3.]), T([1., 2., 3.]), {}),
    (T([1., 2., 3.]), T([1., 2.5, 3.]), {}),
    (T([1., 2., 3.]), T([1., 2. + 1e-6, 3.]), {}),
    (T([[1., 2.], [3., 0.]]), T([[1., 2.], [3.1, 1e-9]]), {}),
    (T([[1., 2.], [3., 0.]]), T([[1., 2.], [3.1, 1.]]), {}),
    (T([1, 2, 3], "int64"), T([1, 2, 4], "int64"), {}),
    (T([1, 2, 3], "int32"), T([1, 2, 3], "int32"), {}),
    (T([True, False], "bool"), T([True, True], "bool"), {}),
    (T([1., 2.]), T([1., 2.], "float64"), {}),
    (T([1., 2.]), T([1., 2.], "float64"), {"check_dtype": False}),
    (T([1., 2.]), T([1., 3.], "float64"), {"check_dtype": False}),
    (T([1, 2], "int64"), T([1., 2.5]), {"check_dtype": False}),
    (T([1., 2.]), T([1., 2., 3.]), {}),
    (T(1.5), T(1.0), {}),
    (T(1.5, "float64"), T(1.0, "float64"), {}),
    (T(2, "int64"), T(3, "int64"), {}),
    (1.5, 1.0, {}),
    (1.0, 1.0 + 1e-9, {}),
    (1, 1.0, {}),
    (1, 1.0, {"check_dtype": False}),
    (3, 4, {}),
    (NAN, NAN, {}),
    (NAN, NAN, {"equal_nan": True}),
    ([T([1.]), T([2.])], [T([1.]), T([3.])], {}),
    ((T([1.]), [T([2.]), T([4.])]), (T([1.]), [T([2.]), T([5.])]), {}),
    ([T([1.])], [T([1.]), T([2.])], {}),
    ({"a": T([1.])}, {"a": T([2.])}, {}),
    ({"a": T([1.])}, {"b": T([1.])}, {}),
    (T([NAN, 1.]), T([NAN, 1.]), {}),
    (T([NAN, 1.]), T([NAN, 1.]), {"equal_nan": True}),
    (T([1., NAN]), T([1., 2.]), {}),
    (T([1., INF]), T([1., INF]), {}),
    (T([1., INF]), T([1., -INF]), {}),
    (T([0., 0.]), T([0., 1e-3]), {}),
    (T([1.]), T([1.1]), {"rtol": 0.2, "atol": 0.0}),
    (T([1.]), T([1.1]), {"rtol": 0.0, "atol": 0.0}),
    (T([1.]), T([1.1]), {"rtol": 0.2}),
    (T([1.]), T([1.1]), {"atol": 0.2}),
    (T([1., 2.]), T([1., 3.]), {"msg": "boom"}),
    (T([1., 2.]), T([1., 3.]), {"msg": lambda m: "custom: " + m}),
    (T([[1., 2.], [3., 4.]], t=True), T([[1., 3.], [2., 4.]]), {}),
    (T([[1., 2.], [3., 4.]], t=True), T([[1., 3.], [2., 4.]]),
     {"check_stride": True}),
    (T([1., 2.], "float16"), T([1., 2.001], "float16"), {}),
    (T([1., 2.], "float16"), T([1., 2.01], "float16"), {}),
    (T([1., 2.], "bfloat16"), T([1., 2.02], "bfloat16"), {}),
    (T([1 + 2j], "complex64"), T([1 + 2.5j], "complex64"), {}),
    (T([1 + 2j], "complex128"), T([1 + 2j], "complex128"), {}),
    (None, None, {}),
    ("a", "a", {}),
    (T([[1., 2., 3.], [4., 5., 6.]]), T([[1., 2., 3.5], [4., 9., 6.]]), {}),
]


def run(fn, actual, expected, kw):
    try:
        fn(actual, expected, **kw)
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e), str(e)
    return None


@pytest.mark.parametrize("actual,expected,kw", CASES)
def test_same_outcome_and_message_as_torch(actual, expected, kw, torch):
    ours = run(assert_close, build(actual, tl), build(expected, tl), kw)
    theirs = run(torch.testing.assert_close, build(actual, torch),
                 build(expected, torch), kw)
    if ours is None or theirs is None:
        assert ours == theirs
        return
    assert ours[0] is theirs[0]
    assert ours[1].replace("tensorlib", "torch") == theirs[1]


def test_numpy_scalars_and_sequences_on_either_side():
    t = tl.tensor([1.0, 2.0], dtype=tl.float64)
    assert_close(t, np.array([1.0, 2.0]))
    assert_close(np.array([1.0, 2.0]), t)
    assert_close(tl.tensor([1.0, 2.0]), [1.0, 2.0])
    assert_close([1.0, 2.0], tl.tensor([1.0, 2.0]))
    assert_close(tl.tensor(3, dtype=tl.int64), 3)
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(t, np.array([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(t, [1.0, 2.0])      # a list of floats is float32
    assert_close(t, [1.0, 2.0], check_dtype=False)


def test_message_names_counts_differences_and_indices():
    a = tl.zeros(3, 4)
    e = tl.zeros(3, 4)
    e[1, 2] = 2.0
    e[2, 3] = 0.5
    with pytest.raises(AssertionError) as info:
        assert_close(a, e)
    m = str(info.value)
    assert "Mismatched elements: 2 / 12 (16.7%)" in m
    assert "Greatest absolute difference: 2.0 at index (1, 2)" in m
    assert "Greatest relative difference: 1.0 at index (1, 2)" in m
    assert "(up to 1e-05 allowed)" in m and "(up to 1.3e-06 allowed)" in m


def test_strided_and_broadcast_views_compare_by_value():
    base = tl.arange(12.0).reshape(3, 4)
    ref = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert_close(base.t(), tl.tensor(ref.T.copy()))
    assert_close(base.flip(0)[::2], tl.tensor(ref[::-1][::2].copy()))
    assert_close(tl.ones(1, 3).expand(2, 3), tl.ones(2, 3))
    assert_close(tl.zeros(0, 3), tl.zeros(0, 3))


def test_inputs_unchanged_and_no_leak():
    import gc
    a = tl.ones(100)
    e = tl.ones(100) * 2
    for _ in range(5):
        with pytest.raises(AssertionError):
            assert_close(a, e)
    gc.collect()
    before = tl.memory_stats()["active_bytes"]
    for _ in range(200):
        with pytest.raises(AssertionError):
            assert_close(a, e)
        assert_close(a, a)
    gc.collect()
    assert tl.memory_stats()["active_bytes"] == before
    assert math.isclose(float(a.sum()), 100.0)
