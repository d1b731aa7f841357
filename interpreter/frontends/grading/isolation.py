"""What the operating system, rather than DG, holds one submission's process to.

DG's own counters (--timeout, --max-steps, --max-output, the memory budgets) stop a program with
a located error its author can read. These limits are the floor under them, for whatever the
counters miss (a bug in DG, a NumPy call that will not stop): the grader kills a process that
outlives its wall clock, everywhere; on Linux and macOS the process also sets resource limits on
itself before it reads any student's code: CPU seconds (RLIMIT_CPU), address space (RLIMIT_AS;
macOS does not enforce it), the size of any file it writes (RLIMIT_FSIZE: it writes none) and no
core files. Windows has no such limits without extra packages: there the wall clock and DG's
counters are all (docs/grading.md says so). This module holds every call that differs between
the systems, each with what it does on the others.

The process runs in a fresh temporary folder holding only its submission's copy, with HOME, the
XDG folders and the temporary folder pointed inside it, so nothing of the teacher's (a cache, a
config, a history) is read or written, and nothing one submission leaves reaches another.
"""

from __future__ import annotations

import math
import os
import signal
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_MEMORY = 2 * 1024**3  # bytes of address space: Python and NumPy take about 150 MB of it
MAX_FILE = 16 * 1024**2  # bytes in any file the process writes (DG programs write none)


@dataclass(frozen=True)
class SystemLimits:
    cpu_seconds: float | None = None
    memory_bytes: int | None = DEFAULT_MEMORY


@dataclass(frozen=True)
class Folders:
    """A submission's private folder: its copy, its home, its temporary folder."""

    root: Path

    @property
    def submission(self) -> Path:
        return self.root / "submission"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def temp(self) -> Path:
        return self.root / "tmp"

    def make(self) -> None:
        for folder in (self.submission, self.home, self.temp):
            folder.mkdir()


def environment(folders: Folders) -> dict[str, str]:
    """The environment of a submission's process: nothing of the grader's but what Python needs."""
    home, temp = str(folders.home), str(folders.temp)
    env = {
        "HOME": home,
        "USERPROFILE": home,
        "XDG_CACHE_HOME": str(folders.home / ".cache"),
        "XDG_CONFIG_HOME": str(folders.home / ".config"),
        "XDG_DATA_HOME": str(folders.home / ".local" / "share"),
        "XDG_STATE_HOME": str(folders.home / ".local" / "state"),
        "APPDATA": str(folders.home / "AppData" / "Roaming"),
        "LOCALAPPDATA": str(folders.home / "AppData" / "Local"),
        "TMPDIR": temp,
        "TEMP": temp,
        "TMP": temp,
        "DG_CACHE": "off",
        "PYTHONUTF8": "1",
        "PYTHONIOENCODING": "utf-8",
        # DG installed with `pip install --user` is found under the grader's own user base, not HOME.
        "PYTHONUSERBASE": site.getuserbase(),
        # One thread for NumPy's linear algebra: workers run side by side, and share the cores fairly.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    for name in ("PATH", "SYSTEMROOT", "LANG", "LC_ALL"):  # Windows needs SYSTEMROOT to start Python
        if name in os.environ:
            env[name] = os.environ[name]
    if os.environ.get("PYTHONPATH"):  # DG run from a folder rather than installed: find it there too
        places = os.environ["PYTHONPATH"].split(os.pathsep)
        # made absolute: a relative entry would be read from the submission's folder
        env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in places if p)
    return env


def apply(limits: SystemLimits) -> None:
    """Limit this process (a worker, before it reads a student's code). Nothing on Windows."""
    try:
        import resource
    except ImportError:  # Windows
        return
    settings = [(resource.RLIMIT_FSIZE, MAX_FILE, MAX_FILE), (resource.RLIMIT_CORE, 0, 0)]
    if limits.cpu_seconds is not None:
        # The soft limit sends SIGXCPU, which ends the process; the hard one a second later, SIGKILL.
        seconds = math.ceil(limits.cpu_seconds)
        settings.append((resource.RLIMIT_CPU, seconds, seconds + 1))
    if limits.memory_bytes is not None:
        settings.append((resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes))
    for kind, soft, hard in settings:
        _, ceiling = resource.getrlimit(kind)
        if ceiling != resource.RLIM_INFINITY:  # never above what this process was given
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        try:
            resource.setrlimit(kind, (soft, hard))
        except (ValueError, OSError):  # macOS refuses RLIMIT_AS: DG's own counters still hold
            print(f"dg grade: could not set resource limit {kind}", file=sys.stderr)


# ---- the worker's process -------------------------------------------------------------------------
def own_process_group(user: str | None) -> dict[str, Any]:
    """subprocess.Popen's options for a worker: a process group of its own, so that killing it kills
    anything it started (POSIX), and on POSIX as root, another user."""
    if os.name != "posix":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
    return {"start_new_session": True, **({"user": user} if user is not None else {})}


def kill(process: subprocess.Popen[bytes]) -> None:
    """Kill a worker and its process group (on Windows, the worker: it starts nothing)."""
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except OSError:  # already gone
        pass


def user_problem(user: str) -> str | None:
    """Why the workers cannot run as `user` (`dg grade --user`), or None."""
    if os.name != "posix":
        return "--user works on Linux and macOS only"
    import pwd

    try:
        pwd.getpwnam(user)
    except KeyError:
        return f"there is no user '{user}'"
    if os.geteuid() != 0:
        return "only root can run the workers as another user"
    return None
