"""The fast path from text to AST, for programs that parse; lark's path does everything else.

lark's parser (grammar.py) builds a parse tree of Tree and Token objects with their positions,
which tree_to_ast.py then turns into DG's AST: a dozen objects and calls per token, and lark itself
to import and set up at start-up. This module parses with the same LALR(1) table, which
lalr_tables.py keeps as data (dg_tables.py), and hands each reduction straight to the same
ASTBuilder methods: one regular expression finds the tokens, the indenter of lark's path
(indenter.py) finds the blocks, and the only objects made are the AST's own. lark is not imported.

Why it gives the AST lark's path gives, or nothing:
- It never reports an error. On anything unexpected (a character no token starts with, a token
  the table has no action for, a line indented to no block's level, an error the AST builder
  raises) it gives up, and parser.py parses the text with lark, whose messages (syntax_errors.py)
  stay the only ones.
- The tokens are lark's. lark's lexer tries, in each parser state, the terminals that state
  accepts, in lark's order; this one tries all of them in the same order, with the same keywords
  folded into NAME. When the parse succeeds, every token was one its state accepted, and among
  those the same terminal matches first: lark would have read the same tokens. (Only a keyword
  where the state accepts a name and not that keyword, as in `x.grad`, needs a word: lark reads
  it as a name, and so does the parser below.)
- The shifts and reductions are the table's, and each reduction shapes its children as lark's
  tree builder does (the rules in lalr_tables.py: `?rule`, `_rule`, `!rule`, dropped tokens,
  None for an absent [part]); a node's span runs from its first token to its last, as lark's
  propagate_positions makes it.
tests/language/test_fast_parser.py checks that both paths give the same AST, spans included, on every
lesson, example and test program and on thousands of generated and mutated ones.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from types import ModuleType
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.syntax.indenter import DEDENT, INDENT, PAIRS, Indentation, Misindented
from dglang.interpreter.syntax.indenter import NEWLINE as LINE_BREAK
from dglang.interpreter.syntax.tree_to_ast import ASTBuilder, ParseExpression

from .lalr_tables import load


class Text(str):
    """A token the AST builder keeps (a name, a number, an operator): its text, and which token of
    the program it is (the builder asks where it is only when it needs a span)."""

    index: int


class Declined(Exception):
    """The fast path cannot parse this text; lark will, or will say why not."""


class OffsetBuilder(ASTBuilder):
    """The AST builder, with spans worked out from token numbers, only for the nodes that need one."""

    def __init__(
        self,
        source: Source,
        text: str,
        tokens: Tokens,
        parse_expression: ParseExpression,
        line_offset: int,
        column_offset: int = 0,
    ) -> None:
        super().__init__(source, parse_expression, line_offset, column_offset)
        self.tokens = tokens
        self.token_starts, self.token_ends = tokens.starts, tokens.ends
        self.line_starts = [0, *(m.end() for m in NEWLINES.finditer(text))]

    def span(self, where: Any) -> Span:
        """`where`: a rule's (first token, last token), or a Text."""
        if type(where) is tuple:
            first, last = where
        else:
            first = last = where.index
        start, end = self.token_starts[first], self.token_ends[last]
        lines = self.line_starts
        line = bisect_right(lines, start)
        end_line = line if line == len(lines) or end < lines[line] else bisect_right(lines, end)
        offset, shift = self.line_offset, self.column_offset
        column = start - lines[line - 1] + 1 + (shift if line == 1 else 0)
        end_column = end - lines[end_line - 1] + 1 + (shift if end_line == 1 else 0)
        return Span(self.source, line + offset, column, end_line + offset, end_column)


NEWLINES = re.compile("\n")


class Tokens:
    """A text's tokens as the parser reads them: the terminal of each (a number), and where it
    starts and ends (offsets into the text). _INDENT and _DEDENT have their _NEWLINE's place."""

    __slots__ = ("ends", "kinds", "starts")

    def __init__(self, kinds: list[int], starts: list[int], ends: list[int]) -> None:
        self.kinds, self.starts, self.ends = kinds, starts, ends

    @classmethod
    def read(cls, parser: FastParser, read: list[tuple[str, int, int]]) -> Tokens:
        """Tokens read by another lexer, as (terminal, start, end), the end of the input last
        (recovery's: lark's, but those of the statements that did not parse)."""
        number = parser.number
        return cls([number[kind] for kind, _, _ in read], [start for _, start, _ in read], [end for _, _, end in read])


