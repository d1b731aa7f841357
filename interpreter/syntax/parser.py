"""Text → AST, in two ways with one result.

The fast path (fast_parser.py) reads the tokens and runs the LALR table lark made from
grammar/dg.lark (kept as data, grammar_tables.py), calling build_ast's methods as it reduces: no
parse tree, and lark is not even imported. It gives up on anything it does not expect, and then
lark parses the text (grammar.py), build_ast turns lark's parse tree into the same AST, and a
failure becomes a syntax error a student can act on (syntax_errors.py). So every message comes
from lark's path, and a program that parses is parsed quickly.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span, with_newline
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.fast import fast_parser

from .tree_to_ast import ASTBuilder

if TYPE_CHECKING:
    from lark import Tree

# lark's parser and what is made with it (the token stream, the REPL's interactive parser, the
# syntax errors), under the names front ends and tools import from here. They are loaded on first
# use, so that running a program that parses never imports lark (see __getattr__ below).
LARK_NAMES = {
    "GRAMMAR": "grammar",
    "LARK": "grammar",
    "interactive": "grammar",
    "keywords": "grammar",
    "lex": "grammar",
    "tokens": "grammar",
    "Indenter": "indenter",
    "SyntaxProblem": "indenter",
    "syntax_error": "syntax_errors",
}
__all__ = ["parse", "parse_expression", "parse_tree", "parse_with_lark", "too_deeply_nested", *LARK_NAMES]


def __getattr__(name: str) -> Any:
    """`from .parser import LARK` and the like: import the lark-based module that has it."""
    if name not in LARK_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{LARK_NAMES[name]}", __package__), name)


def parse(source: Source, loading_lark: Callable[[], AbstractContextManager[Any]] = nullcontext) -> ast.Module:
    """Parse a whole program (or REPL cell) into an AST, or raise a located SyntaxError.
    `loading_lark` is around lark's start-up, the first time lark is needed (a session under
    --timeout stops the clock there: the time is DG's, not the program's)."""
    module = fast_parser.parse(source, with_newline(source.text), "start", expression_parser(source))
    if module is not None:
        return module
    with loading_lark():
        from . import grammar  # noqa: F401  (lark builds DG's parser when this is first imported)
    return parse_with_lark(source)


def parse_expression(text: str, source: Source, line: int, column: int) -> ast.Expr:
    """Parse an expression embedded in a line (an f-string's {...}) so its spans land where it is:
    parsed alone, its spans shifted to its line and column (padded to its column, each of a long
    f-string's expressions cost time in its column: quadratic in the f-string)."""
    if fast_parser.is_name(text):  # the commonest, `{loss}`: a name needs no parser
        return ast.Name(Span(source, line, column, line, column + len(text)), text)
    expr = fast_parser.parse(source, text, "test", expression_parser(source), line - 1, column - 1)
    return expr if expr is not None else parse_expression_with_lark(text, source, line, column)


def expression_parser(source: Source) -> Any:
    """What the AST builder calls for the expressions inside f-strings."""
    return lambda text, line, column: parse_expression(text, source, line, column)


# ---- lark's path ---------------------------------------------------------------------------------
def parse_with_lark(source: Source) -> ast.Module:
    """lark's parse tree turned into the AST; a failure becomes a syntax error (syntax_errors.py)."""
    from lark import UnexpectedInput

    from .grammar import LARK, TreeToAST
    from .indenter import SyntaxProblem
    from .syntax_errors import syntax_error

    try:
        tree = LARK.parse(with_newline(source.text), start="start")
    except (UnexpectedInput, SyntaxProblem) as e:
        raise syntax_error(e, source) from None
    try:
        return TreeToAST(builder(source)).transform(tree)
    except RecursionError:
        raise too_deeply_nested(tree, source) from None


def parse_expression_with_lark(text: str, source: Source, line: int, column: int) -> ast.Expr:
    """The same on lark's path. A syntax error is looked for again in the text padded to its
    column, so that the error's columns are the line's (once: the error ends the parse)."""
    from lark import UnexpectedInput

    from .grammar import LARK, TreeToAST
    from .indenter import SyntaxProblem
    from .syntax_errors import syntax_error

    try:
        tree = LARK.parse(text, start="test")
    except (UnexpectedInput, SyntaxProblem):
        padded = " " * (column - 1) + text
        try:
            tree = LARK.parse(padded, start="test")
        except (UnexpectedInput, SyntaxProblem) as e:
            error = syntax_error(e, source, parsed=padded, in_fstring=True)
            if error.span is not None:
                error.span = Span(source, line, error.span.column, line, error.span.end_column)
            raise error from None
        return TreeToAST(builder(source, line - 1)).transform(tree)
    return TreeToAST(builder(source, line - 1, column - 1)).transform(tree)


def parse_tree(source: Source) -> Tree:
    """lark's parse tree of a program already known to parse."""
    from .grammar import LARK

    return LARK.parse(with_newline(source.text), start="start")


def builder(source: Source, line_offset: int = 0, column_offset: int = 0) -> ASTBuilder:
    """The AST builder for `source`; it parses the expressions inside f-strings with parse_expression."""
    return ASTBuilder(source, expression_parser(source), line_offset, column_offset)


def too_deeply_nested(tree: Tree, source: Source) -> DGError:
    """The error for a program nested deeper than the (recursive) AST builder and compiler can go:
    10,000 unary minuses, a sum of 100,000 terms, 1,000 nested blocks. Located at the deepest point,
    found by a walk that needs no recursion itself."""
    from lark import Tree

    deepest, where = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest and getattr(node.meta, "line", None) is not None:
            deepest, where = depth, node
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    line, column = getattr(where.meta, "line", 1), getattr(where.meta, "column", 1)
    return DGError(
        "SyntaxError",
        "this is nested too deeply for DG",
        Span(source, line, column, line, column + 1),
        help="DG can follow a few hundred levels of nested brackets, operators and blocks; "
        "split this into smaller expressions, variables or functions",
    )
