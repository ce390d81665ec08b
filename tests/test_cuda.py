"""The CUDA backend (tensorlib.cuda, csrc/cuda).

Two groups:
- checks that run in every build: a CPU-only build says it was built
  without CUDA and refuses every CUDA tensor with that RuntimeError (without
  allocating anything); a CUDA build without a device says "no CUDA device
  is available"; is_available() never raises;
- GPU tests, skipped unless tensorlib.cuda.is_available(): allocation,
  copies both ways (non-contiguous sources, non_blocking), every elementwise
  op and the reductions compared with the CPU result, streams,
  __cuda_array_interface__ and DLPack.  They also run against the host
  emulation build (TENSORLIB_CUDA=emulate: Note [CUDA host emulation] in
  csrc/cuda/launch.cuh), which is how they run on machines without a GPU.
"""
import gc
import itertools
import os

import numpy as np
import pytest

import tensorlib as tl

cuda = tl.cuda
BUILT = cuda.is_built()
AVAILABLE = cuda.is_available()
needs_gpu = pytest.mark.skipif(not AVAILABLE,
                               reason="no CUDA device (tensorlib.cuda."
                                      "is_available() is False)")

ALL_DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32,
              tl.uint32, tl.int64, tl.uint64, tl.float16, tl.bfloat16,
              tl.float32, tl.float64, tl.complex64, tl.complex128]
INT_DTYPES = [tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32, tl.uint32,
              tl.int64, tl.uint64]


def _expected_error():
    return ("tensorlib was built without CUDA" if not BUILT
            else "no CUDA device is available")


# ---- every build -----------------------------------------------------------


def test_api_exists_and_is_consistent():
    assert isinstance(cuda.is_built(), bool)
    assert isinstance(cuda.is_available(), bool)
    n = cuda.device_count()
    assert isinstance(n, int) and n >= 0
    assert cuda.is_available() == (n > 0)
    if not BUILT:
        assert not cuda.is_available() and n == 0
        assert not cuda.is_emulated()


def test_expected_build():
    # CI says which build it meant to test (.ci/run, phase "cuda").
    want = os.environ.get("TENSORLIB_EXPECT_CUDA")
    if not want:
        pytest.skip("TENSORLIB_EXPECT_CUDA is not set")
    assert cuda.is_built(), tl.__file__
    if want == "emulate":
        assert cuda.is_emulated() and cuda.is_available(), tl.__file__
    else:
        assert not cuda.is_emulated(), tl.__file__


def test_is_available_never_raises(monkeypatch):
    # Even when the bindings fail, is_available() answers False.
    def boom():
        raise RuntimeError("driver exploded")

    monkeypatch.setattr(tl._C, "_cuda_is_available", boom)
    assert cuda.is_available() is False


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is available")
@pytest.mark.parametrize("make", [
    lambda: tl.empty(2, device="cuda"),
    lambda: tl.zeros(2, 3, device="cuda:0"),
    lambda: tl.ones(2, device=tl.device("cuda", 1)),
    lambda: tl.full((2,), 3.0, device="cuda"),
    lambda: tl.arange(4, device="cuda"),
    lambda: tl.tensor([1, 2], device="cuda"),
    lambda: tl.tensor(np.ones(3), device="cuda"),
    lambda: tl.empty_like(tl.ones(2), device="cuda"),
    lambda: tl.zeros_like(tl.ones(2), device="cuda"),
    lambda: tl.full_like(tl.ones(2), 7, device="cuda"),
    lambda: tl.ones(3).to("cuda"),
    lambda: tl.ones(3).to(device="cuda", dtype=tl.float64),
    lambda: tl.ones(3).to(tl.device("cuda")),
    lambda: tl.ones(3).cuda(),
    lambda: tl.ones(3).cuda(non_blocking=True),
    lambda: tl.ones(3, 4).t().to("cuda", memory_format=tl.contiguous_format),
], ids=lambda f: "")
def test_cuda_tensor_refused_without_device(make):
    # A cyclic collection inside the window would free earlier tests'
    # tensors and move the count (seen in full runs: 1311 -> 255 bytes).
    gc.collect()
    gc.disable()
    try:
        before = tl.memory_stats()
        with pytest.raises(RuntimeError, match=_expected_error()):
            make()
        after = tl.memory_stats()
    finally:
        gc.enable()
    # Refused before anything was allocated.
    assert after["active_bytes"] == before["active_bytes"]


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is available")
def test_device_functions_refused_without_device():
    if not BUILT:
        for f in (cuda.synchronize, cuda.Stream, cuda.current_stream):
            with pytest.raises(RuntimeError,
                               match="tensorlib was built without CUDA"):
                f()
    else:
        with pytest.raises(RuntimeError, match="no CUDA device"):
            cuda.synchronize()
        with pytest.raises(RuntimeError, match="no CUDA device"):
            cuda.Stream()


def test_cpu_tensors_have_no_cuda_interface():
    t = tl.ones(3)
    assert not hasattr(t, "__cuda_array_interface__")
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(ValueError, match="record_stream"):
        t.record_stream(0)
    # .cpu() of a CPU tensor is the tensor itself.
    assert t.cpu() is t
    assert t.to("cpu") is t


def test_cpu_build_messages_name_the_device():
    if BUILT:
        pytest.skip("a CUDA build")
    with pytest.raises(RuntimeError) as e:
        tl.zeros(2, device="cuda:3")
    assert "tensorlib was built without CUDA" in str(e.value)
    assert "cuda:3" in str(e.value)


# ---- GPU tests --------------------------------------------------------------


