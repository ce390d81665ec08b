"""float8_e4m3fn and float8_e5m2 storage dtypes.

Casts to float8 follow PyTorch bit for bit on float32 (and narrower)
inputs — round to nearest even, e4m3fn saturating at +-448, e5m2
overflowing to inf, NaN keeping its sign — and round once from float64
(checked against exact rational rounding).  Casts from float8 are exact.
Copies, views, indexing, printing, lazy clones and files work;
arithmetic and promotion refuse with TypeError naming the dtype.
"""
import fractions
import math
import sys

import numpy as np
import pytest

import tensorlib as tl

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

F8 = [("float8_e4m3fn", 3, 7, True), ("float8_e5m2", 2, 15, False)]


def decode(bits, mbits, bias, fn):
    """The exact value of every float8 bit pattern (NaN as None)."""
    s = -1 if bits & 0x80 else 1
    e = (bits & 0x7f) >> mbits
    m = bits & ((1 << mbits) - 1)
    emax = (1 << (7 - mbits)) - 1
    if fn and e == emax and m == (1 << mbits) - 1:
        return None
    if not fn and e == emax:
        return None if m else s * math.inf
    if e == 0:
        return s * fractions.Fraction(m, 1 << (mbits + bias - 1))
    return s * (1 + fractions.Fraction(m, 1 << mbits)) * \
        fractions.Fraction(2) ** (e - bias)


def u8(t):
    return t.contiguous().numpy().view(np.uint8)


ml_dtypes = pytest.importorskip("ml_dtypes")


@pytest.mark.parametrize("name,mbits,bias,fn", F8)
def test_decode_every_pattern(name, mbits, bias, fn):
    bits = np.arange(256, dtype=np.uint8)
    t = tl.from_numpy(bits.view(getattr(ml_dtypes, name)))
    assert t.dtype == getattr(tl, name)
    vals = t.to(tl.float64).tolist()
    for b, v in zip(range(256), vals):
        want = decode(b, mbits, bias, fn)
        if want is None:
            assert math.isnan(v)
        else:
            assert v == want, (b, v, want)
            if v == 0:
                assert math.copysign(1, v) == (-1 if b & 0x80 else 1)


@needs_torch
@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_float32_to_float8_matches_torch_bit_for_bit(name):
    rng = np.random.default_rng(1)
    bits = np.concatenate([
        rng.integers(0, 2 ** 32, 50_000, dtype=np.uint64).astype(np.uint32),
        # around every float8 value: the ties and their neighbours
        (np.arange(256, dtype=np.uint32) << 24)[:, None].repeat(5, 1)
        .ravel() ^ np.tile(np.arange(5, dtype=np.uint32), 256),
    ])
    f = bits.view(np.float32)
    # every tie exactly: midpoints between consecutive float8 values
    grid = np.sort(np.unique(
        tl.from_numpy(np.arange(256, dtype=np.uint8).view(
            getattr(ml_dtypes, name))).to(tl.float32).numpy()))
    grid = grid[np.isfinite(grid)]
    mids = ((grid[1:].astype(np.float64) + grid[:-1]) / 2).astype(np.float32)
    f = np.concatenate([f, mids, -mids, np.array(
        [448, 464, 465, 480, 1e9, 57344, 61439, 61440, 1e30, np.inf,
         -np.inf, np.nan, -np.nan, 0.0, -0.0], np.float32)])
    ours = u8(tl.from_numpy(f).to(getattr(tl, name)))
    ref = torch.from_numpy(f).to(getattr(torch, name)).view(torch.uint8)
    np.testing.assert_array_equal(ours, ref.numpy())


@pytest.mark.parametrize("name,mbits,bias,fn", F8)
def test_float64_rounds_once(name, mbits, bias, fn):
    """From float64: the nearest float8 (ties to even), computed exactly
    with fractions, for values in range and just around the ties."""
    finite = sorted({decode(b, mbits, bias, fn) for b in range(256)} -
                    {None, math.inf, -math.inf})
    rng = np.random.default_rng(2)
    xs = list(rng.uniform(-float(finite[-1]), float(finite[-1]), 500))
    for a, b in zip(finite, finite[1:]):
        mid = (a + b) / 2
        xs += [float(mid), np.nextafter(float(mid), math.inf),
               np.nextafter(float(mid), -math.inf)]
    got = tl.tensor(xs, dtype=tl.float64).to(getattr(tl, name))
    back = got.to(tl.float64).tolist()
    import bisect
    for x, y in zip(xs, back):
        fx = fractions.Fraction(x)
        i = bisect.bisect_left(finite, fx)
        near = finite[max(0, i - 1):i + 1]
        best = min(near, key=lambda v: abs(v - fx))
        ties = [v for v in near if abs(v - fx) == abs(best - fx)]
        if len(ties) > 1:  # even mantissa wins
            enc = tl.tensor([float(v) for v in ties]).to(getattr(tl, name))
            best = [v for v, e in zip(ties, u8(enc)) if e % 2 == 0][0]
        assert y == best, (x, y, best)


