"""Anomaly detection, like PyTorch's: find the op whose derivative rule first made a nan or inf.

`dg --detect-anomaly FILE.dg`, or `with detect_anomaly:` around the `grad`, checks every
gradient each backward step sends. When a step receives a finite gradient and sends back a nan
or an inf, that op produced it: the error points at the op's own source line (each recorded node
carries its span as `where`), not at the `grad` statement, which is usually far away.

The engine knows nothing of this: the check rides on its `recording.on_step` hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.core.errors import DGError

StepHook = Callable[[Tensor, Tensor, tuple[Any, ...]], None]


@dataclass(slots=True, eq=False)
class AnomalyMode:
    """The value of `detect_anomaly`, used as `with detect_anomaly:`."""

    dg_type_name: ClassVar[str] = "context"

    def enter(self) -> StepHook | None:
        """Install the check (after whatever hook is there, such as a tracer); return that hook."""
        previous = recording.on_step
        recording.on_step = checking(previous)
        return previous

    def exit(self, previous: StepHook | None) -> None:
        recording.on_step = previous

    def __repr__(self) -> str:
        return "<context detect_anomaly>"


def checking(then: StepHook | None) -> StepHook:
    def on_step(t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        if then is not None:
            then(t, g, sent)
        for i, gi in enumerate(sent):
            if gi is not None and not np.isfinite(gi.data).all() and np.isfinite(g.data).all():
                raise anomaly(t, i, gi)

    return on_step


def anomaly(t: Tensor, index: int, gradient: Tensor) -> DGError:
    """The error naming the op (and, through where it was recorded, the source line) that made a nan or inf."""
    node = t.grad_fn
    assert node is not None
    what = "nan" if np.isnan(gradient.data).any() else "inf"
    count = len(node.inputs)
    if count == 1:
        to = "its input"
    else:
        to = f"its {ORDINALS[index]} input" if index in ORDINALS else f"its input number {index + 1}"
    site, call = node.where, node.call
    inside = f" in {call.function}()" if call is not None else ""
    cause = node.op.nan  # the likely causes the op's declaration names
    return DGError(
        "GradError",
        f"the derivative of {node.op.name}{inside} sent {what} back to {to}",
        site.span if site is not None else None,
        help="found by detect_anomaly: the gradient arriving here was finite" + (f"; {cause}" if cause else ""),
    )


ORDINALS = {0: "first", 1: "second", 2: "third"}
