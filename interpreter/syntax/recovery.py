"""Every syntax error of a program in one reading, as jlox's parser finds them: after a mistake,
report it, skip to the next statement, and go on (jlox's `synchronize()`).

A recursive-descent parser like jlox's unwinds its call stack to its statement loop. lark's LALR
parser has no call stack: its whole state is two stacks (of states and of values), and its
interactive parser takes a token at a time. So the statement boundary is kept rather than found:
where a statement starts, the stacks are saved; after a mistake

1. the error is worked out as `dg FILE` reports it (syntax_errors.py, from the parser's state
   where the token did not fit);
2. the stacks are put back as they were at the statement's start and a `pass` is fed in its
   place, so each block keeps a statement and the tree stays whole;
3. the rest of the statement is skipped: its tokens up to the end of its line, and the indented
   block after it when it is a block's header (`if x = 1:`), read by a lexer that takes any token;
4. parsing goes on from the next statement.

So one mistake gives one error, and no cascade. Four mistakes take a step of their own: a line
indented deeper than the one above (its lines are read as the block's they are in); a line that
matches no enclosing block's indentation (it is read as the enclosing block's); a header whose
block is missing (`if x:` then a line not indented: only the header is broken); and a bracket never
closed, reported where it opens, after which reading starts again at the end of its line (the lines
it swallowed are statements of their own). Mistakes found while building the syntax tree (`f() = 1`,
a broken f-string) make their statement a `pass` too (recovered_tree.py).

The tokens are those lark's own parse reads (its contextual lexer, in the parser's state, then
indenter.py), so the first error is the one `dg FILE` reports; each next one is worked out from
the first token of its statement, as on the text with everything before it blank: what `dg FILE`
reports once the ones before are fixed. Nothing before the statement is read again, so the work
is linear in the text, however many the mistakes (a message worked out on the whole text each
time made 5,000 broken lines take minutes).

The reading itself is recovering_reader.py; the tree it gives, recovered_tree.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dglang.interpreter.diagnostics.errors import DGError
from dglang.interpreter.diagnostics.source import Source
from dglang.interpreter.semantics import ast_nodes as ast

from .parser import too_deeply_nested
from .recovered_tree import built, parse_tree
from .recovering_reader import Reading


@dataclass
class Recovered:
    module: ast.Module  # every statement that parses; each broken one is a `pass`
    errors: list[DGError] = field(default_factory=list)  # one per broken statement, in the text's order
    # The names the broken statements seem to define (`def f(x:` defines f, `w = (1,` defines w): a
    # check of unknown names leaves them out, so that one mistake is not reported again at each use.
    unfinished: set[str] = field(default_factory=set)


def recover(source: Source) -> Recovered:
    """The program's syntax tree with each broken statement as a `pass`, and an error for each."""
    reading = Reading(source)
    kept = reading.run()
    try:
        module = built(source, reading.text, kept, reading.errors)
    except RecursionError:  # nested deeper than the tree builder can go: one error for the whole text
        return Recovered(ast.Module([]), [too_deeply_nested(parse_tree(kept), source)])
    errors = sorted(reading.errors, key=lambda e: (e.span.line, e.span.column) if e.span is not None else (0, 0))
    return Recovered(module, errors, reading.unfinished)
