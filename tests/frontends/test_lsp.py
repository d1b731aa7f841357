"""`dg lsp` through a real pipe: the server runs as `python -m dglang.interpreter lsp` in a process
of its own, and pygls's LanguageClient talks to it as an editor would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from optional_tools import need

need("pygls", "lsp")

from lsp_util import URI, Editor, at, talk  # noqa: E402  (needs pygls, fetched above)
from lsprotocol import types  # noqa: E402

PROGRAM = """\
w = tensor([1.0, 2.0], requires_grad=True)

def loss(weights, scale=2.0):
    total = (weights * scale).sum()
    return total

l = loss(w)
grad l
print(w.grad)
"""


@pytest.mark.slow  # a language server
def test_syntax_error_is_a_diagnostic_in_dgs_words_and_a_fix_clears_it() -> None:
    async def conversation(editor: Editor) -> None:
        [problem] = await editor.open("x = (1 +\nprint(x)\n")
        assert problem.message == "SyntaxError: '(' was never closed\nhelp: close it with ')'"
        assert problem.range.start == types.Position(0, 4)
        assert problem.severity == types.DiagnosticSeverity.Error and problem.source == "dg"
        assert await editor.change("x = (1 + 2)\nprint(x)\n", version=2) == []

    talk(conversation)


@pytest.mark.slow  # a language server
def test_unknown_names_argument_counts_and_return_outside_a_function() -> None:
    async def conversation(editor: Editor) -> None:
        problems = await editor.open(PROGRAM + "prnt(l)\nloss(w, 1.0, 3)\nrelu(w, w)\n")
        assert {p.severity for p in problems} == {types.DiagnosticSeverity.Warning}  # fails if the line runs
        messages = [(p.range.start.line, p.message) for p in problems]
        assert messages == [
            (9, "NameError: name 'prnt' is not defined\nhelp: did you mean 'print'?"),
            (10, "TypeError: loss() takes 2 arguments but 3 were given\nhelp: def loss(weights, scale=2.0)"),
            (11, "TypeError: relu() got too many arguments\nhelp: relu(a)"),
        ]
        [problem] = await editor.change("return 1\n", version=2)
        assert problem.message == "SyntaxError: 'return' outside a function"
        assert problem.severity == types.DiagnosticSeverity.Error  # the program cannot start

    talk(conversation)


@pytest.mark.slow  # a language server
def test_hover_shows_the_help_of_help_and_the_programs_own_functions() -> None:
    async def conversation(editor: Editor) -> None:
        await editor.open(PROGRAM)
        hover = await editor.client.text_document_hover_async(types.HoverParams(**at(0, 6)))  # on `tensor`
        assert hover is not None and "tensor(data, requires_grad=False, dtype=None)" in hover.contents.value
        assert "(builtin function)" in hover.contents.value
        assert hover.range == types.Range(types.Position(0, 4), types.Position(0, 10))
        hover = await editor.client.text_document_hover_async(types.HoverParams(**at(3, 32)))  # `.sum`
        assert "x.sum(axis=None, keepdims=False)" in hover.contents.value and "derivative  Sum" in hover.contents.value
        hover = await editor.client.text_document_hover_async(types.HoverParams(**at(6, 5)))  # `loss(w)`
        assert "def loss(weights, scale=2.0)" in hover.contents.value
        hover = await editor.client.text_document_hover_async(types.HoverParams(**at(7, 1)))  # `grad`
        assert "(keyword)" in hover.contents.value

    talk(conversation)


@pytest.mark.slow  # a language server
def test_completion_offers_builtins_names_in_scope_and_tensor_methods() -> None:
    async def conversation(editor: Editor) -> None:
        await editor.open(PROGRAM)
        # Half typed: the text no longer parses, completion uses the last version that did.
        await editor.change(PROGRAM + "lo", version=2)
        result = await editor.client.text_document_completion_async(types.CompletionParams(**at(9, 2)))
        labels = {i.label: i for i in result.items}
        assert {"loss", "log", "log_softmax"} <= labels.keys()
        assert labels["loss"].detail == "def loss(weights, scale=2.0)"
        assert labels["loss"].kind == types.CompletionItemKind.Function
        assert labels["loss"].text_edit.range == types.Range(types.Position(9, 0), types.Position(9, 2))
        await editor.change(PROGRAM + "w.re", version=3)
        result = await editor.client.text_document_completion_async(types.CompletionParams(**at(9, 4)))
        assert {"relu", "requires_grad", "reshape"} <= {i.label for i in result.items}
        await editor.change(PROGRAM + "wh", version=4)
        result = await editor.client.text_document_completion_async(types.CompletionParams(**at(9, 2)))
        assert ("while", types.CompletionItemKind.Keyword) in [(i.label, i.kind) for i in result.items]

    talk(conversation)


@pytest.mark.slow  # a language server
def test_definition_and_document_symbols() -> None:
    async def conversation(editor: Editor) -> None:
        await editor.open(PROGRAM)
        found = await editor.client.text_document_definition_async(types.DefinitionParams(**at(6, 5)))
        assert found.uri == URI and found.range == types.Range(types.Position(2, 4), types.Position(2, 8))
        found = await editor.client.text_document_definition_async(types.DefinitionParams(**at(3, 14)))  # weights
        assert found.range == types.Range(types.Position(2, 9), types.Position(2, 16))
        assert await editor.client.text_document_definition_async(types.DefinitionParams(**at(0, 6))) is None
        symbols = await editor.client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=URI))
        )
        assert [(s.name, s.kind) for s in symbols] == [
            ("w", types.SymbolKind.Variable),
            ("loss", types.SymbolKind.Function),
            ("l", types.SymbolKind.Variable),
        ]
        assert [c.name for c in symbols[1].children] == ["weights", "scale", "total"]
        assert symbols[1].range.start.line == 2 and symbols[1].range.end.line >= 4

    talk(conversation)


@pytest.mark.slow  # a language server
def test_a_document_mid_edit_keeps_its_name_checks_and_definitions() -> None:
    """A document is almost always mid-edit: an unfinished line (`w2 = w.`) is one error, and the
    rest of the document is still checked and still answers go-to-definition. Before, the
    SyntaxError was the only diagnostic and go-to-definition returned nothing."""
    typing = PROGRAM + "prnt(l)\nw2 = w.\n"

    async def conversation(editor: Editor) -> None:
        problems = sorted(await editor.open(typing), key=lambda p: p.range.start.line)
        assert [(p.range.start.line, p.severity, p.message.split("\n")[0]) for p in problems] == [
            (9, types.DiagnosticSeverity.Warning, "NameError: name 'prnt' is not defined"),
            (10, types.DiagnosticSeverity.Error, "SyntaxError: unexpected end of line; expected a name"),
        ]
        assert "did you mean 'print'?" in problems[0].message
        found = await editor.client.text_document_definition_async(types.DefinitionParams(**at(6, 5)))  # loss(w)
        assert found is not None and found.range == types.Range(types.Position(2, 4), types.Position(2, 8))
        # `return` outside a function: the name checks go on too
        problems = await editor.change("return 5\n" + typing.replace("w2 = w.\n", ""), version=2)
        problems.sort(key=lambda p: p.range.start.line)
        assert [(p.range.start.line, p.message.split("\n")[0]) for p in problems] == [
            (0, "SyntaxError: 'return' outside a function"),
            (10, "NameError: name 'prnt' is not defined"),
        ]

    talk(conversation)


@pytest.mark.slow
def test_hostile_text_never_stops_the_server() -> None:
    hostile = [
        "(" * 5000,
        "def f(\n" * 300,
        "x = 1\n" + "\udcff\n",
        "\x00\x01\x02 def",
        "x = [" + "1, " * 10_000 + "]\n" * 2,  # a syntax error at the end of a long line
        "def f():\n" + "  " * 2000 + "pass\n",
        "a\r\nb =\r\n",
    ]

    async def conversation(editor: Editor) -> None:
        for number, text in enumerate(hostile):
            await editor.open(text, uri=f"file:///hostile{number}.dg")
            await editor.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=f"file:///hostile{number}.dg"),
                    position=types.Position(0, 3),
                )
            )
        assert await editor.open(PROGRAM) == []  # and still answers

    talk(conversation)


def test_dg_lsp_help_is_what_the_vscode_extension_looks_for() -> None:
    run = subprocess.run([sys.executable, "-m", "dglang.interpreter", "lsp", "--help"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("usage: dg lsp")


def test_without_pygls_dg_lsp_says_what_to_install(tmp_path: Path) -> None:
    # A pygls that cannot be imported, ahead of the installed one on the path.
    (tmp_path / "pygls").mkdir()
    (tmp_path / "pygls" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pygls'\", name='pygls')\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "lsp"], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 69 and run.stdout == ""
    assert run.stderr == (
        "dg: ImportError: `dg lsp` needs pygls, which is not installed\n"
        " = help: pip install 'dglang[lsp]' installs DG with it (in a checkout: pip install -e \".[lsp]\", or uv run "
        "--extra lsp dg lsp)\n"
    )


# ---- what the server reads, without the pipe ----------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]


def analysis_of(text: str, folder: Path | None = None, name: str = "t.dg"):
    """The analysis of `text` named `name`; its imports are looked for beside `name` and in `folder`
    (the current folder if None)."""
    from dglang.interpreter.frontends.lsp.analysis import analyze
    from dglang.interpreter.frontends.sessions import new_session

    return analyze(new_session() if folder is None else new_session(base_dir=folder), text, name)


@pytest.mark.parametrize("path", sorted((ROOT / "programs").glob("*.dg")), ids=lambda p: p.name)
def test_the_lessons_have_nothing_to_mark(path: Path) -> None:
    analysis = analysis_of(path.read_text(encoding="utf-8"), path.parent, str(path))  # its imports found beside it
    assert analysis.problems == [] and analysis.warnings == []
    assert analysis.found  # and their definitions were read


def test_only_what_will_fail_is_marked() -> None:
    text = """\
