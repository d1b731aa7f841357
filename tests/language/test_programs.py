"""Golden-output tests for the lessons in programs/.

Every `programs/NAME.dg` is run in-process and its printed output must equal
`tests/golden/programs/NAME.out` exactly. A few lessons also get a test of what they claim
(the PyTorch numbers of 02_branches.dg, the training accuracy of 10_moons_mlp.dg, ...), so that a
teacher who edits a lesson sees the real requirement, not only a changed golden file.

To create or refresh the golden files after changing a lesson on purpose, run

    DG_UPDATE_GOLDEN=1 uv run pytest tests/language/test_programs.py

then read the diff of tests/golden/programs/ before committing it.
"""

from __future__ import annotations

import ast
import difflib
import io
import itertools
import math
import os
import re
from functools import cache
from pathlib import Path

import pytest
from slow_cases import LONG_LESSONS, slow_where

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.report import format_error
from dglang.interpreter.frontends.sessions import new_session as Session

PROJECT = Path(__file__).resolve().parents[2]
PROGRAMS = PROJECT / "programs"
GOLDEN = PROJECT / "tests" / "golden" / "programs"
UPDATE_COMMAND = "DG_UPDATE_GOLDEN=1 uv run pytest tests/language/test_programs.py"


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


ALL_PROGRAMS = sorted(p for p in PROGRAMS.glob("*.dg") if re.fullmatch(r"\d\d_\w+", p.stem))  # the lessons
LIBRARY = sorted(p for p in PROGRAMS.glob("*.dg") if p not in ALL_PROGRAMS)  # the modules they import


@pytest.mark.parametrize(
    "program", slow_where(ALL_PROGRAMS, lambda p: p.stem in LONG_LESSONS), ids=[p.stem for p in ALL_PROGRAMS]
)
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


def test_digits_mlp_reaches_its_bar_of_95_percent_test_accuracy() -> None:
    accuracy = number_after(r"test accuracy: ([0-9.]+) \(the bar: 0\.950\)", "16_digits_mlp.dg")
    assert accuracy >= 0.95, f"test accuracy {accuracy} is below the lesson's bar of 0.95"


@pytest.mark.slow
def test_digits_cnn_reaches_its_bar_of_97_percent_test_accuracy() -> None:
    accuracy = number_after(r"test accuracy: ([0-9.]+) \(the bar: 0\.970\)", "20_digits_cnn.dg")
    assert accuracy >= 0.97, f"test accuracy {accuracy} is below the lesson's bar of 0.97"
    filters = re.search(r"the first layer's filters:\n8 images 3×3", output_of(PROGRAMS / "20_digits_cnn.dg"))
    assert filters, "20_digits_cnn.dg shows its first layer's eight 3×3 filters"


def test_attention_reverses_95_percent_of_the_test_tokens_by_looking_at_the_mirrored_position() -> None:
    accuracy = number_after(r"test token accuracy: ([0-9.]+) \(the bar: 0\.950\)", "17_attention_reverse.dg")
    assert accuracy >= 0.95, f"test token accuracy {accuracy} is below the lesson's bar of 0.95"
    looks = re.search(r"looks most at input position: \[([0-9, ]+)\]", output_of(PROGRAMS / "17_attention_reverse.dg"))
    assert looks and looks.group(1) == "7, 6, 5, 4, 3, 2, 1, 0", "output position i should attend to input 7 - i"


@pytest.mark.slow
def test_autoencoder_draws_unseen_digits_within_its_bar() -> None:
    output = output_of(PROGRAMS / "21_autoencoder.dg")
    error = number_after(r"test reconstruction error: ([0-9.]+) \(the bar: 0\.0160\)", "21_autoencoder.dg")
    mean_digit = number_after(r"as the mean training digit: error ([0-9.]+)", "21_autoencoder.dg")
    assert 0.05 < mean_digit < 0.1, f"the mean digit's error {mean_digit} is not that of the digits' pixels in 0..1"
    assert error < 0.016, f"test reconstruction error {error} is above the lesson's bar of 0.016"
    assert error < mean_digit / 4, f"the autoencoder ({error}) is not four times better than the mean digit"
    assert "each above the autoencoder's drawing of it:\n6 images 16×8" in output, "six digits above their drawings"


