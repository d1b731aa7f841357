"""Arithmetic: + - * / ** @ and their derivative rules, one under the other.

Each rule receives `g` (the gradient arriving at the output) and `out` (the output itself) and
returns one gradient per input. Rules use the engine's own ops, so with recording on (a gradient
of a gradient) they build a graph of their own. Broadcasting is undone centrally in backward,
so a rule may return a gradient of the output's shape.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import limits
from . import tensor as _mode
from .errors import GradError, ShapeError, TensorTypeError, TensorValueError
from .tensor import Tensor, lift, record, updated_in_place


def elementwise(fn: Callable[[Any, Any], Any], symbol: str, a: Tensor, b: Tensor) -> Any:
    """Apply a NumPy operator, turning a broadcasting failure into a ShapeError naming both shapes."""
    x, y = a.data, b.data
    # Only two arrays can broadcast into something larger than either; check before allocating.
    if type(x) is np.ndarray and type(y) is np.ndarray and x.size * y.size > limits.max_elements:
        _check_broadcast(symbol, a, b)
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


def _check_broadcast(symbol: str, a: Tensor, b: Tensor) -> None:
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return  # the op itself reports the mismatch
    limits.check_shape(
        shape,
        f"the result of '{symbol}'",
        help=f"broadcasting {a.shape} with {b.shape} pairs every element with every other; check the shapes",
    )


# A rule that reads nothing but g and out is written once, above its op, instead of as a closure:
# a closure is a new function object per recorded node (150 bytes), and Add is the commonest node.
def _add_backward(g: Tensor, out: Tensor) -> tuple[Tensor, Tensor]:
    return g, g


def add(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)
    return record(elementwise(operator.add, "+", a, b), "Add", (a, b), _add_backward)


def sub(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor, Tensor | None]:
        return g, (-g if b.requires_grad else None)

    return record(elementwise(operator.sub, "-", a, b), "Sub", (a, b), backward)


def mul(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)

    return record(elementwise(operator.mul, "*", a, b), "Mul", (a, b), backward)


def div(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return (g / b if a.requires_grad else None), (-g * out / b if b.requires_grad else None)

    return record(elementwise(operator.truediv, "/", a, b), "Div", (a, b), backward)


def _neg_backward(g: Tensor, out: Tensor) -> tuple[Tensor]:
    return (-g,)


def neg(a: Tensor) -> Tensor:
    return record(-a.data, "Neg", (a,), _neg_backward)


def pow_(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        ga = g * b * a ** (b - 1) if a.requires_grad else None
        # d(a**b)/db = a**b * log(a); where a <= 0 the log is undefined and we use 0, as PyTorch does.
        gb = g * out * log(where(a > 0, a, 1.0)) if b.requires_grad else None
        return ga, gb

    return record(elementwise(operator.pow, "**", a, b), "Pow", (a, b), backward)


def floordiv(a: Any, b: Any) -> Tensor:
    """`a // b`: piecewise constant, so its result is a constant (never recorded)."""
    a, b = lift(a), lift(b)
    return Tensor(elementwise(operator.floordiv, "//", a, b))


def mod(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        # a % b = a - floor(a / b) * b, and floor is flat almost everywhere.
        return (g if a.requires_grad else None), (-g * floordiv(a, b) if b.requires_grad else None)

    return record(elementwise(operator.mod, "%", a, b), "Mod", (a, b), backward)


# ---- matrix product ------------------------------------------------------------------------
def matmul(a: Any, b: Any) -> Tensor:
    a, b = lift(a), lift(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            f"matmul: {a.shape} @ {b.shape}: both sides need at least one dimension",
            help="use '*' to multiply by a scalar",
        )
    if a.size * b.size > limits.max_elements and a.shape[-1] == b.shape[-2 if b.ndim > 1 else 0]:
        rows = a.shape[-2:-1]
        columns = b.shape[-1:] if b.ndim > 1 else ()
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            batch = ()  # NumPy reports the mismatch below
        limits.check_shape((*batch, *rows, *columns), "the result of '@'")
    try:
        data = a.data @ b.data
    except ValueError:
        raise ShapeError(
            f"matmul: {a.shape} @ {b.shape}",
            help=f"the last dimension of the left ({a.shape[-1]}) must equal "
            f"the {'only' if b.ndim == 1 else 'second-to-last'} dimension of the right "
            f"({b.shape[0] if b.ndim == 1 else b.shape[-2]})",
        ) from None

    def backward(g: Tensor, out: Tensor) -> tuple[Tensor | None, Tensor | None]:
        if a.ndim == 2 and b.ndim == 2:  # the common case: dA = dOut @ Bᵀ, dB = Aᵀ @ dOut
            return (g @ b.T if a.requires_grad else None), (a.T @ g if b.requires_grad else None)
        if a.ndim == 1 and b.ndim == 1:  # a dot product
            return (g * b if a.requires_grad else None), (g * a if b.requires_grad else None)
        # View vectors as matrices (a row on the left, a column on the right), then
        # dA = dOut @ B^T and dB = A^T @ dOut, summed over any broadcast batch dimensions.
        a2 = a if a.ndim > 1 else a.reshape((1, *a.shape))
        b2 = b if b.ndim > 1 else b.reshape((*b.shape, 1))
        g2 = g.reshape((*np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]), a2.shape[-2], b2.shape[-1]))
        ga = sum_to(g2 @ b2.mT, a2.shape).reshape(a.shape) if a.requires_grad else None
        gb = sum_to(a2.mT @ g2, b2.shape).reshape(b.shape) if b.requires_grad else None
        return ga, gb

    return record(data, "MatMul", (a, b), backward)


# ---- comparisons: their results are boolean constants, never recorded --------------------
def _comparison(fn: Callable[[Any, Any], Any], symbol: str) -> Callable[[Any, Any], Any]:
    def compare(a: Tensor, b: Any) -> Any:
        if type(b) is Tensor:
            other = b.data
        elif isinstance(b, int | float | np.generic | np.ndarray):  # bool is an int
            other = b
        else:
            return NotImplemented  # `x == None` falls back to identity, as in Python
        try:
            return Tensor(fn(a.data, other))
        except (ValueError, TypeError):
            return Tensor(elementwise(fn, symbol, a, lift(b)))  # the same call, for its error message

    return compare


# ---- in-place updates: `w -= lr * w.grad` -------------------------------------------------
def _inplace(op: Callable[[Any, Any], Tensor], symbol: str) -> Callable[[Tensor, Any], Tensor]:
    def update(self: Tensor, other: Any) -> Tensor:
        other_requires = isinstance(other, Tensor) and other.requires_grad
        if _mode._grad_enabled and (self.requires_grad or other_requires):
            if self.requires_grad and self.grad_fn is None:
                raise GradError(
                    f"in-place '{symbol}=' on a leaf tensor that requires grad",
                    help="update parameters inside `with no_grad:`",
                )
            return op(self, other)  # recorded, out of place: the name is rebound to a new node
        result = op(self, other)
        if result.shape != self.shape:
            raise ShapeError(f"in-place '{symbol}=' would change shape {self.shape} to {result.shape}")
        if self.dtype != "float" and result.dtype != self.dtype:
            raise TensorTypeError(f"in-place '{symbol}=' would turn an {self.dtype} tensor into a float one")
        self.data = result.data  # a new array: anything that shared the old one keeps its values
        updated_in_place(self)
        return self

    return update


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
    from .shaping import normalize_index

    data = np.array(t.data, copy=True)
    try:
        data[normalize_index(index, t.shape)] = lift(value).data
    except ValueError as e:
        raise ShapeError(f"cannot assign a value of shape {lift(value).shape} here: {e}") from None
    t.data = data
    updated_in_place(t)


# ---- Python operators on Tensor -------------------------------------------------------------
def _reflected(op: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    return lambda self, other: op(other, self)


Tensor.__add__, Tensor.__radd__ = add, _reflected(add)
Tensor.__sub__, Tensor.__rsub__ = sub, _reflected(sub)
Tensor.__mul__, Tensor.__rmul__ = mul, _reflected(mul)
Tensor.__truediv__, Tensor.__rtruediv__ = div, _reflected(div)
Tensor.__pow__, Tensor.__rpow__ = pow_, _reflected(pow_)
Tensor.__floordiv__, Tensor.__rfloordiv__ = floordiv, _reflected(floordiv)
Tensor.__mod__, Tensor.__rmod__ = mod, _reflected(mod)
Tensor.__matmul__, Tensor.__rmatmul__ = matmul, _reflected(matmul)
Tensor.__neg__ = neg
Tensor.__pos__ = lambda self: self
Tensor.__eq__ = _comparison(operator.eq, "==")  # type: ignore[method-assign,assignment]
Tensor.__ne__ = _comparison(operator.ne, "!=")  # type: ignore[method-assign,assignment]
Tensor.__lt__ = _comparison(operator.lt, "<")
Tensor.__le__ = _comparison(operator.le, "<=")
Tensor.__gt__ = _comparison(operator.gt, ">")
Tensor.__ge__ = _comparison(operator.ge, ">=")
Tensor.__iadd__ = _inplace(add, "+")
Tensor.__isub__ = _inplace(sub, "-")
Tensor.__imul__ = _inplace(mul, "*")
Tensor.__itruediv__ = _inplace(div, "/")
Tensor.__ifloordiv__ = _inplace(floordiv, "//")
Tensor.__imod__ = _inplace(mod, "%")
Tensor.__ipow__ = _inplace(pow_, "**")
Tensor.__imatmul__ = _inplace(matmul, "@")
Tensor.__setitem__ = assign_index

# Imported last: these modules use the operators installed above.
from .functions import log, where  # noqa: E402
from .shaping import sum_to  # noqa: E402
