"""Editor support (editors/): the TextMate grammar tokenizes every lesson as DG's Pygments lexer
does, checked with VS Code's own tokenizer (vscode-textmate on Oniguruma, run by node from
tests/support/textmate/, skipped only where node is missing); its keyword and builtin lists are current;
the VS Code extension's files fit together, its indentation rules and its language-server probe
do what they say."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import editor_grammar
import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Text, _TokenType

from dglang.interpreter.frontends.cli import SUBCOMMANDS
from dglang.interpreter.frontends.highlighting import DGLexer, builtin_names, keyword_names

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "dg.tmLanguage.json"
TEXTMATE = ROOT / "tests" / "support" / "textmate"  # tokenize.js and the npm packages it runs on
LESSONS = sorted((ROOT / "programs").glob("*.dg")) + sorted((ROOT / "docs" / "examples").glob("*.dg"))
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (VS Code's tokenizer runs on node)")

Line = list[tuple[int, int, list[str]]]  # a line's tokens: start, end, scopes (outermost first)


@pytest.mark.every_op
def test_the_grammars_keywords_and_builtins_are_current() -> None:
    text = GRAMMAR.read_text(encoding="utf-8")
    assert editor_grammar.rewrite(text) == text, (
        "the grammar's keywords or builtins are out of date: run `uv run python tools/regenerate.py`"
    )
    patterns = json.dumps(json.loads(text)["repository"]["builtins"])
    assert all(name in patterns for name in builtin_names())


# ---- tokenizing with VS Code's tokenizer --------------------------------------------------------------
@pytest.fixture(scope="module")
def tokenize() -> Callable[[list[str]], list[list[Line]]]:
    """Tokenize texts with the grammar; installs the npm packages (tests/support/textmate/package-lock.json)
    the first time, as .ci/run does."""
    if NODE is None:
        pytest.skip("node is not installed (VS Code's tokenizer runs on node)")
    installed = TEXTMATE / "node_modules" / ".package-lock.json"
    lock = TEXTMATE / "package-lock.json"
    if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
        npm = shutil.which("npm")
        assert npm, "npm (which comes with node) is missing: the test needs it once, to install tests/support/textmate"
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TEXTMATE, capture_output=True, text=True)
        assert done.returncode == 0, f"`npm ci` in tests/support/textmate failed:\n{done.stdout}{done.stderr}"

    def run(texts: list[str]) -> list[list[Line]]:
        done = subprocess.run(
            [NODE, str(TEXTMATE / "tokenize.js"), str(GRAMMAR)],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            encoding="utf-8",
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run


# What each scope means, tried on a token's innermost scope first; the names are the Pygments kinds'
# below, so that the two can be compared character by character.
SCOPE_KINDS = [
    ("invalid.", "error"),
    ("comment.", "comment"),
    ("punctuation.definition.comment.", "comment"),
    ("punctuation.section.embedded.", "field"),  # the braces of an f-string's {field}
    ("punctuation.separator.format-spec.", "field"),
    ("constant.other.format-spec.", "string"),
    ("constant.character.escape.", "escape"),
    ("storage.type.string.", "prefix"),
    ("punctuation.definition.string.", "string"),
    ("string.", "string"),
    ("constant.language.", "keyword"),
    ("keyword.operator.logical.", "keyword"),
    ("keyword.control.", "keyword"),
    ("storage.type.function.", "keyword"),
    ("keyword.operator.", "operator"),
    ("support.function.builtin.", "builtin"),
    ("entity.name.function.call.", "name"),
    ("entity.name.function.", "function"),
    ("variable.other.property.", "name"),
    ("constant.numeric.", "number"),
    ("punctuation.separator.continuation.", "text"),  # a backslash at the end of a line
    ("punctuation.", "punctuation"),
    ("meta.embedded.", "name"),  # code inside an f-string's field
    ("source.dg", "name"),
]
TOKEN_KINDS: list[tuple[_TokenType, str]] = [
    (Comment, "comment"),
    (String.Interpol, "field"),
    (String.Escape, "escape"),
    (String.Affix, "prefix"),
    (String, "string"),
    (Keyword, "keyword"),
    (Operator.Word, "keyword"),
    (Operator, "operator"),
    (Name.Builtin, "builtin"),
    (Name.Function, "function"),
    (Number, "number"),
    (Punctuation, "punctuation"),
    (Name, "name"),
    (Error, "error"),
    (Text, "text"),
]


def scope_kind(scopes: list[str]) -> str:
    for scope in reversed(scopes):
        for prefix, kind in SCOPE_KINDS:
            if scope.startswith(prefix):
                return kind
    raise AssertionError(f"no kind for {scopes}")


def token_kind(token: _TokenType) -> str:
    return next(kind for t, kind in TOKEN_KINDS if token in t)


def kinds_by_pygments(text: str) -> list[list[str | None]]:
    """For each line, the kind of each character (None for white space) as DG's Pygments lexer says."""
    lines: list[list[str | None]] = [[]]
    for token, value in DGLexer().get_tokens(text):
        for i, part in enumerate(value.split("\n")):
            if i:
                lines.append([])
            lines[-1].extend(None if c.isspace() else token_kind(token) for c in part)
    return lines


