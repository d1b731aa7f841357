"""The REPL's decisions, free of any terminal: is this input complete, run a cell, complete a word.

`terminal.py` wires these to prompt_toolkit for a person at a keyboard; `read_cells` feeds them
from a pipe. Both, and the debugger at a `breakpoint()`, drive the same `Repl`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TextIO

from lark import UnexpectedInput

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.core.attributes import METHODS, PROPERTIES, TENSOR_METHODS, TENSOR_PROPERTIES
from dglang.interpreter.core.errors import CallFrame, DGError
from dglang.interpreter.core.parser import SyntaxProblem, interactive, keywords, lex
from dglang.interpreter.core.report import call_stack, format_error
from dglang.interpreter.core.runtime import MISSING, Builtin, Env, Function, GradMode, show_short
from dglang.interpreter.core.session import Session
from dglang.interpreter.core.source import Span
from dglang.interpreter.seeing.builtins import install
from dglang.interpreter.seeing.text_picture import text_picture

from .program_files import read_program

KEYWORDS = keywords()
COMPOUND = {"IF", "WHILE", "FOR", "DEF", "WITH"}


# ---- is the input complete? -------------------------------------------------------------------
def is_complete(text: str) -> bool:
    """Should the REPL run `text` now (True), or read another line (False)?

    `text` is what was typed so far, without the newline of the line just finished. The parser
    decides: input that ends while a bracket is open or a block is due is incomplete; input with
    a syntax error is complete (running it reports the error). As in Python's REPL, input holding
    a compound statement (if, while, for, def, with) runs once its last line is blank.
    """
    if not text.strip() or text.lstrip().startswith(":"):
        return True
    parser = interactive(text + "\n")
    try:
        parser.exhaust_lexer()
    except (UnexpectedInput, SyntaxProblem):
        return True
    if "$END" not in parser.accepts():
        return False
    return not starts_block(text) or text.split("\n")[-1].strip() == ""


def starts_block(text: str) -> bool:
    """Does the input hold a compound statement (its first token is if/while/for/def/with)?"""
    try:
        return any(t.type in COMPOUND for t in lex(text))
    except Exception:  # lark's lexer errors: a syntax error, reported when the cell runs
        return False


def next_indent(text: str) -> str:
    """The indentation for the line after `text`: one level deeper after a ':'."""
    last = text.split("\n")[-1]
    indent = last[: len(last) - len(last.lstrip())]
    code = last.split("#")[0].rstrip()
    return indent + "    " if code.endswith(":") else indent


# ---- running cells -----------------------------------------------------------------------------
class Outcome(Enum):
    OK = "ok"
    ERROR = "error"
    QUIT = "quit"
    CONTINUE = "continue"  # leave a breakpoint and let the program go on


@dataclass
class Command:
    run: Callable[[Repl, str], Outcome]
    usage: str
    help: str


COMMANDS: dict[str, Command] = {}


def command(
    name: str, usage: str, help: str
) -> Callable[[Callable[[Repl, str], Outcome]], Callable[[Repl, str], Outcome]]:
    """Register a `:name` meta-command (later issues add `:graph`)."""

    def register(fn: Callable[[Repl, str], Outcome]) -> Callable[[Repl, str], Outcome]:
        COMMANDS[name] = Command(fn, usage, help)
        return fn

    return register


class Repl:
    """One interactive session: statements typed in run in `env` and everything defined stays.

    At top level `env` is the session's globals; at a breakpoint it is the paused function's
    locals, with `frames` the DG call stack that led there.
    """

    def __init__(
        self,
        session: Session,
        env: Env | None = None,
        err: TextIO | None = None,
        frames: tuple[CallFrame, ...] = (),
        paused_at: Span | None = None,
    ) -> None:
        self.session = session
        self.seeing = install(session)
        self.seeing.keep_backward()  # :graph may show gradients at any time
        self.env = env if env is not None else session.globals
        self.err = err if err is not None else sys.stderr
        self.frames = frames
        self.paused_at = paused_at  # the breakpoint's location, for :where
        self.cells = 0
        self.last_error: DGError | None = None

    @property
    def in_debugger(self) -> bool:
        return self.paused_at is not None

    def run_cell(self, text: str) -> Outcome:
        """Run one complete input: a `:command` or DG statements. Errors are printed, state is kept."""
        stripped = text.strip()
        if not stripped:
            return Outcome.OK
        if stripped.startswith(":"):
            return self.run_command(stripped[1:])
        self.cells += 1
        try:
            self.session.run(text, f"<cell {self.cells}>", echo=True, env=self.env)
        except DGError as e:
            self.report(e)
            return Outcome.ERROR
        return Outcome.OK

    def report(self, error: DGError) -> None:
        self.last_error = error
        self.session.out.flush()
        self.err.write(format_error(error))
        self.err.flush()

    def run_command(self, line: str) -> Outcome:
        name, _, argument = line.partition(" ")
        cmd = COMMANDS.get(name)
        if cmd is None:
            self.report(DGError("CommandError", f"no command ':{name}'", help="type :help to list the commands"))
            return Outcome.ERROR
        return cmd.run(self, argument.strip())

    def write(self, text: str) -> None:
        self.session.write(text if text.endswith("\n") else text + "\n")


CHEAT_SHEET = """\
DG: a Python-like language whose tensors record the graph that `grad` differentiates.

  x = tensor([1.0, 2.0], requires_grad=True)   a leaf that collects gradients
  y = (x * x).sum()                            every op on x is recorded
  grad y                                       backpropagate; now x.grad is dy/dx
  grad y with ones_like(y)                     a seed for a non-scalar y
  with no_grad:                                record nothing (update parameters here)
      x -= 0.1 * x.grad
  zero_grad(x)                                 clear x.grad before the next grad
  dy = gradient(y, x)                          dy/dx as a tensor; gradient(dy, x) differentiates again
  gradcheck(f, x, order=2)                     check f's derivatives against finite differences

  if/elif/else, while, for x in ..., def f(a, b=1):, return, break, continue, pass
  print(...), f"{value:.3f}", [f(x) for x in xs if ...], a, b = f()

