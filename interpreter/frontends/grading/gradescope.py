"""Gradescope: a submission's `results.json` in the format of Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/), and the autograder folder that
Gradescope builds its image from: `setup.sh`, `run_autograder`, the tests and a copy of DG.

Every result is text as DG prints it (`<program>` in a call stack, carets under code), so the
outputs are marked `"output_format": "text"`: the top-level output's default, "simple_format",
would read them as HTML.
"""

from __future__ import annotations

import shlex
import shutil
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import dglang

from .grader import Graded

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def results_json(graded: Graded, visibility: str | None = None) -> dict[str, Any]:
    """One submission's results, every field one the specification documents."""
    results: dict[str, Any] = {
        "score": graded.score,
        "execution_time": round(graded.seconds, 2),
        "output": graded.output,
        "output_format": "text",
        "tests": [
            {
                "name": test.case.name,
                "score": test.score,
                "max_score": test.case.points,
                "status": "passed" if test.passed else "failed",
                "output": test.output,
            }
            for test in graded.tests
        ],
    }
    if visibility is not None:
        results["visibility"] = visibility
    return results


# ---- the autograder folder ---------------------------------------------------------------------
SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (written by
# `dg grade --gradescope`). It installs DG in its own environment and adds the user the students'
# programs run as.
set -euo pipefail
SOURCE="${AUTOGRADER:-/autograder}/source"
VENV="${DG_VENV:-/opt/dg}"
STUDENT="${DG_STUDENT-dg-student}"

python_is_new_enough() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
PYTHON=""
for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null && python_is_new_enough "$candidate"; then
        PYTHON="$(command -v "$candidate")"
        break
    fi
done
if [ -z "$PYTHON" ]; then  # Ubuntu 22.04, Gradescope's default image, has 3.10; 3.11 is a package away
    apt-get update
    apt-get install -y python3.11 python3.11-venv
    PYTHON="$(command -v python3.11)"
fi
VERSION="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
"$PYTHON" -m venv "$VENV" || { apt-get install -y "python$VERSION-venv" && "$PYTHON" -m venv "$VENV"; }
"$VENV/bin/pip" install --no-cache-dir "$SOURCE/dglang"
if [ -n "$STUDENT" ] && ! id "$STUDENT" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$STUDENT"
fi
"""

RUN = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission, as root, in /autograder (written by
# `dg grade --gradescope`). The student's program runs as {student}, in a folder of its own, and
# cannot read the tests, the results or this folder.
set -u
AUTOGRADER="${{AUTOGRADER:-/autograder}}"
VENV="${{DG_VENV:-/opt/dg}}"
STUDENT="${{DG_STUDENT-{student}}}"
RESULTS="$AUTOGRADER/results"
mkdir -p "$RESULTS"
AS_STUDENT=()
if [ "$(id -u)" = 0 ] && [ -n "$STUDENT" ] && id "$STUDENT" >/dev/null 2>&1; then
    chmod -R o-rwx "$AUTOGRADER/source" "$AUTOGRADER/submission" "$RESULTS"
    AS_STUDENT=(--user "$STUDENT")
fi
"$VENV/bin/dg" grade "$AUTOGRADER/submission" --single --tests "$AUTOGRADER/source/{tests}" \\
    --out "$RESULTS" {options} "${{AS_STUDENT[@]}}"
if [ ! -s "$RESULTS/results.json" ]; then  # the grader itself failed: still give Gradescope an answer
    MESSAGE="The autograder could not grade this submission: tell your teacher."
    printf '{{"score": 0, "output": "%s", "output_format": "text"}}\\n' "$MESSAGE" > "$RESULTS/results.json"
fi
"""

STUDENT = "dg-student"
PACKAGE_FOLDERS = ("autograd", "grammar", "interpreter")  # what DG installs, under the package dglang
SOURCE_FILES = (".py", ".lark")


def write_autograder(folder: Path, tests: Path, options: list[str]) -> Path:
    """Write the autograder folder (and its zip, to upload) for the tests file; `options` are the
    `dg grade` options every submission is graded with. Returns the zip's path."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tests, folder / tests.name)
    (folder / "setup.sh").write_text(SETUP)
    (folder / "run_autograder").write_text(
        RUN.format(student=STUDENT, tests=shlex.quote(tests.name), options=" ".join(map(shlex.quote, options)))
    )
    for script in ("setup.sh", "run_autograder"):
        (folder / script).chmod(0o755)
    copy_dg(folder / "dglang")
    archive = folder / "autograder.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path != archive:
                info = zipfile.ZipInfo.from_file(path, path.relative_to(folder).as_posix())
                zipped.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return archive


def copy_dg(target: Path) -> None:
    """A copy of the DG running now, installable with pip: its package's sources and a pyproject.toml."""
    if target.exists():
        shutil.rmtree(target)
    root = Path(dglang.__file__).resolve().parent
    package = target / "dglang"
    package.mkdir(parents=True)
    shutil.copyfile(root / "__init__.py", package / "__init__.py")
    names = ["dglang"]
    for top in PACKAGE_FOLDERS:
        for source in sorted({p.parent for p in (root / top).rglob("*") if p.suffix in SOURCE_FILES}):
            if "__pycache__" in source.parts:
                continue
            relative = source.relative_to(root)
            names.append(".".join(["dglang", *relative.parts]))
            (package / relative).mkdir(parents=True, exist_ok=True)
            for file in sorted(source.iterdir()):
                if file.suffix in SOURCE_FILES and file.is_file():
                    shutil.copyfile(file, package / relative / file.name)
    (target / "pyproject.toml").write_text(pyproject(names))


def pyproject(packages: list[str]) -> str:
    requirements = [r for r in metadata.requires("dglang") or [] if "extra ==" not in r]
    return f"""\
[project]
name = "dglang"
version = "{dglang.__version__}"
requires-python = ">=3.11"
dependencies = {requirements!r}

[project.scripts]
dg = "dglang.interpreter.frontends.cli:command"

[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = {packages!r}

[tool.setuptools.package-data]
"dglang.grammar" = ["dg.lark"]
"""
