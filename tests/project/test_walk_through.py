"""The guide's walk-through names every function the seed program enters, in the order it enters them.

bench/walk_through.py runs the README's first program with `dg --eval reference` under a profiler
hook and lists each of DG's functions the first time it is entered, once the pipeline has the
text. docs/for-compiler-courses.md's section "A walk through one program, function by function"
must name each of them, in that order, each after its file: a function is named `Class.method`
(a nested function by the names of the functions around it, `make_builtins.print_`) after its
file's name (`reference.py`), both in backquotes. The section may name more (other code it
mentions); what it must not do is leave one out, or name them in another order.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "for-compiler-courses.md"
SECTION = "## A walk through one program, function by function"


def walk_through() -> ModuleType:
    spec = importlib.util.spec_from_file_location("walk_through", ROOT / "bench" / "walk_through.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def named_in(text: str) -> list[tuple[str, str]]:
    """(file, function) for each name in backquotes, the file being the last `*.py` named before it."""
    start = text.index(SECTION)
    section = text[start : text.index("\n## ", start + len(SECTION))]
    file, named = "", []
    for token in re.findall(r"`([^`\n]+)`", section):
        if re.fullmatch(r"[\w/]+\.py", token):
            file = token.rsplit("/", 1)[-1]
        elif re.fullmatch(r"[A-Za-z_][\w.]*", token):
            named.append((file, token))
    return named


def shown(entered: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(file name, function as the guide names it) for each (path, qualified name) entered."""
    return [(path.rsplit("/", 1)[-1], name.replace(".<locals>", "")) for path, name in entered]


def first_left_out(named: list[tuple[str, str]], entered: list[tuple[str, str]]) -> int | None:
    """The position in `entered` of the first function not named in order, or None if all are."""
    at = 0
    for name in named:
        if at < len(entered) and name == entered[at]:
            at += 1
    return None if at == len(entered) else at


def test_the_walk_through_names_every_function_the_seed_program_enters_in_order() -> None:
    entered = shown(walk_through().seed_walk())
    assert len(entered) > 50, entered  # the whole pipeline: parser, resolver, evaluator, engine, host
    at = first_left_out(named_in(GUIDE.read_text(encoding="utf-8")), entered)
    assert at is None, (
        f"{GUIDE.name}'s walk-through does not name {entered[at][0]}'s `{entered[at][1]}` where it is entered "
        f"(after {entered[at - 1] if at else 'the start'}); `uv run python bench/walk_through.py` lists them in order"
    )


def test_the_check_finds_a_function_left_out_or_out_of_order() -> None:
    entered = [("pipeline.py", "compile"), ("parser.py", "parse"), ("parser.py", "fast_path_on")]
    assert first_left_out(entered, entered) is None
    assert first_left_out([("other.py", "x"), *entered, ("parser.py", "more")], entered) is None
    assert first_left_out([entered[0], entered[2]], entered) == 1
    assert first_left_out([entered[0], entered[2], entered[1]], entered) == 2
    text = f"{SECTION}\n`pipeline.py`'s `compile`, then `parser.py`'s `parse` (`fast_path_on`).\n## next\n"
    assert named_in(text) == entered
