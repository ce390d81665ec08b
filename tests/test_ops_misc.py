"""where, clamp, copy_/to and the casts between every dtype pair on every
layout, fill_, zero_, contiguous and clone with memory formats.

Values follow the NumPy oracle with tensorlib's documented cast rules
(float -> integer truncates, NaN -> 0, out of range saturates; complex ->
real keeps the real part; to float16/bfloat16 rounds once from float64);
result dtypes, strides of clone/contiguous/to and error kinds follow
PyTorch where it has the feature."""
import itertools

import numpy as np
import pytest

import tensorlib as tl

from _ops_common import (ALL, LAYOUTS, NP, TORCH_FULL, as_dtype, check,
                         compute_dtype, finish, from_np, is_complex,
                         is_float, is_int, random_values, rng_for, to_np,
                         torch_dtype, view_as)


def tname(d):
    return str(d).split(".")[-1]


# ---- where -----------------------------------------------------------------

@pytest.mark.parametrize("da,db", [(tl.float32, tl.float32),
                                   (tl.int8, tl.uint8),
                                   (tl.int64, tl.float16),
                                   (tl.bool, tl.bool),
                                   (tl.bfloat16, tl.float64),
                                   (tl.complex64, tl.int32),
                                   (tl.uint32, tl.int16)],
                         ids=lambda d: tname(d))
def test_where_values_layouts_broadcast(da, db):
    rng = rng_for("where", da, db)
    shapes = [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), (1, 4)),
              ((), (2, 3), ()), ((2, 0), (1,), (2, 1)),
              ((2, 3, 4), (3, 1), (4,))]
    for sc, sa, sb in shapes:
        c = rng.random(sc) < 0.5
        x = random_values(sa, da, rng)
        y = random_values(sb, db, rng)
        full = np.broadcast_shapes(sc, sa, sb)
        for lc, la, lb in [("contiguous",) * 3,
                           ("transposed", "flipped", "neg_stepped"),
                           ("stepped", "transposed", "flipped")]:
            ct, at, bt = (view_as(c, tl.bool, lc), view_as(x, da, la),
                          view_as(y, db, lb))
            r = tl.result_type(at, bt)
            got = tl.where(ct, at, bt)
            want = np.where(np.broadcast_to(c, full),
                            as_dtype(np.broadcast_to(x, full), r),
                            as_dtype(np.broadcast_to(y, full), r))
            check(got, want, r, what=f"where {sc} {sa} {sb} {lc}")
            # The method form: a.where(cond, other).
            check(at.where(ct, bt), want, r)


def test_where_scalars_and_promotion(torch):
    c = tl.tensor([True, False, True])
    tc = torch.tensor([True, False, True])
    for dt in TORCH_FULL:
        t = tl.ones(3, dtype=dt)
        tt = torch.ones(3, dtype=torch_dtype(torch, dt))
        for s in (0, 2.5, True, 1j):
            try:
                want = torch.where(tc, tt, s).dtype
            except (RuntimeError, TypeError):
                continue
            got = tl.where(c, t, s)
            assert tname(got.dtype) == str(want).split(".")[-1].replace(
                "complex32", "complex64"), (dt, s)
            assert tl.where(c, s, t).dtype == got.dtype
    got = tl.where(c, 1.5, -2)
    assert got.dtype == tl.float32 and got.tolist() == [1.5, -2.0, 1.5]


def test_where_errors_and_out():
    a = tl.arange(4)
    with pytest.raises(TypeError):
        tl.where(tl.tensor([1, 0, 1, 0]), a, a)
    with pytest.raises(ValueError):  # ShapeError is a ValueError
        tl.where(tl.tensor([True, False]), a, a)
    out = tl.zeros((4,), dtype=tl.float64)
    r = tl.where(a > 1, a, -a, out=out)
    assert r is out and out.tolist() == [0.0, -1.0, 2.0, 3.0]
    before = a.tolist()
    with pytest.raises(TypeError):
        tl.where(a > 1, a, a, out=tl.zeros(4, dtype=tl.bool))
    assert a.tolist() == before


# ---- clamp -----------------------------------------------------------------

