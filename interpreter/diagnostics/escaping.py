"""Text that every output can carry: what cannot be encoded is written as an escape, never an error.

A DG string can hold a lone surrogate (`"\\ud800"`, or a byte that was not UTF-8 read through
Python's surrogateescape, as a file name is), which no UTF-8 stream, JSON document or Jupyter
message can carry: writing one raised UnicodeEncodeError, from `dg test`'s summary to the kernel's
output thread. Each output therefore passes its text through `escaped` (terminals and pipes do it
with the error handler "backslashreplace", streams.py), so `print("caf\\udce9")` shows
`caf\\udce9` everywhere, as `dg FILE` always showed it.
"""

from __future__ import annotations

import os
import re
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\udce9`), valid UTF-8 from then on."""
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def escaped_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string escaped, keys included."""
    if isinstance(value, str):
        return escaped(value)
    if isinstance(value, dict):
        return {escaped_data(k): escaped_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escaped_data(v) for v in value]
    return value


def shown_name(name: str) -> str:
    """A file name as the system gave it (its bytes that are not UTF-8 as surrogates), shown with
    those bytes as escapes (b'r\\xe9sum\\xe9.dg' is shown `r\\xe9sum\\xe9.dg`), and every character
    that is not printable too: a control character moves a terminal's cursor, a format character
    (U+202E) turns a table's text around."""
    if SURROGATE.search(name):
        try:
            name = os.fsencode(name).decode("utf-8", "backslashreplace")
        except UnicodeError:  # a surrogate that no byte of the file system made
            name = escaped(name)
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else escape(c) for c in name)


def escape(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
