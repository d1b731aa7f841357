"""Exercise 5 (ML): the full Jacobian from vector-Jacobian products.

`grad y with seed` and `gradient(y, x, seed)` compute seedᵀ · J, one row combination of the
Jacobian J = dy/dx per backward pass. Add the DG builtin `jacobian(y, x)`, which returns J as a
tensor of shape y.shape + x.shape, J[i..., j...] = d y[i...] / d x[j...], with one backward pass
per element of y (seed = a one-hot tensor of y's shape). J is a plain tensor (not recorded), and
x.grad is left untouched. An x that y does not depend on gets zeros.
See docs/for-ml-courses.md, exercise 5.
"""

from __future__ import annotations

from ast import literal_eval

import numpy as np


def jacobian_of(dg, program: str) -> np.ndarray:
    return np.array(literal_eval(dg(program + "print(J.tolist())\n")))


def test_a_linear_map_has_its_matrix_as_jacobian(dg) -> None:
    W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    J = jacobian_of(dg, f"W = tensor({W})\nx = tensor([1.0, -1.0, 2.0], requires_grad=True)\nJ = jacobian(W @ x, x)\n")
    assert np.array_equal(J, np.array(W))


def test_the_jacobian_of_softmax(dg) -> None:
    program = "x = tensor([1.0, 2.0, 0.5], requires_grad=True)\np = softmax(x)\nJ = jacobian(p, x)\n"
    J = jacobian_of(dg, program)
    x = np.array([1.0, 2.0, 0.5])
    p = np.exp(x) / np.exp(x).sum()
    assert np.allclose(J, np.diag(p) - np.outer(p, p), atol=1e-12)


def test_shapes_and_finite_differences(dg) -> None:
    program = "x = tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)\n"
    program += "J = jacobian(x.sum(axis=0) * x[0].exp(), x)\n"
    J = jacobian_of(dg, program)
    assert J.shape == (2, 2, 2)

    def f(v: np.ndarray) -> np.ndarray:
        return v.sum(axis=0) * np.exp(v[0])

    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    eps = 1e-6
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        assert np.allclose(J[(..., *j)], (f(up) - f(down)) / (2 * eps), atol=1e-6), f"column {j}"


def test_a_scalar_output_and_an_unused_input(dg) -> None:
    program = """
x = tensor([1.0, 2.0], requires_grad=True)
z = tensor(5.0, requires_grad=True)
J = jacobian((x * x).sum(), x)
print(J, jacobian(x * 2, z), x.grad)
"""
    assert dg(program) == "tensor([2., 4.]) tensor([0., 0.]) None\n"
