"""The README's two ways in, each on a fresh copy of the repository, typed exactly as the README
writes them: uv (`uv run dg programs/...`, `uv run pytest`) and pip in a virtual environment
(`python3 -m venv .venv`, ..., `pytest`).

- `uv run dg FILE` installs what running DG needs and the test runner (uv installs its default
  dependency group, `test`), and nothing of the test tools (JupyterLab, Playwright, pyte, ...);
- `uv run pytest` fetches a group of test tools when a test that needs it first runs;
- under pip, `pytest` runs, and a test whose tools are missing is skipped saying what to install.

`pytest` here would run the whole suite, inside this one: PYTEST_ADDOPTS (which pytest reads as
arguments before the command line's) picks a few tests instead, one of them needing pyte. The
test needs PyPI and takes a minute or two: it is marked `network`, and skipped only when PyPI
cannot be reached. The size of `.venv` after each route's install is checked against the README's
(within a tenth: the dependencies' own releases move it), and printed (`-s`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # installs DG
ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
UV = shutil.which("uv")
# A test that needs pyte (the `terminal` group), and a quick one that needs only DG.
SELECTED = (
    "tests/frontends/test_repl_terminal.py tests/language/test_programs.py "
    "-k 'test_a_paste_runs_as_pasted or test_hello_finds_the_derivative'"
)
TEST_TOOLS = ("pyte", "ipykernel", "jupyterlab", "playwright", "pygls", "nbclient", "ruff")


def readme_block(after: str, language: str = "sh") -> list[str]:
    """The commands of the first ```sh block after the README's sentence `after`, comments left out."""
    start = README.index(after)
    block = re.search(rf"```{language}\n(.*?)```", README[start:], re.S)
    assert block is not None, f"no ```{language} block after {after!r}"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


UV_ROUTE = readme_block("With [uv]")
PIP_ROUTE = readme_block("Or with plain pip")


def test_the_readme_gives_the_routes_this_file_runs() -> None:
    assert UV_ROUTE == ["uv run dg programs/02_branches.dg", "uv run pytest"]
    assert PIP_ROUTE == [
        "python3 -m venv .venv",
        "source .venv/bin/activate",
        'pip install -e ".[test]"',
        "dg programs/02_branches.dg",
        "pytest",
    ]


def fresh_copy(to: Path) -> Path:
    """The repository's files as a clone of it would have them (with this checkout's changes)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)
    return to


def clean_environment() -> dict[str, str]:
    """This process's environment without what ties it to this checkout's environment or test run,
    nor a setting a student's shell does not have: PYTHONDONTWRITEBYTECODE (Python then writes no
    bytecode into .venv as it imports NumPy and the rest, a few MB of what the README's sizes say)."""
    drop = (
        "VIRTUAL_ENV",
        "UV_RUN_RECURSION_DEPTH",
        "UV_PROJECT_ENVIRONMENT",
        "PYTHONPATH",
        "PYTEST_ADDOPTS",
        "UV",
        "PYTHONDONTWRITEBYTECODE",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST_")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    return env


def run_route(commands: list[str], folder: Path) -> tuple[list[str], dict[str, str]]:
    """Run the commands one after another in one bash, as typed; each one's output, and how big
    the environment was after each."""
    script = []
    for i, command in enumerate(commands):
        script += [f"echo '@@ {i}'", command, 'echo "@@ rc $?"', "du -sk .venv 2>/dev/null || echo '0'"]
    env = clean_environment() | {"PYTEST_ADDOPTS": f"-p no:cacheprovider -rs {SELECTED}"}
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=folder, env=env, capture_output=True, text=True, timeout=1800
    )
    assert "@@ rc" in done.stdout, done.stderr
    outputs = re.split(r"^@@ \d+\n", done.stdout, flags=re.M)[1:]
    sizes = {}
    for command, output in zip(commands, outputs, strict=True):
        code = re.search(r"^@@ rc (\d+)$", output, re.M)
        assert code is not None and code.group(1) == "0", f"`{command}` failed:\n{output}\n{done.stderr}"
        sizes[command] = int(output.strip().splitlines()[-1].split()[0]) * 1024 / 1e6  # du's KiB, in MB
    print(f"\nenvironment sizes after each command: { {c: f'{mb:.1f} MB' for c, mb in sizes.items()} }")
    return outputs, sizes


def check_readme_size(measured: float, sentence: str) -> None:
    """The README's "(N MB in `.venv`" in the paragraph that starts with `sentence` is within a
    tenth of what was measured."""
    said = re.search(r"\((\d+) MB in `\.venv`", README[README.index(sentence) :])
    assert said is not None, f"no size after {sentence!r}"
    stated = int(said.group(1))
    assert abs(measured - stated) <= stated / 10, (
        f"README says {stated} MB after {sentence!r}; measured {measured:.1f} MB"
    )


def installed(folder: Path) -> set[str]:
    site = next((folder / ".venv").glob("lib/python3*/site-packages"))
    return {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}


def pypi_or_skip() -> None:
    import urllib.request

    try:
        with urllib.request.urlopen("https://pypi.org/simple/pyte/", timeout=15):
            pass
    except OSError as e:
        pytest.skip(f"PyPI is unreachable: {e}")


@pytest.mark.network
@pytest.mark.skipif(UV is None or os.name == "nt", reason="needs uv and bash")
def test_the_uv_route_installs_only_what_dg_needs_and_fetches_test_tools_when_a_test_needs_them(
    tmp_path: Path,
) -> None:
    pypi_or_skip()
    folder = fresh_copy(tmp_path / "dg")
    outputs, sizes = run_route(UV_ROUTE[:1], folder)
    check_readme_size(sizes[UV_ROUTE[0]], "`uv run dg` installs")
    golden = (ROOT / "tests" / "golden" / "programs" / "02_branches.out").read_text(encoding="utf-8")
    assert outputs[0].startswith(golden)
    lean = installed(folder)
    assert {"numpy", "lark", "prompt_toolkit", "pygments", "pytest", "hypothesis"} <= lean
    assert not lean & set(TEST_TOOLS), f"`uv run dg` installed test tools: {sorted(lean & set(TEST_TOOLS))}"
    outputs, _ = run_route(UV_ROUTE[1:], folder)
    assert "passed" in outputs[0] and "skipped" not in outputs[0].split("short test summary")[-1], outputs[0]
    assert "pyte" in installed(folder)  # fetched for the terminal test, and only what it needed
    assert not installed(folder) & {"jupyterlab", "playwright", "ruff"}


@pytest.mark.network
@pytest.mark.skipif(os.name == "nt", reason="the README's commands for bash")
def test_the_pip_route_runs_the_tests_and_skips_those_whose_tools_are_missing_saying_what_to_install(
    tmp_path: Path,
) -> None:
    pypi_or_skip()
    folder = fresh_copy(tmp_path / "dg")
    outputs, sizes = run_route(PIP_ROUTE, folder)
    check_readme_size(sizes['pip install -e ".[test]"'], '`pip install -e ".[test]"` installs')
    golden = (ROOT / "tests" / "golden" / "programs" / "02_branches.out").read_text(encoding="utf-8")
    assert outputs[3].startswith(golden)
    tests = outputs[4]
    assert re.search(r"\d+ passed, 1 skipped", tests), tests
    assert "SKIPPED" in tests and "needs pyte: `pip install 'pyte>=0.8.2'`, or `uv sync --group terminal`" in tests
