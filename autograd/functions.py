"""Elementwise functions (exp, log, tanh, relu, ...) and where/maximum/minimum, with their rules.

Each op is one class: the docstring `help` shows, the rule as text, how a DG program reaches
it (a tensor method `x.exp()`, a builtin `exp(x)` that also maps a number to a number), the
forward on NumPy values, and the rule on tensors, under it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import hooks
from .exceptions import ShapeError, TensorTypeError
from .op import Op
from .shaping import broadcast_shape, broadcasting, size_bound


def numbers(a: Any, what: str = "the result") -> Any:
    """The operand of a function of numbers: exp of an int tensor is a float one (as in NumPy),
    exp of a bool tensor an error. Its result, as large as it, is shown to the hooks first."""
    if type(a) is np.ndarray:
        if a.dtype.kind == "b":
            raise TensorTypeError("this function needs numbers, not a bool tensor")
        if a.size >= hooks.watch:
            hooks.installed.allocating(a.size, 8, what, a.shape)
    elif type(a) is bool or type(a) is np.bool_:
        raise TensorTypeError("this function needs numbers, not a bool tensor")
    return a


class Exp(Op):
    """e to the power of each element (a number gives a number).

    >>> exp(tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """

    rules = ("g·exp a",)
    nan = "exp of a large value overflows"
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        a = numbers(a)
        if type(a) is np.ndarray and a.size >= 4096 and a.dtype == np.float64:
            # exp of a value below -746 is 0, and the C library takes its slow path (setting errno)
            # to say so: a masked softmax's -1e9 costs twice an ordinary value. Those are 0 here
            # without asking it; every other value, nan included, is its exp.
            underflow = a < -746.0
            if underflow.any():
                out = np.empty(a.shape)  # (not np.zeros: a large one would be new pages, faulted in)
                np.exp(a, out=out, where=~underflow)
                np.copyto(out, 0.0, where=underflow)
                return out
        return np.exp(a)

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * out,)


class Log(Op):
    """The natural logarithm of each element; log(0) is -inf.

    >>> log(tensor([1.0, 10.0]))
    tensor([0.0000, 2.3026])
    """

    rules = ("g/a",)
    nan = "the derivative of log(x) is 1/x, infinite at x = 0"
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.log(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g / a,)


class Sqrt(Op):
    """The square root of each element.

    >>> sqrt(tensor([4.0, 2.0]))
    tensor([2.0000, 1.4142])
    """

    rules = ("g/(2√a)",)
    nan = "the derivative of sqrt(x) is 1/(2 sqrt(x)), infinite at x = 0"
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.sqrt(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g / (2 * out),)


class Tanh(Op):
    """The hyperbolic tangent of each element, between -1 and 1.

    >>> tanh(tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """

    rules = ("g·(1 - tanh² a)",)
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.tanh(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * (1 - out * out),)


class Sigmoid(Op):
    """1 / (1 + exp(-x)) for each element: a number between 0 and 1.

    >>> sigmoid(tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """

    rules = ("g·σ(a)(1 - σ(a))",)
    note = "σ(a) = 1 / (1 + e^-a)"
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        # 1 / (1 + e^-x) overflows for very negative x; this form never does.
        return np.exp(-np.logaddexp(0.0, -np.asarray(numbers(a), dtype=float)))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * out * (1 - out),)


class Relu(Op):
    """Each element where it is positive, and 0 where it is not.

    >>> relu(tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    rules = ("g where a > 0",)
    note = "0 elsewhere"
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.maximum(numbers(a), 0)

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        # g where the unit was on, a clean 0 elsewhere (even where g is inf); the mask straight
        # from NumPy: `a > 0` would go through the engine's comparison, for the same array
        return (g.where(a.data > 0, 0.0),)


class Abs(Op):
    """The absolute value of each element.

    >>> tensor([-1.5, 2.0]).abs()
    tensor([1.5000, 2.0000])
    """

    rules = ("g·sign a",)
    note = "0 at 0"
    method = True

    @staticmethod
    def forward(a: Any) -> Any:
        return np.abs(numbers(a))

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * a.sign(),)


class Maximum(Op):
    """The larger of a and b, element by element (their shapes broadcast).

    >>> maximum(tensor([1.0, 5.0]), 3.0)
    tensor([3., 5.])
    """

    inputs = ("a", "b")
    rules = ("g where a > b", "g where b > a")
    note = "a tie shares `g` half and half"
    builtin = True

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(np.maximum, "maximum", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        share = _winner_share(a.data, b.data)  # 1 where a wins, 0.5 on a tie, 0 where b wins
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)


class Minimum(Op):
    """The smaller of a and b, element by element (their shapes broadcast).

    >>> minimum(tensor([1.0, 5.0]), 3.0)
    tensor([1., 3.])
    """

    inputs = ("a", "b")
    rules = ("g where a < b", "g where b < a")
    note = "a tie shares `g` half and half"
    builtin = True

    @staticmethod
    def forward(a: Any, b: Any) -> Any:
        return broadcasting(np.minimum, "minimum", a, b)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
        share = _winner_share(b.data, a.data)  # 1 where a is the smaller, 0.5 on a tie
        return (g * share if a.requires_grad else None), (g * (1 - share) if b.requires_grad else None)


def _winner_share(a: Any, b: Any) -> np.ndarray:
    return (np.greater(a, b) + 0.5 * np.equal(a, b)).astype(float)


KEPT_WHERE = 16384  # elements from which kept_where takes less time than np.where (docs/performance.md)
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def kept_where(cond: Any, a: Any) -> Any:
    """np.where(cond, a, 0.0), bit for bit, for a float array `a` and a bool array `cond` that
    broadcasts to a's shape: a's bits ANDed with all ones where cond holds and all zeros (+0.0)
    elsewhere. NumPy's where branches on each element, and a relu's mask is as unpredictable as a
    coin: on a large array this is several times faster; on a small one np.where is (each call here
    is three)."""
    bits = _BITS.get(a.dtype.itemsize) if type(a) is np.ndarray and a.dtype.kind == "f" else None
    if bits is None or (np.shape(cond) != a.shape and np.broadcast_shapes(np.shape(cond), a.shape) != a.shape):
        return np.where(cond, a, 0.0)
    out = np.empty(a.shape, a.dtype)
    mask = out.view(bits)
    np.copyto(mask, cond)  # 1 where cond holds, 0 elsewhere
    np.negative(mask, out=mask)  # all ones where it holds (an unsigned -1)
    np.bitwise_and(a.view(bits), mask, out=mask)
    return out


class Where(Op):
    """a where the condition is true and b elsewhere, element by element; only a and b get gradients.

    >>> x = tensor([-1.0, 2.0])
    >>> where(x > 0, x, 0.0)
    tensor([0., 2.])
    """

    inputs = ("a", "b")
    rules = ("g where cond", "g where not cond")
    builtin = True

    @staticmethod
    def forward(condition: Any, a: Any, b: Any) -> Any:
        cond = np.asarray(condition, dtype=bool)
        try:
            if size_bound(cond, a, b) >= hooks.watch:
                hooks.new_shape(broadcast_shape(cond, a, b), "the result of where()")
            if type(b) is float and b == 0.0 and math.copysign(1.0, b) > 0 and np.size(a) >= KEPT_WHERE:
                return kept_where(cond, a)  # (every rule that lets a gradient through a mask: relu's)
            return np.where(cond, a, b)
        except ValueError:
            raise ShapeError(f"where: cannot broadcast shapes {cond.shape}, {np.shape(a)} and {np.shape(b)}") from None

    @staticmethod
    def backward(g: Any, out: Any, condition: Any, a: Any, b: Any) -> tuple[Any, Any]:
        cond = np.asarray(condition, dtype=bool)
        return (g.where(cond, 0.0) if a.requires_grad else None), (g.where(~cond, 0.0) if b.requires_grad else None)


class Clamp(Op):
    """Each element limited to the range min to max (either may be None), as PyTorch's clamp.

    >>> clamp(tensor([-1.0, 0.5, 2.0]), 0.0, 1.0)
    tensor([0.0000, 0.5000, 1.0000])
    """

    rules = ("g where min ≤ a ≤ max",)
    note = "boundaries included, as PyTorch"
    sample = (np.array([-0.5, 0.5, 1.5]), 0.0, 1.0)  # below, between and above the bounds, none on one
    method = builtin = True  # (not also `clip`: compiler exercise 3 has students add that builtin)

    @staticmethod
    def forward(a: Any, min: Any = None, max: Any = None) -> Any:
        if min is None and max is None:
            raise TensorTypeError("clamp needs min, max or both", help="clamp(x, 0.0, 1.0), or clamp(x, min=0.0)")
        a = numbers(a)
        if size_bound(a, min, max) >= hooks.watch:
            hooks.new_shape(broadcast_shape(a, min, max), "the result of clamp()")
        low = a if min is None else np.maximum(a, min)  # (np.clip would give min where min > max; PyTorch max)
        return low if max is None else np.minimum(low, max)

    @staticmethod
    def backward(g: Any, out: Any, a: Any, min: Any = None, max: Any = None) -> tuple[Any]:
        # PyTorch's rule: g passes where min ≤ a ≤ max, its boundaries included
        inside = np.ones(a.shape, dtype=bool)
        if min is not None:
            inside &= a.data >= min
        if max is not None:
            inside &= a.data <= max
        return (g.where(inside, 0.0),)


class Erf(Op):
    """The error function of each element, 2/√π ∫₀ˣ e^(-t²) dt (exact GELU is x·(1 + erf(x/√2))/2).

    >>> erf(tensor([0.0, 0.5]))
    tensor([0.0000, 0.5205])
    """

    rules = ("g·2/√π·exp(-a²)",)
    method = builtin = numbers = True

    @staticmethod
    def forward(a: Any) -> Any:
        a = np.asarray(numbers(a), dtype=float)
        out = np.empty_like(a)
        flat, into = a.reshape(-1), out.reshape(-1)
        for start in range(0, flat.size, 1 << 16):  # NumPy has no erf: Python's, in slices a timeout can stop between
            into[start : start + (1 << 16)] = ERF(flat[start : start + (1 << 16)])
        return out if out.ndim else float(out)

    @staticmethod
    def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
        return (g * (2 / math.sqrt(math.pi)) * (-(a * a)).exp(),)


ERF = np.frompyfunc(math.erf, 1, 1)
