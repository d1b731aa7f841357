"""Each test starts from the top level's whole state, its random numbers included, under `dg test`
and `dg grade` alike: a test run alone (`-k`), after others, or by a new worker after one that
crashed draws the same numbers and gets the same verdict."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.grading.collecting import collect
from dglang.interpreter.frontends.grading.running import Outcome, Runner
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.syntax.parser import parse

DRAWS = """\
seed(0)
w = randn(3)

def test_a():
    print(randn(1).item())
    w[0] = 100.0

def test_b():
    print(randn(1).item(), w[0].item())

def test_c():
    print(rand(2).tolist(), w.sum().item())
"""


def dg_test(tmp_path: Path, text: str, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "work.dg").write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "test", "work.dg", *options],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )


# Each test fails on purpose, to show in its message what it drew and saw.
SHOWN = """\
seed(0)
w = randn(3)

def test_a():
    w[0] = 100.0
    assert False, f"{randn(1).item()}"

def test_b():
    assert False, f"{randn(1).item()} {w[0].item()}"

def test_c():
    assert False, f"{rand(2).tolist()} {w.sum().item()}"
"""


def messages(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return dict(re.findall(r"--- (test_\w+) ---\n.*AssertionError: (.*)\n", result.stdout))


def test_a_test_draws_the_same_numbers_alone_and_after_others(tmp_path: Path) -> None:
    together = dg_test(tmp_path, SHOWN)
    assert together.returncode == 1, together.stderr
    shown = messages(together)
    assert set(shown) == {"test_a", "test_b", "test_c"}
    for name in shown:
        assert messages(dg_test(tmp_path, SHOWN, "-k", name)) == {name: shown[name]}
    assert shown["test_b"].startswith(shown["test_a"])  # both drew the first number after the top level's
    assert float(shown["test_b"].split()[1]) != 100.0


def outcomes(program: str, tests: str, names: list[str]) -> dict[str, str]:
    """What each test printed, graded as a worker grades (the program as the module `submission`,
    the tests file, then the tests named)."""
    cases = [c for c in collect(parse(Source("tests.dg", tests))) if c.name in names]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "work.dg"
        work.write_text(program)
        runner = Runner(new_session(base_dir=Path(folder)))
        return {
            step.test.name: step.output
            for _, step in runner.grade(work, (tests, "tests.dg"), cases)
            if isinstance(step, Outcome)
        }


def test_under_grading_a_new_worker_starts_the_tests_from_the_same_state() -> None:
    """A worker that crashed in test_a: the grader starts another on the tests after it."""
    program = "w = randn(3)\n\ndef noise():\n    return randn(1).item()\n"  # no seed: grading seeds
    tests = DRAWS.replace("seed(0)\nw = randn(3)\n", "from submission import noise, w\nx = randn(2)\n")
    tests = tests.replace("randn(1).item()", "noise()")
    first = outcomes(program, tests, ["test_a", "test_b", "test_c"])
    again = outcomes(program, tests, ["test_b", "test_c"])
    assert again == {name: first[name] for name in ("test_b", "test_c")}
    assert first == outcomes(program, tests, ["test_a", "test_b", "test_c"])  # grading is reproducible


def test_a_submission_s_own_draws_change_no_test_s_numbers() -> None:
    tests = "x = randn(4)\n\ndef test_x():\n    print(x.tolist(), randn(1).item())\n"
    quiet = outcomes("def f():\n    return 1\n", tests, ["test_x"])
    for program in ("seed(123)\n", "junk = randn(1000)\n", "seed(5)\njunk = rand(7)\n"):
        assert outcomes(program, tests, ["test_x"]) == quiet, program


@settings(max_examples=25, deadline=None, database=None)
@given(
    draws=st.lists(st.sampled_from(["randn(2)", "rand(3)", "randn(1, 2)", "seed(7)", "seed(0)"]), max_size=5),
    order=st.permutations(["test_a", "test_b", "test_c"]),
)
def test_whatever_the_tests_draw_each_starts_from_the_same_numbers(draws: list[str], order: list[str]) -> None:
    body = "".join(f"    junk = {d}\n" if d.startswith("rand") else f"    {d}\n" for d in draws)
    tests = "".join(f"def {name}():\n{body}    print(randn(1).item())\n\n" for name in order)
    alone = {name: outcomes("", tests, [name])[name] for name in order}
    assert outcomes("", tests, order) == alone
