"""The protocol side of `dg lsp`: pygls's server, each request answered from analysis.py and
answers.py, positions and ranges converted between DG's (1-based lines, columns in characters) and
the editor's (0-based, in the units the editor asked for, UTF-16 unless it said otherwise).

The text an editor sends may be anything, and the server must outlive it: each handler answers
"nothing" rather than fail, and logs the Python traceback for a bug report.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from dglang import __version__
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Span
from dglang.interpreter.host.session import Session

from . import answers
from .analysis import Analysis, analyze
from .imports import Imports, ModuleReader
from .symbols import Definition

log = logging.getLogger(__name__)
Result = TypeVar("Result")

PAUSE = 0.15  # seconds without a change before a changed document is read again
SYMBOL_KINDS = {
    "function": types.SymbolKind.Function,
    "parameter": types.SymbolKind.Variable,
    "variable": types.SymbolKind.Variable,
    "module": types.SymbolKind.Module,
    "imported": types.SymbolKind.Variable,
}
COMPLETION_KINDS = {
    "keyword": types.CompletionItemKind.Keyword,
    "function": types.CompletionItemKind.Function,
    "method": types.CompletionItemKind.Method,
    "attribute": types.CompletionItemKind.Property,
    "variable": types.CompletionItemKind.Variable,
    "parameter": types.CompletionItemKind.Variable,
    "constant": types.CompletionItemKind.Constant,
    "module": types.CompletionItemKind.Module,
    "imported": types.CompletionItemKind.Variable,
}


@dataclass
class Documents:
    """What the server keeps of each open document: the analysis of its latest version that
    parsed (completion and definitions keep working while a line is half typed)."""

    session: Session
    parsed: dict[str, Analysis] = field(default_factory=dict)
    reader: ModuleReader = field(default_factory=ModuleReader)

    def update(self, uri: str, text: str) -> Analysis:
        name, file = document_name(uri), document_file(uri)
        if file is not None:  # its imports are looked for beside it, as `dg FILE` looks for them
            self.session.modules.files[name] = file
        analysis = analyze(self.session, text, name, self.reader)
        if analysis.module is not None:
            self.parsed[uri] = analysis
        return analysis

    def definitions(self, uri: str) -> list[Definition]:
        found = self.parsed.get(uri)
        return found.found if found is not None else []

    def imports(self, uri: str) -> Imports:
        found = self.parsed.get(uri)
        return found.imports if found is not None else Imports()

    def close(self, uri: str) -> None:
        self.parsed.pop(uri, None)


def document_name(uri: str) -> str:
    """The name DG's messages call a document by: its file's name."""
    path = unquote(urlparse(uri).path)
    return PurePosixPath(path).name or uri


def document_file(uri: str) -> Path | None:
    """The file a `file:` document is, or None (an unsaved one)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    try:
        return Path(url2pathname(unquote(parsed.path))).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def guarded(default: Result) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """A handler that answers `default` instead of failing (and logs why)."""

    def wrap(handler: Callable[..., Result]) -> Callable[..., Result]:
        @functools.wraps(handler)
        def run(*params: Any) -> Result:
            try:
                return handler(*params)
            except Exception:
                log.exception("dg lsp: %s failed", handler.__name__)
                return default

        return run

    return wrap


