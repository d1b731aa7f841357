"""Seeing inside: `dg parse`, graph pictures (text and DOT), and `dg --trace`.

Each program in tests/seeing/ has golden files beside it: NAME.picture (what its graph() calls
print), NAME.dot (the DOT of its last variable with a graph) and NAME.trace (`dg --trace`).
Refresh them with `DG_UPDATE_GOLDEN=1 uv run pytest tests/seeing/test_seeing.py` and read the diff.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from graph_util import can_draw

from dglang.autograd import Tensor
from dglang.autograd.tensor import recording
from dglang.interpreter.frontends import cli
from dglang.interpreter.frontends.repl import Repl
from dglang.interpreter.frontends.sessions import new_session as Session
from dglang.interpreter.seeing import render
from dglang.interpreter.seeing.dot import to_dot
from dglang.interpreter.seeing.graph import MAX_NODES, Graph
from dglang.interpreter.seeing.graph import collect as seeing_collect
from dglang.interpreter.seeing.render import layouts
from dglang.interpreter.seeing.text_picture import text_picture
from dglang.interpreter.seeing.tools import install
from dglang.interpreter.seeing.trace import Tracer

ROOT = Path(__file__).resolve().parents[2]
SEEING = Path(__file__).resolve().parents[2] / "tests" / "golden" / "seeing"
PROGRAMS = sorted(SEEING.glob("*.dg"))
UPDATE = os.environ.get("DG_UPDATE_GOLDEN") == "1"


def check_golden(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        path.write_text(text)
        if not UPDATE:
            pytest.fail(f"wrote a new golden {path.name}: read it, then run again")
    assert text == path.read_text()


def run(path: Path, tracer: bool = False) -> tuple[Session, str]:
    out = io.StringIO()
    session = Session(out=out, base_dir=path.parent)
    install(session).keep_backward()  # as `dg graph` does
    trace = Tracer(session.write, limit=60) if tracer else None
    if trace is not None:
        install(session, trace=trace)
    session.run(path.read_text(), path.name)
    if trace is not None:
        trace.summary()
    return session, out.getvalue()


def collect(value: Tensor, limit: int = MAX_NODES, session: Session | None = None) -> Graph:
    """The picture's records of `value`, with the last backward pass of `session` (or of none)."""
    return seeing_collect(value, install(session).last_backward.last if session is not None else None, limit)


def last_graph(session: Session) -> tuple[str, Tensor]:
    """The program's last assigned variable that holds a recorded graph."""
    name, value = next((k, v) for k, v in reversed(session.globals.vars.items()) if isinstance(v, Tensor) and v.grad_fn)
    return name, value


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_text_picture(path: Path) -> None:
    _, out = run(path)
    check_golden(path.with_suffix(".picture"), out)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_dot(path: Path) -> None:
    session, _ = run(path)
    name, value = last_graph(session)
    check_golden(path.with_suffix(".dot"), to_dot(collect(value, session=session), name))


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_trace(path: Path) -> None:
    _, out = run(path, tracer=True)
    check_golden(path.with_suffix(".trace"), out)


# ---- what the pictures must say ---------------------------------------------------------------
def test_a_picture_after_a_backward_that_kept_no_steps() -> None:
    Session(out=io.StringIO()).run("a = tensor(1.0, requires_grad=True)\ngrad a * 2\n")  # keeps no steps
    _, out = run(SEEING / "branches.dg")  # draws before its first grad
    assert "graph of out_positive" in out


def test_only_the_branch_that_ran_is_in_the_picture() -> None:
    session, out = run(SEEING / "branches.dg")
    positive, negative = out.split("graph of ")[1:]
    assert "Mul" in positive and "Sub" not in positive
    assert "the if on line 2 ran its then-branch" in positive
    assert "Sub" in negative and "Mul" not in negative
    assert "the if on line 2 ran its else-branch on line 4" in negative
    dot_positive = to_dot(collect(session.globals.vars["out_positive"], session=session), "out_positive")
    dot_negative = to_dot(collect(session.globals.vars["out_negative"], session=session), "out_negative")
    assert "Mul" in dot_positive and "Sub" not in dot_positive and "then-branch" in dot_positive
    assert "Sub" in dot_negative and "Mul" not in dot_negative and "else-branch on line 4" in dot_negative


