"""Convolution and pooling over images (N, C, H, W) and sequences (N, C, L), as PyTorch defines them.

Every op here reads its input through windows: NumPy's `sliding_window_view` gives, without
copying, a view of each kernel-sized window of the padded input, (N, C, out..., kernel...); a
convolution is then one `tensordot` of those windows with the weight, and a pooling one
reduction over the window's axes. No Python loop visits a pixel. The way back scatters each
window's gradient onto the input, one kernel offset at a time (kH·kW slice additions).

The three convolution ops close over each other, so each rule is made of ops with rules of
their own (a gradient of a gradient works): the gradient of a convolution with respect to its
input is a transposed convolution (ConvTranspose), with respect to its weight a correlation of
the input with g (ConvWeight); theirs are convolutions again.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import hooks
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .op import Op


# ---- windows ---------------------------------------------------------------------------------
def sizes(value: Any, dims: int, name: str, least: int = 0) -> tuple[int, ...]:
    """An op's `stride=2` or `padding=(1, 2)` as one int per spatial axis."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
    if len(items) != dims or any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) for n in items):
        raise TensorTypeError(f"{name} must be an int or {dims} ints, not {value!r}")
    if any(n < least for n in items):
        raise TensorValueError(f"{name} must be at least {least}, not {value!r}")
    return tuple(int(n) for n in items)


def padded(x: np.ndarray, padding: tuple[int, ...], fill: float = 0.0) -> np.ndarray:
    """x with `padding` values of `fill` before and after each spatial axis (x itself for none)."""
    if not any(padding):
        return x
    shape = (*x.shape[:2], *(n + 2 * p for n, p in zip(x.shape[2:], padding, strict=True)))
    hooks.allocating(math.prod(shape), "the padded input", shape=shape)
    out = np.full(shape, fill, dtype=np.result_type(x, float))
    out[inner(padding, x.shape)] = x
    return out


def inner(padding: tuple[int, ...], shape: tuple[int, ...]) -> tuple[slice, ...]:
    """The index of the unpadded input inside the padded one."""
    return (slice(None), slice(None), *(slice(p, p + n) for p, n in zip(padding, shape[2:], strict=True)))


def windows(xp: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...], dilation: tuple[int, ...]) -> Any:
    """A view (no copy) of each window of the padded input xp: (N, C, out..., kernel...)."""
    span = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True))
    if any(s > n for s, n in zip(span, xp.shape[2:], strict=True)):
        raise ShapeError(
            f"the kernel {kernel} (spanning {span}) is larger than the padded input {xp.shape[2:]}",
            help="use a smaller kernel, or more padding",
        )
    view = sliding_window_view(xp, span, axis=tuple(range(2, xp.ndim)))
    steps = (*(slice(None, None, s) for s in stride), *(slice(None, None, d) for d in dilation))
    return view[(slice(None), slice(None), *steps)]


def output_size(n: int, k: int, stride: int, padding: int, dilation: int) -> int:
    return (n + 2 * padding - (k - 1) * dilation - 1) // stride + 1


def spread(cols: np.ndarray, into: np.ndarray, stride: tuple[int, ...], dilation: tuple[int, ...]) -> None:
    """Add each window's values, cols (N, C, out..., kernel...), onto the padded grid `into` at the
    place the window was read from: one slice addition per kernel offset (the windows' inverse)."""
    dims = into.ndim - 2
    out, kernel = cols.shape[2 : 2 + dims], cols.shape[2 + dims :]
    for offset in itertools.product(*map(range, kernel)):
        where = tuple(
            slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(offset, dilation, stride, out, strict=True)
        )
        into[(slice(None), slice(None), *where)] += cols[(..., *offset)]


# ---- the shared checks -----------------------------------------------------------------------
def reshape_help(shape: tuple[int, ...], channels: int | None, dims: int) -> str:
    """How to give an input of `shape` the (N, C, spatial...) shape a convolution or pooling over
    `dims` axes reads, with `channels` channels (None: any). Rows of flat pixels, as digits() gives
    them (N, 64), are square images of one channel: x.reshape(-1, 1, 8, 8)."""
    c = channels or 1
    sizes, rest = ", ".join(map(str, shape)), ", ".join(map(str, shape[1:]))
    if len(shape) == dims + 1 and (channels is None or shape[0] == channels):
        return f"a single example: add the batch axis, x.reshape(1, {sizes})"
    if len(shape) == dims + 1 and c == 1:
        return f"a batch of one-channel examples: add the channel axis, x.reshape({shape[0]}, 1, {rest})"
    pixels = shape[-1] // c
    side = math.isqrt(pixels)
    if len(shape) == 2 == dims and shape[0] != shape[1] and side * side * c == shape[1]:
        image = f"an image of {c} channels, each {side}×{side}" if c != 1 else f"one {side}×{side} image"
        return f"each row of {shape[1]} numbers is {image}, flattened: x.reshape(-1, {c}, {side}, {side})"
    if len(shape) == dims and c == 1:
        return f"a single one-channel example: x.reshape(1, 1, {sizes})"
    return f"the input is N examples of C channels, each {'H × W' if dims == 2 else 'L long'}: reshape it to that"


