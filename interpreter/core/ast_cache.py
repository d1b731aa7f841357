"""Parsed programs kept between runs, as Python keeps compiled modules in __pycache__.

`dg FILE` looks here before parsing: when the file has not changed since an earlier run, its AST
comes back from the cache and lark is never imported (importing lark and building its lexer is
most of DG's start-up beyond NumPy's). An entry's file name is a checksum of everything the AST
depends on: DG's version, the grammar and the code that turns text into the AST, and the
program's name and text (two 32-bit checksums of each). The entry also keeps the name and text,
and is used only when they are exactly the program's: an edit never brings back a stale tree.
(zlib's checksums rather than hashlib's: loading OpenSSL would cost a run more than it saves.)

The cache is a folder of pickles in $XDG_CACHE_HOME/dg/ast (normally ~/.cache/dg/ast), written by
DG itself and read only by DG; `DG_CACHE=off` turns it off. Reading or writing it never fails a
run: anything wrong with an entry (missing, unreadable, from another version) means parsing as
usual, and a folder that cannot be written is simply not used.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import zlib
from pathlib import Path

from dglang import __version__

from .ast import Module
from .source import Source

HERE = Path(__file__).resolve().parent
# Everything that decides what AST a text becomes.
AST_MAKERS = (
    HERE.parents[1] / "grammar" / "dg.lark",
    *(HERE / name for name in ("ast.py", "build_ast.py", "grammar.py", "indenter.py", "parser.py")),
)


def folder() -> Path | None:
    """Where entries live, or None when the cache is turned off."""
    if os.environ.get("DG_CACHE", "").lower() in ("off", "0", "no", "false"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dg" / "ast"


def entry(source: Source) -> Path | None:
    place = folder()
    if place is None:
        return None
    makers = __version__.encode() + b"".join(maker.read_bytes() for maker in AST_MAKERS)
    program = f"{source.name}\0{source.text}".encode()
    checksums = (zlib.crc32(makers), zlib.adler32(makers), zlib.crc32(program), zlib.adler32(program))
    return place / ("".join(f"{c:08x}" for c in checksums) + ".pickle")


def parse(source: Source) -> Module:
    """The program's AST: from the cache when it is there, else parsed (and then kept)."""
    path = entry(source)
    if path is not None:
        try:
            with path.open("rb") as f:
                name, text, module = pickle.load(f)
            if name == source.name and text == source.text and isinstance(module, Module):
                return module
        except Exception:  # missing, half-written by a crash, or unreadable: parse instead
            pass
    module = parse_now(source)  # a syntax error raises here, so only good programs are kept
    if path is not None:
        keep(path, (source.name, source.text, module))
    return module


def parse_now(source: Source) -> Module:
    """Parse with lark, which is imported here, on first use, rather than when DG starts."""
    from .parser import parse as parse_text

    return parse_text(source)


def keep(path: Path, content: tuple[str, str, Module]) -> None:
    """Write an entry atomically (a run reading it meanwhile sees the whole entry or none)."""
    import tempfile  # only when writing, which a re-run of an unchanged file never does

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return  # a folder DG may not write: run without the cache
    try:
        with os.fdopen(handle, "wb") as f:
            pickle.dump(content, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except Exception:  # a full disk, or a tree nested too deeply for pickle: keep nothing
        with contextlib.suppress(OSError):
            os.unlink(temporary)
