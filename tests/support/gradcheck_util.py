"""Checking the engine's derivatives against central finite differences, minitorch style.

`check_gradients(op, fn, *arrays)` makes a leaf that requires grad from each array, reduces
`fn(*leaves)` to a scalar with fixed random weights (so every output element matters), and
compares what autograd says with

    d loss / d x[i]  ~  (loss(x + eps e_i) - loss(x - eps e_i)) / (2 eps)

in float64, for `.grad` after `backward` and for the result of `gradient`. It then does the
same one level up: the first gradients (built by `gradient`, which records them) of a loss
with a squared term are themselves differentiated and compared with central differences of
the first gradients, so every derivative rule is checked to be differentiable too.

A failure names the op, the argument, the derivative order, and shows expected vs received.

Also here: the hypothesis strategies the gradient tests share (broadcastable shapes, values
kept clear of kinks and domain edges) and the hypothesis settings that keep the run fast
(a settings object applied per test, not a global profile, so other test files are unaffected).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dglang import autograd
from dglang.autograd import Tensor

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-6

# Modest by default so the suite stays fast; DG_GRADCHECK_EXAMPLES=500 for a long soak.
gradcheck_settings = settings(
    max_examples=int(os.environ.get("DG_GRADCHECK_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# ---- the check ----------------------------------------------------------------------------
def check_gradients(
    op: str,
    fn: Callable[..., Tensor],
    *arrays: np.ndarray,
    names: Sequence[str] | None = None,
    second_order: bool = True,
) -> None:
    """Assert that autograd's first (and second) derivatives of `fn` match central differences."""
    arrays = tuple(np.array(a, dtype=np.float64) for a in arrays)
    names = list(names) if names is not None else [f"arg{i}" for i in range(len(arrays))]
    weights = _fixed_weights(_output_shape(fn, arrays))

    def loss(*xs: Tensor) -> Tensor:
        return (fn(*xs) * Tensor(weights)).sum()

    leaves = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    loss(*leaves).backward()
    expected = _central_differences(lambda xs: _value(loss, xs), arrays)
    for i, leaf in enumerate(leaves):
        _compare(op, names, i, "first derivative (backward)", arrays, expected[i], leaf.grad)

    # `gradient` must agree with `backward`, and record its results for the next order.
    leaves = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    firsts = autograd.gradient(loss(*leaves), leaves)
    for i, g in enumerate(firsts):
        _compare(op, names, i, "first derivative (gradient)", arrays, expected[i], g)
    if not second_order:
        return

    # Second order: differentiate s(x) = sum_i <d loss2 / d x_i, V_i> for fixed random V_i.
    # loss2 adds a square of the output, so the gradient arriving at the op depends on the
    # inputs: that sends the second pass through the graph each rule built, not just around it.
    square_weights = _fixed_weights(weights.shape, salt=-1)
    second_weights = [_fixed_weights(a.shape, salt=i + 1) for i, a in enumerate(arrays)]

    def loss2(*xs: Tensor) -> Tensor:
        out = fn(*xs)
        return (out * Tensor(weights)).sum() + (out * out * Tensor(square_weights)).sum() / 2

    def first_gradient_summary(*xs: Tensor) -> Tensor:
        gs = autograd.gradient(loss2(*xs), list(xs))
        return sum(((g * Tensor(v)).sum() for g, v in zip(gs, second_weights, strict=True)), Tensor(0.0))

    s = first_gradient_summary(*leaves)
    seconds = autograd.gradient(s, leaves)
    expected2 = _central_differences(
        lambda xs: first_gradient_summary(*[Tensor(x, requires_grad=True) for x in xs]).item(), arrays
    )
    for i, g in enumerate(seconds):
        _compare(op, names, i, "second derivative", arrays, expected2[i], g)


def check_forward(
    op: str, fn: Callable[..., Tensor], reference: Callable[..., np.ndarray], *arrays: np.ndarray
) -> None:
    """Assert that `fn` on tensors computes what `reference` computes on the NumPy arrays."""
    got = fn(*[Tensor(np.array(a, dtype=np.float64)) for a in arrays])
    expected = np.asarray(reference(*[np.array(a, dtype=np.float64) for a in arrays]))
    if got.shape != expected.shape or not np.allclose(got.numpy(), expected, rtol=1e-12, atol=1e-12):
        inputs = ", ".join(_show(a) for a in arrays)
        raise AssertionError(
            f"{op}: forward value is wrong for inputs {inputs}\n"
            f"  expected (NumPy): {_show(expected)} (shape {expected.shape})\n"
            f"  received:         {_show(got.numpy())} (shape {got.shape})"
        )


