"""Grading one submission: copy it into a private folder, run a worker process on it under a wall
clock, and turn what the worker reported (or how it died) into a score for each test.

Whatever the submission does, this returns a result, and only this submission pays: each has its
own process, folder and clock. A program that never stops is killed when the submission's wall
clock runs out; one that floods its output is killed when the grader has read enough. A test that
kills its process (it exhausts the memory limit, or crashes the interpreter) fails with the reason,
and a new process runs the tests after it, so the other tests still count.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dglang.interpreter.diagnostics.escaping import shown_name

from .collecting import Case
from .isolation import Folders, SystemLimits
from .program_choice import find_program
from .submissions import Submission, SubmissionProblem, copy_submission
from .worker import Request
from .worker_process import WorkerLimits, WorkerRun, Workers, run_worker, status_of, why_it_ended

MAX_SHOWN_OUTPUT = 20_000  # characters of a program's own printing shown in its results
# Seconds past its --timeout the grader waits for a step's result (Python's start-up, a loaded machine).
STALL = 15


@dataclass(frozen=True)
class Assignment:
    """What every submission is graded against: the teacher's tests and the limits."""

    tests_name: str
    tests_text: str
    cases: list[Case]
    run_limits: dict[str, Any]  # DG's own: max_depth, max_steps, timeout, max_output
    system: SystemLimits
    wall_seconds: float
    entry: str | None = None
    user: str | None = None  # POSIX, as root: run each worker as this user
    stall_grace: float = STALL
    library: tuple[str, ...] = ()  # folders of modules (`--lib`, DG_LIB), as full paths

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.cases)

    def worker_limits(self, elapsed: float) -> WorkerLimits:
        """A worker's limits, `elapsed` seconds into the submission's wall clock. A step (the
        program's top level, a test) that outlives its --timeout by `stall_grace` seconds is stopped by
        the grader (see STALL); the results a worker may send are its runs' output (at worst escaped six
        times over in JSON) and their reports."""
        timeout = self.run_limits.get("timeout") or self.wall_seconds
        per_run = 6 * (self.run_limits.get("max_output") or 10_000_000) + 200_000
        return WorkerLimits(self.wall_seconds - elapsed, timeout + self.stall_grace, (len(self.cases) + 2) * per_run)

    def request(self, program: str, cases: list[Case]) -> Request:
        return Request(
            program=program,
            tests_name=self.tests_name,
            tests_text=self.tests_text,
            tests=[(c.name, c.points, c.line) for c in cases],
            library=list(self.library),
            run_limits=self.run_limits,
            system_limits={"cpu_seconds": self.system.cpu_seconds, "memory_bytes": self.system.memory_bytes},
        )


@dataclass(frozen=True)
class TestResult:
    case: Case
    passed: bool
    output: str

    @property
    def score(self) -> float:
        return self.case.points if self.passed else 0


@dataclass(frozen=True)
class Graded:
    submission: Submission
    status: str  # ok, no program, syntax error, program error, tests error, timed out, killed, crashed, ...
    output: str  # about the whole submission
    tests: list[TestResult]
    seconds: float

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)


def grade(submission: Submission, assignment: Assignment, workers: Workers) -> Graded:
    """Grade one submission (never raises for anything the submission does)."""
    start = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="dg-grade-"))
    try:
        folders = Folders(root)
        folders.make()
        try:
            copied = copy_submission(submission, folders.submission)
            program = str(find_program(copied, folders.submission, assignment.entry))
        except SubmissionProblem as problem:
            return not_run(submission, assignment, "no program", str(problem), time.monotonic() - start)
        if assignment.user is not None:
            give_to(root, assignment.user)
        graded = Grading(submission, assignment, program, start, copied.notes())
        graded.run(folders, workers)
        return graded.result()
    finally:
        remove(root)


def remove(root: Path) -> None:
    """Remove a submission's private folder, whatever it holds (the copy is at most MAX_DEPTH deep)."""
    shutil.rmtree(root, ignore_errors=True)
    if root.exists():  # a file the worker's user made unwritable: make it writable, and again
        for folder, _, _ in os.walk(root):
            with contextlib.suppress(OSError):
                os.chmod(folder, 0o700)
        shutil.rmtree(root, ignore_errors=True)
    if root.exists():
        print(f"dg grade: could not remove the private folder {root}", file=sys.stderr)


def not_run(submission: Submission, assignment: Assignment, status: str, why: str, seconds: float) -> Graded:
    tests = [TestResult(c, False, f"not run: {why}") for c in assignment.cases]
    return Graded(submission, status, why, tests, seconds)


