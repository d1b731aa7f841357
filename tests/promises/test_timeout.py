"""`--timeout` holds whatever the program does: while it is parsed, inside one long NumPy call, at
nested breakpoints, on any thread, and with no Unix signal to lean on (Windows has none).

The watchdog (interpreter/host/watchdog.py) raises the stop in the program's thread; these tests
check each place a stop could fail to arrive, or arrive where it should not.
"""

from __future__ import annotations

import gc
import io
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dglang.autograd import Tensor, hooks
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host import guards
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.library.runtime import Builtin

ROOT = Path(__file__).resolve().parents[2]
SPIN = "x = 0\nwhile True:\n    x = x + 1\n"


def session_with(**limits: object) -> tuple[Session, io.StringIO]:
    out = io.StringIO()
    return Session(out=out, limits=Limits(**limits)), out  # type: ignore[arg-type]


def timeout_error(session: Session, text: str, name: str = "t.dg") -> DGError:
    with pytest.raises(DGError) as caught:
        session.run(text, name)
    error = caught.value
    assert error.kind == "TimeoutError" and error.span is not None, error
    return error


def test_parsing_counts_toward_the_timeout() -> None:
    """Half a megabyte of statements takes lark ten seconds or more to parse."""
    text = "".join(f"x{i} = {i} + 2 * ({i} - 1)\n" for i in range(16_000))
    session, _ = session_with(timeout=0.5)
    start = time.monotonic()
    error = timeout_error(session, text)
    assert time.monotonic() - start < 5
    assert "still reading" in error.message and error.span.line == 1
    session.run("print(1)", "t.dg")  # the session goes on


def slices_at_the_stop(
    session: Session, monkeypatch: pytest.MonkeyPatch, program: str, count_slices: Callable[[list[int]], None]
) -> tuple[DGError, int, int]:
    """`program` run to its timeout, `count_slices(slices)` having made each slice of the long op
    append to `slices`: the error, how many slices had begun when the stop was sent (it is sent
    once), and how many began in all."""
    from dglang.interpreter.host.watchdog import Watchdog

    slices: list[int] = []
    begun_at_stop: list[int] = []
    fire = Watchdog._fire

    def fire_and_count(self: Watchdog, stop: type, now: float) -> None:
        begun_at_stop.append(len(slices))
        fire(self, stop, now)

    count_slices(slices)
    monkeypatch.setattr(Watchdog, "_fire", fire_and_count)
    error = timeout_error(session, program)
    monkeypatch.undo()
    assert len(begun_at_stop) == 1, begun_at_stop
    return error, begun_at_stop[0], len(slices)


@pytest.mark.slow
def test_a_huge_matrix_product_is_stopped_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """One 6000x6000 product is several seconds in one call into C, where nothing can stop it;
    DG computes it a slice of rows at a time, so the stop arrives between two slices. Checked by
    what was counted, not by a clock (on a busy machine each slice takes longer): once the stop
    is sent, no further slice begins, and the product was under way when it came."""
    session, _ = session_with()
    session.run("a = ones(6000, 6000)", "t.dg")
    session.limits.timeout = 1.0
    real = np.matmul

    def count_products(slices: list[int]) -> None:
        def counting(*args: object, **kwargs: object) -> object:
            slices.append(1)
            return real(*args, **kwargs)

        monkeypatch.setattr(np, "matmul", counting)

    error, at_stop, begun = slices_at_the_stop(session, monkeypatch, "b = a @ a\nprint(b.shape)", count_products)
    assert error.span.line == 1 and "b" not in session.globals.vars
    # by_slices: one empty product checks the shapes, then 26 slices of 2**33 multiply-adds at most
    assert 1 < at_stop <= 27 and begun == at_stop, (at_stop, begun)  # no slice began after the stop was sent


