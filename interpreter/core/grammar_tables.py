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

tests/test_fast_parser.py fails, with that command, while the file is out of date. Writing reads
some of lark's internals (its lexer's order of terminals, its tree builder's child filters, its
parse table): a lark that changes them makes `write()` fail, and the same test compares what the
two paths parse.

JSON, not pickle: loading it cannot run code, whoever wrote the file. What it holds:

- "terminals": [name, regular expression] for each token, in the order lark's lexer tries them;
  "keywords": {"if": "IF", ...}, the words lark's lexer retypes when NAME matches them exactly;
  "ignore": the terminals matched and dropped (spaces, comments, a backslash ending a line).
- The indenter's settings (indenter.py): "newline", the terminal it works on; "indent" and "dedent",
  the ones it makes; "open_brackets" and "close_brackets", between which a line break is not the
  end of a line; "tab_len", how many spaces a tab counts for.
- "rules": [origin, size, build, expand1, children] for each rule, after lark has spelled out the
  grammar's *, +, [] and alternatives, with how its reduction shapes what it hands on (lark's
  parse_tree_builder, as data): the symbol it reduces to; how many it pops; the ASTBuilder method
  it calls (its alias or name), or null for a `_rule`, whose children go into its parent's;
  whether it is a `?rule` alternative without an alias, which passes one child on as it is; and
  the children the method gets, in order: [position, "value" | "splice" | "token"] (a `_rule`'s
  children are spliced in, a kept token comes as its text), or null where a [part] was absent.
- "states": for each state of the LALR(1) table, {symbol: action}: a state to go to (shift a token,
  or go to after reducing to a rule's symbol), or -1 - r to reduce by rule r. "start_states" and
  "end_states": for each start symbol ("start", a program; "test", an expression in an f-string),
  the state parsing begins in and the one that accepts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GRAMMAR = Path(__file__).resolve().parents[2] / "grammar" / "dg.lark"
TABLES = GRAMMAR.with_name("dg_tables.json")
COMMAND = "uv run python -m dglang.interpreter.core.grammar_tables"
Tables = dict[str, Any]


def load() -> Tables | None:
    """The tables, or None when they are missing or were made from another grammar."""
    try:
        tables = json.loads(TABLES.read_text(encoding="utf-8"))
        return tables if "".join(tables["grammar"]) == GRAMMAR.read_text(encoding="utf-8") else None
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
    # lark numbers its states in an order that changes with Python's string hashing, from one run
    # to the next; numbered breadth-first from the start states, the same grammar always gives the
    # same file.
    number: dict[int, int] = {}
    queue = [table.start_states[name] for name in sorted(table.start_states)]
    for state in queue:
        if state not in number:
            number[state] = len(number)
            shifts = table.states[state].items()
            queue += [argument for _, (action, argument) in sorted(shifts) if action is Shift]
    assert len(number) == len(table.states), "every state is reached from a start state"
    states: list[dict[str, int]] = [{} for _ in number]
    for state, actions in table.states.items():
        for symbol, (action, argument) in actions.items():
            states[number[state]][symbol] = number[argument] if action is Shift else -1 - index[argument]

    return {
        "about": f"Generated from grammar/dg.lark by `{COMMAND}` (lark {lark_version()}); do not edit. "
        "See interpreter/core/grammar_tables.py for what each part means.",
        "grammar": GRAMMAR.read_text(encoding="utf-8").splitlines(keepends=True),
        "terminals": [[t.name, t.pattern.to_regexp()] for t in remaining],
        "keywords": dict(sorted(keywords.items())),
        "ignore": sorted(lexer_conf.ignore),
        "newline": Indentation.NL_type,
        "indent": Indentation.INDENT_type,
        "dedent": Indentation.DEDENT_type,
        "open_brackets": list(Indentation.OPEN_PAREN_types),
        "close_brackets": list(Indentation.CLOSE_PAREN_types),
        "tab_len": Indentation.tab_len,
        "rules": rules,
        "states": states,
        "start_states": {name: number[state] for name, state in sorted(table.start_states.items())},
        "end_states": {name: number[state] for name, state in sorted(table.end_states.items())},
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
