"""A hostile class: every way a submission can attack the grader costs that submission, and only it.

The attacks DG itself stops (loops, memory, output, recursion) are in test_grading.py, graded by
the real worker. Here: files planted to run code in the grader (a pickled cache, modules Python
would import), reading other people's files, and a worker process that crashes, hangs, floods its
output or dies, played by a stand-in worker so that each happens exactly as described.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.grading import grader, isolation, worker_process
from dglang.interpreter.frontends.grading.collecting import collect
from dglang.interpreter.frontends.grading.grade_command import grade_all
from dglang.interpreter.frontends.grading.isolation import Folders, SystemLimits
from dglang.interpreter.frontends.grading.submissions import Submission, find_submissions
from dglang.interpreter.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "exercises" / "grading"
TESTS = (SAMPLE / "tests.dg").read_text()
CORRECT = (SAMPLE / "submissions" / "correct.dg").read_text()


def assignment(**changes: object) -> grader.Assignment:
    fields: dict[str, object] = {
        "tests_name": "tests.dg",
        "tests_text": TESTS,
        "cases": collect(parse(Source("tests.dg", TESTS))),
        "run_limits": {"max_depth": 10_000, "max_steps": None, "timeout": 5, "max_output": 100_000},
        "system": SystemLimits(60, 1024**3),
        "wall_seconds": 60,
    }
    fields.update(changes)
    return grader.Assignment(**fields)  # type: ignore[arg-type]


def grade(path: Path, **changes: object) -> grader.Graded:
    return grader.grade(Submission(path.name, path), assignment(**changes), worker_process.Workers())


# ---- planted files ------------------------------------------------------------------------------
class Payload:
    """Unpickled, it writes a file: the proof that a planted pickle ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def plant(folder: Path, marker: Path) -> list[Path]:
    """A submission whose files run code (writing `marker`) if anything loads them: a pickled AST in
    the cache where a DG with HOME in the submission would look, and modules Python imports."""
    program = (SAMPLE / "submissions" / "planted_cache" / "leaky_relu.dg").read_text()
    (folder / "leaky_relu.dg").write_text(program)
    cache = folder / ".cache" / "dg" / "ast"
    cache.mkdir(parents=True)
    pickles = [cache / "planted.pickle"]
    try:  # the name the AST cache, where it still exists, would compute for this very program
        from dglang.interpreter.core import ast_cache  # type: ignore[attr-defined]

        saved = {k: os.environ.pop(k, None) for k in ("XDG_CACHE_HOME", "HOME", "DG_CACHE")}
        os.environ["HOME"] = str(folder)
        try:
            entry = ast_cache.entry(Source("leaky_relu.dg", program))
        finally:
            for key, value in saved.items():
                os.environ.pop(key, None)
                if value is not None:
                    os.environ[key] = value
        pickles.append(entry)
    except ImportError:  # no AST cache any more: nothing reads pickles at all
        pass
    for path in pickles:
        path.write_bytes(pickle.dumps(Payload(marker)))
    code = f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
    modules = [folder / name for name in ("numpy.py", "sitecustomize.py", "usercustomize.py", "lark.py")]
    for module in modules:
        module.write_text(code)
    return pickles + modules


def test_planted_files_are_live_but_the_grader_runs_none(tmp_path: Path) -> None:
    marker = tmp_path / "PLANTED_CODE_RAN"
    submission = tmp_path / "planted"
    submission.mkdir()
    planted = plant(submission, marker)
    # They are real attacks: loading any one of them runs its code.
    subprocess.run([sys.executable, "-c", "import numpy"], cwd=submission, check=True)
    assert marker.exists()
    marker.unlink()
    with planted[0].open("rb") as f:
        pickle.load(f)  # what a cache read with pickle would do
    assert marker.exists()
    marker.unlink()
    graded = grade(submission)
    assert not marker.exists(), marker.read_text()
    assert graded.score == 0 and graded.status == "ok"
    assert "ImportError: leaky_relu.dg defines no 'leaky_relu'" in graded.tests[0].output


def test_the_worker_s_home_cache_and_temp_folders_are_its_own(tmp_path: Path) -> None:
    folders = Folders(tmp_path / "one")
    (tmp_path / "one").mkdir()
    folders.make()
    env = isolation.environment(folders)
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "TMPDIR", "TEMP"):
        assert Path(env[name]).is_relative_to(folders.root), name
    assert not Path(env["HOME"]).is_relative_to(folders.submission)  # a planted .cache is not the cache
    assert env["DG_CACHE"] == "off"
    assert "-P" in worker_process.WORKER  # the submission's folder is not on Python's path


