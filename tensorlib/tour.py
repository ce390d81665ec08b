"""A printed tour of tensorlib: `python -m tensorlib.tour`.

Each section prints what it does as it goes: creation, views and strides
(with pictures of the storage), broadcasting, in-place ops and versions,
NumPy and DLPack interop, memory kinds and statistics, errors, and a\nfew of the ops whole programs use (sorting, joins, math, the array API).  The
notebook examples/tour.ipynb tells the same story with drawn pictures.
"""
import numpy as np

import tensorlib as tl


def section(title):
    print()
    print("== " + title)


def show(label, value):
    print("{:<34} {}".format(label, value))


def indent(text, by="    "):
    print("\n".join(by + line for line in text.rstrip("\n").splitlines()))


def creating():
    section("Creating tensors")
    a = tl.arange(12, dtype=tl.float32)
    show("tl.arange(12, dtype=tl.float32)", a)
    z = tl.zeros(2, 3, dtype=tl.int32)
    show("tl.zeros(2, 3, dtype=tl.int32)", z)
    t = tl.tensor([[1.5, 2.0], [3.0, 4.25]], dtype=tl.float64)
    show("tl.tensor([[1.5, 2.0], [3.0, 4.25]])", t)
    show("tl.full((2,), 7)", tl.full((2,), 7))
    show("tl.ones(2, dtype=tl.complex64)", tl.ones(2, dtype=tl.complex64))
    return a


def strides(a):
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
    return m


def views():
    section("Views: slicing, transposes, flips, expands")
    print("A view is (shape, strides, offset) over a shared storage;")
    print("tl.explain(v) numbers the storage cells in the order v visits")
    print("them.")
    x = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    for label, v in (("x.t()", x.t()),
                     ("x[1:, ::2]", x[1:, ::2]),
                     ("x.flip(0)  (negative stride)", x.flip(0)),
                     ("x[0].expand(2, 4)  (stride 0)", x[0].expand(2, 4))):
        show(label, "shape {}, strides {}, offset {}".format(
            tuple(v.shape), v.stride(), v.storage_offset()))
        lines = tl.explain(v).splitlines()
        indent("\n".join(ln for ln in lines
                         if ln.startswith(("  cell", "  order", "  times"))))
    x[1:, ::2].fill_(-1)
    show("after x[1:, ::2].fill_(-1), x[1]", x[1].tolist())
    print("reshape is a view when the strides allow it, else a copy:")
    indent(tl.explain_reshape(x, (2, 6)))
    indent(tl.explain_reshape(x.t(), (12,)))
    show("x.t().reshape(12)._base is None (a copy)",
         x.t().reshape(12)._base is None)


def broadcasting():
    section("Broadcasting")
    col = tl.arange(3, dtype=tl.float32).reshape(3, 1)
    row = tl.arange(4, dtype=tl.float32) * 10
    show("col (3, 1) + row (4,)", (col + row).shape)
    indent(repr(col + row))
    show("tl.broadcast_shapes((3, 1), (4,))",
         tl.broadcast_shapes((3, 1), (4,)))
    b = tl.broadcast_to(row, (3, 4))
    show("tl.broadcast_to(row, (3, 4)).stride()", b.stride())
    show("  storage bytes (no copy)", b.untyped_storage().nbytes())


def inplace():
    section("In-place ops and versions")
    v = tl.zeros(4)
    w = v[1:3]
    show("v._version, w._version", (v._version, w._version))
    w.add_(5)
    show("after w.add_(5): v", v.tolist())
    show("  v._version, w._version (shared)", (v._version, w._version))
    v.mul_(2).sub_(1)
    show("after v.mul_(2).sub_(1): v", v.tolist())
    show("  v._version", v._version)
    show("w._base is v, w._is_view()", (w._base is v, w._is_view()))


def interop(m, a):
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
    n = np.from_dlpack(a)
    n[1] = -2.0
    show("np.from_dlpack(a)[1] = -2 -> a[1]", a[1].item())
    back = tl.from_dlpack(np.arange(6, dtype=np.int16).reshape(2, 3))
    show("tl.from_dlpack(int16 (2, 3) array)", (tuple(back.shape),
                                                str(back.dtype)))
    show("np.asarray(tl.ones(2, 2)).sum()", np.asarray(tl.ones(2, 2)).sum())


