"""`static(f)` and `static_info(f)` as builtins of a session (the seeing tools install them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dglang.autograd.tensor import type_name
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.runtime import Builtin, CallContext, Env, Function
from dglang.interpreter.semantics.calls import bind_arguments

# Every session gets these two builtins, but only a program that calls static() needs the tracer,
# the code generator and the listing: they are imported at that first call (inside the functions
# below), so a program that never calls static() starts without loading them.
if TYPE_CHECKING:
    from .static_calls import StaticFunction


def made(session: Session) -> list[StaticFunction]:
    """The static functions static() made in this session, in the order it made them."""
    return session.tools.setdefault("static", [])


def made_in(session: Session, name: str) -> list[StaticFunction]:
    """The static functions `static(NAME)` made in this session (`dg static`, `:static NAME`)."""
    return [fn for fn in made(session) if fn.name == name]


def wrapped_names(session: Session) -> list[str]:
    """The functions static() wrapped in this session, each once, in the order they were wrapped."""
    return list(dict.fromkeys(fn.name for fn in made(session)))


def bound_arguments(f: Function, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """Every argument of a call of f, in its parameters' order: bound as Python binds them."""
    if not kwargs and len(args) == len(f.params):
        return args
    bound = bind_arguments(f, args, kwargs)
    return [bound[p] for p in f.params]


def static_function(value: Any) -> StaticFunction | None:
    """The StaticFunction behind a value `static(f)` returned, else None."""
    fn = getattr(value, "fn", None)
    owner = getattr(fn, "__self__", None)
    return owner.static if isinstance(owner, Caller) else None


def reachable(f: Function, args: list[Any]) -> list[tuple[str | None, Any]]:
    """What f can change besides its own values: its arguments, and the variables of the scopes it
    closes over (not the builtins'), each with its name (side_effects.py)."""
    found: list[tuple[str | None, Any]] = [(None, a) for a in args]
    env = f.env
    while env is not None and env.parent is not None:
        found.extend(env.vars.items())
        env = env.parent
    return found


class Caller:
    """The callable a Builtin named `static(f)` holds: each call runs f through its StaticFunction."""

    def __init__(self, f: Function, static: StaticFunction) -> None:
        self.f, self.static = f, static

    def call(self, context: CallContext, *args: Any, **kwargs: Any) -> Any:
        self.static.call_dynamic = lambda a: context.call(self.f, a)
        self.static.where = context.span
        return self.static(list(args), kwargs)


def scope_label(session: Session) -> Callable[[Env, str], str]:
    """How a note names a variable the lookup from `scope` finds: "the global `scale`"."""

    def label(scope: Env, name: str) -> str:
        found: Env | None = scope
        while found is not None and name not in found.vars:
            found = found.parent
        if found is session.globals:
            return f"the global `{name}`"
        if found is session.builtins:
            return f"the name `{name}`"
        module = next((m for m in session.modules.loaded.values() if m.env is found), None)
        if module is not None:
            return f"`{name}` of module {module.name}"
        return f"the variable `{name}` of an enclosing function"

    return label


def install(session: Session, drawing: Callable[[], bool] = lambda: False) -> None:
    """Add `static` and `static_info`; `drawing` says whether the session keeps graphs to draw
    (a static call's result then hangs from the graph the function records, not one node)."""

    def static(context: CallContext, f: Any) -> Builtin:
        """f as a static graph: traced once per signature of its arguments, then run as generated code.

        >>> def f(x):
        ...     return (x * x).sum()
        >>> fast = static(f)
        >>> fast(tensor([1.0, 2.0]))
        tensor(5.)
        """
        from .static_calls import StaticFunction

        if static_function(f) is not None:  # static(static(f)): a cache of its own, for the same f
            f = f.fn.__self__.f
        if not isinstance(f, Function):
            raise DGError(
                "TypeError",
                f"static() takes a function defined with def, not {type_name(f)}",
                help="write `def f(x): ...` and then `fast = static(f)`",
            )
        fn = StaticFunction(f.name, lambda a: None, note, printed=lambda: session.writes, drawing=drawing)
        fn.context, fn.outside = session.context, functools.partial(reachable, f)
        fn.params, fn.bind, fn.label = f.params, functools.partial(bound_arguments, f), scope_label(session)
        caller = Caller(f, fn)
        made(session).append(fn)
        return Builtin(f.name, caller.call, f"static({f.signature()})", wants_context=True, first_try=fn.first_try)

    def note(message: str, help: str | None, where: Any) -> None:
        session.warn(DGError("Note", message, where, help=help))

    def static_info(f: Any, timing: bool = True) -> None:
        """Print what static(f) did: its traces, cache entries with their signatures, guard failures, time.

        >>> def f(x):
        ...     return x * 2
        >>> fast = static(f)
        >>> y = fast(tensor([1.0]))
        >>> static_info(fast, timing=False)
        static(f): 1 trace, 1 in the cache
          trace 1: f(float[1]): 1 op, 0 guards, 0 tensors captured, 1 call
          guard failures: 0
        """
        from .listing import info_text

        fn = static_function(f)
        if fn is None:
            raise DGError("TypeError", f"static_info() describes a function static() made, not {type_name(f)}")
        session.write(info_text(fn, timing=bool(timing)))

    session.add_builtins(
        {
            "static": Builtin("static", static, "static(f)", wants_context=True),
            "static_info": Builtin("static_info", static_info, "static_info(f, timing=True)"),
        }
    )
