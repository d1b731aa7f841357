"""Grammar tests: each construct parses into the AST node a reader would expect, with its span."""

from __future__ import annotations

import pytest

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.semantics import ast_nodes as ast
from dglang.interpreter.syntax.parser import lex, parse


def parse_text(text: str) -> list[ast.Stmt]:
    return parse(Source("<test>", text)).body


def expr(text: str) -> ast.Expr:
    (stmt,) = parse_text(text)
    assert isinstance(stmt, ast.ExprStmt)
    return stmt.expr


def shape(node: object) -> object:
    """A compact, span-free picture of an expression, for comparing trees."""
    match node:
        case ast.Constant(value=v):
            return v
        case ast.Name(name=n):
            return n
        case ast.Binary(op=op, left=l, right=r):
            return (op, shape(l), shape(r))
        case ast.Unary(op=op, operand=o):
            return (f"u{op}", shape(o))
        case ast.Compare(operands=xs, ops=ops):
            return ("cmp", *ops, *[shape(x) for x in xs])
        case ast.And(left=l, right=r):
            return ("and", shape(l), shape(r))
        case ast.Or(left=l, right=r):
            return ("or", shape(l), shape(r))
        case ast.Not(operand=o):
            return ("not", shape(o))
        case ast.Call(func=f, args=args, kwargs=kw):
            return ("call", shape(f), *[shape(a) for a in args], *[(k, shape(v)) for k, v in kw])
        case ast.Attribute(obj=o, name=n):
            return (".", shape(o), n)
        case ast.Index(obj=o, items=items):
            return ("[]", shape(o), *[shape(i) for i in items])
        case ast.Slice(start=a, stop=b, step=c):
            return ("slice", shape(a), shape(b), shape(c))
        case ast.TupleExpr(items=items):
            return ("tuple", *[shape(i) for i in items])
        case ast.ListExpr(items=items):
            return ("list", *[shape(i) for i in items])
        case ast.Conditional(condition=c, then=t, otherwise=o):
            return ("ifexp", shape(c), shape(t), shape(o))
        case None:
            return None
    raise AssertionError(f"no shape for {node!r}")


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("1 + 2 * 3", ("+", 1, ("*", 2, 3))),
        ("(1 + 2) * 3", ("*", ("+", 1, 2), 3)),
        ("1 - 2 - 3", ("-", ("-", 1, 2), 3)),
        ("2 ** 3 ** 2", ("**", 2, ("**", 3, 2))),
        ("-2 ** 2", ("u-", ("**", 2, 2))),
        ("a @ b + c", ("+", ("@", "a", "b"), "c")),
        ("a // b % c", ("%", ("//", "a", "b"), "c")),
        ("not a and b or c", ("or", ("and", ("not", "a"), "b"), "c")),
        ("a < b <= c", ("cmp", "<", "<=", "a", "b", "c")),
        ("a not in b", ("cmp", "not in", "a", "b")),
        ("x + 1 > 0 and y", ("and", ("cmp", ">", ("+", "x", 1), 0), "y")),
        ("a if c else b", ("ifexp", "c", "a", "b")),
        ("f(x, axis=0)", ("call", "f", "x", ("axis", 0))),
        ("x.sum().item()", ("call", (".", ("call", (".", "x", "sum")), "item"))),
        ("x[0]", ("[]", "x", 0)),
        ("x[1:3, ::2]", ("[]", "x", ("slice", 1, 3, None), ("slice", None, None, 2))),
        ("x[:, None]", ("[]", "x", ("slice", None, None, None), None)),
        ("x[-1]", ("[]", "x", ("u-", 1))),
        ("(1,)", ("tuple", 1)),
        ("()", ("tuple",)),
        ("[1, 2,]", ("list", 1, 2)),
        ("[]", ("list",)),
        ("x.grad", (".", "x", "grad")),
        ("1e-3 + 2.5 + .5 + 1_000", ("+", ("+", ("+", 0.001, 2.5), 0.5), 1000)),
        ("True or None", ("or", True, None)),
    ],
)
def test_expressions_follow_python_precedence(text: str, tree: object) -> None:
    assert shape(expr(text)) == tree


def test_integers_stay_integers() -> None:
    assert expr("3").value == 3 and type(expr("3").value) is int  # type: ignore[attr-defined]
    assert type(expr("3.0").value) is float  # type: ignore[attr-defined]


def test_strings_and_escapes() -> None:
    assert expr(r'"a\tb"').value == "a\tb"  # type: ignore[attr-defined]
    assert expr("'it''s'").value == "its"  # type: ignore[attr-defined]
    assert expr("'x' \"y\"").value == "xy"  # type: ignore[attr-defined]


