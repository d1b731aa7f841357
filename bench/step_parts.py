"""Where a training step's time goes, from a sampling profile of a DG program: the share of the
samples in the backward pass, in `with no_grad:` blocks (an optimiser's update), and in the rest of
the program's loop (the forward pass and the loss), and for each how much was in NumPy, BLAS or
other compiled code rather than in Python.

    sed 's/^adam = 0/adam = 1/; s/^steps = .*/steps = 1500/' bench/digits_cnn.dg > /tmp/cnn.dg
    py-spy record -n -f raw -r 1000 -o /tmp/cnn.raw -- .venv/bin/dg /tmp/cnn.dg
    uv run python bench/step_parts.py /tmp/cnn.raw

py-spy (https://github.com/benfred/py-spy, `pip install py-spy`) writes one line per distinct stack,
`frame;frame;...;frame count`, with native frames when given `-n`. Only the samples inside the
program's loops count (the watchdog's thread and the start-up are left out). The --top option
lists, for one part, the Python functions the samples were in when they were not in compiled code.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

# each part: the functions (name, file) whose presence on a stack puts a sample in it, first match first
PARTS = (("backward", {("_propagate", "backward.py")}), ("no_grad block", {("run_with", "statements.py")}))
IN_LOOP = ("run_loop", "blocks.py")
FRAME = re.compile(r"(?:.*\.)?(\w+) \((?:.*/)?([^/:]+):\d+\)$")  # `Class.<locals>.name (path/file.py:line)`


def where(frame: str) -> tuple[str, str] | None:
    """(function, file) of a Python frame."""
    m = FRAME.match(frame)
    return (m.group(1), m.group(2)) if m else None


def part_of(functions: set[tuple[str, str] | None]) -> str:
    for name, marks in PARTS:
        if functions & marks:
            return name
    return "forward and the rest"


def compiled(frame: str) -> bool:
    """A frame of compiled code (a shared library), not of a Python function."""
    return ".py:" not in frame


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw", help="py-spy's output with -f raw")
    parser.add_argument("--top", metavar="PART", help="list the Python functions of one part: " + ", ".join(
        [name for name, _ in PARTS] + ["forward and the rest"]))  # fmt: skip
    args = parser.parse_args(argv)
    samples, native = collections.Counter(), collections.Counter()
    python: collections.Counter[str] = collections.Counter()
    for line in Path(args.raw).read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        functions = {where(frame) for frame in frames}
        if IN_LOOP not in functions:
            continue
        part, n = part_of(functions), int(count)
        samples[part] += n
        if compiled(frames[-1]):
            native[part] += n
        elif part == args.top:
            python[re.sub(r" \(.*/", " (", re.sub(r":\d+\)$", ")", frames[-1]))] += n
    total = sum(samples.values())
    if not total:
        print("no samples inside a loop of the program", file=sys.stderr)
        return 1
    for part, n in samples.most_common():
        print(f"{part:22s} {n / total:6.1%} of the samples, {native[part] / n:4.0%} of them in compiled code")
    if args.top:
        print(f"\nPython functions of '{args.top}' (share of all the loop's samples):")
        for function, n in python.most_common(25):
            print(f"  {n / total:6.1%}  {function}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
