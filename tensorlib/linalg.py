"""tensorlib.linalg: linear algebra on OpenBLAS (scipy-openblas64).

PyTorch's names and semantics (``torch.linalg``), batched over leading
dimensions, real and complex (float32, float64, complex64, complex128).
The factorizations run in C (csrc/core/linalg.c: one LAPACK call per
matrix of the batch, on a column-major copy); this module checks
arguments, prepares those copies and turns LAPACK's per-matrix status into
:class:`LinAlgError` naming the batch element.  The matrix products
(``matmul``, ``mm``, ``einsum``, ...) live at the top level of tensorlib
too; ``matmul`` itself is C from the operator down.
"""
import builtins as _b
import inspect as _inspect
import math as _math
from typing import NamedTuple as _NamedTuple

from . import _C

_ShapeError = _C.ShapeError


class LinAlgError(ValueError, RuntimeError):
    """A matrix the operation cannot handle: singular (``inv``, ``solve``),
    not positive-definite (``cholesky``), or an algorithm that did not
    converge (``svd``, ``eigh``, ``eig``).  Subclasses ValueError and
    RuntimeError, as ShapeError does, so NumPy's and PyTorch's habits
    both catch it."""


def _tl():
    import tensorlib
    return tensorlib


_FLOATS = ("float32", "float64", "complex64", "complex128")


def _dtname(t):
    return str(t.dtype).replace("tensorlib.", "")


def _check_tensor(x, fname, what="A"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{fname}: {what} must be a tensor, got "
                        f"{type(x).__name__}")
    if x.device.type != "cpu":
        raise NotImplementedError(
            f"{fname}: tensors on {x.device.type.upper()} are not "
            "supported yet (tensorlib has no cuBLAS/cuSOLVER binding)")


def _check_float(x, fname, what="A"):
    _check_tensor(x, fname, what)
    if _dtname(x) not in _FLOATS:
        raise TypeError(f"{fname}: expected a floating point or complex "
                        f"tensor as {what}, got {x.dtype}")


def _check_matrix(x, fname, square=False, what="A"):
    _check_float(x, fname, what)
    if x.ndim < 2:
        raise _ShapeError(f"{fname}: {what} must have at least 2 "
                          f"dimensions, got shape {list(x.shape)}")
    if square and x.shape[-1] != x.shape[-2]:
        raise _ShapeError(f"{fname}: {what} must be batches of square "
                          f"matrices, got shape {list(x.shape)}")


def _info(batch_shape):
    n = _math.prod(batch_shape)
    return _tl().zeros(n, dtype=_tl().int64)


def _raise_info(info, fname, batch_shape, message, nan_only=False):
    """LinAlgError for the first batch element whose info is nonzero
    (negative only, when nan_only: LAPACKE's NaN check)."""
    if not bool((info < 0).any() if nan_only else info.any()):
        return
    vals = info.tolist()
    i = next(k for k, v in enumerate(vals)
             if (v < 0 if nan_only else v != 0))
    if vals[i] < 0:
        message = "the input contains NaN (LAPACK refused it)"
    where = ""
    if batch_shape:
        idx = []
        r = i
        for s in reversed(batch_shape):
            idx.append(r % s)
            r //= s
        where = f" (batch element {tuple(reversed(idx))})"
    raise LinAlgError(f"{fname}{where}: " + message.format(info=vals[i]))


def _fcopy(x, dtype=None):
    return _C._lapack_copy(x, dtype)


def _real_dtype(dt):
    tl = _tl()
    return {tl.complex64: tl.float32, tl.complex128: tl.float64}.get(dt, dt)


def _complex_dtype(dt):
    tl = _tl()
    return {tl.float32: tl.complex64, tl.float64: tl.complex128}.get(dt, dt)


def _into(out, r, fname):
    """Writes r into out= (resizing an empty out), PyTorch's out rules."""
    if out is None:
        return r
    if not isinstance(out, _C.Tensor):
        raise TypeError(f"{fname}: out must be a tensor")
    if out.dtype != r.dtype:
        raise TypeError(f"{fname}: expected out= to have dtype {r.dtype}, "
                        f"got {out.dtype}")
    if tuple(out.shape) != tuple(r.shape):
        if out.numel() != 0:
            raise _ShapeError(f"{fname}: out= has shape {list(out.shape)} "
                              f"but the result has shape {list(r.shape)}")
        out.resize_(r.shape)
    out.copy_(r)
    return out


def _eye(n, dtype):
    tl = _tl()
    return (tl.arange(n).unsqueeze(-1) == tl.arange(n)).to(dtype)


def _tril_mask(m, n, k=0):
    tl = _tl()
    return (tl.arange(m).unsqueeze(-1) + k) >= tl.arange(n)


def _tril(x, k=0):
    tl = _tl()
    return tl.where(_tril_mask(x.shape[-2], x.shape[-1], k), x,
                    tl.zeros((), dtype=x.dtype))


def _triu(x, k=0):
    tl = _tl()
    return tl.where(_tril_mask(x.shape[-2], x.shape[-1], k - 1), 
                    tl.zeros((), dtype=x.dtype), x)


def _conj(x):
    if _dtname(x).startswith("complex"):
        return _C._linalg_conj(x)
    return x


def _mH(x):
    return _conj(x).mT


def _batch_broadcast(fname, a, b, a_core=2, b_core=2):
    tl = _tl()
    try:
        return tuple(tl.broadcast_shapes(tuple(a.shape[:a.ndim - a_core]),
                                         tuple(b.shape[:b.ndim - b_core])))
    except (ValueError, RuntimeError):
        raise _ShapeError(f"{fname}: the batch dimensions of shapes "
                          f"{list(a.shape)} and {list(b.shape)} do not "
                          "broadcast") from None


# ---- products -------------------------------------------------------------

matmul = _C.matmul


def _same_dtype(fname, a, b):
    if a.dtype != b.dtype:
        raise TypeError(f"{fname}: expected both operands to have the same "
                        f"dtype, got {a.dtype} and {b.dtype}")


def mm(input, mat2, *, out=None):
    """mm(input, mat2, *, out=None): product of two 2-D tensors."""
    _check_tensor(input, "mm", "input")
    _check_tensor(mat2, "mm", "mat2")
    if input.ndim != 2 or mat2.ndim != 2:
        raise _ShapeError(f"mm: expected 2-D tensors, got shapes "
                          f"{list(input.shape)} and {list(mat2.shape)}")
    return _C.matmul(input, mat2, out=out)