def rand(shape, dtype, seed=0, lo=None, hi=None):
    """A CPU tensor of random values suitable for dtype."""
    rng = np.random.default_rng(seed)
    if dtype == tl.bool:
        return tl.tensor(rng.integers(0, 2, shape).astype(bool))
    if dtype in INT_DTYPES:
        info = np.iinfo(tl.empty(0, dtype=dtype).numpy().dtype)
        lo = max(info.min, -100) if lo is None else lo
        hi = min(info.max, 100) if hi is None else hi
        a = rng.integers(lo, hi, shape, endpoint=True)
        return tl.tensor(a).to(dtype)
    lo = -4.0 if lo is None else lo
    hi = 4.0 if hi is None else hi
    a = rng.uniform(lo, hi, shape)
    if dtype.is_complex:
        a = a + 1j * rng.uniform(lo, hi, shape)
    return tl.tensor(a).to(dtype)


def host(t):
    """A NumPy array of t's values (bfloat16 and float16 as float32)."""
    t = t.cpu()
    if t.dtype in (tl.bfloat16, tl.float16):
        t = t.float()
    return t.numpy().copy()


def assert_same(got, want, exact=True, rtol=None):
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    g, w = host(got), host(want)
    if exact:
        np.testing.assert_array_equal(g, w)
        return
    if rtol is None:
        rtol = 1e-12 if want.dtype in (tl.float64, tl.complex128) else 2e-6
        if want.dtype in (tl.float16, tl.bfloat16):
            rtol = 1e-2
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_allocation_and_round_trip(dtype):
    a = rand((3, 5), dtype, seed=1)
    c = a.to("cuda")
    assert c.is_cuda and not c.is_cpu and c.device == tl.device("cuda:0")
    assert c.dtype == dtype and tuple(c.shape) == (3, 5)
    back = c.cpu()
    assert back.device.type == "cpu"
    np.testing.assert_array_equal(host(back), host(a))
    assert c.cuda() is c
    assert c.to("cuda:0") is c
    e = tl.empty(4, 0, device="cuda", dtype=dtype)
    assert e.numel() == 0 and e.cpu().numel() == 0


@needs_gpu
def test_creation_on_device():
    assert_same(tl.zeros(2, 3, device="cuda"), tl.zeros(2, 3))
    assert_same(tl.ones(4, device="cuda", dtype=tl.int16),
                tl.ones(4, dtype=tl.int16))
    assert_same(tl.full((3,), 2.5, device="cuda"), tl.full((3,), 2.5))
    assert_same(tl.full((2, 2), 1 + 2j, device="cuda"),
                tl.full((2, 2), 1 + 2j))
    assert_same(tl.arange(7, device="cuda"), tl.arange(7))
    assert_same(tl.arange(0, 1, 0.25, device="cuda"), tl.arange(0, 1, 0.25))
    assert_same(tl.tensor([[1, 2], [3, 4]], device="cuda"),
                tl.tensor([[1, 2], [3, 4]]))
    assert_same(tl.tensor(np.arange(6.0).reshape(2, 3), device="cuda"),
                tl.tensor(np.arange(6.0).reshape(2, 3)))
    src = tl.ones(2, 3).cuda()
    assert_same(tl.zeros_like(src), tl.zeros(2, 3))
    assert_same(tl.full_like(src, 3), tl.full((2, 3), 3.0))
    assert tl.empty_like(src).is_cuda
    assert tl.ones_like(src, device="cpu").device.type == "cpu"


@needs_gpu
def test_memory_stats_and_empty_cache():
    cuda.synchronize()
    base = cuda.memory_stats()
    x = tl.empty(1000, device="cuda")
    s = cuda.memory_stats()
    assert s["active_bytes"] - base["active_bytes"] == 4000
    assert s["reserved_bytes"] >= 2 << 20  # PyTorch's 2 MiB small segment
    assert set(s) == set(tl.memory_stats())  # one schema
    del x
    gc.collect()
    s = cuda.memory_stats()
    assert s["active_bytes"] == base["active_bytes"]
    cuda.empty_cache()
    s = cuda.memory_stats()
    assert s["cached_bytes"] <= s["reserved_bytes"]
    assert tl._C._allocator_name(device="cuda") == "cuda_caching"


LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "stepped": lambda t: t[::2, 1::3],
    "flipped": lambda t: t.flip(0),
    "expanded": lambda t: t[:1].expand(4, t.shape[1]),
}


@needs_gpu
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", [tl.float32, tl.int64, tl.bfloat16,
                                   tl.complex128, tl.bool], ids=str)
def test_copies_of_non_contiguous_sources(layout, dtype):
    a = LAYOUTS[layout](rand((6, 7), dtype, seed=3))
    # host -> device
    c = a.to("cuda")
    assert_same(c, a.contiguous())
    # device -> host, from a non-contiguous device view
    d = LAYOUTS[layout](rand((6, 7), dtype, seed=4).cuda())
    want = LAYOUTS[layout](rand((6, 7), dtype, seed=4))
    np.testing.assert_array_equal(host(d.cpu()), host(want))
    # contiguous() and clone() on the device
    assert_same(d.contiguous(), want.contiguous())
    assert_same(d.clone(), want.clone())


@needs_gpu
def test_copy_across_devices_broadcast_and_cast():
    dst = tl.zeros(4, 3, device="cuda", dtype=tl.float64)
    src = tl.tensor([1, 2, 3], dtype=tl.int32)
    dst.copy_(src)
    assert_same(dst, tl.tensor([[1.0, 2, 3]] * 4, dtype=tl.float64))
    v0 = dst._version
    dst.t().copy_(tl.tensor([7, 8, 9], dtype=tl.int8)[:, None])
    assert dst._version > v0
    want = tl.zeros(4, 3, dtype=tl.float64)
    want.t().copy_(tl.tensor([7, 8, 9], dtype=tl.int8)[:, None])
    assert_same(dst, want)
    # device -> host into a strided destination, converting
    h = tl.zeros(3, 4, dtype=tl.float32)
    h.t().copy_(dst)
    np.testing.assert_array_equal(h.t().numpy(), host(dst).astype("f4"))
    # a Python scalar and a 0-dim CPU tensor fill a device tensor
    dst.copy_(tl.tensor(5.0))
    assert_same(dst, tl.full((4, 3), 5.0, dtype=tl.float64))
    # shape errors are reported before anything moves
    with pytest.raises(tl.ShapeError):
        dst.copy_(tl.ones(5))
    # a read-only destination is refused
    ro = tl.frombuffer(bytes(16), dtype=tl.float32)
    with pytest.raises(ValueError):
        ro.copy_(tl.ones(4, device="cuda"))


