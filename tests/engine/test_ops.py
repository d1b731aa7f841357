"""The op declarations (autograd/op.py, one class per op) and what is derived from them.

- Each op is declared once and completely: a name of its own, a rule text per input, forward's
  parameters naming its inputs, and every node a graph records has the inputs its op declares.
- The op table (autograd/table.py) reaches each op's NumPy forward and its rule by name, as a
  code generator would; the op modules know nothing of tensor.py.
- Every public function is exported by the package, DG's builtins are the declared ones, and
  every op declared a tensor method is one of Tensor's methods.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from graph_util import graph_behind

from dglang import autograd
from dglang.autograd import Tensor
from dglang.autograd.op import Composed, Op
from dglang.autograd.table import FUNCTIONS, OP_MODULES, OPS, declared_in
from dglang.interpreter.host.session import Session
from dglang.interpreter.seeing.rules import rule_label

AUTOGRAD = Path(autograd.__file__).parent
MODULES = sorted(p.stem for p in AUTOGRAD.glob("*.py"))
DECLARED = [op for module in OP_MODULES for op in declared_in(module)]


@pytest.mark.every_op
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
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("setattr", "globals"):
                assert ast.unparse(node.args[0]) != "Tensor", f"{m}.py: {ast.unparse(node)}"
                assert ast.unparse(node.func) != "globals", f"{m}.py writes into a module's globals"


@pytest.mark.every_op
def test_the_op_modules_know_nothing_of_tensor_py() -> None:
    """tensor.py imports the op modules (Tensor's methods hand each op to `run_op`), so they cannot
    import it: an op's forward sees NumPy values, its rule the tensors it is given."""
    for module in OP_MODULES:
        tree = ast.parse(Path(module.__file__ or "").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not imported & {"tensor", "node", "backward"}, f"{module.__name__} imports {imported}"


# ---- the declarations ------------------------------------------------------------------------
@pytest.mark.every_op
def test_each_op_is_declared_once_with_a_rule_per_input() -> None:
    recorded = [op for op in DECLARED if op.backward is not None]
    assert len(recorded) >= 30
    names = [op.name for op in DECLARED]
    assert len(names) == len(set(names)), f"two ops share a name: {sorted(names)}"
    # a name calls one op, as a builtin and as a method; PyTorch's two unfolds are one name for two
    # (the builtin unfold, F.unfold's windows of an image, and the method x.unfold, windows along an axis)
    ways = [(op.function, "method" if op.method and not op.builtin else "builtin") for op in DECLARED]
    assert len(set(ways)) == len(DECLARED), "two ops are called by one name, in one way"
    for op in recorded:
        assert len(op.rules) == len(op.inputs) >= 1 and all(op.rules) and all(op.inputs), op.name
        assert "x" not in op.inputs, f"{op.name}: name its inputs a, b, ... (x reads like a program's variable)"
    for op in DECLARED:
        if op.backward is None and not op.composed:
            assert not op.rules, f"{op.name} has rule texts but no rule"


@pytest.mark.every_op
def test_forward_names_the_inputs_and_the_rule_takes_what_forward_takes() -> None:
    for op in DECLARED:
        forward = list(inspect.signature(op.forward).parameters)
        if not op.variadic:
            assert set(op.inputs) <= set(forward), f"{op.name}: forward{tuple(forward)} lacks {op.inputs}"
        if op.backward is not None:
            rule = list(inspect.signature(op.backward).parameters)
            assert rule[:2] == ["g", "out"], f"{op.name}: a rule takes g and out first, not {rule[:2]}"
            assert len(rule) - 2 == len(forward), f"{op.name}: its rule takes forward's arguments, {forward}"


@pytest.mark.parametrize(
    "declaration",
    [
        {"inputs": ("a", "b"), "rules": ("g",)},  # a rule for one input of two
        {"rules": ("g",)},  # rule text without a rule
        {"numbers": True},  # a number-taking builtin that is not a builtin
    ],
)
def test_an_incomplete_declaration_is_refused(declaration: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="Bad"):
        type("Bad", (Op,), {"forward": staticmethod(lambda a: a), **declaration})


def test_an_op_is_a_declaration_not_a_value() -> None:
    with pytest.raises(TypeError, match="declaration"):
        OPS["Mul"]()


def test_the_op_table_gives_each_forward_and_rule_by_name() -> None:
    """What a code generator reads: OPS[name].forward on NumPy values, OPS[name].backward on tensors."""
    assert set(OPS) == {op.name for op in DECLARED if not op.composed}
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert np.array_equal(OPS["Mul"].forward(a, b), a * b)
    assert np.array_equal(OPS["Sum"].forward(np.ones((2, 3)), 0), [2.0, 2.0, 2.0])
    ga, gb = OPS["Mul"].backward(Tensor(np.ones(2)), None, Tensor(a, requires_grad=True), Tensor(b, requires_grad=True))
    assert np.array_equal(ga.data, b) and np.array_equal(gb.data, a)
    assert OPS["Mul"].rule_for(1) == ("b", "g·a") and str(OPS["Exp"].rules) == "('g·exp a',)"


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
    seen: dict[str, type[Op]] = {}
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
    assert set(seen) <= set(OPS)


# ---- the public functions ------------------------------------------------------------------
@pytest.mark.every_op
def test_every_public_function_is_exported() -> None:
    builtins = {f.name for f in FUNCTIONS if f.builtin}
    # x.unfold: autograd.unfold is F.unfold, the builtin of the same name
    method_only = [f for f in FUNCTIONS if not f.builtin and f.name in builtins]
    missing = [f.name for f in FUNCTIONS if getattr(autograd, f.name, None) is not f.fn and f not in method_only]
    assert all(getattr(autograd, f.name) is not f.fn and getattr(Tensor, f.name) for f in method_only)
    assert not missing, f"declared but not exported by autograd/__init__.py: {missing}"
    imported = {n for n, v in vars(autograd).items() if not n.startswith("_") and not isinstance(v, ModuleType)}
    ops = {f.name for f in FUNCTIONS if hasattr(f.fn, "op")}
    assert set(autograd.__all__) == imported | ops, "__all__: what autograd/__init__.py imports, and the ops"


@pytest.mark.every_op
def test_every_tensor_method_a_program_may_call_is_one_of_tensor_s() -> None:
    """Tensor lists its whole API: an op declared a method has a method of its name there."""
    for f in FUNCTIONS:
        if f.method:
            assert callable(getattr(Tensor, f.dg_name, None)), f"Tensor has no method {f.dg_name}"


@pytest.mark.every_op
def test_builtins_are_the_declared_ones() -> None:
    table = Session().builtins.vars
    for f in FUNCTIONS:
        if f.builtin:
            assert f.dg_name in table, f.dg_name
            assert table[f.dg_name].fn is f.fn or f.numbers, f"{f.dg_name} is another builtin's name"
    assert table["exp"].fn(0) == 1.0 and isinstance(table["exp"].fn(Tensor(np.zeros(2))), Tensor)
    assert table["tensor"].signature == "tensor(data, requires_grad=False, dtype=None)"
    assert table["softmax"].signature == "softmax(a, axis=-1)" and table["where"].signature == "where(condition, a, b)"


def test_composed_functions_record_the_ops_they_use() -> None:
    x = autograd.tensor([1.0, 2.0], requires_grad=True)
    assert x.logsumexp(keepdims=True).grad_fn.op.name == "Add"  # the last of the ops logsumexp is built from
    assert all(op.composed for op in DECLARED if issubclass(op, Composed))


EVERY_OP = [op for module in OP_MODULES for op in declared_in(module) if hasattr(op, "forward")]


def _signature_binds(op: type[Op], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        bound = op.signature.bind(*args, **kwargs)
    except TypeError:
        return TypeError
    bound.apply_defaults()
    return bound.args


@pytest.mark.parametrize("op", EVERY_OP, ids=lambda op: op.name)
def test_an_ops_call_binds_its_arguments_as_its_signature_does(op: type[Op]) -> None:
    """Op.bind (what run_op does with keywords, conv2d(x, w, padding=1)) gives what
    Signature.bind and apply_defaults give, for every split of the parameters between
    positions and names, some left out; a wrong call (a name unknown or twice) fails as theirs."""
    names = list(op.signature.parameters)
    values = [object() for _ in names]  # (no == on them: a tensor's is elementwise)
    calls = []
    for positional in range(len(names) + 1):
        rest = list(zip(names[positional:], values[positional:], strict=True))
        for left_out in range(len(rest) + 1):
            calls.append((tuple(values[:positional]), dict(rest[:left_out])))
            calls.append((tuple(values[:positional]), dict(rest[left_out:])))
        if names:
            calls.append((tuple(values[:positional]), {"not_a_parameter": 1}))
            calls.append((tuple(values[:positional]), {names[0]: 1}))  # twice, when positional > 0
    for args, kwargs in calls:
        expected = _signature_binds(op, args, kwargs)
        if expected is TypeError:
            with pytest.raises(TypeError):
                op.bind(args, kwargs)
        else:
            got = op.bind(args, kwargs)
            assert len(got) == len(expected) and all(g is e for g, e in zip(got, expected, strict=True)), (args, kwargs)
