"""Code generation: a Trace becomes two straight-line Python functions over NumPy arrays.

    forward(t0, t1, ...)      the arguments' and captured tensors' arrays in; each step is one
                              call of its op's forward; each guard compares a value computed
                              here with the one observed when tracing. Out: the tuple of the
                              variables `keep` names, or the number of the first guard that failed.
    backward(s0, ..., t0, ...) a seed per output (None where none arrives) and the forward's
                              variables in; each recorded step, last first, calls its op's rule
                              (the engine's own, on tensors made of the arrays); out: the gradient
                              of each variable that required grad when traced.

Safety: the source text is made only of names this module makes (`t3`, `op2`, `c5`, `k0`) and
Python's own punctuation. Everything else (the ops' functions, every constant and observed
value, every shape) is an object in the namespace the code runs with, and the program's source
lines appear only in the listing (listing.py), never in the code that runs, not even as comments.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.arithmetic import MatMul

from .bare import bare_form
from .trace_form import Const, Nested, Trace, Var, variables

GUARD_VALUE: dict[str, Callable[[Any], Any]] = {
    "bool": bool,
    "item": lambda a: np.asarray(a).reshape(()).item(),
    "int": int,
    "tolist": lambda a: np.asarray(a).tolist(),
    "count": lambda a: int(np.count_nonzero(a)),  # a bool index: how many elements it picks
}


def _wrap(a: Any) -> Tensor:
    return Tensor(a)


def _wrap_requiring(a: Any) -> Tensor:
    """An input the rule sends a gradient to (a rule skips inputs that do not require grad)."""
    return Tensor(a, requires_grad=True)


def _add(total: Tensor | None, g: Tensor | None) -> Tensor | None:
    if g is None:
        return total
    return g if total is None else total + g


def _fit(g: Any, shape: tuple[int, ...]) -> Any:
    """A gradient of an input's shape (undoing broadcasting, as backward.py does)."""
    if g is None or g.shape == shape:
        return g
    return g.sum_to(shape)


@dataclass(frozen=True, slots=True)
class GuardFailed:
    """What forward returns when guard `number` fails: the value it saw instead."""

    number: int
    value: Any


@dataclass
class Code:
    """Generated source and the namespace it runs with (its objects, by generated name)."""

    lines: list[str] = field(default_factory=list)
    namespace: dict[str, Any] = field(default_factory=dict)
    origins: list[int] = field(default_factory=list)  # per line: the step it came from (-1: none)
    counts: dict[str, int] = field(default_factory=dict)

    def name(self, prefix: str, value: Any) -> str:
        """A fresh generated name bound to `value` in the namespace."""
        n = self.counts.get(prefix, 0)
        self.counts[prefix] = n + 1
        name = f"{prefix}{n}"
        self.namespace[name] = value
        return name

    def add(self, line: str, origin: int = -1) -> None:
        self.lines.append(line)
        self.origins.append(origin)

    def compile(self, function: str) -> Callable[..., Any]:
        namespace = {"__builtins__": {}, **self.namespace}
        exec(compiled("\n".join(self.lines) + "\n", f"<static {function}>"), namespace)
        return namespace[function]  # type: ignore[no-any-return]

    def lazily(self, function: str) -> Callable[..., Any]:
        """The generated function, compiled the first time it is called."""
        made: list[Callable[..., Any]] = []

        def run(*args: Any) -> Any:
            if not made:
                made.append(self.compile(function))
            return made[0](*args)

        return run


@functools.lru_cache(maxsize=256)
def compiled(source: str, filename: str) -> Any:
    """Python's code object for generated source. A trace made again for another guard (a .grad
    set now, a global changed) often generates the same text, which then is not compiled again:
    compiling is much of a trace's time. The text holds only generated names, so one code object
    serves every namespace that binds them (each trace's own objects)."""
    return compile(source, filename, "exec")


def var(v: Var) -> str:
    return f"t{int(v.number)}"


def grad(v: Var) -> str:
    return f"g{int(v.number)}"


def arguments(trace: Trace) -> list[Var]:
    """What forward takes, in order: the arguments' tensors, then the captured ones."""
    return [*trace.inputs, *(v for v, _ in trace.captured)]


