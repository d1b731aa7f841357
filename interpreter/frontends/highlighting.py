"""DG's syntax colouring: one Pygments lexer, for `pygmentize -l dglang`, the REPL, the docs and the
notebook kernel (editors get a TextMate grammar whose word lists are written from the same names,
by tools/editor_grammar.py).

Which words are keywords is read from the grammar, and which are builtins from the builtins table
of a session (the interpreter's own and the engine's, listed in autograd/table.py), so a builtin
added in either place is coloured without touching this file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from re import Match

from pygments.lexer import RegexLexer, bygroups, default, include
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
    _TokenType,
)

NAME = r"[^\W\d]\w*"  # the grammar's NAME
DIGITS = r"[0-9](?:_?[0-9])*"
EXPONENT = r"[eE][-+]?[0-9]+"

# What tells a DG program from one in pyos' dg (or Python): see DGLexer.analyse_text.
GRAD_STATEMENT = re.compile(r"^[ \t]*grad[ \t]+[\w(]", re.MULTILINE)
# (DG has `import nn` and `from nn import f` too, but not Python's `import numpy as np` or `import *`.)
PYTHON_ONLY = re.compile(
    r"^[ \t]*(?:(?:class|try|lambda)\b|import[ \t]+[\w.]+[ \t]+as\b|from[ \t]+\S+[ \t]+import[ \t]+\*)", re.MULTILINE
)
DG_LIKELY = re.compile(r"\b(?:requires_grad\s*=|gradient\(|tensor\()")

# Keywords that read as values or as operators get their own token kinds, as in Python's lexer;
# tests/frontends/test_highlighting.py checks that each is still a keyword of the grammar.
CONSTANTS = frozenset({"True", "False", "None"})
WORD_OPERATORS = frozenset({"and", "in", "not", "or"})


@cache
def keyword_names() -> frozenset[str]:
    """The grammar's keywords: `if`, `grad`, `True`, ..."""
    # Imported here, not at the top: Pygments imports every installed plugin's module to look up any
    # lexer by file name, and the grammar (lark) and the builtins (NumPy) would slow them all down.
    from dglang.interpreter.syntax.grammar import keywords

    return frozenset(keywords())


@cache
def builtin_names() -> frozenset[str]:
    """Every name a program finds in its builtin scope, the seeing tools' (graph, gradcheck) included."""
    from .sessions import new_session

    return frozenset(new_session().builtins.vars)


def word_kind(word: str) -> _TokenType:
    if word in CONSTANTS:
        return Keyword.Constant
    if word in WORD_OPERATORS:
        return Operator.Word
    if word in keyword_names():
        return Keyword
    if word in builtin_names():
        return Name.Builtin
    return Name


def word(lexer: RegexLexer, match: Match[str]) -> Iterator[tuple[int, _TokenType, str]]:
    yield match.start(), word_kind(match.group()), match.group()


