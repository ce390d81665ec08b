"""Allocation-failure sweep (issue 23, "Allocation failures").

tensorlib._C._testing.fail_allocation(n) makes the n-th of tensorlib's own
allocations from then on fail once (Note [Fault injection] in
csrc/alloc/fault.c: tensor data from every allocator, core metadata, the
Python objects of tensorlib's types).  For every case of the TABLE below
and n = 0, 1, 2, ... until the call succeeds without the fault firing,
each run where the fault fired either raises MemoryError — leaving every
operand's values, version and reference counts as they were and the
allocator's live bytes and block count flat — or succeeds (the failure was
absorbed, e.g. a cache that falls back).

A new operation joins the sweep by one table entry: its name in one of the
name groups (UNARY, BINARY, ...) or an explicit ``case(...)`` line.
test_every_public_name_is_swept fails when a public function or Tensor
method is neither in the table nor in NOT_SWEPT with a reason.

Cost: ~7,500 runs over 745 cases, 5 s of CPU time with the default
build (32 s wall on the shared, overloaded 2-core machine it was written
on); .ci/run's sanitizer phase runs it (pytest -m "not slow").
"""
import gc
import io
import os
import pickle
import sys
import tempfile

import numpy as np
import pytest

import tensorlib as tl

T = tl._C._testing


class Ops:
    """The operands of one case, made fresh for it (deterministic); the
    sweep checks the ones the case touched."""

    def __init__(self):
        rng = np.random.default_rng(5)
        f32 = np.float32
        d = {}
        d["x"] = tl.tensor(rng.uniform(0.1, 0.9, (3, 4)).astype(f32))
        d["y"] = tl.tensor(rng.uniform(0.1, 0.9, (3, 4)).astype(f32))
        d["v"] = tl.tensor(rng.uniform(0.1, 0.9, 4).astype(f32))
        d["w"] = tl.tensor(rng.uniform(0.1, 0.9, 3).astype(f32))
        d["i"] = tl.tensor(rng.integers(1, 9, (3, 4)), dtype=tl.int64)
        d["j"] = tl.tensor(rng.integers(1, 9, (3, 4)), dtype=tl.int64)
        d["idx"] = tl.tensor([2, 0, 1], dtype=tl.int64)
        d["mask"] = tl.tensor(rng.integers(0, 2, (3, 4)).astype(bool))
        m = rng.uniform(-1, 1, (3, 3)) + 4 * np.eye(3)
        d["m"] = tl.tensor(m.astype(np.float64))
        d["b3"] = tl.tensor(rng.uniform(0.1, 0.9, (2, 3, 3)).astype(f32))
        d["c"] = tl.complex(d["x"], d["y"])
        d["s"] = tl.tensor(np.sort(rng.uniform(0, 1, 5)).astype(f32))
        object.__setattr__(self, "_all", d)
        object.__setattr__(self, "_used", {})

    def __getattr__(self, name):
        t = self._all[name]
        self._used[name] = t
        return t

    def tensors(self):
        return [self._used[k] for k in sorted(self._used)]


CASES = []   # (name, fn(ops))


def case(name, fn):
    CASES.append((name, fn))


def _fn_and_method(name, call_fn, call_m, inplace=None):
    if hasattr(tl, name):
        case("tl." + name, call_fn)
    if hasattr(tl.Tensor, name):
        case("Tensor." + name, call_m)
    if inplace is not None and hasattr(tl.Tensor, name + "_"):
        case("Tensor." + name + "_", inplace)


# ---- name groups: a new op joins by its name ---------------------------
UNARY = """abs acos acosh angle arccos arccosh arcsin arcsinh arctan arctanh
asin asinh atan atanh ceil clone conj conj_physical cos cosh deg2rad digamma
erf erfc erfinv exp exp2 expm1 floor frac isfinite isinf isnan isneginf
isposinf isreal lgamma log log10 log1p log2 logit neg negative positive
rad2deg reciprocal relu round rsqrt sgn sigmoid sign signbit sin sinc sinh
sqrt square tan tanh trunc nonzero argwhere ravel flatten msort
frexp nan_to_num""".split()
for _n in UNARY:
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x),
                   lambda o, n=_n: getattr(o.x, n)(),
                   lambda o, n=_n: getattr(o.x, n + "_")())

BINARY = """add sub subtract mul multiply div divide true_divide floor_divide
remainder fmod pow maximum minimum fmax fmin atan2 arctan2 hypot logaddexp
logaddexp2 xlogy copysign nextafter heaviside eq ne lt le gt ge isclose
allclose equal logical_and logical_or logical_xor clamp_min clamp_max""".split()
for _n in BINARY:
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x, o.y),
                   lambda o, n=_n: getattr(o.x, n)(o.y),
                   lambda o, n=_n: getattr(o.x, n + "_")(o.y))

INT_BINARY = """bitwise_and bitwise_or bitwise_xor bitwise_left_shift
bitwise_right_shift gcd lcm""".split()
for _n in INT_BINARY:
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.i, o.j),
                   lambda o, n=_n: getattr(o.i, n)(o.j),
                   lambda o, n=_n: getattr(o.i, n + "_")(o.j))
for _n in ("addcmul", "addcdiv"):
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x, o.y, o.y),
                   lambda o, n=_n: getattr(o.x, n)(o.y, o.y),
                   lambda o, n=_n: getattr(o.x, n + "_")(o.y, o.y))