def guard_places(trace: Trace) -> dict[int, list[tuple[int, Any]]]:
    """Each guard (with its number) under the step that computes its value (-1: an argument's), so
    that it is checked as early as it can be: a later step may fail on the values of another path."""
    made = {s.out.number: i for i, s in enumerate(trace.steps)}
    places: dict[int, list[tuple[int, Any]]] = {}
    for number, guard in enumerate(trace.guards):
        places.setdefault(made.get(guard.var.number, -1), []).append((number, guard))
    return places


def forward_code(trace: Trace, keep: list[Var], bare: bool = False, asks: tuple[int, int] = (0, 0)) -> Code:
    """The generated forward. `bare`: each step as its op's bare form (bare.py) where it has one,
    else a call of the op's forward, which checks its operands and asks the host as it computes;
    a step whose values are large enough for the host to ask about (`asks`: the host's `watch`
    and `long_product`) calls its op's forward, in the bare forward too."""
    code = Code()
    code.add(f"def forward({', '.join(var(v) for v in arguments(trace))}):")
    places = guard_places(trace)
    for number, guard in places.get(-1, []):
        _guard(code, number, guard)
    for i, step in enumerate(trace.steps):
        parts = []
        for a in step.args:
            if isinstance(a, Var):
                parts.append(var(a))
            elif isinstance(a, tuple):
                parts.append("[" + ", ".join(var(x) for x in a) + "]")
            elif isinstance(a, Nested):
                parts.append(nested_text(code, a.value))
            else:
                parts.append(code.name("c", a.value))
        small = bare and not asked(trace, step, *asks)
        text = bare_form(step, parts, lambda value: code.name("c", value), trace) if small else None
        if text is None:
            text = f"{code.name('op', step.op.forward)}({', '.join(parts)})"
        code.add(f"    {var(step.out)} = {text}", i)
        for number, guard in places.get(i, []):
            _guard(code, number, guard)
        if trace.frees.get(i):  # the memory pass: values nothing later reads (optimizing.free_early)
            code.add(f"    {' = '.join(var(Var(n)) for n in trace.frees[i])} = None", i)
    code.add(f"    return ({''.join(var(v) + ', ' for v in keep)})")
    return code


def asked(trace: Trace, step: Any, watch: int, long_product: int) -> bool:
    """Would the step's op ask the host (hooks.py) when it runs: a value of at least `watch`
    elements among its operands and its result, or a product of at least `long_product`?"""
    sizes = [math.prod(trace.variables.shapes.get(v.number, ())) for v in variables_of(step)]
    if max(sizes, default=0) >= watch or math.prod(step.shape) >= watch:
        return True
    if step.op is MatMul and isinstance(step.args[0], Var):
        return math.prod(step.shape) * (trace.variables.shapes.get(step.args[0].number) or (1,))[-1] >= long_product
    return False


def variables_of(step: Any) -> list[Var]:
    return [v for a in step.args for v in variables(a)]


def nested_text(code: Code, value: Any) -> str:
    """An argument holding variables inside a tuple or list (an index), as an expression."""
    if isinstance(value, Var):
        return var(value)
    if type(value) is tuple:
        return "(" + "".join(nested_text(code, v) + ", " for v in value) + ")"
    if type(value) is list:
        return "[" + ", ".join(nested_text(code, v) for v in value) + "]"
    return code.name("c", value)


def _guard(code: Code, number: int, guard: Any) -> None:
    how = code.name("as_", GUARD_VALUE[guard.how])
    observed, failed = code.name("k", guard.observed), code.name("failed", GuardFailed)
    if has_float(guard.observed):  # 0.0 and -0.0 are equal to `!=`, and nan unequal to itself
        code.add(f"    if not {code.name('same', same)}(seen := {how}({var(guard.var)}), {observed}):", guard.after)
    else:
        code.add(f"    if (seen := {how}({var(guard.var)})) != {observed}:", guard.after)
    code.add(f"        return {failed}({int(number)}, seen)", guard.after)


def has_float(value: Any) -> bool:
    return type(value) is float or (type(value) is list and any(has_float(v) for v in value))


def same(a: Any, b: Any) -> bool:
    """Equal as a guard must see it: floats bit for bit (the sign of a zero counts; nan is nan)."""
    if type(a) is float and type(b) is float:
        return a.hex() == b.hex()
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def leaves(trace: Trace) -> list[Var]:
    """The variables gradients flow back to: the arguments' and captured tensors that required grad."""
    return [v for v in arguments(trace) if v.number in trace.variables.needs_grad]


