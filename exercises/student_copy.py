"""Make the students' copy of this project: everything except the reference solutions.

    uv run python exercises/student_copy.py ../dg-for-students

Copies the project's files (those git tracks or would track; outside a git checkout, every file
but environments and caches) into a new folder, leaving out exercises/solutions/. In the copy
`uv run pytest` passes: the checks that need the solutions skip (tests/project/test_exercises.py), and
each exercise's own tests fail until the student solves it (exercises/README.md).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = ("exercises/solutions/",)
# Outside git: what is never part of the project.
NOT_PROJECT = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist"}


def project_files(root: Path) -> list[str]:
    """The project's files, relative to root, with forward slashes."""
    if (root / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=root,
            capture_output=True,
            check=True,
        )
        return sorted({name for name in listed.stdout.decode().split("\0") if name and (root / name).is_file()})
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file()
        and not any(part in NOT_PROJECT or part.endswith(".egg-info") for part in path.relative_to(root).parts)
    )


def student_copy(destination: Path, root: Path = ROOT) -> list[str]:
    """Copy the project without the solutions into `destination` (which must not exist yet)."""
    destination.mkdir(parents=True)
    copied = [name for name in project_files(root) if not name.startswith(LEFT_OUT)]
    for name in copied:
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Copy the project for students, without exercises/solutions/.")
    parser.add_argument("destination", type=Path, help="a folder that does not exist yet")
    args = parser.parse_args(argv)
    if args.destination.exists():
        parser.error(f"{args.destination} already exists")
    if args.destination.resolve().is_relative_to(ROOT):
        parser.error("the copy must go outside the project")
    copied = student_copy(args.destination)
    print(f"copied {len(copied)} files to {args.destination} (without {', '.join(LEFT_OUT)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
