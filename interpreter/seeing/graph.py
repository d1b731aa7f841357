"""The recorded graph behind a tensor, as a student should see it: what each node is, where in the
program it was made, which branch of each `if` ran, and (after `grad`) what gradient it got.

`collect` reads the engine's graph into plain records; `text_picture` draws them as an indented
tree (`graph(y)` and the REPL's `:graph`); `dot.py` draws the same records with Graphviz.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dglang.autograd import Tensor
from dglang.autograd.ops import Op
from dglang.interpreter.core.errors import CallFrame
from dglang.interpreter.core.source import Branch, Site, Span

MAX_NODES = 300  # a text picture stops here; a 10,000-step loop is better seen with dg graph


@dataclass
class GraphNode:
    number: int  # in the order the picture meets nodes, from the output
    tensor: Tensor
    kind: str  # "output", "op", "parameter", "data" (a leaf without requires_grad), "constant"
    inputs: list[int] = field(default_factory=list)  # numbers of the input nodes, in argument order
    site: Site | None = None
    call: CallFrame | None = None
    grad: Tensor | None = None  # what it received in the last backward (a leaf: its .grad)
    step: int | None = None  # its place in the order the last backward visited nodes

    @property
    def op(self) -> Op | None:
        return self.tensor.grad_fn.op if self.tensor.grad_fn is not None else None

    @property
    def title(self) -> str:
        """`Mul`, `y = Mul`, a leaf's name, or a constant's value."""
        t = self.tensor
        if self.kind == "constant":
            return compact(t.data)
        if self.op is None:
            return t.name or "(unnamed leaf)"
        return f"{t.name} = {self.op.name}" if t.name else self.op.name

    def where(self) -> str:
        """`line 9: x * 2 in f()`: the line and code that made it, and the call it ran in."""
        if self.site is None:
            return ""
        span = self.site.span
        text = f"line {span.line}: {shorten(source_text(span))}"
        if self.call is not None:
            text += f" in {self.call.function}()"
        return text


@dataclass
class Graph:
    root: Tensor
    nodes: dict[int, GraphNode]  # by number; 1 is the output
    truncated: int = 0  # nodes left out beyond MAX_NODES

    @property
    def branches(self) -> list[Branch]:
        """Every `if` arm that produced a node, in line order."""
        seen = {b for n in self.nodes.values() if n.site for b in n.site.branches}
        return sorted(seen, key=lambda b: (b.if_line, b.line))


def kind_of(t: Tensor, is_root: bool) -> str:
    if is_root:
        return "output"
    if t.grad_fn is not None:
        return "op"
    if t.requires_grad:
        return "parameter"
    if isinstance(t.data, int | float | bool):  # a number the program wrote, lifted by the op
        return "constant"
    return "data"


class LastBackward:
    """Listens to the engine's backward passes and keeps the last one's visits in order: each tensor
    it reached and the gradient it received there (the steps a picture numbers)."""

    def __init__(self) -> None:
        self.visits: list[tuple[Tensor, Tensor]] = []

    def on_backward(self, root: Tensor, seed: Tensor) -> None:
        self.visits = []

    def on_visit(self, t: Tensor, g: Tensor) -> None:
        self.visits.append((t, g))


def collect(root: Tensor, last_backward: LastBackward | None = None, limit: int = MAX_NODES) -> Graph:
    """Walk the graph from `root` (iteratively: it may be deep), numbering nodes as met; with the
    last backward pass (if it was kept), each node's gradient and step."""
    numbers: dict[int, int] = {id(root): 1}
    nodes: dict[int, GraphNode] = {}
    pending = [root]
    truncated = 0
    while pending:
        t = pending.pop(0)
        node = GraphNode(numbers[id(t)], t, kind_of(t, t is root))
        nodes[node.number] = node
        if t.grad_fn is None:
            continue
        if t.grad_fn.where is not None:
            node.site, node.call = t.grad_fn.where, t.grad_fn.call
        for inp in t.grad_fn.inputs:
            if id(inp) not in numbers:
                if len(numbers) >= limit:
                    truncated += 1
                    continue
                numbers[id(inp)] = len(numbers) + 1
                pending.append(inp)
            if id(inp) in numbers:
                node.inputs.append(numbers[id(inp)])
    visits = last_backward.visits if last_backward is not None else []
    steps = {id(t): (i + 1, g) for i, (t, g) in enumerate(visits)}
    if id(root) not in steps:
        steps = {}  # the last grad ran over another graph: its steps would mislead here
    for node in nodes.values():
        step = steps.get(id(node.tensor))
        if step is not None:
            node.step, node.grad = step
        if node.kind == "parameter" and node.tensor.grad is not None:
            node.grad = node.tensor.grad
    return Graph(root, nodes, truncated)


