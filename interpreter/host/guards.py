"""DG's guards on the engine: how large a tensor a program may make, how much memory it may hold
(`--max-memory`), and matrix products long enough to outlast `--timeout` computed in slices.

The engine asks its hooks (autograd/hooks.py) before every large result; a session installs
`Guards` around each run (session.py) and puts back what was there after, so the engine used
from Python alone stays plain NumPy. Two limits, both read at each check, so a host can set or
lower them (the tests do):

    max_elements  the most elements one tensor may have
    max_bytes     the most memory the process may hold (its resident set, memory.py) once an
                  allocation is made; None: no total budget. Checked before every result of
                  LARGE bytes or more; smaller ones are left to the watchdog, which reads the
                  total every few milliseconds (reading it costs about a microsecond: too much
                  for every op).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dglang.autograd.exceptions import TensorMemoryError, TensorValueError
from dglang.autograd.hooks import Hooks
from dglang.interpreter.semantics.interrupts import MEMORY_HELP, size_text

from .memory import resident_bytes

# 2**27 float64 values are 1 GiB: larger than any lesson needs, small enough to leave a laptop usable.
max_elements = 2**27
LARGE = 1 << 20  # bytes: an allocation at least this large is worth a look at the process's total

# One NumPy product of two 8192×8192 matrices runs 20 seconds in C, where nothing (Ctrl-C, the
# --timeout watchdog) can stop it. A product of more multiply-adds than this is computed a slice of
# rows at a time, so no single call lasts long (a fraction of a second); smaller slices would
# cost the product more (docs/performance.md). Integers have no BLAS, and go 30 times slower.
SLICE_WORK = 2**33
SLICE_WORK_INTEGERS = 2**26


class Guards(Hooks):
    """What the engine is told while a program runs: the size limit, the memory budget, slices."""

    def __init__(self, max_bytes: int | None) -> None:
        self.max_bytes = max_bytes
        # asked about anything that could break either limit (bools are one byte: those of
        # LARGE // 8 elements are asked about too, and pass)
        self.watch = min(LARGE // 8, max_elements + 1)
        self.long_product = min(SLICE_WORK, SLICE_WORK_INTEGERS)  # matmul decides by the dtype

    def allocating(
        self, count: int, itemsize: int, what: str | None, shape: tuple[int, ...] | None = None, help: str | None = None
    ) -> None:
        if count > max_elements:
            if shape is None:
                raise TensorValueError(
                    f"{what} would have more than {max_elements:,} elements, the limit",
                    help=help or "use smaller tensors",
                )
            made = f"a tensor of shape {shape} has" if what is None else f"{what} would have shape {shape}:"
            raise TensorValueError(f"{made} {count:,} elements, more than the limit of {max_elements:,}", help=help)
        nbytes = count * itemsize
        if self.max_bytes is None or nbytes < LARGE:
            return
        held = resident_bytes()
        if held is not None and held + nbytes > self.max_bytes:
            raise TensorMemoryError(
                f"{what or f'a tensor of shape {shape}'} needs {size_text(nbytes)}, and DG already holds "
                f"{size_text(held)}: more than the limit of {size_text(self.max_bytes)}",
                help=MEMORY_HELP,
            )

    def matmul(self, x: Any, y: Any) -> Any:
        """x @ y, a slice of x's rows at a time when one call would run for long."""
        if x.ndim > 1 and y.ndim > 1:
            batch = math.prod(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
            work = batch * x.shape[-2] * x.shape[-1] * y.shape[-1]  # multiply-adds
            if work > (SLICE_WORK if x.dtype.kind == y.dtype.kind == "f" else SLICE_WORK_INTEGERS):
                return by_slices(x, y)
        return np.matmul(x, y)


def by_slices(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y for matrices (or stacks of them), a slice of x's rows at a time."""
    shape = np.matmul(x[..., :0, :], y).shape  # the result's, with no rows: checks the shapes too
    rows, per_row = x.shape[-2], math.prod(shape[:-2]) * shape[-1] * x.shape[-1]
    out = np.empty((*shape[:-2], rows, shape[-1]), dtype=np.result_type(x, y))
    limit = SLICE_WORK if out.dtype.kind == "f" else SLICE_WORK_INTEGERS
    step = max(1, limit // max(1, per_row))
    for start in range(0, rows, step):
        np.matmul(x[..., start : start + step, :], y, out=out[..., start : start + step, :])
    return out
