"""The guard model: what a static call checks before it runs a trace's code, in one place.

A trace is the straight line of ops one call of a function took. Before running that line for
another call, `static` must know the function would take it again: that everything the trace
depended on is as it was. It checks three things (static_calls.py, replaying.py):

    the cache key   the arguments, bound as Python binds them (keywords, defaults), each
                    described below, and whether grad mode is on
    what it read    every name the trace read from outside the function while it ran: a global,
                    a variable of an enclosing function, a module's name (`nn.linear`), a helper
                    function, a builtin. Each is looked up again and described the same way.
    what it decided each decision the function took on a tensor's values (`if x.sum() > 0`,
                    `.item()`, a loop's test): checked by the generated code as it runs

How a value is described: two values with the same description take the trace the same way.

    a tensor          its shape, dtype, requires_grad, leaf or not, and its .grad (None, or a
                      tensor described the same way); not its values: the trace reads them
                      again at each call, and guards every decision it took on them. The .grad
                      of a tensor read by name counts only where the trace read the one that
                      came in (`w.grad` in the program, a `grad` adding to it, an op on it):
                      a training step that sets it to None first (`zero_grad`) does not depend
                      on it, and neither does a function that never touches it
    a number          its type and value, bit for bit: 0.0 and -0.0 differ, nan equals nan
    str, bool, None   the value
    list, tuple, dict each item in order (a dict's keys too)
    anything else     which object it is: a function (and its defaults, which a call may use),
                      a module, a builtin; a function defined again is another function
    met again         a tensor, list or dict met earlier in the same walk is described as "the
                      same as that one": which arguments and captured tensors are one tensor
                      is part of the description, so a trace never takes one tensor for another

A walk numbers the tensors it meets in order, the arguments' first. A trace names each tensor
it captured from outside by that number, so a call reads it again by reference: `W = tensor(...)`
rebinding a global is seen, with no new trace when the shape is the same. This is TorchDynamo's
design (guards on everything the frame read); JAX's jit instead makes closed-over values
constants of the compiled function. docs/for-compiler-courses.md compares the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.interpreter.library.runtime import MISSING, Builtin, Env, Function, Module

MAX_ITEMS = 10_000  # items one call's walk may look at; past it the function runs dynamically
MAX_DEPTH = 32  # lists in lists, at most


class Unguardable(Exception):
    """A value too large or too deep to describe at each call: the function runs dynamically."""


class Same:
    """An object described by which object it is (a function, a module): equal only to itself."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is Same and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


TENSOR, SAME = "tensor", "same"
UNREAD = ("unread",)  # a .grad the trace did not read, in place of its description (Walk.unread)


DTYPE_NAMES = {"b": "bool", "i": "int", "u": "int"}  # NumPy's dtype kinds as Tensor.dtype names them (else "float")


