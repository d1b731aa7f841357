"""`dg static FILE --fn NAME [--passes]` and `:static NAME`: the code each trace became, read by a
student, and each pass shown before and after."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from dglang.interpreter.frontends.repl import Outcome, Repl, run_piped
from dglang.interpreter.frontends.sessions import new_session

ROOT = Path(__file__).resolve().parents[2]

PASSES = """\
def f(x, m):
    unused = x.exp()
    a = (m * 3).sum()
    b = (m * 3).sum()
    c = x * exp(2.0)
    return a + b + c.sum()
g = static(f)
x = tensor([1.0, 2.0], requires_grad=True)
m = tensor([0.5, -1.0])
for i in range(3):
    y = g(x, m)
    grad y
print(y, x.grad)
"""


def dg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_dg_static_prints_each_pass_and_what_it_did(tmp_path: Path) -> None:
    program = tmp_path / "passes.dg"
    program.write_text(PASSES, encoding="utf-8")
    result = dg("static", str(program), "--fn", "f", "--passes")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "--- after dead code elimination: dropped t2" in out
    assert "--- after constant folding: t9 = 7.38905609893065; 1 guard on constants dropped" in out
    assert "--- after common subexpression elimination: t6 is t4; t7 is t5" in out  # (m requires no grad)
    assert "t12 = Add(t5, t5)" in out.split("--- after common subexpression elimination")[1]
    assert "# 3: a = (m * 3).sum()" in out  # each line carries its DG source line
    assert "tensor(" in result.stderr  # the program's own print goes to standard error


def test_the_passes_change_nothing_the_function_computes() -> None:
    out = io.StringIO()
    session = new_session(out=out)
    session.run(PASSES.replace("y = g(x, m)", "y = f(x, m)"), "dynamic.dg")
    dynamic = session.globals.vars["x"].grad.data.copy()
    out2 = io.StringIO()
    session2 = new_session(out=out2)
    session2.run(PASSES, "static.dg")
    assert np.array_equal(session2.globals.vars["x"].grad.data, dynamic)  # bit for bit
    assert out.getvalue() == out2.getvalue()


def test_dg_static_without_a_static_call_is_a_usage_error(tmp_path: Path) -> None:
    program = tmp_path / "plain.dg"
    program.write_text("def f(x):\n    return x\nprint(f(1))\n", encoding="utf-8")
    result = dg("static", str(program), "--fn", "f")
    assert result.returncode == 2
    assert "UsageError: the program never called static(f)" in result.stderr
    assert result.stderr.endswith(" = help: wrap the function: `fast = static(f)`, and call it\n")


def test_dg_static_named_by_what_static_gave_says_to_name_the_function_it_wraps(tmp_path: Path) -> None:
    program = tmp_path / "fast.dg"
    program.write_text("def step(x):\n    return x * 2\n\nfast = static(step)\nprint(fast(tensor(1.0)))\n")
    result = dg("static", str(program), "--fn", "fast")  # was: "wrap the function: `fast = static(fast)`"
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.endswith(
        "dg: UsageError: the program never called static(fast)\n"
        " = help: 'fast' is static(step): name the function static wraps, --fn step\n"
    )
    result = dg("static", str(program), "--fn", "other")
    assert result.stderr.endswith(" = help: the program wraps static(step): --fn step\n")
    assert dg("static", str(program), "--fn", "step").returncode == 0


def test_colon_static_lists_the_traces_in_the_repl() -> None:
    out, err = io.StringIO(), io.StringIO()
    repl = Repl(new_session(out=out), err=err)
    cells = textwrap.dedent("""\
        def f(x):
            if x.sum() > 0:
                return x * 2
            return -x

        fast = static(f)
        fast(tensor([1.0]))
        fast(tensor([-1.0]))
        :static f
        :static nothing
        """)
    assert run_piped(repl, cells.splitlines(keepends=True)) is Outcome.ERROR  # the last command fails
    text = out.getvalue()
    assert "static(f): 2 traces, 2 in the cache" in text
    assert "guard failures: 1" in text
    assert "guard bool(t3) == False" in text and "# 2: if x.sum() > 0:" in text
    assert "no variable nothing" in err.getvalue()


def test_dg_static_holds_its_listing_to_max_output(tmp_path: Path) -> None:
    program = tmp_path / "long.dg"
    program.write_text(
        "def f(x):\n    for i in range(400):\n        x = x * 1.0001 + 0.5\n    return x.sum()\n"
        "g = static(f)\nprint(g(tensor([1.0, 2.0])))\n",
        encoding="utf-8",
    )
    result = dg("static", str(program), "--fn", "f", "--passes", "--max-output", "10000")
    assert result.returncode == 1 and result.stdout == ""
    assert "long.dg:6:7: LimitError: the listings with their passes of static(f) are " in result.stderr
    assert (
        "more than the limit of 10,000" in result.stderr
        and "help: the limit was set with --max-output" in result.stderr
    )
    assert "Traceback" not in result.stderr
    shorter = dg("static", str(program), "--fn", "f", "--passes")
    assert shorter.returncode == 0 and shorter.stdout.count("--- after") == 5
    assert shorter.stdout.count("static(f) trace 1:") == 2  # before, then after the one pass that changed it
    assert "--- after free early: 800 values let go as soon as nothing reads them" in shorter.stdout
