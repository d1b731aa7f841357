"""The functions every DG program can call. This table is all of Python a program can reach."""

from __future__ import annotations

import builtins as python
import functools
import inspect
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dglang import autograd as ag
from dglang.autograd import Tensor, limits
from dglang.autograd.ops import FUNCTIONS
from dglang.autograd.tensor import type_name

from .assert_close import assert_close
from .errors import DGError
from .operators import MAX_SEQUENCE, SEQUENCES, equal, sequences_less
from .runtime import Builtin, CallContext, GradMode, iterate, show, show_short, text


def make_builtins(
    write: Callable[[str], None], data_path: Callable[[Any], Path], pause: Callable[[CallContext], None]
) -> dict[str, Any]:
    """The builtin scope of one session: `print` writes with `write`, `load_csv` reads the files
    `data_path` allows, `breakpoint()` calls `pause`. Tools add their own builtins (graph, gradcheck)."""
    table: dict[str, Any] = {}

    def builtin(fn: Callable[..., Any], name: str | None = None) -> None:
        name = name or fn.__name__.rstrip("_")
        table[name] = Builtin(name, fn, signature_text(name, fn))

    # ---- output and conversions --------------------------------------------------------
    def print_(*values: Any, sep: str = " ", end: str = "\n") -> None:
        # text(), not str(): Python's str of a list nested 100,000 deep would overflow the C stack
        write(text(sep).join(text(v) for v in values) + text(end))

    builtin(print_, "print")
    for fn in (
        len_,
        range_,
        enumerate_,
        zip_,
        sorted_,
        reversed_,
        list_,
        tuple_,
        str_,
        int_,
        float_,
        bool_,
        round_,
        type_,
        abs_,
        min_,
        max_,
        sum_,
        mean,
    ):
        builtin(fn)

    # ---- tensors: the engine's functions declared builtins (@public in autograd/) --------
    for f in FUNCTIONS:
        if f.numbers:  # exp(x): a tensor gives a tensor, a number a number
            table[f.dg_name] = Builtin(f.dg_name, numeric(f.fn), f"{f.dg_name}(x)")
        elif f.builtin:
            builtin(f.fn, f.dg_name)
    builtin(zero_grad)
    builtin(assert_close)
    table["no_grad"] = GradMode("no_grad", False)
    table["enable_grad"] = GradMode("enable_grad", True)
    table["pi"] = math.pi
    table["inf"] = math.inf

    # ---- files -----------------------------------------------------------------------------
    def load_csv(path: str) -> Tensor:
        """A numeric CSV file under the program's folder as a 2-D tensor (a header row is skipped)."""
        return read_csv(data_path(path), path)

    builtin(load_csv)

    def breakpoint_(context: CallContext) -> None:
        """Pause here and open the REPL in this scope (`dg --no-breakpoints` skips it)."""
        pause(context)

    table["breakpoint"] = Builtin("breakpoint", breakpoint_, "breakpoint()", wants_context=True)
    return table


@functools.lru_cache(maxsize=512)  # each session makes its table anew; inspecting signatures is the slow part
def signature_text(name: str, fn: Callable[..., Any]) -> str:
    """`zeros(*shape, requires_grad=False)`: a signature without Python's annotations."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return f"{name}(...)"
    parts = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={show(p.default)}")
    return f"{name}({', '.join(parts)})"


def numeric(op: Callable[[Any], Tensor]) -> Callable[[Any], Any]:
    """A math function that maps a tensor to a tensor and a number to a number."""

    def apply(x: Any) -> Any:
        if isinstance(x, Tensor):
            return op(x)
        if isinstance(x, bool | int | float):
            return op(float(x)).item()
        raise DGError("TypeError", f"expected a number or a tensor, got {type_name(x)}")

    return apply


# ---- Python-like builtins, restricted to DG values --------------------------------------------
def len_(x: Any) -> int:
    if isinstance(x, Tensor | list | tuple | str | range):
        return len(x)
    raise DGError("TypeError", f"{type_name(x)} has no length")


def range_(*args: Any) -> range:
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
    return list(python.enumerate(items_of(items), _int_arg(start, "enumerate")))


def zip_(*sequences: Any) -> list[tuple[Any, ...]]:
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
    values = list(items_of(items))
    if any(isinstance(v, Tensor) for v in values):
        raise DGError("TypeError", "sorted() cannot order tensors", help="sort numbers, e.g. [t.item() for t in ...]")
    try:
        return ordered(values, reverse=bool(reverse))
    except TypeError:
        raise DGError("TypeError", "sorted() needs values of one comparable kind") from None


def reversed_(items: Any) -> list[Any]:
    return list(items_of(items))[::-1]


def list_(items: Any = ()) -> list[Any]:
    return list(items_of(items))


def tuple_(items: Any = ()) -> tuple[Any, ...]:
    return tuple(items_of(items))


def str_(value: Any = "") -> str:
    return text(value)


def int_(value: Any) -> int:
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise DGError("ValueError", f"cannot read {show_short(value)} as an int") from None
    if isinstance(value, bool | int | float | Tensor):
        return int(value)
    raise DGError("TypeError", f"int() takes a number, a string or a one-element tensor, not {type_name(value)}")


def float_(value: Any) -> float:
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise DGError("ValueError", f"cannot read {show_short(value)} as a float") from None
    if isinstance(value, bool | int | float | Tensor):
        return float(value)
    raise DGError("TypeError", f"float() takes a number, a string or a one-element tensor, not {type_name(value)}")


def bool_(value: Any) -> bool:
    return bool(value)


def round_(x: Any, ndigits: int | None = None) -> Any:
    if isinstance(x, Tensor):
        x = x.item()
    if not isinstance(x, int | float):
        raise DGError("TypeError", f"round() takes a number, not {type_name(x)}")
    return round(x, ndigits) if ndigits is not None else round(x)


def type_(value: Any) -> str:
    """The name of a value's type, as a string: type(x) == "tensor"."""
    return type_name(value)


