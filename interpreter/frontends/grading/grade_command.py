"""`dg grade SUBMISSIONS --tests TESTS.dg`: grade a class, each submission in a process of its own,
`--workers` of them at a time; write each submission's results.json (Gradescope's format) and one
summary.csv; print a table. `dg grade --gradescope DIR --tests TESTS.dg` writes the autograder
folder instead, so that Gradescope runs the same grading on each submission in its containers.

A submission that crashes, hangs or floods costs only its own points; the exit code is 0 whenever
the class was graded, whatever the students scored.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TextIO

from dglang.interpreter.diagnostics.errors import DGError, OutputClosed
from dglang.interpreter.diagnostics.escaping import escaped_data, shown_name
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.frontends.options import ArgumentParser, positive_int, run_options, seconds
from dglang.interpreter.frontends.program_files import read_program
from dglang.interpreter.host.module_files import library_folders
from dglang.interpreter.syntax.parser import parse

from .collecting import collect
from .grader import Assignment, Graded, grade, not_run
from .gradescope import results_json, write_autograder
from .isolation import SystemLimits, user_problem
from .submissions import Submission, find_submissions
from .tests_check import check_tests_file
from .worker_process import Workers

EXIT_OK, EXIT_USAGE, EXIT_SYNTAX, EXIT_NOINPUT, EXIT_CANNOT_WRITE, EXIT_INTERRUPTED = 0, 2, 65, 66, 73, 130
SUMMARY = "summary.csv"
LONGEST_NAME = 200  # bytes of a results folder's name (file systems allow 255)
STARTUP = 30  # seconds a submission's process may take beyond its runs' timeouts (start-up, copying)
LOCAL_MEMORY, GRADESCOPE_MEMORY = 2048, 512  # MB of address space: Python and NumPy take about 150
GRADESCOPE_WALL = 540  # seconds


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    from dglang.interpreter.frontends.grading.gradescope import VISIBILITIES

    p = ArgumentParser(
        prog="dg grade",
        description="Grade each submission (a .dg file or a folder) in SUBMISSIONS against the test_... functions "
        "of TESTS.dg, each in a process of its own under DG's limits and the operating system's; write "
        "results.json per submission (Gradescope's format) and summary.csv. See docs/grading.md.",
    )
    p.add_argument("submissions", nargs="?", metavar="SUBMISSIONS", help="a folder of submissions, or one submission")
    p.add_argument("--tests", required=True, metavar="TESTS.dg", help="the teacher's tests")
    p.add_argument(
        "--workers", type=positive_int, default=2, metavar="N", help="submissions graded at once (default 2)"
    )
    p.add_argument("--out", default="grading-results", metavar="DIR", help="where results go (default grading-results)")
    p.add_argument("--single", action="store_true", help="SUBMISSIONS is one submission: write DIR/results.json")
    p.add_argument("--entry", metavar="NAME", help="the program's file name in each submission folder")
    p.add_argument("--gradescope", metavar="DIR", help="write Gradescope's autograder folder instead of grading")
    run_options(p, default_output=100_000, timeout=10)
    p.add_argument("--wall-time", type=seconds, metavar="SECONDS", help="a whole submission's wall clock")
    p.add_argument("--cpu-time", type=seconds, metavar="SECONDS", help="a submission's CPU time (Linux, macOS)")
    p.add_argument(
        "--memory",
        type=int,
        metavar="MB",
        help="a submission's address space (Linux; default 2048, 512 for Gradescope)",
    )
    p.add_argument("--visibility", choices=VISIBILITIES, help="Gradescope's visibility of the results")
    p.add_argument("--user", metavar="NAME", help="run each submission as this user (POSIX, when grading as root)")
    return p


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    try:
        return grade_class(args, out if out is not None else sys.stdout)
    except BrokenPipeError:  # `dg ... | head`: the reader left; stop quietly, as `dg FILE` does
        raise OutputClosed from None


def grade_class(args: argparse.Namespace, out: TextIO) -> int:
    try:
        tests_text, tests_name = read_program(args.tests)
    except DGError as e:
        return fail(e, EXIT_NOINPUT)
    if args.gradescope is not None and args.lib:
        message = "--lib with --gradescope: the autograder holds only the tests file, not a library of modules"
        return fail(DGError("UsageError", message, help="grade with --lib on your machine"), EXIT_USAGE)
    # Gradescope's containers have no library path: the tests must run without one.
    library = () if args.gradescope is not None else tuple(str(f.path) for f in library_folders(args.lib))
    try:
        cases = collect(parse(Source(tests_name, tests_text)))
        if cases:
            check_tests_file(tests_text, tests_name, library)
    except DGError as e:
        return tests_cannot_run(e, args.tests)
    if not cases:
        return fail(DGError("UsageError", f"{tests_name} has no test_... functions to grade with"), EXIT_USAGE)
    if args.gradescope is not None:
        archive = write_autograder(Path(args.gradescope), Path(args.tests), autograder_options(args, len(cases)))
        out.write(f"wrote {args.gradescope}: upload {archive} as the autograder (docs/grading.md)\n")
        return EXIT_OK
    if args.user is not None and (problem := user_problem(args.user)) is not None:
        return fail(DGError("UsageError", f"--user {args.user}: {problem}"), EXIT_USAGE)
    if args.submissions is None:
        return fail(DGError("UsageError", "dg grade needs SUBMISSIONS (or --gradescope DIR)"), EXIT_USAGE)
    path = Path(args.submissions)
    if not path.exists():
        return fail(DGError("FileError", f"no such file or folder: '{path}'"), EXIT_NOINPUT)
    single = args.single or path.is_file()
    folder = Path(args.out)
    try:
        # Results written into the class's own folder, and the tests, are not submissions.
        submissions = [Submission(path.name, path)] if single else find_submissions(path, (folder, Path(args.tests)))
    except OSError as e:
        return fail(
            DGError("FileError", f"cannot read the folder '{shown_name(str(path))}': {e.strerror}"), EXIT_NOINPUT
        )
    assignment = Assignment(
        tests_name=Path(tests_name).name,
        tests_text=tests_text,
        cases=cases,
        run_limits={
            "max_depth": args.max_depth,
            "max_steps": args.max_steps,
            "timeout": args.timeout,
            "max_output": args.max_output or None,
            "max_memory": args.max_memory,  # None: DG's default; 0: none
        },
        system=SystemLimits(args.cpu_time or wall_seconds(args, len(cases)), memory_mb(args) * 1024**2 or None),
        wall_seconds=wall_seconds(args, len(cases)),
        entry=args.entry,
        user=args.user,
        library=library,
    )
    start = time.perf_counter()
    graded = grade_all(submissions, assignment, args.workers)
    if graded is None:
        return fail(DGError("KeyboardInterrupt", "interrupted"), EXIT_INTERRUPTED)
    problems = write_results(graded, folder, assignment, args.visibility, single=args.single)
    out.write(table(graded, assignment))
    out.write(f"results in {folder}{'' if args.single else ' (summary.csv, and results.json per submission)'}\n")
    print(f"dg grade: {len(graded)} graded in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    for problem in problems:
        report(problem)
    return EXIT_CANNOT_WRITE if problems else EXIT_OK


def wall_seconds(args: argparse.Namespace, tests: int) -> float:
    """The wall clock for a whole submission: its own, or each run's timeout and the start-up."""
    if args.wall_time is not None:
        return args.wall_time
    default = (tests + 2) * args.timeout + STARTUP
    # Gradescope stops a whole autograder run after 10 minutes and then shows nothing: stop sooner.
    return min(default, GRADESCOPE_WALL) if args.gradescope is not None else default


