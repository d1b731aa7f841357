"""Program text with a name, and spans that point into it."""

from __future__ import annotations

from dataclasses import dataclass


def program_text(data: bytes) -> str:
    """A program file's text: UTF-8, without the byte-order mark some Windows editors write first,
    and with Windows' "\r\n" (and old Macs' "\r") line ends read as "\n", as Python reads a file."""
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True, slots=True, eq=False)
class Source:
    """A program's text and the name errors call it by (a path, `<stdin>`, `<repl>`)."""

    name: str
    text: str

    def line(self, number: int) -> str:
        """Line `number` (1-based) without its newline, or '' past the end."""
        lines = self.text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


@dataclass(frozen=True, slots=True)
class Span:
    """Where a piece of syntax is: 1-based line and column, end column exclusive."""

    source: Source
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Branch:
    """One arm of an `if` that a piece of code sits in: the `if`'s line, which arm, where it starts."""

    if_line: int
    arm: str  # "then", "elif", "else"
    line: int


@dataclass(frozen=True, slots=True)
class Site:
    """Where an op is written: its span and the `if` arms around it (outermost first).

    Made once when the code is compiled; the engine stamps it on each node the op records, so a
    graph picture can say which line made a node and which branch of each `if` ran."""

    span: Span
    branches: tuple[Branch, ...] = ()
