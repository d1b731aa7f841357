"""Arithmetic: + - * / // % ** @ and comparisons, each op's forward with its rule under it.

Each rule receives `g` (the gradient arriving at the output), `out` (the output itself) and the
op's inputs, and returns one gradient per input (None for one that needs none). Rules use the
engine's own ops, so with recording on (a gradient of a gradient) they build a graph of their
own. Broadcasting is undone centrally in backward, so a rule may return a gradient of the
output's shape.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import hooks, threads
from .exceptions import ShapeError, TensorTypeError, TensorZeroDivisionError
from .op import Op
from .shaping import broadcasting


class Add(Op):
    """a + b, element by element (their shapes broadcast).

    >>> tensor([1.0, 2.0]) + 10
    tensor([11., 12.])
    """

    inputs = ("a", "b")
    rules = ("g", "g")

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(operator.add, "+", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        return g, g


class Sub(Op):
    """a - b, element by element (their shapes broadcast).

    >>> tensor([1.0, 2.0]) - tensor([[1.0], [2.0]])
    tensor([[ 0.,  1.],
            [-1.,  0.]])
    """

    inputs = ("a", "b")
    rules = ("g", "-g")

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(operator.sub, "-", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        return g, (-g if b.requires_grad else None)


class Mul(Op):
    """a * b, element by element (their shapes broadcast); @ is the matrix product.

    >>> tensor([1.0, 2.0]) * tensor([3.0, 4.0])
    tensor([3., 8.])
    """

    inputs = ("a", "b")
    rules = ("g·b", "g·a")
    nan = "a product with an inf or nan value in the forward pass"

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(operator.mul, "*", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)


class Div(Op):
    """a / b, element by element (their shapes broadcast); dividing by 0 gives inf or nan.

    >>> tensor([1.0, 2.0]) / tensor([4.0, 0.0])
    tensor([0.2500,    inf])
    """

    inputs = ("a", "b")
    rules = ("g/b", "-g·a/b²")
    nan = "a division by a value at or near 0"

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(operator.truediv, "/", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        return (g / b if a.requires_grad else None), (-g * out / b if b.requires_grad else None)


class Neg(Op):
    """-a, element by element."""

    rules = ("-g",)

    @staticmethod
    def forward(a: Any) -> Any:
        if type(a) is np.ndarray and a.size >= hooks.watch:
            hooks.installed.allocating(a.size, 8, "the result of '-'", a.shape)
        return -a

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (-g,)


class Pow(Op):
    """a ** b: a to the power b, element by element (their shapes broadcast).

    >>> tensor([2.0, 3.0]) ** 2
    tensor([4., 9.])
    """

    inputs = ("a", "b")
    rules = ("g·b·a^(b-1)", "g·a^b·ln a")
    note = "as PyTorch: 0 to `a` where `a = 0` and `b = 0`; 0 to `b` where `a = 0` and `b ≥ 0`, nan where `a < 0`"
    nan = "x ** p with p < 1 at x = 0, or a power of a value <= 0"
    function = "pow"
    method = True  # x.pow(2), as PyTorch writes it

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(operator.pow, "**", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        # As PyTorch: at a = 0 the formulas meet 0 * inf. d(a**0)/da is 0 there (the formula says
        # 0 * 0**-1, nan), and d(a**b)/db is 0 for b >= 0 (0**b * log 0, nan or -inf). Only those
        # entries are replaced, so that derivatives of these gradients stay right elsewhere (a
        # mask at every b = 0 would cut d²/da db there). A negative a gives log(a) = nan, as in
        # PyTorch. Without a 0 in a, nothing is masked and the rules are the plain formulas.
        ga = gb = None
        if a.requires_grad:
            ga = g * b * a ** (b - 1)
            if np.any(b.data == 0) and np.any(a.data == 0):  # (b first: most often one number, `x ** 2`)
                ga = ga.where(~np.logical_and(a.data == 0, b.data == 0), 0.0)
        if b.requires_grad:
            gb = g * out * a.log()
            if np.any(a.data == 0):
                gb = gb.where(~np.logical_and(a.data == 0, b.data >= 0), 0.0)
        return ga, gb


def _divisible(result: Any, a: Any, b: Any, symbol: str) -> Any:
    """`result` (of a // b or a % b), unless, as in PyTorch, it divided an integer by 0 (a float
    gives inf or nan, an int has neither: NumPy's 0 would pass silently) or divided bools."""
    kind = np.result_type(a, b).kind
    if kind == "b":
        raise TensorTypeError(
            f"'{symbol}' of two bool tensors", help='make one of them numbers: tensor(x, dtype="int")'
        )
    if kind in "iu" and not np.all(b):
        raise TensorZeroDivisionError(
            f"'{symbol}' of int tensors by 0: an int has no inf or nan to give",
            help="check the divisor; a float (1.0 * x) divided by 0 gives inf or nan, as in PyTorch",
        )
    return result


class FloorDiv(Op):
    """a // b: the quotient rounded down; piecewise constant, so the result records nothing.

    >>> tensor([7.0, -7.0]) // 2
    tensor([ 3., -4.])
    """

    inputs = ("a", "b")

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return _divisible(broadcasting(operator.floordiv, "//", a, b), a, b, "//")


class Mod(Op):
    """a % b: the remainder of a // b, with the sign of b.

    >>> tensor([7.0, -7.0]) % 3
    tensor([1., 2.])
    """

    inputs = ("a", "b")
    rules = ("g", "-g·floor(a/b)")

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return _divisible(broadcasting(operator.mod, "%", a, b), a, b, "%")

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        # a % b = a - floor(a / b) * b, and floor is flat almost everywhere.
        return (g if a.requires_grad else None), (-g * (a // b) if b.requires_grad else None)


class Compare(Op):
    """`a < b` and the like, with `fn` Python's operator for `symbol`: a bool tensor, never recorded."""

    inputs = ("a", "b")

    @staticmethod
    def forward(a: Any, b: Any, fn: Callable[[Any, Any], Any], symbol: str) -> Any:
        return broadcasting(fn, symbol, a, b, itemsize=1)  # a row against a column: a bool per pair


# ---- matrix product ------------------------------------------------------------------------
class MatMul(Op):
    """The matrix product a @ b: (m, n) @ (n, k) is (m, k); a vector is a row on the left and a column on the right.

    >>> tensor([[1.0, 2.0], [3.0, 4.0]]) @ tensor([1.0, 1.0])
    tensor([3., 7.])
    """

    inputs = ("a", "b")
    rules = ("g @ bᵀ", "aᵀ @ g")
    note = "vectors treated as a row on the left, a column on the right"
    builtin = True

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        a_ndim, b_ndim = getattr(a, "ndim", 0), getattr(b, "ndim", 0)
        if a_ndim == 0 or b_ndim == 0:
            raise ShapeError(
                f"matmul: {np.shape(a)} @ {np.shape(b)}: both sides need at least one dimension",
                help="use '*' to multiply by a scalar",
            )
        try:
            if a_ndim <= 2 and b_ndim <= 2:  # no batch: the result's size in a moment (an empty inner
                # dimension makes a full result of zeros from empty operands: the size is the result's)
                rows, columns = (a.shape[0] if a_ndim == 2 else 1), (b.shape[1] if b_ndim == 2 else 1)
                work = rows * columns * a.shape[-1]  # multiply-adds
                if rows * columns < hooks.watch and work < hooks.long_product:  # nothing to ask (most products)
                    if work >= threads.MULTITHREADED:
                        threads.before_product(a, b, rows, columns, work)
                    return np.matmul(a, b)
            if a.shape[-1] != b.shape[-2 if b_ndim > 1 else 0]:
                raise ValueError("the inner dimensions differ")
            if a_ndim > 2 and b_ndim == 2:  # a stack times one matrix: one product of all the stack's rows
                return MatMul.forward(stacked(a), b).reshape((*a.shape[:-1], b.shape[1]))
            result = _product_shape(a.shape, b.shape)
            count = math.prod(result)
            if count >= hooks.watch:
                hooks.installed.allocating(count, 8, "the result of '@'", result)
            rows, columns = (a.shape[-2] if a_ndim > 1 else 1), (b.shape[-1] if b_ndim > 1 else 1)
            each = rows * a.shape[-1] * columns
            if each >= threads.MULTITHREADED:  # (NumPy multiplies a batch one matrix at a time)
                threads.before_product(a, b, rows, columns, each)
            if count * a.shape[-1] >= hooks.long_product:  # multiply-adds: a host may compute it in slices
                return hooks.installed.matmul(a, b)
            return np.matmul(a, b)
        except ValueError:
            raise ShapeError(
                f"matmul: {a.shape} @ {b.shape}",
                help=f"the last dimension of the left ({a.shape[-1]}) must equal "
                f"the {'only' if b_ndim == 1 else 'second-to-last'} dimension of the right "
                f"({b.shape[0] if b_ndim == 1 else b.shape[-2]})",
            ) from None

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        a_ndim, b_ndim = a.data.ndim, b.data.ndim
        if a_ndim == 2 and b_ndim == 2:  # the common case: dA = dOut @ Bᵀ, dB = Aᵀ @ dOut
            return (g @ b.T if a.requires_grad else None), (a.T @ g if b.requires_grad else None)
        if a_ndim == 1 and b_ndim == 1:  # a dot product
            return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)
        # A matrix times a vector (a recurrent cell's W @ h), and a vector times a matrix: the
        # general case below would reshape g and both sides, for the same two products.
        if a_ndim == 2 and b_ndim == 1:  # (m, n) @ (n,): dA = outer(g, b), db = Aᵀ @ g, computed as g @ A
            # (NumPy makes one product of both, the same gemv call: g @ A spares the transposed view's op)
            return (g.reshape((-1, 1)) * b if a.requires_grad else None), (g @ a if b.requires_grad else None)
        if a_ndim == 1 and b_ndim == 2:  # (n,) @ (n, k): da = B @ g, dB = outer(a, g)
            return (b @ g if a.requires_grad else None), (a.reshape((-1, 1)) * g if b.requires_grad else None)
        if a_ndim > 2 and b_ndim == 2:  # a stack times one matrix, multiplied as the forward does
            ga = (g @ b.T) if a.requires_grad else None  # (a stack times a matrix again)
            gb = stacked(a).T @ stacked(g) if b.requires_grad else None
            return ga, gb
        # View vectors as matrices (a row on the left, a column on the right), then
        # dA = dOut @ B^T and dB = A^T @ dOut, summed over any broadcast batch dimensions.
        a2 = a if a_ndim > 1 else a.reshape((1, *a.shape))
        b2 = b if b_ndim > 1 else b.reshape((*b.shape, 1))
        g2 = g.reshape((*np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]), a2.shape[-2], b2.shape[-1]))
        ga = (g2 @ b2.mT).sum_to(a2.shape).reshape(a.shape) if a.requires_grad else None
        gb = (a2.mT @ g2).sum_to(b2.shape).reshape(b.shape) if b.requires_grad else None
        return ga, gb


def stacked(a: Any) -> Any:
    """A stack of matrices (..., m, n) as one matrix of all their rows (stack · m, n). A stack times
    one matrix is then one product, as PyTorch computes it: NumPy would multiply the stack one
    matrix at a time (slower for a model's (batch, positions, width) activations, and its weight's
    gradient a stack of products summed afterwards)."""
    return a.reshape((math.prod(a.shape[:-1]), a.shape[-1]))  # (not -1: an empty last axis says nothing)


def _product_shape(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of x @ y: batch dimensions broadcast (a ValueError if they cannot), a vector is a
    row on the left and a column on the right, and its dimension is dropped again."""
    if len(x) <= 2 and len(y) <= 2:
        batch: tuple[int, ...] = ()
    else:  # (most often equal: attention's (batch, heads))
        batch = x[:-2] if x[:-2] == y[:-2] else np.broadcast_shapes(x[:-2], y[:-2])
    return (*batch, *x[-2:-1], *y[-1:][: len(y) > 1])
