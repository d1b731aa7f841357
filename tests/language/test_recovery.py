"""Every syntax error of a file at once (syntax/recovery.py): one error per mistake and no cascade,
each the error `dg FILE` reports for that mistake alone, in the order of the text, and a syntax
tree of the parts that parse, each broken statement standing as a `pass`."""

from __future__ import annotations

import os
import random
import re
import sys
from pathlib import Path
from unittest.mock import patch

import pytest
from broken_lines import lines, program
from fuzz_programs import watchdog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from work_counts import counting

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.seeing.syntax_view import dump_ast
from dglang.interpreter.syntax.parser import parse
from dglang.interpreter.syntax.recovery import recover
from dglang.interpreter.syntax.syntax_errors import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from recovery import mixed  # noqa: E402  (the documents bench/recovery.py times)


def errors_of(text: str) -> list[str]:
    return [f"{e.span.line}:{e.span.column} {e.kind}: {e.message}" for e in recover(Source("t.dg", text)).errors]


def first_error(text: str) -> DGError:
    with pytest.raises(DGError) as raised:
        parse(Source("t.dg", text))
    return raised.value


def test_three_separate_mistakes_are_three_errors_and_the_rest_parses() -> None:
    text = "x = = 1\ndef f(a):\n    return a +\ny = f(2)\nprint(y\nz = 3\n"
    recovered = recover(Source("t.dg", text))
    assert [format_error(e) for e in recovered.errors] == [
        "t.dg:1:5: SyntaxError: unexpected '='; expected an expression\n  |\n1 | x = = 1\n  |     ^\n",
        "t.dg:3:15: SyntaxError: unexpected end of line; expected an expression\n  |\n3 |     return a +\n"
        "  |               ^\n",
        "t.dg:5:6: SyntaxError: '(' was never closed\n  |\n5 | print(y\n  |      ^\n  = help: close it with ')'\n",
    ]
    fixed = "pass\ndef f(a):\n    pass\ny = f(2)\npass\nz = 3\n"
    assert dump_ast(recovered.module) == dump_ast(parse(Source("t.dg", fixed)))


# Single mistakes, each one line (or a header and its block), and the text it is as a `pass`.
MISTAKES = [
    ("x = = 1", "pass"),
    ("y = (1 + ) * 2", "pass"),
    ("if x = 1:\n    y = 2\n    z = 3", "pass"),
    ("while i = 0:\n    i += 1", "pass"),
    ("for i inrange(3):\n    print(i)", "pass"),
    ("def f(a, b:\n    return a", "pass"),
    ("grad = x.grad", "pass"),
    ("w = x.", "pass"),
    ("print(1 2)", "pass"),
    ("z = 'never closed", "pass"),
    ("q = 3 $ 4", "pass"),
    ("import numpy as np", "pass"),
    ("class Net:\n    pass", "pass"),
    ("f(x) = 2", "pass"),
    ('s = f"{x +}"', "pass"),
    ("t = [1, 2", "pass"),
    ("u = 2 ]", "pass"),
    ("else:\n    v = 1", "pass"),
    ("if x\n    y = 1", "pass"),
    ("return = 4", "pass"),
]
GOOD = ["a = 1", "def g(n):\n    return n * 2", "b = g(a)", "for k in range(2):\n    b += k", "print(b)"]


@pytest.mark.parametrize("mistake", [m for m, _ in MISTAKES])
def test_one_mistake_is_one_error_the_same_as_dg_files(mistake: str) -> None:
    text = "\n".join([GOOD[0], GOOD[1], mistake, *GOOD[2:]]) + "\n"
    recovered = recover(Source("t.dg", text))
    assert [format_error(e) for e in recovered.errors] == [format_error(first_error(text))]


@pytest.mark.parametrize("seed", range(12))
def test_each_error_is_dg_files_for_its_mistake_alone(seed: int) -> None:
    rng = random.Random(seed)
    chosen = rng.sample(MISTAKES, 3)
    parts: list[tuple[str, str]] = []
    for mistake, fixed in chosen:
        parts += [(good, good) for good in rng.sample(GOOD, 2)] + [(mistake, fixed)]
    text = "\n".join(broken for broken, _ in parts) + "\n"
    recovered = recover(Source("t.dg", text))
    expected = []
    for i, (broken, fixed) in enumerate(parts):
        if broken == fixed:
            continue
        # the text with every other mistake fixed (a `pass`, spread over the same lines)
        alone = [b if j == i or f == b else fixed_keeping_lines(b) for j, (b, f) in enumerate(parts)]
        expected.append(first_error("\n".join(alone) + "\n"))
    expected.sort(key=lambda e: (e.span.line, e.span.column))
    assert [format_error(e) for e in recovered.errors] == [format_error(e) for e in expected]
    fixed_text = "\n".join(b if f == b else fixed_keeping_lines(b) for b, f in parts) + "\n"
    assert dump_ast(recovered.module) == dump_ast(parse(Source("t.dg", fixed_text)))


