"""Parse tree → AST. One method per grammar rule; each builds one node with its source span.

The parser calls these bottom-up (children first), without recursion, so a method's `children`
are already AST nodes, lists, tokens (a token is its text, a str, that also knows where it is),
or None for an optional part that was absent. `meta` is where the rule's text is, for `span()`.
Two parsers call them: lark's, walking its parse tree (parser.py), and the fast parser, straight
from its reductions (fast_parser.py); nothing here depends on which.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span
from dglang.interpreter.library.keyword_help import KEYWORDS, as_a_name
from dglang.interpreter.semantics import ast_nodes as ast

from .string_literals import StringLiterals

# Parses the text of an f-string's {expression}, found at (line, column) of the source.
ParseExpression = Callable[[str, int, int], ast.Expr]
# Where a rule's text or a token is: lark's Meta or Token (line, column, end_line, end_column), or
# the fast parser's offsets. Only span() looks inside.
Meta = Any
Token = str


class ASTBuilder(StringLiterals):
    def __init__(
        self, source: Source, parse_expression: ParseExpression, line_offset: int = 0, column_offset: int = 0
    ) -> None:
        self.source = source
        self.parse_expression = parse_expression  # the parser's, passed in: the parser imports this module
        # For an expression parsed out of an f-string: where its text starts in the program (the
        # lines before it, the columns before it on its first line).
        self.line_offset, self.column_offset = line_offset, column_offset

    def span(self, meta: Meta | Token) -> Span:
        shift = self.column_offset
        return Span(
            self.source,
            meta.line + self.line_offset,
            meta.column + (shift if meta.line == 1 else 0),
            meta.end_line + self.line_offset,
            meta.end_column + (shift if meta.end_line == 1 else 0),
        )

    def error(self, message: str, where: Meta | Token | Span, help: str | None = None) -> DGError:
        span = where if isinstance(where, Span) else self.span(where)
        return DGError("SyntaxError", message, span, help=help)

    # ---- program and blocks -------------------------------------------------------------
    def start(self, meta: Meta, children: list[ast.Stmt]) -> ast.Module:
        return ast.Module(children)

    def suite(self, meta: Meta, children: list[ast.Stmt]) -> list[ast.Stmt]:
        return children

    # ---- simple statements --------------------------------------------------------------
    def assign(self, meta: Meta, children: list[Any]) -> ast.Assign:
        target, value = children
        self.check_target(target, allow_tuple=True)
        return ast.Assign(self.span(meta), target, value)

    def aug_assign(self, meta: Meta, children: list[Any]) -> ast.AugAssign:
        target, op, value = children
        self.check_target(target, allow_tuple=False)
        return ast.AugAssign(self.span(meta), target, str(op)[:-1], value)

    def check_target(self, target: ast.Expr, allow_tuple: bool) -> None:
        if isinstance(target, ast.Name):  # (`else = 3` as a program's first line: lark's lexer reads a word
            self.check_not_keyword(target.name, "a variable name", target.span)  # no statement starts with as a name)
        if isinstance(target, ast.Name | ast.Index | ast.Attribute):
            return
        if isinstance(target, ast.TupleExpr) and allow_tuple:
            for item in target.items:
                self.check_target(item, allow_tuple=False)
            return
        what = {
            ast.Call: "a function call",
            ast.Constant: "a literal",
            ast.Binary: "an expression",
            ast.TupleExpr: "a tuple here",
        }.get(type(target), "this")
        raise self.error(
            f"cannot assign to {what}",
            target.span,
            help="the left of '=' must be a name, an indexed item (x[0]) or a tuple of names",
        )

    def expr_stmt(self, meta: Meta, children: list[Any]) -> ast.ExprStmt:
        return ast.ExprStmt(self.span(meta), children[0])

    def pass_stmt(self, meta: Meta, children: list[Any]) -> ast.Pass:
        return ast.Pass(self.span(meta))

    def break_stmt(self, meta: Meta, children: list[Any]) -> ast.Break:
        return ast.Break(self.span(meta))

    def continue_stmt(self, meta: Meta, children: list[Any]) -> ast.Continue:
        return ast.Continue(self.span(meta))

    def return_stmt(self, meta: Meta, children: list[Any]) -> ast.Return:
        return ast.Return(self.span(meta), children[1])

    def grad_stmt(self, meta: Meta, children: list[Any]) -> ast.Grad:
        _, output, _, seed = children
        return ast.Grad(self.span(meta), output, seed)

    def assert_stmt(self, meta: Meta, children: list[Any]) -> ast.Assert:
        _, test, _, message = children
        return ast.Assert(self.span(meta), test, message)

    def del_stmt(self, meta: Meta, children: list[Any]) -> ast.Delete:
        (target,) = children
        targets = target.items if isinstance(target, ast.TupleExpr) else [target]
        for item in targets:
            if not isinstance(item, ast.Index):
                raise self.error(
                    "del removes an item: a key of a dict or a position of a list",
                    item.span,
                    help="write `del scores[key]` or `del items[i]`; a name is given a new value by assigning to it",
                )
        return ast.Delete(self.span(meta), targets)

    def import_stmt(self, meta: Meta, children: list[ast.ImportedName]) -> ast.Import:
        self.refuse_keywords(children, "a module's name")  # `import grad` would bind the keyword
        return ast.Import(self.span(meta), children)

    def from_import(self, meta: Meta, children: list[Any]) -> ast.FromImport:
        self.refuse_keywords(children[1], "an imported name")
        module, names = children
        self.check_unique([n.name for n in names], names, "imported name")
        return ast.FromImport(self.span(meta), module, names)

    def imported_names(self, meta: Meta, children: list[Token | None]) -> list[ast.ImportedName]:
        return [ast.ImportedName(str(t), self.span(t)) for t in children if t is not None]

    def module_name(self, meta: Meta, children: list[Token]) -> ast.ImportedName:
        return ast.ImportedName("".join(str(t) for t in children), self.span(meta))

    # ---- compound statements ----------------------------------------------------------
    def if_stmt(self, meta: Meta, children: list[Any]) -> ast.If:
        condition, body, *elifs, orelse = children
        else_line, else_body = orelse if orelse is not None else (None, None)
        return ast.If(self.span(meta), [(condition, body), *elifs], else_body, else_line)

    def else_clause(self, meta: Meta, children: list[Any]) -> tuple[int, list[ast.Stmt]]:
        keyword, _, body = children
        return self.span(keyword).line, body

    def elif_clause(self, meta: Meta, children: list[Any]) -> tuple[ast.Expr, list[ast.Stmt]]:
        return children[0], children[1]

    def while_stmt(self, meta: Meta, children: list[Any]) -> ast.While:
        return ast.While(self.span(meta), children[0], children[1])

    def for_stmt(self, meta: Meta, children: list[Any]) -> ast.For:
        targets, iterable, body = children
        return ast.For(self.span(meta), targets, iterable, body)

    def for_target(self, meta: Meta, children: list[Any]) -> list[str]:
        for t in children:
            self.check_not_keyword(t, "a loop variable")
        names = [str(t) for t in children if t is not None]
        self.check_unique(names, children, "loop variable")
        return names

    def funcdef(self, meta: Meta, children: list[Any]) -> ast.FunctionDef:
        name, params, body = children
        self.check_not_keyword(name, "a function name")
        return ast.FunctionDef(self.span(meta), str(name), params or [], body)

    def parameters(self, meta: Meta, children: list[Any]) -> list[ast.Parameter]:
        params = [p for p in children if p is not None]
        self.check_unique([p.name for p in params], params, "parameter")
        seen_default = False
        for p in params:
            if p.default is not None:
                seen_default = True
            elif seen_default:
                raise self.error(f"parameter '{p.name}' without a default follows one with a default", p.span)
        return params

    def parameter(self, meta: Meta, children: list[Any]) -> ast.Parameter:
        name, default = children
        self.check_not_keyword(name, "a parameter name")
        return ast.Parameter(str(name), default, self.span(name))

    def with_stmt(self, meta: Meta, children: list[Any]) -> ast.With:
        return ast.With(self.span(meta), children[0], children[1])

    def check_not_keyword(self, name: Token | str | None, what: str, where: Span | None = None) -> None:
        """`def grad(f):`, `for if in xs:`: where only a name may come (after `def` or `for`, in a
        parameter list), the parser reads any word as one, so a keyword is refused here, as it is
        on the left of `=` (syntax_errors.py)."""
        if name is not None and str(name) in KEYWORDS:
            at = where or name
            raise self.error(f"'{name}' is a keyword and cannot be {what}", at, help=as_a_name(str(name)))

    def refuse_keywords(self, names: list[ast.ImportedName], what: str) -> None:
        """The names an import binds, as check_not_keyword's (`import grad`, `from nn import if`)."""
        for imported in names:
            if imported.name in KEYWORDS:
                message = f"'{imported.name}' is a keyword and cannot be {what}"
                raise self.error(message, imported.span, help=as_a_name(imported.name))

    def check_unique(self, names: list[str], items: list[Any], what: str) -> None:
        seen: set[str] = set()
        for name, item in zip(names, items, strict=False):
            if name in seen:
                where = item.span if hasattr(item, "span") else item
                raise self.error(f"{what} '{name}' appears twice", where)
            seen.add(name)

    # ---- expressions ----------------------------------------------------------------------
    def tuple(self, meta: Meta, children: list[Any]) -> ast.TupleExpr:
        return ast.TupleExpr(self.span(meta), [c for c in children if c is not None])

    def list(self, meta: Meta, children: list[Any]) -> ast.ListExpr:
        return ast.ListExpr(self.span(meta), [c for c in children if c is not None])

    def list_comprehension(self, meta: Meta, children: list[Any]) -> ast.ListComprehension:
        element, targets, iterable, condition = children
        return ast.ListComprehension(self.span(meta), element, targets, iterable, condition)

    def dict(self, meta: Meta, children: list[Any]) -> ast.DictExpr:
        return ast.DictExpr(self.span(meta), [c for c in children if c is not None])

    def dict_item(self, meta: Meta, children: list[Any]) -> tuple[ast.Expr, ast.Expr]:
        key, value = children
        return key, value

    def dict_comprehension(self, meta: Meta, children: list[Any]) -> ast.DictComprehension:
        (key, value), targets, iterable, condition = children
        return ast.DictComprehension(self.span(meta), key, value, targets, iterable, condition)

    def conditional(self, meta: Meta, children: list[Any]) -> ast.Conditional:
        then, condition, otherwise = children
        return ast.Conditional(self.span(meta), condition, then, otherwise)

    def or_op(self, meta: Meta, children: list[Any]) -> ast.Or:
        return ast.Or(self.span(meta), children[0], children[1])

    def and_op(self, meta: Meta, children: list[Any]) -> ast.And:
        return ast.And(self.span(meta), children[0], children[1])

    def not_op(self, meta: Meta, children: list[Any]) -> ast.Not:
        return ast.Not(self.span(meta), children[0])

    def compare(self, meta: Meta, children: list[Any]) -> ast.Compare:
        operands, ops = [children[0]], []
        items = iter(children[1:])
        for item in items:
            op = str(item)
            if op == "not":  # "not" "in" arrive as two tokens
                next(items)
                op = "not in"
            ops.append(op)
            operands.append(next(items))
        return ast.Compare(self.span(meta), operands, ops)

    def binary(self, meta: Meta, children: list[Any]) -> ast.Binary:
        left, op, right = children
        return ast.Binary(self.span(meta), str(op), left, right)

    def unary(self, meta: Meta, children: list[Any]) -> ast.Unary:
        op, operand = children
        return ast.Unary(self.span(meta), str(op), operand)

    def attribute(self, meta: Meta, children: list[Any]) -> ast.Attribute:
        obj, name = children
        return ast.Attribute(self.span(meta), obj, str(name))

    def call(self, meta: Meta, children: list[Any]) -> ast.Call:
        func, arguments = children
        args: list[ast.Expr] = []
        kwargs: list[tuple[str, ast.Expr]] = []
        for arg in arguments or []:
            if isinstance(arg, ast.Expr):
                if kwargs:
                    raise self.error("a positional argument cannot follow a keyword argument", arg.span)
                args.append(arg)
            else:
                name, value, span = arg
                if any(name == k for k, _ in kwargs):
                    raise self.error(f"keyword argument '{name}' is given twice", span)
                kwargs.append((name, value))
        return ast.Call(self.span(meta), func, args, kwargs)

    def arguments(self, meta: Meta, children: list[Any]) -> list[Any]:
        return [c for c in children if c is not None]

    def keyword(self, meta: Meta, children: list[Any]) -> tuple[str, ast.Expr, Span]:
        name, value = children
        self.check_not_keyword(name, "an argument name")
        return str(name), value, self.span(meta)

    def index(self, meta: Meta, children: list[Any]) -> ast.Index:
        obj, items = children
        return ast.Index(self.span(meta), obj, items)

    def subscripts(self, meta: Meta, children: list[Any]) -> list[ast.Expr]:
        return [c for c in children if c is not None]

    def slice(self, meta: Meta, children: list[Any]) -> ast.Slice:
        start, stop, step = children
        return ast.Slice(self.span(meta), start, stop, step)

    # ---- atoms ----------------------------------------------------------------------------
    def name(self, meta: Meta, children: list[Token]) -> ast.Name:
        return ast.Name(self.span(meta), str(children[0]))

    def int(self, meta: Meta, children: list[Token]) -> ast.Constant:
        return ast.Constant(self.span(meta), int(children[0].replace("_", "")))

    def float(self, meta: Meta, children: list[Token]) -> ast.Constant:
        return ast.Constant(self.span(meta), float(children[0].replace("_", "")))

    def true(self, meta: Meta, children: list[Any]) -> ast.Constant:
        return ast.Constant(self.span(meta), True)

    def false(self, meta: Meta, children: list[Any]) -> ast.Constant:
        return ast.Constant(self.span(meta), False)

    def none(self, meta: Meta, children: list[Any]) -> ast.Constant:
        return ast.Constant(self.span(meta), None)
