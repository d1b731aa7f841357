"""What a command says when a package it needs is not installed: a usage message naming what to
install, and exit code 69 (cli.py), never an internal error. DG's optional extras (`jupyter`,
`lsp`) hold what only some commands need."""

from __future__ import annotations

import importlib
from types import ModuleType

from dglang.interpreter.diagnostics.errors import DGError


class MissingPackage(DGError):
    """A package a command needs is not installed."""

    def __init__(self, command: str, package: str, extra: str) -> None:
        super().__init__(
            "ImportError",
            f"`{command}` needs {package}, which is not installed",
            help=f"pip install 'dglang[{extra}]' installs DG with it (in a checkout: "
            f'pip install -e ".[{extra}]", or uv run --extra {extra} {command})',
        )


def need(module: str, command: str, extra: str) -> ModuleType:
    """Import `module` for `command`, or raise the MissingPackage that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingPackage(command, (e.name or module).split(".")[0], extra) from None
