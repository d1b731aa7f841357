"""One run under a session's limits, from the first thing set to the last thing set back.

    Session.run (text) or Session.execute (compiled code)
      limited():  the budgets start afresh (steps, output); the engine's listeners and memory
                  ceiling are set; the watchdog starts (--timeout, --max-memory)
                    compile the text, if it is text (parsing counts toward the time), then run it
                    with Python's settings for a run (python_settings.for_running)
                  the watchdog stops, surely; everything set is set back; an error leaves with
                  its hint written and without the program's frames

The watchdog raises at most one Stopped in the program's thread, anywhere from its start() to
the end of its stop(): inside a statement, the statement locates it (semantics/blocks.py);
anywhere else (before the first statement, between two, while compiling) it is located here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from dglang import autograd as ag
from dglang.autograd import hooks
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.interrupts import Stopped
from dglang.interpreter.semantics.locating import interruption

from .guards import Guards
from .limits import Limits
from .python_settings import for_running
from .watchdog import Watchdog


class Host(Protocol):
    """What a run needs of the session it runs in."""

    context: RunContext
    limits: Limits
    listeners: list[Any]  # listen to the engine during the run (a tracer, an anomaly check)
    running: bool  # inside the outermost run (a breakpoint's cells run nested in it)
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


def run_code(context: RunContext, code: Any, env: Env) -> None:
    """Run compiled code; the call stack, the loops running and the grad mode are as they were after."""
    depth, loops = len(context.frames), len(context.loops)
    grad_mode = ag.is_grad_enabled()
    try:
        with for_running(context.max_depth):
            code(env)
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
