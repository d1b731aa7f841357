# ruff: noqa: E501  (a row's DG program is a string, kept whole on its line)
"""tinygrad's operator tests (tinygrad/tinygrad, test/backend/test_ops.py, MIT licence), written in DG.

One row per tinygrad test (a few have two): the test's name, a DG expression over the inputs
`a`, `b`, `c`, `d` (or a short program that sets `out`), the inputs (a shape drawn uniformly in
[low, high), or given values), and a NumPy reference for the forward. tests/engine/
test_tinygrad_ops.py runs each through DG in float64 and checks the forward against the reference
and every gradient against central differences; bench/tinygrad_vs_torch.py runs the same rows in
PyTorch and prints where the two differ. `torch` is the expression PyTorch writes where DG's
spelling differs. Shapes are tinygrad's, made smaller where they were large (a test is about the
op, and the suite stays fast). `UNWRITABLE` lists the tests DG cannot express, each with why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


@dataclass(frozen=True)
class Values:
    """Inputs given as values (tinygrad's `vals=`): floats require grad, ints and bools do not."""

    data: Any
    dtype: str = "float"


def V(data: Any) -> Values:
    return Values(data)


def I(data: Any) -> Values:  # noqa: E743
    return Values(data, "int")


def B(data: Any) -> Values:
    return Values(data, "bool")


@dataclass(frozen=True)
class Case:
    test: str  # tinygrad's test name
    expr: str  # DG: an expression over a, b, c, d, or lines that set `out`
    inputs: tuple[Any, ...]  # a shape each, or Values
    reference: Callable[..., Any] | None  # NumPy, on the inputs' arrays (None: an error is expected)
    low: float = -2.0
    high: float = 2.0
    grad: bool = True  # check the gradients (False: tinygrad's forward_only)
    torch: str | None = None  # the expression in PyTorch, where DG writes it otherwise
    error: bool = False  # the test checks that this is refused
    kink: bool = False  # the inputs sit on a kink or a jump (relu at 0): no central difference there
    note: str = ""

    def arrays(self) -> list[np.ndarray]:
        rng = np.random.default_rng(_seed(self.test))
        out = []
        for spec in self.inputs:
            if isinstance(spec, Values):
                out.append(np.array(spec.data, dtype={"float": np.float64, "int": np.int64, "bool": bool}[spec.dtype]))
            else:
                out.append(rng.uniform(self.low, self.high, size=spec))
        return out


def _seed(name: str) -> int:
    return sum(ord(c) * (i + 1) for i, c in enumerate(name)) % 2**32


CASES: list[Case] = []


def T(test: str, expr: str, *inputs: Any, ref: Callable[..., Any] | None = None, **options: Any) -> None:
    CASES.append(Case(test, expr, tuple(inputs), ref, **options))


def E(test: str, expr: str, *inputs: Any, torch: str | None = None) -> None:
    """A test that checks that something is refused."""
    CASES.append(Case(test, expr, tuple(inputs), None, grad=False, torch=torch, error=True))


# ---- NumPy references ---------------------------------------------------------------------------
def pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)  # type: ignore[return-value]


def np_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    (sh, sw), (ph, pw), (dh, dw) = pair(stride), pair(padding), pair(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = x[
                    :,
                    g * cg : (g + 1) * cg,
                    i * dh : i * dh + sh * (ho - 1) + 1 : sh,
                    j * dw : j * dw + sw * (wo - 1) + 1 : sw,
                ]
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og : (g + 1) * og, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def np_conv1d(x, w, b=None, **how):
    how = {k: (1, v) if k != "padding" else (0, v) for k, v in how.items() if k != "groups"} | (
        {"groups": how["groups"]} if "groups" in how else {}
    )
    return np_conv2d(x[:, :, None], w[:, :, None], b, **how)[:, :, 0]


def np_conv3d(x, w, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding,) * 2, (padding,) * 2, (padding,) * 2))
    kd = w.shape[2]
    depth = x.shape[2] - kd + 1
    return np.stack([sum(np_conv2d(x[:, :, d + k], w[:, :, k]) for k in range(kd)) for d in range(depth)], axis=2)


def np_conv_transpose2d(x, w, stride=1, padding=0, dilation=1, output_padding=0):
    """Each input value spreads its kernel over the output, placed at stride and dilation."""
    (sh, sw), (dh, dw), (oh, ow) = pair(stride), pair(dilation), pair(output_padding)
    n, _, h, wd = x.shape
    _, o, kh, kw = w.shape
    full = np.zeros((n, o, (h - 1) * sh + dh * (kh - 1) + 1 + oh, (wd - 1) * sw + dw * (kw - 1) + 1 + ow))
    for i in range(kh):
        for j in range(kw):
            full[:, :, i * dh : i * dh + sh * (h - 1) + 1 : sh, j * dw : j * dw + sw * (wd - 1) + 1 : sw] += np.einsum(
                "nchw,co->nohw", x, w[:, :, i, j]
            )
    return full[:, :, padding : full.shape[2] - padding, padding : full.shape[3] - padding]


def np_pool_indices(x, k):
    """max_pool2d's indices: each window's largest, as a position in its flattened image."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, h // k, w // k), dtype=int)
    for i in range(h // k):
        for j in range(w // k):
            window = x[:, :, i * k : (i + 1) * k, j * k : (j + 1) * k].reshape(n, c, -1)
            place = window.argmax(-1)
            out[:, :, i, j] = (i * k + place // k) * w + j * k + place % k
    return out


def np_unpool(x, k):
    n, c, h, w = x.shape
    out = np.zeros((n, c, h * w))
    np.put_along_axis(out, np_pool_indices(x, k).reshape(n, c, -1), np_pool(x, k).reshape(n, c, -1), -1)
    return out.reshape(n, c, h, w)


def np_average_inside(x, k, stride, padding, size_out):
    """avg_pool2d with ceil_mode and count_include_pad=False: each window's mean over its elements inside the image."""
    n, c, h, w = x.shape
    out = np.zeros((n, c, size_out, size_out))
    for i in range(size_out):
        for j in range(size_out):
            r0, c0 = max(i * stride - padding, 0), max(j * stride - padding, 0)
            r1, c1 = min(i * stride - padding + k, h), min(j * stride - padding + k, w)
            out[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return out


def np_pool(x, k, stride=None, padding=0, kind="max", dilation=1, fill=None):
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = pair(k), pair(stride or k), pair(padding), pair(dilation)
    value = -np.inf if kind == "max" else 0.0
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value if fill is None else fill)
    h, w = x.shape[2:]
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    parts = [
        x[:, :, i * dh : i * dh + sh * (ho - 1) + 1 : sh, j * dw : j * dw + sw * (wo - 1) + 1 : sw]
        for i in range(kh)
        for j in range(kw)
    ]
    return np.max(parts, axis=0) if kind == "max" else np.mean(parts, axis=0)


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis):
    return np.log(np_softmax(x, axis))


erf = np.vectorize(math.erf)
sigmoid = lambda x: 1 / (1 + np.exp(-x))


def np_var(x, axis=None, correction=1, keepdims=False):
    n = x.size if axis is None else math.prod(x.shape[i] for i in (axis if isinstance(axis, tuple) else (axis,)))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=axis, keepdims=True) / n
        return ((x - mean) ** 2).sum(axis=axis, keepdims=keepdims) / max(n - correction, 0)


def bits(op: str) -> str:
    """A bitwise op on int32 values written with // and %: bit k of a is (a // 2**k) % 2 (floor
    division shifts as an arithmetic shift does, so negative values give their two's complement)."""
    one = {"xor": "(A + B) % 2", "and": "A * B", "or": "A + B - A * B"}[op]

    def bit(k: str) -> str:
        return one.replace("A", f"((a // {k}) % 2)").replace("B", f"((b // {k}) % 2)")

    return f"sum([({bit('2 ** k')}) * 2 ** k for k in range(31)]) - ({bit(str(2**31))}) * {2**31}"


