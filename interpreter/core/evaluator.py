"""The evaluator: each AST node is turned into a Python closure once; running is calling them.

An expression becomes `run(env) -> value`. A statement becomes `run(env) -> signal`, where the
signal is None (carry on), BREAK, CONTINUE, or a ReturnValue travelling up to its call.
Compiling first means the tree is walked once, not once per loop iteration, and names,
operators and scopes are settled before the program starts.

Errors: an exception escaping a node's closure is located there (`fail`), with the DG call stack
at that moment; outer nodes let an already-located error pass untouched.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from dglang import autograd as ag
from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.seeing.anomaly import AnomalyMode

from . import ast
from .attributes import find_method, get_attribute, set_attribute
from .errors import CallFrame, DGError, located
from .limits import interruption, steps_message
from .operators import AUGMENTED, BINARY, COMPARE, MAX_SEQUENCE, UNARY, get_item, set_item
from .runtime import (
    BREAK,
    CONTINUE,
    MISSING,
    BoundMethod,
    Builtin,
    CallContext,
    Env,
    Function,
    GradMode,
    ReturnValue,
    iterate,
    suggest,
    text,
)
from .source import Branch, Site, Span

if TYPE_CHECKING:
    from .session import Session

Eval = Callable[[Env], Any]  # a compiled expression
Exec = Callable[[Env], Any]  # a compiled statement: returns None or a signal


@dataclass(frozen=True)
class Scope:
    """What the compiler knows about the code it is compiling."""

    kind: str  # "module" (top level, a REPL cell, a breakpoint), "function", "comprehension"
    local_names: frozenset[str] = frozenset()
    in_loop: bool = False
    in_no_grad: bool = False  # inside the text of a `with no_grad:` block


class Compiler:
    def __init__(self, session: Session, echo: bool = False) -> None:
        self.session = session
        self.frames = session.frames
        self.echo = echo  # REPL: show the value of each top-level expression statement
        self.scope = Scope("module")
        self.branches: tuple[Branch, ...] = ()  # the `if` arms around the code being compiled

    def site(self, span: Span) -> Site:
        """What an op written at `span` stamps on the nodes it records."""
        return Site(span, self.branches)

    def fail(self, e: BaseException, span: Span) -> DGError:
        return located(e, span, self.frames)

    # ---- entry points ---------------------------------------------------------------------
    def module(self, node: ast.Module) -> Exec:
        return self.block(node.body)

    def block(self, stmts: list[ast.Stmt]) -> Exec:
        """Run statements in order; stop at the first signal. Ctrl-C is located at the statement it hit."""
        compiled = [self.stmt(s) for s in stmts]
        spans = {id(c): s.span for c, s in zip(compiled, stmts, strict=True)}
        frames = self.frames

        def run(env: Env) -> Any:
            for step in compiled:
                try:
                    signal = step(env)
                except KeyboardInterrupt as e:  # Ctrl-C, or the --timeout timer
                    kind, message, help = interruption(e)
                    raise DGError(kind, message, spans[id(step)], help=help, frames=tuple(frames)) from None
                if signal is not None:
                    return signal
            return None

        return run

    def stmt(self, node: ast.Stmt) -> Exec:
        return STATEMENTS[type(node)](self, node)

    def expr(self, node: ast.Expr) -> Eval:
        return EXPRESSIONS[type(node)](self, node)

    def in_branch(self, branch: Branch, body: list[ast.Stmt]) -> Exec:
        """Compile one arm of an `if`, so the ops inside know which arm they are in."""
        outer, self.branches = self.branches, (*self.branches, branch)
        try:
            return self.block(body)
        finally:
            self.branches = outer

    def counted(self, body: Callable[[Env], Any], span: Span | None) -> Callable[[Env], Any]:
        """`body`, counting a step each time it runs when the session has a step limit (--max-steps).

        Loop bodies, comprehension items and function bodies are counted; without a limit this
        returns `body` itself, so programs pay nothing. A function body (span None) blames its call."""
        limit = self.session.limits.max_steps
        if limit is None:
            return body
        session, frames = self.session, self.frames
        message, help = steps_message(limit)

        def run(env: Env) -> Any:
            session.steps += 1
            if session.steps > limit:
                if span is not None:
                    raise DGError("LimitError", message, span, help=help, frames=tuple(frames))
                raise DGError("LimitError", message, frames[-1].call_site, help=help, frames=tuple(frames[:-1]))
            return body(env)

        return run

    def in_scope(self, scope: Scope, compile: Callable[[], Any]) -> Any:
        outer, self.scope = self.scope, scope
        try:
            return compile()
        finally:
            self.scope = outer

    # ---- calling ----------------------------------------------------------------------------
    def invoke(self, f: Any, args: list[Any], kwargs: dict[str, Any], span: Span, env: Env) -> Any:
        """Call any callable DG value."""
        if type(f) is Function:
            return self.call_function(f, args, kwargs, span)
        if type(f) is Builtin:
            if f.wants_context:
                context = CallContext(env, span, tuple(self.frames), lambda g, a: self.invoke(g, a, {}, span, env))
                return call_python(f.name, f.fn, [context, *args], kwargs)
            return call_python(f.name, f.fn, args, kwargs)
        if type(f) is BoundMethod:
            return call_python(f.name, f.fn, [f.obj, *args], kwargs, method=True)
        if type(f) in CONTEXTS and not args and not kwargs:
            return f  # `with no_grad():` reads like PyTorch
        raise DGError("TypeError", f"{type_name(f)} is not callable")

    def call_function(self, f: Function, args: list[Any], kwargs: dict[str, Any], span: Span) -> Any:
        frames = self.frames
        env = Env(bind_arguments(f, args, kwargs), f.env)
        frame = CallFrame(f.name, span)
        frames.append(frame)
        caller, recording.call = recording.call, frame  # nodes made in this call remember it
        try:
            if len(frames) > self.session.max_depth:
                raise DGError(
                    "RecursionError",
                    f"more than {self.session.max_depth:,} nested calls",
                    span,
                    help="check that the recursion reaches its base case",
                    frames=tuple(frames),
                )
            signal = f.body(env)
        finally:
            frames.pop()
            recording.call = caller
        return signal.value if signal is not None else None


CONTEXTS = (GradMode, AnomalyMode)  # what `with` accepts

# ---- the cases: one compile function per AST node -------------------------------------------
STATEMENTS: dict[type, Callable[[Compiler, Any], Exec]] = {}
EXPRESSIONS: dict[type, Callable[[Compiler, Any], Eval]] = {}


def statement(kind: type) -> Callable[[Callable[[Compiler, Any], Exec]], Callable[[Compiler, Any], Exec]]:
    def register(fn: Callable[[Compiler, Any], Exec]) -> Callable[[Compiler, Any], Exec]:
        STATEMENTS[kind] = fn
        return fn

    return register


def expression(kind: type) -> Callable[[Callable[[Compiler, Any], Eval]], Callable[[Compiler, Any], Eval]]:
    def register(fn: Callable[[Compiler, Any], Eval]) -> Callable[[Compiler, Any], Eval]:
        EXPRESSIONS[kind] = fn
        return fn

    return register


# ---- expressions ---------------------------------------------------------------------------
@expression(ast.Constant)
def constant(c: Compiler, node: ast.Constant) -> Eval:
    value = node.value
    return lambda env: value


@expression(ast.Name)
def name(c: Compiler, node: ast.Name) -> Eval:
    """A variable: a function's own locals are read directly; everything else up the scope chain."""
    name, span = node.name, node.span
    if name == "graph":
        c.session.pictures = True  # graph(y) may draw gradients: keep what each backward visits
    if c.scope.kind == "function" and name in c.scope.local_names:

        def local(env: Env) -> Any:
            try:
                return env.vars[name]
            except KeyError:
                raise DGError(
                    "NameError",
                    f"local variable '{name}' is used before it is assigned",
                    span,
                    help=f"'{name}' is assigned somewhere in this function, which makes it local throughout",
                    frames=tuple(c.frames),
                ) from None

        return local
    start_outside = c.scope.kind == "function"

    def lookup(env: Env) -> Any:
        if not start_outside:  # most often a variable of this very scope: one dictionary read
            try:
                return env.vars[name]
            except KeyError:
                pass
        value = (env.parent if start_outside else env).lookup(name)  # type: ignore[union-attr]
        if value is MISSING:
            raise DGError(
                "NameError",
                f"name '{name}' is not defined",
                span,
                help=suggest(name, env.visible_names()),
                frames=tuple(c.frames),
            )
        return value

    return lookup


