"""The derived layout flags every impl carries (tl_impl_refresh_flags in
csrc/core/shape.c) against a plain Python statement of c10's definitions,
on random sizes and strides (zero and negative strides, size-0 and size-1
dims), and `is_contiguous` against PyTorch where it is installed."""
import numpy as np
import pytest

import tensorlib as tl
from tensorlib import _C

BITS = _C._testing.flag_bits()


def ref_contiguous(sizes, strides):
    if 0 in sizes:
        return True
    expected = 1
    for n, s in zip(reversed(sizes), reversed(strides)):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


def ref_dense(sizes, strides):
    """c10's compute_non_overlapping_and_dense."""
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    if 0 in sizes:
        return True
    dims = sorted((d for d in range(len(sizes)) if sizes[d] >= 2),
                  key=lambda d: strides[d])
    require = 1
    for d in dims:
        if strides[d] != require:
            return False
        require *= sizes[d]
    return True


def _views(rng, count):
    base = tl.zeros(4096, dtype=tl.float32)
    for _ in range(count):
        nd = int(rng.integers(1, 6))
        sizes = [int(v) for v in rng.choice([0, 1, 2, 3, 4], nd,
                                            p=[.05, .2, .3, .25, .2])]
        kind = rng.integers(3)
        if kind == 0:  # a permutation of a contiguous layout
            cont = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
            perm = rng.permutation(nd)
            sizes = [sizes[p] for p in perm]
            strides = [cont[p] for p in perm]
        elif kind == 1:  # any non-negative strides
            strides = [int(v) for v in rng.integers(0, 20, nd)]
        else:  # dense-ish with a stray change
            strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
            strides[int(rng.integers(nd))] += int(rng.integers(-1, 2))
            strides = [max(s, 0) for s in strides]
        yield base.as_strided(sizes, strides, 16), sizes, strides


def test_flags_match_the_definitions():
    rng = np.random.default_rng(5)
    seen = {True: 0, False: 0}
    for t, sizes, strides in _views(rng, 3000):
        f = _C._testing.flags(t)
        c = bool(f & BITS["contiguous"])
        d = bool(f & BITS["non_overlapping_and_dense"])
        assert c == ref_contiguous(sizes, strides), (sizes, strides)
        assert d == (c or ref_dense(sizes, strides)), (sizes, strides)
        assert t.is_contiguous() == c
        seen[d] += 1
    assert min(seen.values()) > 300  # both answers well represented


def test_flags_of_ops_outputs():
    rng = np.random.default_rng(6)
    for t, sizes, strides in _views(rng, 300):
        for u in (t.T if t.ndim == 2 else t.flip(0), t.contiguous(),
                  t.clone(), t + 1):
            f = _C._testing.flags(u)
            us, ust = list(u.shape), list(u.stride())
            assert bool(f & BITS["contiguous"]) == ref_contiguous(us, ust)
            assert bool(f & BITS["non_overlapping_and_dense"]) == (
                ref_contiguous(us, ust) or ref_dense(us, ust)), (us, ust)


def test_is_contiguous_matches_torch(torch):
    rng = np.random.default_rng(7)
    base_t = torch.zeros(4096)
    for t, sizes, strides in _views(rng, 2000):
        want = base_t.as_strided(sizes, strides, 16).is_contiguous()
        assert t.is_contiguous() == want, (sizes, strides)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16",
                                   "complex128"])
def test_views_inherit_aligned(dtype):
    # A view's aligned bit is its parent's (its pointer differs by whole
    # items); checked against the pointer for views of aligned and of
    # unaligned memory, through every view maker that takes that path.
    itemsize = np.dtype(dtype).itemsize
    buf = bytearray(itemsize * 25 + 1)
    for off in (0, 1):
        a = np.frombuffer(buf, dtype=dtype, offset=off, count=24)
        t = tl.from_numpy(a).reshape(4, 6)
        for v in (t, t[1:3], t.T, t[2], t[:, 1::2], t.reshape(6, 4),
                  t.view(24), t.permute(1, 0), t.flip(1), t.unsqueeze(0),
                  t[1:].T[::-1], t.expand(2, 4, 6), t.narrow(1, 3, 2)):
            f = _C._testing.flags(v)
            want = v.data_ptr() % itemsize == 0
            assert bool(f & BITS["aligned"]) == want, (off, v.shape)


