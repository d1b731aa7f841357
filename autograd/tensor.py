"""The Tensor (a NumPy value plus what autograd needs) and the Node that records how it was made.

Every op in this package follows one pattern, after micrograd: compute the value with NumPy,
write the derivative rule right under it as a closure, and hand both to `record` with the op's
declaration (an `ops.Op`, declared right above the op). `record` keeps the rule only when grad
mode is on and some input requires grad, so a constant or a `no_grad` block pays for nothing but
the NumPy call.

`class Tensor` lists its whole API in its own body, each method one line handing over to the
function that does the work (`ops.add`, `ops.exp`, ...: see autograd/op.py for why they are
reached through `ops`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import op as ops
from .exceptions import TensorTypeError, TensorValueError
from .op import Op

Axis = int | tuple[int, ...] | None  # the axes a reduction reduces: None means all of them

# A derivative rule: given the gradient arriving at an op's output (and the output itself),
# return one gradient per input, or None for an input that needs none.
Rule = Callable[["Tensor", "Tensor"], tuple["Tensor | None", ...]]

_grad_enabled = True
# Counts in-place updates. Each node remembers the count when it was made and each tensor the
# count of its last in-place update, so backward can tell (cheaply, and only when something was
# updated at all) whether a value a rule needs has changed since the op ran.
_inplace_updates = 0


class Recording:
    """What the engine tells whoever listens, and the provenance it stamps on each node.

    where, call   provenance, kept current by whoever runs the ops (the interpreter: the site of
                  the expression being evaluated, the DG call it runs in) and stamped on each
                  recorded node as `node.where`, `node.call`; the engine never looks inside
    listeners     objects told what happens, in the order they started listening; each may define
                  any of these methods, and only those it defines are called:
                    on_record(t)              a node was recorded (t is its output)
                    on_backward(root, seed)   a backward pass begins
                    on_visit(t, g)            the pass reached t with gradient g (leaves too)
                    on_step(t, g, sent)       t's rule ran: g arrived, `sent` went to its inputs
                    on_leaf(leaf, g, total)   g accumulated into leaf.grad, which is now `total`
    With no listener each event costs one test of an empty tuple.
    """

    EVENTS = ("on_record", "on_backward", "on_visit", "on_step", "on_leaf")
    __slots__ = ("call", "listeners", "where", *EVENTS)

    def __init__(self) -> None:
        self.where: Any = None
        self.call: Any = None
        self.listeners: tuple[Any, ...] = ()
        self._index()

    def listen(self, listener: Any) -> None:
        """Start telling `listener` what happens (after those already listening)."""
        self.listeners = (*self.listeners, listener)
        self._index()

    def stop_listening(self, listener: Any) -> None:
        self.listeners = tuple(x for x in self.listeners if x is not listener)
        self._index()

    def _index(self) -> None:
        """One tuple of bound methods per event, so the engine calls exactly the methods defined."""
        for event in self.EVENTS:
            found = (getattr(x, event, None) for x in self.listeners)
            setattr(self, event, tuple(f for f in found if f is not None))

    def save(self) -> tuple[Any, Any, tuple[Any, ...]]:
        """Provenance and listeners as they are, for `restore` (a host scopes them to one run)."""
        return self.where, self.call, self.listeners

    def restore(self, saved: tuple[Any, Any, tuple[Any, ...]]) -> None:
        self.where, self.call, self.listeners = saved
        self._index()


recording = Recording()


class Node:
    """How a tensor was made: the op (its declaration), its inputs, and the rule that sends gradients back.

    `epoch` is the in-place update count when the op ran: an input (or the output) updated in
    place after that would make the rule read the wrong values, and backward refuses.
    `where` and `call` are opaque slots for whoever builds graphs (the interpreter puts the
    source span and the DG call there, through `recording`); the engine never reads them. Two
    slots rather than one tuple: a node is made per op, and a tuple each would cost 56 bytes.
    """

    __slots__ = ("backward", "call", "epoch", "inputs", "op", "where")

    def __init__(self, op: Op, inputs: tuple[Tensor, ...], backward: Rule, epoch: int) -> None:
        self.op = op
        self.inputs = inputs
        self.backward = backward
        self.epoch = epoch
        self.where: Any = None
        self.call: Any = None

    def changed_since(self, out: Tensor) -> bool:
        """Was an input, or the output, updated in place after this op ran?"""
        if self.epoch == _inplace_updates:  # nothing at all was updated in place since: the usual case
            return False
        return out.version > self.epoch or any(t.version > self.epoch for t in self.inputs)

    def __repr__(self) -> str:
        return f"<{self.op.name}Backward>"


class Tensor:
    """An n-dimensional array of float64 (or int64 / bool) values that can record its history.

    A leaf is a tensor made directly (not by an op); if it has `requires_grad`, backward
    accumulates into its `.grad`. A tensor made by an op while recording has a `grad_fn`.
    """

    __slots__ = ("data", "grad", "grad_fn", "name", "requires_grad", "version")
    __array_ufunc__ = None  # NumPy scalars on the left defer to our operators instead of looping.

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.data = data
        self.requires_grad = requires_grad
        self.grad: Tensor | None = None
        self.grad_fn: Node | None = None
        self.version = 0  # the in-place update count at this tensor's last in-place update
        self.name: str | None = None  # the variable a program bound it to, for graph pictures

    # ---- what a tensor is ---------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        try:
            return self.data.shape
        except AttributeError:  # a constant holding a Python number
            return ()

    # These read the NumPy value's own attributes (np.ndim, np.size and np.asarray cost a
    # microsecond each, and ops ask on every call); a constant may hold a plain Python number.
    @property
    def ndim(self) -> int:
        try:
            return self.data.ndim
        except AttributeError:
            return 0

    @property
    def size(self) -> int:
        try:
            return self.data.size
        except AttributeError:
            return 1

    @property
    def dtype(self) -> str:
        try:
            kind = self.data.dtype.kind
        except AttributeError:
            kind = "b" if type(self.data) is bool else "i" if type(self.data) is int else "f"
        return "bool" if kind == "b" else "int" if kind in "iu" else "float"

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def item(self) -> float | int | bool:
        """The one number in a one-element tensor, as a plain number.

        >>> tensor([2.5]).item()
        2.5
        """
        if self.size != 1:
            raise TensorValueError(
                f"item() needs a tensor with one element, this one has shape {self.shape}",
                help="reduce it first, for example with .sum() or .mean()",
            )
        return np.asarray(self.data).reshape(()).item()

    def numpy(self) -> np.ndarray:
        return np.asarray(self.data)

    def tolist(self) -> Any:
        return np.asarray(self.data).tolist()

    def detach(self) -> Tensor:
        """The same values as a new leaf, cut off from the graph that made them.

        >>> w = tensor(1.0, requires_grad=True)
        >>> (w * 2).detach()
        tensor(2.)
        """
        return Tensor(self.data)

    # ---- what can be done with it: each line hands over to the op that does it ---------------
    # fmt: off
    # arithmetic (autograd/arithmetic.py); a plain number on either side is a constant
    def __add__(self, other: Any) -> Tensor: return ops.add(self, other)
    def __radd__(self, other: Any) -> Tensor: return ops.add(other, self)
    def __sub__(self, other: Any) -> Tensor: return ops.sub(self, other)
    def __rsub__(self, other: Any) -> Tensor: return ops.sub(other, self)
    def __mul__(self, other: Any) -> Tensor: return ops.mul(self, other)
    def __rmul__(self, other: Any) -> Tensor: return ops.mul(other, self)
    def __truediv__(self, other: Any) -> Tensor: return ops.div(self, other)
    def __rtruediv__(self, other: Any) -> Tensor: return ops.div(other, self)
    def __floordiv__(self, other: Any) -> Tensor: return ops.floordiv(self, other)
    def __rfloordiv__(self, other: Any) -> Tensor: return ops.floordiv(other, self)
    def __mod__(self, other: Any) -> Tensor: return ops.mod(self, other)
    def __rmod__(self, other: Any) -> Tensor: return ops.mod(other, self)
    def __pow__(self, other: Any) -> Tensor: return ops.pow_(self, other)
    def __rpow__(self, other: Any) -> Tensor: return ops.pow_(other, self)
    def __matmul__(self, other: Any) -> Tensor: return ops.matmul(self, other)
    def __rmatmul__(self, other: Any) -> Tensor: return ops.matmul(other, self)
    def __neg__(self) -> Tensor: return ops.neg(self)
    def __pos__(self) -> Tensor: return self
    def __abs__(self) -> Tensor: return ops.abs_(self)

    # comparisons: elementwise, giving bool tensors that are never recorded
    def __eq__(self, other: Any) -> Any: return ops.compare(operator.eq, "==", self, other)
    def __ne__(self, other: Any) -> Any: return ops.compare(operator.ne, "!=", self, other)
    def __lt__(self, other: Any) -> Any: return ops.compare(operator.lt, "<", self, other)
    def __le__(self, other: Any) -> Any: return ops.compare(operator.le, "<=", self, other)
    def __gt__(self, other: Any) -> Any: return ops.compare(operator.gt, ">", self, other)
    def __ge__(self, other: Any) -> Any: return ops.compare(operator.ge, ">=", self, other)
    __hash__ = object.__hash__  # `==` is elementwise, so identity is the only sensible hash

    # in-place updates, `w -= lr * w.grad`: in place outside recording, else a new recorded tensor
    def __iadd__(self, other: Any) -> Tensor: return ops.update_in_place(ops.add, "+", self, other)
    def __isub__(self, other: Any) -> Tensor: return ops.update_in_place(ops.sub, "-", self, other)
    def __imul__(self, other: Any) -> Tensor: return ops.update_in_place(ops.mul, "*", self, other)
    def __itruediv__(self, other: Any) -> Tensor: return ops.update_in_place(ops.div, "/", self, other)
    def __ifloordiv__(self, other: Any) -> Tensor: return ops.update_in_place(ops.floordiv, "//", self, other)
    def __imod__(self, other: Any) -> Tensor: return ops.update_in_place(ops.mod, "%", self, other)
    def __ipow__(self, other: Any) -> Tensor: return ops.update_in_place(ops.pow_, "**", self, other)
    def __imatmul__(self, other: Any) -> Tensor: return ops.update_in_place(ops.matmul, "@", self, other)

    # indexing (autograd/shaping.py); item assignment is never recorded (autograd/arithmetic.py)
    def __getitem__(self, index: Any) -> Tensor: return ops.getitem(self, index)
    def __setitem__(self, index: Any, value: Any) -> None: ops.assign_index(self, index, value)

    # reductions (autograd/reductions.py)
    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor: return ops.sum_(self, axis, keepdims)
    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor: return ops.mean(self, axis, keepdims)
    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor: return ops.max_(self, axis, keepdims)
    def min(self, axis: Axis = None, keepdims: bool = False) -> Tensor: return ops.min_(self, axis, keepdims)
    def argmax(self, axis: int | None = None) -> Tensor: return ops.argmax(self, axis)
    def argmin(self, axis: int | None = None) -> Tensor: return ops.argmin(self, axis)
    def any(self, axis: Axis = None) -> Tensor: return ops.any_(self, axis)
    def all(self, axis: Axis = None) -> Tensor: return ops.all_(self, axis)

    # elementwise functions (autograd/functions.py)
    def exp(self) -> Tensor: return ops.exp(self)
    def log(self) -> Tensor: return ops.log(self)
    def sqrt(self) -> Tensor: return ops.sqrt(self)
    def sin(self) -> Tensor: return ops.sin(self)
    def cos(self) -> Tensor: return ops.cos(self)
    def tanh(self) -> Tensor: return ops.tanh(self)
    def sigmoid(self) -> Tensor: return ops.sigmoid(self)
    def relu(self) -> Tensor: return ops.relu(self)
    def abs(self) -> Tensor: return ops.abs_(self)
    def sign(self) -> Tensor: return ops.sign(self)
    def floor(self) -> Tensor: return ops.floor(self)
    def ceil(self) -> Tensor: return ops.ceil(self)

    # along one axis, built from the functions above (autograd/composed.py)
    def softmax(self, axis: int = -1) -> Tensor: return ops.softmax(self, axis)
    def log_softmax(self, axis: int = -1) -> Tensor: return ops.log_softmax(self, axis)
    def logsumexp(self, axis: int = -1, keepdims: bool = False) -> Tensor: return ops.logsumexp(self, axis, keepdims)

    # shapes (autograd/shaping.py)
    def reshape(self, *shape: Any) -> Tensor: return ops.reshape(self, *shape)
    def flatten(self) -> Tensor: return ops.flatten(self)
    def transpose(self, *axes: Any) -> Tensor: return ops.transpose(self, axes or None)
    @property
    def T(self) -> Tensor: return ops.transpose(self)
    @property
    def mT(self) -> Tensor: return ops.transpose(self, (*range(self.ndim - 2), -1, -2))

    # gradients (autograd/backward.py)
    def backward(self, seed: Any = None, create_graph: bool = False) -> None: ops.backward(self, seed, create_graph)
    # fmt: on

    # ---- Python protocols ---------------------------------------------------------------
    def __bool__(self) -> bool:
        data = self.data
        if getattr(data, "size", 1) != 1:
            raise TensorValueError(
                f"the truth value of a tensor with {self.size} elements is ambiguous",
                help="use .any() or .all(), or reduce it to one element first",
            )
        return bool(data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype != "int" or self.shape != ():
            raise TensorTypeError(f"only a 0-d int tensor can be used as an integer, not {self.describe()}")
        return int(self.data)

    def __len__(self) -> int:
        if not self.shape:
            raise TensorTypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        # Iterating walks the first axis with recorded indexing, so each row stays differentiable.
        for i in range(len(self)):
            yield self[i]

    def describe(self) -> str:
        """A short phrase for error messages: `float tensor of shape (2, 3)`."""
        return f"{self.dtype} tensor of shape {self.shape}"

    def __repr__(self) -> str:
        body = format_values(np.asarray(self.data))
        if self.grad_fn is not None:
            return f"tensor({body}, grad_fn=<{self.grad_fn.op.name}Backward>)"
        if self.requires_grad:
            return f"tensor({body}, requires_grad=True)"
        return f"tensor({body})"


def format_values(values: np.ndarray) -> str:
    """The values as PyTorch prints them: `[ 2., -2.,  4.]`, or 4 decimals once any is fractional."""
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    whole = values.dtype.kind != "f" or bool(np.all(finite == np.round(finite)))
    return np.array2string(
        values,
        separator=", ",
        prefix="tensor(",
        precision=4,
        floatmode="maxprec" if whole else "fixed",
        max_line_width=80,
    )


# ---- grad mode ----------------------------------------------------------------------------
def is_grad_enabled() -> bool:
    return _grad_enabled


def set_grad_enabled(enabled: bool) -> bool:
    """Turn recording on or off; returns the previous setting."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, bool(enabled)
    return previous