@needs_gpu
def test_to_with_dtype_and_memory_format():
    a = rand((2, 3, 4, 5), tl.float32, seed=5)
    c = a.to("cuda", tl.float64)
    assert c.dtype == tl.float64 and c.is_cuda
    assert_same(c, a.double())
    cl = a.to("cuda", memory_format=tl.channels_last)
    assert cl.is_contiguous(memory_format=tl.channels_last)
    np.testing.assert_array_equal(host(cl), a.numpy())
    assert c.to(tl.float64) is c
    assert c.to(tl.float64, copy=True) is not c


@needs_gpu
def test_non_blocking_copies():
    a = rand((64, 33), tl.float32, seed=6)
    # host -> device: the source may go at once, it is kept alive.
    src = a.clone()
    c = src.to("cuda", non_blocking=True)
    del src
    gc.collect()
    assert_same(c, a)
    # device -> host: reading the result before synchronising is safe.
    for _ in range(3):
        h = (c * 2).to("cpu", non_blocking=True)
        np.testing.assert_array_equal(h.numpy(), a.numpy() * 2)
    h = c.cpu()
    np.testing.assert_array_equal(h.numpy(), a.numpy())
    # copy_ with non_blocking, both ways
    d = tl.empty(64, 33, device="cuda")
    d.copy_(a, non_blocking=True)
    out = tl.empty(64, 33)
    out.copy_(d, non_blocking=True)
    assert out.tolist() == a.tolist()  # the first read waits
    # a pending destination can simply be dropped
    x = c.to("cpu", non_blocking=True)
    del x
    gc.collect()
    cuda.synchronize()


@needs_gpu
def test_non_blocking_to_host_is_page_locked_when_possible():
    c = tl.ones(1000, device="cuda")
    h = c.to("cpu", non_blocking=True)
    assert h.device.type == "cpu"
    assert h.sum().item() == 1000.0
    # With a device, (cpu, HostPinned) is CUDA's page-locked pool.
    name = tl._C._allocator_name(device="cpu", kind="HostPinned")
    assert name == "cuda_pinned"
    p = tl.empty(100, memory_kind=tl.MemoryKind.HostPinned)
    p.fill_(2)
    c2 = p.to("cuda", non_blocking=True)
    del p
    gc.collect()
    assert c2.sum().cpu().item() == 200.0


# ---- elementwise ops against the CPU ----------------------------------------

BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow",
          "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
          "logical_and", "logical_or", "logical_xor", "bitwise_and",
          "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "bitwise_right_shift"]
# Results that IEEE arithmetic fixes exactly (the kernels are built without
# FMA contraction); the rest (pow, and complex division) within rounding.
INEXACT_BINARY = {"pow"}


def binary_inputs(name, dtype, shape=(5, 8)):
    if name in ("floor_divide", "remainder") and dtype in INT_DTYPES:
        a = rand(shape, dtype, seed=11)
        b = rand(shape, dtype, seed=12, lo=1, hi=9)
        return a, b
    if name == "pow":
        if dtype in INT_DTYPES:
            return (rand(shape, dtype, seed=13, lo=0, hi=5),
                    rand(shape, dtype, seed=14, lo=0, hi=3))
        return (rand(shape, dtype, seed=13, lo=0.1, hi=3),
                rand(shape, dtype, seed=14, lo=-2, hi=2))
    if name.startswith("bitwise_") and name.endswith("shift"):
        bits = tl.empty(0, dtype=dtype).element_size() * 8
        return (rand(shape, dtype, seed=15),
                rand(shape, dtype, seed=16, lo=0, hi=bits - 1))
    return rand(shape, dtype, seed=17), rand(shape, dtype, seed=18)


def run_both(fn, *args, **kw):
    """fn on the CPU and on CUDA copies of the tensor args: (cpu, cuda), or
    the exception type when the CPU refuses (CUDA must refuse alike)."""
    try:
        want = fn(*args, **kw)
    except Exception as e:  # noqa: BLE001
        dargs = [a.cuda() if isinstance(a, tl.Tensor) else a for a in args]
        with pytest.raises(type(e)):
            fn(*dargs, **kw)
        return None, None
    dargs = [a.cuda() if isinstance(a, tl.Tensor) else a for a in args]
    return want, fn(*dargs, **kw)


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_match_cpu(name, dtype):
    fn = getattr(tl, name)
    a, b = binary_inputs(name, dtype)
    exact = name not in INEXACT_BINARY and not (
        dtype.is_complex and name == "div")
    want, got = run_both(fn, a, b)
    if want is None:
        return
    assert_same(got, want, exact=exact)
    # strided operands (the offset calculator) and broadcasting
    want, got = run_both(fn, a.t(), b.t())
    assert_same(got, want, exact=exact)
    want, got = run_both(fn, a, b[:1])
    assert_same(got, want, exact=exact)
    # a one-element device tensor and a Python number
    want, got = run_both(fn, a, b[1:2, 2:3])
    assert_same(got, want, exact=exact)


@needs_gpu
@pytest.mark.parametrize("name", ["add", "mul", "sub", "div", "maximum",
                                  "pow", "eq", "lt"])
