"""Hints for PyTorch habits, and the warning for reading .grad of a tensor that is not a leaf.

The habits' messages themselves are in the error catalogue (tests/golden/errors/*pytorch*, *prefix*,
name_optimizer_*, syntax_*import*); here: that every call of the course library a hint suggests is
one programs/nn.dg defines, the habits read through a dotted name, and the warning, which PyTorch gives too ("The .grad
attribute of a Tensor that is not a leaf Tensor is being accessed..."), once per place in the
program, through the one formatter, to standard error."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.repl import Repl
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.library.habits import COURSE_LIBRARY, OPTIMIZER_HELP, ZERO_GRAD_HELP

REBOUND = """\
w = tensor(2.0, requires_grad=True)
loss = w * w
grad loss
w = w - 0.1 * w.grad
for step in range(3):
    print(w.grad)
print(w.grad)
"""


def run(program: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out)
    session.err = err
    session.run(program, "train.dg")
    return out.getvalue(), err.getvalue()


def test_reading_grad_of_a_non_leaf_warns_once_per_place() -> None:
    out, err = run(REBOUND)
    assert out == "None\n" * 4
    assert err.count("Warning") == 2  # the print inside the loop, once; the one after it
    assert err.splitlines()[:5] == [
        "train.dg:6:11: Warning: .grad of a tensor that is not a leaf is being read: "
        "grad does not fill it, so it is None",
        "  |",
        "6 |     print(w.grad)",
        "  |           ^^^^^^",
        "  = help: w was computed by Sub on line 4; to keep a parameter a leaf, update it in place inside "
        "`with no_grad:` (w -= lr * w.grad); for dy/dw at a computed value, use gradient(y, w)",
    ]


def test_no_warning_for_leaves_or_a_grad_that_was_set() -> None:
    _, err = run("w = tensor(1.0, requires_grad=True)\nprint(w.grad)\ny = w * 2\ny.grad = ones_like(y)\ny.grad\n")
    assert err == ""
    _, err = run("c = tensor(1.0)\nprint(c.grad, (c * 2).grad)\n")  # nothing recorded: no grad_fn, a leaf
    assert err == ""


def test_the_repl_warns_on_its_standard_error_and_goes_on() -> None:
    out, err = io.StringIO(), io.StringIO()
    repl = Repl(new_session(out=out), err=err)
    for cell in ["w = tensor(1.0, requires_grad=True)", "h = w * 3", "h.grad", "h.grad"]:
        repl.run_cell(cell)
    assert out.getvalue() == ""  # None is not echoed
    assert err.getvalue().count("<cell 3>:1:1: Warning:") == 1 and "<cell 4>:1:1: Warning:" in err.getvalue()
    assert "h was computed by Mul on line 1" not in err.getvalue()  # another cell: no line number of its own


def test_a_file_run_prints_the_warning_to_standard_error(tmp_path: Path) -> None:
    path = tmp_path / "train.dg"
    path.write_text(REBOUND)
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout == "None\n" * 4
    assert result.stderr.startswith(f"{path}:6:11: Warning: .grad of a tensor that is not a leaf")


# ---- hints that know DG's course library, programs/nn.dg -----------------------------------------
COURSE = Path(__file__).resolve().parents[2] / "programs" / "nn.dg"


def course_functions() -> dict[str, tuple[int, int]]:
    """Each function programs/nn.dg defines: (parameters it needs, parameters it takes)."""
    found = {}
    for name, params in re.findall(r"^def (\w+)\((.*)\):", COURSE.read_text(), re.MULTILINE):
        names = [p.strip() for p in params.split(",") if p.strip()]
        found[name] = (sum("=" not in p for p in names), len(names))
    return found


def test_every_call_a_hint_suggests_is_a_function_of_the_course_library_with_its_arguments() -> None:
    functions = course_functions()
    suggested = [text for _, text in COURSE_LIBRARY.values()] + [OPTIMIZER_HELP, ZERO_GRAD_HELP]
    calls = [call for text in suggested for call in re.findall(r"\bnn\.(\w+)\(([^()]*)\)", text)]
    assert {name for name, _ in calls} >= {"cross_entropy", "sgd_step", "adam_step", "linear", "conv"}
    for name, args in calls:
        assert name in functions, f"nn.{name} is not defined in programs/nn.dg"
        needs, takes = functions[name]
        assert needs <= len(args.split(",")) <= takes, f"nn.{name}({args}): programs/nn.dg's takes {needs} to {takes}"


@pytest.mark.parametrize(
    ("line", "help"),
    [
        ("loss = torch.nn.functional.cross_entropy(x, y)", "nn.cross_entropy(logits, labels)"),
        ("loss = cross_entropy(x, y)", "nn.cross_entropy(logits, labels)"),  # from torch.nn.functional import ...
        ("layer = nn.Linear(2, 3)", 'nn.init_linear(params, "fc", n_in, n_out)'),
        ("opt = torch.optim.Adam(params, lr=0.01)", "nn.adam_step(params, state, lr)"),
        ("y = torch.nn.functional.relu(x)", "write `relu(...)` without `torch.nn.functional.`"),
        ("g = torch.autograd.grad(y, x)", "the builtin gradient: write `gradient(y, x)`"),
        (
            "m = nn.Sequential(a, b)",
            "its course library, programs/nn.dg, is a module of DG functions: write `import nn`",
        ),
        ("order = torch.randperm(10)", "sorted(zip(rand(n).tolist(), range(n)))"),
        ("opt.zero_grad()", "nn.sgd_step(params, lr) or nn.adam_step(params, state, lr)"),
    ],
)
def test_pytorch_names_get_the_dg_way_and_the_course_library_s(line: str, help: str) -> None:
    with pytest.raises(DGError) as caught:
        run("x = ones(2, 3)\ny = tensor([0, 1])\nparams = {}\n" + line + "\n")
    assert help in (caught.value.help or ""), caught.value.help


def test_the_pair_x_max_dim_gives_says_how_to_take_its_values_or_indices() -> None:
    with pytest.raises(DGError) as caught:
        run("x = ones(2, 3)\nbest = max(x, dim=0).indices\n")
    assert caught.value.help == (
        "max(x, dim=0) gives a pair (values, indices) without names: write `max(x, dim=0)[1]`, "
        "or `x.argmax(axis=0)` for the indices alone"
    )
    with pytest.raises(DGError) as caught:
        run("pair = (1, 2)\nv = pair.values\n")  # a tuple that no max() gave: no hint to give
    assert caught.value.help is None


@pytest.mark.parametrize(
    ("line", "help"),
    [
        (
            "loss_fn = nn.CrossEntropyLoss()",
            "nn.CrossEntropyLoss() is PyTorch's; the course library's way: nn.cross_entropy(",
        ),
        (
            "from nn import Linear",
            "nn.Linear(n_in, n_out) is PyTorch's; the course library's way: nn.init_linear(params, \"fc\"",
        ),
        ("h = nn.lienar", "did you mean 'linear'?"),  # a slip of the course library's own name: the near name
    ],
)
def test_a_pytorch_name_read_from_the_course_library_gets_its_way_not_a_near_name(line: str, help: str) -> None:
    session = new_session(out=io.StringIO(), library=[COURSE.parent])
    with pytest.raises(DGError) as caught:  # was: "did you mean 'linear'?" for nn.Linear, which takes other arguments
        session.run("import nn\n" + line + "\n", "lesson.dg")
    assert (caught.value.help or "").startswith(help), caught.value.help


def test_did_you_mean_prefers_the_program_s_own_name_to_an_equally_near_builtin() -> None:
    """`ad` is as near `add` (the program's) as `pad` (a builtin): the program's is meant."""
    with pytest.raises(DGError) as caught:
        new_session(out=io.StringIO()).run("def add(a, b):\n    return a + b\nprint(ad(1, 2))\n", "t.dg")
    assert caught.value.help == "did you mean 'add'?"
