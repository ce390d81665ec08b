"""Argument refusals of the Python layer (csrc/python/*.c), issue 23.

Part 1 is a generated sweep.  TABLE holds, for every public function and
Tensor method it covers, one good call.  From it the sweep makes bad
variants: each argument in turn replaced by a value of a wrong kind
(WRONG_KINDS: None, a str, a float, a bool, an object(), a list, 2**70,
a negative int, a tensor of another dtype, a 0-d tensor), an unknown
keyword, a keyword that repeats a positional, one positional too many and
one required positional left out.  Each variant runs through PyTorch too
(where PyTorch has the name):

- PyTorch raises: ours raises an exception of the same class.  PyTorch's
  RuntimeError is its catch-all; there DESIGN.md's classes ("Errors":
  ShapeError/ValueError for bad values, TypeError for bad types,
  IndexError, OverflowError) stand in for it.  Other differences are
  deliberate and listed in EXCEPTIONS with the reason.
- PyTorch accepts: we accept too, or the variant is listed in DIFFERS
  with the reason, and the test checks that the entry is still current.

Every refusal: the message is not empty and names the function, one of its
parameters or the offending type; no SystemError; the tensor operands keep
their values and _version; and repeating the call does not grow the
operands' reference counts.  A new public name joins by one TABLE row.

Part 2 holds hand-written cases for refusal paths the sweep cannot reach
(objects that fail half way, private helpers, protocol slots).
"""
import fnmatch
import inspect
import sys
import warnings

import numpy as np
import pytest

import tensorlib as tl

try:
    import torch
except ImportError:   # the autouse fixture below skips (or fails in CI)
    torch = None


@pytest.fixture(autouse=True)
def _needs_torch(torch):
    """Every test compares with PyTorch: conftest's torch fixture skips
    without it, or fails where CI requires it."""

# ---- operand specs -------------------------------------------------------------------


class T:
    """A tensor operand built the same way in both libraries."""

    def __init__(self, dtype="float32", shape=(2, 3), values=None):
        self.dtype, self.shape, self.values = dtype, tuple(shape), values

    def array(self):
        if self.values is not None:
            return np.array(self.values, dtype=self.dtype).reshape(self.shape)
        n = int(np.prod(self.shape, dtype=np.int64))
        a = (np.arange(n) % 3).astype(self.dtype)
        return a.reshape(self.shape)

    def make(self, lib):
        return lib.from_numpy(self.array().copy())

    def __repr__(self):
        return f"T({self.dtype},{self.shape})"


class D:
    """A dtype operand: lib.<name>."""

    def __init__(self, name):
        self.name = name

    def make(self, lib):
        return getattr(lib, self.name)

    def __repr__(self):
        return self.name


class Lit:
    """Any other operand, made per library by a callable."""

    def __init__(self, fn, label):
        self.fn, self.label = fn, label

    def make(self, lib):
        return self.fn(lib)

    def __repr__(self):
        return self.label


def build(x, lib):
    if isinstance(x, (T, D, Lit)):
        return x.make(lib)
    if isinstance(x, tuple):
        return tuple(build(v, lib) for v in x)
    if isinstance(x, list):
        return [build(v, lib) for v in x]
    return x


def _wrong_dtype(x):
    if isinstance(x, T):
        kind = np.dtype(x.dtype).kind
        return T("float32" if kind in "biu" else "int64", x.shape)
    return T("complex64", (2, 3))


def _zero_d(x):
    return T(x.dtype if isinstance(x, T) else "float32", ())


class _BadBool:
    """An object whose truth value raises."""

    def __bool__(self):
        raise ZeroDivisionError("bool() of _BadBool")


# The wrong kinds an argument is replaced by, as (label, make(original)).
WRONG_KINDS = [
    ("badbool", lambda x: Lit(lambda lib: _BadBool(), "_BadBool()")),
    ("None", lambda x: None),
    ("str", lambda x: "x"),
    ("float", lambda x: 1.5),
    ("bool", lambda x: True),
    ("object", lambda x: Lit(lambda lib: object(), "object()")),
    ("list", lambda x: [1, "a"]),
    ("huge", lambda x: 2 ** 70),
    ("neg", lambda x: -7),
    ("dtype", _wrong_dtype),
    ("0d", _zero_d),
]

# ---- the table -----------------------------------------------------------------------


class E:
    """One good call: tensorlib.<name>(*args, **kwargs) (kind "fn") or
    args[0].<name>(*args[1:], **kwargs) (kind "meth").  torch=False: no
    PyTorch counterpart (only our own invariants are checked)."""

    def __init__(self, name, args, kwargs=None, kind="fn", torch=True,
                 skip=(), varargs=False):
        self.name, self.args, self.kwargs = name, tuple(args), kwargs or {}
        self.varargs = varargs
        self.kind, self.torch, self.skip = kind, torch, set(skip)

    @property
    def id(self):
        return ("T." if self.kind == "meth" else "") + self.name


def F(name, *args, **kwargs):
    return E(name, args, kwargs)


def M(name, *args, **kwargs):
    return E(name, args, kwargs, kind="meth")


f32 = T("float32")
f32v = T("float32", (6,))
f32sq = T("float32", (3, 3))
i64 = T("int64")
i64v = T("int64", (6,))
idx = T("int64", (2, 3), [0, 1, 0, 1, 1, 0])
idx1 = T("int64", (2,), [0, 1])
bmask = T("bool", (2, 3), [1, 0, 1, 0, 0, 1])
sorted_v = T("float32", (4,), [0, 1, 2, 3])

def _plan_with_a(m):
    p = tl.ExecutionPlan()
    p.add_buffer("a", (8,), dtype=tl.float32)
    return p


