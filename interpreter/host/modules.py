"""The modules of a session: each found and compiled once, run once, in a scope of its own.

`import nn` is settled in two steps, as the pipeline settles everything else:

- before the program runs, the linker (semantics/linking.py) asks `find`: the file is found and
  read (module_files.py), then compiled as any program is (Session.compile: parsed, resolved,
  linked, so the module's own imports are found first: this recursion walks the whole import
  graph, and a module met again on the way is an import cycle). The result, a ModuleInterface,
  is kept by file for the session: a module imported twice is compiled once.
- when the `import` statement runs, `load` runs the module's top level the first time, in a new
  scope whose parent is the builtins (not the importer's globals: a module sees only its own
  names), under the run's own limits; later imports get the same Module. A module that stops with
  an error is not kept, as Python forgets it, so the next import runs it again.

An error in a module is located in the module's own file, and the DG call stack shows the import
that led there (`<module nn>` is the frame of a module's top level), whether the error is found
while compiling (a syntax error, a missing name, a cycle) or while running.

The REPL's `:reload nn` forgets the module and runs its file again (`reload`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from dglang.interpreter.diagnostics.errors import CallFrame, DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.library.runtime import Env, Module
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics.context import ModuleInterface, RunContext
from dglang.interpreter.semantics.evaluator import Program

from .module_files import Folder, ModuleFile, find_module_file, read

MAX_IMPORT_DEPTH = 100  # modules importing modules importing ...: a chain longer than this is refused


class Host(Protocol):
    """What the modules need of the session that imports them (session.py's Session)."""

    base_dir: Path
    builtins: Env
    context: RunContext

    def compile_source(self, source: Source, echo: bool = False) -> Program: ...


class Modules:
    """What `import` finds in one session: the library path, and the modules compiled and run.

    library   the folders of the library path, after the importer's own (module_files.py)
    aliases   names that mean a given file to the sealed texts: `submission` under `dg grade`
              (whose names are checked where used: ModuleInterface.checked). Other texts import
              as under `dg`: a student's `main.dg` that imports its own `submission.dg` gets that
              file, not itself (which would be a cycle)
    sealed    names of texts whose imports look only at the aliases and the library path, never in
              a folder of their own (a tests file under `dg grade`: a submission's files cannot
              stand in for the course's modules)
    files     the file a text (by name) was read from, where its name does not say (the language
              server's documents); its imports are looked for in that file's folder
    """

    def __init__(self, session: Host) -> None:
        self.session = session
        self.library: list[Folder] = []
        self.aliases: dict[str, Path] = {}
        self.sealed: set[str] = set()
        self.files: dict[str, Path] = {}  # texts by name: the file each was read from, when a front end knows
        self.compiled: dict[Path, ModuleInterface] = {}
        self.loaded: dict[Path, Module] = {}
        self.folders: dict[Source, Folder] = {}  # each module's text: its own folder
        self.compiling: list[tuple[Path, CallFrame]] = []  # the chain of imports being compiled
        self.stamps: dict[Path, tuple[int, int]] = {}  # each compiled file's modification time and size

    # ---- before the run: finding and compiling ---------------------------------------------------
    def find(self, imported: ast.ImportedName) -> ModuleInterface:
        """The module `imported` names, compiled (once per session); a located error otherwise."""
        at = imported.span
        module = self.locate(imported)
        known = self.compiled.get(module.file)
        if known is not None:
            return known
        self.check_cycle(module, at)
        if len(self.compiling) >= MAX_IMPORT_DEPTH:
            raise DGError("ImportError", f"modules import each other more than {MAX_IMPORT_DEPTH} deep", at)
        frame = CallFrame(f"<module {module.name}>", at, self.compiling[-1][1] if self.compiling else None)
        with self.importing(module.file, frame):
            interface = self.compile(module, read(module, at), frame)
        self.compiled[module.file] = interface
        self.stamps[module.file] = stamp(module.file)
        return interface

    def forget_changed(self) -> None:
        """Forget every module compiled, if any of their files changed since (the language server,
        which reads the files again as they are edited; a run keeps what it imported)."""
        if any(stamp(file) != seen for file, seen in self.stamps.items()):
            self.compiled.clear()
            self.loaded.clear()
            self.stamps.clear()

    def locate(self, imported: ast.ImportedName) -> ModuleFile:
        at = imported.span
        alias = self.aliases.get(imported.name) if self.is_sealed(at.source) else None
        if alias is not None:
            return ModuleFile(imported.name, alias, alias.name, Folder(alias.parent, ""))
        return find_module_file(imported.name, at, self.folder_of(at.source), self.library, self.roots())

    def compile(self, module: ModuleFile, text: str, frame: CallFrame) -> ModuleInterface:
        """Compile a module's text with the session, its imports looked for in its own folder."""
        source = Source(module.display, text, module.name)
        self.folders[source] = module.folder
        try:
            program = self.session.compile_source(source)
        except DGError as e:
            e.frames = (frame, *e.frames)  # the import that led here, outermost first
            raise
        names, checked = program.resolution.top_names, module.file not in self.aliases.values()  # see ModuleInterface
        return ModuleInterface(module.name, module.display, module.file, names, program.code, checked)

    def check_cycle(self, module: ModuleFile, at: Span) -> None:
        """An import of a module whose compiling led here (or of the program itself) is a cycle."""
        if self.compiling:
            chain = [path for path, _ in self.compiling]
        else:
            own = self.file_of(at.source)
            chain = [own] if own is not None else []
        if module.file not in chain:
            return
        names = [self.name_of(path) for path in chain[chain.index(module.file) :]]
        raise DGError(
            "ImportError",
            f"import cycle: {names[0]} imports " + ", which imports ".join([*names[1:], module.name]),
            at,
            help="a module cannot import a module that imports it; move what both use into a third module",
        )

    @contextmanager
    def importing(self, file: Path, frame: CallFrame) -> Iterator[None]:
        self.compiling.append((file, frame))
        try:
            yield
        finally:
            self.compiling.pop()

    def folder_of(self, source: Source) -> Folder | None:
        """Where the imports of the text `source` are looked for first."""
        if source in self.folders:
            return self.folders[source]
        if self.is_sealed(source):
            return None
        file = self.file_of(source)
        if file is not None:
            return Folder(file.parent, os.path.dirname(source.name))
        return Folder(self.session.base_dir.resolve(), "")

    def is_sealed(self, source: Source) -> bool:
        """A sealed text (see Modules), not a module of the same name read from a folder."""
        return source not in self.folders and source.name in self.sealed

    def file_of(self, source: Source) -> Path | None:
        """The file a program's text was read from: the one a front end named (`files`), or the
        one its name is a path to (`dg FILE`, `:load FILE`)."""
        if source.name in self.files:
            return self.files[source.name]
        try:
            path = Path(source.name)
            return path.resolve() if path.suffix == ".dg" and path.is_file() else None
        except (OSError, RuntimeError, ValueError):
            return None

    def roots(self) -> list[Path]:
        """The folders a module's file may lie under: the program's, and the library path's."""
        return [self.session.base_dir.resolve(), *(f.path for f in self.library)]

    def name_of(self, file: Path) -> str:
        for path, frame in self.compiling:
            if path == file:
                return frame.function.removeprefix("<module ").removesuffix(">")
        return file.stem

    # ---- while the program runs ----------------------------------------------------------------
    def load(self, module: ModuleInterface, at: Span | None) -> Module:
        """The module, run the first time it is imported in this session."""
        loaded = self.loaded.get(module.file)
        if loaded is not None:
            return loaded
        frames = self.session.context.frames
        if at is not None:
            frames.append(CallFrame(f"<module {module.name}>", at, frames[-1] if frames else None))
        try:
            env = Env({}, self.session.builtins)
            module.code(env)
        finally:
            if at is not None:
                frames.pop()
        loaded = self.loaded[module.file] = Module(module.name, module.display, env)
        return loaded

    def run_alias(self, name: str) -> Module:
        """Compile and run the module an alias names, as if imported, but with no import to show in
        its errors' call stack: the submission under `dg grade`, run before the tests file."""
        file = self.aliases[name]
        module = ModuleFile(name, file, file.name, Folder(file.parent, ""))
        at = Span(Source(f"<{name}>", ""), 1, 1, 1, 1)
        frame = CallFrame(f"<module {name}>", at)
        try:
            with self.importing(file, frame):
                interface = self.compile(module, read(module, at), frame)
        except DGError as e:
            e.frames = e.frames[1:]
            raise
        self.compiled[file] = interface
        return self.load(interface, None)

    def stand_in(self, name: str) -> None:
        """Let the sealed texts import `name` before its file exists: a module that binds nothing, whose
        names are checked where used (a tests file checked before any submission is graded)."""
        file = Path(f"<{name}>")
        self.aliases[name] = file
        self.compiled[file] = ModuleInterface(name, f"{name}.dg", file, frozenset(), lambda env: None, checked=False)

    def loaded_module(self, name: str) -> Module | None:
        """The module imported under `name` in this session, if it ran."""
        return next((m for m in self.loaded.values() if m.name == name), None)

    def reload(self, name: str) -> tuple[Module, Module]:
        """`:reload nn`: read the module's file again and run it; (the old module, the new one)."""
        old = self.loaded_module(name)
        file = next((f for f, m in self.loaded.items() if m is old), None)
        if old is None or file is None:
            imported = sorted(m.name for m in self.loaded.values())
            help = f"imported so far: {', '.join(imported)}" if imported else "import it first: import " + name
            raise DGError("CommandError", f"no module '{name}' has been imported", help=help)
        interface = self.compiled[file]
        del self.compiled[file], self.loaded[file]
        folder = next((f for s, f in self.folders.items() if s.name == interface.display), Folder(file.parent, ""))
        module = ModuleFile(name, file, interface.display, folder)
        at = Span(Source(f"<:reload {name}>", ""), 1, 1, 1, 1)
        frame = CallFrame(f"<module {name}>", at)
        try:
            with self.importing(file, frame):
                fresh = self.compile(module, read(module, at), frame)
        except DGError as e:
            e.frames = e.frames[1:]  # no import led here: the reload did
            self.compiled[file], self.loaded[file] = interface, old  # the old one stays until one works
            raise
        self.compiled[file] = fresh
        return old, self.load(fresh, None)


def stamp(file: Path) -> tuple[int, int]:
    """A file's modification time and size (-1s when it is gone)."""
    try:
        found = file.stat()
    except OSError:
        return -1, -1
    return found.st_mtime_ns, found.st_size
