"""Ops that move values around without changing them: reshape, transpose, broadcast, index, join.

Their rules are each other: the gradient of broadcasting is a sum, of a sum-to-shape is a
broadcast, of indexing is a scatter into zeros, of that scatter is indexing again. Here too is
`broadcasting`, how every op of two operands pairs their values.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import hooks
from .exceptions import ShapeError, TensorIndexError, TensorTypeError, TensorValueError, argument_name, type_name
from .indexing import pytorch_places, scattered
from .op import Op, value_shape


class Reshape(Op):
    """The same values in a new shape; one axis may be -1, worked out from the others.

    >>> x = tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> x.reshape(2, -1)
    tensor([[1., 2., 3.],
            [4., 5., 6.]])
    """

    rules = ("g, reshaped back",)
    note = "also `.flatten()`"
    method = builtin = True

    @staticmethod
    def forward(a: Any, *shape: Any) -> Any:
        new_shape = shape_of(shape)
        if type(a) is np.ndarray and a.size >= hooks.watch and not a.flags.c_contiguous:  # a copy, not a view
            hooks.installed.allocating(a.size, 8, "reshape()")
        try:
            return a.reshape(new_shape) if type(a) is np.ndarray else np.reshape(a, new_shape)
        except ValueError:
            raise ShapeError(
                f"cannot reshape a tensor of shape {np.shape(a)} ({np.size(a)} elements) into {new_shape}"
            ) from None

    @staticmethod
    def backward(g: Any, out: Any, a: Any, *shape: Any) -> tuple[Any]:
        return (g.reshape(a.shape),)


class Transpose(Op):
    """The axes reversed (like x.T), or in the order `axes` gives.

    >>> transpose(ones(2, 3)).shape
    (3, 2)
    """

    rules = ("g, transposed back",)
    builtin = True

    @staticmethod
    def forward(a: Any, axes: Sequence[Any] | None = None) -> Any:
        if axes is None:  # `.T`, in every matrix product's backward: no checks
            return a.T if type(a) is np.ndarray else a
        return np.transpose(a, permutation(axes, np.shape(a)))

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axes: Sequence[Any] | None = None) -> tuple[Any]:
        if axes is None:
            return (g.T,)  # reversing the axes is its own inverse
        inverse = [0] * a.ndim  # where each axis went, sent back (np.argsort's answer, without an array)
        for i, p in enumerate(permutation(axes, a.shape)):
            inverse[p] = i
        return (g.transpose(*inverse),)


def permutation(axes: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The axes `transpose` was given, as a permutation of range(ndim) (-1 is the last axis)."""
    ndim = len(shape)
    given = shape_of(axes if isinstance(axes, (tuple, list)) else (axes,))
    perm = tuple([p + ndim if -ndim <= p < 0 else p for p in given])
    if sorted(perm) != list(range(ndim)):
        raise ShapeError(f"transpose: {given} is not a permutation of the {ndim} axes of {shape}")
    return perm


# ---- broadcasting -------------------------------------------------------------------------
def broadcasting(fn: Callable[[Any, Any], Any], symbol: str, x: Any, y: Any, itemsize: int = 8) -> Any:
    """fn(x, y) on two operands' values, paired as NumPy broadcasts them: a large result is shown
    to the hooks before it is made, and a mismatch is a ShapeError naming both shapes."""
    if type(x) is np.ndarray:
        if type(y) is np.ndarray:
            xs, ys = x.size, y.size  # (size_bound's answer, for two arrays, inline: this runs on every op)
            if (xs if ys == 1 or x.shape == y.shape else ys if xs == 1 else xs * ys) >= hooks.watch:
                _announce(symbol, x, y, itemsize)
        elif x.size >= hooks.watch:
            _announce(symbol, x, y, itemsize)
    elif type(y) is np.ndarray and y.size >= hooks.watch:
        _announce(symbol, x, y, itemsize)
    try:
        return fn(x, y)
    except (ValueError, TypeError) as e:
        try:
            np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            raise ShapeError(
                f"cannot broadcast shapes {np.shape(x)} and {np.shape(y)} for '{symbol}'",
                help="each dimension, counted from the right, must be equal or 1",
            ) from None
        raise TensorValueError(f"'{symbol}': {e}") from None


