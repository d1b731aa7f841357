"""`static(f)`: a function that runs `f` as generated code, traced once per signature.

A call looks up its signature (each tensor argument's shape, dtype and requires_grad; the values
of the other arguments; whether grad mode is on). Unseen: `f` runs dynamically with a Tracer
listening, and the trace becomes generated code (generating.py), cached under the signature.
Seen: the generated forward runs on the arguments' arrays; a guard that fails is reported in a
note and `f` is traced again for the new path. Past MAX_TRACES traces the call runs `f`
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

from dglang.autograd import Tensor
from dglang.autograd.backward import gradient
from dglang.autograd.node import Node, is_grad_enabled, recording, updated_in_place, updates_in_place
from dglang.autograd.op import Op
from dglang.autograd.tensor import apply

from .generating import GuardFailed, arguments, backward_code, forward_code, leaves, saved
from .optimizing import Literal, optimized
from .tracing import Const, Detach, Trace, Tracer, Var

MAX_TRACES = 8  # per static function; past it calls run dynamically


class Unsupported(Exception):
    """An argument a signature cannot describe: the call runs dynamically."""


def signature(value: Any, tensors: list[Tensor], seen: dict[int, int]) -> Any:
    """A hashable description of `value` for the cache key; its tensors appended to `tensors`."""
    if isinstance(value, Tensor):
        if id(value) in seen:  # the same tensor twice: a trace of its own
            return ("same", seen[id(value)])
        seen[id(value)] = len(tensors)
        tensors.append(value)
        return ("tensor", value.shape, value.dtype, value.requires_grad)
    if type(value) in (list, tuple):
        return (type(value).__name__, tuple(signature(v, tensors, seen) for v in value))
    if value is None or type(value) in (int, float, bool, str):
        return (type(value).__name__, value)
    raise Unsupported(type(value).__name__)


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
    calls: int = 0


@dataclass
class StaticFunction:
    """The value `static(f)` returns (wrapped in a Builtin: see builtins.py)."""

    name: str
    call_dynamic: Callable[[list[Any]], Any]  # f called the ordinary way
    note: Callable[[str, str | None, Any], None]  # (message, help, where): a one-line report
    entries: dict[Any, Entry] = field(default_factory=dict)
    traces: int = 0
    failures: list[str] = field(default_factory=list)
    noted: set[str] = field(default_factory=set)
    dynamic_calls: int = 0
    tracing_time: float = 0.0
    running_time: float = 0.0
    printed_when_tracing: bool = False
    printed: Callable[[], int] = lambda: 0
    where: Any = None  # the span of the call running now, for notes

    def __call__(self, args: list[Any]) -> Any:
        if Tracing.depth:  # inside another static function's trace: its ops must be seen
            return self.call_dynamic(args)
        tensors: list[Tensor] = []
        try:
            key = (tuple(signature(a, tensors, {}) for a in args), is_grad_enabled())
        except Unsupported as e:
            self.once(f"static({self.name}) runs {self.name} dynamically: an argument is a {e}, which a trace "
                      "cannot key its cache on", None)  # fmt: skip
            return self.call_dynamic(args)
        entry = self.entries.get(key)
        if entry is not None:
            start = time.perf_counter()
            result = self.replay(entry, tensors)
            self.running_time += time.perf_counter() - start
            if result is not FAILED:
                if self.printed_when_tracing:
                    self.once(f"static({self.name}) did not print this time: a static function's print runs only "
                              "when it is traced, not on each call (as in JAX and torch.compile)", None)  # fmt: skip
                return result
        if self.traces >= MAX_TRACES:
            self.once(f"static({self.name}) has been traced {MAX_TRACES} times; from now on it runs dynamically",
                      "give it arguments of the same shapes, or fewer values that change its path")  # fmt: skip
            self.dynamic_calls += 1
            return self.call_dynamic(args)
        return self.trace(key, args, tensors)

    def once(self, message: str, help: str | None) -> None:
        if message not in self.noted:
            self.noted.add(message)
            self.note(message, help, self.where)

    # ---- tracing ---------------------------------------------------------------------------------
    def trace(self, key: Any, args: list[Any], tensors: list[Tensor]) -> Any:
        start, printed = time.perf_counter(), self.printed()
        tracer = Tracer(tensors)
        saved = recording.save()
        recording.listen(tracer)
        Tracing.depth += 1
        try:
            result = self.call_dynamic(args)
        finally:
            Tracing.depth -= 1
            recording.restore(saved)
        trace = tracer.trace
        trace.result = tracer.encode_result(result)
        tracer.finish()
        self.traces += 1
        if self.printed() != printed:
            self.printed_when_tracing = True
        if trace.refused is not None:
            self.once(f"static({self.name}) runs {self.name} dynamically: {trace.refused}, which its trace "
                      "cannot replay yet", None)  # fmt: skip
            self.dynamic_calls += 1
        else:
            self.entries[key] = compile_entry(self.name, key, trace)
            self.entries[key].calls = 1
        self.tracing_time += time.perf_counter() - start
        return result

    # ---- replaying -------------------------------------------------------------------------------
    def replay(self, entry: Entry, tensors: list[Tensor]) -> Any:
        trace = entry.trace
        given = [*tensors, *(t for _, t in trace.captured)]
        sources = {v.number: t for v, t in zip(arguments(trace), given, strict=True)}
        for number, was_none in trace.grad_was_none.items():  # a step that accumulates into .grad
            t = sources[number]
            if (t.grad is None) != was_none:
                return self.failed(entry, f"the .grad of {describe_tensor(t)} was {'None' if was_none else 'set'} "
                                   f"when traced and is {'set' if was_none else 'None'} now")  # fmt: skip
        values = [t.data for t in given]
        for number, leaf in trace.grad_reads.items():
            values[number_index(trace, number)] = sources[leaf.number].grad.data
        out = entry.forward(*values)
        if type(out) is GuardFailed:
            return self.failed(entry, failure(self.name, trace.guards[out.number], out.value))
        entry.calls += 1
        arrays = dict(zip((v.number for v in entry.keep), out, strict=True))  # the steps' outputs it returned
        made: dict[int, Tensor] = {}
        grads = entry.backward is not None and is_grad_enabled() and bool(leaves(trace))

        def build(encoded: Any) -> Any:
            if isinstance(encoded, Var):
                if encoded.number in made:
                    return made[encoded.number]
                if encoded.number not in arrays:
                    return sources[encoded.number]  # an argument returned as it is: the same tensor
                t = made[encoded.number] = Tensor(arrays[encoded.number])
                if grads and encoded.number in trace.needs_grad:
                    connect(t, entry, encoded, sources, arrays)
                return t
            if isinstance(encoded, Const):
                return encoded.value
            return type(encoded)(build(e) for e in encoded)

        result = build(trace.result)
        for what, target, source in trace.effects:  # after the result's nodes: they see the old values
            t = sources[target.number]
            value = (
                None
                if source is None
                else arrays[source.number]
                if source.number in arrays
                else sources[source.number].data
            )
            if what == "data":
                t.data = value
                updated_in_place(t)
            else:
                t.grad = None if value is None else Tensor(value)
        return result

    def failed(self, entry: Entry, why: str) -> Any:
        """A guard failed: say so, forget the entry, and let the call trace again."""
        self.failures.append(why if why.startswith("static(") else f"static({self.name}) re-traced {self.name}: {why}")
        self.note(self.failures[-1], None, self.where)
        del self.entries[entry.key]
        return FAILED


FAILED: Any = object()


def number_index(trace: Trace, number: int) -> int:
    """Where variable `number` stands among forward's arguments."""
    return next(i for i, v in enumerate(arguments(trace)) if v.number == number)


