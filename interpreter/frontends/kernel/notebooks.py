"""The numbered lessons of programs/ as notebooks in notebooks/, written by

    uv run python -m dglang.interpreter.frontends.kernel.notebooks

(never edited by hand: tests/frontends/test_notebooks.py fails when one differs from what this writes). A
lesson's opening comment becomes the notebook's first markdown cell; the rest is cut at its blank
lines into code cells, each a whole statement, and a comment that opens a part becomes the markdown
cell before it. The notebooks are written without outputs: they are run in the tests and by the
teacher. The course library the lessons import (programs/nn.dg, every .dg there that is not a
lesson) is copied beside them, so that `import nn` works in a notebook opened from notebooks/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]  # the repository
PROGRAMS = ROOT / "programs"
NOTEBOOKS = ROOT / "notebooks"
LESSON = re.compile(r"\d\d_\w+\.dg")
CONTINUES = re.compile(r"(elif|else)\b")  # a line at the margin that belongs to the statement above

Cell = tuple[str, str]  # ("markdown" or "code", its text)


def lesson_cells(text: str, number: int = 0) -> list[Cell]:
    """The cells of one lesson (numbered `number` in its title)."""
    lines = text.rstrip("\n").split("\n")
    opening = 0
    while opening < len(lines) and lines[opening].startswith("#"):
        opening += 1
    cells: list[Cell] = [("markdown", prose(lines[:opening], number))] if opening else []
    for part in parts(lines[opening:]):
        comment = 0
        while comment < len(part) and part[comment].startswith("#"):
            comment += 1
        if comment:
            cells.append(("markdown", prose(part[:comment])))
        if part[comment:]:
            cells.append(("code", "\n".join(part[comment:])))
    return cells


def parts(lines: list[str]) -> list[list[str]]:
    """The lines cut at each blank line that a new statement at the left margin follows."""
    found: list[list[str]] = [[]]
    for i, line in enumerate(lines):
        follows_blank = i > 0 and not lines[i - 1].strip()
        if follows_blank and line[:1].strip() and not CONTINUES.match(line) and found[-1]:
            found.append([])
        found[-1].append(line)
    return [trimmed for part in found if (trimmed := trim(part))]


def trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return lines


def prose(comment: list[str], number: int = 0) -> str:
    """A comment's text as markdown: a lesson's `# Lesson: ...` becomes the notebook's title."""
    text = [re.sub(r"^# ?", "", line) for line in comment]
    if text and text[0].startswith("Lesson: "):
        text[0] = f"# Lesson {number}: " + text[0].removeprefix("Lesson: ")
    return "\n".join(text).strip("\n")


def notebook(program: Path) -> Any:
    import nbformat
    from nbformat import v4

    book = v4.new_notebook()
    book.metadata = {
        "kernelspec": {"name": "dglang", "display_name": "DG", "language": "dg"},
        "language_info": {"name": "dg", "file_extension": ".dg", "mimetype": "text/x-dg", "pygments_lexer": "dglang"},
        "dg": {"generated_from": f"programs/{program.name}", "by": f"python -m {__spec__.name}"},
    }
    text = program.read_text(encoding="utf-8")
    for i, (kind, source) in enumerate(lesson_cells(text, int(program.name[:2])), 1):
        cell = v4.new_markdown_cell(source) if kind == "markdown" else v4.new_code_cell(source)
        cell.id = f"{program.stem}-{i}"  # the same on every run, so a regenerated notebook is the same file
        book.cells.append(cell)
    nbformat.validate(book)
    return book


def notebook_text(program: Path) -> str:
    import nbformat

    return nbformat.writes(notebook(program)) + "\n"


def lessons() -> list[Path]:
    return sorted(p for p in PROGRAMS.glob("*.dg") if LESSON.fullmatch(p.name))


def library_modules() -> list[Path]:
    """The .dg files of programs/ that are not lessons: the modules the lessons import."""
    return sorted(p for p in PROGRAMS.glob("*.dg") if not LESSON.fullmatch(p.name))


def write_all(folder: Path = NOTEBOOKS) -> list[Path]:
    folder.mkdir(exist_ok=True)
    written = []
    for program in lessons():
        path = folder / f"{program.stem}.ipynb"
        path.write_text(notebook_text(program), encoding="utf-8")
        written.append(path)
    for module in library_modules():
        path = folder / module.name
        path.write_bytes(module.read_bytes())
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_all():
        print(path.relative_to(ROOT))