@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_double_rounding_difference_is_real(name):
    """A float64 just above a float8 tie whose float32 rounding lands on
    the tie: PyTorch (through float32) rounds to even, tensorlib up."""
    one = tl.tensor([1.0]).to(getattr(tl, name)).to(tl.float64).item()
    mbits = 3 if name == "float8_e4m3fn" else 2
    tie = one + 2.0 ** -(mbits + 1)  # halfway from 1 to the next value
    x = tie + 2.0 ** -40             # rounds to the tie in float32
    assert np.float32(x) == np.float32(tie)
    assert tl.tensor([x], dtype=tl.float64).to(
        getattr(tl, name)).to(tl.float64).item() > one
    assert tl.tensor([x], dtype=tl.float32).to(
        getattr(tl, name)).to(tl.float64).item() == one


@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_casts_from_and_to_every_dtype(name):
    dt = getattr(tl, name)
    src = [0, 1, 2, 3, 7, 96, 224]  # exact in both float8s
    for other in (tl.bool, tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32,
                  tl.uint32, tl.int64, tl.uint64, tl.float16, tl.bfloat16,
                  tl.float32, tl.float64, tl.complex64, tl.complex128):
        t = tl.tensor(src if other != tl.bool else [0, 1]).to(other)
        f = t.to(dt)
        assert f.dtype == dt
        back = f.to(other)
        assert back.tolist() == t.tolist(), other
    big = tl.tensor([2 ** 62 + 2 ** 61, -(2 ** 63)], dtype=tl.int64)
    assert big.to(dt).to(tl.float64).tolist()[1] == (
        -448.0 if name == "float8_e4m3fn" else -math.inf)
    # to integers: NaN gives 0, out of range saturates (DESIGN.md)
    nan = tl.tensor([math.nan, -300.0, 300.0]).to(dt)
    assert nan.to(tl.int8).tolist() == [0, -128, 127]
    assert nan.to(tl.uint8).tolist() == [0, 0, 255]
    assert nan.to(tl.bool).tolist() == [True, True, True]
    # between the two float8s
    other = tl.float8_e5m2 if name == "float8_e4m3fn" else tl.float8_e4m3fn
    v = tl.tensor([0.5, 1.25, 3.0, -2.0]).to(dt)
    assert v.to(other).to(tl.float32).tolist() == \
        v.to(tl.float32).to(other).to(tl.float32).tolist()


@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_copies_views_indexing_printing(name):
    dt = getattr(tl, name)
    base = tl.arange(24, dtype=tl.float32).reshape(4, 6).to(dt)
    ref = base.to(tl.float32).numpy()  # the values float8 holds
    for v, r in ((base.t(), ref.T), (base[1:, ::2], ref[1:, ::2]),
                 (base.flip(1), ref[:, ::-1]),
                 (base[2:3].expand(3, 6), np.broadcast_to(ref[2:3], (3, 6)))):
        assert v.to(tl.float32).tolist() == r.tolist()
        c = v.contiguous()
        assert c.dtype == dt and c.is_contiguous()
        assert c.to(tl.float32).tolist() == r.tolist()
    x = base.clone()
    x[0, 0] = 3.3
    x[1] = tl.zeros(6, dtype=dt)
    x.copy_(x.flip(0))
    assert x.dtype == dt
    y = tl.empty(2, 6, dtype=dt)
    y.fill_(1.5)
    assert y.to(tl.float32).tolist() == [[1.5] * 6] * 2
    assert base[1, 2].item() == 8.0 == ref[1, 2]
    assert "dtype=tensorlib." + name in repr(base)
    assert repr(tl.tensor([0.5, -2.0], dtype=dt)).startswith(
        "tensor([ 0.5000, -2.0000]")
    z = tl.zeros(3, dtype=dt)
    assert z.tolist() == [0.0] * 3
    assert tl.ones((2, 2), dtype=dt).to(tl.float32).sum().item() == 4
    assert base.lazy_clone().to(tl.float32).tolist() == ref.tolist()


@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_arithmetic_and_promotion_refuse(name):
    dt = getattr(tl, name)
    a = tl.ones(3, dtype=dt)
    for expr in (lambda: a + a, lambda: a + 1, lambda: a * 2.0,
                 lambda: a + tl.ones(3), lambda: a.neg(), lambda: a.sum(),
                 lambda: a.add_(1), lambda: tl.promote_types(dt, tl.float32),
                 lambda: a.abs(), lambda: a.amax(), lambda: a > 0):
        with pytest.raises(TypeError, match=name):
            expr()
    assert tl.promote_types(dt, dt) == dt


@needs_torch
@pytest.mark.parametrize("name", [f[0] for f in F8])
def test_arithmetic_refusals_match_torch(name):
    t = torch.ones(3).to(getattr(torch, name))
    with pytest.raises((TypeError, RuntimeError)):
        torch.promote_types(getattr(torch, name), torch.float32)
    with pytest.raises((TypeError, RuntimeError)):
        t + t


def test_numpy_interop_needs_ml_dtypes(monkeypatch):
    t = tl.tensor([1.0, 2.0]).to(tl.float8_e5m2)
    a = t.numpy()
    assert a.dtype == np.dtype(ml_dtypes.float8_e5m2)
    back = tl.from_numpy(a)
    assert back.dtype == tl.float8_e5m2
    assert back.to(tl.float32).tolist() == [1.0, 2.0]
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(TypeError, match="ml_dtypes"):
        t.numpy()
    with pytest.raises(BufferError, match="float8"):
        t.__dlpack__()
