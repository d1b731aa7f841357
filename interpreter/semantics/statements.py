"""The evaluator's statement cases: one method per kind of statement, each returning a closure
`env -> signal`, named for what it runs (`run_while`, `define_function`).

A statement's closure returns a signal: None to carry on, BREAK or CONTINUE for the loop around it,
or a ReturnValue for the call around it. Loops and calls look at the signal; nothing is raised.
As in expressions.py, a case says what its node means in the words of compiling.py and
blocks.py, which add what every node needs besides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import repeat
from typing import Any

from dglang import autograd as ag
from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
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
    text,
    unpack,
)

from . import ast_nodes as ast
from .blocks import Blocks
from .compiling import Eval, Exec
from .context import ModuleInterface
from .linking import defines


class Statements(Blocks):
    def expr_stmt(self, node: ast.ExprStmt) -> Exec:
        if self.echo:  # a REPL cell shows the value
            show = self.context.show
            return self.compute(node, lambda result: None if result is None else show(result), node.expr)
        value = self.expr(node.expr)

        def run_expression(env: Env) -> None:
            value(env)

        return run_expression

    # ---- assignment ---------------------------------------------------------------------------
    def assign(self, node: ast.Assign) -> Exec:
        if isinstance(node.target, ast.Name):
            return self.bind(node.target.name, self.expr(node.value))
        value, store = self.expr(node.value), self.target_store(node.target)
        return lambda env: store(env, value(env))

    def aug_assign(self, node: ast.AugAssign) -> Exec:
        """x += v: a tensor updates in place inside no_grad (w -= lr * w.grad); otherwise x = x + v."""
        updated = self.compute(node, AUGMENTED[node.op], node.target, node.value)
        if isinstance(node.target, ast.Name):
            return self.bind(node.target.name, updated)
        store = self.target_store(node.target)
        return lambda env: store(env, updated(env))

    def target_store(self, target: ast.Expr) -> Callable[[Env, Any], None]:
        """How to store a value into an assignment target: a name, x[i], x.grad, or a tuple of them."""
        if isinstance(target, ast.Name):
            return self.name_store(target.name)
        if isinstance(target, ast.TupleExpr):
            stores, split = [self.target_store(t) for t in target.items], self.operation(target, unpack)

            def store_tuple(env: Env, value: Any) -> None:
                for store, v in zip(stores, split(value, len(stores)), strict=True):
                    store(env, v)

            return store_tuple
        if isinstance(target, ast.Index):
            obj, key, put = self.expr(target.obj), self.index_key(target.items), self.operation(target, set_item)
            return lambda env, value: put(obj(env), key(env), value)
        assert isinstance(target, ast.Attribute)
        owner, attr, put = self.expr(target.obj), target.name, self.operation(target, set_attribute)
        return lambda env, value: put(owner(env), attr, value)

    def index_key(self, items: list[ast.Expr]) -> Eval:
        """What goes between the brackets: one value, a slice, or a tuple of them for several axes."""
        parts = [self.expr(i) for i in items]
        if len(parts) == 1:
            return parts[0]
        return lambda env: tuple([p(env) for p in parts])

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
        """grad y [with seed]: backpropagate over the graph recorded for y (an error points at y)."""
        return self.compute(node, ag.backward, node.output, node.seed, blame=node.output)

    def assert_(self, node: ast.Assert) -> Exec:
        """assert test [, message]: an AssertionError at the test when it is false. A builtin that
        answered no (gradcheck) says why, unless the program gave its own message."""
        test, context = self.test(node.test), self.context
        message = self.compute(node.test, text, node.message) if node.message is not None else None

        def check_assertion(env: Env) -> None:
            context.why_not = None  # only what a builtin says while this test runs explains it
            if not test(env):
                why, help = context.why_not or ("assertion failed", None)
                if message is not None:
                    why, help = message(env), (why if context.why_not is not None else help)
                raise DGError("AssertionError", why, help=help, node=node.test)

        return check_assertion

    def delete(self, node: ast.Delete) -> Exec:
        """del d[key], items[i]: each target in turn (an error points at the target)."""
        targets = [self.deletion(t) for t in node.targets]

        def delete_each(env: Env) -> None:
            for target in targets:
                target(env)

        return delete_each

    def deletion(self, target: ast.Index) -> Exec:  # type: ignore[override]
        if len(target.items) == 1:
            return self.compute(target, delete_item, target.obj, target.items[0])
        return self.compute(target, lambda value, *keys: delete_item(value, keys), target.obj, *target.items)

    # ---- modules ----------------------------------------------------------------------------
    def import_(self, node: ast.Import) -> Exec:
        """import nn: run the module (the first time any program of the session imports it), bind it."""
        load = self.context.modules.load  # type: ignore[union-attr]  # the linker found the modules
        found = zip(node.modules, self.resolution.modules[node], strict=True)
        modules = [(m.name, self.compute(m, load, module, m.span)) for m, module in found]

        def import_modules(env: Env) -> None:
            for name, loaded in modules:
                env.vars[name] = loaded(env)

        return import_modules

    def from_import(self, node: ast.FromImport) -> Exec:
        """from nn import linear: run the module as `import` does, then bind the names it defined."""
        (module,) = self.resolution.modules[node]
        load = self.context.modules.load  # type: ignore[union-attr]
        loaded = self.compute(node.module, load, module, node.module.span)
        names = [(n.name, self.operation(n, taken)) for n in node.names]

        def import_names(env: Env) -> None:
            scope = loaded(env).env.vars
            for name, take in names:
                env.vars[name] = take(scope, name, module)

        return import_names

    # ---- compound statements ------------------------------------------------------------------
    def if_(self, node: ast.If) -> Exec:
        """The body of the first arm whose test is true; else the `else` body, if there is one."""
        arms = [(self.test(test), self.block(body)) for test, body in node.branches]
        orelse = self.block(node.orelse) if node.orelse is not None else None

        def run_if(env: Env) -> Any:
            for test, body in arms:
                if test(env):
                    return body(env)
            return orelse(env) if orelse is not None else None

        return run_if

    def while_(self, node: ast.While) -> Exec:
        """The body for as long as the test is true (blocks.py's `loop`, whose items never end)."""
        return self.loop(node, endless, self.test(node.condition))

    def for_(self, node: ast.For) -> Exec:
        """for x in items: the body once for each item, x bound to the item first (blocks.py's `loop`)."""
        return self.loop(node, self.items(node.iterable))

    def function_def(self, node: ast.FunctionDef) -> Exec:
        """The function: its defaults evaluated now, its body run at each call in a new scope whose
        parent is the scope the `def` ran in (so a function sees the variables around it)."""
        params, name, span, doc = tuple(p.name for p in node.params), node.name, node.span, node.docstring()
        defaults = [(self.expr(p.default) if p.default is not None else None) for p in node.params]
        body = self.function_body(node)

        def define_function(env: Env) -> None:
            values = tuple(MISSING if d is None else d(env) for d in defaults)
            env.vars[name] = Function(name, params, values, body, env, span, doc)

        return define_function

    def with_(self, node: ast.With) -> Exec:
        """with no_grad: ... — the context is entered before the block and left however it ends."""
        context, body = self.expr(node.context), self.block(node.body)

        def run_with(env: Env) -> Any:
            mode = context(env)
            if not isinstance(mode, WithContext):
                contexts = " or ".join(", ".join(env.contexts()).rsplit(", ", 1))
                raise DGError("TypeError", f"'with' needs {contexts}, not {type_name(mode)}", node=node.context)
            token = mode.enter()
            try:
                return body(env)
            finally:
                mode.exit(token)

        return run_with


def taken(scope: dict[str, Any], name: str, module: ModuleInterface) -> Any:
    """The value `from module import name` binds, read from the module's scope once it ran."""
    value = scope.get(name, MISSING)
    if value is not MISSING:
        return value
    if not module.checked:  # fails where it is used
        return missing_name(name, module)
    raise DGError(  # its text binds the name, but not on the way this run took
        "ImportError",
        f"cannot import name '{name}' from {module.name}: {module.display} did not define it when it ran",
        help=f"check the `if` or loop around its definition in {module.display}",
    )


def missing_name(name: str, module: ModuleInterface) -> Builtin:
    """What `from submission import f` binds when the submission has no `f`: a function that fails
    with that news wherever it is called, so that only the tests that use `f` fail."""

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise DGError("ImportError", f"{module.display} defines no '{name}'", help=defines(module))

    return Builtin(name, missing, f"{name}(...)  (not defined by {module.display})")


def endless(env: Env) -> Iterator[None]:
    """The items of a `while`: never ending, its test ends it."""
    return repeat(None)
