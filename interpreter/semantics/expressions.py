"""The evaluator's expression cases: one method per kind of expression, each returning `run(env)`.

Each case evaluates its parts, then applies the operation with the engine's provenance set to its
own site (so a recorded node knows the line that made it), and locates any error at its own span.
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording, type_name
from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.library.attributes import find_method, get_attribute, module_name
from dglang.interpreter.library.formatting import format_value
from dglang.interpreter.library.operators import BINARY, COMPARE, MAX_SEQUENCE, UNARY, get_item
from dglang.interpreter.library.runtime import (
    MISSING,
    BoundMethod,
    Builtin,
    CallContext,
    Env,
    Function,
    Module,
    WithContext,
    iterate,
)

from . import ast_nodes as ast
from .calls import MAX_INSIDE_BUILTINS, bind_arguments, call_python
from .compiling import CompilerBase, Eval, truth, unpacker
from .hints import explained, habit, library_prefix, non_leaf_grad, unknown_name, why_none, with_prefix_help
from .resolver import Lookup


class Expressions(CompilerBase):
    def constant(self, node: ast.Constant) -> Eval:
        value = node.value
        return lambda env: value

    def name(self, node: ast.Name) -> Eval:
        """A variable: a function's own locals are read directly; everything else up the scope chain."""
        name, span, frames = node.name, node.span, self.frames
        lookup = self.resolution.lookups[node]
        if lookup is Lookup.LOCAL:

            def local(env: Env) -> Any:
                try:
                    return env.vars[name]
                except KeyError:
                    raise DGError(
                        "NameError",
                        f"local variable '{name}' is used before it is assigned",
                        span,
                        help=f"'{name}' is assigned somewhere in this function, which makes it local throughout",
                        frames=tuple(frames),
                    ) from None

            return local
        enclosing = lookup is Lookup.ENCLOSING

        def scopes(env: Env) -> Any:
            # Most often the first scope looked in has it (this very scope, or a function's
            # globals): one dictionary read here, and only then the walk up the chain.
            start: Env = env.parent if enclosing else env  # type: ignore[assignment]
            value = start.vars.get(name, MISSING)
            if value is MISSING and start.parent is not None:
                value = start.parent.lookup(name)
            if value is MISSING:
                help = unknown_name(name, env.visible_names())
                raise DGError("NameError", f"name '{name}' is not defined", span, help=help, frames=tuple(frames))
            return value

        return scopes

    def tuple_expr(self, node: ast.TupleExpr) -> Eval:
        items = [self.expr(i) for i in node.items]
        return lambda env: tuple([item(env) for item in items])

    def list_expr(self, node: ast.ListExpr) -> Eval:
        items = [self.expr(i) for i in node.items]
        return lambda env: [item(env) for item in items]

    def list_comprehension(self, node: ast.ListComprehension) -> Eval:
        """[element for x in iterable if condition], with x in a scope of its own."""
        iterable, span = self.expr(node.iterable), node.iterable.span
        element = self.counted(self.expr(node.element), node.span)
        condition = self.expr(node.condition) if node.condition else None
        condition_span = node.condition.span if node.condition else node.span
        bind, site = unpacker(node.targets), self.site(span)
        loop = self.loop("comprehension", node, span)

        def run(env: Env) -> list[Any]:
            try:
                values = iterate(iterable(env), site)
            except Exception as e:
                raise self.fail(e, span) from None
            inner = Env({}, env)
            out = []
            with loop() as this:
                for value in values:
                    this.count += 1
                    bind(inner.vars, value, span, self)
                    if condition is None or truth(condition(inner), condition_span, self):
                        out.append(element(inner))
            return out

        return run

    def fstring(self, node: ast.FString) -> Eval:
        parts = [(p, None, "") if isinstance(p, str) else (None, self.expr(p.expr), p.spec) for p in node.parts]
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
                    raise self.fail(e, span) from None
            if sum(map(len, out)) > MAX_SEQUENCE:  # f"{s}{s}" in a loop doubles a string each time
                too_long = DGError("ValueError", f"that would make a string longer than {MAX_SEQUENCE:,} items")
                raise self.fail(too_long, span)
            return "".join(out)

        return run

    # ---- operators ----------------------------------------------------------------------------
    def binary(self, node: ast.Binary) -> Eval:
        left, right, op, span = self.expr(node.left), self.expr(node.right), BINARY[node.op], node.span
        hints, site = (why_none(node.left), why_none(node.right)), self.site(span)

        def failed(e: Exception, a: Any, b: Any) -> DGError:
            error = self.fail(e, span)
            return explained(explained(error, a, hints[0]), b, hints[1])

        if isinstance(node.right, ast.Constant):  # `i * 0.5`, `x - 1`: the number read here, not called for
            b = node.right.value

            def constant_right(env: Env) -> Any:
                a = left(env)
                recording.where = site
                try:
                    return op(a, b)
                except Exception as e:
                    raise failed(e, a, b) from None

            return constant_right

        def run(env: Env) -> Any:
            a = left(env)
            b = right(env)
            recording.where = site
            try:
                return op(a, b)
            except Exception as e:
                raise failed(e, a, b) from None

        return run

    def unary(self, node: ast.Unary) -> Eval:
        operand, op, span, site = self.expr(node.operand), UNARY[node.op], node.span, self.site(node.span)

        def run(env: Env) -> Any:
            a = operand(env)
            recording.where = site
            try:
                return op(a)
            except Exception as e:
                raise self.fail(e, span) from None

        return run

    def compare(self, node: ast.Compare) -> Eval:
        """a < b (a tensor comparison gives a bool tensor); chains a < b < c as a < b and b < c."""
        operands = [self.expr(o) for o in node.operands]
        ops = [COMPARE[o] for o in node.ops]
        span = node.span
        if len(ops) == 1:  # the usual case, without the loop
            (left, right), (op,) = operands, ops

            def single(env: Env) -> Any:
                a = left(env)
                b = right(env)
                try:
                    return op(a, b)
                except Exception as e:
                    raise self.fail(e, span) from None

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
                    raise self.fail(e, span) from None
                a = b
            return result

        return chain

    def and_(self, node: ast.And) -> Eval:
        left, right, span = self.expr(node.left), self.expr(node.right), node.left.span

        def run(env: Env) -> Any:
            a = left(env)
            return right(env) if truth(a, span, self) else a

        return run

    def or_(self, node: ast.Or) -> Eval:
        left, right, span = self.expr(node.left), self.expr(node.right), node.left.span

        def run(env: Env) -> Any:
            a = left(env)
            return a if truth(a, span, self) else right(env)

        return run

    def not_(self, node: ast.Not) -> Eval:
        operand, span = self.expr(node.operand), node.operand.span
        return lambda env: not truth(operand(env), span, self)

    def conditional(self, node: ast.Conditional) -> Eval:
        cond, span = self.expr(node.condition), node.condition.span
        then, otherwise = self.expr(node.then), self.expr(node.otherwise)
        return lambda env: then(env) if truth(cond(env), span, self) else otherwise(env)

    # ---- attributes, calls, indexing ----------------------------------------------------------
    def attribute(self, node: ast.Attribute) -> Eval:
        obj, attr, span, hint = self.owner(node), node.name, node.span, why_none(node.obj)
        if attr == "grad":
            return self.grad_attribute(obj, node)

        def run(env: Env) -> Any:
            value = obj(env)
            try:
                return get_attribute(value, attr)
            except Exception as e:
                raise habit(explained(self.fail(e, span), value, hint), node) from None

        return run

    def grad_attribute(self, obj: Eval, node: ast.Attribute) -> Eval:
        """`t.grad`; reading it from a tensor that is not a leaf warns, once for this place in the
        program, that it is None because `grad` fills .grad only for leaves (as PyTorch warns)."""
        span, warn, frames, warned = node.span, self.context.warn, self.frames, False

        def run(env: Env) -> Any:
            nonlocal warned
            value = obj(env)
            if type(value) is not Tensor:
                try:
                    return get_attribute(value, "grad")
                except Exception as e:
                    raise explained(self.fail(e, span), value, why_none(node.obj)) from None
            gradient = value.grad
            if gradient is None and value.grad_fn is not None and not warned:
                warned = True
                warn(non_leaf_grad(value, node, tuple(frames)))
            return gradient

        return run

    def call(self, node: ast.Call) -> Eval:
        args = [self.expr(a) for a in node.args]
        kwargs = [(k, self.expr(v)) for k, v in node.kwargs]
        span, site = node.span, self.site(node.span)
        if isinstance(node.func, ast.Attribute):  # x.sum(axis=0): find the method, skip the bound object
            return self.method_call(node.func, args, kwargs, span)
        func, invoke = self.expr(node.func), self.invoke

        def run(env: Env) -> Any:
            f = func(env)
            positional = [a(env) for a in args]
            keywords = {k: v(env) for k, v in kwargs} if kwargs else {}
            recording.where = site
            try:
                return invoke(f, positional, keywords, span, env)
            except Exception as e:
                raise self.fail(e, span) from None

        return run

    def owner(self, node: ast.Attribute) -> Eval:
        """What comes before the dot; `torch.` or `optimizer.` that the program never defined get
        the help line DG's own way of writing it deserves."""
        obj, help = self.expr(node.obj), library_prefix(node)
        return obj if help is None else with_prefix_help(obj, help)

    def method_call(self, func: ast.Attribute, args: list[Eval], kwargs: list[tuple[str, Eval]], span: Span) -> Eval:
        obj, name, hint, site = self.owner(func), func.name, why_none(func.obj), self.site(span)

        def run(env: Env) -> Any:
            target = obj(env)
            positional = [a(env) for a in args]
            keywords = {k: v(env) for k, v in kwargs} if kwargs else {}
            recording.where = site
            try:
                if type(target) is Module:  # nn.linear(x): a function of a module, not a method
                    return self.invoke(module_name(target, name), positional, keywords, span, env)
                return call_python(name, find_method(target, name), [target, *positional], keywords, method=True)
            except Exception as e:
                raise habit(explained(self.fail(e, span), target, hint), func) from None

        return run

    def invoke(self, f: Any, args: list[Any], kwargs: dict[str, Any], span: Span, env: Env) -> Any:
        """Call any callable DG value."""
        if type(f) is Function:
            return self.call_function(f, args, kwargs, span)
        if type(f) is Builtin:
            if f.wants_context:
                return self.call_with_context(f, args, kwargs, span, env)
            return call_python(f.name, f.fn, args, kwargs)
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
                span,
                help=f"the program reached {f.name}() again from inside a call that {f.name}() made; "
                "check where the recursion stops",
                frames=tuple(frames),
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
        frame = CallFrame(f.name, span, frames[-1] if frames else None)
        frames.append(frame)
        caller, recording.call = recording.call, frame  # nodes made in this call remember it
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
            recording.call = caller
        return signal.value if signal is not None else None

    def index(self, node: ast.Index) -> Eval:
        obj, key, span, site = self.expr(node.obj), self.index_key(node.items), node.span, self.site(node.span)

        def run(env: Env) -> Any:
            value = obj(env)
            k = key(env)
            recording.where = site
            try:
                return get_item(value, k)
            except Exception as e:
                raise self.fail(e, span) from None

        return run

    def index_key(self, items: list[ast.Expr]) -> Eval:
        """What goes between the brackets: one value, a slice, or a tuple of them for several axes."""
        parts = [self.slice(i) if isinstance(i, ast.Slice) else self.expr(i) for i in items]
        if len(parts) == 1:
            return parts[0]
        return lambda env: tuple([p(env) for p in parts])

    def slice(self, node: ast.Slice) -> Eval:
        none: Eval = lambda env: None
        start, stop, step = (self.expr(e) if e is not None else none for e in (node.start, node.stop, node.step))
        return lambda env: slice(start(env), stop(env), step(env))
