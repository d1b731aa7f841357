"""Gradients of gradients: every differentiable op at second order, the smooth ones at third.

Each check packs all of an op's arguments into one flat vector x, takes a scalar loss L(x) of the
op's output (a weighted sum plus a weighted square, so the gradient reaching the op depends on
x), and asks `autograd.gradcheck(L, x, order=k)`: the k-th derivative built by `gradient`
applied k times must match central differences of the (k-1)-th, entry by entry, including the
mixed entries between two arguments. Points come from hypothesis, kept away from kinks and
domain edges, over shapes that broadcast. A failure names the op, the arguments of the failing
entry, and expected vs received.

Also here: control flow at every order, the issue's x ** 3 example, the engine invariants
(a plain `grad` records nothing; `gradient` never touches `.grad`), strict=True, and proof that
gradcheck fails for a wrong rule.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from gradcheck_util import arrays, away_from_zero, floats_in, on_grid, reducible_to, shapes
from graph_util import graph_behind
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_samples import assert_each_has_a_call, sampled
from test_gradients import BINARY, MATMUL_SHAPES, REUSED_NODES, UNARY, axis_args

from dglang import autograd
from dglang.autograd import GradError, Tensor, gradient, tensor
from dglang.autograd.convolution import Geometry
from dglang.autograd.gradcheck import GradcheckResult
from dglang.autograd.pooling import Window
from dglang.autograd.shaping import normalize_index
from dglang.autograd.table import OP_MODULES, declared_in
from dglang.autograd.tensor import recording, run_op
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session as Session

# Tighter than gradcheck's defaults: in float64 with eps = 1e-6 the differences are good to ~1e-9.
EPS = 1e-6
ATOL = 1e-6
RTOL = 1e-5

# A Hessian costs one backward pass per entry of x: small shapes and fewer examples than the
# first-order tests. DG_GRADCHECK_EXAMPLES=200 for a long soak.
higher_settings = settings(
    max_examples=int(os.environ.get("DG_GRADCHECK_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def small_shapes(min_dims: int = 0) -> st.SearchStrategy[tuple[int, ...]]:
    return shapes(min_dims=min_dims, max_dims=3, max_side=2)


def small_broadcastable(count: int) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Shapes that broadcast against each other either way, each with at most 8 elements."""
    return hnp.mutually_broadcastable_shapes(num_shapes=count, min_dims=0, max_dims=3, min_side=1, max_side=2).map(
        lambda b: b.input_shapes
    )


# ---- the check -------------------------------------------------------------------------------
def check_order(
    op: str, fn: Callable[..., Tensor], inputs: Sequence[np.ndarray], names: Sequence[str], order: int = 2
) -> GradcheckResult:
    """Assert that the order-th derivative of a loss of fn(*inputs) matches central differences."""
    inputs = [np.array(a, dtype=np.float64) for a in inputs]
    sizes = [a.size for a in inputs]
    bounds = np.cumsum([0, *sizes])
    with autograd.no_grad():
        out_shape = fn(*[Tensor(a) for a in inputs]).shape
    w1, w2 = weights(out_shape, 1), weights(out_shape, 2)

    def loss(x: Tensor) -> Tensor:
        pieces = zip(inputs, bounds[:-1], bounds[1:], strict=True)
        parts = [x[int(lo) : int(hi)].reshape(a.shape) for a, lo, hi in pieces]
        out = fn(*parts)
        return (out * w1).sum() + (out * out * w2).sum() / 2

    point = np.concatenate([a.ravel() for a in inputs]) if inputs else np.zeros(0)
    result = autograd.gradcheck(loss, Tensor(point), order=order, eps=EPS, atol=ATOL, rtol=RTOL)
    if not result.passed:
        raise AssertionError(failure_message(op, order, result, inputs, names, bounds))
    return result


def weights(shape: tuple[int, ...], salt: int) -> Tensor:
    """Fixed random weights away from zero, so every output element matters."""
    rng = np.random.default_rng([salt, *shape])
    return Tensor(rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape))