@expression(ast.TupleExpr)
def tuple_expr(c: Compiler, node: ast.TupleExpr) -> Eval:
    items = [c.expr(i) for i in node.items]
    return lambda env: tuple([item(env) for item in items])


@expression(ast.ListExpr)
def list_expr(c: Compiler, node: ast.ListExpr) -> Eval:
    items = [c.expr(i) for i in node.items]
    return lambda env: [item(env) for item in items]


@expression(ast.ListComprehension)
def list_comprehension(c: Compiler, node: ast.ListComprehension) -> Eval:
    """[element for x in iterable if condition], with x in a scope of its own."""
    iterable = c.expr(node.iterable)
    scope = Scope("comprehension", frozenset(node.targets))
    element = c.counted(c.in_scope(scope, lambda: c.expr(node.element)), node.span)
    condition = c.in_scope(scope, lambda: c.expr(node.condition)) if node.condition else None
    condition_span = node.condition.span if node.condition else node.span
    bind = unpacker(node.targets)
    span = node.iterable.span
    site = c.site(span)

    def run(env: Env) -> list[Any]:
        try:
            values = iterate(iterable(env), site)
        except Exception as e:
            raise c.fail(e, span) from None
        inner = Env({}, env)
        out = []
        for value in values:
            bind(inner.vars, value, span, c)
            if condition is None or truth(condition(inner), condition_span, c):
                out.append(element(inner))
        return out

    return run


