"""Running one text with each evaluator, and what a run leaves to compare: the reference evaluator
(semantics/reference.py) and the accelerator (semantics/evaluator.py) must agree on all of it.

A `Run` holds what the program printed, the warnings and notes on standard error, each error as
the one formatter writes it (its text, location, help and DG call stack), the gradient of every
tensor reachable from the globals (bit for bit), and the provenance of every node recorded: its
op, the span and `if` arms of the code that made it, the DG call it was made in and the
iteration of each loop running (what pictures of the graph are drawn from).
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.creation import seed
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.diagnostics.source import Site, Span
from dglang.interpreter.host.session import Session

EVALUATORS = ("accelerator", "reference")
SEED = 1234  # the engine's random numbers start here for each run, so both runs draw the same


@dataclass
class Run:
    """What one run of a text left: see the module's docstring."""

    output: str = ""
    stderr: str = ""
    errors: list[str] = field(default_factory=list)
    gradients: dict[str, tuple[str, tuple[int, ...], bytes]] = field(default_factory=dict)
    provenance: list[tuple[Any, ...]] = field(default_factory=list)


class ProvenanceLog:
    """Listens to the engine during a run: each recorded node's op, site, call and loop iterations."""

    def __init__(self, session: Session, into: list[tuple[Any, ...]]) -> None:
        self.loops, self.into = session.context.loops, into

    def on_record(self, t: Tensor) -> None:
        node = t.grad_fn
        site, call = node.where, node.call
        where = (*place(site.span), site.branches) if isinstance(site, Site) else None
        self.into.append(
            (
                node.op.name,
                where,
                (call.function, call.call_site.line, call.call_site.column) if call is not None else None,
                tuple((*place(run.loop.head), run.loop.kind, run.count, run.frame is not None) for run in self.loops),
            )
        )


def place(span: Span) -> tuple[int, int, int, int]:
    """Where a span is, as numbers (a Span also holds its Source, which compares by identity)."""
    return span.line, span.column, span.end_line, span.end_column


def run_text(make_session: Callable[[str], Session], cells: list[str], name: str, evaluator: str) -> Run:
    """Run `cells` (a program, or a REPL's cells in turn) in a session made by `make_session`."""
    out, err, run = io.StringIO(), io.StringIO(), Run()
    session = make_session(evaluator)
    session.out, session.err = out, err
    session.context.evaluator = evaluator
    session.listeners.append(ProvenanceLog(session, run.provenance))
    seed(SEED)
    for cell in cells:
        try:
            session.run(cell, name)
        except DGError as e:
            run.errors.append(format_error(e))
    run.output, run.stderr = out.getvalue(), err.getvalue()
    run.gradients = dict(gradients(session.globals.vars))
    session.globals.vars.clear()  # a session is a reference cycle: free what it holds now
    return run


def gradients(values: dict[str, Any], depth: int = 3) -> Iterator[tuple[str, tuple[str, tuple[int, ...], bytes]]]:
    """(where, the gradient's dtype, shape and bytes) for each tensor with a .grad among `values`,
    and in the lists, tuples and dicts they hold (`depth` levels down)."""
    seen: set[int] = set()
    stack = [(name, value, depth) for name, value in values.items()]
    while stack:
        where, value, levels = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if type(value) is Tensor and value.grad is not None:
            data = value.grad.data
            yield where, (str(data.dtype), tuple(data.shape), data.tobytes())
        elif levels and type(value) in (list, tuple):
            stack.extend((f"{where}[{i}]", item, levels - 1) for i, item in enumerate(value))
        elif levels and type(value) is dict:
            stack.extend((f"{where}[{key!r}]", item, levels - 1) for key, item in value.items())


def differences(first: Run, second: Run) -> list[str]:
    """What differs between two runs, each said in a line or a few (empty: nothing)."""
    found = []
    for part in ("output", "stderr", "errors", "gradients"):
        a, b = getattr(first, part), getattr(second, part)
        if a != b:
            found.append(f"{part} differ:\n--- accelerator ---\n{shown(a)}\n--- reference ---\n{shown(b)}")
    if first.provenance != second.provenance:
        pairs = zip(first.provenance, second.provenance, strict=False)
        at = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(first.provenance), len(second.provenance)))
        a, b = first.provenance[at : at + 1], second.provenance[at : at + 1]
        found.append(f"provenance differs at recorded node {at + 1}:\n  accelerator {a}\n  reference   {b}")
    return found


def shown(value: Any, most: int = 1500) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= most else text[:most] + f"... ({len(text) - most} more characters)"


def compare(make_session: Callable[[str], Session], cells: list[str], name: str) -> list[str]:
    """Run `cells` with each evaluator; what differs."""
    accelerator, reference = (run_text(make_session, cells, name, evaluator) for evaluator in EVALUATORS)
    return differences(accelerator, reference)


def fuzz_program(number: int) -> str:
    """The fuzz corpus's program `number` (tests/support/fuzz_programs.py), the same on every run."""
    from fuzz_programs import ProgramWriter

    return ProgramWriter(random.Random(number)).program()


def shortened(path: Path, edits: list[tuple[str, str]]) -> str:
    """A lesson's text with each `old` replaced by `new` (a training loop made shorter), checked."""
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        if old not in text:
            raise AssertionError(f"{path.name} no longer holds {old!r}: update the edits that shorten it")
        text = text.replace(old, new)
    return text
