"""The named-tuple types of results with indices, as torch.return_types:
sort, topk, kthvalue, median, nanmedian, mode, cummax, cummin (made by
csrc/python/sortscan.c) and max, min (csrc/python/reduce_ops.c).  Each is
a (values, indices) structseq whose __module__ is this module, so results
pickle."""
from . import _C

__all__ = ["sort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "cummax", "cummin", "max", "min"]

(sort, topk, kthvalue, median, nanmedian, mode, cummax,
 cummin) = _C._sortscan_return_types


def _made_by(fn):
    # max(dim)/min(dim) make their type on first use: make it once here.
    return type(fn(_C.zeros(1), 0))


max = _made_by(_C.max)  # noqa: A001 - as torch.return_types.max
min = _made_by(_C.min)  # noqa: A001
del _made_by
