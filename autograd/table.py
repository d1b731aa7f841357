"""The op table: every op by name (`OPS`), and everything a DG program can call (`FUNCTIONS`).

Both are read from the declarations in the op modules: `OPS["Mul"]` is `arithmetic.Mul`, with
its forward on NumPy values, its derivative rule and the rule's text, so a tool that reads the
engine (pictures, help, a code generator) starts here. `function(op)` makes an op a Python
function (`exp(x)`). `FUNCTIONS` holds those, and the functions that are not ops (making
tensors, `gradient`), each marked `@builtin` where it is defined, with how a program reaches
each: the interpreter's builtins, tensor methods, help and sandbox read it.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from . import (
    arithmetic,
    arranging,
    composed,
    contraction,
    convolution,
    creation,
    cumulative,
    datasets,
    functions,
    padding,
    piecewise,
    pooling,
    probabilities,
    reductions,
    shaping,
    trigonometry,
    upsampling,
)
from .op import Composed, Op
from .tensor import Tensor, binary, run_op, unary

OP_MODULES = (
    arithmetic, functions, probabilities, trigonometry, piecewise, reductions, shaping, arranging, cumulative,
    contraction, convolution, pooling, padding, upsampling, composed,
)  # fmt: skip
# (the module backward.py, not the function `backward` the package puts under its name)
FUNCTION_MODULES = (creation, importlib.import_module(".backward", __package__), datasets)


def declared_in(module: ModuleType) -> list[type[Op]]:
    """The ops a module declares, in the order it declares them."""
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Op) and v.__module__ == module.__name__ and v is not Composed
    ]


@functools.cache
def function(op: type[Op]) -> Callable[..., Any]:
    """`op` as a Python function taking what its forward takes: `exp(x)`, `where(c, a, b)`. What
    DG's builtins call, and the functions `dglang.autograd` exports (one per op)."""
    parameters = list(op.signature.parameters)
    if op.call is not None:  # PyTorch's order of arguments, not forward's
        return _spelled(op)
    if op.variadic or op.composed or parameters[: len(op.inputs)] != list(op.inputs) or len(op.inputs) > 2:
        fn: Any = functools.partial(run_op, op)
    elif len(op.inputs) == 2:
        fn = functools.partial(binary if len(parameters) == 2 else run_op, op)
    else:
        fn = functools.partial(_unary_or_run_op, op)
    fn.__name__ = fn.__qualname__ = op.python_name()
    fn.__doc__ = op.__doc__
    fn.__signature__ = op.signature
    fn.__module__ = op.__module__
    fn.op = op
    return fn  # type: ignore[no-any-return]


def _spelled(op: type[Op]) -> Callable[..., Any]:
    """`op` as a function taking its arguments in the order its `call` says."""
    arrange = op.call
    assert arrange is not None

    def fn(*args: Any, **kwargs: Any) -> Any:
        return run_op(op, *arrange(*args, **kwargs))

    fn.__name__ = fn.__qualname__ = op.python_name()
    fn.__doc__ = op.__doc__
    fn.__signature__ = inspect.signature(arrange)  # type: ignore[attr-defined]
    fn.__module__ = op.__module__
    fn.op = op  # type: ignore[attr-defined]
    return fn


def _unary_or_run_op(op: type[Op], a: Any, *params: Any, **named: Any) -> Tensor:
    """`op` on one tensor: `unary`, the fast way, unless a tensor among its other arguments needs
    `run_op` (keywords are put in their places first: `log_softmax(z, axis=1)`)."""
    if named:
        a, *params = op.bind((a, *params), named)
    if params and any(type(p) is Tensor for p in params):  # (a tensor among the other arguments: its values)
        return run_op(op, a, *params)
    return unary(op, a, *params)


# Every op that is not composed of others, by name: each one's forward and rule.
OPS: dict[str, type[Op]] = {op.name: op for module in OP_MODULES for op in declared_in(module) if not op.composed}


class PublicFunction(NamedTuple):
    """A function of the engine's API, and how a DG program reaches it.

    fn       the Python function (for an op, `function(op)`)
    dg_name  what a program calls it: `abs` (in Python `abs_`, so as not to shadow Python's own)
    method   a program may call it as a tensor method: `x.exp()`
    builtin  a program may call it as a builtin: `exp(x)`
    numbers  the builtin also takes a plain number and gives one back: `exp(0)` is 1.0
    records  the ops it records itself (help reads their rules): (Exp,) for exp; none for a
             function composed of others (logsumexp), or one that records nothing (argmax)
    """

    fn: Callable[..., Any]
    dg_name: str
    method: bool = False
    builtin: bool = False
    numbers: bool = False
    records: tuple[type[Op], ...] = ()
    python: str = ""  # its name in Python when that is not fn's own (an alias: `clip`)

    @property
    def name(self) -> str:
        return self.python or self.fn.__name__

    @property
    def summary(self) -> str:
        """The first line of its docstring."""
        return (self.fn.__doc__ or "").strip().split("\n")[0]


def _of_op(op: type[Op]) -> list[PublicFunction]:
    """The op under its name, and under each of its aliases."""
    records = (op,) if op.backward is not None else op.made_of
    fn = function(op)
    main = PublicFunction(fn, op.function, op.method, op.builtin, op.numbers, records)
    return [main] + [
        PublicFunction(fn, name, op.method, op.builtin, op.numbers, records, name + "_" * hasattr(builtins, name))
        for name in op.aliases
    ]


def _builtins_in(module: ModuleType) -> list[PublicFunction]:
    return [
        PublicFunction(fn, fn.__name__, builtin=True)
        for fn in vars(module).values()
        if inspect.isfunction(fn) and fn.__module__ == module.__name__ and getattr(fn, "builtin", False) is True
    ]


FUNCTIONS: tuple[PublicFunction, ...] = (
    *(f for module in OP_MODULES for op in declared_in(module) for f in _of_op(op)),
    *(f for module in FUNCTION_MODULES for f in _builtins_in(module)),
)