_fn_and_method("float_power", lambda o: tl.float_power(o.x, o.y),
               lambda o: o.x.float_power(o.y),
               lambda o: o.x.double().float_power_(o.y))  # float64 only
_fn_and_method("lerp", lambda o: tl.lerp(o.x, o.y, 0.25),
               lambda o: o.x.lerp(o.y, o.y), lambda o: o.x.lerp_(o.y, 0.5))
_fn_and_method("bitwise_not", lambda o: tl.bitwise_not(o.i),
               lambda o: o.i.bitwise_not(), lambda o: o.i.bitwise_not_())
_fn_and_method("logical_not", lambda o: tl.logical_not(o.mask),
               lambda o: o.mask.logical_not(),
               lambda o: o.mask.logical_not_())
_fn_and_method("ldexp", lambda o: tl.ldexp(o.x, o.i),
               lambda o: o.x.ldexp(o.i), lambda o: o.x.ldexp_(o.i))

REDUCE = """sum mean prod amax amin max min argmax argmin all any std var
nansum nanmean median nanmedian logsumexp norm count_nonzero std_mean
var_mean mode""".split()
for _n in REDUCE:
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x, 1),
                   lambda o, n=_n: getattr(o.x, n)(1))
    case("tl.%s(full)" % _n, lambda o, n=_n: getattr(tl, n)(o.x)
         if n not in ("logsumexp", "mode") else getattr(tl, n)(o.x, 0))

_fn_and_method("aminmax", lambda o: tl.aminmax(o.x, dim=1),
               lambda o: o.x.aminmax())

SCAN = "cumsum cumprod logcumsumexp cummax cummin softmax log_softmax".split()
for _n in SCAN:
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x, 1),
                   lambda o, n=_n: getattr(o.x, n)(1),
                   lambda o, n=_n: getattr(o.x, n + "_")(1))

LIKE = "zeros_like ones_like empty_like rand_like randn_like".split()
for _n in LIKE:
    case("tl." + _n, lambda o, n=_n: getattr(tl, n)(o.x))

CASTS = "bfloat16 bool byte char double float half int long short cdouble \
cfloat cpu contiguous detach".split()
for _n in CASTS:
    case("Tensor." + _n, lambda o, n=_n: getattr(o.x, n)())

# ---- layouts and promotion (other iterator paths) -------------------------
case("tl.add(transposed)", lambda o: tl.add(o.x.t(), o.y.t()))
case("tl.add(broadcast)", lambda o: tl.add(o.x, o.v))
case("tl.add(promote)", lambda o: tl.add(o.x, o.i))
case("tl.mul(flip, big)", lambda o: tl.mul(
    o.x.flip(0)[:, None], o.y[:, None, :].expand(3, 5, 4)))
case("tl.exp(strided)", lambda o: tl.exp(o.x[::2, ::3]))
case("tl.sum(transposed, dim)", lambda o: tl.sum(o.x.t(), 0))
case("tl.sum(dtype)", lambda o: tl.sum(o.i, 1, dtype=tl.float64))
case("tl.amax(dims)", lambda o: tl.amax(o.b3, (0, 2), keepdim=True))
case("Tensor.copy_(cast, transposed)", lambda o: o.x.copy_(o.i.t().t()))
case("Tensor.add_(self overlap)", lambda o: o.x.add_(o.x.flip(0)))
case("Tensor.contiguous(channels_last)", lambda o: o.b3[None].contiguous(
    memory_format=tl.channels_last))

# ---- explicit cases ------------------------------------------------------
case("tl.tensor(nested)", lambda o: tl.tensor([[1.5, 2], [3, 4]]))
case("tl.tensor(int)", lambda o: tl.tensor([1, 2, 3], dtype=tl.int8))
case("tl.tensor(numpy)", lambda o: tl.tensor(np.ones((2, 3))))
case("tl.zeros", lambda o: tl.zeros(3, 4))
case("tl.ones", lambda o: tl.ones((2, 2), dtype=tl.int32))
case("tl.empty", lambda o: tl.empty(5))
case("tl.empty_strided", lambda o: tl.empty_strided((2, 3), (1, 2)))
case("tl.full", lambda o: tl.full((2, 2), 7.0))
case("tl.full_like", lambda o: tl.full_like(o.x, 2))
case("tl.arange", lambda o: tl.arange(10))
case("tl.linspace", lambda o: tl.linspace(0, 1, 5))
case("tl.logspace", lambda o: tl.logspace(0, 1, 5))
case("tl.eye", lambda o: tl.eye(3))
case("tl.tril_indices", lambda o: tl.tril_indices(3, 3))
case("tl.triu_indices", lambda o: tl.triu_indices(3, 3))
case("tl.asarray", lambda o: tl.asarray([1.0, 2.0]))
case("tl.asarray(copy)", lambda o: tl.asarray(o.x, copy=True))
case("tl.from_numpy", lambda o: tl.from_numpy(np.ones(3)))
case("tl.frombuffer", lambda o: tl.frombuffer(bytearray(16), tl.float32))
case("tl.from_dlpack", lambda o: tl.from_dlpack(np.ones(3)))
case("tl.from_dlpack(self)", lambda o: tl.from_dlpack(o.x))
case("tl.complex", lambda o: tl.complex(o.x, o.y))
case("tl.polar", lambda o: tl.polar(o.x, o.y))
case("tl.rand", lambda o: tl.rand(3, 4))
case("tl.randn", lambda o: tl.randn(3, 4))
case("tl.randint", lambda o: tl.randint(0, 5, (3,)))
case("tl.randint_like", lambda o: tl.randint_like(o.x, 5))
case("tl.randperm", lambda o: tl.randperm(6))
case("tl.bernoulli", lambda o: tl.bernoulli(o.x))
case("tl.multinomial", lambda o: tl.multinomial(o.v, 2))
case("tl.normal", lambda o: tl.normal(o.x, o.y))
case("tl.poisson", lambda o: tl.poisson(o.x))
case("tl.Generator", lambda o: tl.Generator().manual_seed(3))
case("tl.get_rng_state", lambda o: tl.get_rng_state())
for _n in "uniform_ normal_ bernoulli_ cauchy_ exponential_ \
log_normal_ random_".split():
    case("Tensor." + _n, lambda o, n=_n: getattr(o.x, n)())
