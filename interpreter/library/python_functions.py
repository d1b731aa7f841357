"""Python's builtins as DG programs know them: restricted to DG values, with DG's own messages,
and refusing results too large to hold. make_builtins (builtins.py) puts them in the table."""

from __future__ import annotations

import builtins as python
import functools
from collections.abc import Callable
from typing import Any

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .operators import SEQUENCES, equal, sequences_less
from .runtime import MAX_SEQUENCE, iterate, show_short, text


def len_(x: Any) -> int:
    """The number of items of a list, tuple, string, range or dict, or the length of a tensor's first axis.

    >>> len([1, 2, 3]), len({"w": 1}), len(zeros(4, 2))
    (3, 1, 4)
    """
    if isinstance(x, Tensor | list | tuple | str | range | dict):
        return len(x)
    raise DGError("TypeError", f"{type_name(x)} has no length")


def range_(*args: Any) -> range:
    """The ints from start (0 if not given) up to but not including stop, counting by step.

    >>> list(range(2, 8, 2))
    [2, 4, 6]
    """
    return python.range(*[_int_arg(a, "range") for a in args])


def _int_arg(a: Any, who: str) -> int:
    if isinstance(a, Tensor):
        return a.__index__()
    if isinstance(a, bool) or not isinstance(a, int):
        raise DGError(
            "TypeError",
            f"{who}() takes ints, not {type_name(a)}",
            help="use int(x) to round a float down to an int" if isinstance(a, float) else None,
        )
    return a


def items_of(value: Any) -> Any:
    """What a builtin walks or copies: `iterate`, refusing a range or tensor too long to make a list of."""
    values = iterate(value)
    if type(values) is range or isinstance(value, Tensor):
        try:
            count = len(values) if type(values) is range else len(value)
        except OverflowError:
            count = MAX_SEQUENCE + 1
        if count > MAX_SEQUENCE:
            raise DGError(
                "ValueError", f"that would make a list of {count:,} items, more than the limit of {MAX_SEQUENCE:,}"
            )
    return values


def enumerate_(items: Any, start: int = 0) -> list[tuple[int, Any]]:
    """A list of (position, item) pairs, counting from start.

    >>> enumerate(["a", "b"])
    [(0, 'a'), (1, 'b')]
    """
    return list(python.enumerate(items_of(items), _int_arg(start, "enumerate")))


def zip_(*sequences: Any) -> list[tuple[Any, ...]]:
    """A list of tuples of the items at the same position in each sequence, as long as the shortest.

    >>> zip([1, 2], ["a", "b"])
    [(1, 'a'), (2, 'b')]
    """
    return list(python.zip(*[items_of(s) for s in sequences], strict=False))


def ordered(values: list[Any], reverse: bool = False) -> list[Any]:
    """Python's sort, but lists inside are compared by DG (see operators.sequences_equal)."""
    if any(type(v) in SEQUENCES for v in values):
        return python.sorted(values, key=functools.cmp_to_key(_compare), reverse=reverse)
    return python.sorted(values, reverse=reverse)


def _compare(a: Any, b: Any) -> int:
    if type(a) in SEQUENCES and type(b) in SEQUENCES:
        return -1 if sequences_less(a, b, False, 0) else 0 if equal(a, b) else 1
    return -1 if a < b else 1 if b < a else 0


def sorted_(items: Any, reverse: bool = False) -> list[Any]:
    """A new list of the items in increasing order (reverse=True: decreasing).

    >>> sorted([3, 1, 2])
    [1, 2, 3]
    """
    values = list(items_of(items))
    if any(isinstance(v, Tensor) for v in values):
        raise DGError("TypeError", "sorted() cannot order tensors", help="sort numbers, e.g. [t.item() for t in ...]")
    try:
        return ordered(values, reverse=bool(reverse))
    except TypeError:
        raise DGError("TypeError", "sorted() needs values of one comparable kind") from None


def reversed_(items: Any) -> list[Any]:
    """A new list of the items, last first.

    >>> reversed([1, 2, 3])
    [3, 2, 1]
    """
    return list(items_of(items))[::-1]


def list_(items: Any = ()) -> list[Any]:
    """A new list of the items of a list, tuple, string, range or tensor.

    >>> list(range(3))
    [0, 1, 2]
    """
    return list(items_of(items))


def tuple_(items: Any = ()) -> tuple[Any, ...]:
    """A tuple of the items of a list, tuple, string, range or tensor.

    >>> tuple([1, 2])
    (1, 2)
    """
    return tuple(items_of(items))


def str_(value: Any = "") -> str:
    """A value as text, as print writes it.

    >>> str(0.5) + "!"
    '0.5!'
    """
    return text(value)


def int_(value: Any) -> int:
    """A number, a string or a one-element tensor as an int (a float is rounded toward 0).

    >>> int(2.7), int("42")
    (2, 42)
    """
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise DGError("ValueError", f"cannot read {show_short(value)} as an int") from None
    if isinstance(value, bool | int | float | Tensor):
        return int(value)
    raise DGError("TypeError", f"int() takes a number, a string or a one-element tensor, not {type_name(value)}")


def float_(value: Any) -> float:
    """A number, a string or a one-element tensor as a float.

    >>> float("1e3")
    1000.0
    """
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise DGError("ValueError", f"cannot read {show_short(value)} as a float") from None
    if isinstance(value, bool | int | float | Tensor):
        return float(value)
    raise DGError("TypeError", f"float() takes a number, a string or a one-element tensor, not {type_name(value)}")


