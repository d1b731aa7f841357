"""Running tests: a program's top level once, then each test function on its own, in one session.

Each test starts from the state the top level left (a copy of it: snapshot.py), so a test that
trains the weights or accumulates a `.grad` changes nothing the next test sees, and a failure or
an error in one test does not stop the others. Every run (the top level, each test) gets the
session's limits afresh, as each REPL cell does: `--timeout 10` allows each test ten seconds.
What a test prints is kept with its result rather than written out.

For grading, the teacher's tests file runs after the student's program, in a scope of its own
that `tests_scope` builds (the one place that decides what a tests file sees; docs/grading.md says
it to teachers): the tests file's own names first, then every DG builtin, then the submission's
top-level names, only for a name that is neither. So the verdict rests on DG's own `tensor`,
`abs`, `assert_close` ..., whatever the submission defines under those names; the submission's
functions, called by the tests, still see the submission's own names. The random numbers start
over at the program and at the tests file (seed 0), so a submission's draws or `seed()` change
no test's numbers, and a second worker (after one crashed) starts the tests from the same state.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass

from dglang.autograd.creation import random_state, seed, set_random_state
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.host.bounded import bounded
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.runtime import Env

from .collecting import Case
from .snapshot import Snapshot, snapshot

# Where grading's random numbers start, before the program and again before the tests file.
GRADING_SEED = 0
# Errors in a test report the call that started it from this source, as `<dg test>:1:1  test_relu()`.
CALLER = "<dg test>"


@dataclass(frozen=True)
class Stage:
    """How a file's top level ran: what it printed, and the error it stopped with (if any)."""

    output: str
    error: DGError | None
    seconds: float

    @property
    def report(self) -> str | None:
        return format_error(self.error) if self.error is not None else None


@dataclass(frozen=True)
class Outcome:
    """One test's result: its report when it failed (an assertion or any other error)."""

    test: Case
    passed: bool
    output: str
    report: str | None
    seconds: float


Step = tuple[str, "Stage | Outcome"]  # ("program" | "tests_file", its Stage) or ("test", its Outcome)


class Runner:
    """A session in which a program runs and then its tests (or a teacher's tests) run."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.scope: Env = session.globals  # where the tests are defined and run

    def run_program(self, text: str, name: str) -> Stage:
        """Run a program's top level in the session's globals."""
        return self.stage(text, name, self.session.globals)

    def run_tests_file(self, text: str, name: str) -> Stage:
        """Run a teacher's tests file after the student's program, in its own scope (tests_scope)."""
        self.scope = tests_scope(self.session.builtins, submission_names(self.session.globals))
        seed(GRADING_SEED)
        return self.stage(text, name, self.scope)

    def own_tests(self, program: tuple[str, str], cases: list[Case]) -> Iterator[Step]:
        """A file with its own tests (`dg test`): its top level, then each test unless it stopped."""
        ran = self.run_program(*program)
        yield "program", ran
        if ran.error is None:
            for outcome in self.run_tests(cases):
                yield "test", outcome

    def grade(self, program: tuple[str, str], tests: tuple[str, str], cases: list[Case]) -> Iterator[Step]:
        """A submission graded: its program (text and name), the tests file, then each test, each
        step yielded as it ends; nothing runs after a top level that stopped with an error."""
        seed(GRADING_SEED)
        ran = self.run_program(*program)
        yield "program", ran
        if ran.error is None:
            ran = self.run_tests_file(*tests)
            yield "tests_file", ran
            if ran.error is None:
                for outcome in self.run_tests(cases):
                    yield "test", outcome

    def stage(self, text: str, name: str, scope: Env) -> Stage:
        out = self.capture()
        start = time.perf_counter()
        try:
            self.session.execute(self.session.compile(text, name), scope)
        except DGError as e:
            interrupted(e)
            return Stage(out.getvalue(), e, time.perf_counter() - start)
        return Stage(out.getvalue(), None, time.perf_counter() - start)

    def run_tests(self, tests: list[Case]) -> Iterator[Outcome]:
        """Run each test from a copy of the state the top level left, its random numbers included;
        yield each result as it comes."""
        randomness = random_state()
        for i, test in enumerate(tests):
            set_random_state(randomness)
            last = i == len(tests) - 1  # the last test may have the state itself: no one runs after it
            try:
                copy = None if last else self.copy(test)
            except DGError as e:
                interrupted(e)
                yield Outcome(test, False, "", format_error(e), 0.0)
                continue
            yield self.run_test(test, self.scope if copy is None else copy.root)
            if copy is not None:
                copy.release()

    def copy(self, test: Case) -> Snapshot:
        """A copy of the state for one test, made within the test's limits: it counts toward
        --max-memory (and --timeout) as what the test does."""
        call = f"{test.name}()"
        builtins, where = self.session.builtins, Span(Source(CALLER, call), 1, 1, 1, len(call) + 1)
        try:
            return bounded(
                self.session.limits,
                lambda: snapshot(self.scope, (builtins, builtins.vars)),
                where,
                doing="while copying the program's variables for this test",
            )
        except MemoryError:  # Python's own: the address space ran out (a grader's RLIMIT_AS)
            raise DGError("MemoryError", "out of memory copying the program's variables for this test") from None

    def run_test(self, test: Case, scope: Env) -> Outcome:
        out = self.capture()
        start = time.perf_counter()
        try:
            code = self.session.compile(f"{test.name}()", CALLER)
            self.session.execute(code, scope)
        except DGError as e:
            interrupted(e)
            return Outcome(test, False, out.getvalue(), format_error(e), time.perf_counter() - start)
        return Outcome(test, True, out.getvalue(), None, time.perf_counter() - start)

    def capture(self) -> io.StringIO:
        """Keep what the next run prints (bounded by the session's --max-output)."""
        out = io.StringIO()
        self.session.out = out
        return out


def interrupted(error: DGError) -> None:
    """Ctrl-C stops the whole run, as it stops pytest; a timeout is only that test's failure."""
    if error.kind == "KeyboardInterrupt":
        raise KeyboardInterrupt


# ---- what a tests file sees ---------------------------------------------------------------------
def tests_scope(builtins: Env, submission: Env) -> Env:
    """The scope a tests file runs in: its own names (this scope's), then DG's builtins, then
    `submission` (what submission_names lets through). A name the tests file uses but does not
    define means DG's builtin whatever the submission defines; only a name that is neither reaches
    the submission."""
    return Env({}, Env(builtins.vars, submission))


def submission_names(program: Env) -> Env:
    """The submission's names as the tests reach them: today every top-level name of the program,
    looked up after the builtins. This is the one place to change when a tests file imports the
    submission as a module: it then sees the submission's names only through that import."""
    return Env(program.vars, None)
