"""Pictures that teach: every number on them can be checked by hand against the rule beside it.

- Each edge carries its op's rule and, after `grad`, that rule with the pass's numbers put in.
- A leaf shows what the pass drawn sent it, and its `.grad` apart when that differs; a graph the
  last pass did not go through shows no gradients at all.
- Steps are numbered one way (the kth rule backward ran) in the trace, the text and the DOT.
- Loop iterations and recursive calls are labelled; `untaken` shows the arms of an `if` that did
  not run, and how many times each loop ran.
- Only a program that may draw pays for it: the others' nodes keep sharing one Site per place.
"""

from __future__ import annotations

import io
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from graph_util import can_draw

from dglang.interpreter.frontends.sessions import new_session
from dglang.interpreter.host.session import Session as CoreSession
from dglang.interpreter.seeing.dot import DotOptions, to_dot
from dglang.interpreter.seeing.graph import Graph
from dglang.interpreter.seeing.text_picture import text_picture
from dglang.interpreter.seeing.tools import Seeing, install
from dglang.interpreter.seeing.trace import Tracer
from dglang.interpreter.seeing.values import summary

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "programs"
needs_graphviz = pytest.mark.skipif(not can_draw(), reason="neither Graphviz's dot nor graphviz-pure is installed")


def drawing(text: str, name: str = "<t>", trace: bool = False) -> tuple[CoreSession, Seeing, str]:
    """Run `text` in a session that may draw (as `dg graph` does); what it printed."""
    out = io.StringIO()
    session = new_session(out=out, base_dir=PROGRAMS)
    seeing = install(session)
    seeing.keep_backward()
    if trace:
        install(session, trace=Tracer(session.write, limit=1000))
    session.run(text, name)
    return session, seeing, out.getvalue()


def lesson(stem: str, trace: bool = False) -> tuple[CoreSession, Seeing, str]:
    path = PROGRAMS / f"{stem}.dg"
    return drawing(path.read_text(), f"programs/{path.name}", trace)


def graph_of(session: CoreSession, seeing: Seeing, name: str) -> Graph:
    return seeing.graph(session.globals.vars[name])


def edge_text(graph: Graph) -> dict[str, str]:
    """Each drawn edge as `[target] <- [source]` -> its label on one line."""
    return {f"[{e.target}] <- [{e.source}]": e.label for e in graph.edges}


# ---- every number follows from the rule beside it -----------------------------------------------
def test_lesson_07_edges_carry_their_rules_with_the_numbers_put_in() -> None:
    session, seeing, _ = lesson("07_two_layer")
    edges = edge_text(graph_of(session, seeing, "loss"))
    assert edges["[1] <- [2]"] == "a: g·b·a^(b-1) = 1·2·(-0.5)^(2-1) = -1"  # loss = (y - 1) ** 2
    assert edges["[2] <- [4]"] == "a: g = -1"  # y - 1.0
    assert edges["[4] <- [6]"] == "a: g @ bᵀ = (-1) @ [1, -2, 3]ᵀ = [-1, 2, -3]"  # h @ w2, for h
    assert edges["[4] <- [7]"] == "b: aᵀ @ g = [1.5, 0.5, 0]ᵀ @ (-1) = [-1.5, -0.5, 0]"  # for w2
    assert edges["[6] <- [8]"] == "a: g where a > 0 = [-1, 2, -3] where [1.5, 0.5, -0.75] > 0 = [-1, 2, 0]"
    assert edges["[9] <- [12]"] == "b: aᵀ @ g = [1, 2]ᵀ @ [-1, 2, 0] = [[-1, 2, 0], [-2, 4, 0]]"
    assert edges["[9] <- [11]"] == "a"  # x is data: its edge names the input and carries no rule


