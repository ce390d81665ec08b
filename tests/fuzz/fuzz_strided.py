"""Fuzzes as_strided and set_ arguments: sizes and strides of any sign and
magnitude (overflowing products included), storage offsets, wrong lengths
and types, over tensors of several dtypes whose storages are shared,
sliced and resized.  An accepted call must produce a tensor whose every
element lies inside its storage (checked by reading them all: the fuzz
build's ASan catches a read outside); a refused call leaves the tensor
as it was."""
import _common
from _common import EXPECTED, atheris

tl = _common.import_tensorlib()

DTYPES = ["float32", "int64", "uint8", "bool", "complex128", "float16"]
EDGE = [0, 1, -1, 2, 3, 7, -7, 2 ** 31, 2 ** 62, -2 ** 62, 2 ** 63 - 1,
        -2 ** 63, 2 ** 63, 2 ** 32 + 1, 2 ** 61 + 1]


def num(fdp, small):
    if fdp.ConsumeIntInRange(0, 5) == 0:
        return fdp.PickValueInList(EDGE)
    return fdp.ConsumeIntInRange(-1 if small > 2 else 0, small)


def seq(fdp, n, small):
    k = fdp.ConsumeIntInRange(0, 15)
    vals = [num(fdp, small) for _ in range(n)]
    if k == 0:
        return tuple(vals)
    if k == 1:
        return fdp.PickValueInList([None, 3, "ab", [1.5], [None], [True]])
    if k == 2:
        try:
            return tl.tensor(vals, dtype="int64") if vals else vals
        except OverflowError:
            return vals
    return vals


def TestOneInput(data):
    fdp = atheris.FuzzedDataProvider(data)
    n = fdp.ConsumeIntInRange(0, 40)
    t = tl.arange(n).to(fdp.PickValueInList(DTYPES))
    if fdp.ConsumeBool() and n > 2:
        t = t[1:]
    before = t.clone()
    before_shape, before_stride = tuple(t.shape), t.stride()
    before_offset = t.storage_offset()
    nd = fdp.ConsumeIntInRange(0, 5)
    size = seq(fdp, nd, 6)
    stride = seq(fdp, nd + (1 if fdp.ConsumeIntInRange(0, 15) == 0 else 0),
                 8)
    offset = num(fdp, 10) if fdp.ConsumeIntInRange(0, 3) else None
    op = fdp.ConsumeIntInRange(0, 3)
    try:
        if op == 0:
            r = t.as_strided(size, stride, offset)
        elif op == 1:  # the functional form, where tensorlib has one
            f = getattr(tl, "as_strided", type(t).as_strided)
            r = f(t, size, stride, offset)
        elif op == 2:
            src = tl.empty(fdp.ConsumeIntInRange(0, 30), dtype=t.dtype)
            r = t.set_(src.untyped_storage() if fdp.ConsumeBool() else src,
                       offset or 0, size, stride)
        else:
            r = t.set_(t.untyped_storage(), offset or 0, size, stride)
    except EXPECTED:
        if op >= 2 and (tuple(t.shape) != before_shape or t.stride() !=
                        before_stride or t.storage_offset() !=
                        before_offset or not bool((t == before).all())):
            raise AssertionError("a refused set_ changed the tensor")
        return
    _common.touch(r)
    if fdp.ConsumeBool():
        try:
            r.fill_(1)
        except EXPECTED:
            pass


if __name__ == "__main__":
    _common.main(TestOneInput)
