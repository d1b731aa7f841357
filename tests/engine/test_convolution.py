"""Convolution, pooling and padding (autograd/convolution.py, autograd/pooling.py).

- Forward against a plain loop over output positions written here, across stride, padding,
  dilation and groups; and against values PyTorch 2.13 printed for the same inputs.
- First and second derivatives against central differences, a tensor used twice included.
- Located errors for shapes that do not fit, and every large result shown to the hooks before
  it is made (so --max-memory holds for a huge convolution).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import Hooks, ShapeError, Tensor, TensorTypeError, TensorValueError, hooks, tensor
from dglang.interpreter.host.session import Session


def looped_conv2d(x, w, b, stride, padding, dilation, groups):
    """conv2d by its definition, one output value at a time."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph : ph + h, pw : pw + wd] = x
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    per_group = o // groups
    for i, j, k, r, s in itertools.product(range(n), range(o), range(ho), range(wo), range(1)):
        group = j // per_group
        patch = xp[i, group * cg : (group + 1) * cg, k * sh : k * sh + dh * kh : dh, r * sw : r * sw + dw * kw : dw]
        out[i, j, k, r] = (patch * w[j]).sum() + (b[j] if b is not None else 0.0) + s
    return out


CASES = [  # (input shape, weight shape, stride, padding, dilation, groups, bias)
    ((2, 3, 5, 6), (4, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1, True),
    ((1, 4, 7, 7), (6, 2, 3, 2), (2, 2), (1, 1), (1, 1), 2, False),
    ((2, 2, 6, 5), (2, 2, 2, 2), (1, 2), (2, 1), (2, 1), 1, True),
    ((1, 4, 5, 5), (4, 1, 3, 3), (1, 1), (1, 1), (1, 1), 4, True),  # depthwise
]


@pytest.mark.parametrize("case", CASES)
def test_conv2d_is_its_definition(case) -> None:
    xs, ws, stride, padding, dilation, groups, with_bias = case
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0]) if with_bias else None
    got = autograd.conv2d(Tensor(x), Tensor(w), None if b is None else Tensor(b), stride, padding, dilation, groups)
    assert np.allclose(got.data, looped_conv2d(x, w, b, stride, padding, dilation, groups), atol=1e-12)


def looped_col2im(cols, shape, kernel, stride, padding, dilation):
    """col2im by its definition: each kernel offset's window values added in turn onto a padded
    grid of zeros, one output position at a time (the order every sum must keep)."""
    from dglang.autograd.grids import Grid

    at = Grid(shape, kernel, stride, padding, dilation)
    n, c = shape[0], shape[1]
    blocks = cols.reshape(n, *at.out, c, *kernel)
    grid = np.zeros((n, c, *(q + 2 * p for q, p in zip(shape[2:], padding, strict=True))))
    for offset in itertools.product(*map(range, kernel)):
        for position in itertools.product(*map(range, at.out)):
            at_grid = tuple(o * s + i * d for o, s, i, d in zip(position, stride, offset, dilation, strict=True))
            grid[(slice(None), slice(None), *at_grid)] += blocks[(slice(None), *position, slice(None), *offset)]
    inside = tuple(slice(p, p + q) for p, q in zip(padding, shape[2:], strict=True))
    return grid[(slice(None), slice(None), *inside)]


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "dilation"),
    [
        ((2, 3, 7), (3,), (1,), (1,), (1,)),
        ((2, 3, 9), (2,), (3,), (2,), (2,)),
        ((3, 1, 8, 8), (3, 3), (1, 1), (1, 1), (1, 1)),  # the digits CNN's two convolutions
        ((32, 8, 4, 4), (3, 3), (1, 1), (1, 1), (1, 1)),
        ((2, 4, 6, 5), (2, 3), (2, 1), (1, 0), (1, 2)),
        ((1, 2, 4, 5, 4), (2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2)),
    ],
)
def test_im2col_offset_by_offset_is_the_windows_view(shape, kernel, stride, padding, dilation, monkeypatch) -> None:
    """A small kernel's windows are copied one kernel offset at a time; a large one's in one copy of
    the windows' strided view. Both are copies of the same numbers into the same places."""
    from dglang.autograd import convolution
    from dglang.autograd.convolution import Im2col
    from dglang.autograd.grids import Grid, padded, windows

    at = Grid(shape, kernel, stride, padding, dilation)
    a = np.random.default_rng(4).normal(size=shape)
    got = Im2col.forward(a, at)
    dims = len(kernel)
    view = windows(padded(a, at), at).transpose(0, *range(2, 2 + dims), 1, *range(2 + dims, 2 + 2 * dims))
    assert got.shape == (shape[0] * int(np.prod(at.out)), shape[1] * int(np.prod(kernel)))
    assert got.tobytes() == np.ascontiguousarray(view).tobytes()
    monkeypatch.setattr(convolution, "OFFSETS_ONE_BY_ONE", 0)  # every kernel in one copy
    assert Im2col.forward(a, at).tobytes() == got.tobytes()


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "dilation"),
    [
        ((2, 3, 7), (3,), (1,), (1,), (1,)),
        ((2, 3, 7), (2,), (3,), (0,), (2,)),
        ((3, 2, 5, 6), (3, 3), (1, 1), (1, 1), (1, 1)),
        ((2, 4, 6, 5), (2, 3), (2, 1), (1, 0), (1, 2)),
        ((2, 2, 6, 6), (2, 2), (2, 2), (0, 0), (1, 1)),  # side by side: the reshape path
        ((1, 2, 4, 5, 4), (2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2)),
    ],
)
def test_col2im_adds_in_the_definition_s_order_bit_for_bit(shape, kernel, stride, padding, dilation) -> None:
    from dglang.autograd.convolution import Col2im
    from dglang.autograd.grids import Grid

    at = Grid(shape, kernel, stride, padding, dilation)
    rng = np.random.default_rng(3)
    cols = rng.normal(size=(shape[0] * int(np.prod(at.out)), shape[1] * int(np.prod(kernel)))) * 1e3
    cols[::3] = np.round(cols[::3])  # sums whose order shows in the last bit, and exact ones
    got = Col2im.forward(cols, at)
    assert got.flags.c_contiguous and got.shape == shape
    assert got.tobytes() == looped_col2im(cols, shape, kernel, stride, padding, dilation).tobytes()