TABLE = [
    # ops.c: binary/unary functions and methods, custom rows
    F("add", f32, f32), F("add", f32, f32, alpha=2), F("sub", f32, 1.0),
    F("mul", f32, f32, out=f32), F("pow", f32, 2.0),
    F("div", f32, f32, rounding_mode="floor"),
    F("div", f32, f32, rounding_mode="trunc", out=f32),
    F("round", f32, decimals=1), F("round", f32, out=f32),
    F("neg", f32), F("abs", f32, out=f32), F("exp", f32),
    F("atan2", f32, f32), F("bitwise_and", i64, i64),
    F("where", bmask, f32, f32), F("where", bmask, f32, f32, out=f32),
    F("clamp", f32, 0.0, 1.0), F("clamp", f32, min=f32, out=f32),
    F("clip", f32, max=1.0), F("clone", f32),
    F("clone", f32, memory_format=Lit(lambda m: m.contiguous_format, "cf")),
    F("promote_types", D("int32"), D("float32")),
    F("can_cast", D("int32"), D("float32")),
    F("result_type", f32, i64),
    M("add", f32, f32), M("add_", f32, f32, alpha=2), M("sub_", f32, 1.0),
    M("div", f32, f32, rounding_mode="floor"),
    M("div_", f32, 2.0, rounding_mode="trunc"),
    M("round", f32, decimals=2), M("round_", f32, decimals=1),
    M("neg_", f32), M("exp_", f32),
    M("where", f32, bmask, f32), M("clamp", f32, 0.0, 1.0),
    M("clamp_", f32, min=0.0), M("copy_", f32, f32),
    M("fill_", f32, 1.0), M("contiguous", f32),
    M("clone", f32, memory_format=Lit(lambda m: m.preserve_format, "pf")),
    M("to", f32, D("float64")), M("to", f32, "cpu", dtype=D("int32")),
    M("to", f32, dtype=D("float64"), copy=True),
    M("to", f32, f32), M("float", i64), M("long", f32),
    M("to", f32, D("float64"), non_blocking=False),
    # sortscan.c
    F("cumsum", f32, 1), F("cumsum", f32, dim=0, dtype=D("float64")),
    F("cumprod", f32, 1), F("logcumsumexp", f32, 0),
    F("cummax", f32, 1), F("cummin", f32, dim=0),
    F("diff", f32v), F("diff", f32, n=1, dim=0),
    F("softmax", f32, 1), F("log_softmax", f32, 0, dtype=D("float64")),
    F("sort", f32), F("sort", f32, dim=0, descending=True, stable=True),
    F("argsort", f32, 1), F("msort", f32),
    F("topk", f32, 2), F("topk", f32, 2, dim=0, largest=False, sorted=True),
    F("kthvalue", f32, 1), F("kthvalue", f32, 1, 0, True),
    F("median", f32), F("median", f32, 1), F("nanmedian", f32, 0),
    F("mode", f32, 1),
    F("quantile", f32, 0.5), F("quantile", f32, 0.5, dim=1,
                                interpolation="lower"),
    F("nanquantile", f32, 0.25, 0),
    F("unique", f32), F("unique", f32, sorted=True, return_inverse=True,
                        return_counts=True),
    F("unique_consecutive", f32, return_counts=True, dim=0),
    F("searchsorted", sorted_v, f32), F("searchsorted", sorted_v, f32,
                                        right=True, out_int32=True),
    F("bucketize", f32, sorted_v), F("isin", f32, f32v),
    F("nonzero", f32), F("nonzero", f32, as_tuple=True), F("argwhere", f32),
    F("count_nonzero", f32, 1),
    F("sort", f32, 1, out=(f32, i64)),
    F("topk", f32, 2, out=(T("float32", (2, 2)), T("int64", (2, 2)))),
    F("cummax", f32, 1, out=(f32, i64)),
    F("kthvalue", f32, 1, 1, out=(T("float32", (2,)), T("int64", (2,)))),
    F("nonzero", T("float32", (), [1.0]), as_tuple=True),
    F("cumsum", f32, 1, out=f32),
    M("cumsum", f32, 0), M("cumsum_", f32, 1), M("cumprod_", f32, 0),
    M("logcumsumexp", f32, 1), M("cummax", f32, 0), M("diff", f32),
    M("softmax", f32, 1), M("log_softmax", f32, 0),
    M("sort", f32, 1), M("argsort", f32, descending=True), M("msort", f32),
    M("topk", f32, 1), M("kthvalue", f32, 2), M("median", f32, 0),
    M("mode", f32), M("quantile", f32, 0.5), M("unique", f32),
    M("unique_consecutive", f32), M("nonzero", f32), M("argwhere", f32),
    M("count_nonzero", f32),
    # reduce_ops.c
    F("sum", f32), F("sum", f32, 1, keepdim=True, dtype=D("float64")),
    F("sum", f32, (0, 1)), F("prod", f32, 1), F("mean", f32, dim=0),
    F("amax", f32, 1), F("amin", f32, (0,)), F("max", f32), F("max", f32, 1),
    F("max", f32, f32), F("min", f32, 0, True), F("argmax", f32, 1),
    F("argmin", f32), F("any", f32, 1), F("all", f32),
    F("var", f32, 1), F("std", f32, dim=0, correction=0, keepdim=True),
    F("nansum", f32, 1), F("nanmean", f32),
    M("sum", f32, 1), M("prod", f32), M("mean", f32, (1,)),
    M("amax", f32, 0), M("max", f32, 1), M("min", f32), M("argmax", f32, 0),
    M("any", f32), M("all", f32, 0), M("var", f32, 0), M("std", f32),
    # views.c
    F("reshape", f32, (3, 2)), F("transpose", f32, 0, 1),
    F("swapaxes", f32, 0, 1), F("swapdims", f32, 1, 0),
    F("permute", f32, (1, 0)), F("movedim", f32, 0, 1),
    F("moveaxis", f32, 1, 0), F("squeeze", f32), F("squeeze", f32, 0),
    F("unsqueeze", f32, 1), F("flatten", f32), F("flatten", f32, 0, 1),
    F("unflatten", f32v, 0, (2, 3)), F("narrow", f32, 1, 0, 2),
    F("select", f32, 1, 2), F("diagonal", f32, 0, 0, 1), F("flip", f32, (0,)),
    F("split", f32v, 2), F("split", f32v, [2, 4]), F("chunk", f32v, 2),
    F("unbind", f32, 1), F("broadcast_to", f32v, (2, 6)),
    F("broadcast_shapes", (2, 1), (1, 3)),
    F("broadcast_tensors", f32, f32v.__class__("float32", (3,))),
    M("view", f32, 3, 2), M("view", f32, (6,)),
    M("reshape", f32, 3, 2), M("transpose", f32, 0, 1), M("t", f32),
    M("permute", f32, 1, 0), M("movedim", f32, 0, 1),
    M("expand", T("float32", (1, 3)), 2, 3),
    M("expand", T("float32", (1, 3)), (4, 3)),
    M("expand_as", T("float32", (1, 3)), f32),
    M("broadcast_to", f32v, (2, 6)), M("squeeze", f32, 0),
    M("unsqueeze", f32, 0), M("flatten", f32), M("unflatten", f32v, 0,
                                                     (3, 2)),
    M("narrow", f32, 0, 0, 1), M("select", f32, 0, 1),
    M("unfold", f32v, 0, 2, 1), M("diagonal", f32, offset=1),
    M("flip", f32, 0), M("split", f32, 1, 1), M("chunk", f32, 3, 1),
    M("unbind", f32), M("detach", f32),
    # joinindex.c
    F("cat", [f32, f32]), F("cat", (f32, f32), dim=1), F("concat", [f32], 0),
    F("concatenate", [f32, f32], axis=0), F("stack", [f32, f32], 1),
    F("cat", [f32, f32], out=T("float32", (4, 3))),
    F("gather", f32, 1, idx), F("index_select", f32, 1, idx1),
    F("scatter", f32, 1, idx, f32), F("scatter", f32, 1, idx, 2.0),
    F("scatter_add", f32, 0, idx, f32),
    F("scatter_reduce", f32, 1, idx, f32, "sum"),
    F("scatter_reduce", f32, 1, idx, f32, "amax", include_self=False),
    F("index_add", f32, 1, idx1, T("float32", (2, 2))),
    F("index_copy", f32, 0, idx1, f32),
    F("index_fill", f32, 1, idx1, 1.0),
    F("linspace", 0, 1, 5), F("linspace", 0.0, 1.0, steps=4,
                              dtype=D("float64")),
    F("logspace", 0, 1, 5, base=2.0), F("complex", f32, f32),
    F("polar", f32, f32), F("empty_strided", (2, 3), (3, 1)),
    F("complex", f32, f32, out=T("complex64", (2, 3))),
    F("polar", f32, f32, out=T("complex64", (2, 3))),
    F("empty_strided", (2, 3), (3, 1), dtype=D("float64"), device="cpu"),
    F("linspace", 0.0, 1.0, 3, out=T("float32", (3,))),
    F("linspace", 0, 1, 4, dtype=D("float32"), device="cpu"),
    F("logspace", 0.0, 1.0, 3, 10.0, out=T("float32", (3,))),
    F("scatter", f32, 1, idx, src=f32), F("scatter", f32, 1, idx, value=2.0),
    F("index_add", f32, 1, idx1, T("float32", (2, 2)), alpha=2.0),
    F("stack", (f32, f32), axis=1), F("cat", [f32, f32], dim=0,
                                      out=T("float32", (4, 3))),
    M("gather", f32, 1, idx), M("index_select", f32, 0, idx1),
    M("scatter", f32, 1, idx, f32), M("scatter_", f32, 1, idx, 1.0),
    M("scatter_add_", f32, 0, idx, f32),
    M("scatter_reduce_", f32, 1, idx, f32, "prod"),
    M("index_add_", f32, 0, idx1, f32, alpha=2),
    M("index_copy_", f32, 0, idx1, f32), M("index_fill_", f32, 1, idx1, 0),
    M("masked_fill", f32, bmask, 1.0), M("masked_fill_", f32, bmask, 0.0),
    M("masked_select", f32, bmask), M("masked_scatter", f32, bmask, f32),
    M("take", f32, idx1), M("put_", f32, idx1, T("float32", (2,))),
    M("index_put_", f32, (idx1,), T("float32", (3,))),
    M("tril", f32), M("triu_", f32, 1),
    # creation.c
    F("empty", 2, 3), F("zeros", (2, 3)), F("ones", 2, dtype=D("int32")),
    F("full", (2,), 3.0), F("full", (2, 2), 1, dtype=D("int64")),
    F("arange", 5), F("arange", 0, 5, 2), F("arange", 0.0, 1.0, 0.25,
                                          dtype=D("float64")),
    F("tensor", [1, 2, 3]), F("tensor", [[1.0]], dtype=D("float64")),
    F("empty_like", f32), F("zeros_like", f32, dtype=D("int32")),
    F("ones_like", f32), F("full_like", f32, 2.0), F("eye", 3),
    F("eye", 2, 3, dtype=D("int32")),
    # random.c
    F("rand", 2, 3), F("randn", (3,)), F("randint", 0, 5, (3,)),
    F("randint", 5, (2,)), F("rand_like", f32), F("randn_like", f32),
    F("randint_like", f32, 4), F("randperm", 5),
    F("normal", f32, f32), F("bernoulli", T("float32", (3,), [0, .5, 1])),
    F("multinomial", T("float32", (3,), [1, 2, 3]), 2),
    F("poisson", f32), F("manual_seed", 3),
    M("uniform_", f32, 0.0, 1.0), M("normal_", f32, 0.0, 2.0),
    M("random_", i64, 0, 5), M("exponential_", f32),
    M("geometric_", f32, 0.5), M("log_normal_", f32),
    M("cauchy_", f32), M("bernoulli_", f32, 0.5),
    M("bernoulli", T("float32", (3,), [0, .5, 1])),
    M("multinomial", T("float32", (3,), [1, 2, 3]), 2, True),
    # tensor_type.c, interop.c, numpy_bridge.c, memory.c
    M("size", f32), M("size", f32, 1), M("stride", f32, 0),
    M("is_contiguous", f32),
    M("is_contiguous",
      f32, memory_format=Lit(lambda m: m.contiguous_format, "cf")),
    M("as_strided", f32, (2, 2), (1, 1)),
    M("as_strided", f32, (2,), (1,), 1),
    M("item", T("float32", (1,))), M("tolist", f32), M("dim", f32),
    M("numel", f32), M("element_size", f32), M("data_ptr", f32),
    M("storage_offset", f32), M("numpy", f32), M("numpy", f32, force=True),
    M("__array__", f32), M("__array__", f32, Lit(lambda m: np.float64,
                                                 "np.float64")),
    M("__dlpack__", f32), M("__dlpack_device__", f32),
    M("__dlpack__", f32, stream=None, max_version=(1, 0), dl_device=(1, 0),
      copy=False),
    M("__dlpack__", f32, max_version=(0, 8), copy=True),
    E("tobytes", (f32,), kind="meth", torch=False),
    F("frombuffer", Lit(lambda m: bytearray(12), "bytearray(12)"),
      dtype=D("float32")),
    F("frombuffer", Lit(lambda m: bytearray(12), "bytearray(12)"),
      dtype=D("int16"), count=2, offset=2),
    F("from_numpy", Lit(lambda m: np.zeros(3, np.float32), "np.zeros(3)")),
    F("from_dlpack", Lit(lambda m: np.zeros(3, np.float32), "np.zeros(3)")),
    # (PyTorch's pin_memory needs an accelerator.)
    E("pin_memory", (f32,), kind="meth", torch=False), M("is_pinned", f32),
    F("set_num_threads", Lit(lambda m: m.get_num_threads(), "nthreads")),
    # memory.c: module functions, WorkspaceArena and ExecutionPlan methods
    F("_C.memory_stats", "cpu", kind=Lit(lambda m: tl.MemoryKind.Default,
                                         "MemoryKind.Default")),
    F("_C.memory_stats", device="cpu", kind="workspace"),
    F("_C.empty_cache", "cpu"), F("_C.reset_peak_memory_stats", "cpu"),
    F("_C.workspace", 4096, growable=False),
    F("_C._allocator_for", "cpu", kind="default"),
    F("_C._allocator_name", device="cpu"),
    F("_C._set_allocator", "default",
      Lit(lambda m: tl._C._allocator_name("cpu"), "current"), device="cpu"),
    F("_C._block_generation", f32),
    F("_C._memory_stress", threads=1, iters=4, max_bytes=64, live=2, seed=3,
      workspace=False),
    F("_C._workspace_depth"), F("_C._current_workspace_generation"),
    F("_C._allocators"), F("_C._pinned_info"),
    M("empty", Lit(lambda m: tl.workspace(4096), "ws"), 2, 3,
      dtype=D("float32")),
    M("zeros", Lit(lambda m: tl.workspace(4096), "ws"), (4,),
      alignment=128),
    M("add_buffer", Lit(lambda m: tl.ExecutionPlan(), "plan"), "a", (2, 3),
      dtype=D("float32"), device="cpu", memory_kind="default",
      alignment=64),
    M("add_view_buffer", Lit(_plan_with_a, "plan+a"), "v", "a", (3,),
      stride=(2,), offset=1),
    # types.c
    F("device", "cpu"), F("device", "cpu", 0), F("device", type="cpu"),
    F("Size", (2, 3)),
    # linalg.c
    F("matmul", f32, T("float32", (3, 2))),
    F("matmul", f32, T("float32", (3, 2)), out=T("float32", (2, 2))),
    M("matmul", f32, T("float32", (3,))),
]

