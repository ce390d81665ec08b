"""float8 inputs to the sorting, scan, indexing, softmax and matrix ops.

float8_e4m3fn and float8_e5m2 are storage dtypes (DESIGN.md "New dtypes"):
casts, copies, views, printing and files.  The ops that compute with or
order values refuse them with a TypeError naming the op and the dtype, as
PyTorch refuses them (with NotImplementedError/RuntimeError there; DESIGN.md
"Errors" assigns TypeError to unsupported dtypes), and leave every operand
unchanged; ops that only move elements keep working where PyTorch's do."""
import numpy as np
import pytest

import tensorlib as tl

F8 = [tl.float8_e4m3fn, tl.float8_e5m2]
VALUES = [[3.0, 1.0, 2.0, -0.5], [0.5, -1.0, 4.0, 448.0],
          [-2.0, 0.25, 8.0, 1.5]]


def _x(dt):
    return tl.tensor(VALUES).to(dt)


def _idx():
    return tl.tensor([[0, 1, 0, 2], [1, 1, 0, 3], [2, 0, 1, 0]])


# name -> (tensorlib call, torch call); each takes (module, x, index)
REFUSED = {
    "sort": lambda m, x, i: m.sort(x),
    "sort_stable_desc": lambda m, x, i: m.sort(x, dim=0, descending=True,
                                             stable=True),
    "argsort": lambda m, x, i: m.argsort(x),
    "msort": lambda m, x, i: m.msort(x),
    "topk": lambda m, x, i: m.topk(x, 2),
    "kthvalue": lambda m, x, i: m.kthvalue(x, 1),
    "median": lambda m, x, i: m.median(x),
    "median_dim": lambda m, x, i: m.median(x, 1),
    "nanmedian": lambda m, x, i: m.nanmedian(x),
    "mode": lambda m, x, i: m.mode(x),
    "unique": lambda m, x, i: m.unique(x),
    "searchsorted": lambda m, x, i: m.searchsorted(x, x),
    "isin": lambda m, x, i: m.isin(x, x),
    "cumsum": lambda m, x, i: m.cumsum(x, 0),
    "cumprod": lambda m, x, i: m.cumprod(x, 1),
    "cummax": lambda m, x, i: m.cummax(x, 0),
    "cummin": lambda m, x, i: m.cummin(x, 1),
    "logcumsumexp": lambda m, x, i: m.logcumsumexp(x, 0),
    "gather": lambda m, x, i: m.gather(x, 1, i),
    "take_along_dim": lambda m, x, i: m.take_along_dim(x, i, 1),
    "scatter": lambda m, x, i: x.scatter(1, i, x),
    "scatter_add": lambda m, x, i: x.scatter_add(1, i, x),
    "scatter_reduce": lambda m, x, i: x.scatter_reduce(1, i, x, "amax"),
    "index_add": lambda m, x, i: x.index_add(0, i[0, :2], x[:2]),
    "index_copy": lambda m, x, i: x.index_copy(0, i[0, 1:3], x[:2]),
    "softmax": lambda m, x, i: m.softmax(x, 0),
    "log_softmax": lambda m, x, i: m.log_softmax(x, 1),
    "dot": lambda m, x, i: m.dot(x[0], x[1]),
    "bmm": lambda m, x, i: m.bmm(x[None], x.t()[None]),
    "linalg.inv": lambda m, x, i: m.linalg.inv(x[:, :3]),
    "linalg.det": lambda m, x, i: m.linalg.det(x[:, :3]),
    "linalg.solve": lambda m, x, i: m.linalg.solve(x[:, :3], x[:, :3]),
    "linalg.qr": lambda m, x, i: m.linalg.qr(x),
    "linalg.svd": lambda m, x, i: m.linalg.svd(x),
    "linalg.eigh": lambda m, x, i: m.linalg.eigh(x[:, :3]),
    "linalg.vector_norm": lambda m, x, i: m.linalg.vector_norm(x),
}
# PyTorch 2.13 multiplies float8 matrices on the CPU; tensorlib refuses
# every float8 arithmetic, products included (docs/differences.md).
REFUSED_HERE_ONLY = {
    "matmul": lambda m, x, i: m.matmul(x, x.t()),
    "mm": lambda m, x, i: m.mm(x, x.t()),
    "@": lambda m, x, i: x[:, :3] @ x[:, :3],
}
# Pure element moves that PyTorch runs on float8 and so does tensorlib.
WORKS = {
    "index_select": lambda m, x, i: m.index_select(x, 0, i[2]),
    "cat": lambda m, x, i: m.cat([x, x.flip(0)], 1),
    "stack": lambda m, x, i: m.stack([x, x.t().t()]),
    "flip": lambda m, x, i: x.flip(0),
    "roll": lambda m, x, i: m.roll(x, 1, 0),
    "repeat": lambda m, x, i: x.repeat(2, 1),
    "advanced_getitem": lambda m, x, i: x[i[0]],
    "masked_select": lambda m, x, i: m.masked_select(x, x.float() > 1),
}


