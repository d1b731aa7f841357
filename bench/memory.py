"""memory: peak resident memory (ru_maxrss), each measurement in a fresh process.

- flat training: the peak of bench/mlp_moons.dg at two numbers of steps; the growth must be a
  few MiB at most, whatever the number of steps.
- flat no_grad: the same for bench/no_grad_loop.dg at two numbers of iterations.
- per node: bench/node_chain.dg records a chain of scalar operations and runs `grad` on it:
  (peak RSS - RSS before the chain) / nodes, in DG and in PyTorch on the same chain.
"""

from __future__ import annotations

import io
import time

from measure import BENCH, Result, current_rss_mib, dg_program, in_subprocess, item, peak_rss_mib, run_dg

MIB = 1024 * 1024


# ---- flat peak memory -------------------------------------------------------------------------
def dg_training_peak(steps: int) -> Result:
    run_dg("mlp_moons", steps=steps)
    return Result(peak_rss_mib())


def dg_no_grad_peak(iterations: int) -> Result:
    run_dg("no_grad_loop", iterations=iterations)
    return Result(peak_rss_mib())


def growth(target: str, size: str, small: int, big: int) -> Result:
    """Peak RSS at `big` minus peak RSS at `small`, each in a fresh process."""
    peaks = []
    for n in (small, big):
        outcome = in_subprocess(target, {size: n})
        if outcome.error:
            raise RuntimeError(f"{target}({size}={n}) failed: {outcome.error}")
        peaks.append(outcome.results[0].value)
    note = f"peak {peaks[0]:.1f} MiB at {small:,} {size}, {peaks[1]:.1f} MiB at {big:,}"
    return Result(peaks[1] - peaks[0], note=note)


def dg_training_growth(small: int, big: int) -> Result:
    return growth("memory:dg_training_peak", "steps", small, big)


def dg_no_grad_growth(small: int, big: int) -> Result:
    return growth("memory:dg_no_grad_peak", "iterations", small, big)


# ---- memory per recorded node (run in a fresh process, once) ----------------------------------
def dg_bytes_per_node(nodes: int) -> Result:
    from dglang.interpreter.host.session import Session

    setup, measured = dg_program("node_chain", nodes=nodes)
    session = Session(out=io.StringIO(), base_dir=BENCH)
    session.run(setup, "bench/node_chain.dg")
    before = current_rss_mib()
    start = time.perf_counter()
    session.run(measured, "bench/node_chain.dg")
    seconds = time.perf_counter() - start
    per_node = (peak_rss_mib() - before) * MIB / nodes
    env = session.globals.vars
    return Result(per_node, (item(env["y"]), item(env["a"].grad)), note=f"the chain and its grad took {seconds:.1f} s")


def pytorch_bytes_per_node(nodes: int) -> Result:
    import torch

    torch.set_num_threads(1)
    a = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(0.3, dtype=torch.float64)
    before = current_rss_mib()
    start = time.perf_counter()
    for _ in range(nodes // 2):
        y = y * a + 0.1
    y.backward()
    seconds = time.perf_counter() - start
    per_node = (peak_rss_mib() - before) * MIB / nodes
    return Result(per_node, (y.item(), a.grad.item()), note=f"the chain and its backward took {seconds:.1f} s")
