"""What each op is, declared once, beside its forward function and its rule.

An op module writes, for each recorded op, its declaration right above its forward function,
and its derivative rule inside that function, under the value it computes:

    MUL = Op("Mul", inputs=("a", "b"), rules=("g·b", "g·a"), nan="...")


    @public()
    def mul(a, b):
        ...
        def backward(g, out):
            return g * b, g * a

        return record(a.data * b.data, MUL, (a, b), backward)

Each recorded node keeps its Op (`node.op`), so whoever shows a graph reads the rule's text
and the likely causes of a nan there. `public` registers a function of the engine's API and
says how DG programs reach it (a tensor method, a builtin); DG's builtins and its sandbox's
method whitelist are read from these registrations (interpreter/library).

This module imports nothing of the engine, so tensor.py can import it: Tensor's methods call
`ops.add`, `ops.exp`, ..., names that `public` binds here as each op module loads
(`autograd/__init__.py` imports them all). Imports thus go one way: op modules -> tensor.py ->
ops.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True, slots=True)
class Op:
    """One kind of recorded node, as pictures, traces and anomaly mode describe it.

    name      "Mul": the node shows as `<MulBackward>`
    inputs    the names its rule gives its inputs: ("a", "b")
    rules     what each input receives, for the gradient g arriving at the output: ("g·b", "g·a")
    nan       why its rule might send back nan or inf, for anomaly mode (None: nothing likely)
    variadic  one input name and rule stand for any number of inputs (concat, stack)
    terms     any other name a rule uses, with how to find its value from the node's inputs and
              output, so a picture can put numbers in the rule: (("n", count),) for `g/n`

    A rule's text is also the form pictures fill in: each of `g`, the input names and the terms,
    written as a word of its own, is replaced by its value (`g·b` becomes `1·2`).
    """

    name: str
    inputs: tuple[str, ...]
    rules: tuple[str, ...]
    nan: str | None = None
    variadic: bool = False
    terms: tuple[tuple[str, Callable[[tuple[Any, ...], Any], Any]], ...] = ()

    def __post_init__(self) -> None:
        if len(self.inputs) != len(self.rules) or (self.variadic and len(self.rules) != 1):
            raise ValueError(f"{self.name}: give one rule per input ({self.inputs} and {self.rules})")

    def __str__(self) -> str:
        return self.name

    def rule_for(self, position: int) -> tuple[str, str]:
        """The name of input `position` and what the rule sends it: ("b", "g·a")."""
        if self.variadic:
            return f"{self.inputs[0]} {position + 1}", self.rules[0]
        if position < len(self.inputs):
            return self.inputs[position], self.rules[position]
        return f"input {position + 1}", "?"  # recorded with more inputs than it declares


@dataclass(frozen=True, slots=True)
class PublicFunction:
    """A function of the engine's API, and how a DG program reaches it.

    fn       the Python function
    method   a program may call it as a tensor method: `x.exp()`
    builtin  a program may call it as a builtin: `exp(x)`
    numbers  the builtin also takes a plain number and gives one back: `exp(0)` is 1.0
    A program knows it by `dg_name`: its Python name without the trailing `_` that only keeps
    Python's own builtins unshadowed (`abs_` is `abs`).
    """

    fn: Callable[..., Any]
    method: bool
    builtin: bool
    numbers: bool

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def dg_name(self) -> str:
        return self.name.removesuffix("_")

    @property
    def summary(self) -> str:
        """The first line of its docstring."""
        return (self.fn.__doc__ or "").strip().split("\n")[0]

    @property
    def records(self) -> tuple[Op, ...]:
        """The ops it records itself: the Op declarations its own code names (`EXP` in `exp`).
        Empty for a function built from other public functions (softmax), or one that records
        nothing (argmax). Help reads each op's rule from here rather than from a second copy."""
        names, scope = self.fn.__code__.co_names, self.fn.__globals__
        return tuple(dict.fromkeys(op for name in names if isinstance(op := scope.get(name), Op)))


FUNCTIONS: list[PublicFunction] = []  # in the order their modules registered them

F = TypeVar("F", bound=Callable[..., Any])


def public(method: bool = False, builtin: bool = False, numbers: bool = False) -> Callable[[F], F]:
    """Register the function below as part of the engine's API (see PublicFunction).

    Runs once, when its module loads; the function itself is returned unchanged."""

    if numbers and not builtin:
        raise ValueError("numbers=True describes a builtin: give builtin=True as well")

    def register(fn: F) -> F:
        if fn.__name__ in globals():
            raise ValueError(f"two public functions named {fn.__name__}, or one named like a name of autograd/op.py")
        FUNCTIONS.append(PublicFunction(fn, method, builtin, numbers))
        globals()[fn.__name__] = fn  # `ops.add`, for Tensor's methods
        return fn

    return register


def __getattr__(name: str) -> Any:
    """Reached only for a name no op module has registered."""
    raise AttributeError(
        f"autograd.ops has no function {name!r}: no imported op module declares it with @public "
        "(autograd/__init__.py imports them all)"
    )
