"""Joining, splitting, rearranging, creation and masked/flat indexing ops
composed from the C operators (cat, gather, index_select, index_add,
where, views and copies).  PyTorch's names, signatures, result dtypes and
errors; the heavy lifting (one pass per input or output) happens in C:
csrc/core/join.c, index_ops.c and creation_ops.c.

Every function validates its arguments before writing anything, so a
failed call leaves every operand unchanged.
"""
import builtins
import operator

import numpy as _np

from . import _C

Tensor = _C.Tensor
ShapeError = _C.ShapeError

_PUBLIC = [
    "hstack", "vstack", "dstack", "column_stack", "row_stack",
    "tensor_split", "hsplit", "vsplit", "dsplit",
    "atleast_1d", "atleast_2d", "atleast_3d",
    "tile", "repeat_interleave", "roll", "rot90", "tril", "triu", "diag",
    "diag_embed", "diagflat", "ravel",
    "eye", "meshgrid", "tril_indices", "triu_indices",
    "masked_fill", "masked_select", "masked_scatter", "take",
    "take_along_dim", "put", "index_put",
]


# ---- helpers -------------------------------------------------------------


def _check_tensor(x, fname, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{what}' must be Tensor, "
                        f"not {type(x).__name__}")


def _cpu_only(fname, *ts):
    for t in ts:
        if isinstance(t, Tensor) and t.device.type != "cpu":
            raise NotImplementedError(
                f"{fname}() is not implemented for CUDA tensors in "
                "tensorlib (CPU only)")


def _int(x, fname, what):
    if isinstance(x, builtins.bool) or not hasattr(x, "__index__"):
        raise TypeError(f"{fname}(): argument '{what}' must be int, not "
                        f"{type(x).__name__}")
    return operator.index(x)


def _wrap_dim(dim, ndim, fname):
    dim = _int(dim, fname, "dim")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{fname}(): Dimension out of range (expected to "
                         f"be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _tensors(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors,
                                                     (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' must be a tuple or "
                        f"list of Tensors, not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}(): expected a sequence of Tensors, "
                            f"but element {i} is {type(t).__name__}")
    return list(tensors)


def _scalar_tensor(value, dtype, fname):
    """value (a number or a 0-dim tensor) as a 0-dim tensor of dtype."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ShapeError(
                f"{fname}(): only supports a 0-dimensional value tensor, "
                f"but got tensor with {value.ndim} dimension(s).")
        value = value.item()
    if not isinstance(value, (builtins.bool, builtins.int,
                              builtins.float, builtins.complex,
                              _np.generic)):
        raise TypeError(f"{fname}(): value must be a Number or a 0-dim "
                        f"Tensor, not {type(value).__name__}")
    return _C.full((), value, dtype=dtype)


def _bool_mask(mask, fname):
    _check_tensor(mask, fname, "mask")
    if mask.dtype != _C.bool:
        raise TypeError(f"{fname}: expected BoolTensor for mask, but got "
                        f"mask with dtype {mask.dtype}")


# ---- joining and splitting ----------------------------------------------


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (0-dim ones become shape (1,))."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims (a leading 1 is added)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: () -> (1, 1, 1), (n,) -> (1, n, 1),
    (m, n) -> (m, n, 1)."""
    return _atleast(tensors, 3)


def _atleast_one(t, n):
    if t.ndim >= n:
        return t
    if n == 1:
        return t.reshape(1)
    if n == 2:
        return t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1)
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(2)
    return t.unsqueeze(2)


def _atleast(tensors, n):
    fname = f"atleast_{n}d"
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_atleast_one(t, n)
                     for t in _tensors(tensors[0], fname))
    ts = _tensors(list(tensors), fname)
    if len(ts) == 1:
        return _atleast_one(ts[0], n)
    return tuple(_atleast_one(t, n) for t in ts)


def hstack(tensors, *, out=None):
    """cat along dim 1 (dim 0 when every input is 1-D), as NumPy."""
    ts = [_atleast_one(t, 1) for t in _tensors(tensors, "hstack")]
    dim = 0 if ts and ts[0].ndim == 1 else 1
    return _C.cat(ts, dim, out=out)


