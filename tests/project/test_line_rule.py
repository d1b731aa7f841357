"""Source text is split into lines by one rule, the lexer's (diagnostics/source.py's split_lines):
no module of DG calls Python's str.splitlines, which also breaks at a form feed and six other
characters (tests/promises/test_line_breaks.py shows what that did), except on text that is not a
program's. Each exception is listed here with why."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_SOURCE = {  # (module, the line's code): text that is not a program's
    # a builtin's docstring
    ("interpreter/library/help.py", 'lines = inspect.cleandoc(doc or "").splitlines()'),
    # what a dead worker wrote to its standard error
    ("interpreter/frontends/grading/worker_process.py", 'last = run.errors.strip().splitlines()[-1:] or [""]'),
}
CALL = re.compile(r"\.splitlines\(")


def test_no_module_splits_source_text_with_splitlines() -> None:
    found = set()
    for path in [*ROOT.glob("interpreter/**/*.py"), *ROOT.glob("autograd/**/*.py")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#")[0].strip()
            if CALL.search(code):
                found.add((path.relative_to(ROOT).as_posix(), code))
    assert found - NOT_SOURCE == set(), "use diagnostics/source.py's split_lines (or Source.lines) instead"


def test_the_check_finds_a_splitlines_call(tmp_path: Path) -> None:
    assert CALL.search("lines = span.source.text.splitlines()")
    assert not CALL.search("lines = split_lines(span.source.text)")