def test_binary_with_scalars_mixed_dtypes_out_and_inplace(name):
    fn = getattr(tl, name)
    a = rand((4, 6), tl.float32, seed=21, lo=0.5, hi=2)
    i = rand((4, 6), tl.int32, seed=22, lo=1, hi=3)
    h = rand((4, 6), tl.float16, seed=23, lo=0.5, hi=2)
    exact = name != "pow"
    for x, y in [(a, 2), (a, 2.5), (3, a), (a, i), (i, a), (h, a), (h, 3),
                 (h, h), (i, 2), (i, True)]:
        want, got = run_both(fn, x, y)
        if want is not None:
            assert_same(got, want, exact=exact)
    # out= with another dtype, and in place
    if name in ("eq", "lt"):
        out_c, out_d = tl.empty(4, 6, dtype=tl.bool), \
            tl.empty(4, 6, dtype=tl.bool, device="cuda")
    else:
        out_c, out_d = tl.empty(4, 6, dtype=tl.float64), \
            tl.empty(4, 6, dtype=tl.float64, device="cuda")
    fn(a, i, out=out_c)
    r = fn(a.cuda(), i.cuda(), out=out_d)
    assert r is out_d
    assert_same(out_d, out_c, exact=exact)
    if name not in ("eq", "lt"):
        x, xd = a.clone(), a.cuda()
        getattr(x, name + "_")(i)
        getattr(xd, name + "_")(i.cuda())
        assert_same(xd, x, exact=exact)


@needs_gpu
def test_add_sub_alpha():
    a, b = rand((3, 4), tl.float64, seed=1), rand((3, 4), tl.float64, seed=2)
    for x, y, al in [(a, b, 2.5), (a.long(), b.long(), 3),
                     (a.cfloat(), b.cfloat(), 1 - 2j)]:
        for fn in (tl.add, tl.sub):
            want, got = run_both(fn, x, y, alpha=al)
            assert_same(got, want, exact=not x.dtype.is_complex)


@needs_gpu
def test_integer_division_by_zero_and_negative_powers_are_refused():
    a = tl.tensor([1, 2, 3], device="cuda")
    b = tl.tensor([1, 0, 1], device="cuda")
    before = a.cpu().tolist()
    with pytest.raises(ZeroDivisionError):
        tl.floor_divide(a, b)
    with pytest.raises(ZeroDivisionError):
        a.remainder_(b)
    assert a.cpu().tolist() == before
    with pytest.raises(ValueError, match="negative power -1"):
        a ** -1
    # tensor exponents below 0 take PyTorch's integer powi
    r = tl.pow(tl.tensor([1, -1, 2], device="cuda"),
               tl.tensor([-1, -3, -1], device="cuda"))
    assert r.cpu().tolist() == [1, -1, 0]
    # floats divide by zero as IEEE does
    z = tl.tensor([1.0, -1.0, 0.0], device="cuda") / 0
    assert z.cpu().tolist()[:2] == [float("inf"), float("-inf")]


UNARY = ["neg", "abs", "sign", "sgn", "sqrt", "rsqrt", "exp", "expm1",
         "log", "log1p", "log2", "log10", "sin", "cos", "tan", "tanh",
         "sigmoid", "relu", "floor", "ceil", "round", "trunc", "reciprocal",
         "square", "logical_not", "bitwise_not", "isnan", "isinf",
         "isfinite"]
EXACT_UNARY = {"neg", "abs", "sign", "relu", "floor", "ceil", "round",
               "trunc", "square", "logical_not", "bitwise_not", "isnan",
               "isinf", "isfinite", "sqrt", "reciprocal"}


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_match_cpu(name, dtype):
    fn = getattr(tl, name)
    lo, hi = (0.1, 3.0) if name in ("sqrt", "rsqrt", "log", "log2",
                                    "log10") else (None, None)
    if name == "log1p":
        lo, hi = -0.5, 3.0
    a = rand((6, 7), dtype, seed=31, lo=lo, hi=hi) if lo is not None and \
        dtype not in INT_DTYPES else rand((6, 7), dtype, seed=31)
    exact = name in EXACT_UNARY and not dtype.is_complex
    if name == "abs" and dtype.is_complex:
        exact = False
    want, got = run_both(fn, a)
    if want is None:
        return
    assert_same(got, want, exact=exact)
    want, got = run_both(fn, a.t())
    assert_same(got, want, exact=exact)


@needs_gpu
def test_special_float_values():
    v = tl.tensor([float("nan"), float("inf"), float("-inf"), -0.0, 0.0,
                   1.5, -2.5, 0.5, 2.5, 1e30])
    for name in ["isnan", "isinf", "isfinite", "sign", "round", "floor",
                 "abs", "neg", "relu"]:
        want, got = run_both(getattr(tl, name), v)
        assert_same(got, want)
    for name in ["maximum", "minimum"]:
        want, got = run_both(getattr(tl, name), v, v.flip(0))
        assert_same(got, want)
    # float -> integer casts saturate, NaN gives 0 (DESIGN.md)
    for dt in INT_DTYPES + [tl.bool, tl.float16, tl.bfloat16]:
        assert_same(v.cuda().to(dt), v.to(dt))


@needs_gpu
@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_casts_between_every_dtype_pair(src):
    a = rand((3, 9), src, seed=41)
    if src in INT_DTYPES:
        a = rand((3, 9), src, seed=41, lo=0, hi=250) if src in (
            tl.uint8, tl.uint16, tl.uint32, tl.uint64) else a
    d = a.cuda()
    for dst in ALL_DTYPES:
        assert_same(d.to(dst), a.to(dst))
        assert_same(d.t().to(dst), a.t().to(dst))