def _unchanged(x, before):
    np.testing.assert_array_equal(x.float().numpy(), before)


@pytest.mark.parametrize("dt", F8, ids=str)
@pytest.mark.parametrize("name", sorted({**REFUSED, **REFUSED_HERE_ONLY}))
def test_float8_is_refused_with_a_clear_type_error(name, dt):
    fn = {**REFUSED, **REFUSED_HERE_ONLY}[name]
    x = _x(dt)
    before = x.float().numpy().copy()
    with pytest.raises(TypeError, match="float8_e"):
        fn(tl, x, _idx())
    _unchanged(x, before)
    # strided, transposed and negative-stride inputs are refused alike
    with pytest.raises(TypeError, match="float8_e"):
        fn(tl, x.flip(0).t().t(), _idx())
    _unchanged(x, before)


@pytest.mark.parametrize("dt", F8, ids=str)
def test_float8_refusals_with_out_and_dtype_leave_out_unchanged(dt):
    x = _x(dt)
    out = tl.full((3, 4), 7.0)
    with pytest.raises(TypeError, match="float8"):
        tl.cumsum(x, 0, out=out)
    with pytest.raises(TypeError, match="float8"):
        tl.cumsum(x.float(), 0, dtype=dt)
    with pytest.raises(TypeError, match="float8"):
        tl.softmax(x.float(), 0, dtype=dt)
    with pytest.raises(TypeError, match="float8"):
        tl.sort(x, out=(out, tl.empty(3, 4, dtype=tl.int64)))
    assert out.tolist() == [[7.0] * 4] * 3
    y = x.clone()
    before = y.float().numpy().copy()
    for f in (lambda: y.scatter_(1, _idx(), y),
              lambda: y.scatter_add_(1, _idx(), y),
              lambda: y.index_add_(0, tl.tensor([0, 2]), y[:2]),
              lambda: y.index_fill_(0, tl.tensor([1]), 2.0)):
        with pytest.raises(TypeError, match="float8"):
            f()
        _unchanged(y, before)


@pytest.mark.parametrize("dt", F8, ids=str)
@pytest.mark.parametrize("name", sorted(WORKS))
def test_float8_element_moves_still_work(name, dt):
    x = _x(dt)
    got = WORKS[name](tl, x, _idx())
    want = WORKS[name](tl, x.float(), _idx())
    assert got.dtype == dt
    np.testing.assert_array_equal(got.float().numpy(), want.numpy())


@pytest.mark.parametrize("dt", F8, ids=str)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_float8_refusals_match_torch(name, dt, torch):
    tdt = getattr(torch, str(dt).split(".")[-1])
    x = torch.tensor(VALUES).to(tdt)
    i = torch.tensor(_idx().tolist())
    with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
        REFUSED[name](torch, x, i)
    for name2, fn in WORKS.items():
        assert fn(torch, x, i).dtype == tdt, name2
