"""Limits a session can put on a program: steps, wall-clock time, memory, output, and program size.

`dg --max-steps N` counts loop iterations, comprehension items and function calls (not every
expression: a step is something that can repeat); `dg --timeout S` stops a program after S
seconds, parsing included; `--max-memory SIZE` stops one whose process grows past SIZE;
`--max-output BYTES` stops a runaway print loop. Each ends the program with a located DG error
and leaves a REPL session usable. When the step limit is off it costs nothing: the evaluator
compiles the counting only into programs run with a step limit. Time and memory are watched from
another thread (watchdog.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_MAX_OUTPUT = 10_000_000  # bytes a program (or a REPL cell) may print
# The largest program DG reads: 1 MiB is over a hundred times the longest lesson, and about what
# lark can parse in the time a grader would give a whole run.
MAX_PROGRAM_BYTES = 1 << 20
MAX_TIMEOUT = 1_000_000.0  # seconds (11 days): longer than any run anyone waits for


@dataclass
class Limits:
    """What one run may use. None means no limit."""

    max_steps: int | None = None
    timeout: float | None = None
    max_output: int | None = DEFAULT_MAX_OUTPUT
    max_memory: int | None = field(default_factory=lambda: default_max_memory())


def default_max_memory() -> int:
    """4 GiB, or half the machine's memory if that is less (read when a session is made, so that
    `dg --help` need not load the engine)."""
    from .memory import default_budget

    return default_budget()


def output_size(text: str) -> int:
    """Bytes `text` takes in UTF-8, without encoding it when it is ASCII (the usual case)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
