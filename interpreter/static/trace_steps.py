"""The steps a trace holds besides the engine's ops, which rules a trace may follow op by op, and
which builtins' tensors it may keep as made.

    Detach     `x.detach()`: the same values, no gradient (a variable named twice)
    RuleCall   a rule of a backward pass run inside the function, called whole at each replay
    Pick       one gradient of a RuleCall's tuple

A rule written with tensor ops alone (`g * b`) is traced op by op like any other code; a rule that
computes with NumPy on its inputs' values (relu's mask, pow's test for zeros) is one RuleCall:
no op would show what it computed, and it may branch on the values. An op's step holds a
variable for each of its tensor inputs, wherever they stand among its arguments (`input_places`).
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.op import Op, source_of
from dglang.autograd.tensor import recording


class Detach(Op):
    """The same values, cut off from the graph (`x.detach()`): in a trace, a variable named twice."""

    inputs = ("x",)

    @staticmethod
    def forward(x: Any) -> Any:
        return x


_TRACEABLE: dict[type, bool] = {}
NUMPY_ON_VALUES = re.compile(r"\.data\b(?!\.(?:ndim|shape)\b)|\bnp\.(?!broadcast_shapes\b|argsort\b)")


def traceable(op: type[Op]) -> bool:
    """Whether op's rule computes with tensor ops alone (NumPy on shapes aside), in its own code
    and in the functions of its module it calls: then its ops, traced, are the rule at every call."""
    known = _TRACEABLE.get(op)
    if known is None:
        known = _TRACEABLE[op] = _pure(op.backward, vars(sys.modules[op.__module__]), set())
    return known


def _pure(fn: Any, scope: dict[str, Any], seen: set[Any]) -> bool:
    seen.add(fn)
    try:
        source = source_of(fn)
    except (OSError, TypeError):  # not a function written in Python
        return False
    if NUMPY_ON_VALUES.search(source):
        return False
    for name in re.findall(r"(?<![.\w])([A-Za-z_]\w*)\(", source):
        helper = scope.get(name)
        if inspect.isfunction(helper) and helper not in seen and not _pure(helper, scope, seen):
            return False
    return True


class RuleCall:
    """A step of a backward pass run inside the function: an op's rule, called as backward.py calls
    it, on tensors made of the arrays (`requiring` says which required grad: a rule skips the
    others). Its value is the tuple of the arrays it sent (None where it sent none)."""

    name = "Rule"
    rules: tuple[str, ...] = ()
    backward = None

    @staticmethod
    def forward(op: type[Op], requiring: tuple[Any, ...], g: Any, out: Any, *args: Any) -> tuple[Any, ...]:
        given = []
        for a, r in zip(args, requiring, strict=True):
            if r is None:
                given.append(a)
            elif isinstance(r, tuple):
                given.append(tuple(Tensor(x, requires_grad=f) for x, f in zip(a, r, strict=True)))
            else:
                given.append(Tensor(a, requires_grad=r))
        sent = op.backward(Tensor(g), Tensor(out), *given)  # type: ignore[misc]
        return tuple(None if x is None else x.data for x in sent)


class Pick:
    """One gradient of a RuleCall's tuple."""

    name = "Pick"
    rules: tuple[str, ...] = ()
    backward = None

    @staticmethod
    def forward(sent: tuple[Any, ...], i: int) -> Any:
        return sent[i]


_PLACES: dict[type[Op], frozenset[int]] = {}


def input_places(op: type[Op]) -> frozenset[int]:
    """Where forward's tensor parameters stand among its parameters (as tensor.run_op reads them)."""
    places = _PLACES.get(op)
    if places is None:
        names = list(inspect.signature(op.forward).parameters)
        places = _PLACES[op] = frozenset({0} if op.variadic else (names.index(n) for n in op.inputs))
    return places


# The builtins whose tensors a trace may keep as made: their values follow from their arguments,
# which the trace guards (zeros_like and ones_like read only a tensor's shape); the data sets are
# files shipped with DG. Random ones draw new values at each call.
MAKERS = frozenset(
    ("tensor", "zeros", "ones", "full", "zeros_like", "ones_like", "arange", "linspace", "eye", "digits", "shakespeare")
)
SHAPE_ONLY = frozenset(("zeros_like", "ones_like"))
RANDOM = frozenset(("randn", "rand", "moons", "seed", "randint", "randperm"))
# builtins a trace cannot stand in for, and why: their values change at each call, or they read values no op shows
REFUSED = {name: f"it draws random numbers ({name}), new ones at each call" for name in RANDOM} | {
    "assert_close": "it checks values with assert_close()",
    **{name: f"it shows what tensors hold with {name}()" for name in ("graph", "plot", "show_image")},
}


def watched() -> bool:
    """Does something listen to each step of a backward pass as it runs (detect_anomaly's check, dg
    --trace)? A replay runs its rules without telling anyone: such a call must run as it is."""
    return any(getattr(x, "hears_each_step", False) for x in recording.listeners)


def holds_tensor(args: Any) -> bool:
    """Is there a tensor among these arguments (inside lists and tuples too)?"""
    stack = [args]
    while stack:
        for a in stack.pop():
            if type(a) is Tensor:
                return True
            if type(a) in (list, tuple):
                stack.append(a)
    return False
