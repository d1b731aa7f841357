"""The data files a program may read, and how messages quote a path.

`load_csv` reads a regular file under the program's folder (or a folder `--allow-path` adds), no
larger than MAX_DATA_FILE: `data_file` says which file that is, or why there is none. (Programs
themselves are read by the front ends: frontends/program_files.py.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError

MAX_DATA_FILE = 200_000_000  # bytes: a CSV larger than this is not a lesson's data set


def short(path: str, limit: int = 80) -> str:
    """A path as a message quotes it: cut in the middle when it is very long."""
    return path if len(path) <= limit else f"{path[: limit // 2 - 2]}...{path[-(limit // 2 - 1) :]}"


def data_file(path: Any, base_dir: Path, allowed_dirs: Sequence[Path]) -> Path:
    """The file `path` names for load_csv, checked: under `base_dir` or one of `allowed_dirs`
    (after following symbolic links), a regular file, not too large. A FileError otherwise."""
    if not isinstance(path, str):
        raise DGError("TypeError", f"a path is a string, not {type(path).__name__}")
    if "\0" in path:
        raise DGError("FileError", "a path cannot hold a NUL character")
    shown = short(path)
    candidate = Path(path)
    if (candidate.is_absolute() or ".." in candidate.parts) and not allowed_dirs:
        raise DGError(
            "FileError",
            f"'{shown}' is outside the program's folder",
            help="data files are read relative to the program, without '..'",
        )
    try:
        base = base_dir.resolve()
        resolved = (base / candidate).resolve()  # follows symbolic links, so a link cannot lead out
        if not any(resolved.is_relative_to(root) for root in [base, *allowed_dirs]):
            where = "the program's folder" if not allowed_dirs else "the program's folder and the allowed folders"
            raise DGError(
                "FileError",
                f"'{shown}' leads outside {where}",
                help="`dg --allow-path DIR` lets a program read data files under DIR",
            )
        if not resolved.is_file():
            raise DGError("FileError", f"no file '{shown}' in the program's folder ({base.name}/)")
        if resolved.stat().st_size > MAX_DATA_FILE:
            raise DGError("FileError", f"'{shown}' is larger than {MAX_DATA_FILE:,} bytes, the limit for data files")
    except OSError as e:  # a name too long for the file system, a folder that may not be read
        raise DGError("FileError", f"cannot read '{shown}': {e.strerror or e}") from None
    except RuntimeError:  # Python's word for a symbolic link that leads back to itself
        raise DGError("FileError", f"cannot read '{shown}': a symbolic link on the way leads to itself") from None
    return resolved
