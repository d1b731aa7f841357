"""Arithmetic: + - * / ** @ and their derivative rules, one under the other.

Each rule receives `g` (the gradient arriving at the output) and `out` (the output itself) and
returns one gradient per input. Rules use the engine's own ops, so with recording on (a gradient
of a gradient) they build a graph of their own. Broadcasting is undone centrally in backward,
so a rule may return a gradient of the output's shape.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import allocation as limits
from . import tensor as _mode
from .exceptions import GradError, ShapeError, TensorTypeError, TensorZeroDivisionError
from .functions import log, where
from .op import Op, public
from .shaping import check_broadcast, elementwise, may_be_large, normalize_index, sum_to
from .tensor import Tensor, lift, record, updated_in_place

# The rules of the commonest ops are written once, above their op, instead of as a closure inside
# it: a closure is a new function object per recorded node (150 bytes, and its cells), made on
# every call. A rule that needs the op's inputs reads them from the node: `out.grad_fn.inputs`.
ADD = Op("Add", inputs=("a", "b"), rules=("g", "g"))


def _add_backward(g: Tensor, out: Tensor) -> tuple[Tensor, Tensor]:
    return g, g


@public()
def add(a: Any, b: Any) -> Tensor:
    """a + b, element by element (their shapes broadcast).

    >>> tensor([1.0, 2.0]) + 10
    tensor([11., 12.])
    """
    a, b = lift(a), lift(b)
    return record(elementwise(operator.add, "+", a, b), ADD, (a, b), _add_backward)


SUB = Op("Sub", inputs=("a", "b"), rules=("g", "-g"))


def _sub_backward(g: Tensor, out: Tensor) -> tuple[Tensor, Tensor | None]:
    _, b = out.grad_fn.inputs  # type: ignore[union-attr]
    return g, (-g if b.requires_grad else None)


@public()
def sub(a: Any, b: Any) -> Tensor:
    """a - b, element by element (their shapes broadcast).

    >>> tensor([1.0, 2.0]) - tensor([[1.0], [2.0]])
    tensor([[ 0.,  1.],
            [-1.,  0.]])
    """
    a, b = lift(a), lift(b)
    return record(elementwise(operator.sub, "-", a, b), SUB, (a, b), _sub_backward)


MUL = Op("Mul", inputs=("a", "b"), rules=("g·b", "g·a"), nan="a product with an inf or nan value in the forward pass")


def _mul_backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
    a, b = out.grad_fn.inputs  # type: ignore[union-attr]
    return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)


@public()
def mul(a: Any, b: Any) -> Tensor:
    """a * b, element by element (their shapes broadcast); @ is the matrix product.

    >>> tensor([1.0, 2.0]) * tensor([3.0, 4.0])
    tensor([3., 8.])
    """
    a, b = lift(a), lift(b)
    return record(elementwise(operator.mul, "*", a, b), MUL, (a, b), _mul_backward)


DIV = Op("Div", inputs=("a", "b"), rules=("g/b", "-g·a/b²"), nan="a division by a value at or near 0")


def _div_backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
    a, b = out.grad_fn.inputs  # type: ignore[union-attr]
    return (g / b if a.requires_grad else None), (-g * out / b if b.requires_grad else None)


@public()
def div(a: Any, b: Any) -> Tensor:
    """a / b, element by element (their shapes broadcast); dividing by 0 gives inf or nan.

    >>> tensor([1.0, 2.0]) / tensor([4.0, 0.0])
    tensor([0.2500,    inf])
    """
    a, b = lift(a), lift(b)
    return record(elementwise(operator.truediv, "/", a, b), DIV, (a, b), _div_backward)


NEG = Op("Neg", inputs=("a",), rules=("-g",))


def _neg_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (-g,)


@public()
def neg(a: Tensor) -> Tensor:
    return record(-a.data, NEG, (a,), _neg_backward)


POW = Op(
    "Pow",
    inputs=("a", "b"),
    rules=("g·b·a^(b-1)", "g·a^b·ln a"),
    nan="x ** p with p < 1 at x = 0, or a power of a value <= 0",
)


@public()
def pow_(a: Any, b: Any) -> Tensor:
    """a ** b: a to the power b, element by element (their shapes broadcast).

    >>> tensor([2.0, 3.0]) ** 2
    tensor([4., 9.])
    """
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # As PyTorch: at a = 0 the formulas meet 0 * inf. d(a**0)/da is 0 there (the formula says
        # 0 * 0**-1, nan), and d(a**b)/db is 0 for b >= 0 (0**b * log 0, nan or -inf). Only those
        # entries are replaced, so that derivatives of these gradients stay right elsewhere (a
        # mask at every b = 0 would cut d²/da db there). A negative a gives log(a) = nan, as in
        # PyTorch. Without a 0 in a, nothing is masked and the rules are the plain formulas.
        ga = gb = None
        at_zero = _any_zero(a)
        if a.requires_grad:
            ga = g * b * a ** (b - 1)
            if at_zero and _any_zero(b):
                ga = where(Tensor(np.logical_and(a.data == 0, b.data == 0)), 0.0, ga)
        if b.requires_grad:
            gb = g * out * log(a)
            if at_zero:
                gb = where(Tensor(np.logical_and(a.data == 0, b.data >= 0)), 0.0, gb)
        return ga, gb

    return record(elementwise(operator.pow, "**", a, b), POW, (a, b), backward)


def _any_zero(t: Tensor) -> bool:
    return bool(np.any(t.data == 0))


@public()
def floordiv(a: Any, b: Any) -> Tensor:
    """a // b: the quotient rounded down; piecewise constant, so the result records nothing.

    >>> tensor([7.0, -7.0]) // 2
    tensor([ 3., -4.])
    """
    a, b = lift(a), lift(b)
    _integer_divisor(b, a, "//")
    return Tensor(elementwise(operator.floordiv, "//", a, b))


def _integer_divisor(b: Tensor, a: Tensor, symbol: str) -> None:
    """Refuse an integer division by zero, as PyTorch does (NumPy's answer is a silent 0); a float
    one gives inf or nan, as in PyTorch."""
    integers = np.asarray(a.data).dtype.kind in "iub" and np.asarray(b.data).dtype.kind in "iub"
    if integers and _any_zero(b):
        raise TensorZeroDivisionError(
            f"integer division by zero in '{symbol}'",
            help="PyTorch refuses it too; in floats (x * 1.0) it gives inf or nan there instead",
        )


MOD = Op("Mod", inputs=("a", "b"), rules=("g", "-g·floor(a/b)"))


@public()
def mod(a: Any, b: Any) -> Tensor:
    """a % b: the remainder of a // b, with the sign of b.

    >>> tensor([7.0, -7.0]) % 3
    tensor([1., 2.])
    """
    a, b = lift(a), lift(b)
    _integer_divisor(b, a, "%")

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # a % b = a - floor(a / b) * b, and floor is flat almost everywhere.
        return (g if a.requires_grad else None), (-g * floordiv(a, b) if b.requires_grad else None)

    return record(elementwise(operator.mod, "%", a, b), MOD, (a, b), backward)


# ---- matrix product ------------------------------------------------------------------------
MATMUL = Op("MatMul", inputs=("a", "b"), rules=("g @ bᵀ", "aᵀ @ g"))


def _matmul_backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
    a, b = out.grad_fn.inputs  # type: ignore[union-attr]
    a_ndim, b_ndim = a.data.ndim, b.data.ndim
    if a_ndim == 2 and b_ndim == 2:  # the common case: dA = dOut @ Bᵀ, dB = Aᵀ @ dOut
        return (g @ b.T if a.requires_grad else None), (a.T @ g if b.requires_grad else None)
    if a_ndim == 1 and b_ndim == 1:  # a dot product
        return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)
    # A matrix times a vector (a recurrent cell's W @ h), and a vector times a matrix: the
    # general case below would reshape g and both sides, for the same two products.
    if a_ndim == 2 and b_ndim == 1:  # (m, n) @ (n,): dA = outer(g, b), db = Aᵀ @ g
        return (g.reshape((-1, 1)) * b if a.requires_grad else None), (a.T @ g if b.requires_grad else None)
    if a_ndim == 1 and b_ndim == 2:  # (n,) @ (n, k): da = B @ g, dB = outer(a, g)
        return (b @ g if a.requires_grad else None), (a.reshape((-1, 1)) * g if b.requires_grad else None)
    # View vectors as matrices (a row on the left, a column on the right), then
    # dA = dOut @ B^T and dB = A^T @ dOut, summed over any broadcast batch dimensions.
    a2 = a if a_ndim > 1 else a.reshape((1, *a.shape))
    b2 = b if b_ndim > 1 else b.reshape((*b.shape, 1))
    g2 = g.reshape((*np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]), a2.shape[-2], b2.shape[-1]))
    ga = sum_to(g2 @ b2.mT, a2.shape).reshape(a.shape) if a.requires_grad else None
    gb = sum_to(a2.mT @ g2, b2.shape).reshape(b.shape) if b.requires_grad else None
    return ga, gb


@public(builtin=True)
def matmul(a: Any, b: Any) -> Tensor:
    """The matrix product a @ b: (m, n) @ (n, k) is (m, k); a vector is a row on the left and a column on the right.

    >>> tensor([[1.0, 2.0], [3.0, 4.0]]) @ tensor([1.0, 1.0])
    tensor([3., 7.])
    """
    a, b = lift(a), lift(b)
    x, y = a.data, b.data
    if type(x) is np.ndarray and type(y) is np.ndarray and x.ndim and y.ndim and not may_be_large(x.size * y.size):
        # The common case, two small arrays: what the checks below look at, read once.
        product: Callable[[Any, Any], Any] = np.matmul
    elif a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"matmul: {a.shape} @ {b.shape}: both sides need at least one dimension",
            help="use '*' to multiply by a scalar",
        )
    else:
        product = _checked_product(a, b)
    try:
        data = product(x, y)
    except ValueError:
        raise ShapeError(
            f"matmul: {a.shape} @ {b.shape}",
            help=f"the last dimension of the left ({a.shape[-1]}) must equal "
            f"the {'only' if b.ndim == 1 else 'second-to-last'} dimension of the right "
            f"({b.shape[0] if b.ndim == 1 else b.shape[-2]})",
        ) from None
    return record(data, MATMUL, (a, b), _matmul_backward)


def _checked_product(a: Tensor, b: Tensor) -> Callable[[Any, Any], Any]:
    """How to multiply a @ b when the result might be large: refuse it if it is too large for the
    budget, and compute it a slice at a time if one call would run for long."""
    product = np.matmul
    if may_be_large(a.size * b.size) and a.shape[-1] == b.shape[-2 if b.ndim > 1 else 0]:
        rows = a.shape[-2:-1]
        columns = b.shape[-1:] if b.ndim > 1 else ()
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            batch = ()  # NumPy reports the mismatch below
        limits.check_shape((*batch, *rows, *columns), "the result of '@'")
        if rows and columns and math.prod((*batch, *rows, *columns, a.shape[-1])) > _slice_work(a, b):
            product = _by_slices
    return product


# One NumPy product of two 8192×8192 matrices runs 20 seconds in C, where nothing (Ctrl-C, the
# --timeout watchdog) can stop it. A product of more multiply-adds than this is computed a slice of
# rows at a time, so no single call lasts long (a fraction of a second); smaller slices would
# cost the product more (docs/performance.md). Integers have no BLAS, and go 30 times slower.
SLICE_WORK = 2**33
SLICE_WORK_INTEGERS = 2**26


def _slice_work(a: Tensor, b: Tensor) -> int:
    return SLICE_WORK if a.dtype == b.dtype == "float" else SLICE_WORK_INTEGERS


def _by_slices(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y for matrices (or stacks of them), a slice of x's rows at a time."""
    shape = np.matmul(x[..., :0, :], y).shape  # the result's, with no rows: checks the shapes too
    rows, per_row = x.shape[-2], math.prod(shape[:-2]) * shape[-1] * x.shape[-1]
    out = np.empty((*shape[:-2], rows, shape[-1]), dtype=np.result_type(x, y))
    limit = SLICE_WORK if out.dtype.kind == "f" else SLICE_WORK_INTEGERS
    step = max(1, limit // max(1, per_row))
    for start in range(0, rows, step):
        np.matmul(x[..., start : start + step, :], y, out=out[..., start : start + step, :])
    return out


# ---- comparisons: their results are boolean constants, never recorded --------------------
@public()
def compare(fn: Callable[[Any, Any], Any], symbol: str, a: Tensor, b: Any) -> Any:
    """`a < b` and the like, with `fn` Python's operator for `symbol`: a bool tensor, never recorded."""
    if type(b) is Tensor:
        other = b.data
    elif isinstance(b, int | float | np.generic | np.ndarray):  # bool is an int
        other = b
    else:
        return NotImplemented  # `x == None` falls back to identity, as in Python
    data = a.data
    if type(data) is np.ndarray and type(other) is np.ndarray and may_be_large(data.size * other.size):
        check_broadcast(symbol, a, lift(b), itemsize=1)  # a row against a column: a bool per pair
    try:
        return Tensor(fn(data, other))
    except (ValueError, TypeError):
        return Tensor(elementwise(fn, symbol, a, lift(b)))  # the same call, for its error message


# ---- in-place updates: `w -= lr * w.grad` -------------------------------------------------
@public()
def update_in_place(op: Callable[[Any, Any], Tensor], symbol: str, t: Tensor, other: Any) -> Tensor:
    """`t op= other` (`op` is add for `+=`): t's values replaced outside recording, else a new recorded tensor."""
    other_requires = isinstance(other, Tensor) and other.requires_grad
    if _mode._grad_enabled and (t.requires_grad or other_requires):
        if t.requires_grad and t.grad_fn is None:
            raise GradError(
                f"in-place '{symbol}=' on a leaf tensor that requires grad",
                help="update parameters inside `with no_grad:`",
            )
        return op(t, other)  # recorded, out of place: the name is rebound to a new node
    result = op(t, other)
    if result.shape != t.shape:
        raise ShapeError(f"in-place '{symbol}=' would change shape {t.shape} to {result.shape}")
    if t.dtype != "float" and result.dtype != t.dtype:
        raise TensorTypeError(f"in-place '{symbol}=' would turn an {t.dtype} tensor into a float one")
    t.data = result.data  # a new array: anything that shared the old one keeps its values
    updated_in_place(t)
    return t


@public()
def assign_index(t: Tensor, index: Any, value: Any) -> None:
    """`t[index] = value`: copies the array first, so no earlier result sees the change."""
    if _mode._grad_enabled and t.requires_grad:
        raise GradError(
            "item assignment into a tensor that requires grad is not recorded",
            help="build a new tensor instead (where, concat, stack), or assign inside `with no_grad:`",
        )
    if _mode._grad_enabled and isinstance(value, Tensor) and value.requires_grad:
        raise GradError(
            "the value assigned requires grad, but item assignment is not recorded",
            help="build the tensor with stack or concat so the gradient can flow, or assign value.detach()",
        )
    data = np.array(t.data, copy=True)
    try:
        data[normalize_index(index, t.shape)] = lift(value).data
    except ValueError as e:
        raise ShapeError(f"cannot assign a value of shape {lift(value).shape} here: {e}") from None
    t.data = data
    updated_in_place(t)