def vstack(tensors, *, out=None):
    """cat along dim 0 of the inputs made at least 2-D."""
    ts = [_atleast_one(t, 2) for t in _tensors(tensors, "vstack")]
    return _C.cat(ts, 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """cat along dim 2 of the inputs made at least 3-D."""
    ts = [_atleast_one(t, 3) for t in _tensors(tensors, "dstack")]
    return _C.cat(ts, 2, out=out)


def column_stack(tensors, *, out=None):
    """cat along dim 1; 0-dim and 1-D inputs become columns."""
    ts = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t
          for t in _tensors(tensors, "column_stack")]
    return _C.cat(ts, 1, out=out)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input split along dim: into n nearly equal parts (the
    first size % n get one more), or at the given indices (clamped, as
    Python slices)."""
    _check_tensor(input, "tensor_split")
    if input.ndim == 0:
        raise ShapeError("tensor_split(): expected at least a 1-dimensional "
                         "tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, input.ndim, "tensor_split")
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios.dtype not in (_C.int64, _C.int32, _C.int16, _C.int8,
                             _C.uint8):
            raise TypeError("tensor_split(): tensor_indices_or_sections "
                            "must be an integer tensor, but got "
                            f"{ios.dtype}")
        if ios.ndim > 1:
            raise ShapeError("tensor_split(): tensor_indices_or_sections "
                             "must be a zero-dimensional or one-dimensional "
                             f"tensor, but got a tensor with {ios.ndim} "
                             "dims")
        ios = ios.item() if ios.ndim == 0 else [int(v) for v in
                                               ios.tolist()]
    size = input.shape[d]
    if isinstance(ios, (list, tuple)):
        idx = [_int(i, "tensor_split", "indices") for i in ios]
        parts, start = [], 0
        for i in idx + [size]:
            stop = i + size if i < 0 else i
            stop = min(max(stop, 0), size)
            lo = min(start, size)
            parts.append(input.narrow(d, lo, max(stop - lo, 0)))
            start = max(stop, lo)
        return tuple(parts)
    n = _int(ios, "tensor_split", "sections")
    if n <= 0:
        raise ShapeError(f"tensor_split(): number of sections must be "
                         f"larger than 0, got {n}")
    q, r = divmod(size, n)
    parts, start = [], 0
    for i in range(n):
        ln = q + (1 if i < r else 0)
        parts.append(input.narrow(d, start, ln))
        start += ln
    return tuple(parts)


def _dsplit_like(input, ios, dim, min_dims, fname):
    _check_tensor(input, fname)
    if input.ndim < min_dims:
        raise ShapeError(
            f"{fname}(): requires a tensor with at least {min_dims} "
            f"dimension{'s' if min_dims > 1 else ''}, but got a tensor "
            f"with {input.ndim} dimensions!")
    if not isinstance(ios, (list, tuple, Tensor)):
        n = _int(ios, fname, "sections")
        if n == 0 or input.shape[dim] % n != 0:
            raise ShapeError(
                f"{fname}(): attempted to split along dimension {dim}, but "
                f"the size of the dimension {input.shape[dim]} is not "
                f"divisible by the split_size {n}!")
    return tensor_split(input, ios, dim)


def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 for 1-D input); an int must divide
    the size."""
    _check_tensor(input, "hsplit")
    dim = 1 if input.ndim >= 2 else 0
    return _dsplit_like(input, indices_or_sections, dim, 1, "hsplit")


def vsplit(input, indices_or_sections):
    """tensor_split along dim 0 of an at least 2-D input."""
    return _dsplit_like(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input, indices_or_sections):
    """tensor_split along dim 2 of an at least 3-D input."""
    return _dsplit_like(input, indices_or_sections, 2, 3, "dsplit")


# ---- rearranging --------------------------------------------------------


def _sizes_arg(sizes, fname):
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple, _C.Size)):
        sizes = tuple(sizes[0])
    return tuple(_int(s, fname, "sizes") for s in sizes)


def _repeat(self, *sizes):
    """repeat(*sizes): self tiled sizes[i] times along each dim (leading
    dims added); one copy."""
    _check_tensor(self, "repeat", "self")
    reps = _sizes_arg(sizes, "repeat")
    if len(reps) < self.ndim:
        raise ShapeError(
            "repeat(): Number of dimensions of repeat dims can not be "
            f"smaller than number of dimensions of tensor (got {len(reps)} "
            f"repeats for a tensor of shape {list(self.shape)})")
    for r in reps:
        if r < 0:
            raise ShapeError(f"repeat(): Trying to create tensor with "
                             f"negative dimension {r}: {list(reps)}")
    shape = (1,) * (len(reps) - self.ndim) + tuple(self.shape)
    x = self.reshape(shape)
    inter, target = [], []
    for r, s in zip(reps, shape):
        inter += [1, s]
        target += [r, s]
    res = _C.empty(target, dtype=self.dtype, device=self.device)
    res.copy_(x.reshape(inter).expand(target))
    return res.view([r * s for r, s in zip(reps, shape)])


