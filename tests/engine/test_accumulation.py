"""A tensor used by several ops collects a gradient from each (autograd/backward.py): the first is
kept as it came, the second makes a sum, and later ones are added into that sum in place. The sum
is the walk's own until it is handed on to a rule, which may pass it, as it is, to several inputs
(an addition's rule sends g to both): from then on it is added to out of place. These tests
compare the gradients with those of the walk that makes a new sum for every addition (the one a
listener to ops gets, which must see each addition), bit for bit, on generated graphs whose
tensors are used many times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording

SHAPES = [(3,), (2, 3), (1, 3), (2, 1)]
BINARY = ["+", "-", "*"]
UNARY = ["tanh", "neg", "sum0", "double"]


class Listening:
    """A listener to ops: with one, backward makes a new sum for every addition."""

    def on_op(self, op: Any, args: Any, out: Any) -> None:
        pass


@st.composite
def programs(draw: st.DrawFn) -> tuple[list[tuple[Any, ...]], list[int]]:
    """Ops on tensors picked from those made so far (a number picks one, modulo how many there
    are), then the tensors whose sums, in that order, make the output."""
    steps = []
    for _ in range(draw(st.integers(1, 14))):
        if draw(st.booleans()):
            steps.append(("binary", draw(st.sampled_from(BINARY)), draw(st.integers(0, 99)), draw(st.integers(0, 99))))
        else:
            steps.append(("unary", draw(st.sampled_from(UNARY)), draw(st.integers(0, 99))))
    return steps, draw(st.lists(st.integers(0, 99), min_size=1, max_size=6))


def gradients(program: tuple[list[tuple[Any, ...]], list[int]], seed: int) -> list[bytes]:
    steps, outputs = program
    rng = np.random.default_rng(seed)
    leaves = [Tensor(rng.normal(size=shape), requires_grad=True) for shape in SHAPES]
    pool: list[Tensor] = list(leaves)
    for step in steps:
        if step[0] == "binary":
            a, b = pool[step[2] % len(pool)], pool[step[3] % len(pool)]
            out = {"+": a + b, "-": a - b, "*": a * b}[step[1]]
        else:
            a = pool[step[2] % len(pool)]
            out = {"tanh": a.tanh(), "neg": -a, "sum0": a.sum(axis=0), "double": a + a}[step[1]]
        pool.append(out)
    total = pool[outputs[0] % len(pool)].sum()
    for k, i in enumerate(outputs[1:]):
        total = total + pool[i % len(pool)].sum() * (k + 2)
    total.backward()
    return [leaf.grad.data.tobytes() if leaf.grad is not None else b"" for leaf in leaves]


def made_afresh(program: tuple[list[tuple[Any, ...]], list[int]], seed: int) -> list[bytes]:
    listener = Listening()
    recording.listen(listener)
    try:
        return gradients(program, seed)
    finally:
        recording.stop_listening(listener)


@settings(max_examples=300, deadline=None)
@given(program=programs(), seed=st.integers(0, 2**32 - 1))
def test_gradients_added_in_place_are_the_sums_made_afresh(program: Any, seed: int) -> None:
    assert gradients(program, seed) == made_afresh(program, seed)


@pytest.mark.parametrize("order", list(itertools.permutations(["t", "a", "b"])))
@pytest.mark.parametrize("op", ["+", "-"])
def test_a_sum_handed_to_an_addition_is_not_added_into_afterwards(op: str, order: tuple[str, ...]) -> None:
    # t's two uses make its gradient a sum (the walk's own); t's rule (an addition) hands that one
    # sum to both a and b, which each collect one more gradient later: added into the sum in
    # place, the first would change the other's too.
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    a, b = x * 2.0, x * 3.0
    t = a + b if op == "+" else a - b
    parts = {"t": lambda: (t * t).sum(), "a": lambda: (a * 5.0).sum(), "b": lambda: (b * 7.0).sum()}
    y = parts[order[0]]() + parts[order[1]]() + parts[order[2]]()
    y.backward()
    # y = (2x ± 3x)² + 10x + 21x summed: dy/dx = 2·(2 ± 3)²·x + 31
    np.testing.assert_array_equal(x.grad.data, 2 * (2 + 3 if op == "+" else 2 - 3) ** 2 * np.array([1.0, 2.0]) + 31)
