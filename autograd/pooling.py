"""Pooling over images (N, C, H, W) and padding, as PyTorch defines them.

A pooling reads the input through the same windows as a convolution (convolution.py), with its
arguments checked once per call into a `Window`. Max pooling is two ops: `WindowLargest` finds
where each window's largest element is (a position in the flattened input, kept with the
result), and `Take` reads the values there; Take's rule sends g back to those same positions
(`Put`), so backward never searches the windows again. Average pooling is `WindowMean`, whose
rule spreads g evenly over each window (`WindowSpread`). Windows side by side (a stride equal to
the kernel, the default) are read and written by reshaping, without a loop over offsets.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .convolution import Grid, fold, padded, reshape_help, sizes, windows
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .op import Composed, Op


class Window(Grid):
    """A pooling's arguments, checked once: kernel, stride (the kernel's size when not given), padding."""

    __slots__ = ()

    def __init__(self, shape: tuple[int, ...], kernel_size: Any, stride: Any, padding: Any, name: str) -> None:
        if len(shape) != 4:
            raise ShapeError(
                f"{name}: the input has shape {shape}; it needs 4 dimensions, (N, C, H, W)",
                help=reshape_help(shape, None, 2),
            )
        kernel = sizes(kernel_size, 2, "kernel_size", 1)
        stride = kernel if stride is None else sizes(stride, 2, "stride", 1)
        super().__init__(tuple(shape), kernel, stride, sizes(padding, 2, "padding"), (1, 1))
        if any(2 * p > k for p, k in zip(self.padding, self.kernel, strict=True)):
            raise TensorValueError(
                f"{name}: padding {self.padding} is more than half the kernel {self.kernel}",
                help="PyTorch allows at most kernel_size // 2 of padding",
            )
        if any(n < 1 for n in self.out):
            raise ShapeError(f"{name}: the kernel {self.kernel} does not fit the input {shape[2:]}")

    def result(self, what: str) -> None:
        """Ask the hooks about a result of one value per window."""
        shape = (*self.shape[:2], *self.out)
        hooks.allocating(math.prod(shape), what, shape=shape)

    def blocks(self, x: np.ndarray) -> np.ndarray:
        """Windows side by side (`tiles`) as (N, C, H', W', kH·kW): a reshape and one copy."""
        (n, c), (ho, wo), (kh, kw) = x.shape[:2], self.out, self.kernel
        x = x[:, :, : ho * kh, : wo * kw].reshape(n, c, ho, kh, wo, kw)
        return x.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, ho, wo, kh * kw)


def numbers(a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "b":
        raise TensorTypeError("pooling needs numbers, not a bool tensor")
    return a


# ---- max pooling: where each window's largest is, and the values there ------------------------
class WindowLargest(Op):
    """Where each window's largest element is, as a position in the flattened input: (N, C, H', W')
    ints (the first largest, on a tie; a window of nothing but padding: the nearest element)."""

    function = "window_largest"

    @staticmethod
    def forward(a: Any, at: Window) -> Any:
        a = numbers(a)
        at.result("the result of max_pool2d")
        (n, c, height, width), (ho, wo), (kh, kw) = a.shape, at.out, at.kernel
        if at.tiles:
            rows, columns = np.divmod(at.blocks(a).argmax(axis=-1), kw)  # within each window
            rows += np.arange(ho)[:, None] * kh
            columns += np.arange(wo) * kw
        else:
            cols = windows(padded(a, at.padding, -np.inf), at)  # (N, C, H', W', kH, kW): a view
            rows, columns = np.divmod(cols.reshape(n, c, ho, wo, kh * kw).argmax(axis=-1), kw)
            (sh, sw), (ph, pw) = at.stride, at.padding
            rows = np.clip(np.arange(ho)[:, None] * sh + rows - ph, 0, height - 1)  # (a window of only
            columns = np.clip(np.arange(wo) * sw + columns - pw, 0, width - 1)  # padding and -inf: its edge)
        return (np.arange(n * c).reshape(n, c, 1, 1) * height + rows) * width + columns


class Take(Op):
    """The values of a at `positions`, places in the flattened a: a result of the positions' shape."""

    rules = ("g put back at the positions",)
    note = "max pooling takes each window's largest, found once (the first on a tie, as PyTorch) and kept for the rule"
    function = "take"

    @staticmethod
    def forward(a: Any, positions: Any) -> Any:
        hooks.allocating(np.size(positions), "the values taken", shape=np.shape(positions))
        return np.take(a, positions)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, positions: Any) -> tuple[Any]:
        return (g.put(positions, a.shape),)