class Geometry:
    """A convolution's arguments, checked once: the spatial axes, stride, padding, dilation, groups."""

    def __init__(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride, padding, dilation, groups, name):
        self.dims = dims = len(w_shape) - 2
        if len(x_shape) != dims + 2:
            raise ShapeError(
                f"{name}: the input has shape {x_shape}; it needs {dims + 2} dimensions, (N, C, "
                f"{'H, W' if dims == 2 else 'L'}), for a weight of shape {w_shape}",
                help=reshape_help(x_shape, w_shape[1], dims),
            )
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
            raise TensorValueError(f"{name}: groups must be a positive int, not {groups!r}")
        self.groups = int(groups)
        self.stride = sizes(stride, dims, "stride", 1)
        self.padding = sizes(padding, dims, "padding")
        self.dilation = sizes(dilation, dims, "dilation", 1)
        self.kernel = tuple(w_shape[2:])
        channels, out_channels = x_shape[1], w_shape[0]
        if channels != w_shape[1] * self.groups or out_channels % self.groups:
            raise ShapeError(
                f"{name}: an input of {channels} channels and a weight of shape {w_shape} with groups={groups}",
                help="the weight is (out channels, in channels / groups, kernel...): its second size times "
                f"groups must be the input's channels ({channels})",
            )
        self.out = tuple(
            output_size(n, k, s, p, d)
            for n, k, s, p, d in zip(x_shape[2:], self.kernel, self.stride, self.padding, self.dilation, strict=True)
        )
        if any(n < 1 for n in self.out):
            raise ShapeError(
                f"{name}: the kernel {self.kernel} does not fit the input {x_shape[2:]} with padding {self.padding}",
                help="use a smaller kernel, or more padding",
            )

    def parts(self, channels: int) -> list[slice]:
        """The channels of each group."""
        size = channels // self.groups
        return [slice(i * size, (i + 1) * size) for i in range(self.groups)]


def convolve(x: Any, weight: Any, bias: Any, stride, padding, dilation, groups, dims: int, name: str) -> Any:
    """The forward of conv1d and conv2d: each output is the sum over its window of input × weight."""
    x, weight = np.asarray(x), np.asarray(weight)
    if weight.ndim != dims + 2:
        raise ShapeError(f"{name}: the weight has shape {weight.shape}; it needs {dims + 2} dimensions")
    at = Geometry(x.shape, weight.shape, stride, padding, dilation, groups, name)
    cols = windows(padded(x, at.padding), at.kernel, at.stride, at.dilation)
    n, out_channels = x.shape[0], weight.shape[0]
    hooks.allocating(n * x.shape[1] * math.prod(at.out) * math.prod(at.kernel), f"the windows of {name}")
    hooks.allocating(n * out_channels * math.prod(at.out), f"the result of {name}")
    summed = (1, *range(2 + dims, 2 + 2 * dims)), (1, *range(2, 2 + dims))  # channels and kernel offsets
    parts = [
        np.tensordot(cols[:, c], weight[o], axes=summed)  # (N, out..., O/groups)
        for c, o in zip(at.parts(x.shape[1]), at.parts(out_channels), strict=True)
    ]
    out = np.moveaxis(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1), -1, 1)
    if bias is not None:
        if np.shape(bias) != (out_channels,):
            raise ShapeError(f"{name}: the bias has shape {np.shape(bias)}; it needs one value per output channel")
        out = out + np.reshape(bias, (-1, *(1,) * dims))
    return np.ascontiguousarray(out)


