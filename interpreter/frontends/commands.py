"""The command line of each `dg` subcommand (`dg parse`, `dg graph`, `dg test`, `dg grade`, `dg lsp`,
`dg kernel`): its options, as argparse reads them. cli.py dispatches to them; `dg FILE` and the
REPL's own options are cli.py's `parser()`.

Every command that reads or runs a student's file takes the limits' options of options.py, in one
line: `limit_options(p, which=RUNNING)` for a command that runs the program, `which=READING` for
one that only reads it (`dg parse`, `dg check`).
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from dglang.interpreter.diagnostics.errors import DGError

from .options import READING, RUNNING, library_option, limit_options, positive_int, run_options, seconds


class UsageError(DGError):
    """A command line DG cannot act on."""

    def __init__(self, message: str, prog: str = "dg") -> None:
        super().__init__("UsageError", message, help=f"`{prog} --help` lists the commands and options")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, whose complaints become UsageErrors for the one formatter instead of its own text."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


def parse_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="dg parse", description="Print the syntax tree DG builds for a program.")
    p.add_argument("file", help="the program, or - for standard input")
    p.add_argument("--tokens", action="store_true", help="print the token stream instead (with INDENT/DEDENT)")
    limit_options(p, which=READING)
    return p


def graph_parser() -> argparse.ArgumentParser:
    from dglang.interpreter.seeing.dot import RANKDIRS, THEMES  # here, so `dg --help` starts fast
    from dglang.interpreter.seeing.render import DEFAULT_DPI

    p = ArgumentParser(
        prog="dg graph", description="Run a program and draw the recorded graph behind one of its variables."
    )
    p.add_argument("file", help="the program to run")
    p.add_argument("--var", required=True, metavar="NAME", help="the variable whose final value to draw")
    p.add_argument(
        "-o",
        dest="output",
        metavar="OUT",
        help="write .dot, .svg, .png, or .html (a page that steps through the graph); default: DOT to stdout",
    )
    p.add_argument("--untaken", action="store_true", help="also draw, greyed, each arm of an `if` that did not run")
    p.add_argument(
        "--rankdir", choices=RANKDIRS, default="BT", help="where the output goes: BT (top, the default), TB, LR, RL"
    )
    p.add_argument("--dpi", type=positive_int, metavar="N", help=f"resolution of a .png (default {DEFAULT_DPI})")
    p.add_argument(
        "--theme", choices=tuple(THEMES), default="screen", help="print: black on white, for slides and paper"
    )
    limit_options(p, which=RUNNING)
    library_option(p)
    return p


def test_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="dg test",
        description="Run a program's top level, then each top-level function named test_..., each from the "
        "state the top level left; report each failure as DG reports errors. Exit 0 only if all pass.",
    )
    p.add_argument("file", help="the program with its tests")
    p.add_argument("--tests", metavar="TESTS.dg", help="run a teacher's tests file against FILE, as dg grade does")
    p.add_argument("-k", metavar="TEXT", help="run only the tests whose name contains TEXT")
    run_options(p)
    p.add_argument(
        "--allow-path", action="append", default=[], metavar="DIR", help="let load_csv read files under DIR too"
    )
    return p


def grade_parser() -> argparse.ArgumentParser:
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


def kernel_parser() -> argparse.ArgumentParser:
    from dglang.interpreter.frontends.kernel.install import install_options

    p = ArgumentParser(prog="dg kernel", description="Install the DG kernel for Jupyter, with the limits of its cells.")
    install_options(p)
    return p


def lsp_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="dg lsp",
        description="Serve the Language Server Protocol over standard input and output, for an editor to start: "
        "diagnostics, hover, completion, go to definition and document symbols for .dg files. "
        "It reads programs, never runs them. Needs pygls: pip install 'dglang[lsp]'.",
    )
    p.add_argument(
        "--stdio", action="store_true", help="talk over standard input and output (the default; editors pass it)"
    )
    p.add_argument("--verbose", action="store_true", help="log each message to standard error")
    return p