@pytest.mark.parametrize("dt", [tl.uint8, tl.int8, tl.int32, tl.int64,
                                tl.uint64, tl.float16, tl.bfloat16,
                                tl.float32, tl.float64],
                         ids=tname)
def test_clamp_values(dt):
    rng = rng_for("clamp", dt)
    x = random_values((5, 6), dt, rng, "small" if not is_int(dt) else
                      "normal")
    if is_int(dt):
        info = np.iinfo(NP[dt])
        lo_v, hi_v = int(info.min) // 3 if info.min else 10, \
            int(info.max) // 3
    else:
        lo_v, hi_v = -1.5, 2.0
    cd = compute_dtype(dt)
    for layout in LAYOUTS:
        t = view_as(x, dt, layout)
        xc = as_dtype(x, dt).astype(cd)
        check(tl.clamp(t, lo_v, hi_v),
              finish(np.minimum(np.maximum(xc, cd(lo_v)), cd(hi_v)), dt),
              dt, what=f"clamp {layout}")
        check(t.clamp(min=lo_v), finish(np.maximum(xc, cd(lo_v)), dt), dt)
        check(t.clip(max=hi_v), finish(np.minimum(xc, cd(hi_v)), dt), dt)
    # Tensor bounds, broadcast: per-column minimum, per-row maximum.
    lo = random_values((6,), dt, rng, "small")
    hi = random_values((5, 1), dt, rng, "small")
    got = tl.clamp(view_as(x, dt, "transposed"), from_np(lo, dt),
                   view_as(hi, dt, "flipped"))
    with np.errstate(all="ignore"):
        want = np.minimum(np.maximum(as_dtype(x, dt).astype(cd),
                                     as_dtype(lo, dt).astype(cd)),
                          as_dtype(hi, dt).astype(cd))
    check(got, finish(want, dt), dt, what="tensor bounds")
    # In place on a strided view.
    base = from_np(x, dt)
    view = base.T[::2]
    v0 = base._version
    assert view.clamp_(lo_v, hi_v) is view
    assert base._version > v0
    xs = as_dtype(x, dt).astype(cd).T[::2]
    check(view, finish(np.minimum(np.maximum(xs, cd(lo_v)), cd(hi_v)), dt),
          dt)


def test_clamp_nan_and_inverted_bounds():
    nan = float("nan")
    t = tl.tensor([nan, -3.0, 0.5, 7.0])
    assert np.isnan(tl.clamp(t, -1.0, 1.0).tolist()[0])
    assert tl.clamp(t, -1.0, 1.0).tolist()[1:] == [-1.0, 0.5, 1.0]
    # NaN bounds give NaN (PyTorch; ops.h).
    got = tl.clamp(t, tl.tensor(nan), 1.0).tolist()
    assert all(np.isnan(got))
    got = tl.clamp(t, min=tl.tensor([0.0, nan, 0.0, 0.0])).tolist()
    assert np.isnan(got[0]) and np.isnan(got[1]) and got[2:] == [0.5, 7.0]
    # min > max gives max everywhere.
    assert tl.clamp(tl.tensor([-5.0, 0.0, 5.0]), 2.0, 1.0).tolist() == \
        [1.0, 1.0, 1.0]
    assert tl.clamp(tl.tensor([-5, 0, 5]), 2, 1).tolist() == [1, 1, 1]


def test_clamp_errors_and_dtypes(torch):
    with pytest.raises(ValueError):
        tl.clamp(tl.ones(3))
    with pytest.raises(TypeError):
        tl.clamp(tl.ones(3, dtype=tl.complex64), 0, 1)
    for dt in TORCH_FULL:
        if is_complex(dt) or dt == tl.bool:
            # (PyTorch has no bool clamp kernel; tensorlib clamps bools as
            # integers 0/1.)
            continue
        for lo, hi in ((0, 1), (0.5, None), (None, 2.5), (True, None)):
            tt = torch.ones(3, dtype=torch_dtype(torch, dt))
            try:
                want = torch.clamp(tt, lo, hi).dtype
            except (RuntimeError, TypeError):
                with pytest.raises((TypeError, ValueError)):
                    tl.clamp(tl.ones(3, dtype=dt), lo, hi)
                continue
            got = tl.clamp(tl.ones(3, dtype=dt), lo, hi).dtype
            assert tname(got) == str(want).split(".")[-1], (dt, lo, hi)
    # An integer tensor clamped in place by a float bound: the float
    # result cannot be cast back (PyTorch refuses too); nothing written.
    t = tl.tensor([1, 5, 9])
    with pytest.raises(TypeError):
        t.clamp_(0.5, 3.5)
    assert t.tolist() == [1, 5, 9]


