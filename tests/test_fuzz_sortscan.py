"""Differential fuzzing of sorting, scans and softmax (hypothesis).

Operands come from the reduction fuzzer's strategy (tests/test_fuzz_reduce:
random dtypes, shapes with sizes 0 and 1, views with steps, negative
steps, flips, permutes, expands, NaN/inf/-0.0 sprinkled).  The oracle:
which inputs raise, and the result dtypes, follow PyTorch run on the same
values; values follow NumPy (stable orders, float64 scans) or PyTorch
where NumPy has no such op.  Every failing call leaves its operands
unchanged, and raises the class DESIGN.md "Errors" assigns."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorlib as tl
from _ops_common import NAME, is_complex, is_float, to_np
from test_fuzz_reduce import (SENSIBLE, assert_unchanged, operands, quiet,
                              same, snapshot, tdt, to_torch)

ORDER_OPS = ["sort", "argsort", "topk", "kthvalue", "median", "nanmedian",
             "mode", "msort"]
SCAN_OPS = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
            "softmax", "log_softmax", "diff"]


def np_order(x, dim, desc):
    """PyTorch's stable order: NaN largest, -0 == +0."""
    if x.dtype == np.uint64:
        key = np.iinfo(np.uint64).max - x if desc else x
        return np.argsort(key, axis=dim, kind="stable")
    xf = x.astype(np.float64)
    if not desc:
        return np.argsort(xf + 0.0, axis=dim, kind="stable")
    nan = np.isnan(xf)
    sec = np.moveaxis(np.where(nan, 0.0, -xf) + 0.0, dim, -1)
    prim = np.moveaxis((~nan).astype(np.int8), dim, -1)
    out = np.empty(sec.shape, np.int64)
    for ix in np.ndindex(sec.shape[:-1]):
        out[ix] = np.lexsort((sec[ix], prim[ix]))
    return np.moveaxis(out, -1, dim)


def run_tl_torch(torch, fn_tl, fn_torch, a, what):
    """Runs both; on a PyTorch error expects one of tensorlib's with the
    operand unchanged.  Returns (tl result, torch result) or None."""
    snap = snapshot(a.t)
    texc = None
    with quiet():
        try:
            want = fn_torch(to_torch(torch, a.x, a.d))
        except (RuntimeError, IndexError, TypeError,
                NotImplementedError) as e:
            texc = e
        try:
            got = fn_tl(a.t)
        except SENSIBLE as e:
            # PyTorch skips its dim and dtype checks on some empty and
            # 0-d inputs;
            # tensorlib checks every input (docs/differences.md)
            assert texc is not None or a.x.size == 0 or a.x.ndim == 0, (
                what, a, "tensorlib raised", e)
            assert_unchanged(snap, what)
            return None
    assert texc is None, (what, a, "PyTorch raised", texc)
    assert_unchanged(snap, what)
    return got, want


@given(a=operands(max_ndim=4), data=st.data(),
       op=st.sampled_from(ORDER_OPS))
