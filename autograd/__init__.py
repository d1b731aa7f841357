"""A small define-by-run autograd engine on NumPy: usable from Python, and the engine under DG.

>>> from dglang.autograd import tensor
>>> x = tensor([1.0, 2.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])
"""

# Importing the op modules registers their public functions in autograd/op.py, where Tensor's
# methods find them; the names below are the package's face, and test_ops.py keeps them complete.
from .arithmetic import add, assign_index, compare, div, floordiv, matmul, mod, mul, neg, pow_, sub, update_in_place
from .backward import backward, gradient
from .composed import log_softmax, logsumexp, softmax
from .creation import arange, eye, full, linspace, ones, ones_like, rand, randn, seed, tensor, zeros, zeros_like
from .datasets import moons
from .exceptions import AutogradError, GradError, ShapeError, TensorIndexError, TensorTypeError, TensorValueError
from .functions import abs_, ceil, cos, exp, floor, log, maximum, minimum, relu, sigmoid, sign, sin, sqrt, tanh, where
from .gradcheck import GradcheckResult, gradcheck
from .reductions import all_, any_, argmax, argmin, max_, mean, min_, sum_
from .shaping import broadcast_to, concat, flatten, getitem, reshape, stack, sum_to, transpose
from .tensor import Node, Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = [
    "AutogradError", "GradError", "GradcheckResult", "Node", "ShapeError", "Tensor",
    "TensorIndexError", "TensorTypeError", "TensorValueError", "abs_", "add", "all_", "any_",
    "arange", "argmax", "argmin", "assign_index", "backward", "broadcast_to", "ceil", "compare", "concat",
    "cos", "div", "enable_grad", "exp", "eye", "flatten", "floor", "floordiv", "full",
    "getitem", "gradcheck", "gradient", "is_grad_enabled", "linspace", "log", "log_softmax",
    "logsumexp", "matmul", "max_", "maximum", "mean", "min_", "minimum", "mod", "moons", "mul",
    "neg", "no_grad", "ones", "ones_like", "pow_", "rand", "randn", "relu", "reshape", "seed",
    "set_grad_enabled", "sigmoid", "sign", "sin", "softmax", "sqrt", "stack", "sub", "sum_",
    "sum_to", "tanh", "tensor", "transpose", "update_in_place", "where", "zeros", "zeros_like",
]  # fmt: skip
