"""Limits a session can put on a program: steps, wall-clock time, memory, output, and program size.

`dg --max-steps N` counts loop iterations, comprehension items and function calls (not every
expression: a step is something that can repeat); `dg --timeout S` stops a program after S
seconds, parsing included; `--max-memory SIZE` stops one whose process grows past SIZE;
`--max-output BYTES` stops a runaway print loop. Each ends the program with a located DG error
and leaves a REPL session usable. When the step limit is off it costs nothing: the evaluator
compiles the counting only into programs run with a step limit. Time and memory are watched from
another thread (watchdog.py). Before any of it, `readable` refuses a program too long to read,
or one that is not text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span

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


# ---- what a session will read ----------------------------------------------------------------
NOT_TEXT = re.compile("[\ud800-\udfff]")


def readable(source: Source) -> Source:
    """`source`, if DG will read it: at most MAX_PROGRAM_BYTES, and text (a reader that met bytes
    that are not UTF-8 passes them on as lone surrogates: b'\\xff' becomes '\\udcff')."""
    text = source.text
    if len(text) > MAX_PROGRAM_BYTES or output_size(text) > MAX_PROGRAM_BYTES:
        raise DGError(
            "LimitError",
            f"the program is {output_size(text):,} bytes long, more than the limit of {MAX_PROGRAM_BYTES:,}",
            Span(source, 1, 1, 1, 2),
            help="DG reads programs of up to 1 MiB; split this one into smaller files",
        )
    not_text = NOT_TEXT.search(text)
    if not_text is not None:
        raise not_utf8(source, not_text.start())
    return source


def not_utf8(source: Source, index: int) -> DGError:
    """The error for a line holding a byte that is not UTF-8."""
    line = source.text.count("\n", 0, index) + 1
    column = index - (source.text.rfind("\n", 0, index) + 1) + 1
    code = ord(source.text[index])
    what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"the character U+{code:04X}"
    return DGError(
        "SyntaxError",
        f"this line is not UTF-8 text: {what} cannot be read",
        Span(source, line, column, line, column + 1),
        help="save the file as UTF-8 (most editors offer it under 'Save with encoding')",
    )
