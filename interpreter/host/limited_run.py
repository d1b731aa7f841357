"""One run under a session's limits, from the first thing set to the last thing set back, and the
settings of Python's own a compile or a run needs.

    Session.run (text) or Session.execute (compiled code)
      limited():  the budgets start afresh (steps, output); the engine's listeners and memory
                  ceiling are set; the watchdog starts (--timeout, --max-memory)
                    compile the text, if it is text (parsing counts toward the time), then run it
                    with Python's settings for a run (`for_running`, below)
                  the watchdog stops, surely; everything set is set back; an error leaves with
                  its hint written and without the program's frames

The watchdog raises at most one Stopped in the program's thread, anywhere from its start() to
the end of its stop(): inside a statement, the statement locates it (semantics/blocks.py);
anywhere else (before the first statement, between two, while compiling) it is located here.

Python's settings, each set for the duration of a compile (`for_compiling`) or a run
(`for_running`), and set back after it however it ended:
- The recursion limit. The parser and the compiler recurse over the nesting of the source; a
  run nests a handful of Python frames per DG call, so Python's limit is raised to match
  `--max-depth` while a program runs (DG's own limit, not Python's, stops a runaway recursion).
- The cycle collector. Parsing and compiling make about a hundred objects per line and no
  cycles, and a recorded graph holds no cycles either (reference counting frees it): the
  collector would only rescan them, again and again.
- NumPy's error state: log(0) is -inf and 0/0 is nan, as in PyTorch, without a warning.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np

from dglang import autograd as ag
from dglang.autograd import hooks
from dglang.autograd.tensor import recording
from dglang.interpreter import pipeline
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program
from dglang.interpreter.semantics.interrupts import Stopped
from dglang.interpreter.semantics.locating import interruption

from .guards import Guards
from .limits import Limits
from .watchdog import Watchdog

# Python frames the parser and compiler may nest (Python's own default limit).
COMPILE_FRAMES = 1000
# Each DG call nests a handful of Python frames (call → body → statement → expression ...); the
# reference evaluator, which has a frame for each node it is running, twice as many.
PYTHON_FRAMES_PER_CALL = {"accelerator": 12, "reference": 24}
# With its usual settings the collector spent half the time of a 100,000-step scalar loop
# rescanning its growing graph. Young objects are still scanned every 50,000 net allocations, so
# cycles a program drops (a `def` run in a loop) are still collected; the older generations,
# which would rescan the whole graph, almost never.
GC_THRESHOLDS = (50_000, 1000, 1000)


class Host(Protocol):
    """What a run needs of the session it runs in."""

    context: RunContext
    limits: Limits
    listeners: list[Any]  # listen to the engine during the run (a tracer, an anomaly check)
    running: bool  # inside the outermost run (a breakpoint's cells run nested in it)
    runs: int  # outermost runs begun: a debugger's :step ends with the run it was given in
    printed: int  # bytes printed by the run so far
    watchdog: Watchdog | None  # while a run is watched
    hard_stop: Callable[[DGError], None] | None  # what to do when a stopped program does not stop

    def explained(self, error: DGError) -> DGError: ...

    def overrun(self, stop: type[Stopped]) -> None: ...


def limited(session: Host, compiled: Callable[[], Any], env: Env, start: Span | None) -> None:
    """Get the code (`compiled()`: parsing, when it is a run of text) and run it in `env`, both under
    the session's limits; `start` locates a stop that arrives before the first statement."""
    if session.running:  # a breakpoint's cell, run inside the paused run and under its limits
        try:
            run_code(session.context, compiled(), env)
        except DGError as e:
            raise session.explained(e) from None
        return
    context, limits = session.context, session.limits
    session.running = True
    session.runs += 1
    context.steps = context.inside_builtins = session.printed = 0  # each program, each cell: the whole budget
    saved = recording.save()
    recording.where = recording.call = None
    for listener in session.listeners:
        recording.listen(listener)
    hooks_before = hooks.install(Guards(limits.max_memory))  # the engine asks them before large work
    watchdog = None
    if limits.timeout is not None or limits.max_memory is not None:
        overrun = session.overrun if session.hard_stop is not None else None
        watchdog = session.watchdog = Watchdog(limits.timeout, limits.max_memory, overrun)
    finished, error = False, None
    try:
        try:
            if watchdog is not None:
                watchdog.start()
            run_code(context, compiled(), env)  # compiled before run_code raises the recursion limit
            finished = True
        except DGError as e:
            error = e
            raise
        finally:
            if watchdog is not None:
                watchdog.stop()
    except Stopped as e:  # raised outside any statement, or in the stop() above
        if watchdog is not None:
            watchdog.stop()
        if error is not None:  # the program's own error came first
            raise detached(session.explained(error)) from None
        if not finished:  # between statements, or before the first
            raise stopped_error(e, start, context) from None
    except DGError as e:
        raise detached(session.explained(e)) from None
    finally:
        if watchdog is not None:  # again: a Ctrl-C may have cut the first stop short
            watchdog.stop()
        session.watchdog = None
        hooks.install(hooks_before)
        recording.restore(saved)
        session.running = False


