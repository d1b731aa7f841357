"""Numbers and code as the pictures and the trace write them: short enough for one line or one edge."""

from __future__ import annotations

import numpy as np

from dglang.interpreter.diagnostics.source import Span

MOST = 6  # values written out in full; a larger tensor shows its first few, its shape and its norm


def compact(values: object, most: int = MOST) -> str:
    """Values on one short line: `2`, `[1, 2.5]`, `[[1, 2], [3, 4]]`, or `[0.1, -0.2, 0.3, ... 20 values]`."""
    array = np.asarray(values)
    if array.size > most:
        shown = ", ".join(number(v) for v in array.flat[:3])
        return f"[{shown}, ... {array.size} values]"
    return nested(array)


def summary(values: object, most: int = MOST) -> str:
    """Values for a picture: all of them when few, else the first three, the shape and the norm:
    `[0.29, 0.13, -0.063, …] (3, 5), norm 0.74`."""
    array = np.asarray(values)
    if array.size <= most:
        return nested(array)
    shown = ", ".join(number(v, 2) for v in array.flat[:3])
    shape = "(" + ", ".join(str(n) for n in array.shape) + ("," if array.ndim == 1 else "") + ")"
    norm = float(np.linalg.norm(array.astype(float).ravel())) if array.dtype.kind in "fiub" else float("nan")
    return f"[{shown}, …] {shape}, norm {number(norm, 2)}"


def nested(array: np.ndarray) -> str:
    if array.ndim == 0:
        return number(array.item())
    return "[" + ", ".join(nested(row) for row in array) + "]"


def number(v: object, digits: int = 4) -> str:
    """A float with `digits` significant digits (`0.25`, `-1`, `1e+06`); anything else as it prints."""
    return f"{v + 0.0:.{digits}g}" if isinstance(v, float) else str(v)  # + 0.0 turns -0.0 into 0


def source_text(span: Span) -> str:
    """The code a span covers, on its first line."""
    line = span.source.line(span.line)
    return line[span.column - 1 : span.end_column - 1 if span.end_line == span.line else None].strip()


def line_of(span: Span) -> str:
    """`line 9`, or `nn.dg:9` for a line of a module the program imported."""
    return f"{span.source.name}:{span.line}" if span.source.module is not None else f"line {span.line}"


def line_in(line: int, span: Span) -> str:
    """`line 20`, or `line 20 of nn.dg` for a line of the module `span` is in."""
    return f"line {line} of {span.source.name}" if span.source.module is not None else f"line {line}"


def shorten(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
