"""Exercise 4 (ML): gradient clipping, `clip_grad_norm(params, max_norm)`.

Add the DG builtin `clip_grad_norm(params, max_norm)`: params is a list of tensors. It returns
the total norm sqrt(sum of every squared .grad entry) as a float, and, when that is above
max_norm, scales every .grad by max_norm / total so the total becomes max_norm. Tensors whose
.grad is None are skipped. The scaling is not recorded (the new gradients have no grad_fn),
even while gradients are being recorded.
See docs/for-ml-courses.md, exercise 4.
"""

from __future__ import annotations


def test_large_gradients_are_scaled_down(dg) -> None:
    program = """
w = tensor([3.0, 0.0], requires_grad=True)
b = tensor(4.0, requires_grad=True)
grad (w * w).sum() / 2 + b * b / 2      # w.grad = w = [3, 0], b.grad = b = 4: total norm 5
total = clip_grad_norm([w, b], 1.0)
print(total, type(total))
print(w.grad, b.grad, w.grad.grad_fn, w.grad.requires_grad)
"""
    assert dg(program) == "5.0 float\ntensor([0.6000, 0.0000]) tensor(0.8000) None False\n"


def test_small_gradients_are_left_alone(dg) -> None:
    program = """
w = tensor([0.3, 0.4], requires_grad=True)
grad (w * w).sum() / 2
print(round(clip_grad_norm([w], 1.0), 6), w.grad)
"""
    assert dg(program) == "0.5 tensor([0.3000, 0.4000])\n"


def test_tensors_without_gradient_are_skipped(dg) -> None:
    program = """
w = tensor(2.0, requires_grad=True)
unused = tensor([1.0, 1.0], requires_grad=True)
grad w * 6.0
print(clip_grad_norm([w, unused], 3.0), w.grad, unused.grad)
"""
    assert dg(program) == "6.0 tensor(3.) None\n"
