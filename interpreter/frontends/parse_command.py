"""`dg parse FILE`: the syntax tree DG builds for a program, or with `--tokens` the token stream
the parser reads (the indenter's _INDENT and _DEDENT included). Nothing runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source

from .program_files import read_program

EXIT_OK, EXIT_SYNTAX, EXIT_NOINPUT = 0, 65, 66  # as cli.py's


def show_syntax(args: argparse.Namespace, report: Callable[[DGError], None]) -> int:
    from dglang.interpreter.seeing.syntax_view import dump_ast, dump_tokens
    from dglang.interpreter.syntax.parser import parse

    try:
        text, name = read_program(args.file)
    except DGError as e:
        report(e)
        return EXIT_NOINPUT
    try:
        sys.stdout.write(dump_tokens(text) if args.tokens else dump_ast(parse(Source(name, text))))
    except DGError as e:
        report(e)
        return EXIT_SYNTAX
    except Exception as e:  # the lexer's own errors, before any parse
        from dglang.interpreter.syntax.parser import syntax_error

        report(syntax_error(e, Source(name, text)))
        return EXIT_SYNTAX
    return EXIT_OK
