"""The ops' bare forms: what a step computes, written as the NumPy its op's forward ends in,
without the checks the forward makes at each call.

An op's forward checks its operands (shapes that broadcast, a bool tensor where numbers are
needed, an axis in range) and shows a large result to the host before making it. In a trace
those checks were made once, when it was traced, on the shapes and dtypes every replay has: the
arguments' are in the signature and the captured tensors' are compared before each call
(replaying.py). What is left to ask the host, a result large enough to ask about, is known at
trace time too: a step with one calls its op's own forward, in the bare forward too (generating.py
`asked`), so the limits hold as they do in dynamic code.

Each form is text made of the step's generated names, Python's operators and names bound to
objects (`bind`): never any text of the program. A form computes what the forward computes, with
the same NumPy calls in the same order, so results are the same bit for bit (tests/static/
test_static_limits.py runs a trace of many ops both ways). An op without a form here is called through its
forward, checks and all. The same holds for the rules a trace runs whole (RuleCall): relu's
mask and indexing's scatter are written out; any other rule runs through the engine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dglang.autograd import arithmetic, functions, indexing, reductions, shaping, threads
from dglang.autograd.creation import DTYPES
from dglang.autograd.reductions import normalize_axes
from dglang.autograd.shaping import normalize_index, shape_of

from .optimizing import Literal
from .trace_form import Const, Step, Trace, Var
from .trace_steps import Detach, Pick, RuleCall

Bind = Callable[[Any], str]  # an object in, the generated name it is bound to out
Form = Callable[[Step, list[str], Bind, Trace], str | None]


def shape(trace: Trace, a: Any) -> tuple[int, ...] | None:
    return trace.variables.shapes.get(a.number) if isinstance(a, Var) else None


def _binary(symbol: str) -> Form:
    """a + b: what `broadcasting(operator.add, ...)` calls once the shapes were checked."""
    return lambda step, names, bind, trace: f"{names[0]} {symbol} {names[1]}" if len(names) == 2 else None


def _unary(fn: Any) -> Form:
    return lambda step, names, bind, trace: f"{bind(fn)}({names[0]})" if len(names) == 1 else None


def _matmul(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    """a @ b, after giving BLAS the threads the product deserves (threads.py), as MatMul's forward
    does for one of its size: its multiply-adds (a stack's: one matrix's) known when traced."""
    if len(names) != 2:
        return None
    a, b = shape(trace, step.args[0]), shape(trace, step.args[1])
    if not a or not b:
        return None  # (a 0-d operand: the op's forward says what is wrong)
    if len(a) > 2 and len(b) == 2:  # a stack times one matrix: one product of the stack's rows, as MatMul's
        rows = math.prod(a[:-1])
        left, after = f"{names[0]}.reshape({rows}, {a[-1]})", f".reshape({(*a[:-1], b[1])})"
    else:
        rows, left, after = (a[-2] if len(a) > 1 else 1), names[0], ""
    columns = b[-1] if len(b) > 1 else 1
    size = (rows, columns, rows * a[-1] * columns)
    if not threads.threaded(*size) or (size[2] < threads.GEMM and rows != 1 and columns != 1 and apart(trace, step)):
        product = f"{left} @ {names[1]}"  # (one thread whatever the count; not one array's views: no syrk)
    else:
        product = f"{bind(sized_product)}({left}, {names[1]}, {bind(size)})"
    return f"({product}){after}" if after else product


FRESH = frozenset((arithmetic.Add, arithmetic.Sub, arithmetic.Mul, arithmetic.Div, arithmetic.Pow, arithmetic.Neg,
                   arithmetic.MatMul, functions.Relu, functions.Exp, functions.Log, functions.Tanh, functions.Sqrt,
                   reductions.Sum, reductions.Mean, shaping.Broadcast))  # fmt: skip  # (each makes a new array)
VIEWS = frozenset((shaping.Transpose, shaping.Reshape, shaping.Index, shaping.SumTo, Detach))  # (may share its input's)


def written_out(rule: Step | None) -> bool:
    """Is this a rule a trace runs whole as written out here (relu's mask, indexing's scatter: _rule),
    whose gradients are new arrays?"""
    return rule is not None and rule.op is RuleCall and rule.args[0].value in (functions.Relu, shaping.Index)


def apart(trace: Trace, step: Step) -> bool:
    """Are a product's operands surely not views of one array? One is a new array a step made, and
    the other is not a view of it (the threads' question is then answered when traced)."""
    made = {s.out.number: s for s in trace.steps}

    def root(v: Any) -> tuple[str, int] | None:  # ("new", step's output) or ("given", variable)
        while isinstance(v, Var):
            made_by = made.get(v.number)
            if made_by is None:
                return ("given", v.number)
            if made_by.op in FRESH or (made_by.op is Pick and written_out(made.get(made_by.args[0].number))):
                return ("new", v.number)
            if made_by.op not in VIEWS:
                return None
            v = made_by.args[0]
        return None

    x, y = root(step.args[0]), root(step.args[1])
    return x is not None and y is not None and x != y and "new" in (x[0], y[0])


def sized_product(a: Any, b: Any, size: tuple[int, int, int]) -> Any:
    threads.before_product(a, b, *size)
    return a @ b


def _relu(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    return f"{bind(np.maximum)}({names[0]}, 0)"


def _reduction(divide: bool) -> Form:
    """sum and mean: np.add.reduce over the axes, as normalized when traced (mean: then / count)."""

    def form(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
        given = shape(trace, step.args[0])
        if given is None or len(step.args) > 3 or not all(isinstance(a, Const) for a in step.args[1:]):
            return None
        rest = [a.value for a in step.args[1:]]
        axis, keepdims = (rest[0] if rest else None), (rest[1] if len(rest) > 1 else False)
        axes = normalize_axes(axis, len(given))
        text = f"{bind(np.add.reduce)}({names[0]}, axis={bind(axes)}, keepdims={bind(keepdims)})"
        if not divide:
            return text
        count = math.prod(given[i] for i in axes) if len(axes) < len(given) else math.prod(given)
        return f"{text} / {bind(count)}" if count else None

    return form


def _sum_to(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    given, to = shape(trace, step.args[0]), step.args[1]
    if given is None or not isinstance(to, Const):
        return None
    target = tuple(to.value)
    lead = len(given) - len(target)
    if lead > 0 and given[lead:] == target:
        return f"{bind(np.add.reduce)}({names[0]}, axis={bind(tuple(range(lead)))})"
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(target) if n == 1 and given[lead + i] != 1)
    return f"{bind(np.add.reduce)}({names[0]}, axis={bind(axes)}, keepdims=True).reshape({bind(target)})"


def broadcast(a: Any, to: tuple[int, ...]) -> Any:
    """Broadcast's forward without its question to the host: a fresh array of `to`, filled."""
    data = np.empty(to, dtype=np.result_type(a))
    data[...] = a
    return data


def filled(a: Any, to: tuple[int, ...], dtype: Any) -> Any:
    """The same, for a value whose dtype was known when traced (NumPy's result_type of a tensor's
    values is the dtype its kind names: DG's only float is float64)."""
    data = np.empty(to, dtype)
    data[...] = a
    return data


def _broadcast(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    to, a = step.args[1], step.args[0]
    if not isinstance(to, Const):
        return None
    kind = trace.variables.dtypes.get(a.number) if isinstance(a, Var) else None
    if kind in DTYPES:
        return f"{bind(filled)}({names[0]}, {bind(tuple(to.value))}, {bind(np.dtype(DTYPES[kind]))})"
    return f"{bind(broadcast)}({names[0]}, {bind(tuple(to.value))})"


def _transpose(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    given = shape(trace, step.args[0])
    if given is None or len(step.args) > 2:
        return None
    if len(step.args) == 2 and step.args[1].value is not None:  # axes: as a permutation, worked out once
        if not isinstance(step.args[1], Const):
            return None
        return f"{bind(np.transpose)}({names[0]}, {bind(shaping.permutation(step.args[1].value, given))})"
    return f"{names[0]}.T" if given else None  # (a 0-d value may be a plain number, which has no .T)


def _reshape(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    if not all(isinstance(a, Const) for a in step.args[1:]):
        return None
    return f"{bind(np.reshape)}({names[0]}, {bind(shape_of([a.value for a in step.args[1:]]))})"


def _index(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    given, index = shape(trace, step.args[0]), step.args[1]
    if given is None or not isinstance(index, Const) or len(step.args) != 2:
        return None
    index = index.value
    return f"{names[0]}[{bind((index,) if type(index) is int else normalize_index(index, given))}]"


def _rule(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    """A rule the trace runs whole: (op, requiring, g, out, *the op's arguments) -> its tuple."""
    op, g, args = step.args[0].value, names[2], names[4:]
    if op is functions.Relu:  # g where a > 0 (a clean 0 elsewhere), the mask from a's values
        given = shape(trace, step.args[4])
        large = given is not None and math.prod(given) >= functions.KEPT_WHERE  # (as Where's forward picks)
        return f"({bind(functions.kept_where if large else np.where)}({args[0]} > 0, {g}{'' if large else ', 0.0'}),)"
    if op is shaping.Index and len(step.args) == 6 and isinstance(step.args[5], Const):
        given = shape(trace, step.args[4])
        if given is None:
            return None
        index = normalize_index(step.args[5].value, given)
        basic = all(isinstance(p, shaping.BASIC) for p in index)  # (IndexAdd's forward, without the host's question)
        return f"({bind(indexing.scattered)}({g}, {bind(index)}, {bind(given)}, {bind(basic)}),)"
    return None


FORMS: dict[Any, Form] = {
    arithmetic.Add: _binary("+"),
    arithmetic.Sub: _binary("-"),
    arithmetic.Mul: _binary("*"),
    arithmetic.Div: _binary("/"),
    arithmetic.Pow: _binary("**"),
    arithmetic.Neg: lambda step, names, bind, trace: f"-{names[0]}",
    arithmetic.MatMul: _matmul,
    functions.Relu: _relu,
    functions.Exp: _unary(functions.Exp.forward),  # (its own: values below -746 skip the C library's slow path)
    functions.Log: _unary(np.log),
    functions.Tanh: _unary(np.tanh),
    functions.Sqrt: _unary(np.sqrt),
    reductions.Sum: _reduction(divide=False),
    reductions.Mean: _reduction(divide=True),
    shaping.SumTo: _sum_to,
    shaping.Broadcast: _broadcast,
    shaping.Transpose: _transpose,
    shaping.Reshape: _reshape,
    shaping.Index: _index,
    Detach: lambda step, names, bind, trace: names[0],
    Literal: lambda step, names, bind, trace: names[0],  # (a folded value: the constant itself)
    Pick: lambda step, names, bind, trace: f"{names[0]}[{names[1]}]",
    RuleCall: _rule,
}


def bare_form(step: Step, names: list[str], bind: Bind, trace: Trace) -> str | None:
    """The step's bare form over `names` (its arguments as generated names), or None: call its op."""
    form = FORMS.get(step.op)
    return form(step, names, bind, trace) if form is not None else None
