"""A keyword is never a name: `def grad(f)`, a parameter `grad` and `for grad in` were accepted while
`grad = x.grad` was refused, without a help line (docs/language.md lists the keywords)."""

from __future__ import annotations

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.library.help import describe, render
from dglang.interpreter.syntax.parser import parse

GRAD_HELP = "`grad y` is the statement that computes gradients; call it something else (g, dw, grad_w)"


def error_of(text: str) -> DGError:
    with pytest.raises(DGError) as raised:
        parse(Source("t.dg", text))
    return raised.value


@pytest.mark.parametrize(
    ("text", "what", "column"),
    [
        ("def grad(f):\n    return f\n", "a function name", 5),
        ("def step(w, grad):\n    return w\n", "a parameter name", 13),
        ("def step(w, grad=1):\n    return w\n", "a parameter name", 13),
        ("for grad in range(3):\n    pass\n", "a loop variable", 5),
        ("for i, grad in pairs:\n    pass\n", "a loop variable", 8),
        ("f(grad=1)\n", "an argument name", 3),
        ("import grad\n", "a module's name", 8),
        ("import nn, grad\n", "a module's name", 12),
        ("from nn import linear, grad\n", "an imported name", 24),
    ],
)
def test_grad_is_no_name_anywhere(text: str, what: str, column: int) -> None:
    error = error_of(text)
    assert (error.kind, error.message, error.span.column) == (
        "SyntaxError",
        f"'grad' is a keyword and cannot be {what}",
        column,
    )
    assert error.help == GRAD_HELP


def test_grad_on_the_left_of_equals_says_what_to_do() -> None:
    error = error_of("w = tensor(1.0, requires_grad=True)\ngrad = w.grad\n")
    assert error.message == "'grad' is a keyword and cannot be a variable name" and error.help == GRAD_HELP


def test_any_keyword_where_a_name_must_be() -> None:
    error = error_of("def if(x):\n    return x\n")
    assert error.message == "'if' is a keyword and cannot be a function name"
    assert error.help == "'if' is a keyword of DG; call it something else"


def test_the_attribute_grad_and_names_that_start_with_a_keyword_are_fine() -> None:
    parse(Source("t.dg", "def gradient_step(w, grad_w, iffy):\n    return w.grad\nfor in_ in range(2):\n    pass\n"))


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("backward", "DG backpropagates with the grad statement: `grad loss`"),
        ("x.backward", "DG backpropagates with the grad statement: `grad loss`"),
        ("zero_", "clear a gradient with the builtin zero_grad: `zero_grad(w)`"),
        ("torch", "DG's tensor functions are builtins, with nothing to import"),
        ("optimizer", "DG has no optimizers"),
        ("optimizer.step", "DG has no optimizers"),
        ("manual_seed", "DG writes `seed(...)`"),
    ],
)
def test_help_answers_the_pytorch_habits(name: str, says: str) -> None:
    """`:help backward` said there was no help; each habit a run's help line answers, :help answers."""
    found = describe(name)
    assert found is not None and says in render(found)


def test_help_backward_shows_grad_at_work() -> None:
    import io

    from dglang.interpreter.frontends.repl import Repl
    from dglang.interpreter.frontends.sessions import new_session

    out = io.StringIO()
    repl = Repl(new_session(out=out))
    repl.run_cell(":help backward")
    shown = out.getvalue()
    assert shown.startswith("x.backward()    (PyTorch's or NumPy's, not DG's)\n")
    for cell in ["x = tensor(2.0, requires_grad=True)", "loss = x * x", "grad loss"]:
        assert f">>> {cell}" in shown
        repl.run_cell(cell)
    out.truncate(0)
    repl.run_cell("x.grad")
    assert out.getvalue().endswith("tensor(4.)\n") and "tensor(4.)" in shown