def test_every_number_on_an_edge_is_what_the_engine_sent() -> None:
    session, seeing, _ = lesson("07_two_layer")
    graph = graph_of(session, seeing, "loss")
    drawn = graph.backward
    assert drawn is not None
    for edge in graph.edges:
        if not edge.gradient:
            assert edge.sent is None and edge.numbers == ""
            continue
        sent = drawn.step_of[id(graph.nodes[edge.target].tensor)].sent[edge.position]
        assert edge.sent is sent and edge.numbers.endswith("= " + summary(sent.data))


def test_a_rule_with_a_term_of_its_own_gets_its_value_from_the_declaration() -> None:
    session, seeing, _ = drawing("x = tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\ny = x.mean()\ngrad y\n")
    (edge,) = graph_of(session, seeing, "y").edges
    assert edge.label == "a: g/n, broadcast = 1/4, broadcast = [0.25, 0.25, 0.25, 0.25]"


def test_a_broadcast_input_says_what_it_got_after_summing() -> None:
    session, seeing, _ = drawing("b = tensor([1.0, 2.0], requires_grad=True)\ny = (ones(3, 2) + b).sum()\ngrad y\n")
    add = graph_of(session, seeing, "y").nodes[2]
    assert add.edges[1].label == "b: g = [[1, 1], [1, 1], [1, 1]], summed to (2,): [3, 3]"


def test_big_values_show_a_few_elements_their_shape_and_norm() -> None:
    session, seeing, _ = drawing("w = ones(10, requires_grad=True)\ny = (w * 2).sum()\ngrad y\n")
    mul = graph_of(session, seeing, "y").nodes[2]
    assert mul.edges[0].label == "a: g·b = [2, 2, 2, …] (10,), norm 6.3"  # too big to put in: the result only


# ---- what a leaf received, and its .grad ----------------------------------------------------------
def test_a_leaf_shows_what_the_pass_drawn_sent_it_and_its_grad_apart() -> None:
    session, seeing, _ = lesson("02_branches")
    picture = text_picture(graph_of(session, seeing, "out"), "out")
    assert "[1] y = Mul  (3,)  line 9: x * 2 in dynamic_graph_example()" in picture
    assert "step 1: g = [1, 1, 1]" in picture
    assert "├─ a: g·b = [1, 1, 1]·2 = [2, 2, 2]" in picture
    assert "[2] input_positive  (3,)  requires grad  received [2, 2, 2]  .grad [4, 4, 4]" in picture


def test_a_graph_the_last_pass_did_not_go_through_shows_no_gradients() -> None:
    session, seeing, _ = lesson("11_sequences")
    graph = graph_of(session, seeing, "prediction")
    assert graph.backward is None and all(n.received is None and n.grad is None for n in graph.nodes.values())
    assert all(e.numbers == "" for e in graph.edges)
    picture = text_picture(graph, "prediction")
    assert "no gradients: the grad on line 46 did not go through this graph" in picture
    assert "received" not in picture and ".grad" not in picture and "step " not in picture


def test_a_graph_that_was_never_backpropagated_shows_no_gradients() -> None:
    session, seeing, _ = drawing("x = tensor(2.0, requires_grad=True)\ny = x * x\n")
    picture = text_picture(graph_of(session, seeing, "y"), "y")
    assert "g =" not in picture and "received" not in picture and "no gradients" not in picture


# ---- one numbering of the steps ------------------------------------------------------------------
def test_steps_are_numbered_the_same_in_the_trace_the_text_and_the_dot() -> None:
    session, seeing, printed = lesson("07_two_layer", trace=True)
    traced = {int(k): v for k, v in re.findall(r"\[trace\]   step (\d+)  (\w+ \(line \d+\))", printed)}
    graph = graph_of(session, seeing, "loss")
    pictured = {}
    for line in text_picture(graph, "loss").splitlines():
        m = re.search(r"\] (?:\w+ = )?(\w+)  .*line (\d+):.*  step (\d+):", line)
        if m:
            pictured[int(m[3])] = f"{m[1]} (line {m[2]})"
    dotted = {}
    node_label = r'label="\[\d+\] (?:\w+ = )?(\w+)\\n[^"]*?line (\d+):[^"]*?\\nstep (\d+):'
    for m in re.finditer(node_label, to_dot(graph, "loss")):
        dotted[int(m[3])] = f"{m[1]} (line {m[2]})"
    assert traced == pictured == dotted
    assert sorted(traced) == [1, 2, 3, 4, 5, 6]
    assert "[trace]   W1.grad += [[-1, 2, 0], [-2, 4, 0]]" in printed  # a leaf takes no step of its own


