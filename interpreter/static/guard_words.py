"""How a trace's guards read as text: the decisions a note names ("the condition `x.sum() > 0` on
line 3"), and each guard on a value as `dg static` and static_info list it. The descriptions they
put in words are guard_model.py's."""

from __future__ import annotations

from typing import Any

from .guard_model import SAME, TENSOR, UNREAD, described_text


def decision_text(guard: Any) -> str:
    """A decision a trace guards, as a note names it: "the condition `x.sum() > 0` on line 3"."""
    span = getattr(guard.site, "span", None)
    if span is None:
        return "a value the trace depended on"
    line = span.source.line(span.line)
    text = line[span.column - 1 : span.end_column - 1 if span.end_line == span.line else None].strip()
    if guard.how == "count":  # a bool index: the number of elements it picks
        return f"the number of elements `{text}` on line {span.line} picks"
    return f"the condition `{text}` on line {span.line}" if guard.how == "bool" else f"`{text}` on line {span.line}"


def guard_text(label: str, described: Any, owners: dict[int, str], read: bool) -> str:
    """One guard on a value, as `dg static` and static_info list it."""
    kind = described[0]
    if kind == TENSOR:
        _, shape, dtype, requires_grad, leaf, grad = described
        text = f"{label} is a {dtype}[{', '.join(map(str, shape))}] tensor"
        text += " computed by an op" if not leaf else " that requires grad" if requires_grad else ""
        text += ", its .grad set" if grad is not None and grad is not UNREAD else ""
        return text + (", its values read again at each call" if read else "")
    if kind == SAME:
        return (
            f"{label} is {owners.get(described[1], 'a tensor met before')}"
            if described[1] >= 0
            else f"{label} is a list or dict met before"
        )
    if kind is object:
        return f"{label} is {described_text(described)}"
    return f"{label} == {described_text(described)}"
