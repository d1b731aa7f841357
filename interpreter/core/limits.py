"""Limits a session can put on a program: steps, wall-clock time and output.

`dg --max-steps N` counts loop iterations, comprehension items and function calls (not every
expression: a step is something that can repeat); `dg --timeout S` stops a program after S
seconds; `--max-output BYTES` stops a runaway print loop. Each ends the program with a located
DG error and leaves a REPL session usable. When a limit is off it costs nothing: the evaluator
compiles the counting only into programs run with a step limit.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_OUTPUT = 10_000_000  # bytes a program (or a REPL cell) may print


@dataclass
class Limits:
    """What one run may use. None means no limit."""

    max_steps: int | None = None
    timeout: float | None = None
    max_output: int | None = DEFAULT_MAX_OUTPUT


class OutOfTime(KeyboardInterrupt):
    """Raised by the timer in the middle of whatever runs, like Ctrl-C; the statement it
    interrupts locates it (see locating.py)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


class Timer:
    """`--timeout`: SIGALRM after `seconds` raises OutOfTime. Only the main thread gets signals,
    so elsewhere (a host running DG in a worker thread) the timer is not armed."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.previous: Any = None
        self.armed = False

    def start(self) -> None:
        import threading  # only with --timeout

        if threading.current_thread() is not threading.main_thread():
            return
        self.previous = signal.signal(signal.SIGALRM, self._ring)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        self.armed = True

    def stop(self) -> None:
        if not self.armed:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)
        self.armed = False

    def pause(self) -> float | None:
        """Stop the clock (at a breakpoint, where a person takes their time); return what is left."""
        if not self.armed:
            return None
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        signal.setitimer(signal.ITIMER_REAL, 0)
        return left

    def resume(self, left: float) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))

    def _ring(self, signum: int, frame: Any) -> None:
        raise OutOfTime(self.seconds)


def steps_message(limit: int) -> tuple[str, str]:
    return (
        f"more than {limit:,} steps (loop iterations and function calls)",
        "the limit was set with --max-steps; look for a loop that never ends",
    )


def output_size(text: str) -> int:
    """Bytes `text` takes in UTF-8, without encoding it when it is ASCII (the usual case)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
