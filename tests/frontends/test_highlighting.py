"""DG's Pygments lexer (interpreter/frontends/highlighting.py): every lesson lexes cleanly, each kind
of token is told apart, keywords and builtins come from the grammar and the builtins table, and
Pygments finds the lexer through its plugin entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename, guess_lexer
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text

from dglang.autograd.table import FUNCTIONS
from dglang.interpreter.frontends.highlighting import CONSTANTS, WORD_OPERATORS, DGLexer, builtin_names
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.syntax.grammar import keywords

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "programs").glob("*.dg")) + sorted((ROOT / "docs" / "examples").glob("*.dg"))


def kinds(text: str) -> list[tuple[object, str]]:
    """The tokens of `text` that are not white space, as (token kind, text)."""
    return [(kind, value) for kind, value in DGLexer().get_tokens(text) if value.strip() and kind not in Text]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_every_lesson_lexes_without_an_error_token(lesson: Path) -> None:
    text = lesson.read_text(encoding="utf-8")
    tokens = list(DGLexer().get_tokens(text))
    errors = [value for kind, value in tokens if kind in Error]
    assert not errors, f"{lesson.name}: the lexer could not read {errors}"
    assert "".join(value for _, value in tokens) == text


def test_a_sample_gets_the_right_kind_for_each_token() -> None:
    # (`is` is a name: DG has no such keyword)
    sample = 'def loss(w, x=1.5e-3):  # mean\n    return (w @ x).sum() ** 2 if not w is None else f"{w:.2f}"\ngrad y\n'
    assert kinds(sample) == [
        (Keyword, "def"), (Name.Function, "loss"), (Punctuation, "("), (Name, "w"), (Punctuation, ","),
        (Name, "x"), (Operator, "="), (Number.Float, "1.5e-3"), (Punctuation, ")"), (Punctuation, ":"),
        (Comment.Single, "# mean"), (Keyword, "return"), (Punctuation, "("), (Name, "w"), (Operator, "@"),
        (Name, "x"), (Punctuation, ")"),
        (Punctuation, "."), (Name, "sum"), (Punctuation, "("), (Punctuation, ")"), (Operator, "**"),
        (Number.Integer, "2"), (Keyword, "if"), (Operator.Word, "not"), (Name, "w"), (Name, "is"),
        (Keyword.Constant, "None"), (Keyword, "else"), (String.Affix, "f"), (String.Double, '"'),
        (String.Interpol, "{"), (Name, "w"), (String.Interpol, ":"), (String.Double, ".2f"),
        (String.Interpol, "}"), (String.Double, '"'), (Keyword, "grad"), (Name, "y"),
    ]  # fmt: skip


def test_strings_escapes_f_string_fields_and_numbers() -> None:
    assert kinds(r"'a\n' r'\d' 7 1_000 .5 2. 1e9") == [
        (String.Single, "'"), (String.Single, "a"), (String.Escape, r"\n"), (String.Single, "'"),
        (String.Affix, "r"), (String.Single, "'"), (String.Single, r"\d"), (String.Single, "'"),
        (Number.Integer, "7"), (Number.Integer, "1_000"), (Number.Float, ".5"), (Number.Float, "2."),
        (Number.Float, "1e9"),
    ]  # fmt: skip
    # a field holds code, strings in the other quote and slices; {{ }} are literal braces
    assert kinds("f\"{{x}} {d['k'][1:2]}\"") == [
        (String.Affix, "f"), (String.Double, '"'), (String.Escape, "{{"), (String.Double, "x"),
        (String.Escape, "}}"), (String.Interpol, "{"), (Name, "d"), (Punctuation, "["),
        (String.Single, "'"), (String.Single, "k"), (String.Single, "'"), (Punctuation, "]"), (Punctuation, "["),
        (Number.Integer, "1"), (Punctuation, ":"), (Number.Integer, "2"), (Punctuation, "]"),
        (String.Interpol, "}"), (String.Double, '"'),
    ]  # fmt: skip


def test_modules_and_dicts() -> None:
    assert kinds('from nn import linear\nimport data\nd = {"w": 1}\ndel d["w"]') == [
        (Keyword, "from"), (Name, "nn"), (Keyword, "import"), (Name, "linear"), (Keyword, "import"), (Name, "data"),
        (Name, "d"), (Operator, "="), (Punctuation, "{"), (String.Double, '"'), (String.Double, "w"),
        (String.Double, '"'), (Punctuation, ":"), (Number.Integer, "1"), (Punctuation, "}"), (Keyword, "del"),
        (Name, "d"), (Punctuation, "["), (String.Double, '"'), (String.Double, "w"), (String.Double, '"'),
        (Punctuation, "]"),
    ]  # fmt: skip
    # a dict inside an f-string's field is code, its braces brackets
    assert kinds("f\"{ {1: 2}[1] }\"")[2:6] == [
        (String.Interpol, "{"), (Punctuation, "{"), (Number.Integer, "1"), (Punctuation, ":"),
    ]  # fmt: skip


def test_a_character_dg_does_not_have_is_an_error() -> None:
    assert (Error, "$") in kinds("x = $y")


# ---- keywords and builtins come from the grammar and the builtins table ------------------------------
def test_every_keyword_of_the_grammar_is_coloured_as_one() -> None:
    words = set(keywords())
    assert words >= CONSTANTS | WORD_OPERATORS
    for word in words:
        [(kind, _)] = kinds(word)
        assert kind in Keyword or kind is Operator.Word, word


@pytest.mark.every_op
def test_every_builtin_is_coloured_as_one_and_nothing_else_is() -> None:
    names = set(new_session().builtins.vars)
    assert builtin_names() == names
    # the engine's functions declared builtins (autograd/table.py) are among them
    assert {f.dg_name for f in FUNCTIONS if f.builtin or f.numbers} <= names
    assert {"print", "gradcheck", "graph", "softmax", "pi"} <= names
    for name in sorted(names):
        assert kinds(name) == [(Name.Builtin, name)]
        assert kinds(f"x.{name}")[-1] == (Name, name)  # a method of the same name is no builtin
    assert kinds("weights") == [(Name, "weights")]


# ---- Pygments finds it --------------------------------------------------------------------------------
def test_pygments_finds_the_lexer_by_name_and_by_file() -> None:
    assert isinstance(get_lexer_by_name("dglang"), DGLexer)
    for lesson in (ROOT / "programs").glob("*.dg"):
        # Pygments' own lexer for pyos' dg also claims *.dg; the text decides (a `grad` statement,
        # `gradient(`, `tensor(`, `requires_grad=`)
        assert isinstance(get_lexer_for_filename(lesson.name, lesson.read_text(encoding="utf-8")), DGLexer)
    assert not isinstance(guess_lexer("import torch as t\nx = t.ones(2, requires_grad=True)\n"), DGLexer)
    assert DGLexer.analyse_text("from nn import mlp\nx = tensor([1.0])\n") > 0  # DG imports too
    assert DGLexer.analyse_text("import numpy as np\nx = tensor([1.0])\n") == 0


@pytest.mark.slow
def test_pygmentize_highlights_a_lesson() -> None:
    lesson = ROOT / "programs" / "01_hello.dg"
    for args in (["-l", "dglang"], []):
        shown = subprocess.run(
            [sys.executable, "-m", "pygments", *args, "-f", "html", str(lesson)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=True,
        ).stdout
        assert '<span class="k">grad</span>' in shown and '<span class="nb">tensor</span>' in shown
        assert '<span class="si">{</span><span class="n">name</span><span class="si">}</span>' in shown
