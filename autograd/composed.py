"""Functions built from the ops, so they need no derivative rules of their own: each op they use
is recorded with its rule. Their `forward` receives tensors and computes with their methods.
(softmax and log_softmax were too; each is an op of its own now, in probabilities.py, with one rule.)"""

from __future__ import annotations

from typing import Any

import numpy as np

from .exceptions import TensorValueError
from .op import Composed
from .reductions import normalize_axes


def one_axis(axis: Any, ndim: int) -> int | None:
    """A single valid axis (None for a 0-d tensor, which has no axes to reduce)."""
    if isinstance(axis, tuple | list):
        raise TensorValueError("softmax, log_softmax and logsumexp take one axis")
    axes = normalize_axes(axis, ndim)
    return axes[0] if axes else None


class LogSumExp(Composed):
    """log(sum(exp(x))) along one axis, computed so that exp never overflows.

    >>> logsumexp(tensor([0.0, 0.0]))
    tensor(0.6931)
    """

    builtin = True

    @staticmethod
    def forward(x: Any, axis: int = -1, keepdims: bool = False) -> Any:
        axis = one_axis(axis, x.ndim)
        if axis is not None and x.shape[axis] == 0:
            raise TensorValueError(f"softmax, log_softmax and logsumexp need values along axis {axis}; it is empty")
        # Shifting by the largest value keeps exp from overflowing; the result does not depend on
        # the shift, so it is a constant (computed from x detached: no gradient). Where the largest
        # is inf or -inf (a row masked out entirely), the shift is 0, as in PyTorch:
        # logsumexp([-inf, -inf]) is -inf and logsumexp([inf, 0]) is inf, where inf - inf would
        # give nan. (Tensor ops, not NumPy on x.data, so that a tracer sees how the shift is made.)
        largest = x.detach().max(axis=axis, keepdims=True)
        shift = largest.where(largest.abs() < np.inf, 0.0)
        out = (x - shift).exp().sum(axis=axis, keepdims=True).log() + shift
        return out if keepdims else out.reshape(np.squeeze(out.data, axis=axis).shape)


class Flatten(Composed):
    """The same values along one axis.

    >>> ones(2, 3).flatten().shape
    (6,)
    """

    method = True

    @staticmethod
    def forward(x: Any) -> Any:
        return x.reshape(-1)


class Squeeze(Composed):
    """The same values without the axes of length 1 (all of them, or the one `axis` names).

    >>> ones(2, 1, 3).squeeze().shape
    (2, 3)
    """

    method = builtin = True

    @staticmethod
    def forward(x: Any, axis: Any = None) -> Any:
        if axis is None:
            return x.reshape(tuple(n for n in x.shape if n != 1))
        axes = normalize_axes(axis, x.ndim)
        return x.reshape(tuple(n for i, n in enumerate(x.shape) if i not in axes or n != 1))  # as PyTorch:
        # an axis named that is not of length 1 stays


class Unsqueeze(Composed):
    """The same values with a new axis of length 1 at position `axis` (-1: last).

    >>> ones(2, 3).unsqueeze(1).shape
    (2, 1, 3)
    """

    method = builtin = True

    @staticmethod
    def forward(x: Any, axis: int) -> Any:
        (where,) = normalize_axes(axis, x.ndim + 1)
        return x.reshape((*x.shape[:where], 1, *x.shape[where:]))


class Permute(Composed):
    """The axes in the order given, as PyTorch's permute: x.permute(2, 0, 1).

    >>> ones(2, 3, 4).permute(2, 0, 1).shape
    (4, 2, 3)
    """

    method = builtin = True

    @staticmethod
    def forward(x: Any, *axes: Any) -> Any:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if len(axes) != x.ndim:
            raise TensorValueError(
                f"permute: {len(axes)} axes for a tensor of {x.ndim} dimensions", help="name each axis once"
            )
        return x.transpose(*axes)
