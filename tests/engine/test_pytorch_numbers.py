"""Numbers at the edges (infinities, a division by zero) as PyTorch defines them.

Every expected value below is what PyTorch 2.13.0 (CPU, float64) prints for the same expression,
written in literally: `torch.logsumexp(torch.tensor([-inf, -inf]), 0)` is `tensor(-inf)`, and so on.
A fully masked attention row is all -inf, so logsumexp must give -inf there, not nan.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dglang import autograd
from dglang.autograd import GradError, Tensor, tensor
from dglang.autograd.exceptions import TensorTypeError, TensorZeroDivisionError

inf, nan = math.inf, math.nan


def same(got: Tensor | np.ndarray, expected: list[float] | float) -> bool:
    """Equal values, nan where nan is expected, and infinities of the same sign."""
    return bool(np.array_equal(np.asarray(getattr(got, "data", got)), np.asarray(expected), equal_nan=True))


@pytest.fixture(autouse=True)
def quiet_numpy() -> object:
    with np.errstate(all="ignore"):  # as a DG run: log(0) is -inf, 0/0 is nan, without a warning
        yield


# ---- logsumexp ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([-inf, -inf], -inf),  # PyTorch: tensor(-inf)
        ([inf, 0.0], inf),  # tensor(inf)
        ([inf, inf], inf),  # tensor(inf)
        ([inf, -inf], inf),  # tensor(inf)
        ([-inf, 0.0], 0.0),  # tensor(0.)
        ([nan, 0.0], nan),  # tensor(nan)
        ([1000.0, 1000.0], 1000.6931471805599),  # tensor(1000.6931471805599)
        ([-1000.0, -1000.0], -999.3068528194401),  # tensor(-999.3068528194401)
    ],
)
def test_logsumexp_at_the_edges(values: list[float], expected: float) -> None:
    assert same(autograd.logsumexp(tensor(values)), expected)


def test_a_fully_masked_row_of_logsumexp_is_minus_inf() -> None:
    # PyTorch: torch.logsumexp(torch.tensor([[-inf, -inf], [0., 0.]]), 1) is tensor([-inf, 0.6931])
    rows = autograd.logsumexp(tensor([[-inf, -inf], [0.0, 0.0]]), axis=1)
    assert rows.data[0] == -inf and rows.data[1] == pytest.approx(0.6931471805599453)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([inf, 0.0], [nan, 0.0]),  # PyTorch: tensor([nan, 0.])
        ([-inf, -inf], [nan, nan]),  # tensor([nan, nan])
        ([-inf, 0.0], [0.0, 1.0]),  # tensor([0., 1.])
        ([inf, inf], [nan, nan]),  # tensor([nan, nan])
        ([1000.0, 1000.0], [0.5, 0.5]),  # tensor([0.5000, 0.5000])
    ],
)
def test_the_gradient_of_logsumexp_at_the_edges(values: list[float], expected: list[float]) -> None:
    x = tensor(values, requires_grad=True)
    autograd.logsumexp(x).backward()
    assert same(x.grad, expected)
    assert same(autograd.gradient(autograd.logsumexp(x), x), expected)  # the recorded gradient, the same


@pytest.mark.parametrize(
    ("function", "values", "expected"),
    [
        ("softmax", [-inf, -inf], [nan, nan]),  # PyTorch: tensor([nan, nan])
        ("softmax", [inf, 0.0], [nan, nan]),  # tensor([nan, nan])
        ("softmax", [-inf, 0.0], [0.0, 1.0]),  # tensor([0., 1.])
        ("log_softmax", [-inf, -inf], [nan, nan]),  # tensor([nan, nan])
        ("log_softmax", [inf, 0.0], [nan, nan]),  # tensor([nan, nan])
        ("log_softmax", [-inf, 0.0], [-inf, 0.0]),  # tensor([-inf, 0.])
    ],
)
def test_softmax_and_log_softmax_at_the_edges(function: str, values: list[float], expected: list[float]) -> None:
    assert same(getattr(autograd, function)(tensor(values)), expected)


@pytest.mark.parametrize(
    ("function", "expected"),
    [("softmax", [0.0, 0.0]), ("log_softmax", [1.0, -1.0])],  # PyTorch: tensor([-0., 0.]), tensor([ 1., -1.])
)
def test_the_gradient_of_a_partly_masked_row(function: str, expected: list[float]) -> None:
    x = tensor([-inf, 0.0], requires_grad=True)
    (getattr(autograd, function)(x) * tensor([1.0, 2.0])).sum().backward()
    assert same(x.grad, expected)


# ---- integer division and remainder ------------------------------------------------------------
def ints(values: list[int]) -> Tensor:
    return tensor(values, dtype="int")


@pytest.mark.parametrize(
    "divide",
    [
        lambda: ints([7, -7]) // 0,  # PyTorch: RuntimeError: ZeroDivisionError
        lambda: ints([7, -7]) // ints([2, 0]),
        lambda: ints([7, -7]) % 0,
        lambda: ints([7, -7]) % ints([2, 0]),
        lambda: ints([0]) // ints([0]),
        lambda: 7 // ints([1, 0]),
    ],
)
def test_an_int_tensor_divided_by_zero_is_an_error(divide: object) -> None:
    with pytest.raises(TensorZeroDivisionError, match="by 0") as caught:
        divide()  # type: ignore[operator]
    assert caught.value.kind == "ZeroDivisionError" and "inf or nan" in (caught.value.help or "")


@pytest.mark.parametrize(
    ("compute", "expected"),
    [
        (lambda: ints([7, -7]) // 2, [3, -4]),  # PyTorch: tensor([ 3, -4])
        (lambda: ints([7, -7]) % 3, [1, 2]),  # tensor([1, 2])
        (lambda: ints([7, -7]) % -3, [-2, -1]),  # tensor([-2, -1])
        (lambda: ints([7, -7]) // -2, [-4, 3]),  # tensor([-4,  3])
        (lambda: ints([7]) // 0.0, [inf]),  # a float divisor: tensor([inf])
        (lambda: ints([7]) % 0.0, [nan]),  # tensor([nan])
        (lambda: tensor([1.0, -1.0, 0.0]) // 0, [inf, -inf, nan]),  # tensor([inf, -inf, nan])
        (lambda: tensor([1.0, -1.0, 0.0]) % 0, [nan, nan, nan]),  # tensor([nan, nan, nan])
        (lambda: tensor([5.5, -5.5]) % 2, [1.5, 0.5]),  # tensor([1.5000, 0.5000])
        (lambda: tensor([5.5, -5.5]) // -2, [-3.0, 2.0]),  # tensor([-3.,  2.])
        (lambda: tensor([inf]) % 2, [nan]),  # tensor([nan])
        (lambda: tensor([inf]) // 2, [nan]),  # tensor([nan])
        (lambda: tensor([1.0]) // inf, [0.0]),  # tensor([0.])
        (lambda: tensor([-1.0]) // inf, [-1.0]),  # tensor([-1.])
        (lambda: tensor([1.0]) % inf, [1.0]),  # tensor([1.])
        (lambda: tensor([-1.0]) % inf, [inf]),  # tensor([inf])
    ],
)
def test_division_and_remainder_as_pytorch_computes_them(compute: object, expected: list[float]) -> None:
    assert same(compute(), expected)  # type: ignore[operator]


def test_bools_are_not_divided() -> None:
    # PyTorch: NotImplementedError: "div_floor_cpu" not implemented for 'Bool'
    yes = tensor([True], dtype="bool")
    with pytest.raises(TensorTypeError, match="bool"):
        yes // yes
    with pytest.raises(TensorTypeError, match="bool"):
        yes % yes


def test_the_gradient_of_the_remainder() -> None:
    # PyTorch: for a = [5.5, -5.5] and b = [2., 2.], (a % b).sum().backward() gives
    # a.grad tensor([1., 1.]) and b.grad tensor([-2.,  3.])
    a, b = tensor([5.5, -5.5], requires_grad=True), tensor([2.0, 2.0], requires_grad=True)
    (a % b).sum().backward()
    assert same(a.grad, [1.0, 1.0]) and same(b.grad, [-2.0, 3.0])


def test_a_division_that_raises_records_nothing() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(GradError):
        (ints([1, 2]) // ints([1, 1])).backward()  # a constant: nothing to differentiate
    assert (x // 1).grad_fn is None
