"""The REPL: its decisions as plain functions, prompt_toolkit driven through a pipe, and the debugger."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.cells import is_complete, next_indent, read_cells
from dglang.interpreter.frontends.completion import complete
from dglang.interpreter.frontends.repl import Outcome, Repl, describe_vars, run_piped
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.frontends.terminal import LEXER, STYLE, DGCompleter, interact

ROOT = Path(__file__).resolve().parents[2]


def new_repl() -> tuple[Repl, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Repl(Session(out=out), err=err), out, err


# ---- is the input complete? ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("x = 1", True),
        ("", True),
        (":vars", True),
        ("def f():", False),  # a block is due
        ("def f():\n    return 1", False),  # a block ends at a blank line
        ("def f():\n    return 1\n", True),
        ("def f():\n    return 1\n    ", True),  # the auto-indent of an empty line counts as blank
        ("if x: y = 1", False),  # a one-line compound statement waits for the blank line too
        ("x = (1,", False),  # a bracket is open
        ("x = [1,\n 2]", True),
        ('x = "abc', True),  # a syntax error is complete: running it reports the error
        ("x = 1 +", True),
        ("x = 1)", True),
    ],
)
def test_is_complete(text: str, complete: bool) -> None:
    assert is_complete(text) is complete


def test_next_indent_follows_the_blocks() -> None:
    assert next_indent("def f():") == "    "
    assert next_indent("def f():\n    y = 1") == "    "
    assert next_indent("def f():\n    if y:  # comment") == "        "
    assert next_indent("def f():\n    if y:\n        return 1") == "    "  # nothing runs after a return
    assert next_indent("for i in range(3):\n    if i:\n        continue") == "    "
    assert next_indent("while x:\n    pass") == ""
    assert next_indent("x = [1,\n     2,") == "     "  # inside brackets: as the line above
    assert next_indent('if s == "a:":') == "    "


def test_read_cells_groups_lines_as_typed() -> None:
    lines = ["x = 2", "for i in range(2):", "    print(i)", "", "y = (1,", "2)", "def f():", "    return 1"]
    assert list(read_cells(lines)) == [
        "x = 2\n",
        "for i in range(2):\n    print(i)\n\n",
        "y = (1,\n2)\n",
        "def f():\n    return 1\n",
    ]


# ---- running cells --------------------------------------------------------------------------
def test_the_issue_example_echoes_x_grad() -> None:
    repl, out, _ = new_repl()
    for cell in ["x = tensor([1.0, 2.0], requires_grad=True)", "y = (x * x).sum()", "grad y", "x.grad"]:
        assert repl.run_cell(cell) is Outcome.OK
    assert out.getvalue() == "tensor([2., 4.])\n"


def test_expression_statements_echo_but_none_does_not() -> None:
    repl, out, _ = new_repl()
    repl.run_cell("1 + 2\nprint('x')\nNone\n'text'")
    assert out.getvalue() == "3\nx\n'text'\n"


def test_an_error_keeps_the_session_state() -> None:
    repl, out, err = new_repl()
    repl.run_cell("a = 1")
    assert repl.run_cell("b = a + undefined_name") is Outcome.ERROR
    assert "<cell 2>:1:9: NameError: name 'undefined_name' is not defined" in err.getvalue()
    repl.run_cell("a")
    assert out.getvalue() == "1\n"


def test_a_syntax_error_changes_nothing() -> None:
    repl, out, err = new_repl()
    repl.run_cell("a = 1")
    assert repl.run_cell("a = 2\nif a\n") is Outcome.ERROR
    repl.run_cell("a")
    assert out.getvalue() == "1\n" and "SyntaxError" in err.getvalue()


def test_functions_defined_in_one_cell_report_errors_with_their_own_source() -> None:
    repl, _, err = new_repl()
    repl.run_cell("def f(x):\n    return x @ x\n")
    repl.run_cell("f(ones(2, 3))")
    text = err.getvalue()
    assert "<cell 1>:2:12: ShapeError" in text and "return x @ x" in text and "<cell 2>:1:1" in text


def test_grad_mode_is_restored_after_an_error_inside_no_grad() -> None:
    repl, out, _ = new_repl()
    repl.run_cell("with no_grad:\n    z = 1 / 0\n")
    repl.run_cell("x = tensor(1.0, requires_grad=True)\n(x * 2).requires_grad")
    assert out.getvalue() == "True\n"


# ---- meta-commands ----------------------------------------------------------------------------
def test_help_lists_commands() -> None:
    repl, out, _ = new_repl()
    repl.run_cell(":help")
    text = out.getvalue()
    assert "grad y" in text and ":vars" in text and ":load FILE" in text and ":reset" in text and ":quit" in text


def test_vars_shows_type_shape_and_grad_state() -> None:
    repl, out, _ = new_repl()
    repl.run_cell(
        "w = tensor([1.0, 2.0], requires_grad=True)\nh = w * 2\ngrad h.sum()\nn = 3\ndef f(a, b=1):\n    pass\n"
    )
    repl.run_cell(":vars")
    rows = out.getvalue().splitlines()
    assert rows == [
        "f  function      f(a, b=1)",
        "h  float tensor  (2,)       computed by Mul",
        "n  int           3",
        "w  float tensor  (2,)       requires grad, has .grad",
    ]


def test_describe_vars_of_plain_values() -> None:
    assert describe_vars({"s": "hi", "xs": [1, 2]}) == [("s", "str", "'hi'", ""), ("xs", "list", "[1, 2]", "")]


def test_load_and_reset(tmp_path: Path) -> None:
    repl, out, _ = new_repl()
    (tmp_path / "lib.dg").write_text("def double(x):\n    return 2 * x\nloaded = True\n")
    assert repl.run_cell(f":load {tmp_path / 'lib.dg'}") is Outcome.OK
    repl.run_cell("double(21)")
    repl.run_cell(":reset")
    assert repl.run_cell("double") is Outcome.ERROR
    assert out.getvalue() == "42\n(all variables cleared)\n"


def test_unknown_command_and_missing_file() -> None:
    repl, _, err = new_repl()
    assert repl.run_cell(":nope") is Outcome.ERROR
    assert repl.run_cell(":load /no/such/file.dg") is Outcome.ERROR
    assert "no command ':nope'" in err.getvalue() and "cannot load" in err.getvalue()


def test_quit() -> None:
    repl, _, _ = new_repl()
    assert repl.run_cell(":quit") is Outcome.QUIT


# ---- completion and colour ----------------------------------------------------------------
def test_completion_of_names_keywords_builtins_and_attributes() -> None:
    repl, _, _ = new_repl()
    repl.run_cell("weights = tensor([1.0])\nwidth = 3\nnames = [1]")
    env = repl.env
    assert complete("wei", env) == ["weights"]
    assert complete("wh", env) == ["where", "while"]
    assert "requires_grad" in complete("weights.re", env) and "reshape" in complete("weights.re", env)
    assert complete("weights.gr", env) == ["grad", "grad_fn"]
    assert complete("names.ap", env) == ["append"]
    assert complete("width.", env) == []
    assert complete(":lo", env) == [":load"]


def colours(line: str) -> dict[str, str]:
    """Each piece of `line` as the REPL shows it: its colour (and bold) in the terminal's palette."""
    pieces = LEXER.lex_document(Document(line))(0)
    assert "".join(text for _, text in pieces) == line
    shown = {}
    for style, text in pieces:
        attrs = STYLE.get_attrs_for_style_str(style)
        shown[text] = f"{attrs.color or ''}{' bold' if attrs.bold else ''}".strip()
    return shown


