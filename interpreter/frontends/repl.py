"""The REPL, free of any terminal: run a cell or a `:command`, report errors, keep the session.

`terminal.py` wires it to prompt_toolkit for a person at a keyboard; `run_piped` feeds it cells
from a pipe (grouped by cells.py exactly as typed ones are). Both, and the debugger at a pause
(debugger.py), drive a `Repl`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import ClassVar, TextIO

from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError, OutputClosed
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.help import describe_in, everything, register, render
from dglang.interpreter.library.runtime import MISSING, Env, Function, Module, show_short, suggest
from dglang.interpreter.seeing.text_picture import text_picture
from dglang.interpreter.seeing.tools import install
from dglang.interpreter.static.listing import info_text, listings
from dglang.interpreter.static.static_builtins import made_in, static_function

from .cells import is_complete as is_complete  # where front ends look for it (a notebook kernel too)
from .cells import read_cells
from .program_files import read_program
from .sessions import QuitProgram as QuitProgram  # where the debugger and the CLI look for it


# ---- running cells -----------------------------------------------------------------------------
class Outcome(Enum):
    OK = "ok"
    ERROR = "error"
    QUIT = "quit"
    CONTINUE = "continue"  # leave a pause: the program goes on (how: the pause's `resume`)


CommandFunction = Callable[["Repl", str], "Outcome"]


@dataclass
class Command:
    run: CommandFunction
    usage: str  # ":graph NAME"
    summary: str  # one sentence, for the cheat sheet and the completion menu


Commands = dict[str, Command]
COMMANDS: Commands = {}  # the commands of every REPL; debugger.py has those of a paused program


def command(
    name: str, usage: str, doc: str, table: Commands = COMMANDS, kind: str = "REPL command"
) -> Callable[[CommandFunction], CommandFunction]:
    """Register `:name`, with its help (`doc` as a docstring: the summary, then an example)."""

    def add(fn: CommandFunction) -> CommandFunction:
        entry = register(":" + name, kind, usage, doc)
        table[name] = Command(fn, usage, entry.summary)
        return fn

    return add


class Repl:
    """One interactive session: statements typed in run in `env` and everything defined stays.

    At top level `env` is the session's globals; at a pause the debugger's own kind of Repl
    (debugger.py) runs them in the paused function's scope.
    """

    commands: ClassVar[Commands] = COMMANDS
    prompt = ">>> "
    stops_quietly = True  # a cell stopped by :quit at a pause inside it ends, and the REPL goes on
    paused = False  # the REPL of a paused program (frontends/debugger.py)

    def __init__(self, session: Session, env: Env | None = None, err: TextIO | None = None) -> None:
        self.session = session
        self.seeing = install(session)
        self.seeing.keep_backward()  # :graph may show gradients at any time
        self.env = env if env is not None else session.globals
        self.err = err if err is not None else session.err
        session.err = self.err  # warnings a cell gives go where its errors go
        self.cells = 0
        self.last_error: DGError | None = None

    def run_cell(self, text: str) -> Outcome:
        """Run one complete input: a `:command` or DG statements. Errors are printed, state is kept."""
        stripped = text.strip()
        if not stripped:
            return Outcome.OK
        if stripped.startswith(":"):
            return self.run_command(stripped[1:])
        self.cells += 1
        return self.run_text(text, f"<cell {self.cells}>", echo=True)

    def run_text(self, text: str, name: str, echo: bool = False) -> Outcome:
        """Run DG text (a cell, a :load-ed file) in the session; errors are printed, state is kept,
        and a :quit at a pause inside it stops only it."""
        try:
            self.session.run(text, name, echo=echo, env=self.env)
        except DGError as e:
            self.report(e)
            return Outcome.ERROR
        except QuitProgram:
            if not self.stops_quietly:
                raise
            self.write("(stopped at the debugger's :quit)")
        return Outcome.OK

    def report(self, error: DGError) -> None:
        self.last_error = error
        self.session.out.flush()
        self.err.write(format_error(error))
        self.err.flush()

    def run_command(self, line: str) -> Outcome:
        name, _, argument = line.partition(" ")
        cmd = self.commands.get(name)
        if cmd is None:
            hint = suggest(name, self.commands) or "type :help to list the commands"
            self.report(DGError("CommandError", f"no command ':{name}'", help=hint))
            return Outcome.ERROR
        if argument.strip() and " " not in cmd.usage:  # (`:step 3`, `:vars zz`: the argument was ignored)
            self.report(DGError("CommandError", f"usage: {cmd.usage} (it takes nothing after it)"))
            return Outcome.ERROR
        return cmd.run(self, argument.strip())

    def write(self, text: str) -> None:
        self.session.write(text if text.endswith("\n") else text + "\n")

    def end_of_input(self) -> Outcome:
        """What Ctrl-D on an empty line (or the end of piped input) does here: leave DG."""
        return Outcome.QUIT

    def cheat_sheet(self) -> str:
        lines = [CHEAT_SHEET.rstrip("\n")]
        lines.extend(f"  {cmd.usage:<24} {cmd.summary}" for cmd in self.commands.values())
        lines.append(f"  {'Ctrl-D':<24} leave DG (on an empty line); Ctrl-C stops a running cell")
        return "\n".join(lines)


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

  :help NAME, or help(NAME), explains any builtin, x.method, operator, keyword or command;
  help() lists them all. Tab completes a name and shows what each one is.

Commands:
"""