@pytest.mark.slow
def test_vae_beats_the_mean_digit_and_draws_new_ones() -> None:
    output = output_of(PROGRAMS / "22_vae.dg")
    loss = number_after(r"test loss per digit: ([0-9.]+) nats \(the bar: 25\.00\)", "22_vae.dg")
    baseline = number_after(r"as the mean training digit \(no code at all\): ([0-9.]+) nats", "22_vae.dg")
    kl = number_after(r"test KL per digit: ([0-9.]+) nats", "22_vae.dg")
    assert 26 < baseline < 28, f"the mean digit's loss {baseline} is not that of the digits' pixels in 0..1"
    assert loss < 25, f"the test loss {loss} is above the lesson's bar of 25 nats"
    assert kl > 1, f"a KL of {kl} nats per digit: the codes carry next to nothing"
    assert "sixteen new digits, decoded from codes drawn from N(0, 1):\n1 image 32×32" in output
    # where the gradient flows: into mu and log sigma, not into the noise, not past a detached sample
    assert re.search(r"\[\d+\] mu  \(2,\)  requires grad  received", output)
    assert re.search(r"\[\d+\] log_sigma  \(2,\)  requires grad  received", output)
    assert re.search(r"\[\d+\] eps  \(2,\)  no grad", output)
    assert "a code sampled as numbers requires grad: False" in output


@pytest.mark.slow  # trains for a minute
def test_tiny_gpt_beats_the_bigram_model_and_writes_a_sample() -> None:
    found = re.search(r"validation loss: GPT ([0-9.]+), bigram model ([0-9.]+)", output_of(PROGRAMS / "18_tiny_gpt.dg"))
    assert found, "18_tiny_gpt.dg must print both validation losses"
    gpt, bigram = float(found.group(1)), float(found.group(2))
    assert 2.0 < bigram < 3.0, f"the bigram model's loss {bigram} is not a bigram model's on English text"
    assert gpt < bigram, f"the GPT's validation loss {gpt} is not below the bigram model's {bigram}"
    sample = output_of(PROGRAMS / "18_tiny_gpt.dg").split("the GPT writes:\n")[1]
    assert sample.startswith("ROMEO:") and len(sample) > 200


# What makes each long lesson short enough for the fast run (its golden run is slow), and a line it
# must still print at its end.
SHORTENED = {
    "18_tiny_gpt": (
        [
            ("shakespeare()[:220000]", "shakespeare()[:22000]"),
            ("codes[:200000]", "codes[:20000]"),
            ("codes[200000:]", "codes[20000:]"),
            ("for step in range(1, 1001):", "for step in range(1, 3):"),
            ("in range(200):", "in range(20):"),
        ],
        "the GPT writes:",
    ),
    "20_digits_cnn": ([("for epoch in range(8):", "for epoch in range(1):")], "test accuracy:"),
    "21_autoencoder": ([("for epoch in range(30):", "for epoch in range(1):")], "test reconstruction error:"),
    "22_vae": ([("for epoch in range(40):", "for epoch in range(1):")], "test loss per digit:"),
}


@pytest.mark.parametrize("name", sorted(LONG_LESSONS))
def test_a_long_lesson_runs_every_line_with_less_data_and_fewer_steps(name: str) -> None:
    assert name in SHORTENED, f"programs/{name}.dg is slow to run: say in SHORTENED how to shorten it"
    lesson = (PROGRAMS / f"{name}.dg").read_text(encoding="utf-8")
    shortened, last_words = lesson, SHORTENED[name][1]
    for full, short in SHORTENED[name][0]:
        assert full in lesson, f"programs/{name}.dg no longer has `{full}`: update SHORTENED"
        shortened = shortened.replace(full, short)
    out = io.StringIO()
    Session(out=out, base_dir=PROGRAMS).run(shortened, f"programs/{name}.dg")
    assert last_words in out.getvalue()


def test_moons_mlp_reaches_95_percent_training_accuracy() -> None:
    accuracy = number_after(r"final training accuracy: ([0-9.]+)", "10_moons_mlp.dg")
    assert accuracy >= 0.95, f"training accuracy {accuracy} is below 0.95"