class Put(Op):
    """Zeros of `shape` with each of `values` added at its place among `positions` (places in the
    flattened result; a place named twice gets both): the gradient of Take."""

    inputs = ("values",)
    rules = ("g at the positions",)
    note = "the gradient of Take"
    function = "put"

    @staticmethod
    def forward(values: Any, positions: Any, shape: tuple[int, ...]) -> Any:
        hooks.allocating(math.prod(shape), "a gradient", shape=tuple(shape))
        # bincount adds in order, into zeros: what np.add.at does, in one pass
        added = np.bincount(np.ravel(positions), weights=np.ravel(values), minlength=math.prod(shape))
        return added.reshape(shape)

    @staticmethod
    def backward(g: Any, out: Any, values: Any, positions: Any, shape: tuple[int, ...]) -> tuple[Any]:
        return (g.take(positions),)


class MaxPool2d(Composed):
    """The largest value of each kernel_size window of images x (N, C, H, W), as PyTorch's max_pool2d.

    stride defaults to kernel_size (windows side by side); padding (at most half the kernel) is
    -inf, so it never wins. Each window's g goes to the one element it took (the first, on a tie).

    >>> max_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """

    inputs = ("a",)
    made_of = (Take,)
    function = "max_pool2d"
    builtin = True

    @staticmethod
    def forward(a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> Any:
        at = Window(a.shape, kernel_size, stride, padding, "max_pool2d")
        return a.take(a.window_largest(at))


# ---- average pooling: each window's mean, and g spread evenly back ----------------------------
class WindowMean(Op):
    """The mean of each window of a (N, C, H, W): (N, C, H', W'); padding is zeros, counted in it."""

    rules = ("g/(kH·kW) to each element of its window",)
    function = "window_mean"

    @staticmethod
    def forward(a: Any, at: Window) -> Any:
        a = numbers(a)
        at.result("the result of avg_pool2d")
        if at.tiles:
            return at.blocks(a).mean(axis=-1)
        return np.mean(windows(padded(a, at.padding, 0.0), at), axis=(-2, -1))

    @staticmethod
    def backward(g: Any, out: Any, a: Any, at: Window) -> tuple[Any]:
        return (g.window_spread(at),)


class WindowSpread(Op):
    """g (N, C, H', W') divided evenly among the elements of each window: (N, C, H, W), the
    gradient of WindowMean (an element in several windows gets a share of each)."""

    inputs = ("grad",)
    rules = ("the mean of g's windows",)
    note = "the gradient of WindowMean"
    function = "window_spread"

    @staticmethod
    def forward(grad: Any, at: Window) -> Any:
        share = np.multiply(grad, 1.0 / math.prod(at.kernel))[..., None, None]
        return fold(np.broadcast_to(share, (*np.shape(grad), *at.kernel)), at)

    @staticmethod
    def backward(g: Any, out: Any, grad: Any, at: Window) -> tuple[Any]:
        return (g.window_mean(at),)


class AvgPool2d(Composed):
    """The mean of each kernel_size window of images x (N, C, H, W), as PyTorch's avg_pool2d.

    stride defaults to kernel_size; padding is zeros, counted in the mean (PyTorch's default).

    >>> avg_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """

    inputs = ("a",)
    made_of = (WindowMean,)
    function = "avg_pool2d"
    builtin = True

    @staticmethod
    def forward(a: Any, kernel_size: Any, stride: Any = None, padding: Any = 0) -> Any:
        return a.window_mean(Window(a.shape, kernel_size, stride, padding, "avg_pool2d"))


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
