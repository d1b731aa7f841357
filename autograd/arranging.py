"""Ops that pick, mask, reverse, accumulate or tile values along axes: gather, tril, triu, flip,
cumsum, tile (and PyTorch's repeat). Their rules are each other or shaping.py's: gather's is a scatter (index_add, as
indexing's), a mask's is the same mask, flip's is a flip, cumsum's a cumsum from the other end,
tile's a sum over the tiles.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .exceptions import ShapeError, TensorIndexError, TensorTypeError, type_name
from .op import Op, value_shape
from .shaping import shape_of


def one_axis(axis: Any, ndim: int, name: str) -> int:
    """A single axis of a tensor of `ndim` dimensions, as a non-negative int."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TensorTypeError(f"{name}: the axis must be an int, not {type_name(axis)}")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise TensorIndexError(f"{name}: axis {axis} is out of range for a tensor with {ndim} dimensions")
    return int(axis) % max(ndim, 1)


class Gather(Op):
    """Values of a picked along `axis` by an int tensor `index`, as PyTorch's gather.

    For axis 1, out[i][j] = a[i][index[i][j]].
    The index has a's number of dimensions, and on every other axis at most a's size.

    >>> gather(tensor([[1.0, 2.0], [3.0, 4.0]]), 1, tensor([[0, 0], [1, 0]], dtype="int"))
    tensor([[1., 1.],
            [4., 3.]])
    """

    rules = ("g added at the index",)
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int, index: Any) -> Any:
        a, index = np.asarray(a), np.asarray(index)
        axis = one_axis(axis, a.ndim, "gather")
        if index.dtype.kind not in "iu" and index.size:
            raise TensorTypeError(
                "gather: the index must be an int tensor", help='make one with tensor(..., dtype="int")'
            )
        if index.ndim != a.ndim or any(
            i > n for d, (i, n) in enumerate(zip(index.shape, a.shape, strict=True)) if d != axis
        ):
            raise ShapeError(
                f"gather: an index of shape {index.shape} for a tensor of shape {a.shape} along axis {axis}",
                help="the index has the tensor's number of dimensions, and on every other axis at most its size",
            )
        if index.size and (index.min() < 0 or index.max() >= a.shape[axis]):
            raise TensorIndexError(f"gather: an index is outside 0 to {a.shape[axis] - 1} along axis {axis}")
        hooks.allocating(index.size, "gather()", shape=index.shape)
        part = a[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(index.shape))]
        return np.take_along_axis(part, index.astype(np.intp), axis=axis)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int, index: Any) -> tuple[Any]:
        index = np.asarray(index, dtype=np.intp)
        where = list(np.indices(index.shape, sparse=True))  # each value's own place, but along the axis:
        where[axis % a.ndim] = index  # the place it was picked from
        return (g.index_add(tuple(where), a.shape),)


class Tril(Op):
    """The lower triangle of the last two axes (on and below the diagonal; `diagonal` moves it up or down), zeros above.

    >>> tril(ones(3, 3))
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """

    rules = ("g in the lower triangle",)
    sample = (np.arange(1.0, 7.0).reshape(2, 3),)  # (a matrix: it needs two axes)
    method = builtin = True

    @staticmethod
    def forward(a: Any, diagonal: int = 0) -> Any:
        return np.tril(matrices(a, "tril"), diagonal)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, diagonal: int = 0) -> tuple[Any]:
        return (g.tril(diagonal),)


class Triu(Op):
    """The upper triangle of the last two axes (on and above the diagonal; `diagonal` moves it), zeros below.

    >>> triu(ones(3, 3), 1)
    tensor([[0., 1., 1.],
            [0., 0., 1.],
            [0., 0., 0.]])
    """

    rules = ("g in the upper triangle",)
    sample = (np.arange(1.0, 7.0).reshape(2, 3),)
    method = builtin = True

    @staticmethod
    def forward(a: Any, diagonal: int = 0) -> Any:
        return np.triu(matrices(a, "triu"), diagonal)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, diagonal: int = 0) -> tuple[Any]:
        return (g.triu(diagonal),)


