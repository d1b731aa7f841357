"""A course folder as a teacher sets it up: a library folder with `nn.dg` (which imports a helper
of its own), and a lesson beside a module of its own, importing both. The lesson prints the same
from `dg FILE`, the REPL, a notebook run by the DG kernel, and `dg test`; the REPL's `:reload`
picks up an edit of the module; the kernel completes after `nn.`."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from kernel_util import dg_kernel  # noqa: F401  (a fixture)
from optional_tools import need

NN = """\
# the course's library: layers written in DG
from init import glorot

def linear(x, w, b):
    return x @ w + b

def mlp(sizes):
    params = {}
    for i in range(len(sizes) - 1):
        params[f"w{i}"] = glorot(sizes[i], sizes[i + 1])
        params[f"b{i}"] = zeros(sizes[i + 1], requires_grad=True)
    return params

def forward(params, x):
    for i in range(len(params) // 2):
        x = linear(x, params[f"w{i}"], params[f"b{i}"])
        if i < len(params) // 2 - 1:
            x = relu(x)
    return x

def sgd(params, lr):
    with no_grad:
        for name, p in params.items():
            p -= lr * p.grad
    zero_grad(params)

print("nn loaded")
"""
INIT = """\
def glorot(n_in, n_out):
    w = randn(n_in, n_out) * sqrt(2.0 / (n_in + n_out))
    w.requires_grad = True
    return w
"""
DATA = """\
def points():
    return tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]), tensor([1.0, 1.0, 0.0, 0.0])
"""
LESSON = """\
import nn
from data import points
seed(0)
X, y = points()
params = nn.mlp([2, 8, 1])
for step in range(50):
    loss = ((nn.forward(params, X)[:, 0] - y) ** 2).mean()
    grad loss
    nn.sgd(params, 0.5)
print(f"loss {loss.item():.4f}", sorted(params))
"""
EXPECTED = "nn loaded\n"


def course(tmp_path: Path) -> Path:
    (tmp_path / "lib").mkdir(parents=True)
    (tmp_path / "lib" / "nn.dg").write_text(NN)
    (tmp_path / "lib" / "init.dg").write_text(INIT)
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "data.dg").write_text(DATA)
    (lessons / "lesson.dg").write_text(LESSON)
    return lessons


def dg(*args: str, cwd: Path, stdin: str | None = None, lib: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "DG_LIB": str(lib)} if lib is not None else None
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def the_output(tmp_path: Path) -> str:
    lessons = course(tmp_path)
    result = dg("--lib", "../lib", "lesson.dg", cwd=lessons)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_lesson_runs_the_same_from_a_file_the_repl_and_dg_test(tmp_path: Path) -> None:
    lessons = course(tmp_path)
    from_file = dg("--lib", "../lib", "lesson.dg", cwd=lessons)
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.stdout.startswith(EXPECTED) and from_file.stdout.count("nn loaded") == 1
    assert from_file.stdout.endswith("['b0', 'b1', 'w0', 'w1']\n")
    # the library path from the environment instead of --lib
    assert dg("lesson.dg", cwd=lessons, lib=tmp_path / "lib").stdout == from_file.stdout
    # the REPL, fed the lesson line by line (the loop's block ends at a blank line)
    typed = LESSON.replace("    nn.sgd(params, 0.5)\n", "    nn.sgd(params, 0.5)\n\n")
    repl = dg("--lib", "../lib", cwd=lessons, stdin=typed)
    assert repl.returncode == 0 and repl.stdout == from_file.stdout, repl.stderr
    # dg test: the lesson's top level, then a test that uses what it imported
    (lessons / "test_lesson.dg").write_text(LESSON + "\ndef test_trained():\n    assert loss.item() < 0.25\n")
    tested = dg("test", "--lib", "../lib", "test_lesson.dg", cwd=lessons)
    assert tested.returncode == 0 and "test_lesson.dg::test_trained PASSED" in tested.stdout, tested.stdout


def test_reload_runs_the_edited_module_again_in_the_repl(tmp_path: Path) -> None:
    lessons = course(tmp_path)
    (lessons / "shapes.dg").write_text("def area(w, h):\n    return w * h\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "dglang.interpreter"],
        cwd=lessons,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},  # (a user's: output buffered)
    )
    assert proc.stdin is not None and proc.stdout is not None
    stuck = threading.Timer(60, proc.kill)  # (each cell's output reaches the pipe before the next is read)
    stuck.start()
    proc.stdin.write("from shapes import area\nimport shapes\nprint(area(2, 3))\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == "6\n"  # the module ran; now it is edited, as in an editor
    stuck.cancel()
    (lessons / "shapes.dg").write_text("def area(w, h):\n    return w * h / 2\n")
    out, err = proc.communicate(
        "print(area(2, 3))\n:reload shapes\nprint(area(2, 3), shapes.area(2, 3))\n:reload nothing\n:vars\n", timeout=120
    )
    assert out.splitlines()[:3] == ["6", "(shapes.dg run again; area, shapes rebound)", "3.0 3.0"]
    assert "CommandError: no module 'nothing' has been imported" in err
    assert "shapes  module    shapes.dg" in out


@pytest.mark.slow  # a Jupyter kernel
def test_a_notebook_imports_the_modules_and_completes_after_the_dot(tmp_path: Path, dg_kernel: str) -> None:  # noqa: F811
    nbformat = need("nbformat", "kernel")
    NotebookClient = need("nbclient", "kernel").NotebookClient
    need("ipykernel", "kernel")  # the kernel the notebook runs in
    from jupyter_client.manager import start_new_kernel

    lessons = course(tmp_path)
    expected = the_output(tmp_path / "again")
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(part) for part in LESSON.split("seed(0)\n")],
        metadata={"kernelspec": {"name": dg_kernel, "display_name": "DG", "language": "dg"}},
    )
    notebook.cells[1].source = "seed(0)\n" + notebook.cells[1].source
    os.environ["DG_LIB"] = str(tmp_path / "lib")
    try:
        NotebookClient(
            notebook, timeout=120, kernel_name=dg_kernel, resources={"metadata": {"path": str(lessons)}}
        ).execute()
        manager, client = start_new_kernel(kernel_name=dg_kernel, cwd=str(lessons))
    finally:
        del os.environ["DG_LIB"]
    shown = "".join(output.get("text", "") for cell in notebook.cells for output in cell.outputs)
    assert shown == expected
    try:
        client.execute_interactive("import data", timeout=60)
        reply = client.complete("data.po", 7, reply=True, timeout=60)
        assert reply["content"]["matches"] == ["points"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel()


@pytest.mark.parametrize("option", ["--lib", "DG_LIB"])
def test_a_missing_library_folder_is_a_usage_error_or_ignored(tmp_path: Path, option: str) -> None:
    (tmp_path / "p.dg").write_text("print(1)\n")
    if option == "--lib":
        result = dg("--lib", "nowhere", "p.dg", cwd=tmp_path)
        assert result.returncode == 2 and "argument --lib: no such folder: nowhere" in result.stderr
    else:
        assert dg("p.dg", cwd=tmp_path, lib=tmp_path / "nowhere").stdout == "1\n"
