"""The evaluator's cases for dict displays: `{key: value, ...}` and `{k: v for x in xs if c}`.

As the other cases (expressions.py), each says what its node means in the words of compiling.py;
a key that cannot be a key (a tensor, a list) is an error located at the key itself. A tensor
stored under a string key without a name of its own takes the key as its name, as one assigned to
a variable takes the variable's, so that a picture of the graph says `w1` rather than
`(unnamed leaf)` for `{"w1": randn(3, 3)}`.
"""

from __future__ import annotations

from typing import Any

from dglang.interpreter.library.runtime import Env

from . import ast_nodes as ast
from .blocks import Blocks
from .compiling import Eval, put


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
        """A key and a value for each item that passes the condition (blocks.py's `comprehension`)."""
        return self.comprehension(node)
