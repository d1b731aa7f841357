"""The reference evaluator's expressions: `evaluate(node, env)`, one case per kind of expression.

Each case walks its node's parts and computes its value there and then, as jlox's
`visitBinaryExpr` does: evaluate the operands, then the operation. What every operation gets
besides its meaning is written where it happens, in `compute`: the site the engine stamps on the
nodes an op records (`recording.where`), and the error located at the node (locating.py).
reference.py adds the statements, and says why this evaluator exists beside the accelerator.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Branch, Loop, LoopRun, Site, Span
from dglang.interpreter.library.attributes import find_method, get_attribute, module_name
from dglang.interpreter.library.formatting import fstring
from dglang.interpreter.library.operators import BINARY, COMPARE, UNARY, Operator, get_item
from dglang.interpreter.library.runtime import (
    MISSING,
    Env,
    Module,
    iterate,
    unpack,
    watching,
)

from . import ast_nodes as ast
from .calls import Calls, call_python
from .compiling import LOOPS, put
from .context import RunContext
from .interrupts import steps_message
from .locating import located, made_by
from .resolver import Lookup, Resolution


def by_the_tensor(method: str, reflected: str, accelerated: Operator) -> Operator:
    """`a OP b` with a tensor on the left: the tensor's own operator (`x * 2` is `Tensor.__mul__`,
    the method a student reads); with one only on the right, its reflected one (`2 * x` is
    `Tensor.__rmul__`); anything else as the accelerator does it. The same op either way (each
    operator method of Tensor is `binary` with its op, as the accelerator's engine calls are)."""

    def operator(a: Any, b: Any) -> Any:
        if type(a) is Tensor:
            return getattr(a, method)(b)
        if type(b) is Tensor:
            return getattr(b, reflected)(a)
        return accelerated(a, b)

    return operator


METHODS = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow", "@": "matmul"}
BINARY_BY_TENSOR = {op: by_the_tensor(f"__{m}__", f"__r{m}__", BINARY[op]) for op, m in METHODS.items()}


class ReferenceExpressions(Calls):
    def __init__(self, context: RunContext, resolution: Resolution, echo: bool, stepping: bool) -> None:
        self.context, self.frames, self.resolution = context, context.frames, resolution
        self.echo = echo  # a REPL cell: show the value of each expression statement outside functions
        self.stepping = stepping  # tell the debugger of each statement (RunContext.on_statement)
        self.branches: tuple[Branch, ...] = ()  # the `if` arms around the statement running
        self.sites: dict[ast.Node, Site] = {}  # one Site per node, as the accelerator makes one
        self.warned: set[ast.Attribute] = set()  # the `.grad` reads that warned already

    def evaluate(self, node: ast.Expr, env: Env) -> Any:
        """The value of `node` in `env`: the case for its kind (EXPRESSIONS, at the end)."""
        return EXPRESSIONS[type(node)](self, node, env)

    def execute(self, node: ast.Stmt, env: Env) -> Any:  # reference.py
        raise NotImplementedError

    def function_body(self, node: ast.FunctionDef, env: Env) -> Any:  # reference.py
        raise NotImplementedError

    # ---- what every operation gets ------------------------------------------------------------
    def site(self, node: ast.Node) -> Site:
        """Where an op written at `node` is, and in which `if` arms (those of the statement running)."""
        site = self.sites.get(node)
        if site is None:
            site = self.sites[node] = Site(node.span, self.branches)  # type: ignore[attr-defined]
        return site

    def compute(self, node: ast.Node, operation: Callable[..., Any], *values: Any, at: Span | None = None) -> Any:
        """`operation` on the values of `node`'s parts: the engine told where it is written, and what
        escapes it located at `node` (or at the part `at`), the values' kinds kept as clues."""
        recording.where = self.site(node)
        try:
            return operation(*values)
        except Exception as e:
            raise located(e, node, values, at) from None

    def operation(self, node: ast.Node, operation: Callable[..., Any], *values: Any) -> Any:
        """`operation` as `node`'s, for a value met at run time (what a store stores, a loop's item)."""
        try:
            return operation(*values)
        except Exception as e:
            raise located(e, node, values) from None

    def test(self, node: ast.Expr, env: Env) -> bool:
        """Whether `node`'s value is true (a condition); a tracer guarding on it is told where it is."""
        value = self.evaluate(node, env)
        if value is True or value is False:
            return value
        return self.compute(node, bool, value)  # a one-element tensor counts as its value, as in PyTorch

    def truth(self, node: ast.Expr, value: Any) -> bool:
        """Whether a value `node` gave is true (`a and b` needs a's value as well as its truth)."""
        return value if value is True or value is False else self.operation(node, bool, value)

    def count_step(self, span: Span) -> None:
        """One more step under --max-steps, blamed on the loop at `span`."""
        context = self.context
        if context.max_steps is not None:
            context.steps += 1
            if context.steps > context.max_steps:
                message, help = steps_message(context.max_steps)
                raise DGError("LimitError", message, span, help=help, frames=tuple(self.frames))

    def loop_run(self, node: ast.Node) -> LoopRun:
        """A run of the loop `node`, counting its iterations on RunContext.loops (for pictures)."""
        kind, head = LOOPS[type(node)]
        loop = Loop(kind, node.span.line, getattr(node, head).span)  # type: ignore[attr-defined]
        return LoopRun(loop, self.frames[-1] if self.frames else None, self.context.loops)

    def items(self, node: ast.Expr, env: Env) -> Any:
        """What a loop over `node` takes its items from; the rows of a tensor are recorded at `node`."""
        return self.compute(node, iterate, self.evaluate(node, env), self.site(node))

    def bind_item(self, targets: list[str], iterable: ast.Expr, scope: dict[str, Any], item: Any) -> None:
        """A loop's names bound to its item: `x`, or `i, x` unpacked (an error located at the iterable)."""
        if len(targets) == 1:
            scope[targets[0]] = item
        else:
            for name, value in zip(targets, self.operation(iterable, unpack, item, len(targets)), strict=True):
                scope[name] = value

    # ---- the cases ------------------------------------------------------------------------------
    def constant(self, node: ast.Constant, env: Env) -> Any:  # 3, "text", True, None
        return node.value

    def name(self, node: ast.Name, env: Env) -> Any:
        """A function's own locals are read from its scope; any other name up the chain of scopes."""
        name, lookup = node.name, self.resolution.lookups[node]
        if lookup is Lookup.LOCAL:
            value = env.vars.get(name, MISSING)
            if value is MISSING:
                raise DGError("NameError", f"local variable '{name}' is used before it is assigned", node=node)
            return value
        start: Env = env.parent if lookup is Lookup.ENCLOSING else env  # type: ignore[assignment]
        value = start.lookup(name)
        if value is MISSING:  # with the names it could have meant, for "did you mean"
            raise DGError("NameError", f"name '{name}' is not defined", node=node, clues=(*env.names_in_order(),))
        if watching.listener is not None:  # a static trace guards what its function reads from outside
            watching.listener.read(start, name, value)
        return value

    def tuple_expr(self, node: ast.TupleExpr, env: Env) -> tuple[Any, ...]:  # (a, b)
        return tuple([self.evaluate(item, env) for item in node.items])

    def list_expr(self, node: ast.ListExpr, env: Env) -> list[Any]:  # [a, b]
        return [self.evaluate(item, env) for item in node.items]

    def list_comprehension(self, node: ast.ListComprehension, env: Env) -> list[Any]:
        return self.comprehension(node, env, [])  # [element for targets in iterable if condition]

    def dict_expr(self, node: ast.DictExpr, env: Env) -> dict[Any, Any]:
        """Each key, then its value, in order; a key that cannot be one is an error at the key."""
        out: dict[Any, Any] = {}
        for key, value in node.items:
            self.operation(key, put, out, self.evaluate(key, env), self.evaluate(value, env))
        return out

    def dict_comprehension(self, node: ast.DictComprehension, env: Env) -> dict[Any, Any]:
        return self.comprehension(node, env, {})  # {key: value for targets in iterable if condition}

    def comprehension(self, node: ast.ListComprehension | ast.DictComprehension, env: Env, out: Any) -> Any:
        """Each item bound to the names in a scope of the comprehension's own and, when it passes
        the condition, its element added to `out` (or its key and value stored, an error of the key
        located at the key); each item a step, and counted on the comprehension's run."""
        scope = Env({}, env)
        if watching.listener is not None:
            watching.listener.entered(scope)
        with self.loop_run(node) as run:
            for item in self.items(node.iterable, env):
                self.count_step(node.span)
                run.count += 1
                self.bind_item(node.targets, node.iterable, scope.vars, item)
                if node.condition is None or self.test(node.condition, scope):
                    if isinstance(node, ast.ListComprehension):
                        out.append(self.evaluate(node.element, scope))
                    else:
                        key, value = self.evaluate(node.key, scope), self.evaluate(node.value, scope)
                        self.operation(node.key, put, out, key, value)
        return out

    def fstring(self, node: ast.FString, env: Env) -> str:  # f"loss {loss:.4f}"
        template = [(p, None) if isinstance(p, str) else ("", p.spec) for p in node.parts]
        values = [self.evaluate(p.expr, env) for p in node.parts if isinstance(p, ast.FormattedValue)]
        return self.compute(node, fstring(template), *values)

    def binary(self, node: ast.Binary, env: Env) -> Any:  # a + b, a @ b, ...
        left, right = self.evaluate(node.left, env), self.evaluate(node.right, env)
        return self.compute(node, BINARY_BY_TENSOR[node.op], left, right)

    def unary(self, node: ast.Unary, env: Env) -> Any:  # -a
        return self.compute(node, UNARY[node.op], self.evaluate(node.operand, env))

    def compare(self, node: ast.Compare, env: Env) -> Any:
        """a < b; a chain a < b < c is a < b and b < c, each operand evaluated once."""
        a = self.evaluate(node.operands[0], env)
        if len(node.ops) == 1:
            return self.compute(node, COMPARE[node.ops[0]], a, self.evaluate(node.operands[1], env))
        result: Any = True
        for op, operand in zip(node.ops, node.operands[1:], strict=True):
            b = self.evaluate(operand, env)
            result = self.operation(node, COMPARE[op], a, b)
            if not self.truth(node, result):
                return result
            a = b
        return result

    def and_(self, node: ast.And, env: Env) -> Any:  # a and b
        a = self.evaluate(node.left, env)
        return self.evaluate(node.right, env) if self.truth(node.left, a) else a

    def or_(self, node: ast.Or, env: Env) -> Any:  # a or b
        a = self.evaluate(node.left, env)
        return a if self.truth(node.left, a) else self.evaluate(node.right, env)

    def not_(self, node: ast.Not, env: Env) -> bool:  # not a
        return not self.test(node.operand, env)

    def conditional(self, node: ast.Conditional, env: Env) -> Any:  # a if cond else b
        return self.evaluate(node.then if self.test(node.condition, env) else node.otherwise, env)

    def attribute(self, node: ast.Attribute, env: Env) -> Any:
        """x.shape; x.grad of a tensor that is not a leaf warns, once for this place in the program."""
        value = self.evaluate(node.obj, env)
        if node.name != "grad":
            return self.compute(node, get_attribute, value, node.name)
        return self.compute(node, partial(self.grad_of, node), value)

    def grad_of(self, node: ast.Attribute, value: Any) -> Any:
        if type(value) is not Tensor:  # .grad of something else: whatever get_attribute says
            return get_attribute(value, "grad")
        if value.grad is None and value.grad_fn is not None and node not in self.warned:
            self.warned.add(node)
            message = ".grad of a tensor that is not a leaf is being read: grad does not fill it, so it is None"
            self.context.warn(DGError("Warning", message, node=node, clues=made_by(value, node.span)))
        if watching.listener is not None:
            watching.listener.read_grad(value)
        return value.grad

    def index(self, node: ast.Index, env: Env) -> Any:
        """x[i], x[1:3], x[i, j]: one key, or a tuple of them for several axes."""
        value, keys = self.evaluate(node.obj, env), [self.evaluate(item, env) for item in node.items]
        if len(keys) == 1:
            return self.compute(node, get_item, value, keys[0])
        return self.compute(node, lambda v, *several: get_item(v, several), value, *keys)

    def slice_(self, node: ast.Slice, env: Env) -> slice:  # 1:3 inside brackets
        start, stop, step = (None if e is None else self.evaluate(e, env) for e in (node.start, node.stop, node.step))
        return slice(start, stop, step)

    # ---- calls ----------------------------------------------------------------------------------
    def call(self, node: ast.Call, env: Env) -> Any:
        """f(x, y=2): the callee, the arguments left to right, then the call, located at the call.
        `x.sum(axis=0)` finds the method by name and makes no bound method."""
        method = node.func.name if isinstance(node.func, ast.Attribute) else None
        f = self.evaluate(node.func.obj if isinstance(node.func, ast.Attribute) else node.func, env)
        args = [self.evaluate(a, env) for a in node.args]
        kwargs = {k: self.evaluate(v, env) for k, v in node.kwargs}
        recording.where = self.site(node)
        try:
            if method is None:
                return self.invoke(f, args, kwargs, node.span, env)
            if type(f) is Module:  # nn.linear(x): the module's function
                return self.invoke(module_name(f, method), args, kwargs, node.span, env)
            return call_python(method, find_method(f, method), [f, *args], kwargs, method=True)
        except Exception as e:
            raise located(e, node, (f,)) from None


EXPRESSIONS: dict[type, Callable[[Any, Any, Env], Any]] = {
    ast.Constant: ReferenceExpressions.constant,
    ast.Name: ReferenceExpressions.name,
    ast.TupleExpr: ReferenceExpressions.tuple_expr,
    ast.ListExpr: ReferenceExpressions.list_expr,
    ast.ListComprehension: ReferenceExpressions.list_comprehension,
    ast.DictExpr: ReferenceExpressions.dict_expr,
    ast.DictComprehension: ReferenceExpressions.dict_comprehension,
    ast.FString: ReferenceExpressions.fstring,
    ast.Binary: ReferenceExpressions.binary,
    ast.Unary: ReferenceExpressions.unary,
    ast.Compare: ReferenceExpressions.compare,
    ast.And: ReferenceExpressions.and_,
    ast.Or: ReferenceExpressions.or_,
    ast.Not: ReferenceExpressions.not_,
    ast.Conditional: ReferenceExpressions.conditional,
    ast.Attribute: ReferenceExpressions.attribute,
    ast.Call: ReferenceExpressions.call,
    ast.Index: ReferenceExpressions.index,
    ast.Slice: ReferenceExpressions.slice_,
}
