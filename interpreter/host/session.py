"""A session: one interpreter's state (globals, call stack, output, limits) and how to run text in it.

The CLI runs a file in one session; the REPL runs each cell in the same session, so variables
live on between cells and an error in one cell leaves the others' work intact. What a run may
touch is the session's RunContext (context.py); what the engine tells listeners during a run
(a tracer, an anomaly check) and where it says ops came from are set for the run and restored
after it, as is NumPy's error state.
"""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from dglang import autograd as ag
from dglang.autograd import allocation as engine_limits
from dglang.autograd.tensor import recording
from dglang.interpreter import pipeline
from dglang.interpreter.diagnostics.errors import CallFrame, DGError, OutputClosed
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.library.builtin_table import make_builtins
from dglang.interpreter.library.data_files import data_file
from dglang.interpreter.library.runtime import Builtin, CallContext, Env, show
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program, compile_expression
from dglang.interpreter.semantics.hints import explain
from dglang.interpreter.semantics.interrupts import Stopped
from dglang.interpreter.semantics.locating import interruption

from .limits import MAX_PROGRAM_BYTES, Limits, output_size
from .modules import Modules
from .watchdog import Watchdog

# Each DG call nests a handful of Python frames (call → body → statement → expression ...).
PYTHON_FRAMES_PER_CALL = 12
# Recorded graphs hold no reference cycles (reference counting frees them), so Python's cycle
# collector only rescans a growing graph for nothing: with its usual settings a 100,000-step
# scalar loop spent half its time there. Young objects are still scanned every 50,000 net
# allocations, so cycles a program drops (a `def` run in a loop) are still collected; the older
# generations, which would rescan the whole graph, almost never.
GC_THRESHOLDS = (50_000, 1000, 1000)


@contextlib.contextmanager
def collecting_for_graphs() -> Iterator[None]:
    """Python's collector set for recorded graphs (GC_THRESHOLDS) while this lasts. A run holds it;
    a front end holds it longer, until it has reported a run's error: set back at the end of a
    run, the usual settings start a collection that rescans the whole graph before the message (a
    second late, for a --timeout in a loop that grew ten million nodes)."""
    collector = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*collector)


COMPILE_FRAMES = 1000  # Python frames the parser and compiler may nest (Python's own default limit)


