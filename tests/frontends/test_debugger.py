"""The stepping debugger through a pipe (commands on standard input, as a test or a script gives
them), and the statement events it rests on: compiled only into programs that may pause."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.frontends.debugger import Debugger
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.session import Session

ROOT = Path(__file__).resolve().parents[2]

LOOP = """\
def square(v):
    s = v * v
    return s

total = 0
for i in range(3):
    breakpoint()
    total += square(i)
print("total", total)
"""


PAUSE = ["paused at loop.dg:7:5 in <program>", "  |", "7 |     breakpoint()", "  |     ^^^^^^^^^^^^"]


@pytest.fixture
def loop(tmp_path: Path) -> Path:
    path = tmp_path / "loop.dg"
    path.write_text(LOOP)
    return path


def debug(program: Path, commands: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", program.name],
        input=commands,
        capture_output=True,
        text=True,
        cwd=program.parent,
        timeout=120,
    )


def test_stepping_through_a_loop(loop: Path) -> None:
    result = debug(loop, ":next\n:step\nv\n:next\ns\n:next\n:next\ni\n:continue\n:continue\n")
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        *PAUSE,
        "loop.dg:8 in <program>",  # :next
        "  8 ->     total += square(i)",
        "loop.dg:2 in square",  # :step goes into the call
        "  2 ->     s = v * v",
        "0",
        "loop.dg:3 in square",  # :next, within square
        "  3 ->     return s",
        "0",
        "loop.dg:7 in <program>",  # :next after the return: back in the loop, its next round
        "  7 ->     breakpoint()",
        *PAUSE,  # :next runs breakpoint(), which pauses
        "1",
        *PAUSE,  # :continue: to the breakpoint() of the last round
        "total 5",
    ]


def test_up_and_down_show_the_frames_and_their_variables(loop: Path) -> None:
    result = debug(loop, ":next\n:step\n:up\ni, total\nv\n:where\n:up\n:down\nv = 5\n:down\n:continue\n")
    out = result.stdout
    assert "loop.dg:8 in <program>\n  8 ->     total += square(i)\n(0, 0)\n" in out  # :up: the caller
    assert "NameError: name 'v' is not defined" in result.stderr  # v lives in square, not in the caller
    assert "(shown: the frame of <program> at loop.dg:8; :down goes back)" in out
    assert "(this is the top level: no caller)" in out and "(this is where the program is paused)" in out
    assert out.endswith("total 30\n")  # v = 5 in square's frame: square(0) returned 25


def test_until_and_list(loop: Path) -> None:
    result = debug(loop, ":list\n:until 9\ntotal\n:until 9\n:until 9\ntotal\n")
    lines = result.stdout.splitlines()
    assert lines[4:12] == [
        "  2        s = v * v",
        "  3        return s",
        "  4",
        "  5    total = 0",
        "  6    for i in range(3):",
        "  7 ->     breakpoint()",
        "  8        total += square(i)",
        '  9    print("total", total)',
    ]
    # :until 9 runs the loop on; its breakpoint() still pauses each round, then line 9 is reached
    assert lines[12:] == [
        *PAUSE,
        "0",
        *PAUSE,
        *PAUSE[0:0],
        "loop.dg:9 in <program>",
        '  9 -> print("total", total)',
        "5",
        "total 5",
    ]


def test_break_with_a_condition_and_clear(loop: Path) -> None:
    commands = ":break 8 if i == 2\n:break\n:continue\n:continue\n:continue\ni\n:clear 8\n:break\n:continue\n"
    result = debug(loop, commands)
    out = result.stdout
    assert "breakpoint at loop.dg:8: total += square(i)  (if i == 2)" in out
    assert "loop.dg:8 if i == 2" in out
    assert "paused at loop.dg:8:5 in <program> (breakpoint at line 8)" in out
    assert "\n2\n" in out and "(breakpoints: none)" in out and "(no breakpoints)" in out
    assert out.endswith("total 5\n")


def test_mistaken_commands_are_reported_and_the_pause_goes_on(loop: Path) -> None:
    result = debug(loop, ":until\n:break 4\n:break x\n:steps\n:continue\n:continue\n:continue\n")
    err = result.stderr
    assert "dg: CommandError: usage: :until LINE" in err
    assert "line 4 of loop.dg holds no statement" in err
    assert "usage: :break LINE [if CONDITION]" in err
    assert "no command ':steps'" in err and "did you mean 'step'?" in err
    assert result.stdout.endswith("total 5\n")


def test_help_at_a_pause_says_what_ctrl_d_does(loop: Path) -> None:
    out = debug(loop, ":help\n").stdout
    assert "Paused in <program> at loop.dg:7." in out
    assert "Ctrl-D" in out and "the same as :continue; the program runs on, it does not stop" in out
    assert ":quit" in out and "Stop the program" in out
    for command in (":step", ":next", ":until LINE", ":up", ":down", ":list", ":break LINE [if COND]", ":where"):
        assert command in out


def test_the_end_of_the_input_continues_like_ctrl_d(loop: Path) -> None:
    assert debug(loop, ":step\n").stdout.endswith("total 5\n")


def test_quit_stops_the_program_and_says_so(loop: Path) -> None:
    result = debug(loop, ":next\n:quit\n")
    assert "total 5" not in result.stdout and result.returncode == 130  # it was 0, without a word
    assert result.stderr == "dg: Stopped: the program stopped at the debugger's :quit, before its end\n"


def test_a_pause_in_a_repl_cell_steps_into_a_function_typed_before() -> None:
    cells = "def f(x):\n    y = x + 1\n    return y * 2\n\ndef g():\n    breakpoint()\n    return f(1)\n\ng()\n"
    commands = ":next\n:step\n:next\ny\n:continue\nprint('after')\n"
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter"], input=cells + commands, capture_output=True, text=True
    )
    # f was typed in cell 1, before the cell that paused: :step still goes into it
    assert result.stdout.splitlines()[4:] == [
        "<cell 2>:3 in g",
        "  3 ->     return f(1)",
        "<cell 1>:2 in f",
        "  2 ->     y = x + 1",
        "<cell 1>:3 in f",
        "  3 ->     return y * 2",
        "2",
        "4",
        "after",
    ]


def test_quit_at_a_pause_in_a_repl_cell_stops_only_the_cell() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter"],
        input="breakpoint()\nprint('not reached')\n:quit\nprint('the REPL goes on')\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "(stopped at the debugger's :quit)\nthe REPL goes on\n" in result.stdout


def repl(lines: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter"], input=lines, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_quit_at_a_pause_in_a_loaded_file_stops_only_the_file(loop: Path) -> None:
    result = repl("keep = 42\n:load loop.dg\n:quit\nprint('kept', keep)\n", cwd=loop.parent)
    assert "(stopped at the debugger's :quit)\nkept 42\n" in result.stdout  # it left DG, and `keep` with it
    assert result.returncode == 0


def test_stepping_ends_with_the_cell_it_was_given_in() -> None:
    cells = "def f(a):\n    breakpoint()\n    return a + 1\n\nr = f(1)\n"
    result = repl(cells + ":step\n:step\nprint('next cell', r)\nprint('and the one after')\n")
    out = result.stdout
    assert "next cell 2\nand the one after\n" in out  # the next cell paused at its first statement
    assert "<cell 2>" not in out and "<cell 3>" not in out  # neither paused


# ---- the statement events ----------------------------------------------------------------------
def events_while_running(session: Session, program: str) -> int:
    seen: list[int] = []
    session.context.on_statement = lambda span, env: seen.append(span.line)
    session.run(program)
    return len(seen)


def test_a_program_that_never_pauses_is_compiled_without_statement_events() -> None:
    session = new_session(out=io.StringIO())
    Debugger(iter([])).attach(session)
    assert events_while_running(session, "x = 1\nfor i in range(3):\n    x += i\n") == 0
    # naming breakpoint (even without calling it) compiles the events in
    assert events_while_running(session, "x = 1\nif x > 5:\n    breakpoint()\nfor i in range(3):\n    x += i\n") == 6


def test_without_a_debugger_nothing_is_compiled_in() -> None:
    session = new_session(out=io.StringIO())
    assert events_while_running(session, "breakpoint()\nx = 1\n") == 0


def test_a_condition_that_fails_pauses_and_says_why(loop: Path) -> None:
    result = debug(loop, ":break 8 if nope > 1\n:continue\n:clear\n:continue\n:continue\n")
    assert "the condition `nope > 1` failed (name 'nope' is not defined); pausing" in result.stderr
    assert "(breakpoint at line 8)" in result.stdout


def test_a_pause_repl_runs_cells_without_stopping_at_each_statement(loop: Path) -> None:
    out = debug(loop, ":step\nsquare(3) + square(4)\n:continue\n:continue\n:continue\n").stdout
    assert "\n25\n" in out


@pytest.mark.parametrize("name", [":step", ":next", ":until", ":continue", ":where", ":up", ":down", ":list", ":break"])
def test_the_help_example_of_each_debugger_command_works_at_a_pause(name: str, loop: Path) -> None:
    from dglang.interpreter.library.help import describe

    entry = describe(name)
    assert entry is not None and entry.example
    result = debug(loop, "".join(cell.code + "\n" for cell in entry.example) + ":clear\n:continue\n" * 4)
    assert "CommandError" not in result.stderr and result.stdout.endswith("total 5\n")


def test_what_is_typed_at_a_pause_in_a_static_function_does_not_join_its_trace(tmp_path: Path) -> None:
    """A pause while static(f) traces f: the trace stops (what is typed is not f's), and f runs as it
    is from then on, pausing at every call, where a replay would have run the typed line each time."""
    program = tmp_path / "paused.dg"
    program.write_text("def f(x):\n    y = x * 2\n    breakpoint()\n    return y + 1\ng = static(f)\n"
                       "for i in range(3):\n    print(g(ones(2)).tolist())\n")  # fmt: skip
    result = debug(program, "y = y * 10\n:continue\n:continue\n:continue\n")
    assert [line for line in result.stdout.splitlines() if line.startswith("[")] == [
        "[21.0, 21.0]",
        "[3.0, 3.0]",
        "[3.0, 3.0]",
    ]
    assert result.stdout.count("paused at paused.dg:3:5 in f") == 3
    assert "Note: static(f) runs f dynamically: it paused in the debugger" in result.stderr


def test_a_breakpoint_condition_that_cannot_be_read_and_a_clear_of_nothing_are_refused(loop: Path) -> None:
    result = debug(loop, ":break 8 if i ==\n:clear 8\n:clear x\n:continue\n")
    err = result.stderr
    assert "the condition `i ==` cannot be read: unexpected end of input" in err  # it paused at every pass
    assert "no breakpoint at line 8 of loop.dg" in err and "usage: :clear [LINE]" in err
    assert "(breakpoint at line 8)" not in result.stdout and result.stdout.endswith("total 5\n")


def test_reset_at_a_pause_keeps_the_paused_program_s_variables(loop: Path) -> None:
    result = debug(loop, ":reset\n:continue\n:continue\n:continue\n")
    assert ":reset at a pause would clear the variables the paused program uses" in result.stderr
    assert result.stdout.endswith("total 5\n")  # it was a NameError about `total`


def test_step_goes_into_a_function_of_an_imported_module(tmp_path: Path) -> None:
    (tmp_path / "helpers.dg").write_text("def double(v):\n    w = v * 10\n    return w\n")
    (tmp_path / "usemod.dg").write_text("import helpers\nbreakpoint()\na = helpers.double(4)\nprint(a)\n")
    out = debug(tmp_path / "usemod.dg", ":step\n:step\n:continue\n").stdout
    assert "helpers.dg:2 in double\n  2 ->     w = v * 10\n" in out and out.endswith("40\n")  # it went over it


def test_a_command_that_takes_nothing_refuses_what_is_typed_after_it(loop: Path) -> None:
    """`:up 2` and `:step 3` went up one frame and stepped once, as if the count were not there."""
    result = debug(loop, ":step 3\n:vars zz\n:continue\n:continue\n:continue\n")
    assert "usage: :step (it takes nothing after it)" in result.stderr
    assert "usage: :vars (it takes nothing after it)" in result.stderr
    assert "loop.dg:8 in <program>" not in result.stdout and result.stdout.endswith("total 5\n")  # it did not step
