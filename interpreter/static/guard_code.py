"""A trace's guards on what it read, as generated code: the check a call makes before replaying.

`Outside.check` (guard_model.py) describes each value read and compares the descriptions: clear, but a
Python call per value. Like TorchDynamo, which compiles each frame's guards into one function,
each trace gets the same check written out as straight-line code, one test per part of each
description, made once when the trace is compiled:

    v0 = vars0[n0]                              # the global `W1`
    if type(v0) is not Tensor: return False
    if id(v0) in seen: return False             # (a tensor met before would be "the same")
    seen[id(v0)] = m0; tensors.append(v0)
    if v0.data.shape != k0 or ...: return False

It returns True with the walk's tensors as `Outside.check` would leave them, or False: then the
call asks `Outside.check` itself, which says what differs (and decides: the code is only ever
stricter). A description it cannot write out (a dict with other keys than strings, a NumPy
number, a value too large) leaves the trace with `Outside.check` alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.node import is_grad_enabled

from .generating import Code
from .guard_model import MISSING, SAME, TENSOR, UNREAD, Outside, masked

MAX_LINES = 2_000  # past it (a long list read), the trace keeps the walk
KINDS = {"float": "f", "int": "iu", "bool": "b"}  # Tensor.dtype's names, as NumPy's dtype kinds


def lazy_check(outside: Outside) -> Callable[[Any], bool]:
    """The compiled check of what a trace read from outside, written and compiled the first time
    it is called; one that cannot be written out says no (the call then asks the walk)."""
    made: list[Callable[..., bool] | None] = []

    def check(walk: Any) -> bool:
        if not made:
            made.append(compile_check(outside, *outside.start))
        return made[0] is not None and made[0](walk)

    return check


class TooLarge(Exception):
    """A description the code does not write out."""


def compile_check(outside: Outside, tensors: int, marks: int, key: Any = None) -> Callable[..., bool] | None:
    """The check for `outside`'s reads, after a key whose walk met `tensors` tensors and gave
    `marks` marks (tensors, lists and dicts); None where it cannot be written out.

    With `key` (the trace's cache key: the arguments' descriptions and the grad mode), the check
    `check(walk, args)` first tests the arguments as the key describes them, on a new walk: a call
    whose arguments it passes has that key, so the call skips describing them and looking the key up
    (StaticFunction tries the trace it replayed last this way first)."""
    code = Code()
    code.add("def check(walk, args=()):")
    code.add("    tensors, seen = walk.tensors, walk.seen")
    code.add("    try:")  # (a name no longer there: KeyError, and the walk says what is missing)
    unread = {**outside.unread_arguments, **outside.unread} if key is not None else outside.unread
    writer = Writer(code, 0 if key is not None else tensors, 0 if key is not None else marks, unread)
    try:
        if key is not None:
            described, grad_mode = key
            writer.fail_unless(f"len(args) == {len(described)} and grad_mode() is {bool(grad_mode)}")
            counter = [0]  # (an argument's .grad the trace did not read is not tested: Walk.unread)
            described = tuple(masked(argument, counter, outside.unread_arguments) for argument in described)
            for i, argument in enumerate(described):
                writer.add(f"a{i} = args[{i}]")
                writer.value(argument, f"a{i}")
            if (writer.tensors, writer.marks) != (tensors, marks):  # (numbered otherwise than the walk did)
                raise TooLarge
        for i, read in enumerate(outside.reads):
            name = f"v{i}"
            if read.module is not None:
                writer.add(f"{name} = {code.name('vars', read.module.env.vars)}[{code.name('n', read.name)}]")
            else:
                key, scope = code.name("n", read.name), read.scope
                while scope.parent is not None and read.name not in scope.vars:  # not defined there: still not
                    writer.add(f"if {key} in {code.name('vars', scope.vars)}: return False")
                    scope = scope.parent
                writer.add(f"{name} = {code.name('vars', scope.vars)}[{key}]")
            writer.value(read.described, name)
            if len(code.lines) > MAX_LINES:
                raise TooLarge
    except TooLarge:
        return None
    if not outside.reads:
        writer.add("pass")
    code.add("    except KeyError:")
    code.add("        return False")
    code.add("    return len(set(map(id, tensors))) == len(tensors)")
    code.namespace.update(Tensor=Tensor, ndarray=np.ndarray, type=type, id=id, len=len, list=list)
    code.namespace.update(float=float, dict=dict, set=set, map=map, isinstance=isinstance, generic=np.generic)
    code.namespace.update(grad_mode=is_grad_enabled)
    check = code.compile("check")
    check.source = "\n".join(code.lines)  # type: ignore[attr-defined]  # (for the listing's tests)
    return check


class Writer:
    """Writes the tests of one description after another, numbering marks as a walk would."""

    def __init__(self, code: Code, tensors: int, marks: int, unread: dict[int, int]) -> None:
        self.code, self.tensors, self.marks, self.names = code, tensors, marks, 0
        self.unread = unread

    def add(self, line: str) -> None:
        self.code.add("        " + line)  # (inside the check's `try:`)

    def fail_unless(self, test: str) -> None:
        self.add(f"if not ({test}): return False")

    def fresh(self) -> str:
        self.names += 1
        return f"x{self.names}"

    def value(self, described: Any, x: str) -> None:
        kind, name = described[0], self.code.name
        if kind == TENSOR:
            _, shape, dtype, requires_grad, leaf, grad = described
            self.fail_unless(f"type({x}) is Tensor")
            self.add(f"tensors.append({x})")  # (none met before: checked at the end, all at once)
            self.tensors += 1
            self.marks += 1
            data = self.fresh()
            self.add(f"{data} = {x}.data")
            # (a .grad that is set is tested below, where it must be a Tensor; one the trace did not
            # read is not tested, and as many stand-ins as it took keep the numbering: Walk.unread)
            grad_test = f" and {x}.grad is None" if grad is None else ""
            self.fail_unless(
                f"(type({data}) is ndarray or isinstance({data}, generic)) and {data}.shape == {name('k', shape)} "
                f"and {data}.dtype.kind in {name('k', KINDS[dtype])} and {x}.requires_grad is {requires_grad} "
                f"and {x}.grad_fn is {'' if leaf else 'not '}None{grad_test}"
            )
            if grad is UNREAD:
                count = self.unread[self.tensors - 1]
                if count:
                    self.add(f"tensors.extend({name('k', tuple(object() for _ in range(count)))})")
                    self.tensors += count
                    self.marks += count
            elif grad is not None:
                g = self.fresh()
                self.add(f"{g} = {x}.grad")
                self.value(grad, g)
        elif kind == SAME:
            number = described[1]
            if number >= 0:
                self.fail_unless(f"{x} is tensors[{int(number)}]")
            else:
                self.fail_unless(f"seen.get(id({x})) == {name('k', described)}")
        elif kind is float:
            value = float.fromhex(described[1])
            if value != 0 and math.isfinite(value):  # (== then means the same bits; not for 0.0, -0.0, nan)
                self.fail_unless(f"type({x}) is float and {x} == {name('k', value)}")
            else:
                self.fail_unless(f"type({x}) is float and {x}.hex() == {name('k', described[1])}")
        elif kind is int or kind is str or kind is bool:
            self.fail_unless(f"type({x}) is {name('t', kind)} and {x} == {name('k', described[1])}")
        elif kind is type(None):
            self.fail_unless(f"{x} is None")
        elif kind is object:
            self.fail_unless(f"{x} is {name('o', described[1].value)}")
            if len(described) > 2:  # a function's defaults (Walk.describe): the same function, the same tuple
                given = [i for i, d in enumerate(described[1].value.defaults) if d is not MISSING]
                for i, item in zip(given, described[2], strict=True):
                    y = self.fresh()
                    self.add(f"{y} = {x}.defaults[{i}]")
                    self.value(item, y)
        elif kind is list or kind is tuple:
            items = described[1]
            self.fail_unless(f"type({x}) is {name('t', kind)} and len({x}) == {len(items)}")
            if kind is list:
                self.mark(x)
            for i, item in enumerate(items):
                y = self.fresh()
                self.add(f"{y} = {x}[{i}]")
                self.value(item, y)
        elif kind is dict:
            pairs = described[1]
            keys = [k for k, _ in pairs]
            if any(k[0] is not str for k in keys):
                raise TooLarge
            self.fail_unless(f"type({x}) is dict and list({x}) == {name('k', [k[1] for k in keys])}")
            self.mark(x)
            for key, item in pairs:
                y = self.fresh()
                self.add(f"{y} = {x}[{name('k', key[1])}]")
                self.value(item, y)
        else:
            raise TooLarge

    def mark(self, x: str) -> None:
        """A list or dict met: not one met before (that would be "the same"), and marked."""
        self.fail_unless(f"id({x}) not in seen")
        self.add(f"seen[id({x})] = {self.code.name('m', (SAME, -1 - self.marks))}")
        self.marks += 1
