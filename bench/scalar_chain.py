"""scalar-chain: forward and backward of a 100,000-iteration loop on scalars, in DG, PyTorch, micrograd.

The loop branches on the value it computes (`if y > 0.5`), so each iteration records two nodes
and the graph is a chain of about 200,000 nodes: a test of per-operation overhead and of a
backward pass that does not recurse. Each implementation times the loop and the backward pass.
"""

from __future__ import annotations

import sys
import time

from measure import Result, item, run_dg


def dg(iterations: int) -> Result:
    seconds, session = run_dg("scalar_chain", iterations=iterations)
    env = session.globals.vars
    return Result(seconds, (item(env["y"]), item(env["a"].grad)))


def pytorch(iterations: int) -> Result:
    """0-d float64 tensors, one thread."""
    import torch

    torch.set_num_threads(1)
    a = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(0.3, dtype=torch.float64)
    start = time.perf_counter()
    for _ in range(iterations):
        if y > 0.5:  # noqa: SIM108  (the same statement as the DG program's)
            y = y * a + 0.1
        else:
            y = y + a * 0.3
    y.backward()
    seconds = time.perf_counter() - start
    return Result(seconds, (y.item(), a.grad.item()))


def micrograd_value(iterations: int) -> Result:
    """micrograd's Value; its backward sorts the graph recursively, hence the raised recursion limit."""
    from micrograd.engine import Value

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * iterations + 1000))
    a = Value(0.7)
    y = Value(0.3)
    start = time.perf_counter()
    for _ in range(iterations):
        # Value has no comparisons: the branch reads the number, as DG's `if` does.
        if y.data > 0.5:  # noqa: SIM108
            y = y * a + 0.1
        else:
            y = y + a * 0.3
    y.backward()
    seconds = time.perf_counter() - start
    return Result(seconds, (y.data, a.grad))
