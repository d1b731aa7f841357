"""grammar/dg.lark built into lark's LALR parser, and what the rest of DG asks of it: tokens,
keywords, an interactive parser, and how a token type reads in a message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Token
from lark.lexer import ContextualLexer, PatternStr
from lark.parsers.lalr_interactive_parser import InteractiveParser

from .indenter import Indenter

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "dg.lark"

LARK = Lark.open(
    str(GRAMMAR),
    parser="lalr",
    postlex=Indenter(),
    propagate_positions=True,
    maybe_placeholders=True,
    start=["start", "test"],  # a program, or an expression (inside an f-string's braces)
    cache=True,
)


def with_newline(text: str) -> str:
    """The grammar ends every statement with a newline, so a last line without one gets one."""
    return text if text.endswith("\n") else text + "\n"


def lex(text: str) -> list[Token]:
    """The token stream the parser sees, INDENT/DEDENT included (for `dg parse --tokens`)."""
    return list(tokens(text))


def tokens(text: str) -> Iterator[Token]:
    """The same stream, one token at a time (a lexing error arrives after the tokens before it)."""
    return LARK.lex(with_newline(text), dont_ignore=False)


def keywords() -> list[str]:
    """The grammar's keywords (`if`, `grad`, `True`, ...), read from the grammar itself."""
    literals = [t.pattern.value for t in LARK.terminals if isinstance(t.pattern, PatternStr)]
    return sorted(word for word in literals if word.isidentifier())


def interactive(text: str) -> InteractiveParser:
    """lark's interactive parser over `text`, to be fed token by token (incremental.py feeds one by lines)."""
    return LARK.parse_interactive(text, start="start")


def literal(token_type: str) -> str | None:
    """The text of a keyword or punctuation token type ('COLON' -> ':'); None for a pattern like NAME."""
    try:
        pattern = LARK.get_terminal(token_type).pattern
    except KeyError:
        return None
    return pattern.value if isinstance(pattern, PatternStr) else None


def contextual_lexer() -> ContextualLexer:
    """The lexer the parser itself uses (lark wraps it with the post-lexer), for lexing that follows
    a parser fed token by token (incremental.py)."""
    lexer = LARK.parser.lexer
    return getattr(lexer, "lexer", lexer)