def make_server(session: Session) -> LanguageServer:
    """A language server reading documents with `session` (which compiles, never runs)."""
    server = LanguageServer("dg", __version__)
    documents = Documents(session)

    def publish(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        analysis = documents.update(uri, document.source)
        diagnostics = [diagnostic(document, p, types.DiagnosticSeverity.Error) for p in analysis.problems]
        diagnostics += [diagnostic(document, p, types.DiagnosticSeverity.Warning) for p in analysis.warnings]
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @guarded(None)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    waiting: dict[str, asyncio.TimerHandle] = {}

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @guarded(None)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        # Read the text once typing pauses: a long program takes a second to read, and a change
        # typed meanwhile would make that reading stale before it is shown.
        uri = params.text_document.uri
        if uri in waiting:
            waiting.pop(uri).cancel()
        waiting[uri] = asyncio.get_running_loop().call_later(PAUSE, guarded(None)(lambda: finish(uri)))

    def finish(uri: str) -> None:
        waiting.pop(uri, None)
        if uri in server.workspace.text_documents:  # not closed meanwhile
            publish(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @guarded(None)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in waiting:
            waiting.pop(uri).cancel()
        documents.close(uri)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded(None)
    def hover(params: types.HoverParams) -> types.Hover | None:
        document, word = word_at(server, params)
        if word is None:
            return None
        found, imports = documents.definitions(document.uri), documents.imports(document.uri)
        text = answers.hover(found, lines_of(document), word, session.builtins.vars, imports)
        if text is None:
            return None
        content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=f"```text\n{text}\n```")
        return types.Hover(contents=content, range=editor_range(document, word.line, word.column, word.end_column))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded(None)
    def definition(params: types.DefinitionParams) -> types.Location | None:
        document, word = word_at(server, params)
        if word is None:
            return None
        found, imports = documents.definitions(document.uri), documents.imports(document.uri)
        place = answers.definition(found, lines_of(document), word, imports)
        if place is None:
            return None
        file, span = place
        if file is None:
            return types.Location(uri=document.uri, range=client_range(document, span))
        other = server.workspace.get_text_document(file.as_uri())  # opened or not: read from the file
        return types.Location(uri=file.as_uri(), range=client_range(other, span))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
    @guarded(None)
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        document = server.workspace.get_text_document(params.text_document.uri)
        at = document.position_from_client_units(params.position)
        found, imports = documents.definitions(document.uri), documents.imports(document.uri)
        start, items = answers.complete(
            found, lines_of(document), at.line + 1, at.character + 1, session.builtins.vars, imports
        )
        replaced = editor_range(document, at.line + 1, start, at.character + 1)
        return types.CompletionList(
            is_incomplete=False,
            items=[
                types.CompletionItem(
                    label=i.label,
                    kind=COMPLETION_KINDS.get(i.kind),
                    detail=i.detail or None,
                    text_edit=types.TextEdit(range=replaced, new_text=i.label),
                )
                for i in items
            ],
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded([])
    def document_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        document = server.workspace.get_text_document(params.text_document.uri)
        return symbols(document, documents.definitions(document.uri))

    return server


# ---- positions ---------------------------------------------------------------------------------
def lines_of(document: TextDocument) -> list[str]:
    return [line.rstrip("\r\n") for line in document.lines]


def line_of(document: TextDocument, index: int) -> str:
    lines = document.lines
    return lines[index].rstrip("\r\n") if 0 <= index < len(lines) else ""


def word_at(server: LanguageServer, params: Any) -> tuple[TextDocument, answers.Word | None]:
    document = server.workspace.get_text_document(params.text_document.uri)
    at = document.position_from_client_units(params.position)
    return document, answers.word_at(line_of(document, at.line), at.line + 1, at.character + 1)


def editor_range(document: TextDocument, line: int, column: int, end_column: int) -> types.Range:
    """Part of one line (1-based line, columns in characters) as the editor counts."""
    start, end = ServerTextPosition(line - 1, column - 1), ServerTextPosition(line - 1, end_column - 1)
    return document.range_to_client_units(ServerTextRange(start, end))


def client_range(document: TextDocument, span: Span | None) -> types.Range:
    """A DG span as the editor counts: 0-based, in its units."""
    if span is None:  # an error about the whole text (one too large to read)
        return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    start = ServerTextPosition(span.line - 1, span.column - 1)
    end = ServerTextPosition(span.end_line - 1, span.end_column - 1)
    return document.range_to_client_units(ServerTextRange(start, max(start, end)))


def diagnostic(document: TextDocument, problem: DGError, severity: types.DiagnosticSeverity) -> types.Diagnostic:
    """A problem as `dg` states it: `Kind: message`, and its help line."""
    message = f"{problem.kind}: {problem.message}"
    if problem.help:
        message += f"\nhelp: {problem.help}"
    return types.Diagnostic(
        range=client_range(document, problem.span),
        message=message,
        severity=severity,
        source="dg",
        code=problem.kind,
    )


def symbols(document: TextDocument, found: list[Definition]) -> list[types.DocumentSymbol]:
    """The top level's functions and variables (each once, where first defined); a function's
    parameters and local variables under it."""

    def symbol(d: Definition) -> types.DocumentSymbol:
        children = [symbol(inner) for inner in firsts(found, d.node)] if d.node is not None else None
        return types.DocumentSymbol(
            name=d.name,
            kind=SYMBOL_KINDS[d.kind],
            range=client_range(document, d.node.span if d.node is not None else d.span),
            selection_range=client_range(document, d.span),
            detail=f"def {d.signature}" if d.kind == "function" else d.kind,
            children=children,
        )

    return [symbol(d) for d in firsts(found, None)]


def firsts(found: list[Definition], scope: Any) -> list[Definition]:
    """The definitions of a scope, each name once (its first)."""
    seen: dict[str, Definition] = {}
    for d in found:
        if d.scope is scope and d.name not in seen:
            seen[d.name] = d
    return list(seen.values())
