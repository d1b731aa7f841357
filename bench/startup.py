"""start-up: wall time of a whole `dg bench/hello.dg` process, against `python -c "import numpy"`.

DG imports NumPy too, so importing NumPy is the floor; the target is to add at most half of it.
Every run parses the file: DG keeps nothing between runs (a cache read back from disk is a way
to run code planted by someone else; see docs/reliability.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from measure import BENCH, Result


def usual_environment(**changes: str) -> dict[str, str]:
    """The environment a user's Python runs in: with bytecode caches (some shells and tools set
    PYTHONDONTWRITEBYTECODE, and then every start compiles every module of NumPy and DG again,
    which measures Python's compiler rather than start-up)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **changes}


def wall_time(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env or usual_environment())
    return time.perf_counter() - start, done.stdout


def dg_command() -> list[str]:
    """The `dg` script installed beside this Python, or the same entry point through -m."""
    script = Path(sys.executable).parent / "dg"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "interpreter"]


def dg_hello() -> Result:
    """A whole `dg bench/hello.dg` process: import, parse, run, exit."""
    seconds, out = wall_time([*dg_command(), str(BENCH / "hello.dg")])
    if out != "hello\n":
        raise RuntimeError(f"dg bench/hello.dg printed {out!r}")
    return Result(seconds)


def python_import_numpy() -> Result:
    seconds, _ = wall_time([sys.executable, "-c", "import numpy"])
    return Result(seconds)
