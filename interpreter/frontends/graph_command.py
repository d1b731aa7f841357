"""`dg graph FILE --var NAME [-o OUT]`: run a program and draw the graph behind one of its variables.

DOT goes to standard output (the program's own prints to standard error), or to OUT: `.dot` as it
is, `.svg` and `.png` drawn by Graphviz (the system's `dot`, else graphviz-pure: seeing/render.py),
`.html` a page that steps through the graph forward and backward. What needs Graphviz is refused
before the program runs when neither is there; `--debug` says which one draws.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import MISSING
from dglang.interpreter.seeing.dot import DotOptions
from dglang.interpreter.seeing.render import graphviz, render
from dglang.interpreter.seeing.tools import install

from .options import ArgumentParser, library_option, positive_int

EXIT_OK, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 2, 69
KINDS = ("dot", "gv", "svg", "png", "html")


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
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
    p.add_argument("--max-depth", type=int, default=10_000, metavar="N", help=argparse.SUPPRESS)
    library_option(p)
    return p


def draw(
    args: argparse.Namespace,
    new_session: Callable[[argparse.Namespace], Any],
    run_file: Callable[..., int],
    report: Callable[[DGError], None],
) -> int:
    """The command, given the CLI's way of making a session, running a file and reporting."""
    kind = Path(args.output).suffix.lower().lstrip(".") if args.output else "dot"
    try:
        if kind not in KINDS:
            raise DGError(
                "UsageError",
                f"cannot write '{args.output}': the name must end in .dot, .svg, .png or .html",
                help="`dg graph --help` lists the options",
            )
        if kind in ("svg", "png", "html"):
            layout = graphviz()  # before the program runs: a long run should not end in "Graphviz is missing"
            if args.debug:
                sys.stderr.write(f"dg: drawing with {layout}\n")
    except DGError as e:
        report(e)
        return EXIT_USAGE if e.kind == "UsageError" else EXIT_UNAVAILABLE
    args.no_breakpoints = True
    session = new_session(args)
    seeing = install(session)
    seeing.keep_backward()
    session.out = sys.stderr  # the program's own prints, so stdout carries only the DOT
    code = run_file(session, args.file, debug=args.debug)
    if code != EXIT_OK:
        return code
    value = session.globals.vars.get(args.var, MISSING)
    if not isinstance(value, Tensor):
        what = "is not a variable of the program" if value is MISSING else f"is a {type_name(value)}, not a tensor"
        report(DGError("UsageError", f"'{args.var}' {what}", help="`dg graph --help` lists the options"))
        return EXIT_USAGE
    options = DotOptions(rankdir=args.rankdir, theme=args.theme, untaken=args.untaken)
    try:
        if args.output is None:
            sys.stdout.write(seeing.dot(value, args.var, options))
        elif kind == "html":
            Path(args.output).write_text(seeing.stepper(value, args.var, options), encoding="utf-8")
        elif kind in ("dot", "gv"):
            Path(args.output).write_text(seeing.dot(value, args.var, options), encoding="utf-8")
        else:
            Path(args.output).write_bytes(render(seeing.dot(value, args.var, options), kind, args.dpi))
    except DGError as e:
        report(e)
        return EXIT_UNAVAILABLE
    except OSError as e:
        report(DGError("FileError", f"cannot write '{args.output}': {e.strerror}"))
        return EXIT_UNAVAILABLE
    return EXIT_OK
