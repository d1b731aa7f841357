"""The post-lexer: Python-style blocks (_INDENT/_DEDENT tokens) and bracket matching, one parse at a time.

lark's PythonIndenter keeps its indentation stack on itself, so one indenter shared by every parse
would let two parses under way at once (in two threads, or two interactive parsers fed in turn)
change each other's state. Here the object lark holds, `Indenter`, keeps nothing: each parse gets its own
`Indentation`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from lark import Token
from lark.indenter import DedentError, PythonIndenter
from lark.lark import PostLex

PAIRS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}  # each opening bracket's closing one
CLOSING_TEXT = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
BRACKETS = {*PAIRS, *PAIRS.values()}


class SyntaxProblem(Exception):
    """Raised inside the post-lexer, where there is no Source yet; the parser turns it into a DGError."""

    def __init__(self, kind: str, message: str, line: int, column: int, end_column: int, help: str | None = None):
        super().__init__(message)
        self.kind, self.message, self.help = kind, message, help
        self.line, self.column, self.end_column = line, column, end_column


class Brackets:
    """The brackets open at some point of a token stream, innermost last."""

    def __init__(self) -> None:
        self.open: list[Token] = []

    def see(self, token: Token) -> None:
        """Open or close a bracket, or raise for a closing bracket that matches nothing."""
        if token.type in PAIRS:
            self.open.append(token)
        elif token.type in BRACKETS:
            if not self.open:
                raise SyntaxProblem("SyntaxError", f"unmatched '{token}'", token.line, token.column, token.column + 1)
            opener = self.open.pop()
            if PAIRS[opener.type] != token.type:
                raise SyntaxProblem(
                    "SyntaxError",
                    f"'{token}' does not match '{opener}' opened on line {opener.line}",
                    token.line,
                    token.column,
                    token.column + 1,
                )

    def match(self, stream: Iterable[Token]) -> Iterator[Token]:
        """Pass the tokens on, seeing each bracket on the way."""
        for token in stream:
            if token.type in BRACKETS:
                self.see(token)
            yield token


def apart(stream: Iterable[Token]) -> Iterator[Token]:
    """Pass the tokens on, refusing a keyword run together with the word after it. lark's contextual
    lexer, where a name cannot come, matches the keyword alone: `for i inrange(3)` would read as
    `in range(3)`, which Python (and DG) reject."""
    before: Token | None = None
    for token in stream:
        if (
            before is not None
            and before.end_pos == token.start_pos
            and before.type != "NAME"
            and before.isidentifier()
            and (token[:1].isalnum() or token[:1] == "_")
        ):
            raise SyntaxProblem(
                "SyntaxError",
                f"'{before}' run together with '{token}'",
                before.line,
                before.column,
                token.end_column,
                help=f"put a space after '{before}'",
            )
        before = token
        yield token


class Indentation(PythonIndenter):
    """One parse's indentation stack and open brackets: lark's PythonIndenter, plus bracket matching
    and indentation errors located in the program."""

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return super().process(Brackets().match(apart(stream)))

    def handle_NL(self, token: Token) -> Iterator[Token]:
        try:
            yield from super().handle_NL(token)
        except DedentError:
            indent = token.rsplit("\n", 1)[1]
            raise SyntaxProblem(
                "IndentationError",
                "this line's indentation does not match any enclosing block",
                token.end_line,
                1,
                len(indent) + 1,
                help="indent it exactly as far as the block it belongs to",
            ) from None


class Indenter(PostLex):
    """The post-lexer lark is built with: a fresh Indentation for each token stream."""

    always_accept = (Indentation.NL_type,)  # so lark's contextual lexer lets a newline through anywhere

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return Indentation().process(stream)


def open_brackets(stream: Iterable[Token]) -> list[Token]:
    """The brackets left open at the end of `stream`, innermost last."""
    brackets = Brackets()
    for _ in brackets.match(stream):
        pass
    return brackets.open
