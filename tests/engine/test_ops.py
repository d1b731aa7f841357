"""The op declarations (autograd/op.py) and what is derived from them.

- Each op is declared once and completely: one rule text per input, a name of its own, and every
  node a graph records has as many inputs as its op declares.
- Every public function is exported by the package, and DG's builtins are the registered ones.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from graph_util import graph_behind

from dglang import autograd
from dglang.autograd import Tensor
from dglang.autograd.op import FUNCTIONS, Op
from dglang.interpreter.host.session import Session
from dglang.interpreter.seeing.rules import rule_label

AUTOGRAD = Path(autograd.__file__).parent
MODULES = sorted(p.stem for p in AUTOGRAD.glob("*.py"))


def test_no_module_adds_methods_to_tensor() -> None:
    """Tensor's whole API is in its own body: nothing assigns `Tensor.x = ...` or calls setattr on it."""
    for m in MODULES:
        for node in ast.walk(ast.parse((AUTOGRAD / f"{m}.py").read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                    assert not (isinstance(t, ast.Attribute) and ast.unparse(t.value) == "Tensor"), (
                        f"{m}.py: {ast.unparse(node)}"
                    )
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr":
                assert ast.unparse(node.args[0]) != "Tensor", f"{m}.py: {ast.unparse(node)}"


# ---- the declarations ------------------------------------------------------------------------
def declared_ops() -> list[Op]:
    modules = [getattr(autograd, m) for m in MODULES if m != "__init__" and hasattr(autograd, m)]
    return [v for module in modules for v in vars(module).values() if isinstance(v, Op)]


def test_each_op_is_declared_once_with_a_rule_per_input() -> None:
    ops = declared_ops()
    assert len(ops) >= 30
    names = [op.name for op in ops]
    assert len(set(names)) == len({id(op) for op in ops}), f"two ops share a name: {sorted(names)}"
    for op in ops:
        assert len(op.rules) == len(op.inputs) >= 1 and all(op.rules) and all(op.inputs), op
        assert "x" not in op.inputs, f"{op.name}: name its inputs a, b, ... (x reads like a program's variable)"
        assert str(op) == op.name


def test_a_declaration_must_give_a_rule_for_each_input() -> None:
    with pytest.raises(ValueError, match="one rule per input"):
        Op("Bad", inputs=("a", "b"), rules=("g",))


def a_graph_of_every_kind(x: Tensor) -> Tensor:
    m = (x.reshape(2, 2) @ x.reshape(2, 2).T).exp().log() * autograd.sigmoid(x[None, :2])
    s = autograd.stack([x, x.tanh()]).softmax(axis=0)
    shaped = autograd.broadcast_to(x, (3, 4)).sum(axis=0) + autograd.transpose(x.reshape(2, 2), (1, 0)).flatten()
    elementwise = (x.sqrt() + x.sin() * x.cos() + x.relu() + abs(x) - x / 3 + x % 2 + x**2).mean()
    pair = autograd.maximum(x, 0.1) + autograd.minimum(x, 0.2) + autograd.where(x > 0.5, x, -x)
    reduced = x.max() + x.min() + (-x).sum() + x.reshape(2, 2).mT.sum()
    joined = autograd.concat([s[0], x**2]).max() + m.sum() + shaped.sum() + pair.sum() + reduced + elementwise
    return autograd.gradient(joined, x).sum() + joined  # gradients of gradients: IndexAdd, SumTo


def test_every_recorded_node_has_the_inputs_its_op_declares() -> None:
    x = autograd.tensor([0.3, 0.8, 1.1, 0.6], requires_grad=True)
    seen: dict[str, Op] = {}
    for t in graph_behind(a_graph_of_every_kind(x)):
        node = t.grad_fn
        if node is None:
            continue
        seen[node.op.name] = node.op
        if not node.op.variadic:
            assert len(node.inputs) == len(node.op.inputs), f"{node.op.name}: {len(node.inputs)} inputs"
        for position in range(len(node.inputs)):
            assert rule_label(node.op, position).count(": ") >= 1
    assert len(seen) >= 30, f"the graph above should use (nearly) every op, it uses {sorted(seen)}"


# ---- the public functions ------------------------------------------------------------------
def test_every_public_function_is_exported() -> None:
    missing = [f.name for f in FUNCTIONS if getattr(autograd, f.name, None) is not f.fn]
    assert not missing, f"registered with @public but not exported by autograd/__init__.py: {missing}"
    imported = {n for n, v in vars(autograd).items() if not n.startswith("_") and not isinstance(v, ModuleType)}
    assert set(autograd.__all__) == imported, "__all__ should list what autograd/__init__.py imports"


def test_builtins_are_the_registered_ones() -> None:
    table = Session().builtins.vars
    for f in FUNCTIONS:
        if f.builtin:
            assert f.dg_name in table, f.dg_name
            assert table[f.dg_name].fn is f.fn or f.numbers, f"{f.dg_name} is another builtin's name"
    assert table["exp"].fn(0) == 1.0 and isinstance(table["exp"].fn(Tensor(np.zeros(2))), Tensor)
    assert table["tensor"].signature == "tensor(data, requires_grad=False, dtype=None)"
