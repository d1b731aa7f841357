"""The `gradcheck(f, x)` builtin: run autograd's check on a DG function and print it as a table.

The numbers come from `autograd.gradcheck`; this module only calls the DG function, checks the
arguments a program passes, and writes what a student reads: each derivative entry, analytic
beside numeric, its error, and a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dglang import autograd as ag
from dglang.autograd.gradcheck import ATOL, EPS, RTOL, GradcheckResult
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import BoundMethod, Builtin, CallContext, Function

MAX_ROWS = 10  # a table longer than this shows its first rows and its worst one
SIGNATURE = f"gradcheck(f, x, order=1, eps={EPS:g}, atol={ATOL:g}, rtol={RTOL:g}, quiet=False)"


def make_gradcheck(
    write: Callable[[str], None], explain: Callable[[str, str | None], None] = lambda message, help: None
) -> Callable[..., bool]:
    """The builtin, writing its table with `write` (the session's output). When a check fails it
    tells `explain` why in one line, which `assert gradcheck(f, x, quiet=True)` then reports."""

    def gradcheck(
        context: CallContext,
        f: Any,
        x: Any,
        order: int = 1,
        eps: float = EPS,
        atol: float = ATOL,
        rtol: float = RTOL,
        quiet: bool = False,
    ) -> bool:
        """Check f's derivatives at x (order=2: its second ones) against finite differences; prints a table.

        >>> def f(x):
        ...     return (x ** 3).sum()
        >>> gradcheck(f, tensor([1.0, 2.0]), order=2, quiet=True)
        True
        """
        name = function_name(f, x)
        result = ag.gradcheck(lambda t: context.call(f, [t]), x, order=order, eps=eps, atol=atol, rtol=rtol)
        if not quiet:
            write(table(name, x, result))
        if not result.passed:
            explain(
                why_failed(name, x, result), None if not quiet else "without quiet=True gradcheck prints every entry"
            )
        return result.passed

    return gradcheck


def function_name(f: Any, x: Any) -> str:
    """The name of the function to check; a clear error if `f` is not one."""
    if isinstance(f, Function | Builtin | BoundMethod):
        return f.name
    raise DGError(
        "TypeError",
        f"gradcheck() checks a function, not {type_name(f)}",
        help="pass the function itself: gradcheck(f, x), not gradcheck(f(x), x)",
    )


def table(name: str, x: Any, result: GradcheckResult) -> str:
    """The report: a header, one row per derivative entry (at most MAX_ROWS), and the verdict."""
    point = np.asarray(x.data if isinstance(x, ag.Tensor) else x, dtype=float)
    shape, var = point.shape, point_name(x)
    what = {1: "first derivative", 2: "second derivative"}.get(result.order, f"derivative of order {result.order}")
    at = f"{var} of shape {shape}" if shape else f"{var} = {float(point) + 0.0:g}"  # + 0.0: 0, never -0
    header = f"gradcheck {name}, {what} at {at} (eps {result.eps:g}, atol {result.atol:g}, rtol {result.rtol:g})"
    shown, note = rows_to_show(result)
    if result.output_shape:  # say what was differentiated: f itself has no single derivative
        header += f"\n  {name} returns shape {result.output_shape}: these are the derivatives of its sum"
    labels = [entry_label(name, var, entry, len(shape), result.order) for entry in shown]
    width = max([len("entry"), *map(len, labels)])
    lines = [header, f"  {'entry':<{width}}  {'analytic':>15}  {'numeric':>15}  {'error':>8}"]
    for label, entry in zip(labels, shown, strict=True):  # (+ 0.0 below: a derivative of -0 is printed 0)
        mark = "  <-- off" if result.failing[entry] else ""
        lines.append(
            f"  {label:<{width}}  {result.analytic[entry] + 0.0:>15.8g}  {result.numeric[entry] + 0.0:>15.8g}"
            f"  {result.errors[entry]:>8.1e}{mark}"
        )
    if note:
        lines.append(note)
    lines.append(verdict(result))
    return "\n".join(lines) + "\n"


def rows_to_show(result: GradcheckResult) -> tuple[list[tuple[int, ...]], str]:
    """Every entry of a short table; of a long one the first few and the worst, with a note saying so."""
    entries = list(np.ndindex(result.analytic.shape))
    if len(entries) <= MAX_ROWS:
        return entries, ""
    errors = np.where(np.isnan(result.errors), np.inf, result.errors)  # a NaN is the worst of all
    worst = entries[int(np.argmax(errors))]
    first = entries[: MAX_ROWS - 1]
    if worst in first:
        return entries[:MAX_ROWS], f"  ({len(entries)} entries in all; the largest error is among these)"
    return [*first, worst], f"  ({len(entries)} entries in all; shown: the first {len(first)} and the worst)"


def point_name(x: Any) -> str:
    """The variable the program holds x in (`a` for `gradcheck(f, a)`), else `x`."""
    name = getattr(x, "name", None)
    return name if isinstance(name, str) and name.isidentifier() else "x"


def entry_label(name: str, var: str, entry: tuple[int, ...], ndim: int, order: int) -> str:
    """`df/dx[1]`, `d2f/dx[0]dx[1]`, or `d2f/dx2` when x is a single number."""
    power = str(order) if order > 1 else ""
    if ndim == 0:
        return f"d{power}{name}/d{var}{power}"
    parts = [entry[i * ndim : (i + 1) * ndim] for i in range(order)]
    return f"d{power}{name}/" + "".join(f"d{var}[{', '.join(map(str, p))}]" for p in parts)


def why_failed(name: str, x: Any, result: GradcheckResult) -> str:
    """One line for a failed check: the worst entry, both derivatives there, and how many are off."""
    errors = np.where(np.isnan(result.errors), np.inf, result.errors)
    worst = np.unravel_index(int(np.argmax(errors)), errors.shape) if errors.shape else ()
    ndim = np.ndim(x.data if isinstance(x, ag.Tensor) else x)
    label = entry_label(name, point_name(x), tuple(int(i) for i in worst), int(ndim), result.order)
    count, total = int(np.sum(result.failing)), result.failing.size
    analytic, numeric = result.analytic[worst] + 0.0, result.numeric[worst] + 0.0  # + 0.0: 0, never -0
    return (
        f"gradcheck({name}) failed: {label} is {analytic:.6g} by autograd but "
        f"{numeric:.6g} by finite differences ({count} of {total} entr{'y' if total == 1 else 'ies'} off)"
    )


def verdict(result: GradcheckResult) -> str:
    """The last line: the largest error and whether every entry is within the tolerance."""
    if result.passed:
        return f"  max error {result.max_error:.1e}: passed"
    count = int(np.sum(result.failing))
    return (
        f"  max error {result.max_error:.1e}: FAILED, {count} entr{'y' if count == 1 else 'ies'} "
        f"off by more than atol + rtol * |numeric|"
    )