@expression(ast.FString)
def fstring(c: Compiler, node: ast.FString) -> Eval:
    parts = [(p, None, "") if isinstance(p, str) else (None, c.expr(p.expr), p.spec) for p in node.parts]
    span = node.span

    def run(env: Env) -> str:
        out = []
        for literal, value, spec in parts:
            if value is None:
                out.append(literal)
                continue
            try:
                out.append(format_value(value(env), spec))
            except Exception as e:
                raise c.fail(e, span) from None
        if sum(map(len, out)) > MAX_SEQUENCE:  # f"{s}{s}" in a loop doubles a string each time
            raise c.fail(DGError("ValueError", f"that would make a string longer than {MAX_SEQUENCE:,} items"), span)
        return "".join(out)

    return run


FORMAT_NUMBER = re.compile(r"\d+")


def format_value(value: Any, spec: str) -> str:
    """One {value:spec} of an f-string."""
    if not spec:
        return text(value)
    if isinstance(value, Tensor):
        if value.size != 1:
            raise DGError(
                "TypeError",
                f"a format like ':{spec}' needs one number, but this tensor has shape {value.shape}",
                help="format one element, or leave the format out: {x}",
            )
        value = value.item()
    if not isinstance(value, int | float | str):
        raise DGError("TypeError", f"a format like ':{spec}' applies to numbers and strings, not {type_name(value)}")
    if any(len(n) > 4 for n in FORMAT_NUMBER.findall(spec)):  # `{x:1000000000}` would build a gigabyte of spaces
        raise DGError(
            "ValueError", f"the format ':{spec}' asks for too wide a field", help="widths and precisions go up to 9999"
        )
    try:
        return format(value, spec)
    except ValueError as e:
        raise DGError("ValueError", f"bad format ':{spec}' for {type_name(value)}: {e}") from None


