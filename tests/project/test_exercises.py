"""Every exercise in exercises/ is unsolved in the project as it stands, and solvable.

For each exercises/<track>/test_<name>.py: copy the project (without .git, .venv and caches) to a
temporary folder, run that one test file there and check that it fails; apply the reference
solution exercises/solutions/<track>/<name>.patch with `git apply`, run it again and check that it
passes. Then, as the one who solved it would, run tools/regenerate.py (which rewrites what is made
from the op declarations), and run the tests that hold every op to what an op must satisfy (those
marked every_op): an exercise that adds an op must leave the whole suite green, not only its own
test. pytest runs with this interpreter and PYTHONPATH pointing at the copy, so the copy's code is
imported, not this checkout's (test_the_copy_s_code_is_what_runs checks that).

Students get the project without exercises/solutions/; there the solution tests skip, so their
default run stays green while they solve the exercises in their own copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = sorted((ROOT / "exercises").glob("*/test_*.py"))
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "*.egg-info"
)
SOLUTIONS = ROOT / "exercises" / "solutions"
EVERY_OP = re.compile(r"pytest\.mark\.every_op")  # in a test file: it holds tests of every op
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="applying a solution needs git")
needs_solutions = pytest.mark.skipif(not SOLUTIONS.is_dir(), reason="a student's copy: no exercises/solutions/")


def solution_for(test: Path) -> Path:
    return SOLUTIONS / test.parent.name / f"{test.stem.removeprefix('test_')}.patch"


def copy_of_project(folder: Path) -> Path:
    project = folder / "project"
    shutil.copytree(ROOT, project, ignore=NOT_COPIED)
    return project


def in_copy(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """Run `python command...` in the copy, importing the copy's code as the package `dglang`
    (the repository root is the package, so a folder beside the copy links that name to it)."""
    imports = project.parent / "imports"
    if not imports.is_dir():
        imports.mkdir()
        (imports / "dglang").symlink_to(project, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(imports), PYTHONDONTWRITEBYTECODE="1")
    env.pop("DG_UPDATE_GOLDEN", None)
    return subprocess.run([sys.executable, *command], cwd=project, env=env, capture_output=True, text=True, timeout=300)


def run_exercise(project: Path, test: Path) -> subprocess.CompletedProcess[str]:
    quick = ("-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")  # the exercises do not use hypothesis
    return in_copy(project, "-m", "pytest", str(test.relative_to(ROOT)), *quick)


def run_every_op_tests(project: Path) -> subprocess.CompletedProcess[str]:
    """The copy's tests marked every_op, after tools/regenerate.py has rewritten what it writes."""
    regenerated = in_copy(project, "tools/regenerate.py")
    if regenerated.returncode != 0:
        return regenerated
    files = [
        path.relative_to(project).as_posix()
        for path in sorted((project / "tests").glob("*/test_*.py"))
        if EVERY_OP.search(path.read_text(encoding="utf-8"))
    ]
    return in_copy(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "every_op", *files)


@needs_solutions
def test_there_are_eleven_exercises_each_with_a_solution() -> None:
    assert [t.parent.name for t in EXERCISES].count("compiler") == 6
    assert [t.parent.name for t in EXERCISES].count("ml") == 5
    missing = [str(solution_for(t).relative_to(ROOT)) for t in EXERCISES if not solution_for(t).is_file()]
    assert not missing, f"exercises without a reference solution: {missing}"


@pytest.mark.slow
def test_the_default_run_does_not_collect_the_exercises() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tests/project/test_exercises.py" in result.stdout and "exercises/" not in result.stdout.replace(
        "tests/", ""
    )


def test_the_copy_s_code_is_what_runs(tmp_path: Path) -> None:
    project = copy_of_project(tmp_path)
    show = "from dglang import autograd, interpreter; print(autograd.__file__); print(interpreter.__file__)"
    result = in_copy(project, "-c", show)
    assert result.returncode == 0, result.stderr
    for path in result.stdout.split():
        assert Path(path).resolve().is_relative_to(project), f"imported {path}, not the copy in {project}"


@pytest.mark.slow
@needs_git
@needs_solutions
@pytest.mark.parametrize("test", EXERCISES, ids=[f"{t.parent.name}/{t.stem}" for t in EXERCISES])
def test_exercise_fails_until_its_solution_is_applied(test: Path, tmp_path: Path) -> None:
    project = copy_of_project(tmp_path)
    before = run_exercise(project, test)
    assert before.returncode == 1, f"the exercise should fail (tests failing) before it is solved:\n{before.stdout}"
    patch = solution_for(test)
    # -C1: one line of context each side must match, so nearby edits elsewhere in a file do not stop it
    apply = ["git", "apply", "-C1", str(patch)]
    applied = subprocess.run(apply, cwd=project, capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, (
        f"{patch.name} does not apply:\n{applied.stderr}\n"
        "solve the exercise again in a clean checkout and save `git diff` as the new patch"
    )
    after = run_exercise(project, test)
    assert after.returncode == 0, f"the exercise still fails with its solution applied:\n{after.stdout}{after.stderr}"
    every_op = run_every_op_tests(project)
    assert every_op.returncode == 0, (
        f"with {patch.name} applied and tools/regenerate.py run, tests that hold every op fail:\n"
        f"{every_op.stdout[-4000:]}{every_op.stderr[-2000:]}"
    )


@needs_git
@needs_solutions
def test_a_new_op_declared_in_one_place_reaches_the_pictures(tmp_path: Path) -> None:
    """With softplus added as the exercise asks (one declaration in autograd/functions.py), `dg graph`
    labels its edge with the rule text the declaration gives."""
    project = copy_of_project(tmp_path)
    patch = SOLUTIONS / "ml" / "01_softplus_rule.patch"
    applied = subprocess.run(["git", "apply", "-C1", str(patch)], cwd=project, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert [line for line in patch.read_text().splitlines() if line.startswith("+++ ")] == [
        "+++ b/autograd/functions.py"
    ], "the softplus solution should change autograd/functions.py only"
    program = project / "softplus.dg"
    program.write_text("x = tensor([0.5, -1.0], requires_grad=True)\ny = softplus(x * 2).sum()\ngrad y\n")
    drawn = in_copy(project, "-m", "dglang.interpreter", "graph", str(program), "--var", "y")
    assert drawn.returncode == 0, drawn.stderr
    edge = next((line for line in drawn.stdout.splitlines() if "-> n2 " in line), "")
    assert "Softplus" in drawn.stdout and 'label="a: g·σ(a)\\n= ' in edge, drawn.stdout
