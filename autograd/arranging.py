"""Ops that pick, mask, reverse, move or tile values along axes: gather, tril, triu, flip, roll,
tile (and PyTorch's repeat and repeat_interleave), unfold. Their rules are each other or shaping.py's:
gather's is a scatter (index_add, as indexing's), a mask's is the same mask, flip's is a flip,
roll's a roll back, tile's a sum over the tiles; repeat_interleave and unfold pick places by index,
so their rule is indexing's (each g added back where its value was read, twice read, twice added).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .exceptions import ShapeError, TensorIndexError, TensorTypeError, TensorValueError, argument_name, type_name
from .op import Composed, Op, value_shape
from .shaping import Index, shape_of


def one_axis(axis: Any, ndim: int, name: str) -> int:
    """A single axis of a tensor of `ndim` dimensions, as a non-negative int."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TensorTypeError(f"{name}: the axis must be an int, not {argument_name(axis)}")
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


class Roll(Op):
    """The values moved `shifts` places along `axes`, as PyTorch's roll.

    Those pushed past the end come round to the start; without axes, they move along the
    flattened tensor (its shape kept).

    >>> roll(tensor([1.0, 2.0, 3.0, 4.0]), 1)
    tensor([4., 1., 2., 3.])
    """

    rules = ("g rolled back",)
    sample = (np.arange(1.0, 7.0).reshape(2, 3), 1, 1)
    method = builtin = True

    @staticmethod
    def forward(a: Any, shifts: Any, axes: Any = None) -> Any:
        moves, along = roll_arguments(shifts, axes, np.ndim(a))
        if np.size(a) >= hooks.watch:
            hooks.allocating(np.size(a), "the result of roll()", shape=np.shape(a))
        return np.roll(a, moves, along) if np.ndim(a) else np.array(a)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, shifts: Any, axes: Any = None) -> tuple[Any]:
        moves, along = roll_arguments(shifts, axes, a.ndim)
        return (g.roll(tuple(-n for n in moves), along),)


def roll_arguments(shifts: Any, axes: Any, ndim: int) -> tuple[tuple[int, ...], Any]:
    """roll's shifts as a tuple, and its axes (None: the flattened tensor) as ones of `ndim`."""
    moves = shape_of(shifts if isinstance(shifts, (tuple, list)) else (shifts,))
    if axes is None:
        if len(moves) != 1:
            raise ShapeError(
                f"roll: {len(moves)} shifts and no axes", help="name an axis for each shift: roll(x, (1, 2), (0, 1))"
            )
        return moves, None
    along = tuple(one_axis(i, ndim, "roll") for i in (axes if isinstance(axes, (tuple, list)) else (axes,)))
    if len(along) != len(moves):
        raise ShapeError(f"roll: {len(moves)} shifts for {len(along)} axes", help="give one shift for each axis")
    return moves, along


def picked_along(x: Any, axis: int, index: np.ndarray, what: str) -> Any:
    """x with `index` (ints, any shape) picked along `axis`, after the hooks heard of the result."""
    hooks.allocating(x.size // max(x.shape[axis], 1) * index.size, what)
    return x[(slice(None),) * axis + (index,)]


class RepeatInterleave(Composed):
    """Each value repeated `repeats` times in place along `axis`, as PyTorch's repeat_interleave.

    Without an axis, along the flattened tensor; repeats is one count, or one per value along the axis.

    >>> repeat_interleave(tensor([1.0, 2.0]), 2)
    tensor([1., 1., 2., 2.])
    >>> tensor([[1.0, 2.0], [3.0, 4.0]]).repeat_interleave(tensor([1, 2], dtype="int"), 0)
    tensor([[1., 2.],
            [3., 4.],
            [3., 4.]])
    """

    made_of = (Index,)
    function = "repeat_interleave"
    method = builtin = True

    @staticmethod
    def forward(x: Any, repeats: Any, axis: Any = None, output_size: Any = None) -> Any:
        if axis is None:
            x, axis = x.reshape(-1), 0
        axis = one_axis(axis, x.ndim, "repeat_interleave")
        n = x.shape[axis] if x.ndim else 1
        # a tensor's counts through its tolist(), which a tracer hears: they set the result's shape
        counts = np.asarray(repeats.tolist() if getattr(type(repeats), "dg_type_name", "") == "tensor" else repeats)
        if counts.dtype.kind not in "iu" or counts.ndim > 1:
            raise TensorTypeError(
                f"repeat_interleave: repeats must be an int or a 1-d int tensor, not {type_name(repeats)}",
                help='a count for each value: tensor([1, 2, 3], dtype="int")',
            )
        if counts.size not in (1, n):
            raise ShapeError(f"repeat_interleave: {counts.size} repeats for the {n} values along axis {axis}")
        if (counts < 0).any():
            raise TensorValueError("repeat_interleave: a count of repeats cannot be negative")
        total = int(counts.sum()) * (n if counts.size == 1 else 1)
        if output_size is not None and output_size != total:
            raise TensorValueError(f"repeat_interleave: output_size is {output_size!r}, but the repeats make {total}")
        hooks.allocating(total, "the places repeat_interleave() picks", shape=(total,))
        index = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
        return picked_along(x if x.ndim else x.reshape(1), axis, index, "the result of repeat_interleave()")


class Unfold(Composed):
    """Every window of `size` values along `axis`, `step` apart, as PyTorch's x.unfold.

    The axis becomes the windows, and a new last axis holds each window's values.

    >>> arange(5.0).unfold(0, 2, 1)
    tensor([[0., 1.],
            [1., 2.],
            [2., 3.],
            [3., 4.]])
    """

    made_of = (Index,)
    method = True  # (the builtin unfold is PyTorch's F.unfold, the windows of an image: convolution.py)

    @staticmethod
    def forward(x: Any, axis: Any, size: Any, step: Any) -> Any:
        axis = one_axis(axis, x.ndim, "unfold")
        n = x.shape[axis] if x.ndim else 1
        for name, value, least in (("size", size, 0), ("step", step, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise TensorValueError(f"unfold: {name} must be an int of at least {least}, not {value!r}")
        if size > n:
            raise ShapeError(f"unfold: windows of {size} along axis {axis}, which holds {n} values")
        count = (n - size) // step + 1
        hooks.allocating(count * size, "the places unfold() picks", shape=(count, size))
        index = np.arange(count)[:, None] * step + np.arange(size)
        windows = picked_along(x if x.ndim else x.reshape(1), axis, index, "the result of unfold()")
        if not x.ndim:
            return windows.reshape(size)
        return windows.permute(*range(axis + 1), *range(axis + 2, x.ndim + 1), axis + 1)
