"""A written region of a hand-written file: the lines between a `begin written: NAME` marker and
its `end written: NAME`, which a writer of tools/regenerate.py replaces and nothing else touches.

The markers are comments of the file's own kind (`<!-- ... -->` in Markdown, `# ...` in Python),
so the file reads as before and says which part is written for it.
"""

from __future__ import annotations


def replaced(text: str, name: str, body: str, comment: tuple[str, str]) -> str:
    """`text` with the region `name` holding `body` (lines, each ending in a newline)."""
    opening, closing = comment
    begin = f"{opening} begin written: {name}"
    end = f"{opening} end written: {name}{closing}"
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        raise ValueError(f"no region `{name}`: the file needs a line starting `{begin}` and a line `{end}`")
    after_begin = text.index("\n", start) + 1  # the begin line stays: it may say more after the name
    end_line = text.rfind("\n", 0, stop) + 1  # (with its indentation)
    return text[:after_begin] + body + text[end_line:]
