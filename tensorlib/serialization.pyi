import os
from typing import Final, Literal

from ._C import Tensor, device

__all__ = ["save", "load", "load_metadata"]

MAX_HEADER_BYTES: Final[int]
NPY_MAX_HEADER_BYTES: Final[int]
DATA_ALIGN: Final[int]

def save(
    obj: dict[str, Tensor] | Tensor,
    path: str | bytes | os.PathLike[str],
    metadata: dict[str, str] | None = None,
    format: Literal["safetensors", "npy"] | None = None,
) -> None: ...
def load(
    path: str | bytes | os.PathLike[str],
    mmap: bool = False,
    device: str | device = "cpu",
    mode: Literal["r", "c", "r+"] = "r",
) -> dict[str, Tensor] | Tensor: ...
def load_metadata(path: str | bytes | os.PathLike[str]) -> dict[str, str]: ...
