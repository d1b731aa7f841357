"""DG's whole pipeline, a stage a line: text → tokens → AST → resolved AST → program → run.

Read this file first; each line names the module to read next. The host (host/session.py) runs
the same functions under the session's limits; nothing here knows of them.

Two stages have two ways with one result: a reference to read, and an accelerator that runs by
default. The parser's reference is lark's, built from grammar/dg.lark; its accelerator runs the
same LALR table without loading lark (syntax/fast/; DG_PARSER=lark turns it off). The
evaluator's reference walks the tree (semantics/reference.py); its accelerator compiles each
node into a Python closure once (semantics/evaluator.py; DG_EVAL=reference, or `dg --eval
reference`, runs the reference instead). tests/language/test_reference.py holds the two
evaluators to the same output, errors and gradients.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics import reference
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program, compile_expression, compile_program
from dglang.interpreter.syntax.parser import parse


def compile(source: Source, context: RunContext, echo: bool = False) -> Program:
    """Text → program, raising a SyntaxError or a static error before anything runs."""
    module = parse(source)  # syntax/parser.py: text → tokens (indenter.py) → AST (tree_to_ast.py)
    if context.evaluator == "reference":
        return reference.prepare(module, context, echo)  # semantics/: resolver.py, then the tree is the program
    return compile_program(module, context, echo)  # semantics/: resolver.py, then evaluator.py: AST → closures


def run(program: Program, env: Env) -> None:
    """Run a program in `env`: its statements in turn, recording the graph as it goes."""
    program.code(env)  # semantics/reference.py: Reference.run, or the accelerator's closures


def compile_condition(expr: ast.Expr, context: RunContext) -> Callable[[Env], Any]:
    """One expression on its own, read in any scope (a debugger's `:break LINE if CONDITION`)."""
    if context.evaluator == "reference":
        return reference.expression_code(expr, context)
    return compile_expression(expr, context)
