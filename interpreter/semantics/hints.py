"""Hints: the `help:` lines that explain a likely cause, kept apart from the semantics they explain.

Each hint is decided from what the compiler sees in the text (is this operand a `.grad`? a call?)
and what the value turned out to be at run time; it only adds a help line to an error that has none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.library.keyword_help import KEYWORDS
from dglang.interpreter.library.runtime import suggest

from . import ast_nodes as ast


def why_none(node: ast.Expr) -> str | None:
    """A hint for when `node` turns out to be None where a value was needed."""
    if isinstance(node, ast.Attribute) and node.name == "grad":
        return "this .grad is None: no gradient has reached it yet (only leaves with requires_grad=True keep one)"
    if isinstance(node, ast.Call):
        return "the call gave None: a function that ends without `return` gives None"
    return None


def explained(error: DGError, value: Any, hint: str | None) -> DGError:
    """`error`, with `hint` as its help line if the value in question was None."""
    if value is None and hint is not None and error.help is None:
        error.help = hint
    return error


def rebound_parameter(error: DGError, rebound: tuple[str, Span] | None) -> DGError:
    """`grad` of something that requires no grad, after `w = w - lr * w.grad` inside `no_grad`."""
    if rebound is not None:
        name, where = rebound
        error.help = (
            f"'{name}' was rebound inside `no_grad` on line {where.line}, so it is no longer a leaf "
            f"that requires grad; update it in place instead: `{name} -= ...`"
        )
    return error


# ---- PyTorch and NumPy habits -------------------------------------------------------------------
# What a method a tensor does not have is called in PyTorch, and what DG writes instead; `{obj}`
# is the tensor as the program wrote it.
TENSOR_HABITS = {
    "backward": "DG backpropagates with the grad statement: `grad {obj}`",
    "zero_grad": "clear gradients with the builtin: `zero_grad({obj})` (or zero_grad(params) for a list)",
    "zero_": "clear a gradient with the builtin zero_grad: `zero_grad({owner})`",
    "requires_grad_": "set the attribute: `{obj}.requires_grad = True` (or make it with requires_grad=True)",
    "numpy": "a DG tensor stays in DG: `.tolist()` gives nested lists of numbers, `.item()` one number",
    "retain_grad": "DG fills .grad only for leaves; `gradient(y, {obj})` gives dy/d{obj} for any tensor",
    "size": "a tensor's shape is the attribute `.shape`; `.numel()` counts its elements",
    "view": "write `.reshape(...)`",
    "unsqueeze": "insert an axis of length 1 with None: `{obj}[None]` or `{obj}[:, None]`",
    "clone": "`.detach()` copies the values into a new leaf; `{obj} * 1` is a copy that stays in the graph",
    "cuda": "DG computes on the CPU only: leave `.cuda()` out",
    "to": "DG computes on the CPU with 64-bit floats: leave `.to(...)` out",
    "float": "DG tensors hold 64-bit floats already: leave `.float()` out",
    "double": "DG tensors hold 64-bit floats already: leave `.double()` out",
}
# Names a program copied from PyTorch or NumPy code reads without defining.
LIBRARIES = ("torch", "np", "numpy", "nn", "F")
OPTIMIZERS = ("optimizer", "optim", "opt")
OPTIMIZER_HELP = (
    "DG has no optimizers: update each parameter inside `with no_grad:`, as in `w -= lr * w.grad`, "
    "then clear its gradient with zero_grad(w)"
)
RENAMED = {"cat": "concat", "manual_seed": "seed", "array": "tensor", "from_numpy": "tensor", "Tensor": "tensor"}


def habit(error: DGError, node: ast.Attribute) -> DGError:
    """`loss.backward()` and the like: a PyTorch habit's help line, instead of "did you mean"."""
    if error.kind == "AttributeError" and node.name in TENSOR_HABITS and "tensor has no" in error.message:
        owner = node.obj.obj if isinstance(node.obj, ast.Attribute) and node.obj.name == "grad" else node.obj
        error.help = TENSOR_HABITS[node.name].format(obj=written(node.obj), owner=written(owner))
    return error


def library_prefix(node: ast.Attribute) -> str | None:
    """`torch.tensor(...)`, `np.zeros(...)`, `optimizer.step()`: when the name before the dot is a
    library or an optimizer the program never defined, what DG writes instead (the help of the
    NameError); None for any other attribute. Decided from the text alone, when compiling."""
    if not isinstance(node.obj, ast.Name):
        return None
    library = node.obj.name
    if library in OPTIMIZERS:
        return OPTIMIZER_HELP
    if library not in LIBRARIES:
        return None
    name = RENAMED.get(node.name, node.name)
    if node.name == "no_grad":
        return "DG's contexts need no prefix: write `with no_grad:`"
    return f"DG has no import: its tensor functions are builtins, so write `{name}(...)` without `{library}.`"


def with_prefix_help(name: Callable[[Any], Any], help: str) -> Callable[[Any], Any]:
    """A name's compiled lookup, whose NameError (the library was never defined) gets `help`."""

    def run(env: Any) -> Any:
        try:
            return name(env)
        except DGError as e:
            if e.kind == "NameError":
                e.help = help
            raise

    return run


def non_leaf_grad(value: Tensor, node: ast.Attribute, frames: tuple[CallFrame, ...]) -> DGError:
    """The warning for reading .grad of a tensor computed by a recorded op (PyTorch warns too:
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed...")."""
    obj = written(node.obj)
    node_of = value.grad_fn
    made = getattr(getattr(node_of, "where", None), "span", None)
    where = f" on line {made.line}" if made is not None and made.source is node.span.source else ""
    return DGError(
        "Warning",
        ".grad of a tensor that is not a leaf is being read: grad does not fill it, so it is None",
        node.span,
        help=f"{obj} was computed by {node_of.op.name}{where}; to keep a parameter a leaf, update it in place "  # type: ignore[union-attr]
        f"inside `with no_grad:` ({obj} -= lr * {obj}.grad); for dy/d{obj} at a computed value, use gradient(y, {obj})",
        frames=frames,
    )


def written(node: ast.Expr) -> str:
    """The program's own text for an expression (on one line), else a generic name."""
    span = node.span
    if span.end_line != span.line:
        return "x"
    return span.source.line(span.line)[span.column - 1 : span.end_column - 1].strip() or "x"


def unknown_name(name: str, visible: Iterable[str]) -> str | None:
    """The help line of a NameError: a keyword read as a name (`help(if)`), or a near name."""
    if name in KEYWORDS:  # every keyword of the grammar has its help (tests/language/test_help.py)
        return f"'{name}' is a keyword: help(\"{name}\") or :help {name} explains it"
    return suggest(name, visible)
