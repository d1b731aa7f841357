"""start-up: wall time of a whole `dg bench/hello.dg` process, against `python -c "import numpy"`.

DG imports NumPy too, so importing NumPy is the floor; the target is to add at most half of it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from measure import BENCH, Result


def wall_time(command: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def dg_command() -> list[str]:
    """The `dg` script installed beside this Python, or the same entry point through -m."""
    script = Path(sys.executable).parent / "dg"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "interpreter"]


def dg_hello() -> Result:
    seconds, out = wall_time([*dg_command(), str(BENCH / "hello.dg")])
    if out != "hello\n":
        raise RuntimeError(f"dg bench/hello.dg printed {out!r}")
    return Result(seconds)


def python_import_numpy() -> Result:
    seconds, _ = wall_time([sys.executable, "-c", "import numpy"])
    return Result(seconds)
