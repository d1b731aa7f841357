"""`dg parse FILE`: the syntax tree DG builds for a program, or with `--tokens` the token stream
the parser reads (the indenter's _INDENT and _DEDENT included). Nothing runs. On standard error
it says which of the two parsers read the program and why (syntax/parser.py): after an edit of
grammar/dg.lark, lark's, until the fast parser's tables are written again."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source

from .options import ArgumentParser
from .program_files import read_program

EXIT_OK, EXIT_SYNTAX, EXIT_NOINPUT = 0, 65, 66  # as cli.py's


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    p = ArgumentParser(prog="dg parse", description="Print the syntax tree DG builds for a program.")
    p.add_argument("file", help="the program, or - for standard input")
    p.add_argument("--tokens", action="store_true", help="print the token stream instead (with INDENT/DEDENT)")
    return p


def show_syntax(args: argparse.Namespace, report: Callable[[DGError], None]) -> int:
    from dglang.interpreter.seeing.syntax_view import dump_ast, token_rows
    from dglang.interpreter.syntax.parser import parse

    try:
        text, name = read_program(args.file)
    except DGError as e:
        report(e)
        return EXIT_NOINPUT
    source = Source(name, text)
    try:
        say_which_parser(source)
        sys.stdout.writelines(token_rows(source)) if args.tokens else sys.stdout.write(dump_ast(parse(source)))
    except DGError as e:
        report(e)
        return EXIT_SYNTAX
    except Exception as e:  # the lexer's own errors, before any parse
        from dglang.interpreter.syntax.parser import syntax_error

        report(syntax_error(e, Source(name, text)))
        return EXIT_SYNTAX
    return EXIT_OK


def say_which_parser(source: Source) -> None:
    """On standard error: which of the two parsers reads `source` (syntax/parser.py), and why."""
    from dglang.interpreter.syntax.parser import which_path

    path, why = which_path(source)
    sys.stderr.write(f"dg: {'the fast parser' if path == 'fast' else 'lark'} reads {source.name}: {why}\n")
