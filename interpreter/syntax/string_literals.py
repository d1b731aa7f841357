"""String literals → their values: escapes by Python's rules, and f-strings split into text and
{expression:spec} parts, each expression parsed by the parser the builder was given. A part of the
tree → AST stage (tree_to_ast.py's ASTBuilder inherits these rules), kept apart because an f-string
is a small language of its own inside a token.
"""

from __future__ import annotations

import ast as python_ast
import re
import warnings
from collections.abc import Callable
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.semantics import ast_nodes as ast

BRACE = re.compile(r"[{}]")
Meta = Any
Token = str


class StringLiterals:
    """The rule `string` and what it needs; the builder provides source, span, error and parse_expression."""

    source: Source
    parse_expression: Callable[[str, int, int], ast.Expr]
    span: Callable[[Any], Span]
    error: Callable[..., DGError]

    def string(self, meta: Meta, children: list[Token]) -> ast.Expr:
        """One or more adjacent string literals, joined; f-strings become an FString."""
        parts: list[str | ast.FormattedValue] = []
        for token in children:
            if token[0] in "fF":
                parts.extend(self.fstring_parts(token))
            else:
                parts.append(self.decode(token, str(token)))
        if all(isinstance(p, str) for p in parts):
            return ast.Constant(self.span(meta), "".join(parts))  # type: ignore[arg-type]
        return ast.FString(self.span(meta), parts)

    def decode(self, token: Token, literal: str) -> str:
        """The value of a string literal, escapes and all (Python's rules)."""
        if "\\" not in literal and literal[0] in "'\"":  # no escape, no prefix: the text between the quotes
            return literal[1:-1]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return python_ast.literal_eval(literal)
        except (SyntaxError, ValueError) as e:
            raise self.error(f"invalid string: {e.msg if isinstance(e, SyntaxError) else e}", token) from None

    def fstring_parts(self, token: Token) -> list[str | ast.FormattedValue]:
        """Split f"a {x:.2f} b" into text and {expression:spec} parts, parsing each expression. One
        pass over the body: the text between braces is taken a run at a time."""
        quote, body = token[1], token[2:-1]
        where = self.span(token)
        body_column = where.column + 2  # where `body` starts on the line
        parts: list[str | ast.FormattedValue] = []
        text: list[str] = []  # the literal text since the last expression, in runs
        i = 0
        for brace in BRACE.finditer(body):
            if brace.start() < i:  # inside an expression already parsed
                continue
            text.append(body[i : brace.start()])
            i = brace.start()
            if body.startswith("{{", i) or body.startswith("}}", i):
                text.append(body[i])
                i += 2
                continue
            if body[i] == "}":
                raise self.error("single '}' in an f-string", self.at(where, body_column + i), help="write '}}'")
            end, colon = self.closing_brace(body, i, where, body_column)
            if "".join(text):
                parts.append(self.decode(token, quote + "".join(text) + quote))
            text = []
            expr_end = colon if colon is not None else end
            source = body[i + 1 : expr_end]
            if not source.strip():
                raise self.error("empty expression in an f-string", self.at(where, body_column + i))
            expr = self.parse_expression(source, where.line, body_column + i + 1)
            spec = body[colon + 1 : end] if colon is not None else ""
            parts.append(ast.FormattedValue(expr, spec))
            i = end + 1
        text.append(body[i:])
        if "".join(text):
            parts.append(self.decode(token, quote + "".join(text) + quote))
        return parts

    def closing_brace(self, body: str, start: int, where: Span, body_column: int) -> tuple[int, int | None]:
        """The index of the '}' closing the '{' at `start`, and of a top-level ':' before it."""
        depth, colon = 0, None
        for j in range(start + 1, len(body)):
            c = body[j]
            if c in "([{":
                depth += 1
            elif c in ")]" or (c == "}" and depth > 0):
                depth -= 1
            elif c == "}":
                return j, colon
            elif c == ":" and depth == 0 and colon is None:
                colon = j
        raise self.error(
            "'{' in an f-string is never closed",
            self.at(where, body_column + start),
            help="write '{{' for a literal brace",
        )

    def at(self, where: Span, column: int) -> Span:
        """One character of the line `where` is on."""
        return Span(self.source, where.line, column, where.line, column + 1)
