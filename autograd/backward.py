"""Reverse mode: walk the recorded graph from an output back to its leaves, applying each rule.

The walk is iterative (a million-node chain needs no recursion), visits each node once after
every consumer of it has sent its gradient (a topological order, found as it goes: a tensor is
ready when its count of consumers still to send reaches zero), and runs the rules with
recording off, unless the caller wants the gradient itself to be differentiable.

This module sits below tensor.py (whose `backward` method calls it), so it names no Tensor
class: the few tensors it makes (a seed of ones, zeros for an input the output does not use)
are made with the class of the tensors it was given, `type(root)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import hooks
from .exceptions import GradError, ShapeError, TensorTypeError, type_name
from .inplace import FLOAT64
from .node import Tensor, recording, set_grad_enabled, updates_in_place
from .op import builtin


def _is_tensor(x: Any) -> bool:
    """Is `x` a Tensor (whose class says so with `dg_type_name`: this module cannot import it)?"""
    return getattr(type(x), "dg_type_name", None) == "tensor"


def _new(like: Tensor, data: Any) -> Tensor:
    """A new leaf holding `data`, of the class of `like` (the seed, zeros for gradient())."""
    hooks.allocating(np.size(data), "a gradient")
    return type(like)(data)


def count_consumers(root: Tensor) -> dict[Tensor, int]:
    """For each tensor `root` depends on (through inputs that require grad), how many recorded
    ops use it: backward may visit a tensor only once all of them have sent their gradient."""
    consumers = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop().grad_fn
        if node is None:
            continue
        for inp in node.inputs:
            if inp.requires_grad:
                if inp in consumers:
                    consumers[inp] += 1
                else:
                    consumers[inp] = 1
                    stack.append(inp)
    return consumers


def _seed(root: Tensor, seed: Any) -> Tensor:
    if not _is_tensor(root):
        raise TensorTypeError(f"grad needs a tensor, got {type_name(root)}")
    if not root.requires_grad:
        raise GradError(
            "this tensor is not part of any graph: nothing it was computed from requires grad",
            help="create the inputs with requires_grad=True, and compute outside `no_grad`",
        )
    return _checked_seed(root, seed, "grad", "`grad y with ones_like(y)`")


def _checked_seed(root: Tensor, seed: Any, who: str, how: str) -> Tensor:
    """The seed as a tensor of root's shape; ones for a one-element root. `how` shows how to give one."""
    if seed is None:
        if root.size != 1:
            raise GradError(
                f"{who} of a tensor with {root.size} elements (shape {root.shape}) needs a seed",
                help=f"reduce it to one element (.sum() or .mean()), or give a seed: {how}",
            )
        return _new(root, np.ones(root.shape))
    if not _is_tensor(seed):
        seed = _new(root, np.array(seed, dtype=float))  # a copy: later changes to it must not leak in
    elif seed.dtype != root.dtype:  # it would flow through sums and copies into an int or bool .grad
        raise TensorTypeError(
            f"the seed is {seed.describe()}, but the gradients of a {root.dtype} tensor are {root.dtype}",
            help=f"give a float seed, such as ones_like(y) or tensor([1.0, 2.0]) (the seed of {who} sets them)",
        )
    if seed.shape != root.shape:
        raise ShapeError(f"the seed has shape {seed.shape} but the output has shape {root.shape}")
    return seed


