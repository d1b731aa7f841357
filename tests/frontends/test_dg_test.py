"""`dg test FILE.dg`: the top level once, then each test_... function on its own, from the state the
top level left, reported as pytest reports; and the copy of that state each test starts from."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.grading.collecting import Case, collect
from dglang.interpreter.frontends.grading.snapshot import copy_state
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]


def dg_test(tmp_path: Path, program: str, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "work.dg").write_text(program)
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "test", "work.dg", *options],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )


PROGRAM = """\
def double(x):
    return x * 2

print("the top level ran")

def test_values():
    assert_close(double(tensor([1.0, 2.0])), tensor([2.0, 4.0]))

def test_wrong(points=2):
    print("about to fail")
    assert_close(double(3.0), 7.0)

def test_error():
    return ones(2) @ ones(3)

def helper_not_a_test():
    assert False
"""


def test_each_test_runs_and_failures_are_reported_with_located_messages(tmp_path: Path) -> None:
    result = dg_test(tmp_path, PROGRAM)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["work.dg::test_values PASSED", "work.dg::test_wrong FAILED", "work.dg::test_error FAILED"]
    assert lines[-1] == "2 failed, 1 passed; 1 of 4 points"
    assert "\n--- test_wrong ---\nwork.dg:11:5: AssertionError: not close: actual 6, expected 7" in result.stdout
    assert "--- what test_wrong printed ---\nabout to fail\n" in result.stdout
    assert "work.dg:14:12: ShapeError: matmul: (2,) @ (3,)" in result.stdout
    assert "  <dg test>:1:1  <program>   test_error()" in result.stdout
    assert "the top level ran" not in result.stdout and "helper" not in result.stdout
    assert result.stderr == ""


def test_all_passing_exits_0(tmp_path: Path) -> None:
    result = dg_test(tmp_path, "def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    pass\n")
    assert result.returncode == 0 and result.stdout.splitlines()[-1] == "2 passed"


def test_k_runs_the_tests_whose_name_contains_it(tmp_path: Path) -> None:
    result = dg_test(tmp_path, PROGRAM, "-k", "val")
    assert result.returncode == 0 and result.stdout == "work.dg::test_values PASSED\n1 passed\n"


@pytest.mark.parametrize(
    ("program", "code", "stream", "text"),
    [
        ("x = 1\n", 5, "stdout", "work.dg: no test_... functions: nothing to run"),
        ("def test_a(:\n    pass\n", 65, "stderr", "SyntaxError"),
        ("def test_a(x):\n    pass\n", 2, "stderr", "work.dg:1:12: TestError: test_a() takes an argument 'x'"),
        ("def test_a(points=-1):\n    pass\n", 2, "stderr", "TestError: the points of test_a must be a number"),
        ('print("before")\nx = 1 / 0\ndef test_a():\n    pass\n', 70, "stderr", "work.dg:2:5: ZeroDivisionError"),
    ],
)
def test_a_file_that_cannot_be_tested(program: str, code: int, stream: str, text: str, tmp_path: Path) -> None:
    result = dg_test(tmp_path, program)
    assert result.returncode == code
    assert text in getattr(result, stream)


def test_a_missing_file(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "test", "nothing.dg"], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 66 and "dg: FileError: cannot read 'nothing.dg': no such file" in result.stderr


ISOLATED = """\
w = tensor([1.0, -2.0], requires_grad=True)
seen = []
big = [w]

def test_first():
    grad (w * w).sum()
    seen.append(1)
    big[0] = 0
    with no_grad:
        big.append(w * 0)

def test_second():
    assert w.grad == None, "a .grad from another test"
    assert len(seen) == 0 and len(big) == 1 and type(big[0]) == "tensor"

def test_third():
    grad (w * w).sum()
    assert_close(w.grad, tensor([2.0, -4.0]))
