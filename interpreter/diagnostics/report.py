"""The one place errors become text, for the CLI and the REPL alike:

prog.dg:3:12: ShapeError: matmul: (2, 2) @ (3,)
   |
 3 |     return w @ x
   |            ^^^^^
   = help: the last dimension of the left (2) must equal the only dimension of the right (3)
DG call stack (innermost last):
  prog.dg:7:5   <program>   y = layer(w, x)
  prog.dg:3:12  layer       return w @ x
"""

from __future__ import annotations

import unicodedata

from .errors import CallFrame, DGError
from .source import Span

SHOWN_FRAMES = 12  # a runaway recursion shows its first and last few calls, not ten thousand
MAX_SHOWN_LINE = 100  # longer source lines are cut around the caret
MAX_MESSAGE = 500  # a message quoting a program's value (NumPy's do) is cut


def format_error(error: DGError) -> str:
    span = error.span
    message = error.message if len(error.message) <= MAX_MESSAGE else error.message[:MAX_MESSAGE] + "..."
    lines = [f"dg: {error.kind}: {message}"] if span is None else [f"{span}: {error.kind}: {message}", *snippet(span)]
    if error.help:
        lines.append(f"{' ' * gutter_width(span)}= help: {error.help}")
    if error.frames:
        lines.extend(call_stack(error.frames, span))
    return "\n".join(lines) + "\n"


def gutter_width(span: Span | None) -> int:
    return len(str(span.line)) + 1 if span else 1


def snippet(span: Span) -> list[str]:
    """The source line with a caret under the span (to the end of the line if it goes on)."""
    raw = span.source.line(span.line)
    if not raw.strip():
        return []
    line = raw.expandtabs(8)
    start = len(raw[: span.column - 1].expandtabs(8))
    if span.end_line == span.line and span.end_column > span.column:
        end = len(raw[: span.end_column - 1].expandtabs(8))
    else:
        end = len(line.rstrip())
    width = max(1, end - start)
    if len(line) > MAX_SHOWN_LINE:  # a generated line of 100,000 characters: show the part around the caret
        left = max(0, start - MAX_SHOWN_LINE // 2)
        right = left + MAX_SHOWN_LINE
        line = ("..." if left else "") + line[left:right] + ("..." if right < len(line) else "")
        start = start - left + (3 if left else 0)
        width = min(width, MAX_SHOWN_LINE - (start - (3 if left else 0)))
    elif not line.isascii():  # the caret under the characters as a terminal shows them (中文 takes four columns)
        start, width = columns(line[:start]), max(1, columns(line[start : start + width]))
    pad = " " * gutter_width(span)
    return [
        f"{pad}|",
        f"{span.line:>{len(pad) - 1}} | {line}",
        f"{pad}| {' ' * start}{'^' * width}",
    ]


def columns(text: str) -> int:
    """The columns a terminal gives `text`: two for a wide character (Chinese, Japanese, Korean), none
    for a combining accent."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def call_stack(frames: tuple[CallFrame, ...], span: Span | None) -> list[str]:
    """Each active call with the line that made it; the last row is where the error is."""
    rows: list[tuple[str, str, str]] = []
    callers = ["<program>"] + [f.function for f in frames]
    for frame, caller in zip(frames, callers, strict=False):
        rows.append((str(frame.call_site), caller, code_line(frame.call_site)))
    if span is not None:
        rows.append((str(span), callers[-1], code_line(span)))
    rows = collapse_repeats(rows)
    if len(rows) > SHOWN_FRAMES:
        half = SHOWN_FRAMES // 2
        skipped = len(rows) - 2 * half
        rows = [*rows[:half], ("...", f"({skipped:,} more calls)", ""), *rows[-half:]]
    where = max(len(r[0]) for r in rows)
    who = max(len(r[1]) for r in rows)
    out = ["DG call stack (innermost last):"]
    out.extend(f"  {w:<{where}}  {f:<{who}}  {code}".rstrip() for w, f, code in rows)
    return out


def code_line(span: Span) -> str:
    code = span.source.line(span.line).strip()
    return code if len(code) <= MAX_SHOWN_LINE else code[:MAX_SHOWN_LINE] + "..."


def collapse_repeats(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """A recursion repeats one row thousands of times: show it twice and count the rest."""
    out: list[tuple[str, str, str]] = []
    i = 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and rows[j + 1] == rows[i]:
            j += 1
        repeats = j - i + 1
        out.append(rows[i])
        if repeats > 3:
            out.append(("...", "...", f"(the call above, {repeats - 2:,} more times)"))
            out.append(rows[i])
        else:
            out.extend(rows[i + 1 : j + 1])
        i = j + 1
    return out