def interpolation(size_in: int, size_out: int, align: bool) -> tuple[list[int], list[int], list[float]]:
    """PyTorch's linear interpolation along one axis: for each output position, the two inputs and the weight of the second."""
    lo, hi, weight = [], [], []
    for i in range(size_out):
        if align:
            src = i * (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        else:
            src = max((i + 0.5) * size_in / size_out - 0.5, 0.0)
        i0 = min(math.floor(src), size_in - 1)
        lo.append(i0)
        hi.append(min(i0 + 1, size_in - 1))
        weight.append(src - i0)
    return lo, hi, weight


# ---- the tests, in tinygrad's order ---------------------------------------------------------------
T("test_full_like", "full(a.shape, 4.0)", (2, 3), ref=lambda a: np.full((2, 3), 4.0), grad=False)
T("test_full", "full((45, 65), 4)", ref=lambda: np.full((45, 65), 4), grad=False)
E("test_negative_dims", "zeros(-3, 2)", torch="torch.zeros(-3, 2)")
E("test_negative_dims_full", "full((2, -3), 4.0)", torch="torch.full((2, -3), 4.0)")
E("test_negative_dims_eye", "eye(-3)", torch="torch.eye(-3)")
E("test_negative_dims_kaiming", "(rand(-3, 2) * 2 - 1) * sqrt(6.0 / 2)", torch="(torch.rand(-3, 2) * 2 - 1)")
T("test_zeros", "zeros(45, 65)", ref=lambda: np.zeros((45, 65)), grad=False)
T("test_zeros_like", "zeros_like(a)", (2, 3), ref=np.zeros_like, grad=False)
T("test_empty_0", "zeros(45, 65) * 0 / 0", ref=lambda: np.full((45, 65), np.nan), grad=False)
T("test_ones", "ones(45, 65)", ref=lambda: np.ones((45, 65)), grad=False)
T("test_ones_like", "ones_like(a)", (2, 3), ref=np.ones_like, grad=False)
T("test_eye", "eye(3, 5)", ref=lambda: np.eye(3, 5), grad=False)
T("test_split", "a[1:5] * a[5:9]", (10,), ref=lambda a: a[1:5] * a[5:9], note="split's chunks are slices")
T("test_chunk", "a[:, 0:2] + a[:, 2:4]", (3, 4), ref=lambda a: a[:, 0:2] + a[:, 2:4], note="chunk's parts are slices")
T("test_unfold", "a.unfold(0, 2, 1)", (8,), ref=lambda a: sliding_window_view(a, 2))
T(
    "test_meshgrid",
    "stack([a.reshape(3, 1) + 0 * b, b + 0 * a.reshape(3, 1)])",
    (3,),
    (4,),
    ref=lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij")),
)
T("test_arange", "arange(5, 10, 3)", ref=lambda: np.arange(5, 10, 3), grad=False)
T("test_arange_big", "arange(256)", ref=lambda: np.arange(256), grad=False)
T("test_arange_4096", "arange(4096)", ref=lambda: np.arange(4096), grad=False)
T("test_linspace", "linspace(5.5, -5.5, 10)", ref=lambda: np.linspace(5.5, -5.5, 10), grad=False)
T("test_sum_fake", "a.sum(dim=1)", (256, 1), ref=lambda a: a.sum(axis=1))
T("test_sum_collapse", "ones(256, 256).sum(dim=1)", ref=lambda: np.full(256, 256.0), grad=False)
T("test_sum_collapse_neg", "(-ones(3, 3)).sum(dim=1)", ref=lambda: np.full(3, -3.0), grad=False)
T("test_sum_pad_collapse", "pad(ones(256, 256), (0, 64, 0, 0)).sum(dim=1)", ref=lambda: np.full(256, 256.0), grad=False)
T("test_sum_twice", "a.sum((0, 2)).sum()", (4, 4, 4), ref=lambda a: a.sum())
T(
    "test_sum_cat_collapse",
    "cat([ones(256, 256), zeros(256, 64)], dim=1).sum(dim=1)",
    ref=lambda: np.full(256, 256.0),
    grad=False,
)
T("test_max_dont_collapse", "ones(256, 256).max(1)[0]", ref=lambda: np.ones(256), grad=False)
T("test_where", "where(a > 0, a, b)", (3, 4), (3, 4), ref=lambda a, b: np.where(a > 0, a, b))
T(
    "test_where_permute",
    "where(a.permute(1, 0) > 0, a.permute(1, 0), b)",
    (5, 5),
    (5, 5),
    ref=lambda a, b: np.where(a.T > 0, a.T, b),
)
for _name, _op, _fn in [
    ("eq", "==", np.equal),
    ("gt", ">", np.greater),
    ("ge", ">=", np.greater_equal),
    ("lt", "<", np.less),
    ("le", "<=", np.less_equal),
]:
    T(f"test_cmp_{_name}", f"a {_op} b", V([0.0, 1, 2]), V([2.0, 1, 0]), ref=_fn, grad=False)
T("test_cmp_ne_backwards", "(a != b) * a + (a != b) * b", (4, 4), (4, 4), ref=lambda a, b: (a != b) * (a + b))
T("test_cmp_lt_backwards", "(a < b) * a * b", (4, 4), (4, 4), ref=lambda a, b: (a < b) * a * b)
T(
    "test_trunc",
    "sign(a) * (abs(a) // 1)",
    V([1.499, 1.5, 1.501, 1.0, 2.1, 0.0, -5.0, -2.499, -2.5, -2.501, 1e12, -1e12]),
    ref=np.trunc,
    grad=False,
    torch="a.trunc()",
)
T(
    "test_floor",
    "a.floor()",
    V([1.499, 1.5, 1.501, 1.0, 2.1, 0.0, -5.0, -2.499, -2.5, -2.501]),
    ref=np.floor,
    grad=False,
)
T("test_ceil", "a.ceil()", V([1.499, 1.5, 1.501, 1.0, 2.1, 0.0, -5.0, -2.499, -2.5, -2.501]), ref=np.ceil, grad=False)
ROUND = "where(a - a // 1 == 0.5, 2 * ((a + 0.5) / 2 // 1), (a + 0.5) // 1)"  # to the nearest, ties to even
T(
    "test_round",
    ROUND,
    V([1.499, 1.5, 1.501, 1.0, 2.1, 0.0, -5.0, -2.499, -2.5, -2.501, 2.5, -1.5]),
    ref=np.round,
    grad=False,
    torch="a.round()",
)
T(
    "test_round_quantization_gradient",
    f"a + 0.125 * ({ROUND} - a)",
    V([-1.2, -0.7, -0.2, 0.2, 0.7, 1.2]),
    ref=lambda a: a + 0.125 * (np.round(a) - a),
    torch="a + 0.125 * (a.round() - a)",
)
_SPECIAL = V([-math.inf, 0.0, math.inf, math.nan, 1.1])
T("test_isinf", "abs(a) == inf", _SPECIAL, ref=np.isinf, grad=False, torch="torch.isinf(a)")
T("test_isnan", "a != a", _SPECIAL, ref=np.isnan, grad=False, torch="torch.isnan(a)")
T("test_isfinite", "abs(a) < inf", _SPECIAL, ref=np.isfinite, grad=False, torch="torch.isfinite(a)")
T("test_lerp", "a + c * (b - a)", (4, 5), (4, 5), (4, 5), ref=lambda a, b, c: a + c * (b - a), torch="a.lerp(b, c)")
T("test_tril", "a.tril(-1)", (4, 5), ref=lambda a: np.tril(a, -1))
T("test_triu", "a.triu(1)", (5, 3, 3), ref=lambda a: np.triu(a, 1))
T("test_maximum", "maximum(a, b)", (45, 65), (45, 65), ref=np.maximum)
T("test_minimum", "minimum(a, b)", (45, 65), (45, 65), ref=np.minimum)
T("test_tiny_add", "a + b", (3,), (3,), ref=np.add)
T("test_tiny_mul", "a * b", (64,), (64,), ref=np.multiply)
T("test_add", "a + b", (45, 68), (45, 68), ref=np.add)
T("test_add3", "a + b + c", (45, 65), (45, 65), (45, 65), ref=lambda a, b, c: a + b + c)
T("test_broadcasted_add", "a + b", (45, 65), (45, 1), ref=np.add)
T("test_broadcasted_add_2", "a + b", (45, 65), (65,), ref=np.add)
T("test_sub", "a - b", (45, 65), (45, 65), ref=np.subtract)
T("test_scalar_sub", "a - 2", (45, 65), ref=lambda a: a - 2)
T("test_scalar_rsub", "2 - a", (), ref=lambda a: 2 - a)
T("test_neg", "-a", (45, 65), ref=np.negative)
T("test_logical_not", "a == 0", V([1.0, 2.0, 0.0, 0.5]), ref=np.logical_not, grad=False, torch="torch.logical_not(a)")
T("test_mul", "a * b", (64, 64), (64, 64), ref=np.multiply)
T("test_scalar_mul", "255 * a", (45, 65), ref=lambda a: 255 * a)
T("test_div", "a / b", (45, 65), (45, 65), ref=np.divide)
T(
    "test_div_rounding_mode",
    "a // b",
    V([5.0, 6, 7, 0, -5, -6, -7]),
    V([3.0]),
    ref=np.floor_divide,
    grad=False,
    torch="torch.div(a, b, rounding_mode='floor')",
)
T("test_div_int", "a / b", I([5, 6, 7]), I([1, 2, 3]), ref=np.divide, grad=False)
T("test_scalar_div", "2 / a", (45, 65), ref=lambda a: 2 / a)
T("test_mod", "a % b", V([-4.0, 7, 5, 4, -7, 8, -9]), V([2.0, -3, 8, -2, 3, 5, -5]), ref=np.mod, grad=False)
T(
    "test_fmod",
    "a - sign(a / b) * (abs(a / b) // 1) * b",
    V([-4.0, 7, 5, 4, -7, 8, -9]),
    V([2.0, -3, 8, -2, 3, 5, -5]),
    ref=np.fmod,
    grad=False,
    torch="torch.fmod(a, b)",
)
T("test_mul_naninf", "a * inf", (45, 65), ref=lambda a: a * np.inf)
T("test_div_naninf", "inf / a", (45, 65), ref=lambda a: np.inf / a)
T("test_pow_full", "a ** b", (45, 65), (45, 65), ref=np.power, low=0.5)
T("test_pow", "a ** -2", (45, 65), ref=lambda a: a**-2.0)
T("test_pow_const", "(-5.5) ** a", (45, 65), ref=lambda a: (-5.5) ** a)
T("test_pow_const_direct", "a ** 2.0", V([0.0, -1.0, 3.0]), ref=lambda a: a**2.0)
T("test_pow_neg_inf_frac_exponent", "a ** 0.3", V([-math.inf]), ref=lambda a: a**0.3)
T("test_pow_zero_exponent", "a ** b", V([-math.inf, math.inf, 0.0]), V([0.0, 0.0, 0.0]), ref=np.power)
T("test_pow_zero_tensor", "a ** b", V([0.0]), V([0.3]), ref=np.power)
T(
    "test_exp2_log2_zero_times_negative",
    "2 ** (log(a) / log(2) * b)",
    V([0.0]),
    V([-0.7]),
    ref=lambda a, b: np.exp2(np.log2(a) * b),
    grad=False,
    torch="(a.log2() * b).exp2()",
)
T("test_pow_zero_const", "a ** -1.0", V([-1.0, 0.0, 1.0]), ref=lambda a: a**-1.0)
T("test_int_pow_const_int", "a ** 7", I([11, 12, 13]), ref=lambda a: a**7, grad=False)
T("test_pow_int", "a ** b", I([0, 1, 2, 3]), I([3, 2, 1, 0]), ref=np.power, grad=False)
T("test_pow_int_base_float_exponent", "a ** 0.5", I([1, 2, 3, 4]), ref=lambda a: a**0.5, grad=False)
T("test_sqrt", "a.sqrt()", (45, 65), ref=np.sqrt, low=0.1)
T("test_rsqrt", "1 / a.sqrt()", (45, 65), ref=lambda a: 1 / np.sqrt(a), low=0.1, torch="a.rsqrt()")
_BITS_A, _BITS_B = I([[1, -8, 1], [32, 1, 6]]), I([[3, 5, -7], [0x1337, 12, -255]])
T(
    "test_xor",
    bits("xor"),
    _BITS_A,
    _BITS_B,
    ref=lambda a, b: a.astype(np.int32) ^ b.astype(np.int32),
    grad=False,
    torch="a ^ b",
)
T(
    "test_and",
    bits("and"),
    _BITS_A,
    _BITS_B,
    ref=lambda a, b: a.astype(np.int32) & b.astype(np.int32),
    grad=False,
    torch="a & b",
)
T(
    "test_or",
    bits("or"),
    _BITS_A,
    _BITS_B,
    ref=lambda a, b: a.astype(np.int32) | b.astype(np.int32),
    grad=False,
    torch="a | b",
)
T("test_bitwise_not", "-a - 1", _BITS_A, ref=np.invert, grad=False, torch="~a")
T("test_lshift", "a * 2 ** 3", I([[0, 1, 2], [3, 4, 100]]), ref=lambda a: a << 3, grad=False, torch="a << 3")
T("test_rshift", "a // 2 ** 3", I([[0, 1, 2], [33, 64, 1000]]), ref=lambda a: a >> 3, grad=False, torch="a >> 3")
T("test_lshift_signed", "a * 2 ** 2", I([-8, -3, -1, 0, 5]), ref=lambda a: a << 2, grad=False, torch="a << 2")
T("test_rshift_signed", "a // 2 ** 2", I([-8, -3, -1, 0, 5]), ref=lambda a: a >> 2, grad=False, torch="a >> 2")
T("test_idiv_shift_rewrite_negative", "a // 4", I([-17, -16, -15, -1, 0, 15]), ref=lambda a: a // 4, grad=False)
T("test_sin", "a.sin()", (45, 65), ref=np.sin)
T("test_cos", "a.cos()", (45, 65), ref=np.cos)
T("test_tan", "a.sin() / a.cos()", (45, 65), ref=np.tan, low=-1.5, high=1.5, torch="a.tan()")
# (inside (-1, 1): tinygrad leaves the ends out too, where the derivative is infinite)
T("test_asin", "a.asin()", (45, 65), ref=np.arcsin, low=-0.95, high=0.95)
T("test_acos", "a.acos()", (45, 65), ref=np.arccos, low=-0.95, high=0.95)
T("test_atan", "a.atan()", (45, 65), ref=np.arctan)
T("test_relu", "a.relu()", (64, 64), ref=lambda a: np.maximum(a, 0))
T("test_relu_exact", "a.relu()", V([-1.0, 0.0, 1.0]), ref=lambda a: np.maximum(a, 0), kink=True)
T(
    "test_relu_maximum_exact",
    "maximum(a, 0.0)",
    V([-1.0, 0.0, 1.0]),
    ref=lambda a: np.maximum(a, 0),
    torch="torch.maximum(a, torch.zeros_like(a))",
    kink=True,
)
T(
    "test_leaky_relu",
    "where(a > 0, a, 0.01 * a)",
    (45, 65),
    ref=lambda a: np.where(a > 0, a, 0.01 * a),
    torch="torch.nn.functional.leaky_relu(a, 0.01)",
)
T(
    "test_celu",
    "maximum(a, 0.0) + minimum(0.0, 0.5 * (exp(a / 0.5) - 1))",
    (45, 65),
    ref=lambda a: np.maximum(a, 0) + np.minimum(0, 0.5 * (np.exp(a / 0.5) - 1)),
    torch="torch.nn.functional.celu(a, 0.5)",
)
_SELU = (1.0507009873554804934193349852946, 1.6732632423543772848170429916717)
T(
    "test_selu",
    f"{_SELU[0]} * where(a > 0, a, {_SELU[1]} * (exp(a) - 1))",
    (45, 65),
    ref=lambda a: _SELU[0] * np.where(a > 0, a, _SELU[1] * (np.exp(a) - 1)),
    torch="torch.nn.functional.selu(a)",
)
T("test_silu", "a * sigmoid(a)", (45, 65), ref=lambda a: a * sigmoid(a), torch="torch.nn.functional.silu(a)")
T("test_swish", "a * a.sigmoid()", (45, 65), ref=lambda a: a * sigmoid(a), torch="torch.nn.functional.silu(a)")
T("test_abs", "abs(a)", (45, 65), ref=np.abs)
T("test_abs_exact", "abs(a)", V([-1.0, 0.0, 1.0]), ref=np.abs, kink=True)
T("test_log", "log(a)", (45, 65), ref=np.log, low=0.1)
T("test_log10", "log(a) / log(10)", (45, 65), ref=np.log10, low=0.1, torch="torch.log10(a)")
T("test_log2", "log(a) / log(2)", (45, 65), ref=np.log2, low=0.1, torch="torch.log2(a)")
T("test_exp", "exp(a)", (45, 65), ref=np.exp)
T("test_exp2", "2 ** a", (45, 65), ref=np.exp2)
T("test_sign", "sign(a)", (45, 65), ref=np.sign)
T("test_sign_exact", "a.sign()", V([-1.0, 0.0, 1.0]), ref=np.sign, kink=True)
T(
    "test_copysign",
    "where(1 / b < 0, -abs(a), abs(a))",
    (45, 65),
    (45, 65),
    ref=np.copysign,
    torch="torch.copysign(a, b)",
)
T(
    "test_copysign_exact",
    "where(1 / b < 0, -abs(a), abs(a))",
    V([2.0, -3.0, 0.0, -0.0]),
    V([-0.0, 0.0, -1.0, 5.0]),
    ref=np.copysign,
    torch="torch.copysign(a, b)",
    kink=True,
    note="1 / -0.0 is -inf: the sign of a zero",
)
T("test_logaddexp", "logsumexp(stack([a, b]), 0)", (45, 65), (45, 65), ref=np.logaddexp)
T("test_softsign", "a / (1 + abs(a))", (45, 65), ref=lambda a: a / (1 + np.abs(a)))
T("test_softsign_exact", "a / (1 + abs(a))", V([-1.0, 0.0, 1.0]), ref=lambda a: a / (1 + np.abs(a)))
T("test_sigmoid", "sigmoid(a)", (45, 65), ref=sigmoid)
T("test_sigmoid_extreme", "sigmoid(a)", (45, 65), ref=sigmoid, low=300, high=400)
T("test_sigmoid_alt_extreme", "exp(a) / (1 + exp(a))", V([300.0, -300.0]), ref=lambda a: np.exp(a) / (1 + np.exp(a)))
T("test_logsigmoid", "log(sigmoid(a))", (45, 65), ref=lambda a: np.log(sigmoid(a)))
T(
    "test_hardsigmoid",
    "clamp(a / 6 + 0.5, 0.0, 1.0)",
    (45, 65),
    ref=lambda a: np.clip(a / 6 + 0.5, 0, 1),
    low=-4,
    high=4,
)
T(
    "test_hardsigmoid_extreme",
    "clamp(a / 6 + 0.5, 0.0, 1.0)",
    (45, 65),
    ref=lambda a: np.clip(a / 6 + 0.5, 0, 1),
    low=300,
    high=400,
)
T(
    "test_softplus",
    "log(1 + exp(3 * a)) / 3",
    (45, 65),
    ref=lambda a: np.log1p(np.exp(3 * a)) / 3,
    torch="torch.nn.functional.softplus(a, beta=3)",
)
T("test_erf", "erf(a)", (45, 65), ref=erf)
T(
    "test_gelu",
    "a * (1 + erf(a / sqrt(2))) / 2",
    (45, 65),
    ref=lambda a: a * (1 + erf(a / math.sqrt(2))) / 2,
    torch="torch.nn.functional.gelu(a)",
)
GELU_TANH = "0.5 * a * (1 + tanh(sqrt(2 / pi) * (a + 0.044715 * a ** 3)))"
T(
    "test_gelu_extreme",
    GELU_TANH,
    (45, 65),
    low=300,
    high=400,
    ref=lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3))),
    torch="torch.nn.functional.gelu(a, approximate='tanh')",
)
T("test_quick_gelu", "a * sigmoid(1.702 * a)", (45, 65), ref=lambda a: a * sigmoid(1.702 * a))
T(
    "test_quick_gelu_extreme",
    "a * sigmoid(1.702 * a)",
    (45, 65),
    ref=lambda a: a * sigmoid(1.702 * a),
    low=-400,
    high=-300,
)
T(
    "test_elu",
    "where(a > 0, a, 0.1 * (exp(a) - 1))",
    (45, 65),
    ref=lambda a: np.where(a > 0, a, 0.1 * np.expm1(a)),
    torch="torch.nn.functional.elu(a, alpha=0.1)",
)
T(
    "test_relu6",
    "clamp(a, 0.0, 6.0)",
    (45, 65),
    ref=lambda a: np.clip(a, 0, 6),
    low=-3,
    high=9,
    torch="torch.nn.functional.relu6(a)",
)
T(
    "test_hardswish",
    "a * clamp(a + 3, 0.0, 6.0) / 6",
    (45, 65),
    ref=lambda a: a * np.clip(a + 3, 0, 6) / 6,
    low=-5,
    high=5,
    torch="torch.nn.functional.hardswish(a)",
)
T(
    "test_mish",
    "a * tanh(log(1 + exp(a)))",
    (45, 65),
    ref=lambda a: a * np.tanh(np.log1p(np.exp(a))),
    torch="torch.nn.functional.mish(a)",
)
T("test_small_cumsum", "cumsum(a, dim=0)", (10,), ref=lambda a: np.cumsum(a, 0))
T("test_simple_cumsum", "cumsum(a, dim=0)", (512,), ref=lambda a: np.cumsum(a, 0))
T("test_cumsum", "cumsum(a, dim=1)", (20, 30), ref=lambda a: np.cumsum(a, 1))
T("test_cumsum_zero_axis", "cumsum(a, dim=1)", (2, 0, 4), ref=lambda a: np.cumsum(a, 1))
T("test_small_cumprod", "a.cumprod(0)", (10,), ref=lambda a: np.cumprod(a, 0))
T("test_simple_cumprod", "a.cumprod(0)", (512,), ref=lambda a: np.cumprod(a, 0), low=0.5, high=1.5)
T("test_cumprod", "a.cumprod(1)", (20, 30), ref=lambda a: np.cumprod(a, 1))
T("test_cumprod_zero_axis", "a.cumprod(1)", (2, 0, 4), ref=lambda a: np.cumprod(a, 1))
# the running max (min) and where it was found: (values, indices), as PyTorch's
for _which, _np in [("max", np.maximum), ("min", np.minimum)]:
    _accumulate = {"ref": lambda a, f=_np: f.accumulate(a, 0)}
    T(f"test_small_cum{_which}", f"a.cum{_which}(0)[0]", (10,), **_accumulate)
    T(f"test_simple_cum{_which}", f"a.cum{_which}(0)[0]", (512,), **_accumulate)
    T(f"test_cum{_which}", f"a.cum{_which}(0)[0]", (6, 3), **_accumulate)
    T(f"test_cum{_which}_zero_axis", f"a.cum{_which}(1)[0]", (2, 0, 4), ref=lambda a, f=_np: f.accumulate(a, 1))
