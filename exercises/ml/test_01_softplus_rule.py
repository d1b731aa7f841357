"""Exercise 1 (ML): derive the derivative of softplus and add it to the engine as an op of its own.

softplus(x) = log(1 + exp(x)), a smooth relu. An op is declared in one place, and this one goes
in autograd/functions.py (look at `Sigmoid` and `Relu` there): one class `Softplus(Op)` with its
rule as text (which `dg graph` writes on the edge), the line saying how DG reaches it
(`method = builtin = numbers = True`), its forward on NumPy values and its rule under it. DG then
has the builtin `softplus(x)` (a number gives a number, a tensor a tensor) and the tensor method
`x.softplus()`, with nothing else to change by hand: then `uv run python tools/regenerate.py`
writes what is made from the declarations (docs/language.md's tables, the editors' builtins, and
Python's `x.softplus()` in autograd/tensor.py).
- It is one recorded op, "Softplus" (grad_fn <SoftplusBackward>), not log(1 + exp(x)) built
  from other ops: derive d softplus / dx and write the rule, and its text in the declaration.
- It never overflows: softplus(1000) is 1000 and softplus(-1000) is 0 (not inf, not nan).
- The rule is built from engine ops, so the second derivative works with gradient().
See docs/for-ml-courses.md, exercise 1.
"""

from __future__ import annotations

import math

import numpy as np
from finite_differences import check_rule


def softplus():
    from dglang.autograd import function, functions

    assert hasattr(functions, "Softplus"), "autograd/functions.py declares no Softplus op yet"
    return function(functions.Softplus)


def test_values_and_no_overflow() -> None:
    from dglang.autograd import tensor

    y = softplus()(tensor([-1000.0, -1.0, 0.0, 2.0, 1000.0]))
    expected = [0.0, math.log1p(math.exp(-1.0)), math.log(2.0), math.log1p(math.exp(2.0)), 1000.0]
    assert np.allclose(y.data, expected, rtol=1e-12, atol=1e-300)


def test_one_recorded_op_with_its_own_rule() -> None:
    from dglang.autograd import tensor

    x = tensor([0.5, -2.0], requires_grad=True)
    y = softplus()(x)
    assert y.grad_fn is not None and y.grad_fn.op.name == "Softplus"
    assert y.grad_fn.inputs == (x,)
    assert len(y.grad_fn.op.rules) == 1 and "g" in y.grad_fn.op.rules[0], "declare the rule's text too"


def test_rule_matches_finite_differences() -> None:
    values = np.random.default_rng(0).normal(scale=3.0, size=(3, 4))
    check_rule("softplus", softplus(), values)


def test_second_derivative() -> None:
    from dglang.autograd import gradient, tensor

    x = tensor([-1.0, 0.0, 2.0], requires_grad=True)
    first = gradient(softplus()(x).sum(), x)
    second = gradient(first.sum(), x)
    s = 1 / (1 + np.exp(-x.data))
    assert np.allclose(first.data, s) and np.allclose(second.data, s * (1 - s))


def test_in_dg(dg) -> None:
    program = """
x = tensor([0.0, 1.0], requires_grad=True)
y = softplus(x)
grad y.sum()
print(y.grad_fn, round(softplus(0), 6), round(x.softplus()[1].item(), 6))
print(x.grad)
"""
    assert dg(program) == "<SoftplusBackward> 0.693147 1.313262\ntensor([0.5000, 0.7311])\n"