def setup():
    global_later = 1
    return [k * k for k in range(3)]

def relu_twice(relu):
    return relu(relu(1.0))

f = setup
f(1, 2)
for i in range(2):
    print(i, later)
later = 2
sum(1, 2, 3, 4)
sum = 0
"""
    # `global_later` is assigned somewhere; `f` may be anything; `relu` is a parameter, `sum` is
    # assigned: only `k`, `i` and `later` are read, all defined. Nothing to mark.
    assert [(w.kind, w.message) for w in analysis_of(text).warnings] == []


def test_definitions_follow_the_scopes() -> None:
    from dglang.interpreter.frontends.lsp.symbols import definition_of, functions_at, visible

    text = "x = 1\ndef f(y):\n    x = y\n    return x\nprint(x)\n"
    found = analysis_of(text).found
    lines = text.split("\n")

    def around(line: int, column: int) -> list:
        return functions_at(found, lines, line, column)

    assert definition_of(found, "x", around(4, 12)).span.line == 3  # f's own x
    assert definition_of(found, "x", around(5, 7)).span.line == 1  # the top level's
    assert definition_of(found, "y", around(3, 9)).kind == "parameter"
    assert definition_of(found, "y", around(2, 8)).kind == "parameter"  # on the def's own line
    assert set(visible(found, around(3, 5))) == {"x", "f", "y"} and set(visible(found, around(5, 1))) == {"x", "f"}
    # A line being typed at the end of f (the text no longer parses): f's names, from the last parse.
    typing = [*lines[:4], "    return y.", *lines[4:]]
    assert set(visible(found, functions_at(found, typing, 5, 13))) == {"x", "f", "y"}
    assert set(visible(found, functions_at(found, typing, 6, 1))) == {"x", "f"}


NN = """\
# a course's module
scale = 2.0

