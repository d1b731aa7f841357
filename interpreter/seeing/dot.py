"""The graph as Graphviz DOT, written here (no dependency); render.py turns it into SVG or PNG.

Each node says what it is, where and when it was made and (after `grad`) its step and gradient;
each edge says which input it feeds, the op's rule for it and the numbers the pass drawn put
through it; nodes made in one function call sit in one dashed box, a recursive call's box inside
its caller's; a key explains it all. With `untaken`, each `if` arm that did not run is a grey box
beside the nodes of the arm that did.
"""

from __future__ import annotations

from dataclasses import dataclass

from dglang.interpreter.diagnostics.errors import CallFrame

from .function_boxes import AUTO, Boxing, box_lines
from .graph import Edge, Graph, GraphNode, arm_phrase
from .provenance import call_phrase, iteration_phrase, ran_phrase
from .static_pictures import GuardMark, static_of
from .text_picture import backward_note, if_phrase
from .untaken import NotRun
from .values import summary

RANKDIRS = ("BT", "TB", "LR", "RL")  # where the output is drawn: BT puts it on top, LR on the right


@dataclass(frozen=True)
class Theme:
    node: dict[str, str]  # DOT attributes by kind of node
    edge: str  # an edge that carries a gradient
    no_gradient: str  # an edge into an input that takes none
    not_run: str  # the box of an arm that did not run
    call: str  # the box around a call
    guard: str  # a guard of a static call (a diamond)
    retrace: str  # what a guard failure does (a dashed note)
    font_size: int  # of a node's label; the rest are scaled from it
    colours: dict[str, str]  # for the key: the fill of each kind
    looks: dict[str, str]  # for the key: what each kind is called there


SCREEN = Theme(
    node={
        "output": 'shape=box, style="filled,bold", penwidth=2, fillcolor="#c7e9c0"',
        "op": 'shape=box, style="rounded,filled", fillcolor="#deebf7"',
        "parameter": 'shape=ellipse, style=filled, fillcolor="#fdd0a2"',
        "data": 'shape=ellipse, style=filled, fillcolor="#f0f0f0"',
        "constant": 'shape=plaintext, fontcolor="#555555"',
        "collapsed": 'shape=box3d, style="filled,dashed", fillcolor="#fff7bc"',
        "call": 'shape=box, style="filled", peripheries=2, fillcolor="#e5dcf2"',
    },
    edge='color="#31668f", fontcolor="#31668f"',
    no_gradient='style=dashed, color="#999999", fontcolor="#777777"',
    not_run='shape=note, style="filled,dashed", fillcolor="#f2f2f2", color="#999999", fontcolor="#777777"',
    call='style="rounded,dashed"; color="#888888";',
    guard='shape=diamond, style=filled, fillcolor="#fde0ef", color="#c51b7d"',
    retrace='shape=note, style=dashed, color="#c51b7d", fontcolor="#8e0152"',
    font_size=10,
    colours={
        "output": "#c7e9c0",
        "op": "#deebf7",
        "parameter": "#fdd0a2",
        "data": "#f0f0f0",
        "collapsed": "#fff7bc",
        "call": "#e5dcf2",
    },
    looks={k: k for k in ("output", "op", "parameter", "data", "collapsed", "call")},
)

# For slides and paper: black on white, kinds told apart by outline rather than colour, larger type.
PRINT = Theme(
    node={
        "output": "shape=box, peripheries=2, penwidth=2",
        "op": 'shape=box, style="rounded"',
        "parameter": "shape=ellipse, penwidth=2.5",
        "data": "shape=ellipse, style=dashed",
        "constant": "shape=plaintext",
        "collapsed": "shape=box3d, style=dashed",
        "call": "shape=box, peripheries=2",
    },
    edge='color="#000000", fontcolor="#000000"',
    no_gradient='style=dashed, color="#666666", fontcolor="#444444"',
    not_run='shape=note, style=dashed, color="#666666", fontcolor="#555555"',
    call='style="rounded,dashed"; color="#444444";',
    guard="shape=diamond",
    retrace="shape=note, style=dashed",
    font_size=12,
    colours={},
    looks={
        "output": "double box: output",
        "op": "rounded box: op",
        "parameter": "bold oval: parameter",
        "data": "dashed oval: data",
        "collapsed": "dashed 3-d box",
        "call": "double box: a call",
    },
)
THEMES = {"screen": SCREEN, "print": PRINT}


