"""Small toy data sets for lessons."""

from __future__ import annotations

import numpy as np

from . import hooks
from .exceptions import TensorValueError
from .op import builtin
from .tensor import Tensor, type_name


@builtin
def moons(n: int = 100, noise: float = 0.1, seed: int = 0) -> tuple[Tensor, Tensor]:
    """The two-moons data set: points X of shape (n, 2) and labels y of shape (n,), 0.0 or 1.0.

    >>> X, y = moons(4)
    >>> X.shape, y
    ((4, 2), tensor([0., 1., 0., 1.]))
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        got = n if isinstance(n, int) else type_name(n)  # never repr() a program's value: it may be nested 100,000 deep
        raise TensorValueError(f"moons needs an int n of at least 2, got {got}")
    hooks.new_shape((n, 2), f"moons({n})")
    rng = np.random.default_rng(int(seed))
    n_top = n // 2
    n_bottom = n - n_top
    top = np.linspace(0, np.pi, n_top)
    bottom = np.linspace(0, np.pi, n_bottom)
    X = np.concatenate(
        [
            np.stack([np.cos(top), np.sin(top)], axis=1),
            np.stack([1 - np.cos(bottom), 0.5 - np.sin(bottom)], axis=1),
        ]
    )
    X = X + rng.normal(scale=float(noise), size=X.shape)
    y = np.concatenate([np.zeros(n_top), np.ones(n_bottom)])
    order = rng.permutation(n)
    return Tensor(X[order]), Tensor(y[order])
