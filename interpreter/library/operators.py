"""What DG's operators do to values: Python's arithmetic for numbers, the engine's for tensors.

Each function raises a DGError with DG's own words when the operand types do not fit, and
refuses results too large to hold (a list repeated a billion times, a 10**10**10).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.autograd.inplace import update
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from . import dictionaries
from .runtime import MAX_SEQUENCE

# Largest integer result: about 4,200 digits, so every int DG makes can also be printed
# (Python refuses to turn ints of more than 4,300 digits into text).
MAX_INT_BITS = 14_000
MAX_NESTING = 1_000  # deepest list inside list that == and < compare (Python's C code would overflow the stack)
SEQUENCES = (list, tuple)
CONTAINERS = (list, tuple, dict)  # what == compares item by item (see equal)
SEQUENCE_TYPES = (list, str, tuple)

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
    """Python's operator `fn`, its errors in DG's words (a TypeError says which operand types)."""

    def in_dg_words(a: Any, b: Any) -> Any:
        try:
            return fn(a, b)
        except TypeError:
            raise _type_error(symbol, a, b) from None
        except ZeroDivisionError:
            raise DGError("ZeroDivisionError", "division by zero") from None
        except OverflowError:
            raise DGError("OverflowError", f"the result of '{symbol}' is too large for a float") from None

    return in_dg_words


def _repeat_guard(a: Any, b: Any) -> None:
    """`[0] * n` and `"ab" * n` may not build something enormous, nor `x * x` an enormous int."""
    if type(a) is int and type(b) is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise DGError(
                "OverflowError", f"the product would be an integer of more than {MAX_INT_BITS:,} bits", help=FLOAT_HINT
            )
        return
    seq, n = (a, b) if isinstance(a, list | tuple | str) else (b, a)
    if isinstance(seq, list | tuple | str) and isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
        raise DGError(
            "ValueError",
            f"that would make {a_type(seq)} of {len(seq) * n:,} items, more than the limit of {MAX_SEQUENCE:,}",
        )


FLOAT_HINT = "use a float (2.0 ** n) for an approximate value"


def multiply(a: Any, b: Any) -> Any:
    if type(a) is not Tensor and type(b) is not Tensor:
        _repeat_guard(a, b)
    return _mul(a, b)


def multiply_in_place(a: Any, b: Any) -> Any:
    if type(a) is not Tensor and type(b) is not Tensor:
        _repeat_guard(a, b)
    return _imul(a, b)


def power(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int and b > 0 and abs(a) > 1 and b * abs(a).bit_length() > MAX_INT_BITS:
        raise DGError(
            "OverflowError",
            f"{a} ** {b} is too large an integer",
            help=FLOAT_HINT,
        )
    return real(_pow(a, b), a, b)


def power_in_place(a: Any, b: Any) -> Any:
    return power(a, b) if type(a) is int else real(_ipow(a, b), a, b)


def real(result: Any, a: Any, b: Any) -> Any:
    """A power of plain numbers, unless Python made it a complex number (DG has none)."""
    if type(result) is complex:
        raise DGError(
            "ValueError",
            f"({a!r}) ** {b!r} has no real value: a negative number to a fractional power",
            help="a tensor gives nan there, as PyTorch does: tensor(-8.0) ** 0.5",
        )
    return result


def add(a: Any, b: Any) -> Any:
    if type(a) in (list, str, tuple) and type(b) is type(a) and len(a) + len(b) > MAX_SEQUENCE:
        raise DGError("ValueError", f"that would make {a_type(a)} longer than {MAX_SEQUENCE:,} items")
    return _add(a, b)


def add_in_place(a: Any, b: Any) -> Any:
    """`x += y`; a list grows in place, so it is checked like `x + y`."""
    if type(a) in SEQUENCE_TYPES and type(b) in (list, str, tuple, range) and len(a) + len(b) > MAX_SEQUENCE:
        raise DGError("ValueError", f"that would make {a_type(a)} longer than {MAX_SEQUENCE:,} items")
    return _iadd(a, b)


_add = _checked("+", operator.add)
_mul = _checked("*", operator.mul)
_pow = _checked("**", operator.pow)
_iadd = _checked("+", operator.iadd)
_imul = _checked("*", operator.imul)
_ipow = _checked("**", operator.ipow)


def _tensors_to_engine(
    engine_op: Operator, other: Operator, numbers: Operator | None = None, two_ints: bool = True
) -> Operator:
    """With a tensor on either side, call the engine's op directly (its errors are already DG's);
    with two plain numbers, Python's own operator, if given (and, unless `two_ints`, only when one
    is a float: an int product must pass the size guard); anything else takes the checked path.
    This is the innermost loop of every program: each call saved here is a few percent."""

    def to_engine_or_python(a: Any, b: Any) -> Any:
        ta, tb = type(a), type(b)
        if ta is Tensor or tb is Tensor:
            return engine_op(a, b)
        if (
            numbers is not None
            and (ta is float or ta is int)
            and (tb is float or tb is int)
            and (two_ints or ta is float or tb is float)
        ):
            try:
                return numbers(a, b)
            except OverflowError:  # a huge int meeting a float: let the checked path say so
                pass
        return other(a, b)

    return to_engine_or_python


BINARY: dict[str, Operator] = {
    "+": _tensors_to_engine(ag.add, add, operator.add),
    "-": _tensors_to_engine(ag.sub, _checked("-", operator.sub), operator.sub),
    "*": _tensors_to_engine(ag.mul, multiply, operator.mul, two_ints=False),
    "/": _tensors_to_engine(ag.div, _checked("/", operator.truediv)),
    "//": _tensors_to_engine(ag.floordiv, _checked("//", operator.floordiv)),
    "%": _tensors_to_engine(ag.mod, _checked("%", operator.mod)),
    "**": _tensors_to_engine(ag.pow_, power),
    "@": _tensors_to_engine(ag.matmul, _checked("@", operator.matmul)),
}


def _tensor_updates(op: Operator, symbol: str, other: Operator) -> Operator:
    """`x op= y` on a tensor x: the update itself (autograd/inplace.py: what x.__iadd__ calls,
    without Python's operator and the checks for numbers in between: an optimiser's step makes
    several per parameter); any other x takes `other`."""

    def update_or_python(a: Any, b: Any) -> Any:
        return update(op, symbol, a, b) if type(a) is Tensor else other(a, b)

    return update_or_python


# `x += y`: tensors update in place inside no_grad (see autograd/inplace.py); numbers rebind.
AUGMENTED: dict[str, Operator] = {
    "+": _tensor_updates(operator.add, "+", add_in_place),
    "-": _tensor_updates(operator.sub, "-", _checked("-", operator.isub)),
    "*": _tensor_updates(operator.mul, "*", multiply_in_place),
    "/": _tensor_updates(operator.truediv, "/", _checked("/", operator.itruediv)),
    "//": _checked("//", operator.ifloordiv),
    "%": _checked("%", operator.imod),
    "**": power_in_place,
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
    if type(b) is dict:
        return dictionaries.contains(b, a)
    if isinstance(b, Tensor):
        raise DGError("TypeError", "'in' does not look inside tensors", help="compare instead: (x == v).any()")
    if not isinstance(b, list | tuple | str | range):
        raise DGError("TypeError", f"'in' needs a list, tuple, string, range or dict on its right, not {type_name(b)}")
    if isinstance(b, str) and not isinstance(a, str):
        raise DGError("TypeError", f"'in <string>' needs a string on its left, not {type_name(a)}")
    if isinstance(b, range):  # answered without a walk: Python would scan a huge range for a float
        if isinstance(a, float) and a.is_integer():
            a = int(a)
        return type(a) in (int, bool) and a in b
    return a in b if isinstance(b, str) else any(_same(a, item) for item in b)


def _same(a: Any, b: Any) -> bool:
    """`==` for membership tests: a tensor is only ever the same as itself."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return a is b
    return bool(equal(a, b))


