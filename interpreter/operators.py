"""What DG's operators do to values: Python's arithmetic for numbers, the engine's for tensors.

Each function raises a DGError with DG's own words when the operand types do not fit, and
refuses results too large to hold (a list repeated a billion times, a 10**10**10).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import autograd as ag
from autograd import Tensor
from autograd.tensor import type_name

from .errors import DGError

MAX_SEQUENCE = 10_000_000  # longest list or string an operator may build
MAX_INT_BITS = 100_000  # largest integer result (about 30,000 digits)

Operator = Callable[[Any, Any], Any]


def _type_error(symbol: str, a: Any, b: Any) -> DGError:
    help = None
    if symbol == "@":
        help = "'@' multiplies matrices: both sides must be tensors"
    elif isinstance(a, str) or isinstance(b, str):
        help = 'use str(x) to turn a value into text, or an f-string: f"loss {loss}"'
    elif isinstance(a, list | tuple) or isinstance(b, list | tuple):
        help = "to compute with a list of numbers, make it a tensor: tensor([1, 2, 3])"
    return DGError("TypeError", f"cannot apply '{symbol}' to {type_name(a)} and {type_name(b)}", help=help)


def _checked(symbol: str, fn: Operator) -> Operator:
    def apply(a: Any, b: Any) -> Any:
        try:
            return fn(a, b)
        except TypeError:
            raise _type_error(symbol, a, b) from None
        except ZeroDivisionError:
            raise DGError("ZeroDivisionError", "division by zero") from None
        except OverflowError:
            raise DGError("OverflowError", f"the result of '{symbol}' is too large for a float") from None

    return apply


def _repeat_guard(a: Any, b: Any) -> None:
    """`[0] * n` and `"ab" * n` may not build something enormous."""
    seq, n = (a, b) if isinstance(a, list | tuple | str) else (b, a)
    if isinstance(seq, list | tuple | str) and isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
        raise DGError(
            "ValueError",
            f"that would make a {type_name(seq)} of {len(seq) * n:,} items, more than the limit of {MAX_SEQUENCE:,}",
        )


def multiply(a: Any, b: Any) -> Any:
    if type(a) is not Tensor and type(b) is not Tensor:
        _repeat_guard(a, b)
    return _mul(a, b)


def power(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and b > 0 and abs(a) > 1 and b * abs(a).bit_length() > MAX_INT_BITS:
        raise DGError(
            "OverflowError",
            f"{a} ** {b} is too large an integer",
            help="use a float (2.0 ** n) for an approximate value",
        )
    return _pow(a, b)


def add(a: Any, b: Any) -> Any:
    if type(a) in (list, str, tuple) and type(b) is type(a) and len(a) + len(b) > MAX_SEQUENCE:
        raise DGError("ValueError", f"that would make a {type_name(a)} longer than {MAX_SEQUENCE:,} items")
    return _add(a, b)


_add = _checked("+", operator.add)
_mul = _checked("*", operator.mul)
_pow = _checked("**", operator.pow)


def _tensors_to_engine(engine_op: Operator, other: Operator, numbers: Operator | None = None) -> Operator:
    """With a tensor on either side, call the engine's op directly (its errors are already DG's);
    with two plain numbers, Python's own operator, if given; anything else takes the checked path.
    This is the innermost loop of every program: each call saved here is a few percent."""

    def apply(a: Any, b: Any) -> Any:
        ta, tb = type(a), type(b)
        if ta is Tensor or tb is Tensor:
            return engine_op(a, b)
        if numbers is not None and (ta is float or ta is int) and (tb is float or tb is int):
            try:
                return numbers(a, b)
            except OverflowError:  # a huge int meeting a float: let the checked path say so
                pass
        return other(a, b)

    return apply


BINARY: dict[str, Operator] = {
    "+": _tensors_to_engine(ag.add, add, operator.add),
    "-": _tensors_to_engine(ag.sub, _checked("-", operator.sub), operator.sub),
    "*": _tensors_to_engine(ag.mul, multiply, operator.mul),
    "/": _tensors_to_engine(ag.div, _checked("/", operator.truediv)),
    "//": _tensors_to_engine(ag.floordiv, _checked("//", operator.floordiv)),
    "%": _tensors_to_engine(ag.mod, _checked("%", operator.mod)),
    "**": _tensors_to_engine(ag.pow_, power),
    "@": _tensors_to_engine(ag.matmul, _checked("@", operator.matmul)),
}

# `x += y`: tensors update in place inside no_grad (see autograd.arithmetic); numbers rebind.
AUGMENTED: dict[str, Operator] = {
    "+": _checked("+", operator.iadd),
    "-": _checked("-", operator.isub),
    "*": _checked("*", operator.imul),
    "/": _checked("/", operator.itruediv),
    "//": _checked("//", operator.ifloordiv),
    "%": _checked("%", operator.imod),
    "**": _checked("**", operator.ipow),
    "@": _checked("@", operator.imatmul),
}


def negate(a: Any) -> Any:
    if isinstance(a, bool | int | float | Tensor):
        return -a
    raise DGError("TypeError", f"cannot apply unary '-' to {type_name(a)}")


def positive(a: Any) -> Any:
    if isinstance(a, bool | int | float | Tensor):
        return +a
    raise DGError("TypeError", f"cannot apply unary '+' to {type_name(a)}")


UNARY: dict[str, Callable[[Any], Any]] = {"-": negate, "+": positive}


def _contains(a: Any, b: Any) -> bool:
    if isinstance(b, Tensor):
        raise DGError("TypeError", "'in' does not look inside tensors", help="compare instead: (x == v).any()")
    if not isinstance(b, list | tuple | str | range):
        raise DGError("TypeError", f"'in' needs a list, tuple, string or range on its right, not {type_name(b)}")
    if isinstance(b, str) and not isinstance(a, str):
        raise DGError("TypeError", f"'in <string>' needs a string on its left, not {type_name(a)}")
    return any(_same(a, item) for item in b) if not isinstance(b, str | range) else a in b


def _same(a: Any, b: Any) -> bool:
    """`==` for membership tests: a tensor is only ever the same as itself."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return a is b
    return bool(a == b)


