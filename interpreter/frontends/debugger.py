"""The debugger: a program pauses at `breakpoint()`, at a `:break` line, or after a step, and the
REPL opens in the scope where it stands.

At a pause the paused function's variables are the REPL's (changes stick when the program goes
on); `:step`, `:next` and `:until LINE` run on to a later statement, `:continue` (or Ctrl-D) lets
the program run to its next breakpoint, `:up`/`:down` show the callers' frames, `:list` the source,
`:where` the call stack, `:break LINE [if COND]` sets a breakpoint, `:quit` stops the program. The
commands come from a person at the terminal, or from standard input under a pipe.

Stepping rests on the evaluator's statement events (RunContext.on_statement), compiled only into
programs that may pause (see CompilerBase.observed); the `Stepper` listens to them only while it
has somewhere to stop.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar, TextIO
from weakref import WeakKeyDictionary

from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import call_stack, snippet
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.host.bounded import bounded
from dglang.interpreter.host.session import Session
from dglang.interpreter.host.watchdog import Watchdog
from dglang.interpreter.library.runtime import MISSING, CallContext, Env
from dglang.interpreter.static.tracing import Tracer
from dglang.interpreter.syntax.parser import parse_expression

from .repl import COMMANDS, CommandFunction, Commands, Outcome, QuitProgram, Repl, command, run_piped

__all__ = ["Debugger", "QuitProgram"]

LISTED = 5  # lines shown by :list on each side of the current one


@dataclass(frozen=True)
class Frame:
    """One level of the paused program: a DG call, or the program's top level (level 0)."""

    function: str
    span: Span  # where this level stands: the call it is making, or the pause itself
    env: Env | None  # its variables; None where unknown (code compiled without the debugger's events)

    @property
    def place(self) -> str:
        return f"{self.span.source.name}:{self.span.line}"


@dataclass
class Resume:
    """How the program goes on after a pause: "continue", "step", "next" or "until" (with a line)."""

    how: str = "continue"
    line: int = 0


class Stepper:
    """Decides, statement by statement, where the program pauses next."""

    def __init__(self, debugger: Debugger, session: Session) -> None:
        self.debugger, self.session, self.context = debugger, session, session.context
        self.resume = Resume()
        self.depth = 0  # the call depth a :next or :until was given at
        self.source: Source | None = None  # the file an :until line is in
        self.breakpoints: dict[tuple[str, int], str | None] = {}  # (file, line) -> condition
        self.run = 0  # the session's run a :step, :next or :until was given in: it ends with that run

    def go_on(self, resume: Resume, frame_depth: int, source: Source) -> None:
        """Carry on after a pause, listening to the statements only if something may stop the program."""
        self.resume, self.depth, self.source, self.run = resume, frame_depth, source, self.session.runs
        self.listen()

    def listen(self) -> None:
        wanted = self.resume.how != "continue" or bool(self.breakpoints)
        self.context.on_statement = self.statement if wanted else None

    def statement(self, span: Span, env: Env) -> None:
        """Called before each statement of a program compiled for the debugger."""
        if self.run != self.session.runs and self.resume.how != "continue":  # the next REPL cell: it runs on
            self.resume = Resume()
            self.listen()
        depth, how = len(self.context.frames), self.resume.how
        if (
            how == "step"
            or (how == "next" and depth <= self.depth)
            or (
                how == "until"
                and (
                    depth < self.depth
                    or (depth == self.depth and span.source is self.source and span.line >= self.resume.line)
                )
            )
        ):
            self.debugger.stop(self.session, span, env, "")
        elif (span.source.name, span.line) in self.breakpoints and self.holds(span, env):
            self.debugger.stop(self.session, span, env, f"breakpoint at line {span.line}")

    def holds(self, span: Span, env: Env) -> bool:
        """Is the breakpoint's condition true here? An error in it pauses, and says so."""
        condition = self.breakpoints[(span.source.name, span.line)]
        if condition is None:
            return True
        try:
            return bool(self.session.evaluate(condition, env, f"<condition at line {span.line}>"))
        except (DGError, ValueError, TypeError) as e:
            message = e.message if isinstance(e, DGError) else str(e)
            self.debugger.err.write(f"dg: the condition `{condition}` failed ({message}); pausing\n")
            return True


