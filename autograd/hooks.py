"""What the engine asks whoever runs it, before work that could be large. By default nothing is
asked and nothing is refused: the engine alone is plain NumPy.

A host that runs code it does not trust (DG's interpreter: interpreter/host/guards.py) installs
its own `Hooks` around a run, and gets two questions:

    allocating(count, itemsize, what, shape, help)
        an op is about to make a result of `count` elements (of `shape`, when known) of
        `itemsize` bytes each; raise an AutogradError to refuse it. Asked before every result,
        reduction, broadcast, index, join or new tensor of at least `watch` elements, so no
        single NumPy call allocates more than the host allows.
    matmul(x, y)
        compute the product x @ y of two NumPy arrays, for products of at least `long_product`
        multiply-adds: a host may compute a long one in slices, so that a timeout can stop it
        between two.

`watch` and `long_product` are the host's, read when it is installed: below them an op asks
nothing (a question costs a microsecond or two; the small tensors of most programs pay nothing).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

from .exceptions import TensorValueError


class Hooks:
    """The engine's questions, answered as plain NumPy would: everything is allowed."""

    watch: int = sys.maxsize  # the fewest elements of a result worth asking about
    long_product: int = sys.maxsize  # the fewest multiply-adds of a product worth handing to matmul

    def allocating(
        self, count: int, itemsize: int, what: str | None, shape: tuple[int, ...] | None = None, help: str | None = None
    ) -> None:
        """A result of `count` elements is about to be made (`what` makes it; None: a new tensor of
        `shape`); raise to refuse it."""

    def matmul(self, x: Any, y: Any) -> Any:
        """x @ y (the shapes are valid, and its result was allowed already)."""
        return np.matmul(x, y)


installed = Hooks()
# read by the ops on every call: one module attribute, not two
watch, long_product = installed.watch, installed.long_product


def install(hooks: Hooks) -> Hooks:
    """Make `hooks` the ones the engine asks; returns those it replaced (install them back after)."""
    global installed, watch, long_product
    previous, installed, watch, long_product = installed, hooks, hooks.watch, hooks.long_product
    return previous


def allocating(
    count: int, what: str, itemsize: int = 8, shape: tuple[int, ...] | None = None, help: str | None = None
) -> None:
    """Ask the installed hooks about a result of `count` elements, if it is large enough to ask about."""
    if count >= watch:
        installed.allocating(count, itemsize, what, shape, help)


def new_shape(
    shape: Iterable[int], what: str | None = None, help: str | None = None, itemsize: int = 8
) -> tuple[int, ...]:
    """Check a shape about to be allocated: no negative sizes, and the hooks asked. `what` names the
    op that makes it ("the result of '*'"); None means a new tensor."""
    shape = tuple(shape)
    if any(n < 0 for n in shape):
        raise TensorValueError(f"a shape cannot have negative dimensions: {shape}")
    count = math.prod(shape)
    if count >= watch:
        installed.allocating(count, itemsize, what, shape, help)
    return shape
