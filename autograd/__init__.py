"""A small define-by-run autograd engine on NumPy: usable from Python, and the engine under DG.

>>> from dglang.autograd import tensor
>>> x = tensor([1.0, 2.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])

Each op is declared once, as a class in an op module (arithmetic.py, functions.py,
reductions.py, shaping.py, composed.py; see op.py); table.py lists them all. Below, each op
as a function of tensors (`exp(x)`, `where(c, a, b)`), made from its declaration; names that
Python's builtins have end in `_` (`abs_`, `sum_`).
"""

from . import arithmetic as _arithmetic
from . import composed as _composed
from . import functions as _functions
from . import reductions as _reductions
from . import shaping as _shaping
from .backward import backward, gradient
from .creation import arange, eye, full, linspace, ones, ones_like, rand, randn, seed, tensor, zeros, zeros_like
from .datasets import moons
from .exceptions import AutogradError, GradError, ShapeError, TensorIndexError, TensorTypeError, TensorValueError
from .gradcheck import GradcheckResult, gradcheck
from .hooks import Hooks
from .tensor import Node, Tensor, enable_grad, function, is_grad_enabled, no_grad, set_grad_enabled

add = function(_arithmetic.Add)
sub = function(_arithmetic.Sub)
mul = function(_arithmetic.Mul)
div = function(_arithmetic.Div)
neg = function(_arithmetic.Neg)
pow_ = function(_arithmetic.Pow)
floordiv = function(_arithmetic.FloorDiv)
mod = function(_arithmetic.Mod)
matmul = function(_arithmetic.MatMul)
compare = function(_arithmetic.Compare)

exp = function(_functions.Exp)
log = function(_functions.Log)
sqrt = function(_functions.Sqrt)
sin = function(_functions.Sin)
cos = function(_functions.Cos)
tanh = function(_functions.Tanh)
sigmoid = function(_functions.Sigmoid)
relu = function(_functions.Relu)
abs_ = function(_functions.Abs)
maximum = function(_functions.Maximum)
minimum = function(_functions.Minimum)
where = function(_functions.Where)
sign = function(_functions.Sign)
floor = function(_functions.Floor)
ceil = function(_functions.Ceil)

sum_ = function(_reductions.Sum)
mean = function(_reductions.Mean)
max_ = function(_reductions.Max)
min_ = function(_reductions.Min)
argmax = function(_reductions.ArgMax)
argmin = function(_reductions.ArgMin)
any_ = function(_reductions.AnyTrue)
all_ = function(_reductions.AllTrue)

reshape = function(_shaping.Reshape)
transpose = function(_shaping.Transpose)
broadcast_to = function(_shaping.Broadcast)
sum_to = function(_shaping.SumTo)
getitem = function(_shaping.Index)
index_add = function(_shaping.IndexAdd)
concat = function(_shaping.Concat)
stack = function(_shaping.Stack)

logsumexp = function(_composed.LogSumExp)
log_softmax = function(_composed.LogSoftmax)
softmax = function(_composed.Softmax)
flatten = function(_composed.Flatten)

__all__ = [
    "AutogradError", "GradError", "GradcheckResult", "Hooks", "Node", "ShapeError", "Tensor",
    "TensorIndexError", "TensorTypeError", "TensorValueError", "abs_", "add", "all_", "any_",
    "arange", "argmax", "argmin", "backward", "broadcast_to", "ceil", "compare", "concat",
    "cos", "div", "enable_grad", "exp", "eye", "flatten", "floor", "floordiv", "full", "function",
    "getitem", "gradcheck", "gradient", "index_add", "is_grad_enabled", "linspace", "log", "log_softmax",
    "logsumexp", "matmul", "max_", "maximum", "mean", "min_", "minimum", "mod", "moons", "mul",
    "neg", "no_grad", "ones", "ones_like", "pow_", "rand", "randn", "relu", "reshape", "seed",
    "set_grad_enabled", "sigmoid", "sign", "sin", "softmax", "sqrt", "stack", "sub", "sum_",
    "sum_to", "tanh", "tensor", "transpose", "where", "zeros", "zeros_like",
]  # fmt: skip