def memory_mb(args: argparse.Namespace) -> int:
    """Megabytes of address space for a submission (0: no limit); Gradescope's containers have 768."""
    if args.memory is not None:
        return args.memory
    return GRADESCOPE_MEMORY if args.gradescope is not None else LOCAL_MEMORY


def grade_all(submissions: list[Submission], assignment: Assignment, at_once: int) -> list[Graded] | None:
    """Grade every submission, `at_once` at a time; None if interrupted (every worker is killed)."""
    workers = Workers()
    results: list[Graded] = []
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        futures = {pool.submit(grade_safely, s, assignment, workers): s for s in submissions}
        try:
            for i, future in enumerate(as_completed(futures), 1):
                graded = future.result()
                results.append(graded)
                print(
                    f"[{i}/{len(submissions)}] {graded.submission.shown}: "
                    f"{points(graded.score)}/{points(assignment.max_score)} {graded.status}",
                    file=sys.stderr,
                )
        except KeyboardInterrupt:
            workers.stop()
            # The gradings under way end as soon as their workers are killed, and remove their folders.
            pool.shutdown(wait=True, cancel_futures=True)
            return None
    return sorted(results, key=lambda g: g.submission.name)


def grade_safely(submission: Submission, assignment: Assignment, workers: Workers) -> Graded:
    """A bug in the grader costs one submission its grade, not the class its results."""
    try:
        return grade(submission, assignment, workers)
    except Exception as e:
        why = f"the grader failed on this submission ({type(e).__name__}: {e}); this is a bug in DG"
        return not_run(submission, assignment, "grader error", why, 0.0)


