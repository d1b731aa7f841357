"""Static calls in the pictures: a call of `static(f)` drawn as the trace it runs as.

While a session keeps graphs to draw, a static function runs as it is, with a tracer listening
(static/static_calls.py keeps a DrawnCall of each run), so its ops are the graph's nodes like any
other. This module says which nodes they are and what the trace assumed: the call's box is named
for its trace (`static(f) trace 1: f(float[2] requires_grad)`), and each guard becomes a diamond
with the condition's source text and its value when traced, fed by the nodes the condition read
and leading to the node made after it. What a guard failure would do is drawn beside it: a dashed
box `re-trace if x.sum() > 0 is False`, with the code of the arm that did not run. The stepper
also steps through the trace's listing, as `dg static` prints it, line by line (`listing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import CallFrame
from dglang.interpreter.host.session import Session
from dglang.interpreter.static import static_builtins
from dglang.interpreter.static.listing import listing
from dglang.interpreter.static.static_calls import DrawnCall
from dglang.interpreter.static.trace_form import Step, Var, variables

from .graph import Graph, GraphNode
from .values import compact, source_text

MAX_GUARDS = 12  # diamonds drawn per call; a loop's hundred tests are summed up in one line


@dataclass(eq=False)
class GuardMark:
    """One guard of a static call, placed in the graph."""

    number: int  # 1, 2, ... within its call
    key: str  # its diamond's id in the SVG: `s1g2` (static call 1, guard 2)
    frame: CallFrame
    condition: str  # the source text that became a Python value: `x.sum() > 0`
    line: int
    observed: Any  # its value when traced (this run's)
    how: str  # "bool", "item", "int" or "tolist"
    reads: list[int] = field(default_factory=list)  # the nodes the condition was computed from
    then: int | None = None  # the first node made after it
    not_run: list[tuple[int, str]] = field(default_factory=list)  # the lines of an arm not taken

    @property
    def text(self) -> str:
        value = compact(self.observed) if not isinstance(self.observed, bool) else str(self.observed)
        return f"guard {self.condition}\nwas {value} when traced"

    @property
    def retrace(self) -> str:
        """What a failure would do: `re-trace if x.sum() > 0 is False`."""
        if self.how == "bool":
            return f"re-trace if {self.condition} is {not self.observed}"
        return f"re-trace if {self.condition} is not {compact(self.observed)}"


@dataclass(eq=False)
class StaticMark:
    """A static call in the graph: which trace it ran as, its guards, and its listing's lines."""

    drawn: DrawnCall
    guards: list[GuardMark]
    more_guards: int = 0  # guards not drawn (past MAX_GUARDS)

    @property
    def title(self) -> str:
        d = self.drawn
        if d.number:
            return f"static({d.name}) trace {d.number}: {d.name}{d.described}"
        return f"static({d.name}): a path not in its cache (a guard of each trace failed)"


def drawn_calls(session: Session) -> dict[int, DrawnCall]:
    """The session's static calls kept for pictures, by id of their CallFrame."""
    return {id(d.frame): d for fn in static_builtins.made(session) for d in fn.drawn}


def mark_static(graph: Graph, calls: dict[int, DrawnCall]) -> None:
    """Find the static calls among the graph's nodes, and place their guards (graph.static)."""
    by_tensor = {id(n.tensor): n.number for n in graph.nodes.values()}
    frames: dict[int, DrawnCall] = {}
    for node in graph.nodes.values():
        frame = node.call
        while frame is not None and id(frame) not in calls:
            frame = frame.caller
        if frame is not None:
            frames[id(frame)] = calls[id(frame)]
    marks = []
    for drawn in frames.values():
        made = {s.out.number: s for s in drawn.run.steps}
        guards = []
        for i, guard in enumerate(drawn.run.guards[:MAX_GUARDS], 1):
            span = getattr(guard.site, "span", None)
            mark = GuardMark(i, f"s{len(marks) + 1}g{i}", drawn.frame, source_text(span) if span else "a value",
                             span.line if span else 0, guard.observed, guard.how)  # fmt: skip
            mark.reads = sorted(nodes_read(guard.var, made, drawn.tensors, by_tensor))
            after = [s for s in drawn.run.steps[guard.after + 1 :] if id(drawn.tensors.get(s.out.number)) in by_tensor]
            mark.then = by_tensor[id(drawn.tensors[after[0].out.number])] if after else None
            if guard.how == "bool" and span is not None and mark.then is not None:
                mark.not_run = arm_not_run(graph.nodes[mark.then], span.line)
            guards.append(mark)
        marks.append(StaticMark(drawn, guards, max(len(drawn.run.guards) - MAX_GUARDS, 0)))
    graph.static = marks


def nodes_read(var: Var, made: dict[int, Step], tensors: dict[int, Tensor], nodes: dict[int, int]) -> set[int]:
    """The graph's nodes a variable was computed from (through steps that made no node: `>`)."""
    found, pending, seen = set(), [var], set()
    while pending:
        v = pending.pop()
        if v.number in seen:
            continue
        seen.add(v.number)
        t = tensors.get(v.number)
        if t is not None and id(t) in nodes and v is not var:
            found.add(nodes[id(t)])
        elif v.number in made:
            step = made[v.number]
            pending += [x for a in step.args for x in variables(a)]
        elif t is not None and id(t) in nodes:
            found.add(nodes[id(t)])
    return found


def arm_not_run(node: GraphNode, if_line: int) -> list[tuple[int, str]]:
    """The lines of the arms of the `if` on `if_line` that `node`'s arm was not."""
    if node.site is None:
        return []
    source = node.site.span.source
    for branch in node.site.branches:
        if branch.if_line == if_line:
            return [(n, source.line(n).rstrip()) for a in branch.arms if a.line != branch.line
                    for n in range(a.line, a.end_line + 1)]  # fmt: skip
    return []


def static_of(graph: Graph, call: CallFrame | None) -> StaticMark | None:
    """The static call whose box is `call`'s, if it is one."""
    return next((m for m in graph.static if m.drawn.frame is call), None)


# ---- the listing, line by line, with what each line is about ------------------------------------
STEP = re.compile(r"^    t(\d+) = ")
GUARD = re.compile(r"^    guard \w+\(t(\d+)\)")
RULE = re.compile(r"^    .* \+= \w+\.backward\(g(\d+)\)")


def listing_lines(mark: StaticMark, graph: Graph) -> list[dict[str, Any]]:
    """The trace's listing as `dg static` prints it, each line with the nodes it is about: a step's
    output, a guard's diamond, the node whose rule a backward line runs."""
    d = mark.drawn
    text = listing(d.name, d.number, d.described, d.trace, guards=d.guards)
    by_tensor = {id(n.tensor): n.number for n in graph.nodes.values()}
    guards = iter(mark.guards)
    rows = []
    for line in text.rstrip("\n").split("\n"):  # (a listing escapes every control character)
        row: dict[str, Any] = {"text": line, "nodes": [], "guard": None}
        step, guard, rule = STEP.match(line), GUARD.match(line), RULE.match(line)
        number = step or rule
        if number:
            t = d.tensors.get(int(number[1]))
            if t is not None and id(t) in by_tensor:
                row["nodes"] = [f"n{by_tensor[id(t)]}"]
        elif guard:
            g = next(guards, None)
            row["guard"] = g.key if g is not None else None
        rows.append(row)
    return rows
