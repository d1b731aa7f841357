"""`static(f)`: a function that runs `f` as generated code, traced once per signature.

A call binds its arguments as Python would and looks up their description (guard_model.py: each
tensor's shape, dtype, requires_grad, .grad and leaf-ness, which are the same tensor, the values
of the other arguments) and whether grad mode is on. Unseen: `f` runs dynamically with a Tracer
listening, and the trace becomes generated code (generating.py), cached under the description.
Seen: each trace of it checks what it read from outside `f` (guard_model.py), then its generated
forward runs on the arrays of the tensors it reads; a guard that fails is reported in a note
and `f` is traced again. Past MAX_TRACES traces the call runs `f`
dynamically, with a one-time note; so does a run the tracer refused (a `grad` inside, an
in-place update) and any call made while another static function is tracing.

Gradients: when a tensor the trace reads requires grad, each tensor of the result is made by a
recorded node of the op `StaticCall`, whose rule runs the generated backward: `grad` and
`gradient(...)` flow through it to the arguments and the captured tensors. When the gradients
must be differentiable themselves (`gradient()`, a second derivative), the rule applies the
trace's steps again through the engine, recording, and lets the engine differentiate them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor, hooks
from dglang.autograd.node import is_grad_enabled, recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import FULL_CALL, watching
from dglang.interpreter.semantics.interrupts import steps_message

from .generating import GuardFailed, backward_code, forward_code, leaves, saved
from .guard_code import compile_check, lazy_check
from .guard_model import Unguardable, Walk, argument_walk, described_text
from .guard_words import decision_text
from .listing import guard_lines
from .optimizing import optimized
from .replaying import AS_IT_IS, DRAWING, make_plan, replay, static_call_op
from .side_effects import changes, snapshot
from .trace_form import Trace, Var
from .tracing import Tracer

MAX_TRACES = 8  # per static function; past it calls run dynamically


@dataclass
class Entry:
    """One trace in the cache, compiled."""

    key: Any
    described: str
    trace: Trace
    forward: Callable[..., Any]
    outputs: list[Var]
    keep: list[Var]
    backward: Callable[..., Any] | None
    source: str = ""  # the generated code that runs (forward, then backward)
    traced: Trace | None = None  # the trace before the passes
    bare: Callable[..., Any] | None = None  # the forward of the ops' bare forms (bare.py), for small sizes
    bare_source: str = ""
    steps: int = 0  # the steps (--max-steps) the function made when traced: each replay counts them
    plan: Any = None  # what a replay looks up (replaying.Plan)
    made_by: dict[int, str] = field(default_factory=dict)  # each step's output: its op's name
    calls: int = 0
    number: int = 0  # which trace of the function it is, from 1
    drawing: Callable[[], bool] = lambda: False  # the session may draw graphs: results get the real one
    check: Callable[[Any], bool] | None = None  # its guards on what it read, as code (guard_code.py)
    fast: Callable[[Any, list[Any]], bool] | None = None  # the same, after testing the arguments against its key


@dataclass
class StaticFunction:
    """The value `static(f)` returns (wrapped in a Builtin: see builtins.py)."""

    name: str
    call_dynamic: Callable[[list[Any]], Any]  # f called the ordinary way, with every argument given in order
    note: Callable[[str, str | None, Any], None]  # (message, help, where): a one-line report
    params: tuple[str, ...] = ()  # f's parameters
    bind: Callable[[list[Any], dict[str, Any]], list[Any]] = lambda args, kwargs: args  # as Python binds a call
    label: Callable[[Any, str], str] = lambda scope, name: f"`{name}`"  # names a variable in a note (Tracer)
    entries: dict[Any, list[Entry]] = field(default_factory=dict)  # by signature: its traces, each guarded
    refused: dict[Any, str] = field(default_factory=dict)  # signatures whose trace could not be used
    traces: int = 0
    failures: list[str] = field(default_factory=list)
    noted: set[str] = field(default_factory=set)
    dynamic_calls: int = 0
    tracing_time: float = 0.0
    tracing_processor: float = 0.0  # the processor time of the traces (bench/ subtracts it from a step's)
    running_time: float = 0.0
    printed_when_tracing: bool = False
    printed: Callable[[], int] = lambda: 0
    where: Any = None  # the span of the call running now, for notes
    drawing: Callable[[], bool] = lambda: False  # see Entry.drawing
    context: Any = None  # the session's RunContext: its step count and limit (--max-steps)
    outside: Callable[[list[Any]], Any] = lambda args: None  # what it can reach besides its own values
    drawn: list[DrawnCall] = field(default_factory=list)  # runs kept for the pictures (see DrawnCall)
    last: Entry | None = None  # the trace replayed (or made) last: the first one a call tries
    tried_first: bool = False  # first_try just tried it, and said no

    def __call__(self, args: list[Any], kwargs: dict[str, Any] | None = None) -> Any:
        if Tracing.depth:  # inside another static function's trace: its ops must be seen
            return self.call_dynamic(self.bind(args, kwargs or {}))
        bound = self.bind(args, kwargs or {})
        result = FULL_CALL if self.tried_first else self.tried(bound)
        self.tried_first = False
        if result is not FULL_CALL:
            return result
        walk: Walk | None = Walk()
        try:
            key = (tuple([walk.describe(a) for a in bound]), is_grad_enabled())
        except Unguardable as e:
            self.once(f"static({self.name}) runs {self.name} dynamically: an argument holds {e}, too many to "
                      "check at each call", None)  # fmt: skip
            self.dynamic_calls += 1
            return self.call_dynamic(bound)
        failed: Any = None
        entries = self.entries.get(key, ())
        for entry in reversed(entries):  # the latest trace first
            start = time.perf_counter()
            if walk is None:  # (a check went on with the walk: the arguments', afresh)
                walk = Walk()
                [walk.describe(a) for a in bound]
            if entry.check is None or not entry.check(walk):  # what it read from outside f, read again
                walk = Walk()
                [walk.describe(a) for a in bound]
                why = entry.trace.outside.check(walk)  # (and what differs, when it does)
            else:
                why = None
            result = replay(entry, walk.tensors) if why is None else why
            walk = None
            self.running_time += time.perf_counter() - start
            if type(result) is str and result in AS_IT_IS:  # f run as it is: for pictures, a watcher, an error
                if AS_IT_IS[result]:
                    self.once(AS_IT_IS[result].format(self.name), None)
                self.dynamic_calls += 1
                return self.traced_run(bound, key)[0] if result is DRAWING else self.call_dynamic(bound)
            if type(result) is GuardFailed:
                failed = failed or failure(self.name, entry.trace.guards[result.number], result.value)
            elif type(result) is str:
                failed = failed or f"static({self.name}) re-traced {self.name}: {result}"
            else:
                return self.replayed(entry, result)
        if key in self.refused:
            self.dynamic_calls += 1
            return self.call_dynamic(bound)
        if self.traces >= MAX_TRACES:
            self.once(f"static({self.name}) has been traced {MAX_TRACES} times; from now on it runs dynamically",
                      "give it arguments of the same shapes, or fewer values that change its path")  # fmt: skip
            self.dynamic_calls += 1
            return self.call_dynamic(bound)
        if failed is not None:  # every trace of this signature guarded against these values
            self.failures.append(failed)
            self.note(failed, None, self.where)
        return self.trace(key, bound)

    def first_try(self, args: list[Any], kwargs: dict[str, Any], where: Any) -> Any:
        """A call as the interpreter tries it before building its context (Builtin.first_try): the
        trace replayed last, or FULL_CALL (the call then comes to __call__, which does not try it again)."""
        if Tracing.depth or self.last is None:
            return FULL_CALL
        self.where = where
        result = self.tried(self.bind(args, kwargs or {}))
        self.tried_first = result is FULL_CALL
        return result

    def tried(self, bound: list[Any]) -> Any:
        """The trace replayed last, when the arguments fit its key and its guards hold; else FULL_CALL."""
        last = self.last
        if last is None or last.fast is None:
            return FULL_CALL
        start, met = time.perf_counter(), Walk()
        if not last.fast(met, bound):
            return FULL_CALL
        result = replay(last, met.tensors)
        self.running_time += time.perf_counter() - start
        if result is DRAWING or type(result) is GuardFailed or type(result) is str:
            return FULL_CALL
        return self.replayed(last, result)

    def replayed(self, entry: Entry, result: Any) -> Any:
        """A replay's result, after counting its steps (and the note when f printed while traced)."""
        self.last = entry
        if entry.steps:
            self.count(entry.steps)
        if self.printed_when_tracing:
            self.once(f"static({self.name}) did not print this time: a static function's print runs only "
                      "when it is traced, not on each call (as in JAX and torch.compile)", None)  # fmt: skip
        return result

    def cached(self) -> list[Entry]:
        """Every trace in the cache, in the order they were made."""
        return sorted((e for entries in self.entries.values() for e in entries), key=lambda e: e.number)

    def count(self, steps: int) -> None:
        """A replay makes the steps its function made when traced (loop iterations and calls): counted
        against --max-steps as the function's own run would have counted them."""
        context = self.context
        context.steps += steps
        if context.max_steps is not None and context.steps > context.max_steps:
            message, help = steps_message(context.max_steps)
            raise DGError("LimitError", message, self.where, help=help, frames=tuple(context.frames))

    def once(self, message: str, help: str | None) -> None:
        if message not in self.noted:
            self.noted.add(message)
            self.note(message, help, self.where)

    # ---- tracing ---------------------------------------------------------------------------------
    def traced_run(self, args: list[Any], key: Any = None) -> tuple[Any, Tracer]:
        """f run as it is, with a tracer listening to the engine and to the evaluator. With `key`
        (a call while graphs are kept for drawing) the run is only remembered for the pictures,
        as the cached trace it matches."""
        outer = recording.call
        walk, inputs, owners = argument_walk(self.params, args)
        tracer = Tracer(walk, inputs, self.label)
        tracer.trace.outside.owners.update(owners)
        saved, watcher = recording.save(), watching.listener
        recording.listen(tracer)
        watching.listener = tracer
        Tracing.depth += 1
        try:
            result = self.call_dynamic(args)
        finally:
            Tracing.depth -= 1
            recording.restore(saved)
            watching.listener = watcher
        tracer.outer = outer
        if key is not None:
            self.drawn_run(key, tracer, result)
        return result, tracer

    def drawn_run(self, key: Any, tracer: Tracer, result: Any) -> None:
        """A run made while graphs are kept for drawing: on a path no trace of its signature took,
        the guard that failed is noted and the run becomes a trace, as a call would have re-traced."""
        trace = tracer.trace
        trace.result = tracer.encode_result(result)
        tracer.finish(key[0])
        entries = self.entries.get(key, [])
        path = [(g.how, g.observed) for g in trace.guards]
        matched = next((e for e in entries if same_path(e, path)), None)
        if matched is not None:
            matched.calls += 1  # as many calls as a replay would have counted
        elif tracer.refused is None and self.traces < MAX_TRACES:
            if entries:
                last = entries[-1].trace.guards
                i = next(i for i, g in enumerate(last) if i >= len(path) or (g.how, g.observed) != path[i])
                failed = failure(self.name, last[i], path[i][1] if i < len(path) else None)
                self.failures.append(failed)
                self.note(failed, None, self.where)
            self.traces += 1
            entry = compile_entry(self.name, key, trace)
            entry.calls, entry.number, entry.drawing = 1, self.traces, self.drawing
            self.entries.setdefault(key, []).append(entry)
            self.last = entry
        self.remember(tracer, self.entries.get(key, []))

    def remember(self, tracer: Tracer, entries: list[Entry]) -> None:
        """Keep what a picture needs of a run made while graphs are kept for drawing (DrawnCall)."""
        trace = tracer.trace
        frame = own_frame(trace, tracer.outer)
        if frame is None:
            return
        path = [(g.how, g.observed) for g in trace.guards]
        entry = next((e for e in reversed(entries) if same_path(e, path)), None)
        tensors: dict[int, Tensor] = {}
        for t in tracer.alive:
            var = tracer.by_id.get(id(t))
            if var is not None and type(t) is Tensor:
                tensors.setdefault(var.number, t)
        shown = entry.trace if entry is not None else trace
        guards = guard_lines(entry.trace, entry.key, self.params) if entry is not None else []
        self.drawn.append(DrawnCall(self.name, frame, shown, trace, tensors, entry.number if entry else 0,
                                    entry.described if entry else "", guards))  # fmt: skip
        del self.drawn[:-MAX_DRAWN]

    def trace(self, key: Any, args: list[Any]) -> Any:
        start, processor, printed = time.perf_counter(), time.process_time(), self.printed()
        steps = self.context.steps if self.context is not None else 0
        before = snapshot(self.outside(args))
        result, tracer = self.traced_run(args)
        trace = tracer.trace
        trace.result = tracer.encode_result(result)
        tracer.finish(key[0])
        self.traces += 1
        if self.printed() != printed:
            self.printed_when_tracing = True
        changed = changes(before) or changes(tracer.read_containers)
        if changed is not None and tracer.refused is None:  # a replay would not change it: f runs as it is
            self.once(f"static({self.name}) runs {self.name} dynamically: it changes {changed}, which its generated "
                      "code would not do at each call (JAX and torch.compile's graphs do it only when traced)",
                      "return the new values from the function, and change the list or dict outside it")  # fmt: skip
            tracer.refused = f"it changes {changed}"
        elif tracer.stopped is not None:
            self.once(f"static({self.name}) runs {self.name} dynamically: {tracer.refused}", tracer.stopped or None)
        elif tracer.refused is not None:
            self.once(f"static({self.name}) runs {self.name} dynamically: {tracer.refused}, which its trace "
                      "cannot replay yet", None)  # fmt: skip
        if tracer.refused is not None:
            self.refused[key] = tracer.refused
            self.dynamic_calls += 1
        else:
            entry = compile_entry(self.name, key, trace)
            entry.calls, entry.number, entry.drawing = 1, self.traces, self.drawing
            if self.context is not None and self.context.max_steps is not None:  # (counted only under a limit)
                entry.steps = self.context.steps - steps
            self.entries.setdefault(key, []).append(entry)
            self.last = entry
            if self.drawing():
                self.remember(tracer, [entry])
        self.tracing_time += time.perf_counter() - start
        self.tracing_processor += time.process_time() - processor
        return result


