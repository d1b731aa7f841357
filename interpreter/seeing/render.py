"""Graphviz's layout: DOT text in, SVG (text) or PNG (bytes) out, drawn by one of two programs.

- `dot`, the system's Graphviz, where it is installed (what a teacher's other tools draw with);
- else `graphviz-pure`, Graphviz 16 ported to Rust as one program, which pip installs with DG on
  Linux, macOS and Windows (a wheel with the program inside), so pictures need nothing else.

Both run Graphviz's algorithms on the same DOT: the same nodes, edges, labels and ids (the stepper's
script finds its nodes by id); positions differ a little with the fonts each measures text in
(tests/seeing/test_pictures.py compares the two). These return what they draw and write no file, so
any front end (the command line, a notebook) can use them. With neither program, a GraphvizError
says how to get one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from dglang.interpreter.diagnostics.errors import DGError

DEFAULT_DPI = 192  # PNG: twice a screen's 96, sharp on slides and paper
TIMEOUT = 300  # seconds: a layout of a few thousand nodes takes seconds, not minutes
PURE = "graphviz-pure"


@dataclass(frozen=True)
class Layout:
    """A program that lays out DOT: where it is, and what it is called in messages."""

    path: str
    name: str  # "Graphviz's dot" or "graphviz-pure"

    def __str__(self) -> str:
        return f"{self.name} ({self.path})"


def layouts() -> list[Layout]:
    """The programs that can draw here, the preferred first: the system's `dot`, then graphviz-pure
    (in this Python's scripts folder, where pip put it, even when that folder is not on the PATH)."""
    found = []
    dot = shutil.which("dot")
    if dot is not None:
        found.append(Layout(dot, "Graphviz's dot"))
    pure = pure_program()
    if pure is not None:
        found.append(Layout(pure, PURE))
    return found


def pure_program() -> str | None:
    executable = PURE + (".exe" if os.name == "nt" else "")
    folders = [sysconfig.get_path("scripts"), sysconfig.get_path("scripts", f"{os.name}_user")]
    for folder in folders:
        if folder and (Path(folder) / executable).is_file():
            return str(Path(folder) / executable)
    return shutil.which(PURE)


def graphviz() -> Layout:
    """The program that draws here, or a GraphvizError saying how to get one."""
    found = layouts()
    if not found:
        raise DGError(
            "GraphvizError",
            "drawing SVG, PNG or HTML needs Graphviz, and neither `dot` nor graphviz-pure is installed",
            help="pip install graphviz-pure (it comes with DG where a wheel of it exists), or install Graphviz "
            "(apt install graphviz, brew install graphviz, winget install graphviz); a .dot file needs neither",
        )
    return found[0]


def render(dot_text: str, kind: str, dpi: int | None = None, layout: Layout | None = None) -> bytes:
    """Lay out and draw DOT as `kind` ("svg", "png", "json"); `dpi` sets a PNG's resolution.
    `layout` is the program to draw with (the one `graphviz()` finds, unless told)."""
    program = layout or graphviz()
    command = [program.path, f"-T{kind}"]
    if kind == "png":
        command.append(f"-Gdpi={dpi or DEFAULT_DPI}")
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:  # found a moment ago, gone or not runnable now
        raise DGError("GraphvizError", f"cannot run {program}: {e.strerror or e}") from None
    with process:
        try:
            out, err = waited(process, dot_text.encode())
        except BaseException:  # the run's --timeout or --max-memory stopped the wait, or TIMEOUT passed
            process.kill()
            raise
    if process.returncode != 0:
        message = err.decode(errors="replace").strip()
        raise DGError("GraphvizError", f"{program.name} could not draw the graph: {message}")
    return out


def waited(process: subprocess.Popen[bytes], data: bytes | None) -> tuple[bytes, bytes]:
    """What the layout program wrote, waiting a quarter of a second at a time: between two waits a
    watchdog's stop (the run's --timeout, --max-memory) can arrive, which one long wait would hold up."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return process.communicate(data, timeout=0.25)
        except subprocess.TimeoutExpired:
            data = None  # (sent already: communicate goes on where it was)
            if time.monotonic() > deadline:
                raise DGError(
                    "GraphvizError",
                    f"Graphviz took more than {TIMEOUT} seconds to lay out the graph",
                    help="draw a smaller value, or write a .dot file",
                ) from None


def svg(dot_text: str, layout: Layout | None = None) -> str:
    """The SVG text Graphviz draws for `dot_text` (without the XML prologue, so it can be inlined)."""
    text = render(dot_text, "svg", layout=layout).decode()
    return text[text.index("<svg") :]