case("Tensor.geometric_", lambda o: o.x.geometric_(0.5))
case("Tensor.multinomial", lambda o: o.v.multinomial(2))
case("Tensor.bernoulli", lambda o: o.x.bernoulli())
# views
case("Tensor.view", lambda o: o.x.view(4, 3))
case("Tensor.view_as", lambda o: o.x.view_as(o.y))
case("Tensor.reshape", lambda o: o.x.t().reshape(12))
case("tl.reshape", lambda o: tl.reshape(o.x, (2, 6)))
case("Tensor.reshape_as", lambda o: o.x.reshape_as(o.y))
case("Tensor.t", lambda o: o.x.t())
case("Tensor.T", lambda o: o.x.T)
case("Tensor.mT", lambda o: o.b3.mT)
case("Tensor.transpose", lambda o: o.x.transpose(0, 1))
case("tl.transpose", lambda o: tl.transpose(o.x, 0, 1))
case("Tensor.permute", lambda o: o.b3.permute(2, 0, 1))
case("tl.permute", lambda o: tl.permute(o.b3, (2, 0, 1)))
for _n in "movedim moveaxis swapaxes swapdims".split():
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.b3, 0, 2),
                   lambda o, n=_n: getattr(o.b3, n)(0, 2))
_fn_and_method("squeeze", lambda o: tl.squeeze(o.x[None]),
               lambda o: o.x[None].squeeze())
_fn_and_method("unsqueeze", lambda o: tl.unsqueeze(o.x, 1),
               lambda o: o.x.unsqueeze(1))
case("Tensor.expand", lambda o: o.v.expand(3, 4))
case("Tensor.expand_as", lambda o: o.v.expand_as(o.x))
_fn_and_method("broadcast_to", lambda o: tl.broadcast_to(o.v, (3, 4)),
               lambda o: o.v.broadcast_to((3, 4)))
case("tl.broadcast_tensors", lambda o: tl.broadcast_tensors(o.v, o.x))
case("tl.broadcast_shapes", lambda o: tl.broadcast_shapes((3, 1), (4,)))
_fn_and_method("narrow", lambda o: tl.narrow(o.x, 1, 1, 2),
               lambda o: o.x.narrow(1, 1, 2))
_fn_and_method("select", lambda o: tl.select(o.x, 1, 2),
               lambda o: o.x.select(1, 2))
_fn_and_method("diagonal", lambda o: tl.diagonal(o.m),
               lambda o: o.m.diagonal())
_fn_and_method("unflatten", lambda o: tl.unflatten(o.v, 0, (2, 2)),
               lambda o: o.v.unflatten(0, (2, 2)))
for _n in "split chunk tensor_split unbind hsplit".split():
    _fn_and_method(_n, lambda o, n=_n: getattr(tl, n)(o.x, 2)
                   if n != "unbind" else tl.unbind(o.x),
                   lambda o, n=_n: getattr(o.x, n)(2)
                   if n != "unbind" else o.x.unbind())
_fn_and_method("vsplit", lambda o: tl.vsplit(o.x, 3),
               lambda o: o.x.vsplit(3))
_fn_and_method("dsplit", lambda o: tl.dsplit(o.b3, 3),
               lambda o: o.b3.dsplit(3))
case("Tensor.unfold", lambda o: o.v.unfold(0, 2, 1))
case("Tensor.as_strided", lambda o: o.x.as_strided((2, 2), (1, 2)))
_fn_and_method("flip", lambda o: tl.flip(o.x, (0,)),
               lambda o: o.x.flip(0))
_fn_and_method("real", lambda o: tl.real(o.c), lambda o: o.c.real)
_fn_and_method("imag", lambda o: tl.imag(o.c), lambda o: o.c.imag)
case("tl.view_as_real", lambda o: tl.view_as_real(o.c))
case("tl.view_as_complex", lambda o: tl.view_as_complex(o.b3[..., :2].
                                                        contiguous()))
