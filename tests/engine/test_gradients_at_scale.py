"""Gradients at scale: the ops again, now over zero-size dimensions and non-contiguous inputs, and
whole random DG programs checked end to end against finite differences of the program itself.

test_gradients.py checks each op's rule over broadcasting shapes with sides of 1 to 3; here the
shapes may have sides of 0 (a gradient of an empty tensor must still have the right shape and
dtype), and the op's input is a strided view (a slice with a step, reversed, or transposed), the
way `x[::2]` or `w.T` reaches an op in a program.
"""

from __future__ import annotations

import io
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gradcheck_util import arrays, check_gradients, floats_in, gradcheck_settings
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dglang import autograd
from dglang.autograd import Tensor, function
from dglang.autograd.op import Op
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.library.builtin_table import numeric
from dglang.interpreter.library.runtime import Builtin

plain = floats_in(-2.0, 2.0)
positive = floats_in(0.5, 2.0)


def shapes_with_zeros(min_dims: int = 0, max_dims: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=3)


def broadcastable_with_zeros(num_shapes: int) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    return hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=0, max_dims=3, min_side=0, max_side=3).map(
        lambda b: b.input_shapes
    )


# ---- every elementwise op over shapes with zero-size dimensions, broadcasting both ways ----------
UNARY: dict[str, tuple[Callable[[Tensor], Tensor], st.SearchStrategy[float]]] = {
    "neg": (operator.neg, plain),
    "exp": (autograd.exp, plain),
    "log": (autograd.log, positive),
    "sqrt": (autograd.sqrt, positive),
    "sin": (autograd.sin, plain),
    "cos": (autograd.cos, plain),
    "tanh": (autograd.tanh, plain),
    "sigmoid": (autograd.sigmoid, plain),
    "relu": (autograd.relu, st.one_of(floats_in(0.1, 2.0), floats_in(-2.0, -0.1))),
    "abs": (autograd.abs_, st.one_of(floats_in(0.1, 2.0), floats_in(-2.0, -0.1))),
}
BINARY: dict[str, tuple[Callable[[Tensor, Tensor], Tensor], st.SearchStrategy[float], st.SearchStrategy[float]]] = {
    "add": (operator.add, plain, plain),
    "sub": (operator.sub, plain, plain),
    "mul": (operator.mul, plain, plain),
    "div": (operator.truediv, plain, positive),
    "pow": (operator.pow, positive, plain),
    "maximum": (autograd.maximum, st.integers(-20, 20).map(lambda k: k / 10 + 0.05), st.integers(-20, 20).map(float)),
}


@pytest.mark.parametrize("op", UNARY)
@gradcheck_settings
@given(data=st.data())
def test_unary_over_zero_size_dimensions(op: str, data: st.DataObject) -> None:
    fn, elements = UNARY[op]
    x = data.draw(arrays(data.draw(shapes_with_zeros(), label="shape"), elements), label="x")
    check_gradients(f"{op} of shape {x.shape}", fn, x, names=["x"])


@pytest.mark.parametrize("op", BINARY)
@gradcheck_settings
@given(data=st.data())
def test_binary_over_zero_size_dimensions_broadcasting_both_ways(op: str, data: st.DataObject) -> None:
    fn, left, right = BINARY[op]
    shape_a, shape_b = data.draw(broadcastable_with_zeros(2), label="shapes")
    a = data.draw(arrays(shape_a, left), label="a")
    b = data.draw(arrays(shape_b, right), label="b")
    check_gradients(f"{op} {a.shape} with {b.shape}", fn, a, b, names=["a", "b"])


@gradcheck_settings
@given(data=st.data(), keepdims=st.booleans())
def test_sum_over_zero_size_dimensions(data: st.DataObject, keepdims: bool) -> None:
    shape = data.draw(shapes_with_zeros(min_dims=1), label="shape")
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1), label="axis")
    x = data.draw(arrays(shape, plain), label="x")
    check_gradients(f"sum(axis={axis}) of {shape}", lambda t: t.sum(axis=axis, keepdims=keepdims), x, names=["x"])


@gradcheck_settings
@given(sizes=st.tuples(*[st.integers(0, 3)] * 4), stack=st.booleans(), data=st.data())
def test_matmul_with_zero_size_dimensions(sizes: tuple[int, int, int, int], stack: bool, data: st.DataObject) -> None:
    batch, n, k, m = sizes  # (a stack times one matrix is one product of its rows: empty ones too)
    a = data.draw(arrays((batch, n, k) if stack else (n, k), plain), label="a")
    b = data.draw(arrays((k, m), plain), label="b")
    check_gradients(f"matmul {a.shape} @ {b.shape}", operator.matmul, a, b, names=["a", "b"])


