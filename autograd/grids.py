"""The grid a convolution's or a pooling's windows are read from: the arguments as one int per
spatial axis, the number of windows along each, the padded input, a view of every window, and
`fold`, their inverse, which adds windows back where they were read (col2im).

A `Grid` is made once per call, after the checks (convolution.py's Geometry, pooling.py's
Window), and handed to the ops; `kept` makes it once for each set of arguments a training loop
repeats.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import hooks
from .exceptions import TensorTypeError, TensorValueError


def sizes(value: Any, dims: int, name: str, least: int = 0) -> tuple[int, ...]:
    """An op's `stride=2` or `padding=(1, 2)` as one int per spatial axis."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
    if len(items) != dims or any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) for n in items):
        raise TensorTypeError(f"{name} must be an int or {dims} ints, not {value!r}")
    if any(n < least for n in items):
        raise TensorValueError(f"{name} must be at least {least}, not {value!r}")
    return tuple(int(n) for n in items)


def output_size(n: int, k: int, stride: int, padding: int, dilation: int) -> int:
    return (n + 2 * padding - (k - 1) * dilation - 1) // stride + 1


class Grid:
    """Where the windows of an input of `shape` (N, C, spatial...) are read: kernel, stride,
    padding and dilation per spatial axis, and `out`, the number of windows along each. Made
    once per call, after the checks (Geometry, pooling's Window), and handed to the ops. `extra`
    is padding after the end beyond `padding`, where a pooling's ceil_mode reads past the input."""

    __slots__ = ("dilation", "extra", "kernel", "out", "padding", "shape", "stride")

    def __init__(self, shape: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                 padding: tuple[int, ...], dilation: tuple[int, ...]) -> None:  # fmt: skip
        self.shape, self.kernel, self.stride, self.padding, self.dilation = shape, kernel, stride, padding, dilation
        along = zip(shape[2:], kernel, stride, padding, dilation, strict=True)
        self.out = tuple(output_size(n, k, s, p, d) for n, k, s, p, d in along)
        self.extra = (0,) * len(kernel)

    @property
    def tiles(self) -> bool:
        """Do the windows lie side by side, neither overlapping nor leaving gaps between them?
        (Then cutting and folding them is a reshape.)"""
        plain = not any(self.padding) and not any(self.extra) and all(d == 1 for d in self.dilation)
        return plain and self.stride == self.kernel

    @property
    def grid(self) -> tuple[int, ...]:
        """The spatial sizes of the padded input the windows are read from."""
        return tuple(n + 2 * p + e for n, p, e in zip(self.shape[2:], self.padding, self.extra, strict=True))


def kept(make: Callable[..., Any], *args: Any) -> Any:
    """make(*args), the checks of a call's windows (a Geometry, a Window), made once for each set of
    plain arguments: a training loop convolves the same shapes at every step. Arguments of any
    other type (a list, a NumPy int) are checked afresh."""
    if all(type(a) in PLAIN or (type(a) is tuple and all(type(n) is int for n in a)) for a in args):
        return _kept(make, *args)
    return make(*args)


PLAIN = (int, float, bool, str, type(None))  # (typed: the cache tells 1 from True and from 1.0)
_kept = functools.lru_cache(maxsize=64, typed=True)(lambda make, *args: make(*args))


def padded(x: np.ndarray, at: Grid, fill: float = 0.0) -> np.ndarray:
    """x with at.padding values of `fill` before and after each spatial axis (and at.extra more
    after), as the windows read it: x itself for none."""
    if not any(at.padding) and not any(at.extra):
        return x
    shape = (*x.shape[:2], *at.grid)
    hooks.allocating(math.prod(shape), "the padded input", shape=shape)
    out = np.full(shape, fill, dtype=np.result_type(x, float))
    out[inner(at.padding, x.shape)] = x
    return out


def inner(padding: tuple[int, ...], shape: tuple[int, ...]) -> tuple[slice, ...]:
    """The index of the unpadded input inside the padded one."""
    return (slice(None), slice(None), *(slice(p, p + n) for p, n in zip(padding, shape[2:], strict=True)))


def windows(xp: np.ndarray, at: Grid) -> Any:
    """A view (no copy) of each window of the padded input xp: (N, C, out..., kernel...)."""
    n, c, *steps = xp.strides
    along = tuple(step * s for step, s in zip(steps, at.stride, strict=True))
    within = tuple(step * d for step, d in zip(steps, at.dilation, strict=True))
    return as_strided(xp, (*xp.shape[:2], *at.out, *at.kernel), (n, c, *along, *within), writeable=False)


def reads(at: Grid) -> Any:
    """For each kernel offset (in itertools.product's order), the places of the padded input it
    reads, one per window: a slice along each spatial axis."""
    along = zip(at.kernel, at.dilation, at.stride, at.out, strict=True)
    return itertools.product(*([slice(i * d, i * d + s * (o - 1) + 1, s) for i in range(k)] for k, d, s, o in along))


def fold(blocks: Any, at: Grid) -> np.ndarray:
    """Each window's values, blocks (N, C, out..., kernel...), added onto a grid of zeros of
    at.shape at the place the window was read from: the windows' inverse (col2im)."""
    dims, grid = len(at.kernel), at.grid
    hooks.allocating(math.prod(at.shape[:2]) * math.prod(grid), "a gradient", shape=(*at.shape[:2], *grid))
    dtype = np.result_type(blocks, float)
    if at.tiles and all(o * k == n for o, k, n in zip(at.out, at.kernel, grid, strict=True)):
        # side by side, covering the whole grid: one copy puts every window in place (+ 0.0, as
        # adding onto zeros would, turns a -0.0 into 0.0)
        interleaved = (0, 1, *itertools.chain(*((2 + i, 2 + dims + i) for i in range(dims))))
        into = np.empty((*at.shape[:2], *itertools.chain(*zip(at.out, at.kernel, strict=True))), dtype=dtype)
        np.add(blocks.transpose(interleaved), 0.0, out=into)
        return into.reshape(at.shape)
    # One slice addition per kernel offset, on a grid with the batch and channels last (N·C numbers
    # side by side at each point, rather than a few points of a row), each offset's blocks copied
    # together first: every sum is the same additions in the same order, made in longer runs.
    into = np.zeros((*grid, *at.shape[:2]), dtype=dtype)
    hooks.allocating(blocks.size, "a gradient's windows, by kernel offset", shape=blocks.shape)
    offsets = np.ascontiguousarray(blocks.transpose(*range(2 + dims, 2 + 2 * dims), *range(2, 2 + dims), 0, 1))
    for offset, where in zip(itertools.product(*map(range, at.kernel)), reads(at), strict=True):
        into[where] += offsets[offset]
    return np.ascontiguousarray(into[inner(at.padding, at.shape)[2:]].transpose(dims, dims + 1, *range(dims)))
