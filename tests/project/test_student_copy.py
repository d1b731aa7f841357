"""exercises/student_copy.py: the project for students, without the reference solutions, whose
own checks still pass there (those that need the solutions skip)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "exercises" / "student_copy.py"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


@pytest.mark.slow
def test_the_copy_has_everything_but_the_solutions_and_its_checks_pass(tmp_path: Path) -> None:
    copy = tmp_path / "for-students"
    made = subprocess.run([sys.executable, str(SCRIPT), str(copy)], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("copied ") and made.stdout.endswith(f"to {copy} (without exercises/solutions/)\n")
    assert not (copy / "exercises" / "solutions").exists()
    for kept in ("README.md", "pyproject.toml", "exercises/ml/test_01_softplus_rule.py", "exercises/grading/tests.dg"):
        assert (copy / kept).is_file(), kept
    assert not (copy / ".venv").exists() and not list(copy.rglob("__pycache__"))
    imports = tmp_path / "imports"  # the copy's code imported as the package dglang (see test_exercises.py)
    imports.mkdir()
    (imports / "dglang").symlink_to(copy, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(imports), PYTHONDONTWRITEBYTECODE="1")
    checks = subprocess.run(
        [*PYTEST, "tests/project/test_exercises.py", "-rs", "-k", "not default_run and not copy_s_code"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checks.returncode == 0, checks.stdout + checks.stderr
    assert "a student's copy: no exercises/solutions/" in checks.stdout and " failed" not in checks.stdout


def test_the_copy_refuses_a_place_inside_the_project_or_one_that_exists(tmp_path: Path) -> None:
    inside = subprocess.run([sys.executable, str(SCRIPT), str(ROOT / "copy")], capture_output=True, text=True)
    assert inside.returncode == 2 and "outside the project" in inside.stderr
    existing = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert existing.returncode == 2 and "already exists" in existing.stderr
