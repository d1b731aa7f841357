"""Every differentiable op of the engine, checked against central finite differences.

Inputs are drawn by hypothesis: shapes that broadcast against each other in both directions
(size-1 dims, missing dims, 0-d tensors), values kept clear of kinks (relu, abs, max, mod) and
domain edges (log, sqrt, division). Each check covers the first derivative through `backward`
and through `gradient`, and the second derivative (the rules are written in the engine's own
ops, so they must be differentiable too). See gradcheck_util.py.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gradcheck_util import (
    arrays,
    away_from_zero,
    broadcastable,
    check_forward,
    check_gradients,
    floats_in,
    gradcheck_settings,
    on_grid,
    reducible_to,
    shapes,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dglang import autograd
from dglang.autograd import Tensor

Strategy = st.SearchStrategy
plain = floats_in(-2.0, 2.0)


# ---- elementwise functions of one tensor --------------------------------------------------
UNARY: dict[str, tuple[Callable[[Tensor], Tensor], Callable[[np.ndarray], Any], Strategy[float]]] = {
    "neg": (operator.neg, np.negative, plain),
    "exp": (autograd.exp, np.exp, plain),
    "log": (autograd.log, np.log, floats_in(0.1, 3.0)),
    "sqrt": (autograd.sqrt, np.sqrt, floats_in(0.1, 3.0)),
    "sin": (autograd.sin, np.sin, floats_in(-3.0, 3.0)),
    "cos": (autograd.cos, np.cos, floats_in(-3.0, 3.0)),
    "asin": (autograd.asin, np.arcsin, floats_in(-0.9, 0.9)),  # (their derivatives are infinite at ±1)
    "acos": (autograd.acos, np.arccos, floats_in(-0.9, 0.9)),
    "atan": (autograd.atan, np.arctan, floats_in(-3.0, 3.0)),
    "tanh": (autograd.tanh, np.tanh, floats_in(-3.0, 3.0)),
    "sigmoid": (autograd.sigmoid, lambda x: 1 / (1 + np.exp(-x)), floats_in(-4.0, 4.0)),
    "relu": (autograd.relu, lambda x: np.maximum(x, 0.0), away_from_zero()),
    "abs": (autograd.abs_, np.abs, away_from_zero()),
    "abs (builtin)": (abs, np.abs, away_from_zero()),
    "x.exp() (method)": (lambda x: x.exp(), np.exp, plain),
}


@pytest.mark.parametrize("op", UNARY)
@gradcheck_settings
@given(data=st.data())
def test_unary(op: str, data: st.DataObject) -> None:
    fn, reference, elements = UNARY[op]
    x = data.draw(arrays(data.draw(shapes(), label="shape"), elements), label="x")
    check_forward(op, fn, reference, x)
    check_gradients(op, fn, x, names=["x"])


# ---- elementwise functions of two tensors, broadcasting ------------------------------------
# mod: a = k + f with f in [0.3, 0.7] and b = ±(1 + d) with d <= 0.05 keep a / b at least 0.1
# away from an integer, where a % b jumps.
mod_left = st.builds(lambda k, f: k + f, st.integers(-3, 3), floats_in(0.3, 0.7))
mod_right = st.builds(lambda s, d: s * (1 + d), st.sampled_from([-1.0, 1.0]), floats_in(0.0, 0.05))

BINARY: dict[str, tuple[Callable[[Tensor, Tensor], Tensor], Callable[..., Any], Strategy[float], Strategy[float]]] = {
    "add": (operator.add, np.add, plain, plain),
    "sub": (operator.sub, np.subtract, plain, plain),
    "mul": (operator.mul, np.multiply, plain, plain),
    "div": (operator.truediv, np.divide, plain, away_from_zero(0.5, 2.0)),
    # Both gradients: the exponent's needs log(base), so the base stays positive.
    "pow": (operator.pow, np.power, floats_in(0.5, 2.0), floats_in(-2.0, 2.0)),
    "mod": (operator.mod, np.mod, mod_left, mod_right),
    # a on the grid shifted by 0.05, b on the grid: never within 0.05 of a tie.
    "maximum": (autograd.maximum, np.maximum, on_grid(0.05), on_grid()),
    "minimum": (autograd.minimum, np.minimum, on_grid(0.05), on_grid()),
}


@pytest.mark.parametrize("op", BINARY)
@gradcheck_settings
@given(data=st.data())
def test_binary(op: str, data: st.DataObject) -> None:
    fn, reference, left, right = BINARY[op]
    shape_a, shape_b = data.draw(broadcastable(2), label="shapes")
    a = data.draw(arrays(shape_a, left), label="a")
    b = data.draw(arrays(shape_b, right), label="b")
    check_forward(op, fn, reference, a, b)
    check_gradients(op, fn, a, b, names=["a", "b"])


@gradcheck_settings
@given(data=st.data(), k=st.integers(-2, 3))
def test_pow_with_constant_integer_exponent_and_any_sign_of_base(data: st.DataObject, k: int) -> None:
    x = data.draw(arrays(data.draw(shapes(), label="shape"), away_from_zero(0.5, 2.0)), label="x")
    check_gradients(f"pow (x ** {k})", lambda t: t**k, x, names=["x"])


# x ** b and its gradients at the edges of its domain, as PyTorch 2.13 (float64) computes them:
# (x, b, x ** b, d/dx with b a tensor, d/db, d/dx with b a Python number).
nan, inf = float("nan"), float("inf")
POW_AT_THE_EDGES = [
    (0.0, 0.0, 1.0, 0.0, 0.0, 0.0),
    (0.0, 0.5, 0.0, inf, 0.0, inf),
    (0.0, 1.0, 0.0, 1.0, 0.0, 1.0),
    (0.0, 1.5, 0.0, 0.0, 0.0, 0.0),
    (0.0, 2.0, 0.0, 0.0, 0.0, 0.0),
    (0.0, 3.0, 0.0, 0.0, 0.0, 0.0),
    (0.0, -1.0, inf, -inf, -inf, -inf),
    (0.0, -0.5, inf, -inf, -inf, -inf),
    (-2.0, 0.0, 1.0, 0.0, nan, 0.0),
    (-2.0, 0.5, nan, nan, nan, nan),
    (-2.0, 1.0, -2.0, 1.0, nan, 1.0),
    (-2.0, 2.0, 4.0, -4.0, nan, -4.0),
    (-2.0, 3.0, -8.0, 12.0, nan, 12.0),
    (-2.0, -1.0, -0.5, -0.25, nan, -0.25),
    (2.0, 0.0, 1.0, 0.0, 0.6931471805599453, 0.0),
    (2.0, 0.5, 1.4142135623730951, 0.3535533905932738, 0.9802581434685472, 0.35355339059327373),
    (2.0, -1.0, 0.5, -0.25, 0.34657359027997264, -0.25),
]


@pytest.mark.parametrize(("x", "b", "value", "dx", "db", "dx_number"), POW_AT_THE_EDGES)
def test_pow_at_the_edges_of_its_domain_as_pytorch(
    x: float, b: float, value: float, dx: float, db: float, dx_number: float
) -> None:
    """`x ** 0` at x = 0 has gradient 0, not nan (0 * 0 ** -1); d(x ** b)/db at x = 0 is 0 for b >= 0."""
    with np.errstate(all="ignore"):
        base, exponent = autograd.tensor(x, requires_grad=True), autograd.tensor(b, requires_grad=True)
        y = base**exponent
        got = autograd.gradient(y, [base, exponent])
        base_alone = autograd.tensor(x, requires_grad=True)
        got_number = autograd.gradient(base_alone**b, base_alone)
    for name, have, want in [("value", y, value), ("d/dx", got[0], dx), ("d/db", got[1], db)]:
        assert np.isclose(have.item(), want, equal_nan=True), f"{name} of {x} ** {b}: {have.item()} != {want}"
    assert np.isclose(got_number.item(), dx_number, equal_nan=True)


def test_the_second_derivative_of_small_powers_at_zero() -> None:
    """d²/dx² of x ** 1 is 0 and of x ** 2 is 2 at x = 0 (the first derivative's own x ** 0 and 0 * x ** -1)."""
    for k, expected in [(1.0, 0.0), (2.0, 2.0), (3.0, 0.0)]:
        x = autograd.tensor(0.0, requires_grad=True)
        with np.errstate(all="ignore"):  # 0 ** -1 on the way, masked
            first = autograd.gradient(x**k, x)
            assert autograd.gradient(first, x).item() == expected


PYTHON_NUMBER_ON_ONE_SIDE = {
    "2.5 + x": lambda x: 2.5 + x,
    "x - 1.5": lambda x: x - 1.5,
    "1.5 - x": lambda x: 1.5 - x,
    "-3 * x": lambda x: -3 * x,
    "1 / x": lambda x: 1 / x,
    "x / 4": lambda x: x / 4,
    "2 ** x": lambda x: 2**x,
    "x ** 0.5": lambda x: x**0.5,
    "3.5 % x": lambda x: 3.5 % x,
    "maximum(x, 1.0)": lambda x: autograd.maximum(x, 1.0),
    "minimum(0.0, x)": lambda x: autograd.minimum(0.0, x),
}


@pytest.mark.parametrize("op", PYTHON_NUMBER_ON_ONE_SIDE)
def test_python_number_on_one_side(op: str) -> None:
    x = np.array([[0.65, 1.55, 1.2], [0.8, 1.35, 0.9]])  # > 0, away from 1.0 and from 3.5 / x integer
    check_gradients(op, PYTHON_NUMBER_ON_ONE_SIDE[op], x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_where(data: st.DataObject) -> None:
    shape_c, shape_a, shape_b = data.draw(broadcastable(3), label="shapes")
    cond = data.draw(hnp.arrays(np.bool_, shape_c), label="cond")
    a = data.draw(arrays(shape_a, plain), label="a")
    b = data.draw(arrays(shape_b, plain), label="b")
    fn = lambda x, y: autograd.where(Tensor(cond), x, y)
    check_forward("where", fn, lambda x, y: np.where(cond, x, y), a, b)
    check_gradients("where", fn, a, b, names=["a", "b"])


# ---- matrix product ----------------------------------------------------------------------
# Shapes as functions of the batch size B and the matrix sizes n, k, m.
MATMUL_SHAPES = {
    "1-D @ 1-D": lambda B, n, k, m: ((k,), (k,)),
    "2-D @ 1-D": lambda B, n, k, m: ((n, k), (k,)),
    "1-D @ 2-D": lambda B, n, k, m: ((k,), (k, m)),
    "2-D @ 2-D": lambda B, n, k, m: ((n, k), (k, m)),
    "3-D @ 2-D": lambda B, n, k, m: ((B, n, k), (k, m)),
    "4-D @ 2-D (a stack of rows times one matrix)": lambda B, n, k, m: ((B, 2, n, k), (k, m)),
    "2-D @ 3-D": lambda B, n, k, m: ((n, k), (B, k, m)),
    "3-D @ 1-D": lambda B, n, k, m: ((B, n, k), (k,)),
    "1-D @ 3-D": lambda B, n, k, m: ((k,), (B, k, m)),
    "3-D @ 3-D": lambda B, n, k, m: ((B, n, k), (B, k, m)),
    "3-D @ 3-D, batch broadcast on the left": lambda B, n, k, m: ((1, n, k), (B, k, m)),
    "3-D @ 3-D, batch broadcast on the right": lambda B, n, k, m: ((B, n, k), (1, k, m)),
    "4-D @ 3-D, batch broadcast both ways": lambda B, n, k, m: ((B, 1, n, k), (2, k, m)),
}


@pytest.mark.parametrize("case", MATMUL_SHAPES)
@gradcheck_settings
@given(data=st.data(), sizes=st.tuples(*[st.integers(1, 3)] * 4))
def test_matmul(case: str, data: st.DataObject, sizes: tuple[int, int, int, int]) -> None:
    shape_a, shape_b = MATMUL_SHAPES[case](*sizes)
    a = data.draw(arrays(shape_a, plain), label="a")
    b = data.draw(arrays(shape_b, plain), label="b")
    check_forward(f"matmul {case}", operator.matmul, np.matmul, a, b)
    check_gradients(f"matmul {case}", operator.matmul, a, b, names=["a", "b"])


def test_a_stack_times_one_matrix_is_one_product_of_its_rows() -> None:
    """(batch, positions, width) @ (width, n) is computed as PyTorch computes it, one matrix product
    of all the stack's rows (a transposed stack's too), and its weight's gradient as one product
    over all those rows: the same numbers, bit for bit, as the rows' product written out."""
    rng = np.random.default_rng(5)
    for a_data in (rng.normal(size=(4, 6, 5)), rng.normal(size=(3, 5, 2, 6)).transpose(0, 3, 2, 1)):
        b_data, g = rng.normal(size=(5, 7)), rng.normal(size=(*a_data.shape[:-1], 7))
        a, b = Tensor(a_data, requires_grad=True), Tensor(b_data, requires_grad=True)
        out = a @ b
        rows = np.ascontiguousarray(a_data).reshape(-1, 5)
        assert out.data.tobytes() == (rows @ b_data).tobytes() and out.shape == g.shape
        out.backward(Tensor(g))
        assert b.grad.data.tobytes() == (rows.T @ g.reshape(-1, 7)).tobytes()
        assert a.grad.data.tobytes() == (g.reshape(-1, 7) @ b_data.T).reshape(a_data.shape).tobytes()


@pytest.mark.parametrize("rows, columns", [(1, 1), (3, 5), (24, 25), (65, 24), (129, 7)])
def test_a_matrix_times_a_vector_sends_the_vector_aT_times_g_bit_for_bit(rows: int, columns: int) -> None:
    """The vector's gradient Aᵀ @ g is computed as g @ A (one op fewer, a recurrent cell's at
    every step): NumPy multiplies both with the same gemv call, so the numbers are the same."""
    rng = np.random.default_rng(rows * columns)
    a, v = Tensor(rng.normal(size=(rows, columns))), Tensor(rng.normal(size=columns), requires_grad=True)
    g = rng.normal(size=rows)
    (a @ v).backward(Tensor(g))
    assert v.grad.data.tobytes() == (a.data.T @ g).tobytes()


# ---- reductions ----------------------------------------------------------------------------
@st.composite
def axis_args(draw: st.DrawFn, ndim: int) -> int | tuple[int, ...] | None:
    """None, an int (maybe negative), or a tuple of distinct axes (some maybe negative)."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1]))
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).flatmap(
        lambda axes: st.tuples(*[st.sampled_from([a, a - ndim]) for a in axes])
    )
    return draw(st.one_of(st.none(), one, several))


REDUCTIONS = {
    "sum": (autograd.sum_, np.sum),
    "mean": (autograd.mean, np.mean),
    "max": (autograd.max_, np.max),
    "min": (autograd.min_, np.min),
    "x.sum() (method)": (lambda x, axis, keepdims: x.sum(axis=axis, keepdims=keepdims), np.sum),
}


@pytest.mark.parametrize("op", REDUCTIONS)
@gradcheck_settings
@given(data=st.data(), keepdims=st.booleans())
def test_reduction(op: str, data: st.DataObject, keepdims: bool) -> None:
    fn, reference = REDUCTIONS[op]
    shape = data.draw(shapes(), label="shape")
    axis = data.draw(axis_args(len(shape)), label="axis")
    # Distinct grid values: max and min have a single winner, far from any tie.
    x = data.draw(arrays(shape, on_grid(), unique=True), label="x")
    name = f"{op}(axis={axis}, keepdims={keepdims})"
    numpy_axis = None if not shape else axis  # NumPy has no axis 0 for a 0-d array
    check_forward(name, lambda t: fn(t, axis, keepdims), lambda a: reference(a, numpy_axis, keepdims=keepdims), x)
    check_gradients(name, lambda t: fn(t, axis=axis, keepdims=keepdims), x, names=["x"])


def test_max_and_maximum_share_the_gradient_on_a_tie() -> None:
    # Not differentiable there; the engine's convention (as documented) is an equal share.
    x = Tensor(np.array([1.0, 3.0, 3.0]), requires_grad=True)
    autograd.max_(x).backward()
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.5, 0.5]
    a = Tensor(np.array([2.0, 1.0]), requires_grad=True)
    b = Tensor(np.array([2.0, 3.0]), requires_grad=True)
    autograd.maximum(a, b).sum().backward()
    assert a.grad is not None and b.grad is not None
    assert (a.grad.tolist(), b.grad.tolist()) == ([0.5, 0.0], [0.5, 1.0])


# ---- reshaping, transposing, broadcasting -------------------------------------------------
@gradcheck_settings
@given(data=st.data())
def test_reshape(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    size = int(np.prod(shape))
    targets = [(-1,), (size,), (1, size), (size, 1, 1), shape[::-1], (-1, 1)] + ([()] if size == 1 else [])
    target = data.draw(st.sampled_from(targets), label="target")
    x = data.draw(arrays(shape, plain), label="x")
    name = f"reshape {shape} -> {target}"
    check_forward(name, lambda t: t.reshape(target), lambda a: np.reshape(a, target), x)
    check_gradients(name, lambda t: t.reshape(target), x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_transpose(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    ndim = len(shape)
    # A permutation, each axis written as i or as its negative twin i - ndim.
    some_signs = lambda p: st.tuples(*[st.sampled_from([i, i - ndim]) for i in p])
    perm = data.draw(st.none() | st.permutations(range(ndim)).flatmap(some_signs), label="axes")
    x = data.draw(arrays(shape, plain), label="x")
    name = f"transpose(axes={perm}) of shape {shape}"
    check_forward(name, lambda t: autograd.transpose(t, perm), lambda a: np.transpose(a, perm), x)
    check_gradients(name, lambda t: autograd.transpose(t, perm), x, names=["x"])
    if perm is not None and ndim:
        check_gradients(f"x.transpose(*{perm})", lambda t: t.transpose(*perm), x, names=["x"])


@pytest.mark.parametrize("axes", [(-1, 0), (1, -2), (-1, -3, -2), (2, 0, 1), (-2, -1, 0)])
def test_transpose_fixed_permutations(axes: tuple[int, ...]) -> None:
    x = np.random.default_rng(2).uniform(-2, 2, size=(2, 3, 4)[: len(axes)])
    name = f"transpose(axes={axes}) of shape {x.shape}"
    check_forward(name, lambda t: t.transpose(*axes), lambda a: np.transpose(a, axes), x)
    check_gradients(name, lambda t: t.transpose(*axes), x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_dot_T_and_mT(data: st.DataObject) -> None:
    x = data.draw(arrays(data.draw(shapes(), label="shape"), plain), label="x")
    check_forward(".T", lambda t: t.T, lambda a: a.T, x)
    check_gradients(".T", lambda t: t.T, x, names=["x"])
    if x.ndim >= 2:
        check_forward(".mT", lambda t: t.mT, lambda a: np.swapaxes(a, -1, -2), x)
        check_gradients(".mT", lambda t: t.mT, x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_broadcast_to(data: st.DataObject) -> None:
    target = data.draw(shapes(), label="target")
    shape = data.draw(reducible_to(target), label="shape")
    x = data.draw(arrays(shape, plain), label="x")
    name = f"broadcast_to {shape} -> {target}"
    check_forward(name, lambda t: autograd.broadcast_to(t, target), lambda a: np.broadcast_to(a, target), x)
    check_gradients(name, lambda t: autograd.broadcast_to(t, target), x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_sum_to(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    target = data.draw(reducible_to(shape), label="target")
    x = data.draw(arrays(shape, plain), label="x")

    def reference(a: np.ndarray) -> np.ndarray:
        lead = a.ndim - len(target)
        summed = a.sum(axis=tuple(range(lead))) if lead else a
        return summed.sum(axis=tuple(i for i, n in enumerate(target) if n == 1), keepdims=True).reshape(target)

    name = f"sum_to {shape} -> {target}"
    check_forward(name, lambda t: autograd.sum_to(t, target), reference, x)
    check_gradients(name, lambda t: autograd.sum_to(t, target), x, names=["x"])


# ---- indexing ------------------------------------------------------------------------------
def int_tensor(values: Any) -> Tensor:
    return Tensor(np.array(values, dtype=np.int64))


def bool_tensor(values: Any) -> Tensor:
    return Tensor(np.array(values, dtype=bool))


# Indices into a (3, 4) tensor, each a kind of index students use.
INDICES: dict[str, Any] = {
    "int": 1,
    "negative int": -1,
    "two ints": (1, -2),
    "slice with step": slice(None, None, 2),
    "negative step": slice(None, None, -1),
    "slices with steps on both axes": (slice(1, None), slice(None, None, -2)),
    "None (new axis)": None,
    "None between": (slice(None), None, 1),
    "int list with repeats": [0, 2, 0, 0],
    "two int lists with repeats": ([0, 0, 2], [1, 1, 3]),
    "int list then slice": ([1, 1], slice(2, None)),
    "slice then int list": (slice(None), [3, 0, 3]),
    "1-D int tensor with repeats": int_tensor([2, 2, 0]),
    "2-D int tensor with repeats": int_tensor([[0, 1], [1, 1]]),
    "0-d int tensor": int_tensor(2),
    "bool mask over rows (list)": [True, False, True],
    "bool mask over rows (tensor)": bool_tensor([False, True, True]),
    "bool mask of the full shape": bool_tensor([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0]]),
    "bool mask then int": (bool_tensor([True, False, True]), 2),
}


def numpy_index(index: Any) -> Any:
    """The same index for NumPy: tensors become arrays, lists become arrays."""
    parts = index if isinstance(index, tuple) else (index,)
    out = tuple(p.numpy() if isinstance(p, Tensor) else np.array(p) if isinstance(p, list) else p for p in parts)
    return out if isinstance(index, tuple) else out[0]


@pytest.mark.parametrize("case", INDICES)
def test_getitem(case: str) -> None:
    index = INDICES[case]
    x = np.random.default_rng(0).uniform(-2, 2, size=(3, 4))
    check_forward(f"getitem [{case}]", lambda t: t[index], lambda a: a[numpy_index(index)], x)
    check_gradients(f"getitem [{case}]", lambda t: t[index], x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_getitem_basic_indices(data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=False), label="index")
    x = data.draw(arrays(shape, plain), label="x")
    name = f"getitem [{index!r}] of shape {shape}"
    check_forward(name, lambda t: t[index], lambda a: a[index], x)
    check_gradients(name, lambda t: t[index], x, names=["x"])


@gradcheck_settings
@given(data=st.data(), as_tensors=st.booleans())
def test_getitem_integer_arrays(data: st.DataObject, as_tensors: bool) -> None:
    shape = data.draw(shapes(min_dims=1), label="shape")
    # Index arrays draw from a few positions, so repeats are common: their gradients must add up.
    arrays_ = data.draw(hnp.integer_array_indices(shape, result_shape=shapes(min_dims=1, max_dims=2)), label="index")
    index = tuple(int_tensor(a) if as_tensors else a.tolist() for a in arrays_)
    x = data.draw(arrays(shape, plain), label="x")
    name = f"getitem [{index!r}] of shape {shape}"
    check_forward(name, lambda t: t[index], lambda a: a[arrays_], x)
    check_gradients(name, lambda t: t[index], x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_getitem_bool_mask(data: st.DataObject) -> None:
    shape = data.draw(shapes(min_dims=1), label="shape")
    masked_dims = data.draw(st.integers(1, len(shape)), label="masked dims")
    mask = data.draw(hnp.arrays(np.bool_, shape[:masked_dims]), label="mask")
    x = data.draw(arrays(shape, plain), label="x")
    name = f"getitem [mask of shape {mask.shape}] of shape {shape}"
    check_forward(name, lambda t: t[bool_tensor(mask)], lambda a: a[mask], x)
    check_gradients(name, lambda t: t[bool_tensor(mask)], x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_index_add_with_repeated_indices(data: st.DataObject) -> None:
    """The gradient of indexing: zeros with the values added at the index, repeats adding up."""
    shape = data.draw(shapes(min_dims=1), label="shape")
    arrays_ = data.draw(hnp.integer_array_indices(shape, result_shape=shapes(min_dims=1, max_dims=2)), label="index")
    index = tuple(arrays_)
    g = data.draw(arrays(np.zeros(shape)[index].shape, plain), label="g")

    def reference(values: np.ndarray) -> np.ndarray:
        out = np.zeros(shape)
        np.add.at(out, index, values)
        return out

    name = f"index_add [{index!r}] into shape {shape}"
    check_forward(name, lambda t: autograd.index_add(t, index, shape), reference, g)
    check_gradients(name, lambda t: autograd.index_add(t, index, shape), g, names=["g"])


# ---- joining --------------------------------------------------------------------------------
@gradcheck_settings
@given(data=st.data(), count=st.integers(1, 3))
def test_concat(data: st.DataObject, count: int) -> None:
    shape = data.draw(shapes(min_dims=1), label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=count, max_size=count), label="sizes")
    at = axis % len(shape)
    parts = [data.draw(arrays((*shape[:at], n, *shape[at + 1 :]), plain), label="part") for n in sizes]
    fn = lambda *ts: autograd.concat(list(ts), axis=axis)
    name = f"concat(axis={axis}) of shapes {[p.shape for p in parts]}"
    check_forward(name, fn, lambda *arrs: np.concatenate(arrs, axis=axis), *parts)
    check_gradients(name, fn, *parts, names=[f"part{i}" for i in range(count)])


@gradcheck_settings
@given(data=st.data(), count=st.integers(1, 3))
def test_stack(data: st.DataObject, count: int) -> None:
    shape = data.draw(shapes(), label="shape")
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    parts = [data.draw(arrays(shape, plain), label="part") for _ in range(count)]
    fn = lambda *ts: autograd.stack(list(ts), axis=axis)
    name = f"stack(axis={axis}) of {count} tensors of shape {shape}"
    check_forward(name, fn, lambda *arrs: np.stack(arrs, axis=axis), *parts)
    check_gradients(name, fn, *parts, names=[f"part{i}" for i in range(count)])


def test_concat_and_stack_of_one_tensor_twice() -> None:
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    check_gradients("concat([x, x])", lambda t: autograd.concat([t, t], axis=1), x, names=["x"])
    check_gradients("stack([x, x.T.T])", lambda t: autograd.stack([t, t.T.T]), x, names=["x"])


# ---- softmax family -------------------------------------------------------------------------
def np_logsumexp(a: np.ndarray, axis: int, keepdims: bool = False) -> np.ndarray:
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


SOFTMAX_FAMILY = {
    "softmax": (autograd.softmax, lambda a, axis: np.exp(a - np_logsumexp(a, axis, keepdims=True))),
    "log_softmax": (autograd.log_softmax, lambda a, axis: a - np_logsumexp(a, axis, keepdims=True)),
    "logsumexp": (autograd.logsumexp, np_logsumexp),
    "logsumexp keepdims": (
        lambda t, axis: autograd.logsumexp(t, axis=axis, keepdims=True),
        lambda a, axis: np_logsumexp(a, axis, keepdims=True),
    ),
}


@pytest.mark.parametrize("op", SOFTMAX_FAMILY)
@gradcheck_settings
@given(data=st.data())
def test_softmax_family(op: str, data: st.DataObject) -> None:
    fn, reference = SOFTMAX_FAMILY[op]
    shape = data.draw(shapes(min_dims=1), label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    # Ties are fine here: the max is only a constant shift.
    x = data.draw(arrays(shape, st.one_of(floats_in(-3.0, 3.0), st.just(1.0))), label="x")
    name = f"{op}(axis={axis})"
    check_forward(name, lambda t: fn(t, axis=axis), lambda a: reference(a, axis), x)
    check_gradients(name, lambda t: fn(t, axis=axis), x, names=["x"])


def composed_log_softmax(x: Tensor, axis: int) -> Tensor:
    """log_softmax as DG built it from other ops before it was one op: the values must not change."""
    shifted = x - x.detach().max(axis=axis, keepdims=True)
    return shifted - shifted.exp().sum(axis=axis, keepdims=True).log()


EDGES = st.sampled_from([np.inf, -np.inf, np.nan, -0.0, 0.0, 1e308, -1e308, -1e9, 5e-324, 746.0, -746.5])


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_log_softmax_is_one_op_with_the_values_of_the_ops_it_was_built_from(data: st.DataObject) -> None:
    shape = data.draw(shapes(min_dims=1), label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    x = data.draw(arrays(shape, st.one_of(floats_in(-50.0, 50.0), EDGES)), label="x")
    with np.errstate(all="ignore"):
        op = autograd.log_softmax(Tensor(x.copy(), requires_grad=True), axis=axis)
        built = composed_log_softmax(Tensor(x.copy()), axis)
    assert op.grad_fn is not None and op.grad_fn.op.name == "LogSoftmax"
    assert op.data.shape == built.data.shape and op.data.tobytes() == built.data.tobytes()


def test_log_softmax_of_a_large_masked_array_keeps_its_values() -> None:
    # 4,096 values or more: exp skips the C library's slow path below -746 (Exp.forward)
    x = np.random.default_rng(0).normal(size=(64, 128)) * 400
    x[::3] = -1e9
    assert autograd.log_softmax(Tensor(x), axis=1).data.tobytes() == composed_log_softmax(Tensor(x), 1).data.tobytes()


def test_softmax_of_large_values_has_finite_gradients() -> None:
    x = Tensor(np.array([1000.0, 1000.0, -1000.0]), requires_grad=True)
    (autograd.softmax(x) * Tensor(np.array([1.0, 2.0, 3.0]))).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), [-0.25, 0.25, 0.0], atol=1e-12)


# ---- a node used more than once -----------------------------------------------------------
def diamond(a: Tensor) -> Tensor:
    c = a * 2
    return c + c * a


def two_branches_rejoin(a: Tensor) -> Tensor:
    t = a.exp()
    left = t.sin() * 3
    right = t * t.cos()
    return left * right + t


REUSED_NODES: dict[str, tuple[Callable[[Tensor], Tensor], tuple[int, ...]]] = {
    "b = a + a": (lambda a: a + a, (3,)),
    "a * a": (lambda a: a * a, (2, 3)),
    "a - a": (lambda a: a - a, (3,)),
    "a / a": (lambda a: a / a, (3,)),
    "x @ x (dot product)": (lambda x: x @ x, (4,)),
    "x @ x (square matrix)": (lambda x: x @ x, (3, 3)),
    "x @ x.T": (lambda x: x @ x.T, (2, 3)),
    "diamond: c = a*2; d = c + c*a": (diamond, (2, 2)),
    "one tensor feeding two branches that rejoin": (two_branches_rejoin, (3,)),
    "a + a broadcast against itself": (lambda a: a + a.reshape(-1, 1), (3,)),
}


@pytest.mark.parametrize("case", REUSED_NODES)
def test_node_used_more_than_once(case: str) -> None:
    fn, shape = REUSED_NODES[case]
    x = np.random.default_rng(1).uniform(0.5, 1.5, size=shape)
    check_gradients(case, fn, x, names=["a"])


def test_a_plus_a_gets_exactly_twice_the_seed() -> None:
    a = Tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    (a + a).backward(Tensor(np.array([0.5, 1.0, 2.0])))
    assert a.grad is not None and a.grad.tolist() == [1.0, 2.0, 4.0]
