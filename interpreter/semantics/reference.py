"""The reference evaluator: a tree-walking interpreter, the one to read and to step through.

    pipeline.run(program, env) → Reference.run → block → execute(statement) → its case
        → evaluate(expression) → its case → compute(node, operation, values) → the library, the engine

Each statement is run by `execute`, each expression valued by `evaluate`, each through the case for
its kind of node (the tables at the end of this file and of reference_expressions.py), as jlox's
Interpreter visits a tree: what a case does to its node happens in the case, there and then, and
a debugger shows one frame per node being run. What every node gets besides its meaning is
written where it happens: errors located at the node (`compute`, and `block`, which adds the DG
call stack and locates Ctrl-C and the watchdog's stops at the statement they hit), the site the
engine stamps on what an op records (`site`, with the `if` arms the resolver found), each loop's
run counted on RunContext.loops, steps counted under --max-steps (`count_step`), the debugger's
statement events (`execute`), and what a static trace must guard (`runtime.watching`).

The accelerator (evaluator.py) means the same and runs the same library and engine, but compiles
each node into a Python closure once, so that a loop does not walk its tree again on every
iteration: the default, as the table-driven parser is for lark's (syntax/parser.py).
`DG_EVAL=reference` in the environment, or `dg --eval reference FILE`, runs this one instead;
tests/language/test_reference.py runs every lesson, golden program, error and fuzz case both
ways and requires the same output, errors and gradients.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.attributes import set_attribute
from dglang.interpreter.library.operators import AUGMENTED, delete_item, set_item
from dglang.interpreter.library.runtime import (
    BREAK,
    CONTINUE,
    MISSING,
    Env,
    Function,
    ReturnValue,
    WithContext,
    text,
    unpack,
)

from . import ast_nodes as ast
from .compiling import target_names
from .context import RunContext
from .evaluator import Program, checked
from .interrupts import steps_message
from .locating import in_statement
from .reference_expressions import ReferenceExpressions
from .resolver import Resolution, resolve
from .statements import taken


def prepare(module: ast.Module, context: RunContext, echo: bool = False) -> Program:
    """A parsed program made ready to walk: checked by the resolver and its imports linked (a static
    error raised first), as the accelerator's compile_program does; the tree itself is the program."""
    resolution, stepping = checked(module, context)
    return Program(Reference(module.body, context, resolution, echo, stepping).run, resolution)


def expression_code(expr: ast.Expr, context: RunContext) -> Callable[[Env], Any]:
    """An expression on its own (a debugger's `:break LINE if CONDITION`), read in any scope."""
    reference = Reference([], context, resolve(ast.Module([ast.ExprStmt(expr.span, expr)])), False, False)
    frames = context.frames

    def value(env: Env) -> Any:
        try:
            return reference.evaluate(expr, env)
        except DGError as e:  # no block around it to add the call stack
            e.frames = e.frames or tuple(frames)
            raise

    return value