def test_fresh_tensor_flags_match_a_recomputed_view():
    # empty() fills in the flags of row-major strides without computing
    # them (outside 4 and 5 dims); a view over the same sizes and strides
    # computes them all: the two must agree, channels-last bits included.
    rng = np.random.default_rng(8)
    formats = {4: tl.channels_last, 5: tl.channels_last_3d}
    for _ in range(400):
        nd = int(rng.integers(0, 7))
        shape = tuple(int(v) for v in rng.choice([0, 1, 1, 2, 3], nd))
        cands = [tl.empty(shape), tl.zeros(shape, dtype=tl.float64)]
        if nd in formats:
            cands.append(tl.empty(shape, memory_format=formats[nd]))
        for t in cands:
            v = t.as_strided(t.shape, t.stride())
            assert _C._testing.flags(t) & ~BITS["readonly_view"] == \
                _C._testing.flags(v) & ~BITS["readonly_view"], \
                (shape, t.stride())


def test_reshape_and_view_of_contiguous_match_torch(torch):
    # A contiguous source takes the row-major shortcut (no stride
    # matching, flags filled in): strides and flags as PyTorch's and as a
    # recomputed view's, size-1 and size-0 dims included.
    rng = np.random.default_rng(9)
    for _ in range(1500):
        nd = int(rng.integers(0, 7))
        shape = tuple(int(v) for v in rng.choice([0, 1, 1, 2, 3], nd))
        n = int(np.prod(shape)) if shape else 1
        src = tuple(int(v) for v in
                    rng.permutation([n] + [1] * int(rng.integers(0, 3))))
        base = tl.arange(float(n + 2))[1:n + 1].reshape(src)
        tbase = torch.zeros(src)
        if rng.random() < 0.4:
            # still contiguous, but odd strides on its size-1 dims: these
            # carry over, so they take the general path
            st = [s if z != 1 else int(rng.integers(1, 9))
                  for z, s in zip(base.shape, base.stride())]
            base = base.as_strided(base.shape, st, base.storage_offset())
            tbase = tbase.as_strided(src, st)
        for f in ("reshape", "view"):
            a = getattr(base, f)(shape)
            b = getattr(tbase, f)(shape)
            assert a.stride() == b.stride(), (f, src, shape)
            assert a.is_contiguous() == b.is_contiguous()
            v = a.as_strided(a.shape, a.stride(), a.storage_offset())
            assert _C._testing.flags(a) == _C._testing.flags(v), (f, shape)
            assert a._base is not None
            assert a.storage_offset() == (1 if n else 0)
            np.testing.assert_array_equal(a.numpy().ravel(),
                                          np.arange(1.0, n + 1))


def test_permuted_views_flags_match_a_recomputed_view():
    # permute/transpose/.T/.mT take their layout flags from the parent
    # (dense is permutation-invariant) and check contiguity alone outside
    # 4 and 5 dims: against a recomputed view of the same layout.
    rng = np.random.default_rng(10)
    for t, sizes, strides in _views(rng, 600):
        outs = [t.T, t.permute(*[int(p) for p in rng.permutation(t.ndim)])]
        if t.ndim >= 2:
            outs += [t.mT, t.transpose(0, -1)]
        for u in outs:
            v = u.as_strided(u.shape, u.stride(), u.storage_offset())
            assert _C._testing.flags(u) == _C._testing.flags(v), \
                (sizes, strides, u.shape, u.stride())
