"""Text → AST: lark's LALR parser over grammar/dg.lark, with syntax errors a student can act on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Token, Tree, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, PythonIndenter
from lark.lexer import PatternStr

from . import ast
from .errors import DGError
from .source import Source, Span

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "dg.lark"

CLOSING = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
CLOSING_TEXT = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
# How a token type reads in a message; keywords and punctuation read as themselves, quoted.
FOUND = {
    "STRING": "string",
    "_NEWLINE": "end of line",
    "_INDENT": "indent",
    "_DEDENT": "end of block",
    "$END": "end of input",
}
EXPECTED = {
    "NAME": "a name",
    "INT": "a number",
    "FLOAT": "a number",
    "STRING": "a string",
    "_NEWLINE": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "$END": "the end of the input",
}
# Tokens that can start an expression: when all are expected, we say "an expression".
EXPRESSION_STARTS = {"NAME", "INT", "FLOAT", "STRING", "LPAR", "LSQB", "MINUS"}


class SyntaxProblem(Exception):
    """Raised inside the post-lexer, where there is no Source yet; parse() turns it into a DGError."""

    def __init__(self, kind: str, message: str, line: int, column: int, end_column: int, help: str | None = None):
        super().__init__(message)
        self.kind, self.message, self.help = kind, message, help
        self.line, self.column, self.end_column = line, column, end_column


class Indenter(PythonIndenter):
    """lark's PythonIndenter, plus bracket matching and located indentation errors."""

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.open_brackets: list[Token] = []
        return super().process(self._match_brackets(stream))

    def _match_brackets(self, stream: Iterator[Token]) -> Iterator[Token]:
        for token in stream:
            if token.type in CLOSING:
                self.open_brackets.append(token)
            elif token.type in CLOSING.values():
                if not self.open_brackets:
                    raise SyntaxProblem(
                        "SyntaxError", f"unmatched '{token}'", token.line, token.column, token.column + 1
                    )
                opener = self.open_brackets.pop()
                if CLOSING[opener.type] != token.type:
                    raise SyntaxProblem(
                        "SyntaxError",
                        f"'{token}' does not match '{opener}' opened on line {opener.line}",
                        token.line,
                        token.column,
                        token.column + 1,
                    )
            yield token

    def handle_NL(self, token: Token) -> Iterator[Token]:
        try:
            yield from super().handle_NL(token)
        except DedentError:
            indent = token.rsplit("\n", 1)[1]
            raise SyntaxProblem(
                "IndentationError",
                "this line's indentation does not match any enclosing block",
                token.end_line,
                1,
                len(indent) + 1,
                help="indent it exactly as far as the block it belongs to",
            ) from None


_indenter = Indenter()
_lark = Lark.open(
    str(GRAMMAR),
    parser="lalr",
    postlex=_indenter,
    propagate_positions=True,
    maybe_placeholders=True,
    start=["start", "test"],
    cache=True,
)


def parse(source: Source) -> ast.Module:
    """Parse a whole program (or REPL cell) into an AST, or raise a located SyntaxError."""
    from .build_ast import ASTBuilder

    text = source.text if source.text.endswith("\n") else source.text + "\n"
    try:
        tree = _lark.parse(text, start="start")
    except (UnexpectedInput, SyntaxProblem) as e:
        raise syntax_error(e, source) from None
    try:
        return build(ASTBuilder(source), tree)
    except RecursionError:
        raise too_deeply_nested(tree, source) from None


def parse_tree(source: Source) -> Tree:
    """lark's parse tree of a program already known to parse."""
    return _lark.parse(source.text if source.text.endswith("\n") else source.text + "\n", start="start")


def build(builder: object, tree: object) -> ast.Module:
    """Run the AST builder over a parse tree (its rule methods raise located DGErrors)."""
    return builder.transform(tree)  # type: ignore[attr-defined]


