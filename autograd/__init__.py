"""A small define-by-run autograd engine on NumPy: usable from Python, and the engine under DG.

>>> from dglang.autograd import tensor
>>> x = tensor([1.0, 2.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4.])

Each op is declared once, as a class in an op module (arithmetic.py, functions.py,
probabilities.py, reductions.py, shaping.py, composed.py, ...; see op.py); table.py lists them
all. The package also offers each op as a function of tensors (`exp(x)`, `where(c, a, b)`),
made from its declaration; the names Python's builtins have end in `_` (`abs_`, `sum_`).
"""

from typing import Any as _Any

from .backward import backward, gradient
from .creation import arange, eye, full, linspace, ones, ones_like, rand, randn, seed, tensor, zeros, zeros_like
from .datasets import moons
from .exceptions import AutogradError, GradError, ShapeError, TensorIndexError, TensorTypeError, TensorValueError
from .gradcheck import GradcheckResult, gradcheck
from .hooks import Hooks
from .table import FUNCTIONS as _FUNCTIONS
from .table import function
from .tensor import Node, Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled

# (where a builtin and a method-only op share a name, the builtin: `unfold` is F.unfold, x.unfold a method)
_OPS_AS_FUNCTIONS = {f.name: f.fn for f in sorted(_FUNCTIONS, key=lambda f: f.builtin) if hasattr(f.fn, "op")}


def __getattr__(name: str) -> _Any:
    """Each op as a function of tensors, by its Python name: `exp`, `where`, `abs_` (looked up
    in the op table; `function(op)` makes it from the op's declaration)."""
    try:
        return _OPS_AS_FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


__all__ = [
    "AutogradError", "GradError", "GradcheckResult", "Hooks", "Node", "ShapeError", "Tensor",
    "TensorIndexError", "TensorTypeError", "TensorValueError", "arange", "backward", "enable_grad",
    "eye", "full", "function", "gradcheck", "gradient", "is_grad_enabled", "linspace", "moons",
    "no_grad", "ones", "ones_like", "rand", "randn", "seed", "set_grad_enabled", "tensor", "zeros",
    "zeros_like", *sorted(_OPS_AS_FUNCTIONS),
]  # fmt: skip


def __dir__() -> list[str]:
    return sorted(__all__)
