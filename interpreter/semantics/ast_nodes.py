"""The abstract syntax tree: one small dataclass per construct, each carrying its source span.

The parse tree lark builds mirrors the grammar (tokens, helper rules); this tree mirrors the
language: `Binary('+', left, right)` whatever the precedence rules took to parse it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from dglang.interpreter.diagnostics.source import Span

# Nodes compare by identity (eq=False): nothing compares trees by value, and generating 36
# __eq__ methods was a third of the time DG takes to import this module at start-up. Their repr
# is Node's, written once (repr=False), rather than one generated and compiled for each class.
# Each class has a docstring: for a class without one, dataclass writes one from its signature
# (inspect.signature, at import).


class Node:
    """What every class of the tree shares: its repr, field by field as a dataclass writes it."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{type(self).__name__}({shown})"


# ---- expressions -------------------------------------------------------------------------


@dataclass(slots=True, eq=False, repr=False)
class Expr(Node):
    """Every expression: where it is written."""

    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Constant(Expr):
    """A number, string, True, False or None written in the program."""

    value: Any


@dataclass(slots=True, eq=False, repr=False)
class FString(Expr):
    """f"loss {loss:.4f}": literal text and formatted expressions, in order."""

    parts: list[str | FormattedValue]


@dataclass(slots=True, eq=False, repr=False)
class FormattedValue(Node):
    """{expr:spec} inside an f-string."""

    expr: Expr
    spec: str


@dataclass(slots=True, eq=False, repr=False)
class Name(Expr):
    """x: a name, read (or assigned, as a target)."""

    name: str


@dataclass(slots=True, eq=False, repr=False)
class TupleExpr(Expr):
    """a, b or (a, b)"""

    items: list[Expr]


@dataclass(slots=True, eq=False, repr=False)
class ListExpr(Expr):
    """[a, b]"""

    items: list[Expr]


@dataclass(slots=True, eq=False, repr=False)
class ListComprehension(Expr):
    """[element for targets in iterable if condition]"""

    element: Expr
    targets: list[str]
    iterable: Expr
    condition: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class DictExpr(Expr):
    """{key: value, ...}"""

    items: list[tuple[Expr, Expr]]


@dataclass(slots=True, eq=False, repr=False)
class DictComprehension(Expr):
    """{key: value for targets in iterable if condition}"""

    key: Expr
    value: Expr
    targets: list[str]
    iterable: Expr
    condition: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class Binary(Expr):
    """left op right"""

    op: str  # + - * / // % @ **
    left: Expr
    right: Expr


@dataclass(slots=True, eq=False, repr=False)
class Unary(Expr):
    """-operand, +operand"""

    op: str  # + -
    operand: Expr


@dataclass(slots=True, eq=False, repr=False)
class Compare(Expr):
    """a < b <= c: operands and the operators between them."""

    operands: list[Expr]
    ops: list[str]  # == != < <= > >= in, "not in"


@dataclass(slots=True, eq=False, repr=False)
class And(Expr):
    """left and right"""

    left: Expr
    right: Expr


@dataclass(slots=True, eq=False, repr=False)
class Or(Expr):
    """left or right"""

    left: Expr
    right: Expr


@dataclass(slots=True, eq=False, repr=False)
class Not(Expr):
    """not operand"""

    operand: Expr


@dataclass(slots=True, eq=False, repr=False)
class Conditional(Expr):
    """then if condition else otherwise"""

    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(slots=True, eq=False, repr=False)
class Attribute(Expr):
    """obj.name"""

    obj: Expr
    name: str


@dataclass(slots=True, eq=False, repr=False)
class Call(Expr):
    """func(args, name=value)"""

    func: Expr
    args: list[Expr]
    kwargs: list[tuple[str, Expr]]


@dataclass(slots=True, eq=False, repr=False)
class Slice(Expr):
    """start:stop:step inside an index; each part may be left out."""

    start: Expr | None
    stop: Expr | None
    step: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class Index(Expr):
    """obj[items]; several items (x[0, 1:]) index several axes."""

    obj: Expr
    items: list[Expr]


# ---- statements --------------------------------------------------------------------------


@dataclass(slots=True, eq=False, repr=False)
class Stmt(Node):
    """Every statement: where it is written."""

    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Assign(Stmt):
    """target = value"""

    target: Expr  # Name, TupleExpr of targets, Index or Attribute
    value: Expr


@dataclass(slots=True, eq=False, repr=False)
class AugAssign(Stmt):
    """target op= value"""

    target: Expr  # Name or Index
    op: str  # + - * / // % ** @
    value: Expr


@dataclass(slots=True, eq=False, repr=False)
class ExprStmt(Stmt):
    """An expression on a line of its own (a call, most often)."""

    expr: Expr


@dataclass(slots=True, eq=False, repr=False)
class Pass(Stmt):
    """pass"""


@dataclass(slots=True, eq=False, repr=False)
class Break(Stmt):
    """break"""


@dataclass(slots=True, eq=False, repr=False)
class Continue(Stmt):
    """continue"""


@dataclass(slots=True, eq=False, repr=False)
class Return(Stmt):
    """return [value]"""

    value: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class Grad(Stmt):
    """grad output [with seed]"""

    output: Expr
    seed: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class Assert(Stmt):
    """assert test[, message]"""

    test: Expr
    message: Expr | None


@dataclass(slots=True, eq=False, repr=False)
class Delete(Stmt):
    """del d[key], items[i]"""

    targets: list[Expr]  # Index nodes


@dataclass(slots=True, eq=False, repr=False)
class ImportedName(Node):
    """A name an import reads, where it is written: a module's (`nn`; as written also `torch.nn`,
    `..nn`, which the resolver refuses with a message) or one a module defines (`linear`)."""

    name: str
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Import(Stmt):
    """import nn, helpers"""

    modules: list[ImportedName]


@dataclass(slots=True, eq=False, repr=False)
class FromImport(Stmt):
    """from nn import linear, layer_norm"""

    module: ImportedName
    names: list[ImportedName]


@dataclass(slots=True, eq=False, repr=False)
class If(Stmt):
    """if/elif chains become a list of (condition, body) branches plus an optional else body."""

    branches: list[tuple[Expr, list[Stmt]]]
    orelse: list[Stmt] | None
    else_line: int | None = None  # the line of `else:`


@dataclass(slots=True, eq=False, repr=False)
class While(Stmt):
    """while condition: body"""

    condition: Expr
    body: list[Stmt]


@dataclass(slots=True, eq=False, repr=False)
class For(Stmt):
    """for targets in iterable: body"""

    targets: list[str]
    iterable: Expr
    body: list[Stmt]


@dataclass(slots=True, eq=False, repr=False)
class Parameter(Node):
    """A parameter of a def: name[=default]."""

    name: str
    default: Expr | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class FunctionDef(Stmt):
    """def name(params): body"""

    name: str
    params: list[Parameter]
    body: list[Stmt]


@dataclass(slots=True, eq=False, repr=False)
class With(Stmt):
    """with context: body"""

    context: Expr
    body: list[Stmt]


@dataclass(slots=True, eq=False, repr=False)
class Module(Node):
    """A whole program (or one REPL cell)."""

    body: list[Stmt]