T("test_argmax", "a.argmax()", V([1.0, 2.0, 2.0]), ref=np.argmax, grad=False)
T("test_argmin", "a.argmin()", V([3.0, 2.0, 2.0]), ref=np.argmin, grad=False)
# sorting by ranks: each value's rank counts the values below it; the sorted values are picked by rank
RANKS = "(a.reshape(1, -1) < a.reshape(-1, 1)).sum(dim=1)"
SORTED = f"(({RANKS}).reshape(-1, 1) == arange(a.shape[0])) * a.reshape(-1, 1)"
T("test_sort", f"({SORTED}).sum(dim=0)", (8,), ref=np.sort, torch="a.sort(0)[0]")
T(
    "test_argsort",
    f"((({RANKS}).reshape(-1, 1) == arange(8)) * arange(8).reshape(-1, 1)).sum(dim=0).flip(0)",
    (8,),
    ref=lambda a: np.argsort(-a),
    grad=False,
    torch="torch.argsort(a, descending=True)",
)
T("test_topk", f"({SORTED}).sum(dim=0).flip(0)[:3]", (8,), ref=lambda a: np.sort(a)[::-1][:3], torch="a.topk(3)[0]")
T("test_einsum", 'einsum("ij,jk->ik", a, b)', (10, 10), (10, 10), ref=lambda a, b: a @ b)
T(
    "test_einsum_ellipsis",
    'einsum("...id, ...jd -> ...ij", [a, b])',
    (3, 8, 9),
    (3, 8, 9),
    ref=lambda a, b: np.einsum("...id,...jd->...ij", a, b),
)
T("test_einsum_trace", 'einsum("ii->i", a)', (4, 4), ref=np.diagonal)
E("test_einsum_shape_check", 'einsum("pqrs,tuqvr->pstuv", [a, b])', (3, 8, 10, 5), (11, 5, 13, 16, 8))
E("test_einsum_arity_check1", 'einsum("ij,jk->ij", [a, b, c])', (10, 15), (15, 20), (20, 10))
E("test_einsum_arity_check2", 'einsum("ij,jk->ij", a)', (10, 10))
T("test_dot_1d", "a @ b", (65,), (65, 45), ref=np.matmul)
T("test_dot", "a @ b", (8, 45, 65), (8, 65, 10), ref=np.matmul)
T(
    "test_mulacc_with_zero_strides",
    "(tensor(1.0).reshape(1, 1, 1) + zeros(2, 4, 3)) * (tensor(1.0).reshape(1, 1, 1) + zeros(2, 4, 3))",
    ref=lambda: np.ones((2, 4, 3)),
    grad=False,
)
T("test_matmul_simple", "a @ b", (4,), (4, 4), ref=np.matmul)
T("test_matmul", "a @ b", (64,), (64, 99), ref=np.matmul)
T("test_matmul_batched", "a @ b", (3,), (1, 3, 3, 5), ref=np.matmul)
T("test_matmul_batched_vector", "a @ b", (4, 3), (1, 3, 3, 5), ref=np.matmul)
T("test_small_gemm", "a @ b", (8, 8), (8, 8), ref=np.matmul)
T("test_9_gemm", "a @ b", (9, 9), (9, 9), ref=np.matmul)
T(
    "test_small_gemm_padded",
    "pad(a, (0, 7, 0, 7)) @ pad(b, (0, 7, 0, 7))",
    (9, 9),
    (9, 9),
    ref=lambda a, b: np.pad(a, ((0, 7), (0, 7))) @ np.pad(b, ((0, 7), (0, 7))),
)
T(
    "test_small_gemm_range",
    "a @ b",
    V(np.arange(64.0).reshape(8, 8).tolist()),
    V(np.arange(64.0, 128).reshape(8, 8).tolist()),
    ref=np.matmul,
)
T("test_small_gemm_eye", "a @ b", V(np.eye(8).tolist()), V(np.eye(8).tolist()), ref=np.matmul)
T("test_gemm", "a @ b", (64, 64), (64, 64), ref=np.matmul)
T("test_big_gemm", "a @ b", (256, 256), (256, 256), ref=np.matmul)
T("test_gemm_with_zeros_shape", "a @ b", (8, 8), (8, 0), ref=np.matmul)
T("test_broadcastdot", "a @ b", (10, 45, 65), (65, 45), ref=np.matmul)
T("test_multidot", "a @ b", (3, 3, 45, 65), (3, 3, 65, 45), ref=np.matmul)
T("test_sum_simple", "a.sum()", V([1.0, 1.0]), ref=np.sum)
T("test_sum_full", "a.sum()", (16384,), ref=np.sum)
T("test_sum_relu", "a.relu().sum().relu()", (3, 4, 5), ref=lambda a: max(np.maximum(a, 0).sum(), 0))
T("test_sum_tiny", "a.sum(dim=(0, 2))", (4, 2, 2), ref=lambda a: a.sum(axis=(0, 2)))
T("test_sum", "a.sum(dim=3)", (3, 4, 5, 6), ref=lambda a: a.sum(axis=3))
T("test_sum_dtype_arg", "a.sum()", (45, 3), ref=np.sum, note="in float64, the dtype the test's second case asks for")
T("test_sum_with_zeros_shape", "a.sum(dim=(1,))", (4, 0), ref=lambda a: a.sum(axis=1))
T("test_prod", "a.prod()", V([0.0, 2.0, 3.0]), ref=np.prod)
T("test_prod_dtype_arg", "a.prod()", V([1.0, 2.0, 3.0]), ref=np.prod, note="in float64, the dtype the test asks for")
T("test_min", "a.min()", (45, 3), ref=np.min)
T("test_max", "a.max() * 0.5", (45, 3), ref=lambda a: a.max() * 0.5)
T("test_const_reduce", "full(a.shape, 2.0).prod()", (3, 3), ref=lambda a: 2.0**9, grad=False)
T("test_any", "(a != 0).any()", V([[0.0, 0.0], [0.0, 1.0]]), ref=np.any, grad=False)
T("test_any_axis", "(a > 1.5).any(dim=(1, 2))", (3, 4, 5, 6), ref=lambda a: (a > 1.5).any(axis=(1, 2)), grad=False)
T(
    "test_any_zero_axis",
    "(a != 0).any(dim=(1, 3))",
    (1, 0, 3, 0, 5),
    ref=lambda a: (a != 0).any(axis=(1, 3)),
    grad=False,
)
T("test_all", "(a != 0).all()", (3, 4, 5, 6), ref=lambda a: (a != 0).all(), grad=False)
T("test_all_axis", "(a > -1.5).all(dim=(1, 2))", (3, 4, 5, 6), ref=lambda a: (a > -1.5).all(axis=(1, 2)), grad=False)
T(
    "test_all_zero_axis",
    "(a != 0).all(dim=(1, 3))",
    (1, 0, 3, 0, 5),
    ref=lambda a: (a != 0).all(axis=(1, 3)),
    grad=False,
)
T("test_all_large", "(ones(2 ** 16) != 0).all()", ref=lambda: np.bool_(True), grad=False)
ISCLOSE = "where(a == b, True, where(abs(a) + abs(b) < inf, abs(a - b) <= 1e-08 + 1e-05 * abs(b), False))"
T("test_isclose", ISCLOSE, (3, 4, 5, 6), V(0.5), ref=lambda a, b: np.isclose(a, b), grad=False, torch="a.isclose(b)")
T(
    "test_isclose_edge_cases",
    ISCLOSE,
    V([math.inf, -math.inf, math.nan, 1.0, 0.0]),
    V([math.inf, math.inf, math.nan, 1.0 + 1e-6, 1e-9]),
    ref=np.isclose,
    grad=False,
    torch="a.isclose(b)",
)
T(
    "test_isclose_scalar",
    "abs(a - 1.0) <= 1e-08 + 1e-05 * 1.0",
    V([1.0, 1.0 + 1e-7, 1.1]),
    ref=lambda a: np.isclose(a, 1.0),
    grad=False,
    torch="a.isclose(torch.tensor(1.0, dtype=torch.float64))",
)
T("test_mean", "a.mean()", (3, 4, 5, 6), ref=np.mean)
T("test_mean_axis", "a.mean(dim=(1, 2))", (3, 4, 5, 6), ref=lambda a: a.mean(axis=(1, 2)))
T(
    "test_mean_zero_axis",
    "a.sum(dim=(1, 3)) / (a.shape[1] * a.shape[3])",
    (1, 0, 3, 0, 5),
    ref=lambda a: np.full((1, 3, 5), np.nan),
    torch="a.mean(dim=(1, 3))",
    note="DG's mean of no element is an error; 0/0 is PyTorch's nan",
)


