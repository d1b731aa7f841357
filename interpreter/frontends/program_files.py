"""Reading a program file for the `dg` commands: its text, or a FileError saying why not.

`dg FILE`, `dg -`, `dg parse`, `dg graph`, `dg test`, `dg grade` and the REPL's `:load` read
programs here. A file is read up to MAX_PROGRAM_BYTES and one byte more, so a device that never
ends (`dg /dev/zero`) or a huge file is refused without being read whole; bytes that are not
UTF-8 are refused too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.escaping import shown_name
from dglang.interpreter.diagnostics.source import program_text
from dglang.interpreter.host.limits import MAX_PROGRAM_BYTES
from dglang.interpreter.library.data_files import short


def read_program(path: str) -> tuple[str, str]:
    """(text, name for messages) of the program at `path` (`-`: standard input); a FileError says
    why it cannot be read."""
    shown = "standard input" if path == "-" else f"'{short(path)}'"
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_PROGRAM_BYTES + 1)
        else:
            with Path(path).open("rb") as f:
                data = f.read(MAX_PROGRAM_BYTES + 1)
        if len(data) > MAX_PROGRAM_BYTES:
            reason = f"it is larger than {MAX_PROGRAM_BYTES:,} bytes, the limit for a program"
        else:
            # A name's bytes that are not UTF-8 are shown as escapes (the messages must be written).
            return program_text(data), "<stdin>" if path == "-" else shown_name(path)
    except FileNotFoundError:
        reason = "no such file"
    except IsADirectoryError:
        reason = "it is a folder"
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except OSError as e:
        reason = e.strerror or str(e)
    except ValueError:  # a NUL byte in the path
        reason = "a path cannot hold a NUL character"
    raise DGError("FileError", f"cannot read {shown}: {reason}")