def run_code(context: RunContext, code: Program | Callable[[Env], Any], env: Env) -> None:
    """Run a program (pipeline.run), or a host's own code; the call stack, the loops running and
    the grad mode are as they were after."""
    depth, loops = len(context.frames), len(context.loops)
    grad_mode = ag.is_grad_enabled()
    try:
        with for_running(context.max_depth, context.evaluator):
            if type(code) is Program:
                pipeline.run(code, env)
            else:
                code(env)  # type: ignore[operator]
    finally:
        ag.set_grad_enabled(grad_mode)
        del context.frames[depth:], context.loops[loops:]


def stopped_error(stop: Stopped, start: Span | None, context: RunContext) -> DGError:
    """The error for a stop that no statement located: at the op that ran last, else at `start`."""
    kind, message, help = interruption(stop)
    where = recording.where
    span = where.span if where is not None else start
    return DGError(kind, message, span, help=help, frames=tuple(context.frames) if where else ())


def detached(error: DGError) -> DGError:
    """The error without the program's frames: a REPL keeps its last error, and through the
    traceback it would keep every variable of the calls that failed (a list that filled the memory).
    An internal error keeps the Python exception behind it, for `--debug`."""
    error.__traceback__ = error.__context__ = None
    error.node, error.clues = None, ()  # read by the hint writer already
    if error.kind != "InternalError":
        error.original = None
    return error


@contextlib.contextmanager
def for_compiling(source: Source) -> Iterator[None]:
    """The collector off, and the usual thousand frames for the parser and the compiler wherever
    they are called from (a breakpoint's cell runs 10,000 DG calls deep, under a raised limit).
    A program nested deeper than they can follow is a SyntaxError at its deepest point."""
    collecting = gc.isenabled()
    gc.disable()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(python_depth() + COMPILE_FRAMES)
    try:
        yield
    except RecursionError:  # the builder managed, the compiler (a few frames deeper per level) did not
        from dglang.interpreter.syntax.parser import parse_tree, too_deeply_nested

        raise too_deeply_nested(parse_tree(source), source) from None
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.enable()


@contextlib.contextmanager
def for_running(max_depth: int, evaluator: str = "accelerator") -> Iterator[None]:
    """Python's recursion limit raised for `max_depth` DG calls, the collector set for graphs, and
    NumPy's floating-point errors quiet. Python's own RecursionError (an expression nested
    too deeply) becomes DG's."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, max_depth * PYTHON_FRAMES_PER_CALL[evaluator] + 1000))
    try:
        with collecting_for_graphs(), np.errstate(all="ignore"):
            yield
    except RecursionError:
        raise DGError(
            "RecursionError", "nested too deeply for the interpreter", help="reduce the nesting of expressions or calls"
        ) from None
    finally:
        sys.setrecursionlimit(limit)


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


def python_depth() -> int:
    """How many Python frames are on the stack now."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth
