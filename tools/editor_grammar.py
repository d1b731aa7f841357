"""The keywords and builtins of the TextMate grammar editors colour DG with (editors/vscode/syntaxes/).

The grammar is hand-written but for these two lists, which come from the same places as the
Pygments lexer's: the keywords from grammar/dg.lark, the builtins from a session's builtins table
(the engine's functions among them, read from the op declarations). tools/regenerate.py writes them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dglang.interpreter.frontends.highlighting import CONSTANTS, WORD_OPERATORS, builtin_names, keyword_names

GRAMMAR = Path(__file__).resolve().parents[1] / "editors" / "vscode" / "syntaxes" / "dg.tmLanguage.json"
NOTE = "written by tools/regenerate.py from DG's grammar and builtins table; do not edit by hand"


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


def rewrite(text: str) -> str:
    """The grammar's text with current keyword and builtin lists."""
    return json.dumps(with_current_names(json.loads(text)), indent=2, ensure_ascii=False) + "\n"
