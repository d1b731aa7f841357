"""Making images larger, as a decoder does: the transposed convolution, and interpolation.

A transposed convolution (conv_transpose2d, conv_transpose1d) is the gradient of a convolution
with respect to its input, run forwards: each input value spreads the kernel, scaled by itself,
over a window of the result, the windows `stride` apart, and where they overlap their values add
up. So it is the ops a convolution's gradient already is (convolution.py): `ConvTranspose`, the
input's values times the weight, a row per window, then `Col2im`, each row added back where its
window lies. Their rules are a convolution's two (a gradient of a gradient works).

Interpolation (interpolate) picks, for each place of the result, the nearest place of the input
("nearest"), or the two places around it weighed by how near each is ("linear", "bilinear",
"trilinear": along each axis in turn): indexing, times constant weights, so its rule is indexing's.
Where PyTorch reads a place and a weight is written out in `nearest` and `linear` below, to the
rounding of its float32 steps.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .convolution import Col2im, ConvTranspose, Geometry, reshape_help
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .grids import Grid, sizes
from .op import Composed
from .shaping import Index


# ---- the transposed convolution ----------------------------------------------------------------
class Transposed(Geometry):
    """A transposed convolution's arguments, checked once, as the geometry of the convolution
    whose input gradient it is: the input x (N, Cin, spatial...) stands for that convolution's
    result, the weight (Cin, Cout/groups, kernel...) for its weight, and the result (N, Cout,
    out...) for its input, of out = (n - 1)·stride - 2·padding + dilation·(k - 1) + output_padding + 1."""

    __slots__ = ()

    def __init__(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: Any, padding: Any,
                 output_padding: Any, groups: Any, dilation: Any, name: str) -> None:  # fmt: skip
        dims = len(w_shape) - 2
        if len(x_shape) != dims + 2:
            raise ShapeError(
                f"{name}: the input has shape {x_shape}; it needs {dims + 2} dimensions, (N, C, "
                f"{'H, W' if dims == 2 else 'L'}), for a weight of shape {w_shape}",
                help=reshape_help(x_shape, w_shape[0], dims),
            )
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
            raise TensorValueError(f"{name}: groups must be a positive int, not {groups!r}")
        stride, padding = sizes(stride, dims, "stride", 1), sizes(padding, dims, "padding")
        extra, dilation = sizes(output_padding, dims, "output_padding"), sizes(dilation, dims, "dilation", 1)
        if any(o >= s and o >= d for o, s, d in zip(extra, stride, dilation, strict=True)):
            raise TensorValueError(
                f"{name}: output_padding {extra} must be smaller than the stride {stride} or the dilation {dilation}",
                help="it adds the places at the end that a stride's or a dilation's gap leaves out",
            )
        if x_shape[1] != w_shape[0] or w_shape[0] % groups:
            raise ShapeError(
                f"{name}: an input of {x_shape[1]} channels and a weight of shape {w_shape} with groups={groups}",
                help="the weight of a transposed convolution is (in channels, out channels / groups, kernel...): its "
                f"first size is the input's channels ({x_shape[1]}), a multiple of groups",
            )
        along = zip(x_shape[2:], stride, padding, dilation, w_shape[2:], extra, strict=True)
        size = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1 for n, s, p, d, k, o in along)
        if any(n < 1 for n in size):
            raise ShapeError(
                f"{name}: the result would have size {size} from an input of {x_shape[2:]}",
                help="use less padding, or a larger kernel or stride",
            )
        self.groups, self.weight = int(groups), tuple(w_shape)
        Grid.__init__(
            self, (x_shape[0], w_shape[1] * self.groups, *size), tuple(w_shape[2:]), stride, padding, dilation
        )
        self.out = tuple(x_shape[2:])  # a window for each input place (output_padding past the stride adds none)


def transposed(x: Any, weight: Any, bias: Any, how: tuple[Any, ...], dims: int, name: str) -> Any:
    """conv_transpose1d and conv_transpose2d, on tensors: the arguments checked once, then the
    input's values times the weight, a row per window, added back where each window lies."""
    if weight.ndim != dims + 2:
        raise ShapeError(f"{name}: the weight has shape {weight.shape}; it needs {dims + 2} dimensions")
    at = Transposed(x.shape, weight.shape, *how, name)
    channels = at.shape[1]
    hooks.allocating(math.prod(at.shape), f"the result of {name}()", shape=at.shape)
    if bias is not None and bias.shape != (channels,):
        raise ShapeError(f"{name}: the bias has shape {bias.shape}; it needs one value per output channel ({channels})")
    out = x.conv_transpose(weight, at).col2im(at)
    return out if bias is None else out + bias.reshape(channels, *(1,) * dims)