@gradcheck_settings
@given(data=st.data())
def test_concat_with_empty_parts(data: st.DataObject) -> None:
    rows = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=3), label="rows")
    parts = [data.draw(arrays((r, 2), plain), label="part") for r in rows]
    check_gradients(
        f"concat of {[p.shape for p in parts]}",
        lambda *ts: autograd.concat(list(ts)),
        *parts,
        names=[f"part{i}" for i in range(len(parts))],
    )


def test_reductions_of_an_empty_tensor_that_have_no_value_are_errors() -> None:
    empty = Tensor(np.zeros((0, 3)), requires_grad=True)
    for reduce in (autograd.mean, autograd.max_, autograd.min_):
        with pytest.raises(autograd.TensorValueError):
            reduce(empty)
    mean_of_columns_of_nothing = autograd.sum_(empty, axis=0)  # sums of nothing are 0, with a gradient
    mean_of_columns_of_nothing.sum().backward()
    assert empty.grad is not None and empty.grad.shape == (0, 3)


# ---- non-contiguous inputs: slices with steps, reversed, transposed -------------------------------
VIEWS: dict[str, Callable[[Tensor], Tensor]] = {
    "x[::2]": lambda t: t[::2],
    "x[::-1]": lambda t: t[::-1],
    "x[1::2, ::-1]": lambda t: t[1::2, ::-1],
    "x.T": lambda t: t.T,
    "x.T[::-1]": lambda t: t.T[::-1],
    "x[:, 1]": lambda t: t[:, 1],
    "x[None, ::2]": lambda t: t[None, ::2],
}
OPS_ON_VIEWS: dict[str, Callable[[Tensor], Tensor]] = {
    "exp": autograd.exp,
    "tanh": autograd.tanh,
    "v * v": lambda v: v * v,
    "v @ v.mT": lambda v: v @ v.mT if v.ndim >= 2 else v @ v,
    "sum(axis=0)": lambda v: v.sum(axis=0),
    "softmax": lambda v: autograd.softmax(v, axis=-1),
    "reshape(-1)": lambda v: v.reshape(-1),
    "v + row": lambda v: v + Tensor(np.linspace(-1.0, 1.0, v.shape[-1]) if v.ndim else 0.5),
    "max": lambda v: autograd.max_(v, axis=-1) if v.ndim else v,
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("op", OPS_ON_VIEWS)
def test_ops_on_non_contiguous_views(view: str, op: str) -> None:
    # Distinct values on a grid keep max away from ties.
    x = np.random.default_rng(len(view) * 31 + len(op)).permutation(np.arange(20.0) / 10 - 1).reshape(4, 5)
    fn = lambda t: OPS_ON_VIEWS[op](VIEWS[view](t))
    with autograd.no_grad():
        viewed = VIEWS[view](Tensor(x))
    assert not np.asarray(viewed.data).flags.c_contiguous or viewed.ndim < 2 or view == "x[None, ::2]"
    check_gradients(f"{op} of {view}", fn, x, names=["x"])


@gradcheck_settings
@given(data=st.data())
def test_basic_slices_with_steps_over_any_shape(data: st.DataObject) -> None:
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5), label="shape")
    steps = data.draw(st.lists(st.sampled_from([1, 2, -1, -2, 3]), min_size=len(shape), max_size=len(shape)))
    index = tuple(slice(None, None, s) for s in steps)
    x = data.draw(arrays(shape, plain), label="x")
    check_gradients(f"x[{index}] * 2 of {shape}", lambda t: t[index] * 2, x, names=["x"])


