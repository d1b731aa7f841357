"""A verdict only the tests decide: whatever names a submission defines beyond the ones the tests
import from it (DG's builtins redefined to make wrong answers look right, or anything else), no
test's verdict changes, under `dg grade`, `dg test --tests` and the Gradescope autograder alike (they share
running.py's Runner; the sample class in test_grading.py and test_gradescope.py go through the
real processes).

The property is checked on fresh inputs: hypothesis draws which builtins a submission redefines and
what each returns, and the verdicts must be those of the same submission without them.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.grading.collecting import collect
from dglang.interpreter.frontends.grading.running import Outcome, Runner, Stage
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TESTS = (ROOT / "exercises" / "grading" / "tests.dg").read_text()

# Plain `assert` tests, each resting on builtins a submission could redefine.
PLAIN_TESTS = """\
from submission import square, counting

def test_square():
    assert abs(square(3.0) - 9.0) < 1e-9

def test_counting():
    xs = counting(4)
    assert len(xs) == 4 and sum(xs) == 6 and list(range(4)) == xs

def test_tensor_square():
    x = tensor([1.0, -2.0], requires_grad=True)
    assert_close(square(x), tensor([1.0, 4.0]))
    assert_close(gradient(square(x).sum(), x), tensor([2.0, -4.0]))
    assert gradcheck(square, x, quiet=True)

def test_max_and_round():
    assert max(counting(3)) == 2 and round(square(1.5), 2) == 2.25 and str(square(2)) == "4"
