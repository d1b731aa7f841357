"""The Tensor (a NumPy value plus what autograd needs), and `run_op`, which runs an op on tensors.

`class Tensor` lists its whole API in its own body, each method one line handing its op to
`run_op` (or `unary`, `binary`: the same for one input, or two; tools/regenerate.py writes the line
of a new op declared a method). The ops are declared in the op modules imported below, each
with its forward on NumPy values and its derivative rule (see op.py). Applying an op runs
its forward on the inputs' values and wraps the result; when grad mode is on and an input
requires grad, it also records a Node (node.py) holding the op and its arguments, which
backward.py hands to the op's rule. A constant, or a `no_grad` block, pays for nothing but
the NumPy call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import (
    arithmetic,
    arranging,
    composed,
    contraction,
    convolution,
    cumulative,
    functions,
    inplace,
    piecewise,
    pooling,
    probabilities,
    reductions,
    shaping,
    trigonometry,
)
from . import node as graph
from .backward import backward as backpropagate
from .exceptions import TensorTypeError, TensorValueError, type_name
from .node import Node, enable_grad, is_grad_enabled, no_grad, recording, set_grad_enabled, updated_in_place
from .op import Op
from .printing import format_values
from .reductions import Axis

__all__ = [
    "Node", "Tensor", "binary", "enable_grad", "is_grad_enabled", "lift", "no_grad", "recording",
    "set_grad_enabled", "type_name", "unary", "updated_in_place",
]  # fmt: skip


class Tensor:
    """An n-dimensional array of float64 (or int64 / bool) values that can record its history.

    A leaf is a tensor made directly (not by an op); if it has `requires_grad`, backward
    accumulates into its `.grad`. A tensor made by an op while recording has a `grad_fn`.
    """

    __slots__ = ("data", "grad", "grad_fn", "name", "requires_grad", "version")
    __array_ufunc__ = None  # NumPy scalars on the left defer to our operators instead of looping.
    dg_type_name = "tensor"  # what messages call it (exceptions.type_name)

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.data = data
        self.requires_grad = requires_grad
        self.grad: Tensor | None = None
        self.grad_fn: Node | None = None
        self.version = 0  # the in-place update count at this tensor's last in-place update
        self.name: str | None = None  # the variable a program bound it to, for graph pictures

    # ---- what a tensor is ---------------------------------------------------------------
    # These read the NumPy value's own attributes (np.ndim, np.size and np.asarray cost a
    # microsecond each, and ops ask on every call); a constant may hold a plain Python number.
    @property
    def shape(self) -> tuple[int, ...]:
        try:
            return self.data.shape
        except AttributeError:  # a constant holding a Python number
            return ()

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
        return graph.told(self, np.asarray(self.data).reshape(()).item())

    def detach(self) -> Tensor:
        """The same values as a new leaf, cut off from the graph that made them.

        >>> w = tensor(1.0, requires_grad=True)
        >>> (w * 2).detach()
        tensor(2.)
        """
        return Tensor(self.data)

    # fmt: off
    @property
    def is_leaf(self) -> bool: return self.grad_fn is None
    def numpy(self) -> np.ndarray: return np.asarray(self.data)
    def tolist(self) -> Any: return graph.told(self, np.asarray(self.data).tolist())

    # ---- what can be done with it: each line hands its op to run_op -----------------------------
    # arithmetic (autograd/arithmetic.py); a plain number on either side is a constant
    def __add__(self, other: Any) -> Tensor: return binary(arithmetic.Add, self, other)
    def __radd__(self, other: Any) -> Tensor: return binary(arithmetic.Add, other, self)
    def __sub__(self, other: Any) -> Tensor: return binary(arithmetic.Sub, self, other)
    def __rsub__(self, other: Any) -> Tensor: return binary(arithmetic.Sub, other, self)
    def __mul__(self, other: Any) -> Tensor: return binary(arithmetic.Mul, self, other)
    def __rmul__(self, other: Any) -> Tensor: return binary(arithmetic.Mul, other, self)
    def __truediv__(self, other: Any) -> Tensor: return binary(arithmetic.Div, self, other)
    def __rtruediv__(self, other: Any) -> Tensor: return binary(arithmetic.Div, other, self)
    def __floordiv__(self, other: Any) -> Tensor: return binary(arithmetic.FloorDiv, self, other)
    def __rfloordiv__(self, other: Any) -> Tensor: return binary(arithmetic.FloorDiv, other, self)
    def __mod__(self, other: Any) -> Tensor: return binary(arithmetic.Mod, self, other)
    def __rmod__(self, other: Any) -> Tensor: return binary(arithmetic.Mod, other, self)
    def __pow__(self, other: Any) -> Tensor: return binary(arithmetic.Pow, self, other)
    def pow(self, exponent: Any) -> Tensor: return binary(arithmetic.Pow, self, exponent)
    def __rpow__(self, other: Any) -> Tensor: return binary(arithmetic.Pow, other, self)
    def __matmul__(self, other: Any) -> Tensor: return binary(arithmetic.MatMul, self, other)
    def __rmatmul__(self, other: Any) -> Tensor: return binary(arithmetic.MatMul, other, self)
    def __neg__(self) -> Tensor: return unary(arithmetic.Neg, self)
    def __pos__(self) -> Tensor: return self
    def __abs__(self) -> Tensor: return unary(functions.Abs, self)

    # comparisons: elementwise, giving bool tensors that are never recorded
    def __eq__(self, other: Any) -> Any: return compare(operator.eq, "==", self, other)
    def __ne__(self, other: Any) -> Any: return compare(operator.ne, "!=", self, other)
    def __lt__(self, other: Any) -> Any: return compare(operator.lt, "<", self, other)
    def __le__(self, other: Any) -> Any: return compare(operator.le, "<=", self, other)
    def __gt__(self, other: Any) -> Any: return compare(operator.gt, ">", self, other)
    def __ge__(self, other: Any) -> Any: return compare(operator.ge, ">=", self, other)
    __hash__ = object.__hash__  # `==` is elementwise, so identity is the only sensible hash

    # in-place updates, `w -= lr * w.grad`: in place outside recording, else a new recorded tensor (autograd/inplace.py)
    def __iadd__(self, other: Any) -> Tensor: return inplace.update(operator.add, "+", self, other)
    def __isub__(self, other: Any) -> Tensor: return inplace.update(operator.sub, "-", self, other)
    def __imul__(self, other: Any) -> Tensor: return inplace.update(operator.mul, "*", self, other)
    def __itruediv__(self, other: Any) -> Tensor: return inplace.update(operator.truediv, "/", self, other)
    def __ifloordiv__(self, other: Any) -> Tensor: return inplace.update(operator.floordiv, "//", self, other)
    def __imod__(self, other: Any) -> Tensor: return inplace.update(operator.mod, "%", self, other)
    def __ipow__(self, other: Any) -> Tensor: return inplace.update(operator.pow, "**", self, other)
    def __imatmul__(self, other: Any) -> Tensor: return inplace.update(operator.matmul, "@", self, other)

    # indexing (autograd/shaping.py); item assignment is never recorded (autograd/inplace.py)
    def __getitem__(self, index: Any) -> Tensor: return unary(shaping.Index, self, index)
    def __setitem__(self, index: Any, value: Any) -> None: inplace.assign(self, index, lift(value))

    # reductions (autograd/reductions.py)
    def sum(self, axis: Axis = None, keepdims=False) -> Tensor: return unary(reductions.Sum, self, axis, keepdims)
    def mean(self, axis: Axis = None, keepdims=False) -> Tensor: return unary(reductions.Mean, self, axis, keepdims)
    def max(self, axis: Axis = None, keepdims=False) -> Tensor: return unary(reductions.Max, self, axis, keepdims)
    def min(self, axis: Axis = None, keepdims=False) -> Tensor: return unary(reductions.Min, self, axis, keepdims)
    def argmax(self, axis: int | None = None) -> Tensor: return unary(reductions.ArgMax, self, axis)
    def argmin(self, axis: int | None = None) -> Tensor: return unary(reductions.ArgMin, self, axis)
    def prod(self, axis: Axis = None, keepdims=False) -> Tensor: return unary(reductions.Prod, self, axis, keepdims)
    def any(self, axis: Axis = None) -> Tensor: return unary(reductions.AnyTrue, self, axis)
    def all(self, axis: Axis = None) -> Tensor: return unary(reductions.AllTrue, self, axis)

    # elementwise functions (autograd/functions.py)
    def exp(self) -> Tensor: return unary(functions.Exp, self)
    def log(self) -> Tensor: return unary(functions.Log, self)
    def sqrt(self) -> Tensor: return unary(functions.Sqrt, self)
    def tanh(self) -> Tensor: return unary(functions.Tanh, self)
    def sigmoid(self) -> Tensor: return unary(functions.Sigmoid, self)
    def relu(self) -> Tensor: return unary(functions.Relu, self)
    def abs(self) -> Tensor: return unary(functions.Abs, self)
    def sign(self) -> Tensor: return unary(piecewise.Sign, self)
    def floor(self) -> Tensor: return unary(piecewise.Floor, self)
    def ceil(self) -> Tensor: return unary(piecewise.Ceil, self)
    def maximum(self, other: Any) -> Tensor: return binary(functions.Maximum, self, other)
    def minimum(self, other: Any) -> Tensor: return binary(functions.Minimum, self, other)
    def where(self, condition: Any, other: Any) -> Tensor: return run_op(functions.Where, condition, self, other)
    def clamp(self, min: Any = None, max: Any = None) -> Tensor: return run_op(functions.Clamp, self, min, max)
    def erf(self) -> Tensor: return unary(functions.Erf, self)

    # along one axis: softmax and log_softmax (probabilities.py), logsumexp built from other ops (composed.py)
    def softmax(self, axis: int = -1) -> Tensor: return unary(probabilities.Softmax, self, axis)
    def log_softmax(self, axis: int = -1) -> Tensor: return unary(probabilities.LogSoftmax, self, axis)
    def logsumexp(self, axis=-1, keepdims=False) -> Tensor: return composed.LogSumExp.forward(self, axis, keepdims)

    # shapes (autograd/shaping.py)
    def reshape(self, *shape: Any) -> Tensor: return unary(shaping.Reshape, self, *shape)
    def flatten(self) -> Tensor: return composed.Flatten.forward(self)
    def squeeze(self, axis: Any = None) -> Tensor: return composed.Squeeze.forward(self, axis)
    def unsqueeze(self, axis: int) -> Tensor: return composed.Unsqueeze.forward(self, axis)
    def permute(self, *axes: Any) -> Tensor: return composed.Permute.forward(self, *axes)
    def transpose(self, *axes: Any) -> Tensor: return unary(shaping.Transpose, self, axes or None)
    @property
    def T(self) -> Tensor: return unary(shaping.Transpose, self)
    @property
    def mT(self) -> Tensor: return unary(shaping.Transpose, self, (*range(self.ndim - 2), -1, -2))
    def gather(self, axis: int, index: Any) -> Tensor: return run_op(arranging.Gather, self, axis, index)
    def tril(self, diagonal: int = 0) -> Tensor: return unary(arranging.Tril, self, diagonal)
    def triu(self, diagonal: int = 0) -> Tensor: return unary(arranging.Triu, self, diagonal)
    def flip(self, axes: Any) -> Tensor: return unary(arranging.Flip, self, axes)
    def tile(self, *reps: Any) -> Tensor: return unary(arranging.Tile, self, *reps)
    def repeat(self, *reps: Any) -> Tensor: return unary(arranging.Repeat, self, *reps)
    def einsum(self, equation: str, *more: Any) -> Tensor: return run_op(contraction.Einsum, [self, *more], equation)
    def broadcast_to(self, shape: Any) -> Tensor: return unary(shaping.Broadcast, self, tuple(shape))
    def sum_to(self, shape: Any) -> Tensor: return self if self.shape == shape else unary(shaping.SumTo, self, shape)
    def index_add(self, index: Any, shape: Any) -> Tensor: return unary(shaping.IndexAdd, self, index, tuple(shape))

    # the ops convolution, pooling and cummax are made of, and their rules (autograd/convolution.py, pooling.py,
    # cumulative.py); `at` is the geometry conv2d or max_pool2d checked
    def im2col(self, at: Any) -> Tensor: return unary(convolution.Im2col, self, at)
    def col2im(self, at: Any) -> Tensor: return unary(convolution.Col2im, self, at)
    def convolve(self, w: Any, b: Any, at: Any) -> Tensor: return run_op(convolution.Convolve, self, w, b, at)
    def conv_transpose(self, w: Any, at: Any) -> Tensor: return run_op(convolution.ConvTranspose, self, w, at)
    def conv_weight(self, grad: Any, at: Any) -> Tensor: return run_op(convolution.ConvWeight, self, grad, at)
    def window_largest(self, at: Any) -> Tensor: return unary(pooling.WindowLargest, self, at)
    def take(self, positions: Any) -> Tensor: return run_op(pooling.Take, self, positions)
    def put(self, positions: Any, shape: Any) -> Tensor: return run_op(pooling.Put, self, positions, tuple(shape))
    def window_mean(self, at: Any) -> Tensor: return unary(pooling.WindowMean, self, at)
    def window_spread(self, at: Any) -> Tensor: return unary(pooling.WindowSpread, self, at)
    def running_winner(self, axis: int, largest: bool) -> Tensor: return unary(cumulative.RunningWinner, self, axis, largest)  # noqa: E501

    # gradients (autograd/backward.py)
    def backward(self, seed: Any = None, create_graph: bool = False) -> None: backpropagate(self, seed, create_graph)

    # begin written: methods (of the ops declared a method that no line above spells, by tools/regenerate.py)
    def sin(self) -> Tensor: return unary(trigonometry.Sin, self)
    def cos(self) -> Tensor: return unary(trigonometry.Cos, self)
    def asin(self) -> Tensor: return unary(trigonometry.Asin, self)
    def acos(self) -> Tensor: return unary(trigonometry.Acos, self)
    def atan(self) -> Tensor: return unary(trigonometry.Atan, self)
    def roll(self, shifts: Any, axes: Any = None) -> Tensor: return unary(arranging.Roll, self, shifts, axes)
    def repeat_interleave(self, repeats: Any, axis: Any = None, output_size: Any = None) -> Tensor: return arranging.RepeatInterleave.forward(self, repeats, axis, output_size)  # noqa: E501
    def unfold(self, axis: Any, size: Any, step: Any) -> Tensor: return arranging.Unfold.forward(self, axis, size, step)
    def cumsum(self, axis: Any) -> Tensor: return unary(cumulative.Cumsum, self, axis)
    def cumprod(self, axis: Any) -> Tensor: return unary(cumulative.Cumprod, self, axis)
    def logcumsumexp(self, axis: Any) -> Tensor: return unary(cumulative.Logcumsumexp, self, axis)
    def cummax(self, axis: Any) -> Tensor: return cumulative.Cummax.forward(self, axis)
    def cummin(self, axis: Any) -> Tensor: return cumulative.Cummin.forward(self, axis)
    # end written: methods
    # fmt: on

    # ---- Python protocols ---------------------------------------------------------------
    def __bool__(self) -> bool:
        data = self.data
        if getattr(data, "size", 1) != 1:
            raise TensorValueError(
                f"the truth value of a tensor with {self.size} elements is ambiguous",
                help="use .any() or .all(), or reduce it to one element first",
            )
        return graph.told(self, bool(data)) if recording.on_value else bool(data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype != "int" or self.shape != ():
            raise TensorTypeError(f"only a 0-d int tensor can be used as an integer, not {self.describe()}")
        return graph.told(self, int(self.data))

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
            text = f"tensor({body}, grad_fn=<{self.grad_fn.op.name}Backward>)"
        elif self.requires_grad:
            text = f"tensor({body}, requires_grad=True)"
        else:
            text = f"tensor({body})"
        return graph.told(self, text) if recording.on_value else text  # (its values, as text: a tracer refuses)


# ---- applying an op ---------------------------------------------------------------------------
# `unary` and `binary` are `run_op` for one input (forward's first parameter, then the op's other
# arguments) and for two (forward's only parameters): each op of a step passes through one of
# them, so they skip what the general case has to work out.
def unary(op: type[Op], a: Any, *params: Any) -> Tensor:
    """`op` on one tensor `a` and the op's other arguments (a plain number is a constant)."""
    if type(a) is not Tensor:
        a = lift(a)
    # (a call without `*` runs without a C frame of its own: most ops have no other argument)
    out = Tensor(op.forward(a.data, *params) if params else op.forward(a.data))
    if graph._grad_enabled and a.requires_grad and op.records:
        inputs = (a,)  # (what _record does, written out: this runs for most ops of every step)
        out.requires_grad = True
        out.grad_fn = node = Node(op, inputs, (a, *params) if params else inputs, graph._inplace_updates)
        if recording.where is not None:
            node.where, node.call = recording.where, recording.call
        if recording.on_record:
            _tell(out)
    return graph.tell_op(op, (a, *params), out) if recording.on_op else out


