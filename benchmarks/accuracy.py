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
- NumPy on ``np.longdouble`` too for the inverse and hyperbolic functions
  (arcsin ... arctanh), exp2, hypot, logaddexp, logaddexp2 and xlogy;
- SciPy's ``scipy.special.erf`` (double) for float32 erf, and mpmath (50
  digits) for float64 erf on a subsample of the arguments; the same pair
  (a double-precision function for float32, mpmath for a float64
  subsample) for erfc, erfinv, lgamma, digamma, logit and sinc.

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
try:  # the tensorlib already imported or installed, else the source tree's
    import tensorlib
except ImportError:
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
    "rsqrt": 1, "reciprocal": 0, "sigmoid": 2, "erf": 2, "atan2": 2,
    "asin": 1, "acos": 1, "atan": 1, "sinh": 1, "cosh": 1, "asinh": 1,
    "acosh": 1, "atanh": 1, "exp2": 1, "hypot": 1,
    # recorded only (issue 18: "the others ... record the measured bound")
    "logaddexp": None, "logaddexp2": None, "xlogy": None, "erfc": None,
    "erfinv": None, "lgamma": None, "digamma": None, "logit": None,
    "sinc": None,
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


def _lgamma1(v: float) -> float:
    if v != v:
        return v
    if math.isinf(v):
        return math.inf
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # a pole (0, -1, ...) or overflow
        return math.inf


def _lgamma64(x):
    return np.array([_lgamma1(float(v)) for v in np.asarray(x, np.float64)])


def _sinc64(x):
    """sinc in double with sin(pi x) reduced exactly (NumPy's np.sinc
    rounds pi x first, so is no float32 reference for large x)."""
    x = np.asarray(x, np.float64)
    r = x - 2 * np.round(x / 2)
    t = np.where(r > 0.5, 1 - r, np.where(r < -0.5, -1 - r, r))
    with np.errstate(all="ignore"):
        v = np.sin(np.pi * t) / (np.pi * x)
    v = np.where(t == 0, 0.0, v)
    v = np.where(np.abs(x) >= 2.0 ** 52, 0.0, v)
    v = np.where(np.isinf(x), np.nan, v)
    return np.where(x == 0, 1.0, v)


def _double_ref(name):
    """The function in double precision (float32's reference, and every
    dtype's at poles and special arguments): SciPy, or CPython's lgamma
    (SciPy's gammaln gives inf at subnormals and -inf at -inf, where C99
    has -log|x| and +inf)."""
    import scipy.special as sp
    f = {"erfc": sp.erfc, "erfinv": sp.erfinv, "lgamma": _lgamma64,
         "digamma": sp.psi, "logit": sp.logit,
         "sinc": _sinc64}[name]

    def ref(x):
        x = np.asarray(x, np.float64)
        with np.errstate(all="ignore"):
            r = np.asarray(f(x), dtype=np.float64)
        if name == "erfinv":  # an odd function keeps -0 (as PyTorch)
            r = np.where(x == 0, x, r)
        return r
    return ref


def _mp_special(name, v: float) -> float:
    import mpmath as mp
    x = mp.mpf(v)
    if name == "erfc":
        return float(mp.erfc(x))
    if name == "erfinv":
        return float(mp.erfinv(x))
    if name == "lgamma":
        return float(mp.loggamma(x).real if x > 0 else
                     mp.log(abs(mp.gamma(x))))
    if name == "digamma":
        return float(mp.digamma(x))
    if name == "logit":
        return float(mp.log(x / (1 - x)))
    if name == "sinc":
        return float(mp.sinpi(x) / (mp.pi * x)) if x != 0 else 1.0
    raise KeyError(name)


