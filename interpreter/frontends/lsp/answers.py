"""Hover, completion and go-to-definition, as plain data: a position is a 1-based line and a
1-based column counted in characters (server.py converts to and from the editor's units).

Hover says what `:help NAME` says at the REPL (library/help.py); completion is the REPL's
(frontends/completion.py), asked with the names the program defines around the cursor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.frontends.completion import completions
from dglang.interpreter.library.attributes import TENSOR_PROPERTIES
from dglang.interpreter.library.help import OPERATORS, describe, render
from dglang.interpreter.library.runtime import MISSING, Builtin, Env, Function

from .symbols import Definition, definition_of, functions_at, visible

# An operator's symbols, longest first so that `**` is read before `*`.
OPERATOR = re.compile("|".join(re.escape(s) for s in sorted(OPERATORS, key=len, reverse=True)))
UNKNOWN: Any = object()  # a variable's value, which the server never knows: completes as a tensor


@dataclass(frozen=True)
class Word:
    text: str  # "relu", or "x.sum" for an attribute (whatever the object), or "+"
    line: int
    column: int  # where it starts
    end_column: int  # just after it
    attribute: bool = False  # written after a `.`


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # "keyword", "function", "variable", "parameter", "method", "attribute", "constant"
    detail: str


def word_at(line_text: str, line: int, column: int) -> Word | None:
    """The name (or operator) the cursor is on or just after."""
    index = column - 1
    for found in re.finditer(r"[^\W\d]\w*", line_text):
        if found.start() <= index <= found.end():
            dot = line_text[: found.start()].rstrip()
            attribute = dot.endswith(".") and not re.search(r"\d\.$", dot)  # `x.sum`, not `1.` in `1.5`
            text = f"x.{found[0]}" if attribute else found[0]
            return Word(text, line, found.start() + 1, found.end() + 1, attribute)
    for found in OPERATOR.finditer(line_text):
        if found.start() <= index < found.end():
            return Word(found[0], line, found.start() + 1, found.end() + 1)
    return None


def hover(found: list[Definition], lines: Sequence[str], word: Word, builtins: Mapping[str, Any]) -> str | None:
    """What to show for the word: the program's own definition of it, else DG's help for it."""
    if not word.attribute:
        definition = definition_of(found, word.text, functions_at(found, lines, word.line, word.column))
        if definition is not None:
            return described(definition)
    entry = describe(word.text, builtins)
    return None if entry is None else render(entry)


def described(definition: Definition) -> str:
    line = definition.span.line
    if definition.kind == "function":
        return f"def {definition.signature}    (function defined on line {line})"
    if definition.kind == "parameter" and definition.scope is not None:
        return f"{definition.name}    (parameter of {definition.scope.name}, line {line})"
    where = f"in {definition.scope.name}" if definition.scope is not None else "at the top level"
    return f"{definition.name}    (variable {where}, first assigned on line {line})"


def definition(found: list[Definition], lines: Sequence[str], word: Word) -> Span | None:
    """Where the word under the cursor is defined in this document (a builtin is defined nowhere in it)."""
    if word.attribute:
        return None
    found_one = definition_of(found, word.text, functions_at(found, lines, word.line, word.column))
    return None if found_one is None else found_one.span


MAX_COMPLETIONS = 500  # items in one answer; more, and the editor asks again as the word grows


def complete(
    found: list[Definition], lines: Sequence[str], line: int, column: int, builtins: Mapping[str, Any]
) -> tuple[int, list[Item]]:
    """The completions of the word before the cursor (MAX_COMPLETIONS and one at most: one more
    says the list was cut), and the column that word starts at."""
    before_cursor = lines[line - 1][: column - 1] if 0 < line <= len(lines) else ""
    names = visible(found, functions_at(found, lines, line, column))
    env = Env({name: stand_in(d) for name, d in names.items()}, Env(dict(builtins), None))
    items = []
    start = column
    for candidate in completions(before_cursor, env, {}, most=MAX_COMPLETIONS + 1):
        start = column + candidate.start
        items.append(item(candidate.text, candidate.meta, names, builtins, attribute=is_attribute(before_cursor)))
    return start, items


def is_attribute(before_cursor: str) -> bool:
    return re.search(r"[^\W\d]\w*\s*\.\s*\w*$", before_cursor) is not None


def stand_in(definition: Definition) -> Any:
    """What a name holds, as far as completion needs to know: a function has no attributes; any
    other variable may be a tensor."""
    if definition.kind != "function" or definition.node is None:
        return UNKNOWN
    params = tuple(p.name for p in definition.node.params)
    return Function(definition.name, params, (MISSING,) * len(params), lambda env: None, Env({}, None), definition.span)


def item(name: str, meta: str, names: dict[str, Definition], builtins: Mapping[str, Any], attribute: bool) -> Item:
    if attribute:
        return Item(name, "attribute" if name in TENSOR_PROPERTIES else "method", meta)
    if name in names:
        d = names[name]
        detail = f"def {d.signature}" if d.kind == "function" else f"{d.kind}, line {d.span.line}"
        return Item(name, d.kind, detail)
    if name in builtins:
        return Item(name, "function" if isinstance(builtins[name], Builtin) else "constant", meta)
    return Item(name, "keyword", meta)
