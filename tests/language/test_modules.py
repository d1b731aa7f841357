"""Modules: `import nn` and `from nn import linear` find nn.dg (the importer's folder, then the
library path), run it once per session in a scope of its own, and bind its names; every way an
import can go wrong is a located error; nothing but a .dg file under the allowed folders is read."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.host.module_files import library_folders


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_in(folder: Path, text: str, library: list[Path] | None = None, limits: Limits | None = None) -> str:
    """Run `text` as the program main.dg of `folder`, as `dg main.dg` would there."""
    out = io.StringIO()
    (folder / "main.dg").write_text(text)
    session = new_session(out=out, base_dir=folder, library=library or [], library_variable=False, limits=limits)
    session.modules.files["main.dg"] = folder / "main.dg"  # the name messages use, and the file it is
    session.run(text, "main.dg")
    return out.getvalue()


def fails_in(folder: Path, text: str, library: list[Path] | None = None) -> DGError:
    with pytest.raises(DGError) as caught:
        run_in(folder, text, library)
    return caught.value


NN = """\
print("nn runs")
scale = 10

def linear(x, w):
    return x * w * scale

def twice(f, x):
    return f(f(x))
"""


def test_import_binds_the_module_and_from_binds_its_names(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    out = run_in(tmp_path, "import nn\nfrom nn import linear, scale\nprint(nn.linear(2, 3), linear(1, 1), scale, nn)")
    assert out == "nn runs\n60 10 10 <module nn from nn.dg>\n"


def test_a_module_runs_once_per_session_however_often_it_is_imported(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN, "other.dg": "import nn\nfrom nn import scale\n"})
    out = run_in(tmp_path, "import nn\nimport other\nfrom nn import linear\nimport nn\nprint(other.scale)")
    assert out == "nn runs\n10\n"


def test_a_module_has_its_own_namespace(tmp_path: Path) -> None:
    """It sees only its own names and the builtins: neither the importer's variables, nor the
    importer's redefinitions of builtins; and its own names do not leak out."""
    write(tmp_path, {"m.dg": "def show():\n    return len([1, 2])\nhidden = 1\ndef reads():\n    return secret\n"})
    out = run_in(tmp_path, "def len(x):\n    return -1\nsecret = 5\nimport m\nprint(m.show(), len([]))")
    assert out == "2 -1\n"
    assert fails_in(tmp_path, "import m\nprint(hidden)").kind == "NameError"
    error = fails_in(tmp_path, "secret = 5\nimport m\nm.reads()")
    assert (error.kind, error.span.source.name) == ("NameError", "m.dg")  # type: ignore[union-attr]


def test_functions_of_a_module_close_over_its_scope(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    out = run_in(tmp_path, "import nn\nscale = 0\ndef f(x):\n    return nn.linear(x, 1)\nprint(nn.twice(f, 1))")
    assert out == "nn runs\n100\n"


def test_the_importer_s_folder_comes_first_then_the_library_in_order(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "lesson/a.dg": "where = 'lesson'",
            "lib1/a.dg": "where = 'lib1'",
            "lib1/b.dg": "where = 'lib1'\nimport c",
            "lib1/c.dg": "where = 'lib1'",
            "lib2/b.dg": "where = 'lib2'",
            "lib2/d.dg": "where = 'lib2'",
        },
    )
    libs = [tmp_path / "lib1", tmp_path / "lib2"]
    out = run_in(tmp_path / "lesson", "import a, b, d\nprint(a.where, b.where, b.c.where, d.where)", libs)
    assert out == "lesson lib1 lib1 lib2\n"


def test_a_module_s_own_imports_are_looked_for_in_its_own_folder(tmp_path: Path) -> None:
    write(tmp_path, {"lib/nn.dg": "import helpers\nn = helpers.n", "lib/helpers.dg": "n = 7", "main/x.dg": ""})
    assert run_in(tmp_path / "main", "import nn\nprint(nn.n)", [tmp_path / "lib"]) == "7\n"


def test_the_library_path_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"one/a.dg": "", "two/b.dg": ""})
    monkeypatch.setenv(
        "DG_LIB", os.pathsep.join([str(tmp_path / "one"), str(tmp_path / "missing"), str(tmp_path / "two")])
    )
    assert [f.path.name for f in library_folders([tmp_path / "two"])] == ["two", "one"]
    assert [f.path.name for f in library_folders([], environment="")] == []


