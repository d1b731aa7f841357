"""What a backward pass did, kept for pictures: each step in order, what went along each edge, what
each tensor received, and what accumulated into each leaf's `.grad`.

One definition of a step serves the trace, the text picture, the DOT/SVG and the stepper: step k
is the kth time the pass ran an op's rule (the engine's `on_step`). A leaf runs no rule, so it
has no step of its own: it receives in the steps of the ops that use it, and after the last
step the pass adds what it received into its `.grad`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.source import Site


@dataclass(slots=True, eq=False)
class Step:
    """One step: `tensor`'s rule ran on the gradient `g` arriving at it and `sent` one gradient per
    input (None for an input that needs none), before any summing back over broadcast axes."""

    number: int
    tensor: Tensor
    g: Tensor
    sent: tuple[Any, ...]


@dataclass(eq=False)
class BackwardPass:
    """One backward pass (a `grad` statement or a `gradient()` call), as the engine told it.

    steps     in order: step k is steps[k - 1]
    leaves    for each leaf the pass reached, by id: the leaf (kept, so its id stays its own) and
              the whole gradient it received (the sum over the ops that use it)
    grads     each leaf that accumulated, with what it received and its `.grad` after adding it
    """

    root: Tensor
    seed: Tensor
    site: Site | None  # the `grad` statement (or `gradient()` call) that started it
    steps: list[Step] = field(default_factory=list)
    leaves: dict[int, tuple[Tensor, Tensor]] = field(default_factory=dict)
    grads: list[tuple[Tensor, Tensor, Tensor]] = field(default_factory=list)
    _step_of: dict[int, Step] | None = None

    @property
    def step_of(self) -> dict[int, Step]:
        """The step of each tensor whose rule ran, by id (made when a picture first asks)."""
        if self._step_of is None or len(self._step_of) != len(self.steps):
            self._step_of = {id(step.tensor): step for step in self.steps}
        return self._step_of

    def reached(self, t: Tensor) -> bool:
        return id(t) in self.leaves or id(t) in self.step_of

    def gradient_of(self, t: Tensor) -> Tensor | None:
        """What `t` received in this pass: the g its rule ran on, or a leaf's sum."""
        step = self.step_of.get(id(t))
        if step is not None:
            return step.g
        got = self.leaves.get(id(t))
        return got[1] if got is not None else None

    @property
    def line(self) -> int | None:
        return self.site.span.line if self.site is not None else None


class LastBackward:
    """Listens to the engine and keeps the last backward pass (the one pictures draw).

    Installed only in sessions that may draw (see Seeing.keep_backward): it keeps every tensor and
    gradient of the last pass alive until the next pass begins."""

    def __init__(self) -> None:
        self.last: BackwardPass | None = None

    def on_backward(self, root: Tensor, seed: Tensor) -> None:
        site = recording.where
        self.last = BackwardPass(root, seed, site if isinstance(site, Site) else None)

    def on_visit(self, t: Tensor, g: Tensor) -> None:
        if self.last is not None and t.grad_fn is None:  # an op's g is kept with its step
            self.last.leaves[id(t)] = (t, g)

    def on_step(self, t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        last = self.last
        if last is not None:
            last.steps.append(Step(len(last.steps) + 1, t, g, tuple(sent)))

    def on_leaf(self, leaf: Tensor, g: Tensor, total: Tensor) -> None:
        if self.last is not None:
            self.last.grads.append((leaf, g, total))
