"""The DG interpreter: text → parse tree (lark) → AST → closures → run, building the graph as it goes.

    core/       the language: source, parser, AST, evaluator, runtime values, builtins, errors
    seeing/     tools that show what happened: graph pictures, the trace, anomaly mode, gradcheck
    frontends/  what a person talks to: the `dg` command, the REPL, the debugger

Imports go one way: frontends → seeing → core → dglang.autograd.
"""
