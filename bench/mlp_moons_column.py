"""mlp-moons-column: mlp-moons written in another style (a column of labels, one update statement
per parameter), in DG and PyTorch: the speed of the first style must not be a special case.

The data and initial weights are those of mlp-moons (mlp_moons.data_and_weights).
"""

from __future__ import annotations

import time

from measure import Result, item, run_dg
from mlp_moons import LR, data_and_weights


def dg(steps: int) -> Result:
    seconds, session = run_dg("mlp_moons_column", steps=steps)
    env = session.globals.vars
    return Result(seconds / steps, (item(env["loss"]), item(env["W1"].sum())))


def pytorch(steps: int) -> Result:
    import torch

    torch.set_num_threads(1)
    X_np, t_np, params_np = data_and_weights()
    X, t = torch.from_numpy(X_np), torch.from_numpy(t_np).reshape(100, 1)
    W1, b1, W2, b2, W3, b3 = (torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params_np)

    start = time.perf_counter()
    for _ in range(steps):
        h1 = torch.relu(X @ W1 + b1)
        h2 = torch.relu(h1 @ W2 + b2)
        s = h2 @ W3 + b3
        loss = torch.relu(1 - t * s).mean()
        W1.grad = b1.grad = W2.grad = b2.grad = W3.grad = b3.grad = None  # optimizer.zero_grad()
        loss.backward()
        with torch.no_grad():
            W1 -= LR * W1.grad
            b1 -= LR * b1.grad
            W2 -= LR * W2.grad
            b2 -= LR * b2.grad
            W3 -= LR * W3.grad
            b3 -= LR * b3.grad
    seconds = time.perf_counter() - start
    return Result(seconds / steps, (loss.item(), W1.sum().item()))
