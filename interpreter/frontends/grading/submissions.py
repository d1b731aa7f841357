"""Submissions: finding them in a folder, and copying one into a folder of its own to run there.

A submission is a `.dg` file or a folder (holding the program, and any CSV files it reads). A class
folder holds whatever students and archives made of it, so every entry is looked at without being
trusted: its name may hold any byte (shown with escapes, escaping.py), it may be a symbolic link (in
the folder or out of it, or in a loop), a named pipe, a device, an unreadable file, or a tree of
folders thousands deep. None of it stops the grader: an entry that is not a submission is one
with a problem (it gets 0 and the reason), and inside a submission the copy takes regular files
only, at most MAX_DEPTH folders deep, and lists what it left out and why. The walk uses a stack,
never recursion, and looks at MAX_ENTRIES entries at most.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from dglang.interpreter.diagnostics.escaping import shown_name

MAX_FILES = 1000
MAX_BYTES = 50_000_000
MAX_DEPTH = 64  # folders nested inside a submission that are copied
MAX_ENTRIES = 100_000  # files and folders looked at in one submission
MAX_NOTES = 20  # of what was left out, listed in the results


@dataclass(frozen=True)
class Submission:
    name: str  # the file's or the folder's name, as the system gives it
    path: Path
    problem: str | None = None  # why this entry of the class folder cannot be graded

    @property
    def shown(self) -> str:
        """The name as results show it: bytes that are not UTF-8, and control characters, escaped."""
        return shown_name(self.name)


class SubmissionProblem(Exception):
    """A submission that cannot be run at all (no program, too large): it gets 0 and this message."""


@dataclass
class Copied:
    """What a submission's copy holds: its programs (relative paths) and what was left out, and why."""

    programs: list[PurePath] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    more_left_out: int = 0

    def leave_out(self, path: PurePath, why: str) -> None:
        if len(self.left_out) < MAX_NOTES:
            self.left_out.append(f"'{shown_name(str(path))}': {why}")
        else:
            self.more_left_out += 1

    def notes(self) -> str:
        """What was not copied, for the submission's results ('' when nothing was)."""
        if not self.left_out:
            return ""
        more = f"\n  and {self.more_left_out:,} more" if self.more_left_out else ""
        return "Not copied for grading:\n  " + "\n  ".join(self.left_out) + more


def find_submissions(folder: Path, leave_out: tuple[Path, ...] = ()) -> list[Submission]:
    """Each entry directly in `folder` (hidden ones and `leave_out` skipped), by name. A `.dg` file
    or a folder is a submission; anything else is one with a problem. An unreadable `folder`
    raises OSError."""
    skipped = {os.path.realpath(p) for p in leave_out}
    with os.scandir(folder) as listing:
        entries = sorted(listing, key=lambda e: os.fsencode(e.name))
    found = []
    for entry in entries:
        if entry.name.startswith(".") or (os.path.realpath(entry.path) in skipped and not entry.is_symlink()):
            continue
        found.append(Submission(entry.name, Path(entry.path), entry_problem(entry)))
    return found


def entry_problem(entry: os.DirEntry[str]) -> str | None:
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError as e:
        return f"it cannot be read ({e.strerror})"
    if stat.S_ISLNK(mode):
        return "it is a symbolic link, which the grader does not follow: put the submission itself in the folder"
    if stat.S_ISDIR(mode) or (stat.S_ISREG(mode) and entry.name.endswith(".dg")):
        return None
    if entry.name.endswith(".dg"):
        return "it is not a regular file (a pipe or a device)"
    return "it is neither a .dg file nor a folder"


def copy_submission(submission: Submission, destination: Path) -> Copied:
    """Copy the submission's regular files into `destination` (an empty folder)."""
    if submission.problem is not None:
        raise SubmissionProblem(f"'{submission.shown}' is not graded: {submission.problem}")
    source, copied = submission.path, Copied()
    try:
        single = source.is_file()  # the path the teacher gave may be a link: it is followed
    except OSError:
        single = False
    if single:
        name = PurePath(source.name)
        try:
            copy_file(source, destination / name)
        except OSError as e:
            raise SubmissionProblem(f"'{submission.shown}' cannot be read ({e.strerror})") from None
        copied.programs.append(name)
        return copied
    walk(source, destination, copied)
    return copied


def walk(source: Path, destination: Path, copied: Copied) -> None:
    """Copy the tree under `source`, a folder at a time from a stack (a tree may be any depth)."""
    files = size = seen = 0
    stack: list[tuple[Path, PurePath, int]] = [(source, PurePath(), 0)]  # a folder, where in the copy, its depth
    while stack:
        folder, relative, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = []
                for entry in listing:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        raise SubmissionProblem(f"the submission holds more than {MAX_ENTRIES:,} files and folders")
                    entries.append(entry)
        except OSError as e:
            copied.leave_out(relative, f"a folder that cannot be read ({e.strerror})")
            continue
        for entry in sorted(entries, key=lambda e: os.fsencode(e.name), reverse=True):
            path = relative / entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as e:
                copied.leave_out(path, f"cannot be read ({e.strerror})")
                continue
            if stat.S_ISLNK(info.st_mode):
                copied.leave_out(path, "a symbolic link (the grader copies no links)")
            elif stat.S_ISDIR(info.st_mode):
                if depth < MAX_DEPTH:
                    stack.append((Path(entry.path), path, depth + 1))
                else:
                    copied.leave_out(path, f"folders nested more than {MAX_DEPTH} deep are not copied")
            elif not stat.S_ISREG(info.st_mode):
                copied.leave_out(path, "not a regular file (a pipe or a device)")
            else:
                files, size = files + 1, size + info.st_size
                if files > MAX_FILES or size > MAX_BYTES:
                    raise SubmissionProblem(
                        f"the submission is larger than the grader accepts ({MAX_FILES:,} files, {MAX_BYTES:,} bytes)"
                    )
                try:
                    (destination / relative).mkdir(parents=True, exist_ok=True)
                    copy_file(Path(entry.path), destination / path)
                except OSError as e:
                    copied.leave_out(path, f"cannot be read or copied ({e.strerror})")
                    continue
                if path.suffix == ".dg" and not any(part.startswith(".") for part in path.parts):
                    copied.programs.append(path)


def copy_file(source: Path, target: Path) -> None:
    if source.stat().st_size > MAX_BYTES:
        raise SubmissionProblem(f"'{shown_name(source.name)}' is larger than the grader accepts ({MAX_BYTES:,} bytes)")
    shutil.copyfile(source, target, follow_symlinks=False)
