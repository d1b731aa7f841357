"""Help: every name has it (signature, one sentence, the derivative rule where there is one, an
example), every example prints what it says, and docs/language.md agrees with it."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from dglang.autograd.op import Op
from dglang.interpreter.frontends import debugger  # noqa: F401  (registers the debugger's commands)
from dglang.interpreter.frontends.completion import completions
from dglang.interpreter.frontends.repl import Outcome, Repl
from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.module_files import Folder
from dglang.interpreter.library.help import (
    ENGINE,
    ENTRIES,
    Help,
    describe,
    everything,
    render,
    sample_example,
    transcript,
)
from dglang.interpreter.syntax.grammar import keywords

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = (ROOT / "docs" / "language.md").read_text()
BUILTINS = new_session().builtins.vars
ALL = list(everything(BUILTINS))
OPS = {f.dg_name for f in ENGINE.values() if hasattr(f.fn, "op")}  # the names a program reaches an op by
every_op = pytest.mark.every_op


def each(entries: list[Help]) -> list[Any]:
    """The entries as parameters, those of ops marked every_op (run on each solved exercise)."""
    return [pytest.param(e, id=e.name, marks=[every_op] if e.name.removeprefix("x.") in OPS else []) for e in entries]


# ---- every name has help ------------------------------------------------------------------------
def test_every_kind_of_name_has_help() -> None:
    names = {entry.name for entry in ALL}
    assert set(BUILTINS) <= names
    assert set(keywords()) <= names
    assert {"x.grad", "x.shape", "x.sum", "x.reshape", "x.item", "+", "@", ":help", ":step", ":break"} <= names


@pytest.mark.parametrize("entry", each(ALL))
def test_help_has_a_signature_a_sentence_and_an_example(entry: Help) -> None:
    assert entry.signature and entry.kind
    assert entry.summary.endswith(".") and "\n" not in entry.summary, "the summary is one sentence"
    assert entry.example, (
        f"{entry.name} has no example: write one in its docstring (`>>> ` and what it prints), "
        "or for an op whose forward needs more than its tensors, declare `sample` (autograd/op.py)"
    )


def test_the_derivative_rule_comes_from_the_op_declaration() -> None:
    relu = describe("relu", BUILTINS)
    assert relu is not None and relu.rule == "Relu: a receives g where a > 0"
    mul = describe("*", BUILTINS)
    assert mul is not None and mul.rule == "Mul: a receives g·b, b receives g·a"
    assert describe("x.sum", BUILTINS).rule.startswith("Sum: a receives")  # type: ignore[union-attr]
    assert describe("argmax", BUILTINS).rule is None  # type: ignore[union-attr]  # records nothing


def test_help_is_looked_up_as_a_person_writes_the_name() -> None:
    assert describe("x.sum", BUILTINS) == describe(".sum", BUILTINS) == describe("t.sum", BUILTINS)
    assert describe("grad", BUILTINS).kind == "keyword"  # type: ignore[union-attr]
    assert describe(".grad", BUILTINS).kind == "tensor attribute"  # type: ignore[union-attr]
    assert describe("step", BUILTINS) == describe(":step", BUILTINS)
    assert describe("no such name", BUILTINS) is None


# ---- the examples print what they say -----------------------------------------------------------
EXAMPLES = [e for e in ALL if e.example and e.kind != "debugger command"]


@pytest.mark.parametrize("entry", each(EXAMPLES))
def test_the_example_prints_what_it_says(entry: Help, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "docs")  # where :load and load_csv find the files the examples name
    out, err = io.StringIO(), io.StringIO()
    session = new_session(out=out, base_dir=ROOT / "docs")
    session.modules.library = [Folder(ROOT / "programs", "programs")]  # `import nn`: the course library
    repl = Repl(session, err=err)
    for cell in entry.example:
        before = len(out.getvalue())
        outcome = repl.run_cell(cell.code)
        printed = out.getvalue()[before:].rstrip("\n")
        assert outcome is not Outcome.ERROR, err.getvalue()
        if cell.output != "...":  # "..." stands for output shown elsewhere (a graph picture)
            assert printed == cell.output, f"{entry.name}: `{cell.code}` printed\n{printed}"


def test_help_renders_as_text() -> None:
    text = render(describe("relu", BUILTINS))  # type: ignore[arg-type]
    assert text.splitlines() == [
        "relu(a)    (builtin function; also x.relu())",
        "    Each element where it is positive, and 0 where it is not.",
        "    derivative  Relu: a receives g where a > 0   (g is the gradient arriving at the result)",
        "    example",
        "      >>> relu(tensor([-1.0, 2.0]))",
        "      tensor([0., 2.])",
    ]
    assert transcript(describe(":vars", BUILTINS).example)[-1] == "w  float tensor  (2,)  requires grad"  # type: ignore[union-attr]


def test_an_op_whose_docstring_has_no_example_gets_its_sample_call() -> None:
    [example] = sample_example("exp", method=False)  # (as softplus, declared without one, would)
    assert example.code == "exp(tensor([0.5, 1.5, 2.5]))"
    assert run(example.code)[0] == example.output + "\n" == "tensor([ 1.6487,  4.4817, 12.1825])\n"
    [example] = sample_example("clamp", method=True)  # its sample declared: the other arguments too
    assert example.code == "tensor([-0.5, 0.5, 1.5]).clamp(0.0, 1.0)"
    assert sample_example("window_mean", method=False) == ()  # a geometry no program writes


# ---- as a person asks for it ---------------------------------------------------------------------
def run(*cells: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    repl = Repl(new_session(out=out), err=err)
    for cell in cells:
        repl.run_cell(cell)
    return out.getvalue(), err.getvalue()


def test_help_command_and_builtin_print_the_same() -> None:
    by_command, _ = run(":help relu")
    by_builtin, _ = run("help(relu)")
    by_string, _ = run('help("relu")')
    assert by_command == by_builtin == by_string == render(describe("relu", BUILTINS)) + "\n"  # type: ignore[arg-type]


def test_help_of_keywords_methods_values_and_commands() -> None:
    out, err = run(
        'help("if")', "x = tensor([1.0], requires_grad=True)", "help(x.sum)", "help(x)", ":help :step", "help(help)"
    )
    assert out.startswith("if CONDITION: ... elif CONDITION: ... else: ...    (keyword)")
    assert "x.sum(axis=None, keepdims=False)    (tensor method" in out
    assert "a float tensor of shape (1,) that requires grad" in out
    assert ":step    (debugger command)" in out and "help(name)    (builtin function)" in out and not err


def test_help_of_a_function_of_the_program_shows_its_signature_and_docstring(tmp_path: Path) -> None:
    square = 'def square(x, p=2):\n    """x to the power p, elementwise."""\n    return x ** p\n'
    out, err = run(square, ":help square", "help(square)", "f = square", ":help f")  # was: "no help for 'square'"
    entry = "def square(x, p=2)    (function; defined at <cell 1>:1:1)\n    x to the power p, elementwise.\n"
    assert out == entry * 3 and not err
    out, _ = run("def bare(x):\n    return x\n", ":help bare")
    assert out == "def bare(x)    (function)\n    a function defined at <cell 1>:1:1\n"
    (tmp_path / "lib.dg").write_text('def scale(x):\n    """x times 3."""\n    return 3 * x\n')
    repl = Repl(new_session(out=(printed := io.StringIO()), base_dir=tmp_path), err=io.StringIO())
    for cell in ("import lib", ":help lib.scale", "step = 3", ":help step"):
        repl.run_cell(cell)
    assert printed.getvalue().startswith("def scale(x)    (function; defined at lib.dg:1:1)\n    x times 3.\n")
    assert ":step    (debugger command)" in printed.getvalue()  # a variable named step hides no command's help


def test_help_of_something_unknown_says_so() -> None:
    _, err = run(":help relux", "help(3, 4)")
    assert "CommandError: no help for 'relux'" in err and "did you mean 'relu'?" in err
    assert "TypeError: help() takes one name" in err


def test_help_alone_lists_every_name() -> None:
    out, _ = run("help()")
    for name in ("relu", "x.sum", "x.grad", "grad", ":step", "@", "no_grad"):
        assert re.search(rf"(^|\s){re.escape(name)}(\s|$)", out), name


def test_the_completion_menu_shows_each_summary() -> None:
    repl = Repl(new_session(out=io.StringIO()))
    repl.run_cell("weights = tensor([1.0, 2.0], requires_grad=True)")
    offered = {c.text: c.meta for c in completions("wei", repl.env, repl.commands)}
    assert offered == {"weights": "float tensor (2,)"}
    offered = {c.text: c.meta for c in completions("weights.res", repl.env, repl.commands)}
    assert offered == {"reshape": describe("x.reshape").summary}  # type: ignore[union-attr]
    offered = {c.text: c.meta for c in completions("rel", repl.env, repl.commands)}
    assert offered == {"relu": describe("relu", BUILTINS).summary}  # type: ignore[union-attr]
    assert {c.text for c in completions(":he", repl.env, repl.commands)} == {":help"}


# ---- docs/language.md says the same ---------------------------------------------------------------
def in_backticks(text: str) -> bool:
    return re.search(r"`[^`\n]*" + re.escape(text), LANGUAGE) is not None


@pytest.mark.parametrize(
    "name", [pytest.param(n, id=n, marks=[every_op] if n in OPS else []) for n in sorted(BUILTINS)]
)
def test_language_md_gives_each_builtin_its_signature(name: str) -> None:
    entry = describe(name, BUILTINS)
    assert entry is not None
    shown = entry.signature.removeprefix("with ")
    assert in_backticks(shown), f"docs/language.md does not show `{shown}`"


MEMBERS = [e for e in ALL if e.kind in ("tensor method", "tensor attribute")]


@pytest.mark.parametrize("entry", each(MEMBERS))
def test_language_md_gives_each_tensor_member_its_signature(entry: Help) -> None:
    shown = entry.signature.removeprefix("x")
    assert in_backticks(shown), f"docs/language.md does not show `{shown}`"


def test_language_md_lists_the_keywords() -> None:
    listed = re.search(r"These words are keywords and cannot\nbe names: `([^`]*)`", LANGUAGE)
    assert listed is not None and listed[1].split() == sorted(keywords(), key=str.lower)


def test_language_md_lists_the_commands() -> None:
    commands = [e for e in ENTRIES.values() if e.name.startswith(":")]
    for entry in commands:
        assert in_backticks(entry.signature), f"docs/language.md does not show `{entry.signature}`"


def documented_rules() -> dict[str, str]:
    """The derivative rules table of language.md: op name -> the rules column."""
    section = LANGUAGE.split("## Derivative rules")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (\w+) \|[^|]*\| ([^|]*?) \|", section, re.M)
    return {op: rules for op, rules in rows if op != "op"}


def declared_ops() -> dict[str, Op]:
    return {op.name: op for f in ENGINE.values() for op in f.records}


@every_op
def test_language_md_gives_each_op_the_rule_it_declares() -> None:
    documented, declared = documented_rules(), declared_ops()
    assert set(documented) == set(declared), "ops in the table and ops declared in autograd/ differ"
    for name, op in declared.items():
        each = "each " if op.variadic else ""
        expected = "; ".join(f"{each}{i}: `{r}`" for i, r in zip(op.inputs, op.rules, strict=True))
        assert documented[name] == expected, f"the row of {name} should read: {expected}"


def test_a_keyword_written_as_a_value_says_to_quote_it() -> None:
    out, err = run("help(while)", "help(not)", "help(None)")
    assert "NameError: name 'while' is not defined" in err and "help: 'while' is a keyword: help(\"while\")" in err
    assert "SyntaxError: 'not' is a keyword, not a value" in err and 'write help("not") or :help not' in err
    assert out.startswith("None    (keyword)")


def test_help_completes_every_name_it_knows() -> None:
    repl = Repl(new_session(out=io.StringIO()))
    assert [c.text for c in completions(":help rel", repl.env, repl.commands)] == ["relu"]
    assert [c.text for c in completions(":help x.su", repl.env, repl.commands)] == ["x.sum"]
    assert ":step" in [c.text for c in completions(":help :", repl.env, repl.commands)]