@dataclass(frozen=True)
class DotOptions:
    rankdir: str = "BT"
    theme: str = "screen"
    untaken: bool = False  # draw the arms of each `if` that did not run
    key: bool = True
    boxing: Boxing = AUTO  # which function calls are drawn as one box each (function_boxes.py)


DEFAULT = DotOptions()


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def label_lines(node: GraphNode) -> tuple[list[str], int]:
    """The lines of a node's label, and how many of them (at the end) tell the pass drawn."""
    t = node.tensor
    lines = [f"[{node.number}] {node.title}"]
    if node.kind == "collapsed":
        return lines, 0
    if node.kind == "call":
        return box_lines(node)
    if node.kind != "constant":
        lines.append(f"{t.shape}" + ("  requires grad" if node.kind == "parameter" else ""))
    where = node.where()
    if where:
        lines.append(where)
    lines += node.when()
    if node.kind != "constant":
        lines.append(f"value {summary(t.data)}")
    told = len(lines)
    if node.step is not None and node.received is not None:
        lines.append(f"step {node.step}: g = {summary(node.received.data)}")
    elif node.received is not None:
        lines.append(("received " if node.kind != "output" else "g = ") + summary(node.received.data))
    if node.grad is not None:
        lines.append(f".grad {summary(node.grad.data)}")
    return lines, len(lines) - told


def label(node: GraphNode) -> str:
    return "\n".join(label_lines(node)[0])


def edge_label(edge: Edge) -> str:
    """`a: g·b`, then `= 1·2` and `= 2` on lines of their own, so a label stays narrow."""
    if not edge.numbers:
        return edge.rule
    return edge.rule + "\n" + edge.numbers.replace(" = ", "\n= ").replace(", summed to", ",\nsummed to")


def to_dot(graph: Graph, name: str, options: DotOptions = DEFAULT) -> str:
    """DOT text: nodes styled by kind, a box per function call, edges labelled with rules and numbers."""
    theme = THEMES[options.theme]
    out = [
        "digraph dg {",
        f"  rankdir={options.rankdir};",
        f'  fontname="Helvetica"; fontsize={theme.font_size + 4};',
        f'  node [fontname="Helvetica", fontsize={theme.font_size}];',
        f'  edge [fontname="Helvetica", fontsize={theme.font_size - 1}];',
        f"  label={quote(caption(graph, name, options))};",
        "  labelloc=t;",
    ]
    members: dict[int, list[GraphNode]] = {}
    for node in graph.nodes.values():
        members.setdefault(id(node.call), []).append(node)
    not_run = [(i, run) for i, run in enumerate(graph.not_run, 1)] if options.untaken else []
    calls = {id(n.call): n.call for n in graph.nodes.values() if n.call is not None}
    inner: dict[int, list[CallFrame]] = {}
    for call in calls.values():
        inner.setdefault(id(drawn_caller(call, calls)), []).append(call)

    clusters: list[CallFrame] = []
    guards_in = place_guards(graph, calls)

    def block(call: CallFrame | None, indent: str) -> None:
        for node in members.get(id(call), []):
            out.append(
                f"{indent}n{node.number} [id=n{node.number}, label={quote(label(node))}, {theme.node[node.kind]}];"
            )
        for g in guards_in.get(id(call), []):
            out.append(f"{indent}{g.key} [id={g.key}, label={quote(g.text)}, {theme.guard}];")
            lines = [g.retrace] + [f"{n:>4} | {code}" for n, code in g.not_run]
            text = "".join(escaped(line) + "\\l" for line in lines)
            out.append(f'{indent}{g.key}r [id={g.key}r, label="{text}", {theme.retrace}];')
        for i, run in not_run:
            if run.call is call:
                lines = [f"not run: {arm_list(run)}"]
                lines += [f"{n:>4} | {code}" for arm in run.arms for n, code in run.lines(arm)]
                text = "".join(escaped(line) + "\\l" for line in lines)  # \l: each line left-justified
                out.append(f'{indent}u{i} [id=u{i}, label="{text}", {theme.not_run}];')
                out.append(f"{indent}{{rank=same; n{run.beside}; u{i};}}")
        for sub in inner.get(id(call), []):
            clusters.append(sub)
            out.append(f"{indent}subgraph cluster_call{len(clusters)} {{")
            out.append(f"{indent}  label={quote(cluster_label(sub, calls, graph))};")
            out.append(f"{indent}  {theme.call} labelloc={'b' if options.rankdir == 'BT' else 't'};")
            block(sub, indent + "  ")
            out.append(f"{indent}}}")

    block(None, "  ")
    shared = hubs(graph)
    for edge in graph.edges:
        style = theme.edge if edge.gradient else theme.no_gradient
        edge_id = f"e{edge.target}_{edge.position}"
        source = f"n{edge.drawn_from}"
        if edge.drawn_from in shared:  # a copy of the leaf beside this use of it
            leaf = graph.nodes[edge.drawn_from]
            source = copy_id(edge)
            out.append(
                f"  {source} [id={source}, label={quote(f'[{leaf.number}] {leaf.title}')}, {theme.node[leaf.kind]}];"
            )
        out.append(f"  {source} -> n{edge.target} [id={edge_id}, label={quote(edge_label(edge))}, {style}];")
    for guards in guards_in.values():
        out += guard_edges(graph, guards)
    for i, run in not_run:
        out.append(
            f'  n{run.beside} -> u{i} [style=dotted, arrowhead=none, color="#999999", '
            f'fontcolor="#777777", label={quote(f"the if on line {run.branch.if_line}")}];'
        )
    if options.key:
        out += key(graph, theme, options)
    out.append("}")
    return "\n".join(out) + "\n"


