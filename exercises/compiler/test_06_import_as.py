"""Exercise 6 (compiler): `import shapes as s` and `from shapes import area as a`.

- `import MODULE as NAME` binds NAME, not MODULE, to the module; `from MODULE import NAME as OTHER`
  binds OTHER to the module's NAME. Plain and renamed names mix: `from shapes import area as a, side`.
- A module still runs once, however many names it is imported under.
- Names are still checked before anything runs: a name the module does not define is an
  ImportError located at that name (not at its new name), and `s.volum` through a renamed module
  is an AttributeError before the first line runs.
- `import shapes as` without a name after `as` is a SyntaxError.
- The AST keeps the new name: `ImportedName` gets a field `alias` (None when there is none).
- `import` is still only allowed at the top level of a file.
See docs/for-compiler-courses.md, exercise 6.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.host.session import Session
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.parser import parse

SHAPES = """\
print("shapes runs")
side = 2

def area(w, h):
    return w * h
"""


def run(folder: Path, code: str) -> tuple[str, DGError | None]:
    """What `code` prints as a program in `folder` (beside shapes.dg), and the error it stops with."""
    (folder / "shapes.dg").write_text(SHAPES)
    out = io.StringIO()
    try:
        Session(out=out, base_dir=folder).run(code, "exercise.dg")
    except DGError as e:
        return out.getvalue(), e
    return out.getvalue(), None


def test_import_as_binds_the_new_name_only(tmp_path: Path) -> None:
    printed, error = run(tmp_path, "import shapes as s\nprint(s.area(2, 3), s.side)\n")
    assert (printed, error) == ("shapes runs\n6 2\n", None)
    printed, error = run(tmp_path, "import shapes as s\nprint(shapes)\n")
    assert error is not None and error.kind == "NameError" and "'shapes'" in error.message


def test_from_import_as_binds_the_new_name_only(tmp_path: Path) -> None:
    printed, error = run(tmp_path, "from shapes import area as a, side\nprint(a(3, 4), side)\n")
    assert (printed, error) == ("shapes runs\n12 2\n", None)
    _, error = run(tmp_path, "from shapes import area as a\nprint(area(1, 1))\n")
    assert error is not None and error.kind == "NameError"


def test_a_module_imported_under_two_names_runs_once(tmp_path: Path) -> None:
    code = "import shapes as one\nimport shapes as two\nfrom shapes import side as s\nprint(s)\n"
    printed, error = run(tmp_path, code)
    assert (printed, error) == ("shapes runs\n2\n", None)


def test_a_missing_name_is_found_before_the_run_at_the_name(tmp_path: Path) -> None:
    printed, error = run(tmp_path, 'print("never")\nfrom shapes import volume as v\n')
    assert printed == "" and error is not None and error.kind == "ImportError"
    assert (error.span.line, error.span.column) == (2, 20)  # type: ignore[union-attr]  # at `volume`


def test_a_missing_name_through_a_renamed_module_is_found_before_the_run(tmp_path: Path) -> None:
    printed, error = run(tmp_path, 'import shapes as s\nprint("never")\nprint(s.volum(1))\n')
    assert printed == "" and error is not None and error.kind == "AttributeError"
    assert error.message == "module 'shapes' has no attribute 'volum'"


@pytest.mark.parametrize("code", ["import shapes as\n", "from shapes import area as\n", "import shapes as 1\n"])
def test_as_needs_a_name_after_it(tmp_path: Path, code: str) -> None:
    _, error = run(tmp_path, code)
    assert error is not None and error.kind == "SyntaxError"


def test_the_ast_keeps_the_new_name() -> None:
    module = parse(Source("t.dg", "import shapes as s, other\nfrom shapes import area as a, side\n"))
    first, second = module.body
    assert isinstance(first, ast.Import) and isinstance(second, ast.FromImport)
    assert [(m.name, m.alias) for m in first.modules] == [("shapes", "s"), ("other", None)]
    assert [(n.name, n.alias) for n in second.names] == [("area", "a"), ("side", None)]


def test_still_only_at_the_top_level(tmp_path: Path) -> None:
    _, error = run(tmp_path, "def f():\n    import shapes as s\n")
    assert error is not None and error.kind == "SyntaxError"
