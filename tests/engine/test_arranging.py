"""gather, tril, triu, flip, roll, tile, repeat_interleave, unfold (autograd/arranging.py), cumsum
(cumulative.py), clamp and erf (functions.py), prod (reductions.py): values and gradients PyTorch
2.13 printed for the same inputs, derivatives against central differences (a tensor used twice
included), and their mistakes named."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import ShapeError, Tensor, TensorIndexError, TensorTypeError, TensorValueError, tensor
from dglang.interpreter.host.session import Session


def grad_of(fn, values):
    x = tensor(values, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.data.tolist()


def test_clamp_passes_g_on_its_boundaries_as_pytorch_does() -> None:
    values = [-1.0, 0.0, 0.5, 1.0, 2.0]
    assert grad_of(lambda x: x.clamp(0.0, 1.0), values) == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert grad_of(lambda x: autograd.clamp(x, min=0.0), values) == [0.0, 1.0, 1.0, 1.0, 1.0]
    assert grad_of(lambda x: autograd.clamp(x, max=0.0), values) == [1.0, 1.0, 0.0, 0.0, 0.0]
    # min above max: every value is max, and nothing passes (PyTorch: zeros of both)
    assert autograd.clamp(tensor(values), 1.0, 0.0).data.tolist() == [0.0] * 5
    assert grad_of(lambda x: x.clamp(1.0, 0.0), values) == [0.0] * 5


def test_prod_sends_the_product_of_the_others_zeros_included() -> None:
    values = [[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]]
    assert grad_of(lambda x: x.prod(axis=1), values) == [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]
    assert grad_of(lambda x: x.prod(), values) == [[0.0] * 3] * 3
    assert autograd.prod(tensor([[1.0, 2.0], [3.0, 4.0]]), 0).data.tolist() == [3.0, 8.0]


def test_gather_is_pytorch_s() -> None:
    x = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    index = tensor([[0, 0], [1, 0]], dtype="int")
    y = autograd.gather(x, 1, index)
    y.sum().backward()
    assert y.data.tolist() == [[1.0, 1.0], [4.0, 3.0]] and x.grad.data.tolist() == [[2.0, 0.0], [1.0, 1.0]]
    # an index smaller than the input on the other axes reads only that corner
    assert x.gather(0, tensor([[1]], dtype="int")).data.tolist() == [[3.0]]


def test_values_pytorch_printed() -> None:
    y = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert autograd.cumsum(y, 1).data.tolist() == [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    assert np.allclose(autograd.erf(tensor([0.5, -1.0])).data, [0.5204998778130465, -0.8427007929497149], rtol=1e-15)
    assert y.triu(1).data.tolist() == [[0.0, 2.0, 3.0], [0.0, 0.0, 6.0]]
    assert y.tril(-1).data.tolist() == [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]]
    assert y.flip(1).data.tolist() == [[3.0, 2.0, 1.0], [6.0, 5.0, 4.0]]
    assert y.tile(2, 1).shape == (4, 3) and autograd.tile(y, (2,)).data.tolist()[0] == [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert autograd.tile(tensor([1.0, 2.0]), (2, 2)).shape == (2, 4)


# PyTorch 2.13.0's values, and the gradient of (out * w).sum() with w = (arange(out.numel()) % 7 - 3),
# for x = arange(1., 13.).reshape(3, 4)
PYTORCH = [
    (
        lambda x: autograd.roll(x, 1),
        [[12.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]],
        [[-2.0, -1.0, 0.0, 1.0], [2.0, 3.0, -3.0, -2.0], [-1.0, 0.0, 1.0, -3.0]],
    ),
    (
        lambda x: x.roll((1, -2), (0, 1)),
        [[11.0, 12.0, 9.0, 10.0], [3.0, 4.0, 1.0, 2.0], [7.0, 8.0, 5.0, 6.0]],
        [[3.0, -3.0, 1.0, 2.0], [0.0, 1.0, -2.0, -1.0], [-1.0, 0.0, -3.0, -2.0]],
    ),
    (
        lambda x: autograd.repeat_interleave(x, 2),
        [v for v in range(1, 13) for _ in range(2)],
        [[-5.0, -1.0, 3.0, 0.0], [-3.0, 1.0, 5.0, -5.0], [-1.0, 3.0, 0.0, -3.0]],
    ),
    (
        lambda x: x.repeat_interleave(tensor([2, 0, 1], dtype="int"), 0),
        [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [9.0, 10.0, 11.0, 12.0]],
        [[-2.0, 0.0, 2.0, -3.0], [0.0, 0.0, 0.0, 0.0], [-2.0, -1.0, 0.0, 1.0]],
    ),
    (
        lambda x: x.unfold(1, 2, 1),
        [[[r + c, r + c + 1] for c in range(3)] for r in (1, 5, 9)],
        [[-3.0, -3.0, 1.0, 2.0], [3.0, -5.0, -1.0, 1.0], [2.0, 0.0, -3.0, 0.0]],
    ),
    (
        lambda x: x.unfold(0, 2, 1).unfold(1, 3, 1),
        [
            [[[1.0, 2.0, 3.0], [5.0, 6.0, 7.0]], [[2.0, 3.0, 4.0], [6.0, 7.0, 8.0]]],
            [[[5.0, 6.0, 7.0], [9.0, 10.0, 11.0]], [[6.0, 7.0, 8.0], [10.0, 11.0, 12.0]]],
        ],
        [[-3.0, 1.0, -4.0, -2.0], [2.0, 4.0, 1.0, 4.0], [-2.0, -4.0, -2.0, -1.0]],
    ),
]


@pytest.mark.parametrize(("fn", "value", "gradient"), PYTORCH)
def test_roll_repeat_interleave_and_unfold_are_pytorch_s(fn, value, gradient) -> None:
    x = Tensor(np.arange(1.0, 13.0).reshape(3, 4), requires_grad=True)
    out = fn(x)
    (out * Tensor(np.arange(float(out.size)).reshape(out.shape) % 7 - 3)).sum().backward()
    assert out.data.tolist() == value and x.grad.data.tolist() == gradient


rng = np.random.default_rng(11)


@pytest.mark.parametrize(
    ("name", "fn", "arrays"),
    [
        ("clamp", lambda x: autograd.clamp(x, -0.5, 0.5), [np.array([-1.3, -0.2, 0.1, 0.4, 0.9])]),
        ("erf", autograd.erf, [rng.normal(size=(2, 3))]),
        ("gelu by erf, x used twice", lambda x: x * (1 + autograd.erf(x / math.sqrt(2))) / 2, [rng.normal(size=4)]),
        ("prod", lambda x: x.prod(axis=1), [rng.uniform(0.5, 2.0, size=(3, 4))]),
        ("prod of everything", lambda x: x.prod(), [rng.uniform(0.5, 2.0, size=(2, 3))]),
        (
            "gather",
            lambda x: autograd.gather(x, 1, tensor([[0, 2, 0], [1, 1, 1]], dtype="int")),
            [rng.normal(size=(2, 3))],
        ),
        ("tril", lambda x: x.tril(), [rng.normal(size=(2, 3, 3))]),
        ("triu", lambda x: x.triu(1) * x, [rng.normal(size=(3, 4))]),
        ("flip", lambda x: x.flip((0, 1)) * x, [rng.normal(size=(2, 3))]),
        ("cumsum", lambda x: autograd.cumsum(x, 0), [rng.normal(size=(3, 2))]),
        ("cumsum twice", lambda x: x.cumsum(1) * x.cumsum(-1), [rng.normal(size=(2, 3))]),
        ("tile", lambda x: x.tile(2, 1, 2), [rng.normal(size=(2, 3))]),
        ("roll", lambda x: x.roll(-1, 1) * x, [rng.normal(size=(2, 3))]),
        ("roll flattened", lambda x: autograd.roll(x, 2) * x, [rng.normal(size=(2, 3))]),
        ("repeat_interleave", lambda x: autograd.repeat_interleave(x * x, 3, 0), [rng.normal(size=(2, 3))]),
        ("unfold, windows overlapping", lambda x: (x * x).unfold(1, 3, 1), [rng.normal(size=(2, 5))]),
        ("unfold, windows apart", lambda x: (x * x).unfold(0, 1, 2), [rng.normal(size=(5, 2))]),
    ],
)
def test_derivatives(name, fn, arrays) -> None:
    check_gradients(name, fn, *arrays, names=["x"])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: autograd.clamp(tensor([1.0])), TensorTypeError, "needs min, max or both"),
        (lambda: autograd.gather(tensor([1.0, 2.0]), 0, tensor([2], dtype="int")), TensorIndexError, "outside 0 to 1"),
        (lambda: autograd.gather(tensor([[1.0]]), 0, tensor([1], dtype="int")), ShapeError, "an index of shape"),
        (lambda: autograd.gather(tensor([1.0]), 0, tensor([0.0])), TensorTypeError, "int tensor"),
        (lambda: autograd.tril(tensor([1.0, 2.0])), ShapeError, "at least 2 dimensions"),
        (lambda: autograd.cumsum(tensor([1.0]), 3), TensorIndexError, "out of range"),
        (lambda: autograd.roll(tensor([1.0]), (1, 2)), ShapeError, "2 shifts and no axes"),
        (lambda: autograd.roll(tensor([[1.0]]), (1, 2), 0), ShapeError, "2 shifts for 1 axes"),
        (lambda: autograd.repeat_interleave(tensor([1.0]), -1), TensorValueError, "cannot be negative"),
        (lambda: autograd.repeat_interleave(tensor([1.0]), 1.5), TensorTypeError, "an int or a 1-d int tensor"),
        (lambda: autograd.repeat_interleave(tensor([1.0, 2.0]), tensor([1, 2, 3], dtype="int")), ShapeError, "3 rep"),
        (lambda: autograd.repeat_interleave(tensor([1.0]), 2, output_size=3), TensorValueError, "repeats make 2"),
        (lambda: tensor([1.0, 2.0]).unfold(0, 3, 1), ShapeError, "windows of 3 along axis 0, which holds 2"),
        (lambda: tensor([1.0, 2.0]).unfold(0, 1, 0), TensorValueError, "step must be an int of at least 1"),
    ],
)
def test_mistakes_are_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


def test_a_program_reaches_each_by_its_names() -> None:
    session = Session()
    session.run(
        "x = tensor([[0.5, -2.0], [3.0, 1.0]], requires_grad=True)\n"
        "y = clamp(x, -1.0, 1.0).sum() + x.clamp(min=0.0).prod() + erf(x).sum() + cumsum(x, 1).tril().sum()\n"
        'y = y + gather(x, 1, tensor([[1], [0]], dtype="int")).sum() + x.flip(0).triu().sum() + tile(x, 2).sum()\n'
        "grad y\n"
    )
    assert session.globals.vars["x"].grad.shape == (2, 2)
    assert isinstance(session.globals.vars["y"], Tensor)
