# Type stubs for tensorlib/testing.py: assert_close for users' test suites.
from typing import Any, Callable, Optional, Union

__all__ = ["assert_close"]

def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: Optional[float] = ...,
    atol: Optional[float] = ...,
    equal_nan: bool = ...,
    check_dtype: bool = ...,
    check_device: bool = ...,
    check_stride: bool = ...,
    msg: Union[str, Callable[[str], str], None] = ...,
) -> None: ...
