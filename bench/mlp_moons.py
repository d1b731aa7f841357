"""mlp-moons: seconds per training step of an MLP 2-16-16-1 on two-moons, in DG, PyTorch and NumPy.

All three train the same network from the same initial weights on the same 100 points (DG's
`moons(100, noise=0.1, seed=0)`): full batch, hinge loss relu(1 - t*s).mean() with t = 2y - 1,
SGD with lr 0.1. Each times only the training loop and divides by the number of steps.
"""

from __future__ import annotations

import time

import numpy as np
from measure import Result, item, run_dg_timed

LAYERS = [(2, 16), (16, 16), (16, 1)]
LR = 0.1


def data_and_weights() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """X, t and [W1, b1, W2, b2, W3, b3] exactly as bench/mlp_moons.dg makes them."""
    from dglang import autograd as ag

    X, y = ag.moons(100, noise=0.1, seed=0)
    ag.seed(0)
    params = []
    for n_in, n_out in LAYERS:
        params.append(ag.randn(n_in, n_out).data * np.sqrt(2.0 / n_in))
        params.append(np.zeros(n_out))
    return X.data, 2 * y.data - 1, params


def dg(steps: int) -> Result:
    seconds, processor, session = run_dg_timed("mlp_moons", steps=steps)
    env = session.globals.vars
    return Result(seconds / steps, (item(env["loss"]), item(env["W1"].sum())), processor=processor / steps)


def dg_static(steps: int) -> Result:
    """The same steps, each one call of a static function (bench/mlp_moons_static.dg). The time
    includes tracing; the note says how much of it that was."""
    from dglang.interpreter.static.static_builtins import static_function

    seconds, processor, session = run_dg_timed("mlp_moons_static", static=True, steps=steps)
    env = session.globals.vars
    fn = static_function(env["fast_step"])
    traces = f"{fn.traces} trace" + "s" * (fn.traces != 1)
    note = f"{traces} took {fn.tracing_time * 1000:.1f} ms of the {seconds * 1000:.0f} ms"
    return Result(seconds / steps, (item(env["loss"]), item(env["W1"].sum())), note, processor=processor / steps)


def pytorch(steps: int) -> Result:
    import torch

    torch.set_num_threads(1)
    X_np, t_np, params_np = data_and_weights()
    X, t = torch.from_numpy(X_np), torch.from_numpy(t_np)
    params = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params_np]
    W1, b1, W2, b2, W3, b3 = params

    def scores(X):
        h = torch.relu(X @ W1 + b1)
        h = torch.relu(h @ W2 + b2)
        return (h @ W3 + b3)[:, 0]

    start, processor = time.perf_counter(), time.process_time()
    for _ in range(steps):
        s = scores(X)
        loss = torch.relu(1 - t * s).mean()
        for p in params:
            p.grad = None  # what optimizer.zero_grad() does
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (loss.item(), W1.sum().item()), processor=processor / steps)


def hand_numpy(steps: int) -> Result:
    """The same network with its backward pass written out by hand."""
    X, t, params = data_and_weights()
    W1, b1, W2, b2, W3, b3 = params
    n = len(X)
    start, processor = time.perf_counter(), time.process_time()
    for _ in range(steps):
        # forward
        z1 = X @ W1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ W2 + b2
        h2 = np.maximum(z2, 0)
        s = (h2 @ W3 + b3)[:, 0]
        margin = 1 - t * s
        loss = np.maximum(margin, 0).mean()
        # backward
        ds = (-t * (margin > 0) / n)[:, None]
        dW3, db3 = h2.T @ ds, ds.sum(axis=0)
        dz2 = (ds @ W3.T) * (z2 > 0)
        dW2, db2 = h1.T @ dz2, dz2.sum(axis=0)
        dz1 = (dz2 @ W2.T) * (z1 > 0)
        dW1, db1 = X.T @ dz1, dz1.sum(axis=0)
        # update, in place as the others do
        for p, g in ((W1, dW1), (b1, db1), (W2, dW2), (b2, db2), (W3, dW3), (b3, db3)):
            p -= LR * g
    seconds, processor = time.perf_counter() - start, time.process_time() - processor
    return Result(seconds / steps, (float(loss), float(W1.sum())), processor=processor / steps)
