"""Syntax errors a student can act on: lark's parse failures turned into one DG error each.

What DG knows about syntax errors is mostly data, as in lark's own examples: each message below
comes with a few inputs that go wrong the way it describes, and lark's `match_examples` picks the
message whose examples failed where the program failed. A few mistakes are found by a check
instead, because a position gives them away rather than the parser's state: a bracket opened
lines earlier, a line indented too far, a string with no closing quote, a keyword where a name
should be, an `else` with no `if`. Anything else gets "unexpected X; expected Y", from what the
parser would have accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from lark import LarkError, Token, UnexpectedCharacters, UnexpectedToken

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source, Span, split_lines
from dglang.interpreter.library.keyword_help import as_a_name
from dglang.interpreter.semantics.hints import python_module

from .grammar import LARK, accepted, literal, tokens_before
from .indenter import CLOSING_TEXT, PAIRS, SyntaxProblem, open_brackets, with_newline


@dataclass(frozen=True)
class Message:
    """What a syntax error says, and the help line when the fix is known."""

    text: str
    help: str | None = None
    kind: str = "SyntaxError"


# ---- messages known by example ------------------------------------------------------------
# For each message, inputs that fail the way it describes. match_examples compares the program's
# failure with each example's: the same state if the parser would have accepted the same tokens
# there, and among those, an example that failed on the same token wins. "expected ':'" and
# "'=' assigns" share a state (a header before its ':'): '=' there gets the second message, any
# other token the first, since the message listed first for a state is the fallback.
# tests/language/test_syntax_errors.py checks that every example fails as its message says.
EXPECTED_COLON = Message(
    "expected ':' at the end of this line", help="if, elif, else, while, for, def and with lines end in ':'"
)
ASSIGN_IN_CONDITION = Message("'=' assigns; a condition compares with '=='", help="write '==' to test equality")
EXPECTED_BLOCK = Message(
    "expected an indented block after the ':' on line {colon_line}",
    help="indent the lines that belong to the block",
    kind="IndentationError",  # about where a line starts, so its caret is one character wide
)

NO_SETS = Message(
    "DG has no sets; a dict is written {key: value, ...}", help="for a collection of values, use a list: [1, 2, 3]"
)
IMPORT_STAR = Message("import names one by one", help="name what the program uses: from nn import linear, layer_norm")

EXAMPLES: dict[Message, list[str]] = {
    EXPECTED_COLON: [
        "if x\n    pass\n",
        "while x\n",
        "for i in range(3)\n",
        "def f()\n",
        "with no_grad\n",
        "if x:\n    pass\nelse\n",
    ],
    ASSIGN_IN_CONDITION: [
        "if x = 1:\n",
        "while i = 0:\n",
    ],
    EXPECTED_BLOCK: [
        "def f():\nreturn 1\n",
        "if x:\n",
    ],
    IMPORT_STAR: [
        "from nn import *\n",
    ],
}

# Python statements DG does not have, found by the word that starts them (a name to the parser,
# followed by something no name may be followed by: `import numpy`, `class Net:`).
PYTHON_ONLY = {
    "class": Message("DG has no classes", help="keep parameters in variables or lists, and write functions with def"),
    "lambda": Message("DG has no lambda", help="define the function with def"),
    "try": Message("DG has no try", help="an error stops the program with its location; check values with assert"),
    "global": Message("DG has no global", help="return the new value from the function instead"),
}

# A character the lexer cannot start a token with, and what to say about it.
CHARACTERS = {
    '"': Message("this string is never closed", help="close it with a matching quote on the same line"),
    "'": Message("this string is never closed", help="close it with a matching quote on the same line"),
    "!": Message("unexpected character '!'", help="DG writes 'not x' and 'a != b'"),
}
# ... and inside an f-string's {expression}.
FSTRING_CHARACTERS = {
    "!": Message("f-string conversions such as '!r' are not supported", help="write {x} or {x:.3f}"),
}

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
EXPRESSION_STARTS = {"NAME", "INT", "FLOAT", "STRING", "LPAR", "LSQB", "LBRACE", "MINUS"}


# ---- from lark's exception to a DG error ---------------------------------------------------
def syntax_error(
    e: Exception, source: Source, parsed: str | None = None, in_fstring: bool = False, statement: Token | None = None
) -> DGError:
    """Turn lark's parse failure into one DG error with a message a student can act on.

    `parsed` is the text lark saw, when that was not the whole source (an f-string's expression).
    `statement` is the first token of the statement that failed, when the text before it is to be
    read as blank (recovery.py: the error as if the mistakes before it were fixed)."""
    if isinstance(e, SyntaxProblem):
        span = Span(source, e.line, e.column, e.line, e.end_column)
        return DGError(e.kind, e.message, span, help=e.help)
    if isinstance(e, UnexpectedCharacters):
        message = (FSTRING_CHARACTERS if in_fstring else {}).get(e.char) or CHARACTERS.get(e.char)
        message = message or Message(f"unexpected character {e.char!r}")
        return DGError(message.kind, message.text, _point(source, e.line, e.column), help=message.help)
    assert isinstance(e, UnexpectedToken)
    failure = Failure(e, source, with_newline(source.text if parsed is None else parsed), statement)
    # The first check that recognises the failure names it; the order settles overlaps.
    return (
        _unclosed_bracket(failure)
        or _unexpected_indent(failure)
        or _python_only(failure)
        or _import_as(failure)
        or _set_display(failure)
        or _keyword_in_help(failure)
        or _known_by_example(failure)
        or _keyword_as_name(failure)
        or _else_without_if(failure)
        or _unexpected(failure)
    )


class Failure:
    """A token the parser could not take, and what the checks ask about it."""

    def __init__(self, e: UnexpectedToken, source: Source, text: str, statement: Token | None = None) -> None:
        self.error, self.source, self.text, self.token, self.statement = e, source, text, e.token, statement

    @cached_property
    def accepts(self) -> frozenset[str]:
        """The token types the parser would have taken instead."""
        parser = self.error.interactive_parser
        return accepted(parser) if parser is not None else frozenset(self.error.expected)

    @cached_property
    def line_and_column(self) -> tuple[int, int]:
        """Where the caret goes: at the token, or for end of input just after the last character."""
        if self.token.type == "$END" or self.token.line is None:
            # (after the last line with something on it: a line of spaces, a REPL's automatic indent, shows nothing)
            lines = split_lines(self.text.rstrip()) or [""]  # (an f-string's: its expression)
            return len(lines), len(lines[-1]) + 1
        return self.token.line, self.token.column

    @property
    def span(self) -> Span:
        """The token underlined (a newline, an indent or the end of input: one caret)."""
        width = 1 if self.token.type in FOUND else max(1, len(self.token))
        return _point(self.source, *self.line_and_column, width)

    @cached_property
    def tokens_before(self) -> list[Token]:
        """The program's tokens before the failing one (all of them, when the input ended too soon),
        from its statement's first when that is known."""
        return tokens_before(self.text, self.token, self.statement)


# ---- the checks, in the order they are tried ------------------------------------------------
def _unclosed_bracket(failure: Failure) -> DGError | None:
    """Newlines inside brackets are ignored, so a missing ')' shows up lines later: blame the '('.
    That is the innermost bracket still open, if the failing token does not close it and it was
    opened on an earlier line."""
    brackets = open_brackets(failure.tokens_before)
    if not brackets or PAIRS[brackets[-1].type] == failure.token.type:
        return None
    opener = brackets[-1]
    if failure.token.type != "$END" and failure.token.line == opener.line:
        return None
    return DGError(
        "SyntaxError",
        f"'{opener}' was never closed",
        _point(failure.source, opener.line, opener.column),
        help=f"close it with '{CLOSING_TEXT[opener.type]}'",
    )


def _unexpected_indent(failure: Failure) -> DGError | None:
    token = failure.token
    if token.type != "_INDENT":
        return None
    line = token.end_line
    return DGError(
        "IndentationError",
        "unexpected indent",
        Span(failure.source, line, len(token) + 1, line, len(failure.source.line(line).rstrip()) + 1),
        help="this line is indented more than the one above, but does not start a block",
    )


def _python_only(failure: Failure) -> DGError | None:
    """`import numpy`: the name before the failing token is a Python keyword DG does not have."""
    before = failure.tokens_before[-1] if failure.tokens_before else None
    if before is None or before.type != "NAME" or str(before) not in PYTHON_ONLY:
        return None
    message = PYTHON_ONLY[str(before)]
    return DGError(
        message.kind, message.text, _point(failure.source, before.line, before.column, len(before)), help=message.help
    )


def _import_as(failure: Failure) -> DGError | None:
    """`import numpy as np`: DG imports a module by its own name; and numpy is not one."""
    token, statement = failure.token, []
    for before in reversed(failure.tokens_before):  # the statement the failing token is in
        if before.type in ("SEMICOLON", "_NEWLINE", "_INDENT", "_DEDENT"):
            break
        statement.insert(0, before)
    if str(token) != "as" or not statement or statement[0].type not in ("IMPORT", "FROM"):
        return None
    words = [t for t in statement[1:] if t.type in ("NAME", "DOT")]
    names = words[: next((i for i, t in enumerate(statement[1:]) if t.type == "IMPORT"), len(words))]
    module = "".join(str(t) for t in names)
    help = python_module(module)
    if help is not None and names:
        first, last = names[0], names[-1]
        span = Span(failure.source, first.line, first.column, last.end_line, last.end_column)
        return DGError("ImportError", f"no module named '{module}' in DG", span, help=help)
    return DGError(
        "SyntaxError",
        "DG has no `import ... as ...`",
        failure.span,
        help="import a module by its own name (import nn, then nn.linear(x)), or take its names: from nn import linear",
    )


def _set_display(failure: Failure) -> DGError | None:
    """`{1, 2}`, `{"a" 1}`: in braces, where the parser wanted the ':' after a key (in the same state
    as after `if x`, where its message would say a header's ':' is missing)."""
    brackets = open_brackets(failure.tokens_before)
    if not brackets or brackets[-1].type != "LBRACE" or "COLON" not in failure.accepts:
        return None
    opener = brackets[-1]
    inside = [t for t in failure.tokens_before if t.start_pos > opener.start_pos]
    if failure.token.type in ("COMMA", "RBRACE") and not any(t.type == "COLON" for t in inside):
        return DGError("SyntaxError", NO_SETS.text, failure.span, help=NO_SETS.help)
    return DGError(
        "SyntaxError", "expected ':' between a key and its value", failure.span, help='write {"w": w, "b": b}'
    )


def _keyword_in_help(failure: Failure) -> DGError | None:
    """`help(not)`: a keyword is not a value, but its name in quotes is. (Most keywords there read
    as names, and fail as unknown names: hints.unknown_name says the same.)"""
    before = failure.tokens_before[-3:]
    if [str(t) for t in before[:2]] != ["help", "("] or len(before) < 3 or before[2].type == "NAME":
        return None
    word = str(before[2])
    if not word.isidentifier():
        return None
    span = _point(failure.source, before[2].line, before[2].column, len(word))
    help = f'write help("{word}") or :help {word}'
    return DGError("SyntaxError", f"'{word}' is a keyword, not a value", span, help=help)


def _known_by_example(failure: Failure) -> DGError | None:
    """The message of EXAMPLES whose examples fail the way this program does."""
    known = _comparable(failure.token, failure.accepts).match_examples(
        _fail_like, EXAMPLES, token_type_match_fallback=True, use_accepts=False
    )
    if known is None:
        return None
    text = known.text.format(colon_line=_colon_line(failure)) if "{colon_line}" in known.text else known.text
    # An indentation error is about where a line starts: one caret, not the token underlined.
    span = _point(failure.source, *failure.line_and_column) if known.kind == "IndentationError" else failure.span
    return DGError(known.kind, text, span, help=known.help)


def _keyword_as_name(failure: Failure) -> DGError | None:
    """`grad = 3`: the lexer stops at an '=' that cannot follow a keyword, and tells which token it
    read last (lark's token_history; a failure found by the parser itself has none)."""
    before = failure.error.token_history[-1] if failure.error.token_history else None
    if failure.token.type != "EQUAL" or before is None or before.type == "NAME" or not before.isidentifier():
        return None
    return DGError(
        "SyntaxError",
        f"'{before}' is a keyword and cannot be a variable name",
        failure.span,
        help=as_a_name(str(before)),
    )


def _else_without_if(failure: Failure) -> DGError | None:
    token, span = failure.token, failure.span
    if token.type not in ("ELSE", "ELIF"):
        # At the start of a program no statement may begin with `else`, so the parser's lexer read
        # it as a name and stopped at what came after it
        before = failure.tokens_before[-1] if failure.tokens_before else None
        if before is None or str(before) not in ("else", "elif") or before.line is None:
            return None
        token, span = before, _point(failure.source, before.line, before.column, len(before))
    help = "check that it is indented like its 'if'"
    return DGError("SyntaxError", f"'{token}' without a matching 'if' above it", span, help=help)


def _unexpected(failure: Failure) -> DGError:
    """The generic message: unexpected X; expected Y (when Y is short enough to help)."""
    message = f"unexpected {_describe_token(failure.token)}"
    wanted = _describe_expected(failure.accepts)
    if wanted:
        message += f"; expected {wanted}"
    return DGError("SyntaxError", message, failure.span)


def _colon_line(failure: Failure) -> int:
    """The line of the last ':' before the failing token: the header whose block is missing."""
    line = 1
    for token in failure.tokens_before:
        if token.type == "COLON":
            line = token.line
    return line


# ---- matching examples ------------------------------------------------------------------------
def _comparable(token: Token, accepts: frozenset[str]) -> UnexpectedToken:
    """A failure as match_examples compares it: the token, and for its state what the parser would
    have accepted. (lark's own state also counts the parser's stack, so an example at the top level
    would not match the same mistake inside a function.)"""
    return UnexpectedToken(token, accepts, state=accepts)


@cache
def example_failure(example: str) -> UnexpectedToken | None:
    """How `example` fails, as match_examples compares failures (worked out once per example). None
    when it parses, or fails before the parser (in the lexer or the indenter)."""
    try:
        LARK.parse(example, start="start")
    except UnexpectedToken as e:
        return _comparable(e.token, frozenset(e.interactive_parser.accepts()))
    except (LarkError, SyntaxProblem):
        return None
    return None


def _fail_like(example: str) -> None:
    """The parse function match_examples calls: raise the example's failure (parsed once, kept)."""
    failure = example_failure(example)
    if failure is not None:
        raise failure.with_traceback(None)


# ---- describing tokens ------------------------------------------------------------------------
def _point(source: Source, line: int, column: int, width: int = 1) -> Span:
    return Span(source, line, column, line, column + width)


def _describe_token(token: Token) -> str:
    if token.type == "NAME":
        return f"name '{token}'"
    if token.type in ("INT", "FLOAT"):
        return f"number {token}"
    return FOUND.get(token.type, f"'{token}'")


def _describe_expected(expected: frozenset[str]) -> str:
    words: list[str] = []
    if expected >= EXPRESSION_STARTS:
        words.append("an expression")
        expected = expected - EXPRESSION_STARTS - {"PLUS", "NOT", "TRUE", "FALSE", "NONE"}
    for name in sorted(expected):
        word = EXPECTED.get(name) or (f"'{literal(name)}'" if literal(name) is not None else None)
        if word is not None:
            words.append(word)
    words = list(dict.fromkeys(words))
    if not words or len(words) > 6:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