# ---- comparing lists, tuples and dicts ---------------------------------------------------------
# Python compares nested lists in C, one C stack frame per level; with the deep recursion limit
# DG sets for its own calls, a list that contains itself would crash the process instead of
# raising. So DG compares lists itself, with a depth limit, as Python would element by element.
def equal(a: Any, b: Any) -> Any:
    """`a == b`; lists, tuples and dicts are compared by `sequences_equal`."""
    if type(a) in CONTAINERS and type(b) in CONTAINERS:
        return sequences_equal(a, b, 0)
    return a == b


def not_equal(a: Any, b: Any) -> Any:
    if type(a) in CONTAINERS and type(b) in CONTAINERS:
        return not sequences_equal(a, b, 0)
    return a != b


def sequences_equal(a: Any, b: Any, depth: int) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or len(a) != len(b):
        return False
    if depth > MAX_NESTING:
        raise _too_deep()
    if type(a) is dict:  # the same keys (which compare in Python: they hold no lists), then the values
        if a.keys() != b.keys():
            return False
        pairs = zip(a.values(), [b[k] for k in a], strict=True)
    else:
        pairs = zip(a, b, strict=True)
    for x, y in pairs:
        if x is y:
            continue
        same = sequences_equal(x, y, depth + 1) if type(x) in CONTAINERS and type(y) in CONTAINERS else x == y
        if not same:  # `not` asks a one-element tensor for its truth, as Python's list == does
            return False
    return True