class FastParser:
    """grammar_tables' data made ready for parsing: symbols numbered, the table as lists."""

    def __init__(self, tables: ModuleType) -> None:
        number = {name: i for i, name in enumerate(tables.SYMBOLS)}
        self.number = number
        self.end, self.name = number["$END"], number["NAME"]
        self.indent, self.dedent = number[INDENT], number[DEDENT]
        self.keywords = {word: number[kind] for word, kind in tables.KEYWORDS.items()}
        self.keyword_kinds = frozenset(self.keywords.values())
        # the tokens the lexer itself looks at, and why
        self.special = [ORDINARY] * len(number)
        self.special[self.name], self.special[number[LINE_BREAK]] = NAME, NEWLINE
        for opening, closing in PAIRS.items():  # a line break between brackets does not end a line
            for bracket, what in ((opening, OPENING), (closing, CLOSING)):
                if bracket in number:
                    self.special[number[bracket]] = what
        # One regular expression for all tokens, tried in lark's order. The spaces before a token
        # are part of its match, in group 1 (no token starts with a space), which halves the
        # matches made. After each terminal's own expression an empty group named for it marks
        # it, so the match's last group (m.lastindex) says which terminal it was; a mark at the
        # end rather than a group around the terminal lets the regular expression engine skip an
        # alternative that starts with a character or class the text does not have.
        alternatives = "|".join(f"(?:{regex})(?P<{name}>)" for name, regex in tables.TERMINALS)
        self.master = re.compile(f"([\t \f]*)(?:{alternatives})")
        self.group_kinds = [-1] * (self.master.groups + 1)  # a mark's group -> the terminal's number
        for name, group in self.master.groupindex.items():
            self.group_kinds[group] = -1 if name in tables.IGNORE else number[name]
        # The table: for each state, for each symbol, a state to go to, -1 - r to reduce rule r,
        # or 0 for none.
        self.states = tables.STATES
        self.rules = tables.RULES
        self.origins = [number[origin] for origin, *_ in tables.RULES]
        # the reductions that only rename their one child (see goto())
        self.unit = [
            size == 1 and (children == ((0, "value"),) if expand1 else build is None and children == ((0, "splice"),))
            for _, size, build, expand1, children in tables.RULES
        ]
        self.start_states, self.end_states = tables.START_STATES, tables.END_STATES
        self.plans: dict[type, list[Plan]] = {}
        self.gotos: dict[tuple[int, int, int], int] = {}  # see goto()

    def tokenize(self, text: str) -> Tokens:
        """The tokens of `text`: lark's lexer, as one regular expression, and the indenter's rules
        (indenter.py, the same object lark's path uses) in one loop."""
        kinds: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        group_kinds, keywords, special = self.group_kinds, self.keywords, self.special
        blocks = Indentation()  # the blocks and brackets open
        m = None
        # scanner().match matches where the last match ended, or returns None there
        for m in iter(self.master.scanner(text).match, None):
            kind = group_kinds[m.lastindex]
            if kind < 0:
                continue  # a comment, spaces at the end, a backslash continuing the line
            start, end = m.end(1), m.end()
            what = special[kind]
            if what == NAME:
                kind = keywords.get(text[start:end], kind)
            elif what == NEWLINE:
                if blocks.paren_level:
                    continue  # a line break inside brackets does not end a line
                kinds.append(kind)
                starts.append(start)
                ends.append(end)
                try:
                    change = blocks.line_break(text, start, end)
                except Misindented:
                    raise Declined from None  # lark's path says what is wrong
                for _ in range(abs(change)):  # _INDENT and _DEDENT have their _NEWLINE's place
                    kinds.append(self.indent if change > 0 else self.dedent)
                    starts.append(start)
                    ends.append(end)
                continue
            elif what == OPENING:
                blocks.paren_level += 1
            elif what == CLOSING:
                blocks.paren_level -= 1
            kinds.append(kind)
            starts.append(start)
            ends.append(end)
        if (m.end() if m is not None else 0) != len(text):
            raise Declined  # a character no token starts with
        for _ in range(blocks.end()):  # the blocks still open end with the last token, as on lark's path
            kinds.append(self.dedent)
            starts.append(starts[-1])
            ends.append(ends[-1])
        kinds.append(self.end)
        return Tokens(kinds, starts, ends)

    def parse(self, text: str, start: str, builder: OffsetBuilder) -> Any:
        """The AST of `text` (start="start": a program; "test": an expression), or raise Declined."""
        tokens = builder.tokens
        kinds, token_starts, token_ends = tokens.kinds, tokens.starts, tokens.ends
        states, gotos = self.states, self.gotos
        plans = self.plans.get(type(builder)) or self.plan(type(builder))
        keyword_kinds, name, end = self.keyword_kinds, self.name, self.end
        state = self.start_states[start]
        end_state = self.end_states[start]
        # The parser's stack, as three lists: the states; the values (an AST node, a list of them
        # for a `_rule`, None for a token); and the number of each entry's first token. An entry
        # covers the tokens from its first to the next entry's first, so a rule reduced with
        # token i next spans its first entry's first token to token i - 1.
        stack = [state]
        values: list[Any] = []
        firsts: list[int] = []
        for i, kind in enumerate(kinds):
            action = states[state][kind]
            if not action and kind in keyword_kinds:
                # lark's lexer reads a keyword as a name where the parser expects no keyword but a
                # name, as after the dot of `x.grad`
                kind = kinds[i] = name
                action = states[state][kind]
            while action < 0:  # reduce by rule -1 - action
                size, origin, shape, picks, method = plans[-1 - action]
                base = len(values) - size
                # the children, as lark's tree builder would hand them on
                if picks is ONE_TOKEN:  # `atom: NAME -> name`, `_add_op: "+"`
                    k = firsts[base]
                    token = Text(text[token_starts[k] : token_ends[k]])
                    token.index = k
                    children: list[Any] = [token]
                elif picks is ONE_VALUE:  # `_small_stmt: assign`
                    children = [values[base]]
                else:
                    children = []
                    for at, what in picks:
                        if what == VALUE:
                            children.append(values[base + at])
                        elif what == SPLICE:  # a `_rule`'s children; its list grows in place, as lark's do
                            if children:
                                children += values[base + at]
                            else:
                                children = values[base + at]
                        elif what == TOKEN:
                            k = firsts[base + at]
                            token = Text(text[token_starts[k] : token_ends[k]])
                            token.index = k
                            children.append(token)
                        else:
                            children.append(None)
                # what the reduction makes of them
                if shape == BUILD or (shape == EXPAND1 and len(children) != 1):
                    if method is None:
                        raise Declined  # lark's tree would have a node the builder has no method for
                    value = method(builder, (firsts[base] if size else i, i - 1), children)
                elif shape == SPLICED:
                    value = children
                else:
                    value = children[0]
                # the rule's symbol replaces its children on the stack, and the parser goes to the
                # state for it (past the renaming reductions that follow: see goto())
                if size == 1:
                    below = stack[-2]
                    state = stack[-1] = gotos.get((below, origin, kind)) or self.goto(below, origin, kind)
                    values[-1] = value
                else:
                    first = firsts[base] if size else i
                    if size:
                        del stack[-size:], values[base:], firsts[base:]
                    below = stack[-1]
                    state = gotos.get((below, origin, kind)) or self.goto(below, origin, kind)
                    stack.append(state)
                    values.append(value)
                    firsts.append(first)
                action = states[state][kind]
            if not action:
                if state == end_state and kind == end:  # all the input reduced to `start`
                    return values[-1]
                raise Declined
            stack.append(action)
            state = action
            values.append(None)
            firsts.append(i)
        raise Declined

    def goto(self, below: int, symbol: int, kind: int) -> int:
        """The state after `symbol` is reduced above state `below` with token `kind` next, and after
        the renaming reductions (`?sum: product`, `_stmt: _simple_stmt`) that then follow, which
        change only the state: the precedence layers make a dozen of them for each operand. Worked
        out once for each (below, symbol, kind)."""
        state = self.states[below][symbol]
        action = self.states[state][kind]
        while action < 0 and self.unit[-1 - action]:
            state = self.states[below][self.origins[-1 - action]]
            action = self.states[state][kind]
        self.gotos[below, symbol, kind] = state
        return state

    def plan(self, builder: type) -> list[Plan]:
        """For each rule, what its reduction does, with the builder's method for it."""
        plans = []
        for origin, size, build, expand1, children in self.rules:
            shape = SPLICED if build is None else EXPAND1 if expand1 else BUILD
            picks = tuple((0, NONE) if c is None else (c[0], PICKS[c[1]]) for c in children)
            picks = {ONE_TOKEN: ONE_TOKEN, ONE_VALUE: ONE_VALUE}.get(picks, picks)  # the same objects, for `is`
            plans.append((size, self.number[origin], shape, picks, getattr(builder, build or "", None)))
        self.plans[builder] = plans
        return plans


