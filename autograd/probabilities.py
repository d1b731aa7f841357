"""Scores into probabilities along one axis: softmax, and log_softmax, its logarithm computed
without overflow. One op each with one rule, as in PyTorch (built from exp, sum and log, softmax
would compute exp twice over every value, and log_softmax would record five ops and run five
rules back); logsumexp, built from those ops, is in composed.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from .composed import one_axis
from .exceptions import TensorValueError
from .functions import Exp, numbers
from .op import Op


def shifted_along(a: Any, axis: Any) -> tuple[Any, int | None]:
    """a minus its largest value along one axis (softmax's and log_softmax's first step), and the
    axis. The shift keeps exp from overflowing; it is the largest even when that is inf, as in
    PyTorch, so a row holding inf is nan throughout ([inf, 0] gives [nan, nan] for both, where
    a - logsumexp(a) would give [nan, -inf]), and so is a row of nothing but -inf."""
    a = numbers(a)
    along = one_axis(axis, np.ndim(a))
    if along is not None and np.shape(a)[along] == 0:
        raise TensorValueError(f"softmax, log_softmax and logsumexp need values along axis {along}; it is empty")
    return np.subtract(a, np.maximum.reduce(a, axis=along, keepdims=True)), along  # (np.max: the same, slower)


class Softmax(Op):
    """exp(a) divided by its sum along one axis: positive values that add up to 1.

    >>> softmax(tensor([1.0, 1.0, 2.0]))
    tensor([0.2119, 0.2119, 0.5761])
    """

    rules = ("out·(g - sum(g·out))",)
    note = "one op, as PyTorch's: exp(a - max) over its sum, and one rule (the sum along the axis)"
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int = -1) -> Any:
        shifted, along = shifted_along(a, axis)
        e = Exp.forward(shifted)
        return e / np.sum(e, axis=along, keepdims=True)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int = -1) -> tuple[Any]:
        return ((g - (g * out).sum(axis=axis, keepdims=True)) * out,)


class LogSoftmax(Op):
    """log(softmax(a)) along one axis, computed without overflow: log-probabilities.

    >>> log_softmax(tensor([0.0, 0.0]))
    tensor([-0.6931, -0.6931])
    """

    function = "log_softmax"
    rules = ("g - exp(out)·sum(g)",)
    note = "one op, as PyTorch's: (a - max) - log(sum(exp(a - max))), and one rule (the sum along the axis)"
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int = -1) -> Any:
        shifted, along = shifted_along(a, axis)
        return shifted - np.log(np.add.reduce(Exp.forward(shifted), axis=along, keepdims=True))

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int = -1) -> tuple[Any]:
        return (g - out.exp() * g.sum(axis=axis, keepdims=True),)
