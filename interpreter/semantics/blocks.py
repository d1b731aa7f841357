"""Blocks: statements run in order, as a program, an `if` arm, the body of a loop or a function.

A block runs its statements until one returns a signal (BREAK, CONTINUE, a ReturnValue), which
it hands to the loop or call around it. An error leaving a statement gets the DG call stack of
the block, and a stop from outside (Ctrl-C, --timeout, --max-memory) is located at the statement
it hit (locating.in_statement): one `try` around the whole block, free until something is raised.
The one block runner is `block`; a loop counts its iterations and binds its names itself
(statements.py), and a function's body makes its call the one the nodes recorded inside it were
made in (`function_body`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.autograd.tensor import recording
from dglang.interpreter.library.runtime import Env, unpack

from . import ast_nodes as ast
from .compiling import CompilerBase, Exec
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
