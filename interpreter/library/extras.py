"""How to install one of DG's optional extras (`plot`, `progress`, `lsp`, `jupyter`), in the words
of the tool that runs DG: pip's, or uv's under `uv run`, where `pip install` would install into
some other Python, or fail, and `uv run` would not see it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # a checkout's root (the repository is the package)


def install_command(extra: str) -> str:
    """The command that adds DG's extra `extra` to the environment DG runs in."""
    if not under_uv():
        return f'pip install "dglang[{extra}]"'
    if in_checkout():  # --inexact: keep the extras and test tools installed before
        return f"uv sync --inexact --extra {extra}"
    return f'uv add "dglang[{extra}]"'  # DG is a dependency of the user's own uv project


def under_uv() -> bool:
    return bool(os.environ.get("UV"))  # uv sets UV (its own path) for the commands it runs


def in_checkout() -> bool:
    """Is DG running from a checkout of its repository, in the environment uv made for it?"""
    return (ROOT / "pyproject.toml").is_file() and Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