class Walk:
    """Describes values one after another (the arguments, then each name read), numbering the
    tensors, lists and dicts it meets so that one met again is described as the same."""

    __slots__ = ("budget", "grads", "seen", "tensors", "unread")

    def __init__(self) -> None:
        self.tensors: list[Any] = []  # each tensor met, in order: what a trace's numbers name
        self.seen: dict[Any, tuple[str, int]] = {}  # id of a tensor, list or dict met -> its mark
        self.budget = MAX_ITEMS
        # The numbers of tensors whose .grad a trace did not read -> how many numbers describing
        # it took when traced: it is not described, and as many stand-ins keep the numbering.
        self.unread: dict[int, int] = {}
        self.grads: dict[int, tuple[int, int]] = {}  # tensor number -> (its .grad's first number, how many)

    def fork(self) -> Walk:
        """A copy to go on with (each cached trace reads its own names after the same arguments)."""
        other = Walk()
        other.tensors, other.seen, other.budget = list(self.tensors), dict(self.seen), self.budget
        other.unread, other.grads = self.unread, dict(self.grads)
        return other

    def describe(self, value: Any, depth: int = 0) -> Any:
        kind = type(value)
        if kind is Tensor:
            mark = self.seen.get(id(value))
            if mark is not None:
                return mark
            number = len(self.tensors)
            self.seen[id(value)] = (SAME, number)
            self.tensors.append(value)
            grad, data = value.grad, value.data
            if type(data) is np.ndarray:  # (Tensor.shape and .dtype, without their calls: a key is made per call)
                shape, dtype = data.shape, DTYPE_NAMES.get(data.dtype.kind, "float")
            else:
                shape, dtype = value.shape, value.dtype
            if self.unread and number in self.unread:
                for _ in range(self.unread[number]):  # stand-ins, marks included, for what it took when traced
                    stand_in = object()
                    self.seen[stand_in] = (SAME, len(self.tensors))
                    self.tensors.append(stand_in)
                described: Any = UNREAD
            elif grad is None:
                described = None
            else:
                first = len(self.tensors)
                described = self.describe(grad, depth)
                self.grads[number] = (first, len(self.tensors) - first)
            return (TENSOR, shape, dtype, value.requires_grad, value.grad_fn is None, described)
        if kind is float:
            return (float, value.hex())  # the sign of a zero kept; every nan the same
        if kind is int or kind is str or kind is bool or value is None:
            return (kind, value)
        if kind is list or kind is tuple or kind is dict:
            if depth >= MAX_DEPTH:
                raise Unguardable(f"a {kind.__name__} nested more than {MAX_DEPTH} deep")
            self.budget -= len(value)
            if self.budget < 0:
                raise Unguardable(f"more than {MAX_ITEMS:,} items in lists and dicts")
            if kind is not tuple:  # a tuple cannot change: which one it is does not matter
                mark = self.seen.get(id(value))
                if mark is not None:
                    return mark
                self.seen[id(value)] = (SAME, -1 - len(self.seen))
            if kind is dict:
                items = value.items()
                return (dict, tuple((self.describe(k, depth + 1), self.describe(v, depth + 1)) for k, v in items))
            return (kind, tuple([self.describe(v, depth + 1) for v in value]))
        if isinstance(value, np.generic):
            return (kind, value.tobytes())
        if kind is Function and depth < MAX_DEPTH:  # and its defaults, which a call may use (a list changed)
            defaults = [self.describe(d, depth + 1) for d in value.defaults if d is not MISSING]
            return (object, Same(value), tuple(defaults))
        return (object, Same(value))


# ---- what a trace read ---------------------------------------------------------------------------
@dataclass(eq=False)
class Read:
    """A name a trace read from outside its function: looked up again at each call.

    scope   where the lookup starts: the first scope outside the function on the way up
    module  the module for `nn.name` (its own names only, as `nn.name` reads them), else None
    """

    scope: Env
    name: str
    label: str  # how a note names it: "the global `scale`", "`nn.linear`"
    module: Any = None
    described: Any = None  # its description when traced
    value: Any = None  # the value itself (kept: a function's identity must outlive the trace)

    def now(self) -> Any:
        if self.module is not None:
            return self.module.env.vars.get(self.name, MISSING)
        return self.scope.lookup(self.name)


@dataclass(eq=False)
class Outside:
    """What a trace depends on outside its function, besides the cache key: its reads, in the
    order first made, each with its description; where each tensor it captured comes from; and
    who each tensor of the walk was, by name, for the notes."""

    reads: list[Read] = field(default_factory=list)
    described: tuple[Any, ...] = ()  # the reads' descriptions, in order (compared in one go)
    sources: dict[int, int] = field(default_factory=dict)  # variable of the trace -> its tensor's number in the walk
    owners: dict[int, str] = field(default_factory=dict)  # tensor number -> who it was first met as
    start: tuple[int, int] = (0, 0)  # the tensors and marks the arguments' walk made before the reads
    unread: dict[int, int] = field(default_factory=dict)  # the .grads it did not read (Walk.unread)
    unread_arguments: dict[int, int] = field(default_factory=dict)  # the same among the arguments'

    def add(self, read: Read) -> None:
        self.reads.append(read)
        self.described = (*self.described, read.described)

    def forget_grads(self, unread: dict[int, int]) -> None:
        """From now on, describe the .grads the trace did not read as UNREAD (Walk.unread)."""
        self.unread = unread
        if unread:
            counter = [self.start[0]]
            for read in self.reads:
                read.described = masked(read.described, counter, unread)
            self.described = tuple(read.described for read in self.reads)

    def check(self, walk: Walk) -> str | None:
        """None when every read describes as it did (walk has then met their tensors), else why not."""
        walk.unread = self.unread
        try:
            now = tuple([walk.describe(read.now()) for read in self.reads])
        except Unguardable as e:
            return f"it reads {e}, too many to check at each call"
        if now == self.described:
            return None
        return self.difference(walk, now)

    def difference(self, walk: Walk, now: tuple[Any, ...]) -> str:
        """The first read that differs, in a student's words."""
        for read, was, is_ in zip(self.reads, self.described, now, strict=True):
            if was != is_:
                return changed(read.label, was, is_, read.now(), self.owners, walk)
        return "a value it read changed"


