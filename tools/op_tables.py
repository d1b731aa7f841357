"""The tables of docs/language.md that list the ops, written from their declarations: the builtins
that are ops, the tensor methods, and the derivative rules.

A row says what `:help` says, which help reads from the declarations (the signature, the first line
of the docstring, the ops recorded); a derivative rule is the op's rule text and its `note`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import regions

from dglang.autograd.op import Op
from dglang.autograd.table import FUNCTIONS, OP_MODULES, PublicFunction, declared_in
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.library.attributes import TENSOR_METHODS
from dglang.interpreter.library.help import ENGINE, METHODS, OPERATORS, Help, describe, tensor_member

DOC = Path(__file__).resolve().parents[1] / "docs" / "language.md"
COMMENT = ("<!--", " -->")
# How a program writes the ops it reaches by syntax rather than by name.
SYNTAX = {name: f"a {symbol} b" for symbol, name in OPERATORS.items()} | {"neg": "-a", "getitem": "a[i]"}


def code(text: str) -> str:
    return f"`{text}`"


def row(*cells: str) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n"


def derivative(f: PublicFunction | None) -> str:
    """Whose rules a function's gradient goes through: the ops it records, or why there are none."""
    if f is None:
        return ""
    if f.records:
        return ", ".join(op.name for op in f.records)
    op = getattr(f.fn, "op", None)
    return "the ops it is made of" if op is not None and op.composed else "none (a constant)"


def builtin_table(builtins: Mapping[str, Any]) -> str:
    """A row for each builtin that is an op (aliases together), in the order autograd declares them."""
    rows: dict[int, list[tuple[PublicFunction, Help]]] = {}
    for f in FUNCTIONS:
        if hasattr(f.fn, "op") and f.dg_name in builtins and ENGINE[f.dg_name].fn is f.fn:
            entry = describe(f.dg_name, builtins)
            assert entry is not None, f.dg_name
            rows.setdefault(id(f.fn), []).append((f, entry))
    lines = [row("builtin", "result", "derivative"), row("---", "---", "---")]
    for group in rows.values():
        first, entry = group[0]
        names = ", ".join(code(e.signature) for _, e in group) + (" (a number too)" if first.numbers else "")
        lines.append(row(names, entry.summary, derivative(ENGINE.get(first.dg_name))))
    return "".join(lines)


def method_table() -> str:
    """A row for each tensor method a program may call."""
    lines = [row("method", "result", "derivative"), row("---", "---", "---")]
    for name in TENSOR_METHODS:
        entry = tensor_member(name)
        assert entry is not None, name
        lines.append(row(code(entry.signature.removeprefix("x")), entry.summary, derivative(METHODS.get(name))))
    return "".join(lines)


def written(op: type[Op]) -> str:
    """How a program writes the op: `a + b`, `exp(a)`, `a.sum(axis, keepdims)`, or the functions
    made of it (`conv2d(...)`); nothing for one only the gradients of others record."""
    if op.function in SYNTAX:
        return code(SYNTAX[op.function])
    f = next(f for f in FUNCTIONS if getattr(f.fn, "op", None) is op)
    names = [("*" if p.kind is p.VAR_POSITIONAL else "") + p.name for p in inspect.signature(f.fn).parameters.values()]
    if op.builtin:
        return code(f"{op.function}({', '.join(names)})")
    if op.method:
        return code(f"{names[0]}.{op.function}({', '.join(names[1:])})")
    users = [c for module in OP_MODULES for c in declared_in(module) if op in c.made_of]
    return ", ".join(code(f"{c.function}(...)") for c in users)


def rules_table() -> str:
    """A row for each op a function records: how it is written, what each input receives, its note."""
    ops = list(dict.fromkeys(op for f in FUNCTIONS for op in f.records))
    lines = [row("op", "forward", "to the inputs", "notes"), row("---", "---", "---", "---")]
    for op in ops:
        each = "each " if op.variadic else ""
        rules = "; ".join(f"{each}{i}: {code(r)}" for i, r in zip(op.inputs, op.rules, strict=True))
        lines.append(row(op.name, written(op), rules, op.note))
    return "".join(lines)


def rewrite(text: str) -> str:
    """language.md's text with its three op tables as the declarations say."""
    builtins = new_session().builtins.vars
    text = regions.replaced(text, "op builtins", builtin_table(builtins), COMMENT)
    text = regions.replaced(text, "tensor methods", method_table(), COMMENT)
    return regions.replaced(text, "derivative rules", rules_table(), COMMENT)