def test_messages_name_a_module_by_the_folder_as_written(tmp_path: Path) -> None:
    write(tmp_path, {"lib/nn.dg": "x = 1 / 0"})
    error = fails_in(tmp_path, "import nn", [tmp_path / "lib"])
    assert error.span.source.name == os.path.join(str(tmp_path / "lib"), "nn.dg")  # type: ignore[union-attr]


def test_an_error_in_a_module_shows_the_import_that_led_there(tmp_path: Path) -> None:
    write(tmp_path, {"a.dg": "import b\n", "b.dg": "def f():\n    return [1][3]\nf()\n"})
    text = format_error(fails_in(tmp_path, "print(1)\nimport a\n"))
    assert text.splitlines()[0] == "b.dg:2:12: IndexError: index 3 is out of range for a list of length 1"
    stack = text.split("DG call stack (innermost last):\n")[1].splitlines()
    assert [row.split()[:2] for row in stack] == [
        ["main.dg:2:8", "<program>"],
        ["a.dg:1:8", "<module"],
        ["b.dg:3:1", "<module"],
        ["b.dg:2:12", "f"],
    ]


def test_a_module_that_failed_runs_again_at_the_next_import(tmp_path: Path) -> None:
    write(tmp_path, {"flaky.dg": "print('running')\nbad = undefined_name\n"})
    session = new_session(out=io.StringIO(), base_dir=tmp_path)
    for _ in range(2):
        with pytest.raises(DGError):
            session.run("import flaky", "<cell>")
    assert session.out.getvalue() == "running\nrunning\n"  # type: ignore[attr-defined]


