"""The REPL at a keyboard: prompt_toolkit wired to the decisions in repl.py.

prompt_toolkit does the editing, history, completion menu and colouring; everything it asks
("is this input complete?", "what completes this word?") is answered by plain functions that the
tests call directly, and the colours come from DG's Pygments lexer (highlighting.py).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.lexers import PygmentsLexer
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from dglang.interpreter.diagnostics.errors import DGError

from .cells import INDENT, Completeness, next_indent
from .completion import completions
from .highlighting import DGLexer
from .repl import Outcome, Repl

# Colours for the token kinds of DG's Pygments lexer (highlighting.py), in the terminal's own
# palette, so they follow its light or dark theme. A kind without an entry keeps the default colour.
LEXER = PygmentsLexer(DGLexer)
STYLE = Style.from_dict(
    {
        "pygments.keyword": "ansimagenta bold",
        "pygments.operator.word": "ansimagenta bold",
        "pygments.name.builtin": "ansicyan",
        "pygments.literal.number": "ansiyellow",
        "pygments.literal.string": "ansigreen",
        "pygments.literal.string.interpol": "ansigreen bold",
        "pygments.literal.string.escape": "ansigreen bold",
        "pygments.comment": "ansibrightblack italic",
        "pygments.error": "ansired",
    }
)


def history_file() -> Path:
    """Where the history lives: $XDG_STATE_HOME/dg/history, else ~/.local/state/dg/history."""
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "dg" / "history"


def open_history() -> History:
    """The history file, or a history kept in memory when there is no usable file: a read-only
    home, a path that is a folder, a device or a FIFO, a file too large to be a history."""
    path = history_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        if path.is_file() and path.stat().st_size <= MAX_HISTORY:
            return KeptHistory(str(path))
    except OSError:
        pass
    return InMemoryHistory()


MAX_HISTORY = 10_000_000  # bytes: prompt_toolkit reads the whole file when the REPL starts


class KeptHistory(FileHistory):
    """prompt_toolkit's FileHistory, which reads and appends from its own threads: a file that
    becomes unreadable or unwritable while the REPL runs costs the history, never the session."""

    def load_history_strings(self) -> Iterable[str]:
        try:
            return list(super().load_history_strings())
        except OSError:
            return []

    def store_string(self, string: str) -> None:
        with contextlib.suppress(OSError):
            super().store_string(string)


# ---- completion ----------------------------------------------------------------------------
class DGCompleter(Completer):
    """The menu lists each candidate with its one-line summary beside it."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        for c in completions(document.text_before_cursor, self.repl.env, self.repl.commands):
            yield Completion(c.text, start_position=c.start, display_meta=c.meta)


# ---- the prompt ---------------------------------------------------------------------------
def keys_ahead(event: KeyPressEvent) -> str | None:
    """The text of the keys already sent after this one (a paste arriving as keys), or None. The
    key processor holds those read so far; a line still on its way is read now (without waiting)."""
    processor = event.app.key_processor
    waiting = list(processor.input_queue)
    if not any(key.key in (Keys.ControlM, Keys.ControlJ) for key in waiting):
        more = event.app.input.read_keys()
        processor.feed_multiple(more)
        waiting += more
    return "".join(key.data for key in waiting) if waiting else None


def block_goes_on(line: str, ahead: str | None) -> bool:
    """Is this blank line inside a block, because the line already sent after it is indented?"""
    if ahead is None or line.strip():
        return False
    following = ahead.replace("\r", "\n").split("\n", 1)[0]
    return following[:1] in (" ", "\t") and bool(following.strip())


@dataclass
class AutomaticIndent:
    """The indentation Enter put at the start of the line being typed, and where it ends."""

    at: int | None = None
    indent: str = ""