def var(axes: str, n: str, correction: int = 1, keep: str = "False") -> str:
    """The variance as PyTorch computes it: squares about the mean, over max(n - correction, 0)."""
    mean = f"a.sum({axes}keepdim=True) / ({n})"
    return f"((a - {mean}) ** 2).sum({axes}keepdim={keep}) / max({n} - {correction}, 0)"


_ALL, _N = "", "a.numel()"
T("test_var", var(_ALL, _N), (15, 25, 35), ref=np_var, torch="a.var()")
T("test_var_axis", var("dim=2, ", "a.shape[2]"), (15, 25, 35), ref=lambda a: np_var(a, 2), torch="a.var(2)")
T(
    "test_var_zero_in_axis",
    var("dim=(1, 3), ", "a.shape[1] * a.shape[3]"),
    (1, 0, 3, 0, 5),
    ref=lambda a: np_var(a, (1, 3)),
    torch="a.var(dim=(1, 3))",
)
T(
    "test_var_one_in_axis",
    var("dim=(0, 3), ", "a.shape[0] * a.shape[3]", 5),
    (1, 2, 3, 1, 5),
    ref=lambda a: np_var(a, (0, 3), 5),
    grad=False,
    torch="a.var(dim=(0, 3), correction=5)",
)
T(
    "test_var_keepdim",
    var("dim=0, ", "a.shape[0]", 0, "True"),
    (15, 25, 35),
    ref=lambda a: np_var(a, 0, 0, True),
    torch="a.var(0, keepdim=True, correction=0)",
)
T(
    "test_std",
    f"sqrt({var(_ALL, _N, 0)})",
    (15, 25, 35),
    ref=lambda a: np.sqrt(np_var(a, None, 0)),
    torch="a.std(correction=0)",
)
T(
    "test_std_axis",
    f"sqrt({var('dim=0, ', 'a.shape[0]')})",
    (15, 25, 35),
    ref=lambda a: np.sqrt(np_var(a, 0)),
    torch="a.std(0)",
)
T(
    "test_std_zero_in_axis",
    f"sqrt({var('dim=(1, 3), ', 'a.shape[1] * a.shape[3]')})",
    (1, 0, 3, 0, 5),
    ref=lambda a: np.sqrt(np_var(a, (1, 3))),
    torch="a.std(dim=(1, 3))",
)
T(
    "test_std_one_in_axis",
    f"sqrt({var('dim=(0, 3), ', 'a.shape[0] * a.shape[3]')})",
    (1, 2, 3, 1, 5),
    ref=lambda a: np.sqrt(np_var(a, (0, 3))),
    torch="a.std(dim=(0, 3))",
)
T(
    "test_std_keepdim",
    f"sqrt({var(_ALL, _N, 1, 'True')})",
    (15, 25, 35),
    ref=lambda a: np.sqrt(np_var(a, None, 1, True)),
    torch="a.std(keepdim=True)",
)
T(
    "test_std_mean",
    f"stack([sqrt({var(_ALL, _N, 5)}), a.mean()])",
    (15, 25, 35),
    ref=lambda a: np.stack([np.sqrt(np_var(a, None, 5)), a.mean()]),
    torch="torch.stack(torch.std_mean(a, correction=5))",
)
T(
    "test_std_mean_loaded_nan",
    f"stack([sqrt({var('dim=(1, 3), ', '0')}), a.sum(dim=(1, 3)) / 0])",
    (1, 0, 3, 0, 5),
    ref=lambda a: np.full((2, 1, 3, 5), np.nan),
    torch="torch.stack(torch.std_mean(a, dim=(1, 3)))",
)
T("test_softmax", "a.softmax(1)", (45, 65), ref=lambda a: np_softmax(a, 1))
T("test_softmax_other_axis", "a.softmax(0)", (10, 10, 10), ref=lambda a: np_softmax(a, 0))
T("test_softmax_argmax", "a.softmax(1).argmax()", (45, 65), ref=lambda a: np.argmax(np_softmax(a, 1)), grad=False)
T("test_log_softmax", "a.log_softmax(1)", (45, 65), ref=lambda a: np_log_softmax(a, 1))
T("test_log_softmax_other_axis", "a.log_softmax(1)", (10, 10, 10), ref=lambda a: np_log_softmax(a, 1))
T(
    "test_softmin",
    "(-a).softmax(1)",
    (45, 65),
    ref=lambda a: np_softmax(-a, 1),
    torch="torch.nn.functional.softmin(a, 1)",
)
T(
    "test_normalize",
    "a / maximum(sqrt((a * a).sum(dim=0, keepdim=True)), 1e-12)",
    (45, 65),
    ref=lambda a: a / np.maximum(np.sqrt((a * a).sum(0, keepdims=True)), 1e-12),
    torch="torch.nn.functional.normalize(a, dim=0)",
)
T(
    "test_logsumexp",
    "logsumexp(a, dim=0, keepdim=True)",
    (45, 65),
    ref=lambda a: np.log(np.exp(a).sum(0, keepdims=True)),
)
T("test_logcumsumexp", "a.logcumsumexp(1)", (45, 65), ref=lambda a: np.log(np.cumsum(np.exp(a), 1)))
T("test_logcumsumexp_numerical", "a.logcumsumexp(0)", V([0.0, 100.0]), ref=lambda a: np.log(np.cumsum(np.exp(a))))
T("test_sinh", "(exp(a) - exp(-a)) / 2", (45, 65), ref=np.sinh, low=-300, high=-297, torch="a.sinh()")
T("test_cosh", "(exp(a) + exp(-a)) / 2", (45, 65), ref=np.cosh, torch="a.cosh()")
T("test_tanh", "a.tanh()", (45, 65), ref=np.tanh)
T("test_tanh_extreme", "a.tanh()", (45, 65), ref=np.tanh, low=300, high=303)
T(
    "test_hardtanh",
    "clamp(a, -0.5, 0.5)",
    (45, 65),
    ref=lambda a: np.clip(a, -0.5, 0.5),
    torch="torch.nn.functional.hardtanh(a, -0.5, 0.5)",
)
T("test_asinh", "log(a + sqrt(a * a + 1))", (45, 65), ref=np.arcsinh, torch="a.asinh()")
T("test_acosh", "log(a + sqrt(a * a - 1))", (45, 65), ref=np.arccosh, low=1.1, high=3, torch="a.acosh()")
T("test_atanh", "log((1 + a) / (1 - a)) / 2", (45, 65), ref=np.arctanh, low=-0.95, high=0.95, torch="a.atanh()")
T("test_topo_sort", "(a + a) * a", (45, 65), ref=lambda a: (a + a) * a)
T("test_flip_eye_crash", "eye(10) @ eye(10).flip(0)", ref=lambda: np.eye(10) @ np.eye(10)[::-1], grad=False)
T(
    "test_broadcast_full",
    "(a + b) * (a - b) / b",
    (5, 13, 24, 16),
    (5, 1, 24, 1),
    low=0.5,
    high=3,
    ref=lambda a, b: (a + b) * (a - b) / b,
)
T("test_broadcast_simple", "a / b", (45, 65), (), ref=np.divide, low=0.5)
T(
    "test_broadcast_partial",
    "a ** b - a * b",
    (5, 13, 24, 16),
    (5, 1, 1, 16),
    low=0.5,
    high=3,
    ref=lambda a, b: a**b - a * b,
)
T("test_slice_in_bounds_1dim", "a[1:3]", (3,), ref=lambda a: a[1:3])
T("test_slice_on_0dim_tensor", "a[None]", (), ref=lambda a: a[None])
T("test_slice_int_indexing", "a[2]", (3,), ref=lambda a: a[2])
T("test_slice_in_bounds_multidim", "a[1:2, 2]", (3, 3, 3), ref=lambda a: a[1:2, 2])
T("test_slice_with_none", "a[1:2, None]", (3, 3, 3), ref=lambda a: a[1:2, None])
T(
    "test_slice_with_const_tensor",
    'a[:, tensor([0], dtype="int"), :]',
    (3, 3, 3),
    ref=lambda a: a[:, [0], :],
    torch="a[:, torch.tensor([0]), :]",
)
T("test_slice_one_endpoint_out_of_bounds", "a[-6:4]", (3, 3, 3), ref=lambda a: a[-6:4])
T("test_slice_stride_gt_one", "a[1:5:2, ::3, ::4]", (7, 5, 10), ref=lambda a: a[1:5:2, ::3, ::4])
T(
    "test_slice_negative_strides",
    "a[::-1, 4:0:-2, ::-3]",
    (7, 5, 10),
    ref=lambda a: a[::-1, 4:0:-2, ::-3],
    torch="a.flip(0)[:, [4, 2]][:, :, [9, 6, 3, 0]]",
    note="PyTorch has no negative steps: its text flips",
)
T("test_slice_both_endpoints_out_of_bounds", "a[-15:-7]", (3, 3, 3), ref=lambda a: a[-15:-7])
T("test_slice_start_gt_end", "a[-2:2]", (3, 3, 3), ref=lambda a: a[-2:2])
T("test_slice_zero_in_shape", "a[1:1]", (10, 10), ref=lambda a: a[1:1])
E("test_slice_errors", "a[0, 0, 0, 0]", (3, 3, 3))
T(
    "test_slice_ellipsis",
    "a[:, :, :, 0]",
    (3, 3, 3, 3),
    ref=lambda a: a[..., 0],
    torch="a[..., 0]",
    note="DG writes each axis's `:` for `...`",
)
T("test_double_slice", "a[:, 1:2][1:2]", (4, 4), ref=lambda a: a[:, 1:2][1:2])
T("test_pad", "pad(a, (1, 2, 3, 4))", (3, 3, 3, 3), ref=lambda a: np.pad(a, ((0, 0), (0, 0), (3, 4), (1, 2))))
T(
    "test_pad",
    "pad(a, (-1, 2, -3, 4))",
    (3, 3, 3, 3),
    ref=lambda a: np.pad(a[:, :, 3:, 1:], ((0, 0), (0, 0), (0, 4), (0, 2))),
    note="a negative amount cuts",
)
for _mode, _numpy in [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]:
    T(
        f"test_pad_{_mode}_mode",
        f"pad(a, (0, 2, 3, 2), mode='{_mode}')",
        (1, 1, 5, 5),
        ref=lambda a, m=_numpy: np.pad(a, ((0, 0), (0, 0), (3, 2), (0, 2)), mode=m),
    )