def failure_message(
    op: str,
    order: int,
    result: GradcheckResult,
    inputs: Sequence[np.ndarray],
    names: Sequence[str],
    bounds: np.ndarray,
) -> str:
    """Which entries are wrong, named by argument and index: d2L / d a[0, 1] d b[2]."""

    def argument(flat: int) -> str:
        i = int(np.searchsorted(bounds, flat, side="right")) - 1
        if not inputs[i].shape:
            return names[i]
        index = np.unravel_index(flat - bounds[i], inputs[i].shape)
        return f"{names[i]}[{', '.join(str(int(k)) for k in index)}]"

    lines = [f"{op}: derivative of order {order} is wrong"]
    for entry in np.argwhere(result.failing)[:6]:
        entry = tuple(int(k) for k in entry)
        label = " ".join(f"d {argument(k)}" for k in entry)
        lines.append(
            f"  d{order}L / {label}: expected (central differences of order {order - 1}) "
            f"{result.numeric[entry]:.10g}, received (gradient of gradient) {result.analytic[entry]:.10g}"
        )
    lines.append("  inputs:")
    for name, a in zip(names, inputs, strict=True):
        lines.append(f"    {name} = {np.array2string(a, precision=6, separator=', ')}")
    return "\n".join(lines)


# ---- which ops there are ---------------------------------------------------------------------
# Every op declared with a rule, or made of ops with rules (autograd/table.py), by the name a program
# calls it: each has a check drawn by hypothesis below, or is checked at its sample call
# (Op.sample_arguments), so a new op escapes none of the second-order checks.
DIFFERENTIABLE = {op.function: op for module in OP_MODULES for op in declared_in(module) if op.records or op.composed}
SAMPLED = sampled(DIFFERENTIABLE)


@pytest.mark.every_op
def test_every_differentiable_op_has_a_second_order_check() -> None:
    drawn = set(UNARY) | set(BINARY) | set(OTHER_OPS)
    assert_each_has_a_call(DIFFERENTIABLE, drawn, "add a case to OTHER_OPS in tests/engine/test_higher_order.py")


@pytest.mark.every_op
@pytest.mark.parametrize("op", SAMPLED)
def test_each_op_second_order_at_its_sample(op: str) -> None:
    """The op at its sample call, differentiated twice in each float input it declares."""
    declared = DIFFERENTIABLE[op]
    sample = declared.sample_arguments() or ()
    parameters = list(declared.signature.parameters)
    places = [i for i in sorted(declared.places) if i < len(sample) and np.asarray(sample[i]).dtype.kind == "f"]

    def call(*tensors: Tensor) -> Tensor:
        arguments = list(sample)
        for i, t in zip(places, tensors, strict=True):
            arguments[i] = t
        return run_op(declared, *arguments)

    check_order(op, call, [sample[i] for i in places], [parameters[i] for i in places])


# ---- second order: elementwise ------------------------------------------------------------------
@pytest.mark.parametrize("op", [op for op in UNARY if "(" not in op])
@higher_settings
@given(data=st.data())
def test_unary_second_order(op: str, data: st.DataObject) -> None:
    fn, _, elements = UNARY[op]
    x = data.draw(arrays(data.draw(small_shapes(), label="shape"), elements), label="x")
    check_order(op, fn, [x], ["x"])


@pytest.mark.parametrize("op", BINARY)
@higher_settings
@given(data=st.data())
def test_binary_second_order_with_broadcasting(op: str, data: st.DataObject) -> None:
    fn, _, left, right = BINARY[op]
    shape_a, shape_b = data.draw(small_broadcastable(2), label="shapes")
    a = data.draw(arrays(shape_a, left), label="a")
    b = data.draw(arrays(shape_b, right), label="b")
    check_order(op, fn, [a, b], ["a", "b"])


# ---- second order: everything else ------------------------------------------------------------
Case = tuple[Callable[..., Tensor], list[np.ndarray], list[str]]
plain = floats_in(-2.0, 2.0)


def where_case(draw: st.DrawFn) -> Case:
    shape_c, shape_a, shape_b = draw(small_broadcastable(3))
    cond = Tensor(draw(hnp.arrays(np.bool_, shape_c)))
    a, b = draw(arrays(shape_a, plain)), draw(arrays(shape_b, plain))
    # where itself is linear in a and b: multiply by them so the second derivative is not zero
    return lambda x, y: autograd.where(cond, x * y, y), [a, b], ["a", "b"]


def matmul_case(draw: st.DrawFn) -> Case:
    layout = MATMUL_SHAPES[draw(st.sampled_from(sorted(MATMUL_SHAPES)))]
    shape_a, shape_b = layout(*draw(st.tuples(*[st.integers(1, 2)] * 4)))  # batch, n, k, m
    return lambda a, b: a @ b, [draw(arrays(shape_a, plain)), draw(arrays(shape_b, plain))], ["a", "b"]


