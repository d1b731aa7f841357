"""Exercise 4 (compiler): constant folding.

`interpreter/semantics/folding.py` has `fold_constants(module: ast.Module) -> ast.Module`, which replaces
every arithmetic expression (ast.Binary, ast.Unary) whose operands are number constants by one
ast.Constant holding its value, spanning the whole expression. It folds everywhere: nested
expressions, function bodies, conditions, arguments. An expression that would fail (`1 / 0`,
`2 ** 1000000`) is left as it is, so the error still happens at run time, at its place.
`compile` in interpreter/pipeline.py folds every program between parsing it and handing it to
the resolver and the evaluator (`compile_program`).
See docs/for-compiler-courses.md, exercise 4.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.parser import parse

PROJECT = Path(__file__).resolve().parents[2]


def folded(text: str) -> ast.Module:
    from dglang.interpreter.semantics.folding import fold_constants

    return fold_constants(parse(Source("t.dg", text)))


def value_of_first_assignment(text: str) -> ast.Expr:
    statement = folded(text).body[0]
    assert isinstance(statement, ast.Assign)
    return statement.value


def test_a_whole_expression_becomes_one_constant() -> None:
    value = value_of_first_assignment("x = 2 * 3 + 1\n")
    assert isinstance(value, ast.Constant) and value.value == 7
    assert (value.span.column, value.span.end_column) == (5, 14)  # all of `2 * 3 + 1`


def test_unary_minus_and_floats() -> None:
    value = value_of_first_assignment("x = -(1.5 * 2) ** 2\n")
    assert isinstance(value, ast.Constant) and value.value == -9.0


def test_only_the_constant_part_folds() -> None:
    value = value_of_first_assignment("x = y * (2 + 3)\n")
    assert isinstance(value, ast.Binary) and isinstance(value.left, ast.Name)
    assert isinstance(value.right, ast.Constant) and value.right.value == 5


def test_folding_reaches_into_functions_and_calls() -> None:
    module = folded("def f(a):\n    return a + 60 * 60\nprint(f(24 * 7))\n")
    returned = module.body[0].body[0].value
    assert isinstance(returned.right, ast.Constant) and returned.right.value == 3600
    argument = module.body[1].expr.args[0].args[0]
    assert isinstance(argument, ast.Constant) and argument.value == 168


@pytest.mark.parametrize("expression", ["1 / 0", "2 ** 1000000", "1 % 0"])
def test_failing_expressions_are_left_for_run_time(expression: str) -> None:
    value = value_of_first_assignment(f"x = {expression}\n")
    assert isinstance(value, ast.Binary)


def test_the_pipeline_folds_before_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    import dglang.interpreter.host.session
    import dglang.interpreter.pipeline
    from dglang.interpreter.semantics.folding import fold_constants

    seen = []

    def spy(module: ast.Module) -> ast.Module:
        seen.append(module)
        return fold_constants(module)

    monkeypatch.setattr(dglang.interpreter.pipeline, "fold_constants", spy)
    out = io.StringIO()
    dglang.interpreter.host.session.Session(out=out).run("print(2 ** 10)\n")
    assert out.getvalue() == "1024\n" and len(seen) == 1


@pytest.mark.parametrize("lesson", ["01_hello", "05_recursion", "06_broadcasting"])
def test_lessons_print_the_same(lesson: str) -> None:
    from dglang.interpreter.host.session import Session

    program = PROJECT / "programs" / f"{lesson}.dg"
    out = io.StringIO()
    Session(out=out, base_dir=program.parent).run(program.read_text(), f"programs/{program.name}")
    assert out.getvalue() == (PROJECT / "tests" / "golden" / "programs" / f"{lesson}.out").read_text()
