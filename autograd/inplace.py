"""Changing a tensor's values in place: `w -= lr * w.grad` and `t[i] = v`, neither ever recorded.

Outside recording (inside `no_grad`, or on tensors nothing requires grad of) the tensor gets a
new array, so anything that shared the old one keeps its values (an optimiser's step, whose arrays
nothing else holds, updates them where they are: see `update`); node.py counts each such update,
so that backward refuses a rule whose inputs changed after the op ran. While recording, `+=` on
a tensor that is part of a graph is the out-of-place op, and rebinds the name to its result.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import hooks
from . import node as graph
from .exceptions import GradError, ShapeError, TensorTypeError
from .node import Tensor, recording, updated_in_place
from .shaping import normalize_index

# The updates of an optimiser step (`w -= lr * w.grad`), as the one NumPy call each op's forward
# makes for two float arrays of one shape: see `update`.
UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.divide}
FLOAT64 = np.dtype(np.float64)  # (NumPy's one float64 dtype: `is` where `==` converts np.float64 at each call)
HELD_HERE = 4  # references to a tensor's array in `shared`: the tensor's, update's `data`, shared's, getrefcount's


def update(op: Callable[[Any, Any], Tensor], symbol: str, t: Tensor, other: Any) -> Tensor:
    """`t op= other` (`op` is operator.add for `+=`): t's values replaced outside recording, else
    a new recorded tensor."""
    other_requires = getattr(other, "requires_grad", False) is True
    if graph._grad_enabled and (t.requires_grad or other_requires):
        if t.requires_grad and t.grad_fn is None:
            raise GradError(
                f"in-place '{symbol}=' on a leaf tensor that requires grad",
                help="update parameters inside `with no_grad:`",
            )
        return op(t, other)  # recorded, out of place: the name is rebound to a new node
    data, ufunc = t.data, UFUNCS.get(op)
    if ufunc is not None and type(data) is np.ndarray and data.dtype is FLOAT64 and not recording.on_op:
        # A float array updated by a number or an array of its own shape: the values `op(t, other)`
        # gives, from the same ufunc, without a tensor for the result or checks whose answer is
        # known, and without a new array when no other object holds this one (nobody could see the
        # old values). A tracer listening to ops sees the op itself: it follows each update by its result.
        value = other if type(other) in (float, int) else getattr(other, "data", None)
        if type(value) in (float, int) or (
            type(value) is np.ndarray and value.dtype is FLOAT64 and value.shape == data.shape
        ):
            if shared(data):
                hooks.allocating(data.size, f"the result of '{symbol}'", shape=data.shape)
                t.data = ufunc(data, value)
            else:  # nothing else holds the array (no view of it, no detached copy): nothing to keep
                ufunc(data, value, out=data)
            updated_in_place(t)
            return t
    result = op(t, other)
    if result.shape != t.shape:
        raise ShapeError(f"in-place '{symbol}=' would change shape {t.shape} to {result.shape}")
    if t.dtype != "float" and result.dtype != t.dtype:
        raise TensorTypeError(f"in-place '{symbol}=' would turn an {t.dtype} tensor into a float one")
    t.data = result.data  # a new array: anything that shared the old one keeps its values
    updated_in_place(t)
    return t


def shared(data: np.ndarray) -> bool:
    """Would writing into `data` show elsewhere: does another object hold it (a detached copy, a
    list of the call's values), or is it a view of an array something else holds (a reshape)?"""
    return sys.getrefcount(data) > HELD_HERE or data.base is not None


def assign(t: Tensor, index: Any, value: Tensor) -> None:
    """`t[index] = value`: copies the array first, so no earlier result sees the change."""
    if graph._grad_enabled and t.requires_grad:
        raise GradError(
            "item assignment into a tensor that requires grad is not recorded",
            help="build a new tensor instead (where, concat, stack), or assign inside `with no_grad:`",
        )
    if graph._grad_enabled and value.requires_grad:
        raise GradError(
            "the value assigned requires grad, but item assignment is not recorded",
            help="build the tensor with stack or concat so the gradient can flow, or assign value.detach()",
        )
    hooks.allocating(t.size, "a copy for item assignment")
    data = np.array(t.data, copy=True)
    try:
        data[normalize_index(index, t.shape)] = value.data
    except ValueError as e:
        raise ShapeError(f"cannot assign a value of shape {value.shape} here: {e}") from None
    t.data = data
    updated_in_place(t)