def test_a_node_used_twice_is_drawn_once_and_referenced() -> None:
    _, out = run(SEEING / "shared.dg")
    assert out.count("[4] a  (2,)  requires grad") == 1
    assert out.count("[4] a (drawn above)") == 2


def test_after_grad_every_node_has_its_gradient_and_step() -> None:
    session, _ = run(SEEING / "two_layer.dg")
    graph = collect(session.globals.vars["loss"], session=session)
    ops = [n for n in graph.nodes.values() if n.kind in ("op", "output")]
    assert all(n.received is not None and n.step is not None for n in ops)
    assert sorted(n.step for n in ops) == list(range(1, len(ops) + 1))
    leaves = [n for n in graph.nodes.values() if n.kind == "parameter"]
    assert all(n.received is not None and n.step is None for n in leaves)  # a leaf runs no rule: no step


def test_nodes_know_their_line_code_and_call() -> None:
    session, _ = run(SEEING / "two_layer.dg")
    graph = collect(session.globals.vars["loss"], session=session)
    relu = next(n for n in graph.nodes.values() if n.op is not None and n.op.name == "Relu")
    assert relu.where() == "line 2: relu(x @ W + b) in layer()"
    assert relu.tensor.name == "h"
    dot = to_dot(graph, "loss")
    assert 'label="layer() called at line 9"' in dot
    assert 'label="b: aᵀ @ g\\n= [0.7779, ' in dot  # edges carry the local derivative rule and its numbers


def test_no_grad_values_draw_as_an_empty_graph() -> None:
    session = Session(out=io.StringIO())
    session.run("x = tensor([1.0])\ny = x * 2", "<t>")
    assert "requires no grad" in text_picture(collect(session.globals.vars["y"], session=session), "y")


def test_big_graphs_are_cut_short() -> None:
    session = Session(out=io.StringIO())
    session.run("x = tensor(1.0, requires_grad=True)\nfor i in range(500):\n    x = x * 1.0", "<t>")
    picture = text_picture(collect(session.globals.vars["x"], limit=50, session=session), "x")
    nodes = [line for line in picture.splitlines() if line.lstrip("│├└─ ab:").startswith("[")]
    assert "more nodes not shown" in picture and len(nodes) <= 50


# ---- the REPL and the trace limit --------------------------------------------------------------
def test_repl_graph_command() -> None:
    out, err = io.StringIO(), io.StringIO()
    repl = Repl(Session(out=out), err=err)
    repl.run_cell("x = tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ngrad y")
    repl.run_cell(":graph y")
    assert "graph of y: 3 nodes" in out.getvalue() and "received [2, 4]" in out.getvalue()
    repl.run_cell(":graph nothing")
    assert "usage: :graph NAME" in err.getvalue()


def test_trace_limit_summarises_what_it_skipped() -> None:
    out = io.StringIO()
    session = Session(out=out)
    trace = Tracer(session.write, limit=5)
    install(session, trace=trace)
    session.run("x = tensor(1.0, requires_grad=True)\nfor i in range(100):\n    x = x * 1.01\ngrad x", "<t>")
    trace.summary()
    lines = out.getvalue().splitlines()
    assert len(lines) == 6
    assert lines[-1].startswith("[trace] ... 297 more trace lines not shown (100 nodes recorded, 100 backward steps")


def test_hooks_are_removed_after_a_traced_run() -> None:
    run(SEEING / "shared.dg", tracer=True)
    assert recording.listeners == () and recording.on_record == recording.on_step == recording.on_leaf == ()


# ---- the command line -------------------------------------------------------------------------
def dg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_dg_parse_prints_the_tree_with_positions() -> None:
    result = dg("parse", "tests/golden/seeing/branches.dg")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Module"
    assert "  FunctionDef  dynamic_graph_example  (x)  1:1" in lines
    assert "        if: Compare  >  2:8" in lines
    assert any(line.strip() == "value: Binary  *  3:13" for line in lines)