# Ours only: the invariants, no PyTorch comparison.
for _e in TABLE:
    assert "torch" not in _e.kwargs
    if _e.name.startswith("_C.") or _e.name in (
            "add_buffer", "add_view_buffer") or (
            _e.kind == "meth" and isinstance(_e.args[0], Lit)):
        _e.torch = False
# Sizes or dims given as *args take any number of positionals.
for _e in TABLE:
    if _e.name in ("view", "reshape", "expand", "permute", "flip", "empty",
                   "zeros", "ones", "rand", "randn", "broadcast_shapes",
                   "broadcast_tensors", "tile", "repeat"):
        _e.varargs = True


def _mark(name, kind="fn", **kw):
    for e in TABLE:
        if e.name == name and e.kind == kind:
            for k, v in kw.items():
                setattr(e, k, v)


# ---- variants ------------------------------------------------------------------------


def _entry_callable(entry):
    if entry.kind == "fn":
        return _resolve(tl, entry.name)
    owner = entry.args[0]
    owner = type(build(owner, tl)) if isinstance(owner, Lit) else tl.Tensor
    return getattr(owner, entry.name, None)


def _params(entry):
    """Our positional parameters as (name, positional-only), self left
    out (None where we cannot read the signature)."""
    f = _entry_callable(entry)
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    ps = [p for p in sig.parameters.values()
          if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if entry.kind == "meth" and ps and ps[0].name in ("self", "$self"):
        ps = ps[1:]
    return [(p.name, p.kind is p.POSITIONAL_ONLY) for p in ps]


def _param_names(entry):
    f = _entry_callable(entry)
    try:
        return list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return []


def variants(entry):
    first = 1 if entry.kind == "meth" else 0
    args, kw = entry.args, entry.kwargs
    out = [("good", args, kw)]
    for i in range(first, len(args)):
        for label, mk in WRONG_KINDS:
            a = list(args)
            a[i] = mk(args[i])
            out.append((f"arg{i - first}={label}", tuple(a), kw))
    for k in kw:
        for label, mk in WRONG_KINDS:
            k2 = dict(kw)
            k2[k] = mk(kw[k])
            out.append((f"{k}={label}", args, k2))
    out.append(("unknown-kw", args, dict(kw, no_such_kw=1)))
    ps = _params(entry)
    npos = len(args) - first
    if ps and npos and npos <= len(ps) and not ps[npos - 1][1]:
        out.append(("dup-kw", args, dict(kw, **{ps[npos - 1][0]:
                                                 args[-1]})))
    if ps is not None and not entry.varargs:
        out.append(("extra-pos", args + (1,) * (len(ps) + 1 - npos), kw))
    if npos:
        out.append(("missing", args[:-1], kw))
    return out




def _case_id(c):
    e, v = c
    return f"{e.id}{list(e.kwargs)}:{v[0]}" if e.kwargs else f"{e.id}:{v[0]}"


# ---- running a call ------------------------------------------------------------------


def _resolve(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _call(lib, entry, args, kw):
    if entry.kind == "fn":
        return _resolve(lib, entry.name)(*args, **kw)
    return getattr(args[0], entry.name)(*args[1:], **kw)


def _run(lib, entry, a, kw):
    """(outcome, exception or None, built args, built kwargs)."""
    args = build(a, lib)
    kwargs = {k: build(v, lib) for k, v in kw.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _call(lib, entry, args, kwargs)
        except Exception as e:  # noqa: BLE001 - the outcome is the test
            return "raise", e, args, kwargs
    return "ok", None, args, kwargs


# The class families PyTorch's exceptions are compared by.
FAMILIES = (OverflowError, IndexError, TypeError, ValueError,
            NotImplementedError, RuntimeError)


def _family(exc_type):
    for f in FAMILIES:
        if issubclass(exc_type, f):
            return f
    return exc_type


def _tensors(args, kwargs):
    def walk(x):
        if isinstance(x, tl.Tensor):
            yield x
        elif isinstance(x, (list, tuple)):
            for y in x:
                yield from walk(y)
    yield from walk(list(args) + list(kwargs.values()))


def _snapshot(args, kwargs):
    return [(t, t._version, np.array(t.numpy(force=True), copy=True)
             if t.numel() else None) for t in _tensors(args, kwargs)]


def _check_unchanged(snap):
    for t, ver, vals in snap:
        assert t._version == ver, "a refused call bumped an operand's _version"
        if vals is not None:
            np.testing.assert_array_equal(t.numpy(force=True), vals,
                                          err_msg="a refused call wrote")


# Names whose messages name the function they are an alias of.
ALIASES = {"clip": ("clamp",), "concat": ("cat",), "concatenate": ("cat",),
           "swapaxes": ("transpose",), "swapdims": ("transpose",),
           "moveaxis": ("movedim",), "divide": ("div",),
           "multiply": ("mul",), "subtract": ("sub",)}
# Refusals whose message is NumPy's own (np.dtype() of the argument).
NUMPY_MESSAGES = ["T.__array__:arg0=*"]


def _names_something(entry, exc, kw, cid):
    if any(fnmatch.fnmatchcase(cid, g) for g in NUMPY_MESSAGES):
        return True
    msg = str(exc)
    if not msg:
        return False
    words = {entry.name, entry.name.rstrip("_")} | set(kw)
    words |= set(_param_names(entry))
    words |= {w.replace("_", " ") for w in words}
    words |= set(ALIASES.get(entry.name, ()))
    words |= {"Tensor", "tensor", "dtype", "dim", "int", "float", "str",
              "bool", "NoneType", "object", "list", "size", "shape",
              "index", "argument", "device", "memory_format", "range"}
    return any(w and w in msg for w in words)


# ---- EXCEPTIONS and DIFFERS ----------------------------------------------------------

# Where PyTorch raises a class other than ours on purpose: (case id glob,
# PyTorch's family, ours, reason).
_INT_IS_SIZE = ("an int where a size or dim list is wanted is a 1-element "
                "list (NumPy's habit, and PyTorch's for most ops); the value "
                "then fails the shape or dim check")
_BOOL_IS_INT = ("a bool is an int (operator.index), as in NumPy; the size "
                "or dim 1 it stands for then fails the shape or dim check")
EXCEPTIONS = [
    ("*=huge", ValueError, OverflowError,
     "DESIGN.md: an int that does not fit int64 raises OverflowError; "
     "PyTorch's argument parser raises ValueError('Overflow when "
     "unpacking long')"),
    ("*=huge", TypeError, OverflowError,
     "DESIGN.md: an int that does not fit int64 raises OverflowError; "
     "PyTorch's overload resolution reports it as no matching overload"),
    ("*=bool", TypeError, ValueError, _BOOL_IS_INT),
    ("*=bool", TypeError, IndexError, _BOOL_IS_INT),
    ("*=neg", TypeError, ValueError, _INT_IS_SIZE),
    ("*=neg", TypeError, IndexError, _INT_IS_SIZE),
    ("*:missing", TypeError, ValueError,
     "sizes are *args: none given is the empty shape, which then fails the "
     "shape check (randint(0, 5): size 5 read as the size of randint(0))"),
    ("*=dtype", NotImplementedError, TypeError,
     "DESIGN.md: an unsupported dtype raises TypeError"),
    ("bitwise_and:*=float", NotImplementedError, TypeError,
     "DESIGN.md: an unsupported dtype raises TypeError"),
    ("*=dtype", TypeError, ValueError,
     "a tensor where a number is wanted is read with item()/bool(); one of "
     "several elements then fails as ShapeError"),
    ("*=0d", IndexError, ValueError,
     "DESIGN.md: an index/source size mismatch is a ShapeError; PyTorch "
     "raises IndexError"),
    ("*=dtype", IndexError, TypeError,
     "DESIGN.md: an index tensor of a float dtype is a wrong dtype, "
     "TypeError"),
    ("T.to*:arg0=huge", ValueError, TypeError,
     "an int is neither dtype nor device to t.to(); PyTorch reads it as a "
     "CUDA device index first"),
    ("frombuffer*:arg0=*", ValueError, TypeError,
     "an object without the buffer protocol is a wrong type (TypeError, as "
     "memoryview()); PyTorch raises ValueError"),
    ("manual_seed:arg0=*", ValueError, TypeError,
     "a seed that is not an int is a wrong type (DESIGN.md)"),
    ("*:out=huge", OverflowError, TypeError,
     "out= that is not a tensor is a TypeError whatever its value"),
    ("T.__dlpack__*:stream=*", AssertionError, ValueError,
     "an int stream for a CPU tensor is a bad value; PyTorch asserts"),
    ("T.__dlpack__*:max_version=0d", IndexError, TypeError,
     "max_version must be a (major, minor) tuple; PyTorch indexes it"),
    ("*=badbool", TypeError, ZeroDivisionError,
     "a flag is read by truth value: the object's own __bool__ error "
     "propagates (PyTorch's parser refuses a non-bool first)"),
    ("*=badbool", ZeroDivisionError, TypeError,
     "we refuse the wrong type before using it; PyTorch's Python wrapper "
     "(unique, unflatten) calls bool() on it first"),
    ("split:arg0=*", AttributeError, TypeError,
     "PyTorch's torch.split is Python code that calls .split() on its "
     "argument; ours checks the type"),
]

OK = "ok"
_FLAG = ("flags are read by truth value (PyObject_IsTrue) as Python's own "
         "flags are; PyTorch's parser wants a bool")
_SCALAR = ("a Python scalar is accepted as any operand (a wrapped number), "
           "as NumPy does; PyTorch wants a tensor here")
# Where PyTorch accepts a variant we refuse, or refuses one we accept:
# (case id glob, PyTorch's family or OK, ours, reason).  Each row must
# still match a case (test_tables_current).
DIFFERS = [
    ("*=bool", TypeError, OK,
     "a bool is an int (operator.index), as in NumPy; PyTorch's parser "
     "refuses bool for int parameters"),
    ("*=None", TypeError, OK,
     "None for a parameter that has a default means the default (our "
     "parser's convention for every optional parameter)"),
    *[(f"*:{flag}=*", TypeError, OK, _FLAG) for flag in (
        "descending", "stable", "keepdim", "largest", "sorted", "right",
        "out_int32", "return_inverse", "return_counts", "force", "copy",
        "as_tuple", "non_blocking")],
    ("T.multinomial:arg1=*", TypeError, OK, _FLAG),
    ("kthvalue:arg3=*", TypeError, OK, _FLAG),
    ("min:arg2=*", TypeError, OK, _FLAG),
    ("T.index_put_:arg1=*", TypeError, OK, _SCALAR),
    ("pow:arg0=*", TypeError, OK, _SCALAR),
    ("scatter*:src=*", TypeError, OK, _SCALAR),
    ("atan2:arg*=*", TypeError, OK, _SCALAR),
    ("where*:arg[12]=*", TypeError, OK, _SCALAR),
    ("*quantile*=bool", OK, TypeError,
     "q=True is refused: q must be a float, a sequence or a tensor"),
    ("T.to*:arg0=*", OK, TypeError,
     "to()'s positionals are a dtype, a device or a tensor; PyTorch also "
     "takes other overloads' positionals (non_blocking, ...)"),
    ("T.to*:arg0=*", TypeError, OK,
     "to(tensor, dtype=): the tensor's dtype, then dtype= wins"),
    ("*alpha=0d", OK, TypeError,
     "alpha must be a Python number, not a tensor"),
    ("manual_seed:arg0=*", OK, TypeError,
     "a seed must be an int, never silently truncated"),
    ("*sub*:extra-pos", OK, TypeError,
     "PyTorch keeps the deprecated sub(input, alpha, other) overload"),
    ("*sub*:dup-kw", OK, TypeError,
     "PyTorch keeps the deprecated sub(input, alpha, other) overload"),
    ("T.squeeze:extra-pos", OK, TypeError,
     "squeeze(dim) takes one dim or a tuple, not dims as *args"),
    ("*:out=float", OK, TypeError,
     "out= must be a tensor; PyTorch wraps a Python number into one"),
    ("*out*:arg0=0d", OK, ValueError,
     "docs/differences.md: out= is resized only when it has no elements"),
    ("*:out=dtype", OK, TypeError,
     "docs/differences.md: an out= the result cannot be cast to is a "
     "TypeError; PyTorch's cumsum casts float into an int64 out="),
    ("*out*:arg0=dtype", RuntimeError, OK,
     "out= of another dtype receives the result cast (docs/differences.md"
     " 'out= must fit'); PyTorch wants the result dtype here"),
    ("broadcast_shapes:arg*=*", OK, (TypeError, OverflowError),
     "each size must be an int that fits int64"),
    ("logspace*", OK, (ValueError, OverflowError),
     "base must be a positive number"),
    ("isin:arg*=bool", RuntimeError, OK,
     "a Python scalar element is accepted for either operand"),
    ("set_num_threads:arg0=bool", RuntimeError, OK, _BOOL_IS_INT),
    ("frombuffer*:arg0=*", ValueError, OK,
     "a tensor exports the buffer protocol, so it is a buffer"),
    ("normal:arg1=dtype", OK, TypeError, "std must be floating"),
    ("T.__dlpack__*:max_version=list", OK, TypeError,
     "max_version must be a tuple (the DLPack protocol's type)"),
    ("round*:arg0=dtype", NotImplementedError, OK,
     "round(decimals=) of an integer tensor is exact, so it is allowed"),
    ("std*:correction=bool", OK, TypeError,
     "correction=True is refused: the correction is a number of degrees "
     "of freedom"),
    ("std*:correction=huge", OverflowError, OK,
     "correction is a float (NumPy's ddof), so 2**70 is a number"),
    ("sum*dtype*:missing", TypeError, OK,
     "sum(x, keepdim=, dtype=) with no dim reduces every dim"),
    ("*flip:missing", TypeError, OK,
     "flip's dims are *args: none given flips nothing"),
]

_used = set()

def _lookup(table, cid, tf, of):
    for row in table:
        ours = row[2] if isinstance(row[2], tuple) else (row[2],)
        if fnmatch.fnmatchcase(cid, row[0]) and row[1] is tf and of in ours:
            return row
    return None


def check_variant(entry, label, a, kw):
    """Runs one variant; returns a list of problems (empty when fine)."""
    cid = _case_id((entry, (label, a, kw)))
    if entry.torch and hasattr(torch if entry.kind == "fn" else torch.Tensor,
                               entry.name.split(".")[-1]):
        t_out, t_exc, _, _ = _run(torch, entry, a, kw)
    else:
        t_out, t_exc = None, None
    args = build(a, tl)
    kwargs = {k: build(v, tl) for k, v in kw.items()}
    snap = _snapshot(args, kwargs)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _call(tl, entry, args, kwargs)
        ours, exc = "ok", None
    except Exception as e:  # noqa: BLE001
        ours, exc = "raise", e
    if isinstance(exc, SystemError):
        return [f"{cid}: SystemError: {exc}"]
    if label == "good":
        if ours != "ok" or t_out not in (None, "ok"):
            return [f"{cid}: the good call fails: {exc!r} {t_exc!r}"]
        return []
    if label in ("unknown-kw", "dup-kw", "extra-pos") and \
            not isinstance(exc, TypeError):
        return [f"{cid}: {ours} {exc!r}, not TypeError"]
    if t_out is not None:
        tf = OK if t_out == "ok" else _family(type(t_exc))
        of = OK if ours == "ok" else _family(type(exc))
        same = tf is of or (tf is RuntimeError and of in (
            ValueError, TypeError, IndexError, OverflowError))
        if not same:
            table = EXCEPTIONS if OK not in (tf, of) else DIFFERS
            row = _lookup(table, cid, tf, of)
            if row is None:
                return [f"{cid}: PyTorch {t_out} {t_exc!r}, we {ours} "
                        f"{exc!r}"]
            _used.add(row[0])
    if ours == "ok":
        return []
    problems = []
    if not _names_something(entry, exc, kw, cid):
        problems.append(f"{cid}: vague message {exc!r}")
    try:
        _check_unchanged(snap)
    except AssertionError as e:
        problems.append(f"{cid}: {e}")
    # Repeated refusals leave the operands' reference counts as they were
    # (only objects the call alone holds: not shared singletons or
    # interned constants).
    objs = [o for o in list(args) + list(kwargs.values())
            if isinstance(o, (tl.Tensor, list, tuple, bytearray, np.ndarray))
            or type(o) is object]
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(3):
        try:
            _call(tl, entry, args, kwargs)
        except Exception:  # noqa: BLE001
            pass
    if [sys.getrefcount(o) for o in objs] != before:
        problems.append(f"{cid}: reference counts grew")
    return problems


def _entry_id(e):
    return f"{e.id}{list(e.kwargs)}" if e.kwargs else e.id


@pytest.mark.parametrize("entry", TABLE, ids=[_entry_id(e) for e in TABLE])
def test_refusals(entry, restore_globals):
    problems = []
    for label, a, kw in variants(entry):
        if label not in entry.skip:
            problems += check_variant(entry, label, a, kw)
    assert not problems, "\n".join(problems)


@pytest.fixture
def restore_globals():
    """Accepted variants of set_num_threads, manual_seed and
    _set_allocator change process state: put it back."""
    threads, rng = tl.get_num_threads(), tl.get_rng_state()
    t_threads, t_rng = torch.get_num_threads(), torch.get_rng_state()
    alloc = tl._C._allocator_name("cpu")
    yield
    tl.set_num_threads(threads)
    tl.set_rng_state(rng)
    torch.set_num_threads(t_threads)
    torch.set_rng_state(t_rng)
    tl._C._set_allocator("default", alloc)


def test_tables_current(restore_globals):
    """Every EXCEPTIONS and DIFFERS row still matches a case: a row whose
    difference is gone must go too."""
    _used.clear()
    for entry in TABLE:
        for label, a, kw in variants(entry):
            if label not in entry.skip:
                check_variant(entry, label, a, kw)
    stale = [r[0] for r in EXCEPTIONS + DIFFERS if r[0] not in _used]
    assert not stale, stale


# ---- part 2: hand-written cases --------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda m, x: m.div(x, 2, rounding_mode=1),
    lambda m, x: x.div_(2, rounding_mode=1.5),
    lambda m, x: m.quantile(x, 0.5, interpolation=1),
    lambda m, x: m.nanquantile(x, 0.5, interpolation=2.0),
])
def test_wrong_type_of_a_mode_string_is_type_error(call):
    # Regression: a rounding_mode / interpolation that is not a str raised
    # ValueError; a wrong type is a TypeError (DESIGN.md), as PyTorch's.
    x = tl.ones(3)
    with pytest.raises(TypeError, match="rounding_mode|interpolation"):
        call(tl, x)
    with pytest.raises(TypeError):
        call(torch, torch.ones(3))
    assert x._version == 0
    # An unknown name stays a bad value.
    with pytest.raises(ValueError, match="rounding_mode"):
        tl.div(x, 2, rounding_mode="round")
    with pytest.raises(ValueError, match="interpolation"):
        tl.quantile(x, 0.5, interpolation="cubic")


def _lapack_cases():
    C = tl._C
    a = lambda: C._lapack_copy(tl.eye(3, dtype=tl.float64))  # noqa: E731
    b = lambda: C._lapack_copy(tl.ones(3, 1, dtype=tl.float64))  # noqa: E731
    info = lambda: tl.zeros(1, dtype=tl.int64)  # noqa: E731
    piv = lambda: tl.arange(1, 4, dtype=tl.int64)  # noqa: E731
    w = lambda: tl.zeros(3, dtype=tl.float64)  # noqa: E731
    return [
        # (call, exception class)
        (lambda: C._lapack_potrf(a(), info(), _BadBool()), ZeroDivisionError),
        (lambda: C._lapack_syevd(a(), w(), info(), _BadBool()),
         ZeroDivisionError),
        (lambda: C._lapack_syevd(a(), w(), info(), False, _BadBool()),
         ZeroDivisionError),
        (lambda: C._lapack_getrs(a(), piv(), b(), info(), 5), TypeError),
        (lambda: C._lapack_getrs(a(), piv(), b(), info(), ""), TypeError),
        (lambda: C._lapack_gesdd(a(), w(), None, None, info(), b"N"),
         TypeError),
        (lambda: C._lapack_trtrs(a(), b(), info(), _BadBool()),
         ZeroDivisionError),
        (lambda: C._lapack_trtrs(a(), b(), info(), False, 7), TypeError),
        (lambda: C._lapack_trtrs(a(), b(), info(), False, "N", _BadBool()),
         ZeroDivisionError),
        (lambda: C._lapack_gelsd(a(), b(), w(), tl.zeros(1, dtype=tl.int64),
                                 info(), "x"), TypeError),
        (lambda: C._lapack_getrf(a(), piv()), TypeError),
        (lambda: C._lapack_getrf(a(), piv(), "info"), TypeError),
        (lambda: C._lapack_copy(None), TypeError),
        (lambda: C._lapack_copy(a(), "no_such_dtype"), TypeError),
        (lambda: C._linalg_conj(None), TypeError),
        (lambda: C._linalg_conj(), TypeError),
    ]


@pytest.mark.parametrize("i", range(len(_lapack_cases())))
def test_lapack_helpers_refuse_bad_flags(i):
    # Regression: a flag whose __bool__ raised, or a trans/jobz that is not
    # a str, went on to LAPACK ('\0', which xerbla reports on stdout) and
    # the call returned None with the exception set: SystemError.
    call, cls = _lapack_cases()[i]
    with pytest.raises(cls) as ei:
        call()
    assert not isinstance(ei.value, SystemError)


def test_lapack_helpers_still_work():
    C = tl._C
    a = tl.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=tl.float64)
    f = C._lapack_copy(a)
    info = tl.zeros(1, dtype=tl.int64)
    C._lapack_potrf(f, info, False)
    assert info.item() == 0
    x = C._lapack_copy(tl.tensor([[1.0], [2.0]], dtype=tl.float64))
    C._lapack_trtrs(f, x, info, False, "N", False)
    L = np.linalg.cholesky(a.numpy())
    np.testing.assert_allclose(x.numpy().ravel(),
                               np.linalg.solve(L, [1.0, 2.0]))


