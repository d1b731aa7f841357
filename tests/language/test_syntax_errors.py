"""Syntax-error knowledge as data: every example fails the way its message says, no two messages
claim the same failure, and a parse's brackets and indentation belong to that parse alone."""

from __future__ import annotations

import re
import textwrap
import threading

import pytest
from lark import UnexpectedToken

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.syntax.parser import LARK, interactive, parse, syntax_error
from dglang.interpreter.syntax.syntax_errors import EXAMPLES, Message, example_failure

CASES = [(message, example) for message, examples in EXAMPLES.items() for example in examples]
IDS = [example for _, example in CASES]


def error_for(text: str) -> DGError:
    with pytest.raises(DGError) as caught:
        parse(Source("<test>", text))
    return caught.value


def says(error: DGError, message: Message) -> bool:
    pattern = re.escape(message.text).replace(r"\{colon_line\}", r"\d+")
    return (error.kind, error.help) == (message.kind, message.help) and re.fullmatch(pattern, error.message) is not None


@pytest.mark.parametrize(("message", "example"), CASES, ids=IDS)
def test_every_example_fails_in_the_parser(message: Message, example: str) -> None:
    """match_examples only sees the parser's failures: an example that parses, or that the lexer
    or the indenter rejects first, would silently match nothing."""
    assert example_failure(example) is not None


@pytest.mark.parametrize(("message", "example"), CASES, ids=IDS)
def test_every_example_gets_its_own_message(message: Message, example: str) -> None:
    error = error_for(example)
    assert says(error, message), f"{example!r} says {error.message!r}"


@pytest.mark.parametrize(("message", "example"), CASES, ids=IDS)
def test_examples_match_the_same_mistake_inside_a_function(message: Message, example: str) -> None:
    """Failures are compared by what the parser would accept, not by lark's stack, so a top-level
    example also stands for the mistake made two blocks deep."""
    nested = "def f():\n    for i in xs:\n" + textwrap.indent(example, "        ")
    assert says(error_for(nested), message)


def test_no_two_messages_claim_the_same_failure() -> None:
    """Two messages with examples failing in the same state on the same token would leave
    match_examples to pick whichever comes first."""
    claimed: dict[tuple[frozenset[str], str], Message] = {}
    for message, example in CASES:
        failure = example_failure(example)
        assert failure is not None
        owner = claimed.setdefault((failure.state, failure.token.type), message)
        assert owner == message, f"{example!r} fails like an example of {owner.text!r}"


def test_a_state_shared_by_two_messages_falls_back_to_the_first_listed() -> None:
    """'=' before a header's ':' has its own message; any other token there gets "expected ':'"."""
    assert error_for("if x = 1:\n    pass\n").message == "'=' assigns; a condition compares with '=='"
    assert error_for("if x, y\n    pass\n").message == "expected ':' at the end of this line"
    assert error_for("while x += 1:\n    pass\n").message == "expected ':' at the end of this line"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        # the line of the ':' itself, also when the block is missing at the end of another block
        ("def f(x):\n    if x > 0:\ny = 1\n", "expected an indented block after the ':' on line 2", 2),
        ("if x:\n# nothing yet\n", "expected an indented block after the ':' on line 1", 2),
        # a bracket closed on a later line was not left open
        ("x = (1 +\n)\n", "unexpected ')'; expected an expression", 2),
        ("x = (1,\n2\ny = 3\n", "'(' was never closed", 1),
        # what the parser would accept there, not every token its table row mentions
        ("def f():\n    return a, b for\n", "unexpected 'for'; expected ',', ';' or the end of the line", 2),
        ("x = [1.0, 2.0 with 3.0]\n", "unexpected 'with'; expected ',' or ']'", 1),
        ("grad = 3\n", "'grad' is a keyword and cannot be a variable name", 1),
        ("x = 1\nelse:\n    x = 2\n", "'else' without a matching 'if' above it", 2),
    ],
)
def test_checks_and_the_generic_message(text: str, message: str, line: int) -> None:
    error = error_for(text)
    assert (error.message, error.span.line if error.span else None) == (message, line)


def test_each_parse_has_its_own_indentation() -> None:
    """lark's PythonIndenter keeps its state on itself; one shared between parses would let a
    second parse reset the bracket depth of a first one still under way."""
    first = interactive("x = (1,\n2)\n")
    steps = first.iter_parse()
    while str(next(steps)) != "1":  # now inside the '('
        pass
    second = interactive("if y:\n    z = [1]\n")
    second.exhaust_lexer()
    for _ in steps:  # the newline after "1," is still inside the brackets
        pass
    assert first.feed_eof() is not None


def test_a_parse_in_another_thread_cannot_see_this_parse_s_brackets() -> None:
    source = Source("<test>", "x = 1 +\n")
    with pytest.raises(UnexpectedToken) as caught:
        LARK.parse(source.text, start="start")

    def leave_a_bracket_open() -> None:  # another parse, under way when this one reports its error
        interactive("y = 0\nz = (1,\n").exhaust_lexer()

    other = threading.Thread(target=leave_a_bracket_open)
    other.start()
    other.join()
    error = syntax_error(caught.value, source)
    assert (error.message, error.span.line if error.span else None) == (
        "unexpected end of line; expected an expression",
        1,
    )


@pytest.mark.parametrize(
    ("text", "keyword", "word"),
    [
        ("for i inrange(3):\n    pass\n", "in", "range"),
        ("y = [x for x inxs]\n", "in", "xs"),
        ("z = 1 ifTrue else 2\n", "if", "True"),
    ],
)
def test_a_keyword_run_together_with_a_word(text: str, keyword: str, word: str) -> None:
    """lark's contextual lexer matches the keyword alone where no name may come; Python refuses it."""
    error = error_for(text)
    assert (error.kind, error.message) == ("SyntaxError", f"'{keyword}' run together with '{word}'"), error
    assert error.help == f"put a space after '{keyword}'"


def test_keywords_next_to_brackets_and_operators_are_fine() -> None:
    parse(Source("t.dg", "x = [1]\nprint(1 in x, not(True), 3 if(True)else 4)\nfor i in[1]:\n    pass\n"))
