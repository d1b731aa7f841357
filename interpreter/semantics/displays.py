"""The evaluator's cases for dict displays: `{key: value, ...}` and `{k: v for x in xs if c}`.

As the other cases (expressions.py), each says what its node means in the words of compiling.py;
a key that cannot be a key (a tensor, a list) is an error located at the key itself. A tensor
stored under a string key without a name of its own takes the key as its name, as one assigned to
a variable takes the variable's, so that a picture of the graph says `w1` rather than
`(unnamed leaf)` for `{"w1": randn(3, 3)}`.
"""

from __future__ import annotations

from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.library.dictionaries import store
from dglang.interpreter.library.runtime import Env, watching

from . import ast_nodes as ast
from .blocks import Blocks
from .compiling import Eval


class Displays(Blocks):
    def dict_expr(self, node: ast.DictExpr) -> Eval:
        """Each key, then its value, in order (as Python evaluates them), stored in a new dict."""
        items = [(self.expr(k), self.expr(v), self.operation(k, put)) for k, v in node.items]

        def build_dict(env: Env) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for key, value, store_at in items:
                store_at(out, key(env), value(env))
            return out

        return build_dict

    def dict_comprehension(self, node: ast.DictComprehension) -> Eval:
        """A key and a value for each item that passes the condition; the names bound in a scope of their own."""
        items, key, value = self.items(node.iterable), self.expr(node.key), self.expr(node.value)
        keep = self.test(node.condition) if node.condition is not None else None
        store_at, bind = self.operation(node.key, put), self.binder(node.targets, node.iterable)
        new_run, count_step = self.loop_runs(node), self.step_counter(node.span)

        def build_dict_for_each(env: Env) -> dict[Any, Any]:
            with new_run() as run:
                scope, out = Env({}, env), {}
                if watching.listener is not None:
                    watching.listener.entered(scope)
                for item in items(env):
                    if count_step is not None:
                        count_step()
                    run.count += 1
                    bind(scope.vars, item)
                    if keep is None or keep(scope):
                        store_at(out, key(scope), value(scope))
            return out

        return build_dict_for_each


def put(d: dict[Any, Any], key: Any, value: Any) -> None:
    """d[key] = value in a dict being built; a tensor without a name takes a string key's."""
    if type(value) is Tensor and value.name is None and type(key) is str:
        value.name = key
    store(d, key, value)