def tile(input, dims):
    """repeat with dims padded with leading 1s to input's ndim."""
    _check_tensor(input, "tile")
    dims = _sizes_arg((dims,), "tile")
    dims = (1,) * (input.ndim - len(dims)) + dims
    return _repeat(input, dims)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (slice along dim) repeated repeats times in place;
    repeats an int or a tensor of one count per element.  With only a
    tensor of counts: the indices repeated that many times."""
    if repeats is None:
        _check_tensor(input, "repeat_interleave")
        counts = input
        if counts.ndim > 1:
            raise ShapeError("repeat_interleave(): repeats must be 0-dim or "
                             "1-dim tensor")
        return repeat_interleave(
            _C.arange(counts.numel(), dtype=_C.int64), counts, 0,
            output_size=output_size)
    _check_tensor(input, "repeat_interleave")
    if dim is None:
        input = input.reshape(-1)
        d = 0
    else:
        d = _wrap_dim(dim, input.ndim, "repeat_interleave")
        if input.ndim == 0:
            input = input.reshape(1)
    size = input.shape[d]
    if isinstance(repeats, Tensor):
        if repeats.dtype not in (_C.int64, _C.int32):
            raise TypeError("repeat_interleave(): repeats has to be Long or "
                            f"Int tensor, got {repeats.dtype}")
        if repeats.ndim > 1:
            raise ShapeError("repeat_interleave(): repeats must be 0-dim "
                             "or 1-dim tensor")
        reps = repeats.numpy().reshape(-1).astype(_np.int64)
        if reps.size == 1:
            reps = _np.full(size, reps[0], _np.int64)
        if reps.size != size:
            raise ShapeError(
                "repeat_interleave(): repeats must have the same size as "
                f"input along dim, but got repeats.size(0) = {reps.size} "
                f"and input.size({d}) = {size}")
        if (reps < 0).any():
            raise ShapeError("repeat_interleave(): repeats can not be "
                             "negative")
        total = int(reps.sum())
        if output_size is not None and output_size != total:
            raise ShapeError(
                f"repeat_interleave(): output_size {output_size} does not "
                f"match the repeats' total {total}")
        idx = _C.tensor(_np.repeat(_np.arange(size, dtype=_np.int64), reps))
        return _C.index_select(input, d, idx)
    r = _int(repeats, "repeat_interleave", "repeats")
    if r < 0:
        raise ShapeError("repeat_interleave(): repeats can not be "
                         "negative")
    if output_size is not None and output_size != r * size:
        raise ShapeError(
            f"repeat_interleave(): output_size {output_size} does not "
            f"match the repeats' total {r * size}")
    shape = list(input.shape)
    x = input.unsqueeze(d + 1)
    target = shape[:d + 1] + [r] + shape[d + 1:]
    out_shape = shape[:d] + [shape[d] * r] + shape[d + 1:]
    res = _C.empty(target, dtype=input.dtype, device=input.device)
    res.copy_(x.expand(target))
    return res.view(out_shape)


def roll(input, shifts, dims=None):
    """Elements shifted along dims, wrapping around; dims None rolls the
    flattened tensor and restores the shape."""
    _check_tensor(input, "roll")
    sh = shifts if isinstance(shifts, (list, tuple)) else (shifts,)
    sh = [_int(s, "roll", "shifts") for s in sh]
    if dims is None:
        if len(sh) != 1:
            raise ShapeError(f"roll(): shifts and dimensions must align. "
                             f"shifts: {len(sh)}, dims: 0")
        return roll(input.reshape(-1), sh[0], 0).view(input.shape)
    ds = dims if isinstance(dims, (list, tuple)) else (dims,)
    if len(ds) != len(sh):
        raise ShapeError(f"roll(): shifts and dimensions must align. "
                         f"shifts: {len(sh)}, dims: {len(ds)}")
    ds = [_wrap_dim(d, input.ndim, "roll") for d in ds]
    x = input
    for s, d in zip(sh, ds):
        n = x.shape[d] if x.ndim else 1
        if n == 0:
            continue
        s %= n
        x = _C.cat([x.narrow(d, n - s, s), x.narrow(d, 0, n - s)], d)
    return x if x is not input else input.clone()


def rot90(input, k=1, dims=(0, 1)):
    """input rotated by 90 degrees k times in the plane of dims (from the
    first dim towards the second); a new tensor."""
    _check_tensor(input, "rot90")
    dims = list(dims)
    if len(dims) != 2:
        raise ShapeError(f"rot90(): expected total rotation dims == 2, but "
                         f"got dims = {len(dims)}")
    if input.ndim < 2:
        raise ShapeError(f"rot90(): expected total dims >= 2, but got total "
                         f"dims = {input.ndim}")
    d0 = _wrap_dim(dims[0], input.ndim, "rot90")
    d1 = _wrap_dim(dims[1], input.ndim, "rot90")
    if d0 == d1:
        raise ShapeError(f"rot90(): expected rotation dims to be different, "
                         f"but got dim0 = {d0} and dim1 = {d1}")
    k = _int(k, "rot90", "k") % 4
    if k == 1:
        x = input.flip(d1).transpose(d0, d1)
    elif k == 2:
        x = input.flip(d0, d1)
    elif k == 3:
        x = input.flip(d0).transpose(d0, d1)
    else:
        x = input
    return x.clone()


def _tri_keep(input, diagonal, lower, fname):
    _check_tensor(input, fname)
    if input.ndim < 2:
        raise ShapeError(f"{fname}(): input tensor must have at least 2 "
                         f"dimensions, got {input.ndim}")
    k = _int(diagonal, fname, "diagonal")
    n, m = input.shape[-2], input.shape[-1]
    rows = _C.arange(n, dtype=_C.int64).reshape(n, 1)
    cols = _C.arange(m, dtype=_C.int64).reshape(1, m)
    diff = cols - rows
    return diff <= k if lower else diff >= k


def tril(input, diagonal=0, *, out=None):
    """The lower triangle of the last two dims (j - i <= diagonal) kept,
    the rest zero."""
    keep = _tri_keep(input, diagonal, True, "tril")
    return _C.where(keep, input, _C.zeros((), dtype=input.dtype), out=out)


def triu(input, diagonal=0, *, out=None):
    """The upper triangle of the last two dims (j - i >= diagonal) kept,
    the rest zero."""
    keep = _tri_keep(input, diagonal, False, "triu")
    return _C.where(keep, input, _C.zeros((), dtype=input.dtype), out=out)


def _tril_(self, diagonal=0):
    """In-place tril; returns self."""
    return tril(self, diagonal, out=self)


def _triu_(self, diagonal=0):
    """In-place triu; returns self."""
    return triu(self, diagonal, out=self)


def diag(input, diagonal=0, *, out=None):
    """1-D input: a square matrix with input on diagonal `diagonal`; 2-D
    input: that diagonal, as a new 1-D tensor."""
    _check_tensor(input, "diag")
    k = _int(diagonal, "diag", "diagonal")
    if input.ndim == 1:
        n = input.shape[0] + abs(k)
        r = _C.zeros(n, n, dtype=input.dtype, device=input.device)
        r.diagonal(k).copy_(input)
    elif input.ndim == 2:
        r = input.diagonal(k).clone()
    else:
        raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got "
                         f"{input.ndim}D")
    if out is not None:
        return _commit(out, r, "diag")
    return r


def _commit(out, r, fname):
    _check_tensor(out, fname, "out")
    if tuple(out.shape) != tuple(r.shape):
        if out.numel() == 0:
            out.resize_(r.shape)
        else:
            raise ShapeError(f"{fname}(): out has shape {list(out.shape)} "
                             f"but the result has shape {list(r.shape)}")
    return out.copy_(r)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """input's last dim placed on the diagonal `offset` of new dims dim1,
    dim2 of a zero tensor (one more dim than input)."""
    _check_tensor(input, "diag_embed")
    k = _int(offset, "diag_embed", "offset")
    nd = input.ndim + 1
    d1 = _wrap_dim(dim1, nd, "diag_embed")
    d2 = _wrap_dim(dim2, nd, "diag_embed")
    if d1 == d2:
        raise ShapeError(f"diag_embed(): diagonal dimensions cannot be "
                         f"identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = input.reshape(1)
        nd = 2
    n = input.shape[-1] + abs(k)
    rest = list(input.shape[:-1])
    shape = []
    it = iter(rest)
    for i in range(nd):
        shape.append(n if i in (d1, d2) else next(it))
    r = _C.zeros(shape, dtype=input.dtype, device=input.device)
    r.diagonal(k, d1, d2).copy_(input)
    return r


def diagflat(input, offset=0):
    """diag() of the flattened input."""
    _check_tensor(input, "diagflat")
    return diag(input.reshape(-1), offset)


def ravel(input):
    """The elements in C order as a 1-D tensor (a view when possible)."""
    _check_tensor(input, "ravel")
    return input.reshape(-1)


def _view_as(self, other):
    """self.view(other.shape)."""
    _check_tensor(other, "view_as", "other")
    return self.view(other.shape)


def _reshape_as(self, other):
    """self.reshape(other.shape)."""
    _check_tensor(other, "reshape_as", "other")
    return self.reshape(other.shape)


# ---- creation -----------------------------------------------------------


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False):
    """A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    n = _int(n, "eye", "n")
    m = n if m is None else _int(m, "eye", "m")
    if n < 0 or m < 0:
        raise ShapeError(f"eye(): n and m must be greater or equal to 0, "
                         f"got {n}, {m}")
    if out is not None:
        _check_tensor(out, "eye", "out")
        dtype = out.dtype if dtype is None else dtype
    r = _C.zeros(n, m, dtype=dtype, device=device)
    r.diagonal().fill_(1)
    if out is not None:
        return _commit(out, r, "eye")
    return r


