"""`assert_close(actual, expected)`: the assertion for numbers, which `==` is not.

A test of a computation cannot compare floats with `==` (0.1 + 0.2 is not 0.3), and `assert
(a - b).abs().max() < 1e-6` fails with nothing but "assertion failed". This builtin compares entry
by entry as PyTorch's `torch.testing.assert_close` does (|actual - expected| <= atol + rtol *
|expected|, shapes equal, no broadcasting, nan unequal to everything unless `equal_nan`), and when
it fails says how many entries differ, the largest difference, where it is and both values there.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .runtime import text

# PyTorch's defaults for float64, DG's only float type.
RTOL = 1e-7
ATOL = 1e-7


def assert_close(
    actual: Any, expected: Any, rtol: float = RTOL, atol: float = ATOL, equal_nan: bool = False, msg: str | None = None
) -> None:
    """Stop with an AssertionError unless every entry of `actual` is within atol + rtol * |expected|.

    >>> assert_close(0.1 + 0.2, 0.3)
    >>> assert_close(tensor([1.0, 2.0]) * 3, tensor([3.0, 6.0]))
    """
    rtol, atol = tolerance(rtol, "rtol"), tolerance(atol, "atol")
    a, e = values(actual, "actual"), values(expected, "expected")
    if a.shape != e.shape:
        fail(
            f"shapes differ: actual {a.shape}, expected {e.shape}",
            "assert_close compares entry by entry, without broadcasting",
            msg,
        )
    with np.errstate(all="ignore"):  # inf - inf is nan, and nan compares false: both handled below
        difference = np.abs(a - e)
        close = (a == e) | (difference <= atol + rtol * np.abs(e))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(e)
    if close.all():
        return
    # The entry to show: the largest difference among those not close (a nan difference is the largest).
    ranked = np.where(close, -1.0, np.where(np.isnan(difference), np.inf, difference))
    where = np.unravel_index(int(np.argmax(ranked)), a.shape) if a.shape else ()
    shown = f"actual {number(a[where])}, expected {number(e[where])}"
    if a.shape:
        count, total = int(np.sum(~close)), a.size
        entries = f"{count} of {total} entr{'y' if total == 1 else 'ies'} differ{'s' if count == 1 else ''}"
        message = f"{entries}; the largest difference is {number(difference[where])} at {index(where)}: {shown}"
    else:
        message = f"{shown} (difference {number(difference[where])})"
    fail(
        f"not close: {message}",
        f"allowed: |actual - expected| <= atol + rtol * |expected|, atol={atol:g}, rtol={rtol:g}",
        msg,
    )


def fail(message: str, help: str, msg: Any) -> NoReturn:
    raise DGError("AssertionError", message if msg is None else f"{text(msg)}: {message}", help=help)


def values(x: Any, name: str) -> np.ndarray:
    """A number, a tensor, or a (nested) list of them, as float64 values."""
    if isinstance(x, Tensor):
        return np.asarray(x.data, dtype=np.float64)
    if isinstance(x, bool | int | float):
        return np.asarray(float(x))
    if isinstance(x, list | tuple):
        return np.asarray(ag.tensor(x).data, dtype=np.float64)
    raise DGError("TypeError", f"assert_close() compares numbers and tensors; {name} is {type_name(x)}")


def tolerance(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DGError("TypeError", f"assert_close(): {name} must be a number, not {type_name(value)}")
    if not value >= 0:
        raise DGError("ValueError", f"assert_close(): {name} must be 0 or more, not {value}")
    return float(value)


def number(value: Any) -> str:
    return f"{float(value):.6g}"


def index(where: tuple[Any, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in where) + "]"