def reduction_case(reduce: Callable[..., Tensor]) -> Callable[[st.DrawFn], Case]:
    def case(draw: st.DrawFn) -> Case:
        shape = draw(small_shapes())
        axis, keepdims = draw(axis_args(len(shape))), draw(st.booleans())
        x = draw(arrays(shape, on_grid(), unique=True))  # distinct: max and min have one winner
        return lambda t: reduce(t, axis=axis, keepdims=keepdims), [x], ["x"]

    return case


def reshape_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes())
    size = int(np.prod(shape))
    target = draw(st.sampled_from([(-1,), (1, size), shape[::-1], (size, 1)]))
    return lambda t: t.reshape(target), [draw(arrays(shape, plain))], ["x"]


def flatten_case(draw: st.DrawFn) -> Case:
    return autograd.flatten, [draw(arrays(draw(small_shapes()), plain))], ["x"]


def transpose_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes())
    perm = draw(st.none() | st.permutations(range(len(shape))).map(tuple))
    return lambda t: autograd.transpose(t, perm), [draw(arrays(shape, plain))], ["x"]


def broadcast_to_case(draw: st.DrawFn) -> Case:
    target = draw(small_shapes())
    shape = draw(reducible_to(target))
    return lambda t: autograd.broadcast_to(t, target), [draw(arrays(shape, plain))], ["x"]


def sum_to_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes())
    target = draw(reducible_to(shape))
    return lambda t: autograd.sum_to(t, target), [draw(arrays(shape, plain))], ["x"]


def getitem_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes(min_dims=1))
    basic = hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=False)
    # Integer arrays with repeats: the scatter in the rule, and its own rule (indexing), must add up.
    repeats = hnp.integer_array_indices(shape, result_shape=shapes(min_dims=1, max_dims=2, max_side=3))
    index = draw(st.one_of(basic, repeats))
    return lambda t: t[index], [draw(arrays(shape, plain))], ["x"]


def index_add_case(draw: st.DrawFn) -> Case:
    """The gradient of indexing (zeros with g added at the index), with repeated indices."""
    shape = draw(small_shapes(min_dims=1))
    repeats = hnp.integer_array_indices(shape, result_shape=shapes(min_dims=1, max_dims=2, max_side=3))
    index = normalize_index(draw(st.one_of(hnp.basic_indices(shape, allow_ellipsis=False), repeats)), shape)
    picked = np.zeros(shape)[index].shape
    assume(np.prod(picked) > 0)  # (gradcheck needs an entry to check)
    # index_add is linear in its input: multiply by it so the second derivative is not zero
    return lambda t: autograd.index_add(t * t, index, shape), [draw(arrays(picked, plain))], ["x"]


def concat_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes(min_dims=1))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    at = axis % len(shape)
    sizes = draw(st.lists(st.integers(1, 2), min_size=1, max_size=3))
    parts = [draw(arrays((*shape[:at], n, *shape[at + 1 :]), plain)) for n in sizes]
    return lambda *ts: autograd.concat(list(ts), axis=axis), parts, [f"part{i}" for i in range(len(parts))]


def stack_case(draw: st.DrawFn) -> Case:
    shape = draw(small_shapes())
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    parts = [draw(arrays(shape, plain)) for _ in range(draw(st.integers(1, 3)))]
    return lambda *ts: autograd.stack(list(ts), axis=axis), parts, [f"part{i}" for i in range(len(parts))]


def softmax_family_case(fn: Callable[..., Tensor]) -> Callable[[st.DrawFn], Case]:
    def case(draw: st.DrawFn) -> Case:
        shape = draw(small_shapes(min_dims=1))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        return lambda t: fn(t, axis=axis), [draw(arrays(shape, floats_in(-3.0, 3.0)))], ["x"]

    return case


def fixed(fn: Callable[..., Tensor], *shapes: tuple[int, ...], low: float = -2.0) -> Callable[[st.DrawFn], Case]:
    """A case of fixed shapes, values drawn (distinct, so that no two tie in a max)."""

    def case(draw: st.DrawFn) -> Case:
        inputs = [draw(arrays(shape, floats_in(low, 2.0), unique=True)) for shape in shapes]
        return fn, inputs, [f"x{i}" for i in range(len(shapes))]

    return case


# The geometry conv2d and the poolings check and hand to the ops they are made of: images (1, 2, 3, 3)
# and a weight (2, 1, 2, 2) in two groups, so 4 windows (rows) of 2·4 values; 2×2 windows of
# (1, 1, 3, 2) with stride 1 and padding 1, so 4×3 of them.
AT = Geometry((1, 2, 3, 3), (2, 1, 2, 2), 1, 0, 1, 2, "conv2d")
POOL = Window((1, 1, 3, 2), 2, 1, 1, "avg_pool2d")
POSITIONS = np.array([[0, 5], [5, 2]])  # places in a flattened (2, 3), one of them twice

