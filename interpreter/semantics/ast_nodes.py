"""The abstract syntax tree: one small class per construct, each carrying its source span.

The parse tree lark builds mirrors the grammar (tokens, helper rules); this tree mirrors the
language: `Binary('+', left, right)` whatever the precedence rules took to parse it. Beside each
class, how the construct is written.

A class lists its fields in `__slots__` (so a node has no dictionary of its own: a program of a
million bytes makes a million nodes) and takes them, in that order, in `__init__`, after the span
its base class gives it. Plain classes rather than dataclasses: a dataclass compiles its
`__init__` from text each time DG starts, which for these classes was the largest single cost of
starting (docs/performance.md). Nodes compare by identity: nothing compares trees by value.
"""

from __future__ import annotations

from typing import Any, Self

from dglang.interpreter.diagnostics.source import Span


class Node:
    """What every class of the tree shares: its fields, and a repr that shows them."""

    __slots__ = ()

    def __init_subclass__(cls) -> None:
        cls.__match_args__ = cls.fields()  # `case Binary(span, op, ...)` matches by position, as for a dataclass

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The names of its fields, in the order `__init__` takes them (its base class's first)."""
        return tuple(name for c in reversed(cls.__mro__) for name in c.__dict__.get("__slots__", ()))

    def replace(self, **changes: Any) -> Self:
        """A copy with the fields named in `changes` changed, as `dataclasses.replace` makes one."""
        return type(self)(*(changes.get(name, getattr(self, name)) for name in self.fields()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields())
        return f"{type(self).__name__}({shown})"


# ---- expressions -------------------------------------------------------------------------


class Expr(Node):  # Every expression: where it is written.
    __slots__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class Constant(Expr):  # A number, string, True, False or None written in the program.
    __slots__ = ("value",)

    def __init__(self, span: Span, value: Any) -> None:
        self.span, self.value = span, value


class FString(Expr):  # f"loss {loss:.4f}": literal text and formatted expressions, in order.
    __slots__ = ("parts",)

    def __init__(self, span: Span, parts: list[str | FormattedValue]) -> None:
        self.span, self.parts = span, parts


class FormattedValue(Node):  # {expr:spec} inside an f-string.
    __slots__ = ("expr", "spec")

    def __init__(self, expr: Expr, spec: str) -> None:
        self.expr, self.spec = expr, spec


class Name(Expr):  # x: a name, read (or assigned, as a target).
    __slots__ = ("name",)

    def __init__(self, span: Span, name: str) -> None:
        self.span, self.name = span, name


class TupleExpr(Expr):  # a, b or (a, b)
    __slots__ = ("items",)

    def __init__(self, span: Span, items: list[Expr]) -> None:
        self.span, self.items = span, items


class ListExpr(Expr):  # [a, b]
    __slots__ = ("items",)

    def __init__(self, span: Span, items: list[Expr]) -> None:
        self.span, self.items = span, items


class ListComprehension(Expr):  # [element for targets in iterable if condition]
    __slots__ = ("element", "targets", "iterable", "condition")

    def __init__(self, span: Span, element: Expr, targets: list[str], iterable: Expr, condition: Expr | None) -> None:
        self.span, self.element, self.targets, self.iterable = span, element, targets, iterable
        self.condition = condition


class DictExpr(Expr):  # {key: value, ...}
    __slots__ = ("items",)

    def __init__(self, span: Span, items: list[tuple[Expr, Expr]]) -> None:
        self.span, self.items = span, items


class DictComprehension(Expr):  # {key: value for targets in iterable if condition}
    __slots__ = ("key", "value", "targets", "iterable", "condition")

    def __init__(
        self, span: Span, key: Expr, value: Expr, targets: list[str], iterable: Expr, condition: Expr | None
    ) -> None:
        self.span, self.key, self.value, self.targets, self.iterable = span, key, value, targets, iterable
        self.condition = condition


class Binary(Expr):  # left op right
    __slots__ = ("op", "left", "right")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr) -> None:
        self.span, self.op, self.left, self.right = span, op, left, right


class Unary(Expr):  # -operand, +operand
    __slots__ = ("op", "operand")

    def __init__(self, span: Span, op: str, operand: Expr) -> None:
        self.span, self.op, self.operand = span, op, operand


class Compare(Expr):  # a < b <= c: operands and the operators between them.
    __slots__ = ("operands", "ops")

    def __init__(self, span: Span, operands: list[Expr], ops: list[str]) -> None:
        self.span, self.operands, self.ops = span, operands, ops


class And(Expr):  # left and right
    __slots__ = ("left", "right")

    def __init__(self, span: Span, left: Expr, right: Expr) -> None:
        self.span, self.left, self.right = span, left, right


class Or(Expr):  # left or right
    __slots__ = ("left", "right")

    def __init__(self, span: Span, left: Expr, right: Expr) -> None:
        self.span, self.left, self.right = span, left, right


class Not(Expr):  # not operand
    __slots__ = ("operand",)

    def __init__(self, span: Span, operand: Expr) -> None:
        self.span, self.operand = span, operand


class Conditional(Expr):  # then if condition else otherwise
    __slots__ = ("condition", "then", "otherwise")

    def __init__(self, span: Span, condition: Expr, then: Expr, otherwise: Expr) -> None:
        self.span, self.condition, self.then, self.otherwise = span, condition, then, otherwise


class Attribute(Expr):  # obj.name
    __slots__ = ("obj", "name")

    def __init__(self, span: Span, obj: Expr, name: str) -> None:
        self.span, self.obj, self.name = span, obj, name


class Call(Expr):  # func(args, name=value)
    __slots__ = ("func", "args", "kwargs")

    def __init__(self, span: Span, func: Expr, args: list[Expr], kwargs: list[tuple[str, Expr]]) -> None:
        self.span, self.func, self.args, self.kwargs = span, func, args, kwargs


class Slice(Expr):  # start:stop:step inside an index; each part may be left out.
    __slots__ = ("start", "stop", "step")

    def __init__(self, span: Span, start: Expr | None, stop: Expr | None, step: Expr | None) -> None:
        self.span, self.start, self.stop, self.step = span, start, stop, step


class Index(Expr):  # obj[items]; several items (x[0, 1:]) index several axes.
    __slots__ = ("obj", "items")

    def __init__(self, span: Span, obj: Expr, items: list[Expr]) -> None:
        self.span, self.obj, self.items = span, obj, items


# ---- statements --------------------------------------------------------------------------


class Stmt(Node):  # Every statement: where it is written.
    __slots__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class Assign(Stmt):  # target = value
    __slots__ = ("target", "value")

    def __init__(self, span: Span, target: Expr, value: Expr) -> None:
        self.span, self.target, self.value = span, target, value


class AugAssign(Stmt):  # target op= value
    __slots__ = ("target", "op", "value")

    def __init__(self, span: Span, target: Expr, op: str, value: Expr) -> None:
        self.span, self.target, self.op, self.value = span, target, op, value


class ExprStmt(Stmt):  # An expression on a line of its own (a call, most often).
    __slots__ = ("expr",)

    def __init__(self, span: Span, expr: Expr) -> None:
        self.span, self.expr = span, expr


class Pass(Stmt):  # pass
    __slots__ = ()


class Break(Stmt):  # break
    __slots__ = ()


class Continue(Stmt):  # continue
    __slots__ = ()


class Return(Stmt):  # return [value]
    __slots__ = ("value",)

    def __init__(self, span: Span, value: Expr | None) -> None:
        self.span, self.value = span, value


class Grad(Stmt):  # grad output [with seed]
    __slots__ = ("output", "seed")

    def __init__(self, span: Span, output: Expr, seed: Expr | None) -> None:
        self.span, self.output, self.seed = span, output, seed


class Assert(Stmt):  # assert test[, message]
    __slots__ = ("test", "message")

    def __init__(self, span: Span, test: Expr, message: Expr | None) -> None:
        self.span, self.test, self.message = span, test, message


class Delete(Stmt):  # del d[key], items[i]
    __slots__ = ("targets",)

    def __init__(self, span: Span, targets: list[Expr]) -> None:
        self.span, self.targets = span, targets


class ImportedName(Node):
    """A name an import reads, where it is written: a module's (`nn`; as written also `torch.nn`,
    `..nn`, which the resolver refuses with a message) or one a module defines (`linear`)."""

    __slots__ = ("name", "span")

    def __init__(self, name: str, span: Span) -> None:
        self.name, self.span = name, span


class Import(Stmt):  # import nn, helpers
    __slots__ = ("modules",)

    def __init__(self, span: Span, modules: list[ImportedName]) -> None:
        self.span, self.modules = span, modules


class FromImport(Stmt):  # from nn import linear, layer_norm
    __slots__ = ("module", "names")

    def __init__(self, span: Span, module: ImportedName, names: list[ImportedName]) -> None:
        self.span, self.module, self.names = span, module, names


class If(Stmt):  # if/elif chains become a list of (condition, body) branches plus an optional else body.
    __slots__ = ("branches", "orelse", "else_line")

    def __init__(
        self,
        span: Span,
        branches: list[tuple[Expr, list[Stmt]]],
        orelse: list[Stmt] | None,
        else_line: int | None = None,
    ) -> None:
        self.span, self.branches, self.orelse, self.else_line = span, branches, orelse, else_line


class While(Stmt):  # while condition: body
    __slots__ = ("condition", "body")

    def __init__(self, span: Span, condition: Expr, body: list[Stmt]) -> None:
        self.span, self.condition, self.body = span, condition, body


class For(Stmt):  # for targets in iterable: body
    __slots__ = ("targets", "iterable", "body")

    def __init__(self, span: Span, targets: list[str], iterable: Expr, body: list[Stmt]) -> None:
        self.span, self.targets, self.iterable, self.body = span, targets, iterable, body


class Parameter(Node):  # A parameter of a def: name[=default].
    __slots__ = ("name", "default", "span")

    def __init__(self, name: str, default: Expr | None, span: Span) -> None:
        self.name, self.default, self.span = name, default, span


class FunctionDef(Stmt):  # def name(params): body
    __slots__ = ("name", "params", "body")

    def __init__(self, span: Span, name: str, params: list[Parameter], body: list[Stmt]) -> None:
        self.span, self.name, self.params, self.body = span, name, params, body

    def docstring(self) -> str | None:
        """The string the body opens with, as in Python: what `:help NAME` shows of the function."""
        first = self.body[0] if self.body else None
        if isinstance(first, ExprStmt) and isinstance(first.expr, Constant) and isinstance(first.expr.value, str):
            return first.expr.value
        return None


class With(Stmt):  # with context: body
    __slots__ = ("context", "body")

    def __init__(self, span: Span, context: Expr, body: list[Stmt]) -> None:
        self.span, self.context, self.body = span, context, body


class Module(Node):  # A whole program (or one REPL cell).
    __slots__ = ("body",)

    def __init__(self, body: list[Stmt]) -> None:
        self.body = body
