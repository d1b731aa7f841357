"""The passes over a trace's steps, each named and shown one at a time (`dg static --passes`).

    dead code       drop each step whose output nothing later reads (no step, guard or result)
    constant fold   compute now each step whose inputs are all numbers written in the program
    common subexpressions   a step that repeats an earlier one (same op, same arguments) reads
                    the earlier one's output instead, unless gradients flow through them
    free early      after each step, let go of every forward value nothing later needs (the
                    listing shows `free t3`; the backward's values are kept)

Each pass takes the trace and gives a new list of steps (and the renaming it did); none changes
what the function computes: they only reorder nothing and drop or share work, so results are the
same bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from .trace_form import Const, Nested, Step, Trace, Var, variables


def used(a: Any) -> list[Var]:
    return variables(a)


def result_vars(encoded: Any) -> list[Var]:
    if isinstance(encoded, Var):
        return [encoded]
    if isinstance(encoded, list | tuple):
        return [v for e in encoded for v in result_vars(e)]
    return []


def roots(trace: Trace) -> set[int]:
    """The variables the caller sees: the result's, and those an effect writes into a tensor."""
    return {v.number for v in result_vars(trace.result)} | {s.number for _, _, s in trace.effects if s is not None}


def dead_code(trace: Trace, steps: list[Step]) -> tuple[list[Step], list[str]]:
    live = roots(trace) | {g.var.number for g in trace.guards}
    kept: list[Step] = []
    dropped = []
    for step in reversed(steps):
        if step.out.number in live:
            kept.append(step)
            live.update(v.number for a in step.args for v in used(a))
        else:
            dropped.append(f"t{step.out.number}")
    return kept[::-1], [f"dropped {', '.join(reversed(dropped))}"] if dropped else []


def common_subexpressions(trace: Trace, steps: list[Step]) -> tuple[list[Step], list[str]]:
    seen: dict[Any, Var] = {}
    rename: dict[int, Var] = {}
    kept, notes = [], []
    for step in steps:
        args = tuple(_renamed(a, rename) for a in step.args)
        step = Step(step.op, args, step.inputs, step.out, step.recorded, step.site, step.shape)
        key = (step.op, tuple(_key(a) for a in args), step.recorded)
        # (a recorded step is never shared: the gradient through two copies is the sum of two
        # products, through one it is one product of a sum, which may differ in the last bit)
        earlier = seen.get(key) if None not in key[1] and not step.recorded else None
        if earlier is not None:
            rename[step.out.number] = earlier
            notes.append(f"t{step.out.number} is t{earlier.number}")
            continue
        seen[key] = step.out
        kept.append(step)
    _rename_rest(trace, rename)
    return kept, notes


def _key(a: Any) -> Any:
    if isinstance(a, Var | tuple):
        return a
    try:
        hash(a.value)
    except TypeError:
        return None  # an array or a list: never taken for another
    return ("const", type(a.value), a.value)


def _renamed(a: Any, rename: dict[int, Var]) -> Any:
    if isinstance(a, Var):
        return rename.get(a.number, a)
    if isinstance(a, tuple):
        return tuple(rename.get(x.number, x) for x in a)
    if isinstance(a, Nested):
        return Nested(_renamed_inside(a.value, rename))
    return a


def _renamed_inside(value: Any, rename: dict[int, Var]) -> Any:
    if isinstance(value, Var):
        return rename.get(value.number, value)
    if type(value) in (tuple, list):
        return type(value)(_renamed_inside(v, rename) for v in value)
    return value


def _rename_rest(trace: Trace, rename: dict[int, Var]) -> None:
    """Guards and the result read the shared variable too."""
    if not rename:
        return
    for g in trace.guards:
        g.var = rename.get(g.var.number, g.var)
    trace.result = _renamed_result(trace.result, rename)
    trace.effects = [(what, t, None if v is None else rename.get(v.number, v)) for what, t, v in trace.effects]


