"""One line-splitting rule, the lexer's ("\\n", "\\r\\n", "\\r"), for every reader of source text.

A form feed (^L, a page break some editors put between sections), "\\v", "\\x1c"-"\\x1e", "\\x85",
U+2028 or U+2029 in a comment or a string is no line end for DG's lexer, but Python's
str.splitlines breaks there: every reader that used it was a line off after one (an error report
quoted the line above its caret, graph() and the stepper showed other code, the debugger listed
the wrong line, the language server answered about the line above the cursor). Each reader is
tried here after each such character, and tests/project/test_line_rule.py finds any splitlines
left in the code.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from optional_tools import need

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source, split_lines
from dglang.interpreter.frontends.sessions import new_session

ODD = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
IDS = [f"U+{ord(c):04X}" for c in ODD]


def program(odd: str) -> str:
    """Line 3 is the error; the odd character is in a comment and a string above it."""
    lines = [f"# page one{odd}still the comment", f's = "a{odd}b"', "x = tensor([1.0, 2.0], requires_grad=True)"]
    return "\n".join([*lines, "y = (x * x).sum()", "z = ones(2) @ ones(3)", ""])


@pytest.mark.parametrize("odd", ODD, ids=IDS)
def test_split_lines_is_the_lexer_s_rule(odd: str) -> None:
    text = program(odd)
    assert len(split_lines(text)) == text.count("\n") == 5
    assert Source("p.dg", text).line(5) == "z = ones(2) @ ones(3)"
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]


@pytest.mark.parametrize("odd", ODD, ids=IDS)
def test_an_error_report_quotes_its_own_line(odd: str) -> None:
    session = new_session(out=io.StringIO())
    with pytest.raises(DGError) as caught:
        session.run(program(odd), "p.dg")
    report = format_error(caught.value)
    assert report.startswith("p.dg:5:5: ShapeError")
    assert "5 | z = ones(2) @ ones(3)\n" in report


@pytest.mark.parametrize("odd", ODD, ids=IDS)
def test_graph_pictures_and_the_stepper_show_the_line_that_made_each_node(odd: str) -> None:
    out = io.StringIO()
    session = new_session(out=out)
    text = program(odd).replace("z = ones(2) @ ones(3)\n", "grad y\ngraph(y)\n")
    session.run(text, "p.dg")
    assert "line 4: (x * x).sum()" in out.getvalue()
    from dglang.interpreter.seeing.stepper import stepper_data
    from dglang.interpreter.seeing.tools import install

    seeing = install(session)
    data = stepper_data(seeing.graph(session.globals.vars["y"]), "y")
    [source] = data["sources"]
    assert source["lines"][3] == "y = (x * x).sum()" and len(source["lines"]) == 6


@pytest.mark.parametrize("odd", ["\f", "\x85", "\u2028"], ids=["U+000C", "U+0085", "U+2028"])
def test_the_debugger_lists_the_line_it_stands_on(odd: str, tmp_path: Path) -> None:
    (tmp_path / "p.dg").write_text(f"# a{odd}b\nx = 1\nbreakpoint()\ny = 2\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "p.dg"],
        input=":list\n:continue\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "->   breakpoint()" in result.stdout.replace("  3 ->", "->") or " 3 -> breakpoint()" in result.stdout


@pytest.mark.parametrize("odd", ["\f", "\x1e", "\u2029"], ids=["U+000C", "U+001E", "U+2029"])
def test_the_piped_repl_reports_the_line_it_ran(odd: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter"],
        input=f"# a{odd}b\nx = 1\nprint(x +)\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "print(x +)" in result.stderr and "# a" not in result.stderr.split("SyntaxError")[1]


@pytest.mark.slow  # a language server
@pytest.mark.parametrize("odd", ODD, ids=IDS)
def test_the_language_server_answers_about_the_line_asked(odd: str) -> None:
    need("pygls", "lsp")
    from lsp_util import URI, Editor, talk
    from lsprotocol import types

    text = f"# page{odd}break\ndef loss(w):\n    return w\n\nprnt(loss)\n"

    async def conversation(editor: Editor) -> None:
        [problem] = await editor.open(text)
        assert problem.range.start == types.Position(4, 0) and problem.message.startswith("NameError")
        hover = await editor.client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(1, 5))
        )
        assert hover is not None and "def loss(w)" in hover.contents.value
        # an edit the editor sends as a range: inserted on the line it names, not the one below
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(4, 0), end=types.Position(4, 4)), text="print"
        )
        editor.published.clear()
        editor.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2), content_changes=[change]
            )
        )
        await editor.published.wait()
        assert editor.diagnostics[URI] == []

    talk(conversation)


@settings(max_examples=40, deadline=None, database=None)
@given(
    lines=st.lists(st.text(alphabet=st.sampled_from([*ODD, "a", " ", "é", "\t", "#"]), max_size=12), max_size=8),
    at=st.integers(0, 8),
)
def test_random_odd_characters_in_comments_leave_every_line_where_the_lexer_has_it(lines: list[str], at: int) -> None:
    """Comments full of odd characters, then an error: the report quotes the erring line."""
    program = [f"# {line}" for line in lines]
    program.insert(min(at, len(program)), 'y = "a\u2028b\x85c"')
    program.append("z = ones(2) @ ones(3)")
    text = "\n".join(program) + "\n"
    assert split_lines(text) == text.split("\n")[:-1]
    with pytest.raises(DGError) as caught:
        new_session(out=io.StringIO()).run(text, "p.dg")
    report = format_error(caught.value)
    assert report.startswith(f"p.dg:{len(program)}:5: ShapeError") and "| z = ones(2) @ ones(3)\n" in report