def test_conv2d_and_its_gradients_are_pytorch_s() -> None:
    x = Tensor(np.arange(32.0).reshape(1, 2, 4, 4) - 10, requires_grad=True)
    w = Tensor(np.arange(12.0).reshape(3, 2, 1, 2) - 5, requires_grad=True)
    y = autograd.conv2d(x, w, tensor([1.0, 0.0, -1.0]), stride=(1, 2), padding=(1, 0))
    y.backward(Tensor(np.arange(float(y.size)).reshape(y.shape) % 3))
    # printed by torch.nn.functional.conv2d for the same values
    assert y.data[0, :, 1:3].tolist() == [
        [[55.0, 27.0], [-1.0, -29.0]],
        [[30.0, 34.0], [38.0, 42.0]],
        [[5.0, 41.0], [77.0, 113.0]],
    ]
    assert y.data[0, :, 0].tolist() == [[1.0, 1.0], [0.0, 0.0], [-1.0, -1.0]]
    assert x.grad.data.tolist() == [
        [[[-6.0, 0.0, 0.0, 0.0], [-3.0, 0.0, -6.0, 0.0], [0.0, 0.0, -3.0, 0.0], [-6.0, 0.0, 0.0, 0.0]],
         [[6.0, 12.0, 0.0, 0.0], [3.0, 6.0, 6.0, 12.0], [0.0, 0.0, 3.0, 6.0], [6.0, 12.0, 0.0, 0.0]]]
    ]  # fmt: skip
    assert w.grad.data.tolist() == [[[[-30.0, -22.0]], [[98.0, 106.0]]]] * 3


