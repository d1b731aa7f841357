"""Static graphs: `static(f)` traces a DG function once per signature and runs it as generated code.

    a DG function and its arguments ─ tracing.py (listens to the engine's ops and to each tensor
    turned into a Python value) ─▶ a Trace: straight-line steps over variables, and guards
    ─ generating.py ─▶ Python source over NumPy arrays (forward, with the guards; backward, from
    each op's declared rule), compiled from generated names only ─ static_calls.py ─▶ the cache
    by signature, replay, re-tracing when a guard fails, and the node gradients flow through

trace_steps.py holds the steps a trace has besides the engine's ops (a rule run whole, a detached
copy); optimizing.py the passes; replaying.py what a call does with the compiled code. listing.py
writes each trace for a student to read (a jaxpr-like listing, commented with the DG
source lines); static_builtins.py makes `static` and `static_info` builtins of a session.
"""
