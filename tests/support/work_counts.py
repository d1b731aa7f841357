"""The work a reading of a text does, counted rather than timed: the characters lark's lexers read
(every token, the ignored ones too, passes once through a lexer's line counter) and the tokens lark's
parsers are fed. A reading linear in the text does a bounded amount of each per character, on a busy
machine as on an idle one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lark.lexer import LineCounter
from lark.parsers.lalr_parser_state import ParserState

COUNTS: Counter[str] = Counter()


def install() -> None:
    """Count from now on, in COUNTS, for the rest of the process (a language server's)."""
    feed, feed_token = LineCounter.feed, ParserState.feed_token

    def counted_feed(self: LineCounter, token: Any, test_newline: bool = True) -> None:
        COUNTS["characters lexed"] += len(token)
        feed(self, token, test_newline)

    def counted_feed_token(self: ParserState, token: Any, is_end: bool = False) -> Any:
        COUNTS["tokens parsed"] += 1
        return feed_token(self, token, is_end)

    LineCounter.feed = counted_feed  # type: ignore[method-assign]
    ParserState.feed_token = counted_feed_token  # type: ignore[method-assign]


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count what is done while this lasts."""
    feed, feed_token = LineCounter.feed, ParserState.feed_token
    install()
    COUNTS.clear()
    try:
        yield COUNTS
    finally:
        LineCounter.feed, ParserState.feed_token = feed, feed_token  # type: ignore[method-assign]
