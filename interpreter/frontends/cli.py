"""The `dg` command: run a program, open the REPL, print its syntax tree or draw its graph.

Whatever goes wrong, from a mistyped option to a bug in DG itself, is reported as a DGError by the
one formatter (diagnostics/report.py), as `dg: Kind: message` with a help line where the fix is known.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from dglang import __version__
from dglang.interpreter.diagnostics.errors import DGError, OutputClosed
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT

from .missing import MissingPackage
from .options import ArgumentParser, UsageError, limits_from, run_options
from .program_files import read_program
from .streams import use_utf8

if TYPE_CHECKING:
    from collections.abc import Iterator

    from dglang.interpreter.host.session import Session
    from dglang.interpreter.library.runtime import CallContext

# Exit codes, after BSD's sysexits (as jlox uses them).
EXIT_OK, EXIT_USAGE, EXIT_INTERRUPTED = 0, 2, 130
EXIT_SYNTAX, EXIT_NOINPUT, EXIT_UNAVAILABLE, EXIT_RUNTIME = 65, 66, 69, 70

DESCRIPTION = """\
DG: a small Python-like language whose tensors record a computation graph as they
compute, and whose `grad` statement differentiates through it.

commands:
  dg                    open the REPL (reads statements from standard input when it is not a terminal)
  dg FILE.dg            run a program (the same as `dg run FILE.dg`)
  dg FILE.dg --trace    run it, printing each node as it is recorded and each backward step
  dg --max-steps 100000 --timeout 10 FILE.dg
                        run an untrusted file with limits
  dg --eval reference FILE.dg
                        run it with the reference evaluator, which walks the syntax tree
  dg -i FILE.dg         run a program, then open the REPL with its variables
  dg -                  run a program read from standard input
  dg repl               open the REPL
  dg parse FILE.dg      print the syntax tree (--tokens: the token stream)
  dg check FILE.dg      every syntax and static error, and what would fail as it runs, without running it
  dg graph FILE.dg --var NAME [-o OUT.dot|.svg|.png|.html|.txt] [--untaken] [--open FN | --expand]
                        run a program and draw the graph behind a variable
                        (.html: a page that steps through it, forward and backward)
  dg test FILE.dg       run a program, then each of its test_... functions, and report as pytest does
  dg grade SUBMISSIONS --tests TESTS.dg [--workers N] [--out DIR]
                        grade each submission (a .dg file or a folder) in a process of its own
  dg grade --gradescope DIR --tests TESTS.dg
                        write the autograder folder Gradescope runs (see docs/grading.md)
  dg lsp                the language server editors start (needs pip install 'dglang[lsp]')
  dg kernel install     make the DG kernel known to Jupyter (needs pip install 'dglang[jupyter]')
  dg static FILE --fn NAME [--passes]
                        print the code each trace of static(NAME) became, with its source lines
  --debug, with any command, shows the Python traceback of an internal error (dg graph: which program draws)