def _propagate(root: Tensor, seed: Tensor, create_graph: bool, keep: set[Tensor] | None) -> dict[Tensor, Tensor]:
    """Send `seed` back from `root`; return the gradient of each leaf (or of each tensor in `keep`).

    Tensors are dictionary keys by identity (their `==` is elementwise, their hash is id-based).
    """
    consumers = count_consumers(root)
    grads: dict[Tensor, Tensor] = {root: seed}
    found: dict[Tensor, Tensor] = {}
    on_visit, on_step = recording.on_visit, recording.on_step
    for listener in recording.on_backward:
        listener(root, seed)
    updates = updates_in_place()  # no in-place update since a node's epoch: nothing to check
    previous = set_grad_enabled(create_graph)
    ready = [root]  # tensors whose every consumer has sent its gradient
    # Sums this walk made (`before + gi`) that nothing but `grads` holds yet: the next gradient to
    # the same tensor may be added into one in place (the same addition, without a new array and
    # its tensor: an RNN's weights collect one per character). Not when the sums are themselves
    # recorded, nor when a listener to ops must see each addition.
    owned: set[int] | None = None if create_graph or recording.on_op else set()
    # This loop runs once per recorded node (200,000 times for scalar-chain): the methods it calls
    # are looked up once, and a listener loop only runs when there is a listener.
    pop, push, take, peek = ready.pop, ready.append, grads.pop, grads.get
    try:
        while ready:
            t = pop()
            g = take(t, None)
            if owned:  # handed on now (a rule may pass it to its inputs as it is): no longer the walk's alone
                owned.discard(id(g))
            node = t.grad_fn
            if g is not None:
                if on_visit:
                    for listener in on_visit:
                        listener(t, g)
                if node is None if keep is None else t in keep:
                    found[t] = g
            if node is None:
                continue
            if g is None:  # nothing reached it, so nothing flows on; its inputs still count it as done
                sent: tuple[Any, ...] = (None,) * len(node.inputs)
            else:
                if node.epoch != updates and node.changed_since(t):
                    raise GradError(
                        f"a tensor the {node.op.name} step needs was changed in place after it was used",
                        help="do in-place updates after `grad`, or compute again after the update",
                    )
                # the op's rule, given g, the output and the op's arguments (a call without `*`
                # for one or two of them: Python runs it without a C frame of its own)
                rule, args = node.op.backward, node.args
                if len(args) == 2:
                    sent = rule(g, t, args[0], args[1])
                elif len(args) == 1:
                    sent = rule(g, t, args[0])
                else:
                    sent = rule(g, t, *args)
                if on_step:
                    for listener in on_step:
                        listener(t, g, sent)
            inputs = node.inputs
            if len(sent) != len(inputs):
                raise TypeError(f"the {node.op.name} rule gave {len(sent)} gradients for {len(inputs)} inputs")
            # Inputs in reverse, so the first input is visited first: backward then walks down the
            # first operand's branch before the second's, the order a student reads the expression.
            i = len(inputs)
            for inp in reversed(inputs):  # (reversed() and a counter: the fastest loop over 1 or 2)
                i -= 1
                if not inp.requires_grad:
                    continue
                gi = sent[i]
                if gi is not None:
                    try:  # the arrays' own shapes: Tensor.shape is a property, a call per edge
                        same = gi.data.shape == inp.data.shape
                    except AttributeError:  # a Python number inside (a constant made from one)
                        same = gi.shape == inp.shape
                    if not same:
                        gi = gi.sum_to(inp.shape)  # undo broadcasting
                    before = peek(inp)
                    if before is None:
                        grads[inp] = gi
                    elif owned is not None and id(before) in owned and _addable(before.data, gi.data):
                        np.add(before.data, gi.data, out=before.data)
                    else:
                        total = grads[inp] = before + gi
                        if owned is not None:  # (the sum it replaces goes: its id may be a new object's)
                            owned.discard(id(before))
                            owned.add(id(total))
                waiting = consumers[inp] - 1
                consumers[inp] = waiting
                if not waiting:
                    push(inp)
    finally:
        set_grad_enabled(previous)
    return found


def _addable(into: Any, value: Any) -> bool:
    """Can `value` be added into the array `into` in place, giving what `into + value` gives?"""
    return (
        type(into) is np.ndarray
        and type(value) is np.ndarray
        and into.dtype is FLOAT64
        and value.dtype is FLOAT64
        and into.shape == value.shape
    )


def backward(root: Tensor, seed: Any = None, create_graph: bool = False) -> None:
    """Accumulate d root / d leaf into `.grad` of every leaf that requires grad (the `grad` statement)."""
    found = _propagate(root, _seed(root, seed), create_graph, keep=None)
    previous = set_grad_enabled(create_graph)
    try:
        handed = {id(seed)}
        for leaf, g in found.items():
            leaf.grad = _unshared(g, handed) if leaf.grad is None else leaf.grad + g
            for listener in recording.on_leaf:
                listener(leaf, g, leaf.grad)
    finally:
        set_grad_enabled(previous)


def _unshared(g: Tensor, handed: set[int]) -> Tensor:
    """`g`, or a new copy if it was handed out already (as the seed, or to another leaf).

    A rule may send one gradient object to several inputs (`a + b` sends g to both), but two
    leaves must never share a `.grad`: an in-place update of one would change the other.
    """
    if id(g) in handed:
        g = g + 0.0  # recorded when building a graph of gradients, so it stays differentiable
    handed.add(id(g))
    return g


@builtin
def gradient(y: Any, xs: Tensor | Sequence[Tensor], seed: Any = None, strict: bool = False) -> Any:
    """dy/dx as new tensors (xs: one tensor or a list), themselves recorded, so they can be differentiated again.

    >>> x = tensor(2.0, requires_grad=True)
    >>> gradient(x ** 3, x)
    tensor(12., grad_fn=<MulBackward>)

    A number for `y` is a constant: its gradient is zero, like that of any `y` not computed from `x`.
    """
    many = isinstance(xs, list | tuple)
    targets = list(xs) if many else [xs]
    for x in targets:
        if not _is_tensor(x):
            raise TensorTypeError(f"gradient() differentiates with respect to tensors, not {type_name(x)}")
    if not (_is_tensor(y) or isinstance(y, int | float)):
        raise TensorTypeError(
            f"gradient() differentiates a tensor, not {type_name(y)}",
            help="give one output; for several, add them up or call gradient() once for each",
        )
    if not targets:
        return []
    if not _is_tensor(y):  # a number: a constant, whose gradient is zero
        y = _new(targets[0], y)
    seed = _checked_seed(y, seed, "gradient()", "`gradient(y, x, ones_like(y))`")
    found = _propagate(y, seed, create_graph=True, keep=set(targets)) if y.requires_grad else {}
    results = []
    handed = {id(seed)}
    for i, x in enumerate(targets):
        if x in found:
            results.append(_unshared(found[x], handed))
        elif strict:
            which = x.name or ("this input" if not many else f"input {i} of the list")
            raise GradError(
                f"gradient(..., strict=True): the output does not depend on {which} (shape {x.shape})",
                help="drop strict=True to get zeros for an input the output does not use",
            )
        else:
            results.append(_new(x, np.zeros(x.shape)))
    return results if many else results[0]
