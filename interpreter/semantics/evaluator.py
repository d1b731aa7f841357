"""The evaluator: each AST node is turned into a Python closure once; running is calling them.

    program text ──parser──▶ AST ──resolver──▶ checked AST ──evaluator──▶ closures ──call──▶ effects

Compiling first means the tree is walked once, not once per loop iteration, and names, operators
and scopes are settled before the program starts. The tables below list every kind of node with
the case that compiles it: expressions in `expressions.py`, statements in `statements.py`. Each
case says what its node means; what every node needs besides (its errors located, the site the
engine stamps on what it records, steps counted, the debugger's events) is put around it by
`compiling.py` and `blocks.py`, the same way for every node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.library.runtime import Env

from . import ast_nodes as ast
from .compiling import Eval, Exec
from .context import RunContext
from .displays import Displays
from .expressions import Expressions
from .linking import link
from .resolver import Resolution, resolve
from .statements import Statements


class Program(NamedTuple):
    """A compiled program: its code (call it with the scope to run in) and what the resolver found."""

    code: Exec
    resolution: Resolution


def compile_program(module: ast.Module, context: RunContext, echo: bool = False) -> Program:
    """Check a parsed program with the resolver, then compile it; raises a static error first.
    Returns the program's code and what the resolver found (the names it reads, ...).

    With a debugger attached, a program that may pause (it names `breakpoint`, or every program
    when `debug_everything`) is compiled with the debugger's statement events."""
    resolution, stepping = checked(module, context)
    return Program(Compiler(context, resolution, echo=echo, stepping=stepping).block(module.body), resolution)


def checked(module: ast.Module, context: RunContext) -> tuple[Resolution, bool]:
    """What the resolver found in a parsed program (a static error raised first), its imports
    linked; and whether it gets the debugger's statement events (it may pause)."""
    resolution = resolve(module)
    stepping = context.debugger and (context.debug_everything or "breakpoint" in resolution.free_names)
    if stepping:  # a program that may pause: :step goes into the functions of the modules it imports too
        context.debug_everything = True
    if resolution.imports:  # linking.py: the modules it imports found, the names taken from them checked
        link(resolution, context)
    return resolution, stepping


def compile_expression(expr: ast.Expr, context: RunContext) -> Eval:
    """An expression on its own (a debugger's `:break LINE if CONDITION`), read in any scope."""
    resolution = resolve(ast.Module([ast.ExprStmt(expr.span, expr)]))
    code, frames = Compiler(context, resolution).expr(expr), context.frames

    def value_with_call_stack(env: Env) -> Any:
        try:
            return code(env)
        except DGError as e:  # no block around it to add the call stack
            e.frames = e.frames or tuple(frames)
            raise

    return value_with_call_stack


class Compiler(Expressions, Displays, Statements):
    def expr(self, node: ast.Expr) -> Eval:
        return self.around(node, EXPRESSIONS[type(node)](self, node))

    def stmt(self, node: ast.Stmt) -> Exec:
        outer, self.branches = self.branches, self.resolution.branches.get(node, ())
        try:
            return self.around(node, STATEMENTS[type(node)](self, node))
        finally:
            self.branches = outer


Case = Callable[[Compiler, Any], Any]

EXPRESSIONS: dict[type, Case] = {
    ast.Constant: Compiler.constant,  # 3, "text", True, None
    ast.Name: Compiler.name,  # x
    ast.TupleExpr: Compiler.tuple_expr,  # (a, b)
    ast.ListExpr: Compiler.list_expr,  # [a, b]
    ast.ListComprehension: Compiler.list_comprehension,  # [f(x) for x in xs if x > 0]
    ast.DictExpr: Compiler.dict_expr,  # {"w": w, "b": b}
    ast.DictComprehension: Compiler.dict_comprehension,  # {k: v * 2 for k, v in d.items()}
    ast.FString: Compiler.fstring,  # f"loss {loss:.4f}"
    ast.Binary: Compiler.binary,  # a + b, a @ b, ...
    ast.Unary: Compiler.unary,  # -a
    ast.Compare: Compiler.compare,  # a < b <= c
    ast.And: Compiler.and_,  # a and b
    ast.Or: Compiler.or_,  # a or b
    ast.Not: Compiler.not_,  # not a
    ast.Conditional: Compiler.conditional,  # a if cond else b
    ast.Attribute: Compiler.attribute,  # x.grad
    ast.Call: Compiler.call,  # f(x, y=2), x.sum(axis=0)
    ast.Index: Compiler.index,  # x[0, 1:3]
    ast.Slice: Compiler.slice_,  # 1:3 inside brackets
}

STATEMENTS: dict[type, Case] = {
    ast.ExprStmt: Compiler.expr_stmt,  # print(x)
    ast.Assign: Compiler.assign,  # x = ..., a, b = ..., x[i] = ..., x.grad = ...
    ast.AugAssign: Compiler.aug_assign,  # x += 1
    ast.Pass: Compiler.pass_,
    ast.Break: Compiler.break_,
    ast.Continue: Compiler.continue_,
    ast.Return: Compiler.return_,
    ast.Grad: Compiler.grad,  # grad loss, grad y with seed
    ast.Assert: Compiler.assert_,
    ast.If: Compiler.if_,
    ast.While: Compiler.while_,
    ast.For: Compiler.for_,
    ast.FunctionDef: Compiler.function_def,
    ast.With: Compiler.with_,  # with no_grad: ...
    ast.Delete: Compiler.delete,  # del d[key]
    ast.Import: Compiler.import_,  # import nn
    ast.FromImport: Compiler.from_import,  # from nn import linear
}