def bool_(value: Any) -> bool:
    """The truth value of a value: 0, empty lists and strings, and None are False.

    >>> bool([]), bool(3)
    (False, True)
    """
    return bool(value)


def round_(x: Any, ndigits: int | None = None) -> Any:
    """A number rounded to ndigits decimals, or to an int without ndigits.

    >>> round(2.567, 2), round(2.5)
    (2.57, 2)
    """
    if isinstance(x, Tensor):
        x = x.item()
    if not isinstance(x, int | float):
        raise DGError("TypeError", f"round() takes a number, not {type_name(x)}")
    return round(x, ndigits) if ndigits is not None else round(x)


def type_(value: Any) -> str:
    """The name of a value's type, as a string.

    >>> type(1.0), type(tensor(1.0))
    ('float', 'tensor')
    """
    return type_name(value)


def abs_(x: Any) -> Any:
    """The absolute value of a number, or of each element of a tensor.

    >>> abs(-3), abs(tensor([-1.0, 2.0]))
    (3, tensor([1., 2.]))
    """
    if isinstance(x, Tensor):
        return ag.abs_(x)
    if isinstance(x, bool | int | float):
        return abs(x)
    raise DGError("TypeError", f"abs() takes a number or a tensor, not {type_name(x)}")


def pytorch_words(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn, also taking PyTorch's dim= and keepdim= for its axis= and keepdims= (its signature shows fn's)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "keepdim" in kwargs:
            kwargs["keepdims"] = kwargs.pop("keepdim")
        if "dim" in kwargs:
            kwargs["axis"] = kwargs.pop("dim")
        return fn(*args, **kwargs)

    return call


def _extreme(name: str, reduce: Callable[..., Tensor], pick: Callable[..., Any], doc: str) -> Callable[..., Any]:
    def extreme(*values: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if len(values) == 1 and isinstance(values[0], Tensor):
            return reduce(values[0], axis=axis, keepdims=keepdims)
        values_ = list(items_of(values[0])) if len(values) == 1 else list(values)
        if any(isinstance(v, Tensor) for v in values_):
            other = "maximum" if name == "max" else "minimum"
            raise DGError(
                "TypeError",
                f"{name}() of several tensors is ambiguous",
                help=f"use {other}(a, b) for the elementwise {name}, or {name}(x) to reduce one tensor",
            )
        if not values_:
            raise DGError("ValueError", f"{name}() of an empty sequence")
        try:
            if any(type(v) in SEQUENCES for v in values_):
                return pick(values_, key=functools.cmp_to_key(_compare))
            return pick(values_)
        except TypeError:
            raise DGError("TypeError", f"{name}() needs values of one comparable kind") from None

    extreme.__name__, extreme.__doc__ = name, doc

    @functools.wraps(extreme)
    def with_dim(*values: Any, **kwargs: Any) -> Any:
        if "dim" in kwargs and len(values) == 1 and isinstance(values[0], Tensor) and kwargs["dim"] is not None:
            # max(x, dim=1), as PyTorch: the values and their positions
            return extreme_with_indices(name, values[0], kwargs.pop("dim"), kwargs.pop("keepdim", False), **kwargs)
        return pytorch_words(extreme)(*values, **kwargs)

    return with_dim


min_ = _extreme(
    "min",
    ag.min_,
    python.min,
    """The smallest of several values or of a list; of one tensor, its smallest element (or along axis).

    >>> min(3, 1, 2), min([4, 5]), min(tensor([4.0, 2.0]))
    (1, 4, tensor(2.))
    """,
)
max_ = _extreme(
    "max",
    ag.max_,
    python.max,
    """The largest of several values or of a list; of one tensor, its largest element (or along axis).

    >>> max(3, 1, 2), max([4, 5]), max(tensor([4.0, 2.0]))
    (3, 5, tensor(4.))
    """,
)


def extreme_with_indices(name: str, x: Tensor, dim: Any, keepdim: bool) -> tuple[Tensor, Tensor]:
    """PyTorch's max(x, dim) and min(x, dim): the values along dim, and where each is (its first)."""
    values = (ag.max_ if name == "max" else ag.min_)(x, dim, keepdim)
    indices = (ag.argmax if name == "max" else ag.argmin)(x, dim)
    return values, (indices.reshape(values.shape) if keepdim else indices)


@pytorch_words
def sum_(values: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The sum of a list of numbers or tensors; of a tensor, the sum of its elements (or along axis).

    >>> sum([1, 2, 3]), sum(tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    (6, tensor([4., 6.]))
    """
    if isinstance(values, Tensor):
        return ag.sum_(values, axis=axis, keepdims=keepdims)
    total: Any = 0
    for v in items_of(values):
        if not isinstance(v, bool | int | float | Tensor):
            raise DGError("TypeError", f"sum() adds numbers and tensors, not {type_name(v)}")
        total = total + v
    return total


@pytorch_words
def mean(values: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The mean of a list of numbers or tensors; of a tensor, the mean of its elements (or along axis).

    >>> mean([1, 2, 3, 4]), mean(tensor([1.0, 2.0]))
    (2.5, tensor(1.5000))
    """
    if isinstance(values, Tensor):
        return ag.mean(values, axis=axis, keepdims=keepdims)
    values = list(items_of(values))
    if not values:
        raise DGError("ValueError", "mean() of an empty sequence")
    return sum_(values) / len(values)
