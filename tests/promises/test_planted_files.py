"""Nothing DG reads back from disk can run code: a planted cache entry has no effect.

DG once kept parsed programs as pickles in $XDG_CACHE_HOME/dg/ast, named by checksums of public
files, so a student's submission that shipped a `.cache` folder (or a grader run with HOME inside
the submission) could plant an entry that ran any Python on the teacher's machine. The cache is
gone; these tests plant entries where it looked, under the names it would have computed, and
check that they do nothing.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from dglang import __version__

PROJECT = Path(__file__).resolve().parents[2]
PACKAGE_FOLDERS = ("autograd", "grammar", "interpreter")
PROGRAM = "x = tensor([1.0, 2.0], requires_grad=True)\ngrad (x * x).sum()\nprint(x.grad)\n"


class Payload:
    """A pickle that, when loaded, creates the file `marker`: any Python could run instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return open, (str(self.marker), "w")


def old_entry_names(program: Path) -> list[str]:
    """The file names the removed cache gave a program's entry: checksums of DG's version, the
    grammar and the parser's modules, and the program's name and text (all public)."""
    here = PROJECT / "interpreter" / "core"
    makers = [PROJECT / "grammar" / "dg.lark", *(here / n for n in ("ast.py", "build_ast.py", "grammar.py"))]
    makers += [here / n for n in ("indenter.py", "parser.py")]
    blob = __version__.encode() + b"".join(m.read_bytes() for m in makers if m.exists())
    names = []
    for shown in (str(program), program.name):
        text = f"{shown}\0{program.read_text()}".encode()
        sums = (zlib.crc32(blob), zlib.adler32(blob), zlib.crc32(text), zlib.adler32(text))
        names.append("".join(f"{c:08x}" for c in sums) + ".pickle")
    return names


def plant(cache_home: Path, program: Path, marker: Path) -> None:
    folder = cache_home / "dg" / "ast"
    folder.mkdir(parents=True, exist_ok=True)
    for name in old_entry_names(program):
        (folder / name).write_bytes(pickle.dumps(Payload(marker)))


def run_dg(program: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", str(program)],
        capture_output=True,
        text=True,
        cwd=program.parent,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("where", ["XDG_CACHE_HOME", "HOME inside the submission"])
def test_a_planted_cache_entry_runs_nothing(tmp_path: Path, where: str) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    program = submission / "student.dg"
    program.write_text(PROGRAM)
    marker = tmp_path / "pwned"
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "DG_CACHE")}
    if where == "XDG_CACHE_HOME":
        env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
        plant(tmp_path / "xdg", program, marker)
    else:
        env["HOME"] = str(submission)
        plant(submission / ".cache", program, marker)
    for _ in range(2):  # a second run too: an earlier run must not have made the entry trusted
        done = run_dg(program, env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "tensor([2., 4.])\n", "")
        assert not marker.exists(), "a planted pickle ran"


def test_dg_writes_nothing_into_a_cache_folder(tmp_path: Path) -> None:
    program = tmp_path / "p.dg"
    program.write_text(PROGRAM)
    cache = tmp_path / "xdg"
    cache.mkdir()
    done = run_dg(program, {**os.environ, "XDG_CACHE_HOME": str(cache), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert list(cache.iterdir()) == [] and not (tmp_path / ".cache").exists()


def test_no_module_can_load_code_from_data() -> None:
    """pickle, marshal and shelve turn bytes into running code: no module of DG imports them."""
    unsafe = ("import pickle", "from pickle", "import marshal", "from marshal", "import shelve", "import dill")
    found = []
    for folder in PACKAGE_FOLDERS:
        for path in (PROJECT / folder).rglob("*.py"):
            text = path.read_text()
            found += [f"{path.relative_to(PROJECT)}: {u}" for u in unsafe if u in text]
    assert not found, found


def test_a_planted_parser_table_runs_nothing(tmp_path: Path) -> None:
    """lark can keep its parser tables as a pickle in the temporary folder, under a name anyone can
    compute (the grammar's hash and the user's name), and load it at the next start: DG asks it not
    to, so nothing DG starts with comes from there. Any file a first run leaves in TMPDIR is
    replaced by a payload before a second run."""
    program = tmp_path / "p.dg"
    program.write_text(PROGRAM)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    marker = tmp_path / "pwned"
    env = {**os.environ, "TMPDIR": str(temporary), "TEMP": str(temporary), "TMP": str(temporary)}
    assert run_dg(program, env).returncode == 0
    left = sorted(temporary.iterdir())
    for path in left:
        first_line = path.read_bytes().split(b"\n", 1)[0]
        path.write_bytes(first_line + b"\n" + pickle.dumps(Payload(marker)))
    other = tmp_path / "q.dg"  # another program, which must be parsed
    other.write_text(PROGRAM.replace("x * x", "x * x * x"))
    done = run_dg(other, env)
    assert (done.returncode, done.stdout) == (0, "tensor([ 3., 12.])\n"), done.stderr
    assert not marker.exists(), "a planted pickle ran"
    assert left == [], f"DG left files in the temporary folder: {left}"
