"""A table-driven sweep of the macro-generated CPU kernels over every dtype
and every loop shape they have (issue 23, branch coverage).

The kernel files instantiate one loop per (op, dtype), and each loop has
several shapes: contiguous rows with vector bodies and scalar tails, a
strided row, a stride-0 (scalar or broadcast) operand, a columns kernel
for reductions over outer dims (blocks of 8 rows, tiles of 512 outputs),
the records' combine step (a reduction over dims that do not coalesce, or
past one chunk of 32768 elements) and, for floats, the NaN blocks.  The
other suites test the semantics on a few dtypes; this one runs each
(family, dtype) through each shape:

- reductions (csrc/core/reduce_kernels.c): sum prod mean amax amin max/min
  with a dim, argmax argmin any all count_nonzero var std nansum nanmean;
- binary ops (csrc/core/kernels_binary.c): every op of the table, every
  compute dtype, the four row shapes;
- scans (csrc/core/scan.c): rows, lanes, task splits, the two-pass long
  rows; cummax/cummin per dtype;
- index ops (csrc/core/index_ops.c): the copy and reduce runs per item
  size / dtype, dense and strided, aligned and not, bad indices;
- the unary, where, clamp and cast loops: tests/test_kernel_sweep_unary.py.

Values against NumPy on the inputs cast to the result dtype; result dtypes
and which dtypes are refused against torch (uint16/32/64, which torch
lacks kernels for, follow NumPy and are checked against it only)."""
import warnings

import numpy as np
import pytest

import tensorlib as tl
from _ops_common import (ALL, COMPLEX, FLOATS, INTS, NAME, NP, TORCH_FULL,
                         as_dtype, rng_for)

HALF = (tl.float16, tl.bfloat16)
# Relative precision of each result dtype (twice the unit roundoff).
EPS = {tl.float16: 2.0 ** -10, tl.bfloat16: 2.0 ** -7,
       tl.float32: 2.0 ** -23, tl.float64: 2.0 ** -51,
       tl.complex64: 2.0 ** -23, tl.complex128: 2.0 ** -51}


# The spacing of the subnormals of each result dtype.
TINY = {tl.float16: 2.0 ** -24, tl.bfloat16: 2.0 ** -133,
        tl.float32: 2.0 ** -149, tl.float64: 2.0 ** -1074,
        tl.complex64: 2.0 ** -149, tl.complex128: 2.0 ** -1074}


# ---- helpers --------------------------------------------------------------

def make(a, d):
    """A contiguous tensor of dtype d holding the NumPy values a (already
    exact in d: as_dtype(..., d))."""
    a = np.ascontiguousarray(a)
    if d == tl.bfloat16:
        return tl.from_numpy(a.astype(np.float32)).to(tl.bfloat16)
    if d == tl.bool:
        return tl.from_numpy(a.astype(np.bool_))
    return tl.from_numpy(a.astype(NP[d]))


def npv(t):
    """The values of a tensorlib tensor as NumPy (bfloat16 as float32)."""
    if t.dtype == tl.bfloat16:
        t = t.to(tl.float32)
    return np.asarray(t.numpy())


def rand_values(rng, d, shape, kind="any"):
    """Random values exact in d.  kind: "any" (the full integer range,
    normal floats), "small" (factors for products)."""
    n = int(np.prod(shape))
    if d == tl.bool:
        v = rng.random(n) < 0.5
    elif d in INTS:
        info = np.iinfo(NP[d])
        if kind == "small":
            lo = 0 if info.min == 0 else -2
            v = rng.integers(lo, 3, n)
            v[rng.random(n) < 0.7] = 1
        else:
            v = rng.integers(info.min, info.max, n, dtype=NP[d],
                             endpoint=True)
    elif kind == "unit":   # long products that stay finite
        x = rng.uniform(0.98, 1.02, n)
        x[rng.random(n) < 0.3] *= -1
        if d in COMPLEX:
            x = x * np.exp(1j * rng.uniform(0, 6.3, n))
        v = x
    else:
        if kind == "small":
            x = rng.uniform(0.6, 1.5, n)
            x[rng.random(n) < 0.3] *= -1
        else:
            x = rng.standard_normal(n) * 4
        if d in COMPLEX:
            y = rng.uniform(0.6, 1.2, n) if kind == "small" else \
                rng.standard_normal(n) * 4
            if kind == "any":   # zero real or imaginary parts, zeros
                x[rng.random(n) < 0.2] = 0
                y[rng.random(n) < 0.2] = 0
            x = x + 1j * y
        v = x
    return as_dtype(np.asarray(v).reshape(shape), d)


def to_f64(a):
    a = np.asarray(a)
    if np.iscomplexobj(a):
        return a.astype(np.complex128)
    return a.astype(np.float64)