case("Tensor.lazy_clone", lambda o: o.x.lazy_clone())
case("tl.atleast_1d", lambda o: tl.atleast_1d(o.x))
case("tl.atleast_2d", lambda o: tl.atleast_2d(o.v))
case("tl.atleast_3d", lambda o: tl.atleast_3d(o.v))
# indexing
case("Tensor.__getitem__(int)", lambda o: o.x[1])
case("Tensor.__getitem__(slice)", lambda o: o.x[::2, 1:])
case("Tensor.__getitem__(ellipsis/None)", lambda o: o.x[..., None, 1])
case("Tensor.__getitem__(tensor)", lambda o: o.x[o.idx])
case("Tensor.__getitem__(mask)", lambda o: o.x[o.mask])
case("Tensor.__getitem__(list)", lambda o: o.x[[0, 2], 1:])
case("Tensor.__setitem__(scalar)", lambda o: o.x.__setitem__(
    (slice(None), 1), 5.0))
case("Tensor.__setitem__(tensor)", lambda o: o.x.__setitem__(0, o.v))
case("Tensor.__setitem__(mask)", lambda o: o.x.__setitem__(o.mask, 0.0))
case("Tensor.__setitem__(advanced)", lambda o: o.x.__setitem__(o.idx, 1.0))
# ops with extra arguments
_fn_and_method("clamp", lambda o: tl.clamp(o.x, 0.2, 0.5),
               lambda o: o.x.clamp(0.2, 0.5),
               lambda o: o.x.clamp_(0.2, 0.5))
_fn_and_method("clip", lambda o: tl.clip(o.x, o.y), lambda o: o.x.clip(o.y))
_fn_and_method("where", lambda o: tl.where(o.mask, o.x, o.y),
               lambda o: o.x.where(o.mask, o.y))
_fn_and_method("tril", lambda o: tl.tril(o.x), lambda o: o.x.tril(),
               lambda o: o.x.tril_())
_fn_and_method("triu", lambda o: tl.triu(o.x), lambda o: o.x.triu(),
               lambda o: o.x.triu_())
case("Tensor.fill_", lambda o: o.x.fill_(2.0))
case("Tensor.zero_", lambda o: o.x.zero_())
case("Tensor.copy_", lambda o: o.x.copy_(o.y.t().t()))
case("Tensor.copy_(broadcast)", lambda o: o.x.copy_(o.v))
case("Tensor.to(dtype)", lambda o: o.x.to(tl.float64))
case("Tensor.to(memory_kind)", lambda o: o.x.to(tl.float16, copy=True))
case("Tensor.astype", lambda o: o.x.astype(tl.float64))
case("Tensor.to_device", lambda o: o.x.to_device("cpu"))
case("Tensor.iadd", lambda o: o.x.__iadd__(o.y))
case("Tensor.imul(scalar)", lambda o: o.x.__imul__(2))
case("Tensor.add(alpha)", lambda o: o.x.add(o.y, alpha=2))
case("tl.add(out=)", lambda o: tl.add(o.x, o.y, out=o.x))
case("Tensor.__radd__", lambda o: 1 + o.x)
case("Tensor.__matmul__", lambda o: o.x @ o.x.t())
case("Tensor.div(rounding)", lambda o: o.x.div(o.y, rounding_mode="floor"))
case("Tensor.round(decimals)", lambda o: o.x.round(decimals=2))
case("tl.pow(scalar)", lambda o: tl.pow(2, o.x))
_fn_and_method("masked_fill", lambda o: tl.masked_fill(o.x, o.mask, 0.0),
               lambda o: o.x.masked_fill(o.mask, 0.0),
               lambda o: o.x.masked_fill_(o.mask, 0.0))
_fn_and_method("masked_select", lambda o: tl.masked_select(o.x, o.mask),
               lambda o: o.x.masked_select(o.mask))
_fn_and_method("masked_scatter",
               lambda o: tl.masked_scatter(o.x, o.mask, o.y),
               lambda o: o.x.masked_scatter(o.mask, o.y),
               lambda o: o.x.masked_scatter_(o.mask, o.y))
_fn_and_method("index_select", lambda o: tl.index_select(o.x, 0, o.idx),
               lambda o: o.x.index_select(0, o.idx))
_fn_and_method("index_add", lambda o: tl.index_add(o.x, 0, o.idx, o.y),
               lambda o: o.x.index_add(0, o.idx, o.y),
               lambda o: o.x.index_add_(0, o.idx, o.y))
_fn_and_method("index_copy", lambda o: tl.index_copy(o.x, 0, o.idx, o.y),
               lambda o: o.x.index_copy(0, o.idx, o.y),
               lambda o: o.x.index_copy_(0, o.idx, o.y))
_fn_and_method("index_fill", lambda o: tl.index_fill(o.x, 0, o.idx, 1.0),
               lambda o: o.x.index_fill(0, o.idx, 1.0),
               lambda o: o.x.index_fill_(0, o.idx, 1.0))
_fn_and_method("index_put",
               lambda o: tl.index_put(o.x, (o.idx,), o.v),
               lambda o: o.x.index_put((o.idx,), o.v),
               lambda o: o.x.index_put_((o.idx,), o.v))
_fn_and_method("gather", lambda o: tl.gather(o.x, 1, o.i % 4),
               lambda o: o.x.gather(1, o.i % 4))
_fn_and_method("scatter", lambda o: tl.scatter(o.x, 1, o.j % 4, o.y),
               lambda o: o.x.scatter(1, o.j % 4, o.y),
               lambda o: o.x.scatter_(1, o.j % 4, o.y))
_fn_and_method("scatter_add", lambda o: tl.scatter_add(o.x, 1, o.j % 4, o.y),
               lambda o: o.x.scatter_add(1, o.j % 4, o.y),
               lambda o: o.x.scatter_add_(1, o.j % 4, o.y))
