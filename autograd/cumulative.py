"""Running results along an axis, as PyTorch computes them: cumsum, cumprod, cummax, cummin and
logcumsumexp. Place i of the result depends on places 0 to i of the input, so each rule sends g
back from the end: out[i] reaches every a[j] with j <= i, and a[j] hears from every out[i] with
i >= j (a sum "from the end", `flip(cumsum(flip(g)))`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import hooks
from .arranging import Gather, one_axis
from .op import Composed, Op


def running(a: Any, axis: Any, name: str) -> tuple[np.ndarray, int]:
    """The input of a running op as an array, and its axis (0 for a single number), once the
    result, as large as the input, is shown to the hooks."""
    a = np.asarray(a)
    if a.size >= hooks.watch:
        hooks.allocating(a.size, f"the result of {name}()", shape=a.shape)
    return a, one_axis(axis, a.ndim, name)


def from_the_end(g: Any, axis: int) -> Any:
    """Each place's g summed with every g after it along `axis`."""
    return g.flip(axis).cumsum(axis).flip(axis)


class Cumsum(Op):
    """The running sum along `axis`: each value plus all before it.

    >>> cumsum(tensor([1.0, 2.0, 3.0]), 0)
    tensor([1., 3., 6.])
    """

    rules = ("g summed from the end",)
    note = "`flip(cumsum(flip(g)))`"
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int) -> Any:
        a, axis = running(a, axis, "cumsum")
        if a.dtype.kind == "b":
            a = a.astype(np.int64)  # as PyTorch: a running count
        return np.cumsum(a, axis=axis) if a.ndim else a

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int) -> tuple[Any]:
        # out[i] = a[0] + ... + a[i], so a[i] reaches every out[j] from j = i on: g summed from the end
        return (from_the_end(g, axis) if a.ndim else g,)


class Cumprod(Op):
    """The running product along `axis`: each value times all before it.

    >>> cumprod(tensor([1.0, 2.0, 3.0, 4.0]), 0)
    tensor([ 1.,  2.,  6., 24.])
    """

    rules = ("(g·out summed from the end)/a, and at a first zero the product around it",)
    note = (
        "where a has no zero up to i, `flip(cumsum(flip(g·out)))/a`; at the first zero, whose later products are all"
        " 0, the product before it times the sum of g·(the products after it), as PyTorch's; past it, 0"
    )
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int) -> Any:
        a, axis = running(a, axis, "cumprod")
        if a.dtype.kind == "b":
            a = a.astype(np.int64)
        return np.cumprod(a, axis=axis) if a.ndim else a

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int) -> tuple[Any]:
        if not a.ndim:
            return (g,)
        # out[j] = a[0]···a[j], so d out[j] / d a[i] = out[j]/a[i] for j >= i, where a[i] is not 0
        zero = a.data == 0
        seen = np.cumsum(zero, axis=axis)
        clear = seen == 0  # no zero at or before this place
        grad = (from_the_end(g * out, axis) / a.where(clear, 1.0)).where(clear, 0.0)
        first = zero & (seen == 1)
        if first.any():  # (a zero: dividing by it is no way to take it out of the product)
            before = a.where(clear, 1.0).cumprod(axis)  # at the first zero, the product of what came before
            after = a.where(~(clear | first), 1.0).cumprod(axis)  # from it on, the product of what came after
            grad = grad + (before * from_the_end(g * after, axis)).where(first, 0.0)
        return (grad,)


class Logcumsumexp(Op):
    """log(cumsum(exp(x))) along `axis`, computed so that exp never overflows.

    >>> logcumsumexp(tensor([0.0, 0.0, 0.0]), 0)
    tensor([0.0000, 0.6931, 1.0986])
    """

    rules = ("exp(a - out) times g, summed from the end (in logs, g's signs apart)",)
    note = (
        "g's positive and negative parts go through `logcumsumexp` from the end in logs, as PyTorch's (and"
        " TensorFlow's) rule does, so no exp overflows"
    )
    method = builtin = True

    @staticmethod
    def forward(a: Any, axis: int) -> Any:
        a, axis = running(a, axis, "logcumsumexp")
        return np.logaddexp.accumulate(a.astype(float), axis=axis) if a.ndim else a.astype(float)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, axis: int) -> tuple[Any]:
        if not a.ndim:
            return (g,)
        # d out[j] / d a[i] = exp(a[i] - out[j]) for j >= i: the sum over j of g[j]·exp(a[i] - out[j]),
        # each sign of g taken in logs so that a large out never overflows an exp
        lowest = -1e300  # log of 0, but finite (nothing turns into nan) and far from overflowing as a is added

        def part(where: np.ndarray, size: Any) -> Any:
            logs = (size.where(where, 1.0).log() - out).where(where, lowest)
            return (logs.flip(axis).logcumsumexp(axis).flip(axis) + a).exp()

        return (part(g.data > 0, g) - part(g.data < 0, -g),)


class RunningWinner(Op):
    """Where each running largest (smallest, with largest=False) along `axis` is: the last place
    of a tie, and a nan wins, as PyTorch's cummax and cummin say."""

    function = "running_winner"

    @staticmethod
    def forward(a: Any, axis: int, largest: bool = True) -> Any:
        a, axis = running(a, axis, "cummax" if largest else "cummin")
        if not a.ndim:
            return np.zeros((), dtype=np.int64)
        best = (np.fmax if largest else np.fmin).accumulate(a, axis=axis)
        places = np.arange(a.shape[axis]).reshape((-1,) + (1,) * (a.ndim - 1 - axis))
        nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, dtype=bool)
        found_nan = np.logical_or.accumulate(nan, axis=axis)
        # a place wins when it equals the best so far (a tie: the later one); once a nan is met,
        # the last nan so far
        wins = np.where(found_nan, nan, a == best)
        return np.maximum.accumulate(np.where(wins, places, 0), axis=axis)


class Cummax(Composed):
    """The running largest along `axis` and where it was found: (values, indices), as PyTorch's cummax.

    On a tie the later place wins; a gradient goes to the place each value came from.

    >>> cummax(tensor([1.0, 3.0, 2.0, 3.0]), 0)
    (tensor([1., 3., 3., 3.]), tensor([0, 1, 1, 3]))
    """

    made_of = (Gather,)
    method = builtin = True

    @staticmethod
    def forward(x: Any, axis: int) -> Any:
        return running_extreme(x, axis, True)


class Cummin(Composed):
    """The running smallest along `axis` and where it was found: (values, indices), as PyTorch's cummin.

    >>> cummin(tensor([3.0, 1.0, 2.0, 1.0]), 0)
    (tensor([3., 1., 1., 1.]), tensor([0, 1, 1, 3]))
    """

    made_of = (Gather,)
    method = builtin = True

    @staticmethod
    def forward(x: Any, axis: int) -> Any:
        return running_extreme(x, axis, False)


def running_extreme(x: Any, axis: int, largest: bool) -> tuple[Any, Any]:
    """cummax's or cummin's pair: the values are gathered from where they were found, so the
    rule is gather's (each g added at its place)."""
    index = x.running_winner(axis, largest)
    if not x.ndim:
        return x.reshape(1).gather(0, index.reshape(1)).reshape(()), index
    return x.gather(axis, index), index