def meshgrid(*tensors, indexing=None):
    """Coordinate grids (expanded views) from 0-D or 1-D tensors;
    indexing 'ij' (the default) or 'xy' (the first two dims swapped)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    ts = _tensors(list(tensors), "meshgrid")
    if not ts:
        raise ShapeError("meshgrid(): expects a non-empty TensorList")
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid(): indexing must be one of \"xy\" or "
                         f"\"ij\", but received: {indexing}")
    for i, t in enumerate(ts):
        if t.ndim > 1:
            raise ShapeError(f"meshgrid(): Expected 0D or 1D tensor in the "
                             f"tensor list but got a {t.ndim}D tensor at "
                             f"position {i}")
        if t.dtype != ts[0].dtype:
            raise TypeError("meshgrid(): expects all tensors to have the "
                            f"same dtype ({ts[0].dtype} and {t.dtype})")
        if t.device != ts[0].device:
            raise RuntimeError("meshgrid(): expects all tensors to have the "
                               "same device")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    flat = [t.reshape(-1) for t in ts]
    shape = [t.shape[0] for t in flat]
    out = []
    for i, t in enumerate(flat):
        view = [1] * len(flat)
        view[i] = shape[i]
        out.append(t.view(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _tri_indices(row, col, offset, dtype, device, lower, fname):
    row = _int(row, fname, "row")
    col = _int(col, fname, "col")
    offset = _int(offset, fname, "offset")
    if row < 0 or col < 0:
        raise ShapeError(f"{fname}(): row and col must be non-negative, got "
                         f"{row}, {col}")
    dtype = _C.int64 if dtype is None else dtype
    if dtype not in (_C.int64, _C.int32):
        raise TypeError(f"{fname}(): \"{fname}\" not implemented for "
                        f"{dtype}")
    if lower:
        r, c = _np.tril_indices(row, offset, col)
    else:
        r, c = _np.triu_indices(row, offset, col)
    out = _C.tensor(_np.stack([r, c]).astype(_np.int64).reshape(2, -1),
                    dtype=dtype)
    return out if device is None else out.to(device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None,
                 layout=None):
    """The (2, N) coordinates of the lower triangle of a row x col matrix
    (j - i <= offset), row by row."""
    return _tri_indices(row, col, offset, dtype, device, True,
                        "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=None, device=None,
                 layout=None):
    """The (2, N) coordinates of the upper triangle (j - i >= offset)."""
    return _tri_indices(row, col, offset, dtype, device, False,
                        "triu_indices")


# ---- masked and flat indexing -------------------------------------------


def _masked_fill_(self, mask, value):
    """Elements where mask (broadcast to self) is True set to value;
    returns self."""
    _cpu_only("masked_fill_", self, mask)
    _bool_mask(mask, "masked_fill_")
    v = _scalar_tensor(value, self.dtype, "masked_fill_")
    return _C.where(mask, v, self, out=self)


def masked_fill(input, mask, value):
    """A copy of input (broadcast with mask) with value where mask is
    True."""
    _check_tensor(input, "masked_fill")
    _cpu_only("masked_fill", input, mask)
    _bool_mask(mask, "masked_fill")
    v = _scalar_tensor(value, input.dtype, "masked_fill")
    return _C.where(mask, v, input)


def masked_select(input, mask, *, out=None):
    """The elements of input where mask is True (both broadcast), as a 1-D
    tensor in C order."""
    _check_tensor(input, "masked_select")
    _cpu_only("masked_select", input, mask)
    _bool_mask(mask, "masked_select")
    a, m = _C.broadcast_tensors(input, mask)
    r = a[m]
    if out is not None:
        return _commit(out, r, "masked_select")
    return r


def _masked_scatter_(self, mask, source):
    """Elements of source, in order, copied where mask (broadcast to self)
    is True; returns self."""
    _cpu_only("masked_scatter_", self, mask, source)
    _bool_mask(mask, "masked_scatter_")
    _check_tensor(source, "masked_scatter_", "source")
    if source.dtype != self.dtype:
        raise TypeError(f"masked_scatter_: expected self and source to have "
                        f"same dtypes but got {self.dtype} and "
                        f"{source.dtype}")
    m = mask.expand(self.shape) if tuple(mask.shape) != tuple(self.shape) \
        else mask
    n = int(m.sum().item())
    if source.numel() < n:
        raise ShapeError(f"masked_scatter_: expected source to have at "
                         f"least {n} elements (the number of True in the "
                         f"mask), but got {source.numel()}")
    if n:
        self[m] = source.reshape(-1)[:n]
    return self


def masked_scatter(input, mask, source):
    """A copy of input (broadcast with mask) with source's elements, in
    order, where mask is True."""
    _check_tensor(input, "masked_scatter")
    _bool_mask(mask, "masked_scatter")
    a, _ = _C.broadcast_tensors(input, mask)
    return _masked_scatter_(a.clone(), mask, source)


def take(input, index):
    """input treated as 1-D, read at index (negative counts from the end);
    the result has index's shape."""
    _check_tensor(input, "take")
    _check_tensor(index, "take", "index")
    _cpu_only("take", input, index)
    if index.dtype != _C.int64:
        raise TypeError(f"take(): Expected a long tensor for index, but got "
                        f"{index.dtype}")
    n = input.numel()
    flat = _wrapped_flat_index(index, n, "take")
    return _C.index_select(input.reshape(-1), 0, flat).view(index.shape)


