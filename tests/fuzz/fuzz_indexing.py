"""Fuzzes the indexing-key parser of Tensor.__getitem__/__setitem__:
tuples of ints (in and out of range, huge), slices (zero, negative and
huge steps), None, Ellipsis (one or several), bools, lists, nested lists,
bool and integer tensors and NumPy arrays, over tensors of several shapes,
strides (transposed, flipped) and dtypes.  A failed __setitem__ must leave
the tensor unchanged."""
import numpy as np

import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

DTYPES = ["float32", "int64", "bool", "uint8", "complex64", "float16"]
BIG = [0, 1, -1, 2, -2, 3, 5, -6, 2 ** 31, -2 ** 31 - 1, 2 ** 63 - 1,
       -2 ** 63, 2 ** 63, 2 ** 64, -2 ** 65]


def number(fdp):
    return fdp.PickValueInList(BIG) if fdp.ConsumeIntInRange(0, 3) == 0 \
        else fdp.ConsumeIntInRange(-5, 5)


def key_item(fdp, depth=0):
    k = fdp.ConsumeIntInRange(0, 12)
    if k <= 2:
        return number(fdp)
    if k == 3:
        opt = [None, 0, 1, -1, 2, -3, 2 ** 63, -2 ** 63 - 5]
        return slice(fdp.PickValueInList(opt), fdp.PickValueInList(opt),
                     fdp.PickValueInList(opt + [0, -1, 2]))
    if k == 4:
        return slice(number(fdp), number(fdp), number(fdp) or None)
    if k == 5:
        return fdp.PickValueInList([None, Ellipsis, True, False])
    if k == 6:
        return [number(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    if k == 7:
        n = fdp.ConsumeIntInRange(0, 5)
        return tl.tensor([fdp.ConsumeBool() for _ in range(n)],
                         dtype="bool")
    if k == 8:
        n = fdp.ConsumeIntInRange(0, 4)
        dt = fdp.PickValueInList(["int64", "int32", "uint8", "int8"])
        lo = 0 if dt == "uint8" else -3
        return tl.tensor([number(fdp) % 7 + lo for _ in range(n)], dtype=dt)
    if k == 9:
        n = fdp.ConsumeIntInRange(0, 4)
        return np.array([fdp.ConsumeIntInRange(-4, 4) for _ in range(n)])
    if k == 10 and depth < 3:
        return [key_item(fdp, depth + 1)
                for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if k == 11:
        return fdp.PickValueInList([1.5, "a", object(), 1j, b"", (),
                                    tl.tensor(1.0), tl.tensor(2),
                                    np.int64(1), np.bool_(True)])
    return tl.tensor(number(fdp) % 5)


def base(fdp):
    nd = fdp.ConsumeIntInRange(0, 4)
    shape = [fdp.ConsumeIntInRange(0, 4) for _ in range(nd)]
    t = tl.arange(int(np.prod(shape)) if shape else 1).reshape(shape).to(
        fdp.PickValueInList(DTYPES))
    k = fdp.ConsumeIntInRange(0, 3)
    if k == 1 and nd >= 2:
        t = t.transpose(0, nd - 1)
    elif k == 2 and nd >= 1:
        t = t.flip(0)
    elif k == 3 and nd >= 1:
        t = t[::2]
    return t


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    t = base(fdp)
    n = fdp.ConsumeIntInRange(0, 6)
    items = [key_item(fdp) for _ in range(n)]
    key = items[0] if n == 1 and fdp.ConsumeBool() else tuple(items)
    if fdp.ConsumeBool():
        try:
            r = t[key]
        except EXPECTED:
            return
        _common.touch(r)
        return
    k = fdp.ConsumeIntInRange(0, 3)
    if k == 0:
        value = number(fdp)
    elif k == 1:
        value = fdp.PickValueInList([1.5, float("nan"), True, 1j, "x", None])
    else:
        nd = fdp.ConsumeIntInRange(0, 3)
        value = tl.ones([fdp.ConsumeIntInRange(0, 3) for _ in range(nd)],
                        dtype=fdp.PickValueInList(DTYPES))
    before = t.clone()
    try:
        t[key] = value
    except EXPECTED:
        if not bool((before == t).all()) and not bool(
                (before != before).any()):
            raise AssertionError("a failed __setitem__ changed the tensor: "
                                 "key {!r}".format(key))
        return
    _common.touch(t)


if __name__ == "__main__":
    _common.main(TestOneInput)