def _renamed_result(encoded: Any, rename: dict[int, Var]) -> Any:
    if isinstance(encoded, Var):
        return rename.get(encoded.number, encoded)
    if isinstance(encoded, list | tuple):
        return type(encoded)(_renamed_result(e, rename) for e in encoded)
    return encoded


def constant_fold(trace: Trace, steps: list[Step]) -> tuple[list[Step], list[str]]:
    literal = dict(trace.variables.literals)
    kept, notes = [], []
    for step in steps:
        vars_ = [v for a in step.args for v in used(a)]
        if vars_ and all(v.number in literal for v in vars_) and not step.recorded:
            value = step.op.forward(*[_value(a, literal) for a in step.args])
            if isinstance(value, np.ndarray):  # (made once, one array would be shared by every call)
                kept.append(step)
                continue
            literal[step.out.number] = value
            notes.append(f"t{step.out.number} = {value.item() if isinstance(value, np.generic) else value!r}")
            kept.append(Step(Literal, (Const(literal[step.out.number]),), frozenset(), step.out, False, step.site))
            continue
        kept.append(step)
    decided = [g for g in trace.guards if g.var.number in literal]  # a guard on a constant always holds
    if decided:
        trace.guards = [g for g in trace.guards if g.var.number not in literal]
        notes.append(f"{len(decided)} guard{'s' * (len(decided) != 1)} on constants dropped")
    trace.variables.literals = literal
    return kept, notes


def _value(a: Any, literal: dict[int, Any]) -> Any:
    if isinstance(a, Var):
        return literal[a.number]
    if isinstance(a, tuple):
        return [literal[x.number] for x in a]
    if isinstance(a, Nested):
        return _inside_value(a.value, literal)
    return a.value


def _inside_value(value: Any, literal: dict[int, Any]) -> Any:
    if isinstance(value, Var):
        return literal[value.number]
    if type(value) in (tuple, list):
        return type(value)(_inside_value(v, literal) for v in value)
    return value


class Literal:
    """A folded value: `t5 = 6.0` (not an op of the engine: a constant the code is given)."""

    name = "Literal"
    rules: tuple[str, ...] = ()
    backward = None

    @staticmethod
    def forward(value: Any) -> Any:
        return value


def free_early(trace: Trace, steps: list[Step]) -> tuple[list[Step], list[str]]:
    """Marks, after each step, the forward values no later step, guard or the result reads and
    the backward does not need: the code sets them to None there, so NumPy can reuse their memory."""
    keep = roots(trace)
    for step in steps:
        if step.recorded:
            keep.add(step.out.number)
            keep.update(v.number for a in step.args for v in used(a))
    last: dict[int, int] = {}
    for i, step in enumerate(steps):
        last.setdefault(step.out.number, i)  # a value no one reads goes right away
        for a in step.args:
            for v in used(a):
                last[v.number] = i
    # (a guard is checked right under the step that computes its value: generating.guard_places)
    frees: dict[int, list[int]] = {}
    for number, i in last.items():
        if number not in keep and any(s.out.number == number for s in steps):
            frees.setdefault(i, []).append(number)
    trace.frees = frees
    count = sum(len(ns) for ns in frees.values())
    notes = (
        [f"{count} value{'s' * (count != 1)} let go as soon as nothing reads them (the `free` lines)"] if count else []
    )
    return steps, notes


PASSES: list[tuple[str, Callable[[Trace, list[Step]], tuple[list[Step], list[str]]]]] = [
    ("dead code elimination", dead_code),
    ("constant folding", constant_fold),
    ("common subexpression elimination", common_subexpressions),
    ("dead code elimination (again)", dead_code),
    ("free early", free_early),
]


def optimized(trace: Trace) -> Trace:
    """The trace after every pass (a copy: the trace as recorded stays as it was)."""
    copy = replace(trace, guards=[replace(g) for g in trace.guards], frees={})
    steps = list(copy.steps)
    for _, run in PASSES:
        steps, _ = run(copy, steps)
    copy.steps = steps
    return copy