def describe_tensor(t: Tensor) -> str:
    return t.name or f"a {t.describe()}"


class Tracing:
    depth = 0  # static functions tracing right now (nested calls run dynamically)


def failure(name: str, guard: Any, now: Any) -> str:
    """The note for a guard that failed: the condition, its line, and what it was when traced."""
    span = getattr(guard.site, "span", None)
    if span is None:
        what = "a value the trace depended on"
    else:
        line = span.source.line(span.line)
        text = line[span.column - 1 : span.end_column - 1 if span.end_line == span.line else None].strip()
        what = f"the condition `{text}` on line {span.line}" if guard.how == "bool" else f"`{text}` on line {span.line}"
    return f"static({name}) re-traced {name}: {what} was {guard.observed!r} when traced and is {now!r} now"


def compile_entry(name: str, key: Any, traced: Trace) -> Entry:
    """The trace after the passes, compiled (the trace as recorded is kept for `--passes`)."""
    trace = optimized(traced)
    outputs = sorted(set(result_vars(trace.result)), key=lambda v: v.number)
    effects = [source for _, _, source in trace.effects if source is not None]
    keep = saved(trace, [*outputs, *effects])
    forward_source = forward_code(trace, keep)
    backward_source = backward_code(trace, outputs) if leaves(trace) else None
    forward = forward_source.compile("forward")
    backward = backward_source.compile("backward") if backward_source is not None else None
    source = "\n".join(forward_source.lines + (backward_source.lines if backward_source else []))
    return Entry(key, describe(key), trace, forward, outputs, keep, backward, source, traced)