@pytest.mark.parametrize("expr", [
    lambda t: [[1.0, 2.0]] @ t,
    lambda t: t @ "x",
    lambda t: object() @ t,
])
def test_matmul_operator_with_a_non_tensor(expr):
    t = tl.ones(2, 2)
    with pytest.raises(TypeError):
        expr(t)
    assert t._version == 0


def test_imatmul_refusals():
    t = tl.ones(2, 2)
    u = t
    with pytest.raises(TypeError):
        u @= [[1.0]]
    assert t._version == 0
    v = tl.ones(2, 3)
    with pytest.raises(ValueError):
        v @= tl.ones(3, 4)    # the result's shape is not v's
    assert v._version == 0 and v.tolist() == [[1.0] * 3] * 2


class _Producer:
    """A DLPack producer that reports a chosen device and delegates
    __dlpack__ to a real tensor (legacy: no keywords when old=True)."""

    def __init__(self, dev, old=False, capsule=None):
        self.dev, self.old, self.capsule = dev, old, capsule
        self.t = tl.arange(4.0)

    def __dlpack_device__(self):
        return self.dev

    def __dlpack__(self, *args, **kw):
        if self.old and kw:
            raise TypeError("__dlpack__() got an unexpected keyword")
        if self.capsule is not None:
            return self.capsule
        return self.t.__dlpack__(*args, **kw)


