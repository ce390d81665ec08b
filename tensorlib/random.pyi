# Type stubs for tensorlib.random (checked by .ci/stubtest.sh).
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from ._C import Generator as Generator
from ._C import default_generator as default_generator
from ._C import get_rng_state as get_rng_state
from ._C import initial_seed as initial_seed
from ._C import manual_seed as manual_seed
from ._C import seed as seed
from ._C import set_rng_state as set_rng_state
from ._C import device as _device_t

__all__ = [
    "Generator", "default_generator", "fork_rng", "get_rng_state",
    "initial_seed", "manual_seed", "seed", "set_rng_state",
]

@contextmanager
def fork_rng(devices: Iterable[_device_t | str | int] | None = None, enabled: bool = True) -> Iterator[None]: ...

# NumPy's generator API over tensorlib's generator (issue 20: dask).
from ._np_random import default_rng as default_rng

__all__ += ["default_rng"]
