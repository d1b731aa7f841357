"""Locating errors: turning whatever went wrong under an AST node into a DGError at that node.

The compiler puts this around every node, once (compiling.py): an operation's closure hands
what escapes it (an engine error, a Python exception from a builtin) to `located` with its node
and the values of its operands; an error an inner node already located passes through untouched,
so the innermost node that failed is the one the message points at. The block of statements
around it then adds the DG call stack (`in_statement`), and locates at the statement what no
node did: Ctrl-C and the watchdog's stops (--timeout, --max-memory), which arrive anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.exceptions import AutogradError
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Span

from .interrupts import MEMORY_HELP, OutOfMemory, OutOfTime, size_text


def located(e: BaseException, node: Any, operands: Sequence[Any] = (), span: Span | None = None) -> DGError:
    """The DGError for `e`, at `node` (or at `span` within it) unless an inner node already located
    it; `operands` (the values the node's operation was given) leave their kinds behind as clues
    for the hint writer."""
    span = node.span if span is None else span
    if isinstance(e, DGError):
        if e.span is None:
            e.span, e.node, e.clues = span, node, kinds(operands)
        return e
    kind, message, help = describe(e)
    error = DGError(kind, message, span, help=help, node=node, clues=kinds(operands))
    error.original = e  # for `dg --debug`, which shows the Python traceback
    return error


def in_statement(e: BaseException, span: Span, frames: Sequence[CallFrame]) -> DGError:
    """An error leaving the statement at `span`: with the DG call stack of the block it ran in, and
    at the statement itself if no node located it (a stop from outside, which arrives anywhere)."""
    if isinstance(e, KeyboardInterrupt):
        kind, message, help = interruption(e)
        return DGError(kind, message, span, help=help, frames=tuple(frames))
    error = e if isinstance(e, DGError) and e.span is not None else located(e, None, span=span)
    if not error.frames:
        error.frames = tuple(frames)
    return error


def kinds(values: Sequence[Any]) -> tuple[str, ...]:
    """What a hint may need of each value: its kind, and for a tensor whether it requires grad."""
    return tuple("tensor that requires grad" if type(v) is Tensor and v.requires_grad else type_name(v) for v in values)


def made_by(t: Tensor, read_at: Span) -> tuple[str, ...]:
    """Clues for the warning about reading .grad of a tensor that is not a leaf: the op that made
    it, and its line when that is in the same program text as the read."""
    node = t.grad_fn
    made = getattr(getattr(node, "where", None), "span", None)
    where = f" on line {made.line}" if made is not None and made.source is read_at.source else ""
    return (getattr(getattr(node, "op", None), "name", "an op"), where)


def describe(e: BaseException) -> tuple[str, str, str | None]:
    """Kind, message and help for an exception raised below the evaluator."""
    if isinstance(e, AutogradError):
        return e.kind, e.message, e.help
    if isinstance(e, KeyboardInterrupt):
        return interruption(e)
    if isinstance(e, RecursionError):
        return "RecursionError", "nested too deeply for the interpreter", "simplify the expression or the recursion"
    if isinstance(e, MemoryError):
        return "MemoryError", "out of memory", "use smaller tensors"
    if isinstance(e, ZeroDivisionError):
        return "ZeroDivisionError", "division by zero", None
    if isinstance(e, OverflowError):
        return "OverflowError", "number too large", None
    if isinstance(e, TypeError | ValueError | IndexError | KeyError):
        return type(e).__name__, str(e), None
    return "InternalError", f"{type(e).__name__}: {e}", "this is a bug in DG; run with --debug and report it"


def interruption(e: KeyboardInterrupt) -> tuple[str, str, str | None]:
    """Kind, message and help for a Ctrl-C or a timeout that stopped a statement."""
    if isinstance(e, OutOfTime):
        seconds = f"{e.seconds:g} second{'s' * (e.seconds != 1)}"
        return "TimeoutError", f"the program ran longer than {seconds}", "the limit was set with --timeout"
    if isinstance(e, OutOfMemory):
        return "MemoryError", f"DG's memory grew past {size_text(e.limit)}, the limit", MEMORY_HELP
    return "KeyboardInterrupt", "interrupted", None