T("test_pad_reshape", "pad(a, (0, 1, 1, 0)).reshape(6)", (1, 2), ref=lambda a: np.pad(a, ((1, 0), (0, 1))).reshape(6))
T("test_pad_slice", "pad(a, (1, 0), value=-3.5)[0]", (4,), ref=lambda a: np.float64(-3.5))
T("test_stack_slice", "stack([a for i in range(3)])[0, :]", (4,), ref=lambda a: a)
T("test_transpose", "a.transpose(1, 2)", (3, 3, 3), ref=lambda a: a.transpose(0, 2, 1))
T("test_permute", "a.permute(3, 0, 2, 1)", (1, 2, 3, 4), ref=lambda a: a.transpose(3, 0, 2, 1))
T("test_reshape", "a.reshape(-1, 3, 6, 6)", (4, 3, 6, 6), ref=lambda a: a.reshape(-1, 3, 6, 6))
T("test_view", "a.reshape(12, 6, 6)", (4, 3, 6, 6), ref=lambda a: a.reshape(12, 6, 6), torch="a.view(12, 6, 6)")
T("test_flip", "a.flip((0, 1))", (4, 3, 6, 6), ref=lambda a: a[::-1, ::-1])
T("test_squeeze", "a.squeeze(2)", (4, 3, 1, 6), ref=lambda a: a.squeeze(2))
T("test_unsqueeze", "a.unsqueeze(4)", (4, 3, 6, 6), ref=lambda a: a[..., None])
T("test_flatten", "a.reshape(4, -1)", (4, 3, 6, 6), ref=lambda a: a.reshape(4, -1), torch="a.flatten(start_dim=1)")
T(
    "test_unflatten",
    "a.reshape(4, 3, 6, 3, 2)",
    (4, 3, 6, 6),
    ref=lambda a: a.reshape(4, 3, 6, 3, 2),
    torch="a.unflatten(3, (3, 2))",
)
T("test_diag", "eye(5) * a", (5,), ref=np.diag, torch="a.diag()")
T("test_diagonal", "a[arange(3), arange(3)]", (3, 4), ref=np.diagonal, torch="a.diagonal()")
T("test_roll", "a.roll(1)", (2, 4), ref=lambda a: np.roll(a, 1))
T("test_detach", "a.detach()", (4, 3, 6, 6), ref=lambda a: a, grad=False)
T(
    "test_expand",
    "a + zeros(4, 3, 2, 6)",
    (4, 3, 1, 6),
    ref=lambda a: np.broadcast_to(a, (4, 3, 2, 6)),
    torch="a.expand((4, 3, 2, 6))",
)


# ---- convolutions and pooling -------------------------------------------------------------------------
def conv3d(x: str, w: str, depth: int, k: int = 3) -> str:
    """conv3d as DG writes it: each output depth a sum of 2-d convolutions of the input's depths."""
    return f"stack([sum([conv2d({x}[:, :, d + k], {w}[:, :, k]) for k in range({k})]) for d in range({depth})], dim=2)"


C2 = np_conv2d
T(
    "test_sd_big_conv",
    "conv2d(a, b, padding=1)",
    (1, 16, 8, 8),
    (32, 16, 3, 3),
    ref=lambda a, b: C2(a, b, padding=1),
    note="(1, 256, 64, 64) and (512, 256, 3, 3) made smaller",
)
T("test_large_bs_conv", "conv2d(a, b)", (64, 3, 3, 3), (1, 3, 3, 3), ref=C2, note="a batch of 4096 made 64")
T("test_large_ic_conv", "conv2d(a, b)", (1, 256, 3, 3), (1, 256, 3, 3), ref=C2, note="2048 channels made 256")
T(
    "test_biased_conv2d",
    "conv2d(relu(conv2d(a, b, c)), b, c)",
    (1, 3, 5, 5),
    (3, 3, 1, 1),
    (3,),
    ref=lambda a, b, c: C2(np.maximum(C2(a, b, c), 0), b, c),
)
T("test_simple_conv2d", "conv2d(a, b)", (1, 4, 9, 9), (4, 4, 3, 3), ref=C2)
T("test_simple_conv2d_bias", "conv2d(a, b, c)", (1, 4, 9, 9), (4, 4, 3, 3), (4,), ref=C2)
T(
    "test_simple_conv3d",
    conv3d("a", "b", 7),
    (1, 4, 9, 9, 9),
    (4, 4, 3, 3, 3),
    ref=np_conv3d,
    torch="torch.nn.functional.conv3d(a, b)",
    note="DG has 2-d convolutions: conv3d as sums of them",
)
T(
    "test_padded_conv3d",
    conv3d("pad(a, (1, 1, 1, 1, 1, 1))", "b", 5),
    (1, 4, 5, 5, 5),
    (4, 4, 3, 3, 3),
    ref=lambda a, b: np_conv3d(a, b, 1),
    torch="torch.nn.functional.conv3d(a, b, padding=1)",
)
T("test_simple_conv2d_m4", "conv2d(a, b)", (1, 16, 9, 9), (16, 16, 3, 3), ref=C2)
T("test_simple_conv2d_1x1", "conv2d(a, b)", (1, 4, 9, 9), (4, 4, 1, 1), ref=C2)
T("test_simple_conv2d_1x1_m4", "conv2d(a, b)", (1, 16, 32, 32), (16, 16, 1, 1), ref=C2)
T(
    "test_nested_conv2d",
    "conv2d(relu(conv2d(a, b)), c)",
    (1, 8, 9, 9),
    (8, 8, 3, 3),
    (8, 8, 3, 3),
    ref=lambda a, b, c: C2(np.maximum(C2(a, b), 0), c),
    note="32 channels made 8",
)
T(
    "test_simple_conv2d_nhwc",
    "conv2d(a.permute(0, 3, 1, 2), b.permute(3, 2, 0, 1))",
    (2, 9, 9, 10),
    (3, 3, 10, 20),
    ref=lambda a, b: C2(a.transpose(0, 3, 1, 2), b.transpose(3, 2, 0, 1)),
)
T("test_simple_conv2d_batched", "conv2d(a, b)", (2, 4, 9, 9), (4, 4, 3, 3), ref=C2)
T("test_simple_conv_transpose2d", "conv_transpose2d(a, b)", (2, 4, 9, 9), (4, 4, 3, 3), ref=np_conv_transpose2d)
T(
    "test_bias_conv_transpose2d",
    "conv_transpose2d(a, b, c)",
    (2, 4, 9, 9),
    (4, 4, 3, 3),
    (4,),
    ref=lambda a, b, c: np_conv_transpose2d(a, b) + c.reshape(1, 4, 1, 1),
)
T(
    "test_grouped_conv_transpose2d",
    "conv_transpose2d(a, b, groups=2)",
    (2, 4, 9, 9),
    (4, 2, 3, 3),
    ref=lambda a, b: np.concatenate(
        [np_conv_transpose2d(a[:, :2], b[:2]), np_conv_transpose2d(a[:, 2:], b[2:])], axis=1
    ),
)
T(
    "test_padded_conv_transpose2d",
    "conv_transpose2d(a, b, padding=(1, 2))",
    (2, 4, 9, 9),
    (4, 4, 3, 3),
    ref=lambda a, b: np_conv_transpose2d(a, b)[:, :, 1:-1, 2:-2],
)
T(
    "test_dilated_conv_transpose2d",
    "conv_transpose2d(a, b, dilation=2)",
    (2, 4, 9, 9),
    (4, 4, 3, 3),
    ref=lambda a, b: np_conv_transpose2d(a, b, dilation=2),
)
T(
    "test_strided_conv_transpose2d",
    "conv_transpose2d(a, b, stride=(2, 1))",
    (2, 4, 4, 5),
    (4, 4, 3, 3),
    ref=lambda a, b: np_conv_transpose2d_strided(a, b, (2, 1)),
)
T(
    "test_output_padded_conv_transpose2d",
    "conv_transpose2d(a, b, c, output_padding=(1, 1), stride=(2, 3))",
    (2, 4, 6, 5),
    (4, 4, 3, 3),
    (4,),
    ref=lambda a, b, c: np_conv_transpose2d(a, b, (2, 3), output_padding=1) + c.reshape(1, 4, 1, 1),
)
T(
    "test_simple_conv_transpose3d",
    conv3d("pad(a, (2, 2, 2, 2, 2, 2))", "b.flip((2, 3, 4)).transpose(0, 1)", 7),
    (2, 4, 5, 5, 5),
    (4, 4, 3, 3, 3),
    ref=lambda a, b: np_conv3d(
        np.pad(a, ((0, 0),) * 2 + ((2, 2),) * 3), b[:, :, ::-1, ::-1, ::-1].transpose(1, 0, 2, 3, 4)
    ),
    torch="torch.nn.functional.conv_transpose3d(a, b)",
)
T("test_conv1d", "conv1d(a, b, groups=2)", (2, 4, 11), (6, 2, 3), ref=lambda a, b: np_conv1d(a, b, groups=2))
T(
    "test_simple_padding_conv1d",
    "conv1d(a, b, padding=1)",
    (2, 4, 11),
    (6, 4, 3),
    ref=lambda a, b: np_conv1d(a, b, padding=1),
)
T(
    "test_strided_conv1d_simple",
    "conv1d(a, b, stride=2)",
    (2, 1, 5),
    (1, 1, 2),
    ref=lambda a, b: np_conv1d(a, b, stride=2),
)
T(
    "test_asymmetric_padding_conv1d",
    "conv1d(pad(a, (1, 2)), b)",
    (1, 1, 5),
    (1, 1, 3),
    ref=lambda a, b: np_conv1d(np.pad(a, ((0, 0), (0, 0), (1, 2))), b),
    torch="torch.nn.functional.conv1d(torch.nn.functional.pad(a, (1, 2)), b)",
)
T("test_conv2d", "conv2d(a, b, groups=2)", (2, 4, 5, 7), (6, 2, 2, 3), ref=lambda a, b: C2(a, b, groups=2))
T("test_conv2d_bs_4_cin_3", "conv2d(a, b)", (4, 3, 5, 7), (6, 3, 2, 3), ref=C2)
T("test_conv2d_bs_1_cin_1", "conv2d(a, b)", (1, 1, 5, 7), (6, 1, 2, 3), ref=C2)
T("test_conv2d_bs_4_cin_1", "conv2d(a, b)", (4, 1, 5, 7), (6, 1, 2, 3), ref=C2)
E("test_conv2d_errors", "conv2d(a, b)", (2, 16, 2, 2), (32, 16, 3, 3))
T("test_large_input_conv2d", "conv2d(a, b)", (2, 3, 64, 64), (6, 3, 3, 3), ref=C2)
T(
    "test_simple_grouped_conv2d",
    "conv2d(a, b, groups=2)",
    (1, 2, 1, 1),
    (2, 1, 1, 1),
    ref=lambda a, b: C2(a, b, groups=2),
)
T(
    "test_medium_grouped_conv2d",
    "conv2d(a, b, groups=2)",
    (1, 4, 1, 1),
    (4, 2, 1, 1),
    ref=lambda a, b: C2(a, b, groups=2),
)
T("test_depthwise_conv2d", "conv2d(a, b, groups=8)", (1, 8, 32, 32), (8, 1, 1, 1), ref=lambda a, b: C2(a, b, groups=8))
T("test_grouped_conv2d", "conv2d(a, b, groups=4)", (2, 8, 5, 5), (8, 2, 3, 3), ref=lambda a, b: C2(a, b, groups=4))
T("test_fancy_conv2d", "conv2d(a, b, groups=3)", (2, 3, 11, 28), (6, 1, 3, 3), ref=lambda a, b: C2(a, b, groups=3))
T(
    "test_strided_conv2d_simple",
    "conv2d(a, b, stride=2)",
    (2, 1, 5, 1),
    (1, 1, 2, 1),
    ref=lambda a, b: C2(a, b, stride=2),
)
T(
    "test_strided_conv2d_simple_vec",
    "conv2d(a, b, stride=2)",
    (2, 1, 5, 1),
    (1, 1, 2, 1),
    ref=lambda a, b: C2(a, b, stride=2),
)
T(
    "test_strided_conv2d",
    "conv2d(a, b, stride=(2, 1))",
    (4, 3, 11, 28),
    (4, 3, 3, 3),
    ref=lambda a, b: C2(a, b, stride=(2, 1)),
)
T(
    "test_negative_padding_conv2d",
    "conv2d(a[:, :, 1:-1, 1:-1], b)",
    (1, 1, 10, 10),
    (1, 1, 3, 3),
    ref=lambda a, b: C2(a[:, :, 1:-1, 1:-1], b),
    note="a negative padding cuts: DG indexes (as PyTorch 2.13 must)",
)
T(
    "test_simple_padding_conv2d",
    "conv2d(a, b, padding=1)",
    (1, 1, 4, 4),
    (1, 1, 3, 3),
    ref=lambda a, b: C2(a, b, padding=1),
)
T(
    "test_asymmetric_padding_conv2d",
    "conv2d(pad(a, (1, 2, 0, 1)), b)",
    (1, 1, 8, 8),
    (1, 1, 3, 3),
    ref=lambda a, b: C2(np.pad(a, ((0, 0), (0, 0), (0, 1), (1, 2))), b),
    torch="torch.nn.functional.conv2d(torch.nn.functional.pad(a, (1, 2, 0, 1)), b)",
)
T(
    "test_padded_conv2d_p21",
    "conv2d(a, b, padding=(2, 1))",
    (4, 3, 11, 28),
    (4, 3, 3, 3),
    ref=lambda a, b: C2(a, b, padding=(2, 1)),
)
T(
    "test_padded_conv2d_p22",
    "conv2d(a, b, padding=(2, 2))",
    (4, 3, 11, 28),
    (4, 3, 3, 3),
    ref=lambda a, b: C2(a, b, padding=2),
)
T(
    "test_padded_conv2d_1x1",
    "conv2d(a, b, padding=(1, 1))",
    (4, 3, 11, 28),
    (4, 3, 1, 1),
    ref=lambda a, b: C2(a, b, padding=1),
)
T(
    "test_padded_conv2d_bs1",
    "conv2d(a, b, padding=(1, 1))",
    (1, 3, 11, 28),
    (4, 3, 3, 3),
    ref=lambda a, b: C2(a, b, padding=1),
)
T("test_padding_add", "a + pad(b, (2, 2, 2, 2))", (64, 64), (60, 60), ref=lambda a, b: a + np.pad(b, 2))
T(
    "test_dilated_conv2d",
    "conv2d(a, b, dilation=(2, 3))",
    (4, 3, 11, 28),
    (4, 3, 3, 3),
    ref=lambda a, b: C2(a, b, dilation=(2, 3)),
)
P = np_pool
T("test_max_pool2d_simple", "max_pool2d(a, (1, 2), stride=(1, 2))", (1, 1, 2, 3), ref=lambda a: P(a, (1, 2)))
T("test_max_pool2d", "max_pool2d(a, (3, 2))", (32, 2, 11, 28), ref=lambda a: P(a, (3, 2)))
T("test_max_pool2d_padding", "max_pool2d(a, (3, 3), padding=1)", (4, 2, 11, 28), ref=lambda a: P(a, 3, padding=1))
T(
    "test_max_pool2d_asymmetric_padding",
    "max_pool2d(pad(a, (0, 1, 1, 0), value=-inf), (2, 2))",
    (4, 2, 11, 28),
    ref=lambda a: P(np.pad(a, ((0, 0), (0, 0), (1, 0), (0, 1)), constant_values=-np.inf), 2),
    torch="torch.nn.functional.max_pool2d(torch.nn.functional.pad(a, (0, 1, 1, 0), value=-math.inf), (2, 2))",
)
T("test_max_pool2d_padding_int", "max_pool2d(a, (2, 2), padding=1)", (4, 2, 11, 28), ref=lambda a: P(a, 2, padding=1))
T(
    "test_max_pool2d_bigger_stride",
    "max_pool2d(a, (2, 2), stride=(2, 3))",
    (4, 2, 11, 28),
    ref=lambda a: P(a, 2, (2, 3)),
)
T(
    "test_max_pool2d_bigger_stride_dilation",
    "max_pool2d(a, 2, stride=3, dilation=2)",
    (4, 2, 11, 28),
    ref=lambda a: P(a, 2, 3, dilation=2),
)
T("test_max_pool2d_unit_stride", "max_pool2d(a, (5, 5), stride=1)", (3, 2, 17, 14), ref=lambda a: P(a, 5, 1))
T(
    "test_max_pool2d_smaller_stride",
    "max_pool2d(a, (5, 5), stride=(2, 3))",
    (3, 2, 17, 14),
    ref=lambda a: P(a, 5, (2, 3)),
)
T(
    "test_max_pool2d_dilation",
    "max_pool2d(a, 3, stride=1, dilation=(2, 3))",
    (3, 2, 17, 14),
    ref=lambda a: P(a, 3, 1, dilation=(2, 3)),
)
T(
    "test_max_pool2d_ceil_mode",
    "max_pool2d(a, 2, ceil_mode=True)",
    (1, 1, 5, 5),
    ref=lambda a: P(np.pad(a, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf), 2),
)
T(
    "test_max_pool2d_ceil_mode_output_size_reduce_by_one",
    "max_pool2d(a, 3, stride=3, padding=1, ceil_mode=True)",
    (1, 1, 5, 5),
    ref=lambda a: P(np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf), 3, 3),
)
T(
    "test_max_pool2d_return_indices",
    "max_pool2d(a, 2, return_indices=True)[1]",
    (2, 3, 6, 6),
    ref=lambda a: np_pool_indices(a, 2),
    grad=False,
)
# unpooling puts each value back at its position: a sum over windows of (position == index) * value
UNPOOL = (
    "values, index = max_pool2d(a, 2, return_indices=True)\n"
    "out = where(index.reshape(2, 3, 9, 1) == arange(36), values.reshape(2, 3, 9, 1), 0.0).sum(dim=2).reshape(2, 3, 6, 6)"
)
T(
    "test_max_unpool2d",
    UNPOOL,
    (2, 3, 6, 6),
    ref=lambda a: np_unpool(a, 2),
    torch="torch.nn.functional.max_unpool2d(*torch.nn.functional.max_pool2d(a, 2, return_indices=True), 2)",
)
_WITH_INF = np.where(np.arange(216).reshape(2, 3, 6, 6) % 7 == 0, np.inf, np.arange(216.0).reshape(2, 3, 6, 6) % 11)
T(
    "test_max_unpool2d_inf",
    UNPOOL,
    V(_WITH_INF.tolist()),
    ref=lambda a: np_unpool(a, 2),
    grad=False,
    torch="torch.nn.functional.max_unpool2d(*torch.nn.functional.max_pool2d(a, 2, return_indices=True), 2)",
)
T("test_avg_pool2d", "avg_pool2d(a, (3, 3))", (32, 2, 11, 28), ref=lambda a: P(a, 3, kind="avg"))
T(
    "test_avg_pool2d_padding",
    "avg_pool2d(a, (3, 3), padding=1)",
    (4, 2, 11, 28),
    ref=lambda a: P(a, 3, padding=1, kind="avg"),
)
T(
    "test_avg_pool2d_asymmetric_padding",
    "avg_pool2d(pad(a, (0, 1, 1, 0)), (2, 2))",
    (4, 2, 11, 28),
    ref=lambda a: P(np.pad(a, ((0, 0), (0, 0), (1, 0), (0, 1))), 2, kind="avg"),
    torch="torch.nn.functional.avg_pool2d(torch.nn.functional.pad(a, (0, 1, 1, 0)), (2, 2))",
)
T(
    "test_avg_pool2d_padding_not_counted",
    "avg_pool2d(a, 3, stride=1, padding=1, count_include_pad=False)",
    (4, 2, 11, 28),
    ref=lambda a: P(a, 3, 1, 1, kind="avg") / P(np.ones_like(a), 3, 1, 1, kind="avg"),
)
T(
    "test_avg_pool2d_ceil_mode",
    "avg_pool2d(a, 2, ceil_mode=True)",
    (1, 1, 5, 5),
    ref=lambda a: np_average_inside(a, 2, 2, 0, 3),
    note="ceil_mode: the last window over its elements inside",
)
T(
    "test_avg_pool2d_ceil_mode_padding_not_counted",
    "avg_pool2d(a, 3, stride=3, padding=1, ceil_mode=True, count_include_pad=False)",
    (1, 1, 5, 5),
    ref=lambda a: np_average_inside(a, 3, 3, 1, 2),
)
T(
    "test_avg_pool2d_ceil_mode_output_size_reduce_by_one",
    "avg_pool2d(a, 3, stride=3, padding=1, ceil_mode=True)",
    (1, 1, 5, 5),
    ref=lambda a: P(a, 3, 3, 1, kind="avg"),
)
T(
    "test_avg_pool2d_ceil_mode_include_pad_output_size_reduce_by_one",
    "avg_pool2d(a, 3, stride=3, padding=1, ceil_mode=True, count_include_pad=True)",
    (1, 1, 5, 5),
    ref=lambda a: P(a, 3, 3, 1, kind="avg"),
)
T(
    "test_global_avg_pool2d",
    "a.mean(dim=(2, 3), keepdim=True)",
    (32, 2, 11, 28),
    ref=lambda a: a.mean(axis=(2, 3), keepdims=True),
    torch="torch.nn.functional.avg_pool2d(a, (11, 28))",
)
T(
    "test_avg_pool3d",
    "a.reshape(1, 1, 4, 2, 4, 2, 4, 2).mean(dim=(3, 5, 7))",
    (1, 1, 8, 8, 8),
    ref=lambda a: a.reshape(1, 1, 4, 2, 4, 2, 4, 2).mean(axis=(3, 5, 7)),
    torch="torch.nn.functional.avg_pool3d(a, 2)",
)


