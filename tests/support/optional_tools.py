"""The test tools beyond pytest and hypothesis, fetched when a test first needs them.

pyproject.toml lists them in dependency groups, by what needs them (`terminal`: pyte; `kernel`:
ipykernel, nbclient...; `browser`: Playwright; `lab`: JupyterLab). `uv run dg FILE` installs none
of them (uv installs only the default group, `test`), so `uv run pytest` fetches a group the first
time one of its tests runs: `uv sync --inexact --group NAME`, the versions uv.lock pins, into the
project's environment (where they stay: `uv run` never removes them). Under plain pip, and when
fetching fails (no network), the tests that need a group are skipped, each saying what to install.

    pyte = need("pyte", "terminal")          # at the top of a test module: the module, or a skip
"""

from __future__ import annotations

import functools
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 900  # seconds: JupyterLab and Playwright are some hundred MB on a slow connection


def need(module: str, group: str) -> ModuleType:
    """Import `module`, fetching its dependency group first when uv manages this environment;
    else skip the test (or the whole module, called at its top) with the command that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        pass
    problem = fetch(group)
    if problem is None:
        importlib.invalidate_caches()
        try:
            return importlib.import_module(module)
        except ImportError as e:
            problem = f"{module} is still missing after fetching it ({e})"
    pytest.skip(f"needs {module}: {how_to_install(group)} ({problem})", allow_module_level=True)


def how_to_install(group: str) -> str:
    packages = " ".join(f"'{p}'" for p in packages_of(group))
    return f"`pip install {packages}`, or `uv sync --group {group}`"


def packages_of(group: str) -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        groups = tomllib.load(f)["dependency-groups"]
    return [p for p in groups[group] if isinstance(p, str)]


@functools.cache  # one try per group and test session, whatever it gave
def fetch(group: str) -> str | None:
    """Install `group` into this environment with uv; None when done, else why not."""
    uv = os.environ.get("UV")  # set by `uv run` for what it runs: the uv that made this environment
    project = Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()
    if not uv or not project:
        return "not fetched: this is not the environment `uv run` made for the project"
    command = [uv, "sync", "--inexact", "--group", group]
    print(f"\n(fetching the test tools of group '{group}': {' '.join(command[1:])})", file=sys.stderr)
    try:
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`uv sync --group {group}` failed: {e}"
    if done.returncode != 0:
        return f"`uv sync --group {group}` failed: {done.stderr.strip()[-500:]}"
    return None
