"""The arms of each `if` that did not run, beside the nodes of the arm that did (`--untaken`).

A recorded graph holds only what ran. A static graph (built before the data is seen) would have
to hold every arm of every `if`, and choose among them as it runs; drawing the arms that did not
run, greyed, beside the nodes of the one that did, shows the difference.

Nodes made by one run of an `if` (the same `if`, in the same call, in the same iteration of each
loop around it) belong together: that run took exactly one arm, so its other arms did not run.
An arm that ran but recorded no node of this graph leaves no trace here, so nothing is said of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dglang.interpreter.diagnostics.errors import CallFrame
from dglang.interpreter.diagnostics.source import Arm, Branch, Iteration, Site, Source

from .provenance import iteration_phrase


@dataclass(eq=False)
class NotRun:
    """One run of an `if` in the graph: the arm it took and those it did not.

    beside   the number of the node nearest the output that the arm taken made
    during   the loop iterations it ran in (`iteration 2 of the for on line 3`), outermost first
    """

    branch: Branch
    arms: list[Arm]
    beside: int
    source: Source
    call: CallFrame | None
    during: list[str]

    def lines(self, arm: Arm) -> list[tuple[int, str]]:
        """The source lines of an arm, as (line number, text) with the common indentation removed."""
        rows = [(n, self.source.line(n)) for n in range(arm.line, arm.end_line + 1)]
        indent = min((len(t) - len(t.lstrip()) for _, t in rows if t.strip()), default=0)
        return [(n, t[indent:].rstrip()) for n, t in rows]

    @property
    def taken(self) -> str:
        return "then-branch" if self.branch.arm == "then" else f"{self.branch.arm}-branch on line {self.branch.line}"


def arms_not_run(made: Iterable[tuple[int, Site | None, CallFrame | None]]) -> list[NotRun]:
    """For each run of an `if` that made nodes of the graph, the arms it did not take.
    `made` holds each node's number, site and call."""
    runs: dict[tuple[object, ...], NotRun] = {}
    for number, site, call in sorted(made, key=lambda m: m[0]):
        if site is None:
            continue
        for branch in site.branches:
            others = [a for a in branch.arms if a.line != branch.line]
            if not others:
                continue
            around = enclosing(site, call, branch)
            key = (site.span.source.name, branch.if_line, id(call), tuple((id(run), n) for run, n in around))
            if key not in runs:
                during = [iteration_phrase(site, it) for it in around if it[0].frame is call]
                runs[key] = NotRun(branch, others, number, site.span.source, call, during)
    return list(runs.values())


def enclosing(site: Site, call: CallFrame | None, branch: Branch) -> list[Iteration]:
    """The iterations that tell one run of the `if` from another: those of every loop around it
    (a loop inside an arm starts after the `if` line, in the same call, and varies within one run)."""
    return [it for it in site.iterations if not (it[0].frame is call and it[0].loop.line > branch.if_line)]
