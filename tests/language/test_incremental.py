"""The incremental parse behind the REPL's "is this cell complete?": fed a line at a time, it sees
exactly the tokens a whole-text parse sees, and each line costs only its own tokens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lark import UnexpectedInput
from lark.lexer import LexerThread

from dglang.interpreter.syntax import incremental
from dglang.interpreter.syntax.grammar import LARK, with_newline
from dglang.interpreter.syntax.incremental import LineParser
from dglang.interpreter.syntax.indenter import SyntaxProblem

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))
BLOCKS = [m for doc in DOCS for m in re.findall(r"^```dg([^\n]*)\n(.*?)^```", doc.read_text(), re.S | re.M)]
PROGRAMS = [p.read_text() for p in sorted((ROOT / "programs").glob("*.dg"))]
PROGRAMS += [code for mark, code in BLOCKS if "error" not in mark]
MISTAKES = [p.read_text() for p in sorted((ROOT / "tests" / "golden" / "errors").glob("*.dg"))]
MISTAKES += [code for mark, code in BLOCKS if "error" in mark]


def fed(text: str) -> tuple[LineParser, list[tuple[str, str]]]:
    """The parse of `text` fed a line at a time, and the tokens it gave its parser."""
    parse = LineParser()
    tokens: list[tuple[str, str]] = []
    feed = parse.parser.feed_token
    parse.parser.feed_token = lambda token: (tokens.append((token.type, str(token))), feed(token))[1]  # type: ignore[method-assign]
    for line in text.rstrip("\n").split("\n"):
        parse.feed(line)
    return parse, tokens


def whole(text: str) -> list[tuple[str, str]]:
    """The tokens a parse of the whole text feeds its parser, up to the dedents at the end."""
    parser = LARK.parse_interactive(with_newline(text.rstrip("\n")), start="start")
    tokens = [(t.type, str(t)) for t in parser.exhaust_lexer()]
    while tokens and tokens[-1][0] in ("_DEDENT", "_NEWLINE"):
        tokens.pop()
    return tokens


@pytest.mark.parametrize("text", PROGRAMS, ids=range(len(PROGRAMS)))
def test_a_program_fed_line_by_line_sees_the_tokens_of_the_whole_text(text: str) -> None:
    parse, tokens = fed(text)
    assert not parse.failed and not parse.open and parse.can_end()
    while tokens and tokens[-1][0] in ("_DEDENT", "_NEWLINE"):
        tokens.pop()
    assert tokens == whole(text)


@pytest.mark.parametrize("text", MISTAKES, ids=range(len(MISTAKES)))
def test_a_mistake_fails_line_by_line_as_it_fails_whole(text: str) -> None:
    try:
        LARK.parse(with_newline(text), start="start")
        fails = False
    except (UnexpectedInput, SyntaxProblem):
        fails = True
    parse, _ = fed(text)
    assert (parse.failed or not parse.can_end()) == fails


def test_the_state_of_a_cell_being_typed() -> None:
    parse, _ = fed("def g(n):\n    if n > 0:")
    assert parse.expects_block() and parse.compound and parse.blocks == 1 and not parse.can_end()
    parse, _ = fed("x = [1,\n     2,")
    assert parse.open and not parse.compound
    parse, _ = fed("y = 1 + \\")
    assert parse.open  # a line continued with a backslash
    parse, _ = fed("z = a if c else b")
    assert not parse.compound and parse.can_end()
    parse, _ = fed("if x\n")
    assert parse.failed  # the missing ':' is known at the end of its line


def test_each_line_is_lexed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear time: the characters lexed for a cell are its own, once (plus each line's newline
    and the next line's indentation, lexed again with it), however long the cell grows."""
    lexed = [0]
    from_text = LexerThread.from_text

    def counting(lexer: object, text: str) -> LexerThread:
        lexed[0] += len(text)
        return from_text(lexer, text)  # type: ignore[arg-type]

    monkeypatch.setattr(incremental.LexerThread, "from_text", counting)
    for lines in (1000, 2000):
        lexed[0] = 0
        cell = "big = [\n" + "".join(f"    {i},\n" for i in range(lines)) + "]"
        parse, tokens = fed(cell)
        assert parse.can_end() and len(tokens) == 2 * lines + 4  # big = [ ... ]
        assert lexed[0] <= 2 * len(cell)