def _wrapped_flat_index(index, n, fname):
    """index as 1-D int64 with negatives wrapped, every entry checked in
    [-n, n) (IndexError naming the first that is not)."""
    flat = index.reshape(-1)
    if flat.numel():
        bad = (flat < -n) | (flat >= n)
        if bad.any().item():
            v = int(flat[bad][0].item())
            raise IndexError(f"{fname}(): out of range: tried to access "
                             f"index {v} on a tensor of {n} elements.")
        if (flat < 0).any().item():
            flat = _C.where(flat < 0, flat + n, flat)
    return flat


def take_along_dim(input, indices, dim=None, *, out=None):
    """gather along dim after broadcasting input and indices in the other
    dims; dim None reads the flattened input."""
    _check_tensor(input, "take_along_dim")
    _check_tensor(indices, "take_along_dim", "indices")
    if indices.dtype != _C.int64:
        raise TypeError(f"take_along_dim(): dtype of indices should be "
                        f"Long but got {indices.dtype}")
    if dim is None:
        r = _C.gather(input.reshape(-1), 0, indices.reshape(-1))
    else:
        if input.ndim != indices.ndim:
            raise ShapeError(
                "take_along_dim(): input and indices should have the same "
                f"number of dimensions, but got {input.ndim} dimensions "
                f"for input, and {indices.ndim} dimensions for indices")
        d = _wrap_dim(dim, input.ndim, "take_along_dim")
        a = list(input.shape)
        b = list(indices.shape)
        a[d] = b[d] = 1
        bs = list(_C.broadcast_shapes(a, b))
        sa, sb = bs.copy(), bs.copy()
        sa[d] = input.shape[d]
        sb[d] = indices.shape[d]
        r = _C.gather(input.expand(sa), d, indices.expand(sb))
    if out is not None:
        return _commit(out, r, "take_along_dim")
    return r


