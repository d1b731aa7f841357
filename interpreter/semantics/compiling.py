"""What the compiler puts around every node, written once: the cases say what a node means, this
file says how it runs.

The cases (expressions.py, statements.py) speak a small vocabulary:

    self.expr(node), self.block(body)           compile a part
    self.compute(node, operation, *operands)    the operands' values, then the operation on them
    self.compute_call(node, invoke, callee)     the callee, the arguments, then the call
    self.test(node), self.truth(node)           whether a condition (or a value made at node) is true
    self.operation(node, operation)             an operation at node the case calls itself, on
                                                values it has only at run time
    self.items(node)                            what a loop takes its items from
    self.loop_runs(node), self.step_counter(span)   a loop's run, counting its iterations; a step
    self.unpacker(targets, iterable)            what binds a loop's names to each item
    self.function_body(node)                    what runs for each call
    self.bind(name, value), self.name_store(name)   x = value

An expression compiles to a closure `env -> value`; a statement to `env -> signal`, where the
signal is None (carry on), BREAK, CONTINUE, or a ReturnValue travelling up to its call. Each
closure is named for what it runs (`run_while`, `build_list`, `given_right`), so that a debugger's
stack says which node is running. The reference evaluator (reference.py) has a case for each
node too, which walks the node each time it runs: a case here is that case with all that does
not depend on the run hoisted out, done once. Each word puts around the semantics, in the same
closure (so no node pays a Python call for it):

- errors located: what escapes an operation becomes a DGError at its node (locating.py), with
  the kinds of its operands as clues for the hint writer (hints.py), which the host calls when
  it reports the error; the block around a statement adds the DG call stack, and locates Ctrl-C
  and the watchdog's stops at the statement they hit.
- provenance, for pictures of the graph: `recording.where` is set to the node's Site before its
  operation runs, and the engine stamps it on each node the operation records (with the `if`
  arms around the code, found by the resolver); each run of a loop is on RunContext.loops,
  counting its iterations; a function's body makes its call the one nodes are recorded in; a
  tensor stored in a variable takes the variable's name.
- speed: the commonest shapes (one operand, two, a constant operand read once; `x = value`)
  each have a closure of their own. What they buy: docs/performance.md.

`around` (below) adds what a whole node gets: a note for a hint on assignments inside `no_grad`,
the debugger's statement events. `step_counter` and `observed` give nothing when a run has no
step limit or no debugger, so a program pays for neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Branch, Loop, LoopRun, Site, Span
from dglang.interpreter.library.dictionaries import store
from dglang.interpreter.library.runtime import Env, iterate

from . import ast_nodes as ast
from .context import RunContext
from .interrupts import steps_message
from .locating import located
from .resolver import Resolution

Eval = Callable[[Env], Any]  # a compiled expression
Exec = Callable[[Env], Any]  # a compiled statement: returns None or a signal
# The kinds of loop, each with what it is called in pictures and the part of it that runs before
# each iteration (its head): the nodes they make are counted by iteration (see `loop_runs`).
LOOPS = {
    ast.While: ("while", "condition"),
    ast.For: ("for", "iterable"),
    ast.ListComprehension: ("comprehension", "iterable"),
    ast.DictComprehension: ("comprehension", "iterable"),
}


class CompilerBase:
    def __init__(self, context: RunContext, resolution: Resolution, echo: bool = False, stepping: bool = False) -> None:
        self.context = context
        self.frames = context.frames
        self.resolution = resolution  # what the resolver found: how each name is looked up, ...
        self.echo = echo  # a REPL cell: show the value of each expression statement outside functions
        self.stepping = stepping  # compile the debugger's statement events in (see `observed`)
        self.branches: tuple[Branch, ...] = ()  # the `if` arms around the statement being compiled

    # Joined in evaluator.py: compile one node of each kind.
    def expr(self, node: ast.Expr) -> Eval:
        raise NotImplementedError

    def stmt(self, node: ast.Stmt) -> Exec:
        raise NotImplementedError

    def site(self, node: ast.Expr | ast.Stmt) -> Site:
        """What an op written at `node` stamps on the nodes it records: where, and in which `if` arms."""
        return Site(node.span, self.branches)

    # ---- operations -------------------------------------------------------------------------
    def compute(
        self, node: ast.Expr | ast.Stmt, operation: Callable[..., Any], *operands: Any, blame: Any = None
    ) -> Eval:
        """`node`'s value: its operands' values, left to right, then `operation` applied to them.

        An operand is a node to evaluate (a constant's value is read here, once) or a value given
        as it is. An error is shown at `blame` (a part of the node; the whole node unless given)."""
        site, at = self.site(node), (node if blame is None else blame).span
        parts = [self.operand(o) for o in operands]
        if len(parts) == 1:
            evaluated, only = parts[0]
            if not evaluated:  # `-1`: the operand is known already
                only = given(only)

            def one_operand(env: Env) -> Any:
                a = only(env)
                recording.where = site
                try:
                    return operation(a)
                except Exception as e:
                    raise located(e, node, (a,), at) from None

            return one_operand
        if len(parts) == 2:
            (left_evaluated, left), (right_evaluated, right) = parts
            if not left_evaluated and right_evaluated:  # `1 - p`, `2 * x`
                a = left

                def constant_left(env: Env) -> Any:
                    b = right(env)
                    recording.where = site
                    try:
                        return operation(a, b)
                    except Exception as e:
                        raise located(e, node, (a, b), at) from None

                return constant_left
            if left_evaluated and right_evaluated:

                def two_operands(env: Env) -> Any:
                    a = left(env)
                    b = right(env)
                    recording.where = site
                    try:
                        return operation(a, b)
                    except Exception as e:
                        raise located(e, node, (a, b), at) from None

                return two_operands
            if left_evaluated:  # `i * 0.5`, `x[0]`, `x.shape`: the right operand is known already
                b = right

                def constant_right(env: Env) -> Any:
                    a = left(env)
                    recording.where = site
                    try:
                        return operation(a, b)
                    except Exception as e:
                        raise located(e, node, (a, b), at) from None

                return constant_right
        evaluated = [part if is_node else given(part) for is_node, part in parts]

        def many_operands(env: Env) -> Any:
            values = [value(env) for value in evaluated]
            recording.where = site
            try:
                return operation(*values)
            except Exception as e:
                raise located(e, node, values, at) from None

        return many_operands

    def operand(self, operand: Any) -> tuple[bool, Any]:
        """(True, its compiled code) for a node to evaluate; (False, the value) for a constant or a value."""
        if isinstance(operand, ast.Constant):
            return False, operand.value
        if isinstance(operand, ast.Expr):
            return True, self.expr(operand)
        return False, operand

    def compute_call(self, node: ast.Call, invoke: Callable[..., Any], callee: ast.Expr) -> Eval:
        """A call's value: `callee`'s value, the arguments left to right, then
        `invoke(callee, positional, keywords, span, env)`; an error is located at the call."""
        func, span, site = self.expr(callee), node.span, self.site(node)
        args = [self.expr(a) for a in node.args]
        kwargs = [(k, self.expr(v)) for k, v in node.kwargs]

        def call(env: Env) -> Any:
            f = func(env)
            positional = [a(env) for a in args]
            keywords = {k: v(env) for k, v in kwargs} if kwargs else {}
            recording.where = site
            try:
                return invoke(f, positional, keywords, span, env)
            except Exception as e:
                raise located(e, node, (f,)) from None

        return call

    def operation(self, node: Any, operation: Callable[..., Any]) -> Callable[..., Any]:
        """`operation` as `node`'s, for one a case calls itself, on values it has only at run time
        (the value a store stores, the item a loop binds, the next operand of a chain): what
        escapes it is located at `node` with its arguments as clues, as with `compute`."""

        def located_operation(*args: Any) -> Any:
            try:
                return operation(*args)
            except Exception as e:
                raise located(e, node, args) from None

        return located_operation

    def test(self, node: ast.Expr) -> Callable[[Env], bool]:
        """Whether `node`'s value is true (a condition): its value and its truth in one closure."""
        value, site = self.expr(node), self.site(node)

        def test(env: Env) -> bool:
            v = value(env)
            if v is True or v is False:
                return v
            recording.where = site  # a tracer guarding on this truth names the condition (interpreter/static)
            try:
                return bool(v)  # a one-element tensor counts as its value, as in PyTorch
            except Exception as e:
                raise located(e, node, (v,)) from None

        return test

    def truth(self, node: ast.Expr) -> Callable[[Any], bool]:
        """Whether a value `node` gave is true (`a and b` needs a's value as well as its truth)."""

        def truth(v: Any) -> bool:
            if v is True or v is False:
                return v
            try:
                return bool(v)
            except Exception as e:
                raise located(e, node, (v,)) from None

        return truth

    def items(self, node: ast.Expr) -> Eval:
        """What a loop over `node` takes its items from (iterate() in runtime.py); the rows of a
        tensor are recorded at `node`."""
        return self.compute(node, iterate, node, self.site(node))

    # ---- storing ----------------------------------------------------------------------------
    def name_store(self, name: str) -> Callable[[Env, Any], None]:
        """Store a value under `name`. A tensor without a name takes it, so that a picture of the
        graph can say which variable a node is."""

        def store(env: Env, value: Any) -> None:
            if type(value) is Tensor and value.name is None:
                value.name = name
            env.vars[name] = value

        return store

    def bind(self, name: str, value: Eval) -> Exec:
        """`x = value`, the commonest statement, as one closure: what `name_store` does, in line."""

        def assign_name(env: Env) -> None:
            v = value(env)
            if type(v) is Tensor and v.name is None:
                v.name = name
            env.vars[name] = v

        return assign_name

    # ---- loops -----------------------------------------------------------------------------------
    def loop_runs(self, node: ast.Expr | ast.Stmt) -> Callable[[], LoopRun]:
        """What makes a run of the loop `node` each time it starts: a LoopRun, which `with` keeps on
        the run's stack of loops (RunContext.loops) while the loop runs, and whose `count` the loop
        raises by one each iteration, for pictures of the graph to read. One of LOOPS."""
        kind, head = LOOPS[type(node)]
        loop, loops, frames = Loop(kind, node.span.line, getattr(node, head).span), self.context.loops, self.frames
        return lambda: LoopRun(loop, frames[-1] if frames else None, loops)

    def step_counter(self, span: Span | None) -> Callable[[], None] | None:
        """What counts one step (a loop's iteration, a comprehension's item, a call) when the run
        has a step limit (--max-steps): None without one, so a program pays one test of None. The
        step past the limit is a LimitError at `span`, or for a call (span None) at its call."""
        limit = self.context.max_steps
        if limit is None:
            return None
        context, frames = self.context, self.frames
        message, help = steps_message(limit)

        def count_step() -> None:
            context.steps += 1
            if context.steps > limit:
                if span is not None:
                    raise DGError("LimitError", message, span, help=help, frames=tuple(frames))
                raise DGError("LimitError", message, frames[-1].call_site, help=help, frames=tuple(frames[:-1]))

        return count_step

    # ---- around a whole node ------------------------------------------------------------------
    def around(self, node: ast.Expr | ast.Stmt, code: Any) -> Any:
        """What every node gets around its case; for most nodes, nothing (`code` itself)."""
        if type(node) is ast.Assign and node in self.resolution.in_no_grad:
            code = self.noting_rebound(code, node)
        if self.stepping and isinstance(node, ast.Stmt):
            code = self.observed(code, node.span)
        return code

    def noting_rebound(self, statement: Exec, node: ast.Assign) -> Exec:
        """An assignment written inside `with no_grad:`. When it rebinds a parameter (a leaf tensor
        that requires grad) to a new tensor, the classic mistake, it is noted on the RunContext,
        so that a `grad` failing later can say why (hints.py). (`w -= ...` there updates `w` in
        place, and rebinds nothing.)"""
        names = target_names(node.target)
        context, span = self.context, node.span

        def noting(name: str, old: Any, vars: dict[str, Any]) -> None:
            new = vars.get(name)
            if type(old) is Tensor and is_parameter(old) and type(new) is Tensor and new is not old:
                context.rebound_parameter = (name, span)

        if len(names) == 1:  # `m = moments[i]`, the commonest: one name, read before and after
            (name,) = names

            def assign_one_noting_rebound(env: Env) -> Any:
                vars = env.vars
                old = vars.get(name)
                signal = statement(env)
                if type(old) is Tensor and old.requires_grad:  # (a parameter requires grad: most values here do not)
                    noting(name, old, vars)
                return signal

            return assign_one_noting_rebound

        def assign_noting_rebound(env: Env) -> Any:
            vars = env.vars
            before = [vars.get(name) for name in names]
            signal = statement(env)
            for name, old in zip(names, before, strict=True):
                noting(name, old, vars)
            return signal

        return assign_noting_rebound

    def observed(self, statement: Exec, span: Span) -> Exec:
        """`statement`, telling the debugger (RunContext.on_statement) each time it is about to run.

        Only a program compiled for the debugger (`stepping`) has these events; any other gets
        `statement` itself, as `step_counter` gives nothing without a step limit, so it pays nothing."""
        if not self.stepping:
            return statement
        context = self.context

        def tell_the_debugger(env: Env) -> Any:
            listener = context.on_statement
            if listener is not None:  # stepping, or a :break line is set
                listener(span, env)
            return statement(env)

        return tell_the_debugger

    def scoped(self, body: Exec) -> Exec:
        """A function's body that, in a program compiled for the debugger, keeps its scope on
        RunContext.scopes while it runs, so that :up can show the variables of each caller."""
        if not self.stepping:
            return body
        scopes, frames = self.context.scopes, self.frames

        def keep_scope(env: Env) -> Any:
            scopes.append((len(frames), env))
            try:
                return body(env)
            finally:
                scopes.pop()

        return keep_scope


def put(d: dict[Any, Any], key: Any, value: Any) -> None:
    """d[key] = value in a dict being built; a tensor without a name takes a string key's."""
    if type(value) is Tensor and value.name is None and type(key) is str:
        value.name = key
    store(d, key, value)


def given(value: Any) -> Eval:
    return lambda env: value


def is_parameter(t: Tensor) -> bool:
    """A leaf tensor that requires grad: what an optimiser updates."""
    return t.requires_grad and t.grad_fn is None


def target_names(target: ast.Expr) -> list[str]:
    """The plain names an assignment target stores into: `x`, or those of `a, b`."""
    if isinstance(target, ast.Name):
        return [target.name]
    if isinstance(target, ast.TupleExpr):
        return [name for item in target.items for name in target_names(item)]
    return []
