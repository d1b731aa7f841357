"""Grading one submission: copy it into a private folder, run a worker process on it under a wall
clock, and turn what the worker reported (or how it died) into a score for each test.

Whatever the submission does, this returns a result: a program that never stops is killed when
its wall clock runs out, one that floods its output is killed when the grader has read enough,
one that crashes the interpreter leaves the tests it finished and a line saying why the rest did
not run. Only this submission pays: each has its own process, folder and clock.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .collecting import Case
from .isolation import Folders, SystemLimits, environment
from .submissions import Submission, SubmissionProblem, copy_submission, find_program
from .worker import Request

WORKER = [sys.executable, "-P", "-m", "dglang.interpreter.frontends.grading.worker"]
MAX_ERRORS = 20_000  # bytes of a worker's standard error kept (Python's own last words, if it crashes)
MAX_SHOWN_OUTPUT = 20_000  # characters of a program's own printing shown in its results


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

    @property
    def max_score(self) -> float:
        return sum(c.points for c in self.cases)

    def output_cap(self) -> int:
        """Bytes of results a worker may send: its runs' output (at worst escaped six times) and reports."""
        per_run = 6 * (self.run_limits.get("max_output") or 10_000_000) + 200_000
        return (len(self.cases) + 2) * per_run


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
    status: str  # ok, no program, syntax error, program error, tests file error, timed out, killed, crashed
    output: str  # about the whole submission
    tests: list[TestResult]
    seconds: float

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)