def test_newton_converges_to_the_true_minimiser_quadratically() -> None:
    # f(x) = exp(x) - 2x: the minimiser is log(2), and f''(x) = exp(x).
    output = output_of(PROGRAMS / "13_newton.dg")
    iterates = [
        (float(m["x"]), float(m["d2"]))
        for m in re.finditer(r"^x\d+ = (?P<x>[-0-9.]+) .* f''\(x\) = (?P<d2>[-0-9.]+)", output, re.MULTILINE)
    ]
    assert 3 <= len(iterates) <= 8, f"Newton's method should take a handful of steps, printed {len(iterates)}"
    final = float(re.search(r"minimum at x = ([-0-9.]+)", output)[1])  # type: ignore[index]
    assert final == iterates[-1][0] and abs(final - math.log(2)) < 1e-8
    for x, d2 in iterates:
        assert d2 == pytest.approx(math.exp(x), abs=1e-6), f"f''({x}) printed as {d2}, should be exp(x)"
    errors = [abs(x - math.log(2)) for x, _ in iterates]
    for before, after in itertools.pairwise(errors):
        assert after < before, f"the error grew from {before} to {after}"
        if before < 0.1:  # near the answer the error is squared (times f'''/2f'' = 1/2) at each step
            assert after <= before**2, f"not quadratic: {before} -> {after}"


def test_hessian_lesson_matches_the_rosenbrock_hessian_and_hv() -> None:
    output = output_of(PROGRAMS / "14_hessian.dg")
    values = {m[1].strip(): ast.literal_eval(m[2]) for m in re.finditer(r"^([^:\n]+): *(.+)$", output, re.MULTILINE)}
    a, b = 1.5, 2.0
    hessian = [[2 - 400 * b + 1200 * a**2, -400 * a], [-400 * a, 200.0]]  # worked out independently
    assert values["gradient"] == [-2 * (1 - a) - 400 * a * (b - a**2), 200 * (b - a**2)]
    assert [values["Hessian row 0"], values["Hessian row 1"]] == hessian
    v = [1.0, -2.0]
    h_v = [sum(h * w for h, w in zip(row, v, strict=True)) for row in hessian]
    assert values["H v without H"] == h_v and values["H @ v with H"] == h_v
    assert values["symmetric"] is True and values["matches the hand-derived Hessian"] is True


def test_while_loop_lesson_has_the_derivatives_of_sqrt_and_gradcheck_passes() -> None:
    output = output_of(PROGRAMS / "15_second_derivative_while.dg")
    run = r"^a = ([0-9.]+): the loop ran (\d+) times.*\n"
    derivatives = r"  first derivative +([-0-9.]+).*\n  second derivative +([-0-9.]+)"
    runs = re.findall(run + derivatives, output, re.MULTILINE)
    assert len(runs) == 2 and runs[0][1] != runs[1][1], "the loop should run a different number of times per a"
    for a, _, first, second in runs:
        assert float(first) == pytest.approx(1 / (2 * math.sqrt(float(a))), abs=1e-12)
        assert float(second) == pytest.approx(-1 / (4 * float(a) ** 1.5), abs=1e-12)
    assert output.count(": passed") == 3 and "FAILED" not in output
    assert output.count("gradcheck order 2: True") == 2 and output.endswith("True\n")
    # sqrt(x^2 + y^2) at (3, 4): its Hessian is [[y^2, -xy], [-xy, x^2]] / r^3
    table = dict(re.findall(r"^  (d2hypotenuse/\S+) +([-0-9.e]+)", output, re.MULTILINE))
    expected = {"dx[0]dx[0]": 16 / 125, "dx[0]dx[1]": -12 / 125, "dx[1]dx[0]": -12 / 125, "dx[1]dx[1]": 9 / 125}
    assert {k.split("/")[1]: float(v) for k, v in table.items()} == pytest.approx(expected, abs=1e-8)


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
def test_every_file_in_programs_is_a_lesson_or_a_module_a_lesson_imports() -> None:
    imported = set()
    for lesson in ALL_PROGRAMS:
        imported |= set(re.findall(r"^(?:import|from) (\w+)", lesson.read_text(encoding="utf-8"), re.MULTILINE))
    for module in LIBRARY:
        assert module.stem in imported, f"programs/{module.name}: name a lesson NN_topic.dg, or import it from one"
        assert module.read_text(encoding="utf-8").startswith(f"# {module.name}: "), f"{module.name}: say what it holds"


def test_lessons_are_numbered_and_open_by_saying_what_they_teach() -> None:
    numbers = []
    for program in ALL_PROGRAMS:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", program.stem), f"{program.name}: name it NN_topic.dg"
        numbers.append(int(program.stem[:2]))
        first_line = program.read_text(encoding="utf-8").splitlines()[0]
        assert first_line.startswith("# "), f"{program.name} must open with a comment saying what it teaches"
    assert len(numbers) == len(set(numbers)), f"two lessons share a number: {sorted(numbers)}"
    assert numbers[:12] == list(range(1, 13)), f"lessons 01 to 12 must all be there: {numbers}"
