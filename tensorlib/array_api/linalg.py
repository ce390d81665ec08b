"""tensorlib.array_api.linalg: the array API standard's linalg extension
(2024.12), thin adapters over tensorlib.linalg with the standard's
signatures (positional-only arrays, axis=/keepdims=, rtol=, offset=)."""
import tensorlib as _tl

_la = _tl.linalg


def _pair(x1, x2, fn):
    from . import _common
    return _common(x1, x2, fn)


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of each Hermitian positive-definite matrix in x
    (lower triangular, or upper with upper=True)."""
    return _la.cholesky(x, upper=upper)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-element vectors along axis (other dims
    broadcast)."""
    x1, x2 = _pair(x1, x2, "cross")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("cross(): the arrays must have at least one dim")
    if tuple(x1.shape) != tuple(x2.shape):
        x1, x2 = _tl.broadcast_tensors(x1, x2)
    return _la.cross(x1, x2, dim=axis)


def det(x, /):
    """The determinant of each square matrix in x."""
    return _la.det(x)


def diagonal(x, /, *, offset=0):
    """The offset-th diagonal of each matrix in x (a view)."""
    return _la.diagonal(x, offset=offset)


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors of each Hermitian matrix in
    x, as (eigenvalues, eigenvectors)."""
    return _la.eigh(x)


def eigvalsh(x, /):
    """The eigenvalues (ascending) of each Hermitian matrix in x."""
    return _la.eigvalsh(x)


def eig(x, /):
    """Eigenvalues and eigenvectors of each square matrix in x (complex)."""
    return _la.eig(x)


def eigvals(x, /):
    """The eigenvalues of each square matrix in x (complex)."""
    return _la.eigvals(x)


def inv(x, /):
    """The inverse of each square matrix in x."""
    return _la.inv(x)


def matmul(x1, x2, /):
    """The matrix product (as the main namespace's matmul)."""
    from . import matmul as mm
    return mm(x1, x2)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """A norm of each matrix in x (the last two dims): 'fro', 'nuc', +-1,
    +-2, +-inf."""
    return _la.matrix_norm(x, ord, (-2, -1), keepdims)


def matrix_power(x, n, /):
    """Each square matrix in x to the integer power n (n < 0: of the
    inverse)."""
    return _la.matrix_power(x, n)


def matrix_rank(x, /, *, rtol=None):
    """The rank of each matrix in x: singular values above rtol times the
    largest (rtol default: max(M, N) * eps)."""
    return _la.matrix_rank(x, rtol=rtol)


def matrix_transpose(x, /):
    """x with its last two dims swapped (a view)."""
    from . import matrix_transpose as mt
    return mt(x)


def outer(x1, x2, /):
    """The outer product of two 1-D arrays."""
    x1, x2 = _pair(x1, x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer(): x1 and x2 must be 1-D, got shapes "
                         f"{list(x1.shape)} and {list(x2.shape)}")
    return _la.outer(x1, x2)


def pinv(x, /, *, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix in x (singular values
    at most rtol times the largest count as zero)."""
    return _la.pinv(x, rtol=rtol)


def qr(x, /, *, mode="reduced"):
    """The QR decomposition of each matrix in x, as (Q, R); mode 'reduced'
    or 'complete'."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr(): mode must be 'reduced' or 'complete', not "
                         f"{mode!r}")
    return _la.qr(x, mode)


def slogdet(x, /):
    """The sign and log|det| of each square matrix in x, as (sign,
    logabsdet)."""
    return _la.slogdet(x)


def solve(x1, x2, /):
    """The solution X of x1 @ X = x2 for each square x1; a 1-D x2 is one
    vector, otherwise x2 is a stack of matrices (the batch dims
    broadcast)."""
    x1, x2 = _pair(x1, x2, "solve")
    if x2.ndim == 1:
        return _la.solve(x1, x2[:, None])[..., 0]
    if x2.ndim == x1.ndim - 1:
        # PyTorch reads this shape as a batch of vectors; the standard
        # reads it as matrices: a leading size-1 batch dim says so.
        return _la.solve(x1, x2[None])
    return _la.solve(x1, x2)


def svd(x, /, *, full_matrices=True):
    """The singular value decomposition of each matrix in x, as (U, S,
    Vh) with x = U @ diag(S) @ Vh."""
    return _la.svd(x, full_matrices)


def svdvals(x, /):
    """The singular values of each matrix in x, descending."""
    return _la.svdvals(x)


def tensordot(x1, x2, /, *, axes=2):
    """As the main namespace's tensordot."""
    from . import tensordot as td
    return td(x1, x2, axes=axes)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the offset-th diagonal of each matrix in x (dtype rules as
    sum())."""
    from . import sum as _sum
    if x.ndim < 2:
        raise ValueError(f"trace(): x must have at least 2 dims, got shape "
                         f"{list(x.shape)}")
    return _sum(_la.diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vecdot(x1, x2, /, *, axis=-1):
    """As the main namespace's vecdot."""
    from . import vecdot as vd
    return vd(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """A vector norm over axis (None: all elements): any p, +-inf, 0."""
    if isinstance(axis, list):
        axis = tuple(axis)
    return _la.vector_norm(x, ord, axis, keepdims)
