"""What a trace did with the `.grad` of the tensors it met through the walk, so that a call guards
a `.grad` only where the function read the one the call came in with (guard_model.py, Walk.unread).

A function reads a tensor's incoming `.grad` when the program reads `w.grad` before setting it
(`if w.grad == None`), when a `grad` inside adds to it, or when an op takes it (then the walk's
number of that `.grad` is among the trace's sources). It sets it with `zero_grad(w)` or
`w.grad = v`, after which what it reads is its own. A training step that calls `zero_grad` first
does not depend on the `.grad` it came in with: None at the first call, set at every later one.
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.table import FUNCTIONS

from .guard_model import SAME, TENSOR, Outside, Walk

# The builtins known not to read the .grad of the tensors they are given: the engine's functions
# and Python's. Any other builtin a program calls (one a tool or an exercise adds, written in
# Python: `clip_grad_norm(params)` may test `t.grad is None`) counts as reading the .grad of each
# tensor it is given, as it came in unless the function set it before.
NOT_READING_GRADS = frozenset(f.dg_name for f in FUNCTIONS) | {
    "print", "len", "range", "enumerate", "zip", "sorted", "reversed", "list", "tuple", "dict", "str", "int",
    "float", "bool", "round", "type", "abs", "min", "max", "sum", "mean", "zero_grad", "assert_close",
}  # fmt: skip


class GradUse:
    """The record the tracer keeps (Tracer.read_grad, wrote_grad, on_backward)."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.incoming: dict[int, Any] = {id(t): t.grad for t in walk.tensors}  # by tensor id, as met
        self.seen: set[int] = set()  # the walk's numbers of tensors whose incoming .grad was read
        self.written: dict[int, Tensor] = {}  # the tensors whose .grad the function set, by id
        self.requires = {id(t): t.requires_grad for t in walk.tensors}  # requires_grad as it came in

    def met(self, t: Tensor) -> None:
        """A tensor the walk met reading a name: its .grad as it came in."""
        self.incoming.setdefault(id(t), t.grad)
        self.requires.setdefault(id(t), t.requires_grad)

    def read(self, t: Tensor) -> None:
        if id(t) not in self.written:
            mark = self.walk.seen.get(id(t))
            if mark is not None and mark[1] >= 0:
                self.seen.add(mark[1])

    def wrote(self, t: Tensor) -> None:
        self.written[id(t)] = t

    def given(self, builtin: str, args: list[Any]) -> None:
        """A builtin was called with `args`: one not known to leave .grad alone read it."""
        if builtin not in NOT_READING_GRADS:
            stack = [args]
            while stack:
                for a in stack.pop():
                    if type(a) is Tensor:
                        self.read(a)
                    elif type(a) in (list, tuple):
                        stack.append(a)
                    elif type(a) is dict:
                        stack.append(list(a.values()))

    def changed(self, t: Tensor, when_met: Any) -> bool:
        """Is `t.grad` an effect of the call: set by the function, or not the one it came in with?"""
        return id(t) in self.written or t.grad is not self.incoming.get(id(t), when_met)

    def requires_changed(self) -> bool:
        """Did the function turn requires_grad on or off for a tensor it met through the walk?"""
        requires = self.requires
        return any(t.requires_grad is not requires.get(id(t), t.requires_grad) for t in self.walk.tensors)

    def unread(self, outside: Outside, arguments: tuple[Any, ...] | None = None) -> dict[int, int]:
        """The walk's numbers of the tensors read by name whose .grad the function never read as it
        came in (Walk.unread): each with how many numbers that .grad's description took. An op on
        it, or a name bound to it too, reads it: those keep their .grad in the guards. Given the
        arguments' descriptions (the cache key's), the same for the tensors in the arguments."""
        used = set(outside.sources.values())
        for read in outside.reads:
            used.update(same_marks(read.described))
        for described in arguments or ():
            used.update(same_marks(described))
        grads = self.walk.grads
        in_grads = {n for first, count in grads.values() for n in range(first, first + count)}
        found = {}
        numbers = range(outside.start[0], len(self.walk.tensors)) if arguments is None else range(outside.start[0])
        for number in numbers:
            if number in self.seen or number in in_grads:
                continue
            first, count = grads.get(number, (0, 0))
            if type(self.incoming.get(id(self.walk.tensors[number]))) is Tensor and count == 0:
                continue  # (its .grad is a tensor met before: which one it is, is read)
            if not used.intersection(range(first, first + count)):
                found[number] = count
        return found


def same_marks(described: Any) -> list[int]:
    """The tensor numbers a description names as "the same as" one met before."""
    if type(described) is not tuple or not described:
        return []
    kind = described[0]
    if kind == SAME:
        return [described[1]] if described[1] >= 0 else []
    if kind == TENSOR:
        return same_marks(described[5])
    if kind is list or kind is tuple:
        return [n for d in described[1] for n in same_marks(d)]
    if kind is dict:
        return [n for k, v in described[1] for n in same_marks(k) + same_marks(v)]
    return []