@expression(ast.Binary)
def binary(c: Compiler, node: ast.Binary) -> Eval:
    left, right, op, span = c.expr(node.left), c.expr(node.right), BINARY[node.op], node.span
    hints = why_none(node.left), why_none(node.right)

    site = c.site(span)

    def run(env: Env) -> Any:
        a = left(env)
        b = right(env)
        recording.where = site
        try:
            return op(a, b)
        except Exception as e:
            error = c.fail(e, span)
            raise explained(explained(error, a, hints[0]), b, hints[1]) from None

    return run


@expression(ast.Unary)
def unary(c: Compiler, node: ast.Unary) -> Eval:
    operand, op, span = c.expr(node.operand), UNARY[node.op], node.span

    site = c.site(span)

    def run(env: Env) -> Any:
        a = operand(env)
        recording.where = site
        try:
            return op(a)
        except Exception as e:
            raise c.fail(e, span) from None

    return run


@expression(ast.Compare)
def compare(c: Compiler, node: ast.Compare) -> Eval:
    """a < b (a tensor comparison gives a bool tensor); chains a < b < c as a < b and b < c."""
    operands = [c.expr(o) for o in node.operands]
    ops = [COMPARE[o] for o in node.ops]
    span = node.span
    if len(ops) == 1:
        left, right, op = operands[0], operands[1], ops[0]

        def single(env: Env) -> Any:
            a = left(env)
            b = right(env)
            try:
                return op(a, b)
            except Exception as e:
                raise c.fail(e, span) from None

        return single

    def chain(env: Env) -> Any:
        a = operands[0](env)
        result: Any = True
        for op, operand in zip(ops, operands[1:], strict=True):
            b = operand(env)
            try:
                result = op(a, b)
                if not result:
                    return result
            except Exception as e:
                raise c.fail(e, span) from None
            a = b
        return result

    return chain


@expression(ast.And)
def and_(c: Compiler, node: ast.And) -> Eval:
    left, right, span = c.expr(node.left), c.expr(node.right), node.left.span

    def run(env: Env) -> Any:
        a = left(env)
        return right(env) if truth(a, span, c) else a

    return run


@expression(ast.Or)
def or_(c: Compiler, node: ast.Or) -> Eval:
    left, right, span = c.expr(node.left), c.expr(node.right), node.left.span

    def run(env: Env) -> Any:
        a = left(env)
        return a if truth(a, span, c) else right(env)

    return run


@expression(ast.Not)
def not_(c: Compiler, node: ast.Not) -> Eval:
    operand, span = c.expr(node.operand), node.operand.span
    return lambda env: not truth(operand(env), span, c)


@expression(ast.Conditional)
def conditional(c: Compiler, node: ast.Conditional) -> Eval:
    cond, then, otherwise, span = c.expr(node.condition), c.expr(node.then), c.expr(node.otherwise), node.condition.span
    return lambda env: then(env) if truth(cond(env), span, c) else otherwise(env)


def truth(value: Any, span: Span, c: Compiler) -> bool:
    """Is a condition true? A one-element tensor counts as its value, as in PyTorch."""
    if value is True or value is False:
        return value
    try:
        return bool(value)
    except Exception as e:
        raise c.fail(e, span) from None


@expression(ast.Attribute)
def attribute(c: Compiler, node: ast.Attribute) -> Eval:
    obj, attr, span, hint = c.expr(node.obj), node.name, node.span, why_none(node.obj)

    def run(env: Env) -> Any:
        value = obj(env)
        try:
            return get_attribute(value, attr)
        except Exception as e:
            raise explained(c.fail(e, span), value, hint) from None

    return run


def why_none(node: ast.Expr) -> str | None:
    """A hint for when `node` turns out to be None where a value was needed."""
    if isinstance(node, ast.Attribute) and node.name == "grad":
        return "this .grad is None: no gradient has reached it yet (only leaves with requires_grad=True keep one)"
    if isinstance(node, ast.Call):
        return "the call gave None: a function that ends without `return` gives None"
    return None


