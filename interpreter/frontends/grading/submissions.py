"""Submissions: finding them in a folder, and copying one into a folder of its own to run there.

A submission is a `.dg` file or a folder (holding the program, and any CSV files it reads). The
copy takes regular files only: a symbolic link (to the teacher's tests, to another student's
work), a named pipe (which would block the copy forever) or a device is left behind, and a
submission larger than the limits below is refused rather than filling the disk.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 1000
MAX_BYTES = 50_000_000


@dataclass(frozen=True)
class Submission:
    name: str  # in the results: the file's or the folder's name
    path: Path


class SubmissionProblem(Exception):
    """A submission that cannot be run at all (no program, too large): it gets 0 and this message."""


def find_submissions(folder: Path) -> list[Submission]:
    """Each `.dg` file and each folder directly in `folder`, by name; hidden ones are skipped."""
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        program = entry.suffix == ".dg" and entry.is_file()
        if (entry.is_dir() or program) and not entry.is_symlink():
            found.append(Submission(entry.name, entry))
    return found


def copy_submission(submission: Submission, destination: Path) -> None:
    """Copy the submission's regular files into `destination` (an empty folder)."""
    source = submission.path
    if source.is_file():
        copy_file(source, destination / source.name)
        return
    files = 0
    size = 0
    for root, folders, names in os.walk(source, followlinks=False):
        here = Path(root)
        target = destination / here.relative_to(source)
        target.mkdir(exist_ok=True)
        folders[:] = [f for f in folders if not (here / f).is_symlink()]
        for name in names:
            path = here / name
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                continue
            files += 1
            size += info.st_size
            if files > MAX_FILES or size > MAX_BYTES:
                raise SubmissionProblem(
                    f"the submission is larger than the grader accepts ({MAX_FILES:,} files, {MAX_BYTES:,} bytes)"
                )
            copy_file(path, target / name)


def copy_file(source: Path, target: Path) -> None:
    if source.stat().st_size > MAX_BYTES:
        raise SubmissionProblem(f"'{source.name}' is larger than the grader accepts ({MAX_BYTES:,} bytes)")
    shutil.copyfile(source, target, follow_symlinks=False)


def find_program(folder: Path, entry: str | None) -> Path:
    """The program to run in a submission's copy: the one `.dg` file (outside hidden folders), the
    one named `entry`, or, when the program is split over files that import each other, the one
    no other file imports."""
    programs = sorted(
        p
        for p in folder.rglob("*.dg")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
    if entry is not None:
        named = [p for p in programs if p.name == entry]
        if len(named) > 1:  # one at the top beats others deeper down
            named = [p for p in named if p.parent == folder] or named
        if len(named) == 1:
            return named[0]
        if not named:
            raise SubmissionProblem(f"the submission has no file named {entry}")
        raise SubmissionProblem(f"the submission has several files named {entry}: {listing(named, folder)}")
    if len(programs) == 1:
        return programs[0]
    if not programs:
        raise SubmissionProblem("the submission has no .dg file")
    roots = not_imported(programs)
    if len(roots) == 1:
        return roots[0]
    raise SubmissionProblem(
        f"the submission has several .dg files ({listing(programs, folder)}) and not one that imports the "
        "others; submit only the one to grade (or the teacher names it with --entry)"
    )


IMPORTED = re.compile(r"^[ \t]*(?:import[ \t]+([\w \t,]+)|from[ \t]+(\w+)[ \t]+import\b)", re.MULTILINE)
MAX_SCANNED = 1 << 20  # bytes of each file looked at: as much as DG would read of a program


def not_imported(programs: list[Path]) -> list[Path]:
    """The files of a program split over several that no other of its files imports (read from the
    lines that start with `import` or `from`: the files are not parsed here, in the grader)."""
    imported: set[str] = set()
    for program in programs:
        try:
            with program.open("rb") as f:
                text = f.read(MAX_SCANNED).decode("utf-8", "replace")
        except OSError:
            continue
        for names, module in IMPORTED.findall(text):
            imported.update(n.strip() for n in (names.split(",") if names else [module]) if n.strip())
    return [p for p in programs if p.stem not in imported]


def listing(paths: list[Path], folder: Path) -> str:
    names = [str(p.relative_to(folder)) for p in paths]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
