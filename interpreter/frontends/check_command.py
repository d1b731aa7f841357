"""`dg check FILE`: every static problem of a program, found without running it, in the words `dg`
would use: each syntax error (recovering after each, as the language server does), each static
error, then what the checks of the language server show will fail if its line runs (a name nothing
defines, a call with the wrong arguments). It reads the program as `dg lsp` reads a document
(lsp/analysis.py), and needs nothing the language server needs (pygls).

Reading and checking are held to --timeout and --max-memory, and what is printed to --max-output,
as `dg parse` holds them: a teacher bounds this on a student's file as a run.

The exit code is `dg FILE`'s for the same problems: 65 when the program cannot be read (a syntax
error), 70 when it would stop with another error (a static one, a module not found, a line that
would fail as it runs), 0 when nothing was found.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error

from .lsp.analysis import analyze, position, problems_of
from .lsp.imports import ModuleReader
from .options import READING, ArgumentParser, limit_options, limits_from
from .program_files import read_program

EXIT_OK, EXIT_SYNTAX, EXIT_NOINPUT, EXIT_RUNTIME = 0, 65, 66, 70  # as cli.py's


def options() -> argparse.ArgumentParser:
    """The command's options (`dg check --help` lists them)."""
    p = ArgumentParser(prog="dg check", description="Report every problem DG can find in a program without running it.")
    p.add_argument("file", help="the program, or - for standard input")
    limit_options(p, which=READING)
    return p


def check(args: argparse.Namespace, report: Callable[[DGError], None]) -> int:
    from dglang.interpreter.diagnostics.source import Source, Span
    from dglang.interpreter.host.bounded import bounded
    from dglang.interpreter.host.limits import output_size

    from .sessions import new_session

    try:
        text, name = read_program(args.file)
    except DGError as e:
        report(e)
        return EXIT_NOINPUT
    limits, source = limits_from(args), Source(name, text)
    first_line = Span(source, 1, 1, 1, len(source.line(1)) + 1)
    try:
        analysis = bounded(  # imports' calls checked too
            limits,
            lambda: analyze(new_session(out=sys.stderr), text, name, ModuleReader()),
            first_line,
            "while DG was checking it",
        )
    except DGError as e:
        report(e)
        return EXIT_RUNTIME
    found = sorted([*analysis.problems, *analysis.warnings], key=position)
    shown = "\n".join(format_error(problem) for problem in found)
    if limits.max_output is not None and output_size(shown) > limits.max_output:
        message = f"the report is {output_size(shown):,} bytes, more than the limit of {limits.max_output:,}"
        report(DGError("LimitError", message, first_line, help="the limit was set with --max-output"))
        return EXIT_RUNTIME
    sys.stderr.write(shown)
    if any(problem.is_syntax for problem in analysis.problems):
        return EXIT_SYNTAX
    return EXIT_RUNTIME if analysis.problems or analysis.warnings else EXIT_OK


def report_every(text: str, name: str, first: DGError, report: Callable[[DGError], None]) -> None:
    """What `dg FILE` prints when its program stops with `first`: every syntax and static error of
    the file when `first` is one, a blank line between them; else `first` alone."""
    for i, error in enumerate(problems_of(text, name, first) if first.is_syntax else [first]):
        sys.stderr.write("\n" if i else "")
        report(error)
