"""Escape attempts: a program reaches only what the language documents, and every attempt to
reach more (Python's internals, files, the process's memory or stack) fails with a DG error.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.sessions import new_session as Session


def fails(text: str, base_dir: Path | None = None, **options: object) -> DGError:
    """The DG error `text` raises; it must be located and render through the formatter."""
    session = Session(out=io.StringIO(), base_dir=base_dir, **options)  # type: ignore[arg-type]
    with pytest.raises(DGError) as caught:
        session.run(text, "escape.dg")
    error = caught.value
    assert error.span is not None, f"no location: {error}"
    rendered = format_error(error)
    assert rendered.startswith(f"escape.dg:{error.span.line}:{error.span.column}: {error.kind}: ")
    assert error.kind != "InternalError", rendered
    return error


def runs(text: str, base_dir: Path | None = None) -> str:
    out = io.StringIO()
    Session(out=out, base_dir=base_dir).run(text, "escape.dg")
    return out.getvalue()


# ---- Python's object model ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "x = tensor([1.0])\nx.__class__",
        "x = tensor([1.0])\nx.__class__.__mro__",
        "x = tensor([1.0])\nx.data.__dict__",
        "x = tensor([1.0])\nx.grad_fn.__class__",
        "x = tensor([1.0])\nx.sum.__self__",
        "x = tensor([1.0])\nx._data",
        "x = tensor([1.0])\nx.numpy()",
        "x = tensor([1.0])\nx.backward()",
        "x = tensor([1.0])\nx.version",
        "print.__self__",
        "print.__globals__",
        "print.fn",
        "[].__class__.__base__.__subclasses__()",
        "(1).__class__",
        "''.__class__",
        "'abc'.format",
        "'{0.__class__}'.format(1)",
        "'abc'.__add__",
        "def f():\n    return 1\nf.__code__",
        "def f():\n    return 1\nf.body",
        "def f():\n    return 1\nf.env",
        "no_grad.enabled",
        "detect_anomaly.__class__",
        "x = tensor([1.0])\nx.__class__ = 1",
        "x = tensor([1.0])\nx.data = 1",
        "x = tensor([1.0])\nx.grad_fn = None",
        "x = [1]\nx.__len__ = 1",
    ],
)
def test_no_attribute_outside_the_documented_ones(text: str) -> None:
    assert fails(text).kind in {"AttributeError", "TypeError"}


@pytest.mark.every_op
def test_the_tensor_methods_are_the_declared_ones_and_none_is_private() -> None:
    """A program reaches a tensor method only where an op declares one (`method = True` in autograd/,
    from which docs/language.md's table is written) or the library writes one by hand
    (attributes.TENSOR_OWN_METHODS): nothing else of Tensor's Python API, and no private name."""
    from dglang.autograd.table import FUNCTIONS
    from dglang.interpreter.library import attributes

    declared = {f.dg_name for f in FUNCTIONS if f.method}
    assert set(attributes.TENSOR_METHODS) == declared | set(attributes.TENSOR_OWN_METHODS)
    assert set(attributes.PYTORCH_MEANINGS) <= declared, "PyTorch's meaning is given to a declared method only"
    private = sorted(name for name in attributes.TENSOR_METHODS if not name.isidentifier() or name.startswith("_"))
    assert not private, f"a program could reach {private}"
    assert declared.isdisjoint(attributes.TENSOR_OWN_METHODS), "a method listed twice"
    assert set(attributes.TENSOR_PROPERTIES).isdisjoint(attributes.TENSOR_METHODS)


@pytest.mark.parametrize(
    "text",
    [
        "import os",
        "from os import path",
        "__import__('os')",
        "open('x')",
        "eval('1')",
        "exec('x = 1')",
        "compile('1', 'x', 'eval')",
        "getattr(1, '__class__')",
        "globals()",
        "locals()",
        "vars()",
        "dir()",
        "__builtins__",
        "__name__",
        "input()",
        "exit()",
        "breakpoint.fn",
        "type(1).__mro__",
        "lambda: 1",
        "del x",
        "global x",
        "class A: pass",
        "try:\n    pass\nexcept:\n    pass",
        "yield 1",
        "async def f(): pass",
        "{1, 2}",
        "import os.path",
        "from ..secrets import key",
    ],
)
def test_no_python_builtins_imports_or_statements(text: str) -> None:
    assert fails(text).kind in {"SyntaxError", "NameError", "AttributeError", "ImportError"}


@pytest.mark.parametrize(
    "text",
    [
        'f"{x.__class__}"',
        'f"{x:{x}}"',
        'f"{x!r}"',
        'f"{x.__class__.__init__.__globals__}"',
        'f"{print.__self__}"',
        'f"{x:%s}"',
        'f"{1:1000000000}"',
        'f"{1.5:.100000f}"',
        'f"{1:,>999999999}"',
        'f"{(1).__class__}"',
        'f"{{}}{x.__dict__}"',
    ],
)
def test_f_strings_and_format_specs_reach_nothing(text: str) -> None:
    error = fails("x = tensor([1.0])\ny = " + text)
    assert error.kind in {"SyntaxError", "AttributeError", "ValueError", "TypeError"}


def test_a_format_spec_is_only_a_format() -> None:
    assert (
        runs("x = 3.14159\nprint(f\"{x:>10.2f}|{x:e}|{7:04d}|{'ab':^6}|\")") == "      3.14|3.141590e+00|0007|  ab  |\n"
    )


# ---- files -------------------------------------------------------------------------------------
@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A program folder with a data file, and a secret file beside it (outside)."""
    program = tmp_path / "lesson"
    program.mkdir()
    (program / "data.csv").write_text("a,b\n1,2\n")
    (program / "sub").mkdir()
    (program / "sub" / "inner.csv").write_text("3,4\n")
    (tmp_path / "secret.csv").write_text("7,7\n")
    return program, tmp_path / "secret.csv"


def test_load_csv_reads_inside_the_folder(folders: tuple[Path, Path]) -> None:
    program, _ = folders
    assert runs('print(load_csv("data.csv"), load_csv("sub/inner.csv"), load_csv("./data.csv"))', program) == (
        "tensor([[1., 2.]]) tensor([[3., 4.]]) tensor([[1., 2.]])\n"
    )


@pytest.mark.parametrize(
    "path",
    [
        "../secret.csv",
        "sub/../../secret.csv",
        "/etc/passwd",
        "/dev/zero",
        "/proc/self/environ",
        "~/secret.csv",
        "link.csv",
        "sub_link/secret.csv",
        "data.csv\\0.txt",
        "",
        ".",
        "sub",
        "missing.csv",
        "fifo.csv",
        "a" * 300 + ".csv",  # longer than a file name may be
        "/".join(["sub"] * 2000),  # longer than a path may be
        "link_loop.csv",  # a symbolic link to itself
    ],
)
def test_load_csv_path_tricks(folders: tuple[Path, Path], path: str) -> None:
    program, secret = folders
    (program / "link.csv").symlink_to(secret)  # a symbolic link that leads out
    (program / "sub_link").symlink_to(secret.parent)
    os.mkfifo(program / "fifo.csv")  # reading a FIFO would block forever
    (program / "link_loop.csv").symlink_to(program / "link_loop.csv")
    error = fails(f'load_csv("{path}")', program)
    assert error.kind in {"FileError", "ValueError"}
    assert len(error.message) < 300  # a long path is cut in the message


def test_load_csv_is_not_fooled_by_a_nul_byte(folders: tuple[Path, Path]) -> None:
    program, _ = folders
    error = fails('load_csv("data.csv\\x00.txt")', program)  # the escape makes a NUL inside the DG string
    assert error.kind == "FileError" and "NUL" in error.message


def test_load_csv_takes_only_strings(folders: tuple[Path, Path]) -> None:
    program, _ = folders
    assert fails("load_csv(['data.csv'])", program).kind == "TypeError"


@pytest.mark.parametrize("content", [b"1,2\x00\n", b"\xff\xfe\n", b"a,b\n", b"1," + b"9" * 200_000 + b"\n"])
def test_load_csv_of_a_file_that_is_not_a_csv(folders: tuple[Path, Path], content: bytes) -> None:
    program, _ = folders
    (program / "bad.csv").write_bytes(content)
    assert fails('load_csv("bad.csv")', program).kind == "FileError"


def test_allow_path_opens_one_more_folder(folders: tuple[Path, Path]) -> None:
    program, secret = folders
    other = secret.parent
    out = io.StringIO()
    session = Session(out=out, base_dir=program, allowed_dirs=[other])
    session.run(f'print(load_csv("{secret}"), load_csv("../secret.csv"))', "escape.dg")
    assert out.getvalue() == "tensor([[7., 7.]]) tensor([[7., 7.]])\n"
    # ... and no more than that folder
    error = fails('load_csv("/etc/passwd")', program, allowed_dirs=[other])
    assert error.kind == "FileError" and "allowed folders" in error.message


def test_allow_path_on_the_command_line(folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    program, secret = folders
    (program / "read.dg").write_text(f'print(load_csv("{secret}").sum())\n')
    assert cli.main([str(program / "read.dg")]) == cli.EXIT_RUNTIME
    assert "FileError" in capsys.readouterr().err
    assert cli.main(["--allow-path", str(secret.parent), str(program / "read.dg")]) == cli.EXIT_OK
    assert capsys.readouterr().out == "tensor(14.)\n"


@pytest.mark.parametrize("folder", ["nowhere", "x" * 300, "loop"])
def test_allow_path_must_be_a_folder(folder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.dg").write_text("print(1)\n")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert cli.main(["--allow-path", str(tmp_path / folder), str(tmp_path / "p.dg")]) == cli.EXIT_USAGE
    assert "dg: UsageError: --allow-path" in capsys.readouterr().err


# ---- huge allocations --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "zeros(100000, 100000)",
        "ones(100000, 100000)",
        "full((100000, 100000), 1.0)",
        "randn(100000, 100000)",
        "rand(100000, 100000)",
        "arange(10 ** 12)",
        "arange(0.0, 1e300, 1e-300)",
        "arange(0, inf)",
        "linspace(0, 1, 10 ** 12)",
        "eye(10 ** 6)",
        "moons(10 ** 10)",
        "zeros(-1)",
        "zeros(100000, 1) * zeros(1, 100000)",
        "zeros(100000, 1) + zeros(100000)",
        "maximum(zeros(100000, 1), zeros(100000))",
        "where(zeros(100000, 1) > 0, zeros(100000), 0.0)",
        "ones(100000, 1) @ ones(1, 100000)",
        "ones(1000, 1000, 1) @ ones(1, 1, 1000)",
        "stack([ones(10 ** 7)] * 100)",
        "concat([ones(10 ** 7)] * 100)",
        "ones(10 ** 6)[[0] * 10 ** 7][None] * ones(100, 1)",
        "ones(1, 10 ** 5)[[0] * 10 ** 4]",
        "tensor([[0.0] * 10 ** 7] * 10 ** 7)",
        "[0] * 10 ** 10",
        "'ab' * 10 ** 10",
        "(1, 2) * 10 ** 10",
        "10 ** 10 ** 10",
        "2 ** 100000",
        "list(range(10 ** 12))",
        "sorted(range(10 ** 12))",
        "sum(range(10 ** 12))",
        "zip(range(10 ** 12), range(10 ** 12))",
        pytest.param("ones(10 ** 8).tolist()", marks=pytest.mark.slow),
        "''.join(['x' * 10 ** 7] * 10)",
        "('x' * 10 ** 7).replace('', 'yy')",
        'f\'{"x" * 10 ** 7}{"x" * 10 ** 7}\'',
    ],
)
def test_huge_allocations_are_refused_before_allocating(text: str) -> None:
    assert fails(f"big = {text}").kind in {"ValueError", "OverflowError"}


@pytest.mark.parametrize(
    "text",
    [
        "x = [0] * 10 ** 6\nfor i in range(30):\n    x += x",
        "x = [0] * 10 ** 6\nfor i in range(30):\n    x.extend(x)",
        "x = 'ab'\nfor i in range(40):\n    x = f'{x}{x}'",
        "x = [1]\nfor i in range(40):\n    x *= 2",
        "x = 3\nfor i in range(40):\n    x = x * x",
        "x = 3\nfor i in range(40):\n    x *= x",
        "x = 3\nfor i in range(40):\n    x **= 2",
    ],
)
def test_doubling_in_a_loop_is_refused(text: str) -> None:
    assert fails(text).kind in {"ValueError", "OverflowError"}


# ---- deep nesting and long lines in the source ----------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "x = " + "(" * 10_000 + "1" + ")" * 10_000,
        "x = " + "[" * 10_000 + "1" + "]" * 10_000,
        "x = " + "-" * 10_000 + "1",
        "x = " + "not " * 10_000 + "True",
        pytest.param("x = " + " + ".join(["1"] * 100_000), marks=pytest.mark.slow),
        "x = " + " ** ".join(["1"] * 10_000),
        "x = 1" + " if True else 1" * 10_000,
        "x = [1]" + "[0]" * 10_000,
        "x = print" + "()" * 10_000,
        "x = tensor(1.0)" + ".T" * 10_000,
        # 1,000 nested blocks, one space a level (four would make a program over the 1 MiB limit)
        pytest.param(
            "".join(" " * i + "if True:\n" for i in range(1000)) + " " * 1000 + "pass\n", marks=pytest.mark.slow
        ),
        "".join(" " * i + "while False:\n" for i in range(1000)) + " " * 1000 + "pass\n",
        "".join(" " * i + f"def f{i}():\n" for i in range(1000)) + " " * 1000 + "pass\n",
        'x = f"{' + "(" * 5000 + "1" + ")" * 5000 + '}"',
    ],
)
def test_deeply_nested_source_fails_cleanly(text: str) -> None:
    """Either it runs (a flat structure) or it is a located error; never a RecursionError escaping."""
    session = Session(out=io.StringIO())
    try:
        session.run(text, "escape.dg")
    except DGError as error:
        assert error.span is not None and error.kind in {"SyntaxError", "RecursionError", "TypeError", "IndexError"}
        assert len(format_error(error).splitlines()[2]) < 200  # the source line is cut around the caret


def test_a_nesting_error_names_the_line_and_suggests_a_fix() -> None:
    error = fails("y = 1\nx = " + "-" * 5000 + "1\n")
    assert error.kind == "SyntaxError" and error.span is not None and error.span.line == 2
    assert error.help is not None and "smaller" in error.help


def test_moderate_nesting_still_runs() -> None:
    assert runs("x = " + "(" * 100 + "1" + ")" * 100 + "\nprint(" + " + ".join(["1"] * 100) + ")") == "100\n"


@pytest.mark.parametrize(
    "text",
    [
        "x = 1 + 'a'  # " + "y" * 1_000_000,
        "x = '" + "y" * 1_000_000 + "' + 1",
        "x = [" + ", ".join(["1"] * 100_000) + "]\nprint(len(x))\nx.nothing",
        "x = 1" + " " * 1_000_000 + "+ 'a'",
    ],
)
def test_very_long_lines(text: str) -> None:
    error = fails(text)
    assert error.kind in {"TypeError", "AttributeError"}
    assert all(len(line) < 300 for line in format_error(error).splitlines())


# ---- values that would overflow the C stack -----------------------------------------------------------
DEEP = "x = []\nfor i in range(300000):\n    x = [x]\n"  # a list nested deeper than the recursion limit


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint(a == b)", "RecursionError"),
        ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint(a < b)", "RecursionError"),
        ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint(sorted([a, b]))", "RecursionError"),
        ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint(a in [b])", "RecursionError"),
        ("a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint([b].index(a))", "RecursionError"),
        ("x = []\ny = []\nfor i in range(100000):\n    x = [x]\n    y = [y]\nprint(x == y)", "RecursionError"),
        (DEEP + "print(x)", "RecursionError"),
        (DEEP + "y = str(x)", "RecursionError"),
        ("x = []\nfor i in range(100000):\n    x = [x]\ny = tensor(x)", "ValueError"),
        pytest.param("x = [[0] * 10 ** 6] * 10 ** 6\nprint(x)", "ValueError", marks=pytest.mark.slow),
        pytest.param("x = [[[]] * 10 ** 6] * 10 ** 6\ny = str(x)", "ValueError", marks=pytest.mark.slow),
        ("print(7 ** 5000 * 7 ** 5000 * 7 ** 5000)", "OverflowError"),
        (DEEP + "print(1, 2, sep=x)", "RecursionError"),
        (DEEP + "print(1, end=x)", "RecursionError"),
        (DEEP + "moons(x)", "ValueError"),
        (DEEP + "assert False, x", "RecursionError"),
        (DEEP + "tensor(1.0, dtype=x)", "ValueError"),
        (DEEP + "y = tensor(1.0, requires_grad=True)\ngrad y with x", "ValueError"),
    ],
)
def test_recursive_structures_fail_without_crashing(text: str, kind: str) -> None:
    assert fails(text).kind == kind


def test_a_list_that_contains_itself_prints_as_in_python() -> None:
    assert runs("a = [1, (2,)]\na.append(a)\nprint(a, a == a, len(str(a)))") == "[1, (2,), [...]] True 16\n"


def test_lists_still_compare_like_python() -> None:
    assert runs(
        "print([1, [2, 3]] == [1, [2, 3]], [1, 2] != [1, 2], [1, [2]] < [1, [3]], (1, 2) <= (1, 2), [1] > [0, 5])\n"
        "print(sorted([[2, 1], [1, 5], [1, 2]]), max([[1], [3], [2]]), [1, 2] == (1, 2), [3, 4].index(4))\n"
        "print(1.0 in range(3), 1.5 in range(10 ** 15), 'a' in range(3), 10 ** 14 in range(10 ** 15))"
    ) == ("True False True True True\n[[1, 2], [1, 5], [2, 1]] [3] False 1\nTrue False False True\n")


def test_text_the_output_cannot_encode_is_written_as_escapes() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    Session(out=stream).run('print("caf\u00e9 \\ud800")', "escape.dg")
    stream.flush()
    assert raw.getvalue() == b"caf\\xe9 \\ud800\n"


def test_a_message_quoting_a_huge_value_is_cut() -> None:
    error = fails('full(3, "x" * 10 ** 6)')
    assert len(format_error(error).splitlines()[0]) < 600