def size_bound(*values: Any) -> int:
    """A bound on the size of the broadcast of `values`, found in a moment: exact when all their
    shapes are equal, or all but one value are single numbers; else the product of their sizes.
    Only past it is the result's size worked out (broadcast_shape, a µs or more)."""
    shape, largest, product, equal = None, 1, 1, True
    for v in values:
        n = getattr(v, "size", 1)
        product *= n
        if n != 1:
            if shape is None:
                shape, largest = v.shape, n
            elif v.shape != shape:
                equal = False
    return largest if equal else product


def _announce(symbol: str, x: Any, y: Any, itemsize: int) -> None:
    """Ask the hooks about the result of x symbol y, which the bound says may be large: its exact
    shape decides (a layer norm's (16, 32, 64) / (16, 32, 1) has a bound of their sizes' product)."""
    try:
        shape = broadcast_shape(x, y)
    except ValueError:
        return  # the op itself reports the mismatch
    count = math.prod(shape)
    if count >= hooks.watch:  # (the message only then: formatting it cost more than the rest)
        help = f"broadcasting {np.shape(x)} with {np.shape(y)} pairs every element with every other; check the shapes"
        hooks.installed.allocating(count, itemsize, f"the result of '{symbol}'", shape, help)


def broadcast_shape(*values: Any) -> tuple[int, ...]:
    """The shape NumPy broadcasts `values` (arrays or numbers) to, or a ValueError. (np.broadcast:
    np.broadcast_shapes makes an empty array of each shape to find it, several times slower.)"""
    return np.broadcast(*values).shape


class Broadcast(Op):
    """The values repeated along new or length-1 axes to `shape` (the gradient of a sum)."""

    rules = ("g, summed back",)
    note = "inside broadcasting ops"
    function = "broadcast_to"

    @staticmethod
    def forward(a: Any, shape: tuple[int, ...]) -> Any:
        shape = tuple(shape)
        hooks.allocating(math.prod(shape), "broadcast_to()", shape=shape)  # (a negative size: np.empty says)
        try:
            data = np.empty(shape, dtype=np.result_type(a))
            data[...] = a  # a fresh array: about twice as fast as np.broadcast_to's view for small ones
        except ValueError:
            raise ShapeError(f"cannot broadcast shape {np.shape(a)} to {shape}") from None
        return data

    @staticmethod
    def backward(g: Any, out: Any, a: Any, shape: tuple[int, ...]) -> tuple[Any]:
        return (g.sum_to(a.shape),)


class SumTo(Op):
    """A broadcast result summed back down to `shape`: the gradient of broadcasting."""

    rules = ("g, broadcast back",)
    note = "the gradient of broadcasting"
    function = "sum_to"

    @staticmethod
    def forward(a: Any, shape: tuple[int, ...]) -> Any:
        shape, given = tuple(shape), value_shape(a)
        if getattr(a, "size", 1) >= hooks.watch:  # (its result is smaller than its input)
            hooks.allocating(math.prod(shape), "sum_to()", shape=shape)
        lead = len(given) - len(shape)
        if lead > 0 and given[lead:] == shape:  # only leading axes to sum away (a bias's gradient): no reshape
            return np.add.reduce(a, axis=tuple(range(lead)))
        axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and given[lead + i] != 1)
        return np.add.reduce(a, axis=axes, keepdims=True).reshape(shape)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, shape: tuple[int, ...]) -> tuple[Any]:
        return (g.broadcast_to(a.shape),)


