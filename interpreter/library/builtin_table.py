"""The functions every DG program can call. This table is all of Python a program can reach."""

from __future__ import annotations

import functools
import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dglang.autograd import Tensor, hooks
from dglang.autograd.table import FUNCTIONS
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from . import python_functions as python_builtins
from . import shipped_data
from .assert_close import assert_close
from .dictionaries import dict_
from .keyword_help import written
from .runtime import Builtin, CallContext, GradMode, show_short, text, watching


def make_builtins(
    write: Callable[[str], None], data_path: Callable[[Any], Path], pause: Callable[[CallContext], None]
) -> dict[str, Any]:
    """The builtin scope of one session: `print` writes with `write`, `load_csv` reads the files
    `data_path` allows, `breakpoint()` calls `pause`. Tools add their own builtins (graph, gradcheck)."""
    table: dict[str, Any] = {}

    def builtin(fn: Callable[..., Any], name: str | None = None) -> None:
        name = name or fn.__name__.rstrip("_")
        table[name] = Builtin(name, fn)

    # ---- output and conversions --------------------------------------------------------
    def print_(*values: Any, sep: str = " ", end: str = "\n") -> None:
        """Write the values, separated by sep (a space) and followed by end (a newline).

        >>> print("loss", 0.25, sep=": ")
        loss: 0.25
        """
        # text(), not str(): Python's str of a list nested 100,000 deep would overflow the C stack
        write(text(sep).join(text(v) for v in values) + text(end))

    builtin(print_, "print")
    for fn in (
        python_builtins.len_,
        python_builtins.range_,
        python_builtins.enumerate_,
        python_builtins.zip_,
        python_builtins.sorted_,
        python_builtins.reversed_,
        python_builtins.list_,
        python_builtins.tuple_,
        dict_,
        python_builtins.str_,
        python_builtins.int_,
        python_builtins.float_,
        python_builtins.bool_,
        python_builtins.round_,
        python_builtins.type_,
        python_builtins.abs_,
        python_builtins.min_,
        python_builtins.max_,
        python_builtins.sum_,
        python_builtins.mean,
    ):
        builtin(fn)
    table["range"].written = "range([start,] stop[, step])"  # Python's own way of writing it

    # ---- tensors: the engine's functions declared builtins (autograd/table.py) --------------
    for f in FUNCTIONS:
        if f.numbers:  # exp(x): a tensor gives a tensor, a number a number
            table[f.dg_name] = Builtin(f.dg_name, numeric(f.fn))  # (numeric keeps f.fn's signature)
        elif f.builtin:
            builtin(f.fn, f.dg_name)
    builtin(zero_grad)
    builtin(assert_close)
    table["no_grad"] = GradMode("no_grad", False)
    table["enable_grad"] = GradMode("enable_grad", True)
    table["pi"] = math.pi
    table["inf"] = math.inf

    def help_(*name: Any) -> None:
        """Help on a builtin, a tensor method or attribute, a keyword or a command: help(relu), help("if").

        >>> help(pi)
        pi    (constant)
            π, the ratio of a circle's circumference to its diameter.
            example
              >>> pi
              3.141592653589793
        """
        from .help import describe_value, render  # help's data loads when help is asked for

        if len(name) > 1:
            raise DGError("TypeError", "help() takes one name", help='help(relu), help(x.sum), help("if")')
        write((render(describe_value(name[0], table)) if name else overview(table)) + "\n")

    table["help"] = Builtin("help", help_, "help(name)")

    # ---- files -----------------------------------------------------------------------------
    def load_csv(path: str) -> Tensor:
        """A CSV file of numbers under the program's folder, as a 2-d tensor (a header row is skipped).

        >>> load_csv("examples/points.csv")
        tensor([[0.5000, 1.0000],
                [1.5000, 2.5000]])
        """
        return read_csv(data_path(path), path)

    builtin(load_csv)
    builtin(shipped_data.digits)
    builtin(shipped_data.shakespeare)

    def breakpoint_(context: CallContext) -> None:
        """Pause the program here and open the REPL in this scope (`dg --no-breakpoints` skips it).

        >>> def f(x):
        ...     breakpoint()
        ...     return 2 * x
        """
        pause(context)

    table["breakpoint"] = Builtin("breakpoint", breakpoint_, "breakpoint()", wants_context=True)
    return table


written(
    "pi",
    "constant",
    "pi",
    """π, the ratio of a circle's circumference to its diameter.

    >>> pi
    3.141592653589793
    """,
)
written(
    "inf",
    "constant",
    "inf",
    """Positive infinity, larger than every number (-inf is smaller than every number).

    >>> -inf < -1e308, 1 / inf
    (True, 0.0)
    """,
)
written(
    "no_grad",
    "context",
    "with no_grad:",
    """Inside the block nothing is recorded, and parameters may be updated in place: w -= lr * w.grad.

    >>> w = tensor(1.0, requires_grad=True)
    >>> with no_grad:
    ...     w -= 0.5
    >>> w
    tensor(0.5000, requires_grad=True)
    """,
)
written(
    "enable_grad",
    "context",
    "with enable_grad:",
    """Inside a no_grad block, record again (to build gradients of gradients).

    >>> w = tensor(1.0, requires_grad=True)
    >>> with no_grad:
    ...     with enable_grad:
    ...         y = w * 2
    >>> y.requires_grad
    True
    """,
)


def overview(table: dict[str, Any]) -> str:
    """What `help()` without a name prints: how to ask, and every name there is help for."""
    from .help import everything

    groups: dict[str, list[str]] = {}
    for entry in everything(table):
        groups.setdefault(entry.kind, []).append(entry.name)
    lines = ['help(NAME) describes one of these: help(relu), help(x.sum), help("if"), help(":step").']
    for kind, names in groups.items():
        lines.extend(textwrap.wrap(f"{kind}s: {' '.join(names)}", 100, initial_indent="  ", subsequent_indent="    "))
    return "\n".join(lines)


def numeric(op: Callable[[Any], Tensor]) -> Callable[[Any], Any]:
    """A math function that maps a tensor to a tensor and a number to a number."""

    @functools.wraps(op)  # its help is the engine function's
    def apply(x: Any) -> Any:
        if isinstance(x, Tensor):
            return op(x)
        if isinstance(x, bool | int | float):
            return op(float(x)).item()
        raise DGError("TypeError", f"expected a number or a tensor, got {type_name(x)}")

    return apply


def zero_grad(*tensors: Any) -> None:
    """Set .grad of each tensor (or of each tensor in a list, or each value of a dict) to None, before the next grad.

    >>> w = tensor(1.0, requires_grad=True)
    >>> grad w * 3
    >>> zero_grad(w)
    >>> print(w.grad)
    None
    """
    for t in tensors:
        for item in t if isinstance(t, list | tuple) else t.values() if isinstance(t, dict) else [t]:
            if not isinstance(item, Tensor):
                raise DGError("TypeError", f"zero_grad() takes tensors, not {type_name(item)}")
            item.grad = None
            if watching.listener is not None:
                watching.listener.wrote_grad(item)


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
    hooks.allocating(len(values) * len(values[0]), f"load_csv('{shown}')", help="use smaller tensors")
    return Tensor(np.array(values, dtype=float))


def _numeric_row(row: list[str]) -> bool:
    try:
        [float(cell) for cell in row]
        return True
    except ValueError:
        return False