"""
SUBCOMMANDS = ("run", "repl", "parse", "check", "graph", "static", "test", "grade", "lsp", "kernel")


def parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="dg", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="the program to run, or - for standard input")
    p.add_argument("-i", dest="interactive", action="store_true", help="open the REPL after running FILE")
    p.add_argument("--no-breakpoints", action="store_true", help="let breakpoint() do nothing")
    run_options(p, default_output=DEFAULT_MAX_OUTPUT)
    p.add_argument(
        "--allow-path",
        action="append",
        default=[],
        metavar="DIR",
        help="let load_csv read files under DIR too (may be repeated)",
    )
    p.add_argument(
        "--threads",
        type=thread_count,
        default=os.environ.get("DG_THREADS") or None,
        metavar="N",
        help="run every matrix product on N threads (default: DG_THREADS, else one thread for small "
        "products and all cores for large ones)",
    )
    p.add_argument("--detect-anomaly", action="store_true", help="name the op whose gradient first holds nan or inf")
    p.add_argument("--trace", action="store_true", help="print each recorded node and each backward step")
    p.add_argument("--trace-limit", type=int, default=300, metavar="N", help="trace lines to print (default 300)")
    p.add_argument(
        "--debug", action="store_true", help="say which parser reads FILE, show the Python traceback of internal errors"
    )
    p.add_argument("--version", action="version", version=f"dg {__version__}")
    return p


def thread_count(text: str) -> int:
    """--threads N, or DG_THREADS=N in the environment (the option's default, checked the same way)."""
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number (given here or as DG_THREADS), not {text!r}")
    return int(text)


def command() -> NoReturn:
    """The `dg` command: `main`, then an exit that skips freeing what the program built. Python's
    own exit frees every object one by one: seconds for a graph of ten million nodes, after the
    program's last line (or its --timeout) and before the shell or the grader gets control back."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a reader that left: nothing more to say to it
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    use_utf8()
    try:
        return dispatch(argv)
    except UsageError as e:
        report(e)
        return EXIT_USAGE
    except MissingPackage as e:  # an optional extra's package (dg lsp, dg kernel install)
        report(e)
        return EXIT_UNAVAILABLE
    except OutputClosed:
        # The reader of our output left (`dg prog.dg | head`): stop without a word, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C outside any program (reading a file, starting up)
        report(DGError("KeyboardInterrupt", "interrupted"))
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug in DG itself: one message for the user, the traceback on request
        internal = DGError(
            "InternalError",
            f"{type(e).__name__}: {e}",
            help="this is a bug in DG; `--debug` shows the Python traceback to report",
        )
        internal.original = e
        report(internal, debug="--debug" in argv)
        return EXIT_RUNTIME


def dispatch(argv: list[str]) -> int:
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    debug = "--debug" in argv  # every command takes it (main() reads it for internal errors too)
    if command not in (None, "run", "repl"):
        argv = [a for a in argv if a != "--debug"]
    if command == "parse":
        return parse_command(argv[1:])
    if command == "check":
        from .check_command import check, options

        return check(options().parse_args(argv[1:]), report)
    if command == "graph":
        return graph_command(argv[1:], debug)
    if command == "static":
        from .static_command import options, show

        args = options().parse_args(argv[1:])
        args.debug = debug
        return show(args, new_session, run_file, report)
    if command == "test":
        from dglang.interpreter.frontends.grading import testing

        return testing.run(testing.options().parse_args(argv[1:]))
    if command == "grade":
        from dglang.interpreter.frontends.grading import grade_command

        return grade_command.run(grade_command.options().parse_args(argv[1:]))
    if command == "lsp":
        from dglang.interpreter.frontends.lsp import command as lsp

        return lsp.serve(lsp.options().parse_args(argv[1:]))
    if command == "kernel":
        from dglang.interpreter.frontends.kernel import install

        return install.install(install.options().parse_args(argv[1:]))
    args = parser().parse_args(argv[1:] if command else argv)
    if command == "run" and args.file is None:
        parser().error("run needs a FILE")
    if command == "repl" and args.file is not None:
        parser().error("repl takes no FILE; use dg -i FILE to run one first")
    if args.interactive and args.file in (None, "-"):
        parser().error("-i needs a FILE to run first")
    session = new_session(args)
    tracer = None
    if args.trace:
        from dglang.interpreter.seeing.tools import install
        from dglang.interpreter.seeing.trace import Tracer

        tracer = Tracer(session.write, limit=args.trace_limit)
        install(session, trace=tracer)
    if args.file is None:
        return repl(session)
    code = run_file(session, args.file, debug=args.debug)
    if tracer is not None:
        tracer.summary()
    if args.interactive and code != EXIT_NOINPUT:
        repl_code = repl(session)
        return code or repl_code
    return code


def new_session(args: argparse.Namespace) -> Session:
    if "numpy" not in sys.modules:
        # NumPy's and DG's modules load here, once per process, making objects that live as long as
        # it does: the collector would only scan them, again and again (start-up, docs/performance.md).
        # Kept out of its way while they load, then frozen (moved where no collection looks).
        gc.disable()
        try:
            from . import sessions  # noqa: F401
        finally:
            gc.freeze()
            gc.enable()
    from dglang.autograd import threads

    from .sessions import new_session as make_session

    if getattr(args, "threads", None):
        threads.use(args.threads)
    folder = program_folder(args.file) if args.file not in (None, "-") else Path.cwd()
    limits = limits_from(args)
    missing = [d for d in getattr(args, "allow_path", []) if not is_folder(d)]
    if missing:
        parser().error(f"--allow-path {missing[0]}: no such folder")
    session = make_session(
        base_dir=folder,
        max_depth=args.max_depth,
        limits=limits,
        allowed_dirs=getattr(args, "allow_path", []),
        detect_anomaly=getattr(args, "detect_anomaly", False),
        library=getattr(args, "lib", []),
    )
    if getattr(args, "eval", None) is not None:
        session.context.evaluator = args.eval
    if not getattr(args, "no_breakpoints", True):
        # At a terminal a person answers the (dg) prompt; otherwise commands come from stdin.
        with_debugger(session, None if sys.stdin.isatty() else stdin_lines())
    return session


def with_debugger(session: Session, lines: Iterator[str] | None) -> None:
    """Pause at `breakpoint()` in the debugger (debugger.py), reading its commands from `lines`, or
    from a person at the terminal when None. The debugger and the REPL load at the first pause: a
    program that never pauses starts without them."""

    def first_pause(context: CallContext) -> None:
        from .debugger import Debugger

        Debugger(lines).attach(session)
        assert session.on_breakpoint is not None
        session.on_breakpoint(context)

    session.on_breakpoint = first_pause


def is_folder(path: str) -> bool:
    try:
        return Path(path).resolve().is_dir()
    except (OSError, RuntimeError, ValueError):  # a name too long, a link to itself, a NUL
        return False


def program_folder(path: str) -> Path:
    """The folder a program's data files are read from (its own, after following links); reading
    the program itself says what is wrong with a path that cannot be followed (a link to itself)."""
    try:
        return Path(path).resolve().parent
    except (OSError, RuntimeError):
        return Path(path).absolute().parent


_stdin_lines = None


def stdin_lines():  # one shared iterator, so the REPL and the debugger read stdin in turn
    global _stdin_lines
    if _stdin_lines is None:
        # Bytes that are not UTF-8 come through as lone surrogates (whatever the locale), which the
        # session reports as a located error in the line that has them; the session goes on.
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")  # type: ignore[union-attr]
        _stdin_lines = iter(sys.stdin)
    return _stdin_lines


def run_file(session: Session, path: str, debug: bool = False) -> int:
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.host.limited_run import collecting_for_graphs

    from .sessions import QuitProgram

    try:
        text, name = read_program(path)
    except DGError as e:
        report(e)
        return EXIT_NOINPUT
    if debug:
        from .parse_command import say_which_parser

        say_which_parser(Source(name, text))
    session.hard_stop = hard_stop  # a program stuck in one call into C past its limit: report it, exit
    with collecting_for_graphs():  # until the error is reported
        try:
            session.run(text, name)
        except DGError as e:
            from .check_command import report_every  # every syntax or static error, not only the first

            report_every(text, name, e, lambda error: report(error, debug))
            if e.kind == "KeyboardInterrupt":
                return EXIT_INTERRUPTED
            return EXIT_SYNTAX if e.is_syntax else EXIT_RUNTIME
        except QuitProgram:  # the person stopped it: said, and not the exit of a program that ended
            report(DGError("Stopped", "the program stopped at the debugger's :quit, before its end"))
            return EXIT_INTERRUPTED
        except KeyboardInterrupt:  # between statements, where no statement could locate it
            report(DGError("KeyboardInterrupt", "interrupted"))
            return EXIT_INTERRUPTED
        finally:
            session.hard_stop = None
    return EXIT_OK


def hard_stop(error: DGError) -> None:
    """The last resort of --timeout and --max-memory, called from the watchdog's thread while the
    program's thread is still inside one call into C: print the error where the program was, exit.
    The program's own output is flushed from a helper thread, which may wait for a reader that
    never reads: the error and the exit do not wait for it long."""
    import threading

    flushing = threading.Thread(target=sys.stdout.flush, daemon=True)
    flushing.start()
    flushing.join(0.5)
    os.write(sys.stderr.fileno(), format_error(error).encode("utf-8", "backslashreplace"))
    os._exit(EXIT_RUNTIME)


def report(error: DGError, debug: bool = False) -> None:
    with contextlib.suppress(BrokenPipeError):  # (a reader of the output that left: the error still goes out)
        sys.stdout.flush()
    sys.stderr.write(format_error(error))
    if debug and error.original is not None:
        import traceback

        traceback.print_exception(error.original, file=sys.stderr)


def parse_command(argv: list[str]) -> int:
    from .parse_command import options, show_syntax

    return show_syntax(options().parse_args(argv), report)


def graph_command(argv: list[str], debug: bool) -> int:
    from .graph_command import draw, options

    args = options().parse_args(argv)
    args.debug = debug
    return draw(args, new_session, run_file, report)


def repl(session: Session) -> int:
    """The REPL: prompt_toolkit at a terminal, plain statements from a pipe."""
    from dglang.interpreter.host.limited_run import collecting_for_graphs

    from .debugger import QuitProgram
    from .repl import Outcome, Repl, run_piped

    console = Repl(session)
    # A pause may step into any function typed before it: every cell gets the debugger's events.
    session.context.debug_everything = session.on_breakpoint is not None
    try:
        with collecting_for_graphs():  # a cell's error is reported before the collector rescans its graph
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
    command()