def bmm(input, mat2, *, out=None):
    """bmm(input, mat2, *, out=None): batched product of (b, n, m) and
    (b, m, p) tensors (no broadcasting)."""
    _check_tensor(input, "bmm", "input")
    _check_tensor(mat2, "bmm", "mat2")
    if input.ndim != 3 or mat2.ndim != 3 or input.shape[0] != mat2.shape[0]:
        raise _ShapeError(f"bmm: expected 3-D tensors with one batch size, "
                          f"got shapes {list(input.shape)} and "
                          f"{list(mat2.shape)}")
    return _C.matmul(input, mat2, out=out)


def mv(input, vec, *, out=None):
    """mv(input, vec, *, out=None): matrix (n, m) times vector (m,)."""
    _check_tensor(input, "mv", "input")
    _check_tensor(vec, "mv", "vec")
    if input.ndim != 2 or vec.ndim != 1:
        raise _ShapeError(f"mv: expected a 2-D and a 1-D tensor, got shapes "
                          f"{list(input.shape)} and {list(vec.shape)}")
    return _C.matmul(input, vec, out=out)


def dot(input, other, *, out=None):
    """dot(input, other, *, out=None): inner product of two 1-D tensors
    (no conjugation)."""
    _check_tensor(input, "dot", "input")
    _check_tensor(other, "dot", "other")
    if input.ndim != 1 or other.ndim != 1:
        raise _ShapeError(f"dot: expected 1-D tensors, got shapes "
                          f"{list(input.shape)} and {list(other.shape)}")
    if input.shape[0] != other.shape[0]:
        raise _ShapeError(f"dot: inconsistent sizes {input.shape[0]} and "
                          f"{other.shape[0]}")
    _same_dtype("dot", input, other)
    return _C.matmul(input, other, out=out)


def vdot(input, other, *, out=None):
    """vdot(input, other, *, out=None): dot(conj(input), other)."""
    _check_tensor(input, "vdot", "input")
    _check_tensor(other, "vdot", "other")
    if input.ndim != 1 or other.ndim != 1:
        raise _ShapeError(f"vdot: expected 1-D tensors, got shapes "
                          f"{list(input.shape)} and {list(other.shape)}")
    _same_dtype("vdot", input, other)
    return dot(_conj(input), other, out=out)


def tensordot(a, b, dims=2, out=None):
    """tensordot(a, b, dims=2, out=None): contracts the last ``dims`` dims
    of a with the first of b, or the dims listed in ``dims = (da, db)``."""
    _check_tensor(a, "tensordot", "a")
    _check_tensor(b, "tensordot", "b")
    _same_dtype("tensordot", a, b)
    if isinstance(dims, int) or (isinstance(dims, _C.Tensor)
                                 and dims.ndim == 0):
        d = int(dims)
        if d < 0:
            raise ValueError(f"tensordot: dims must be non-negative, got "
                             f"{d}")
        if d > a.ndim or d > b.ndim:
            raise _ShapeError(f"tensordot: cannot contract {d} dims of "
                              f"shapes {list(a.shape)} and "
                              f"{list(b.shape)}")
        da = list(range(a.ndim - d, a.ndim))
        db = list(range(d))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise _ShapeError(f"tensordot: both dim lists must have one length, "
                          f"got {da} and {db}")
    da = [x % a.ndim if a.ndim else x for x in da]
    db = [x % b.ndim if b.ndim else x for x in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise _ShapeError(f"tensordot: contracted sizes differ: dim {x} "
                              f"of {list(a.shape)} and dim {y} of "
                              f"{list(b.shape)}")
    fa = [i for i in range(a.ndim) if i not in da]
    fb = [i for i in range(b.ndim) if i not in db]
    k = _math.prod(a.shape[i] for i in da)
    am = a.permute(fa + da).reshape(_math.prod(a.shape[i] for i in fa), k)
    bm = b.permute(db + fb).reshape(k, _math.prod(b.shape[i] for i in fb))
    r = _C.matmul(am, bm).reshape([a.shape[i] for i in fa] +
                                  [b.shape[i] for i in fb])
    return _into(out, r, "tensordot")


def inner(input, other, *, out=None):
    """inner(input, other, *, out=None): sums over the last dims of both."""
    tl = _tl()
    _check_tensor(input, "inner", "input")
    _check_tensor(other, "inner", "other")
    if input.ndim == 0 or other.ndim == 0:
        return tl.mul(input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise _ShapeError(f"inner: last dims differ: shapes "
                          f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]), out=out)


def outer(input, vec2, *, out=None):
    """outer(input, vec2, *, out=None): input[i] * vec2[j] (dtypes
    promote, as mul)."""
    tl = _tl()
    _check_tensor(input, "outer", "input")
    _check_tensor(vec2, "outer", "vec2")
    if input.ndim != 1 or vec2.ndim != 1:
        raise _ShapeError(f"outer: expected 1-D tensors, got shapes "
                          f"{list(input.shape)} and {list(vec2.shape)}")
    return tl.mul(input.unsqueeze(1), vec2.unsqueeze(0), out=out)


ger = outer


def _scaled_sum(fname, input, prod, beta, alpha, out):
    """beta * input + alpha * prod; beta == 0 ignores input (NaN too)."""
    tl = _tl()
    integral = not (_dtname(prod).startswith("float") or
                    _dtname(prod).startswith("complex") or
                    _dtname(prod) == "bfloat16")
    for name, v in (("beta", beta), ("alpha", alpha)):
        if integral and isinstance(v, float) and not float(v).is_integer():
            raise TypeError(f"{fname}: {name} must be an integer for "
                            f"integral input, got {v}")
    if alpha != 1:
        prod = tl.mul(prod, alpha)
    try:
        shape = tuple(tl.broadcast_shapes(tuple(input.shape),
                                          tuple(prod.shape)))
    except (ValueError, RuntimeError):
        shape = None
    if shape != tuple(prod.shape):
        raise _ShapeError(f"{fname}: input of shape {list(input.shape)} "
                          f"does not broadcast to the product's shape "
                          f"{list(prod.shape)}")
    if beta == 0:
        return _into(out, prod, fname)
    if input.dtype != prod.dtype:
        raise TypeError(f"{fname}: expected input to have dtype "
                        f"{prod.dtype}, got {input.dtype}")
    scaled = input if beta == 1 else tl.mul(input, beta)
    r = tl.add(scaled, prod).to(prod.dtype)
    return _into(out, r, fname)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    beta * input + alpha * (mat1 @ mat2)."""
    _check_tensor(input, "addmm", "input")
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha, out)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    beta * input + alpha * (mat @ vec)."""
    _check_tensor(input, "addmv", "input")
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha, out)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    beta * input + alpha * bmm(batch1, batch2)."""
    _check_tensor(input, "baddbmm", "input")
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha,
                       out)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    beta * input + alpha * sum_b (batch1[b] @ batch2[b])."""
    _check_tensor(input, "addbmm", "input")
    p = bmm(batch1, batch2)
    s = p.sum(0)
    if s.dtype != p.dtype:
        s = s.to(p.dtype)
    return _scaled_sum("addbmm", input, s, beta, alpha, out)


