"""The ops a test goes through, each called at its sample (Op.sample_arguments) unless the test
has a case of its own for it: what tells the author of a new op what to declare."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dglang.autograd.op import Op


def sampled(ops: Mapping[str, type[Op]]) -> list[str]:
    """The names of the ops that have a sample call, declared or made from their forward."""
    return sorted(name for name, op in ops.items() if op.sample_arguments() is not None)


def assert_each_has_a_call(ops: Mapping[str, type[Op]], cased: Iterable[str], own_case: str) -> None:
    """Each op has a case of the test's own or a sample call; `own_case` says how to add the first."""
    cased = set(cased)
    gone = {name for name in cased - set(ops) if " " not in name}  # ("abs (builtin)": a way to call one)
    assert not gone, f"cases of ops that are no longer declared: {sorted(gone)}"
    missing = sorted(set(ops) - cased - set(sampled(ops)))
    assert not missing, (
        f"{missing}: forward needs more than the op's tensors, so no call is made for it: declare `sample` "
        f"on the op, arguments its forward can take (autograd/op.py), or {own_case}"
    )