def np_conv_transpose2d_strided(x, w, stride):
    n, c, h, wd = x.shape
    sh, sw = stride
    spread_x = np.zeros((n, c, (h - 1) * sh + 1, (wd - 1) * sw + 1))
    spread_x[:, :, ::sh, ::sw] = x
    return np_conv_transpose2d(spread_x, w)


# ---- interpolation: NumPy's references worked out for the sizes -------------------------------------------
def np_linear(x, axis, size_out, align=False):
    lo, hi, w = interpolation(x.shape[axis], size_out, align)
    x = np.moveaxis(x, axis, -1)
    return np.moveaxis(x[..., lo] * (1 - np.array(w)) + x[..., hi] * np.array(w), -1, axis)


def nearest(size_in: int, size_out: int, exact: bool = False) -> list[int]:
    scale = size_in / size_out
    return [min(math.floor((i + 0.5 * exact) * scale), size_in - 1) for i in range(size_out)]


T(
    "test_interpolate_linear",
    "interpolate(a, size=(29,), mode='linear')",
    (2, 3, 52),
    ref=lambda a: np_linear(a, 2, 29),
)
T(
    "test_interpolate_linear_corners_aligned",
    "interpolate(a, size=(52,), mode='linear', align_corners=True)",
    (2, 3, 29),
    ref=lambda a: np_linear(a, 2, 52, True),
)
T(
    "test_interpolate_nearest",
    "interpolate(a, size=(9, 11))",
    (2, 3, 13, 10),
    ref=lambda a: a[:, :, nearest(13, 9)][:, :, :, nearest(10, 11)],
)
T(
    "test_interpolate_nearest_exact",
    "interpolate(a, size=(9, 11), mode='nearest-exact')",
    (2, 3, 13, 10),
    ref=lambda a: a[:, :, nearest(13, 9, True)][:, :, :, nearest(10, 11, True)],
)
T(
    "test_interpolate_bilinear",
    "interpolate(a, size=(9, 31), mode='bilinear')",
    (2, 3, 12, 20),
    ref=lambda a: np_linear(np_linear(a, 2, 9), 3, 31),
)
T(
    "test_interpolate_bilinear_corners_aligned",
    "interpolate(a, size=(9, 31), mode='bilinear', align_corners=True)",
    (2, 3, 12, 20),
    ref=lambda a: np_linear(np_linear(a, 2, 9, True), 3, 31, True),
)
T(
    "test_interpolate_trilinear",
    "interpolate(a, size=(3, 6, 4), mode='trilinear')",
    (2, 3, 5, 2, 8),
    ref=lambda a: np_linear(np_linear(np_linear(a, 2, 3), 3, 6), 4, 4),
)
T(
    "test_interpolate_trilinear_corners_aligned",
    "interpolate(a, size=(3, 6, 4), mode='trilinear', align_corners=True)",
    (2, 3, 5, 2, 8),
    ref=lambda a: np_linear(np_linear(np_linear(a, 2, 3, True), 3, 6, True), 4, 4, True),
)