def abs_(x: Any) -> Any:
    if isinstance(x, Tensor):
        return ag.abs_(x)
    if isinstance(x, bool | int | float):
        return abs(x)
    raise DGError("TypeError", f"abs() takes a number or a tensor, not {type_name(x)}")


def _extreme(name: str, reduce: Callable[..., Tensor], pick: Callable[..., Any]) -> Callable[..., Any]:
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

    extreme.__name__ = name
    return extreme


min_ = _extreme("min", ag.min_, python.min)
max_ = _extreme("max", ag.max_, python.max)


def sum_(values: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """sum(tensor, axis=...) reduces a tensor; sum(list) adds up its numbers or tensors."""
    if isinstance(values, Tensor):
        return ag.sum_(values, axis=axis, keepdims=keepdims)
    total: Any = 0
    for v in items_of(values):
        if not isinstance(v, bool | int | float | Tensor):
            raise DGError("TypeError", f"sum() adds numbers and tensors, not {type_name(v)}")
        total = total + v
    return total


def mean(values: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if isinstance(values, Tensor):
        return ag.mean(values, axis=axis, keepdims=keepdims)
    values = list(items_of(values))
    if not values:
        raise DGError("ValueError", "mean() of an empty sequence")
    return sum_(values) / len(values)


def zero_grad(*tensors: Any) -> None:
    """Clear .grad of each tensor (or of each tensor in a list), before the next grad."""
    for t in tensors:
        for item in t if isinstance(t, list | tuple) else [t]:
            if not isinstance(item, Tensor):
                raise DGError("TypeError", f"zero_grad() takes tensors, not {type_name(item)}")
            item.grad = None


def read_csv(path: Path, shown: str) -> Tensor:
    import csv  # loaded by the programs that read data

    try:
        with path.open(newline="", encoding="utf-8-sig") as f:  # -sig: Excel's UTF-8 starts with a BOM
            rows = [row for row in csv.reader(f) if row and any(cell.strip() for cell in row)]
    except OSError as e:
        raise DGError("FileError", f"cannot read '{shown}': {e.strerror}") from None
    except UnicodeDecodeError:
        raise DGError("FileError", f"'{shown}' is not a text file") from None
    except csv.Error as e:  # a NUL byte, a field longer than csv allows
        raise DGError("FileError", f"'{shown}' is not a CSV file DG can read: {e}") from None
    if rows and not _numeric_row(rows[0]):
        rows = rows[1:]  # a header
    if not rows:
        raise DGError("FileError", f"'{shown}' has no rows of numbers")
    values = []
    for number, row in enumerate(rows, 1):
        if not _numeric_row(row):
            raise DGError(
                "FileError", f"'{shown}', data row {number}: not all values are numbers: {show_short(row, 80)}"
            )
        values.append([float(cell) for cell in row])
    if len({len(r) for r in values}) != 1:
        raise DGError("FileError", f"'{shown}': rows have different numbers of columns")
    limits.check_count(len(values) * len(values[0]), f"load_csv('{shown}')")
    return Tensor(np.array(values, dtype=float))


def _numeric_row(row: list[str]) -> bool:
    try:
        [float(cell) for cell in row]
        return True
    except ValueError:
        return False
