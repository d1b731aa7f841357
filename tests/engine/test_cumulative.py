"""Running results along an axis (autograd/cumulative.py): cumprod, cummax, cummin, logcumsumexp.

Every expected number below is what PyTorch 2.13.0 (CPU, float64) printed for the same inputs,
written in as literals: the values, and the gradient of the weighted sum `(out * W).sum()`. Zeros
in cumprod's input (where dividing by the input is no way to take it out of a product), ties and
a nan in cummax and cummin (the later place wins, a nan wins), and values a thousand apart in
logcumsumexp (where exp overflows) are PyTorch's own edge cases. First and second derivatives
are checked against central differences too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import Tensor, TensorIndexError, tensor

inf, nan = math.inf, math.nan
X = [[0.5, -1.5, 2.0, 0.0, 3.0], [1.25, 0.0, 0.0, -2.0, 0.75]]  # zeros: one alone, two side by side
W = [[1.0, -2.0, 0.5, 3.0, -1.0], [2.0, 1.0, -1.5, 0.25, 1.0]]


def value_and_gradient(fn, x, weights=W):
    t = tensor(x, requires_grad=True)
    out = fn(t)
    (out * tensor(weights)).sum().backward()
    return out.data, t.grad.data


# (function, axis, PyTorch's value, PyTorch's gradient)
PYTORCH = [
    (
        "cumprod",
        1,
        [[0.5, -0.75, -1.5, -0.0, -0.0], [1.25, 0.0, 0.0, -0.0, -0.0]],
        [[2.5, -0.5, -0.375, -0.0, 0.0], [2.0, 1.25, 0.0, 0.0, 0.0]],
    ),
    (
        "cumprod",
        0,
        [[0.5, -1.5, 2.0, 0.0, 3.0], [0.625, -0.0, 0.0, -0.0, 2.25]],
        [[3.5, -2.0, 0.5, 2.5, -0.25], [1.0, -1.5, -3.0, 0.0, 3.0]],
    ),
    (
        "logcumsumexp",
        1,
        [
            [0.5, 0.6269280110429725, 2.2258020492315995, 2.328341289025725, 3.4126793591754194],
            [1.25, 1.501929081345373, 1.7029907230533337, 1.727341516945937, 2.046747655824101],
        ],
        [
            [-0.24486941343871438, -0.16847475466032436, 2.3157996309119158, 0.2594190099714941, -0.6618744727843715],
            [2.429614181372978, 0.123086523762522, -0.09961361506278679, 0.02349330675396996, 0.27341960317331654],
        ],
    ),
    (
        "logcumsumexp",
        0,
        [
            [0.5, -1.5, 2.0, 0.0, 3.0],
            [1.6368710061148999, 0.2014132779827524, 2.1269280110429727, 0.1269280110429725, 3.100206558916747],
        ],
        [
            [1.641642601649214, -1.8175744761936437, -0.8211956169668233, 3.2201992694944708, -0.09534946489910945],
            [1.358357398350786, 0.8175744761936437, -0.1788043830331763, 0.02980073050552939, 0.0953494648991095],
        ],
    ),
]


@pytest.mark.parametrize(("name", "axis", "value", "gradient"), PYTORCH, ids=[f"{p[0]}-{p[1]}" for p in PYTORCH])
def test_values_and_gradients_are_pytorch_s(name: str, axis: int, value, gradient) -> None:
    got, grad = value_and_gradient(lambda t: getattr(autograd, name)(t, axis), X)
    np.testing.assert_allclose(got, value, rtol=1e-13, atol=0)
    np.testing.assert_allclose(grad, gradient, rtol=1e-12, atol=1e-15)


def test_cummax_and_cummin_are_pytorch_s_ties_and_nan_included() -> None:
    values = [[0.5, 2.0, 2.0, -1.0, 3.0], [1.0, -1.0, 1.0, -1.0, nan]]
    expected = {  # PyTorch's values, indices, and gradient of (values.nan_to_num(0) * W).sum()
        "cummax": (
            [[0.5, 2.0, 2.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0, nan]],
            [[0, 1, 2, 2, 4], [0, 0, 2, 2, 4]],
            [[1.0, -2.0, 3.5, 0.0, -1.0], [3.0, 0.0, -1.25, 0.0, 0.0]],
        ),
        "cummin": (
            [[0.5, 0.5, 0.5, -1.0, -1.0], [1.0, -1.0, -1.0, -1.0, nan]],
            [[0, 0, 0, 3, 3], [0, 1, 1, 3, 4]],
            [[-0.5, 0.0, 0.0, 2.0, 0.0], [2.0, -0.5, 0.0, 0.25, 0.0]],
        ),
    }
    for name, (value, index, gradient) in expected.items():
        t = tensor(values, requires_grad=True)
        got, where = getattr(autograd, name)(t, 1)
        np.testing.assert_array_equal(got.data, value)
        assert where.dtype == "int" and where.data.tolist() == index
        (got.where(got == got, 0.0) * tensor(W)).sum().backward()  # (nan_to_num: a nan's g is 0)
        np.testing.assert_array_equal(t.grad.data, gradient)


def test_logcumsumexp_far_apart_and_at_minus_infinity() -> None:
    # PyTorch: values [-1000., 0., 1000., 1000., 1000.]; the gradient of (out * [1, -1, 2, .5, -.5]).sum()
    # is [1., -1., 1.9999999999999392, 0., 0.] (its rule's own rounding, reproduced)
    got, grad = value_and_gradient(
        lambda t: t.logcumsumexp(0), [-1000.0, 0.0, 1000.0, -inf, 5.0], [1.0, -1.0, 2.0, 0.5, -0.5]
    )
    assert got.tolist() == [-1000.0, 0.0, 1000.0, 1000.0, 1000.0]
    np.testing.assert_allclose(grad, [1.0, -1.0, 1.9999999999999392, 0.0, 0.0], rtol=1e-15)
    assert autograd.logcumsumexp(tensor([-inf, -inf]), 0).data.tolist() == [-inf, -inf]  # PyTorch's too


def test_a_single_number_runs_to_itself() -> None:
    x = tensor(2.5, requires_grad=True)
    assert autograd.cumprod(x, 0).item() == 2.5 and autograd.logcumsumexp(x, 0).item() == 2.5
    values, index = autograd.cummax(x, 0)
    assert values.item() == 2.5 and index.item() == 0
    values.backward()
    assert x.grad.item() == 1.0


# ---- against central differences ------------------------------------------------------------
rng = np.random.default_rng(3)
SMOOTH = rng.uniform(0.3, 1.5, size=(3, 4)) * rng.choice([-1.0, 1.0], size=(3, 4))
DISTINCT = rng.permutation(12).reshape(3, 4) / 4.0 - 1.0  # no ties: cummax has one winner


@pytest.mark.parametrize(
    ("name", "fn", "x"),
    [
        ("cumprod along 1", lambda t: t.cumprod(1), SMOOTH),
        ("cumprod along 0", lambda t: autograd.cumprod(t, 0), SMOOTH),
        ("logcumsumexp", lambda t: t.logcumsumexp(-1), SMOOTH * 3),
        ("cummax", lambda t: (t * t).cummax(1)[0], DISTINCT),
        ("cummin", lambda t: (t * t).cummin(0)[0], DISTINCT),
    ],
)
def test_first_and_second_derivatives(name, fn, x) -> None:
    check_gradients(name, fn, x)


def test_cumprod_first_derivative_at_zeros() -> None:
    # d out[j] / d a[i] is the product of the others up to j: at a first zero, not a division by it
    for zeros in ([0, 1], [0, 2], [1, 1], [0, 3]):
        x = SMOOTH.copy()
        x[tuple(zeros)] = 0.0
        x[2, 1:3] = 0.0  # and two side by side
        check_gradients(f"cumprod with zeros at {zeros}", lambda t: t.cumprod(1), x, second_order=False)


def test_an_axis_out_of_range_is_named() -> None:
    for name in ("cumprod", "cummax", "logcumsumexp"):
        with pytest.raises(TensorIndexError, match=f"{name}: axis 2 is out of range"):
            getattr(autograd, name)(Tensor(np.ones((2, 2))), 2)