def fixed_keeping_lines(broken: str) -> str:
    """`pass`, and as many blank lines after it as the broken statement had after its first."""
    return "pass" + "\n" * broken.count("\n")


def test_the_first_error_is_always_dg_files() -> None:
    """For each example of syntax_errors.py's messages, and each golden syntax error."""
    texts = [example for examples in EXAMPLES.values() for example in examples]
    for path in sorted((ROOT / "tests" / "golden" / "errors").glob("*.dg")):
        texts.append(path.read_text(encoding="utf-8"))
    checked = 0
    for text in texts:
        try:
            parse(Source("t.dg", text))
        except DGError as e:
            assert recover(Source("t.dg", text)).errors[0].message == e.message, text
            assert format_error(recover(Source("t.dg", text)).errors[0]) == format_error(e), text
            checked += 1
    assert checked >= 10


def test_an_unexpected_indent_is_one_error_and_its_lines_are_the_blocks() -> None:
    text = "x = 1\n    y = 2\n    z = 3\nw = y + z\n"
    assert errors_of(text) == ["2:5 IndentationError: unexpected indent"]
    assert shape(recover(Source("t.dg", text)).module) == shape(
        parse(Source("t.dg", "x = 1\ny = 2\nz = 3\nw = y + z\n"))
    )


def test_a_line_at_no_blocks_indentation_is_one_error_and_is_read_as_the_enclosing_blocks() -> None:
    text = "def f():\n    if a:\n        b = 1\n      c = 2\n      d = 3\n    return c\ne = = 1\n"
    assert errors_of(text) == [
        "4:1 IndentationError: this line's indentation does not match any enclosing block",
        "7:5 SyntaxError: unexpected '='; expected an expression",
    ]
    fixed = "def f():\n    if a:\n        b = 1\n    c = 2\n    d = 3\n    return c\npass\n"
    assert shape(recover(Source("t.dg", text)).module) == shape(parse(Source("t.dg", fixed)))


def shape(module: object) -> str:
    """The syntax tree without the columns of its nodes."""
    return re.sub(r"(\d+):\d+", r"\1", dump_ast(module))  # type: ignore[arg-type]


def test_a_header_without_its_block_is_one_error_and_the_next_line_is_a_statement() -> None:
    text = "if x:\nprint(1)\ny = = 2\n"
    assert errors_of(text) == [
        "2:1 IndentationError: expected an indented block after the ':' on line 1",
        "3:5 SyntaxError: unexpected '='; expected an expression",
    ]
    assert "Call" in dump_ast(recover(Source("t.dg", text)).module)


def test_a_bracket_never_closed_leaves_the_lines_after_it_as_statements() -> None:
    text = "def g():\n    x = (1,\n    return x\nw = [1,\n      2\nv = g()\nu = (\n"
    recovered = recover(Source("t.dg", text))
    assert [f"{e.span.line}: {e.message}" for e in recovered.errors] == [
        "2: '(' was never closed",
        "4: '[' was never closed",
        "7: '(' was never closed",
    ]
    fixed = "def g():\n    pass\n    return x\npass\n\nv = g()\npass\n"
    assert dump_ast(recovered.module) == dump_ast(parse(Source("t.dg", fixed)))


def test_mistakes_found_building_the_tree_are_reported_with_the_parsers() -> None:
    text = 'x = f"{a +}"\nf() = 3\ny = = 2\nz = 4\n'
    assert errors_of(text) == [
        "1:11 SyntaxError: unexpected end of input; expected an expression",
        "2:1 SyntaxError: cannot assign to a function call",
        "3:5 SyntaxError: unexpected '='; expected an expression",
    ]
    assert dump_ast(recover(Source("t.dg", text)).module) == dump_ast(
        parse(Source("t.dg", "pass\npass\npass\nz = 4\n"))
    )


def test_the_names_a_broken_statement_seems_to_define() -> None:
    text = "def f(x:\n    return x\nw = (1,\n\nfor a, b inn pairs:\n    pass\nn += \n"
    assert recover(Source("t.dg", text)).unfinished == {"f", "w", "a", "b", "n"}