class Debugger:
    """Opens a REPL at each pause: at the terminal, or reading commands from a pipe."""

    def __init__(self, lines: Iterator[str] | None = None, err: TextIO | None = None) -> None:
        self.lines = lines  # None: ask a person at the terminal
        self.err = err if err is not None else sys.stderr
        self.steppers: WeakKeyDictionary[Session, Stepper] = WeakKeyDictionary()

    def attach(self, session: Session) -> None:
        session.on_breakpoint = lambda context: self.pause(session, context)

    def stepper(self, session: Session) -> Stepper:
        if session not in self.steppers:
            self.steppers[session] = Stepper(self, session)
        return self.steppers[session]

    def pause(self, session: Session, context: CallContext) -> None:
        """`breakpoint()`: the program has already paused (the session stopped its timer)."""
        self.open(session, context.span, context.env, "breakpoint")

    def stop(self, session: Session, span: Span, env: Env, reason: str) -> None:
        """A step ended, or a :break line was reached."""
        with session.not_the_programs_time():
            self.open(session, span, env, reason)

    def open(self, session: Session, span: Span, env: Env, reason: str) -> None:
        for listener in recording.listeners:  # a static call being traced: what is typed here is not f's
            if isinstance(listener, Tracer):
                listener.stop("it paused in the debugger", "a replay runs none of its lines, so it cannot pause at one")
        stepper = self.stepper(session)
        session.context.on_statement = None  # what is typed at the pause runs without stopping
        stack = frames_of(session, span, env)
        self.announce(session, stack[-1], reason)
        repl = PausedRepl(session, stack, self.err, stepper)
        if self.lines is None:
            from .terminal import interact  # prompt_toolkit only when a person is there

            outcome = interact(repl)
        else:
            outcome = run_piped(repl, self.lines)
            if outcome is not Outcome.QUIT and outcome is not Outcome.CONTINUE:
                outcome = repl.end_of_input()  # the end of the input resumes, as Ctrl-D does
        if outcome is Outcome.QUIT:
            stepper.go_on(Resume(), 0, span.source)
            raise QuitProgram
        chosen = repl.stack[repl.level]
        stepper.go_on(repl.resume, repl.level, chosen.span.source)

    def announce(self, session: Session, here: Frame, reason: str) -> None:
        if reason:
            header = f"paused at {here.span} in {here.function}"
            if reason != "breakpoint":
                header += f" ({reason})"
            if self.lines is None:
                header += "  (:step, :next, :continue, :help)"
            session.write("\n".join([header, *snippet(here.span)]) + "\n")
        else:
            session.write(f"{here.place} in {here.function}\n{listing(here.span, 0)}\n")


def frames_of(session: Session, span: Span, env: Env) -> list[Frame]:
    """The paused program's levels, outermost first: the top level, then each call under way."""
    calls = list(session.context.frames)
    scopes = dict(session.context.scopes)  # call depth -> its variables, where compiled for the debugger
    names = ["<program>", *[call.function for call in calls]]
    spans = [*[call.call_site for call in calls], span]
    envs: list[Env | None] = [session.globals, *[scopes.get(depth) for depth in range(1, len(calls) + 1)]]
    envs[-1] = env
    return [Frame(name, where, scope) for name, where, scope in zip(names, spans, envs, strict=True)]


def listing(span: Span, around: int) -> str:
    """The source lines around `span`'s line, numbered, with `->` at that line."""
    lines = span.source.lines
    first, last = max(1, span.line - around), min(len(lines), span.line + around)
    width = len(str(last))
    return "\n".join(
        f"{number:>{width + 2}} {'->' if number == span.line else '  '} {lines[number - 1]}".rstrip()
        for number in range(first, last + 1)
    )


