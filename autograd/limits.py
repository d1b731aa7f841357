"""The memory budget: the largest tensor any op may allocate, checked before NumPy allocates it.

A program that asks for `zeros(100000, 100000)`, or broadcasts a column against a row into ten
billion elements, gets a clear error instead of exhausting the machine. `max_elements` is read
at each check, so a host (the fuzz tests) can lower it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .errors import TensorValueError

# 2**27 float64 values are 1 GiB: larger than any lesson needs, small enough to leave a laptop usable.
max_elements = 2**27


def check_shape(shape: Iterable[int], what: str | None = None, help: str | None = None) -> None:
    """Refuse a tensor of `shape` (negative sizes, or more elements than the budget).

    `what` names the op that would make it ("the result of '*'"); None means a new tensor."""
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise TensorValueError(f"a shape cannot have negative dimensions: {shape}")
    count = math.prod(shape)
    if count > max_elements:
        made = f"a tensor of shape {shape} has" if what is None else f"{what} would have shape {shape}:"
        raise TensorValueError(f"{made} {count:,} elements, more than the limit of {max_elements:,}", help=help)


def check_count(count: int, what: str) -> None:
    """Refuse a result of `count` elements whose shape is not known yet (nested lists, joins)."""
    if count > max_elements:
        raise TensorValueError(
            f"{what} would have more than {max_elements:,} elements, the limit", help="use smaller tensors"
        )
