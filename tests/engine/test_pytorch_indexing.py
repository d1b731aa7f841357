"""Indexing that mixes ints, slices and index lists puts the result's axes where PyTorch does
(autograd/indexing.py): shapes and values PyTorch 2.13 printed for the same indices, gradients
too, against central differences at first and second order, and item assignment the same way."""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from gradcheck_util import check_gradients
from hypothesis import given, settings
from hypothesis import strategies as st

from dglang.autograd import Tensor, tensor
from dglang.autograd.exceptions import TensorTypeError
from dglang.interpreter.host.session import Session

X = np.arange(24.0).reshape(2, 3, 4)
Y = np.arange(120.0).reshape(2, 3, 4, 5)

# (tensor, index, PyTorch's shape, PyTorch's first values (flattened)); NumPy's shape differs
# wherever an int and an index list are separated by a slice or None
PRINTED = [
    (X, (0, slice(None), [0, 1]), (3, 2), [0.0, 1.0, 4.0, 5.0, 8.0, 9.0]),  # NumPy: (2, 3)
    (X, (0, None, [0, 1]), (1, 2, 4), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),  # NumPy: (2, 1, 4)
    (X, (1, slice(None), [[0], [1]]), (3, 2, 1), [12.0, 13.0, 16.0, 17.0, 20.0, 21.0]),  # NumPy: (2, 1, 3)
    (X, (0, slice(1, None), [2, 2, 0]), (2, 3), [6.0, 6.0, 4.0, 10.0, 10.0, 8.0]),  # NumPy: (3, 2)
    (Y, (0, slice(None), [0, 1], 1), (3, 2), [1.0, 6.0, 21.0, 26.0, 41.0, 46.0]),  # NumPy: (2, 3)
    (Y, (slice(None), 0, slice(None), [1, 2]), (2, 4, 2), [1.0, 2.0, 6.0, 7.0, 11.0, 12.0]),  # NumPy: (2, 2, 4)
    (Y, (0, slice(None), 1, [3, 0]), (3, 2), [8.0, 5.0, 28.0, 25.0, 48.0, 45.0]),  # NumPy: (2, 3)
    (Y, (0, slice(None), [True, False, True, False]), (3, 2, 5), [0.0, 1.0, 2.0, 3.0, 4.0, 10.0]),  # NumPy: (2, 3, 5)
    # where NumPy and PyTorch agree, nothing changes
    (X, ([0, 1], slice(None), 0), (2, 3), [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]),
    (X, (0, [0, 2], [1, 3]), (2,), [1.0, 11.0]),
    (X, ([1, 0], 1, [2, 3]), (2,), [18.0, 7.0]),
    (X, (slice(None), 1, [0, 3]), (2, 2), [4.0, 7.0, 16.0, 19.0]),
    (X, ([0, 1], slice(None), [1, 2]), (2, 3), [1.0, 5.0, 9.0, 14.0, 18.0, 22.0]),
    (X, ([True, False], slice(None), 1), (1, 3), [1.0, 5.0, 9.0]),
    (Y, ([0, 1], 0, slice(None), [1, 2]), (2, 4), [1.0, 6.0, 11.0, 16.0, 62.0, 67.0]),
    (Y, ([1], 0, slice(1, 3), [0]), (1, 2), [65.0, 70.0]),
    (Y, ([0, 1], 1, 2), (2, 5), [30.0, 31.0, 32.0, 33.0, 34.0, 90.0]),
]


@pytest.mark.parametrize(("values", "index", "shape", "first"), PRINTED, ids=[str(p[1]) for p in PRINTED])
def test_shapes_and_values_pytorch_printed(values, index, shape, first) -> None:
    result = Tensor(values)[index]
    assert result.shape == shape
    assert result.data.flatten().tolist()[: len(first)] == first