class PausedRepl(Repl):
    """The REPL at a pause: in the scope of the frame shown, with the debugger's commands."""

    commands: ClassVar[Commands] = {}  # filled below: every REPL command, and the debugger's
    stops_quietly = False  # :quit inside a cell run here stops the whole program
    paused = True

    def __init__(self, session: Session, stack: list[Frame], err: TextIO, stepper: Stepper) -> None:
        super().__init__(session, env=stack[-1].env, err=err)
        self.stack, self.level, self.stepper = stack, len(stack) - 1, stepper
        self.resume = Resume()

    @property
    def frame(self) -> Frame:
        return self.stack[self.level]

    def run_cell(self, text: str) -> Outcome:
        """A cell typed at the pause runs without stopping at its statements, even if a pause
        inside it (a breakpoint() it reaches) was left with :step. It runs under the session's
        --timeout and --max-memory, each cell with the whole budget as at the REPL (the program's
        own clock stays stopped): a `while True: pass` typed here ran for ever. Its watchdog is
        the session's while it runs, so a pause inside it stops that clock too."""
        session, program = self.session, self.session.watchdog

        def watching(cell: Watchdog | None) -> None:
            session.watchdog = cell if cell is not None else program

        try:
            return bounded(session.limits, lambda: Repl.run_cell(self, text), watching=watching)
        except DGError as e:  # stopped between two statements, where none could locate it
            self.report(e)
            return Outcome.ERROR
        finally:
            session.context.on_statement = None

    @property
    def prompt(self) -> str:  # type: ignore[override]
        return f"(dg {self.frame.place} {self.frame.function}) "

    def end_of_input(self) -> Outcome:
        """Ctrl-D on an empty line at a pause (or the end of piped input): :continue."""
        self.resume = Resume("continue")
        return Outcome.CONTINUE

    def cheat_sheet(self) -> str:
        lines = [f"Paused in {self.frame.function} at {self.frame.place}. DG statements read and change its variables."]
        lines.extend(f"  {cmd.usage:<24} {cmd.summary}" for cmd in DEBUGGER.values())
        lines.append(
            f"  {':quit':<24} Stop the program (a cell typed at the >>> prompt stops; `dg FILE` exits, with 130)."
        )
        ctrl_d = "On an empty line: the same as :continue; the program runs on, it does not stop."
        lines.append(f"  {'Ctrl-D':<24} {ctrl_d}")
        lines.append("  also: " + ", ".join(cmd.usage for name, cmd in COMMANDS.items() if name != "quit"))
        return "\n".join(lines)

    def select(self, level: int) -> Outcome:
        frame = self.stack[level]
        if frame.env is None:
            self.report(DGError("CommandError", f"the variables of {frame.function} are not known here"))
            return Outcome.ERROR
        self.level, self.env = level, frame.env
        self.write(f"{frame.place} in {frame.function}\n{listing(frame.span, 0)}")
        return Outcome.OK


DEBUGGER: Commands = {}


def debugger_command(name: str, usage: str, doc: str) -> Callable[[CommandFunction], CommandFunction]:
    return command(name, usage, doc, table=DEBUGGER, kind="debugger command")


def resume(repl: Repl, how: str, line: int = 0) -> Outcome:
    assert isinstance(repl, PausedRepl)
    repl.resume = Resume(how, line)
    return Outcome.CONTINUE


@debugger_command("step", ":step", "Run to the next statement, stepping into a call.\n\n>>> :step\n...")
def _step(repl: Repl, argument: str) -> Outcome:
    return resume(repl, "step")


@debugger_command(
    "next", ":next", "Run to the next statement of this function, over the calls it makes.\n\n>>> :next\n..."
)
def _next(repl: Repl, argument: str) -> Outcome:
    return resume(repl, "next")


@debugger_command(
    "until",
    ":until LINE",
    "Run until this function reaches LINE or a line below it (or returns).\n\n>>> :until 12\n...",
)
def _until(repl: Repl, argument: str) -> Outcome:
    if not argument.isdigit():
        repl.report(DGError("CommandError", "usage: :until LINE", help="LINE is a line number, as :list shows"))
        return Outcome.ERROR
    return resume(repl, "until", int(argument))


