"""`dg check FILE`: every problem DG finds in a program without running it, each as `dg` reports
it; and `dg FILE`, which now reports every syntax error of a file, not only the first."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from broken_lines import random_program

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


@pytest.mark.parametrize(
    "program",
    ["return 1\n", "break\n", "x = (1 +\n", "print(nope)\n", "def f(a):\n    return a\nf(1, 2)\n",
     "import torch\n", "import no_such_module\nprint(1)\n", "import torch\nx = (1 +\n"],
)  # fmt: skip
def test_dg_check_exits_as_dg_file_would(program: str, tmp_path: Path) -> None:
    (tmp_path / "p.dg").write_text(program)
    assert dg("check", "p.dg", cwd=tmp_path).returncode == dg("p.dg", cwd=tmp_path).returncode != 0


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


SEPARATE = """\
def f(x):
    y = x *
    return y

for i in range(3)
    print(i)

z = (1, 2
w = 4
q = 3 +
"""
SEPARATE_ERRORS = """\
separate.dg:2:12: SyntaxError: unexpected end of line; expected an expression
  |
2 |     y = x *
  |            ^

separate.dg:5:18: SyntaxError: expected ':' at the end of this line
  |
5 | for i in range(3)
  |                  ^
  = help: if, elif, else, while, for, def and with lines end in ':'

separate.dg:8:5: SyntaxError: '(' was never closed
  |
8 | z = (1, 2
  |     ^
  = help: close it with ')'

separate.dg:10:8: SyntaxError: unexpected end of line; expected an expression
   |
10 | q = 3 +
   |        ^
"""


def test_dg_check_reports_each_of_four_separate_syntax_errors(tmp_path: Path) -> None:
    """It stopped with "InternalError: UnexpectedToken", lark's exception: after the skipped block of
    the `for` without its ':', the bracket never closed left the indenter a block the parser never had."""
    (tmp_path / "separate.dg").write_text(SEPARATE)
    result = dg("check", "separate.dg", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (cli.EXIT_SYNTAX, "", SEPARATE_ERRORS)


PROBLEM = re.compile(r"broken\.dg:(\d+):(\d+): (\w+): .+")


@pytest.mark.parametrize("seed", range(3))
def test_dg_check_reads_any_mix_of_broken_lines_to_its_end(tmp_path: Path, seed: int) -> None:
    """150 lines, half of them broken, drawn from the ways students break lines, at any depth: every
    problem is told in DG's words, with its line and a caret; never an InternalError."""
    text = random_program(random.Random(seed), 150)
    (tmp_path / "broken.dg").write_text(text)
    result = dg("check", "broken.dg", cwd=tmp_path)
    assert result.returncode == cli.EXIT_SYNTAX and result.stdout == "", result.stderr[-3000:]
    assert "InternalError" not in result.stderr and "Traceback" not in result.stderr, result.stderr[-3000:]
    problems = result.stderr.split("\n\n")
    assert len(problems) > 10
    lines = text.split("\n")
    for problem in problems:
        header, *shown = problem.splitlines()
        found = PROBLEM.fullmatch(header)
        assert found is not None and found.group(3).endswith("Error"), problem
        line, column = int(found.group(1)), int(found.group(2))
        source_line, caret = shown[1], shown[2]
        assert source_line.rstrip().endswith(f"{line} | {lines[line - 1]}".rstrip()), problem
        assert caret.rstrip().endswith("^") and caret.index("^") == source_line.index("|") + 1 + column, problem


@pytest.mark.parametrize("line", ["x = torch.zeros(3)", "y = np.ones(2)", "z = F.relu(1.0)", "optimizer.zero_grad()"])
def test_dg_check_gives_a_pytorch_habit_the_help_a_run_gives(line: str, tmp_path: Path) -> None:
    (tmp_path / "p.dg").write_text(line + "\n")
    ran = dg("p.dg", cwd=tmp_path).stderr
    assert "help:" in ran and dg("check", "p.dg", cwd=tmp_path).stderr == ran
