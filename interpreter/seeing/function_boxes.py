"""Functions drawn as boxes: a call of a DG function, with every node it made, as one node.

A training step of a GPT records hundreds of ops, most of them inside a few functions (`linear`,
`layer_norm`, `self_attention`); drawn op by op it is a wall. So in a big graph each call is one
box, named for its function and its call site, standing for the nodes the call made (those of
the calls it made, too); edges into and out of those nodes go to the box. A box can be opened:
the calls the value drawn was made in are always open (the picture is drawn from inside them),
and so is each call of a function named in `opened` (`dg graph --open NAME`), with the calls
around it; the calls inside an open call are boxes in turn. The stepper opens a box by clicking.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.errors import CallFrame

from .graph import Edge, Graph, GraphNode
from .provenance import call_phrase
from .values import summary

BOXES_ABOVE = 80  # nodes: a bigger graph draws its calls as boxes unless told otherwise
HOW = ("auto", "boxes", "expand")  # boxes when big; always; never


@dataclass(frozen=True)
class Boxing:
    how: str = "auto"  # one of HOW
    opened: tuple[str, ...] = ()  # functions whose calls are drawn open (their inner calls as boxes)

    def wanted(self, graph: Graph) -> bool:
        if self.how == "expand":
            return False
        return self.how == "boxes" or bool(self.opened) or len(graph.nodes) > BOXES_ABOVE


AUTO = Boxing()


def chain(call: CallFrame | None) -> list[CallFrame]:
    """The calls a node was made in, outermost first."""
    frames = []
    while call is not None:
        frames.append(call)
        call = call.caller
    return frames[::-1]


def open_calls(graph: Graph, opened: tuple[str, ...]) -> set[int]:
    """The ids of the calls drawn open: those the output was made in, each call of an opened
    function, and the calls around it."""
    root = graph.nodes[1]
    result = {id(f) for f in chain(root.call)}
    for node in graph.nodes.values():
        frames = chain(node.call)
        named = [i for i, f in enumerate(frames) if f.function in opened]
        if named:
            result.update(id(f) for f in frames[: named[-1] + 1])
    return result


def boxed(graph: Graph, boxing: Boxing = AUTO) -> Graph:
    """`graph` itself when no call is boxed; else a copy with each closed call as one node."""
    if not boxing.wanted(graph):
        return graph
    is_open = open_calls(graph, boxing.opened)
    groups: dict[int, tuple[CallFrame, list[int]]] = {}
    for node in graph.nodes.values():
        frame = next((f for f in chain(node.call) if id(f) not in is_open), None)
        if frame is not None and node.number != 1:
            groups.setdefault(id(frame), (frame, []))[1].append(node.number)
    if not groups:
        return graph
    users: dict[int, set[int]] = {}
    for node in graph.nodes.values():
        for edge in node.edges:
            users.setdefault(edge.source, set()).add(node.number)
    number = max(graph.nodes)
    boxes: list[GraphNode] = []
    box_of: dict[int, int] = {}  # a hidden node's number: its box's
    for frame, members in sorted(groups.values(), key=lambda g: min(g[1])):
        hidden = set(members)
        # A leaf only this call uses (the 2 in `x * 2`, a layer's weights) goes into the box with it.
        hidden |= {n for n, node in graph.nodes.items() if node.op is None and users.get(n, {0}) <= hidden}
        number += 1
        box = GraphNode(number, Tensor(0.0), "call", call=frame.caller, note=f"{frame.function}()", frame=frame)
        box.stands_for = [graph.nodes[n] for n in sorted(hidden)]
        box.outputs = [graph.nodes[n] for n in sorted(hidden) if users.get(n, set()) - hidden]
        boxes.append(box)
        box_of.update(dict.fromkeys(hidden, number))
    nodes = {n: rerouted(node, box_of) for n, node in graph.nodes.items() if n not in box_of}
    for box in boxes:
        inside = {n.number for n in box.stands_for}
        drawn: dict[int, Edge] = {}
        for member in box.stands_for:
            for edge in member.edges:
                source = edge.source
                if source not in inside and box_of.get(source, source) not in drawn:
                    via = box_of.get(source)
                    drawn[via or source] = Edge(source, box.number, len(drawn), "", edge.gradient, via=via)
        box.edges = list(drawn.values())
        box.inputs = [e.drawn_from for e in box.edges]
        nodes[box.number] = box
    result = Graph(graph.root, nodes, graph.truncated, graph.backward, graph.not_backpropagated)
    result.not_run = [r for r in graph.not_run if r.beside in nodes]
    result.loops, result.notes, result.static = graph.loops, list(graph.notes), graph.static
    result.notes.append(
        f"{len(boxes)} function call{'s' * (len(boxes) != 1)} drawn as {'boxes' if len(boxes) != 1 else 'a box'}, "
        f"{len(box_of):,} nodes inside {'them' if len(boxes) != 1 else 'it'}"
    )
    return result


def rerouted(node: GraphNode, box_of: dict[int, int]) -> GraphNode:
    """`node`, or a copy whose edges from nodes inside boxes are drawn from the boxes."""
    if not any(e.source in box_of for e in node.edges):
        return node
    edges = [replace(e, via=box_of[e.source]) if e.source in box_of else e for e in node.edges]
    return replace(node, edges=edges, inputs=[e.drawn_from for e in edges])


def inside(nodes: list[GraphNode]) -> str:
    """`177 nodes inside: 123 ops, 40 leaves, 14 constants`: every node a box stands for, counted
    as the graph's notes count them ("177 nodes inside it"), then by kind."""
    ops = sum(1 for n in nodes if n.op is not None)
    leaves = sum(1 for n in nodes if n.op is None and n.kind != "constant")
    constants = len(nodes) - ops - leaves
    kinds = [plural(ops, "op"), plural(leaves, "leaf", "leaves"), plural(constants, "constant")]
    return f"{plural(len(nodes), 'node')} inside: {', '.join(k for k in kinds if not k.startswith('0 '))}"


def plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def box_lines(box: GraphNode) -> tuple[list[str], int]:
    """A box's label: the call, what it holds, the values it gives; and (after `grad`) the steps
    run inside it and the gradient arriving at its output. Also how many lines tell the pass."""
    frame = box.frame
    assert frame is not None
    lines = [f"[{box.number}] {call_phrase(frame)}", inside(box.stands_for)]
    for out in box.outputs:
        lines.append(f"gives [{out.number}] {out.tensor.shape}: {summary(out.tensor.data)}")
    told = len(lines)
    steps = sorted(n.step for n in box.stands_for if n.step is not None)
    if steps:
        lines.append(f"steps {steps[0]} to {steps[-1]}" if len(steps) > 1 else f"step {steps[0]}")
    return lines, len(lines) - told
