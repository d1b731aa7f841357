"""The semantics stage: an AST in, a program out that runs when called.

    AST (ast_nodes.py) ─ resolver.py ─▶ resolved AST (every name's scope settled, static errors
    found) ─ evaluator.py ─▶ one Python closure per node; running the program is calling them

The evaluator's cases, one per kind of node, are in `expressions.py` and `statements.py`: each
says what its node means. What every node gets besides, the same way for all (errors located at
the node, the site the engine stamps on what an op records, steps counted, the debugger's
events), is in `compiling.py` and `blocks.py`; hints are written when an error is reported
(`hints.py`). A run sees the world only through `context.py`'s RunContext, so a host can wrap it
with limits without the cases knowing.
"""