def kron(input, other, *, out=None):
    """kron(input, other, *, out=None): the Kronecker product."""
    tl = _tl()
    _check_tensor(input, "kron", "input")
    _check_tensor(other, "kron", "other")
    nd = _b.max(input.ndim, other.ndim)
    sa = [1] * (nd - input.ndim) + list(input.shape)
    sb = [1] * (nd - other.ndim) + list(other.shape)
    ia, ib = [], []
    for x, y in zip(sa, sb):
        ia += [x, 1]
        ib += [1, y]
    r = tl.mul(input.reshape(ia), other.reshape(ib))
    r = r.reshape([x * y for x, y in zip(sa, sb)])
    return _into(out, r, "kron")


def trace(input):
    """trace(input): sum of the main diagonal of a 2-D tensor."""
    _check_tensor(input, "trace", "input")
    if input.ndim != 2:
        raise _ShapeError(f"trace: expected a 2-D tensor, got shape "
                          f"{list(input.shape)}")
    return input.diagonal(0, 0, 1).sum()


def _cross(fname, a, b, dim, out):
    tl = _tl()
    _check_tensor(a, fname, "input")
    _check_tensor(b, fname, "other")
    if a.ndim != b.ndim:
        raise _ShapeError(f"{fname}: inputs must have the same number of "
                          f"dimensions, got shapes {list(a.shape)} and "
                          f"{list(b.shape)}")
    try:
        shape = tuple(tl.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    except (ValueError, RuntimeError):
        raise _ShapeError(f"{fname}: shapes {list(a.shape)} and "
                          f"{list(b.shape)} do not broadcast") from None
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise _ShapeError(f"{fname}: no dimension of size 3 in shape "
                              f"{list(shape)}")
    if not -len(shape) <= dim < len(shape):
        raise IndexError(f"{fname}: dim {dim} out of range for "
                         f"{len(shape)} dims")
    dim %= len(shape)
    if shape[dim] != 3 or a.shape[dim] != 3 or b.shape[dim] != 3:
        raise _ShapeError(f"{fname}: dimension {dim} must have size 3, got "
                          f"shapes {list(a.shape)} and {list(b.shape)}")
    a = a.expand(shape)
    b = b.expand(shape)
    rdt = tl.promote_types(a.dtype, b.dtype)
    r = tl.empty(shape, dtype=rdt)

    def c(t, i):
        return t.narrow(dim, i, 1)
    for i, (j, k) in enumerate(((1, 2), (2, 0), (0, 1))):
        r.narrow(dim, i, 1).copy_(tl.sub(tl.mul(c(a, j), c(b, k)),
                                         tl.mul(c(a, k), c(b, j))))
    return _into(out, r, fname)


def cross(input, other, dim=-1, *, out=None):
    """linalg.cross(input, other, dim=-1, *, out=None): the 3-vector cross
    product along dim (inputs broadcast)."""
    return _cross("linalg.cross", input, other, dim, out)


def _top_cross(input, other, dim=None, *, out=None):
    """cross(input, other, dim=None, *, out=None): as linalg.cross; dim
    None means the first dimension of size 3 (PyTorch's old default)."""
    return _cross("cross", input, other, dim, out)


# ---- einsum ---------------------------------------------------------------

def _parse_einsum(eq, shapes):
    eq = eq.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->")
        explicit = True
    else:
        lhs, rhs, explicit = eq, None, False
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum(): the equation names {len(terms)} "
                         f"operands but {len(shapes)} were given")
    ell_n = 0
    parsed = []
    for t, shp in zip(terms, shapes):
        if t.count("...") > 1 or "." in t.replace("...", ""):
            raise ValueError(f"einsum(): bad ellipsis in {t!r}")
        for ch in t.replace("...", ""):
            if not ch.isalpha():
                raise ValueError(f"einsum(): invalid subscript {ch!r} in "
                                 f"{eq!r}")
        nlab = len(t.replace("...", ""))
        if "..." in t:
            ne = len(shp) - nlab
            if ne < 0:
                raise _ShapeError(f"einsum(): operand of shape {list(shp)} "
                                  f"has fewer dims than {t!r}")
            ell_n = _b.max(ell_n, ne)
        elif nlab != len(shp):
            raise _ShapeError(f"einsum(): subscripts {t!r} name {nlab} "
                              f"dims, the operand has shape {list(shp)}")
        parsed.append(t)
    ell = [chr(0x100 + i) for i in range(ell_n)]   # stand-in labels
    labs = []
    for t, shp in zip(parsed, shapes):
        if "..." in t:
            pre, post = t.split("...")
            ne = len(shp) - len(pre) - len(post)
            labs.append(list(pre) + ell[ell_n - ne:] + list(post))
        else:
            labs.append(list(t))
    if explicit:
        if rhs.count("...") > 1:
            raise ValueError("einsum(): bad ellipsis in the output")
        out = []
        pre, _, post = rhs.partition("...")
        out = list(pre) + (ell if "..." in rhs else []) + list(post)
        if "..." not in rhs and ell_n:
            # NumPy: broadcast dims not in an explicit output are summed
            pass
        for ch in rhs.replace("...", ""):
            if not ch.isalpha():
                raise ValueError(f"einsum(): invalid subscript {ch!r}")
            if not any(ch in L for L in labs):
                raise ValueError(f"einsum(): output subscript {ch!r} "
                                 "appears in no input")
        if len(set(out)) != len(out):
            raise ValueError(f"einsum(): output subscripts repeat in "
                             f"{rhs!r}")
    else:
        counts = {}
        for L in labs:
            for ch in L:
                counts[ch] = counts.get(ch, 0) + 1
        out = ell + sorted(ch for ch, c in counts.items()
                           if c == 1 and ch not in ell)
    return labs, out


def _einsum_prepare(t, labs, keep, sizes):
    """Takes diagonals of repeated labels, sums labels nobody else needs,
    expands size-1 dims to the label's size.  Returns (tensor, labels)."""
    labs = list(labs)
    while True:
        dup = next((ch for ch in labs if labs.count(ch) > 1), None)
        if dup is None:
            break
        i = labs.index(dup)
        j = labs.index(dup, i + 1)
        if t.shape[i] != t.shape[j]:
            raise _ShapeError(f"einsum(): subscript {dup!r} is repeated "
                              f"with sizes {t.shape[i]} and {t.shape[j]}")
        t = t.diagonal(0, i, j)
        labs = [c for k, c in enumerate(labs) if k not in (i, j)] + [dup]
    drop = [k for k, c in enumerate(labs) if c not in keep]
    if drop:
        t = t.sum(tuple(drop)) if t.numel() else _zero_sum(t, drop)
        labs = [c for k, c in enumerate(labs) if k not in drop]
    want = [sizes[c] for c in labs]
    if list(t.shape) != want:
        t = t.expand(want)
    return t, labs


