"""tensorlib.cuda: CUDA devices, streams and memory.

Works in every build: in a CPU-only build ``is_built()`` and
``is_available()`` are False and everything that needs a device raises
``RuntimeError("tensorlib was built without CUDA")``; in a CUDA build on a
machine without a driver or a GPU, ``is_available()`` is False (it never
raises) and asking for a CUDA tensor raises
``RuntimeError("no CUDA device is available")``.

Streams follow PyTorch: work (kernels, copies) is queued on the calling
thread's *current stream* of a device (the default stream until changed
with ``with tensorlib.cuda.stream(s):``); memory freed on one stream is
reused at once on that stream, and by other streams only after the work
queued there completes -- ``Tensor.record_stream(s)`` tells the allocator
that stream ``s`` used a tensor allocated on another one.
"""
import contextlib as _contextlib

from . import _C

__all__ = [
    "is_built", "is_available", "is_emulated", "device_count", "init",
    "synchronize", "Stream", "current_stream", "default_stream",
    "set_stream", "stream", "memory_stats", "empty_cache",
    "reset_peak_memory_stats",
]


def is_built():
    """Whether this tensorlib was built with the CUDA plug-in."""
    return bool(_C._cuda_is_built())


def is_emulated():
    """Whether CUDA is emulated on the host (a test build,
    TENSORLIB_CUDA=emulate): the device is the CPU in disguise."""
    return bool(_C._cuda_is_emulated())


def is_available():
    """Whether a CUDA device can be used now.  False on any CUDA runtime
    error (no driver, no device, a driver too old); never raises."""
    try:
        return bool(_C._cuda_is_available())
    except Exception:  # noqa: BLE001 - "never raises" is the contract
        return False


def device_count():
    """The number of usable CUDA devices (0 when none or not built)."""
    return int(_C._cuda_device_count())


def init():
    """Initialises CUDA now instead of on first use (counts the devices and
    switches page-locked host memory to cudaMallocHost when there is one).
    Returns the device count."""
    return device_count()


def _index(device):
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    if getattr(device, "type", None) != "cuda":
        raise ValueError("expected a CUDA device, got {!r}".format(device))
    return device.index if device.index is not None else 0


def synchronize(device=None):
    """Waits until all work queued on every stream of the device is done."""
    _C._cuda_synchronize(_index(device))


class Stream:
    """A CUDA stream of a device.  ``Stream()`` creates a new one (freed
    when the object goes); ``current_stream()`` and ``default_stream()``
    return handles to existing ones.  ``cuda_stream`` is the raw
    ``cudaStream_t`` as an int, as in PyTorch."""

    __slots__ = ("_device", "_handle", "_owned", "_prev", "__weakref__")

    def __init__(self, device=None, priority=0, *, _handle=None):
        self._device = _index(device)
        self._owned = False
        self._prev = None
        self._handle = 0
        if _handle is None:
            self._handle = int(_C._cuda_stream_new(self._device, priority))
            self._owned = True
        else:
            self._handle = int(_handle)

    @property
    def cuda_stream(self):
        return self._handle

    @property
    def device(self):
        return _C.device("cuda", self._device)

    def query(self):
        """True when all work queued on the stream is done."""
        return bool(_C._cuda_stream_query(self._device, self._handle))

    def synchronize(self):
        """Waits for all work queued on the stream."""
        _C._cuda_stream_synchronize(self._device, self._handle)

    def __enter__(self):
        self._prev = current_stream(self._device)
        set_stream(self)
        return self

    def __exit__(self, *exc):
        set_stream(self._prev)
        return False

    def __eq__(self, other):
        return (isinstance(other, Stream) and self._handle == other._handle
                and self._device == other._device)

    def __hash__(self):
        return hash((self._handle, self._device))

    def __repr__(self):
        return "<tensorlib.cuda.Stream device=cuda:{} cuda_stream={:#x}>" \
            .format(self._device, self._handle)

    def __del__(self):
        if getattr(self, "_owned", False) and self._handle:
            try:
                _C._cuda_stream_free(self._device, self._handle)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass


def current_stream(device=None):
    """The calling thread's current stream on the device."""
    d = _index(device)
    return Stream(d, _handle=_C._cuda_current_stream(d))


def default_stream(device=None):
    """The device's default (legacy) stream."""
    return Stream(device, _handle=0)


def set_stream(s):
    """Makes s the calling thread's current stream on s's device."""
    _C._cuda_set_stream(s._device, s._handle)


@_contextlib.contextmanager
def stream(s):
    """``with tensorlib.cuda.stream(s):`` queues the block's work on s."""
    if s is None:
        yield None
        return
    prev = current_stream(s._device)
    set_stream(s)
    try:
        yield s
    finally:
        set_stream(prev)


def memory_stats(device=None):
    """Allocator statistics of a CUDA device (the one schema)."""
    return _C.memory_stats(device="cuda:{}".format(_index(device)))


def empty_cache(device=None):
    """Returns cached device memory to the driver (waits for freed blocks
    still used by other streams)."""
    _C.empty_cache(device="cuda:{}".format(_index(device)))


def reset_peak_memory_stats(device=None):
    _C.reset_peak_memory_stats(device="cuda:{}".format(_index(device)))
