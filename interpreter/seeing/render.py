"""Graphviz's `dot`, which lays out and draws DOT text: SVG as text, PNG as bytes.

These return what they draw and write no file, so any front end (the command line, a notebook)
can use them. Without Graphviz they raise a GraphvizError saying how to get it.
"""

from __future__ import annotations

import shutil
import subprocess

from dglang.interpreter.diagnostics.errors import DGError

DEFAULT_DPI = 192  # PNG: twice a screen's 96, sharp on slides and paper
TIMEOUT = 300  # seconds: a layout of a few thousand nodes takes seconds, not minutes


def graphviz() -> str:
    """The path of Graphviz's `dot`, or a GraphvizError."""
    program = shutil.which("dot")
    if program is None:
        raise DGError(
            "GraphvizError",
            "drawing SVG, PNG or HTML needs Graphviz's `dot`, which is not installed",
            help="install Graphviz (apt install graphviz, brew install graphviz), or write a .dot file",
        )
    return program


def render(dot_text: str, kind: str, dpi: int | None = None) -> bytes:
    """Lay out and draw DOT as `kind` ("svg", "png", "json"); `dpi` sets a PNG's resolution."""
    command = [graphviz(), f"-T{kind}"]
    if kind == "png":
        command.append(f"-Gdpi={dpi or DEFAULT_DPI}")
    try:
        result = subprocess.run(command, input=dot_text.encode(), capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise DGError(
            "GraphvizError",
            f"Graphviz took more than {TIMEOUT} seconds to lay out the graph",
            help="draw a smaller value, or write a .dot file",
        ) from None
    if result.returncode != 0:
        raise DGError("GraphvizError", f"Graphviz could not draw the graph: {result.stderr.decode().strip()}")
    return result.stdout


def svg(dot_text: str) -> str:
    """The SVG text Graphviz draws for `dot_text` (without the XML prologue, so it can be inlined)."""
    text = render(dot_text, "svg").decode()
    return text[text.index("<svg") :]