# ---- copy_ and casts --------------------------------------------------------

def cast_source(d, rng):
    """Values of dtype d that exercise every cast: extremes, fractions,
    negatives, NaN/inf for floats."""
    if d == tl.bool:
        return np.array([True, False, True, True, False, False])
    if is_int(d):
        info = np.iinfo(NP[d])
        v = [info.min, info.max, 0, 1, info.max // 2 + 1, info.min // 3]
        return np.array(v, dtype=NP[d])
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.5, -1.5, 2.5, 1e10,
                -1e10, 300.7, -129.9, 65519.0, 65520.0, 3.0e38, 1e-40,
                70000.0, 255.99, 4294967296.5, 9.3e18, -9.3e18]
    v = np.array(specials, np.float64)
    if is_complex(d):
        v = v + 1j * np.linspace(-2, 2, v.size)
    return as_dtype(v, d)


@pytest.mark.parametrize("src", ALL, ids=tname)
def test_copy_between_every_dtype_pair(src):
    """dst.copy_(src) for every destination dtype: a flipped source into a
    transposed destination view; the values are the documented casts."""
    rng = rng_for("copy", src)
    x = cast_source(src, rng)
    x2 = np.stack([x, x[::-1]])  # (2, n)
    for dst in ALL:
        want = as_dtype(x2, dst)
        storage = tl.zeros((x2.shape[1], 2), dtype=dst)
        dview = storage.T  # transposed destination
        v0 = storage._version
        r = dview.copy_(view_as(x2, src, "flipped"))
        assert r is dview
        assert storage._version > v0
        check(dview, want, dst, what=f"copy_ {src}->{dst}")
        # to(): a new tensor with the same values.
        check(view_as(x2, src, "neg_stepped").to(dst), want, dst,
              what=f"to {src}->{dst}")


@pytest.mark.parametrize("src", ALL, ids=tname)
def test_casts_match_torch_where_defined(torch, src):
    """Where PyTorch's casts are defined (finite, in range), tensorlib's
    equal them; out of range / NaN float -> int saturate / give 0 by
    design (PyTorch's are undefined behaviour there)."""
    if src not in TORCH_FULL:
        pytest.skip("PyTorch lacks casts for this dtype")
    x = cast_source(src, None)
    if is_float(src) or is_complex(src):
        x = x[np.isfinite(x) & (np.abs(x) < 100)]
    t = from_np(x, src)
    tt = torch.from_numpy(np.array(as_dtype(x, src)))
    if src == tl.bfloat16:
        tt = tt.to(torch.bfloat16)
    for dst in TORCH_FULL:
        if (is_float(src) or is_complex(src)) and is_int(dst) and \
                dst in (tl.uint8,):
            # Negative floats to uint8: undefined in C++ (PyTorch wraps
            # on x86); tensorlib saturates at 0.
            continue
        got = t.to(dst)
        want = tt.to(torch_dtype(torch, dst))
        if want.dtype == torch.bfloat16:
            want = want.float()
        if dst == tl.bfloat16:
            got = got.float()
        np.testing.assert_array_equal(to_np(got), want.numpy(),
                                      err_msg=f"{src}->{dst}")


def test_float_to_int_saturates_and_nan_is_zero():
    x = tl.tensor([np.nan, np.inf, -np.inf, 1e30, -1e30, 2.9, -2.9, -0.5])
    assert x.to(tl.int8).tolist() == [0, 127, -128, 127, -128, 2, -2, 0]
    assert x.to(tl.uint8).tolist() == [0, 255, 0, 255, 0, 2, 0, 0]
    assert x.to(tl.int64).tolist() == [0, 2 ** 63 - 1, -2 ** 63,
                                       2 ** 63 - 1, -2 ** 63, 2, -2, 0]
    assert x.to(tl.uint64).tolist() == [0, 2 ** 64 - 1, 0, 2 ** 64 - 1, 0,
                                        2, 0, 0]
    assert x.to(tl.bool).tolist() == [True] * 7 + [True]


