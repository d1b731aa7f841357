"""`dg test FILE.dg`: run a file's top level, then each of its `test_...` functions, and report as
pytest does: a line per test, then each failure with DG's located message and what the test
printed, then a summary. The exit code is 0 only when every test passed. `dg test FILE.dg --tests
TESTS.dg` runs a teacher's tests file against the program as `dg grade` does (running.py), in
this process.

    relu.dg::test_relu PASSED
    relu.dg::test_relu_grad FAILED
    ...
    1 failed, 1 passed
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TextIO

from dglang.interpreter.diagnostics.errors import DGError, OutputClosed
from dglang.interpreter.diagnostics.escaping import escaped
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.options import ArgumentParser, limits_from, run_options
from dglang.interpreter.frontends.program_files import read_program
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT
from dglang.interpreter.syntax.parser import parse

from .collecting import SUBMISSION, collect
from .running import Outcome, Runner, Stage, missing_module

# Exit codes: pytest's for tests (1: some failed, 5: none found), DG's own for a file that cannot run.
EXIT_PASSED, EXIT_FAILED, EXIT_COLLECTION, EXIT_NO_TESTS = 0, 1, 2, 5
EXIT_SYNTAX, EXIT_NOINPUT, EXIT_RUNTIME, EXIT_INTERRUPTED = 65, 66, 70, 130


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    p = ArgumentParser(
        prog="dg test",
        description="Run a program's top level, then each top-level function named test_..., each from the "
        "state the top level left; report each failure as DG reports errors. Exit 0 only if all pass.",
    )
    p.add_argument("file", help="the program with its tests")
    p.add_argument("--tests", metavar="TESTS.dg", help="run a teacher's tests file against FILE, as dg grade does")
    p.add_argument("-k", metavar="TEXT", help="run only the tests whose name contains TEXT")
    run_options(p, default_output=DEFAULT_MAX_OUTPUT)
    p.add_argument(
        "--allow-path", action="append", default=[], metavar="DIR", help="let load_csv read files under DIR too"
    )
    return p


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    try:
        return test_file(args, out if out is not None else sys.stdout)
    except BrokenPipeError:  # `dg ... | head`: the reader left; stop quietly, as `dg FILE` does
        raise OutputClosed from None


def test_file(args: argparse.Namespace, out: TextIO) -> int:
    try:
        text, name = read_program(args.file)
        tests_text, tests_name = read_program(args.tests) if args.tests is not None else (text, name)
    except DGError as e:
        return fail(e, EXIT_NOINPUT)
    try:
        tests = [t for t in collect(parse(Source(tests_name, tests_text))) if args.k is None or args.k in t.name]
    except DGError as e:  # a syntax error, or a test that cannot be called (pytest's collection error)
        return fail(e, EXIT_SYNTAX if e.is_syntax else EXIT_COLLECTION)
    run = Runner(
        new_session(
            base_dir=Path(args.file).resolve().parent,
            max_depth=args.max_depth,
            limits=limits_from(args),
            allowed_dirs=args.allow_path,
            library=args.lib,
        )
    )
    # With --tests, as `dg grade` runs them (running.py): the program is the module `submission`.
    steps = (
        run.grade(Path(args.file), (tests_text, tests_name), tests)
        if args.tests
        else run.own_tests((text, name), tests)
    )
    outcomes = []
    try:
        for _, step in steps:
            if isinstance(step, Stage):
                if step.error is not None:
                    out.write(escaped(step.output))
                    error = step.error if args.tests else run_alone(step.error, name)
                    return fail(error, EXIT_SYNTAX if error.is_syntax else EXIT_RUNTIME)
                continue
            outcomes.append(step)
            out.write(f"{tests_name}::{step.test.name} {'PASSED' if step.passed else 'FAILED'}\n")
            out.flush()
    except KeyboardInterrupt:
        return fail(DGError("KeyboardInterrupt", "interrupted"), EXIT_INTERRUPTED)
    if not tests:
        which = f" matching '{args.k}'" if args.k is not None else ""
        out.write(f"{tests_name}: no test_... functions{which}: nothing to run\n")
        return EXIT_NO_TESTS
    out.write(escaped(failures(outcomes) + summary(outcomes)) + "\n")
    return EXIT_PASSED if all(o.passed for o in outcomes) else EXIT_FAILED


def run_alone(error: DGError, name: str) -> DGError:
    """A tests file run as the program (`dg test tests.dg`) finds no `submission` to import: say how
    to run it on a program, rather than only where DG looked for submission.dg."""
    if missing_module(error, name) != SUBMISSION:
        return error
    error.help = (
        f"a tests file takes the program it tests as the module `{SUBMISSION}`: name the program, "
        f"`dg test solution.dg --tests {shlex.quote(name)}`, or put {SUBMISSION}.dg beside {name}"
    )
    return error


def failures(outcomes: list[Outcome]) -> str:
    """Each failed test: its report, then what it printed."""
    parts = []
    for o in outcomes:
        if o.passed:
            continue
        part = f"\n--- {o.test.name} ---\n{o.report}"
        if o.output:
            part += f"--- what {o.test.name} printed ---\n{o.output}" + ("" if o.output.endswith("\n") else "\n")
        parts.append(part)
    return "".join(parts) + ("\n" if parts else "")


def summary(outcomes: list[Outcome]) -> str:
    """`1 failed, 3 passed`, and the points when tests are worth different amounts."""
    passed = sum(o.passed for o in outcomes)
    failed = len(outcomes) - passed
    counts = ", ".join(part for part in (f"{failed} failed" * bool(failed), f"{passed} passed" * bool(passed)) if part)
    if all(o.test.points == 1 for o in outcomes):
        return counts
    earned = sum(o.test.points for o in outcomes if o.passed)
    return f"{counts}; {points(earned)} of {points(sum(o.test.points for o in outcomes))} points"


def points(value: float) -> str:
    return f"{value:g}"


def fail(error: DGError, code: int) -> int:
    sys.stdout.flush()
    sys.stderr.write(format_error(error))
    return code