def _special_fn_ref(name):
    """Reference of the special functions: float32 from the double
    function rounded once, float64 from mpmath (50 digits) where the
    argument is finite and not a pole."""
    def ref(x, dt):
        base = _double_ref(name)(x)
        if dt == np.float32:
            return base
        import mpmath
        out = base.copy()
        with mpmath.workdps(50):
            for i, v in enumerate(np.asarray(x, np.float64)):
                if not np.isfinite(v) or not np.isfinite(base[i]) or v == 0:
                    continue  # mpmath has no -0: keep the double value
                try:
                    out[i] = _mp_special(name, float(v))
                except (ValueError, ZeroDivisionError, OverflowError):
                    pass  # a pole, or beyond mpmath's series: SciPy's
        return out
    return ref


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
    dref: bool = False  # ref takes (x, dtype) and returns float64 values
    zero_special: bool = True  # a zero argument fixes the result exactly


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


def _signed_wide(rng, n, lo, hi):
    return np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)


def _unit_domain(rng, n, dt):
    """[-1, 1]: uniform, near +-1 and tiny (asin, acos, atanh, erfinv)."""
    x = rng.uniform(-1, 1, n)
    k = n // 4
    x[:k] = (1 - np.exp2(rng.uniform(-24 if dt == np.float32 else -53, -1,
                                     k))) * rng.choice([-1.0, 1.0], k)
    x[k:2 * k] = _signed_wide(rng, k, -60, -1)
    return x


def _hyp_domain(rng, n, dt):
    big = 89.5 if dt == np.float32 else 710.5
    return _uniform_then_wide(rng, n, -big, big, -3, 3)


