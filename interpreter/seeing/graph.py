"""The recorded graph behind a tensor, as a student should see it: what each node is, where and when
in the program it was made, which branch of each `if` ran, and (after `grad`) what the pass drawn
sent along each edge and what each node received.

`collect` reads the engine's graph into plain records that every picture draws: the text tree
(text_picture.py), DOT and SVG (dot.py), and the stepper (stepper.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dglang.autograd import Tensor
from dglang.autograd.op import Op
from dglang.interpreter.diagnostics.errors import CallFrame
from dglang.interpreter.diagnostics.source import Branch, LoopRun, Site

from .passes import BackwardPass
from .provenance import own_iterations
from .rules import arrived, numbers, rule_label
from .untaken import NotRun, arms_not_run
from .values import compact, line_in, line_of, shorten, source_text

MAX_NODES = 300  # a text picture stops here; a 10,000-step loop is better seen with dg graph


@dataclass(eq=False)
class Edge:
    """An input going into an op: `source` feeds input `position` of `target` (node numbers)."""

    source: int
    target: int
    position: int
    rule: str  # `a: g·b`, or only the input's name (`b`) when it takes no gradient
    gradient: bool  # does the input take a gradient (it requires grad)?
    sent: Tensor | None = None  # what the pass drawn sent along it
    numbers: str = ""  # `= 1·2 = 2`: the rule with the pass's numbers, and its result
    via: int | None = None  # the node drawn in place of the source, when that is collapsed

    @property
    def drawn_from(self) -> int:
        return self.via if self.via is not None else self.source

    @property
    def label(self) -> str:
        return f"{self.rule} {self.numbers}".rstrip()


@dataclass(eq=False)
class GraphNode:
    number: int  # in the order the picture meets nodes, from the output
    tensor: Tensor
    # "output", "op", "parameter", "data" (a leaf without requires_grad), "constant", "collapsed":
    # many iterations of a loop drawn as one node (collapse.py), or "call": a call of a DG function
    # drawn as one box (function_boxes.py)
    kind: str
    inputs: list[int] = field(default_factory=list)  # numbers of the input nodes, in argument order
    edges: list[Edge] = field(default_factory=list)  # the same inputs as edges, with their rules
    site: Site | None = None
    call: CallFrame | None = None
    step: int | None = None  # the step of the pass drawn that ran its rule
    received: Tensor | None = None  # the gradient it received in the pass drawn
    grad: Tensor | None = None  # a leaf's `.grad`, when it is not just what the pass drawn sent
    stands_for: list[GraphNode] = field(default_factory=list)  # a "collapsed" node: the nodes it hides
    note: str = ""  # a "collapsed" node: what it hides, in words; a "call": the function's name
    frame: CallFrame | None = None  # a "call": the call it stands for (`call` is the one around it)
    outputs: list[GraphNode] = field(default_factory=list)  # a "call": the nodes it made that are used outside

    @property
    def stands_in(self) -> bool:
        """Is it drawn in place of other nodes (loop iterations, a function call)?"""
        return self.kind in ("collapsed", "call")

    @property
    def op(self) -> type[Op] | None:
        return self.tensor.grad_fn.op if self.tensor.grad_fn is not None else None

    @property
    def title(self) -> str:
        """`Mul`, `y = Mul`, a leaf's name, or a constant's value."""
        t = self.tensor
        if self.stands_in:
            return self.note
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
        text = f"{line_of(span)}: {shorten(source_text(span))}"
        if self.call is not None:
            text += f" in {self.call.function}()"
        return text

    def when(self) -> list[str]:
        """The loop iterations and `if` arms it was made in: `iteration 3 of the while on line 5`."""
        if self.site is None:
            return []
        return own_iterations(self.site, self.call) + [
            f"{arm_phrase(b)} of the if on {line_in(b.if_line, self.site.span)}" for b in self.site.branches
        ]


@dataclass(eq=False)
class Graph:
    root: Tensor
    nodes: dict[int, GraphNode]  # by number; 1 is the output
    truncated: int = 0  # nodes left out beyond the limit
    backward: BackwardPass | None = None  # the pass drawn, when it went through this graph
    not_backpropagated: BackwardPass | None = None  # the last pass, when it did not
    not_run: list[NotRun] = field(default_factory=list)  # the arms of each `if` that did not run
    loops: list[LoopRun] = field(default_factory=list)  # each loop run that made a node, in line order
    notes: list[str] = field(default_factory=list)  # what was left out to keep a big graph drawable
    static: list[Any] = field(default_factory=list)  # its static calls (static_pictures.StaticMark)

    @property
    def branches(self) -> list[Branch]:
        """Every `if` arm that produced a node, in line order."""
        seen = {b for n in self.nodes.values() if n.site for b in n.site.branches}
        return sorted(seen, key=lambda b: (b.if_line, b.line))

    @property
    def edges(self) -> list[Edge]:
        return [e for n in self.nodes.values() for e in n.edges]

    def steps(self) -> tuple[int, int] | None:
        """The first and last step of the pass drawn that ran a rule of this graph."""
        every = [m for n in self.nodes.values() for m in (n.stands_for or [n])]
        numbers = [n.step for n in every if n.step is not None]
        return (min(numbers), max(numbers)) if numbers else None


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


def collect(root: Tensor, last: BackwardPass | None = None, limit: int = MAX_NODES) -> Graph:
    """Walk the graph from `root` (iteratively: it may be deep), numbering nodes as met; with the
    last backward pass, if it went through this graph, what it sent along each edge."""
    numbers_of: dict[int, int] = {id(root): 1}
    nodes: dict[int, GraphNode] = {}
    pending = deque([root])  # breadth first: numbers grow with the distance from the output
    truncated = 0
    while pending:
        t = pending.popleft()
        node = GraphNode(numbers_of[id(t)], t, kind_of(t, t is root))
        nodes[node.number] = node
        recorded = t.grad_fn
        if recorded is None:
            continue
        if isinstance(recorded.where, Site):
            node.site, node.call = recorded.where, recorded.call
        for position, inp in enumerate(recorded.inputs):
            if id(inp) not in numbers_of:
                if len(numbers_of) >= limit:
                    truncated += 1
                    continue
                numbers_of[id(inp)] = len(numbers_of) + 1
                pending.append(inp)
            source = numbers_of[id(inp)]
            node.inputs.append(source)
            label = rule_label(recorded.op, position) if inp.requires_grad else recorded.op.rule_for(position)[0]
            node.edges.append(Edge(source, node.number, position, label, inp.requires_grad))
    graph = Graph(root, nodes, truncated)
    if last is not None and last.reached(root):
        graph.backward = last
        add_gradients(graph, last)
    elif last is not None:
        graph.not_backpropagated = last
    graph.not_run = arms_not_run((n.number, n.site, n.call) for n in nodes.values())
    runs = {id(it[0]): it[0] for n in nodes.values() if n.site for it in n.site.iterations}
    graph.loops = sorted(runs.values(), key=lambda r: r.loop.line)
    return graph


def add_gradients(graph: Graph, drawn: BackwardPass) -> None:
    """What the pass drawn did at each node: its step, what arrived, what went along each edge."""
    for node in graph.nodes.values():
        t = node.tensor
        node.received = drawn.gradient_of(t)
        step = drawn.step_of.get(id(t))
        if step is not None:
            node.step = step.number
            for edge in node.edges:
                sent = step.sent[edge.position] if edge.position < len(step.sent) else None
                if edge.gradient and sent is not None:
                    source = graph.nodes[edge.source].tensor
                    edge.sent = sent
                    assert node.op is not None
                    edge.numbers = numbers(node.op, edge.position, t, step.g, sent, source.shape)
                elif edge.gradient:
                    edge.numbers = "(sent nothing)"
        if node.kind == "parameter" and t.grad is not None:
            same = node.received is not None and node.received.shape == t.grad.shape
            if not (same and bool((node.received.data == t.grad.data).all())):  # type: ignore[union-attr]
                node.grad = t.grad


def edges_in(graph: Graph, number: int) -> list[Edge]:
    """The edges into (consumers of) node `number`: where its gradient came from."""
    return [e for e in graph.edges if e.source == number]


def from_edges_drawn(graph: Graph, number: int) -> Tensor | None:
    """The sum of what the drawn edges sent node `number`, or None if none sent anything."""
    total = None
    shape = graph.nodes[number].tensor.shape
    for e in edges_in(graph, number):
        if e.sent is not None:
            got = arrived(e.sent, shape)
            total = got if total is None else Tensor(total.data + got.data)
    return total


def arm_phrase(branch: Branch) -> str:
    if branch.arm == "then":
        return "then-branch"
    return f"{branch.arm}-branch on line {branch.line}"
