"""DG's whole pipeline, a stage a line: text → tokens → AST → resolved AST → program → run.

Read this file first; each line names the module to read next. The host (host/session.py) runs
it under limits it knows nothing of. The parser and the evaluator each have a reference to read,
and a faster accelerator that runs unless DG_PARSER=lark or DG_EVAL=reference (`dg --eval reference`).
"""

from __future__ import annotations

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics import reference
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program, compile_program
from dglang.interpreter.syntax.parser import parse


def compile(source: Source, context: RunContext, echo: bool = False) -> Program:
    """Text → program, raising a SyntaxError or a static error before anything runs."""
    module = parse(source)  # syntax/parser.py: text → tokens (indenter.py) → AST (tree_to_ast.py)
    if context.evaluator == "reference":  # semantics/reference.py: resolver.py, then the tree is the program
        return reference.prepare(module, context, echo)
    return compile_program(module, context, echo)  # semantics/evaluator.py: resolver.py, then AST → closures


def run(program: Program, env: Env) -> None:
    """Run a program in `env`, recording the graph as it goes."""
    program.code(env)  # semantics/reference.py's Reference.run, or the accelerator's closures