def linear(x, w, b):
    return x @ w + b

def relu_layer(x, w, b):
    return relu(linear(x, w, b))
"""
LESSON = """\
import nn
from nn import linear

h = linear(ones(1, 2), ones(2, 2), zeros(2))
y = nn.relu_layer(h, ones(2, 2), zeros(2))
"""


@pytest.mark.slow  # a language server
def test_imports_go_to_definitions_in_the_module_file_and_complete_its_names(tmp_path: Path) -> None:
    """A lesson beside its course's module: definitions jump into nn.dg, `nn.` completes its names,
    a name nn.dg does not define is a diagnostic, and an edit to nn.dg is seen at the next reading."""
    (tmp_path / "nn.dg").write_text(NN)
    (tmp_path / "lesson.dg").write_text(LESSON)
    lesson, nn = (tmp_path / "lesson.dg").as_uri(), (tmp_path / "nn.dg").as_uri()

    def where(line: int, character: int) -> dict:
        return {"text_document": types.TextDocumentIdentifier(uri=lesson), "position": types.Position(line, character)}

    async def conversation(editor: Editor) -> None:
        assert await editor.open(LESSON, uri=lesson) == []
        definition = editor.client.text_document_definition_async
        found = await definition(types.DefinitionParams(**where(3, 5)))  # `linear`, taken from nn
        assert found.uri == nn and found.range == types.Range(types.Position(3, 4), types.Position(3, 10))
        found = await definition(types.DefinitionParams(**where(4, 9)))  # nn.`relu_layer`
        assert found.uri == nn and found.range.start == types.Position(6, 4)
        found = await definition(types.DefinitionParams(**where(0, 8)))  # `nn` itself: the file
        assert found.uri == nn and found.range.start == types.Position(0, 0)
        hover = await editor.client.text_document_hover_async(types.HoverParams(**where(4, 9)))
        assert hover is not None
        assert "def relu_layer(x, w, b)    (function defined in nn.dg, line 7)" in hover.contents.value
        await editor.change(LESSON + "nn.", version=2, uri=lesson)
        result = await editor.client.text_document_completion_async(types.CompletionParams(**where(5, 3)))
        items = {i.label: i for i in result.items}
        assert set(items) == {"scale", "linear", "relu_layer"}
        assert items["linear"].kind == types.CompletionItemKind.Function
        assert items["linear"].detail == "def linear(x, w, b)"
        [problem] = await editor.change(LESSON + "from nn import relu_layr\n", version=3, uri=lesson)
        assert problem.message == (
            "ImportError: cannot import name 'relu_layr' from nn (nn.dg)\nhelp: did you mean 'relu_layer'?"
        )
        assert problem.severity == types.DiagnosticSeverity.Error and problem.range.start == types.Position(5, 15)
        calls = "linear(1, 2)\nnn.relu_layer(1, 2, 3, 4)\n"
        problems = await editor.change(LESSON + calls, version=31, uri=lesson)
        assert [(p.range.start.line, p.message.split("\n")[0]) for p in problems] == [
            (5, "TypeError: linear() is missing its argument 'b'"),
            (6, "TypeError: relu_layer() takes 3 arguments but 4 were given"),
        ]
        (tmp_path / "nn.dg").write_text(NN.replace("def linear(x, w, b)", "def linear(x, w, b) oops"))
        [problem] = await editor.change(LESSON + "\n", version=4, uri=lesson)
        assert problem.message.startswith("SyntaxError: in nn.dg, line 4: ")
        assert problem.range.start == types.Position(0, 7)  # at `import nn`, the line that leads there
        (tmp_path / "nn.dg").write_text(NN)
        assert await editor.change(LESSON, version=5, uri=lesson) == []

    talk(conversation)


def test_a_newer_text_cancels_the_reading_still_waiting_for_its_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Readings of one document queued while a long one runs: only the newest is made (typing in a long
    document queued a reading per pause, each shown long after it was stale). Counted: which texts
    were read, with the first reading held until the others are asked for."""
    import asyncio
    import threading

    from dglang.interpreter.frontends.lsp import documents
    from dglang.interpreter.frontends.lsp.analysis import Analysis
    from dglang.interpreter.frontends.sessions import new_session

    started, gate, read = threading.Event(), threading.Event(), []

    def analyze(session: object, text: str, name: str, modules: object) -> Analysis:
        read.append(text)
        started.set()
        gate.wait(30)
        return Analysis(text)

    monkeypatch.setattr(documents, "analyze", analyze)

    async def typing() -> None:
        held = documents.Documents(new_session(), documents.reader())
        first = held.read(URI, "first")
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
        second, third = held.read(URI, "second"), held.read(URI, "third")
        ready = asyncio.ensure_future(held.ready(URI))  # waits for the newest reading, through the others
        gate.set()
        await asyncio.wait_for(ready, 30)
        assert second.cancelled() and not first.cancelled() and not third.cancelled()

    asyncio.run(typing())
    assert read == ["first", "third"]
