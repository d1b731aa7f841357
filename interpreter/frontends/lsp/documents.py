"""The text of an open document as the server holds it: pygls's TextDocument, with its lines as
DG's lexer counts them.

pygls splits a document with Python's str.splitlines, which also ends a line at a form feed, "\\v",
"\\x1c"-"\\x1e", "\\x85", U+2028 and U+2029: after a `^L` in a comment every answer (a diagnostic, a
hover, an edit the editor sent) was about the line above. The Language Server Protocol, like DG,
ends lines at "\\n", "\\r\\n" and "\\r" only (diagnostics/source.py's split_lines). pygls also split
the whole text again for each position it converted: an outline of 40,000 symbols split a 1 MB
document 80,000 times. Here the lines are split once per version of the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import ServerTextPosition

from dglang.interpreter.diagnostics.source import split_lines


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
