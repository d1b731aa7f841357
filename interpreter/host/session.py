"""A session: a program's globals, and text run through the pipeline under the session's limits.

The CLI runs a file in one session; the REPL runs each cell in the same session, so variables
live on between cells and an error in one cell leaves the others' work intact. What a run may
touch is the session's RunContext (semantics/context.py). Running text is the pipeline
(../pipeline.py), wrapped by the host's modules:

    limits.readable            the program's size and its text, before anything reads it
    limited_run.limited        one run: budgets afresh, the engine's listeners and memory ceiling,
                               the watchdog (watchdog.py), the error reported with its hint
    limited_run.for_compiling  Python's recursion limit and collector, for compiling (for_running:
                               for running)
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from dglang.interpreter import pipeline
from dglang.interpreter.diagnostics.errors import CallFrame, DGError, OutputClosed
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.library.builtin_table import make_builtins
from dglang.interpreter.library.data_files import data_file
from dglang.interpreter.library.runtime import Builtin, CallContext, Env, show
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics import reference
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program, compile_expression
from dglang.interpreter.semantics.interrupts import Stopped
from dglang.interpreter.semantics.linking import link
from dglang.interpreter.semantics.locating import interruption
from dglang.interpreter.semantics.resolver import Resolution, resolve
from dglang.interpreter.syntax.parser import lark_loading, parse, parse_expression

from .limited_run import for_compiling, limited, stopped_error
from .limits import Limits, output_size, readable
from .modules import Modules
from .watchdog import Watchdog


class Session:
    """A program's globals and builtins, its RunContext and limits, and the services builtins use."""

    def __init__(
        self,
        out: TextIO | None = None,
        base_dir: Path | str | None = None,
        max_depth: int = 10_000,
        limits: Limits | None = None,
        allowed_dirs: Sequence[Path | str] = (),
    ) -> None:
        self.out = out if out is not None else sys.stdout
        self.base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self.allowed_dirs = [Path(d).resolve() for d in allowed_dirs]  # `--allow-path`: more folders load_csv may read
        self.limits = limits if limits is not None else Limits()
        self.context = RunContext(
            max_depth=max_depth, max_steps=self.limits.max_steps, show=self.echo, pause=self.pause
        )
        self.printed = 0  # bytes written so far in this run
        self.writes = 0  # writes so far, in any run
        self.err = sys.stderr  # where warnings go
        self.context.warn = self.warn
        self._on_breakpoint: Callable[[CallContext], None] | None = None
        # Listen to the engine during every run (a tracer, an anomaly check): see autograd's Recording.
        self.listeners: list[Any] = []
        # What the tools above the core keep for this session, by tool (the pictures' Seeing, the
        # static functions made): here, they go when the session goes. (A table of sessions in the
        # tool's module would keep every session alive: what it holds refers back to its session.)
        self.tools: dict[str, Any] = {}
        self.running = False  # inside the outermost execute (a breakpoint's cells run nested in it)
        self.runs = 0  # outermost runs begun (a REPL's cells, each): see limited_run.Host
        self.watchdog: Watchdog | None = None  # `--timeout` and `--max-memory`, while a run is under way
        # What to do when a stopped program does not stop (one long call into C): the CLI reports
        # the error and exits; None lets the program run until the call returns.
        self.hard_stop: Callable[[DGError], None] | None = None
        self.builtins = Env(make_builtins(self.write, self.data_path, self.pause), None)
        self.globals = Env({}, self.builtins)
        self.modules = self.context.modules = Modules(self)  # what `import` finds and runs

    @property
    def frames(self) -> list[CallFrame]:
        return self.context.frames

    @property
    def on_breakpoint(self) -> Callable[[CallContext], None] | None:
        """What `breakpoint()` does: a front end sets a debugger here; None lets the program go on.
        With one set, programs that may pause are compiled with the debugger's statement events."""
        return self._on_breakpoint

    @on_breakpoint.setter
    def on_breakpoint(self, debugger: Callable[[CallContext], None] | None) -> None:
        self._on_breakpoint = debugger
        self.context.debugger = debugger is not None

    def add_builtins(self, table: Mapping[str, Any]) -> None:
        """Make more names visible to every program of this session (tools add theirs this way)."""
        self.builtins.vars.update(table)

    def use(self, names: Iterable[str]) -> None:
        """Tell the builtins among `names` that a program will use them (see Builtin.when_used)."""
        for name in names:
            value = self.builtins.vars.get(name)
            if type(value) is Builtin and value.when_used is not None:
                value.when_used()

    # ---- running ----------------------------------------------------------------------------
    def run(self, text: str, name: str = "<input>", echo: bool = False, env: Env | None = None) -> None:
        """Parse, compile and run `text` in `env` (the session's globals unless given); errors
        raise DGError. Parsing counts toward the run's time and memory: a huge file cannot hide there."""
        source = Source(name, text)
        first_line = Span(source, 1, 1, 1, len(source.line(1)) + 1)

        def compiled() -> Any:
            try:
                return self.compile(text, name, echo)
            except Stopped as e:  # time or memory ran out before any statement ran
                kind, message, help = interruption(e)
                raise DGError(kind, f"{message} (DG was still reading it)", first_line, help=help) from None

        limited(self, compiled, self.globals if env is None else env, first_line)

    def compile(self, text: str, name: str = "<input>", echo: bool = False) -> Program:
        """Text → program (the pipeline), raising a SyntaxError or a static error before anything
        runs."""
        return self.compile_source(Source(name, text), echo)

    def compile_source(self, source: Source, echo: bool = False) -> Program:
        """A text → its program (closures, and what the resolver found); raises before anything
        runs. The time lark takes to start, when a program needs it, is DG's, not the program's."""
        with for_compiling(readable(source)), lark_loading(self.not_the_programs_time):
            program = pipeline.compile(source, self.context, echo)
        self.use(program.resolution.free_names)
        return program

    def read(self, text: str, name: str = "<input>") -> tuple[ast.Module, Resolution]:
        """Text → its syntax tree and what the resolver found, with the errors `compile` raises
        (the size limit, bytes that were not UTF-8, syntax and static errors, a module not found)
        and nothing compiled to run: for a tool that reads programs without running them (the
        language server)."""
        source = Source(name, text)
        with for_compiling(readable(source)), lark_loading(self.not_the_programs_time):
            module = parse(source)
            resolution = resolve(module)
            link(resolution, self.context)  # the modules it imports found, as compile finds them
        return module, resolution

    def execute(self, code: Program | Callable[[Env], Any], env: Env) -> None:
        """Run a compiled program (or a host's own code) in `env` under the session's limits. May
        nest: a breakpoint's REPL runs cells inside a paused call, under the paused run's limits."""
        limited(self, lambda: code, env, None)

    def overrun(self, stop: type[Stopped]) -> None:
        """Called by the watchdog's thread when the program did not stop in time (one long call
        into C): hand the error, located at the op running, to the host's hard stop."""
        if self.hard_stop is not None:
            self.hard_stop(stopped_error(stop(), None, self.context))

    def pause(self, context: CallContext) -> None:
        """`breakpoint()`: hand over to the debugger, if there is one."""
        if self.on_breakpoint is not None:
            with self.not_the_programs_time():  # a person at the prompt takes their time
                self.on_breakpoint(context)

    @contextlib.contextmanager
    def not_the_programs_time(self) -> Iterator[None]:
        """Stop the run's clock and memory checks for a while (they nest)."""
        watchdog = self.watchdog
        if watchdog is not None:
            watchdog.pause()
        try:
            yield
        finally:
            if watchdog is not None:
                watchdog.resume()

    def explained(self, error: DGError) -> DGError:
        """The error with its hint written (hints.py, loaded when the first error is reported)."""
        from dglang.interpreter.semantics.hints import explain

        return explain(error, self.context.rebound_parameter)

    # ---- services for builtins ------------------------------------------------------------
    def write(self, text: str, stream: TextIO | None = None) -> None:
        """Write program output (to `stream`, standard output if not given), within the output limit of this run."""
        self.writes += 1  # static(f) tells a function that printed when traced (interpreter/static)
        budget = self.limits.max_output
        if budget is not None:
            self.printed += len(text) if text.isascii() else output_size(text)  # bytes, in UTF-8
            if self.printed > budget:
                raise DGError(
                    "LimitError",
                    f"the program printed more than {budget:,} bytes",
                    help="a print inside a loop that runs too often? (the limit is --max-output)",
                )
        out = self.out if stream is None else stream
        try:
            out.write(text)
        except BrokenPipeError:
            raise OutputClosed from None
        except UnicodeEncodeError:  # "\ud800" in a string: show what cannot be encoded as an escape
            encoding = getattr(out, "encoding", None) or "utf-8"
            out.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def echo(self, value: Any) -> None:
        self.write(show(value) + "\n")

    def warn(self, warning: DGError) -> None:
        """Report a warning (kind "Warning") the way errors are reported, to standard error, with
        its hint and the DG call stack where it was given."""
        warning.frames = warning.frames or tuple(self.context.frames)
        try:
            self.out.flush()  # (what the program printed before comes first)
        except BrokenPipeError:  # its reader left (`dg prog.dg | head`): as in write
            raise OutputClosed from None
        self.err.write(format_error(self.explained(warning)))
        self.err.flush()

    def evaluate(self, text: str, env: Env, name: str = "<expression>") -> Any:
        """The value of one expression in `env` (a debugger's breakpoint condition)."""
        source = Source(name, text)
        expr = parse_expression(text, source, 1, 1)
        compiled = reference.expression_code if self.context.evaluator == "reference" else compile_expression
        code = compiled(expr, self.context)
        try:
            with np.errstate(all="ignore"):
                return code(env)
        except DGError as e:
            raise self.explained(e) from None

    def data_path(self, path: Any) -> Path:
        """A data file a program may read: a regular file under its folder (or an --allow-path folder)."""
        return data_file(path, self.base_dir, self.allowed_dirs)
