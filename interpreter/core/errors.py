"""Errors as data: a kind, a message, where it happened, the DG call stack, and maybe a hint.

Code that finds a problem raises a DGError; only `report.py` turns one into text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dglang.autograd.errors import AutogradError

from .source import Span


@dataclass(frozen=True, slots=True)
class CallFrame:
    """One active DG function call: its name and the span of the call expression."""

    function: str
    call_site: Span


class DGError(Exception):
    """Any error a DG program can cause. `span` is None until the evaluator locates it."""

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None = None,
        help: str | None = None,
        frames: tuple[CallFrame, ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.span = span
        self.help = help
        self.frames = frames
        self.original: BaseException | None = None

    @property
    def is_syntax(self) -> bool:
        return self.kind in ("SyntaxError", "IndentationError")

    def __str__(self) -> str:
        return f"{self.span}: {self.kind}: {self.message}" if self.span else f"{self.kind}: {self.message}"


class OutputClosed(BaseException):  # a signal, not an error: the reader went away
    """Standard output was closed (`dg prog.dg | head`): stop quietly. A BaseException, so DG's
    error handlers let it through."""


def located(e: BaseException, span: Span, frames: Sequence[CallFrame]) -> DGError:
    """The DGError for `e`, located at `span` unless an inner node already located it."""
    if isinstance(e, DGError):
        if e.span is None:
            e.span, e.frames = span, tuple(frames)
        return e
    kind, message, help = _describe(e)
    error = DGError(kind, message, span, help=help, frames=tuple(frames))
    error.original = e  # for `dg --debug`, which shows the Python traceback
    return error


def _describe(e: BaseException) -> tuple[str, str, str | None]:
    """Kind, message and help for an exception raised below the evaluator."""
    if isinstance(e, AutogradError):
        return e.kind, e.message, e.help
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
