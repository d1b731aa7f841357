"""kept_where (autograd/functions.py): np.where(cond, a, 0.0) by masking a's bits, which Where's
forward and relu's rule use on large arrays. It must be np.where bit for bit: nan, inf and -0.0
where the condition holds kept, +0.0 elsewhere (never nan * 0 or -0.0), in a's float dtype."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dglang.autograd import Tensor, functions

SPECIAL = st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -2.5, 3.0])


@st.composite
def masked_arrays(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    dtype = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    a = draw(hnp.arrays(dtype, shape, elements=st.one_of(SPECIAL, st.floats(-5, 5, width=16))))
    cond_shape = draw(st.sampled_from([shape, shape[1:], (1,) * (len(shape) - 1) + shape[-1:]]))
    cond = draw(hnp.arrays(np.bool_, cond_shape))  # (a's shape, or one that broadcasts to it)
    view = draw(st.sampled_from(["as is", "transposed", "reversed"]))
    if view == "transposed" and cond.shape == shape:
        a, cond = a.T, cond.T
    elif view == "reversed":
        a = a[::-1]
    return cond, a


def bits(x: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    return str(x.dtype), x.shape, np.ascontiguousarray(x).tobytes()


@given(masked_arrays())
def test_kept_where_is_np_where_bit_for_bit(case: tuple[np.ndarray, np.ndarray]) -> None:
    cond, a = case
    assert bits(functions.kept_where(cond, a)) == bits(np.where(cond, a, 0.0))


def test_a_condition_a_broadcasts_past_is_left_to_np_where() -> None:
    a, cond = np.ones(3), np.array([[True], [False]])  # (the result is 2 × 3: not a's shape)
    assert bits(functions.kept_where(cond, a)) == bits(np.where(cond, a, 0.0))


def test_a_large_where_with_zero_goes_through_kept_where_and_a_negative_zero_does_not(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(functions.KEPT_WHERE)
    a[::3] = np.nan
    cond = rng.random(a.size) < 0.5
    used: list[int] = []
    monkeypatch.setattr(functions, "kept_where", lambda c, x: used.append(1) or np.where(c, x, 0.0))
    assert bits(Tensor(a).where(cond, 0.0).data) == bits(np.where(cond, a, 0.0)) and used == [1]
    assert bits(Tensor(a).where(cond, -0.0).data) == bits(np.where(cond, a, -0.0)) and used == [1]


@pytest.mark.parametrize("shape", [(4, 5), (128, 160)])  # below and above KEPT_WHERE
def test_relu_lets_inf_and_nan_gradients_through_where_it_is_on_and_a_clean_zero_elsewhere(shape) -> None:
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal(shape), requires_grad=True)
    seed = rng.standard_normal(shape)
    seed.flat[::5], seed.flat[1::5], seed.flat[2::5] = np.inf, np.nan, -0.0
    x.relu().backward(Tensor(seed))
    assert bits(x.grad.data) == bits(np.where(x.data > 0, seed, 0.0))