_fn_and_method("scatter_reduce",
               lambda o: tl.scatter_reduce(o.x, 1, o.j % 4, o.y, "amax"),
               lambda o: o.x.scatter_reduce(1, o.j % 4, o.y, "sum"),
               lambda o: o.x.scatter_reduce_(1, o.j % 4, o.y, "prod"))
_fn_and_method("take", lambda o: tl.take(o.x, o.idx),
               lambda o: o.x.take(o.idx))
_fn_and_method("take_along_dim",
               lambda o: tl.take_along_dim(o.x, o.i % 3, 0),
               lambda o: o.x.take_along_dim(o.i % 3, 0))
_fn_and_method("put", lambda o: tl.put(o.x, o.idx, o.w),
               lambda o: o.x.put(o.idx, o.w), lambda o: o.x.put_(o.idx, o.w))
# sort / search / join / set
_fn_and_method("sort", lambda o: tl.sort(o.x, 1), lambda o: o.x.sort(0))
_fn_and_method("argsort", lambda o: tl.argsort(o.x, 1),
               lambda o: o.x.argsort(0))
_fn_and_method("topk", lambda o: tl.topk(o.x, 2), lambda o: o.x.topk(2, 0))
_fn_and_method("kthvalue", lambda o: tl.kthvalue(o.x, 2),
               lambda o: o.x.kthvalue(2, 0))
_fn_and_method("unique", lambda o: tl.unique(o.i, return_inverse=True,
                                            return_counts=True),
               lambda o: o.i.unique(dim=0))
_fn_and_method("unique_consecutive",
               lambda o: tl.unique_consecutive(o.i, return_counts=True),
               lambda o: o.i.unique_consecutive())
case("tl.searchsorted", lambda o: tl.searchsorted(o.s, o.x))
case("tl.bucketize", lambda o: tl.bucketize(o.x, o.s))
_fn_and_method("isin", lambda o: tl.isin(o.i, o.j), lambda o: o.i.isin(o.j))
_fn_and_method("quantile", lambda o: tl.quantile(o.x, 0.3, dim=1),
               lambda o: o.x.quantile(o.s[:2]))
_fn_and_method("nanquantile", lambda o: tl.nanquantile(o.x, 0.3),
               lambda o: o.x.nanquantile(0.7, dim=0))
for _n in "cat concat concatenate stack".split():
    case("tl." + _n, lambda o, n=_n: getattr(tl, n)([o.x, o.y], 0))
for _n in "hstack vstack dstack column_stack row_stack".split():
    case("tl." + _n, lambda o, n=_n: getattr(tl, n)([o.x, o.y]))
case("tl.meshgrid", lambda o: tl.meshgrid(o.v, o.w, indexing="ij"))
_fn_and_method("roll", lambda o: tl.roll(o.x, 1, 1),
               lambda o: o.x.roll((1, 2), (0, 1)))
_fn_and_method("rot90", lambda o: tl.rot90(o.x), lambda o: o.x.rot90(1))
_fn_and_method("repeat_interleave", lambda o: tl.repeat_interleave(o.x, 2),
               lambda o: o.x.repeat_interleave(o.idx, dim=0))
case("Tensor.repeat", lambda o: o.x.repeat(2, 1))
_fn_and_method("tile", lambda o: tl.tile(o.x, (2,)),
               lambda o: o.x.tile((1, 2)))
_fn_and_method("diff", lambda o: tl.diff(o.x), lambda o: o.x.diff(dim=0))
_fn_and_method("diag", lambda o: tl.diag(o.v), lambda o: o.m.diag())
_fn_and_method("diag_embed", lambda o: tl.diag_embed(o.x),
               lambda o: o.x.diag_embed())
_fn_and_method("diagflat", lambda o: tl.diagflat(o.v),
               lambda o: o.v.diagflat())
_fn_and_method("trace", lambda o: tl.trace(o.m), lambda o: o.m.trace())
_fn_and_method("cross", lambda o: tl.cross(o.x[:, :3], o.y[:, :3], dim=1),
               lambda o: o.m.cross(o.m))
_fn_and_method("kron", lambda o: tl.kron(o.x, o.y), lambda o: o.v.kron(o.w))
# linalg / matmul
_fn_and_method("matmul", lambda o: tl.matmul(o.x, o.y.t()),
               lambda o: o.b3.matmul(o.b3))
_fn_and_method("mm", lambda o: tl.mm(o.x, o.y.t()), lambda o: o.m.mm(o.m))
_fn_and_method("bmm", lambda o: tl.bmm(o.b3, o.b3),
               lambda o: o.b3.bmm(o.b3))
_fn_and_method("mv", lambda o: tl.mv(o.x, o.v), lambda o: o.x.mv(o.v))
_fn_and_method("dot", lambda o: tl.dot(o.v, o.v), lambda o: o.v.dot(o.v))
_fn_and_method("vdot", lambda o: tl.vdot(o.v, o.v), lambda o: o.v.vdot(o.v))
_fn_and_method("inner", lambda o: tl.inner(o.x, o.y),
               lambda o: o.x.inner(o.y))
_fn_and_method("outer", lambda o: tl.outer(o.v, o.w),
               lambda o: o.v.outer(o.w))
