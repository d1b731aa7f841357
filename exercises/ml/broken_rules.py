"""Four ops with hand-written derivative rules. One of the rules is wrong: find it with
exercises/ml/test_02_find_the_bug.py (finite differences), then fix it here.

Each op is declared (its name and its rule as text, for graph pictures) right above its forward
function, computes its value with NumPy and records one node whose rule turns the gradient
arriving at the output, g, into the gradient for the input, exactly as autograd/functions.py does.
"""

from __future__ import annotations

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.op import Op
from dglang.autograd.tensor import lift, record

CUBE = Op("Cube", inputs=("a",), rules=("g·3a²",))


def cube(a: Tensor) -> Tensor:
    """a ** 3, so d/da = 3 a²."""
    a = lift(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * 3 * a * a,)

    return record(a.data**3, CUBE, (a,), backward)


SOFTSIGN = Op("Softsign", inputs=("a",), rules=("g/(1 + |a|)²",))


def softsign(a: Tensor) -> Tensor:
    """a / (1 + |a|), so d/da = 1 / (1 + |a|)²."""
    a = lift(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g / (1 + a.abs()) ** 2,)

    return record(a.data / (1 + np.abs(a.data)), SOFTSIGN, (a,), backward)


NORMALIZE = Op("Normalize", inputs=("a",), rules=("g/sum(a)",))


def normalize(a: Tensor) -> Tensor:
    """a / a.sum(): the entries as shares of their total (for positive a)."""
    a = lift(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        total = a.sum()
        return (g / total,)

    return record(a.data / a.data.sum(), NORMALIZE, (a,), backward)


LOG_COSH = Op("LogCosh", inputs=("a",), rules=("g·tanh a",))


def log_cosh(a: Tensor) -> Tensor:
    """log(cosh(a)), a smooth |a|, so d/da = tanh(a)."""
    a = lift(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * a.tanh(),)

    return record(np.log(np.cosh(a.data)), LOG_COSH, (a,), backward)
