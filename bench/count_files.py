"""How many of DG's own files a run of a small program enters: what a student stepping through it
with a debugger would walk through (docs/for-compiler-courses.md gives today's numbers).

    uv run python bench/count_files.py            # the seed program below
    uv run python bench/count_files.py FILE.dg    # any other
    uv run python bench/count_files.py --list     # the files too, in the order they are entered

runs `dg FILE` in this process, with a profiler hook (sys.setprofile, and threading.setprofile
for the watchdog's thread) that notes the file of every function called, and prints two counts
of DG's files (anything under this repository but .venv/):
- outside the command-line front end (interpreter/frontends/), set-up included: everything
  `dg FILE` does after the command line is read, until the program has ended;
- from the moment the pipeline receives the text (interpreter/pipeline.py's `compile`) to the
  end of the run, front ends included (none is entered then), in the thread that runs the
  program: what a debugger stepping through it walks through. (The watchdog's thread wakes on a
  clock, so what it enters while the program runs depends on how long that takes: counted with
  the set-up, which starts it, not here.)
The code of a module or a class body, run once when it is imported, is not a function and is
not counted.
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
from contextlib import redirect_stdout
from inspect import CO_OPTIMIZED
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEED = """\
x = tensor([1.0, 2.0], requires_grad=True)
y = x * 2
grad y.sum()
print(x.grad)
"""
FRONT_ENDS = ROOT / "interpreter" / "frontends"


class Counter:
    """The profiler hook: DG's files entered, in order, before and after the pipeline got the text."""

    def __init__(self) -> None:
        from dglang.interpreter import pipeline

        self.start = pipeline.compile.__code__
        self.entered: dict[Path, None] = {}  # every file, in the order first entered
        self.after: dict[Path, None] = {}  # those entered once the pipeline had the text, in its thread
        self.thread: int | None = None  # the thread the pipeline got the text in
        self.known: dict[str, Path | None] = {}

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code is self.start:
            self.after.setdefault(ROOT / "interpreter" / "pipeline.py")
            self.start = None  # type: ignore[assignment]  # counting from here on
            self.thread = threading.get_ident()
        if not code.co_flags & CO_OPTIMIZED:  # a module's or a class's own body, run once when imported
            return
        path = self.known.get(code.co_filename, ...)
        if path is ...:
            path = self.known[code.co_filename] = project_file(code.co_filename)
        if path is not None:
            self.entered.setdefault(path)
            if self.start is None and threading.get_ident() == self.thread:
                self.after.setdefault(path)


def project_file(name: str) -> Path | None:
    """The file of DG's own that a code object comes from, or None (the standard library, NumPy, lark)."""
    try:
        path = Path(name).resolve()
        path.relative_to(ROOT)
    except (OSError, ValueError):
        return None
    return None if ".venv" in path.parts or path.suffix != ".py" else path


def count(program: Path) -> Counter:
    from dglang.interpreter.frontends import cli

    counter = Counter()
    threading.setprofile(counter)
    sys.setprofile(counter)
    try:
        with redirect_stdout(io.StringIO()):
            code = cli.main([str(program)])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    if code != 0:
        raise SystemExit(f"dg {program} exited with {code}")
    return counter


def main(argv: list[str]) -> None:
    listing = "--list" in argv
    files = [a for a in argv if a != "--list"]
    with tempfile.TemporaryDirectory() as folder:
        program = Path(files[0]) if files else Path(folder) / "seed.dg"
        if not files:
            program.write_text(SEED, encoding="utf-8")
        counter = count(program)
    outside = [p for p in counter.entered if FRONT_ENDS not in p.parents]
    print(f"{len(outside)} files of DG's outside interpreter/frontends/ (set-up included)")
    if listing:
        print("".join(f"    {p.relative_to(ROOT)}\n" for p in outside), end="")
    print(f"{len(counter.after)} from the moment interpreter/pipeline.py receives the text")
    if listing:
        print("".join(f"    {p.relative_to(ROOT)}\n" for p in counter.after), end="")


if __name__ == "__main__":
    main(sys.argv[1:])
