"""The semantics stage: an AST in, a program out that runs when called.

    AST (ast_nodes.py) ─ resolver.py ─▶ resolved AST (every name's scope settled, static errors
    found) ─▶ reference.py walks the tree (the reference), or evaluator.py compiles one Python
    closure per node (the accelerator, the default); running the program is walking or calling

The reference's cases, one per kind of node, are in `reference.py` (statements) and
`reference_expressions.py` (expressions): each does what its node means, there and then. The
accelerator's, in `expressions.py` and `statements.py`, say the same with what does not depend
on the run done once; what every node gets besides (errors located at the node, the site the
engine stamps on what an op records, steps counted, the debugger's events) is in `compiling.py`
and `blocks.py`. Hints are written when an error is reported (`hints.py`). A run sees the world
only through `context.py`'s RunContext, so a host can wrap it with limits without the cases
knowing.
"""
