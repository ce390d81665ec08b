"""tensorlib: strided tensors over shared, reference-counted storages.

The C core (csrc/) holds the tensor impls, storages, allocators and the
iterator; this package is its Python face.  Names follow PyTorch where
PyTorch has the feature, NumPy where only NumPy has it.
"""
import enum as _enum

from . import _C

# Every public name of the extension module is a top-level name here
# (Tensor, dtypes, creation functions, views, operators, ...).
for _name in dir(_C):
    if not _name.startswith("_"):
        globals()[_name] = getattr(_C, _name)
del _name

from ._printing import set_printoptions  # noqa: E402,F401
from ._interop import asarray  # noqa: E402,F401
from . import _interop  # noqa: E402

_interop.install()

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


from . import memory  # noqa: E402
from . import cuda  # noqa: E402,F401
from .memory import memory_summary  # noqa: E402,F401
from . import _display  # noqa: E402
from ._display import (  # noqa: E402,F401
    explain, explain_reshape, memory_report)

# Notebooks show a tensor's values, layout facts and storage picture.
Tensor._repr_html_ = _display.tensor_html  # noqa: F821 - from _C above


__version__ = "0.1.0"

# Files (issue 21): safetensors and .npy/.npz save/load, mmap.
from .serialization import save, load, load_metadata  # noqa: E402,F401