# Graphviz ranks every node and routes each edge through every rank between its ends, so a leaf
# used all along a long chain (a weight in every iteration of a loop) costs it minutes. In a big
# graph such a leaf is drawn once on its own, and again, small, beside each op that uses it.
HUB_GRAPH = 150  # nodes in a graph before its much-used leaves are drawn beside each use
HUB_USES = 6


def hubs(graph: Graph) -> set[int]:
    """The leaves drawn again beside each use (see above)."""
    if len(graph.nodes) <= HUB_GRAPH:
        return set()
    uses: dict[int, int] = {}
    for edge in graph.edges:
        uses[edge.drawn_from] = uses.get(edge.drawn_from, 0) + 1
    leaves = ("parameter", "data", "constant")
    return {n for n, count in uses.items() if count > HUB_USES and graph.nodes[n].kind in leaves}


def copy_id(edge: Edge) -> str:
    """The id of the copy of a leaf drawn beside the op `edge` feeds: `n5_e12_1`."""
    return f"n{edge.drawn_from}_e{edge.target}_{edge.position}"


def place_guards(graph: Graph, drawn: dict[int, CallFrame]) -> dict[int, list[GuardMark]]:
    """The guards to draw, by id of the call whose box they sit in (None: the top): those whose
    nodes are drawn (a static call inside a function's box is drawn with the box)."""
    placed: dict[int, list[GuardMark]] = {}
    for mark in graph.static:
        frame = mark.drawn.frame
        where = frame if id(frame) in drawn else drawn_caller(frame, drawn)
        for g in mark.guards:
            if g.then in graph.nodes or any(r in graph.nodes for r in g.reads):
                placed.setdefault(id(where), []).append(g)
    return placed


def guard_edges(graph: Graph, guards: list[GuardMark]) -> list[str]:
    """Dotted edges from what a condition read into its diamond, from the diamond to the node made
    after it (labelled with the value traced), and dashed to what a failure would do."""
    style = 'style=dotted, color="#c51b7d", fontcolor="#8e0152"'
    out = []
    for g in guards:
        out += [f"  n{r} -> {g.key} [id={g.key}_r{r}, {style}];" for r in g.reads if r in graph.nodes]
        value = str(g.observed) if isinstance(g.observed, bool) else "as traced"
        if g.then in graph.nodes:
            out.append(f"  {g.key} -> n{g.then} [id={g.key}_then, label={quote(value)}, {style}];")
        failed = f"not {value}" if value == "as traced" else str(not g.observed)
        out.append(f"  {g.key} -> {g.key}r [id={g.key}_fail, label={quote(failed)}, style=dashed, "
                   'color="#c51b7d", fontcolor="#8e0152"];')  # fmt: skip
    return out


def escaped(text: str) -> str:
    """Text inside a quoted DOT string."""
    return quote(text)[1:-1]


def arm_list(run: NotRun) -> str:
    return ", ".join("then-branch" if a.kind == "then" else f"{a.kind}-branch" for a in run.arms)


def drawn_caller(call: CallFrame, drawn: dict[int, CallFrame]) -> CallFrame | None:
    """The nearest call around `call` that has a box of its own in this picture (None: the top)."""
    frame = call.caller
    while frame is not None and id(frame) not in drawn:
        frame = frame.caller
    return frame


