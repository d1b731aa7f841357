"""The graph as an indented tree, the output on top (`graph(y)` and the REPL's `:graph`).

    [1] y = Mul  (3,)  line 3: x * 2  step 1: g = [1, 1, 1]
    ├─ a: g·b = [1, 1, 1]·2 = [2, 2, 2]
    │  [2] x  (3,)  requires grad  received [2, 2, 2]
    └─ b: [3] 2  constant

Each input hangs under the op that uses it, after the edge that joins them: the input's name in
the op's rule, the rule, and after `grad` the numbers the pass drawn put through it. An input that
takes no gradient (a constant, data) shares its edge's line.
"""

from __future__ import annotations

from dglang.autograd.tensor import recording

from .function_boxes import box_lines
from .graph import Edge, Graph, GraphNode, arm_phrase, from_edges_drawn
from .passes import BackwardPass
from .provenance import call_phrase, outer_iterations, ran_phrase
from .untaken import NotRun
from .values import source_text, summary


def text_picture(graph: Graph, name: str | None = None, untaken: bool = False) -> str:
    """The tree; a node met again is only referenced. With `untaken`, the arms of each `if` that
    did not run, and how many times each loop ran."""
    count = len(graph.nodes)
    head = f"graph of {name or graph.root.name or 'the value'}: {count} node{'s' * (count != 1)}"
    if not graph.root.requires_grad:
        head += " (it requires no grad, so nothing was recorded)"
    lines = [head]
    drawn: set[int] = set()
    # (node, the edge above it or None, the connector that starts the edge's line, the prefix of
    # the lines under it)
    stack: list[tuple[int, Edge | None, str, str]] = [(1, None, "", "")]
    while stack:
        number, edge, connector, indent = stack.pop()
        number = edge.drawn_from if edge is not None else number
        node = graph.nodes[number]
        if edge is None:  # the output
            lead = ""
        elif edge.gradient:  # the edge on a line of its own, the node under it
            lines.append(connector + (edge.label or "(used inside)"))
            lead = indent
        else:  # an input that takes no gradient shares its edge's line
            lead = f"{connector}{edge.label or '(used inside)'}: "
        if number in drawn:
            lines.append(f"{lead}[{number}] {node.title} (drawn above)")
            continue
        drawn.add(number)
        lines.append(lead + describe(graph, node))
        for i in reversed(range(len(node.edges))):
            last = i == len(node.edges) - 1
            child = node.edges[i]
            stack.append(
                (child.source, child, indent + ("└─ " if last else "├─ "), indent + ("   " if last else "│  "))
            )
    if graph.truncated:
        lines.append(f"... and {graph.truncated} more nodes not shown")
    lines += footer(graph, untaken)
    return "\n".join(lines) + "\n"


def describe(graph: Graph, node: GraphNode) -> str:
    if node.stands_in:
        return "  ".join(box_lines(node)[0]) if node.kind == "call" else f"[{node.number}] {node.title}"
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
        if node.call is not None and node.call.recursion_level > 1:
            where += f", recursion level {node.call.recursion_level}"
        parts.append(where)
    when = node.when() + [f"called in {p}" for p in outer_iterations(node.site, node.call)]
    if when:
        parts.append("(" + "; ".join(when) + ")")
    parts += gradients(graph, node)
    return "  ".join(parts)


def gradients(graph: Graph, node: GraphNode) -> list[str]:
    """`step 3: g = -1` for an op; `received [2, 2]` and maybe `.grad [4, 4]` for a leaf."""
    parts = []
    if node.step is not None:
        parts.append(f"step {node.step}: g = {summary(node.received.data) if node.received is not None else '?'}")
    elif node.received is not None and node.kind != "output":
        text = f"received {summary(node.received.data)}"
        drawn = from_edges_drawn(graph, node.number)
        if drawn is not None and drawn.shape == node.received.shape and not (drawn.data == node.received.data).all():
            text += " (with edges not drawn here)"
        parts.append(text)
    elif node.received is not None:
        parts.append(f"g = {summary(node.received.data)}")
    if node.grad is not None:
        parts.append(f".grad {summary(node.grad.data)}")
    return parts


