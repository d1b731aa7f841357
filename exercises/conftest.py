"""Fixtures the exercise tests share: run DG text in a fresh session, and catch the error it stops with.

These tests are not part of `uv run pytest` (pyproject's testpaths is ["tests"]); run one with
`uv run pytest exercises/compiler/test_01_operator.py`.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session

Run = Callable[[str], str]
Fails = Callable[[str], tuple[DGError, str]]


@pytest.fixture
def dg() -> Run:
    """dg(code): what a DG program prints (an error fails the test with DG's report)."""

    def run(code: str) -> str:
        from dglang.interpreter.diagnostics.report import format_error

        out = io.StringIO()
        try:
            Session(out=out).run(code, "exercise.dg")
        except DGError as e:
            pytest.fail(f"the program stopped with an error:\n{out.getvalue()}{format_error(e)}", pytrace=False)
        return out.getvalue()

    return run


@pytest.fixture
def dg_error() -> Fails:
    """dg_error(code): the DGError a program stops with, and what it printed before."""

    def run(code: str) -> tuple[DGError, str]:
        out = io.StringIO()
        try:
            Session(out=out).run(code, "exercise.dg")
        except DGError as e:
            return e, out.getvalue()
        pytest.fail(f"the program should stop with an error, but it ran and printed:\n{out.getvalue()}", pytrace=False)

    return run
