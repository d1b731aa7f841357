"""The reading behind recovery.py: lark's lexer, indenter and parser driven a token at a time, the
parser's stacks saved where each statement starts and put back after a mistake, with a `pass` in
the statement's place, and the rest of the statement skipped (recovery.py says how, and why). The
parser builds no tree: the reading keeps the tokens it took, less those of the broken statements,
and recovered_tree.py builds the tree of those."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lark import Token, UnexpectedCharacters, UnexpectedToken
from lark.lexer import LexerState, LexerThread
from lark.parsers.lalr_interactive_parser import InteractiveParser

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source

from .grammar import contextual_lexer, counter_at, deciding_parser
from .indenter import Brackets, Indentation, SyntaxProblem, check_apart, with_newline
from .indenter import Misindented as NoBlockAtThisLevel
from .recovered_tree import names_defined
from .syntax_errors import syntax_error

NEWLINE, INDENT, DEDENT, END = Indentation.NL_type, Indentation.INDENT_type, Indentation.DEDENT_type, "$END"
HEADERS = {"if", "elif", "else", "while", "for", "def", "with", "class", "try", "except"}  # a header's first word
PARSING, SKIPPING_LINE, AFTER_HEADER, SKIPPING_BLOCK = range(4)
ENDINGS = [(DEDENT, ""), (NEWLINE, "\n"), ("PASS", "pass")]  # what closes an open block, in that order


@dataclass
class Misindented:
    """A line at no enclosing block's indentation: reported, then read as the enclosing block's."""

    problem: SyntaxProblem


@dataclass
class Checkpoint:
    """Where a statement starts: the parser's stacks, how many tokens were kept, and the indenter's
    levels. (The parser builds no tree: its values are lists it never changes, so copies of the
    stacks are enough to go back to.)"""

    states: list[Any]
    values: list[Any]
    kept: int
    levels: list[int]


class Reading:
    """One pass over a program: lark's lexer, indenter and parser, a token at a time; after a
    mistake, the parser put back where its statement started, and the reading goes on."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.text = with_newline(source.text)
        self.parser: InteractiveParser = deciding_parser()
        self.state = self.parser.parser_state
        self.lexers = contextual_lexer()
        self.lexing: LexerState = LexerThread.from_text(self.lexers, self.text).state
        self.brackets = Brackets()
        self.indentation = Indentation()
        self.indentation.paren_level, self.indentation.indent_level = 0, [0]
        self.virtual: set[int] = set()  # levels kept for a misindented line: they make no dedent
        self.dropped: set[int] = set()  # levels of unexpected indents: their dedents are dropped too
        self.rewound: set[int] = set()  # brackets after which reading started again
        self.errors: list[DGError] = []
        self.seen: set[tuple[Any, ...]] = set()
        self.unfinished: set[str] = set()
        self.mode, self.depth = PARSING, 0  # depth: of the block being skipped
        self.before: Token | None = None  # the last token lexed
        self.line_end: Token | None = None  # the last token lexed before the last newline
        self.last: Token | None = None  # the last token fed that has a place in the text
        self.previous: Token | None = None  # the last token fed
        self.statement: list[Token] = []  # the tokens fed since the statement started
        self.broken: Token | None = None  # the first token of the broken statement being skipped
        self.kept: list[Token] = []  # the tokens the parser took, less those of broken statements
        self.ended = False  # the parser took the end of the input
        self.retried: Token | None = None  # a statement's last token, fed again after its mistake
        self.checkpoint = self.save()

    # ---- errors ---------------------------------------------------------------------------------
    def report(self, problem: Exception, start: Token | None = None) -> None:
        """Add the problem's error, unless it is there already. Its message is worked out on the
        text from `start`, where the statement starts, as if the text before it were blank: what
        `dg FILE` says once the mistakes before are fixed (and a message needs only the tokens of
        its statement: reading the text before it again for each error would cost time in its length)."""
        error = syntax_error(problem, self.source, parsed=self.text, statement=start)
        key = (error.kind, error.message, *((error.span.line, error.span.column) if error.span else ()))
        if key not in self.seen:
            self.seen.add(key)
            self.errors.append(error)

    # ---- the parser's stacks --------------------------------------------------------------------
    def save(self) -> Checkpoint:
        state, levels = self.state, self.indentation.indent_level
        return Checkpoint(list(state.state_stack), list(state.value_stack), len(self.kept), list(levels))

    def restore(self) -> None:
        saved = self.checkpoint
        del self.kept[saved.kept :]
        self.state.state_stack = list(saved.states)
        self.state.value_stack = list(saved.values)

    def at_statement_start(self) -> bool:
        """Could a statement start here (after a line's end, but not after a header's `:`)?"""
        return "PASS" in self.state.parse_conf.states[self.state.position]

    def started(self) -> None:
        """A statement starts here."""
        self.checkpoint, self.statement = self.save(), []

    def feed(self, token: Token) -> None:
        self.parser.feed_token(token)
        self.kept.append(token)
        self.previous = token
        if token.line is not None:
            self.last = token

    def borrowed(self, kind: str, value: str, token: Token | None) -> Token:
        """A token made up for the parser, placed at `token` (else the last one with a place)."""
        place = token if token is not None and token.line is not None else self.last
        if place is None:  # nothing read yet: the start of the text
            return Token(kind, value, start_pos=0, line=1, column=1, end_line=1, end_column=1, end_pos=0)
        return Token.new_borrow_pos(kind, value, place)

    # ---- the tokens -----------------------------------------------------------------------------
    def lexed(self) -> Token | Exception | None:
        """The next raw token, read as lark's contextual lexer reads it in the parser's state (while
        skipping, by the lexer that takes any token); the lexer's failure; None at the end."""
        state = self.lexing
        if self.mode in (SKIPPING_LINE, SKIPPING_BLOCK):
            while True:
                try:
                    return self.lexers.root_lexer.next_token(state, self.state)
                except EOFError:
                    return None
                except UnexpectedCharacters:
                    state.line_ctr.feed(self.text[state.line_ctr.char_pos])  # part of what is skipped
        try:
            return self.lexers.lexers[self.state.position].next_token(state, self.state)
        except EOFError:
            return None
        except UnexpectedCharacters as e:
            last = state.last_token
            try:  # a token, where the parser takes none of its kind (as lark's ContextualLexer says it)
                token = self.lexers.root_lexer.next_token(state, self.state)
            except (UnexpectedCharacters, EOFError):
                return e
            return UnexpectedToken(token, e.allowed, state=self.state, token_history=[last])

    def tokens(self) -> Iterator[Token | Exception | Misindented]:
        """What the next raw token becomes after the indenter: itself; or at a line's end, the
        newline with the indents and dedents it brings (nothing, inside brackets); or a problem."""
        raw = self.lexed()
        if raw is None:
            yield from self.end()
            return
        if isinstance(raw, UnexpectedToken):  # read, though the parser takes none of its kind here
            self.before = raw.token
            with contextlib.suppress(SyntaxProblem):
                self.brackets.see(raw.token)  # a `)` where no `)` may come still closes its `(`
            self.indentation.paren_level = len(self.brackets.open)
        if isinstance(raw, Exception):
            yield raw
            return
        before, self.before = self.before, raw
        if raw.type == NEWLINE:
            self.line_end = before
            if self.mode == SKIPPING_LINE and self.brackets.open and self.outdented(raw):
                self.brackets = Brackets()  # a bracket the broken statement left open ends with it
                self.indentation.paren_level = 0
            yield from self.newline(raw)
            return
        try:
            if before is not None:
                check_apart(before, raw)
            self.brackets.see(raw)
        except SyntaxProblem as problem:
            yield problem
            return
        finally:
            self.indentation.paren_level = len(self.brackets.open)
        yield raw

    def outdented(self, newline: Token) -> bool:
        """Does the line after this newline start no deeper than the statement being skipped? Then
        it is the next statement, whatever brackets the broken one left open."""
        return width(newline.rsplit("\n", 1)[1], self.indentation.tab_len) <= self.checkpoint.levels[-1]

    def newline(self, token: Token) -> Iterator[Token | Misindented]:
        """The newline and the indents or dedents it brings, as the indenter's post-lexer makes them
        (indenter.py), or nothing inside brackets."""
        if self.indentation.paren_level:
            return
        levels = self.indentation.indent_level
        top = len(levels) - 1
        indent = token.rsplit("\n", 1)[1]
        try:
            change = self.indentation.line_break(token)
        except NoBlockAtThisLevel as e:  # the line matches no enclosing block's indentation
            closed = [Token.new_borrow_pos(DEDENT, indent, token) for _ in range(top - (len(levels) - 1))]
            yield from self.leveled([token, *closed], top)
            levels.append(width(indent, self.indentation.tab_len))
            self.virtual.add(len(levels) - 1)  # its level from here on: no indent now, no dedent later
            yield Misindented(e.problem(token.end_line))
            return
        made = [Token.new_borrow_pos(INDENT if change > 0 else DEDENT, indent, token) for _ in range(abs(change))]
        yield from self.leveled([token, *made], top)

    def leveled(self, made: list[Token], top: int) -> Iterator[Token]:
        """The indenter's tokens, less the dedents of levels that made no indent the parser took."""
        for token in made:
            if token.type == INDENT:
                top += 1
            elif token.type == DEDENT:
                top -= 1
                if top + 1 in self.virtual or top + 1 in self.dropped:
                    self.virtual.discard(top + 1)
                    self.dropped.discard(top + 1)
                    continue
            yield token

    def end(self) -> Iterator[Token]:
        """The dedents that close the blocks still open, then the end of the input."""
        levels = self.indentation.indent_level
        while len(levels) > 1:
            levels.pop()
            yield from self.leveled([self.borrowed(DEDENT, "", self.before)], len(levels))
        yield self.borrowed(END, "", None)

    # ---- the reading ----------------------------------------------------------------------------
    def run(self) -> list[Token]:
        """The tokens of the program as the parser took them: each broken statement a `pass`."""
        while not self.ended:
            for token in self.tokens():
                self.step(token)
        return self.kept

    def step(self, token: Token | Exception | Misindented) -> None:
        """Take the next token (or problem) in the current mode."""
        if self.mode == SKIPPING_BLOCK:
            if isinstance(token, Token) and token.type in (INDENT, DEDENT):
                self.depth += 1 if token.type == INDENT else -1
                if self.depth == 0:  # the next statement starts at the broken header's level
                    self.mode = PARSING
                    self.started()
                return None
            if not isinstance(token, Token) or token.type != END:
                return None
            self.mode = PARSING  # the input ended in the block (whose dedents were levels no block had)
        if self.mode == AFTER_HEADER:
            self.mode = PARSING
            if isinstance(token, Token) and token.type == INDENT:  # the broken header's block
                self.mode, self.depth = SKIPPING_BLOCK, 1
                return None
        if self.mode == SKIPPING_LINE:
            if not isinstance(token, Token) or token.type not in (NEWLINE, DEDENT, END):
                return None  # the rest of the broken statement
            ended = self.line_end  # the last token of the broken line: a header's ends in ':'
            header = (self.broken is not None and str(self.broken) in HEADERS) or (
                ended is not None and ended.type == "COLON"
            )
            self.mode = PARSING
            if token.type == NEWLINE:
                self.feed(token)
                self.started()
                self.mode = AFTER_HEADER if header else PARSING
                return None
            self.feed(self.borrowed(NEWLINE, "\n", None))  # the statement ended with its block or the input
            self.started()
        if isinstance(token, Misindented):
            self.report(token.problem)
            return None
        if isinstance(token, UnexpectedToken):  # from the lexer: the token has been read
            self.mistake(self.failure(token), token.token)
            return None
        if isinstance(token, Exception):  # a character no token starts with, a bracket, glued words
            self.mistake(token, None)
            return None
        self.take(token)
        return None

    def take(self, token: Token) -> None:
        try:
            self.feed(token)
        except UnexpectedToken as e:
            if token is self.retried:  # where a statement starts, too: the indenter's, not the parser's
                self.unplaced(token)
                return
            self.mistake(self.failure(e), token)
            return
        if token.type == END:
            self.ended = True
        elif token.type in (NEWLINE, INDENT, DEDENT):
            if self.at_statement_start():
                self.started()
        else:
            self.statement.append(token)

    def failure(self, e: UnexpectedToken) -> UnexpectedToken:
        """lark's exception as its own parse raises it: with the interactive parser where it failed."""
        e.interactive_parser = InteractiveParser(self.parser.parser, self.state, self.parser.lexer_thread)
        return e

    def mistake(self, problem: Exception, token: Token | None) -> None:
        """Report a mistake; put the parser back where its statement started, with a `pass` there;
        then skip the rest of the statement (or, for a header whose block is missing, go on at once)."""
        start = self.statement[0] if self.statement else token
        self.report(problem, start)
        if token is not None and token.type == INDENT and not self.statement:  # an unexpected indent
            self.restore()
            self.dropped.add(len(self.indentation.indent_level) - 1)
            return
        first = self.statement[0] if self.statement else token
        missing_block = bool(self.statement) and self.previous is not None and self.previous.type == NEWLINE
        self.unfinished |= names_defined(self.statement)
        opener = self.unclosed(token)
        self.restore()
        self.feed(self.borrowed("PASS", "pass", first))
        if opener is not None:
            self.rewind(opener)
        elif missing_block and token is not None:  # only the header is broken: the token starts the next
            self.feed(self.borrowed(NEWLINE, "\n", None))
            self.started()
            self.take(token)
            return
        self.mode, self.broken = SKIPPING_LINE, first
        if token is not None and token.type in (NEWLINE, DEDENT, END):
            self.retried = token
            self.step(token)  # the statement's end: not skipped
            self.retried = None

    def unplaced(self, token: Token) -> None:
        """A line's end, a block's end or the input's that the parser does not take even where a
        statement starts: the indenter closed a block the parser never opened (its line was
        misread after an earlier mistake, already reported). A newline or a dedent is dropped; at
        the end of the input, the parser's blocks still open are closed."""
        if token.type != END:
            return
        for _ in range(4 * len(self.state.state_stack) + 4):  # each round closes a block, or fills one
            accepts = self.state.parse_conf.states[self.state.position]
            if END in accepts:
                self.feed(token)
                self.ended = True
                return
            kind, value = next(((k, v) for k, v in ENDINGS if k in accepts), ENDINGS[-1])
            self.feed(self.borrowed(kind, value, None))
        # A bug in DG: `dg check` and `dg lsp` then report the compile's error alone (analysis.py).
        raise AssertionError("the parser's blocks did not close")

    def unclosed(self, token: Token | None) -> Token | None:
        """The bracket left open on a line before the failing token's, if any (and not read again
        already): the statement's mistake, whatever the token."""
        if not self.brackets.open:
            return None
        opener = self.brackets.open[-1]
        if token is not None and token.line is not None and token.line == opener.line:
            return None
        return None if opener.end_pos in self.rewound else opener

    def rewind(self, opener: Token) -> None:
        """Read on from the end of the bracket's line, with no bracket open and the indentation the
        statement started at: the lines after it are read again, as statements of their own, but
        for those indented deeper than the statement (they look like its continuation)."""
        self.rewound.add(opener.end_pos)
        end = self.text.find("\n", opener.end_pos)
        level = self.checkpoint.levels[-1]
        while end + 1 < len(self.text):
            line_end = self.text.find("\n", end + 1)
            line = self.text[end + 1 : line_end]
            code = line.split("#")[0]
            if code.strip() and width(code, self.indentation.tab_len) <= level:
                break
            end = line_end
        line = opener.line + self.text.count("\n", opener.start_pos, end)
        self.lexing = LexerState(self.lexing.text, counter_at(self.text, end, line), None)
        self.brackets = Brackets()
        self.indentation.paren_level = 0
        levels = self.indentation.indent_level = list(self.checkpoint.levels)
        self.virtual = {level for level in self.virtual if level < len(levels)}  # (of blocks now closed)
        self.dropped = {level for level in self.dropped if level < len(levels)}
        self.before = None


def width(line: str, tab_len: int) -> int:
    """How far a line is indented, as the indenter counts it."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return indent.count(" ") + indent.count("\t") * tab_len