def _put_(self, index, source, accumulate=False):
    """self treated as 1-D gets source's elements at index (negative from
    the end); accumulate adds (repeated indices add up, in order)."""
    _cpu_only("put_", self, index, source)
    _check_tensor(index, "put_", "index")
    _check_tensor(source, "put_", "source")
    if index.dtype != _C.int64:
        raise TypeError(f"put_(): Expected a long tensor for index, but got "
                        f"{index.dtype}")
    if source.dtype != self.dtype:
        raise TypeError(f"put_(): self ({self.dtype}) and source "
                        f"({source.dtype}) must have the same scalar type")
    if index.numel() != source.numel():
        raise ShapeError(
            "put_(): Expected source and index to have the same number of "
            f"elements, but got source.numel() = {source.numel()}, "
            f"index.numel() = {index.numel()}")
    n = self.numel()
    flat = _wrapped_flat_index(index, n, "put_")
    if not flat.numel():
        return self
    contig = self.is_contiguous()
    tgt = self.view(-1) if contig else self.reshape(-1).clone()
    src = source.reshape(-1)
    if accumulate:
        tgt.index_add_(0, flat, src)
    else:
        tgt.index_copy_(0, flat, src)
    if not contig:
        self.copy_(tgt.view(self.shape))
    return self


def put(input, index, source, accumulate=False):
    """A copy of input with put_ applied."""
    _check_tensor(input, "put")
    return _put_(input.clone(), index, source, accumulate)


