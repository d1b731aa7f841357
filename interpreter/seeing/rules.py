"""An edge's rule with its numbers: `a: g·b = 1·2 = 2`, read from the op's own declaration.

The rule's text is the one the op declares (autograd/op.py); the numbers come from the pass
drawn: `g` is the gradient that arrived at the op, the input names stand for the inputs' values,
and the result is what the rule sent along this edge. Values are put into the text only when all
of them are small enough to read; otherwise the edge shows the rule and the result alone.
"""

from __future__ import annotations

import re

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.op import Op

from .values import MOST, nested, summary

WORD = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"  # a name standing alone: `b` in `g·b`, not in `broadcast`


def rule_label(op: type[Op], position: int) -> str:
    """Which input this edge feeds and what the op's rule sends it, `a: g·b` (declared with the op)."""
    name, text = op.rule_for(position)
    return f"{name}: {text}"


def filled_in(op: type[Op], position: int, out: Tensor, g: Tensor) -> str | None:
    """The rule for input `position` with the numbers of this pass put in (`1·2`), or None when a
    value is too large to write out or the rule names nothing the picture knows."""
    _, text = op.rule_for(position)
    inputs = out.grad_fn.inputs if out.grad_fn is not None else ()
    values: dict[str, object] = {"g": g.data}
    if not op.variadic:
        values.update({name: t.data for name, t in zip(op.inputs, inputs, strict=False)})
    for name, find in op.terms:
        try:
            values[name] = find(inputs, out)
        except Exception:  # a term the recorded inputs cannot give: leave the name in the text
            continue
    used = [name for name in values if re.search(WORD.format(re.escape(name)), text)]
    if text.strip() in values:  # the rule is one value (`g`): the result says it all
        return None
    words = set(re.findall(r"[A-Za-z]+", text)) - set(values)
    if used == ["g"] and words:  # `g, broadcast`: a value put in says nothing the result does not
        return None
    if not used or any(np.size(values[name]) > MOST for name in used):  # type: ignore[arg-type]
        return None
    filled = text
    for name in used:
        filled = re.sub(WORD.format(re.escape(name)), lambda m, v=values[name]: operand(v), filled)
    return filled


def operand(value: object) -> str:
    """A value as an operand inside a formula: a negative number in brackets, `1·(-2)`."""
    text = nested(np.asarray(value))
    return f"({text})" if text.startswith("-") else text


def numbers(op: type[Op], position: int, out: Tensor, g: Tensor, sent: Tensor, shape: tuple[int, ...]) -> str:
    """What follows the rule on a drawn edge: `= 1·2 = 2`; for a gradient summed back over
    broadcast axes, also what the input finally got."""
    filled = filled_in(op, position, out, g)
    _, text = op.rule_for(position)
    parts = [] if filled is None or filled == text else [f"= {filled}"]
    parts.append(f"= {summary(sent.data)}")
    if sent.shape != shape:
        parts[-1] += ","
        parts.append(f"summed to {shape}: {summary(arrived(sent, shape).data)}")
    return " ".join(parts)


def arrived(sent: Tensor, shape: tuple[int, ...]) -> Tensor:
    """What an input of shape `shape` got from `sent`: summed over the axes it was broadcast along,
    as backward does (with the engine's own sum_to, on a copy that records nothing)."""
    return sent if sent.shape == shape else Tensor(sent.data).sum_to(shape)
