"""The fast parser gives the AST lark's path gives, spans included, or declines and lets lark's
path parse (and word every syntax error).

Both paths parse every lesson, every .dg file and every string in tests/, the docs' examples, the
fuzz tests' generated programs and mutated lessons, and a list of corner cases; for each text,
either both give the same AST, or lark's path raises a syntax error and the fast path declines.
`DG_FUZZ=long uv run pytest tests/language/test_fast_parser.py` runs a hundred times more fuzz cases.
"""

from __future__ import annotations

import ast as python_ast
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_programs import LONG, ProgramWriter, examples, lesson_files, mutations
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax import parser
from dglang.interpreter.syntax.fast import fast_parser
from dglang.interpreter.syntax.fast import lalr_tables as grammar_tables
from dglang.interpreter.syntax.indenter import with_newline

ROOT = Path(__file__).resolve().parents[2]


# ---- comparing the two paths ------------------------------------------------------------------
def difference(a: object, b: object) -> str | None:
    """Where two ASTs differ (types, values, spans), or None. AST nodes compare by identity, so
    this walks both; it needs no recursion, for the deeply nested cases."""
    stack = [(a, b, "module")]
    while stack:
        x, y, path = stack.pop()
        if type(x) is not type(y):
            return f"{path}: {type(x).__name__} against {type(y).__name__}"
        if isinstance(x, Span):
            if x != y:
                return f"{path}: {where(x)} against {where(y)}"  # type: ignore[arg-type]
        elif isinstance(x, ast.Node):
            stack.extend((getattr(x, name), getattr(y, name), f"{path}.{name}") for name in x.fields())
        elif isinstance(x, list | tuple):
            if len(x) != len(y):  # type: ignore[arg-type]
                return f"{path}: {len(x)} items against {len(y)}"  # type: ignore[arg-type]
            stack.extend((u, v, f"{path}[{i}]") for i, (u, v) in enumerate(zip(x, y, strict=True)))  # type: ignore[call-overload]
        elif x != y:
            return f"{path}: {x!r} against {y!r}"
    return None


def where(span: Span) -> str:
    return f"{span.line}:{span.column}-{span.end_line}:{span.end_column}"


def fast(source: Source) -> object | None:
    return fast_parser.parse(source, with_newline(source.text), "start", parser.expression_parser(source))


def check_both_paths(text: str, name: str = "<test>") -> str:
    """Parse `text` both ways and check they agree: "parsed" (the same AST), "error" (lark's path
    raises a syntax error, the fast path declines) or "lark's reading" (see lark_reads_differently)."""
    source = Source(name, text)
    found = fast(source)
    try:
        expected = parser.parse_with_lark(source)
    except DGError as e:
        assert found is None, f"lark's path says {e.kind}: {e.message} at {e.span}, the fast path parsed:\n{text}"
        return "error"
    if found is None:
        assert lark_reads_differently(text), f"the fast path declined a program lark parses:\n{text}"
        return "lark's reading"
    problem = difference(found, expected)
    assert problem is None, f"{name}: {problem}\n{text}"
    return "parsed"


def lark_reads_differently(text: str) -> bool:
    """Whether lark's tokens are not the fast path's. lark's contextual lexer tries only the tokens
    the parser's state allows, so after `for i` it reads `inrange` as `in` `range`, and after `2.`
    it reads `index` as `in` `dex`: text no lexer without the parser's state would read so. The
    fast path declines such text, and lark's path parses it."""
    from dglang.interpreter.syntax.grammar import LARK

    text = with_newline(text)
    lark = [(t.start_pos, t.end_pos) for t in LARK.parse_interactive(text, start="start").iter_parse()]
    tokens = fast_parser.PARSER.tokenize(text)  # type: ignore[union-attr]
    return lark != list(zip(tokens.starts, tokens.ends, strict=False))


# ---- the corpus -----------------------------------------------------------------------------------
def dg_files() -> list[Path]:
    return sorted(
        [
            *(ROOT / "programs").glob("*.dg"),
            *(ROOT / "tests").rglob("*.dg"),
            *(ROOT / "bench").glob("*.dg"),
            *(ROOT / "docs").rglob("*.dg"),
            *(ROOT / "exercises").rglob("*.dg"),
        ]
    )


