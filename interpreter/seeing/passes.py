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
from dglang.interpreter.core.source import Site


@dataclass(eq=False)
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

    received  for each tensor the pass reached, by id: the tensor (kept, so its id stays its own)
              and the whole gradient it received (for a leaf, the sum over the ops that use it)
    leaves    each leaf that accumulated, with what it received and its `.grad` after adding it
    """

    root: Tensor
    seed: Tensor
    site: Site | None  # the `grad` statement (or `gradient()` call) that started it
    steps: list[Step] = field(default_factory=list)
    received: dict[int, tuple[Tensor, Tensor]] = field(default_factory=dict)
    leaves: list[tuple[Tensor, Tensor, Tensor]] = field(default_factory=list)
    step_of: dict[int, Step] = field(default_factory=dict)  # by id of the tensor whose rule ran

    def reached(self, t: Tensor) -> bool:
        return id(t) in self.received

    def gradient_of(self, t: Tensor) -> Tensor | None:
        got = self.received.get(id(t))
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
        if self.last is not None:
            self.last.received[id(t)] = (t, g)

    def on_step(self, t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        last = self.last
        if last is not None:
            step = Step(len(last.steps) + 1, t, g, tuple(sent))
            last.steps.append(step)
            last.step_of[id(t)] = step

    def on_leaf(self, leaf: Tensor, g: Tensor, total: Tensor) -> None:
        if self.last is not None:
            self.last.leaves.append((leaf, g, total))