@needs_gpu
def test_large_integer_to_half_rounds_once():
    big = tl.tensor([2**53 + 1, 2**60 + 2**36 + 1, -(2**62) - 1],
                    dtype=tl.int64)
    for dt in (tl.float16, tl.bfloat16, tl.float32):
        assert_same(big.cuda().to(dt), big.to(dt))


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_where_and_clamp(dtype):
    a, b = rand((5, 6), dtype, seed=51), rand((5, 6), dtype, seed=52)
    cond = rand((5, 6), tl.bool, seed=53)
    want, got = run_both(tl.where, cond, a, b)
    assert_same(got, want)
    want, got = run_both(tl.where, cond[:1], a.t().t(), b[:, :1])
    assert_same(got, want)
    lo, hi = rand((5, 6), dtype, seed=54), rand((1, 6), dtype, seed=55)
    for args in [(a, lo, hi), (a, lo, None), (a, None, hi)]:
        want, got = run_both(tl.clamp, *args)
        if want is not None:
            assert_same(got, want)


@needs_gpu
def test_fill_and_zero():
    for dt in ALL_DTYPES:
        d = tl.empty(3, 4, device="cuda", dtype=dt)
        d.fill_(1)
        assert_same(d, tl.ones(3, 4, dtype=dt))
        d.t().zero_()
        assert_same(d, tl.zeros(3, 4, dtype=dt))
    d = tl.empty(3, device="cuda", dtype=tl.complex128)
    d.fill_(1 - 3j)
    assert d.cpu().tolist() == [1 - 3j] * 3


# ---- reductions -------------------------------------------------------------

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "any", "all"]


@needs_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_match_cpu(name, dtype):
    fn = getattr(tl, name)
    lo, hi = (0.5, 1.5) if name == "prod" else (None, None)
    shape = (7, 20) if name == "prod" else (7, 300)  # no overflow
    a = rand(shape, dtype, seed=61, lo=lo, hi=hi) \
        if dtype not in INT_DTYPES else rand(shape, dtype, seed=61,
                                             lo=0, hi=3)
    exact = dtype not in (tl.float32, tl.float64, tl.complex64,
                          tl.complex128, tl.float16, tl.bfloat16) or \
        name in ("amax", "amin", "any", "all")
    rtol = 1e-5 if not exact else None
    for kw in [{}, {"dim": 0}, {"dim": 1}, {"dim": (0, 1)},
               {"dim": 1, "keepdim": True}, {"dim": -1}]:
        if name in ("amax", "amin") and not kw:
            kw = {"dim": (0, 1)}
        want, got = run_both(fn, a, **kw)
        if want is None:
            continue
        assert_same(got, want, exact=exact, rtol=rtol)
        want, got = run_both(fn, a.t(), **kw)
        assert_same(got, want, exact=exact, rtol=rtol)


@needs_gpu
def test_reduction_nan_empty_dtype_and_out():
    v = tl.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])
    for name in ("amax", "amin", "sum"):
        want, got = run_both(getattr(tl, name), v, dim=1)
        assert_same(got, want)
    e = tl.empty(0, 3)
    assert_same(tl.sum(e.cuda(), dim=0), tl.sum(e, dim=0))
    with pytest.raises(tl.ShapeError):
        tl.amax(e.cuda(), dim=0)
    i = rand((4, 5), tl.int32, seed=3)
    want, got = run_both(tl.sum, i, dim=1, dtype=tl.float64)
    assert_same(got, want)
    out_c, out_d = tl.empty(4, dtype=tl.float64), tl.empty(
        4, dtype=tl.float64, device="cuda")
    tl.sum(i, dim=1, out=out_c)
    tl.sum(i.cuda(), dim=1, out=out_d)
    assert_same(out_d, out_c)
    # the gaps: refused cleanly, never run on host memory
    for f in (lambda x: tl.argmax(x), lambda x: tl.var(x.float()),
              lambda x: x.float().std()):
        with pytest.raises(NotImplementedError):
            f(i.cuda())


@needs_gpu
def test_large_reduction_paths():
    a = rand((3, 100000), tl.float32, seed=7)
    for kw in [{}, {"dim": 1}, {"dim": 0}]:
        want, got = run_both(tl.sum, a, **kw)
        assert_same(got, want, exact=False, rtol=1e-4)
        want, got = run_both(tl.amax, a, **({"dim": (0, 1)} if not kw
                                             else kw))
        assert_same(got, want)


# Few outputs over many reduced elements: each output's range is cut into
# chunks whose partials a second kernel folds (Note [Reduction schedules]
# in csrc/cuda/reduce.cu).  (shape, reduce kwargs): inner splits (the
# reduced elements move fastest; the last with two reduced dims that do
# not coalesce), then outer splits (a thread per output and chunk; the
# partials of fewer than 1024 outputs folded by a block each, of more by
# a thread each).
SPLIT_CASES = [((3, 20000), {"dim": 1}), ((40000,), {}),
               ((50, 4, 400), {"dim": (0, 2)}),
               ((20000, 3), {"dim": 0}), ((4096, 64), {"dim": 0}),
               ((300, 5, 40), {"dim": (0, 2), "keepdim": True}),
               ((64, 2048), {"dim": 0})]


