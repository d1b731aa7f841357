"""`dg --trace`: each node as it is recorded, and each step of each backward, as it happens.

    [trace] record  line 9   Mul      (3,), () -> (3,)   x * 2
    [trace] grad    line 15  output_positive.sum()
    [trace]   step 1  Sum (line 15) receives 1
    [trace]           -> Mul (line 9): [1., 1., 1.]
    [trace]   input_positive.grad += [2., 2., 2.]  now [2., 2., 2.]

After `limit` lines it stops printing and, at the end, says how much it left out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.source import Site

from .values import compact, line_of, shorten, source_text

PREFIX = "[trace] "


class Tracer:
    """Listens to the engine (autograd's Recording) and writes each event as a line."""

    hears_each_step = True  # a static call runs as it is while one listens (static/trace_steps.py: watched)

    def __init__(self, write: Callable[[str], None], limit: int = 300) -> None:
        self.write = write
        self.limit = limit
        self.shown = 0
        self.skipped = 0
        self.recorded = 0
        self.steps = 0  # in the current backward
        self.all_steps = 0

    def emit(self, text: str) -> None:
        if self.shown < self.limit:
            self.shown += 1
            self.write(PREFIX + text + "\n")
        else:
            self.skipped += 1

    # ---- forward -------------------------------------------------------------------------
    def on_record(self, t: Tensor) -> None:
        self.recorded += 1
        node = t.grad_fn
        assert node is not None
        shapes = ", ".join(str(i.shape) for i in node.inputs)
        site = node.where
        self.emit(f"record  {where(site):<8} {node.op.name:<9} {shapes} -> {t.shape}   {code(site)}".rstrip())

    # ---- backward ------------------------------------------------------------------------
    def on_backward(self, root: Tensor, seed: Tensor) -> None:
        site = recording.where  # the grad statement (or gradient() call) that started the pass
        self.steps = 0
        self.emit(f"grad    {where(site):<8} {code(site)}".rstrip())

    def on_step(self, t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        self.steps += 1
        self.all_steps += 1
        node = t.grad_fn
        assert node is not None
        self.emit(f"  step {self.steps}  {name(t)} receives {compact(g.data)}")
        for inp, gi in zip(node.inputs, sent, strict=True):
            if gi is not None and inp.requires_grad:
                summed = f" (summed to {inp.shape})" if gi.shape != inp.shape else ""
                self.emit(f"          -> {name(inp)}: {compact(gi.data)}{summed}")

    def on_leaf(self, leaf: Tensor, g: Tensor, total: Tensor) -> None:
        self.emit(f"  {leaf.name or 'leaf'}.grad += {compact(g.data)}  now {compact(total.data)}")

    def summary(self) -> None:
        if self.skipped:
            self.write(
                f"{PREFIX}... {self.skipped:,} more trace lines not shown ({self.recorded:,} nodes recorded, "
                f"{self.all_steps:,} backward steps in all); --trace-limit N shows more\n"
            )


def where(site: Site | None) -> str:
    return line_of(site.span) if site is not None else ""


def code(site: Site | None) -> str:
    return shorten(source_text(site.span), 50) if site is not None else ""


def name(t: Tensor) -> str:
    """A tensor as the trace calls it: its op and line, or its variable name."""
    node = t.grad_fn
    if node is None:
        return t.name or "leaf"
    site = node.where
    return f"{node.op.name} ({where(site)})" if site is not None else node.op.name
