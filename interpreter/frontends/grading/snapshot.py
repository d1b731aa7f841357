"""A copy of a session's variables, so that each test starts from the state the top level left.

One test may train the student's weights in place, append to a global list or accumulate into a
`.grad`; the next must not see it. Running the top level again for every test would repeat all
its work (a training loop, ten times), so the state is copied instead: every scope, list, tensor,
recorded node and function a variable reaches, walked with a stack rather than by recursion (a
graph recorded by a loop of 100,000 steps is a chain that deep, and `copy.deepcopy` overflows the
C stack on it).

What is copied is what a DG program can change: scopes, lists, tensors (their `.grad`, `.data`
binding, `requires_grad`), the nodes that link tensors (so a test's `grad` reaches the copies),
functions (which hold their scope), bound methods and modules (the submission a tests file
imported: its own scope, so a test that changes the submission's state changes it for itself
only). Everything else is shared: numbers, strings, builtins, compiled code, op declarations
(their rules), source spans. So are NumPy arrays, because
DG never writes into an array two tensors hold: an in-place update or an item assignment replaces
`t.data` with a new array (autograd/inplace.py; an update writes in place only into an array
nothing else holds), so a copy and its original cannot see each other's updates.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from dglang.autograd.tensor import Node, Tensor
from dglang.interpreter.library.runtime import BoundMethod, Env, Function, Module

# For each copied type: the attributes that may hold something to copy, and those shared as they are.
LINKS: dict[type, tuple[str, ...]] = {
    Env: ("vars", "parent"),
    Tensor: ("grad", "grad_fn"),
    Node: ("inputs", "args"),  # args: what the node's rule receives, its inputs among them
    Function: ("defaults", "env"),
    BoundMethod: ("obj",),
    Module: ("env",),
}
SHARED_SLOTS: dict[type, tuple[str, ...]] = {
    Env: (),
    Tensor: ("data", "name", "requires_grad", "version"),
    Node: ("call", "epoch", "op", "where"),
    Function: ("name", "params", "body", "span"),
    BoundMethod: ("name", "fn"),
    Module: ("name", "path"),
}
COPIED = frozenset([*LINKS, list, dict, tuple])
UNSET: Any = object()


def copy_state(root: Any, shared: tuple[Any, ...] = ()) -> Any:
    """A copy of `root` and of everything it reaches that a program can change; the objects in
    `shared` (the builtins' scope and table) and what only they reach are not copied."""
    return snapshot(root, shared).root


@dataclass
class Snapshot:
    """A copy of a state, and the lists and dicts made for it (its scopes' variables among them)."""

    root: Any
    containers: list[Any]

    def release(self) -> None:
        """Empty the copy's lists and dicts, once the test that used it is over: a copy holds cycles
        (a function in the scope it closes over), which only a full collection would free, so each
        test's copy stayed, and `dg test --max-memory 400M` grew to 940 MB over five tests."""
        for container in self.containers:
            container.clear()
        self.containers = []


def snapshot(root: Any, shared: tuple[Any, ...] = ()) -> Snapshot:
    """copy_state's copy, releasable."""
    # A copy allocates an object per object copied and frees none: the cycle collector would only
    # rescan them, again and again, as it does while a program parses (see Session.compile).
    collecting = gc.isenabled()
    gc.disable()
    try:
        copies = copy_all(root, shared)
        containers = [c for c in copies.values() if type(c) is list or type(c) is dict]
        return Snapshot(copies.get(id(root), root), containers)
    finally:
        if collecting:
            gc.enable()


def copy_all(root: Any, shared: tuple[Any, ...]) -> dict[int, Any]:
    found = discover(root, {id(x) for x in shared})
    copies: dict[int, Any] = {}
    # Shells first, so that cycles (a function in the scope it closes over) find their copy.
    for obj in found:
        kind = type(obj)
        if kind is not tuple:
            copies[id(obj)] = [] if kind is list else {} if kind is dict else object.__new__(kind)
    # Then the tuples, which need only the shells of what they hold; then fill in the shells.
    for obj in found:
        if type(obj) is tuple:
            copy_tuple(obj, copies)
    get = copies.get
    for obj in found:
        kind = type(obj)
        if kind is tuple:
            continue
        if kind is list:
            copies[id(obj)].extend([get(id(item), item) for item in obj])
        elif kind is dict:
            copies[id(obj)].update([(key, get(id(value), value)) for key, value in obj.items()])
        else:
            target = copies[id(obj)]
            for slot in SHARED_SLOTS[kind]:
                value = getattr(obj, slot, UNSET)
                if value is not UNSET:
                    object.__setattr__(target, slot, value)
            for slot in LINKS[kind]:
                value = getattr(obj, slot, UNSET)
                if value is not UNSET:
                    object.__setattr__(target, slot, get(id(value), value))
    return copies


def copy_tuple(t: tuple[Any, ...], copies: dict[int, Any]) -> None:
    """Copy a tuple once the tuples inside it are copied. A cycle always passes through something
    mutable, whose shell already exists, so the tuples alone never wait for each other in a circle."""
    stack = [t]
    while stack:
        top = stack[-1]
        if id(top) in copies:
            stack.pop()
            continue
        waiting = [c for c in top if type(c) is tuple and id(c) not in copies]
        if waiting:
            stack.extend(waiting)
            continue
        copies[id(top)] = tuple([copies.get(id(item), item) for item in top])
        stack.pop()


def discover(root: Any, keep: set[int]) -> list[Any]:
    """Every object to copy that `root` reaches, each once."""
    if type(root) not in COPIED or id(root) in keep:
        return []
    seen = set(keep)
    seen.add(id(root))
    found = [root]
    stack = [root]
    while stack:
        obj = stack.pop()
        kind = type(obj)
        if kind is list or kind is tuple:
            items: Any = obj
        elif kind is dict:
            items = obj.values()
        else:
            items = [getattr(obj, slot, None) for slot in LINKS[kind]]
        for child in items:
            if type(child) in COPIED and id(child) not in seen:
                seen.add(id(child))
                found.append(child)
                stack.append(child)
    return found