# ---- joining, repeating, indexing ------------------------------------------------------------------------
T(
    "test_cat",
    "cat([a, b, c], dim=1)",
    (45, 65, 9),
    (45, 65, 9),
    (45, 65, 9),
    ref=lambda a, b, c: np.concatenate([a, b, c], 1),
)
T(
    "test_multicat",
    "cat([cat([a, b], dim=1), c], dim=1)",
    (45, 65),
    (45, 65),
    (45, 65),
    ref=lambda a, b, c: np.concatenate([a, b, c], 1),
)
T("test_stack", "stack([a, b, c], dim=2)", (5, 6, 3), (5, 6, 3), (5, 6, 3), ref=lambda a, b, c: np.stack([a, b, c], 2))
T("test_stack_max", "stack([a, b]).max(dim=0)[0]", V([1.0]), V([2.0]), ref=lambda a, b: np.maximum(a, b))
T("test_repeat", "a.repeat(2, 4, 3)", (4, 6, 3), ref=lambda a: np.tile(a, (2, 4, 3)))
T("test_repeat", "a.repeat(2, 3, 1, 2)", (4, 6, 3), ref=lambda a: np.tile(a, (2, 3, 1, 2)))
T("test_repeat_interleave", "a.repeat_interleave(2, 1)", (3, 3), ref=lambda a: np.repeat(a, 2, axis=1))
T("test_simple_repeat", "a.repeat(3, 3)", (3, 3), ref=lambda a: np.tile(a, (3, 3)))
T(
    "test_clip",
    "a.clamp(-2.5, 1.5)",
    V([-3.0, -2.5, 0, 1.5, 2]),
    ref=lambda a: np.clip(a, -2.5, 1.5),
    kink=True,
    note="on the boundaries: PyTorch's gradient, checked in the script",
)
T("test_clip", "a.clamp(-2.3, 1.2)", (45, 65), ref=lambda a: np.clip(a, -2.3, 1.2))
T(
    "test_matvecmat",
    "(a @ b).relu() @ c",
    (1, 128),
    (128, 128),
    (128, 128),
    ref=lambda a, b, c: np.maximum(a @ b, 0) @ c,
)
T("test_matvec", "(a @ b).relu()", (1, 128), (128, 128), ref=lambda a, b: np.maximum(a @ b, 0))
T("test_max_nan", "a.max()", V([1.0, math.nan]), ref=np.max, grad=False)
T(
    "test_inf_where",
    "where(a < 0, a, 1.0)",
    V(np.full((3, 3), math.inf).tolist()),
    ref=lambda a: np.where(a < 0, a, 1.0),
)
T("test_fancy_indexing_inf", "a[[0, 1, 2]]", V([math.inf, 1.0, -math.inf, 2.0]), ref=lambda a: a[[0, 1, 2]], grad=False)
IDX = (
    "A = (arange(2) - 1).reshape(2, 1, 1, 1, 1, 1)\nB = (arange(3) % 1).reshape(1, 3, 1, 1, 1, 1)\n"
    "C = (arange(4) * 3 - 5).reshape(1, 1, 4, 1, 1, 1)\nD = (arange(10) % 4).reshape(2, 1, 1, 5, 1, 1)\n"
    "E = (arange(6) % 1).reshape(1, 1, 1, 1, 6, 1)\n"
)
_I = {
    "A": (np.arange(2) - 1).reshape(2, 1, 1, 1, 1, 1),
    "B": (np.arange(3) % 1).reshape(1, 3, 1, 1, 1, 1),
    "C": (np.arange(4) * 3 - 5).reshape(1, 1, 4, 1, 1, 1),
    "D": (np.arange(10) % 4).reshape(2, 1, 1, 5, 1, 1),
    "E": (np.arange(6) % 1).reshape(1, 1, 1, 1, 6, 1),
}
X6 = (2, 5, 6, 5, 3, 4)
T(
    "test_slice_fancy_indexing_no_dim_collapse",
    IDX + "out = a[:, B, C, D, :]",
    X6,
    ref=lambda a: a[:, _I["B"], _I["C"], _I["D"], :],
)
T(
    "test_slice_fancy_indexing_dim_collapse_int",
    IDX + "out = a[1, B, C, D, E]",
    X6,
    ref=lambda a: a[1, _I["B"], _I["C"], _I["D"], _I["E"]],
)
T(
    "test_slice_fancy_indexing_dim_collapse_int",
    IDX + "out = a[A, B, 3, D, E]",
    X6,
    ref=lambda a: a[_I["A"], _I["B"], 3, _I["D"], _I["E"]],
)
T(
    "test_slice_fancy_indexing_dim_inject_none",
    IDX + "out = a[None, B, C, D, E]",
    X6,
    ref=lambda a: a[None, _I["B"], _I["C"], _I["D"], _I["E"]],
)
# PyTorch's order where ints and lists are separated by None: ints are taken first (x[1][...])
T(
    "test_slice_fancy_indexing_dim_inject_and_collapse",
    IDX + "out = a[1, B, None, D, 1]",
    X6,
    ref=lambda a: a[1][:, :, 1][_I["B"], None, _I["D"]],
)
T(
    "test_slice_fancy_indexing_dim_inject_and_collapse",
    IDX + "out = a[None, B, 2, D, None]",
    X6,
    ref=lambda a: a[:, 2][None, _I["B"], _I["D"], None],
)
T(
    "test_slice_fancy_indexing_with_tensors",
    'a[tensor([[0, 0, 0], [0, 0, 0]], dtype="int"), tensor(1, dtype="int")]',
    (2, 3),
    ref=lambda a: a[[[0, 0, 0], [0, 0, 0]], 1],
    torch="a[torch.tensor([[0, 0, 0], [0, 0, 0]]), torch.tensor(1)]",
)
T("test_slice_fancy_indexing_list_indices", "a[[0]]", X6, ref=lambda a: a[[0]], torch="a[((0,),)]")
T("test_slice_fancy_indexing_tuple_indices", "a[[[0]]]", X6, ref=lambda a: a[[[0]]], torch="a[(((0,),),)]")
T("test_slice_fancy_indexing_list_with_tensors", IDX + "out = a[A, 1]", X6, ref=lambda a: a[_I["A"], 1])
E("test_slice_fancy_indexing_errors", "a[[1, 2], [1, 2, 3]]", (5, 6))
_GATHER_INDEX = 'tensor([[[0, 2], [1, 0]], [[2, 2], [0, 1]]], dtype="int")'
T(
    "test_gather",
    f"a.gather(dim=1, index={_GATHER_INDEX})",
    (4, 5, 6),
    ref=lambda a: np.take_along_axis(a[:2, :, :2], np.array([[[0, 2], [1, 0]], [[2, 2], [0, 1]]]), 1),
    torch="a.gather(dim=1, index=torch.tensor([[[0, 2], [1, 0]], [[2, 2], [0, 1]]]))",
)
# scatter, one-hot: `hot[i, j, p, k]` is index[i, j, k] == p; an index with no place twice (PyTorch leaves repeats unspecified)
SCATTER = (
    "index = (arange(4).reshape(1, 4, 1) + arange(3).reshape(3, 1, 1) + arange(5)) % 5\n"
    "hot = index.reshape(3, 4, 1, 5) == arange(5).reshape(1, 1, 5, 1)\n"
    "hit = hot.any(dim=1)\n"
    "part = PART\n"
    "out = cat([cat([part, a[:3, :, 5:]], dim=2), a[3:]], dim=0)"
)
_INDEX = (np.arange(4).reshape(1, 4, 1) + np.arange(3).reshape(3, 1, 1) + np.arange(5)) % 5
_TORCH_INDEX = "(torch.arange(4).reshape(1, 4, 1) + torch.arange(3).reshape(3, 1, 1) + torch.arange(5)) % 5"


def np_scatter(a, values, combine):
    out = a.copy()
    for i in range(3):
        for j in range(4):
            for k in range(5):
                out[i, _INDEX[i, j, k], k] = combine(out[i, _INDEX[i, j, k], k], values(i, j, k))
    return out


T(
    "test_scatter",
    SCATTER.replace("PART", "where(hit, (hot * b[:3, :4, :5].reshape(3, 4, 1, 5)).sum(dim=1), a[:3, :, :5])"),
    (4, 5, 6),
    (4, 5, 6),
    ref=lambda a, b: np_scatter(a, lambda i, j, k: b[i, j, k], lambda old, new: new),
    torch=f"a.scatter(1, {_TORCH_INDEX}, b[:3, :4, :5])",
)
T(
    "test_scatter_add",
    SCATTER.replace("PART", "where(hit, a[:3, :, :5] + inf, a[:3, :, :5])"),
    (4, 5, 6),
    ref=lambda a: np_scatter(a, lambda i, j, k: np.inf, np.add),
    grad=False,
    torch=f"a.scatter(1, {_TORCH_INDEX}, math.inf, reduce='add')",
)
T(
    "test_scatter_mul",
    SCATTER.replace("PART", "where(hit, a[:3, :, :5] * inf, a[:3, :, :5])"),
    (4, 5, 6),
    ref=lambda a: np_scatter(a, lambda i, j, k: np.inf, np.multiply),
    grad=False,
    torch=f"a.scatter(1, {_TORCH_INDEX}, math.inf, reduce='multiply')",
)
T(
    "test_scatter_reduce",
    SCATTER.replace("PART", "a[:3, :, :5] + (hot * b[:3, :4, :5].reshape(3, 4, 1, 5)).sum(dim=1)"),
    (4, 5, 6),
    (4, 5, 6),
    ref=lambda a, b: np_scatter(a, lambda i, j, k: b[i, j, k], np.add),
    torch=f"a.scatter_reduce(1, {_TORCH_INDEX}, b[:3, :4, :5], reduce='sum')",
)
T(
    "test_scatter_reduce",
    SCATTER.replace("PART", "maximum(a[:3, :, :5], where(hot, b[:3, :4, :5].reshape(3, 4, 1, 5), -inf).max(1)[0])"),
    (4, 5, 6),
    (4, 5, 6),
    ref=lambda a, b: np_scatter(a, lambda i, j, k: b[i, j, k], np.maximum),
    torch=f"a.scatter_reduce(1, {_TORCH_INDEX}, b[:3, :4, :5], reduce='amax')",
)
T(
    "test_scatter_reduce_prod_zeros",
    SCATTER.replace("PART", "a[:3, :, :5] * where(hot, b[:3, :4, :5].reshape(3, 4, 1, 5) * 0, 1.0).prod(dim=1)"),
    (4, 5, 6),
    (4, 5, 6),
    ref=lambda a, b: np_scatter(a, lambda i, j, k: 0.0, np.multiply),
    torch=f"a.scatter_reduce(1, {_TORCH_INDEX}, b[:3, :4, :5] * 0, reduce='prod')",
)

# ---- attention and losses ---------------------------------------------------------------------------------
ATTENTION = "softmax(a @ b.transpose(2, 3) / sqrt(8) MASK, -1) @ c"


def np_attention(q, k, v, mask=0.0):
    return np_softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(8) + mask, -1) @ v


_Q = (2, 2, 4, 8)
T(
    "test_scaled_dot_product_attention",
    ATTENTION.replace(" MASK", " + d"),
    _Q,
    _Q,
    _Q,
    (2, 2, 4, 4),
    ref=np_attention,
    torch="torch.nn.functional.scaled_dot_product_attention(a, b, c, d)",
    note="(32, 8, 16, 64) made (2, 2, 4, 8)",
)
T(
    "test_scaled_dot_product_attention_mismatch_ls",
    ATTENTION.replace(" MASK", ""),
    (2, 2, 3, 8),
    _Q,
    _Q,
    ref=np_attention,
    torch="torch.nn.functional.scaled_dot_product_attention(a, b, c)",
)
T(
    "test_scaled_dot_product_attention_causal",
    ATTENTION.replace(" MASK", " + where(tril(ones(4, 4)) == 1, 0.0, -inf)"),
    _Q,
    _Q,
    _Q,
    ref=lambda q, k, v: np_attention(q, k, v, np.where(np.tril(np.ones((4, 4))) == 1, 0.0, -np.inf)),
    torch="torch.nn.functional.scaled_dot_product_attention(a, b, c, is_causal=True)",
)
_GQA = "softmax(a @ b.unsqueeze(2).repeat(1, 1, 2, 1, 1).reshape(2, 4, 4, 8).transpose(2, 3) / sqrt(8), -1) @ c.unsqueeze(2).repeat(1, 1, 2, 1, 1).reshape(2, 4, 4, 8)"
T(
    "test_scaled_dot_product_attention_gqa",
    _GQA,
    (2, 4, 4, 8),
    _Q,
    _Q,
    ref=lambda q, k, v: np_attention(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1)),
    torch="torch.nn.functional.scaled_dot_product_attention(a, b, c, enable_gqa=True)",
)
E(
    "test_scaled_dot_product_attention_gqa_errors",
    _GQA.replace("reshape(2, 4, 4, 8)", "reshape(2, 3, 4, 8)"),
    (2, 3, 4, 8),
    _Q,
    _Q,
)
BCE = "-(b.clamp(0, 1) * log(sigmoid(a)) + (1 - b.clamp(0, 1)) * log(1 - sigmoid(a)))"


