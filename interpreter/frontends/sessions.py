"""Making a session with the whole of DG: the language core and its seeing tools, as every front
end (the CLI, the REPL, the tests of programs and docs) makes it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from dglang.interpreter.host import blas_start
from dglang.interpreter.host.allocator import keep_freed_memory
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.host.module_files import library_folders
from dglang.interpreter.host.session import Session
from dglang.interpreter.seeing.tools import install


def new_session(
    out: TextIO | None = None,
    base_dir: Path | str | None = None,
    max_depth: int = 10_000,
    limits: Limits | None = None,
    allowed_dirs: Sequence[Path | str] = (),
    detect_anomaly: bool = False,
    library: Sequence[Path | str] = (),
    library_variable: bool = True,
) -> Session:
    """A core Session with graph(), gradcheck() and detect_anomaly installed, importing modules from
    the program's folder and the library path: the folders `library` (`--lib`), then DG_LIB's
    (unless `library_variable` is False: a grading worker is told its folders). The process's
    allocator keeps the memory ops free for the ops after them (host/allocator.py), and NumPy's BLAS,
    loaded with one thread, may give a large product more (host/blas_start.py)."""
    keep_freed_memory()
    blas_start.after_numpy()
    session = Session(out=out, base_dir=base_dir, max_depth=max_depth, limits=limits, allowed_dirs=allowed_dirs)
    session.modules.library = library_folders(library, None if library_variable else "")
    install(session, detect_anomaly=detect_anomaly)
    return session


class QuitProgram(BaseException):  # a signal, not an error: the user chose to stop
    """`:quit` at a pause. A BaseException, so no DG error handler mistakes it for a failure."""
