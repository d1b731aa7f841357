"""Elementwise functions (exp, log, tanh, relu, ...) and where/maximum/minimum, with their rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import limits
from .arithmetic import elementwise
from .errors import ShapeError, TensorTypeError
from .tensor import Tensor, lift, record

# Rules that read only g and out (exp, sqrt, tanh, sigmoid) are written once, above their op,
# rather than as closures: a closure is a new function object for every recorded node.


def _floats(a: Any) -> Tensor:
    """Lift an operand and make it float: exp of an int tensor is a float tensor, as in NumPy."""
    a = lift(a)
    if a.dtype == "bool":
        raise TensorTypeError("this function needs numbers, not a bool tensor")
    return a


def _exp_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * out,)


def exp(a: Any) -> Tensor:
    a = _floats(a)
    return record(np.exp(a.data), "Exp", (a,), _exp_backward)


def log(a: Any) -> Tensor:
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g / a,)

    return record(np.log(a.data), "Log", (a,), backward)


def _sqrt_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g / (2 * out),)


def sqrt(a: Any) -> Tensor:
    a = _floats(a)
    return record(np.sqrt(a.data), "Sqrt", (a,), _sqrt_backward)


def sin(a: Any) -> Tensor:
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * cos(a),)

    return record(np.sin(a.data), "Sin", (a,), backward)


def cos(a: Any) -> Tensor:
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (-g * sin(a),)

    return record(np.cos(a.data), "Cos", (a,), backward)


def _tanh_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * (1 - out * out),)


def tanh(a: Any) -> Tensor:
    a = _floats(a)
    return record(np.tanh(a.data), "Tanh", (a,), _tanh_backward)


def _sigmoid_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (g * out * (1 - out),)


def sigmoid(a: Any) -> Tensor:
    a = _floats(a)
    # 1 / (1 + e^-x) overflows for very negative x; this form never does.
    data = np.exp(-np.logaddexp(0.0, -np.asarray(a.data, dtype=float)))
    return record(data, "Sigmoid", (a,), _sigmoid_backward)


def relu(a: Any) -> Tensor:
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (where(a > 0, g, 0.0),)  # passes g where the unit was on, a clean 0 elsewhere

    return record(np.maximum(a.data, 0), "Relu", (a,), backward)


def abs_(a: Any) -> Tensor:
    a = _floats(a)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g * sign(a),)

    return record(np.abs(a.data), "Abs", (a,), backward)


def maximum(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        share = _winner_share(a, b)  # 1 where a wins, 0.5 on a tie, 0 where b wins
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)

    return record(elementwise(np.maximum, "maximum", a, b), "Maximum", (a, b), backward)


def minimum(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        share = _winner_share(b, a)  # 1 where a is the smaller, 0.5 on a tie
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)

    return record(elementwise(np.minimum, "minimum", a, b), "Minimum", (a, b), backward)


def _winner_share(a: Tensor, b: Tensor) -> Tensor:
    return Tensor((np.greater(a.data, b.data) + 0.5 * np.equal(a.data, b.data)).astype(float))


def where(condition: Any, a: Any, b: Any) -> Tensor:
    """Elementwise choice: `a` where condition holds, else `b`. Only `a` and `b` get gradients."""
    cond = np.asarray(lift(condition).data, dtype=bool)
    a, b = lift(a), lift(b)
    try:
        if cond.size * a.size * b.size > limits.max_elements:  # only then can the result be too large
            limits.check_shape(np.broadcast_shapes(cond.shape, a.shape, b.shape), "the result of where()")
        data = np.where(cond, a.data, b.data)
    except ValueError:
        raise ShapeError(f"where: cannot broadcast shapes {cond.shape}, {a.shape} and {b.shape}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (
            where(cond, g, 0.0) if a.requires_grad else None,
            where(cond, 0.0, g) if b.requires_grad else None,
        )

    return record(data, "Where", (a, b), backward)


# ---- piecewise-constant functions: results are constants ---------------------------------
def sign(a: Any) -> Tensor:
    return Tensor(np.sign(lift(a).data))


def floor(a: Any) -> Tensor:
    return Tensor(np.floor(lift(a).data))


def ceil(a: Any) -> Tensor:
    return Tensor(np.ceil(lift(a).data))


for _name, _fn in {
    "exp": exp, "log": log, "sqrt": sqrt, "sin": sin, "cos": cos, "tanh": tanh,
    "sigmoid": sigmoid, "relu": relu, "abs": abs_, "sign": sign, "floor": floor, "ceil": ceil,
}.items():  # fmt: skip
    setattr(Tensor, _name, _fn)
Tensor.__abs__ = abs_
