"""Anomaly detection, like PyTorch's: find the op whose derivative rule first made a nan or inf.

`dg --detect-anomaly FILE.dg`, or `with detect_anomaly:` around the `grad`, checks every
gradient each backward step sends. When a step receives a finite gradient and sends back a nan
or an inf, that op produced it: the error points at the op's own source line (each recorded node
carries its span as `where`), not at the `grad` statement, which is usually far away.

The engine knows nothing of this: the check is a listener of its backward steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import WithContext


class AnomalyCheck:
    """Listens to each backward step and stops at the first whose rule sent back a nan or an inf
    from a finite gradient (`dg --detect-anomaly` keeps one listening for every run)."""

    hears_each_step = True  # a static call runs as it is while one listens (static/trace_steps.py: watched)

    def on_step(self, t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        for i, gi in enumerate(sent):
            if gi is not None and not np.isfinite(gi.data).all() and np.isfinite(g.data).all():
                raise anomaly(t, i, gi)


@dataclass(slots=True, eq=False, repr=False)  # its own __repr__ below
class AnomalyMode(WithContext):
    """The value of `detect_anomaly`, used as `with detect_anomaly:`: a check listens inside the block."""

    def enter(self) -> AnomalyCheck:
        check = AnomalyCheck()
        recording.listen(check)
        return check

    def exit(self, check: AnomalyCheck) -> None:
        recording.stop_listening(check)

    def __repr__(self) -> str:
        return "<context detect_anomaly>"


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
