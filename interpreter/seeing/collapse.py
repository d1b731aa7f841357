"""Keeping a big graph drawable: the middle iterations of its longest loop drawn as one node.

A browser stays responsive with a few thousand nodes of SVG, and Graphviz lays them out in
seconds; a training loop records far more. So beyond `most` nodes, the loop run that made the
most nodes keeps its first and last iterations, and the ones between become one node saying what
it stands for. Edges into and out of the hidden nodes go to that node instead; what it hides stays
listed on it, so a replay can still say which step ran inside it. If that is not enough (a graph
without loops), the nodes furthest from the output are left out, and the graph's notes say so.
"""

from __future__ import annotations

from dataclasses import replace

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.source import LoopRun

from .graph import Edge, Graph, GraphNode
from .provenance import iteration_number

MOST = 2000  # nodes drawn at most: Graphviz lays out that many in seconds, a browser steps them at once
KEEP = 2  # iterations kept at least at each end of a collapsed loop (more, while they fit)


def collapse_loops(graph: Graph, most: int = MOST) -> Graph:
    """`graph` itself when small enough; else a copy with loop iterations collapsed (see above)."""
    if len(graph.nodes) <= most:
        return graph
    hidden, run, keep = middle_iterations(graph, most)
    nodes = {n: node for n, node in graph.nodes.items() if n not in hidden} if hidden else dict(graph.nodes)
    notes = list(graph.notes)
    if hidden and run is not None:
        number = max(graph.nodes) + 1
        first, last = keep + 1, run.count - keep
        what = f"iterations {first} to {last} of the {run.loop.kind} on line {run.loop.line}"
        stand_in = GraphNode(number, Tensor(0.0), "collapsed", note=f"{what}: {len(hidden):,} nodes")
        # (a function's box among them stands for its own nodes: those are what a replay looks up)
        stand_in.stands_for = [m for n in sorted(hidden) for m in graph.nodes[n].stands_for or [graph.nodes[n]]]
        nodes = reroute(nodes, [graph.nodes[n] for n in sorted(hidden)], stand_in)
        notes.append(f"{what} are drawn as one node ({len(hidden):,} nodes), to keep the picture responsive")
    if len(nodes) > most:
        kept = sorted(nodes)[:most]
        left_out = len(nodes) - most
        nodes = {n: with_edges(nodes[n], [e for e in nodes[n].edges if e.drawn_from in kept]) for n in kept}
        notes.append(f"{left_out:,} nodes furthest from the output are not drawn")
    collapsed = Graph(graph.root, nodes, graph.truncated, graph.backward, graph.not_backpropagated)
    collapsed.not_run = [r for r in graph.not_run if r.beside in nodes]
    collapsed.loops, collapsed.notes, collapsed.static = graph.loops, notes, graph.static
    return collapsed


def middle_iterations(graph: Graph, most: int) -> tuple[set[int], LoopRun | None, int]:
    """The nodes made in the middle iterations of the loop run that made the most nodes, and how
    many iterations are kept at each end (as many as fit in `most` nodes, at least KEEP)."""
    made: dict[int, list[tuple[GraphNode, int]]] = {}
    runs: dict[int, LoopRun] = {}
    for node in graph.nodes.values():
        if node.site is None:
            continue
        for iteration in node.site.iterations:
            run = iteration[0]
            runs[id(run)] = run
            made.setdefault(id(run), []).append((node, iteration_number(node.site, iteration)))
    candidates = [key for key in made if runs[key].count > 2 * KEEP + 1]
    if not candidates:
        return set(), None, 0
    key = max(candidates, key=lambda k: len(made[k]))
    run = runs[key]
    users: dict[int, set[int]] = {}
    for node in graph.nodes.values():
        for edge in node.edges:
            users.setdefault(edge.source, set()).add(node.number)

    def hidden_keeping(keep: int) -> set[int]:
        hidden = {node.number for node, i in made[key] if keep < i <= run.count - keep and node.number != 1}
        # A leaf that only hidden nodes use (the constant in `y * w + 0.001`) goes with them.
        return hidden | {
            n
            for n, node in graph.nodes.items()
            if node.op is None and not node.stands_in and n in users and users[n] <= hidden and n != 1
        }

    keep = max(KEEP, (run.count * most) // (2 * len(graph.nodes)))  # a first guess, then fewer until it fits
    hidden = hidden_keeping(keep)
    while keep > KEEP and len(graph.nodes) - len(hidden) + 1 > most:
        keep = max(KEEP, keep * 3 // 4)
        hidden = hidden_keeping(keep)
    if 2 * keep >= run.count:
        return set(), None, 0
    return hidden, run, keep


def reroute(nodes: dict[int, GraphNode], hidden: list[GraphNode], stand_in: GraphNode) -> dict[int, GraphNode]:
    """Edges from the `hidden` nodes (as drawn) are drawn from the stand-in; edges into them go to
    it (once per source)."""
    numbers = {n.number for n in hidden}
    feeding: set[int] = set()
    for hidden_node in hidden:
        for edge in hidden_node.edges:
            if edge.drawn_from not in numbers and edge.drawn_from not in feeding:
                feeding.add(edge.drawn_from)
                stand_in.edges.append(
                    Edge(edge.source, stand_in.number, len(stand_in.edges), "", edge.gradient, via=edge.via)
                )
    stand_in.inputs = [e.drawn_from for e in stand_in.edges]
    rerouted = {}
    for n, node in nodes.items():
        if any(e.drawn_from in numbers for e in node.edges):
            moved = [replace(e, via=stand_in.number) if e.drawn_from in numbers else e for e in node.edges]
            node = with_edges(node, moved)
        rerouted[n] = node
    return {**rerouted, stand_in.number: stand_in}


def with_edges(node: GraphNode, edges: list[Edge]) -> GraphNode:
    """A copy of `node` with other edges (the graph collected is left as it was)."""
    return replace(node, edges=edges, inputs=[e.drawn_from for e in edges])
