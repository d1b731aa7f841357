"""Replaying a compiled trace: its forward on the tensors' arrays, then tensors for its result
(hung from a StaticCall node when gradients must flow back) and its effects on the tensors it
changed. Everything a replay looks up is worked out once per trace (`Plan`), so a call costs the
generated forward and little else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dglang.autograd import Tensor, hooks
from dglang.autograd.backward import count_consumers, gradient
from dglang.autograd.exceptions import AutogradError
from dglang.autograd.node import Node, is_grad_enabled, recording, updated_in_place, updates_in_place
from dglang.autograd.op import Op
from dglang.autograd.tensor import run_op

from .generating import Code, GuardFailed, arguments, leaves
from .trace_form import Const, Nested, Trace, Var, variables
from .trace_steps import watched

DRAWING = "drawing"  # the session keeps graphs to draw: the call runs f as it is, for the pictures
WATCHED = "watched"  # something hears each backward step (detect_anomaly, dg --trace): f runs as it is
FAILED = "failed"  # an op failed (an index out of range): f run as it is says where, inside f
AS_IT_IS = {  # the note each gives
    FAILED: "",
    DRAWING: "static({0}) runs {0} as it is while graphs are kept for drawing (graph(), the REPL, dg graph): "
    "a picture shows the graph it records",
    WATCHED: "static({0}) runs {0} as it is while each step of a backward pass is watched (detect_anomaly, "
    "dg --trace): a replay runs its rules without those steps",
}


@dataclass
class Plan:
    """Where a replay finds what it needs, by position: `given` is the call's tensors (the
    arguments', then the captured ones), `out` the tuple forward returns (the variables `keep`)."""

    sources: list[Any]  # per argument of forward: the number of its tensor in the call's walk, or the tensor itself
    grad_checks: list[tuple[int, bool]]  # (given index, whether its .grad was None when traced)
    grad_reads: list[tuple[int, int]]  # (forward argument, given index of the leaf whose .grad it is)
    effects: list[tuple[bool, int, int, int]]  # (values? else .grad, target, source kind 0/1/2, index)
    leaf_places: list[int]  # given indexes of the tensors gradients flow to
    outputs: list[int]  # the variables the result's tensors are (seeds of the backward, in order)
    # What lets a replay run the bare forward (bare.py), which neither checks nor asks the host:
    checks: list[tuple[int, tuple[int, ...], Any]]  # (given index, shape, dtype) of each captured array
    asks: tuple[int, int] = (-1, -1)  # the host's watch and long_product the bare forward was written for
    hung: dict[int, tuple[int, Any]] = field(default_factory=dict)  # per output: its index, its node's op
    # The values the trace's rules read (Op.saved), which an update in place after the call must
    # not have changed when a backward pass comes (as each op's node checks in a dynamic graph):
    watched_given: list[int] = field(default_factory=list)  # given indexes
    watched_outputs: frozenset[int] = frozenset()  # output variables
    call: Callable[..., Any] = lambda tensors, forward, entry: None  # the call, written out (call_code)


def read_by_rules(trace: Trace, outputs: list[Var]) -> set[int]:
    """The variables whose values the rules of the trace's recorded steps read (Op.saved): of the
    steps a gradient of an output goes back through, as a dynamic walk from the outputs visits
    only the nodes they were computed from (a step whose result the function overwrote is never
    reached, and an update in place after it must not make the call refuse)."""
    needed = {v.number for v in outputs}
    read: set[int] = set()
    for step in reversed(trace.steps):
        if step.recorded and step.out.number in needed:
            positions, reads_out = step.op.saved()
            if reads_out:
                read.add(step.out.number)
            for i, a in enumerate(step.args):
                numbers = [x.number for x in variables(a)]
                needed.update(numbers)
                if i in positions:
                    read.update(numbers)
    return read