def test_the_repl_colours_keywords_numbers_strings_comments_and_builtins() -> None:
    shown = colours('if x > 0 and ok: print("hi", 2.5)  # note')
    assert shown["if"] == shown["and"] == "ansimagenta bold" and shown["print"] == "ansicyan"
    assert shown['"'] == shown["hi"] == "ansigreen" and shown["2.5"] == "ansiyellow"
    assert shown["# note"] == "ansibrightblack" and shown["x"] == shown["ok"] == ""


def test_the_repl_colours_the_fields_of_an_f_string_as_code() -> None:
    shown = colours('f"loss {loss.item():.4f} at {len(xs)}"')
    assert shown["{"] == shown["}"] == "ansigreen bold" and shown["len"] == "ansicyan"
    assert shown["loss "] == shown[".4f"] == "ansigreen" and shown["item"] == ""


def test_the_repl_colours_unfinished_input() -> None:
    assert colours('y = "unfinished')["unfinished"] == "ansigreen"
    assert colours("def f(x")["def"] == "ansimagenta bold"


# ---- prompt_toolkit, through a pipe --------------------------------------------------------------
def drive(keys: str, repl: Repl | None = None) -> tuple[Outcome, str, str]:
    """The keys, sent all at once (so the REPL takes them as a paste: each line with the indentation
    it has), to the prompt; how it ended, and what was printed."""
    repl, out, err = (repl, repl.session.out, repl.err) if repl else new_repl()  # type: ignore[assignment]
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        outcome = interact(repl, input=pipe, output=DummyOutput())
    return outcome, out.getvalue(), err.getvalue()  # type: ignore[union-attr]


def test_prompt_runs_single_and_multi_line_input() -> None:
    keys = "x = 20\rdef f(n):\r    return n + 1\r\rf(x) * 2\r:quit\r"
    outcome, out, err = drive(keys)
    assert outcome is Outcome.QUIT and out == "42\n" and err == ""


def test_keys_sent_at_once_are_a_paste_that_keeps_its_own_indentation() -> None:
    """No indentation is added to a line already sent (auto-indentation is for a person typing:
    tests/frontends/test_repl_terminal.py), and a blank line is the block's when the next is
    indented, so a paste the terminal sends as keys runs as its lines read."""
    _, out, err = drive(
        "def g():\r    y = 7\r\r    return y\rprint(g())\rfor i in range(2):\r    print(i)\rprint('end')\r\r:quit\r"
    )
    assert (out, err) == ("7\n0\n1\nend\n", "")
    _, out, err = drive("def g():\rreturn 7\r\r:quit\r")  # as the file would: its body is not indented
    assert out == "" and "IndentationError: expected an indented block" in err


