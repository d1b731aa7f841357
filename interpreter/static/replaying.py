"""Replaying a compiled trace: its forward on the tensors' arrays, then tensors for its result
(hung from a StaticCall node when gradients must flow back) and its effects on the tensors it
changed. Everything a replay looks up is worked out once per trace (`Plan`), so a call costs the
generated forward and little else.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dglang.autograd import Tensor, hooks
from dglang.autograd.arithmetic import MatMul
from dglang.autograd.backward import gradient
from dglang.autograd.node import Node, is_grad_enabled, recording, updated_in_place, updates_in_place
from dglang.autograd.op import Op
from dglang.autograd.tensor import run_op

from .generating import GuardFailed, arguments, leaves
from .tracing import Const, Trace, Var

DRAWING = "drawing"


@dataclass
class Plan:
    """Where a replay finds what it needs, by position: `given` is the call's tensors (the
    arguments', then the captured ones), `out` the tuple forward returns (the variables `keep`)."""

    sources: list[Any]  # per argument of forward: the number of its tensor in the call's walk, or the tensor itself
    grad_checks: list[tuple[int, bool]]  # (given index, whether its .grad was None when traced)
    grad_reads: list[tuple[int, int]]  # (forward argument, given index of the leaf whose .grad it is)
    effects: list[tuple[bool, int, int, int]]  # (values? else .grad, target, source kind 0/1/2, index)
    leaf_places: list[int]  # given indexes of the tensors gradients flow to
    result: Callable[[list[Tensor], tuple[Any, ...], Any], Any]  # builds the function's value
    outputs: list[int]  # the variables the result's tensors are (seeds of the backward, in order)
    # What lets a replay run the bare forward (bare.py), which neither checks nor asks the host:
    checks: list[tuple[int, tuple[int, ...], Any]]  # (given index, shape, dtype) of each captured array
    largest: int = 0  # the most elements of any value of the trace: from `hooks.watch` on, the host asks
    work: int = 0  # the most multiply-adds of one product: from `hooks.long_product` on, the host computes it
    hung: dict[int, tuple[int, Any]] = field(default_factory=dict)  # per output: its index, its node's op
    # The values the trace's rules read (Op.saved), which an update in place after the call must
    # not have changed when a backward pass comes (as each op's node checks in a dynamic graph):
    watched_given: list[int] = field(default_factory=list)  # given indexes
    watched_outputs: frozenset[int] = frozenset()  # output variables


def read_by_rules(trace: Trace) -> set[int]:
    """The variables whose values the rules of the trace's recorded steps read (Op.saved)."""
    read: set[int] = set()
    for step in trace.steps:
        if step.recorded:
            positions, reads_out = step.op.saved()
            if reads_out:
                read.add(step.out.number)
            for i, a in enumerate(step.args):
                if i in positions:
                    read.update(x.number for x in (a if isinstance(a, tuple) else (a,)) if isinstance(x, Var))
    return read


def make_plan(trace: Trace, keep: list[Var], outputs: list[Var]) -> Plan:
    places = {v.number: i for i, v in enumerate(arguments(trace))}
    read = read_by_rules(trace)
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
    return Plan(
        sources=[sources.get(v.number, captured.get(v)) for v in arguments(trace)],
        grad_checks=[  # (a tensor read by name or in an argument has its .grad in the walk's description)
            (places[n], was_none) for n, was_none in trace.grad_was_none.items() if n not in sources
        ],
        grad_reads=[(places[n], places[leaf.number]) for n, leaf in trace.grad_reads.items()],
        effects=effects,
        leaf_places=[places[v.number] for v in leaves(trace)],
        result=builder(trace.result, places, kept, trace.needs_grad, trace.fresh),
        outputs=[v.number for v in outputs],
        checks=[  # a captured tensor read by identity (one read by name has its shape guarded)
            (places[v.number], t.data.shape, t.data.dtype)
            for v, t in trace.captured
            if type(t.data) is np.ndarray
            and v.number not in trace.literals
            and v.number not in trace.fresh
            and v.number not in sources
        ],
        largest=max((math.prod(s) for s in trace.shapes.values()), default=0),
        work=max(
            (math.prod(s.shape) * trace.shapes[s.args[0].number][-1] for s in trace.steps if s.op is MatMul), default=0
        ),
        watched_given=[places[n] for n in sorted(read) if n in places],
        watched_outputs=frozenset(v.number for v in outputs if v.number in read),
    )


