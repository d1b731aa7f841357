"""grammar/dg.lark's parsing tables as data, for the fast parser (fast_parser.py).

lark works out everything a parser needs from the grammar: the tokens and how to match them, the
rules with the way each shapes the tree, and the LALR(1) table that says, in each parser state and
for each next token, whether to shift it or which rule to reduce. `write()` asks lark for all of it
and writes interpreter/syntax/fast/dg_tables.py, a module of literals and nothing else (a test checks), shipped
with DG like its code; `load()` imports it, so a run that parses on the fast path never imports
lark. (A module rather than JSON: Python keeps it compiled, and it loads in a fraction of the time
the same data took as JSON, at every start.) The grammar stays the one source: the
module holds the grammar's text, and `load()` returns None when that is not grammar/dg.lark as it
is now (the grammar was edited and the tables not written again), so an edited grammar is parsed
by lark until the tables are regenerated with

    uv run python -m dglang.interpreter.syntax.fast.lalr_tables

tests/language/test_fast_parser.py fails, with that command, while the module is out of date. Writing reads
some of lark's internals (its lexer's order of terminals, its tree builder's child filters, its
parse table): a lark that changes them makes `write()` fail, and the same test compares what the
two paths parse. Nothing is read from a cache or a temporary folder. What the module holds:

- GRAMMAR, the text of grammar/dg.lark the tables were made from.
- TERMINALS: (name, regular expression) for each token, in the order lark's lexer tries them;
  KEYWORDS: {"if": "IF", ...}, the words lark's lexer retypes when NAME matches them exactly;
  IGNORE: the terminals matched and dropped (spaces, comments, a backslash ending a line).
- SYMBOLS: every terminal and rule name, numbered by their place here (terminals first).
- RULES: (origin, size, build, expand1, children) for each rule, after lark has spelled out the
  grammar's *, +, [] and alternatives, with how its reduction shapes what it hands on (lark's
  parse_tree_builder, as data): the symbol it reduces to; how many it pops; the ASTBuilder method
  it calls (its alias or name), or None for a `_rule`, whose children go into its parent's;
  whether it is a `?rule` alternative without an alias, which passes one child on as it is; and
  the children the method gets, in order: (position, "value" | "splice" | "token") (a `_rule`'s
  children are spliced in, a kept token comes as its text), or None where a [part] was absent.
- STATES: the LALR(1) table, a row for each state (numbered from 1; row 0 is all zeros) and in it
  an action for each symbol: a state to go to (shift a token, or go to after reducing to a rule's
  symbol), -1 - r to reduce by rule r, or 0 for none. START_STATES and END_STATES: for each start
  symbol ("start", a program; "test", an expression in an f-string), the state parsing begins in
  and the one that accepts.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

GRAMMAR = Path(__file__).resolve().parents[3] / "grammar" / "dg.lark"
TABLES = Path(__file__).resolve().with_name("dg_tables.py")
COMMAND = "uv run python -m dglang.interpreter.syntax.fast.lalr_tables"


def load() -> ModuleType | None:
    """The tables, or None when they are missing or were made from another grammar."""
    try:
        from . import dg_tables
    except Exception:  # missing, or broken by a hand edit: lark's path parses everything meanwhile
        return None
    current = getattr(dg_tables, "GRAMMAR", None) == GRAMMAR.read_text(encoding="utf-8")
    return dg_tables if current else None


# ---- writing the tables (needs lark) ---------------------------------------------------------
def analyse() -> dict[str, Any]:
    """Everything the fast parser needs, read from lark's own analysis of the grammar."""
    from lark.lexer import PatternStr, _create_unless
    from lark.parse_tree_builder import maybe_create_child_filter
    from lark.parsers.lalr_analysis import Shift

    from dglang.interpreter.syntax.grammar import LARK
    from dglang.interpreter.syntax.indenter import DEDENT, INDENT

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
            keywords[str(word.pattern.value)] = str(word.name)
        assert name == "NAME", f"only NAME retypes keywords in DG's grammar, not {name}"
    assert not lexer_conf.g_regex_flags and not any(t.pattern.flags for t in remaining), "no regex flags expected"

    rules = []
    index = {}
    for number, rule in enumerate(LARK.rules):
        index[rule] = number
        options = rule.options
        name = str(rule.alias or options.template_source or rule.origin.name)  # lark's names can be Tokens
        expand1 = bool(options.expand1 and not rule.alias)
        spliced = rule.origin.name.startswith("_")
        assert not (spliced and (expand1 or rule.alias)), f"rule {rule}: an inlined `_rule` with ? or an alias"
        children = shaped_children(
            rule, maybe_create_child_filter(rule.expansion, options.keep_all_tokens, False, options.empty_indices)
        )
        rules.append((str(rule.origin.name), len(rule.expansion), None if spliced else name, expand1, children))

    table = LARK.parser.parser.parser.parse_table
    # lark numbers its states in an order that changes with Python's string hashing, from one run
    # to the next; numbered breadth-first from the start states, the same grammar always gives the
    # same file.
    number: dict[int, int] = {}
    queue = [table.start_states[name] for name in sorted(table.start_states)]
    for state in queue:
        if state not in number:
            number[state] = len(number) + 1  # from 1: 0 in the table is "no action"
            shifts = table.states[state].items()
            queue += [argument for _, (action, argument) in sorted(shifts) if action is Shift]
    assert len(number) == len(table.states), "every state is reached from a start state"
    # Symbols are numbered for the table's columns: the tokens first, in the lexer's order.
    terminals = [str(t.name) for t in remaining] + sorted(keywords.values())
    terminals += [INDENT, DEDENT, "$END"]  # the indenter's (indenter.py), and the end of the text
    symbols = terminals + sorted({str(rule.origin.name) for rule in LARK.rules})
    column = {name: i for i, name in enumerate(symbols)}
    rows = [[0] * len(symbols) for _ in range(len(number) + 1)]
    for state, actions in table.states.items():
        for symbol, (action, argument) in actions.items():
            rows[number[state]][column[symbol]] = number[argument] if action is Shift else -1 - index[argument]

    return {
        "GRAMMAR": GRAMMAR.read_text(encoding="utf-8"),
        "TERMINALS": tuple((str(t.name), str(t.pattern.to_regexp())) for t in remaining),
        "KEYWORDS": dict(sorted(keywords.items())),
        "IGNORE": tuple(sorted(lexer_conf.ignore)),
        "SYMBOLS": tuple(symbols),
        "RULES": tuple(rules),
        "STATES": tuple(tuple(row) for row in rows),
        "START_STATES": {name: number[state] for name, state in sorted(table.start_states.items())},
        "END_STATES": {name: number[state] for name, state in sorted(table.end_states.items())},
    }


