"""Side effects a static graph does not replay: a list or dict the function did not make, changed.

A trace keeps the function's tensor ops; a `print` or `losses.append(loss)` happens once, while it
is traced, and not at the replays after (as in JAX and torch.compile's graphs). DG says so, once,
the first time such a function is re-used (static_calls.py), rather than dropping the change
silently. To know, each trace looks at what the function can reach before and after it runs:
the lists and dicts among its arguments and the variables of the scopes it closes over (and
inside those, to LIMIT items), and those it reads through a module's name, each with its items as
they were; one that differs afterwards
(an append, a pop, `d[k] = v`, `xs[0] = 1`) is a change the replays will not make. A program
that never traces pays nothing; a trace pays one walk, before and after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LIMIT = 100_000  # items looked at, at most, per trace: past it the rest is not watched


@dataclass
class Snapshot:
    """Each list and dict met, with a shallow copy of its items (which keeps them alive, so
    that `is` tells them apart) and the name it was bound to, when it was."""

    kept: list[tuple[Any, Any, str | None]] = field(default_factory=list)


def snapshot(roots: Any, shot: Snapshot | None = None) -> Snapshot:
    """What `roots` (a list of (name or None, value)) hold, as changes(...) will compare it
    (added to `shot` when given: a tracer adds each list or dict as the function reads it)."""
    shot = Snapshot() if shot is None else shot
    seen, budget = {id(c) for c, _, _ in shot.kept}, [LIMIT]
    for name, value in roots or ():
        _walk(value, name, shot, seen, budget)
    return shot


def _walk(value: Any, name: str | None, shot: Snapshot, seen: set[int], budget: list[int]) -> None:
    kind = type(value)
    if kind not in (list, dict, tuple) or id(value) in seen or budget[0] <= 0:
        return
    seen.add(id(value))
    budget[0] -= len(value)
    if kind is tuple:
        items = value
    elif kind is list:
        items = list(value)
        shot.kept.append((value, items, name))
    else:
        items = list(value.values())
        shot.kept.append((value, [*value, *items], name))  # its keys, then its values
    for item in items:
        _walk(item, None, shot, seen, budget)


def changes(shot: Snapshot) -> str | None:
    """The first list or dict of the snapshot whose items changed since (`the list losses`), or None."""
    for container, before, name in shot.kept:
        now = list(container) if type(container) is list else [*container, *container.values()]
        if len(now) != len(before) or any(a is not b for a, b in zip(now, before, strict=True)):
            kind = "list" if type(container) is list else "dict"
            return f"the {kind} {name}" if name else f"a {kind} it did not make"
    return None
