"""Four ops with hand-written derivative rules. One of the rules is wrong: find it with
exercises/ml/test_02_find_the_bug.py (finite differences), then fix it here.

Each op is declared as autograd/functions.py declares its ops: one class with its rule as text
(for graph pictures), its forward on NumPy values, and under it its rule, which turns the
gradient arriving at the output, g, into the gradient for the input. `function(op)` makes the op
a function of tensors that records one node per call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dglang.autograd import function
from dglang.autograd.op import Op


class Cube(Op):
    """a ** 3, so d/da = 3 a²."""

    rules = ("g·3a²",)

    @staticmethod
    def forward(a: Any) -> Any:
        return a**3

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * 3 * a * a,)


class Softsign(Op):
    """a / (1 + |a|), so d/da = 1 / (1 + |a|)²."""

    rules = ("g/(1 + |a|)²",)

    @staticmethod
    def forward(a: Any) -> Any:
        return a / (1 + np.abs(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g / (1 + a.abs()) ** 2,)


class Normalize(Op):
    """a / a.sum(): the entries as shares of their total (for positive a)."""

    rules = ("g/sum(a)",)

    @staticmethod
    def forward(a: Any) -> Any:
        return a / a.sum()

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        total = a.sum()
        return (g / total,)


class LogCosh(Op):
    """log(cosh(a)), a smooth |a|, so d/da = tanh(a)."""

    rules = ("g·tanh a",)

    @staticmethod
    def forward(a: Any) -> Any:
        return np.log(np.cosh(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * a.tanh(),)


cube = function(Cube)
softsign = function(Softsign)
normalize = function(Normalize)
log_cosh = function(LogCosh)
