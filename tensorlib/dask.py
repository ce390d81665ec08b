"""dask.array with tensorlib chunks.

Importing this module (dask stays an optional dependency: the import
raises ImportError without it) registers ``tensorlib.Tensor`` with
dask.array:

- as a chunk type, so dask arrays of tensors stay dask arrays in mixed
  arithmetic and NumPy functions;
- the per-chunk-type lookups dask dispatches on: concatenate, tensordot,
  einsum, take, empty, numel and nannumel (computed by tensorlib, so
  results stay Tensors), divide, and conversion to and from NumPy
  (``x.to_backend("numpy")``);
- ``dask.sizeof`` (the bytes of the tensor's elements, as for ndarrays).

Tokenizing works without this module: ``Tensor.__dask_tokenize__`` hashes
dtype, shape and values.

The ``tensorlib`` array backend (entry point ``dask.array.backends``,
declared in pyproject.toml, loaded by dask on
``dask.config.set({"array.backend": "tensorlib"})``) is
``TensorlibBackendEntrypoint``: ``da.ones/zeros/empty/full/arange`` then
build tensorlib chunks, and ``da.random`` draws them from tensorlib's
generator with one derived seed per chunk (``tensorlib.random.default_rng``
for ``da.random.default_rng``, ``tensorlib._np_random.RandomState`` for the
legacy functions).  ``da.from_array(t, chunks=...)`` keeps tensorlib
chunks and a tensorlib ``_meta`` under any backend.

Between processes (``dask.distributed``) tensors travel by pickle
protocol 5, their data out of band.
"""
import math

import numpy as _np

import dask
import dask.array as _da
from dask.array.backends import ArrayBackendEntrypoint
from dask.array.chunk_types import register_chunk_type
from dask.array.dispatch import (
    concatenate_lookup,
    divide_lookup,
    einsum_lookup,
    empty_lookup,
    nannumel_lookup,
    numel_lookup,
    take_lookup,
    tensordot_lookup,
    to_numpy_dispatch,
)
from dask.sizeof import sizeof as _sizeof

from . import _C
from . import _np_random

Tensor = _C.Tensor

__all__ = ["TensorlibBackendEntrypoint", "register", "to_tensorlib"]


def _tensor(x):
    """x as a Tensor: tensors unchanged, arrays and scalars converted
    (zero-copy where NumPy's memory allows)."""
    if isinstance(x, Tensor):
        return x
    import tensorlib

    return tensorlib.asarray(x)


def to_tensorlib(data, **kwargs):
    """One chunk as a Tensor (dask's ``to_backend("tensorlib")`` maps it
    over the blocks)."""
    return _tensor(data)


def _concatenate(arrays, axis=0):
    return _C.cat([_tensor(a) for a in arrays], axis)


def _tensordot(a, b, axes=2):
    import tensorlib

    return tensorlib.tensordot(_tensor(a), _tensor(b), dims=axes)


def _einsum(subscripts, *operands, dtype=None, casting="safe", order="K",
            optimize=False, out=None):
    # order= and optimize= change how NumPy computes, not the values.
    import tensorlib

    ops = [_tensor(o) for o in operands]
    if dtype is not None:
        ops = [o.astype(dtype, casting=casting, copy=False) for o in ops]
    return tensorlib.einsum(subscripts, *ops)


def _take(a, indices, axis=0):
    a = _tensor(a)
    idx = _C.tensor(_np.asarray(indices, dtype=_np.int64))
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = axis + a.dim() if axis < 0 else axis
    return a[(slice(None),) * axis + (idx,)]


def _empty(shape, dtype=None, **kwargs):
    return _C.empty(tuple(shape) if not isinstance(shape, int) else (shape,),
                    dtype=_np.float64 if dtype is None else dtype)


