"""A careless class folder: `dg grade` grades it to the end, writes its summary, scores correct work
in full, reports each odd entry as that submission's problem, and leaves no private folder behind.

The odd entries are those old archives, shared drives and hostile students make: names of any
bytes (not UTF-8, control characters, two names that differ only in case), a submission named
`summary.csv`, a tree of 1,500 nested folders, symbolic links (in the folder, out of it, to
themselves, dangling), named pipes, unreadable files and folders, and a correct program that prints
a lone surrogate. Fresh ones are drawn by hypothesis: random byte names, random deep trees.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dglang.interpreter.diagnostics.escaping import shown_name
from dglang.interpreter.frontends.grading import submissions
from dglang.interpreter.frontends.grading.program_choice import find_program
from dglang.interpreter.frontends.grading.submissions import (
    MAX_DEPTH,
    Submission,
    SubmissionProblem,
    copy_submission,
    find_submissions,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "exercises" / "grading"
CORRECT = (SAMPLE / "submissions" / "correct.dg").read_bytes()
POSIX = os.name == "posix"


def dg_grade(class_: Path, out: Path, temp: Path, *options: str) -> subprocess.CompletedProcess[str]:
    temp.mkdir(exist_ok=True)
    command = [sys.executable, "-m", "dglang.interpreter", "grade", str(class_), "--tests", str(SAMPLE / "tests.dg")]
    return subprocess.run(
        [*command, "--out", str(out), "--timeout", "10", *options],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, TMPDIR=str(temp)),
    )


def nest(folder: Path, depth: int, name: str = "d") -> Path:
    """`depth` folders inside one another under `folder`, made without a path longer than one name."""
    here = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=here)
            inner = os.open(name, os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = inner
    finally:
        os.close(here)
    return folder


def remove_deep(root: Path) -> None:
    """Remove a tree of any depth, a level at a time from the top, with short paths only (Python's
    own rmtree recurses, and pytest's clean-up would leave such a tree behind)."""
    moved = 0
    while entries := list(os.scandir(root)):
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                for inner in list(os.scandir(entry.path)):
                    moved += 1
                    os.rename(inner.path, root / f"~{moved}")
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
    os.rmdir(root)


def summary_rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "summary.csv").open(encoding="utf-8", newline="") as f:
        return {row["submission"]: row for row in csv.DictReader(f)}


