"""Checking derivatives against central finite differences: the numbers behind DG's `gradcheck`.

The analytic side is `gradient`, applied `order` times: each entry of one derivative is
differentiated again, so the second derivative is the gradient of the gradient. The numeric side
differentiates the analytic derivative one order lower by central differences,

    d D / d x[k]  ~  (D(x + eps e_k) - D(x - eps e_k)) / (2 eps)

so order 1 compares the gradient with differences of f, order 2 the gradient of the gradient with
differences of the gradient. Everything runs in float64, with recording on (f may itself call
`gradient`), on fresh copies of x: no `.grad` and no graph of the caller is touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .backward import gradient
from .exceptions import TensorTypeError, TensorValueError
from .shaping import Stack
from .tensor import Tensor, run_op, set_grad_enabled, type_name

# As PyTorch's gradcheck: eps well above float64 rounding (error ~ 1e-16 |f| / eps) and small
# enough for the truncation error (~ eps² f''') to vanish; an entry passes when
# |analytic - numeric| <= atol + rtol * |numeric|.
EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-3

Function = Callable[[Tensor], Any]


class GradcheckResult(NamedTuple):
    """Both derivatives, each of shape x.shape repeated `order` times (entry [i, j] is d²f/dx[i]dx[j])."""

    order: int
    analytic: np.ndarray
    numeric: np.ndarray
    eps: float
    atol: float
    rtol: float
    output_shape: tuple[int, ...] = ()  # of f(x); if it has several elements, their sum was checked

    @property
    def errors(self) -> np.ndarray:
        return np.abs(self.analytic - self.numeric)

    @property
    def max_error(self) -> float:
        return float(np.max(self.errors)) if self.errors.size else 0.0

    @property
    def failing(self) -> np.ndarray:
        """True where an entry is off by more than the tolerance (NaN counts as off)."""
        return ~(self.errors <= self.atol + self.rtol * np.abs(self.numeric))

    @property
    def passed(self) -> bool:
        return not bool(np.any(self.failing))


def gradcheck(
    f: Function, x: Any, order: int = 1, eps: float = EPS, atol: float = ATOL, rtol: float = RTOL
) -> GradcheckResult:
    """Compare the `order`-th derivative of sum(f(x)) from `gradient` with central differences."""
    point = _point(x)
    order = _positive_int(order, "order")
    eps, atol, rtol = _number(eps, "eps", positive=True), _number(atol, "atol"), _number(rtol, "rtol")
    previous = set_grad_enabled(True)
    try:
        leaf = Tensor(point.copy(), requires_grad=True)
        y = f(leaf)
        analytic = derivative_of(scalar_output(y), leaf, order).numpy()
        numeric = _central_differences(f, point, order, eps)
    finally:
        set_grad_enabled(previous)
    shape = y.shape if isinstance(y, Tensor) else ()
    return GradcheckResult(order, np.asarray(analytic, dtype=np.float64), numeric, eps, atol, rtol, shape)


def derivative(f: Function, x: Tensor, order: int) -> Tensor:
    """The `order`-th derivative of sum(f(x)) at x (order 0: the value), recorded so it differentiates."""
    return derivative_of(scalar_output(f(x)), x, order)


def derivative_of(d: Tensor, x: Tensor, order: int) -> Tensor:
    """The `order`-th derivative of the one-element `d` with respect to x, of shape x.shape * order."""
    for _ in range(order):
        rows = [gradient(d[index], x) for index in np.ndindex(d.shape)]
        d = run_op(Stack, rows).reshape(d.shape + x.shape)
    return d


def scalar_output(y: Any) -> Tensor:
    """f's result as one number to differentiate: a tensor with several elements is summed."""
    if isinstance(y, bool) or not isinstance(y, Tensor | int | float):
        raise TensorTypeError(
            f"gradcheck(): the function must return a tensor or a number, not {type_name(y)}",
            help="return one value; a tensor with several elements is summed",
        )
    if not isinstance(y, Tensor):
        return Tensor(np.float64(y))
    if y.dtype == "bool":
        raise TensorTypeError("gradcheck(): the function returned a bool tensor, which has no derivative")
    return y if y.size == 1 and y.shape == () else y.sum()


def _central_differences(f: Function, point: np.ndarray, order: int, eps: float) -> np.ndarray:
    """d D / d x[k] for every entry k, where D is the analytic derivative of order `order - 1`."""
    out = np.zeros(point.shape * order)  # D has x's shape repeated order - 1 times, plus one for k
    for k in np.ndindex(point.shape):
        up, down = point.copy(), point.copy()
        up[k] += eps
        down[k] -= eps
        d_up = derivative(f, Tensor(up, requires_grad=True), order - 1).numpy()
        d_down = derivative(f, Tensor(down, requires_grad=True), order - 1).numpy()
        out[(..., *k)] = (d_up - d_down) / (2 * eps)
    return out


def _point(x: Any) -> np.ndarray:
    """x as a float64 array (a copy): a number or an int tensor is fine, a bool tensor is not."""
    if isinstance(x, Tensor):
        if x.dtype == "bool":
            raise TensorTypeError("gradcheck(): x is a bool tensor; derivatives need numbers")
        return np.array(x.data, dtype=np.float64)
    if isinstance(x, int | float) and not isinstance(x, bool):
        return np.array(float(x))
    raise TensorTypeError(f"gradcheck(): x must be a tensor or a number, not {type_name(x)}")


def _positive_int(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TensorTypeError(f"gradcheck(): {name} must be an int, not {type_name(n)}")
    if n < 1:
        raise TensorValueError(f"gradcheck(): {name} must be 1 or more, not {n}", help="order=1 checks the gradient")
    return n


def _number(value: Any, name: str, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TensorTypeError(f"gradcheck(): {name} must be a number, not {type_name(value)}")
    fine = value > 0 if positive else value >= 0  # also False for NaN
    if not fine:
        raise TensorValueError(f"gradcheck(): {name} must be {'positive' if positive else '0 or more'}, not {value}")
    return float(value)
