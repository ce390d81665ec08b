"""Helpers shared by the elementwise-operator suites (test_ops_*.py).

The oracle (DESIGN.md "Numeric semantics"): result dtypes and which inputs
are errors follow PyTorch; values follow NumPy computed on the inputs cast
to tensorlib's result dtype.  float16 and bfloat16 results are computed in
float32 and rounded once (bfloat16 has no NumPy dtype: its values travel
as float32 arrays holding bfloat16-exact numbers)."""
import zlib

import numpy as np

import tensorlib as tl

ALL = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32,
       tl.uint32, tl.int64, tl.uint64, tl.float16, tl.bfloat16, tl.float32,
       tl.float64, tl.complex64, tl.complex128]
INTS = [tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32, tl.uint32,
        tl.int64, tl.uint64]
SIGNED = [tl.int8, tl.int16, tl.int32, tl.int64]
FLOATS = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
COMPLEX = [tl.complex64, tl.complex128]
# The dtypes PyTorch promotes with everything (no uint16/32/64).
TORCH_FULL = [d for d in ALL if d not in (tl.uint16, tl.uint32, tl.uint64)]

NAME = {d: str(d).split(".")[-1] for d in ALL}
NP = {d: (np.float32 if d == tl.bfloat16 else np.dtype(NAME[d]).type)
      for d in ALL}


def seed(*parts):
    """A seed that is the same in every process (str hash() is not)."""
    return zlib.crc32(repr([str(p) for p in parts]).encode())


def rng_for(*parts):
    return np.random.default_rng(seed(*parts))


def is_int(d):
    return d in INTS


def is_float(d):
    return d in FLOATS


def is_complex(d):
    return d in COMPLEX


def bits(d):
    return np.dtype(NP[d]).itemsize * 8


def real_of(d):
    return {tl.complex64: tl.float32, tl.complex128: tl.float64}.get(d, d)


def torch_dtype(torch, d):
    return getattr(torch, NAME[d])


# ---- rounding to the narrow float types ---------------------------------

