"""An editor for `dg lsp`'s tests: the server runs as `python -m dglang.interpreter lsp` in a process
of its own, and pygls's LanguageClient talks to it through a pipe as an editor would."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

URI = "file:///work/lesson.dg"
TIMEOUT = 60.0  # seconds for a whole conversation: the server imports numpy and lark on start


class Editor:
    """What an editor does: open documents, change them, ask; and what it hears back."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.published = asyncio.Event()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.published.set()

    async def open(self, text: str, uri: str = URI) -> list[types.Diagnostic]:
        self.published.clear()
        item = types.TextDocumentItem(uri=uri, language_id="dg", version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        await asyncio.wait_for(self.published.wait(), TIMEOUT)
        return list(self.diagnostics[uri])

    async def change(self, text: str, version: int, uri: str = URI) -> list[types.Diagnostic]:
        self.published.clear()
        document = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
        whole = types.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(text_document=document, content_changes=[whole])
        )
        await asyncio.wait_for(self.published.wait(), TIMEOUT)
        return list(self.diagnostics[uri])


def at(line: int, character: int) -> dict:
    return {"text_document": types.TextDocumentIdentifier(uri=URI), "position": types.Position(line, character)}


SERVER = ["-m", "dglang.interpreter", "lsp", "--stdio"]  # python's arguments


def talk(
    conversation: Callable[[Editor], Awaitable[None]], timeout: float = TIMEOUT, server: list[str] = SERVER
) -> None:
    """Start `dg lsp` (or another server: python's arguments), initialize, hold the conversation, shut
    the server down as an editor does."""

    async def run() -> None:
        client = LanguageClient("test", "1")
        editor = Editor(client)
        await client.start_io(sys.executable, *server)
        try:
            await client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None)
            )
            client.initialized(types.InitializedParams())
            await conversation(editor)
        finally:  # a failed assertion too: the server is asked to leave, as an editor closing does
            await client.shutdown_async(None)
            client.exit(None)
            await client.stop()

    asyncio.run(asyncio.wait_for(run(), timeout))
