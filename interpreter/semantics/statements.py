"""The evaluator's statement cases: one method per kind of statement, each returning `run(env)`.

A statement's `run` returns a signal: None to carry on, BREAK or CONTINUE for the loop around it,
or a ReturnValue for the call around it. Loops and calls look at the signal; nothing is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Arm, Branch
from dglang.interpreter.library.attributes import set_attribute
from dglang.interpreter.library.operators import AUGMENTED, delete_item, set_item
from dglang.interpreter.library.runtime import (
    BREAK,
    CONTINUE,
    MISSING,
    Builtin,
    Env,
    Function,
    ReturnValue,
    WithContext,
    iterate,
    text,
)

from . import ast_nodes as ast
from .compiling import CompilerBase, Exec, truth, unpack, unpacker
from .context import ModuleInterface
from .hints import rebound_parameter
from .linking import defines


class Statements(CompilerBase):
    def expr_stmt(self, node: ast.ExprStmt) -> Exec:
        value = self.expr(node.expr)
        if not self.echo:

            def run(env: Env) -> None:
                value(env)

            return run
        show, span = self.context.show, node.span

        def echoed(env: Env) -> None:  # a REPL cell shows the value
            result = value(env)
            if result is not None:
                try:
                    show(result)
                except Exception as e:
                    raise self.fail(e, span) from None

        return echoed

    # ---- assignment ---------------------------------------------------------------------------
    def assign(self, node: ast.Assign) -> Exec:
        value, store = self.expr(node.value), self.target_store(node.target, node)
        if isinstance(node.target, ast.Name) and node not in self.resolution.in_no_grad:
            name = node.target.name  # `x = ...`, the commonest statement: store_name written in line

            def run_name(env: Env) -> None:
                v = value(env)
                if type(v) is Tensor and v.name is None:
                    v.name = name
                env.vars[name] = v

            return run_name
        return lambda env: store(env, value(env))

    def aug_assign(self, node: ast.AugAssign) -> Exec:
        """x += v: a tensor updates in place inside no_grad (w -= lr * w.grad); otherwise x = x + v."""
        op, value, span, site = AUGMENTED[node.op], self.expr(node.value), node.span, self.site(node.span)
        current, store = self.expr(node.target), self.target_store(node.target, node)

        def run(env: Env) -> None:
            a = current(env)
            b = value(env)
            recording.where = site
            try:
                result = op(a, b)
            except Exception as e:
                raise self.fail(e, span) from None
            store(env, result)

        return run

    def target_store(self, target: ast.Expr, statement: ast.Stmt) -> Callable[[Env, Any], None]:
        """How to store a value into an assignment target: a name, x[i], x.grad, or a tuple of them."""
        span = target.span
        if isinstance(target, ast.Name):
            return self.name_store(target.name, statement)
        if isinstance(target, ast.TupleExpr):
            stores = [self.target_store(t, statement) for t in target.items]

            def store_tuple(env: Env, value: Any) -> None:
                for store, v in zip(stores, unpack(value, len(stores), span, self), strict=True):
                    store(env, v)

            return store_tuple
        if isinstance(target, ast.Index):
            obj, key = self.expr(target.obj), self.index_key(target.items)  # type: ignore[attr-defined]

            def store_item(env: Env, value: Any) -> None:
                container = obj(env)
                k = key(env)
                try:
                    set_item(container, k, value)
                except Exception as e:
                    raise self.fail(e, span) from None

            return store_item
        assert isinstance(target, ast.Attribute)
        owner, attr = self.expr(target.obj), target.name

        def store_attribute(env: Env, value: Any) -> None:
            o = owner(env)
            try:
                set_attribute(o, attr, value)
            except Exception as e:
                raise self.fail(e, span) from None

        return store_attribute

    def name_store(self, name: str, statement: ast.Stmt) -> Callable[[Env, Any], None]:
        def store_name(env: Env, value: Any) -> None:
            if type(value) is Tensor and value.name is None:
                value.name = name  # so graph pictures can say which variable a node is
            env.vars[name] = value

        if statement not in self.resolution.in_no_grad:
            return store_name
        context, span = self.context, statement.span

        def store_name_no_grad(env: Env, value: Any) -> None:
            old = env.vars.get(name)
            if type(old) is Tensor and old.requires_grad and old.grad_fn is None and type(value) is Tensor:
                context.rebound_parameter = (name, span)  # the classic mistake; `grad` explains it
            store_name(env, value)

        return store_name_no_grad

    # ---- simple statements --------------------------------------------------------------------
    def pass_(self, node: ast.Pass) -> Exec:
        return lambda env: None

    def break_(self, node: ast.Break) -> Exec:
        return lambda env: BREAK  # the resolver checked it is inside a loop

    def continue_(self, node: ast.Continue) -> Exec:
        return lambda env: CONTINUE

    def return_(self, node: ast.Return) -> Exec:
        if node.value is None:
            nothing = ReturnValue(None)
            return lambda env: nothing
        value = self.expr(node.value)
        return lambda env: ReturnValue(value(env))

    def grad(self, node: ast.Grad) -> Exec:
        """grad y [with seed]: backpropagate over the graph recorded for y."""
        output, span, site = self.expr(node.output), node.output.span, self.site(node.span)
        seed = self.expr(node.seed) if node.seed is not None else None
        context = self.context

        def run(env: Env) -> None:
            y = output(env)
            s = seed(env) if seed is not None else None
            recording.where = site  # listeners (the trace) see where the backward pass began
            try:
                ag.backward(y, s)
            except Exception as e:
                error = self.fail(e, span)
                if isinstance(y, Tensor) and not y.requires_grad:
                    error = rebound_parameter(error, context.rebound_parameter)
                raise error from None

        return run

    def assert_(self, node: ast.Assert) -> Exec:
        test, span = self.expr(node.test), node.test.span
        message = self.expr(node.message) if node.message is not None else None
        context = self.context

        def run(env: Env) -> None:
            context.why_not = None  # only what a builtin says while this test runs explains it
            if not truth(test(env), span, self):
                why, help = context.why_not or ("assertion failed", None)
                try:
                    said = text(message(env)) if message is not None else why
                except Exception as e:  # the message cannot be shown (a list nested too deeply)
                    raise self.fail(e, span) from None
                if message is not None and context.why_not is not None:
                    help = why
                raise self.fail(DGError("AssertionError", said, help=help), span)

        return run

    def delete(self, node: ast.Delete) -> Exec:
        """del d[key], items[i]: each target in turn."""
        targets = [(self.expr(t.obj), self.index_key(t.items), t.span) for t in node.targets]  # type: ignore[attr-defined]

        def run(env: Env) -> None:
            for obj, key, span in targets:
                container = obj(env)
                k = key(env)
                try:
                    delete_item(container, k)
                except Exception as e:
                    raise self.fail(e, span) from None

        return run

    # ---- modules ----------------------------------------------------------------------------
    def import_(self, node: ast.Import) -> Exec:
        """import nn: run the module (the first time any program of the session imports it), bind it."""
        modules = list(zip(node.modules, self.resolution.modules[node], strict=True))
        load = self.context.modules.load  # type: ignore[union-attr]  # the linker found the modules

        def run(env: Env) -> None:
            for imported, module in modules:
                env.vars[imported.name] = load(module, imported.span)

        return run

    def from_import(self, node: ast.FromImport) -> Exec:
        """from nn import linear: run the module as `import` does, then bind the names it defined."""
        (module,) = self.resolution.modules[node]
        load, at, names = self.context.modules.load, node.module.span, node.names  # type: ignore[union-attr]

        def run(env: Env) -> None:
            scope = load(module, at).env.vars
            for name in names:
                value = scope.get(name.name, MISSING)
                if value is MISSING and not module.checked:  # fails where it is used
                    value = missing_name(name.name, module)
                elif value is MISSING:  # its text binds the name, but not on the way this run took
                    raise self.fail(
                        DGError(
                            "ImportError",
                            f"cannot import name '{name.name}' from {module.name}: {module.display} did not "
                            "define it when it ran",
                            help=f"check the `if` or loop around its definition in {module.display}",
                        ),
                        name.span,
                    )
                env.vars[name.name] = value

        return run

    # ---- compound statements ------------------------------------------------------------------
    def if_(self, node: ast.If) -> Exec:
        line = node.span.line
        arms = tuple(
            Arm("then" if i == 0 else "elif", cond.span.line, body[-1].span.end_line)
            for i, (cond, body) in enumerate(node.branches)
        )
        if node.orelse is not None:
            arms += (Arm("else", node.else_line or line, node.orelse[-1].span.end_line),)
        branches = [
            (self.expr(cond), cond.span, self.in_branch(Branch(line, arm.kind, arm.line, arms), body))
            for arm, (cond, body) in zip(arms, node.branches, strict=False)
        ]
        orelse = None
        if node.orelse is not None:
            orelse = self.in_branch(Branch(line, "else", arms[-1].line, arms), node.orelse)

        def run(env: Env) -> Any:
            for cond, span, body in branches:
                if truth(cond(env), span, self):
                    return body(env)
            return orelse(env) if orelse is not None else None

        return run

    def while_(self, node: ast.While) -> Exec:
        cond, span = self.expr(node.condition), node.condition.span
        body = self.counted(self.block(node.body), node.span)
        loop = self.loop("while", node, span)

        def run(env: Env) -> Any:
            with loop() as this:  # counts the iterations, so a picture can say which made a node
                while truth(cond(env), span, self):
                    this.count += 1
                    signal = body(env)
                    if signal is not None:
                        if signal is BREAK:
                            break
                        if signal is not CONTINUE:
                            return signal
            return None

        return run

    def for_(self, node: ast.For) -> Exec:
        iterable, span = self.expr(node.iterable), node.iterable.span
        bind, site = unpacker(node.targets), self.site(span)
        # `for x in ...`, the usual loop, stores x itself rather than calling `bind` each time.
        only = node.targets[0] if len(node.targets) == 1 else None
        body = self.counted(self.block(node.body), node.span)
        loop = self.loop("for", node, span)

        def run(env: Env) -> Any:
            try:
                values = iterate(iterable(env), site)
            except Exception as e:
                raise self.fail(e, span) from None
            vars = env.vars
            with loop() as this:
                for value in values:
                    this.count += 1
                    if only is not None:
                        vars[only] = value
                    else:
                        bind(vars, value, span, self)
                    signal = body(env)
                    if signal is not None:
                        if signal is BREAK:
                            break
                        if signal is not CONTINUE:
                            return signal
            return None

        return run

    def function_def(self, node: ast.FunctionDef) -> Exec:
        params = tuple(p.name for p in node.params)
        defaults = [(self.expr(p.default) if p.default is not None else None) for p in node.params]
        outer = self.branches, self.echo
        self.branches, self.echo = (), False  # an `if` around a `def` is not running when the function is
        try:
            body = self.scoped(self.counted(self.block(node.body), None))
        finally:
            self.branches, self.echo = outer
        name, span = node.name, node.span

        def run(env: Env) -> None:
            values = tuple(MISSING if d is None else d(env) for d in defaults)
            env.vars[name] = Function(name, params, values, body, env, span)

        return run

    def with_(self, node: ast.With) -> Exec:
        """with no_grad: ... — the context is entered before the block and left however it ends."""
        context, span, body = self.expr(node.context), node.context.span, self.block(node.body)

        def run(env: Env) -> Any:
            mode = context(env)
            if not isinstance(mode, WithContext):
                contexts = " or ".join(", ".join(env.contexts()).rsplit(", ", 1))
                raise self.fail(DGError("TypeError", f"'with' needs {contexts}, not {type_name(mode)}"), span)
            token = mode.enter()
            try:
                return body(env)
            finally:
                mode.exit(token)

        return run


def missing_name(name: str, module: ModuleInterface) -> Builtin:
    """What `from submission import f` binds when the submission has no `f`: a function that fails
    with that news wherever it is called, so that only the tests that use `f` fail."""

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise DGError("ImportError", f"{module.display} defines no '{name}'", help=defines(module))

    return Builtin(name, missing, f"{name}(...)  (not defined by {module.display})")
