"""Cells: how typed lines group into the inputs the REPL runs, at a terminal and through a pipe alike.

A cell runs as soon as it is complete, which the parser decides (syntax/incremental.py), fed one
line at a time so that a cell of n lines costs time linear in n:
- a blank line, or a `:command`, is complete at once;
- a simple statement runs at its first Enter (`x = 1`, `[i * i for i in range(4)]`,
  `z = a if c else b`), unless a bracket is open or the line ends with `\\`;
- a compound statement (if, while, for, def, with), at any depth of nesting, runs when a blank
  line ends it, as in Python's REPL; lines after its block at the left margin belong to the cell;
- input with a syntax error is complete: running it reports the error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

INDENT = "    "
ENDS_BLOCK = re.compile(r"\s*(return|pass|break|continue)\b")  # nothing more runs in the block after it


class Cell:
    """The lines of one cell so far, and the parse of them."""

    def __init__(self) -> None:
        # lark loads with the first cell, not when `dg FILE` starts (its debugger imports the REPL)
        from dglang.interpreter.syntax.incremental import LineParser

        self.lines: list[str] = []
        self.parse = LineParser()
        self.blank = True  # only blank lines so far

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.blank = self.blank and not line.strip()
        if len(self.lines) > 1 or not is_command(line):
            self.parse.feed(line)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    @property
    def complete(self) -> bool:
        """Should the REPL run the cell now, rather than read another line?"""
        if self.blank or is_command(self.lines[0]):
            return True
        parse = self.parse
        if parse.failed:
            return True
        if parse.open:
            return False
        return not parse.compound or not self.lines[-1].strip()

    def next_indent(self) -> str:
        """The indentation the next line starts with: one level deeper after a block's header,
        one less after return, pass, break or continue, the same inside brackets."""
        last = self.lines[-1] if self.lines else ""
        parse = self.parse
        if parse.failed or parse.open or not last.strip():
            return last[: len(last) - len(last.lstrip())]
        levels = parse.indentation.indent_level
        if parse.expects_block():
            return " " * levels[-1] + INDENT
        if ENDS_BLOCK.match(last):
            return " " * (levels[-2] if len(levels) > 1 else 0)
        return " " * levels[-1]


def is_command(line: str) -> bool:
    return line.lstrip().startswith(":")


class Completeness:
    """`is_complete` for a buffer that grows a line at a time, as the terminal's does: the lines
    already parsed are not parsed again (a changed earlier line starts the parse over)."""

    def __init__(self) -> None:
        self.cell = Cell()

    def of(self, text: str) -> Cell:
        lines = text.split("\n")
        if lines[: len(self.cell.lines)] != self.cell.lines:
            self.cell = Cell()
        for line in lines[len(self.cell.lines) :]:
            self.cell.add(line)
        return self.cell

    def is_complete(self, text: str) -> bool:
        return self.of(text).complete

    def next_indent(self, text: str) -> str:
        return self.of(text).next_indent()


def is_complete(text: str) -> bool:
    """Should the REPL run `text` now (True), or read another line (False)? `text` is what was
    typed so far, without the newline of the line just finished."""
    return Completeness().is_complete(text)


def next_indent(text: str) -> str:
    """The indentation for the line after `text`."""
    return Completeness().next_indent(text)


def read_cells(lines: Iterable[str]) -> Iterator[str]:
    """Group lines into cells exactly as a person typing them at the prompt would."""
    cell = Cell()
    for line in lines:
        cell.add(line.rstrip("\r\n"))
        if cell.complete:
            if not cell.blank:
                yield cell.text
            cell = Cell()
    if not cell.blank:
        yield cell.text