def cluster_label(call: CallFrame, drawn: dict[int, CallFrame], graph: Graph) -> str:
    """`f() called at line 9`, its recursion level, and the iterations running where it was called."""
    mark = static_of(graph, call)
    lines = ([mark.title] if mark is not None else []) + [call_phrase(call)]
    outer = drawn_caller(call, drawn)
    between = set()
    frame = call.caller
    while frame is not outer:
        between.add(id(frame))
        frame = frame.caller  # type: ignore[union-attr]
    if outer is None:
        between.add(id(None))
    node = next(n for n in graph.nodes.values() if n.call is call)
    if node.site is not None:
        lines += [iteration_phrase(node.site, it) for it in node.site.iterations if id(it[0].frame) in between]
    return "\n".join(lines)


def caption(graph: Graph, name: str, options: DotOptions) -> str:
    lines = [f"graph of {name}"]
    lines += backward_note(graph)
    if not options.untaken:
        lines += [f"the if on line {b.if_line} ran its {arm_phrase(b)}" for b in graph.branches]
    else:
        lines += [f"{if_phrase(r)} ran its {r.taken}" for r in graph.not_run]
        lines += [ran_phrase(run) for run in graph.loops]
    if graph.truncated:
        lines.append(f"({graph.truncated} more nodes not shown)")
    return "\n".join(lines)


def key(graph: Graph, theme: Theme, options: DotOptions) -> list[str]:
    """A table explaining the kinds of node, the edges and the numbers, beside the graph. Its
    examples are this graph's own: the rule of one of its edges, and the numbers the pass put in."""
    kinds = {n.kind for n in graph.nodes.values()}
    rows = [(k, text) for k, text in KINDS if k in kinds or k == "output"]
    cells = [row(theme.looks[k], text, theme.colours.get(k)) for k, text in rows]
    cells.append(row("[n]", "the node's number, from the output"))
    ruled = [e for e in graph.edges if e.gradient and ":" in e.rule]
    # The example: an edge whose rule has numbers put in (`= 1·3 = 3`), if there is one.
    example = next((e for e in ruled if e.numbers.count("= ") > 1), ruled[0] if ruled else None)
    if example is not None:
        name = example.rule.split(":")[0]
        cells.append(row(example.rule, f"an edge into input {name} of the op it points to, and the op's rule for it"))
    if graph.backward is not None:
        cells.append(row("g", "the gradient arriving at an op"))
        cells.append(row("step k", "the kth rule the backward pass ran (dg --trace numbers them the same)"))
        if example is not None and example.numbers.startswith("= "):
            cells.append(row(example.numbers.split(", summed")[0], "the rule with this pass's numbers put in"))
        cells.append(row("received", "what this pass sent a leaf"))
        if any(n.grad is not None for n in graph.nodes.values()):
            cells.append(row(".grad", "a leaf's sum over every grad so far"))
    if any(not e.gradient for e in graph.edges):
        cells.append(row("dashed edge", "an input that takes no gradient"))
    if options.untaken and graph.not_run:
        cells.append(row("grey note", "code of an if that did not run: a static graph would hold it too"))
    if any(m.guards for m in graph.static):
        cells.append(row("diamond", "a guard of a static call: what its trace assumed, and its value when traced"))
        cells.append(row("dashed note", "what a failed guard does: static(f) traces f again, for the new path"))
    table = '<table border="0" cellborder="1" cellspacing="0" cellpadding="3">' + "".join(cells) + "</table>"
    return [
        "  subgraph cluster_key {",
        '    label="key"; style="rounded"; color="#bbbbbb";',
        f"    key [id=key, shape=plaintext, fontsize={theme.font_size - 1}, label=<{table}>];",
        "  }",
    ]


KINDS = [
    ("output", "the value drawn"),
    ("op", "an op the program ran"),
    ("parameter", "a leaf that requires grad"),
    ("data", "a leaf that needs no gradient"),
    ("collapsed", "loop iterations drawn as one node"),
    ("call", "a function call drawn as one box: dg graph --open NAME draws its inside"),
]


def row(term: str, meaning: str, fill: str | None = None) -> str:
    """One row of the key; a long meaning is broken into lines of about 45 characters."""
    lines, line = [], ""
    for word in meaning.split(" "):
        if line and len(line) + len(word) > 45:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    text = "<br/>".join(html(x) for x in [*lines, line])
    colour = f' bgcolor="{fill}"' if fill else ""
    return f'<tr><td{colour}>{html(term)}</td><td align="left" balign="left">{text}</td></tr>'
