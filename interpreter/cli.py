"""The `dg` command: run a program, and (as later issues add them) the REPL, parse and graph tools."""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

from . import __version__
from .errors import DGError
from .report import format_error

EXIT_OK, EXIT_USAGE, EXIT_SYNTAX, EXIT_NOINPUT, EXIT_RUNTIME, EXIT_INTERRUPTED = 0, 2, 65, 66, 70, 130

DESCRIPTION = """\
Run DG programs: a small Python-like language whose tensors record a computation
graph as they compute, and whose `grad` statement differentiates through it.

commands:
  dg FILE.dg            run a program (the same as `dg run FILE.dg`)
  dg -                  run a program read from standard input
"""


def run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dg", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", help="the program to run, or - for standard input")
    parser.add_argument("--version", action="version", version=f"dg {__version__}")
    parser.add_argument(
        "--max-depth", type=int, default=10_000, metavar="N", help="deepest nesting of function calls (default 10000)"
    )
    parser.add_argument("--debug", action="store_true", help="show the Python traceback of internal errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "run":
        argv = argv[1:]
    if not argv:
        run_parser().print_help(sys.stderr)
        return EXIT_USAGE
    args = run_parser().parse_args(argv)
    return run_file(args.file, max_depth=args.max_depth, debug=args.debug)


def read_program(path: str) -> tuple[str, str, Path] | None:
    """(text, name for messages, folder for data files), or None after reporting a failure."""
    if path == "-":
        return sys.stdin.read(), "<stdin>", Path.cwd()
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8"), path, file.resolve().parent
    except FileNotFoundError:
        print(f"dg: cannot open '{path}': no such file", file=sys.stderr)
    except IsADirectoryError:
        print(f"dg: cannot open '{path}': it is a folder", file=sys.stderr)
    except UnicodeDecodeError:
        print(f"dg: cannot open '{path}': it is not UTF-8 text", file=sys.stderr)
    except OSError as e:
        print(f"dg: cannot open '{path}': {e.strerror}", file=sys.stderr)
    return None


def run_file(path: str, max_depth: int = 10_000, debug: bool = False) -> int:
    from .session import Session  # imported here so `dg --help` starts fast

    program = read_program(path)
    if program is None:
        return EXIT_NOINPUT
    text, name, folder = program
    session = Session(base_dir=folder, max_depth=max_depth)
    try:
        session.run(text, name)
    except DGError as e:
        sys.stdout.flush()
        sys.stderr.write(format_error(e))
        if debug and e.original is not None:
            traceback.print_exception(e.original, file=sys.stderr)
        if e.kind == "KeyboardInterrupt":
            return EXIT_INTERRUPTED
        return EXIT_SYNTAX if e.is_syntax else EXIT_RUNTIME
    except KeyboardInterrupt:
        print("dg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