# ---- indexing -----------------------------------------------------------------------------
def normalize_index(index: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Turn a DG index (ints, slices, None, lists, int or bool tensors) into a NumPy index tuple
    that puts the result's axes where PyTorch does (indexing.py)."""
    if type(index) is int:  # x[i], the commonest (a row, a one-hot vector): nothing to check
        return (index,)
    parts = index if isinstance(index, tuple) else (index,)
    if all(type(part) in BASIC for part in parts):  # x[:, 0], x[:n], x[:, None]: the loop below
        return tuple(parts)  # would keep each part as it is, and without an array no axis moves
    out: list[Any] = []
    for part in parts:
        if type_name(part) == "tensor":  # (tensor.py imports this module, so knows no Tensor here)
            if part.dtype == "float":
                raise TensorTypeError(
                    "tensor indices must be int or bool tensors, not float",
                    help='make integer indices with tensor(..., dtype="int") or arange(n)',
                )
            part = np.asarray(part.data)
        if isinstance(part, np.integer):
            part = int(part)
        elif isinstance(part, (list, np.ndarray)):
            part = np.asarray(part)
            if part.ndim == 0 and part.dtype.kind in "iu":
                part = int(part)
            elif part.size and part.dtype.kind not in "iub":
                raise TensorTypeError("a list used as an index must hold ints or bools")
            else:
                part = part.astype(int) if part.size == 0 else part
        elif isinstance(part, bool) or not isinstance(part, BASIC):
            raise TensorTypeError(f"tensor indices must be ints, slices, None, lists or tensors, not {type_name(part)}")
        if isinstance(part, np.ndarray) and part.dtype.kind == "b":
            out.extend(np.nonzero(part))  # a mask becomes the coordinates where it holds
        else:
            out.append(part)
    return pytorch_places(tuple(out), shape)  # x[0, :, [0, 1]]: PyTorch's (3, 2), not NumPy's (2, 3)


BASIC = (int, slice, type(None))  # (a tuple: `int | slice | ...` would be made anew at each call)


def _is_basic(index: tuple[Any, ...]) -> bool:
    """True when no element can be picked twice (so the scatter needs no np.add.at)."""
    return all(isinstance(p, BASIC) for p in index)


class Index(Op):
    """x[index]: an element, a slice, or the elements picked by lists or tensors of ints or bools."""

    rules = ("g, scattered into zeros",)
    note = "added into the indexed places"
    function = "getitem"

    @staticmethod
    def forward(a: Any, index: Any) -> Any:
        idx = (index,) if type(index) is int else normalize_index(index, value_shape(a))  # x[i]: nothing to check
        if not _is_basic(idx):  # integer arrays can pick elements many times over: ask first
            picked = _picked(idx, value_shape(a))
            if picked >= hooks.watch:
                hooks.installed.allocating(picked, 8, "this index", None, "use smaller tensors")
        try:
            return a[idx]
        except IndexError as e:
            raise TensorIndexError(f"{e} (the tensor has shape {np.shape(a)})") from None
        except (TypeError, ValueError) as e:
            raise TensorTypeError(f"invalid index: {e}") from None

    @staticmethod
    def backward(g: Any, out: Any, a: Any, index: Any) -> tuple[Any]:
        return (g.index_add(normalize_index(index, a.shape), a.shape),)


def _picked(index: tuple[Any, ...], shape: tuple[int, ...]) -> int:
    """How many elements an index with integer arrays picks (an upper bound when it is invalid)."""
    arrays: list[tuple[int, ...]] = []
    count, axis = 1, 0
    for part in index:
        if part is None:
            continue
        n = shape[axis] if axis < len(shape) else 1
        if isinstance(part, slice):
            count *= len(range(*part.indices(n)))
        elif isinstance(part, np.ndarray):
            arrays.append(part.shape)
        axis += 1
    count *= math.prod(shape[axis:])
    with contextlib.suppress(ValueError):  # a mismatch: NumPy reports it
        count *= math.prod(np.broadcast_shapes(*arrays))
    return count


class IndexAdd(Op):
    """Zeros of `shape` with `a` added at `index`: the gradient of indexing."""

    rules = ("g at the index",)
    note = "the gradient of indexing, in gradients of gradients"
    function = "index_add"

    @staticmethod
    def forward(a: Any, index: tuple[Any, ...], shape: tuple[int, ...]) -> Any:
        hooks.allocating(math.prod(shape), "a gradient", shape=tuple(shape))
        return scattered(a, index, tuple(shape), _is_basic(index))

    @staticmethod
    def backward(g: Any, out: Any, a: Any, index: tuple[Any, ...], shape: tuple[int, ...]) -> tuple[Any]:
        return (g[index],)


# ---- joining --------------------------------------------------------------------------------
def _axis(axis: Any, ndim: int, name: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TensorTypeError(f"{name}: axis must be an int, not {argument_name(axis)}")
    if not -ndim <= axis < ndim:
        raise TensorIndexError(f"{name}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


def _bounds(items: Sequence[Any], axis: int) -> list[tuple[int, int]]:
    ends = np.cumsum([0] + [t.shape[axis] for t in items])
    return [(int(lo), int(hi)) for lo, hi in itertools.pairwise(ends)]


class Concat(Op):
    """Join tensors along an existing axis.

    >>> concat([ones(2), zeros(3)])
    tensor([1., 1., 0., 0., 0.])
    """

    inputs = ("input",)
    rules = ("g, its slice",)
    variadic = True
    builtin = True
    aliases = ("cat",)  # PyTorch's name

    @staticmethod
    def forward(items: list[Any], axis: int = 0) -> Any:
        hooks.allocating(sum(np.size(p) for p in items), "concat()", help="use smaller tensors")
        ndim = np.ndim(items[0])
        if ndim == 0:
            raise ShapeError("concat needs tensors with at least one dimension", help="use stack for scalars")
        axis = _axis(axis, ndim, "concat")
        try:
            return np.concatenate(items, axis=axis)
        except ValueError:
            shapes = ", ".join(str(np.shape(p)) for p in items)
            raise ShapeError(f"concat along axis {axis}: shapes {shapes} must agree on every other axis") from None

    @staticmethod
    def backward(g: Any, out: Any, items: Sequence[Any], axis: int = 0) -> tuple[Any, ...]:
        axis %= out.ndim
        lead = (slice(None),) * axis
        return tuple(
            g[(*lead, slice(lo, hi))] if p.requires_grad else None
            for p, (lo, hi) in zip(items, _bounds(items, axis), strict=True)
        )


class Stack(Op):
    """Join tensors of one shape along a new axis.

    >>> stack([ones(2), zeros(2)])
    tensor([[1., 1.],
            [0., 0.]])
    """

    inputs = ("input",)
    rules = ("g, its slice",)
    variadic = True
    builtin = True

    @staticmethod
    def forward(items: list[Any], axis: int = 0) -> Any:
        hooks.allocating(sum(np.size(p) for p in items), "stack()", help="use smaller tensors")
        axis = _axis(axis, np.ndim(items[0]) + 1, "stack")
        try:
            return np.stack(items, axis=axis)
        except ValueError:
            shapes = ", ".join(str(np.shape(p)) for p in items)
            raise ShapeError(f"stack needs tensors of one shape, got {shapes}") from None

    @staticmethod
    def backward(g: Any, out: Any, items: Sequence[Any], axis: int = 0) -> tuple[Any, ...]:
        lead = (slice(None),) * (axis % out.ndim)
        return tuple(g[(*lead, i)] if p.requires_grad else None for i, p in enumerate(items))


def shape_of(args: Sequence[Any]) -> tuple[int, ...]:
    """Read a shape given as `2, 3` or as one tuple/list `(2, 3)`."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    dims = []
    for n in args:
        if type(n) is int:  # the usual case, without the checks below (rules reshape in every backward)
            dims.append(n)
            continue
        if isinstance(n, bool) or not hasattr(type(n), "__index__"):
            raise TensorTypeError(f"a shape is made of ints, not {type_name(n)}")
        dims.append(operator.index(n))  # a 0-d int tensor or a NumPy int (a float tensor refuses)
    return tuple(dims)