_fn_and_method("ger", lambda o: tl.ger(o.v, o.w), lambda o: o.v.ger(o.w))
_fn_and_method("addmm", lambda o: tl.addmm(o.m, o.m, o.m),
               lambda o: o.m.addmm(o.m, o.m))
_fn_and_method("addmv", lambda o: tl.addmv(o.w, o.x, o.v),
               lambda o: o.w.addmv(o.x, o.v))
_fn_and_method("addbmm", lambda o: tl.addbmm(o.b3[0], o.b3, o.b3),
               lambda o: o.b3[0].addbmm(o.b3, o.b3))
_fn_and_method("baddbmm", lambda o: tl.baddbmm(o.b3, o.b3, o.b3),
               lambda o: o.b3.baddbmm(o.b3, o.b3))
case("tl.tensordot", lambda o: tl.tensordot(o.x, o.y, ([1], [1])))
case("tl.einsum", lambda o: tl.einsum("ij,kj->ik", o.x, o.y))
_fn_and_method("det", lambda o: tl.det(o.m), lambda o: o.m.det())
_fn_and_method("slogdet", lambda o: tl.slogdet(o.m), lambda o: o.m.slogdet())
_fn_and_method("inverse", lambda o: tl.inverse(o.m), lambda o: o.m.inverse())
_fn_and_method("pinverse", lambda o: tl.pinverse(o.m),
               lambda o: o.m.pinverse())
_fn_and_method("matrix_power", lambda o: tl.matrix_power(o.m, 3),
               lambda o: o.m.matrix_power(-2))
case("Tensor.cholesky", lambda o: (o.m @ o.m.t()).cholesky())
case("tl.linalg.solve", lambda o: tl.linalg.solve(o.m, o.m))
case("tl.linalg.norm", lambda o: tl.linalg.norm(o.m))
# interop, pickle, printing, inspection
case("Tensor.numpy", lambda o: o.x.numpy())
case("np.asarray", lambda o: np.asarray(o.x))
case("Tensor.__array__", lambda o: o.x.__array__())
case("Tensor.__dlpack__", lambda o: o.x.__dlpack__())
case("memoryview", lambda o: memoryview(o.x))
case("Tensor.tolist", lambda o: o.x.tolist())
case("Tensor.tobytes", lambda o: o.x.tobytes())
case("Tensor.item", lambda o: o.x[1, 2].item())
case("float(t)", lambda o: float(o.w[0]))
case("Tensor.__array_interface__", lambda o: o.x.__array_interface__)
case("pickle", lambda o: pickle.loads(pickle.dumps(o.x)))
case("pickle5", lambda o: pickle.loads(pickle.dumps(o.x, protocol=5)))
case("repr", lambda o: repr(o.x))
case("repr(complex)", lambda o: repr(o.c))
case("str", lambda o: str(o.i))
case("Tensor.shape", lambda o: o.x.shape)
case("Tensor.size", lambda o: o.x.size())
case("Tensor.stride", lambda o: o.x.stride())
case("Tensor.device", lambda o: o.x.device)
case("Tensor.untyped_storage", lambda o: o.x.untyped_storage())
case("Storage.resize_", lambda o: o.x.clone().untyped_storage().resize_(64))
case("Tensor.resize_", lambda o: o.x.resize_(5, 5))
case("Tensor.set_", lambda o: o.x.set_(o.y.untyped_storage(), 0, (2, 2)))
case("iter", lambda o: list(o.x))
case("len/bool/eq", lambda o: (len(o.x), bool(o.w[0]), o.x == 0.5))
case("tl.explain", lambda o: tl.explain(o.x))
case("tl.explain_reshape", lambda o: tl.explain_reshape(o.x.t(), (12,)))
# memory system
case("tl.memory_stats", lambda o: tl.memory_stats())
case("tl.memory_summary", lambda o: tl.memory_summary())
case("tl.memory_report", lambda o: tl.memory_report())
case("tl.workspace", lambda o: _in_workspace())
case("tl.empty_cache", lambda o: tl.empty_cache())
case("Tensor.pin_memory", lambda o: o.x.pin_memory())


def _in_workspace():
    with tl.workspace(1 << 16) as ws:
        a = tl.ones(8) + 1
        s = float(a.sum())
    return ws, s


def _save_load(fmt, obj):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f." + fmt)
        tl.save(obj, path)
        r = tl.load(path)
        return r


case("save/load safetensors", lambda o: _save_load("safetensors",
                                                   {"x": o.x, "i": o.i}))
case("save/load npy", lambda o: _save_load("npy", o.x))
case("save/load npz", lambda o: _save_load("npz", {"x": o.x, "m": o.m}))
case("tl.load_metadata", lambda o: _load_metadata(o))


def _load_metadata(o):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.safetensors")
        tl.save({"x": o.x}, path)
        return tl.load_metadata(path)


# ---- tensorlib.linalg (the functions not also at the top level) ---------
def _spd(o):
    return o.m @ o.m.t() + tl.eye(3, dtype=tl.float64)


