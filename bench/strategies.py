"""DG's three execution strategies measured side by side: the table of docs/for-compiler-courses.md.

    uv run python bench/strategies.py                # 5 repeats each, the medians
    uv run python bench/strategies.py --repeats 9

- tree walking, the reference evaluator (semantics/reference.py, DG_EVAL=reference);
- closure compilation, the accelerator (semantics/evaluator.py, the default);
- tracing to generated code (interpreter/static/): the same step wrapped in `static(...)`.

Each number is processor time (time.process_time: this process's own seconds, not the clock's,
which on a shared machine also counts the time other work ran), the median of the repeats, each
measurement in a fresh Python process:
- plain loop: bench/plain_loop.dg, 1,000,000 iterations of `s = s + i * 0.5` (no tensors);
- mlp step: bench/mlp_moons.dg (bench/mlp_moons_static.dg for static), seconds per training
  step over 300 steps, tracing included;
- start-up: a whole `dg bench/hello.dg` process (`--eval reference` for the reference), the
  processor time of the child process.
static(f) traces the ops a function runs on tensors: a loop of plain numbers leaves it nothing to
trace, so it has no row there, and its start-up is the accelerator's (it runs inside that process).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
STRATEGIES = {"reference": "tree walking (reference)", "accelerator": "closures (accelerator)", "static": "static(f)"}
WORKLOADS = {"plain loop": "plain_loop", "mlp step": "mlp_moons", "start-up": "hello"}
SIZES = {"plain_loop": {"iterations": 1_000_000}, "mlp_moons": {"steps": 300}, "mlp_moons_static": {"steps": 300}}


def measure_once(workload: str, strategy: str) -> float | None:
    """Processor seconds of one measurement, run in this process (see `in_fresh_process`)."""
    if workload == "hello":
        return start_up(strategy)
    if strategy == "static" and workload == "plain_loop":
        return None
    sys.path.insert(0, str(BENCH))
    from measure import run_dg_timed

    name = "mlp_moons_static" if strategy == "static" else workload
    _, processor, _ = run_dg_timed(name, static=strategy == "static", **SIZES[name])
    return processor / SIZES[name].get("steps", 1)


def start_up(strategy: str) -> float | None:
    if strategy == "static":
        return None
    sys.path.insert(0, str(BENCH))
    from startup import dg_command, usual_environment  # with Python's bytecode caches, as a user has them

    command = [*dg_command(), *(["--eval", "reference"] if strategy == "reference" else []), str(BENCH / "hello.dg")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, env=usual_environment())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_fresh_process(workload: str, strategy: str) -> float | None:
    environment = {**os.environ, "DG_EVAL": "reference" if strategy == "reference" else "accelerator"}
    done = subprocess.run(
        [sys.executable, __file__, "--one", workload, strategy],
        capture_output=True,
        text=True,
        check=True,
        cwd=BENCH.parent,
        env=environment,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def shown(seconds: float | None, workload: str) -> str:
    if seconds is None:
        return "—"
    if workload == "mlp_moons":
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds:.2f} s"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--one", nargs=2, metavar=("WORKLOAD", "STRATEGY"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(measure_once(*args.one)))
        return
    print("| processor time, median of", args.repeats, "| " + " | ".join(STRATEGIES.values()) + " |")
    print("| --- | " + " | ".join("---" for _ in STRATEGIES) + " |")
    for label, workload in WORKLOADS.items():
        cells = []
        for strategy in STRATEGIES:
            print(f"{label}, {strategy}...", file=sys.stderr)
            found = [in_fresh_process(workload, strategy) for _ in range(args.repeats)]
            cells.append(shown(None if None in found else statistics.median(found), workload))  # type: ignore[type-var]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
