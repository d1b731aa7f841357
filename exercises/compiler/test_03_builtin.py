"""Exercise 3 (compiler): a builtin with its derivative, `clip(x, low, high)`.

- `clip(x, low, high)` limits x to [low, high]: a number gives a number, a tensor a tensor;
  tensors also get the method `x.clip(low, high)`. `low` and `high` are numbers.
- On tensors it is one recorded op, "Clip" (grad_fn <ClipBackward>), whose rule passes the
  gradient where low <= x <= high and sends 0 elsewhere.
- low > high is a ValueError.
See docs/for-compiler-courses.md, exercise 3.
"""

from __future__ import annotations

import numpy as np


def test_clip_numbers(dg) -> None:
    assert dg("print(clip(5, 0, 3), clip(-1.5, 0, 3), clip(2, 0, 3))\n") == "3 0 2\n"


def test_clip_a_tensor_with_the_builtin_and_the_method(dg) -> None:
    program = "x = tensor([-2.0, 0.5, 4.0])\nprint(clip(x, 0, 1))\nprint(x.clip(-1, 1))\n"
    assert dg(program) == "tensor([0.0000, 0.5000, 1.0000])\ntensor([-1.0000,  0.5000,  1.0000])\n"


def test_clip_is_one_recorded_op_with_its_rule(dg) -> None:
    program = """
x = tensor([-2.0, 0.0, 0.5, 1.0, 4.0], requires_grad=True)
y = clip(x, 0, 1)
print(y.grad_fn)
grad (y * tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum()
print(x.grad)
"""
    assert dg(program) == "<ClipBackward>\ntensor([0., 2., 3., 4., 0.])\n"


def test_clip_gradient_matches_finite_differences() -> None:
    from dglang.autograd import Tensor, tensor
    from dglang.interpreter.host.session import Session

    clip = Session().builtins.vars.get("clip")
    assert clip is not None, "there is no builtin named clip"
    rng = np.random.default_rng(0)
    values = rng.uniform(-2, 2, size=8)
    values = values[np.abs(np.abs(values) - 1) > 0.05]  # keep clear of the kinks at -1 and 1
    x = tensor(values.tolist(), requires_grad=True)
    weights = rng.normal(size=values.shape)
    (clip.fn(x, -1, 1) * Tensor(weights)).sum().backward()
    eps = 1e-6
    for i in range(len(values)):
        up, down = values.copy(), values.copy()
        up[i] += eps
        down[i] -= eps
        numeric = (np.clip(up, -1, 1) @ weights - np.clip(down, -1, 1) @ weights) / (2 * eps)
        assert abs(x.grad.data[i] - numeric) < 1e-5, f"d/dx[{i}]: expected {numeric}, got {x.grad.data[i]}"


def test_low_above_high_is_a_value_error(dg_error) -> None:
    error, _ = dg_error("clip(tensor([1.0]), 3, 1)\n")
    assert error.kind == "ValueError"