def masked(described: Any, counter: list[int], unread: dict[int, int]) -> Any:
    """A description as a walk with `unread` makes it: the tensors numbered as the walk numbers
    them (counter[0]: the next number), each unread .grad as UNREAD."""
    kind = described[0]
    if kind == TENSOR:
        number = counter[0]
        counter[0] += 1
        if number in unread:
            counter[0] += unread[number]
            return (*described[:5], UNREAD)
        grad = described[5]
        return (*described[:5], None if grad is None else masked(grad, counter, unread))
    if kind is list or kind is tuple:
        return (kind, tuple(masked(d, counter, unread) for d in described[1]))
    if kind is dict:
        return (dict, tuple((masked(k, counter, unread), masked(v, counter, unread)) for k, v in described[1]))
    if kind is object and len(described) > 2:  # a function's defaults
        return (object, described[1], tuple(masked(d, counter, unread) for d in described[2]))
    return described


def changed(label: str, was: Any, is_: Any, value: Any, owners: dict[int, str], walk: Walk) -> str:
    """How a value read differs now: "the global `scale` was 2.0 when traced and is 3.0 now"."""
    if value is MISSING:
        return f"{label} was {described_text(was)} when traced and is no longer defined"
    if was[0] is object and type(was[1].value) is Function and type(value) is Function:
        if value is not was[1].value or len(was) < 3:
            return f"{label} was redefined (at {place(value)})"
        given = [(p, d) for p, d in zip(value.params, value.defaults, strict=True) if d is not MISSING]
        for (param, default), a, b in zip(given, was[2], is_[2], strict=True):
            if a != b:  # the same function, a default of it changed (a list's items)
                return changed(f"the default of `{param}` in {label}", a, b, default, owners, walk)
    if was[0] == SAME and was != is_:
        if was[1] < 0:
            return f"{label} was the same list or dict as another it reads when traced, and is not now"
        return f"{label} and {owners.get(was[1], 'another tensor it reads')} were the same tensor when traced"
    if is_[0] == SAME:
        if type(value) is not Tensor:
            return f"{label} is the same list or dict as another it reads now, and was not when traced"
        other = next((owners.get(n, "") for n, t in enumerate(walk.tensors) if t is value), "")
        return f"{label} is the same tensor as {other or 'another tensor it reads'} now, and was not when traced"
    if was[0] == TENSOR and is_[0] == TENSOR:
        return tensor_change(label, was, is_)
    if was[0] == is_[0] and was[0] in (list, tuple) and len(was[1]) == len(is_[1]):
        for i, (a, b) in enumerate(zip(was[1], is_[1], strict=True)):
            if a != b:
                return changed(f"item {i} of {label}", a, b, value[i], owners, walk)
    if was[0] == is_[0] is dict and [k for k, _ in was[1]] == [k for k, _ in is_[1]]:
        for (key, a), (_, b), item in zip(was[1], is_[1], value.values(), strict=True):
            if a != b:
                return changed(f"the item {described_text(key)} of {label}", a, b, item, owners, walk)
    return f"{label} was {described_text(was)} when traced and is {shown(value)} now"


