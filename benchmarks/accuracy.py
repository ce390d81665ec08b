"""Measures the accuracy of every floating-point function tensorlib has.

For each function and dtype (float32, float64) it evaluates the function on
N random arguments spread over the whole domain (uniform in value where the
domain is bounded, uniform in exponent where it spans many binades) plus
the special values (+-0, +-inf, NaN, subnormals, the overflow and underflow
boundaries), and compares with a high-precision reference:

- NumPy on ``np.longdouble`` (x87 extended: 64-bit significand, within an
  ulp of that precision for these functions on x86-64 Linux) for exp,
  expm1, log, log1p, log2, log10, sin, cos, tan, tanh, sigmoid, sqrt, pow,
  atan2;
- SciPy's ``scipy.special.erf`` (double) for float32 erf, and mpmath (50
  digits) for float64 erf on a subsample of the arguments.

The error is counted in units in the last place against the correctly
rounded result: the number of representable values between the result and
the reference rounded once to the dtype (0 = correctly rounded).  Special
values must agree exactly (sign of zero included) with NumPy's, which
follow C99 Annex F.

Each function is measured three ways where they exist: the public
``tensorlib`` function (today's kernels), and the vectorised loop of
``csrc/core/vecmath`` on the instruction set the CPU selects and on the
forced baseline (``tensorlib._C._vecmath_apply``).

    python benchmarks/accuracy.py              # 10^6 arguments
    python benchmarks/accuracy.py --n 10000    # what the tests run
    python benchmarks/accuracy.py --write      # also rewrite docs/accuracy.md

tests/test_accuracy.py runs ``measure`` with n = 10^4 and checks the
bounds (BOUNDS below: at most 1 ulp for the basic functions; the others'
measured bound).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tensorlib  # noqa: E402
from tensorlib import _C  # noqa: E402

LD = np.longdouble

# The bound every (function, dtype) must keep, in ulp against the correctly
# rounded result: 1 for the basic functions (issue 18), the measured bound
# (rounded up) for the others.  None: recorded only.
BOUNDS = {
    "exp": 1, "expm1": 1, "log": 1, "log1p": 1, "log2": 1, "log10": 1,
    "sin": 1, "cos": 1, "tan": 1, "tanh": 1, "pow": 1, "sqrt": 0,
    "rsqrt": 1, "reciprocal": 0, "sigmoid": 1, "erf": 2, "atan2": 2,
}


def ordinal(a: np.ndarray) -> np.ndarray:
    """The position of each float on the number line, as int64 (adjacent
    floats differ by 1, +0 and -0 both map to 0)."""
    it = np.int64 if a.dtype == np.float64 else np.int32
    i = a.view(it).astype(np.int64)
    mag = i & np.int64(np.iinfo(it).max)
    return np.where(i < 0, -mag, mag)


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Distance in ulp between got and ref (same float dtype); 0 where both
    are NaN, 2^40 where only one is."""
    got = np.asarray(got)
    ref = np.asarray(ref)
    d = np.abs(ordinal(got) - ordinal(ref))
    gn, rn = np.isnan(got), np.isnan(ref)
    d = np.where(gn & rn, 0, d)
    return np.where(gn ^ rn, np.int64(1) << 40, d)


