"""Making tensors: from data, filled with a value, evenly spaced, or random."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import hooks
from .exceptions import TensorTypeError, TensorValueError
from .op import builtin
from .shaping import shape_of
from .tensor import Tensor, type_name

DTYPES = {"float": np.float64, "int": np.int64, "bool": np.bool_}

_rng: np.random.Generator | None = None  # made on first use: importing numpy.random costs start-up time


@builtin
def seed(n: int) -> None:
    """Restart the random numbers of randn and rand from n, so each run draws the same ones.

    >>> seed(0)
    >>> randn(2)
    tensor([ 0.1257, -0.1321])
    """
    global _rng
    _rng = np.random.default_rng(int(n))


def _generator() -> np.random.Generator:
    global _rng
    if _rng is None:
        _rng = np.random.default_rng()
    return _rng


def _leaf(data: np.ndarray, requires_grad: bool) -> Tensor:
    if data.ndim == 0:
        data = data[()]  # a NumPy scalar: arithmetic on it is several times faster than on a 0-d array
    if requires_grad and data.dtype.kind != "f":
        raise TensorTypeError(
            f"only float tensors can require grad, this one holds {type_name_of_dtype(data)}",
            help='make it a float tensor: tensor(..., dtype="float")',
        )
    return Tensor(data, requires_grad=bool(requires_grad))


def type_name_of_dtype(data: np.ndarray) -> str:
    return {"b": "bools", "i": "ints", "u": "ints"}.get(data.dtype.kind, "floats")


def _plain(x: Any, seen: list[int] | None = None) -> Any:
    """Nested lists of numbers and tensors as nested lists of NumPy values.

    `seen` counts the values visited: one list repeated (`[row] * 10**7`) is cheap to make but
    would be enormous to copy, so the budget is checked while walking, not after."""
    seen = seen if seen is not None else [0]
    if isinstance(x, Tensor):
        seen[0] += x.size
        hooks.allocating(seen[0], "tensor()", help="use smaller tensors")
        return np.asarray(x.data)
    if isinstance(x, list | tuple):
        seen[0] += len(x)
        hooks.allocating(seen[0], "tensor()", help="use smaller tensors")
        return [_plain(e, seen) for e in x]
    if isinstance(x, bool | int | float | np.generic):
        return x
    raise TensorTypeError(f"tensor() takes numbers, nested lists of numbers, or tensors; found {type_name(x)}")


def _rectangular_size(data: Any) -> int:
    """The element count if `data` is rectangular, read along its first elements (no full walk)."""
    count = 1
    for _ in range(64):  # NumPy allows at most 64 dimensions
        if isinstance(data, Tensor):
            return count * data.size
        if not isinstance(data, list | tuple) or not data:
            return count
        count *= len(data)
        data = data[0]
    return count


def _check_size(shape: tuple[int, ...]) -> None:
    hooks.new_shape(shape)


@builtin
def tensor(data: Any, requires_grad: bool = False, dtype: str | None = None) -> Tensor:
    """A new leaf tensor from a number or nested lists of numbers; requires_grad=True makes it collect gradients.

    >>> tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    """
    if dtype is not None and (not isinstance(dtype, str) or dtype not in DTYPES):
        given = repr(dtype) if isinstance(dtype, str) else type_name(dtype)
        raise TensorValueError(f"dtype must be one of {', '.join(DTYPES)}, not {given}")
    if dtype is None:
        keep = isinstance(data, Tensor) and data.dtype != "float"
        dtype = data.dtype if keep else "float"
    hooks.allocating(_rectangular_size(data), "tensor()", help="use smaller tensors")
    try:
        array = np.array(_plain(data), dtype=DTYPES[dtype])
    except ValueError:
        raise TensorValueError("tensor() needs a rectangular nested list: some rows have different lengths") from None
    except (TypeError, OverflowError) as e:
        raise TensorValueError(f"tensor(): {e}") from None
    except RecursionError:  # a list nested thousands deep
        raise TensorValueError("tensor(): the list is nested too deeply") from None
    return _leaf(array, requires_grad)


def _filled(value: float, shape: tuple[int, ...], requires_grad: bool) -> Tensor:
    _check_size(shape)
    return _leaf(np.full(shape, float(value)), requires_grad)


@builtin
def zeros(*shape: Any, requires_grad: bool = False) -> Tensor:
    """A tensor of the given shape filled with 0.

    >>> zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """
    return _filled(0.0, shape_of(shape), requires_grad)


@builtin
def ones(*shape: Any, requires_grad: bool = False) -> Tensor:
    """A tensor of the given shape filled with 1.

    >>> ones(2)
    tensor([1., 1.])
    """
    return _filled(1.0, shape_of(shape), requires_grad)


@builtin
def full(shape: Any, value: float, requires_grad: bool = False) -> Tensor:
    """A tensor of the given shape filled with value.

    >>> full((2, 2), 7.0)
    tensor([[7., 7.],
            [7., 7.]])
    """
    return _filled(value, shape_of((shape,)), requires_grad)


@builtin
def zeros_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros with the shape of t.

    >>> zeros_like(tensor([1.0, 2.0]))
    tensor([0., 0.])
    """
    return _filled(0.0, _tensor_arg(t, "zeros_like").shape, requires_grad)