def _zero_sum(t, drop):
    tl = _tl()
    shape = [s for k, s in enumerate(t.shape) if k not in drop]
    return tl.zeros(shape, dtype=t.dtype)


def _contract(a, la, b, lb, keep):
    """Contracts two prepared operands through one batched matmul."""
    batch = [c for c in la if c in lb and c in keep]
    con = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    sz = {}
    for t, L in ((a, la), (b, lb)):
        for c, s in zip(L, t.shape):
            sz[c] = s
    pa = a.permute([la.index(c) for c in batch + left + con])
    pb = b.permute([lb.index(c) for c in batch + con + right])
    B = [sz[c] for c in batch]
    M = _math.prod(sz[c] for c in left)
    K = _math.prod(sz[c] for c in con)
    N = _math.prod(sz[c] for c in right)
    r = _C.matmul(pa.reshape(B + [M, K]), pb.reshape(B + [K, N]))
    return r.reshape(B + [sz[c] for c in left] + [sz[c] for c in right]), \
        batch + left + right


def einsum(equation, *operands, out=None):
    """einsum(equation, *operands, out=None): Einstein summation.

    Implicit and explicit outputs, ``...``, repeated subscripts within an
    operand (diagonals).  Operands are contracted pairwise through the
    batched matmul, in the order that keeps every intermediate smallest
    (greedy), as ``np.einsum(optimize='greedy')`` does."""
    tl = _tl()
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum(): the equation must be a string")
    if not operands:
        raise ValueError("einsum(): at least one operand is needed")
    for o in operands:
        _check_tensor(o, "einsum", "operand")
    dt = operands[0].dtype
    for o in operands[1:]:
        if o.dtype != dt:
            raise TypeError(f"einsum(): expected every operand to have one "
                            f"dtype, got {dt} and {o.dtype}")
    labs, outl = _parse_einsum(equation, [tuple(o.shape) for o in operands])
    sizes = {}
    for o, L in zip(operands, labs):
        for c, s in zip(L, o.shape):
            if c in sizes and sizes[c] != s and s != 1 and sizes[c] != 1:
                raise _ShapeError(f"einsum(): subscript {c!r} has sizes "
                                  f"{sizes[c]} and {s}")
            sizes[c] = s if c not in sizes or sizes[c] == 1 else sizes[c]
    ops = []
    for k, (o, L) in enumerate(zip(operands, labs)):
        keep = set(outl)
        for j, L2 in enumerate(labs):
            if j != k:
                keep |= set(L2)
        ops.append(_einsum_prepare(o, L, keep, sizes))
    while len(ops) > 1:
        best = None
        for i in range(len(ops)):
            for j in range(i + 1, len(ops)):
                keep = set(outl)
                for q, (_, L) in enumerate(ops):
                    if q not in (i, j):
                        keep |= set(L)
                la, lb = ops[i][1], ops[j][1]
                res = set(c for c in la + lb if c in keep)
                cost = _math.prod(sizes[c] for c in res)
                if best is None or cost < best[0]:
                    best = (cost, i, j, keep)
        _, i, j, keep = best
        (a, la), (b, lb) = ops[i], ops[j]
        r = _contract(a, la, b, lb, keep)
        ops = [o for q, o in enumerate(ops) if q not in (i, j)] + [r]
    t, L = ops[0]
    t, L = _einsum_prepare(t, L, set(outl), sizes)
    r = t.permute([L.index(c) for c in outl]) if L else t
    if out is not None:
        return _into(out, r.contiguous(), "einsum")
    return r


# ---- factorizations and solvers -------------------------------------------

def _lu_raw(A, fname):
    LU = _fcopy(A)
    bs = tuple(A.shape[:-2])
    piv = _tl().empty(bs + (_b.min(A.shape[-2], A.shape[-1]),),
                      dtype=_tl().int64)
    info = _info(bs)
    _C._lapack_getrf(LU, piv, info)
    if fname not in ("linalg.det", "linalg.slogdet"):
        # det and slogdet of a NaN matrix are NaN (from the NaN diagonal)
        _raise_info(info, fname, bs, "", nan_only=True)
    return LU, piv, info


def _singular(fname):
    return ("the solver failed because the input matrix is singular "
            "(U[{info}, {info}] of its LU factorization is zero)")


def inv(A, *, out=None):
    """linalg.inv(A, *, out=None): the inverse of square matrices."""
    _check_matrix(A, "linalg.inv", square=True)
    LU, piv, info = _lu_raw(A, "linalg.inv")
    _raise_info(info, "linalg.inv", tuple(A.shape[:-2]),
                "the matrix is singular (U[{info}, {info}] of its LU "
                "factorization is zero, 1-based)")
    info = _info(tuple(A.shape[:-2]))
    _C._lapack_getri(LU, piv, info)
    _raise_info(info, "linalg.inv", tuple(A.shape[:-2]), "the matrix is "
                "singular")
    return _into(out, LU, "linalg.inv")


def inverse(input):
    """inverse(input): linalg.inv."""
    return inv(input)