def too_deeply_nested(tree: Tree, source: Source) -> DGError:
    """The error for a program nested deeper than the (recursive) AST builder and compiler can go:
    10,000 unary minuses, a sum of 100,000 terms, 1,000 nested blocks. Located at the deepest point,
    found by a walk that needs no recursion itself."""
    deepest, where = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest and getattr(node.meta, "line", None) is not None:
            deepest, where = depth, node
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    line, column = getattr(where.meta, "line", 1), getattr(where.meta, "column", 1)
    return DGError(
        "SyntaxError",
        "this is nested too deeply for DG",
        _point(source, line, column),
        help="DG can follow a few hundred levels of nested brackets, operators and blocks; "
        "split this into smaller expressions, variables or functions",
    )


def parse_expression(text: str, source: Source, line: int, column: int) -> ast.Expr:
    """Parse an expression embedded in a line (an f-string's {...}) so its spans land where it is."""
    from .build_ast import ASTBuilder

    try:
        tree = _lark.parse(" " * (column - 1) + text, start="test")
    except (UnexpectedInput, SyntaxProblem) as e:
        error = syntax_error(e, source, parsed=" " * (column - 1) + text)
        if error.message == "unexpected character '!'":
            error.message, error.help = "f-string conversions such as '!r' are not supported", "write {x} or {x:.3f}"
        if error.span is not None:
            s = error.span
            error.span = Span(source, line, s.column, line, s.end_column)
        raise error from None
    return build(ASTBuilder(source, line_offset=line - 1), tree)  # type: ignore[return-value]


def lex(text: str) -> list[Token]:
    """The token stream the parser sees, INDENT/DEDENT included (for `dg parse --tokens`)."""
    return list(tokens(text))


def tokens(text: str) -> Iterator[Token]:
    """The same stream, one token at a time (a lexing error arrives after the tokens before it)."""
    text = text if text.endswith("\n") else text + "\n"
    return _lark.lex(text, dont_ignore=False)


def keywords() -> list[str]:
    """The grammar's keywords (`if`, `grad`, `True`, ...), read from the grammar itself."""
    literals = [t.pattern.value for t in _lark.terminals if isinstance(t.pattern, PatternStr)]
    return sorted(word for word in literals if word.isidentifier())


def interactive(text: str):
    """An interactive parser fed with `text`, for deciding whether REPL input is complete."""
    return _lark.parse_interactive(text, start="start")


# ---- syntax errors --------------------------------------------------------------------------
def syntax_error(e: Exception, source: Source, parsed: str | None = None) -> DGError:
    """Turn lark's parse failure into one DG error with a message a student can act on.

    `parsed` is the text lark saw, when that was not the whole source (an f-string's expression)."""
    if isinstance(e, SyntaxProblem):
        span = Span(source, e.line, e.column, e.line, e.end_column)
        return DGError(e.kind, e.message, span, help=e.help)
    if isinstance(e, UnexpectedCharacters):
        seen = source.text if parsed is None else parsed
        char = seen[e.pos_in_stream] if e.pos_in_stream < len(seen) else "?"
        message = f"unexpected character {char!r}"
        help = None
        if char in "\"'":
            message, help = "this string is never closed", "close it with a matching quote on the same line"
        elif char == "!":
            help = "DG writes 'not x' and 'a != b'"
        return DGError("SyntaxError", message, _point(source, e.line, e.column), help=help)
    assert isinstance(e, UnexpectedToken)
    return _unexpected_token(e, source)


def _point(source: Source, line: int, column: int, width: int = 1) -> Span:
    return Span(source, line, column, line, column + width)