class ConvTranspose2d(Composed):
    """The transposed convolution of images (N, Cin, H, W) with a weight (Cin, Cout/groups, kH, kW), as PyTorch's.

    Each input value spreads the kernel, times itself, over a window of the result, the windows
    `stride` apart: with stride 2 the result is about twice as large. padding takes places off
    each edge of the result, output_padding adds them at the end; the result is (N, Cout, H', W'),
    H' = (H - 1)·stride - 2·padding + dilation·(kH - 1) + output_padding + 1. It is the gradient of
    conv2d with respect to its input.

    >>> conv_transpose2d(ones(1, 1, 2, 2), ones(1, 1, 2, 2), stride=2).shape
    (1, 1, 4, 4)
    >>> conv_transpose2d(ones(1, 1, 2, 2), ones(1, 1, 2, 2))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """

    inputs = ("a", "weight", "bias")
    made_of = (ConvTranspose, Col2im)
    function = "conv_transpose2d"
    builtin = True
    # images (1, 2, 2, 2), a weight of two input channels and one output channel, its bias
    sample = (np.arange(1.0, 9.0).reshape(1, 2, 2, 2) / 4, np.arange(1.0, 9.0).reshape(2, 1, 2, 2) / 8, np.ones(1), 2)

    @staticmethod
    def forward(
        a: Any,
        weight: Any,
        bias: Any = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Any:
        return transposed(a, weight, bias, (stride, padding, output_padding, groups, dilation), 2, "conv_transpose2d")


class ConvTranspose1d(ConvTranspose2d):
    """The transposed convolution of sequences (N, Cin, L) with a weight (Cin, Cout/groups, k), as PyTorch's.

    L' = (L - 1)·stride - 2·padding + dilation·(k - 1) + output_padding + 1.

    >>> conv_transpose1d(ones(1, 1, 3), ones(1, 1, 2), stride=2)
    tensor([[[1., 1., 1., 1., 1., 1.]]])
    """

    function = "conv_transpose1d"
    sample = (np.arange(1.0, 5.0).reshape(1, 2, 2) / 4, np.arange(1.0, 7.0).reshape(2, 1, 3) / 8, np.ones(1), 2)

    @staticmethod
    def forward(
        a: Any,
        weight: Any,
        bias: Any = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Any:
        return transposed(a, weight, bias, (stride, padding, output_padding, groups, dilation), 1, "conv_transpose1d")


# ---- interpolation -------------------------------------------------------------------------------
LINEAR = {"linear": 3, "bilinear": 4, "trilinear": 5}  # each linear mode, and the input's dimensions it reads
MODES = ("nearest", "nearest-exact", *LINEAR)


class Resize:
    """interpolate's arguments, checked once: the result's spatial `sizes`, and the scale factor
    each axis is read with (None: from the sizes), as F.interpolate hands them to its kernels."""

    __slots__ = ("scales", "sizes")

    def __init__(self, shape: tuple[int, ...], size: Any, scale_factor: Any, mode: Any, align_corners: Any,
                 recompute_scale_factor: Any, antialias: Any) -> None:  # fmt: skip
        if mode not in MODES:
            raise TensorValueError(
                f"interpolate: mode {mode!r} is not one DG has", help=f"use one of {', '.join(map(repr, MODES))}"
            )
        if antialias:
            raise TensorValueError("interpolate: DG has no antialias", help="leave it out: antialias=False")
        if align_corners is not None and mode not in LINEAR:
            raise TensorValueError(
                f'interpolate: align_corners is for the linear modes, not "{mode}"', help="leave it out for nearest"
            )
        dims = len(shape) - 2
        if not 1 <= dims <= 3 or LINEAR.get(mode, len(shape)) != len(shape):
            wanted = LINEAR.get(mode)
            raise ShapeError(
                f"interpolate: an input of shape {shape} for mode {mode!r}",
                help=f"{mode} reads (N, C, {('L', 'H, W', 'D, H, W')[wanted - 3]})"
                if wanted
                else "nearest reads (N, C, L), (N, C, H, W) or (N, C, D, H, W)",
            )
        if (size is None) == (scale_factor is None):
            raise TensorValueError(
                f"interpolate: {'only one' if size is not None else 'one'} of size or scale_factor",
                help="size=(H', W') gives the result's size, scale_factor=2 how many times larger it is",
            )
        if size is not None:
            if recompute_scale_factor:
                raise TensorValueError("interpolate: recompute_scale_factor is for a scale_factor, not a size")
            self.sizes, self.scales = sizes(size, dims, "size"), (None,) * dims
        else:
            factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * dims
            if len(factors) != dims or any(isinstance(f, bool) or not isinstance(f, (int, float)) for f in factors):
                raise TensorTypeError(
                    f"interpolate: scale_factor must be a number or {dims} numbers, not {scale_factor!r}"
                )
            products = [n * float(f) for n, f in zip(shape[2:], factors, strict=True)]
            if not all(math.isfinite(n) for n in products):
                raise TensorValueError(f"interpolate: a scale_factor of {scale_factor!r} has no finite size")
            self.sizes = tuple(math.floor(n) for n in products)
            self.scales = (None,) * dims if recompute_scale_factor else tuple(float(f) for f in factors)
        if any(n < 1 for n in (*shape[2:], *self.sizes)):
            raise ShapeError(f"interpolate: from {shape[2:]} to {self.sizes}: each size must be at least 1")


def nearest(n_in: int, n_out: int, scale: float | None, exact: bool) -> np.ndarray:
    """The input place each of n_out places reads, as PyTorch's nearest (the place below) and
    nearest-exact (the place around the middle) compute it, their scale in float32."""
    places = np.arange(n_out)
    if not exact and n_out == n_in:
        return places
    if not exact and n_out == 2 * n_in:
        return places >> 1
    ratio = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    where = (places + 0.5) * np.float64(ratio) if exact else places.astype(np.float32) * ratio
    return np.minimum(np.floor(where.astype(np.float32)).astype(np.int64), n_in - 1)


def linear(n_in: int, n_out: int, scale: float | None, align: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of n_out places, the two input places around it and the weight of the second, as
    PyTorch's linear kernels compute them (the first's weight is 1 minus it)."""
    places = np.arange(n_out)
    if n_out == n_in:
        return places, places, np.zeros(n_out)
    if align:
        src = places * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        ratio = 1.0 / scale if scale else n_in / n_out
        src = np.maximum(ratio * (places + 0.5) - 0.5, 0.0)
    low = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    return low, low + (low < n_in - 1), np.clip(src - low, 0.0, 1.0)


class Interpolate(Composed):
    """Images made larger or smaller, as PyTorch's interpolate: each new place the nearest old one, or a mix.

    Give the result's spatial size (size=(H', W')) or a scale_factor (2: twice as large). mode
    "nearest" copies the nearest place (PyTorch's default; "nearest-exact" the one around the
    middle); "linear" (N, C, L), "bilinear" (N, C, H, W) and "trilinear" (N, C, D, H, W) weigh the
    two places around along each axis, with align_corners putting the corners on the corners.

    >>> interpolate(tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    >>> interpolate(tensor([[[1.0, 2.0]]]), size=4, mode="linear")
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    """

    made_of = (Index,)
    builtin = True
    sample = (np.arange(1.0, 13.0).reshape(1, 1, 3, 4) / 4, (4, 5), None, "bilinear")

    @staticmethod
    def forward(
        x: Any,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: Any = None,
        recompute_scale_factor: Any = None,
        antialias: bool = False,
    ) -> Any:
        plan = Resize(x.shape, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
        shape = (*x.shape[:2], *plan.sizes)
        hooks.allocating(math.prod(shape), "the result of interpolate()", shape=shape)
        axes = list(zip(range(2, x.ndim), x.shape[2:], plan.sizes, plan.scales, strict=True))
        if mode not in LINEAR:  # one index for every axis: the places, copied
            picked = [nearest(n, m, s, mode == "nearest-exact") for _, n, m, s in axes]
            last = len(picked) - 1
            return x[(slice(None), slice(None), *(p.reshape((-1,) + (1,) * (last - i)) for i, p in enumerate(picked)))]
        plans = []
        for axis, n, m, s in axes:
            low, high, weight = linear(n, m, s, bool(align_corners))
            read = np.unique(np.concatenate([low, high]))
            if len(read) < n:  # first only the places some result reads (at most two for each), so that
                # no step is larger than the result times 2 ** dims (1 × 20000 from 20000 × 1 makes no 20000²)
                x = x[(slice(None),) * axis + (read,)]
                low, high = np.searchsorted(read, low), np.searchsorted(read, high)
            plans.append((axis, low, high, weight))
        for axis, low, high, weight in reversed(plans):  # the last axis first: PyTorch's order of sums, to the bit
            lead, shape = (slice(None),) * axis, (-1,) + (1,) * (x.ndim - 1 - axis)
            x = x[(*lead, low)] * (1.0 - weight).reshape(shape) + x[(*lead, high)] * weight.reshape(shape)
        return x
