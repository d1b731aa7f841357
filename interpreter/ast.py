"""The abstract syntax tree: one small dataclass per construct, each carrying its source span.

The parse tree lark builds mirrors the grammar (tokens, helper rules); this tree mirrors the
language: `Binary('+', left, right)` whatever the precedence rules took to parse it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .source import Span

# ---- expressions -------------------------------------------------------------------------


@dataclass(slots=True)
class Expr:
    span: Span


@dataclass(slots=True)
class Constant(Expr):
    """A number, string, True, False or None written in the program."""

    value: Any


@dataclass(slots=True)
class FString(Expr):
    """f"loss {loss:.4f}": literal text and formatted expressions, in order."""

    parts: list[str | FormattedValue]


@dataclass(slots=True)
class FormattedValue:
    expr: Expr
    spec: str


@dataclass(slots=True)
class Name(Expr):
    name: str


@dataclass(slots=True)
class TupleExpr(Expr):
    items: list[Expr]


@dataclass(slots=True)
class ListExpr(Expr):
    items: list[Expr]


@dataclass(slots=True)
class ListComprehension(Expr):
    """[element for targets in iterable if condition]"""

    element: Expr
    targets: list[str]
    iterable: Expr
    condition: Expr | None


@dataclass(slots=True)
class Binary(Expr):
    op: str  # + - * / // % @ **
    left: Expr
    right: Expr


@dataclass(slots=True)
class Unary(Expr):
    op: str  # + -
    operand: Expr


@dataclass(slots=True)
class Compare(Expr):
    """a < b <= c: operands and the operators between them."""

    operands: list[Expr]
    ops: list[str]  # == != < <= > >= in, "not in"


@dataclass(slots=True)
class And(Expr):
    left: Expr
    right: Expr


@dataclass(slots=True)
class Or(Expr):
    left: Expr
    right: Expr


@dataclass(slots=True)
class Not(Expr):
    operand: Expr


@dataclass(slots=True)
class Conditional(Expr):
    """then if condition else otherwise"""

    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(slots=True)
class Attribute(Expr):
    obj: Expr
    name: str


@dataclass(slots=True)
class Call(Expr):
    func: Expr
    args: list[Expr]
    kwargs: list[tuple[str, Expr]]


@dataclass(slots=True)
class Slice(Expr):
    start: Expr | None
    stop: Expr | None
    step: Expr | None


@dataclass(slots=True)
class Index(Expr):
    """obj[items]; several items (x[0, 1:]) index several axes."""

    obj: Expr
    items: list[Expr]


# ---- statements --------------------------------------------------------------------------


@dataclass(slots=True)
class Stmt:
    span: Span


@dataclass(slots=True)
class Assign(Stmt):
    target: Expr  # Name, TupleExpr of targets, Index or Attribute
    value: Expr


@dataclass(slots=True)
class AugAssign(Stmt):
    target: Expr  # Name or Index
    op: str  # + - * / // % ** @
    value: Expr


@dataclass(slots=True)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(slots=True)
class Pass(Stmt):
    pass


@dataclass(slots=True)
class Break(Stmt):
    pass


@dataclass(slots=True)
class Continue(Stmt):
    pass


@dataclass(slots=True)
class Return(Stmt):
    value: Expr | None


@dataclass(slots=True)
class Grad(Stmt):
    """grad output [with seed]"""

    output: Expr
    seed: Expr | None


@dataclass(slots=True)
class Assert(Stmt):
    test: Expr
    message: Expr | None


@dataclass(slots=True)
class If(Stmt):
    """if/elif chains become a list of (condition, body) branches plus an optional else body."""

    branches: list[tuple[Expr, list[Stmt]]]
    orelse: list[Stmt] | None
    else_line: int | None = None  # the line of `else:`


@dataclass(slots=True)
class While(Stmt):
    condition: Expr
    body: list[Stmt]


@dataclass(slots=True)
class For(Stmt):
    targets: list[str]
    iterable: Expr
    body: list[Stmt]


@dataclass(slots=True)
class Parameter:
    name: str
    default: Expr | None
    span: Span


@dataclass(slots=True)
class FunctionDef(Stmt):
    name: str
    params: list[Parameter]
    body: list[Stmt]


@dataclass(slots=True)
class With(Stmt):
    context: Expr
    body: list[Stmt]


@dataclass(slots=True)
class Module:
    """A whole program (or one REPL cell)."""

    body: list[Stmt]