def test_float16_bfloat16_round_once_from_float64():
    # 1 + 2**-11 + 2**-40: just above the float16 halfway point; through
    # float32 it would round to the halfway point and then to even (1.0).
    x = 1 + 2.0 ** -11 + 2.0 ** -40
    t = tl.tensor([x], dtype=tl.float64)
    assert t.to(tl.float16).item() == 1 + 2.0 ** -10
    x = 1 + 2.0 ** -8 + 2.0 ** -40
    assert tl.tensor([x], dtype=tl.float64).to(tl.bfloat16).item() == \
        1 + 2.0 ** -7
    # Ties go to even.
    assert tl.tensor([1 + 2.0 ** -11]).double().half().item() == 1.0
    assert tl.tensor([1 + 3 * 2.0 ** -11]).double().half().item() == \
        1 + 2 * 2.0 ** -10


def test_copy_broadcast_overlap_and_errors():
    t = tl.zeros((3, 4))
    t.copy_(tl.tensor([1.0, 2.0, 3.0, 4.0]))
    assert t.tolist() == [[1.0, 2.0, 3.0, 4.0]] * 3
    t.copy_(5)  # a Python scalar source
    assert t.tolist() == [[5.0] * 4] * 3
    t.copy_([[1, 2, 3, 4]])  # data
    assert t.tolist()[2] == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError):  # ShapeError
        t.copy_(tl.ones(3))
    with pytest.raises(ValueError):  # self-overlapping destination
        tl.zeros(4).expand(3, 4).copy_(tl.ones(3, 4))
    # Overlap between source and destination: x.copy_(x.flip(0)).
    x = tl.arange(10)
    x.copy_(x.flip(0))
    assert x.tolist() == list(range(9, -1, -1))
    x = tl.arange(10)
    x[1:].copy_(x[:-1])
    assert x.tolist() == [0] + list(range(9))
    ro = tl.from_numpy(np.zeros(3))
    arr = np.zeros(3)
    arr.flags.writeable = False
    ro = tl.from_numpy(arr)
    with pytest.raises(ValueError):
        ro.copy_(tl.ones(3))
    assert arr.tolist() == [0.0, 0.0, 0.0]


def test_to_keeps_layout_and_identity(torch):
    base = tl.arange(24, dtype=tl.float32).reshape(2, 3, 4)
    p = base.permute(2, 0, 1)
    r = p.to(tl.float64)
    tp = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4).permute(
        2, 0, 1)
    assert tuple(r.stride()) == tuple(tp.to(torch.float64).stride())
    assert p.to(tl.float32) is p
    c = p.to(tl.float32, copy=True)
    assert c is not p and c.data_ptr() != p.data_ptr()
    assert tuple(c.stride()) == tuple(p.stride())
    s = base[:, ::2, 1:]  # not dense: infer_dense_strides of its order
    ts = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)[:, ::2, 1:]
    assert tuple(s.to(tl.int32).stride()) == tuple(
        ts.to(torch.int32).stride())
    cl = base.reshape(1, 2, 3, 4).to(memory_format=tl.channels_last)
    assert cl.is_contiguous(memory_format=tl.channels_last)
    for name in ("float", "double", "half", "bfloat16", "int", "long",
                 "short", "byte", "char", "bool", "cfloat", "cdouble"):
        got = getattr(p, name)()
        want = getattr(tp, name)()
        assert tname(got.dtype) == str(want.dtype).split(".")[-1], name


# ---- fill_ and zero_ --------------------------------------------------------

