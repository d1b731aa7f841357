"""The error catalogue: each tests/golden/errors/NAME.dg is a mistake a student makes, and NAME.err is
exactly what DG must print for it.

To add one, drop in NAME.dg and run `DG_UPDATE_GOLDEN=1 uv run pytest tests/language/test_errors.py`,
then read the new NAME.err: it is the message students will see, so make it a good one. A case
that needs command-line options names them on its first line: `# dg --max-steps 1000`.

A file whose name starts with `_` is not a case but a module the cases import (`import _layers`);
an error inside one (the `module_` cases) is reported at the module's own line.
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
from dglang.interpreter.frontends import cli

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = Path(__file__).resolve().parents[2] / "tests" / "golden" / "errors"
CASES = sorted(p for p in CATALOGUE.glob("*.dg") if not p.name.startswith("_"))
UPDATE = os.environ.get("DG_UPDATE_GOLDEN") == "1"
HEADER = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<kind>\w+): (?P<message>.+)$")


def options(path: Path) -> list[str]:
    """Command-line options a case needs, from a first line like `# dg --max-steps 1000`."""
    first = path.read_text().split("\n", 1)[0]
    return shlex.split(first[len("# dg ") :]) if first.startswith("# dg ") else []


def error_for(path: Path) -> DGError:
    session = cli.new_session(cli.parser().parse_args([*options(path), str(path)]))
    session.out = io.StringIO()
    with pytest.raises(DGError) as caught:
        session.run(path.read_text(), path.name)
    return caught.value


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_message_matches_catalogue(path: Path) -> None:
    text = format_error(error_for(path))
    golden = path.with_suffix(".err")
    if UPDATE or not golden.exists():
        golden.write_text(text)
        if not UPDATE:
            pytest.fail(f"wrote a new golden {golden.name}: read it, then run again")
    assert text == golden.read_text()


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_message_is_located_and_kind_matches_name(path: Path) -> None:
    """Every error starts with file:line:col: Kind: message, and shows the source with a caret."""
    error = error_for(path)
    first, *rest = format_error(error).splitlines()
    match = HEADER.match(first)
    assert match, first
    in_module = match["file"].startswith("_")  # an error in a module the case imports
    assert match["file"] == path.name or in_module
    assert "^" in "\n".join(rest), "no caret under the source"
    prefix = path.stem.split("_")[0]
    expected = {
        "syntax": {"SyntaxError", "IndentationError"},
        "name": {"NameError"},
        "type": {"TypeError"},
        "shape": {"ShapeError"},
        "index": {"IndexError"},
        "grad": {"GradError"},
        "value": {"ValueError"},
        "attribute": {"AttributeError"},
        "zero": {"ZeroDivisionError"},
        "recursion": {"RecursionError"},
        "assertion": {"AssertionError"},
        "file": {"FileError"},
        "overflow": {"OverflowError"},
        "limit": {"LimitError"},
        "import": {"ImportError"},
        "key": {"KeyError"},
    }.get(prefix)
    if expected:
        assert error.kind in expected


def test_errors_inside_functions_show_the_call_stack() -> None:
    text = format_error(error_for(CATALOGUE / "call_stack_nested.dg"))
    stack = text.split("DG call stack (innermost last):\n")[1].splitlines()
    assert [row.split()[1] for row in stack] == ["<program>", "outer", "inner"]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_cli_exit_code_and_no_traceback(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main([*options(path), str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    assert err.startswith((f"{path}:", f"{path.parent}/_"))
    error = error_for(path)
    assert code == (cli.EXIT_SYNTAX if error.is_syntax else cli.EXIT_RUNTIME)


def test_a_real_process_prints_no_traceback() -> None:
    """One end-to-end run of the installed module, in case something only breaks outside pytest."""
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", str(CATALOGUE / "call_stack_nested.dg")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == cli.EXIT_RUNTIME
    assert "ShapeError" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [[], ["check"]], ids=["run", "check"])
def test_a_real_process_reports_deep_nesting_without_a_traceback(command: list[str]) -> None:
    """After a syntax error `dg FILE` and `dg check` read on for the others; a tree nested deeper
    than the resolver can follow is then the first error's business, not a logged traceback (which
    pytest's own log capture would hide from an in-process test)."""
    path = CATALOGUE / "syntax_nested_too_deeply.dg"
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *command, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == cli.EXIT_SYNTAX
    assert "Traceback" not in result.stderr and "InternalError" not in result.stderr
    assert result.stderr.count("SyntaxError: this is nested too deeply for DG") == 1


def test_the_caret_stands_under_the_mistake_after_wide_characters() -> None:
    """A terminal gives 日 two columns and the accent of é none: the caret counts columns, not characters."""
    from dglang.interpreter.diagnostics.report import snippet
    from dglang.interpreter.diagnostics.source import Source, Span

    text = 'print("日本語", "cafe\u0301", 1 + "a")'
    column = text.index("1 +") + 1
    shown = snippet(Span(Source("t.dg", text), 1, column, 1, column + 7))
    code, caret = shown[1].split(" | ", 1)[1], shown[2].split("| ", 1)[1]
    assert code == text and caret == " " * (len(text[: column - 1]) + 3 - 1) + "^" * 7  # 3 wide, 1 combining
