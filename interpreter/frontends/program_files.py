"""Reading a program file for the `dg` commands: its text, or a FileError saying why not."""

from __future__ import annotations

import sys
from pathlib import Path

from dglang.interpreter.core.errors import DGError
from dglang.interpreter.core.source import program_text


def read_program(path: str) -> tuple[str, str]:
    """(text, name for messages); a FileError says why it cannot be read."""
    try:
        if path == "-":
            return program_text(sys.stdin.buffer.read()), "<stdin>"
        return program_text(Path(path).read_bytes()), path
    except FileNotFoundError:
        reason = "no such file"
    except IsADirectoryError:
        reason = "it is a folder"
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except OSError as e:
        reason = e.strerror or str(e)
    shown = "standard input" if path == "-" else f"'{path}'"
    raise DGError("FileError", f"cannot read {shown}: {reason}")