def test_a_submission_reads_neither_the_tests_nor_another_submission(tmp_path: Path) -> None:
    teacher = tmp_path / "teacher"
    teacher.mkdir()
    (teacher / "tests.csv").write_text("1,2\n")
    class_ = tmp_path / "class"
    (class_ / "alice").mkdir(parents=True)
    (class_ / "alice" / "answers.csv").write_text("1,2\n")
    (class_ / "alice" / "work.dg").write_text(CORRECT)
    for name, path in {"absolute": teacher / "tests.csv", "sibling": "../alice/answers.csv"}.items():
        (class_ / name).mkdir()
        (class_ / name / "work.dg").write_text(CORRECT + f"stolen = load_csv({str(path)!r})\n")
    (class_ / "linked").mkdir()
    (class_ / "linked" / "work.dg").write_text(CORRECT + 'stolen = load_csv("answers.csv")\n')
    (class_ / "linked" / "answers.csv").symlink_to(class_ / "alice" / "answers.csv")
    graded = {g.submission.name: g for g in grade_all(find_submissions(class_), assignment(), 2) or []}
    assert graded["alice"].score == 6
    assert (
        "FileError: '" + str(teacher / "tests.csv") + "' is outside the program's folder" in graded["absolute"].output
    )
    assert "FileError: '../alice/answers.csv' is outside the program's folder" in graded["sibling"].output
    assert "FileError: no file 'answers.csv' in the program's folder" in graded["linked"].output  # links are not copied
    assert all(graded[name].score == 0 for name in ("absolute", "sibling", "linked"))


def test_a_named_pipe_or_a_huge_submission_does_not_stall_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    submission = tmp_path / "odd"
    submission.mkdir()
    (submission / "work.dg").write_text(CORRECT)
    if hasattr(os, "mkfifo"):
        os.mkfifo(submission / "pipe.csv")  # reading it would wait for a writer forever
    assert grade(submission).score == 6
    from dglang.interpreter.frontends.grading import submissions

    monkeypatch.setattr(submissions, "MAX_BYTES", 100)
    (submission / "big.csv").write_text("1," * 100)
    graded = grade(submission)
    assert graded.score == 0 and graded.status == "no program" and "larger than the grader accepts" in graded.output


# ---- a worker that misbehaves -------------------------------------------------------------------
STAND_IN = """\
import json, os, signal, sys, time
request = json.loads(sys.stdin.read())
mode = open(request["program"]).read().split()
def send(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)
if mode[0] == "segfault":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode[0] == "flood":
    while True:
        sys.stdout.write("x" * 65536)
if mode[0] == "exit":
    sys.exit(3)
send("program", report=None, output="", seconds=0)
send("tests_file", report=None, output="", seconds=0)
for name, points, line in request["tests"]:
    if name == mode[1]:
        if mode[0] == "abort":
            os.abort()
        if mode[0] == "hang":
            time.sleep(3600)
    send("test", name=name, passed=True, report=None, output="", seconds=0)
send("done")
"""


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "stand_in_worker.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(worker_process, "WORKER", [sys.executable, str(script)])
    return tmp_path


