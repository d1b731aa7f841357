"""Parsing input that arrives a line at a time, for a REPL or a notebook's "is this cell complete?".

The parser decides, fed incrementally: each line is lexed once, and its tokens go through one
post-lexer (the indentation stack and the open brackets) and one LALR parser state kept for the
whole cell. A cell of n lines thus costs time linear in n, where parsing the whole cell again at
every line cost n² (a pasted list of 3,000 lines took minutes).

One token runs over a line break: a _NEWLINE also takes the next line's indentation (and any blank
or comment lines before it), which is what tells the post-lexer whether a block opens or closes.
So the _NEWLINE that ends a line is held back and lexed again with the next line: the tokens fed
are exactly those of the whole text lexed at once. Where the input could end is tried on a copy
of the parser state, with what the post-lexer would add at the end of the input.
"""

from __future__ import annotations

from collections.abc import Iterator

from lark import Token, UnexpectedInput
from lark.lexer import LexerThread

from .grammar import contextual_lexer, deciding_parser
from .indenter import Indentation, SyntaxProblem

NEWLINE, INDENT, DEDENT = Indentation.NL_type, Indentation.INDENT_type, Indentation.DEDENT_type
END_OF_LINE = "END_OF_LINE"  # between two lines' tokens in the post-lexer's stream; never parsed


class LineParser:
    """The parse of a cell so far. `feed` one line at a time, then ask how it stands."""

    def __init__(self) -> None:
        self.parser = deciding_parser()  # deciding needs no tree
        self.indentation = Indentation()
        self.text = ""  # the line being fed, after the text held back from the line before
        self.stream = self.indentation.process(self._lines())  # lark's post-lexer, one for the cell
        self.held = ""  # the text of the last line's _NEWLINE, lexed again with the next line
        self.failed = False  # a syntax error: nothing the next lines say can mend it
        # A ':' outside brackets ends the header of a compound statement (if, while, def, ...): no
        # other ':' of the grammar stands outside brackets (a slice's is inside its [ ]).
        self.compound = False

    def _lines(self) -> Iterator[Token]:
        """The raw tokens of each line fed, each line's followed by an END_OF_LINE marker. It never
        ends, so the post-lexer never adds the dedents that close every block at the end of input.

        The lexer is the parser's own contextual one, which reads a token knowing what the parser
        expects there (after a '.', `grad` is a name, not the keyword): it lexes lazily, each token
        only once the parser has taken the ones before."""
        lexer = contextual_lexer()
        while True:
            text, self.held = self.text, ""
            for token in LexerThread.from_text(lexer, text).lex(self.parser.parser_state):
                if token.type == NEWLINE and token.end_pos == len(text):
                    self.held = str(token)
                    break
                yield token
            yield Token(END_OF_LINE, "")

    def feed(self, line: str) -> None:
        """Take one more line (without its newline)."""
        if self.failed:
            return
        self.text = self.held + line + "\n"
        try:
            for token in self.stream:
                if token.type == END_OF_LINE:
                    break
                if token.type == "COLON" and self.indentation.paren_level == 0:
                    self.compound = True
                self.parser.feed_token(token)
        except (UnexpectedInput, SyntaxProblem):
            self.failed = True
            return
        if not self.open and not self._accepts([Token(NEWLINE, "\n")]):
            self.failed = True  # `if x` without its ':' fails at the end of the line, whatever follows

    @property
    def open(self) -> bool:
        """Must the input go on: a bracket is open, or the line ended with a `\\`?"""
        return self.indentation.paren_level > 0 or not self.held

    @property
    def blocks(self) -> int:
        """How many indented blocks are open."""
        return len(self.indentation.indent_level) - 1

    def can_end(self) -> bool:
        """Would the input parse if it ended here?"""
        if self.failed or self.open:
            return False
        ending = [Token(NEWLINE, "\n"), *[Token(DEDENT, "")] * self.blocks, Token("$END", "")]
        return self._accepts(ending)

    def expects_block(self) -> bool:
        """Did the last line end a block's header (`if x:`), so that an indented block comes next?"""
        if self.failed or self.open:
            return False
        return self._accepts([Token(NEWLINE, "\n"), Token(INDENT, "")])

    def _accepts(self, tokens: list[Token]) -> bool:
        trial = self.parser.copy(deepcopy_values=False)
        try:
            for token in tokens:
                trial.feed_token(token)
        except UnexpectedInput:
            return False
        return True
