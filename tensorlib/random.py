"""Random numbers: the default generator's functions and fork_rng().

tensorlib's generators are counter-based (Philox4x32-10): a generator's
whole state is (seed, offset), every random op reserves a range of the
counter, and each element's numbers depend only on (seed, the op's offset,
the element's index).  So a seed gives the same numbers for any thread
count and any output layout.  After ``os.fork()`` parent and child continue
the same stream unless one of them reseeds (as NumPy and PyTorch): call
``tensorlib.seed()`` (or ``manual_seed``) in the child when the processes
must draw different numbers.  See docs/random.md.
"""
import contextlib

from ._C import (  # noqa: F401 - re-exported as torch.random does
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state",
           "initial_seed", "manual_seed", "seed", "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """Saves the default CPU generator's state and restores it on exit.

    Draws inside the ``with`` block do not move the stream seen after it.
    ``devices`` names other devices whose generators to save as well; only
    the CPU has a default generator today, so any other device raises
    NotImplementedError.  ``enabled=False`` makes it a no-op.
    """
    if not enabled:
        yield
        return
    for d in devices or ():
        if str(d).split(":")[0] != "cpu":
            raise NotImplementedError(
                "fork_rng(): random numbers on {} are not implemented "
                "(tensorlib draws them on the CPU only)".format(d))
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)

# NumPy's generator API over tensorlib's generator (issue 20: dask's
# da.random calls tensorlib.random.default_rng under the tensorlib backend).
from ._np_random import default_rng  # noqa: E402,F401

__all__ += ["default_rng"]