Commands:
"""


@command("help", ":help", "this cheat sheet")
def _help(repl: Repl, argument: str) -> Outcome:
    lines = [CHEAT_SHEET.rstrip("\n")]
    for cmd in COMMANDS.values():
        if cmd.usage in (":where", ":continue") and not repl.in_debugger:
            continue
        lines.append(f"  {cmd.usage:<24} {cmd.help}")
    repl.write("\n".join(lines))
    return Outcome.OK


@command("vars", ":vars", "your variables, with type, shape and gradient state")
def _vars(repl: Repl, argument: str) -> Outcome:
    rows = describe_vars(repl.env.vars)
    if not rows:
        repl.write("(no variables yet)")
        return Outcome.OK
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    repl.write("\n".join(f"{n:<{widths[0]}}  {t:<{widths[1]}}  {s:<{widths[2]}}  {g}".rstrip() for n, t, s, g in rows))
    return Outcome.OK


def describe_vars(variables: dict[str, object]) -> list[tuple[str, str, str, str]]:
    """(name, type, shape or value, gradient state) for each variable, sorted by name."""
    rows = []
    for name, value in sorted(variables.items()):
        if isinstance(value, Tensor):
            state = []
            if value.requires_grad:
                state.append("requires grad" if value.is_leaf else f"computed by {value.grad_fn.op}")  # type: ignore[union-attr]
            if value.grad is not None:
                state.append("has .grad")
            rows.append((name, f"{value.dtype} tensor", str(value.shape), ", ".join(state)))
        elif isinstance(value, Function):
            rows.append((name, "function", value.signature(), ""))
        else:
            rows.append((name, type_name(value), show_short(value), ""))
    return rows


@command("load", ":load FILE", "run a .dg file here; its definitions stay")
def _load(repl: Repl, argument: str) -> Outcome:
    if not argument:
        repl.report(DGError("CommandError", "usage: :load FILE"))
        return Outcome.ERROR
    try:
        path = str(Path(argument).expanduser())
        text, _ = read_program(path if path != "-" else "./-")  # a file named -, not standard input
    except DGError as e:
        repl.report(DGError("CommandError", e.message.replace("cannot read", "cannot load", 1)))
        return Outcome.ERROR
    try:
        repl.session.run(text, argument, env=repl.env)
    except DGError as e:
        repl.report(e)
        return Outcome.ERROR
    return Outcome.OK


@command("reset", ":reset", "forget every variable and function")
def _reset(repl: Repl, argument: str) -> Outcome:
    repl.env.vars.clear()
    repl.write("(all variables cleared)")
    return Outcome.OK


@command("quit", ":quit", "leave (Ctrl-D does too)")
def _quit(repl: Repl, argument: str) -> Outcome:
    return Outcome.QUIT


@command("graph", ":graph NAME", "the recorded graph behind a tensor, with gradients after grad")
def _graph(repl: Repl, argument: str) -> Outcome:
    value = repl.env.lookup(argument) if argument.isidentifier() else MISSING
    if not isinstance(value, Tensor):
        what = "usage: :graph NAME" if value is MISSING else f"'{argument}' is a {type_name(value)}, not a tensor"
        repl.report(DGError("CommandError", what))
        return Outcome.ERROR
    repl.write(text_picture(repl.seeing.graph(value), argument))
    return Outcome.OK


@command("where", ":where", "at a breakpoint: the DG call stack")
def _where(repl: Repl, argument: str) -> Outcome:
    if repl.paused_at is None:
        repl.write("(not at a breakpoint)")
        return Outcome.OK
    repl.write("\n".join(call_stack(repl.frames, repl.paused_at)))
    return Outcome.OK


@command("continue", ":continue", "at a breakpoint: let the program go on (Ctrl-D does too)")
def _continue(repl: Repl, argument: str) -> Outcome:
    if repl.paused_at is None:
        repl.write("(not at a breakpoint)")
        return Outcome.OK
    return Outcome.CONTINUE


# ---- reading cells from a pipe ------------------------------------------------------------
def read_cells(lines: Iterable[str]) -> Iterator[str]:
    """Group lines into complete cells, as a person would enter them at the prompt."""
    buffer = ""
    for line in lines:
        buffer += line if line.endswith("\n") else line + "\n"
        if is_complete(buffer[:-1]):
            if buffer.strip():
                yield buffer
            buffer = ""
    if buffer.strip():
        yield buffer


def run_piped(repl: Repl, lines: Iterable[str]) -> Outcome:
    """Run cells from non-terminal input without prompts; stop at :quit, :continue or the end."""
    failed = False
    for cell in read_cells(lines):
        outcome = repl.run_cell(cell)
        if outcome in (Outcome.QUIT, Outcome.CONTINUE):
            return outcome
        failed = failed or outcome is Outcome.ERROR
    return Outcome.ERROR if failed else Outcome.OK


# ---- completion -------------------------------------------------------------------------------
WORD = re.compile(r"(?:(?P<obj>[A-Za-z_]\w*)\s*\.\s*)?(?P<word>\w*)$")


def complete(text_before_cursor: str, env: Env) -> list[str]:
    """Completions for the word before the cursor: attributes after `name.`, else names and keywords."""
    line = text_before_cursor.split("\n")[-1]
    if line.lstrip().startswith(":") and " " not in line.strip():
        prefix = line.strip()[1:]
        return [f":{name}" for name in COMMANDS if name.startswith(prefix)]
    match = WORD.search(line)
    if match is None:
        return []
    word = match["word"]
    if match["obj"] is not None:
        value = env.lookup(match["obj"])
        names = attribute_names(value)
        return sorted(n for n in names if n.startswith(word))
    if not word:
        return []
    candidates = set(KEYWORDS) | {n for n in env.visible_names() if not n.startswith("_")}
    return sorted(n for n in candidates if n.startswith(word) and n != word)


def attribute_names(value: object) -> list[str]:
    """What may follow `value.`; a tensor's list when the value is not known yet."""
    kind = type(value)
    if kind in PROPERTIES or kind in METHODS:
        return [*PROPERTIES.get(kind, {}), *METHODS.get(kind, {})]
    if isinstance(value, Builtin | Function | GradMode | int | float | bool) or value is None:
        return []
    return [*TENSOR_PROPERTIES, *TENSOR_METHODS]
