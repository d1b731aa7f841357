"""Ops that move values around without changing them: reshape, transpose, broadcast, index, join.

Their rules are each other: the gradient of broadcasting is a sum, of a sum-to-shape is a
broadcast, of indexing is a scatter into zeros, of that scatter is indexing again. Here too is
`elementwise`, how every op of two operands broadcasts them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import allocation as limits
from .exceptions import ShapeError, TensorIndexError, TensorTypeError, TensorValueError
from .op import Op, public
from .tensor import Tensor, lift, record, type_name

RESHAPE = Op("Reshape", inputs=("a",), rules=("g, reshaped back",))


@public(method=True, builtin=True)
def reshape(a: Tensor, *shape: Any) -> Tensor:
    """The same values in a new shape; one axis may be -1, worked out from the others.

    >>> x = tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> x.reshape(2, -1)
    tensor([[1., 2., 3.],
            [4., 5., 6.]])
    """
    a = lift(a)
    new_shape = shape_of(shape)
    try:
        data = np.reshape(a.data, new_shape)
    except ValueError:
        raise ShapeError(f"cannot reshape a tensor of shape {a.shape} ({a.size} elements) into {new_shape}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (g.reshape(a.shape),)

    return record(data, RESHAPE, (a,), backward)


@public(method=True)
def flatten(a: Tensor) -> Tensor:
    """The same values along one axis.

    >>> ones(2, 3).flatten().shape
    (6,)
    """
    return reshape(a, -1)


TRANSPOSE = Op("Transpose", inputs=("a",), rules=("g, transposed back",))


def _reverse_back(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (transpose(g),)  # reversing the axes is its own inverse


@public(builtin=True)
def transpose(a: Tensor, axes: Sequence[Any] | None = None) -> Tensor:
    """The axes reversed (like x.T), or in the order `axes` gives.

    >>> transpose(ones(2, 3)).shape
    (3, 2)
    """
    a = lift(a)
    if axes is None:  # `.T`, in every matrix product's backward: no checks, no closure
        data = a.data
        return record(data.T if type(data) is np.ndarray else data, TRANSPOSE, (a,), _reverse_back)
    given = shape_of(axes if isinstance(axes, tuple | list) else (axes,))
    perm = tuple(p + a.ndim if -a.ndim <= p < 0 else p for p in given)  # -1 is the last axis
    if sorted(perm) != list(range(a.ndim)):
        raise ShapeError(f"transpose: {given} is not a permutation of the {a.ndim} axes of {a.shape}")
    inverse = tuple(int(i) for i in np.argsort(perm))

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (transpose(g, inverse),)

    return record(np.transpose(a.data, perm), TRANSPOSE, (a,), backward)


# ---- broadcasting -------------------------------------------------------------------------
def elementwise(fn: Callable[[Any, Any], Any], symbol: str, a: Tensor, b: Tensor) -> Any:
    """Apply a NumPy operator, turning a broadcasting failure into a ShapeError naming both shapes."""
    x, y = a.data, b.data
    # Only two arrays can broadcast into something larger than either; check before allocating.
    if type(x) is np.ndarray and type(y) is np.ndarray and may_be_large(x.size * y.size):
        check_broadcast(symbol, a, b)
    try:
        return fn(x, y)
    except (ValueError, TypeError) as e:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ShapeError(
                f"cannot broadcast shapes {a.shape} and {b.shape} for '{symbol}'",
                help="each dimension, counted from the right, must be equal or 1",
            ) from None
        raise TensorValueError(f"'{symbol}': {e}") from None


def may_be_large(product: int) -> bool:
    """Could two operands whose sizes multiply to `product` broadcast into a result worth checking?"""
    return product > limits.GUARD_ELEMENTS or product > limits.max_elements


def check_broadcast(symbol: str, a: Tensor, b: Tensor, itemsize: int = 8) -> None:
    """Refuse the result of broadcasting a with b if it is too large (a tensor, or the memory left)."""
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return  # the op itself reports the mismatch
    limits.check_shape(
        shape,
        f"the result of '{symbol}'",
        help=f"broadcasting {a.shape} with {b.shape} pairs every element with every other; check the shapes",
        itemsize=itemsize,
    )


BROADCAST = Op("Broadcast", inputs=("a",), rules=("g, summed back",))


@public()
def broadcast_to(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    shape = tuple(shape)
    try:
        data = np.empty(shape, dtype=np.result_type(a.data))
        data[...] = a.data  # a fresh array: about twice as fast as np.broadcast_to's view for small ones
    except ValueError:
        raise ShapeError(f"cannot broadcast shape {a.shape} to {shape}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (sum_to(g, a.shape),)

    return record(data, BROADCAST, (a,), backward)


SUM_TO = Op("SumTo", inputs=("a",), rules=("g, broadcast back",))


@public()
def sum_to(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum a broadcast result back down to `shape`: the gradient of broadcasting."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    if lead > 0 and a.shape[lead:] == shape:  # only leading axes to sum away (a bias's gradient): no reshape
        data = np.add.reduce(a.data, axis=tuple(range(lead)))
    else:
        axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
        data = np.add.reduce(a.data, axis=axes, keepdims=True).reshape(shape)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (broadcast_to(g, a.shape),)

    return record(data, SUM_TO, (a,), backward)


# ---- indexing -----------------------------------------------------------------------------
def normalize_index(index: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Turn a DG index (ints, slices, None, lists, int or bool tensors) into a NumPy index tuple."""
    if type(index) is int:  # x[i], the commonest (a row, a one-hot vector): nothing to check
        return (index,)
    parts = index if isinstance(index, tuple) else (index,)
    out: list[Any] = []
    for part in parts:
        if isinstance(part, Tensor):
            part = np.asarray(part.data)
            if part.dtype.kind == "f":
                raise TensorTypeError(
                    "tensor indices must be int or bool tensors, not float",
                    help='make integer indices with tensor(..., dtype="int") or arange(n)',
                )
            if part.ndim == 0 and part.dtype.kind in "iu":
                part = int(part)
        elif isinstance(part, list | np.ndarray):  # arrays: an index normalized once already
            part = np.asarray(part)
            if part.size and part.dtype.kind not in "iub":
                raise TensorTypeError("a list used as an index must hold ints or bools")
            part = part.astype(int) if part.size == 0 else part
        elif isinstance(part, bool) or not isinstance(part, int | slice | type(None)):
            raise TensorTypeError(f"tensor indices must be ints, slices, None, lists or tensors, not {type_name(part)}")
        if isinstance(part, np.ndarray) and part.dtype.kind == "b":
            out.extend(np.nonzero(part))  # a mask becomes the coordinates where it holds
        else:
            out.append(part)
    return tuple(out)


