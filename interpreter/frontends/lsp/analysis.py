"""One reading of a document: its problems, its syntax tree and its definitions. Nothing runs.

The text is compiled by the session as `dg` compiles a program before running it (Session.compile:
the size limit, the parser's syntax errors, the resolver's static errors), so a problem reads in the
editor as it would in the terminal. A compile only builds closures; no statement runs. Then, on a
text that compiles, the checks of checks.py add what the run would meet: unknown names, calls with
the wrong arguments. The compile's problems stop a program before it starts (errors); the checks'
stop it at the line, if the line runs (warnings: a tests file for `dg grade` calls functions the
submission defines, and a check cannot know them).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, with_newline
from dglang.interpreter.host.session import Session
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics.resolver import resolve
from dglang.interpreter.syntax.fast import fast_parser
from dglang.interpreter.syntax.parser import expression_parser, parse

from .checks import argument_counts, unknown_names
from .imports import Imports, ModuleReader, in_document
from .symbols import Definition, definitions

log = logging.getLogger(__name__)

MAX_PROBLEMS = 100  # an editor's list, not a flood: the first problems are the ones to fix first


@dataclass
class Analysis:
    text: str  # as analysed: line ends made "\n", as `dg` reads a file
    problems: list[DGError] = field(default_factory=list)  # the compile's: the program cannot start
    warnings: list[DGError] = field(default_factory=list)  # the checks': a line that fails when it runs
    module: ast.Module | None = None  # None when the text does not parse
    found: list[Definition] = field(default_factory=list)
    imports: Imports = field(default_factory=Imports)  # the modules it imports, for other files' definitions


def normalized(text: str) -> str:
    """Windows' "\\r\\n" and old Macs' "\\r" as "\\n" (program_text's rule): the lines and columns
    stay the editor's, since a line end only ever ends a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def analyze(session: Session, text: str, name: str, reader: ModuleReader | None = None) -> Analysis:
    """Everything the server says about `text`; whatever the text holds, this returns. Its imports
    are found as `dg` finds them (the session's modules know the document's file)."""
    analysis = Analysis(normalized(text))
    text = analysis.text
    compiled = False
    session.modules.forget_changed()  # a module edited since the last reading is read again
    try:
        session.compile(text, name)
        compiled = True
    except DGError as e:
        analysis.problems.append(in_document(e, name))
    except Exception as e:  # a bug in DG: say so in the editor rather than lose the server
        log.exception("compiling %s", name)
        analysis.problems.append(internal_error(e))
    if compiled or analysis.problems[0].is_syntax:  # not a text too large to read
        analysis.module = parsed(text, name, compiled)
    if analysis.module is None:
        return analysis
    try:
        analysis.found = definitions(analysis.module)
        if reader is not None:
            analysis.imports = reader.imports(session, analysis.module)
        builtins = session.builtins.vars
        if compiled:  # else the resolver stopped at a static error, already reported
            resolution = resolve(analysis.module)
            analysis.warnings.extend(unknown_names(resolution, analysis.found, builtins))
        analysis.warnings.extend(
            argument_counts(analysis.module, analysis.found, builtins, imported_functions(analysis))
        )
    except Exception as e:
        log.exception("checking %s", name)
        analysis.problems.append(internal_error(e))
    analysis.warnings = sorted(analysis.warnings, key=position)[:MAX_PROBLEMS]
    return analysis


def imported_functions(analysis: Analysis) -> dict[str, dict[str, ast.FunctionDef]]:
    """For each name the document binds by importing, the functions of the module it means."""
    imports = analysis.imports
    out: dict[str, dict[str, ast.FunctionDef]] = {}
    for name, view in [*imports.modules.items(), *imports.names.items()]:
        top = [d for d in view.found if d.scope is None]
        once = {d.name for d in top} - {d.name for i, d in enumerate(top) if d.name in {e.name for e in top[:i]}}
        functions = {d.name: d.node for d in top if d.node is not None and d.name in once}
        out[name] = functions if name in imports.modules else {name: functions[name]} if name in functions else {}
    return out


def parsed(text: str, name: str, compiled: bool) -> ast.Module | None:
    """The syntax tree, or None. A text the compile refused is tried on the fast parser alone: it
    may hold a tree with a static error (`return` outside a function), while lark's path would only
    find the syntax error again, which on a long file takes seconds."""
    source = Source(name, text)
    try:
        if compiled:
            return parse(source)
        return fast_parser.parse(source, with_newline(text), "start", expression_parser(source))
    except (DGError, RecursionError):
        return None
    except Exception:
        log.exception("parsing %s", name)
        return None


def internal_error(e: Exception) -> DGError:
    return DGError(
        "InternalError",
        f"DG could not check this text ({type(e).__name__}: {e})",
        help="this is a bug in DG; the server's log has the Python traceback to report",
    )


def position(problem: DGError) -> Any:
    span = problem.span
    return (0, 0) if span is None else (span.line, span.column)
