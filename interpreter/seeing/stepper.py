"""The stepper: one self-contained HTML page that replays a graph, forward and backward.

Forward, it replays the recording: each step is one op, in the order the program ran it, with
the line that ran and the value it made. Backward, it replays the pass drawn: each step is one
rule (numbered as the trace numbers them), with the gradient arriving, the rule and the numbers
sent to each input, and what each leaf has received so far; a last step adds it all into `.grad`.

The page is written once and needs nothing afterwards: Graphviz lays the graph out now (its SVG
is inlined), the program's source, the data and the script (stepper.js, stepper.css) are inlined
too, and nothing is fetched from the network. `stepper_html` returns the page as a string, so a
notebook can show it as well as the command line can write it.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from dglang.autograd import Tensor
from dglang.interpreter.diagnostics.source import Source

from .dot import DEFAULT, DotOptions, copy_id, edge_label, hubs, label_lines, to_dot
from .graph import Edge, Graph, GraphNode
from .provenance import call_phrase, outer_iterations
from .render import svg
from .rules import arrived
from .text_picture import backward_note
from .values import shorten, source_text, summary

HERE = Path(__file__).resolve().parent
STEPPER_LIMIT = 50_000  # nodes collected for a page; collapse.py brings them down to what draws fast


def stepper_html(graph: Graph, name: str, options: DotOptions = DEFAULT) -> str:
    """The whole page (Graphviz lays out the graph; a GraphvizError says if it is missing)."""
    drawing = svg(to_dot(graph, name, DotOptions(options.rankdir, options.theme, options.untaken, key=False)))
    data = stepper_data(graph, name)
    page = (HERE / "stepper.html").read_text(encoding="utf-8")
    parts = {
        "TITLE": html.escape(f"DG stepper: graph of {name}"),
        "HEADING": html.escape(f"graph of {name}"),
        "NOTES": "".join(f"<li>{html.escape(n)}</li>" for n in data["notes"]),
        "SOURCE": source_html(data["sources"]),
        "LISTING": listing_html(data["static"]),
        "SVG": drawing,
        "DATA": script_json(data),
        "STYLE": (HERE / "stepper.css").read_text(encoding="utf-8"),
        "SCRIPT": (HERE / "stepper.js").read_text(encoding="utf-8"),
    }
    # One pass over the template, so nothing inserted is ever taken for a placeholder.
    return re.sub(r"<!--([A-Z]+)-->", lambda m: parts[m[1]], page)


def script_json(data: dict[str, Any]) -> str:
    """JSON that cannot end the <script> it sits in, whatever text a program put in its names."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def listing_html(static: list[dict[str, Any]]) -> str:
    """The listings of the graph's static calls, as `dg static` prints them, one line per element."""
    out = []
    for i, call in enumerate(static):
        out.append(f'<h2 class="source-name">{html.escape(call["title"])}</h2><pre class="source listing">')
        for n, row in enumerate(call["lines"]):
            out.append(f'<span class="line" id="c{i}-l{n}">{html.escape(row["text"]) or " "}</span>')
        out.append("</pre>")
    return "".join(out)


def static_data(graph: Graph) -> list[dict[str, Any]]:
    """Each static call's listing, line by line with the nodes and the guard each line is about,
    and its guards as the info panel tells them."""
    if not graph.static:
        return []
    from .static_pictures import listing_lines

    calls = []
    for mark in graph.static:
        lines = listing_lines(mark, graph)
        guards = {g.key: {"text": g.text.replace("\n", " "), "retrace": g.retrace} for g in mark.guards}
        calls.append({"title": mark.title, "lines": lines, "guards": guards})
    return calls


def source_html(sources: list[dict[str, Any]]) -> str:
    out = []
    for i, source in enumerate(sources):
        out.append(f'<h2 class="source-name">{html.escape(source["name"])}</h2><pre class="source">')
        for n, text in enumerate(source["lines"], 1):
            out.append(
                f'<span class="line" id="s{i}-l{n}"><span class="no">{n}</span>{html.escape(text) or " "}</span>'
            )
        out.append("</pre>")
    return "".join(out)


