"""Work that is not a program's run, held to the same limits of time and memory: reading a program
and printing its syntax tree (`dg parse`), drawing a graph (`dg graph`), copying a program's
variables for each test (`dg test`). A run's limits are the session's business (session.py); this
is the same watchdog around anything else a command does with a student's file.

    tree = bounded(limits, lambda: dump_ast(parse(source)), where=first_line, doing="reading it")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.semantics.interrupts import Stopped
from dglang.interpreter.semantics.locating import interruption

from .limits import Limits
from .watchdog import Watchdog

Result = TypeVar("Result")


def bounded(
    limits: Limits,
    work: Callable[[], Result],
    where: Span | None = None,
    doing: str = "",
    watching: Callable[[Watchdog | None], None] | None = None,
) -> Result:
    """`work()`, stopped with a DGError (TimeoutError, MemoryError) located at `where` when it runs
    longer than `limits.timeout` or the process grows past `limits.max_memory`; `doing` says what
    it was doing then ("copying the program's variables"). `watching` is told the watchdog while
    it watches, and None after (a debugger makes it the session's, so that a pause stops it)."""
    if limits.timeout is None and limits.max_memory is None:
        return work()
    watchdog = Watchdog(limits.timeout, limits.max_memory)
    try:
        # As in Session._limited: the stop may arrive anywhere from start() to the end of stop().
        try:
            if watching is not None:
                watching(watchdog)
            watchdog.start()
            return work()
        finally:
            watchdog.stop()
            if watching is not None:
                watching(None)
    except Stopped as e:
        watchdog.stop()
        kind, message, help = interruption(e)
        if kind == "KeyboardInterrupt":
            raise
        raise DGError(kind, f"{message} ({doing})" if doing else message, where, help=help) from None