def _solve_prep(fname, A, B):
    _check_matrix(A, fname, square=True)
    _check_float(B, fname, "B")
    if A.dtype != B.dtype:
        raise TypeError(f"{fname}: expected A and B to have the same "
                        f"dtype, got {A.dtype} and {B.dtype}")
    vec = B.ndim == 1 or (B.ndim == A.ndim - 1 and
                          tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vec else B
    if Bm.ndim < 2 or Bm.shape[-2] != A.shape[-1]:
        raise _ShapeError(f"{fname}: A of shape {list(A.shape)} and B of "
                          f"shape {list(B.shape)} do not match")
    bs = _batch_broadcast(fname, A, Bm)
    return vec, Bm, bs


def solve(A, B, *, left=True, out=None):
    """linalg.solve(A, B, *, left=True, out=None): X with A X = B (or
    X A = B when left is False); a 1-D B (or one of A's shape minus the
    last dim) is a vector."""
    fname = "linalg.solve"
    if not left:
        _check_matrix(A, fname, square=True)
        _check_float(B, fname, "B")
        return _into(out, solve(A.mT, B.mT).mT, fname)
    vec, Bm, bs = _solve_prep(fname, A, B)
    n = A.shape[-1]
    LU, piv, info = _lu_raw(A.expand(bs + (n, n)), fname)
    _raise_info(info, fname, bs, "the solver failed because the input "
                "matrix is singular (U[{info}, {info}] of its LU "
                "factorization is zero, 1-based)")
    X = _fcopy(Bm.expand(bs + tuple(Bm.shape[-2:])))
    info = _info(bs)
    _C._lapack_getrs(LU, piv, X, info, "N")
    _raise_info(info, fname, bs, "", nan_only=True)
    r = X.squeeze(-1) if vec else X
    return _into(out, r, fname)


def _perm_sign(piv):
    tl = _tl()
    n = piv.shape[-1]
    swaps = (piv != tl.arange(1, n + 1)).sum(-1)
    return 1 - 2 * (swaps % 2)


def det(A, *, out=None):
    """linalg.det(A, *, out=None): determinants (0 for singular
    matrices)."""
    tl = _tl()
    _check_matrix(A, "linalg.det", square=True)
    LU, piv, _ = _lu_raw(A, "linalg.det")
    d = LU.diagonal(0, -2, -1).prod(-1)
    r = tl.mul(d, _perm_sign(piv).to(A.dtype)).to(A.dtype)
    return _into(out, r, "linalg.det")


class _SlogdetResult(_NamedTuple):
    sign: object
    logabsdet: object


def slogdet(A, *, out=None):
    """linalg.slogdet(A, *, out=None): (sign, log|det|); sign is 0 and
    logabsdet -inf for singular matrices."""
    tl = _tl()
    _check_matrix(A, "linalg.slogdet", square=True)
    LU, piv, _ = _lu_raw(A, "linalg.slogdet")
    d = LU.diagonal(0, -2, -1)
    sign = tl.mul(tl.sgn(d).prod(-1), _perm_sign(piv).to(A.dtype))
    sign = sign.to(A.dtype)
    logabs = d.abs().log().sum(-1)
    if out is not None:
        _into(out[0], sign, "linalg.slogdet")
        _into(out[1], logabs, "linalg.slogdet")
        return _SlogdetResult(out[0], out[1])
    return _SlogdetResult(sign, logabs)


def cholesky(A, *, upper=False, out=None):
    """linalg.cholesky(A, *, upper=False, out=None): L with A = L L^H (or
    U with A = U^H U)."""
    fname = "linalg.cholesky"
    _check_matrix(A, fname, square=True)
    C = _fcopy(A)
    info = _info(tuple(A.shape[:-2]))
    _C._lapack_potrf(C, info, bool(upper))
    _raise_info(info, fname, tuple(A.shape[:-2]),
                "the factorization could not be completed because the "
                "input is not positive-definite (the leading minor of "
                "order {info} is not positive-definite)")
    r = _triu(C) if upper else _tril(C)
    return _into(out, r, fname)


class _QRResult(_NamedTuple):
    Q: object
    R: object


def qr(A, mode="reduced", *, out=None):
    """linalg.qr(A, mode='reduced', *, out=None): A = Q R; mode
    'reduced', 'complete' or 'r' (Q empty)."""
    tl = _tl()
    fname = "linalg.qr"
    _check_matrix(A, fname)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"{fname}: mode must be 'reduced', 'complete' or "
                         f"'r', got {mode!r}")
    m, n = A.shape[-2], A.shape[-1]
    k = _b.min(m, n)
    bs = tuple(A.shape[:-2])
    F = _fcopy(A)
    tau = tl.empty(bs + (k,), dtype=A.dtype)
    info = _info(bs)
    _C._lapack_geqrf(F, tau, info)
    _raise_info(info, fname, bs, "", nan_only=True)
    rows = m if mode == "complete" else k
    R = _triu(F.narrow(-2, 0, rows)) if rows <= m else None
    if mode == "complete" and m > n:
        R = tl.zeros(bs + (m, n), dtype=A.dtype)
        R.narrow(-2, 0, n).copy_(_triu(F.narrow(-2, 0, n)))
    if mode == "r":
        Q = tl.empty(0, dtype=A.dtype)
    else:
        qcols = m if mode == "complete" else k
        if qcols <= n:
            Qf = _fcopy(F.narrow(-1, 0, qcols))
        else:
            Qf = _fcopy(tl.zeros(bs + (m, qcols), dtype=A.dtype))
            Qf.narrow(-1, 0, n).copy_(F)
        info = _info(bs)
        _C._lapack_orgqr(Qf, tau, info)
        _raise_info(info, fname, bs, "", nan_only=True)
        Q = Qf
    if out is not None:
        _into(out[0], Q, fname)
        _into(out[1], R, fname)
        return _QRResult(out[0], out[1])
    return _QRResult(Q, R)


class _EighResult(_NamedTuple):
    eigenvalues: object
    eigenvectors: object


def _syevd(A, UPLO, vectors, fname):
    tl = _tl()
    _check_matrix(A, fname, square=True)
    if UPLO not in ("L", "U"):
        raise ValueError(f"{fname}: UPLO must be 'L' or 'U', got {UPLO!r}")
    bs = tuple(A.shape[:-2])
    F = _fcopy(A)
    w = tl.empty(bs + (A.shape[-1],), dtype=_real_dtype(A.dtype))
    info = _info(bs)
    _C._lapack_syevd(F, w, info, UPLO == "U", vectors)
    _raise_info(info, fname, bs, "the algorithm failed to converge "
                "({info} off-diagonal elements did not converge)")
    return w, F


def eigh(A, UPLO="L", *, out=None):
    """linalg.eigh(A, UPLO='L', *, out=None): eigenvalues (ascending,
    real) and eigenvectors of Hermitian matrices, from the UPLO
    triangle."""
    w, V = _syevd(A, UPLO, True, "linalg.eigh")
    if out is not None:
        _into(out[0], w, "linalg.eigh")
        _into(out[1], V, "linalg.eigh")
        return _EighResult(out[0], out[1])
    return _EighResult(w, V)


def eigvalsh(A, UPLO="L", *, out=None):
    """linalg.eigvalsh(A, UPLO='L', *, out=None): eigenvalues of Hermitian
    matrices, ascending."""
    w, _ = _syevd(A, UPLO, False, "linalg.eigvalsh")
    return _into(out, w, "linalg.eigvalsh")


class _EigResult(_NamedTuple):
    eigenvalues: object
    eigenvectors: object


def _geev(A, vectors, fname):
    tl = _tl()
    _check_matrix(A, fname, square=True)
    bs = tuple(A.shape[:-2])
    n = A.shape[-1]
    cdt = _complex_dtype(A.dtype)
    F = _fcopy(A)
    w = tl.empty(bs + (n,), dtype=cdt)
    V = _fcopy(tl.empty(bs + (n, n), dtype=cdt)) if vectors else None
    info = _info(bs)
    _C._lapack_geev(F, w, V, info)
    _raise_info(info, fname, bs, "the QR algorithm failed to compute all "
                "the eigenvalues ({info} did not converge)")
    return w, V