def test_fuzz_order_ops(torch, a, data, op):
    nd = a.x.ndim
    dim = data.draw(st.integers(-max(nd, 1) - 1, max(nd, 1)), "dim")
    desc = data.draw(st.booleans(), "descending")
    n = a.x.shape[dim] if nd and -nd <= dim < nd else 1
    k = data.draw(st.integers(0, n + 1), "k")
    keepdim = data.draw(st.booleans(), "keepdim")
    d = a.d
    if d in (tl.uint16, tl.uint32, tl.uint64) or d == tl.bool and op in (
            "median", "nanmedian", "kthvalue", "mode", "topk"):
        return  # PyTorch has no CPU kernel to compare with
    fns = {
        "sort": (lambda t: tl.sort(t, dim, desc),
                 lambda t: torch.sort(t, dim=dim, descending=desc,
                                      stable=True)),
        "argsort": (lambda t: tl.argsort(t, dim, desc),
                    lambda t: torch.argsort(t, dim=dim, descending=desc,
                                            stable=True)),
        "msort": (lambda t: tl.msort(t), lambda t: torch.msort(t)),
        "topk": (lambda t: tl.topk(t, k, dim, desc),
                 lambda t: torch.topk(t, k, dim, desc)),
        "kthvalue": (lambda t: tl.kthvalue(t, k, dim, keepdim),
                     lambda t: torch.kthvalue(t, k, dim, keepdim)),
        "median": (lambda t: tl.median(t, dim, keepdim),
                   lambda t: torch.median(t, dim, keepdim)),
        "nanmedian": (lambda t: tl.nanmedian(t, dim, keepdim),
                      lambda t: torch.nanmedian(t, dim, keepdim)),
        "mode": (lambda t: tl.mode(t, dim, keepdim),
                 lambda t: torch.mode(t, dim, keepdim)),
    }
    r = run_tl_torch(torch, *fns[op], a, op)
    if r is None:
        return
    got, want = r
    if op == "argsort":
        assert same(to_np(got), np_order(a.x, dim, desc) if nd else
                    np.zeros((), np.int64)), (a, dim)
        return
    if op == "msort":
        assert same(to_np(got), np.take_along_axis(
            a.x, np_order(a.x, 0, False), 0)) if nd else True
        return
    v, i = got
    tv, ti = want
    assert v.dtype == d and i.dtype == tl.int64
    assert tuple(v.shape) == tuple(tv.shape), (op, a)
    if op == "mode" and is_float(d) and np.isnan(a.x).any():
        return  # PyTorch's mode with NaN depends on its comparison sort
    assert same(to_np(v), tv.float().numpy() if d == tl.bfloat16
                else tv.numpy()), (op, a, dim)
    if op in ("sort", "topk") and nd:
        want_i = np.take(np_order(a.x, dim, desc),
                         np.arange(i.shape[dim]), axis=dim)
        assert same(to_np(i), want_i), (op, a, dim)


@given(a=operands(max_ndim=4), data=st.data(),
       op=st.sampled_from(SCAN_OPS))
def test_fuzz_scans_softmax(torch, a, data, op):
    nd = a.x.ndim
    dim = data.draw(st.integers(-max(nd, 1) - 1, max(nd, 1)), "dim")
    d = a.d
    dtype = data.draw(st.sampled_from([None, tl.float64, tl.int64]),
                      "dtype") if op in ("cumsum", "cumprod", "softmax") \
        else None
    if d in (tl.uint16, tl.uint32, tl.uint64) or (
            op == "logcumsumexp" and is_complex(d)):
        return  # no PyTorch kernel; complex logcumsumexp is a known gap
    kw = {} if dtype is None else {"dtype": dtype}
    tkw = {} if dtype is None else {"dtype": tdt(torch, dtype)}
    if op == "diff":
        n = data.draw(st.integers(0, 3), "n")
        if n == 0 and not -max(nd, 1) <= dim < max(nd, 1):
            return  # PyTorch's diff(n=0) returns the input unchecked
        fns = (lambda t: tl.diff(t, n, dim), lambda t: torch.diff(t, n, dim))
    else:
        fns = (lambda t: getattr(tl, op)(t, dim, **kw),
               lambda t: getattr(torch, op)(t, dim, **tkw))
    r = run_tl_torch(torch, *fns, a, op)
    if r is None:
        return
    got, want = r
    if op in ("cummax", "cummin"):
        assert same(to_np(got[0]), want[0].float().numpy()
                    if d == tl.bfloat16 else want[0].numpy()), (op, a)
        assert same(to_np(got[1]), want[1].numpy()), (op, a)
        return
    assert NAME[got.dtype] == str(want.dtype).split(".")[-1], (op, a)
    assert tuple(got.shape) == tuple(want.shape)
    g = to_np(got)
    w = want.float().numpy() if want.dtype == torch.bfloat16 else \
        want.numpy()
    xr = a.x.real if is_complex(d) else a.x  # complex casts keep the real
    if dtype == tl.int64 and (is_float(d) or is_complex(d)) and not np.all(
            np.abs(xr.astype(np.float64)) < 2.0 ** 63):
        # NaN, inf or out-of-range values cast to int64: PyTorch's cast is
        # undefined there, ours saturates (DESIGN.md), so NumPy scans the
        # saturated values instead (complex64 too: a helper's random run)
        x = saturate_int64(xr).reshape(a.x.shape or (1,))
        w = (np.cumsum if op == "cumsum" else np.cumprod)(
            x, axis=dim % max(nd, 1)).reshape(g.shape)
    if is_complex(got.dtype) or is_float(got.dtype):
        rt = {tl.float16: 2e-2, tl.bfloat16: 1e-1, tl.float32: 1e-4,
              tl.complex64: 1e-4}.get(got.dtype, 1e-9)
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(
                g, w, rtol=rt, atol=rt * max(1.0, float(np.nanmax(np.abs(
                    np.where(np.isfinite(w), w, 0)), initial=0))),
                equal_nan=True, err_msg=f"{op} {a}")
    else:
        assert np.array_equal(g, w), (op, a)