def test_ctrl_c_at_the_prompt_clears_the_line() -> None:
    _, out, _ = drive("this is half typed\x031 + 1\r:quit\r")
    assert out == "2\n"


def test_ctrl_d_on_an_empty_line_leaves() -> None:
    outcome, _, _ = drive("x = 1\r\x04")
    assert outcome is Outcome.QUIT


def test_prompt_toolkit_completer_replaces_the_word_being_typed() -> None:
    repl, _, _ = new_repl()
    repl.run_cell("learning_rate = 0.5\nw = tensor([3.0], requires_grad=True)")
    completer = DGCompleter(repl)

    def offer(text: str) -> list[tuple[str, int]]:
        found = completer.get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))
        return [(c.text, c.start_position) for c in found]

    assert offer("x = learning_r") == [("learning_rate", -10)]
    assert offer("w.requires_g") == [("requires_grad", -10)]
    assert offer(":res") == [(":reset", -4)]


def test_errors_at_the_prompt_keep_the_variables() -> None:
    _, out, err = drive("a = 5\ra / 0\ra\r:quit\r")
    assert out == "5\n" and "ZeroDivisionError" in err


# ---- standard input that is not a terminal -------------------------------------------------
def dg(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_piped_statements_print_without_prompts() -> None:
    result = dg(stdin="x = 2\nprint(x * 3)\n")
    assert result.stdout == "6\n" and result.returncode == 0


def test_piped_session_goes_on_after_an_error_and_exits_nonzero() -> None:
    result = dg(stdin="x = 1\nprint(y)\nprint(x)\n")
    assert result.stdout == "1\n"
    assert "NameError" in result.stderr and result.returncode == 70


def test_run_then_repl_with_the_programs_variables() -> None:
    result = dg("-i", "programs/02_branches.dg", stdin="input_negative.grad\n")
    assert result.stdout.endswith("tensor([1., 1., 1.])\n"), result.stderr


def test_run_piped_returns_how_it_ended() -> None:
    repl, _, _ = new_repl()
    assert run_piped(repl, ["x = 1", ":quit", "never = 1"]) is Outcome.QUIT
    with pytest.raises(DGError):
        repl.session.run("never", "<t>")


# ---- the debugger ----------------------------------------------------------------------------
BREAKS = """\
def f(x):
    y = x * 2
    breakpoint()
    return y + 1
print("result", f(10))
"""


@pytest.fixture
def breaking_program(tmp_path: Path) -> str:
    path = tmp_path / "bp.dg"
    path.write_text(BREAKS)
    return str(path)


def test_breakpoint_sees_and_changes_locals(breaking_program: str) -> None:
    result = dg(breaking_program, stdin="y\nx + y\ny = 100\n:continue\n")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("paused at ") and lines[0].endswith("bp.dg:3:5 in f")
    assert "20" in lines and "30" in lines
    assert lines[-1] == "result 101"


def test_where_shows_the_call_stack(breaking_program: str) -> None:
    result = dg(breaking_program, stdin=":where\n:continue\n")
    stack = result.stdout.split("DG call stack (innermost last):\n")[1].splitlines()
    assert stack[0].split()[1:3] == ["<program>", 'print("result",']
    assert stack[1].split()[1:] == ["f", "breakpoint()"]


def test_end_of_input_resumes_like_ctrl_d(breaking_program: str) -> None:
    assert dg(breaking_program, stdin="").stdout.splitlines()[-1] == "result 21"


def test_quit_at_a_breakpoint_stops_the_program(breaking_program: str) -> None:
    result = dg(breaking_program, stdin=":quit\n")
    assert "result" not in result.stdout and result.returncode == 130  # interrupted, said on stderr
    assert "Stopped: the program stopped at the debugger's :quit" in result.stderr


def test_no_breakpoints_flag_skips_them(breaking_program: str) -> None:
    assert dg("--no-breakpoints", breaking_program).stdout == "result 21\n"


def test_conditional_breakpoint_and_errors_in_the_debugger(tmp_path: Path) -> None:
    path = tmp_path / "loop.dg"
    path.write_text("for step in range(5):\n    loss = 10 - step\n    if loss < 8:\n        breakpoint()\n")
    result = dg(str(path), stdin="step\nnope\n:continue\nstep\n:continue\n")
    assert result.stdout.count("paused at") == 2  # loss < 8 at steps 3 and 4
    assert "\n3\n" in result.stdout and "\n4\n" in result.stdout
    assert "NameError: name 'nope' is not defined" in result.stderr


def test_a_picture_names_the_cell_its_grad_was_typed_in() -> None:
    """Every cell has a line 1: the backward pass a picture draws says which cell's."""
    repl, out, _ = new_repl()
    for cell in ("x = tensor([1.0], requires_grad=True)", "y = (x * 2).sum()", "grad y", ":graph y"):
        repl.run_cell(cell)
    assert "backward: the grad on line 1 of <cell 3>" in out.getvalue()
