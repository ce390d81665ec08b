# Type stubs for the tensorlib package: the public names of the C extension
# (tensorlib/_C.pyi, re-exported here as tensorlib/__init__.py does at run
# time) plus the Python-level additions.  py.typed marks the package typed;
# .ci/stubtest.sh checks these stubs against the built module.
import builtins
import enum
from typing import Any, Final, Literal

from typing_extensions import TypeAlias

from . import cuda as cuda
from . import memory as memory
from ._C import (
    ExecutionPlan as ExecutionPlan,
    ShapeError as ShapeError,
    Size as Size,
    Tensor as Tensor,
    TooHardError as TooHardError,
    UntypedStorage as UntypedStorage,
    WorkspaceArena as WorkspaceArena,
    all as all,
    amax as amax,
    amin as amin,
    any as any,
    arange as arange,
    argmax as argmax,
    argmin as argmin,
    bfloat16 as bfloat16,
    bool as bool,
    broadcast_shapes as broadcast_shapes,
    broadcast_tensors as broadcast_tensors,
    broadcast_to as broadcast_to,
    can_cast as can_cast,
    channels_last as channels_last,
    channels_last_3d as channels_last_3d,
    chunk as chunk,
    clamp as clamp,
    clip as clip,
    clone as clone,
    complex128 as complex128,
    complex64 as complex64,
    float8_e4m3fn as float8_e4m3fn,
    float8_e5m2 as float8_e5m2,
    contiguous_format as contiguous_format,
    device as device,
    diagonal as diagonal,
    div as div,
    divide as divide,
    dtype as dtype,
    empty as empty,
    empty_cache as empty_cache,
    empty_like as empty_like,
    flatten as flatten,
    flip as flip,
    float16 as float16,
    float32 as float32,
    float64 as float64,
    from_dlpack as from_dlpack,
    from_numpy as from_numpy,
    frombuffer as frombuffer,
    full as full,
    full_like as full_like,
    get_num_threads as get_num_threads,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    int8 as int8,
    max as max,
    may_share_memory as may_share_memory,
    mean as mean,
    memory_format as memory_format,
    memory_stats as memory_stats,
    min as min,
    moveaxis as moveaxis,
    movedim as movedim,
    narrow as narrow,
    ones as ones,
    ones_like as ones_like,
    permute as permute,
    preserve_format as preserve_format,
    prod as prod,
    promote_types as promote_types,
    reset_peak_memory_stats as reset_peak_memory_stats,
    reshape as reshape,
    result_type as result_type,
    round as round,
    select as select,
    set_num_threads as set_num_threads,
    shares_memory as shares_memory,
    split as split,
    squeeze as squeeze,
    std as std,
    sum as sum,
    swapaxes as swapaxes,
    swapdims as swapdims,
    tensor as tensor,
    transpose as transpose,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
    uint8 as uint8,
    unbind as unbind,
    unflatten as unflatten,
    unsqueeze as unsqueeze,
    var as var,
    where as where,
    workspace as workspace,
    zeros as zeros,
    zeros_like as zeros_like,
)
# BEGIN op table (tools/gen_op_stubs.py writes this block)
from ._C import (
    abs as abs,
    acos as acos,
    acosh as acosh,
    add as add,
    arccos as arccos,
    arccosh as arccosh,
    arcsin as arcsin,
    arcsinh as arcsinh,
    arctan as arctan,
    arctan2 as arctan2,
    arctanh as arctanh,
    asin as asin,
    asinh as asinh,
    atan as atan,
    atan2 as atan2,
    atanh as atanh,
    bitwise_and as bitwise_and,
    bitwise_left_shift as bitwise_left_shift,
    bitwise_not as bitwise_not,
    bitwise_or as bitwise_or,
    bitwise_right_shift as bitwise_right_shift,
    bitwise_xor as bitwise_xor,
    ceil as ceil,
    copysign as copysign,
    cos as cos,
    cosh as cosh,
    deg2rad as deg2rad,
    digamma as digamma,
    eq as eq,
    erf as erf,
    erfc as erfc,
    erfinv as erfinv,
    exp as exp,
    exp2 as exp2,
    expm1 as expm1,
    float_power as float_power,
    floor as floor,
    floor_divide as floor_divide,
    fmax as fmax,
    fmin as fmin,
    fmod as fmod,
    frac as frac,
    gcd as gcd,
    ge as ge,
    gt as gt,
    heaviside as heaviside,
    hypot as hypot,
    isfinite as isfinite,
    isinf as isinf,
    isnan as isnan,
    isneginf as isneginf,
    isposinf as isposinf,
    isreal as isreal,
    lcm as lcm,
    ldexp as ldexp,
    le as le,
    lgamma as lgamma,
    log as log,
    log10 as log10,
    log1p as log1p,
    log2 as log2,
    logaddexp as logaddexp,
    logaddexp2 as logaddexp2,
    logical_and as logical_and,
    logical_not as logical_not,
    logical_or as logical_or,
    logical_xor as logical_xor,
    logit as logit,
    lt as lt,
    maximum as maximum,
    minimum as minimum,
    mul as mul,
    multiply as multiply,
    ne as ne,
    neg as neg,
    negative as negative,
    nextafter as nextafter,
    pow as pow,
    rad2deg as rad2deg,
    reciprocal as reciprocal,
    relu as relu,
    remainder as remainder,
    rsqrt as rsqrt,
    sgn as sgn,
    sigmoid as sigmoid,
    sign as sign,
    signbit as signbit,
    sin as sin,
    sinc as sinc,
    sinh as sinh,
    sqrt as sqrt,
    square as square,
    sub as sub,
    subtract as subtract,
    tan as tan,
    tanh as tanh,
    true_divide as true_divide,
    trunc as trunc,
    xlogy as xlogy,
)
# END op table
from ._C import _DeviceLike, _DTypeLike
# scans, softmax, sorting and searching (csrc/python/sortscan.c)
from . import return_types as return_types
from ._C import (
    argsort as argsort,
    argwhere as argwhere,
    bucketize as bucketize,
    count_nonzero as count_nonzero,
    isin as isin,
    kthvalue as kthvalue,
    median as median,
    mode as mode,
    msort as msort,
    nanmedian as nanmedian,
    nanquantile as nanquantile,
    nonzero as nonzero,
    quantile as quantile,
    searchsorted as searchsorted,
    sort as sort,
    topk as topk,
    unique as unique,
    unique_consecutive as unique_consecutive,
    cummax as cummax,
    cummin as cummin,
    cumprod as cumprod,
    cumsum as cumsum,
    diff as diff,
    log_softmax as log_softmax,
    logcumsumexp as logcumsumexp,
    softmax as softmax,
)
from .memory import memory_summary as memory_summary

