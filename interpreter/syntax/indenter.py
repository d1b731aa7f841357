"""The indenter: Python-style blocks (_INDENT/_DEDENT tokens) and brackets, for both of DG's parsers.

The grammar cannot count spaces. The lexer makes one _NEWLINE token per line break (comments and
blank lines folded in), ending with the next line's indentation; the indenter compares that with
the blocks open: a deeper line opens a block (_INDENT), a shallower one closes a block for each
level it goes back (a _DEDENT each), and a line indented to no open block's level is an
IndentationError. Inside brackets a line break does not end a line, and is dropped. At the end
of the text every block still open is closed.

These are the rules of lark's PythonIndenter, written here once so that both parsers follow
them: lark's, which runs them as its post-lexer (`Indenter`), and the fast path
(fast/fast_parser.py), which runs without importing lark at all, so this module does not
import it either (only the post-lexer's `process` does, on lark's path). Each parse keeps its
state in an `Indentation` of its own: two parses under way at once (in two threads, or two
interactive parsers fed in turn) cannot change each other's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lark import Token

NEWLINE, INDENT, DEDENT = "_NEWLINE", "_INDENT", "_DEDENT"
PAIRS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}  # each opening bracket's closing one
CLOSING_TEXT = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
BRACKETS = {*PAIRS, *PAIRS.values()}
TAB_LEN = 8  # a tab indents as far as this many spaces, as in Python 2 and lark


def with_newline(text: str) -> str:
    """The grammar ends every statement with a newline, so a last line without one gets one."""
    return text if text.endswith("\n") else text + "\n"


class Indentation:
    """One parse's blocks and brackets open, and the rules that change them."""

    NL_type, INDENT_type, DEDENT_type = NEWLINE, INDENT, DEDENT
    OPEN_PAREN_types, CLOSE_PAREN_types = tuple(PAIRS), tuple(PAIRS.values())
    tab_len = TAB_LEN

    def __init__(self) -> None:
        self.indent_level = [0]  # the indentation of each block open, outermost first
        self.paren_level = 0  # the brackets open: while there are any, a line break is dropped

    def line_break(self, text: str, start: int = 0, end: int | None = None) -> int:
        """A _NEWLINE outside brackets (`text[start:end]`, all of `text` by default): how the blocks
        open change for the line after it, whose indentation ends the token. 1: a block opens;
        -n: n blocks close; 0: neither. Raises Misindented for a level no open block has."""
        end = len(text) if end is None else end
        at = max(text.rfind("\n", start, end) + 1, start)
        indent = text.count(" ", at, end) + text.count("\t", at, end) * self.tab_len
        levels = self.indent_level
        if indent > levels[-1]:
            levels.append(indent)
            return 1
        closed = 0
        while indent < levels[-1]:
            levels.pop()
            closed += 1
        if indent != levels[-1]:
            raise Misindented(end - at)
        return -closed

    def end(self) -> int:
        """The text ended: close every block still open, and say how many."""
        closed = len(self.indent_level) - 1
        del self.indent_level[1:]
        return closed

    def process(self, stream: Iterable[Token]) -> Iterator[Token]:
        """lark's tokens with the indenter's put in: lark's post-lexer, one stream per Indentation."""
        from lark import Token  # lark's path only

        token = None
        for token in Brackets().match(apart(stream)):
            if token.type == NEWLINE:
                if self.paren_level:
                    continue
                yield token
                try:
                    change = self.line_break(token)
                except Misindented as e:
                    raise e.problem(token.end_line) from None
                indent = token.rsplit("\n", 1)[-1]
                for _ in range(abs(change)):
                    yield Token.new_borrow_pos(INDENT if change > 0 else DEDENT, indent, token)
                continue
            yield token
            if token.type in PAIRS:
                self.paren_level += 1
            elif token.type in BRACKETS:
                self.paren_level -= 1
        for _ in range(self.end()):  # the blocks still open end with the last token
            yield Token.new_borrow_pos(DEDENT, "", token) if token is not None else Token(DEDENT, "")


class Misindented(Exception):
    """A line indented to no open block's level; `width` is the length of its indentation."""

    def __init__(self, width: int) -> None:
        super().__init__(width)
        self.width = width

    def problem(self, line: int) -> SyntaxProblem:
        """The error, for the line `line` of the text."""
        return SyntaxProblem(
            "IndentationError",
            "this line's indentation does not match any enclosing block",
            line,
            1,
            self.width + 1,
            help="indent it exactly as far as the block it belongs to",
        )


class Indenter:
    """The post-lexer lark is built with (grammar.py): a fresh Indentation for each token stream."""

    always_accept = (NEWLINE,)  # so lark's contextual lexer lets a newline through anywhere

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return Indentation().process(stream)


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
        if before is not None:
            check_apart(before, token)
        before = token
        yield token


def check_apart(before: Token, token: Token) -> None:
    """Raise if `before` is a keyword run together with the word `token` (see apart)."""
    if (
        before.end_pos == token.start_pos
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


def open_brackets(stream: Iterable[Token]) -> list[Token]:
    """The brackets left open at the end of `stream`, innermost last."""
    brackets = Brackets()
    for _ in brackets.match(stream):
        pass
    return brackets.open