def _output_shape(fn: Callable[..., Tensor], arrays: Sequence[np.ndarray]) -> tuple[int, ...]:
    with autograd.no_grad():
        return fn(*[Tensor(a.copy()) for a in arrays]).shape


def _fixed_weights(shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    """Random but reproducible weights, away from zero so no output element is ignored."""
    rng = np.random.default_rng([len(shape), *shape, salt + 1])
    return np.asarray(rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape))


def _value(loss: Callable[..., Tensor], arrays: Sequence[np.ndarray]) -> float:
    with autograd.no_grad():
        return loss(*[Tensor(a) for a in arrays]).item()


def _central_differences(f: Callable[[list[np.ndarray]], float], arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """d f / d arrays[i][k] for every argument i and element k."""
    grads = []
    for i, a in enumerate(arrays):
        grad = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            shifted = [x.copy() for x in arrays]
            shifted[i][k] = a[k] + EPS
            up = f(shifted)
            shifted[i][k] = a[k] - EPS
            down = f(shifted)
            grad[k] = (up - down) / (2 * EPS)
        grads.append(grad)
    return grads


def _compare(
    op: str,
    names: Sequence[str],
    index: int,
    order: str,
    arrays: Sequence[np.ndarray],
    expected: np.ndarray,
    received: Tensor | None,
) -> None:
    where = f"{op}: {order} for argument {index} ({names[index]!r}, shape {arrays[index].shape})"
    inputs = "\n".join(f"    {n} = {_show(a)}" for n, a in zip(names, arrays, strict=True))
    if received is None:
        raise AssertionError(f"{where}: received no gradient (None)\n  inputs:\n{inputs}")
    got = np.asarray(received.data)
    if got.shape != expected.shape:
        raise AssertionError(
            f"{where}: gradient has shape {got.shape}, expected shape {expected.shape}\n  inputs:\n{inputs}"
        )
    if got.dtype != np.float64:
        raise AssertionError(f"{where}: gradient has dtype {got.dtype}, expected float64")
    if not np.allclose(got, expected, rtol=RTOL, atol=ATOL):
        bad = np.argwhere(~np.isclose(got, expected, rtol=RTOL, atol=ATOL))
        raise AssertionError(
            f"{where} is wrong\n"
            f"  expected (central differences): {_show(expected)}\n"
            f"  received (autograd):            {_show(got)}\n"
            f"  differs at indices {[tuple(int(i) for i in b) for b in bad[:5]]}\n"
            f"  inputs:\n{inputs}"
        )


def _show(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), precision=6, separator=", ", max_line_width=1000).replace("\n", "")


# ---- hypothesis strategies -----------------------------------------------------------------
def shapes(min_dims: int = 0, max_dims: int = 3, max_side: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side)


def broadcastable(num_shapes: int, max_dims: int = 3) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes that broadcast against each other either way: size-1 dims, missing dims, 0-d."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=0, max_dims=max_dims, min_side=1, max_side=3
    ).map(lambda b: b.input_shapes)


@st.composite
def reducible_to(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to `shape`: some leading dims dropped, some dims set to 1."""
    keep = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - keep :]
    ones = draw(st.lists(st.booleans(), min_size=keep, max_size=keep))
    return tuple(1 if one else n for n, one in zip(tail, ones, strict=True))


def floats_in(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away_from_zero(lo: float = 0.1, hi: float = 2.0) -> st.SearchStrategy[float]:
    """Values with lo <= |x| <= hi: clear of the kink of relu and abs, and of division by zero."""
    return st.one_of(floats_in(lo, hi), floats_in(-hi, -lo))


def on_grid(offset: float = 0.0) -> st.SearchStrategy[float]:
    """Multiples of 0.1 (plus offset): distinct draws differ by at least 0.1, so no near-ties."""
    return st.integers(-20, 20).map(lambda k: round(k / 10 + offset, 10))


def arrays(shape: tuple[int, ...], elements: st.SearchStrategy[float], unique: bool = False) -> st.SearchStrategy:
    return hnp.arrays(np.float64, shape, elements=elements, unique=unique)
