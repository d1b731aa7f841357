"""A session: one interpreter's state (globals, call stack, output, limits) and how to run text in it.

The CLI runs a file in one session; the REPL runs each cell in the same session, so variables
live on between cells and an error in one cell leaves the others' work intact. What a run may
touch is the session's RunContext (context.py); what the engine tells listeners during a run
(a tracer, an anomaly check) and where it says ops came from are set for the run and restored
after it, as is NumPy's error state.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from dglang import autograd as ag
from dglang.autograd.tensor import recording

from . import ast_cache
from .builtins import make_builtins
from .context import RunContext
from .errors import CallFrame, DGError, OutputClosed
from .evaluator import compile_expression, compile_program
from .limits import Limits, Timer, output_size
from .report import format_error
from .runtime import Builtin, CallContext, Env, show
from .source import Source

MAX_DATA_FILE = 200_000_000  # bytes: a CSV larger than this is not a lesson's data set
# Each DG call nests a handful of Python frames (call → body → statement → expression ...).
PYTHON_FRAMES_PER_CALL = 12
# Recorded graphs hold no reference cycles (reference counting frees them), so Python's cycle
# collector only rescans a growing graph for nothing: with its usual settings a 100,000-step
# scalar loop spent half its time there. Young objects are still scanned every 50,000 net
# allocations, so cycles a program drops (a `def` run in a loop) are still collected; the older
# generations, which would rescan the whole graph, almost never.
GC_THRESHOLDS = (50_000, 1000, 1000)


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
        self.timer: Timer | None = None  # `--timeout`, while a run is under way
        self.builtins = Env(make_builtins(self.write, self.data_path, self.pause), None)
        self.globals = Env({}, self.builtins)

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
    def run(self, text: str, name: str = "<input>", echo: bool = False, cached: bool = False) -> None:
        """Parse, compile and run `text` in this session's globals; errors raise DGError."""
        code = self.compile(text, name, echo, cached)
        self.execute(code, self.globals)

    def compile(self, text: str, name: str = "<input>", echo: bool = False, cached: bool = False) -> Any:
        """Text → closures, raising a SyntaxError before anything runs. With `cached` (`dg FILE`),
        an unchanged file's AST comes from the cache of parsed programs (see ast_cache.py)."""
        source = Source(name, text)
        # Parsing and compiling allocate about a hundred objects per line and make no cycles, so
        # the cycle collector only rescans them again and again: it took two thirds of the time.
        collecting = gc.isenabled()
        gc.disable()
        try:
            module = ast_cache.parse(source) if cached else ast_cache.parse_now(source)
            try:
                code, resolution = compile_program(module, self.context, echo=echo)
            except RecursionError:  # the builder managed, the compiler (a few frames deeper per level) did not
                from .parser import parse_tree, too_deeply_nested

                raise too_deeply_nested(parse_tree(source), source) from None
            self.use(resolution.free_names)
            return code
        finally:
            if collecting:
                gc.enable()

    def execute(self, code: Any, env: Env) -> None:
        """Run compiled code in `env`. May nest: a breakpoint's REPL runs cells inside a paused call."""
        context = self.context
        depth, loops = len(context.frames), len(context.loops)
        outermost = depth == 0 and not self.running
        timer = saved = None
        if outermost:  # each program, and each REPL cell, gets the whole budget again
            self.running = True
            context.steps = self.printed = 0
            saved = recording.save()
            recording.where = recording.call = None
            for listener in self.listeners:
                recording.listen(listener)
            if self.limits.timeout is not None:
                timer = self.timer = Timer(self.limits.timeout)
                timer.start()
        grad_mode = ag.is_grad_enabled()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, context.max_depth * PYTHON_FRAMES_PER_CALL + 1000))
        collector = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            with np.errstate(all="ignore"):  # log(0) is -inf and 0/0 is nan, as in PyTorch, without warnings
                code(env)
        except RecursionError:
            raise DGError(
                "RecursionError",
                "nested too deeply for the interpreter",
                help="reduce the nesting of expressions or calls",
            ) from None
        finally:
            ag.set_grad_enabled(grad_mode)
            if timer is not None:
                timer.stop()
                self.timer = None
            if saved is not None:
                recording.restore(saved)
                self.running = False
            del context.frames[depth:], context.loops[loops:]
            sys.setrecursionlimit(limit)
            gc.set_threshold(*collector)

    def pause(self, context: CallContext) -> None:
        """`breakpoint()`: hand over to the debugger, if there is one."""
        if self.on_breakpoint is not None:
            with self.timer_stopped():
                self.on_breakpoint(context)

    @contextmanager
    def timer_stopped(self) -> Iterator[None]:
        """While a program waits at a debugger's prompt: that time is not the program's (--timeout)."""
        paused = self.timer.pause() if self.timer is not None else None
        try:
            yield
        finally:
            if paused is not None and self.timer is not None:
                self.timer.resume(paused)

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

    def warn(self, warning: DGError) -> None:
        """Report a warning (kind "Warning") the way errors are reported, to standard error."""
        self.out.flush()
        self.err.write(format_error(warning))
        self.err.flush()

    def evaluate(self, text: str, env: Env, name: str = "<expression>") -> Any:
        """The value of one expression in `env` (a debugger's breakpoint condition)."""
        from .parser import parse_expression  # lark loads only when a program is parsed (see ast_cache.py)

        source = Source(name, text)
        expr = parse_expression(text, source, 1, 1)
        code = compile_expression(expr, self.context)
        with np.errstate(all="ignore"):
            return code(env)

    def data_path(self, path: Any) -> Path:
        """A data file a program may read: a regular file under its folder (or an --allow-path folder)."""
        if not isinstance(path, str):
            raise DGError("TypeError", f"a path is a string, not {type(path).__name__}")
        if "\0" in path:
            raise DGError("FileError", "a path cannot hold a NUL character")
        candidate = Path(path)
        if (candidate.is_absolute() or ".." in candidate.parts) and not self.allowed_dirs:
            raise DGError(
                "FileError",
                f"'{path}' is outside the program's folder",
                help="data files are read relative to the program, without '..'",
            )
        base = self.base_dir.resolve()
        resolved = (base / candidate).resolve()  # follows symbolic links, so a link cannot lead out
        roots = [base, *self.allowed_dirs]
        if not any(resolved.is_relative_to(root) for root in roots):
            where = "the program's folder" if not self.allowed_dirs else "the program's folder and the allowed folders"
            raise DGError(
                "FileError",
                f"'{path}' leads outside {where}",
                help="`dg --allow-path DIR` lets a program read data files under DIR",
            )
        if resolved.is_file() and resolved.stat().st_size > MAX_DATA_FILE:
            raise DGError("FileError", f"'{path}' is larger than {MAX_DATA_FILE:,} bytes, the limit for data files")
        if not resolved.is_file():
            raise DGError("FileError", f"no file '{path}' in the program's folder ({base.name}/)")
        return resolved
