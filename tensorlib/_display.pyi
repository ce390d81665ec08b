# Type stubs for tensorlib._display (explain, explain_reshape, memory_report
# and Tensor._repr_html_), re-exported by tensorlib/__init__.pyi.  A stub of
# its own keeps mypy from reading the unannotated implementation when it
# checks user code.
from typing import Any, Final

from ._C import Tensor, _DeviceLike, _ShapeLike

__all__ = ["explain", "explain_reshape", "memory_report", "MemoryReport"]

MAX_CELLS: Final[int]
CELLS_PER_ROW: Final[int]
TEXT_CELLS_PER_ROW: Final[int]
MAX_VISITS: Final[int]
MAX_LISTED: Final[int]

def explain(t: Tensor) -> str:
    """The tensor's values, layout facts and storage strip, as text."""

def explain_reshape(t: Tensor, shape: _ShapeLike | int) -> str:
    """Whether t.reshape(shape) will be a view or a copy, and why."""

def tensor_html(t: Tensor) -> str: ...
def reshape_plan(
    sizes: tuple[int, ...], strides: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[tuple[int, ...] | None, list[str]]: ...

class MemoryReport:
    """Allocator statistics: prints as memory_summary(); a table in notebooks."""

    devices: list[str]
    text: str
    rows: list[dict[str, Any]]
    totals: dict[str, dict[str, int]]
    def __init__(self, devices: list[str]) -> None: ...
    def _repr_pretty_(self, p: Any, cycle: bool) -> None: ...
    def _repr_html_(self) -> str: ...

def memory_report(device: _DeviceLike | None = None) -> MemoryReport:
    """Allocator statistics of device (default: every device) as a MemoryReport."""
