"""`dg parse`: the AST as an indented tree, or the token stream the parser reads."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.parser import lex

SKIP = ("span", "else_line")


def is_plain(value: Any) -> bool:
    """A field printed on the node's own line (a name, an operator, a literal), not as a child."""
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value) and bool(value)
    return not is_dataclass(value) and not isinstance(value, tuple)


def dump_ast(module: ast.Module) -> str:
    """One line per node: its type, its inline fields, and line:col; children indented below."""
    lines = ["Module"]
    stack: list[tuple[Any, int, str]] = [(s, 1, "") for s in reversed(module.body)]
    while stack:
        node, depth, role = stack.pop()
        pad = indent(depth)
        if isinstance(node, list):  # a block: the statements under a label
            lines.append(f"{pad}{role}:")
            stack.extend((s, depth + 1, "") for s in reversed(node))
            continue
        lines.append(f"{pad}{role + ': ' if role else ''}{headline(node)}")
        stack.extend(reversed(children(node, depth + 1)))
    return "\n".join(lines) + "\n"


MAX_INDENT = 64  # levels drawn as indentation; deeper ones say their depth instead


def indent(depth: int) -> str:
    """Two spaces a level: a sum of 100,000 terms nests 100,000 deep, and its picture would take
    gigabytes, so from MAX_INDENT on the depth is written as a number."""
    return "  " * depth if depth <= MAX_INDENT else "  " * MAX_INDENT + f"[{depth}] "


def headline(node: Any) -> str:
    parts = [type(node).__name__]
    for f in fields(node):
        value = getattr(node, f.name)
        if f.name in SKIP or not is_plain(value) or (value is None and not isinstance(node, ast.Constant)):
            continue
        if isinstance(value, list):
            parts.append(", ".join(value))
        else:
            parts.append(repr(value) if isinstance(node, ast.Constant) else str(value))
    if isinstance(node, ast.FunctionDef):
        parts.append("(" + ", ".join(p.name for p in node.params) + ")")
    span = getattr(node, "span", None)
    if isinstance(span, Span):
        parts.append(f"{span.line}:{span.column}")
    return "  ".join(p for p in parts if p)


def children(node: Any, depth: int) -> list[tuple[Any, int, str]]:
    """The sub-nodes to print under `node`, each with the role it plays."""
    out: list[tuple[Any, int, str]] = []
    if isinstance(node, ast.If):
        for i, (condition, body) in enumerate(node.branches):
            out.append((condition, depth, "if" if i == 0 else "elif"))
            out.append((body, depth, "then"))
        if node.orelse is not None:
            out.append((node.orelse, depth, "else"))
        return out
    if isinstance(node, ast.FunctionDef):
        out.extend((p.default, depth, f"default of {p.name}") for p in node.params if p.default is not None)
        out.append((node.body, depth, "body"))
        return out
    if isinstance(node, ast.DictExpr):
        for key, value in node.items:
            out.extend([(key, depth, "key"), (value, depth, "value")])
        return out
    if isinstance(node, ast.FString):
        for part in node.parts:
            if not isinstance(part, str):
                out.append((part.expr, depth, f"format {part.spec!r}" if part.spec else "format"))
        return out
    for f in fields(node):
        value = getattr(node, f.name)
        if f.name in SKIP or is_plain(value):
            continue
        if isinstance(value, list) and value and isinstance(value[0], ast.Stmt):
            out.append((value, depth, f.name))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, tuple):  # keyword arguments: (name, value)
                    out.append((item[1], depth, f"{item[0]}="))
                else:
                    out.append((item, depth, f.name))
        elif is_dataclass(value):
            out.append((value, depth, f.name))
    return out


def dump_tokens(text: str) -> str:
    """Each token with its line:col and type; _INDENT and _DEDENT are the indenter's."""
    rows = []
    for token in lex(text):
        line, column, value = token.line, token.column, repr(str(token))
        if len(value) > 40:  # a _NEWLINE that swallowed comments and blank lines
            value = value[:36] + "...'"
        if token.type in ("_INDENT", "_DEDENT"):
            # lark places these at the newline before; show them where the indentation ends
            line, column, value = token.end_line, len(token) + 1, ""
        rows.append(f"{line}:{column}".ljust(8) + f"{token.type:<10} {value}".rstrip())
    return "\n".join(rows) + "\n"
