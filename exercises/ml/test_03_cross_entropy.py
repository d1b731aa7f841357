"""Exercise 3 (ML): the cross-entropy loss, composed from ops that already have rules.

Add the DG builtin `cross_entropy(logits, targets)`: for logits of shape (n, k) and n class
numbers (an int tensor or a list of ints), the mean over the rows of -log_softmax(row)[target].
Build it from existing ops (log_softmax and indexing), so it needs no rule of its own, and check
on paper that its gradient is (softmax(logits) - one_hot(targets)) / n. Logits that are not 2-d,
or a number of targets different from n, is a ShapeError.
See docs/for-ml-courses.md, exercise 3.
"""

from __future__ import annotations

from ast import literal_eval

import numpy as np

PROGRAM = """
logits = tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0]], requires_grad=True)
targets = tensor([0, 1, 1, 2], dtype="int")
loss = cross_entropy(logits, targets)
grad loss
print(loss.item())
print(logits.grad.tolist())
print(cross_entropy(logits, [0, 1, 1, 2]).item() == loss.item())
"""


def expected() -> tuple[float, np.ndarray]:
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0]])
    targets = [0, 1, 1, 2]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    loss = -np.mean(np.log(p[np.arange(4), targets]))
    return loss, (p - np.eye(3)[targets]) / 4


def test_value_and_gradient(dg) -> None:
    printed, grads, same = dg(PROGRAM).splitlines()
    loss, gradient = expected()
    assert abs(float(printed) - loss) < 1e-12
    assert np.allclose(literal_eval(grads), gradient, atol=1e-12)
    assert same == "True"


def test_built_from_existing_ops(dg) -> None:
    program = "loss = cross_entropy(tensor([[1.0, 2.0]], requires_grad=True), [1])\nprint(loss.grad_fn)\n"
    assert dg(program) != "<CrossEntropyBackward>\n"


def test_shapes_are_checked(dg_error) -> None:
    error, _ = dg_error("cross_entropy(ones(3, 2), [0, 1])\n")
    assert error.kind == "ShapeError"
    error, _ = dg_error("cross_entropy(ones(3), [0, 1, 1])\n")
    assert error.kind == "ShapeError"
