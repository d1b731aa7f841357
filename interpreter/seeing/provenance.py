"""When each node was made: its place in the recording and the loop iterations around it.

The evaluator counts the iterations of the loops running (RunContext.loops) and stamps each node
with the Site of the code that made it, a value made once per place in the program. A session
that may draw also listens with a Stamper, which replaces that Site on each new node by a copy
carrying the node's place in the recording and which iteration of each loop was running. So
only programs that draw pay for it (a Site per node); the others keep sharing one per place.
"""

from __future__ import annotations

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import CallFrame
from dglang.interpreter.diagnostics.source import Iteration, LoopRun, Site
from dglang.interpreter.semantics.context import RunContext

from .values import line_in, line_of


class Stamper:
    """Listens to the engine's records and stamps each node's Site with `order` and `iterations`."""

    def __init__(self, context: RunContext) -> None:
        self.loops = context.loops
        self.count = 0
        self.iterations: tuple[Iteration, ...] = ()  # the last stamped, shared while they stay the same

    def on_record(self, t: Tensor) -> None:
        node = t.grad_fn
        site = node.where if node is not None else None
        if not isinstance(site, Site):
            return
        self.count += 1
        loops, iterations = self.loops, self.iterations
        if len(loops) != len(iterations) or any(
            run is not it[0] or run.count != it[1] for run, it in zip(loops, iterations, strict=False)
        ):
            iterations = self.iterations = tuple([(run, run.count) for run in loops])
        node.where = Site(site.span, site.branches, iterations, self.count)  # type: ignore[union-attr]


def iteration_number(site: Site, iteration: Iteration) -> int:
    """Which iteration code at `site` belongs to: the loop's head (a `while` test, the row a `for`
    takes from a tensor) runs before the iteration it starts, when the count is still the last."""
    run, count = iteration
    return count + 1 if run.loop.holds(site.span) else count


def iteration_phrase(site: Site, iteration: Iteration) -> str:
    """`iteration 3 of the while on line 5`, `test 4 of the while on line 5`, `item 2 of the list on line 7`."""
    run, _ = iteration
    loop, number = run.loop, iteration_number(site, iteration)
    where = line_in(loop.line, loop.head)
    if loop.kind == "comprehension":
        return f"item {number} of the list built on {where}"
    if loop.kind == "while" and loop.holds(site.span):
        return f"test {number} of the while on {where}"
    return f"iteration {number} of the {loop.kind} on {where}"


def own_iterations(site: Site | None, call: CallFrame | None) -> list[str]:
    """The iterations of the loops running inside the node's own call (or at the top level, outside
    any call), outermost first: those around the call itself belong to the call's label."""
    if site is None:
        return []
    return [iteration_phrase(site, it) for it in site.iterations if it[0].frame is call]


def outer_iterations(site: Site | None, call: CallFrame | None) -> list[str]:
    """The iterations running around `call`, in the code that called it (outermost first)."""
    if site is None or call is None:
        return []
    return [iteration_phrase(site, it) for it in site.iterations if it[0].frame is not call]


def call_phrase(call: CallFrame) -> str:
    """`f() called at line 9`, and for a call of a function already running, its recursion level."""
    text = f"{call.function}() called at {line_of(call.call_site)}"
    level = call.recursion_level
    if level > 1:
        text += f", recursion level {level}"
    return text


def ran_phrase(run: LoopRun) -> str:
    """`the while on line 11 ran 7 times`."""
    what = "list built" if run.loop.kind == "comprehension" else run.loop.kind
    unit = "item" if run.loop.kind == "comprehension" else "time"
    verb = "took" if run.loop.kind == "comprehension" else "ran"
    return f"the {what} on {line_in(run.loop.line, run.loop.head)} {verb} {run.count} {unit}{'s' * (run.count != 1)}"
