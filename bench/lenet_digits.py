"""A LeNet-style CNN on 8×8 images, trained with the engine's conv2d and max_pool2d: the time per epoch.

    uv run python bench/lenet_digits.py [epochs]

1,797 images (the size of scikit-learn's digits; random values here: the work is the same), in
batches of 64: conv 1→6 (3×3, padding 1), relu, max pool 2; conv 6→16, relu, max pool 2; a
linear layer to 10 classes, log_softmax, plain gradient descent. docs/performance.md has the
numbers.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dglang import autograd as ag
from dglang.autograd import Tensor, no_grad


def train(epochs: int) -> float:
    """Seconds per epoch."""
    rng = np.random.default_rng(0)
    images, labels = rng.normal(size=(1797, 1, 8, 8)), np.eye(10)[rng.integers(0, 10, 1797)]

    def parameter(*shape: int, scale: float) -> Tensor:
        return Tensor(rng.normal(size=shape) * scale, requires_grad=True)

    w1, b1 = parameter(6, 1, 3, 3, scale=0.3), parameter(6, scale=0.0)
    w2, b2 = parameter(16, 6, 3, 3, scale=0.1), parameter(16, scale=0.0)
    w3, b3 = parameter(64, 10, scale=0.1), parameter(10, scale=0.0)
    parameters = [w1, b1, w2, b2, w3, b3]
    start = time.perf_counter()
    for _ in range(epochs):
        for i in range(0, len(images), 64):
            x, y = Tensor(images[i : i + 64]), Tensor(labels[i : i + 64])
            h = ag.max_pool2d(ag.conv2d(x, w1, b1, padding=1).relu(), 2)
            h = ag.max_pool2d(ag.conv2d(h, w2, b2, padding=1).relu(), 2)
            loss = -((h.reshape(h.shape[0], -1) @ w3 + b3).log_softmax(1) * y).sum() / x.shape[0]
            for p in parameters:
                p.grad = None
            loss.backward()
            with no_grad():
                for p in parameters:
                    p -= 0.05 * p.grad
    return (time.perf_counter() - start) / epochs


if __name__ == "__main__":
    print(f"{train(int(sys.argv[1]) if len(sys.argv) > 1 else 5):.3f} s per epoch")
