"""Convolution over images (N, C, H, W) and sequences (N, C, L), as PyTorch defines it.

A convolution is two ops. `Im2col` cuts the input into its windows, one row per output position
and one column per input channel and kernel offset: (N·H'·W', C·kH·kW), a copy made once per
call. `Convolve` multiplies those rows by the weight, one matrix product per group, and adds the
bias. Their rules are ops too (a gradient of a gradient works):

    Im2col(a)              ← Col2im(g): each row added back where its window was read
    Convolve(windows, w)   ← windows: ConvTranspose(g, w), the matrix product g · w
                             weight:  ConvWeight(windows, g), gᵀ · windows, summed over the rows

so the weight's gradient reuses the windows the forward cut, and the input's is one matrix
product followed by col2im. The geometry (stride, padding, dilation, groups, and whether the
kernel fits) is checked once per call, in `conv2d`, and handed to each op as a `Geometry`
(grids.py holds where windows are read).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from . import hooks, threads
from .exceptions import ShapeError, TensorValueError
from .grids import Grid, fold, kept, padded, reads, sizes, windows
from .op import Composed, Op

# ---- cutting windows into rows, and back ----------------------------------------------------
# A kernel of at most this many offsets is cut into windows offset by offset (Im2col's forward).
OFFSETS_ONE_BY_ONE = 64


class Im2col(Op):
    """Each window of the input a (N, C, spatial...) as a row: (N·out positions, C·kernel offsets)."""

    rules = ("g's rows added back where each window was read (col2im)",)
    note = "a convolution's first op: each window of the input as a row, cut once per call"
    function = "im2col"

    @staticmethod
    def forward(a: Any, at: Grid) -> Any:
        a = np.asarray(a)
        dims = a.ndim - 2
        rows, columns = a.shape[0] * math.prod(at.out), a.shape[1] * math.prod(at.kernel)
        hooks.allocating(rows * columns, "the windows of a convolution", shape=(rows, columns))
        xp = padded(a, at)
        # Rows by batch and position, columns by channel and kernel offset. (Products of this layout
        # round as the tensordot DG used before did, so results stay the same to the bit.)
        if math.prod(at.kernel) > OFFSETS_ONE_BY_ONE:  # one copy of the windows' view
            view = windows(xp, at)
            return view.transpose(0, *range(2, 2 + dims), 1, *range(2 + dims, 2 + 2 * dims)).reshape(rows, columns)
        # A small kernel: one copy per kernel offset, each of N·C·positions numbers. The view's one
        # copy runs its inner loop over a kernel's row, a few numbers at a time, and is slower.
        out = np.empty((a.shape[0], *at.out, a.shape[1], *at.kernel), dtype=xp.dtype)
        for offset, where in zip(itertools.product(*map(range, at.kernel)), reads(at), strict=True):
            out[(..., *offset)] = xp[(slice(None), slice(None), *where)].transpose(0, *range(2, 2 + dims), 1)
        return out.reshape(rows, columns)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, at: Grid) -> tuple[Any]:
        return (g.col2im(at),)


class Col2im(Op):
    """Rows of windows (Im2col's layout) added back onto a grid of zeros of at.shape where each
    window was read: the gradient of Im2col."""

    inputs = ("cols",)
    rules = ("g's windows, as rows (im2col)",)
    note = "the gradient of Im2col"
    function = "col2im"

    @staticmethod
    def forward(cols: Any, at: Grid) -> Any:
        n, c, dims = at.shape[0], at.shape[1], len(at.kernel)
        blocks = np.reshape(cols, (n, *at.out, c, *at.kernel))  # as (N, C, out..., kernel...), a view
        return fold(blocks.transpose(0, 1 + dims, *range(1, 1 + dims), *range(2 + dims, 2 + 2 * dims)), at)

    @staticmethod
    def backward(g: Any, out: Any, cols: Any, at: Grid) -> tuple[Any]:
        return (g.im2col(at),)


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


class Geometry(Grid):
    """A convolution's arguments, checked once per call: the spatial axes, stride, padding,
    dilation, groups, and the weight's shape (O, C/groups, kernel...)."""

    __slots__ = ("groups", "weight")

    def __init__(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride, padding, dilation, groups, name):
        dims = len(w_shape) - 2
        if len(x_shape) != dims + 2:
            raise ShapeError(
                f"{name}: the input has shape {x_shape}; it needs {dims + 2} dimensions, (N, C, "
                f"{'H, W' if dims == 2 else 'L'}), for a weight of shape {w_shape}",
                help=reshape_help(x_shape, w_shape[1], dims),
            )
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
            raise TensorValueError(f"{name}: groups must be a positive int, not {groups!r}")
        self.groups, self.weight = int(groups), tuple(w_shape)
        super().__init__(
            tuple(x_shape),
            tuple(w_shape[2:]),
            sizes(stride, dims, "stride", 1),
            sizes(padding, dims, "padding"),
            sizes(dilation, dims, "dilation", 1),
        )
        channels, out_channels = x_shape[1], w_shape[0]
        if channels != w_shape[1] * self.groups or out_channels % self.groups:
            raise ShapeError(
                f"{name}: an input of {channels} channels and a weight of shape {w_shape} with groups={groups}",
                help="the weight is (out channels, in channels / groups, kernel...): its second size times "
                f"groups must be the input's channels ({channels})",
            )
        if any(n < 1 for n in self.out):
            raise ShapeError(
                f"{name}: the kernel {self.kernel} does not fit the input {x_shape[2:]} with padding {self.padding}",
                help="use a smaller kernel, or more padding",
            )

    def parts(self) -> list[tuple[slice, slice]]:
        """Each group's columns of the windows (its channels' kernel offsets) and its output channels."""
        columns = self.weight[1] * math.prod(self.kernel)
        size = self.weight[0] // self.groups
        return [(slice(i * columns, (i + 1) * columns), slice(i * size, (i + 1) * size)) for i in range(self.groups)]


def by_group(product: Any, at: Geometry, axis: int) -> Any:
    """`product(columns, channels)` for each group's slices, joined along `axis` (one call for one group)."""
    if at.groups == 1:
        return product(slice(None), slice(None))
    return np.concatenate([product(c, o) for c, o in at.parts()], axis=axis)


def by_channel(g: Any, at: Geometry, first: bool) -> np.ndarray:
    """A gradient of the result (N, O, out...) as a matrix, one row per output channel (O, N·out)
    when `first`, else one column (N·out, O): a copy, as tensordot made it."""
    hooks.allocating(np.size(g), "a gradient laid out by channel")
    g, rest = np.asarray(g), tuple(range(2, len(at.shape)))  # (a transpose: np.moveaxis checks its axes at length)
    if first:
        return g.transpose(1, 0, *rest).reshape(at.weight[0], -1)
    return g.transpose(0, *rest, 1).reshape(-1, at.weight[0])


# ---- the product of the windows with the weight, and its two gradients ------------------------
class Convolve(Op):
    """The windows (Im2col's rows) times the weight (O, C/groups, kernel...), plus the bias:
    the convolution's result (N, O, out...)."""

    inputs = ("windows", "weight", "bias")
    rules = ("g · weight", "gᵀ · windows", "g summed over batch and positions")
    note = (
        "the second: the windows times the weight, one matrix product per group; the first rule is ConvTranspose, the"
        " second ConvWeight, which reuses the forward's windows"
    )
    function = "convolve"

    @staticmethod
    def forward(windows: Any, weight: Any, bias: Any, at: Geometry) -> Any:
        n, o, dims = at.shape[0], at.weight[0], len(at.out)
        hooks.allocating(n * o * math.prod(at.out), "the result of a convolution", shape=(n, o, *at.out))
        w = np.reshape(weight, (o, -1))
        rows = by_group(lambda c, k: threads.matmul(windows[:, c], w[k].T), at, axis=1)  # (N·out, O)
        view = rows.reshape(n, *at.out, o).transpose(0, dims + 1, *range(1, dims + 1))
        out = np.empty((n, o, *at.out), dtype=np.result_type(rows, bias if bias is not None else rows))
        if bias is None:
            np.copyto(out, view)
        else:
            np.add(view, np.reshape(bias, (-1, *(1,) * dims)), out=out)  # transposed and biased in one pass
        return out

    @staticmethod
    def backward(g: Any, out: Any, windows: Any, weight: Any, bias: Any, at: Geometry) -> tuple[Any, ...]:
        gwin = g.conv_transpose(weight, at) if windows.requires_grad else None
        gw = windows.conv_weight(g, at) if weight.requires_grad else None
        if bias is None:  # (left out: the node has two inputs)
            return gwin, gw
        return gwin, gw, (g.sum(axis=(0, *range(2, g.ndim))) if bias.requires_grad else None)


class ConvTranspose(Op):
    """A gradient of a convolution's result (N, O, out...) times the weight: the gradient of the
    windows, a row per window, which Col2im adds back onto the input (together, a transposed
    convolution)."""

    inputs = ("grad", "weight")
    rules = ("g's windows times weight (convolve)", "gradᵀ · g")
    note = "the gradient of a convolution's windows"
    function = "conv_transpose"

    @staticmethod
    def forward(grad: Any, weight: Any, at: Geometry) -> Any:
        rows = by_channel(grad, at, first=False)
        hooks.allocating(rows.shape[0] * math.prod(at.weight[1:]) * at.groups, "the windows' gradient")
        w = np.reshape(weight, (at.weight[0], -1))
        return by_group(lambda c, k: threads.matmul(rows[:, k], w[k]), at, axis=1)

    @staticmethod
    def backward(g: Any, out: Any, grad: Any, weight: Any, at: Geometry) -> tuple[Any, Any]:
        ggrad = g.convolve(weight, None, at) if grad.requires_grad else None
        gw = g.conv_weight(grad, at) if weight.requires_grad else None
        return ggrad, gw


class ConvWeight(Op):
    """The gradient of a convolution's weight: each window (a row of Im2col's) times the g of the
    output it made, summed over the batch and the positions."""

    inputs = ("windows", "grad")
    rules = ("grad · g", "windows times g (convolve)")
    note = "the gradient of a convolution's weight"
    function = "conv_weight"

    @staticmethod
    def forward(windows: Any, grad: Any, at: Geometry) -> Any:
        hooks.allocating(math.prod(at.weight), "a convolution's weight gradient", shape=at.weight)
        rows = by_channel(grad, at, first=True)
        return by_group(lambda c, k: threads.matmul(rows[k], windows[:, c]), at, axis=0).reshape(at.weight)

    @staticmethod
    def backward(g: Any, out: Any, windows: Any, grad: Any, at: Geometry) -> tuple[Any, Any]:
        gwin = grad.conv_transpose(g, at) if windows.requires_grad else None
        ggrad = windows.convolve(g, None, at) if grad.requires_grad else None
        return gwin, ggrad


# ---- what programs call ----------------------------------------------------------------------
def convolution(x: Any, weight: Any, bias: Any, stride, padding, dilation, groups, dims: int, name: str) -> Any:
    """conv1d and conv2d, on tensors: the arguments checked once, the windows cut once (their
    rows are what the weight's gradient multiplies g with), then one product per group."""
    if weight.ndim != dims + 2:
        raise ShapeError(f"{name}: the weight has shape {weight.shape}; it needs {dims + 2} dimensions")
    at = kept(Geometry, x.shape, weight.shape, stride, padding, dilation, groups, name)
    if bias is not None and bias.shape != (weight.shape[0],):
        raise ShapeError(f"{name}: the bias has shape {bias.shape}; it needs one value per output channel")
    return x.im2col(at).convolve(weight, bias, at)


class Conv2d(Composed):
    """The 2-d convolution of images (N, C, H, W) with a weight (O, C/groups, kH, kW), as PyTorch's conv2d.

    bias, if given, is one value per output channel (O,). stride, padding (zeros) and dilation
    are an int or one per axis. The result is (N, O, H', W'), each value the sum over its window
    of input times weight (no kernel flip).

    >>> conv2d(ones(1, 1, 3, 3), ones(1, 1, 2, 2)).shape
    (1, 1, 2, 2)
    """

    inputs = ("a", "weight", "bias")
    made_of = (Im2col, Convolve)
    builtin = True
    # images (1, 1, 3, 3), two output channels of 2×2 weights, their bias
    sample = (np.arange(1.0, 10.0).reshape(1, 1, 3, 3) / 4, np.arange(1.0, 9.0).reshape(2, 1, 2, 2) / 8, np.ones(2))

    @staticmethod
    def forward(
        a: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1
    ) -> Any:
        return convolution(a, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


class Conv1d(Conv2d):
    """The 1-d convolution of sequences (N, C, L) with a weight (O, C/groups, k), as PyTorch's conv1d.

    bias, if given, is one value per output channel (O,); stride, padding and dilation as conv2d's.

    >>> conv1d(ones(1, 1, 5), ones(1, 1, 3)).shape
    (1, 1, 3)
    """

    sample = (np.arange(1.0, 6.0).reshape(1, 1, 5) / 4, np.arange(1.0, 5.0).reshape(2, 1, 2) / 4, np.ones(2))

    @staticmethod
    def forward(
        a: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1
    ) -> Any:
        return convolution(a, weight, bias, stride, padding, dilation, groups, 1, "conv1d")
