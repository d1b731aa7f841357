"""A session: one interpreter's state (globals, call stack, output, limits) and how to run text in it.

The CLI runs a file in one session; the REPL runs each cell in the same session, so variables
live on between cells and an error in one cell leaves the others' work intact.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from dglang import autograd as ag
from dglang.autograd.tensor import recording
from dglang.interpreter.seeing.anomaly import AnomalyMode

from . import ast_cache
from .builtins import make_builtins
from .errors import CallFrame, DGError, OutputClosed
from .evaluator import Compiler
from .limits import Limits, Timer, output_size
from .runtime import CallContext, Env, show
from .source import Source, Span

if TYPE_CHECKING:
    from dglang.interpreter.frontends.debugger import Debugger
    from dglang.interpreter.seeing.trace import Tracer

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
        detect_anomaly: bool = False,
    ) -> None:
        self.out = out if out is not None else sys.stdout
        self.base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
        self.allowed_dirs = [Path(d).resolve() for d in allowed_dirs]  # `--allow-path`: more folders load_csv may read
        self.max_depth = max_depth  # deepest DG call nesting before a RecursionError
        self.limits = limits if limits is not None else Limits()
        self.steps = 0  # loop iterations and calls so far in this run (counted only under --max-steps)
        self.printed = 0  # bytes written so far in this run
        self.detect_anomaly = detect_anomaly  # `dg --detect-anomaly`: every grad checks for nan and inf
        self.frames: list[CallFrame] = []
        # Where a program last rebound a parameter inside `no_grad` (`w = w - lr * w.grad`), for a hint.
        self.rebound_parameter: tuple[str, Span] | None = None
        # What `breakpoint()` does: open a debugger (the CLI sets one), or nothing.
        self.debugger: Debugger | None = None
        # Keep each backward's steps for graph pictures (the REPL, `dg graph`, programs calling graph()).
        self.pictures = False
        self.tracer: Tracer | None = None  # `dg --trace`
        self.running = False  # inside the outermost execute (a breakpoint's cells run nested in it)
        self.timer: Timer | None = None  # `--timeout`, while a run is under way
        self.builtins = Env(make_builtins(self), None)
        self.globals = Env({}, self.builtins)
        np.seterr(all="ignore")  # log(0) is -inf and 0/0 is nan, as in PyTorch, without warnings

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
                return Compiler(self, echo=echo).module(module)
            except RecursionError:  # the builder managed, the compiler (a few frames deeper per level) did not
                from .parser import parse_tree, too_deeply_nested

                raise too_deeply_nested(parse_tree(source), source) from None
        finally:
            if collecting:
                gc.enable()

    def execute(self, code: Any, env: Env) -> None:
        """Run compiled code in `env`. May nest: a breakpoint's REPL runs cells inside a paused call."""
        grad_mode = ag.is_grad_enabled()
        depth = len(self.frames)
        recording.keep_grads = self.pictures
        if self.tracer is not None:
            self.tracer.install()
        outermost = depth == 0 and not self.running
        timer = anomaly_hook = None
        if outermost:  # each program, and each REPL cell, gets the whole budget again
            self.running = True
            self.steps = self.printed = 0
            if self.detect_anomaly:
                anomaly_hook = AnomalyMode().enter()
            if self.limits.timeout is not None:
                timer = self.timer = Timer(self.limits.timeout)
                timer.start()
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, self.max_depth * PYTHON_FRAMES_PER_CALL + 1000))
        collector = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            code(env)
        except RecursionError:
            ag.set_grad_enabled(grad_mode)
            raise DGError(
                "RecursionError",
                "nested too deeply for the interpreter",
                help="reduce the nesting of expressions or calls",
            ) from None
        except BaseException:
            ag.set_grad_enabled(grad_mode)
            raise
        finally:
            if timer is not None:
                timer.stop()
                self.timer = None
            if outermost:
                self.running = False
                if self.detect_anomaly:
                    AnomalyMode().exit(anomaly_hook)
            del self.frames[depth:]
            sys.setrecursionlimit(limit)
            gc.set_threshold(*collector)
            if self.tracer is not None and depth == 0:
                self.tracer.uninstall()

    def pause(self, context: CallContext) -> None:
        """`breakpoint()`: hand over to the debugger, if there is one."""
        if self.debugger is not None:
            paused = self.timer.pause() if self.timer is not None else None  # time at the prompt is not the program's
            try:
                self.debugger.pause(self, context)
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
