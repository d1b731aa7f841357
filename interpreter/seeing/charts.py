"""Seeing training: `plot(ys)`, `plot(xs, ys)` and `show_image(t)`.

In a terminal they print text: a line chart drawn with characters, an image in shades of
characters. With `file="loss.svg"` (or `.png`), and inline in a notebook, matplotlib draws them
(chart_pictures.py), when it is installed (DG's optional extra `plot`: `pip install "dglang[plot]"`); the text is the
fallback everywhere, and what a notebook shows as the picture's plain-text form. A program names
a file only under its own folder, as load_csv reads only there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.data_files import short
from dglang.interpreter.library.extras import install_command

from .chart_axis import fraction, mean, not_drawn, round_axis

SHADES = " .:-=+*#%@"  # light to dark: a pixel's value, from the image's least to its greatest
MAX_POINTS = 1_000_000  # a chart of more points than this is not a lesson's
MAX_PIXELS = 100_000
FORMATS = (".svg", ".png")
ROWS_PER_TICK = (1, 2, 4, 5, 10)  # a tick's step split into rows that are round steps too (0.5 / 4 = 0.125)


# ---- reading what a program passes ------------------------------------------------------------
def numbers(value: Any, who: str, what: str) -> np.ndarray:
    """A 1-d list or tensor of numbers as floats."""
    if isinstance(value, Tensor):
        array = np.asarray(value.data, dtype=float)
    elif isinstance(value, list | tuple) and all(is_number(v) for v in value):
        array = np.array([float(v.item()) if isinstance(v, Tensor) else float(v) for v in value])
    else:
        raise DGError("TypeError", f"{who} takes {what} as a list of numbers or a 1-d tensor, not {type_name(value)}")
    if array.ndim != 1 or array.size == 0:
        raise DGError("ValueError", f"{who} needs {what} as a 1-d list or tensor with values, got shape {array.shape}")
    if array.size > MAX_POINTS:
        raise DGError("ValueError", f"{who} draws at most {MAX_POINTS:,} points, got {array.size:,}")
    return array


def is_number(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) or (isinstance(v, Tensor) and v.ndim == 0)


def image_values(value: Any) -> np.ndarray:
    """show_image's argument as a stack of 2-d images (k, h, w)."""
    if not isinstance(value, Tensor):
        raise DGError("TypeError", f"show_image() takes a tensor, not {type_name(value)}")
    array = np.asarray(value.data, dtype=float)
    if array.ndim not in (2, 3) or array.size == 0:
        raise DGError(
            "ValueError",
            f"show_image() shows a 2-d tensor (an image) or a 3-d one (a row of images), got shape {array.shape}",
            help="a row of 64 pixels is an 8×8 image: x.reshape(8, 8)",
        )
    if array.size > MAX_PIXELS:
        raise DGError("ValueError", f"show_image() shows at most {MAX_PIXELS:,} pixels, got {array.size:,}")
    return array if array.ndim == 3 else array[None]


# ---- as text ----------------------------------------------------------------------------------
def number(x: float) -> str:
    return f"{x:.4g}"


def level(x: float) -> str:
    """An image's least or greatest value, to 3 decimals (a weight of 7e-09 is 0: the same on every machine)."""
    return np.format_float_positional(x, precision=3, trim="-") if abs(x) < 1e6 else number(x)


def text_chart(xs: np.ndarray, ys: np.ndarray, title: str | None = None, width: int = 60, height: int = 12) -> str:
    """A line chart in characters: each column one '*' at the row nearest the mean y of the points
    that fall in it, on rows a round step apart (about `height` of them), a tick labelled every few
    rows; under the axis a '!' where a y is nan or inf, and a line saying so."""
    lines = [title] if title else []
    placed = np.isfinite(xs)  # a point with no x to place it at has no column
    drawn = placed & np.isfinite(ys)
    if not drawn.any():
        return "\n".join([*lines, "no point to draw", *not_drawn(xs, ys)]) + "\n"
    x0, x1 = float(xs[placed].min()), float(xs[placed].max())
    cols = np.round(fraction(np.where(placed, xs, x0), x0, x1) * (width - 1)).astype(int)
    columns = np.unique(cols[drawn])
    means = {int(c): mean(ys[drawn & (cols == c)]) for c in columns}
    axis = round_axis(min(means.values()), max(means.values()))
    per_tick = min(ROWS_PER_TICK, key=lambda n: abs(n - (height - 1) / axis.count))
    row_step = axis.step / per_tick
    grid = [[" "] * width for _ in range(axis.count * per_tick + 1)]
    for c, y in means.items():
        grid[round(axis.last * per_tick - y / row_step)][c] = "*"  # in rows from the top: no overflow
    labels = {r * per_tick: axis.label(axis.last - r) for r in range(axis.count + 1)}
    pad = max(len(s) for s in labels.values())
    lines += [f"{labels.get(r, ''):>{pad}} |{''.join(row).rstrip()}" for r, row in enumerate(grid)]
    marks = ["-"] * width
    for c in cols[placed & ~drawn]:
        marks[c] = "!"
    lines.append(f"{'':>{pad}} +{''.join(marks)}")
    left, right = number(x0), number(x1)
    lines.append(f"{'':>{pad}}  {left}{right:>{width - len(left)}}")
    several = len(columns) < int(drawn.sum())
    what = "the mean y of the points in its column" if several else "its point's y"
    lines.append(f"each * is at the row nearest {what}; rows are {number(row_step)} apart")
    return "\n".join([*lines, *not_drawn(xs, ys)]) + "\n"


