"""tensorlib: strided tensors over shared, reference-counted storages.

The C core (csrc/) holds the tensor impls, storages, allocators and the
iterator; this package is its Python face.  Names follow PyTorch where
PyTorch has the feature, NumPy where only NumPy has it.
"""
import enum as _enum

from . import _C
from ._C import (  # noqa: F401
    Size,
    ShapeError,
    Tensor,
    TooHardError,
    arange,
    bfloat16,
    bool,
    channels_last,
    channels_last_3d,
    complex64,
    complex128,
    contiguous_format,
    device,
    dtype,
    empty,
    empty_cache,
    empty_like,
    float16,
    float32,
    float64,
    from_numpy,
    full,
    full_like,
    int8,
    int16,
    int32,
    int64,
    memory_format,
    memory_stats,
    ones,
    ones_like,
    preserve_format,
    reset_peak_memory_stats,
    tensor,
    uint8,
    uint16,
    uint32,
    uint64,
    zeros,
    zeros_like,
)

# PyTorch's short aliases.
half = float16
float = float32  # noqa: A001 - as torch.float
double = float64
long = int64
int = int32  # noqa: A001 - as torch.int
short = int16
cfloat = complex64
cdouble = complex128


class MemoryKind(_enum.IntEnum):
    """What memory is for; each (device, kind) pair has its allocator."""

    Default = 0
    Persistent = 1
    Workspace = 2
    KVCache = 3
    HostPinned = 4
    HostPageable = 5


__version__ = "0.1.0"