@command(
    "help",
    ":help [NAME]",
    """The cheat sheet, or help on NAME: a builtin, x.method, a keyword, an operator or a :command.

    >>> :help abs
    abs(x)    (builtin function; also x.abs())
        The absolute value of a number, or of each element of a tensor.
        derivative  Abs: a receives g·sign a   (g is the gradient arriving at the result)
        example
          >>> abs(-3), abs(tensor([-1.0, 2.0]))
          (3, tensor([1., 2.]))
    """,
)
def _help(repl: Repl, argument: str) -> Outcome:
    if not argument:
        repl.write(repl.cheat_sheet())
        return Outcome.OK
    found = describe_in(argument, repl.env, repl.session.builtins.vars)
    if found is None:
        names = [e.name for e in everything(repl.session.builtins.vars)]
        hint = suggest(argument, names) or "`:help` alone lists the commands; `help()` lists every name"
        repl.report(DGError("CommandError", f"no help for '{argument}'", help=hint))
        return Outcome.ERROR
    repl.write(render(found))
    return Outcome.OK


@command(
    "vars",
    ":vars",
    """Your variables, with type, shape and gradient state.

    >>> w = tensor([1.0, 2.0], requires_grad=True)
    >>> n = 3
    >>> :vars
    n  int           3
    w  float tensor  (2,)  requires grad
    """,
)
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
                state.append("requires grad" if value.is_leaf else f"computed by {value.grad_fn.op.name}")  # type: ignore[union-attr]
            if value.grad is not None:
                state.append("has .grad")
            rows.append((name, f"{value.dtype} tensor", str(value.shape), ", ".join(state)))
        elif isinstance(value, Function):
            rows.append((name, "function", value.signature(), ""))
        elif isinstance(value, Module):
            rows.append((name, "module", value.path, ""))
        elif type(value) is dict:  # parameters by name: the keys say more than the values would
            keys = show_short(list(value), 50).removeprefix("[").removesuffix("]")
            rows.append((name, "dict", f"{len(value)} key{'s' * (len(value) != 1)}: {keys}" if value else "empty", ""))
        else:
            rows.append((name, type_name(value), show_short(value), ""))
    return rows


@command(
    "load",
    ":load FILE",
    """Run a .dg file here; its variables and functions stay.

    >>> :load examples/pause.dg
    42
    >>> double(5)
    10
    """,
)
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
    return repl.run_text(text, argument)


