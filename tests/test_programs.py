"""Golden-output tests for the lessons in programs/.

Every `programs/NAME.dg` is run in-process and its printed output must equal
`tests/golden/programs/NAME.out` exactly. A few lessons also get a test of what they claim
(the PyTorch numbers of 02_branches.dg, the training accuracy of 10_moons_mlp.dg, ...), so that a
teacher who edits a lesson sees the real requirement, not only a changed golden file.

To create or refresh the golden files after changing a lesson on purpose, run

    DG_UPDATE_GOLDEN=1 uv run pytest tests/test_programs.py

then read the diff of tests/golden/programs/ before committing it.
"""

from __future__ import annotations

import difflib
import io
import os
import re
from functools import cache
from pathlib import Path

import pytest

from interpreter.errors import DGError
from interpreter.report import format_error
from interpreter.session import Session

PROJECT = Path(__file__).resolve().parent.parent
PROGRAMS = PROJECT / "programs"
GOLDEN = PROJECT / "tests" / "golden" / "programs"
UPDATE_COMMAND = "DG_UPDATE_GOLDEN=1 uv run pytest tests/test_programs.py"


# ---- running a program and comparing with its golden file -------------------------------------
@cache
def output_of(program: Path) -> str:
    """What `dg programs/NAME.dg` prints (run once per test session, in-process)."""
    out = io.StringIO()
    session = Session(out=out, base_dir=program.parent)
    try:
        session.run(program.read_text(encoding="utf-8"), f"programs/{program.name}")
    except DGError as e:
        pytest.fail(f"programs/{program.name} stopped with an error:\n{format_error(e)}", pytrace=False)
    return out.getvalue()


def check_golden(program: Path, output: str, golden_dir: Path = GOLDEN) -> None:
    """Fail unless `output` equals the program's golden file; DG_UPDATE_GOLDEN=1 rewrites it."""
    golden = golden_dir / f"{program.stem}.out"
    if os.environ.get("DG_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(output, encoding="utf-8")
        return
    if not golden.is_file():
        pytest.fail(
            f"programs/{program.name} has no golden file {shown(golden)}\n"
            f"create it with:  {UPDATE_COMMAND}\n"
            "then check that the new .out file shows what the lesson should print",
            pytrace=False,
        )
    expected = golden.read_text(encoding="utf-8")
    if output != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True), output.splitlines(keepends=True), "golden", "now"
        )
        pytest.fail(
            f"programs/{program.name} printed something else than {golden.name}:\n{''.join(diff)}\n"
            f"if the change is intended:  {UPDATE_COMMAND}",
            pytrace=False,
        )


def shown(path: Path) -> str:
    """A path as a reader finds it: relative to the project when it is inside."""
    return str(path.relative_to(PROJECT)) if path.is_relative_to(PROJECT) else str(path)


ALL_PROGRAMS = sorted(PROGRAMS.glob("*.dg"))


@pytest.mark.parametrize("program", ALL_PROGRAMS, ids=[p.stem for p in ALL_PROGRAMS])
def test_program_prints_its_golden_output(program: Path) -> None:
    check_golden(program, output_of(program))


def test_every_golden_file_has_a_program() -> None:
    programs = {p.stem for p in ALL_PROGRAMS}
    stale = [g.name for g in sorted(GOLDEN.glob("*.out")) if g.stem not in programs]
    assert not stale, f"golden files without a program in programs/ (delete them): {stale}"


def test_a_program_without_golden_file_fails_and_says_how_to_create_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DG_UPDATE_GOLDEN", raising=False)
    program = tmp_path / "programs" / "new_lesson.dg"
    program.parent.mkdir()
    program.write_text('print("hello")\n')
    golden_dir = tmp_path / "tests" / "golden" / "programs"
    with pytest.raises(pytest.fail.Exception) as failure:
        check_golden(program, "hello\n", golden_dir)
    message = str(failure.value)
    assert "programs/new_lesson.dg has no golden file" in message
    assert "tests/golden/programs/new_lesson.out" in message
    assert UPDATE_COMMAND in message


# ---- what particular lessons claim ------------------------------------------------------------
def numbers_after(label: str, text: str) -> list[float]:
    """The numbers inside `tensor([...])` on the line starting with `label`."""
    for line in text.splitlines():
        if line.startswith(label):
            inside = re.search(r"tensor\(\[([^\]]*)\]", line)
            assert inside, f"no tensor([...]) after {label!r} in: {line}"
            return [float(n) for n in inside.group(1).split(",")]
    raise AssertionError(f"no line starting with {label!r}")


def test_branches_golden_has_the_pytorch_numbers() -> None:
    # PyTorch prints these for its dynamic-graph example; the golden file must agree.
    golden_file = GOLDEN / "02_branches.out"
    assert golden_file.is_file(), f"{shown(golden_file)} is missing; create it with:  {UPDATE_COMMAND}"
    golden = golden_file.read_text(encoding="utf-8")
    assert numbers_after("output_positive:", golden) == [2, -2, 4]
    assert numbers_after("output_negative:", golden) == [-5, -4, -3]
    assert numbers_after("input_positive.grad:", golden) == [2, 2, 2]
    assert numbers_after("input_negative.grad:", golden) == [1, 1, 1]


def number_after(pattern: str, program: str) -> float:
    """The number a lesson prints where `pattern` (a regex with one group) matches its output."""
    found = re.search(pattern, output_of(PROGRAMS / program))
    assert found, f"{program} must print something matching {pattern!r}"
    return float(found.group(1))


def test_moons_mlp_reaches_95_percent_training_accuracy() -> None:
    accuracy = number_after(r"final training accuracy: ([0-9.]+)", "10_moons_mlp.dg")
    assert accuracy >= 0.95, f"training accuracy {accuracy} is below 0.95"


def test_hello_finds_the_derivative_of_x_squared_plus_3x() -> None:
    assert number_after(r"dy/dx at x = 2: tensor\(([0-9.]+)\)", "01_hello.dg") == 7


def test_logistic_regression_separates_the_two_clouds() -> None:
    accuracy = number_after(r"step 100 .* accuracy ([0-9.]+)", "09_logistic_regression.dg")
    assert accuracy >= 0.9, f"training accuracy {accuracy} is below 0.9"


def test_char_rnn_loss_falls_and_it_writes_the_start_of_its_text() -> None:
    first = number_after(r"loss per character fell from ([0-9.]+)", "12_char_rnn.dg")
    last = number_after(r"loss per character fell from [0-9.]+ to ([0-9.]+)", "12_char_rnn.dg")
    assert last < first / 10, f"the loss fell only from {first} to {last}"
    written = re.search(r"the network writes: '(.*)'", output_of(PROGRAMS / "12_char_rnn.dg"))
    assert written and written.group(1).startswith("the cat sat on the "), "the trained network should recite its text"


# ---- the lessons as a course --------------------------------------------------------------------
def test_lessons_are_numbered_and_open_by_saying_what_they_teach() -> None:
    numbers = []
    for program in ALL_PROGRAMS:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", program.stem), f"{program.name}: name it NN_topic.dg"
        numbers.append(int(program.stem[:2]))
        first_line = program.read_text(encoding="utf-8").splitlines()[0]
        assert first_line.startswith("# "), f"{program.name} must open with a comment saying what it teaches"
    assert len(numbers) == len(set(numbers)), f"two lessons share a number: {sorted(numbers)}"
    assert numbers[:12] == list(range(1, 13)), f"lessons 01 to 12 must all be there: {numbers}"
