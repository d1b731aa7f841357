"""Functions built from the primitives, so they need no derivative rules of their own."""

from __future__ import annotations

from typing import Any

import numpy as np

from .exceptions import TensorValueError
from .functions import exp, log
from .op import public
from .reductions import normalize_axes, sum_
from .tensor import Tensor, lift


@public(builtin=True)
def logsumexp(x: Any, axis: int = -1, keepdims: bool = False) -> Tensor:
    """log(sum(exp(x))) along one axis, computed so that exp never overflows.

    >>> logsumexp(tensor([0.0, 0.0]))
    tensor(0.6931)
    """
    x = lift(x)
    axis = one_axis(axis, x.ndim)
    if axis is not None and x.shape[axis] == 0:
        raise TensorValueError(f"softmax, log_softmax and logsumexp need values along axis {axis}; it is empty")
    # A constant (the result does not depend on it), 0 where the largest value is infinite, as in
    # PyTorch: a row of -inf (fully masked attention) gives -inf, not inf - inf = nan; one holding
    # inf gives inf, and its gradient is nan at the inf and 0 elsewhere.
    top = np.max(x.data, axis=axis, keepdims=True)
    shift = Tensor(np.where(np.isinf(top), 0.0, top))
    out = log(sum_(exp(x - shift), axis=axis, keepdims=True)) + shift
    return out if keepdims else out.reshape(np.squeeze(out.data, axis=axis).shape)


def one_axis(axis: Any, ndim: int) -> int | None:
    """A single valid axis (None for a 0-d tensor, which has no axes to reduce)."""
    if isinstance(axis, tuple | list):
        raise TensorValueError("softmax, log_softmax and logsumexp take one axis")
    axes = normalize_axes(axis, ndim)
    return axes[0] if axes else None


@public(method=True, builtin=True)
def log_softmax(x: Any, axis: int = -1) -> Tensor:
    """log(softmax(x)) along one axis, computed without overflow: log-probabilities.

    >>> log_softmax(tensor([0.0, 0.0]))
    tensor([-0.6931, -0.6931])
    """
    x = lift(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


@public(method=True, builtin=True)
def softmax(x: Any, axis: int = -1) -> Tensor:
    """exp(x) divided by its sum along one axis: positive values that add up to 1.

    >>> softmax(tensor([1.0, 1.0, 2.0]))
    tensor([0.2119, 0.2119, 0.5761])
    """
    return exp(log_softmax(x, axis=axis))
