"""DG's standard streams speak UTF-8 on every platform.

Windows gives a program whose output goes to a file or a pipe (`dg prog.dg > out.txt`) the ANSI
code page, cp1252 in much of the world, which has no `└─` for graph pictures nor `√` and `ᵀ` for
derivative rules (a console gets Unicode either way); a POSIX shell under a legacy locale is no
better. So `dg` reads and writes UTF-8 there too, as Python's UTF-8 mode does, unless the user
chose an encoding with PYTHONIOENCODING. Whatever the encoding, what it cannot carry (a lone
surrogate in a string, "\ud800") is written as an escape rather than stopping DG with an error.
"""

from __future__ import annotations

import codecs
import io
import os
import sys


def use_utf8() -> None:
    """Switch standard input, output and error to UTF-8 where they use another encoding, and let
    output write what its encoding cannot carry as escapes."""
    chosen = bool(os.environ.get("PYTHONIOENCODING"))
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper) or not stream.encoding:
            continue  # closed, or replaced (by a test's capture, say)
        errors = stream.errors if stream is sys.stdin else "backslashreplace"
        if not chosen and codecs.lookup(stream.encoding).name != "utf-8":
            stream.reconfigure(encoding="utf-8", errors=errors)
        elif stream.errors != errors:
            stream.reconfigure(errors=errors)