def _is_basic(index: tuple[Any, ...]) -> bool:
    """True when no element can be picked twice (so the scatter needs no np.add.at)."""
    return all(isinstance(p, int | slice | type(None)) for p in index)


INDEX = Op("Index", inputs=("a",), rules=("g, scattered into zeros",))


@public()
def getitem(a: Tensor, index: Any) -> Tensor:
    idx = normalize_index(index, a.shape)
    if not _is_basic(idx):  # integer arrays can pick elements many times over: check the budget first
        limits.check_count(_picked(idx, a.shape), "this index")
    try:
        data = a.data[idx]
    except IndexError as e:
        raise TensorIndexError(f"{e} (the tensor has shape {a.shape})") from None
    except (TypeError, ValueError) as e:
        raise TensorTypeError(f"invalid index: {e}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
        return (scatter_add(g, idx, a.shape),)

    return record(data, INDEX, (a,), backward)


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
    count *= int(np.prod(shape[axis:], dtype=object))
    with contextlib.suppress(ValueError):  # a mismatch: NumPy reports it
        count *= int(np.prod(np.broadcast_shapes(*arrays), dtype=object))
    return count


INDEX_ADD = Op("IndexAdd", inputs=("a",), rules=("g at the index",))


def scatter_add(g: Tensor, index: tuple[Any, ...], shape: tuple[int, ...]) -> Tensor:
    """Zeros of `shape` with `g` added at `index`: the gradient of indexing."""
    data = np.zeros(shape)
    if _is_basic(index):
        data[index] = g.data
    else:
        np.add.at(data, index, g.data)  # repeated indices must add up, not overwrite

    def backward(gg: Tensor, out: Tensor) -> tuple[Tensor]:
        return (getitem(gg, index),)

    return record(data, INDEX_ADD, (g,), backward)


# ---- joining --------------------------------------------------------------------------------
def _tensors(name: str, items: Any) -> list[Tensor]:
    if not isinstance(items, list | tuple) or not items:
        raise TensorTypeError(f"{name} needs a non-empty list of tensors, got {type_name(items)}")
    return [lift(t) for t in items]


def _axis(axis: int, ndim: int, name: str) -> int:
    if not -ndim <= axis < ndim:
        raise TensorIndexError(f"{name}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim


CONCAT = Op("Concat", inputs=("input",), rules=("g, its slice",), variadic=True)


@public(builtin=True)
def concat(items: Any, axis: int = 0) -> Tensor:
    """Join tensors along an existing axis.

    >>> concat([ones(2), zeros(3)])
    tensor([1., 1., 0., 0., 0.])
    """
    parts = _tensors("concat", items)
    limits.check_count(sum(p.size for p in parts), "concat()")
    ndim = parts[0].ndim
    if ndim == 0:
        raise ShapeError("concat needs tensors with at least one dimension", help="use stack for scalars")
    axis = _axis(axis, ndim, "concat")
    try:
        data = np.concatenate([p.data for p in parts], axis=axis)
    except ValueError:
        shapes = ", ".join(str(p.shape) for p in parts)
        raise ShapeError(f"concat along axis {axis}: shapes {shapes} must agree on every other axis") from None
    bounds = np.cumsum([0] + [p.shape[axis] for p in parts])

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor, ...]:
        lead = (slice(None),) * axis
        return tuple(
            getitem(g, (*lead, slice(int(lo), int(hi)))) if p.requires_grad else None
            for p, lo, hi in zip(parts, bounds[:-1], bounds[1:], strict=True)
        )

    return record(data, CONCAT, tuple(parts), backward)


STACK = Op("Stack", inputs=("input",), rules=("g, its slice",), variadic=True)


@public(builtin=True)
def stack(items: Any, axis: int = 0) -> Tensor:
    """Join tensors of one shape along a new axis.

    >>> stack([ones(2), zeros(2)])
    tensor([[1., 1.],
            [0., 0.]])
    """
    parts = _tensors("stack", items)
    limits.check_count(sum(p.size for p in parts), "stack()")
    axis = _axis(axis, parts[0].ndim + 1, "stack")
    try:
        data = np.stack([p.data for p in parts], axis=axis)
    except ValueError:
        shapes = ", ".join(str(p.shape) for p in parts)
        raise ShapeError(f"stack needs tensors of one shape, got {shapes}") from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor, ...]:
        lead = (slice(None),) * axis
        return tuple(getitem(g, (*lead, i)) if p.requires_grad else None for i, p in enumerate(parts))

    return record(data, STACK, tuple(parts), backward)


def shape_of(args: Sequence[Any]) -> tuple[int, ...]:
    """Read a shape given as `2, 3` or as one tuple/list `(2, 3)`."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        args = args[0]
    dims = []
    for n in args:
        if type(n) is int:  # the usual case, without the checks below (rules reshape in every backward)
            dims.append(n)
            continue
        if isinstance(n, bool) or not isinstance(n, int | Tensor | np.integer):
            raise TensorTypeError(f"a shape is made of ints, not {type_name(n)}")
        dims.append(int(n.__index__()))
    return tuple(dims)
