"""What recording keeps: a Node per op, and the state it depends on (grad mode, in-place updates,
and whoever listens to the engine).

tensor.py makes the nodes (`run_op`), backward.py walks them; both read this module, which reads
nothing else of the engine but the op declarations' type.
"""

from __future__ import annotations

from typing import Any, Protocol

from .op import Op


class Tensor(Protocol):
    """What this module reads and writes of a tensor: tensor.py's Tensor, which imports this module
    (so this module names it by what it needs, not by an import)."""

    version: int  # the count of in-place updates when its values were last replaced in place
    requires_grad: bool
    grad_fn: Node | None


_grad_enabled = True
# Counts in-place updates. Each node remembers the count when it was made and each tensor the
# count of its last in-place update, so backward can tell (cheaply, and only when something was
# updated at all) whether a value a rule needs has changed since the op ran.
_inplace_updates = 0


class Node:
    """How a tensor was made: the op (its declaration), its inputs, and its other arguments.

    `args` is what the op's rule receives after g and the output, in forward's order: the inputs
    (tensors) and the op's other arguments (an axis, a shape). For an op with no other
    arguments it is `inputs` itself, so most nodes hold one tuple.
    `epoch` is the in-place update count when the op ran: an input (or the output) updated in
    place after that would make the rule read the wrong values, and backward refuses.
    `where` and `call` are opaque slots for whoever builds graphs (the interpreter puts the
    source span and the DG call there, through `recording`); the engine never reads them. Two
    slots rather than one tuple: a node is made per op, and a tuple each would cost 56 bytes.
    """

    __slots__ = ("args", "call", "epoch", "inputs", "op", "where")

    def __init__(self, op: type[Op], inputs: tuple[Tensor, ...], args: tuple[Any, ...], epoch: int) -> None:
        self.op = op
        self.inputs = inputs
        self.args = args
        self.epoch = epoch
        self.where: Any = None
        self.call: Any = None

    def changed_since(self, out: Tensor) -> bool:
        """Was a value the op's rule reads (an input's, or the output's) updated in place after
        this op ran? An input the rule reads only the shape of may change (Op.saved)."""
        if self.epoch == _inplace_updates:  # nothing at all was updated in place since: the usual case
            return False
        return self.op.changed(self, out)

    def __repr__(self) -> str:
        return f"<{self.op.name}Backward>"


class Recording:
    """What the engine tells whoever listens, and the provenance it stamps on each node.

    where, call   provenance, kept current by whoever runs the ops (the interpreter: the site of
                  the expression being evaluated, the DG call it runs in) and stamped on each
                  recorded node as `node.where`, `node.call`; the engine never looks inside
    listeners     objects told what happens, in the order they started listening; each may define
                  any of these methods, and only those it defines are called:
                    on_record(t)              a node was recorded (t is its output)
                    on_backward(root, seed)   a backward pass begins
                    on_visit(t, g)            the pass reached t with gradient g (leaves too)
                    on_step(t, g, sent)       t's rule ran: g arrived, `sent` went to its inputs
                    on_leaf(leaf, g, total)   g accumulated into leaf.grad, which is now `total`
                    on_op(op, args, out)      an op ran, recorded or not (a tracer's view: the
                                              arguments as given, tensors among them, and out)
                    on_value(t, value)        t became the Python value `value` (a condition's
                                              truth, .item(), .tolist(), an index)
    With no listener each event costs one test of an empty tuple.
    """

    EVENTS = ("on_record", "on_backward", "on_visit", "on_step", "on_leaf", "on_op", "on_value")
    __slots__ = ("call", "listeners", "where", *EVENTS)

    def __init__(self) -> None:
        self.where: Any = None
        self.call: Any = None
        self.listeners: tuple[Any, ...] = ()
        self._index()

    def listen(self, listener: Any) -> None:
        """Start telling `listener` what happens (after those already listening)."""
        self.listeners = (*self.listeners, listener)
        self._index()

    def stop_listening(self, listener: Any) -> None:
        self.listeners = tuple(x for x in self.listeners if x is not listener)
        self._index()

    def _index(self) -> None:
        """One tuple of bound methods per event, so the engine calls exactly the methods defined."""
        for event in self.EVENTS:
            found = (getattr(x, event, None) for x in self.listeners)
            setattr(self, event, tuple(f for f in found if f is not None))

    def save(self) -> tuple[Any, Any, tuple[Any, ...]]:
        """Provenance and listeners as they are, for `restore` (a host scopes them to one run)."""
        return self.where, self.call, self.listeners

    def restore(self, saved: tuple[Any, Any, tuple[Any, ...]]) -> None:
        self.where, self.call, self.listeners = saved
        self._index()


recording = Recording()


def tell_op(op: type[Op], args: tuple[Any, ...], out: Tensor) -> Tensor:
    """Tell whoever listens that `op` ran on `args` and made `out` (a tracer); returns `out`."""
    for listener in recording.on_op:
        listener(op, args, out)
    return out


def told(t: Tensor, value: Any) -> Any:
    """`value`, which `t` just became, after telling whoever listens (a tracer guards on it)."""
    for listener in recording.on_value:
        listener(t, value)
    return value


# ---- grad mode ----------------------------------------------------------------------------
def is_grad_enabled() -> bool:
    return _grad_enabled


def set_grad_enabled(enabled: bool) -> bool:
    """Turn recording on or off; returns the previous setting."""
    global _grad_enabled
    previous, _grad_enabled = _grad_enabled, bool(enabled)
    return previous


class no_grad:
    """Inside this block nothing is recorded: results have no grad_fn and leaves update in place."""

    def __enter__(self) -> None:
        self._previous = set_grad_enabled(False)

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self._previous)


class enable_grad:
    """Recording on again inside a `no_grad` block (used to build gradients of gradients)."""

    def __enter__(self) -> None:
        self._previous = set_grad_enabled(True)

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self._previous)


# ---- in-place updates ---------------------------------------------------------------------
def updates_in_place() -> int:
    """How many in-place updates there have been so far (see Node.changed_since)."""
    return _inplace_updates


def updated_in_place(*tensors: Tensor) -> None:
    """Note that each tensor's values were just replaced in place, in turn (see Node.changed_since)."""
    global _inplace_updates
    for t in tensors:
        _inplace_updates += 1
        t.version = _inplace_updates
