"""What stops a run from outside: Ctrl-C, or the host's watchdog when time or memory runs out.

The host raises these in the middle of whatever runs; the statement they interrupt locates them
(locating.py). The step limit is counted by the evaluators themselves (compiling.py's
`step_counter`, reference_expressions.py's `count_step`), and its message is here beside the
others, as are the words for memory the host's guards use too.
"""

from __future__ import annotations


class Stopped(KeyboardInterrupt):
    """Raised in the middle of whatever runs by the watchdog, like Ctrl-C; the statement it
    interrupts locates it (see locating.py). A KeyboardInterrupt, so no `except Exception` in DG
    or in the engine swallows it. The watchdog raises a subclass made for its run, whose class
    attributes say what ran out (CPython raises an asynchronous exception from its class)."""


class OutOfTime(Stopped):
    seconds: float = 0.0


class OutOfMemory(Stopped):
    limit: int = 0


def steps_message(limit: int) -> tuple[str, str]:
    return (
        f"more than {limit:,} steps (loop iterations and function calls)",
        "the limit was set with --max-steps; look for a loop that never ends",
    )


MEMORY_HELP = "the limit is set with --max-memory; a list or a graph that grows in a loop? use smaller tensors"


def size_text(nbytes: int) -> str:
    """`1.5 GiB`, `300 MiB`, `12 KiB`: a size as a person reads it."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{nbytes} bytes"
