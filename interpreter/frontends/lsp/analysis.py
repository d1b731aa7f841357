"""One reading of a document: its problems, its syntax tree and its definitions. Nothing runs.

The text is read by the session as `dg` reads a program before running it (Session.read: the
size limit, the parser's syntax errors, the resolver's static errors, the modules it imports), so a
problem reads in the editor as it would in the terminal; nothing is compiled to run, and no statement
runs. A text the reading refuses is read on past each mistake: every syntax error (syntax/recovery.py:
each broken statement becomes a `pass`, and the rest parses), then every static error (each statement
that has one set aside as a `pass`, and the program resolved again). Then the checks of checks.py add
what the run would meet: unknown names, calls with the wrong arguments. The reading's problems stop a
program before it starts (errors); the checks' stop it at the line, if the line runs (warnings: a
tests file for `dg grade` calls functions the submission defines, and a check cannot know them).
`dg check FILE` prints the same reading (check_command.py).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.host.session import Session
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics.resolver import Resolution, resolve
from dglang.interpreter.syntax.fast import fast_parser
from dglang.interpreter.syntax.indenter import with_newline
from dglang.interpreter.syntax.parser import expression_parser
from dglang.interpreter.syntax.recovery import recover

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
    module: ast.Module | None = None  # None when the text cannot be read (too large, not text)
    found: list[Definition] = field(default_factory=list)
    unfinished: set[str] = field(default_factory=set)  # names the broken statements seem to define
    imports: Imports = field(default_factory=Imports)  # the modules it imports, for other files' definitions


def normalized(text: str) -> str:
    """Windows' "\\r\\n" and old Macs' "\\r" as "\\n" (program_text's rule): the lines and columns
    stay the editor's, since a line end only ever ends a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def analyze(session: Session, text: str, name: str, reader: ModuleReader | None = None) -> Analysis:
    """Everything the server says about `text`; whatever the text holds, this returns. Its imports
    are found as `dg` finds them (the session's modules know the document's file)."""
    analysis = Analysis(normalized(text))
    source = Source(name, analysis.text)
    resolution = None
    first: DGError | None = None  # the reading's error, told at this document's line
    session.modules.forget_changed()  # a module edited since the last reading is read again
    try:
        analysis.module, resolution = session.read(analysis.text, name)  # parsed once: a long file takes a second
    except DGError as e:
        first = in_document(e, name)
        if not e.is_syntax:  # a text too large to read, not text, or a module that cannot be found
            analysis.problems.append(first)
            return analysis
        read_on(analysis, source, first)
    except Exception as e:  # a bug in DG: say so in the editor rather than lose the server
        log.exception("reading %s", name)
        analysis.problems.append(internal_error(e))
        return analysis
    if analysis.module is None:
        return analysis
    try:
        analysis.found = definitions(analysis.module)
        if reader is not None:
            analysis.imports = reader.imports(session, analysis.module)
        builtins = session.builtins.vars
        if first is not None:  # the reading stopped at the first error: find the others
            resolution, static = resolved(analysis.module)
            analysis.problems = sorted([*analysis.problems, *static], key=position)[:MAX_PROBLEMS]
            if not any(same(p, first) for p in analysis.problems):
                analysis.problems.insert(0, first)  # found in an imported module, not by reading this text
        if resolution is not None:
            known = {**builtins, **dict.fromkeys(analysis.unfinished)}  # a broken `def f(` still names f
            analysis.warnings.extend(unknown_names(resolution, analysis.found, known, MAX_PROBLEMS))
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
        count = Counter(d.name for d in top)  # a name defined twice is not checked
        functions = {d.name: d.node for d in top if d.node is not None and count[d.name] == 1}
        out[name] = functions if name in imports.modules else {name: functions[name]} if name in functions else {}
    return out


def read_on(analysis: Analysis, source: Source, first: DGError) -> None:
    """The syntax tree of a text the compile refused, and its syntax errors. The fast parser is
    tried first: a tree from it means the refusal was a static error (`return` outside a function),
    found again by resolving; else the reading recovers from each syntax error."""
    try:
        module = fast_parser.parse(source, with_newline(source.text), "start", expression_parser(source))
    except (DGError, RecursionError):
        module = None
    if module is not None:
        analysis.module = module
        return
    try:
        recovered = recover(source)
    except Exception:  # a bug in DG: the compile's error alone is still DG's own, and true
        log.exception("recovering from the syntax errors of %s", source.name)
        analysis.problems.append(first)
        return
    analysis.module, analysis.unfinished = recovered.module, recovered.unfinished
    # The compile's error where the reading found another at its place (a line that is not UTF-8)
    analysis.problems.extend(e for e in recovered.errors if same(e, first) or position(e) != position(first))
    if not any(same(error, first) for error in recovered.errors):
        analysis.problems.insert(0, first)


def resolved(module: ast.Module) -> tuple[Resolution | None, list[DGError]]:
    """The resolution of the program, and each static error in it: the resolver stops at the first
    (`return` outside a function), which is set aside as a `pass` for the next try. A tree read on
    past a syntax error may be nested deeper than the resolver can follow (the compile, which
    reports that as a SyntaxError, stopped before it): then no resolution, and no more errors."""
    errors: list[DGError] = []
    while len(errors) < MAX_PROBLEMS:
        try:
            return resolve(module), errors
        except DGError as e:
            errors.append(e)
            if e.span is None or not set_aside(module.body, e.span):
                break
        except RecursionError:
            break
    return None, errors


def set_aside(body: list[ast.Stmt], span: Any) -> bool:
    """Make the statement at `span` a `pass`, wherever it is nested; whether it was found."""
    for i, statement in enumerate(body):
        if statement.span is span:
            body[i] = ast.Pass(span)
            return True
        inner: list[list[ast.Stmt]] = []
        match statement:
            case ast.If(branches=branches, orelse=orelse):
                inner = [b for _, b in branches] + [orelse or []]
            case ast.While(body=b) | ast.For(body=b) | ast.FunctionDef(body=b) | ast.With(body=b):
                inner = [b]
        if any(set_aside(b, span) for b in inner):
            return True
    return False


def same(a: DGError, b: DGError) -> bool:
    return a.kind == b.kind and a.message == b.message and position(a) == position(b)


def problems_of(text: str, name: str, first: DGError) -> list[DGError]:
    """Every static error of a program whose compile raised `first` (`dg FILE` reports them all)."""
    analysis = Analysis(normalized(text))
    try:
        read_on(analysis, Source(name, analysis.text), first)
        if analysis.module is not None:
            analysis.problems.extend(resolved(analysis.module)[1])
    except Exception:
        log.exception("reading %s", name)
        return [first]
    problems = sorted(analysis.problems, key=position)[:MAX_PROBLEMS]
    return problems if any(same(p, first) for p in problems) else [first]


def internal_error(e: Exception) -> DGError:
    return DGError(
        "InternalError",
        f"DG could not check this text ({type(e).__name__}: {e})",
        help="this is a bug in DG; the server's log has the Python traceback to report",
    )


def position(problem: DGError) -> Any:
    span = problem.span
    return (0, 0) if span is None else (span.line, span.column)
