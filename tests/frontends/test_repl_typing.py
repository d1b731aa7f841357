"""Done when: every step of docs/tutorial.md can be typed line by line at the REPL, and every
lesson in programs/ pasted into it, with the same output as running it as a file; through a pipe,
the same lines give the same output.

Typing is done as a person does it (terminal_util.typed): the prompt indents each line, the person
presses Backspace to leave a block and Enter on an empty line to end one. Pasting is a bracketed
paste, as terminals send it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from terminal_util import CTRL_D, Terminal, pasted, typed

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text()
# Each step: its program and the output the tutorial shows for it (tests/project/test_docs.py checks that
# running the program as a file prints exactly that).
STEPS = re.findall(r"^```dg\n(.*?)^```\n\n```text\n(.*?)^```\n", TUTORIAL, re.DOTALL | re.MULTILINE)
# Every lesson but the ones that train for minutes (pasting the tiny GPT would test nothing of the
# REPL that 17_attention_reverse does not, and would wait on its training); not nn.dg, a module.
TRAINS_FOR_MINUTES = {"18_tiny_gpt"}
# The REPL keeps graphs for drawing, so static(f) runs f as it is there, with a note, and its
# static_info differs from the file's (docs/language.md says so): lessons 19 and 21 (its training step
# static) are checked as files.
TRAINS_FOR_MINUTES |= {"19_static_graphs", "21_autoencoder"}
LESSONS = sorted(
    p
    for p in (ROOT / "programs").glob("*.dg")
    if re.fullmatch(r"\d\d_\w+", p.stem) and p.stem not in TRAINS_FOR_MINUTES
)
GOLDEN = ROOT / "tests" / "golden" / "programs"  # tests/language/test_programs.py: the output of running each file


def test_every_step_of_the_tutorial_is_here() -> None:
    assert len(STEPS) == 13


@pytest.mark.slow  # a terminal
@pytest.mark.parametrize(("program", "output"), STEPS, ids=[f"step {i + 1}" for i in range(len(STEPS))])
def test_a_tutorial_step_typed_line_by_line(program: str, output: str, tmp_path: Path) -> None:
    term = Terminal(tmp_path, cwd=ROOT / "programs")  # step 13 imports nn, beside the lessons
    term.read_until(">>>")
    term.type(typed(program))
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == output, "\n".join(term.screen())


@pytest.mark.parametrize(("program", "output"), STEPS, ids=[f"step {i + 1}" for i in range(len(STEPS))])
def test_a_tutorial_step_typed_through_a_pipe(program: str, output: str) -> None:
    result = piped(program + "\n")  # the blank line a person ends the last block with
    assert result.stdout == output and result.stderr == ""


@pytest.mark.slow  # a terminal
@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_a_lesson_pasted_into_the_repl(lesson: Path, tmp_path: Path) -> None:
    term = Terminal(tmp_path, cwd=lesson.parent)
    term.read_until(">>>")
    term.type(pasted(lesson.read_text()))
    term.type(CTRL_D)
    assert term.close() == 0
    assert term.output() == (GOLDEN / f"{lesson.stem}.out").read_text(), "\n".join(term.screen())


@pytest.mark.slow  # a terminal
def test_a_3000_line_paste(tmp_path: Path) -> None:
    """The completeness check is linear in a cell's lines: a 3,000-line list pasted runs in seconds
    (docs/performance.md has the time; tests do not assert timings)."""
    text = "big = [\n" + "".join(f"    {i},\n" for i in range(3000)) + "]\nprint(len(big), sum(big))\n"
    term = Terminal(tmp_path)
    term.read_until(">>>")
    start = time.monotonic()
    term.type(pasted(text))
    term.read_until("3000 4498500", timeout=600)
    print(f"a 3,000-line paste ran in {time.monotonic() - start:.2f} s")
    term.type(CTRL_D)
    assert term.close() == 0


def test_a_3000_line_list_through_a_pipe() -> None:
    text = "big = [\n" + "".join(f"    {i},\n" for i in range(3000)) + "]\nprint(len(big), sum(big))\n"
    assert piped(text).stdout == "3000 4498500\n"


def piped(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter"],
        input=text,
        capture_output=True,
        text=True,
        cwd=ROOT / "programs",  # where `import nn` finds the course library, as the tutorial says
        timeout=300,
    )
