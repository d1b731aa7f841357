"""`dg check FILE`: every problem DG finds in a program without running it, each as `dg` reports
it; and `dg FILE`, which now reports every syntax error of a file, not only the first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.frontends import cli

ROOT = Path(__file__).resolve().parents[2]
THREE = """\
w = tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum(
lr = 0.1

def step(w, lr):
    with no_grad
        w -= lr * w.grad
    return w

for i in range(3):
    grad loss
    w = step(w lr)
print(w)
"""
THREE_ERRORS = """\
three.dg:2:19: SyntaxError: '(' was never closed
  |
2 | loss = (w * w).sum(
  |                   ^
  = help: close it with ')'

three.dg:6:17: SyntaxError: expected ':' at the end of this line
  |
6 |     with no_grad
  |                 ^
  = help: if, elif, else, while, for, def and with lines end in ':'

three.dg:12:16: SyntaxError: unexpected name 'lr'
   |
12 |     w = step(w lr)
   |                ^^
"""


def dg(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_dg_check_reports_three_separate_syntax_errors_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "three.dg").write_text(THREE)
    result = dg("check", "three.dg", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (cli.EXIT_SYNTAX, "", THREE_ERRORS)


def test_dg_file_reports_every_syntax_error_too_and_runs_nothing(tmp_path: Path) -> None:
    (tmp_path / "three.dg").write_text(THREE)
    result = dg("three.dg", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (cli.EXIT_SYNTAX, "", THREE_ERRORS)


def test_dg_check_reports_static_errors_and_what_would_fail_as_it_runs(tmp_path: Path) -> None:
    (tmp_path / "p.dg").write_text("return 1\nx = 2\nbreak\nprint(y)\nprint(relu(x, x))\n")
    result = dg("check", "p.dg", cwd=tmp_path)
    assert result.returncode == cli.EXIT_SYNTAX
    found = [line for line in result.stderr.splitlines() if line.startswith("p.dg:")]
    assert found == [
        "p.dg:1:1: SyntaxError: 'return' outside a function",
        "p.dg:3:1: SyntaxError: 'break' outside a loop",
        "p.dg:4:7: NameError: name 'y' is not defined",
        "p.dg:5:7: TypeError: relu() got too many arguments",
    ]


@pytest.mark.slow
def test_dg_check_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "ok.dg").write_text("x = 1\nprint(x + 1)\n")
    (tmp_path / "runs_into.dg").write_text("x = 1\nprint(x + zz)\n")  # fails only when the line runs
    assert (dg("check", "ok.dg", cwd=tmp_path).returncode, dg("check", "ok.dg", cwd=tmp_path).stderr) == (0, "")
    result = dg("check", "runs_into.dg", cwd=tmp_path)
    assert result.returncode == cli.EXIT_RUNTIME and "NameError: name 'zz' is not defined" in result.stderr
    assert dg("check", "missing.dg", cwd=tmp_path).returncode == cli.EXIT_NOINPUT
    assert dg("check", cwd=tmp_path).returncode == cli.EXIT_USAGE


@pytest.mark.parametrize("path", sorted((ROOT / "programs").glob("*.dg")), ids=lambda p: p.stem)
def test_the_lessons_check_clean(path: Path) -> None:
    assert cli.main(["check", str(path)]) == cli.EXIT_OK


def test_a_broken_definition_is_not_reported_again_at_each_use(tmp_path: Path) -> None:
    (tmp_path / "p.dg").write_text("def f(x:\n    return x\n\nw = (1,\n\nprint(f(2), w)\n")
    result = dg("check", "p.dg", cwd=tmp_path)
    assert [line for line in result.stderr.splitlines() if line.startswith("p.dg:")] == [
        "p.dg:1:8: SyntaxError: unexpected ':'; expected ',', '=' or ')'",
        "p.dg:4:5: SyntaxError: '(' was never closed",
    ]


def test_dg_check_reads_the_modules_a_program_imports(tmp_path: Path) -> None:
    """A call of an imported module's function with the wrong arguments is found, as the language
    server finds it; a syntax error in the module is told at the import, beside the program's own."""
    (tmp_path / "nn.dg").write_text("def square(x):\n    return x * x\n")
    (tmp_path / "p.dg").write_text("import nn\nfrom nn import square\nprint(nn.square(1, 2))\nprint(square())\n")
    result = dg("check", "p.dg", cwd=tmp_path)
    assert result.returncode == cli.EXIT_RUNTIME
    assert [line for line in result.stderr.splitlines() if line.startswith("p.dg:")] == [
        "p.dg:3:7: TypeError: square() takes 1 argument but 2 were given",
        "p.dg:4:7: TypeError: square() is missing its argument 'x'",
    ]
    (tmp_path / "nn.dg").write_text("def square(x:\n    return x * x\n")
    result = dg("check", "p.dg", cwd=tmp_path)
    assert result.returncode == cli.EXIT_SYNTAX
    assert [line for line in result.stderr.splitlines() if ": SyntaxError:" in line] == [
        "p.dg:1:8: SyntaxError: in nn.dg, line 1: unexpected ':'; expected ',', '=' or ')'",
    ]