def docs_examples() -> list[str]:
    """The ```dg blocks of the docs, and the programs their console blocks pipe into dg."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        found += re.findall(r"^```dg[^\n]*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
        for piped in re.findall(r"^\$ printf '((?:[^'\\]|\\.)*)' \| dg", text, re.MULTILINE):
            found.append(piped.encode().decode("unicode_escape"))
    return found


def strings_in_tests() -> list[str]:
    """Every string constant in tests/*.py: programs, fragments of programs, and plenty of text that
    is not a program at all, which the fast path must decline exactly when lark's path fails."""
    strings: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:
            continue  # its corner cases are tested one by one below
        for node in python_ast.walk(python_ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, python_ast.Constant) and isinstance(node.value, str) and node.value.strip():
                strings.add(node.value)
    return sorted(strings)


CORNERS = [
    "",
    "\n\n\n",
    "# only a comment",
    "x = 1",  # no newline at the end
    "x = 1  # a comment at the end",
    "x = (1 +\n     2)\ny = [1,\n\n  2,  # inside brackets\n]\n",
    "x = 1 + \\\n    2\n",
    "if x:\n\tpass\n",  # a tab
    "if x:\n        pass\n    \n",
    "if x:\n    if y:\n        pass\n  pass\n",  # a dedent to no level
    "def f(a, b=2,):\n    return a, b,\n",
    "x.grad\nx.grad.zero_()\ny = x.with_\n",  # keywords after a dot are names
    "print(x.grad, grad)\n",
    "for i inrange(3):\n    pass\n",  # lark reads `in` `range` here (see fast_parser.py)
    "f(x=1, 2)\n",
    "f() = 1\n",
    "a, b = b, a\n(a, b) = 1, 2\n[a] = 1\n",
    'print(f"{x:.2f} {y!r}")\n',
    'print(f"{x} {f"{y}"}")\n',
    "print(f'{x} {f\"{y}\"}')\n",
    'print(f"{{}} {x[1:2]} {d}")\n',
    'print(f"{}")\n',
    'print(f"{x # c}")\n',
    's = "a" \'b\' f"{c}"\n',
    'x = "\\N{GREEK SMALL LETTER ALPHA}" + "\\q"\n',
    "x = 1_000 + 0x10\n",
    "x = 1.5e-3 + .5 + 5. + 1e5 + 1_0.0_1\n",
    "x = 1 if y else 2 if z else 3\n",
    "x = not not a in b not in c\n",
    "x = -2 ** -3 ** 4\n",
    "x = a[1:2, ::3, :, None][0]\n",
    "x = [i for i in xs if i]\nx = [i for i, j in zs]\n",
    "assert x, 'm'\ngrad y with z\nreturn\n",
    "while True:\n    break\nelse:\n    pass\n",
    "λ = 1\nπ2 = λ\n",
    "x = 1;\ny = 2; z = 3;\n",
    "x = 1\r\ny = 2\r\n",
    "x = 1 \f+ 2\n\fy = 3\n",
    "x = $\n",
    "x = (1\n",
    "x = 1)\n",
    "x = [1)\n",
    "if x\n    pass\n",
    "def f(a, a):\n    pass\n",
    "for i, i in x:\n    pass\n",
    "-" * 300 + "1\n",
    "(" * 200 + "1" + ")" * 200 + "\n",
    "x = " + " + ".join(["1"] * 3000) + "\n",
    "".join("    " * i + "if x:\n" for i in range(60)) + "    " * 60 + "pass\n",
]


@pytest.mark.parametrize("path", dg_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_program_file_parses_the_same_both_ways(path: Path) -> None:
    outcome = check_both_paths(path.read_text(encoding="utf-8"), path.name)
    if path.parent.name == "programs":
        assert outcome == "parsed"


def test_the_docs_examples_parse_the_same_both_ways() -> None:
    examples = docs_examples()
    assert len(examples) > 50
    for text in examples:
        check_both_paths(text)


@pytest.mark.slow
def test_every_string_in_the_tests_parses_the_same_both_ways() -> None:
    outcomes = [check_both_paths(text) for text in strings_in_tests()]
    assert outcomes.count("parsed") > 300 and outcomes.count("error") > 300


@pytest.mark.parametrize("text", CORNERS)
def test_corner_cases_parse_the_same_both_ways(text: str) -> None:
    check_both_paths(text)


@pytest.mark.slow
def test_generated_programs_parse_the_same_both_ways() -> None:
    for seed in range(examples(1500, 100_000)):  # DG_FUZZ=long: many more
        check_both_paths(ProgramWriter(random.Random(seed)).program())


@pytest.mark.slow
@settings(
    max_examples=examples(1000, 100_000),
    deadline=None,
    database=None,
    derandomize=not LONG,  # the same thousand cases each run; DG_FUZZ=long draws new ones
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_lessons_parse_the_same_both_ways(data: st.DataObject) -> None:
    _lesson, mutated = data.draw(mutations(lesson_files()), label="mutation")
    check_both_paths(mutated.decode("utf-8", "replace"))


# ---- declining ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["x = $\n", "if x:\n    y\n  z\n", "x = (1\n", "f(a=1, 2)\n", 'print(f"{x!r}")\n', "x = 1 +\n"],
)
def test_on_a_mistake_the_fast_path_declines_and_the_error_is_lark_s(text: str) -> None:
    source = Source("bad.dg", text)
    assert fast(source) is None
    with pytest.raises(DGError) as by_lark:
        parser.parse_with_lark(source)
    with pytest.raises(DGError) as by_parse:
        parser.parse(source)
    assert (by_parse.value.kind, by_parse.value.message, by_parse.value.span, by_parse.value.help) == (
        by_lark.value.kind,
        by_lark.value.message,
        by_lark.value.span,
        by_lark.value.help,
    )


def test_a_program_that_parses_does_not_load_lark() -> None:
    script = (
        "import sys, io\n"
        "from dglang.interpreter.host.session import Session\n"
        "s = Session(out=io.StringIO())\n"
        "s.run('def f(x):\\n    return x.grad\\nprint(f\"{1 + 2:.1f}\")\\n', 'a.dg')\n"
        "assert s.out.getvalue() == '3.0\\n', s.out.getvalue()\n"
        "print('lark' in sys.modules)\n"
        "try:\n"
        "    s.run('x = (', 'b.dg')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e.message)\n"
        "print('lark' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["False", "DGError '(' was never closed", "True"]


# ---- one indenter, a switch, and saying which path ran ------------------------------------------
def test_both_paths_follow_the_one_indenter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path has no indentation rules of its own: what indenter.py says, both paths do."""
    from dglang.interpreter.syntax.indenter import Indentation

    text = "if x:\n\ty = 1\n    z = 2\n"  # a tab, then four spaces
    with pytest.raises(DGError, match="indentation"):
        parser.parse(Source("tabs.dg", text))
    assert fast(Source("tabs.dg", text)) is None
    monkeypatch.setattr(Indentation, "tab_len", 4)  # a tab as deep as four spaces: the same block
    assert check_both_paths(text) == "parsed"


def test_dg_parse_tokens_shows_the_same_tokens_from_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """`dg parse --tokens` shows the tokens of the path that ran; both read the same ones, a keyword
    after a dot (`x.grad`) as a name included."""
    from dglang.interpreter.seeing.syntax_view import token_rows

    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "programs").glob("*.dg"))]
    texts.append("x.grad = 1  # a comment\n\n\nif x:\n  # another\n\n    y = f'{a:3}'\n")
    for text in texts:
        source = Source("t.dg", text)
        assert parser.which_path(source)[0] == "fast"
        by_fast = "".join(token_rows(source))
        monkeypatch.setenv("DG_PARSER", "lark")
        assert parser.which_path(source)[0] == "lark"
        assert "".join(token_rows(source)) == by_fast
        monkeypatch.delenv("DG_PARSER")
    assert "1:3     NAME       'grad'" in by_fast


def test_dg_parser_lark_turns_the_fast_path_off() -> None:
    script = (
        "import io, sys\n"
        "from dglang.interpreter.host.session import Session\n"
        "Session(out=io.StringIO()).run('x = 1\\n', 'a.dg')\n"
        "print('lark' in sys.modules)\n"
    )
    env = {**os.environ, "DG_PARSER": "lark"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    assert done.stdout == "True\n"
    said = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "parse", "--tokens", "-"],
        input="x = 1\n",
        capture_output=True,
        text=True,
        env=env,
    )
    assert said.stderr == "dg: lark reads <stdin>: DG_PARSER=lark in the environment turns the fast parser off\n"


def test_after_a_grammar_edit_dg_parse_says_lark_parses_and_how_to_write_the_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fast_parser, "PARSER", None)  # what load() leaves after dg.lark was edited
    path, why = parser.which_path(Source("a.dg", "x = 1\n"))
    assert path == "lark" and why.endswith(f"`{grammar_tables.COMMAND}`")
    assert parser.which_path(Source("b.dg", "x = (\n"))[0] == "lark"


# ---- the tables -----------------------------------------------------------------------------------
def test_the_tables_are_current_with_the_grammar() -> None:
    fresh = grammar_tables.render(grammar_tables.analyse())
    stored = grammar_tables.TABLES.read_text(encoding="utf-8")
    assert stored == fresh, (
        f"{grammar_tables.TABLES.relative_to(ROOT)} is out of date with grammar/dg.lark (or with lark); "
        f"run `{grammar_tables.COMMAND}`"
    )


def test_tables_made_from_another_grammar_are_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grammar = tmp_path / "dg.lark"
    grammar.write_text(grammar_tables.GRAMMAR.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(grammar_tables, "GRAMMAR", grammar)
    assert grammar_tables.load() is not None
    grammar.write_text(grammar.read_text(encoding="utf-8").replace('"**"', '"^"'), encoding="utf-8")
    assert grammar_tables.load() is None  # an edited grammar: lark's path parses until regenerated
    monkeypatch.setitem(sys.modules, "dglang.interpreter.syntax.fast.dg_tables", None)  # the module missing
    assert grammar_tables.load() is None


def test_the_tables_are_literals_only() -> None:
    """interpreter/syntax/fast/dg_tables.py runs no code when imported: every statement assigns a literal."""
    module = python_ast.parse(grammar_tables.TABLES.read_text(encoding="utf-8"))
    names = set()
    for statement in module.body:
        assert isinstance(statement, python_ast.Assign) and len(statement.targets) == 1, python_ast.unparse(statement)
        target = statement.targets[0]
        assert isinstance(target, python_ast.Name)
        python_ast.literal_eval(statement.value)  # raises on anything but a literal
        names.add(target.id)
    assert names >= {"GRAMMAR", "TERMINALS", "KEYWORDS", "SYMBOLS", "RULES", "STATES", "START_STATES", "END_STATES"}


def test_lark_keeps_no_cache_of_its_own() -> None:
    from dglang.interpreter.syntax.grammar import LARK

    assert not LARK.options.cache
