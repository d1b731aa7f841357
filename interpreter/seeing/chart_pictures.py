"""plot() and show_image() as matplotlib draws them: into a .svg or .png file, or inline in a notebook.

The chart stands on the text chart's round ticks (chart_axis.py), so the two show the same
numbers. What cannot be drawn is shown anyway: a y that is nan or inf is a red '!' at the foot of
its x with the text chart's words under the axis, a pixel that is nan or inf is red.
"""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np

from .chart_axis import Axis, not_drawn, round_axis
from .charts import image_levels

NOTHING = Axis(0, 1, 1.0)  # the axis of a chart with no value to place on it


def chart_picture(xs: np.ndarray, ys: np.ndarray, title: str | None, fmt: str) -> bytes:
    return saved(chart_figure(xs, ys, title), fmt)


def image_picture(images: np.ndarray, title: str | None, fmt: str) -> bytes:
    return saved(image_figure(images, title), fmt)


def chart_figure(xs: np.ndarray, ys: np.ndarray, title: str | None) -> Any:
    from matplotlib.figure import Figure  # no pyplot: no global state, no window

    figure = Figure(figsize=(6, 3.5))
    axes = figure.subplots()
    placed = np.isfinite(xs)
    drawn = placed & np.isfinite(ys)
    # Drawn in units of each axis's step and labelled with the values: matplotlib's own limits
    # overflow on a range like -1e308 to 1e308, and its offset labels (+1e3) puzzle a student.
    across = round_axis(float(xs[placed].min()), float(xs[placed].max())) if placed.any() else NOTHING
    up = round_axis(float(ys[drawn].min()), float(ys[drawn].max())) if drawn.any() else NOTHING
    x, y = xs[placed] / across.step, np.where(drawn, ys, np.nan)[placed] / up.step
    line = axes.plot(x, y)[0]
    shown = drawn[placed]
    alone = shown & ~np.r_[False, shown[:-1]] & ~np.r_[shown[1:], False]  # no neighbour to draw a line to
    axes.plot(x[alone], y[alone], ".", color=line.get_color())
    x_ticks(axes, across, x)
    if drawn.any():  # y from tick to tick, as the text chart
        ks = range(up.first, up.last + 1)
        axes.set_yticks(ks, [up.label(k) for k in ks])
        axes.set_ylim(up.first - 0.02 * up.count, up.last + 0.02 * up.count)
    else:
        axes.set_yticks([])  # no y to read: no scale to read it on
    missing = placed & ~drawn
    if missing.any():
        foot = axes.get_xaxis_transform()  # x in data, y in the axes' height: 0 is its foot
        axes.plot(x[missing[placed]], np.zeros(int(missing.sum())), linestyle="", marker="$!$",
                  markersize=10, color="red", transform=foot, clip_on=False)  # fmt: skip
    notes = not_drawn(xs, ys)
    if notes:
        axes.set_xlabel("\n".join(notes), color="red", loc="left")
    axes.grid(alpha=0.3)
    if title:
        axes.set_title(title)
    return figure


def x_ticks(axes: Any, across: Axis, x: np.ndarray) -> None:
    """x from its first point to its last (in steps of `across`), with the ticks between."""
    x0, x1 = (float(x.min()), float(x.max())) if len(x) else (0.0, 1.0)
    ks = [k for k in range(across.first, across.last + 1) if x0 - 1e-9 <= k <= x1 + 1e-9]
    axes.set_xticks(ks, [across.label(k) for k in ks])
    margin = 0.02 * (x1 - x0 or 1)
    axes.set_xlim(x0 - margin, x1 + margin)


def image_figure(images: np.ndarray, title: str | None) -> Any:
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    k = len(images)
    per_row = min(k, 10)
    rows = math.ceil(k / per_row)
    figure = Figure(figsize=(max(2.0, 1.2 * per_row), 1.2 * rows + (0.4 if title else 0)))
    axes = np.atleast_1d(figure.subplots(rows, per_row, squeeze=False).ravel())
    _, _, where = image_levels(images)  # drawn from 0 to 1: matplotlib's own scaling overflows on huge values
    shades = colormaps["gray_r"].with_extremes(bad="red")
    for i, ax in enumerate(axes):
        ax.axis("off")
        if i < k:
            ax.imshow(where[i], cmap=shades, vmin=0, vmax=1, interpolation="nearest")
    if title:
        figure.suptitle(title)
    unshaded = int(np.isnan(where).sum())
    if unshaded:
        figure.supxlabel(f"red: {unshaded} pixel{'s are' if unshaded != 1 else ' is'} nan or inf", color="red")
    return figure


def saved(figure: Any, fmt: str) -> bytes:
    out = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {}  # an SVG without the time it was made: the same each run
    figure.savefig(out, format=fmt, bbox_inches="tight", metadata=metadata)
    return out.getvalue()
