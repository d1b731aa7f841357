"""The update of the CNN and GPT steps (digits_cnn.py, tiny_gpt.py), written once for each engine.

Plain SGD (`p -= lr * p.grad`), or Adam (Kingma and Ba, 2015) as programs/nn.dg's `adam_step`
writes it: a running mean m and mean square v of each gradient, and p moved by
lr · (m / (1 - β1ᵗ)) / (√(v / (1 - β2ᵗ)) + ε). PyTorch runs its own `torch.optim.Adam`, the same
formula in the order it prefers: results agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


class NumPyAdam:
    """Adam on NumPy arrays, in place and with few temporaries: the floor a NumPy engine can reach."""

    def __init__(self, params: list[np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.moments = [np.zeros_like(p) for p in params]
        self.squares = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        rate = self.lr / (1 - BETA1**self.t)
        scale = 1 / (1 - BETA2**self.t)
        for p, g, m, v in zip(self.params, grads, self.moments, self.squares, strict=True):
            m *= BETA1
            m += (1 - BETA1) * g
            v *= BETA2
            v += (1 - BETA2) * g * g
            denominator = np.sqrt(v * scale)
            denominator += EPS
            p -= rate * m / denominator


def numpy_update(params: list[np.ndarray], lr: float, adam: bool) -> Callable[[list[np.ndarray]], None]:
    """A function of the gradients (in the order of `params`) that updates `params` in place."""
    if adam:
        return NumPyAdam(params, lr).step

    def sgd(grads: list[np.ndarray]) -> None:
        for p, g in zip(params, grads, strict=True):
            p -= lr * g

    return sgd


def torch_update(params: list[Any], lr: float, adam: bool) -> Callable[[], Any]:
    """The same for PyTorch tensors whose `.grad` backward filled: a function of no arguments."""
    import torch

    if adam:
        return torch.optim.Adam(params, lr=lr, betas=(BETA1, BETA2), eps=EPS).step

    def sgd() -> None:
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad

    return sgd
