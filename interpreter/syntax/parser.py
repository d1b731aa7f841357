"""Text → AST, in two ways with one result.

lark's path is the pipeline as a textbook draws it: lark's lexer and LALR parser, built from
grammar/dg.lark (grammar.py), with the indenter (indenter.py) between them, make a parse tree,
and tree_to_ast.py turns it into the AST; a failure becomes a syntax error a student can act on
(syntax_errors.py). Read it first.

The fast path (fast/) is an accelerator for programs that parse: the same LALR table, kept as
data, driven by a loop of DG's own that calls tree_to_ast.py's methods as it reduces, with no
parse tree and without importing lark (which takes longer to start than most programs take to
run). It gives up on anything it does not expect, and lark's path takes over, so every syntax
error is worded by lark's path. `DG_PARSER=lark` in the environment turns the fast path off;
`dg parse --tokens` shows the tokens of the path that ran, and says which path it was and why
(`which_path`): after an edit of grammar/dg.lark, for example, the fast path's tables are out of
date and lark's path parses everything until they are written again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.fast import fast_parser
from dglang.interpreter.syntax.fast.lalr_tables import COMMAND

from .indenter import with_newline
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
__all__ = [
    "fast_path_on",
    "lark_loading",
    "which_path",
    "parse",
    "parse_expression",
    "parse_tree",
    "parse_with_lark",
    "too_deeply_nested",
    *LARK_NAMES,
]


def __getattr__(name: str) -> Any:
    """`from .parser import LARK` and the like: import the lark-based module that has it."""
    if name not in LARK_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{LARK_NAMES[name]}", __package__), name)


def parse(source: Source) -> ast.Module:
    """Parse a whole program (or REPL cell) into an AST, or raise a located SyntaxError."""
    if fast_path_on():
        module = fast_parser.parse(source, with_newline(source.text), "start", expression_parser(source))
        if module is not None:
            return module
    with LOADING_LARK.get()():
        from . import grammar  # noqa: F401  (lark builds DG's parser when this is first imported)
    return parse_with_lark(source)


def fast_path_on() -> bool:
    """Is the fast path tried first? Yes, unless the environment says DG_PARSER=lark."""
    return os.environ.get("DG_PARSER", "fast") != "lark"


def which_path(source: Source) -> tuple[str, str]:
    """Which path parses `source` ("fast" or "lark"), and why, in a student's words."""
    if not fast_path_on():
        return "lark", "DG_PARSER=lark in the environment turns the fast parser off"
    if fast_parser.PARSER is None:
        why = "the fast parser's tables are missing, or were made from another grammar/dg.lark"
        return "lark", f"{why}; write them again with `{COMMAND}`"
    if fast_parser.tokens(source, with_newline(source.text), expression_parser(source)) is None:
        return "lark", "the fast parser declined this text (it does not parse); lark says what is wrong"
    return "fast", "interpreter/syntax/fast/ runs lark's tables for grammar/dg.lark without loading lark"


# What a host does around lark's start-up, the first time a program needs lark (a session under
# --timeout stops its clock there: the time is DG's, not the program's). Set for a parse with
# `lark_loading`; a context variable, so that parses in two threads each see their own.
LOADING_LARK: ContextVar[Callable[[], AbstractContextManager[Any]]] = ContextVar("LOADING_LARK", default=nullcontext)


@contextmanager
def lark_loading(around: Callable[[], AbstractContextManager[Any]]) -> Iterator[None]:
    """Parses while this lasts do `around()` around lark's start-up, should they need lark."""
    token = LOADING_LARK.set(around)
    try:
        yield
    finally:
        LOADING_LARK.reset(token)


def parse_expression(text: str, source: Source, line: int, column: int) -> ast.Expr:
    """Parse an expression embedded in a line (an f-string's {...}) so its spans land where it is:
    parsed alone, its spans shifted to its line and column (padded to its column, each of a long
    f-string's expressions cost time in its column: quadratic in the f-string)."""
    if fast_path_on():
        if fast_parser.is_name(text):  # the commonest, `{loss}`: a name needs no parser
            return ast.Name(Span(source, line, column, line, column + len(text)), text)
        expr = fast_parser.parse(source, text, "test", expression_parser(source), line - 1, column - 1)
        if expr is not None:
            return expr
    return parse_expression_with_lark(text, source, line, column)


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