@pytest.mark.slow
def test_a_pooling_of_large_overlapping_windows_is_stopped_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """avg_pool2d of a 1024 x 1024 image with a 512 x 512 kernel, stride 1, is 68 billion additions:
    one call into C ran for about 14 s past a 2 s timeout. DG sums the windows a slice at a time
    (autograd/pooling.py: in_slices), so the stop arrives between two: no slice begins after it."""
    from dglang.autograd import pooling

    session, _ = session_with()
    session.run("x = randn(1, 1, 1024, 1024)", "t.dg")
    session.limits.timeout = 1.0
    real = pooling.in_slices

    def count_window_slices(slices: list[int]) -> None:
        def counting(cols: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
            def counted(part: np.ndarray) -> np.ndarray:
                slices.append(1)
                return fn(part)

            return real(cols, counted)

        monkeypatch.setattr(pooling, "in_slices", counting)

    program = "y = avg_pool2d(x, 512, stride=1)\nprint(y.shape)"
    error, at_stop, begun = slices_at_the_stop(session, monkeypatch, program, count_window_slices)
    assert error.span.line == 1 and "y" not in session.globals.vars
    # 513 rows of 513 windows, 64 windows (16M additions) a slice: 9 slices a row, 4,617 in all
    assert 1 < at_stop < 4617 and begun == at_stop, (at_stop, begun)  # no slice began after the stop was sent


def test_products_are_computed_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = np.matmul

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(guards, "SLICE_WORK", 10 * 40 * 30)  # ten rows a slice
    small = guards.Guards(None)
    small.long_product = 1000  # a product this small is worth a look
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((95, 40)), rng.standard_normal((40, 30))
    monkeypatch.setattr(np, "matmul", counting)
    before = hooks.install(small)
    try:
        result = (Tensor(a) @ Tensor(b)).data
        sliced = len(calls)
        hooks.install(hooks.Hooks())  # the engine alone: one call to NumPy
        calls.clear()
        assert np.array_equal((Tensor(a) @ Tensor(b)).data, result) and len(calls) == 1
    finally:
        hooks.install(before)
    monkeypatch.undo()
    assert np.allclose(result, a @ b) and sliced > 5  # the empty probe and ten slices


HARD_STOP = """
import sys, time
from dglang.interpreter.library import builtin_table as builtins
from dglang.interpreter.frontends.cli import main
make = builtins.make_builtins
def with_nap(*args, **kwargs):
    table = make(*args, **kwargs)
    table["nap"] = builtins.Builtin("nap", lambda s: time.sleep(s), "nap(seconds)")  # one call into C
    return table
builtins.make_builtins = with_nap
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow  # (runs into the clock)
def test_the_command_line_stops_a_program_stuck_in_one_call(tmp_path: Path) -> None:
    """The last resort: the program's thread does not come back from C, so `dg` prints the error
    where the program was and exits."""
    program = tmp_path / "stuck.dg"
    program.write_text('print("before")\nnap(60)\nprint("after")\n')
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", HARD_STOP, "--timeout", "0.5", str(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert time.monotonic() - start < 20
    assert done.returncode == cli.EXIT_RUNTIME, done.stderr
    assert done.stdout == "before\n"
    assert done.stderr.startswith(f"{program}:2:1: TimeoutError: the program ran longer than 0.5 seconds")


@pytest.mark.slow  # (runs into the clock)
def test_nested_breakpoints_stop_the_clock() -> None:
    """A cell typed at a breakpoint calls a function that pauses again: the time spent at both
    prompts is not the program's (the inner pause used to restart the clock with no time left)."""
    session, out = session_with(timeout=0.4)
    pauses = []

    def person(context: object) -> None:
        pauses.append(context)
        time.sleep(0.3)
        if len(pauses) == 1:
            session.execute(session.compile("g()", "<cell>"), context.env)  # type: ignore[attr-defined]
        time.sleep(0.3)

    session.on_breakpoint = person
    session.run("def g():\n    breakpoint()\nbreakpoint()\nprint('done')\n", "t.dg")
    assert out.getvalue() == "done\n" and len(pauses) == 2
    error = timeout_error(session, "breakpoint()\n" + SPIN)  # the clock runs again afterwards
    assert error.span.line in (3, 4)


@pytest.mark.slow  # (runs into the clock)
def test_the_time_left_at_a_breakpoint_is_kept() -> None:
    session, _ = session_with(timeout=0.6)
    session.on_breakpoint = lambda context: time.sleep(1.0)
    start = time.monotonic()
    timeout_error(session, "i = 0\nwhile i < 10 ** 4:\n    i = i + 1\nbreakpoint()\n" + SPIN)
    assert time.monotonic() - start > 1.0  # the second spent at the prompt did not count


@pytest.fixture
def no_unix_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    """What Windows lacks: SIGALRM and interval timers."""
    for name in ("SIGALRM", "setitimer", "getitimer", "alarm", "ITIMER_REAL"):
        monkeypatch.delattr(signal, name, raising=False)


@pytest.mark.usefixtures("no_unix_signals")
def test_timeout_on_the_command_line_without_unix_signals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "spin.dg"
    path.write_text(SPIN)
    assert cli.main(["--timeout", "0.3", str(path)]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:") and "TimeoutError" in err


@pytest.mark.usefixtures("no_unix_signals")
def test_the_piped_repl_without_unix_signals(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "_stdin_lines", None)
    monkeypatch.setattr(sys, "stdin", io.StringIO("n = 41\nwhile True:\n    pass\n\nprint(n + 1)\n"))
    assert cli.main(["--timeout", "0.3"]) == cli.EXIT_RUNTIME  # a cell failed
    captured = capsys.readouterr()
    assert captured.err.startswith("<cell 2>:") and "TimeoutError" in captured.err
    assert captured.out == "42\n"  # the next cell ran, with n


def test_timeout_on_another_thread() -> None:
    """A notebook kernel or a grader runs DG in a worker thread, where no signal arrives."""
    session, out = session_with(timeout=0.3)
    errors: list[DGError] = []

    def work() -> None:
        try:
            session.run(SPIN, "t.dg")
        except DGError as e:
            errors.append(e)
        session.run("print(x > 0)", "t.dg")

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(30)
    assert not thread.is_alive() and len(errors) == 1 and errors[0].kind == "TimeoutError"
    assert out.getvalue() == "True\n"


@pytest.mark.parametrize("value", ["1e300", "inf", "nan", "0", "-1", "1e7"])
def test_timeouts_the_clock_cannot_keep_are_usage_errors(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.dg"
    path.write_text("print(1)\n")
    assert cli.main(["--timeout", value, str(path)]) == cli.EXIT_USAGE
    assert capsys.readouterr().err.startswith("dg: UsageError: argument --timeout: must be above 0 and at most")


def test_a_tiny_timeout_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.dg"
    path.write_text("print(1)\nprint(2)\n")
    for _ in range(20):  # wherever the stop lands: before the first statement, in one, between two
        code = cli.main(["--timeout", "1e-7", str(path)])
        err = capsys.readouterr().err
        assert code == cli.EXIT_RUNTIME and err.startswith(f"{path}:") and "TimeoutError" in err, err


LARK_LOADING = """
import sys
from dglang.interpreter.frontends.cli import main
from dglang.interpreter.host.watchdog import Watchdog

pause, resume = Watchdog.pause, Watchdog.resume
GRAMMAR = "dglang.interpreter.syntax.grammar"  # lark builds DG's parser when this is imported
events = []

def noting_pause(self):
    events.append(("pause", GRAMMAR in sys.modules))
    pause(self)

def noting_resume(self):
    resume(self)
    events.append(("resume", GRAMMAR in sys.modules))

Watchdog.pause, Watchdog.resume = noting_pause, noting_resume
code = main(["--timeout", "60", sys.argv[1]])
print(code, events)
"""


def test_lark_starting_up_is_not_the_programs_time(tmp_path: Path) -> None:
    """A syntax error is worded by lark, which builds its parser the first time it is needed (a
    few hundred milliseconds): DG's start-up, which a short timeout must not count. Checked by
    when the run's clock stops, not by a clock of our own (a busy machine can take a short
    timeout's worth of time anywhere): lark is loaded while the clock is stopped, in a fresh
    process where nothing has loaded it yet, and the clock is stopped nowhere else."""
    program = tmp_path / "bad.dg"
    program.write_text("x = (1 +\n")
    done = subprocess.run(
        [sys.executable, "-c", LARK_LOADING, str(program)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert "SyntaxError" in done.stderr, done.stderr
    expected = [("pause", False), ("resume", True)]
    assert done.stdout.strip() == f"{cli.EXIT_SYNTAX} {expected}", done.stdout + done.stderr


def test_the_message_is_not_held_up_by_a_rescan_of_the_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop that grows a graph until its --timeout: Python's collector settings, set back as the
    run ended, started a collection over the whole graph before the error was printed (a second
    late at ten million nodes). Checked by what happens in between, not by a clock."""

    from dglang.interpreter.host.watchdog import Watchdog

    path = tmp_path / "grow.dg"
    path.write_text("w = tensor(1.0, requires_grad=True)\ny = w\nwhile True:\n    y = y * 1.0000001 + w\n")
    events: list[str] = []
    fire = Watchdog._fire

    def fire_and_note(self: Watchdog, stop: type, now: float) -> None:
        events.append("stopped")
        fire(self, stop, now)

    def note_collection(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] >= 1:
            events.append(f"collection of generation {info['generation']}")

    monkeypatch.setattr(Watchdog, "_fire", fire_and_note)
    monkeypatch.setattr(cli, "report", lambda error, debug=False: events.append(error.kind))
    gc.callbacks.append(note_collection)
    try:
        assert cli.main(["--timeout", "1", str(path)]) == cli.EXIT_RUNTIME
    finally:
        gc.callbacks.remove(note_collection)
    after = events[events.index("stopped") :]
    assert after[:2] == ["stopped", "TimeoutError"], after


class SlowToFinalize:
    """Garbage whose finalizer takes a while: the stop arrives while it runs, and Python ignores
    an exception raised in a finalizer (it prints "Exception ignored in ...")."""

    def __init__(self) -> None:
        self.cycle = self  # only the collector frees it, in the program's thread

    def __del__(self) -> None:
        start = time.monotonic()
        while time.monotonic() - start < 0.4:
            pass


def finalize_slowly() -> None:
    SlowToFinalize()
    gc.collect()


def test_a_stop_ignored_by_a_finalizer_is_raised_again() -> None:
    """Without raising it again the run would never end (the watchdog stopped a run once); the
    step budget ends it here if so, with a LimitError instead of the TimeoutError."""
    session, _ = session_with(timeout=0.1, max_steps=3_000_000)
    session.add_builtins({"finalize_slowly": Builtin("finalize_slowly", finalize_slowly, "finalize_slowly()")})
    error = timeout_error(session, "finalize_slowly()\nwhile True:\n    pass\n")
    assert "longer than 0.1 seconds" in error.message
