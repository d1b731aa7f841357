"""Programs for the static-vs-dynamic oracle: each defines a function `f` that reads globals, a
closure and a module-like dict, branches on tensor values and on globals, loops, and may take
a gradient inside; then calls it many times while the program changes what `f` reads between
calls (numbers, strings, a closure's list, tensors rebound or updated in place, a helper
redefined, shapes, requires_grad, aliased and captured tensors as arguments, a tensor holding a
view of another's values, keyword arguments, signed zeros, a .grad set or not when a call comes
in), printing every result and gradient exactly (`tolist()` prints each float as Python's repr,
which round-trips).

`run_both` runs one program twice in fresh sessions, once with `F = static(f)` and once with
`F = f`, and returns both outputs: static(f) must print what f prints, bit for bit (`agree`: but
for the documented rounding of a gradient that reaches a tensor around the call too).

Choices are drawn through `Draw` (hypothesis's `st.data()` in the tests, or a seeded
random.Random for a quick look), so hypothesis can shrink a failing program.
"""

from __future__ import annotations

import ast
import io
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.frontends.sessions import new_session

Draw = Callable[[Sequence[Any]], Any]  # picks one of the options

NUMBERS = ["0.5", "1.5", "-0.75", "2.0", "0.0", "-0.0", "0.25", "-1.25", "3.0"]
VALUES = ["0.3", "-0.7", "1.1", "0.0", "-0.0", "0.9", "-1.3", "2.1", "-0.2", "0.6"]
MAX_CALLS = 12  # calls of F per program


def seeded(seed: int) -> Draw:
    rng = random.Random(seed)
    return lambda options: rng.choice(list(options))