# the ops of courses (tests/engine/test_convolution.py and test_arranging.py check them further);
# the linear ones are multiplied by their input so that their second derivative is not zero
NEW_OPS: dict[str, Callable[[st.DrawFn], Case]] = {
    "conv2d": fixed(lambda x, w: autograd.conv2d(x, w, padding=1, stride=(1, 2)), (1, 2, 3, 3), (2, 2, 2, 2)),
    "conv1d": fixed(lambda x, w: autograd.conv1d(x, w, dilation=2), (2, 1, 5), (1, 1, 2)),
    "im2col": fixed(lambda x: autograd.im2col(x * x, AT), (1, 2, 3, 3)),
    "col2im": fixed(lambda c: autograd.col2im(c * c, AT), (4, 8)),
    "convolve": fixed(lambda c, w, b: autograd.convolve(c, w, b, AT), (4, 8), (2, 1, 2, 2), (2,)),
    "conv_transpose": fixed(lambda g, w: autograd.conv_transpose(g, w, AT), (1, 2, 2, 2), (2, 1, 2, 2)),
    "conv_weight": fixed(lambda c, g: autograd.conv_weight(c, g, AT), (4, 8), (1, 2, 2, 2)),
    "take": fixed(lambda x: autograd.take(x * x, POSITIONS), (2, 3)),
    "put": fixed(lambda v: autograd.put(v * v, POSITIONS, (2, 3)), (2, 2)),
    "window_mean": fixed(lambda x: autograd.window_mean(x * x, POOL), (1, 1, 3, 2)),
    "window_spread": fixed(lambda g: autograd.window_spread(g * g, POOL), (1, 1, *POOL.out)),
    "max_pool2d": lambda draw: (  # values 0.1 apart at least: no tie, and no kink within a finite difference
        lambda x: autograd.max_pool2d(x.exp(), 2, 1),
        [draw(arrays((1, 1, 3, 3), on_grid(), unique=True))],
        ["x"],
    ),
    "avg_pool2d": fixed(lambda x: autograd.avg_pool2d(x * x, 2, 1, 1), (1, 1, 3, 2)),
    "pad": fixed(lambda x: autograd.pad(x * x, (1, 2)), (2, 2)),
    "gather": fixed(lambda x: autograd.gather(x * x, 1, Tensor(np.array([[0, 0], [2, 1]]))), (2, 3)),
    "tril": fixed(lambda x: (x * x).tril(), (3, 3)),
    "triu": fixed(lambda x: (x * x).triu(1), (3, 3)),
    "flip": fixed(lambda x: (x * x).flip(1), (2, 3)),
    "cumsum": fixed(lambda x: (x * x).cumsum(0), (3, 2)),
    "tile": fixed(lambda x: (x * x).tile(2, 1), (2, 2)),
    "clamp": fixed(lambda x: (x * x).clamp(0.5, 2.0), (5,), low=0.1),
    "erf": fixed(autograd.erf, (2, 2)),
    "prod": fixed(lambda x: x.prod(axis=1), (2, 3), low=0.5),
    "squeeze": fixed(lambda x: (x * x).squeeze(), (2, 1)),
    "unsqueeze": fixed(lambda x: (x * x).unsqueeze(0), (2,)),
    "permute": fixed(lambda x: (x * x).permute(2, 0, 1), (1, 2, 2)),
    "einsum": fixed(lambda a, b: autograd.einsum("bij,jk->bik", a, b * b), (2, 1, 2), (2, 3)),
    "repeat": fixed(lambda x: autograd.repeat(x * x, 2, 1), (2,)),
    "cumprod": fixed(lambda x: x.cumprod(1), (2, 3), low=0.3),
    "logcumsumexp": fixed(lambda x: x.logcumsumexp(0), (3, 2)),
    "cummax": lambda draw: (lambda x: x.exp().cummax(1)[0], [draw(arrays((2, 3), on_grid(), unique=True))], ["x"]),
    "cummin": lambda draw: (lambda x: x.exp().cummin(0)[0], [draw(arrays((3, 2), on_grid(), unique=True))], ["x"]),
    "roll": fixed(lambda x: (x * x).roll((1, -1), (0, 1)), (2, 3)),
    "repeat_interleave": fixed(lambda x: autograd.repeat_interleave(x * x, Tensor(np.array([2, 0, 1])), 1), (2, 3)),
    "unfold": fixed(lambda x: (x * x).unfold(1, 2, 1), (2, 3)),
}