def kinds_by_textmate(text: str, lines: list[Line]) -> list[list[str | None]]:
    """The same, as the TextMate grammar says. (The lessons are within Unicode's BMP, where
    vscode-textmate's UTF-16 columns and Python's agree.)"""
    result = []
    for line_text, tokens in zip(text.split("\n"), lines, strict=True):
        kinds: list[str | None] = [None] * len(line_text)
        for start, end, scopes in tokens:
            for i in range(start, end):
                kinds[i] = None if line_text[i].isspace() else scope_kind(scopes)
        result.append(kinds)
    return result


# Corners the lessons may not reach, read the same way by both.
CORNERS = """\
def max_of(xs, key=None):  # a builtin's name as a function's
    return x.max() + x.grad.sum() + x.T @ w; y = -1_000 + 2. + .5e-3 + 1e9
s = f"{x[1:3]} {d['k']:>8} {{literal}} {f(a, [b, c]):.3f} \\n" + r"\\d" + 'it\\'s'
t = f'{"quoted"} {x if ok else None}' + F"{len(xs)}" + R'raw'
total = a + \\
    b
if not (x in xs and y not in ys) or z: pass
import nn, data
from nn import linear, relu_layer
params = {"w1": w1, 2: [1, {}]}; del params["w1"]
named = {k: v.sum() for k, v in params.items()}
f"{ {'a': 1}['a'] } {d[(1, 2)]}"
unfinished = "no closing quote
"""


@needs_node
def test_every_lesson_is_tokenized_as_the_pygments_lexer_reads_it(tokenize: Callable) -> None:
    texts = [lesson.read_text(encoding="utf-8") for lesson in LESSONS] + [CORNERS]
    names = [lesson.name for lesson in LESSONS] + ["CORNERS"]
    for lesson, text, lines in zip(names, texts, tokenize(texts), strict=True):
        ours, theirs = kinds_by_pygments(text), kinds_by_textmate(text, lines)
        for number, (line, a, b) in enumerate(zip(text.split("\n"), ours, theirs, strict=False), 1):
            diff = next((i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y), None)
            assert diff is None, (
                f"{lesson}:{number}:{diff + 1}: the TextMate grammar says {b[diff]}, Pygments {a[diff]}\n"
                f"  {line}\n  {' ' * diff}^"
            )


def scopes_at(text: str, lines: list[Line], piece: str, line: int = 0) -> list[str]:
    """The scopes of the token where `piece` first starts on line `line` of `text`."""
    column = text.split("\n")[line].index(piece)
    return next(scopes for start, end, scopes in lines[line] if start <= column < end)


@needs_node
def test_keywords_builtins_strings_f_strings_numbers_and_comments_get_their_scopes(tokenize: Callable) -> None:
    text = 'def f(x):  # note\n    return 1.5e3 if not x else f"{len(x):.2f} {{}} \\n" + r"\\d" + 2\n'
    [lines] = tokenize([text])

    def innermost(piece: str, line: int = 1) -> str:
        return scopes_at(text, lines, piece, line)[-1]

    assert innermost("def", 0) == "storage.type.function.dg" and innermost("f(", 0) == "entity.name.function.dg"
    assert scopes_at(text, lines, "# note", 0)[1] == "comment.line.number-sign.dg"
    assert innermost("return") == innermost("if") == innermost("else") == "keyword.control.dg"
    assert innermost("not") == "keyword.operator.logical.dg"
    assert innermost("1.5e3") == "constant.numeric.float.dg"
    assert innermost('f"') == "storage.type.string.dg"
    assert scopes_at(text, lines, "len", 1)[1:] == [
        "string.interpolated.double.dg",
        "meta.embedded.expression.dg",
        "support.function.builtin.dg",
    ]
    assert innermost("{len") == "punctuation.section.embedded.begin.dg"
    assert innermost(".2f") == "constant.other.format-spec.dg"
    assert innermost("{{}}") == innermost("\\n") == "constant.character.escape.dg"
    assert scopes_at(text, lines, "\\d", 1)[1] == "string.quoted.raw.double.dg"
    [two] = [s for start, _, s in lines[1] if text.split("\n")[1][start:].rstrip() == "2"]
    assert two[-1] == "constant.numeric.integer.dg"
    [[single_brace]] = tokenize(['f"a } b"'])
    assert single_brace[3][2][-1] == "invalid.illegal.brace.dg"
    words = sorted(keyword_names())
    for word, [[(_, _, scopes)]] in zip(words, tokenize(words), strict=True):
        assert scopes[-1].split(".")[0] in ("keyword", "constant", "storage"), word