class Builder:
    """Writes one program from the choices `draw` makes."""

    def __init__(self, draw: Draw) -> None:
        self.draw = draw
        self.width = draw([2, 3])

    def vector(self, width: int | None = None) -> str:
        n = self.width if width is None else width
        return "[" + ", ".join(self.draw(VALUES) for _ in range(n)) + "]"

    def tensor(self, requires_grad: bool | None = None, rows: int = 0) -> str:
        rg = self.draw([True, False]) if requires_grad is None else requires_grad
        data = self.vector() if not rows else "[" + ", ".join(self.vector() for _ in range(rows)) + "]"
        return f"tensor({data}{', requires_grad=True' if rg else ''})"

    def mask(self) -> str:
        return f'tensor([{", ".join(self.draw(["True", "False"]) for _ in range(self.width))}], dtype="bool")'

    def order(self) -> str:
        return f'tensor([{", ".join(str(self.draw(range(self.width))) for _ in range(self.width))}], dtype="int")'

    # ---- the function -------------------------------------------------------------------------------
    def atom(self) -> str:
        tensor = self.draw(["x", "y", "W", 'P["w"]', "helper(x)", "inner(y)", "a"])
        if self.draw([True, False]):
            return tensor
        return f"({tensor} * {self.draw(['s', 'g1', 'k[0]', '2.0', '-0.0', 'len(k)'])})"

    def expression(self, depth: int = 2) -> str:
        if depth == 0:
            return self.atom()
        left, right = self.expression(depth - 1), self.expression(depth - 1)
        return self.draw(
            [
                f"({left} + {right})",
                f"({left} * {right})",
                f"({left} - {right})",
                f"tanh({left})",
                f"relu({left})",
                f"({left} / (1.0 + {right} * {right}))",
                f"({left}).sum() * {right}",
                f"where({left} > 0.1, {left}, {right})",
                f"softmax({left}, dim=0)",
                # a stack times one matrix (one product of the stack's rows): its weight's gradient too
                f"(({left}).reshape(1, -1, 1) @ ({right}).reshape(1, -1)).sum(axis=1).reshape(-1)",
                self.atom(),
            ]
        )

    def statement(self, depth: int) -> list[str]:
        kinds = ["assign", "assign", "if-tensor", "if-global", "for", "while", "item", "index", "grad"]
        kind = self.draw(kinds if depth else ["assign", "index"])
        if kind == "assign":
            return [f"a = {self.expression()}"]
        if kind == "if-tensor":
            cond = self.draw(["a.sum() > 0.1", "(x * W).sum() < 0.0", "y.max() > 0.5", "a.mean() >= -0.0"])
            return [f"if {cond}:", *self.indented(depth), "else:", *self.indented(depth)]
        if kind == "grad":  # the .grad W came in with (None or set, as the calls before left it)
            return ["if W.grad != None:", "    a = a + W.grad * 0.5"]
        if kind == "if-global":
            cond = self.draw(['mode == "a"', "g1 > 1.0", "len(k) > 1", "s < 0.0", 'P["on"]'])
            return [f"if {cond}:", *self.indented(depth)]
        if kind == "for":
            return [f"for i in range({self.draw(['layers', '2', 'len(k)'])}):", *self.indented(depth)]
        if kind == "while":  # a loop whose count is a tensor's value (each test a guard)
            return ["n = 0", "while (a * a).sum() > 0.01 and n < 3:", "    a = a * 0.5", "    n = n + 1"]
        if kind == "index":  # a bool mask (its count sets the shape) and an index of ints, both read from globals
            return [
                self.draw(
                    [
                        "a = a * a[mask].sum()",
                        "a = a + a[mask].mean()",
                        "a = a[order] + a",
                        "a = a + x[arange(len(k)) % 2].sum()",
                    ]
                )
            ]
        return [f"a = a * {self.draw(['a.sum().item()', 'float(x.sum())', 'W.max().item()'])}"]

    def indented(self, depth: int) -> list[str]:
        return ["    " + line for _ in range(self.draw([1, 2])) for line in self.statement(depth - 1)]

    def function(self) -> list[str]:
        lines = ["def f(x, y, s=2.0):", "    a = x * W + y"]
        for _ in range(self.draw([1, 2, 3])):
            lines += ["    " + line for line in self.statement(2)]
        self.trains = self.draw([False, False, True])
        if self.trains:  # a training step: grad inside (adding to W's .grad as it came in, or not), an update
            zero = self.draw(["        W.grad = None", "        zero_grad(W)", "        n = 0"])
            lines += [
                "    loss = (a * a).sum()",
                "    if loss.requires_grad:",
                zero,
                "        grad loss",
                "        with no_grad:",
                "            for p in [W]:",
                "                if p.grad != None:",
                "                    p -= 0.125 * p.grad",
                "    return loss",
            ]
        else:
            lines.append(f"    return {self.draw(['a', 'a.sum()', '[a, a * 2.0]', '(a * x).sum() + a.mean()'])}")
        return lines

    # ---- the program around it ----------------------------------------------------------------------
    def preamble(self) -> list[str]:
        return [
            f"g1 = {self.draw(NUMBERS)}",
            "mode = " + self.draw(['"a"', '"b"']),
            f"k = [{self.draw(NUMBERS)}]",
            f"layers = {self.draw([1, 2])}",
            f"Wbase = {self.tensor(False)}",
            # (W may hold a view of Wbase's values, which an update in place must leave alone)
            self.draw([f"W = {self.tensor()}", f"W = Wbase.reshape({self.width})\nW.requires_grad = True"]),
            "mask = " + self.mask(),
            "order = " + self.order(),
            f'P = {{"w": {self.tensor(False)}, "on": {self.draw(["True", "False"])}}}',
            "def helper(v):",
            f"    return v * g1 + {self.draw(NUMBERS)}",
            "def make():",
            "    def inner(v):",
            "        return v * k[0]",
            "    return inner",
            "inner = make()",
            "def show(label, t):",
            "    if type(t) == type([]):",
            "        for u in t:",
            "            show(label, u)",
            "    elif type(t) == type(W):",
            "        print(label, t.tolist(), t.requires_grad)",
            "    else:",
            "        print(label, t)",
            "def grads():",
            '    show("W.grad", W.grad)',
            '    show("x.grad", x0.grad)',
            '    show("Wbase", Wbase)',
            "    W.grad = None",
            "    x0.grad = None",
        ]

    def action(self) -> list[str]:
        kind = self.draw(
            ["call", "call", "call", "call", "global", "string", "cell", "rebind", "inplace", "redefine", "argument"]
        )
        if kind == "call":
            args = self.draw(
                [
                    "x0, y0",
                    "x0, y0, s=-1.5",
                    "x0, y0, -0.0",
                    "x0, y0, 0.0",
                    "x0 * 2.0, y0",
                    "x0 * 2.0, x0",
                    "W * 2.0, y0",
                    "tanh(W), W",
                    "x0, x0",
                    "W, y0",
                    "y0, W",
                    "x0, P['w']",
                    "x0, y0, s=g1",
                ]
            )
            after = self.draw(["grad", "gradient", "none"])
            lines = [f"r = F({args})", 'show("r", r)']
            if after == "grad":
                lines += ["if type(r) == type(W) and r.requires_grad:", "    grad r.sum()"]
            elif after == "gradient":
                wrt = self.draw(["x0", "W"])
                lines += [f"if type(r) == type(W) and r.requires_grad and {wrt}.requires_grad:",
                          f'    dx = gradient(r.sum(), {wrt})',
                          '    show("dx", dx)',
                          "    if dx.requires_grad:",
                          f'        show("ddx", gradient((dx * dx).sum(), {wrt}))']  # fmt: skip
            keep = self.draw(["reset", "reset", "keep", "set"])
            if keep == "reset":
                return [*lines, "grads()"]
            if keep == "set":
                lines.append("W.grad = W.detach() * 0.25")
            return [*lines, 'show("W.grad kept", W.grad)']  # (the next call comes in with it)
        if kind == "global":
            return [f"g1 = {self.draw(NUMBERS)}", f"layers = {self.draw([1, 2, 3])}"]
        if kind == "string":
            return ["mode = " + self.draw(['"a"', '"b"']), f'P["on"] = {self.draw(["True", "False"])}']
        if kind == "cell":
            return [self.draw([f"k[0] = {self.draw(NUMBERS)}", f"k.append({self.draw(NUMBERS)})", "k = [1.0]"])]
        if kind == "rebind":
            return [
                self.draw(
                    [
                        f"W = {self.tensor()}",
                        f'P["w"] = {self.tensor(False)}',
                        f"y0 = {self.tensor(False)}",
                        # a view of another tensor's array, which an update in place must leave alone
                        f"W = Wbase.reshape({self.width})\nW.requires_grad = {self.draw(['True', 'False'])}",
                    ]
                )
            ]
        if kind == "inplace":
            return [
                self.draw(
                    [
                        f"mask[{self.draw(range(self.width))}] = {self.draw(['True', 'False'])}",
                        "order = " + self.order(),
                        "mask = " + self.mask(),
                        "with no_grad:\n    W *= 0.5",
                        "with no_grad:\n    W += 1.0",
                        'P["w"][0] = 3.0',
                        "y0[1] = -2.0",
                        "with no_grad:\n    x0 -= 0.25",
                    ]
                )
            ]
        if kind == "redefine":
            return ["def helper(v):", f"    return v - {self.draw(NUMBERS)}"]
        return [
            self.draw(
                [
                    f"x0 = {self.tensor()}",
                    f"x0 = {self.tensor(True, rows=2)}",
                    "x0.requires_grad = not x0.requires_grad",
                    f"W.requires_grad = {self.draw(['True', 'False'])}",
                ]
            )
        ]

    def program(self) -> str:
        lines = self.preamble() + self.function()
        lines += ["F = static(f)", f"x0 = {self.tensor()}", f"y0 = {self.tensor(False)}"]
        for _ in range(self.draw(range(3, MAX_CALLS))):
            lines += self.action()
        return "\n".join(lines) + "\n"