@pytest.mark.slow
@pytest.mark.skipif(not POSIX, reason="names of any bytes, pipes and links are POSIX's")
def test_a_hostile_class_folder_is_graded_to_the_end(tmp_path: Path) -> None:
    class_ = tmp_path / "class"
    class_.mkdir()
    byte_names = [b"r\xe9sum\xe9.dg", b"\xff\xfe.dg", b"tab\there.dg", b"esc\x1b[31m.dg", b"new\nline.dg"]
    byte_names.append(b"\xe9" * 240 + b".dg")  # shown escaped, four times longer than a name may be
    for name in byte_names:
        (Path(os.fsdecode(bytes(class_)) + "/" + os.fsdecode(name))).write_bytes(CORRECT)
    folder = class_ / os.fsdecode(b"d\xe9p\xf4t")
    folder.mkdir()
    (folder / os.fsdecode(b"w\xe9rk.dg")).write_bytes(CORRECT)
    (class_ / "summary.csv").mkdir()
    (class_ / "summary.csv" / "work.dg").write_bytes(CORRECT)
    for name in ("Alice", "alice"):
        (class_ / name).mkdir()
        (class_ / name / "work.dg").write_bytes(CORRECT)
    deep = class_ / "deep"
    deep.mkdir()
    (deep / "work.dg").write_bytes(CORRECT)
    nest(deep, 1500)
    links = class_ / "links"
    links.mkdir()
    (links / "work.dg").write_bytes(CORRECT)
    (links / "out.csv").symlink_to("/etc/passwd")
    (links / "up").symlink_to(links)
    (links / "loop").symlink_to("loop")
    (class_ / "linked.dg").symlink_to(class_ / "deep" / "work.dg")
    (class_ / "outside.dg").symlink_to(SAMPLE / "tests.dg")
    (class_ / "loop.dg").symlink_to("loop.dg")
    (class_ / "dangling").symlink_to("nowhere")
    os.mkfifo(class_ / "pipe.dg")
    (class_ / "notes.txt").write_text("not a submission")
    (class_ / "surrogate.dg").write_bytes(CORRECT + b'print("caf\\udce9 \\ud800")\n')
    out, temp = tmp_path / "out", tmp_path / "tmp"

    try:
        result = dg_grade(class_, out, temp)
    finally:
        remove_deep(deep)

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    rows = summary_rows(out)
    correct = [shown_name(os.fsdecode(n)) for n in byte_names[:-1]] + [shown_name(folder.name)]
    correct.append("\\xe9" * 47 + "...")  # cut to 200 bytes
    correct += ["summary.csv (2)", "Alice", "alice (2)", "deep", "links", "surrogate.dg"]
    for name in correct:
        assert (rows[name]["score"], rows[name]["status"]) == ("6", "ok"), (name, rows[name])
        assert json.loads((out / name / "results.json").read_text(encoding="utf-8"))["score"] == 6
    odd = {
        "linked.dg": "symbolic link",
        "outside.dg": "symbolic link",
        "loop.dg": "symbolic link",
        "dangling": "symbolic link",
        "pipe.dg": "not a regular file",
        "notes.txt": "neither a .dg file nor a folder",
    }
    for name, why in odd.items():
        assert (rows[name]["score"], rows[name]["status"]) == ("0", "no program"), name
        assert why in json.loads((out / name / "results.json").read_text(encoding="utf-8"))["output"]
    assert len(rows) == len(correct) + len(odd)
    assert "caf\\udce9 \\ud800" in json.loads((out / "surrogate.dg" / "results.json").read_text())["output"]
    left_out = json.loads((out / "links" / "results.json").read_text())["output"]
    assert "'out.csv': a symbolic link" in left_out and "'loop': a symbolic link" in left_out
    assert (
        f"folders nested more than {MAX_DEPTH} deep are not copied"
        in json.loads((out / "deep" / "results.json").read_text())["output"]
    )
    for line in result.stdout.splitlines():  # the table: one line per row, no control character
        assert line.isprintable(), line
    assert list(temp.iterdir()) == []  # every private dg-grade-* folder removed