@pytest.mark.parametrize("dev, cls, words", [
    ((2, 99), BufferError, "CUDA device 99"),          # unreachable CUDA
    ((2, -1), BufferError, "CUDA device -1"),
    ((7, 0), BufferError, "device type 7"),            # neither CPU nor CUDA
    ("cpu", BufferError, "device type -1"),            # not a pair
    ((1, "zero"), TypeError, "str"),                   # not an int
])
def test_from_dlpack_refuses_a_bad_producer_device(dev, cls, words):
    with pytest.raises(cls, match=words):
        tl.from_dlpack(_Producer(dev))


def test_from_dlpack_old_producer_and_bad_capsule():
    # A producer without max_version= gets the legacy call.
    p = _Producer((1, 0), old=True)
    r = tl.from_dlpack(p)
    assert r.tolist() == [0.0, 1.0, 2.0, 3.0]
    r[0] = 5.0
    assert p.t[0].item() == 5.0       # zero-copy
    # Regression: a __dlpack__ that returns no capsule is a wrong type
    # (TypeError; was ValueError); a capsule used twice is a bad value.
    with pytest.raises(TypeError, match="str, not a DLPack capsule"):
        tl.from_dlpack(_Producer((1, 0), capsule="not a capsule"))
    cap = tl.arange(3.0).__dlpack__()
    once = _Producer((1, 0), capsule=cap)
    assert tl.from_dlpack(once).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="consumed only once"):
        tl.from_dlpack(once)


