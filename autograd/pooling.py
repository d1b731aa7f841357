"""Pooling over images (N, C, H, W) and padding, as PyTorch defines them.

A pooling reads the input through the same windows as a convolution (convolution.py): a view of
each kernel-sized window, (N, C, H', W', kH, kW), reduced over its last two axes. Their rules
send g back through ops that have rules of their own: max pooling's to the one element each
window took (an index_add, as indexing's rule does), average pooling's spread evenly over each
window (a transposed convolution with a kernel of 1/(kH·kW)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .convolution import output_size, padded, reshape_help, sizes, windows
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .op import Op


class Window:
    """A pooling's arguments, checked once: kernel, stride (the kernel's size when not given), padding."""

    def __init__(self, shape: tuple[int, ...], kernel_size: Any, stride: Any, padding: Any, name: str) -> None:
        if len(shape) != 4:
            raise ShapeError(
                f"{name}: the input has shape {shape}; it needs 4 dimensions, (N, C, H, W)",
                help=reshape_help(shape, None, 2),
            )
        self.kernel = sizes(kernel_size, 2, "kernel_size", 1)
        self.stride = self.kernel if stride is None else sizes(stride, 2, "stride", 1)
        self.padding = sizes(padding, 2, "padding")
        if any(2 * p > k for p, k in zip(self.padding, self.kernel, strict=True)):
            raise TensorValueError(
                f"{name}: padding {self.padding} is more than half the kernel {self.kernel}",
                help="PyTorch allows at most kernel_size // 2 of padding",
            )
        self.out = tuple(
            output_size(n, k, s, p, 1)
            for n, k, s, p in zip(shape[2:], self.kernel, self.stride, self.padding, strict=True)
        )
        if any(n < 1 for n in self.out):
            raise ShapeError(f"{name}: the kernel {self.kernel} does not fit the input {shape[2:]}")
        hooks.allocating(math.prod(shape[:2]) * math.prod(self.out), f"the result of {name}")

    def of(self, x: np.ndarray, fill: float) -> Any:
        """The windows of x padded with `fill`: (N, C, H', W', kH, kW)."""
        if x.dtype.kind == "b":
            raise TensorTypeError("pooling needs numbers, not a bool tensor")
        return windows(padded(x, self.padding, fill), self.kernel, self.stride, (1, 1))


class MaxPool2d(Op):
    """The largest value of each kernel_size window of images x (N, C, H, W), as PyTorch's max_pool2d.

    stride defaults to kernel_size (windows side by side); padding (at most half the kernel) is
    -inf, so it never wins. Each window's g goes to the one element it took (the first, on a tie).

    >>> max_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """

    rules = ("g to each window's largest",)
    function = "max_pool2d"
    builtin = True

    @staticmethod
    def forward(a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> Any:
        a = np.asarray(a)
        cols = Window(a.shape, kernel_size, stride, padding, "max_pool2d").of(a, -np.inf)
        # One np.maximum per kernel offset, over all the windows at once: NumPy's max over the two
        # strided window axes gives the same values many times more slowly on small images.
        out = cols[..., 0, 0].copy()
        for offset in np.ndindex(*cols.shape[-2:]):
            np.maximum(out, cols[(..., *offset)], out=out)
        return out

    @staticmethod
    def backward(g: Any, out: Any, a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> tuple[Any]:
        at = Window(a.shape, kernel_size, stride, padding, "max_pool2d")
        cols = at.of(a.data, -np.inf)
        taken = np.argmax(cols.reshape(*cols.shape[:4], -1), axis=-1)  # the first largest of each window
        di, dj = np.unravel_index(taken, at.kernel)
        (n, c, height, width), (sh, sw), (ph, pw) = a.shape, at.stride, at.padding
        rows = np.clip(np.arange(at.out[0])[:, None] * sh + di - ph, 0, height - 1)  # (a window of only
        columns = np.clip(np.arange(at.out[1]) * sw + dj - pw, 0, width - 1)  # padding and -inf: its edge)
        index = (np.arange(n).reshape(-1, 1, 1, 1), np.arange(c).reshape(1, -1, 1, 1), rows, columns)
        return (g.index_add(index, a.shape),)


class AvgPool2d(Op):
    """The mean of each kernel_size window of images x (N, C, H, W), as PyTorch's avg_pool2d.

    stride defaults to kernel_size; padding is zeros, counted in the mean (PyTorch's default).

    >>> avg_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """

    rules = ("g/(kH·kW) to each element of its window",)
    function = "avg_pool2d"
    builtin = True

    @staticmethod
    def forward(a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> Any:
        a = np.asarray(a)
        cols = Window(a.shape, kernel_size, stride, padding, "avg_pool2d").of(a, 0.0)
        return np.mean(cols, axis=(-2, -1))

    @staticmethod
    def backward(g: Any, out: Any, a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> tuple[Any]:
        at = Window(a.shape, kernel_size, stride, padding, "avg_pool2d")
        (n, c, height, width), (ho, wo) = a.shape, at.out
        even = np.full((1, 1, *at.kernel), 1.0 / math.prod(at.kernel))  # each window's share of g
        spread = g.reshape(n * c, 1, ho, wo).conv_transpose(even, (n * c, 1, height, width), at.stride, at.padding)
        return (spread.reshape(a.shape),)


class Pad(Op):
    """The tensor with `value` added around it, as PyTorch's pad.

    `pad` is (left, right) for the last axis, then (top, bottom) for the one before, and so on;
    the only mode is "constant".

    >>> pad(ones(1, 2), (1, 2))
    tensor([[0., 1., 1., 0., 0.]])
    """

    rules = ("g without the padding",)
    builtin = True

    @staticmethod
    def forward(a: Any, pad: Any, mode: str = "constant", value: float = 0.0) -> Any:
        widths = pad_widths(pad, np.ndim(a))
        if mode != "constant":
            raise TensorValueError(
                f'pad: mode "{mode}" is not one DG has', help='DG pads with a constant: mode="constant"'
            )
        shape = tuple(n + lo + hi for n, (lo, hi) in zip(np.shape(a), widths, strict=True))
        hooks.allocating(math.prod(shape), "the result of pad()", shape=shape)
        return np.pad(a, widths, constant_values=value)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, pad: Any, mode: str = "constant", value: float = 0.0) -> tuple[Any]:
        widths = pad_widths(pad, a.ndim)
        return (g[tuple(slice(lo, lo + n) for n, (lo, _) in zip(a.shape, widths, strict=True))],)


def pad_widths(pad: Any, ndim: int) -> list[tuple[int, int]]:
    """PyTorch's flat `pad`, last axis first, as NumPy's (before, after) for every axis."""
    if (
        not isinstance(pad, (tuple, list))
        or len(pad) % 2
        or any(isinstance(p, bool) or not isinstance(p, int) for p in pad)
    ):
        raise TensorTypeError(f"pad takes an even number of ints, (left, right, top, bottom, ...), not {pad!r}")
    if len(pad) // 2 > ndim:
        raise ShapeError(f"pad: {len(pad) // 2} pairs for a tensor of {ndim} dimensions")
    if any(p < 0 for p in pad):
        raise TensorValueError("pad: DG pads by non-negative amounts", help="to cut a tensor, index it: x[:, 1:-1]")
    pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)]
    return [(0, 0)] * (ndim - len(pairs)) + pairs[::-1]