def _acosh_domain(rng, n, dt):
    top = 127 if dt == np.float32 else 1023
    x = 1 + np.exp2(rng.uniform(-40, top, n))
    x[:n // 3] = rng.uniform(1, 3, n // 3)
    return x


def _unit_interval(rng, n, dt):
    """(0, 1): uniform and near both ends (logit)."""
    x = rng.uniform(0, 1, n)
    k = n // 4
    x[:k] = np.exp2(rng.uniform(-120, -1, k))
    x[k:2 * k] = 1 - np.exp2(rng.uniform(-24 if dt == np.float32 else -53,
                                         -1, k))
    return x


def _xlogy_ref(x, y):
    """PyTorch's xlogy: 0 where x is 0 unless y is NaN."""
    r = x * np.log(y)
    r = np.where(x == 0, np.zeros_like(r), r)
    return np.where(np.isnan(y), y, r)


def _fn_specials(extra=()):
    return lambda dt: _specials(dt, list(extra))


def _pair_specials(dt):
    v = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan,
                  float(np.finfo(dt).max), float(np.finfo(dt).tiny)],
                 dtype=dt)
    x, y = np.meshgrid(v, v)
    return [x.ravel(), y.ravel()]


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
             _specials, tl.erf, True, sample=20000),
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
             _atan2_special, tl.atan2, True),
        # issue 18's inverse and hyperbolic functions (public ops)
        Spec("asin", 1, np.arcsin, lambda r, n, dt: [_unit_domain(r, n, dt)],
             _specials, tl.asin),
        Spec("acos", 1, np.arccos, lambda r, n, dt: [_unit_domain(r, n, dt)],
             _specials, tl.acos),
        Spec("atan", 1, np.arctan,
             lambda r, n, dt: [_signed_wide(r, n, -60, 60)], _specials,
             tl.atan),
        Spec("sinh", 1, np.sinh, lambda r, n, dt: [_hyp_domain(r, n, dt)],
             _specials, tl.sinh),
        Spec("cosh", 1, np.cosh, lambda r, n, dt: [_hyp_domain(r, n, dt)],
             _specials, tl.cosh),
        Spec("asinh", 1, np.arcsinh,
             lambda r, n, dt: [_signed_wide(r, n, -60, 120)], _specials,
             tl.asinh),
        Spec("acosh", 1, np.arccosh,
             lambda r, n, dt: [_acosh_domain(r, n, dt)], _specials,
             tl.acosh),
        Spec("atanh", 1, np.arctanh,
             lambda r, n, dt: [_unit_domain(r, n, dt)], _specials,
             tl.atanh),
        Spec("exp2", 1, np.exp2,
             lambda r, n, dt: [_uniform_then_wide(
                 r, n, -150 if dt == np.float32 else -1075,
                 128 if dt == np.float32 else 1024, -5, 5)],
             _specials, tl.exp2),
        Spec("hypot", 2, np.hypot,
             lambda r, n, dt: [_signed_wide(r, n, -60, 60),
                               _signed_wide(r, n, -60, 60)],
             _pair_specials, tl.hypot),
        Spec("logaddexp", 2, np.logaddexp,
             lambda r, n, dt: [_uniform_then_wide(r, n, -1e4, 1e4, -30, 30),
                               _uniform_then_wide(r, n, -1e4, 1e4, -30, 30)],
             _pair_specials, tl.logaddexp, zero_special=False),
        Spec("logaddexp2", 2, np.logaddexp2,
             lambda r, n, dt: [_uniform_then_wide(r, n, -1e4, 1e4, -30, 30),
                               _uniform_then_wide(r, n, -1e4, 1e4, -30, 30)],
             _pair_specials, tl.logaddexp2, zero_special=False),
        Spec("xlogy", 2, _xlogy_ref,
             lambda r, n, dt: [r.uniform(-10, 10, n), _log_domain(r, n, dt)],
             _pair_specials, tl.xlogy),
        # the special functions: double function for float32, mpmath for
        # a float64 subsample
        Spec("erfc", 1, _special_fn_ref("erfc"),
             lambda r, n, dt: [_uniform_then_wide(r, n, -6, 27, -1, 1)],
             _specials, tl.erfc, sample=20000, dref=True),
        Spec("erfinv", 1, _special_fn_ref("erfinv"),
             lambda r, n, dt: [_unit_domain(r, n, dt)], _specials,
             tl.erfinv, sample=20000, dref=True),
        Spec("lgamma", 1, _special_fn_ref("lgamma"),
             lambda r, n, dt: [_uniform_then_wide(
                 r, n, -50, 50, 0.01, 1e30 if dt == np.float32 else 1e300)],
             _fn_specials([-1.5, 3.0, 1e-30]), tl.lgamma, sample=20000,
             dref=True),
        Spec("digamma", 1, _special_fn_ref("digamma"),
             lambda r, n, dt: [_uniform_then_wide(r, n, -20, 50, 0.01, 1e6)],
             _fn_specials([-1.5, 3.0]), tl.digamma, sample=20000,
             dref=True),
        Spec("logit", 1, _special_fn_ref("logit"),
             lambda r, n, dt: [_unit_interval(r, n, dt)], _specials,
             tl.logit, sample=20000, dref=True),
        Spec("sinc", 1, _special_fn_ref("sinc"),
             lambda r, n, dt: [_uniform_then_wide(r, n, -50, 50, -2, 2)],
             _specials, tl.sinc, sample=20000, dref=True),
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
            "asin": mp.asin, "acos": mp.acos, "atan": mp.atan,
            "sinh": mp.sinh, "cosh": mp.cosh, "asinh": mp.asinh,
            "acosh": mp.acosh, "atanh": mp.atanh,
            "exp2": lambda x: mp.power(2, x), "hypot": mp.hypot,
            "logaddexp": lambda x, y: mp.log(mp.exp(x) + mp.exp(y)),
            "logaddexp2": lambda x, y: mp.log(mp.power(2, x) +
                                              mp.power(2, y), 2),
            "xlogy": lambda x, y: x * mp.log(y),
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
        if spec.dref:
            return np.asarray(spec.ref(args[0], dt)).astype(dt)
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


def special_mask(args, ref, zero_args=True) -> np.ndarray:
    """The elements whose result C99 Annex F fixes exactly: an argument or
    the correctly rounded result is +-0, +-inf or NaN (the other elements
    of the special-value sets count toward the ulp measurement).  Without
    zero_args a zero argument does not count (logaddexp(0, 1) is an
    ordinary value)."""
    m = np.zeros(ref.shape, dtype=bool)
    for v in list(args):
        m |= ~np.isfinite(v) | ((v == 0) if zero_args else False)
    m |= ~np.isfinite(ref) | (ref == 0)
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
            smask = special_mask(args, ref, spec.zero_special)
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