def test_a_picture_of_part_of_a_pass_keeps_the_pass_numbers_and_says_where_it_began() -> None:
    session, seeing, _ = lesson("04_while_loop")
    graph = graph_of(session, seeing, "y")
    assert graph.steps() == (2, 5)  # step 1 was the Sum of `grad y.sum()`, above y
    assert "backward: the grad on line 21, steps 2 to 5 (it began at step 1, above this graph)" in text_picture(graph)


# ---- loops, calls, branches ------------------------------------------------------------------------
def test_loop_iterations_are_labelled() -> None:
    session, seeing, _ = lesson("04_while_loop")
    graph = graph_of(session, seeing, "y")
    whens = [n.when() for n in sorted(graph.nodes.values(), key=lambda n: n.number) if n.op is not None]
    assert whens == [[f"iteration {k} of the while on line 11"] for k in (4, 3, 2, 1)]
    dot = to_dot(graph, "y")
    assert 'label="double_until_long() called at line 20\\niteration 2 of the for on line 17";' in dot


def test_a_while_and_a_list_built_in_a_loop_are_labelled() -> None:
    text = (
        "x = tensor(1.0, requires_grad=True)\n"
        "tests = []\n"
        "while len(tests) < 2:\n"
        "    tests.append(x * 3)\n"
        "ys = [x * k for k in range(3)]\n"
        "s = tests[1] + ys[2]\n"
    )
    session, seeing, _ = drawing(text)
    labels = {n.number: n.when() for n in graph_of(session, seeing, "s").nodes.values() if n.op is not None}
    assert labels == {1: [], 2: ["iteration 2 of the while on line 3"], 3: ["item 3 of the list built on line 5"]}


def test_what_a_while_computes_in_its_test_is_labelled_as_the_test() -> None:
    text = (
        "x = tensor(1.0, requires_grad=True)\n"
        "tests = []\n"
        "def keep(t):\n"
        "    tests.append(t)\n"
        "    return t.item()\n"
        "y = x\n"
        "while keep(y * 2) < 8:\n"
        "    y = y * 2\n"
        "s = tests[0] + tests[2]\n"
    )
    session, seeing, _ = drawing(text)
    labels = {n.number: n.when() for n in graph_of(session, seeing, "s").nodes.values() if n.op is not None}
    assert labels[2] == ["test 1 of the while on line 7"] and labels[3] == ["test 3 of the while on line 7"]
    assert sorted(w for n, ws in labels.items() if n > 3 for w in ws) == [
        "iteration 1 of the while on line 7",  # what made the value tested: y * 2 in the body
        "iteration 2 of the while on line 7",
    ]


def test_recursive_calls_are_labelled_and_nested() -> None:
    session, seeing, _ = lesson("05_recursion")
    dot = to_dot(seeing.graph(session.globals.vars["y"]), "y")
    assert dot.count("subgraph cluster_call") == 6  # power(x, 13) -> 12 -> 6 -> 3 -> 2 -> 1
    indents = {m[2]: len(m[1]) for m in re.finditer(r"\n( +)subgraph cluster_call\d+ \{\n +label=\"([^\"]+)\";", dot)}
    assert indents["power() called at line 26"] == 2
    assert indents["power() called at line 17, recursion level 2"] == 4  # inside its caller's box
    assert indents["power() called at line 15, recursion level 3"] == 6


