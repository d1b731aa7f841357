"""The circle's functions (sin, cos) and their inverses (asin, acos, atan), with their rules.

Each inverse's derivative is one over the derivative of the function it undoes, written in the
input: asin's is 1/√(1 - a²), since cos(asin a) = √(1 - a²); atan's is 1/(1 + a²). PyTorch
writes the same rules (derivatives.yaml), so the gradients agree with its to the last bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .functions import numbers
from .op import Op


class Sin(Op):
    """The sine of each element, in radians.

    >>> sin(tensor([0.0, pi / 2]))
    tensor([0., 1.])
    """

    rules = ("g·cos a",)
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.sin(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * a.cos(),)


class Cos(Op):
    """The cosine of each element, in radians.

    >>> cos(tensor([0.0, pi]))
    tensor([ 1., -1.])
    """

    rules = ("-g·sin a",)
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.cos(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (-g * a.sin(),)


INSIDE = (np.array([-0.5, 0.25, 0.75]),)  # a sample inside [-1, 1], for the checks of every op
ENDS = "the derivative 1/√(1 - a²) is infinite at a = ±1 (and a outside [-1, 1] has no asin or acos: nan)"


class Asin(Op):
    """The angle whose sine is each element, in radians, from -π/2 to π/2 (nan outside [-1, 1]).

    >>> asin(tensor([0.0, 0.5, 1.0]))
    tensor([0.0000, 0.5236, 1.5708])
    """

    rules = ("g/√(1 - a²)",)
    nan = ENDS
    note = "infinite at a = ±1, as PyTorch's"
    sample = INSIDE
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.arcsin(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g / (1 - a * a).sqrt(),)


class Acos(Op):
    """The angle whose cosine is each element, in radians, from 0 to π (nan outside [-1, 1]).

    >>> acos(tensor([1.0, 0.5, 0.0]))
    tensor([0.0000, 1.0472, 1.5708])
    """

    rules = ("-g/√(1 - a²)",)
    nan = ENDS
    note = "acos a = π/2 - asin a, so the same rule with its sign turned"
    sample = INSIDE
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.arccos(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (-g / (1 - a * a).sqrt(),)


class Atan(Op):
    """The angle whose tangent is each element, in radians, between -π/2 and π/2.

    >>> atan(tensor([0.0, 1.0, -1.0]))
    tensor([ 0.0000,  0.7854, -0.7854])
    """

    rules = ("g/(1 + a²)",)
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.arctan(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g / (1 + a * a),)