def test_sequence_item_slot():
    # PySequence_GetItem reaches the sq_item slot (t[i] goes through
    # mp_subscript); ctypes is the only way there from Python.
    import ctypes
    get = ctypes.pythonapi.PySequence_GetItem
    get.restype = ctypes.py_object
    get.argtypes = [ctypes.py_object, ctypes.c_ssize_t]
    t = tl.arange(6).reshape(3, 2)
    assert get(t, 1).tolist() == [2, 3]
    assert get(t, -1).tolist() == [4, 5]
    with pytest.raises(IndexError, match="out of bounds for dimension 0"):
        get(t, 3)
    # Regression: PySequence_GetItem adds len(t) to a negative index
    # before the slot; the slot added it again and returned t[2] here.
    with pytest.raises(IndexError):
        get(t, -4)
    with pytest.raises(TypeError, match="0-dim"):
        get(tl.tensor(1.0), 0)


@pytest.mark.parametrize("key, shape, vshape", [
    (lambda m: m.tensor([0, 1]), (3, 4), (3,)),
    (lambda m: (slice(None), m.tensor([0, 1])), (3, 4), (5,)),
    (lambda m: (slice(None), m.tensor([0, 1]), 0), (3, 4, 2), (3, 3)),
])
def test_advanced_setitem_values_that_do_not_broadcast(key, shape, vshape):
    a = tl.zeros(*shape)
    with pytest.raises(RuntimeError) as ei:     # as PyTorch's
        a[key(tl)] = tl.ones(*vshape)
    assert isinstance(ei.value, ValueError)     # ShapeError (DESIGN.md)
    assert "expand" in str(ei.value) and str(list(vshape)) in str(ei.value)
    with pytest.raises(RuntimeError):
        torch.zeros(*shape)[key(torch)] = torch.ones(*vshape)
    assert a._version == 0 and not a.any()