OTHER_OPS: dict[str, Callable[[st.DrawFn], Case]] = {
    "where": where_case,
    "matmul": matmul_case,
    "sum": reduction_case(autograd.sum_),
    "mean": reduction_case(autograd.mean),
    "max": reduction_case(autograd.max_),
    "min": reduction_case(autograd.min_),
    "reshape": reshape_case,
    "flatten": flatten_case,
    "transpose": transpose_case,
    "broadcast_to": broadcast_to_case,
    "sum_to": sum_to_case,
    "getitem": getitem_case,
    "index_add": index_add_case,
    "concat": concat_case,
    "stack": stack_case,
    "softmax": softmax_family_case(autograd.softmax),
    "log_softmax": softmax_family_case(autograd.log_softmax),
    "logsumexp": softmax_family_case(autograd.logsumexp),
    **NEW_OPS,
}


@pytest.mark.parametrize("op", OTHER_OPS)
@higher_settings
@given(data=st.data())
def test_other_ops_second_order(op: str, data: st.DataObject) -> None:
    fn, inputs, names = data.draw(st.composite(OTHER_OPS[op])(), label="case")
    check_order(op, fn, inputs, names)


# ---- third order: the smooth ops ---------------------------------------------------------------
SMOOTH_UNARY = ["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"]
SMOOTH_BINARY = ["add", "sub", "mul", "div", "pow"]
tiny_shapes = st.sampled_from([(), (1,), (2,), (1, 2)])


@pytest.mark.parametrize("op", SMOOTH_UNARY)
@higher_settings
@given(data=st.data())
def test_unary_third_order(op: str, data: st.DataObject) -> None:
    fn, _, elements = UNARY[op]
    x = data.draw(arrays(data.draw(shapes(max_dims=2, max_side=2), label="shape"), elements), label="x")
    check_order(op, fn, [x], ["x"], order=3)


@pytest.mark.parametrize("op", SMOOTH_BINARY)
@higher_settings
@given(data=st.data())
def test_binary_third_order(op: str, data: st.DataObject) -> None:
    fn, _, left, right = BINARY[op]
    a = data.draw(arrays(data.draw(tiny_shapes, label="shape a"), left), label="a")
    b = data.draw(arrays(data.draw(tiny_shapes, label="shape b"), right), label="b")
    check_order(op, fn, [a, b], ["a", "b"], order=3)


@higher_settings
@given(data=st.data(), k=st.integers(-3, 4))
def test_integer_powers_third_order(data: st.DataObject, k: int) -> None:
    x = data.draw(arrays(data.draw(tiny_shapes, label="shape"), away_from_zero(0.5, 2.0)), label="x")
    check_order(f"x ** {k}", lambda t: t**k, [x], ["x"], order=3)


