"""Engine invariants: what gets recorded, when graphs are freed, in-place rules, seeds, accumulation,
higher derivatives, and how tensors print. The derivatives of each op are in test_gradients.py.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from graph_util import graph_behind

from dglang import autograd
from dglang.autograd import (
    GradError,
    ShapeError,
    Tensor,
    TensorTypeError,
    enable_grad,
    gradient,
    no_grad,
    tensor,
)
from dglang.autograd.tensor import recording


class Recorded:
    """A listener that keeps every tensor the engine records a node for."""

    def __init__(self, seen: list[Tensor]) -> None:
        self.on_record = seen.append


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Tensor]]:
    """Every tensor the engine records a node for while the test runs."""
    seen: list[Tensor] = []
    recording.listen(listener := Recorded(seen))
    yield seen
    recording.stop_listening(listener)


def ops(root: Tensor) -> list[str]:
    """The graph behind `root`, each tensor after its inputs: op names, "leaf" for leaves."""
    return [t.grad_fn.op.name if t.grad_fn is not None else "leaf" for t in graph_behind(root)]


# ---- what gets recorded --------------------------------------------------------------------
@pytest.mark.parametrize(("start", "expected"), [(2.0, ["leaf", "Mul"]), (9.0, ["leaf", "Exp", "Sin"])])
def test_an_untaken_branch_records_no_node(start: float, expected: list[str], recorded: list[Tensor]) -> None:
    x = tensor(start, requires_grad=True)
    y = x.exp().sin() if x.item() > 5 else x * 3.0
    assert ops(y) == expected
    assert graph_behind(y)[0] is x and graph_behind(y)[-1] is y
    assert len(recorded) == len(expected) - 1


class Visits:
    """A listener that keeps the tensors a backward pass reaches, in order."""

    def __init__(self) -> None:
        self.order: list[Tensor] = []

    def on_visit(self, t: Tensor, g: Tensor) -> None:
        self.order.append(t)


def test_backward_visits_each_tensor_once_after_every_op_that_used_it() -> None:
    a = tensor([1.0, 2.0], requires_grad=True)
    c = a * 2
    d = c + c * a
    visits = Visits()
    recording.listen(visits)
    try:
        d.sum().backward()
    finally:
        recording.stop_listening(visits)
    order = visits.order
    position = {id(t): i for i, t in enumerate(order)}
    assert len(order) == len(position) == 5  # sum, d, c * a, c, a: each once
    for t in order:
        for inp in t.grad_fn.inputs if t.grad_fn is not None else ():
            if inp.requires_grad:
                assert position[id(inp)] > position[id(t)]


def test_constants_record_nothing(recorded: list[Tensor]) -> None:
    c = tensor([1.0, 2.0])
    y = (c * 3).exp().sum() + c @ c
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    assert recorded == []


def test_no_grad_records_nothing_and_restores_recording(recorded: list[Tensor]) -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    with no_grad():
        y = (x * 2).exp().sum() + x[0] + x @ x
        with enable_grad():
            inner = x * 2
        still_off = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert still_off.grad_fn is None
    assert recorded == [inner]
    assert autograd.is_grad_enabled()
    after = x * 2
    assert after.grad_fn is not None and recorded == [inner, after]


def test_no_grad_restores_recording_after_an_error() -> None:
    with pytest.raises(ZeroDivisionError), no_grad():
        1 / 0  # noqa: B018
    assert autograd.is_grad_enabled()


# ---- long graphs and freeing them ----------------------------------------------------------
@pytest.mark.slow
def test_backward_through_a_million_node_chain() -> None:
    # About 9 s on the 2-core reference machine: 5 s to build, 4 s for backward.
    x = tensor(1.0, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()  # an iterative walk: a recursive one would hit RecursionError here
    assert x.grad is not None and x.grad.item() == 1.0
    assert y.item() == 1_000_001.0
    del y  # freeing a million-deep chain must not overflow the C stack either


class Marker:
    """A weakref-able object to hang on a node (Tensor and Node have __slots__ without __weakref__)."""


def test_a_graph_is_freed_by_reference_counting_alone() -> None:
    gc.collect()
    gc.disable()  # so only reference counting can free it: the graph must hold no cycles
    try:
        x = tensor([1.0, 2.0], requires_grad=True)
        y = ((x * 2).exp() + x[[0, 0]].sum() + autograd.softmax(x)).sum()
        markers = []
        for t in graph_behind(y):
            if t.grad_fn is not None:
                marker = Marker()
                t.grad_fn.where = marker
                markers.append(weakref.ref(marker))
        del t, marker
        assert len(markers) >= 6 and all(m() is not None for m in markers)
        y.backward()
        del y
        assert [m() for m in markers] == [None] * len(markers)
        assert x.grad is not None and x.grad.grad_fn is None  # the gradient holds no graph either
    finally:
        gc.enable()


def live_tensors() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Tensor)


def test_no_tensor_of_an_old_graph_remains() -> None:
    x = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    before = live_tensors()
    for _ in range(3):  # a training loop: build, backward, update, drop
        loss = ((x @ x).tanh() * x).mean()
        loss.backward()
        with no_grad():
            x -= 0.1 * x.grad
        x.grad = None
        del loss
    assert live_tensors() == before


# ---- in-place updates ----------------------------------------------------------------------
def test_in_place_update_of_a_leaf_needs_no_grad() -> None:
    w = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(GradError):
        w -= 0.5
    assert w.tolist() == [1.0, 2.0] and w.version == 0

    (w * w).sum().backward()
    original = w
    with no_grad():
        w -= 0.25 * w.grad
    assert w is original, "in-place update must keep the same object"
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert w.version > 0, "an in-place update must be noted on the tensor"
    assert w.tolist() == [0.5, 1.0]


def test_an_update_writes_into_an_array_only_when_nothing_else_holds_it() -> None:
    w, step = tensor([1.0, 2.0], requires_grad=True), tensor([0.5, 0.5])
    with no_grad():
        w -= step  # an optimiser's step: nothing else holds w's array, which is updated where it is
        array = w.data
        w -= step  # `array` holds it now: a new one, and `array` keeps the values it had
        assert array.tolist() == [0.5, 1.5] and w.tolist() == [0.0, 1.0]
        copy = w.detach()  # the same array, shared
        for update in (lambda: w.__iadd__(2.0), lambda: w.__imul__(step), lambda: w.__itruediv__(step)):
            update()
            assert copy.tolist() == [0.0, 1.0], "a tensor sharing the old array sees no update"
        assert w.tolist() == [2.0, 3.0]


def test_an_update_of_a_view_leaves_the_tensor_it_views_alone() -> None:
    a = tensor([1.0, 2.0, 3.0, 4.0])
    views = [a.reshape(2, 2), a[1:3], a.reshape(2, 2).T]  # each holds a NumPy view of a's array
    with no_grad():
        for v in views:
            v -= 1.0
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0], "a view's holder gets a new array, as any shared one"
    assert views[1].tolist() == [1.0, 2.0]


def test_in_place_on_a_recorded_tensor_outside_no_grad_records_out_of_place() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    old = y
    y += 1
    assert y is not old and old.tolist() == [3.0, 6.0] and old.version == 0
    assert y.grad_fn is not None and y.grad_fn.op.name == "Add"
    y.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [3.0, 3.0]


def test_changing_a_leaf_in_place_after_use_makes_backward_fail() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with no_grad():
        x += 1
    with pytest.raises(GradError, match="changed in place"):
        y.backward()


def test_changing_a_constant_input_in_place_after_use_makes_backward_fail() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    c = tensor([3.0, 4.0])
    y = (x * c).sum()
    c += 1  # allowed: c does not require grad
    with pytest.raises(GradError):
        y.backward()
    d = tensor([3.0, 4.0])
    z = (x * d).sum()
    d[0] = 5.0
    with pytest.raises(GradError):
        gradient(z, x)


def test_changing_an_output_a_rule_reads_makes_backward_fail() -> None:
    x = tensor([0.5, -0.5], requires_grad=True)
    y = x.tanh()  # its rule reads its own output
    with no_grad():
        y *= 2
    with pytest.raises(GradError):
        y.backward(tensor([1.0, 1.0]))


def test_updating_after_backward_is_fine() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    with no_grad():
        x -= 0.5 * x.grad
    x.grad = None
    (x * x).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0]


# ---- seeds ---------------------------------------------------------------------------------
def test_grad_of_a_non_scalar_needs_a_seed() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(GradError, match="needs a seed"):
        (x * 2).backward()
    with pytest.raises(GradError, match="needs a seed"):
        gradient(x * 2, x)


def test_a_seed_of_the_wrong_shape_is_a_shape_error() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ShapeError):
        (x * 2).backward(tensor([1.0, 1.0, 1.0]))
    with pytest.raises(ShapeError):
        gradient(x * 2, x, seed=tensor(1.0))


def test_a_one_element_non_scalar_needs_no_seed() -> None:
    x = tensor([[3.0]], requires_grad=True)
    (x * x).backward()
    assert x.grad is not None and x.grad.tolist() == [[6.0]]


def test_grad_of_something_that_requires_no_grad_is_a_grad_error() -> None:
    with pytest.raises(GradError):
        (tensor(2.0) * 3).backward()
    with pytest.raises(GradError):
        gradient(tensor(2.0) * 3, tensor(1.0, requires_grad=True), strict=True)


def test_seed_scales_the_gradient() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    (x * x).backward(tensor([1.0, 10.0]))
    assert x.grad is not None and x.grad.tolist() == [2.0, 40.0]


@pytest.mark.parametrize("seed", ["int", "bool"])
def test_a_seed_that_is_not_float_is_a_type_error(seed: str) -> None:
    """It would flow through a sum's rule into an int .grad of a float leaf (PyTorch refuses such a
    .grad); a plain list of ints is fine: it becomes a float seed."""
    x = tensor([1.0, 2.0], requires_grad=True)
    given = tensor(3, dtype="int") if seed == "int" else tensor(1.0) > 0
    with pytest.raises(TensorTypeError, match=f"the seed is {seed} tensor") as caught:
        x.sum().backward(given)
    assert caught.value.help is not None and "float seed" in caught.value.help
    assert x.grad is None
    with pytest.raises(TensorTypeError):
        gradient(x.sum(), x, given)
    (x * 2).backward([1, 1])
    assert x.grad is not None and x.grad.dtype == "float"


def test_grad_of_a_leaf_never_aliases_the_seed() -> None:
    seed = tensor([3.0, 4.0])
    x = tensor([1.0, 2.0], requires_grad=True)
    (x + 0.0).backward(seed)  # Add passes the gradient through unchanged
    w = tensor([1.0, 2.0], requires_grad=True)
    w.backward(seed)  # a leaf is its own root
    assert x.grad is not seed and w.grad is not seed
    with no_grad():
        seed += 1
    assert x.grad is not None and x.grad.tolist() == [3.0, 4.0]
    assert w.grad is not None and w.grad.tolist() == [3.0, 4.0]

    array_seed = np.array([1.0, 1.0])
    v = tensor([1.0, 2.0], requires_grad=True)
    (v + 0.0).backward(array_seed)
    assert v.grad is not None and not np.shares_memory(v.grad.numpy(), array_seed)

    g = gradient(x, x, seed=seed)
    assert g is not seed


def test_two_leaves_never_share_a_grad() -> None:
    a = tensor([1.0, 2.0], requires_grad=True)
    b = tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()  # Add sends one gradient object to both inputs
    assert a.grad is not None and b.grad is not None and a.grad is not b.grad
    with no_grad():
        a.grad *= 0
    assert b.grad.tolist() == [1.0, 1.0]
    ga, gb = gradient((a - b).sum() + (a + b).sum(), [a, b])
    assert ga is not gb and ga.tolist() == [2.0, 2.0] and gb.tolist() == [0.0, 0.0]


# ---- accumulation and gradient() ------------------------------------------------------------
def test_gradients_accumulate_across_backward_calls() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()  # the graph is kept, so the same output can go back twice
    assert x.grad is not None and x.grad.tolist() == [4.0, 8.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [7.0, 11.0]


def test_gradient_leaves_grad_alone_and_reaches_intermediates() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = (h * 3).sum()
    gh, gx = gradient(y, [h, x])
    assert gh.tolist() == [3.0, 3.0] and gx.tolist() == [6.0, 12.0]
    assert x.grad is None and h.grad is None


def test_gradient_with_respect_to_an_unused_input() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    unused = tensor([5.0, 6.0, 7.0], requires_grad=True)
    y = (x * x).sum()
    assert gradient(y, unused).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(GradError):
        gradient(y, unused, strict=True)


# ---- higher derivatives --------------------------------------------------------------------
def test_second_and_third_derivatives_of_x_cubed() -> None:
    x = tensor(2.0, requires_grad=True)
    y = x**3
    first = gradient(y, x)
    second = gradient(first, x)
    third = gradient(second, x)
    assert (first.item(), second.item(), third.item()) == (12.0, 12.0, 6.0)
    assert gradient(third, x).item() == 0.0
    assert x.grad is None


def test_backward_with_create_graph_gives_a_differentiable_grad() -> None:
    x = tensor(2.0, requires_grad=True)
    (x**3).backward(create_graph=True)
    assert x.grad is not None and x.grad.item() == 12.0 and x.grad.grad_fn is not None
    assert gradient(x.grad, x).item() == 12.0


def test_a_plain_backward_records_nothing(recorded: list[Tensor]) -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = ((x**3).exp() * x).sum()
    graph = graph_behind(y)
    count = len(recorded)
    y.backward()
    assert len(recorded) == count
    assert graph_behind(y) == graph
    assert x.grad is not None and x.grad.grad_fn is None and not x.grad.requires_grad


def test_detach_cuts_the_graph() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    y = (x * x.detach()).sum()
    y.backward()
    assert x.grad is not None and x.grad.tolist() == [1.0, 2.0]


# ---- dtypes --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: tensor([1, 2], dtype="int", requires_grad=True),
        lambda: tensor([True, False], dtype="bool", requires_grad=True),
        lambda: autograd.arange(3, requires_grad=True),
    ],
    ids=["int tensor", "bool tensor", "int arange"],
)
def test_int_and_bool_tensors_cannot_require_grad(make: object) -> None:
    with pytest.raises(TensorTypeError, match="only float tensors can require grad"):
        make()  # type: ignore[operator]


def test_an_int_tensor_in_a_float_graph_gets_no_gradient() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    k = tensor([3, 4], dtype="int")
    (x * k).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [3.0, 4.0] and x.grad.dtype == "float"
    assert k.grad is None


# ---- printing -------------------------------------------------------------------------------
def test_repr_matches_pytorch() -> None:
    x = tensor([1.0, -1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([ 2., -2.,  4.], grad_fn=<MulBackward>)"
    assert repr(tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    assert repr(tensor(12.0)) == "tensor(12.)"
    assert repr((x * x).sum()) == "tensor(6., grad_fn=<SumBackward>)"
    assert repr(tensor([0.5, 1.25])) == "tensor([0.5000, 1.2500])"
    assert repr(tensor([-1.5, 2.0])) == "tensor([-1.5000,  2.0000])"
    assert repr(tensor(1 / 3)) == "tensor(0.3333)"
    assert repr(tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(tensor([1, 2, 3], dtype="int")) == "tensor([1, 2, 3])"
    assert repr(tensor([True, False], dtype="bool")) == "tensor([ True, False])"


def test_repr_of_a_grad_after_backward_has_no_grad_fn() -> None:
    x = tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert repr(x.grad) == "tensor([2., 4.])"
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"


def test_transpose_rejects_axes_that_are_not_a_permutation() -> None:
    x = tensor([[1.0, 2.0]], requires_grad=True)
    for axes in [(0, 5), (0, 0), (0, -3)]:
        with pytest.raises(ShapeError, match="not a permutation"):
            x.transpose(*axes)


def test_a_number_becomes_a_constant_tensor_only_for_a_node_or_a_listener(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lr * g` under no_grad makes one tensor, its result; recorded, the number is the node's
    constant input; a listener to ops is told of it as a tensor too."""
    made: list[Any] = []
    make = Tensor.__init__
    monkeypatch.setattr(Tensor, "__init__", lambda t, data, **more: (made.append(data), make(t, data, **more))[1])
    g, w = Tensor(np.ones(3)), Tensor(np.ones(3), requires_grad=True)
    made.clear()
    with no_grad():
        0.1 * g
        g / 2
    assert len(made) == 2  # the two results
    made.clear()
    out = 0.1 * w
    assert len(made) == 2 and [m for m in made if type(m) is float] == [0.1]  # the result, and the constant
    assert out.grad_fn.inputs[0].data == 0.1 and out.grad_fn.inputs[1] is w
    told: list[Any] = []
    monkeypatch.setattr(recording, "on_op", (lambda op, args, result: told.append(args),))
    with no_grad():
        g * 3
    assert type(told[0][1]) is Tensor and told[0][1].data == 3 and told[0][0] is g
