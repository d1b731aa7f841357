"""`dg lsp`: serve the Language Server Protocol over standard input and output until the editor
says exit. pygls is an optional extra (`pip install 'dglang[lsp]'`): without it, `dg lsp` says so
as `dg` says everything, and exits."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable

from dglang.interpreter.diagnostics.errors import DGError

EXIT_OK, EXIT_UNAVAILABLE = 0, 69  # as cli.py's, after BSD's sysexits


def serve(args: argparse.Namespace, report: Callable[[DGError], None]) -> int:
    try:
        import pygls.lsp.server  # noqa: F401  (it imports lsprotocol, pygls's one dependency)
    except ImportError as e:
        report(
            DGError(
                "ImportError",
                f"`dg lsp` needs {e.name or 'pygls'}, which is not installed",
                help="pip install 'dglang[lsp]' installs DG with its language server's packages",
            )
        )
        return EXIT_UNAVAILABLE
    from dglang.interpreter.frontends.sessions import new_session
    from dglang.interpreter.host.session import collecting_for_graphs

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