def round_bf16(x):
    """float32/float64 array -> float32 array of the nearest bfloat16
    values (ties to even; NaN stays NaN; overflow gives inf).  float64
    inputs are rounded directly (no double rounding through float32)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        # Round the float64 mantissa to 8 significant bits.
        out = np.empty(x.shape, np.float64)
        m, e = np.frexp(x)
        r = np.ldexp(np.round(m * 256.0), e - 8)  # np.round: half to even
        finite = np.isfinite(x)
        out[finite] = r[finite]
        out[~finite] = x[~finite]
        # Below bfloat16's normal range the spacing is fixed (2**-133).
        small = finite & (np.abs(x) < 2.0 ** -126)
        out[small] = np.round(x[small] * 2.0 ** 133) * 2.0 ** -133
        with np.errstate(over="ignore"):
            big = np.abs(out) >= 2.0 ** 128
            out[big & finite] = np.copysign(np.inf, out[big & finite])
            return out.astype(np.float32)
    shape = x.shape
    x = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = r.view(np.float32).copy()
    out[np.isnan(x)] = np.nan
    return out.reshape(shape)


def as_dtype(x, d):
    """NumPy values x converted to dtype d as tensorlib stores them (the
    bfloat16 case as float32 holding bfloat16 values)."""
    x = np.asarray(x)
    if d == tl.bfloat16:
        if np.iscomplexobj(x):
            x = x.real
        if x.dtype.kind in "iub":
            x = x.astype(np.float64)
        return round_bf16(x)
    if d == tl.bool:
        return x != 0
    if np.iscomplexobj(x) and not is_complex(d):
        x = x.real
    if is_int(d) and x.dtype.kind == "f":
        return float_to_int(x, d)
    return x.astype(NP[d])


def float_to_int(x, d):
    """tensorlib's float -> integer cast: truncation, NaN -> 0, out of range
    saturates (DESIGN.md)."""
    info = np.iinfo(NP[d])
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(np.nan_to_num(x, nan=0.0, posinf=np.inf, neginf=-np.inf))
    out = np.empty(x.shape, NP[d])
    lo = t <= float(info.min)
    hi = t >= float(info.max)
    mid = ~(lo | hi)
    out[lo] = info.min
    out[hi] = info.max
    out[mid] = t[mid].astype(NP[d])
    return out


def compute_dtype(d):
    """The NumPy dtype a result of dtype d is computed in."""
    if d in (tl.float16, tl.bfloat16):
        return np.float32
    return NP[d]


def finish(values, d):
    """A float32 computation rounded once to the result dtype d."""
    values = np.asarray(values)
    if d == tl.bfloat16:
        return round_bf16(values.astype(np.float32))
    if d == tl.float16:
        with np.errstate(over="ignore"):
            return values.astype(np.float16)
    return values.astype(NP[d])


# ---- tensors and views ---------------------------------------------------

def to_np(t):
    """The values of t as a contiguous NumPy array (bfloat16 -> float32)."""
    if t.dtype == tl.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)


def from_np(x, d):
    """A contiguous tensor of dtype d holding as_dtype(x, d)."""
    v = np.array(as_dtype(x, d), order="C", copy=True)
    if d == tl.bfloat16:
        t = tl.tensor(v.astype(np.float32)).to(tl.bfloat16)
    else:
        t = tl.tensor(v)
    assert t.dtype == d, (t.dtype, d)
    return t


def random_values(shape, d, rng, kind="normal"):
    """Random values for dtype d (already representable in d).
    kind: "normal" (ints over their full range), "small" (|x| <= 4),
    "positive" (floats in (0.05, 5], ints in [1, 4]), "nonzero"."""
    shape = tuple(shape)
    if d == tl.bool:
        v = rng.random(shape) < 0.5
        if kind in ("positive", "nonzero"):
            v = np.ones(shape, bool)
        return v
    if is_int(d):
        info = np.iinfo(NP[d])
        if kind == "normal":
            lo, hi = int(info.min), int(info.max)
        elif kind == "positive":
            lo, hi = 1, 4
        else:
            lo, hi = max(int(info.min), -4), 4
        v = np.array(rng.integers(lo, hi, size=shape, endpoint=True,
                                  dtype=NP[d]))
        if kind == "nonzero":
            v[v == 0] = 1
        return v
    if is_complex(d):
        if kind == "positive":
            v = (rng.uniform(0.3, 2.0, shape) *
                 np.exp(1j * rng.uniform(-1.2, 1.2, shape)))
        else:
            v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
            if kind == "small":
                v = np.round(v * 2) / 2
        return v.astype(NP[d])
    if kind == "positive":
        v = rng.uniform(0.05, 5.0, shape)
    elif kind == "small":
        v = np.round(rng.standard_normal(shape) * 4) / 2
    else:
        v = rng.standard_normal(shape) * 3
    v = np.array(v, np.float64)
    if kind == "nonzero":
        v[v == 0] = 1.0
    return as_dtype(v, d)


LAYOUTS = ["contiguous", "transposed", "stepped", "flipped", "neg_stepped"]


def view_as(x, d, layout, rng=None):
    """A tensor of dtype d whose values are x, laid out as `layout`:
    contiguous, transposed (a permuted copy permuted back: strides
    reversed), stepped (every other element of a bigger tensor),
    flipped (a negative stride via flip), neg_stepped (t[::-2] of a bigger
    tensor).  Layouts that need a dim fall back to contiguous for 0-d."""
    x = np.asarray(x)
    if x.ndim == 0 or layout == "contiguous":
        return from_np(x, d)
    if layout == "transposed":
        perm = list(range(x.ndim))[::-1]
        base = from_np(np.transpose(x, perm), d)
        t = base.permute(perm)
    elif layout in ("stepped", "neg_stepped"):
        shape = list(x.shape)
        shape[0] *= 2
        big = np.zeros(shape, x.dtype)
        if rng is not None and x.dtype != bool:
            big[...] = x.flat[0] if x.size else 0
        if layout == "stepped":
            big[::2] = x
            t = from_np(big, d)[::2]
        else:
            big[::-2] = x
            t = from_np(big, d)[::-2]
    elif layout == "flipped":
        dims = tuple(range(x.ndim))
        t = from_np(np.flip(x, dims), d).flip(dims)
    else:
        raise AssertionError(layout)
    assert tuple(t.shape) == x.shape
    return t


def broadcast_view(x, d, shape):
    """x (whose shape broadcasts to `shape`) as an expanded stride-0 view."""
    t = from_np(x, d)
    return t.expand(*shape) if len(shape) else t


# ---- comparisons ---------------------------------------------------------

# Relative tolerance per result dtype for computations that are not exact.
RTOL = {tl.float16: 2.0 ** -9, tl.bfloat16: 2.0 ** -6, tl.float32: 4e-6,
        tl.float64: 1e-13, tl.complex64: 4e-6, tl.complex128: 1e-13}


def check(got, want, d, exact=True, rtol=None, atol=None, what=""):
    """Asserts that tensor `got` has dtype d, want's shape and its values:
    exactly (NaN == NaN) or within rtol/atol (default per dtype)."""
    assert got.dtype == d, (what, got.dtype, d)
    want = np.asarray(want)
    assert tuple(got.shape) == want.shape, (what, got.shape, want.shape)
    g = to_np(got)
    if d == tl.bfloat16:
        want = want.astype(np.float32)
    if exact or not (is_float(d) or is_complex(d)):
        if g.dtype.kind in "fc":
            ok = (g == want) | (np.isnan(g) & np.isnan(want))
            if not ok.all():
                bad = np.argwhere(~ok)[:5]
                raise AssertionError(
                    f"{what}: {d} mismatch at {bad.tolist()}: got "
                    f"{[g[tuple(i)] for i in bad]} want "
                    f"{[want[tuple(i)] for i in bad]}")
        else:
            np.testing.assert_array_equal(g, want, err_msg=what)
        return
    rtol = RTOL[d] if rtol is None else rtol
    atol = rtol if atol is None else atol
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=what)


def np_lshift(x, y, d):
    """x << y in dtype d as tensorlib defines it (DESIGN.md: a count
    below 0 or at least the bit width gives 0)."""
    ok = (y >= 0) & (y < bits(d))
    yc = np.where(ok, y, 0).astype(x.dtype)
    return np.where(ok, np.left_shift(x, yc), 0).astype(x.dtype)


def np_rshift(x, y, d):
    """x >> y in dtype d: such counts give 0, or -1 for a negative x."""
    ok = (y >= 0) & (y < bits(d))
    yc = np.where(ok, y, 0).astype(x.dtype)
    signed = np.issubdtype(x.dtype, np.signedinteger)
    fill = np.where(x < 0, -1, 0) if signed else 0
    return np.where(ok, np.right_shift(x, yc), fill).astype(x.dtype)


def outputs_at_every_width(script, caps=("baseline", "avx2", "auto")):
    """The stdout of `python -c script` with TENSORLIB_VECMATH set to each
    cap (the kernels' vector width: tests compare the outputs, a hash of
    results, across widths).  Returns {cap: stripped stdout}."""
    import os
    import subprocess
    import sys
    out = {}
    for cap in caps:
        env = dict(os.environ, TENSORLIB_VECMATH=cap)
        out[cap] = subprocess.run(
            [sys.executable, "-c", script], env=env, check=True,
            capture_output=True, text=True).stdout.strip()
    return out