def test_names_are_checked_before_anything_runs(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    out = io.StringIO()
    session = new_session(out=out, base_dir=tmp_path)
    for text, kind in (
        ("print('ran')\nfrom nn import lineer", "ImportError"),
        ("print('ran')\nimport nn\nnn.lineer(1, 2)", "AttributeError"),
    ):
        with pytest.raises(DGError) as caught:
            session.run(text, "<test>")
        assert caught.value.kind == kind and caught.value.help == "did you mean 'linear'?"
    assert out.getvalue() == ""  # neither the program nor nn ran


def test_a_name_that_is_not_only_the_module_is_checked_when_it_runs(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    out = run_in(tmp_path, "import nn\ndef f(nn):\n    return nn.anything\nprint(f({}) if False else 'ok')")
    assert out == "nn runs\nok\n"
    error = fails_in(tmp_path, "import nn\nm = nn\nprint(m.lineer)")
    assert (error.kind, error.message) == ("AttributeError", "module 'nn' has no attribute 'lineer'")


def test_a_name_defined_on_a_path_the_module_did_not_take(tmp_path: Path) -> None:
    write(tmp_path, {"m.dg": "if False:\n    maybe = 1\n"})
    error = fails_in(tmp_path, "from m import maybe")
    assert error.kind == "ImportError" and "did not define it when it ran" in error.message


def test_a_module_s_names_cannot_be_assigned_from_outside(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    assert fails_in(tmp_path, "import nn\nnn.scale = 1").kind == "AttributeError"


@pytest.mark.parametrize(
    ("files", "program", "message"),
    [
        ({}, "import nn", "no module named 'nn'"),
        ({}, "import torch", "no module named 'torch'"),
        ({}, "import torch.nn", "no module named 'torch.nn' in DG"),
        ({}, "from . import x", None),  # a syntax error: `from .` needs a name
        ({}, "from .nn import x", "'.nn' is relative to the program's folder"),
        ({}, "from ..nn import x", "'..nn' climbs out of the program's folder"),
        ({"nn.py": "print('python')"}, "import nn", "no module named 'nn'"),
        ({"nn.dg/x": ""}, "import nn", "cannot import nn: nn.dg is not a file"),
        ({"a.dg": "import b", "b.dg": "import c", "c.dg": "import a"}, "import a", "import cycle: a imports b, which"),
        ({}, "import main", "import cycle: main imports main"),
    ],
)
def test_what_cannot_be_imported(tmp_path: Path, files: dict[str, str], program: str, message: str | None) -> None:
    write(tmp_path, files)
    error = fails_in(tmp_path, program)
    assert error.span is not None
    if message is None:
        assert error.kind == "SyntaxError"
    else:
        assert error.kind == "ImportError" and error.message.startswith(message)


def test_a_module_that_is_not_utf8_or_too_large(tmp_path: Path) -> None:
    (tmp_path / "latin.dg").write_bytes(b"x = '\xe9'\n")
    assert "latin.dg is not UTF-8 text" in fails_in(tmp_path, "import latin").message
    (tmp_path / "huge.dg").write_text("x = 1\n" * 200_000)
    assert "larger than 1,048,576 bytes" in fails_in(tmp_path, "import huge").message


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_a_link_may_not_lead_out_of_the_allowed_folders(tmp_path: Path) -> None:
    write(tmp_path, {"outside/secret.dg": "x = 1", "course/lib/nn.dg": "x = 2", "course/lesson/x.dg": ""})
    lesson = tmp_path / "course" / "lesson"
    (lesson / "secret.dg").symlink_to(tmp_path / "outside" / "secret.dg")
    (lesson / "nn.dg").symlink_to(tmp_path / "course" / "lib" / "nn.dg")
    (lesson / "loop.dg").symlink_to(lesson / "loop.dg")
    error = fails_in(lesson, "import secret")
    assert (
        error.message
        == "cannot import secret: secret.dg is a link that leads outside the folders DG reads modules from"
    )
    assert "cannot be followed" in fails_in(lesson, "import loop").message
    # a link into a folder of the library path is one DG reads modules from
    assert run_in(lesson, "import nn\nprint(nn.x)", [tmp_path / "course" / "lib"]) == "2\n"
    assert fails_in(lesson, "import nn").kind == "ImportError"


def test_nothing_but_the_dg_file_is_read(tmp_path: Path) -> None:
    """A Python file, a compiled one or a pickled cache beside the module is never imported."""
    write(tmp_path, {"nn.dg": "x = 1", "nn.py": "raise SystemExit('python ran')"})
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "nn.cpython-311.pyc").write_bytes(b"not a module")
    assert run_in(tmp_path, "import nn\nprint(nn.x)") == "1\n"


def test_modules_run_under_the_limits_of_the_run(tmp_path: Path) -> None:
    write(tmp_path, {"loop.dg": "while True:\n    pass\n"})
    with pytest.raises(DGError) as caught:
        run_in(tmp_path, "import loop", limits=Limits(max_steps=1000))
    assert caught.value.kind == "LimitError" and caught.value.span.source.name == "loop.dg"  # type: ignore[union-attr]


def test_a_chain_of_imports_too_long_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {f"m{i}.dg": f"import m{i + 1}\n" for i in range(150)} | {"m150.dg": ""})
    error = fails_in(tmp_path, "import m0")
    assert error.kind == "ImportError" and "more than 100 deep" in error.message


def test_import_is_only_at_the_top_level_and_only_one_name_deep(tmp_path: Path) -> None:
    write(tmp_path, {"nn.dg": NN})
    assert fails_in(tmp_path, "def f():\n    import nn").message == "import is only allowed at the top level of a file"
    assert run_in(tmp_path, "if True:\n    import nn\nprint(nn.scale)") == "nn runs\n10\n"


def test_tensors_made_in_a_module_keep_their_gradients(tmp_path: Path) -> None:
    write(
        tmp_path, {"params.dg": "w = tensor([1.0, 2.0], requires_grad=True)\ndef loss(x):\n    return (w * x).sum()\n"}
    )
    out = run_in(tmp_path, "import params\ngrad params.loss(tensor([3.0, 4.0]))\nprint(params.w.grad)")
    assert out == "tensor([3., 4.])\n"


def test_a_session_without_modules_cannot_import() -> None:
    from dglang.interpreter.diagnostics.source import Source
    from dglang.interpreter.semantics.context import RunContext
    from dglang.interpreter.semantics.evaluator import compile_program
    from dglang.interpreter.syntax.parser import parse

    with pytest.raises(DGError) as caught:
        compile_program(parse(Source("<t>", "import nn\n")), RunContext())
    assert caught.value.kind == "ImportError"
