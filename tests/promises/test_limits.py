"""Limits on what one program may use: call depth, steps, time, output; and anomaly detection.

Each limit ends the program with a located DG error, and the session goes on working.
"""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.semantics.evaluator import Compiler
from dglang.interpreter.semantics.resolver import Resolution

ROOT = Path(__file__).resolve().parents[2]


def session_with(**limits: object) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    return Session(out=out, limits=Limits(**limits)), out  # type: ignore[arg-type]


def error_of(session: Session, text: str) -> DGError:
    with pytest.raises(DGError) as caught:
        session.run(text, "limits.dg")
    assert caught.value.span is not None
    return caught.value


# ---- call depth ------------------------------------------------------------------------------------
RUNAWAY = {
    "plain": "def f(n):\n    return f(n + 1)\nf(0)",
    "inside an f-string": 'def f(n):\n    return f"{f(n + 1)}"\nf(0)',
    "inside a comprehension": "def f(n):\n    return [f(n + 1) for i in range(1)]\nf(0)",
    "inside a method call": "def f(n):\n    return tensor(1.0).reshape(f(n + 1))\nf(0)",
    "inside an argument list": "def f(n):\n    return max(1, f(n + 1))\nf(0)",
    "two functions in turn": "def f(n):\n    return g(n)\ndef g(n):\n    return f(n + 1)\nf(0)",
    "through a default argument": "def f(n, m=1):\n    return f(n + 1, m=[n])\nf(0)",
}


@pytest.mark.parametrize("case", RUNAWAY)
def test_runaway_recursion_is_a_recursion_error_at_the_default_limit(case: str) -> None:
    """10,000 nested calls (the default) through every kind of expression, in a real process:
    a crash of the process (a C stack overflow) would show as a signal, not exit code 70."""
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "-"],
        input=RUNAWAY[case],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == cli.EXIT_RUNTIME, result.stderr[-2000:]
    assert "RecursionError: more than 10,000 nested calls" in result.stderr
    assert "Traceback" not in result.stderr


def test_real_recursion_within_the_limit_works() -> None:
    session, out = session_with()
    session.run("def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nprint(depth(9990))", "limits.dg")
    assert out.getvalue() == "9990\n"


# ---- steps ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("i = 0\nwhile True:\n    i += 1", 2),
        ("for i in range(10 ** 9):\n    pass", 1),
        ("xs = [i for i in range(10 ** 6)]", 1),
        ("def f(n):\n    return f(n + 1) if n < 5000 else 0\nf(0)", 2),
    ],
)
def test_max_steps_stops_loops_calls_and_comprehensions(text: str, line: int) -> None:
    session, _ = session_with(max_steps=1000)
    error = error_of(session, text)
    assert error.kind == "LimitError" and "1,000 steps" in error.message
    assert error.span is not None and error.span.line == line
    assert error.help is not None and "--max-steps" in error.help


def test_steps_count_iterations_and_calls_not_expressions() -> None:
    session, out = session_with(max_steps=10)
    # 5 iterations + 5 calls = 10 steps, however many expressions each runs
    session.run("def f(x):\n    return x * 2 + 1 - 3 / 4\nfor i in range(5):\n    y = f(i) * 0 + i", "limits.dg")
    with pytest.raises(DGError):  # one more step is too many
        session.run("for i in range(5):\n    y = f(i) + f(i) + 1", "limits.dg")
    assert out.getvalue() == ""


def test_without_a_step_limit_nothing_is_counted() -> None:
    """The promise that --max-steps costs nothing when it is off: a loop has no step counter to call."""
    session = Session(out=io.StringIO())
    compiler = Compiler(session.context, Resolution())
    assert compiler.step_counter(None) is None
    session.run("for i in range(100):\n    pass", "limits.dg")
    assert session.context.steps == 0


def test_each_repl_cell_gets_the_whole_step_budget() -> None:
    session, _ = session_with(max_steps=100)
    for _ in range(3):
        session.run("for i in range(90):\n    pass", "limits.dg")


# ---- time --------------------------------------------------------------------------------------------
def watchdogs() -> list[threading.Thread]:
    """The watchdog threads still running, given a moment to notice that their run has ended."""
    for thread in threading.enumerate():
        if thread.name == "dg-watchdog":
            thread.join(5)
    return [t for t in threading.enumerate() if t.name == "dg-watchdog"]


def test_timeout_stops_a_program_where_it_is() -> None:
    session, _ = session_with(timeout=0.3)
    handler = signal.getsignal(signal.SIGINT)
    error = error_of(session, "x = 1\nwhile True:\n    x = x + 1")
    assert error.kind == "TimeoutError" and "0.3 seconds" in error.message
    assert error.span is not None and error.span.line in (2, 3)
    assert "--timeout" in format_error(error)
    assert session.watchdog is None and watchdogs() == []  # the watch is over
    assert signal.getsignal(signal.SIGINT) == handler  # no signal handler was touched
    session.run("print(x > 1)", "limits.dg")  # the session goes on, with x


def test_a_quick_program_is_not_touched_by_the_timeout() -> None:
    session, out = session_with(timeout=5)
    session.run("print(sum([i for i in range(1000)]))", "limits.dg")
    assert out.getvalue() == "499500\n"
    assert watchdogs() == []


