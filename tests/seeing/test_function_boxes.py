"""Function calls drawn as boxes (seeing/function_boxes.py): which nodes a box stands for, the
edges rerouted to it, its label, and `--open NAME` / `--expand` / `--boxes` from the command line."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.seeing.dot import DotOptions, to_dot
from dglang.interpreter.seeing.function_boxes import BOXES_ABOVE, Boxing, box_lines, boxed
from dglang.interpreter.seeing.graph import Graph
from dglang.interpreter.seeing.text_picture import text_picture
from dglang.interpreter.seeing.tools import install

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
def layer(x, w):
    return relu(x @ w)

def net(x, w1, w2):
    return layer(layer(x, w1), w2).sum() * 2

x = tensor([[1.0, -2.0]])
w1 = tensor([[1.0, 0.5], [-1.0, 2.0]], requires_grad=True)
w2 = tensor([[2.0], [1.0]], requires_grad=True)
loss = net(x, w1, w2)
grad loss
"""


def graph_of(text: str, var: str) -> Graph:
    session = new_session(out=io.StringIO())
    seeing = install(session)
    seeing.keep_backward()
    session.run(text, "<t>")
    return seeing.graph(session.globals.vars[var])


def test_each_call_becomes_one_box_standing_for_its_nodes_and_its_own_leaves() -> None:
    graph = graph_of(PROGRAM, "loss")
    assert len(graph.nodes) == 10 and not Boxing().wanted(graph)  # small: drawn op by op unless asked
    drawn = boxed(graph, Boxing("boxes"))
    titles = sorted(n.title for n in drawn.nodes.values())
    # net() made the output, so it stays open; each call of layer() is one box; the constant 2 stays.
    assert titles == ["2", "Sum", "layer()", "layer()", "loss = Mul"]
    # numbered from the output: the outer call of layer() first
    outer, inner = sorted((n for n in drawn.nodes.values() if n.kind == "call"), key=lambda n: n.number)
    assert {n.title for n in inner.stands_for} == {"MatMul", "Relu", "w1", "x"}  # x, w1: used by this call alone
    assert {n.title for n in outer.stands_for} == {"MatMul", "Relu", "w2"}
    # The edges: the inner call's box feeds the outer's, the outer's the Sum.
    assert [(e.drawn_from, e.rule) for e in outer.edges] == [(inner.number, "")]
    sum_node = next(n for n in drawn.nodes.values() if n.title == "Sum")
    assert [e.drawn_from for e in sum_node.edges] == [outer.number]
    assert sum_node.edges[0].label == "a: g, broadcast = [[2]]"  # the rule and its numbers, as before boxing
    assert [o.title for o in outer.outputs] == ["Relu"] and [o.title for o in inner.outputs] == ["Relu"]
    assert graph.nodes[1].title == "loss = Mul" and len(graph.nodes) == 10  # the graph collected is unchanged


def test_a_box_says_which_call_it_is_what_it_holds_gives_and_which_steps_ran_inside() -> None:
    drawn = boxed(graph_of(PROGRAM, "loss"), Boxing("boxes"))
    text = text_picture(drawn, "loss")
    # relu(x @ w1) = relu([[1 + 2, 0.5 - 4]]) = [[3, 0]], made by node [6]; relu([[3, 0]] @ w2) = [[6]]
    assert "[11] layer() called at line 5  3 nodes inside: 2 ops, 1 leaf  gives [4] (1, 1): [[6]]  steps 3 to 4" in text
    inner = "[12] layer() called at line 5  4 nodes inside: 2 ops, 2 leaves  gives [6] (1, 2): [[3, 0]]  steps 5 to 6"
    assert inner in text
    assert "│     └─ (used inside)\n│        [12] layer()" in text
    assert "2 function calls drawn as boxes, 7 nodes inside them" in text  # 3 + 4: the boxes' own counts
    assert "dg graph --open f draws them" in text


def test_a_box_counts_every_node_it_stands_for_as_the_note_does_constants_too() -> None:
    # the GPT's box said "123 ops, 40 leaves" where the note said "177 nodes inside": 14 constants uncounted
    program = "def scaled(x, w):\n    return (x @ w) * 2 + 1\n\n"
    program += "x = ones(1, 2)\nw = ones(2, 1, requires_grad=True)\ny = scaled(x, w).sum() * 3\n"
    drawn = boxed(graph_of(program, "y"), Boxing("boxes"))
    (box,) = (n for n in drawn.nodes.values() if n.kind == "call")
    assert box_lines(box)[0][1] == "7 nodes inside: 3 ops, 2 leaves, 2 constants"  # @ * +; x w; 2 1
    assert drawn.notes[-1] == "1 function call drawn as a box, 7 nodes inside it"


def test_opening_a_function_by_name_opens_its_calls_and_the_calls_around_them() -> None:
    graph = graph_of(PROGRAM, "loss")
    opened = boxed(graph, Boxing("auto", ("layer",)))
    assert opened is graph  # layer()'s calls open, and net()'s, which made the output: no box is left
    assert boxed(graph, Boxing("expand")) is graph
    dot = to_dot(boxed(graph, Boxing("boxes")), "loss", DotOptions())
    assert dot.count("peripheries=2") == 2 and "layer() called at line 5\\n3 nodes inside: 2 ops, 1 leaf" in dot
    assert "a function call drawn as one box" in dot  # the key says what a double box is


def test_a_big_graph_boxes_its_calls_unless_told() -> None:
    program = "def step(h, w):\n    return tanh(h * w + 0.1)\n\nw = tensor(0.5, requires_grad=True)\nh = tensor(1.0)\n"
    program += f"for i in range({BOXES_ABOVE // 3}):\n    h = step(h, w)\ngrad h\n"
    graph = graph_of(program, "h")
    assert len(graph.nodes) > BOXES_ABOVE and Boxing().wanted(graph)
    drawn = boxed(graph)
    calls = [n for n in drawn.nodes.values() if n.kind == "call"]
    assert len(calls) == BOXES_ABOVE // 3 - 1  # the last call made the output: it is open
    assert boxed(graph, Boxing("expand")) is graph
    assert all(n.kind in ("call", "op", "output", "parameter", "constant") for n in drawn.nodes.values())


def dg(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_dg_graph_writes_text_with_boxes_and_opens_them_by_name(tmp_path: Path) -> None:
    (tmp_path / "net.dg").write_text(PROGRAM)
    out = tmp_path / "loss.txt"
    result = dg("graph", "net.dg", "--var", "loss", "--boxes", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert out.read_text().count("layer() called at line 5") == 2
    result = dg("graph", "net.dg", "--var", "loss", "--open", "layer", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "called at line 5  2 ops" not in out.read_text() and "Relu" in out.read_text()
    result = dg("graph", "net.dg", "--var", "loss", "--open", "layer", "--expand", cwd=tmp_path)
    assert result.returncode == 2 and "not allowed with argument" in result.stderr
