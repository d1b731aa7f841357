"""The lessons as notebooks: notebooks/ holds exactly what the generator writes from programs/, and
each notebook, run headlessly through the DG kernel (nbclient), prints the lesson's golden output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from graph_util import can_draw
from kernel_util import dg_kernel  # noqa: F401  (a fixture)
from optional_tools import need

from dglang.interpreter.frontends.kernel.notebooks import (
    NOTEBOOKS,
    PROGRAMS,
    lesson_cells,
    lessons,
    library_modules,
    notebook_text,
)

nbformat = need("nbformat", "kernel")
NotebookClient = need("nbclient", "kernel").NotebookClient
need("ipykernel", "kernel")  # the kernel the notebooks run in

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "programs"
REGENERATE = "uv run python -m dglang.interpreter.frontends.kernel.notebooks"
LESSONS = lessons()


def test_every_lesson_has_its_notebook_and_no_notebook_is_stale() -> None:
    assert len(LESSONS) >= 15
    written = {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    assert written == {f"{p.stem}.ipynb" for p in LESSONS}, f"notebooks/ differs from programs/: run {REGENERATE}"
    for program in LESSONS:
        committed = (NOTEBOOKS / f"{program.stem}.ipynb").read_text(encoding="utf-8")
        assert committed == notebook_text(program), f"notebooks/{program.stem}.ipynb is stale: run {REGENERATE}"


def test_the_course_library_is_beside_the_notebooks_that_import_it() -> None:
    modules = library_modules()
    assert "nn.dg" in {m.name for m in modules}
    assert {p.name for p in NOTEBOOKS.glob("*.dg")} == {m.name for m in modules}, f"run {REGENERATE}"
    for module in modules:
        assert (NOTEBOOKS / module.name).read_bytes() == module.read_bytes(), f"notebooks/{module.name} is stale"


def test_a_lesson_becomes_markdown_then_code_cells() -> None:
    text = "# Lesson: a title.\n#\n# Some prose.\n\nx = 1\nif x:\n    y = 2\n\nelse:\n    y = 3\n\n# A part.\n"
    text += "print(y)\n"
    assert lesson_cells(text, 4) == [
        ("markdown", "# Lesson 4: a title.\n\nSome prose."),
        ("code", "x = 1\nif x:\n    y = 2\n\nelse:\n    y = 3"),
        ("markdown", "A part."),
        ("code", "print(y)"),
    ]


def unnumbered(text: str) -> str:
    """The text without its line numbers (a picture's `line 9: x * 2`, a quoted line's `9 | else:`):
    a notebook counts the lines of each cell from its top, the lesson file from the file's, and a
    picture names the cell of a grad made in another (`the grad on line 2 of <cell 3>`)."""
    text = re.sub(r"\bline \d+ of <cell \d+>", "line N", text)
    return re.sub(r"(?m)^ *\d+ \|", "N |", re.sub(r"\bline \d+", "line N", text))


def printed(cell: nbformat.NotebookNode) -> str:
    """What a code cell showed, as text: its standard output, and the plain-text form of its pictures
    and result. Standard error (the notes of lesson 16's static functions) is not in the golden files."""
    text = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            if output.name != "stderr":
                text.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            text.append(output.data["text/plain"])
        else:
            pytest.fail(f"{cell.source!r} gave {output}")
    return "".join(text)


@pytest.mark.slow  # a Jupyter kernel
@pytest.mark.parametrize("program", LESSONS, ids=[p.stem for p in LESSONS])
def test_the_notebook_prints_the_lessons_golden_output(program: Path, dg_kernel: str) -> None:  # noqa: F811
    book = nbformat.reads((NOTEBOOKS / f"{program.stem}.ipynb").read_text(encoding="utf-8"), as_version=4)
    # timeout: the seconds a cell may take; 18_tiny_gpt's training cell runs for minutes on a busy machine
    NotebookClient(book, kernel_name=dg_kernel, timeout=900, resources={"metadata": {"path": str(PROGRAMS)}}).execute()
    output = "".join(printed(cell) for cell in book.cells if cell.cell_type == "code")
    assert unnumbered(output) == unnumbered((GOLDEN / f"{program.stem}.out").read_text(encoding="utf-8"))
    pictures = [o for c in book.cells for o in c.get("outputs", []) if o.output_type == "display_data"]
    assert all("image/svg+xml" in o.data for o in pictures) or not pictures or not can_draw()
