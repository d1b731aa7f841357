"""What a chart's numbers are: a y axis of round ticks, and the points it cannot draw.

The text chart (charts.py) and matplotlib's picture (chart_pictures.py) read their y axis here,
so a label is always a round number (0.5, 1, 1.5: never 0.005025, the smallest loss to seven
digits) and the same in both. A point whose y is nan or inf has no place on any axis; a training loss that went
nan is the one thing its chart must not hide, so such points are counted here, for the chart to
mark and say in words.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

TINIEST_STEP = 1e-300  # below this 10 ** exponent is no longer a normal float


class Axis(NamedTuple):
    """Ticks at first * step, (first + 1) * step, ..., last * step."""

    first: int
    last: int
    step: float

    @property
    def count(self) -> int:
        """How many steps from the lowest tick to the highest."""
        return self.last - self.first

    def tick(self, k: int) -> float:
        return k * self.step + 0.0  # + 0.0: never a -0 label

    def label(self, k: int) -> str:
        """The tick k * step as written: with as many decimals as the step has, no more."""
        exponent = math.floor(math.log10(self.step) + 1e-9)
        if -5 < exponent < 6:
            return f"{self.tick(k):.{max(0, -exponent)}f}"
        largest = max(abs(self.first), abs(self.last)) * self.step
        digits = math.floor(math.log10(largest) + 1e-9) - exponent + 1
        return f"{self.tick(k):.{digits}g}"


def round_axis(low: float, high: float) -> Axis:
    """The ticks around low..high: a step of 1, 2 or 5 times a power of ten, about a quarter of
    the range, and its multiples from just below low to just above high."""
    quarter = high / 4 - low / 4  # each divided first: 1e308 - (-1e308) would overflow to inf
    if not quarter > 0:  # one value: a step of a quarter of it
        quarter = max(abs(high), abs(low)) / 4 or 1.0
    quarter = max(quarter, TINIEST_STEP)
    power = 10.0 ** math.floor(math.log10(quarter))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= quarter)
    first, last = math.floor(low / step), math.ceil(high / step)
    return Axis(first, max(last, first + 1), step)


def fraction(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Where each value lies from low (0) to high (1); halved first, so that no difference overflows."""
    span = high / 2 - low / 2
    return (values / 2 - low / 2) / span if span > 0 else np.zeros(len(values))


def mean(values: np.ndarray) -> float:
    """The mean, summed in parts of 1/n: the mean of 1e308 and 1e308 is 1e308, not inf."""
    return float((values / len(values)).sum())


def not_drawn(xs: np.ndarray, ys: np.ndarray) -> list[str]:
    """One line for each kind of point no axis holds: ys that are nan, inf or -inf (marked `!` at
    their x), and points whose x is not a number (not marked: they have no place)."""
    placed = np.isfinite(xs)
    lines = []
    for kind, where in (("nan", np.isnan(ys)), ("inf", ys == np.inf), ("-inf", ys == -np.inf)):
        at = xs[where & placed]
        if len(at) == 1:
            lines.append(f"! y is {kind} at x = {at[0]:.6g}: not drawn")
        elif len(at) > 1:
            ends = f"the first at x = {at[0]:.6g}, the last at x = {at[-1]:.6g}"
            lines.append(f"! y is {kind} at {len(at)} points, {ends}: not drawn")
    lost = int((~placed).sum())
    if lost:
        lines.append(f"{lost} point{'s' * (lost != 1)} with an x that is nan or inf: not drawn")
    return lines