def tensor_change(label: str, was: Any, is_: Any) -> str:
    """What differs between two tensors' descriptions, the first thing only."""
    _, shape, dtype, requires_grad, leaf, grad = was
    if (shape, dtype) != is_[1:3]:
        return (
            f"{label} was a {dtype}[{', '.join(map(str, shape))}] tensor when traced and is a {is_[2]}"
            f"[{', '.join(map(str, is_[1]))}] tensor now"
        )
    if requires_grad != is_[3]:
        return (
            f"{label} {'required' if requires_grad else 'did not require'} grad when traced and "
            f"{'does not' if requires_grad else 'does'} now"
        )
    if leaf != is_[4]:
        return (
            f"{label} was {'a leaf' if leaf else 'computed by an op'} when traced and is "
            f"{'computed by an op' if leaf else 'a leaf'} now"
        )
    if grad is UNREAD or is_[5] is UNREAD:
        return f"{label} is not the tensor it was when traced"
    if (grad is None) != (is_[5] is None):
        return (
            f"the .grad of {label} was {'None' if grad is None else 'set'} when traced and is "
            f"{'set' if grad is None else 'None'} now"
        )
    if grad is not None and grad[0] == TENSOR and is_[5][0] == TENSOR:
        return tensor_change(f"the .grad of {label}", grad, is_[5])
    return f"{label} is not the tensor it was when traced"


def shown(value: Any) -> str:
    """A value as a note shows it: short, tensors by what the guard checks of them."""
    if type(value) is Tensor:
        parts = [f"a {value.dtype}[{', '.join(map(str, value.shape))}] tensor"]
        if value.requires_grad:
            parts.append("requiring grad" if value.grad_fn is None else "computed by an op")
        if value.grad is not None:
            parts.append("with its .grad set")
        return " ".join(parts)
    if type(value) is Function:
        return f"the function defined at {place(value)}"
    if type(value) is Module:
        return f"module {value.name}"
    if type(value) is Builtin:
        return f"the builtin {value.name}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def described_tensor(description: Any) -> str:
    """A tensor's description as a guard listing shows it: `float[3] requires_grad, .grad None`."""
    _, shape, dtype, requires_grad, leaf, grad = description
    text = f"{dtype}[{', '.join(map(str, shape))}]"
    if requires_grad:
        text += " requires_grad" if leaf else " (computed)"
    return text + (", .grad set" if grad is not None and grad is not UNREAD else "")


def argument_walk(params: tuple[str, ...], args: list[Any]) -> tuple[Walk, list[Tensor], dict[int, str]]:
    """The walk of a call's arguments as the cache key makes it; the tensors among the arguments
    (a trace's inputs: not their .grads); and who each tensor is, for the notes."""
    walk, owners = Walk(), {}
    for param, value in zip(params, args, strict=False):
        before = len(walk.tensors)
        walk.describe(value)
        for number in range(before, len(walk.tensors)):
            t = walk.tensors[number]
            owners[number] = f"the argument `{param}`" if t is value else f"a tensor in the argument `{param}`"
    grads = {id(t.grad) for t in walk.tensors if t.grad is not None}
    for number, t in enumerate(walk.tensors):
        if id(t) in grads:
            owners[number] = next(f"the .grad of {owners[n]}" for n, u in enumerate(walk.tensors) if u.grad is t)
    return walk, [t for t in walk.tensors if id(t) not in grads], owners


def described_text(part: Any) -> str:
    """A description (Walk.describe) as a listing or a note shows it: `float[3] requires_grad`, `2.0`."""
    kind = part[0]
    if kind == TENSOR:
        return described_tensor(part)
    if kind == SAME:
        return f"tensor {part[1] + 1} again" if part[1] >= 0 else "a list or dict met before"
    if kind is list or kind is tuple:
        inner = ", ".join(described_text(p) for p in part[1])
        return f"[{inner}]" if kind is list else f"({inner}{',' if len(part[1]) == 1 else ''})"
    if kind is dict:
        return "{" + ", ".join(f"{described_text(k)}: {described_text(v)}" for k, v in part[1]) + "}"
    if kind is float:
        return repr(float.fromhex(part[1]))
    if kind is object:
        return shown(part[1].value)
    return shown(part[1])


def place(f: Function) -> str:
    """Where a function was defined: `helpers.dg:3`."""
    name = f.span.source.name.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name}:{f.span.line}"