def _unexpected_token(e: UnexpectedToken, source: Source) -> DGError:
    token, expected = e.token, _expected(e)
    kind = token.type
    opener = _indenter.open_brackets[-1] if _indenter.open_brackets else None
    if opener is not None and (kind == "$END" or token.line != opener.line):
        # Newlines inside brackets are ignored, so a missing ')' shows up lines later: blame the '('.
        return DGError(
            "SyntaxError",
            f"'{opener}' was never closed",
            _point(source, opener.line, opener.column),
            help=f"close it with '{CLOSING_TEXT[opener.type]}'",
        )
    line, column = _position(token, source)
    span = _point(source, line, column, max(1, len(str(token))) if kind not in FOUND else 1)
    if kind == "_INDENT":
        line = token.end_line
        statement = source.line(line)
        return DGError(
            "IndentationError",
            "unexpected indent",
            Span(source, line, len(token) + 1, line, len(statement.rstrip()) + 1),
            help="this line is indented more than the one above, but does not start a block",
        )
    if expected == {"_INDENT"}:
        header = line if kind == "$END" else e.token_history[-1].line if e.token_history else line - 1
        return DGError(
            "IndentationError",
            f"expected an indented block after the ':' on line {header}",
            _point(source, line, column),
            help="indent the lines that belong to the block",
        )
    if kind == "EQUAL" and "COLON" in expected:
        return DGError(
            "SyntaxError", "'=' assigns; a condition compares with '=='", span, help="write '==' to test equality"
        )
    if kind == "EQUAL" and e.interactive_parser is not None:
        keyword = _keyword_before(e)
        if keyword:
            return DGError("SyntaxError", f"'{keyword}' is a keyword and cannot be a variable name", span)
    if expected == {"COLON"} or ("COLON" in expected and kind in ("_NEWLINE", "$END")):
        return DGError(
            "SyntaxError",
            "expected ':' at the end of this line",
            span,
            help="if, elif, else, while, for, def and with lines end in ':'",
        )
    if kind in ("ELSE", "ELIF"):
        return DGError(
            "SyntaxError",
            f"'{token}' without a matching 'if' above it",
            span,
            help="check that it is indented like its 'if'",
        )
    message = f"unexpected {_describe_token(token)}"
    wanted = _describe_expected(expected)
    if wanted:
        message += f"; expected {wanted}"
    return DGError("SyntaxError", message, span)


def _expected(e: UnexpectedToken) -> set[str]:
    """What the parser could accept here. When the lexer raises the error it only knows what it can
    lex in this state, so ask the parser's table instead (it knows an _INDENT was due)."""
    try:
        state = e.state
        return set(state.parse_conf.parse_table.states[state.position].keys())
    except AttributeError:
        return set(e.expected)


def _position(token: Token, source: Source) -> tuple[int, int]:
    """Where to put the caret: at the token, or for end of input, just after the last character."""
    if token.type == "$END" or token.line is None:
        lines = source.text.rstrip("\n").splitlines() or [""]
        return len(lines), len(lines[-1]) + 1
    return token.line, token.column


def _keyword_before(e: UnexpectedToken) -> str | None:
    """The keyword just before an unexpected '=' (as in `grad = 1`), if that is what it was."""
    try:
        stack = e.interactive_parser.parser_state.value_stack
    except AttributeError:
        return None
    last = stack[-1] if stack else None
    if isinstance(last, Token) and last.type != "NAME" and last.isidentifier():
        return str(last)
    return None


def _describe_token(token: Token) -> str:
    if token.type == "NAME":
        return f"name '{token}'"
    if token.type in ("INT", "FLOAT"):
        return f"number {token}"
    return FOUND.get(token.type, f"'{token}'")


def _describe_expected(expected: set[str]) -> str:
    words: list[str] = []
    if expected >= EXPRESSION_STARTS:
        words.append("an expression")
        expected = expected - EXPRESSION_STARTS - {"PLUS", "NOT", "TRUE", "FALSE", "NONE"}
    for name in sorted(expected):
        if name in EXPECTED:
            words.append(EXPECTED[name])
            continue
        try:
            pattern = _lark.get_terminal(name).pattern
        except KeyError:
            continue
        if isinstance(pattern, PatternStr):
            words.append(f"'{pattern.value}'")
    words = list(dict.fromkeys(words))
    if not words or len(words) > 6:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