def _ordered(symbol: str, fn: Operator) -> Operator:
    def compare(a: Any, b: Any) -> Any:
        try:
            return fn(a, b)
        except TypeError:
            raise DGError("TypeError", f"cannot compare {type_name(a)} and {type_name(b)} with '{symbol}'") from None

    return compare


COMPARE: dict[str, Operator] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": _ordered("<", operator.lt),
    "<=": _ordered("<=", operator.le),
    ">": _ordered(">", operator.gt),
    ">=": _ordered(">=", operator.ge),
    "in": _contains,
    "not in": lambda a, b: not _contains(a, b),
}


def get_item(obj: Any, index: Any) -> Any:
    """obj[index] for tensors (recorded), lists, tuples, strings and ranges."""
    if type(obj) is Tensor:
        return obj[index]
    if isinstance(obj, list | tuple | str | range):
        if isinstance(index, tuple):
            raise DGError("TypeError", f"a {type_name(obj)} takes one index, not {len(index)}")
        if isinstance(index, Tensor):
            index = index.__index__()
        try:
            return obj[index]
        except IndexError:
            raise DGError(
                "IndexError", f"index {index} is out of range for a {type_name(obj)} of length {len(obj)}"
            ) from None
        except TypeError:
            raise DGError(
                "TypeError", f"{type_name(obj)} indices must be ints or slices, not {type_name(index)}"
            ) from None
    raise DGError("TypeError", f"{type_name(obj)} cannot be indexed")


def set_item(obj: Any, index: Any, value: Any) -> None:
    """obj[index] = value for lists and tensors."""
    if type(obj) is Tensor:
        obj[index] = value
        return
    if type(obj) is list:
        if isinstance(index, Tensor):
            index = index.__index__()
        try:
            obj[index] = value
        except IndexError:
            raise DGError("IndexError", f"index {index} is out of range for a list of length {len(obj)}") from None
        except TypeError:
            raise DGError("TypeError", f"list indices must be ints or slices, not {type_name(index)}") from None
        return
    raise DGError(
        "TypeError", f"cannot assign into a {type_name(obj)}", help="only lists and tensors can be changed in place"
    )