__version__: Final[builtins.str]

# PyTorch's short aliases.
half: dtype
float: dtype
double: dtype
long: dtype
int: dtype
short: dtype
cfloat: dtype
cdouble: dtype

class MemoryKind(enum.IntEnum):
    """What memory is for; each (device, kind) pair has its allocator."""

    Default = 0
    Persistent = 1
    Workspace = 2
    KVCache = 3
    HostPinned = 4
    HostPageable = 5

def asarray(
    obj: Any,
    dtype: _DTypeLike | None = None,
    device: _DeviceLike | None = None,
    copy: builtins.bool | None = None,
) -> Tensor:
    """Convert obj to a tensor, sharing memory when possible (array API)."""

def set_printoptions(
    precision: builtins.int | None = None,
    threshold: builtins.float | None = None,
    edgeitems: builtins.int | None = None,
    linewidth: builtins.int | None = None,
    profile: Literal["default", "short", "full"] | None = None,
    sci_mode: builtins.bool | None = None,
) -> None:
    """Set the options used by repr(tensor), as torch.set_printoptions."""

# ---- pictures of tensors and memory (tensorlib/_display.py) ----------------

from ._display import explain as explain
from ._display import explain_reshape as explain_reshape
from ._display import memory_report as memory_report

# ---- random numbers (csrc/python/random.c, tensorlib/random.py) -------------

from . import random as random
from ._C import (
    Generator as Generator,
    bernoulli as bernoulli,
    default_generator as default_generator,
    get_rng_state as get_rng_state,
    initial_seed as initial_seed,
    manual_seed as manual_seed,
    multinomial as multinomial,
    normal as normal,
    poisson as poisson,
    rand as rand,
    rand_like as rand_like,
    randint as randint,
    randint_like as randint_like,
    randn as randn,
    randn_like as randn_like,
    randperm as randperm,
    seed as seed,
    set_rng_state as set_rng_state,
)
# ---- linear algebra (tensorlib/linalg.py, csrc/python/linalg.c) -----------