# ---- the text picture ------------------------------------------------------------------------
def text_picture(graph: Graph, name: str | None = None) -> str:
    """The graph as an indented tree from the output down; a node met again is only referenced."""
    count = len(graph.nodes)
    head = f"graph of {name or graph.root.name or 'the value'}: {count} node{'s' * (count != 1)}"
    if not graph.root.requires_grad:
        head += " (it requires no grad, so nothing was recorded)"
    lines = [head]
    drawn: set[int] = set()
    stack: list[tuple[int, str, str]] = [(1, "", "")]  # (node, prefix for its line, prefix for its children)
    while stack:
        number, lead, indent = stack.pop()
        node = graph.nodes[number]
        if number in drawn:
            lines.append(f"{lead}[{number}] {node.title} (drawn above)")
            continue
        drawn.add(number)
        lines.append(f"{lead}{describe(node)}")
        children = node.inputs
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], indent + ("└─ " if last else "├─ "), indent + ("   " if last else "│  ")))
    if graph.truncated:
        lines.append(f"... and {graph.truncated} more nodes not shown")
    for b in graph.branches:
        lines.append(f"the if on line {b.if_line} ran its {arm_phrase(b)}")
    return "\n".join(lines) + "\n"


def describe(node: GraphNode) -> str:
    t = node.tensor
    parts = [f"[{node.number}] {node.title}"]
    if node.kind != "constant":
        parts.append(f"{t.shape}")
    if node.kind in ("parameter", "data"):
        parts.append("requires grad" if node.kind == "parameter" else "no grad")
    elif node.kind == "constant":
        parts.append("constant")
    where = node.where()
    if where:
        parts.append(where)
    if node.site and node.site.branches:
        arms = [f"{arm_phrase(b)} of the if on line {b.if_line}" for b in node.site.branches]
        parts.append("(" + ", ".join(arms) + ")")
    if node.grad is not None:
        parts.append(f"grad {compact(node.grad.data)}")
    if node.step is not None:
        parts.append(f"(backward step {node.step})")
    return "  ".join(parts)


def arm_phrase(branch: Branch) -> str:
    if branch.arm == "then":
        return "then-branch"
    return f"{branch.arm}-branch on line {branch.line}"


def compact(values: object, most: int = 6) -> str:
    """Values on one short line: `2`, `[1, 2.5]`, `[[1, 2], [3, 4]]`, or `[0.1, -0.2, 0.3, ... 20 values]`."""
    array = np.asarray(values)
    if array.size > most:
        shown = ", ".join(number(v) for v in array.flat[:3])
        return f"[{shown}, ... {array.size} values]"
    return nested(array)


def nested(array: np.ndarray) -> str:
    if array.ndim == 0:
        return number(array.item())
    return "[" + ", ".join(nested(row) for row in array) + "]"


def number(v: object) -> str:
    return f"{v + 0.0:.4g}" if isinstance(v, float) else str(v)  # + 0.0 turns -0.0 into 0


def source_text(span: Span) -> str:
    """The code a span covers, on its first line."""
    line = span.source.line(span.line)
    return line[span.column - 1 : span.end_column - 1 if span.end_line == span.line else None].strip()


def shorten(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
