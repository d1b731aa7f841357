"""Values at the edges (infinities, an integer zero) as PyTorch gives them, where NumPy's plain
formula gives something else. Each expected value is what PyTorch 2 prints for the same call:

    torch.logsumexp(torch.tensor([-inf, -inf]), 0)   tensor(-inf)   (a fully masked attention row)
    torch.logsumexp(torch.tensor([inf, 0.]), 0)      tensor(inf)
    its gradient at [inf, 0]                         tensor([nan, 0.])
    torch.tensor([5, 7]) // 0, torch.tensor([5, 7]) % 0
                                                     RuntimeError: ZeroDivisionError
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dglang.autograd import Tensor
from dglang.autograd.backward import gradient
from dglang.autograd.composed import logsumexp
from dglang.autograd.exceptions import TensorZeroDivisionError

INF = math.inf


def values(t: Tensor) -> list[float]:
    return np.asarray(t.data, dtype=float).ravel().tolist()


def test_logsumexp_of_a_fully_masked_row_is_minus_infinity() -> None:
    assert values(logsumexp(Tensor(np.array([-INF, -INF])))) == [-INF]
    rows = logsumexp(Tensor(np.array([[-INF, -INF], [0.0, 0.0]])), axis=1)
    assert values(rows)[0] == -INF and values(rows)[1] == pytest.approx(math.log(2))


def test_logsumexp_with_an_infinity_is_infinity_and_its_gradient_is_nan_only_there() -> None:
    assert values(logsumexp(Tensor(np.array([INF, 0.0])))) == [INF]
    x = Tensor(np.array([INF, 0.0]), requires_grad=True)
    g = values(gradient(logsumexp(x), x))
    assert math.isnan(g[0]) and g[1] == 0.0


def test_logsumexp_of_finite_values_is_unchanged() -> None:
    x = Tensor(np.array([1000.0, 1000.0, -3.0]), requires_grad=True)
    assert values(logsumexp(x))[0] == pytest.approx(1000 + math.log(2 + math.exp(-1003)))
    assert values(gradient(logsumexp(x), x)) == pytest.approx([0.5, 0.5, 0.0])


@pytest.mark.parametrize("symbol", ["//", "%"])
def test_an_integer_tensor_divided_by_zero_is_an_error(symbol: str) -> None:
    a, zero, some = Tensor(np.array([5, 7])), Tensor(np.array(0)), Tensor(np.array([1, 0]))
    op = (lambda x, y: x // y) if symbol == "//" else (lambda x, y: x % y)
    for divisor in (zero, some):
        with pytest.raises(TensorZeroDivisionError) as caught:
            op(a, divisor)
        assert caught.value.kind == "ZeroDivisionError" and symbol in caught.value.message
    assert values(op(a, Tensor(np.array(2)))) == ([2, 3] if symbol == "//" else [1, 1])
    floats = values(op(Tensor(np.array([5.0, 0.0])), Tensor(np.array(0.0))))  # floats: inf or nan, as PyTorch
    assert all(math.isinf(v) or math.isnan(v) for v in floats)