def binary(op: type[Op], a: Any, b: Any) -> Tensor:
    """`op` on two tensors (a plain number is a constant: a tensor only for a node or a listener,
    so `lr * g` under no_grad makes none)."""
    out = Tensor(op.forward(a.data if type(a) is Tensor else value(a), b.data if type(b) is Tensor else value(b)))
    if not (graph._grad_enabled or recording.on_op):
        return out
    a, b = a if type(a) is Tensor else lift(a), b if type(b) is Tensor else lift(b)
    if graph._grad_enabled and (a.requires_grad or b.requires_grad) and op.records:
        inputs = (a, b)
        out.requires_grad = True
        out.grad_fn = node = Node(op, inputs, inputs, graph._inplace_updates)
        if recording.where is not None:
            node.where, node.call = recording.where, recording.call
        if recording.on_record:
            _tell(out)
    return graph.tell_op(op, (a, b), out) if recording.on_op else out


def run_op(op: type[Op], *args: Any, **kwargs: Any) -> Any:
    """`op` on its arguments as its forward takes them, keywords too (`where(c, a, b)`, `sum(x,
    axis=0)`): its inputs become tensors (a variadic op's one input is a list of them), and any
    other argument that is a tensor gives its values. A composed function gets the tensors."""
    if kwargs:
        args = op.bind(args, kwargs)
    values = []  # what forward receives: NumPy values in place of tensors
    rule = []  # what the rule receives: the inputs as tensors, the other arguments as forward got them
    inputs: list[Tensor] = []
    for i, value in enumerate(args):
        if i not in op.places or value is None:  # (an optional input left out, conv2d's bias: no input)
            if type(value) is Tensor and not op.composed:  # where's condition: its values
                value = value.data
            values.append(value)
            rule.append(value)
        elif op.variadic:
            if not isinstance(value, (list, tuple)) or not value:
                raise TensorTypeError(f"{op.function} needs a non-empty list of tensors, got {type_name(value)}")
            items = tuple(map(lift, value))
            inputs.extend(items)
            values.append([t.data for t in items])
            rule.append(items)
        else:
            t = value if type(value) is Tensor else lift(value)
            inputs.append(t)
            values.append(t if op.composed else t.data)
            rule.append(t)
    if op.composed:
        return op.forward(*values)
    out = Tensor(op.forward(*values))
    if graph._grad_enabled and op.records:
        for t in inputs:
            if t.requires_grad:
                _record(out, op, tuple(inputs), tuple(rule))
                break
    return graph.tell_op(op, args, out) if recording.on_op else out