def test_pooling_is_pytorch_s_ties_included() -> None:
    values = [[[[1.0, 3, 3, 0], [2, 3, 1, 1], [0, 0, 4, 4], [1, 2, 4, 0]]]]
    x = tensor(values, requires_grad=True)
    m = autograd.max_pool2d(x, 2, 1)
    m.sum().backward()
    assert m.data.tolist() == [[[[3.0, 3.0, 3.0], [3.0, 4.0, 4.0], [2.0, 4.0, 4.0]]]]
    # each window's g goes to its first largest element only, as in PyTorch (not shared on a tie)
    assert x.grad.data.tolist() == [
        [[[0.0, 2.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [0.0, 1.0, 0.0, 0.0]]]
    ]
    x = tensor(values, requires_grad=True)
    a = autograd.avg_pool2d(x, 3, 1, 1)  # zero padding counted in each mean, as PyTorch does by default
    a.sum().backward()
    assert np.allclose(a.data * 9, [[[[9, 13, 11, 5], [9, 17, 19, 13], [8, 17, 19, 14], [3, 11, 14, 12]]]])
    assert np.allclose(x.grad.data * 9, [[[[4, 6, 6, 4], [6, 9, 9, 6], [6, 9, 9, 6], [4, 6, 6, 4]]]])


def test_pad_is_pytorch_s() -> None:
    x = Tensor(np.arange(6.0).reshape(2, 3))
    assert autograd.pad(x, (1, 2)).data.tolist() == [[0, 0, 1, 2, 0, 0], [0, 3, 4, 5, 0, 0]]
    assert autograd.pad(x, (0, 0, 1, 0), value=-1.0).data.tolist() == [[-1, -1, -1], [0, 1, 2], [3, 4, 5]]


# ---- derivatives ----------------------------------------------------------------------------
rng = np.random.default_rng(7)
DISTINCT = rng.permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) / 10.0  # no two values tie in a max


@pytest.mark.parametrize(
    ("name", "fn", "arrays"),
    [
        (
            "conv2d",
            lambda x, w, b: autograd.conv2d(x, w, b, (2, 1), 1, (1, 2), 2),
            [rng.normal(size=(2, 2, 5, 4)), rng.normal(size=(4, 1, 2, 3)), rng.normal(size=4)],
        ),
        (
            "conv2d, input used twice",
            lambda x: autograd.conv2d(x, x[:, :, :2, :2].reshape(2, 2, 2, 2), padding=1),
            [rng.normal(size=(2, 2, 3, 3))],
        ),
        (
            "conv1d",
            lambda x, w: autograd.conv1d(x, w, stride=2, padding=2, dilation=2),
            [rng.normal(size=(2, 3, 7)), rng.normal(size=(2, 3, 3))],
        ),
        ("max_pool2d", lambda x: autograd.max_pool2d(x, 3, 2, 1), [DISTINCT]),
        ("avg_pool2d", lambda x: autograd.avg_pool2d(x, (2, 3), 1, 1), [rng.normal(size=(2, 2, 4, 5))]),
        (
            "pools of one tensor",
            lambda x: autograd.max_pool2d(x, 2) * autograd.avg_pool2d(x, 2),
            [DISTINCT[:, :, :4, :4]],
        ),
        ("pad", lambda x: autograd.pad(x, (1, 0, 2, 1)), [rng.normal(size=(2, 2, 3))]),
    ],
)
def test_derivatives(name, fn, arrays) -> None:
    check_gradients(name, fn, *arrays, names=[f"arg{i}" for i in range(len(arrays))])


# ---- mistakes and limits --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: autograd.conv2d(autograd.ones(1, 1, 4, 4), autograd.ones(2, 3, 3, 3)), "1 channels"),
        (lambda: autograd.conv2d(autograd.ones(1, 4, 4), autograd.ones(2, 1, 3, 3)), "needs 4 dimensions"),
        (lambda: autograd.conv2d(autograd.ones(1, 1, 2, 2), autograd.ones(1, 1, 3, 3)), "does not fit"),
        (lambda: autograd.max_pool2d(autograd.ones(1, 1, 4, 4), 2, padding=2), "more than half"),
        (lambda: autograd.conv2d(autograd.ones(1, 1, 4, 4), autograd.ones(1, 1, 2, 2), stride=0), "at least 1"),
        (lambda: autograd.pad(autograd.ones(2), (1,)), "even number"),
    ],
)
def test_shapes_that_do_not_fit_are_named(call, message) -> None:
    with pytest.raises((ShapeError, TensorValueError, autograd.TensorTypeError), match=message):
        call()


