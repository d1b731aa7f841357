"""What each rule reads (Op.saved, read from the rule's text) is all it reads: checked on every
recorded node of every row of the tinygrad table, by running the node's rule again with each
value it does not read replaced by nan (as an update in place would replace it) and finding the
same gradients. And backward refuses only when a value the rule reads was changed in place, as
PyTorch does with its saved tensors' versions.
"""

from __future__ import annotations

import numpy as np
import pytest
from tinygrad_cases import CASES, Case

from dglang.autograd import Tensor, no_grad
from dglang.autograd.exceptions import GradError
from dglang.autograd.op import rule_reads
from dglang.autograd.table import OPS
from dglang.interpreter.host.session import Session

SESSION = Session()
ROWS = [c for c in CASES if c.grad and not c.error]


def nodes(out: Tensor) -> list[Tensor]:
    """Every tensor of the graph behind `out` made by a recorded op."""
    found, stack, seen = [], [out], {id(out)}
    while stack:
        t = stack.pop()
        if t.grad_fn is not None:
            found.append(t)
            for x in t.grad_fn.inputs:
                if id(x) not in seen:
                    seen.add(id(x))
                    stack.append(x)
    return found


def blanked(value: object) -> object:
    """A tensor with the same shape, dtype and requires_grad, every value nan (or the largest int)."""
    if type(value) is tuple:
        return tuple(blanked(v) for v in value)
    if type(value) is not Tensor or value.dtype != "float":
        return value
    return Tensor(np.full(np.shape(value.data), np.nan), requires_grad=value.requires_grad)


def same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    return np.array_equal(np.asarray(a.data), np.asarray(b.data), equal_nan=True)  # type: ignore[attr-defined]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", ROWS, ids=[f"{c.test}-{i}" for i, c in enumerate(ROWS)])
def test_a_rule_reads_nothing_but_what_it_saves(case: Case) -> None:
    arrays = case.arrays()
    for name, x in zip("abcd", arrays, strict=False):
        SESSION.globals.vars[name] = Tensor(x.copy(), requires_grad=x.dtype.kind == "f")
    SESSION.run((case.expr if "out =" in case.expr else f"out = {case.expr}") + "\n")
    out = SESSION.globals.vars["out"]
    if type(out) is not Tensor:
        return
    for t in nodes(out):
        node = t.grad_fn
        positions, reads_out = node.op.saved()
        g = Tensor(np.ones(np.shape(t.data)))
        with no_grad():
            expected = node.op.backward(g, t, *node.args)
            args = [a if i in positions else blanked(a) for i, a in enumerate(node.args)]
            got = node.op.backward(g, t if reads_out else blanked(t), *args)
        assert all(same(e, x) for e, x in zip(expected, got, strict=True)), (node.op.name, positions, reads_out)


@pytest.mark.every_op
def test_every_rule_is_read() -> None:
    """Every op with a rule has its reads found in its text (none falls back to "everything"),
    and the ops whose rules read only shapes save nothing."""
    fallback = [name for name, op in OPS.items() if op.backward is not None and op.saved() == rule_reads(print)]
    assert fallback == []
    for name in ("Add", "Sub", "Neg", "Reshape", "Broadcast", "SumTo"):
        assert OPS[name].saved() == (frozenset(), False), name
    assert OPS["Tile"].saved()[0] >= {5, 6}  # its `*reps`, read past the named parameters


def test_an_input_the_rule_does_not_read_may_change_in_place_after_the_op() -> None:
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 4.0]))
    y = (a + b).sum()  # Add's rule sends g to both: it reads neither value
    with no_grad():
        b += 1.0
    y.backward()
    assert a.grad is not None and a.grad.data.tolist() == [1.0, 1.0]


def test_an_input_the_rule_reads_may_not() -> None:
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 4.0]))
    y = (a * b).sum()  # Mul's rule sends g·b to a: it reads b
    with no_grad():
        b += 1.0
    with pytest.raises(GradError, match="Mul step needs was changed in place"):
        y.backward()


def test_the_output_counts_when_the_rule_reads_it() -> None:
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = a.exp()  # Exp's rule is g·out
    with no_grad():
        y += 1.0
    with pytest.raises(GradError, match="Exp step"):
        y.sum().backward()
    z = a + 1.0  # Add's is g
    with no_grad():
        z += 1.0
    z.sum().backward()


def test_what_the_rule_text_shows() -> None:
    def rule(g, out, a, b, axis):  # type: ignore[no-untyped-def]
        return g.broadcast_to(a.shape) * b.requires_grad, (g if b.requires_grad else None)

    assert rule_reads(rule) == (frozenset(), False)

    def reads_b(g, out, a, b):  # type: ignore[no-untyped-def]
        return g * b, None

    assert rule_reads(reads_b) == (frozenset({1}), False)
