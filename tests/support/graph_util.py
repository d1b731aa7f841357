"""Walking a recorded graph in tests (the engine's own walk happens inside backward)."""

from __future__ import annotations

from dglang.autograd import Tensor


def graph_behind(root: Tensor) -> list[Tensor]:
    """`root` and every tensor it was computed from that requires grad, each after all of its inputs."""
    order: list[Tensor] = []
    visited: set[Tensor] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        t, inputs_done = stack.pop()
        if inputs_done:
            order.append(t)
            continue
        if t in visited:
            continue
        visited.add(t)
        stack.append((t, True))
        if t.grad_fn is not None:
            stack.extend((inp, False) for inp in t.grad_fn.inputs if inp.requires_grad and inp not in visited)
    return order


def can_draw() -> bool:
    """Is there a program to lay out pictures with (the system's `dot`, or graphviz-pure, which pip
    installs with DG where it has a wheel)?"""
    from dglang.interpreter.seeing.render import layouts

    return bool(layouts())
