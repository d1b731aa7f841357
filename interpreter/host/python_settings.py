"""Python's own settings, as compiling and running a DG program need them: each set for the
duration of a compile or a run, and set back after it however it ended.

- The recursion limit. The parser and the compiler recurse over the nesting of the source; a
  run nests a handful of Python frames per DG call, so Python's limit is raised to match
  `--max-depth` while a program runs (DG's own limit, not Python's, stops a runaway recursion).
- The cycle collector. Parsing and compiling make about a hundred objects per line and no
  cycles, and a recorded graph holds no cycles either (reference counting frees it): the
  collector would only rescan them, again and again.
- NumPy's error state: log(0) is -inf and 0/0 is nan, as in PyTorch, without a warning.
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator

import numpy as np

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source

# Python frames the parser and compiler may nest (Python's own default limit).
COMPILE_FRAMES = 1000
# Each DG call nests a handful of Python frames (call → body → statement → expression ...).
PYTHON_FRAMES_PER_CALL = 12
# With its usual settings the collector spent half the time of a 100,000-step scalar loop
# rescanning its growing graph. Young objects are still scanned every 50,000 net allocations, so
# cycles a program drops (a `def` run in a loop) are still collected; the older generations,
# which would rescan the whole graph, almost never.
GC_THRESHOLDS = (50_000, 1000, 1000)


@contextlib.contextmanager
def for_compiling(source: Source) -> Iterator[None]:
    """The collector off, and the usual thousand frames for the parser and the compiler wherever
    they are called from (a breakpoint's cell runs 10,000 DG calls deep, under a raised limit).
    A program nested deeper than they can follow is a SyntaxError at its deepest point."""
    collecting = gc.isenabled()
    gc.disable()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(python_depth() + COMPILE_FRAMES)
    try:
        yield
    except RecursionError:  # the builder managed, the compiler (a few frames deeper per level) did not
        from dglang.interpreter.syntax.parser import parse_tree, too_deeply_nested

        raise too_deeply_nested(parse_tree(source), source) from None
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.enable()


@contextlib.contextmanager
def for_running(max_depth: int) -> Iterator[None]:
    """Python's recursion limit raised for `max_depth` DG calls, the collector set for graphs, and
    NumPy's floating-point errors quiet. Python's own RecursionError (an expression nested
    too deeply) becomes DG's."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, max_depth * PYTHON_FRAMES_PER_CALL + 1000))
    try:
        with collecting_for_graphs(), np.errstate(all="ignore"):
            yield
    except RecursionError:
        raise DGError(
            "RecursionError", "nested too deeply for the interpreter", help="reduce the nesting of expressions or calls"
        ) from None
    finally:
        sys.setrecursionlimit(limit)


@contextlib.contextmanager
def collecting_for_graphs() -> Iterator[None]:
    """Python's collector set for recorded graphs (GC_THRESHOLDS) while this lasts. A run holds it;
    a front end holds it longer, until it has reported a run's error: set back at the end of a
    run, the usual settings start a collection that rescans the whole graph before the message (a
    second late, for a --timeout in a loop that grew ten million nodes)."""
    collector = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*collector)


def python_depth() -> int:
    """How many Python frames are on the stack now."""
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth
