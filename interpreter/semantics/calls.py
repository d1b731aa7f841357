"""Calls: how either evaluator calls a DG value, and how a call's arguments are bound, with DG's
own messages.

`Calls.invoke` calls any callable value: a DG function (`def`) gets a new scope for its
arguments, bound here as Python would bind them, and a frame on the call stack while its body
runs; a builtin or a method is Python code, called directly, and only when the call fails with a
TypeError does this module compare the arguments with the function's signature to say, in DG's
words, what was wrong. Both evaluators (reference_expressions.py, expressions.py) call through it;
each makes the body its functions run (Function.body).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.library.attributes import find_method, module_name
from dglang.interpreter.library.runtime import (
    FULL_CALL,
    MISSING,
    BoundMethod,
    Builtin,
    CallContext,
    Env,
    Function,
    Module,
    WithContext,
    suggest,
    watching,
)

from .context import RunContext

# How deep builtins that call back into the program may nest (gradcheck inside a function it
# checks, a breakpoint's cell calling a function that pauses again). A DG call uses no C stack
# (CPython 3.11+ runs Python-to-Python calls in one C frame), but a call into a builtin and back
# does: a few hundred bytes on Linux with CPython 3.11, more with other compilers. 200 levels fit
# with room to spare in the smallest stack DG runs on (512 KB, a secondary thread on macOS);
# no program that means to end nests gradcheck more than a few deep.
MAX_INSIDE_BUILTINS = 200


class Calls:
    """Calling a DG value, the same for both evaluators (each sets `context` and `frames`)."""

    context: RunContext
    frames: list[CallFrame]

    def invoke(self, f: Any, args: list[Any], kwargs: dict[str, Any], span: Span, env: Env) -> Any:
        """Call any callable DG value."""
        if type(f) is Function:
            return self.call_function(f, args, kwargs, span)
        if type(f) is Builtin:
            if f.first_try is not None and watching.listener is None:
                value = f.first_try(args, kwargs, span)
                if value is not FULL_CALL:
                    return value
            if f.wants_context:
                value = self.call_with_context(f, args, kwargs, span, env)
            else:
                value = call_python(f.name, f.fn, args, kwargs)
            if watching.listener is not None:  # a tensor a builtin made, for a static trace
                watching.listener.returned(f, args, value)
            return value
        if type(f) is BoundMethod:
            return call_python(f.name, f.fn, [f.obj, *args], kwargs, method=True)
        if isinstance(f, WithContext) and not args and not kwargs:
            return f  # `with no_grad():` reads like PyTorch
        raise DGError("TypeError", f"{type_name(f)} is not callable")

    def call_with_context(self, f: Builtin, args: list[Any], kwargs: dict[str, Any], span: Span, env: Env) -> Any:
        """A builtin that sees its caller and may call back into the program (gradcheck(f, x),
        breakpoint()). Python's C stack holds a few frames for each such builtin while it runs, so
        these nest at most MAX_INSIDE_BUILTINS deep: a function that gradchecks itself ends in a
        RecursionError on the smallest stack DG runs on, not in a crash (see calls.py)."""
        context, frames = self.context, self.frames
        if context.inside_builtins >= MAX_INSIDE_BUILTINS:
            raise DGError(
                "RecursionError",
                f"more than {MAX_INSIDE_BUILTINS} calls nested inside builtins that call the program back "
                f"(here {f.name}())",
                help=f"the program reached {f.name}() again from inside a call that {f.name}() made; "
                "check where the recursion stops",
            )
        call_back = lambda g, a: self.invoke(g, a, {}, span, env)
        context.inside_builtins += 1
        try:
            return call_python(f.name, f.fn, [CallContext(env, span, frames, len(frames), call_back), *args], kwargs)
        finally:
            context.inside_builtins -= 1

    def call_function(self, f: Function, args: list[Any], kwargs: dict[str, Any], span: Span) -> Any:
        """A DG function's call: a new scope for its arguments, a frame on the call stack, its body."""
        frames, max_depth = self.frames, self.context.max_depth
        env = Env(bind_arguments(f, args, kwargs), f.env)
        if watching.listener is not None:  # the call's own scope: not outside a function a static trace runs
            watching.listener.entered(env)
        frames.append(CallFrame(f.name, span, frames[-1] if frames else None))
        try:
            if len(frames) > max_depth:
                raise DGError(
                    "RecursionError",
                    f"more than {max_depth:,} nested calls",
                    span,
                    help="check that the recursion reaches its base case",
                    frames=tuple(frames),
                )
            signal = f.body(env)
        finally:
            frames.pop()
        return signal.value if signal is not None else None


def bind_arguments(f: Function, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Match a call's arguments to a DG function's parameters, as Python does."""
    params = f.params
    if not kwargs and len(args) == len(params):
        return dict(zip(params, args, strict=True))
    if len(args) > len(params):
        raise DGError(
            "TypeError",
            f"{f.name}() takes {len(params)} argument{'s' * (len(params) != 1)} but {len(args)} were given",
            help=f"def {f.signature()}",
        )
    bound = dict(zip(params, args, strict=False))
    for key, value in kwargs.items():
        if key not in params:
            raise DGError(
                "TypeError", f"{f.name}() has no parameter '{key}'", help=suggest(key, params) or f"def {f.signature()}"
            )
        if key in bound:
            raise DGError("TypeError", f"{f.name}() got two values for '{key}'")
        bound[key] = value
    for param, default in zip(params, f.defaults, strict=True):
        if param not in bound:
            if default is MISSING:
                raise DGError("TypeError", f"{f.name}() is missing its argument '{param}'", help=f"def {f.signature()}")
            bound[param] = default
    return bound


def call_python(
    name: str, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], method: bool = False
) -> Any:
    """Call a builtin or method, turning a mismatch with its parameters into a DG TypeError."""
    try:
        return fn(*args, **kwargs)
    except TypeError as e:
        problem = binding_problem(fn, args, kwargs)
        if problem is None:  # the arguments fit: the TypeError came from inside the function
            raise DGError("TypeError", plain_python_message(str(e))) from None
        shown = f".{name}()" if method else f"{name}()"
        raise DGError("TypeError", f"{shown} {problem[0]}", help=problem[1]) from None


def method(name: str, invoke: Callable[..., Any]) -> Callable[[Any, list[Any], dict[str, Any], Span, Env], Any]:
    """How `x.name(...)` calls: the method `name` of the value, found when called, no bound method
    made; or, when the value is a module (`nn.linear(x)`), its function `name`, called by `invoke`."""

    def call(target: Any, args: list[Any], kwargs: dict[str, Any], span: Span, env: Env) -> Any:
        if type(target) is Module:
            return invoke(module_name(target, name), args, kwargs, span, env)
        return call_python(name, find_method(target, name), [target, *args], kwargs, method=True)

    return call


def binding_problem(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> tuple[str, str | None] | None:
    """What is wrong with calling `fn` with these arguments, read from its signature; None if nothing."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a function Python cannot describe
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    by_keyword = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in params):
        return "got too many arguments", None
    filled = {p.name for p in positional[: len(args)]}
    for key in kwargs:
        if key not in by_keyword and not any(p.kind is p.VAR_KEYWORD for p in params):
            return f"has no parameter '{key}'", suggest(key, [p.name for p in params])
        if key in filled:
            return f"got two values for '{key}'", None
    for p in params:
        required = p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        if required and p.name not in filled and p.name not in kwargs:
            return f"is missing its argument '{p.name}'", None
    return None


def plain_python_message(message: str) -> str:
    """Python's TypeError text, minus the words that only make sense in Python."""
    return message.replace(" object", "").replace("'NoneType'", "None")
