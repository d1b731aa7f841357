"""Processor time per step of a bench program in two checkouts of DG, in turn: did a change pay?

    git worktree add ../dg-main main
    OMP_NUM_THREADS=1 uv run python bench/before_after.py ../dg-main . digits_cnn --set batch=32 --set adam=1

Each measurement is a fresh process that loads DG from one checkout (its engine and interpreter)
and runs this checkout's bench/NAME.dg: the setup, one warm-up run of the measured part, then
`--repeats` timed runs of it (processor time, and minor page faults, per step). The checkouts take
turns for `--rounds` rounds, so a machine whose speed drifts favours neither; the medians of
each are printed, and the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def measured_here(root: str, name: str, steps: int, repeats: int, sizes: dict[str, int]) -> list[float]:
    """In a fresh process: DG loaded from `root`, the medians of processor seconds and minor page
    faults per step of bench/NAME.dg's measured part (run once first, to warm up)."""
    import importlib.util
    import io
    import resource
    import time

    spec = importlib.util.spec_from_file_location("dglang", f"{root}/__init__.py", submodule_search_locations=[root])
    assert spec is not None and spec.loader is not None
    sys.modules["dglang"] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from measure import dg_program

    from dglang.interpreter.frontends.sessions import new_session

    setup, measured = dg_program(name, steps=steps, **sizes)
    session = new_session(out=io.StringIO(), base_dir=BENCH)
    session.run(setup, name)
    session.run(measured, name)
    times, faults = [], []
    for _ in range(repeats):
        before, start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.process_time()
        session.run(measured, name)
        times.append((time.process_time() - start) / steps)
        faults.append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / steps)
    return [statistics.median(times), statistics.median(faults)]


def measure(root: Path, name: str, steps: int, repeats: int, sizes: dict[str, int]) -> tuple[float, float]:
    command = [sys.executable, __file__, "--measure", str(root), name, str(steps), str(repeats), json.dumps(sizes)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds, faults = json.loads(done.stdout.splitlines()[-1])
    return seconds, faults


def main(argv: list[str]) -> int:
    if argv[:1] == ["--measure"]:
        root, name, steps, repeats, sizes = argv[1:]
        print(json.dumps(measured_here(root, name, int(steps), int(repeats), json.loads(sizes))))
        return 0
    p = argparse.ArgumentParser(prog="bench/before_after.py", description=__doc__.split("\n")[0])
    p.add_argument("before", type=Path, help="a checkout of DG (the repository's root)")
    p.add_argument("after", type=Path)
    p.add_argument("program", help="bench/PROGRAM.dg, with a `steps = N` line")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--set", action="append", default=[], metavar="SIZE=N", help="another size line: batch=32")
    args = p.parse_args(argv)
    sizes = {k: int(v) for k, v in (item.split("=") for item in args.set)}
    runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for label, root in (("before", args.before), ("after", args.after)):
            runs[label].append(measure(root.resolve(), args.program, args.steps, args.repeats, sizes))
    for label, results in runs.items():
        seconds = statistics.median(s for s, _ in results)
        faults = statistics.median(f for _, f in results)
        print(f"{label}: {seconds * 1e3:.3g} ms per step ({faults:.0f} minor page faults per step)")
    ratios = [a[0] / b[0] for a, b in zip(runs["after"], runs["before"], strict=True)]
    low, high = min(ratios), max(ratios)
    print(f"after / before: {statistics.median(ratios):.2f} ({low:.2f}-{high:.2f}) over {args.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
