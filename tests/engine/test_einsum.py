"""einsum (autograd/contraction.py), repeat (arranging.py) and sign (functions.py): values and
gradients PyTorch 2.13 printed for the same inputs, first and second derivatives against central
differences in float64 over the subscripts courses write (shapes that broadcast, an operand used
twice, repeated letters), and their mistakes named."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import ShapeError, Tensor, TensorTypeError, TensorValueError, tensor
from dglang.interpreter.host.session import Session

A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
B = [[1.0, -1.0], [0.5, 2.0], [-3.0, 0.25]]


def test_values_and_gradients_pytorch_printed() -> None:
    a, b = tensor(A, requires_grad=True), tensor(B, requires_grad=True)
    y = autograd.einsum("ij,jk->ik", a, b)
    (y * y).sum().backward()
    assert y.data.tolist() == [[-7.0, 3.75], [-11.5, 7.5]]
    assert a.grad.data.tolist() == [[-21.5, 8.0, 43.875], [-38.0, 18.5, 72.75]]
    assert b.grad.data.tolist() == [[-106.0, 67.5], [-143.0, 90.0], [-180.0, 112.5]]

    m = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    trace = autograd.einsum("ii", m)
    trace.backward()
    assert trace.item() == 5.0 and m.grad.data.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    m.grad = None
    diagonal = autograd.einsum("ii->i", m)
    (diagonal * tensor([2.0, 3.0])).sum().backward()
    assert diagonal.data.tolist() == [1.0, 4.0] and m.grad.data.tolist() == [[2.0, 0.0], [0.0, 3.0]]

    x = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    squares = autograd.einsum("ij,ij->", x, x)  # one tensor as both operands
    squares.backward()
    assert squares.item() == 30.0 and x.grad.data.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert autograd.einsum("i,j", tensor([1.0, 2.0]), tensor([3.0, 4.0, 5.0])).data.tolist() == [
        [3.0, 4.0, 5.0],
        [6.0, 8.0, 10.0],
    ]
    assert autograd.einsum("ba", tensor([[1.0, 2.0, 3.0]])).data.tolist() == [[1.0], [2.0], [3.0]]  # sorted: "ab"


def test_repeat_is_pytorch_s() -> None:
    x = tensor(A, requires_grad=True)
    r = autograd.repeat(x, 2, 1, 2)
    (r * r).sum().backward()
    assert r.shape == (2, 2, 6) and r.data[1, 1].tolist() == [4.0, 5.0, 6.0, 4.0, 5.0, 6.0]
    assert x.grad.data.tolist() == [[8.0, 16.0, 24.0], [32.0, 40.0, 48.0]]
    assert r.grad_fn.op.name == "Repeat"


def test_sign_is_pytorch_s() -> None:
    x = tensor([-2.0, 0.0, 3.0], requires_grad=True)
    assert autograd.sign(x).data.tolist() == [-1.0, 0.0, 1.0]
    (x * x.sign()).sum().backward()  # |x|, with sign a constant: PyTorch's gradient of sign is 0
    assert x.grad.data.tolist() == [-1.0, 0.0, 1.0]


rng = np.random.default_rng(26)


def normal(*shape: int) -> np.ndarray:
    return rng.normal(size=shape)


EINSUMS = [  # (equation, operand shapes): what courses write, and the broadcasting cases
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # a matrix product
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),  # a batch of them
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 2, 2)]),  # attention's scores
    ("ij->ji", [(2, 3)]),  # a transpose
    ("ii->", [(3, 3)]),  # the trace
    ("ii->i", [(3, 3)]),  # the diagonal
    ("iij->j", [(2, 2, 3)]),  # a repeated letter beside another
    ("i,j->ij", [(2,), (3,)]),  # an outer product
    ("ij->j", [(2, 3)]),  # a sum over axis 0
    ("ij->", [(2, 3)]),  # over everything
    ("i,i->", [(3,), (3,)]),  # a dot product
    ("ij,j->i", [(2, 3), (3,)]),  # a matrix times a vector
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),  # three operands
    ("ij,kl->ijkl", [(2, 1), (1, 2)]),
    ("ij", [(2, 3)]),  # no output given: the letters used once, in order
    ("ji", [(2, 3)]),  # ... sorted: a transpose
    ("ij,jk", [(2, 3), (3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # `...` axes that broadcast
    ("...i,i->...", [(2, 3, 2), (2,)]),
    ("ij,ij->ij", [(2, 3), (1, 3)]),  # an axis of length 1 that broadcasts
    ("ij,jk->ik", [(2, 3), (1, 4)]),  # ... along a summed letter
    ("i,j->", [(2,), (3,)]),  # letters each operand alone has, summed away
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUMS, ids=[e for e, _ in EINSUMS])
def test_derivatives_against_central_differences(equation: str, shapes: list[tuple[int, ...]]) -> None:
    arrays = [normal(*s) for s in shapes]
    expected = np.einsum(equation, *arrays)
    assert np.allclose(autograd.einsum(equation, *map(Tensor, arrays)).data, expected, rtol=1e-12, atol=1e-12)
    check_gradients(f"einsum {equation}", lambda *xs: autograd.einsum(equation, *xs), *arrays)


@pytest.mark.parametrize(
    ("name", "fn", "arrays"),
    [
        ("one operand twice", lambda x: autograd.einsum("ij,kj->ik", x, x), [normal(2, 3)]),
        ("a trace of a product with itself", lambda x: autograd.einsum("ij,ji->", x, x), [normal(3, 3)]),
        ("the operands given as a list", lambda a, b: autograd.einsum("ij,jk->ik", [a, b]), [normal(2, 2)] * 2),
        ("repeat", lambda x: autograd.repeat(x * x, 2, 1, 2), [normal(2, 3)]),
        ("repeat of a vector", lambda x: autograd.repeat(x, 3) * autograd.repeat(x, (3,)), [normal(2)]),
        ("sign times x", lambda x: x * x.sign(), [np.array([-1.5, 0.5, 2.0])]),
    ],
)
def test_more_derivatives(name, fn, arrays) -> None:
    check_gradients(name, fn, *arrays)


def test_a_long_einsum_is_computed_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the hooks' long_product, the same values, a slice at a time (a timeout can stop it between two)."""
    from dglang.autograd import hooks

    calls, einsum = [], np.einsum
    monkeypatch.setattr(np, "einsum", lambda *args, **kw: calls.append(1) or einsum(*args, **kw))

    class Short(hooks.Hooks):
        long_product = 50

    a, b = normal(4, 5, 6), normal(4, 6, 3)
    previous = hooks.install(Short())
    try:
        batched = autograd.einsum("bij,bjk->bik", Tensor(a), Tensor(b)).data
        summed = autograd.einsum("bij,bjk->", Tensor(a), Tensor(b)).data
        c = normal(3, 3, 3, 3, 3, 3)
        everything = autograd.einsum("abcdef->", Tensor(c)).data  # each letter short: sliced again and again
        d = normal(4, 4, 3, 5)
        traced = autograd.einsum("iijk->jk", Tensor(d)).data  # a repeated letter: both its axes sliced alike
    finally:
        hooks.install(previous)
    assert np.allclose(batched, a @ b) and np.allclose(summed, (a @ b).sum()) and np.isclose(everything, c.sum())
    assert len(calls) > 10  # in slices
    assert np.allclose(traced, einsum("iijk->jk", d))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: autograd.einsum("ij,jk->ik", tensor([[1.0]])), TensorValueError, "names 2 operands, and 1"),
        (lambda: autograd.einsum("ij->ik", tensor([[1.0]])), TensorValueError, "'k' is in none of the operands"),
        (lambda: autograd.einsum("ij->ii", tensor([[1.0]])), TensorValueError, "'i' is repeated"),
        (lambda: autograd.einsum("i1->i", tensor([[1.0]])), TensorValueError, "is not an equation"),
        (lambda: autograd.einsum("ijk->i", tensor([[1.0]])), ShapeError, "names 3 axes, for an operand of shape"),
        (lambda: autograd.einsum("ij,jk", tensor([[1.0, 2.0]]), autograd.ones(3, 2)), ShapeError, "lengths 2 and 3"),
        (lambda: autograd.einsum(tensor([1.0]), "i"), TensorTypeError, "the first argument is the equation"),
        (lambda: autograd.repeat(tensor([[1.0]]), 2), ShapeError, "1 counts for a tensor of 2 dimensions"),
    ],
)
def test_mistakes_are_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


def test_a_program_reaches_each_by_its_names() -> None:
    session = Session()
    session.run(
        "a = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
        'y = einsum("ij,jk->ik", a, a).sum() + einsum("ii", a) + a.repeat(2, 1).sum() + (a * sign(a)).sum()\n'
        "y = y + (a * a.sign()).sum()\n"
        "grad y\n"
    )
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    # d/da of sum(a @ a) + trace(a) + 2 sum(a) + 2 sum(|a|)
    expected = np.ones((2, 2)) @ x.T + x.T @ np.ones((2, 2)) + np.eye(2) + 4.0
    assert np.allclose(session.globals.vars["a"].grad.data, expected)