def test_a_program_that_parses_has_no_errors_and_the_same_tree() -> None:
    for path in sorted((ROOT / "programs").glob("*.dg")):
        text = path.read_text(encoding="utf-8")
        recovered = recover(Source(path.name, text))
        assert recovered.errors == [] and dump_ast(recovered.module) == dump_ast(parse(Source(path.name, text)))


@pytest.mark.slow
def test_mutated_lessons_recover_and_agree_with_dg_on_the_first_error() -> None:
    """Each lesson with a line broken in one of several ways: recovery never fails, and its first
    error is dg's. (Breaking a line can make more than one mistake; the first is certain.)"""
    rng = random.Random(27)
    breakers = [lambda s: s + " )", lambda s: s.replace("=", "= =", 1), lambda s: s.rstrip(":"), lambda s: "  " + s]
    breakers += [lambda s: s.replace("(", "", 1), lambda s: s + " $", lambda s: re.sub(r"\w+$", "", s)]
    checked = 0
    for path in sorted((ROOT / "programs").glob("*.dg")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for _ in range(12):
            i = rng.randrange(len(lines))
            if not lines[i].strip() or lines[i].lstrip().startswith("#"):
                continue
            text = "\n".join([*lines[:i], rng.choice(breakers)(lines[i]), *lines[i + 1 :]])
            try:
                parse(Source("t.dg", text))
            except DGError as e:
                recovered = recover(Source("t.dg", text))
                assert recovered.errors and format_error(recovered.errors[0]) == format_error(e), text
                checked += 1
    assert checked >= 40


def test_an_unfinished_f_string_expression_is_pointed_at_where_it_ends() -> None:
    """Not at the column just past the file's last line, as it was: `+}` here, on line 1."""
    error = first_error('s = f"{x +}"\nand_a_longer_last_line = 12345\n')
    assert (error.span.line, error.span.column) == (1, 11)


@pytest.mark.slow  # (300 drawn files: the cases above read each kind of mistake in the fast run)
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=lines(), final_newline=st.booleans())
def test_any_mix_of_broken_and_good_lines_is_read_to_its_end(drawn: list[tuple[str, int]], final_newline: bool) -> None:
    """Whatever the mix, at whatever indentation: recovery ends (it stopped with lark's exception,
    or went round in circles, when a bracket or a skipped block left the indenter and the parser
    disagreeing about the blocks open), each error is one `dg` can print, and the error `dg FILE`
    reports is among them (not always first: `f() = 1` is found building the tree, after parsing)."""
    text = program(drawn, final_newline)
    with watchdog(10.0):
        recovered = recover(Source("t.dg", text))
    for error in recovered.errors:
        assert error.span is not None and format_error(error).startswith(f"t.dg:{error.span.line}:"), text
    try:
        parse(Source("t.dg", text))
    except DGError as e:
        assert format_error(e) in [format_error(error) for error in recovered.errors], text
    else:
        assert recovered.errors == [], text
    # The tree is built from the tokens kept by the fast parser's loop; lark's parser and tree, the
    # reference (DG_PARSER=lark), build the same, and find the same mistakes building it.
    with patch.dict(os.environ, {"DG_PARSER": "lark"}):
        by_lark = recover(Source("t.dg", text))
    assert dump_ast(by_lark.module) == dump_ast(recovered.module), text
    assert [format_error(e) for e in by_lark.errors] == [format_error(e) for e in recovered.errors], text


@pytest.mark.parametrize("kind", ["one mistake repeated", "seven kinds"])
def test_recovery_reads_each_character_a_bounded_number_of_times(kind: str) -> None:
    """Work linear in the text: each error's message was worked out on the whole text again, with the
    statements before it blanked (5,000 broken lines took minutes, and `dg lsp` showed nothing
    meanwhile). Counted, not timed: the characters lark's lexers read and the tokens its parsers
    take, per character, stay the same when the text is eight times longer."""

    def work(count: int) -> tuple[float, float]:
        text = "x = = 1\n" * count if kind == "one mistake repeated" else mixed(count)
        with counting() as counts:
            errors = recover(Source("t.dg", text)).errors
        assert len(errors) >= count
        return counts["characters lexed"] / len(text), counts["tokens parsed"] / len(text)

    (lexed, parsed), (lexed_8x, parsed_8x) = work(250), work(2000)
    assert lexed_8x < 3 and parsed_8x < 3, (lexed_8x, parsed_8x)  # each character read once, its statement's once more
    assert lexed_8x < 1.05 * lexed and parsed_8x < 1.05 * parsed, ((lexed, parsed), (lexed_8x, parsed_8x))