@command(
    "reload",
    ":reload NAME",
    """Read a module's file again after editing it and run it; the names taken from it are rebound.

    >>> from nn import batches
    >>> :reload nn
    (programs/nn.dg run again; batches rebound)
    """,
)
def _reload(repl: Repl, argument: str) -> Outcome:
    if not argument.isidentifier():
        repl.report(DGError("CommandError", "usage: :reload NAME", help="the module's name, as imported: :reload nn"))
        return Outcome.ERROR
    rebound: list[str] = []

    def reload(env: Env) -> None:  # run as a cell is, under the session's limits
        old, new = repl.session.modules.reload(argument)
        for name, value in env.vars.items():
            if value is old:
                env.vars[name] = new
            elif old.env.vars.get(name, MISSING) is value and name in new.env.vars:
                env.vars[name] = new.env.vars[name]
            else:
                continue
            rebound.append(name)

    try:
        repl.session.execute(reload, repl.env)
    except DGError as e:
        repl.report(e)
        return Outcome.ERROR
    module = repl.session.modules.loaded_module(argument)
    names = f"; {', '.join(rebound)} rebound" if rebound else ""
    repl.write(f"({module.path if module else argument} run again{names})")
    return Outcome.OK


@command(
    "reset",
    ":reset",
    """Forget every variable and function.

    >>> x = 1
    >>> :reset
    (all variables cleared)
    """,
)
def _reset(repl: Repl, argument: str) -> Outcome:
    if repl.paused:
        repl.report(DGError("CommandError", ":reset at a pause would clear the variables the paused program uses",
                            help=":quit stops the program; :reset then clears the session"))  # fmt: skip
        return Outcome.ERROR
    repl.env.vars.clear()
    repl.write("(all variables cleared)")
    return Outcome.OK


@command(
    "quit",
    ":quit",
    """Leave DG (Ctrl-D on an empty line does too); at a pause, stop the paused program.

    >>> :quit
    """,
)
def _quit(repl: Repl, argument: str) -> Outcome:
    return Outcome.QUIT


@command(
    "graph",
    ":graph NAME",
    """The recorded graph behind a tensor, with its gradients after grad.

    >>> x = tensor(2.0, requires_grad=True)
    >>> y = x * x
    >>> :graph y
    ...
    """,
)
def _graph(repl: Repl, argument: str) -> Outcome:
    value = repl.env.lookup(argument) if argument.isidentifier() else MISSING
    if not isinstance(value, Tensor):
        what = "usage: :graph NAME" if value is MISSING else f"'{argument}' is {a_type(value)}, not a tensor"
        repl.report(DGError("CommandError", what))
        return Outcome.ERROR
    repl.write(text_picture(repl.seeing.graph(value), argument))
    return Outcome.OK


@command(
    "static",
    ":static NAME",
    """What static(NAME) did: its traces and guard failures, then the code of each trace.

    >>> def f(x):
    ...     return x * 2
    >>> fast = static(f)
    >>> y = fast(tensor([1.0]))
    >>> :static f
    ...
    """,
)
def _static(repl: Repl, argument: str) -> Outcome:
    value = repl.env.lookup(argument) if argument.isidentifier() else MISSING
    made = static_function(value)
    found = [made] if made is not None else made_in(repl.session, argument) if argument.isidentifier() else []
    if not found:
        what = f"no variable {argument}" if value is MISSING else f"static({argument}) was never made here"
        what = what if argument.isidentifier() else "usage: :static NAME"
        repl.report(DGError("CommandError", what, help="wrap a function first: `fast = static(f)`, and call it"))
        return Outcome.ERROR
    for fn in found:
        repl.write(info_text(fn) + "\n" + listings(fn))
    return Outcome.OK


# ---- reading cells from a pipe ------------------------------------------------------------
def run_piped(repl: Repl, lines: Iterable[str]) -> Outcome:
    """Run cells from non-terminal input without prompts, grouped as a person typing them would
    group them; stop at :quit, at a command that resumes a paused program, or at the end."""
    failed = False
    for cell in read_cells(lines):
        outcome = repl.run_cell(cell)
        try:  # (a program that feeds cells and reads what each printed waits for it before the next)
            repl.session.out.flush()
        except BrokenPipeError:  # its reader left: as Session.write
            raise OutputClosed from None
        if outcome in (Outcome.QUIT, Outcome.CONTINUE):
            return outcome
        failed = failed or outcome is Outcome.ERROR
    return Outcome.ERROR if failed else Outcome.OK