def np_bce(x, y, pos=1.0):
    y = np.clip(y, 0, 1)
    return -(pos * y * np.log(sigmoid(x)) + (1 - y) * np.log(1 - sigmoid(x)))


T(
    "test_binary_crossentropy",
    f"({BCE}).mean()",
    (32, 10),
    (32, 10),
    ref=lambda a, b: np_bce(a, b).mean(),
    torch="torch.nn.functional.binary_cross_entropy(a.sigmoid(), b.clip(0, 1))",
)
T(
    "test_binary_crossentropy_reductions",
    f"({BCE}).sum()",
    (32, 10),
    (32, 10),
    ref=lambda a, b: np_bce(a, b).sum(),
    torch="torch.nn.functional.binary_cross_entropy(a.sigmoid(), b.clip(0, 1), reduction='sum')",
)
T(
    "test_binary_crossentropy_logits_pos_weights",
    f"({BCE.replace('-(b.clamp', '-(c * b.clamp', 1)}).mean()",
    (32, 10),
    (32, 10),
    (10,),
    low=0.1,
    ref=lambda a, b, c: np_bce(a, b, c).mean(),
    torch="torch.nn.functional.binary_cross_entropy_with_logits(a, b.clip(0, 1), pos_weight=c.detach())",
)
T(
    "test_cross_entropy_class_probabilities",
    "-(b * log_softmax(a, 0)).sum()",
    (32,),
    (32,),
    ref=lambda a, b: -(b * np_log_softmax(a, 0)).sum(),
    torch="torch.nn.functional.cross_entropy(a, b)",
)
_CLASSES = [i % 10 for i in range(0, 96, 3)]
T(
    "test_cross_entropy_class_indices",
    f'-log_softmax(a, 1)[arange(32), tensor({_CLASSES}, dtype="int")].mean()',
    (32, 10),
    ref=lambda a: -np_log_softmax(a, 1)[np.arange(32), _CLASSES].mean(),
    torch=f"torch.nn.functional.cross_entropy(a, torch.tensor({_CLASSES}))",
)
T(
    "test_cross_entropy_reductions",
    "-(b * log_softmax(a, 1)).sum(dim=1)",
    (32, 10),
    (32, 10),
    ref=lambda a, b: -(b * np_log_softmax(a, 1)).sum(1),
    torch="torch.nn.functional.cross_entropy(a, b, reduction='none')",
)
T(
    "test_cross_entropy_smoothing",
    "-((b * 0.8 + 0.2 / 10) * log_softmax(a, 1)).sum(dim=1).mean()",
    (32, 10),
    (32, 10),
    ref=lambda a, b: -((b * 0.8 + 0.02) * np_log_softmax(a, 1)).sum(1).mean(),
    torch="torch.nn.functional.cross_entropy(a, b, label_smoothing=0.2)",
)
_C12 = [i % 10 for i in range(0, 60, 5)]
T(
    "test_sparse_categorical_crossentropy",
    f'-log_softmax(a, 1)[arange(12), tensor({_C12}, dtype="int")].mean()',
    (12, 10),
    ref=lambda a: -np_log_softmax(a, 1)[np.arange(12), _C12].mean(),
    torch=f"torch.nn.CrossEntropyLoss()(a, torch.tensor({_C12}))",
)
T(
    "test_sparse_categorical_crossentropy_reductions",
    f'-log_softmax(a, 1)[arange(12), tensor({_C12}, dtype="int")].sum()',
    (12, 10),
    ref=lambda a: -np_log_softmax(a, 1)[np.arange(12), _C12].sum(),
    torch=f"torch.nn.CrossEntropyLoss(reduction='sum')(a, torch.tensor({_C12}))",
)
_KEEP = f'(tensor({_C12}, dtype="int") != 5)'
T(
    "test_sparse_categorical_crossentropy_ignore_index",
    f'-(log_softmax(a, 1)[arange(12), tensor({_C12}, dtype="int")] * {_KEEP}).sum() / {_KEEP}.sum()',
    (12, 10),
    ref=lambda a: (
        -(np_log_softmax(a, 1)[np.arange(12), _C12] * (np.array(_C12) != 5)).sum() / (np.array(_C12) != 5).sum()
    ),
    torch=f"torch.nn.CrossEntropyLoss(ignore_index=5)(a, torch.tensor({_C12}))",
)
T(
    "test_sparse_categorical_crossentropy_label_smoothing",
    f'(0.9 * -log_softmax(a, 1)[arange(12), tensor({_C12}, dtype="int")] - 0.1 * log_softmax(a, 1).mean(dim=1)).mean()',
    (12, 10),
    ref=lambda a: (0.9 * -np_log_softmax(a, 1)[np.arange(12), _C12] - 0.1 * np_log_softmax(a, 1).mean(1)).mean(),
    torch=f"torch.nn.CrossEntropyLoss(label_smoothing=0.1)(a, torch.tensor({_C12}))",
)
_T32 = [i % 10 for i in range(0, 64, 2)]
NLL = f'-log_softmax(a, 1).gather(1, tensor({_T32}, dtype="int").reshape(32, 1)).reshape(32)'
T(
    "test_nll_loss",
    f"({NLL}).mean()",
    (32, 10),
    ref=lambda a: -np_log_softmax(a, 1)[np.arange(32), _T32].mean(),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), torch.tensor({_T32}))",
)
_T3 = "(arange(2 * 27) % 10).reshape(2, 1, 3, 3, 3)"
T(
    "test_nll_loss_3d",
    f"-log_softmax(a, 1).gather(1, {_T3}).mean()",
    (2, 10, 3, 3, 3),
    ref=lambda a: -np.take_along_axis(np_log_softmax(a, 1), (np.arange(54) % 10).reshape(2, 1, 3, 3, 3), 1).mean(),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), ({_T3.replace('arange', 'torch.arange')}).reshape(2, 3, 3, 3))",
)
T(
    "test_nll_loss_reductions",
    f"({NLL}).sum()",
    (32, 10),
    ref=lambda a: -np_log_softmax(a, 1)[np.arange(32), _T32].sum(),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), torch.tensor({_T32}), reduction='sum')",
)
_W = f'b[tensor({_T32}, dtype="int")]'
T(
    "test_nll_loss_weight",
    f"({NLL} * {_W}).sum() / {_W}.sum()",
    (32, 10),
    (10,),
    low=0.5,
    ref=lambda a, b: (-np_log_softmax(a, 1)[np.arange(32), _T32] * b[_T32]).sum() / b[_T32].sum(),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), torch.tensor({_T32}), weight=b.detach())",
)
T(
    "test_nll_loss_3d_weight",
    f"(-log_softmax(a, 1).gather(1, {_T3}) * b[{_T3}]).sum() / b[{_T3}].sum()",
    (2, 10, 3, 3, 3),
    (10,),
    low=0.5,
    ref=lambda a, b: (
        (
            -np.take_along_axis(np_log_softmax(a, 1), (np.arange(54) % 10).reshape(2, 1, 3, 3, 3), 1)
            * b[(np.arange(54) % 10).reshape(2, 1, 3, 3, 3)]
        ).sum()
        / b[(np.arange(54) % 10)].sum()
    ),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), ({_T3.replace('arange', 'torch.arange')}).reshape(2, 3, 3, 3), weight=b.detach())",
)
_KEEP32 = f'(tensor({_T32}, dtype="int") != 1)'
T(
    "test_nll_loss_ignore_index",
    f"({NLL} * {_KEEP32}).sum() / {_KEEP32}.sum()",
    (32, 10),
    ref=lambda a: (
        (-np_log_softmax(a, 1)[np.arange(32), _T32] * (np.array(_T32) != 1)).sum() / (np.array(_T32) != 1).sum()
    ),
    torch=f"torch.nn.functional.nll_loss(torch.nn.functional.log_softmax(a, dim=1), torch.tensor({_T32}), ignore_index=1)",
)
T(
    "test_one_hot",
    '(tensor([1, 2, 4], dtype="int").reshape(3, 1) == arange(6)) * 1',
    ref=lambda: np.eye(6, dtype=int)[[1, 2, 4]],
    grad=False,
    torch="torch.nn.functional.one_hot(torch.tensor([1, 2, 4]), 6)",
)
T(
    "test_masked_fill",
    "where(a > 0.1, -inf, a)",
    (32, 10),
    ref=lambda a: np.where(a > 0.1, -np.inf, a),
    torch="a.masked_fill(a > 0.1, -math.inf)",
)
T("test_masked_select", "a[a > 0.5]", (32, 10), ref=lambda a: a[a > 0.5], torch="a.masked_select(a > 0.5)")
T(
    "test_masked_select_size",
    'cat([a[tensor([True, False, True, False, True, False, False, False, True], dtype="bool")], full((6,), -1.0)])[:6]',
    V([0.0, 1, 2, 3, 4, 5, 6, 7, 8]),
    ref=lambda a: np.array([0.0, 2, 4, 8, -1, -1]),
    grad=False,
    torch="torch.cat([a.masked_select(torch.tensor([True, False, True, False, True, False, False, False, True])), torch.full((6,), -1.0, dtype=torch.float64)])[:6]",
)
NONZERO = "stack([(arange(32).reshape(32, 1) + 0 * arange(10))[a > 0.5], (0 * arange(32).reshape(32, 1) + arange(10))[a > 0.5]], dim=1)"
T("test_nonzero", NONZERO, (32, 10), ref=lambda a: np.argwhere(a > 0.5), grad=False, torch="(a > 0.5).nonzero()")
T(
    "test_nonzero_size",
    "cat([arange(5)[a != 0], full((5,), -1)])[:5].reshape(5, 1)",
    V([1.0, 0, 2, 0, 3]),
    ref=lambda a: np.array([[0], [2], [4], [-1], [-1]]),
    grad=False,
    torch="torch.cat([torch.arange(5)[a != 0], torch.full((5,), -1)])[:5].reshape(5, 1)",
)
T("test_cast", "a * 1.0", (3, 3), ref=lambda a: a, torch="a.float()", note="DG's floats are float64 already")
T(
    "test_int_or",
    "-1 + 0 * a",
    I([0]),
    ref=lambda a: np.array([0], dtype=np.int32) | np.int32(-1),
    grad=False,
    torch="a | -1",
    note="0 | 0xFFFFFFFF as int32 is -1: every bit set",
)
T(
    "TestOpsUint8.test_interpolate_nearest",
    f"a[:, :, {nearest(13, 9)}]",
    I(np.arange(2 * 3 * 13).reshape(2, 3, 13).tolist()),
    ref=lambda a: a[:, :, nearest(13, 9)],
    grad=False,
    torch="torch.nn.functional.interpolate(a.double(), size=(9,)).long()",
)
T(
    "TestOpsUint8.test_interpolate_nearest_exact",
    f"a[:, :, {nearest(13, 9, True)}]",
    I(np.arange(2 * 3 * 13).reshape(2, 3, 13).tolist()),
    ref=lambda a: a[:, :, nearest(13, 9, True)],
    grad=False,
    torch="torch.nn.functional.interpolate(a.double(), size=(9,), mode='nearest-exact').long()",
)
T("TestOpsUint8.test_min", "a.min()", I([0, 128, 255, 64, 32, 16]), ref=np.min, grad=False)

# tinygrad's file at the commit read (a9069c1, August 2026) has 427 tests: 421 in TestOps, 6 in TestOpsUint8
TINYGRAD_TESTS = 427
UNWRITABLE = {
    "test_gemm_fp16": "DG computes in float64 only: a product in float16 cannot be written",
    "test_bitcast": "reads a float's bits as an int32: DG has no bit-level view of a value",
    "test_scatter_no_reduce_tensor_src": "checks an argument check of tinygrad's scatter, a function DG does not have",
    "test_scatter_reduce_errors": "checks argument checks of scatter_reduce, a function DG does not have",
    "TestOpsUint8.test_cast": "casts to uint8 (wrapping around): DG has float, int and bool tensors only",
    "TestOpsUint8.test_cast_relu": "casts to uint8: DG has float, int and bool tensors only",
    "TestOpsUint8.test_interpolate_bilinear": "interpolates uint8 images, rounding to uint8: DG has no uint8",
}
