"""`dg lsp`: serve the Language Server Protocol over standard input and output until the editor
says exit. pygls is an optional extra (`pip install 'dglang[lsp]'`): without it, `dg lsp` says so
as `dg` says everything, and exits."""

from __future__ import annotations

import argparse
import logging
import sys

from dglang.interpreter.frontends.missing import need
from dglang.interpreter.frontends.options import ArgumentParser

EXIT_OK = 0


def options() -> argparse.ArgumentParser:
    """The command's options (`dg ... --help` lists them)."""
    p = ArgumentParser(
        prog="dg lsp",
        description="Serve the Language Server Protocol over standard input and output, for an editor to start: "
        "diagnostics, hover, completion, go to definition and document symbols for .dg files. "
        "It reads programs, never runs them. Needs pygls: pip install 'dglang[lsp]'.",
    )
    p.add_argument(
        "--stdio", action="store_true", help="talk over standard input and output (the default; editors pass it)"
    )
    p.add_argument("--verbose", action="store_true", help="log each message to standard error")
    return p


def serve(args: argparse.Namespace) -> int:
    """Serve until the editor says exit; a MissingPackage (the one formatter's) without pygls."""
    need("pygls.lsp.server", "dg lsp", "lsp")  # it imports lsprotocol, pygls's one dependency
    from dglang.interpreter.frontends.sessions import new_session
    from dglang.interpreter.host.limited_run import collecting_for_graphs

    from .server import make_server

    # Standard output carries the protocol: anything else goes to standard error, which editors
    # show as the server's log.
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.WARNING)
    # The server keeps each document's tree, acyclic and large (a node per token): with Python's
    # usual settings its collector rescanned them all during every answer, a third of the time
    # an outline of 40,000 symbols took. The session's settings for recorded graphs suit them.
    with collecting_for_graphs():
        make_server(new_session(out=sys.stderr)).start_io()
    return EXIT_OK
