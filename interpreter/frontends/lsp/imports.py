"""The modules a document imports, as the language server needs them: each one's file and the
definitions in it, for go to definition across files, completion after `nn.` and hover. Found as
`dg` finds them (the session's Modules: the document's folder, then the library path), read and
parsed, never run; kept until the file changes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span, program_text
from dglang.interpreter.host.limits import MAX_PROGRAM_BYTES
from dglang.interpreter.host.session import Session
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.parser import parse

from .symbols import Definition, definitions

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModuleView:
    """A module as the server shows it: where it is, and what its text defines at its top level."""

    name: str
    file: Path
    display: str
    found: list[Definition] = field(default_factory=list)

    def top(self, name: str) -> Definition | None:
        """Where the module's top level first defines `name`."""
        return next((d for d in self.found if d.name == name and d.scope is None), None)


@dataclass
class Imports:
    """For each name a document binds by importing: the module it is (`import nn`: nn) or comes from
    (`from nn import linear`: nn)."""

    modules: dict[str, ModuleView] = field(default_factory=dict)  # `nn` -> nn
    names: dict[str, ModuleView] = field(default_factory=dict)  # `linear` -> nn


class ModuleReader:
    """Parsed modules, by file, kept while the file's modification time and size stay the same."""

    def __init__(self) -> None:
        self.parsed: dict[Path, tuple[tuple[int, int], ModuleView]] = {}

    def imports(self, session: Session, module: ast.Module) -> Imports:
        found = Imports()
        for statement in module.body:
            if isinstance(statement, ast.Import):
                for imported in statement.modules:
                    view = self.view(session, imported)
                    if view is not None:
                        found.modules[imported.name] = view
            elif isinstance(statement, ast.FromImport):
                view = self.view(session, statement.module)
                if view is not None:
                    found.names.update((name.name, view) for name in statement.names)
        return found

    def view(self, session: Session, imported: ast.ImportedName) -> ModuleView | None:
        try:
            interface = session.modules.find(imported)
            stamp = stat(interface.file)
            kept = self.parsed.get(interface.file)
            if kept is not None and kept[0] == stamp:
                return kept[1]
            with interface.file.open("rb") as f:
                text = program_text(f.read(MAX_PROGRAM_BYTES + 1))
            tree = parse(Source(interface.display, text))
        except (DGError, OSError, UnicodeDecodeError, RecursionError):
            return None  # the compile reports why (the module is missing, or does not parse)
        view = ModuleView(interface.name, interface.file, interface.display, definitions(tree))
        self.parsed[interface.file] = (stamp, view)
        return view


def stat(file: Path) -> tuple[int, int]:
    found = file.stat()
    return found.st_mtime_ns, found.st_size


def in_document(problem: DGError, name: str) -> DGError:
    """A problem the compile found in an imported module, told at the import in this document that
    led to it (its first DG call stack frame), since an editor shows a document's problems on its
    own lines: `in nn.dg, line 3: SyntaxError: ...`."""
    span = problem.span
    if span is None or span.source.name == name:
        return problem
    frame = next((f for f in problem.frames if f.call_site.source.name == name), None)
    if frame is None:
        return problem
    where: Span = frame.call_site
    moved = DGError(
        problem.kind,
        f"in {span.source.name}, line {span.line}: {problem.message}",
        where,
        help=problem.help,
    )
    return moved
