"""`dg` in a real pseudo-terminal, driven as a person drives it, and what the screen then shows.

`Terminal` runs `dg` under a pty; `type` sends keys as a keyboard does; `read_until` waits for
text (expect-style); `screen()` replays everything the terminal received through pyte, a VT100
emulator, and returns the lines a person would see, scrolled-off ones included. `typed` turns a
program into the keys a person presses to enter it at the prompt, relying on the REPL's
auto-indentation and correcting it with Backspace; `pasted` wraps text as a terminal sends a paste.
"""

from __future__ import annotations

import os
import re
import select
import struct
import sys
import time
from pathlib import Path

import pytest
from optional_tools import need

pyte = need("pyte", "terminal")

pty = pytest.importorskip("pty")  # POSIX only
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
COLUMNS, ROWS = 200, 50
BACKSPACE, ENTER, CTRL_C, CTRL_D = "\x7f", "\r", "\x03", "\x04"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # bracketed paste, as terminals send a paste
PROMPTS = (">>>", "...", "(dg ")  # how the lines of typed input start on the screen


class Terminal:
    """`dg` running under a pseudo-terminal, with expect-style reading."""

    def __init__(self, state_dir: Path, *args: str, cwd: Path | None = None) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become `dg`, in a terminal of COLUMNS x ROWS
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            os.environ.update(XDG_STATE_HOME=str(state_dir), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
            if cwd is not None:
                os.chdir(cwd)
            os.execv(sys.executable, [sys.executable, "-m", "dglang.interpreter", *args])
        self.seen = ""  # what arrived and has not been read by read_until yet, without ANSI codes
        self.raw = b""  # everything that arrived, for the screen

    def _receive(self, timeout: float) -> bool:
        """Wait up to `timeout` for output; False when there was none (or `dg` has exited)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child exited
            return False
        if not chunk:
            return False
        self.raw += chunk
        self.seen += ANSI.sub("", chunk.decode(errors="replace"))
        return True

    def read_until(self, text: str, timeout: float = 30.0) -> str:
        """Everything up to and including `text`; fails if it does not appear in time."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw {text!r}; the screen so far:\n{self.seen}")
            self._receive(min(left, 0.2))
        before, _, after = self.seen.partition(text)
        self.seen = after
        return before + text

    def type(self, keys: str) -> None:
        """Send keys a line at a time, as a person types them: after each Enter, wait for the prompt
        (keys typed while a cell runs would meet the terminal in its cooked mode, where Backspace
        and Ctrl-D mean something else, as they would for a person typing ahead), and for `dg` to
        have taken the line: the REPL reads keys already waiting after an Enter as a paste."""
        for line in filter(None, re.split(r"(?<=[\r\x04])", keys)):
            self.wait_for_prompt()
            shown = len(self.seen)
            os.write(self.fd, line.encode())
            if line.endswith(ENTER):
                self.wait_for_next_prompt(shown)
            self.settle()

    def wait_for_next_prompt(self, since: int, timeout: float = 30.0) -> None:
        """Wait until a prompt (`...`, `>>>`, `(dg`) is shown after position `since` of `seen`: the
        line just typed was taken (a cell that runs long shows its prompt later: wait_for_prompt)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(prompt in self.seen[since:] for prompt in PROMPTS):
                return
            if termios.tcgetattr(self.fd)[3] & termios.ICANON:
                return  # a cell runs (the terminal is back in cooked mode): the line was taken
            self._receive(0.05)

    def interrupt(self) -> None:
        """Ctrl-C, now: for a cell that is running (so no prompt is waited for)."""
        os.write(self.fd, CTRL_C.encode())

    def wait_for_prompt(self, timeout: float = 120.0) -> None:
        """Wait until `dg` reads keys again (the terminal in raw mode, as prompt_toolkit sets it at a
        prompt) or has exited."""
        deadline = time.monotonic() + timeout
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if not self._receive(0.05) and os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return
            if time.monotonic() > deadline:
                raise AssertionError("dg never came back to a prompt; the screen:\n" + "\n".join(self.screen()))

    def settle(self, quiet: float = 0.05, timeout: float = 60.0) -> None:
        """Read until `dg` has printed nothing for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._receive(quiet):
            pass

    def close(self, timeout: float = 120.0) -> int:
        """Wait for `dg` to exit (reading what it still prints); its exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._receive(0.05):
                    pass
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self._receive(0.1)
        os.kill(self.pid, 9)
        raise AssertionError("dg did not exit; the screen:\n" + "\n".join(self.screen()))

    def screen(self) -> list[str]:
        """The lines a person sees, from the first to the last written, scrolled-off ones included."""
        screen = pyte.HistoryScreen(COLUMNS, ROWS, history=100_000)
        pyte.ByteStream(screen).feed(self.raw)
        lines = [render(row) for row in screen.history.top] + [line.rstrip() for line in screen.display]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def output(self) -> str:
        """What the programs printed: the screen without the banner, the prompts and what was typed."""
        lines = self.screen()[1:]  # the first line is the banner
        return "".join(line + "\n" for line in lines if not line.startswith(PROMPTS))


def render(row: dict[int, pyte.screens.Char]) -> str:
    return "".join(row[x].data for x in range(COLUMNS) if x in row).rstrip()


def typed(program: str, indent: str = "    ") -> str:
    """The keys a person presses to type `program` at the prompt, one line after another: the
    prompt indents each line as the REPL decides; the person removes indentation with Backspace
    (one level a press) or types the line's own (which replaces the prompt's), types the rest of
    the line and Enter. A blank line after a
    compound statement runs it; a last Enter ends the program."""
    from dglang.interpreter.frontends.cells import Completeness

    keys: list[str] = []
    lines: list[str] = []  # the lines of the cell being typed, as the REPL has them
    cells = Completeness()
    for line in [*program.rstrip("\n").split("\n"), ""]:
        offered = cells.next_indent("\n".join(lines)) if lines else ""
        if not line.strip():  # Enter on the indented empty line
            keys.append(ENTER)
            lines.append(offered)
        else:
            wanted = line[: len(line) - len(line.lstrip())]
            while len(offered) > len(wanted):  # Backspace in the indentation goes back one level
                keys.append(BACKSPACE)
                offered = offered[: len(offered) - (len(offered) % len(indent) or len(indent))]
            # deeper than offered: the person types the line's whole indentation, which replaces the offered
            keys.append((wanted if len(wanted) > len(offered) else "") + line.strip() + ENTER)
            lines.append(line.rstrip())
        if cells.is_complete("\n".join(lines)):
            lines = []
    return "".join(keys)


def pasted(text: str) -> str:
    return PASTE_START + text + PASTE_END
