"""Every lesson's functions wrapped in static(...) print what the dynamic lesson prints.

Each top-level `def NAME` of programs/*.dg is followed by `NAME = static(NAME)`, and the lesson's
standard output must equal its golden file (tests/golden/programs/). Notes (re-traces, functions
run dynamically) go to standard error, which is not compared.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from slow_cases import LONG_LESSONS, slow_where

from dglang.interpreter.frontends.sessions import new_session as Session

PROJECT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((PROJECT / "programs").glob("[0-9][0-9]_*.dg"))  # the lessons (nn.dg is a module they import)
GOLDEN = PROJECT / "tests" / "golden" / "programs"
DEF = re.compile(r"def ([^\W\d]\w*)\s*\(")


def made_static(text: str) -> tuple[str, list[str]]:
    """The program with each top-level function rebound to static(itself) after its definition."""
    out: list[str] = []
    pending: str | None = None
    names = []
    blank = -1  # the last blank line since the def: the rebinding takes its place (line numbers stay)
    for line in text.splitlines():
        starts_block = line[:1] not in ("", " ", "\t", "#")
        if pending is not None and starts_block:
            if blank >= 0:
                out[blank] = f"{pending} = static({pending})"
            else:
                out.append(f"{pending} = static({pending})")
            pending = None
        if pending is not None and not line.strip():
            blank = len(out)
        match = DEF.match(line)
        if match:
            pending, blank = match.group(1), -1
            names.append(pending)
        out.append(line)
    if pending is not None:
        out.append(f"{pending} = static({pending})")
    return "\n".join(out) + "\n", names


def test_the_rewrite_rebinds_each_function() -> None:
    text, names = made_static("def f(x):\n    return x\n\ny = f(1)\ndef g():\n    pass\n")
    assert names == ["f", "g"]
    assert "    return x\nf = static(f)\ny = f(1)" in text and text.endswith("g = static(g)\n")


# with its static twin, 17 and 19 take about two seconds of processor time too
@pytest.mark.parametrize(
    "program",
    slow_where(PROGRAMS, lambda p: p.stem in LONG_LESSONS | {"17_attention_reverse", "19_static_graphs"}),
    ids=lambda p: p.stem,
)
def test_static_lesson_prints_what_the_dynamic_one_does(program: Path) -> None:
    text, _ = made_static(program.read_text(encoding="utf-8"))
    out, err = io.StringIO(), io.StringIO()
    session = Session(out=out, base_dir=program.parent)
    session.err = err
    session.run(text, f"programs/{program.name}")
    golden = (GOLDEN / f"{program.stem}.out").read_text(encoding="utf-8")
    assert without_static_pictures(out.getvalue()) == golden, err.getvalue()


# graph(y) of a static call's result also names the trace it ran as and draws its guards
# (seeing/static_pictures.py): those lines are the one thing a static lesson adds to its output.
STATIC_PICTURE = re.compile(
    r"static\(\w+\) trace \d+: .*: its nodes are the trace's ops\n(  guard .*\n|      .*\|.*\n)*"
)


def without_static_pictures(text: str) -> str:
    return STATIC_PICTURE.sub("", text)