class Grading:
    """One submission's grading under way: the workers run so far and what they reported."""

    def __init__(self, submission: Submission, assignment: Assignment, program: str, start: float, notes: str) -> None:
        self.submission, self.assignment, self.start = submission, assignment, start
        self.path, self.program = program, shown_name(program)  # the path in the copy; as messages show it
        self.notes = notes  # what the copy left out, and why
        self.results: dict[str, TestResult] = {}
        self.first: WorkerRun | None = None  # the first worker: the program's own run and output
        self.stopped: str | None = None  # why the last worker did not finish, if it did not
        self.status = "ok"

    def run(self, folders: Folders, workers: Workers) -> None:
        """Run workers until every test has a result, the wall clock is spent, or nothing is left to try."""
        pending = list(self.assignment.cases)
        while pending:
            limits = self.assignment.worker_limits(time.monotonic() - self.start)
            request = self.assignment.request(self.path, pending)
            run = run_worker(request, folders, limits, self.assignment.user, workers)
            if run.cancelled:
                return
            self.first = self.first or run
            for event in run.tests():
                case = next((c for c in pending if c.name == event.get("name")), None)
                if case is not None:
                    self.results[case.name] = TestResult(case, bool(event.get("passed")), test_output(case, event))
            if run.finished or failed_stage(run) is not None:
                return
            self.stopped = why_it_ended(run, limits, self.assignment.wall_seconds, self.assignment.system)
            self.status = status_of(run)
            pending = [c for c in pending if c.name not in self.results]
            if run.stage("tests_file") is None or not pending:
                return  # it died before the tests: another try would die the same way
            culprit, pending = pending[0], pending[1:]  # the test it was running: it fails, the rest get a new worker
            self.results[culprit.name] = TestResult(culprit, False, f"stopped: {self.stopped}")
            if run.timed_out or run.flooded:
                return  # the submission's whole budget is spent (a stalled test costs only itself)

    def result(self) -> Graded:
        graded = self.outcome()
        if not self.notes:
            return graded
        return dataclasses.replace(graded, output=f"{graded.output}\n{self.notes}")

    def outcome(self) -> Graded:
        seconds = time.monotonic() - self.start
        first = self.first
        failed = failed_stage(first) if first is not None else None
        if failed is not None:
            event, stage = failed
            status = "syntax error" if stage.get("syntax") else "program error" if event == "program" else "tests error"
            who = self.program if event == "program" else f"the tests file {self.assignment.tests_name}"
            why = f"{who} stopped with an error before any test could run"
            output = f"{why}:\n{stage['report']}{printed(self.program, stage.get('output', ''))}"
            tests = [TestResult(c, False, f"not run: {why}") for c in self.assignment.cases]
            return Graded(self.submission, status, output, tests, seconds)
        tests = [
            self.results.get(c.name) or TestResult(c, False, f"not run: {self.stopped or 'no result came back'}")
            for c in self.assignment.cases
        ]
        program = first.stage("program") if first is not None else None
        if program is None:  # the process died (or the clock ran out) before the program finished
            output = f"The grader stopped {self.program} before its top level finished: {self.stopped}"
            return Graded(self.submission, self.status, output, tests, seconds)
        output = f"{self.program} ran; {sum(t.passed for t in tests)} of {len(tests)} tests passed"
        if self.stopped is not None:
            output += f"\nThe grader stopped it: {self.stopped}"
        output += printed(self.program, program.get("output", ""))
        return Graded(self.submission, self.status, output, tests, seconds)


def failed_stage(run: WorkerRun) -> tuple[str, dict[str, Any]] | None:
    """The program's or the tests file's top level, if it stopped with an error (then no test ran)."""
    for event in ("program", "tests_file"):
        stage = run.stage(event)
        if stage is not None and stage.get("report"):
            return event, stage
    return None


def test_output(case: Case, event: dict[str, Any]) -> str:
    """A test's report (when it failed), then what it printed."""
    text = event.get("report") or ""
    if event.get("output"):
        text += f"--- what {case.name} printed ---\n" if text else ""
        text += shorten(event["output"])
    return text


def printed(program: str, output: str) -> str:
    return f"\n--- what {program} printed ---\n{shorten(output)}" if output else ""


def shorten(text: str) -> str:
    if len(text) <= MAX_SHOWN_OUTPUT:
        return text
    return text[:MAX_SHOWN_OUTPUT] + f"\n... ({len(text) - MAX_SHOWN_OUTPUT:,} more characters)\n"


def give_to(root: Path, user: str) -> None:
    """Hand the submission's private folder to the user its worker runs as."""
    for folder, folders, files in os.walk(root):
        for name in [folder, *(os.path.join(folder, f) for f in folders + files)]:
            shutil.chown(name, user=user)
