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
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # a name holding them would move a terminal's cursor


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
    those bytes, and control characters, as escapes: b'r\\xe9sum\\xe9.dg' is shown `r\\xe9sum\\xe9.dg`."""
    if SURROGATE.search(name):
        try:
            name = os.fsencode(name).decode("utf-8", "backslashreplace")
        except UnicodeError:  # a surrogate that no byte of the file system made
            name = escaped(name)
    return CONTROL.sub(lambda c: f"\\x{ord(c[0]):02x}", name)
