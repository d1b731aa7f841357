"""Did a change to static code generation pay? Two sessions of one bench program's static step in
one process, one traced with the change undone and one with it, replayed in turn (processor time).

    OMP_NUM_THREADS=1 uv run python bench/static_ab.py tiny_gpt UNDO.py --steps 10 --rounds 9
    OMP_NUM_THREADS=1 uv run python bench/static_ab.py digits_cnn UNDO.py --steps 200 --rounds 9

UNDO.py defines `undo()`: it puts the code back as it was before the change (a bare form, a pass)
and returns a function that puts the change back. Session A is traced while the change is undone,
session B after; a trace keeps the code it was compiled to, so the two then replay side by side,
taking turns (A first in even rounds, B first in odd ones). For instance, the bare exp before it
was the op's own forward:

    import numpy as np
    from dglang.autograd import functions
    from dglang.interpreter.static import bare

    def undo():
        kept = bare.FORMS[functions.Exp]
        bare.FORMS[functions.Exp] = bare._unary(np.exp)
        return lambda: bare.FORMS.__setitem__(functions.Exp, kept)

Printed: each session's median processor time per replayed step and the median of the rounds'
ratios (with change / without). The two sessions draw their batches from one random generator,
so their losses differ; results are the tests' business (tests/static/), not this script's.
"""

from __future__ import annotations

import argparse
import io
import runpy
import statistics
import time

from measure import BENCH, dg_program

from dglang.interpreter.host.allocator import keep_freed_memory
from dglang.interpreter.host.session import Session
from dglang.interpreter.static import static_builtins

SIZES = {  # the -static rows of bench/run.py
    "tiny_gpt": {"characters": 200_000, "adam": 1, "fast": 1},
    "digits_cnn": {"batch": 32, "adam": 1, "fast": 1},
}


def traced_session(name: str, steps: int) -> tuple[Session, str]:
    """A session that ran the program's setup (which sets `steps`) and its measured part once,
    its static step's traces made then; and the measured part, to replay."""
    setup, measured = dg_program(name, steps=steps, **SIZES[name])
    session = Session(out=io.StringIO(), base_dir=BENCH)
    static_builtins.install(session)
    session.run(setup, f"bench/{name}.dg")
    session.run(measured, f"bench/{name}.dg")
    return session, measured


def main() -> None:
    p = argparse.ArgumentParser(prog="bench/static_ab.py", description=__doc__.split("\n")[0])
    p.add_argument("program", choices=sorted(SIZES))
    p.add_argument("undo", help="a Python file defining undo()")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=9)
    args = p.parse_args()
    keep_freed_memory()  # as `dg` does at start-up
    redo = runpy.run_path(args.undo)["undo"]()
    try:
        without = traced_session(args.program, args.steps)
    finally:
        redo()
    with_ = traced_session(args.program, args.steps)
    path = f"bench/{args.program}.dg"
    times: dict[str, list[float]] = {"without": [], "with": []}
    for round_ in range(args.rounds):
        order = [("without", without), ("with", with_)]
        for label, (session, measured) in order if round_ % 2 == 0 else order[::-1]:
            start = time.process_time()
            session.run(measured, path)
            times[label].append((time.process_time() - start) / args.steps)
    ratios = [b / a for a, b in zip(times["without"], times["with"], strict=True)]
    print(
        f"{args.program}: without the change {statistics.median(times['without']) * 1e3:.3g} ms, with it "
        f"{statistics.median(times['with']) * 1e3:.3g} ms per step; with / without {statistics.median(ratios):.3f} "
        f"({min(ratios):.3f}-{max(ratios):.3f}) over {args.rounds} rounds"
    )


if __name__ == "__main__":
    main()