@pytest.mark.parametrize("op", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_third_order(op: str) -> None:
    fn = getattr(autograd, op)
    check_order(op, lambda t: fn(t, axis=-1), [np.array([[0.3, -1.2, 2.0], [1.0, 1.0, -0.5]])], ["x"], order=3)


# ---- a node used more than once ---------------------------------------------------------------
@pytest.mark.parametrize("case", REUSED_NODES)
@pytest.mark.parametrize("order", [2, 3])
def test_node_used_twice(case: str, order: int) -> None:
    fn, shape = REUSED_NODES[case]
    x = np.random.default_rng(3).uniform(0.5, 1.5, size=shape)
    if order == 3 and x.ndim == 2:
        x = x[:2, :2]  # a third derivative has size**3 entries: keep it small
    check_order(case, fn, [x], ["a"], order=order)


def test_a_plus_a_and_a_times_a_have_the_textbook_derivatives() -> None:
    a = tensor(1.5, requires_grad=True)
    b = a + a
    assert gradient(b, a).item() == 2.0 and gradient(gradient(b, a), a).item() == 0.0
    c = a * a
    first = gradient(c, a)
    assert (first.item(), gradient(first, a).item(), gradient(gradient(first, a), a).item()) == (3.0, 2.0, 0.0)


# ---- the issue's example and control flow, from DG programs ----------------------------------
def run_dg(text: str) -> str:
    out = io.StringIO()
    Session(out=out).run(text, "<test>")
    return out.getvalue()


def test_the_issue_example_prints_12_12_6() -> None:
    program = (
        "x = tensor(2.0, requires_grad=True)\n"
        "y = x ** 3\n"
        "dy = gradient(y, x)\n"
        "d2y = gradient(dy, x)\n"
        "d3y = gradient(d2y, x)\n"
        "print(dy.item(), d2y.item(), d3y.item())\n"
        "print(dy.requires_grad, d2y.requires_grad, x.grad)\n"
    )
    assert run_dg(program) == "12.0 12.0 6.0\nTrue True None\n"


def test_gradient_from_dg_lists_seeds_zeros_and_no_grad_changes() -> None:
    program = (
        "a = tensor([1.0, 2.0], requires_grad=True)\n"
        "b = tensor(3.0, requires_grad=True)\n"
        "c = tensor(5.0, requires_grad=True)\n"
        "y = (a * a).sum() * b\n"
        "da, db, dc = gradient(y, [a, b, c])\n"
        "print(da.tolist(), db.item(), dc.item())\n"
        "print(gradient(a * b, a, tensor([1.0, -1.0])).tolist())\n"
        "print(gradient(da.sum(), b).item(), gradient(db, a).tolist())\n"
        "print(a.grad, b.grad, c.grad)\n"
    )
    # y = b * sum(a^2): dy/da = 2ab, dy/db = sum(a^2); d/db sum(2ab) = 2 sum(a); d/da sum(a^2) = 2a
    assert run_dg(program) == "[6.0, 12.0] 5.0 0.0\n[3.0, -3.0]\n6.0 [2.0, 4.0]\nNone None None\n"


CONTROL_FLOW = """
def power(x, n):            # recursion: x ** n
    if n == 0:
        return 1.0
    return x * power(x, n - 1)

def grow(x):                # a data-dependent while loop: square-and-add until past 10
    while x < 10:
        x = x * x + 1
    return x

def piecewise(x):           # if/else on the value
    if x > 0:
        return x ** 3
    else:
        return sin(x)

def fourth_power(x):
    return power(x, 4)

def derivatives(f, x, n):
    out = []
    d = f(x)
    for i in range(n):
        d = gradient(d, x)
        out.append(d.item())
    return out
"""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("derivatives(fourth_power, tensor(1.5, requires_grad=True), 3)", [4 * 1.5**3, 12 * 1.5**2, 24 * 1.5]),
        # 1.5 -> 3.25 -> 11.5625: grow(x) = (x^2 + 1)^2 + 1 = x^4 + 2x^2 + 2 on this branch
        ("derivatives(grow, tensor(1.5, requires_grad=True), 3)", [4 * 1.5**3 + 4 * 1.5, 12 * 1.5**2 + 4, 24 * 1.5]),
        # 3.5 -> 13.25: one iteration only, grow(x) = x^2 + 1
        ("derivatives(grow, tensor(3.5, requires_grad=True), 3)", [7.0, 2.0, 0.0]),
        ("derivatives(piecewise, tensor(0.5, requires_grad=True), 3)", [0.75, 3.0, 6.0]),
        ("derivatives(piecewise, tensor(-0.5, requires_grad=True), 3)", [np.cos(-0.5), -np.sin(-0.5), -np.cos(-0.5)]),
    ],
)
def test_control_flow_composes_at_every_order(call: str, expected: list[float]) -> None:
    program = CONTROL_FLOW + f"print({call})\n"
    got = [float(v) for v in run_dg(program).strip().strip("[]").split(",")]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=call)


@pytest.mark.parametrize(
    ("function", "point"), [("grow", 0.7), ("piecewise", -0.4), ("piecewise", 0.7), ("fourth_power", 2.5)]
)
@pytest.mark.parametrize("order", [1, 2, 3])
def test_gradcheck_in_dg_passes_through_control_flow(function: str, point: float, order: int) -> None:
    program = CONTROL_FLOW + f"print(gradcheck({function}, tensor({point}), order={order}, quiet=True))\n"
    assert run_dg(program) == "True\n"


# ---- engine invariants --------------------------------------------------------------------------
def a_graph_of_every_kind(x: Tensor) -> Tensor:
    """A scalar through elementwise ops, broadcasting, matmul, reductions, indexing and joins."""
    m = (x.reshape(2, 2) @ x.reshape(2, 2).T).exp().log() * autograd.sigmoid(x[None, :2])
    s = autograd.stack([x, x.tanh()]).softmax(axis=0)
    return m.sum() + autograd.concat([s[0], x**2]).max() + autograd.maximum(x, 0.1).mean() + x[[0, 0, 3]].sum()


