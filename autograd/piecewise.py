"""Piecewise-constant functions (sign, floor, ceil): flat almost everywhere, so they declare no rule
and their results are constants (PyTorch's gradient of each is 0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .functions import numbers
from .op import Op


class Sign(Op):
    """-1, 0 or 1 for each element, as its sign; flat, so a constant result (PyTorch's gradient is 0).

    >>> sign(tensor([-2.0, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """

    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.sign(numbers(a))


class Floor(Op):
    """Each element rounded down; flat, so a constant result (PyTorch's gradient is 0).

    >>> floor(tensor([1.5, -1.5]))
    tensor([ 1., -2.])
    """

    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.floor(numbers(a))


class Ceil(Op):
    """Each element rounded up; flat, so a constant result (PyTorch's gradient is 0).

    >>> ceil(tensor([1.5, -1.5]))
    tensor([ 2., -1.])
    """

    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.ceil(numbers(a))