def torch_verdict(torch, d, fn):
    """('ok', torch dtype name) / ('refused', None) / ('missing', None) for
    fn(torch, tensor of dtype d)."""
    if d not in TORCH_FULL and d not in (tl.uint16, tl.uint32, tl.uint64):
        return ("missing", None)
    tt = torch.ones(2, 3, dtype=getattr(torch, NAME[d]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(torch, tt)
    except NotImplementedError:
        return ("missing", None)
    except (RuntimeError, TypeError):
        return ("refused", None)
    if isinstance(r, tuple):
        r = r[0]
    return ("ok", str(r.dtype).split(".")[-1])


def run_or_refused(torch, name, d, call, torch_fn, later):
    """call() on dtype d against torch's verdict (torch_verdict of
    torch_fn): None when ours refuses with TypeError (torch must refuse
    too, unless d is complex and name is in `later`, refused by design),
    else the result, whose dtype must be torch's where torch has one."""
    verdict, tname = torch_verdict(torch, d, torch_fn)
    try:
        r = call()
    except TypeError:
        assert verdict != "ok" or (d in COMPLEX and name in later), (name, d)
        return None
    assert verdict != "refused", (name, d, "torch refuses")
    if verdict == "ok":
        assert NAME[r.dtype] == tname, (name, d, r.dtype, tname)
    return r


# ---- reductions -----------------------------------------------------------
#
# Layouts: (name, base shape, view, dim).  `view` applies to the NumPy
# array and the tensor alike.  What each reaches in reduce.c /
# reduce_kernels.c:
#   row*      one output, the row kernel (contiguous: lanes of 8 and a
#             tail; strided: the scalar loop);
#   rows2     a full reduction of a view whose dims do not coalesce: the
#             row kernel per row and the family's combine of the records;
#   chunks    past TL_REDUCE_RCHUNK (32768): records per chunk, combined;
#   cols*     a reduction over dim 0: the cols kernel (contiguous columns:
#             blocks of 8 rows and the rest; strided columns: the
#             scalar loop), with more than a tile (512) of outputs once;
#   mid       the middle dim of a 3-d tensor (cols over a kept inner dim);
#   last      dim -1 of a matrix: many outputs of the row kernel;
#   last_strided  dim -1 of a matrix's every other column: strided rows;
#   tlast     dim -1 of a transposed matrix: cols with strided columns;
#   cols_tall more than 64 rows: the float sums' pairwise cols halves.
RLAYOUTS = [
    ("row1", (1,), lambda v: v, None),
    ("row7", (7,), lambda v: v, None),
    ("row9", (9,), lambda v: v, None),
    ("row37", (37,), lambda v: v, None),
    ("row140", (140,), lambda v: v, None),
    ("row_strided", (66,), lambda v: v[::3], None),
    ("rows2", (5, 23), lambda v: v[:, :19], None),
    ("cols", (19, 37), lambda v: v, 0),
    ("cols3", (3, 9), lambda v: v, 0),
    ("cols_strided", (17, 20), lambda v: v[:, ::2], 0),
    ("cols_wide", (9, 530), lambda v: v, 0),
    ("mid", (3, 10, 6), lambda v: v, 1),
    ("last", (6, 13), lambda v: v, -1),
    ("last_strided", (5, 26), lambda v: v[:, ::2], -1),
    ("tlast", (13, 6), lambda v: v.T, -1),
    ("cols_tall", (150, 5), lambda v: v, 0),
    ("cols_tall_strided", (150, 6), lambda v: v[:, ::2], 0),
]
LONG = [
    ("chunks", (33000,), lambda v: v, None),
    ("chunks_dim0", (33000,), lambda v: v, 0),
    ("argblocks", (2600,), lambda v: v, None),
]


def np_reduce(fam, x, dim):
    """NumPy reference in float64 / complex128 / exact integers."""
    ax = dim
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if fam in ("amax", "max"):
            return np.max(x, axis=ax)
        if fam in ("amin", "min"):
            return np.min(x, axis=ax)
        if fam == "argmax":
            return np.argmax(x if ax is not None else x.ravel(), axis=ax)
        if fam == "argmin":
            return np.argmin(x if ax is not None else x.ravel(), axis=ax)
        if fam == "any":
            return np.any(x != 0, axis=ax)
        if fam == "all":
            return np.all(x != 0, axis=ax)
        if fam == "count_nonzero":
            return np.count_nonzero(x, axis=ax)
        if x.dtype.kind in "biu":
            w = x.astype(np.uint64)   # wrapping int64 arithmetic
            if fam in ("sum", "nansum"):
                return np.sum(w, axis=ax, dtype=np.uint64).astype(np.int64)
            if fam == "prod":
                return np.prod(w, axis=ax, dtype=np.uint64).astype(np.int64)
            raise AssertionError(fam)
        f = to_f64(x)
        return {"sum": lambda: np.sum(f, axis=ax),
                "prod": lambda: np.prod(f, axis=ax),
                "mean": lambda: np.mean(f, axis=ax),
                "var": lambda: np.var(f, axis=ax, ddof=1),
                "std": lambda: np.std(f, axis=ax, ddof=1),
                "nansum": lambda: np.nansum(f, axis=ax),
                "nanmean": lambda: np.nanmean(f, axis=ax)}[fam]()


def tl_reduce(fam, t, dim):
    kw = {} if dim is None else {"dim": dim}
    if fam in ("max", "min"):
        if dim is None:
            return getattr(tl, fam)(t), None
        r = getattr(tl, fam)(t, dim=dim)
        return r[0], r[1]
    return getattr(tl, fam)(t, **kw), None


def torch_reduce(fam):
    def f(torch, tt):
        if fam in ("max", "min"):
            return getattr(torch, fam)(tt, dim=0)[0]
        return getattr(torch, fam)(tt, dim=0)
    return f


RFAMS = ["sum", "prod", "mean", "amax", "amin", "max", "min", "argmax",
         "argmin", "any", "all", "count_nonzero", "var", "std", "nansum",
         "nanmean"]


def reduce_accepts(fam, d, torch):
    """Whether tensorlib must accept fam on d, checked against torch (or
    against our refusal for the dtypes torch has no kernel for)."""
    verdict, tname = torch_verdict(torch, d, torch_reduce(fam))
    ours = tl.ones((2, 3), dtype=d)
    try:
        r = tl_reduce(fam, ours, 0)[0]
    except TypeError:
        assert verdict != "ok", (fam, d, "torch accepts")
        return False
    assert verdict != "refused", (fam, d, "torch refuses")
    if verdict == "ok":
        assert NAME[r.dtype] == tname, (fam, d, r.dtype, tname)
    return True


def check_reduce(fam, d, x, t, dim, what):
    """One reduction of tensor t (values x, NumPy) against NumPy."""
    got, idx = tl_reduce(fam, t, dim)
    ref = np.asarray(np_reduce(fam, x, dim))
    g = npv(got)
    assert g.shape == ref.shape, (fam, d, what, g.shape, ref.shape)
    if fam in ("argmax", "argmin", "any", "all", "count_nonzero"):
        np.testing.assert_array_equal(g, ref, err_msg=f"{fam} {d} {what}")
        return
    if fam in ("amax", "amin", "max", "min"):
        # exact, NaN where NumPy has NaN
        np.testing.assert_array_equal(g, as_dtype(ref, d),
                                      err_msg=f"{fam} {d} {what}")
        if idx is not None:
            # the first index of the extreme (of the first NaN)
            arg = "argmax" if fam == "max" else "argmin"
            np.testing.assert_array_equal(
                npv(idx), np.asarray(np_reduce(arg, x, dim)),
                err_msg=f"{fam} indices {d} {what}")
        return
    if g.dtype.kind in "iub":
        np.testing.assert_array_equal(g, ref, err_msg=f"{fam} {d} {what}")
        return
    rd = got.dtype
    eps = EPS[rd]
    f = np.abs(to_f64(x))
    n = x.size if dim is None else x.shape[dim]
    if fam in ("sum", "nansum", "mean", "nanmean"):
        scale = np.nansum(f, axis=dim)
        if fam in ("mean", "nanmean"):
            scale = scale / max(n, 1)
        tol = eps * (scale + np.abs(ref)) + 1e-300
    elif fam == "prod":
        tol = (eps + n * 2.0 ** -50) * np.abs(ref) * 2
    else:   # var, std
        tol = (eps * 4 + 1e-12) * np.abs(ref) + 1e-300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refc = ref if rd in COMPLEX else ref.real
        diff = np.abs(to_f64(g) - refc)
        bad = ~((diff <= tol * 1.0001) |
                (np.isnan(to_f64(g)) & np.isnan(refc)) |
                (to_f64(g) == refc))
    # float16/bfloat16 results overflow to inf exactly where the rounded
    # reference does.
    if rd in HALF or rd in (tl.float32, tl.complex64):
        with np.errstate(all="ignore"):
            rr = as_dtype(refc, rd)
        bad &= ~(np.isinf(rr) & (to_f64(g) == to_f64(rr)))
    assert not bad.any(), (fam, d, what, g[bad][:4], refc[bad][:4])


REDUCE_DTYPES = ALL


@pytest.mark.parametrize("d", REDUCE_DTYPES, ids=NAME.get)
def test_reductions_every_layout(d, torch):
    """Every reduction family on d, over every layout."""
    rng = rng_for("reduce", d)
    for fam in RFAMS:
        if not reduce_accepts(fam, d, torch):
            continue
        kind = "small" if fam == "prod" else "any"
        for what, shape, view, dim in RLAYOUTS:
            base = rand_values(rng, d, shape, kind)
            x = view(base)
            t = view(make(base, d))
            check_reduce(fam, d, x, t, dim, what)


@pytest.mark.parametrize("d", REDUCE_DTYPES, ids=NAME.get)
def test_reductions_long(d, torch):
    """Past one chunk (records combined) and past the argmax block, with
    the extreme in a later block (a strictly better block replaces the
    first) and repeated (the first index)."""
    rng = rng_for("reduce-long", d)
    for fam in RFAMS:
        if fam in ("mean", "std", "nanmean"):
            continue   # same kernels as sum, var, nansum
        if not reduce_accepts(fam, d, torch):
            continue
        kind = "unit" if fam == "prod" else "any"
        for what, shape, view, dim in LONG:
            if fam in ("max", "min") and dim is None:
                continue
            for where in ((2100, 2500), (32900, 32950)):
                x = rand_values(rng, d, shape, kind)
                if fam in ("argmax", "argmin", "max", "min") and \
                        d not in COMPLEX:
                    # a strict extreme in the third block (or the second
                    # chunk, whose record then wins the combine),
                    # repeated
                    hi = fam in ("argmax", "max")
                    x = x.copy()
                    if d == tl.bool:
                        x[:] = not hi
                        big = hi
                    elif d in INTS:
                        info = np.iinfo(NP[d])
                        x = np.clip(x, info.min + 1, info.max - 1)
                        big = info.max if hi else info.min
                    else:
                        big = 2 * x.max() + 1 if hi else 2 * x.min() - 1
                    x[[p % x.size for p in where]] = big
                    x = as_dtype(x, d)
                check_reduce(fam, d, x, make(x, d), dim, what)


NAN_FAMS = ["sum", "prod", "amax", "amin", "max", "min", "argmax", "argmin",
            "any", "all", "count_nonzero", "var", "nansum", "nanmean"]


def nan_cases(rng, d):
    """(what, values, view, dim) with NaN/inf first, in the middle, last,
    everywhere, and in every lane position of a short row."""
    out = []
    for n in (1, 8, 9, 35, 70):
        for pos in sorted({0, n // 2, n - 1}):
            x = rand_values(rng, d, (n,))
            x[pos] = np.nan
            out.append((f"row{n}@{pos}", x, lambda v: v, None))
    x = rand_values(rng, d, (40,))
    x[:] = np.nan
    out.append(("allnan", x, lambda v: v, None))
    x = rand_values(rng, d, (33,))
    x[3], x[20] = np.inf, -np.inf
    out.append(("infs", x, lambda v: v, None))
    # strided row, combined rows (NaN in the first and in a later row)
    x = rand_values(rng, d, (60,))
    x[[4, 31]] = np.nan
    out.append(("strided", x, lambda v: v[::2], None))
    for r in (0, 3):
        x = rand_values(rng, d, (5, 12))
        x[r, 4] = np.nan
        out.append((f"rows2@{r}", x, lambda v: v[:, :9], None))
    # columns: NaN in the first row, a middle row, the last row, a whole
    # column; contiguous (blocks of 8) and strided
    for r, c in ((19, 37), (9, 20), (3, 7)):
        x = rand_values(rng, d, (r, c))
        x[0, 1] = x[r // 2, 2] = x[r - 1, c - 1] = np.nan
        x[:, 3] = np.nan
        x[5 % r, 4] = np.inf
        out.append((f"cols{r}x{c}", x, lambda v: v, 0))
        out.append((f"scols{r}x{c}", x, lambda v: v[:, ::2], 0))
        out.append((f"last{r}x{c}", x, lambda v: v, -1))
    x = rand_values(rng, d, (3, 10, 6))
    x[1, 4, 2] = x[2, :, 5] = np.nan
    out.append(("mid", x, lambda v: v, 1))
    # chunk records: NaN in the first chunk only, in the second only
    for pos in (5, 32800):
        x = rand_values(rng, d, (33000,))
        x[pos] = np.nan
        out.append((f"chunks@{pos}", x, lambda v: v, None))
    return out


@pytest.mark.parametrize("d", FLOATS + COMPLEX, ids=NAME.get)
def test_reductions_nan_placement(d, torch):
    rng = rng_for("reduce-nan", d)
    cases = nan_cases(rng, d)
    for fam in NAN_FAMS:
        if not reduce_accepts(fam, d, torch):
            continue
        for what, x, view, dim in cases:
            if fam == "prod":
                with np.errstate(all="ignore"):
                    x = np.where(np.isnan(x), x, 1 + x / 64)
                if d in COMPLEX:
                    # C99's complex product of an infinity stays infinite
                    # where NumPy's gives NaN: not this sweep's question
                    x = np.where(np.isinf(x), 2, x)
                x = as_dtype(x, d)
            check_reduce(fam, d, view(x), view(make(x, d)), dim, what)


# ---- binary ops -----------------------------------------------------------
#
# One row per op of the table (tensorlib/op_table.h) and the alpha forms:
# (name, tensorlib call, NumPy reference on the compute dtype's values,
#  value domain).  The reference gets NumPy arrays already cast to the
# compute dtype (float16/bfloat16 as float32) and returns the result in
# float64/complex128 or exact integers/bools.

def _shift(left):
    def f(a, b):
        bits = a.dtype.itemsize * 8
        ok = (b >= 0) & (b < bits)
        c = np.where(ok, b, 0).astype(a.dtype)
        if left:
            r = np.left_shift(a, c)
        else:
            r = np.right_shift(a, c)
        over = np.where(a < 0, -1, 0).astype(a.dtype) if not left else \
            np.zeros_like(a)
        return np.where(ok, r, over)
    return f


def _wrap(f):
    """f on integer arrays with wrapping arithmetic (NumPy's, warnings off);
    floats in float64."""
    def g(a, b):
        with np.errstate(all="ignore"):
            if a.dtype.kind in "iub":
                return f(a, b)
            return f(to_f64(a), to_f64(b))
    return g


def _xlogy(a, b):
    with np.errstate(all="ignore"):
        return np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log(b))


def _heaviside(a, b):
    if a.dtype.kind == "b":
        return np.where(a, True, b)
    return np.heaviside(a, b) if a.dtype.kind == "f" else \
        np.where(a < 0, 0, np.where(a > 0, 1, b)).astype(a.dtype)


def _pow(a, b):
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu":
            return np.power(a, b)
        return np.power(a, b)


BINARY = [
    ("add", lambda a, b, **k: tl.add(a, b, **k),
     _wrap(lambda a, b: (a | b) if a.dtype.kind == "b" else a + b), "any"),
    ("add_alpha", lambda a, b, **k: tl.add(a, b, alpha=ALPHA[a.dtype], **k),
     None, "any"),
    ("sub", lambda a, b, **k: tl.sub(a, b, **k), _wrap(lambda a, b: a - b),
     "any"),
    ("sub_alpha", lambda a, b, **k: tl.sub(a, b, alpha=ALPHA[a.dtype], **k),
     None, "any"),
    ("mul", lambda a, b, **k: tl.mul(a, b, **k),
     _wrap(lambda a, b: (a & b) if a.dtype.kind == "b" else a * b), "any"),
    ("div", lambda a, b, **k: tl.div(a, b, **k), _wrap(lambda a, b: a / b),
     "nonzero"),
    ("floor_divide", tl.floor_divide, _wrap(np.floor_divide), "nonzero"),
    ("remainder", tl.remainder, _wrap(np.remainder), "nonzero"),
    ("fmod", tl.fmod, _wrap(np.fmod), "nonzero"),
    ("pow", tl.pow, _pow, "pow"),
    ("float_power", tl.float_power, _wrap(np.power), "pow"),
    ("maximum", tl.maximum, _wrap(np.maximum), "special"),
    ("minimum", tl.minimum, _wrap(np.minimum), "special"),
    ("fmax", tl.fmax, _wrap(np.fmax), "special"),
    ("fmin", tl.fmin, _wrap(np.fmin), "special"),
    ("eq", tl.eq, np.equal, "special"),
    ("ne", tl.ne, np.not_equal, "special"),
    ("lt", tl.lt, np.less, "special"),
    ("le", tl.le, np.less_equal, "special"),
    ("gt", tl.gt, np.greater, "special"),
    ("ge", tl.ge, np.greater_equal, "special"),
    ("logical_and", tl.logical_and, np.logical_and, "special"),
    ("logical_or", tl.logical_or, np.logical_or, "special"),
    ("logical_xor", tl.logical_xor, np.logical_xor, "special"),
    ("bitwise_and", tl.bitwise_and, np.bitwise_and, "any"),
    ("bitwise_or", tl.bitwise_or, np.bitwise_or, "any"),
    ("bitwise_xor", tl.bitwise_xor, np.bitwise_xor, "any"),
    ("bitwise_left_shift", tl.bitwise_left_shift, _shift(True), "shift"),
    ("bitwise_right_shift", tl.bitwise_right_shift, _shift(False), "shift"),
    ("atan2", tl.atan2, _wrap(np.arctan2), "special"),
    ("hypot", tl.hypot, _wrap(np.hypot), "special"),
    ("logaddexp", tl.logaddexp, _wrap(np.logaddexp), "special"),
    ("logaddexp2", tl.logaddexp2, _wrap(np.logaddexp2), "special"),
    ("xlogy", tl.xlogy, _wrap(_xlogy), "special"),
    ("copysign", tl.copysign, _wrap(np.copysign), "special"),
    ("nextafter", tl.nextafter, None, "special"),
    ("ldexp", tl.ldexp, _wrap(lambda a, b: a * np.exp2(b)), "small"),
    ("gcd", tl.gcd, np.gcd, "small"),
    ("lcm", tl.lcm, _wrap(np.lcm), "small"),
    ("heaviside", tl.heaviside, _heaviside, "special"),
]
BIN_BY_NAME = {r[0]: r for r in BINARY}
# PyTorch has complex forms of these; tensorlib refuses complex for now
# (as tests/test_math_binary.py).
COMPLEX_LATER = {"logaddexp", "ldexp"}
# bool's alpha False: a | (False & b) (alpha 1 is the plain add)
ALPHA = {d: (False if d == tl.bool else 3 if d in INTS else 0.5)
         for d in ALL}


def bin_values(rng, d, n, dom, second):
    """n values exact in d for operand `second` (0 or 1) of domain dom."""
    if dom == "any" or (dom == "special" and d in INTS):
        return rand_values(rng, d, (n,))
    if d == tl.bool:
        return rng.random(n) < 0.5
    info = np.iinfo(NP[d]) if d in INTS else None
    if dom == "nonzero" and second:
        v = rand_values(rng, d, (n,))
        if d in INTS:
            v = np.where(v == 0, 3, v).astype(NP[d])
            if info.min < 0:   # no INT_MIN // -1 (overflow)
                v = np.where(v == -1, 5, v).astype(NP[d])
        else:
            v = np.where(v == 0, 1.5, v)
        return as_dtype(v, d)
    if dom == "nonzero":
        return rand_values(rng, d, (n,))
    if dom == "pow":
        if d in INTS:
            hi = 7 if second else 4
            lo = 0 if (second or info.min == 0) else -3
            return as_dtype(rng.integers(lo, hi, n), d)
        v = rng.uniform(0.2, 3, n) if not second else \
            rng.integers(-3, 4, n) + (rng.random(n) < 0.5) * 0.5
        if d in COMPLEX:
            v = v + 1j * rng.uniform(-1, 1, n)
        return as_dtype(v, d)
    if dom == "shift":
        if second:
            return as_dtype(rng.integers(-2, info.bits + 3, n), d) \
                if info.min < 0 else \
                as_dtype(rng.integers(0, info.bits + 3, n), d)
        return rand_values(rng, d, (n,))
    if dom == "small":
        if d in INTS:
            lo = max(info.min, -100)
            return as_dtype(rng.integers(lo, min(info.max, 100) + 1, n), d)
        if second:
            return as_dtype(rng.integers(-5, 6, n).astype(np.float64), d)
        return rand_values(rng, d, (n,))
    # special floats: NaN, infinities and signed zeros among the values
    v = rand_values(rng, d, (n,)).copy()
    sp = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    k = rng.integers(0, len(sp), n)
    m = rng.random(n) < 0.3
    v[m] = np.asarray(sp)[k[m]]
    return as_dtype(v, d)


def bin_reference(name, fn, a, b, d, rd):
    """NumPy reference of op `name` in dtype rd (the result's)."""
    cd = rd if rd != tl.bool else d   # the compute dtype
    if name in ("div", "atan2", "xlogy", "copysign", "ldexp",
                "float_power"):
        cd = rd
    a = as_dtype(a, cd)
    b = as_dtype(b, cd)
    if name in ("add_alpha", "sub_alpha"):
        al = ALPHA[d]
        with np.errstate(all="ignore"):
            if cd == tl.bool:
                r = a | (b & al)
            elif cd in INTS:
                ab = (b.astype(np.uint64) * np.uint64(al)).astype(NP[cd])
                r = a + ab if name == "add_alpha" else a - ab
            else:
                r = to_f64(a) + (al if name == "add_alpha" else -al) * \
                    to_f64(b)
        return r
    if name == "nextafter":
        if cd == tl.float64:
            return np.nextafter(a, b)
        if cd == tl.float32:
            return np.nextafter(a.astype(np.float32), b.astype(np.float32))
        if cd == tl.float16:
            return np.nextafter(a.astype(np.float16), b.astype(np.float16))
        # bfloat16: a step of the bfloat16 grid
        return None
    with np.errstate(all="ignore"):
        return fn(a, b)


def bin_layouts(rng, d, dom):
    """(what, a values, b values, a tensor, b tensor) for each row shape
    of BIN_LOOP: contiguous (several lengths), b scalar, a scalar (0-d
    tensors and broadcast rows), both strided, 2-d with a transposed
    operand and with a broadcast column."""
    out = []
    for n in (1, 7, 33, 70):
        a = bin_values(rng, d, n, dom, 0)
        b = bin_values(rng, d, n, dom, 1)
        out.append((f"contig{n}", a, b, make(a, d), make(b, d)))
    a = bin_values(rng, d, 19, dom, 0)
    b = bin_values(rng, d, 1, dom, 1)
    out.append(("bscalar", a, b[0], make(a, d), make(b, d).reshape(())))
    a2 = bin_values(rng, d, 1, dom, 0)
    b2 = bin_values(rng, d, 19, dom, 1)
    out.append(("ascalar", a2[0], b2, make(a2, d).reshape(()), make(b2, d)))
    a = bin_values(rng, d, 40, dom, 0)
    b = bin_values(rng, d, 60, dom, 1)
    out.append(("strided", a[::2], b[::3], make(a, d)[::2],
                make(b, d)[::3]))
    # one side a scalar, the other strided (the element loop)
    out.append(("ascalar_bstrided", a2[0], b[::3], make(a2, d).reshape(()),
                make(b, d)[::3]))
    out.append(("astrided_bscalar", a[::2], b2[0], make(a, d)[::2],
                make(b2[:1], d).reshape(())))
    a = bin_values(rng, d, 24, dom, 0).reshape(6, 4)
    b = bin_values(rng, d, 24, dom, 1).reshape(4, 6)
    out.append(("transposed", a, b.T, make(a, d), make(b, d).T))
    a = bin_values(rng, d, 30, dom, 0).reshape(5, 6)
    b = bin_values(rng, d, 5, dom, 1).reshape(5, 1)
    out.append(("bcol", a, b, make(a, d), make(b, d)))
    a = bin_values(rng, d, 6, dom, 0).reshape(1, 6)
    b = bin_values(rng, d, 30, dom, 1).reshape(5, 6)
    out.append(("brow", a, b, make(a, d), make(b, d)))
    if dom == "special" and d in FLOATS + COMPLEX:
        # every special value as the scalar operand, on either side
        a = bin_values(rng, d, 13, dom, 0)
        for k, v in enumerate((np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5)):
            sv = as_dtype(np.array([v]), d)
            ts = make(sv, d).reshape(())
            out.append((f"bspecial{k}", a, sv[0], make(a, d), ts))
            out.append((f"aspecial{k}", sv[0], a, ts, make(a, d)))
    return out


def check_close(g, ref, rd, what, ulps=8):
    g = np.asarray(g)
    if rd == tl.bool or rd in INTS:
        np.testing.assert_array_equal(g, np.asarray(ref).astype(g.dtype),
                                      err_msg=what)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = as_dtype(ref, rd)
        gf, rf = to_f64(g), to_f64(r)
        tol = ulps * EPS[rd] * np.abs(rf) + (
            1e-30 if rd in (tl.float64, tl.complex128) else 1e-6)
        ok = (gf == rf) | (np.abs(gf - rf) <= tol)
        if np.iscomplexobj(gf):
            ok |= np.isnan(gf) & np.isnan(rf)
            ok |= (np.isnan(gf.real) | np.isnan(gf.imag)) & \
                (np.isnan(rf.real) | np.isnan(rf.imag))
        else:
            ok |= np.isnan(gf) & np.isnan(rf)
    assert ok.all(), (what, gf[~ok][:4], rf[~ok][:4])


def torch_binary(name):
    tname = {"add_alpha": "add", "sub_alpha": "sub"}.get(name, name)

    def f(torch, tt):
        if name.endswith("_alpha"):
            return getattr(torch, tname)(tt, tt, alpha=ALPHA[
                {torch.bool: tl.bool}.get(tt.dtype, tl.int8 if not (
                    tt.dtype.is_floating_point or tt.dtype.is_complex)
                    else tl.float32)])
        return getattr(torch, tname)(tt, tt)
    return f


@pytest.mark.parametrize("name", [r[0] for r in BINARY])
def test_binary_every_dtype_and_row_shape(name, torch):
    _, op, ref_fn, dom = BIN_BY_NAME[name]
    for d in ALL:
        one = tl.ones((2, 3), dtype=d)
        r = run_or_refused(torch, name, d, lambda: op(one, one),
                           torch_binary(name), COMPLEX_LATER)
        if r is None:
            continue
        rd = r.dtype
        assert not (d in COMPLEX and name in COMPLEX_LATER), (name, d)
        rng = rng_for("binary", name, d)
        for what, a, b, ta, tb in bin_layouts(rng, d, dom):
            got = op(ta, tb)
            assert got.dtype == rd
            ref = bin_reference(name, ref_fn, a, b, d, rd)
            if what == "strided" and ref is not None:
                # into every other element of out= (a strided output
                # row: the element loop, where the contiguous row of
                # atan2 and pow runs vecmath's)
                full = tl.zeros((2 * got.shape[0],), dtype=rd)
                op(ta, tb, out=full[::2])
                check_close(npv(full[::2]), ref, rd,
                            f"{name} {NAME[d]} out=strided")
                assert not npv(full[1::2]).any()
            if ref is None:   # nextafter in bfloat16: one step toward b
                g = npv(got)
                ab = np.broadcast_arrays(np.asarray(a, np.float32),
                                         np.asarray(b, np.float32))
                moved = g != ab[0]
                assert ((np.sign(g - ab[0]) == np.sign(ab[1] - ab[0]))
                        | ~moved | np.isnan(g)).all(), (name, what)
                continue
            check_close(npv(got), ref, rd, f"{name} {NAME[d]} {what}")


# ---- scans ----------------------------------------------------------------
#
# csrc/core/scan.c: per work dtype (int64, float32, float64, complex64,
# complex128; float16/bfloat16 scan in float32) the rows kernel (inner
# size 1), the lanes kernel (inner > 1, in blocks of 256 lanes), and for
# rows of at least 8 * 16384 elements the two-pass totals / carries /
# chains kernels (four sub-blocks at once, then the partial group);
# cummax/cummin one kernel per work dtype (bool as uint8).

SLAYOUTS = [
    ("n1", (1,), lambda v: v, 0),
    ("n7", (7,), lambda v: v, 0),
    ("n33", (33,), lambda v: v, -1),
    ("rows", (4, 9), lambda v: v, 1),
    ("lanes", (9, 5), lambda v: v, 0),
    ("lanes300", (3, 300), lambda v: v, 0),
    ("mid", (2, 6, 3), lambda v: v, 1),
    ("strided", (8, 12), lambda v: v[:, ::3], 1),
    ("transposed", (5, 7), lambda v: v.T, 1),
]
SCANS = ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"]


def np_cum_minmax(x, dim, is_max):
    """Running extreme and its index: a new extreme when x reaches it
    (>=, the last of equals) or x is NaN; a NaN extreme stays."""
    xm = np.moveaxis(np.asarray(x), dim, -1)
    vals = np.empty_like(xm)
    idx = np.zeros(xm.shape, np.int64)
    cur = xm[..., 0].copy()
    ci = np.zeros(cur.shape, np.int64)
    isnan = (lambda v: v != v) if xm.dtype.kind in "fc" else \
        (lambda v: np.zeros(v.shape, bool))
    for j in range(xm.shape[-1]):
        v = xm[..., j]
        better = (v >= cur) if is_max else (v <= cur)
        take = isnan(v) | (~isnan(cur) & better)
        cur = np.where(take, v, cur)
        ci = np.where(take, j, ci)
        vals[..., j] = cur
        idx[..., j] = ci
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def np_scan(op, x, dim):
    with np.errstate(all="ignore"):
        if x.dtype.kind in "biu":
            w = x.astype(np.uint64)
            f = np.cumsum if op == "cumsum" else np.cumprod
            return f(w, axis=dim, dtype=np.uint64).astype(np.int64)
        f = to_f64(x)
        if op == "cumsum":
            return np.cumsum(f, axis=dim)
        if op == "cumprod":
            return np.cumprod(f, axis=dim)
        return np.logaddexp.accumulate(f, axis=dim)


def check_scan(op, d, x, t, dim, what):
    if op in ("cummax", "cummin"):
        r = getattr(tl, op)(t, dim)
        v, ix = np_cum_minmax(x, dim, op == "cummax")
        np.testing.assert_array_equal(npv(r[0]), as_dtype(v, d),
                                      err_msg=f"{op} {d} {what}")
        np.testing.assert_array_equal(npv(r[1]), ix,
                                      err_msg=f"{op} idx {d} {what}")
        return
    got = getattr(tl, op)(t, dim)
    ref = np_scan(op, x, dim)
    g = npv(got)
    if g.dtype.kind in "iub":
        np.testing.assert_array_equal(g, ref, err_msg=f"{op} {d} {what}")
        return
    rd = got.dtype
    eps = EPS[rd] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = np.abs(to_f64(x))
        n = x.shape[dim]
        if op == "cumsum":
            tol = eps * (np.cumsum(a, axis=dim) + np.abs(ref))
        elif op == "cumprod":
            tol = (eps + n * 2.0 ** -50) * 2 * np.abs(ref)
        else:
            # the float64 accumulator's rounding grows along the row
            tol = (eps * 4 + n * 2.0 ** -52) * (np.abs(ref) + 1)
        # subnormal results: the spacing there
        tol = tol + TINY[rd]
        gf = to_f64(g)
        ok = (gf == ref) | (np.abs(gf - ref) <= tol)
        ok |= np.isnan(gf) & np.isnan(ref)
        if rd in COMPLEX:
            ok |= (np.isnan(gf.real) | np.isnan(gf.imag)) & \
                (np.isnan(ref.real) | np.isnan(ref.imag))
        rr = as_dtype(ref, rd)
        ok |= np.isinf(to_f64(rr)) & (gf == to_f64(rr))
    assert ok.all(), (op, d, what, gf[~ok][:4], np.asarray(ref)[~ok][:4])


def torch_scan(op):
    def f(torch, tt):
        return getattr(torch, op)(tt, 0)
    return f


@pytest.mark.parametrize("op", SCANS)
def test_scans_every_dtype_and_layout(op, torch):
    for d in ALL:
        verdict, tname = torch_verdict(torch, d, torch_scan(op))
        try:
            r = getattr(tl, op)(tl.ones((2, 3), dtype=d), 0)
        except TypeError:
            # complex logcumsumexp: PyTorch has it, tensorlib refuses it
            # (the message says so; tests/test_scan.py)
            assert verdict != "ok" or (
                op == "logcumsumexp" and d in COMPLEX), (op, d)
            continue
        assert verdict != "refused", (op, d, "torch refuses")
        r = r[0] if isinstance(r, tuple) else r
        if verdict == "ok":
            assert NAME[r.dtype] == tname, (op, d, r.dtype, tname)
        rng = rng_for("scan", op, d)
        kind = "small" if op == "cumprod" else "any"
        for what, shape, view, dim in SLAYOUTS:
            base = rand_values(rng, d, shape, kind)
            check_scan(op, d, view(base), view(make(base, d)), dim, what)
        if d in FLOATS + COMPLEX and op != "cumprod":
            # NaN and infinities first, in the middle, last
            for pos in (0, 5, 10):
                x = rand_values(rng, d, (11,)).copy()
                x[pos] = np.nan
                x[(pos + 3) % 11] = np.inf
                x[(pos + 7) % 11] = -np.inf
                x = as_dtype(x, d)
                check_scan(op, d, x, make(x, d), 0, f"nan@{pos}")
        if d in (tl.int16, tl.float32, tl.float64, tl.complex64,
                 tl.complex128, tl.uint8) or (op in ("cummax", "cummin")
                                               and d != tl.bool):
            # past one task of rows (65536 elements): a partial last task
            x = rand_values(rng, d, (700, 100),
                            "unit" if op == "cumprod" else "any")
            if op == "cumprod" and d in INTS:
                x = as_dtype(np.where(rng.random(x.shape) < 0.05, -1, 1), d)
            check_scan(op, d, x, make(x, d), 1, "tasks")
        if d in INTS and op in ("cummax", "cummin"):
            # ties: the last of equal extremes
            x = as_dtype(np.array([3, 1, 3, 3, 0, 3, 1]), d)
            check_scan(op, d, x, make(x, d), 0, "ties")


# One input dtype per work dtype of the long-row (two-pass) kernels.
LONG_SCAN = [(tl.int32, "cumsum"), (tl.int64, "cumprod"),
             (tl.float32, "cumsum"), (tl.float64, "cumsum"),
             (tl.float16, "cumprod"), (tl.complex64, "cumsum"),
             (tl.complex128, "cumprod"), (tl.float32, "cumprod"),
             (tl.float64, "cumprod"), (tl.complex64, "cumprod"),
             (tl.complex128, "cumsum"), (tl.float32, "logcumsumexp"),
             (tl.float64, "logcumsumexp")]


@pytest.mark.parametrize("d,op", LONG_SCAN, ids=lambda v: str(v))
def test_scans_long_rows(d, op):
    """Rows past 8 sub-blocks of 16384: two full groups of four chains
    and a last group of four whose last sub-block is short (12
    sub-blocks), a sub-block total with an odd tail."""
    rng = rng_for("scan-long", op, d)
    n = 11 * 16384 + 5001
    if op == "cumprod":
        x = rand_values(rng, d, (n,), "unit")
        if d in INTS:
            x = as_dtype(np.where(rng.random(n) < 0.01, -1, 1), d)
    elif op == "logcumsumexp":
        x = rand_values(rng, d, (n,))
    else:
        x = rand_values(rng, d, (n,))
    check_scan(op, d, x, make(x, d), 0, "long")


# ---- index ops ------------------------------------------------------------
#
# csrc/core/index_ops.c: the copy runs (gather/scatter by item size 1, 2,
# 4, 8, 16; the dense gather run for a contiguous int64 index along a
# contiguous last dim), the reduce runs (sum, prod, amax, amin per dtype:
# a typed loop when dense along the dim, the memcpy loop otherwise), the
# identities of include_self=False per dtype, value bytes per dtype.

def step(a, b, op, d):
    """a op b for one element as tensorlib's reduce runs compute it:
    integers wrap, float16/bfloat16 in float32 rounded each step,
    amax/amin NaN propagating (a NaN already there stays)."""
    with np.errstate(all="ignore"):
        if d == tl.bool:
            a, b = bool(a), bool(b)
            return {"sum": a or b, "prod": a and b, "amax": a or b,
                    "amin": a and b}[op]
        if d in HALF:
            a32, b32 = np.float32(a), np.float32(b)
        else:
            a32, b32 = NP[d](a), NP[d](b)
        if op == "sum":
            r = a32 + b32
        elif op == "prod":
            r = a32 * b32
        elif op == "amax":
            r = a32 if (a32 != a32 or a32 >= b32) else b32
        else:
            r = a32 if (a32 != a32 or a32 <= b32) else b32
        return as_dtype(np.asarray([r]), d)[0]


def np_scatter_reduce(x, dim, idx, src, op, include_self, d):
    out = np.array(x, copy=True)
    xm = np.moveaxis(out, dim, 0)
    im = np.moveaxis(np.asarray(idx), dim, 0)
    sm = np.moveaxis(np.asarray(src), dim, 0)
    touched = np.zeros(xm.shape, bool)
    count = np.ones(xm.shape, np.int64) if include_self else \
        np.zeros(xm.shape, np.int64)
    base_op = "sum" if op == "mean" else op
    for k in np.ndindex(im.shape):
        tgt = (im[k],) + k[1:]
        if not include_self and not touched[tgt]:
            xm[tgt] = sm[k]
        else:
            xm[tgt] = step(xm[tgt], sm[k], base_op, d)
        touched[tgt] = True
        count[tgt] += 1
    if op == "mean":
        c = np.maximum(count, 1)
        with np.errstate(all="ignore"):
            if d in INTS:
                xm[...] = np.where(touched,
                                   np.floor_divide(xm, c.astype(xm.dtype)),
                                   xm)
            else:
                xm[...] = np.where(touched, as_dtype(to_f64(xm) / c, d), xm)
    return out


def rand_index(rng, n, shape, unique_dim=None):
    """Indices in [0, n); with unique_dim, unique along that dim."""
    if unique_dim is None:
        return rng.integers(0, n, shape)
    sh = list(shape)
    k = sh[unique_dim]
    other = sh[:unique_dim] + sh[unique_dim + 1:]
    cols = [rng.permutation(n)[:k] for _ in range(int(np.prod(other)))]
    a = np.stack(cols, axis=-1).reshape([k] + other)
    return np.moveaxis(a, 0, unique_dim)


def ti(a):
    return tl.from_numpy(np.ascontiguousarray(np.asarray(a, np.int64)))


# (what, dst shape, dim, index shape): 1-d (the dense runs), dim 0 and
# dim 1 of a matrix (index narrower than dst: the general runs).
ILAYOUTS = [
    ("1d", (9,), 0, (14,)),
    ("dim0", (5, 4), 0, (7, 3)),
    ("dim1", (4, 6), 1, (3, 8)),
]


def index_dtype_ok(d, torch, fn):
    verdict, _ = torch_verdict(torch, d, fn)
    return verdict


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_gather_scatter_every_dtype(d, torch):
    rng = rng_for("gather", d)
    for what, shape, dim, ishape in ILAYOUTS:
        n = shape[dim]
        x = rand_values(rng, d, shape)
        tx = make(x, d)
        # gather: index reads any row, repeated
        gi = rng.integers(0, n, ishape[:dim] + (ishape[dim],) +
                          ishape[dim + 1:])
        gi = gi[tuple(slice(0, min(s, shape[k])) if k != dim else
                      slice(None) for k, s in enumerate(ishape))]
        got = tl.gather(tx, dim, ti(gi))
        ref = np.take_along_axis(x[tuple(slice(0, s) if k != dim else
                                         slice(None) for k, s in
                                         enumerate(gi.shape))], gi, dim)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        # gather from a strided view, with a strided index
        xs = rand_values(rng, d, shape[:-1] + (shape[-1] * 2,))
        gi2 = rng.integers(0, n, gi.shape[:-1] + (gi.shape[-1] * 2,))
        got = tl.gather(make(xs, d)[..., ::2], dim, ti(gi2)[..., ::2])
        ref = np.take_along_axis(xs[..., ::2][tuple(
            slice(0, s) if k != dim else slice(None) for k, s in
            enumerate(gi2[..., ::2].shape))], gi2[..., ::2], dim)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what + "/s")
        # index_select, take
        sel = rng.integers(0, n, 6)
        got = tl.index_select(tx, dim, ti(sel))
        np.testing.assert_array_equal(npv(got), np.take(x, sel, axis=dim))
        tk = rng.integers(-x.size, x.size, (2, 5))
        np.testing.assert_array_equal(npv(tl.take(tx, ti(tk))),
                                      x.ravel()[tk])
        # scatter of src (indices unique along dim) and of a value
        si = rand_index(rng, n, tuple(min(s, n) if k == dim else
                                      min(s, shape[k]) for k, s in
                                      enumerate(ishape)), dim)
        src = rand_values(rng, d, si.shape)
        got = tl.scatter(tx, dim, ti(si), make(src, d))
        ref = x.copy()
        np.put_along_axis(ref[tuple(slice(0, s) if k != dim else
                                    slice(None) for k, s in
                                    enumerate(si.shape))], si, src, dim)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        v = True if d == tl.bool else 3 if d not in COMPLEX else 2 - 1j
        got = tl.scatter(tx, dim, ti(si), value=v)
        ref = x.copy()
        np.put_along_axis(ref[tuple(slice(0, s) if k != dim else
                                    slice(None) for k, s in
                                    enumerate(si.shape))], si,
                          as_dtype(np.asarray(v), d), dim)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)


SCATTER_REDUCE = ["sum", "prod", "amax", "amin", "mean"]


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_scatter_reduce_every_dtype(d, torch):
    rng = rng_for("scatter-reduce", d)
    for op in SCATTER_REDUCE:
        def tfn(torch, tt, op=op):
            i = torch.zeros(2, 3, dtype=torch.int64)
            return torch.scatter_reduce(tt, 0, i, tt, op)
        verdict, tname = torch_verdict(torch, d, tfn)
        one = tl.ones((2, 3), dtype=d)
        try:
            tl.scatter_reduce(one, 0, tl.zeros((2, 3), dtype=tl.int64),
                              one, op)
        except TypeError:
            assert verdict != "ok", (op, d)
            continue
        assert verdict != "refused", (op, d)
        for what, shape, dim, ishape in ILAYOUTS:
            for include_self in (True, False):
                x = rand_values(rng, d, shape,
                                "small" if op == "prod" else "any")
                if d in FLOATS:
                    x = x.copy()
                    x.flat[1] = np.nan   # amax/amin: NaN already there
                ish = tuple(min(s, shape[k]) if k != dim else s
                            for k, s in enumerate(ishape))
                idx = rng.integers(0, shape[dim], ish)
                src = rand_values(rng, d, ish,
                                  "small" if op == "prod" else "any")
                if d in FLOATS:
                    src = src.copy()
                    src.flat[2] = np.nan   # a NaN coming in
                got = tl.scatter_reduce(make(x, d), dim, ti(idx),
                                        make(src, d), op,
                                        include_self=include_self)
                ref = np_scatter_reduce(x, dim, idx, src, op, include_self,
                                        d)
                g = npv(got)
                if op == "mean" and d in FLOATS + COMPLEX:
                    check_close(g, ref, d, f"{op} {what}", ulps=64)
                elif d in COMPLEX or d == tl.float64:
                    check_close(g, ref, d, f"{op} {what}", ulps=4)
                else:
                    np.testing.assert_array_equal(
                        g, ref, err_msg=f"{op} {NAME[d]} {what} "
                        f"{include_self}")
        # scatter_add is scatter_reduce(sum, include_self=True)
        if op == "sum":
            x = rand_values(rng, d, (9,))
            idx = rng.integers(0, 9, 14)
            src = rand_values(rng, d, (14,))
            got = tl.scatter_add(make(x, d), 0, ti(idx), make(src, d))
            ref = np_scatter_reduce(x, 0, idx, src, "sum", True, d)
            check_close(npv(got), ref, d, "scatter_add", ulps=4)


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_index_add_copy_fill_put_masked_every_dtype(d, torch):
    rng = rng_for("index-ops", d)
    for what, shape, dim, _ in ILAYOUTS:
        n = shape[dim]
        x = rand_values(rng, d, shape)
        tx = make(x, d)
        k = 5
        sshape = shape[:dim] + (k,) + shape[dim + 1:]
        # index_add: repeated rows add up in index order
        idx = rng.integers(0, n, k)
        src = rand_values(rng, d, sshape)
        alpha = True if d == tl.bool else 2 if d not in FLOATS + COMPLEX \
            else 1
        try:
            got = tl.index_add(tx, dim, ti(idx), make(src, d), alpha=alpha)
        except TypeError:
            assert index_dtype_ok(d, torch, lambda t, tt: t.index_add(
                tt, 0, t.zeros(2, dtype=t.int64), tt)) != "ok"
        else:
            ref = x.copy()
            rm, sm = np.moveaxis(ref, dim, 0), np.moveaxis(src, dim, 0)
            for j, r in enumerate(idx):
                for p in np.ndindex(rm.shape[1:]):
                    rm[(r,) + p] = step(rm[(r,) + p], step(
                        sm[(j,) + p], alpha, "prod", d), "sum", d)
            check_close(npv(got), ref, d, f"index_add {what}", ulps=4)
        # index_copy (unique rows), index_fill
        uidx = rng.permutation(n)[:min(k, n)]
        src = rand_values(rng, d, shape[:dim] + (len(uidx),) +
                          shape[dim + 1:])
        got = tl.index_copy(tx, dim, ti(uidx), make(src, d))
        ref = x.copy()
        np.moveaxis(ref, dim, 0)[uidx] = np.moveaxis(src, dim, 0)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        v = False if d == tl.bool else 7 if d not in COMPLEX else 1 + 2j
        got = tl.index_fill(tx, dim, ti(uidx), v)
        ref = x.copy()
        np.moveaxis(ref, dim, 0)[uidx] = as_dtype(np.asarray(v), d)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        # put: unique positions, then accumulated repeats
        pos = rng.permutation(x.size)[:6]
        src = rand_values(rng, d, (6,))
        got = tl.put(tx, ti(pos), make(src, d))
        ref = x.copy()
        ref.flat[pos] = src
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        pos = rng.integers(-x.size, x.size, 9)
        src = rand_values(rng, d, (9,))
        got = tl.put(tx, ti(pos), make(src, d), accumulate=True)
        ref = x.copy()
        for p, s in zip(pos % x.size, src):
            ref.flat[p] = step(ref.flat[p], s, "sum", d)
        check_close(npv(got), ref, d, f"put acc {what}", ulps=4)
        # masked ops, the mask broadcast along dim 0
        mask = rng.random(shape[1:] if len(shape) > 1 else shape) < 0.5
        tm = tl.from_numpy(mask)
        got = tl.masked_fill(tx, tm, v)
        ref = np.where(mask, as_dtype(np.asarray(v), d), x)
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)
        got = tl.masked_select(tx, tm)
        np.testing.assert_array_equal(
            npv(got), x[np.broadcast_to(mask, x.shape)], err_msg=what)
        src = rand_values(rng, d, (x.size,))
        got = tl.masked_scatter(tx, tm, make(src, d))
        ref = x.copy()
        full = np.broadcast_to(mask, x.shape)
        ref[full] = src[:int(full.sum())]
        np.testing.assert_array_equal(npv(got), ref, err_msg=what)


def test_reduction_finish_and_overflow_paths(torch):
    """The finishing step's edge cases and the float32 lanes' float64
    redo: var/std with correction >= n (a zero or negative divisor: inf
    or NaN as torch), of constant rows (a sum of squares that rounds
    below zero is 0), and a float32 sum whose lane blocks overflow
    float32 (the block is summed again in float64: exact 0 here)."""
    x = np.array([[1.5, 2.5, 4.0], [3.0, 3.0, 3.0]], np.float32)
    tt = torch.from_numpy(x)
    for corr in (0, 1, 2, 3, 5):
        for fn in ("var", "std"):
            got = npv(getattr(tl, fn)(tl.from_numpy(x), dim=1,
                                      correction=corr))
            with warnings.catch_warnings():   # torch: "dof <= 0"
                warnings.simplefilter("ignore")
                ref = getattr(torch, fn)(tt, dim=1,
                                         correction=corr).numpy()
            np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
            np.testing.assert_allclose(got, ref, rtol=1e-6)
    c = np.full(77, 0.1, np.float64)
    assert float(tl.var(tl.from_numpy(c)).item()) == 0.0
    big = np.tile(np.array([3e38, -3e38], np.float32), 300)
    for n in (600, 130, 64):
        assert float(tl.sum(tl.from_numpy(big[:n])).item()) == 0.0, n
        assert float(tl.mean(tl.from_numpy(big[:n])).item()) == 0.0, n


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_every_dtype(name, torch):
    """The divisor scan of each integer dtype (a zero found or not, in a
    contiguous and a strided divisor): ZeroDivisionError naming the op,
    as torch's RuntimeError "ZeroDivisionError", operands unchanged."""
    op = getattr(tl, name)
    for d in INTS:
        a = make(as_dtype(np.arange(1, 13), d), d)
        for b in (as_dtype(np.array([3, 1, 0, 2, 5, 7]), d),
                  as_dtype(np.array([0, 4]), d)):
            tb = make(np.tile(b, 2), d)
            before = npv(tb).copy()
            with pytest.raises(ZeroDivisionError, match=name):
                op(a, tb)
            with pytest.raises(ZeroDivisionError):
                op(a[::2][:tb.shape[0]], tb)
            np.testing.assert_array_equal(npv(tb), before)
            with pytest.raises(ZeroDivisionError):
                op(a, make(b[:1] * 0, d).reshape(()))
        if d in (tl.int16, tl.int32, tl.int64, tl.uint8):
            ta = torch.ones(2, dtype=getattr(torch, NAME[d]))
            with pytest.raises(RuntimeError, match="ZeroDivision"):
                getattr(torch, name)(ta, torch.zeros_like(ta))
        # no zero: the scan finds none, the op runs
        good = make(as_dtype(np.array([3, 1, 2]), d), d)
        got = npv(op(a[:3], good))
        ref = {"floor_divide": np.floor_divide, "remainder": np.remainder,
               "fmod": np.fmod}[name](npv(a[:3]), npv(good))
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_scatter_reduce_strided_and_bad_index(d):
    """The reduce runs off their dense path (a strided source, a strided
    destination updated in place) and a bad index in either path:
    IndexError naming it, the destination of the copying form
    unchanged."""
    rng = rng_for("scatter-strided", d)
    ops = ["sum", "prod"] if d in COMPLEX else ["sum", "prod", "amax",
                                                "amin"]
    for op in ops:
        x = rand_values(rng, d, (8,), "small" if op == "prod" else "any")
        idx = rng.integers(0, 8, 6)
        src = rand_values(rng, d, (12,), "small" if op == "prod" else "any")
        got = tl.scatter_reduce(make(x, d), 0, ti(idx), make(src, d)[::2],
                                op)
        ref = np_scatter_reduce(x, 0, idx, src[::2], op, True, d)
        check_close(npv(got), ref, d, f"{op} strided src", ulps=4)
        # in place into every other element of a buffer
        buf = rand_values(rng, d, (16,), "small" if op == "prod" else "any")
        tb = make(buf, d)
        tb[::2].scatter_reduce_(0, ti(idx), make(src[::2], d), op)
        ref = buf.copy()
        ref[::2] = np_scatter_reduce(buf[::2], 0, idx, src[::2], op, True,
                                     d)
        check_close(npv(tb), ref, d, f"{op} strided dst", ulps=4)
        for bad in ([0, 8, 1], [-1, 2, 3]):
            tx = make(x, d)
            with pytest.raises(IndexError, match="out of bounds"):
                tl.scatter_reduce(tx, 0, ti(bad), make(src[:3], d), op)
            with pytest.raises(IndexError, match="out of bounds"):
                tl.scatter_reduce(make(x.reshape(2, 4), d), 1,
                                  ti([bad, bad]),
                                  make(src[:6].reshape(2, 3), d), op)
            np.testing.assert_array_equal(npv(tx), x)


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_index_runs_on_unaligned_data(d):
    """A tensor over a buffer at an odd byte offset (frombuffer) is not
    aligned for its dtype: the dense gather and reduce runs take their
    memcpy loops instead, with the same values."""
    rng = rng_for("unaligned", d)
    x = rand_values(rng, d, (12,))
    if d == tl.bfloat16:   # the high halves of the float32 values
        data = (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(
            np.uint16)
    else:
        data = x.astype(NP[d])
    raw = bytearray(b"\x07" + np.ascontiguousarray(data).tobytes())
    t = tl.frombuffer(raw, dtype=d, offset=1, count=12)
    np.testing.assert_array_equal(npv(t), x)
    idx = rng.integers(0, 12, 9)
    np.testing.assert_array_equal(npv(tl.gather(t, 0, ti(idx))), x[idx])
    np.testing.assert_array_equal(npv(tl.index_select(t, 0, ti(idx))),
                                  x[idx])
    ops = ["sum", "prod"] if d in COMPLEX else ["sum", "amax", "amin"]
    for op in ops:
        src = rand_values(rng, d, (9,))
        ref = np_scatter_reduce(npv(t), 0, idx, src, op, True, d)
        t.scatter_reduce_(0, ti(idx), make(src, d), op)
        check_close(npv(t), ref, d, f"unaligned {op}", ulps=4)
    assert raw[0] == 7   # the byte before the tensor untouched


@pytest.mark.parametrize("d", ALL, ids=NAME.get)
def test_index_ops_bad_index_every_item_size(d):
    """A bad index in each run of the copy walks (a row run of
    index_select, the element runs of gather/scatter, the dense gather
    run): IndexError naming the op and the index, operands unchanged."""
    rng = rng_for("bad-index", d)
    x = rand_values(rng, d, (3, 4))
    tx = make(x, d)
    src = make(rand_values(rng, d, (3, 4)), d)
    v = True if d == tl.bool else 2
    calls = [
        ("gather", lambda: tl.gather(tx, 0, ti([[0, 5]]))),
        ("gather", lambda: tl.gather(tx, 1, ti([[0, 1, 4]]))),
        ("gather", lambda: tl.gather(tx[0], 0, ti([1, 2, 9]))),
        ("index_select", lambda: tl.index_select(tx, 0, ti([0, 3]))),
        ("index_select", lambda: tl.index_select(tx, 1, ti([2, -1]))),
        ("scatter", lambda: tl.scatter(tx, 0, ti([[1, 3]]), src[:1, :2])),
        ("scatter", lambda: tl.scatter(tx, 1, ti([[4]]), value=v)),
        ("index_copy", lambda: tl.index_copy(tx, 0, ti([3]), src[:1])),
        ("index_fill", lambda: tl.index_fill(tx, 1, ti([4]), v)),
        ("take", lambda: tl.take(tx, ti([12]))),
    ]
    for name, f in calls:
        with pytest.raises(IndexError, match=name):
            f()
        np.testing.assert_array_equal(npv(tx), x, err_msg=name)
