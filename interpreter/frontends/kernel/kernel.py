"""The DG kernel: one DG session per kernel, each cell run as a REPL cell (repl.py), so variables,
functions and the REPL's :commands carry over from cell to cell and an error keeps them all.

Kernel -> Interrupt sends SIGINT; ipykernel turns it into KeyboardInterrupt in the thread running
the cell, which DG reports as an error at the statement it stopped. `breakpoint()` opens the
debugger, whose commands are read through the notebook's input box.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ipykernel.kernelbase import Kernel

from dglang import __version__
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.escaping import escaped_data
from dglang.interpreter.frontends.cells import Completeness
from dglang.interpreter.frontends.debugger import Debugger
from dglang.interpreter.frontends.repl import Command, Outcome, Repl
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import Limits

from .inspection import complete_reply, inspect_reply
from .output import CellOutput, Display, Escaped


@dataclass
class Settings:
    """What the kernelspec's options ask for (see __main__.py): DG's limits for each cell, and the
    folders of the library path (after which DG_LIB's are looked in)."""

    limits: Limits = field(default_factory=Limits)
    max_depth: int = 10_000
    library: list[str] = field(default_factory=list)


class KernelRepl(Repl):
    """The REPL of a notebook: errors go to the cell's `error` output instead of standard error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.display: Display | None = None

    def report(self, error: DGError) -> None:
        self.last_error = error  # the kernel sends it when the cell ends (one error a cell)


class InputLines:
    """The debugger's commands, a line at a time from the notebook's input box. Iterable again after
    each pause; the input ends (the program goes on) where the front end cannot ask for input."""

    def __init__(self, kernel: DGKernel) -> None:
        self.kernel = kernel

    def __iter__(self) -> InputLines:
        return self

    def __next__(self) -> str:
        from ipykernel.kernelbase import StdinNotImplementedError

        # The answer to the last command first: an echoed value is held back as a cell's possible
        # result (output.py), and would otherwise show only after the next command was typed.
        self.kernel.out.settle()
        try:
            return self.kernel.raw_input("(dg) ")
        except (StdinNotImplementedError, EOFError):
            raise StopIteration from None


class DGKernel(Kernel):
    implementation = "dglang"
    implementation_version = __version__
    language = "dg"
    language_version = __version__
    language_info: ClassVar[dict[str, Any]] = {
        "name": "dg",
        "version": __version__,
        "mimetype": "text/x-dg",
        "file_extension": ".dg",
        "pygments_lexer": "dglang",
        "codemirror_mode": "python",
    }
    banner = f"DG {__version__}: a small language for learning automatic differentiation. :help shows the cheat sheet."
    settings: ClassVar[Settings] = Settings()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.out = CellOutput(sys.stdout)
        settings = self.settings
        session = new_session(
            out=self.out,
            base_dir=Path.cwd(),
            max_depth=settings.max_depth,
            limits=settings.limits,
            library=settings.library,
        )
        self.repl = KernelRepl(session, err=Escaped(sys.stderr))
        publish = lambda kind, content: self.send_response(self.iopub_socket, kind, content)
        self.display = self.repl.display = Display(publish, self.out, self.repl.seeing)
        self.repl.commands = {**Repl.commands, "stepper": STEPPER}
        self.repl.seeing.show_graph = self.display.graph
        self.repl.seeing.show_picture = self.display.picture
        session.context.show = self.out.echo
        Debugger(InputLines(self), err=Escaped(sys.stderr)).attach(session)
        session.context.debug_everything = True  # a pause may step into any function a cell defined
        self.completeness = Completeness()

    async def do_execute(
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        parent = self.get_parent("shell")
        for stream in (sys.stdout, sys.stderr):
            if hasattr(stream, "set_parent"):
                stream.set_parent(parent)  # so the text printed is this cell's output
        self._allow_stdin = allow_stdin
        repl = self.repl
        repl.last_error, outcome = None, Outcome.OK
        for part in parts(code):
            repl.cells = self.execution_count - 1  # errors name the cell as the notebook numbers it: <cell 3>
            try:
                outcome = repl.run_cell(part)
            except KeyboardInterrupt:  # between statements (compiling, echoing): nothing to locate it at
                repl.last_error, outcome = DGError("KeyboardInterrupt", "interrupted"), Outcome.ERROR
            if outcome is Outcome.ERROR:
                break
        error = repl.last_error if outcome is Outcome.ERROR else None
        if error is not None:
            self.out.take_result()
            content = self.display.error(error)
            return {"status": "error", "execution_count": self.execution_count, **content}
        if not silent:
            self.display.result(self.execution_count)
        self.out.settle()
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    async def do_complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        return escaped_data(complete_reply(code, cursor_pos, self.repl))

    async def do_inspect(
        self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        return escaped_data(inspect_reply(code, cursor_pos, self.repl))

    async def do_is_complete(self, code: str) -> dict[str, Any]:
        cell = self.completeness.of(code)
        if cell.parse.failed:  # runs at once, to show the syntax error
            return {"status": "invalid"}
        if cell.complete:
            return {"status": "complete"}
        return {"status": "incomplete", "indent": cell.next_indent()}


COMMAND = re.compile(r"^:[A-Za-z]", re.M)


def parts(code: str) -> list[str]:
    """A notebook cell as the REPL's inputs: its DG statements, and each `:command` line apart, in
    order (`:stepper loss` after the code that computes loss). Each part keeps its lines' numbers."""
    if not COMMAND.search(code):
        return [code]
    found, lines, start = [], code.split("\n"), 0
    for i, line in enumerate([*lines, ""]):  # the empty line after the last ends the last part
        if COMMAND.match(line) or i == len(lines):
            if "\n".join(lines[start:i]).strip():
                found.append("\n" * start + "\n".join(lines[start:i]))
            if i < len(lines):
                found.append(line)
            start = i + 1
    return found


def _stepper(repl: Repl, argument: str) -> Outcome:
    """`:stepper NAME`: the page that steps through NAME's graph, forward and backward."""
    from dglang.autograd import Tensor
    from dglang.interpreter.library.runtime import MISSING

    value = repl.env.lookup(argument) if argument.isidentifier() else MISSING
    display = getattr(repl, "display", None)
    if not isinstance(value, Tensor) or display is None:
        repl.report(DGError("CommandError", "usage: :stepper NAME (a tensor)"))
        return Outcome.ERROR
    try:
        display.stepper(value, argument)
    except DGError as e:
        repl.report(e)
        return Outcome.ERROR
    return Outcome.OK


STEPPER = Command(_stepper, ":stepper NAME", "the page that steps through NAME's graph, forward and backward")