def write_results(
    graded: list[Graded], folder: Path, assignment: Assignment, visibility: str | None, single: bool
) -> list[DGError]:
    """Each submission's results.json (in a folder named as results_folders says), then summary.csv;
    what could not be written is returned, and the rest is written all the same."""
    problems = []
    names = {id(g): "" for g in graded} if single else results_folders(graded)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return [cannot_write(folder, e)]
    for g in graded:
        target = folder / names[id(g)]
        text = json.dumps(escaped_data(results_json(g, visibility)), indent=2, ensure_ascii=False)
        try:
            target.mkdir(exist_ok=True)
            (target / "results.json").write_text(text + "\n", encoding="utf-8")
        except OSError as e:
            problems.append(cannot_write(target / "results.json", e))
    if single:
        return problems
    try:
        with (folder / SUMMARY).open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(
                ["submission", "score", "max_score", "status", "seconds", *(c.name for c in assignment.cases)]
            )
            for g in graded:
                scores = [points(t.score) for t in g.tests]
                writer.writerow(
                    [names[id(g)], points(g.score), points(assignment.max_score), g.status, f"{g.seconds:.2f}", *scores]
                )
    except OSError as e:
        problems.append(cannot_write(folder / SUMMARY, e))
    return problems


def results_folders(graded: list[Graded]) -> dict[int, str]:
    """The folder each submission's results go to: its name as shown, unless that is taken (by the
    summary, or by another name that reads the same, in any case, as file systems may compare).
    A name whose escapes make it longer than a folder's name may be is cut (a 255-byte name of
    bytes that are not UTF-8 is shown in 1,020)."""
    taken = {SUMMARY.casefold()}
    names = {}
    for g in graded:
        name = base = g.submission.shown
        if len(base.encode()) > LONGEST_NAME:
            cut = base.encode()[: LONGEST_NAME - 10].decode(errors="ignore")
            base = re.sub(r"\\[xuU]?[0-9a-f]*$", "", cut) + "..."  # not in the middle of an escape
            name = base
        number = 1
        while name.casefold() in taken:
            number += 1
            name = f"{base} ({number})"
        taken.add(name.casefold())
        names[id(g)] = name
    return names


def cannot_write(path: Path, error: OSError) -> DGError:
    return DGError("FileError", f"cannot write '{shown_name(str(path))}': {error.strerror}")


def table(graded: list[Graded], assignment: Assignment) -> str:
    names = results_folders(graded)
    width = max([len("submission"), *(len(names[id(g)]) for g in graded)])
    total = points(assignment.max_score)
    scores = [f"{points(g.score)}/{total}" for g in graded]
    column = max([len("score"), *map(len, scores)])  # `4.5/4.5` is wider than the heading
    lines = [f"{'submission':<{width}}  {'score':<{column}}  status"]
    for g, score in zip(graded, scores, strict=True):
        lines.append(f"{names[id(g)]:<{width}}  {score:<{column}}  {g.status}")
    return "\n".join(lines) + "\n"


def autograder_options(args: argparse.Namespace, cases: int) -> list[str]:
    """The options run_autograder passes on to `dg grade`: the limits the teacher chose."""
    options = [
        "--timeout",
        f"{args.timeout:g}",
        "--max-output",
        str(args.max_output),
        "--max-depth",
        str(args.max_depth),
    ]
    options += ["--wall-time", f"{wall_seconds(args, cases):g}", "--memory", str(memory_mb(args))]
    for flag, value in (
        ("--max-steps", args.max_steps),
        ("--max-memory", args.max_memory),
        ("--cpu-time", args.cpu_time),
        ("--entry", args.entry),
        ("--visibility", args.visibility),
    ):
        if value is not None:
            options += [flag, str(value)]
    return options


def points(value: float) -> str:
    return f"{value:g}"


def tests_cannot_run(error: DGError, tests: str) -> int:
    """The teacher's tests file cannot run: its error, and how to check it before grading again."""
    report(error)
    print(
        f"dg grade: {tests} cannot run, so nothing was graded or written; fix it, then check it on your own "
        f"solution: dg test solution.dg --tests {shlex.quote(tests)}",
        file=sys.stderr,
    )
    return EXIT_SYNTAX


def fail(error: DGError, code: int) -> int:
    report(error)
    return code


def report(error: DGError) -> None:
    sys.stdout.flush()
    sys.stderr.write(format_error(error))