def test_memory_private_refusals():
    C = tl._C
    name = C._allocator_name("cpu")
    # A str that has no UTF-8 form (a lone surrogate).
    with pytest.raises(UnicodeEncodeError):
        C._set_allocator("default", "\udc80")
    with pytest.raises(ZeroDivisionError):
        C._pinned_refuse_lock(_BadBool())
    with pytest.raises(ZeroDivisionError):
        tl.workspace(4096, growable=_BadBool())
    assert C._allocator_name("cpu") == name
    assert C._workspace_depth() == 0
    assert C._current_workspace_generation() is None
    with tl.workspace(4096) as ws:
        assert C._workspace_depth() == 1
        assert C._current_workspace_generation() == ws.generation
        ws.reset()
        assert C._current_workspace_generation() == ws.generation == 2
    assert C._workspace_depth() == 0


@pytest.mark.parametrize("call", [
    lambda m, x: x.cumsum(0, out=x),                 # a method has no out=
    lambda m, x: m.logcumsumexp(x, 0, dtype=m.float64),
    lambda m, x: m.sort(x, 0, out=[x]),              # not a pair
    lambda m, x: m.sort(x, 0, out=(x, "indices")),
])
def test_scan_and_sort_keyword_refusals(call):
    x = tl.ones(3)
    with pytest.raises(TypeError, match="out|dtype"):
        call(tl, x)
    with pytest.raises(TypeError):
        call(torch, torch.ones(3))
    assert x._version == 0 and x.tolist() == [1.0] * 3


# (call, our class, PyTorch's class or None where PyTorch accepts)
@pytest.mark.parametrize("call, cls, tcls", [
    # DESIGN.md: what does not fit int64 is an OverflowError (PyTorch:
    # ValueError from its parser; it wraps the product around to 0).
    (lambda m: m.Size([2 ** 70]).numel(), OverflowError, ValueError),
    (lambda m: m.Size([2 ** 62, 4]).numel(), OverflowError, None),
    (lambda m: m.Size([2, 3]) * 1.5, TypeError, TypeError),
    (lambda m: 1.5 * m.Size([2, 3]), TypeError, TypeError),
    (lambda m: m.Size([2, 3]) * 2 ** 70, OverflowError, OverflowError),
    (lambda m: m.Size(sizes=(2,)), TypeError, TypeError),
    (lambda m: m.Size((2,), (3,)), TypeError, TypeError),
    (lambda m: m.Size([2, "3"]), TypeError, TypeError),
    (lambda m: m.Size(5), TypeError, TypeError),
])
def test_size_refusals(call, cls, tcls):
    with pytest.raises(cls):
        call(tl)
    if tcls is None:
        call(torch)
    else:
        with pytest.raises(tcls):
            call(torch)


def test_size_repeat():
    assert tl.Size([2, 3]) * 2 == (2, 3, 2, 3)
    assert type(2 * tl.Size([1])) is tl.Size


def test_memory_kind_that_is_no_utf8():
    p = tl.ExecutionPlan()
    with pytest.raises(UnicodeEncodeError):
        p.add_buffer("a", (2,), memory_kind="\udc80")
    assert p.names == []


class _BadInt(int):
    """An int whose truth value raises."""

    def __bool__(self):
        raise ZeroDivisionError("bool() of _BadInt")


# (call, our class, PyTorch's class or None where PyTorch accepts, reason
# where they differ)
REDUCE_CASES = [
    (lambda m, x: m.sum(x, dim=(0,) * 65), IndexError, RuntimeError,
     "more dims than a tensor can have (PyTorch: repeated dim)"),
    (lambda m, x: m.sum(x, dim=(0, True)), TypeError, None,
     "a bool in a dim tuple is refused (PyTorch reads it as 1)"),
    (lambda m, x: m.sum(x, dim=(0, 2 ** 70)), OverflowError, TypeError,
     "DESIGN.md: an int that does not fit int64 is an OverflowError"),
    (lambda m, x: m.sum(x, 1, keepdim=_BadInt(1)), ZeroDivisionError,
     TypeError, "keepdim is read by truth value"),
    (lambda m, x: m.max(x, x, keepdim=True), TypeError, TypeError, ""),
    (lambda m, x: m.max(x, x, out=1.5), TypeError, TypeError, ""),
    (lambda m, x: m.max(x, out=1.5), TypeError, TypeError, ""),
    (lambda m, x: x.min(x, out="x"), TypeError, TypeError, ""),
    (lambda m, x: m.std(x, True, unbiased=True), TypeError, TypeError, ""),
    (lambda m, x: m.var(x, unbiased=1), TypeError, TypeError, ""),
    (lambda m, x: m.std(x, 1, unbiased=True, correction=1), TypeError,
     TypeError, ""),
]


@pytest.mark.parametrize("case", REDUCE_CASES)
def test_reduce_refusals(case):
    call, cls, tcls, _reason = case
    x = tl.ones(2, 3)
    with pytest.raises(cls) as ei:
        call(tl, x)
    assert ei.type is not SystemError and str(ei.value)
    assert x._version == 0
    if tcls is None:
        call(torch, torch.ones(2, 3))
    else:
        with pytest.raises(tcls):
            call(torch, torch.ones(2, 3))


def test_index_add_alpha_does_not_hide_a_dtype_mismatch():
    # Regression: with alpha, source * alpha promoted an int64 source to
    # self's float32 and the call was accepted; without alpha it is
    # refused, as in PyTorch.
    x = tl.zeros(2, 3)
    src = tl.ones(2, 2, dtype=tl.int64)
    for kw in ({}, {"alpha": 2.0}, {"alpha": 2}):
        with pytest.raises(TypeError, match="float32.*int64"):
            tl.index_add(x, 1, tl.tensor([0, 1]), src, **kw)
        with pytest.raises(TypeError, match="same scalar type"):
            x.index_add_(1, tl.tensor([0, 1]), src, **kw)
        with pytest.raises(RuntimeError):
            torch.zeros(2, 3).index_add_(1, torch.tensor([0, 1]),
                                         torch.ones(2, 2, dtype=torch.int64),
                                         **kw)
    assert x._version == 0 and not x.any()
    # Same dtypes still scale.
    r = tl.index_add(x, 1, tl.tensor([0, 2]), tl.ones(2, 2), alpha=2.0)
    assert r.tolist() == [[2.0, 0.0, 2.0]] * 2


