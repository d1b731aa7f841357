"""The trace, a compiler's intermediate form: what one run of a function did, as straight-line
steps over numbered variables (`t3 = Mul(t0, t2)`), the decisions it took (guards), what it read
from outside the function (guard_model.Outside) and what it did to the tensors it was given.
tracing.py makes one; optimizing.py rewrites its steps; generating.py writes it as code.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.op import Op

from .guard_model import Outside


@dataclass(frozen=True, slots=True)
class Var:
    """A tensor of the trace: `t3` in the code."""

    number: int


@dataclass(frozen=True, slots=True)
class Const:
    """Any other argument of an op (an axis, a shape, Python's `operator.gt`): passed as the object."""

    value: Any


@dataclass(frozen=True, slots=True)
class Nested:
    """An argument holding tensors inside a tuple or list (an index `x[rows, labels]`): its
    structure, with a Var for each tensor and the other parts as they are."""

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
    call: Any = None  # the DG call it ran in (recording.call), for a graph rebuilt for pictures


@dataclass(slots=True)
class Guard:
    """A decision the trace depended on: `var` became the Python value `observed` (by `how`)
    right after step `after` (-1: before any step)."""

    var: Var
    how: str  # "bool", "item", "int" or "tolist"
    observed: Any
    after: int
    site: Any

    def __post_init__(self) -> None:  # a list of its own: the program gets the one tolist() gave, and may change it
        if type(self.observed) is list:
            self.observed = copy.deepcopy(self.observed)


@dataclass
class Variables:
    """What the trace knows of each variable (by number) besides the steps that make it."""

    shapes: dict[int, tuple[int, ...]] = field(default_factory=dict)  # its shape when traced
    dtypes: dict[int, str] = field(default_factory=dict)
    needs_grad: set[int] = field(default_factory=set)  # those that required grad when traced
    literals: dict[int, Any] = field(default_factory=dict)  # those holding a number the program wrote
    fresh: set[int] = field(default_factory=set)  # tensors the function made (zeros(3)): new ones each call


@dataclass
class GradReads:
    """What a backward pass run inside the function found in the leaves' .grad (Tracer.on_backward)."""

    of: dict[int, Var] = field(default_factory=dict)  # a captured tensor that was w.grad: w
    was_none: dict[int, bool] = field(default_factory=dict)  # per leaf it accumulated into, when met


@dataclass
class Trace:
    """What one run of a function did, as straight-line steps over variables."""

    inputs: list[Var] = field(default_factory=list)
    captured: list[tuple[Var, Tensor]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    result: Any = None  # the function's value, with Vars in place of its tensors (see encode_result)
    # What a training step does besides computing its result (see Tracer.finish): each a
    # (what, tensor's variable, source variable or None): ("data", w, t9) is `w`'s values
    # replaced in place by t9's, ("grad", w, t12) is `w.grad` set to t12 (None: to None).
    effects: list[tuple[str, Var, Var | None]] = field(default_factory=list)
    variables: Variables = field(default_factory=Variables)
    grads: GradReads = field(default_factory=GradReads)
    outside: Outside = field(default_factory=Outside)  # what it read from outside f, and where its tensors come from
    frees: dict[int, list[int]] = field(default_factory=dict)  # the memory pass's: after step i, the values let go

    @property
    def size(self) -> int:
        return len(self.inputs) + len(self.captured) + len(self.steps)


def reads(step: Step) -> list[Var]:
    """The variables a step reads."""
    return [v for a in step.args for v in variables(a)]


def variables(a: Any) -> list[Var]:
    """The variables in one argument of a step: a Var, a variadic op's tuple of them, a Nested."""
    if isinstance(a, Var):
        return [a]
    if isinstance(a, tuple):
        return [x for x in a if isinstance(x, Var)]
    if isinstance(a, Nested):
        return _inside(a.value)
    return []


def _inside(value: Any) -> list[Var]:
    if isinstance(value, Var):
        return [value]
    if type(value) in (tuple, list):
        return [v for x in value for v in _inside(x)]
    return []