def string_states(quote: str, kind: _TokenType) -> dict[str, list]:
    """The states inside a string opened with `quote`: plain, raw, and f-string with its {fields}.
    A string still open at the end of its line (half typed in the REPL) ends there."""
    q = "dq" if quote == '"' else "sq"
    other = "sq" if q == "dq" else "dq"
    text = rf"[^{quote}\\\n{{}}]+"
    return {
        f"string-{q}": [(quote, kind, "#pop"), (r"\\.", String.Escape), (rf"[^{quote}\\\n]+", kind), default("#pop")],
        f"raw-{q}": [(quote, kind, "#pop"), (r"\\.", kind), (rf"[^{quote}\\\n]+", kind), default("#pop")],
        f"fstring-{q}": [
            (quote, kind, "#pop"),
            (r"\{\{|\}\}", String.Escape),  # a literal brace
            (r"\{", String.Interpol, f"field-{q}"),
            (r"\}", Error),  # a single '}': DG asks for '}}'
            (r"\\.", String.Escape),
            (text, kind),
            default("#pop"),  # the line's end
        ],
        # {expression} or {expression:spec}: the expression is DG, the other quote's strings included
        f"field-{q}": [
            (r"\}", String.Interpol, "#pop"),
            (r":", String.Interpol, ("#pop", f"spec-{q}")),
            (r"[(\[{]", Punctuation, f"field-brackets-{q}"),
            (quote, kind, "#pop:2"),  # the string's own quote ends it, field or not
            include(f"strings-{other}"),
            include("expression"),
            (r"[^\n]", Error),
            default("#pop:2"),
        ],
        f"field-brackets-{q}": [
            (r"[)\]}]", Punctuation, "#pop"),
            (r"[(\[{]", Punctuation, "#push"),
            (r":", Punctuation),  # a slice: x[1:3]
            (quote, kind, "#pop:3"),
            include(f"strings-{other}"),
            include("expression"),
            (r"[^\n]", Error),
            default("#pop:3"),
        ],
        f"spec-{q}": [(r"\}", String.Interpol, "#pop"), (rf"[^{quote}\\\n}}]+", kind), default("#pop:2")],
        f"strings-{q}": [
            (rf"([fF])({quote})", bygroups(String.Affix, kind), f"fstring-{q}"),
            (rf"([rR])({quote})", bygroups(String.Affix, kind), f"raw-{q}"),
            (quote, kind, f"string-{q}"),
        ],
    }


class DGLexer(RegexLexer):
    """DG programs: `pygmentize -l dglang FILE.dg` (or just `pygmentize FILE.dg`), or Pygments'
    `get_lexer_by_name("dglang")`.

    The alias is not "dg": Pygments itself ships a lexer by that name, for another language also
    called dg (pyos/dg) whose files also end in .dg, and its own lexers win a lookup by name. A
    lookup by file name weighs the two with `analyse_text`.
    """

    name = "DG"
    aliases = ["dglang"]  # noqa: RUF012 (Pygments reads these class attributes)
    filenames = ["*.dg"]  # noqa: RUF012
    mimetypes = ["text/x-dglang"]  # noqa: RUF012
    url = "https://pypi.org/project/dglang/"

    def analyse_text(text: str) -> float:  # type: ignore[misc]  # Pygments makes it a static method
        """How sure Pygments may be that `text` is DG rather than pyos' dg (or Python, when guessing)."""
        if GRAD_STATEMENT.search(text):
            return 1.0  # `grad y` is a statement in DG only
        if PYTHON_ONLY.search(text):
            return 0.0
        return 0.3 if DG_LIKELY.search(text) else 0.0

    tokens = {  # noqa: RUF012
        "root": [
            (r"\n", Whitespace),
            (r"#.*$", Comment.Single),
            (r"\\\n", Text),  # a backslash continues the line
            (r"(def)([^\S\n]+)(" + NAME + ")", bygroups(Keyword, Whitespace, Name.Function)),
            include("strings-dq"),
            include("strings-sq"),
            include("expression"),
            (r";", Punctuation),
        ],
        # What may also stand in an f-string's {field}: no comments, no line breaks, and strings only
        # in the other quote (the field states add those).
        "expression": [
            (r"[^\S\n]+", Whitespace),
            (rf"(?:{DIGITS})?\.{DIGITS}(?:{EXPONENT})?|{DIGITS}\.(?:{EXPONENT})?|{DIGITS}{EXPONENT}", Number.Float),
            (DIGITS, Number.Integer),
            (r"(\.)(" + NAME + ")", bygroups(Punctuation, Name)),  # x.sum: an attribute, never a builtin
            (NAME, word),
            (r"\*\*=?|//=?|[-+*/%@]=?|[=!<>]=|[<>=]", Operator),
            (r"[()\[\]{},:.]", Punctuation),
        ],
        **string_states('"', String.Double),
        **string_states("'", String.Single),
    }