def _split_input(name, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if name in ("any", "all"):
        # one odd element late in the range, so that only a late chunk
        # holds it
        a = np.full(n, name == "all")
        a[n - 7] = name != "all"
        return tl.tensor(a.reshape(shape)).to(dtype)
    if dtype in (tl.int64, tl.uint64):
        # sums wrap in 64 bits (as on the CPU), across chunk partials too
        a = rng.integers(0, 1 << 62, n, dtype=np.int64)
        return tl.tensor(a.reshape(shape)).to(dtype)
    if name == "prod":
        a = rng.uniform(0.999, 1.001, n)
    else:
        a = rng.uniform(-4, 4, n)
    if name in ("amax", "amin") and dtype.is_floating_point:
        a[n // 2 + 3] = np.nan  # NaN propagates through the fold
    t = tl.tensor(a.reshape(shape))
    if dtype.is_complex:
        t = tl.complex(t, t * 0.5)
    return t.to(dtype)


@needs_gpu
@pytest.mark.parametrize("shape,kw", SPLIT_CASES, ids=str)
@pytest.mark.parametrize("name,dtype", [
    ("sum", tl.float32), ("sum", tl.float64), ("sum", tl.int64),
    ("sum", tl.complex64), ("mean", tl.float16), ("prod", tl.float64),
    ("amax", tl.float32), ("amin", tl.float64), ("amax", tl.uint64),
    ("amin", tl.int64), ("any", tl.bool), ("all", tl.bool)], ids=str)
def test_split_reduction_schedules(shape, kw, name, dtype):
    a = _split_input(name, dtype, shape, seed=len(shape) + len(kw))
    if name in ("amax", "amin") and not kw:
        kw = {"dim": 0}
    want, got = run_both(getattr(tl, name), a, **kw)
    exact = name in ("amax", "amin", "any", "all") or not (
        dtype.is_floating_point or dtype.is_complex)
    rtol = 1e-2 if dtype == tl.float16 else 1e-5
    assert_same(got, want, exact=exact, rtol=None if exact else rtol)
    # the same values twice: the schedules are deterministic
    again = getattr(tl, name)(a.cuda(), **kw)
    np.testing.assert_array_equal(host(again), host(got))


# ---- streams ----------------------------------------------------------------


@needs_gpu
def test_streams():
    s = cuda.Stream()
    assert s.cuda_stream != 0
    assert cuda.current_stream() == cuda.default_stream()
    with cuda.stream(s):
        assert cuda.current_stream() == s
        x = tl.ones(1000, device="cuda") * 3
    assert cuda.current_stream() == cuda.default_stream()
    s.synchronize()
    assert s.query()
    assert x.sum().item() == 3000.0
    # the tensor was made on s and is used on the default stream now
    x.record_stream(cuda.current_stream())
    x.record_stream(s)
    with s:
        assert cuda.current_stream() == s
    del x
    gc.collect()
    cuda.synchronize()
    with pytest.raises(TypeError):
        tl.ones(2, device="cuda").record_stream("stream")
    assert "Stream" in repr(s)


@needs_gpu
def test_record_stream_defers_reuse_across_streams():
    s = cuda.Stream()
    cuda.synchronize()
    x = tl.empty(256, device="cuda")
    ptr = x.data_ptr()
    # work queued on s, so that the event recorded at free time is pending
    # (on an idle stream it completes at once, and reuse is then allowed)
    with cuda.stream(s):
        big = tl.ones(1 << 24, device="cuda")
        for _ in range(20):
            big.mul_(1.0001)
    x.record_stream(s)
    del x
    gc.collect()
    # A new block of the same size on the default stream: the freed one is
    # not handed out before s's work done at free time completes.
    y = tl.empty(256, device="cuda")
    busy = not s.query()  # still busy now, so busy when y was allocated
    if busy:
        assert y.data_ptr() != ptr
    cuda.synchronize()
    del y, big
    # On another stream, a freed block of the default stream is never
    # reused.
    with cuda.stream(s):
        z = tl.empty(256, device="cuda")
        assert z.data_ptr() != ptr or cuda.is_emulated()


# ---- interop ----------------------------------------------------------------


@needs_gpu
def test_cuda_array_interface():
    x = tl.arange(12, dtype=tl.float32, device="cuda").reshape(3, 4)
    ai = x.__cuda_array_interface__
    assert ai["version"] == 3
    assert ai["shape"] == (3, 4)
    assert ai["typestr"] == "<f4"
    assert ai["strides"] is None
    assert ai["data"] == (x.data_ptr(), False)
    assert ai["stream"] == 1  # the legacy default stream
    t = x.t().__cuda_array_interface__
    assert t["strides"] == (4, 16)
    assert tl.ones(2, dtype=tl.bool, device="cuda") \
        .__cuda_array_interface__["typestr"] == "|b1"
    with pytest.raises(TypeError):
        tl.ones(2, dtype=tl.bfloat16, device="cuda").__cuda_array_interface__
    s = cuda.Stream()
    with cuda.stream(s):
        assert x.__cuda_array_interface__["stream"] == s.cuda_stream


@needs_gpu
def test_dlpack_cuda():
    x = tl.arange(6, dtype=tl.float64, device="cuda").reshape(2, 3)
    assert x.__dlpack_device__() == (2, 0)
    y = tl.from_dlpack(x)
    assert y.is_cuda and y.device == x.device
    assert y.data_ptr() == x.data_ptr()
    y.add_(1)
    np.testing.assert_array_equal(host(x), np.arange(1, 7.0).reshape(2, 3))
    cap = x.__dlpack__(stream=None)
    z = tl.from_dlpack(cap)
    assert z.is_cuda
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0))
    assert x.t().__dlpack__(stream=-1) is not None
    # tobytes copies to the host in C order
    assert x.t().tobytes() == x.t().cpu().contiguous().numpy().tobytes()


@needs_gpu
def test_torch_cuda_interop():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or cuda.is_emulated():
        pytest.skip("torch without CUDA")
    x = tl.arange(5.0, device="cuda")
    t = torch.from_dlpack(x)
    assert t.is_cuda and t.tolist() == [0, 1, 2, 3, 4]
    back = tl.from_dlpack(torch.arange(3.0, device="cuda"))
    assert back.cpu().tolist() == [0, 1, 2]
    assert back.device == tl.device("cuda", 0)
    # work still queued on torch's stream is ordered before ours (the
    # stream argument of __dlpack__), and the memory is shared, not copied
    a = torch.arange(1 << 20, device="cuda", dtype=torch.float64) * 2
    b = tl.from_dlpack(a)
    assert b.sum().item() == float(a.sum().item())
    b.fill_(1.0)
    torch.cuda.synchronize()
    assert a.sum().item() == float(1 << 20)


