"""Write the files that hold text made from the op declarations, or check that they are current.

    uv run python tools/regenerate.py           # rewrite each file that is out of date
    uv run python tools/regenerate.py --check   # list them (exit 1) and change nothing

An op is declared once, as a class in autograd/ (autograd/op.py says how), and autograd/table.py
lists them all. What reads the declarations as DG runs (help, the builtins, the sandbox, Pygments'
colours, the tests' lists of ops) needs nothing more; these files hold text made from them:
- docs/language.md: the tables of the builtins that are ops, of the tensor methods, and of the
  derivative rules (op_tables.py), each between `begin written` and `end written` comments;
- autograd/tensor.py: a line in Tensor for each op declared a method that Tensor does not spell
  (tensor_methods.py), between the same comments;
- editors/vscode/syntaxes/dg.tmLanguage.json: the keywords and builtins editors colour (editor_grammar.py).
So adding an op is writing its class, then running this. tests/project/test_generated.py fails
while a file is out of date, and says to run it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import editor_grammar
import op_tables
import tensor_methods

ROOT = Path(__file__).resolve().parents[1]
COMMAND = "uv run python tools/regenerate.py"


class Written(NamedTuple):
    """A file, and how its text is made current from the text it has."""

    path: Path
    rewrite: Callable[[str], str]


WRITTEN = (
    Written(op_tables.DOC, op_tables.rewrite),
    Written(tensor_methods.TENSOR, tensor_methods.rewrite),
    Written(editor_grammar.GRAMMAR, editor_grammar.rewrite),
)


def out_of_date() -> list[tuple[Path, str]]:
    """Each file whose text differs from what the declarations make, with the text they make."""
    changed = []
    for written in WRITTEN:
        text = written.path.read_text(encoding="utf-8")
        wanted = written.rewrite(text)
        if wanted != text:
            changed.append((written.path, wanted))
    return changed


def main(argv: list[str]) -> int:
    changed = out_of_date()
    for path, wanted in changed:
        name = path.relative_to(ROOT).as_posix()
        if "--check" in argv:
            print(f"{name} is out of date: run `{COMMAND}`", file=sys.stderr)
        else:
            path.write_text(wanted, encoding="utf-8", newline="\n")
            print(f"wrote {name}")
    return 1 if changed and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