def test_the_gradient_pytorch_printed() -> None:
    x = Tensor(X.copy(), requires_grad=True)
    picked = x[0, 1:, [2, 2, 0]]  # a place picked twice: its gradient adds up
    (picked * tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert picked.data.tolist() == [[6.0, 6.0, 4.0], [10.0, 10.0, 8.0]]
    assert x.grad.data.tolist() == [
        [[0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 3.0, 0.0], [6.0, 0.0, 9.0, 0.0]],
        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    ]


def test_item_assignment_puts_values_in_the_same_places() -> None:
    y = Tensor(np.zeros((2, 3, 4)))
    y[0, :, [0, 1]] = Tensor(np.arange(6.0).reshape(3, 2))  # PyTorch: a (3, 2) value
    assert y.data[0].tolist() == [[0.0, 1.0, 0.0, 0.0], [2.0, 3.0, 0.0, 0.0], [4.0, 5.0, 0.0, 0.0]]


rng = np.random.default_rng(2)


@pytest.mark.parametrize(
    "index",
    [
        (0, slice(None), [0, 1]),
        (1, None, [2, 0, 2]),
        (slice(None), 0, slice(None), [1, 1]),
        (0, slice(1, None), [[0], [2]]),
    ],
    ids=str,
)
def test_derivatives_against_central_differences(index) -> None:
    shape = (2, 3, 4, 2) if len(index) == 4 else (2, 3, 4)
    check_gradients(f"x{list(index)}", lambda x: x[index] * x[index], rng.normal(size=shape))


def test_a_program_gets_pytorch_s_shape() -> None:
    session = Session()
    session.run("x = randn(2, 3, 4, requires_grad=True)\ny = x[0, :, [0, 1]]\ngrad (y * y).sum()\n")
    x = session.globals.vars["x"]
    assert session.globals.vars["y"].shape == (3, 2)
    expected = np.zeros((2, 3, 4))
    expected[0, :, :2] = 2 * x.data[0, :, :2]
    assert np.allclose(x.grad.data, expected)


def test_the_gradient_of_picks_by_int_arrays_adds_as_np_add_at_bit_for_bit() -> None:
    """Indexing's rule (IndexAdd, and a replay's scatter) adds g at the picked places; int arrays
    for the leading axes (an embedding's rows, a loss's picks) go through np.bincount, which must
    add each place's values in np.add.at's order: repeats, negative positions and -0.0 included."""
    from dglang.autograd.indexing import scattered

    rng = np.random.default_rng(2)
    for trial in range(300):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=rng.integers(1, 4)))
        k = int(rng.integers(1, len(shape) + 1))
        picks = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(0, 3)))
        index = tuple(rng.integers(-shape[i], shape[i], size=picks) for i in range(k))
        a = np.asarray(rng.normal(size=np.broadcast_shapes(*(p.shape for p in index)) + shape[k:]))
        a *= 10.0 ** rng.integers(-3, 4, size=a.shape)  # sums whose order shows in the last bit
        if trial % 7 == 0:
            a[...] = -0.0
        expected = np.zeros(shape)
        np.add.at(expected, index, a)
        assert scattered(a, index, shape, basic=False).tobytes() == expected.tobytes(), (shape, index)
    with pytest.raises(IndexError):  # a place outside is np.add.at's error, as before
        scattered(np.ones(2), (np.array([0, 3]),), (3,), basic=False)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_ints_slices_and_none_pick_what_numpy_picks(data: st.DataObject) -> None:
    """Without an index list, NumPy's result is PyTorch's: the parts pass to NumPy as they are
    (normalize_index's shortcut for them), forward, and in the rule that scatters g back."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5))
    index = data.draw(hnp.basic_indices(shape, allow_ellipsis=False))
    values = np.arange(float(np.prod(shape))).reshape(shape)
    x = Tensor(values.copy(), requires_grad=True)
    picked = x[index]
    assert picked.shape == values[index].shape
    assert picked.data.tobytes() == np.asarray(values[index]).tobytes()
    if picked.size:
        (picked * picked).sum().backward()
        expected = np.zeros(shape)
        expected[index] = 2 * values[index]
        assert x.grad.data.tobytes() == expected.tobytes()


def test_a_bool_among_ints_and_slices_is_refused_as_before() -> None:
    with pytest.raises(TensorTypeError, match="not bool"):
        Tensor(np.ones((2, 3)))[:, True]