def test_dg_parse_tokens_shows_indent_and_dedent() -> None:
    result = dg("parse", "--tokens", "tests/golden/seeing/branches.dg")
    rows = [line.split() for line in result.stdout.splitlines()]
    assert ["1:1", "DEF", "'def'"] in rows
    assert ["2:5", "_INDENT"] in rows and ["3:9", "_INDENT"] in rows
    assert any(r[1] == "_DEDENT" for r in rows)


def test_dg_parse_reports_syntax_errors() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", "parse", "-"],
        input="if x\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == cli.EXIT_SYNTAX and "expected ':'" in result.stderr


def test_dg_graph_writes_dot_to_stdout_and_the_programs_prints_elsewhere() -> None:
    result = dg("graph", "programs/02_branches.dg", "--var", "out")
    assert result.returncode == 0
    assert result.stdout.startswith("digraph dg {") and "Mul" in result.stdout
    assert "Before backward" in result.stderr


def test_dg_graph_unknown_variable() -> None:
    result = dg("graph", "programs/02_branches.dg", "--var", "nope")
    assert result.returncode == cli.EXIT_USAGE and "'nope' is not a variable" in result.stderr


@pytest.mark.skipif(not can_draw(), reason="neither Graphviz's dot nor graphviz-pure is installed")
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_graphviz_accepts_the_dot(path: Path) -> None:
    for layout in layouts():  # each program that can draw here: the system's dot, graphviz-pure
        assert render.svg(path.with_suffix(".dot").read_text(), layout).startswith("<svg")


@pytest.mark.skipif(not can_draw(), reason="neither Graphviz's dot nor graphviz-pure is installed")
def test_dg_graph_writes_svg(tmp_path: Path) -> None:
    out = tmp_path / "g.svg"
    assert dg("graph", "programs/02_branches.dg", "--var", "out", "-o", str(out)).returncode == 0
    assert "<svg" in out.read_text()


def test_dg_graph_says_which_program_draws_under_debug(tmp_path: Path) -> None:
    result = dg("graph", "programs/02_branches.dg", "--var", "out", "-o", str(tmp_path / "g.svg"), "--debug")
    first = layouts()[0]
    assert result.stderr.startswith(f"dg: drawing with {first.name} ({first.path})\n")


@pytest.mark.parametrize("suffix", ["png", "svg", "html"])
def test_dg_graph_without_graphviz_says_so_before_running_the_program(
    tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(render, "layouts", list)  # neither dot nor graphviz-pure: a platform without its wheel
    monkeypatch.chdir(ROOT)
    code = cli.main(["graph", "programs/02_branches.dg", "--var", "out", "-o", str(tmp_path / f"g.{suffix}")])
    assert code == cli.EXIT_UNAVAILABLE
    assert capsys.readouterr().err == (
        "dg: GraphvizError: drawing SVG, PNG or HTML needs Graphviz, and neither `dot` nor graphviz-pure is installed\n"
        " = help: pip install graphviz-pure (it comes with DG where a wheel of it exists), or install Graphviz (apt "
        "install graphviz, brew install graphviz, winget install graphviz); a .dot file needs neither\n"
    )  # one message, and the program did not run: it would have printed "Before backward"
    assert not (tmp_path / f"g.{suffix}").exists()


@pytest.mark.parametrize(
    ("program", "var", "options"), [("02_branches", "out", ["--untaken"]), ("07_two_layer", "loss", [])]
)
def test_pictures_in_the_docs_are_current(program: str, var: str, options: list[str]) -> None:
    """docs/*.svg are drawn from docs/*.dot; when this fails, redraw both:
    dg graph programs/P.dg --var V [OPTIONS] -o docs/P.dot && dot -Tsvg docs/P.dot -o docs/P.svg"""
    result = dg("graph", f"programs/{program}.dg", "--var", var, *options)
    assert result.stdout == (ROOT / "docs" / f"{program}.dot").read_text()
