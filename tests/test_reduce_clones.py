"""Every row and column kernel of the reductions, run on each ISA clone.

reduce_kernels.c compiles its row, run and column kernels for the
baseline, AVX2 and (some) AVX-512 and picks one at run time
(Note [AVX2 dispatch]); TENSORLIB_VECMATH caps the choice.  The script
below walks the dispatcher's cases for every dtype, complex included
(tiny rows 1-17, short rows, long rows, contiguous rows, column steps,
unaligned starts, ties, NaNs and zeros of both signs, far rows over dim 0,
close rows over a middle dim, rows past 1 MiB, whole tensors) and checks
the exact results
(extrema, their indices, the logical reductions, counts) against NumPy in
the same process, whatever clone ran; the sums, products and float
reductions, which follow our own summation order, are hashed, and the
hashes must agree across the clones: the clones do the same operations in
the same order.  A NaN that arithmetic made (0 * inf) and a NaN of the
data meeting in a product keep the sign of whichever operand the compiler
put first, which the clones need not share: IEEE 754 leaves a NaN's sign
unspecified, and the hashes see one NaN."""
import numpy as np
import pytest

from _ops_common import outputs_at_every_width

_CLONES_SCRIPT = r"""
import hashlib
import numpy as np
import tensorlib as tl

rng = np.random.default_rng(19)
LENGTHS = list(range(1, 18)) + [20, 31, 32, 33, 63, 64, 65, 100, 129, 255,
                                256, 257, 513, 1000, 2049, 4099]
INTS = ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64",
        "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def same(got, ref, what):
    got, ref = np.asarray(got), np.asarray(ref)
    ok = got.shape == ref.shape and bool(
        np.all((got == ref) | ((got != got) & (ref != ref))))
    if not ok:
        raise SystemExit(f"{what}: {got!r} != {ref!r}")


def data(name, m, n):
    if name == "bool":
        return rng.random((m, n)) < 0.3
    if name in INTS:
        info = np.iinfo(name)
        lo, hi = max(int(info.min), -300), min(int(info.max), 300)
        return rng.integers(lo, hi, (m, n), endpoint=True).astype(name)
    if name in COMPLEX:  # zeros in either part, NaN in one
        x = data("float64", m, n) + 1j * data("float64", m, n)
        x[rng.random((m, n)) < 0.2] = 0.0
        return x
    x = rng.standard_normal((m, n))
    x[rng.random((m, n)) < 0.1] = 0.0
    x[rng.random((m, n)) < 0.1] = -0.0
    x[1, rng.integers(n)] = np.nan
    x[2, :] = np.nan
    x[3, :] = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    x[4, :] = -np.abs(x[4, :])
    x[5, rng.integers(n)] = np.inf
    x[6, rng.integers(n)] = -np.inf
    return x


def f64(e):
    return e.to(tl.complex128 if e.dtype.is_complex else tl.float64).numpy()


def check(h, name, v, r, dim, what):
    # Every reduction of v (r: v at our dtype in NumPy) over dim (None:
    # all of it): the exact ones against NumPy, the rest into h.
    kw = {} if dim is None else {"dim": dim}
    ax = {} if dim is None else {"axis": dim}
    what = f"{name} {what} dim={dim}"
    if name not in ["bool"] + COMPLEX:
        ext = []
        for op in ("amax", "amin"):
            e = f64(getattr(tl, op)(v, **kw))
            same(e, getattr(np, op)(r, **ax).astype(np.float64),
                 f"{op} {what}")
            ext.append(e)
        for op in ("argmax", "argmin"):
            same(getattr(tl, op)(v, **kw).numpy(),
                 getattr(np, op)(r, **ax), f"{op} {what}")
        if dim is not None:
            vals, idx = v.max(dim=dim)
            same(idx.numpy(), np.argmax(r, axis=dim), f"max.indices {what}")
            ext.append(f64(vals))
        mn, mx = tl.aminmax(v, **kw)
        for e, ref in ((mn, np.min), (mx, np.max)):
            e = f64(e)
            same(e, ref(r, **ax).astype(np.float64), f"aminmax {what}")
            ext.append(e)
        # which zero an extreme is: the sign bits, hashed
        for e in ext:
            h.update(np.signbit(e).tobytes())
    same(tl.count_nonzero(v, **kw).numpy(), np.count_nonzero(r, **ax),
         f"count_nonzero {what}")
    same(tl.any(v, **kw).numpy(), np.any(r, **ax), f"any {what}")
    same(tl.all(v, **kw).numpy(), np.all(r, **ax), f"all {what}")
    hashed = [tl.sum(v, **kw), tl.prod(v, **kw)]
    if name in FLOATS + COMPLEX:
        hashed += [tl.mean(v, **kw), tl.var(v, **kw),
                   tl.linalg.vector_norm(v, **kw)]
    if name in FLOATS:
        hashed += [tl.nansum(v, **kw), tl.nanmean(v, **kw)]
    for e in hashed:
        e = f64(e)
        h.update(np.where(e != e, np.nan, e).tobytes())


def tensors(name, m, n):
    # (m, n) of data in our dtype, and it in NumPy (bfloat16 as float32),
    # with a row of ties and a row whose maximum comes back (its first
    # element, complex).
    x = data(name, m, n)
    x[0, :] = x[0, min(1, n - 1)]
    x[7, ::3] = (1 if name == "bool" else x[7, 0] if name in COMPLEX
                 else x[7].max())
    wide = np.complex128 if name in COMPLEX else np.float64
    t = tl.from_numpy(x.astype(wide)).to(getattr(tl, name))
    return t, t.to(tl.float32 if name == "bfloat16" else t.dtype).numpy()


lines = []
for name in ["bool"] + INTS + FLOATS + COMPLEX:
    h = hashlib.sha256()
    for n in LENGTHS:
        # rows apart (row steps of 2n + 3), cut at 0, 1 and 3, or every
        # other element; and the rows one after another
        big, ref = tensors(name, max(9, min(40, 6000 // n)), 2 * n + 3)
        for lo, step in ((0, 1), (1, 1), (0, 2), (3, 1)):
            v = big[:, lo: lo + step * n: step]
            r = ref[:, lo: lo + step * n: step]
            for dim in (1, 0, None):
                check(h, name, v, r, dim, f"n={n} at {lo} step {step}")
        v = big[:, :n].contiguous()
        for dim in (1, None):
            check(h, name, v, ref[:, :n], dim, f"n={n} contiguous")
    # the middle dim: close rows (register strips, row folds)
    for c in (5, 33, 64, 128, 129, 300):
        big, ref = tensors(name, 140, c + 1)
        big, ref = big.reshape(2, 70, c + 1), ref.reshape(2, 70, c + 1)
        for cut in (slice(0, c), slice(1, c + 1)):
            check(h, name, big[:, :, cut], ref[:, :, cut], 1, f"{c} cols")
    # past 1 MiB, where the row runs and lanes prefetch
    size = getattr(tl, name).itemsize
    for n in (4, 100):
        big, ref = tensors(name, (1 << 20) // size // n + 9, n)
        for dim in (1, None):
            check(h, name, big, ref, dim, f"1 MiB of rows of {n}")
    lines.append(name + " " + h.hexdigest())
print("\n".join(lines))
"""


@pytest.mark.slow
def test_every_reduction_kernel_agrees_on_every_clone():
    out = outputs_at_every_width(_CLONES_SCRIPT)
    base = out["baseline"].splitlines()
    assert len(base) == 15
    for cap in ("avx2", "auto"):
        got = out[cap].splitlines()
        differ = [b.split()[0] for b, g in zip(base, got) if b != g]
        assert not differ, f"{cap} differs from baseline for {differ}"
