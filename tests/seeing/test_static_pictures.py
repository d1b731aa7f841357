"""Static calls in the pictures (seeing/static_pictures.py): a call of static(f) drawn as the trace
it ran as, its guards as diamonds fed by what the condition read, and what a failed guard would do."""

from __future__ import annotations

import io

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.seeing.dot import DotOptions, to_dot
from dglang.interpreter.seeing.graph import Graph
from dglang.interpreter.seeing.static_pictures import listing_lines
from dglang.interpreter.seeing.text_picture import text_picture
from dglang.interpreter.seeing.tools import install

PROGRAM = """\
def f(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 2
    return (y * y).sum()

fast = static(f)
x = tensor([1.0, 2.0], requires_grad=True)
first = fast(x)
again = fast(x)
grad again
neg = tensor([-1.0, -2.0], requires_grad=True)
flipped = fast(neg)
"""


def run(text: str) -> tuple[dict[str, Graph], str]:
    out = io.StringIO()
    session = new_session(out=out)
    session.err = out
    seeing = install(session)
    seeing.keep_backward()
    session.run(text, "<t>")
    graphs = {name: seeing.graph(session.globals.vars[name]) for name in ("first", "again", "flipped")}
    return graphs, out.getvalue()


def test_a_static_call_is_drawn_as_its_trace_with_its_guard_as_a_diamond() -> None:
    graphs, _ = run(PROGRAM)
    graph = graphs["again"]
    (mark,) = graph.static
    assert mark.title == "static(f) trace 1: f(float[2] requires_grad)"
    (guard,) = mark.guards
    x = next(n.number for n in graph.nodes.values() if n.title == "x")
    made = next(n.number for n in graph.nodes.values() if n.title == "y = Mul")
    assert (guard.condition, guard.line, guard.observed, guard.reads, guard.then) == ("x.sum() > 0", 2, True, [x], made)
    assert guard.retrace == "re-trace if x.sum() > 0 is False"
    assert guard.not_run == [(4, "    else:"), (5, "        y = x - 2")]
    dot = to_dot(graph, "again", DotOptions())
    assert 'label="static(f) trace 1: f(float[2] requires_grad)\\nf() called at line 11"' in dot
    assert 's1g1 [id=s1g1, label="guard x.sum() > 0\\nwas True when traced", shape=diamond' in dot
    assert 's1g1r [id=s1g1r, label="re-trace if x.sum() > 0 is False\\l   4 |     else:\\l' in dot
    assert f"n{x} -> s1g1 [" in dot and f's1g1 -> n{made} [id=s1g1_then, label="True"' in dot
    assert 's1g1 -> s1g1r [id=s1g1_fail, label="False", style=dashed' in dot
    assert "a guard of a static call" in dot  # in the key


def test_the_other_path_is_a_new_trace_noted_as_a_guard_failure() -> None:
    graphs, said = run(PROGRAM)
    assert "static(f) re-traced f: the condition `x.sum() > 0` on line 2 was True when traced and is False now" in said
    (mark,) = graphs["flipped"].static
    assert mark.title == "static(f) trace 2: f(float[2] requires_grad)"
    assert mark.guards[0].retrace == "re-trace if x.sum() > 0 is True"
    text = text_picture(graphs["flipped"], "flipped")
    assert "static(f) trace 2: f(float[2] requires_grad), f() called at line 14: its nodes are the trace's ops" in text
    assert "  guard 1: x.sum() > 0 on line 2 was False when traced (read [" in text
    assert "       3 |         y = x * 2" in text  # the arm a failure would trace
    # each call is its own: the first call's graph is trace 1's
    assert graphs["first"].static[0].drawn.number == 1


def test_the_listing_lines_point_at_the_nodes_and_the_guard() -> None:
    graphs, _ = run(PROGRAM)
    graph = graphs["again"]
    rows = listing_lines(graph.static[0], graph)
    texts = [r["text"] for r in rows]
    assert texts[0] == "static(f) trace 1: f(float[2] requires_grad)"
    guard_rows = [r for r in rows if r["guard"]]
    assert len(guard_rows) == 1 and guard_rows[0]["text"].strip().startswith("guard bool(")
    assert guard_rows[0]["guard"] == "s1g1"
    made = {n.title: f"n{n.number}" for n in graph.nodes.values()}
    mul = next(r for r in rows if r["nodes"] == [made["y = Mul"]] and " = Mul(" in r["text"])
    assert "# 3: y = x * 2" in mul["text"]
    backward = [r for r in rows if ".backward(" in r["text"]]
    assert backward and all(r["nodes"] for r in backward)  # each rule line names the node whose rule it is