def make_plan(trace: Trace, keep: list[Var], outputs: list[Var]) -> Plan:
    places = {v.number: i for i, v in enumerate(arguments(trace))}
    read = read_by_rules(trace, outputs)
    kept = {v.number: i for i, v in enumerate(keep)}
    effects = []
    for what, target, source in trace.effects:
        if source is None:
            kind, index = 0, 0
        elif source.number in kept:
            kind, index = 1, kept[source.number]
        else:
            kind, index = 2, places[source.number]
        effects.append((what == "data", places[target.number], kind, index))
    sources = trace.outside.sources
    captured = dict(trace.captured)
    plan = Plan(
        sources=[sources.get(v.number, captured.get(v)) for v in arguments(trace)],
        grad_checks=[  # (a tensor read by name or in an argument has its .grad in the walk's description)
            (places[n], was_none) for n, was_none in trace.grads.was_none.items() if n not in sources
        ],
        grad_reads=[(places[n], places[leaf.number]) for n, leaf in trace.grads.of.items()],
        effects=effects,
        leaf_places=[places[v.number] for v in leaves(trace)],
        outputs=[v.number for v in outputs],
        checks=[  # a captured tensor read by identity (one read by name has its shape guarded)
            (places[v.number], t.data.shape, t.data.dtype)
            for v, t in trace.captured
            if type(t.data) is np.ndarray
            and v.number not in trace.variables.literals
            and v.number not in trace.variables.fresh
            and v.number not in sources
        ],
        watched_given=[places[n] for n in sorted(read) if n in places],
        watched_outputs=frozenset(v.number for v in outputs if v.number in read),
    )
    code = call_code(trace, plan, places, kept)
    plan.call = code.compile("call")
    plan.call.source = "\n".join(code.lines)  # type: ignore[attr-defined]  # (for the injection tests)
    return plan


def call_code(trace: Trace, plan: Plan, places: dict[int, int], kept: dict[int, int]) -> Code:
    """A replay, written out for this trace: the tensors it reads from the call's walk, their
    arrays into the generated forward, the tensors of its result (each hung from a node when
    gradients flow: `entry` given, hung_from_nodes), then what the function did to its tensors,
    in that order (the result's nodes see the values before the updates). As the forward: only
    generated names."""
    code = Code()
    code.add("def call(tensors, forward, entry):")
    given = []
    for i, source in enumerate(plan.sources):
        g = f"g{i}"
        code.add(f"    {g} = tensors[{int(source)}]" if type(source) is int else f"    {g} = {code.name('c', source)}")
        given.append(g)
    values = [f"{g}.data" for g in given]
    for argument, leaf in plan.grad_reads:  # w.grad as it was when `grad` began: read from w
        values[argument] = f"{given[leaf]}.grad.data"
    code.add(f"    values = [{', '.join(values)}]")
    code.add("    out = forward(*values)")
    code.add(f"    if {code.name('type', type)}(out) is {code.name('failed', GuardFailed)}:")
    code.add("        return out")
    inputs = "".join(f"{given[i]}, " for i in plan.leaf_places)
    watched = ", ".join(given[i] for i in plan.watched_given)
    hung = code.name("hung", hung_from_nodes)
    code.add(f"    hang = {hung}(entry, values, out, ({inputs}), [{watched}]) if entry is not None else None")
    wrap = code.name("T", Tensor)
    # A result the function also wrote into a tensor (`x += 1; return x`, `return w.grad` after a grad) is
    # that tensor, read after the writes below: the same object, as the function returns it
    aliases = {
        kept_: f"{given[target]}" + ("" if values_ else ".grad")
        for values_, target, kind, kept_ in plan.effects
        if kind == 1
    }
    result = _result(
        code, trace.result, given, places, kept, trace.variables.needs_grad, trace.variables.fresh, wrap, aliases
    )
    updated = []
    for values_, target, kind, index in plan.effects:  # after the result's nodes: they saw the old values
        value = "None" if kind == 0 else f"out[{int(index)}]" if kind == 1 else f"{given[index]}.data"
        if values_:
            code.add(f"    {given[target]}.data = {value}")
            updated.append(given[target])
        else:
            code.add(f"    {given[target]}.grad = {'None' if kind == 0 else f'{wrap}({value})'}")
    if updated:  # (each its own count, in order: one call for all)
        code.add(f"    {code.name('changed', updated_in_place)}({', '.join(updated)})")
    code.add(f"    return {result}")
    return code