def run_program(text: str) -> str:
    """What the program prints, then the error that stopped it (if one did), in one text."""
    out = io.StringIO()
    session = new_session(out=out)
    session.err = io.StringIO()
    try:
        session.run(text, "oracle.dg")
    except DGError as e:
        # (the kind and the line: the message may name the op differently, a static call being one node)
        out.write(f"stopped: {e.kind} at line {e.span.line if e.span else '?'}\n")
    return out.getvalue()


# Arguments computed from a tensor f also reads (an argument passed beside it, or a weight it
# captures): that tensor gets gradients from inside the call and from outside it, and the static
# call's part arrives summed, so the last bit may differ (docs/language.md, "The same numbers").
AROUND_THE_CALL = ("F(x0 * 2.0, x0)", "F(W * 2.0, y0)", "F(tanh(W), W)")
GRADIENTS = ("W.grad", "x.grad", "dx", "ddx")  # the labels of the lines that print gradients
ULPS = 4  # how far apart two gradients summed in other orders may be, in units in the last place


def agree(text: str, static: str, dynamic: str) -> bool:
    """Does static print what dynamic prints: the same text, but for the gradients of a program
    that calls F with an argument computed from a tensor F also reads, which may differ by the
    rounding of additions made in another order (a few units in the last place)?"""
    if static == dynamic:
        return True
    if not any(call in text for call in AROUND_THE_CALL):
        return False
    ours, theirs = static.splitlines(), dynamic.splitlines()
    return len(ours) == len(theirs) and all(same_line(a, b) for a, b in zip(ours, theirs, strict=True))


def same_line(a: str, b: str) -> bool:
    if a == b:
        return True
    (label, rest), (other, other_rest) = labelled(a), labelled(b)
    if label != other or label.removesuffix(" kept") not in GRADIENTS or not rest.startswith("["):
        return False
    try:
        values, flag = rest.rsplit("] ", 1)
        other_values, other_flag = other_rest.rsplit("] ", 1)
        xs, ys = ast.literal_eval(values + "]"), ast.literal_eval(other_values + "]")
    except (ValueError, SyntaxError):
        return False
    # (units in the last place of the line's largest value: an addition made in another order is off
    # by that much of its terms, and a small element of a second derivative is what is left of larger
    # ones that cancel)
    scale = max((abs(v) for v in [*flat(xs), *flat(ys)] if isinstance(v, float)), default=0.0)
    return flag == other_flag and close(xs, ys, ULPS * math.ulp(scale))


def labelled(line: str) -> tuple[str, str]:
    """A printed line's label and the rest: `W.grad [...] False`, or `W.grad kept [...] False` (the
    .grad a call leaves for the next one, a gradient as well)."""
    label, _, rest = line.partition(" ")
    if rest.startswith("kept "):
        return label + " kept", rest.removeprefix("kept ")
    return label, rest


def flat(xs: Any) -> list[Any]:
    return [v for x in xs for v in flat(x)] if isinstance(xs, list) else [xs]


def close(xs: Any, ys: Any, within: float) -> bool:
    if isinstance(xs, list) and isinstance(ys, list):
        return len(xs) == len(ys) and all(close(x, y, within) for x, y in zip(xs, ys, strict=True))
    if isinstance(xs, float) and isinstance(ys, float):
        return xs == ys or abs(xs - ys) <= within
    return bool(xs == ys)


def run_both(text: str) -> tuple[str, str]:
    """(static's output, the dynamic function's) for a program that binds `F = static(f)`."""
    return run_program(text), run_program(text.replace("F = static(f)", "F = f"))