# ---- whole programs, end to end -------------------------------------------------------------------
# Steps that keep every value bounded and smooth, so central differences are accurate. `{a}` and
# `{b}` are earlier values (each of shape (3,)); every step gives shape (3,) again.
STEPS = [
    "tanh({a})",
    "sigmoid({a}) * {b}",
    "sin({a}) + cos({b})",
    "{a} * {b}",
    "{a} - 0.5 * {b}",
    "{a} / (2.0 + sin({b}))",
    "M @ {a}",
    "{a} @ M",
    "{a} * {b}.sum()",
    "{a} + {b}.mean()",
    "softmax({a})",
    "log_softmax({a}) * 0.3",
    "{a}[::-1] * {b}",
    "concat([{a}[:1], {b}[1:]])",
    "stack([{a}, {b}]).sum(axis=0)",
    "{a}.reshape(3, 1).T.reshape(3)",
    "exp(tanh({a}))",
    "sqrt({a} * {a} + 1.0)",
    "({a} ** 2) * 0.25",
    "g({a}, {b})",
    "maximum({a}, {b} + 10.0)",
    "where(C, {a}, {b})",
    "{a}[[0, 0, 2]] + {b}",
    "logsumexp({a}) + {b}",
]
PROGRAM_HEADER = """\
M = tensor([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.9]])
C = tensor([True, False, True])
W = tensor([0.7, -1.3, 0.4])
def g(p, q):
    r = p * 0.5
    for k in range(2):
        r = tanh(r + q * 0.1)
    return r
"""


@st.composite
def programs(draw: st.DrawFn) -> str:
    """A straight-line program from x to a scalar `loss`, with a loop, a branch and a call among its steps."""
    names = ["x"]
    lines = []
    for i in range(draw(st.integers(1, 6))):
        template = draw(st.sampled_from(STEPS))
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        expression = template.format(a=a, b=b)
        form = draw(st.sampled_from(["plain", "plain", "if", "loop"]))
        name = f"v{i}"
        if form == "if":  # the branch taken depends on a constant, never on x
            taken = draw(st.booleans())
            lines.append(f"if {taken}:\n    {name} = {expression}\nelse:\n    {name} = {a} * 2.0")
        elif form == "loop":
            lines.append(f"{name} = {a}\nfor k in range(2):\n    {name} = {template.format(a=name, b=b)}")
        else:
            lines.append(f"{name} = {expression}")
        names.append(name)
    lines.append(f"loss = ({names[-1]} * W).sum() + ({draw(st.sampled_from(names))} ** 2).sum() * 0.1")
    return "\n".join(lines) + "\n"


def run_program(
    body: str, x: np.ndarray, differentiate: bool, make_session: Callable[[], Session]
) -> tuple[float, np.ndarray | None]:
    """Run `body` with x bound to `x`; return the loss and, with `grad loss`, x.grad."""
    session = make_session()
    values = ", ".join(repr(float(v)) for v in x)
    text = PROGRAM_HEADER + f"x = tensor([{values}], requires_grad=True)\n" + body
    if differentiate:
        text += "grad loss\n"
    session.run(text, "program.dg")
    loss = session.globals.vars["loss"].item()
    grad = session.globals.vars["x"].grad
    return loss, None if grad is None else grad.numpy()


def fresh_session() -> Session:
    return Session(out=io.StringIO())


def check_program(body: str, x: np.ndarray, make_session: Callable[[], Session] = fresh_session) -> None:
    """`grad loss` in the program agrees with central differences of the program's own loss."""
    _, got = run_program(body, x, True, make_session)
    eps = 1e-6
    expected = np.zeros(3)
    for k in range(3):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        expected[k] = (
            run_program(body, up, False, make_session)[0] - run_program(body, down, False, make_session)[0]
        ) / (2 * eps)
    assert got is not None, f"x.grad is None after grad loss\n{body}"
    assert np.allclose(got, expected, rtol=1e-4, atol=1e-6), (
        f"program:\n{body}\nat x = {x.tolist()}\n  expected (finite differences): {expected}\n  received: {got}"
    )


@gradcheck_settings
@given(body=programs(), x=arrays((3,), floats_in(-1.5, 1.5)))
def test_random_programs_against_finite_differences_of_the_program(body: str, x: np.ndarray) -> None:
    check_program(body, x)


def test_the_program_check_catches_a_wrong_rule() -> None:
    """The check must be able to fail: give `sin` a wrong derivative rule and watch it."""

    class WrongSin(Op):
        rules = ("g·2",)  # should be g·cos a

        @staticmethod
        def forward(a: Any) -> Any:
            return np.sin(a)

        @staticmethod
        def backward(g: Any, out: Any, a: Any) -> tuple[Any]:
            return (g * 2.0,)

    def session_with_wrong_sin() -> Session:
        session = fresh_session()
        session.builtins.vars["sin"] = Builtin("sin", numeric(function(WrongSin)), "sin(x)")
        return session

    body = "v0 = sin(x) + cos(x)\nloss = (v0 * W).sum()\n"
    check_program(body, np.array([0.3, -0.7, 1.1]))
    with pytest.raises(AssertionError, match="finite differences"):
        check_program(body, np.array([0.3, -0.7, 1.1]), session_with_wrong_sin)