# ---- the data the script replays ------------------------------------------------------------
def stepper_data(graph: Graph, name: str) -> dict[str, Any]:
    """Everything the page replays, as plain JSON-able values (node ids are the SVG's: `n3`, `e3_0`)."""
    sources: list[Source] = []
    drawn = {id(n.tensor): n for n in graph.nodes.values() if not n.stands_in}
    shown_as: dict[int, GraphNode] = dict(drawn)  # a tensor's node, or the collapsed node hiding it
    for node in graph.nodes.values():
        for hidden in node.stands_for:
            shown_as[id(hidden.tensor)] = node
    every = list(graph.nodes.values()) + [h for n in graph.nodes.values() for h in n.stands_for]
    where = {id(n): place(n, sources) for n in every}
    copies: dict[int, list[str]] = {}  # a much-used leaf is drawn again beside each use (see dot.hubs)
    shared = hubs(graph)
    for edge in graph.edges:
        if edge.drawn_from in shared:
            copies.setdefault(edge.drawn_from, []).append(copy_id(edge))
    data: dict[str, Any] = {
        "name": name,
        "nodes": [node_data(n, where[id(n)], copies.get(n.number, [])) for n in graph.nodes.values()],
        "edges": [edge_data(e) for n in graph.nodes.values() for e in n.edges],
        "forward": [
            forward_step(n, shown_as[id(n.tensor)], where[id(n)]) for n in recording_order(every) if n.op is not None
        ],
        "backward": backward_data(graph, shown_as, where, sources),
    }
    data["static"] = static_data(graph)
    data["notes"] = backward_note(graph) + graph.notes
    if graph.truncated:
        data["notes"].append(f"{graph.truncated:,} more nodes are not drawn")
    data["sources"] = [{"name": s.name, "lines": s.lines} for s in sources]
    return data


def place(node: GraphNode, sources: list[Source]) -> tuple[int, int]:
    """(index of its source among the page's sources, line), or (-1, 0) for a node made by no line."""
    if node.site is None:
        return -1, 0
    return index_of(node.site.span.source, sources), node.site.span.line


def index_of(source: Source, sources: list[Source]) -> int:
    for i, s in enumerate(sources):
        if s is source:
            return i
    sources.append(source)
    return len(sources) - 1


def node_data(node: GraphNode, at: tuple[int, int], copies: list[str]) -> dict[str, Any]:
    lines, told = label_lines(node)
    return {
        "id": f"n{node.number}",
        "copies": copies,
        "number": node.number,
        "title": node.title,
        "kind": node.kind,
        "shape": str(node.tensor.shape) if not node.stands_in else "",
        "value": summary(node.tensor.data) if not node.stands_in and node.kind != "constant" else "",
        "where": node.where(),
        "when": node.when() + [f"called in {p}" for p in outer_iterations(node.site, node.call)],
        "call": call_phrase(node.call) if node.call is not None else "",
        "source": at[0],
        "line": at[1],
        "labelLines": len(lines),
        "gradLines": told,
        "step": node.step,
        "received": summary(node.received.data) if node.received is not None else None,
        "grad": summary(node.grad.data) if node.grad is not None else None,
        "function": node.frame.function if node.frame is not None else "",
        "inside": [inside_data(n) for n in node.stands_for] if node.kind == "call" else [],
    }


def inside_data(node: GraphNode) -> str:
    """One node a function's box stands for, as the box lists it when opened in the page."""
    parts = [f"[{node.number}] {node.title}", str(node.tensor.shape)]
    if node.kind != "constant":
        parts.append(summary(node.tensor.data))
    if node.step is not None and node.received is not None:
        parts.append(f"step {node.step}: g = {summary(node.received.data)}")
    elif node.received is not None:
        parts.append(f"received {summary(node.received.data)}")
    return "  ".join(parts + node.when())


def edge_data(edge: Edge) -> dict[str, Any]:
    lines = edge_label(edge).split("\n") if edge.rule else []
    return {
        "id": f"e{edge.target}_{edge.position}",
        "from": f"n{edge.drawn_from}",
        "to": f"n{edge.target}",
        "label": edge.rule,
        "numbers": edge.numbers,
        "numberLines": max(len(lines) - 1, 0),
        "gradient": edge.gradient,
    }


