"""The `dg` command: run a program, open the REPL, and (as later issues add them) more tools."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import DGError
from .report import format_error

if TYPE_CHECKING:
    from .session import Session

EXIT_OK, EXIT_USAGE, EXIT_SYNTAX, EXIT_NOINPUT, EXIT_RUNTIME, EXIT_INTERRUPTED = 0, 2, 65, 66, 70, 130

DESCRIPTION = """\
DG: a small Python-like language whose tensors record a computation graph as they
compute, and whose `grad` statement differentiates through it.

commands:
  dg                    open the REPL (reads statements from standard input when it is not a terminal)
  dg FILE.dg            run a program (the same as `dg run FILE.dg`)
  dg -i FILE.dg         run a program, then open the REPL with its variables
  dg -                  run a program read from standard input
  dg repl               open the REPL
"""
SUBCOMMANDS = ("run", "repl")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dg", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("file", nargs="?", help="the program to run, or - for standard input")
    p.add_argument("-i", dest="interactive", action="store_true", help="open the REPL after running FILE")
    p.add_argument("--no-breakpoints", action="store_true", help="let breakpoint() do nothing")
    p.add_argument(
        "--max-depth", type=int, default=10_000, metavar="N", help="deepest nesting of function calls (default 10000)"
    )
    p.add_argument("--debug", action="store_true", help="show the Python traceback of internal errors")
    p.add_argument("--version", action="version", version=f"dg {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    args = parser().parse_args(argv[1:] if command else argv)
    if command == "run" and args.file is None:
        parser().error("run needs a FILE")
    if command == "repl" and args.file is not None:
        parser().error("repl takes no FILE; use dg -i FILE to run one first")
    if args.interactive and args.file in (None, "-"):
        parser().error("-i needs a FILE to run first")
    session = new_session(args)
    if args.file is None:
        return repl(session)
    code = run_file(session, args.file, debug=args.debug)
    if args.interactive and code != EXIT_NOINPUT:
        repl_code = repl(session)
        return code or repl_code
    return code


def new_session(args: argparse.Namespace) -> Session:
    from .debugger import Debugger  # imported here so `dg --help` starts fast
    from .session import Session

    folder = Path(args.file).resolve().parent if args.file not in (None, "-") else Path.cwd()
    session = Session(base_dir=folder, max_depth=args.max_depth)
    if not args.no_breakpoints:
        # At a terminal a person answers the (dg) prompt; otherwise commands come from stdin.
        session.debugger = Debugger(None if sys.stdin.isatty() else stdin_lines())
    session.debug = args.debug  # type: ignore[attr-defined]
    return session


_stdin_lines = None


def stdin_lines():  # one shared iterator, so the REPL and the debugger read stdin in turn
    global _stdin_lines
    if _stdin_lines is None:
        _stdin_lines = iter(sys.stdin)
    return _stdin_lines


def read_program(path: str) -> tuple[str, str] | None:
    """(text, name for messages), or None after reporting why it cannot be read."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except FileNotFoundError:
        reason = "no such file"
    except IsADirectoryError:
        reason = "it is a folder"
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except OSError as e:
        reason = e.strerror or str(e)
    print(f"dg: cannot open '{path}': {reason}", file=sys.stderr)
    return None


def run_file(session: Session, path: str, debug: bool = False) -> int:
    from .debugger import QuitProgram

    program = read_program(path)
    if program is None:
        return EXIT_NOINPUT
    text, name = program
    try:
        session.run(text, name)
    except DGError as e:
        report(e, debug)
        if e.kind == "KeyboardInterrupt":
            return EXIT_INTERRUPTED
        return EXIT_SYNTAX if e.is_syntax else EXIT_RUNTIME
    except QuitProgram:
        return EXIT_OK
    except KeyboardInterrupt:
        print("dg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK


def report(error: DGError, debug: bool = False) -> None:
    sys.stdout.flush()
    sys.stderr.write(format_error(error))
    if debug and error.original is not None:
        traceback.print_exception(error.original, file=sys.stderr)


def repl(session: Session) -> int:
    """The REPL: prompt_toolkit at a terminal, plain statements from a pipe."""
    from .debugger import QuitProgram
    from .repl import Outcome, Repl, run_piped

    console = Repl(session)
    try:
        if sys.stdin.isatty():
            from .terminal import interact

            print(f"DG {__version__}. :help shows the cheat sheet, Ctrl-D leaves.")
            interact(console)
            return EXIT_OK
        outcome = run_piped(console, stdin_lines())
    except QuitProgram:
        return EXIT_OK
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    error = console.last_error
    if outcome is not Outcome.ERROR or error is None:
        return EXIT_OK
    return EXIT_SYNTAX if error.is_syntax else EXIT_RUNTIME


if __name__ == "__main__":
    sys.exit(main())
