"""`for step in progress(range(500)):` shows a progress bar with the rate and the time left, drawn
by tqdm (DG's optional extra `progress`: `pip install "dglang[progress]"`).

The bar goes to standard error, so what a program prints (and a lesson's golden output) stays
the same; in a notebook it is the cell's stderr stream, which Jupyter redraws in place. What it
writes counts toward the program's output limit, as a print does. Without tqdm the loop runs the
same and one plain line says, at its end, how many items took how long.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.host.session import Session
from dglang.interpreter.library.extras import install_command
from dglang.interpreter.library.runtime import Loopable, iterate


class BarStream:
    """Where the bar writes: the session's standard error, counted against its output limit."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.encoding = getattr(session.err, "encoding", None) or "utf-8"  # tqdm draws with blocks where it may

    def write(self, text: str) -> int:
        self.session.write(text, self.session.err)
        return len(text)

    def flush(self) -> None:
        self.session.err.flush()


class Progress(Loopable):
    """What progress(items) gives: the same items, with a bar drawn as the loop takes them."""

    def __init__(self, session: Session, items: Any, total: int | None, desc: str | None) -> None:
        self.session, self.values, self.desc = session, iterate(items), desc
        self.total = total if total is not None else length(items)

    def items(self) -> Iterator[Any]:
        try:
            from tqdm import tqdm
        except ImportError:
            return self.plain()
        bar = tqdm(self.values, total=self.total, desc=self.desc, file=BarStream(self.session), disable=False)
        return iter(bar)  # tqdm closes the bar when the loop ends or breaks

    def plain(self) -> Iterator[Any]:
        start, count = time.perf_counter(), 0
        for item in self.values:
            count += 1
            yield item
        seconds = time.perf_counter() - start
        label = f"{self.desc}: " if self.desc else "progress: "
        line = f"{label}{count} items in {seconds:.1f} s (for a progress bar: {install_command('progress')})\n"
        self.session.write(line, self.session.err)


def length(items: Any) -> int | None:
    if isinstance(items, Tensor):
        return items.shape[0] if items.ndim else None
    return len(items) if isinstance(items, range | list | tuple | str | dict) else None


def progress(session: Session, items: Any, total: Any = None, desc: Any = None) -> Progress:
    """progress(items, total=None, desc=None) of a program of `session`."""
    if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 0):
        raise DGError("TypeError", "progress()'s total is a count of items, an int of at least 0")
    return Progress(session, items, total, None if desc is None else str(desc))
