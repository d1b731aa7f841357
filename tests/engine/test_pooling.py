"""Pooling's dilation, ceil_mode, count_include_pad, divisor_override and return_indices, and
unfold, PyTorch's F.unfold (autograd/pooling.py), as PyTorch 2.13.0 computes them (CPU, float64).

Every expected number is what PyTorch printed for X below (one image of two channels, 5×6, values
of torch.randn rounded to four places: no ties): `F.max_pool2d(X, **how)` or `F.avg_pool2d(X,
**how)` or `F.unfold(X, **how)`, and the gradient of `(out * w).sum()` for w = (arange(out.numel()) % 5 - 2). Derivatives
against central differences, first and second order; hostile arguments refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck_util import check_gradients

from dglang import autograd
from dglang.autograd import ShapeError, Tensor, TensorTypeError, TensorValueError
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session

# ruff: noqa: E501  (PyTorch's numbers, a row each)
# fmt: off
X = [[[-2.3104, -0.3733, -1.0608, 0.9995, -0.884, -1.2755], [-0.6232, -0.8664, -1.2956, 1.5236, 0.3237, 2.0177], [1.1357, -1.2269, 0.0714, 0.338, 0.1535, -0.6333], [-1.2609, -0.727, -0.02, 0.2103, 0.1772, -0.8305], [1.0112, -0.2427, -0.773, -1.5952, -0.687, 1.4881]], [[-0.4484, -0.891, -0.0917, 0.5563, -0.0094, -1.2177], [-1.2655, -1.1195, 1.1665, 0.9262, 0.6539, 0.1482], [-1.1461, 1.8728, 0.9946, 0.1149, 0.1447, 1.0742], [-1.1288, -0.0938, 0.9983, -0.0826, 0.8351, -0.2929], [-0.5787, -3.4796, 0.7495, -0.5606, 0.0742, 1.9936]]]
PYTORCH = [  # (function, its arguments, PyTorch's value, PyTorch's gradient)
    ('max_pool2d', {'kernel_size': 2, 'ceil_mode': True}, [[[[-0.3733, 1.5236, 2.0177], [1.1357, 0.338, 0.1772], [1.0112, -0.773, 1.4881]], [[-0.4484, 1.1665, 0.6539], [1.8728, 0.9983, 1.0742], [-0.5787, 0.7495, 1.9936]]]], [[[[0.0, -2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -2.0, 0.0], [-1.0, 0.0, 0.0, 0.0, 0.0, 1.0]], [[2.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, -2.0, 0.0, -1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [-2.0, 0.0, -1.0, 0.0, 0.0, 0.0]]]]),
    ('max_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'ceil_mode': True}, [[[[-0.3733, 1.5236, 2.0177, 2.0177], [1.1357, 1.5236, 2.0177, 2.0177], [1.0112, 0.2103, 1.4881, 1.4881]], [[-0.4484, 1.1665, 0.9262, 0.1482], [1.8728, 1.8728, 1.0742, 1.0742], [-0.0938, 0.9983, 1.9936, 1.9936]]]], [[[[0.0, -2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -3.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0, -3.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0, 0.0, -2.0], [0.0, -1.0, 0.0, 0.0, 0.0, 3.0], [0.0, -2.0, -1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]]]),
    ('max_pool2d', {'kernel_size': 2, 'stride': 1, 'dilation': 2}, [[[[1.1357, 0.9995, 0.1535, 0.9995], [-0.02, 1.5236, 0.3237, 2.0177], [1.1357, 0.338, 0.1535, 1.4881]], [[0.9946, 1.8728, 0.9946, 1.0742], [1.1665, 0.9262, 1.1665, 0.9262], [0.9946, 1.8728, 0.9946, 1.9936]]]], [[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -2.0, -1.0, 0.0], [-1.0, 0.0, 0.0, 2.0, -2.0, 0.0], [0.0, 0.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -1.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]]]),
    ('max_pool2d', {'kernel_size': (2, 3), 'stride': (2, 1), 'padding': (1, 1), 'dilation': (2, 2)}, [[[[1.5236, 0.3237, 2.0177, 0.3237], [1.5236, 0.3237, 2.0177, 0.3237], [0.2103, 0.1772, 0.2103, 0.1772]], [[0.9262, 1.1665, 0.9262, 1.1665], [0.9262, 1.1665, 0.9262, 1.1665], [-0.0826, 0.9983, -0.0826, 0.9983]]]], [[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -2.0, -1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]]),
    ('avg_pool2d', {'kernel_size': 2, 'ceil_mode': True}, [[[[-1.0433249999999998, 0.04167500000000002, 0.04547500000000004], [-0.519775, 0.149925, -0.283275], [0.38425000000000004, -1.1841, 0.40054999999999996]], [[-0.9310999999999999, 0.639325, -0.10625000000000001], [-0.12397499999999997, 0.5063, 0.4402750000000001], [-2.02915, 0.09445000000000003, 1.0339]]]], [[[[-0.5, -0.5, -0.25, -0.25, 0.0, 0.0], [-0.5, -0.5, -0.25, -0.25, 0.0, 0.0], [0.25, 0.25, 0.5, 0.5, -0.5, -0.5], [0.25, 0.25, 0.5, 0.5, -0.5, -0.5], [-0.5, -0.5, 0.0, 0.0, 0.5, 0.5]], [[0.5, 0.5, -0.5, -0.5, -0.25, -0.25], [0.5, 0.5, -0.5, -0.5, -0.25, -0.25], [0.0, 0.0, 0.25, 0.25, 0.5, 0.5], [0.0, 0.0, 0.25, 0.25, 0.5, 0.5], [-1.0, -1.0, -0.5, -0.5, 0.0, 0.0]]]]),
    ('avg_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'ceil_mode': True}, [[[[-0.46369999999999995, -0.11922222222222217, 0.3005555555555556, 0.12369999999999999], [-0.3965222222222222, -0.2214, 0.3644666666666667, 0.09231666666666667], [-0.13548888888888885, -0.3497333333333333, -0.13745555555555555, 0.10959999999999999]], [[-0.4138222222222222, 0.06075555555555556, 0.11750000000000001, -0.17825000000000002], [-0.32009999999999994, 0.5308222222222222, 0.3913, 0.15491666666666667], [-0.5867666666666667, -0.2743111111111111, 0.21853333333333336, 0.28345000000000004]]]], [[[[-0.2222222222222222, -0.3333333333333333, -0.1111111111111111, -0.1111111111111111, 0.0, 0.16666666666666666], [0.0, -0.3333333333333333, -0.3333333333333333, -0.4444444444444444, -0.1111111111111111, 0.05555555555555555], [0.2222222222222222, 0.0, -0.2222222222222222, -0.3333333333333333, -0.1111111111111111, -0.1111111111111111], [0.3333333333333333, 0.3333333333333333, 0.0, -0.3333333333333333, -0.3333333333333333, -0.5], [0.1111111111111111, 0.3333333333333333, 0.2222222222222222, 0.0, -0.2222222222222222, -0.38888888888888884]], [[0.0, 0.1111111111111111, 0.1111111111111111, 0.3333333333333333, 0.2222222222222222, -0.1111111111111111], [-0.1111111111111111, 0.0, 0.1111111111111111, 0.4444444444444444, 0.3333333333333333, 0.3333333333333333], [-0.1111111111111111, -0.1111111111111111, 0.0, 0.1111111111111111, 0.1111111111111111, 0.4444444444444444], [-0.3333333333333333, -0.4444444444444444, -0.1111111111111111, 0.0, 0.1111111111111111, 0.611111111111111], [-0.2222222222222222, -0.3333333333333333, -0.1111111111111111, -0.1111111111111111, 0.0, 0.16666666666666666]]]]),
    ('avg_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'ceil_mode': True, 'count_include_pad': False}, [[[[-1.0433249999999998, -0.17883333333333326, 0.45083333333333336, 0.3711], [-0.5947833333333333, -0.2214, 0.3644666666666667, 0.18463333333333334], [-0.3048499999999999, -0.5246, -0.20618333333333336, 0.3288]], [[-0.9310999999999999, 0.09113333333333334, 0.17625000000000002, -0.5347500000000001], [-0.4801499999999999, 0.5308222222222222, 0.3913, 0.30983333333333335], [-1.320225, -0.41146666666666665, 0.32780000000000004, 0.85035]]]], [[[[-0.5, -0.6666666666666666, -0.16666666666666666, -0.16666666666666666, 0.0, 0.5], [-0.16666666666666669, -0.5555555555555556, -0.38888888888888884, -0.49999999999999994, -0.1111111111111111, 0.3888888888888889], [0.3333333333333333, 0.1111111111111111, -0.2222222222222222, -0.3333333333333333, -0.1111111111111111, -0.1111111111111111], [0.5833333333333333, 0.6944444444444444, 0.1111111111111111, -0.3333333333333333, -0.4444444444444444, -0.9444444444444444], [0.25, 0.5833333333333333, 0.3333333333333333, 0.0, -0.3333333333333333, -0.8333333333333333]], [[0.0, 0.16666666666666666, 0.16666666666666666, 0.5, 0.3333333333333333, -0.6666666666666667], [-0.16666666666666666, 0.0, 0.16666666666666666, 0.6111111111111112, 0.4444444444444444, 0.11111111111111105], [-0.16666666666666666, -0.16666666666666666, 0.0, 0.1111111111111111, 0.1111111111111111, 0.7777777777777777], [-0.6666666666666666, -0.8333333333333333, -0.16666666666666666, -0.05555555555555555, 0.1111111111111111, 1.2777777777777777], [-0.5, -0.6666666666666666, -0.16666666666666666, -0.16666666666666666, 0.0, 0.5]]]]),
    ('avg_pool2d', {'kernel_size': (3, 2), 'stride': 1, 'padding': 1, 'count_include_pad': False}, [[[[-1.4668, -1.0433249999999998, -0.899025, 0.04167500000000002, 0.4907, 0.04547500000000004, 0.3711], [-0.5993, -0.71075, -0.7919333333333335, 0.09601666666666668, 0.4090500000000001, -0.04964999999999997, 0.0363], [-0.24946666666666664, -0.5947833333333333, -0.6774166666666667, 0.13795, 0.4543833333333334, 0.20138333333333336, 0.18463333333333334], [0.2953333333333334, -0.21843333333333328, -0.4863666666666668, -0.29475, -0.23386666666666667, -0.055333333333333345, 0.008099999999999996], [-0.1248499999999999, -0.3048499999999999, -0.44067500000000004, -0.544475, -0.473675, 0.03694999999999998, 0.3288]], [[-0.8569500000000001, -0.9310999999999999, -0.23392499999999994, 0.639325, 0.5317500000000001, -0.10625000000000001, -0.5347500000000001], [-0.9533333333333335, -0.49961666666666665, 0.32195, 0.6111333333333334, 0.39776666666666666, 0.13231666666666667, 0.0015666666666666422], [-1.1801333333333333, -0.4801499999999999, 0.6364833333333334, 0.6863166666666666, 0.4320333333333333, 0.42719999999999997, 0.30983333333333335], [-0.9511999999999999, -0.7590333333333333, 0.17363333333333333, 0.3690166666666667, 0.08761666666666668, 0.6381500000000001, 0.9249666666666667], [-0.85375, -1.320225, -0.4564, 0.27615, 0.06652499999999999, 0.6525000000000001, 0.85035]]]], [[[[-1.0833333333333333, 0.24999999999999997, 0.24999999999999994, 0.25, -0.16666666666666666, -0.6666666666666667], [-0.75, -0.25, 0.08333333333333329, 0.41666666666666663, 0.3333333333333333, -1.0], [0.16666666666666663, 0.16666666666666669, 0.3333333333333333, -0.33333333333333337, -0.16666666666666666, -0.16666666666666666], [1.0, -0.33333333333333337, -0.4166666666666667, -0.08333333333333331, 0.25, 0.75], [0.6666666666666667, 0.16666666666666663, -0.25, -0.25, -0.25, 1.0833333333333333]], [[-1.0833333333333333, 0.24999999999999997, 0.24999999999999994, 0.25, -0.16666666666666666, -0.6666666666666667], [-0.75, -0.25, 0.08333333333333329, 0.41666666666666663, 0.3333333333333333, -1.0], [0.16666666666666663, 0.16666666666666669, 0.3333333333333333, -0.33333333333333337, -0.16666666666666666, -0.16666666666666666], [1.0, -0.33333333333333337, -0.4166666666666667, -0.08333333333333331, 0.25, 0.75], [0.6666666666666667, 0.16666666666666663, -0.25, -0.25, -0.25, 1.0833333333333333]]]]),
    ('avg_pool2d', {'kernel_size': 3, 'stride': 2, 'padding': 1, 'divisor_override': 4}, [[[[-1.0433249999999998, -0.2682499999999999, 0.67625], [-0.8921749999999999, -0.49815000000000004, 0.8200500000000002], [-0.3048499999999999, -0.7868999999999999, -0.309275]], [[-0.9310999999999999, 0.13670000000000002, 0.264375], [-0.7202249999999999, 1.19435, 0.8804249999999999], [-1.320225, -0.6172, 0.4917]]]], [[[[-0.5, -0.75, -0.25, -0.25, 0.0, 0.0], [-0.25, 0.0, 0.25, -0.25, -0.5, -0.5], [0.25, 0.75, 0.5, 0.0, -0.5, -0.5], [0.0, 0.5, 0.5, 0.25, -0.25, -0.25], [-0.25, -0.25, 0.0, 0.25, 0.25, 0.25]], [[0.5, 0.0, -0.5, -0.75, -0.25, -0.25], [0.5, 0.25, -0.25, 0.0, 0.25, 0.25], [0.0, 0.25, 0.25, 0.75, 0.5, 0.5], [-0.5, -0.5, 0.0, 0.5, 0.5, 0.5], [-0.5, -0.75, -0.25, -0.25, 0.0, 0.0]]]]),
]
UNFOLD = [  # (arguments, PyTorch's F.unfold(X, **arguments), PyTorch's gradient)
    ({'kernel_size': 2}, [[[-2.3104, -0.3733, -1.0608, 0.9995, -0.884, -0.6232, -0.8664, -1.2956, 1.5236, 0.3237, 1.1357, -1.2269, 0.0714, 0.338, 0.1535, -1.2609, -0.727, -0.02, 0.2103, 0.1772], [-0.3733, -1.0608, 0.9995, -0.884, -1.2755, -0.8664, -1.2956, 1.5236, 0.3237, 2.0177, -1.2269, 0.0714, 0.338, 0.1535, -0.6333, -0.727, -0.02, 0.2103, 0.1772, -0.8305], [-0.6232, -0.8664, -1.2956, 1.5236, 0.3237, 1.1357, -1.2269, 0.0714, 0.338, 0.1535, -1.2609, -0.727, -0.02, 0.2103, 0.1772, 1.0112, -0.2427, -0.773, -1.5952, -0.687], [-0.8664, -1.2956, 1.5236, 0.3237, 2.0177, -1.2269, 0.0714, 0.338, 0.1535, -0.6333, -0.727, -0.02, 0.2103, 0.1772, -0.8305, -0.2427, -0.773, -1.5952, -0.687, 1.4881], [-0.4484, -0.891, -0.0917, 0.5563, -0.0094, -1.2655, -1.1195, 1.1665, 0.9262, 0.6539, -1.1461, 1.8728, 0.9946, 0.1149, 0.1447, -1.1288, -0.0938, 0.9983, -0.0826, 0.8351], [-0.891, -0.0917, 0.5563, -0.0094, -1.2177, -1.1195, 1.1665, 0.9262, 0.6539, 0.1482, 1.8728, 0.9946, 0.1149, 0.1447, 1.0742, -0.0938, 0.9983, -0.0826, 0.8351, -0.2929], [-1.2655, -1.1195, 1.1665, 0.9262, 0.6539, -1.1461, 1.8728, 0.9946, 0.1149, 0.1447, -1.1288, -0.0938, 0.9983, -0.0826, 0.8351, -0.5787, -3.4796, 0.7495, -0.5606, 0.0742], [-1.1195, 1.1665, 0.9262, 0.6539, 0.1482, 1.8728, 0.9946, 0.1149, 0.1447, 1.0742, -0.0938, 0.9983, -0.0826, 0.8351, -0.2929, -3.4796, 0.7495, -0.5606, 0.0742, 1.9936]]], [[[[-2.0, -3.0, -1.0, 1.0, 3.0, 2.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-2.0, -3.0, -1.0, 1.0, 3.0, 2.0]], [[-2.0, -3.0, -1.0, 1.0, 3.0, 2.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-4.0, -6.0, -2.0, 2.0, 6.0, 4.0], [-2.0, -3.0, -1.0, 1.0, 3.0, 2.0]]]]),
    ({'kernel_size': (2, 3), 'stride': 2, 'padding': 1, 'dilation': (1, 2)}, [[[0.0, 0.0, 0.0, -0.8664, 0.0, -0.727], [0.0, 0.0, -0.8664, 1.5236, -0.727, 0.2103], [0.0, 0.0, 1.5236, 2.0177, 0.2103, -0.8305], [0.0, -0.3733, 0.0, -1.2269, 0.0, -0.2427], [-0.3733, 0.9995, -1.2269, 0.338, -0.2427, -1.5952], [0.9995, -1.2755, 0.338, -0.6333, -1.5952, 1.4881], [0.0, 0.0, 0.0, -1.1195, 0.0, -0.0938], [0.0, 0.0, -1.1195, 0.9262, -0.0938, -0.0826], [0.0, 0.0, 0.9262, 0.1482, -0.0826, -0.2929], [0.0, -0.891, 0.0, 1.8728, 0.0, -3.4796], [-0.891, 0.5563, 1.8728, 0.1149, -3.4796, -0.5606], [0.5563, -1.2177, 0.1149, 1.0742, -0.5606, 1.9936]]], [[[[0.0, 4.0, 0.0, -4.0, 0.0, -1.0], [0.0, 2.0, 0.0, 4.0, 0.0, -2.0], [0.0, -2.0, 0.0, 0.0, 0.0, 1.0], [0.0, -4.0, 0.0, -2.0, 0.0, 0.0], [0.0, 2.0, 0.0, 4.0, 0.0, -2.0]], [[0.0, -4.0, 0.0, -2.0, 0.0, 0.0], [0.0, 4.0, 0.0, -4.0, 0.0, -1.0], [0.0, 0.0, 0.0, 2.0, 0.0, 2.0], [0.0, -2.0, 0.0, 0.0, 0.0, 1.0], [0.0, 4.0, 0.0, -4.0, 0.0, -1.0]]]]),
    ({'kernel_size': 3, 'stride': (1, 2), 'dilation': (2, 1)}, [[[-2.3104, -1.0608], [-0.3733, 0.9995], [-1.0608, -0.884], [1.1357, 0.0714], [-1.2269, 0.338], [0.0714, 0.1535], [1.0112, -0.773], [-0.2427, -1.5952], [-0.773, -0.687], [-0.4484, -0.0917], [-0.891, 0.5563], [-0.0917, -0.0094], [-1.1461, 0.9946], [1.8728, 0.1149], [0.9946, 0.1447], [-0.5787, 0.7495], [-3.4796, -0.5606], [0.7495, 0.0742]]], [[[[-2.0, 0.0, 1.0, 1.0, -2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-1.0, 1.0, -2.0, 2.0, -1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, -2.0, 0.0, 0.0]], [[1.0, -2.0, 2.0, -1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [2.0, -1.0, -1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-2.0, 0.0, 1.0, 1.0, -2.0, 0.0]]]]),
]
# PyTorch: F.max_pool2d(X, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)[1]
INDICES = [[[[1, 9, 11, 11], [12, 9, 11, 11], [24, 21, 29, 29]], [[0, 8, 9, 11], [13, 13, 17, 17], [19, 20, 29, 29]]]]
# fmt: on


@pytest.mark.parametrize(("name", "how", "value", "gradient"), PYTORCH, ids=[f"{n}{h}" for n, h, *_ in PYTORCH])
def test_each_is_pytorch_s(name, how, value, gradient) -> None:
    x = Tensor(np.array([X]), requires_grad=True)
    out = getattr(autograd, name)(x, **how)
    (out * Tensor(np.arange(float(out.size)).reshape(out.shape) % 5 - 2)).sum().backward()
    np.testing.assert_allclose(out.data, value, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(x.grad.data, gradient, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize(("how", "value", "gradient"), UNFOLD, ids=[str(h) for h, *_ in UNFOLD])
def test_unfold_is_pytorch_s(how, value, gradient) -> None:
    x = Tensor(np.array([X]), requires_grad=True)
    out = autograd.unfold(x, **how)
    (out * Tensor(np.arange(float(out.size)).reshape(out.shape) % 5 - 2)).sum().backward()
    np.testing.assert_allclose(out.data, value, rtol=0, atol=0)
    np.testing.assert_allclose(x.grad.data, gradient, rtol=0, atol=0)


def test_unfold_s_columns_times_the_weight_are_conv2d() -> None:
    """What its docstring says: a convolution is the windows as columns, times the weight as a matrix."""
    x, w = Tensor(np.array([X])), Tensor(np.arange(24.0).reshape(2, 2, 2, 3) / 10)
    columns = autograd.unfold(x, (2, 3), padding=1, stride=(1, 2))  # (1, 2·2·3, L)
    out = autograd.conv2d(x, w, padding=1, stride=(1, 2))
    np.testing.assert_allclose((w.reshape(2, -1) @ columns).data.reshape(out.shape), out.data, rtol=1e-14)


def test_return_indices_gives_places_in_each_image() -> None:
    values, indices = autograd.max_pool2d(
        Tensor(np.array([X])), 3, stride=2, padding=1, ceil_mode=True, return_indices=True
    )
    assert indices.dtype == "int" and indices.data.tolist() == INDICES
    assert (
        values.data.tolist()
        == np.take_along_axis(np.array([X]).reshape(1, 2, -1), indices.data.reshape(1, 2, -1), 2)
        .reshape(values.shape)
        .tolist()
    )


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("max_pool2d dilated", lambda x: autograd.max_pool2d(x.exp(), 2, stride=1, dilation=(2, 1), padding=1)),
        ("max_pool2d ceil_mode", lambda x: autograd.max_pool2d(x.exp(), 3, stride=2, ceil_mode=True)),
        ("avg_pool2d ceil_mode", lambda x: autograd.avg_pool2d(x * x, 3, stride=2, padding=1, ceil_mode=True)),
        ("avg_pool2d not counting padding", lambda x: autograd.avg_pool2d(x * x, 2, 1, 1, count_include_pad=False)),
        ("avg_pool2d divisor_override", lambda x: autograd.avg_pool2d(x * x, 2, divisor_override=3)),
        ("unfold", lambda x: autograd.unfold(x * x, (2, 3), dilation=(2, 1), padding=1, stride=(2, 1))),
    ],
)
def test_derivatives(name, fn) -> None:
    check_gradients(name, fn, np.array([X])[:, :, :4, :5])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda x: autograd.max_pool2d(x, 2, dilation=0), TensorValueError, "dilation must be at least 1"),
        (lambda x: autograd.max_pool2d(x, 3, dilation=3), ShapeError, r"windows reaching \(7, 7\) do not fit"),
        (lambda x: autograd.avg_pool2d(x, 2, divisor_override=0), TensorValueError, "must not be 0"),
        (lambda x: autograd.avg_pool2d(x, 2, divisor_override=1.5), TensorTypeError, "must be an int"),
        (lambda x: autograd.max_pool2d(x, 2, padding=2, dilation=3), TensorValueError, "more than half the kernel"),
        (lambda x: autograd.unfold(x[0], 2), ShapeError, "it needs 4 dimensions"),
        (lambda x: autograd.unfold(x, 3, dilation=3), ShapeError, r"windows reaching \(7, 7\) do not fit"),
        (lambda x: autograd.unfold(x, 2, stride=0), TensorValueError, "stride must be at least 1"),
    ],
)
def test_mistakes_are_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call(Tensor(np.ones((1, 1, 5, 5))))


@pytest.mark.parametrize(
    "call",
    [
        "max_pool2d(x, 2, stride=1, dilation=10 ** 12)",
        "avg_pool2d(x, 10 ** 9, ceil_mode=True)",
        "unfold(x, 2, padding=10 ** 9)",
        "unfold(x, (1, 10 ** 12))",
    ],
)
def test_hostile_arguments_are_refused_with_a_located_error(call) -> None:
    with pytest.raises(DGError) as caught:
        Session().run(f"x = ones(1, 1, 4, 4)\ny = {call}\n")
    assert caught.value.span is not None and caught.value.span.line == 2


@pytest.mark.parametrize(
    ("shape", "kernel"),
    [
        ((32, 8, 8, 8), 2),
        ((2, 3, 7, 9), 2),
        ((4, 2, 9, 9), 3),
        ((3, 2, 6, 8), (2, 4)),
        ((2, 2, 5, 5), 1),
        ((1, 1, 4, 4), 4),
    ],
)
def test_windows_side_by_side_offset_by_offset_are_the_one_copy(shape, kernel, monkeypatch) -> None:
    """Many windows of a small kernel, side by side, are copied one kernel offset at a time; few,
    or a large kernel, in one copy of a reshape. The same numbers in the same places either way
    (nan and -0.0 included), so max pooling finds the same positions and average pooling the same sums."""
    from dglang.autograd import pooling

    at = pooling.Window(shape, kernel, None, 0, "max_pool2d")
    a = np.random.default_rng(5).normal(size=shape)
    a.flat[::7], a.flat[3::11] = np.nan, -0.0
    monkeypatch.setattr(pooling, "MANY_WINDOWS", 0)  # every one offset by offset
    by_offset = at.blocks(a)
    monkeypatch.setattr(pooling, "MANY_WINDOWS", 2**62)  # every one in one copy
    one_copy = at.blocks(a)
    assert by_offset.shape == one_copy.shape and by_offset.flags.c_contiguous
    assert by_offset.tobytes() == one_copy.tobytes()


def test_a_kept_window_holds_counts_along_each_axis_not_a_divisor_per_window() -> None:
    """A Window outlives its call (grids.kept keeps it for the next), so an average's divisors,
    one per window, are made when asked from the counts along each axis, not held."""
    from dglang.autograd.grids import kept
    from dglang.autograd.pooling import Window

    at = kept(Window, (1, 1, 300, 300), 3, None, 1, "avg_pool2d", 1, False, False)  # the edges count less
    assert sum(np.size(c) for c in at.counted) == sum(at.out) == 200
    assert at.divisor.shape == at.out and at.divisor[0, 0] == 4.0 and at.divisor[1, 1] == 9.0
    x = Tensor(np.ones((1, 1, 300, 300)))
    assert np.all(autograd.avg_pool2d(x, 3, padding=1, count_include_pad=False).data == 1.0)


@pytest.mark.parametrize("slice_", [7, 60, 3000])  # a window's part, a few rows' windows, many rows'
@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "dilation"),
    [((2, 3, 20, 17), 3, 1, 1, 1), ((1, 2, 30, 30), 7, 2, 3, 2), ((2, 1, 15, 16), (4, 3), (1, 2), (1, 0), 1)],
)
def test_overlapping_windows_pooled_in_slices_are_pooled_alike(
    shape, kernel, stride, padding, dilation, slice_, monkeypatch
):
    """Windows that overlap are compared or summed a slice at a time when they are many (so that a
    timeout can stop the op between two, and max pooling copies one slice at a time): max pooling
    finds the same positions (ties and nan included), average pooling the same sums but for the
    order of their additions."""
    from dglang.autograd import pooling

    a = np.random.default_rng(1).normal(size=shape)
    a.flat[::13], a[..., 5, 5] = np.nan, a[..., 5, 6]

    def pooled() -> tuple[np.ndarray, ...]:
        x = Tensor(a.copy(), requires_grad=True)
        largest = autograd.max_pool2d(x, kernel, stride=stride, padding=padding, dilation=dilation)
        mean = autograd.avg_pool2d(x, kernel, stride=stride, padding=padding) if dilation == 1 else largest
        (largest.sum() + (mean * mean).sum()).backward()
        return largest.data, mean.data, x.grad.data

    whole = pooled()
    monkeypatch.setattr(pooling, "SLICE", slice_)
    sliced = pooled()
    assert whole[0].tobytes() == sliced[0].tobytes()
    np.testing.assert_allclose(sliced[1], whole[1], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(sliced[2], whole[2], rtol=1e-12, atol=1e-12)
