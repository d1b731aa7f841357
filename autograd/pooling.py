"""Pooling over images (N, C, H, W), as PyTorch defines it, and unfold, their windows as columns.

A pooling reads the input through the same windows as a convolution (convolution.py), with its
arguments checked once per call into a `Window`. Max pooling is two ops: `WindowLargest` finds
where each window's largest element is (a position in the flattened input, kept with the
result), and `Take` reads the values there; Take's rule sends g back to those same positions
(`Put`), so backward never searches the windows again. Average pooling is `WindowMean`, whose
rule spreads g evenly over each window (`WindowSpread`). Windows side by side (a stride equal to
the kernel, the default) are read and written by reshaping, without a loop over offsets.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np

from . import hooks
from .convolution import OFFSETS_ONE_BY_ONE, Im2col, reshape_help
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .grids import Grid, fold, kept, padded, sizes, windows
from .op import Composed, Op


class Window(Grid):
    """A pooling's arguments, checked once: kernel, stride (the kernel's size when not given),
    padding, dilation; with ceil_mode, one more window along an axis where the last would start
    inside the input but end past it (reading `extra` places after its end). `divisor` is what
    an average divides each window's sum by: the kernel's size, or one per window (H', W')."""

    # the kernel's size, or the count of each window's places along each axis: a Window is kept
    # between calls (grids.kept), so it holds H' + W' counts, and makes the H'·W' divisors when asked
    __slots__ = ("counted",)

    def __init__(self, shape: tuple[int, ...], kernel_size: Any, stride: Any, padding: Any, name: str,
                 dilation: Any = 1, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Any = None) -> None:  # fmt: skip
        if len(shape) != 4:
            raise ShapeError(
                f"{name}: the input has shape {shape}; it needs 4 dimensions, (N, C, H, W)",
                help=reshape_help(shape, None, 2),
            )
        kernel = sizes(kernel_size, 2, "kernel_size", 1)
        stride = kernel if stride is None else sizes(stride, 2, "stride", 1)
        super().__init__(tuple(shape), kernel, stride, sizes(padding, 2, "padding"), sizes(dilation, 2, "dilation", 1))
        if any(2 * p > k for p, k in zip(self.padding, self.kernel, strict=True)):
            raise TensorValueError(
                f"{name}: padding {self.padding} is more than half the kernel {self.kernel}",
                help="PyTorch allows at most kernel_size // 2 of padding",
            )
        if ceil_mode:
            self.out = tuple(map(ceiled, shape[2:], kernel, stride, self.padding, self.dilation))
            self.extra = tuple(
                max(0, (o - 1) * s + d * (k - 1) + 1 - n - 2 * p)
                for o, s, d, k, n, p in zip(
                    self.out, stride, self.dilation, kernel, shape[2:], self.padding, strict=True
                )
            )
        if any(n < 1 for n in self.out):
            reach = tuple(d * (k - 1) + 1 for d, k in zip(self.dilation, kernel, strict=True))
            raise ShapeError(f"{name}: windows reaching {reach} do not fit the input {shape[2:]}")
        if divisor_override is not None:
            if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, np.integer)):
                raise TensorTypeError(f"{name}: divisor_override must be an int, not {divisor_override!r}")
            if divisor_override == 0:
                raise TensorValueError(f"{name}: divisor_override must not be 0")
            self.counted: Any = float(divisor_override)
        else:
            rows, columns = (
                counts(*along, count_include_pad)
                for along in zip(self.out, stride, kernel, shape[2:], self.padding, strict=True)
            )
            same = rows.min() == rows.max() == kernel[0] and columns.min() == columns.max() == kernel[1]
            self.counted = float(kernel[0] * kernel[1]) if same else (rows, columns)

    @property
    def divisor(self) -> Any:
        return self.counted if type(self.counted) is float else np.outer(*self.counted).astype(float)

    def result(self, what: str) -> None:
        """Ask the hooks about a result of one value per window."""
        shape = (*self.shape[:2], *self.out)
        hooks.allocating(math.prod(shape), what, shape=shape)

    def blocks(self, x: np.ndarray) -> np.ndarray:
        """Windows side by side (`tiles`) as (N, C, H', W', kH·kW): a reshape and one copy, or for
        many windows of a small kernel one copy per kernel offset (the one copy's inner loop runs
        over a kernel's row, two numbers for a 2×2 pool, and is much slower)."""
        (n, c), (ho, wo), (kh, kw) = x.shape[:2], self.out, self.kernel
        if n * c * ho * wo >= MANY_WINDOWS and kh * kw <= OFFSETS_ONE_BY_ONE:
            out = np.empty((n, c, ho, wo, kh * kw), dtype=x.dtype)
            for k, (i, j) in enumerate(itertools.product(range(kh), range(kw))):
                out[..., k] = x[:, :, i : ho * kh : kh, j : wo * kw : kw]
            return out
        x = x[:, :, : ho * kh, : wo * kw].reshape(n, c, ho, kh, wo, kw)
        return x.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, ho, wo, kh * kw)


