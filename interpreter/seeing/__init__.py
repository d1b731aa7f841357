"""Tools that show what happened: the graph as text and DOT, the trace, anomaly mode, the gradcheck
table and the syntax view. They build on `core/` and the engine; front ends install them.
"""
