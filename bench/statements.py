"""What DG statements cost, in one process: each timed as the body of a loop run in a session that
ran a set-up program first; processor time per iteration, the fastest of seven runs, less the
cost of an empty loop. Statements timed this way take turns in one process, so a busy machine
skews them less than runs in fresh processes do (bench/before_after.py).

    sed '/^# ---- measured/,$d' bench/mlp_moons.dg > /tmp/moons_setup.dg
    OMP_NUM_THREADS=1 uv run python bench/statements.py /tmp/moons_setup.dg 'a = X @ W1' 'a = X[:, 0]'

A statement of several lines is one argument with newlines in it (`$'with no_grad:\\n    p -= 1.0'`
in bash). Set-up and statements run with the limits and builtins every `dg FILE` run has.
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.allocator import keep_freed_memory


def loop(body: str, count: int) -> str:
    return f"for _ in range({count}):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("setup", type=Path, help="a DG program run once first (its names are the statements')")
    parser.add_argument("statements", nargs="+", help="each timed on its own")
    parser.add_argument("--count", type=int, default=3000, help="iterations of each loop (default 3000)")
    args = parser.parse_args()
    keep_freed_memory()  # as `dg` does at start-up
    session = new_session(out=io.StringIO(), base_dir=args.setup.resolve().parent)
    session.run(args.setup.read_text(), str(args.setup))

    def per_iteration(body: str) -> float:
        text, fastest = loop(body, args.count), float("inf")
        for _ in range(7):
            start = time.process_time()
            session.run(text, "<timed>")
            fastest = min(fastest, time.process_time() - start)
        return fastest / args.count * 1e6

    empty = per_iteration("pass")
    print(f"{'(an empty loop)':60s} {empty:9.2f} µs")
    for statement in args.statements:
        shown = " / ".join(statement.splitlines())
        print(f"{shown[:60]:60s} {per_iteration(statement) - empty:9.2f} µs")


if __name__ == "__main__":
    main()
