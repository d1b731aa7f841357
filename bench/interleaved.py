"""Processor time per step of a workload's implementations, measured in turn: for a busy machine.

    uv run python bench/interleaved.py digits-cnn-adam --rounds 7 --reference-python /tmp/torchenv/bin/python
    uv run python bench/interleaved.py digits-cnn-adam tiny-gpt-adam mlp-moons --rounds 7 ...   (each in turn)

bench/run.py runs each implementation's repeats one after the other, so a machine whose speed
drifts (others' work starting and stopping) can favour one of them. Here each round runs every
implementation once, each in a fresh process as run.py does (one BLAS thread for the workloads
marked so), and the rounds are compared with each other: the median processor time of each
implementation and the median of the rounds' ratios to DG. Only workloads that measure
processor time (mlp-moons and its -static, digits-cnn, tiny-gpt and their -adam variants) can be
compared this way.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from typing import Any

from measure import in_subprocess
from run import DG, ONE_THREAD, WORKLOADS


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="bench/interleaved.py", description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="+", choices=[w.name for w in WORKLOADS], metavar="workload")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--reference-python", default=os.environ.get("DG_REFERENCE_PYTHON"))
    args = p.parse_args(argv)
    for name in args.workloads:  # (one after the other: each one's rounds interleave its implementations)
        if measured(next(w for w in WORKLOADS if w.name == name), args.rounds, args.reference_python):
            return 1
    return 0


def measured(workload: Any, rounds: int, reference_python: str | None) -> int:
    """One workload's rounds and summary; 1 if an implementation failed."""
    times: dict[str, list[float]] = {i.label: [] for i in workload.implementations}
    for round_ in range(rounds):
        for implementation in workload.implementations:
            python = reference_python if implementation.reference else None
            env = ONE_THREAD if workload.one_thread else None
            outcome = in_subprocess(implementation.target, workload.full, 1, python=python, env=env)
            if outcome.error or outcome.missing or outcome.results[0].processor is None:
                print(f"{implementation.label}: {outcome.error or outcome.missing or 'no processor time'}")
                return 1
            times[implementation.label].append(outcome.results[0].processor)
        shown = ", ".join(f"{label} {values[-1] * 1e3:.2f} ms" for label, values in times.items())
        print(f"round {round_ + 1}: {shown}", file=sys.stderr)
    print(f"{workload.name}, processor time per step, {rounds} interleaved rounds (median; range):")
    for label, values in times.items():
        line = f"  {label}: {statistics.median(values) * 1e3:.3g} ms ({min(values) * 1e3:.3g}-{max(values) * 1e3:.3g})"
        if label != DG:
            ratios = [d / r for d, r in zip(times[DG], values, strict=True)]
            line += f"; DG / {label}: {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
