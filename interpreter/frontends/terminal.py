"""The REPL at a keyboard: prompt_toolkit wired to the decisions in repl.py.

prompt_toolkit does the editing, history, completion menu and colouring; everything it asks
("is this input complete?", "what completes this word?", "what kind of token is this?") is
answered by plain functions that the tests call directly.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from lark import UnexpectedInput
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from dglang.interpreter.core.errors import DGError
from dglang.interpreter.core.parser import SyntaxProblem, tokens

from .repl import KEYWORDS, Outcome, Repl, complete, is_complete, next_indent

STYLE = Style.from_dict(
    {
        "keyword": "ansimagenta bold",
        "builtin": "ansicyan",
        "number": "ansiyellow",
        "string": "ansigreen",
        "comment": "ansibrightblack italic",
    }
)
KEYWORD_TYPES = {k.upper() for k in KEYWORDS}


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


# ---- colouring -----------------------------------------------------------------------------
def highlight(line: str, builtins: Iterable[str] = ()) -> StyleAndTextTuples:
    """Split one line into (style, text) pieces with DG's own lexer; the rest of a line the lexer
    cannot read yet (an unfinished string) keeps going in the string style."""
    names = set(builtins)
    pieces: StyleAndTextTuples = []
    position = 0

    def gap(until: int) -> None:
        text = line[position:until]
        if "#" in text:
            code, _, comment = text.partition("#")
            pieces.append(("", code))
            pieces.append(("class:comment", "#" + comment))
        elif text:
            pieces.append(("", text))

    try:
        for token in tokens(line):
            if token.type in ("_NEWLINE", "_INDENT", "_DEDENT") or token.line != 1:
                continue
            start = token.column - 1
            gap(start)
            pieces.append((token_style(token.type, str(token), names), str(token)))
            position = start + len(token)
    except (UnexpectedInput, SyntaxProblem) as e:
        start = getattr(e, "column", position + 1) - 1
        if start >= position:
            gap(start)
            rest = line[start:]
            pieces.append(("class:string" if rest[:1] in "\"'" else "", rest))
            return pieces
    gap(len(line))
    return pieces


def token_style(kind: str, text: str, builtins: set[str]) -> str:
    if kind in KEYWORD_TYPES:
        return "class:keyword"
    if kind in ("INT", "FLOAT"):
        return "class:number"
    if kind == "STRING":
        return "class:string"
    if kind == "NAME" and text in builtins:
        return "class:builtin"
    return ""


class DGLexer(Lexer):
    def __init__(self, builtins: Callable[[], Iterable[str]]) -> None:
        self.builtins = builtins

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        lines = document.lines
        names = set(self.builtins())
        return lambda number: highlight(lines[number], names) if number < len(lines) else []


# ---- completion ----------------------------------------------------------------------------
class DGCompleter(Completer):
    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        for candidate in complete(before, self.repl.env):
            word = re.search(r":?\w*$" if candidate.startswith(":") else r"\w*$", before)
            yield Completion(candidate, start_position=-len(word.group()) if word else 0)


# ---- the prompt ---------------------------------------------------------------------------
def key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state and buffer.complete_state.current_completion:
            buffer.apply_completion(buffer.complete_state.current_completion)
            return
        if is_complete(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n" + next_indent(buffer.document.text_before_cursor))

    return bindings


def interact(repl: Repl, prompt: str = ">>> ", input: Input | None = None, output: Output | None = None) -> Outcome:
    """Read, run and print until :quit or Ctrl-D; Ctrl-C clears the line. Returns how it ended."""
    session: PromptSession[str] = PromptSession(
        multiline=True,
        key_bindings=key_bindings(),
        lexer=DGLexer(lambda: repl.session.builtins.vars),
        completer=DGCompleter(repl),
        complete_while_typing=False,
        history=open_history() if input is None else InMemoryHistory(),
        style=STYLE,
        prompt_continuation=lambda width, line_number, wrap_count: "." * (width - 1) + " ",
        input=input,
        output=output,
    )
    while True:
        try:
            text = session.prompt(prompt)
        except KeyboardInterrupt:
            continue  # Ctrl-C at the prompt clears the line
        except EOFError:
            return Outcome.CONTINUE if repl.in_debugger else Outcome.QUIT
        try:
            outcome = repl.run_cell(text)
        except KeyboardInterrupt:  # between statements (compiling, echoing): no statement could locate it
            repl.report(DGError("KeyboardInterrupt", "interrupted"))
            continue
        if outcome in (Outcome.QUIT, Outcome.CONTINUE):
            return outcome
