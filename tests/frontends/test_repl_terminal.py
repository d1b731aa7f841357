"""The REPL in a real pseudo-terminal, as a person meets it: typing nested blocks, mistakes,
Backspace, pastes, completion, help, Ctrl-C and Ctrl-D, and a debugging session."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from terminal_util import BACKSPACE, CTRL_C, CTRL_D, Terminal, pasted
from test_debugger import LOOP

pytestmark = pytest.mark.slow  # the REPL in a terminal
ROOT = Path(__file__).resolve().parents[2]


def test_a_session_in_a_real_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    # A multi-line function: the prompt indents the body and continues with "...".
    term.type("def double(n):\r")
    term.read_until("...")
    term.type("return 2 * n\r\r")
    term.read_until(">>>")
    term.type("x = tensor([1.0, 2.0], requires_grad=True)\r")
    term.read_until(">>>")
    term.type("grad (x * x).sum()\r")
    term.read_until(">>>")
    term.type("x.grad\r")
    term.read_until("tensor([2., 4.])")
    # An error is reported with its location, and the session goes on.
    term.type("double(x) @ ones(3)\r")
    term.read_until("ShapeError: matmul: (2,) @ (3,)")
    # An endless loop stops at Ctrl-C and says where.
    term.type("while True:\r")
    term.read_until("...")
    term.type("pass\r\r")
    time.sleep(0.5)
    term.interrupt()
    term.read_until("KeyboardInterrupt: interrupted")
    term.read_until(">>>")
    # Everything defined before is still there.
    term.type("double(21)\r")
    term.read_until("42")
    term.type("x.grad\r")
    term.read_until("tensor([2., 4.])")
    term.read_until(">>>")
    term.type(CTRL_D)  # Ctrl-D on an empty line leaves
    assert term.close() == 0
    history = (tmp_path / "dg" / "history").read_text()
    assert "def double(n):" in history and "double(21)" in history


@pytest.mark.parametrize("kind", ["a folder", "a FIFO"])
def test_a_history_path_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    """The REPL works, without its history and without a Python traceback."""
    history = tmp_path / "dg" / "history"
    history.parent.mkdir()
    if kind == "a folder":
        history.mkdir()
    else:
        os.mkfifo(history)
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("print(6 * 7)\r")
    seen = term.read_until("42")
    term.read_until(">>>")
    term.type("\x04")
    assert term.close() == 0
    assert "Traceback" not in seen + term.seen and "Exception" not in seen + term.seen


def test_nested_blocks_typed_line_by_line(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    # The prompt indents each line; nothing runs until the blank line ends the outer block.
    term.type("def g(n):\rif n > 0:\rreturn 1\rreturn 2\r")
    assert "Error" not in term.seen
    term.type("\r")
    term.type("print(g(1), g(-1))\r")
    term.read_until("1 2")
    # A comprehension and a conditional expression run at their first Enter.
    term.type("[i * i for i in range(4)]\r")
    term.read_until("[0, 1, 4, 9]")
    term.type("z = 3 if 1 > 2 else 4\rz\r")
    term.read_until("4")
    term.type(CTRL_D)
    assert term.close() == 0
    screen = term.screen()
    assert screen[1:6] == [">>> def g(n):", "...     if n > 0:", "...         return 1", "...     return 2", "..."]


def test_backspace_dedents_and_else_lines_up(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("for i in range(3):\rif i % 2 == 0:\rprint('even', i)\r")
    term.type(BACKSPACE + "else:\rprint('odd', i)\r")
    term.type(BACKSPACE + BACKSPACE + "print('done')\r\r")
    term.read_until("done")
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == "even 0\nodd 1\neven 2\ndone\n"
    assert "...     else:" in term.screen()


def test_a_mistake_is_reported_at_once_and_the_session_goes_on(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("x = 2\r")
    term.type("def f(n):\rif n > 0\r")  # the ':' is missing: reported at this Enter
    term.read_until("SyntaxError: expected ':' at the end of this line")
    term.type("loss.backward()\r")
    term.read_until("NameError")
    term.type("x.backward()\r")
    term.read_until("AttributeError: int has no attribute 'backward'")
    term.type("y = tensor(2.0, requires_grad=True)\ry.backward()\r")
    term.read_until("help: DG backpropagates with the grad statement: `grad y`")
    term.type("x * 21\r")
    term.read_until("42")
    term.type(CTRL_D)
    assert term.close() == 0


def test_a_paste_runs_as_pasted(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    program = (
        "def f(x):\n    y = x * 2\n\n    return y + 1\nprint(f(1))\nfor i in range(2):\n    print(i)\nprint('end')\n"
    )
    term.type(pasted(program))  # a blank line inside the function, statements after the loop
    term.read_until("end")
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == "3\n0\n1\nend\n"


def test_a_paste_without_its_last_newline_waits_for_enter(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type(pasted("def twice(x):\n    return 2 * x"))
    term.settle()
    assert "Error" not in term.seen
    term.type("\r\rtwice(21)\r")
    term.read_until("42")
    term.type(CTRL_D)
    assert term.close() == 0


def test_completion_menu_and_help(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("w = tensor([1.0], requires_grad=True)\r")
    term.type("w.resh\t")
    term.read_until("w.reshape")
    term.type(CTRL_C + "w.re\t")
    term.read_until("Whether operations on this tensor are recorded")  # the menu shows each summary
    term.type(CTRL_C + ":help x.reshape\r")
    term.read_until("The same values in a new shape")
    term.type('help("while")\r')
    term.read_until("Repeat the block as long as the condition is true.")
    term.type(CTRL_D)
    assert term.close() == 0


def test_a_debugging_session_steps_through_a_loop(tmp_path: Path) -> None:
    program = tmp_path / "loop.dg"
    program.write_text(LOOP)
    term = Terminal(tmp_path, str(program))
    term.read_until("paused at")
    term.read_until(f"(dg {program}:7 <program>)")  # the prompt says where the program stands
    term.type(":next\r")
    term.read_until(f"(dg {program}:8 <program>)")
    term.type(":step\r")
    term.read_until(f"(dg {program}:2 square)")
    term.type("v\r")
    term.read_until("\n0")
    term.type(":up\r")
    term.read_until(f"(dg {program}:8 <program>)")
    term.type("total\r:down\r")
    term.read_until(f"(dg {program}:2 square)")
    term.type(":list\r")
    term.read_until("->     s = v * v")
    term.type(":help\r")
    term.read_until("On an empty line: the same as :continue; the program runs on, it does not stop.")
    term.type(":break 8 if i == 2\r")
    term.read_until("breakpoint at")
    term.type(":continue\r")
    term.read_until("paused at")  # the breakpoint() of the next round
    term.type("i\r")
    term.read_until("\n1")
    term.type(CTRL_D)  # Ctrl-D continues (it does not quit): to breakpoint() in the last round
    term.read_until("paused at")
    term.type(CTRL_D)  # and on to the :break line, where i is 2
    term.read_until("(breakpoint at line 8)")
    term.type("i\r")
    term.read_until("\n2")
    term.type(":clear\r" + CTRL_D)
    term.read_until("total 5")
    assert term.close() == 0


def test_indentation_typed_at_an_indented_line_replaces_the_automatic_one(tmp_path: Path) -> None:
    """Typing the body's spaces after Enter indented the line: the typed ones count, not both
    (it was `IndentationError: unexpected indent`, the typed spaces landing after the automatic)."""
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("def g(x):\r")
    term.type("    y = x + 1\r")  # the line was indented already: these four spaces replace it
    term.type("    if y > 2:\r")
    term.type("        return y\r")
    term.type("    return 0\r\r")
    term.type("g(2), g(0)\r")
    term.read_until("(3, 0)")
    term.type(CTRL_D)
    assert term.close() == 0
    assert "Error" not in "\n".join(term.screen())


def sent_at_once(term: Terminal, keys: str) -> None:
    """Keys arriving all together, as a terminal without bracketed paste sends a paste."""
    term.wait_for_prompt()
    os.write(term.fd, keys.encode())


def test_a_paste_without_bracketed_paste_runs_as_pasted(tmp_path: Path) -> None:
    """The pasted lines bring their own indentation, a blank line inside the function included."""
    term = Terminal(tmp_path)
    term.read_until(">>>")
    program = (
        "def f(x):\n    y = x * 2\n\n    return y + 1\nprint(f(1))\nfor i in range(2):\n    print(i)\nprint('end')\n"
    )
    sent_at_once(term, program.replace("\n", "\r") + "\r")  # and an Enter, to run the cell the paste left
    term.read_until("end\n")  # read_until sees the text without its carriage returns
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == "3\n0\n1\nend\n"


def test_a_lesson_pasted_without_bracketed_paste_runs_as_the_file_does(tmp_path: Path) -> None:
    lesson = ROOT / "programs" / "05_recursion.dg"
    printed = (ROOT / "tests" / "golden" / "programs" / "05_recursion.out").read_text().splitlines()
    term = Terminal(tmp_path)
    term.read_until(">>>")
    sent_at_once(term, lesson.read_text().replace("\n", "\r") + "\r")
    term.read_until(printed[-1])
    term.type(CTRL_D)
    assert term.close() == 0
    screen = term.screen()  # with the lines the terminal echoed while a cell ran: a paste is typed ahead
    assert "Error" not in "\n".join(screen)
    found = [line for line in screen if line in printed]
    assert found == printed


def test_enter_inside_a_recalled_block_adds_a_line_there(tmp_path: Path) -> None:
    """As in IPython: Enter above a block's last line inserts a line; on the last line it runs the block."""
    up, down, end = "\x1b[A", "\x1b[B", "\x1b[F"
    term = Terminal(tmp_path)
    term.read_until(">>>")
    term.type("def f(x):\ry = x * 2\rreturn y\r\r")
    term.read_until(">>>")
    for key in (up, up, up, end, "\r"):  # the block again (its last line the empty one that ended it),
        term.type(key)  # up to the end of `    y = x * 2`, then Enter: a new line there, indented
        term.settle()
    for key in ("y = y + 1", down, down, "\r"):  # on the last line, Enter runs the block
        term.type(key)
        term.settle()
    term.read_until(">>>")
    term.type("f(1)\r")
    term.read_until("3")
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == "3\n"


def test_tab_at_the_start_of_a_line_indents(tmp_path: Path) -> None:
    """Backspace went a level too far: Tab puts it back (Tab after a name still completes it)."""
    term = Terminal(tmp_path)
    term.read_until(">>>")
    for keys in ("for i in range(2):\r", BACKSPACE, "\t", "print('in', i)\r\r"):
        term.type(keys)
        term.settle()
    term.read_until(">>>")
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == "in 0\nin 1\n"