MAX_DRAWN = 32  # runs kept per static function for the pictures, the latest


@dataclass
class DrawnCall:
    """A call of a static function while the session keeps graphs to draw, as its pictures need it
    (seeing/static_pictures.py): its nodes carry `frame`; `trace` is the cached trace it ran as
    (number `number`; 0: none, a guard of each failed), `run` its own, with the guards' values."""

    name: str
    frame: Any
    trace: Trace
    run: Trace
    tensors: dict[int, Tensor]  # this run's tensor of each variable of the trace
    number: int
    described: str
    guards: list[str] = field(default_factory=list)  # its listing's guard lines, as `dg static` prints them


def same_path(entry: Entry, path: list[tuple[str, Any]]) -> bool:
    """Did the entry's trace see the same values at its guards (the same path through f)?"""
    return [(g.how, g.observed) for g in entry.trace.guards] == path


def own_frame(trace: Trace, outer: Any) -> Any:
    """The CallFrame of the function's own call: the one called from `outer`, around every step."""
    for step in trace.steps:
        frame = step.call
        while frame is not None and frame.caller is not outer:
            frame = frame.caller
        if frame is not None:
            return frame
    return None


class Tracing:
    depth = 0  # static functions tracing right now (nested calls run dynamically)


def failure(name: str, guard: Any, now: Any) -> str:
    """The note for a guard that failed: the condition, its line, and what it was when traced."""
    return (
        f"static({name}) re-traced {name}: {decision_text(guard)} was {guard.observed!r} when traced and is {now!r} now"
    )


