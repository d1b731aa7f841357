"""A teacher's tests file checked before any submission is graded: `dg grade` refuses one that
cannot run whatever the students wrote, rather than give every student 0 with `tests error`.

A broken tests file is told from a student's failure by what can be known without a submission:
the file parses, each test can be called (collecting.py), the resolver finds no static error,
each module it imports but `submission` is found on the library path and has the names taken
from it, and every name it reads is its own, imported, or DG's builtin (running.compile_tests_file).
Nothing runs: the tests' top level may still stop when it runs (a division by zero, a CSV file
missing), which each submission's results show as `tests error`, as `dg test solution.dg --tests
tests.dg` shows it first.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from dglang.interpreter.frontends.sessions import new_session

from .collecting import SUBMISSION
from .running import compile_tests_file


def check_tests_file(text: str, name: str, library: Sequence[str]) -> None:
    """Raise the first problem of a tests file that no submission could fix, located in the file
    (or in a module of the library it imports)."""
    session = new_session(out=io.StringIO(), library=library, library_variable=False)
    session.modules.stand_in(SUBMISSION)  # no submission yet: its names are checked where used
    compile_tests_file(session, text, name)
