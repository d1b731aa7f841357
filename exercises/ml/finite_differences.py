"""Central finite differences, the check every derivative rule must pass (as tests/support/gradcheck_util.py does).

d f / d x[i]  ~  (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dglang.autograd import Tensor, tensor

EPS = 1e-6


def check_rule(name: str, op: Callable[[Tensor], Tensor], values: np.ndarray, tolerance: float = 1e-6) -> None:
    """Assert that backward through `op` gives what finite differences give, for a weighted sum of its output."""
    values = np.array(values, dtype=np.float64)
    weights = np.random.default_rng(1).normal(size=op(tensor(values.tolist())).shape)

    def loss(v: np.ndarray) -> float:
        return float((op(tensor(v.tolist())) * Tensor(weights)).sum().item())

    x = tensor(values.tolist(), requires_grad=True)
    (op(x) * Tensor(weights)).sum().backward()
    assert x.grad is not None, f"{name}: no gradient reached the input"
    for i in np.ndindex(values.shape):
        up, down = values.copy(), values.copy()
        up[i] += EPS
        down[i] -= EPS
        numeric = (loss(up) - loss(down)) / (2 * EPS)
        received = x.grad.data[i]
        assert abs(received - numeric) <= tolerance * max(1.0, abs(numeric)), (
            f"{name}: d loss / d x{list(i)} should be {numeric:.6f} (finite differences), backward gave {received:.6f}"
        )
