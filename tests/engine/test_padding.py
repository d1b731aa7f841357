"""pad (autograd/padding.py) in each of PyTorch's modes, negative amounts included.

Every expected value is what PyTorch 2.13.0 printed (CPU, float64) for x = arange(1., 13.).reshape(1,
3, 4): `F.pad(x, pad, mode=mode)`, and the gradient of `(out * w).sum()` for w = (arange(out.numel())
% 5 - 2); a mirror reads values twice, so their gradients add up. Derivatives of each mode against
central differences, first and second order; mistakes and hostile amounts refused before anything
is allocated.
"""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import ShapeError, Tensor, TensorTypeError, TensorValueError, tensor
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session

PYTORCH = [  # (pad, mode, PyTorch's value, PyTorch's gradient)
    (
        (2, 1),
        "reflect",
        [
            [
                [3.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0],
                [7.0, 6.0, 5.0, 6.0, 7.0, 8.0, 7.0],
                [11.0, 10.0, 9.0, 10.0, 11.0, 12.0, 11.0],
            ]
        ],
        [[[0.0, 0.0, -1.0, -2.0], [2.0, -1.0, 0.0, 0.0], [-1.0, -2.0, 1.0, 2.0]]],
    ),
    (
        (-1, 3, 2, -1),
        "reflect",
        [
            [
                [10.0, 11.0, 12.0, 11.0, 10.0, 9.0],
                [6.0, 7.0, 8.0, 7.0, 6.0, 5.0],
                [2.0, 3.0, 4.0, 3.0, 2.0, 1.0],
                [6.0, 7.0, 8.0, 7.0, 6.0, 5.0],
            ]
        ],
        [[[0.0, -1.0, -1.0, 2.0], [0.0, -2.0, 3.0, -1.0], [-2.0, 0.0, 0.0, 0.0]]],
    ),
    (
        (3, 1, 0, 2),
        "replicate",
        [
            [
                [1.0, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 4.0],
                [5.0, 5.0, 5.0, 5.0, 6.0, 7.0, 8.0, 8.0],
                [9.0, 9.0, 9.0, 9.0, 10.0, 11.0, 12.0, 12.0],
                [9.0, 9.0, 9.0, 9.0, 10.0, 11.0, 12.0, 12.0],
                [9.0, 9.0, 9.0, 9.0, 10.0, 11.0, 12.0, 12.0],
            ]
        ],
        [[[-2.0, 2.0, -2.0, -1.0], [0.0, 0.0, 1.0, 0.0], [2.0, -2.0, 1.0, 1.0]]],
    ),
    (
        (-2, 1, 1, 0),
        "replicate",
        [[[3.0, 4.0, 4.0], [3.0, 4.0, 4.0], [7.0, 8.0, 8.0], [11.0, 12.0, 12.0]]],
        [[[0.0, 0.0, -1.0, -1.0], [0.0, 0.0, -1.0, 1.0], [0.0, 0.0, 2.0, -3.0]]],
    ),
    (
        (2, 3, 1, 1),
        "circular",
        [
            [
                [11.0, 12.0, 9.0, 10.0, 11.0, 12.0, 9.0, 10.0, 11.0],
                [3.0, 4.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0],
                [7.0, 8.0, 5.0, 6.0, 7.0, 8.0, 5.0, 6.0, 7.0],
                [11.0, 12.0, 9.0, 10.0, 11.0, 12.0, 9.0, 10.0, 11.0],
                [3.0, 4.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0],
            ]
        ],
        [[[-2.0, 2.0, 2.0, -1.0], [0.0, -3.0, 0.0, 3.0], [2.0, 1.0, -2.0, -2.0]]],
    ),
    (
        (1, -1, -1, 2),
        "circular",
        [[[7.0, 5.0, 6.0, 7.0], [11.0, 9.0, 10.0, 11.0], [7.0, 5.0, 6.0, 7.0], [11.0, 9.0, 10.0, 11.0]]],
        [[[0.0, 0.0, 0.0, 0.0], [1.0, -2.0, -1.0, 0.0], [-1.0, 1.0, 0.0, 0.0]]],
    ),
    (
        (-1, 2, 1, -2),
        "constant",
        [[[0.0, 0.0, 0.0, 0.0, 0.0], [2.0, 3.0, 4.0, 0.0, 0.0]]],
        [[[0.0, -2.0, -1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
    ),
    (
        (0, 0, 2, 1),
        "constant",
        [
            [
                [0.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 0.0],
                [1.0, 2.0, 3.0, 4.0],
                [5.0, 6.0, 7.0, 8.0],
                [9.0, 10.0, 11.0, 12.0],
                [0.0, 0.0, 0.0, 0.0],
            ]
        ],
        [[[1.0, 2.0, -2.0, -1.0], [0.0, 1.0, 2.0, -2.0], [-1.0, 0.0, 1.0, 2.0]]],
    ),
]


@pytest.mark.parametrize(("pad", "mode", "value", "gradient"), PYTORCH, ids=[f"{m}{p}" for p, m, *_ in PYTORCH])
def test_each_mode_is_pytorch_s(pad, mode, value, gradient) -> None:
    x = Tensor(np.arange(1.0, 13.0).reshape(1, 3, 4), requires_grad=True)
    out = autograd.pad(x, pad, mode=mode)
    (out * Tensor(np.arange(float(out.size)).reshape(out.shape) % 5 - 2)).sum().backward()
    assert out.data.tolist() == value and x.grad.data.tolist() == gradient


def test_constant_fills_with_its_value_and_keeps_ints() -> None:
    assert autograd.pad(tensor([[1.0, 2.0]]), (1, 0), value=-3.5).data.tolist() == [[-3.5, 1.0, 2.0]]
    ints = autograd.pad(tensor([1, 2], dtype="int"), (0, 2))
    assert ints.dtype == "int" and ints.data.tolist() == [1, 2, 0, 0]


rng = np.random.default_rng(5)


@pytest.mark.parametrize(
    ("pad", "mode"),
    [((2, 1), "reflect"), ((-1, 2, 1, 1), "reflect"), ((2, 0, 1, 3), "replicate"), ((3, -1), "circular"),
     ((1, 2, 2, 1), "circular"), ((-1, 2, 0, -1), "constant")],
)  # fmt: skip
def test_derivatives(pad, mode) -> None:
    check_gradients(f"pad {pad} {mode}", lambda x: autograd.pad(x * x, pad, mode=mode), rng.normal(size=(1, 3, 4)))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda x: autograd.pad(x, (1, 1), mode="edge"), TensorValueError, "mode 'edge' is not one of PyTorch's"),
        (lambda x: autograd.pad(x, (1, 1), mode="reflect", value=1.0), TensorValueError, "takes no value"),
        (lambda x: autograd.pad(x, (4, 0), mode="reflect"), TensorValueError, "at most 3 places to axis 2 of 4"),
        (lambda x: autograd.pad(x, (0, 0, 1, 1, 1, 1), mode="reflect"), ShapeError, "needs a tensor of 4 or 5"),
        (lambda x: autograd.pad(x[0], (1, 1, 1, 1), mode="replicate"), ShapeError, "2 pairs needs a tensor of 3"),
        (lambda x: autograd.pad(x, (5, 0), mode="circular"), TensorValueError, "at most 4 places"),
        (lambda x: autograd.pad(x, (-3, -2)), ShapeError, r"\(-3, -2\) cuts more than the 4 places of axis 2"),
        (lambda x: autograd.pad(x, (1,)), TensorTypeError, "an even number of ints"),
        (lambda x: autograd.pad(x, (1, 1.5)), TensorTypeError, "an even number of ints"),
        (lambda x: autograd.pad(x, (1, 1) * 4), ShapeError, "4 pairs for a tensor of 3 dimensions"),
    ],
)
def test_mistakes_are_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(Tensor(np.ones((1, 3, 4))))


@pytest.mark.parametrize(
    ("mode", "says"), [("constant", "would have shape"), ("replicate", "would"), ("circular", "at most 2 places")]
)
def test_a_hostile_amount_is_refused_before_anything_is_allocated(mode, says) -> None:
    with pytest.raises(DGError) as caught:
        Session().run(f'y = pad(ones(1, 2, 2), (10 ** 15, 0), mode="{mode}")\n')
    assert caught.value.span is not None and says in caught.value.message