def result_vars(encoded: Any) -> list[Var]:
    if isinstance(encoded, Var):
        return [encoded]
    if isinstance(encoded, list | tuple):
        return [v for e in encoded for v in result_vars(e)]
    return []


def describe(key: Any) -> str:
    """A signature as static_info shows it: `(float[3] requires_grad, 2)`."""

    def one(part: Any) -> str:
        kind, rest = part[0], part[1:]
        if kind == "tensor":
            shape, dtype, rg = rest
            return f"{dtype}[{', '.join(map(str, shape))}]" + (" requires_grad" if rg else "")
        if kind in ("list", "tuple"):
            inner = ", ".join(one(p) for p in rest[0])
            return f"[{inner}]" if kind == "list" else f"({inner})"
        if kind == "same":
            return f"the tensor of argument {rest[0] + 1}"
        return repr(rest[0])

    args, grad_mode = key
    return f"({', '.join(one(a) for a in args)})" + ("" if grad_mode else " under no_grad")


# ---- the node a static call's result hangs from ----------------------------------------------------
class StaticCall(Op):
    """A static function's call: its rule is the trace's generated backward."""

    inputs = ("x",)
    variadic = True
    rules = ("the generated backward of the trace",)

    @staticmethod
    def forward(x: Any) -> Any:  # never applied: a static call makes its node itself
        raise TypeError("StaticCall is made by static(f), not applied")

    @staticmethod
    def backward(g: Tensor, out: Tensor, inputs: tuple[Tensor, ...], call: Any) -> tuple[Any, ...]:
        return call.gradients(g)


_NAMED: dict[str, type[StaticCall]] = {}


def static_call_op(made_by: str | None) -> type[StaticCall]:
    """StaticCall under the name of the op that made the output in the trace, so that the result
    prints as the dynamic function's does (`grad_fn=<MulBackward>`)."""
    if made_by is None:
        return StaticCall
    op = _NAMED.get(made_by)
    if op is None:
        op = _NAMED[made_by] = type(made_by, (StaticCall,), {"__doc__": StaticCall.__doc__})
    return op


@dataclass
class CallRecord:
    """What one output's rule needs: the entry, which output it is, and the forward's arrays."""

    entry: Entry
    output: int
    values: list[Any]
    inputs: tuple[Tensor, ...]  # the tensors gradients flow to (the node's inputs)

    def gradients(self, g: Tensor) -> tuple[Any, ...]:
        if is_grad_enabled():  # the caller builds a graph of the gradients (gradient(), or create_graph)
            return self.differentiable(g)
        seeds: list[Any] = [None] * len(self.entry.outputs)
        seeds[self.output] = g
        sent = tuple(self.entry.backward(*seeds, *self.values))  # type: ignore[misc]
        return sent

    def differentiable(self, g: Tensor) -> tuple[Any, ...]:
        """The gradients as a graph of their own: the trace's steps applied again through the
        engine (recording, each with its own rule), then differentiated by the engine, so a
        gradient of this gradient is exact. Only higher-order uses pay for it."""
        trace, inputs = self.entry.trace, self.inputs
        tensors: dict[int, Any] = {v.number: t for v, t in zip(leaves(trace), inputs, strict=True)}
        for v, value in zip(arguments(trace), self.values, strict=False):
            tensors.setdefault(v.number, Tensor(value))

        def given(a: Any) -> Any:
            if isinstance(a, Var):
                return tensors[a.number]
            if isinstance(a, tuple):
                return [tensors[x.number] for x in a]
            return a.value

        for step in trace.steps:
            if step.op is Detach:
                tensors[step.out.number] = Tensor(tensors[step.args[0].number].data)
            elif step.op is Literal:
                tensors[step.out.number] = Tensor(step.args[0].value)
            else:
                tensors[step.out.number] = apply(step.op, *(given(a) for a in step.args))
        out = tensors[self.entry.outputs[self.output].number]
        if not out.requires_grad:
            return (None,) * len(inputs)
        return tuple(gradient(out, list(inputs), seed=g))


def connect(t: Tensor, entry: Entry, v: Var, sources: dict[int, Tensor], arrays: dict[int, Any]) -> None:
    """Make `t` (output `v`) the result of a recorded StaticCall node."""
    trace = entry.trace
    inputs = tuple(sources[x.number] for x in leaves(trace))
    values = [sources[x.number].data for x in arguments(trace)] + [arrays[v.number] for v in entry.keep]
    record = CallRecord(entry, entry.outputs.index(v), values, inputs)
    made_by = next((s.op.name for s in trace.steps if s.out == v), None)
    t.requires_grad = True
    t.grad_fn = node = Node(static_call_op(made_by), inputs, (inputs, record), updates_in_place())
    if recording.where is not None:
        node.where, node.call = recording.where, recording.call
