"""Dictionaries: `{"w1": w1, "b1": b1}`, DG values under keys, as a Python dict holds them.

A key is one of the values that never change: a number, a string, True/False, None, or a tuple of
them (`params[(layer, "w")]`). A tensor is not a key: it changes in place and compares elementwise
(PyTorch hashes tensors by identity, so `d[x]` finds nothing for an equal tensor, which surprises
everyone); a list is not one either, as in Python. Every key is checked here before Python hashes
it, so a mistake is a located error in DG's words, and a tuple nested too deeply to hash without
overflowing the C stack is refused.

A dict grows one item at a time, like a list's `append`, so the memory limit bounds it; what would
add many items at once (`update`, `dict(...)`) is checked against MAX_SEQUENCE first, as lists are.
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .runtime import MAX_SEQUENCE, iterate, show_short, suggest

KEY_NESTING = 100  # tuples inside tuples a key may hold (Python hashes them in C, one C frame a level)
KEYS_SHOWN = 5  # a KeyError's help lists at most this many keys


def key(value: Any) -> Any:
    """`value` if it can be a dictionary key; a TypeError saying why not otherwise."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is tuple:
        stack = [(value, 1)]  # a walk without recursion, over tuples that may nest deeply
        while stack:
            items, depth = stack.pop()
            if depth > KEY_NESTING:
                raise DGError("TypeError", f"a dictionary key may nest tuples at most {KEY_NESTING} deep")
            for item in items:
                if type(item) is tuple:
                    stack.append((item, depth + 1))
                elif type(item) not in (str, int, float, bool) and item is not None:
                    raise not_a_key(item, inside_tuple=True)
        return value
    raise not_a_key(value)


def not_a_key(value: Any, inside_tuple: bool = False) -> DGError:
    where = "a tuple used as a dictionary key cannot hold" if inside_tuple else "a dictionary key cannot be"
    message = f"{where} {a_type(value)}"
    if isinstance(value, Tensor):
        help = 'key by name (params["w1"]) or by number: a one-element tensor gives its number with .item()'
    elif type(value) is list:
        help = "use a tuple, which cannot change: (1, 2) instead of [1, 2]"
    else:
        help = "keys are numbers, strings, True, False, None, or tuples of them"
    return DGError("TypeError", message, help=help)


def missing(d: dict[Any, Any], k: Any) -> DGError:
    """The KeyError for a key `d` does not have, with the near key a typo missed."""
    shown = show_short(k)
    help = suggest(k, [c for c in d if type(c) is str]) if type(k) is str else None
    if help is None and d:
        keys = ", ".join(show_short(c) for c in list(d)[:KEYS_SHOWN])
        help = f"its keys are {keys}" + (f", ... ({len(d):,} keys)" if len(d) > KEYS_SHOWN else "")
    elif not d:
        help = "the dict is empty"
    return DGError("KeyError", f"{shown} is not a key of the dict", help=help)


# ---- what the operators do with a dict ---------------------------------------------------------
def get(d: dict[Any, Any], k: Any) -> Any:
    """d[k]"""
    try:
        return d[key(k)]
    except KeyError:
        raise missing(d, k) from None


def store(d: dict[Any, Any], k: Any, value: Any) -> None:
    """d[k] = value"""
    if len(d) >= MAX_SEQUENCE and key(k) not in d:
        raise too_many(len(d) + 1)
    d[key(k)] = value


def delete(d: dict[Any, Any], k: Any) -> None:
    """del d[k]"""
    try:
        del d[key(k)]
    except KeyError:
        raise missing(d, k) from None


def contains(d: dict[Any, Any], k: Any) -> bool:
    """k in d"""
    return key(k) in d


def too_many(count: int) -> DGError:
    return DGError("ValueError", f"that would make a dict of {count:,} items, more than the limit of {MAX_SEQUENCE:,}")


def pairs(items: Any) -> list[tuple[Any, Any]]:
    """(key, value) pairs from a dict, or from a list of pairs (what dict() and update() take)."""
    if type(items) is dict:
        return list(items.items())
    found = []
    for item in iterate(items):
        if type(item) not in (tuple, list) or len(item) != 2:
            raise DGError(
                "TypeError",
                f"expected (key, value) pairs, not {type_name(item)}"
                + (f" of {len(item)} items" if type(item) in (tuple, list) else ""),
                help='dict([("a", 1), ("b", 2)]), or dict(zip(keys, values))',
            )
        found.append((item[0], item[1]))
    if len(found) > MAX_SEQUENCE:
        raise too_many(len(found))
    return found


# ---- the methods a program may call (attributes.py lists them for the sandbox) ----------------------
def keys(d: dict[Any, Any]) -> list[Any]:
    """The keys, in the order they were added, as a list.

    >>> {"w": 1, "b": 2}.keys()
    ['w', 'b']
    """
    return list(d)


def values(d: dict[Any, Any]) -> list[Any]:
    """The values, in the order their keys were added, as a list.

    >>> {"w": 1, "b": 2}.values()
    [1, 2]
    """
    return list(d.values())


def items(d: dict[Any, Any]) -> list[tuple[Any, Any]]:
    """(key, value) pairs, in the order the keys were added, as a list: `for name, p in params.items():`.

    >>> {"w": 1, "b": 2}.items()
    [('w', 1), ('b', 2)]
    """
    return list(d.items())


def get_or(d: dict[Any, Any], k: Any, default: Any = None) -> Any:
    """The value under a key, or `default` (None) when the key is missing.

    >>> {"w": 1}.get("w"), {"w": 1}.get("b"), {"w": 1}.get("b", 0)
    (1, None, 0)
    """
    return d.get(key(k), default)


def pop(d: dict[Any, Any], k: Any, *default: Any) -> Any:
    """Remove a key and give its value (or `default`, if given, when the key is missing).

    >>> d = {"w": 1, "b": 2}
    >>> d.pop("w"), d
    (1, {'b': 2})
    """
    if len(default) > 1:
        raise DGError("TypeError", ".pop() takes a key and at most one default")
    if key(k) not in d and default:
        return default[0]
    value = get(d, k)
    del d[k]
    return value


def copy(d: dict[Any, Any]) -> dict[Any, Any]:
    """A new dict with the same keys and values (the values themselves are not copied).

    >>> a = {"w": 1}
    >>> b = a.copy()
    >>> b["w"] = 2
    >>> a, b
    ({'w': 1}, {'w': 2})
    """
    return dict(d)


def update(d: dict[Any, Any], other: Any) -> None:
    """Add the keys and values of another dict (or of a list of pairs), replacing those already there.

    >>> d = {"w": 1}
    >>> d.update({"w": 2, "b": 3})
    >>> d
    {'w': 2, 'b': 3}
    """
    new = pairs(other)
    if len(d) + len(new) > MAX_SEQUENCE:
        raise too_many(len(d) + len(new))
    for k, value in new:
        d[key(k)] = value


DICT_METHODS = {
    "keys": keys,
    "values": values,
    "items": items,
    "get": get_or,
    "pop": pop,
    "copy": copy,
    "update": update,
}


def dict_(items: Any = (), **key: Any) -> dict[Any, Any]:
    """A new dict: from a dict or a list of (key, value) pairs, and from key=value arguments.

    >>> dict([("w", 1), ("b", 2)]), dict(lr=0.1)
    ({'w': 1, 'b': 2}, {'lr': 0.1})
    """
    made: dict[Any, Any] = {}
    update(made, items)
    update(made, key)
    return made