def _result(
    code: Code, encoded: Any, given: list[str], places: dict[int, int], kept: dict[int, int], needs_grad: set[int],
    fresh: set[int], wrap: str, aliases: dict[int, str],
) -> str:  # fmt: skip
    """Lines that make the function's value (see Tracer.encode_result); the expression for it."""
    if isinstance(encoded, Var):
        number = encoded.number
        if number in kept and kept[number] in aliases:
            return aliases[kept[number]]
        if number not in kept:
            g = given[places[number]]
            if number in fresh:  # a tensor the function made: a new one at each call, as it would be
                return f"{wrap}({g}.data, requires_grad={g}.requires_grad)"
            return g  # an argument returned as it is: the same tensor
        r = f"r{int(number)}"
        code.add(f"    {r} = {wrap}(out[{int(kept[number])}])")
        if number in needs_grad:
            code.add(f"    if hang is not None: hang({r}, {int(number)})")
        return r
    if isinstance(encoded, Const):
        return code.name("c", encoded.value)
    parts = [_result(code, e, given, places, kept, needs_grad, fresh, wrap, aliases) for e in encoded]
    inner = "".join(p + ", " for p in parts)
    return f"[{inner}]" if type(encoded) is list else f"({inner})"


def replay(entry: Any, tensors: list[Tensor]) -> Any:
    """The function's value from the entry's generated code, or a string saying which guard failed.
    `tensors` are those the call's walk met (guard_model.py), in order: the arguments' and those read."""
    plan: Plan = entry.plan
    if plan.grad_checks or plan.checks:  # tensors it reads by identity (neither an argument's nor by name)
        sources = plan.sources
        for place, was_none in plan.grad_checks:  # a step that accumulates into .grad depends on it
            t = tensors[sources[place]] if type(sources[place]) is int else sources[place]
            if (t.grad is None) != was_none:
                was, now = ("None", "set") if was_none else ("set", "None")
                return f"the .grad of {t.name or 'a ' + t.describe()} was {was} when traced and is {now} now"
        for place, shape, dtype in plan.checks:  # what the bare forward's steps were checked for, when traced
            t = tensors[sources[place]] if type(sources[place]) is int else sources[place]
            data = t.data
            if type(data) is not np.ndarray or data.shape != shape or data.dtype != dtype:
                return f"{t.name or 'a tensor it reads'} had shape {shape} when traced and is a {t.describe()} now"
    # gradients flow back through the result: its steps were recorded (grad mode on, or enable_grad inside)
    grads = entry.backward is not None and plan.leaf_places
    if grads and entry.drawing():
        return DRAWING
    if recording.on_step and watched():
        return WATCHED
    # the bare forward asks the host where the ops would, for the sizes it was written for (another
    # session's limits: the checked forward)
    forward = entry.bare if plan.asks == (hooks.watch, hooks.long_product) else entry.forward
    hanging = entry if grads else None  # (its result's tensors hung from nodes: hung_from_nodes)
    try:
        try:
            result = plan.call(tensors, forward, hanging)
        except (ArithmeticError, IndexError, TypeError, ValueError):  # the ops' forwards say what it is
            if forward is entry.forward:
                raise
            result = plan.call(tensors, entry.forward, hanging)
    except AutogradError:  # (before any effect of the call: they come last)
        return FAILED
    if type(result) is not GuardFailed:
        entry.calls += 1
    return result


def hung_from_nodes(
    entry: Any, values: list[Any], out: tuple[Any, ...], inputs: tuple[Tensor, ...], watched: list[Tensor]
) -> Callable[[Tensor, int], None]:
    """What hangs each tensor of a call's result from a node whose rule is the trace's backward
    (the StaticCall op, named as the op that made it), once the forward has run."""
    plan, saved = entry.plan, values + list(out)
    others: list[Tensor] = []  # the outputs the rules read, as they are made (each checks its own)

    def connect(t: Tensor, number: int) -> None:
        index, op = plan.hung[number]
        t.requires_grad = True
        own = number in plan.watched_outputs
        record = CallRecord(entry, index, saved, inputs, watched, own, others)
        t.grad_fn = node = Node(op, inputs, (inputs, record), updates_in_place())
        if own and len(plan.watched_outputs) > 1:  # (a cycle, for the collector: only then)
            others.append(t)
        if recording.where is not None:
            node.where, node.call = recording.where, recording.call

    return connect


