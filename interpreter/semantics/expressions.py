"""The evaluator's expression cases: one method per kind of expression, each returning a closure
`env -> value`.

A case says what its node means: which parts to evaluate, and what to do with their values. It
says it in the words of compiling.py (`apply`, `test`, ...), which put around every node what a
run needs besides its meaning: errors located at the node, the site the engine stamps on the
nodes an op records, the fast shapes of common nodes. Hints are written only when an error is
reported (hints.py).
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.attributes import get_attribute
from dglang.interpreter.library.formatting import fstring
from dglang.interpreter.library.operators import BINARY, COMPARE, UNARY, get_item
from dglang.interpreter.library.runtime import (
    MISSING,
    Env,
    watching,
)

from . import ast_nodes as ast
from .blocks import Blocks
from .calls import Calls, method
from .compiling import Eval
from .locating import made_by
from .resolver import Lookup


class Expressions(Blocks, Calls):
    def constant(self, node: ast.Constant) -> Eval:
        value = node.value
        return lambda env: value

    def name(self, node: ast.Name) -> Eval:
        """A variable: a function's own locals are read from its scope; any other name up the chain."""
        name = node.name
        lookup = self.resolution.lookups[node]
        if lookup is Lookup.LOCAL:

            def local(env: Env) -> Any:
                try:
                    return env.vars[name]
                except KeyError:
                    message = f"local variable '{name}' is used before it is assigned"
                    raise DGError("NameError", message, node=node) from None

            return local
        enclosing = lookup is Lookup.ENCLOSING

        def scopes(env: Env) -> Any:
            # Most often the first scope looked in has it (this very scope, or a function's
            # globals): one dictionary read here, and only then the walk up the chain.
            start: Env = env.parent if enclosing else env  # type: ignore[assignment]
            value = start.vars.get(name, MISSING)
            if value is MISSING and start.parent is not None:
                value = start.parent.lookup(name)
            if value is MISSING:  # with the names it could have meant, for "did you mean"
                raise DGError("NameError", f"name '{name}' is not defined", node=node, clues=(*env.names_in_order(),))
            if watching.listener is not None:  # a static trace guards what its function reads from outside
                watching.listener.read(start, name, value)
            return value

        return scopes

    def tuple_expr(self, node: ast.TupleExpr) -> Eval:
        items = [self.expr(i) for i in node.items]
        return lambda env: tuple([item(env) for item in items])

    def list_expr(self, node: ast.ListExpr) -> Eval:
        items = [self.expr(i) for i in node.items]
        return lambda env: [item(env) for item in items]

    def list_comprehension(self, node: ast.ListComprehension) -> Eval:
        """The element for each item that passes the condition (blocks.py's `comprehension`)."""
        return self.comprehension(node)

    def fstring(self, node: ast.FString) -> Eval:
        """The text, each {expression} formatted with its spec."""
        template = [(p, None) if isinstance(p, str) else ("", p.spec) for p in node.parts]
        values = [p.expr for p in node.parts if isinstance(p, ast.FormattedValue)]
        return self.compute(node, fstring(template), *values)

    # ---- operators ----------------------------------------------------------------------------
    def binary(self, node: ast.Binary) -> Eval:
        return self.compute(node, BINARY[node.op], node.left, node.right)

    def unary(self, node: ast.Unary) -> Eval:
        return self.compute(node, UNARY[node.op], node.operand)

    def compare(self, node: ast.Compare) -> Eval:
        """a < b (a tensor comparison gives a bool tensor); a chain a < b < c is a < b and b < c,
        each operand evaluated once."""
        if len(node.ops) == 1:
            return self.compute(node, COMPARE[node.ops[0]], *node.operands)
        operands = [self.expr(o) for o in node.operands]
        ops, truth = [self.operation(node, COMPARE[o]) for o in node.ops], self.truth(node)

        def chain(env: Env) -> Any:
            a = operands[0](env)
            result: Any = True
            for op, operand in zip(ops, operands[1:], strict=True):
                b = operand(env)
                result = op(a, b)
                if not truth(result):
                    return result
                a = b
            return result

        return chain

    def and_(self, node: ast.And) -> Eval:
        left, right, truth = self.expr(node.left), self.expr(node.right), self.truth(node.left)

        def and_value(env: Env) -> Any:
            a = left(env)
            return right(env) if truth(a) else a

        return and_value

    def or_(self, node: ast.Or) -> Eval:
        left, right, truth = self.expr(node.left), self.expr(node.right), self.truth(node.left)

        def or_value(env: Env) -> Any:
            a = left(env)
            return a if truth(a) else right(env)

        return or_value

    def not_(self, node: ast.Not) -> Eval:
        test = self.test(node.operand)
        return lambda env: not test(env)

    def conditional(self, node: ast.Conditional) -> Eval:
        test, then, otherwise = self.test(node.condition), self.expr(node.then), self.expr(node.otherwise)
        return lambda env: then(env) if test(env) else otherwise(env)

    # ---- attributes, calls, indexing ----------------------------------------------------------
    def attribute(self, node: ast.Attribute) -> Eval:
        if node.name == "grad":
            return self.grad_attribute(node)
        return self.compute(node, get_attribute, node.obj, node.name)

    def grad_attribute(self, node: ast.Attribute) -> Eval:
        """`t.grad`. `grad` fills .grad only for leaves, so a tensor computed by a recorded op has
        None there: reading it warns, once for this place in the program (as PyTorch warns)."""
        warn, warned = self.context.warn, False

        def grad_of(value: Any) -> Any:
            nonlocal warned
            if type(value) is not Tensor:  # .grad of something else: whatever get_attribute says
                return get_attribute(value, "grad")
            if value.grad is None and value.grad_fn is not None and not warned:
                warned = True
                message = ".grad of a tensor that is not a leaf is being read: grad does not fill it, so it is None"
                warn(DGError("Warning", message, node=node, clues=made_by(value, node.span)))
            if watching.listener is not None:
                watching.listener.read_grad(value)
            return value.grad

        return self.compute(node, grad_of, node.obj)

    def call(self, node: ast.Call) -> Eval:
        if isinstance(node.func, ast.Attribute):  # x.sum(axis=0): the method found by name, no bound method made
            return self.compute_call(node, method(node.func.name, self.invoke), node.func.obj)
        return self.compute_call(node, self.invoke, node.func)

    def index(self, node: ast.Index) -> Eval:
        """x[i], x[1:3], x[i, j]: one key, or a tuple of them for several axes."""
        if len(node.items) == 1:
            return self.compute(node, get_item, node.obj, node.items[0])
        return self.compute(node, lambda value, *keys: get_item(value, keys), node.obj, *node.items)

    def slice_(self, node: ast.Slice) -> Eval:
        """start:stop:step inside brackets, each part optional."""
        none: Eval = lambda env: None
        start, stop, step = (self.expr(e) if e is not None else none for e in (node.start, node.stop, node.step))
        return lambda env: slice(start(env), stop(env), step(env))