@dataclass
class WorkerRun:
    """What a worker process left: its events, and how it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)
    returncode: int | None = None
    timed_out: bool = False
    flooded: bool = False
    errors: str = ""


def grade(submission: Submission, assignment: Assignment, processes: set[subprocess.Popen[bytes]]) -> Graded:
    """Grade one submission (never raises for anything the submission does)."""
    start = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="dg-grade-"))
    try:
        folders = Folders(root)
        folders.make()
        try:
            copy_submission(submission, folders.submission)
            program = find_program(folders.submission, assignment.entry)
        except SubmissionProblem as problem:
            return not_run(submission, assignment, "no program", str(problem), time.perf_counter() - start)
        if assignment.user is not None:
            give_to(root, assignment.user)
        run = run_worker(assignment, program.relative_to(folders.submission), folders, processes)
        return interpret(submission, assignment, str(program.relative_to(folders.submission)), run, start)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def not_run(submission: Submission, assignment: Assignment, status: str, why: str, seconds: float) -> Graded:
    tests = [TestResult(c, False, f"not run: {why}") for c in assignment.cases]
    return Graded(submission, status, why, tests, seconds)


def run_worker(
    assignment: Assignment, program: Path, folders: Folders, processes: set[subprocess.Popen[bytes]]
) -> WorkerRun:
    """Start a worker in the submission's folder and collect what it says until it ends or is killed."""
    request = Request(
        program=str(program),
        tests_name=assignment.tests_name,
        tests_text=assignment.tests_text,
        tests=[(c.name, c.points, c.line) for c in assignment.cases],
        run_limits=assignment.run_limits,
        system_limits={"cpu_seconds": assignment.system.cpu_seconds, "memory_bytes": assignment.system.memory_bytes},
    )
    options: dict[str, Any] = {}
    if os.name == "posix":
        options["start_new_session"] = True  # a process group of its own, killed as one
        if assignment.user is not None:
            options["user"] = assignment.user
    else:
        options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
    process = subprocess.Popen(
        WORKER,
        cwd=folders.submission,
        env=environment(folders),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **options,
    )
    processes.add(process)
    run = WorkerRun()
    out, err = bytearray(), bytearray()

    def flood() -> None:
        run.flooded = True
        kill(process)

    threads = [
        threading.Thread(target=feed, args=(process.stdin, request.to_json().encode()), daemon=True),
        threading.Thread(target=drain, args=(process.stdout, out, assignment.output_cap(), flood), daemon=True),
        threading.Thread(target=drain, args=(process.stderr, err, MAX_ERRORS, None), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        run.returncode = process.wait(timeout=assignment.wall_seconds)
    except subprocess.TimeoutExpired:
        run.timed_out = True
        kill(process)
        run.returncode = process.wait()
    finally:
        processes.discard(process)
    for thread in threads:
        thread.join(timeout=5)
    run.events = parse_events(bytes(out))
    run.errors = bytes(err).decode("utf-8", "replace")
    return run


def feed(pipe: IO[bytes] | None, data: bytes) -> None:
    try:
        if pipe is not None:
            pipe.write(data)
            pipe.close()
    except OSError:  # the worker died before reading its request: how it died says why
        pass


def drain(pipe: IO[bytes] | None, into: bytearray, cap: int, over: Any) -> None:
    """Read a pipe to its end, keeping at most `cap` bytes; past them call `over` (or drop the rest)."""
    if pipe is None:
        return
    while chunk := pipe.read1(65536) if hasattr(pipe, "read1") else pipe.read(65536):
        if len(into) + len(chunk) > cap:
            if over is not None:
                over()
                return
            continue
        into.extend(chunk)


def parse_events(data: bytes) -> list[dict[str, Any]]:
    events = []
    for line in data.split(b"\n"):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            events.append(event)
    return events


def kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the worker and anything it started."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def give_to(root: Path, user: str) -> None:
    """Hand the submission's private folder to the user its worker runs as."""
    for folder, folders, files in os.walk(root):
        for name in [folder, *(os.path.join(folder, f) for f in folders + files)]:
            shutil.chown(name, user=user)


# ---- what the worker's report means ------------------------------------------------------------
def interpret(submission: Submission, assignment: Assignment, program: str, run: WorkerRun, start: float) -> Graded:
    seconds = time.perf_counter() - start
    by_name = {e.get("name"): e for e in run.events if e["event"] == "test"}
    stages = {e["event"]: e for e in run.events if e["event"] in ("program", "tests_file")}
    stopped = why_stopped(run, assignment) if not any(e["event"] == "done" for e in run.events) else None
    for event, who in (("program", program), ("tests_file", f"the tests file {assignment.tests_name}")):
        stage = stages.get(event)
        if stage is not None and stage.get("report"):
            status = "syntax error" if stage.get("syntax") else "program error" if event == "program" else "tests error"
            why = f"{who} stopped with an error before any test could run"
            output = f"{why}:\n{stage['report']}{printed(program, stage.get('output', ''))}"
            return Graded(submission, status, output, not_run(submission, assignment, status, why, 0).tests, seconds)
    tests, waiting = [], "not run"
    for case in assignment.cases:
        event = by_name.get(case.name)
        if event is None:
            reason = f"{waiting}: {stopped or 'the grader got no result for it'}"
            tests.append(TestResult(case, False, reason))
            waiting = "not run, as the test before it was stopped"
            continue
        text = event.get("report") or ""
        if event.get("output"):
            text += f"--- what {case.name} printed ---\n" if text else ""
            text += shorten(event["output"])
        tests.append(TestResult(case, bool(event.get("passed")), text))
    passed = sum(t.passed for t in tests)
    output = f"{program} ran; {passed} of {len(tests)} tests passed"
    if stopped is not None:
        output += f"\nThe grader stopped it: {stopped}"
    program_stage = stages.get("program")
    if program_stage is not None:
        output += printed(program, program_stage.get("output", ""))
    status = "ok" if stopped is None else status_of(run)
    return Graded(submission, status, output, tests, seconds)


def why_stopped(run: WorkerRun, assignment: Assignment) -> str:
    if run.timed_out:
        return f"it ran longer than {assignment.wall_seconds:g} seconds, the limit for a whole submission"
    if run.flooded:
        return "it sent more output than the grader reads"
    code = run.returncode
    cpu = getattr(signal, "SIGXCPU", None)
    if code is not None and cpu is not None and code == -cpu:
        return f"it used more than {assignment.system.cpu_seconds:g} seconds of CPU time"
    if code == -getattr(signal, "SIGKILL", 9):
        return "the operating system killed it (out of memory or CPU time)"
    if code is not None and code < 0:
        return f"DG crashed ({signal.Signals(-code).name})" if -code in signal.valid_signals() else "DG crashed"
    last = run.errors.strip().splitlines()[-1:] or [""]
    return f"DG stopped unexpectedly (exit code {code}) {last[0]}".strip()


def status_of(run: WorkerRun) -> str:
    if run.timed_out:
        return "timed out"
    if run.flooded:
        return "flooded output"
    return "killed" if run.returncode is not None and run.returncode < 0 else "crashed"


def printed(program: str, output: str) -> str:
    return f"\n--- what {program} printed ---\n{shorten(output)}" if output else ""


def shorten(text: str) -> str:
    if len(text) <= MAX_SHOWN_OUTPUT:
        return text
    return text[:MAX_SHOWN_OUTPUT] + f"\n... ({len(text) - MAX_SHOWN_OUTPUT:,} more characters)\n"
