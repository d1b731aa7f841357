"""Every allocation is checked before it happens: no op makes a result its host was not asked about.

The engine asks its hooks (autograd/hooks.py) before each result of `watch` elements or more; the
host's guards (interpreter/host/guards.py) refuse one too large for a tensor or for the memory
left. These tests hold every op of the op table to that: first with hooks that only listen (each
result an op makes, the hooks heard of before, however small its inputs), then with hooks that
refuse (the op stops before NumPy allocates anything), then as a student's program would attack
`--max-memory`: a result larger than its inputs by a reduction over an empty axis, a product over
an empty inner dimension, a bool turned into floats, a function of a large tensor, a copy.
"""

from __future__ import annotations

import contextlib
import gc
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from op_samples import assert_each_has_a_call, sampled

from dglang import autograd
from dglang.autograd import Tensor, hooks, tensor
from dglang.autograd.convolution import Geometry
from dglang.autograd.pooling import Window
from dglang.autograd.shaping import broadcast_shape
from dglang.autograd.table import OPS
from dglang.autograd.tensor import run_op
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.host import memory
from dglang.interpreter.host.limits import Limits

MiB = 1 << 20


class Listening(hooks.Hooks):
    """Hears every result of two elements or more (a single number is never worth asking about)."""

    watch = 2

    def __init__(self) -> None:
        self.heard: list[int] = []

    def allocating(self, count: int, itemsize: int, what: str | None, shape: Any = None, help: Any = None) -> None:
        self.heard.append(count)


class Refused(Exception):
    pass


class Refusing(hooks.Hooks):
    """Refuses any result of `watch` elements or more, as guards refuse one too large."""

    def __init__(self, watch: int) -> None:
        self.watch = watch

    def allocating(self, count: int, itemsize: int, what: str | None, shape: Any = None, help: Any = None) -> None:
        raise Refused(f"{what}: {count}")


def installed(h: hooks.Hooks) -> Any:
    class Installed:
        def __enter__(self) -> None:
            self.previous = hooks.install(h)

        def __exit__(self, *exc: object) -> None:
            hooks.install(self.previous)

    return Installed()


small = Tensor(np.arange(1.0, 7.0).reshape(2, 3))
column, row = Tensor(np.ones((300, 1))), Tensor(np.ones((1, 400)))  # 600 elements that pair into 120,000
empty = Tensor(np.zeros((300, 400, 0)))  # no element, and reductions over its last axis give 120,000
bools = Tensor(np.ones((300, 400), dtype=bool))
image = Tensor(np.ones((1, 1, 300, 400)))
# geometries as conv2d checks them: a 26×26 kernel over 50×50 images, a 1×1 kernel over `image`, a
# 1×1 kernel at a stride of 400 (one window, over a grid of `image`'s size)
BIG_KERNEL = Geometry((1, 1, 50, 50), (1, 1, 26, 26), 1, 0, 1, 1, "conv2d")
ONE_BY_ONE = Geometry(image.shape, (1, 1, 1, 1), 1, 0, 1, 1, "conv2d")
FAR_APART = Geometry(image.shape, (1, 1, 1, 1), 400, 0, 1, 1, "conv2d")
WHOLE_IMAGE = Window(image.shape, (300, 400), None, 0, "avg_pool2d")

