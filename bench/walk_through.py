"""Which of DG's functions a small program enters, in order: what a student stepping through it
with a debugger meets, and what docs/for-compiler-courses.md's walk-through must name, in the
same order (tests/project/test_walk_through.py holds the two together).

    uv run python bench/walk_through.py              # the seed program below, with --eval reference
    uv run python bench/walk_through.py FILE.dg      # any other
    uv run python bench/walk_through.py --count      # only how many functions, and in how many files

runs `dg --eval reference FILE` in this process with a profiler hook (sys.setprofile) that notes
each function of DG's own (a file under this repository, not .venv/) the first time it is entered,
from the moment the pipeline receives the text (interpreter/pipeline.py's `compile`) to the end of
the run, in the thread that runs the program: everything before is set-up (the command line, the
session and its builtins). Each line is the function's file and its qualified name. The code of a
module or a class body, run once when it is imported, is not a function; nor, here, is a
comprehension or a generator expression, an expression of the function it is written in
(Python 3.11 runs a comprehension as a function of its own, 3.12 inlines it).
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
from contextlib import redirect_stdout
from inspect import CO_OPTIMIZED
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED = """\
x = tensor([1.0, 2.0], requires_grad=True)
y = x * 2
grad y.sum()
print(x.grad)
"""
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")


class Walk:
    """The profiler hook: DG's functions entered once the pipeline has the text, in order."""

    def __init__(self) -> None:
        from dglang.interpreter import pipeline

        self.start: CodeType | None = pipeline.compile.__code__
        self.thread: int | None = None  # the thread the pipeline got the text in
        self.entered: dict[tuple[str, str], None] = {}  # (file, qualified name), in the order first entered
        self.files: dict[str, str | None] = {}  # a code object's file name -> its path in the repository

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code is self.start:
            self.start, self.thread = None, threading.get_ident()
        if self.start is not None or threading.get_ident() != self.thread:
            return
        if not code.co_flags & CO_OPTIMIZED or code.co_name in COMPREHENSIONS:
            return
        path = self.files.get(code.co_filename, ...)
        if path is ...:
            path = self.files[code.co_filename] = project_file(code.co_filename)
        if path is not None:
            self.entered.setdefault((path, code.co_qualname))


def project_file(name: str) -> str | None:
    """The file of DG's own a code object comes from, relative to the repository, or None."""
    try:
        path = Path(name).resolve()
        relative = path.relative_to(ROOT)
    except (OSError, ValueError):
        return None
    return None if ".venv" in path.parts or path.suffix != ".py" else relative.as_posix()


def walk(program: Path) -> list[tuple[str, str]]:
    """(file, function) for each of DG's functions `dg --eval reference PROGRAM` enters, in order."""
    from dglang.interpreter.frontends import cli

    hook = Walk()
    sys.setprofile(hook)
    try:
        with redirect_stdout(io.StringIO()):
            code = cli.main(["--eval", "reference", str(program)])
    finally:
        sys.setprofile(None)
    if code != 0:
        raise SystemExit(f"dg --eval reference {program} exited with {code}")
    return list(hook.entered)


def seed_walk() -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "seed.dg"
        program.write_text(SEED, encoding="utf-8")
        return walk(program)


def main(argv: list[str]) -> None:
    files = [a for a in argv if a != "--count"]
    entered = walk(Path(files[0])) if files else seed_walk()
    if "--count" in argv:
        print(f"{len(entered)} functions in {len({file for file, _ in entered})} files")
        return
    for file, function in entered:
        print(f"{file}  {function}")


if __name__ == "__main__":
    main(sys.argv[1:])