MANY_WINDOWS = 1024  # (for fewer, the copies' own cost outweighs what they save)


def ceiled(n: int, k: int, s: int, p: int, d: int) -> int:
    """The number of windows along an axis with ceil_mode: the last partly past the end too, if it
    starts inside the input or its left padding (PyTorch's rule)."""
    out = -(-(n + 2 * p - d * (k - 1) - 1) // s) + 1
    return out - 1 if (out - 1) * s >= n + p else out


def counts(out: int, s: int, k: int, n: int, p: int, include_pad: bool) -> np.ndarray:
    """How many places each of an average's `out` windows along an axis counts: those inside the
    padded input (PyTorch's count_include_pad), or those inside the input alone."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    return end - start if include_pad else np.minimum(end, n) - np.maximum(start, 0)


def numbers(a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "b":
        raise TensorTypeError("pooling needs numbers, not a bool tensor")
    return a


SLICE = 1 << 24  # elements of overlapping windows one NumPy call goes through (a timeout stops a pooling between two)


def in_slices(cols: np.ndarray, fn: Any) -> np.ndarray:
    """fn(cols) for windows (N, C, H', W', kH, kW) that overlap (fn reduces their last two axes): a
    few output rows at a time, or a few windows of one row, when they are more than SLICE elements."""
    n, c, ho, wo, kh, kw = cols.shape
    each = n * c * kh * kw  # the elements of one output place's windows
    if each * ho * wo <= SLICE:
        return fn(cols)
    if each * wo <= SLICE:
        step = SLICE // (each * wo)
        return np.concatenate([fn(cols[:, :, i : i + step]) for i in range(0, ho, step)], axis=2)
    step = max(1, SLICE // each)
    row = [[fn(cols[:, :, i : i + 1, j : j + step]) for j in range(0, wo, step)] for i in range(ho)]
    return np.concatenate([np.concatenate(parts, axis=3) for parts in row], axis=2)


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
        if at.tiles:  # each window's corner, plus the place of its largest within it
            within = (np.arange(kh)[:, None] * width + np.arange(kw)).ravel()
            return corners(n, c, height, width, ho, wo, kh, kw) + within[at.blocks(a).argmax(axis=-1)]
        else:
            cols = windows(padded(a, at, -np.inf), at)  # (N, C, H', W', kH, kW): a view
            hooks.allocating(min(cols.size, SLICE), "the windows max_pool2d compares")  # (a copy of each slice)
            rows, columns = np.divmod(in_slices(cols, lambda w: w.reshape(*w.shape[:4], -1).argmax(axis=-1)), kw)
            (sh, sw), (ph, pw), (dh, dw) = at.stride, at.padding, at.dilation
            rows = np.clip(np.arange(ho)[:, None] * sh + rows * dh - ph, 0, height - 1)  # (a window of only
            columns = np.clip(np.arange(wo) * sw + columns * dw - pw, 0, width - 1)  # padding and -inf: its edge)
        return (np.arange(n * c).reshape(n, c, 1, 1) * height + rows) * width + columns


@functools.lru_cache(maxsize=8)
def _corners(n: int, c: int, height: int, width: int, ho: int, wo: int, kh: int, kw: int) -> np.ndarray:
    made = (np.arange(n * c).reshape(n, c, 1, 1) * height + np.arange(ho)[:, None] * kh) * width + np.arange(wo) * kw
    made.flags.writeable = False
    return made


def corners(n: int, c: int, height: int, width: int, ho: int, wo: int, kh: int, kw: int) -> np.ndarray:
    """The place of each window's first element in the flattened input, for windows side by side
    (a training loop pools one shape again and again: a small result is kept for the next call)."""
    if n * c * ho * wo <= KEPT_CORNERS:
        return _corners(n, c, height, width, ho, wo, kh, kw)
    return _corners.__wrapped__(n, c, height, width, ho, wo, kh, kw)


KEPT_CORNERS = 1 << 16  # (elements: at most 8 such arrays of 512 KiB stay between calls)


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
    -inf, so it never wins; dilation spaces a window's elements apart; ceil_mode adds a last
    window that runs past the end. Each window's g goes to the one element it took (the first, on
    a tie). With return_indices, also where each was, a place in its image of H·W: (values, indices).

    >>> max_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    >>> max_pool2d(arange(25.0).reshape(1, 1, 5, 5), 2, ceil_mode=True, return_indices=True)[1]
    tensor([[[[ 6,  8,  9],
              [16, 18, 19],
              [21, 23, 24]]]])
    """

    inputs = ("a",)
    made_of = (Take,)
    function = "max_pool2d"
    builtin = True

    @staticmethod
    def forward(
        a: Any,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: bool = False,
    ) -> Any:
        at = kept(Window, a.shape, kernel_size, stride, padding, "max_pool2d", dilation, ceil_mode)
        positions = a.window_largest(at)
        values = a.take(positions)
        return (values, positions % math.prod(a.shape[2:])) if return_indices else values


# ---- average pooling: each window's mean, and g spread evenly back ----------------------------
class WindowMean(Op):
    """The mean of each window of a (N, C, H, W): (N, C, H', W'), each window's sum over its
    divisor (Window's: the kernel's size, or what count_include_pad or divisor_override say)."""

    rules = ("g/divisor to each element of its window",)
    function = "window_mean"

    @staticmethod
    def forward(a: Any, at: Window) -> Any:
        a = numbers(a)
        at.result("the result of avg_pool2d")
        if at.tiles:
            return at.blocks(a).sum(axis=-1) / at.divisor
        return in_slices(windows(padded(a, at, 0.0), at), lambda w: np.sum(w, axis=(-2, -1))) / at.divisor

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
        share = np.divide(grad, at.divisor)[..., None, None]
        return fold(np.broadcast_to(share, (*np.shape(grad), *at.kernel)), at)

    @staticmethod
    def backward(g: Any, out: Any, grad: Any, at: Window) -> tuple[Any]:
        return (g.window_mean(at),)


class AvgPool2d(Composed):
    """The mean of each kernel_size window of images x (N, C, H, W), as PyTorch's avg_pool2d.

    stride defaults to kernel_size; padding is zeros, counted in the mean (PyTorch's default)
    unless count_include_pad=False; ceil_mode adds a last window that runs past the end (its places
    past the padding never counted); divisor_override divides every window's sum by that instead.

    >>> avg_pool2d(arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    >>> avg_pool2d(ones(1, 1, 3, 3), 3, stride=1, padding=1, count_include_pad=False)
    tensor([[[[1., 1., 1.],
              [1., 1., 1.],
              [1., 1., 1.]]]])
    """

    inputs = ("a",)
    made_of = (WindowMean,)
    function = "avg_pool2d"
    builtin = True

    @staticmethod
    def forward(
        a: Any,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ) -> Any:
        how = (1, ceil_mode, count_include_pad, divisor_override)  # (avg_pool2d has no dilation)
        return a.window_mean(kept(Window, a.shape, kernel_size, stride, padding, "avg_pool2d", *how))


# ---- the windows themselves, as columns --------------------------------------------------------
class UnfoldImages(Composed):
    """Each kernel_size window of images (N, C, H, W) as a column, as PyTorch's F.unfold (im2col).

    The result is (N, C·kH·kW, L): a column of the window's values, channel by channel, for each
    of the L windows, row by row. A convolution is this, times the weight as a matrix.

    >>> unfold(arange(9.0).reshape(1, 1, 3, 3), 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """

    inputs = ("a",)
    made_of = (Im2col,)
    function = "unfold"
    builtin = True  # (the method x.unfold is PyTorch's other unfold, windows along one axis: arranging.py)
    sample = (np.arange(1.0, 19.0).reshape(1, 2, 3, 3) / 4, 2)

    @staticmethod
    def forward(a: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
        if a.ndim != 4:
            raise ShapeError(f"unfold: the input has shape {a.shape}; it needs 4 dimensions, (N, C, H, W)",
                             help=reshape_help(a.shape, None, 2))  # fmt: skip
        how = (sizes(kernel_size, 2, "kernel_size", 1), sizes(stride, 2, "stride", 1), sizes(padding, 2, "padding"))
        at = Grid(a.shape, *how, sizes(dilation, 2, "dilation", 1))
        if any(n < 1 for n in at.out):
            reach = tuple(d * (k - 1) + 1 for d, k in zip(at.dilation, at.kernel, strict=True))
            raise ShapeError(
                f"unfold: windows reaching {reach} do not fit the input {a.shape[2:]} with padding {at.padding}",
                help="use a smaller kernel_size or dilation, or more padding",
            )
        shape = (a.shape[0], a.shape[1] * math.prod(at.kernel), math.prod(at.out))
        hooks.allocating(math.prod(shape), "the result of unfold()", shape=shape)
        return a.im2col(at).reshape(a.shape[0], math.prod(at.out), -1).transpose(0, 2, 1)
