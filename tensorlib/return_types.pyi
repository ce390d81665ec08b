# Stubs for tensorlib.return_types: the (values, indices) named tuples.
from ._C import _ValuesIndices

__all__ = ["sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin", "max", "min"]

sort: type[_ValuesIndices]
topk: type[_ValuesIndices]
kthvalue: type[_ValuesIndices]
median: type[_ValuesIndices]
nanmedian: type[_ValuesIndices]
mode: type[_ValuesIndices]
cummax: type[_ValuesIndices]
cummin: type[_ValuesIndices]
max: type[_ValuesIndices]
min: type[_ValuesIndices]
