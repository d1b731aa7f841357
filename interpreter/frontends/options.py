"""The command line's own parser, whose complaints are UsageErrors for the one formatter; the
limits' options of the `dg` commands (`dg FILE`, `dg parse`, `dg graph`, `dg test`, `dg grade`,
the kernel's settings), and what their values may be: each value the clock, the memory reader or
the interpreter cannot honour is a usage error before anything runs (`--timeout 1e300` used to be
an internal error, `--timeout nan` a run without a limit). Every command that reads or runs a
student's file takes them in one line: `limit_options(p, which=RUNNING)` for a command that runs
the program, `which=READING` for one that only reads it (`dg parse`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.limits import DEFAULT_MAX_OUTPUT, MAX_TIMEOUT

if TYPE_CHECKING:
    from dglang.interpreter.host.limits import Limits


class UsageError(DGError):
    """A command line DG cannot act on."""

    def __init__(self, message: str, prog: str = "dg") -> None:
        super().__init__("UsageError", message, help=f"`{prog} --help` lists the commands and options")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, whose complaints become UsageErrors for the one formatter instead of its own text."""

    # argparse makes a help formatter for each option it adds (to check the option), and each asks
    # shutil for the terminal's width; importing shutil brings zlib, bz2 and lzma into every start
    # of `dg FILE`. The terminal is measured here only when help is written, the one time it matters.
    width = 78

    def __init__(self, *args: Any, formatter_class: Any = argparse.HelpFormatter, **kwargs: Any) -> None:
        super().__init__(*args, formatter_class=lambda prog: formatter_class(prog, width=self.width), **kwargs)

    def format_help(self) -> str:
        import shutil

        self.width = shutil.get_terminal_size().columns - 2  # as argparse does
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


# What `dg --eval` may choose: the evaluators of RunContext.evaluator (semantics/context.py, which
# this module does not import: it would bring NumPy into every start before the session is made).
EVALUATORS = ("accelerator", "reference")
# Each DG call holds about a dozen Python frames: 100,000 calls deep is about a gigabyte of them.
MAX_DEPTH = 100_000
MEMORY_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


# Which limits a command takes: one that runs the program takes them all; one that only reads it
# (prints its tree, checks it) takes those that bound reading and what it prints.
RUNNING = ("max_depth", "max_steps", "timeout", "max_memory", "max_output")
READING = ("timeout", "max_memory", "max_output")


def limit_options(
    p: argparse.ArgumentParser,
    default_output: int = DEFAULT_MAX_OUTPUT,
    timeout: float | None = None,
    which: tuple[str, ...] = RUNNING,
) -> None:
    """DG's own limits, for each run (a program, a REPL cell, each test gets the whole budget);
    `which` of them (RUNNING: all; READING: for a command that reads a program without running it)."""
    if "max_depth" in which:
        p.add_argument(
            "--max-depth",
            type=depth,
            default=10_000,
            metavar="N",
            help=f"deepest nesting of function calls (default 10000, at most {MAX_DEPTH})",
        )
    if "max_steps" in which:
        p.add_argument(
            "--max-steps",
            type=positive_int,
            metavar="N",
            help="stop after N loop iterations and function calls (for running untrusted files)",
        )
    shown = f"default {timeout:g}; " if timeout is not None else ""
    doing = "a program that runs longer, parsing included" if "max_steps" in which else "reading a program longer"
    p.add_argument(
        "--timeout",
        type=seconds,
        default=timeout,
        metavar="SECONDS",
        help=f"stop {doing} ({shown}at most {MAX_TIMEOUT:,.0f})",
    )
    p.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help="stop when DG's process holds more memory, as 2G or 500M (default: 4G, or half the "
        "machine's memory if less; 0: no limit)",
    )
    p.add_argument(
        "--max-output",
        type=int,
        default=default_output,
        metavar="BYTES",
        help=f"stop printing more (default {default_output}; 0: no limit)",
    )


def run_options(
    p: argparse.ArgumentParser, default_output: int = DEFAULT_MAX_OUTPUT, timeout: float | None = None
) -> None:
    """What every command that runs a program takes: DG's limits, the library path, the evaluator."""
    limit_options(p, default_output, timeout)
    library_option(p)
    p.add_argument(
        "--eval",
        choices=EVALUATORS,
        help="reference: walk the syntax tree, the evaluator to read and step through; accelerator: "
        "compile it to closures first, faster (the default; DG_EVAL=reference changes it)",
    )


def library_option(p: argparse.ArgumentParser) -> None:
    """`--lib DIR`: a folder of modules a program may import (after its own folder), as DG_LIB's are."""
    p.add_argument(
        "--lib",
        action="append",
        default=[],
        type=folder,
        metavar="DIR",
        help="look for imported modules in DIR too, after the program's folder (may be repeated; "
        "then the folders of DG_LIB)",
    )


def folder(text: str) -> str:
    try:
        found = Path(text).expanduser().is_dir()
    except (OSError, ValueError):
        found = False
    if not found:
        raise argparse.ArgumentTypeError(f"no such folder: {text}")
    return text


def limits_from(args: argparse.Namespace) -> Limits:
    """The Limits the options ask for (options a command does not have keep their defaults)."""
    from dglang.interpreter.host.limits import Limits

    max_output = getattr(args, "max_output", DEFAULT_MAX_OUTPUT)
    limits = Limits(
        max_steps=getattr(args, "max_steps", None),
        timeout=getattr(args, "timeout", None),
        max_output=max_output if max_output and max_output > 0 else None,
    )
    max_memory = getattr(args, "max_memory", None)
    if max_memory is not None:
        limits.max_memory = max_memory or None
    return limits


def depth(text: str) -> int:
    value = positive_int(text)
    if value > MAX_DEPTH:
        raise argparse.ArgumentTypeError(f"at most {MAX_DEPTH}, not {text}")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text}")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= MAX_TIMEOUT:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_TIMEOUT:,.0f} seconds, not {text}")
    return value


def memory_size(text: str) -> int:
    """`2G`, `500M`, `1.5GiB`, `4096K`, or a number of bytes; 0 means no limit."""
    number = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = number[-1:] if number[-1:] in MEMORY_UNITS else ""
    try:
        value = float(number[: len(number) - len(unit)]) * MEMORY_UNITS[unit]
    except ValueError:
        value = -1.0
    if not 0 <= value <= MEMORY_UNITS["T"] * 1024:
        raise argparse.ArgumentTypeError(f"must be a size such as 2G, 500M or 0 (no limit), not {text}")
    return int(value)
