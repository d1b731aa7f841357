"""The `dg` command as a user meets it: a real process, its output streams and exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from slow_cases import slow_where

from dglang import __version__
from dglang.interpreter.frontends import cli

ROOT = Path(__file__).resolve().parents[2]


def dg(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_runs_a_program_and_exits_0() -> None:
    result = dg("programs/02_branches.dg")
    assert result.returncode == 0, result.stderr
    assert "input_positive.grad: tensor([2., 2., 2.])" in result.stdout
    assert result.stderr == ""


def test_run_subcommand_is_the_same() -> None:
    assert dg("run", "programs/02_branches.dg").stdout == dg("programs/02_branches.dg").stdout


def test_program_from_standard_input() -> None:
    result = dg("-", stdin="x = tensor([1.0, 2.0], requires_grad=True)\ngrad (x * x).sum()\nprint(x.grad)\n")
    assert result.returncode == 0 and result.stdout == "tensor([2., 4.])\n"


def test_output_before_an_error_is_kept_and_the_error_goes_to_stderr() -> None:
    result = dg("-", stdin='print("before")\nx = 1 / 0\nprint("after")\n')
    assert result.returncode == cli.EXIT_RUNTIME
    assert result.stdout == "before\n"
    assert result.stderr.startswith("<stdin>:2:5: ZeroDivisionError: division by zero")


def test_syntax_error_exit_code_and_nothing_runs() -> None:
    result = dg("-", stdin='print("never")\nif x\n')
    assert result.returncode == cli.EXIT_SYNTAX
    assert result.stdout == ""
    assert "SyntaxError" in result.stderr


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["missing.dg"], cli.EXIT_NOINPUT, "dg: FileError: cannot read 'missing.dg': no such file"),
        (["programs"], cli.EXIT_NOINPUT, "it is a folder"),
        (["run"], cli.EXIT_USAGE, "run needs a FILE"),
        (["-i"], cli.EXIT_USAGE, "-i needs a FILE"),
        (["--no-such-flag", "x.dg"], cli.EXIT_USAGE, "dg: UsageError: unrecognized arguments: --no-such-flag"),
        (["--timeout", "soon", "x.dg"], cli.EXIT_USAGE, "dg: UsageError: argument --timeout"),
        (["graph", "x.dg"], cli.EXIT_USAGE, "dg: UsageError: the following arguments are required: --var"),
    ],
)
def test_usage_problems(args: list[str], code: int, text: str) -> None:
    """Every complaint comes from the one formatter: `dg: Kind: message`, then a help line."""
    result = dg(*args)
    assert result.returncode == code
    assert text in result.stderr
    assert "Traceback" not in result.stderr and "usage:" not in result.stderr
    assert (result.stderr.startswith("dg: ") and "= help: " in result.stderr) or code == cli.EXIT_NOINPUT


def test_standard_input_that_is_not_utf8_is_a_file_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "-"],
        input=b"print(1)\n\xff\xfe\n",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == cli.EXIT_NOINPUT
    assert result.stderr.decode() == "dg: FileError: cannot read standard input: it is not UTF-8 text\n"


def test_version_and_help() -> None:
    assert dg("--version").stdout.strip() == f"dg {__version__}"
    help_text = dg("--help").stdout
    assert "dg FILE.dg" in help_text and "--max-depth" in help_text


def test_debug_flag_shows_the_python_traceback_of_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """--debug exists for DG's developers; without it an internal failure is still one located message."""
    from dglang.interpreter.library import operators

    def broken(a: object, b: object) -> object:
        raise RuntimeError("simulated bug")

    monkeypatch.setitem(operators.BINARY, "+", broken)
    program = tmp_path / "prog.dg"
    program.write_text("x = 1 + 2\n")
    assert cli.main([str(program)]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert "InternalError: RuntimeError: simulated bug" in err and "Traceback" not in err
    assert cli.main(["--debug", str(program)]) == cli.EXIT_RUNTIME
    assert "Traceback" in capsys.readouterr().err


def test_data_files_are_found_next_to_the_program(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("1,2\n3,4\n")
    (tmp_path / "prog.dg").write_text('print(load_csv("data.csv").sum().item())\n')
    result = dg(str(tmp_path / "prog.dg"))
    assert result.stdout == "10.0\n", result.stderr


def test_programs_larger_than_the_limit_are_refused_unread(tmp_path: Path) -> None:
    """A device that never ends, a huge file, huge standard input: refused after 1 MiB, not read whole."""
    big = tmp_path / "big.dg"
    big.write_text("x = 1\n" * 200_000)  # 1.2 MB
    cases = [([str(big)], None, f"'{big}': it is larger than 1,048,576 bytes"), (["-"], "x = 1\n" * 200_000, "")]
    if Path("/dev/zero").exists():
        cases.append((["/dev/zero"], None, "'/dev/zero': it is larger than 1,048,576 bytes"))
    for args, stdin, text in cases:
        result = dg(*args, stdin=stdin)
        assert result.returncode == cli.EXIT_NOINPUT, result.stderr
        assert result.stderr.startswith("dg: FileError: cannot read") and text in result.stderr


def test_the_piped_repl_reports_a_line_that_is_not_utf8_and_goes_on() -> None:
    """Whatever the locale says about standard input (PYTHONIOENCODING=utf-8 is strict)."""
    for encoding in ("utf-8", "latin-1"):
        result = subprocess.run(
            [sys.executable, "-m", "dglang.interpreter"],
            input=b'x = 41\ny = "caf\xe9"\nprint(x + 1)\n',
            capture_output=True,
            timeout=60,
            env={**os.environ, "PYTHONIOENCODING": encoding},
        )
        err = result.stderr.decode("utf-8", "replace")
        assert result.stdout == b"42\n", err
        assert err.startswith("<cell 2>:1:9: SyntaxError: this line is not UTF-8 text: the byte 0xe9 cannot be read")
        assert "Traceback" not in err and result.returncode == cli.EXIT_SYNTAX


def test_a_symbolic_link_loop_given_as_the_program(tmp_path: Path) -> None:
    link = tmp_path / "self.dg"
    link.symlink_to(link)
    result = dg(str(link))
    assert result.returncode == cli.EXIT_NOINPUT and "InternalError" not in result.stderr


ODD_FILES = {
    "empty": b"",
    "a byte-order mark": b"\xef\xbb\xbfprint(1)\n",
    "Windows line ends": b"x = 1\r\nprint(x)\r\n",
    "old Mac line ends": b"x = 1\rprint(x)\r",
    "a NUL byte": b"print(1)\x00\n",
    "every byte": bytes(range(256)),
    "UTF-16": "print(1)\n".encode("utf-16"),
    "Latin-1": 'print("caf\xe9")\n'.encode("latin-1"),
    "tabs and spaces mixed": b"if True:\n\tprint(1)\n        print(2)\n",
    "a 50,000-term line": b"x = " + b"1 + " * 50_000 + b"1\n",  # nests 50,000 deep
    "100,000 brackets": b"x = " + b"(" * 100_000 + b")" * 100_000 + b"\n",
}


@pytest.mark.parametrize("kind", slow_where(ODD_FILES, lambda kind: kind in ("a 50,000-term line", "100,000 brackets")))
@pytest.mark.parametrize("command", [[], ["parse"], ["parse", "--tokens"], ["graph", "--var", "x"]])
def test_odd_files_are_reported_never_a_crash(
    kind: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.dg"
    path.write_bytes(ODD_FILES[kind])
    code = cli.main([*command[:1], str(path), *command[1:]])
    err = capsys.readouterr().err
    assert code in (cli.EXIT_OK, cli.EXIT_SYNTAX, cli.EXIT_NOINPUT, cli.EXIT_RUNTIME, cli.EXIT_USAGE), err
    assert "InternalError" not in err and "Traceback" not in err, err


# ---- a command whose optional packages are missing says what to install -------------------------
@pytest.mark.parametrize(
    ("argv", "missing", "says"),
    [
        (["kernel", "install", "--user"], "jupyter_client.kernelspec", "`dg kernel install` needs jupyter_client"),
        (["lsp"], "pygls.lsp.server", "`dg lsp` needs pygls"),
    ],
)
@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_a_missing_optional_package_is_a_message_naming_what_to_install(
    argv: list[str],
    missing: str,
    says: str,
    debug: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # `import` of it now raises ImportError
    monkeypatch.setitem(sys.modules, missing.split(".")[0], None)
    assert cli.main([*argv, *debug]) == cli.EXIT_UNAVAILABLE
    err = capsys.readouterr().err
    extra = "jupyter" if argv[0] == "kernel" else "lsp"
    assert err.startswith(f"dg: ImportError: {says}, which is not installed\n")
    assert f"help: pip install 'dglang[{extra}]' installs DG with it" in err
    assert "InternalError" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["parse", "programs/01_hello.dg"],
        ["test", "programs/01_hello.dg"],
        ["graph", "programs/01_hello.dg", "--var", "y"],
    ],
)
def test_every_command_takes_debug(argv: list[str]) -> None:
    result = dg(*argv, "--debug")
    assert "unrecognized arguments" not in result.stderr and "UsageError" not in result.stderr, result.stderr


def test_the_kernel_started_without_ipykernel_says_what_to_install(tmp_path: Path) -> None:
    blocker = tmp_path / "ipykernel"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('no ipykernel here', name='ipykernel')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter.frontends.kernel", "-f", "none.json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == cli.EXIT_UNAVAILABLE
    assert result.stderr.startswith("dg: ImportError: `python -m dglang.interpreter.frontends.kernel` needs ipykernel")


def test_a_reader_that_leaves_before_a_note_gets_no_traceback(tmp_path: Path) -> None:
    """`dg prog.dg | head`, the output buffered, the reader gone before a note (a static
    function's re-trace) flushes it: the program stops quietly, as Unix tools do."""
    (tmp_path / "p.dg").write_text(
        'print("first")\ndef f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n'
        'g = static(f)\ng(tensor([1.0]))\ng(tensor([-1.0]))\nprint("last")\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    shell = f"{sys.executable} -m dglang.interpreter p.dg | (exec 0<&-; sleep 1)"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert "Traceback" not in result.stderr and "InternalError" not in result.stderr, result.stderr