def recording_order(nodes: list[GraphNode]) -> list[GraphNode]:
    """Op nodes in the order the program recorded them: by their stamp when every one has it, else
    inputs before the ops that use them (a topological order, found without recursion)."""
    ops = [n for n in nodes if n.op is not None]
    if all(n.site is not None and n.site.order for n in ops):
        return sorted(ops, key=lambda n: n.site.order if n.site is not None else 0)
    by_tensor = {id(n.tensor): n for n in ops}
    order: list[GraphNode] = []
    done: set[int] = set()
    for start in sorted(ops, key=lambda n: -n.number):
        stack: list[tuple[GraphNode, bool]] = [(start, False)]
        while stack:
            node, inputs_done = stack.pop()
            if inputs_done:
                order.append(node)
                continue
            if id(node) in done:
                continue
            done.add(id(node))
            stack.append((node, True))
            assert node.tensor.grad_fn is not None
            for inp in reversed(node.tensor.grad_fn.inputs):
                child = by_tensor.get(id(inp))
                if child is not None and id(child) not in done:
                    stack.append((child, False))
    return order


def forward_step(node: GraphNode, shown: GraphNode, at: tuple[int, int]) -> dict[str, Any]:
    code = source_text(node.site.span) if node.site is not None else ""
    return {
        "node": f"n{shown.number}",
        "made": f"n{node.number}" if shown is node else None,
        "title": node.title,
        "shape": str(node.tensor.shape),
        "value": summary(node.tensor.data),
        "code": shorten(code, 60),
        "when": node.when() + [f"called in {p}" for p in outer_iterations(node.site, node.call)],
        "call": call_phrase(node.call) if node.call is not None else "",
        "source": at[0],
        "line": at[1],
    }


def backward_data(
    graph: Graph, shown_as: dict[int, GraphNode], where: dict[int, tuple[int, int]], sources: list[Source]
) -> dict[str, Any] | None:
    """The steps of the pass drawn that ran a rule of this graph, and the leaves' accumulation."""
    drawn = graph.backward
    if drawn is None:
        return None
    nodes_of = {id(n.tensor): n for n in graph.nodes.values() if not n.stands_in}
    for stand_in in graph.nodes.values():
        nodes_of.update({id(h.tensor): h for h in stand_in.stands_for})
    by_number = {n.number: n for n in nodes_of.values()}
    running: dict[int, Tensor] = {}
    steps = []
    for step in drawn.steps:
        node = nodes_of.get(id(step.tensor))
        if node is None:
            continue  # a step above the value drawn
        shown = shown_as[id(step.tensor)]
        sends, leaves = [], []
        for edge in node.edges:
            source = by_number[edge.source]
            shown_source = shown_as.get(id(source.tensor), source)
            sends.append(send_data(edge, shown is node, source, shown_source))
            if edge.sent is not None and source.tensor.grad_fn is None:
                got = arrived(edge.sent, source.tensor.shape)
                before = running.get(id(source.tensor))
                running[id(source.tensor)] = got if before is None else Tensor(before.data + got.data)
                total = summary(running[id(source.tensor)].data)
                leaves.append({"id": f"n{shown_source.number}", "name": source.title, "total": total})
        at = where.get(id(node), (-1, 0))
        steps.append(
            {
                "number": step.number,
                "node": f"n{shown.number}",
                "title": node.title,
                "g": summary(step.g.data),
                "code": shorten(source_text(node.site.span), 60) if node.site is not None else "",
                "source": at[0],
                "line": at[1],
                "sends": sends,
                "leaves": leaves,
            }
        )
    site = drawn.site
    return {
        "root": f"n{shown_as[id(drawn.root)].number}" if id(drawn.root) in shown_as else None,
        "began": "" if drawn.root is graph.root else "the pass began above the value drawn",
        "seed": summary(drawn.gradient_of(graph.root).data) if drawn.gradient_of(graph.root) is not None else "",
        "code": source_text(site.span) if site is not None else "",
        "source": index_of(site.span.source, sources) if site is not None else -1,
        "line": site.span.line if site is not None else 0,
        "steps": steps,
        "accumulate": [
            {
                "id": f"n{shown_as[id(leaf)].number}",
                "name": leaf.name or "leaf",
                "received": summary(g.data),
                "grad": summary(total.data),
            }
            for leaf, g, total in drawn.grads
            if id(leaf) in shown_as
        ],
    }


def send_data(edge: Edge, drawn: bool, source: GraphNode, shown_source: GraphNode) -> dict[str, Any]:
    """What one step sent along one edge (an edge of a node inside a collapsed one has no line)."""
    return {
        "edge": f"e{edge.target}_{edge.position}" if drawn else None,
        "to": f"[{source.number}] {source.title}",
        "toId": f"n{shown_source.number}",
        "rule": edge.rule,
        "numbers": edge.numbers,
        "gradient": edge.gradient,
    }
