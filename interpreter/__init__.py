"""The DG interpreter: text → tokens → AST → resolved AST → closures → run, building the graph as it goes.

    syntax/       the syntax stage: text in, AST out (grammar, indenter, parser, tree → AST, syntax errors)
    semantics/    the semantics stage: AST in, a runnable program out (AST, resolver, the evaluator's cases)
    library/      what values are and can do: functions, operators, attributes, builtins, help
    diagnostics/  what every stage shares: source text and spans, errors as data, the one formatter
    host/         what wraps the stages to run anyone's program: the session, limits, the watchdog
    seeing/       tools that show what happened: graph pictures, the trace, anomaly mode, gradcheck
    frontends/    what a person talks to: the `dg` command, the REPL, the debugger, Jupyter, an editor

Imports go one way, down this list: frontends → seeing → host → syntax → semantics → library →
diagnostics → dglang.autograd (tests/project/test_architecture.py keeps them so).
"""