def compile_entry(name: str, key: Any, traced: Trace) -> Entry:
    """The trace after the passes, compiled (the trace as recorded is kept for `--passes`)."""
    trace = optimized(traced)
    outputs = sorted(set(result_vars(trace.result)), key=lambda v: v.number)
    effects = [source for _, _, source in trace.effects if source is not None]
    keep = saved(trace, [*outputs, *effects])
    forward_source = forward_code(trace, keep)
    asks = (hooks.watch, hooks.long_product)  # the host's sizes (each session's): what its bare forward calls whole
    bare_source = forward_code(trace, keep, bare=True, asks=asks)
    backward_source = backward_code(trace, outputs, keep) if leaves(trace) else None
    forward = forward_source.lazily("forward")  # needed only for large values (replaying.py)
    # needed only when a gradient flows back through the call's result (a training step's `grad`
    # inside the function needs none)
    backward = backward_source.lazily("backward") if backward_source is not None else None
    source = "\n".join(forward_source.lines + (backward_source.lines if backward_source else []))
    entry = Entry(key, describe(key), trace, forward, outputs, keep, backward, source, traced)
    entry.bare, entry.bare_source = bare_source.compile("forward"), "\n".join(bare_source.lines)
    entry.plan = make_plan(trace, keep, outputs)
    entry.plan.asks = asks
    entry.made_by = {s.out.number: s.op.name for s in trace.steps}
    entry.plan.hung = {n: (i, static_call_op(entry.made_by.get(n))) for i, n in enumerate(entry.plan.outputs)}
    entry.check = lazy_check(trace.outside)  # (needed only when the first try's check says no)
    entry.fast = compile_check(trace.outside, *trace.outside.start, key=key)
    return entry


def result_vars(encoded: Any) -> list[Var]:
    if isinstance(encoded, Var):
        return [encoded]
    if isinstance(encoded, list | tuple):
        return [v for e in encoded for v in result_vars(e)]
    return []


def describe(key: Any) -> str:
    """A cache key as static_info shows it: `(float[3] requires_grad, 2)`."""
    args, grad_mode = key
    return f"({', '.join(described_text(a) for a in args)})" + ("" if grad_mode else " under no_grad")
