"""What differs between Linux, macOS and Windows, checked where the tests run: no Unix-only call in
DG without a fallback, program files as Windows editors save them, and UTF-8 output whatever
encoding the platform gives a redirected stream. (`--timeout` and the piped REPL with the Unix
signals taken away are tested in test_timeout.py.)"""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dglang.interpreter.frontends.repl import Repl
from dglang.interpreter.frontends.sessions import new_session

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for folder in ("autograd", "interpreter") for p in sorted((ROOT / folder).rglob("*.py"))]

UNIX_ONLY_MODULES = {"resource", "termios", "tty", "pty", "fcntl", "pwd", "grp", "posix"}
UNIX_ONLY_CALLS = {"fork", "forkpty", "killpg", "setsid", "getuid", "SIGALRM", "setitimer", "alarm", "SIGKILL"}
# How much memory the process holds: each OS's own call, and on another Unix the peak from
# `resource`, imported only there, inside a function whose failure means "cannot say".
MEMORY_READER = ROOT / "interpreter" / "host" / "memory.py"
# The grader's system limits and process groups: resource limits and killpg on POSIX; on Windows
# none, and Popen.kill (docs/grading.md says so).
GRADER_SYSTEM = ROOT / "interpreter" / "frontends" / "grading" / "isolation.py"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_unix_only_module_or_call(path: Path) -> None:
    if path in (GRADER_SYSTEM, MEMORY_READER):
        return
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            unix = [n for n in names if n.split(".")[0] in UNIX_ONLY_MODULES]
            assert not unix, f"{path.name}:{node.lineno} imports {unix}, which Windows lacks"
        if isinstance(node, ast.Attribute) and node.attr in UNIX_ONLY_CALLS:
            raise AssertionError(f"{path.name}:{node.lineno}: .{node.attr} exists on Unix only")


def dg(*args: str | Path, stdin: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


# ---- files as Windows editors save them ---------------------------------------------------------------
# Notepad's byte-order mark first, and "\r\n" line ends
WINDOWS_PROGRAM = "\ufeffx = 2  # a comment\r\nif x > 1:\r\n    print(x * 3)\r\n"


def test_a_program_saved_with_a_byte_order_mark_and_crlf_runs(tmp_path: Path) -> None:
    program = tmp_path / "windows.dg"
    program.write_bytes(WINDOWS_PROGRAM.encode("utf-8"))
    for args, stdin in (([program], None), (["-"], program.read_bytes())):
        result = dg(*args, stdin=stdin)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"6\n", b"")
    # an error's source line shows no stray "\r"
    program.write_bytes(b"\xef\xbb\xbfx = 1\r\ny = (x +\r\n")
    assert dg(program).stderr.decode().splitlines()[2] == "2 | y = (x +"
    # and the REPL's :load reads it the same way
    out = io.StringIO()
    repl = Repl(new_session(out=out), err=io.StringIO())
    program.write_bytes(WINDOWS_PROGRAM.encode("utf-8"))
    repl.run_cell(f":load {program}")
    assert out.getvalue() == "6\n"


def test_a_csv_saved_by_excel_loads(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_bytes("\ufeff1,2\r\n3,4\r\n".encode())  # Excel's "CSV UTF-8"
    out = io.StringIO()
    new_session(out=out, base_dir=tmp_path).run('print(load_csv("data.csv").sum().item())')
    assert out.getvalue() == "10.0\n"


# ---- UTF-8 out, whatever the platform's encoding --------------------------------------------------------
@pytest.mark.skipif(os.name == "nt", reason="the legacy locale is set up through POSIX locale variables")
def test_output_is_utf8_where_the_platform_gives_another_encoding(tmp_path: Path) -> None:
    # An ASCII locale without Python's UTF-8 mode: as Windows' cp1252 for redirected output, only narrower.
    legacy = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}
    result = dg("-", stdin='print("√x and ᵀ")\n'.encode(), env=legacy)
    assert (result.returncode, result.stdout.decode("utf-8")) == (0, "√x and ᵀ\n")
    # `dg graph` prints, and writes, derivative rules such as g·b
    result = dg("graph", "programs/02_branches.dg", "--var", "out", env=legacy)
    assert result.returncode == 0, result.stderr.decode()
    assert "g·" in result.stdout.decode("utf-8")
    out = tmp_path / "graph.dot"
    assert dg("graph", "programs/02_branches.dg", "--var", "out", "-o", out, env=legacy).returncode == 0
    assert "g·" in out.read_text(encoding="utf-8")
    # a choice the user made stands
    chosen = dg("-", stdin=b'print("caf\\u00e9")\n', env={**legacy, "PYTHONIOENCODING": "latin-1"})
    assert chosen.stdout == "café\n".encode("latin-1")


def test_the_benchmarks_run_without_the_resource_module() -> None:
    # bench/measure.py reads peak memory with `resource`, which Windows lacks: the timing rows must still run
    script = (
        "import sys; sys.modules['resource'] = None; sys.path.insert(0, 'bench'); import measure\n"
        "try:\n    measure.peak_rss_mib()\nexcept RuntimeError as e:\n    print(e)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "resource module" in result.stdout
