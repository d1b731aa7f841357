"""The REPL in a real pseudo-terminal, as a person meets it: typing, errors, Ctrl-C, Ctrl-D."""

from __future__ import annotations

import os
import re
import select
import sys
import time
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")  # POSIX only
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")


class Terminal:
    """`dg` running under a pseudo-terminal, with expect-style reading."""

    def __init__(self, state_dir: Path, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become `dg`
            os.environ.update(XDG_STATE_HOME=str(state_dir), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
            os.execv(sys.executable, [sys.executable, "-m", "dglang.interpreter", *args])
        self.seen = ""

    def read_until(self, text: str, timeout: float = 20.0) -> str:
        """Everything up to and including `text`; fails if it does not appear in time."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw {text!r}; the screen so far:\n{self.seen}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.2))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                self.seen += ANSI.sub("", chunk.decode(errors="replace"))
        before, _, after = self.seen.partition(text)
        self.seen = after
        return before + text

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def close(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


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
    term.type("\x03")
    term.read_until("KeyboardInterrupt: interrupted")
    term.read_until(">>>")
    # Everything defined before is still there.
    term.type("double(21)\r")
    term.read_until("42")
    term.type("x.grad\r")
    term.read_until("tensor([2., 4.])")
    term.read_until(">>>")
    term.type("\x04")  # Ctrl-D on an empty line leaves
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
