"""asin, acos and atan (autograd/trigonometry.py) against the numbers PyTorch 2.13.0 printed (CPU,
float64): their values, and their first and second derivatives (torch.autograd.grad with
create_graph=True, then again), at points across their domains; and what they give at its ends
and outside it. tests/engine/test_gradients.py checks them against central differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dglang import autograd
from dglang.autograd import gradient, tensor
from dglang.interpreter.host.session import Session

inf, nan = math.inf, math.nan
POINTS = [-0.9, -0.5, 0.0, 0.3, 0.99]
PYTORCH = {  # value, first derivative, second derivative at POINTS
    "asin": (
        [-1.1197695149986342, -0.5235987755982989, 0.0, 0.30469265401539747, 1.4292568534704693],
        [2.294157338705618, 1.1547005383792517, 1.0, 1.0482848367219182, 7.088812050083354],
        [-10.867061078079246, -0.7698003589195014, 0.0, 0.3455884077105224, 352.6594939488699],
    ),
    "acos": (
        [2.6905658417935308, 2.0943951023931957, 1.5707963267948966, 1.2661036727794992, 0.1415394733244273],
        [-2.294157338705618, -1.1547005383792517, -1.0, -1.0482848367219182, -7.088812050083354],
        [10.867061078079246, 0.7698003589195014, -0.0, -0.3455884077105224, -352.6594939488699],
    ),
    "atan": (
        [-0.7328151017865066, -0.4636476090008061, 0.0, 0.2914567944778671, 0.7803730800666359],
        [0.5524861878453039, 0.8, 1.0, 0.9174311926605504, 0.5050249987374376],
        [0.5494337779677055, 0.64, -0.0, -0.505007995959936, -0.5049994937125026],
    ),
}


@pytest.mark.parametrize("name", PYTORCH)
def test_values_and_two_derivatives_are_pytorch_s(name: str) -> None:
    value, first, second = PYTORCH[name]
    x = tensor(POINTS, requires_grad=True)
    out = getattr(autograd, name)(x)
    (g,) = gradient(out.sum(), [x])
    (g2,) = gradient(g.sum(), [x])
    np.testing.assert_allclose(out.data, value, rtol=1e-15, atol=0)
    np.testing.assert_allclose(g.data, first, rtol=1e-15, atol=0)
    np.testing.assert_allclose(g2.data, second, rtol=1e-14, atol=0)


def test_the_ends_of_the_domain_as_pytorch() -> None:
    with np.errstate(all="ignore"):  # as a DG run: nan and inf, without a warning
        # PyTorch: asin([-2., 1., -1., 2.]) is [nan, 1.5708, -1.5708, nan]; its gradient at 1 and -1 is inf
        assert np.array_equal(autograd.asin(tensor([-2.0, 1.0, -1.0, 2.0])).data, [nan, math.pi / 2, -math.pi / 2, nan],
                              equal_nan=True)  # fmt: skip
        x = tensor([1.0, -1.0], requires_grad=True)
        autograd.asin(x).sum().backward()
        assert x.grad.data.tolist() == [inf, inf]
    # PyTorch: atan([1e300, -inf, inf]) is [1.5708, -1.5708, 1.5708]
    assert autograd.atan(tensor([1e300, -inf, inf])).data.tolist() == [math.pi / 2, -math.pi / 2, math.pi / 2]


def test_a_program_takes_them_of_numbers_and_tensors() -> None:
    session = Session()
    session.run("a = asin(0.5)\nb = acos(tensor([0.5])).item()\nc = tensor(1.0).atan().item()\n")
    values = session.globals.vars
    assert values["a"] == math.asin(0.5)  # a number: Python's math
    # A tensor: NumPy's, whose loops for a CPU with AVX-512 may differ from the C library's in the last bit
    # (acos(0.5) is 1.0471975511965976 there, 1.0471975511965979 in math)
    assert (values["b"], values["c"]) == (np.arccos(np.array([0.5]))[0], np.arctan(np.float64(1.0)))
    assert math.isclose(values["b"], math.acos(0.5), rel_tol=1e-15) and math.isclose(values["c"], math.atan(1.0))
    assert type(values["a"]) is float