def shaped_children(rule: Any, child_filter: Any) -> tuple[tuple[int, str] | None, ...]:
    """lark's ChildFilter for the rule (which children it keeps, splices, and where it puts
    None for an absent [part]) spelled out."""
    from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders

    if child_filter is None:
        include = [(i, False, 0) for i in range(len(rule.expansion))]
        append_none = 0
    elif child_filter.func is ChildFilterLALR:
        include, append_none = child_filter.args
    else:
        assert child_filter.func is ChildFilterLALR_NoPlaceholders
        include, append_none = [(i, splice, 0) for i, splice in child_filter.args[0]], 0
    out: list[tuple[int, str] | None] = []
    for i, splice, nones in include:
        out += [None] * nones
        symbol = rule.expansion[i]
        out.append((i, "splice" if splice else "token" if symbol.is_term else "value"))
    return tuple(out + [None] * append_none)


def lark_version() -> str:
    import lark

    return lark.__version__


def render(tables: dict[str, Any]) -> str:
    """The module's text: a table row or a rule per line, so a change to the grammar reads as a diff."""
    lines = [
        f"# Generated from grammar/dg.lark by `{COMMAND}` (lark {lark_version()}); do not edit.",
        "# interpreter/syntax/fast/lalr_tables.py says what each name means. Literals only.",
    ]
    for name, value in tables.items():
        if name == "STATES":  # rows of small numbers: without spaces, a third of the size
            lines += [f"{name} = (", *(f"    ({','.join(map(str, row))},)," for row in value), ")"]
        elif name in ("TERMINALS", "SYMBOLS", "RULES"):
            lines += [f"{name} = (", *(f"    {item!r}," for item in value), ")"]
        else:
            lines.append(f"{name} = {value!r}")
    return "\n".join(lines) + "\n"


def write() -> None:
    TABLES.write_text(render(analyse()), encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {TABLES}")
