"""Write DG's keywords and builtins into the TextMate grammar for editors (vscode/syntaxes/).

The grammar is hand-written but for these two lists, which come from the same places as the
Pygments lexer's: the keywords from grammar/dg.lark, the builtins from a session's builtins table.
After adding a keyword or a builtin, run

    uv run python editors/update_grammar.py

and commit the grammar; tests/frontends/test_editors.py fails while it is out of date (`--check` says so too).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from dglang.interpreter.frontends.highlighting import CONSTANTS, WORD_OPERATORS, builtin_names, keyword_names

GRAMMAR = Path(__file__).resolve().parent / "vscode" / "syntaxes" / "dg.tmLanguage.json"
NOTE = "written by editors/update_grammar.py from DG's grammar and builtins table; do not edit by hand"


def words(names: set[str] | frozenset[str], before: str = "") -> str:
    """A regex for any of `names` as a whole word."""
    return before + r"\b(?:" + "|".join(re.escape(n) for n in sorted(names)) + r")\b"


def with_current_names(grammar: dict[str, Any]) -> dict[str, Any]:
    """`grammar` with its `keywords` and `builtins` rules made from DG's current names."""
    keywords = keyword_names()
    repository = dict(grammar["repository"])
    repository["keywords"] = {
        "comment": NOTE,
        "patterns": [
            {"match": words(CONSTANTS & keywords), "name": "constant.language.dg"},
            {"match": words(WORD_OPERATORS & keywords), "name": "keyword.operator.logical.dg"},
            {"match": words(keywords - CONSTANTS - WORD_OPERATORS), "name": "keyword.control.dg"},
        ],
    }
    repository["builtins"] = {
        "comment": NOTE,
        "patterns": [{"match": words(builtin_names(), before=r"(?<!\.)"), "name": "support.function.builtin.dg"}],
    }
    return {**grammar, "repository": repository}


def render(grammar: dict[str, Any]) -> str:
    return json.dumps(grammar, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    current = GRAMMAR.read_text(encoding="utf-8")
    wanted = render(with_current_names(json.loads(current)))
    if "--check" in argv:
        if current != wanted:
            print(f"{GRAMMAR} is out of date: run `uv run python editors/update_grammar.py`", file=sys.stderr)
            return 1
        return 0
    GRAMMAR.write_text(wanted, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
