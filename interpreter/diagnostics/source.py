"""Program text with a name, and spans that point into it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def program_text(data: bytes) -> str:
    """A program file's text: UTF-8, without the byte-order mark some Windows editors write first,
    and with Windows' "\r\n" (and old Macs' "\r") line ends read as "\n", as Python reads a file."""
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


def with_newline(text: str) -> str:
    """The grammar ends every statement with a newline, so a last line without one gets one."""
    return text if text.endswith("\n") else text + "\n"


@dataclass(frozen=True, slots=True, eq=False)
class Source:
    """A program's text and the name errors call it by (a path, `<stdin>`, `<repl>`); for the text
    of an imported module, the module's name too (pictures then say `nn.dg:9` for `line 9`)."""

    name: str
    text: str
    module: str | None = None

    def line(self, number: int) -> str:
        """Line `number` (1-based) without its newline, or '' past the end."""
        lines = self.text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


@dataclass(slots=True, unsafe_hash=True)
class Span:
    """Where a piece of syntax is: 1-based line and column, end column exclusive.

    A value: nothing changes a span once it is made. It is not a frozen dataclass only because
    those set each field through object.__setattr__, which made the spans (one per AST node) the
    largest cost of building the AST (see docs/performance.md)."""

    source: Source
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm of an `if` as written: which kind, and the lines from its `if`/`elif`/`else` to its end."""

    kind: str  # "then", "elif", "else"
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class Branch:
    """One arm of an `if` that a piece of code sits in: the `if`'s line, which arm, where it starts.

    `arms` are all the arms of that `if`, so a picture can show the ones that did not run."""

    if_line: int
    arm: str  # "then", "elif", "else"
    line: int
    arms: tuple[Arm, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Loop:
    """A loop as written: its kind and its head (the `while` condition, the `for` iterable)."""

    kind: str  # "while", "for", "comprehension"
    line: int
    head: Span

    def holds(self, span: Span) -> bool:
        """Is the code at `span` part of the head (run before an iteration rather than in it)?"""
        head = self.head
        return (head.line, head.column) <= (span.line, span.column) and (span.end_line, span.end_column) <= (
            head.end_line,
            head.end_column,
        )


@dataclass(slots=True, eq=False)
class LoopRun:
    """One run of a loop while it runs: how many iterations have begun, and the DG call it runs in.

    The evaluator keeps a stack of them (RunContext.loops): `with LoopRun(...)` pushes one while its
    loop runs, however the loop ends. A session that may draw copies the counts onto each node it
    records (`Site.iterations`), so a picture can say which iteration made it."""

    loop: Loop
    frame: Any  # the CallFrame of the call the loop runs in, None at the top level
    stack: list[LoopRun] = field(repr=False)
    count: int = 0

    def __enter__(self) -> LoopRun:
        self.stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.pop()


Iteration = tuple[LoopRun, int]  # a loop run, and which of its iterations (from 1) had begun


@dataclass(frozen=True, slots=True)
class Site:
    """Where an op is written: its span and the `if` arms around it (outermost first).

    Made once when the code is compiled; the engine stamps it on each node the op records, so a
    graph picture can say which line made a node and which branch of each `if` ran. A session
    that may draw replaces it on each node by a copy that also says when: the loop iterations
    running (outermost first) and the node's place in the recording (`order`, from 1; 0 unknown)."""

    span: Span
    branches: tuple[Branch, ...] = ()
    iterations: tuple[Iteration, ...] = ()
    order: int = 0
