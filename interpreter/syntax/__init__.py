"""The syntax stage: program text in, an AST out (or one SyntaxError per problem).

    text ─ grammar.py (lark's lexer for grammar/dg.lark) ─▶ tokens ─ indenter.py ─▶ tokens with
    _INDENT/_DEDENT ─ parser.py (lark's LALR parser) ─▶ parse tree ─ tree_to_ast.py ─▶ AST

`syntax_errors.py` holds what DG says about each kind of mistake, as example inputs mapped to
messages; `incremental.py` answers "is this cell complete?" for a REPL reading a line at a time.
`fast/` is an accelerator, not a second language: the same LALR tables read from a generated
module, for a faster start-up; `DG_PARSER=lark` turns it off (docs/for-compiler-courses.md).
"""
