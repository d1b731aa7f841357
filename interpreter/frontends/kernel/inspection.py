"""Tab completion and Shift-Tab help in a notebook, from what the terminal REPL uses: completion.py's
candidates and the help data behind `:help` (library/help.py)."""

from __future__ import annotations

import re
from typing import Any

from dglang.interpreter.frontends.completion import KEYWORDS, completions
from dglang.interpreter.frontends.repl import Repl
from dglang.interpreter.library.help import describe, describe_value, render
from dglang.interpreter.library.runtime import MISSING, Builtin, Function

NAME = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)?|:\w+")


def complete_reply(code: str, cursor_pos: int, repl: Repl) -> dict[str, Any]:
    found = completions(code[:cursor_pos], repl.env, repl.commands)
    start = cursor_pos + (found[0].start if found else 0)
    return {
        "status": "ok",
        "matches": [c.text for c in found],
        "cursor_start": start,
        "cursor_end": cursor_pos,
        "metadata": {
            "_jupyter_types_experimental": [
                {"text": c.text, "start": start, "end": cursor_pos, "type": kind(c.text, repl), "signature": c.meta}
                for c in found
            ]
        },
    }


def kind(name: str, repl: Repl) -> str:
    """The type JupyterLab shows beside a candidate."""
    if name.startswith(":"):
        return "command"
    if name in KEYWORDS:
        return "keyword"
    value = repl.env.lookup(name) if name.isidentifier() else MISSING
    if isinstance(value, Builtin | Function):
        return "function"
    return "instance" if value is not MISSING else ""


def inspect_reply(code: str, cursor_pos: int, repl: Repl) -> dict[str, Any]:
    """Help on the name at the cursor, or else on the function whose call the cursor is inside."""
    name = name_at(code, cursor_pos) or called_name(code[:cursor_pos])
    text = help_text(name, repl) if name else None
    if text is None:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": {}}


def name_at(code: str, cursor_pos: int) -> str | None:
    """The name (or `obj.attribute`, or `:command`) that the cursor is on or just after."""
    for match in NAME.finditer(code):
        if match.start() <= cursor_pos <= match.end():
            return match[0]
    return None


def called_name(before: str) -> str | None:
    """`f` in `f(a, b|`: the name before the innermost bracket still open at the cursor."""
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        char = before[i]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                match = re.search(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*$", before[:i])
                return match[1] if match and char == "(" else None
            depth -= 1
    return None


def help_text(name: str, repl: Repl) -> str | None:
    """What `:help NAME` prints; for a variable, what `help(variable)` says of its value."""
    name = re.sub(r"\s+", "", name)
    obj, _, attribute = name.rpartition(".")
    if obj and repl.env.lookup(obj) is not MISSING:
        name = f"x.{attribute}"  # a method or attribute of a value: the tensor's, as completion offers
    builtins = repl.session.builtins.vars
    value = repl.env.lookup(name) if name.isidentifier() else MISSING
    if value is not MISSING and name not in builtins:
        return render(describe_value(value, builtins))
    found = describe(name, builtins)
    return render(found) if found is not None else None