def key_bindings(cells: Completeness) -> KeyBindings:
    """Enter runs a complete cell or starts the next line, indented for it; a space typed where
    Enter indented the line replaces that indentation with the person's own; Backspace in the
    indentation goes back one level; a paste is inserted as it is and runs if it ends complete.
    A paste the terminal sends as keys (no bracketed paste) carries its own indentation: while
    keys are already waiting, Enter indents nothing, and a blank line is the block's when the
    next line is indented, so the paste runs as its lines read."""
    bindings = KeyBindings()
    automatic = AutomaticIndent()

    def new_line(event: KeyPressEvent, indented: bool = True) -> None:
        buffer = event.current_buffer
        at_end = buffer.cursor_position == len(buffer.text)
        indent = cells.next_indent(buffer.text) if at_end else next_indent(buffer.document.text_before_cursor)
        indent = indent if indented else ""
        buffer.insert_text("\n" + indent)
        automatic.at, automatic.indent = (buffer.cursor_position, indent) if indent else (None, "")

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state and buffer.complete_state.current_completion:
            buffer.apply_completion(buffer.complete_state.current_completion)
            return
        ahead = keys_ahead(event)
        if not buffer.document.on_last_line:  # inside a recalled block, as in IPython: a new line there
            new_line(event, indented=ahead is None)
        elif cells.is_complete(buffer.text) and not block_goes_on(buffer.document.current_line, ahead):
            buffer.validate_and_handle()
        else:
            new_line(event, indented=ahead is None)

    @Condition
    def at_automatic_indent() -> bool:
        from prompt_toolkit.application import get_app

        buffer = get_app().current_buffer
        line = buffer.document
        return (
            automatic.at == buffer.cursor_position
            and line.current_line_before_cursor == automatic.indent
            and not line.current_line_after_cursor
        )

    @bindings.add(" ", filter=at_automatic_indent)
    def _own_indent(event: KeyPressEvent) -> None:
        event.current_buffer.delete_before_cursor(len(automatic.indent))
        event.current_buffer.insert_text(" ")
        automatic.at = None

    @Condition
    def in_indentation() -> bool:
        from prompt_toolkit.application import get_app

        before = get_app().current_buffer.document.current_line_before_cursor
        return bool(before) and not before.strip(" ")

    @bindings.add("backspace", filter=in_indentation)
    def _dedent(event: KeyPressEvent) -> None:
        before = event.current_buffer.document.current_line_before_cursor
        event.current_buffer.delete_before_cursor(len(before) % len(INDENT) or len(INDENT))

    @Condition
    def at_line_start() -> bool:
        from prompt_toolkit.application import get_app

        return not get_app().current_buffer.document.current_line_before_cursor.strip(" ")

    @bindings.add("tab", filter=at_line_start)
    def _indent(event: KeyPressEvent) -> None:  # (after a name, Tab completes it)
        before = event.current_buffer.document.current_line_before_cursor
        event.current_buffer.insert_text(" " * (len(INDENT) - len(before) % len(INDENT)))

    @bindings.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        data = event.data.replace("\r\n", "\n").replace("\r", "\n")
        buffer.insert_text(data)
        if not data.endswith("\n"):
            return
        if cells.is_complete(buffer.text):
            buffer.delete_before_cursor(1)  # the paste's last newline was its Enter
            buffer.validate_and_handle()
        else:
            buffer.insert_text(cells.next_indent(buffer.text[:-1]) if buffer.text[:-1] else "")

    return bindings


def interact(repl: Repl, input: Input | None = None, output: Output | None = None) -> Outcome:
    """Read, run and print until :quit or Ctrl-D; Ctrl-C clears the line. Returns how it ended."""
    session: PromptSession[str] = PromptSession(
        multiline=True,
        key_bindings=key_bindings(Completeness()),
        lexer=LEXER,
        completer=DGCompleter(repl),
        complete_while_typing=False,
        history=open_history() if input is None else InMemoryHistory(),
        style=STYLE,
        include_default_pygments_style=False,
        prompt_continuation=lambda width, line_number, wrap_count: "." * (width - 1) + " ",
        input=input,
        output=output,
    )
    while True:
        try:
            text = session.prompt(repl.prompt)
        except KeyboardInterrupt:
            continue  # Ctrl-C at the prompt clears the line
        except EOFError:  # Ctrl-D on an empty line
            return repl.end_of_input()
        try:
            outcome = repl.run_cell(text)
        except KeyboardInterrupt:  # between statements (compiling, echoing): no statement could locate it
            repl.report(DGError("KeyboardInterrupt", "interrupted"))
            continue
        if outcome in (Outcome.QUIT, Outcome.CONTINUE):
            return outcome
