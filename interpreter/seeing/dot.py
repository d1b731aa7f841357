"""The graph as Graphviz DOT, written here (no dependency); SVG and PNG through Graphviz's `dot`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from dglang.autograd.ops import Op
from dglang.interpreter.core.errors import DGError

from .graph import Graph, GraphNode, arm_phrase, compact

STYLES = {
    "output": 'shape=box, style="filled,bold", penwidth=2, fillcolor="#c7e9c0"',
    "op": 'shape=box, style="rounded,filled", fillcolor="#deebf7"',
    "parameter": 'shape=ellipse, style=filled, fillcolor="#fdd0a2"',
    "data": 'shape=ellipse, style=filled, fillcolor="#f0f0f0"',
    "constant": 'shape=plaintext, fontcolor="#555555"',
}


def rule(op: Op, position: int) -> str:
    """The edge label: which input it is and what the op's rule sends it, `a: g·b` (declared with the op)."""
    name, text = op.rule_for(position)
    return f"{name}: {text}"


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def label(node: GraphNode) -> str:
    t = node.tensor
    lines = [f"#{node.step}  {node.title}" if node.step is not None else node.title]
    if node.kind != "constant":
        lines.append(f"{t.shape}" + ("  requires grad" if node.kind == "parameter" else ""))
    where = node.where()
    if where:
        lines.append(where)
    if node.grad is not None:
        lines.append(f"grad {compact(node.grad.data)}")
    return "\n".join(lines)


def to_dot(graph: Graph, name: str) -> str:
    """DOT text: nodes styled by kind, one cluster per function call, edges labelled with rules."""
    out = [
        "digraph dg {",
        "  rankdir=BT;",
        '  fontname="Helvetica";',
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9, fontcolor="#31668f"];',
        f"  label={quote(caption(graph, name))};",
        "  labelloc=t;",
    ]
    calls: dict[int, list[GraphNode]] = {}
    for node in graph.nodes.values():
        calls.setdefault(id(node.call) if node.call is not None else 0, []).append(node)
    for key, members in calls.items():
        indent = "  "
        if key:
            call = members[0].call
            assert call is not None
            out.append(f"  subgraph cluster_{len(out)} {{")
            out.append(f"    label={quote(f'{call.function}() called at line {call.call_site.line}')};")
            out.append('    style="rounded,dashed"; color="#888888";')
            indent = "    "
        for node in members:
            out.append(f"{indent}n{node.number} [label={quote(label(node))}, {STYLES[node.kind]}];")
        if key:
            out.append("  }")
    for node in graph.nodes.values():
        for position, source in enumerate(node.inputs):
            assert node.op is not None  # only a recorded node has inputs
            edge = rule(node.op, position)
            out.append(f"  n{source} -> n{node.number} [label={quote(edge)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def caption(graph: Graph, name: str) -> str:
    lines = [f"graph of {name}"]
    lines += [f"the if on line {b.if_line} ran its {arm_phrase(b)}" for b in graph.branches]
    if graph.truncated:
        lines.append(f"({graph.truncated} more nodes not shown)")
    return "\n".join(lines)


def write(dot_text: str, path: Path) -> None:
    """Write DOT as it is, or turn it into SVG/PNG with Graphviz's `dot`."""
    kind = path.suffix.lower().lstrip(".")
    if kind in ("dot", "gv"):
        path.write_text(dot_text, encoding="utf-8")
        return
    if kind not in ("svg", "png"):
        raise DGError("UsageError", f"cannot write '{path}': the name must end in .dot, .svg or .png")
    program = shutil.which("dot")
    if program is None:
        raise DGError(
            "GraphvizError",
            f"cannot write '{path}': Graphviz's `dot` is not installed",
            help="install Graphviz (apt install graphviz, brew install graphviz), or write a .dot file",
        )
    result = subprocess.run([program, f"-T{kind}", "-o", str(path)], input=dot_text, text=True, capture_output=True)
    if result.returncode != 0:
        raise DGError("GraphvizError", f"Graphviz could not draw '{path}': {result.stderr.strip()}")
