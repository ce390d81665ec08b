"""A printed tour of tensorlib: `python -m tensorlib.tour`."""
import numpy as np

import tensorlib as tl


def section(title):
    print()
    print("== " + title)


def show(label, value):
    print("{:<34} {}".format(label, value))


def main():
    print("tensorlib {}: strided tensors over shared storages".format(
        tl.__version__))

    section("Creating tensors")
    a = tl.arange(12, dtype=tl.float32)
    show("tl.arange(12, dtype=tl.float32)", a)
    z = tl.zeros(2, 3, dtype=tl.int32)
    show("tl.zeros(2, 3, dtype=tl.int32)", z)
    t = tl.tensor([[1.5, 2.0], [3.0, 4.25]], dtype=tl.float64)
    show("tl.tensor([[1.5, 2.0], [3.0, 4.25]])", t)
    show("tl.full((2,), 7)", tl.full((2,), 7))

    section("Shape, strides and the storage underneath")
    m = a.as_strided((3, 4), (4, 1))
    show("m = a.as_strided((3, 4), (4, 1))", m.shape)
    show("m.stride()", m.stride())
    show("m.is_contiguous()", m.is_contiguous())
    mt = a.as_strided((4, 3), (1, 4))
    show("transposed view (4, 3), (1, 4)", mt.stride())
    show("  is_contiguous()", mt.is_contiguous())
    show("  same memory as a?", mt.data_ptr() == a.data_ptr())
    show("element size, nbytes", (a.element_size(), a.nbytes))

    section("NumPy round trip, zero copy")
    arr = m.numpy()
    arr[0, 0] = 100.0
    show("m.numpy()[0, 0] = 100 -> a[0]", a[0].item())
    src = np.linspace(0, 1, 5)[::-1]
    r = tl.from_numpy(src)
    show("tl.from_numpy(x[::-1]).stride()", r.stride())
    show("  values", r.tolist())
    mv = memoryview(a)
    show("memoryview(a).format, shape", (mv.format, mv.shape))
    mv.release()

    section("Allocator statistics")
    before = tl.memory_stats()["alloc_count"]
    for _ in range(100):
        tl.empty(1024)
    stats = tl.memory_stats()
    show("allocations after 100 x empty(1024)",
         stats["alloc_count"] - before)
    show("cache hits / misses", (stats["cache_hits"], stats["cache_misses"]))
    show("reserved / cached bytes",
         (stats["reserved_bytes"], stats["cached_bytes"]))

    section("Errors are clear")
    for expr in ("tl.empty(2**62, 4)", "tl.empty(-1)",
                 "a.as_strided((100,), (1,))", "tl.zeros(3).item()"):
        try:
            eval(expr)
        except Exception as e:  # noqa: BLE001 - we show every error
            show(expr, "{}: {}".format(type(e).__name__, e))


if __name__ == "__main__":
    main()