@needs_gpu
def test_printing_and_item():
    x = tl.tensor([1.5, 2.5], device="cuda")
    r = repr(x)
    assert "device='cuda:0'" in r and "1.5" in r
    assert x.cpu()[0].item() == 1.5
    assert x.sum().cpu().item() == 4.0
    assert tl.tensor([[2]], device="cuda").cpu().item() == 2


@needs_gpu
def test_device_mismatch_and_unsupported_ops():
    a = tl.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match="different devices"):
        a + tl.ones(3)
    # a 0-dim CPU tensor is a number for any device, as in PyTorch
    assert_same(a + tl.tensor(2.0), tl.full((3,), 3.0))
    with pytest.raises(NotImplementedError):
        a[tl.tensor([0, 1])]
    with pytest.raises(NotImplementedError):
        tl.nonzero(a) if hasattr(tl, "nonzero") else a.nonzero()
    with pytest.raises((TypeError, RuntimeError)):
        a.numpy()
    with pytest.raises((TypeError, BufferError)):
        memoryview(a)
    # item() and tolist() read a host copy, as PyTorch's
    assert a.tolist() == [1.0, 1.0, 1.0]
    assert a[1].item() == 1.0


@needs_gpu
def test_views_and_storage_resize_on_device():
    a = tl.arange(10, dtype=tl.float32, device="cuda")
    v = a[2:8:2]
    assert_same(v, tl.arange(10, dtype=tl.float32)[2:8:2])
    v.mul_(10)
    assert a.cpu().tolist()[2:7] == [20, 3, 40, 5, 60]
    b = tl.arange(4, dtype=tl.int64, device="cuda")
    b.resize_(20)
    assert b.cpu().tolist()[:4] == [0, 1, 2, 3]


@needs_gpu
@pytest.mark.parametrize("n", [1, 3, 4, 5, 1023, 1025, 4099])
def test_vector_path_tails(n):
    # The contiguous path handles 4 elements per step plus a tail.
    for dt in (tl.float32, tl.int8, tl.complex128, tl.bool):
        a, b = rand((n,), dt, seed=n), rand((n,), dt, seed=n + 1)
        for fn in (tl.add, tl.eq, tl.maximum):
            want, got = run_both(fn, a, b)
            if want is not None:
                assert_same(got, want)
        # an offset view breaks the alignment the vector path needs
        if n > 1:
            want, got = run_both(tl.add, a[1:], b[1:])
            if want is not None:
                assert_same(got, want)


@needs_gpu
def test_many_dims_use_the_offset_calculator():
    a = rand((2, 3, 2, 3, 2, 3, 2), tl.float64, seed=9)
    p = a.permute(6, 0, 5, 1, 4, 2, 3)
    for fn in (tl.neg, tl.exp):
        want, got = run_both(fn, p)
        assert_same(got, want, exact=fn is tl.neg)
    want, got = run_both(tl.add, p, p.flip(3))
    assert_same(got, want)
    want, got = run_both(tl.sum, p, dim=(1, 3, 5))
    assert_same(got, want, exact=False)


# ---- float8 storage dtypes on the device ----------------------------------

F8_DTYPES = [tl.float8_e4m3fn, tl.float8_e5m2]
# Rounding ties, saturation (e4m3fn) and overflow to inf (e5m2), NaN,
# signed zero, subnormals of both formats, and values past 2^53.
F8_SPECIALS = [0.0, -0.0, 1.0, -3.3, 448.0, 449.0, 464.0, 480.0, 1e6,
               -1e6, 57344.0, 61439.0, 61440.0, float("inf"),
               float("-inf"), float("nan"), 2.0 ** -9, 2.0 ** -10,
               3 * 2.0 ** -11, 2.0 ** -16, 2.0 ** -17, 1.0625, 1.1875,
               0.1, 2.0 ** 60]


def _f8_values(t):
    """t's values as float64 (float8 and every real dtype convert exactly
    to it), for comparison with NaNs equal."""
    return t.cpu().to(tl.float64).numpy()


@needs_gpu
@pytest.mark.parametrize("f8", F8_DTYPES, ids=str)
def test_float8_casts_on_cuda_match_cpu(f8):
    base = tl.tensor(F8_SPECIALS, dtype=tl.float64)
    srcs = [rand((3, 9), dt, seed=61) for dt in ALL_DTYPES] + [base]
    for a in srcs:
        d = a.cuda()
        got, want = d.to(f8), a.to(f8)
        assert got.is_cuda and got.dtype == f8
        np.testing.assert_array_equal(_f8_values(got), _f8_values(want))
        if a.ndim == 2:  # strided and negative-stride sources
            np.testing.assert_array_equal(_f8_values(d.t().to(f8)),
                                          _f8_values(a.t().to(f8)))
            np.testing.assert_array_equal(
                _f8_values(d.flip(1)[:, ::2].to(f8)),
                _f8_values(a.flip(1)[:, ::2].to(f8)))
    # from float8 to every dtype and to the other float8, on the device
    x = base.to(f8)
    xd = x.cuda()
    for dst in ALL_DTYPES + F8_DTYPES:
        got, want = xd.to(dst), x.to(dst)
        assert got.is_cuda and got.dtype == dst
        if dst in (tl.complex64, tl.complex128):
            np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
        else:
            np.testing.assert_array_equal(_f8_values(got), _f8_values(want))
    # device <-> host copies with a cast, copy_, fill_, where, views
    np.testing.assert_array_equal(_f8_values(base.to("cuda", dtype=f8)),
                                  _f8_values(x))
    y = tl.zeros(len(F8_SPECIALS), dtype=f8, device="cuda")
    y.copy_(base)
    np.testing.assert_array_equal(_f8_values(y), _f8_values(x))
    y[::3] = 2.5
    z = x.clone()
    z[::3] = 2.5
    np.testing.assert_array_equal(_f8_values(y), _f8_values(z))
    y.fill_(-7.0)
    assert set(_f8_values(y).tolist()) == {-7.0}
    cond = tl.arange(len(F8_SPECIALS)) % 2 == 0
    np.testing.assert_array_equal(
        _f8_values(tl.where(cond.cuda(), xd, xd.flip(0))),
        _f8_values(tl.where(cond, x, x.flip(0))))
    assert "float8" in repr(xd)