def same_special(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Elementwise: equal bits up to NaN payload (so the sign of zero
    counts)."""
    gn, rn = np.isnan(got), np.isnan(ref)
    eq = (got == ref) & (np.signbit(got) == np.signbit(ref))
    return (gn & rn) | (~gn & ~rn & eq)


def _sigmoid_ref(x):
    with np.errstate(over="ignore"):
        return LD(1) / (LD(1) + np.exp(-x))


def _erf_ref(x: np.ndarray, dt) -> np.ndarray:
    if dt == np.float32:
        import scipy.special
        return scipy.special.erf(x.astype(np.float64))
    import mpmath
    with mpmath.workdps(50):
        v = np.array([float(mpmath.erf(mpmath.mpf(float(e)))) for e in x])
    return np.copysign(v, x)  # mpmath has no -0; erf is odd


@dataclass
class Spec:
    name: str
    arity: int
    ref: Callable  # on longdouble arrays (or (x, dtype) for erf)
    domain: Callable  # (rng, n, dtype) -> arrays
    special: Callable  # dtype -> arrays
    public: Optional[Callable] = None  # tensorlib function
    vec: bool = False  # has a vecmath loop
    sample: Optional[int] = None  # float64 reference is slow: subsample
    ieee: bool = False  # ref is exact in the dtype itself


def _exp_range(dt):
    return (88.8, 103.9) if dt == np.float32 else (709.8, 745.2)


def _uniform_then_wide(rng, n, lo, hi, wlo, whi):
    x = rng.uniform(lo, hi, n)
    k = n // 2
    x[:k] = rng.uniform(wlo, whi, k)
    return x


def _log_domain(rng, n, dt, lo_exp=None):
    fi = np.finfo(dt)
    lo = lo_exp if lo_exp is not None else math.log2(
        float(fi.smallest_subnormal))
    e = rng.uniform(lo, math.log2(float(fi.max)), n)
    x = np.exp2(e)
    k = n // 3
    x[:k] = rng.uniform(0.5, 2.0, k)
    return x


def _specials(dt, extra=()):
    fi = np.finfo(dt)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, float(fi.tiny),
         -float(fi.tiny), float(fi.smallest_subnormal),
         -float(fi.smallest_subnormal), float(fi.max), -float(fi.max),
         1.0, -1.0, 0.5, 2.0]
    return [np.array(v + list(extra), dtype=dt)]


def _spec_exp(dt):
    over, under = _exp_range(dt)
    return _specials(dt, [over, -under, math.log(float(np.finfo(dt).max)),
                          -under + 0.5, 88.72283935546875])


def _pow_special(dt):
    v = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                  np.inf, -np.inf, np.nan, 1e-30, 1e30], dtype=dt)
    x, y = np.meshgrid(v, v)
    return [x.ravel(), y.ravel()]


def _atan2_special(dt):
    v = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf, np.nan,
                  float(np.finfo(dt).smallest_subnormal)], dtype=dt)
    x, y = np.meshgrid(v, v)
    return [x.ravel(), y.ravel()]


def _pow_domain(rng, n, dt):
    x = np.exp2(rng.uniform(-40, 40, n))
    big = 120.0 if dt == np.float32 else 1000.0
    y = rng.uniform(-big, big, n) / np.maximum(np.abs(np.log2(x)), 1.0)
    k = n // 4
    x[:k] = rng.uniform(0, 4, k)
    y[:k] = rng.uniform(-20, 20, k)
    # negative bases with integral exponents
    x[k:2 * k] = -rng.uniform(0, 4, k)
    y[k:2 * k] = np.round(rng.uniform(-30, 30, k))
    return [x, y]


def _trig_domain(rng, n, dt):
    x = rng.uniform(-1e5, 1e5, n)
    k = n // 2
    x[:k] = rng.uniform(-8, 8, k)
    x[:n // 10] = np.exp2(rng.uniform(-30, 60, n // 10)) * \
        rng.choice([-1.0, 1.0], n // 10)
    return [x]


def specs() -> list[Spec]:
    tl = tensorlib
    sq = lambda rng, n, dt: [_log_domain(rng, n, dt)]  # noqa: E731
    return [
        Spec("exp", 1, np.exp,
             lambda r, n, dt: [_uniform_then_wide(
                 r, n, -_exp_range(dt)[1], _exp_range(dt)[0], -5, 5)],
             _spec_exp, tl.exp, True),
        Spec("expm1", 1, np.expm1,
             lambda r, n, dt: [_uniform_then_wide(
                 r, n, -60, _exp_range(dt)[0], -1, 1)],
             _spec_exp, tl.expm1, True),
        Spec("log", 1, np.log, sq, _specials, tl.log, True),
        Spec("log2", 1, np.log2, sq, _specials, tl.log2, True),
        Spec("log10", 1, np.log10, sq, _specials, tl.log10, False),
        Spec("log1p", 1, np.log1p,
             lambda r, n, dt: [np.concatenate([
                 _log_domain(r, n - n // 3, dt),
                 r.uniform(-1, 1, n // 3)])],
             lambda dt: _specials(dt, [-0.5, -1.0 + 2 ** -20]),
             tl.log1p, True),
        Spec("sin", 1, np.sin, _trig_domain, _specials, tl.sin, True),
        Spec("cos", 1, np.cos, _trig_domain, _specials, tl.cos, True),
        Spec("tan", 1, np.tan, _trig_domain, _specials, tl.tan, True),
        Spec("tanh", 1, np.tanh,
             lambda r, n, dt: [_uniform_then_wide(r, n, -30, 30, -1, 1)],
             _specials, tl.tanh, True),
        Spec("sigmoid", 1, _sigmoid_ref,
             lambda r, n, dt: [_uniform_then_wide(
                 r, n, -_exp_range(dt)[1], 40, -8, 8)],
             _specials, tl.sigmoid, True),
        Spec("erf", 1, _erf_ref,
             lambda r, n, dt: [_uniform_then_wide(r, n, -7, 7, -1, 1)],
             _specials, None, True, sample=20000),
        # sqrt and 1/x are correctly rounded IEEE operations in the dtype
        # itself (a longdouble detour would round twice)
        Spec("sqrt", 1, np.sqrt, sq, _specials, tl.sqrt, False, ieee=True),
        Spec("rsqrt", 1, lambda x: LD(1) / np.sqrt(x), sq, _specials,
             tl.rsqrt, False),
        Spec("reciprocal", 1, lambda x: 1 / x, sq, _specials,
             tl.reciprocal, False, ieee=True),
        Spec("pow", 2, np.power, _pow_domain, _pow_special, tl.pow, True),
        Spec("atan2", 2, np.arctan2,
             lambda r, n, dt: [r.uniform(-10, 10, n), r.uniform(-10, 10, n)],
             _atan2_special, None, True),
    ]


def _mp_value(name: str, args) -> float:
    """The function at one point in mpmath (50 digits), rounded once."""
    import mpmath as mp
    with mp.workdps(50):
        a = [mp.mpf(float(v)) for v in args]
        f = {
            "exp": mp.exp, "expm1": mp.expm1, "log": mp.log,
            "log2": lambda x: mp.log(x, 2), "log10": mp.log10,
            "log1p": mp.log1p, "sin": mp.sin, "cos": mp.cos, "tan": mp.tan,
            "tanh": mp.tanh, "sigmoid": lambda x: 1 / (1 + mp.exp(-x)),
            "erf": mp.erf, "sqrt": mp.sqrt,
            "rsqrt": lambda x: 1 / mp.sqrt(x), "reciprocal": lambda x: 1 / x,
            "pow": mp.power, "atan2": mp.atan2,
        }[name]
        return float(f(*a))


def _reference(spec: Spec, args, dt):
    """The correctly rounded results: the longdouble value rounded to dt,
    except where that value lies within a few longdouble ulps of a
    midpoint between two dt values (rounding twice could pick the wrong
    one: about one float64 argument in 2^11), which mpmath redoes."""
    with np.errstate(all="ignore"):
        if spec.name == "erf":
            return np.asarray(_erf_ref(args[0], dt)).astype(dt)
        if spec.ieee:
            return spec.ref(*args).astype(dt)
        ref = spec.ref(*[a.astype(LD) for a in args])
        cr = ref.astype(dt)
        fin = np.isfinite(cr) & (cr != 0)
        half = np.spacing(np.abs(cr)).astype(LD) / 2
        dist = np.abs(np.abs(ref - cr.astype(LD)) - half)
        near = fin & (dist <= np.abs(ref) * LD(2.0) ** -56)
    idx = np.nonzero(near)[0]
    if len(idx):
        try:
            import mpmath  # noqa: F401
        except ImportError:
            return cr
        cr = cr.copy()
        for i in idx:
            cr[i] = dt(_mp_value(spec.name, [a[i] for a in args]))
    return cr


def special_mask(args, ref) -> np.ndarray:
    """The elements whose result C99 Annex F fixes exactly: an argument or
    the correctly rounded result is +-0, +-inf or NaN (the other elements
    of the special-value sets count toward the ulp measurement)."""
    m = np.zeros(ref.shape, dtype=bool)
    for v in list(args) + [ref]:
        m |= ~np.isfinite(v) | (v == 0)
    return m


def _run(spec: Spec, how: str, args, dt):
    ts = [tensorlib.from_numpy(np.ascontiguousarray(a)) for a in args]
    if how == "public":
        r = spec.public(*ts)
    else:
        r = _C._vecmath_apply(spec.name, *ts, baseline=(how == "baseline"))
    return r.numpy()


def hows(spec: Spec) -> list[str]:
    out = []
    if spec.public is not None:
        out.append("public")
    if spec.vec:
        out += ["vec", "baseline"]
    return out


@dataclass
class Result:
    name: str
    dtype: str
    how: str
    max_ulp: int
    worst: tuple  # the arguments of the worst case
    special_mismatch: int
    special_total: int


def measure(n: int = 10 ** 6, seed: int = 0, only=None) -> list[Result]:
    """Every (function, dtype, implementation): the max ulp error on n
    random arguments, and how many special values disagree with NumPy."""
    out = []
    for spec in specs():
        if only and spec.name not in only:
            continue
        for dt in (np.float32, np.float64):
            rng = np.random.default_rng(seed)
            m = n
            if spec.sample and dt == np.float64:
                m = min(n, spec.sample)
            sargs = spec.special(dt)
            args = [np.concatenate([a.astype(dt), sa]) for a, sa in
                    zip(spec.domain(rng, m, dt), sargs)]
            ref = _reference(spec, args, dt)
            smask = special_mask(args, ref)
            for how in hows(spec):
                got = _run(spec, how, args, dt)
                err = ulp_error(got, ref)
                i = int(np.argmax(err))
                ok = same_special(got[smask], ref[smask])
                out.append(Result(spec.name, np.dtype(dt).name, how,
                                  int(err[i]),
                                  tuple(float(a[i]) for a in args),
                                  int((~ok).sum()), int(ok.size)))
    return out


def table(results: list[Result]) -> str:
    lines = ["| function | dtype | public op | vectorised (%s) | "
             "vectorised (baseline) | bound | special values |"
             % _C._vecmath_isa(),
             "|---|---|---|---|---|---|---|"]
    key = {}
    for r in results:
        key.setdefault((r.name, r.dtype), {})[r.how] = r
    for (name, dtype), d in key.items():
        def cell(h):
            return str(d[h].max_ulp) if h in d else "–"
        sp = sum(r.special_mismatch for r in d.values())
        st = sum(r.special_total for r in d.values())
        sp_s = "all %d exact" % st if sp == 0 else "%d of %d differ" % (sp, st)
        b = BOUNDS.get(name)
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name, dtype, cell("public"), cell("vec"), cell("baseline"),
            "≤ %d" % b if b is not None else "measured", sp_s))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10 ** 6,
                    help="random arguments per function and dtype")
    ap.add_argument("--only", nargs="*", help="function names")
    ap.add_argument("--write", action="store_true",
                    help="rewrite the measured table in docs/accuracy.md")
    a = ap.parse_args(argv)
    res = measure(a.n, only=a.only)
    t = table(res)
    print(t)
    bad = [r for r in res if BOUNDS.get(r.name) is not None
           and r.max_ulp > BOUNDS[r.name]]
    for r in bad:
        print("over the bound: %s %s %s: %d ulp at %r" % (
            r.name, r.dtype, r.how, r.max_ulp, r.worst))
    if a.write:
        path = os.path.join(ROOT, "docs", "accuracy.md")
        with open(path) as f:
            doc = f.read()
        start = doc.index("<!-- accuracy-table -->")
        end = doc.index("<!-- /accuracy-table -->")
        doc = (doc[:start] + "<!-- accuracy-table -->\n\n"
               + "Measured with `python benchmarks/accuracy.py --n %d "
               "--write` (ulp against the correctly rounded result).\n\n"
               % a.n + t + "\n\n" + doc[end:])
        with open(path, "w") as f:
            f.write(doc)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