@pytest.mark.slow  # (runs into the clock)
def test_time_at_a_breakpoint_does_not_count() -> None:
    paused = []

    def slow_reader(context: object) -> None:  # a person at the (dg) prompt, taking a second
        paused.append(context)
        time.sleep(0.6)

    session, out = session_with(timeout=0.4)
    session.on_breakpoint = slow_reader
    session.run("breakpoint()\nprint('done')", "limits.dg")
    assert out.getvalue() == "done\n" and len(paused) == 1
    error = error_of(session, "breakpoint()\nwhile True:\n    pass")  # the clock runs again after it
    assert error.kind == "TimeoutError"


def test_timeout_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "spin.dg"
    path.write_text("while True:\n    pass\n")
    assert cli.main(["--timeout", "0.2", str(path)]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:") and "TimeoutError" in err


# ---- output ------------------------------------------------------------------------------------------
def test_runaway_output_stops_with_a_clear_error() -> None:
    session, out = session_with(max_output=1000)
    error = error_of(session, 'while True:\n    print("spam")')
    assert error.kind == "LimitError" and "1,000 bytes" in error.message
    assert error.span is not None and error.span.line == 2
    assert len(out.getvalue()) <= 1000
    session.run('print("still here")', "limits.dg")  # each run has its own budget
    assert out.getvalue().endswith("still here\n")


def test_output_counts_bytes_not_characters() -> None:
    session, _ = session_with(max_output=10)
    assert error_of(session, 'print("€€€€")').kind == "LimitError"  # 4 characters, 12 bytes and a newline


def test_max_output_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "spam.dg"
    path.write_text('for i in range(100):\n    print("0123456789")\n')
    assert cli.main(["--max-output", "100", str(path)]) == cli.EXIT_RUNTIME
    assert "LimitError" in capsys.readouterr().err
    assert cli.main(["--max-output", "0", str(path)]) == cli.EXIT_OK


# ---- anomaly detection -------------------------------------------------------------------------------
SQRT_AT_ZERO = """\
x = tensor([0.0, 1.0], requires_grad=True)
def f(v):
    return sqrt(v)
y = f(x) * 2
grad y.sum()
"""


def test_without_detection_a_nan_gradient_passes_silently() -> None:
    session, _ = session_with()
    session.run(SQRT_AT_ZERO, "limits.dg")
    assert session.globals.vars["x"].grad.tolist()[0] == float("inf")


def test_detect_anomaly_names_the_op_and_its_line() -> None:
    session = Session(out=io.StringIO(), detect_anomaly=True)
    error = error_of(session, SQRT_AT_ZERO)
    assert error.kind == "GradError"
    assert "Sqrt" in error.message and "f()" in error.message and "inf" in error.message
    assert error.span is not None and error.span.line == 3  # where sqrt is, not where grad is
    assert recording.listeners == ()  # the check is gone after the run


def test_with_detect_anomaly_checks_only_inside_the_block() -> None:
    session, _ = session_with()
    error = error_of(session, SQRT_AT_ZERO.replace("grad y.sum()", "with detect_anomaly:\n    grad y.sum()"))
    assert error.span is not None and error.span.line == 3
    assert recording.listeners == ()
    session.run("z = log(x).sum()\ngrad z", "limits.dg")  # outside the block: no check


@pytest.mark.parametrize(
    ("text", "op", "line"),
    [
        ("x = tensor([0.0, 1.0], requires_grad=True)\ny = log(x)\nz = y.sum()\ngrad z", "Log", 2),
        ("x = tensor([1.0, 2.0], requires_grad=True)\nd = tensor([0.0, 1.0])\ny = (x / d)\ngrad y.sum()", "Div", 3),
        ("x = tensor([0.0, 4.0], requires_grad=True)\ny = x ** 0.5\ngrad y.sum()", "Pow", 2),
        ("x = tensor([1000.0], requires_grad=True)\ngrad exp(x).sum()", "Exp", 2),
    ],
)
def test_detect_anomaly_finds_the_first_bad_step(text: str, op: str, line: int) -> None:
    session = Session(out=io.StringIO(), detect_anomaly=True)
    error = error_of(session, text)
    assert op in error.message and error.span is not None and error.span.line == line


def test_detect_anomaly_on_the_command_line_with_a_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.dg"
    path.write_text(SQRT_AT_ZERO)
    assert cli.main([str(path)]) == cli.EXIT_OK
    assert cli.main(["--detect-anomaly", "--trace", str(path)]) == cli.EXIT_RUNTIME
    captured = capsys.readouterr()
    assert f"{path}:3:12: GradError" in captured.err
    assert "[trace]" in captured.out  # the tracer still sees the steps before the bad one


def test_a_finite_backward_passes_the_check() -> None:
    session = Session(out=io.StringIO(), detect_anomaly=True)
    session.run("x = tensor([1.0, 2.0], requires_grad=True)\ngrad (x * x).sum()\nprint(x.grad)", "limits.dg")


# ---- the command line and the README agree ---------------------------------------------------------------
@pytest.mark.parametrize(
    "option", ["--max-steps", "--timeout", "--max-memory", "--max-output", "--allow-path", "--detect-anomaly"]
)
def test_each_limit_option_is_in_help_and_readme(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert option in capsys.readouterr().out
    table = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `dg")]
    assert any(option in row for row in table), f"{option} is missing from the README's command-line table"


@pytest.mark.parametrize(
    "argv", [["--max-steps", "0"], ["--timeout", "-1"], ["--max-steps", "x"], ["--max-depth", "1000000"]]
)
def test_bad_limit_values_are_usage_errors(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.dg"
    path.write_text("print(1)\n")
    assert cli.main([*argv, str(path)]) == cli.EXIT_USAGE
    assert capsys.readouterr().err.startswith(f"dg: UsageError: argument {argv[0]}: ")
