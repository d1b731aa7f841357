"""How long reading past syntax errors takes (interpreter/syntax/recovery.py: every syntax error of a
file at once, as `dg check`, `dg FILE` and `dg lsp` report them) on files with thousands of mistakes.

    uv run python bench/recovery.py              # the table in docs/performance.md
    uv run python bench/recovery.py --repeats 3

For each document: how many errors it has, the seconds recover() takes in this process (wall clock
and processor), and the wall seconds of a whole `dg check` run on it. The documents are also
tests/language/test_recovery.py's, which counts the work done on them instead of timing it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# One mistake of each kind recovery handles, each a statement or two: a line that does not parse,
# a header without its ':' (its block skipped), a bracket never closed (the lines after it read
# again), a mistake inside a function, an unexpected indent.
MISTAKES = [
    "x = = 1\n",
    "def f(x):\n    y = x *\n    return y\n",
    "for i in range(3)\n    print(i)\n",
    "z = (1, 2\n",
    "q = 3 +\n",
    "w = [1,\n      2\nv = 1\n",
    "u = 2\n    t = 3\n",
]


def mixed(count: int) -> str:
    """`count` mistakes, the kinds above in turn."""
    return "".join(MISTAKES[i % len(MISTAKES)] for i in range(count))


DOCUMENTS = {
    "1,000 lines of `x = = 1`": "x = = 1\n" * 1000,
    "4,000 lines of `x = = 1`": "x = = 1\n" * 4000,
    "5,000 lines of `x = = 1` (40 kB)": "x = = 1\n" * 5000,
    "5,000 mistakes of 7 kinds": mixed(5000),
}


def in_process(text: str) -> tuple[int, float, float]:
    """The errors recover() finds in `text`, and its wall and processor seconds."""
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.syntax.recovery import recover

    wall, cpu = time.perf_counter(), time.process_time()
    errors = len(recover(Source("bench.dg", text)).errors)
    return errors, time.perf_counter() - wall, time.process_time() - cpu


def dg_check(text: str) -> float:
    """The wall seconds of `dg check` on `text`, start-up included."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bench.dg").write_text(text)
        start = time.perf_counter()
        command = [sys.executable, "-m", "dglang.interpreter", "check", "bench.dg"]
        subprocess.run(command, cwd=folder, capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    in_process("x = = 1\n")  # lark's start-up, and its tables, out of the first measurement
    print(f"{'document':<34} {'errors':>7} {'recover()':>10} {'(processor)':>12} {'dg check':>9}")
    for name, text in DOCUMENTS.items():
        runs = [in_process(text) for _ in range(args.repeats)]
        wall, cpu = statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs)
        check = statistics.median(dg_check(text) for _ in range(args.repeats))
        print(f"{name:<34} {runs[0][0]:>7,} {wall:>9.2f}s {cpu:>11.2f}s {check:>8.2f}s")


if __name__ == "__main__":
    main()
