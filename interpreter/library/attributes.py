"""The attributes and methods a program may reach. This whitelist is the sandbox's front door:
anything not named here (`x.__class__`, `x._data`, ...) does not exist for a DG program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.table import FUNCTIONS
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError

from .dictionaries import DICT_METHODS
from .operators import equal
from .runtime import MAX_SEQUENCE, MISSING, BoundMethod, Module, suggest, watching


def _too_long(kind: str, length: int) -> DGError:
    return DGError(
        "ValueError", f"that would make a {kind} of {length:,} items, more than the limit of {MAX_SEQUENCE:,}"
    )


# ---- methods that could build something enormous, or compare lists in C -------------------------
def tolist(t: Tensor) -> Any:
    """The values as nested lists of numbers.

    >>> tensor([[1.0, 2.0], [3.0, 4.0]]).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if t.size > MAX_SEQUENCE:
        raise _too_long("list", t.size)
    return t.tolist()


def list_extend(items: list[Any], more: Any) -> None:
    if not isinstance(more, list | tuple | str | range):
        raise DGError("TypeError", f"extend() takes a list, tuple, string or range, not {type_name(more)}")
    if len(items) + len(more) > MAX_SEQUENCE:
        raise _too_long("list", len(items) + len(more))
    items.extend(more)


def list_index(items: list[Any], value: Any) -> int:
    for i, item in enumerate(items):
        if item is value or (not isinstance(item, Tensor) and not isinstance(value, Tensor) and equal(item, value)):
            return i
    raise DGError("ValueError", "the value is not in the list")


def str_join(separator: str, parts: Any) -> str:
    if not isinstance(parts, list | tuple) or not all(isinstance(p, str) for p in parts):
        raise DGError("TypeError", "join() takes a list of strings", help="turn values into text first: str(x)")
    length = sum(len(p) for p in parts) + len(separator) * max(0, len(parts) - 1)
    if length > MAX_SEQUENCE:
        raise _too_long("string", length)
    return separator.join(parts)


def str_replace(text: str, old: str, new: str, count: int = -1) -> str:
    if not isinstance(old, str) or not isinstance(new, str):
        raise DGError("TypeError", "replace() takes two strings")
    found = text.count(old) if count < 0 else min(count, text.count(old))
    length = len(text) + found * (len(new) - len(old))
    if length > MAX_SEQUENCE:
        raise _too_long("string", length)
    return text.replace(old, new, count)


# ---- a tensor's attributes: each documented for help (library/help.py), its example run by the tests --
def get_grad(t: Tensor) -> Any:
    """The gradient that grad statements have added into this leaf (None until one reaches it).

    >>> x = tensor(3.0, requires_grad=True)
    >>> grad x * x
    >>> x.grad
    tensor(6.)
    """
    if watching.listener is not None:
        watching.listener.read_grad(t)
    return t.grad


def get_shape(t: Tensor) -> Any:
    """The length of each axis, as a tuple: () for a single number.

    >>> zeros(2, 3).shape, tensor(1.0).shape
    ((2, 3), ())
    """
    return t.shape


def get_ndim(t: Tensor) -> Any:
    """The number of axes.

    >>> zeros(2, 3).ndim
    2
    """
    return t.ndim


def get_dtype(t: Tensor) -> Any:
    """The kind of values: "float", "int" or "bool".

    >>> tensor([1.0]).dtype, (tensor([1.0]) > 0).dtype
    ('float', 'bool')
    """
    return t.dtype


def get_transposed(t: Tensor) -> Any:
    """The transpose: the same values with the axes reversed.

    >>> tensor([[1.0, 2.0]]).T
    tensor([[1.],
            [2.]])
    """
    return t.T


def get_requires_grad(t: Tensor) -> Any:
    """Whether operations on this tensor are recorded, so that grad can reach it.

    >>> w = tensor(1.0, requires_grad=True)
    >>> w.requires_grad, (w * 2).requires_grad, tensor(1.0).requires_grad
    (True, True, False)
    """
    return t.requires_grad


def get_is_leaf(t: Tensor) -> Any:
    """True for a tensor made directly, False for one computed by a recorded operation.

    >>> w = tensor(1.0, requires_grad=True)
    >>> w.is_leaf, (w * 2).is_leaf
    (True, False)
    """
    return t.grad_fn is None


