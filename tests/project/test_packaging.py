"""DG as an installed package: the wheel holds one top-level package, `dglang`, so it installs
beside HIPS autograd (import name `autograd`, a dependency of PennyLane and others) and uninstalls
without breaking it. Before the rename, DG's wheel carried a top-level `autograd/` that overwrote
HIPS autograd's `__init__.py`, and `pip uninstall` then deleted it.

The test needs PyPI (for HIPS autograd, DG's dependencies and setuptools to build with) and takes
some seconds: it is marked `network` (`-m "not network"` leaves it out) and runs in CI; it is
skipped only when PyPI cannot be reached. It uses uv when there is one (its cache makes the
install quick), else pip; the uninstall is pip's, as a user would run it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # installs DG
ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "programs"
UV = shutil.which("uv")
PYPI = "https://pypi.org/simple/autograd/"

# HIPS autograd's own gradient: d/dx tanh(x) at 0 is 1.
HIPS = "import autograd, autograd.numpy as np; print(autograd.grad(np.tanh)(0.0), autograd.__file__, sep='\\n')"
OURS = (
    "from dglang.autograd import tensor; x = tensor([1.0, 2.0], requires_grad=True); "
    "(x * x).sum().backward(); print(x.grad)"
)


def run(*args: str | Path, cwd: Path) -> str:
    """Run a command in `cwd`, which must not be the repository: `python -c` there would import its
    folders (autograd/ among them) before anything installed."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, encoding="utf-8", cwd=cwd)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done.stdout


def pypi_or_skip() -> None:
    try:
        with urllib.request.urlopen(PYPI, timeout=15):
            pass
    except OSError as e:
        pytest.skip(f"PyPI is unreachable ({PYPI}: {e})")


def build_wheel(out: Path) -> Path:
    # uv builds an sdist first and the wheel from it, so no build/ folder lands in the repository
    if UV:
        run(UV, "build", "--quiet", "--out-dir", out, ROOT, cwd=out.parent)
    else:
        run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", out, ROOT, cwd=out.parent)
    [wheel] = out.glob("dglang-*.whl")
    return wheel


@pytest.mark.network
def test_the_wheel_installs_beside_hips_autograd_and_uninstalls_without_breaking_it(tmp_path: Path) -> None:
    pypi_or_skip()
    wheel = build_wheel(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as z:
        top = {name.split("/")[0] for name in z.namelist()}
    name = wheel.name.split("-py3")[0]
    assert top == {"dglang", f"{name}.dist-info", f"{name}.data"}, f"the wheel installs {top}"
    with zipfile.ZipFile(wheel) as z:  # the DG kernel, for the Jupyter installed beside it
        assert f"{name}.data/data/share/jupyter/kernels/dglang/kernel.json" in z.namelist()
    with zipfile.ZipFile(wheel) as z:  # `dg graph -o out.html` inlines these into the page it writes
        assert {f"dglang/interpreter/seeing/stepper.{kind}" for kind in ("html", "css", "js")} <= set(z.namelist())
    with zipfile.ZipFile(wheel) as z:  # the data sets digits() and shakespeare() load, and where they come from
        shipped = {f"dglang/data/{name}" for name in ("digits_train.csv", "digits_test.csv", "tiny_shakespeare.txt")}
        assert shipped | {"dglang/data/README.md"} <= set(z.namelist())

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)  # with pip in it, for the uninstall a user would run
    bin = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin / "python"
    if UV:
        run(UV, "pip", "install", "--quiet", "--python", python, "autograd", wheel, cwd=tmp_path)
    else:
        run(python, "-m", "pip", "install", "--quiet", "autograd", wheel, cwd=tmp_path)

    # Both work side by side, each under its own name.
    grad, hips_file = run(python, "-c", HIPS, cwd=tmp_path).splitlines()
    assert float(grad) == 1.0 and "dglang" not in hips_file
    assert run(python, "-c", OURS, cwd=tmp_path).strip() == "tensor([2., 4.])"
    lesson = ROOT / "programs" / "01_hello.dg"
    assert run(bin / "dg", lesson, cwd=tmp_path) == (GOLDEN / "01_hello.out").read_text(encoding="utf-8")
    data_lesson = tmp_path / "data_lesson.dg"  # the installed builtins find the installed data
    data_lesson.write_text("x, y, tx, ty = digits()\nprint(x.shape, tx.shape, len(shakespeare()))\n")
    assert run(bin / "dg", data_lesson, cwd=tmp_path) == "(1347, 64) (450, 64) 1115394\n"
    # The fast parser's tables are in the wheel and current: a program that parses loads no lark.
    parsed = "from dglang.interpreter.syntax.fast import fast_parser; import sys; "
    parsed += "print(fast_parser.PARSER is not None, 'lark' in sys.modules)"
    assert run(python, "-c", parsed, cwd=tmp_path).split() == ["True", "False"]
    # Jupyter finds the DG kernel the wheel installed beside the package.
    assert (venv / "share" / "jupyter" / "kernels" / "dglang" / "kernel.json").is_file()
    # Pygments finds DG's lexer through the installed entry point.
    assert '<span class="k">grad</span>' in run(bin / "pygmentize", "-l", "dglang", "-f", "html", lesson, cwd=tmp_path)

    run(python, "-m", "pip", "uninstall", "--yes", "--quiet", "dglang", cwd=tmp_path)
    grad, _ = run(python, "-c", HIPS, cwd=tmp_path).splitlines()
    assert float(grad) == 1.0
    gone = subprocess.run([str(python), "-c", "import dglang"], capture_output=True, text=True, cwd=tmp_path)
    assert gone.returncode != 0 and "ModuleNotFoundError" in gone.stderr
    assert not (bin / "dg").exists()
