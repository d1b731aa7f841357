"""The names a program defines, read from its AST: each function, parameter and variable, where its
name is written, and the function it belongs to (None at the top level).

Scopes follow the resolver's (semantics/resolver.py): a function's locals are its parameters and the
names it assigns anywhere in its body; everything else is the program's top level. A comprehension's
variables live only inside it and are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.semantics import ast_nodes as ast


@dataclass(frozen=True, eq=False)
class Definition:
    name: str
    kind: str  # "function", "parameter", "variable"; "module" (`import nn`), "imported" (`from nn import f`)
    span: Span  # the name where it is defined
    scope: ast.FunctionDef | None  # the function it is local to; None at the top level
    node: ast.FunctionDef | None = None  # for a function: its `def`
    signature: str = ""  # for a function: "loss(w, lr=0.1)"


def definitions(module: ast.Module) -> list[Definition]:
    """Every definition in the program, in the order of the text."""
    found: list[Definition] = []
    body_definitions(module.body, None, found)
    return found


def body_definitions(body: list[ast.Stmt], scope: ast.FunctionDef | None, found: list[Definition]) -> None:
    for statement in body:
        match statement:
            case ast.Assign(target=target) | ast.AugAssign(target=target):
                found.extend(Definition(n.name, "variable", n.span, scope) for n in assigned(target))
            case ast.For(targets=targets, body=inner):
                found.extend(Definition(t, "variable", for_target_span(statement, t), scope) for t in targets)
                body_definitions(inner, scope, found)
            case ast.FunctionDef(name=name, params=params, body=inner):
                found.append(
                    Definition(name, "function", def_name_span(statement), scope, statement, signature(statement))
                )
                found.extend(Definition(p.name, "parameter", p.span, statement) for p in params)
                body_definitions(inner, statement, found)
            case ast.If(branches=branches, orelse=orelse):
                for _, inner in branches:
                    body_definitions(inner, scope, found)
                body_definitions(orelse or [], scope, found)
            case ast.While(body=inner) | ast.With(body=inner):
                body_definitions(inner, scope, found)
            case ast.Import(modules=modules):
                found.extend(Definition(m.name, "module", m.span, scope) for m in modules)
            case ast.FromImport(names=names):
                found.extend(Definition(n.name, "imported", n.span, scope) for n in names)


def assigned(target: ast.Expr) -> Iterator[ast.Name]:
    """The names an assignment stores (`a, b = ...` stores two; `x[0] = ...` none)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.TupleExpr):
        for item in target.items:
            yield from assigned(item)


def signature(node: ast.FunctionDef) -> str:
    """How the `def` is written: "loss(w, lr=0.1)"."""
    params = [p.name if p.default is None else f"{p.name}={written(p.default.span)}" for p in node.params]
    return f"{node.name}({', '.join(params)})"


def written(span: Span) -> str:
    """The text at a span (a default value: one line, shortened)."""
    if span.line != span.end_line:
        return "..."
    text = span.source.line(span.line)[span.column - 1 : span.end_column - 1]
    return text if len(text) <= 20 else text[:17] + "..."


def def_name_span(node: ast.FunctionDef) -> Span:
    return name_on_line(node.span, rf"def\s+({re.escape(node.name)})\b")


def for_target_span(node: ast.For, target: str) -> Span:
    return name_on_line(node.span, rf"for\b[^:]*?\b({re.escape(target)})\b")


def name_on_line(span: Span, pattern: str) -> Span:
    """The span of the name the pattern's group finds on the statement's first line; the
    statement's start if it is not there (a name written on a continuation line)."""
    line = span.source.line(span.line)
    found = re.compile(pattern).search(line, span.column - 1)
    if found is None:
        return Span(span.source, span.line, span.column, span.line, span.column + 1)
    return Span(span.source, span.line, found.start(1) + 1, span.line, found.end(1) + 1)


# ---- where a name is, and what it means there -------------------------------------------------
DEF = re.compile(r"\s*def\s+([^\W\d]\w*)")


def functions_at(found: list[Definition], lines: Sequence[str], line: int, column: int) -> list[ast.FunctionDef]:
    """The `def`s around a position (1-based), innermost first, told by the indentation of the
    text as it is now: a line being typed belongs to the function it is indented under, though
    the text no longer parses and `found` is from the last version that did."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    indent = indentation(text) if text[: column - 1].strip() else column - 1
    heads: list[tuple[str, int]] = []  # (name, line) of each enclosing `def`, innermost first
    own = DEF.match(text)
    if own is not None and column > own.end(1):  # on a def's own line, after its name: its parameters
        heads.append((own[1], line))
    for number in range(min(line, len(lines) + 1) - 1, 0, -1):
        previous = lines[number - 1]
        if indent == 0:
            break
        if not previous.strip() or previous.lstrip().startswith("#") or indentation(previous) >= indent:
            continue
        indent = indentation(previous)
        head = DEF.match(previous)
        if head is not None:
            heads.append((head[1], number))
    around: list[ast.FunctionDef] = []
    scope: ast.FunctionDef | None = None
    for name, number in reversed(heads):  # outermost first: each `def` is looked for inside the last
        candidates = [d.node for d in found if d.node is not None and d.name == name and d.scope is scope]
        if not candidates:
            break
        scope = min(candidates, key=lambda node: abs(node.span.line - number))
        around.insert(0, scope)
    return around


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def definition_of(found: list[Definition], name: str, around: list[ast.FunctionDef]) -> Definition | None:
    """Where `name`, read inside the functions `around` (innermost first), is defined: the
    innermost that has it as a local (its first definition there), else the top level's first."""
    for scope in [*around, None]:
        for definition in found:
            if definition.name == name and definition.scope is scope:
                return definition
    return None


def visible(found: list[Definition], around: list[ast.FunctionDef]) -> dict[str, Definition]:
    """The names defined in the scopes around a place, each with the definition it means there."""
    names: dict[str, Definition] = {}
    for scope in [None, *reversed(around)]:  # inner scopes win
        for definition in reversed(found):  # the first definition of a scope wins
            if definition.scope is scope:
                names[definition.name] = definition
    return names


def nodes(root: object) -> Iterator[object]:
    """Every AST node under `root` (itself included), without recursion: a hostile program's
    nesting is bounded only by what the parser accepts."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, list | tuple):
            stack.extend(reversed(node))
            continue
        for name in children_of(type(node)) or ():
            value = getattr(node, name)
            if isinstance(value, list | tuple) or children_of(type(value)) is not None:
                stack.append(value)


FIELDS: dict[type, tuple[str, ...] | None] = {}


def children_of(kind: type) -> tuple[str, ...] | None:
    """The fields of an AST node class that may hold nodes (all but its span), read once per
    class; None for what is not a node."""
    if kind not in FIELDS:
        is_node = issubclass(kind, ast.Node)
        FIELDS[kind] = tuple(name for name in kind.fields() if name != "span") if is_node else None
    return FIELDS[kind]