def test_a_plain_grad_records_nothing_new(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded: list[Tensor] = []
    monkeypatch.setattr(recording, "on_record", (recorded.append,))
    x = tensor([0.3, -0.8, 1.1, 0.6], requires_grad=True)
    y = a_graph_of_every_kind(x)
    graph, count = graph_behind(y), len(recorded)
    y.backward()
    assert len(recorded) == count, f"backward recorded {len(recorded) - count} new nodes"
    assert graph_behind(y) == graph
    assert x.grad is not None and x.grad.grad_fn is None and not x.grad.requires_grad
    # The counter does see recording: the same backward with create_graph=True records many nodes.
    x.grad = None
    a_graph_of_every_kind(x).backward(create_graph=True)
    assert len(recorded) > 2 * count


def test_gradient_never_touches_grad() -> None:
    x = tensor([0.3, -0.8, 1.1, 0.6], requires_grad=True)
    w = tensor(2.0, requires_grad=True)
    y = a_graph_of_every_kind(x) * w
    assert gradient(gradient(y, x).sum(), [x, w]) is not None
    assert x.grad is None and w.grad is None
    earlier = tensor([1.0, 2.0, 3.0, 4.0])
    x.grad = earlier
    gradient(y, x)
    assert x.grad is earlier and x.grad.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_gradient_agrees_with_grad_and_is_recorded() -> None:
    x = tensor([0.3, -0.8, 1.1, 0.6], requires_grad=True)
    first = gradient(a_graph_of_every_kind(x), x)
    assert first.requires_grad and first.grad_fn is not None
    a_graph_of_every_kind(x).backward()
    assert x.grad is not None
    np.testing.assert_array_equal(first.numpy(), x.grad.numpy())
    constant = tensor([1.0, 2.0])
    assert not gradient(tensor(3.0), constant).requires_grad


def test_strict_names_the_input_the_output_does_not_use() -> None:
    a, b = tensor(1.0, requires_grad=True), tensor([2.0, 3.0], requires_grad=True)
    assert gradient(a * a, [a, b])[1].tolist() == [0.0, 0.0]
    with pytest.raises(GradError, match=r"does not depend on input 1 of the list \(shape \(2,\)\)"):
        gradient(a * a, [a, b], strict=True)
    with pytest.raises(GradError, match="does not depend on"):
        gradient(tensor(5.0), a, strict=True)


def test_a_number_as_y_is_a_constant_and_a_list_is_an_error() -> None:
    a = tensor([1.0, 2.0], requires_grad=True)
    assert gradient(3.0, a).tolist() == [0.0, 0.0]
    with pytest.raises(autograd.TensorTypeError, match="differentiates a tensor, not list"):
        gradient([a], a)


def test_gradient_with_a_seed_is_a_vector_jacobian_product_at_second_order() -> None:
    x = tensor([0.5, -1.0, 2.0], requires_grad=True)
    v = tensor([1.0, 2.0, -1.0])
    vjp = gradient(x.sin() * x, x, v)  # v * (cos(x) x + sin(x))
    hvp = gradient(vjp.sum(), x).numpy()  # d/dx of sum(v * (x cos x + sin x)) = v * (2 cos x - x sin x)
    xs, vs = x.numpy(), v.numpy()
    np.testing.assert_allclose(hvp, vs * (2 * np.cos(xs) - xs * np.sin(xs)), rtol=1e-12)


# ---- gradcheck itself ---------------------------------------------------------------------------
def test_gradcheck_fails_for_a_wrong_first_derivative(monkeypatch: pytest.MonkeyPatch) -> None:
    x = tensor([0.3, 1.2])
    assert autograd.gradcheck(autograd.sin, x).passed
    # sin's rule multiplies by cos(a), and is looked up when backward runs: make it 1% off.
    monkeypatch.setattr(autograd.trigonometry.Sin, "backward", staticmethod(lambda g, out, a: (g * a.cos() * 1.01,)))
    result = autograd.gradcheck(autograd.sin, x)
    assert not result.passed and result.failing.tolist() == [True, True]
    np.testing.assert_allclose(result.numeric, np.cos(x.numpy()), rtol=1e-8)


def test_gradcheck_order_2_catches_a_rule_written_in_raw_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    # The classic higher-order bug: a rule right at first order but built outside the engine,
    # so nothing of it is recorded and the second derivative misses a term.
    monkeypatch.setattr(autograd.trigonometry.Sin, "backward", staticmethod(lambda g, out, a: (g * np.cos(a.data),)))
    x = tensor([0.3, 1.2])
    assert autograd.gradcheck(autograd.sin, x, order=1).passed
    second = autograd.gradcheck(autograd.sin, x, order=2)
    assert not second.passed
    np.testing.assert_allclose(np.diag(second.numeric), -np.sin(x.numpy()), rtol=1e-6)
    with pytest.raises(AssertionError, match=r"sin: derivative of order 2 is wrong\n  d2L / d x\[0\] d x\[0\]"):
        check_order("sin", autograd.sin, [x.numpy()], ["x"])


def test_gradcheck_sums_a_non_scalar_output_and_leaves_x_alone() -> None:
    x = tensor([0.5, 1.5], requires_grad=True)
    result = autograd.gradcheck(lambda t: t * t, x, order=2)
    assert result.passed and result.analytic.shape == (2, 2)
    np.testing.assert_allclose(result.analytic, [[2.0, 0.0], [0.0, 2.0]])
    assert x.grad is None and x.grad_fn is None


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"order": 0}, autograd.TensorValueError, "order must be 1 or more"),
        ({"order": 1.0}, autograd.TensorTypeError, "order must be an int"),
        ({"eps": 0.0}, autograd.TensorValueError, "eps must be positive"),
        ({"atol": -1}, autograd.TensorValueError, "atol must be 0 or more"),
        ({"rtol": "x"}, autograd.TensorTypeError, "rtol must be a number"),
    ],
)
def test_gradcheck_rejects_bad_settings(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        autograd.gradcheck(autograd.exp, tensor(1.0), **kwargs)


def test_gradcheck_in_dg_prints_a_table_and_returns_a_bool() -> None:
    program = (
        "def cube(x):\n    return (x ** 3).sum()\n"
        "ok = gradcheck(cube, tensor([1.0, 2.0]), order=2)\n"
        "print(ok, type(ok))\n"
    )
    lines = run_dg(program).splitlines()
    assert lines[0].startswith("gradcheck cube, second derivative at x of shape (2,)")
    rows = {line.split()[0]: [float(v) for v in line.split()[1:4]] for line in lines[2:6]}
    assert rows.keys() == {"d2cube/dx[0]dx[0]", "d2cube/dx[0]dx[1]", "d2cube/dx[1]dx[0]", "d2cube/dx[1]dx[1]"}
    assert rows["d2cube/dx[1]dx[1]"][:2] == pytest.approx([12.0, 12.0]) and rows["d2cube/dx[0]dx[1]"][:2] == [0, 0]
    assert lines[6].startswith("  max error") and lines[6].endswith(": passed")
    assert lines[7] == "True bool"


def test_gradcheck_in_dg_names_the_point_as_the_program_does() -> None:
    lines = run_dg("a = tensor(1.5)\ngradcheck(exp, a, order=2)\n").splitlines()
    assert lines[0] == "gradcheck exp, second derivative at a = 1.5 (eps 1e-06, atol 1e-05, rtol 0.001)"
    assert lines[2].split()[0] == "d2exp/da2"


def test_gradcheck_in_dg_says_failed_for_a_wrong_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autograd.trigonometry.Sin, "backward", staticmethod(lambda g, out, a: (g * np.cos(a.data),)))
    output = run_dg("print(gradcheck(sin, 0.5, order=2))\n")
    assert "  <-- off" in output and "FAILED, 1 entry off by more than atol + rtol * |numeric|" in output
    assert output.endswith("False\n")