def test_untaken_shows_the_arms_that_did_not_run_and_how_often_loops_ran() -> None:
    text = (PROGRAMS / "02_branches.dg").read_text()
    session, seeing, _ = drawing(text, "programs/02_branches.dg")
    graph = graph_of(session, seeing, "out")
    picture = text_picture(graph, "out", untaken=True)
    assert (
        "the if on line 8 (in dynamic_graph_example() called at line 27) ran its then-branch (node [1]); not run:\n"
        "    10 | else:\n"
        "    11 |     y = x - 2\n"
    ) in picture
    dot = to_dot(graph, "out", DotOptions(untaken=True))
    assert 'u1 [id=u1, label="not run: else-branch\\l  10 | else:\\l  11 |     y = x - 2\\l"' in dot
    assert "{rank=same; n1; u1;}" in dot
    assert "not run" not in to_dot(graph, "out")  # only when asked
    session, seeing, _ = lesson("04_while_loop")
    assert "the while on line 11 ran 4 times" in text_picture(graph_of(session, seeing, "y"), "y", untaken=True)


def test_each_run_of_an_if_in_a_loop_has_its_own_arms_not_run() -> None:
    session, seeing, _ = drawing(
        (ROOT / "tests" / "golden" / "seeing" / "elif_loop.dg").read_text().replace("graph(y)", "")
    )
    runs = graph_of(session, seeing, "y").not_run
    assert [(r.taken, r.during, [a.line for a in r.arms]) for r in runs] == [
        ("then-branch", ["iteration 3 of the for on line 3"], [6, 8]),
        ("elif-branch on line 6", ["iteration 2 of the for on line 3"], [4, 8]),
        ("else-branch on line 8", ["iteration 1 of the for on line 3"], [4, 6]),
    ]


def test_graph_builtin_takes_untaken() -> None:
    _, _, printed = drawing((PROGRAMS / "02_branches.dg").read_text() + "graph(out, untaken=True)\n")
    assert "not run:" in printed and "graph of out:" in printed


# ---- only programs that draw pay -----------------------------------------------------------------
def test_a_program_that_does_not_draw_shares_one_site_per_place() -> None:
    session = new_session(out=io.StringIO())
    session.run("x = tensor(1.0, requires_grad=True)\nys = []\nfor i in range(3):\n    ys.append(x * 2)\n", "<t>")
    sites = {id(y.grad_fn.where) for y in session.globals.vars["ys"]}
    assert len(sites) == 1 and session.globals.vars["ys"][0].grad_fn.where.iterations == ()
    session, _, _ = drawing("x = tensor(1.0, requires_grad=True)\nys = []\nfor i in range(3):\n    ys.append(x * 2)\n")
    stamped = [y.grad_fn.where for y in session.globals.vars["ys"]]
    assert [s.iterations[0][1] for s in stamped] == [1, 2, 3] and [s.order for s in stamped] == [1, 2, 3]


def test_naming_graph_in_a_program_is_what_makes_it_draw() -> None:
    out = io.StringIO()
    session = new_session(out=out)
    session.run("x = tensor(1.0, requires_grad=True)\nfor i in range(2):\n    y = x * 2\ngrad y\ngraph(y)\n", "<t>")
    assert "iteration 2 of the for on line 2" in out.getvalue() and "step 1: g = 1" in out.getvalue()


def test_loop_counters_are_left_empty_however_a_loop_ends() -> None:
    session = new_session(out=io.StringIO())
    program = (
        "def f(n):\n"
        "    for i in range(n):\n"
        "        while True:\n"
        "            if i == 1:\n"
        "                return [k for k in range(3)]\n"
        "            break\n"
        "f(3)\n"
        "for i in range(3):\n"
        "    continue\n"
    )
    session.run(program, "<t>")
    assert session.context.loops == []
    with pytest.raises(Exception, match="division by zero"):
        session.run("for i in range(3):\n    while True:\n        x = 1 / 0\n", "<t>")
    assert session.context.loops == []


