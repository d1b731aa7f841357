"""`dg parse`: the AST as an indented tree, or the token stream the parser reads."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import Any

from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.fast import fast_parser
from dglang.interpreter.syntax.indenter import DEDENT, INDENT, with_newline
from dglang.interpreter.syntax.parser import expression_parser, lex, which_path

SKIP = ("span", "else_line")


def is_plain(value: Any) -> bool:
    """A field printed on the node's own line (a name, an operator, a literal), not as a child."""
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value) and bool(value)
    return not isinstance(value, ast.Node) and not isinstance(value, tuple)


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
    for name in node.fields():
        value = getattr(node, name)
        if name in SKIP or not is_plain(value) or (value is None and not isinstance(node, ast.Constant)):
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
    for name in node.fields():
        value = getattr(node, name)
        if name in SKIP or is_plain(value):
            continue
        if isinstance(value, list) and value and isinstance(value[0], ast.Stmt):
            out.append((value, depth, name))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, tuple):  # keyword arguments: (name, value)
                    out.append((item[1], depth, f"{item[0]}="))
                else:
                    out.append((item, depth, name))
        elif isinstance(value, ast.Node):
            out.append((value, depth, name))
    return out


def token_rows(source: Source) -> Iterator[str]:
    """Each token the parser reads, with its line:col and type; _INDENT and _DEDENT are the
    indenter's. They come from the parser that reads the text (parser.which_path): after a
    grammar edit, lark's until the fast parser's tables are written again; up to the first error."""
    text = with_newline(source.text)
    path, _ = which_path(source)
    fast = fast_parser.tokens(source, text, expression_parser(source)) if path == "fast" else None
    if fast is None:
        read: Iterable[tuple[str, int, int, int, str]] = ((t.type, t.line, t.column, t.end_line, t) for t in lex(text))
    else:
        starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
        place = lambda at: (bisect_right(starts, at), at - starts[bisect_right(starts, at) - 1] + 1)
        read = ((kind, *place(start), place(end)[0], text[start:end]) for kind, start, end in fast)
    for kind, line, column, end_line, value in read:
        shown = repr(str(value))
        if len(shown) > 40:  # a _NEWLINE that swallowed comments and blank lines
            shown = shown[:36] + "...'"
        if kind in (INDENT, DEDENT):  # placed at the newline before: shown where the indentation ends
            line, column, shown = end_line, len(value.rsplit("\n", 1)[-1]) + 1, ""
        yield f"{line}:{column}".ljust(8) + f"{kind:<10} {shown}".rstrip() + "\n"