def memory():
    section("Memory kinds and allocator statistics")
    before = tl.memory_stats()["alloc_count"]
    for _ in range(100):
        tl.empty(1024)
    stats = tl.memory_stats()
    show("allocations after 100 x empty(1024)",
         stats["alloc_count"] - before)
    show("cache hits / misses", (stats["cache_hits"], stats["cache_misses"]))
    show("reserved / cached bytes",
         (stats["reserved_bytes"], stats["cached_bytes"]))
    w = tl.zeros(256, memory_kind="persistent")
    show("tl.zeros(256, memory_kind=...)", w.memory_kind.name)
    for kind in (tl.MemoryKind.Persistent, tl.MemoryKind.HostPageable,
                 tl.MemoryKind.Workspace):
        show("  allocator for " + kind.name,
             tl.memory.allocator_for("cpu", kind))
    with tl.workspace(1 << 20) as ws:
        s = tl.empty(1024, memory_kind=tl.MemoryKind.Workspace)
        h = ws.empty(32, 32, dtype=tl.float16, alignment=256)
        show("workspace: used / capacity", (ws.used, ws.capacity))
    try:
        s.sum()
    except RuntimeError as e:
        show("after the block, s.sum()",
             "RuntimeError: " + str(e).split(" (")[0])
    del s, h
    plan = tl.ExecutionPlan()
    plan.add_buffer("x", (128, 64), tl.float32)
    plan.add_buffer("idx", (128,), tl.int64, alignment=256)
    plan.add_view_buffer("x0", "x", (64,), offset=0)
    show("ExecutionPlan workspace_bytes", plan.workspace_bytes)
    show("  offsets", plan.offsets)
    bufs = plan.prepare()
    show("  prepare() buffers", {k: tuple(v.shape) for k, v in bufs.items()})
    del bufs, w
    print("tl.memory_summary():")
    print(tl.memory_summary(), end="")


def errors(a):
    section("Errors are clear")
    for expr in ("tl.empty(2**62, 4)", "tl.empty(-1)",
                 "a.as_strided((100,), (1,))", "tl.zeros(3).item()",
                 "tl.arange(6).reshape(4, -1)"):
        try:
            eval(expr)
        except Exception as e:  # noqa: BLE001 - we show every error
            show(expr, "{}: {}".format(type(e).__name__, e))


def programs():
    section("Whole programs: everyday ops, math, the array API")
    x = tl.tensor([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]])
    show("tl.sort(x, dim=1).values", tl.sort(x, dim=1).values)
    show("tl.cat([x, x]).shape", tl.cat([x, x]).shape)
    show("x.cumsum(1)", x.cumsum(1))
    show("tl.lerp(x, tl.zeros(2, 3), 0.5)", tl.lerp(x, tl.zeros(2, 3), 0.5))
    show("tl.float_power(x, 2).dtype", tl.float_power(x, 2).dtype)
    y = tl.tensor([1.0, float("nan"), 3.0])
    show("tl.nansum(y), y.amax()", (tl.nansum(y).item(), y.amax().item()))
    xp = x.__array_namespace__()
    show("x.__array_namespace__()", xp.__name__)
    show("xp.max(x, axis=(0, 1))", xp.max(x, axis=(0, 1)))
    show("np.sin(x) is a Tensor", type(np.sin(x)).__name__)
    s = tl.arange(8.0)
    v = s[4:]
    nbytes = s.untyped_storage().nbytes()
    s.untyped_storage().resize_(16)
    try:
        v.sum()
    except RuntimeError as e:
        show("storage shrunk under v: v.sum()",
             "RuntimeError: " + str(e).split(";")[0])
    s.untyped_storage().resize_(nbytes)  # within the block: bytes kept
    show("grown back: v.sum()", v.sum().item())


def main():
    print("tensorlib {}: strided tensors over shared storages".format(
        tl.__version__))
    a = creating()
    m = strides(a)
    views()
    broadcasting()
    inplace()
    interop(m, a)
    memory()
    errors(a)
    programs()
    print()
    print("Next: examples/tour.ipynb draws these layouts; "
          "tl.explain(t) and tl.memory_report() in any session.")


if __name__ == "__main__":
    main()
