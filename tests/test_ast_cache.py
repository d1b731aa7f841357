"""The AST cache behind `dg FILE`: a second run of an unchanged file never imports the parser, and
nothing about the cache (a changed file, a broken entry, a folder that cannot be written, the
cache turned off) can change what a program does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
# Run the CLI in a fresh process and say on stderr whether the parser was ever imported.
RUN = "import sys; from dglang.interpreter.frontends.cli import main; code = main(sys.argv[1:]); print('dglang.interpreter.core.parser' in sys.modules, file=sys.stderr); sys.exit(code)"  # noqa: E501


def dg(program: Path, cache: Path, **env: str) -> tuple[str, str, bool]:
    """(stdout, stderr without the last line, whether the parser was imported)."""
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(program)],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        env={**os.environ, "XDG_CACHE_HOME": str(cache), "DG_CACHE": "", **env},
        timeout=60,
    )
    *errors, lark = done.stderr.splitlines()
    return done.stdout, "\n".join(errors), lark == "True"


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "dg" / "ast").glob("*.pickle"))


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.dg"
    path.write_text("x = tensor([1.0, 2.0], requires_grad=True)\ngrad (x * x).sum()\nprint(f'{x.grad}')\n")
    return path


def test_a_second_run_of_an_unchanged_file_does_not_parse(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = dg(program, cache)
    assert first == ("tensor([2., 4.])\n", "", True)
    assert len(entries(cache)) == 1
    second = dg(program, cache)
    assert second == ("tensor([2., 4.])\n", "", False), "the AST should have come from the cache"


def test_a_changed_file_is_parsed_again(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    dg(program, cache)
    program.write_text(program.read_text().replace("x * x", "x * x * x"))
    assert dg(program, cache) == ("tensor([ 3., 12.])\n", "", True)
    assert len(entries(cache)) == 2


def test_a_broken_entry_is_ignored(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    dg(program, cache)
    (entry,) = entries(cache)
    entry.write_bytes(b"not a pickle")
    assert dg(program, cache) == ("tensor([2., 4.])\n", "", True)
    assert dg(program, cache)[2] is False, "the broken entry should have been replaced"


def test_errors_are_the_same_from_the_cache(tmp_path: Path) -> None:
    program = tmp_path / "bad.dg"
    program.write_text("def f(x):\n    return x @ ones(3)\n\nf(ones(2))\n")
    cache = tmp_path / "cache"
    out, first, parsed = dg(program, cache)
    assert parsed and "ShapeError: matmul: (2,) @ (3,)" in first and "return x @ ones(3)" in first
    assert dg(program, cache) == (out, first, False)


def test_syntax_errors_are_not_kept(tmp_path: Path) -> None:
    program = tmp_path / "bad.dg"
    program.write_text("x = (1 +\n")
    cache = tmp_path / "cache"
    _, error, _ = dg(program, cache)
    assert "SyntaxError" in error and entries(cache) == []


def test_the_cache_can_be_turned_off(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert dg(program, cache, DG_CACHE="off") == ("tensor([2., 4.])\n", "", True)
    assert dg(program, cache, DG_CACHE="off")[2] is True
    assert not (cache / "dg").exists()


def test_a_cache_folder_that_cannot_be_written_is_not_used(program: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")  # the cache would have to be a folder inside a plain file
    assert dg(program, blocked) == ("tensor([2., 4.])\n", "", True)
    assert dg(program, blocked) == ("tensor([2., 4.])\n", "", True)
