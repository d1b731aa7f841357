"""Tracing: run a function once, listening to the engine, and keep what it did as a Trace.

The tracer listens to two of the engine's events (autograd/node.py): `on_op`, for every op that
runs (recorded or not: ops on constants too), with the op's declaration from the op table, its
arguments as given and its output; and `on_value`, for every tensor that becomes a Python value
(a condition's truth, `.item()`, an index), which the trace must guard.

Each tensor the trace meets gets a variable number: the arguments first (in the order their
tensors appear in the arguments), then each op's output. A tensor that comes from elsewhere is
*captured*. One read from outside the function (a global weight, a closure's, one in a global
list) is named by its number in the call's walk (guard_model.py): each replay reads it again by
reference, through the same names. One the function made (`zeros(3)`, or a number written in an
expression) is kept as made. The evaluator tells the tracer every name the function reads from
outside itself (`read`, `read_module`), which the trace then guards; every scope a call inside
it makes (`entered`), which is the function's own; and what each builtin returned (`returned`).
Nothing else is kept: no text of the program ever becomes code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.exceptions import a_type
from dglang.autograd.node import is_grad_enabled
from dglang.autograd.op import Op
from dglang.autograd.shaping import Index
from dglang.autograd.tensor import lift, recording
from dglang.interpreter.library.runtime import Env, watching

from . import trace_steps
from .grad_use import GradUse
from .guard_model import Read, Unguardable, Walk
from .side_effects import Snapshot, snapshot
from .trace_form import Const, Guard, Nested, Step, Trace, Var
from .trace_steps import MAKERS, REFUSED, SHAPE_ONLY, Detach, Pick, RuleCall, holds_tensor, input_places, traceable

MAX_STEPS = 50_000  # ops a trace keeps: a call that runs more goes on dynamically (a loop better left dynamic)
ONE_STEP = "make static a function of one step, and call it from the loop"


class Tracer:
    """Listens to the engine while the function runs (recording.listen) and builds its Trace."""

    def __init__(self, walk: Walk, arguments: list[Tensor], label: Callable[[Env, str], str]) -> None:
        self.trace = Trace()
        self.refused: str | None = None  # why this run cannot be a static graph (see refuse)
        self.stopped: str | None = None  # no longer listening (see stop): the help of the note saying so
        self.walk = walk  # the arguments' walk, which each read from outside goes on with
        self.label = label  # how a note names a variable found in a scope ("the global `scale`")
        self.inside: set[int] = set()  # the scopes made while tracing (the function's own), by id
        self.reads: dict[tuple[int, str], Read] = {}  # by scope and name
        self.trace.outside.start = (len(walk.tensors), len(walk.seen))
        self.read_containers = Snapshot()  # the lists and dicts it read, as they were (side_effects.py)
        self.by_id: dict[int, Var] = {}
        self.by_data: dict[int, Var] = {}  # the array a variable holds: `x.detach()` shares it
        self.alive: list[Any] = []  # every tensor met, kept so that no id is reused while tracing
        self.values: list[Any] = []  # each variable's array when it was made
        self.literal_vars: dict[tuple[type, Any], Var] = {}  # numbers the program wrote, by value
        self.met: dict[int, tuple[Tensor, Any, Any]] = {}  # per argument or captured variable: its tensor,
        # with its values and its .grad as they were when met (an update in place replaces them)
        self.grad_of: dict[int, Var] = {}  # id of a leaf's .grad when a backward pass began: the leaf
        self.in_rule = False  # between on_visit and on_step: a rule's own ops are not steps
        self.grads_used = GradUse(walk)  # which .grads it read as they came in, which it set:
        self.read_grad, self.wrote_grad = self.grads_used.read, self.grads_used.wrote  # (`t.grad`, zero_grad)
        self.made: dict[int, Tensor] = {}  # tensors the function made, by id: a private copy of each
        self.outer: Any = None  # the DG call the traced call was made from (recording.call then)
        for t in arguments:
            if id(t) not in self.by_id:
                var = self._met(t)
                self.trace.inputs.append(var)
                self.trace.outside.sources[var.number] = walk.seen[id(t)][1]

    def _met(self, t: Tensor) -> Var:
        """A variable for an argument's or a captured tensor, whose state the trace may change."""
        var = self._new(t)
        self.met[var.number] = (t, t.data, t.grad)
        return var

    def _new(self, t: Tensor) -> Var:
        if len(self.trace.steps) >= MAX_STEPS and self.stopped is None:  # (an op's step, a rule's, a pick's)
            self.stop(f"one call ran more than {MAX_STEPS:,} ops, more than a trace keeps", ONE_STEP)
        var = Var(len(self.values))
        self.by_id[id(t)] = var
        self.by_data.setdefault(id(t.data), var)
        self.alive.append(t)
        self.values.append(t.data)  # (kept, so no array's id is reused while tracing)
        self.trace.variables.shapes[var.number] = t.shape
        self.trace.variables.dtypes[var.number] = t.dtype
        if t.requires_grad:
            self.trace.variables.needs_grad.add(var.number)
        return var

    def var(self, t: Tensor) -> Var:
        """The variable of `t`. One not met before is a number written in the program, one read from outside (in an
        argument, or by a name: read again at each call), w.grad as backward found it, a detached copy, or made by f."""
        var = self.by_id.get(id(t))
        if var is not None:
            # updated in place since: its new values (a number in the program is one variable per tensor made of it)
            if t.data is not self.values[var.number] and var.number not in self.trace.variables.literals:
                if t.requires_grad and is_grad_enabled():  # recorded: a gradient through it would reach no input
                    self.refuse("it computes with a tensor that requires grad after changing it in place")
                return self.by_data.get(id(t.data)) or self._lost(var)
            return var
        data = t.data
        if type(data) in (int, float, bool):  # a number written in the program (`x * 2`): the engine lifted it
            key = (type(data), data.hex() if type(data) is float else data)  # 0.0 and -0.0 are two numbers
            var = self.literal_vars.get(key)
            if var is not None:  # the same number again: the same variable
                self.by_id[id(t)] = var
                self.alive.append(t)
                return var
            var = self.literal_vars[key] = self._new(t)
            self.trace.captured.append((var, t))
            self.trace.variables.literals[var.number] = data
            return var
        mark = self.walk.seen.get(id(t))
        if mark is not None and mark[1] >= 0:  # read from outside, or in an argument: read again there
            var = self._met(t)
            self.trace.captured.append((var, t))
            self.trace.outside.sources[var.number] = mark[1]
            return var
        if id(t) in self.grad_of:  # w.grad as it was when `grad` began: read from w at each call
            var = self._met(t)
            self.trace.captured.append((var, t))
            self.trace.grads.of[var.number] = self.grad_of[id(t)]
            return var
        shared = self.by_data.get(id(data)) or self._walked_data(data)
        if shared is not None:  # x.detach(): the same values, cut off from the graph
            var = self._new(t)
            self.trace.steps.append(Step(Detach, (shared,), frozenset(), var, False, None, t.shape))
            return var
        private = self.made.get(id(t))
        if private is not None:  # made by the function: its values as made, a new tensor at each call
            var = self._new(t)
            self.trace.captured.append((var, private))
            self.trace.variables.fresh.add(var.number)
            return var
        # From nowhere the trace can name (a method held in a global, `m = w.sum`): the tensor
        # itself, whose holder the trace guards by identity; its values read at each call.
        var = self._met(t)
        self.trace.captured.append((var, t))
        return var

    def _engine_seed(self, seed: Tensor) -> None:
        """The seed `grad` made (ones of its root's shape, or an array of the numbers given, which
        are guarded): held by the engine alone, so a number written in the program (constant folding
        folds `seed / n`). A seed the function has (`grad y with s`) is met as any tensor it reads."""
        data = seed.data
        known = id(seed) in self.by_id or id(seed) in self.made or id(seed) in self.walk.seen
        if type(data) is np.ndarray and not known and id(data) not in self.by_data and not self._walked_data(data):
            var = self._new(seed)
            self.trace.captured.append((var, seed))
            self.trace.variables.literals[var.number] = data

    def _walked_data(self, data: Any) -> Var | None:
        """The variable of a tensor read from outside that holds `data` (`W.detach()`, W a global)."""
        return next((self.var(t) for t in self.walk.tensors if t.data is data), None)

    # ---- the evaluator's events (runtime.watching) ----------------------------------------------
    def read(self, start: Env, name: str, value: Any) -> None:
        """The function read `name`, looking it up from `start`: guarded, unless a scope of its own has it."""
        scope: Env | None = start
        while scope is not None and id(scope) in self.inside:
            if name in scope.vars:
                return
            scope = scope.parent
        if scope is not None and (id(scope), name) not in self.reads:
            self._guard(Read(scope, name, self.label(scope, name)), value)

    def read_module(self, module: Any, name: str, value: Any) -> None:
        """The function read `nn.name`: guarded, as the module's own name."""
        if (id(module.env), name) not in self.reads:
            self._guard(Read(module.env, name, f"`{module.name}.{name}`", module), value)

    def _guard(self, read: Read, value: Any) -> None:
        before = len(self.walk.tensors)
        try:
            read.described = self.walk.describe(value)
        except Unguardable as e:
            self.refuse(f"it reads {read.label}, which holds {e}: too many to check at each call")
            return
        read.value = value
        if type(value) in (list, dict, tuple):
            snapshot(
                [(read.name if read.module is None else f"{read.module.name}.{read.name}", value)], self.read_containers
            )
        self.reads[(id(read.scope), read.name)] = read
        self.trace.outside.add(read)
        for number in range(before, len(self.walk.tensors)):
            t = self.walk.tensors[number]
            self.trace.outside.owners[number] = read.label if t is value else f"a tensor in {read.label}"
            self.grads_used.met(t)
            self.alive.append(t)

    def entered(self, scope: Env) -> None:
        """A scope made while tracing (a call's, a comprehension's): the function's own."""
        self.inside.add(id(scope))
        self.alive.append(scope)

    def returned(self, builtin: Any, args: list[Any], value: Any) -> None:
        """A builtin returned `value`. A tensor in it the trace has not met was made by the builtin:
        kept as made, when its values follow from what the trace guards; else the trace refuses."""
        name = builtin.name
        self.grads_used.given(name, args)
        if name in REFUSED:
            self.refuse(REFUSED[name])
        for t in value if type(value) in (tuple, list) else (value,):
            if type(t) is not Tensor or id(t) in self.by_id or id(t) in self.walk.seen:
                continue
            if name not in MAKERS or (name not in SHAPE_ONLY and holds_tensor(args)):
                what = "from the values of other tensors" if name in MAKERS else "that no op made"
                self.refuse(f"{name}() gives it a tensor {what}")
            self.made[id(t)] = Tensor(t.data, requires_grad=t.requires_grad)
            self.alive.append(t)

    def _lost(self, var: Var) -> Var:
        self.refuse("a tensor's values were replaced by ones no op made (an item assignment?)")
        return var

    # ---- the engine's events ---------------------------------------------------------------------
    def on_op(self, op: type[Op], args: tuple[Any, ...], out: Tensor) -> None:
        if self.in_rule:  # the ops of a rule: the rule is one step (on_step)
            return
        places = input_places(op)
        encoded = []
        for i, a in enumerate(args):
            if i in places:
                if isinstance(a, list | tuple):  # a variadic op's list of inputs
                    encoded.append(tuple(self.var(lift(x) if type(x) is not Tensor else x) for x in a))
                elif type(a) is Tensor or type(a) in (int, float, bool):
                    encoded.append(self.var(a if type(a) is Tensor else self._constant(a)))
                elif a is None:  # an optional input left out (conv2d's bias)
                    encoded.append(Const(None))
                else:  # an array the engine computed from values with NumPy: the trace cannot follow it
                    self.refuse(f"the engine gave {op.name} a value computed outside its ops")
                    encoded.append(self.var(self._constant(a)))
            else:  # where's condition, an index `x[rows, labels]`: the values of the tensors in it
                encoded.append(self.argument(a, index=op is Index))
        var = self._new(out)
        recorded = out.grad_fn is not None
        self.trace.steps.append(
            Step(op, tuple(encoded), places, var, recorded, recording.where, out.shape, recording.call)
        )

    def argument(self, a: Any, index: bool = False) -> Any:
        """An op's argument other than its inputs: a Const, or where it holds tensors (where's
        condition, an index), a Var or a Nested with a Var for each. A bool tensor in an `index`
        picks as many elements as it has True values, which sets the result's shape: guarded, by
        its count."""
        if type(a) is Tensor:
            var = self.var(a)
            if index and a.dtype == "bool":
                count = int(np.count_nonzero(a.data))
                self.trace.guards.append(Guard(var, "count", count, len(self.trace.steps) - 1, recording.where))
            return var
        if type(a) is np.ndarray:  # a tensor's values, as the engine hands them to a rule (Take's positions)
            var = self.by_data.get(id(a)) or self._walked_data(a)
            if var is not None:
                return var
        if type(a) in (tuple, list) and (holds_tensor([a]) or self._holds_known_array(a)):
            return Nested(type(a)(self._inner(x, index) for x in a))
        return Const(a)

    def _holds_known_array(self, a: Any) -> bool:
        return any(type(x) is np.ndarray and id(x) in self.by_data for x in a)

    def _inner(self, a: Any, index: bool) -> Any:
        inner = self.argument(a, index)
        return inner.value if type(inner) is Const else inner.value if type(inner) is Nested else inner

    def _constant(self, x: Any) -> Tensor:
        """A plain number where an op takes a tensor (`x * 2`): the tensor the engine made of it."""
        t = lift(x)
        self.alive.append(t)
        return t

    def on_value(self, t: Tensor, value: Any) -> None:
        if type(value) is str:  # print(x), str(x), f"{x}": text no guard could check again
            self.refuse("it turns a tensor's values into text (print, str, an f-string)")
            return
        how = "bool" if type(value) is bool else "tolist" if type(value) is list else "item"
        if how == "item" and type(value) is int and t.dtype == "int" and t.shape == ():
            how = "int"
        self.trace.guards.append(Guard(self.var(t), how, value, len(self.trace.steps) - 1, recording.where))

    def on_visit(self, t: Tensor, g: Tensor) -> None:
        """A backward pass reached t: its rule runs next (a leaf has none). A rule written with
        tensor ops alone is traced op by op; any other is one step (on_step)."""
        if t.grad_fn is not None and is_grad_enabled():
            self.refuse("it differentiates a gradient (gradient(), or grad with create_graph)")
        self.in_rule = t.grad_fn is not None and not traceable(t.grad_fn.op)

    def on_step(self, t: Tensor, g: Tensor, sent: tuple[Any, ...]) -> None:
        """t's rule ran. Unless its ops were traced: one step that calls it (the rule computes with
        NumPy on its inputs' values, which no op would show, and may branch on them), and one step
        picking each gradient it sent."""
        if not self.in_rule:
            return
        self.in_rule = False
        node = t.grad_fn
        args, requiring = [], []
        for a in node.args:  # type: ignore[union-attr]
            if type(a) is Tensor:
                args.append(self.var(a))
                requiring.append(a.requires_grad)
            elif isinstance(a, tuple) and a and all(type(x) is Tensor for x in a):
                args.append(tuple(self.var(x) for x in a))
                requiring.append(tuple(x.requires_grad for x in a))
            else:  # an index with tensors in it: their values at each call
                args.append(self.argument(a))
                requiring.append(None)
        site = getattr(node, "where", None) or recording.where
        call = Var(len(self.values))
        self.values.append(None)
        step_args = (Const(node.op), Const(tuple(requiring)), self.var(g), self.var(t), *args)  # type: ignore[union-attr]
        self.trace.steps.append(Step(RuleCall, step_args, frozenset(), call, False, site))
        for i, x in enumerate(sent):
            if x is not None:
                self.trace.steps.append(Step(Pick, (call, Const(i)), frozenset(), self._new(x), False, site, x.shape))

    def on_backward(self, root: Tensor, seed: Tensor) -> None:
        """A backward pass begins: its rules' ops are traced like any other; the leaves it will
        accumulate into are met now, and a .grad they hold already is read from them at each call."""
        if trace_steps.watched():  # (`with detect_anomaly:` inside f: a replay runs no check)
            self.refuse("its `grad` runs while each step of it is watched (detect_anomaly, dg --trace)")
        self._engine_seed(seed)
        stack, seen = [root], {id(root)}
        made = {step.out.number for step in self.trace.steps}
        while stack:
            top = stack.pop()
            node = top.grad_fn
            if node is not None and (id(top) not in self.by_id or self.by_id[id(top)].number not in made):
                # computed before the call (an argument `w * 2`): the pass goes on into the caller's graph
                self.refuse("its `grad` reaches into the graph of a tensor computed outside it")
                return
            for t in node.inputs if node is not None else ():
                if t.requires_grad and id(t) not in seen:
                    seen.add(id(t))
                    stack.append(t)
                    if t.grad_fn is None:
                        leaf = self.var(t)
                        self.grads_used.read(t)  # it adds to the .grad there is: read, unless the function set it
                        met = self.met.get(leaf.number)
                        if met is not None and t.grad is met[2]:  # as it came in: the pass adds to it, or not
                            self.trace.grads.was_none.setdefault(leaf.number, t.grad is None)
                        if t.grad is not None and id(t.grad) not in self.by_id:
                            self.grad_of[id(t.grad)] = leaf

    def finish(self, arguments: tuple[Any, ...] = ()) -> None:
        """After the run: each argument or captured tensor whose values or .grad changed, as an effect
        (a .grad the function set counts as changed: `zero_grad(w)` clears it at each call)."""
        for t in self.grads_used.written.values():
            if id(t) not in self.by_id and id(t) in self.grads_used.incoming:  # (set, but never an op's input)
                self.var(t)
        for number, (t, data, grad) in list(self.met.items()):
            if t.data is not data:
                source = self.by_data.get(id(t.data))
                if source is None:
                    self._lost(Var(number))
                else:
                    self.trace.effects.append(("data", Var(number), source))
            if self.grads_used.changed(t, grad):
                if t.grad is None:
                    self.trace.effects.append(("grad", Var(number), None))
                elif id(t.grad) in self.by_id and not t.grad.requires_grad:
                    self.trace.effects.append(("grad", Var(number), self.by_id[id(t.grad)]))
                else:  # (a replay sets .grad to a plain tensor of the values its ops computed)
                    self.refuse("it sets a .grad to a tensor it did not compute, or to one that requires grad")
        if self.grads_used.requires_changed():
            self.refuse("it turns requires_grad on or off for a tensor from outside it")
        outside = self.trace.outside  # (`arguments`: the key's descriptions: the .grads there it did not read)
        outside.unread_arguments = self.grads_used.unread(outside, arguments)
        outside.forget_grads(self.grads_used.unread(outside))

    def refuse(self, why: str) -> None:
        self.refused = self.refused or why  # (the first reason)

    def stop(self, why: str, help: str = "") -> None:
        """Refuse, and stop listening: the run goes on, with no trace (nor every tensor met) growing."""
        self.refuse(why)
        self.stopped = help
        recording.stop_listening(self)
        watching.listener = None if watching.listener is self else watching.listener
        self.alive, self.values, self.trace.steps = [], [None] * len(self.values), []  # (numbering kept)

    # ---- the function's value --------------------------------------------------------------------
    def encode_result(self, value: Any) -> Any:
        """The function's value with a Var for each tensor in it; lists and tuples kept as they are."""
        if isinstance(value, Tensor):
            return self.var(value)
        if type(value) in (list, tuple):
            return type(value)(self.encode_result(v) for v in value)
        if value is None or type(value) in (int, float, bool, str):
            return Const(value)
        self.refuse(f"it returns {a_type(value)}")  # (a replay rebuilds tensors, numbers, text, lists)
        return Const(value)
