"""NumPy-style random generators over tensorlib's Philox generator:
``tensorlib.random.default_rng``, its ``BitGenerator`` and the legacy
``RandomState``.

These exist for libraries that program against NumPy's random API and
pick the array library by the generator's module (dask's ``da.random``
under ``array.backend = "tensorlib"`` calls
``tensorlib.random.default_rng(bit_generator)`` in each chunk).  Seeds go
through NumPy's ``SeedSequence``, so ``spawn`` derives one independent
seed per chunk; the numbers themselves come from a ``tensorlib.Generator``
(Philox4x32-10) seeded with 64 bits of that sequence, and every draw
returns a Tensor.  The streams differ from NumPy's for the same seed (as
dask's own generators differ between backends).
"""
import numpy as _np

from . import _C

__all__ = ["BitGenerator", "NumpyGenerator", "RandomState", "default_rng"]


def _seed_sequence(seed):
    if isinstance(seed, _np.random.SeedSequence):
        return seed
    if isinstance(seed, BitGenerator):
        return seed._seed_seq
    if isinstance(seed, _C.Tensor):
        seed = _np.asarray(seed)
    return _np.random.SeedSequence(seed)


class BitGenerator:
    """The seed of a tensorlib generator, kept as a NumPy ``SeedSequence``
    (``spawn`` gives independent children, as NumPy's bit generators do).
    ``seed`` may be None (fresh entropy), an int, a sequence of ints, a
    ``SeedSequence`` or another BitGenerator."""

    def __init__(self, seed=None):
        self._seed_seq = _seed_sequence(seed)

    @property
    def seed_seq(self):
        return self._seed_seq

    def spawn(self, n_children):
        """n_children BitGenerators with independent derived seeds."""
        return [type(self)(s) for s in self._seed_seq.spawn(n_children)]

    def philox_seed(self):
        """The 64-bit seed the Philox generator starts from."""
        return int(self._seed_seq.generate_state(1, _np.uint64)[0])

    def __dask_tokenize__(self):
        s = self._seed_seq
        return (type(self).__qualname__, repr(s.entropy), tuple(s.spawn_key),
                s.pool_size)

    def __repr__(self):
        return "tensorlib.random.BitGenerator({!r})".format(self._seed_seq)


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (int, _np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _param(x):
    """A distribution parameter as a float or a tensor (arrays become
    tensors so that per-element parameters broadcast)."""
    if isinstance(x, _C.Tensor):
        return x
    if isinstance(x, _np.ndarray):
        return _C.from_numpy(_np.ascontiguousarray(x, dtype=_np.float64))
    return float(x)


class NumpyGenerator:
    """NumPy's ``Generator`` interface drawing from one tensorlib
    generator: ``random``, ``standard_normal``, ``normal``, ``uniform``,
    ``integers``, ``exponential``, ``standard_exponential``.  ``size``
    follows NumPy (None gives a 0-d tensor); results are Tensors of the
    dtype NumPy would give (float64 unless dtype= says float32;
    integers int64)."""

    def __init__(self, bit_generator=None):
        if not isinstance(bit_generator, BitGenerator):
            bit_generator = BitGenerator(bit_generator)
        self._bit_generator = bit_generator
        self._gen = _C.Generator()
        self._gen.manual_seed(bit_generator.philox_seed())

    @property
    def bit_generator(self):
        return self._bit_generator

    def spawn(self, n_children):
        return [type(self)(b) for b in self._bit_generator.spawn(n_children)]

    def _float_dtype(self, dtype):
        dt = _np.dtype(_np.float64 if dtype is None else dtype)
        if dt not in (_np.float64, _np.float32):
            raise TypeError("random draws take dtype float64 or float32, not "
                            "{}".format(dt))
        return dt

    def random(self, size=None, dtype=_np.float64, out=None):
        """Uniform floats in [0, 1)."""
        dt = self._float_dtype(dtype)
        if out is not None:
            return out.uniform_(0.0, 1.0, generator=self._gen)
        return _C.rand(_shape(size), dtype=dt, generator=self._gen)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        dt = self._float_dtype(dtype)
        if out is not None:
            return out.normal_(0.0, 1.0, generator=self._gen)
        return _C.randn(_shape(size), dtype=dt, generator=self._gen)

    def normal(self, loc=0.0, scale=1.0, size=None):
        z = _C.randn(_shape(size), dtype=_np.float64, generator=self._gen)
        return z * _param(scale) + _param(loc)

    def uniform(self, low=0.0, high=1.0, size=None):
        u = _C.rand(_shape(size), dtype=_np.float64, generator=self._gen)
        low, high = _param(low), _param(high)
        return u * (high - low) + low

    def standard_exponential(self, size=None, dtype=_np.float64):
        dt = self._float_dtype(dtype)
        return _C.empty(_shape(size), dtype=dt).exponential_(
            1.0, generator=self._gen)

    def exponential(self, scale=1.0, size=None):
        return self.standard_exponential(size) * _param(scale)

    def integers(self, low, high=None, size=None, dtype=_np.int64,
                 endpoint=False):
        """Integers in [low, high) ([low, high] with endpoint=True); one
        argument means [0, low)."""
        if high is None:
            low, high = 0, low
        high = int(high) + (1 if endpoint else 0)
        return _C.randint(int(low), high, _shape(size),
                          dtype=_np.dtype(dtype), generator=self._gen)

    def __repr__(self):
        return "tensorlib.random.NumpyGenerator({!r})".format(
            self._bit_generator)


class RandomState(NumpyGenerator):
    """NumPy's legacy ``RandomState`` names over the same draws
    (``random_sample``, ``randint``, ...); the seed may also be the uint32
    state array dask hands each chunk."""

    def __init__(self, seed=None):
        super().__init__(BitGenerator(seed))

    def random_sample(self, size=None):
        return self.random(size)

    def rand(self, *shape):
        return self.random(shape)

    def randn(self, *shape):
        return self.standard_normal(shape)

    def randint(self, low, high=None, size=None, dtype=_np.int64):
        return self.integers(low, high, size, dtype=dtype)

    def random_integers(self, low, high=None, size=None):
        if high is None:
            low, high = 1, low
        return self.integers(low, high, size, endpoint=True)


def default_rng(seed=None):
    """A NumPy-style generator drawing Tensors from tensorlib's Philox
    generator (see tensorlib.random).  ``seed`` is None, an int, a
    sequence of ints, a SeedSequence, a BitGenerator or a generator
    made here (returned unchanged), as for numpy.random.default_rng."""
    if isinstance(seed, NumpyGenerator):
        return seed
    return NumpyGenerator(seed if isinstance(seed, BitGenerator)
                          else BitGenerator(seed))