LINALG = {
    "inv": lambda o: tl.linalg.inv(o.m),
    "det": lambda o: tl.linalg.det(o.m),
    "slogdet": lambda o: tl.linalg.slogdet(o.m),
    "lstsq": lambda o: tl.linalg.lstsq(o.m, o.m[:, :2]),
    "qr": lambda o: tl.linalg.qr(o.m),
    "eig": lambda o: tl.linalg.eig(o.m),
    "eigvals": lambda o: tl.linalg.eigvals(o.m),
    "eigh": lambda o: tl.linalg.eigh(_spd(o)),
    "eigvalsh": lambda o: tl.linalg.eigvalsh(_spd(o)),
    "svd": lambda o: tl.linalg.svd(o.m),
    "svdvals": lambda o: tl.linalg.svdvals(o.m),
    "cholesky": lambda o: tl.linalg.cholesky(_spd(o)),
    "pinv": lambda o: tl.linalg.pinv(o.m),
    "lu": lambda o: tl.linalg.lu(o.m),
    "lu_factor": lambda o: tl.linalg.lu_factor(o.m),
    "lu_solve": lambda o: tl.linalg.lu_solve(*tl.linalg.lu_factor(o.m), o.m),
    "solve_triangular": lambda o: tl.linalg.solve_triangular(
        o.m.triu(), o.m, upper=True),
    "matrix_norm": lambda o: tl.linalg.matrix_norm(o.m, "nuc"),
    "vector_norm": lambda o: tl.linalg.vector_norm(o.x, 3, dim=1),
    "matrix_rank": lambda o: tl.linalg.matrix_rank(o.m),
    "vecdot": lambda o: tl.linalg.vecdot(o.x, o.y),
}
for _n, _f in LINALG.items():
    case("tl.linalg." + _n, _f)


def test_every_linalg_name_is_swept():
    top = set(dir(tl))
    missing = [n for n in dir(tl.linalg)
               if not n.startswith("_") and callable(getattr(tl.linalg, n))
               and not isinstance(getattr(tl.linalg, n), type)
               and n not in top and "tl.linalg." + n not in _covered()]
    assert not missing, "tensorlib.linalg names not in the sweep: " + \
        " ".join(missing)


# ---- out= that must be resized (the result's allocation happens inside
# the op, after its checks) -------------------------------------------------
def _e(dt=None):
    return tl.empty(0, dtype=dt) if dt is not None else tl.empty(0)


_I64 = tl.int64
OUT_RESIZED = {
    "sum": lambda o: tl.sum(o.x, 1, out=_e()),
    "mean": lambda o: tl.mean(o.x, 1, out=_e()),
    "prod": lambda o: tl.prod(o.x, 1, out=_e()),
    "amax": lambda o: tl.amax(o.x, 1, out=_e()),
    "argmax": lambda o: tl.argmax(o.x, 1, out=_e(_I64)),
    "std": lambda o: tl.std(o.x, 1, out=_e()),
    "var": lambda o: tl.var(o.x, 1, out=_e()),
    "logsumexp": lambda o: tl.logsumexp(o.x, 1, out=_e()),
    "nansum": lambda o: tl.nansum(o.x, 1, out=_e()),
    "cumsum": lambda o: tl.cumsum(o.x, 1, out=_e()),
    "max(dim)": lambda o: tl.max(o.x, 1, out=(_e(), _e(_I64))),
    "sort": lambda o: tl.sort(o.x, 1, out=(_e(), _e(_I64))),
    "topk": lambda o: tl.topk(o.x, 2, out=(_e(), _e(_I64))),
    "kthvalue": lambda o: tl.kthvalue(o.x, 2, 1, out=(_e(), _e(_I64))),
    "median": lambda o: tl.median(o.x, 1, out=(_e(), _e(_I64))),
    "mode": lambda o: tl.mode(o.x, 1, out=(_e(), _e(_I64))),
    "cummax": lambda o: tl.cummax(o.x, 1, out=(_e(), _e(_I64))),
    "quantile": lambda o: tl.quantile(o.x, 0.5, 1, out=_e()),
    "searchsorted": lambda o: tl.searchsorted(o.s, o.x, out=_e(_I64)),
    "bucketize": lambda o: tl.bucketize(o.x, o.s, out=_e(_I64)),
    "matmul": lambda o: tl.matmul(o.x, o.y.t(), out=_e()),
    "mv": lambda o: tl.mv(o.x, o.v, out=_e()),
    "bmm": lambda o: tl.bmm(o.b3, o.b3, out=_e()),
    "cat": lambda o: tl.cat([o.x, o.y], out=_e()),
    "stack": lambda o: tl.stack([o.x, o.y], out=_e()),
    "index_select": lambda o: tl.index_select(o.x, 0, o.idx, out=_e()),
    "gather": lambda o: tl.gather(o.x, 1, o.i[:, :2] % 4, out=_e()),
    "where": lambda o: tl.where(o.mask, o.x, o.y, out=_e()),
    "clamp": lambda o: tl.clamp(o.x, 0.2, 0.5, out=_e()),
    "add": lambda o: tl.add(o.x, o.y, out=_e()),
    "exp": lambda o: tl.exp(o.x, out=_e()),
    "eq": lambda o: tl.eq(o.x, o.y, out=_e(tl.bool)),
    "linalg.inv": lambda o: tl.linalg.inv(o.m, out=_e(tl.float64)),
    "linalg.norm": lambda o: tl.linalg.norm(o.x, dim=1, out=_e()),
    "diff": lambda o: tl.diff(o.x, dim=1, out=_e()),
    "aminmax": lambda o: tl.aminmax(o.x, dim=1, out=(_e(), _e())),
}
for _n, _f in OUT_RESIZED.items():
    case("tl.%s(out= resized)" % _n, _f)


