"""What every case of the evaluator shares: the compiler's state and the helpers all cases use.

An expression compiles to `run(env) -> value`; a statement to `run(env) -> signal`, where the
signal is None (carry on), BREAK, CONTINUE, or a ReturnValue travelling up to its call. The cases
themselves are in `expressions.py` and `statements.py`; `evaluator.py` joins them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Branch, Loop, LoopRun, Site, Span
from dglang.interpreter.library.runtime import Env, iterate

from . import ast_nodes as ast
from .context import RunContext
from .interrupts import steps_message
from .locating import located
from .resolver import Resolution

Eval = Callable[[Env], Any]  # a compiled expression
Exec = Callable[[Env], Any]  # a compiled statement: returns None or a signal


class CompilerBase:
    def __init__(self, context: RunContext, resolution: Resolution, echo: bool = False, stepping: bool = False) -> None:
        self.context = context
        self.frames = context.frames
        self.resolution = resolution  # what the resolver found: how each name is looked up, ...
        self.echo = echo  # a REPL cell: show the value of each top-level expression statement
        self.stepping = stepping  # compile the debugger's statement events in (see `observed`)
        self.branches: tuple[Branch, ...] = ()  # the `if` arms around the code being compiled

    # Joined in evaluator.py: compile one node of each kind.
    def expr(self, node: ast.Expr) -> Eval:
        raise NotImplementedError

    def stmt(self, node: ast.Stmt) -> Exec:
        raise NotImplementedError

    def block(self, stmts: list[ast.Stmt]) -> Exec:
        raise NotImplementedError

    # ---- shared by the cases ------------------------------------------------------------------
    def site(self, span: Span) -> Site:
        """What an op written at `span` stamps on the nodes it records."""
        return Site(span, self.branches)

    def loop(self, kind: str, node: ast.Stmt | ast.Expr, head: Span) -> Callable[[], LoopRun]:
        """What a loop at `node` enters each time it runs: a LoopRun on the run's stack of loops,
        whose `count` the loop raises by one per iteration, for pictures of the graph to read."""
        loop, loops, frames = Loop(kind, node.span.line, head), self.context.loops, self.frames
        return lambda: LoopRun(loop, frames[-1] if frames else None, loops)

    def fail(self, e: BaseException, span: Span) -> DGError:
        """The error `e` (raised while running the node at `span`), located there."""
        return located(e, span, self.frames)

    def in_branch(self, branch: Branch, body: list[ast.Stmt]) -> Exec:
        """Compile one arm of an `if`, so the ops inside know which arm they are in."""
        outer, self.branches = self.branches, (*self.branches, branch)
        try:
            return self.block(body)
        finally:
            self.branches = outer

    def counted(self, body: Callable[[Env], Any], span: Span | None) -> Callable[[Env], Any]:
        """`body`, counting a step each time it runs when the run has a step limit (--max-steps).

        Loop bodies, comprehension items and function bodies are counted; without a limit this
        returns `body` itself, so programs pay nothing. A function body (span None) blames its call."""
        limit = self.context.max_steps
        if limit is None:
            return body
        context, frames = self.context, self.frames
        message, help = steps_message(limit)

        def run(env: Env) -> Any:
            context.steps += 1
            if context.steps > limit:
                if span is not None:
                    raise DGError("LimitError", message, span, help=help, frames=tuple(frames))
                raise DGError("LimitError", message, frames[-1].call_site, help=help, frames=tuple(frames[:-1]))
            return body(env)

        return run

    def observed(self, statement: Exec, span: Span) -> Exec:
        """`statement`, telling the debugger (RunContext.on_statement) each time it is about to run.

        Only a program compiled for the debugger (`stepping`) has these events; any other gets
        `statement` itself, as `counted` does for the step limit, so it pays nothing."""
        if not self.stepping:
            return statement
        context = self.context

        def run(env: Env) -> Any:
            listener = context.on_statement
            if listener is not None:  # stepping, or a :break line is set
                listener(span, env)
            return statement(env)

        return run

    def scoped(self, body: Exec) -> Exec:
        """A function's body that, in a program compiled for the debugger, keeps its scope on
        RunContext.scopes while it runs, so that :up can show the variables of each caller."""
        if not self.stepping:
            return body
        scopes, frames = self.context.scopes, self.frames

        def run(env: Env) -> Any:
            scopes.append((len(frames), env))
            try:
                return body(env)
            finally:
                scopes.pop()

        return run


def truth(value: Any, span: Span, c: CompilerBase) -> bool:
    """Is a condition true? A one-element tensor counts as its value, as in PyTorch."""
    if value is True or value is False:
        return value
    try:
        return bool(value)
    except Exception as e:
        raise c.fail(e, span) from None


def unpack(value: Any, count: int, span: Span, c: CompilerBase) -> list[Any]:
    """`a, b = value`: its items, exactly `count` of them."""
    try:
        values = list(iterate(value))
    except Exception as e:
        raise c.fail(e, span) from None
    if len(values) != count:
        raise c.fail(DGError("ValueError", f"cannot unpack {len(values)} values into {count} names"), span)
    return values


def unpacker(targets: list[str]) -> Callable[[dict[str, Any], Any, Span, CompilerBase], None]:
    """Bind a loop's value to its variable(s): `for x in ...` or `for i, x in ...`."""
    if len(targets) == 1:
        (only,) = targets

        def bind_one(vars: dict[str, Any], value: Any, span: Span, c: CompilerBase) -> None:
            vars[only] = value

        return bind_one

    def bind_many(vars: dict[str, Any], value: Any, span: Span, c: CompilerBase) -> None:
        for name, v in zip(targets, unpack(value, len(targets), span, c), strict=True):
            vars[name] = v

    return bind_many
