"""Reductions over axes: sum, mean, max, min (differentiable) and argmax, argmin, any, all."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .exceptions import TensorIndexError, TensorTypeError, TensorValueError, argument_name
from .op import Op, value_shape

Axis = int | tuple[int, ...] | None  # the axes a reduction reduces: None means all of them


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced axes as non-negative ints; None means all of them."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the commonest: one valid axis
        return (axis % ndim,)
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, int):
            name = argument_name(a)
            help = "give its number: axis=n.item()" if name == "tensor" else None  # (a trace guards .item())
            raise TensorTypeError(f"axis must be an int or a tuple of ints, not {name}", help=help)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise TensorIndexError(f"axis {a} is out of range for a tensor with {ndim} dimensions")
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise TensorValueError(f"axis {axis} names the same axis twice")
    return tuple(sorted(out)) if ndim else ()


def axes_of(a: Any, axis: Any) -> tuple[int, ...]:
    """The axes of the value `a` that `axis` names (None: all of them)."""
    return normalize_axes(axis, len(value_shape(a)))


def reduced(a: Any, axes: tuple[int, ...], what: str, itemsize: int = 8) -> tuple[int, ...]:
    """`axes`, once the result of reducing `a` over them has been shown to the hooks: a result is
    never larger than its input unless the input is empty (zeros(n, n, 0).sum(axis=2) is n × n)."""
    if type(a) is np.ndarray and a.ndim > 1 and (a.size >= hooks.watch or a.size == 0):
        kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
        hooks.allocating(math.prod(kept), f"the result of {what}", itemsize, kept, "check the axes and the shape")
    return axes


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape with each reduced axis kept as 1 (what keepdims=True gives)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def spread(g: Any, shape: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    """The gradient of a reduction over `axes` of a tensor of `shape`: g with the reduced axes put
    back, broadcast to that shape."""
    if g.ndim:  # a 0-d g (everything reduced: loss.sum()) broadcasts as it is, without a reshape
        kept = _kept_shape(shape, axes)
        if g.shape != kept:  # nor does one of keepdims=True (logsumexp's)
            g = g.reshape(kept)
    return g.broadcast_to(shape)


class Sum(Op):
    """The sum of all elements, or along axis (an int or a tuple of them); keepdims=True keeps reduced axes as length 1.

    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.sum(), x.sum(axis=0)
    (tensor(10.), tensor([4., 6.]))
    """

    rules = ("g, broadcast",)
    note = "repeated over the reduced axes"
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
        return np.add.reduce(a, axis=reduced(a, axes_of(a, axis), "sum()"), keepdims=keepdims)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: Axis = None, keepdims: bool = False) -> tuple[Any]:
        return (spread(g, a.shape, normalize_axes(axis, a.ndim)),)


class Mean(Op):
    """The mean of all elements, or along axis.

    >>> x = tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.mean(), x.mean(axis=1)
    (tensor(2.5000), tensor([1.5000, 3.5000]))
    """

    rules = ("g/n, broadcast",)
    note = "n: the number of elements averaged"
    terms = (("n", lambda inputs, out: inputs[0].size // out.size),)
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
        shape = value_shape(a)
        axes = normalize_axes(axis, len(shape))
        count = math.prod(shape[i] for i in axes) if len(axes) < len(shape) else math.prod(shape)
        if count == 0:
            raise TensorValueError(f"mean of an empty selection of a tensor of shape {np.shape(a)}")
        return np.add.reduce(a, axis=reduced(a, axes, "mean()"), keepdims=keepdims) / count

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: Axis = None, keepdims: bool = False) -> tuple[Any]:
        count = a.size // out.size if out.size else 1  # the elements each mean averaged
        return (
            spread(g / count, a.shape, normalize_axes(axis, a.ndim)),
        )  # dividing g first divides one number per output, not per input


class Prod(Op):
    """The product of all elements, or along axis.

    >>> tensor([[1.0, 2.0], [3.0, 4.0]]).prod(axis=1)
    tensor([ 2., 12.])
    """

    rules = ("g·(the product of the others)",)
    note = (
        "`g·out/a` without zeros; with a zero, running products (a second derivative through a zero element is not "
        "exact)"
    )
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
        return np.multiply.reduce(a, axis=reduced(a, axes_of(a, axis), "prod()"), keepdims=keepdims)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: Axis = None, keepdims: bool = False) -> tuple[Any]:
        axes = normalize_axes(axis, a.ndim)
        if np.all(a.data != 0):  # the product of the others is the product over this element
            return (spread(g * out, a.shape, axes) / a,)
        # A zero: the product of the others, by running products from either side (no division).
        # It is a constant here, so a second derivative through a zero element is not exact.
        return (spread(g, a.shape, axes) * others(np.asarray(a.data, dtype=float), axes),)


def others(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """For each element of a, the product of the other elements of its slice along `axes`."""
    kept = [i for i in range(a.ndim) if i not in axes]
    moved = np.transpose(a, (*kept, *axes))
    flat = moved.reshape(*moved.shape[: len(kept)], -1)
    ones = np.ones((*flat.shape[:-1], 1))
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    product = (before * after).reshape(moved.shape)
    return np.transpose(product, np.argsort((*kept, *axes)))


def _extreme(a: Any, axis: Axis, keepdims: bool, pick: Any, name: str) -> Any:
    if getattr(a, "size", 1) == 0:
        raise TensorValueError(f"{name}() of an empty tensor")
    axes = reduced(a, axes_of(a, axis), f"{name}()")
    kept = pick(a, axis=axes, keepdims=True)
    return kept if keepdims else np.squeeze(kept, axis=axes)


def _extreme_backward(g: Any, out: Any, a: Any, axis: Axis) -> tuple[Any]:
    # The gradient goes to the elements that attained the extreme, shared equally on a tie.
    axes = normalize_axes(axis, a.ndim)
    kept = _kept_shape(a.shape, axes)
    hits = np.equal(a.data, np.reshape(out.data, kept))
    share = hits / np.sum(hits, axis=axes, keepdims=True)
    return (g.reshape(kept).broadcast_to(a.shape) * share,)


class Max(Op):
    """The largest element, or the largest along axis; a tie shares the gradient.

    >>> tensor([[1.0, 5.0], [3.0, 4.0]]).max(axis=0)
    tensor([3., 5.])
    """

    rules = ("g at the max",)
    note = "a tie shares `g` equally"
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
        return _extreme(a, axis, keepdims, np.max, "max")

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: Axis = None, keepdims: bool = False) -> tuple[Any]:
        return _extreme_backward(g, out, a, axis)


class Min(Op):
    """The smallest element, or the smallest along axis; a tie shares the gradient.

    >>> tensor([[1.0, 5.0], [3.0, 4.0]]).min(axis=1)
    tensor([1., 3.])
    """

    rules = ("g at the min",)
    note = "a tie shares `g` equally"
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None, keepdims: bool = False) -> Any:
        return _extreme(a, axis, keepdims, np.min, "min")

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: Axis = None, keepdims: bool = False) -> tuple[Any]:
        return _extreme_backward(g, out, a, axis)


# ---- not differentiable: their results are constants -------------------------------------------
def _position(a: Any, axis: int | None, pick: Any, name: str) -> Any:
    if getattr(a, "size", 1) == 0:
        raise TensorValueError(f"{name}() of an empty tensor")
    if axis is None:
        return pick(a)
    axes = reduced(a, axes_of(a, axis)[:1], f"{name}()")
    return pick(a, axis=axes[0]) if axes else pick(a)  # (a 0-d tensor has no axis to pick along)


class ArgMax(Op):
    """The position of the largest element (of the flattened tensor), or positions along axis; not differentiable.

    >>> argmax(tensor([3.0, 9.0, 1.0]))
    tensor(1)
    """

    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int | None = None) -> Any:
        return _position(a, axis, np.argmax, "argmax")


class ArgMin(Op):
    """The position of the smallest element (of the flattened tensor), or positions along axis; not differentiable.

    >>> argmin(tensor([3.0, 9.0, 1.0]))
    tensor(2)
    """

    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int | None = None) -> Any:
        return _position(a, axis, np.argmin, "argmin")


class AnyTrue(Op):
    """Whether any element is true (nonzero), overall or along axis: a bool tensor.

    >>> (tensor([1.0, -2.0]) < 0).any()
    tensor(True)
    """

    function = "any"
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None) -> Any:
        return np.any(a, axis=reduced(a, axes_of(a, axis), "any()", itemsize=1))


class AllTrue(Op):
    """Whether every element is true (nonzero), overall or along axis: a bool tensor.

    >>> (tensor([1.0, -2.0]) < 0).all()
    tensor(False)
    """

    function = "all"
    method = True

    @staticmethod
    def forward(a: Any, axis: Axis = None) -> Any:
        return np.all(a, axis=reduced(a, axes_of(a, axis), "all()", itemsize=1))
