"""Fuzzes einsum's subscript parser: explicit and implicit output, '...'
in any position (also malformed: '..', '....'), repeated labels (traces
and diagonals), upper-case and non-letter characters, spaces, several or
missing '->' and ',' against the number of operands, and operand shapes
that agree or disagree with the labels.  Accepted equations are compared
with numpy.einsum when NumPy accepts the same equation."""
import numpy as np

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

ALPHABET = list("abcdijkAB.,->  ...ab")


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeIntInRange(0, 7) == 0:
        eq = fdp.ConsumeUnicodeNoSurrogates(24)
    else:
        eq = "".join(fdp.PickValueInList(ALPHABET)
                     for _ in range(fdp.ConsumeIntInRange(0, 20)))
    nops = fdp.ConsumeIntInRange(0, 4)
    ops = []
    for _ in range(nops):
        nd = fdp.ConsumeIntInRange(0, 4)
        shape = [fdp.ConsumeIntInRange(0, 3) for _ in range(nd)]
        a = np.arange(int(np.prod(shape)) if shape else 1,
                      dtype=np.float64).reshape(shape) % 5
        ops.append(a)
    dtype = fdp.PickValueInList(["float64", "float32", "int64",
                                 "complex64"])
    tops = [tl.tensor(a).to(dtype) for a in ops]
    try:
        r = tl.einsum(eq, *tops)
    except EXPECTED:
        return
    _common.touch(r)
    try:
        ref = np.einsum(eq, *[np.asarray(t.tolist(), dtype=np.complex128)
                              .reshape(tuple(t.shape)) for t in tops])
    except Exception:  # NumPy's rules differ in places (e.g. spaces)
        return
    got = np.asarray(r.tolist(), dtype=np.complex128).reshape(
        tuple(r.shape))
    if got.shape == ref.shape and not np.allclose(got, ref, rtol=1e-3,
                                                  atol=1e-3):
        raise AssertionError("einsum({!r}) differs from NumPy".format(eq))


if __name__ == "__main__":
    _common.main(TestOneInput)