from . import linalg as linalg
from ._C import matmul as matmul
from .linalg import (
    addbmm as addbmm,
    addmm as addmm,
    addmv as addmv,
    baddbmm as baddbmm,
    bmm as bmm,
    det as det,
    dot as dot,
    einsum as einsum,
    ger as ger,
    inner as inner,
    inverse as inverse,
    kron as kron,
    matrix_power as matrix_power,
    mm as mm,
    mv as mv,
    outer as outer,
    slogdet as slogdet,
    tensordot as tensordot,
    trace as trace,
    vdot as vdot,
)
from .linalg import pinv as pinverse

def cross(input: Tensor, other: Tensor, dim: builtins.int | None = None, *, out: Tensor | None = None) -> Tensor: ...
def norm(input: Tensor, p: builtins.float | builtins.str = "fro", dim: builtins.int | tuple[builtins.int, ...] | None = None, keepdim: builtins.bool = False, out: Tensor | None = None, dtype: Any = None) -> Tensor: ...
# ---- joining, rearranging, creation and indexing ops (issue 17) ------------

from ._C import (
    cat as cat,
    complex as complex,
    concat as concat,
    concatenate as concatenate,
    empty_strided as empty_strided,
    gather as gather,
    index_add as index_add,
    index_copy as index_copy,
    index_fill as index_fill,
    index_select as index_select,
    linspace as linspace,
    logspace as logspace,
    polar as polar,
    scatter as scatter,
    scatter_add as scatter_add,
    scatter_reduce as scatter_reduce,
    stack as stack,
)
from ._joinindex import (
    atleast_1d as atleast_1d,
    atleast_2d as atleast_2d,
    atleast_3d as atleast_3d,
    column_stack as column_stack,
    diag as diag,
    diag_embed as diag_embed,
    diagflat as diagflat,
    dsplit as dsplit,
    dstack as dstack,
    eye as eye,
    hsplit as hsplit,
    hstack as hstack,
    index_put as index_put,
    masked_fill as masked_fill,
    masked_scatter as masked_scatter,
    masked_select as masked_select,
    meshgrid as meshgrid,
    put as put,
    ravel as ravel,
    repeat_interleave as repeat_interleave,
    roll as roll,
    rot90 as rot90,
    row_stack as row_stack,
    take as take,
    take_along_dim as take_along_dim,
    tensor_split as tensor_split,
    tile as tile,
    tril as tril,
    tril_indices as tril_indices,
    triu as triu,
    triu_indices as triu_indices,
    vsplit as vsplit,
    vstack as vstack,
)
# ---- testing helpers (tensorlib/testing.py, issue 18) ----------------------

from . import testing as testing

# ---- comparison helpers and reductions (tensorlib/_reduce_extra.py) -------

from . import _reduce_extra as _rx
from ._reduce_extra import (
    allclose as allclose,
    aminmax as aminmax,
    equal as equal,
    isclose as isclose,
    logsumexp as logsumexp,
    nanmean as nanmean,
    nansum as nansum,
    std_mean as std_mean,
    var_mean as var_mean,
)

# ---- complex (csrc/python/complex.c, tensorlib/_complex.py) ---------------

from ._C import (
    conj as conj,
    conj_physical as conj_physical,
    imag as imag,
    real as real,
    view_as_complex as view_as_complex,
    view_as_real as view_as_real,
)
from . import _complex as _complex
from ._complex import angle as angle, positive as positive
# ---- issue 18: tensorlib/_mathops.py ----------------------------------------

from . import _mathops as _mathops
from ._mathops import (
    addcdiv as addcdiv,
    addcmul as addcmul,
    clamp_max as clamp_max,
    clamp_min as clamp_min,
    frexp as frexp,
    lerp as lerp,
    nan_to_num as nan_to_num,
)
# ---- files (tensorlib/serialization.py) ---------------------------------------

from . import serialization as serialization
from .serialization import load as load
from .serialization import load_metadata as load_metadata
from .serialization import save as save