# ---- the command line ------------------------------------------------------------------------------
def dg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dglang.interpreter", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_dg_graph_options_reach_the_dot() -> None:
    result = dg("graph", "programs/02_branches.dg", "--var", "out", "--rankdir", "LR", "--theme", "print", "--untaken")
    assert result.returncode == 0, result.stderr
    assert "rankdir=LR;" in result.stdout and "peripheries=2" in result.stdout and "not run:" in result.stdout
    assert "fillcolor" not in result.stdout.split("subgraph cluster_key")[0]  # print: black on white


def test_dg_graph_refuses_an_unknown_rankdir_and_output() -> None:
    result = dg("graph", "programs/02_branches.dg", "--var", "out", "--rankdir", "UP")
    assert result.returncode == 2 and "dg: UsageError: argument --rankdir: invalid choice: 'UP'" in result.stderr
    result = dg("graph", "programs/02_branches.dg", "--var", "out", "-o", "out.jpg")
    assert result.returncode == 2 and "the name must end in .dot, .svg, .png, .html or .txt" in result.stderr
    assert "Before backward" not in result.stderr  # refused before the program ran


def png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


@needs_graphviz
def test_dpi_scales_a_png(tmp_path: Path) -> None:
    for dpi in ("96", "192"):
        assert dg("graph", "programs/02_branches.dg", "--var", "out", "--dpi", dpi, "-o", str(tmp_path / f"{dpi}.png"))
    small, large = png_size(tmp_path / "96.png"), png_size(tmp_path / "192.png")
    assert abs(large[0] - 2 * small[0]) <= 2 and abs(large[1] - 2 * small[1]) <= 2
    assert dg("graph", "programs/02_branches.dg", "--var", "out", "-o", str(tmp_path / "default.png")).returncode == 0
    assert png_size(tmp_path / "default.png") == large  # 192 dpi unless told otherwise: sharp on slides


@needs_graphviz
def test_seeing_returns_svg_text_for_a_notebook() -> None:
    session, seeing, _ = lesson("07_two_layer")
    svg = seeing.svg(session.globals.vars["loss"], "loss")
    assert svg.startswith("<svg") and '<g id="n1" class="node">' in svg and "a: g·b·a^(b&#45;1)" in svg


def drawn_structure(svg: str) -> dict[str, list[str]]:
    """What an SVG drawing shows, whatever its layout: each node's, edge's and box's id with the text
    lines in it (Graphviz writes each as a <g id=... class="node|edge|cluster"> with <text>s inside)."""
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    shown: dict[str, list[str]] = {}
    for group in ET.fromstring(svg).iter(f"{ns}g"):
        if group.get("class") in ("node", "edge", "cluster"):
            shown[f"{group.get('class')} {group.get('id')}"] = [t.text or "" for t in group.iter(f"{ns}text")]
    return shown


@pytest.mark.parametrize(("stem", "var", "untaken"), [("02_branches", "out", True), ("07_two_layer", "loss", False)])
def test_the_system_dot_and_graphviz_pure_draw_the_same_picture(stem: str, var: str, untaken: bool) -> None:
    from dglang.interpreter.seeing.render import layouts, svg

    programs = {layout.name: layout for layout in layouts()}
    if len(programs) < 2:
        pytest.skip(f"needs both Graphviz's dot and graphviz-pure to compare; here: {sorted(programs) or 'neither'}")
    session, seeing, _ = lesson(stem)
    dot_text = seeing.dot(session.globals.vars[var], var, DotOptions(untaken=untaken))
    system, pure = (drawn_structure(svg(dot_text, programs[name])) for name in ("Graphviz's dot", "graphviz-pure"))
    assert system == pure
    assert sum(kind.startswith("node") for kind in system) >= 3 and any(k.startswith("edge") for k in system)
