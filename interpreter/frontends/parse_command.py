"""`dg parse FILE`: the syntax tree DG builds for a program, or with `--tokens` the token stream
the parser reads (the indenter's _INDENT and _DEDENT included). Nothing runs; reading and printing
are held to --timeout, --max-memory and --max-output. On standard error it says which of the two
parsers read the program and why (syntax/parser.py): after an edit of grammar/dg.lark, lark's,
until the fast parser's tables are written again."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span

from .options import READING, ArgumentParser, limit_options, limits_from
from .program_files import read_program

EXIT_OK, EXIT_SYNTAX, EXIT_NOINPUT, EXIT_RUNTIME = 0, 65, 66, 70  # as cli.py's


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    p = ArgumentParser(prog="dg parse", description="Print the syntax tree DG builds for a program.")
    p.add_argument("file", help="the program, or - for standard input")
    p.add_argument("--tokens", action="store_true", help="print the token stream instead (with INDENT/DEDENT)")
    limit_options(p, which=READING)
    return p


def show_syntax(args: argparse.Namespace, report: Callable[[DGError], None]) -> int:
    """Parse and print, within --timeout and --max-memory; a tree longer than --max-output is not
    printed (a teacher bounds this on a student's file as a run: a megabyte of source can make a
    tree of fifty)."""
    from dglang.interpreter.host.bounded import bounded
    from dglang.interpreter.host.limits import output_size
    from dglang.interpreter.seeing.syntax_view import dump_ast, token_rows
    from dglang.interpreter.syntax.parser import parse

    try:
        text, name = read_program(args.file)
    except DGError as e:
        report(e)
        return EXIT_NOINPUT
    source, limits = Source(name, text), limits_from(args)
    first_line = Span(source, 1, 1, 1, len(source.line(1)) + 1)
    try:
        say_which_parser(source)
        shown = bounded(
            limits,
            lambda: "".join(token_rows(source)) if args.tokens else dump_ast(parse(source)),
            first_line,
            "while DG was reading it",
        )
    except DGError as e:
        report(e)
        return EXIT_SYNTAX if e.is_syntax else EXIT_RUNTIME
    except Exception as e:  # the lexer's own errors, before any parse
        from dglang.interpreter.syntax.parser import syntax_error

        report(syntax_error(e, source))
        return EXIT_SYNTAX
    if limits.max_output is not None and output_size(shown) > limits.max_output:
        what = "token stream" if args.tokens else "syntax tree"
        message = f"the {what} is {output_size(shown):,} bytes, more than the limit of {limits.max_output:,}"
        report(DGError("LimitError", message, first_line, help="the limit was set with --max-output"))
        return EXIT_RUNTIME
    sys.stdout.write(shown)
    return EXIT_OK


def say_which_parser(source: Source) -> None:
    """On standard error: which of the two parsers reads `source` (syntax/parser.py), and why."""
    from dglang.interpreter.syntax.parser import which_path

    path, why = which_path(source)
    sys.stderr.write(f"dg: {'the fast parser' if path == 'fast' else 'lark'} reads {source.name}: {why}\n")
