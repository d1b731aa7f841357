"""Tensor's methods written from the op declarations: a line in autograd/tensor.py's written region
for each op declared `method = True` that no line of Tensor's body spells.

Each is written as the hand-written lines above it are (`def softplus(self) -> Tensor: return
unary(functions.Softplus, self)`), so that Python's `x.softplus()` works as DG's does. A line moved
up beside its kind is hand-written from then on, and no longer written here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import regions

from dglang.autograd.op import Op
from dglang.autograd.table import FUNCTIONS

TENSOR = Path(__file__).resolve().parents[1] / "autograd" / "tensor.py"
REGION = "methods"
COMMENT = ("#", "")
MAX_LINE = 120  # ruff's line length (pyproject.toml)


def hand_written(text: str) -> set[str]:
    """The names Tensor's body defines outside the written region."""
    tree = ast.parse(regions.replaced(text, REGION, "", COMMENT))
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    return {n.name for n in tensor.body if isinstance(n, ast.FunctionDef)}


def method_line(name: str, op: type[Op]) -> str:
    """`def name(self, ...) -> Tensor: return ...` for `op`, or ValueError when its forward is not
    one a line can hand its arguments to (the tensor first, then the op's other arguments)."""
    parameters = list(op.signature.parameters.values())
    if op.variadic or op.call is not None or not parameters or parameters[0].name != op.inputs[0]:
        raise ValueError(
            f"x.{name}(): {op.name}'s forward does not take the tensor first and then its other arguments, "
            f"so its method cannot be written for it: write `def {name}(self, ...)` in Tensor by hand "
            "(autograd/tensor.py, beside its kind)"
        )
    declared, passed = ["self"], []
    for p in parameters[1:]:
        if p.kind is p.KEYWORD_ONLY or p.kind is p.VAR_KEYWORD:
            raise ValueError(f"x.{name}(): {op.name}'s forward takes keywords only; write its method by hand")
        star = "*" if p.kind is p.VAR_POSITIONAL else ""
        default = "" if p.default is p.empty else f" = {p.default!r}"
        declared.append(f"{star}{p.name}: Any{default}")
        passed.append(f"{star}{p.name}")
    owner = f"{op.__module__.rpartition('.')[2]}.{op.__name__}"
    arguments = ", ".join(["self", *passed])
    if op.composed:
        body = f"{owner}.forward({arguments})"
    elif len(op.inputs) == 1:
        body = f"unary({owner}, {arguments})"
    elif len(parameters) == 2:
        body = f"binary({owner}, {arguments})"
    else:
        body = f"run_op({owner}, {arguments})"
    line = f"    def {name}({', '.join(declared)}) -> Tensor: return {body}"
    return line + ("  # noqa: E501" if len(line) > MAX_LINE else "") + "\n"


def rewrite(text: str) -> str:
    """tensor.py's text with its written region holding a line for each method it does not spell."""
    spelled = hand_written(text)
    wanted = [f for f in FUNCTIONS if f.method and f.dg_name not in spelled]
    return regions.replaced(text, REGION, "".join(method_line(f.dg_name, f.fn.op) for f in wanted), COMMENT)
