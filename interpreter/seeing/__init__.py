"""Tools that show what happened: the graph as text and DOT, the trace, anomaly mode, the gradcheck
table and the syntax view. They build on the language (syntax/, semantics/, library/, host/) and
the engine; front ends install them.
"""