def footer(graph: Graph, untaken: bool) -> list[str]:
    """Which arms ran (and with `untaken`, the ones that did not), the pass drawn, and the key."""
    lines = []
    if untaken and graph.not_run:
        for run in graph.not_run:
            lines.append(f"{if_phrase(run)} ran its {run.taken} (node [{run.beside}]); not run:")
            for arm in run.arms:
                lines += [f"  {n:>4} | {text}" for n, text in run.lines(arm)]
    else:
        lines += [f"the if on line {b.if_line} ran its {arm_phrase(b)}" for b in graph.branches]
    if untaken:
        lines += [ran_phrase(run) for run in graph.loops]
    lines += graph.notes
    lines += static_lines(graph)
    lines += backward_note(graph)
    lines += key(graph)
    return lines


def static_lines(graph: Graph) -> list[str]:
    """Each static call: the trace it ran as, and each guard with what a failure would do."""
    lines = []
    for mark in graph.static:
        lines.append(f"{mark.title}, {call_phrase(mark.drawn.frame)}: its nodes are the trace's ops")
        for g in mark.guards:
            read = ", ".join(f"[{n}]" for n in g.reads)
            value = g.text.split("\n")[1]
            read = f" (read {read})" if read else ""
            lines.append(f"  guard {g.number}: {g.condition} on line {g.line} {value}{read}; {g.retrace}")
            lines += [f"    {n:>4} | {code}" for n, code in g.not_run]
        if mark.more_guards:
            lines.append(f"  and {mark.more_guards} more guards")
    return lines


def if_phrase(run: NotRun) -> str:
    """`the if on line 4 (iteration 2 of the for on line 3, in f() called at line 9)`."""
    text = f"the if on line {run.branch.if_line}"
    context = run.during + ([f"in {call_phrase(run.call)}"] if run.call is not None else [])
    return text + (" (" + ", ".join(context) + ")" if context else "")


def backward_note(graph: Graph) -> list[str]:
    """Which backward pass the gradients come from, and which of its steps are drawn."""
    drawn, other = graph.backward, graph.not_backpropagated
    if drawn is not None:
        steps = graph.steps()
        where = pass_phrase(drawn)
        if steps is None:
            return [f"backward: {where} ran no rule of this graph"]
        first, last = steps
        text = f"backward: {where}, steps {first} to {last}" if first != last else f"backward: {where}, step {first}"
        if drawn.root is not graph.root:
            root_step = drawn.step_of.get(id(drawn.root))
            text += f" (it began at step {root_step.number}, above this graph)" if root_step else " (it began above)"
        return [text]
    if other is not None:
        return [f"no gradients: {pass_phrase(other)} did not go through this graph"]
    return []


def pass_phrase(drawn: BackwardPass) -> str:
    """`the grad on line 15`, or `the gradient() call on line 7`."""
    if drawn.site is None:
        return "the last backward pass"
    span = drawn.site.span
    what = "grad" if source_text(span).startswith("grad ") else "gradient() call"
    # a REPL's cells each have a line 1: the cell is named, when the picture is drawn from elsewhere
    here = getattr(recording.where, "span", None)
    other = span.source.name.startswith("<cell ") and (here is None or here.source is not span.source)
    return f"the {what} on line {span.line}" + (f" of {span.source.name}" if other else "")


def key(graph: Graph) -> list[str]:
    """What the numbers and names mean, for what this picture shows."""
    text = "key: [n] numbers the nodes from the output; a, b are an op's inputs as its rule names them"
    if graph.backward is not None:
        text += (
            "; g is the gradient arriving at an op; step k is the kth rule backward ran (as dg --trace numbers"
            " them); a leaf shows what it received in this pass"
        )
        if any(n.grad is not None for n in graph.nodes.values()):
            text += ", and its .grad, the sum over every grad so far, where that differs"
    if any(n.kind == "call" for n in graph.nodes.values()):
        text += "; f() called at line k stands for every node that call made (dg graph --open f draws them)"
    return wrap(text, 100, "     ")


def wrap(text: str, width: int, indent: str) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = indent + word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line]
