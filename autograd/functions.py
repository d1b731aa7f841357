"""Elementwise functions (exp, log, tanh, relu, ...) and where/maximum/minimum, with their rules.

Each op is declared once, right above its forward function: its `Op` (the name it records, the
rule as text for pictures, the likely causes of a nan), and with `@public` how a DG program
reaches it (as a tensor method `x.exp()`, as a builtin `exp(x)`, which also maps a number to a
number). The rule itself is the `backward` under the value the op computes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import allocation as limits
from .exceptions import ShapeError, TensorTypeError
from .op import Op, public
from .shaping import elementwise, may_be_large
from .tensor import Tensor, lift, record

# Rules that read only g and out (exp, sqrt, tanh, sigmoid) are written once, above their op,
# rather than as closures: a closure is a new function object for every recorded node.


def _floats(a: Any) -> Tensor:
    """Lift an operand and make it float: exp of an int tensor is a float tensor, as in NumPy."""
    a = lift(a)
    if a.dtype == "bool":
        raise TensorTypeError("this function needs numbers, not a bool tensor")
    return a


EXP = Op("Exp", inputs=("a",), rules=("g·exp a",), nan="exp of a large value overflows")


def _exp_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * out,)


@public(method=True, builtin=True, numbers=True)
def exp(a: Any) -> Tensor:
    """e to the power of each element (a number gives a number).

    >>> exp(tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """
    a = _floats(a)
    return record(np.exp(a.data), EXP, (a,), _exp_backward)


LOG = Op("Log", inputs=("a",), rules=("g/a",), nan="the derivative of log(x) is 1/x, infinite at x = 0")


@public(method=True, builtin=True, numbers=True)
def log(a: Any) -> Tensor:
    """The natural logarithm of each element; log(0) is -inf.

    >>> log(tensor([1.0, 10.0]))
    tensor([0.0000, 2.3026])
    """
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g / a,)

    return record(np.log(a.data), LOG, (a,), backward)


SQRT = Op(
    "Sqrt", inputs=("a",), rules=("g/(2√a)",), nan="the derivative of sqrt(x) is 1/(2 sqrt(x)), infinite at x = 0"
)


def _sqrt_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g / (2 * out),)


@public(method=True, builtin=True, numbers=True)
def sqrt(a: Any) -> Tensor:
    """The square root of each element.

    >>> sqrt(tensor([4.0, 2.0]))
    tensor([2.0000, 1.4142])
    """
    a = _floats(a)
    return record(np.sqrt(a.data), SQRT, (a,), _sqrt_backward)


SIN = Op("Sin", inputs=("a",), rules=("g·cos a",))


@public(method=True, builtin=True, numbers=True)
def sin(a: Any) -> Tensor:
    """The sine of each element, in radians.

    >>> sin(tensor([0.0, pi / 2]))
    tensor([0., 1.])
    """
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * cos(a),)

    return record(np.sin(a.data), SIN, (a,), backward)


COS = Op("Cos", inputs=("a",), rules=("-g·sin a",))


@public(method=True, builtin=True, numbers=True)
def cos(a: Any) -> Tensor:
    """The cosine of each element, in radians.

    >>> cos(tensor([0.0, pi]))
    tensor([ 1., -1.])
    """
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (-g * sin(a),)

    return record(np.cos(a.data), COS, (a,), backward)


TANH = Op("Tanh", inputs=("a",), rules=("g·(1 - tanh² a)",))


def _tanh_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * (1 - out * out),)


@public(method=True, builtin=True, numbers=True)
def tanh(a: Any) -> Tensor:
    """The hyperbolic tangent of each element, between -1 and 1.

    >>> tanh(tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """
    a = _floats(a)
    return record(np.tanh(a.data), TANH, (a,), _tanh_backward)


SIGMOID = Op("Sigmoid", inputs=("a",), rules=("g·σ(a)(1 - σ(a))",))


def _sigmoid_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * out * (1 - out),)


@public(method=True, builtin=True, numbers=True)
def sigmoid(a: Any) -> Tensor:
    """1 / (1 + exp(-x)) for each element: a number between 0 and 1.

    >>> sigmoid(tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """
    a = _floats(a)
    # 1 / (1 + e^-x) overflows for very negative x; this form never does.
    data = np.exp(-np.logaddexp(0.0, -np.asarray(a.data, dtype=float)))
    return record(data, SIGMOID, (a,), _sigmoid_backward)


RELU = Op("Relu", inputs=("a",), rules=("g where a > 0",))


@public(method=True, builtin=True, numbers=True)
def relu(a: Any) -> Tensor:
    """Each element where it is positive, and 0 where it is not.

    >>> relu(tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        # passes g where the unit was on, a clean 0 elsewhere (the mask straight from NumPy: `a > 0`
        # would go through the engine's comparison, for the same array)
        return (where(Tensor(a.data > 0), g, 0.0),)

    return record(np.maximum(a.data, 0), RELU, (a,), backward)


ABS = Op("Abs", inputs=("a",), rules=("g·sign a",))


@public(method=True)
def abs_(a: Any) -> Tensor:
    """The absolute value of each element.

    >>> tensor([-1.5, 2.0]).abs()
    tensor([1.5000, 2.0000])
    """
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * sign(a),)

    return record(np.abs(a.data), ABS, (a,), backward)


MAXIMUM = Op("Maximum", inputs=("a", "b"), rules=("g where a > b", "g where b > a"))


@public(builtin=True)
def maximum(a: Any, b: Any) -> Tensor:
    """The larger of a and b, element by element (their shapes broadcast).

    >>> maximum(tensor([1.0, 5.0]), 3.0)
    tensor([3., 5.])
    """
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        share = _winner_share(a, b)  # 1 where a wins, 0.5 on a tie, 0 where b wins
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)

    return record(elementwise(np.maximum, "maximum", a, b), MAXIMUM, (a, b), backward)


MINIMUM = Op("Minimum", inputs=("a", "b"), rules=("g where a < b", "g where b < a"))


@public(builtin=True)
def minimum(a: Any, b: Any) -> Tensor:
    """The smaller of a and b, element by element (their shapes broadcast).

    >>> minimum(tensor([1.0, 5.0]), 3.0)
    tensor([1., 3.])
    """
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        share = _winner_share(b, a)  # 1 where a is the smaller, 0.5 on a tie
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)

    return record(elementwise(np.minimum, "minimum", a, b), MINIMUM, (a, b), backward)


def _winner_share(a: Tensor, b: Tensor) -> Tensor:
    return Tensor((np.greater(a.data, b.data) + 0.5 * np.equal(a.data, b.data)).astype(float))


WHERE = Op("Where", inputs=("a", "b"), rules=("g where cond", "g where not cond"))


@public(builtin=True)
def where(condition: Any, a: Any, b: Any) -> Tensor:
    """a where the condition is true and b elsewhere, element by element; only a and b get gradients.

    >>> x = tensor([-1.0, 2.0])
    >>> where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    cond = np.asarray(lift(condition).data, dtype=bool)
    a, b = lift(a), lift(b)
    try:
        if may_be_large(cond.size * a.size * b.size):  # only then can the result be too large
            limits.check_shape(np.broadcast_shapes(cond.shape, a.shape, b.shape), "the result of where()")
        data = np.where(cond, a.data, b.data)
    except ValueError:
        raise ShapeError(f"where: cannot broadcast shapes {cond.shape}, {a.shape} and {b.shape}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (
            where(cond, g, 0.0) if a.requires_grad else None,
            where(cond, 0.0, g) if b.requires_grad else None,
        )

    return record(data, WHERE, (a, b), backward)


# ---- piecewise-constant functions: results are constants ---------------------------------
@public()
def sign(a: Any) -> Tensor:
    return Tensor(np.sign(lift(a).data))


@public()
def floor(a: Any) -> Tensor:
    return Tensor(np.floor(lift(a).data))


@public()
def ceil(a: Any) -> Tensor:
    return Tensor(np.ceil(lift(a).data))