class no_grad:
    """Inside this block nothing is recorded: results have no grad_fn and leaves update in place."""

    def __enter__(self) -> None:
        self._previous = set_grad_enabled(False)

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self._previous)


class enable_grad:
    """Recording on again inside a `no_grad` block (used to build gradients of gradients)."""

    def __enter__(self) -> None:
        self._previous = set_grad_enabled(True)

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self._previous)


# ---- recording ----------------------------------------------------------------------------
def record(data: Any, op: Op, inputs: tuple[Tensor, ...], backward: Rule) -> Tensor:
    """Wrap an op's result; keep its rule only if grad mode is on and an input requires grad."""
    out = Tensor(data)
    if _grad_enabled:
        for t in inputs:
            if t.requires_grad:
                out.requires_grad = True
                out.grad_fn = node = Node(op, inputs, backward, _inplace_updates)
                if recording.where is not None:
                    node.where, node.call = recording.where, recording.call
                if recording.on_record:
                    for listener in recording.on_record:
                        listener(out)
                break
    return out


def updates_in_place() -> int:
    """How many in-place updates there have been so far (see Node.changed_since)."""
    return _inplace_updates


def updated_in_place(t: Tensor) -> None:
    """Note that `t`'s values were just replaced in place (see Node.changed_since)."""
    global _inplace_updates
    _inplace_updates += 1
    t.version = _inplace_updates


def lift(x: Any) -> Tensor:
    """Make an operand a Tensor; a plain number becomes a constant that never requires grad."""
    if type(x) is Tensor:
        return x
    if type(x) in (float, int, bool) or isinstance(x, np.generic | np.ndarray):
        return Tensor(x)
    raise TensorTypeError(f"expected a tensor or a number, got {type_name(x)}")


def type_name(x: Any) -> str:
    """The name a user knows a value's type by."""
    if isinstance(x, Tensor):
        return "tensor"
    if x is None:
        return "None"
    name = type(x).__name__
    return getattr(type(x), "dg_type_name", name)