class Conv2d(Op):
    """The 2-d convolution of images (N, C, H, W) with a weight (O, C/groups, kH, kW), as PyTorch's conv2d.

    bias, if given, is one value per output channel (O,). stride, padding (zeros) and dilation
    are an int or one per axis. The result is (N, O, H', W'), each value the sum over its window
    of input times weight (no kernel flip).

    >>> conv2d(ones(1, 1, 3, 3), ones(1, 1, 2, 2)).shape
    (1, 1, 2, 2)
    """

    inputs = ("a", "weight", "bias")
    rules = ("g convolved back with weight", "a's windows · g", "g summed over batch and positions")
    builtin = True

    @staticmethod
    def forward(
        a: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1
    ) -> Any:
        return convolve(a, weight, bias, stride, padding, dilation, groups, 2, "conv2d")

    @staticmethod
    def backward(g, out, a, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> tuple[Any, ...]:
        geometry = (stride, padding, dilation, groups)
        ga = g.conv_transpose(weight, a.shape, *geometry) if a.requires_grad else None
        gw = a.conv_weight(g, weight.shape, *geometry) if weight.requires_grad else None
        if bias is None:  # (left out: the node has two inputs)
            return ga, gw
        return ga, gw, (g.sum(axis=(0, *range(2, g.ndim))) if bias.requires_grad else None)


class Conv1d(Conv2d):
    """The 1-d convolution of sequences (N, C, L) with a weight (O, C/groups, k), as PyTorch's conv1d.

    bias, if given, is one value per output channel (O,); stride, padding and dilation as conv2d's.

    >>> conv1d(ones(1, 1, 5), ones(1, 1, 3)).shape
    (1, 1, 3)
    """

    @staticmethod
    def forward(
        a: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1
    ) -> Any:
        return convolve(a, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


class ConvTranspose(Op):
    """The gradient of a convolution with respect to its input: each output's g spread back over
    the window it was computed from, weighted by the weight (a transposed convolution)."""

    inputs = ("grad", "weight")
    rules = ("g convolved with weight", "g's windows · grad")
    function = "conv_transpose"

    @staticmethod
    def forward(grad: Any, weight: Any, shape: tuple[int, ...], stride=1, padding=0, dilation=1, groups=1) -> Any:
        at = Geometry(shape, weight.shape, stride, padding, dilation, groups, "conv_transpose")
        grid = tuple(n + 2 * p for n, p in zip(shape[2:], at.padding, strict=True))
        hooks.allocating(math.prod(shape[:2]) * math.prod(grid), "a convolution's gradient", shape=(*shape[:2], *grid))
        into = np.zeros((*shape[:2], *grid), dtype=np.result_type(grad, weight, float))
        for c, o in zip(at.parts(shape[1]), at.parts(weight.shape[0]), strict=True):
            cols = np.tensordot(grad[:, o], weight[o], axes=([1], [0]))  # (N, out..., C/groups, kernel...)
            spread(np.moveaxis(cols, 1 + at.dims, 1), into[:, c], at.stride, at.dilation)
        return np.ascontiguousarray(into[inner(at.padding, shape)])

    @staticmethod
    def backward(g, out, grad, weight, shape, stride=1, padding=0, dilation=1, groups=1) -> tuple[Any, Any]:
        geometry = (stride, padding, dilation, groups)
        ggrad = g.convolve(weight, *geometry) if grad.requires_grad else None
        gw = g.conv_weight(grad, weight.shape, *geometry) if weight.requires_grad else None
        return ggrad, gw


class ConvWeight(Op):
    """The gradient of a convolution with respect to its weight: each input window times the g
    of the output it made, summed over the batch and the positions."""

    inputs = ("a", "grad")
    rules = ("grad convolved back with g", "a convolved with g")
    function = "conv_weight"

    @staticmethod
    def forward(a: Any, grad: Any, shape: tuple[int, ...], stride=1, padding=0, dilation=1, groups=1) -> Any:
        at = Geometry(a.shape, shape, stride, padding, dilation, groups, "conv_weight")
        hooks.allocating(
            a.shape[0] * a.shape[1] * math.prod(at.out) * math.prod(at.kernel), "the windows of conv_weight"
        )
        hooks.allocating(math.prod(shape), "a convolution's weight gradient", shape=tuple(shape))
        cols = windows(padded(a, at.padding), at.kernel, at.stride, at.dilation)
        summed = (0, *range(2, 2 + at.dims))  # batch and positions
        parts = [
            np.tensordot(grad[:, o], cols[:, c], axes=(summed, summed))  # (O/groups, C/groups, kernel...)
            for c, o in zip(at.parts(a.shape[1]), at.parts(shape[0]), strict=True)
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)

    @staticmethod
    def backward(g, out, a, grad, shape, stride=1, padding=0, dilation=1, groups=1) -> tuple[Any, Any]:
        geometry = (stride, padding, dilation, groups)
        ga = grad.conv_transpose(g, a.shape, *geometry) if a.requires_grad else None
        ggrad = a.convolve(g, *geometry) if grad.requires_grad else None
        return ga, ggrad


CONV = {3: Conv1d, 4: Conv2d}  # by the weight's number of dimensions (Tensor.convolve, which the rules use)
