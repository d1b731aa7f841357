"""`dg lsp` answers on ordinary files, large and deep, through a real pipe: a 1 MB f-string, thousands
of unknown names among thousands of defined ones, an outline of 40,000 assignments, 200 nested
functions, thousands of broken lines, and random large f-strings drawn by hypothesis. Each answer
must arrive; the bound on its time is generous, a hang detector (today's numbers are in
docs/performance.md, measured with `uv run python bench/lsp_documents.py`); for broken documents
the work is counted too.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from optional_tools import need

need("pygls", "lsp")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lsp_util import TIMEOUT, URI, Editor, talk  # noqa: E402  (needs pygls, fetched above)
from lsprotocol import types  # noqa: E402

pytestmark = pytest.mark.slow  # documents of tens of thousands of lines, each through a server
HANG = 60.0  # seconds: far beyond any answer's time, short of a quadratic's minutes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from lsp_documents import CASES  # noqa: E402  (the documents the benchmark measures)

COUNTING_SERVER = [str(Path(__file__).resolve().parents[1] / "support" / "counting_lsp.py")]


def outline(editor: Editor) -> list[types.DocumentSymbol]:
    return editor.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=URI))
    )


def hover(editor: Editor, line: int, character: int):  # type: ignore[no-untyped-def]
    return editor.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line, character))
    )


def depth_of(symbols: list[types.DocumentSymbol]) -> int:
    deepest, stack = 0, [(s, 1) for s in symbols]
    while stack:
        symbol, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in symbol.children or [])
    return deepest


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_large_document_is_answered(case: str) -> None:
    text, check = CASES[case]
    assert len(text.encode()) <= 1 << 20

    async def conversation(editor: Editor) -> None:
        start = time.monotonic()
        problems = await editor.open(text)
        symbols = await outline(editor)
        shown = await hover(editor, 0, 1)
        assert time.monotonic() - start < HANG
        check(problems, symbols, shown)
        assert depth_of(symbols) <= 33

    talk(conversation, timeout=4 * HANG)


@pytest.mark.parametrize("kind", ["program", "tokens"])
def test_dg_parse_reads_a_1_mb_f_string(tmp_path: Path, kind: str) -> None:
    (tmp_path / "f.dg").write_text(CASES["one f-string of 1 MB"][0])
    options = ["--tokens"] if kind == "tokens" else []
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "parse", *options, "f.dg"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=4 * HANG,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - start < HANG


# ---- broken documents: read in work linear in their length, answered meanwhile ---------------------
def test_a_broken_document_is_read_in_work_linear_in_its_length(tmp_path: Path) -> None:
    """1,000 lines of `x = = 1`, then 4,000: the characters lark's lexers read and the tokens its
    parsers take per character of the document, counted in the server (support/counting_lsp.py), stay
    the same. Reading past each error read the text before it again: 5,000 such lines kept the first
    diagnostics 37 s away."""
    counts, texts = tmp_path / "counts.jsonl", ["x = = 1\n" * 1000, "x = = 1\n" * 4000]

    async def conversation(editor: Editor) -> None:
        assert len(await editor.open(texts[0])) == 100  # the editor's list is cut at the first hundred
        assert len(await editor.change(texts[1], version=2)) == 100

    talk(conversation, timeout=4 * HANG, server=[*COUNTING_SERVER, str(counts)])
    readings = [json.loads(line) for line in counts.read_text().splitlines()]
    lexed = [reading["characters lexed"] / len(text) for reading, text in zip(readings, texts, strict=True)]
    parsed = [reading["tokens parsed"] / len(text) for reading, text in zip(readings, texts, strict=True)]
    assert lexed[1] < 3 and parsed[1] < 3, (lexed, parsed)
    assert lexed[1] < 1.05 * lexed[0] and parsed[1] < 1.05 * parsed[0], (lexed, parsed)


def test_a_hover_is_answered_while_a_long_broken_document_is_read() -> None:
    """Documents are read in a thread of their own: a hover in another document is answered before
    the diagnostics of 10,000 broken lines, opened just before it, are sent."""
    other, program = "file:///work/other.dg", "def square(x):\n    return x * x\n"
    long = "x = = 1\n" * 10_000

    async def conversation(editor: Editor) -> None:
        await editor.open(program, uri=other)
        editor.published.clear()
        item = types.TextDocumentItem(uri=URI, language_id="dg", version=1, text=long)
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        answer = await editor.client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=other), position=types.Position(0, 5))
        )
        assert answer is not None and "def square(x)" in answer.contents.value
        assert URI not in editor.diagnostics  # still being read
        await asyncio.wait_for(editor.published.wait(), TIMEOUT)
        assert len(editor.diagnostics[URI]) == 100

    talk(conversation, timeout=4 * HANG)


# ---- fresh inputs: random large f-strings parse in time linear in their length --------------------
PIECES = st.sampled_from(["{x}", "{x:.3f}", "{ x + 1 }", "{[1, 2][0]}", "{{", "}}", "text ", "é", "{f(x, y=2)}"])


@settings(max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(PIECES, min_size=1, max_size=20), repeat=st.integers(1000, 20000))
def test_random_large_f_strings_parse_and_their_spans_land_on_their_line(pieces: list[str], repeat: int) -> None:
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.semantics import ast_nodes as ast
    from dglang.interpreter.syntax.parser import parse

    body = "".join(pieces) * repeat
    text = f'x = 1\ny = 2\ns = f"{body}"\n'
    if len(text) > 1 << 20:
        text = text[: (1 << 20) - 100].rsplit("\n", 1)[0] + "\n"
        return  # cut mid-placeholder: not a program; the lengths below are enough
    start = time.monotonic()
    module = parse(Source("f.dg", text))
    assert time.monotonic() - start < HANG
    value = module.body[2].value  # type: ignore[attr-defined]
    for part in getattr(value, "parts", []):
        if isinstance(part, ast.FormattedValue):
            span = part.expr.span
            assert span.line == 3
            assert text.split("\n")[2][span.column - 1 : span.end_column - 1].strip() != ""
