"""Parsed programs kept between runs, as Python keeps compiled modules in __pycache__.

`dg FILE` looks here before parsing: when the file has not changed since an earlier run, its AST
comes back from the cache and lark is never imported (importing lark and building its lexer is
most of DG's start-up beyond NumPy's). An entry is found by a hash of everything the AST depends
on: DG's version, the grammar and the code that turns text into the AST, and the program's name
and text; editing any of them can never bring back a stale tree.

The cache is a folder of pickles in $XDG_CACHE_HOME/dg/ast (normally ~/.cache/dg/ast), written by
DG itself and read only by DG; `DG_CACHE=off` turns it off. Reading or writing it never fails a
run: anything wrong with an entry (missing, unreadable, from another version) means parsing as
usual, and a folder that cannot be written is simply not used.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from . import __version__
from .ast import Module
from .source import Source

HERE = Path(__file__).resolve().parent
# Everything that decides what AST a text becomes.
AST_MAKERS = (HERE.parent / "grammar" / "dg.lark", HERE / "ast.py", HERE / "build_ast.py", HERE / "parser.py")


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
    digest = hashlib.sha256(__version__.encode())
    for maker in AST_MAKERS:
        digest.update(maker.read_bytes())
    digest.update(f"\0{source.name}\0".encode())
    digest.update(source.text.encode())
    return place / f"{digest.hexdigest()}.pickle"


def parse(source: Source) -> Module:
    """The program's AST: from the cache when it is there, else parsed (and then kept)."""
    path = entry(source)
    if path is not None:
        try:
            with path.open("rb") as f:
                module = pickle.load(f)
            if isinstance(module, Module):
                return module
        except Exception:  # missing, half-written by a crash, or unreadable: parse instead
            pass
    module = parse_now(source)  # a syntax error raises here, so only good programs are kept
    if path is not None:
        keep(path, module)
    return module


def parse_now(source: Source) -> Module:
    """Parse with lark, which is imported here, on first use, rather than when DG starts."""
    from .parser import parse as parse_text

    return parse_text(source)


def keep(path: Path, module: Module) -> None:
    """Write an entry atomically (a run reading it meanwhile sees the whole entry or none)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return  # a folder DG may not write: run without the cache
    try:
        with os.fdopen(handle, "wb") as f:
            pickle.dump(module, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except Exception:  # a full disk, or a tree nested too deeply for pickle: keep nothing
        with contextlib.suppress(OSError):
            os.unlink(temporary)
