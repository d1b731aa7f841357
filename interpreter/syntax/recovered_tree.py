"""The syntax tree of a program read past its mistakes (recovery.py): what a broken statement
seems to define, and the tree of the tokens the reading kept (every statement that parses, and a
`pass` for each broken one), with each statement that cannot be built made a `pass` too.

The reading only decides (its parser builds no tree, which took it a third of its time); the tree
is built once the reading is done, from the tokens it kept, by the fast parser's loop, or by lark's
parser and tree with DG_PARSER=lark or when the fast parser's tables are out of date: the same
tree, as the two parsers give the same tree for any text (test_recovery.py checks it here too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from lark import Token, Tree

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.semantics import ast_nodes as ast

from .fast import fast_parser
from .grammar import LARK, TreeToAST
from .parser import expression_parser, fast_path_on
from .tree_to_ast import ASTBuilder


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
# The nodes of lark's tree, each built by the AST builder's method of its name
NODES = {str(rule.alias or rule.origin.name) for rule in LARK.rules if not rule.origin.name.startswith("_")}
Builder = TypeVar("Builder", bound=ASTBuilder)


def recovering(builder: type[Builder]) -> type[Builder]:
    """The AST builder (tree_to_ast.py, or the fast parser's), whose mistakes (`f() = 1`,
    `f"{x +}"`) make their statement a `pass` and are added to its `errors`, with the parser's."""

    def rule(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def build(self: Any, meta: Any, children: list[Any]) -> Any:
            if not any(child is BROKEN for child in children):
                try:
                    return method(self, meta, children)
                except DGError as e:
                    self.errors.append(e)
            return ast.Pass(self.span(meta)) if name in STATEMENTS else BROKEN

        return build

    methods = {name: rule(name, getattr(builder, name)) for name in NODES if hasattr(builder, name)}
    return type(f"Recovering{builder.__name__}", (builder,), methods)


RecoveringASTBuilder = recovering(ASTBuilder)
RecoveringOffsetBuilder = recovering(fast_parser.OffsetBuilder)


def built(source: Source, text: str, kept: list[Token], errors: list[DGError]) -> ast.Module:
    """The syntax tree of the tokens the reading of `text` kept; the builder's errors added to `errors`."""
    before = len(errors)
    if fast_path_on() and fast_parser.PARSER is not None:
        read = fast_parser.Tokens.read(fast_parser.PARSER, [(t.type, t.start_pos or 0, t.end_pos or 0) for t in kept])
        fast = RecoveringOffsetBuilder(source, text, read, expression_parser(source), 0)
        fast.errors = errors
        try:
            return fast_parser.PARSER.parse(text, "start", fast)
        except fast_parser.Declined:  # (never, while its tables are lark's) lark's path builds it
            del errors[before:]
    lark = RecoveringASTBuilder(source, expression_parser(source))
    lark.errors = errors
    return TreeToAST(lark).transform(parse_tree(kept))


def parse_tree(kept: list[Token]) -> Tree:
    """lark's parse tree of the tokens kept (the last is the end of the input)."""
    parser = LARK.parse_interactive(None, start="start")
    tree = None
    for token in kept:
        tree = parser.feed_token(token)
    assert isinstance(tree, Tree), "the reading keeps the end of the input last"
    return tree