@pytest.mark.parametrize("dt", ALL, ids=tname)
def test_fill_and_zero_on_views(dt):
    base = tl.ones((4, 6), dtype=dt)
    view = base.T[1::2, ::-1]  # stepped, transposed, reversed
    v0 = base._version
    value = {tl.bool: True}.get(dt, 1j if is_complex(dt) else
                                (2.5 if is_float(dt) else 7))
    assert view.fill_(value) is view
    assert base._version > v0
    want = np.ones((4, 6), dtype=np.complex128)
    want.T[1::2, ::-1] = value
    check(base, as_dtype(want, dt), dt, what=f"fill_ {dt}")
    v1 = base._version
    assert view.zero_() is view
    assert base._version > v1
    want.T[1::2, ::-1] = 0
    check(base, as_dtype(want, dt), dt, what=f"zero_ {dt}")
    # 0-d tensor value (cast as copy_ does).
    view.fill_(tl.tensor(3))
    want.T[1::2, ::-1] = 3
    check(base, as_dtype(want, dt), dt)
    # An expanded (stride-0) view of one element may be filled.
    one = tl.zeros(1, dtype=dt)
    one.expand(5).fill_(1)
    assert to_np(one).tolist() in ([1], [True], [1.0], [1 + 0j])


@pytest.mark.parametrize("dt,value,exc", [
    (tl.uint8, 256, OverflowError), (tl.uint8, -1, OverflowError),
    (tl.int8, 128, OverflowError), (tl.int64, 2 ** 63, OverflowError),
    (tl.int32, float("nan"), OverflowError),
    (tl.int32, float("inf"), OverflowError),
    (tl.float16, 1e5, OverflowError), (tl.bfloat16, 1e39, OverflowError),
    (tl.float32, 1e39, OverflowError), (tl.float64, 1j, TypeError),
    (tl.int32, 1 + 1j, TypeError), (tl.int8, "x", TypeError)])
def test_fill_errors_leave_tensor_unchanged(dt, value, exc, torch):
    t = tl.ones(3, dtype=dt)
    v0 = t._version
    with pytest.raises(exc):
        t.fill_(value)
    assert t._version == v0
    assert to_np(t).tolist() == [1, 1, 1]
    # (PyTorch accepts -1 for uint8 and wraps it; tensorlib refuses every
    # out-of-range int, as docs/differences.md says for tensor()/full().)
    if dt in TORCH_FULL and not isinstance(value, str) and \
            (dt, value) != (tl.uint8, -1):
        with pytest.raises((RuntimeError, TypeError, OverflowError)):
            torch.ones(3, dtype=torch_dtype(torch, dt)).fill_(value)


def test_fill_special_cases():
    t = tl.zeros(3, dtype=tl.float16)
    t.fill_(float("inf"))
    assert t.tolist() == [float("inf")] * 3
    t.fill_(float("nan"))
    assert all(np.isnan(t.tolist()))
    t = tl.zeros(2, dtype=tl.complex64)
    t.fill_(1 - 2j)
    assert t.tolist() == [1 - 2j] * 2
    t = tl.zeros(2, dtype=tl.float64)
    t.fill_(3 + 0j)  # a complex with no imaginary part is accepted
    assert t.tolist() == [3.0, 3.0]
    with pytest.raises(ValueError):  # ShapeError: not a 0-d value
        t.fill_(tl.ones(2))
    arr = np.zeros(3)
    arr.flags.writeable = False
    with pytest.raises(ValueError):
        tl.from_numpy(arr).fill_(1)
    with pytest.raises(ValueError):
        tl.from_numpy(arr).zero_()
    # fill_ may write an expanded (self-overlapping) tensor, as PyTorch's.
    base = tl.zeros(2)
    base.expand(3, 2).fill_(1)
    assert base.tolist() == [1.0, 1.0]


# ---- contiguous and clone ---------------------------------------------------

def _layouts_both(torch):
    """(name, tensorlib view, torch view) pairs built the same way."""
    a = tl.arange(2 * 3 * 4 * 5, dtype=tl.float32).reshape(2, 3, 4, 5)
    ta = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4,
                                                                  5)
    return [
        ("contiguous", a, ta),
        ("permuted", a.permute(0, 2, 3, 1), ta.permute(0, 2, 3, 1)),
        ("channels_last", a.contiguous(memory_format=tl.channels_last),
         ta.contiguous(memory_format=torch.channels_last)),
        ("transposed_slice", a.transpose(1, 3)[:, 1:4:2],
         ta.transpose(1, 3)[:, 1:4:2]),
        ("stepped", a[:, :, ::2], ta[:, :, ::2]),
        ("expanded", a[:, :1].expand(2, 3, 4, 5),
         ta[:, :1].expand(2, 3, 4, 5)),
        ("empty", a[:, :0], ta[:, :0]),
    ]