def applied(step: Any, tensors: dict[int, Any]) -> Any:
    """One step of a trace applied through the engine (a step of the trace's own: on plain values)."""
    args = [
        tensors[a.number]
        if isinstance(a, Var)
        else [tensors[x.number] for x in a]
        if isinstance(a, tuple)
        else _with_tensors(a.value, tensors)
        if isinstance(a, Nested)
        else a.value
        for a in step.args
    ]
    if isinstance(step.op, type) and issubclass(step.op, Op):
        return run_op(step.op, *args)
    plain = [[y.data for y in x] if isinstance(x, list) else getattr(x, "data", x) for x in args]
    return Tensor(step.op.forward(*plain))


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
        return call.gradients(g)  # type: ignore[no-any-return]

    @classmethod
    def changed(cls, node: Any, out: Any) -> bool:
        """Was a value the trace's rules read changed in place after the call? (The generated
        backward reads the arrays the call saved; this refuses where the dynamic graph would.)"""
        record, epoch = node.args[1], node.epoch
        if record.own and out.version > epoch:
            return True
        return any(t.version > epoch for t in record.watched) or any(t.version > epoch for t in record.others)


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


@dataclass(slots=True)
class CallRecord:
    """What one output's rule needs: the entry, which output it is, and the forward's arrays
    (the arguments', then those forward returned)."""

    entry: Any
    output: int
    values: list[Any]
    inputs: tuple[Tensor, ...]  # the tensors gradients flow to (the node's inputs)
    watched: list[Tensor]  # the given tensors whose values its rules read (Plan.watched_given)
    own: bool  # whether they read this output's value (Plan.watched_outputs)
    others: list[Tensor]  # the call's other outputs whose values they read

    def gradients(self, g: Tensor) -> tuple[Any, ...]:
        if is_grad_enabled():  # the caller builds a graph of the gradients (gradient(), or create_graph)
            return self.differentiable(g)
        seeds: list[Any] = [None] * len(self.entry.outputs)
        seeds[self.output] = g
        return tuple(self.entry.backward(*seeds, *self.values))

    def differentiable(self, g: Tensor) -> tuple[Any, ...]:
        """The gradients as a graph of their own: the trace's steps applied again through the
        engine (recording, each with its own rule), then differentiated by the engine, so a
        gradient of this gradient is exact. Only higher-order uses pay for it."""
        trace, inputs = self.entry.trace, self.inputs
        # Each input as it was when called, as a node of its own: the gradient found for it is
        # the partial one (an input computed from another input, `f(w * 2, w)`, is not walked
        # through here: the engine walks it after, from the node's inputs), and it is the
        # gradient at the values the call saw.
        places = self.entry.plan.leaf_places
        stand_ins = [run_op(AsCalled, t, self.values[i]) for t, i in zip(inputs, places, strict=True)]
        tensors: dict[int, Any] = {v.number: t for v, t in zip(leaves(trace), stand_ins, strict=True)}
        for v, value in zip(arguments(trace), self.values, strict=False):
            tensors.setdefault(v.number, Tensor(value))

        for step in trace.steps:
            tensors[step.out.number] = applied(step, tensors)
        out = tensors[self.entry.outputs[self.output].number]
        if not out.requires_grad:
            return (None,) * len(inputs)
        # None for an input the output does not depend on (an argument the function overwrote), as
        # the dynamic graph, which never reaches it: gradient()'s zeros would carry on into its graph
        reached = count_consumers(out)
        found = iter(gradient(out, [s for s in stand_ins if s in reached], seed=g))
        return tuple(next(found) if s in reached else None for s in stand_ins)


def _with_tensors(value: Any, tensors: dict[int, Any]) -> Any:
    """A Nested argument's structure, with the tensor of each variable in it."""
    if isinstance(value, Var):
        return tensors[value.number]
    if type(value) in (tuple, list):
        return type(value)(_with_tensors(v, tensors) for v in value)
    return value


class AsCalled(Op):
    """An input of a static call with the values it had when called; its gradient goes to the
    input unchanged (the differentiable backward's stand-in for each input)."""

    inputs = ("x",)
    rules = ("g",)

    @staticmethod
    def forward(x: Any, value: Any) -> Any:
        return value

    @staticmethod
    def backward(g: Tensor, out: Tensor, x: Tensor, value: Any) -> tuple[Any]:
        return (g,)
