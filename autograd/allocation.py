"""The memory budget: the largest tensor any op may allocate, and the most the whole process may hold.

A program that asks for `zeros(100000, 100000)`, or broadcasts a column against a row into ten
billion elements, gets a clear error instead of exhausting the machine. Two limits, both read at
each check, so a host can set or lower them (the interpreter's `--max-memory`, the fuzz tests):

    max_elements  the most elements one tensor may have
    max_bytes     the most memory the process may hold (its resident set, memory.py) once an
                  allocation is made; None: no total budget. Checked before an op whose result's
                  shape is known allocates it, when it is large (LARGE bytes or more); smaller
                  allocations are left to the host's watchdog, which reads the total every few
                  milliseconds (reading it costs about a microsecond: too much for every op).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .exceptions import TensorMemoryError, TensorValueError
from .memory import resident_bytes

# 2**27 float64 values are 1 GiB: larger than any lesson needs, small enough to leave a laptop usable.
max_elements = 2**27
max_bytes: int | None = None
LARGE = 1 << 20  # bytes: an allocation at least this large is worth a look at the process's total
# Elementwise ops look at their result's shape only when the product of their operands' sizes is
# above this (or above max_elements): below it, no result can reach 128 MiB.
GUARD_ELEMENTS = 2**24


def check_shape(shape: Iterable[int], what: str | None = None, help: str | None = None, itemsize: int = 8) -> None:
    """Refuse a tensor of `shape` (negative sizes, more elements than a tensor may have, or more
    memory than the budget has left).

    `what` names the op that would make it ("the result of '*'"); None means a new tensor."""
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise TensorValueError(f"a shape cannot have negative dimensions: {shape}")
    count = math.prod(shape)
    if count > max_elements:
        made = f"a tensor of shape {shape} has" if what is None else f"{what} would have shape {shape}:"
        raise TensorValueError(f"{made} {count:,} elements, more than the limit of {max_elements:,}", help=help)
    check_memory(count * itemsize, f"a tensor of shape {shape}" if what is None else what)


def check_count(count: int, what: str) -> None:
    """Refuse a result of `count` elements whose shape is not known yet (nested lists, joins)."""
    if count > max_elements:
        raise TensorValueError(
            f"{what} would have more than {max_elements:,} elements, the limit", help="use smaller tensors"
        )
    check_memory(count * 8, what)


def check_memory(nbytes: int, what: str) -> None:
    """Refuse to allocate `nbytes` more when the process would then hold more than `max_bytes`."""
    if max_bytes is None or nbytes < LARGE:
        return
    held = resident_bytes()
    if held is not None and held + nbytes > max_bytes:
        raise TensorMemoryError(
            f"{what} needs {size_text(nbytes)}, and DG already holds {size_text(held)}: "
            f"more than the limit of {size_text(max_bytes)}",
            help=MEMORY_HELP,
        )


MEMORY_HELP = "the limit is set with --max-memory; a list or a graph that grows in a loop? use smaller tensors"


def size_text(nbytes: int) -> str:
    """`1.5 GiB`, `300 MiB`, `12 KiB`: a size as a person reads it."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{nbytes} bytes"
