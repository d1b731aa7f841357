"""The open documents as the server holds them: pygls's TextDocument, with its lines as DG's lexer
counts them, and the latest reading of each (analysis.py), made in a thread of its own.

The readings are made in one thread beside the server's, in the order asked for, so that the
server goes on answering while a long document is read (a megabyte takes a second or two): an
answer uses the latest reading of its document that parsed, and waits only for a document's first.
A reading still waiting for its turn when a newer text of its document comes is not made.

pygls splits a document with Python's str.splitlines, which also ends a line at a form feed, "\\v",
"\\x1c"-"\\x1e", "\\x85", U+2028 and U+2029: after a `^L` in a comment every answer (a diagnostic, a
hover, an edit the editor sent) was about the line above. The Language Server Protocol, like DG,
ends lines at "\\n", "\\r\\n" and "\\r" only (diagnostics/source.py's split_lines). pygls also split
the whole text again for each position it converted: an outline of 40,000 symbols split a 1 MB
document 80,000 times. Here the lines are split once per version of the text.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import ServerTextPosition

from dglang.interpreter.diagnostics.source import split_lines
from dglang.interpreter.host.session import Session

from .analysis import Analysis, analyze
from .imports import Imports, ModuleReader
from .symbols import Definition

READER_STACK = 64 << 20  # bytes: the main thread's depth for the parser (macOS gives other threads 512 kB)


def reader() -> ThreadPoolExecutor:
    """The thread that reads documents, started now with a deep stack."""
    before = threading.stack_size(READER_STACK)
    try:
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dg-lsp-reader")
        thread.submit(lambda: None).result()
    finally:
        threading.stack_size(before)
    return thread


@dataclass
class Documents:
    """What the server keeps of each open document: the reading of its latest version that parsed
    (completion and definitions keep working while a line is half typed), and the reading under way."""

    session: Session
    thread: ThreadPoolExecutor
    parsed: dict[str, Analysis] = field(default_factory=dict)
    pending: dict[str, asyncio.Future[Analysis]] = field(default_factory=dict)
    queued: dict[str, Future[Analysis]] = field(default_factory=dict)  # the reading thread's, of `pending`
    modules: ModuleReader = field(default_factory=ModuleReader)  # the modules the documents import

    def read(self, uri: str, text: str) -> asyncio.Future[Analysis]:
        """Read `text` in the reading thread; the future is done when it is read and kept. A reading
        of the same document still waiting for its turn is cancelled (one under way finishes, and
        its diagnostics, stale, are not sent): typing in a long document queued a reading per pause."""
        name, file = document_name(uri), document_file(uri)
        if file is not None:  # its imports are looked for beside it, as `dg FILE` looks for them
            self.session.modules.files[name] = file
        earlier = self.queued.pop(uri, None)
        if earlier is not None:
            earlier.cancel()  # (at once, in this thread: it does nothing to a reading under way)
        work = self.thread.submit(analyze, self.session, text, name, self.modules)
        future = asyncio.wrap_future(work)
        self.pending[uri], self.queued[uri] = future, work

        def done(future: asyncio.Future[Analysis]) -> None:
            if self.queued.get(uri) is work:
                del self.queued[uri]
            if uri not in self.pending:  # closed meanwhile
                return
            if self.pending[uri] is future:
                del self.pending[uri]
            if not future.cancelled() and future.exception() is None and future.result().module is not None:
                self.parsed[uri] = future.result()

        future.add_done_callback(done)
        return future

    async def ready(self, uri: str) -> None:
        """Wait for a document's first reading, if it is under way (later ones are not waited for;
        a reading cancelled by a newer one is waited for through that one)."""
        while uri not in self.parsed and (pending := self.pending.get(uri)) is not None:
            await asyncio.wait([pending])

    def definitions(self, uri: str) -> list[Definition]:
        found = self.parsed.get(uri)
        return found.found if found is not None else []

    def imports(self, uri: str) -> Imports:
        found = self.parsed.get(uri)
        return found.imports if found is not None else Imports()

    def close(self, uri: str) -> None:
        self.parsed.pop(uri, None)
        self.pending.pop(uri, None)
        self.queued.pop(uri, None)


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


class Document(TextDocument):
    """pygls's document, whose lines (with their ends) follow DG's rule, split once per text."""

    _split_from: str | None = None
    _split: tuple[str, ...] = ()

    @property
    def lines(self) -> Sequence[str]:
        source = self.source
        if source is not self._split_from:
            self._split, self._split_from = tuple(split_lines(source, keep_ends=True)), source
        return self._split


class DocumentsWorkspace(Workspace):
    """pygls's workspace, making Documents."""

    def _create_text_document(
        self, doc_uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None
    ) -> TextDocument:
        return Document(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


def use_documents(workspace: Workspace) -> None:
    """Make the workspace pygls created (at `initialize`, before any document opens) make Documents."""
    workspace.__class__ = DocumentsWorkspace


def editor_units(document: TextDocument, start: ServerTextPosition, end: ServerTextPosition) -> types.Range:
    """A range of the document (0-based, in characters) in the editor's units. An ASCII line is
    counted the same in every unit: pygls's conversion counts each character's units one by one,
    which for an outline of 40,000 symbols took most of a second."""
    return types.Range(start=client_position(document, start), end=client_position(document, end))


def client_position(document: TextDocument, position: ServerTextPosition) -> types.Position:
    lines = document.lines
    if position.line < len(lines):
        before = lines[position.line][: position.character]
        if before.isascii():
            return types.Position(line=position.line, character=len(before))
    return document.position_to_client_units(position)
