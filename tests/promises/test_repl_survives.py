"""The REPL survives: errors, Ctrl-C while a cell runs, and programs over a limit leave the session
usable, with every variable it had, grad mode on, and no hook or timer left behind.
"""

from __future__ import annotations

import _thread
import io
import threading

import pytest

from dglang import autograd as ag
from dglang.autograd.tensor import recording
from dglang.interpreter.frontends.repl import Outcome, Repl
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host import guards
from dglang.interpreter.host.limits import Limits

SETUP = "x = tensor([1.0, 2.0], requires_grad=True)\nn = 41\ndef f(v):\n    return v * 2\n"


def repl_with(**limits: object) -> tuple[Repl, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    repl = Repl(Session(out=out, limits=Limits(**limits)), err=err)  # type: ignore[arg-type]
    assert repl.run_cell(SETUP) is Outcome.OK
    return repl, out, err


def assert_intact(repl: Repl, out: io.StringIO) -> None:
    """The variables are all there and the session computes and differentiates as before."""
    assert ag.is_grad_enabled()
    assert recording.listeners == ()
    assert repl.session.watchdog is None  # the run's watchdog is stopped
    before = out.getvalue()
    check = "print(n + 1, f(3))\ny = (f(x) * x).sum()\ngrad y\nprint(x.grad)\nzero_grad(x)\n"
    assert repl.run_cell(check) is Outcome.OK
    assert out.getvalue()[len(before) :] == "42 6\ntensor([4., 8.])\n"


OVER_THE_LIMIT = {
    "an error": ("x.nothing", {}),
    "an error inside no_grad": ("with no_grad:\n    z = 1 / 0", {}),
    "an error inside detect_anomaly": ("with detect_anomaly:\n    z = 1 / 0", {}),
    "a syntax error": ("x = = 1", {}),
    "runaway recursion": ("def r(k):\n    return r(k + 1)\nr(0)", {}),
    "deep source": ("z = " + "-" * 20_000 + "1", {}),
    "a huge tensor": ("z = zeros(100000, 100000)", {}),
    "a huge list": ("z = [0] * 10 ** 12", {}),
    "a list that contains itself": ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\na == b", {}),
    "echoing a list nested too deeply": ("d = []\nfor k in range(300000):\n    d = [d]\nd", {}),
    "too many steps": ("while True:\n    pass", {"max_steps": 1000}),
    "too long": ("while True:\n    pass", {"timeout": 0.5}),
    "too much output": ("while True:\n    print(n)", {"max_output": 1000}),
    "a nan in a gradient": (
        "with detect_anomaly:\n    z = tensor([0.0], requires_grad=True)\n    grad sqrt(z).sum()",
        {},
    ),
}


@pytest.mark.parametrize("case", OVER_THE_LIMIT)
def test_the_session_survives(case: str) -> None:
    text, limits = OVER_THE_LIMIT[case]
    repl, out, err = repl_with(**limits)
    assert repl.run_cell(text) is Outcome.ERROR
    assert repl.last_error is not None and repl.last_error.span is not None
    assert err.getvalue().startswith("<cell 2>:")
    assert "Traceback" not in err.getvalue()
    assert_intact(repl, out)


def test_ctrl_c_during_a_running_cell() -> None:
    """A real KeyboardInterrupt, delivered as Ctrl-C is, while a loop runs."""
    repl, out, err = repl_with()
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        outcome = repl.run_cell("i = 0\nwhile True:\n    i += 1")
    finally:
        timer.cancel()
    assert outcome is Outcome.ERROR
    assert repl.last_error is not None and repl.last_error.kind == "KeyboardInterrupt"
    assert "<cell 2>:" in err.getvalue() and "KeyboardInterrupt: interrupted" in err.getvalue()
    assert repl.session.globals.vars["i"] > 0  # what the loop did before Ctrl-C stays
    assert_intact(repl, out)


def test_ctrl_c_inside_a_function_shows_where_it_stopped() -> None:
    repl, out, err = repl_with()
    repl.run_cell("def spin():\n    while True:\n        pass\n")
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        assert repl.run_cell("spin()") is Outcome.ERROR
    finally:
        timer.cancel()
    assert "DG call stack" in err.getvalue() and "spin" in err.getvalue()
    assert_intact(repl, out)


def test_a_lowered_memory_budget_is_read_at_each_check() -> None:
    repl, out, err = repl_with()
    before = guards.max_elements
    guards.max_elements = 10
    try:
        assert repl.run_cell("z = zeros(4, 4)") is Outcome.ERROR
    finally:
        guards.max_elements = before
    assert "more than the limit of 10" in err.getvalue()
    assert_intact(repl, out)


def test_vars_and_signatures_of_values_too_deep_to_show() -> None:
    repl, out, err = repl_with()
    assert repl.run_cell("d = []\nfor k in range(300000):\n    d = [d]\ndef g(a=d):\n    return a\n") is Outcome.OK
    assert repl.run_cell(":vars") is Outcome.OK
    assert "d  list" in out.getvalue() and "<a list too deeply nested to show>" in out.getvalue()
    assert repl.run_cell("g(1, 2, 3)") is Outcome.ERROR  # its help line shows the signature
    assert "def g(a=<a list too deeply nested to show>)" in err.getvalue()
    assert_intact(repl, out)
