"""Hints: the `help:` lines that explain a likely cause, written when an error is reported.

The evaluator only runs the program: an error it raises carries the node it happened at and a few
clues about the values involved (their kinds, the names in scope; locating.py). When the host
reports the error it calls `explain`, which reads the node (is this operand a `.grad`? a call? is
this name followed by `.tensor`?) and the clues, and writes the help line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dglang.autograd.table import FUNCTIONS
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.library.habits import (
    COURSE_LIBRARY,
    LIBRARIES,
    OPTIMIZER_HELP,
    OPTIMIZERS,
    PAIR_FIELDS,
    RENAMED,
    TENSOR_HABITS,
    WRITTEN_INSTEAD,
    ZERO_GRAD_HELP,
    course_library,
    pair_field,
)
from dglang.interpreter.library.keyword_help import KEYWORDS
from dglang.interpreter.library.runtime import suggest

from . import ast_nodes as ast


def explain(error: DGError, rebound: tuple[str, Span] | None = None) -> DGError:
    """`error` with the help line its likely cause deserves, if it can tell. `rebound`: where the
    program last rebound a parameter inside `no_grad` (RunContext.rebound_parameter)."""
    node, clues = error.node, error.clues
    if isinstance(node, ast.Name) and error.kind == "NameError":
        if "before it is assigned" in error.message:
            error.help = f"'{node.name}' is assigned somewhere in this function, which makes it local throughout"
        else:
            error.help = library_prefix(node) or unknown_name(node.name, clues)
    elif isinstance(node, ast.Binary):
        explained(error, clues, (node.left, node.right))
    elif isinstance(node, ast.Attribute) and error.kind == "Warning":
        error.help = non_leaf_grad(node, clues)
    elif isinstance(node, ast.Attribute):
        explained(error, clues, (node.obj,))
        if node.name != "grad":
            habit(error, node)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        explained(error, clues, (node.func.obj,))
        habit(error, node.func)
    elif isinstance(node, ast.Grad) and clues[:1] == ("tensor",) and rebound is not None:
        name, where = rebound  # `grad` of a tensor that requires no grad, after `w = w - lr * w.grad`
        error.help = (
            f"'{name}' was rebound inside `no_grad` on line {where.line}, so it is no longer a leaf "
            f"that requires grad; update it in place instead: `{name} -= ...`"
        )
    return error


def explained(error: DGError, clues: tuple[str, ...], operands: tuple[ast.Expr, ...]) -> None:
    """A help line for the first operand that turned out to be None where a value was needed."""
    for kind, operand in zip(clues, operands, strict=False):
        if kind == "None" and error.help is None:
            error.help = why_none(operand)


def why_none(node: ast.Expr) -> str | None:
    """Why `node` may have been None."""
    if isinstance(node, ast.Attribute) and node.name == "grad":
        return "this .grad is None: no gradient has reached it yet (only leaves with requires_grad=True keep one)"
    if isinstance(node, ast.Call):
        return "the call gave None: a function that ends without `return` gives None"
    return None


# ---- PyTorch and NumPy habits (their names and DG's instead: library/habits.py) ----------------
# The builtins a prefixed call can become (`torch.exp` -> `exp`): the engine's and Python's that take tensors.
ENGINE_BUILTINS = frozenset({f.dg_name for f in FUNCTIONS if f.builtin} | {"sum", "mean", "max", "min", "abs"})


def habit(error: DGError, node: ast.Attribute) -> None:
    """`loss.backward()` and the like: a PyTorch habit's help line, instead of "did you mean"."""
    if error.kind != "AttributeError":
        return
    if node.name in TENSOR_HABITS and "tensor has no" in error.message:
        owner = node.obj.obj if isinstance(node.obj, ast.Attribute) and node.obj.name == "grad" else node.obj
        error.help = TENSOR_HABITS[node.name].format(obj=written(node.obj), owner=written(owner))
    elif node.name in PAIR_FIELDS and "tuple has no" in error.message and isinstance(node.obj, ast.Call):
        error.help = reduction_pair(node.name, node.obj)


def reduction_pair(field: str, call: ast.Call) -> str | None:
    """The help for `x.max(dim=1).values` or `max(x, dim=1).indices`; None for another call's tuple."""
    func, args = call.func, list(call.args)
    if isinstance(func, ast.Attribute) and func.name in ("max", "min"):
        reduction, tensor = func.name, func.obj
    elif isinstance(func, ast.Name) and func.name in ("max", "min") and args:
        reduction, tensor = func.name, args.pop(0)
    else:
        return None
    axis = dict(call.kwargs).get("dim") or (args[0] if args else None)
    return pair_field(field, written(call), written(tensor), reduction, written(axis) if axis is not None else "1")


