"""`dg graph FILE --var NAME [-o OUT]`: run a program and draw the graph behind one of its variables.

DOT goes to standard output (the program's own prints to standard error), or to OUT: `.dot` as it
is, `.svg` and `.png` drawn by Graphviz (the system's `dot`, else graphviz-pure: seeing/render.py),
`.html` a page that steps through the graph forward and backward, `.txt` the text picture. In a
big graph each function call is one box (seeing/function_boxes.py): `--open NAME` draws the inside
of NAME's calls, `--expand` every op. What needs Graphviz is refused
before the program runs when neither is there; `--debug` says which one draws.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.bounded import bounded
from dglang.interpreter.library.runtime import MISSING
from dglang.interpreter.seeing.dot import DotOptions
from dglang.interpreter.seeing.function_boxes import Boxing
from dglang.interpreter.seeing.render import graphviz, render
from dglang.interpreter.seeing.tools import install

from .options import RUNNING, ArgumentParser, library_option, limit_options, positive_int

EXIT_OK, EXIT_USAGE, EXIT_UNAVAILABLE, EXIT_RUNTIME = 0, 2, 69, 70
KINDS = ("dot", "gv", "svg", "png", "html", "txt")


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    from dglang.interpreter.seeing.dot import RANKDIRS, THEMES  # here, so `dg --help` starts fast
    from dglang.interpreter.seeing.function_boxes import BOXES_ABOVE
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
        help="write .dot, .svg, .png, .html (a page that steps through the graph) or .txt (the text picture); "
        "default: DOT to stdout",
    )
    boxes = p.add_mutually_exclusive_group()
    boxes.add_argument(
        "--open",
        action="append",
        default=[],
        metavar="NAME",
        help="draw the inside of each call of the function NAME (again for more); the other calls stay boxes",
    )
    boxes.add_argument("--expand", action="store_true", help="draw every op, with no function call as a box")
    boxes.add_argument(
        "--boxes",
        action="store_true",
        help=f"draw each function call as one box even in a small graph (a graph of more than {BOXES_ABOVE} "
        "nodes does unless --expand)",
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
                f"cannot write '{args.output}': the name must end in .dot, .svg, .png, .html or .txt",
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
        what = "is not a variable of the program" if value is MISSING else f"is {a_type(value)}, not a tensor"
        report(DGError("UsageError", f"'{args.var}' {what}", help="`dg graph --help` lists the options"))
        return EXIT_USAGE
    how = "expand" if args.expand else "boxes" if args.boxes else "auto"
    boxing = Boxing(how, tuple(args.open))
    options = DotOptions(rankdir=args.rankdir, theme=args.theme, untaken=args.untaken, boxing=boxing)

    def drawn() -> str | bytes:
        if kind == "html":
            return seeing.stepper(value, args.var, options)
        if kind == "txt":
            return seeing.text(value, args.var, options)
        dot = seeing.dot(value, args.var, options)
        return dot if kind in ("dot", "gv") else render(dot, kind, args.dpi)

    try:
        # Drawing gets the run's limits afresh: a graph of a million nodes takes its time too.
        picture = bounded(session.limits, drawn, doing="while DG was drawing the graph")
    except DGError as e:
        report(e)
        return EXIT_RUNTIME if e.kind in ("TimeoutError", "MemoryError") else EXIT_UNAVAILABLE
    try:
        if args.output is None:
            sys.stdout.write(picture if isinstance(picture, str) else picture.decode())
        elif isinstance(picture, str):
            Path(args.output).write_text(picture, encoding="utf-8")
        else:
            Path(args.output).write_bytes(picture)
    except OSError as e:
        report(DGError("FileError", f"cannot write '{args.output}': {e.strerror}"))
        return EXIT_UNAVAILABLE
    return EXIT_OK
