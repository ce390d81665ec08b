"""tensorlib: strided tensors over shared, reference-counted storages.

The C core (csrc/) holds the tensor impls, storages, allocators and the
iterator; this package is its Python face.  Names follow PyTorch where
PyTorch has the feature, NumPy where only NumPy has it.
"""
import enum as _enum

# BLAS/LAPACK: loads libscipy_openblas64_ (privately: RTLD_LOCAL, so SciPy's
# own OpenBLAS keeps its symbols) before _C links to it.
from . import _openblas  # noqa: F401,E402
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

# Linear algebra (tensorlib/linalg.py): the submodule, the matrix products
# at the top level, and their Tensor methods.
from . import linalg  # noqa: E402
from .linalg import (  # noqa: E402,F401
    mm, bmm, mv, dot, vdot, inner, outer, ger, addmm, addmv, addbmm,
    baddbmm, tensordot, kron, trace, einsum, inverse, det, slogdet,
    matrix_power)
from .linalg import _top_cross as cross, _top_norm as norm  # noqa: E402
from .linalg import pinv as pinverse  # noqa: E402,F401
linalg._install(Tensor)  # noqa: F821 - from _C above

from . import _joinindex  # noqa: E402

_joinindex.install(globals())

# Random numbers (tensorlib.random: fork_rng and the default generator).
from . import random  # noqa: E402,F401
from tensorlib import testing  # noqa: E402,F401  (issue 18: assert_close)
from ._reduce_extra import (  # noqa: E402,F401  (issue 18)
    allclose, aminmax, equal, isclose, logsumexp, nanmean, nansum,
    std_mean, var_mean)
from . import _reduce_extra as _rx  # noqa: E402
_rx._install_methods()
from ._complex import angle, positive  # noqa: E402,F401  (issue 18)
from . import _complex  # noqa: E402
_complex._install_methods()
# The array API standard's namespace (issue 20): Tensor.__array_namespace__.
from . import array_api  # noqa: E402,F401
array_api._install(Tensor)  # noqa: F821 - from _C above

__version__ = "0.1.0"

# tensorlib.return_types: the (values, indices) named-tuple types.
from . import return_types  # noqa: E402,F401
# Files (issue 21): safetensors and .npy/.npz save/load, mmap.
from .serialization import save, load, load_metadata  # noqa: E402,F401
# Issue 18: nan_to_num, clamp_min/max, lerp, addcmul, addcdiv, frexp.
from ._mathops import (  # noqa: E402,F401
    addcdiv, addcmul, clamp_max, clamp_min, frexp, lerp, nan_to_num)
from . import _mathops  # noqa: E402
_mathops._install_methods()