def explained(error: DGError, value: Any, hint: str | None) -> DGError:
    if value is None and hint is not None and error.help is None:
        error.help = hint
    return error


@expression(ast.Call)
def call(c: Compiler, node: ast.Call) -> Eval:
    args = [c.expr(a) for a in node.args]
    kwargs = [(k, c.expr(v)) for k, v in node.kwargs]
    span = node.span
    if isinstance(node.func, ast.Attribute):  # x.sum(axis=0): find the method, skip the bound object
        return method_call(c, node.func, args, kwargs, span)
    func = c.expr(node.func)
    invoke = c.invoke

    site = c.site(span)

    def run(env: Env) -> Any:
        f = func(env)
        positional = [a(env) for a in args]
        keywords = {k: v(env) for k, v in kwargs} if kwargs else {}
        recording.where = site
        try:
            return invoke(f, positional, keywords, span, env)
        except Exception as e:
            raise c.fail(e, span) from None

    return run


def method_call(c: Compiler, func: ast.Attribute, args: list[Eval], kwargs: list[tuple[str, Eval]], span: Span) -> Eval:
    obj, name, hint = c.expr(func.obj), func.name, why_none(func.obj)

    site = c.site(span)

    def run(env: Env) -> Any:
        target = obj(env)
        positional = [a(env) for a in args]
        keywords = {k: v(env) for k, v in kwargs} if kwargs else {}
        recording.where = site
        try:
            return call_python(name, find_method(target, name), [target, *positional], keywords, method=True)
        except Exception as e:
            raise explained(c.fail(e, span), target, hint) from None

    return run


@expression(ast.Index)
def index(c: Compiler, node: ast.Index) -> Eval:
    obj, key, span = c.expr(node.obj), index_key(c, node.items), node.span

    site = c.site(span)

    def run(env: Env) -> Any:
        value = obj(env)
        k = key(env)
        recording.where = site
        try:
            return get_item(value, k)
        except Exception as e:
            raise c.fail(e, span) from None

    return run


def index_key(c: Compiler, items: list[ast.Expr]) -> Eval:
    """What goes between the brackets: one value, a slice, or a tuple of them for several axes."""
    parts = [slice_expr(c, i) if isinstance(i, ast.Slice) else c.expr(i) for i in items]
    if len(parts) == 1:
        return parts[0]
    return lambda env: tuple([p(env) for p in parts])


def slice_expr(c: Compiler, node: ast.Slice) -> Eval:
    none: Eval = lambda env: None
    start, stop, step = (c.expr(e) if e is not None else none for e in (node.start, node.stop, node.step))
    return lambda env: slice(start(env), stop(env), step(env))


# ---- statements ----------------------------------------------------------------------------
@statement(ast.ExprStmt)
def expr_stmt(c: Compiler, node: ast.ExprStmt) -> Exec:
    value = c.expr(node.expr)
    if c.echo and c.scope.kind == "module":
        show = c.session.echo

        def echoed(env: Env) -> None:
            result = value(env)
            if result is not None:
                try:
                    show(result)
                except Exception as e:
                    raise c.fail(e, node.span) from None

        return echoed

    def run(env: Env) -> None:
        value(env)

    return run


@statement(ast.Assign)
def assign(c: Compiler, node: ast.Assign) -> Exec:
    value, store = c.expr(node.value), target_store(c, node.target)
    if isinstance(node.target, ast.Name) and not c.scope.in_no_grad:
        name = node.target.name  # `x = ...`, the commonest statement: store_name written in line

        def run_name(env: Env) -> None:
            v = value(env)
            if type(v) is Tensor and v.name is None:
                v.name = name
            env.vars[name] = v

        return run_name

    def run(env: Env) -> None:
        store(env, value(env))

    return run