@pytest.mark.parametrize(
    ("call", "help"),
    [  # the digits as digits() gives them, rows of 64: was "x.reshape(1, ...)", which cannot fit them
        (lambda: autograd.conv2d(autograd.ones(24, 64), autograd.ones(8, 1, 3, 3)), "x.reshape(-1, 1, 8, 8)"),
        (lambda: autograd.max_pool2d(autograd.ones(24, 64), 2), "x.reshape(-1, 1, 8, 8)"),
        (lambda: autograd.conv2d(autograd.ones(24, 192), autograd.ones(8, 3, 3, 3)), "x.reshape(-1, 3, 8, 8)"),
        (lambda: autograd.conv2d(autograd.ones(3, 8, 8), autograd.ones(8, 3, 3, 3)), "x.reshape(1, 3, 8, 8)"),
        (lambda: autograd.conv2d(autograd.ones(5, 8, 8), autograd.ones(8, 1, 3, 3)), "x.reshape(5, 1, 8, 8)"),
        (lambda: autograd.conv2d(autograd.ones(8, 8), autograd.ones(8, 1, 3, 3)), "x.reshape(1, 1, 8, 8)"),
        (lambda: autograd.conv1d(autograd.ones(3, 10), autograd.ones(4, 3, 3)), "x.reshape(1, 3, 10)"),
    ],
)
def test_a_missing_batch_or_channel_axis_gets_the_reshape_that_fits(call, help) -> None:
    with pytest.raises(ShapeError) as caught:
        call()
    assert help in caught.value.help


class Refusing(Hooks):
    watch = 1000

    def allocating(self, count, itemsize, what, shape=None, help=None):
        raise TensorValueError(f"refused {what}: {count}")


@pytest.mark.parametrize(
    "call",
    [
        lambda x, w: autograd.conv2d(x, w, padding=1),
        lambda x, w: autograd.max_pool2d(x, 2),
        lambda x, w: autograd.avg_pool2d(x, 2),
        lambda x, w: autograd.pad(x, (1, 1)),
    ],
)
def test_every_large_result_is_shown_to_the_hooks_first(call) -> None:
    x, w = autograd.ones(4, 3, 32, 32), autograd.ones(8, 3, 3, 3)
    previous = hooks.install(Refusing())
    try:
        with pytest.raises(TensorValueError, match="refused"):
            call(x, w)
    finally:
        hooks.install(previous)


def test_a_program_convolves_and_pools() -> None:
    session = Session()
    session.run(
        "x = randn(2, 1, 6, 6, requires_grad=True)\n"
        "w = randn(3, 1, 3, 3, requires_grad=True)\n"
        "y = max_pool2d(relu(conv2d(x, w, zeros(3), padding=1)), 2)\n"
        "loss = avg_pool2d(pad(y, (1, 1, 1, 1)), 5).sum()\n"
        "grad loss\n"
    )
    assert session.globals.vars["y"].shape == (2, 3, 3, 3) and session.globals.vars["w"].grad.shape == (3, 1, 3, 3)


def test_a_calls_checks_are_kept_for_the_same_plain_arguments() -> None:
    """conv2d and the poolings check their arguments once for each set a training loop repeats
    (grids.kept); anything that is not a plain int, or an int that is really a bool, is checked
    afresh, so an error is never skipped and True never passes for 1."""
    from dglang.autograd.convolution import Geometry
    from dglang.autograd.grids import kept
    from dglang.autograd.pooling import Window

    args = ((32, 8, 8, 8), (16, 8, 3, 3), 1, 1, 1, 1, "conv2d")
    assert kept(Geometry, *args) is kept(Geometry, *args)
    assert kept(Geometry, *args[:3], [1, 1], *args[4:]) is not kept(Geometry, *args)  # a list: afresh
    assert kept(Geometry, *args[:3], [1, 1], *args[4:]).padding == (1, 1)
    window = kept(Window, (2, 3, 6, 6), 2, None, 0, "max_pool2d", 1, False)
    assert window is kept(Window, (2, 3, 6, 6), 2, None, 0, "max_pool2d", 1, False)
    kept(Window, (2, 3, 6, 6), 1, None, 0, "max_pool2d", 1, False)  # kept: True must not find it
    for _ in range(2):  # the second time too: a failed check is not kept
        with pytest.raises(TensorTypeError, match="kernel_size must be an int"):
            kept(Window, (2, 3, 6, 6), True, None, 0, "max_pool2d", 1, False)
        with pytest.raises(ShapeError, match="does not fit"):
            kept(Geometry, (1, 8, 2, 2), (16, 8, 3, 3), 1, 0, 1, 1, "conv2d")
    x = Tensor(np.arange(36.0).reshape(1, 1, 6, 6))
    assert np.array_equal(autograd.max_pool2d(x, 2).data, autograd.max_pool2d(x, 2).data)
    with pytest.raises(TensorTypeError, match="kernel_size"):
        autograd.max_pool2d(x, True)
