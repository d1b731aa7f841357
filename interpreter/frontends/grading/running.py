"""Running tests: a program's top level once, then each test function on its own, in one session.

Each test starts from the state the top level left (a copy of it: snapshot.py), so a test that
trains the weights or accumulates a `.grad` changes nothing the next test sees, and a failure or
an error in one test does not stop the others. Every run (the top level, each test) gets the
session's limits afresh, as each REPL cell does: `--timeout 10` allows each test ten seconds.
What a test prints is kept with its result rather than written out.

For grading, the teacher's tests file runs after the student's program, in a scope of its own
whose names come first, then the checking builtins (`assert_close`, `gradcheck`), then the
student's names, then the other builtins. So the tests see what the student defined, even under a
builtin's name (an assignment may well be to write `relu`), but a student who defines
`assert_close` or `gradcheck` to pass anything changes only their own code's view of them.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.runtime import Env

from .collecting import Case
from .snapshot import copy_state

# The builtins a test's verdict rests on: what they mean to the tests no submission can change.
CHECKS = ("assert_close", "gradcheck")
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


class Runner:
    """A session in which a program runs and then its tests (or a teacher's tests) run."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.scope: Env = session.globals  # where the tests are defined and run

    def run_program(self, text: str, name: str) -> Stage:
        """Run a program's top level in the session's globals."""
        return self.stage(text, name, self.session.globals)

    def run_tests_file(self, text: str, name: str) -> Stage:
        """Run a teacher's tests file after the student's program, in its own scope (see above)."""
        builtins = self.session.builtins.vars
        checks = Env({name: builtins[name] for name in CHECKS if name in builtins}, self.session.globals)
        self.scope = Env({}, checks)
        return self.stage(text, name, self.scope)

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
        """Run each test from a copy of the state the top level left; yield each result as it comes."""
        builtins = self.session.builtins
        for i, test in enumerate(tests):
            last = i == len(tests) - 1  # the last test may have the state itself: no one runs after it
            try:
                scope = self.scope if last else copy_state(self.scope, (builtins, builtins.vars))
            except MemoryError:
                error = DGError("MemoryError", "out of memory copying the program's variables for this test")
                yield Outcome(test, False, "", format_error(error), 0.0)
                continue
            yield self.run_test(test, scope)

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
