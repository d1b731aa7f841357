"""`breakpoint()`: pause the program and open the REPL in the scope where it stands.

The paused function's locals are the REPL's variables (changes stick when the program goes on),
`:where` prints the DG call stack, and `:continue` or Ctrl-D resumes. `:quit` stops the program.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from dglang.interpreter.core.report import snippet

if TYPE_CHECKING:
    from dglang.interpreter.core.runtime import CallContext
    from dglang.interpreter.core.session import Session


class QuitProgram(BaseException):  # a signal, not an error: the user chose to stop
    """`:quit` at a breakpoint. A BaseException, so no DG error handler mistakes it for a failure."""


class Debugger:
    """Opens a REPL at each breakpoint: at the terminal, or reading commands from a pipe."""

    def __init__(self, lines: Iterator[str] | None = None, err: TextIO | None = None) -> None:
        self.lines = lines  # None: ask a person at the terminal
        self.err = err if err is not None else sys.stderr

    def pause(self, session: Session, context: CallContext) -> None:
        from .repl import Outcome, Repl, run_piped  # the REPL loads only when a program pauses

        span = context.span
        where = context.frames[-1].function if context.frames else "<program>"
        header = f"paused at {span} in {where}"
        if self.lines is None:
            header += "  (:where, :vars, :continue, :help)"
        session.write("\n".join([header, *snippet(span)]) + "\n")
        repl = Repl(session, env=context.env, err=self.err, frames=context.frames, paused_at=span)
        if self.lines is None:
            from .terminal import interact  # prompt_toolkit only when a person is there

            outcome = interact(repl, prompt="(dg) ")
        else:
            outcome = run_piped(repl, self.lines)
            if outcome is not Outcome.QUIT:
                outcome = Outcome.CONTINUE  # the end of the input resumes, as Ctrl-D does
        if outcome is Outcome.QUIT:
            raise QuitProgram
