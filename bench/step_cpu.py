"""Processor time per training step of mlp-moons in DG (dynamic or static) and NumPy by hand, in
one process, taking turns: for a machine others are using, where wall-clock times (bench/run.py)
vary by ±20% and more between repeats. Processor time counts only this process's own work.

    uv run python bench/step_cpu.py                    # the static step (mlp_moons_static.dg)
    uv run python bench/step_cpu.py mlp_moons          # the dynamic one

DG's steps here are replays only: the traces are made before the timing starts, and the time they
took is printed apart (bench/run.py's row includes it). Set OMP_NUM_THREADS=1 to compare with
one BLAS thread.
"""

from __future__ import annotations

import io
import sys
import time

import mlp_moons
from measure import BENCH, dg_program

from dglang.interpreter.host.session import Session
from dglang.interpreter.static import static_builtins
from dglang.interpreter.static.static_builtins import static_function

STEPS, ROUNDS = 1000, 7


class ProcessorClock:
    perf_counter = process_time = staticmethod(time.process_time)


def main(name: str = "mlp_moons_static") -> None:
    setup, measured = dg_program(name, steps=STEPS)
    session = Session(out=io.StringIO(), base_dir=BENCH)
    static_builtins.install(session)
    session.run(setup, f"bench/{name}.dg")
    session.run(dg_program(name, steps=3)[1], f"bench/{name}.dg")  # (the static step's two traces)
    mlp_moons.time = ProcessorClock  # type: ignore[assignment]  # the NumPy loop timed the same way
    dg, numpy = [], []
    for _ in range(ROUNDS):
        start = time.process_time()
        session.run(measured, f"bench/{name}.dg")
        dg.append((time.process_time() - start) / STEPS)
        numpy.append(mlp_moons.hand_numpy(STEPS).value)
    dg.sort()
    numpy.sort()
    middle = ROUNDS // 2
    print(f"{name}: DG {dg[middle] * 1e6:.0f} µs, NumPy by hand {numpy[middle] * 1e6:.0f} µs per step "
          f"(medians of {ROUNDS} rounds of {STEPS:,}): {dg[middle] / numpy[middle]:.2f}×")  # fmt: skip
    fn = static_function(session.globals.vars.get("fast_step"))
    if fn is not None:
        print(f"tracing: {fn.traces} traces, {fn.tracing_time * 1000:.1f} ms (wall clock), before the timing")


if __name__ == "__main__":
    main(*sys.argv[1:])