def library_prefix(node: ast.Name) -> str | None:
    """`torch.tensor(...)`, `np.zeros(...)`, `F.cross_entropy(...)`, `optimizer.step()`: when a
    library or an optimizer the program never defined comes before a dot, what DG writes instead;
    None for any other name. Read from the program's text after the name (`torch.nn.functional.
    cross_entropy` is read to its last name)."""
    library = node.name
    if library not in LIBRARIES and library not in OPTIMIZERS:
        return None
    span = node.span
    after = ATTRIBUTES.match(span.source.line(span.line)[span.end_column - 1 :])
    if after is None:
        return None
    path = re.findall(r"\w+", after.group(0))
    attribute, prefix = path[-1], ".".join([library, *path[:-1]]) + "."
    if library in OPTIMIZERS:
        return ZERO_GRAD_HELP if attribute == "zero_grad" else OPTIMIZER_HELP
    if attribute in COURSE_LIBRARY:
        return course_library(attribute)
    if attribute in WRITTEN_INSTEAD:
        return WRITTEN_INSTEAD[attribute]
    if attribute == "no_grad":
        return "DG's contexts need no prefix: write `with no_grad:`"
    name = RENAMED.get(attribute, attribute)
    if library == "nn":
        return (
            "DG has no torch.nn; its course library, programs/nn.dg, is a module of DG functions: "
            "write `import nn` first (help(nn) lists them), or write a module of your own, nn.dg"
        )
    if path[0] == "autograd":  # torch.autograd.grad(y, x)
        return "DG's torch.autograd.grad is the builtin gradient: write `gradient(y, x)`"
    if name not in ENGINE_BUILTINS:
        return f"DG has no {attribute}; its tensor functions are builtins, with nothing to import: help() lists them"
    return f"DG's tensor functions are builtins, with nothing to import: write `{name}(...)` without `{prefix}`"


# Python's modules, which a program copied from Python code imports, and what DG writes instead
# (the help of the ImportError; `import numpy as np` gets it from the parser, syntax_errors.py).
PYTHON_MODULES = {
    "torch": "DG is built like PyTorch, with nothing to import: tensor(...), zeros(...), and `grad loss` "
    "where PyTorch writes loss.backward()",
    "numpy": "DG's tensors do NumPy's work here, with nothing to import: tensor([...]), zeros(n), x.sum(), a @ b",
    "math": "exp, log, sqrt, sin, cos, pi and inf are builtins: there is nothing to import",
    "random": "randn(...), rand(...) and seed(n) are builtins: there is nothing to import",
    "matplotlib": "DG draws graphs rather than plots: graph(y), or `dg graph FILE --var y -o y.svg`",
}
for alias, module in (("np", "numpy"), ("F", "torch"), ("pylab", "matplotlib")):
    PYTHON_MODULES[alias] = PYTHON_MODULES[module]
# fmt: off
PYTHON_ONLY_MODULES = frozenset((
    "os", "sys", "io", "re", "json", "time", "datetime", "pickle", "collections", "itertools", "functools",
    "typing", "pathlib", "subprocess", "socket", "shutil", "copy", "string", "statistics", "pandas", "sklearn",
    "scipy", "jax", "tensorflow", "torchvision",
))
# fmt: on
MODULE_FILES = "DG imports .dg files: one beside the program, or in a folder of the library path (--lib DIR, DG_LIB)"


def python_module(name: str) -> str | None:
    """The help line for importing `name` (its first part: `torch.nn`), when it is one of Python's."""
    first = name.split(".")[0]
    if first in PYTHON_MODULES:
        return PYTHON_MODULES[first]
    if first in PYTHON_ONLY_MODULES:
        return f"{first} is a Python module; a DG program cannot reach Python. {MODULE_FILES}"
    return None


ATTRIBUTES = re.compile(r"(\s*\.\s*[^\W\d]\w*)+")  # `.tensor`, `.nn.functional.relu` after a name


def non_leaf_grad(node: ast.Attribute, clues: tuple[str, ...]) -> str:
    """The help of the warning for reading .grad of a tensor computed by a recorded op (PyTorch
    warns too: "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed...").
    `clues`: the op that made the tensor, and where (locating.made_by)."""
    obj, (op, where) = written(node.obj), clues
    return (
        f"{obj} was computed by {op}{where}; to keep a parameter a leaf, update it in place "
        f"inside `with no_grad:` ({obj} -= lr * {obj}.grad); for dy/d{obj} at a computed value, use gradient(y, {obj})"
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
    if name in WRITTEN_INSTEAD:  # randperm(n)
        return WRITTEN_INSTEAD[name]
    if name in COURSE_LIBRARY:  # cross_entropy(...), taken from torch.nn.functional out of habit
        return course_library(name)
    return suggest(name, visible)