class Reference(ReferenceExpressions):
    def __init__(
        self, body: list[ast.Stmt], context: RunContext, resolution: Resolution, echo: bool, stepping: bool
    ) -> None:
        super().__init__(context, resolution, echo, stepping)
        self.body = body  # the program's top level

    def run(self, env: Env) -> None:
        """Run the program in `env`: its statements in order."""
        self.block(self.body, env)

    def block(self, body: list[ast.Stmt], env: Env) -> Any:
        """The statements of `body` in order, up to the first that signals (BREAK, CONTINUE, a
        ReturnValue), which goes to the loop or call around. An error leaving a statement gets the
        DG call stack, and a stop from outside, which arrives anywhere, is located at the statement."""
        statement = None
        try:
            for statement in body:
                signal = self.execute(statement, env)
                if signal is not None:
                    return signal
        except (Exception, KeyboardInterrupt) as e:
            if statement is None:
                raise
            raise in_statement(e, statement.span, self.frames) from None
        return None

    def execute(self, node: ast.Stmt, env: Env) -> Any:
        """Run one statement: the debugger told first (in a program that may pause), then the case
        for its kind (STATEMENTS, below), with the `if` arms around it for the sites of its ops."""
        if self.stepping and self.context.on_statement is not None:
            self.context.on_statement(node.span, env)
        outer, self.branches = self.branches, self.resolution.branches.get(node, ())
        try:
            return STATEMENTS[type(node)](self, node, env)
        finally:
            self.branches = outer

    # ---- simple statements ------------------------------------------------------------------------
    def expr_stmt(self, node: ast.ExprStmt, env: Env) -> None:  # print(x); in a REPL cell, the value shown
        value = self.evaluate(node.expr, env)
        if self.echo:
            show = self.context.show
            self.compute(node, lambda result: None if result is None else show(result), value)

    def assign(self, node: ast.Assign, env: Env) -> None:
        """x = v, a, b = v, x[i] = v, x.grad = v. Inside `with no_grad:`, a parameter rebound to a new
        tensor (the classic mistake) is noted, for the hint of a `grad` that fails later (hints.py)."""
        if node not in self.resolution.in_no_grad:
            return self.store(node.target, self.evaluate(node.value, env), env)
        names = target_names(node.target)
        before = [env.vars.get(name) for name in names]
        self.store(node.target, self.evaluate(node.value, env), env)
        for name, old in zip(names, before, strict=True):
            new = env.vars.get(name)
            was_parameter = type(old) is Tensor and old.requires_grad and old.grad_fn is None
            if was_parameter and type(new) is Tensor and new is not old:
                self.context.rebound_parameter = (name, node.span)
        return None

    def aug_assign(self, node: ast.AugAssign, env: Env) -> None:
        """x += v: a tensor updates in place inside no_grad (w -= lr * w.grad); otherwise x = x + v."""
        old, value = self.evaluate(node.target, env), self.evaluate(node.value, env)
        self.store(node.target, self.compute(node, AUGMENTED[node.op], old, value), env)

    def store(self, target: ast.Expr, value: Any, env: Env) -> None:
        """Store a value into an assignment target. A tensor stored under a name without one of its
        own takes it, so that a picture of the graph can say which variable a node is."""
        if isinstance(target, ast.Name):
            if type(value) is Tensor and value.name is None:
                value.name = target.name
            env.vars[target.name] = value
        elif isinstance(target, ast.TupleExpr):
            values = self.operation(target, unpack, value, len(target.items))
            for item, v in zip(target.items, values, strict=True):
                self.store(item, v, env)
        elif isinstance(target, ast.Index):
            obj, keys = self.evaluate(target.obj, env), [self.evaluate(i, env) for i in target.items]
            self.operation(target, set_item, obj, keys[0] if len(keys) == 1 else tuple(keys), value)
        else:
            assert isinstance(target, ast.Attribute)
            self.operation(target, set_attribute, self.evaluate(target.obj, env), target.name, value)

    def pass_(self, node: ast.Pass, env: Env) -> None:
        return None

    def break_(self, node: ast.Break, env: Env) -> Any:
        return BREAK  # the resolver checked it is inside a loop

    def continue_(self, node: ast.Continue, env: Env) -> Any:
        return CONTINUE

    def return_(self, node: ast.Return, env: Env) -> ReturnValue:  # a signal up to the call, not an exception
        return ReturnValue(None if node.value is None else self.evaluate(node.value, env))

    def grad(self, node: ast.Grad, env: Env) -> None:
        """grad y [with seed]: backpropagate over the graph recorded for y (an error points at y)."""
        output = self.evaluate(node.output, env)
        seed = None if node.seed is None else self.evaluate(node.seed, env)
        self.compute(node, ag.backward, output, seed, at=node.output.span)

    def assert_(self, node: ast.Assert, env: Env) -> None:
        """assert test [, message]: an AssertionError at the test when it is false. A builtin that
        answered no (gradcheck) says why, unless the program gave its own message."""
        context = self.context
        context.why_not = None  # only what a builtin says while this test runs explains it
        if self.test(node.test, env):
            return
        why, help = context.why_not or ("assertion failed", None)
        if node.message is not None:
            said = self.compute(node.test, text, self.evaluate(node.message, env))
            why, help = said, (why if context.why_not is not None else help)
        raise DGError("AssertionError", why, help=help, node=node.test)

    def delete(self, node: ast.Delete, env: Env) -> None:
        """del d[key], items[i]: each target in turn (an error points at the target)."""
        for target in node.targets:
            assert isinstance(target, ast.Index)
            obj, keys = self.evaluate(target.obj, env), [self.evaluate(i, env) for i in target.items]
            if len(keys) == 1:
                self.compute(target, delete_item, obj, keys[0])
            else:
                self.compute(target, lambda value, *several: delete_item(value, several), obj, *keys)

    def import_(self, node: ast.Import, env: Env) -> None:
        """import nn: run the module (the first time any program of the session imports it), bind it."""
        load = self.context.modules.load  # type: ignore[union-attr]  # the linker found the modules
        for imported, module in zip(node.modules, self.resolution.modules[node], strict=True):
            env.vars[imported.name] = self.compute(imported, load, module, imported.span)

    def from_import(self, node: ast.FromImport, env: Env) -> None:
        """from nn import linear: run the module as `import` does, then bind the names it defined."""
        (module,) = self.resolution.modules[node]
        load = self.context.modules.load  # type: ignore[union-attr]
        scope = self.compute(node.module, load, module, node.module.span).env.vars
        for name in node.names:
            env.vars[name.name] = self.operation(name, taken, scope, name.name, module)

    # ---- compound statements ------------------------------------------------------------------
    def if_(self, node: ast.If, env: Env) -> Any:
        """The body of the first arm whose test is true; else the `else` body, if there is one."""
        for test, body in node.branches:
            if self.test(test, env):
                return self.block(body, env)
        return self.block(node.orelse, env) if node.orelse is not None else None

    def while_(self, node: ast.While, env: Env) -> Any:
        """The body for as long as the test is true (see `loop`: a `while`'s items never end)."""
        return self.loop(node, env, lambda: repeat(None), node.condition)

    def for_(self, node: ast.For, env: Env) -> Any:
        """The body once for each item, its names bound to the item first (see `loop`)."""
        return self.loop(node, env, lambda: self.items(node.iterable, env))

    def loop(
        self, node: ast.While | ast.For, env: Env, items: Callable[[], Iterable[Any]], test: ast.Expr | None = None
    ) -> Any:
        """The one loop runner: the body for each item of `items()` (a `for`'s, its names bound to
        the item first), or while `test` holds; each iteration a step under --max-steps and
        counted on the loop's run, until the items end or the body signals BREAK or a ReturnValue."""
        with self.loop_run(node) as run:
            for item in items():
                if test is not None and not self.test(test, env):
                    break
                self.count_step(node.span)
                if isinstance(node, ast.For):
                    self.bind_item(node.targets, node.iterable, env.vars, item)
                run.count += 1
                signal = self.block(node.body, env)
                if signal is BREAK:
                    break
                if signal is not None and signal is not CONTINUE:
                    return signal
        return None

    def function_def(self, node: ast.FunctionDef, env: Env) -> None:
        """The function: its defaults evaluated now, its body run at each call in a new scope whose
        parent is the scope the `def` ran in (so a function sees the variables around it)."""
        defaults = tuple(MISSING if p.default is None else self.evaluate(p.default, env) for p in node.params)

        def body(scope: Env) -> Any:
            return self.function_body(node, scope)

        params = tuple(p.name for p in node.params)
        env.vars[node.name] = Function(node.name, params, defaults, body, env, node.span)

    def function_body(self, node: ast.FunctionDef, env: Env) -> Any:
        """What a call runs (its frame is on RunContext.frames already): a step under --max-steps,
        blamed on the call; the call as the one nodes recorded inside were made in; the scope kept
        for the debugger's :up; no value shown, even in a REPL cell."""
        context, frames = self.context, self.frames
        if self.stepping:
            context.scopes.append((len(frames), env))
        try:
            if context.max_steps is not None:
                context.steps += 1
                if context.steps > context.max_steps:
                    message, help = steps_message(context.max_steps)
                    raise DGError("LimitError", message, frames[-1].call_site, help=help, frames=tuple(frames[:-1]))
            caller, recording.call = recording.call, frames[-1]
            echo, self.echo = self.echo, False
            try:
                return self.block(node.body, env)
            finally:
                recording.call, self.echo = caller, echo
        finally:
            if self.stepping:
                context.scopes.pop()

    def with_(self, node: ast.With, env: Env) -> Any:
        """with no_grad: ... — the context is entered before the block and left however it ends."""
        mode = self.evaluate(node.context, env)
        if not isinstance(mode, WithContext):
            contexts = " or ".join(", ".join(env.contexts()).rsplit(", ", 1))
            raise DGError("TypeError", f"'with' needs {contexts}, not {type_name(mode)}", node=node.context)
        token = mode.enter()
        try:
            return self.block(node.body, env)
        finally:
            mode.exit(token)


STATEMENTS: dict[type, Callable[[Any, Any, Env], Any]] = {
    ast.ExprStmt: Reference.expr_stmt,
    ast.Assign: Reference.assign,
    ast.AugAssign: Reference.aug_assign,
    ast.Pass: Reference.pass_,
    ast.Break: Reference.break_,
    ast.Continue: Reference.continue_,
    ast.Return: Reference.return_,
    ast.Grad: Reference.grad,
    ast.Assert: Reference.assert_,
    ast.If: Reference.if_,
    ast.While: Reference.while_,
    ast.For: Reference.for_,
    ast.FunctionDef: Reference.function_def,
    ast.With: Reference.with_,
    ast.Delete: Reference.delete,
    ast.Import: Reference.import_,
    ast.FromImport: Reference.from_import,
}
