"""Blocks: statements run in order, as a program, an `if` arm, the body of a loop or a function.

A block runs its statements until one returns a signal (BREAK, CONTINUE, a ReturnValue), which
it hands to the loop or call around it. An error leaving a statement gets the DG call stack of
the block, and a stop from outside (Ctrl-C, --timeout, --max-memory) is located at the statement
it hit (locating.in_statement): one `try` around the whole block, free until something is raised.
The one block runner is `block`; the one loop runner, `loop`, runs a loop's body for each
iteration, counting it and binding the loop's names (`comprehension` is the same for the items
of a list or dict built by a loop); a function's body makes its call the one the nodes recorded
inside it were made in (`function_body`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd.tensor import recording
from dglang.interpreter.library.runtime import BREAK, CONTINUE, Env, unpack, watching

from . import ast_nodes as ast
from .compiling import CompilerBase, Eval, Exec, put
from .locating import in_statement


class Blocks(CompilerBase):
    def block(self, body: list[ast.Stmt]) -> Exec:
        """The statements of `body` in order, up to the first signal. (A block of one statement, the
        commonest loop body, runs it without a loop over a list of one, which costs about as much
        as a simple statement.)"""
        compiled = [self.stmt(s) for s in body]
        spans = {id(c): s.span for c, s in zip(compiled, body, strict=True)}
        frames = self.frames
        if len(compiled) == 1:
            (only,), span = compiled, body[0].span

            def run_statement(env: Env) -> Any:
                try:
                    return only(env)
                except (Exception, KeyboardInterrupt) as e:
                    raise in_statement(e, span, frames) from None

            return run_statement

        def run_block(env: Env) -> Any:
            step = None
            try:
                for step in compiled:
                    signal = step(env)
                    if signal is not None:
                        return signal
            except (Exception, KeyboardInterrupt) as e:
                if step is None:
                    raise
                raise in_statement(e, spans[id(step)], frames) from None
            return None

        return run_block

    def loop(self, node: ast.While | ast.For, items: Eval, test: Callable[[Env], bool] | None = None) -> Exec:
        """The one loop runner: the body for each item `items(env)` gives (a `for`'s, its names
        bound to the item first), or while `test` holds (a `while`'s items never end); each
        iteration a step under --max-steps and counted on the loop's run, until the items end or
        the body signals BREAK or a ReturnValue."""
        body = self.block(node.body)
        new_run, count_step = self.loop_runs(node), self.step_counter(node.span)
        targets = node.targets if isinstance(node, ast.For) else []
        name = targets[0] if len(targets) == 1 else None  # bound here, without a call per item
        bind = self.binder(targets, node.iterable) if len(targets) > 1 else None  # type: ignore[union-attr]

        def run_loop(env: Env) -> Any:
            with new_run() as run:
                for item in items(env):
                    if test is not None and not test(env):
                        break
                    if count_step is not None:
                        count_step()
                    if name is not None:
                        env.vars[name] = item
                    elif bind is not None:
                        bind(env.vars, item)
                    run.count += 1
                    signal = body(env)
                    if signal is not None:
                        if signal is BREAK:
                            break
                        if signal is not CONTINUE:
                            return signal
            return None

        return run_loop

    def comprehension(self, node: ast.ListComprehension | ast.DictComprehension) -> Eval:
        """A list or dict built by a loop: each item bound to the names in a scope of the
        comprehension's own and, when it passes the condition, its element added (or its key and
        value stored, an error of the key located at the key); each item a step, and counted on
        the comprehension's run."""
        items, bind = self.items(node.iterable), self.binder(node.targets, node.iterable)
        keep = self.test(node.condition) if node.condition is not None else None
        new_run, count_step = self.loop_runs(node), self.step_counter(node.span)
        element = self.expr(node.element) if isinstance(node, ast.ListComprehension) else None
        if isinstance(node, ast.DictComprehension):
            key, value, store_at = self.expr(node.key), self.expr(node.value), self.operation(node.key, put)

        def build(env: Env) -> Any:
            with new_run() as run:
                scope, out = Env({}, env), [] if element is not None else {}
                if watching.listener is not None:
                    watching.listener.entered(scope)
                for item in items(env):
                    if count_step is not None:
                        count_step()
                    run.count += 1
                    bind(scope.vars, item)
                    if keep is None or keep(scope):
                        if element is not None:
                            out.append(element(scope))  # type: ignore[union-attr]
                        else:
                            store_at(out, key(scope), value(scope))
            return out

        return build

    def binder(self, targets: list[str], iterable: ast.Expr) -> Callable[[dict[str, Any], Any], None]:
        """What binds an item to a loop's names: `x`, or `i, x` unpacked (an error located at the
        iterable). (A `for` with one name binds it itself, which saves a call per item.)"""
        if len(targets) == 1:
            (only,) = targets

            def bind_name(vars: dict[str, Any], item: Any) -> None:
                vars[only] = item

            return bind_name
        items = self.operation(iterable, unpack)

        def bind_names(vars: dict[str, Any], item: Any) -> None:
            for name, value in zip(targets, items(item, len(targets)), strict=True):
                vars[name] = value

        return bind_names

    def function_body(self, node: ast.FunctionDef) -> Exec:
        """What a call of the function runs: its body, with the call as the one nodes recorded inside
        were made in (each call's frame is on RunContext.frames), a step under --max-steps (blamed
        on the call), and the scope kept for the debugger's :up."""
        echo, self.echo = self.echo, False  # a REPL cell shows the values of its own statements only
        try:
            body = self.block(node.body)
        finally:
            self.echo = echo
        frames, count_step = self.frames, self.step_counter(None)

        def run_call(env: Env) -> Any:
            if count_step is not None:
                count_step()
            caller, recording.call = recording.call, frames[-1]
            try:
                return body(env)
            finally:
                recording.call = caller

        return self.scoped(run_call)