def eig(A, *, out=None):
    """linalg.eig(A, *, out=None): eigenvalues and right eigenvectors
    (complex, unit norm) of square matrices."""
    w, V = _geev(A, True, "linalg.eig")
    if out is not None:
        _into(out[0], w, "linalg.eig")
        _into(out[1], V, "linalg.eig")
        return _EigResult(out[0], out[1])
    return _EigResult(w, V)


def eigvals(A, *, out=None):
    """linalg.eigvals(A, *, out=None): eigenvalues (complex)."""
    w, _ = _geev(A, False, "linalg.eigvals")
    return _into(out, w, "linalg.eigvals")


class _SVDResult(_NamedTuple):
    U: object
    S: object
    Vh: object


def _gesdd(A, jobz, fname):
    tl = _tl()
    _check_matrix(A, fname)
    bs = tuple(A.shape[:-2])
    m, n = A.shape[-2], A.shape[-1]
    k = _b.min(m, n)
    F = _fcopy(A)
    s = tl.empty(bs + (k,), dtype=_real_dtype(A.dtype))
    U = Vh = None
    if jobz != "N":
        uc = m if jobz == "A" else k
        vr = n if jobz == "A" else k
        U = _fcopy(tl.empty(bs + (m, uc), dtype=A.dtype))
        Vh = _fcopy(tl.empty(bs + (vr, n), dtype=A.dtype))
        if k == 0:
            # LAPACK is not called: U and Vh of an empty matrix are
            # identities of their sizes.
            U.copy_(_eye(m, A.dtype)[:, :uc] if m else U)
            Vh.copy_(_eye(n, A.dtype)[:vr] if n else Vh)
    info = _info(bs)
    _C._lapack_gesdd(F, s, U, Vh, info, jobz)
    _raise_info(info, fname, bs, "the algorithm failed to converge "
                "(the input may be ill-conditioned or hold non-finite "
                "values; {info} superdiagonals did not converge)")
    return U, s, Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    """linalg.svd(A, full_matrices=True, *, driver=None, out=None): A =
    U diag(S) Vh, S descending."""
    U, S, Vh = _gesdd(A, "A" if full_matrices else "S", "linalg.svd")
    if out is not None:
        for o, r in zip(out, (U, S, Vh)):
            _into(o, r, "linalg.svd")
        return _SVDResult(*out)
    return _SVDResult(U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    """linalg.svdvals(A, *, driver=None, out=None): singular values,
    descending."""
    _, S, _ = _gesdd(A, "N", "linalg.svdvals")
    return _into(out, S, "linalg.svdvals")


class _LstsqResult(_NamedTuple):
    solution: object
    residuals: object
    rank: object
    singular_values: object


def lstsq(A, B, rcond=None, *, driver=None):
    """linalg.lstsq(A, B, rcond=None, *, driver=None): the least-squares
    solution of A X = B (LAPACK gelsd, so rank and singular values are
    always computed); residuals when m > n and A has full rank."""
    tl = _tl()
    fname = "linalg.lstsq"
    _check_matrix(A, fname)
    _check_float(B, fname, "B")
    if A.dtype != B.dtype:
        raise TypeError(f"{fname}: expected A and B to have the same "
                        f"dtype, got {A.dtype} and {B.dtype}")
    if driver not in (None, "gelsd"):
        raise ValueError(f"{fname}: driver {driver!r} is not available "
                         "(tensorlib uses gelsd)")
    vec = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vec else B
    m, n = A.shape[-2], A.shape[-1]
    if Bm.ndim < 2 or Bm.shape[-2] != m:
        raise _ShapeError(f"{fname}: A of shape {list(A.shape)} and B of "
                          f"shape {list(B.shape)} do not match")
    bs = _batch_broadcast(fname, A, Bm)
    k = Bm.shape[-1]
    F = _fcopy(A.expand(bs + (m, n)))
    X = tl.zeros(bs + (_b.max(m, n), k), dtype=A.dtype)
    X.narrow(-2, 0, m).copy_(Bm.expand(bs + (m, k)))
    X = _fcopy(X)
    rdt = _real_dtype(A.dtype)
    s = tl.empty(bs + (_b.min(m, n),), dtype=rdt)
    rank = tl.empty(bs, dtype=tl.int64)
    info = _info(bs)
    rc = -1.0 if rcond is None else float(rcond)
    _C._lapack_gelsd(F, X, s, rank.reshape(-1), info, rc)
    _raise_info(info, fname, bs, "the SVD failed to converge ({info})")
    sol = X.narrow(-2, 0, n)
    if m > n and bool((rank == n).all()) and n > 0:
        resid = (X.narrow(-2, n, m - n).abs() ** 2).sum(-2)
    else:
        resid = tl.empty(0, dtype=rdt)
    if vec:
        sol = sol.squeeze(-1)
        if resid.numel():
            resid = resid.squeeze(-1)
    return _LstsqResult(sol, resid, rank, s)


class _LUFactorResult(_NamedTuple):
    LU: object
    pivots: object


def lu_factor(A, *, pivot=True, out=None):
    """linalg.lu_factor(A, *, pivot=True, out=None): (LU, pivots), pivots
    int32 and 1-based as LAPACK's."""
    tl = _tl()
    if not pivot:
        raise ValueError("linalg.lu_factor: LU without pivoting is not "
                         "available on the CPU")
    _check_matrix(A, "linalg.lu_factor")
    LU, piv, _ = _lu_raw(A, "linalg.lu_factor")
    piv = piv.to(tl.int32)
    if out is not None:
        _into(out[0], LU, "linalg.lu_factor")
        _into(out[1], piv, "linalg.lu_factor")
        return _LUFactorResult(out[0], out[1])
    return _LUFactorResult(LU, piv)


class _LUResult(_NamedTuple):
    P: object
    L: object
    U: object


def _perm_matrix(piv, m, dtype):
    """P with A = P L U from LAPACK's 1-based row swaps."""
    tl = _tl()
    bs = tuple(piv.shape[:-1])
    rows = piv.reshape(-1, piv.shape[-1]).tolist() if piv.numel() else \
        [[] for _ in range(_math.prod(bs))]
    perms = []
    for sw in rows:
        perm = list(range(m))
        for i, p in enumerate(sw):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        perms.append(perm)
    pt = tl.tensor(perms, dtype=tl.int64).reshape(bs + (m,)) if m else \
        tl.zeros(bs + (0,), dtype=tl.int64)
    return (tl.arange(m).unsqueeze(-1) == pt.unsqueeze(-2)).to(dtype)


def lu(A, *, pivot=True, out=None):
    """linalg.lu(A, *, pivot=True, out=None): P, L, U with A = P L U (L
    unit lower trapezoidal, U upper)."""
    if not pivot:
        raise ValueError("linalg.lu: LU without pivoting is not available "
                         "on the CPU")
    _check_matrix(A, "linalg.lu")
    m, n = A.shape[-2], A.shape[-1]
    k = _b.min(m, n)
    LU, piv, _ = _lu_raw(A, "linalg.lu")
    L = _tril(LU.narrow(-1, 0, k), -1)
    L = _tl().add(L, _eye_rect(m, k, A.dtype))
    U = _triu(LU.narrow(-2, 0, k))
    P = _perm_matrix(piv, m, A.dtype)
    if out is not None:
        for o, r in zip(out, (P, L, U)):
            _into(o, r, "linalg.lu")
        return _LUResult(*out)
    return _LUResult(P, L, U)


def _eye_rect(m, k, dtype):
    tl = _tl()
    return (tl.arange(m).unsqueeze(-1) == tl.arange(k)).to(dtype)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """linalg.lu_solve(LU, pivots, B, *, left=True, adjoint=False,
    out=None): solves A X = B from lu_factor's output (A^H X = B when
    adjoint; X A = B when not left)."""
    tl = _tl()
    fname = "linalg.lu_solve"
    _check_matrix(LU, fname, square=True, what="LU")
    _check_float(B, fname, "B")
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        r = lu_solve(LU, pivots, _mH(B), left=True, adjoint=not adjoint)
        return _into(out, _mH(r), fname)
    if B.dtype != LU.dtype:
        raise TypeError(f"{fname}: expected LU and B to have the same "
                        f"dtype, got {LU.dtype} and {B.dtype}")
    if B.ndim < 2 or B.shape[-2] != LU.shape[-1]:
        raise _ShapeError(f"{fname}: LU of shape {list(LU.shape)} and B of "
                          f"shape {list(B.shape)} do not match")
    bs = _batch_broadcast(fname, LU, B)
    n = LU.shape[-1]
    F = _fcopy(LU.expand(bs + (n, n)))
    piv = pivots.expand(bs + (n,)).to(tl.int64).contiguous()
    X = _fcopy(B.expand(bs + tuple(B.shape[-2:])))
    info = _info(bs)
    trans = "N"
    if adjoint:
        trans = "C" if _dtname(LU).startswith("complex") else "T"
    _C._lapack_getrs(F, piv, X, info, trans)
    _raise_info(info, fname, bs, "", nan_only=True)
    return _into(out, X, fname)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False,
                     out=None):
    """linalg.solve_triangular(A, B, *, upper, left=True,
    unitriangular=False, out=None): X with A X = B (X A = B when not
    left) for triangular A."""
    fname = "linalg.solve_triangular"
    _check_matrix(A, fname, square=True)
    _check_matrix(B, fname, what="B")
    if A.dtype != B.dtype:
        raise TypeError(f"{fname}: expected A and B to have the same "
                        f"dtype, got {A.dtype} and {B.dtype}")
    trans = "N"
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        B = B.mT
        trans = "T"
    if B.shape[-2] != A.shape[-1]:
        raise _ShapeError(f"{fname}: A of shape {list(A.shape)} and B of "
                          f"shape {list(B.shape)} do not match")
    bs = _batch_broadcast(fname, A, B)
    n = A.shape[-1]
    F = _fcopy(A.expand(bs + (n, n)))
    X = _fcopy(B.expand(bs + tuple(B.shape[-2:])))
    info = _info(bs)
    _C._lapack_trtrs(F, X, info, bool(upper), trans, bool(unitriangular))
    _raise_info(info, fname, bs, "the matrix is singular (a zero on the "
                "diagonal at {info}, 1-based)")
    r = X.mT if not left else X
    return _into(out, r, fname)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """linalg.pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    the Moore-Penrose pseudo-inverse, through the SVD; singular values
    below max(atol, rtol * max(S)) count as zero (rtol defaults to
    eps * max(m, n) when atol is not given)."""
    tl = _tl()
    fname = "linalg.pinv"
    _check_matrix(A, fname)
    U, S, Vh = _gesdd(A, "S", fname)
    cut = _cutoff(A, S, atol, rtol)
    Sinv = tl.where(S > cut, 1.0 / S, tl.zeros((), dtype=S.dtype))
    r = _C.matmul(tl.mul(_mH(Vh), Sinv.unsqueeze(-2).to(A.dtype)),
                  _mH(U))
    return _into(out, r, fname)


