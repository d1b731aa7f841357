"""`--max-memory`: a run may not make DG's process hold more than its budget, however the memory is
taken (one large tensor, many small ones kept in a list, a graph growing in a loop, a comparison
that broadcasts), and the error is located with the session intact and its memory given back.

Budgets here are set a little above what the test process already holds, so each test allocates
a few hundred megabytes at most.
"""

from __future__ import annotations

import gc
import io
from pathlib import Path

import pytest

from dglang.autograd import hooks
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends import cli, sessions
from dglang.interpreter.frontends.repl import Outcome, Repl
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host import allocator, memory
from dglang.interpreter.host.guards import Guards
from dglang.interpreter.host.limits import Limits

MiB = 1 << 20


def held() -> int:
    gc.collect()
    value = memory.resident_bytes()
    assert value is not None
    return value


def budget_session(headroom: int) -> tuple[Session, io.StringIO, int]:
    """A session whose budget is `headroom` bytes above what the process holds now."""
    out = io.StringIO()
    budget = held() + headroom
    return Session(out=out, limits=Limits(max_memory=budget)), out, budget


def memory_error(session: Session, text: str) -> DGError:
    with pytest.raises(DGError) as caught:
        session.run(text, "m.dg")
    error = caught.value
    assert error.kind == "MemoryError" and error.span is not None, error
    assert "--max-memory" in (error.help or "")
    return error


def test_the_resident_size_is_read_and_follows_allocations() -> None:
    import mmap

    # Fresh pages from the system: a NumPy array may reuse memory the process already holds (DG
    # asks the allocator to keep freed memory, so earlier tests' arrays may still be resident).
    before = held()
    block = mmap.mmap(-1, 50 * MiB)
    block.write(b"\1" * (50 * MiB))
    assert held() - before > 40 * MiB
    block.close()
    assert memory.default_budget() <= 4 << 30


def test_a_large_tensor_over_the_budget_is_refused_before_it_is_made() -> None:
    session, _, budget = budget_session(100 * MiB)
    error = memory_error(session, "a = 1\nb = zeros(4000, 4000)")  # 122 MiB
    assert (error.span.line, error.span.column) == (2, 5) and "needs 122 MiB" in error.message
    assert held() < budget


def test_a_comparison_that_broadcasts_is_checked() -> None:
    """A row against a column makes a bool per pair: this one would be 100 MB."""
    session, _, _ = budget_session(50 * MiB)
    error = memory_error(session, "m = ones(1, 10000) < ones(10000, 1)")
    assert error.span.column == 5 and "the result of '<'" in error.message


def test_the_comparison_of_the_issue_is_refused() -> None:
    session, _, _ = budget_session(4 << 30)
    with pytest.raises(DGError) as caught:
        session.run("m = ones(1, 40000) < ones(40000, 1)", "m.dg")  # 1.6 billion bools
    assert caught.value.kind == "ValueError" and "1,600,000,000 elements" in caught.value.message


@pytest.mark.parametrize("reduction", ["any(axis=2)", "all(axis=2)", "sum(axis=2)", "sum(axis=2, keepdims=True)"])
def test_a_reduction_over_an_empty_axis_is_checked_before_it_allocates(reduction: str) -> None:
    """A reduction makes its result from nothing when the axis is empty: zeros(4000, 4000, 0) holds
    no element, and .any(axis=2) is 16 million of them (.sum: 122 MiB)."""
    session, _, budget = budget_session(10 * MiB)
    error = memory_error(session, f"z = zeros(4000, 4000, 0)\nr = z.{reduction}")
    assert (error.span.line, error.span.column) == (2, 5) and "the result of" in error.message
    assert held() < budget
    session, _, _ = budget_session(4 << 30)
    with pytest.raises(DGError) as caught:  # the issue's: 1.6 billion, past the tensor limit
        session.run(f"z = zeros(40000, 40000, 0)\nr = z.{reduction}", "r.dg")
    assert caught.value.kind in ("ValueError", "MemoryError") and "would have shape" in caught.value.message


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        "xs = []\nwhile True:\n    xs.append(ones(100, 1000) + 1)",  # 800 kB each: too small to check one by one
        "x = tensor(1.0, requires_grad=True)\ny = x\nwhile True:\n    y = y * 1.0000001 + 0.5",  # a graph
        "xs = []\nfor i in range(10 ** 9):\n    xs.append([i] * 100)",  # plain lists
    ],
    ids=["tensors kept in a list", "a graph growing in a loop", "lists"],
)
def test_memory_taken_a_little_at_a_time_is_stopped(text: str) -> None:
    session, _, budget = budget_session(150 * MiB)
    memory_error(session, text)
    session.globals.vars.clear()
    assert held() < budget + 64 * MiB  # stopped within a few milliseconds of crossing the limit