def _index_put_(self, indices, values, accumulate=False):
    """self[indices] = values (indices: a tuple of integer or bool
    tensors, one per leading dim); accumulate adds, repeated indices
    adding up in order."""
    _cpu_only("index_put_", self, values)
    if not isinstance(indices, (list, tuple)):
        raise TypeError("index_put_(): indices must be a tuple of Tensors, "
                        f"not {type(indices).__name__}")
    idx = []
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"index_put_(): indices[{i}] must be a Tensor, "
                            f"not {type(t).__name__}")
        idx.append(t)
    if not isinstance(values, Tensor):
        values = _scalar_tensor(values, self.dtype, "index_put_")
    if values.dtype != self.dtype:
        raise TypeError(f"index_put_(): values ({values.dtype}) must have "
                        f"self's dtype ({self.dtype})")
    if not accumulate:
        self[tuple(idx)] = values
        return self
    ints = []
    for t in idx:
        if t.dtype == _C.bool or t.dtype == _C.uint8:
            nz = (t != 0).nonzero()
            ints += [nz[:, j] for j in range(t.ndim)]
        elif t.dtype in (_C.int64, _C.int32, _C.int16, _C.int8):
            ints.append(t.to(_C.int64))
        else:
            raise IndexError("index_put_(): tensors used as indices must be "
                             f"long, int, byte or bool tensors, got "
                             f"{t.dtype}")
    k = len(ints)
    if k > self.ndim:
        raise IndexError(f"index_put_(): too many indices for tensor of "
                         f"dimension {self.ndim} (got {k})")
    ints = list(_C.broadcast_tensors(*ints)) if k else []
    lin = None
    for d, t in enumerate(ints):
        size = self.shape[d]
        bad = (t < -size) | (t >= size)
        if t.numel() and bad.any().item():
            v = int(t[bad][0].item())
            raise IndexError(f"index_put_(): index {v} is out of bounds for "
                             f"dimension {d} with size {size}")
        w = _C.where(t < 0, t + size, t)
        lin = w if lin is None else lin * size + w
    rest = list(self.shape[k:])
    bshape = list(lin.shape) + rest
    vals = values.expand(bshape) if tuple(values.shape) != tuple(bshape) \
        else values
    m = 1
    for s in self.shape[:k]:
        m *= s
    contig = self.is_contiguous()
    tgt = self.view([m] + rest) if contig else \
        self.reshape([m] + rest).clone()
    tgt.index_add_(0, lin.reshape(-1), vals.reshape([-1] + rest))
    if not contig:
        self.copy_(tgt.view(self.shape))
    return self