def target_store(c: Compiler, target: ast.Expr) -> Callable[[Env, Any], None]:
    """How to store a value into an assignment target: a name, x[i], x.grad, or a tuple of them."""
    span = target.span
    if isinstance(target, ast.Name):
        name = target.name

        def store_name(env: Env, value: Any) -> None:
            if type(value) is Tensor and value.name is None:
                value.name = name  # so graph pictures can say which variable a node is
            env.vars[name] = value

        if not c.scope.in_no_grad:
            return store_name

        def store_name_no_grad(env: Env, value: Any) -> None:
            old = env.vars.get(name)
            if type(old) is Tensor and old.requires_grad and old.grad_fn is None and type(value) is Tensor:
                c.session.rebound_parameter = (name, span)  # the classic mistake; `grad` explains it
            store_name(env, value)

        return store_name_no_grad
    if isinstance(target, ast.TupleExpr):
        stores = [target_store(c, t) for t in target.items]

        def store_tuple(env: Env, value: Any) -> None:
            values = unpack(value, len(stores), span, c)
            for store, v in zip(stores, values, strict=True):
                store(env, v)

        return store_tuple
    if isinstance(target, ast.Index):
        obj, key = c.expr(target.obj), index_key(c, target.items)

        def store_item(env: Env, value: Any) -> None:
            container = obj(env)
            k = key(env)
            try:
                set_item(container, k, value)
            except Exception as e:
                raise c.fail(e, span) from None

        return store_item
    assert isinstance(target, ast.Attribute)
    obj, attr = c.expr(target.obj), target.name

    def store_attribute(env: Env, value: Any) -> None:
        owner = obj(env)
        try:
            set_attribute(owner, attr, value)
        except Exception as e:
            raise c.fail(e, span) from None

    return store_attribute


def unpack(value: Any, count: int, span: Span, c: Compiler) -> list[Any]:
    try:
        values = list(iterate(value))
    except Exception as e:
        raise c.fail(e, span) from None
    if len(values) != count:
        raise c.fail(DGError("ValueError", f"cannot unpack {len(values)} values into {count} names"), span)
    return values


def unpacker(targets: list[str]) -> Callable[[dict[str, Any], Any, Span, Compiler], None]:
    """Bind a loop's value to its variable(s): `for x in ...` or `for i, x in ...`."""
    if len(targets) == 1:
        (only,) = targets

        def bind_one(vars: dict[str, Any], value: Any, span: Span, c: Compiler) -> None:
            vars[only] = value

        return bind_one

    def bind_many(vars: dict[str, Any], value: Any, span: Span, c: Compiler) -> None:
        for name, v in zip(targets, unpack(value, len(targets), span, c), strict=True):
            vars[name] = v

    return bind_many


@statement(ast.AugAssign)
def aug_assign(c: Compiler, node: ast.AugAssign) -> Exec:
    """x += v: a tensor updates in place inside no_grad (w -= lr * w.grad); otherwise x = x + v."""
    op, value, span = AUGMENTED[node.op], c.expr(node.value), node.span
    current, store = c.expr(node.target), target_store(c, node.target)

    site = c.site(span)

    def run(env: Env) -> None:
        a = current(env)
        b = value(env)
        recording.where = site
        try:
            result = op(a, b)
        except Exception as e:
            raise c.fail(e, span) from None
        store(env, result)

    return run


@statement(ast.Pass)
def pass_(c: Compiler, node: ast.Pass) -> Exec:
    return lambda env: None


@statement(ast.Break)
def break_(c: Compiler, node: ast.Break) -> Exec:
    if not c.scope.in_loop:
        raise DGError("SyntaxError", "'break' outside a loop", node.span)
    return lambda env: BREAK


@statement(ast.Continue)
def continue_(c: Compiler, node: ast.Continue) -> Exec:
    if not c.scope.in_loop:
        raise DGError("SyntaxError", "'continue' outside a loop", node.span)
    return lambda env: CONTINUE


