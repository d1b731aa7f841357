"""Fuzzing: random programs and mutated lessons either run or fail with a located DG error.

The default run takes a few seconds; `DG_FUZZ=long uv run pytest tests/promises/test_fuzz.py` runs the
long profile (hundreds of thousands of cases, see docs/reliability.md), and
`DG_FUZZ_EXAMPLES=N` sets the count for each test directly.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzz_programs import check_unreadable, examples, lesson_files, mutations, programs, run_case, run_repl_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def fuzz_settings(quick: int, long: int) -> settings:
    return settings(
        max_examples=examples(quick, long),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


@fuzz_settings(quick=60, long=150_000)
@given(text=programs())
def test_random_programs_run_or_fail_with_a_located_error(text: str) -> None:
    run_case(text, as_cells=True)


@pytest.mark.slow
@fuzz_settings(quick=60, long=150_000)
@given(data=st.data())
def test_mutated_lessons_run_or_fail_with_a_located_error(data: st.DataObject) -> None:
    files = lesson_files()
    if not files:
        pytest.skip("no lessons in programs/")
    _lesson, mutated = data.draw(mutations(files), label="mutation")
    try:
        text = mutated.decode("utf-8")
    except UnicodeDecodeError:
        with tempfile.TemporaryDirectory() as folder:
            check_unreadable(mutated, Path(folder))
        return
    run_case(text)


COMMANDS = [":vars", ":graph x", ":graph deep", ":help", ":where", ":continue", ":reset", ":nothing", ":load", ":graph"]


@pytest.mark.slow
@fuzz_settings(quick=30, long=20_000)
@given(data=st.data())
def test_the_repl_reads_any_input(data: st.DataObject) -> None:
    """Mutated lessons typed into the REPL line by line, with meta-commands among them."""
    files = lesson_files()
    if not files:
        pytest.skip("no lessons in programs/")
    _lesson, mutated = data.draw(mutations(files), label="mutation")
    lines = mutated.decode("utf-8", "replace").splitlines(keepends=True)
    for command in data.draw(st.lists(st.sampled_from(COMMANDS), max_size=3), label="commands"):
        lines.insert(data.draw(st.integers(0, len(lines)), label="at"), command + "\n")
    run_repl_case(lines)


def test_the_harness_catches_an_escaping_python_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property would be empty if a bug could not fail it: make one and watch it fail."""
    from dglang.interpreter.library import operators

    def broken(a: object, b: object) -> object:
        raise AttributeError("a bug")

    monkeypatch.setitem(operators.BINARY, "+", broken)
    with pytest.raises(AssertionError, match="InternalError"):
        run_case("print(1 + 1)")


def test_programs_are_cut_into_cells_as_typed_at_the_repl() -> None:
    from fuzz_programs import top_level_statements

    text = "x = 1\nif x:\n    y = 2\nelif y:\n    pass\nelse:\n    z = 3\ndef f():\n    return 1\nprint(f())\n"
    assert top_level_statements(text) == [
        "x = 1\n",
        "if x:\n    y = 2\nelif y:\n    pass\nelse:\n    z = 3\n",
        "def f():\n    return 1\n",
        "print(f())\n",
    ]


def test_the_harness_catches_a_hang() -> None:
    from fuzz_programs import Hang, watchdog

    with pytest.raises(Hang), watchdog(0.2):
        while True:
            pass