def test_a_long_table_shows_the_first_rows_and_the_worst(monkeypatch: pytest.MonkeyPatch) -> None:
    # Off only for the last element, which the first nine rows do not reach.
    off = (np.arange(12) == 11) * 0.5
    monkeypatch.setattr(autograd.trigonometry.Sin, "backward", staticmethod(lambda g, out, a: (g * (a.cos() + off),)))
    output = run_dg("print(gradcheck(sin, linspace(0, 1, 12)))\n")
    lines = output.splitlines()
    assert lines[1] == "  sin returns shape (12,): these are the derivatives of its sum"
    assert [line.split()[0] for line in lines[3:13]] == [f"dsin/dx[{i}]" for i in [*range(9), 11]]
    assert lines[12].endswith("<-- off") and not any(line.endswith("<-- off") for line in lines[3:12])
    assert lines[13] == "  (12 entries in all; shown: the first 9 and the worst)"
    assert lines[14].endswith("FAILED, 1 entry off by more than atol + rtol * |numeric|") and lines[15] == "False"


def test_gradcheck_errors_in_dg_are_dg_errors() -> None:
    with pytest.raises(DGError, match="checks a function, not tensor"):
        run_dg("def f(x):\n    return x\ngradcheck(f(tensor(1.0)), tensor(1.0))\n")
    with pytest.raises(DGError, match="must return a tensor or a number, not str"):
        run_dg('def f(x):\n    return "x"\ngradcheck(f, 1.0)\n')