def _record(out: Tensor, op: type[Op], inputs: tuple[Tensor, ...], args: tuple[Any, ...]) -> None:
    """Make `out` the result of a recorded node."""
    out.requires_grad = True
    out.grad_fn = node = Node(op, inputs, args, graph._inplace_updates)
    if recording.where is not None:
        node.where, node.call = recording.where, recording.call
    if recording.on_record:
        _tell(out)


def _tell(out: Tensor) -> None:
    for listener in recording.on_record:
        listener(out)


def lift(x: Any) -> Tensor:
    """Make an operand a Tensor; a plain number becomes a constant that never requires grad."""
    return x if type(x) is Tensor else Tensor(value(x))


def value(x: Any) -> Any:
    """What a constant made from `x` holds: `x` itself, if it is a number or a NumPy value."""
    if type(x) in (float, int, bool) or isinstance(x, (np.generic, np.ndarray)):
        return x
    raise TensorTypeError(f"expected a tensor or a number, got {type_name(x)}")


# ---- comparing: a tensor's own protocol ------------------------------------------------------
def compare(fn: Callable[[Any, Any], Any], symbol: str, a: Tensor, b: Any) -> Any:
    """`a < b` and the like, with `fn` Python's operator for `symbol`: a bool tensor, never recorded."""
    if type(b) is Tensor:
        other = b.data
    elif isinstance(b, (int, float, np.generic, np.ndarray)):  # bool is an int
        other = b
    else:
        return NotImplemented  # `x == None` falls back to identity, as in Python
    data = a.data
    numbers = type(data) is not np.ndarray and type(other) is not np.ndarray  # two numbers: nothing to check
    out = Tensor(fn(data, other) if numbers else arithmetic.Compare.forward(data, other, fn, symbol))
    return graph.tell_op(arithmetic.Compare, (a, b, fn, symbol), out) if recording.on_op else out
