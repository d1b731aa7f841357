"""big-matmul: loss = (A @ B @ C @ D).sum() and its gradients for A, B, C, D, in DG and in NumPy by hand.

Nine products of n x n matrices (three forward, six backward): DG should add almost nothing to
the BLAS calls it makes. Both use the same NumPy, so the same BLAS with its default threads.
"""

from __future__ import annotations

import time

import numpy as np
from measure import Result, item, run_dg


def dg(n: int) -> Result:
    seconds, session = run_dg("big_matmul", n=n)
    env = session.globals.vars
    return Result(seconds, (item(env["loss"]), item(env["A"].grad.sum()), item(env["D"].grad.sum())))


def hand_numpy(n: int) -> Result:
    """The same matrices as bench/big_matmul.dg, the chain rule written out."""
    from dglang import autograd as ag

    ag.seed(0)
    A, B, C, D = (ag.randn(n, n).data for _ in range(4))
    start = time.perf_counter()
    AB = A @ B
    ABC = AB @ C
    loss = (ABC @ D).sum()
    g = np.ones((n, n))  # d loss / d (ABC @ D)
    dD = ABC.T @ g
    dABC = g @ D.T
    dC = AB.T @ dABC
    dAB = dABC @ C.T
    dB = A.T @ dAB
    dA = dAB @ B.T
    seconds = time.perf_counter() - start
    assert dB.shape == dC.shape == (n, n)
    return Result(seconds, (float(loss), float(dA.sum()), float(dD.sum())))
