"""grammar/dg.lark built into lark's LALR parser, and what the rest of DG asks of it: tokens (of a
whole text, or from a statement on), keywords, interactive parsers and what they would take next,
and how a token type reads in a message."""

from __future__ import annotations

from collections.abc import Iterator
from copy import copy
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, LarkError, Token, Transformer_NonRecursive, Tree
from lark.lexer import BasicLexer, ContextualLexer, LexerState, LexerThread, LineCounter, PatternStr, TextSlice
from lark.parsers.lalr_interactive_parser import InteractiveParser

from .indenter import Indenter, SyntaxProblem, with_newline

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "dg.lark"

LARK = Lark.open(
    str(GRAMMAR),
    parser="lalr",
    postlex=Indenter(),
    propagate_positions=True,
    maybe_placeholders=True,
    start=["start", "test"],  # a program, or an expression (inside an f-string's braces)
    # No `cache=True`: lark would pickle its tables into the temporary folder and unpickle them at the
    # next start, so whoever can write there could make DG run any code. fast_parser.py has the
    # tables from interpreter/syntax/fast/dg_tables.py instead, written by fast/lalr_tables.py and shipped with DG.
)


class TreeToAST(Transformer_NonRecursive):
    """lark's parse tree → AST: each node, children first, goes to the method of `rules` (an
    ASTBuilder) named like its rule, with its positions (`meta`) and its children already built."""

    __visit_tokens__ = False  # tokens reach the rule methods as they are

    def __init__(self, rules: Any) -> None:
        super().__init__()
        self.rules = rules

    def _call_userfunc(self, tree: Tree, new_children: list[Any] | None = None) -> Any:
        # lark's `v_args(meta=True)` does the same but builds a new wrapper on every call, which
        # made building the AST twice as slow.
        return getattr(self.rules, tree.data)(tree.meta, tree.children if new_children is None else new_children)


def lex(text: str) -> Iterator[Token]:
    """The tokens lark's parser reads, INDENT/DEDENT included, as it reads them (its contextual
    lexer reads `grad` after a dot as a name), up to the first error (`dg parse --tokens`)."""
    return LARK.parse_interactive(with_newline(text), start="start").iter_parse()


def tokens(text: str, start: Token | None = None) -> Iterator[Token]:
    """The same stream, one token at a time (a lexing error arrives after the tokens before it).
    From `start` on, when given: the tokens of the statement it starts, as if the text before it
    were blank, read without reading that text (recovery asks this once per error: reading the
    text from its beginning each time made 5,000 errors take minutes)."""
    text = with_newline(text)
    counter = LineCounter("\n")
    if start is not None and start.start_pos is not None and start.line is not None:
        line_start = text.rfind("\n", 0, start.start_pos) + 1
        if start.line > 1 and text[line_start : start.start_pos].strip(" \t\f") == "":
            # From the line break before it, so that its indentation reads as after a blank text:
            # a _NEWLINE, then an _INDENT.
            counter = counter_at(text, line_start - 1, start.line - 1)
        else:
            counter = counter_at(text, start.start_pos, start.line)
    state = LexerState(TextSlice.cast_from(text), counter)
    return Indenter().process(LexerThread(basic_lexer(), state).lex(None))


def tokens_before(text: str, token: Token, start: Token | None = None) -> list[Token]:
    """The tokens of `text` before `token` (all of them, for the end of the input), from `start` on
    when given (see tokens), as far as they can be read: a text can go wrong further on than its
    parser got."""
    before: list[Token] = []
    end = token.start_pos if token.type != "$END" else None
    try:
        for read in tokens(text, start):
            if end is not None and read.start_pos is not None and read.start_pos >= end:
                break
            before.append(read)
    except (LarkError, SyntaxProblem):
        pass
    return before


def counter_at(text: str, position: int, line: int) -> LineCounter:
    """lark's line counter at `position` of `text`, which is on line `line` (known to the caller:
    counting the lines before it would read the text up to there again)."""
    counter = LineCounter("\n")
    counter.char_pos, counter.line = position, line
    counter.line_start_pos = text.rfind("\n", 0, position) + 1
    counter.column = position - counter.line_start_pos + 1
    return counter


@cache
def basic_lexer() -> BasicLexer:
    """lark's lexer that reads any token anywhere (`LARK.lex` builds a new one at each call)."""
    return BasicLexer(LARK.lexer_conf)


def keywords() -> list[str]:
    """The grammar's keywords (`if`, `grad`, `True`, ...), read from the grammar itself."""
    literals = [t.pattern.value for t in LARK.terminals if isinstance(t.pattern, PatternStr)]
    return sorted(word for word in literals if word.isidentifier())


def interactive(text: str) -> InteractiveParser:
    """lark's interactive parser over `text`, to be fed token by token (incremental.py feeds one by lines)."""
    return LARK.parse_interactive(text, start="start")


def deciding_parser() -> InteractiveParser:
    """lark's interactive parser for a program, to be fed token by token, that decides without
    building a tree: with no callbacks its reductions keep plain lists (the trick of lark's own
    InteractiveParser.accepts). Whether input parses is all incremental.py asks; recovery builds
    its tree once it is done (recovered_tree.py)."""
    parser = LARK.parse_interactive(None, start="start")
    conf = copy(parser.parser_state.parse_conf)
    conf.callbacks = {}
    parser.parser_state.parse_conf = conf
    return parser


ACCEPTED: dict[tuple[int, ...], frozenset[str]] = {}  # by the parser's stack of states (see accepted)
MAX_ACCEPTED = 10_000


def accepted(parser: InteractiveParser) -> frozenset[str]:
    """The token types `parser` would take next. lark tries each on a copy of the parser; what it
    finds depends on the stack of states alone, so it is kept: a file with thousands of mistakes
    has few kinds of them (recovery asks once per error)."""
    key = tuple(parser.parser_state.state_stack)
    found = ACCEPTED.get(key)
    if found is None:
        if len(ACCEPTED) >= MAX_ACCEPTED:  # a bound on what a long-running language server keeps
            ACCEPTED.clear()
        found = ACCEPTED[key] = frozenset(parser.accepts())
    return found


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
