"""Which functions of a file are tests: every top-level `def test_...`, in the order written.

A test is called with no arguments. Its points are the default of a parameter named `points`
(`def test_relu_grad(points=2):`), 1 when there is none; they are read from the text, so the grader
knows every test and what it is worth before any student's code runs, and a submission that
crashes still gets a line, with 0 points, for each test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.semantics import ast_nodes as ast

PREFIX = "test_"
SUBMISSION = "submission"  # the name a tests file imports the student's program by


@dataclass(frozen=True)
class Case:
    name: str
    points: float
    line: int


def collect(module: ast.Module) -> list[Case]:
    """The tests of a parsed file, in the order they first appear (a second `def` of a name replaces
    the first, as it does when the file runs)."""
    found: dict[str, Case] = {}
    for statement in module.body:
        if isinstance(statement, ast.FunctionDef) and statement.name.startswith(PREFIX):
            case = Case(statement.name, points(statement), statement.span.line)
            first = found.get(case.name)
            found[case.name] = case if first is None else Case(case.name, case.points, first.line)
    return list(found.values())


def points(node: ast.FunctionDef) -> float:
    """The default of `points`, which must be a number written out; every other parameter needs a default."""
    worth: float = 1
    for param in node.params:
        if param.default is None:
            raise DGError(
                "TestError",
                f"{node.name}() takes an argument '{param.name}', but a test is called with none",
                param.span,
                help="give it a default, or take it out; `points=2` sets what the test is worth",
            )
        if param.name == "points":
            worth = number(param.default, node.name)
    return worth


def number(default: ast.Expr, test: str) -> float:
    value = default.value if isinstance(default, ast.Constant) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise DGError(
            "TestError",
            f"the points of {test} must be a number written out, 0 or more",
            default.span,
            help="for example `def test_relu(points=2):`",
        )
    return value
