"""grammar/dg.lark's parsing tables as plain data, for the fast parser (fast_parser.py).

lark works out everything a parser needs from the grammar: the tokens and how to match them, the
rules with the way each shapes the tree, and the LALR(1) table that says, in each parser state and
for each next token, whether to shift it or which rule to reduce. `write()` asks lark for all of it
and stores it in grammar/dg_tables.json; `load()` reads it back with the json module alone, so a
run that parses on the fast path never imports lark. The grammar stays the one source: the file
holds the grammar's text, and `load()` returns None when that is not grammar/dg.lark as it is now
(the grammar was edited and the tables not written again), so an edited grammar is parsed by lark
until the tables are regenerated with

    uv run python -m dglang.interpreter.core.grammar_tables

tests/test_fast_parser.py fails, with that command, while the file is out of date.

JSON, not pickle: loading it cannot run code, whoever wrote the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "dg.lark"
TABLES = GRAMMAR.with_name("dg_tables.json")
COMMAND = "uv run python -m dglang.interpreter.core.grammar_tables"


@dataclass(frozen=True)
class Rule:
    """One rule of the grammar after lark has spelled out its *, +, [] and alternatives, and how its
    reduction shapes what the parser hands on (lark's parse_tree_builder, as data)."""

    origin: str  # the symbol it reduces to
    size: int  # how many symbols it pops
    build: str | None  # the ASTBuilder method it calls (alias or rule name); None: `_rule`, spliced
    expand1: bool  # a `?rule` alternative without an alias: one child is passed on as it is
    # The children the builder sees, in order: (position, what) with what "value", "splice" (a
    # `_rule`'s children) or "token" (a token kept as text); None where a [part] was absent.
    children: tuple[tuple[int, str] | None, ...]


@dataclass(frozen=True)
class Tables:
    terminals: list[tuple[str, str]]  # (name, regular expression), in the order lark tries them
    keywords: dict[str, str]  # words lark's lexer retypes from NAME: {"if": "IF", ...}
    ignore: list[str]  # terminals matched and dropped (spaces, comments, backslash-newlines)
    newline: str  # the terminal the indenter works on, and the ones it makes
    indent: str
    dedent: str
    open_brackets: list[str]  # newlines between these and their closing ones are not line ends
    close_brackets: list[str]
    tab_len: int
    rules: list[Rule]
    # For each state, {symbol: action}: a state number to shift to (or go to, for a rule's symbol),
    # or -1 - r to reduce rule r.
    states: list[dict[str, int]]
    start_states: dict[str, int]  # per start symbol ("start", "test"): where parsing begins
    end_states: dict[str, int]  # ... and the state that means the input is accepted


def load() -> Tables | None:
    """The tables, or None when they are missing or were made from another grammar."""
    try:
        data = json.loads(TABLES.read_text(encoding="utf-8"))
        if "".join(data["grammar"]) != GRAMMAR.read_text(encoding="utf-8"):
            return None
        rules = [
            Rule(o, n, b, e, tuple(tuple(c) if c is not None else None for c in children))
            for o, n, b, e, children in data["rules"]
        ]
        return Tables(
            [tuple(t) for t in data["terminals"]],
            data["keywords"],
            data["ignore"],
            *data["indenter"],
            rules,
            data["states"],
            data["start_states"],
            data["end_states"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


# ---- writing the tables (needs lark) ---------------------------------------------------------
def analyse() -> dict[str, Any]:
    """Everything the fast parser needs, read from lark's own analysis of the grammar."""
    from lark.lexer import PatternStr, _create_unless
    from lark.parse_tree_builder import maybe_create_child_filter
    from lark.parsers.lalr_analysis import Shift

    from .grammar import LARK
    from .indenter import Indentation

    lexer_conf = LARK.lexer_conf
    # The order lark's lexer tries terminals in (lark/lexer.py, BasicLexer), and the string
    # terminals it folds into a regular expression that also matches them (keywords into NAME).
    ordered = sorted(
        lexer_conf.terminals, key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name)
    )
    remaining, callbacks = _create_unless(ordered, lexer_conf.g_regex_flags, lexer_conf.re_module, False)
    keywords = {}
    for name, callback in callbacks.items():
        for word in callback.scanner.terminals:
            assert isinstance(word.pattern, PatternStr)
            keywords[word.pattern.value] = word.name
        assert name == "NAME", f"only NAME retypes keywords in DG's grammar, not {name}"
    assert not lexer_conf.g_regex_flags and not any(t.pattern.flags for t in remaining), "no regex flags expected"

    rules = []
    index = {}
    for number, rule in enumerate(LARK.rules):
        index[rule] = number
        options = rule.options
        name = rule.alias or options.template_source or rule.origin.name
        expand1 = bool(options.expand1 and not rule.alias)
        spliced = rule.origin.name.startswith("_")
        assert not (spliced and (expand1 or rule.alias)), f"rule {rule}: an inlined `_rule` with ? or an alias"
        children = shaped_children(
            rule, maybe_create_child_filter(rule.expansion, options.keep_all_tokens, False, options.empty_indices)
        )
        rules.append([rule.origin.name, len(rule.expansion), None if spliced else name, expand1, children])

    table = LARK.parser.parser.parser.parse_table
    states: list[dict[str, int]] = [{} for _ in table.states]
    for state, actions in table.states.items():
        for symbol, (action, argument) in actions.items():
            states[state][symbol] = argument if action is Shift else -1 - index[argument]

    return {
        "about": f"Generated from grammar/dg.lark by `{COMMAND}` (lark {lark_version()}); do not edit. "
        "See interpreter/core/grammar_tables.py for what each part means.",
        "grammar": GRAMMAR.read_text(encoding="utf-8").splitlines(keepends=True),
        "terminals": [[t.name, t.pattern.to_regexp()] for t in remaining],
        "keywords": dict(sorted(keywords.items())),
        "ignore": sorted(lexer_conf.ignore),
        "indenter": [
            Indentation.NL_type,
            Indentation.INDENT_type,
            Indentation.DEDENT_type,
            list(Indentation.OPEN_PAREN_types),
            list(Indentation.CLOSE_PAREN_types),
            Indentation.tab_len,
        ],
        "rules": rules,
        "states": states,
        "start_states": dict(table.start_states),
        "end_states": dict(table.end_states),
    }


def shaped_children(rule: Any, child_filter: Any) -> list[list[Any] | None]:
    """lark's ChildFilter for the rule (which children it keeps, splices, and where it puts
    None for an absent [part]) spelled out as a list."""
    from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders

    if child_filter is None:
        include = [(i, False, 0) for i in range(len(rule.expansion))]
        append_none = 0
    elif child_filter.func is ChildFilterLALR:
        include, append_none = child_filter.args
    else:
        assert child_filter.func is ChildFilterLALR_NoPlaceholders
        include, append_none = [(i, splice, 0) for i, splice in child_filter.args[0]], 0
    out: list[list[Any] | None] = []
    for i, splice, nones in include:
        out += [None] * nones
        symbol = rule.expansion[i]
        out.append([i, "splice" if splice else "token" if symbol.is_term else "value"])
    return out + [None] * append_none


def lark_version() -> str:
    import lark

    return lark.__version__


def render(data: dict[str, Any]) -> str:
    """The file's text: one state or rule per line, so a change to the grammar reads as a diff."""
    lines = ["{"]
    for n, (key, value) in enumerate(data.items()):
        comma = "," if n < len(data) - 1 else ""
        if key in ("grammar", "terminals", "rules", "states"):
            items = [f"    {json.dumps(item, ensure_ascii=False, sort_keys=True)}" for item in value]
            lines.append(f"  {json.dumps(key)}: [\n" + ",\n".join(items) + f"\n  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    return "\n".join(lines) + "\n}\n"


def write() -> None:
    TABLES.write_text(render(analyse()), encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {TABLES}")
