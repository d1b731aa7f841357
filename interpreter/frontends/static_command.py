"""`dg static FILE --fn NAME [--passes]`: run a program and print the code each trace of
`static(NAME)` became: forward and backward with the guards, each line commented with the DG
source line it came from; with --passes, the code before and after each pass.

The program's own prints go to standard error, so standard output carries only the listings.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT, output_size
from dglang.interpreter.host.session import Session
from dglang.interpreter.seeing.tools import install
from dglang.interpreter.static.listing import listings
from dglang.interpreter.static.static_builtins import made_in, static_function, wrapped_names

from .options import ArgumentParser, run_options

EXIT_OK, EXIT_RUNTIME, EXIT_USAGE = 0, 1, 2


def options() -> argparse.ArgumentParser:
    """Its options: the function, --passes, and the limits every command that runs a program takes."""
    p = ArgumentParser(prog="dg static", description="Run a program; print the code each trace of static(NAME) became.")
    p.add_argument("file", help="the program to run")
    p.add_argument("--fn", required=True, metavar="NAME", help="the function the program wraps in static(...)")
    p.add_argument("--passes", action="store_true", help="show the code before and after each pass")
    run_options(p, default_output=DEFAULT_MAX_OUTPUT)
    return p


def show(
    args: argparse.Namespace,
    new_session: Callable[[argparse.Namespace], Any],
    run_file: Callable[..., int],
    report: Callable[[DGError], None],
) -> int:
    args.no_breakpoints = True
    session = new_session(args)
    install(session)
    session.out = sys.stderr
    code = run_file(session, args.file, debug=args.debug)
    if code != EXIT_OK:
        return code
    found = made_in(session, args.fn)
    if not found:
        never = f"the program never called static({args.fn})"
        report(DGError("UsageError", never, help=which_function(session, args.fn)))
        return EXIT_USAGE
    shown = "\n".join(listings(fn, passes=args.passes) for fn in found)
    limit = args.max_output if args.max_output and args.max_output > 0 else None
    if limit is not None and output_size(shown) > limit:
        what = "listings with their passes" if args.passes else "listings"
        report(
            DGError(
                "LimitError",
                f"the {what} of static({args.fn}) are {output_size(shown):,} bytes, more than the limit of {limit:,}",
                found[-1].where,  # (the last call of it)
                help="the limit was set with --max-output"
                + ("; without --passes the listings are shorter" * args.passes),
            )
        )
        return EXIT_RUNTIME
    sys.stdout.write(shown)
    return EXIT_OK


def which_function(session: Session, name: str) -> str:
    """The help when `--fn NAME` names no function static() wrapped: the name static() gave back
    (`fast = static(step)`: --fn fast), the functions it did wrap, or how to wrap one."""
    wrapped = static_function(session.globals.vars.get(name))
    if wrapped is not None:
        return f"'{name}' is static({wrapped.name}): name the function static wraps, --fn {wrapped.name}"
    others = wrapped_names(session)
    if others:
        return "the program wraps " + ", ".join(f"static({n}): --fn {n}" for n in others)
    return f"wrap the function: `fast = static({name})`, and call it"
