"""Hover, completion and go-to-definition, as plain data: a position is a 1-based line and a
1-based column counted in characters (server.py converts to and from the editor's units).

Hover says what `:help NAME` says at the REPL (library/help.py); completion is the REPL's
(frontends/completion.py), asked with the names the program defines around the cursor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.frontends.completion import completions
from dglang.interpreter.library.attributes import TENSOR_PROPERTIES
from dglang.interpreter.library.help import OPERATORS, describe, render
from dglang.interpreter.library.runtime import MISSING, Builtin, Env, Function, Module

from .imports import Imports, ModuleView
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
    owner: str | None = None  # the name before the `.` (`nn` in `nn.linear`), when a name is there


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
            owner = re.search(r"([^\W\d]\w*)\s*\.$", dot) if attribute else None
            return Word(text, line, found.start() + 1, found.end() + 1, attribute, owner[1] if owner else None)
    for found in OPERATOR.finditer(line_text):
        if found.start() <= index < found.end():
            return Word(found[0], line, found.start() + 1, found.end() + 1)
    return None


def hover(
    found: list[Definition],
    lines: Sequence[str],
    word: Word,
    builtins: Mapping[str, Any],
    imports: Imports | None = None,
) -> str | None:
    """What to show for the word: the program's own definition of it (or the module's, for a name
    it imports), else DG's help for it."""
    place = in_module(found, lines, word, imports or Imports())
    if place is not None:
        module, definition = place
        return (
            described(definition, module) if definition is not None else f"module {module.name}    ({module.display})"
        )
    if not word.attribute:
        definition = definition_of(found, word.text, functions_at(found, lines, word.line, word.column))
        if definition is not None:
            return described(definition)
    entry = describe(word.text, builtins)
    return None if entry is None else render(entry)


def in_module(
    found: list[Definition], lines: Sequence[str], word: Word, imports: Imports
) -> tuple[ModuleView, Definition | None] | None:
    """The imported module a word names, with the module's definition of it: `nn.linear` (or
    `linear`, taken with `from nn import linear`) is the module's `linear`; `nn` is the module."""
    around = functions_at(found, lines, word.line, word.column)
    if word.attribute:
        if word.owner is None or word.owner not in imports.modules:
            return None
        own = definition_of(found, word.owner, around)
        if own is None or own.kind != "module":  # `nn` is something else here
            return None
        module = imports.modules[word.owner]
        return module, module.top(word.text.removeprefix("x."))
    own = definition_of(found, word.text, around)
    if own is None:
        return None
    if own.kind == "module" and word.text in imports.modules:
        return imports.modules[word.text], None
    if own.kind == "imported" and word.text in imports.names:
        module = imports.names[word.text]
        return module, module.top(word.text)
    return None


def described(definition: Definition, module: ModuleView | None = None) -> str:
    line = definition.span.line
    if module is not None:
        what = "function" if definition.kind == "function" else "name"
        head = f"def {definition.signature}" if definition.kind == "function" else definition.name
        return f"{head}    ({what} defined in {module.display}, line {line})"
    if definition.kind in ("module", "imported"):
        return f"{definition.name}    (imported on line {line})"
    if definition.kind == "function":
        return f"def {definition.signature}    (function defined on line {line})"
    if definition.kind == "parameter" and definition.scope is not None:
        return f"{definition.name}    (parameter of {definition.scope.name}, line {line})"
    where = f"in {definition.scope.name}" if definition.scope is not None else "at the top level"
    return f"{definition.name}    (variable {where}, first assigned on line {line})"


def definition(
    found: list[Definition], lines: Sequence[str], word: Word, imports: Imports | None = None
) -> tuple[Path | None, Span] | None:
    """Where the word under the cursor is defined: in this document (None for the file), or in a
    module it imports (that module's file); a builtin is defined nowhere."""
    place = in_module(found, lines, word, imports or Imports())
    if place is not None:
        module, definition = place
        if definition is not None:
            return module.file, definition.span
        return module.file, Span(Source(module.display, ""), 1, 1, 1, 1)  # the module itself: its top
    if word.attribute:
        return None
    found_one = definition_of(found, word.text, functions_at(found, lines, word.line, word.column))
    return None if found_one is None else (None, found_one.span)


def complete(
    found: list[Definition],
    lines: Sequence[str],
    line: int,
    column: int,
    builtins: Mapping[str, Any],
    imports: Imports | None = None,
) -> tuple[int, list[Item]]:
    """The completions of the word before the cursor, and the column that word starts at."""
    before_cursor = lines[line - 1][: column - 1] if 0 < line <= len(lines) else ""
    names = visible(found, functions_at(found, lines, line, column))
    modules = imports.modules if imports is not None else {}
    env = Env({name: stand_in(d, modules.get(name)) for name, d in names.items()}, Env(dict(builtins), None))
    owner = re.search(r"([^\W\d]\w*)\s*\.\s*\w*$", before_cursor)
    module = modules.get(owner[1]) if owner is not None and isinstance(env.lookup(owner[1]), Module) else None
    items = []
    start = column
    for candidate in completions(before_cursor, env, {}):
        start = column + candidate.start
        if module is not None:  # nn.: the module's names, each a function or a variable
            top = module.top(candidate.text)
            kind = "function" if top is not None and top.kind == "function" else "variable"
            detail = f"def {top.signature}" if top is not None and top.kind == "function" else module.display
            items.append(Item(candidate.text, kind, detail))
            continue
        items.append(item(candidate.text, candidate.meta, names, builtins, attribute=is_attribute(before_cursor)))
    return start, items


def is_attribute(before_cursor: str) -> bool:
    return re.search(r"[^\W\d]\w*\s*\.\s*\w*$", before_cursor) is not None


def stand_in(definition: Definition, module: ModuleView | None = None) -> Any:
    """What a name holds, as far as completion needs to know: a module its top level's names, a
    function no attributes; any other variable may be a tensor."""
    if definition.kind == "module" and module is not None:
        top = visible(module.found, [])
        return Module(module.name, module.display, Env({n: stand_in(d) for n, d in top.items()}, None))
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