"""


def test_each_test_starts_from_the_state_the_top_level_left(tmp_path: Path) -> None:
    result = dg_test(tmp_path, ISOLATED)
    assert result.returncode == 0, result.stdout
    assert result.stdout.endswith("3 passed\n")


def test_a_test_s_limits_are_its_own(tmp_path: Path) -> None:
    program = "def test_loops():\n    while True:\n        pass\n\ndef test_after():\n    assert 1 == 1\n"
    result = dg_test(tmp_path, program, "--timeout", "0.5")
    assert result.returncode == 1
    assert "work.dg::test_loops FAILED\nwork.dg::test_after PASSED\n" in result.stdout
    assert "TimeoutError: the program ran longer than 0.5 seconds" in result.stdout
    steps = dg_test(tmp_path, program, "--max-steps", "1000")
    assert "LimitError: more than 1,000 steps" in steps.stdout and steps.stdout.endswith("1 failed, 1 passed\n")


# ---- which functions are tests --------------------------------------------------------------------
def cases_of(text: str) -> list[Case]:
    return collect(parse(Source("t.dg", text)))


def test_tests_are_the_top_level_test_functions_in_order_with_their_points() -> None:
    text = (
        "def test_b(points=2.5):\n    pass\ndef helper():\n    def test_inner():\n        pass\n"
        "def test_a(x=1):\n    pass\nif True:\n    def test_hidden():\n        pass\n"
        "def test_b(points=3):\n    pass\n"
    )
    assert cases_of(text) == [Case("test_b", 3, 1), Case("test_a", 1, 6)]


@pytest.mark.parametrize("default", ["True", '"2"', "-1", "1 + 1", "inf", "x"])
def test_points_must_be_a_number_written_out(default: str) -> None:
    with pytest.raises(DGError, match="points of test_a must be a number written out"):
        cases_of(f"def test_a(points={default}):\n    pass\n")


# ---- the copy each test starts from ---------------------------------------------------------------
def state_after(code: str) -> tuple[object, object]:
    session = new_session(out=io.StringIO())
    session.run(code, "t.dg")
    builtins = session.builtins
    return session, copy_state(session.globals, (builtins, builtins.vars))


def test_the_copy_keeps_sharing_and_cycles_and_shares_the_builtins() -> None:
    session, copy = state_after(
        "x = tensor(1.0, requires_grad=True)\ndef f(a):\n    return a * x\nL = [x, (x, [1]), f]\nL.append(L)\n"
        "M = []\nT = ((M,), x)\nM.append(T)\np = print\n"
    )
    v = copy.vars  # type: ignore[attr-defined]
    original = session.globals.vars  # type: ignore[attr-defined]
    assert copy.parent is session.builtins  # type: ignore[attr-defined]
    assert v["x"] is not original["x"] and v["L"][0] is v["x"] and v["L"][1][0] is v["x"] and v["L"][3] is v["L"]
    assert v["f"].env is copy and v["T"][1] is v["x"] and v["M"][0] is v["T"] and v["T"][0][0] is v["M"]
    assert v["p"] is original["p"]


def test_a_long_recorded_graph_is_copied_without_recursion_and_grad_reaches_the_copy() -> None:
    session, copy = state_after("x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range(30000):\n    y = y * 1.0\n")
    session.execute(session.compile("grad y"), copy)  # type: ignore[attr-defined]
    assert copy.vars["x"].grad.item() == 1.0  # type: ignore[attr-defined]
    assert session.globals.vars["x"].grad is None  # type: ignore[attr-defined]


def test_a_reader_that_leaves_early_gets_no_error(tmp_path: Path) -> None:
    many = "".join(f"def test_{i}():\n    print({i})\n" for i in range(3000))
    (tmp_path / "work.dg").write_text(many)
    shell = f"{sys.executable} -m dglang.interpreter test work.dg | head -1"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.stdout == "work.dg::test_0 PASSED\n" and result.stderr == ""


def test_text_no_stream_can_encode_is_reported_escaped(tmp_path: Path) -> None:
    """A lone surrogate in an assert's message and in what a test printed: the report and the
    summary are written, with escapes, whatever the output's encoding."""
    program = 'def test_message():\n    assert False, "\\ud800"\n\n'
    program += 'def test_printed():\n    print("caf\\udce9")\n    assert False\n'
    for encoding in ("utf-8", "ascii"):
        (tmp_path / "work.dg").write_text(program)
        result = subprocess.run(
            [sys.executable, "-m", "dglang.interpreter", "test", "work.dg"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            env={**os.environ, "PYTHONIOENCODING": encoding},
        )
        assert result.returncode == 1, result.stderr
        assert "work.dg:2:12: AssertionError: \\ud800" in result.stdout
        assert "--- what test_printed printed ---\ncaf\\udce9\n" in result.stdout
        assert result.stdout.endswith("2 failed\n") and result.stderr == ""


def test_a_test_that_takes_an_argument_is_a_collection_error_not_a_syntax_error(tmp_path: Path) -> None:
    """Exit 2, as pytest's error in collecting (it was 65, the code of a syntax error)."""
    result = dg_test(tmp_path, "def test_a(x):\n    assert x == 1\n")
    assert result.returncode == 2 and "TestError: test_a() takes an argument 'x'" in result.stderr


def test_a_tests_file_run_alone_says_how_to_run_it_against_a_program(tmp_path: Path) -> None:
    """`dg test tests.dg` on the handout's tests, with no submission.dg beside it."""
    result = dg_test(tmp_path, "from submission import leaky_relu\n\ndef test_a():\n    assert leaky_relu(1) == 1\n")
    assert result.returncode == 70
    assert result.stderr.splitlines() == [
        "work.dg:1:6: ImportError: no module named 'submission'",
        "  |",
        "1 | from submission import leaky_relu",
        "  |      ^^^^^^^^^^",
        "  = help: a tests file takes the program it tests as the module `submission`: name the program, "
        "`dg test solution.dg --tests work.dg`, or put submission.dg beside work.dg",
    ]
