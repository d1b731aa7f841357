"""Text → AST: lark parses the text with DG's grammar, build_ast turns the tree into AST nodes, and
a failure becomes a syntax error a student can act on (syntax_errors.py)."""

from __future__ import annotations

from lark import Tree, UnexpectedInput

from . import ast
from .build_ast import ASTBuilder
from .errors import DGError
from .grammar import GRAMMAR, LARK, interactive, keywords, lex, tokens, with_newline
from .indenter import Indenter, SyntaxProblem
from .source import Source, Span
from .syntax_errors import syntax_error

# Also the parser's names for what front ends and tools use.
__all__ = [
    "GRAMMAR",
    "LARK",
    "Indenter",
    "SyntaxProblem",
    "interactive",
    "keywords",
    "lex",
    "parse",
    "parse_expression",
    "parse_tree",
    "syntax_error",
    "tokens",
    "too_deeply_nested",
]


def parse(source: Source) -> ast.Module:
    """Parse a whole program (or REPL cell) into an AST, or raise a located SyntaxError."""
    try:
        tree = LARK.parse(with_newline(source.text), start="start")
    except (UnexpectedInput, SyntaxProblem) as e:
        raise syntax_error(e, source) from None
    try:
        return builder(source).transform(tree)
    except RecursionError:
        raise too_deeply_nested(tree, source) from None


def parse_tree(source: Source) -> Tree:
    """lark's parse tree of a program already known to parse."""
    return LARK.parse(with_newline(source.text), start="start")


def parse_expression(text: str, source: Source, line: int, column: int) -> ast.Expr:
    """Parse an expression embedded in a line (an f-string's {...}) so its spans land where it is."""
    padded = " " * (column - 1) + text  # so lark's columns are the line's
    try:
        tree = LARK.parse(padded, start="test")
    except (UnexpectedInput, SyntaxProblem) as e:
        error = syntax_error(e, source, parsed=padded, in_fstring=True)
        if error.span is not None:
            error.span = Span(source, line, error.span.column, line, error.span.end_column)
        raise error from None
    return builder(source, line_offset=line - 1).transform(tree)


def builder(source: Source, line_offset: int = 0) -> ASTBuilder:
    """The AST builder for `source`; it parses the expressions inside f-strings with parse_expression."""
    return ASTBuilder(source, lambda text, line, column: parse_expression(text, source, line, column), line_offset)


def too_deeply_nested(tree: Tree, source: Source) -> DGError:
    """The error for a program nested deeper than the (recursive) AST builder and compiler can go:
    10,000 unary minuses, a sum of 100,000 terms, 1,000 nested blocks. Located at the deepest point,
    found by a walk that needs no recursion itself."""
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
