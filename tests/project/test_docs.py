"""The docs cannot drift.

- Every ```console block in README.md and docs/*.md starts with `$ command`, and the command's output
  must be exactly the rest of the block. `dg` means this checkout's DG and `python` the Python
  running the tests, wherever they stand in the command (after `VAR=value`, a pipe, a `;`); `uv run
  COMMAND` is COMMAND in that Python's environment, so the blocks run the same without uv (pip route).
- Every ```dg block in docs/*.md is a program, run in a fresh Session as the file `example.dg` in
  docs/, with the course library on the library path as `dg --lib programs` puts it (`import nn`
  reads programs/nn.dg). When a ```text block follows it (at most one blank line between), what the
  program prints must be exactly that text. A block marked ```dg error must stop with an error, and
  its ```text block ends with the error report exactly as `dg` prints it; any other block must run
  without one. A block marked ```dg from PATH shows part of a file of the project (the course
  library: ```dg from programs/nn.dg): it must be in that file, verbatim.
- Every ```python block in docs/*.md is an excerpt of the source (interpreter/ or autograd/), verbatim.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host.module_files import Folder

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n\$ (?P<command>[^\n]*)\n(?P<output>.*?)```", re.DOTALL)


def console_blocks() -> list[tuple[str, str, str]]:
    return [(doc.name, m["command"], m["output"]) for doc in DOCS for m in BLOCK.finditer(doc.read_text())]


BLOCKS = console_blocks()
CLASS_RUN = "dg grade exercises/grading/submissions "  # grades the sample class: seconds of processor time


@pytest.fixture(scope="module")
def this_python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose PATH finds `dg` and `python` of this Python first: the shell finds them in
    any place of a command, where rewriting the command's text missed some (`DG_PARSER=lark dg ...`)."""
    commands = tmp_path_factory.mktemp("bin")
    python = shlex.quote(sys.executable)
    for name, command in (("dg", f"{python} -m dglang.interpreter"), ("python", python)):
        (commands / name).write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        (commands / name).chmod(0o755)
    return {**os.environ, "PATH": f"{commands}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.parametrize(
    ("doc", "command", "output"),
    [pytest.param(*block, marks=pytest.mark.slow) if block[1].startswith(CLASS_RUN) else block for block in BLOCKS],
    ids=[f"{d}: {c[:50]}" for d, c, _ in BLOCKS],
)
def test_console_block_output(doc: str, command: str, output: str, this_python: dict[str, str]) -> None:
    shell = re.sub(r"\buv run ", "", command)  # the tests run in the environment `uv run` would use
    result = subprocess.run(
        ["bash", "-c", shell], capture_output=True, text=True, cwd=ROOT, env=this_python, timeout=120
    )
    assert result.stdout == output, f"{doc}: `{command}` printed:\n{result.stdout}\n{result.stderr}"


def test_there_are_console_blocks() -> None:
    assert len(BLOCKS) >= 5


# ---- ```dg blocks: programs with the output they print ----------------------------------------
DG_BLOCK = re.compile(
    r"^```dg(?P<mark>[^\n]*)\n(?P<code>.*?)^```\n(?:\n?```text\n(?P<output>.*?)^```\n)?", re.DOTALL | re.MULTILINE
)


def dg_blocks() -> list[tuple[str, int, str, str, str | None]]:
    """(doc, line, mark, code, expected output or None) for each ```dg block in docs/*.md."""
    found = []
    for doc in DOCS[1:]:
        text = doc.read_text()
        for m in DG_BLOCK.finditer(text):
            found.append((doc.name, text.count("\n", 0, m.start()) + 1, m["mark"].strip(), m["code"], m["output"]))
    return found


def run_example(code: str) -> tuple[str, DGError | None]:
    """What a docs example prints, and the error it stopped with (if any)."""
    out = io.StringIO()
    session = Session(out=out, base_dir=ROOT / "docs")
    session.modules.library = [Folder(ROOT / "programs", "programs")]  # `dg --lib programs`, run from the root
    try:
        session.run(code, "example.dg")
    except DGError as e:
        return out.getvalue() + format_error(e), e
    return out.getvalue(), None


def check_example(mark: str, code: str, expected: str | None) -> None:
    if mark.startswith("from "):  # part of a file the examples use (the course library), shown as it is
        shown = ROOT / mark.removeprefix("from ").strip()
        assert shown.is_file() and code in shown.read_text(), f"```dg {mark}: this block is not in {shown.name}"
        return
    assert mark in ("", "error"), f"unknown mark ```dg {mark}: use ```dg, ```dg error or ```dg from PATH"
    printed, error = run_example(code)
    if mark == "error":
        assert error is not None, f"the example should stop with an error, but it ran and printed:\n{printed}"
        assert expected is not None, "an error example needs a ```text block with the report"
    else:
        assert error is None, f"the example stopped with an error:\n{printed}"
    if expected is not None:
        assert printed == expected, (
            f"the example printed:\n{printed}\ninstead of:\n{expected}\n"
            "if the change is intended: uv run python tests/project/update_doc_outputs.py, then read git diff docs/"
        )


DG_BLOCKS = dg_blocks()


@pytest.mark.parametrize(
    ("doc", "line", "mark", "code", "expected"), DG_BLOCKS, ids=[f"{d}:{n}" for d, n, *_ in DG_BLOCKS]
)
def test_dg_block(doc: str, line: int, mark: str, code: str, expected: str | None) -> None:
    check_example(mark, code, expected)


def test_the_example_checker_catches_wrong_output_and_missing_errors() -> None:
    check_example("", "print(1 + 1)\n", "2\n")
    with pytest.raises(AssertionError, match="printed"):
        check_example("", "print(1 + 1)\n", "3\n")
    with pytest.raises(AssertionError, match="should stop with an error"):
        check_example("error", "print(1)\n", "1\n")
    with pytest.raises(AssertionError, match="stopped with an error"):
        check_example("", "print(x)\n", None)
    check_example("error", "print(x)\n", run_example("print(x)\n")[0])
    assert run_example("print(x)\n")[0].startswith("example.dg:1:7: NameError:")


def test_blocks_are_found_with_their_output() -> None:
    text = "```dg\nprint(2)\n```\n\n```text\n2\n```\n```dg error\nx\n```\n"
    found = [(m["mark"], m["code"], m["output"]) for m in DG_BLOCK.finditer(text)]
    assert found == [("", "print(2)\n", "2\n"), (" error", "x\n", None)]


def test_there_are_dg_blocks_in_each_guide() -> None:
    docs = {doc for doc, *_ in DG_BLOCKS}
    assert {"language.md", "tutorial.md", "for-ml-courses.md"} <= docs, docs


# ---- ```python blocks: excerpts of the source ------------------------------------------------
PYTHON_BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```\n", re.DOTALL | re.MULTILINE)
EXCERPTS = [(doc.name, m["code"]) for doc in DOCS[1:] for m in PYTHON_BLOCK.finditer(doc.read_text())]


@pytest.mark.parametrize(("doc", "code"), EXCERPTS, ids=[f"{d}: {c.splitlines()[0][:40]}" for d, c in EXCERPTS])
def test_python_block_is_an_excerpt_of_the_source(doc: str, code: str) -> None:
    sources = [*sorted((ROOT / "interpreter").rglob("*.py")), *sorted((ROOT / "autograd").glob("*.py"))]
    assert any(code in path.read_text() for path in sources), f"{doc}: this block is not in the source as written"