def submission_saying(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("how", ["abort", pytest.param("hang", marks=pytest.mark.slow)])  # (hang: waits for the clock)
def test_a_test_that_kills_or_hangs_its_worker_fails_alone(stand_in: Path, how: str) -> None:
    """The test it was running fails with the reason; a new worker runs the tests after it."""
    path = submission_saying(stand_in, "crash.dg", f"{how} test_leaky_relu_grad")
    start = time.monotonic()
    graded = grade(path, stall_grace=2, run_limits={"timeout": 1})
    assert time.monotonic() - start < 30
    assert [t.passed for t in graded.tests] == [True, False, True, True]
    assert graded.score == 4
    reason = graded.tests[1].output
    if how == "abort":
        assert reason == "stopped: DG crashed (SIGABRT); this is a bug in DG" and graded.status == "killed"
    else:
        assert reason == "stopped: it went on for 3 seconds, far past its time limit" and graded.status == "timed out"


@pytest.mark.parametrize(
    ("text", "status", "reason"),
    [
        ("segfault", "killed", "not run: DG crashed (SIGSEGV); this is a bug in DG"),
        ("exit", "crashed", "not run: DG stopped unexpectedly (exit code 3); this is a bug in DG."),
        ("flood", "flooded output", "not run: it sent more output than the grader reads"),
    ],
)
def test_a_worker_that_dies_or_floods_costs_its_submission_only(
    stand_in: Path, text: str, status: str, reason: str
) -> None:
    class_ = stand_in / "class"
    class_.mkdir()
    submission_saying(class_, "bad.dg", text)
    submission_saying(class_, "good.dg", "fine none")
    graded = {g.submission.name: g for g in grade_all(find_submissions(class_), assignment(), 2) or []}
    assert graded["good.dg"].score == 6 and graded["good.dg"].status == "ok"
    bad = graded["bad.dg"]
    assert bad.score == 0 and bad.status == status
    assert [t.output for t in bad.tests] == [reason] * 4
    assert bad.output == f"The grader stopped bad.dg before its top level finished: {reason.removeprefix('not run: ')}"


@pytest.mark.slow  # (waits for the clock)
def test_the_wall_clock_stops_a_submission_that_never_reports(stand_in: Path) -> None:
    path = submission_saying(stand_in, "slow.dg", "hang test_leaky_relu_values")
    start = time.monotonic()
    graded = grade(path, wall_seconds=2, run_limits={"timeout": 30})
    assert time.monotonic() - start < 15
    assert graded.status == "timed out" and graded.score == 0
    assert graded.tests[0].output == "stopped: the submission ran longer than 2 seconds in all, the grader's limit"
    assert graded.tests[1].output == "not run: the submission ran longer than 2 seconds in all, the grader's limit"


# ---- the operating system's limits ----------------------------------------------------------------
@pytest.mark.skipif(sys.platform != "linux", reason="the limits are checked as Linux reports them")
def test_the_worker_limits_itself_before_it_reads_any_code(tmp_path: Path) -> None:
    code = (
        "import resource\nfrom dglang.interpreter.frontends.grading import isolation\n"
        "isolation.apply(isolation.SystemLimits(cpu_seconds=7.5, memory_bytes=500 * 1024**2))\n"
        "print(resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_AS),"
        " resource.getrlimit(resource.RLIMIT_FSIZE)[0], resource.getrlimit(resource.RLIMIT_CORE))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == [
        "(8,",
        "9)",
        f"({500 * 1024**2},",
        f"{500 * 1024**2})",
        str(isolation.MAX_FILE),
        "(0,",
        "0)",
    ]


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_memory_bomb_under_the_system_limit_costs_only_its_tests(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.dg"
    bomb.write_text(
        CORRECT.replace("def mse", "def mse_") + "def mse(p, t):\n    kept = []\n    while True:\n"
        "        kept.append(ones(1000, 1000))\n"
    )
    graded = grade(bomb, system=SystemLimits(60, 400 * 1024**2), run_limits={"timeout": 30})
    assert [t.passed for t in graded.tests] == [True, True, False, False]
    for test in graded.tests[2:]:
        assert "MemoryError" in test.output or "out of memory" in test.output, test.output


def runs_as_nobody() -> bool:
    if os.name != "posix" or os.geteuid() != 0:
        return False
    try:
        probe = subprocess.run([sys.executable, "-c", "import dglang"], user="nobody", capture_output=True, timeout=60)
    except (KeyError, OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


@pytest.mark.skipif(not runs_as_nobody(), reason="needs root, a user 'nobody', and a DG that user can run")
def test_as_root_each_worker_runs_as_the_user_given(tmp_path: Path) -> None:
    path = submission_saying(tmp_path, "work.dg", CORRECT)
    graded = grade(path, user="nobody")
    assert graded.score == 6, graded.output


def test_the_grader_s_own_temporary_folders_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    grade(submission_saying(tmp_path, "work.dg", CORRECT))
    assert [p.name for p in tmp_path.iterdir()] == ["work.dg"]
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_results_of_the_stand_in_are_read_line_by_line() -> None:
    events = worker_process.parse_events(b'{"event": "done"}\nnot json\n{"x": 1}\n[1]\n{"event": "test", "name": "a"}')
    assert events == [{"event": "done"}, {"event": "test", "name": "a"}]
    assert json.loads(grader.Assignment.request(assignment(), "p.dg", []).to_json())["program"] == "p.dg"


@pytest.mark.skipif(sys.platform != "linux", reason="finds the workers in /proc")
def test_ctrl_c_stops_the_grader_and_every_worker(tmp_path: Path) -> None:
    class_ = tmp_path / "class"
    class_.mkdir()
    for i in range(4):
        shutil.copyfile(SAMPLE / "submissions" / "infinite_loop.dg", class_ / f"loop{i}.dg")
    temporary = tmp_path / "tmp"  # the workers' folders are made here, so they can be found by it
    temporary.mkdir()
    command = [sys.executable, "-m", "dglang.interpreter", "grade", str(class_), "--tests", str(SAMPLE / "tests.dg")]
    command += ["--timeout", "60", "--out", str(tmp_path / "out")]
    grading = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(temporary)))
    deadline = time.monotonic() + 60
    while not workers_in(temporary) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert workers_in(temporary), "no worker started"
    grading.send_signal(signal.SIGINT)
    assert grading.wait(timeout=30) == 130
    assert "dg: KeyboardInterrupt: interrupted" in (grading.stderr.read() if grading.stderr else "")
    time.sleep(0.5)
    assert workers_in(temporary) == []


def workers_in(folder: Path) -> list[int]:
    """The processes working in a folder under `folder` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if (entry / "cwd").resolve().is_relative_to(folder):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


# ---- the tests see only what they import from the submission ---------------------------------------------
REDEFINED = """
def tensor(data, requires_grad=False, dtype=None):
    return zeros(1)

def abs(x):
    return 0

def len(x):
    return 0

def assert_close(actual, expected, rtol=0, atol=0, msg=None):
    return None

def gradcheck(f, x, quiet=False):
    return True

unused_helper = 42
"""
PLAIN_TESTS = """\
from submission import leaky_relu, mse

def test_values(points=1):
    assert abs(leaky_relu(tensor([-2.0])).item() + 0.2) < 1e-9

def test_loss(points=1):
    assert abs(mse(tensor([1.0, 2.0]), tensor([0.0, 0.0])).item() - 2.5) < 1e-9 and len([1, 2]) == 2
"""


def test_redefined_builtins_and_extra_names_change_no_verdict(tmp_path: Path) -> None:
    """A correct submission that also redefines the builtins the tests lean on keeps its marks; one
    that implements nothing and redefines them gets none, with the shipped tests and with plain asserts."""
    correct = tmp_path / "correct.dg"
    correct.write_text(CORRECT + REDEFINED)
    nothing = tmp_path / "nothing.dg"
    nothing.write_text(
        "def leaky_relu(x):\n    return zeros_like(x)\n\ndef mse(p, t):\n    return zeros(1).sum()\n" + REDEFINED
    )
    plain = {"tests_text": PLAIN_TESTS, "cases": collect(parse(Source("tests.dg", PLAIN_TESTS)))}
    assert (grade(correct).score, grade(nothing).score) == (6, 0)
    assert (grade(correct, **plain).score, grade(nothing, **plain).score) == (2, 0)


def test_a_missing_function_fails_only_its_tests_and_a_student_file_cannot_stand_in_for_the_course_s(
    tmp_path: Path,
) -> None:
    only_relu = tmp_path / "only_relu"
    only_relu.mkdir()
    (only_relu / "relu.dg").write_text("def leaky_relu(x):\n    return where(x > 0, x, 0.1 * x)\n")
    graded = grade(only_relu)
    assert graded.score == 3 and [t.passed for t in graded.tests] == [True, True, False, False]
    assert "ImportError: relu.dg defines no 'mse'" in graded.tests[2].output
    # The tests import the course's `reference` from the library path; the student ships a fake one.
    library = tmp_path / "course"
    library.mkdir()
    (library / "reference.dg").write_text("def expected(x):\n    return where(x > 0, x, 0.1 * x)\n")
    (only_relu / "reference.dg").write_text("def expected(x):\n    return zeros_like(x)\n")
    tests = "from submission import leaky_relu\nfrom reference import expected\n\ndef test_same():\n"
    tests += "    x = tensor([-1.0, 2.0])\n    assert_close(leaky_relu(x), expected(x))\n"
    changes = {"tests_text": tests, "cases": collect(parse(Source("tests.dg", tests))), "library": (str(library),)}
    assert grade(only_relu, entry="relu.dg", **changes).score == 1
    (only_relu / "relu.dg").write_text("from reference import expected\n\ndef leaky_relu(x):\n    return expected(x)\n")
    assert grade(only_relu, entry="relu.dg", **changes).score == 0  # the student's own import finds theirs


def test_a_tests_file_that_forgets_to_import_stops_before_any_test(tmp_path: Path) -> None:
    program = tmp_path / "correct.dg"
    program.write_text(CORRECT)
    tests = "def test_values():\n    assert_close(leaky_relu(tensor([1.0])), tensor([1.0]))\n"
    graded = grade(program, tests_text=tests, cases=collect(parse(Source("tests.dg", tests))))
    assert graded.status == "tests error" and graded.score == 0
    assert "NameError: the tests read 'leaky_relu', which they neither define nor import" in graded.output
    assert "from submission import leaky_relu" in graded.output