def get_grad_fn(t: Tensor) -> Any:
    """The recorded operation that computed this tensor ("<MulBackward>"), or None for a leaf.

    >>> w = tensor(1.0, requires_grad=True)
    >>> (w * 2).grad_fn
    '<MulBackward>'
    """
    if watching.listener is not None and t.grad_fn is not None:  # which op made it: no static guard checks that
        watching.listener.refuse("it reads a tensor's grad_fn")
    return None if t.grad_fn is None else f"<{t.grad_fn.op.name}Backward>"


def get_data(t: Tensor) -> Any:
    """The same values as a new leaf without history (the same as t.detach()).

    >>> w = tensor(1.0, requires_grad=True)
    >>> (w * 2).data
    tensor(2.)
    """
    return t.detach()


TENSOR_PROPERTIES: dict[str, Callable[[Tensor], Any]] = {
    "grad": get_grad,
    "shape": get_shape,
    "ndim": get_ndim,
    "dtype": get_dtype,
    "T": get_transposed,
    "requires_grad": get_requires_grad,
    "is_leaf": get_is_leaf,
    "grad_fn": get_grad_fn,
    "data": get_data,
}


def transpose(t: Tensor, *axes: Any) -> Tensor:
    """The axes reversed (like t.T); two axes swapped, as PyTorch's t.transpose(1, 2); or all in a new order.

    >>> ones(2, 3, 4).transpose(1, 2).shape
    (2, 4, 3)
    """
    if len(axes) == 2:  # PyTorch's meaning: swap these two (for a matrix, (1, 0) is NumPy's too)
        order = list(range(t.ndim))
        for a in axes:
            if type(a) is not int or not -t.ndim <= a < t.ndim:
                raise DGError("IndexError", f"transpose: axis {a!r} is out of range for {t.ndim} dimensions")
        first, second = axes[0] % t.ndim, axes[1] % t.ndim
        order[first], order[second] = second, first
        return t.transpose(*order)
    return t.transpose(*axes)


def t(x: Tensor) -> Tensor:
    """The transpose of a matrix, as PyTorch's x.t() (a vector or a number stays as it is).

    >>> ones(2, 3).t().shape
    (3, 2)
    """
    if x.ndim > 2:
        raise DGError("ValueError", f"t() takes at most 2 dimensions, not {x.ndim}", help="use .transpose(0, 1) or .mT")
    return x.T


def extreme(name: str) -> Callable[..., Any]:
    """x.max and x.min: with `axis=`, the values (NumPy's way); with a dim (x.max(1), x.max(dim=1)),
    PyTorch's pair (values, indices), so `values, idx = x.max(1)` means what it does there."""
    reduce, position = getattr(Tensor, name), getattr(Tensor, f"arg{name}")

    def method(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool = False) -> Any:
        if dim is None:
            return reduce(x, axis, keepdims or keepdim)
        if axis is not None:
            raise DGError("TypeError", f"{name}() takes dim or axis, not both")
        values, indices = reduce(x, dim, keepdim), position(x, dim)
        return values, (indices.reshape(values.shape) if keepdim else indices)

    method.__name__ = name
    most = "largest" if name == "max" else "smallest"
    method.__doc__ = f"""The {most} element, or along axis=; with a dim, x.{name}(1), PyTorch's (values, indices).

    >>> tensor([[1.0, 5.0], [7.0, 2.0]]).{name}(1)
    {"(tensor([5., 7.]), tensor([1, 0]))" if name == "max" else "(tensor([1., 2.]), tensor([0, 1]))"}
    """
    return method


def numel(t: Tensor) -> int:
    """The number of elements.

    >>> zeros(2, 3).numel()
    6
    """
    return t.size


# Tensor's own methods a program may call, besides the engine's functions declared tensor methods
# (`method = True` in their declarations, autograd/table.py); docs/language.md's table of them is written from both.
TENSOR_OWN_METHODS: dict[str, Callable[..., Any]] = {
    "transpose": transpose,  # x.transpose(1, 0): the axes as arguments (the builtin takes a tuple)
    "t": t,
    "item": Tensor.item,
    "tolist": tolist,  # with the size check above
    "detach": Tensor.detach,
    "numel": numel,
}
# Declared methods a program calls with PyTorch's meaning where it adds one: x.max(1) is (values, indices).
PYTORCH_MEANINGS: dict[str, Callable[..., Any]] = {"max": extreme("max"), "min": extreme("min")}
TENSOR_METHODS: dict[str, Callable[..., Any]] = (
    {f.dg_name: f.fn for f in FUNCTIONS if f.method} | PYTORCH_MEANINGS | TENSOR_OWN_METHODS
)

