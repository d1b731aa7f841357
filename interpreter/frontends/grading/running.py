"""Running tests: a program's top level once, then each test function on its own, in one session.

Each test starts from the state the top level left (a copy of it: snapshot.py), so a test that
trains the weights or accumulates a `.grad` changes nothing the next test sees, and a failure or
an error in one test does not stop the others. Every run (the top level, each test) gets the
session's limits afresh, as each REPL cell does: `--timeout 10` allows each test ten seconds.
What a test prints is kept with its result rather than written out.

For grading, the student's program runs first, as the module `submission` (in a scope of its
own, as any module: run_submission), then the teacher's tests file, in a scope whose only names are
its own and DG's builtins. The tests reach the student's names only as they ask for them, with
`from submission import leaky_relu` (or `import submission`); every other name they read is DG's
own. So a submission that redefines `tensor`, `abs` or `assert_close`, or defines names the tests do
not ask for, changes nothing the tests see: only what its own functions do when the tests call them.
A name the tests take that the submission does not define fails the tests that use it, not the
others (ModuleInterface.checked). The tests file's imports look only at `submission` and the
library path, never in the submission's folder (Modules.sealed).

The random numbers start over at the program and at the tests file (seed 0), and each test starts
from the random state the tests file left, so a submission's draws or `seed()` change no test's
numbers, a test run alone draws what it draws in the file, and a second worker (after one crashed)
starts the tests from the same state.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dglang.autograd.creation import random_state, seed, set_random_state
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.host.bounded import bounded
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics.evaluator import Program
from dglang.interpreter.semantics.resolver import Resolution

from .collecting import SUBMISSION, Case
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

    def run_submission(self, program: Path) -> Stage:
        """Run a student's program as the module `submission`, for a tests file to import (see above)."""
        session, modules = self.session, self.session.modules
        modules.aliases[SUBMISSION] = program.resolve()
        return self.timed(lambda: session.execute(lambda env: modules.run_alias(SUBMISSION), session.globals))

    def run_tests_file(self, text: str, name: str) -> Stage:
        """Run a teacher's tests file after the student's program, in its own scope (see above)."""
        session = self.session
        self.scope = Env({}, session.builtins)

        def run() -> None:
            program = compile_tests_file(session, text, name)
            seed(GRADING_SEED)
            session.execute(program, self.scope)

        return self.timed(run)

    def own_tests(self, program: tuple[str, str], cases: list[Case]) -> Iterator[Step]:
        """A file with its own tests (`dg test`): its top level, then each test unless it stopped."""
        ran = self.run_program(*program)
        yield "program", ran
        if ran.error is None:
            for outcome in self.run_tests(cases):
                yield "test", outcome

    def grade(self, program: Path, tests: tuple[str, str], cases: list[Case]) -> Iterator[Step]:
        """A submission graded: its program (as the module `submission`), the tests file, then each
        test, each step yielded as it ends; nothing runs after a top level that stopped with an error."""
        seed(GRADING_SEED)
        ran = self.run_submission(program)
        yield "program", ran
        if ran.error is None:
            ran = self.run_tests_file(*tests)
            yield "tests_file", ran
            if ran.error is None:
                for outcome in self.run_tests(cases):
                    yield "test", outcome

    def stage(self, text: str, name: str, scope: Env) -> Stage:
        return self.timed(lambda: self.session.execute(self.session.compile(text, name), scope))

    def timed(self, run: Callable[[], None]) -> Stage:
        """Run a top level, keeping what it prints and the error it stops with."""
        out = self.capture()
        start = time.perf_counter()
        try:
            run()
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


def compile_tests_file(session: Session, text: str, name: str) -> Program:
    """A teacher's tests file compiled as grading runs it: its imports look only at `submission` and
    the library path (Modules.sealed), and it reads no name it neither defines nor imports."""
    session.modules.sealed.add(name)
    try:
        program = session.compile_source(Source(name, text))
    except DGError as e:
        raise module_not_found(e, name) from None
    check_names(program.resolution, session.builtins.vars.keys())
    return program


def module_not_found(error: DGError, name: str) -> DGError:
    """A tests file that imports the program by another name (`from solution import f`) is told its name."""
    if missing_module(error, name) is not None:
        error.help = (
            f"the student's program is the module `{SUBMISSION}`: `from {SUBMISSION} import ...`; a module of "
            "the course is found in a folder given with --lib DIR"
        )
    return error


def missing_module(error: DGError, name: str) -> str | None:
    """The module an import in the text `name` names that DG found nowhere (not one of Python's,
    whose own help says more), or None for any other error."""
    span = error.span
    if span is None or span.source.name != name or span.end_line != span.line:
        return None
    from dglang.interpreter.semantics.hints import python_module  # (the hints load at the first error)

    module = span.source.line(span.line)[span.column - 1 : span.end_column - 1]
    if error.message != f"no module named '{module}'" or python_module(module) is not None:
        return None
    return module


def check_names(resolution: Resolution, builtins: object) -> None:
    """A tests file that reads a name it neither defines nor imports (nor DG has) stops before any
    test runs: the tests never see the submission's names unless they import them."""
    unknown = resolution.free_names - builtins  # type: ignore[operator]
    if not unknown:
        return
    first = min((n for n in resolution.lookups if n.name in unknown), key=lambda n: (n.span.line, n.span.column))
    raise DGError(
        "NameError",
        f"the tests read '{first.name}', which they neither define nor import",
        first.span,
        help=f"take it from the student's program: `from {SUBMISSION} import {first.name}`",
    )


def interrupted(error: DGError) -> None:
    """Ctrl-C stops the whole run, as it stops pytest; a timeout is only that test's failure."""
    if error.kind == "KeyboardInterrupt":
        raise KeyboardInterrupt
