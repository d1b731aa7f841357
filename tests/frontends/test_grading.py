"""`dg grade` on the sample class in exercises/grading/: each submission's score, its results.json
in Gradescope's format, the class's summary.csv, and the command's errors.

The sample holds a correct submission and one of each kind of trouble (a wrong gradient, an
infinite loop, a memory bomb, a syntax error, a planted cache, a print bomb, deep recursion, a
call tree that doubles, redefined checks); each must cost its own points and nothing else.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gradescope_format import problems

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "exercises" / "grading"
# Short limits, so that the hostile submissions cost the test run seconds, not minutes.
LIMITS = ("--timeout", "2", "--memory", "600", "--workers", "2")

EXPECTED = {  # submission: (score of 6, status)
    "correct.dg": (6, "ok"),
    "wrong_gradient.dg": (4, "ok"),
    "infinite_loop.dg": (3, "ok"),
    "memory_bomb.dg": (0, "program error"),
    "syntax_error.dg": (0, "syntax error"),
    "planted_cache": (0, "ok"),
    "print_bomb.dg": (0, "program error"),
    "deep_recursion.dg": (3, "ok"),
    "fork_bomb.dg": (0, "program error"),
    "overrides_builtins.dg": (0, "ok"),
    "forges_builtins.dg": (0, "ok"),
    "with_data": (6, "ok"),
    "split_over_files": (6, "ok"),
}


def dg(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path_factory.mktemp("graded")
    result = dg("grade", str(SAMPLE / "submissions"), "--tests", str(SAMPLE / "tests.dg"), "--out", str(out), *LIMITS)
    return result, out


def results(out: Path, name: str) -> dict:
    return json.loads((out / name / "results.json").read_text())


@pytest.mark.slow  # grades the sample class (the fixture `graded`)
def test_every_sample_submission_gets_its_expected_score(graded: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    result, out = graded
    assert result.returncode == 0, result.stderr
    scores = {name: (results(out, name)["score"], status) for name, (_, status) in EXPECTED.items()}
    rows = {row["submission"]: row for row in csv.DictReader((out / "summary.csv").open())}
    statuses = {name: (results(out, name)["score"], rows[name]["status"]) for name in EXPECTED}
    assert statuses == EXPECTED, result.stdout
    assert scores.keys() == rows.keys()


@pytest.mark.slow  # grades the sample class (the fixture `graded`)
def test_each_trouble_is_reported_as_what_it_is(graded: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = graded

    def test_output(name: str, test: str) -> str:
        return next(t["output"] for t in results(out, name)["tests"] if t["name"] == test)

    assert "TimeoutError" in test_output("infinite_loop.dg", "test_leaky_relu_values")
    assert "RecursionError: more than 10,000 nested calls" in test_output("deep_recursion.dg", "test_leaky_relu_grad")
    assert "df" not in test_output("wrong_gradient.dg", "test_leaky_relu_values")
    assert "gradcheck(leaky_relu) failed: dleaky_relu/dx[0] is 0 by autograd but 0.1" in test_output(
        "wrong_gradient.dg", "test_leaky_relu_grad"
    )
    planted = test_output("planted_cache", "test_leaky_relu_values")
    assert "ImportError: leaky_relu.dg defines no 'leaky_relu'" in planted
    assert "AssertionError: not close" in test_output("forges_builtins.dg", "test_leaky_relu_grad")
    assert "AssertionError: not close" in test_output("overrides_builtins.dg", "test_mse")
    bomb = results(out, "memory_bomb.dg")["output"]
    assert "MemoryError" in bomb or "TimeoutError" in bomb  # whichever limit comes first on this machine
    assert "LimitError: the program printed more than 100,000 bytes" in results(out, "print_bomb.dg")["output"]
    assert "SyntaxError: expected ':'" in results(out, "syntax_error.dg")["output"]
    assert "TimeoutError" in results(out, "fork_bomb.dg")["output"]
    assert "not run: syntax_error.dg stopped with an error" in test_output("syntax_error.dg", "test_mse")
    assert "loss on the data: 0.00333" in results(out, "with_data")["output"]


@pytest.mark.slow  # grades the sample class (the fixture `graded`)
def test_results_follow_gradescope_s_format(graded: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = graded
    for name, (score, _) in EXPECTED.items():
        data = results(out, name)
        assert problems(data) == [], name
        assert data["output_format"] == "text"  # DG's reports hold `<program>`, which HTML would swallow
        assert [t["name"] for t in data["tests"]] == [
            "test_leaky_relu_values",
            "test_leaky_relu_grad",
            "test_mse",
            "test_mse_grad",
        ]
        assert [t["max_score"] for t in data["tests"]] == [1, 2, 1, 2]
        for t in data["tests"]:
            assert set(t) == {"name", "score", "max_score", "status", "output"}
            assert t["score"] == (t["max_score"] if t["status"] == "passed" else 0)
        assert data["score"] == sum(t["score"] for t in data["tests"]) == score
        assert data["execution_time"] >= 0


def test_the_format_checker_catches_departures() -> None:
    assert problems({"score": 1, "tests": []}) == []
    assert problems({"tests": [{"name": "a"}]}) == ["a score is required at the top level or on every test"]
    assert problems({"score": "1"}) == ["score should be number, not '1'"]
    assert problems({"score": 1, "tests": [{"status": "ok", "points": 1}]}) == [
        "tests[0].status should be status, not 'ok'",
        "tests[0].points is not a field of the specification",
    ]
    assert problems({"score": 1, "visibility": "never", "output_format": "rtf"}) == [
        "visibility should be visibility, not 'never'",
        "output_format should be format, not 'rtf'",
    ]


@pytest.mark.slow  # grades the sample class (the fixture `graded`)
def test_the_table_lists_every_submission_in_order(graded: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    result, out = graded
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["submission", "score", "status"]
    assert [line.split()[0] for line in lines[1:-1]] == sorted(EXPECTED)
    assert lines[1].split()[:2] == ["correct.dg", "6/6"]
    assert lines[-1] == f"results in {out} (summary.csv, and results.json per submission)"


@pytest.mark.slow  # grades the sample class (the fixture `graded`)
def test_the_summary_has_a_column_per_test(graded: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = graded
    rows = list(csv.reader((out / "summary.csv").open()))
    assert rows[0] == [
        "submission",
        "score",
        "max_score",
        "status",
        "seconds",
        "test_leaky_relu_values",
        "test_leaky_relu_grad",
        "test_mse",
        "test_mse_grad",
    ]
    wrong = next(r for r in rows if r[0] == "wrong_gradient.dg")
    assert wrong[1:4] == ["4", "6", "ok"] and wrong[5:] == ["1", "0", "1", "2"]


def test_one_submission_with_single_writes_results_json_where_gradescope_reads_it(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "work.dg").write_text((SAMPLE / "submissions" / "wrong_gradient.dg").read_text())
    out = tmp_path / "results"
    result = dg("grade", str(submission), "--single", "--tests", str(SAMPLE / "tests.dg"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["results.json"]
    data = json.loads((out / "results.json").read_text())
    assert problems(data) == [] and data["score"] == 4


def test_visibility_is_written_when_asked(tmp_path: Path) -> None:
    program = tmp_path / "one.dg"
    program.write_text((SAMPLE / "submissions" / "correct.dg").read_text())
    args = ("grade", str(program), "--tests", str(SAMPLE / "tests.dg"), "--out", str(tmp_path / "o"))
    result = dg(*args, "--visibility", "after_published")
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "o" / "one.dg" / "results.json").read_text())
    assert data["visibility"] == "after_published" and problems(data) == [] and data["score"] == 6


def test_folders_without_one_program_get_zero_with_the_reason(tmp_path: Path) -> None:
    class_ = tmp_path / "class"
    for name, files in {
        "empty": {},
        "two": {"a.dg": "x = 1\n", "b.dg": "x = 2\n"},
        "named": {"b.dg": "x = 1\n"},
    }.items():
        (class_ / name).mkdir(parents=True)
        for file, text in files.items():
            (class_ / name / file).write_text(text)
    out = tmp_path / "out"
    result = dg("grade", str(class_), "--tests", str(SAMPLE / "tests.dg"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "not run: the submission has no .dg file" in results(out, "empty")["tests"][0]["output"]
    assert "several .dg files (a.dg, b.dg)" in results(out, "two")["output"]
    entry = dg("grade", str(class_), "--tests", str(SAMPLE / "tests.dg"), "--out", str(out), "--entry", "a.dg")
    assert entry.returncode == 0
    assert results(out, "two")["output"].startswith("a.dg ran; 0 of 4 tests passed")
    assert results(out, "named")["output"] == "the submission has no file named a.dg"


@pytest.mark.parametrize(
    ("tests", "code", "text"),
    [
        ("x = 1\n", 2, "dg: UsageError: tests.dg has no test_... functions to grade with"),
        ("def test_a(:\n", 65, "tests.dg:1:12: SyntaxError"),
        ("def test_a(n):\n    pass\n", 65, "TestError: test_a() takes an argument 'n'"),
        ("def test_a():\n    assert leaky_relu(1) == 1\n", 65, "tests.dg:2:12: NameError: the tests read 'leaky_relu'"),
        ("from solution import f\n\ndef test_a():\n    assert f(1) == 1\n", 65, "program is the module `submission`"),
    ],
)
def test_a_tests_file_that_cannot_grade_stops_before_any_submission(
    tests: str, code: int, text: str, tmp_path: Path
) -> None:
    (tmp_path / "tests.dg").write_text(tests)
    result = dg("grade", str(SAMPLE / "submissions"), "--tests", "tests.dg", cwd=tmp_path)
    assert result.returncode == code and text in result.stderr
    assert not (tmp_path / "grading-results").exists()


def test_usage_errors(tmp_path: Path) -> None:
    assert dg("grade", "--tests", str(SAMPLE / "tests.dg"), cwd=tmp_path).returncode == 2
    missing = dg("grade", "nowhere", "--tests", str(SAMPLE / "tests.dg"), cwd=tmp_path)
    assert missing.returncode == 66 and "no such file or folder: 'nowhere'" in missing.stderr
    assert "--tests" in dg("grade", "x").stderr
    user = dg("grade", "x", "--tests", str(SAMPLE / "tests.dg"), "--user", "no-such-user-here", cwd=tmp_path)
    assert user.returncode == 2 and "--user no-such-user-here: there is no user" in user.stderr


def test_results_written_into_the_class_folder_are_not_graded_next_time(tmp_path: Path) -> None:
    shutil.copyfile(SAMPLE / "submissions" / "correct.dg", tmp_path / "alice.dg")
    for _ in range(2):
        result = dg("grade", ".", "--tests", str(SAMPLE / "tests.dg"), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert [line.split()[0] for line in result.stdout.splitlines()[1:-1]] == ["alice.dg"]


def test_the_summary_table_is_aligned_whatever_the_points(tmp_path: Path) -> None:
    """`4.5/4.5` is wider than the heading `score`: the status column stays in line."""
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.dg").write_text("def same(x):\n    return x\n")
    (tmp_path / "subs" / "bob.dg").write_text("def same(x):\n    return 0\n")
    tests = "from submission import same\n\ndef test_same(points=4.5):\n    assert same(1) == 1\n"
    (tmp_path / "tests.dg").write_text(tests)
    result = dg("grade", "subs", "--tests", "tests.dg", "--out", "out", cwd=tmp_path)
    table = result.stdout[result.stdout.index("submission") :].splitlines()[:3]
    columns = {line.index(word) for line, word in zip(table, ["status", "ok", "ok"], strict=True)}
    assert len(columns) == 1, table
    assert table[1].split() == ["alice.dg", "4.5/4.5", "ok"] and table[2].split() == ["bob.dg", "0/4.5", "ok"]


def test_a_correct_program_beside_the_handout_s_tests_gets_full_marks(tmp_path: Path) -> None:
    """The handout's tests file (`from submission import ...`, test_ functions) handed in beside
    the program is not the program; a `main.dg` that imports its own `submission.dg` runs as
    `dg main.dg` runs it, its import finding the student's file, not itself."""
    correct, tests = (SAMPLE / "submissions" / "correct.dg").read_text(), (SAMPLE / "tests.dg").read_text()
    uses = "from submission import leaky_relu, mse\nprint(leaky_relu(tensor([-1.0, 2.0])))\n"
    class_ = {
        "with_handout": {"submission.dg": correct, "tests.dg": tests},
        "main_and_helper": {"main.dg": uses, "submission.dg": correct},
        "handout_only": {"tests.dg": tests},
    }
    for name, files in class_.items():
        (tmp_path / "class" / name).mkdir(parents=True)
        for file, text in files.items():
            (tmp_path / "class" / name / file).write_text(text)
    result = dg("grade", "class", "--tests", str(SAMPLE / "tests.dg"), "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    assert (results(out, "with_handout")["score"], results(out, "main_and_helper")["score"]) == (6, 6), result.stdout
    assert "tensor([-0.1000,  2.0000])" in results(out, "main_and_helper")["output"]
    only = results(out, "handout_only")["output"]
    assert only.startswith("the submission has no program: tests.dg is a tests file"), only


def test_a_tests_file_that_cannot_run_is_reported_as_dg_reports_errors_and_grades_no_one(tmp_path: Path) -> None:
    """The teacher's mistake, caught before any submission runs: located, with the fix and how to
    check the tests on a solution; no results.json that could be uploaded."""
    tests = "def test_values(points=2):\n    assert_close(leaky_relu(tensor([1.0])), tensor([1.0]))\n"
    (tmp_path / "tests.dg").write_text(tests)
    for extra in ((), ("--gradescope", "autograder")):
        result = dg("grade", str(SAMPLE / "submissions"), "--tests", "tests.dg", *extra, cwd=tmp_path)
        assert result.returncode == 65 and result.stdout == ""
        assert result.stderr.splitlines() == [
            "tests.dg:2:18: NameError: the tests read 'leaky_relu', which they neither define nor import",
            "  |",
            "2 |     assert_close(leaky_relu(tensor([1.0])), tensor([1.0]))",
            "  |                  ^^^^^^^^^^",
            "  = help: take it from the student's program: `from submission import leaky_relu`",
            "dg grade: tests.dg cannot run, so nothing was graded or written; fix it, then check it on your own "
            "solution: dg test solution.dg --tests tests.dg",
        ]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["tests.dg"]


def test_the_tests_file_s_library_modules_are_checked_where_it_will_find_them(tmp_path: Path) -> None:
    """The check before grading finds the course's modules on --lib, as the workers will, and
    refuses a name the module does not define."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "reference.dg").write_text("def expected(x):\n    return x\n")
    (tmp_path / "alice.dg").write_text("def same(x):\n    return x\n")
    tests = (
        "from submission import same\nfrom reference import {}\n\ndef test_same():\n    assert same(2) == expected(2)\n"
    )
    (tmp_path / "tests.dg").write_text(tests.format("expected"))
    result = dg("grade", "alice.dg", "--tests", "tests.dg", "--lib", "lib", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0 and results(tmp_path / "out", "alice.dg")["score"] == 1, result.stderr
    (tmp_path / "tests.dg").write_text(tests.format("expectd"))
    result = dg("grade", "alice.dg", "--tests", "tests.dg", "--lib", "lib", "--out", "out2", cwd=tmp_path)
    assert result.returncode == 65 and not (tmp_path / "out2").exists()
    assert "tests.dg:2:23: ImportError: cannot import name 'expectd' from reference" in result.stderr
    assert "did you mean 'expected'?" in result.stderr