def _numel(x, axis=None, keepdims=False, dtype=_np.float64, **kwargs):
    """The number of elements each reduction over axis sees, as a Tensor
    of the reduction's shape (dask's mean/var divide by it)."""
    shape = tuple(x.shape)
    if axis is None:
        axis = tuple(range(len(shape)))
    elif not isinstance(axis, (tuple, list)):
        axis = (axis,)
    axis = tuple(a % len(shape) if len(shape) else a for a in axis)
    n = math.prod(shape[d] for d in axis)
    if keepdims:
        out_shape = tuple(1 if d in axis else s for d, s in enumerate(shape))
    else:
        out_shape = tuple(s for d, s in enumerate(shape) if d not in axis)
    return _C.full(out_shape, n, dtype=dtype)


def _nannumel(x, axis=None, keepdims=False, dtype=_np.float64, **kwargs):
    """The number of non-NaN elements each reduction over axis sees."""
    x = _tensor(x)
    if axis is not None and not isinstance(axis, (tuple, list)):
        axis = (axis,)
    if axis is not None:
        axis = tuple(axis)
    counted = _C.logical_not(_C.isnan(x))
    if axis is None:
        n = counted.sum(dtype=dtype)
        if keepdims:
            n = n.reshape((1,) * x.dim())
        return n
    return counted.sum(axis, keepdims, dtype=dtype)


def _divide(a, b, dtype=None):
    r = _C.div(_tensor(a), b if _np.isscalar(b) else _tensor(b))
    return r if dtype is None else r.astype(dtype, copy=False)


def _sizeof_tensor(t):
    # As dask counts ndarrays: the elements the view spans, and a broadcast
    # (stride 0) dimension once.
    n = 1
    for size, stride in zip(t.shape, t.stride()):
        n *= 1 if stride == 0 and size > 0 else size
    return int(n * t.element_size())


def _tensor_to_numpy(data, **kwargs):
    return _np.asarray(data)


_registered = False


def register():
    """Registers Tensor with dask.array (done on import; repeat calls do
    nothing)."""
    global _registered
    if _registered:
        return
    register_chunk_type(Tensor)
    concatenate_lookup.register(Tensor, _concatenate)
    tensordot_lookup.register(Tensor, _tensordot)
    einsum_lookup.register(Tensor, _einsum)
    take_lookup.register(Tensor, _take)
    empty_lookup.register(Tensor, _empty)
    numel_lookup.register(Tensor, _numel)
    nannumel_lookup.register(Tensor, _nannumel)
    divide_lookup.register(Tensor, _divide)
    to_numpy_dispatch.register(Tensor, _tensor_to_numpy)
    _sizeof.register(Tensor, _sizeof_tensor)
    _registered = True


# ---- the "tensorlib" array backend ------------------------------------------

def _meta(dtype=None):
    return _C.empty((0,), dtype=_np.float64 if dtype is None else dtype)


def _with_meta(func_name, /, *args, meta=None, **kwargs):
    """dask.array's own creation function with a tensorlib _meta, so every
    chunk is made by tensorlib (np.ones_like(meta, shape=...) and
    friends dispatch to it)."""
    meta = _meta(kwargs.get("dtype")) if meta is None else meta
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(_da, func_name)(*args, meta=meta, **kwargs)


class TensorlibBackendEntrypoint(ArrayBackendEntrypoint):
    """dask.array's creation functions and random generators for
    ``dask.config.set({"array.backend": "tensorlib"})``."""

    def __init__(self):
        register()

    @classmethod
    def to_backend_dispatch(cls):
        return to_tensorlib

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, Tensor):
            return data
        return data.map_blocks(to_tensorlib, meta=_meta(data.dtype),
                               **kwargs)

    @property
    def RandomState(self):
        return _np_random.RandomState

    @property
    def default_bit_generator(self):
        return _np_random.BitGenerator

    @staticmethod
    def ones(*args, **kwargs):
        return _with_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args, **kwargs):
        return _with_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args, **kwargs):
        return _with_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args, **kwargs):
        return _with_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        like = _meta() if like is None else like
        with dask.config.set({"array.backend": "numpy"}):
            return _da.arange(*args, like=like, **kwargs)


register()
