"""Completion, free of any terminal: what may complete the word before the cursor, each candidate
with its one-line summary (the terminal's menu shows it; a notebook or an editor may too)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dglang.autograd import Tensor
from dglang.interpreter.library.attributes import METHODS, PROPERTIES, TENSOR_METHODS, TENSOR_PROPERTIES
from dglang.interpreter.library.help import describe, everything
from dglang.interpreter.library.runtime import Builtin, Env, Function, GradMode, Module
from dglang.interpreter.syntax.parser import keywords

from .repl import COMMANDS, Commands, describe_vars

KEYWORDS = keywords()
WORD = re.compile(r"(?:(?P<obj>[A-Za-z_]\w*)\s*\.\s*)?(?P<word>\w*)$")


@dataclass(frozen=True)
class Candidate:
    text: str  # what replaces the word: "reshape", ":load"
    start: int  # where the word being completed starts, counted back from the cursor (<= 0)
    meta: str = ""  # one line about it: a summary, or a variable's type and shape


def completions(text_before_cursor: str, env: Env, commands: Commands) -> list[Candidate]:
    """What may complete the word before the cursor: a :command at the start of a line, an
    attribute after `name.`, else a name (a variable, a builtin, a keyword)."""
    line = text_before_cursor.split("\n")[-1]
    if line.lstrip().startswith(":help "):  # :help NAME: every name there is help for
        word = line.lstrip()[len(":help ") :].lstrip()
        scope = env
        while scope.parent is not None:
            scope = scope.parent
        entries = {e.name: e.summary for e in everything(scope.vars) if e.name.startswith(word)}
        return [Candidate(name, -len(word), summary) for name, summary in sorted(entries.items())]
    if line.lstrip().startswith(":") and " " not in line.strip():
        prefix = line.strip()[1:]
        return [
            Candidate(f":{name}", -len(prefix) - 1, cmd.summary)
            for name, cmd in commands.items()
            if name.startswith(prefix)
        ]
    match = WORD.search(line)
    if match is None:
        return []
    word = match["word"]
    if match["obj"] is not None:
        value = env.lookup(match["obj"])
        names = sorted(n for n in attribute_names(value) if n.startswith(word))
        return [Candidate(n, -len(word), attribute_summary(value, n)) for n in names]
    if not word:
        return []
    variables = {n for n in env.visible_names() if not n.startswith("_")}
    names = sorted(n for n in set(KEYWORDS) | variables if n.startswith(word) and n != word)
    return [Candidate(n, -len(word), name_summary(n, env)) for n in names]


def complete(text_before_cursor: str, env: Env, commands: Commands = COMMANDS) -> list[str]:
    """The candidates' texts alone."""
    return [c.text for c in completions(text_before_cursor, env, commands)]


def attribute_names(value: object) -> list[str]:
    """What may follow `value.`; a tensor's list when the value is not known yet."""
    kind = type(value)
    if kind is Module:  # nn.: the names the module defines
        return list(value.env.vars)  # type: ignore[attr-defined]
    if kind in PROPERTIES or kind in METHODS:
        return [*PROPERTIES.get(kind, {}), *METHODS.get(kind, {})]
    if isinstance(value, Builtin | Function | GradMode | int | float | bool) or value is None:
        return []
    return [*TENSOR_PROPERTIES, *TENSOR_METHODS]


def attribute_summary(value: object, name: str) -> str:
    if isinstance(value, Module):
        _, kind, shape, _ = describe_vars({name: value.env.vars[name]})[0]
        return f"{kind} {shape}"
    if isinstance(value, Tensor) or type(value) not in METHODS:
        found = describe(f"x.{name}")
        return found.summary if found is not None else ""
    method = METHODS[type(value)].get(name)
    own = getattr(method, "__module__", "") or ""
    if own.startswith("dglang") and method.__doc__:  # DG's own (a dict's): the first line of its help
        return method.__doc__.strip().split("\n")[0]
    return f"{type(value).__name__} method"


def name_summary(name: str, env: Env) -> str:
    """A variable's type and shape (as :vars shows it), else the name's help summary."""
    scope = env
    while scope.parent is not None:  # the program's scopes, innermost first; the builtins come last
        if name in scope.vars:
            _, kind, shape, _ = describe_vars({name: scope.vars[name]})[0]
            return f"{kind} {shape}"
        scope = scope.parent
    found = describe(name, scope.vars)
    return found.summary if found is not None else ""