@debugger_command(
    "continue",
    ":continue",
    "Let the program run on, to its next breakpoint or its end (Ctrl-D does the same).\n\n>>> :continue",
)
def _continue(repl: Repl, argument: str) -> Outcome:
    return resume(repl, "continue")


@debugger_command("where", ":where", "The DG call stack, innermost call last.\n\n>>> :where\n...")
def _where(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    innermost = repl.stack[-1]
    calls = tuple(repl.session.context.frames)
    rows = call_stack(calls, innermost.span)
    if repl.level != len(repl.stack) - 1:
        rows.append(f"(shown: the frame of {repl.frame.function} at {repl.frame.place}; :down goes back)")
    repl.write("\n".join(rows))
    return Outcome.OK


@debugger_command("up", ":up", "Show the frame of the caller: its variables, its line.\n\n>>> :up\n...")
def _up(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    if repl.level == 0:
        repl.write("(this is the top level: no caller)")
        return Outcome.OK
    return repl.select(repl.level - 1)


@debugger_command("down", ":down", "Show the frame called from this one, back towards the pause.\n\n>>> :down\n...")
def _down(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    if repl.level == len(repl.stack) - 1:
        repl.write("(this is where the program is paused)")
        return Outcome.OK
    return repl.select(repl.level + 1)


@debugger_command("list", ":list", "The source around the current line, marked with ->.\n\n>>> :list\n...")
def _list(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    repl.write(listing(repl.frame.span, LISTED))
    return Outcome.OK


@debugger_command(
    "break",
    ":break LINE [if COND]",
    "Pause whenever LINE of this file is reached (and COND is true); alone: list the breakpoints.\n\n"
    ">>> :break 7 if step % 10 == 0\n...",
)
def _break(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    breakpoints, source = repl.stepper.breakpoints, repl.frame.span.source
    if not argument:
        rows = [f"{f}:{line}" + (f" if {c}" if c else "") for (f, line), c in sorted(breakpoints.items())]
        repl.write("\n".join(rows) or "(no breakpoints)")
        return Outcome.OK
    line_text, _, condition = argument.partition(" if ")
    if not line_text.strip().isdigit() or (argument.strip().partition(" ")[2] and not condition):
        repl.report(DGError("CommandError", "usage: :break LINE [if CONDITION]", help=":break 12 if step > 100"))
        return Outcome.ERROR
    line = int(line_text)
    code = source.line(line).split("#")[0].strip()
    if not code:
        repl.report(DGError("CommandError", f"line {line} of {source.name} holds no statement"))
        return Outcome.ERROR
    if condition.strip():
        try:  # a condition that cannot be read is said now, not at each pass
            parse_expression(condition.strip(), Source("<condition>", condition.strip()), 1, 1)
        except DGError as e:
            repl.report(DGError("CommandError", f"the condition `{condition.strip()}` cannot be read: {e.message}"))
            return Outcome.ERROR
    breakpoints[(source.name, line)] = condition.strip() or None
    repl.write(f"breakpoint at {source.name}:{line}: {code}" + (f"  (if {condition.strip()})" if condition else ""))
    return Outcome.OK


@debugger_command("clear", ":clear [LINE]", "Remove the breakpoint at LINE, or every breakpoint.\n\n>>> :clear 7\n...")
def _clear(repl: Repl, argument: str) -> Outcome:
    assert isinstance(repl, PausedRepl)
    breakpoints = repl.stepper.breakpoints
    if not argument:
        breakpoints.clear()
    elif not argument.isdigit():
        repl.report(DGError("CommandError", "usage: :clear [LINE]", help=":clear 12 removes the breakpoint at line 12"))
        return Outcome.ERROR
    elif breakpoints.pop((repl.frame.span.source.name, int(argument)), MISSING) is MISSING:
        repl.report(DGError("CommandError", f"no breakpoint at line {argument} of {repl.frame.span.source.name}"))
        return Outcome.ERROR
    repl.write("(breakpoints: " + (", ".join(f"line {line}" for _, line in breakpoints) or "none") + ")")
    return Outcome.OK


PausedRepl.commands = {**COMMANDS, **DEBUGGER}
