"""The DG interpreter: text → parse tree (lark) → AST → closures → run, building the graph as it goes."""

__version__ = "0.1.0"
