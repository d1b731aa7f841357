"""Reductions over axes: sum, mean, max, min (differentiable) and argmax, argmin, any, all."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import allocation as limits
from .exceptions import TensorIndexError, TensorTypeError, TensorValueError
from .op import Op, public
from .shaping import broadcast_to
from .tensor import Axis, Tensor, lift, record, type_name


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced axes as non-negative ints; None means all of them."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple | list) else (axis,)
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, int):
            raise TensorTypeError(f"axis must be an int or a tuple of ints, not {type_name(a)}")
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise TensorIndexError(f"axis {a} is out of range for a tensor with {ndim} dimensions")
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise TensorValueError(f"axis {axis} names the same axis twice")
    return tuple(sorted(out)) if ndim else ()


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape with each reduced axis kept as 1 (what keepdims=True gives)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _empty_reduction(a: Tensor, axes: tuple[int, ...], keepdims: bool, what: str, itemsize: int = 8) -> None:
    """A reduction's result is never larger than its input, except over an empty axis:
    zeros(40000, 40000, 0).any(axis=2) is 40000 × 40000 values made from none. Such a result is
    checked against the memory budget before NumPy allocates it."""
    if a.size == 0:
        shape = _kept_shape(a.shape, axes) if keepdims else tuple(n for i, n in enumerate(a.shape) if i not in axes)
        limits.check_shape(shape, f"the result of {what}", itemsize=itemsize)


def _spread(g: Tensor, a: Tensor, axes: tuple[int, ...]) -> Tensor:
    """The gradient of a reduction of `a` over `axes`: g with the reduced axes put back, broadcast to a's shape."""
    if g.ndim:  # a 0-d g (everything reduced: loss.sum()) broadcasts as it is, without a reshape
        kept = _kept_shape(a.shape, axes)
        if g.shape != kept:  # nor does one of keepdims=True (logsumexp's)
            g = g.reshape(kept)
    return broadcast_to(g, a.shape)


SUM = Op("Sum", inputs=("a",), rules=("g, broadcast",))


@public(method=True)
def sum_(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The sum of all elements, or along axis (an int or a tuple of them); keepdims=True keeps reduced axes as length 1.

    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.sum(), x.sum(axis=0)
    (tensor(10.), tensor([4., 6.]))
    """
    a = lift(a)
    axes = normalize_axes(axis, a.ndim)
    _empty_reduction(a, axes, keepdims, "sum()")

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (_spread(g, a, axes),)

    return record(np.add.reduce(a.data, axis=axes, keepdims=keepdims), SUM, (a,), backward)


MEAN = Op(
    "Mean", inputs=("a",), rules=("g/n, broadcast",), terms=(("n", lambda inputs, out: inputs[0].size // out.size),)
)


@public(method=True)
def mean(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The mean of all elements, or along axis.

    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.mean(), x.mean(axis=1)
    (tensor(2.5000), tensor([1.5000, 3.5000]))
    """
    a = lift(a)
    axes = normalize_axes(axis, a.ndim)
    count = int(np.prod([a.shape[i] for i in axes]))
    if count == 0:
        raise TensorValueError(f"mean of an empty selection of a tensor of shape {a.shape}")

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (_spread(g / count, a, axes),)  # dividing g first divides one number per output, not per input

    return record(np.add.reduce(a.data, axis=axes, keepdims=keepdims) / count, MEAN, (a,), backward)


def _extreme(a: Any, axis: Axis, keepdims: bool, pick: Any, op: Op) -> Tensor:
    a = lift(a)
    axes = normalize_axes(axis, a.ndim)
    if a.size == 0:
        raise TensorValueError(f"{op.name.lower()}() of an empty tensor")
    kept = pick(a.data, axis=axes, keepdims=True)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        # The gradient goes to the elements that attained the extreme, shared equally on a tie.
        hits = np.equal(a.data, kept)
        share = Tensor(hits / np.sum(hits, axis=axes, keepdims=True))
        return (broadcast_to(g.reshape(_kept_shape(a.shape, axes)), a.shape) * share,)

    data = kept if keepdims else np.squeeze(kept, axis=axes)
    return record(data, op, (a,), backward)


MAX = Op("Max", inputs=("a",), rules=("g at the max",))
MIN = Op("Min", inputs=("a",), rules=("g at the min",))


@public(method=True)
def max_(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The largest element, or the largest along axis; a tie shares the gradient.

    >>> tensor([[1.0, 5.0], [3.0, 4.0]]).max(axis=0)
    tensor([3., 5.])
    """
    return _extreme(a, axis, keepdims, np.max, MAX)


@public(method=True)
def min_(a: Any, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """The smallest element, or the smallest along axis; a tie shares the gradient.

    >>> tensor([[1.0, 5.0], [3.0, 4.0]]).min(axis=1)
    tensor([1., 3.])
    """
    return _extreme(a, axis, keepdims, np.min, MIN)


@public(method=True, builtin=True)
def argmax(a: Any, axis: int | None = None) -> Tensor:
    """The position of the largest element (of the flattened tensor), or positions along axis; not differentiable.

    >>> argmax(tensor([3.0, 9.0, 1.0]))
    tensor(1)
    """
    a = lift(a)
    if a.size == 0:
        raise TensorValueError("argmax() of an empty tensor")
    return Tensor(np.argmax(a.data, axis=None if axis is None else normalize_axes(axis, a.ndim)[0]))


@public(method=True, builtin=True)
def argmin(a: Any, axis: int | None = None) -> Tensor:
    """The position of the smallest element (of the flattened tensor), or positions along axis; not differentiable.

    >>> argmin(tensor([3.0, 9.0, 1.0]))
    tensor(2)
    """
    a = lift(a)
    if a.size == 0:
        raise TensorValueError("argmin() of an empty tensor")
    return Tensor(np.argmin(a.data, axis=None if axis is None else normalize_axes(axis, a.ndim)[0]))


@public(method=True)
def any_(a: Any, axis: Axis = None) -> Tensor:
    """Whether any element is true (nonzero), overall or along axis: a bool tensor.

    >>> (tensor([1.0, -2.0]) < 0).any()
    tensor(True)
    """
    a = lift(a)
    axes = normalize_axes(axis, a.ndim)
    _empty_reduction(a, axes, False, "any()", itemsize=1)
    return Tensor(np.any(a.data, axis=axes))


@public(method=True)
def all_(a: Any, axis: Axis = None) -> Tensor:
    """Whether every element is true (nonzero), overall or along axis: a bool tensor.

    >>> (tensor([1.0, -2.0]) < 0).all()
    tensor(False)
    """
    a = lift(a)
    axes = normalize_axes(axis, a.ndim)
    _empty_reduction(a, axes, False, "all()", itemsize=1)
    return Tensor(np.all(a.data, axis=axes))
