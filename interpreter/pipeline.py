"""DG's whole pipeline, a stage a line: text → tokens → AST → resolved AST → program → run.

Read this file first; each line names the module to read next. The host (host/session.py) runs
the same two functions under the session's limits; nothing here knows of them.
"""

from __future__ import annotations

from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.library.runtime import Env
from dglang.interpreter.semantics.context import RunContext
from dglang.interpreter.semantics.evaluator import Program, compile_program
from dglang.interpreter.syntax.parser import parse


def compile(source: Source, context: RunContext, echo: bool = False) -> Program:
    """Text → program, raising a SyntaxError or a static error before anything runs."""
    module = parse(source)  # syntax/: text → tokens (grammar.py, indenter.py) → AST (tree_to_ast.py)
    return compile_program(module, context, echo)  # semantics/: resolver.py, then evaluator.py: AST → closures


def run(program: Program, env: Env) -> None:
    """Run a compiled program in `env`: each statement's closure in turn, recording the graph as it goes."""
    program.code(env)