LIST_METHODS: dict[str, Callable[..., Any]] = {
    "append": list.append,
    "pop": list.pop,
    "extend": list_extend,
    "insert": list.insert,
    "index": list_index,
    "copy": list.copy,
    "reverse": list.reverse,
}

STR_METHODS: dict[str, Callable[..., Any]] = {
    "split": str.split,
    "strip": str.strip,
    "join": str_join,
    "upper": str.upper,
    "lower": str.lower,
    "replace": str_replace,
    "startswith": str.startswith,
    "endswith": str.endswith,
    "index": str.index,
    "count": str.count,
}

PROPERTIES: dict[type, dict[str, Callable[[Any], Any]]] = {Tensor: TENSOR_PROPERTIES}
METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    Tensor: TENSOR_METHODS,
    list: LIST_METHODS,
    str: STR_METHODS,
    dict: DICT_METHODS,
}


def _missing(obj: Any, name: str) -> DGError:
    names = list(PROPERTIES.get(type(obj), {})) + list(METHODS.get(type(obj), {}))
    hint = suggest(name, names)
    return DGError("AttributeError", f"{type_name(obj)} has no attribute '{name}'", help=hint)


def get_attribute(obj: Any, name: str) -> Any:
    """obj.name, for a property (x.grad), a method not yet called (x.sum) or a module's name (nn.linear)."""
    if type(obj) is Module:
        return module_name(obj, name)
    prop = PROPERTIES.get(type(obj), {}).get(name)
    if prop is not None:
        return prop(obj)
    method = METHODS.get(type(obj), {}).get(name)
    if method is not None:
        return BoundMethod(obj, name, method)
    raise _missing(obj, name)


def find_method(obj: Any, name: str) -> Callable[..., Any]:
    """The function behind obj.name(...), for the evaluator's direct method-call path."""
    method = METHODS.get(type(obj), {}).get(name)
    if method is None:
        if name in PROPERTIES.get(type(obj), {}):
            raise DGError("TypeError", f"'{name}' is an attribute, not a method", help=f"write .{name} without ()")
        raise _missing(obj, name)
    return method


def module_name(module: Module, name: str) -> Any:
    """nn.linear: what the module's own top level bound to the name."""
    value = module.env.vars.get(name, MISSING)
    if value is MISSING:
        raise DGError(
            "AttributeError",
            f"module '{module.name}' has no attribute '{name}'",
            help=suggest(name, module.env.vars) or f"{module.path} defines no '{name}' at its top level",
        )
    if watching.listener is not None:  # a static trace guards the module names its function reads
        watching.listener.read_module(module, name, value)
    return value


def set_attribute(obj: Any, name: str, value: Any) -> None:
    """obj.name = value: only a tensor's `grad` and `requires_grad` may be set."""
    if type(obj) is Module:
        raise DGError(
            "AttributeError",
            f"cannot assign to a module's names ({obj.name}.{name})",
            help=f"a module's names are set by its own file, {obj.path}; pass values to its functions instead",
        )
    if not isinstance(obj, Tensor) or name not in ("grad", "requires_grad"):
        if isinstance(obj, Tensor) and name in TENSOR_PROPERTIES:
            raise DGError("AttributeError", f"cannot assign to a tensor's '{name}'")
        raise (
            _missing(obj, name)
            if name not in PROPERTIES.get(type(obj), {})
            else DGError("AttributeError", f"cannot assign to '{name}'")
        )
    if name == "grad":
        if value is not None and (not isinstance(value, Tensor) or value.shape != obj.shape):
            raise DGError("TypeError", f"a tensor's grad must be None or a tensor of shape {obj.shape}")
        if value is not None and value.dtype != obj.dtype:  # PyTorch refuses as well
            raise DGError(
                "TypeError",
                f"a {obj.dtype} tensor's grad must be {obj.dtype} too, not {value.describe()}",
                help="give a float tensor, such as zeros_like(x)",
            )
        obj.grad = value
        if watching.listener is not None:
            watching.listener.wrote_grad(obj)
        return
    if not isinstance(value, bool):
        raise DGError("TypeError", f"requires_grad must be True or False, not {type_name(value)}")
    if obj.grad_fn is not None:
        raise DGError(
            "GradError",
            "requires_grad can only be changed on a leaf tensor",
            help="use .detach() to get a leaf with the same values",
        )
    if value and obj.dtype != "float":
        raise DGError("TypeError", "only float tensors can require grad")
    obj.requires_grad = value