def _cutoff(A, S, atol, rtol):
    tl = _tl()
    m, n = A.shape[-2], A.shape[-1]
    eps = {"float32": 1.1920929e-07, "complex64": 1.1920929e-07}.get(
        _dtname(A), 2.220446049250313e-16)
    if rtol is None:
        rtol = eps * _b.max(m, n) if atol is None or atol == 0 else 0.0
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else \
        tl.zeros(tuple(S.shape[:-1]) + (1,), dtype=S.dtype)
    cut = tl.mul(smax, rtol)
    if atol is not None:
        cut = tl.maximum(cut, tl.full((), float(atol), dtype=S.dtype))
    return cut


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """linalg.matrix_rank(A, *, atol=None, rtol=None, hermitian=False,
    out=None): the number of singular values above the tolerance."""
    fname = "linalg.matrix_rank"
    _check_matrix(A, fname)
    if hermitian:
        w, _ = _syevd(A, "L", False, fname)
        S = w.abs()
    else:
        _, S, _ = _gesdd(A, "N", fname)
    r = (S > _cutoff(A, S, atol, rtol)).sum(-1)
    return _into(out, r, fname)


def matrix_power(A, n, *, out=None):
    """linalg.matrix_power(A, n, *, out=None): A^n by repeated squaring
    (n < 0 inverts first; n == 0 gives identities)."""
    tl = _tl()
    fname = "linalg.matrix_power"
    _check_tensor(A, fname)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise _ShapeError(f"{fname}: A must be batches of square matrices, "
                          f"got shape {list(A.shape)}")
    if not isinstance(n, int):
        raise TypeError(f"{fname}: n must be an int")
    if n == 0:
        r = _eye(A.shape[-1], A.dtype).expand(A.shape).contiguous()
        return _into(out, r, fname)
    if n < 0:
        A = inv(A)
        n = -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else _C.matmul(result, base)
        n >>= 1
        if n:
            base = _C.matmul(base, base)
    if result is A:
        result = result.clone()
    return _into(out, result, fname)


