"""Seeing training: `plot(ys)`, `plot(xs, ys)` and `show_image(t)`.

In a terminal they print text: a line chart drawn with characters, an image in shades of
characters. With `file="loss.svg"` (or `.png`), and inline in a notebook, matplotlib draws them,
when it is installed (DG's optional extra `plot`: `pip install "dglang[plot]"`); the text is the
fallback everywhere, and what a notebook shows as the picture's plain-text form. A program names
a file only under its own folder, as load_csv reads only there.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.data_files import short

SHADES = " .:-=+*#%@"  # light to dark: a pixel's value, from the image's least to its greatest
MAX_POINTS = 1_000_000  # a chart of more points than this is not a lesson's
MAX_PIXELS = 100_000
FORMATS = (".svg", ".png")


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
    return np.format_float_positional(x, precision=3, trim="-")


def text_chart(xs: np.ndarray, ys: np.ndarray, title: str | None = None, width: int = 60, height: int = 12) -> str:
    """A line chart in characters: each column one '*' at the mean of the points that fall in it."""
    finite = np.isfinite(xs) & np.isfinite(ys)
    if not finite.any():
        return f"{title or 'plot'}: no finite values to draw\n"
    xs, ys = xs[finite], ys[finite]
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    cols = np.zeros(len(xs), dtype=int) if x1 == x0 else np.round((xs - x0) / (x1 - x0) * (width - 1)).astype(int)
    grid = [[" "] * width for _ in range(height)]
    for c in np.unique(cols):
        y = ys[cols == c].mean()
        row = 0 if y1 == y0 else round((y1 - y) / (y1 - y0) * (height - 1))
        grid[row][c] = "*"
    labels = {0: number(y1), height - 1: number(y0)}
    pad = max(len(s) for s in labels.values())
    lines = [title] if title else []
    lines += [f"{labels.get(r, ''):>{pad}} |{''.join(grid[r]).rstrip()}" for r in range(height)]
    lines.append(f"{'':>{pad}} +{'-' * width}")
    left, right = number(x0), number(x1)
    lines.append(f"{'':>{pad}}  {left}{right:>{width - len(left)}}")
    return "\n".join(lines) + "\n"


def text_image(images: np.ndarray, title: str | None = None) -> str:
    """Images in shades of characters, two per pixel (a character is about twice as tall as wide),
    side by side; the shades run from the least value of all images to the greatest."""
    low, high = float(np.nanmin(images)), float(np.nanmax(images))
    span = high - low if high > low else 1.0
    levels = np.nan_to_num((images - low) / span * (len(SHADES) - 1)).round().astype(int)
    per_row = max(1, 64 // (2 * images.shape[2] + 1))  # as many as fit in about 64 characters
    lines = [title] if title else []
    lines.append(f"{images.shape[0]} image{'s' if len(images) > 1 else ''} {images.shape[1]}×{images.shape[2]}, "
                 f"'{SHADES[1]}' {level(low)} to '{SHADES[-1]}' {level(high)}")  # fmt: skip
    for first in range(0, len(images), per_row):
        group = levels[first : first + per_row]
        for r in range(images.shape[1]):
            lines.append(" ".join("".join(SHADES[v] * 2 for v in image[r]) for image in group).rstrip())
        if first + per_row < len(images):
            lines.append("")
    return "\n".join(lines) + "\n"


# ---- as pictures (matplotlib) -----------------------------------------------------------------
def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def chart_picture(xs: np.ndarray, ys: np.ndarray, title: str | None, fmt: str) -> bytes:
    from matplotlib.figure import Figure  # no pyplot: no global state, no window

    figure = Figure(figsize=(6, 3.5))
    axes = figure.subplots()
    axes.plot(xs, ys)
    axes.grid(alpha=0.3)
    if title:
        axes.set_title(title)
    return saved(figure, fmt)


def image_picture(images: np.ndarray, title: str | None, fmt: str) -> bytes:
    from matplotlib.figure import Figure

    k = len(images)
    per_row = min(k, 10)
    rows = math.ceil(k / per_row)
    figure = Figure(figsize=(max(2.0, 1.2 * per_row), 1.2 * rows + (0.4 if title else 0)))
    axes = np.atleast_1d(figure.subplots(rows, per_row, squeeze=False).ravel())
    low, high = float(np.nanmin(images)), float(np.nanmax(images))
    for i, ax in enumerate(axes):
        ax.axis("off")
        if i < k:
            ax.imshow(images[i], cmap="gray_r", vmin=low, vmax=high, interpolation="nearest")
    if title:
        figure.suptitle(title)
    return saved(figure, fmt)


def saved(figure: Any, fmt: str) -> bytes:
    out = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {}  # an SVG without the time it was made: the same each run
    figure.savefig(out, format=fmt, bbox_inches="tight", metadata=metadata)
    return out.getvalue()


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
    if not resolved.is_relative_to(base) or not resolved.parent.is_dir():
        raise DGError("FileError", f"'{shown}' is not a file in the program's folder or one below it")
    if not have_matplotlib():
        raise DGError(
            "FileError",
            f"{who} needs matplotlib to write '{shown}'",
            help='install DG\'s extra for pictures: pip install "dglang[plot]" (or uv sync --extra plot)',
        )
    return resolved
