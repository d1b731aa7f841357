"""Locating errors: turning whatever went wrong under an AST node into a DGError at its span.

The evaluator's closures catch what escapes the operation they run (an engine error, a Python
exception from a builtin, Ctrl-C, the --timeout timer) and hand it here with the node's span and
the DG call stack at that moment. An error an inner node already located passes through untouched,
so the innermost node that failed is the one the message points at.
"""

from __future__ import annotations

from collections.abc import Sequence

from dglang.autograd.exceptions import AutogradError
from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Span

from .interrupts import MEMORY_HELP, OutOfMemory, OutOfTime, size_text


def located(e: BaseException, span: Span, frames: Sequence[CallFrame]) -> DGError:
    """The DGError for `e`, located at `span` unless an inner node already located it."""
    if isinstance(e, DGError):
        if e.span is None:
            e.span, e.frames = span, tuple(frames)
        return e
    kind, message, help = describe(e)
    error = DGError(kind, message, span, help=help, frames=tuple(frames))
    error.original = e  # for `dg --debug`, which shows the Python traceback
    return error


def describe(e: BaseException) -> tuple[str, str, str | None]:
    """Kind, message and help for an exception raised below the evaluator."""
    if isinstance(e, AutogradError):
        return e.kind, e.message, e.help
    if isinstance(e, KeyboardInterrupt):
        return interruption(e)
    if isinstance(e, RecursionError):
        return "RecursionError", "nested too deeply for the interpreter", "simplify the expression or the recursion"
    if isinstance(e, MemoryError):
        return "MemoryError", "out of memory", "use smaller tensors"
    if isinstance(e, ZeroDivisionError):
        return "ZeroDivisionError", "division by zero", None
    if isinstance(e, OverflowError):
        return "OverflowError", "number too large", None
    if isinstance(e, TypeError | ValueError | IndexError | KeyError):
        return type(e).__name__, str(e), None
    return "InternalError", f"{type(e).__name__}: {e}", "this is a bug in DG; run with --debug and report it"


def interruption(e: KeyboardInterrupt) -> tuple[str, str, str | None]:
    """Kind, message and help for a Ctrl-C or a timeout that stopped a statement."""
    if isinstance(e, OutOfTime):
        seconds = f"{e.seconds:g} second{'s' * (e.seconds != 1)}"
        return "TimeoutError", f"the program ran longer than {seconds}", "the limit was set with --timeout"
    if isinstance(e, OutOfMemory):
        return "MemoryError", f"DG's memory grew past {size_text(e.limit)}, the limit", MEMORY_HELP
    return "KeyboardInterrupt", "interrupted", None