def python_depth() -> int:
    """How many Python frames are on the stack now."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


NOT_TEXT = re.compile("[\ud800-\udfff]")


def not_utf8(source: Source, index: int) -> DGError:
    """The error for a line holding a byte that is not UTF-8 (standard input read with
    surrogateescape turns such a byte into a lone surrogate: b'\\xff' becomes '\\udcff')."""
    line = source.text.count("\n", 0, index) + 1
    column = index - (source.text.rfind("\n", 0, index) + 1) + 1
    code = ord(source.text[index])
    what = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"the character U+{code:04X}"
    return DGError(
        "SyntaxError",
        f"this line is not UTF-8 text: {what} cannot be read",
        Span(source, line, column, line, column + 1),
        help="save the file as UTF-8 (most editors offer it under 'Save with encoding')",
    )


def detached(error: DGError) -> DGError:
    """The error without the program's frames: a REPL keeps its last error, and through the
    traceback it would keep every variable of the calls that failed (a list that filled the memory).
    An internal error keeps the Python exception behind it, for `--debug`."""
    error.__traceback__ = error.__context__ = None
    error.node, error.clues = None, ()  # read by the hint writer already
    if error.kind != "InternalError":
        error.original = None
    return error


class Session:
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
        self.err = sys.stderr  # where warnings go
        self.context.warn = self.warn
        self._on_breakpoint: Callable[[CallContext], None] | None = None
        # Listen to the engine during every run (a tracer, an anomaly check): see autograd's Recording.
        self.listeners: list[Any] = []
        self.running = False  # inside the outermost execute (a breakpoint's cells run nested in it)
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
        from dglang.interpreter.syntax import parser  # noqa: F401  (loads the parser's tables: DG's start-up, not the program's time)

        source = Source(name, text)
        first_line = Span(source, 1, 1, 1, len(source.line(1)) + 1)

        def compiled() -> Any:
            try:
                return self.compile(text, name, echo)
            except Stopped as e:  # time or memory ran out before any statement ran
                kind, message, help = interruption(e)
                raise DGError(kind, f"{message} (DG was still reading it)", first_line, help=help) from None

        self._limited(compiled, self.globals if env is None else env, first_line)

    def compile(self, text: str, name: str = "<input>", echo: bool = False) -> Any:
        """Text → closures, raising a SyntaxError before anything runs."""
        return self.compile_source(Source(name, text), echo).code

    def compile_source(self, source: Source, echo: bool = False) -> Program:
        """A text → its program (closures, and what the resolver found); raises before anything runs."""
        text = source.text
        if len(text) > MAX_PROGRAM_BYTES or output_size(text) > MAX_PROGRAM_BYTES:
            raise DGError(
                "LimitError",
                f"the program is {output_size(text):,} bytes long, more than the limit of {MAX_PROGRAM_BYTES:,}",
                Span(source, 1, 1, 1, 2),
                help="DG reads programs of up to 1 MiB; split this one into smaller files",
            )
        not_text = NOT_TEXT.search(text)
        if not_text is not None:  # bytes that were not UTF-8, passed on by a reader as surrogates
            raise not_utf8(source, not_text.start())
        # Parsing and compiling allocate about a hundred objects per line and make no cycles, so
        # the cycle collector only rescans them again and again: it took two thirds of the time.
        collecting = gc.isenabled()
        gc.disable()
        # The parser and the compiler recurse over the nesting of the source (lark partly through
        # generators, which hold C frames): they get Python's usual thousand frames, wherever they
        # are called from (a breakpoint's cell runs 10,000 DG calls deep, under a raised limit).
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(python_depth() + COMPILE_FRAMES)
        try:
            try:
                program = pipeline.compile(source, self.context, echo, self.not_the_programs_time)
            except RecursionError:  # the builder managed, the compiler (a few frames deeper per level) did not
                from dglang.interpreter.syntax.parser import parse_tree, too_deeply_nested

                raise too_deeply_nested(parse_tree(source), source) from None
            self.use(program.resolution.free_names)
            return program
        finally:
            sys.setrecursionlimit(limit)
            if collecting:
                gc.enable()

    def execute(self, code: Any, env: Env) -> None:
        """Run compiled code in `env` under the session's limits. May nest: a breakpoint's REPL
        runs cells inside a paused call, under the paused run's limits."""
        self._limited(lambda: code, env, None)

    def _limited(self, compiled: Callable[[], Any], env: Env, start: Span | None) -> None:
        """Get the code (`compiled()`: parsing, when it is a run of text) and run it, both under the
        session's limits; `start` locates a stop that arrives before the first statement."""
        if self.running:  # a breakpoint's cell, inside the paused run
            try:
                self._run_code(compiled(), env)
            except DGError as e:
                raise self.explained(e) from None
            return
        # Each program, and each REPL cell, gets the whole budget again.
        context, limits = self.context, self.limits
        self.running = True
        context.steps = context.inside_builtins = self.printed = 0
        saved = recording.save()
        recording.where = recording.call = None
        for listener in self.listeners:
            recording.listen(listener)
        memory_before, engine_limits.max_bytes = engine_limits.max_bytes, limits.max_memory
        watchdog = None
        if limits.timeout is not None or limits.max_memory is not None:
            overrun = self._overrun if self.hard_stop is not None else None
            watchdog = self.watchdog = Watchdog(limits.timeout, limits.max_memory, overrun)
        finished, error = False, None
        try:
            # The watchdog raises at most one Stopped, anywhere from start() to the end of stop():
            # inside a statement it is located there; anywhere else it is caught below.
            try:
                if watchdog is not None:
                    watchdog.start()
                self._run_code(compiled(), env)  # compiled before _run_code raises the recursion limit
                finished = True
            except DGError as e:
                error = e
                raise
            finally:
                if watchdog is not None:
                    watchdog.stop()
        except Stopped as e:
            if watchdog is not None:
                watchdog.stop()
            if error is not None:  # the program's own error came first
                raise detached(self.explained(error)) from None
            if not finished:  # between statements, or before the first
                raise self._stopped_error(e, start) from None
        except DGError as e:
            raise detached(self.explained(e)) from None
        finally:
            if watchdog is not None:  # again: a Ctrl-C may have cut the first stop short
                watchdog.stop()
            self.watchdog = None
            engine_limits.max_bytes = memory_before
            recording.restore(saved)
            self.running = False

    def _run_code(self, code: Any, env: Env) -> None:
        context = self.context
        depth, loops = len(context.frames), len(context.loops)
        grad_mode = ag.is_grad_enabled()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, context.max_depth * PYTHON_FRAMES_PER_CALL + 1000))
        try:
            with collecting_for_graphs(), np.errstate(all="ignore"):  # log(0) is -inf and 0/0 is nan, as in PyTorch
                code(env)
        except RecursionError:
            raise DGError(
                "RecursionError",
                "nested too deeply for the interpreter",
                help="reduce the nesting of expressions or calls",
            ) from None
        finally:
            ag.set_grad_enabled(grad_mode)
            del context.frames[depth:], context.loops[loops:]
            sys.setrecursionlimit(limit)

    def _stopped_error(self, stop: Stopped, start: Span | None) -> DGError:
        """The error for a stop that no statement located: at the op that ran last, else at `start`."""
        kind, message, help = interruption(stop)
        where = recording.where
        span = where.span if where is not None else start
        return DGError(kind, message, span, help=help, frames=tuple(self.context.frames) if where else ())

    def _overrun(self, stop: type[Stopped]) -> None:
        """Called by the watchdog's thread when the program did not stop in time (one long call
        into C): hand the error, located at the op running, to the host's hard stop."""
        if self.hard_stop is not None:
            self.hard_stop(self._stopped_error(stop(), None))

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

    # ---- services for builtins ------------------------------------------------------------
    def write(self, text: str) -> None:
        """Write program output, within the output limit of this run."""
        budget = self.limits.max_output
        if budget is not None:
            self.printed += output_size(text)
            if self.printed > budget:
                raise DGError(
                    "LimitError",
                    f"the program printed more than {budget:,} bytes",
                    help="a print inside a loop that runs too often? (the limit is --max-output)",
                )
        try:
            self.out.write(text)
        except BrokenPipeError:
            raise OutputClosed from None
        except UnicodeEncodeError:  # "\ud800" in a string: show what cannot be encoded as an escape
            encoding = getattr(self.out, "encoding", None) or "utf-8"
            self.out.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def echo(self, value: Any) -> None:
        self.write(show(value) + "\n")

    def explained(self, error: DGError) -> DGError:
        """The error with its hint written (hints.py), now that it is reported."""
        return explain(error, self.context.rebound_parameter)

    def warn(self, warning: DGError) -> None:
        """Report a warning (kind "Warning") the way errors are reported, to standard error, with
        its hint and the DG call stack where it was given."""
        warning.frames = warning.frames or tuple(self.context.frames)
        self.out.flush()
        self.err.write(format_error(self.explained(warning)))
        self.err.flush()

    def evaluate(self, text: str, env: Env, name: str = "<expression>") -> Any:
        """The value of one expression in `env` (a debugger's breakpoint condition)."""
        from dglang.interpreter.syntax.parser import parse_expression  # lark loads only when an expression is typed

        source = Source(name, text)
        expr = parse_expression(text, source, 1, 1)
        code = compile_expression(expr, self.context)
        with np.errstate(all="ignore"):
            return code(env)

    def data_path(self, path: Any) -> Path:
        """A data file a program may read: a regular file under its folder (or an --allow-path folder)."""
        return data_file(path, self.base_dir, self.allowed_dirs)
