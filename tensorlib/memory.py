"""tensorlib.memory: memory kinds, the (device, kind) -> allocator registry,
allocator statistics, workspace arenas and pinned memory.

Every tensor's memory comes from the allocator the registry names for its
(device, MemoryKind).  The CPU defaults::

    Default, Persistent, KVCache -> "cpu_caching"      (the caching pool)
    HostPageable                 -> "cpu_aligned"      (posix_memalign, no cache)
    HostPinned                   -> "cpu_pinned"       (mlock'd caching pool)
    Workspace                    -> "workspace_arena"  (this thread's innermost
                                                        ``tensorlib.workspace``)

``set_allocator`` reroutes a kind to any built-in allocator; C code can
register any allocator table with ``tl_registry_set`` (tensorlib/alloc.h).
Allocators outlive every block they hand out: rerouting never frees memory
that tensors still use -- those blocks go back to the allocator that made
them.
"""
from . import _C
from . import MemoryKind
from ._C import (  # noqa: F401 - re-exported
    ExecutionPlan,
    WorkspaceArena,
    empty_cache,
    memory_stats,
    reset_peak_memory_stats,
    workspace,
)

__all__ = [
    "MemoryKind", "allocator_for", "set_allocator", "reset_allocator",
    "allocators", "pinned_is_locked", "pinned_info", "memory_stats",
    "memory_summary", "empty_cache", "reset_peak_memory_stats", "workspace",
    "WorkspaceArena", "ExecutionPlan", "STATS_KEYS",
]

#: The keys of every ``memory_stats`` dict (one schema for every allocator).
STATS_KEYS = (
    "active_bytes", "active_bytes_peak", "reserved_bytes", "cached_bytes",
    "alloc_count", "free_count", "cache_hits", "cache_misses",
    "largest_free_block", "fragmentation_bytes",
    "mapped_bytes",
)

_CPU_DEFAULTS = {
    MemoryKind.Default: "cpu_caching",
    MemoryKind.Persistent: "cpu_caching",
    MemoryKind.KVCache: "cpu_caching",
    MemoryKind.HostPageable: "cpu_aligned",
    MemoryKind.HostPinned: "cpu_pinned",
    MemoryKind.Workspace: "workspace_arena",
}


def allocator_for(device="cpu", kind=MemoryKind.Default):
    """The name of the allocator registered for (device, kind).

    Raises ValueError for unknown kinds or devices and for a host kind on a
    non-CPU device; RuntimeError when nothing is registered (CUDA in a
    CPU-only build).
    """
    return _C._allocator_for(device, kind)


def set_allocator(kind, name, device="cpu"):
    """Routes memory ``kind`` on ``device`` to the built-in allocator
    ``name`` (one of ``allocators()``).  Tensors allocated before keep their
    memory and give it back to the allocator that made it."""
    _C._set_allocator(kind, name, device)


def reset_allocator(kind, device="cpu"):
    """Routes ``kind`` back to its default CPU allocator."""
    if str(device) not in ("cpu", "cpu:0"):
        raise ValueError("reset_allocator(): defaults are known for the cpu "
                         "only; register CUDA allocators from C")
    _C._set_allocator(kind, _CPU_DEFAULTS[MemoryKind(_kind_int(kind))],
                      "cpu")


def _kind_int(kind):
    if isinstance(kind, str):
        for k in MemoryKind:
            if k.name.lower() == kind.replace("_", "").lower():
                return int(k)
        raise ValueError(f"unknown memory kind {kind!r}: expected one of "
                         + ", ".join(k.name for k in MemoryKind))
    return int(MemoryKind(kind))


def allocators():
    """The names of the built-in allocators ``set_allocator`` accepts."""
    return list(_C._allocators())


def pinned_info():
    """What the pinned allocator managed to page-lock: ``locked_bytes`` and
    ``unlocked_bytes`` of the segments it holds now, ``lock_failures`` so
    far, and ``last_locked``."""
    return dict(_C._pinned_info())


def pinned_is_locked():
    """Whether pinned memory is really page-locked here: False when the
    system refused ``mlock`` for the most recent pinned segment (e.g. beyond
    RLIMIT_MEMLOCK); the memory then is plain host memory."""
    return bool(_C._pinned_info()["last_locked"])


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    return str(n)  # pragma: no cover


def memory_summary(device="cpu"):
    """A readable table of the allocator statistics of ``device``: one row
    per memory kind (the allocator serving it and its counters), then the
    device total over its distinct allocators (what ``memory_stats(device)``
    returns), as PyTorch's ``torch.cuda.memory_summary``."""
    cols = [("active", "active_bytes", True),
            ("peak", "active_bytes_peak", True),
            ("reserved", "reserved_bytes", True),
            ("cached", "cached_bytes", True),
            ("allocs", "alloc_count", False),
            ("frees", "free_count", False),
            ("hits", "cache_hits", False),
            ("misses", "cache_misses", False),
            ("largest free", "largest_free_block", True),
            ("fragmentation", "fragmentation_bytes", True)]
    rows = []
    seen = set()
    for kind in MemoryKind:
        try:
            name = allocator_for(device, kind)
        except (ValueError, RuntimeError):
            continue  # host kinds on a device, or nothing registered
        s = memory_stats(device, kind)
        shown = name + ("*" if name in seen else "")
        seen.add(name)
        rows.append([kind.name, shown] + [
            _fmt_bytes(s[k]) if isbytes else str(s[k])
            for _, k, isbytes in cols])
    total = memory_stats(device)
    rows.append(["total", "(distinct)"] + [
        _fmt_bytes(total[k]) if isbytes else str(total[k])
        for _, k, isbytes in cols])
    header = ["kind", "allocator"] + [c[0] for c in cols]
    widths = [max(len(r[i]) for r in rows + [header])
              for i in range(len(header))]

    def line(r):
        return ("  ".join(r[i].ljust(widths[i]) if i < 2 else
                          r[i].rjust(widths[i]) for i in range(len(r)))
                .rstrip())

    rule = "=" * len(line(header))
    out = [rule, f"tensorlib memory summary: device {device}", rule,
           line(header), "-" * len(rule)]
    out += [line(r) for r in rows[:-1]]
    out += ["-" * len(rule), line(rows[-1])]
    if any(r[1].endswith("*") for r in rows):
        out.append("* the same allocator as a row above (one set of "
                   "counters, counted once in the total)")
    if str(device) in ("cpu", "cpu:0"):
        pi = pinned_info()
        out.append(
            f"pinned memory: {_fmt_bytes(pi['locked_bytes'])} page-locked, "
            f"{_fmt_bytes(pi['unlocked_bytes'])} unlocked fallback "
            f"({pi['lock_failures']} refused mlock calls)")
    out.append(rule)
    return "\n".join(out) + "\n"
