"""Program text with a name, and spans that point into it; where its lines begin and end."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# DG's lexer ends a line at "\n", "\r\n" or "\r" (hosts read "\r\n" and "\r" as "\n" before it
# sees them), and nowhere else: Python's str.splitlines also breaks at a form feed, "\v",
# "\x1c"-"\x1e", "\x85", U+2028 and U+2029, which may stand in a comment or a string. Every reader
# of source text (reports, pictures, the stepper, the debugger, the language server) counts lines
# with this rule, so that line N is the lexer's line N.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str, keep_ends: bool = False) -> list[str]:
    """The lines of `text` as the lexer counts them, without their ends unless `keep_ends`
    ("a\nb\n" is two lines, as str.splitlines has it, but a form feed is no line end)."""
    if keep_ends:
        return LINE_WITH_END.findall(text)
    lines = LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # the end of the last line, not a line of its own
    return lines


def program_text(data: bytes) -> str:
    """A program file's text: UTF-8, without the byte-order mark some Windows editors write first,
    and with Windows' "\r\n" (and old Macs' "\r") line ends read as "\n", as Python reads a file."""
    text = data.decode("utf-8").removeprefix("\ufeff")  # as "utf-8-sig" reads it, without loading that codec
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(slots=True, eq=False)
class Source:
    """A program's text and the name errors call it by (a path, `<stdin>`, `<repl>`); for the text
    of an imported module, the module's name too (pictures then say `nn.dg:9` for `line 9`).

    Nothing changes a Source once made (its lines are split once, when first asked for). It is not
    a frozen dataclass, nor are the spans and sites below: a frozen class has four more methods
    compiled from text each time DG starts (see "Start-up" in docs/performance.md)."""

    name: str
    text: str
    module: str | None = None
    _lines: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def lines(self) -> list[str]:
        """The text's lines (split_lines), split once: a language server's outline asks for the
        line of every definition, and splitting a long program each time made it quadratic."""
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def line(self, number: int) -> str:
        """Line `number` (1-based) without its line end, or '' past the end."""
        lines = self.lines
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


class Arm(NamedTuple):
    """One arm of an `if` as written: which kind, and the lines from its `if`/`elif`/`else` to its end.

    A value, as Branch and Loop are: a named tuple, compared and hashed field by field."""

    kind: str  # "then", "elif", "else"
    line: int
    end_line: int


class Branch(NamedTuple):
    """One arm of an `if` that a piece of code sits in: the `if`'s line, which arm, where it starts.

    `arms` are all the arms of that `if`, so a picture can show the ones that did not run."""

    if_line: int
    arm: str  # "then", "elif", "else"
    line: int
    arms: tuple[Arm, ...] = ()


class Loop(NamedTuple):
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


@dataclass(slots=True, unsafe_hash=True)
class Site:
    """Where an op is written: its span and the `if` arms around it (outermost first).

    Made once when the code is compiled; the engine stamps it on each node the op records, so a
    graph picture can say which line made a node and which branch of each `if` ran. A session
    that may draw replaces it on each node by a copy that also says when: the loop iterations
    running (outermost first) and the node's place in the recording (`order`, from 1; 0 unknown).
    A value, like Span, and not frozen for the same reason: the compiler makes one per operation
    written, and a frozen one took a tenth of the time of compiling a long program."""

    span: Span
    branches: tuple[Branch, ...] = ()
    iterations: tuple[Iteration, ...] = ()
    order: int = 0