def test_the_repl_survives_and_gets_its_memory_back() -> None:
    out, err = io.StringIO(), io.StringIO()
    budget = held() + 150 * MiB
    repl = Repl(Session(out=out, limits=Limits(max_memory=budget)), err=err)
    assert repl.run_cell("n = 41\ndef grow():\n    xs = []\n    while True:\n        xs.append(ones(100, 1000) + 1)\n")
    assert repl.run_cell("grow()") is Outcome.ERROR and "MemoryError" in err.getvalue()
    assert held() < budget - 100 * MiB, "the list the function built was kept alive (by the error?)"
    # A global list stays, and the session is over its budget; a cell that frees it still runs.
    assert repl.run_cell("xs = []\nwhile True:\n    xs.append(ones(100, 1000) + 1)") is Outcome.ERROR
    assert repl.run_cell("print(n + 1, len(xs) > 10)") is Outcome.OK
    assert repl.run_cell("xs = []") is Outcome.OK
    assert repl.run_cell("ys = [ones(100, 1000) for i in range(50)]\nprint(len(ys))") is Outcome.OK
    assert out.getvalue() == "42 True\n50\n"
    assert type(hooks.installed) is hooks.Hooks and not isinstance(
        hooks.installed, Guards
    )  # the run's, not left behind


def test_the_budget_holds_on_an_os_that_cannot_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no way to read the process's memory, the per-tensor limit still holds and nothing fails."""
    session, out, _ = budget_session(10 * MiB)
    monkeypatch.setattr(memory, "_chosen", lambda: None)
    session.run("a = zeros(1000, 1000)\nprint(a.shape)", "m.dg")
    assert out.getvalue() == "(1000, 1000)\n"


def test_the_peak_is_the_fallback_where_the_os_has_no_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_chosen", None)
    monkeypatch.setattr(memory, "READERS", {})
    assert (memory.resident_bytes() or 0) >= held() // 2  # the peak: at least what is held now


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2G", 2 << 30), ("500M", 500 << 20), ("1.5GiB", 3 << 29), ("4096k", 4 << 20), ("1000", 1000), ("0", None)],
)
def test_max_memory_on_the_command_line(value: str, expected: int | None, tmp_path: Path) -> None:
    path = tmp_path / "p.dg"
    path.write_text("print(1)\n")
    args = cli.parser().parse_args(["--max-memory", value, str(path)])
    assert cli.new_session(args).limits.max_memory == expected


@pytest.mark.parametrize("value", ["lots", "-1", "5X", "1e30"])
def test_bad_memory_sizes_are_usage_errors(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.dg"
    path.write_text("print(1)\n")
    assert cli.main([f"--max-memory={value}", str(path)]) == cli.EXIT_USAGE
    assert capsys.readouterr().err.startswith("dg: UsageError: argument --max-memory: must be a size")


def test_a_memory_bomb_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bomb.dg"
    path.write_text("xs = []\nwhile True:\n    xs.append(randn(300, 300))\n")
    assert cli.main(["--max-memory", f"{(held() + 150 * MiB) // MiB}M", str(path)]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:") and "MemoryError" in err


# ---- the allocator keeps freed memory for the next op (host/allocator.py) ------------------------
class FakeMallopt:
    """glibc's mallopt as ctypes gives it (argtypes and restype are set on it), noting each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, option: int, value: int) -> int:
        self.calls.append((option, value))
        return 1


class FakeLibc:
    def __init__(self) -> None:
        self.mallopt = FakeMallopt()


def test_glibc_is_told_to_keep_freed_memory_unless_its_own_variables_say(monkeypatch: pytest.MonkeyPatch) -> None:
    libc = FakeLibc()
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda name: libc)
    monkeypatch.setattr(allocator.os, "confstr", lambda name: "glibc 2.36")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "0")  # the person's own setting wins
    assert allocator.keep_freed_memory()
    assert libc.mallopt.calls == [(allocator.M_MMAP_THRESHOLD, allocator.MMAP_THRESHOLD)]
    monkeypatch.setattr(allocator.os, "confstr", lambda name: None)  # musl: no such setting
    assert not allocator.keep_freed_memory()


def test_every_front_end_s_session_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    kept: list[bool] = []
    monkeypatch.setattr(sessions, "keep_freed_memory", lambda: kept.append(True))
    Session(out=io.StringIO())
    assert kept == [True]


def test_a_session_and_what_it_made_go_when_the_session_goes() -> None:
    """A process that makes many sessions (a test suite, a script grading in one process) must get
    each one's memory back: nothing outside a session may keep it, the tools it used included (the
    pictures' state, the static functions it made and their traces)."""
    import weakref

    from dglang.interpreter.seeing.tools import install

    def used() -> weakref.ref:
        session = Session(out=io.StringIO())
        install(session)  # the pictures, as the REPL, the kernel and `dg graph` have them
        session.run(
            "W = tensor([1.0, -2.0], requires_grad=True)\n"
            "def f(x):\n    return (x * W).tanh().sum()\n"
            "F = static(f)\nloss = F(tensor([0.5, 0.25]))\ngrad loss\nprint(graph(loss))\n",
            "made.dg",
        )
        assert "static" in session.tools and "seeing" in session.tools
        return weakref.ref(session)

    gone = used()
    gc.collect()
    assert gone() is None
