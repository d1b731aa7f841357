"""`dg lsp`: serve the Language Server Protocol over standard input and output until the editor
says exit. pygls is an optional extra (`pip install 'dglang[lsp]'`): without it, `dg lsp` says so
as `dg` says everything, and exits."""

from __future__ import annotations

import argparse
import logging
import sys

from dglang.interpreter.frontends.missing import need

EXIT_OK = 0


def serve(args: argparse.Namespace) -> int:
    """Serve until the editor says exit; a MissingPackage (the one formatter's) without pygls."""
    need("pygls.lsp.server", "dg lsp", "lsp")  # it imports lsprotocol, pygls's one dependency
    from dglang.interpreter.frontends.sessions import new_session

    from .server import make_server

    # Standard output carries the protocol: anything else goes to standard error, which editors
    # show as the server's log.
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.WARNING)
    make_server(new_session(out=sys.stderr)).start_io()
    return EXIT_OK
