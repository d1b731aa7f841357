"""Errors as data: a kind, a message, where it happened, the DG call stack, and maybe a hint.

Code that finds a problem raises a DGError; the evaluator turns any other exception into one at
the node where it happened (semantics/locating.py), the host writes its help line when it is
reported (semantics/hints.py), and only `report.py` turns one into text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .source import Span


@dataclass(slots=True, unsafe_hash=True)
class CallFrame:
    """One DG function call: its name, the span of the call expression, and the call it was made in
    (None at the top level), so a picture can tell a recursive call from the one that made it.

    A value, not frozen for the reasons Span is not (source.py), and made at every DG call."""

    function: str
    call_site: Span
    caller: CallFrame | None = field(default=None, compare=False, repr=False)

    @property
    def recursion_level(self) -> int:
        """1 for a call of a function not already running, 2 for a call of it from inside it, ..."""
        level, frame = 1, self.caller
        while frame is not None:
            if frame.function == self.function:
                level += 1
            frame = frame.caller
        return level


class DGError(Exception):
    """Any error a DG program can cause. `span` is None until the evaluator locates it.

    `node` is the syntax-tree node it happened at (its span is the error's), and `clues` what the
    hint writer may need to know of the values involved, as words (their kinds, the names in
    scope): never the values themselves, which a REPL keeping its last error would keep alive."""

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None = None,
        help: str | None = None,
        frames: tuple[CallFrame, ...] = (),
        *,
        node: Any = None,
        clues: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.span = span if span is not None or node is None else node.span
        self.help = help
        self.frames = frames
        self.node = node
        self.clues = clues
        self.original: BaseException | None = None

    @property
    def is_syntax(self) -> bool:
        return self.kind in ("SyntaxError", "IndentationError")

    def __str__(self) -> str:
        return f"{self.span}: {self.kind}: {self.message}" if self.span else f"{self.kind}: {self.message}"


class OutputClosed(BaseException):  # a signal, not an error: the reader went away
    """Standard output was closed (`dg prog.dg | head`): stop quietly. A BaseException, so DG's
    error handlers let it through."""