# Cases where code outside tensorlib catches the MemoryError and succeeds
# another way.
ABSORBS = {
    "np.asarray": "NumPy ignores a failing __array_interface__/buffer "
                  "export and falls back to __array__",
}

# Public names the sweep does not call, each with its reason.
NOT_SWEPT = {
    # pure metadata / no tensorlib allocation
    "can_cast": "dtype table lookup, allocates nothing of tensorlib's",
    "promote_types": "dtype table lookup", "result_type": "dtype lookup",
    "get_num_threads": "reads an int", "set_num_threads": "sets an int",
    "initial_seed": "reads an int", "seed": "sets the global seed",
    "manual_seed": "sets the global seed (swept through Generator)",
    "set_rng_state": "round trip of get_rng_state's bytes",
    "set_printoptions": "sets Python options",
    "reset_peak_memory_stats": "resets counters",
    "may_share_memory": "compares extents", "shares_memory": "extents",
    "save": "swept by 'save/load *'", "load": "swept by 'save/load *'",
    "Tensor.dim": "int", "Tensor.ndim": "int", "Tensor.ndimension": "int",
    "Tensor.numel": "int", "Tensor.nelement": "int", "Tensor.nbytes": "int",
    "Tensor.itemsize": "int", "Tensor.element_size": "int",
    "Tensor.data_ptr": "int", "Tensor.storage_offset": "int",
    "Tensor.dtype": "a singleton", "Tensor.is_contiguous": "bool",
    "Tensor.is_cpu": "bool", "Tensor.is_cuda": "bool",
    "Tensor.is_pinned": "bool", "Tensor.is_readonly": "bool",
    "Tensor.memory_kind": "an enum", "Tensor.record_stream": "CUDA only",
    "Tensor.cuda": "CUDA only (tests/test_cuda.py)",
    "Tensor.T": "swept as 'Tensor.T'",
    "Tensor.to": "swept as 'Tensor.to(dtype)'",
    "Tensor.where": "swept", "tl.workspace": "swept",
    "tl.where": "swept",
}


def _covered():
    names = set()
    for name, _ in CASES:
        base = name.split("(")[0]
        names.add(base)
    return names


def test_every_public_name_is_swept():
    covered = _covered()
    missing = []
    for n in dir(tl):
        obj = getattr(tl, n)
        if n.startswith("_") or isinstance(obj, type) or not callable(obj):
            continue
        if "tl." + n not in covered and n not in NOT_SWEPT:
            missing.append("tl." + n)
    for n in dir(tl.Tensor):
        if n.startswith("_"):
            continue
        if "Tensor." + n not in covered and "Tensor." + n not in NOT_SWEPT:
            missing.append("Tensor." + n)
    assert not missing, "not in the fault sweep's table: " + " ".join(
        missing)


def _state(ops):
    ts = ops.tensors()
    st = tl.memory_stats()
    return (
        [sys.getrefcount(t) for t in ts],
        [T.impl_refcount(t) for t in ts],
        [T.storage_refcount(t) for t in ts],
        [t._version for t in ts],
        [(tuple(t.shape), t.stride(), t.storage_offset()) for t in ts],
        st["active_bytes"], st["alloc_count"] - st["free_count"],
    )


def _values(ops):
    return [t.tobytes() for t in ops.tensors()]


def _fresh(old):
    ops = Ops()
    for k in old._used:
        getattr(ops, k)
    return ops


def sweep(fn, limit=400, absorbs=False):
    """Runs fn(ops) with the n-th allocation failing, n = 0, 1, ...
    Returns: the number of allocations of the successful call."""
    ops = Ops()
    fn(ops)                       # learns the operands it touches
    ops = Ops()
    fn(ops)                       # warm lazily made caches and objects
    ops = _fresh(ops)
    vals = _values(ops)
    for n in range(limit):
        before = _state(ops)
        T.fail_allocation(n)
        try:
            r = fn(ops)
        except MemoryError:
            fired = T.allocation_state()[1]
            T.fail_allocation(-1)
            assert fired, "MemoryError with no injected failure (n=%d)" % n
        except BaseException as e:
            T.fail_allocation(-1)
            raise AssertionError("n=%d: the injected failure raised %r, "
                                 "not MemoryError" % (n, e))
        else:
            count, fired = T.allocation_state()
            T.fail_allocation(-1)
            del r
            if not fired:
                return count
            # absorbed: the call succeeded anyway.  Only where a caller
            # outside tensorlib swallows the error (ABSORBS); operands may
            # have changed (in-place): start again from fresh ones.
            assert absorbs, ("n=%d: the injected failure was swallowed "
                             "(the call succeeded)" % n)
            ops = _fresh(ops)
            vals = _values(ops)
            continue
        after = _state(ops)
        assert after == before, "n=%d: state changed\n%s\n%s" % (
            n, before, after)
        assert _values(ops) == vals, "n=%d: operand values changed" % n
    raise AssertionError("no success after %d allocations" % limit)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_fault_sweep(name, fn):
    # No cyclic collection during the sweep (it would free earlier cases'
    # garbage and move the allocator's counters); no gc.collect() either:
    # a full collection costs more than the whole sweep of most cases.
    enabled = gc.isenabled()
    gc.disable()
    try:
        sweep(fn, absorbs=name in ABSORBS)
    finally:
        T.fail_allocation(-1)
        if enabled:
            gc.enable()