def test_device_true_is_not_cuda_1():
    # Regression: a bool device was read as the int 1, cuda:1.
    for call in (lambda m: m.zeros(2, device=True),
                 lambda m: m.linspace(0, 1, 3, device=False)):
        with pytest.raises(TypeError, match="bool"):
            call(tl)
        with pytest.raises(TypeError):
            call(torch)


@pytest.mark.parametrize("call, cls", [
    (lambda m, x: x.div_(2, out=x), TypeError),
    (lambda m, x: x.neg_(out=x), TypeError),
    (lambda m, x: x.round_(out=x), TypeError),
    (lambda m, x: x.clone(memory_format=m.channels_last), ValueError),
    (lambda m, x: x.fill_(m.ones(2)), ValueError),
])
def test_in_place_and_clone_refusals(call, cls):
    x = tl.zeros(3)
    with pytest.raises(cls) as ei:
        call(tl, x)
    assert str(ei.value)
    assert x._version == 0 and not x.any()
    # PyTorch's class: TypeError, or RuntimeError for the shape problems
    # (ShapeError is one).
    with pytest.raises(TypeError if cls is TypeError else RuntimeError):
        call(torch, torch.zeros(3))


def test_array_copy_flag_that_raises():
    t = tl.ones(3)
    with pytest.raises(ZeroDivisionError):
        t.__array__(copy=_BadBool())
    assert t._version == 0      # (PyTorch's __array__ has no copy=)
    np.testing.assert_array_equal(t.__array__(copy=True), np.ones(3))


class _BadFloat:
    """A number whose float() raises."""

    def __float__(self):
        raise ZeroDivisionError("float() of _BadFloat")


# DESIGN.md: what does not fit int64 is an OverflowError; PyTorch raises
# RuntimeError ("invalid size, possible overflow?").
@pytest.mark.parametrize("call, cls, tcls", [
    (lambda m: m.arange(0.0, 1e19, 1e18, dtype=m.int64), OverflowError,
     RuntimeError),
    (lambda m: m.arange(-1e19, 0, dtype=m.int64), OverflowError,
     RuntimeError),
    (lambda m: m.arange(0, 1e300, 1.0), OverflowError, RuntimeError),
    (lambda m: m.arange(_BadFloat()), ZeroDivisionError, TypeError),
    (lambda m: m.arange(0, _BadFloat()), ZeroDivisionError, TypeError),
])
def test_arange_refusals(call, cls, tcls):
    with pytest.raises(cls):
        call(tl)
    with pytest.raises(tcls):
        call(torch)


# (call, our class, PyTorch's class): ShapeError is a RuntimeError, as
# PyTorch's; a chunk count past int32 is an OverflowError (DESIGN.md)
# where PyTorch fails its allocation (None: not run through PyTorch, whose
# chunk(2**40) asks operator new for 8 TB of chunk handles, which the
# sanitizer build's allocator aborts on instead of throwing).
@pytest.mark.parametrize("call, cls, tcls", [
    (lambda m: m.movedim(m.zeros(2, 3), (0, 1), (0,)), RuntimeError,
     RuntimeError),
    (lambda m: m.split(m.zeros(6), [2, -1, 5]), RuntimeError, RuntimeError),
    (lambda m: m.zeros(0).chunk(2 ** 40), OverflowError, None),
    (lambda m: m.broadcast_tensors(5), TypeError, TypeError),
])
def test_view_refusals(call, cls, tcls):
    with pytest.raises(cls) as ei:
        call(tl)
    assert str(ei.value)
    if tcls is not None:
        with pytest.raises(tcls):
            call(torch)


def test_chunk_of_an_empty_dim():
    got = [c.shape for c in tl.zeros(0).chunk(3)]
    assert got == [tuple(c.shape) for c in torch.zeros(0).chunk(3)]


def test_index_refusals():
    t = tl.arange(6.0)
    with tl.workspace(4096) as ws:
        stale = ws.zeros(2, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="workspace was reset"):
        t[stale]
    with pytest.raises(RuntimeError, match="workspace was reset"):
        t[stale] = 1.0
    ro = tl._C._readonly_view(t)
    with pytest.raises(ValueError, match="read-only"):
        ro[1:3] = 5.0
    # DESIGN.md: an int that fits no integer dtype is an OverflowError
    # (PyTorch: ValueError / OverflowError from its own conversions).
    with pytest.raises(OverflowError, match="too large"):
        t[0] = 2 ** 70
    with pytest.raises(OverflowError, match="too small"):
        tl.add(t, -2 ** 70)
    with pytest.raises(OverflowError):
        torch.add(torch.arange(6.0), -2 ** 70)
    # A list index holding a str is a wrong type (PyTorch: IndexError).
    with pytest.raises(TypeError, match="str"):
        t[[1, "a"]]
    assert t._version == 0 and t.tolist() == [0.0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("name", [
    "_lapack_getrf", "_lapack_getrs", "_lapack_getri", "_lapack_potrf",
    "_lapack_geqrf", "_lapack_orgqr", "_lapack_syevd", "_lapack_gesdd",
    "_lapack_geev", "_lapack_gelsd", "_lapack_trtrs", "_lapack_copy",
])
def test_lapack_helpers_count_their_tensors(name):
    f = getattr(tl._C, name)
    with pytest.raises(TypeError, match=name):
        f()
    with pytest.raises(TypeError, match=name):
        f(*[object()] * 6)


def test_lapack_helper_defaults_and_core_errors():
    C = tl._C
    a = tl.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=tl.float64)
    lu, piv = C._lapack_copy(a), tl.zeros(2, dtype=tl.int64)
    info = tl.zeros(1, dtype=tl.int64)
    C._lapack_getrf(lu, piv, info)
    x = C._lapack_copy(tl.tensor([[3.0], [4.0]], dtype=tl.float64))
    C._lapack_getrs(lu, piv, x, info)          # trans defaults to 'N'
    np.testing.assert_allclose(x.numpy().ravel(),
                               np.linalg.solve(a.numpy(), [3.0, 4.0]))
    with pytest.raises(TypeError, match="int64"):   # the core's refusal
        C._lapack_getrf(C._lapack_copy(a), tl.zeros(2, dtype=tl.int32), info)


# (call, our class, PyTorch's class, reason where they differ)
SORTSCAN_CASES = [
    (lambda m: m.sort(m.ones(3), descending=_BadInt(1)), ZeroDivisionError,
     TypeError, "flags are read by truth value"),
    (lambda m: m.median(m.ones(3), keepdim=True), TypeError, TypeError, ""),
    (lambda m: m.searchsorted(m.arange(3.0), m.ones(2), side="middle"),
     ValueError, RuntimeError, "DESIGN.md: a bad value is a ValueError"),
    # Regression: a side that is not a str raised ValueError.
    (lambda m: m.searchsorted(m.arange(3.0), m.ones(2), side=1), TypeError,
     TypeError, ""),
    (lambda m: m.searchsorted(m.zeros(2, 3), 1.0), RuntimeError,
     RuntimeError, ""),
    (lambda m: m.bucketize(m.ones(2), m.arange(3.0), out_int32="x"),
     TypeError, TypeError, ""),
    (lambda m: m.count_nonzero(m.ones(3), dim=(0,) * 65), IndexError,
     RuntimeError, "more dims than a tensor can have"),
    (lambda m: m.searchsorted(m.arange(3.0), m.ones(2), sorter=5),
     TypeError, TypeError, ""),
]


@pytest.mark.parametrize("case", SORTSCAN_CASES)
def test_sortscan_refusals(case):
    call, cls, tcls, _reason = case
    with pytest.raises(cls) as ei:
        call(tl)
    assert str(ei.value)
    with pytest.raises(tcls):
        call(torch)


def test_private_logsumexp_needs_a_dim():
    with pytest.raises(TypeError, match="dim"):
        tl._C._logsumexp(tl.ones(3))
