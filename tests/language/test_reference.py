"""The reference evaluator and the accelerator agree: every lesson, golden error and fuzz program
run both ways prints the same, fails with the same errors (text, location, help, call stack),
leaves the same gradients bit for bit and records the same provenance for every node
(differential.py says what is compared). And the comparison finds a difference when one side
is broken.

The reference walks the tree (semantics/reference.py), the accelerator runs closures compiled
from it (semantics/evaluator.py); `DG_EVAL=reference` runs any other test under the reference.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from differential import compare, fuzz_program, shortened
from fuzz_programs import DEEP_LEVELS, MAX_STEPS, NAME, TIMEOUT, pathological_values, small_memory, top_level_statements
from slow_cases import LONG_LESSONS, slow_where

from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.limits import Limits
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.semantics import reference, reference_expressions

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "programs"
LESSONS = sorted(p for p in PROGRAMS.glob("[0-9][0-9]_*.dg"))
ERRORS = sorted(p for p in (ROOT / "tests" / "golden" / "errors").glob("*.dg") if not p.name.startswith("_"))
# The lessons that train for long (a GPT for minutes, the autoencoders for seconds): the same code
# on less text, or for fewer steps.
SHORTER = {
    "21_autoencoder": [("for epoch in range(30):", "for epoch in range(2):")],
    "22_vae": [("for epoch in range(40):", "for epoch in range(2):")],
    "18_tiny_gpt": [
        ("[:220000]", "[:22000]"),
        ("[:200000]", "[:20000]"),
        ("[200000:]", "[20000:]"),
        ("windows(valid, 64)", "windows(valid, 8)"),
        ("range(1, 1001)", "range(1, 4)"),
        ("step % 200", "step % 2"),
        ("range(200)", "range(4)"),
    ],
}
FUZZ_CASES = 150  # the fuzz corpus's first programs, each run as REPL cells so that it goes on past an error


def lesson_session(evaluator: str) -> object:
    return new_session(base_dir=PROGRAMS)


def lesson_differences(lesson: Path) -> list[str]:
    text = shortened(lesson, SHORTER.get(lesson.stem, []))
    return compare(lesson_session, [text], f"programs/{lesson.name}")


# Run twice, these take seconds of processor time each: slow (tests/conftest.py)
TWICE_TOO_LONG = LONG_LESSONS | {"12_char_rnn", "17_attention_reverse"}


@pytest.mark.parametrize("lesson", slow_where(LESSONS, lambda p: p.stem in TWICE_TOO_LONG), ids=lambda p: p.stem)
def test_every_lesson_runs_the_same_both_ways(lesson: Path) -> None:
    found = lesson_differences(lesson)
    assert not found, "\n".join(found)


def error_differences(path: Path) -> list[str]:
    first = path.read_text().split("\n", 1)[0]  # `# dg --max-steps 1000`: the options the case needs
    options = first[len("# dg ") :].split() if first.startswith("# dg ") else []
    make = lambda evaluator: cli.new_session(cli.parser().parse_args([*options, str(path)]))
    return compare(make, [path.read_text()], path.name)


@pytest.mark.parametrize("path", slow_where(ERRORS, lambda p: p.stem == "limit_output_runaway"), ids=lambda p: p.stem)
def test_every_golden_error_is_the_same_both_ways(path: Path) -> None:
    found = error_differences(path)
    assert not found, "\n".join(found)


def fuzz_session(evaluator: str) -> object:
    limits = Limits(max_steps=MAX_STEPS, timeout=TIMEOUT, max_output=100_000)
    session = new_session(base_dir=PROGRAMS, limits=limits)
    session.globals.vars.update(pathological_values(), deep=[deeper()])
    return session


@cache
def deeper() -> list[object]:
    """The fuzz corpus's `deep`, nested past Python's recursion limit under either evaluator: the
    reference takes twice the Python frames per DG call, so its limit is twice the accelerator's
    (limited_run.PYTHON_FRAMES_PER_CALL), and a list nested between the two prints under one only."""
    inner: list[object] = []
    for _ in range(2 * DEEP_LEVELS):
        inner = [inner]
    return inner


@pytest.mark.parametrize("number", range(FUZZ_CASES))
def test_the_fuzz_corpus_runs_the_same_both_ways(number: int) -> None:
    text = fuzz_program(number)
    with small_memory():
        found = compare(fuzz_session, top_level_statements(text), NAME)
    assert not found, f"fuzz program {number}:\n{text}\n" + "\n".join(found)


def test_the_reference_is_chosen_by_the_command_line_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "walked.dg"
    program.write_text("print(1 + 2)\n")
    walked: list[object] = []
    real = reference.Reference.run
    monkeypatch.setattr(reference.Reference, "run", lambda self, env: walked.append(self) or real(self, env))
    monkeypatch.delenv("DG_EVAL", raising=False)
    assert cli.main([str(program)]) == 0 and not walked  # the accelerator, by default
    assert cli.main(["--eval", "reference", str(program)]) == 0 and len(walked) == 1
    monkeypatch.setenv("DG_EVAL", "reference")
    assert new_session().context.evaluator == "reference"
    assert cli.main([str(program)]) == 0 and len(walked) == 2
    assert cli.main(["--eval", "accelerator", str(program)]) == 0 and len(walked) == 2
    assert capsys.readouterr().out == "3\n" * 4


# ---- the comparison finds a broken side ---------------------------------------------------------
def test_a_broken_expression_case_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """`a - b` computed as `b - a` by the reference alone: the lessons show it."""

    def swapped(self: reference.Reference, node: ast.Binary, env: object) -> object:
        return reference_expressions.BINARY[node.op](self.evaluate(node.right, env), self.evaluate(node.left, env))

    monkeypatch.setitem(reference_expressions.EXPRESSIONS, ast.Binary, swapped)
    assert lesson_differences(PROGRAMS / "02_branches.dg")


def test_a_loop_that_forgets_to_count_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Iterations not counted on the loop's run: the same output, but not the same pictures."""

    def uncounted(self: reference.Reference, node: ast.For, env: object) -> object:
        for item in self.items(node.iterable, env):
            self.bind_item(node.targets, node.iterable, env.vars, item)  # type: ignore[attr-defined]
            self.block(node.body, env)  # type: ignore[arg-type]
        return None

    monkeypatch.setitem(reference.STATEMENTS, ast.For, uncounted)
    found = lesson_differences(PROGRAMS / "10_moons_mlp.dg")
    assert found and all(f.startswith("provenance") for f in found), found


def test_an_error_at_another_place_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """An attribute's error located at its object, not at the attribute: the error goldens show it."""
    real = reference_expressions.ReferenceExpressions.compute

    def misplaced(self: object, node: object, *args: object, **kwargs: object) -> object:
        if isinstance(node, ast.Attribute):
            kwargs["at"] = node.obj.span
        return real(self, node, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reference_expressions.ReferenceExpressions, "compute", misplaced)
    assert error_differences(ROOT / "tests" / "golden" / "errors" / "attribute_dunder.dg")