@needs_gpu
@pytest.mark.parametrize("f8", F8_DTYPES, ids=str)
def test_float8_arithmetic_on_cuda_is_refused(f8):
    xd = tl.tensor([1.0, 2.0, 3.0]).to(f8).cuda()
    for fn in (lambda: xd + 1, lambda: -xd, lambda: xd.exp(),
               lambda: xd.sum(), lambda: xd.clamp(0, 1), lambda: xd == xd,
               lambda: xd * xd):
        with pytest.raises(TypeError, match=str(f8).split(".")[-1]):
            fn()
    np.testing.assert_array_equal(_f8_values(xd), [1.0, 2.0, 3.0])


def test_cuda_tests_ran_or_skipped_cleanly():
    # In a build with a device every GPU test above ran; without one they
    # skipped (pytest reports them), and nothing above touched CUDA.
    assert cuda.is_available() == AVAILABLE
    assert list(itertools.islice(ALL_DTYPES, 1)) == [tl.bool]


class _BadBool:
    def __bool__(self):
        raise ZeroDivisionError("bool() of the non_blocking argument")


@needs_gpu
def test_stream_and_device_argument_refusals():
    """The bindings of tensorlib.cuda (csrc/python/cuda.c) refuse bad
    device indices, stream handles, priorities and argument counts with
    the error of the bad argument, creating no stream and moving nothing."""
    _C = tl._C
    n = cuda.device_count()
    cases = [
        (lambda: cuda.Stream(device=-1), ValueError, "index -1 is out of"),
        (lambda: cuda.Stream(device=2**70), OverflowError, None),
        (lambda: cuda.Stream(device=n), RuntimeError, "is not available"),
        (lambda: cuda.Stream(priority="x"), TypeError, "str"),
        (lambda: _C._cuda_stream_new(0, 2**70), OverflowError, None),
        (lambda: cuda.synchronize(2**70), OverflowError, None),
        (lambda: cuda.synchronize(n), RuntimeError, "is not available"),
        (lambda: _C._cuda_synchronize(tl.device("cpu")), ValueError,
         "expected a CUDA device"),
        (lambda: _C._cuda_synchronize(object()), TypeError, "device must"),
        (lambda: _C._cuda_stream_query(0), TypeError, "takes 2 arguments"),
        (lambda: _C._cuda_stream_query(0, "x"), TypeError,
         "expected a CUDA stream"),
        (lambda: _C._cuda_stream_query(0, 2**80), OverflowError, None),
        (lambda: _C._cuda_stream_query(n, 0), RuntimeError,
         "is not available"),
        (lambda: _C._cuda_stream_synchronize(0), TypeError, "takes 2"),
        (lambda: _C._cuda_stream_synchronize(-1, 0), ValueError,
         "out of range"),
        (lambda: _C._cuda_set_stream(0, "x"), TypeError,
         "expected a CUDA stream"),
        (lambda: _C._cuda_set_stream(n, 0), RuntimeError, "is not available"),
        (lambda: _C._cuda_stream_free(0), TypeError, "takes 2"),
        (lambda: _C._cuda_stream_free(0, object()), TypeError,
         "expected a CUDA stream"),
        (lambda: _C._cuda_current_stream(2**70), OverflowError, None),
        (lambda: _C._cuda_current_stream(n), RuntimeError,
         "is not available"),
        (lambda: tl.ones(3).cuda(device=-3), ValueError, "out of range"),
        (lambda: tl.ones(3).cuda(device="cpu"), ValueError,
         "expected a CUDA device"),
        (lambda: tl.ones(3).cuda(non_blocking=_BadBool()),
         ZeroDivisionError, "non_blocking"),
    ]
    cur = cuda.current_stream()
    for k, (f, exc, msg) in enumerate(cases):
        before = tl.memory_stats(device="cuda")["active_bytes"]
        with pytest.raises(exc, match=msg):
            f()
        assert tl.memory_stats(device="cuda")["active_bytes"] == before, k
        assert cuda.current_stream() == cur, k


@needs_gpu
def test_random_numbers_on_cuda_are_refused():
    """tensorlib draws random numbers on the CPU only: every sampler on a
    CUDA tensor (or with CUDA probabilities or rates) raises
    NotImplementedError naming the device, leaves the tensor as it was and
    the CPU generator where it was."""
    t = tl.full((5,), 0.25, device="cuda")
    p = tl.full((5,), 0.25)
    cases = [
        ("uniform_", lambda: t.uniform_()),
        ("normal_", lambda: t.normal_()),
        ("bernoulli_", lambda: t.bernoulli_(0.5)),
        ("bernoulli_", lambda: p.clone().bernoulli_(t)),
        ("bernoulli", lambda: tl.bernoulli(t)),
        ("random_", lambda: t.random_()),
        ("exponential_", lambda: t.exponential_()),
        ("poisson", lambda: tl.poisson(t)),
        ("multinomial", lambda: tl.multinomial(t, 2)),
        ("randperm", lambda: tl.randperm(4, device="cuda")),
        ("rand", lambda: tl.rand(3, device="cuda")),
        ("randint", lambda: tl.randint(0, 5, (3,), device="cuda")),
    ]
    for name, f in cases:
        state = tl.get_rng_state().clone()
        with pytest.raises(NotImplementedError, match="cuda:0") as e:
            f()
        assert name in str(e.value)
        assert tl.equal(tl.get_rng_state(), state), name
        assert t.cpu().tolist() == [0.25] * 5, name