# What the lexer does with a token besides passing it on: look for a keyword, work out
# indentation, count brackets.
ORDINARY, NAME, NEWLINE, OPENING, CLOSING = range(5)
# What a reduction makes: a `_rule`'s list of children, a `?rule`'s one child or a node, or a node
SPLICED, EXPAND1, BUILD = range(3)
# What goes into the children for a symbol of the rule: its value, a `_rule`'s children, a token's
# Text, or None for an absent [part]
VALUE, SPLICE, TOKEN, NONE = range(4)
PICKS = {"value": VALUE, "splice": SPLICE, "token": TOKEN}
ONE_TOKEN, ONE_VALUE = ((0, TOKEN),), ((0, VALUE),)  # the commonest, handled first
Plan = tuple[int, int, int, tuple[tuple[int, int], ...], Callable[..., Any] | None]


TABLES = load()
PARSER = FastParser(TABLES) if TABLES is not None else None


NAME_ONLY = re.compile(r"[^\W\d]\w*")  # the grammar's NAME


def is_name(text: str) -> bool:
    """Is `text` a NAME token alone, and not a keyword (what the parser would read as ast.Name)?"""
    return PARSER is not None and NAME_ONLY.fullmatch(text) is not None and text not in PARSER.keywords


def parse(
    source: Source,
    text: str,
    start: str,
    parse_expression: ParseExpression,
    line_offset: int = 0,
    column_offset: int = 0,
) -> Any | None:
    """The AST of `text` ("start": a program; "test": an expression), or None when the fast path
    declines it (lark's path will then parse it, or say what is wrong). The offsets say where
    `text` starts in the source (an f-string's expression)."""
    if PARSER is None:
        return None
    try:
        tokens = PARSER.tokenize(text)
        builder = OffsetBuilder(source, text, tokens, parse_expression, line_offset, column_offset)
        return PARSER.parse(text, start, builder)
    except (Declined, DGError, RecursionError):  # lark's path raises the error, or its own
        return None


def tokens(source: Source, text: str, parse_expression: ParseExpression) -> list[tuple[str, int, int]] | None:
    """The tokens the fast path reads in a program it parses, as (terminal, start, end) in `text`
    (a keyword read as a name, as in `x.grad`, is a NAME, as lark's lexer makes it), for
    `dg parse --tokens`; None when it declines the text."""
    if PARSER is None:
        return None
    try:
        read = PARSER.tokenize(text)
        PARSER.parse(text, "start", OffsetBuilder(source, text, read, parse_expression, 0))
    except (Declined, DGError, RecursionError):
        return None
    names = TABLES.SYMBOLS  # type: ignore[union-attr]
    return [(names[k], s, e) for k, s, e in zip(read.kinds[:-1], read.starts, read.ends, strict=False)]