def test_clone_and_contiguous_strides_match_torch(torch):
    fmts = [(tl.preserve_format, torch.preserve_format),
            (tl.contiguous_format, torch.contiguous_format),
            (tl.channels_last, torch.channels_last)]
    for name, t, tt in _layouts_both(torch):
        for f, tf in fmts:
            c = t.clone(memory_format=f)
            tc = tt.clone(memory_format=tf)
            assert tuple(c.stride()) == tuple(tc.stride()), (name, f)
            np.testing.assert_array_equal(to_np(c), tt.numpy())
            assert c.data_ptr() != t.data_ptr() or t.numel() == 0
            if f is tl.preserve_format:
                continue
            k = t.contiguous(memory_format=f)
            tk = tt.contiguous(memory_format=tf)
            assert tuple(k.stride()) == tuple(tk.stride()), (name, f)
            np.testing.assert_array_equal(to_np(k), tt.numpy())
            assert (k is t) == (tk is tt) or t.numel() == 0, (name, f)
        assert tuple(tl.clone(t).stride()) == tuple(torch.clone(tt).stride())


def test_clone_negative_strides_and_3d_format():
    x = np.arange(60, dtype=np.int16).reshape(3, 4, 5)
    t = view_as(x, tl.int16, "flipped")
    c = t.clone()
    assert all(s > 0 for s in c.stride())
    np.testing.assert_array_equal(to_np(c), x)
    c[0, 0, 0] = 99
    assert to_np(t)[0, 0, 0] == 0  # its own storage
    k = t.contiguous()
    assert k.is_contiguous()
    np.testing.assert_array_equal(to_np(k), x)
    five = tl.arange(2 * 3 * 2 * 2 * 2).reshape(2, 3, 2, 2, 2)
    c3 = five.contiguous(memory_format=tl.channels_last_3d)
    assert c3.is_contiguous(memory_format=tl.channels_last_3d)
    np.testing.assert_array_equal(to_np(c3), to_np(five))
    # preserve_format: the tensor itself when already contiguous, else
    # refused (it names no layout to make), as PyTorch
    assert five.contiguous(memory_format=tl.preserve_format) is five
    with pytest.raises(ValueError, match="not contiguous"):
        c3.contiguous(memory_format=tl.preserve_format)
    with pytest.raises((ValueError, RuntimeError)):
        x4 = tl.zeros((2, 3))
        x4.contiguous(memory_format=tl.channels_last)


@pytest.mark.parametrize("dt", ALL, ids=tname)
def test_clone_every_dtype_every_layout(dt):
    rng = rng_for("clone", dt)
    x = random_values((3, 4, 2), dt, rng)
    for layout in LAYOUTS:
        t = view_as(x, dt, layout)
        for c in (t.clone(), t.contiguous(), tl.clone(t)):
            check(c, as_dtype(x, dt), dt, what=f"clone {layout}")
        assert t.contiguous().is_contiguous()


def test_copy_big_every_pair_blocked_paths():
    """Every dtype pair above the grain size: transposed, flipped and
    stepped sources into contiguous and transposed destinations (the
    cache-blocked transposed copy and the threaded converting loops)."""
    rng = rng_for("bigcopy")
    for src, dst in itertools.product(ALL, ALL):
        x = random_values((130, 257), src, rng, "normal")
        if is_float(src) or is_complex(src):
            x = as_dtype(x * 1000, src)
        want = as_dtype(x, dst)
        for layout in ("transposed", "flipped", "stepped"):
            t = view_as(x, src, layout)
            for d in (tl.empty((130, 257), dtype=dst),
                      tl.empty((257, 130), dtype=dst).T):
                d.copy_(t)
                check(d, want, dst, what=f"{src}->{dst} {layout}")