def saved(trace: Trace, outputs: list[Var]) -> list[Var]:
    """The steps' outputs forward hands back: the function's results, and what backward reads."""
    made = {s.out.number for s in trace.steps}
    wanted = {v.number for v in outputs}
    for step in trace.steps:
        if step.recorded:
            wanted.add(step.out.number)
            wanted.update(x.number for a in step.args for x in variables(a))
    return [Var(n) for n in sorted(wanted & made)]


def backward_code(trace: Trace, outputs: list[Var], keep: list[Var]) -> Code:
    """The generated backward: the seeds of `outputs` in, the gradients of `leaves(trace)` out.
    It is given the arguments' values and what the forward returned (`keep`: saved, for the
    results and for the values an effect writes into a tensor), in that order."""
    code = Code()
    seeds = [f"s{i}" for i in range(len(outputs))]
    names = [*seeds, *(var(v) for v in arguments(trace)), *(var(v) for v in keep)]
    code.add(f"def backward({', '.join(names)}):")
    wrap, add, fit = code.name("W", _wrap), code.name("acc", _add), code.name("fit", _fit)
    requiring = code.name("R", _wrap_requiring)
    needed = trace.variables.needs_grad

    def wrapped(v: Var) -> str:
        return f"{requiring if v.number in needed else wrap}({var(v)})"

    for v in sorted({v.number for v in leaves(trace)} | {s.out.number for s in trace.steps if s.recorded}):
        code.add(f"    g{v} = None")
    for i, v in enumerate(outputs):
        if v.number in needed:
            code.add(f"    {grad(v)} = {add}({grad(v)}, s{i})")
    for i in engine_order(trace, outputs):
        step = trace.steps[i]
        parts = []
        for position, a in enumerate(step.args):
            if isinstance(a, Var):
                parts.append(wrapped(a) if position in step.inputs else var(a))
            elif isinstance(a, tuple):
                parts.append("(" + "".join(wrapped(x) + ", " for x in a) + ")")
            elif isinstance(a, Nested):
                parts.append(nested_text(code, a.value))
            else:
                parts.append(code.name("c", a.value))
        rule = code.name("rule", step.op.backward)
        code.add(f"    if {grad(step.out)} is not None:", i)
        code.add(f"        sent = {rule}({grad(step.out)}, {wrap}({var(step.out)}), {', '.join(parts)})", i)
        for n, x in reversed(list(enumerate(step_inputs(step)))):  # the last input first, as the engine
            if x.number in needed:
                shape = code.name("shape", trace.variables.shapes[x.number])
                code.add(f"        {grad(x)} = {add}({grad(x)}, {fit}(sent[{n}], {shape}))", i)
    code.add(f"    return ({''.join(grad(v) + ', ' for v in leaves(trace))})")
    return code


def step_inputs(step: Any) -> list[Var]:
    """The step's inputs, flat, in order (a variadic op's list counts each of its items)."""
    return [
        x
        for p, a in enumerate(step.args)
        if p in step.inputs
        for x in (a if isinstance(a, tuple) else (a,))
        if isinstance(x, Var)  # (an optional input left out, conv2d's bias: none, as the node has none)
    ]


def engine_order(trace: Trace, outputs: list[Var]) -> list[int]:
    """The recorded steps, in the order the engine's backward pass visits their nodes (backward.py:
    a node once every consumer has sent its gradient, the latest ready first, a node's first
    input before its second), so that each gradient sums its parts in the engine's order and
    comes out the same bit for bit. Steps no output reaches are left out."""
    made = {s.out.number: i for i, s in enumerate(trace.steps) if s.recorded}
    needed = trace.variables.needs_grad
    consumers: dict[int, int] = {}
    stack = [v.number for v in outputs]
    seen = set(stack)
    while stack:
        i = made.get(stack.pop())
        for x in step_inputs(trace.steps[i]) if i is not None else ():
            if x.number in needed:
                consumers[x.number] = consumers.get(x.number, 0) + 1
                if x.number not in seen:
                    seen.add(x.number)
                    stack.append(x.number)
    order, ready = [], [v.number for v in reversed(outputs) if v.number in made and not consumers.get(v.number)]
    while ready:
        i = made[ready.pop()]
        order.append(i)
        for x in reversed(step_inputs(trace.steps[i])):
            if x.number in needed:
                consumers[x.number] -= 1
                if not consumers[x.number] and x.number in made:
                    ready.append(x.number)
    return order


def is_const(a: Any) -> bool:
    return isinstance(a, Const)