def test_unreadable_files_and_folders_are_left_out_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Played by a copy that cannot read them (root reads any file), and by the permissions elsewhere."""
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    (work / "work.dg").write_bytes(CORRECT)
    (work / "secret.csv").write_text("1\n")
    (work / "data" / "x.csv").write_text("1\n")
    real_copy, real_scandir = shutil.copyfile, os.scandir

    def copy(source: object, target: object, **options: object) -> object:
        if str(source).endswith("secret.csv"):
            raise PermissionError(13, "Permission denied")
        return real_copy(source, target, **options)  # type: ignore[arg-type]

    def scan(path: object = ".") -> object:
        if str(path).endswith("data"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(submissions.shutil, "copyfile", copy)
    monkeypatch.setattr(submissions.os, "scandir", scan)
    destination = tmp_path / "copy"
    destination.mkdir()
    copied = copy_submission(Submission("work", work), destination)
    assert find_program(copied, destination, None).name == "work.dg"
    assert copied.notes() == (
        "Not copied for grading:\n  'secret.csv': cannot be read or copied (Permission denied)\n"
        "  'data': a folder that cannot be read (Permission denied)"
    )
    (work / "work.dg").rename(work / "data" / "work.dg")
    with pytest.raises(SubmissionProblem, match=r"has no \.dg file\nNot copied for grading:"):
        find_program(copy_submission(Submission("work", work), tmp_path / "copy2"), tmp_path / "copy2", None)


@pytest.mark.skipif(not POSIX or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_entries_as_the_system_refuses_them(tmp_path: Path) -> None:
    class_ = tmp_path / "class"
    (class_ / "locked").mkdir(parents=True)
    (class_ / "locked" / "work.dg").write_bytes(CORRECT)
    (class_ / "open").mkdir()
    (class_ / "open" / "work.dg").write_bytes(CORRECT)
    (class_ / "open" / "secret.csv").write_text("1\n")
    os.chmod(class_ / "open" / "secret.csv", 0)
    os.chmod(class_ / "locked", 0)
    try:
        result = dg_grade(class_, tmp_path / "out", tmp_path / "tmp")
    finally:
        os.chmod(class_ / "locked", 0o700)
    assert result.returncode == 0, result.stderr
    rows = summary_rows(tmp_path / "out")
    assert rows["open"]["score"] == "6" and rows["locked"]["status"] == "no program"


# ---- fresh inputs -------------------------------------------------------------------------------
NAME_BYTES = st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b)
NAMES = NAME_BYTES.filter(lambda b: b not in (b".", b"..") and not b.startswith(b"."))


@pytest.mark.skipif(sys.platform != "linux", reason="names of any bytes are Linux's")
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(NAMES, min_size=1, max_size=8, unique=True), folders=st.lists(st.booleans(), min_size=8))
def test_any_bytes_in_names_are_found_copied_and_shown(
    tmp_path_factory: pytest.TempPathFactory, names, folders
) -> None:  # type: ignore[no-untyped-def]
    class_ = tmp_path_factory.mktemp("class")
    for name, is_folder in zip(names, folders, strict=False):
        path = Path(os.fsdecode(bytes(class_) + b"/" + name))
        if is_folder:
            path.mkdir()
            (path / os.fsdecode(name + b".dg")).write_bytes(CORRECT)
        else:
            path.write_bytes(CORRECT)
    found = find_submissions(class_)
    assert sorted(os.fsencode(s.name) for s in found) == sorted(names)
    for s in found:
        assert s.shown.isprintable() and s.shown.encode("utf-8")
        if s.problem is None:
            destination = tmp_path_factory.mktemp("copy")
            program = find_program(copy_submission(s, destination), destination, None)
            assert (destination / program).read_bytes() == CORRECT
        else:
            assert not os.fsencode(s.name).endswith(b".dg") or not s.path.is_file()


@pytest.mark.slow
@pytest.mark.skipif(not POSIX, reason="trees made with directory descriptors")
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    depth=st.integers(1, 3000),
    name=NAMES.filter(lambda b: len(b) < 200),
    program_at=st.integers(0, 100),
)
def test_random_deep_trees_copy_without_recursion(
    tmp_path_factory: pytest.TempPathFactory, depth, name, program_at
) -> None:  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("work")
    nest(work, depth, os.fsdecode(name))
    # the program, `program_at` folders down (if the tree is that deep and the path not too long)
    inner = bytes(work) + b"/" + b"/".join([name] * min(program_at, depth))
    try:
        Path(os.fsdecode(inner + b"/work.dg")).write_bytes(CORRECT)
        placed = True
    except OSError:  # longer than the system allows a path: only the folders are there
        placed = False
    destination = tmp_path_factory.mktemp("copy")
    copied = copy_submission(Submission("work", work), destination)
    reachable = placed and min(program_at, depth) <= MAX_DEPTH
    if reachable:
        try:
            assert (destination / find_program(copied, destination, None)).read_bytes() == CORRECT
        except SubmissionProblem:  # the copy's own path too long: said in the notes
            assert "cannot be read or copied" in copied.notes()
    else:
        with pytest.raises(SubmissionProblem):
            find_program(copied, destination, None)
    if depth > MAX_DEPTH:
        assert f"nested more than {MAX_DEPTH} deep" in copied.notes()
    remove_deep(work)
    remove_deep(destination)