# The attacks: for an op whose result can be larger than its inputs, a call whose result is as
# large as possible from small ones, and for one whose sample call (Op.sample_arguments) says
# little, a call that says more: (the call, the size of its result). Every other op is checked
# with its sample call, so a new op needs nothing here.
GROWING: dict[str, tuple[Callable[[], Any], int]] = {
    "Add": (lambda: column + row, 120_000),
    "Sub": (lambda: column - row, 120_000),
    "Mul": (lambda: bools * 1.0, 120_000),  # one byte each in, eight out
    "Div": (lambda: column / row, 120_000),
    "Pow": (lambda: column**row, 120_000),
    "FloorDiv": (lambda: column // row, 120_000),
    "Mod": (lambda: column % row, 120_000),
    "Compare": (lambda: column < row, 120_000),
    "MatMul": (lambda: Tensor(np.ones((300, 0))) @ Tensor(np.ones((0, 400))), 120_000),  # from empty operands
    "Maximum": (lambda: column.maximum(row), 120_000),
    "Minimum": (lambda: column.minimum(row), 120_000),
    "Where": (lambda: autograd.where(column > 0, row, 0.0), 120_000),
    "Sum": (lambda: empty.sum(axis=2), 120_000),  # the issue's attack: a full result from no element
    "Mean": (lambda: small.mean(axis=0), 3),  # (an empty axis is an error: a mean of nothing)
    "Max": (lambda: small.max(axis=0), 3),
    "Min": (lambda: small.min(axis=0), 3),
    "ArgMax": (lambda: small.argmax(axis=0), 3),
    "ArgMin": (lambda: small.argmin(axis=0), 3),
    "AnyTrue": (lambda: empty.any(axis=2), 120_000),
    "AllTrue": (lambda: empty.all(axis=2), 120_000),
    "Reshape": (lambda: small.T.reshape(-1), 6),  # a copy: the transposed values are not in order
    "Transpose": (lambda: small.transpose(1, 0) + 0.0, 6),  # (a view: the + is what allocates)
    "Broadcast": (lambda: Tensor(np.ones(400)).broadcast_to((300, 400)), 120_000),
    "SumTo": (lambda: small.sum_to((1, 3)), 3),
    "Index": (lambda: Tensor(np.ones(3))[np.zeros(120_000, dtype=int)], 120_000),  # one element, many times
    "IndexAdd": (lambda: Tensor(np.ones(1)).index_add((np.array([0]),), (120_000,)), 120_000),
    "Concat": (lambda: autograd.concat([row, row]), 800),
    "Stack": (lambda: autograd.stack([row, row]), 800),
    "Im2col": (lambda: Tensor(np.ones((1, 1, 50, 50))).im2col(BIG_KERNEL), 422_500),  # 625 windows of 676
    "Col2im": (lambda: Tensor(np.ones((1, 1))).col2im(FAR_APART), 120_000),  # one window on a large grid
    "Convolve": (
        lambda: Tensor(np.ones((120_000, 1))).convolve(Tensor(np.ones((1, 1, 1, 1))), None, ONE_BY_ONE),
        120_000,
    ),
    "ConvTranspose": (lambda: image.conv_transpose(Tensor(np.ones((1, 1, 1, 1))), ONE_BY_ONE), 120_000),
    "ConvWeight": (lambda: Tensor(np.ones((120_000, 1))).conv_weight(image, ONE_BY_ONE), 1),
    "WindowLargest": (lambda: image.window_largest(Window(image.shape, 1, 1, 0, "max_pool2d")), 120_000),
    "Take": (lambda: Tensor(np.ones(1)).take(np.zeros(120_000, dtype=int)), 120_000),  # one element, many times
    "Put": (lambda: Tensor(np.ones(1)).put(np.array([0]), (120_000,)), 120_000),
    "WindowMean": (lambda: image.window_mean(Window(image.shape, 1, 1, 0, "avg_pool2d")), 120_000),
    "WindowSpread": (lambda: Tensor(np.ones((1, 1, 1, 1))).window_spread(WHOLE_IMAGE), 120_000),  # one window
    "Pad": (lambda: autograd.pad(Tensor(np.ones((1, 1))), (0, 119_999)), 120_000),  # from one element
    "Gather": (lambda: autograd.gather(Tensor(np.ones(1)), 0, Tensor(np.zeros(120_000, dtype=int))), 120_000),
    "Tril": (lambda: image[0, 0].tril(), 120_000),
    "Triu": (lambda: image[0, 0].triu(), 120_000),
    "Flip": (lambda: small.flip(0), 6),
    "Cumsum": (lambda: small.cumsum(1), 6),
    "Cumprod": (lambda: small.cumprod(1), 6),
    "Logcumsumexp": (lambda: small.logcumsumexp(1), 6),
    "RunningWinner": (lambda: small.running_winner(1, True), 6),
    "Tile": (lambda: Tensor(np.ones(1)).tile(120_000), 120_000),  # from one element
    "Repeat": (lambda: autograd.repeat(Tensor(np.ones(1)), 120_000), 120_000),
    "Einsum": (
        lambda: autograd.einsum("i,j->ij", Tensor(np.ones(300)), Tensor(np.ones(400))),
        120_000,
    ),  # an outer product
    "Prod": (lambda: empty.prod(axis=2), 120_000),
}


SAMPLED = sampled(OPS)


@pytest.mark.every_op
def test_every_op_of_the_table_has_a_call_to_check() -> None:
    """An op whose forward needs only its tensors has a sample call; any other declares one."""
    assert_each_has_a_call(OPS, GROWING, "add an attack to GROWING in tests/promises/test_every_allocation.py")


@pytest.mark.every_op
@pytest.mark.parametrize("op", SAMPLED)
def test_the_hooks_hear_of_each_sample_result_before_it_is_made(op: str) -> None:
    listening = Listening()
    sample = OPS[op].sample_arguments() or ()
    with installed(listening):
        result = run_op(OPS[op], *sample)
    size = np.size(result.data)  # (a single number is never asked about; a view of an input is no new memory)
    view = any(isinstance(a, np.ndarray) and np.shares_memory(result.data, a) for a in sample)
    assert size < Listening.watch or view or (listening.heard and max(listening.heard) >= size), (
        f"{op}: made {size} elements, asked about {listening.heard}"
    )


@pytest.mark.every_op
@pytest.mark.parametrize("op", sorted(GROWING))
def test_the_hooks_hear_of_each_result_before_it_is_made(op: str) -> None:
    call, size = GROWING[op]
    listening = Listening()
    with installed(listening):
        result = call()
    assert np.size(result.data) == size
    assert listening.heard and max(listening.heard) >= size, (
        f"{op}: made {size} elements, asked about {listening.heard}"
    )


@pytest.mark.parametrize("op", [op for op, (_, size) in sorted(GROWING.items()) if size >= 100_000])
def test_a_refused_result_is_never_made(op: str) -> None:
    """Refused, the op stops before NumPy allocates: the large ones here are made from small inputs."""
    call, _ = GROWING[op]
    with installed(Refusing(watch=100_000)), pytest.raises(Refused):
        call()


def test_without_a_host_nothing_is_asked() -> None:
    """The engine alone is plain NumPy: its default hooks ask nothing and refuse nothing."""
    assert hooks.installed.watch > 2**62 and type(hooks.installed) is hooks.Hooks
    assert (empty.sum(axis=2)).shape == (300, 400)


class Recording(hooks.Hooks):
    """Records what it is asked about, from `watch` elements up."""

    def __init__(self, watch: int) -> None:
        self.watch = watch
        self.asked: list[tuple[int, Any, Any, Any]] = []

    def allocating(self, count: int, itemsize: int, what: str | None, shape: Any = None, help: Any = None) -> None:
        self.asked.append((count, what, shape, help))


@pytest.mark.parametrize(
    ("x", "y", "asked"),
    [
        ((10, 10), (10, 1), [(100, (10, 10))]),  # a bound of 1,000; the result 100: asked, with its shape
        ((5, 4), (5, 1), []),  # a bound of 100 (the product of the sizes); the result 20: nothing to ask
        ((1, 10), (10, 1), [(100, (10, 10))]),  # a row against a column
        ((3,), (4,), []),  # no result: the op itself says the shapes do not broadcast
    ],
)
def test_a_broadcast_is_asked_about_by_its_exact_shape(x: tuple[int, ...], y: tuple[int, ...], asked: list) -> None:
    """Two shapes that differ give a bound of the product of their sizes; only a result whose
    exact size reaches `watch` is asked about, with its shape and the help that names both."""
    listening = Recording(watch=100)
    previous = hooks.install(listening)
    try:
        with pytest.raises(autograd.ShapeError) if x == (3,) else contextlib.nullcontext():
            Tensor(np.ones(x)) / Tensor(np.ones(y))
    finally:
        hooks.install(previous)
    assert [(count, shape) for count, _, shape, _ in listening.asked] == asked
    help = f"broadcasting {x} with {y} pairs every element with every other; check the shapes"
    assert all(asked[1:] == ("the result of '/'", asked[2], help) for asked in listening.asked)


@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=4), min_size=1, max_size=3))
def test_broadcast_shape_is_numpy_s(shapes: list[list[int]]) -> None:
    """broadcast_shape (np.broadcast, which makes no array) agrees with np.broadcast_shapes, and
    fails where it fails."""
    try:
        expected: Any = np.broadcast_shapes(*map(tuple, shapes))
    except ValueError:
        expected = ValueError
    values = [np.zeros(s) if s else 2.0 for s in shapes]  # (an empty shape: a number)
    try:
        assert broadcast_shape(*values) == expected
    except ValueError:
        assert expected is ValueError


