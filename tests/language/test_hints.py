"""Hints for PyTorch habits, and the warning for reading .grad of a tensor that is not a leaf.

The habits' messages themselves are in the error catalogue (tests/golden/errors/*pytorch*, *prefix*,
name_optimizer_step, syntax_*import*); here: the warning, which PyTorch gives too ("The .grad
attribute of a Tensor that is not a leaf Tensor is being accessed..."), once per place in the
program, through the one formatter, to standard error."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from dglang.interpreter.frontends.repl import Repl
from dglang.interpreter.frontends.sessions import new_session

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
