"""tinygrad's operator tests, written in DG (the table: tests/support/tinygrad_cases.py).

Each row runs as a DG program in one session, with float64 inputs: its forward is compared
with the row's NumPy reference, and the gradient of a weighted sum of its result (fixed random
weights, so every output element counts) with central differences of the same program, along
two random directions for each input that requires grad (a wrong entry of a gradient shows in
almost every direction). Where a central difference is not a number (a result of inf, or a
kink at the very point: relu at 0), the gradient is left to bench/tinygrad_vs_torch.py, which
compares it with PyTorch's. A row that checks a refusal expects a DG error.
"""

from __future__ import annotations

import numpy as np
import pytest
from tinygrad_cases import CASES, TINYGRAD_TESTS, UNWRITABLE, Case

from dglang.autograd import Tensor, gradient
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session

EPS = 1e-6

SESSION = Session()


def run(case: Case, arrays: list[np.ndarray], requires_grad: bool = False) -> tuple[object, list[Tensor]]:
    """The row's program on these inputs: its `out`, and the input tensors."""
    inputs = [Tensor(x.copy(), requires_grad=requires_grad and x.dtype.kind == "f") for x in arrays]
    for name, t in zip("abcd", inputs, strict=False):
        SESSION.globals.vars[name] = t
    text = case.expr if "out =" in case.expr else f"out = {case.expr}"
    SESSION.run(text + "\n")
    return SESSION.globals.vars["out"], inputs


def loss_of(out: Tensor, weights: np.ndarray) -> Tensor:
    return (out * Tensor(weights)).sum()


# rows on infinities and NaNs (tinygrad's naninf, zero-power, log2-of-zero tests) compute them on purpose
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", CASES, ids=[f"{c.test}-{i}" for i, c in enumerate(CASES)])
def test_case(case: Case) -> None:
    arrays = case.arrays()
    if case.error:
        with pytest.raises(DGError):
            run(case, arrays)
        return
    out, inputs = run(case, arrays, requires_grad=case.grad)
    if case.reference is not None:
        expected = np.asarray(case.reference(*arrays))
        got = np.asarray(out.data if isinstance(out, Tensor) else out)
        assert got.shape == expected.shape, f"{case.test}: shape {got.shape}, NumPy {expected.shape}"
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=case.test)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=case.test)
    if not case.grad or case.kink or not isinstance(out, Tensor) or out.dtype != "float":
        return
    rng = np.random.default_rng(0)
    weights = rng.normal(size=out.shape)
    grads = gradient(loss_of(out, weights), inputs)
    for i, (x, g) in enumerate(zip(arrays, grads, strict=True)):
        if x.dtype.kind != "f" or x.size == 0:
            continue
        for _ in range(2):
            v = rng.normal(size=x.shape)
            difference = central_difference(case, arrays, i, v, weights)
            claimed = float((np.asarray(g.data) * v).sum())
            if not (np.isfinite(difference) and np.isfinite(claimed)):
                continue  # an inf at the point: left to the comparison with PyTorch
            scale = max(1.0, abs(difference))
            assert abs(claimed - difference) <= 1e-5 * scale, (
                f"{case.test}: input {'abcd'[i]}: gradient · v = {claimed}, central difference {difference}"
            )


def central_difference(case: Case, arrays: list[np.ndarray], i: int, v: np.ndarray, weights: np.ndarray) -> float:
    """The derivative of the weighted sum along v at input i, by central differences at eps and
    eps/2 combined (Richardson), so that steep functions (1/x near 0) are measured well."""

    def at(eps: float) -> float:
        ends = []
        for sign in (1, -1):
            shifted = [a if j != i else a + sign * eps * v for j, a in enumerate(arrays)]
            result, _ = run(case, shifted)
            ends.append(loss_of(result, weights).item())
        return (ends[0] - ends[1]) / (2 * eps)

    return (4 * at(EPS / 2) - at(EPS)) / 3


def test_the_count_of_tinygrad_s_tests() -> None:
    """Every test of tinygrad's file is in the table or among the unwritable ones, and at most 20 are unwritable."""
    ported = {c.test for c in CASES}
    assert ported.isdisjoint(UNWRITABLE)
    assert len(UNWRITABLE) <= 20, sorted(UNWRITABLE)
    assert len(ported) + len(UNWRITABLE) == TINYGRAD_TESTS
