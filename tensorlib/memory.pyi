# Type stubs for tensorlib.memory (checked by .ci/stubtest.sh).
from typing import Final, TypedDict

from . import ExecutionPlan as ExecutionPlan
from . import MemoryKind as MemoryKind
from . import WorkspaceArena as WorkspaceArena
from . import device
from . import empty_cache as empty_cache
from . import memory_stats as memory_stats
from . import reset_peak_memory_stats as reset_peak_memory_stats
from . import workspace as workspace

__all__ = [
    "MemoryKind", "allocator_for", "set_allocator", "reset_allocator",
    "allocators", "pinned_is_locked", "pinned_info", "memory_stats",
    "memory_summary", "empty_cache", "reset_peak_memory_stats", "workspace",
    "WorkspaceArena", "ExecutionPlan", "STATS_KEYS",
]

_DeviceLike = device | str | int
_KindLike = MemoryKind | int | str

class _PinnedInfo(TypedDict):
    locked_bytes: int
    unlocked_bytes: int
    lock_failures: int
    last_locked: bool

#: The keys of every memory_stats dict (one schema for every allocator).
STATS_KEYS: Final[tuple[str, ...]]

def allocator_for(device: _DeviceLike = "cpu", kind: _KindLike = ...) -> str: ...
def set_allocator(kind: _KindLike, name: str, device: _DeviceLike = "cpu") -> None: ...
def reset_allocator(kind: _KindLike, device: _DeviceLike = "cpu") -> None: ...
def allocators() -> list[str]: ...
def pinned_info() -> _PinnedInfo: ...
def pinned_is_locked() -> bool: ...
def memory_summary(device: _DeviceLike = "cpu") -> str: ...