def saturate_int64(x):
    """DESIGN.md's float -> int64 cast: NaN is 0, values beyond the range
    (inf included) give its minimum or maximum."""
    xf = np.nan_to_num(np.asarray(x, dtype=np.float64), nan=0.0,
                       posinf=np.inf, neginf=-np.inf)
    inside = np.abs(xf) < 2.0 ** 63
    out = np.where(xf > 0, np.iinfo(np.int64).max, np.iinfo(np.int64).min)
    out[inside] = xf[inside].astype(np.int64)
    return out


def test_saturate_int64_is_the_cast():
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 2.5, -2.5, 0.0])
    for dt in (tl.float16, tl.float32, tl.float64):
        t = tl.tensor(x.tolist(), dtype=dt)
        assert np.array_equal(to_np(t.to(tl.int64)), saturate_int64(to_np(t)))


@given(a=operands(max_ndim=3), data=st.data())
def test_fuzz_unique_search(torch, a, data):
    d = a.d
    if d in (tl.uint16, tl.uint32, tl.uint64) or is_complex(d):
        return
    with quiet():
        v, inv, cnt = tl.unique(a.t, return_inverse=True,
                                return_counts=True)
    x = a.x
    gv = to_np(v)
    assert same(gv[to_np(inv)], x) if x.size else inv.shape == a.t.shape
    assert to_np(cnt).sum() == x.size
    nonnan = x[~np.isnan(x.astype(np.float64))] if x.size else x
    u = np.unique(nonnan + 0 if is_float(d) else nonnan)
    assert same(gv[:len(u)], u)
    # searchsorted of the values into their own sorted unique values
    if x.size and len(u):
        s = tl.searchsorted(v[:len(u)], a.t,
                            right=data.draw(st.booleans(), "right"))
        assert tuple(s.shape) == x.shape
        assert to_np(s).max() <= len(u)
        m = tl.isin(a.t, v[: max(1, len(u) // 2)])
        assert m.dtype == tl.bool and tuple(m.shape) == x.shape
        ref = np.isin(x, to_np(v[: max(1, len(u) // 2)]))
        assert np.array_equal(to_np(m), ref & ~np.isnan(
            x.astype(np.float64)))


@pytest.mark.slow
@given(a=operands(big=True, max_ndim=3), data=st.data())
def test_fuzz_big_sort_scan(torch, a, data):
    nd = a.x.ndim
    if not nd or a.d in (tl.uint16, tl.uint32, tl.uint64, tl.bool) or \
            is_complex(a.d):
        return
    dim = data.draw(st.integers(-nd, nd - 1), "dim")
    with quiet():
        i = tl.argsort(a.t, dim)
    assert same(to_np(i), np_order(a.x, dim, False))
    c = tl.cumsum(a.t, dim)
    with quiet():
        ref = np.cumsum(a.x.astype(np.float64) if is_float(a.d)
                        else a.x.astype(np.int64), axis=dim)
        if is_float(a.d):
            np.testing.assert_allclose(to_np(c), ref, rtol=1e-2, atol=1e-2,
                                       equal_nan=True)
        else:
            assert np.array_equal(to_np(c), ref)