@builtin
def ones_like(t: Tensor, requires_grad: bool = False) -> Tensor:
    """A tensor of ones with the shape of t.

    >>> ones_like(tensor([1.0, 2.0]))
    tensor([1., 1.])
    """
    return _filled(1.0, _tensor_arg(t, "ones_like").shape, requires_grad)


def _tensor_arg(t: Any, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TensorTypeError(f"{name}() needs a tensor, got {type_name(t)}")
    return t


@builtin
def randn(*shape: Any, requires_grad: bool = False) -> Tensor:
    """Samples from the standard normal distribution, in a tensor of the given shape.

    >>> seed(0)
    >>> randn(2, 2)
    tensor([[ 0.1257, -0.1321],
            [ 0.6404,  0.1049]])
    """
    dims = shape_of(shape)
    _check_size(dims)
    return _leaf(_generator().standard_normal(dims), requires_grad)


@builtin
def rand(*shape: Any, requires_grad: bool = False) -> Tensor:
    """Samples from the uniform distribution on [0, 1), in a tensor of the given shape.

    >>> seed(0)
    >>> rand(3)
    tensor([0.6370, 0.2698, 0.0410])
    """
    dims = shape_of(shape)
    _check_size(dims)
    return _leaf(_generator().random(dims), requires_grad)


@builtin
def arange(start: float, stop: float | None = None, step: float = 1, requires_grad: bool = False) -> Tensor:
    """start, start + step, ... up to but not including stop; arange(n) counts from 0 to n - 1.

    >>> arange(4)
    tensor([0, 1, 2, 3])
    >>> arange(0.0, 1.0, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise TensorTypeError(f"arange takes numbers, not {type_name(v)}")
    if step == 0:
        raise TensorValueError("arange: step must not be zero")
    count = np.ceil((stop - start) / step)
    if not np.isfinite(count):
        raise TensorValueError(f"arange({start}, {stop}, {step}) does not have a finite number of values")
    _check_size((max(0, int(count)),))
    ints = all(isinstance(v, int) for v in (start, stop, step))
    return _leaf(np.arange(start, stop, step, dtype=np.int64 if ints else np.float64), requires_grad)


@builtin
def linspace(start: float, stop: float, num: int = 50, requires_grad: bool = False) -> Tensor:
    """num evenly spaced values from start to stop, both ends included.

    >>> linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    if isinstance(num, bool) or not isinstance(num, int):
        raise TensorTypeError(f"linspace: num must be an int, not {type_name(num)}")
    _check_size((num,))
    return _leaf(np.linspace(float(start), float(stop), num), requires_grad)


@builtin
def eye(n: int, m: int | None = None, requires_grad: bool = False) -> Tensor:
    """The identity matrix, n × n (or n × m).

    >>> eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    dims = shape_of((n, n if m is None else m))
    _check_size(dims)
    return _leaf(np.eye(*dims), requires_grad)