@statement(ast.Return)
def return_(c: Compiler, node: ast.Return) -> Exec:
    if c.scope.kind != "function":
        raise DGError("SyntaxError", "'return' outside a function", node.span)
    if node.value is None:
        nothing = ReturnValue(None)
        return lambda env: nothing
    value = c.expr(node.value)
    return lambda env: ReturnValue(value(env))


@statement(ast.Grad)
def grad(c: Compiler, node: ast.Grad) -> Exec:
    """grad y [with seed]: backpropagate over the graph recorded for y."""
    output, span = c.expr(node.output), node.output.span
    seed = c.expr(node.seed) if node.seed is not None else None

    site = c.site(node.span)

    def run(env: Env) -> None:
        y = output(env)
        s = seed(env) if seed is not None else None
        if c.session.tracer is not None:
            c.session.tracer.begin_grad(site)
        try:
            ag.backward(y, s)
        except Exception as e:
            error = c.fail(e, span)
            rebound = c.session.rebound_parameter
            if isinstance(y, Tensor) and not y.requires_grad and rebound is not None:
                name, where = rebound
                error.help = (
                    f"'{name}' was rebound inside `no_grad` on line {where.line}, so it is no longer a leaf "
                    f"that requires grad; update it in place instead: `{name} -= ...`"
                )
            raise error from None

    return run


@statement(ast.Assert)
def assert_(c: Compiler, node: ast.Assert) -> Exec:
    test, span = c.expr(node.test), node.test.span
    message = c.expr(node.message) if node.message is not None else None

    def run(env: Env) -> None:
        if not truth(test(env), span, c):
            try:
                text_ = text(message(env)) if message is not None else "assertion failed"
            except Exception as e:  # the message cannot be shown (a list nested too deeply)
                raise c.fail(e, span) from None
            raise c.fail(DGError("AssertionError", text_), span)

    return run


@statement(ast.If)
def if_(c: Compiler, node: ast.If) -> Exec:
    if_line = node.span.line
    branches = [
        (c.expr(cond), cond.span, c.in_branch(Branch(if_line, "then" if i == 0 else "elif", cond.span.line), body))
        for i, (cond, body) in enumerate(node.branches)
    ]
    orelse = None
    if node.orelse is not None:
        orelse = c.in_branch(Branch(if_line, "else", node.else_line or if_line), node.orelse)

    def run(env: Env) -> Any:
        for cond, span, body in branches:
            if truth(cond(env), span, c):
                return body(env)
        return orelse(env) if orelse is not None else None

    return run


@statement(ast.While)
def while_(c: Compiler, node: ast.While) -> Exec:
    cond, span = c.expr(node.condition), node.condition.span
    body = c.counted(c.in_scope(loop_scope(c), lambda: c.block(node.body)), node.span)

    def run(env: Env) -> Any:
        while truth(cond(env), span, c):
            signal = body(env)
            if signal is not None:
                if signal is BREAK:
                    break
                if signal is not CONTINUE:
                    return signal
        return None

    return run


@statement(ast.For)
def for_(c: Compiler, node: ast.For) -> Exec:
    iterable, span = c.expr(node.iterable), node.iterable.span
    site = c.site(span)
    bind = unpacker(node.targets)
    body = c.counted(c.in_scope(loop_scope(c), lambda: c.block(node.body)), node.span)

    def run(env: Env) -> Any:
        try:
            values = iterate(iterable(env), site)
        except Exception as e:
            raise c.fail(e, span) from None
        vars = env.vars
        for value in values:
            bind(vars, value, span, c)
            signal = body(env)
            if signal is not None:
                if signal is BREAK:
                    break
                if signal is not CONTINUE:
                    return signal
        return None

    return run


def loop_scope(c: Compiler) -> Scope:
    return replace(c.scope, in_loop=True)


