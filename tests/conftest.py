"""The suite's folders: one per layer (engine/, language/, seeing/, frontends/), promises/ for what
holds across them (limits, the sandbox, fuzzing), project/ for the repository as a whole; the
helpers they share are in support/, expected outputs in golden/.

Helpers are imported by their module name (`from graph_util import graph_behind`): support/ is on
the path for every test, and so is the repository's tools/ (the writers of the files made from the
op declarations, which tests/project/test_generated.py runs).

Fast and slow tests. `uv run pytest` runs the fast tests, so that a newcomer's first run takes a few
minutes; `uv run pytest --all` runs every test, as CI does (.ci/run). A test is slow, and gets
`@pytest.mark.slow` (a whole module: `pytestmark = pytest.mark.slow`; one case of a parametrized
test: `pytest.param(..., marks=pytest.mark.slow)`, or support/slow_cases.py), when it

- takes more than SLOW_SECONDS of processor time, its subprocesses included (a lesson trained to
  its bar, a fuzz or property run of many cases, a class graded, a program held to a limit by
  running into it), or
- drives a program that takes a second or more to start before it checks anything: a browser, a
  Jupyter kernel or JupyterLab, the REPL in a terminal, the language server, pip or uv installing DG.

A fixture that several tests share costs its first test: it leaves the fast run only when every test
that uses it is slow. Keep a cheap check of the same code fast (the lesson's first steps, a short
fuzz run), so that the fast run still goes through every module.

The run's summary says how many slow tests it left out, and names each unmarked test that took more
than NAMED_SECONDS, twice the line (a test near the line crosses it on a busy machine). A slow test runs
without `--all` when its file or its id is named on the command line (`uv run pytest tests/x/test_y.py`).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

import pytest

try:
    import resource
except ImportError:  # Windows: a test's own processor time only
    resource = None

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tools"))

SLOW_SECONDS = 1.5  # processor seconds of one test, its subprocesses included
NAMED_SECONDS = 2 * SLOW_SECONDS  # an unmarked test over this is named in the summary
LEFT_OUT = pytest.StashKey[int]()
OVER_TIME = pytest.StashKey[list[tuple[str, float]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all",
        action="store_true",
        dest="all_tests",
        help="run the slow tests too (marked slow: see tests/conftest.py); CI does",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A marker expression that names `slow` (-m slow, -m 'not slow') is the reader's own choice.
    if config.getoption("all_tests") or "slow" in config.getoption("markexpr", ""):
        return
    named = named_files(config)
    slow = [item for item in items if item.get_closest_marker("slow") and item.path not in named]
    if slow:
        config.hook.pytest_deselected(items=slow)
        left_out = set(slow)
        items[:] = [item for item in items if item not in left_out]
    config.stash[LEFT_OUT] = len(slow)


def named_files(config: pytest.Config) -> set[Path]:
    """The test files the command line names, alone or by a test's id (not the folders it names)."""
    here = config.invocation_params.dir
    paths = (here / arg.split("::")[0] for arg in config.args)
    return {path.resolve() for path in paths if path.is_file()}


RUN = [0]  # tests run so far


def pytest_collection_finish(session: pytest.Session) -> None:
    settle_the_heap()


def settle_the_heap() -> None:
    """Collect, then set what lives on aside from the collector's later passes (gc.freeze): a full
    collection walks every object the process holds, and a test that collects (to measure memory
    given back) would otherwise pay for all the modules, test cases and caches of the run so far
    (0.25 s after collection, 0.6 s late in the run, at each call)."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    before = processor_seconds()
    try:
        return (yield)
    finally:
        spent = processor_seconds() - before
        if spent > NAMED_SECONDS and not item.get_closest_marker("slow"):
            item.config.stash.setdefault(OVER_TIME, []).append((item.nodeid, spent))
        RUN[0] += 1
        if RUN[0] % 200 == 0:  # every 200 tests: what the run has kept since
            settle_the_heap()


def processor_seconds() -> float:
    """Processor time of this process and of its children that have ended (a test's subprocesses)."""
    if resource is None:
        return time.process_time()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    over = config.stash.get(OVER_TIME, [])
    if over:
        terminalreporter.section("tests that took long")
        for nodeid, spent in over:
            terminalreporter.write_line(f"{nodeid}: {spent:.0f} s of processor time")
        terminalreporter.write_line(
            f"Each took over {NAMED_SECONDS:g} s: mark it @pytest.mark.slow or make it cheaper (tests/conftest.py)."
        )
    left_out = config.stash.get(LEFT_OUT, 0)
    if left_out:
        tests = "test" if left_out == 1 else "tests"
        command = "uv run pytest --all" if os.environ.get("UV") else "pytest --all"  # UV: set by `uv run`
        terminalreporter.write_line(
            f"{left_out} slow {tests} left out (lessons trained, browsers, kernels, terminals, installs, long runs): "
            f"`{command}` runs every test."
        )