def text_image(images: np.ndarray, title: str | None = None) -> str:
    """Images in shades of characters, two per pixel (a character is about twice as tall as wide),
    side by side; the shades run from the least value of all images to the greatest, and a pixel
    that is nan or inf, which has no shade, is '!!'."""
    low, high, where = image_levels(images)
    finite = np.isfinite(where)
    shade = np.round(np.where(finite, where, 0) * (len(SHADES) - 1)).astype(int)
    per_row = max(1, 64 // (2 * images.shape[2] + 1))  # as many as fit in about 64 characters
    lines = [title] if title else []
    lines.append(f"{images.shape[0]} image{'s' if len(images) > 1 else ''} {images.shape[1]}×{images.shape[2]}, "
                 f"'{SHADES[1]}' {level(low)} to '{SHADES[-1]}' {level(high)}")  # fmt: skip
    for first in range(0, len(images), per_row):
        group = range(first, min(first + per_row, len(images)))
        for r in range(images.shape[1]):
            row = (pixels(shade[i, r], finite[i, r]) for i in group)
            lines.append(" ".join(row).rstrip())
        if first + per_row < len(images):
            lines.append("")
    unshaded = int((~finite).sum())
    if unshaded:
        lines.append(f"!! {unshaded} pixel{'s are' if unshaded != 1 else ' is'} nan or inf: no shade")
    return "\n".join(lines) + "\n"


def image_levels(images: np.ndarray) -> tuple[float, float, np.ndarray]:
    """The least and greatest finite value of the images, and where each pixel lies between them
    (0 to 1; nan where the pixel is nan or inf), computed without overflow."""
    finite = np.isfinite(images)
    low, high = (float(images[finite].min()), float(images[finite].max())) if finite.any() else (0.0, 0.0)
    return low, high, np.where(finite, fraction(np.where(finite, images, low), low, high), np.nan)


def pixels(shades: np.ndarray, finite: np.ndarray) -> str:
    return "".join(SHADES[v] * 2 if ok else "!!" for v, ok in zip(shades, finite, strict=True))


# ---- as pictures (matplotlib) -----------------------------------------------------------------
def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write(path: Path, picture: bytes, shown: str) -> None:
    """Write a picture output_file checked; a FileError if the system refuses (a full disk, no permission)."""
    try:
        path.write_bytes(picture)
    except OSError as e:
        raise DGError("FileError", f"cannot write '{short(shown)}': {e.strerror or e}") from None


def output_file(path: Any, base_dir: Path, who: str) -> Path:
    """The file `file=` names, checked: a .svg or .png under the program's folder (after
    following links), not leaving it with '..'. A FileError otherwise."""
    if not isinstance(path, str):
        raise DGError("TypeError", f"{who}'s file is a string, not {type_name(path)}")
    shown = short(path)
    candidate = Path(path)
    if "\0" in path or candidate.suffix.lower() not in FORMATS:
        raise DGError("FileError", f"{who} writes .svg or .png files, not '{shown}'", help='file="loss.svg"')
    if candidate.is_absolute() or ".." in candidate.parts:
        raise DGError(
            "FileError", f"'{shown}' is outside the program's folder", help="pictures are written beside the program"
        )
    base = base_dir.resolve()
    try:
        resolved = (base / candidate).resolve()
    except (OSError, RuntimeError) as e:
        raise DGError("FileError", f"cannot write '{shown}': {e}") from None
    if not resolved.is_relative_to(base):
        raise DGError("FileError", f"'{shown}' is not a file in the program's folder or one below it")
    folder = candidate.parent.as_posix()
    if not resolved.parent.exists():
        raise DGError(
            "FileError",
            f"cannot write '{shown}': the folder '{short(folder)}' does not exist",
            help=f'make the folder first, or write beside the program: file="{short(candidate.name)}"',
        )
    if not resolved.parent.is_dir():
        raise DGError("FileError", f"cannot write '{shown}': '{short(folder)}' is a file, not a folder")
    if resolved.is_dir():
        raise DGError(
            "FileError",
            f"cannot write '{shown}': it is a folder, not a file",
            help=f'name another file: file="{short(candidate.stem)}_plot{candidate.suffix}"',
        )
    if not have_matplotlib():
        raise DGError(
            "FileError",
            f"{who} needs matplotlib to write '{shown}'",
            help=f"install DG's extra for pictures: {install_command('plot')}",
        )
    return resolved