def test_fstring_parts_and_spans() -> None:
    node = expr('f"loss {loss:.4f} at {i}"')
    assert isinstance(node, ast.FString)
    text, loss, middle, i = node.parts
    assert text == "loss " and middle == " at "
    assert isinstance(loss, ast.FormattedValue) and loss.spec == ".4f"
    assert isinstance(loss.expr, ast.Name) and loss.expr.span.column == 9
    assert isinstance(i, ast.FormattedValue) and i.spec == ""


def test_fstring_double_braces_are_literal() -> None:
    assert expr('f"{{x}}"').value == "{x}"  # type: ignore[attr-defined]


def test_spans_point_at_the_construct() -> None:
    node = expr("foo + bar(1)")
    assert (node.span.line, node.span.column, node.span.end_column) == (1, 1, 13)
    call = node.right  # type: ignore[attr-defined]
    assert (call.span.column, call.span.end_column) == (7, 13)


def test_statements() -> None:
    body = parse_text(
        "x = 1\n"
        "a, b = b, a\n"
        "x += 2\n"
        "w[0] = 1\n"
        "x.grad = None\n"
        "pass\n"
        "grad y\n"
        "grad y with s\n"
        "assert x, 'msg'\n"
        "print(x); y = 2\n"
    )
    kinds = [type(s).__name__ for s in body]
    assert kinds == [
        "Assign",
        "Assign",
        "AugAssign",
        "Assign",
        "Assign",
        "Pass",
        "Grad",
        "Grad",
        "Assert",
        "ExprStmt",
        "Assign",
    ]
    assert isinstance(body[1].target, ast.TupleExpr)  # type: ignore[attr-defined]
    assert body[2].op == "+"  # type: ignore[attr-defined]
    assert body[6].seed is None and isinstance(body[7].seed, ast.Name)  # type: ignore[attr-defined]


def test_compound_statements_and_blocks() -> None:
    body = parse_text(
        "def f(x, y=2):\n"
        "    # a comment\n"
        "\n"
        "    if x > 0:\n"
        "        return x\n"
        "    elif x < 0: return -x\n"
        "    else:\n"
        "        pass\n"
        "    while x:\n"
        "        break\n"
        "    for i, v in enumerate(y):\n"
        "        continue\n"
        "with no_grad:\n"
        "    w -= 1\n"
    )
    f, with_ = body
    assert isinstance(f, ast.FunctionDef) and [p.name for p in f.params] == ["x", "y"]
    assert f.params[1].default is not None
    if_, while_, for_ = f.body
    assert isinstance(if_, ast.If) and len(if_.branches) == 2 and if_.orelse is not None
    assert isinstance(while_, ast.While)
    assert isinstance(for_, ast.For) and for_.targets == ["i", "v"]
    assert isinstance(with_, ast.With)


def test_newlines_inside_brackets_continue_the_line() -> None:
    (stmt,) = parse_text("x = f(1,\n      2,\n  3)\n")
    assert shape(stmt.value) == ("call", "f", 1, 2, 3)  # type: ignore[attr-defined]


def test_backslash_continues_a_line() -> None:
    (stmt,) = parse_text("x = 1 + \\\n    2\n")
    assert shape(stmt.value) == ("+", 1, 2)  # type: ignore[attr-defined]


def test_list_comprehension() -> None:
    node = expr("[x * 2 for x in xs if x > 0]")
    assert isinstance(node, ast.ListComprehension) and node.targets == ["x"] and node.condition is not None


def test_keywords_are_names_after_a_dot_and_inside_longer_names() -> None:
    assert shape(expr("x.grad")) == (".", "x", "grad")
    assert shape(expr("gradient(y, x)")) == ("call", "gradient", "y", "x")
    assert shape(expr("width")) == "width"


def test_tokens_include_indent_and_dedent() -> None:
    types = [t.type for t in lex("if x:\n    y = 1\nz = 2\n")]
    assert types == [
        "IF",
        "NAME",
        "COLON",
        "_NEWLINE",
        "_INDENT",
        "NAME",
        "EQUAL",
        "INT",
        "_NEWLINE",
        "_DEDENT",
        "NAME",
        "EQUAL",
        "INT",
        "_NEWLINE",
    ]


def test_file_without_final_newline_and_blank_lines_anywhere() -> None:
    assert len(parse_text("\n\n# only a comment\nx = 1\n\n\ny = 2")) == 2


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        ("if x\n    pass\n", "SyntaxError", 1),
        ("x = (1,\n2\n", "SyntaxError", 1),
        ("def f():\nreturn 1\n", "IndentationError", 2),
        ("f() = 3\n", "SyntaxError", 1),
        ("x = 1\n  y = 2\n", "IndentationError", 2),
        ("print(f'{}')\n", "SyntaxError", 1),
        ("print(f'{x +}')\n", "SyntaxError", 1),
    ],
)
def test_syntax_errors_are_located(text: str, kind: str, line: int) -> None:
    with pytest.raises(DGError) as caught:
        parse_text(text)
    assert caught.value.kind == kind
    assert caught.value.span is not None and caught.value.span.line == line