# ---- the VS Code extension ----------------------------------------------------------------------------
def test_the_extension_declares_the_language_its_grammar_and_its_configuration() -> None:
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    [language] = manifest["contributes"]["languages"]
    [grammar] = manifest["contributes"]["grammars"]
    assert language["id"] == grammar["language"] == "dg" and language["extensions"] == [".dg"]
    assert (VSCODE / language["configuration"]).is_file() and (VSCODE / manifest["main"]).is_file()
    assert (VSCODE / grammar["path"]).resolve() == GRAMMAR
    assert json.loads(GRAMMAR.read_text(encoding="utf-8"))["scopeName"] == grammar["scopeName"]
    lock = json.loads((VSCODE / "package-lock.json").read_text(encoding="utf-8"))
    assert "node_modules/vscode-languageclient" in lock["packages"]
    assert set(manifest["dependencies"]) == {"vscode-languageclient"}


def test_the_indentation_rules() -> None:
    config = json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))
    assert config["comments"] == {"lineComment": "#"} and ["(", ")"] in config["brackets"]
    indent, outdent = (re.compile(rule["beforeText"]) for rule in config["onEnterRules"])
    assert [rule["action"]["indent"] for rule in config["onEnterRules"]] == ["indent", "outdent"]
    for line in ("if x > 0:", "def f(x, y=2):  # note", "    else:", "for i in range(3):", "with no_grad:"):
        assert indent.search(line), line
    for line in ("x = 1", 'print("if:")', "# if x:", "if x: return 1", "iffy = 2"):
        assert not indent.search(line), line
    for line in ("    return x", "pass", "        break", "continue  # done"):
        assert outdent.search(line), line
    for line in ("returned = 1", "x = 1", "if x: return"):
        assert not outdent.search(line), line
    dedent = re.compile(config["indentationRules"]["decreaseIndentPattern"])
    assert dedent.search("    else:") and dedent.search("elif x > 1:") and not dedent.search("elsewhere = 1")
    assert config["indentationRules"]["increaseIndentPattern"] == config["onEnterRules"][0]["beforeText"]


@needs_node
def test_the_extension_starts_the_language_server_only_when_dg_has_one(tmp_path: Path) -> None:
    extension = VSCODE / "extension.js"
    assert subprocess.run([NODE, "--check", str(extension)], capture_output=True).returncode == 0
    # extension.js outside VS Code: a stand-in for the `vscode` module, which only VS Code provides
    (tmp_path / "node_modules" / "vscode").mkdir(parents=True)
    (tmp_path / "node_modules" / "vscode" / "index.js").write_text("module.exports = {};\n", encoding="utf-8")
    probe = "require(process.argv[1]).hasLanguageServer(process.argv[2], (found) => console.log(found))"

    def has_server(command: Path) -> bool:
        env = {**os.environ, "NODE_PATH": str(tmp_path / "node_modules")}
        args = [str(NODE), "-e", probe, str(extension), str(command)]
        done = subprocess.run(args, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    dg = Path(sys.executable).parent / ("dg.exe" if os.name == "nt" else "dg")
    assert has_server(dg) == ("lsp" in SUBCOMMANDS)  # the real `dg`, with or without `dg lsp` yet
    assert has_server(tmp_path / "no-such-dg") is False
    if os.name != "nt":  # a stand-in for a DG that has the server
        fake = tmp_path / "dg"
        fake.write_text("#!/bin/sh\necho 'usage: dg lsp [-h]'\n", encoding="utf-8")
        fake.chmod(0o755)
        assert has_server(fake) is True
