"""Blocks: statements run in order, as a program, the body of a loop, the body of a function.

A block runs its statements until one returns a signal (BREAK, CONTINUE, a ReturnValue), which
it hands to the loop or call around it. An error leaving a statement gets the DG call stack of
the block, and a stop from outside (Ctrl-C, --timeout, --max-memory) is located at the statement
it hit (locating.in_statement): one `try` around the whole block, free until something is raised.

What a loop runs for each iteration also counts it on the loop's run (the top of
RunContext.loops: `iteration 3 of the for on line 5` in a picture) and, under --max-steps, as a
step; a `for` binds its names to the item first. A function's body makes its call the one the
nodes recorded inside it were made in. Each block is written out for one statement and for
several, since most loop bodies are one statement and a loop over a list of one costs about as
much as the statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.source import Loop, LoopRun
from dglang.interpreter.library.runtime import Env, unpack

from . import ast_nodes as ast
from .compiling import LOOPS, CompilerBase, Exec
from .locating import in_statement


class Blocks(CompilerBase):
    def block(self, body: list[ast.Stmt]) -> Exec:
        """The statements of `body` in order, up to the first signal."""
        compiled = [self.stmt(s) for s in body]
        frames = self.frames
        if len(compiled) == 1:
            (only,), span = compiled, body[0].span

            def run_one(env: Env) -> Any:
                try:
                    return only(env)
                except (Exception, KeyboardInterrupt) as e:
                    raise in_statement(e, span, frames) from None

            return run_one
        spans = {id(c): s.span for c, s in zip(compiled, body, strict=True)}

        def run(env: Env) -> Any:
            step = compiled[0] if compiled else None
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

        return run

    def loop_body(self, node: ast.While | ast.For) -> Callable[..., Any]:
        """What a loop runs for each iteration: a `while`'s body as run(env); a `for`'s as
        run(env, item), which binds the loop's names to the item first. Its kind of node must be
        one of compiling.LOOPS, whose runs are counted (see `iteration`)."""
        if type(node) not in LOOPS:
            raise TypeError(f"{type(node).__name__} has a loop body: add it to LOOPS in compiling.py")
        if isinstance(node, ast.For) and len(node.targets) > 1:  # `for i, x in ...`: unpack, then the body
            bind, body = self.unpacker(node.targets, node.iterable), self.iteration(node)

            def unpacking(env: Env, item: Any) -> Any:
                bind(env.vars, item)
                return body(env)

            return self.counted(unpacking, node.span)
        name = node.targets[0] if isinstance(node, ast.For) else None
        return self.counted(self.iteration(node, name), node.span)

    def iteration(self, node: Any, name: str | None = None) -> Callable[..., Any]:
        """`node`'s body as one iteration of the loop; with `name`, run(env, item) stores the item
        under that name first. Each iteration is counted on the loop's run under way (`run`, its
        LoopRun), which `around` puts on RunContext.loops while the loop runs (see `entering`)."""
        compiled, frames = [self.stmt(s) for s in node.body], self.frames
        spans = {id(c): s.span for c, s in zip(compiled, node.body, strict=True)}
        run = LoopRun(Loop("", 0, node.span), None, [])  # replaced by each run of the loop

        def entering(loop: Loop, frame: Any, loops: list[LoopRun], code: Any, env: Env) -> Any:
            nonlocal run
            outer, run = run, LoopRun(loop, frame, loops)
            try:
                with run:
                    return code(env)
            finally:
                run = outer  # a recursion runs this loop inside its own run

        self.entering[node] = entering
        if name is None and len(compiled) == 1:
            (only,), span = compiled, node.body[0].span

            def run_one(env: Env) -> Any:
                run.count += 1
                try:
                    return only(env)
                except (Exception, KeyboardInterrupt) as e:
                    raise in_statement(e, span, frames) from None

            return run_one
        if name is None:

            def run_all(env: Env) -> Any:
                run.count += 1
                step = compiled[0]
                try:
                    for step in compiled:
                        signal = step(env)
                        if signal is not None:
                            return signal
                except (Exception, KeyboardInterrupt) as e:
                    raise in_statement(e, spans[id(step)], frames) from None
                return None

            return run_all
        if len(compiled) == 1:
            (only,), span = compiled, node.body[0].span

            def run_one_on(env: Env, item: Any) -> Any:
                env.vars[name] = item
                run.count += 1
                try:
                    return only(env)
                except (Exception, KeyboardInterrupt) as e:
                    raise in_statement(e, span, frames) from None

            return run_one_on

        def run_all_on(env: Env, item: Any) -> Any:
            env.vars[name] = item
            run.count += 1
            step = compiled[0]
            try:
                for step in compiled:
                    signal = step(env)
                    if signal is not None:
                        return signal
            except (Exception, KeyboardInterrupt) as e:
                raise in_statement(e, spans[id(step)], frames) from None
            return None

        return run_all_on

    def binder(self, node: ast.ListComprehension) -> Callable[[Env, Any], None]:
        """What a comprehension does with each item: binds its names to it (in the comprehension's
        own scope) and counts it, as an iteration for pictures and a step under --max-steps."""
        bind = self.unpacker(node.targets, node.iterable)
        run = LoopRun(Loop("", 0, node.span), None, [])  # replaced by each run of the comprehension

        def entering(loop: Loop, frame: Any, loops: list[LoopRun], code: Any, env: Env) -> Any:
            nonlocal run
            outer, run = run, LoopRun(loop, frame, loops)
            try:
                with run:
                    return code(env)
            finally:
                run = outer

        self.entering[node] = entering

        def next_item(scope: Env, item: Any) -> None:
            run.count += 1
            bind(scope.vars, item)

        return self.counted(next_item, node.span)

    def unpacker(self, targets: list[str], iterable: ast.Expr) -> Callable[[dict[str, Any], Any], None]:
        """Bind an item to a loop's names: `x`, or `i, x` unpacked (an error located at the iterable)."""
        if len(targets) == 1:
            (only,) = targets

            def bind_one(vars: dict[str, Any], item: Any) -> None:
                vars[only] = item

            return bind_one
        items = self.operation(iterable, unpack)

        def bind_many(vars: dict[str, Any], item: Any) -> None:
            for name, value in zip(targets, items(item, len(targets)), strict=True):
                vars[name] = value

        return bind_many

    def function_body(self, node: ast.FunctionDef) -> Exec:
        """What a call of the function runs: its body, with the call as the one nodes recorded inside
        were made in (each call's frame is on RunContext.frames), a step under --max-steps (blamed
        on the call), and the scope kept for the debugger's :up."""
        echo, self.echo = self.echo, False  # a REPL cell shows the values of its own statements only
        try:
            body = self.block(node.body)
        finally:
            self.echo = echo
        frames = self.frames

        def in_call(env: Env) -> Any:
            caller, recording.call = recording.call, frames[-1]
            try:
                return body(env)
            finally:
                recording.call = caller

        return self.scoped(self.counted(in_call, None))