def sequences_less(a: Any, b: Any, or_equal: bool, depth: int) -> bool:
    """Lexicographic `a < b` (or `<=`) for two lists or two tuples."""
    if type(a) is not type(b):
        raise TypeError  # reported by the caller as "cannot compare list and tuple"
    if depth > MAX_NESTING:
        raise _too_deep()
    for x, y in zip(a, b, strict=False):
        same = sequences_equal(x, y, depth + 1) if type(x) in SEQUENCES and type(y) in SEQUENCES else x is y or x == y
        if not same:
            if type(x) in SEQUENCES and type(y) in SEQUENCES:
                return sequences_less(x, y, False, depth + 1)
            return bool(x < y)
    return len(a) <= len(b) if or_equal else len(a) < len(b)


def _too_deep() -> DGError:
    return DGError("RecursionError", f"these lists are nested more than {MAX_NESTING:,} deep (or contain themselves)")


def _ordered(symbol: str, fn: Operator) -> Operator:
    def compare(a: Any, b: Any) -> Any:
        try:
            if type(a) in SEQUENCES and type(b) in SEQUENCES:
                return _compare_sequences(symbol, a, b)
            return fn(a, b)
        except TypeError:
            raise DGError("TypeError", f"cannot compare {type_name(a)} and {type_name(b)} with '{symbol}'") from None

    return compare


def _compare_sequences(symbol: str, a: Any, b: Any) -> bool:
    if symbol == "<":
        return sequences_less(a, b, False, 0)
    if symbol == "<=":
        return sequences_less(a, b, True, 0)
    if symbol == ">":
        return sequences_less(b, a, False, 0)
    return sequences_less(b, a, True, 0)


COMPARE: dict[str, Operator] = {
    "==": equal,
    "!=": not_equal,
    "<": _ordered("<", operator.lt),
    "<=": _ordered("<=", operator.le),
    ">": _ordered(">", operator.gt),
    ">=": _ordered(">=", operator.ge),
    "in": _contains,
    "not in": lambda a, b: not _contains(a, b),
}


def get_item(obj: Any, index: Any) -> Any:
    """obj[index] for tensors (recorded), lists, tuples, strings, ranges and dicts."""
    if type(obj) is Tensor:
        return obj[index]
    if type(obj) is dict:
        return dictionaries.get(obj, index)
    if isinstance(obj, list | tuple | str | range):
        if isinstance(index, tuple):
            raise DGError("TypeError", f"{a_type(obj)} takes one index, not {len(index)}")
        if isinstance(index, Tensor):
            index = index.__index__()
        try:
            return obj[index]
        except IndexError:
            raise DGError(
                "IndexError", f"index {index} is out of range for {a_type(obj)} of length {len(obj)}"
            ) from None
        except TypeError:
            raise DGError(
                "TypeError", f"{type_name(obj)} indices must be ints or slices, not {type_name(index)}"
            ) from None
    raise DGError("TypeError", f"{type_name(obj)} cannot be indexed")


def set_item(obj: Any, index: Any, value: Any) -> None:
    """obj[index] = value for lists, dicts and tensors."""
    if type(obj) is Tensor:
        obj[index] = value
        return
    if type(obj) is dict:
        dictionaries.store(obj, index, value)
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
        "TypeError",
        f"cannot assign into {a_type(obj)}",
        help="only lists, dicts and tensors can be changed in place",
    )


def delete_item(obj: Any, index: Any) -> None:
    """del obj[index] for dicts (a key) and lists (a position or a slice)."""
    if type(obj) is dict:
        dictionaries.delete(obj, index)
        return
    if type(obj) is list:
        if isinstance(index, Tensor):
            index = index.__index__()
        try:
            del obj[index]
        except IndexError:
            raise DGError("IndexError", f"index {index} is out of range for a list of length {len(obj)}") from None
        except TypeError:
            raise DGError("TypeError", f"list indices must be ints or slices, not {type_name(index)}") from None
        return
    help = (
        "a tensor keeps its shape: make a new one without the item (x[mask], concat)" if type(obj) is Tensor else None
    )
    raise DGError(
        "TypeError", f"cannot delete from {a_type(obj)}", help=help or "del removes a dict's key or a list's item"
    )
