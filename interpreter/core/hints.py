"""Hints: the `help:` lines that explain a likely cause, kept apart from the semantics they explain.

Each hint is decided from what the compiler sees in the text (is this operand a `.grad`? a call?)
and what the value turned out to be at run time; it only adds a help line to an error that has none.
"""

from __future__ import annotations

from typing import Any

from . import ast
from .errors import DGError
from .source import Span


def why_none(node: ast.Expr) -> str | None:
    """A hint for when `node` turns out to be None where a value was needed."""
    if isinstance(node, ast.Attribute) and node.name == "grad":
        return "this .grad is None: no gradient has reached it yet (only leaves with requires_grad=True keep one)"
    if isinstance(node, ast.Call):
        return "the call gave None: a function that ends without `return` gives None"
    return None


def explained(error: DGError, value: Any, hint: str | None) -> DGError:
    """`error`, with `hint` as its help line if the value in question was None."""
    if value is None and hint is not None and error.help is None:
        error.help = hint
    return error


def rebound_parameter(error: DGError, rebound: tuple[str, Span] | None) -> DGError:
    """`grad` of something that requires no grad, after `w = w - lr * w.grad` inside `no_grad`."""
    if rebound is not None:
        name, where = rebound
        error.help = (
            f"'{name}' was rebound inside `no_grad` on line {where.line}, so it is no longer a leaf "
            f"that requires grad; update it in place instead: `{name} -= ...`"
        )
    return error
