"""What a student reads: each trace as a listing, like a jaxpr, and static_info's summary.

The listing is written from the trace, not from the generated source: each line is a step in
the engine's words (`t3 = Mul(t0, t2)`), a guard (`guard bool(t4) == True`) or a backward rule,
commented with the DG source line it came from. The source text appears here only; the code
that runs (generating.py) never holds it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .generating import guard_places, leaves
from .guard_words import decision_text, guard_text
from .optimizing import PASSES, Literal, result_vars
from .trace_form import Const, Nested, Step, Trace, Var, variables
from .trace_steps import Pick, RuleCall

WIDTH = 44  # the column the source comments start at


def shown(a: Any) -> str:
    """An argument of a step as the listing writes it (repr escapes every control character)."""
    if isinstance(a, Var):
        return f"t{a.number}"
    if isinstance(a, tuple):
        return "[" + ", ".join(shown(x) for x in a) + "]"
    if isinstance(a, Nested):
        inner = ", ".join(shown(x) for x in a.value)
        return f"({inner}{',' * (len(a.value) == 1)})" if type(a.value) is tuple else f"[{inner}]"
    value = a.value if isinstance(a, Const) else a
    if callable(value):
        return getattr(value, "__name__", "fn")
    if isinstance(value, np.ndarray):
        return f"array{value.shape}"
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 20 else text[:17] + "..."


def comment(site: Any) -> str:
    span = getattr(site, "span", None)
    if span is None:
        return ""
    text = span.source.line(span.line).strip()
    text = repr(text)[1:-1] if not text.isprintable() else text
    return f"# {span.line}: {text}"


def line(code: str, site: Any) -> str:
    note = comment(site)
    return f"{code:<{WIDTH}}{note}".rstrip() if note else code


def step_text(step: Step) -> str:
    if step.op is RuleCall:  # t20 = Relu.backward(g=t19, out=t7, t5)
        op, _, g, out, *rest = step.args
        return f"t{step.out.number} = {op.value.name}.backward({', '.join(shown(a) for a in (g, out, *rest))})"
    if step.op is Pick:
        return f"t{step.out.number} = {shown(step.args[0])}[{step.args[1].value}]"
    if step.op is Literal:  # (folded when traced)
        return f"t{step.out.number} = {shown(step.args[0])}"
    params = [shown(a) for a in step.args]
    return f"t{step.out.number} = {step.op.name}({', '.join(params)})"


def shape_text(trace: Trace, v: Var) -> str:
    shape = trace.variables.shapes.get(v.number, ())
    return f"{trace.variables.dtypes.get(v.number, 'float')}[{', '.join(map(str, shape))}]"


def guard_lines(trace: Trace, key: Any = None, params: tuple[str, ...] = ()) -> list[str]:
    """Every guard of a trace, one a line (like TORCH_LOGS=guards): the cache key's, when given;
    each name it read from outside the function; each decision it took on a tensor's values."""
    owners, lines = trace.outside.owners, []
    if key is not None:
        args, grad_mode = key
        lines += [guard_text(f"the argument `{p}`", d, owners, False) for p, d in zip(params, args, strict=False)]
        lines.append("grad mode is " + ("on" if grad_mode else "off (inside no_grad)"))
    lines += [guard_text(read.label, read.described, owners, True) for read in trace.outside.reads]
    lines += [f"{decision_text(g)} is {g.observed!r} (checked as the code runs)" for g in trace.guards]
    return lines