def matrices(a: Any, name: str) -> Any:
    if np.ndim(a) < 2:
        raise ShapeError(f"{name} needs a tensor of at least 2 dimensions, not shape {np.shape(a)}")
    if np.size(a) >= hooks.watch:
        hooks.allocating(np.size(a), f"the result of {name}()", shape=np.shape(a))
    return a


class Flip(Op):
    """The values in reverse order along each axis of `axes` (an int or a tuple of them).

    >>> flip(tensor([1.0, 2.0, 3.0]), 0)
    tensor([3., 2., 1.])
    """

    rules = ("g flipped back",)
    method = builtin = True

    @staticmethod
    def forward(a: Any, axes: Any) -> Any:
        ndim = np.ndim(a)
        items = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
        if np.size(a) >= hooks.watch:
            hooks.allocating(np.size(a), "the result of flip()", shape=np.shape(a))
        return np.flip(a, tuple(one_axis(i, ndim, "flip") for i in items)).copy()

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axes: Any) -> tuple[Any]:
        return (g.flip(axes),)


class Cumsum(Op):
    """The running sum along `axis`: each value plus all before it.

    >>> cumsum(tensor([1.0, 2.0, 3.0]), 0)
    tensor([1., 3., 6.])
    """

    rules = ("g summed from the end",)
    note = "`flip(cumsum(flip(g)))`"
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int) -> Any:
        if np.size(a) >= hooks.watch:
            hooks.allocating(np.size(a), "the result of cumsum()", shape=np.shape(a))
        if np.asarray(a).dtype.kind == "b":
            a = np.asarray(a, dtype=np.int64)  # as PyTorch: a running count
        return np.cumsum(a, axis=one_axis(axis, np.ndim(a), "cumsum")) if np.ndim(a) else np.asarray(a)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int) -> tuple[Any]:
        # out[i] = a[0] + ... + a[i], so a[i] reaches every out[j] from j = i on: g summed from the end
        return (g.flip(axis).cumsum(axis).flip(axis) if a.ndim else g,)


class Tile(Op):
    """The tensor repeated `reps` times along each axis, as NumPy's tile (reps may add leading axes).

    >>> tile(tensor([1.0, 2.0]), 2)
    tensor([1., 2., 1., 2.])
    """

    rules = ("g summed over the copies",)
    method = builtin = True

    @staticmethod
    def forward(a: Any, *reps: Any) -> Any:
        reps = shape_of(reps)
        if any(r < 0 for r in reps):
            raise ShapeError(f"tile: a count of repeats cannot be negative: {reps}")
        shape = value_shape(a)
        full = (1,) * (len(reps) - len(shape)) + shape
        counts = (1,) * (len(shape) - len(reps)) + reps
        hooks.allocating(math.prod(full) * math.prod(counts), "the result of tile()", help="tile fewer times")
        return np.tile(a, counts)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, *reps: Any) -> tuple[Any]:
        counts = shape_of(reps)
        full = (1,) * (len(counts) - a.ndim) + a.shape
        counts = (1,) * (len(full) - len(counts)) + counts
        copies = g.reshape(tuple(n for pair in zip(counts, full, strict=True) for n in pair))  # (r0, n0, r1, n1, ...)
        return (copies.sum(axis=tuple(range(0, 2 * len(full), 2))).reshape(a.shape),)


class Repeat(Tile):
    """PyTorch's x.repeat(2, 3): tile with a count for every axis (more counts than axes add leading ones).

    >>> tensor([1.0, 2.0]).repeat(2, 2)
    tensor([[1., 2., 1., 2.],
            [1., 2., 1., 2.]])
    """

    note = "as Tile"
    builtin = False  # a method only, as in PyTorch

    @staticmethod
    def forward(a: Any, *reps: Any) -> Any:
        if len(shape_of(reps)) < np.ndim(a):
            raise ShapeError(
                f"repeat: {len(shape_of(reps))} counts for a tensor of {np.ndim(a)} dimensions",
                help="give a count for every axis (1 keeps it), or use tile, which repeats the last axes",
            )
        return Tile.forward(a, *reps)