# ---- the same attacks on --max-memory, as a program makes them -----------------------------------
def held() -> int:
    gc.collect()
    value = memory.resident_bytes()
    assert value is not None
    return value


@pytest.mark.parametrize(
    ("setup", "attack", "what"),
    [
        ("", "r = zeros(6000, 6000, 0).sum(axis=2)", "the result of sum()"),  # 275 MiB from no element
        ("", "r = zeros(9000, 9000, 0).any(axis=2)", "the result of any()"),  # bools: 77 MiB
        ("", "r = ones(6000, 0) @ ones(0, 6000)", "the result of '@'"),  # an empty inner dimension
        ("b = ones(1, 6000) < ones(6000, 1)", "r = b * 1.0", "the result of '*'"),  # 34 MiB of bools, 275 in floats
        ("x = zeros(5000, 5000)", "r = exp(x)", "the result"),  # as large as its input
        ("x = zeros(5000, 5000)", "r = x.T.reshape(-1)", "reshape()"),  # a copy
        ("x = zeros(5000, 5000)", "r = -x", "the result of '-'"),
    ],
    ids=["sum over an empty axis", "any over an empty axis", "product over an empty axis", "bools to floats",
         "a function of a large tensor", "a reshaped copy", "a negation"],
)  # fmt: skip
def test_a_result_over_the_memory_left_is_refused_before_it_is_made(setup: str, attack: str, what: str) -> None:
    session = Session(out=io.StringIO(), limits=Limits(max_memory=None))
    session.run(setup, "attack.dg")
    session.limits.max_memory = held() + 50 * MiB  # the inputs fit; no result above does
    with pytest.raises(DGError) as caught:
        session.run(attack, "attack.dg")
    error = caught.value
    assert error.kind == "MemoryError" and error.span is not None and error.span.line == 1, error
    # refused by the guard before allocating ("needs"), not stopped by the watchdog after ("grew past")
    assert what in error.message and "needs" in error.message, error.message
    assert "r" not in session.globals.vars


def test_the_issue_s_reduction_over_an_empty_axis() -> None:
    """`zeros(40000, 40000, 0).any(axis=2)` under --max-memory 500M: 1.6 billion bools, refused."""
    session = Session(out=io.StringIO(), limits=Limits(max_memory=500 * MiB))
    before = held()
    with pytest.raises(DGError) as caught:
        session.run("m = zeros(40000, 40000, 0).any(axis=2)", "m.dg")
    assert caught.value.kind == "ValueError" and "the result of any()" in caught.value.message
    assert "1,600,000,000 elements" in caught.value.message
    assert held() < before + 64 * MiB


def test_a_tensor_from_a_list_of_bools_is_counted_as_floats() -> None:
    assert tensor([[True] * 3] * 2, dtype="float").dtype == "float"