"""

# The asked-for functions, written with operators only, so redefined builtins cannot change them.
RIGHT = {
    "sample": "def leaky_relu(x):\n    return (x > 0) * x + (x <= 0) * (0.1 * x)\n\n"
    "def mse(prediction, target):\n    return ((prediction - target) ** 2).mean()\n",
    "plain": "def square(x):\n    return x * x\n\ndef counting(n):\n    return [0, 1, 2, 3][:n]\n",
}
NOTHING = {  # implements nothing: zeros, or the input back
    "sample": "def leaky_relu(x):\n    return x * 0\n\n"
    "def mse(prediction, target):\n    return (prediction - target).sum() * 0\n",
    "plain": "def square(x):\n    return x * 0\n\ndef counting(n):\n    return []\n",
}
TESTS = {"sample": SAMPLE_TESTS, "plain": PLAIN_TESTS}

# Parameters enough for any call the tests make of a builtin.
PARAMS = "a=0, b=0, c=0, quiet=0, rtol=0, atol=0, requires_grad=0, dtype=0, msg=0, order=0, eps=0"
RETURNS = ["None", "True", "0", "1", "a", "b", "[0, 1, 2, 3]", '"4"', "2.25", "9.0"]


def builtin_names() -> list[str]:
    return sorted(new_session().builtins.vars)


def verdicts(program: str, tests: str) -> list[bool]:
    """Each test's verdict for `program` graded against `tests`, as the worker runs them (the
    program is the module `submission`, read from its file)."""
    cases = collect(parse(Source("tests.dg", tests)))
    passed = {c.name: False for c in cases}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "work.dg"
        work.write_text(program)
        runner = Runner(
            new_session(base_dir=Path(folder), limits=Limits(max_steps=100_000, timeout=20, max_output=100_000))
        )
        for _, step in runner.grade(work, (tests, "tests.dg"), cases):
            if isinstance(step, Outcome):
                passed[step.test.name] = step.passed
            else:
                assert isinstance(step, Stage)
    return [passed[c.name] for c in cases]


def redefinitions(names: list[str], returns: list[str]) -> str:
    return "".join(f"def {name}({PARAMS}):\n    return {value}\n\n" for name, value in zip(names, returns, strict=True))


@pytest.mark.parametrize("tests", ["sample", "plain"])
def test_a_submission_that_implements_nothing_and_redefines_every_builtin_scores_zero(tests: str) -> None:
    """Every builtin redefined at once, each to what would pass the most tests that call it."""
    names = builtin_names()
    forgeries = {
        "abs": "0",
        "len": "4",
        "sum": "6",
        "range": "[0, 1, 2, 3]",
        "list": "a",
        "max": "2",
        "round": "2.25",
        "str": '"4"',
        "assert_close": "None",
        "gradcheck": "True",
        "tensor": "a",
        "gradient": "b",
    }
    program = NOTHING[tests] + redefinitions(names, [forgeries.get(n, "None") for n in names])
    assert verdicts(NOTHING[tests], TESTS[tests]) == [False] * len(collect(parse(Source("t", TESTS[tests]))))
    assert not any(verdicts(program, TESTS[tests]))


@pytest.mark.parametrize("tests", ["sample", "plain"])
def test_correct_work_keeps_its_marks_whatever_else_it_redefines(tests: str) -> None:
    names = builtin_names()
    program = RIGHT[tests] + redefinitions(names, ["None"] * len(names))
    assert all(verdicts(RIGHT[tests], TESTS[tests]))
    assert all(verdicts(program, TESTS[tests]))


def test_the_tests_see_their_own_names_and_only_what_they_import() -> None:
    """The tests file's own names are its own, whatever the submission defines under them; the
    submission's functions, called by the tests, still see the submission's names."""
    tests = (
        "from submission import answer\nhelper = 5\n\ndef test_own_name():\n    assert helper == 5 and answer() == 42\n"
    )
    program = "helper = 6\n\ndef answer():\n    return helper * 7\n"
    assert verdicts(program, tests) == [True]
    # The submission's functions still see the submission's names, its redefined builtins too.
    program = "def len(x):\n    return 6\n\ndef answer():\n    return len([]) * 7\n"
    tests = "from submission import answer\n\ndef test_len():\n    assert answer() == 42 and len([]) == 0\n"
    assert verdicts(program, tests) == [True]
    # A name the tests read without importing it is never the submission's: no test runs.
    assert verdicts(program, "def test_len():\n    assert answer() == 42\n") == [False]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_names_the_tests_do_not_ask_for_change_no_verdict(data: st.DataObject) -> None:
    tests = data.draw(st.sampled_from(sorted(TESTS)), label="tests")
    names = data.draw(st.lists(st.sampled_from(builtin_names()), min_size=1, max_size=12, unique=True), label="names")
    returns = data.draw(st.lists(st.sampled_from(RETURNS), min_size=len(names), max_size=len(names)), label="returns")
    extra = data.draw(st.sampled_from(["", "unused = tensor\n", "def helper_not_asked():\n    return 1\n"]))
    for functions in (RIGHT[tests], NOTHING[tests]):
        hostile = redefinitions(names, returns) + extra + functions
        assert verdicts(hostile, TESTS[tests]) == verdicts(functions, TESTS[tests]), hostile


def test_dg_test_with_a_tests_file_grades_as_dg_grade_does(tmp_path: Path) -> None:
    forged = NOTHING["plain"] + redefinitions(["abs", "len", "sum", "range"], ["0", "4", "6", "[0, 1, 2, 3]"])
    (tmp_path / "work.dg").write_text(forged)
    (tmp_path / "tests.dg").write_text(PLAIN_TESTS)
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "test", "work.dg", "--tests", "tests.dg"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[:4] == [f"tests.dg::{name} FAILED" for name in TEST_NAMES]
    assert result.stdout.splitlines()[-1] == "4 failed"


TEST_NAMES = ["test_square", "test_counting", "test_tensor_square", "test_max_and_round"]


def test_what_a_submission_prints_or_names_forges_nothing(tmp_path: Path) -> None:
    """Lines that look like the worker's results, and test functions of its own, through the real
    worker: the submission's output is data in a result, and only the tests file's tests count."""
    from dglang.interpreter.frontends.grading import grader, worker_process
    from dglang.interpreter.frontends.grading.isolation import SystemLimits
    from dglang.interpreter.frontends.grading.submissions import Submission

    fake = '{"event": "test", "name": "test_square", "passed": true, "report": null, "output": "", "seconds": 0}'
    program = NOTHING["plain"] + f"print({fake!r})\nprint('\\n' + {fake!r})\n"
    program += "".join(f"def {name}():\n    return None\n" for name in TEST_NAMES)
    (tmp_path / "work.dg").write_text(program)
    cases = collect(parse(Source("tests.dg", PLAIN_TESTS)))
    assignment = grader.Assignment(
        "tests.dg", PLAIN_TESTS, cases, {"timeout": 20, "max_output": 100_000}, SystemLimits(120, None), 120
    )
    graded = grader.grade(Submission("work.dg", tmp_path / "work.dg"), assignment, worker_process.Workers())
    assert graded.status == "ok" and graded.score == 0
    assert fake in graded.output
