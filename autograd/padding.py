"""Padding, as PyTorch's pad defines it: places added at each end of the last axes (or, for a
negative amount, cut from them), filled with a constant, a mirror of the values beside the edge
(reflect), the edge repeated (replicate), or the values from the other end (circular).

Whatever the mode, each place of the result is a copy of one place of the input (or the
constant), so the rule is indexing's: g goes back to the place each value was copied from, added
up where a value was copied more than once (a mirror reads a value twice).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .exceptions import ShapeError, TensorTypeError, TensorValueError
from .op import Op

MODES = ("constant", "reflect", "replicate", "circular")


class Plan:
    """Where each place of a padded tensor comes from, worked out once from the input's shape and
    the arguments, after checking them: `shape`, the result's; for the constant mode, the slices of
    the result (`into`) that are copies of the slices of the input (`read`); for the others, an
    index of the input per axis (`index`, as np.ix_ makes it), which picks every place."""

    __slots__ = ("index", "into", "read", "shape")

    def __init__(self, shape: tuple[int, ...], pad: Any, mode: Any, value: Any) -> None:
        if mode not in MODES:
            raise TensorValueError(f"pad: mode {mode!r} is not one of PyTorch's", help=f"use one of {', '.join(MODES)}")
        if mode != "constant" and value is not None:
            raise TensorValueError(f'pad: mode "{mode}" takes no value', help='value= is the fill of mode="constant"')
        widths = pad_widths(pad, len(shape))
        pairs = len(pad) // 2
        if mode != "constant" and (pairs > 3 or len(shape) not in (pairs + 1, pairs + 2)):
            raise ShapeError(
                f'pad: mode "{mode}" with {pairs} pairs needs a tensor of {pairs + 1} or {pairs + 2} dimensions, '
                f"not {len(shape)}",
                help="it pads the last 1, 2 or 3 axes of an example (C, ...) or a batch (N, C, ...): give a pair each",
            )
        self.shape = tuple(n + lo + hi for n, (lo, hi) in zip(shape, widths, strict=True))
        for axis, (n, (lo, hi), size) in enumerate(zip(shape, widths, self.shape, strict=True)):
            if size < 0:
                raise ShapeError(f"pad: ({lo}, {hi}) cuts more than the {n} places of axis {axis}")
            if mode != "constant" and (lo or hi):
                check_mode(mode, n, lo, hi, axis)
        if mode == "constant":
            self.read = tuple(
                slice(max(-lo, 0), max(n - max(-hi, 0), max(-lo, 0))) for n, (lo, hi) in zip(shape, widths, strict=True)
            )
            self.into = tuple(
                slice(max(lo, 0), max(lo, 0) + (s.stop - s.start)) for (lo, _), s in zip(widths, self.read, strict=True)
            )
        else:
            hooks.allocating(sum(self.shape), "the places pad() reads")
            self.index = np.ix_(*(places(mode, n, lo, hi) for n, (lo, hi) in zip(shape, widths, strict=True)))


def check_mode(mode: str, n: int, lo: int, hi: int, axis: int) -> None:
    """The limits of each mode along one axis of n places padded by (lo, hi), as PyTorch's."""
    if mode == "reflect" and max(lo, hi) >= n:
        raise TensorValueError(
            f'pad: mode "reflect" adds at most {n - 1} places to axis {axis} of {n}, not {max(lo, hi)}',
            help="a mirror shows the values beside the edge, each once: use replicate or circular for more",
        )
    if mode == "replicate" and n == 0:
        raise ShapeError(f'pad: mode "replicate" has no edge to repeat on axis {axis}, which is empty')
    kept = n - max(-lo, 0) - max(-hi, 0)
    if mode == "circular" and max(lo, hi) > kept:
        raise TensorValueError(
            f'pad: mode "circular" adds at most {kept} places to axis {axis}, not {max(lo, hi)}',
            help="more would wrap around more than once",
        )


def places(mode: str, n: int, lo: int, hi: int) -> np.ndarray:
    """The input's place that each place of a padded axis reads, for the modes that copy."""
    i = np.arange(n + lo + hi) - lo  # where it would be in the input: outside it before and after
    if mode == "reflect":
        return np.where(i < 0, -i, np.where(i >= n, 2 * (n - 1) - i, i))
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    start, stop = max(-lo, 0), n - max(-hi, 0)  # circular: what a cut leaves, then wrapped around it
    return start + (np.arange(n + lo + hi) - max(lo, 0)) % max(stop - start, 1)


class Pad(Op):
    """The tensor with places added at each end of its last axes (cut, for a negative amount), as PyTorch's pad.

    `pad` is (left, right) for the last axis, then (top, bottom) for the one before, and so on.
    mode "constant" fills them with value (0); "reflect" mirrors the values beside the edge,
    "replicate" repeats the edge, "circular" takes the values from the other end.

    >>> pad(ones(1, 2), (1, 2))
    tensor([[0., 1., 1., 0., 0.]])
    >>> pad(tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    """

    rules = ("g back where each value was copied from, added up",)
    note = "a negative amount cuts, so its g is 0; a mirror reads a value twice, which gets both"
    sample = (np.arange(1.0, 7.0).reshape(1, 2, 3), (2, -1), "reflect")
    builtin = True

    @staticmethod
    def forward(a: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
        a = np.asarray(a)
        plan = Plan(a.shape, pad, mode, value)
        hooks.allocating(math.prod(plan.shape), "the result of pad()", shape=plan.shape)
        if mode != "constant":
            return a[plan.index]
        out = np.full(plan.shape, 0 if value is None else value, dtype=a.dtype)
        out[plan.into] = a[plan.read]
        return out

    @staticmethod
    def backward(g: Any, out: Any, a: Any, pad: Any, mode: str = "constant", value: Any = None) -> tuple[Any]:
        plan = Plan(a.shape, pad, mode, value)
        if mode != "constant":
            return (g.index_add(plan.index, a.shape),)
        return (g[plan.into].index_add(plan.read, a.shape),)


def pad_widths(pad: Any, ndim: int) -> list[tuple[int, int]]:
    """PyTorch's flat `pad`, last axis first, as NumPy's (before, after) for every axis."""
    if (
        not isinstance(pad, (tuple, list))
        or len(pad) % 2
        or any(isinstance(p, bool) or not isinstance(p, (int, np.integer)) for p in pad)
    ):
        raise TensorTypeError(f"pad takes an even number of ints, (left, right, top, bottom, ...), not {pad!r}")
    if len(pad) // 2 > ndim:
        raise ShapeError(f"pad: {len(pad) // 2} pairs for a tensor of {ndim} dimensions")
    pairs = [(int(pad[i]), int(pad[i + 1])) for i in range(0, len(pad), 2)]
    return [(0, 0)] * (ndim - len(pairs)) + pairs[::-1]