@statement(ast.FunctionDef)
def function_def(c: Compiler, node: ast.FunctionDef) -> Exec:
    params = tuple(p.name for p in node.params)
    defaults = [(c.expr(p.default) if p.default is not None else None) for p in node.params]
    scope = Scope("function", frozenset(params) | assigned_names(node.body))
    outer, c.branches = c.branches, ()  # an `if` around a `def` is not running when the function is
    body = c.counted(c.in_scope(scope, lambda: c.block(node.body)), None)
    c.branches = outer
    name, span = node.name, node.span

    def run(env: Env) -> None:
        values = tuple(MISSING if d is None else d(env) for d in defaults)
        env.vars[name] = Function(name, params, values, body, env, span)

    return run


@statement(ast.With)
def with_(c: Compiler, node: ast.With) -> Exec:
    """with no_grad: ... — recording off for the block, restored however the block ends
    (and `with detect_anomaly:`, which checks each backward step inside it for nan and inf)."""
    context, span = c.expr(node.context), node.context.span
    inner = replace(c.scope, in_no_grad=c.scope.in_no_grad or names_no_grad(node.context))
    body = c.in_scope(inner, lambda: c.block(node.body))

    def run(env: Env) -> Any:
        mode = context(env)
        if type(mode) is AnomalyMode:
            hook = mode.enter()
            try:
                return body(env)
            finally:
                mode.exit(hook)
        if type(mode) is not GradMode:
            raise c.fail(
                DGError("TypeError", f"'with' needs no_grad, enable_grad or detect_anomaly, not {type_name(mode)}"),
                span,
            )
        previous = ag.set_grad_enabled(mode.enabled)
        try:
            return body(env)
        finally:
            ag.set_grad_enabled(previous)

    return run


def names_no_grad(node: ast.Expr) -> bool:
    """`no_grad` or `no_grad()`, as written (to spot the classic `w = w - lr * w.grad` inside it)."""
    if isinstance(node, ast.Call) and not node.args and not node.kwargs:
        node = node.func
    return isinstance(node, ast.Name) and node.name == "no_grad"


def assigned_names(stmts: list[ast.Stmt]) -> frozenset[str]:
    """The names a function body assigns (its locals), not looking inside nested functions."""
    names: set[str] = set()

    def targets(t: ast.Expr) -> None:
        if isinstance(t, ast.Name):
            names.add(t.name)
        elif isinstance(t, ast.TupleExpr):
            for item in t.items:
                targets(item)

    def visit(body: list[ast.Stmt]) -> None:
        for s in body:
            if isinstance(s, ast.Assign | ast.AugAssign):
                targets(s.target)
            elif isinstance(s, ast.For):
                names.update(s.targets)
                visit(s.body)
            elif isinstance(s, ast.FunctionDef):
                names.add(s.name)
            elif isinstance(s, ast.If):
                for _, branch in s.branches:
                    visit(branch)
                visit(s.orelse or [])
            elif isinstance(s, ast.While | ast.With):
                visit(s.body)

    visit(stmts)
    return frozenset(names)


# ---- arguments -------------------------------------------------------------------------------
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
        problem = _binding_problem(fn, args, kwargs)
        if problem is None:
            raise DGError("TypeError", _plain_python_message(str(e))) from None
        shown = f".{name}()" if method else f"{name}()"
        raise DGError("TypeError", f"{shown} {problem[0]}", help=problem[1]) from None


def _binding_problem(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> tuple[str, str | None] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        sig.bind(*args, **kwargs)
        return None
    except TypeError as e:
        message = str(e)
    params = list(sig.parameters)
    if "unexpected keyword argument" in message:
        key = message.split("'")[1]
        return f"has no parameter '{key}'", suggest(key, params)
    if "missing a required argument" in message:
        return f"is missing its argument '{message.split(chr(39))[1]}'", None
    if "too many positional arguments" in message:
        return "got too many arguments", None
    if "multiple values" in message:
        return f"got two values for '{message.split(chr(39))[1]}'", None
    return message, None


def _plain_python_message(message: str) -> str:
    """Python's TypeError text, minus the words that only make sense in Python."""
    return message.replace(" object", "").replace("'NoneType'", "None")
