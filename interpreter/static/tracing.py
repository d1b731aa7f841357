"""Tracing: run a function once, listening to the engine, and keep what it did as a Trace.

The tracer listens to two of the engine's events (autograd/node.py): `on_op`, for every op that
runs (recorded or not: ops on constants too), with the op's declaration from the op table, its
arguments as given and its output; and `on_value`, for every tensor that becomes a Python value
(a condition's truth, `.item()`, an index), which the trace must guard.

Each tensor the trace meets gets a variable number: the arguments first (in the order their
tensors appear in the arguments), then each op's output. A tensor that comes from elsewhere (a
closure's weight, a constant made inside the function with `zeros(...)` or a number written in
an expression) is *captured*: the trace keeps the tensor object itself, and each replay reads
its values as they are then. Nothing else is kept: no text of the program ever becomes code.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.op import Op
from dglang.autograd.tensor import lift, recording


@dataclass(frozen=True, slots=True)
class Var:
    """A tensor of the trace: `t3` in the code."""

    number: int


@dataclass(frozen=True, slots=True)
class Const:
    """Any other argument of an op (an axis, a shape, Python's `operator.gt`): passed as the object."""

    value: Any


@dataclass(slots=True)
class Step:
    """One op of the trace: `out = op.forward(*args)`.

    args      Var, Const, or a tuple of Vars (a variadic op's list), in forward's order
    inputs    the positions of args that are the op's inputs (its rule sends each a gradient)
    recorded  the op recorded a node when traced, so gradients flow back through it
    site      where the program ran it (its span, for the listing's comments)
    """

    op: type[Op]
    args: tuple[Any, ...]
    inputs: frozenset[int]
    out: Var
    recorded: bool
    site: Any
    shape: tuple[int, ...] = ()


@dataclass(slots=True)
class Guard:
    """A decision the trace depended on: `var` became the Python value `observed` (by `how`)
    right after step `after` (-1: before any step)."""

    var: Var
    how: str  # "bool", "item", "int" or "tolist"
    observed: Any
    after: int
    site: Any


@dataclass
class Trace:
    """What one run of a function did, as straight-line steps over variables."""

    inputs: list[Var] = field(default_factory=list)
    captured: list[tuple[Var, Tensor]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    shapes: dict[int, tuple[int, ...]] = field(default_factory=dict)  # each variable's shape when traced
    dtypes: dict[int, str] = field(default_factory=dict)
    needs_grad: set[int] = field(default_factory=set)  # variables that required grad when traced
    result: Any = None  # the function's value, with Vars in place of its tensors (see encode_result)
    refused: str | None = None  # why this run cannot be a static graph (see Tracer.refuse)
    literals: dict[int, Any] = field(default_factory=dict)  # variables holding a number the program wrote
    frees: dict[int, list[int]] = field(default_factory=dict)  # after step i, the values let go (optimizing.py)

    @property
    def size(self) -> int:
        return len(self.inputs) + len(self.captured) + len(self.steps)


class Tracer:
    """Listens to the engine while the function runs (recording.listen) and builds its Trace."""

    def __init__(self, arguments: list[Tensor]) -> None:
        self.trace = Trace()
        self.by_id: dict[int, Var] = {}
        self.by_data: dict[int, Var] = {}  # the array a variable holds: `x.detach()` shares it
        self.alive: list[Any] = []  # every tensor met, kept so that no id is reused while tracing
        self.literal_vars: dict[tuple[type, Any], Var] = {}  # numbers the program wrote, by value
        for t in arguments:
            if id(t) not in self.by_id:
                self.trace.inputs.append(self._new(t))

    def _new(self, t: Tensor) -> Var:
        var = Var(len(self.by_id))
        self.by_id[id(t)] = var
        self.by_data.setdefault(id(t.data), var)
        self.alive.append(t)
        self.trace.shapes[var.number] = t.shape
        self.trace.dtypes[var.number] = t.dtype
        if t.requires_grad:
            self.trace.needs_grad.add(var.number)
        return var

    def var(self, t: Tensor) -> Var:
        """The variable of `t`; a tensor not met before is captured (or is a detached copy of one)."""
        var = self.by_id.get(id(t))
        if var is not None:
            return var
        data = t.data
        if type(data) in (int, float, bool):  # a number written in the program (`x * 2`): the engine lifted it
            key = (type(data), data)
            var = self.literal_vars.get(key)
            if var is not None:  # the same number again: the same variable
                self.by_id[id(t)] = var
                self.alive.append(t)
                return var
            var = self.literal_vars[key] = self._new(t)
            self.trace.captured.append((var, t))
            self.trace.literals[var.number] = data
            return var
        shared = self.by_data.get(id(data))
        var = self._new(t)
        if shared is not None:  # x.detach(): the same values, cut off from the graph
            self.trace.steps.append(Step(Detach, (shared,), frozenset(), var, False, None, t.shape))
        else:
            self.trace.captured.append((var, t))
        return var

    # ---- the engine's events ---------------------------------------------------------------------
    def on_op(self, op: type[Op], args: tuple[Any, ...], out: Tensor) -> None:
        places = input_places(op)
        encoded = []
        for i, a in enumerate(args):
            if i in places:
                if isinstance(a, list | tuple):  # a variadic op's list of inputs
                    encoded.append(tuple(self.var(lift(x) if type(x) is not Tensor else x) for x in a))
                else:
                    encoded.append(self.var(a if type(a) is Tensor else self._constant(a)))
            elif type(a) is Tensor:  # where's condition: its values
                encoded.append(self.var(a))
            else:
                encoded.append(Const(a))
        var = self._new(out)
        self.trace.steps.append(Step(op, tuple(encoded), places, var, out.grad_fn is not None, site_now(), out.shape))

    def _constant(self, x: Any) -> Tensor:
        """A plain number where an op takes a tensor (`x * 2`): the tensor the engine made of it."""
        t = lift(x)
        self.alive.append(t)
        return t

    def on_value(self, t: Tensor, value: Any) -> None:
        how = "bool" if type(value) is bool else "tolist" if type(value) is list else "item"
        if how == "item" and type(value) is int and t.dtype == "int" and t.shape == ():
            how = "int"
        self.trace.guards.append(Guard(self.var(t), how, value, len(self.trace.steps) - 1, site_now()))

    def on_backward(self, root: Tensor, seed: Tensor) -> None:
        self.refuse("it runs a backward pass (`grad` or `gradient`) inside")

    def refuse(self, why: str) -> None:
        if self.trace.refused is None:
            self.trace.refused = why

    # ---- the function's value --------------------------------------------------------------------
    def encode_result(self, value: Any) -> Any:
        """The function's value with a Var for each tensor in it; lists and tuples kept as they are."""
        if isinstance(value, Tensor):
            return self.var(value)
        if type(value) in (list, tuple):
            return type(value)(self.encode_result(v) for v in value)
        if value is None or type(value) in (int, float, bool, str):
            return Const(value)
        self.refuse(f"it returns a {type(value).__name__}, which a static graph cannot rebuild")
        return Const(value)


class Detach(Op):
    """The same values, cut off from the graph (`x.detach()`): in a trace, a variable named twice."""

    inputs = ("x",)

    @staticmethod
    def forward(x: Any) -> Any:
        return x


def site_now() -> Any:
    """Where the program is (the interpreter keeps `recording.where` current)."""
    return recording.where


_PLACES: dict[type[Op], frozenset[int]] = {}


def input_places(op: type[Op]) -> frozenset[int]:
    """Where forward's tensor parameters stand among its parameters (as tensor.apply reads them)."""
    places = _PLACES.get(op)
    if places is None:
        names = list(inspect.signature(op.forward).parameters)
        places = _PLACES[op] = frozenset({0} if op.variadic else (names.index(n) for n in op.inputs))
    return places
