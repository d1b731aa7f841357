"""The evaluator's cases for dict displays: `{key: value, ...}` and `{k: v for x in xs if c}`.

As the other cases (expressions.py), each returns `run(env)`; a key that cannot be a key (a tensor,
a list) is located at the key's own span. A tensor stored under a string key without a name of
its own takes the key as its name, as one assigned to a variable takes the variable's, so that a
picture of the graph says `w1` rather than `(unnamed leaf)` for `{"w1": randn(3, 3)}`.
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.library.dictionaries import store
from dglang.interpreter.library.runtime import Env, iterate

from . import ast_nodes as ast
from .compiling import CompilerBase, Eval, truth, unpacker


class Displays(CompilerBase):
    def dict_expr(self, node: ast.DictExpr) -> Eval:
        """{key: value, ...}: each key, then its value, in order; a key that cannot be one is located."""
        items = [(self.expr(k), self.expr(v), k.span) for k, v in node.items]

        def run(env: Env) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for key, value, span in items:
                k = key(env)
                v = value(env)
                if type(v) is Tensor and v.name is None and type(k) is str:
                    v.name = k
                try:
                    store(out, k, v)
                except Exception as e:
                    raise self.fail(e, span) from None
            return out

        return run

    def dict_comprehension(self, node: ast.DictComprehension) -> Eval:
        """{key: value for x in iterable if condition}, with x in a scope of its own."""
        iterable, span = self.expr(node.iterable), node.iterable.span
        key, key_span = self.expr(node.key), node.key.span
        value = self.counted(self.expr(node.value), node.span)
        condition = self.expr(node.condition) if node.condition else None
        condition_span = node.condition.span if node.condition else node.span
        bind, site = unpacker(node.targets), self.site(span)
        loop = self.loop("comprehension", node, span)

        def run(env: Env) -> dict[Any, Any]:
            try:
                values = iterate(iterable(env), site)
            except Exception as e:
                raise self.fail(e, span) from None
            inner = Env({}, env)
            out: dict[Any, Any] = {}
            with loop() as this:
                for item in values:
                    this.count += 1
                    bind(inner.vars, item, span, self)
                    if condition is None or truth(condition(inner), condition_span, self):
                        k = key(inner)
                        v = value(inner)
                        if type(v) is Tensor and v.name is None and type(k) is str:
                            v.name = k
                        try:
                            store(out, k, v)
                        except Exception as e:
                            raise self.fail(e, key_span) from None
            return out

        return run
