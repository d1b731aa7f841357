"""The syntax tree of a program read past its mistakes (recovery.py): what a broken statement
seems to define, and the tree built with each statement that cannot be built made a `pass`."""

from __future__ import annotations

from typing import Any

from lark import Token

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.semantics import ast_nodes as ast

from .parser import builder


def names_defined(statement: list[Token]) -> set[str]:
    """The names a broken statement's first tokens show it defines: `def f`, `for a, b in`, `x, y =`."""
    kinds = [t.type for t in statement]
    if kinds[:2] == ["DEF", "NAME"]:
        return {str(statement[1])}
    if kinds[:1] == ["FOR"]:
        return {str(t) for t in statement[1 : [*kinds, "IN"].index("IN")] if t.type == "NAME"}
    names: set[str] = set()
    for token in statement:
        if token.type == "NAME":
            names.add(str(token))
        elif token.type != "COMMA":
            return names if token.type in ("EQUAL", "AUG_OP", "IN") else set()
    return set()


# ---- the syntax tree, each statement that cannot be built made a `pass` ---------------------------
BROKEN: Any = object()  # what a rule becomes when building it, or a part of it, failed (reported)
STATEMENTS = {
    "assign",
    "aug_assign",
    "expr_stmt",
    "pass_stmt",
    "break_stmt",
    "continue_stmt",
    "return_stmt",
    "grad_stmt",
    "assert_stmt",
    "if_stmt",
    "while_stmt",
    "for_stmt",
    "funcdef",
    "with_stmt",
}


class RecoveringBuilder:
    """The AST builder (tree_to_ast.py), whose mistakes (`f() = 1`, `f"{x +}"`) make their
    statement a `pass` and are added to `errors`, with the parser's."""

    def __init__(self, source: Source, errors: list[DGError]) -> None:
        self.rules = builder(source)
        self.errors = errors

    def __getattr__(self, rule: str) -> Any:
        method = getattr(self.rules, rule)

        def build(meta: Any, children: list[Any]) -> Any:
            if not any(child is BROKEN for child in children):
                try:
                    return method(meta, children)
                except DGError as e:
                    self.errors.append(e)
            return ast.Pass(self.rules.span(meta)) if rule in STATEMENTS else BROKEN

        return build