def listing(
    name: str, number: int, signature: str, trace: Trace, steps: list[Step] | None = None, guards: list[str] = ()
) -> str:
    """One trace as forward and backward code, each line commented with its DG source line;
    `guards` (guard_lines) above it."""
    steps = trace.steps if steps is None else steps
    out = [f"static({name}) trace {number}: {name}{signature}"]
    if guards:
        out.append("  guards, checked before each call runs this trace:")
        out.extend(f"    {g}" for g in guards)
    ins = ", ".join(f"t{v.number}: {shape_text(trace, v)}" for v in trace.inputs)
    out.append(f"  forward({ins})")
    sources, owners = trace.outside.sources, trace.outside.owners
    for v, t in trace.captured:
        if v.number in sources:
            out.append(f"    t{v.number} = {owners.get(sources[v.number], 'a tensor it reads')}  "
                       f"# {shape_text(trace, v)}, read again at each call")  # fmt: skip
            continue
        what = "made by the function:" if v.number in trace.variables.fresh else "captured" if t.requires_grad or \
            np.size(t.data) != 1 else "constant"  # fmt: skip
        out.append(f"    t{v.number} = {what} {shown(Const(t.data))}  # {shape_text(trace, v)}")
    places = guard_places(replace(trace, steps=steps))

    def guards_under(i: int) -> None:
        for _, g in places.get(i, []):
            out.append("    " + line(f"guard {g.how}(t{g.var.number}) == {g.observed!r}", g.site))

    guards_under(-1)
    for i, step in enumerate(steps):
        out.append("    " + line(step_text(step), step.site))
        guards_under(i)
        if trace.frees.get(i):
            out.append(f"    free {', '.join(f't{n}' for n in trace.frees[i])}")
    for what, target, source in trace.effects:
        value = "None" if source is None else f"t{source.number}"
        out.append(f"    t{target.number}.{what} = {value}" + ("   (in place)" if what == "data" else ""))
    out.append(f"    return {shown_result(trace.result)}")
    grads = leaves(trace)
    if grads:
        out.append(f"  backward(seed) -> {', '.join(f'g{v.number}' for v in grads)}")
        reached = {v.number for v in result_vars(trace.result)}  # what a gradient from the result reaches
        for step in reversed(steps):
            if not step.recorded or step.out.number not in reached:
                continue
            reached.update(x.number for a in step.args for x in variables(a))
            ins_ = [a for p, a in enumerate(step.args) if p in step.inputs]
            flat = [x for a in ins_ for x in (a if isinstance(a, tuple) else (a,)) if isinstance(x, Var)]
            targets = ", ".join(f"g{x.number}" if x.number in trace.variables.needs_grad else "_" for x in flat)
            rules = "; ".join(step.op.rules) if step.op.rules else ""
            out.append("    " + line(f"{targets} += {step.op.name}.backward(g{step.out.number})  [{rules}]", step.site))
    return "\n".join(out) + "\n"


def shown_result(encoded: Any) -> str:
    if isinstance(encoded, Var):
        return f"t{encoded.number}"
    if isinstance(encoded, Const):
        return repr(encoded.value)
    inner = ", ".join(shown_result(e) for e in encoded)
    return f"[{inner}]" if isinstance(encoded, list) else f"({inner})"


def with_passes(name: str, number: int, signature: str, trace: Trace) -> str:
    """The listing before the passes, then after each one, with what it did."""
    copy = replace(trace, guards=[replace(g) for g in trace.guards], frees={})
    steps = list(copy.steps)
    out = [listing(name, number, signature, copy, steps)]
    for title, run in PASSES:
        steps, notes = run(copy, steps)
        out.append(f"--- after {title}: {'; '.join(notes) if notes else 'nothing to do'}")
        if notes:  # (a pass that changed nothing leaves the listing as it was)
            out.append(listing(name, number, signature, copy, steps))
    return "\n".join(out)


def listings(fn: Any, passes: bool = False) -> str:
    """Every cached trace of a StaticFunction, as listings, each with its guards."""
    if not fn.cached() and fn.refused:  # called, but every trace was refused
        why = "; ".join(dict.fromkeys(fn.refused.values()))
        return f"static({fn.name}) has no traces: its calls ran dynamically ({why})\n"
    if not fn.cached():
        return f"static({fn.name}) has no traces yet: call it first\n"
    return "\n".join(
        with_passes(fn.name, entry.number, entry.described, entry.traced)
        if passes
        else listing(
            fn.name, entry.number, entry.described, entry.trace, guards=guard_lines(entry.trace, entry.key, fn.params)
        )
        for entry in fn.cached()
    )


def info_text(fn: Any, timing: bool = True) -> str:
    """static_info(f): traces, cache entries, guard failures and time, like torch._dynamo.explain."""
    cached = fn.cached()
    out = [f"static({fn.name}): {plural(fn.traces, 'trace')}, {len(cached)} in the cache"]
    for entry in cached:
        t = entry.trace
        captured = [
            n for n in (v.number for v, _ in t.captured) if n not in t.variables.literals and n not in t.variables.fresh
        ]
        out.append(
            f"  trace {entry.number}: {fn.name}{entry.described}: {plural(len(t.steps), 'op')}, "
            f"{plural(len(t.outside.reads) + len(t.guards), 'guard')}, {plural(len(captured), 'tensor')} captured, "
            f"{plural(entry.calls, 'call')}"
        )
        out.extend(f"    guard: {g}" for g in guard_lines(t))
    out.append(f"  guard failures: {len(fn.failures)}")
    out.extend(f"    {f}" for f in fn.failures)
    if fn.dynamic_calls:
        out.append(f"  calls run dynamically: {fn.dynamic_calls}")
        out.extend(f"    a trace refused: {why}" for why in dict.fromkeys(fn.refused.values()))
    if timing:
        tracing, running = fn.tracing_time * 1000, fn.running_time * 1000
        out.append(f"  time tracing: {tracing:.1f} ms; running generated code: {running:.1f} ms")
    return "\n".join(out) + "\n"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"