def builder(
    encoded: Any, places: dict[int, int], kept: dict[int, int], needs_grad: set[int], fresh: set[int]
) -> Callable[..., Any]:
    """A function (given, out, connect) -> the value, for the encoded result (see Tracer.encode_result)."""
    if isinstance(encoded, Var):
        number = encoded.number
        if number not in kept:
            place = places[number]
            if number in fresh:  # a tensor the function made: a new one at each call, as it would be
                return lambda given, out, connect: Tensor(given[place].data, requires_grad=given[place].requires_grad)
            return lambda given, out, connect: given[place]  # an argument returned as it is: the same tensor
        index, grads = kept[number], number in needs_grad

        def tensor(given: list[Tensor], out: tuple[Any, ...], connect: Any) -> Tensor:
            t = Tensor(out[index])
            if grads and connect is not None:
                connect(t, number)
            return t

        return tensor
    if isinstance(encoded, Const):
        value = encoded.value
        return lambda given, out, connect: value
    parts, kind = [builder(e, places, kept, needs_grad, fresh) for e in encoded], type(encoded)
    return lambda given, out, connect: kind(p(given, out, connect) for p in parts)


def replay(entry: Any, tensors: list[Tensor]) -> Any:
    """The function's value from the entry's generated code, or a string saying which guard failed.
    `tensors` are those the call's walk met (guards.py), in order: the arguments' and those read."""
    plan: Plan = entry.plan
    given = [tensors[s] if type(s) is int else s for s in plan.sources]
    for place, was_none in plan.grad_checks:  # a step that accumulates into .grad depends on it
        t = given[place]
        if (t.grad is None) != was_none:
            was, now = ("None", "set") if was_none else ("set", "None")
            return f"the .grad of {t.name or 'a ' + t.describe()} was {was} when traced and is {now} now"
    if entry.drawing() and plan.leaf_places and is_grad_enabled():
        return DRAWING  # the session keeps graphs to draw: the caller runs the function as it is
    for place, shape, dtype in plan.checks:  # what the bare forward's steps were checked for, when traced
        data = given[place].data
        if type(data) is not np.ndarray or data.shape != shape or data.dtype != dtype:
            t = given[place]
            return f"{t.name or 'a tensor it reads'} had shape {shape} when traced and is a {t.describe()} now"
    values = [t.data for t in given]
    for argument, leaf in plan.grad_reads:
        values[argument] = given[leaf].grad.data  # type: ignore[union-attr]
    if plan.largest < hooks.watch and plan.work < hooks.long_product:  # nothing the host would be asked
        try:
            out = entry.bare(*values)
        except (ArithmeticError, IndexError, TypeError, ValueError):  # the ops' forwards say what it is
            out = entry.forward(*values)
    else:
        out = entry.forward(*values)
    if type(out) is GuardFailed:
        return out
    entry.calls += 1
    connect = None
    if entry.backward is not None and plan.leaf_places and is_grad_enabled():
        inputs = tuple(given[i] for i in plan.leaf_places)
        saved = values + list(out)
        watched = [given[i] for i in plan.watched_given]  # the outputs' join as they are made

        def connect(t: Tensor, number: int) -> None:
            index, op = plan.hung[number]
            t.requires_grad = True
            record = CallRecord(entry, index, saved, inputs, watched)
            t.grad_fn = node = Node(op, inputs, (inputs, record), updates_in_place())
            if number in plan.watched_outputs:
                watched.append(t)
            if recording.where is not None:
                node.where, node.call = recording.where, recording.call

    result = plan.result(given, out, connect)
    for values_, target, kind, index in plan.effects:  # after the result's nodes: they saw the old values
        t = given[target]
        value = None if kind == 0 else out[index] if kind == 1 else given[index].data
        if values_:
            t.data = value
            updated_in_place(t)
        else:
            t.grad = None if value is None else Tensor(value)
    return result


def applied(step: Any, tensors: dict[int, Any]) -> Any:
    """One step of a trace applied through the engine (a step of the trace's own: on plain values)."""
    args = [
        tensors[a.number] if isinstance(a, Var) else [tensors[x.number] for x in a] if isinstance(a, tuple) else a.value
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
        return any(t.version > node.epoch for t in node.args[1].watched)


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
    """What one output's rule needs: the entry, which output it is, and the forward's arrays
    (the arguments', then those forward returned)."""

    entry: Any
    output: int
    values: list[Any]
    inputs: tuple[Tensor, ...]  # the tensors gradients flow to (the node's inputs)
    watched: list[Tensor]  # the tensors whose values its rules read (Plan.watched_given, watched_outputs)

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
        return tuple(gradient(out, stand_ins, seed=g))


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
