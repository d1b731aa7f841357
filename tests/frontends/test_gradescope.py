"""`dg grade --gradescope DIR`: the autograder folder Gradescope builds its image from, run here as
Gradescope would run it: setup.sh checked for syntax (installing needs the network), run_autograder
run on a submission in a stand-in /autograder, with DG imported from the copy the folder carries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from gradescope_format import problems
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "exercises" / "grading"
DG = [sys.executable, "-m", "dglang.interpreter"]
LIMITS = ["--timeout", "3", "--max-steps", "1000000"]


@pytest.fixture(scope="module")
def autograder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("gradescope") / "autograder"
    result = subprocess.run(
        [*DG, "grade", "--gradescope", str(folder), "--tests", str(SAMPLE / "tests.dg"), *LIMITS],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {folder}: upload {folder / 'autograder.zip'} as the autograder (docs/grading.md)\n"
    return folder


def test_the_folder_holds_what_gradescope_needs(autograder: Path) -> None:
    for script in ("setup.sh", "run_autograder"):
        assert os.access(autograder / script, os.X_OK), script
    assert (autograder / "tests.dg").read_text() == (SAMPLE / "tests.dg").read_text()
    with zipfile.ZipFile(autograder / "autograder.zip") as zipped:
        names = zipped.namelist()
        assert {"setup.sh", "run_autograder", "tests.dg", "dglang/pyproject.toml"} <= set(names)  # at the root
        assert zipped.getinfo("run_autograder").external_attr >> 16 & 0o111  # still executable once unzipped
    assert "autograder.zip" not in names


def test_the_scripts_are_valid_bash(autograder: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    for script in ("setup.sh", "run_autograder"):
        subprocess.run(["bash", "-n", str(autograder / script)], check=True)


def test_run_autograder_passes_the_teacher_s_limits(autograder: Path) -> None:
    text = (autograder / "run_autograder").read_text()
    assert '--single --tests "$AUTOGRADER/source/tests.dg"' in text
    for option in ("--timeout 3", "--max-steps 1000000", "--memory 512", "--max-output 100000", "--wall-time 48"):
        assert option in text, option


def test_the_copy_of_dg_installs_the_same_packages_as_the_project(autograder: Path) -> None:
    bundled = tomllib.loads((autograder / "dglang" / "pyproject.toml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert sorted(bundled["tool"]["setuptools"]["packages"]) == sorted(project["tool"]["setuptools"]["packages"])
    assert bundled["project"]["scripts"] == project["project"]["scripts"]
    same = [{str(Requirement(r)) for r in p["project"]["dependencies"]} for p in (bundled, project)]
    assert same[0] == same[1]
    assert (autograder / "dglang" / "dglang" / "grammar" / "dg.lark").is_file()
    tables = autograder / "dglang" / "dglang" / "interpreter" / "syntax" / "fast" / "dg_tables.py"
    assert tables.is_file()  # the fast parser's tables


@pytest.mark.skipif(shutil.which("bash") is None, reason="run_autograder is a bash script")
@pytest.mark.parametrize(
    ("submission", "score"),
    [
        ("wrong_gradient.dg", 4),
        pytest.param("infinite_loop.dg", 3, marks=pytest.mark.slow),  # waits for its timeouts
        ("overrides_builtins.dg", 0),
    ],
)
def test_run_autograder_grades_a_submission_with_the_bundled_dg(
    autograder: Path, tmp_path: Path, submission: str, score: int
) -> None:
    root = tmp_path / "autograder"
    shutil.copytree(autograder, root / "source")
    (root / "submission").mkdir()
    shutil.copy(SAMPLE / "submissions" / submission, root / "submission")
    venv = tmp_path / "venv"  # a stand-in for the environment setup.sh makes: its dg is the bundled copy
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "dg").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m dglang.interpreter "$@"\n')
    (venv / "bin" / "dg").chmod(0o755)
    env = dict(os.environ, AUTOGRADER=str(root), DG_VENV=str(venv), DG_STUDENT="")
    env["PYTHONPATH"] = str(root / "source" / "dglang")
    ran = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert problems(results) == [] and results["score"] == score, results["output"]
    imported = subprocess.run(
        [sys.executable, "-c", "import dglang; print(dglang.__file__)"], env=env, capture_output=True, text=True
    )
    assert Path(imported.stdout.strip()).is_relative_to(root / "source" / "dglang")


def test_run_autograder_still_answers_when_the_grader_cannot_run(autograder: Path, tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    shutil.copytree(autograder, root / "source")
    (root / "submission").mkdir()
    env = dict(os.environ, AUTOGRADER=str(root), DG_VENV=str(tmp_path / "missing"), DG_STUDENT="")
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, text=True)
    results = json.loads((root / "results" / "results.json").read_text())
    assert problems(results) == [] and results["score"] == 0 and "tell your teacher" in results["output"]
