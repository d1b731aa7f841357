"""Which file `import nn` means, and reading it: the search path and the sandbox's rules for modules.

`import nn` looks for `nn.dg` in the folder of the file that imports it, then in each folder of
the library path, in order: `dg --lib DIR` (repeatable), then the folders of the environment
variable DG_LIB (separated like PATH: ':' on Linux and macOS, ';' on Windows). The first found is
the module. A module is only ever a `.dg` file, read as DG text and run by DG's own evaluator:

- its name is one plain name (no dots, no `..`: a module cannot name a path that climbs out);
- the file, once symbolic links are followed, lies under the folder it was found in, or under
  one of the folders DG may read modules from (the program's and the library path's): a link
  cannot lead out of them;
- it is a regular file of at most MAX_PROGRAM_BYTES, in UTF-8, as a program is.

Nothing else a folder holds is ever read for an import: a `numpy.py` or a compiled `.pyc` beside
the program is only mentioned in the error that says DG imports `.dg` files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Span, program_text

from .limits import MAX_PROGRAM_BYTES

LIBRARY_VARIABLE = "DG_LIB"


class Folder(NamedTuple):
    """A folder modules are looked for in: where it is, and how messages write it."""

    path: Path  # links followed
    shown: str  # as the user wrote it ("", "lessons", "../lib"): a module in it is shown as shown/nn.dg

    def display(self, file_name: str) -> str:
        return os.path.join(self.shown, file_name) if self.shown else file_name


def library_folders(given: Iterable[str | Path], environment: str | None = None) -> list[Folder]:
    """The library path: the folders given (`--lib`), then those of DG_LIB; each must exist."""
    found: list[Folder] = []
    variable = os.environ.get(LIBRARY_VARIABLE, "") if environment is None else environment
    for entry in [*given, *(e for e in variable.split(os.pathsep) if e)]:
        try:
            path = Path(entry).expanduser().resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if path.is_dir() and all(f.path != path for f in found):
            found.append(Folder(path, str(entry)))
    return found


class ModuleFile(NamedTuple):
    """A module's file, found (`read` gives its text)."""

    name: str
    file: Path  # links followed
    display: str  # as messages name it
    folder: Folder  # where its own imports are looked for first


def find_module_file(
    name: str, at: Span, own: Folder | None, library: Sequence[Folder], roots: Sequence[Path]
) -> ModuleFile:
    """The file of the module `name` imported at `at` by a text in the folder `own` (None: a text
    whose own folder is not searched, as a tests file under `dg grade`); a located ImportError says
    why there is none. `roots` are the folders a module's file may lie under (links followed)."""
    check_name(name, at)
    folders = ([own] if own is not None else []) + [f for f in library if own is None or f.path != own.path]
    for folder in folders:
        candidate = folder.path / f"{name}.dg"
        try:
            if not candidate.exists() and not candidate.is_symlink():
                continue
            file = candidate.resolve()
        except (OSError, RuntimeError):  # a link to itself, a name too long
            raise refused(name, at, f"{folder.display(name + '.dg')} cannot be followed") from None
        shown = folder.display(f"{name}.dg")
        if not any(file.is_relative_to(root) for root in [folder.path, *roots]):
            from dglang.interpreter.semantics.hints import MODULE_FILES  # (the hints load at the first error)

            raise refused(
                name, at, f"{shown} is a link that leads outside the folders DG reads modules from", MODULE_FILES
            )
        return ModuleFile(name, file, shown, Folder(file.parent, os.path.dirname(shown)))
    raise missing(name, at, folders)


def check_name(name: str, at: Span) -> None:
    """A module is named by one plain name: `nn`, not `torch.nn` or `..nn`."""
    if name.startswith("."):
        climbs = name.startswith("..")
        raise DGError(
            "ImportError",
            f"'{name}' {'climbs out of' if climbs else 'is relative to'} the program's folder",
            at,
            help="DG finds nn.dg by its name alone: write `from nn import ...`, and keep the module beside the "
            "program or in a folder of the library path (--lib DIR, DG_LIB)",
        )
    if "." in name:
        from dglang.interpreter.semantics.hints import python_module

        help = python_module(name) or (
            f"a module is one .dg file, named by one name: put {name.replace('.', '/')}.dg's folder on the "
            f"library path (--lib DIR) and write `import {name.split('.')[-1]}`"
        )
        raise DGError("ImportError", f"no module named '{name}' in DG", at, help=help)


def missing(name: str, at: Span, folders: Sequence[Folder]) -> DGError:
    from dglang.interpreter.semantics.hints import python_module

    python_file = next((f.display(name + ".py") for f in folders if (f.path / f"{name}.py").is_file()), None)
    if python_file is not None:
        help = f"{python_file} is Python; DG runs only DG programs: write the module in DG as {name}.dg"
    else:
        here = Path.cwd().resolve()  # (the REPL's program is there)
        unnamed = ["the current folder" if f.path == here else "the program's folder" for f in folders]
        places = [f"'{f.shown}'" if f.shown else where for f, where in zip(folders, unnamed, strict=True)]
        looked = ", ".join(places[:-1]) + " and " + places[-1] if len(places) > 1 else "".join(places)
        where = f"DG looked for {name}.dg in {looked or 'the library path only'}"
        help = python_module(name) or f"{where}; put it there, or its folder on the library path (--lib DIR, DG_LIB)"
    return DGError("ImportError", f"no module named '{name}'", at, help=help)


def refused(name: str, at: Span, why: str, help: str | None = None) -> DGError:
    return DGError("ImportError", f"cannot import {name}: {why}", at, help=help)


def read(module: ModuleFile, at: Span) -> str:
    """The module's text; a located ImportError when it is not a UTF-8 file DG can read."""
    name, file, shown = module.name, module.file, module.display
    try:
        if not file.is_file():
            raise refused(name, at, f"{shown} is not a file")
        with file.open("rb") as f:
            data = f.read(MAX_PROGRAM_BYTES + 1)
    except OSError as e:
        raise refused(name, at, f"{shown} cannot be read ({e.strerror or e})") from None
    if len(data) > MAX_PROGRAM_BYTES:
        raise refused(name, at, f"{shown} is larger than {MAX_PROGRAM_BYTES:,} bytes, the limit for a program")
    try:
        return program_text(data)
    except UnicodeDecodeError:
        raise refused(name, at, f"{shown} is not UTF-8 text", "save it as UTF-8") from None
