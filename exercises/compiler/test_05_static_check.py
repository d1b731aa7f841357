"""Exercise 5 (compiler): a static check for names that can never be defined.

Before anything runs, `Session.run` (the way `dg FILE.dg` runs a program) reports a NameError,
"name 'x' is not defined" with the usual did-you-mean help, for every use of a name that is
none of: a builtin, a variable the session already has, a name the program assigns or defines
anywhere at its top level (for targets and `a, b = ...` included), or, inside a function, a
parameter or local name of that function or of a function around it. Comprehension variables
count inside their comprehension. A name defined later in the file is fine (functions may call
each other in any order); a name assigned only in a branch that does not run is statically
fine and fails at run time as before.

The check is the resolver's (interpreter/semantics/resolver.py), which already walks every scope before
anything runs: `resolve(module, known)` takes the names defined outside the program (builtins and
the session's variables, which `Session.run` passes down); `resolve(module)` alone checks no names,
as for a REPL cell.
See docs/for-compiler-courses.md, exercise 5.
"""

from __future__ import annotations

import pytest

from dglang.interpreter.diagnostics.errors import DGError


def test_nothing_runs_when_a_name_is_unknown(dg_error) -> None:
    error, printed = dg_error('print("start")\nprint(undefined)\n')
    assert error.kind == "NameError" and error.message == "name 'undefined' is not defined"
    assert (error.span.line, error.span.column) == (2, 7)
    assert printed == "", "the check must run before the program does"


def test_a_typo_gets_a_suggestion(dg_error) -> None:
    error, printed = dg_error('learning_rate = 0.1\nprint("training")\nprint(learning_rat)\n')
    assert error.help == "did you mean 'learning_rate'?" and printed == ""


def test_a_function_that_is_never_called_is_checked_too(dg_error) -> None:
    error, printed = dg_error('def f(a):\n    return a + b_typo\nprint("hello")\n')
    assert error.kind == "NameError" and "'b_typo'" in error.message
    assert (error.span.line, error.span.column) == (2, 16) and printed == ""


def test_no_false_alarms(dg) -> None:
    program = """
def f(n):
    return g(n) + offset          # g and offset are defined further down
def g(n):
    total = 0
    for i in range(n):
        total += i
    return total
def make_scaler(k):
    def scale(x, by=2):
        return x * k * by         # k from the enclosing function
    return scale
offset = 100
a, b = 1, 2
squares = [i * i for i in range(3)]
if False:
    never = 1
print(f(4), make_scaler(3)(a), b, squares, len(squares), pi > 3)
"""
    assert dg(program) == "106 6 2 [0, 1, 4] 3 True\n"


def test_the_resolver_does_the_check() -> None:
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.semantics.resolver import resolve
    from dglang.interpreter.syntax.parser import parse

    module = parse(Source("t.dg", "def f():\n    return [x * y for x in range(3)]\n"))
    resolve(module)  # no names given: no check
    resolve(module, known={"range", "y"})
    with pytest.raises(DGError, match="name 'y' is not defined"):
        resolve(module, known={"range"})


def test_the_session_s_variables_count() -> None:
    import io

    from dglang.interpreter.host.session import Session

    out = io.StringIO()
    session = Session(out=out)
    session.run("x = 41\n")
    session.run("print(x + 1)\n")
    assert out.getvalue() == "42\n"


def test_a_branch_that_did_not_run_still_fails_at_run_time(dg_error) -> None:
    error, printed = dg_error('if False:\n    late = 1\nprint("before")\nprint(late)\n')
    assert error.kind == "NameError" and printed == "before\n"