def index_put(input, indices, values, accumulate=False):
    """A copy of input with index_put_ applied."""
    _check_tensor(input, "index_put")
    return _index_put_(input.clone(), indices, values, accumulate)


# Tensor methods: the functions above with self in place of input.


def _m_tile(self, dims):
    """See tensorlib.tile."""
    return tile(self, dims)


def _m_repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
    """See tensorlib.repeat_interleave."""
    return repeat_interleave(self, repeats, dim, output_size=output_size)


def _m_roll(self, shifts, dims=None):
    """See tensorlib.roll."""
    return roll(self, shifts, dims)


def _m_rot90(self, k=1, dims=(0, 1)):
    """See tensorlib.rot90."""
    return rot90(self, k, dims)


def _m_tril(self, diagonal=0, *, out=None):
    """See tensorlib.tril."""
    return tril(self, diagonal, out=out)


def _m_triu(self, diagonal=0, *, out=None):
    """See tensorlib.triu."""
    return triu(self, diagonal, out=out)


def _m_diag(self, diagonal=0, *, out=None):
    """See tensorlib.diag."""
    return diag(self, diagonal, out=out)


def _m_diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """See tensorlib.diag_embed."""
    return diag_embed(self, offset, dim1, dim2)


def _m_diagflat(self, offset=0):
    """See tensorlib.diagflat."""
    return diagflat(self, offset)


def _m_ravel(self):
    """See tensorlib.ravel."""
    return ravel(self)


def _m_tensor_split(self, indices_or_sections, dim=0):
    """See tensorlib.tensor_split."""
    return tensor_split(self, indices_or_sections, dim)


def _m_hsplit(self, indices_or_sections):
    """See tensorlib.hsplit."""
    return hsplit(self, indices_or_sections)


def _m_vsplit(self, indices_or_sections):
    """See tensorlib.vsplit."""
    return vsplit(self, indices_or_sections)


def _m_dsplit(self, indices_or_sections):
    """See tensorlib.dsplit."""
    return dsplit(self, indices_or_sections)


def _m_masked_fill(self, mask, value):
    """See tensorlib.masked_fill."""
    return masked_fill(self, mask, value)


def _m_masked_select(self, mask, *, out=None):
    """See tensorlib.masked_select."""
    return masked_select(self, mask, out=out)


def _m_masked_scatter(self, mask, source):
    """See tensorlib.masked_scatter."""
    return masked_scatter(self, mask, source)


def _m_take(self, index):
    """See tensorlib.take."""
    return take(self, index)


def _m_take_along_dim(self, indices, dim=None, *, out=None):
    """See tensorlib.take_along_dim."""
    return take_along_dim(self, indices, dim, out=out)


def _m_put(self, index, source, accumulate=False):
    """See tensorlib.put."""
    return put(self, index, source, accumulate)


def _m_index_put(self, indices, values, accumulate=False):
    """See tensorlib.index_put."""
    return index_put(self, indices, values, accumulate)


def install(module):
    """Adds the functions to the tensorlib namespace (a globals() dict) and
    the methods to Tensor."""
    for name in _PUBLIC:
        module[name] = globals()[name]
    methods = {
        "repeat": _repeat, "tile": _m_tile,
        "repeat_interleave": _m_repeat_interleave, "roll": _m_roll,
        "rot90": _m_rot90, "tril": _m_tril, "triu": _m_triu,
        "tril_": _tril_, "triu_": _triu_, "diag": _m_diag,
        "diag_embed": _m_diag_embed, "diagflat": _m_diagflat,
        "ravel": _m_ravel, "view_as": _view_as, "reshape_as": _reshape_as,
        "tensor_split": _m_tensor_split, "hsplit": _m_hsplit,
        "vsplit": _m_vsplit, "dsplit": _m_dsplit,
        "masked_fill": _m_masked_fill, "masked_fill_": _masked_fill_,
        "masked_select": _m_masked_select,
        "masked_scatter": _m_masked_scatter,
        "masked_scatter_": _masked_scatter_, "take": _m_take,
        "take_along_dim": _m_take_along_dim, "put": _m_put, "put_": _put_,
        "index_put": _m_index_put, "index_put_": _index_put_,
    }
    for name, fn in methods.items():
        setattr(Tensor, name, fn)