# ---- norms ----------------------------------------------------------------

def _norm_dtype(x, dtype, fname):
    if dtype is not None:
        x = x.to(dtype)
    if _dtname(x) not in _FLOATS + ("float16", "bfloat16"):
        raise TypeError(f"{fname}: expected a floating point or complex "
                        f"tensor, got {x.dtype}")
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None,
                out=None):
    """linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *,
    dtype=None, out=None): the ord-norm of x over dim (all dims when
    None), as a vector."""
    tl = _tl()
    fname = "linalg.vector_norm"
    _check_tensor(x, fname, "x")
    x = _norm_dtype(x, dtype, fname)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is None:
        dim = tuple(range(x.ndim))
        if keepdim is False and x.ndim:
            pass
    dim = tuple(dim)
    if ord == 2 and dim and x.ndim:
        # one pass, squares in float64, no temporary (Note [The 2-norm as
        # var's second pass] in csrc/core/reduce.c)
        return _into(out, _C._vector_norm2(x, dim, keepdim), fname)
    a = x.abs()
    if a.numel() == 0 and ord in (float("inf"), float("-inf")) and \
            any(x.shape[d] == 0 for d in dim):
        raise _ShapeError(f"{fname}: cannot take the {ord}-norm over an "
                          "empty dimension")
    if not dim and x.ndim:
        r = a
    elif ord == float("inf"):
        r = a.amax(dim, keepdim=keepdim) if x.ndim else a
    elif ord == float("-inf"):
        r = a.amin(dim, keepdim=keepdim) if x.ndim else a
    elif ord == 0:
        r = (a != 0).to(a.dtype).sum(dim, keepdim=keepdim) if x.ndim else \
            (a != 0).to(a.dtype)
    elif ord == 1:
        r = a.sum(dim, keepdim=keepdim) if x.ndim else a
    elif ord == 2:  # a 0-d x here: the norm over dims is tl_reduce_norm2
        r = a
    else:
        p = float(ord)
        r = (a ** p).sum(dim, keepdim=keepdim) ** (1.0 / p) if x.ndim \
            else a
    return _into(out, r, fname)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None,
                out=None):
    """linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *,
    dtype=None, out=None): 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    tl = _tl()
    fname = "linalg.matrix_norm"
    _check_tensor(A, fname)
    A = _norm_dtype(A, dtype, fname)
    if A.ndim < 2:
        raise _ShapeError(f"{fname}: A must have at least 2 dims, got shape "
                          f"{list(A.shape)}")
    d0, d1 = dim
    d0 %= A.ndim
    d1 %= A.ndim
    if d0 == d1:
        raise _ShapeError(f"{fname}: dims must differ, got {dim}")
    if ord == "fro":
        a = A.abs()
        r = (a * a).sum((d0, d1), keepdim=keepdim).sqrt()
    elif ord in ("nuc", 2, -2):
        M = A.movedim((d0, d1), (-2, -1))
        S = svdvals(M)
        r = S.sum(-1) if ord == "nuc" else (S.amax(-1) if ord == 2 else
                                            S.amin(-1))
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).movedim((-2, -1), (d0, d1))
    elif ord in (1, -1, float("inf"), float("-inf")):
        a = A.abs()
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = a.sum(sum_dim, keepdim=True)
        r = s.amax(red_dim, keepdim=True) if ord in (1, float("inf")) else \
            s.amin(red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze((d0, d1)) if hasattr(r, "squeeze") else r
    else:
        raise ValueError(f"{fname}: unsupported ord {ord!r}")
    return _into(out, r, fname)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None,
    out=None): a vector norm when dim is an int or A is 1-D (or ord is
    None and dim is None: the 2-norm of the flattened A), else a matrix
    norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if dim is None:
        if A.ndim == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype,
                               out=out)
        raise _ShapeError("linalg.norm: with ord given, A must be 1-D or 2-D "
                          f"when dim is None, got shape {list(A.shape)}")
    if len(dim) == 1:
        return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)
    return matrix_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


def _top_norm(input, p="fro", dim=None, keepdim=False, out=None,
              dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, out=None,
    dtype=None): torch.norm: 'fro' (over dim, or all of input), 'nuc'
    (matrices), or a vector p-norm."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "fro" and (dim is None or len(dim) != 2):
        return vector_norm(input, 2, dim, keepdim, dtype=dtype, out=out)
    if isinstance(p, str):
        return matrix_norm(input, p, dim if dim is not None else (-2, -1),
                           keepdim, dtype=dtype, out=out)
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    """linalg.vecdot(x, y, *, dim=-1, out=None): sum(conj(x) * y, dim),
    broadcast."""
    tl = _tl()
    _check_tensor(x, "linalg.vecdot", "x")
    _check_tensor(y, "linalg.vecdot", "y")
    r = tl.mul(_conj(x), y).sum(dim)
    return _into(out, r, "linalg.vecdot")


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1): a view of the
    diagonals of the matrices of A."""
    _check_tensor(A, "linalg.diagonal")
    return A.diagonal(offset, dim1, dim2)


def _install(Tensor):
    """Adds the Tensor methods this module provides (PyTorch's names)."""
    def method(f):
        def m(self, *args, **kwargs):
            return f(self, *args, **kwargs)
        m.__name__ = f.__name__.lstrip("_").replace("top_", "")
        m.__doc__ = f.__doc__
        sig = _inspect.signature(f)
        ps = list(sig.parameters.values())
        m.__signature__ = sig.replace(parameters=[ps[0].replace(
            name="self", kind=_inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
            ps[1:])
        return m
    for name, f in (("mm", mm), ("bmm", bmm), ("mv", mv), ("dot", dot),
                    ("vdot", vdot), ("inner", inner), ("outer", outer),
                    ("ger", outer), ("addmm", addmm), ("addmv", addmv),
                    ("addbmm", addbmm), ("baddbmm", baddbmm),
                    ("kron", kron), ("trace", trace), ("cross", _top_cross),
                    ("norm", _top_norm), ("det", det),
                    ("inverse", inverse), ("slogdet", slogdet),
                    ("cholesky", cholesky), ("matrix_power", matrix_power),
                    ("pinverse", pinv)):
        setattr(Tensor, name, method(f))


__all__ = ["LinAlgError", "matmul", "vecdot", "vector_norm", "matrix_norm",
           "norm", "det", "slogdet", "inv", "solve", "solve_triangular",
           "lu", "lu_factor", "lu_solve", "lstsq", "cholesky", "qr", "eigh",
           "eigvalsh", "eig", "eigvals", "svd", "svdvals", "pinv",
           "matrix_rank", "matrix_power", "cross", "diagonal"]
